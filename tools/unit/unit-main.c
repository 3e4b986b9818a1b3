// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every registered test and reports in KTAP/TAP form, ending with the
 * "unit: N passed, N failed" line CI looks for.
 */
#include <stdlib.h>

#include "unit.h"

int unit_failures;
static u32 unit_seed = 0x12345678;

void unit_fail(const char *file, int line, const char *expr)
{
	unit_failures++;
	printf("    # %s:%d: CHECK(%s) failed\n", file, line, expr);
}

void unit_fail_eq(const char *file, int line, const char *a, const char *b,
		  long long va, long long vb)
{
	unit_failures++;
	printf("    # %s:%d: %s == %s failed: %lld != %lld\n", file, line, a, b, va, vb);
}

u32 unit_rand(void)
{
	/* xorshift32: tiny, deterministic, good enough to spray inputs. */
	unit_seed ^= unit_seed << 13;
	unit_seed ^= unit_seed >> 17;
	unit_seed ^= unit_seed << 5;
	return unit_seed;
}

static const struct unit_test *const unit_suites[] = {
	unit_con_tests,
	unit_imm_tests,
	unit_io_tests,
	unit_credit_tests,
	unit_info_tests,
	unit_auth_tests,
	unit_riftblk_tests,
};

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	const struct unit_test *t;
	int total = 0, passed = 0, failed = 0, n = 0;
	size_t s;

	for (s = 0; s < ARRAY_SIZE(unit_suites); s++)
		for (t = unit_suites[s]; t->name; t++)
			if (!only || strstr(t->name, only))
				total++;

	printf("TAP version 13\n1..%d\n", total);
	for (s = 0; s < ARRAY_SIZE(unit_suites); s++) {
		for (t = unit_suites[s]; t->name; t++) {
			if (only && !strstr(t->name, only))
				continue;
			unit_failures = 0;
			unit_seed = 0x12345678;
			t->fn();
			n++;
			if (unit_failures) {
				printf("not ok %d %s\n", n, t->name);
				failed++;
			} else {
				printf("ok %d %s\n", n, t->name);
				passed++;
			}
		}
	}
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed || !total ? EXIT_FAILURE : EXIT_SUCCESS;
}

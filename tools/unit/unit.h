/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal test harness for the Rift codec unit tests.  Every CHECK that
 * fails prints a diagnostic and marks the running test as failed; the test
 * keeps going so one run shows every broken expectation.
 */
#ifndef _RIFT_UNIT_H
#define _RIFT_UNIT_H

#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

#include "rift-proto.h"

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT(fn)	{ #fn, fn }
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

extern int unit_failures;

void unit_fail(const char *file, int line, const char *expr);
void unit_fail_eq(const char *file, int line, const char *a, const char *b,
		  long long va, long long vb);

#define CHECK(cond) \
	do { \
		if (!(cond)) \
			unit_fail(__FILE__, __LINE__, #cond); \
	} while (0)

#define CHECK_EQ(a, b) \
	do { \
		long long __va = (long long)(a), __vb = (long long)(b); \
		if (__va != __vb) \
			unit_fail_eq(__FILE__, __LINE__, #a, #b, __va, __vb); \
	} while (0)

/* Deterministic PRNG so failures reproduce. */
u32 unit_rand(void);

/* Little-endian byte writers independent of the codec under test. */
static inline void put8(u8 *p, u8 v)
{
	p[0] = v;
}

static inline void put16(u8 *p, u16 v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline void put32(u8 *p, u32 v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static inline void put64(u8 *p, u64 v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

static inline u16 get16(const u8 *p)
{
	return p[0] | p[1] << 8;
}

static inline u32 get32(const u8 *p)
{
	return get16(p) | (u32)get16(p + 2) << 16;
}

extern const struct unit_test unit_con_tests[];
extern const struct unit_test unit_imm_tests[];
extern const struct unit_test unit_io_tests[];
extern const struct unit_test unit_credit_tests[];
extern const struct unit_test unit_info_tests[];
extern const struct unit_test unit_auth_tests[];
extern const struct unit_test unit_riftblk_tests[];

#endif /* _RIFT_UNIT_H */

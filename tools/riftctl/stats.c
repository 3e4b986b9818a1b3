// SPDX-License-Identifier: GPL-2.0
/*
 * riftctl stats: counters of every client path, server path and riftblk
 * device, and the rates between two samples, like iostat.
 *
 * A path's rates come from its stats/ counters, a device's IOPS and
 * latency from /sys/block/riftblk<N>/stat (Documentation/block/stat.rst):
 * completed IOs and the milliseconds they took, so that the mean latency
 * over an interval is the change in time divided by the change in IOs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "riftctl-cmd.h"

/* The counters a path sample keeps, in the order of its stats/ files. */
static const char *const path_ctrs[] = {
	"reqs_read", "reqs_write", "bytes_read", "bytes_write", "errors",
	"failovers", "reconnects",
};
#define NR_PATH_CTRS	(sizeof(path_ctrs) / sizeof(path_ctrs[0]))

/* Fields of a block device's stat file riftctl uses. */
enum { BS_RIOS, BS_RMERGE, BS_RSECT, BS_RTICKS, BS_WIOS, BS_WMERGE, BS_WSECT,
       BS_WTICKS, BS_INFLIGHT, BS_IOTICKS, BS_NR };

struct ent {
	char			key[PATH_BUF];	/* "c:SESS/PATH", "s:...", "d:DEV" */
	char			sess[128];
	char			name[PATH_BUF];
	char			state[32];
	unsigned long long	v[BS_NR > NR_PATH_CTRS ? BS_NR : NR_PATH_CTRS];
	long long		inflight;
	long long		rtt_us;
};

struct sample {
	struct ent	*e;
	size_t		nr;
	double		t;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct ent *ent_new(struct sample *s)
{
	struct ent *e = realloc(s->e, (s->nr + 1) * sizeof(*e));

	if (!e) {
		fprintf(stderr, "riftctl: out of memory\n");
		exit(EXIT_FAIL);
	}
	s->e = e;
	memset(&e[s->nr], 0, sizeof(*e));
	return &e[s->nr++];
}

/* A path counter, -1 if it cannot be read. */
static long long ctr(const char *cls, const char *s, const char *p, const char *f)
{
	char val[64];

	if (read_attr(val, sizeof(val), "%s/%s/paths/%s/stats/%s", cls, s, p, f))
		return -1;
	return strtoll(val, NULL, 10);
}

static void sample_paths(struct sample *smp, const char *cls, char kind,
			 const char *only)
{
	struct names s, p;
	size_t i, j, k;

	if (list_names(&s, NULL, "%s", cls))
		return;
	for (i = 0; i < s.nr; i++) {
		if (only && strcmp(only, s.v[i]))
			continue;
		if (list_names(&p, NULL, "%s/%s/paths", cls, s.v[i]))
			continue;
		for (j = 0; j < p.nr; j++) {
			struct ent *e = ent_new(smp);

			snprintf(e->key, sizeof(e->key), "%c:%s/%s", kind, s.v[i], p.v[j]);
			snprintf(e->sess, sizeof(e->sess), "%s", s.v[i]);
			snprintf(e->name, sizeof(e->name), "%s", p.v[j]);
			read_attr(e->state, sizeof(e->state), "%s/%s/paths/%s/state",
				  cls, s.v[i], p.v[j]);
			for (k = 0; k < NR_PATH_CTRS; k++) {
				long long v = ctr(cls, s.v[i], p.v[j], path_ctrs[k]);

				e->v[k] = v < 0 ? 0 : v;
			}
			e->inflight = ctr(cls, s.v[i], p.v[j], "inflight");
			e->rtt_us = ctr(cls, s.v[i], p.v[j], "rtt_us");
		}
		names_free(&p);
	}
	names_free(&s);
}

static void sample_devs(struct sample *smp, const char *only)
{
	char val[VAL_BUF];
	struct names n;
	size_t i;

	if (list_names(&n, "riftblk", "block"))
		return;
	for (i = 0; i < n.nr; i++) {
		struct ent *e;
		char sess[128] = "";

		read_attr(sess, sizeof(sess), "block/%s/riftblk/session", n.v[i]);
		if (only && strcmp(only, sess))
			continue;
		if (read_attr(val, sizeof(val), "block/%s/stat", n.v[i]))
			continue;
		e = ent_new(smp);
		/* Ten fields since Linux 2.6; a file with fewer is skipped. */
		if (sscanf(val, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &e->v[0], &e->v[1], &e->v[2], &e->v[3], &e->v[4], &e->v[5],
			   &e->v[6], &e->v[7], &e->v[8], &e->v[9]) != BS_NR) {
			smp->nr--;
			continue;
		}
		snprintf(e->key, sizeof(e->key), "d:%s", n.v[i]);
		snprintf(e->sess, sizeof(e->sess), "%s", sess);
		snprintf(e->name, sizeof(e->name), "%s", n.v[i]);
		read_attr(e->state, sizeof(e->state), "block/%s/riftblk/state", n.v[i]);
		e->inflight = e->v[BS_INFLIGHT];
	}
	names_free(&n);
}

static void sample_take(struct sample *s, const char *only)
{
	s->nr = 0;
	s->t = now();
	sample_paths(s, CLT_CLASS, 'c', only);
	sample_paths(s, SRV_CLASS, 's', only);
	sample_devs(s, only);
}

static const struct ent *prev_of(const struct sample *prev, const struct ent *e)
{
	size_t i;

	for (i = 0; i < prev->nr; i++)
		if (!strcmp(prev->e[i].key, e->key))
			return &prev->e[i];
	return NULL;
}

/* The change of counter @k since @p (none before: since zero). */
static unsigned long long delta(const struct ent *e, const struct ent *p, size_t k)
{
	if (!p || p->v[k] > e->v[k])	/* reset_all, or new */
		return e->v[k];
	return e->v[k] - p->v[k];
}

static json_object *report(const struct sample *cur, const struct sample *prev)
{
	json_object *top = json_object_new_object();
	json_object *cp = json_object_new_array(), *sp = json_object_new_array();
	json_object *dv = json_object_new_array();
	double dt = cur->t - prev->t;
	size_t i, k;

	if (dt <= 0)
		dt = 1e-9;
	json_object_object_add(top, "interval_s", json_object_new_double(dt));
	for (i = 0; i < cur->nr; i++) {
		const struct ent *e = &cur->e[i], *p = prev_of(prev, e);
		json_object *o = json_object_new_object();

		json_object_object_add(o, "session", json_object_new_string(e->sess));
		json_object_object_add(o, e->key[0] == 'd' ? "device" : "path",
				       json_object_new_string(e->name));
		json_object_object_add(o, "state", json_object_new_string(e->state));
		if (e->key[0] == 'd') {
			unsigned long long r = delta(e, p, BS_RIOS), w = delta(e, p, BS_WIOS);

			json_object_object_add(o, "read_iops", json_object_new_double(r / dt));
			json_object_object_add(o, "write_iops", json_object_new_double(w / dt));
			json_object_object_add(o, "read_kib_s",
					       json_object_new_double(delta(e, p, BS_RSECT) / 2.0 / dt));
			json_object_object_add(o, "write_kib_s",
					       json_object_new_double(delta(e, p, BS_WSECT) / 2.0 / dt));
			json_object_object_add(o, "read_await_ms",
					       json_object_new_double(r ? (double)delta(e, p, BS_RTICKS) / r : 0));
			json_object_object_add(o, "write_await_ms",
					       json_object_new_double(w ? (double)delta(e, p, BS_WTICKS) / w : 0));
			json_object_object_add(o, "inflight", json_object_new_int64(e->inflight));
			json_object_object_add(o, "util_pct",
					       json_object_new_double(delta(e, p, BS_IOTICKS) / (dt * 10)));
			json_object_object_add(o, "reads", json_object_new_int64(e->v[BS_RIOS]));
			json_object_object_add(o, "writes", json_object_new_int64(e->v[BS_WIOS]));
			json_object_array_add(dv, o);
			continue;
		}
		for (k = 0; k < NR_PATH_CTRS; k++)
			json_object_object_add(o, path_ctrs[k], json_object_new_int64(e->v[k]));
		json_object_object_add(o, "inflight", json_object_new_int64(e->inflight));
		if (e->key[0] == 'c')
			json_object_object_add(o, "rtt_us", json_object_new_int64(e->rtt_us));
		json_object_object_add(o, "reqs_s",
				       json_object_new_double((delta(e, p, 0) + delta(e, p, 1)) / dt));
		json_object_object_add(o, "read_kib_s",
				       json_object_new_double(delta(e, p, 2) / 1024.0 / dt));
		json_object_object_add(o, "write_kib_s",
				       json_object_new_double(delta(e, p, 3) / 1024.0 / dt));
		json_object_array_add(e->key[0] == 'c' ? cp : sp, o);
	}
	json_object_object_add(top, "client_paths", cp);
	json_object_object_add(top, "server_paths", sp);
	json_object_object_add(top, "devices", dv);
	return top;
}

static void print_report(json_object *r)
{
	json_object *a;
	char stamp[64];
	time_t t = time(NULL);
	size_t i;

	strftime(stamp, sizeof(stamp), "%F %T", localtime(&t));
	printf("%s  interval %.1f s\n", stamp,
	       json_object_get_double(json_object_object_get(r, "interval_s")));
	json_object_object_get_ex(r, "client_paths", &a);
	if (json_object_array_length(a))
		printf("%-44s %-12s %9s %10s %10s %8s %8s %9s %7s\n", "client path",
		       "state", "req/s", "rd KiB/s", "wr KiB/s", "inflight", "rtt_us",
		       "failovers", "errors");
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		char n[PATH_BUF * 2];

		snprintf(n, sizeof(n), "%s/%s", jstr(o, "session"), jstr(o, "path"));
		printf("%-44s %-12s %9.1f %10.1f %10.1f %8lld %8lld %9lld %7lld\n", n,
		       jstr(o, "state"),
		       json_object_get_double(json_object_object_get(o, "reqs_s")),
		       json_object_get_double(json_object_object_get(o, "read_kib_s")),
		       json_object_get_double(json_object_object_get(o, "write_kib_s")),
		       jint(o, "inflight"), jint(o, "rtt_us"), jint(o, "failovers"),
		       jint(o, "errors"));
	}
	json_object_object_get_ex(r, "server_paths", &a);
	if (json_object_array_length(a))
		printf("%-44s %-12s %9s %10s %10s %8s %9s %7s\n", "server path", "state",
		       "req/s", "rd KiB/s", "wr KiB/s", "inflight", "", "errors");
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);
		char n[PATH_BUF * 2];

		snprintf(n, sizeof(n), "%s/%s", jstr(o, "session"), jstr(o, "path"));
		printf("%-44s %-12s %9.1f %10.1f %10.1f %8lld %9s %7lld\n", n, jstr(o, "state"),
		       json_object_get_double(json_object_object_get(o, "reqs_s")),
		       json_object_get_double(json_object_object_get(o, "read_kib_s")),
		       json_object_get_double(json_object_object_get(o, "write_kib_s")),
		       jint(o, "inflight"), "", jint(o, "errors"));
	}
	json_object_object_get_ex(r, "devices", &a);
	if (json_object_array_length(a))
		printf("%-12s %-16s %9s %9s %10s %10s %9s %9s %8s %6s\n", "device", "session",
		       "r/s", "w/s", "rd KiB/s", "wr KiB/s", "r_await", "w_await",
		       "inflight", "util%");
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);

#define D(k) json_object_get_double(json_object_object_get(o, k))
		printf("%-12s %-16s %9.1f %9.1f %10.1f %10.1f %9.2f %9.2f %8lld %6.1f\n",
		       jstr(o, "device"), jstr(o, "session"), D("read_iops"), D("write_iops"),
		       D("read_kib_s"), D("write_kib_s"), D("read_await_ms"),
		       D("write_await_ms"), jint(o, "inflight"), D("util_pct"));
#undef D
	}
	putchar('\n');
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	static const char usage[] = "riftctl stats [--json] [--watch SECONDS] [--count N] [SESSION]";
	struct sample a = {}, b = {}, *cur = &a, *prev = &b, *t;
	long interval = 1, count = 1, n;
	const char *only = NULL;
	bool watch = false, count_given = false;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "jw:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'w':
			interval = strtol(optarg, &end, 10);
			if (!*optarg || *end || interval < 1 || interval > 3600)
				return usage_error("--watch: '%s' is not a number of seconds in 1..3600",
						   optarg);
			watch = true;
			break;
		case 'c':
			count_given = true;
			count = strtol(optarg, &end, 10);
			if (!*optarg || *end || count < 1)
				return usage_error("--count: '%s' is not a positive number", optarg);
			break;
		case 'h':
			printf("usage: %s\n", usage);
			return EXIT_OK;
		default:
			return usage_error("usage: %s", usage);
		}
	}
	if (optind + 1 < argc)
		return usage_error("usage: %s", usage);
	if (optind < argc) {
		only = argv[optind];
		if (!name_valid(only, 64))
			return usage_error("'%s' is not a session name", only);
		if (!sys_exists(CLT_CLASS "/%s", only) && !sys_exists(SRV_CLASS "/%s", only))
			return fail("no session %s on this host (riftctl list, riftctl server list)",
				    only);
	}
	/* --watch without --count runs until interrupted. */
	if (watch && !count_given)
		count = -1;
	sample_take(prev, only);
	for (n = 0; count < 0 || n < count; n++) {
		json_object *r;

		sleep(interval);
		sample_take(cur, only);
		r = report(cur, prev);
		if (opt_json)
			puts(json_object_to_json_string_ext(r, watch ? JSON_C_TO_STRING_PLAIN :
							    JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_SPACED |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
		else
			print_report(r);
		fflush(stdout);
		json_object_put(r);
		t = prev;
		prev = cur;
		cur = t;
	}
	free(a.e);
	free(b.e);
	return EXIT_OK;
}

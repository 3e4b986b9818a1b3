/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riftctl: the commands and what they share.
 */
#ifndef RIFTCTL_CMD_H
#define RIFTCTL_CMD_H

#include "riftctl.h"

/* What a write was for: picks the hint that goes with its errno. */
enum op {
	OP_ANY,
	OP_MAP,
	OP_UNMAP,
	OP_REMAP,
	OP_PATH_ADD,
	OP_PATH_REMOVE,
	OP_PATH_CTL,
	OP_SET,
	OP_HOST_ADD,
	OP_HOST_REMOVE,
	OP_HOST_SECRET,
	OP_EXPORT_ADD,
	OP_EXPORT_REMOVE,
	OP_CLOSE,
};

/* errors.c */
int op_failed(enum op op, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int opts_json(int argc, char **argv, const char *usage);

/* riftctl.c */
extern bool opt_json;
void print_json(json_object *o);
const char *jstr(json_object *o, const char *key);
long long jint(json_object *o, const char *key);
int need_root(void);
int read_secret_file(const char *file, char *hex, size_t size);
bool name_valid(const char *s, size_t max);

/* client.c */
struct tunable {
	const char	*key;
	long long	min;
	long long	max;
};
const struct tunable *tunable_find(const char *key, size_t len);
int tunable_check(const struct tunable *t, const char *v);
int tunable_invalid(const struct tunable *t, const char *v, char *why, size_t size);
bool path_arg_ok(const char *p);
json_object *clt_path_json(const char *s, const char *p);
json_object *blk_dev_json(const char *d);
void print_obj(json_object *o, int indent);
void print_path_line(const char *lead, json_object *p);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_unmap(int argc, char **argv);
int cmd_remap(int argc, char **argv);
int cmd_path(int argc, char **argv);
int cmd_set(int argc, char **argv);

/* server.c */
int cmd_server(int argc, char **argv);
int cmd_host(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* apply.c */
int cmd_apply(int argc, char **argv);

/* stats.c */
int cmd_stats(int argc, char **argv);

#endif

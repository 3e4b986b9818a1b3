/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riftctl: administration tool for Rift and riftblk (user space).
 */
#ifndef RIFTCTL_H
#define RIFTCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/* Exit codes (riftctl(8), EXIT STATUS). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* the operation failed; nothing changed */
#define EXIT_USAGE	2	/* bad command line; nothing was tried */

#define PATH_BUF	1024
#define VAL_BUF		4096

/* Where the modules put their files, relative to /sys. */
#define CLT_CLASS	"class/rift-client"
#define SRV_CLASS	"class/rift-server"
#define SRV_KOBJ	"kernel/rift_server"
#define BLK_CTL		"class/riftblk-client/ctl"
#define BLKSRV_CLASS	"class/riftblk-server"
#define BLKSRV_KOBJ	"kernel/riftblk_server"

struct names {
	char	**v;
	size_t	nr;
};

/* sysfs.c */
void sys_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int read_text(const char *path, char *buf, size_t size);
int read_attr(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int write_text(const char *path, const char *text);
int write_attr(const char *text, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool sys_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int list_names(struct names *out, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool names_has(const struct names *n, const char *s);
void names_free(struct names *n);
json_object *json_value(const char *text);
void json_add_dir(json_object *obj, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
extern bool write_open_failed;

#endif

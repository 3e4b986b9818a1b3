// SPDX-License-Identifier: GPL-2.0
/*
 * riftctl: reading and writing Rift's sysfs files.
 *
 * Every write is one write(2) of the whole value, as the kernel's store
 * functions expect, so that the errno it returns is the kernel's verdict
 * on exactly that value.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "riftctl.h"

/* RIFTCTL_SYSFS lets the tool run against a copy of /sys. */
static const char *sysfs_root(void)
{
	static const char *root;

	if (!root) {
		root = getenv("RIFTCTL_SYSFS");
		if (!root || !*root)
			root = "/sys";
	}
	return root;
}

void sys_path(char *buf, size_t size, const char *fmt, ...)
{
	char rel[PATH_BUF];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel) ||
	    (size_t)snprintf(buf, size, "%s/%s", sysfs_root(), rel) >= size) {
		fprintf(stderr, "riftctl: path too long: %s\n", rel);
		exit(EXIT_FAIL);
	}
}

int read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* @path (PATH_BUF bytes): the sysfs file the format names, or an error. */
static int attr_vpath(char *path, const char *fmt, va_list ap)
{
	char rel[PATH_BUF];
	int n;

	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	sys_path(path, PATH_BUF, "%s", rel);
	return 0;
}

int read_attr(char *buf, size_t size, const char *fmt, ...)
{
	char path[PATH_BUF];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = attr_vpath(path, fmt, ap);
	va_end(ap);
	return err ? err : read_text(path, buf, size);
}

bool write_open_failed;

int write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	write_open_failed = false;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		write_open_failed = true;
		return -errno;
	}
	n = write(fd, text, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int write_attr(const char *text, const char *fmt, ...)
{
	char path[PATH_BUF];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = attr_vpath(path, fmt, ap);
	va_end(ap);
	return err ? err : write_text(path, text);
}

bool sys_exists(const char *fmt, ...)
{
	char path[PATH_BUF];
	struct stat st;
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = attr_vpath(path, fmt, ap);
	va_end(ap);
	return !err && stat(path, &st) == 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strverscmp(*(char * const *)a, *(char * const *)b);
}

void names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		free(n->v[i]);
	free(n->v);
	n->v = NULL;
	n->nr = 0;
}

int list_names(struct names *out, const char *prefix, const char *fmt, ...)
{
	char rel[PATH_BUF], path[PATH_BUF];
	struct dirent *de;
	size_t len = prefix ? strlen(prefix) : 0;
	va_list ap;
	DIR *d;
	int n;

	out->v = NULL;
	out->nr = 0;
	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	sys_path(path, sizeof(path), "%s", rel);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		char **v;

		if (de->d_name[0] == '.')
			continue;
		if (len && strncmp(de->d_name, prefix, len))
			continue;
		v = realloc(out->v, (out->nr + 1) * sizeof(*v));
		if (!v)
			goto nomem;
		out->v = v;
		out->v[out->nr] = strdup(de->d_name);
		if (!out->v[out->nr])
			goto nomem;
		out->nr++;
	}
	closedir(d);
	if (out->nr)
		qsort(out->v, out->nr, sizeof(*out->v), name_cmp);
	return 0;
nomem:
	closedir(d);
	names_free(out);
	return -ENOMEM;
}

bool names_has(const struct names *n, const char *s)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (!strcmp(n->v[i], s))
			return true;
	return false;
}

/* A value as JSON: an integer if the whole text is one, else a string. */
json_object *json_value(const char *text)
{
	char *end;
	long long v;

	if (*text && (isdigit((unsigned char)*text) ||
		      (*text == '-' && isdigit((unsigned char)text[1])))) {
		errno = 0;
		v = strtoll(text, &end, 10);
		if (!*end && !errno)
			return json_object_new_int64(v);
	}
	return json_object_new_string(text);
}

/*
 * Every readable file of a sysfs directory into @obj, so that attributes
 * a newer kernel adds show up without a change here.  Write-only files
 * (mode without any read bit: secrets, triggers) are left out.
 */
void json_add_dir(json_object *obj, const char *fmt, ...)
{
	char rel[PATH_BUF], dir[PATH_BUF], path[PATH_BUF * 2], val[VAL_BUF];
	struct names n;
	struct stat st;
	va_list ap;
	size_t i;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(rel))
		return;
	if (list_names(&n, NULL, "%s", rel))
		return;
	sys_path(dir, sizeof(dir), "%s", rel);
	for (i = 0; i < n.nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, n.v[i]);
		if (lstat(path, &st) || !S_ISREG(st.st_mode) ||
		    !(st.st_mode & 0444) || !strcmp(n.v[i], "uevent"))
			continue;
		if (read_text(path, val, sizeof(val)))
			continue;
		json_object_object_add(obj, n.v[i], json_value(val));
	}
	names_free(&n);
}

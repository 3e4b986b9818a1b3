// SPDX-License-Identifier: GPL-2.0
/*
 * riftctl: drive Rift and riftblk through their sysfs files.
 *
 * The sysfs ABI (Documentation/ABI/testing/) is the only interface: the
 * tool keeps no state of its own, so what it shows is what the kernel
 * has, and a command that fails leaves the kernel as it found it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "riftctl-cmd.h"

#ifndef RIFTCTL_VERSION
#define RIFTCTL_VERSION "0"
#endif

bool opt_json;

static const char usage_text[] =
"usage: riftctl [--json] COMMAND [ARGS]\n"
"\n"
"client (rift-client, riftblk-client):\n"
"  list                                  sessions, paths and devices as a tree\n"
"  show SESSION|DEVICE                   everything about one of them\n"
"  map SESSION DEVICE_PATH [--path P]... [--access ro|rw|migration] [--port N]\n"
"      [--poll-queues N] [--secret-file F [--server-secret-file F]]\n"
"  unmap DEVICE [--force]\n"
"  remap DEVICE\n"
"  path add|remove|reconnect|disconnect SESSION PATH\n"
"  set SESSION KEY=VALUE...              session tunables\n"
"  stats [--watch N] [--count C] [SESSION]\n"
"configuration (/etc/rift/rift.conf, /etc/rift/secrets):\n"
"  apply [--config F] [--secrets F] [--dry-run] [--server|--client]\n"
"server (rift-server, riftblk-server):\n"
"  server list                           sessions, paths, hosts, exports, mappings\n"
"  server close SESSION [DEVICE]         close the session's riftblk mappings\n"
"  server disconnect SESSION [PATH]      disconnect the session's paths\n"
"  host list | add NAME [--secret-file F] [--server-secret-file F] | remove NAME\n"
"  host secret NAME [--server] --file F|--clear\n"
"  export list | add PATH --hosts H1,H2|* [--access ro|rw] | remove PATH|NAME\n"
"\n"
"--json: read commands print JSON.  Exit status: 0 ok, 1 the operation\n"
"failed (nothing changed), 2 bad usage.  See riftctl(8).\n";

void print_json(json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
					       JSON_C_TO_STRING_SPACED |
					       JSON_C_TO_STRING_NOSLASHESCAPE));
}

const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "";
	return json_object_get_string(v);
}

long long jint(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	return json_object_get_int64(v);
}

int need_root(void)
{
	if (geteuid() == 0 || getenv("RIFTCTL_SYSFS"))
		return 0;
	return fail("this command changes the kernel's state: run it as root");
}

/* Printable, no space or '/', not "." or ".."; what the kernel takes. */
bool name_valid(const char *s, size_t max)
{
	size_t len = strlen(s), i;

	if (!len || len > max || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == '/')
			return false;
	return true;
}

/*
 * A secret from a file ("-": standard input): hexadecimal digits, 16..64
 * bytes, surrounding white space ignored.  Secrets never come from the
 * command line, where every user's ps would show them.
 */
int read_secret_file(const char *file, char *hex, size_t size)
{
	char buf[512];
	struct stat st;
	size_t len = 0, i, start;
	ssize_t n;
	int fd;

	fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : dup(0);
	if (fd < 0)
		return fail("secret file %s: %s", file, strerror(errno));
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0077))
		fprintf(stderr, "riftctl: warning: secret file %s can be read by others (chmod 600 it)\n",
			file);
	while (len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	for (start = 0; start < len && isspace((unsigned char)buf[start]); start++)
		;
	while (len > start && isspace((unsigned char)buf[len - 1]))
		len--;
	len -= start;
	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)buf[start + i]))
			break;
	if (i != len || len < 32 || len > 128 || len % 2 || len >= size) {
		explicit_bzero(buf, sizeof(buf));
		return usage_error("secret file %s: a secret is 16..64 bytes written as 32..128 hexadecimal digits (openssl rand -hex 32 makes one)",
				   file);
	}
	memcpy(hex, buf + start, len);
	hex[len] = '\0';
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "apply", cmd_apply },
	{ "list", cmd_list },
	{ "show", cmd_show },
	{ "map", cmd_map },
	{ "unmap", cmd_unmap },
	{ "remap", cmd_remap },
	{ "path", cmd_path },
	{ "set", cmd_set },
	{ "stats", cmd_stats },
	{ "server", cmd_server },
	{ "host", cmd_host },
	{ "export", cmd_export },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	size_t i;
	int c;

	/* Global options stop at the command; each command parses its own. */
	while ((c = getopt_long(argc, argv, "+jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case 'V':
			printf("riftctl %s\n", RIFTCTL_VERSION);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name))
			continue;
		argc -= optind;
		argv += optind;
		optind = 0;
		return commands[i].fn(argc, argv);
	}
	return usage_error("unknown command '%s'", argv[optind]);
}

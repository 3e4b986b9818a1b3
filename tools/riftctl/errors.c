// SPDX-License-Identifier: GPL-2.0
/*
 * riftctl: the kernel's errno, translated into what to do about it.
 *
 * The same errno means different things for different files (EACCES
 * from map_device is the server's refusal, EBUSY from unmap_device an
 * open device), so a hint is looked up by operation first and only then
 * in the table every operation shares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "riftctl.h"
#include "riftctl-cmd.h"

struct hint {
	enum op		op;
	int		err;
	const char	*text;
};

static const struct hint hints[] = {
	{ OP_MAP, EACCES, "the server refused: host not allowed or device not exported to it (on the server: riftctl host add, riftctl export add)" },
	{ OP_MAP, ENOENT, "the server has no such device: check the device path" },
	{ OP_MAP, EBUSY, "the device is mapped read-write by another session, or the session is open already and a map on it must not give secrets" },
	{ OP_MAP, EEXIST, "a session of that name exists already (on this client for another user of Rift, or on the server from another host): choose another session name" },
	{ OP_MAP, EINVAL, "the kernel refused an argument; its log (dmesg) names which" },
	{ OP_MAP, ENOKEY, "the server requires authentication: give --secret-file" },
	{ OP_MAP, EKEYREJECTED, "authentication failed: the secret is not the one the server has for this host (riftctl host secret on the server)" },
	{ OP_MAP, ECONNREFUSED, "nothing listens on the server's port: is riftblk-server loaded there, and the port right?" },
	{ OP_MAP, ETIMEDOUT, "no path connected in time: check the addresses, the RDMA links (rdma link) and that the server is up" },
	{ OP_MAP, EHOSTUNREACH, "no path connected: check the addresses and the RDMA links (rdma link)" },
	{ OP_MAP, ENETUNREACH, "no path connected: check the addresses and the RDMA links (rdma link)" },
	{ OP_MAP, EADDRNOTAVAIL, "a source address is not on this host or has no RDMA device" },
	{ OP_MAP, EPROTONOSUPPORT, "the server imposes a protocol version or feature this client lacks: update one side" },
	{ OP_MAP, ENOSPC, "the server has no memory left for this session (rift_server.pool_mb or max_pinned_mb there)" },
	{ OP_MAP, EROFS, "the device is exported read-only to this host: map it with --access ro" },
	{ OP_REMAP, EMEDIUMTYPE, "the device's logical block size changed on the server: unmap it and map it again" },
	{ OP_REMAP, EACCES, "the server refused: host not allowed or device no longer exported to it" },
	{ OP_REMAP, ENOENT, "the device is gone on the server" },
	{ OP_REMAP, ENODEV, "the device is being unmapped" },
	{ OP_REMAP, EBUSY, "another session maps the device read-write now" },
	{ OP_UNMAP, EBUSY, "the device is open (mounted or in use): close it, or use --force (its users' IO then fails)" },
	{ OP_UNMAP, ENODEV, "the device is being unmapped already" },
	{ OP_PATH_ADD, EEXIST, "the session has this path already" },
	{ OP_PATH_ADD, EINVAL, "not a path: use [ip:]SRC@[ip:]DST or [ip:]DST with IPv4 or IPv6 addresses" },
	{ OP_PATH_ADD, ENOSPC, "the session has as many paths as it can take" },
	{ OP_PATH_REMOVE, EBUSY, "it is the session's last path: unmap the session's devices to close it instead" },
	{ OP_SET, EINVAL, "the value is out of range (riftctl(8), SESSION TUNABLES)" },
	{ OP_HOST_ADD, EEXIST, "the host is on the allow-list already" },
	{ OP_HOST_ADD, EINVAL, "a host name is 1..64 printable characters without '/'" },
	{ OP_HOST_REMOVE, ENOENT, "the host is not on the allow-list (riftctl host list)" },
	{ OP_HOST_SECRET, EINVAL, "a secret is 16..64 bytes written as 32..128 hexadecimal digits" },
	{ OP_EXPORT_ADD, EEXIST, "the device is exported already: remove the export first to change it" },
	{ OP_EXPORT_ADD, EINVAL, "bad export: the path must be absolute and hosts '*' or names separated by ','" },
	{ OP_EXPORT_ADD, ENOENT, "no such block device on this server" },
	{ OP_EXPORT_ADD, ENOTBLK, "not a block device" },
	{ OP_EXPORT_ADD, ENXIO, "the block device is not present" },
	{ OP_EXPORT_REMOVE, EBUSY, "a client maps the device: unmap it there, or riftctl server close the mapping" },
	{ OP_EXPORT_REMOVE, ENOENT, "not exported (riftctl export list)" },
	{ OP_CLOSE, EINVAL, "the kernel refused the value" },
	{ OP_ANY, EPERM, "run riftctl as root" },
	{ OP_ANY, EACCES, "permission denied: run riftctl as root" },
	{ OP_ANY, ENOENT, "it is gone (riftctl list shows what there is)" },
	{ OP_ANY, ENODEV, "it is being removed" },
	{ OP_ANY, ENOMEM, "the kernel is out of memory" },
};

static const char *hint_for(enum op op, int err)
{
	size_t i;

	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (hints[i].op == op && hints[i].err == err)
			return hints[i].text;
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (hints[i].op == OP_ANY && hints[i].err == err)
			return hints[i].text;
	return NULL;
}

int op_failed(enum op op, int err, const char *fmt, ...)
{
	const char *name, *hint;
	char what[PATH_BUF];
	va_list ap;

	if (err < 0)
		err = -err;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	name = strerrorname_np(err);
	/* Opening a file that exists fails only for want of privilege. */
	hint = write_open_failed && (err == EACCES || err == EPERM) ?
		"permission denied: run riftctl as root" : hint_for(op, err);
	fprintf(stderr, "riftctl: %s: %s (%s)%s%s\n", what, strerror(err),
		name ? name : "?", hint ? ": " : "", hint ? hint : "");
	return EXIT_FAIL;
}

int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("riftctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAIL;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("riftctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(riftctl --help, or man riftctl)\n", stderr);
	return EXIT_USAGE;
}

/* Options of a command that only reads: --json (and --help). */
int opts_json(int argc, char **argv, const char *usage)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'h':
			printf("usage: %s\n", usage);
			exit(EXIT_OK);
		default:
			return usage_error("usage: %s", usage);
		}
	}
	return 0;
}

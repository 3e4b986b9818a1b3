/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riftblk client: the map_device grammar.  Pure C, shared with the
 * user-space unit tests.
 */
#ifndef _RIFTBLK_ARGS_H
#define _RIFTBLK_ARGS_H

#include <linux/types.h>

#include <riftblk/riftblk-proto.h>

/* Longest map_device line accepted (a sysfs write is one page at most). */
#define RIFTBLK_MAP_ARGS_MAX	4096

/**
 * struct riftblk_map_args - a parsed map_device line
 * @sessname: session name, NUL-terminated
 * @paths: path= values, NUL-terminated, in the order given
 * @nr_paths: number of @paths, 1..%RIFTBLK_MAX_PATHS
 * @device_path: device on the server, NUL-terminated
 * @access_mode: enum riftblk_access_mode (default %RIFTBLK_ACCESS_RW)
 * @port: server port (default %RIFTBLK_DEFAULT_PORT)
 * @nr_poll_queues: poll queues asked for (default 0)
 * @secret: this host's secret for the server, @secret_len bytes
 * @secret_len: length of @secret (0: no secret)
 * @server_secret: the secret the server must prove, @server_secret_len bytes
 * @server_secret_len: length of @server_secret (0: the server's proof is
 *	not required)
 */
struct riftblk_map_args {
	char		sessname[RIFT_NAME_MAX + 1];
	char		paths[RIFTBLK_MAX_PATHS][RIFTBLK_ADDR_MAX];
	unsigned int	nr_paths;
	char		device_path[RIFTBLK_PATH_MAX];
	u16		access_mode;
	u16		port;
	u32		nr_poll_queues;
	u8		secret[RIFT_AUTH_SECRET_MAX];
	u32		secret_len;
	u8		server_secret[RIFT_AUTH_SECRET_MAX];
	u32		server_secret_len;
};

/**
 * struct riftblk_parse_err - why a line was refused
 * @why: what is wrong, a constant string
 * @token: the offending key or token, NUL-terminated, possibly truncated
 */
struct riftblk_parse_err {
	const char	*why;
	char		token[32];
};

int riftblk_parse_map_args(const char *buf, size_t len,
			   struct riftblk_map_args *args,
			   struct riftblk_parse_err *perr);

#endif /* _RIFTBLK_ARGS_H */

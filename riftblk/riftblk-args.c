// SPDX-License-Identifier: GPL-2.0
/*
 * riftblk client: parser of the map_device line.  Pure C (no kernel
 * services), so that tools/unit tests exactly this code.
 *
 * Grammar (Documentation/ABI/testing/sysfs-class-riftblk-client):
 *
 *   line    := token (sep token)* [sep]
 *   sep     := one or more of ' ', '\t', '\n'
 *   token   := key '=' value
 *   key     := sessname | path | device_path | access_mode | port |
 *              nr_poll_queues | secret | server_secret
 *
 * sessname, device_path and at least one path are required; path may
 * repeat up to RIFTBLK_MAX_PATHS times, every other key at most once.
 * Addresses in a path are checked by rift_clt_parse_path() afterwards,
 * nr_poll_queues (0..RIFTBLK_MAX_POLL_QUEUES here) against the
 * transport's RIFT_CLT_MAX_POLL_CONS and the session's poll connections.
 */

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/errno.h>
#include <linux/string.h>

#include <rift/rift.h>
#include <riftblk/riftblk-args.h>

enum riftblk_key {
	RIFTBLK_KEY_SESSNAME,
	RIFTBLK_KEY_PATH,
	RIFTBLK_KEY_DEVICE_PATH,
	RIFTBLK_KEY_ACCESS_MODE,
	RIFTBLK_KEY_PORT,
	RIFTBLK_KEY_NR_POLL_QUEUES,
	RIFTBLK_KEY_SECRET,
	RIFTBLK_KEY_SERVER_SECRET,
	RIFTBLK_KEY_NR,
};

static const char *const riftblk_keys[RIFTBLK_KEY_NR] = {
	[RIFTBLK_KEY_SESSNAME]		= "sessname",
	[RIFTBLK_KEY_PATH]		= "path",
	[RIFTBLK_KEY_DEVICE_PATH]	= "device_path",
	[RIFTBLK_KEY_ACCESS_MODE]	= "access_mode",
	[RIFTBLK_KEY_PORT]		= "port",
	[RIFTBLK_KEY_NR_POLL_QUEUES]	= "nr_poll_queues",
	[RIFTBLK_KEY_SECRET]		= "secret",
	[RIFTBLK_KEY_SERVER_SECRET]	= "server_secret",
};

static bool riftblk_is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static int riftblk_fail(struct riftblk_parse_err *perr, const char *why,
			const char *tok, size_t len)
{
	perr->why = why;
	if (len >= sizeof(perr->token))
		len = sizeof(perr->token) - 1;
	memcpy(perr->token, tok, len);
	perr->token[len] = '\0';
	return -EINVAL;
}

/* Decimal digits only, no sign, at most @max. */
static bool riftblk_parse_uint(const char *s, size_t len, u32 max, u32 *out)
{
	u64 v = 0;
	size_t i;

	if (!len || len > 10)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (u64)(s[i] - '0');
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

/* Printable ASCII, no space: names and paths end up in sysfs and logs. */
static bool riftblk_printable(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return false;
	return true;
}

static int riftblk_copy_str(char *dst, size_t cap, const char *s, size_t len)
{
	if (!len || len >= cap || !riftblk_printable(s, len))
		return -EINVAL;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/* The error names the key, never the value: it is logged. */
static int riftblk_set_secret(u8 *key, u32 *key_len, enum riftblk_key k,
			      const char *v, size_t vlen, struct riftblk_parse_err *perr)
{
	int n = rift_auth_parse_secret(v, vlen, key);

	if (n < 0)
		return riftblk_fail(perr, "a secret is 16..64 bytes in hexadecimal",
				    riftblk_keys[k], strlen(riftblk_keys[k]));
	*key_len = n;
	return 0;
}

static int riftblk_set(struct riftblk_map_args *a, enum riftblk_key key,
		       const char *v, size_t vlen, struct riftblk_parse_err *perr)
{
	char mode[16];
	u32 n;
	int m;

	switch (key) {
	case RIFTBLK_KEY_SESSNAME:
		if (!rift_proto_name_valid(v, vlen) ||
		    riftblk_copy_str(a->sessname, sizeof(a->sessname), v, vlen))
			return riftblk_fail(perr, "invalid session name", v, vlen);
		return 0;
	case RIFTBLK_KEY_PATH:
		if (a->nr_paths == RIFTBLK_MAX_PATHS)
			return riftblk_fail(perr, "too many paths", v, vlen);
		if (riftblk_copy_str(a->paths[a->nr_paths], RIFTBLK_ADDR_MAX, v, vlen))
			return riftblk_fail(perr, "invalid path", v, vlen);
		a->nr_paths++;
		return 0;
	case RIFTBLK_KEY_DEVICE_PATH:
		if (riftblk_copy_str(a->device_path, sizeof(a->device_path), v, vlen))
			return riftblk_fail(perr, "invalid device path", v, vlen);
		return 0;
	case RIFTBLK_KEY_ACCESS_MODE:
		m = riftblk_copy_str(mode, sizeof(mode), v, vlen) ? -EINVAL :
			riftblk_access_mode_parse(mode);
		if (m < 0)
			return riftblk_fail(perr, "access_mode must be ro, rw or migration",
					    v, vlen);
		a->access_mode = m;
		return 0;
	case RIFTBLK_KEY_PORT:
		if (!riftblk_parse_uint(v, vlen, 65535, &n) || !n)
			return riftblk_fail(perr, "port must be 1..65535", v, vlen);
		a->port = n;
		return 0;
	case RIFTBLK_KEY_NR_POLL_QUEUES:
		if (!riftblk_parse_uint(v, vlen, RIFTBLK_MAX_POLL_QUEUES, &n))
			return riftblk_fail(perr, "nr_poll_queues must be a number 0..256",
					    v, vlen);
		a->nr_poll_queues = n;
		return 0;
	case RIFTBLK_KEY_SECRET:
		return riftblk_set_secret(a->secret, &a->secret_len, key, v, vlen, perr);
	case RIFTBLK_KEY_SERVER_SECRET:
		return riftblk_set_secret(a->server_secret, &a->server_secret_len, key,
					  v, vlen, perr);
	default:
		return riftblk_fail(perr, "unknown key", v, vlen);
	}
}

/**
 * riftblk_parse_map_args() - parse a map_device line
 * @buf: the line, need not be NUL-terminated
 * @len: bytes of @buf
 * @args: filled in; cleared first
 * @perr: on failure, why and where
 *
 * Return: 0, or -EINVAL for anything but a well-formed line: unknown
 * key, repeated key, empty or malformed value, missing required key, a
 * token without '=', a NUL byte, a line over %RIFTBLK_MAP_ARGS_MAX.
 */
int riftblk_parse_map_args(const char *buf, size_t len,
			   struct riftblk_map_args *args,
			   struct riftblk_parse_err *perr)
{
	unsigned int seen = 0;
	size_t i = 0, start, klen, vlen;
	const char *tok, *eq;
	int key, err;

	memset(args, 0, sizeof(*args));
	memset(perr, 0, sizeof(*perr));
	args->access_mode = RIFTBLK_ACCESS_RW;
	args->port = RIFTBLK_DEFAULT_PORT;
	if (len > RIFTBLK_MAP_ARGS_MAX)
		return riftblk_fail(perr, "line too long", "", 0);
	if (memchr(buf, '\0', len))
		return riftblk_fail(perr, "NUL byte in the line", "", 0);

	while (i < len) {
		while (i < len && riftblk_is_sep(buf[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !riftblk_is_sep(buf[i]))
			i++;
		tok = buf + start;
		eq = memchr(tok, '=', i - start);
		if (!eq)
			return riftblk_fail(perr, "expected key=value", tok, i - start);
		klen = eq - tok;
		vlen = i - start - klen - 1;
		for (key = 0; key < RIFTBLK_KEY_NR; key++)
			if (strlen(riftblk_keys[key]) == klen &&
			    !memcmp(riftblk_keys[key], tok, klen))
				break;
		if (key == RIFTBLK_KEY_NR)
			return riftblk_fail(perr, "unknown key", tok, klen);
		if (key != RIFTBLK_KEY_PATH && (seen & (1U << key)))
			return riftblk_fail(perr, "key given twice", tok, klen);
		if (!vlen)
			return riftblk_fail(perr, "empty value", tok, klen);
		seen |= 1U << key;
		err = riftblk_set(args, key, eq + 1, vlen, perr);
		if (err)
			return err;
	}
	if (!(seen & (1U << RIFTBLK_KEY_SESSNAME)))
		return riftblk_fail(perr, "missing key", "sessname", 8);
	if (!args->nr_paths)
		return riftblk_fail(perr, "missing key", "path", 4);
	if (!(seen & (1U << RIFTBLK_KEY_DEVICE_PATH)))
		return riftblk_fail(perr, "missing key", "device_path", 11);
	if (args->server_secret_len && !args->secret_len)
		return riftblk_fail(perr, "server_secret needs secret", "server_secret", 13);
	return 0;
}

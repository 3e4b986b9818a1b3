// SPDX-License-Identifier: GPL-2.0
/*
 * riftctl client commands: rift-client sessions and paths
 * (/sys/class/rift-client/) and riftblk-client devices
 * (/sys/class/riftblk-client/ctl/map_device, /sys/block/riftblk<N>/riftblk/).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "riftctl-cmd.h"

#define MAX_PATHS	8	/* map_device takes 1..8 path= */
#define SECRET_HEX	130

/* "riftblk0" or "/dev/riftblk0" into "riftblk0". */
static int device_arg(const char *arg, char *name, size_t size)
{
	const char *s = arg;
	size_t i;

	if (!strncmp(s, "/dev/", 5))
		s += 5;
	if (strncmp(s, "riftblk", 7) || !s[7] || strlen(s) >= size)
		goto bad;
	for (i = 7; s[i]; i++)
		if (!isdigit((unsigned char)s[i]))
			goto bad;
	strcpy(name, s);
	if (!sys_exists("block/%s/riftblk", name))
		return fail("no riftblk device %s (riftctl list shows them)", name);
	return 0;
bad:
	return usage_error("'%s' is not a riftblk device (riftblkN or /dev/riftblkN)", arg);
}

static int session_arg(const char *s)
{
	if (!name_valid(s, 64))
		return usage_error("'%s' is not a session name (1..64 printable characters without space or '/')",
				   s);
	if (!sys_exists(CLT_CLASS "/%s", s))
		return fail("no session %s on this client (riftctl list shows them)", s);
	return 0;
}

json_object *clt_path_json(const char *s, const char *p)
{
	json_object *o = json_object_new_object();
	json_object *st = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(p));
	json_add_dir(o, CLT_CLASS "/%s/paths/%s", s, p);
	json_add_dir(st, CLT_CLASS "/%s/paths/%s/stats", s, p);
	json_object_object_add(o, "stats", st);
	return o;
}

json_object *blk_dev_json(const char *d)
{
	json_object *o = json_object_new_object();
	char val[VAL_BUF], dev[PATH_BUF];

	json_object_object_add(o, "name", json_object_new_string(d));
	snprintf(dev, sizeof(dev), "/dev/%s", d);
	json_object_object_add(o, "dev", json_object_new_string(dev));
	json_add_dir(o, "block/%s/riftblk", d);
	if (!read_attr(val, sizeof(val), "block/%s/size", d))
		json_object_object_add(o, "size_bytes",
				       json_object_new_int64(strtoll(val, NULL, 10) * 512));
	if (!read_attr(val, sizeof(val), "block/%s/ro", d))
		json_object_object_add(o, "read_only", json_object_new_boolean(atoi(val)));
	return o;
}

static json_object *clt_sess_json(const char *s)
{
	json_object *o = json_object_new_object();
	json_object *paths = json_object_new_array();
	json_object *devs = json_object_new_array();
	char val[VAL_BUF];
	struct names n;
	size_t i;

	json_object_object_add(o, "name", json_object_new_string(s));
	json_add_dir(o, CLT_CLASS "/%s", s);
	if (!list_names(&n, NULL, CLT_CLASS "/%s/paths", s)) {
		for (i = 0; i < n.nr; i++)
			json_object_array_add(paths, clt_path_json(s, n.v[i]));
		names_free(&n);
	}
	json_object_object_add(o, "paths", paths);
	if (!list_names(&n, "riftblk", "block")) {
		for (i = 0; i < n.nr; i++)
			if (!read_attr(val, sizeof(val), "block/%s/riftblk/session", n.v[i]) &&
			    !strcmp(val, s))
				json_object_array_add(devs, blk_dev_json(n.v[i]));
		names_free(&n);
	}
	json_object_object_add(o, "devices", devs);
	return o;
}

static json_object *clt_model(void)
{
	json_object *arr = json_object_new_array();
	struct names n;
	size_t i;

	if (list_names(&n, NULL, CLT_CLASS))
		return arr;
	for (i = 0; i < n.nr; i++)
		json_object_array_add(arr, clt_sess_json(n.v[i]));
	names_free(&n);
	return arr;
}

static void human_size(long long b, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = b;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u)
		snprintf(buf, size, "%.1f %s", v, units[u]);
	else
		snprintf(buf, size, "%lld B", b);
}

void print_path_line(const char *lead, json_object *p)
{
	const char *err = jstr(p, "last_error"), *hca = jstr(p, "hca_name");

	printf("%s path %s  %s", lead, jstr(p, "name"), jstr(p, "state"));
	if (*hca)
		printf("  %s/%lld", hca, jint(p, "hca_port"));
	if (*err)
		printf("  last_error: %s", err);
	putchar('\n');
}

static void print_dev_line(const char *lead, json_object *d)
{
	char size[32];

	human_size(jint(d, "size_bytes"), size, sizeof(size));
	printf("%s %s  %s  %s  %s  %s\n", lead, jstr(d, "dev"),
	       jstr(d, "mapping_path"), jstr(d, "access_mode"), jstr(d, "state"), size);
}

static void print_sess_tree(json_object *s)
{
	json_object *paths, *devs;
	size_t np, nd, i;

	json_object_object_get_ex(s, "paths", &paths);
	json_object_object_get_ex(s, "devices", &devs);
	np = json_object_array_length(paths);
	nd = json_object_array_length(devs);
	printf("%s  %lld/%zu paths connected  %s\n", jstr(s, "name"),
	       jint(s, "connected_paths"), np, jstr(s, "mp_policy"));
	for (i = 0; i < np; i++)
		print_path_line(i + 1 < np + nd ? "|-" : "`-",
				json_object_array_get_idx(paths, i));
	for (i = 0; i < nd; i++)
		print_dev_line(i + 1 < nd ? "|- dev " : "`- dev ",
			       json_object_array_get_idx(devs, i));
}

int cmd_list(int argc, char **argv)
{
	json_object *m;
	size_t i, n;
	int err;

	err = opts_json(argc, argv, "riftctl list [--json]");
	if (err)
		return err;
	if (optind < argc)
		return usage_error("list takes no arguments (riftctl show SESSION for one)");
	m = clt_model();
	if (opt_json) {
		json_object *top = json_object_new_object();

		json_object_object_add(top, "sessions", m);
		print_json(top);
		json_object_put(top);
		return EXIT_OK;
	}
	n = json_object_array_length(m);
	if (!n)
		printf(sys_exists(CLT_CLASS) ? "no sessions\n" :
		       "no sessions (rift-client is not loaded)\n");
	for (i = 0; i < n; i++)
		print_sess_tree(json_object_array_get_idx(m, i));
	json_object_put(m);
	return EXIT_OK;
}

/* Every key of @o as "key: value", nested objects and arrays indented. */
void print_obj(json_object *o, int indent)
{
	json_object_object_foreach(o, key, val) {
		if (json_object_is_type(val, json_type_object)) {
			printf("%*s%s:\n", indent, "", key);
			print_obj(val, indent + 2);
		} else if (json_object_is_type(val, json_type_array)) {
			size_t i, n = json_object_array_length(val);

			if (!n)
				printf("%*s%s: none\n", indent, "", key);
			for (i = 0; i < n; i++) {
				json_object *e = json_object_array_get_idx(val, i);

				if (json_object_is_type(e, json_type_object)) {
					printf("%*s%s %s:\n", indent, "", key, jstr(e, "name"));
					print_obj(e, indent + 2);
				} else {
					printf("%*s%s: %s\n", indent, "", key,
					       json_object_get_string(e));
				}
			}
		} else if (strcmp(key, "name") || !indent) {
			printf("%*s%s: %s\n", indent, "", key, json_object_get_string(val));
		}
	}
}

int cmd_show(int argc, char **argv)
{
	json_object *o;
	char dev[64];
	const char *a;
	int err;

	err = opts_json(argc, argv, "riftctl show SESSION|DEVICE [--json]");
	if (err)
		return err;
	if (optind + 1 != argc)
		return usage_error("usage: riftctl show SESSION|DEVICE [--json]");
	a = argv[optind];
	if (!strncmp(a, "/dev/", 5) ||
	    (!strncmp(a, "riftblk", 7) && sys_exists("block/%s/riftblk", a))) {
		err = device_arg(a, dev, sizeof(dev));
		if (err)
			return err;
		o = blk_dev_json(dev);
	} else {
		err = session_arg(a);
		if (err)
			return err;
		o = clt_sess_json(a);
	}
	if (opt_json)
		print_json(o);
	else
		print_obj(o, 0);
	json_object_put(o);
	return EXIT_OK;
}

/* A path of a session, as written for map_device: no space, not empty. */
bool path_arg_ok(const char *p)
{
	size_t i;

	if (!*p || strlen(p) > 255)
		return false;
	for (i = 0; p[i]; i++)
		if (!isgraph((unsigned char)p[i]))
			return false;
	return true;
}

/* "SRC@DST:PORT" of a path directory as "SRC@DST" for map_device. */
static void path_without_port(const char *dir, char *out, size_t size)
{
	char *colon;

	snprintf(out, size, "%s", dir);
	colon = strrchr(out, ':');
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1))
		*colon = '\0';
}

static long num_arg(const char *opt, const char *s, long min, long max, int *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max) {
		*err = usage_error("%s: '%s' is not a number in %ld..%ld", opt, s, min, max);
		return 0;
	}
	return v;
}

int cmd_map(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "access", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'P' },
		{ "poll-queues", required_argument, NULL, 'q' },
		{ "secret-file", required_argument, NULL, 's' },
		{ "server-secret-file", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	static const char usage[] =
		"riftctl map SESSION DEVICE_PATH [--path [ip:]SRC@[ip:]DST]... [--access ro|rw|migration] [--port N] [--poll-queues N] [--secret-file F [--server-secret-file F]]";
	const char *paths[MAX_PATHS], *access = NULL, *sfile = NULL, *ssfile = NULL;
	char line[4096], secret[SECRET_HEX], ssecret[SECRET_HEX], first[PATH_BUF];
	const char *sess, *devpath;
	long port = 0, pollq = -1;
	struct names before, after;
	int c, err = 0, np = 0, i;
	size_t k, len;

	while ((c = getopt_long(argc, argv, "p:a:P:q:s:S:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (np == MAX_PATHS)
				return usage_error("at most %d paths", MAX_PATHS);
			if (!path_arg_ok(optarg))
				return usage_error("--path '%s': use [ip:]SRC@[ip:]DST or [ip:]DST", optarg);
			paths[np++] = optarg;
			break;
		case 'a':
			if (strcmp(optarg, "ro") && strcmp(optarg, "rw") &&
			    strcmp(optarg, "migration"))
				return usage_error("--access is ro, rw or migration, not '%s'", optarg);
			access = optarg;
			break;
		case 'P':
			port = num_arg("--port", optarg, 1, 65535, &err);
			break;
		case 'q':
			pollq = num_arg("--poll-queues", optarg, 0, 32, &err);
			break;
		case 's':
			sfile = optarg;
			break;
		case 'S':
			ssfile = optarg;
			break;
		case 'h':
			printf("usage: %s\n", usage);
			return EXIT_OK;
		default:
			return usage_error("usage: %s", usage);
		}
		if (err)
			return err;
	}
	if (optind + 2 != argc)
		return usage_error("usage: %s", usage);
	sess = argv[optind];
	devpath = argv[optind + 1];
	if (!name_valid(sess, 64))
		return usage_error("'%s' is not a session name (1..64 printable characters without space or '/')",
				   sess);
	if (!path_arg_ok(devpath))
		return usage_error("'%s' is not a device path (printable, no spaces, at most 255 bytes)",
				   devpath);
	if (ssfile && !sfile)
		return usage_error("--server-secret-file needs --secret-file");
	if (!sys_exists(BLK_CTL "/map_device"))
		return fail("riftblk-client is not loaded (modprobe riftblk-client)");
	/*
	 * A map on an open session uses the session's paths whatever it
	 * names; map_device still wants one, so name the session's first.
	 */
	if (!np) {
		struct names pn;

		if (!sys_exists(CLT_CLASS "/%s", sess) ||
		    list_names(&pn, NULL, CLT_CLASS "/%s/paths", sess) || !pn.nr)
			return usage_error("session %s is not open: give its paths with --path", sess);
		path_without_port(pn.v[0], first, sizeof(first));
		names_free(&pn);
		paths[np++] = first;
	}
	err = need_root();
	if (err)
		return err;
	len = snprintf(line, sizeof(line), "sessname=%s device_path=%s", sess, devpath);
	for (i = 0; i < np; i++)
		len += snprintf(line + len, sizeof(line) - len, " path=%s", paths[i]);
	if (access)
		len += snprintf(line + len, sizeof(line) - len, " access_mode=%s", access);
	if (port)
		len += snprintf(line + len, sizeof(line) - len, " port=%ld", port);
	if (pollq >= 0)
		len += snprintf(line + len, sizeof(line) - len, " nr_poll_queues=%ld", pollq);
	if (sfile) {
		err = read_secret_file(sfile, secret, sizeof(secret));
		if (err)
			goto out;
		len += snprintf(line + len, sizeof(line) - len, " secret=%s", secret);
	}
	if (ssfile) {
		err = read_secret_file(ssfile, ssecret, sizeof(ssecret));
		if (err)
			goto out;
		len += snprintf(line + len, sizeof(line) - len, " server_secret=%s", ssecret);
	}
	if (len >= sizeof(line)) {
		err = usage_error("map arguments too long");
		goto out;
	}
	list_names(&before, "riftblk", "block");
	err = write_attr(line, BLK_CTL "/map_device");
	if (err) {
		err = op_failed(OP_MAP, err, "map %s over session %s", devpath, sess);
		names_free(&before);
		goto out;
	}
	/* The new device is the one that was not there before. */
	if (!list_names(&after, "riftblk", "block")) {
		for (k = 0; k < after.nr; k++)
			if (!names_has(&before, after.v[k]))
				printf("/dev/%s\n", after.v[k]);
		names_free(&after);
	}
	names_free(&before);
out:
	explicit_bzero(line, sizeof(line));
	explicit_bzero(secret, sizeof(secret));
	explicit_bzero(ssecret, sizeof(ssecret));
	return err;
}

int cmd_unmap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool force = false;
	char dev[64];
	int c, err;

	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			force = true;
			break;
		case 'h':
			puts("usage: riftctl unmap DEVICE [--force]");
			return EXIT_OK;
		default:
			return usage_error("usage: riftctl unmap DEVICE [--force]");
		}
	}
	if (optind + 1 != argc)
		return usage_error("usage: riftctl unmap DEVICE [--force]");
	err = device_arg(argv[optind], dev, sizeof(dev));
	if (!err)
		err = need_root();
	if (err)
		return err;
	err = write_attr(force ? "force" : "1", "block/%s/riftblk/unmap_device", dev);
	if (err)
		return op_failed(OP_UNMAP, err, "unmap %s", dev);
	return EXIT_OK;
}

int cmd_remap(int argc, char **argv)
{
	char dev[64];
	int err;

	err = opts_json(argc, argv, "riftctl remap DEVICE");
	if (err)
		return err;
	if (optind + 1 != argc)
		return usage_error("usage: riftctl remap DEVICE");
	err = device_arg(argv[optind], dev, sizeof(dev));
	if (!err)
		err = need_root();
	if (err)
		return err;
	err = write_attr("1", "block/%s/riftblk/remap", dev);
	if (err)
		return op_failed(OP_REMAP, err, "remap %s", dev);
	return EXIT_OK;
}

/*
 * A path of @s named as its directory ("SRC@DST:PORT") or as it was
 * added ("[ip:]SRC@[ip:]DST", the session's port implied).
 */
static int resolve_path(const char *s, const char *arg, char *out, size_t size)
{
	char want[PATH_BUF], *w = want;
	const char *a = arg, *match = NULL;
	struct names n;
	size_t i, len;
	int hits = 0;

	/* Drop the optional "ip:" prefixes of both addresses. */
	for (; *a && w < want + sizeof(want) - 1; ) {
		if (!strncmp(a, "ip:", 3) && (a == arg || a[-1] == '@')) {
			a += 3;
			continue;
		}
		*w++ = *a++;
	}
	*w = '\0';
	if (list_names(&n, NULL, CLT_CLASS "/%s/paths", s))
		return fail("session %s has no paths", s);
	len = strlen(want);
	for (i = 0; i < n.nr; i++) {
		if (!strcmp(n.v[i], want)) {
			match = n.v[i];
			hits = 1;
			break;
		}
		if (!strncmp(n.v[i], want, len) && n.v[i][len] == ':') {
			match = n.v[i];
			hits++;
		}
	}
	if (hits == 1)
		snprintf(out, size, "%s", match);
	names_free(&n);
	if (hits == 1)
		return 0;
	if (hits)
		return usage_error("path '%s' of session %s is ambiguous: name it as riftctl show %s lists it",
				   arg, s, s);
	return fail("session %s has no path %s (riftctl show %s lists them)", s, arg, s);
}

int cmd_path(int argc, char **argv)
{
	static const char usage[] = "riftctl path add|remove|reconnect|disconnect SESSION PATH";
	struct names before, after;
	const char *verb, *s;
	char p[PATH_BUF];
	size_t k;
	int err;

	err = opts_json(argc, argv, usage);
	if (err)
		return err;
	if (optind + 3 != argc)
		return usage_error("usage: %s", usage);
	verb = argv[optind];
	s = argv[optind + 1];
	if (strcmp(verb, "add") && strcmp(verb, "remove") &&
	    strcmp(verb, "reconnect") && strcmp(verb, "disconnect"))
		return usage_error("unknown path command '%s'; usage: %s", verb, usage);
	if (!path_arg_ok(argv[optind + 2]))
		return usage_error("'%s' is not a path: use [ip:]SRC@[ip:]DST or [ip:]DST",
				   argv[optind + 2]);
	err = session_arg(s);
	if (err)
		return err;
	if (!strcmp(verb, "add")) {
		err = need_root();
		if (err)
			return err;
		list_names(&before, NULL, CLT_CLASS "/%s/paths", s);
		err = write_attr(argv[optind + 2], CLT_CLASS "/%s/add_path", s);
		if (err) {
			names_free(&before);
			return op_failed(OP_PATH_ADD, err, "add path %s to session %s",
					 argv[optind + 2], s);
		}
		if (!list_names(&after, NULL, CLT_CLASS "/%s/paths", s)) {
			for (k = 0; k < after.nr; k++)
				if (!names_has(&before, after.v[k]))
					printf("%s\n", after.v[k]);
			names_free(&after);
		}
		names_free(&before);
		return EXIT_OK;
	}
	err = resolve_path(s, argv[optind + 2], p, sizeof(p));
	if (!err)
		err = need_root();
	if (err)
		return err;
	if (!strcmp(verb, "remove")) {
		err = write_attr("1", CLT_CLASS "/%s/paths/%s/remove_path", s, p);
		if (err)
			return op_failed(OP_PATH_REMOVE, err, "remove path %s of session %s", p, s);
		return EXIT_OK;
	}
	err = write_attr("1", CLT_CLASS "/%s/paths/%s/%s", s, p, verb);
	if (err)
		return op_failed(OP_PATH_CTL, err, "%s path %s of session %s", verb, p, s);
	return EXIT_OK;
}

/* The session tunables and their ranges (sysfs-class-rift-client). */
static const struct tunable tunables[] = {
	{ "mp_policy", 0, 0 },
	{ "io_timeout_ms", 0, 3600000 },
	{ "hb_interval_ms", 100, 60000 },
	{ "hb_missed_max", 1, 100 },
	{ "stall_timeout_ms", 200, 60000 },
	{ "reconnect_delay_ms", 10, 3600000 },
	{ "reconnect_delay_max_ms", 10, 3600000 },
	{ "max_reconnect_attempts", -1, INT_MAX },
	{ "always_invalidate", 0, 1 },
};

static const char *const mp_policies[] = { "round-robin", "min-inflight", "min-latency" };

const struct tunable *tunable_find(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(tunables) / sizeof(tunables[0]); i++)
		if (strlen(tunables[i].key) == len && !strncmp(tunables[i].key, key, len))
			return &tunables[i];
	return NULL;
}

int tunable_invalid(const struct tunable *t, const char *v, char *why, size_t size)
{
	char *end;
	long long n;
	size_t i;

	if (!strcmp(t->key, "mp_policy")) {
		for (i = 0; i < sizeof(mp_policies) / sizeof(mp_policies[0]); i++)
			if (!strcmp(v, mp_policies[i]))
				return 0;
		snprintf(why, size, "mp_policy is round-robin, min-inflight or min-latency, not '%s'", v);
		return -EINVAL;
	}
	errno = 0;
	n = strtoll(v, &end, 10);
	if (!*v || *end || errno || n < t->min || n > t->max) {
		snprintf(why, size, "%s: '%s' is not a number in %lld..%lld", t->key, v, t->min, t->max);
		return -EINVAL;
	}
	return 0;
}

int tunable_check(const struct tunable *t, const char *v)
{
	char why[256];

	if (tunable_invalid(t, v, why, sizeof(why)))
		return usage_error("%s", why);
	return 0;
}

int cmd_set(int argc, char **argv)
{
	static const char usage[] = "riftctl set SESSION KEY=VALUE...";
	const struct tunable *t[16];
	char old[16][64];
	const char *s, *eq;
	int err, i, j, n;

	err = opts_json(argc, argv, usage);
	if (err)
		return err;
	if (optind + 2 > argc)
		return usage_error("usage: %s", usage);
	s = argv[optind];
	n = argc - optind - 1;
	if (n > 16)
		return usage_error("at most 16 settings at once");
	/* Everything is checked before anything is written. */
	for (i = 0; i < n; i++) {
		const char *a = argv[optind + 1 + i];

		eq = strchr(a, '=');
		if (!eq || eq == a)
			return usage_error("'%s' is not KEY=VALUE", a);
		t[i] = tunable_find(a, eq - a);
		if (!t[i])
			return usage_error("unknown setting '%.*s' (mp_policy, io_timeout_ms, hb_interval_ms, hb_missed_max, stall_timeout_ms, reconnect_delay_ms, reconnect_delay_max_ms, max_reconnect_attempts, always_invalidate)",
					   (int)(eq - a), a);
		for (j = 0; j < i; j++)
			if (t[j] == t[i])
				return usage_error("%s given twice", t[i]->key);
		err = tunable_check(t[i], eq + 1);
		if (err)
			return err;
	}
	err = session_arg(s);
	if (!err)
		err = need_root();
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		err = read_attr(old[i], sizeof(old[i]), CLT_CLASS "/%s/%s", s, t[i]->key);
		if (err)
			return op_failed(OP_SET, err, "read %s of session %s", t[i]->key, s);
	}
	for (i = 0; i < n; i++) {
		err = write_attr(strchr(argv[optind + 1 + i], '=') + 1,
				 CLT_CLASS "/%s/%s", s, t[i]->key);
		if (!err)
			continue;
		/* Undo what was written, so a failed set changes nothing. */
		for (j = 0; j < i; j++)
			write_attr(old[j], CLT_CLASS "/%s/%s", s, t[j]->key);
		return op_failed(OP_SET, err, "set %s of session %s", t[i]->key, s);
	}
	return EXIT_OK;
}

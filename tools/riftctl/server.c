// SPDX-License-Identifier: GPL-2.0
/*
 * riftctl server commands: rift-server sessions and paths
 * (/sys/class/rift-server/), its host allow-list and secrets
 * (/sys/kernel/rift_server/), riftblk-server mappings
 * (/sys/class/riftblk-server/) and exports (/sys/kernel/riftblk_server/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "riftctl-cmd.h"

#define SECRET_HEX	130

/* riftblk-server's mappings: one object per (device, session). */
static json_object *blksrv_mappings(void)
{
	json_object *arr = json_object_new_array();
	struct names d, s;
	char val[VAL_BUF];
	size_t i, j;

	if (list_names(&d, NULL, BLKSRV_CLASS))
		return arr;
	for (i = 0; i < d.nr; i++) {
		if (list_names(&s, NULL, BLKSRV_CLASS "/%s/sessions", d.v[i]))
			continue;
		for (j = 0; j < s.nr; j++) {
			json_object *m = json_object_new_object();

			json_object_object_add(m, "session", json_object_new_string(s.v[j]));
			json_object_object_add(m, "device", json_object_new_string(d.v[i]));
			if (!read_attr(val, sizeof(val), BLKSRV_CLASS "/%s/path", d.v[i]))
				json_object_object_add(m, "path", json_object_new_string(val));
			json_add_dir(m, BLKSRV_CLASS "/%s/sessions/%s", d.v[i], s.v[j]);
			json_object_array_add(arr, m);
		}
		names_free(&s);
	}
	names_free(&d);
	return arr;
}

static json_object *srv_path_json(const char *s, const char *p)
{
	json_object *o = json_object_new_object();
	json_object *st = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(p));
	json_add_dir(o, SRV_CLASS "/%s/paths/%s", s, p);
	json_add_dir(st, SRV_CLASS "/%s/paths/%s/stats", s, p);
	json_object_object_add(o, "stats", st);
	return o;
}

static json_object *srv_sessions(json_object *maps)
{
	json_object *arr = json_object_new_array();
	struct names n, p;
	size_t i, j, k;

	if (list_names(&n, NULL, SRV_CLASS))
		return arr;
	for (i = 0; i < n.nr; i++) {
		json_object *o = json_object_new_object();
		json_object *paths = json_object_new_array();
		json_object *mine = json_object_new_array();

		json_object_object_add(o, "name", json_object_new_string(n.v[i]));
		json_add_dir(o, SRV_CLASS "/%s", n.v[i]);
		if (!list_names(&p, NULL, SRV_CLASS "/%s/paths", n.v[i])) {
			for (j = 0; j < p.nr; j++)
				json_object_array_add(paths, srv_path_json(n.v[i], p.v[j]));
			names_free(&p);
		}
		json_object_object_add(o, "paths", paths);
		for (k = 0; k < json_object_array_length(maps); k++) {
			json_object *m = json_object_array_get_idx(maps, k);

			if (!strcmp(jstr(m, "session"), n.v[i]))
				json_object_array_add(mine, json_object_get(m));
		}
		json_object_object_add(o, "mappings", mine);
		json_object_array_add(arr, o);
	}
	names_free(&n);
	return arr;
}

static json_object *srv_hosts(void)
{
	json_object *arr = json_object_new_array();
	struct names n;
	size_t i;

	if (list_names(&n, NULL, SRV_KOBJ "/hosts"))
		return arr;
	for (i = 0; i < n.nr; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(n.v[i]));
		json_add_dir(o, SRV_KOBJ "/hosts/%s", n.v[i]);
		json_object_array_add(arr, o);
	}
	names_free(&n);
	return arr;
}

static bool exports_supported(void)
{
	return sys_exists(BLKSRV_KOBJ "/add_export");
}

static json_object *srv_exports(json_object *maps)
{
	json_object *arr = json_object_new_array();
	struct names n;
	size_t i, k;

	if (list_names(&n, NULL, BLKSRV_KOBJ "/exports"))
		return arr;
	for (i = 0; i < n.nr; i++) {
		json_object *o = json_object_new_object();
		json_object *by = json_object_new_array();

		json_object_object_add(o, "name", json_object_new_string(n.v[i]));
		json_add_dir(o, BLKSRV_KOBJ "/exports/%s", n.v[i]);
		/* Both are named by the kernel's name of the device. */
		for (k = 0; k < json_object_array_length(maps); k++) {
			json_object *m = json_object_array_get_idx(maps, k);

			if (!strcmp(jstr(m, "device"), n.v[i]))
				json_object_array_add(by, json_object_new_string(jstr(m, "session")));
		}
		json_object_object_add(o, "mapped_by", by);
		json_object_array_add(arr, o);
	}
	names_free(&n);
	return arr;
}

static void print_exports(json_object *ex)
{
	size_t i, j, n = json_object_array_length(ex);

	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ex, i), *by;

		printf("  %s  %s  %s  hosts %s  mapped by:", jstr(e, "name"), jstr(e, "path"),
		       jstr(e, "access"), jstr(e, "hosts"));
		json_object_object_get_ex(e, "mapped_by", &by);
		for (j = 0; j < json_object_array_length(by); j++)
			printf(" %s", json_object_get_string(json_object_array_get_idx(by, j)));
		printf("%s\n", json_object_array_length(by) ? "" : " none");
	}
	if (!n)
		printf("  none\n");
}

static void print_hosts(json_object *h)
{
	size_t i, n = json_object_array_length(h);

	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(h, i);

		printf("  %s  secret %s  server_secret %s\n", jstr(o, "name"),
		       jint(o, "has_secret") ? "set" : "none",
		       jint(o, "has_server_secret") ? "set" : "none");
	}
	if (!n)
		printf("  none\n");
}

/* A list a read command shows: as {"KEY": [...]} with --json, else as text. */
static int show_list(const char *key, json_object *list,
		     void (*print)(json_object *list))
{
	if (opt_json) {
		json_object *top = json_object_new_object();

		json_object_object_add(top, key, list);
		print_json(top);
		json_object_put(top);
	} else {
		print(list);
		json_object_put(list);
	}
	return EXIT_OK;
}

static int server_list(int argc, char **argv)
{
	json_object *top, *maps, *sess, *hosts, *ex = NULL;
	size_t i, j, n;
	int err;

	err = opts_json(argc, argv, "riftctl server list [--json]");
	if (err)
		return err;
	if (optind != argc)
		return usage_error("server list takes no arguments");
	top = json_object_new_object();
	maps = blksrv_mappings();
	sess = srv_sessions(maps);
	hosts = srv_hosts();
	json_add_dir(top, SRV_KOBJ);
	json_object_object_add(top, "sessions", sess);
	json_object_object_add(top, "hosts", hosts);
	if (exports_supported()) {
		ex = srv_exports(maps);
		json_object_object_add(top, "exports", ex);
	}
	json_object_object_add(top, "mappings", maps);
	if (opt_json) {
		print_json(top);
		json_object_put(top);
		return EXIT_OK;
	}
	if (!sys_exists(SRV_KOBJ))
		printf("rift-server is not loaded\n");
	n = json_object_array_length(sess);
	printf("sessions:%s\n", n ? "" : " none");
	for (i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(sess, i), *paths, *mine;
		size_t np, nm;

		json_object_object_get_ex(s, "paths", &paths);
		json_object_object_get_ex(s, "mappings", &mine);
		np = json_object_array_length(paths);
		nm = json_object_array_length(mine);
		printf("  %s  %s  host %s%s  port %lld\n", jstr(s, "name"), jstr(s, "state"),
		       jstr(s, "host_name"), jint(s, "authenticated") ? " (authenticated)" : "",
		       jint(s, "port"));
		for (j = 0; j < np; j++) {
			json_object *p = json_object_array_get_idx(paths, j);

			printf("  %s path %s  %s  %s/%lld\n", j + 1 < np + nm ? "|-" : "`-",
			       jstr(p, "name"), jstr(p, "state"), jstr(p, "hca_name"),
			       jint(p, "hca_port"));
		}
		for (j = 0; j < nm; j++) {
			json_object *m = json_object_array_get_idx(mine, j);

			printf("  %s maps %s (%s) %s\n", j + 1 < nm ? "|-" : "`-",
			       jstr(m, "device"), jstr(m, "path"), jstr(m, "access_mode"));
		}
	}
	printf("hosts:\n");
	print_hosts(hosts);
	if (ex) {
		printf("exports:\n");
		print_exports(ex);
	}
	json_object_put(top);
	return EXIT_OK;
}

/* server close SESSION [DEVICE]: force_close the session's mappings. */
static int server_close(int argc, char **argv)
{
	static const char usage[] = "riftctl server close SESSION [DEVICE]";
	const char *s, *dev;
	json_object *maps;
	size_t i, hits = 0;
	int err;

	err = opts_json(argc, argv, usage);
	if (err)
		return err;
	if (optind + 1 != argc && optind + 2 != argc)
		return usage_error("usage: %s", usage);
	s = argv[optind];
	dev = optind + 2 == argc ? argv[optind + 1] : NULL;
	if (dev && !strncmp(dev, "/dev/", 5))
		dev += 5;
	if (!name_valid(s, 64))
		return usage_error("'%s' is not a session name", s);
	maps = blksrv_mappings();
	for (i = 0; i < json_object_array_length(maps); i++) {
		json_object *m = json_object_array_get_idx(maps, i);

		if (!strcmp(jstr(m, "session"), s) && (!dev || !strcmp(jstr(m, "device"), dev)))
			hits++;
	}
	if (!hits) {
		json_object_put(maps);
		return fail("session %s maps %s%s on this server (riftctl server list)", s,
			    dev ? "no device " : "no riftblk device", dev ? dev : "");
	}
	err = need_root();
	for (i = 0; !err && i < json_object_array_length(maps); i++) {
		json_object *m = json_object_array_get_idx(maps, i);

		if (strcmp(jstr(m, "session"), s) || (dev && strcmp(jstr(m, "device"), dev)))
			continue;
		err = write_attr("1", BLKSRV_CLASS "/%s/sessions/%s/force_close",
				 jstr(m, "device"), s);
		if (err)
			err = op_failed(OP_CLOSE, err, "close the mapping of %s by session %s",
					jstr(m, "device"), s);
		else
			printf("closed %s of session %s\n", jstr(m, "device"), s);
	}
	json_object_put(maps);
	return err;
}

/* server disconnect SESSION [PATH]: write 1 to the paths' disconnect. */
static int server_disconnect(int argc, char **argv)
{
	static const char usage[] = "riftctl server disconnect SESSION [PATH]";
	const char *s, *p;
	struct names n;
	size_t i, hits = 0;
	int err;

	err = opts_json(argc, argv, usage);
	if (err)
		return err;
	if (optind + 1 != argc && optind + 2 != argc)
		return usage_error("usage: %s", usage);
	s = argv[optind];
	p = optind + 2 == argc ? argv[optind + 1] : NULL;
	if (!name_valid(s, 64))
		return usage_error("'%s' is not a session name", s);
	if (list_names(&n, NULL, SRV_CLASS "/%s/paths", s))
		return fail("no session %s on this server (riftctl server list)", s);
	for (i = 0; i < n.nr; i++)
		if (!p || !strcmp(n.v[i], p))
			hits++;
	if (!hits) {
		names_free(&n);
		return fail("session %s has no path %s on this server", s, p ? p : "");
	}
	err = need_root();
	for (i = 0; !err && i < n.nr; i++) {
		if (p && strcmp(n.v[i], p))
			continue;
		err = write_attr("1", SRV_CLASS "/%s/paths/%s/disconnect", s, n.v[i]);
		if (err)
			err = op_failed(OP_PATH_CTL, err, "disconnect path %s of session %s",
					n.v[i], s);
	}
	names_free(&n);
	return err;
}

int cmd_server(int argc, char **argv)
{
	const char *sub;

	if (argc < 2)
		return usage_error("usage: riftctl server list|close|disconnect|host|export ...");
	sub = argv[1];
	argc--;
	argv++;
	optind = 0;
	if (!strcmp(sub, "list"))
		return server_list(argc, argv);
	if (!strcmp(sub, "close"))
		return server_close(argc, argv);
	if (!strcmp(sub, "disconnect"))
		return server_disconnect(argc, argv);
	if (!strcmp(sub, "host"))
		return cmd_host(argc, argv);
	if (!strcmp(sub, "export"))
		return cmd_export(argc, argv);
	return usage_error("unknown server command '%s'", sub);
}

/* Write the secret @hex to hosts/@h/@attr. */
static int host_write_secret(const char *h, const char *attr, const char *hex)
{
	int err = write_attr(hex, SRV_KOBJ "/hosts/%s/%s", h, attr);

	if (err)
		return op_failed(OP_HOST_SECRET, err, "set the %s of host %s", attr, h);
	return 0;
}

int cmd_host(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "secret-file", required_argument, NULL, 's' },
		{ "server-secret-file", required_argument, NULL, 'S' },
		{ "file", required_argument, NULL, 'f' },
		{ "clear", no_argument, NULL, 'c' },
		{ "server", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	static const char usage[] =
		"riftctl host list [--json] | add NAME [--secret-file F] [--server-secret-file F] | remove NAME | secret NAME [--server] --file F|--clear";
	const char *sfile = NULL, *ssfile = NULL, *file = NULL, *verb, *h;
	char hex[SECRET_HEX + 1], shex[SECRET_HEX + 1];
	bool clear = false, server = false;
	int c, err;

	while ((c = getopt_long(argc, argv, "js:S:f:cvh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 's':
			sfile = optarg;
			break;
		case 'S':
			ssfile = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case 'c':
			clear = true;
			break;
		case 'v':
			server = true;
			break;
		case 'h':
			printf("usage: %s\n", usage);
			return EXIT_OK;
		default:
			return usage_error("usage: %s", usage);
		}
	}
	if (optind >= argc)
		return usage_error("usage: %s", usage);
	verb = argv[optind];
	if (!strcmp(verb, "list")) {
		if (optind + 1 != argc)
			return usage_error("host list takes no arguments");
		return show_list("hosts", srv_hosts(), print_hosts);
	}
	if (optind + 2 != argc)
		return usage_error("usage: %s", usage);
	h = argv[optind + 1];
	if (!name_valid(h, 64))
		return usage_error("'%s' is not a host name (1..64 printable characters without space or '/')",
				   h);
	if (!sys_exists(SRV_KOBJ))
		return fail("rift-server is not loaded (modprobe rift-server)");
	if (!strcmp(verb, "add")) {
		if (ssfile && !sfile)
			return usage_error("--server-secret-file needs --secret-file");
		/* Read the files first: a bad one must not leave a host behind. */
		err = sfile ? read_secret_file(sfile, hex, sizeof(hex)) : 0;
		if (err)
			return err;
		err = ssfile ? read_secret_file(ssfile, shex, sizeof(shex)) : 0;
		if (err)
			goto out;
		err = need_root();
		if (err)
			goto out;
		err = write_attr(h, SRV_KOBJ "/add_host");
		if (err) {
			err = op_failed(OP_HOST_ADD, err, "add host %s", h);
			goto out;
		}
		err = sfile ? host_write_secret(h, "secret", hex) : 0;
		if (!err && ssfile)
			err = host_write_secret(h, "server_secret", shex);
		if (err)
			write_attr(h, SRV_KOBJ "/remove_host");
out:
		explicit_bzero(hex, sizeof(hex));
		explicit_bzero(shex, sizeof(shex));
		return err;
	}
	if (!strcmp(verb, "remove")) {
		err = need_root();
		if (err)
			return err;
		err = write_attr(h, SRV_KOBJ "/remove_host");
		if (err)
			return op_failed(OP_HOST_REMOVE, err, "remove host %s", h);
		return EXIT_OK;
	}
	if (!strcmp(verb, "secret")) {
		const char *attr = server ? "server_secret" : "secret";

		if (!!file == clear)
			return usage_error("host secret needs exactly one of --file F and --clear");
		if (!sys_exists(SRV_KOBJ "/hosts/%s", h))
			return fail("host %s is not on the allow-list (riftctl host add %s)", h, h);
		err = need_root();
		if (err)
			return err;
		if (file) {
			err = read_secret_file(file, hex, sizeof(hex));
			if (!err)
				err = host_write_secret(h, attr, hex);
			explicit_bzero(hex, sizeof(hex));
			return err;
		}
		err = write_attr("\n", SRV_KOBJ "/hosts/%s/%s", h, attr);
		if (err)
			return op_failed(OP_HOST_SECRET, err, "clear the %s of host %s", attr, h);
		return EXIT_OK;
	}
	return usage_error("unknown host command '%s'; usage: %s", verb, usage);
}

/* "*" or host names joined by ',', as add_export takes them. */
static bool hosts_valid(const char *s)
{
	char buf[1100], *tok, *save;

	if (!strcmp(s, "*"))
		return true;
	if (!*s || strlen(s) >= sizeof(buf) || s[strlen(s) - 1] == ',' || *s == ',' ||
	    strstr(s, ",,"))
		return false;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!name_valid(tok, 64) || strchr(tok, '*'))
			return false;
	return true;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "access", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	static const char usage[] =
		"riftctl export list [--json] | add PATH --hosts H1,H2|* [--access ro|rw] | remove PATH|NAME";
	const char *hosts = NULL, *access = "ro", *verb, *arg;
	json_object *maps, *ex;
	char line[2048];
	int c, err;

	while ((c = getopt_long(argc, argv, "jH:a:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'H':
			hosts = optarg;
			break;
		case 'a':
			if (strcmp(optarg, "ro") && strcmp(optarg, "rw"))
				return usage_error("--access is ro or rw, not '%s'", optarg);
			access = optarg;
			break;
		case 'h':
			printf("usage: %s\n", usage);
			return EXIT_OK;
		default:
			return usage_error("usage: %s", usage);
		}
	}
	if (optind >= argc)
		return usage_error("usage: %s", usage);
	verb = argv[optind];
	if (!strcmp(verb, "list")) {
		if (optind + 1 != argc)
			return usage_error("export list takes no arguments");
		if (!exports_supported())
			return fail("riftblk-server is not loaded, or too old to have exports");
		maps = blksrv_mappings();
		ex = srv_exports(maps);
		json_object_put(maps);
		return show_list("exports", ex, print_exports);
	}
	if (optind + 2 != argc)
		return usage_error("usage: %s", usage);
	arg = argv[optind + 1];
	if (!strcmp(verb, "add")) {
		if (arg[0] != '/' || strlen(arg) > 255 || strpbrk(arg, " \t\n"))
			return usage_error("'%s': an export is an absolute device path without spaces",
					   arg);
		if (!hosts)
			return usage_error("export add needs --hosts: the hosts that may map it, or '*' for every admitted host");
		if (!hosts_valid(hosts))
			return usage_error("--hosts '%s': '*' or host names separated by ','", hosts);
		if (!exports_supported())
			return fail("riftblk-server is not loaded, or too old to have exports");
		err = need_root();
		if (err)
			return err;
		snprintf(line, sizeof(line), "path=%s access=%s hosts=%s", arg, access, hosts);
		err = write_attr(line, BLKSRV_KOBJ "/add_export");
		if (err)
			return op_failed(OP_EXPORT_ADD, err, "export %s", arg);
		return EXIT_OK;
	}
	if (!strcmp(verb, "remove")) {
		if (!*arg || strlen(arg) > 255 || strpbrk(arg, " \t\n"))
			return usage_error("'%s' is not an export's path or name", arg);
		if (!exports_supported())
			return fail("riftblk-server is not loaded, or too old to have exports");
		err = need_root();
		if (err)
			return err;
		err = write_attr(arg, BLKSRV_KOBJ "/remove_export");
		if (err)
			return op_failed(OP_EXPORT_REMOVE, err, "remove the export of %s", arg);
		return EXIT_OK;
	}
	return usage_error("unknown export command '%s'; usage: %s", verb, usage);
}

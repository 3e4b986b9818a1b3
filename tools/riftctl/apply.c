// SPDX-License-Identifier: GPL-2.0
/*
 * riftctl apply: bring the running state to /etc/rift/rift.conf.
 *
 * The configuration (riftctl(8), CONFIGURATION) lists what should exist:
 * admitted hosts, exports, mapped devices, session tunables.  apply adds
 * what is missing and changes what differs, and touches nothing that is
 * already as configured, so a second run does nothing and a run after a
 * module reload or a boot puts everything back.  It removes nothing the
 * configuration does not name: other tools and people may have added it.
 *
 * Secrets live apart, in a file only root may read (/etc/rift/secrets,
 * "NAME HEX" lines), and the configuration names them.  The whole
 * configuration is parsed, and every secret it names found, before
 * anything is changed.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "riftctl-cmd.h"

#define MAX_WORDS	24
#define SECRET_HEX	130

struct line {
	char	*w[MAX_WORDS];
	int	nr;
	int	lineno;
};

struct conf {
	const char	*file;
	struct line	*l;
	size_t		nr;
	const char	*sfile;
	char		(*skey)[65];
	char		(*shex)[SECRET_HEX];
	size_t		snr;
};

static int conf_err(const struct conf *c, int lineno, const char *fmt, const char *a)
{
	fprintf(stderr, "riftctl: %s:%d: ", c->file, lineno);
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* The value of "KEY=VALUE" words of @l from index @from, or NULL. */
static const char *opt(const struct line *l, int from, const char *key)
{
	size_t len = strlen(key);
	int i;

	for (i = from; i < l->nr; i++)
		if (!strncmp(l->w[i], key, len) && l->w[i][len] == '=')
			return l->w[i] + len + 1;
	return NULL;
}

static const char *secret_of(const struct conf *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->snr; i++)
		if (!strcmp(c->skey[i], key))
			return c->shex[i];
	return NULL;
}

static int read_secrets(struct conf *c)
{
	char buf[512], *key, *hex, *save;
	struct stat st;
	int lineno = 0;
	size_t len;
	FILE *f;

	f = fopen(c->sfile, "re");
	if (!f)
		return errno == ENOENT ? 0 : fail("%s: %s", c->sfile, strerror(errno));
	if (!fstat(fileno(f), &st) && (st.st_mode & 0077)) {
		fclose(f);
		return fail("%s can be read by others: chmod 600 it (and give new secrets)", c->sfile);
	}
	while (fgets(buf, sizeof(buf), f)) {
		lineno++;
		key = strtok_r(buf, " \t\n", &save);
		if (!key || *key == '#')
			continue;
		hex = strtok_r(NULL, " \t\n", &save);
		len = hex ? strlen(hex) : 0;
		if (!hex || strtok_r(NULL, " \t\n", &save) || strlen(key) > 64 ||
		    len < 32 || len > 128 || len % 2 || strspn(hex, "0123456789abcdefABCDEF") != len) {
			fclose(f);
			explicit_bzero(buf, sizeof(buf));
			fprintf(stderr, "riftctl: %s:%d: want NAME HEX (16..64 bytes in hexadecimal)\n",
				c->sfile, lineno);
			return EXIT_USAGE;
		}
		c->skey = realloc(c->skey, (c->snr + 1) * sizeof(*c->skey));
		c->shex = realloc(c->shex, (c->snr + 1) * sizeof(*c->shex));
		if (!c->skey || !c->shex)
			exit(EXIT_FAIL);
		strcpy(c->skey[c->snr], key);
		strcpy(c->shex[c->snr], hex);
		c->snr++;
	}
	explicit_bzero(buf, sizeof(buf));
	fclose(f);
	return 0;
}

/* Check a line's words against what its kind allows. */
static int check_line(const struct conf *c, const struct line *l)
{
	const char *k = l->w[0], *v;
	int i, paths = 0;

	if (!strcmp(k, "host")) {
		if (l->nr < 2 || !name_valid(l->w[1], 64))
			return conf_err(c, l->lineno, "%s NAME [secret=KEY] [server-secret=KEY]", k);
		for (i = 2; i < l->nr; i++)
			if (strncmp(l->w[i], "secret=", 7) && strncmp(l->w[i], "server-secret=", 14))
				return conf_err(c, l->lineno, "unknown host option '%s'", l->w[i]);
	} else if (!strcmp(k, "export")) {
		if (l->nr < 3 || l->w[1][0] != '/' || !opt(l, 2, "hosts"))
			return conf_err(c, l->lineno, "%s PATH hosts=H1,H2|* [access=ro|rw]", k);
		for (i = 2; i < l->nr; i++)
			if (strncmp(l->w[i], "hosts=", 6) && strcmp(l->w[i], "access=ro") &&
			    strcmp(l->w[i], "access=rw"))
				return conf_err(c, l->lineno, "unknown export option '%s'", l->w[i]);
	} else if (!strcmp(k, "map")) {
		if (l->nr < 3 || !name_valid(l->w[1], 64) || !path_arg_ok(l->w[2]))
			return conf_err(c, l->lineno, "%s SESSION DEVICE_PATH path=P... [access=] [port=] [poll-queues=] [secret=KEY] [server-secret=KEY]", k);
		for (i = 3; i < l->nr; i++) {
			static const char *const keys[] = { "path=", "access=", "port=",
							     "poll-queues=", "secret=",
							     "server-secret=" };
			size_t j;

			for (j = 0; j < 6; j++)
				if (!strncmp(l->w[i], keys[j], strlen(keys[j])))
					break;
			if (j == 6)
				return conf_err(c, l->lineno, "unknown map option '%s'", l->w[i]);
			paths += j == 0;
		}
		if (!paths || paths > 8)
			return conf_err(c, l->lineno, "a map names 1..8 path=%s", "");
		v = opt(l, 3, "access");
		if (v && strcmp(v, "ro") && strcmp(v, "rw") && strcmp(v, "migration"))
			return conf_err(c, l->lineno, "access is ro, rw or migration, not '%s'", v);
	} else if (!strcmp(k, "session")) {
		if (l->nr < 3 || !name_valid(l->w[1], 64))
			return conf_err(c, l->lineno, "%s SESSION KEY=VALUE...", k);
		for (i = 2; i < l->nr; i++) {
			const char *eq = strchr(l->w[i], '=');
			const struct tunable *t = eq ? tunable_find(l->w[i], eq - l->w[i]) : NULL;

			char why[256];

			if (!t)
				return conf_err(c, l->lineno, "unknown session setting '%s'", l->w[i]);
			if (tunable_invalid(t, eq + 1, why, sizeof(why)))
				return conf_err(c, l->lineno, "%s", why);
		}
	} else {
		return conf_err(c, l->lineno, "unknown line '%s' (host, export, map or session)", k);
	}
	for (i = 2; i < l->nr; i++) {
		const char *key = NULL;

		if (!strncmp(l->w[i], "secret=", 7))
			key = l->w[i] + 7;
		else if (!strncmp(l->w[i], "server-secret=", 14))
			key = l->w[i] + 14;
		if (key && !secret_of(c, key))
			return conf_err(c, l->lineno, "secret '%s' is not in the secrets file", key);
	}
	return 0;
}

static int read_conf(struct conf *c)
{
	char buf[4096], *save, *tok;
	int lineno = 0, err;
	FILE *f;

	f = fopen(c->file, "re");
	if (!f)
		return fail("%s: %s", c->file, strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		struct line l = { .lineno = ++lineno };
		char *hash = strchr(buf, '#');

		if (hash)
			*hash = '\0';
		for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
			if (l.nr == MAX_WORDS) {
				fclose(f);
				return conf_err(c, lineno, "more than %s words", "24");
			}
			l.w[l.nr++] = strdup(tok);
		}
		if (!l.nr)
			continue;
		err = check_line(c, &l);
		if (err) {
			fclose(f);
			return err;
		}
		c->l = realloc(c->l, (c->nr + 1) * sizeof(*c->l));
		if (!c->l)
			exit(EXIT_FAIL);
		c->l[c->nr++] = l;
	}
	fclose(f);
	return 0;
}

static bool dry_run;
static int changes;

/* Say what is (or would be) done. */
static void act(const char *what, const char *a, const char *b)
{
	changes++;
	printf("%s%s %s%s%s\n", dry_run ? "would " : "", what, a, b ? " " : "", b ? b : "");
}

/* Is the host's secret file @attr set (has_@attr reads 1)? */
static bool host_has(const char *h, const char *attr)
{
	char val[16];

	return !read_attr(val, sizeof(val), SRV_KOBJ "/hosts/%s/has_%s", h, attr) &&
	       atoi(val) == 1;
}

static int apply_host(const struct conf *c, const struct line *l)
{
	static const char *const attrs[] = { "secret", "server_secret" };
	const char *h = l->w[1], *want[2];
	bool added = false;
	int i, err;

	want[0] = opt(l, 2, "secret");
	want[1] = opt(l, 2, "server-secret");
	if (!sys_exists(SRV_KOBJ))
		return fail("%s:%d: rift-server is not loaded (modprobe rift-server)", c->file, l->lineno);
	if (!sys_exists(SRV_KOBJ "/hosts/%s", h)) {
		act("add host", h, NULL);
		err = !dry_run ? write_attr(h, SRV_KOBJ "/add_host") : 0;
		if (err)
			return op_failed(OP_HOST_ADD, err, "add host %s", h);
		added = true;
	}
	/*
	 * Secrets cannot be read back: one the configuration names is set
	 * when the host has none, one it does not name is cleared.  A
	 * changed secret is given with riftctl host secret.
	 */
	for (i = 0; i < 2; i++) {
		bool have = !added && host_has(h, attrs[i]);

		if (!!want[i] == have)
			continue;
		act(want[i] ? "set the secret file of host" : "clear the secret file of host",
		    h, attrs[i]);
		if (dry_run)
			continue;
		err = write_attr(want[i] ? secret_of(c, want[i]) : "\n",
				 SRV_KOBJ "/hosts/%s/%s", h, attrs[i]);
		if (err)
			return op_failed(OP_HOST_SECRET, err, "set the %s of host %s", attrs[i], h);
	}
	return 0;
}

/* The export whose path is @path, into @name; false if none. */
static bool export_find(const char *path, char *name, size_t size)
{
	char val[VAL_BUF];
	struct names n;
	bool found = false;
	size_t i;

	if (list_names(&n, NULL, BLKSRV_KOBJ "/exports"))
		return false;
	for (i = 0; i < n.nr && !found; i++)
		if (!read_attr(val, sizeof(val), BLKSRV_KOBJ "/exports/%s/path", n.v[i]) &&
		    !strcmp(val, path)) {
			snprintf(name, size, "%s", n.v[i]);
			found = true;
		}
	names_free(&n);
	return found;
}

static int apply_export(const struct conf *c, const struct line *l)
{
	const char *p = l->w[1], *hosts = opt(l, 2, "hosts"), *access = opt(l, 2, "access");
	char name[256], val[VAL_BUF], line[2048];
	int err;

	if (!access)
		access = "ro";
	if (!sys_exists(BLKSRV_KOBJ "/add_export"))
		return fail("%s:%d: riftblk-server is not loaded, or too old to have exports",
			    c->file, l->lineno);
	if (export_find(p, name, sizeof(name))) {
		bool same = !read_attr(val, sizeof(val), BLKSRV_KOBJ "/exports/%s/hosts", name) &&
			    !strcmp(val, hosts) &&
			    !read_attr(val, sizeof(val), BLKSRV_KOBJ "/exports/%s/access", name) &&
			    !strcmp(val, access);

		if (same)
			return 0;
		act("replace export", p, NULL);
		err = !dry_run ? write_attr(p, BLKSRV_KOBJ "/remove_export") : 0;
		if (err)
			return op_failed(OP_EXPORT_REMOVE, err, "replace the export of %s", p);
	} else {
		act("export", p, NULL);
	}
	snprintf(line, sizeof(line), "path=%s access=%s hosts=%s", p, access, hosts);
	err = !dry_run ? write_attr(line, BLKSRV_KOBJ "/add_export") : 0;
	if (err)
		return op_failed(OP_EXPORT_ADD, err, "export %s", p);
	return 0;
}

static bool mapped(const char *s, const char *devpath)
{
	char a[VAL_BUF], b[VAL_BUF];
	struct names n;
	bool found = false;
	size_t i;

	if (list_names(&n, "riftblk", "block"))
		return false;
	for (i = 0; i < n.nr && !found; i++)
		found = !read_attr(a, sizeof(a), "block/%s/riftblk/session", n.v[i]) &&
			!strcmp(a, s) &&
			!read_attr(b, sizeof(b), "block/%s/riftblk/mapping_path", n.v[i]) &&
			!strcmp(b, devpath);
	names_free(&n);
	return found;
}

static int apply_map(const struct conf *c, const struct line *l)
{
	const char *s = l->w[1], *dev = l->w[2], *v;
	char line[4096];
	size_t len;
	int i, err;

	if (!sys_exists(BLK_CTL "/map_device"))
		return fail("%s:%d: riftblk-client is not loaded (modprobe riftblk-client)",
			    c->file, l->lineno);
	if (mapped(s, dev))
		return 0;
	act("map", s, dev);
	if (dry_run)
		return 0;
	len = snprintf(line, sizeof(line), "sessname=%s device_path=%s", s, dev);
	for (i = 3; i < l->nr && len < sizeof(line); i++) {
		const char *w = l->w[i];

		if (!strncmp(w, "poll-queues=", 12))
			len += snprintf(line + len, sizeof(line) - len, " nr_poll_queues=%s", w + 12);
		else if (!strncmp(w, "access=", 7))
			len += snprintf(line + len, sizeof(line) - len, " access_mode=%s", w + 7);
		else if (!strncmp(w, "secret=", 7) || !strncmp(w, "server-secret=", 14))
			continue;
		else
			len += snprintf(line + len, sizeof(line) - len, " %s", w);
	}
	/* A map on an open session must not give secrets (EBUSY). */
	if (!sys_exists(CLT_CLASS "/%s", s)) {
		v = opt(l, 3, "secret");
		if (v && len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, " secret=%s", secret_of(c, v));
		v = opt(l, 3, "server-secret");
		if (v && len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - len, " server_secret=%s",
					secret_of(c, v));
	}
	err = len < sizeof(line) ? write_attr(line, BLK_CTL "/map_device") : -E2BIG;
	explicit_bzero(line, sizeof(line));
	if (err)
		return op_failed(OP_MAP, err, "%s:%d: map %s over session %s", c->file, l->lineno,
				 dev, s);
	return 0;
}

static int apply_session(const struct conf *c, const struct line *l)
{
	const char *s = l->w[1];
	char val[64];
	int i, err;

	if (!sys_exists(CLT_CLASS "/%s", s))
		return fail("%s:%d: no session %s (a map line opens it)", c->file, l->lineno, s);
	for (i = 2; i < l->nr; i++) {
		char key[64];
		const char *eq = strchr(l->w[i], '=');

		snprintf(key, sizeof(key), "%.*s", (int)(eq - l->w[i]), l->w[i]);
		if (!read_attr(val, sizeof(val), CLT_CLASS "/%s/%s", s, key) &&
		    !strcmp(val, eq + 1))
			continue;
		act("set", s, l->w[i]);
		err = !dry_run ? write_attr(eq + 1, CLT_CLASS "/%s/%s", s, key) : 0;
		if (err)
			return op_failed(OP_SET, err, "set %s of session %s", key, s);
	}
	return 0;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'f' },
		{ "secrets", required_argument, NULL, 's' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "server", no_argument, NULL, 'S' },
		{ "client", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	static const char usage[] =
		"riftctl apply [--config FILE] [--secrets FILE] [--dry-run] [--server|--client]";
	struct conf c = { .file = "/etc/rift/rift.conf", .sfile = "/etc/rift/secrets" };
	bool server = false, client = false;
	int ch, err, rc = EXIT_OK;
	size_t i, pass;

	while ((ch = getopt_long(argc, argv, "f:s:nSCh", opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			c.file = optarg;
			break;
		case 's':
			c.sfile = optarg;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'S':
			server = true;
			break;
		case 'C':
			client = true;
			break;
		case 'h':
			printf("usage: %s\n", usage);
			return EXIT_OK;
		default:
			return usage_error("usage: %s", usage);
		}
	}
	if (optind != argc)
		return usage_error("usage: %s", usage);
	if (!server && !client)
		server = client = true;
	err = read_secrets(&c);
	if (!err)
		err = read_conf(&c);
	if (err)
		return err;
	err = !dry_run ? need_root() : 0;
	if (err)
		return err;
	/* Hosts before exports before maps before the sessions maps open. */
	for (pass = 0; pass < 4; pass++) {
		static const char *const kinds[] = { "host", "export", "map", "session" };

		if ((pass < 2 && !server) || (pass >= 2 && !client))
			continue;
		for (i = 0; i < c.nr; i++) {
			if (strcmp(c.l[i].w[0], kinds[pass]))
				continue;
			switch (pass) {
			case 0:
				err = apply_host(&c, &c.l[i]);
				break;
			case 1:
				err = apply_export(&c, &c.l[i]);
				break;
			case 2:
				err = apply_map(&c, &c.l[i]);
				break;
			default:
				err = apply_session(&c, &c.l[i]);
			}
			/* One failure does not keep the rest from coming up. */
			if (err)
				rc = EXIT_FAIL;
		}
	}
	for (i = 0; i < c.snr; i++)
		explicit_bzero(c.shex[i], sizeof(c.shex[i]));
	if (!changes)
		printf("%s: nothing to do\n", c.file);
	return rc;
}

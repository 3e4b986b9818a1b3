// SPDX-License-Identifier: GPL-2.0
/*
 * riftblk server: the devices it exports, and to whom.  Nothing is
 * mapped that is not exported here: with no export a client can map
 * nothing, whatever path it names.
 *
 * /sys/kernel/riftblk_server/add_export     "path=P [access=ro|rw] hosts=H"
 * /sys/kernel/riftblk_server/remove_export  write the path (or the name)
 * /sys/kernel/riftblk_server/exports/<name>/{path,access,hosts}
 *
 * An export names a device by its number (dev_t), resolved from its path
 * when it is added; an OPEN is granted when the path the client names
 * resolves, on the server, to that same number (see riftblk_srv_open()).
 * <name> is the kernel's name of the device (e.g. nullb0, sda1).
 *
 * The exports are part of the control plane: riftblk_srv_lock guards the
 * list, as it guards the mappings remove_export must look at.  Everything
 * that can block on a file system (resolving a path) runs before it is
 * taken.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/parser.h>
#include <linux/blkdev.h>

#include "riftblk-srv.h"

/* Longest hosts= value: a generous list of full-length names. */
#define RIFTBLK_SRV_HOSTS_MAX	1024

/**
 * struct riftblk_srv_export - one exported block device
 * @kobj: exports/<name>/
 * @entry: in riftblk_srv_exports, under riftblk_srv_lock
 * @devt: the device
 * @access: RIFTBLK_ACCESS_RO or RIFTBLK_ACCESS_RW, the most it grants
 * @path: the path it was added by, as written
 * @hosts: "*" or a comma-separated list of host names
 *
 * Nothing in it changes once it is listed: sysfs reads it unlocked.
 */
struct riftblk_srv_export {
	struct kobject		kobj;
	struct list_head	entry;
	dev_t			devt;
	u16			access;
	char			path[RIFTBLK_PATH_MAX];
	char			hosts[RIFTBLK_SRV_HOSTS_MAX + 1];
};

static LIST_HEAD(riftblk_srv_exports);
static struct kobject *riftblk_srv_kobj;
static struct kobject *riftblk_srv_exports_kobj;

static struct riftblk_srv_export *to_export(struct kobject *kobj)
{
	return container_of(kobj, struct riftblk_srv_export, kobj);
}

static ssize_t path_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_export(kobj)->path);
}

static ssize_t access_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  riftblk_access_mode_name(to_export(kobj)->access));
}

static ssize_t hosts_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n", to_export(kobj)->hosts);
}

static struct kobj_attribute riftblk_srv_export_path_attr = __ATTR_RO(path);
static struct kobj_attribute riftblk_srv_export_access_attr = __ATTR_RO(access);
static struct kobj_attribute riftblk_srv_export_hosts_attr = __ATTR_RO(hosts);

static struct attribute *riftblk_srv_export_attrs[] = {
	&riftblk_srv_export_path_attr.attr,
	&riftblk_srv_export_access_attr.attr,
	&riftblk_srv_export_hosts_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(riftblk_srv_export);

static void riftblk_srv_export_release(struct kobject *kobj)
{
	kfree(to_export(kobj));
}

static struct kobj_type riftblk_srv_export_ktype = {
	.release	= riftblk_srv_export_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= riftblk_srv_export_groups,
};

/* Is @host one of @e's hosts?  "*" is every host, an unnamed one too. */
static bool riftblk_srv_export_has_host(const struct riftblk_srv_export *e,
					const char *host)
{
	size_t len = strlen(host);
	const char *p = e->hosts;

	if (!strcmp(p, "*"))
		return true;
	if (!len)
		return false;
	for (;;) {
		if (!strncmp(p, host, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
}

/**
 * riftblk_srv_export_check() - may @host map @devt in @mode
 * @devt: the device the client's path resolved to
 * @host: the session's host name, "" if it has none
 * @mode: enum riftblk_access_mode asked for
 *
 * An rw export grants ro, rw and migration (a second writer is still a
 * writer, which only rw grants); an ro export grants ro only.  Caller
 * holds riftblk_srv_lock, and keeps it until the mapping is listed, so
 * that remove_export sees either no mapping and no export, or both.
 *
 * Return: 0 if granted, -EACCES if not exported to @host, -EROFS if it
 * is but read-only (the caller tells the two apart in its log line and
 * answers the client EACCES for both).
 */
int riftblk_srv_export_check(dev_t devt, const char *host, u16 mode)
{
	struct riftblk_srv_export *e;

	lockdep_assert_held(&riftblk_srv_lock);
	list_for_each_entry(e, &riftblk_srv_exports, entry) {
		if (e->devt != devt)
			continue;
		if (!riftblk_srv_export_has_host(e, host))
			return -EACCES;
		if (mode != RIFTBLK_ACCESS_RO && e->access != RIFTBLK_ACCESS_RW)
			return -EROFS;
		return 0;
	}
	return -EACCES;
}

/**
 * riftblk_srv_host_has_exports() - is anything exported to @host at all
 * @host: the session's host name, "" if it has none
 *
 * Lets an OPEN be refused before its path is resolved, a walk the client
 * chose and that can block.  Caller holds riftblk_srv_lock.
 *
 * Return: true if some export lists @host (or every host).
 */
bool riftblk_srv_host_has_exports(const char *host)
{
	struct riftblk_srv_export *e;

	lockdep_assert_held(&riftblk_srv_lock);
	list_for_each_entry(e, &riftblk_srv_exports, entry)
		if (riftblk_srv_export_has_host(e, host))
			return true;
	return false;
}

enum {
	RIFTBLK_EXP_PATH,
	RIFTBLK_EXP_ACCESS,
	RIFTBLK_EXP_HOSTS,
	RIFTBLK_EXP_ERR,
};

static const match_table_t riftblk_srv_export_tokens = {
	{ RIFTBLK_EXP_PATH,	"path=%s" },
	{ RIFTBLK_EXP_ACCESS,	"access=%s" },
	{ RIFTBLK_EXP_HOSTS,	"hosts=%s" },
	{ RIFTBLK_EXP_ERR,	NULL },
};

/* "*" alone, or 1.. host names (rift_proto_name_valid()) joined by ','. */
static bool riftblk_srv_hosts_valid(const char *s, size_t len)
{
	const char *end = s + len, *comma;

	if (len == 1 && s[0] == '*')
		return true;
	if (!len || len > RIFTBLK_SRV_HOSTS_MAX)
		return false;
	for (;;) {
		comma = memchr(s, ',', end - s);
		if (!comma)
			comma = end;
		if (!rift_proto_name_valid(s, comma - s) ||
		    memchr(s, '*', comma - s))
			return false;
		if (comma == end)
			return true;
		s = comma + 1;
	}
}

/* Fill @e's path, access and hosts from an add_export line. */
static int riftblk_srv_export_parse(char *line, struct riftblk_srv_export *e)
{
	bool seen[RIFTBLK_EXP_ERR] = {};
	substring_t args[MAX_OPT_ARGS];
	char *p, *tok;
	size_t len;
	int t;

	e->access = RIFTBLK_ACCESS_RO;
	p = line;
	while ((tok = strsep(&p, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		t = match_token(tok, riftblk_srv_export_tokens, args);
		if (t == RIFTBLK_EXP_ERR) {
			pr_warn_ratelimited("add_export: unknown key or empty value: '%s'\n", tok);
			return -EINVAL;
		}
		if (seen[t]) {
			pr_warn_ratelimited("add_export: repeated key: '%s'\n", tok);
			return -EINVAL;
		}
		seen[t] = true;
		len = args[0].to - args[0].from;
		switch (t) {
		case RIFTBLK_EXP_PATH:
			if (args[0].from[0] != '/' || len >= sizeof(e->path)) {
				pr_warn_ratelimited("add_export: path must be absolute, at most %u bytes: '%s'\n",
						    RIFTBLK_PATH_MAX - 1, tok);
				return -EINVAL;
			}
			memcpy(e->path, args[0].from, len);
			e->path[len] = '\0';
			break;
		case RIFTBLK_EXP_ACCESS:
			if (!strcmp(args[0].from, "ro")) {
				e->access = RIFTBLK_ACCESS_RO;
			} else if (!strcmp(args[0].from, "rw")) {
				e->access = RIFTBLK_ACCESS_RW;
			} else {
				pr_warn_ratelimited("add_export: access is ro or rw: '%s'\n", tok);
				return -EINVAL;
			}
			break;
		case RIFTBLK_EXP_HOSTS:
			if (!riftblk_srv_hosts_valid(args[0].from, len)) {
				pr_warn_ratelimited("add_export: hosts is * or host names separated by ',': '%s'\n",
						    tok);
				return -EINVAL;
			}
			memcpy(e->hosts, args[0].from, len);
			e->hosts[len] = '\0';
			break;
		}
	}
	if (!seen[RIFTBLK_EXP_PATH] || !seen[RIFTBLK_EXP_HOSTS]) {
		pr_warn_ratelimited("add_export: path= and hosts= are required\n");
		return -EINVAL;
	}
	return 0;
}

static struct riftblk_srv_export *riftblk_srv_export_find_devt(dev_t devt)
{
	struct riftblk_srv_export *e;

	list_for_each_entry(e, &riftblk_srv_exports, entry)
		if (e->devt == devt)
			return e;
	return NULL;
}

static ssize_t add_export_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	struct riftblk_srv_export *e;
	struct rift_bdev bdev;
	char *line;
	int err;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	line = kstrndup(buf, count, GFP_KERNEL);
	err = -ENOMEM;
	if (!e || !line)
		goto err_free;
	err = riftblk_srv_export_parse(line, e);
	if (err)
		goto err_free;
	/* Symlinks followed, as for an OPEN; may block, so before the lock. */
	err = lookup_bdev(e->path, &e->devt);
	if (err) {
		pr_warn_ratelimited("add_export: %s is not a block device: %d\n",
				    e->path, err);
		goto err_free;
	}
	/* An open, not only a lookup: the device must exist, and be named. */
	err = rift_bdev_open(&bdev, e->devt, false, NULL);
	if (err) {
		pr_warn_ratelimited("add_export: cannot open %s: %d\n", e->path, err);
		goto err_free;
	}
	kobject_init(&e->kobj, &riftblk_srv_export_ktype);
	err = kobject_set_name(&e->kobj, "%pg", bdev.bdev);
	rift_bdev_close(&bdev);
	if (err)
		goto err_put;
	mutex_lock(&riftblk_srv_lock);
	if (riftblk_srv_export_find_devt(e->devt)) {
		err = -EEXIST;
		goto err_unlock;
	}
	err = kobject_add(&e->kobj, riftblk_srv_exports_kobj, NULL);
	if (err)
		goto err_unlock;
	list_add_tail(&e->entry, &riftblk_srv_exports);
	mutex_unlock(&riftblk_srv_lock);
	pr_info("exported %s (%s) %s to %s\n", e->path, kobject_name(&e->kobj),
		riftblk_access_mode_name(e->access), e->hosts);
	kfree(line);
	return count;

err_unlock:
	mutex_unlock(&riftblk_srv_lock);
err_put:
	kfree(line);
	kobject_put(&e->kobj);
	return err;

err_free:
	kfree(line);
	kfree(e);
	return err;
}

/* The export a remove_export names: its path as added, or its name. */
static struct riftblk_srv_export *riftblk_srv_export_find_name(const char *s)
{
	struct riftblk_srv_export *e;

	list_for_each_entry(e, &riftblk_srv_exports, entry)
		if (!strcmp(e->path, s) || !strcmp(kobject_name(&e->kobj), s))
			return e;
	return NULL;
}

static ssize_t remove_export_store(struct kobject *kobj, struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	char name[RIFTBLK_PATH_MAX];
	struct riftblk_srv_export *e;
	bool by_devt = false;
	size_t len = count;
	dev_t devt = 0;
	int err = 0;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(name) || memchr(buf, '\0', len))
		return -EINVAL;
	memcpy(name, buf, len);
	name[len] = '\0';
	mutex_lock(&riftblk_srv_lock);
	e = riftblk_srv_export_find_name(name);
	mutex_unlock(&riftblk_srv_lock);
	/* Another path to the device (a symlink, say); resolved unlocked. */
	if (!e && name[0] == '/' && !lookup_bdev(name, &devt))
		by_devt = true;
	mutex_lock(&riftblk_srv_lock);
	e = by_devt ? riftblk_srv_export_find_devt(devt) :
		riftblk_srv_export_find_name(name);
	if (!e)
		err = -ENOENT;
	else if (riftblk_srv_dev_mapped(e->devt))
		err = -EBUSY;
	else
		list_del(&e->entry);
	mutex_unlock(&riftblk_srv_lock);
	if (err) {
		pr_warn_ratelimited("remove_export: %s: %s\n", name,
				    err == -EBUSY ? "mapped by a client" : "not exported");
		return err;
	}
	pr_info("export of %s (%s) removed\n", e->path, kobject_name(&e->kobj));
	kobject_del(&e->kobj);
	kobject_put(&e->kobj);
	return count;
}

static struct kobj_attribute riftblk_srv_add_export_attr = __ATTR_WO(add_export);
static struct kobj_attribute riftblk_srv_remove_export_attr = __ATTR_WO(remove_export);

static struct attribute *riftblk_srv_exports_ctl_attrs[] = {
	&riftblk_srv_add_export_attr.attr,
	&riftblk_srv_remove_export_attr.attr,
	NULL,
};

static const struct attribute_group riftblk_srv_exports_ctl_group = {
	.attrs = riftblk_srv_exports_ctl_attrs,
};

/**
 * riftblk_srv_exports_init() - /sys/kernel/riftblk_server/, no exports yet
 *
 * Return: 0 or a negative errno.
 */
int riftblk_srv_exports_init(void)
{
	int err = -ENOMEM;

	riftblk_srv_kobj = kobject_create_and_add("riftblk_server", kernel_kobj);
	if (!riftblk_srv_kobj)
		return err;
	riftblk_srv_exports_kobj = kobject_create_and_add("exports", riftblk_srv_kobj);
	if (!riftblk_srv_exports_kobj)
		goto err_put;
	err = sysfs_create_group(riftblk_srv_kobj, &riftblk_srv_exports_ctl_group);
	if (err)
		goto err_put_exports;
	return 0;

err_put_exports:
	kobject_put(riftblk_srv_exports_kobj);
err_put:
	kobject_put(riftblk_srv_kobj);
	return err;
}

/**
 * riftblk_srv_exports_exit() - drop every export; no mapping is left
 */
void riftblk_srv_exports_exit(void)
{
	struct riftblk_srv_export *e, *tmp;

	/* The control files first: no export is added behind our back. */
	sysfs_remove_group(riftblk_srv_kobj, &riftblk_srv_exports_ctl_group);
	mutex_lock(&riftblk_srv_lock);
	list_for_each_entry_safe(e, tmp, &riftblk_srv_exports, entry) {
		list_del(&e->entry);
		kobject_del(&e->kobj);
		kobject_put(&e->kobj);
	}
	mutex_unlock(&riftblk_srv_lock);
	kobject_put(riftblk_srv_exports_kobj);
	kobject_put(riftblk_srv_kobj);
}

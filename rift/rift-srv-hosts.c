// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: the hosts it admits.  A client host names itself in
 * INFO_REQ (host name and UUID); a path is admitted only if that host is
 * listed here or allow_any_host is set, and it is authenticated if its
 * entry has a secret.  Unknown hosts are refused by default, before they
 * cost chunk memory.
 *
 * /sys/kernel/rift_server/add_host      write a host name: a new entry
 * /sys/kernel/rift_server/remove_host   write a host name: entry removed
 * /sys/kernel/rift_server/hosts/<name>/secret         write-only
 * /sys/kernel/rift_server/hosts/<name>/server_secret  write-only
 * /sys/kernel/rift_server/hosts/<name>/has_secret     0 or 1
 * /sys/kernel/rift_server/hosts/<name>/has_server_secret
 *
 * Secrets are never readable back: the files are 0200 and their show
 * does not exist; memory holding them is cleared when it is freed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rift-srv.h"

static bool allow_any_host;
module_param(allow_any_host, bool, 0644);
MODULE_PARM_DESC(allow_any_host,
		 "Admit hosts not listed in /sys/kernel/rift_server/hosts/ (default N: refuse them)");

/**
 * struct rift_srv_host - one admitted host
 * @kobj: hosts/<name>/
 * @entry: in rift_srv_hosts
 * @name: the host name clients send
 * @key: the secret the host proves
 * @keylen: bytes of @key (0: no secret)
 * @skey: the secret the server proves
 * @skeylen: bytes of @skey (0: the server proves @key)
 */
struct rift_srv_host {
	struct kobject		kobj;
	struct list_head	entry;
	char			name[RIFT_NAME_MAX + 1];
	u8			key[RIFT_AUTH_SECRET_MAX];
	u8			keylen;
	u8			skey[RIFT_AUTH_SECRET_MAX];
	u8			skeylen;
};

/* Entries and their secrets. */
static DEFINE_MUTEX(rift_srv_hosts_lock);
static LIST_HEAD(rift_srv_hosts);
static struct kobject *rift_srv_hosts_kobj;

static struct rift_srv_host *rift_srv_host_find(const char *name)
{
	struct rift_srv_host *h;

	lockdep_assert_held(&rift_srv_hosts_lock);
	list_for_each_entry(h, &rift_srv_hosts, entry)
		if (!strcmp(h->name, name))
			return h;
	return NULL;
}

/**
 * rift_srv_host_admit() - may this host connect, and with which secrets
 * @name: host name from INFO_REQ, possibly empty
 * @auth: filled with the host's secrets (lengths 0 when it has none)
 *
 * Return: 0 if admitted (authentication still to check when
 * @auth->keylen), -EACCES if the host is not listed and allow_any_host is
 * off.
 */
int rift_srv_host_admit(const char *name, struct rift_srv_auth *auth)
{
	struct rift_srv_host *h;
	int err = 0;

	memset(auth, 0, sizeof(*auth));
	mutex_lock(&rift_srv_hosts_lock);
	h = name[0] ? rift_srv_host_find(name) : NULL;
	if (h) {
		memcpy(auth->key, h->key, h->keylen);
		auth->keylen = h->keylen;
		/* Without a server secret of its own the server proves the host's. */
		if (h->skeylen) {
			memcpy(auth->skey, h->skey, h->skeylen);
			auth->skeylen = h->skeylen;
		} else {
			memcpy(auth->skey, h->key, h->keylen);
			auth->skeylen = h->keylen;
		}
	} else if (!READ_ONCE(allow_any_host)) {
		err = -EACCES;
	}
	mutex_unlock(&rift_srv_hosts_lock);
	return err;
}

static struct rift_srv_host *to_host(struct kobject *kobj)
{
	return container_of(kobj, struct rift_srv_host, kobj);
}

static ssize_t rift_srv_host_set_key(struct kobject *kobj, const char *buf,
				     size_t count, bool server)
{
	struct rift_srv_host *h = to_host(kobj);
	u8 key[RIFT_AUTH_SECRET_MAX];
	int len = 0;

	/* An empty write (a lone newline) clears the secret. */
	if (strcmp(buf, "\n") && count) {
		len = rift_auth_parse_secret(buf, count, key);
		if (len < 0) {
			pr_warn_ratelimited("host %s: a secret is %u to %u bytes written as hexadecimal digits\n",
					    h->name, RIFT_AUTH_SECRET_MIN,
					    RIFT_AUTH_SECRET_MAX);
			return -EINVAL;
		}
	}
	mutex_lock(&rift_srv_hosts_lock);
	if (server) {
		memzero_explicit(h->skey, sizeof(h->skey));
		memcpy(h->skey, key, len);
		h->skeylen = len;
	} else {
		memzero_explicit(h->key, sizeof(h->key));
		memcpy(h->key, key, len);
		h->keylen = len;
	}
	mutex_unlock(&rift_srv_hosts_lock);
	memzero_explicit(key, sizeof(key));
	return count;
}

static ssize_t secret_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	return rift_srv_host_set_key(kobj, buf, count, false);
}

static ssize_t server_secret_store(struct kobject *kobj, struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	return rift_srv_host_set_key(kobj, buf, count, true);
}

static ssize_t has_secret_show(struct kobject *kobj, struct kobj_attribute *attr,
			       char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_host(kobj)->keylen) != 0);
}

static ssize_t has_server_secret_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_host(kobj)->skeylen) != 0);
}

static struct kobj_attribute rift_srv_host_secret_attr = __ATTR_WO(secret);
static struct kobj_attribute rift_srv_host_server_secret_attr = __ATTR_WO(server_secret);
static struct kobj_attribute rift_srv_host_has_secret_attr = __ATTR_RO(has_secret);
static struct kobj_attribute rift_srv_host_has_server_secret_attr =
	__ATTR_RO(has_server_secret);

static struct attribute *rift_srv_host_attrs[] = {
	&rift_srv_host_secret_attr.attr,
	&rift_srv_host_server_secret_attr.attr,
	&rift_srv_host_has_secret_attr.attr,
	&rift_srv_host_has_server_secret_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rift_srv_host);

static void rift_srv_host_release(struct kobject *kobj)
{
	kfree_sensitive(to_host(kobj));
}

static struct kobj_type rift_srv_host_ktype = {
	.release	= rift_srv_host_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= rift_srv_host_groups,
};

/* A host name as written to add_host/remove_host, without its newline. */
static int rift_srv_host_name(const char *buf, size_t count, char *name)
{
	size_t len = count;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!rift_proto_name_valid(buf, len) || memchr(buf, '/', len)) {
		pr_warn_ratelimited("a host name is 1 to %u printable characters without '/'\n",
				    RIFT_NAME_MAX);
		return -EINVAL;
	}
	memcpy(name, buf, len);
	name[len] = '\0';
	return 0;
}

static ssize_t add_host_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	struct rift_srv_host *h;
	int err;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	err = rift_srv_host_name(buf, count, h->name);
	if (err) {
		kfree(h);
		return err;
	}
	kobject_init(&h->kobj, &rift_srv_host_ktype);
	mutex_lock(&rift_srv_hosts_lock);
	if (rift_srv_host_find(h->name)) {
		err = -EEXIST;
		goto out_unlock;
	}
	err = kobject_add(&h->kobj, rift_srv_hosts_kobj, "%s", h->name);
	if (err)
		goto out_unlock;
	list_add_tail(&h->entry, &rift_srv_hosts);
	mutex_unlock(&rift_srv_hosts_lock);
	pr_info("host %s added\n", h->name);
	return count;

out_unlock:
	mutex_unlock(&rift_srv_hosts_lock);
	kobject_put(&h->kobj);
	return err;
}

static ssize_t remove_host_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	char name[RIFT_NAME_MAX + 1];
	struct rift_srv_host *h;
	int err;

	err = rift_srv_host_name(buf, count, name);
	if (err)
		return err;
	mutex_lock(&rift_srv_hosts_lock);
	h = rift_srv_host_find(name);
	if (h)
		list_del(&h->entry);
	mutex_unlock(&rift_srv_hosts_lock);
	if (!h)
		return -ENOENT;
	/* Sessions it has keep running; its next path is refused. */
	kobject_del(&h->kobj);
	kobject_put(&h->kobj);
	pr_info("host %s removed\n", name);
	return count;
}

static struct kobj_attribute rift_srv_add_host_attr = __ATTR_WO(add_host);
static struct kobj_attribute rift_srv_remove_host_attr = __ATTR_WO(remove_host);

static struct attribute *rift_srv_hosts_ctl_attrs[] = {
	&rift_srv_add_host_attr.attr,
	&rift_srv_remove_host_attr.attr,
	NULL,
};

static const struct attribute_group rift_srv_hosts_ctl_group = {
	.attrs = rift_srv_hosts_ctl_attrs,
};

/**
 * rift_srv_hosts_init() - create the hosts table under /sys/kernel/rift_server
 * @parent: /sys/kernel/rift_server
 *
 * Return: 0 or a negative errno.
 */
int rift_srv_hosts_init(struct kobject *parent)
{
	int err;

	rift_srv_hosts_kobj = kobject_create_and_add("hosts", parent);
	if (!rift_srv_hosts_kobj)
		return -ENOMEM;
	err = sysfs_create_group(parent, &rift_srv_hosts_ctl_group);
	if (err) {
		kobject_put(rift_srv_hosts_kobj);
		rift_srv_hosts_kobj = NULL;
	}
	return err;
}

/**
 * rift_srv_hosts_exit() - free every entry; the control files go first
 * @parent: /sys/kernel/rift_server
 */
void rift_srv_hosts_exit(struct kobject *parent)
{
	struct rift_srv_host *h, *tmp;

	sysfs_remove_group(parent, &rift_srv_hosts_ctl_group);
	mutex_lock(&rift_srv_hosts_lock);
	list_for_each_entry_safe(h, tmp, &rift_srv_hosts, entry) {
		list_del(&h->entry);
		kobject_del(&h->kobj);
		kobject_put(&h->kobj);
	}
	mutex_unlock(&rift_srv_hosts_lock);
	kobject_put(rift_srv_hosts_kobj);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client side, module entry and sessions.
 *
 * Devices are mapped by writing to /sys/class/riftblk-client/ctl/
 * map_device (grammar in riftblk-args.c).  Devices mapped with the same
 * session name share one Rift session, counted here by name.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kdev_t.h>
#include <linux/slab.h>
#include <linux/completion.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>

#include "riftblk-clt.h"

static struct class riftblk_clt_class = {
	.name = "riftblk-client",
};

static struct device *riftblk_clt_ctl_dev;
static LIST_HEAD(riftblk_clt_sessions);
/* Sessions, the device list, and opening sessions. */
DEFINE_MUTEX(riftblk_clt_lock);

struct riftblk_clt_sync {
	struct completion	done;
	int			err;
};

static void riftblk_clt_sync_done(void *priv, int err)
{
	struct riftblk_clt_sync *s = priv;

	s->err = err;
	complete(&s->done);
}

/**
 * riftblk_clt_sync_req() - one request, waited for
 * @sess: session
 * @dir: RIFT_READ (the answer lands in @buf) or RIFT_WRITE (no data)
 * @usr: riftblk message
 * @usrlen: its bytes
 * @buf: page-aligned buffer for a read's answer, or NULL
 * @buflen: bytes of @buf
 *
 * Waits as long as the transport's failover and io_timeout_ms rules keep
 * the request alive.
 *
 * Return: 0 or a negative errno from the transport or the server.
 */
int riftblk_clt_sync_req(struct riftblk_clt_sess *sess, enum rift_dir dir,
			 const void *usr, size_t usrlen, void *buf, size_t buflen)
{
	struct riftblk_clt_sync s = { .err = 0 };
	struct rift_clt_req_ops ops = { .priv = &s, .done = riftblk_clt_sync_done };
	struct kvec kv = { .iov_base = (void *)usr, .iov_len = usrlen };
	struct rift_permit *permit;
	struct scatterlist sg;
	int err;

	init_completion(&s.done);
	if (buf)
		sg_init_one(&sg, buf, buflen);
	permit = rift_clt_get_permit(sess->rsess, RIFT_PERMIT_WAIT);
	err = rift_clt_request(sess->rsess, dir, &ops, permit, &kv, 1,
			       buf ? buflen : 0, buf ? &sg : NULL, buf ? 1 : 0);
	if (!err) {
		wait_for_completion(&s.done);
		err = s.err;
	}
	rift_clt_put_permit(sess->rsess, permit);
	return err;
}

static void riftblk_clt_link_ev(void *priv, enum rift_clt_link_ev ev)
{
	struct riftblk_clt_sess *sess = priv;

	WRITE_ONCE(sess->disconnected, ev == RIFT_CLT_LINK_EV_DISCONNECTED);
	pr_info_ratelimited("session %s: %s\n", sess->name,
			    ev == RIFT_CLT_LINK_EV_DISCONNECTED ? "no path connected" :
			    "path connected");
}

struct riftblk_clt_addrs {
	struct rift_path_addr		paths[RIFTBLK_MAX_PATHS];
	struct sockaddr_storage		srcs[RIFTBLK_MAX_PATHS];
	struct sockaddr_storage		dsts[RIFTBLK_MAX_PATHS];
};

static struct riftblk_clt_sess *riftblk_clt_sess_open(const struct riftblk_map_args *args)
{
	struct rift_clt_open_args oa = {};
	struct riftblk_clt_addrs *a;
	struct riftblk_clt_sess *sess;
	struct rift_clt_attrs attrs;
	unsigned int i;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	err = -ENOMEM;
	if (!a || !sess)
		goto err;
	for (i = 0; i < args->nr_paths; i++) {
		err = rift_clt_parse_path(args->paths[i], &a->srcs[i], &a->dsts[i],
					  args->port);
		if (err) {
			pr_err("map_device: invalid path '%s'\n", args->paths[i]);
			goto err;
		}
		a->paths[i].src = &a->srcs[i];
		a->paths[i].dst = &a->dsts[i];
	}
	strscpy(sess->name, args->sessname, sizeof(sess->name));
	sess->refs = 1;
	sess->ops.priv = sess;
	sess->ops.link_ev = riftblk_clt_link_ev;
	oa.sessname = sess->name;
	oa.paths = a->paths;
	oa.nr_paths = args->nr_paths;
	oa.port = args->port;
	oa.nr_poll_cons = args->nr_poll_queues;
	oa.ops = &sess->ops;
	if (args->secret_len) {
		oa.secret = args->secret;
		oa.secret_len = args->secret_len;
	}
	if (args->server_secret_len) {
		oa.server_secret = args->server_secret;
		oa.server_secret_len = args->server_secret_len;
	}
	sess->rsess = rift_clt_open(&oa);
	if (IS_ERR(sess->rsess)) {
		err = PTR_ERR(sess->rsess);
		pr_err("map_device: cannot open session %s: %d\n", sess->name, err);
		goto err;
	}
	rift_clt_query(sess->rsess, &attrs);
	sess->queue_depth = attrs.queue_depth;
	sess->max_io_size = attrs.max_io_size;
	sess->max_segments = attrs.max_segments;
	sess->nr_poll_cons = attrs.nr_poll_cons;
	kfree(a);
	return sess;

err:
	kfree(a);
	kfree(sess);
	return ERR_PTR(err);
}

/* The session named by @args, opened if need be, with a reference. */
static struct riftblk_clt_sess *riftblk_clt_sess_get(const struct riftblk_map_args *args)
{
	struct riftblk_clt_sess *sess;

	lockdep_assert_held(&riftblk_clt_lock);
	list_for_each_entry(sess, &riftblk_clt_sessions, entry) {
		if (strcmp(sess->name, args->sessname))
			continue;
		/*
		 * Poll connections are the session's, opened with it: a device
		 * may use as many as it has, not add any.
		 */
		if (args->nr_poll_queues > sess->nr_poll_cons) {
			pr_err("map_device: nr_poll_queues=%u: session %s has %u poll connections (set by the map that opened it); unmap its devices to open it again with more\n",
			       args->nr_poll_queues, sess->name, sess->nr_poll_cons);
			return ERR_PTR(-EINVAL);
		}
		/* Secrets are proved per path: they belong to the session. */
		if (args->secret_len || args->server_secret_len) {
			pr_err("map_device: session %s is open already, with the secrets of the map that opened it; give none\n",
			       sess->name);
			return ERR_PTR(-EBUSY);
		}
		/* The session's own paths and port serve every device on it. */
		sess->refs++;
		return sess;
	}
	sess = riftblk_clt_sess_open(args);
	if (!IS_ERR(sess))
		list_add_tail(&sess->entry, &riftblk_clt_sessions);
	return sess;
}

/**
 * riftblk_clt_sess_put() - drop a reference; the last closes the session
 * @sess: session
 */
void riftblk_clt_sess_put(struct riftblk_clt_sess *sess)
{
	mutex_lock(&riftblk_clt_lock);
	if (--sess->refs) {
		mutex_unlock(&riftblk_clt_lock);
		return;
	}
	list_del(&sess->entry);
	mutex_unlock(&riftblk_clt_lock);
	rift_clt_close(sess->rsess);
	kfree(sess);
}

static int riftblk_clt_map(const char *buf, size_t count)
{
	struct riftblk_parse_err perr;
	struct riftblk_map_args *args;
	struct riftblk_clt_sess *sess;
	int err;

	args = kmalloc(sizeof(*args), GFP_KERNEL);
	if (!args)
		return -ENOMEM;
	err = riftblk_parse_map_args(buf, count, args, &perr);
	if (err) {
		pr_err("map_device: %s: '%s'\n", perr.why, perr.token);
		goto out;
	}
	/* The grammar allows more than the transport gives a session. */
	if (args->nr_poll_queues > RIFT_CLT_MAX_POLL_CONS) {
		pr_err("map_device: nr_poll_queues=%u: at most %u poll queues\n",
		       args->nr_poll_queues, RIFT_CLT_MAX_POLL_CONS);
		err = -EINVAL;
		goto out;
	}
	mutex_lock(&riftblk_clt_lock);
	sess = riftblk_clt_sess_get(args);
	mutex_unlock(&riftblk_clt_lock);
	if (IS_ERR(sess)) {
		err = PTR_ERR(sess);
		goto out;
	}
	err = riftblk_clt_dev_map(sess, args);
	if (err)
		riftblk_clt_sess_put(sess);
out:
	/* It may hold secrets. */
	kfree_sensitive(args);
	return err;
}

static ssize_t map_device_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	int err = riftblk_clt_map(buf, count);

	return err ? err : count;
}

static DEVICE_ATTR_WO(map_device);

static struct attribute *riftblk_clt_ctl_attrs[] = {
	&dev_attr_map_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(riftblk_clt_ctl);

static int __init riftblk_clt_init(void)
{
	int err;

	err = riftblk_clt_dev_init();
	if (err)
		return err;
	err = class_register(&riftblk_clt_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		goto err_dev;
	}
	riftblk_clt_ctl_dev = device_create_with_groups(&riftblk_clt_class, NULL,
							MKDEV(0, 0), NULL,
							riftblk_clt_ctl_groups, "ctl");
	if (IS_ERR(riftblk_clt_ctl_dev)) {
		err = PTR_ERR(riftblk_clt_ctl_dev);
		pr_err("cannot create control device: %d\n", err);
		goto err_unregister_class;
	}
	return 0;

err_unregister_class:
	class_unregister(&riftblk_clt_class);
err_dev:
	riftblk_clt_dev_exit();
	return err;
}

static void __exit riftblk_clt_exit(void)
{
	/* No map can start: the control file is gone first. */
	device_unregister(riftblk_clt_ctl_dev);
	riftblk_clt_unmap_all();
	class_unregister(&riftblk_clt_class);
	riftblk_clt_dev_exit();
}

module_init(riftblk_clt_init);
module_exit(riftblk_clt_exit);

MODULE_DESCRIPTION("Rift block device: client side");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: module entry and sessions: open, close, limits, and the
 * paths a session has, added and removed (with their sysfs directories
 * and the add_path and remove_path files) from here only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/utsname.h>
#include <linux/uuid.h>

#include "rift-clt.h"

#define to_path(k) container_of(k, struct rift_clt_path, base.kobj)
#define to_sess(d) container_of(d, struct rift_clt_sess, dev)

static unsigned int default_queue_depth = 128;
module_param(default_queue_depth, uint, 0444);
MODULE_PARM_DESC(default_queue_depth,
		 "Permits a session asks for when its ULP names none (default 128)");

static unsigned int max_io_cons = 4;
module_param(max_io_cons, uint, 0444);
MODULE_PARM_DESC(max_io_cons,
		 "Cap on IO connections per path (default 4; one per online CPU below it)");

static unsigned int reconnect_delay_ms = 1000;
module_param(reconnect_delay_ms, uint, 0644);
MODULE_PARM_DESC(reconnect_delay_ms,
		 "First delay before reconnecting a failed path, ms; doubles per attempt (default 1000)");

static unsigned int reconnect_delay_max_ms = 30000;
module_param(reconnect_delay_max_ms, uint, 0644);
MODULE_PARM_DESC(reconnect_delay_max_ms, "Cap of the reconnect delay, ms (default 30000)");

static int max_reconnect_attempts = -1;
module_param(max_reconnect_attempts, int, 0644);
MODULE_PARM_DESC(max_reconnect_attempts,
		 "Reconnect attempts before a path gives up; -1 forever, 0 never (default -1)");

static unsigned int io_timeout_ms = 30000;
module_param(io_timeout_ms, uint, 0644);
MODULE_PARM_DESC(io_timeout_ms,
		 "How long a request waits for a connected path, ms; 0 fails at once (default 30000)");

static unsigned int hb_interval_ms = RIFT_HB_INTERVAL_CLT_DEFAULT_MS;
module_param(hb_interval_ms, uint, 0644);
MODULE_PARM_DESC(hb_interval_ms, "Heartbeat interval of new sessions, ms (default 5000)");

static unsigned int hb_missed_max = RIFT_HB_MISSED_DEFAULT;
module_param(hb_missed_max, uint, 0644);
MODULE_PARM_DESC(hb_missed_max,
		 "Silent heartbeat intervals before a path is declared failed (default 5)");

static unsigned int stall_timeout_ms = RIFT_CLT_STALL_TIMEOUT_DEFAULT_MS;
module_param(stall_timeout_ms, uint, 0644);
MODULE_PARM_DESC(stall_timeout_ms,
		 "An IO connection with requests in flight that receives nothing this long, its probe included, fails its path; ms (default 1000)");

static bool always_invalidate;
module_param(always_invalidate, bool, 0644);
MODULE_PARM_DESC(always_invalidate,
		 "New sessions ask the server to rotate a chunk's rkey after every request (default false)");

struct class rift_clt_class = {
	.name = "rift-client",
};

static void rift_clt_sess_release(struct device *dev)
{
	struct rift_clt_sess *sess = container_of(dev, struct rift_clt_sess, dev);

	rift_clt_reqs_free(sess);
	/* The secrets live in the session. */
	kfree_sensitive(sess);
}

static ssize_t remove_path_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	struct rift_clt_path *path = to_path(kobj);
	int err = 0;

	if (!rift_clt_sysfs_yes(buf))
		return -EINVAL;
	/*
	 * Removing the path removes this very file, and removal waits for
	 * every writer of it: detach ourselves from that wait first, and
	 * keep the path alive across the teardown (CVE-2024-50062 was
	 * exactly this write freeing the object it ran on).
	 */
	kobject_get(&path->base.kobj);
	if (!list_is_singular(&path->sess->paths) &&
	    sysfs_remove_file_self(kobj, &attr->attr)) {
		err = rift_clt_sess_remove_path(path, true);
		/* Lost the race for the last path: the file must come back. */
		if (err == -EBUSY && sysfs_create_file(kobj, &attr->attr))
			pr_warn("%s: cannot restore remove_path\n", path->base.name);
	} else {
		err = -EBUSY;
	}
	kobject_put(&path->base.kobj);
	return err ? err : count;
}

static struct kobj_attribute rift_clt_path_remove_attr = __ATTR_WO(remove_path);

/**
 * rift_clt_sess_add_path() - add a path to a session and connect it
 * @sess: session
 * @src: source address or family AF_UNSPEC
 * @dst: destination address and port
 *
 * Return: 0 once the path is in the session (connected, or in ERROR and
 * retrying, see its last_error); -EEXIST for a duplicate; another errno if
 * it could not be added.
 */
int rift_clt_sess_add_path(struct rift_clt_sess *sess,
			   const struct sockaddr_storage *src,
			   const struct sockaddr_storage *dst)
{
	struct rift_clt_path *path, *p;
	int err;

	path = rift_clt_path_create(sess, src, dst);
	if (IS_ERR(path))
		return PTR_ERR(path);

	mutex_lock(&sess->lock);
	if (sess->closing) {
		err = -ENODEV;
		goto err_unlock;
	}
	list_for_each_entry(p, &sess->paths, entry) {
		if (!strcmp(p->base.name, path->base.name)) {
			err = -EEXIST;
			goto err_unlock;
		}
	}
	err = rift_clt_path_sysfs_add(path);
	if (err)
		goto err_unlock;
	err = sysfs_create_file(&path->base.kobj, &rift_clt_path_remove_attr.attr);
	if (err) {
		rift_clt_path_sysfs_del(path);
		goto err_unlock;
	}
	list_add_tail_rcu(&path->entry, &sess->paths);
	/* A concurrent remove_path may free it while we wait for the connect. */
	kobject_get(&path->base.kobj);
	mutex_unlock(&sess->lock);

	rift_clt_path_connect_now(path);
	kobject_put(&path->base.kobj);
	return 0;

err_unlock:
	mutex_unlock(&sess->lock);
	kobject_put(&path->base.kobj);
	return err;
}

/**
 * rift_clt_sess_remove_path() - take a path out of its session
 * @path: path; safe against concurrent removal and session close
 * @keep_one: refuse to remove the session's last path
 *
 * Return: 0, -EBUSY for the last path with @keep_one, -ENOENT if the path
 * is already being removed.
 */
int rift_clt_sess_remove_path(struct rift_clt_path *path, bool keep_one)
{
	struct rift_clt_sess *sess = path->sess;

	mutex_lock(&sess->lock);
	if (list_empty(&path->entry)) {
		mutex_unlock(&sess->lock);
		return -ENOENT;
	}
	if (keep_one && list_is_singular(&sess->paths)) {
		mutex_unlock(&sess->lock);
		return -EBUSY;
	}
	list_del_rcu(&path->entry);
	INIT_LIST_HEAD(&path->entry);
	/* rift_clt_close() waits for removals it did not do itself. */
	sess->removing++;
	mutex_unlock(&sess->lock);

	/* No submitter can still be looking at the path after this. */
	synchronize_rcu();
	rift_clt_path_stop(path);
	rift_clt_path_sysfs_del(path);
	rift_clt_path_destroy(path);

	mutex_lock(&sess->lock);
	sess->removing--;
	mutex_unlock(&sess->lock);
	wake_up_all(&sess->removed_wait);
	return 0;
}

static bool rift_clt_sess_no_removals(struct rift_clt_sess *sess)
{
	bool none;

	mutex_lock(&sess->lock);
	none = !sess->removing;
	mutex_unlock(&sess->lock);
	return none;
}

static void rift_clt_sess_remove_all(struct rift_clt_sess *sess)
{
	struct rift_clt_path *path;

	for (;;) {
		mutex_lock(&sess->lock);
		path = list_first_entry_or_null(&sess->paths,
						struct rift_clt_path, entry);
		if (path)
			kobject_get(&path->base.kobj);
		mutex_unlock(&sess->lock);
		if (!path)
			break;
		rift_clt_sess_remove_path(path, false);
		kobject_put(&path->base.kobj);
	}
	wait_event(sess->removed_wait, rift_clt_sess_no_removals(sess));
}

static ssize_t add_path_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct rift_clt_sess *sess = to_sess(dev);
	struct sockaddr_storage src, dst;
	int err;

	err = rift_clt_parse_path(buf, &src, &dst, sess->port);
	if (err) {
		pr_info_ratelimited("%s: add_path: cannot parse '%.*s'; expected [ip:]SRC@[ip:]DST or [ip:]DST\n",
				    sess->name, (int)strcspn(buf, "\n"), buf);
		return err;
	}
	err = rift_clt_sess_add_path(sess, &src, &dst);
	return err ? err : count;
}

static DEVICE_ATTR_WO(add_path);

/*
 * The session attributes that add and remove paths live here, beside what
 * they call; rift-clt-sysfs.c holds the rest and calls nothing in this
 * file.
 */
static struct attribute *rift_clt_sess_ctl_attrs[] = {
	&dev_attr_add_path.attr,
	NULL,
};

static const struct attribute_group rift_clt_sess_ctl_group = {
	.attrs = rift_clt_sess_ctl_attrs,
};

static const struct attribute_group *rift_clt_sess_groups[] = {
	&rift_clt_sess_group,
	&rift_clt_sess_ctl_group,
	NULL,
};

/*
 * An RDMA device is going away, or a port went down: fail every path of
 * the session that has anything on it.  The paths list is walked under RCU, as submitters do;
 * a path being removed releases what it holds through its destroy.
 */
static int rift_clt_sess_dev_event(struct notifier_block *nb,
				   unsigned long event, void *data)
{
	struct rift_clt_sess *sess = container_of(nb, struct rift_clt_sess, dev_nb);
	struct rift_clt_path *path;

	struct rift_port_event *pe = data;

	if (event != RIFT_DEV_REMOVING && event != RIFT_DEV_PORT_DOWN)
		return NOTIFY_DONE;
	rcu_read_lock();
	list_for_each_entry_rcu(path, &sess->paths, entry)
		if (event == RIFT_DEV_REMOVING)
			rift_clt_path_dev_removed(path, data);
		else
			rift_clt_path_port_down(path, pe->dev, pe->port);
	rcu_read_unlock();
	return NOTIFY_OK;
}

static u16 rift_clt_nr_cons(u16 asked)
{
	unsigned int io = asked ? asked : num_online_cpus();
	unsigned int cap = min_t(unsigned int, max_io_cons ? : 1,
				 RIFT_CLT_MAX_IO_CONS);

	return clamp_t(unsigned int, io, 1, cap) + 1;
}

/*
 * Why a session could not open: the first path's reason (a refusal's
 * errno, e.g. EKEYREJECTED, tells the ULP's user what to fix), or
 * EHOSTUNREACH when no attempt got as far as an answer.
 */
static int rift_clt_sess_connect_errno(struct rift_clt_sess *sess)
{
	struct rift_clt_path *path;
	int err = -EHOSTUNREACH;

	mutex_lock(&sess->lock);
	path = list_first_entry_or_null(&sess->paths, struct rift_clt_path, entry);
	if (path && READ_ONCE(path->last_errno) < 0)
		err = READ_ONCE(path->last_errno);
	mutex_unlock(&sess->lock);
	return err;
}

/* A secret is absent, or of a length the protocol allows. */
static bool rift_clt_secret_bad(const u8 *key, size_t len)
{
	return len && (!key || len < RIFT_AUTH_SECRET_MIN || len > RIFT_AUTH_SECRET_MAX);
}

/**
 * rift_clt_open() - open a session to a Rift server
 * @args: session name, paths and options
 *
 * Connects every path; returns once at least one is connected.  Paths that
 * failed stay in the session and keep retrying.
 *
 * Return: the session, or an ERR_PTR: -EINVAL for bad arguments (more
 * than %RIFT_CLT_MAX_POLL_CONS poll connections among them), -EEXIST
 * if a session of that name exists, the last path's error if none
 * connected.
 */
struct rift_clt_sess *rift_clt_open(const struct rift_clt_open_args *args)
{
	struct rift_clt_sess *sess;
	struct sockaddr_storage any = { .ss_family = AF_UNSPEC };
	size_t i;
	int err;

	struct device *dup;

	if (!args || !args->sessname || !args->paths || !args->nr_paths ||
	    !rift_proto_name_valid(args->sessname, strlen(args->sessname)) ||
	    args->queue_depth > RIFT_MAX_QUEUE_DEPTH)
		return ERR_PTR(-EINVAL);
	if (rift_clt_secret_bad(args->secret, args->secret_len) ||
	    rift_clt_secret_bad(args->server_secret, args->server_secret_len)) {
		pr_err("session %s: a secret is %u to %u bytes\n", args->sessname,
		       RIFT_AUTH_SECRET_MIN, RIFT_AUTH_SECRET_MAX);
		return ERR_PTR(-EINVAL);
	}
	/* Proving the server knows a secret means nothing if we prove none. */
	if (args->server_secret_len && !args->secret_len) {
		pr_err("session %s: server_secret needs secret\n", args->sessname);
		return ERR_PTR(-EINVAL);
	}
	for (i = 0; i < args->nr_paths; i++)
		if (!args->paths[i].dst)
			return ERR_PTR(-EINVAL);
	/* Each costs a QP, receive buffers and MRs per path, on both ends. */
	if (args->nr_poll_cons > RIFT_CLT_MAX_POLL_CONS) {
		pr_err("session %s: %u poll connections asked for, at most %u\n",
		       args->sessname, args->nr_poll_cons, RIFT_CLT_MAX_POLL_CONS);
		return ERR_PTR(-EINVAL);
	}
	/* device_add() would WARN on a duplicate name: refuse it first. */
	dup = class_find_device_by_name(&rift_clt_class, args->sessname);
	if (dup) {
		put_device(dup);
		return ERR_PTR(-EEXIST);
	}

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return ERR_PTR(-ENOMEM);
	strscpy(sess->name, args->sessname, sizeof(sess->name));
	if (args->secret_len) {
		memcpy(sess->secret, args->secret, args->secret_len);
		sess->secret_len = args->secret_len;
	}
	if (args->server_secret_len) {
		memcpy(sess->server_secret, args->server_secret, args->server_secret_len);
		sess->server_secret_len = args->server_secret_len;
	}
	get_random_bytes(sess->uuid, sizeof(sess->uuid));
	sess->uuid[0] |= 1;
	if (args->ops)
		sess->ops = *args->ops;
	sess->port = args->port ? args->port : RIFT_DEFAULT_PORT;
	sess->nr_cons = rift_clt_nr_cons(args->nr_cons);
	sess->nr_poll_cons = args->nr_poll_cons;
	sess->req_queue_depth = args->queue_depth ? args->queue_depth :
		clamp_t(u32, default_queue_depth, 1, RIFT_MAX_QUEUE_DEPTH);
	sess->pdu_size = args->pdu_size;
	sess->reconnect_delay_ms = clamp_t(u32, reconnect_delay_ms, RIFT_CLT_RECONNECT_DELAY_MIN_MS,
					   RIFT_CLT_RECONNECT_DELAY_MAX_MS);
	sess->reconnect_delay_max_ms = clamp_t(u32, reconnect_delay_max_ms,
					       sess->reconnect_delay_ms,
					       RIFT_CLT_RECONNECT_DELAY_MAX_MS);
	sess->max_reconnect_attempts = max(max_reconnect_attempts, -1);
	sess->io_timeout_ms = min_t(u32, io_timeout_ms, RIFT_CLT_IO_TIMEOUT_MAX_MS);
	sess->hb_interval_ms = clamp_t(u32, hb_interval_ms, RIFT_HB_INTERVAL_MIN_MS,
				       RIFT_HB_INTERVAL_MAX_MS);
	sess->hb_missed_max = clamp_t(u32, hb_missed_max, RIFT_HB_MISSED_MIN,
				      RIFT_HB_MISSED_LIMIT);
	sess->stall_timeout_ms = clamp_t(u32, stall_timeout_ms,
					 RIFT_CLT_STALL_TIMEOUT_MIN_MS,
					 RIFT_CLT_STALL_TIMEOUT_MAX_MS);
	sess->mp_policy = RIFT_CLT_MP_ROUND_ROBIN;
	sess->always_inv = READ_ONCE(always_invalidate);
	rift_clt_sess_failover_init(sess);
	mutex_init(&sess->lock);
	INIT_LIST_HEAD(&sess->paths);
	init_waitqueue_head(&sess->permit_wait);
	init_waitqueue_head(&sess->removed_wait);
	sess->wq = system_long_wq;
	/*
	 * A connect attempt may run long without sleeping: it allocates
	 * and maps thousands of staging pages (rift-clt-bounce.c) and
	 * frees the last instance's, and on the sanitizer kernel one held
	 * its CPU's pool for 55 s.  In a per-CPU pool a work item that runs
	 * (or is runnable) keeps every other item of that pool from
	 * starting, another path's heartbeat tick included; an unbound
	 * worker holds up nothing.
	 */
	sess->connect_wq = system_unbound_wq;
	sess->dev_nb.notifier_call = rift_clt_sess_dev_event;

	device_initialize(&sess->dev);
	sess->dev.class = &rift_clt_class;
	sess->dev.release = rift_clt_sess_release;
	sess->dev.groups = rift_clt_sess_groups;
	err = dev_set_name(&sess->dev, "%s", sess->name);
	if (err)
		goto err_put;
	err = device_add(&sess->dev);
	if (err)
		goto err_put;
	sess->paths_kobj = kobject_create_and_add("paths", &sess->dev.kobj);
	if (!sess->paths_kobj) {
		err = -ENOMEM;
		goto err_del;
	}
	err = rift_dev_register_notifier(&sess->dev_nb);
	if (err)
		goto err_kobj;

	for (i = 0; i < args->nr_paths; i++) {
		const struct rift_path_addr *a = &args->paths[i];

		err = rift_clt_sess_add_path(sess, a->src ? a->src : &any, a->dst);
		if (err)
			goto err_paths;
	}
	if (!atomic_read(&sess->connected)) {
		err = rift_clt_sess_connect_errno(sess);
		goto err_paths;
	}
	err = rift_clt_reqs_init(sess);
	if (err)
		goto err_paths;
	return sess;

err_paths:
	mutex_lock(&sess->lock);
	sess->closing = true;
	mutex_unlock(&sess->lock);
	rift_clt_sess_remove_all(sess);
	rift_clt_sess_fail_pending(sess);
	rift_dev_unregister_notifier(&sess->dev_nb);
err_kobj:
	kobject_put(sess->paths_kobj);
err_del:
	device_del(&sess->dev);
err_put:
	put_device(&sess->dev);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(rift_clt_open);

/**
 * rift_clt_close() - close a session
 * @sess: session from rift_clt_open()
 *
 * The ULP must not submit new requests once it calls this.  Requests still
 * in flight are completed with -ECONNRESET before it returns (their done
 * callbacks may still put their permits); after it returns the ULP must
 * not touch @sess again.  Must not be called from a link_ev callback.
 */
void rift_clt_close(struct rift_clt_sess *sess)
{
	mutex_lock(&sess->lock);
	sess->closing = true;
	mutex_unlock(&sess->lock);
	rift_clt_sess_remove_all(sess);
	rift_clt_sess_fail_pending(sess);
	/* No path is left to tell about a device removal. */
	rift_dev_unregister_notifier(&sess->dev_nb);
	kobject_put(sess->paths_kobj);
	device_unregister(&sess->dev);
}
EXPORT_SYMBOL_GPL(rift_clt_close);

/**
 * rift_clt_query() - limits of an open session
 * @sess: session
 * @attrs: filled in
 *
 * Return: 0.
 */
int rift_clt_query(struct rift_clt_sess *sess, struct rift_clt_attrs *attrs)
{
	attrs->queue_depth = sess->queue_depth;
	attrs->max_io_size = sess->max_io_size;
	attrs->max_segments = RIFT_IO_MAX_SEGS;
	attrs->nr_poll_cons = sess->nr_poll_cons;
	return 0;
}
EXPORT_SYMBOL_GPL(rift_clt_query);

static int __init rift_clt_init(void)
{
	int err;

	err = rift_clt_identity_init();
	if (err)
		return err;
	err = class_register(&rift_clt_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		return err;
	}
	return 0;
}

static void __exit rift_clt_exit(void)
{
	class_unregister(&rift_clt_class);
}

module_init(rift_clt_init);
module_exit(rift_clt_exit);

MODULE_DESCRIPTION("Rift RDMA transport: client side");
MODULE_LICENSE("GPL");

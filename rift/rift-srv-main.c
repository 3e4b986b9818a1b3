// SPDX-License-Identifier: GPL-2.0
/*
 * Rift RDMA transport: server side, module entry, parameters and the
 * context API (rift_srv_open/close and session accessors).
 *
 * The class gives every object this module creates a stable home under
 * /sys/class/rift-server/, which is where users configure it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/in6.h>
#include <linux/sizes.h>

#include "rift-srv.h"

struct workqueue_struct *rift_srv_wq;
struct workqueue_struct *rift_srv_hb_wq;
/* Answers given from hard interrupt context, posted from here. */
struct workqueue_struct *rift_srv_resp_wq;

/*
 * Parameters are read once when a session is created, so changing them
 * affects new sessions only; the setters refuse values the protocol does
 * not allow instead of letting a session fail later.  Every path instance
 * of a session has chunks of its own, so a session pins up to
 * max_queue_depth * chunk_size bytes per path.
 */
static unsigned int max_queue_depth = 128;
static unsigned int chunk_size = ALIGN(SZ_128K + RIFT_CHUNK_HEADROOM,
				       RIFT_CHUNK_SIZE_ALIGN);
static unsigned int hb_interval_ms = RIFT_HB_INTERVAL_DEFAULT_MS;

static int rift_srv_set_max_queue_depth(const char *val,
					const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, RIFT_MAX_QUEUE_DEPTH);
}

static const struct kernel_param_ops rift_srv_max_queue_depth_ops = {
	.set = rift_srv_set_max_queue_depth,
	.get = param_get_uint,
};

module_param_cb(max_queue_depth, &rift_srv_max_queue_depth_ops,
		&max_queue_depth, 0644);
MODULE_PARM_DESC(max_queue_depth,
		 "Most chunks (requests in flight) each path of a new session gets, 1..4096 (default 128)");

static int rift_srv_set_chunk_size(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int err;

	err = kstrtouint(val, 0, &v);
	if (err)
		return err;
	if (v < RIFT_CHUNK_SIZE_MIN || v > RIFT_CHUNK_SIZE_MAX ||
	    v % RIFT_CHUNK_SIZE_ALIGN)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops rift_srv_chunk_size_ops = {
	.set = rift_srv_set_chunk_size,
	.get = param_get_uint,
};

module_param_cb(chunk_size, &rift_srv_chunk_size_ops, &chunk_size, 0644);
MODULE_PARM_DESC(chunk_size,
		 "Bytes per chunk of a new session, a multiple of 4096 in 4096..4194304; max_io_size is chunk_size - 1024 (default 135168)");

static int rift_srv_set_hb_interval(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, RIFT_HB_INTERVAL_MIN_MS,
				     RIFT_HB_INTERVAL_MAX_MS);
}

static const struct kernel_param_ops rift_srv_hb_interval_ops = {
	.set = rift_srv_set_hb_interval,
	.get = param_get_uint,
};

module_param_cb(hb_interval_ms, &rift_srv_hb_interval_ops, &hb_interval_ms, 0644);
MODULE_PARM_DESC(hb_interval_ms,
		 "Heartbeat interval announced to new paths, 100..60000 ms (default 1000)");

static bool always_invalidate = true;
module_param(always_invalidate, bool, 0644);
MODULE_PARM_DESC(always_invalidate,
		 "Accept the always-invalidate feature when a client offers it: rotate a chunk's rkey after every request (default true)");

bool rift_srv_param_always_invalidate(void)
{
	return READ_ONCE(always_invalidate);
}

/*
 * Always-invalidate for every path, whatever the client asked: a client
 * can then never write into a chunk it does not currently own, at the
 * cost of an invalidation and a registration per request.
 */
static bool force_always_invalidate;
module_param(force_always_invalidate, bool, 0644);
MODULE_PARM_DESC(force_always_invalidate,
		 "Impose always-invalidate on every new path; clients that cannot follow it are refused (default false)");

bool rift_srv_param_force_always_invalidate(void)
{
	return READ_ONCE(force_always_invalidate);
}

static u8 ack_timeout = 20;
module_param(ack_timeout, byte, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "QP ack timeout, 4.096 us * 2^N (default 20: ~4.3 s; 0: rdma_cm's)");

u8 rift_srv_param_ack_timeout(void)
{
	return READ_ONCE(ack_timeout);
}

/* 10 lines per 5 s each, like printk_ratelimited(), but shared: see rift-srv.h. */
DEFINE_RATELIMIT_STATE(rift_srv_peer_rs, 5 * HZ, 10);
DEFINE_RATELIMIT_STATE(rift_srv_refuse_rs, 5 * HZ, 10);

static bool cancel = true;
module_param(cancel, bool, 0644);
MODULE_PARM_DESC(cancel,
		 "Accept the cancel feature: a client may cancel a timed-out request, which is then answered without its read data (default true)");

bool rift_srv_param_cancel(void)
{
	return READ_ONCE(cancel);
}

u32 rift_srv_param_max_queue_depth(void)
{
	return READ_ONCE(max_queue_depth);
}

u32 rift_srv_param_chunk_size(void)
{
	return READ_ONCE(chunk_size);
}

u32 rift_srv_param_hb_interval_ms(void)
{
	return READ_ONCE(hb_interval_ms);
}

/*
 * Admission limits.  Before a host is admitted (its INFO_REQ accepted) a
 * path costs its QPs and small receive rings only; its chunks are
 * allocated after admission and count against max_pinned_mb, which
 * bounds the memory every client together can pin.  The other limits
 * bound what a flood of CONNECT_REQUESTs can hold while it waits for
 * setup_timeout_ms to end its half-open handshakes.
 */
static unsigned int max_sessions = 128;
static unsigned int max_paths_per_session = 16;
static unsigned int max_cons_per_path = 64;
static unsigned int max_pending_per_addr = 16;
static unsigned int setup_timeout_ms = 20000;
/* 0 until module init sets it to a quarter of RAM. */
static unsigned int max_pinned_mb;

/* The range each of the limits above accepts, found by the variable. */
static const struct {
	const unsigned int	*var;
	unsigned int		lo, hi;
} rift_srv_ranges[] = {
	{ &max_sessions,		1, 65536 },
	{ &max_paths_per_session,	1, 1024 },
	{ &max_cons_per_path,		1, RIFT_MAX_CONS },
	{ &max_pending_per_addr,	1, 65536 },
	{ &setup_timeout_ms,		1000, 600000 },
	{ &max_pinned_mb,		1, UINT_MAX >> 1 },
};

static int rift_srv_set_ranged(const char *val, const struct kernel_param *kp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rift_srv_ranges); i++)
		if (rift_srv_ranges[i].var == kp->arg)
			return param_set_uint_minmax(val, kp, rift_srv_ranges[i].lo,
						     rift_srv_ranges[i].hi);
	return -EINVAL;
}

static const struct kernel_param_ops rift_srv_ranged_ops = {
	.set = rift_srv_set_ranged,
	.get = param_get_uint,
};

module_param_cb(max_sessions, &rift_srv_ranged_ops, &max_sessions, 0644);
MODULE_PARM_DESC(max_sessions,
		 "Sessions this server holds at once, half-open ones included; more are refused with NO_RESOURCES, 1..65536 (default 128)");
module_param_cb(max_paths_per_session, &rift_srv_ranged_ops, &max_paths_per_session, 0644);
MODULE_PARM_DESC(max_paths_per_session,
		 "Path instances one session may hold, closing ones included, 1..1024 (default 16)");
module_param_cb(max_cons_per_path, &rift_srv_ranged_ops, &max_cons_per_path, 0644);
MODULE_PARM_DESC(max_cons_per_path, "Connections one path may have, 1..256 (default 64)");
module_param_cb(max_pending_per_addr, &rift_srv_ranged_ops, &max_pending_per_addr, 0644);
MODULE_PARM_DESC(max_pending_per_addr,
		 "Paths one client address may have in setup at once, 1..65536 (default 16)");
module_param_cb(setup_timeout_ms, &rift_srv_ranged_ops, &setup_timeout_ms, 0644);
MODULE_PARM_DESC(setup_timeout_ms,
		 "A path that has not finished its INFO exchange within this long is closed, 1000..600000 (default 20000)");
module_param_cb(max_pinned_mb, &rift_srv_ranged_ops, &max_pinned_mb, 0644);
MODULE_PARM_DESC(max_pinned_mb,
		 "MiB of chunk memory all sessions together may pin; a path over it is refused (default: a quarter of RAM)");

u32 rift_srv_param_max_sessions(void)
{
	return READ_ONCE(max_sessions);
}

u32 rift_srv_param_max_paths_per_session(void)
{
	return READ_ONCE(max_paths_per_session);
}

u32 rift_srv_param_max_cons_per_path(void)
{
	return READ_ONCE(max_cons_per_path);
}

u32 rift_srv_param_max_pending_per_addr(void)
{
	return READ_ONCE(max_pending_per_addr);
}

u32 rift_srv_param_setup_timeout_ms(void)
{
	return READ_ONCE(setup_timeout_ms);
}

static atomic64_t rift_srv_pinned_total = ATOMIC64_INIT(0);
static atomic_t rift_srv_nr_sess_total = ATOMIC_INIT(0);

/**
 * rift_srv_pinned_reserve() - count chunk memory against max_pinned_mb
 * @bytes: what a path is about to allocate
 *
 * Return: true if it fits (and is counted), false if it would exceed the
 * limit (nothing counted).
 */
bool rift_srv_pinned_reserve(u64 bytes)
{
	u64 cap = (u64)READ_ONCE(max_pinned_mb) << 20;

	if (atomic64_add_return(bytes, &rift_srv_pinned_total) <= cap)
		return true;
	atomic64_sub(bytes, &rift_srv_pinned_total);
	return false;
}

/**
 * rift_srv_pinned_release() - undo rift_srv_pinned_reserve()
 * @bytes: what was reserved
 */
void rift_srv_pinned_release(u64 bytes)
{
	atomic64_sub(bytes, &rift_srv_pinned_total);
}

/**
 * rift_srv_sess_slot_get() - count a new session against max_sessions
 *
 * Return: true if it may be created, false if the server is full.
 */
bool rift_srv_sess_slot_get(void)
{
	if (atomic_inc_return(&rift_srv_nr_sess_total) <= READ_ONCE(max_sessions))
		return true;
	atomic_dec(&rift_srv_nr_sess_total);
	return false;
}

/** rift_srv_sess_slot_put() - a session counted by rift_srv_sess_slot_get() is gone */
void rift_srv_sess_slot_put(void)
{
	atomic_dec(&rift_srv_nr_sess_total);
}

/*
 * Server-wide figures live in /sys/kernel/rift_server/, not in the class
 * directory, where every name is a client's session name.
 */
static ssize_t pinned_bytes_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&rift_srv_pinned_total));
}

static struct kobj_attribute rift_srv_pinned_bytes_attr = __ATTR_RO(pinned_bytes);

static ssize_t nr_sessions_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&rift_srv_nr_sess_total));
}

static struct kobj_attribute rift_srv_nr_sessions_attr = __ATTR_RO(nr_sessions);

static struct attribute *rift_srv_global_attrs[] = {
	&rift_srv_pinned_bytes_attr.attr,
	&rift_srv_nr_sessions_attr.attr,
	NULL,
};

static const struct attribute_group rift_srv_global_group = {
	.attrs = rift_srv_global_attrs,
};

static struct kobject *rift_srv_kobj;

struct class rift_srv_class = {
	.name = "rift-server",
};

/*
 * An RDMA device is going away, or a port went down: fail every path on
 * it (a failed path's requests are the client's to fail over).  Under
 * ctx->lock, which CONNECT_REQUEST holds while it sets a path up: a path
 * is either in a session's list by now, or its setup asks rift-core for
 * the device after removal began and is refused.
 */
static int rift_srv_dev_event(struct notifier_block *nb, unsigned long event,
			      void *data)
{
	struct rift_srv_ctx *ctx = container_of(nb, struct rift_srv_ctx, dev_nb);
	struct rift_port_event *pe = data;
	struct rift_srv_sess *sess;
	struct rift_srv_path *path;
	struct ib_device *ib_dev;

	if (event == RIFT_DEV_REMOVING)
		ib_dev = ((struct rift_dev *)data)->ib_dev;
	else if (event == RIFT_DEV_PORT_DOWN)
		ib_dev = pe->dev->ib_dev;
	else
		return NOTIFY_DONE;
	mutex_lock(&ctx->lock);
	list_for_each_entry(sess, &ctx->sessions, entry) {
		mutex_lock(&sess->lock);
		list_for_each_entry(path, &sess->paths, entry) {
			if (path->ib_dev != ib_dev)
				continue;
			if (event == RIFT_DEV_REMOVING)
				rift_srv_path_fail(path, "RDMA device %s removed",
						   dev_name(&ib_dev->dev));
			else if (path->hca_port == pe->port)
				rift_srv_path_fail(path, "RDMA port %s/%u down",
						   dev_name(&ib_dev->dev), pe->port);
		}
		mutex_unlock(&sess->lock);
	}
	mutex_unlock(&ctx->lock);
	return NOTIFY_OK;
}

/**
 * rift_srv_open() - start serving a ULP on a port
 * @ops: callbacks; @ops->rdma_ev is required, @ops->link_ev optional.  They
 *	must stay valid until rift_srv_close() returns.
 * @priv: passed to link_ev, and to rdma_ev until the ULP sets a session's
 *	own data with rift_srv_set_sess_priv()
 * @port: rdma_cm port; 0 for %RIFT_DEFAULT_PORT
 *
 * Listens on every address, IPv4 and IPv6, of every RDMA device.  Several
 * contexts may coexist on different ports.  rdma_ev is called from the
 * completion queue's softirq and must not sleep; it gets the session's
 * data (see rift_srv_set_sess_priv()).  link_ev is called from a
 * workqueue, may sleep and gets @priv; CONNECTED comes before the client
 * can send its first request, DISCONNECTED only for a session whose
 * CONNECTED was accepted, once it has no path and no unanswered request.
 *
 * Return: the context, or an ERR_PTR (-EADDRINUSE if the port is taken).
 */
struct rift_srv_ctx *rift_srv_open(const struct rift_srv_ops *ops, void *priv,
				   u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_addr = in6addr_any,
	};
	struct rift_srv_ctx *ctx;
	struct rdma_cm_id *id;
	int err;

	if (!ops || !ops->rdma_ev)
		return ERR_PTR(-EINVAL);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ctx->tag.kind = RIFT_SRV_CM_LISTENER;
	ctx->ops = ops;
	ctx->priv = priv;
	ctx->port = port ? port : RIFT_DEFAULT_PORT;
	mutex_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->sessions);
	INIT_LIST_HEAD(&ctx->pending);
	atomic_set(&ctx->nr_sess, 0);
	init_waitqueue_head(&ctx->wait);
	ctx->dev_nb.notifier_call = rift_srv_dev_event;
	err = rift_dev_register_notifier(&ctx->dev_nb);
	if (err)
		goto err_free;

	id = rdma_create_id(&init_net, rift_srv_cm_handler, &ctx->tag,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		err = PTR_ERR(id);
		goto err_unregister;
	}
	/* One wildcard IPv6 listener that also takes IPv4 clients. */
	err = rdma_set_afonly(id, 0);
	if (err)
		goto err_destroy;
	sin6.sin6_port = htons(ctx->port);
	err = rdma_bind_addr(id, (struct sockaddr *)&sin6);
	if (err)
		goto err_destroy;
	err = rdma_listen(id, 64);
	if (err)
		goto err_destroy;
	ctx->listen_id = id;
	pr_info("listening on port %u\n", ctx->port);
	return ctx;

err_destroy:
	rdma_destroy_id(id);
err_unregister:
	rift_dev_unregister_notifier(&ctx->dev_nb);
err_free:
	pr_err("cannot listen on port %u: %d\n", ctx->port, err);
	kfree(ctx);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(rift_srv_open);

/**
 * rift_srv_close() - stop serving and tear down every session
 * @ctx: context from rift_srv_open()
 *
 * Refuses new connections, closes every path and waits until every
 * session is gone.  A session is gone only once the ULP answered all of
 * its requests, so the ULP must keep answering (from another context)
 * while this runs; link_ev(DISCONNECTED) is delivered for each session
 * that had been reported connected.  Must not be called from a link_ev
 * callback.  May sleep.
 */
void rift_srv_close(struct rift_srv_ctx *ctx)
{
	struct rift_srv_sess *sess;

	mutex_lock(&ctx->lock);
	ctx->closing = true;
	mutex_unlock(&ctx->lock);

	/* Waits for a CONNECT_REQUEST in progress; none can start after. */
	rdma_destroy_id(ctx->listen_id);

	mutex_lock(&ctx->lock);
	list_for_each_entry(sess, &ctx->sessions, entry)
		rift_srv_sess_close(sess, NULL, "server closing");
	mutex_unlock(&ctx->lock);

	wait_event(ctx->wait, atomic_read(&ctx->nr_sess) == 0);
	/* The release work that woke us may still be on its way out. */
	flush_workqueue(rift_srv_wq);
	rift_dev_unregister_notifier(&ctx->dev_nb);
	pr_info("stopped listening on port %u\n", ctx->port);
	kfree(ctx);
}
EXPORT_SYMBOL_GPL(rift_srv_close);

/**
 * rift_srv_set_sess_priv() - set the data rdma_ev gets for a session
 * @sess: session, as passed to link_ev
 * @priv: data; the context's data until this is called
 *
 * Typically called from link_ev(CONNECTED), before any request of the
 * session can arrive.
 */
void rift_srv_set_sess_priv(struct rift_srv_sess *sess, void *priv)
{
	WRITE_ONCE(sess->priv, priv);
}
EXPORT_SYMBOL_GPL(rift_srv_set_sess_priv);

/**
 * rift_srv_get_sess_name() - the name the client gave a session
 * @sess: session, as passed to link_ev
 * @buf: destination
 * @len: bytes at @buf
 *
 * The name is fixed before link_ev(CONNECTED) and never changes, so this
 * takes no lock and may be called from any context.
 *
 * Return: the name's length, -ENODATA if the session has no name yet, or
 * -E2BIG if @buf is too small (then it holds a truncated name).
 */
int rift_srv_get_sess_name(struct rift_srv_sess *sess, char *buf, size_t len)
{
	/* Pairs with the release in rift_srv_sess_set_name(). */
	if (!smp_load_acquire(&sess->named))
		return -ENODATA;
	return strscpy(buf, sess->name, len);
}
EXPORT_SYMBOL_GPL(rift_srv_get_sess_name);

/**
 * rift_srv_get_host_name() - the host a session was admitted for
 * @sess: session, as passed to link_ev
 * @buf: destination
 * @len: bytes at @buf
 *
 * The host name is the client's identity as the server admitted it (and
 * authenticated it, where the host has a secret); every path of the
 * session carries the same one.  Fixed with the session's name.
 *
 * Return: the name's length, -ENODATA if the session is not admitted yet,
 * or -E2BIG if @buf is too small (then it holds a truncated name).
 */
int rift_srv_get_host_name(struct rift_srv_sess *sess, char *buf, size_t len)
{
	/* Pairs with the release in rift_srv_sess_set_name(). */
	if (!smp_load_acquire(&sess->named))
		return -ENODATA;
	return strscpy(buf, sess->host_name, len);
}
EXPORT_SYMBOL_GPL(rift_srv_get_host_name);

static int __init rift_srv_init(void)
{
	int err;

	if (!max_pinned_mb)
		max_pinned_mb = max_t(unsigned long,
				      (totalram_pages() >> (20 - PAGE_SHIFT)) / 4, 64);
	rift_srv_wq = alloc_ordered_workqueue("rift_srv", WQ_MEM_RECLAIM);
	if (!rift_srv_wq)
		return -ENOMEM;
	/*
	 * Heartbeats get their own queue: a teardown waiting on the ordered
	 * one must not delay the ticks of every other client's paths.
	 */
	rift_srv_hb_wq = alloc_workqueue("rift_srv_hb", WQ_MEM_RECLAIM, 0);
	if (!rift_srv_hb_wq) {
		err = -ENOMEM;
		goto err_destroy_wq;
	}
	/* On the IO path (a riftblk export may hold swap): reclaim-safe. */
	rift_srv_resp_wq = alloc_workqueue("rift_srv_resp", WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!rift_srv_resp_wq) {
		err = -ENOMEM;
		goto err_destroy_hb_wq;
	}
	err = class_register(&rift_srv_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		goto err_destroy_resp_wq;
	}
	rift_srv_kobj = kobject_create_and_add("rift_server", kernel_kobj);
	if (!rift_srv_kobj) {
		err = -ENOMEM;
		goto err_class;
	}
	err = sysfs_create_group(rift_srv_kobj, &rift_srv_global_group);
	if (err)
		goto err_kobj;
	err = rift_srv_hosts_init(rift_srv_kobj);
	if (err)
		goto err_kobj;
	return 0;

err_kobj:
	kobject_put(rift_srv_kobj);
err_class:
	class_unregister(&rift_srv_class);
err_destroy_resp_wq:
	destroy_workqueue(rift_srv_resp_wq);
err_destroy_hb_wq:
	destroy_workqueue(rift_srv_hb_wq);
err_destroy_wq:
	destroy_workqueue(rift_srv_wq);
	return err;
}

static void __exit rift_srv_exit(void)
{
	/* Every ULP is gone, every request answered: nothing is queued. */
	destroy_workqueue(rift_srv_resp_wq);
	destroy_workqueue(rift_srv_hb_wq);
	/* Runs the last path frees, which drop the last session references. */
	destroy_workqueue(rift_srv_wq);
	rift_srv_hosts_exit(rift_srv_kobj);
	kobject_put(rift_srv_kobj);
	class_unregister(&rift_srv_class);
}

module_init(rift_srv_init);
module_exit(rift_srv_exit);

MODULE_DESCRIPTION("Rift RDMA transport: server side");
MODULE_LICENSE("GPL");

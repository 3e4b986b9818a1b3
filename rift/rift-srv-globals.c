// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: module parameters and what every file of the server
 * shares: its workqueues, its class, the server-wide limits and counters
 * (/sys/kernel/rift_server/) and the log rate limits.  This file calls
 * into no other file of the module.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/mm.h>
#include <linux/sizes.h>

#include "rift-srv.h"

struct workqueue_struct *rift_srv_wq;
struct workqueue_struct *rift_srv_hb_wq;
/* Answers given from hard interrupt context, posted from here. */
struct workqueue_struct *rift_srv_resp_wq;
/* Memory credits: credit answers and the chunk pool (allocations). */
struct workqueue_struct *rift_srv_credit_wq;

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

/*
 * Accept a client's REMOTE_INV on always-invalidate paths (its writes
 * kill their chunk's key themselves).  Off by default: the server then
 * invalidates a write's key with a LOCAL_INV of its own.  REMOTE_INV
 * saves the server that post and its completion but costs the client a
 * SEND WITH_INV more, a message and its ACK; on Soft-RoCE a message
 * costs more than a local work request and its completion (make bench,
 * rift-fai-ri against rift-fai in one boot: 4k writes 19 % slower at QD1
 * and 17 % fewer IOPS at QD32 with it).  On where it measures better.
 */
static bool remote_invalidate;
module_param(remote_invalidate, bool, 0644);
MODULE_PARM_DESC(remote_invalidate,
		 "Accept remote invalidation of always-invalidate writes when a client offers it (default false)");

bool rift_srv_param_remote_invalidate(void)
{
	return READ_ONCE(remote_invalidate);
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
/*
 * Memory credits are on unless an administrator opts out with 0: a path
 * of a client that offers them starts with the protocol's floor of 2
 * chunks (264 KiB at the default chunk_size, instead of its whole queue
 * depth, 16.5 MiB) and is granted more as its IO needs them.  No other
 * default has to change with it: pool_mb 0 (the budget is max_pinned_mb,
 * so nothing is admitted or granted beyond what was pinned before), and
 * credit_idle_ms 1000 stays below riftblk's size_poll_ms (2000), whose
 * requests would otherwise keep every idle riftblk path from ever being
 * revoked.
 */
static unsigned int credit_floor = RIFT_CREDIT_FLOOR;
/* 0: the budget is max_pinned_mb, as before memory credits; never above it. */
static unsigned int pool_mb;
static unsigned int credit_idle_ms = 1000;

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
	{ &credit_floor,		0, RIFT_MAX_QUEUE_DEPTH },
	{ &pool_mb,			0, UINT_MAX >> 1 },
	{ &credit_idle_ms,		10, 3600000 },
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
		 "MiB of chunk memory all sessions together may pin; a path over it is refused; caps pool_mb too (default: a quarter of RAM)");
module_param_cb(credit_floor, &rift_srv_ranged_ops, &credit_floor, 0644);
MODULE_PARM_DESC(credit_floor,
		 "Chunks a new path of a client offering memory credits is granted at admission and never revoked below, 0..4096, raised to 2 (or the queue depth if smaller); 0 turns the feature off: the whole queue depth at admission, as before memory credits (default 2)");
module_param_cb(pool_mb, &rift_srv_ranged_ops, &pool_mb, 0644);
MODULE_PARM_DESC(pool_mb,
		 "MiB of chunk memory all paths together may hold: the budget grants and admissions draw from, never above max_pinned_mb; 0 uses max_pinned_mb (default 0)");
module_param_cb(credit_idle_ms, &rift_srv_ranged_ops, &credit_idle_ms, 0644);
MODULE_PARM_DESC(credit_idle_ms,
		 "A path with memory credits that received no request for this long is revoked down to credit_floor, 10..3600000 (default 1000)");

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

/*
 * Memory credits (RIFT_FEAT_CREDITS, Documentation/rift-protocol.rst):
 * the chunks a path of a client that offers the feature is granted at
 * admission and never revoked below; it asks for more as it needs them.
 * Default 2, the protocol's floor.  0 is the opt-out: the whole queue
 * depth at once, the feature not accepted, nothing of it on the wire,
 * exactly as before memory credits.  Values below the protocol's floor
 * (2, or the queue depth if smaller) are raised to it.  Only granted
 * chunks exist (rift-srv-pool.c).
 */
u32 rift_srv_param_credit_floor(void)
{
	return READ_ONCE(credit_floor);
}

u32 rift_srv_param_credit_idle_ms(void)
{
	return READ_ONCE(credit_idle_ms);
}

static atomic64_t rift_srv_pinned_total = ATOMIC64_INIT(0);
static atomic_t rift_srv_nr_sess_total = ATOMIC_INIT(0);

/*
 * The budget: pool_mb once set, capped by max_pinned_mb, else
 * max_pinned_mb, so that a server that sets neither pool_mb nor
 * credit_floor counts and refuses exactly as before memory credits, and
 * no pool_mb lifts the cap on pinned memory (a quarter of RAM unless
 * set).  Both are read once: the name of a refusal may still name the
 * other if one changes meanwhile.
 */
static u64 rift_srv_budget(void)
{
	unsigned int mb = READ_ONCE(pool_mb), max = READ_ONCE(max_pinned_mb);

	return (u64)(mb ? min(mb, max) : max) << 20;
}

/**
 * rift_srv_pinned_reserve() - count chunk memory against the budget
 * @bytes: what a path is about to allocate
 *
 * Return: true if it fits (and is counted), false if it would exceed the
 * limit (nothing counted).
 */
bool rift_srv_pinned_reserve(u64 bytes)
{
	u64 cap = rift_srv_budget();

	if (atomic64_add_return(bytes, &rift_srv_pinned_total) <= cap)
		return true;
	atomic64_sub(bytes, &rift_srv_pinned_total);
	return false;
}

/**
 * rift_srv_budget_name() - the parameter that sets the budget now
 *
 * For refusals, which must name what an administrator has to raise.
 *
 * Return: "pool_mb" once it is set and not above max_pinned_mb, else
 * "max_pinned_mb".
 */
const char *rift_srv_budget_name(void)
{
	unsigned int mb = READ_ONCE(pool_mb);

	return mb && mb <= READ_ONCE(max_pinned_mb) ? "pool_mb" : "max_pinned_mb";
}

/**
 * rift_srv_pool_room() - bytes the budget still has room for
 *
 * A hint for sizing a grant: rift_srv_pinned_reserve() decides.
 *
 * Return: the budget less what is counted against it, or 0.
 */
u64 rift_srv_pool_room(void)
{
	s64 used = atomic64_read(&rift_srv_pinned_total);
	u64 cap = rift_srv_budget();

	return used < 0 || (u64)used >= cap ? 0 : cap - used;
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

/* /sys/kernel/rift_server/ */
struct kobject *rift_srv_kobj;

struct class rift_srv_class = {
	.name = "rift-server",
};

/**
 * rift_srv_globals_init() - set up what every server file shares
 *
 * Return: 0 or a negative errno, with nothing left set up.
 */
int rift_srv_globals_init(void)
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
	/*
	 * Memory credits: an answer allocates up to 12 zeroed high-order
	 * chunks and their MRs (GFP_KERNEL, so it may enter reclaim itself)
	 * and the pool work frees them.  Not on rift_srv_hb_wq: its rescuer
	 * would be held up behind them and so would heartbeats; and nothing
	 * here must run to make memory free, so no WQ_MEM_RECLAIM.
	 * Unbound: an answer may sit in direct reclaim or compaction, or
	 * simply wait for a CPU that softirq work keeps busy, for seconds.
	 * On a per-CPU pool it would hold up every other work item queued
	 * on that CPU meanwhile, whatever its workqueue (a client's
	 * heartbeats on system_long_wq included); unbound workers are not
	 * concurrency-managed, so the items behind it get workers of their
	 * own.  Seen on the sanitizer kernel: transport_stress's pools
	 * reported "workqueue lockup ... stuck for 32s" with an answer in
	 * flight and heartbeats pending behind it.
	 */
	rift_srv_credit_wq = alloc_workqueue("rift_srv_credit", WQ_UNBOUND, 0);
	if (!rift_srv_credit_wq) {
		err = -ENOMEM;
		goto err_destroy_resp_wq;
	}
	err = class_register(&rift_srv_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		goto err_destroy_credit_wq;
	}
	rift_srv_kobj = kobject_create_and_add("rift_server", kernel_kobj);
	if (!rift_srv_kobj) {
		err = -ENOMEM;
		goto err_class;
	}
	err = sysfs_create_group(rift_srv_kobj, &rift_srv_global_group);
	if (err)
		goto err_kobj;
	return 0;

err_kobj:
	kobject_put(rift_srv_kobj);
err_class:
	class_unregister(&rift_srv_class);
err_destroy_credit_wq:
	destroy_workqueue(rift_srv_credit_wq);
err_destroy_resp_wq:
	destroy_workqueue(rift_srv_resp_wq);
err_destroy_hb_wq:
	destroy_workqueue(rift_srv_hb_wq);
err_destroy_wq:
	destroy_workqueue(rift_srv_wq);
	return err;
}

/**
 * rift_srv_globals_exit_wqs() - module exit, first step: drain the queues
 *
 * Every ULP is gone and every request answered, so only teardown work is
 * left; the last path frees on rift_srv_wq drop the last session
 * references, which the class must outlive.
 */
void rift_srv_globals_exit_wqs(void)
{
	destroy_workqueue(rift_srv_credit_wq);
	rift_srv_credit_wq = NULL;
	destroy_workqueue(rift_srv_resp_wq);
	rift_srv_resp_wq = NULL;
	destroy_workqueue(rift_srv_hb_wq);
	rift_srv_hb_wq = NULL;
	destroy_workqueue(rift_srv_wq);
	rift_srv_wq = NULL;
}

/**
 * rift_srv_globals_exit() - undo rift_srv_globals_init()
 *
 * Also after rift_srv_globals_exit_wqs(), which module exit calls first.
 */
void rift_srv_globals_exit(void)
{
	if (rift_srv_resp_wq)
		rift_srv_globals_exit_wqs();
	kobject_put(rift_srv_kobj);
	class_unregister(&rift_srv_class);
}

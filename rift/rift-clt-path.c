// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: a path's lifecycle.  Created (not connected, not in
 * sysfs), connected by its connect work (every connection through
 * rift-clt-connect.c, then the INFO exchange of rift-clt-info.c, then its
 * ticks of rift-clt-hb.c start), closed by its close work after a failure
 * and reconnected with exponential backoff, stopped and destroyed on
 * removal.  Each connect attempt is a new instance of the path; one
 * function ends an instance, rift_clt_path_teardown(), called by the
 * close work, by the connect attempt for what the last instance left and
 * for itself when it fails, and by the path's destruction.  The state
 * machine and the failure reports that move it are in rift-clt-state.c.
 * The session (rift-clt-main.c) and sysfs call into this file; it is the
 * top of the path's files.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>

#include "rift-clt.h"
/* The client's own, created in rift-clt-hb.c. */
#include "rift_clt_trace.h"

/**
 * rift_clt_path_teardown() - end a path instance
 * @path: path in any state but CONNECTED; the caller holds ->conn_mutex
 *
 * In this order, each step relying on the ones before it:
 *
 * 1. The ticks stop: the heartbeat tick (heartbeats, request timeouts,
 *    which post fences and CANCELs and orphan chunks, a forgotten batch's
 *    post) and the progress tick (probes, polling a poll connection's
 *    CQ).  A tick that runs after this sees the path not connected and
 *    does nothing, until the next instance, set up under the same mutex,
 *    queues its own.
 * 2. An RCU grace period: submitters, credit messages, rift_clt_poll()
 *    and the stale-rkey probe post to (or poll) a path only inside an RCU
 *    read section in which they saw it CONNECTED, which it no longer is;
 *    every such section has ended after synchronize_rcu().
 * 3. The connections: each is drained (what it held ends or fails over),
 *    its QP destroyed, then its cm_id (rift_clt_path_close_cons()).
 * 4. The staging slots (no QP is left that the server could write them
 *    through), then the PD (every QP and MR in it is gone).
 * 5. Last, the orphans and the chunks: with the QPs gone no late answer
 *    or RDMA of a timed-out request can arrive, and with the ticks gone
 *    no timeout can orphan a chunk after its orphans were released; nor
 *    may the next instance's server name this one's chunks.
 *
 * Safe twice, and on a path that never connected: each step finds
 * nothing left to do.  Waits for the ticks under ->conn_mutex, which is
 * safe because neither tick takes the mutex, nor waits for anything
 * that does: they take spinlocks, queue work (the close and failover
 * works) without waiting for it, and complete requests, whose ULP
 * callbacks may not sleep (struct rift_clt_req_ops).  Lockdep would
 * report a tick that started to.
 */
static void rift_clt_path_teardown(struct rift_clt_path *path)
{
	lockdep_assert_held(&path->conn_mutex);
	/* A submitter that sees it CONNECTED may be posting right now. */
	WARN_ON_ONCE(rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED);
	cancel_delayed_work_sync(&path->hb_work);
	cancel_delayed_work_sync(&path->stall_work);
	synchronize_rcu();
	rift_clt_path_close_cons(path);
	rift_clt_bounce_free(path);
	rift_pd_put(&path->pd);
	rift_clt_path_release_orphans(path);
	rift_clt_chunks_reset(path, 0);
}

/*
 * Establish every connection of a path and run the INFO exchange.  Called
 * with ->conn_mutex held, from the connect work only.
 *
 * Return: 0 when the path is CONNECTED, else a negative errno with the
 * path in ERROR and the reason in last_error.
 */
static int rift_clt_path_connect_sync(struct rift_clt_path *path)
{
	struct ib_device *ib_dev;
	unsigned long flags;
	bool reconnect, ok;
	int i, err;

	lockdep_assert_held(&path->conn_mutex);
	reconnect = rift_clt_path_get_state(path) == RIFT_CLT_PATH_ERROR ||
		    rift_clt_path_get_state(path) == RIFT_CLT_PATH_GAVE_UP;
	if (!rift_clt_path_set_state(path, reconnect ? RIFT_CLT_PATH_RECONNECTING :
				     RIFT_CLT_PATH_CONNECTING))
		return -EINVAL;
	/*
	 * What the last instance left behind: a failed attempt ended its
	 * own, but a failure's close work may not have run yet.
	 */
	rift_clt_path_teardown(path);
	/*
	 * The teardown gave every orphan back: one left now would keep a
	 * chunk and a permit of an instance that is gone, and its stale
	 * connection index would judge the new instance's responses.
	 */
	WARN_ON_ONCE(!bitmap_empty(path->orphans, path->chunks_cap));
	path->reconnect_gen++;
	WRITE_ONCE(path->setup_failed, false);
	init_completion(&path->info_done);
	init_completion(&path->info_tx_done);
	path->info_err = 0;
	path->info_len = 0;
	/*
	 * The server may start sending heartbeats as soon as it answered
	 * INFO: count them from here, not from what an earlier attempt saw.
	 */
	atomic_set(&path->hb_rx, 0);
	WRITE_ONCE(path->hb_rx_start, jiffies);

	for (i = 0; i < path->nr_cons; i++) {
		err = rift_clt_con_connect(&path->cons[i]);
		if (err)
			goto err_close;
	}
	err = rift_clt_path_info(path);
	if (err)
		goto err_close;
	err = rift_clt_path_adopt_limits(path);
	if (err)
		goto err_close;
	err = rift_clt_bounce_setup(path);
	if (err)
		goto err_close;
	/*
	 * A device whose removal began after our connections took their
	 * references may have been missed by the removal notifier (it saw
	 * the connections not yet set up): ask once more, before CONNECTED.
	 */
	for (i = 0; i < path->nr_cons; i++) {
		if (!rift_dev_alive(path->cons[i].c.dev)) {
			rift_clt_path_set_error(path, "RDMA device %s removed",
						dev_name(&path->cons[i].c.dev->ib_dev->dev));
			err = -ENODEV;
			goto err_close;
		}
	}

	ib_dev = path->cons[0].c.cm_id->device;
	strscpy(path->base.hca_name, dev_name(&ib_dev->dev), sizeof(path->base.hca_name));
	path->base.hca_port = path->cons[0].c.cm_id->port_num;
	rift_hb_start(&path->hb);
	for (i = 0; i < path->nr_cons; i++) {
		path->cons[i].stalled = false;
		path->cons[i].probe_out = false;
		atomic_set(&path->cons[i].rx_seen, 0);
	}
	/*
	 * A connection that failed after it was established (the failure was
	 * noted in ->setup_failed) must not let the path go CONNECTED.
	 */
	spin_lock_irqsave(&path->base.lock, flags);
	ok = !path->setup_failed &&
	     rift_clt_path_change_state(path, RIFT_CLT_PATH_CONNECTED);
	if (ok)
		path->base.last_error[0] = '\0';
	spin_unlock_irqrestore(&path->base.lock, flags);
	if (!ok) {
		err = -ECONNABORTED;
		goto err_close;
	}
	if (reconnect)
		path->reconnects++;
	path->reconnect_attempts = 0;
	WRITE_ONCE(path->hb_last, jiffies);
	WRITE_ONCE(path->hb.due, path->hb_last);
	queue_delayed_work(path->sess->wq, &path->hb_work,
			   rift_hb_next(&path->hb.due,
					READ_ONCE(path->sess->hb_interval_ms)));
	path->stall_last = jiffies;
	queue_delayed_work(path->sess->wq, &path->stall_work,
			   rift_clt_stall_tick(READ_ONCE(path->sess->stall_timeout_ms)));
	/* Requests waiting for a path may go now. */
	rift_clt_sess_kick_failover(path->sess);
	return 0;

err_close:
	rift_clt_path_teardown(path);
	rift_clt_path_set_state(path, RIFT_CLT_PATH_ERROR);
	return err;
}

/*
 * Exponential backoff from reconnect_delay_ms up to reconnect_delay_max_ms,
 * in milliseconds, each delay drawn uniformly from [d/2, d] so that the
 * paths of many clients that lost the same server do not come back in
 * lockstep.  After max_reconnect_attempts failed attempts the path gives
 * up and waits for the user's reconnect.
 */
static void rift_clt_path_schedule_reconnect(struct rift_clt_path *path)
{
	struct rift_clt_sess *sess = path->sess;
	int max = READ_ONCE(sess->max_reconnect_attempts);
	u32 base = READ_ONCE(sess->reconnect_delay_ms);
	u32 cap = max_t(u32, READ_ONCE(sess->reconnect_delay_max_ms), base);
	u32 n = path->reconnect_attempts;
	u64 d;

	lockdep_assert_held(&path->conn_mutex);
	if (READ_ONCE(path->removed) || READ_ONCE(sess->closing) ||
	    rift_clt_path_get_state(path) != RIFT_CLT_PATH_ERROR)
		return;
	if (max >= 0 && n >= max) {
		if (rift_clt_path_set_state(path, RIFT_CLT_PATH_GAVE_UP))
			rift_clt_path_set_error(path, "gave up after %u reconnect attempts",
						n);
		return;
	}
	path->reconnect_attempts = n + 1;
	d = min_t(u64, (u64)base << min_t(u32, n, 20), cap);
	d = d / 2 + get_random_u32_below(d - d / 2 + 1);
	trace_rift_clt_path_backoff(sess->name, path->base.name, n + 1, d);
	queue_delayed_work(sess->connect_wq, &path->connect_work, msecs_to_jiffies(d));
}

static void rift_clt_path_connect_work(struct work_struct *work)
{
	struct rift_clt_path *path = container_of(to_delayed_work(work),
						  struct rift_clt_path,
						  connect_work);
	struct rift_clt_sess *sess = path->sess;
	enum rift_clt_path_state state;
	bool was_down, up;
	int err;

	mutex_lock(&path->conn_mutex);
	state = rift_clt_path_get_state(path);
	if (READ_ONCE(path->removed) || READ_ONCE(sess->closing) ||
	    (state != RIFT_CLT_PATH_IDLE && state != RIFT_CLT_PATH_ERROR &&
	     state != RIFT_CLT_PATH_GAVE_UP)) {
		mutex_unlock(&path->conn_mutex);
		return;
	}
	was_down = atomic_read(&sess->connected) == 0;
	err = rift_clt_path_connect_sync(path);
	WRITE_ONCE(path->last_errno, err);
	up = !err;
	if (up)
		rift_clt_dbg_connected(path);
	/* Under the mutex: path destroy cancels this work after taking it. */
	if (!up)
		rift_clt_path_schedule_reconnect(path);
	mutex_unlock(&path->conn_mutex);
	if (up && was_down && sess->ops.link_ev)
		sess->ops.link_ev(sess->ops.priv, RIFT_CLT_LINK_EV_RECONNECTED);
}

/**
 * rift_clt_path_connect_now() - run a connect attempt and wait for it
 * @path: path in IDLE or ERROR state; the caller holds a reference
 *
 * Return: 0 if the path is connected afterwards, -ENOTCONN otherwise (the
 * reason is in last_error and a retry is scheduled).
 */
int rift_clt_path_connect_now(struct rift_clt_path *path)
{
	mod_delayed_work(path->sess->connect_wq, &path->connect_work, 0);
	flush_delayed_work(&path->connect_work);
	return rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED ?
		0 : -ENOTCONN;
}

/*
 * Queued by a failure of a connected path (rift_clt_path_fail()).  It
 * may run late: a connect attempt (a user's reconnect, or one queued
 * before) can take the mutex first, tear the failed instance down itself
 * and connect the next one.  So nothing is touched, not even the ticks,
 * before the mutex is held and the path is seen in ERROR: cancelling the
 * ticks first, as this once did, stopped the next instance's heartbeat,
 * timeouts and stall detection for good on a path left CONNECTED.
 */
static void rift_clt_path_close_work(struct work_struct *work)
{
	struct rift_clt_path *path = container_of(work, struct rift_clt_path,
						  close_work);
	struct rift_clt_sess *sess = path->sess;

	/* test_connect_race (CONFIG_RIFT_DEBUG): this close work runs late. */
	rift_clt_dbg_close_late(path);
	mutex_lock(&path->conn_mutex);
	if (rift_clt_path_get_state(path) == RIFT_CLT_PATH_ERROR)
		rift_clt_path_teardown(path);
	mutex_unlock(&path->conn_mutex);
	if (atomic_read(&sess->connected) == 0 && sess->ops.link_ev &&
	    !READ_ONCE(sess->closing))
		sess->ops.link_ev(sess->ops.priv, RIFT_CLT_LINK_EV_DISCONNECTED);
	mutex_lock(&path->conn_mutex);
	rift_clt_path_schedule_reconnect(path);
	mutex_unlock(&path->conn_mutex);
}

/**
 * rift_clt_path_reconnect() - user asked to reconnect a path now
 * @path: path
 */
void rift_clt_path_reconnect(struct rift_clt_path *path)
{
	if (rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED)
		rift_clt_path_fail(path, "reconnect requested by user");
	/* The close work requeues the connect; only make it immediate. */
	flush_work(&path->close_work);
	mutex_lock(&path->conn_mutex);
	path->reconnect_attempts = 0;
	if (!READ_ONCE(path->removed))
		mod_delayed_work(path->sess->connect_wq, &path->connect_work, 0);
	mutex_unlock(&path->conn_mutex);
}

static void rift_clt_path_release(struct kobject *kobj)
{
	struct rift_clt_path *path = container_of(kobj, struct rift_clt_path, base.kobj);
	struct rift_clt_sess *sess = path->sess;

	free_percpu(path->stats);
	kfree(path->chunks);
	rift_clt_dbg_path_free(path);
	rift_clt_chunks_free(path);
	kfree(path->cons);
	kfree(path);
	put_device(&sess->dev);
}

static const struct kobj_type rift_clt_path_ktype = {
	.sysfs_ops = &kobj_sysfs_ops,
	.release = rift_clt_path_release,
};

/**
 * rift_clt_path_create() - allocate a path (not connected, not in sysfs)
 * @sess: session
 * @src: source address, or family AF_UNSPEC
 * @dst: destination address with port
 *
 * Return: the path or an ERR_PTR.
 */
struct rift_clt_path *rift_clt_path_create(struct rift_clt_sess *sess,
					   const struct sockaddr_storage *src,
					   const struct sockaddr_storage *dst)
{
	struct rift_clt_path *path;
	int i;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return ERR_PTR(-ENOMEM);
	kobject_init(&path->base.kobj, &rift_clt_path_ktype);
	/* The path's sysfs files may outlive the session's close. */
	get_device(&sess->dev);
	path->sess = sess;
	INIT_LIST_HEAD(&path->entry);
	path->base.src = *src;
	path->base.dst = *dst;
	spin_lock_init(&path->base.lock);
	ratelimit_state_init(&path->err_rs, 5 * HZ, 5);
	path->state = RIFT_CLT_PATH_IDLE;
	path->base.state_str = rift_clt_path_base_state_str;
	get_random_bytes(path->uuid, sizeof(path->uuid));
	path->uuid[0] |= 1;	/* never all-zero */
	INIT_DELAYED_WORK(&path->connect_work, rift_clt_path_connect_work);
	INIT_WORK(&path->close_work, rift_clt_path_close_work);
	INIT_DELAYED_WORK(&path->hb_work, rift_clt_path_hb_work);
	INIT_DELAYED_WORK(&path->stall_work, rift_clt_path_stall_work);
	mutex_init(&path->conn_mutex);
	atomic_set(&path->hb.rx_seen, 0);
	atomic_set(&path->base.inflight, 0);
	if (src->ss_family != AF_UNSPEC)
		snprintf(path->base.name, sizeof(path->base.name), "%pISc@%pISpc", src, dst);
	else
		snprintf(path->base.name, sizeof(path->base.name), "%pISpc", dst);

	path->nr_poll_cons = sess->nr_poll_cons;
	path->nr_cons = sess->nr_cons + sess->nr_poll_cons;
	path->cons = kcalloc(path->nr_cons, sizeof(*path->cons), GFP_KERNEL);
	path->stats = alloc_percpu(struct rift_clt_stats);
	path->base.stats = path->stats;
	if (!path->cons || !path->stats || rift_clt_chunks_alloc(path)) {
		kobject_put(&path->base.kobj);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < path->nr_cons; i++) {
		path->cons[i].path = path;
		path->cons[i].idx = i;
		init_completion(&path->cons[i].done);
		spin_lock_init(&path->cons[i].poll_lock);
		spin_lock_init(&path->cons[i].batch_lock);
		mutex_init(&path->cons[i].cm_lock);
		path->cons[i].c.direct_cq = i >= path->nr_cons - path->nr_poll_cons;
	}
	return path;
}

/**
 * rift_clt_path_stop() - first step of a path's removal
 * @path: path, already unlinked from its session's list (and RCU-synced)
 *
 * From here on failures and user writes stop acting on it: the caller
 * removes its sysfs directory next (no writer can queue work after that)
 * and then calls rift_clt_path_destroy().
 */
void rift_clt_path_stop(struct rift_clt_path *path)
{
	unsigned long flags;

	spin_lock_irqsave(&path->base.lock, flags);
	WRITE_ONCE(path->removed, true);
	rift_clt_path_change_state(path, RIFT_CLT_PATH_CLOSING);
	spin_unlock_irqrestore(&path->base.lock, flags);
}

/**
 * rift_clt_path_destroy() - tear down and free a stopped path
 * @path: path after rift_clt_path_stop() and the removal of its sysfs
 *
 * Only after those two steps, which stop failures, user writes and
 * reconnects from queueing work; then safe on a path in any state.  The
 * connect and close works go first (they take ->conn_mutex), then the
 * instance, ticks included, under the mutex.
 */
void rift_clt_path_destroy(struct rift_clt_path *path)
{
	cancel_delayed_work_sync(&path->connect_work);
	cancel_work_sync(&path->close_work);
	mutex_lock(&path->conn_mutex);
	rift_clt_path_teardown(path);
	mutex_unlock(&path->conn_mutex);
	rift_clt_path_set_state(path, RIFT_CLT_PATH_CLOSED);
	kobject_put(&path->base.kobj);
}

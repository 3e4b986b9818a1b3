// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: the failover queue.  Requests on no path wait here up to
 * the session's io_timeout_ms: those a failed path still held and those
 * that found no path connected.  Submission parks requests here and the
 * failover work (rift-clt-failover.c) takes them off to post them again,
 * so the queue sits below both and calls into no other file; which path
 * a request then takes is rift-clt-mp.c's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"

/**
 * rift_clt_sess_may_wait() - may a request wait for a path to come back?
 * @sess: session
 *
 * Return: false once the session is closing or io_timeout_ms is 0.
 */
bool rift_clt_sess_may_wait(struct rift_clt_sess *sess)
{
	return !READ_ONCE(sess->closing) && READ_ONCE(sess->io_timeout_ms);
}

/**
 * rift_clt_req_park() - queue a request that is in flight on no path
 * @req: request, in no path's hands (nothing mapped, no MR)
 *
 * Its deadline is set the first time: a request bounced between failing
 * paths still fails io_timeout_ms after it first lost its path.
 */
void rift_clt_req_park(struct rift_clt_req *req)
{
	struct rift_clt_sess *sess = req->sess;
	unsigned long flags, deadline;

	spin_lock_irqsave(&sess->pending_lock, flags);
	if (!req->has_deadline) {
		req->deadline = jiffies +
				msecs_to_jiffies(READ_ONCE(sess->io_timeout_ms));
		req->has_deadline = true;
	}
	deadline = req->deadline;
	atomic_set(&req->state, RIFT_CLT_REQ_PENDING);
	list_add_tail(&req->pending, &sess->pending);
	sess->nr_pending++;
	spin_unlock_irqrestore(&sess->pending_lock, flags);
	/*
	 * A path that connected between the failed post and the park has
	 * kicked an empty list already: kick again, or the request would
	 * wait for its deadline.  Without one, wake at its deadline.  A
	 * wake-up already pending is not moved: every caller that parks a
	 * request with an older deadline than a fresh one (the failover work,
	 * a drained connection) runs or kicks the work itself.
	 */
	smp_mb();
	if (atomic_read(&sess->connected))
		rift_clt_sess_kick_failover(sess);
	else
		queue_delayed_work(sess->wq, &sess->failover_work,
				   time_after(deadline, jiffies) ? deadline - jiffies : 0);
}

/**
 * rift_clt_sess_kick_failover() - a path came up, or requests lost theirs
 * @sess: session
 */
void rift_clt_sess_kick_failover(struct rift_clt_sess *sess)
{
	mod_delayed_work(sess->wq, &sess->failover_work, 0);
}

/**
 * rift_clt_take_pending() - move every waiting request to @list
 * @sess: session, whose queue is empty afterwards
 * @list: where the requests go
 */
void rift_clt_take_pending(struct rift_clt_sess *sess, struct list_head *list)
{
	unsigned long flags;

	spin_lock_irqsave(&sess->pending_lock, flags);
	list_splice_init(&sess->pending, list);
	sess->nr_pending = 0;
	spin_unlock_irqrestore(&sess->pending_lock, flags);
}

/**
 * rift_clt_req_fail_pending() - complete a request that waited for a path
 * @req: request taken off the queue
 * @err: its result
 */
void rift_clt_req_fail_pending(struct rift_clt_req *req, int err)
{
	atomic_set(&req->state, RIFT_CLT_REQ_IDLE);
	req->ops.done(req->ops.priv, err);
}

/**
 * rift_clt_sess_fail_pending() - complete every waiting request
 * @sess: session whose paths are all closed and which is closing
 *
 * With @sess->closing set no request is parked any more; the failover
 * work is stopped first so that it cannot post one meanwhile.
 */
void rift_clt_sess_fail_pending(struct rift_clt_sess *sess)
{
	struct rift_clt_req *req, *tmp;
	LIST_HEAD(list);

	cancel_delayed_work_sync(&sess->failover_work);
	rift_clt_take_pending(sess, &list);
	list_for_each_entry_safe(req, tmp, &list, pending) {
		list_del_init(&req->pending);
		rift_clt_req_fail_pending(req, -ECONNRESET);
	}
}

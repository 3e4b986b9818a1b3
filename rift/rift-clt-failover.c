// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: failover.  When a connection's QP is drained, what it
 * still held either ends (a read whose answer came, a timed-out request)
 * or waits in the failover queue (rift-clt-pending.c) for another path; the
 * failover work posts the waiting requests again on a connected path,
 * retries shortly those that found no MR or memory, and fails at their
 * deadline those that found no path.  Called by a connection's teardown
 * and by the session; calls down into submission and the queue.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"

/* Wait before posting again a request that found no MR or memory. */
#define RIFT_CLT_RETRY_DELAY	msecs_to_jiffies(10)

/**
 * rift_clt_fail_inflight() - move off what a drained connection still held
 * @con: connection whose QP is drained
 *
 * No completion for these requests can arrive any more, so nothing can
 * complete them twice.  A read whose response had arrived (its MR was
 * being invalidated) is done: it completes with the server's answer.  So
 * does one waiting for its own last WR (SENDING), which is only left
 * here if the drain failed (ib_drain_qp() warned; the drain completes
 * that WR otherwise): rift_clt_req_release() then warns too.
 * Every other request gives back its MR (the caller destroys the pool
 * next, so a late server write into its pages fails on the wire) and its
 * mappings, and is posted again on another path by the session's
 * failover work, or completes with -ECONNRESET if the session is closing.
 * The failed path instance never comes back, so a request is never posted
 * twice on the same one.
 */
void rift_clt_fail_inflight(struct rift_clt_con *con)
{
	struct rift_clt_sess *sess = con->path->sess;
	struct rift_clt_req *req;
	unsigned long flags;
	bool park = false;
	int old;
	u32 i;

	if (!sess->reqs)
		return;
	/*
	 * A batch no one posted before the path failed (posting stops once
	 * it is not connected) was never sent: it goes with the requests in
	 * flight, to another path, and is posted there for the first time.
	 */
	spin_lock_irqsave(&con->batch_lock, flags);
	for (req = con->batch_first; req; req = req->batch_next) {
		atomic_set(&req->state, RIFT_CLT_REQ_POSTED);
		atomic_dec(&sess->nr_batched);
	}
	con->batch_first = NULL;
	con->batch_last = NULL;
	spin_unlock_irqrestore(&con->batch_lock, flags);
	for (i = 0; i < sess->queue_depth; i++) {
		req = &sess->reqs[i];
		if (READ_ONCE(req->con) != con)
			continue;
		old = atomic_cmpxchg(&req->state, RIFT_CLT_REQ_POSTED,
				     RIFT_CLT_REQ_IDLE);
		if ((old == RIFT_CLT_REQ_INVALIDATING || old == RIFT_CLT_REQ_SENDING) &&
		    atomic_cmpxchg(&req->state, old, RIFT_CLT_REQ_IDLE) == old) {
			rift_clt_req_end_answered(req);
			continue;
		}
		/* Timed out and the QP is flushed: safe to hand back. */
		if (old == RIFT_CLT_REQ_CANCELLING &&
		    atomic_cmpxchg(&req->state, old, RIFT_CLT_REQ_IDLE) == old) {
			rift_clt_req_end(req, -ETIMEDOUT);
			continue;
		}
		if (old != RIFT_CLT_REQ_POSTED)
			continue;
		/*
		 * Drained: a last WR still counted as out was never posted (a
		 * post that failed before it), so no completion will come.
		 */
		atomic_set(&req->tx_out, 0);
		if (!rift_clt_sess_may_wait(sess)) {
			rift_clt_req_end(req, -ECONNRESET);
			continue;
		}
		this_cpu_inc(req->path->stats->failovers);
		rift_clt_req_release(req);
		req->lost_path = true;
		rift_clt_req_park(req);
		park = true;
	}
	if (park)
		rift_clt_sess_kick_failover(sess);
}

/*
 * Post the waiting requests on connected paths; complete those whose
 * deadline passed with -ETIMEDOUT, whether a path is up or not; wake
 * again at the nearest deadline or when a path connects.
 */
static void rift_clt_failover_work(struct work_struct *work)
{
	struct rift_clt_sess *sess = container_of(to_delayed_work(work),
						  struct rift_clt_sess,
						  failover_work);
	struct rift_clt_req *req, *tmp;
	unsigned long next = 0;
	bool wait = false;
	LIST_HEAD(list);
	bool lost;
	int err;

	rift_clt_take_pending(sess, &list);
	list_for_each_entry_safe(req, tmp, &list, pending) {
		list_del_init(&req->pending);
		/*
		 * Cleared before the post: once posted, the request's path may
		 * fail and rift_clt_fail_inflight() set it again at any time.
		 */
		lost = req->lost_path;
		req->lost_path = false;
		/*
		 * Past its deadline it is not posted again, even with a path
		 * up: paths that fail soon after every connect (a server whose
		 * IO connections went mute) would otherwise take it round
		 * forever, each connect kicking this work before any heartbeat
		 * tick could time it out.
		 */
		if (time_before(jiffies, req->deadline))
			err = rift_clt_req_post(req, false);
		else
			err = -ETIMEDOUT;
		if (!err) {
			/*
			 * One that only waited for a chunk never lost a path;
			 * one that did counts once, whatever chunk waits came
			 * between.
			 */
			if (lost)
				atomic64_inc(&sess->failed_over);
			continue;
		}
		/* Not posted: still ours. */
		req->lost_path = lost || err == -ENOTCONN;
		if (err == -ENOTCONN && rift_clt_sess_may_wait(sess) &&
		    time_before(jiffies, req->deadline)) {
			rift_clt_req_park(req);
			if (!wait || time_before(req->deadline, next))
				next = req->deadline;
			wait = true;
			continue;
		}
		/*
		 * Out of MRs or memory for a moment, on a path that is up, or
		 * out of chunks (every chunk put, and with memory credits every
		 * grant, kicks this work sooner): try again shortly rather than
		 * fail a request that has time left.
		 */
		if ((err == -EAGAIN || err == -ENOMEM || err == -ENOBUFS) &&
		    rift_clt_sess_may_wait(sess) &&
		    time_before(jiffies, req->deadline)) {
			rift_clt_req_park(req);
			if (!wait || time_before(jiffies + RIFT_CLT_RETRY_DELAY, next))
				next = jiffies + RIFT_CLT_RETRY_DELAY;
			wait = true;
			continue;
		}
		atomic64_inc(&sess->failover_errors);
		/*
		 * As every other request the close finds: reset, not timed
		 * out.  No path, or no chunk on one (memory credits), within
		 * io_timeout_ms, or with io_timeout_ms 0: timed out, the one
		 * error rift_clt_request() documents for a wait.
		 */
		if (READ_ONCE(sess->closing))
			err = -ECONNRESET;
		else if (err == -ENOTCONN || err == -ENOBUFS)
			err = -ETIMEDOUT;
		rift_clt_req_fail_pending(req, err);
	}
	if (wait)
		mod_delayed_work(sess->wq, &sess->failover_work,
				 time_after(next, jiffies) ? next - jiffies : 0);
}

/**
 * rift_clt_sess_failover_init() - set up a session's queue of requests waiting for a path
 * @sess: session
 */
void rift_clt_sess_failover_init(struct rift_clt_sess *sess)
{
	spin_lock_init(&sess->pending_lock);
	INIT_LIST_HEAD(&sess->pending);
	INIT_DELAYED_WORK(&sess->failover_work, rift_clt_failover_work);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: multipath.  Which connected path a request takes (the
 * session's mp_policy), and the queue of requests waiting for a path:
 * those a failed path still held, or that found no path connected, wait
 * here up to the session's io_timeout_ms.  The failover work that posts
 * them again (rift-clt-failover.c) calls into this file and not the other
 * way round: submission parks requests here too.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"

static const char * const rift_clt_mp_policy_names[RIFT_CLT_MP_NR] = {
	[RIFT_CLT_MP_ROUND_ROBIN]	= "round-robin",
	[RIFT_CLT_MP_MIN_INFLIGHT]	= "min-inflight",
	[RIFT_CLT_MP_MIN_LATENCY]	= "min-latency",
};

/**
 * rift_clt_mp_policy_str() - sysfs name of a multipath policy
 * @p: policy
 *
 * Return: its name.
 */
const char *rift_clt_mp_policy_str(enum rift_clt_mp_policy p)
{
	return p < RIFT_CLT_MP_NR ? rift_clt_mp_policy_names[p] : "unknown";
}

/**
 * rift_clt_mp_policy_parse() - policy named by sysfs input
 * @buf: text; one trailing newline is ignored
 *
 * Return: the policy, or -EINVAL.
 */
int rift_clt_mp_policy_parse(const char *buf)
{
	int i = sysfs_match_string(rift_clt_mp_policy_names, buf);

	return i < 0 ? -EINVAL : i;
}

static struct rift_clt_path *rift_clt_pick_rr(struct rift_clt_sess *sess)
{
	struct rift_clt_path *path, *first = NULL;
	int n = atomic_inc_return(&sess->rr_next);
	int nr = atomic_read(&sess->connected);
	int i = 0;

	if (nr <= 0)
		return NULL;
	n = (unsigned int)n % nr;
	list_for_each_entry_rcu(path, &sess->paths, entry) {
		if (READ_ONCE(path->state) != RIFT_CLT_PATH_CONNECTED)
			continue;
		if (!first)
			first = path;
		if (i++ == n)
			return path;
	}
	return first;
}

/*
 * The least loaded, or fastest, connected path; ties go round-robin so
 * that equal paths share the load instead of the first one taking it all.
 */
static struct rift_clt_path *rift_clt_pick_min(struct rift_clt_sess *sess,
					       bool latency)
{
	struct rift_clt_path *path, *best = NULL;
	u64 key, best_key = U64_MAX;
	unsigned int skip = (unsigned int)atomic_inc_return(&sess->rr_next);
	int nr = atomic_read(&sess->connected);
	int i = 0;

	if (nr <= 0)
		return NULL;
	skip %= nr;
	list_for_each_entry_rcu(path, &sess->paths, entry) {
		if (READ_ONCE(path->state) != RIFT_CLT_PATH_CONNECTED)
			continue;
		key = latency ? READ_ONCE(path->hb.rtt_us) :
				atomic_read(&path->base.inflight);
		/* Strictly better, or as good and at the rotating start. */
		if (key < best_key || (key == best_key && i == skip)) {
			best = path;
			best_key = key;
		}
		i++;
	}
	return best;
}

/**
 * rift_clt_pick_path() - choose a connected path for the next request
 * @sess: session
 *
 * By the session's mp_policy.  Caller holds rcu_read_lock().
 *
 * Return: a path, or NULL when none is connected.
 */
struct rift_clt_path *rift_clt_pick_path(struct rift_clt_sess *sess)
{
	switch (READ_ONCE(sess->mp_policy)) {
	case RIFT_CLT_MP_MIN_INFLIGHT:
		return rift_clt_pick_min(sess, false);
	case RIFT_CLT_MP_MIN_LATENCY:
		return rift_clt_pick_min(sess, true);
	default:
		return rift_clt_pick_rr(sess);
	}
}

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
	unsigned long flags;

	spin_lock_irqsave(&sess->pending_lock, flags);
	if (!req->has_deadline) {
		req->deadline = jiffies +
				msecs_to_jiffies(READ_ONCE(sess->io_timeout_ms));
		req->has_deadline = true;
	}
	atomic_set(&req->state, RIFT_CLT_REQ_PENDING);
	list_add_tail(&req->pending, &sess->pending);
	sess->nr_pending++;
	spin_unlock_irqrestore(&sess->pending_lock, flags);
	/*
	 * A path that connected between the failed post and the park has
	 * kicked an empty list already: kick again, or the request would
	 * wait for its deadline.  Without one, wake at the deadline only.
	 */
	smp_mb();
	if (atomic_read(&sess->connected))
		rift_clt_sess_kick_failover(sess);
	else
		queue_delayed_work(sess->wq, &sess->failover_work,
				   msecs_to_jiffies(READ_ONCE(sess->io_timeout_ms)));
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

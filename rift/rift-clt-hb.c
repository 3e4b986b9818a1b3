// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: a connected path's ticks.  The heartbeat tick sends a
 * heartbeat, fails a path that stayed silent for hb_missed_max ticks, and
 * runs the request timeouts and the reaping of unpolled poll connections;
 * the progress tick probes connections that wait for answers but received
 * nothing, and fails a path whose probe stays unanswered.  The path's
 * lifecycle (rift-clt-path.c) queues and cancels both; heartbeats
 * received and answered are rift-clt-complete.c's.  The client's
 * tracepoints are created here, in the lowest file that fires one.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"
/* rift-core's, shared with the server; the client's own are created here. */
#include "rift_trace.h"

#define CREATE_TRACE_POINTS
#include "rift_clt_trace.h"

/* The period of a path's progress tick (rift_clt_path_stall_work()). */
unsigned long rift_clt_stall_tick(u32 timeout_ms)
{
	return msecs_to_jiffies(min(RIFT_CLT_STALL_TICK_MS, timeout_ms / 4));
}

/*
 * A path whose control connection answers heartbeats may still carry IO
 * on a connection that stopped making progress: rxe, for one, can wedge a
 * QP after a retransmission without reporting a completion.  Every
 * connection with requests in flight (for connection 0: a heartbeat or a
 * credit request unanswered) that received nothing since the
 * tick before gets one probe (a heartbeat of its own), so a slow ULP on
 * the server (the probe is answered, which is progress) is told apart from
 * a dead QP (it is not); once nothing, the probe's answer included, has
 * arrived for stall_timeout_ms and the probe has been out for half of it
 * at least, the path is failed, so that its teardown flushes the QP and
 * the requests fail over.  A connection that moves costs nothing: no probe
 * goes to it.
 * Poll connections are watched too: a wedged one would otherwise hold its
 * requests for good (their timeout fences never complete either).  Only
 * one that looks stalled is polled here, before it is judged, so that a
 * response or the probe's answer waiting in its CQ counts as progress and
 * polled IO that moves is left to its poller.
 * Return: true if the path was failed.
 */
static bool rift_clt_path_check_progress(struct rift_clt_path *path,
					 unsigned long now, unsigned long prev)
{
	u32 tmo = READ_ONCE(path->sess->stall_timeout_ms);
	struct rift_imm imm = { .type = RIFT_IMM_HB };
	struct rift_clt_con *con;
	u32 silent_ms, probe_ms;
	int inflight, n;
	u16 i;

	for (i = 0; i < path->nr_cons; i++) {
		con = &path->cons[i];
		inflight = atomic_read(&con->inflight);
		/*
		 * Connection 0 carries no requests (unless it is the only
		 * one), but a heartbeat's and a credit request's answers
		 * come back on it.  rxe wedges it as well: the server's
		 * credit grants post REG_MRs there.  Unwatched, a wedged
		 * control connection would hold the path's credit requests,
		 * and with them its IO, for hb_missed_max heartbeats (25 s
		 * at the defaults).
		 */
		if (i == RIFT_CLT_CON_CTL)
			inflight += READ_ONCE(path->hb.outstanding) +
				    READ_ONCE(path->cr.req_out);
		if (inflight && con->c.direct_cq && !atomic_read(&con->rx_seen)) {
			/* Bounded: the CQ holds no more than this. */
			n = rift_clt_con_poll(con, con->c.cq_size);
			if (n > 0)
				this_cpu_add(path->stats->poll_tick_completions, n);
		}
		if (atomic_xchg(&con->rx_seen, 0) || !inflight) {
			con->stalled = false;
			continue;
		}
		/* Nothing arrived after the tick before this one ran. */
		if (!con->stalled) {
			con->stalled = true;
			con->stall_since = prev;
		}
		silent_ms = jiffies_to_msecs(now - con->stall_since);
		if (READ_ONCE(con->probe_out)) {
			probe_ms = jiffies_to_msecs(now - con->probe_sent);
			if (silent_ms < tmo || probe_ms < tmo / 2) {
				trace_rift_clt_stall(path->sess->name, path->base.name, i,
						     silent_ms, inflight, "probe out");
				continue;
			}
			trace_rift_clt_stall(path->sess->name, path->base.name, i,
					     silent_ms, inflight, "no progress");
			this_cpu_inc(path->stats->stalls);
			if (atomic_read(&con->inflight))
				rift_clt_path_fail(path,
						   "connection %u: no progress for %u ms with %d requests in flight",
						   i, silent_ms, inflight);
			else
				rift_clt_path_fail(path,
						   "connection %u: no answer for %u ms to a heartbeat or credit request",
						   i, silent_ms);
			return true;
		}
		con->probe_sent = now;
		WRITE_ONCE(con->probe_out, true);
		trace_rift_clt_stall(path->sess->name, path->base.name, i, silent_ms,
				     inflight, "probe sent");
		this_cpu_inc(path->stats->stall_probes);
		rcu_read_lock();
		if (rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED &&
		    rift_clt_send_imm(con, &imm)) {
			rcu_read_unlock();
			rift_clt_path_fail(path, "cannot send a heartbeat probe");
			return true;
		}
		rcu_read_unlock();
	}
	return false;
}

/*
 * The progress tick: a tick of its own rather than the heartbeat's, so
 * that a wedged connection costs stall_timeout_ms plus a tick whatever
 * hb_interval_ms is (5 s by default, up to a minute).  Cheap on a path
 * that moves: a few atomics per connection.
 */
void rift_clt_path_stall_work(struct work_struct *work)
{
	struct rift_clt_path *path = container_of(to_delayed_work(work),
						  struct rift_clt_path, stall_work);
	unsigned long now = jiffies, prev = path->stall_last;

	if (rift_clt_path_get_state(path) != RIFT_CLT_PATH_CONNECTED)
		return;
	path->stall_last = now;
	if (rift_clt_path_check_progress(path, now, prev))
		return;
	queue_delayed_work(path->sess->wq, &path->stall_work,
			   rift_clt_stall_tick(READ_ONCE(path->sess->stall_timeout_ms)));
}

/*
 * The peer may vanish without a QP error (rxe retries forever with
 * retry_count 7, a cable may go quiet): traffic, or the lack of it,
 * decides.  Send a heartbeat on an idle tick; fail the path after
 * hb_missed_max ticks in a row without anything received.
 */
void rift_clt_path_hb_work(struct work_struct *work)
{
	struct rift_clt_path *path = container_of(to_delayed_work(work),
						  struct rift_clt_path, hb_work);
	struct rift_imm imm = { .type = RIFT_IMM_HB };
	unsigned long due, delay;
	bool silent;
	u32 late;

	if (rift_clt_path_get_state(path) != RIFT_CLT_PATH_CONNECTED)
		return;
	late = rift_hb_late_ms(READ_ONCE(path->hb.due));
	WRITE_ONCE(path->hb_last, jiffies);
	rift_clt_path_poll_tick(path);
	path->hb.interval_ms = READ_ONCE(path->sess->hb_interval_ms);
	path->hb.missed_max = READ_ONCE(path->sess->hb_missed_max);
	silent = rift_hb_tick(&path->hb);
	trace_rift_hb_tick("client", path->sess->name, path->base.name,
			   path->hb.missed, late);
	if (silent) {
		rift_clt_path_fail(path, "heartbeat: nothing received for %u ms",
				   path->hb.missed * path->hb.interval_ms);
		return;
	}
	rift_clt_path_scan_timeouts(path);
	/*
	 * Sent on busy ticks too, so that rtt_us (min-latency) stays fresh.
	 */
	if (rift_hb_send(&path->hb, true, &imm.seq)) {
		rcu_read_lock();
		if (rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED &&
		    rift_clt_send_imm(&path->cons[RIFT_CLT_CON_CTL], &imm))
			rift_clt_path_fail(path, "cannot send heartbeat");
		rcu_read_unlock();
	}
	due = READ_ONCE(path->hb.due);
	delay = rift_hb_next(&due, path->hb.interval_ms);
	WRITE_ONCE(path->hb.due, due);
	queue_delayed_work(path->sess->wq, &path->hb_work, delay);
}

/**
 * rift_clt_sess_hb_rearm() - apply a new heartbeat interval at once
 * @sess: session
 */
void rift_clt_sess_hb_rearm(struct rift_clt_sess *sess)
{
	unsigned long ivl = msecs_to_jiffies(READ_ONCE(sess->hb_interval_ms));
	struct rift_clt_path *path;
	unsigned long due, now;

	mutex_lock(&sess->lock);
	list_for_each_entry(path, &sess->paths, entry) {
		if (rift_clt_path_get_state(path) != RIFT_CLT_PATH_CONNECTED)
			continue;
		/*
		 * A shorter interval counts from the last tick; the pending
		 * one is only ever brought forward, so that writing the file
		 * again and again cannot hold the ticks off.  A longer one
		 * applies from the next tick on.
		 */
		due = READ_ONCE(path->hb_last) + ivl;
		if (!time_before(due, READ_ONCE(path->hb.due)))
			continue;
		WRITE_ONCE(path->hb.due, due);
		now = jiffies;
		mod_delayed_work(sess->wq, &path->hb_work,
				 time_after(due, now) ? due - now : 0);
	}
	mutex_unlock(&sess->lock);
}

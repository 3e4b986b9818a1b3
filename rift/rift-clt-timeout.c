// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: timeouts.  The heartbeat tick scans a path for requests
 * in flight longer than io_timeout_ms (and posts a batch its ULP forgot
 * to commit); each is fenced (and with CANCEL, cancelled) before it fails,
 * and its chunk stays an orphan (rift-clt-chunk.c), its permit held back,
 * until the server's late answer arrives or the path closes.  Called by the heartbeat tick,
 * the INFO exchange and a path's teardown; calls down into submission,
 * completions (the send CQE) and request slots.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"

/*
 * A request in flight for io_timeout_ms fails with -ETIMEDOUT, but only
 * once nothing can touch its pages: a WR posted behind it on the same
 * connection completes only after the request's own WRs (RC completes in
 * order), and for a read that WR is the local invalidation of its MR, so
 * a late RDMA WRITE from the server fails on the wire instead of landing
 * in pages the ULP has reused.  With the CANCEL feature the server is
 * asked first not to send the data at all, which keeps the connection up.
 * The server's chunk is still busy until it answers: the chunk stays
 * taken (an orphan) and the permit held back until the late response
 * arrives or the path closes.
 * Called with the RCU read lock held and the path connected.
 */
static void rift_clt_req_timeout(struct rift_clt_path *path,
				 struct rift_clt_req *req)
{
	struct rift_imm imm = { .type = RIFT_IMM_CANCEL };
	struct ib_send_wr cancel = {}, *first;
	struct ib_rdma_wr fence = {};
	struct ib_send_wr inv = {};
	struct rift_clt_con *con;

	/*
	 * The chunk cannot be orphaned already: an orphan keeps its chunk
	 * taken, so no request could be in flight on it.  Answered
	 * meanwhile: nothing to do.
	 */
	if (!rift_clt_chunk_orphan(path, req))
		return;
	/* Stable until the fence below lets the request end. */
	imm.chunk = req->chunk;
	/* Names this request, not whichever holds the chunk later. */
	imm.gen = READ_ONCE(path->cancel_gen) ? READ_ONCE(req->gen) : 0;
	con = req->con;
	this_cpu_inc(path->stats->timeouts);
	if (req->mr) {
		inv.opcode = IB_WR_LOCAL_INV;
		inv.ex.invalidate_rkey = req->mr->rkey;
		inv.wr_cqe = &req->inv_cqe;
		inv.send_flags = IB_SEND_SIGNALED;
		first = &inv;
	} else {
		/* Zero bytes: no address or rkey is checked (IBTA C9-88). */
		fence.wr.opcode = IB_WR_RDMA_WRITE;
		fence.wr.wr_cqe = &req->inv_cqe;
		fence.wr.send_flags = IB_SEND_SIGNALED;
		first = &fence.wr;
	}
	if (READ_ONCE(path->can_cancel) && !rift_imm_encode(&imm, &cancel.ex.imm_data)) {
		cancel.opcode = IB_WR_SEND_WITH_IMM;
		cancel.wr_cqe = &rift_clt_io_cqe;
		cancel.next = first;
		first = &cancel;
	}
	rift_con_signal_n(&con->c, first == &cancel ? 2 : 1);
	if (ib_post_send(con->c.qp, first, NULL))
		rift_clt_path_fail(path, "cannot fence a timed-out request");
}

/**
 * rift_clt_path_scan_timeouts() - time out what a path has held too long
 * @path: connected path, from its heartbeat tick
 *
 * A per-request timeout never fails the path itself: a slow server that
 * answers heartbeats keeps its path; only heartbeats and verbs errors
 * declare a path failed.  io_timeout_ms 0 turns the timeout off for
 * requests in flight (it still fails at once those that find no path).
 */
void rift_clt_path_scan_timeouts(struct rift_clt_path *path)
{
	struct rift_clt_sess *sess = path->sess;
	/* Pairs with the release in rift_clt_reqs_init(). */
	struct rift_clt_req *reqs = smp_load_acquire(&sess->reqs);
	u32 tmo = READ_ONCE(sess->io_timeout_ms);
	unsigned long now = jiffies;
	u32 i;

	/* A batch its ULP forgot to commit goes out a tick late, not never. */
	if (atomic_read(&sess->nr_batched)) {
		rcu_read_lock();
		if (rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED)
			rift_clt_path_commit(path);
		rcu_read_unlock();
	}
	if (!tmo || !reqs || !atomic_read(&path->base.inflight))
		return;
	rcu_read_lock();
	if (rift_clt_path_get_state(path) != RIFT_CLT_PATH_CONNECTED)
		goto out;
	for (i = 0; i < sess->queue_depth; i++) {
		struct rift_clt_req *req = &reqs[i];

		if (atomic_read(&req->state) == RIFT_CLT_REQ_POSTED &&
		    READ_ONCE(req->path) == path &&
		    time_after(now, READ_ONCE(req->start) + msecs_to_jiffies(tmo)))
			rift_clt_req_timeout(path, req);
	}
out:
	rcu_read_unlock();
}

/**
 * rift_clt_path_release_orphans() - the server can no longer answer them
 * @path: path whose connections are all closed
 *
 * The chunks go back to the path and the permits of their timed-out
 * requests to the session.
 */
void rift_clt_path_release_orphans(struct rift_clt_path *path)
{
	struct rift_clt_req *req;
	unsigned long i;

	if (!path->orphans)
		return;
	for_each_set_bit(i, path->orphans, path->chunks_cap) {
		req = rift_clt_chunk_release_orphan(path, i);
		if (req)
			rift_clt_hold_put(path->sess, req);
	}
}

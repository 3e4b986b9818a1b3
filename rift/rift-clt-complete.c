// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: completions.  What the CQs of a path's connections report:
 * the send completion every request WR shares (its failure fails the
 * path), every receive (INFO_RSP, responses with or without a new chunk
 * rkey, heartbeats and their answers, a server's heartbeat flood, memory
 * credits), and
 * the reaping of poll connections, by the ULP (rift_clt_poll()) or by the
 * heartbeat and progress ticks when no one polls.  A response completes
 * its request here; ending it is rift-clt-req.c's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"

/*
 * A read's pages may be handed back only once the server can no longer
 * write them: invalidate the MR first, complete in rift_clt_inv_done().
 * A request whose memory the device may still read (rift_clt_req_tx_wait())
 * is handed back only once its last WR has completed: if that has not
 * happened yet, it waits in SENDING for rift_clt_req_tx_done().
 *
 * Return: false if @req was not POSTED (a timeout or an earlier response
 * claimed it), so this response is not its answer; true otherwise.
 */
static bool rift_clt_req_complete(struct rift_clt_req *req, int err)
{
	struct rift_clt_path *path = req->path;
	struct ib_send_wr inv = {};

	if (req->mr) {
		if (atomic_cmpxchg(&req->state, RIFT_CLT_REQ_POSTED,
				   RIFT_CLT_REQ_INVALIDATING) != RIFT_CLT_REQ_POSTED)
			return false;
		req->result = err;
		inv.opcode = IB_WR_LOCAL_INV;
		inv.wr_cqe = &req->inv_cqe;
		inv.send_flags = IB_SEND_SIGNALED;
		inv.ex.invalidate_rkey = req->mr->rkey;
		if (ib_post_send(req->con->c.qp, &inv, NULL) == 0)
			return true;
		/* The QP is dying; its close path completes the request. */
		rift_clt_path_fail(req->path, "cannot post local invalidate");
		return true;
	}
	if (rift_clt_req_tx_wait(req)) {
		/* Read only by whoever ends it from SENDING, which the claim publishes. */
		req->result = err;
		if (atomic_cmpxchg(&req->state, RIFT_CLT_REQ_POSTED,
				   RIFT_CLT_REQ_SENDING) != RIFT_CLT_REQ_POSTED)
			return false;
		/*
		 * The claim is a full barrier, as is rift_clt_req_tx_done()'s
		 * store: one of the two sees the other's and ends the request.
		 */
		if (atomic_read(&req->tx_out)) {
			this_cpu_inc(path->stats->sends_awaited);
			return true;
		}
		if (atomic_cmpxchg(&req->state, RIFT_CLT_REQ_SENDING,
				   RIFT_CLT_REQ_IDLE) == RIFT_CLT_REQ_SENDING)
			rift_clt_req_end_answered(req);
		return true;
	}
	if (atomic_cmpxchg(&req->state, RIFT_CLT_REQ_POSTED,
			   RIFT_CLT_REQ_IDLE) != RIFT_CLT_REQ_POSTED)
		return false;
	req->result = err;
	rift_clt_req_end_answered(req);
	return true;
}

static void rift_clt_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	/*
	 * Flushes too: a QP in error while the path looks connected must
	 * fail the path, or its requests would wait forever.  Failing is
	 * idempotent and ignored during teardown.
	 */
	if (unlikely(wc->status != IB_WC_SUCCESS))
		rift_clt_path_fail(rift_clt_wc_con(wc)->path, "%s",
				   ib_wc_status_msg(wc->status));
}

/*
 * All request WRs but the local invalidate and a waited-for last WR
 * (rift_clt_req_tx_wait()) share this CQE: their success needs no action
 * (the server's response completes the request), their failure fails the
 * path.
 */
struct ib_cqe rift_clt_io_cqe = {
	.done = rift_clt_tx_done,
};

/**
 * rift_clt_send_imm() - send an immediate-only message (heartbeats)
 * @con: connection
 * @imm: message
 *
 * Return: 0 or a negative errno.
 */
int rift_clt_send_imm(struct rift_clt_con *con, const struct rift_imm *imm)
{
	return rift_con_send_imm(&con->c, &rift_clt_io_cqe, imm);
}

/*
 * always-invalidate: the chunk's new rkey, which an RSP_RKEY brings, lands
 * only once the response is known to answer the chunk's request (or its
 * orphan's timed-out one), and before that request completes or the
 * orphan is given back: the next request may take the chunk right after.
 */
static void rift_clt_rkey_store(struct rift_clt_path *path, u32 chunk, u32 rkey)
{
	rift_clt_dbg_rkey_rotated(path, chunk);
	WRITE_ONCE(path->chunks[chunk].rkey, rkey);
	this_cpu_inc(path->stats->rkey_updates);
}

/*
 * A response names a chunk of the path it came on; the chunk says which
 * request it answers.  Every id is checked: one beyond the chunks the
 * path may use, one no request holds, one whose request is not in flight
 * on this connection (or was answered already) fail the path, unless
 * the chunk is an orphan and this is the timed-out request's late answer,
 * on the connection that request went on.  With RSP_GEN the generation
 * it echoes must be that request's too: a duplicate that finds the next
 * request on the chunk, on the same connection, must not complete it
 * before its own answer, nor give an orphan back before its late RDMA.
 * @rkey is an RSP_RKEY's new key (NULL for an RSP): it lands only after
 * all of that, as the path fails otherwise.
 */
static void rift_clt_rsp(struct rift_clt_con *con, const struct rift_imm *imm,
			 const u32 *rkey)
{
	struct rift_clt_path *path = con->path;
	struct rift_clt_req *req;
	unsigned long flags;
	u16 gen;
	int err;

	/* With memory credits: one granted and not given back. */
	if (imm->chunk >= rift_clt_nr_usable(path) ||
	    !rift_clt_chunk_granted(path, imm->chunk)) {
		rift_clt_path_fail(path, "response names an unknown chunk");
		return;
	}
	req = rift_clt_chunk_req(path, imm->chunk);
	/*
	 * Its batch may be being posted right now, and its response may
	 * come before the poster marks it POSTED: wait for the poster.  One
	 * QUEUED after that was never sent, and the claim below fails.
	 */
	if (req && atomic_read(&req->state) == RIFT_CLT_REQ_QUEUED &&
	    READ_ONCE(req->con) == con) {
		spin_lock_irqsave(&con->batch_lock, flags);
		spin_unlock_irqrestore(&con->batch_lock, flags);
	}
	if (req && READ_ONCE(req->con) == con &&
	    atomic_read_acquire(&req->state) == RIFT_CLT_REQ_POSTED) {
		/*
		 * Checked before the claim: a response that answers another
		 * request must leave this one POSTED, for the path's failure
		 * to send it again elsewhere.  Seen POSTED, it stays the same
		 * posting until claimed: its answer (this CQ), its timeout
		 * (an orphan then, with the same generation) or the path's
		 * failure ends it, and nothing is posted here after that.
		 * Posted on another chunk, the request left this one since
		 * it was looked up: the response is not its answer.
		 */
		if (READ_ONCE(req->chunk) == imm->chunk) {
			/*
			 * RSP_GEN: its answer echoes the low bits of its
			 * generation, the chunk's last, read once the request
			 * was seen POSTED (acquire: the chunk's holder bumped
			 * it before it posted).  Another echo answers an
			 * earlier request on the chunk: a duplicate, or an
			 * answer sent again.
			 */
			gen = READ_ONCE(path->chunk_gens[imm->chunk]);
			if (!rift_proto_rsp_gen_match(imm, rift_clt_rsp_feat(path), gen))
				goto wrong_gen;
			/* Its answer: a claim lost to its timeout finds the orphan. */
			if (rkey) {
				rift_clt_rkey_store(path, imm->chunk, *rkey);
				rkey = NULL;
			}
			if (rift_clt_req_complete(req, imm->err))
				return;
		}
	}
	/*
	 * No request in flight took it: the late answer of a timed-out
	 * one, or of none.  A timeout orphans the chunk in the same step
	 * as it claims the request (rift_clt_chunk_orphan()), and the
	 * orphan is judged, by connection and generation, and given back
	 * under the same lock: a response that found the request claimed
	 * waits there for its orphan.
	 */
	err = rift_clt_chunk_unorphan(path, con, imm, &req, &gen);
	if (!err) {
		if (rkey)
			rift_clt_rkey_store(path, imm->chunk, *rkey);
		rift_clt_chunk_put(path, imm->chunk);
		this_cpu_inc(path->stats->late_responses);
		rift_clt_hold_put(path->sess, req);
		return;
	}
	if (err == -ESTALE)
		goto wrong_gen;
	rift_clt_path_fail(path, "response to no outstanding request");
	return;
wrong_gen:
	/* Which request was hit, for the next time a server does this. */
	this_cpu_inc(path->stats->stale_responses);
	rift_clt_path_fail(path,
			   "response to another request (generation): chunk %u echoes %u, expected %u",
			   imm->chunk, imm->gen,
			   rift_proto_rsp_gen_put(gen, RIFT_FEAT_RSP_GEN));
}

/*
 * always-invalidate: the server killed the chunk's key when our request
 * landed and names the new one in an RSP_RKEY's payload, decoded here
 * into @rkey.  rift_clt_rsp() stores it once it knows which request the
 * response answers (rift_clt_rkey_store()).
 */
static int rift_clt_rsp_rkey(struct rift_clt_con *con, struct rift_iu *iu,
			     struct ib_wc *wc, const struct rift_imm *imm, u32 *rkey)
{
	struct rift_clt_path *path = con->path;

	if (!READ_ONCE(path->always_inv) || wc->opcode != IB_WC_RECV ||
	    imm->chunk >= rift_clt_nr_usable(path))
		return -EPROTO;
	ib_dma_sync_single_for_cpu(con->c.dev->ib_dev, iu->dma,
				   min_t(u32, wc->byte_len, iu->size), DMA_FROM_DEVICE);
	if (rift_proto_rkey_decode(iu->buf, min_t(u32, wc->byte_len, iu->size),
				   imm->chunk, rkey))
		return -EBADMSG;
	return 0;
}

/*
 * Memory credits: a grant, the end of an answer or a revoke, only with
 * the feature, only on connection 0 and only as a SEND carrying its
 * payload; the grant's rules are rift-clt-chunk.c's.  Returns true after
 * failing the path.
 */
static bool rift_clt_credit(struct rift_clt_con *con, struct rift_iu *iu,
			    struct ib_wc *wc)
{
	struct rift_clt_path *path = con->path;
	u32 len = min_t(u32, wc->byte_len, iu->size);
	const char *why;

	if (!READ_ONCE(path->credits) || con->idx != RIFT_CLT_CON_CTL ||
	    wc->opcode != IB_WC_RECV) {
		rift_clt_path_fail(path, "malformed credit");
		return true;
	}
	ib_dma_sync_single_for_cpu(con->c.dev->ib_dev, iu->dma, len, DMA_FROM_DEVICE);
	why = rift_clt_credit_rx(path, iu->buf, len);
	if (why) {
		rift_clt_path_fail(path, "%s", why);
		return true;
	}
	return false;
}

/*
 * A server sends a heartbeat per tick of its own, at most one per
 * RIFT_HB_INTERVAL_MIN_MS: twice that rate over one of our intervals,
 * plus slack for ticks that drift apart, is as many as a well-behaved one
 * can send.  Counted in windows of an interval that start with the
 * heartbeat that finds the last one over, here rather than by our tick:
 * the tick runs only once the path is CONNECTED, and a server that starts
 * its flood right after INFO_RSP would otherwise be counted against a
 * limit no attempt had set yet.  Concurrent CQ callbacks may lose a count
 * or a window start between them: the limit is far from the edge either
 * way.
 *
 * Return: true if this heartbeat is one too many.
 */
static bool rift_clt_hb_flood(struct rift_clt_path *path)
{
	u32 ivl = READ_ONCE(path->sess->hb_interval_ms);
	unsigned long start = READ_ONCE(path->hb_rx_start);

	if (time_after_eq(jiffies, start + msecs_to_jiffies(ivl))) {
		WRITE_ONCE(path->hb_rx_start, jiffies);
		atomic_set(&path->hb_rx, 0);
	}
	return atomic_inc_return(&path->hb_rx) > 2 * (ivl / RIFT_HB_INTERVAL_MIN_MS) + 4;
}

/**
 * rift_clt_rx_done() - completion of every receive on a client connection
 * @cq: completion queue
 * @wc: work completion
 *
 * Runs in softirq context: answers are completed here, anything that
 * needs teardown is handed to the path's close work.
 */
void rift_clt_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_iu *iu = container_of(wc->wr_cqe, struct rift_iu, cqe);
	struct rift_clt_con *con = rift_clt_wc_con(wc);
	struct rift_clt_path *path = con->path;
	struct rift_imm imm;
	u32 rkey;
	int err;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (iu == con->info_rx) {
			path->info_err = -EIO;
			complete(&path->info_done);
		}
		rift_clt_path_fail(path, "%s", ib_wc_status_msg(wc->status));
		return;
	}
	if (iu == con->info_rx) {
		/* Pairs with the acquire in rift_clt_path_info(). */
		smp_store_release(&path->info_len, wc->byte_len);
		complete(&path->info_done);
		return;
	}
	if (!(wc->wc_flags & IB_WC_WITH_IMM)) {
		rift_clt_path_fail(path, "message without immediate data");
		return;
	}
	err = rift_imm_decode(wc->ex.imm_data, RIFT_MAX_QUEUE_DEPTH, &imm);
	if (err) {
		rift_clt_path_fail(path, "malformed immediate data");
		return;
	}
	/* Bits the server must not set without RSP_GEN: before any rkey lands. */
	if ((imm.type == RIFT_IMM_RSP || imm.type == RIFT_IMM_RSP_RKEY) &&
	    rift_proto_rsp_gen_check(&imm, rift_clt_rsp_feat(path))) {
		rift_clt_path_fail(path, "malformed immediate data");
		return;
	}
	/* Any traffic is a sign of life for the heartbeat. */
	rift_hb_rx(&path->hb);
	atomic_set(&con->rx_seen, 1);
	switch (imm.type) {
	case RIFT_IMM_RSP:
		/* The chunk's old key is dead on the server: we need the new one. */
		if (READ_ONCE(path->always_inv)) {
			rift_clt_path_fail(path, "response without the chunk's new rkey");
			return;
		}
		rift_clt_rsp(con, &imm, NULL);
		break;
	case RIFT_IMM_RSP_RKEY:
		/* Named before its payload is judged, as the protocol lists. */
		if (imm.chunk >= rift_clt_nr_usable(path) ||
		    !rift_clt_chunk_granted(path, imm.chunk)) {
			rift_clt_path_fail(path, "response names an unknown chunk");
			return;
		}
		if (rift_clt_rsp_rkey(con, iu, wc, &imm, &rkey)) {
			rift_clt_path_fail(path, "malformed rkey response");
			return;
		}
		rift_clt_rsp(con, &imm, &rkey);
		break;
	case RIFT_IMM_HB:
		/* Answering a flood would only keep our send queue full. */
		if (rift_clt_hb_flood(path)) {
			rift_clt_path_abort(path, "heartbeat flood from the server");
			return;
		}
		imm.type = RIFT_IMM_HB_ACK;
		if (rift_clt_send_imm(con, &imm))
			rift_clt_path_fail(path, "cannot answer heartbeat");
		break;
	case RIFT_IMM_HB_ACK:
		/* Connection 0's probes too (rift_clt_path_check_progress()). */
		WRITE_ONCE(con->probe_out, false);
		if (con->idx == RIFT_CLT_CON_CTL)
			rift_hb_ack(&path->hb, imm.seq);
		break;
	case RIFT_IMM_CREDIT:
		if (rift_clt_credit(con, iu, wc))
			return;
		break;
	default:
		rift_clt_path_fail(path, "unexpected message type");
		return;
	}
	err = rift_post_recv(&con->c, iu);
	if (err)
		rift_clt_path_fail(path, "cannot repost receive");
}

/**
 * rift_clt_con_poll() - reap what a poll connection's CQ holds
 * @con: poll connection
 * @budget: completions to reap at most
 *
 * The completion handlers run in the caller's context, under the
 * connection's poll lock.  A caller that finds another one polling
 * returns at once: those completions are being reaped anyway.  Process
 * context only (the teardown takes the lock with a wait).
 *
 * Return: completions reaped.
 */
int rift_clt_con_poll(struct rift_clt_con *con, int budget)
{
	int n = 0;

	/*
	 * Not with bottom halves off: blk-mq completes polled requests in
	 * task context, and bio_put() recycles their cached bios only there.
	 */
	if (!spin_trylock(&con->poll_lock))
		return 0;
	if (con->poll_ok)
		n = ib_process_cq_direct(con->c.cq, budget);
	spin_unlock(&con->poll_lock);
	return n;
}

/**
 * rift_clt_poll() - reap the completions of a poll connection
 * @sess: session opened with nr_poll_cons
 * @idx: poll connection, below rift_clt_attrs.nr_poll_cons
 *
 * Polls poll connection @idx of every connected path, a few completions
 * each, and runs their handlers, and so the done callbacks of requests
 * sent with rift_permit_set_poll(permit, @idx), from here.  Safe to call
 * from several threads at once: one polls a given connection at a time,
 * the others skip it.  Requests failed over, timed out or in flight on a
 * path that fails complete as without polling (the path's teardown and
 * heartbeat tick reap what no one polls).  Process context only, e.g.
 * blk-mq's ->poll; the done callbacks run with preemption disabled.
 *
 * Return: completions reaped (responses and local work completions
 * alike, so not necessarily requests completed), or -EINVAL for an @idx
 * the session does not have.
 */
int rift_clt_poll(struct rift_clt_sess *sess, unsigned int idx)
{
	struct rift_clt_path *path;
	int n, found = 0;

	if (idx >= sess->nr_poll_cons)
		return -EINVAL;
	/*
	 * A failed path's CQ is drained by its teardown, which waits for
	 * this section before it starts (synchronize_rcu), as for posting.
	 */
	rcu_read_lock();
	list_for_each_entry_rcu(path, &sess->paths, entry) {
		if (READ_ONCE(path->state) != RIFT_CLT_PATH_CONNECTED)
			continue;
		n = rift_clt_con_poll(rift_clt_poll_con(path, idx), RIFT_CLT_POLL_BUDGET);
		if (n > 0) {
			this_cpu_add(path->stats->poll_completions, n);
			found += n;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(rift_clt_poll);

/**
 * rift_clt_path_poll_tick() - reap the poll connections no one polled
 * @path: connected path, from its heartbeat tick
 *
 * Nothing but a poller reaps a poll connection's CQ: a ULP that stopped
 * polling (its waiter gave up, or nothing of its own is in flight) would
 * strand the fence completions of timed-out requests, late responses and
 * responses to requests failed over from another path.  The heartbeat
 * tick reaps whatever is there, so none is more than a tick late.  (The
 * progress tick polls a poll connection itself before it judges it
 * stalled.)
 */
void rift_clt_path_poll_tick(struct rift_clt_path *path)
{
	struct rift_clt_con *con;
	u16 i;
	int n;

	for (i = 0; i < path->nr_poll_cons; i++) {
		con = rift_clt_poll_con(path, i);
		/* Bounded: the CQ holds no more than this. */
		n = rift_clt_con_poll(con, con->c.cq_size);
		if (n > 0)
			this_cpu_add(path->stats->poll_tick_completions, n);
	}
}

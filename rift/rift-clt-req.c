// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: request slots and permits.  A permit is a ULP's claim on
 * one slot: taken and given back here, with the slots' allocation.  (The
 * server chunk a request uses is a chunk of the path it is posted on,
 * rift-clt-chunk.c's.)  What a request gives back once it leaves a path
 * (its chunk, MR, mappings and counts) and how it ends (the
 * ULP's done callback, after a read's MR invalidation if it has one) are
 * here too, so that submission, completions, timeouts and failover, which
 * all end requests, call down into this file and never into each other.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "rift-clt.h"

/* Give a permit back to the pool and wake a waiter. */
static void rift_clt_permit_release(struct rift_clt_sess *sess, u32 id)
{
	clear_bit_unlock(id, sess->permit_map);
	/* Pairs with the barrier in wait_event()'s prepare_to_wait(). */
	smp_mb__after_atomic();
	if (wq_has_sleeper(&sess->permit_wait))
		wake_up(&sess->permit_wait);
}

/* Drop one hold on a request slot's permit, see rift_clt_req.holds. */
void rift_clt_hold_put(struct rift_clt_sess *sess, struct rift_clt_req *req)
{
	if (atomic_dec_and_test(&req->holds))
		rift_clt_permit_release(sess, req->permit_id);
}

static void rift_clt_req_unmap(struct rift_clt_req *req)
{
	struct ib_device *ib_dev = req->con->c.dev->ib_dev;

	if (req->nents)
		ib_dma_unmap_sg(ib_dev, req->sg, req->sg_cnt,
				req->dir == RIFT_READ ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	req->nents = 0;
	if (req->hdr_dma)
		ib_dma_unmap_single(ib_dev, req->hdr_dma, RIFT_CLT_HDR_BUF,
				    DMA_TO_DEVICE);
	req->hdr_dma = 0;
}

/* Give back what posting on a path took: chunk, MR, DMA mappings, counts. */
void rift_clt_req_release(struct rift_clt_req *req)
{
	if (req->chunk != RIFT_CLT_NO_CHUNK) {
		/*
		 * A timed-out request's chunk stays with its path's orphans: the
		 * server may still write it and answer the old request.
		 */
		if (!req->orphaned)
			rift_clt_chunk_put(req->path, req->chunk);
		/* Read by the responses of its old chunk (rift_clt_rsp()). */
		WRITE_ONCE(req->chunk, RIFT_CLT_NO_CHUNK);
	}
	if (req->mr) {
		ib_mr_pool_put(req->con->c.qp,
			       &req->con->c.qp->rdma_mrs, req->mr);
		req->mr = NULL;
	}
	/* The device may still read what is unmapped here: see rift_clt_req_tx_wait(). */
	WARN_ON_ONCE(atomic_read(&req->tx_out));
	rift_clt_req_unmap(req);
	atomic_dec(&req->con->inflight);
	atomic_dec(&req->path->base.inflight);
	/*
	 * A connection's teardown picks its requests by ->con: a slot that
	 * left it must not match, or a teardown could claim it once it is
	 * posted again elsewhere.
	 */
	WRITE_ONCE(req->con, NULL);
}

void rift_clt_req_end(struct rift_clt_req *req, int err)
{
	struct rift_clt_path *path = req->path;

	rift_clt_req_release(req);
	if (err)
		this_cpu_inc(path->stats->base.errors);
	req->ops.done(req->ops.priv, err);
}

/**
 * rift_clt_req_end_answered() - end a request the server answered
 * @req: request claimed from SENDING or INVALIDATING, or from POSTED by
 *	its answer; @req->result holds the answer's errno
 *
 * A bounced read's data is copied out of the staging slot first: the
 * server wrote it before it answered (RC order), and the slot is the
 * request's until it ends.
 */
void rift_clt_req_end_answered(struct rift_clt_req *req)
{
	if (req->bounced && !req->result)
		rift_clt_bounce_copy(req);
	rift_clt_req_end(req, req->result);
}

/*
 * The request's last WR completed, so the device reads nothing of it any
 * more (an RC QP completes its send queue in order): a request whose
 * answer came first ends now.  A failure fails the path, as that of any
 * request WR does; the WR is over all the same, and an answer that came
 * stands.  This completion always comes before the request can move on
 * otherwise: a timeout's fence and a teardown's drain complete behind it.
 */
static void rift_clt_req_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_clt_req *req = container_of(wc->wr_cqe, struct rift_clt_req,
						tx_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS))
		rift_clt_path_fail(rift_clt_wc_con(wc)->path, "%s",
				   ib_wc_status_msg(wc->status));
	/*
	 * A full barrier, as is the answer's claim in rift_clt_req_complete():
	 * of the two, one sees the other's store and ends the request.
	 */
	atomic_xchg(&req->tx_out, 0);
	if (atomic_cmpxchg(&req->state, RIFT_CLT_REQ_SENDING,
			   RIFT_CLT_REQ_IDLE) == RIFT_CLT_REQ_SENDING)
		rift_clt_req_end_answered(req);
}

static void rift_clt_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_clt_req *req = container_of(wc->wr_cqe, struct rift_clt_req,
						inv_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		/*
		 * The connection's close path completes the request.  The path
		 * is the completion's: a flush seen late, after the request
		 * moved on, must not fail the path it moved to.
		 */
		rift_clt_path_fail(rift_clt_wc_con(wc)->path, "local invalidate failed");
		return;
	}
	if (atomic_cmpxchg(&req->state, RIFT_CLT_REQ_INVALIDATING,
			   RIFT_CLT_REQ_IDLE) == RIFT_CLT_REQ_INVALIDATING) {
		rift_clt_req_end(req, req->result);
		return;
	}
	/* A timed-out request's fence: nothing can touch its pages now. */
	if (atomic_cmpxchg(&req->state, RIFT_CLT_REQ_CANCELLING,
			   RIFT_CLT_REQ_IDLE) == RIFT_CLT_REQ_CANCELLING)
		rift_clt_req_end(req, -ETIMEDOUT);
}

static struct rift_permit *rift_clt_permit(struct rift_clt_sess *sess, u32 id)
{
	return sess->permits + id * sess->permit_size;
}

/**
 * rift_clt_reqs_init() - allocate permits and requests for the queue depth
 * @sess: session whose queue depth is known
 *
 * Return: 0 or -ENOMEM.
 */
int rift_clt_reqs_init(struct rift_clt_sess *sess)
{
	struct rift_clt_req *reqs;
	u32 i;

	sess->permit_size = ALIGN(sizeof(struct rift_permit) + sess->pdu_size, 8);
	sess->permits = kcalloc(sess->queue_depth, sess->permit_size, GFP_KERNEL);
	sess->permit_map = bitmap_zalloc(sess->queue_depth, GFP_KERNEL);
	reqs = kcalloc(sess->queue_depth, sizeof(*reqs), GFP_KERNEL);
	if (!sess->permits || !sess->permit_map || !reqs)
		goto err;
	for (i = 0; i < sess->queue_depth; i++) {
		struct rift_clt_req *req = &reqs[i];

		rift_clt_permit(sess, i)->id = i;
		req->permit_id = i;
		req->chunk = RIFT_CLT_NO_CHUNK;
		req->sess = sess;
		INIT_LIST_HEAD(&req->pending);
		req->inv_cqe.done = rift_clt_inv_done;
		req->tx_cqe.done = rift_clt_req_tx_done;
		atomic_set(&req->state, RIFT_CLT_REQ_IDLE);
		req->hdr = kzalloc(RIFT_CLT_HDR_BUF, GFP_KERNEL);
		req->sges = kcalloc(RIFT_CLT_NR_SGES, sizeof(*req->sges), GFP_KERNEL);
		req->wrs = kcalloc(RIFT_IO_MAX_SEGS, sizeof(*req->wrs), GFP_KERNEL);
		if (!req->hdr || !req->sges || !req->wrs)
			goto err_reqs;
	}
	/* Completions may look at the slots as soon as they are published. */
	smp_store_release(&sess->reqs, reqs);
	return 0;

err_reqs:
	for (i = 0; i < sess->queue_depth; i++) {
		kfree(reqs[i].hdr);
		kfree(reqs[i].sges);
		kfree(reqs[i].wrs);
	}
err:
	kfree(reqs);
	rift_clt_reqs_free(sess);
	return -ENOMEM;
}

/**
 * rift_clt_reqs_free() - free what rift_clt_reqs_init() allocated
 * @sess: session; safe to call twice
 */
void rift_clt_reqs_free(struct rift_clt_sess *sess)
{
	u32 i;

	if (sess->reqs) {
		for (i = 0; i < sess->queue_depth; i++) {
			kfree(sess->reqs[i].hdr);
			kfree(sess->reqs[i].sges);
			kfree(sess->reqs[i].wrs);
		}
	}
	kfree(sess->reqs);
	sess->reqs = NULL;
	bitmap_free(sess->permit_map);
	sess->permit_map = NULL;
	kfree(sess->permits);
	sess->permits = NULL;
}

static struct rift_permit *rift_clt_try_get_permit(struct rift_clt_sess *sess)
{
	u32 id;

	do {
		id = find_first_zero_bit(sess->permit_map, sess->queue_depth);
		if (id >= sess->queue_depth)
			return NULL;
	} while (test_and_set_bit_lock(id, sess->permit_map));
	atomic_set(&sess->reqs[id].holds, 1);
	return rift_clt_permit(sess, id);
}

/**
 * rift_clt_get_permit() - reserve a request slot
 * @sess: session
 * @wait: whether to sleep until one is free
 *
 * Return: a permit, or NULL if none is free and @wait is RIFT_PERMIT_NOWAIT.
 */
struct rift_permit *rift_clt_get_permit(struct rift_clt_sess *sess,
					enum rift_wait wait)
{
	struct rift_permit *permit;

	permit = rift_clt_try_get_permit(sess);
	if (permit || wait == RIFT_PERMIT_NOWAIT)
		goto out;
	wait_event(sess->permit_wait,
		   (permit = rift_clt_try_get_permit(sess)) != NULL);
out:
	if (permit) {
		permit->cpu = raw_smp_processor_id();
		permit->poll = 0;
	}
	return permit;
}
EXPORT_SYMBOL_GPL(rift_clt_get_permit);

/**
 * rift_clt_put_permit() - release a permit taken by rift_clt_get_permit()
 * @sess: session
 * @permit: permit; its request must have completed
 */
void rift_clt_put_permit(struct rift_clt_sess *sess, struct rift_permit *permit)
{
	rift_clt_hold_put(sess, &sess->reqs[permit->id]);
}
EXPORT_SYMBOL_GPL(rift_clt_put_permit);

/**
 * rift_permit_set_poll() - send the permit's request on a poll connection
 * @permit: permit, from rift_clt_get_permit() (which clears the mark)
 * @idx: poll connection, below rift_clt_attrs.nr_poll_cons
 *
 * The request goes on poll connection @idx of whichever path carries it,
 * also after a failover, and its completion runs from rift_clt_poll() on
 * @idx (or, when no one polls, from the path's heartbeat tick at the
 * latest).  rift_clt_request() refuses an @idx the session does not have.
 */
void rift_permit_set_poll(struct rift_permit *permit, unsigned int idx)
{
	permit->poll = min_t(unsigned int, idx, U16_MAX - 1) + 1;
}
EXPORT_SYMBOL_GPL(rift_permit_set_poll);

/**
 * rift_clt_sess_pinned_bytes() - memory the session keeps allocated
 * @sess: session
 *
 * Request slots (headers, WR and SGE arrays) plus every connection's
 * receive buffers: what a server operator multiplies by the number of
 * sessions.
 *
 * Return: bytes.
 */
u64 rift_clt_sess_pinned_bytes(struct rift_clt_sess *sess)
{
	struct rift_clt_path *path;
	u64 bytes;
	int i;

	bytes = (u64)sess->queue_depth *
		(sizeof(struct rift_clt_req) + sess->permit_size + RIFT_CLT_HDR_BUF +
		 RIFT_IO_MAX_SEGS * (sizeof(struct ib_sge) + sizeof(struct ib_rdma_wr)));
	mutex_lock(&sess->lock);
	list_for_each_entry(path, &sess->paths, entry) {
		for (i = 0; i < path->nr_cons; i++) {
			struct rift_clt_con *con = &path->cons[i];

			if (!READ_ONCE(con->c.cm_id))
				continue;
			bytes += (u64)READ_ONCE(con->c.nr_rx) * RIFT_MSG_BUF_SIZE;
			/* Only the pointer is looked at: it may be freed any time. */
			if (READ_ONCE(con->info_rx))
				bytes += RIFT_INFO_MAX_LEN;
		}
	}
	mutex_unlock(&sess->lock);
	return bytes;
}

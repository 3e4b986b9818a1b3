// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: the IO path.  Requests arrive as RDMA WRITE WITH IMM into
 * a chunk (with REMOTE_INV a write's immediate comes in the payload of a
 * SEND WITH_INV that killed the chunk's key); they are validated, handed
 * to the ULP, and answered with an immediate-only SEND, preceded for
 * reads by RDMA WRITEs of the data into the client's segments (rdma_rw);
 * a read's answer rides on its last WRITE instead where it can
 * (rift_srv_rsp_fold()).
 *
 * Everything here runs in CQ context, a task (the RDMA core's CQ work
 * reaps a server connection's CQ, see rift_srv_con_setup()), or, for
 * rift_srv_resp() and the batch calls, in whatever context the ULP
 * answers from.  An answer given in the CQ work itself is posted once
 * that work is done, with the others of its run (rift_srv_resp_hold()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/overflow.h>
#include <rdma/rw.h>

#include "rift-srv.h"

/**
 * struct rift_srv_rd_seg - one client segment of a read response
 * @ctx: RDMA WRITE(s) into the segment
 * @sg: the part of the chunk that goes there
 */
struct rift_srv_rd_seg {
	struct rdma_rw_ctx	ctx;
	struct scatterlist	sg;
};

/**
 * struct rift_srv_rd - RDMA WRITEs of one read response, freed on completion
 * @cqe: completion of the answer's last WR (the response SEND, or the
 *	last WRITE carrying the answer), which retires the WRITEs too
 * @err_cqe: completion of a failed WRITE (they are unsignalled, so only a
 *	failure reports); the last WR's flush then frees
 * @con: connection posted on
 * @nr: initialised entries of @seg
 * @credits: send WRs taken from @con->rd_credits
 * @op: memory credits: the op whose @tx_out this answer holds, dropped
 *	once the WRITEs are complete and their mappings gone; else NULL
 * @park: on @con->rd_parked after a post that failed half way
 * @seg: one per client segment
 *
 * Allocated per response rather than per op: the op is free again as soon
 * as the response is posted (the client may reuse the chunk once it sees
 * it), while these live until the send completion is polled.
 */
struct rift_srv_rd {
	struct ib_cqe		cqe;
	struct ib_cqe		err_cqe;
	struct rift_srv_con	*con;
	u32			nr;
	u32			credits;
	struct rift_srv_op	*op;
	struct llist_node	park;
	struct rift_srv_rd_seg	seg[];
};

/*
 * Memory credits: an answer that read the chunk or named its MR is
 * complete on the device (its signalled send completed, so every WR
 * before it on the QP did, and a read's rdma_rw contexts are destroyed,
 * their DMA mappings gone).  The last one of a chunk given back lets
 * the pool reclaim it: the full barrier of the decrement orders it
 * before the look at cr_reclaim, which pairs with the one in
 * rift_srv_pool_reclaim() between its look at the bit and at @tx_out,
 * so one of the two sides sees the other.
 */
static void rift_srv_op_tx_done(struct rift_srv_op *op)
{
	struct rift_srv_path *path = op->path;

	if (atomic_dec_and_test(&op->tx_out) && test_bit(op->chunk, path->cr_reclaim))
		rift_srv_pool_kick(path);
}

/* Completion of an always-invalidate answer without read data (credits). */
static void rift_srv_rsp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_srv_op *op = container_of(wc->wr_cqe, struct rift_srv_op, rsp_cqe);

	if (wc->status != IB_WC_SUCCESS)
		rift_srv_path_fail(op->path, "send failed: %s",
				   ib_wc_status_msg(wc->status));
	rift_srv_op_tx_done(op);
}

/* An answer given in hard interrupt context, posted from process context. */
static void rift_srv_resp_work(struct work_struct *work)
{
	struct rift_srv_op *op = container_of(work, struct rift_srv_op, resp_work);

	rift_srv_resp(op, op->resp_err);
}

static int rift_srv_path_alloc_batches(struct rift_srv_path *path);

/**
 * rift_srv_path_init_ops() - allocate the ops of a path instance
 * @path: path with its queue depth set
 * @per_chunk_segs: memory credits: each chunk brings its own segment
 *	array when it is granted (rift-srv-pool.c), instead of one array
 *	for the whole queue depth here
 *
 * Return: 0 or -ENOMEM; the path's free work frees what was allocated.
 */
int rift_srv_path_init_ops(struct rift_srv_path *path, bool per_chunk_segs)
{
	u32 i;

	path->ops = kcalloc(path->queue_depth, sizeof(*path->ops), GFP_KERNEL);
	if (!path->ops || rift_srv_path_alloc_batches(path))
		return -ENOMEM;
	if (!per_chunk_segs) {
		path->segs = kvcalloc(array_size(path->queue_depth, RIFT_IO_MAX_SEGS),
				      sizeof(*path->segs), GFP_KERNEL);
		if (!path->segs)
			return -ENOMEM;
	}
	for (i = 0; i < path->queue_depth; i++) {
		path->ops[i].sess = path->sess;
		path->ops[i].path = path;
		path->ops[i].chunk = i;
		if (path->segs)
			path->ops[i].segs = &path->segs[i * RIFT_IO_MAX_SEGS];
		INIT_WORK(&path->ops[i].resp_work, rift_srv_resp_work);
		path->ops[i].rsp_cqe.done = rift_srv_rsp_done;
	}
	return 0;
}

static dma_addr_t rift_srv_chunk_dma(struct rift_srv_path *path, u16 chunk)
{
	return sg_dma_address(&path->sgs[chunk]);
}

/**
 * rift_srv_tx_done() - completion of a response to a write or an HB_ACK
 * @cq: completion queue
 * @wc: work completion; only failures need anything done
 */
void rift_srv_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		rift_srv_path_fail(rift_srv_wc_con(wc)->path, "send failed: %s",
				   ib_wc_status_msg(wc->status));
}

static void rift_srv_rd_free(struct rift_srv_rd *rd)
{
	struct rdma_cm_id *cm_id = rd->con->c.cm_id;
	u32 i;

	for (i = 0; i < rd->nr; i++)
		rdma_rw_ctx_destroy(&rd->seg[i].ctx, cm_id->qp, cm_id->port_num,
				    &rd->seg[i].sg, 1, DMA_TO_DEVICE);
	atomic_add(rd->credits, &rd->con->rd_credits);
	kfree(rd);
}

/**
 * rift_srv_con_free_parked() - free the read responses a failed post left
 * @con: connection whose QP is drained and not destroyed yet
 *
 * Their posted WRITEs have completed or flushed, and the completions have
 * run: nothing uses them any more.  Their ops' @tx_out stays raised, as
 * for every failed post: the chunks wait for the path's teardown.
 */
void rift_srv_con_free_parked(struct rift_srv_con *con)
{
	struct llist_node *list = llist_del_all(&con->rd_parked);
	struct rift_srv_rd *rd, *tmp;

	llist_for_each_entry_safe(rd, tmp, list, park)
		rift_srv_rd_free(rd);
}

/*
 * A client refuses a WRITE with a remote access error when the MR it
 * named is gone: above all when it timed the read out and invalidated the
 * MR before this late answer.  Counted, so the refusal can be seen.
 */
static void rift_srv_rd_count_refused(struct rift_srv_rd *rd, const struct ib_wc *wc)
{
	if (wc->status == IB_WC_REM_ACCESS_ERR) {
		this_cpu_inc(rd->con->path->stats->writes_refused);
		atomic64_inc(&rd->con->path->sess->writes_refused);
	}
}

static void rift_srv_rd_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_srv_rd *rd = container_of(wc->wr_cqe, struct rift_srv_rd, cqe);
	struct rift_srv_op *op = rd->op;

	if (wc->status != IB_WC_SUCCESS) {
		/* The answer may ride on the last WRITE (rift_srv_rsp_fold()). */
		rift_srv_rd_count_refused(rd, wc);
		rift_srv_path_fail(rd->con->path, "read response failed: %s",
				   ib_wc_status_msg(wc->status));
	}
	/* The mappings go first: only then may the pool free the chunk. */
	rift_srv_rd_free(rd);
	if (op)
		rift_srv_op_tx_done(op);
}

/* An unsignalled WRITE of a read's data that failed. */
static void rift_srv_rd_write_err(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_srv_rd *rd = container_of(wc->wr_cqe, struct rift_srv_rd,
					      err_cqe);

	rift_srv_rd_count_refused(rd, wc);
	rift_srv_path_fail(rd->con->path, "read data refused by the client: %s",
			   ib_wc_status_msg(wc->status));
}

/*
 * Build the RDMA WRITEs of a read's data in front of @head: one rdma_rw
 * context per client segment, over the matching part of the chunk.  @rsp
 * is the response SEND that ends the chain from @head and retires it
 * (rift_srv_rsp_fold() may hand that over to the last WRITE).
 * Returns the first WR, or NULL with *err set.
 */
static struct ib_send_wr *rift_srv_rd_prepare(struct rift_srv_op *op,
					      struct ib_send_wr *head,
					      struct ib_send_wr *rsp, int *err)
{
	struct rift_srv_con *con = op->con;
	struct rdma_cm_id *cm_id = con->c.cm_id;
	u8 *data = op->path->chunks[op->chunk] + op->data_off;
	struct ib_send_wr *first = head, *w;
	struct rift_srv_rd *rd;
	u32 i, off = 0;
	int ret;

	/* A single-entry sg makes each segment exactly one RDMA WRITE. */
	if (atomic_sub_return(op->nr_segs, &con->rd_credits) < 0) {
		atomic_add(op->nr_segs, &con->rd_credits);
		pr_warn_ratelimited("%s: out of send WRs for a %u-segment read\n",
				    con->path->base.name, op->nr_segs);
		*err = -ENOBUFS;
		return NULL;
	}
	rd = kmalloc(struct_size(rd, seg, op->nr_segs), GFP_ATOMIC);
	if (!rd) {
		atomic_add(op->nr_segs, &con->rd_credits);
		*err = -ENOMEM;
		return NULL;
	}
	rd->cqe.done = rift_srv_rd_done;
	rd->err_cqe.done = rift_srv_rd_write_err;
	rd->con = con;
	rd->nr = 0;
	rd->credits = op->nr_segs;
	rd->op = op->path->credits ? op : NULL;
	for (i = 0; i < op->nr_segs; i++) {
		struct rift_srv_rd_seg *s = &rd->seg[i];
		const struct rift_rbuf *seg = &op->segs[i];

		sg_init_table(&s->sg, 1);
		sg_set_buf(&s->sg, data + off, seg->len);
		ret = rdma_rw_ctx_init(&s->ctx, cm_id->qp, cm_id->port_num, &s->sg,
				       1, 0, seg->addr, seg->rkey, DMA_TO_DEVICE);
		if (ret < 0) {
			rift_srv_rd_free(rd);
			*err = ret;
			return NULL;
		}
		rd->nr++;
		off += seg->len;
	}
	rsp->wr_cqe = &rd->cqe;
	rsp->send_flags = IB_SEND_SIGNALED;
	for (i = op->nr_segs; i-- > 0;)
		first = rdma_rw_ctx_wrs(&rd->seg[i].ctx, cm_id->qp, cm_id->port_num,
					NULL, first);
	for (w = first; w != head; w = w->next)
		w->wr_cqe = &rd->err_cqe;
	return first;
}

/**
 * struct rift_srv_rsp_wrs - the work requests of one answer, until posted
 * @op: the request answered; released (BUSY cleared) right after the post
 * @path: its path, which the answer keeps (io_ref, kobject) until then
 * @err: the answer's errno, clamped
 * @chunk: @op's chunk, for after @op is released
 * @wr: the response SEND, last of the answer's chain unless the answer
 *	rides on a read's last WRITE (then it is not posted)
 * @inv: LOCAL_INV of a read's chunk key (always-invalidate)
 * @reg: REG_MR of the chunk under a new key (always-invalidate)
 * @sge: the new key's message, sent inline
 * @post: first WR of the answer's chain: @inv, else @first
 * @first: first WR after @inv: a read's first RDMA WRITE, else @head
 * @head: @reg or @wr, where the read's WRITEs end
 * @tail: last WR of the answer's chain: @wr, or the read's last WRITE
 *	when the answer rides on it (rift_srv_rsp_fold())
 * @rd_lo: a read's rd (which holds its WRITEs' WRs), else NULL
 * @rd_hi: the end of that allocation: after a failed post, a WR is told
 *	to be the rd's by its address alone, as a posted answer's rd may be
 *	freed by its completion by then
 *
 * Storage outside the op: the op may carry the client's next request as
 * soon as BUSY is cleared, which happens before the WRs are forgotten.
 */
struct rift_srv_rsp_wrs {
	struct rift_srv_op	*op;
	struct rift_srv_path	*path;
	int			err;
	u16			chunk;
	struct ib_send_wr	wr;
	struct ib_send_wr	inv;
	struct ib_reg_wr	reg;
	struct ib_sge		sge;
	struct ib_send_wr	*post;
	struct ib_send_wr	*first;
	struct ib_send_wr	*head;
	struct ib_send_wr	*tail;
	const void		*rd_lo;
	const void		*rd_hi;
};

/* Most answers one rift_srv_batch holds; a full batch is posted at once. */
#define RIFT_SRV_BATCH_MAX	16

/**
 * struct rift_srv_batch - answers posted together (rift_srv_resp_batch())
 * @nr: answers held
 * @held: the answers, in the order given
 * @wrs: their work requests, grouped by connection when posted
 */
struct rift_srv_batch {
	unsigned int		nr;
	struct {
		struct rift_srv_op	*op;
		int			err;
	} held[RIFT_SRV_BATCH_MAX];
	struct rift_srv_rsp_wrs	wrs[RIFT_SRV_BATCH_MAX];
};

/* After admission, as the ops: each connection's batch for its CQ runs. */
static int rift_srv_path_alloc_batches(struct rift_srv_path *path)
{
	u32 i;

	path->rsp_batches = kcalloc(path->con_cnt, sizeof(*path->rsp_batches),
				    GFP_KERNEL);
	if (!path->rsp_batches)
		return -ENOMEM;
	for (i = 0; i < path->con_cnt; i++)
		path->cons[i].rsp_batch = &path->rsp_batches[i];
	return 0;
}

/*
 * A successful read whose answer carries no payload: the RSP immediate
 * rides on the last RDMA WRITE of the data, as a WRITE WITH IMM, which
 * the client must accept as an answer (the protocol's "Responses").  One
 * message, so one packet and one ACK fewer per read than a WRITE followed
 * by a SEND, and one WR fewer on the send queue.  The WRITE takes over
 * the SEND's completion (the rd's, signalled): it is the answer's last
 * WR.  Only a WRITE that lives in the rd itself (a single-WR rdma_rw
 * context): after a failed post rift_srv_rsp_unpost() tells a WR's
 * answer by its address, and a context that registers an MR (a device
 * that needs one per WRITE, or rdma_rw's force_mr) keeps its WRs in an
 * allocation of its own.  Such an answer keeps its SEND.
 */
static void rift_srv_rsp_fold(struct rift_srv_rsp_wrs *w)
{
	struct ib_send_wr *last = w->first;
	const void *p;

	while (last->next != &w->wr)
		last = last->next;
	p = last;
	if (last->opcode != IB_WR_RDMA_WRITE || p < w->rd_lo || p >= w->rd_hi)
		return;
	last->opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	last->ex.imm_data = w->wr.ex.imm_data;
	last->wr_cqe = w->wr.wr_cqe;
	last->send_flags |= w->wr.send_flags;
	last->next = NULL;
	w->tail = last;
}

/*
 * Build the response (and a read's data) to @w->op in @w, ready to post
 * on the connection the request came on.  Caller holds the path's io_ref.
 */
static void rift_srv_rsp_build(struct rift_srv_rsp_wrs *w)
{
	struct rift_srv_op *op = w->op;
	struct rift_srv_path *path = op->path;
	struct rift_srv_con *con = op->con;
	struct rift_imm imm = {
		.type	= RIFT_IMM_RSP,
		.chunk	= op->chunk,
		.gen	= op->rsp_gen,
	};
	u32 sync_len = op->sync_len, nr_wr;
	bool inv_first = false;
	int err = w->err;

	memset(&w->wr, 0, sizeof(w->wr));
	w->rd_lo = NULL;
	w->rd_hi = NULL;
	w->chunk = op->chunk;
	w->first = &w->wr;
	w->head = &w->wr;
	w->tail = &w->wr;
	if (path->always_inv) {
		struct ib_mr *mr = path->mrs[op->chunk];

		/*
		 * A write's MR was invalidated when the request landed; a
		 * read's is invalidated here, first thing in the post, so no
		 * write under its key lands once the answer's data leaves.
		 * Then register it again under a new key and tell the client
		 * in the response, so only the chunk's current owner can ever
		 * write into it.  Unsignalled: a later signalled WR on the
		 * QP retires it, and a failure flushes it to @reg_cqe.
		 */
		if (op->inv_at_rsp) {
			inv_first = true;
			memset(&w->inv, 0, sizeof(w->inv));
			w->inv.opcode = IB_WR_LOCAL_INV;
			w->inv.wr_cqe = &path->reg_cqe;
			w->inv.ex.invalidate_rkey = mr->rkey;
		}
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		memset(&w->reg, 0, sizeof(w->reg));
		w->reg.wr.opcode = IB_WR_REG_MR;
		w->reg.wr.wr_cqe = &path->reg_cqe;
		w->reg.wr.next = &w->wr;
		w->reg.mr = mr;
		w->reg.key = mr->rkey;
		w->reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
		rift_proto_rkey_encode(op->chunk, mr->rkey, &path->rkey_msgs[op->chunk],
				       sizeof(path->rkey_msgs[op->chunk]));
		/* Inline: the CPU copies the payload at post time. */
		w->sge.addr = (uintptr_t)&path->rkey_msgs[op->chunk];
		w->sge.length = sizeof(path->rkey_msgs[op->chunk]);
		w->sge.lkey = path->pd.pd->local_dma_lkey;
		w->wr.sg_list = &w->sge;
		w->wr.num_sge = 1;
		imm.type = RIFT_IMM_RSP_RKEY;
		w->head = &w->reg.wr;
		w->first = w->head;
		this_cpu_inc(path->stats->rkey_rotations);
	}
	/*
	 * A lost race with CANCEL sends the data anyway; the client's MR is
	 * invalidated by then and its device refuses it (writes_refused).
	 */
	if (atomic_read(&op->cancel) & RIFT_SRV_OP_CANCELLED) {
		err = -ECANCELED;
		this_cpu_inc(path->stats->cancelled);
	}
	if (op->dir == RIFT_READ && !err) {
		w->first = rift_srv_rd_prepare(op, w->head, &w->wr, &err);
		if (w->first) {
			const struct rift_srv_rd *rd = container_of(w->wr.wr_cqe,
								    struct rift_srv_rd, cqe);

			w->rd_lo = rd;
			w->rd_hi = &rd->seg[op->nr_segs];
		} else {
			w->first = w->head;
		}
		sync_len = max(sync_len, op->data_off + op->data_len);
	}
	/*
	 * Memory credits: a chunk given back is freed once the answers that
	 * use it are complete on the device, not once they are posted (BUSY
	 * goes at the post): a client that stops reposting receives can
	 * hold them queued behind a SEND for as long as it likes.  A read's
	 * WRITEs are tracked by their rd (signalled already); the REG_MR of
	 * always-invalidate names the chunk's MR, so its answer is
	 * signalled here to be tracked too.  Other answers use nothing of
	 * the chunk on the device.
	 */
	if (path->credits && !w->wr.wr_cqe && path->always_inv) {
		w->wr.wr_cqe = &op->rsp_cqe;
		w->wr.send_flags = IB_SEND_SIGNALED;
	}
	if (path->credits && w->wr.wr_cqe)
		atomic_inc(&op->tx_out);
	if (!w->wr.wr_cqe) {
		nr_wr = 1 + (w->head != &w->wr) + inv_first;
		w->wr.wr_cqe = &con->tx_cqe;
		if (rift_con_signal_n(&con->c, nr_wr))
			w->wr.send_flags = IB_SEND_SIGNALED;
	}
	w->post = w->first;
	if (inv_first) {
		w->inv.next = w->first;
		w->post = &w->inv;
	}
	if (path->always_inv)
		w->wr.send_flags |= IB_SEND_INLINE;
	imm.err = err;
	if (rift_imm_encode(&imm, &w->wr.ex.imm_data)) {
		/* Cannot happen with a clamped errno; never leave a chunk stuck. */
		imm.err = -EIO;
		rift_imm_encode(&imm, &w->wr.ex.imm_data);
	}
	w->wr.opcode = IB_WR_SEND_WITH_IMM;
	if (w->rd_lo && w->head == &w->wr && !w->wr.num_sge)
		rift_srv_rsp_fold(w);
	/* Hand what the CPU touched back to the device before the client may write. */
	ib_dma_sync_single_for_device(path->ib_dev, rift_srv_chunk_dma(path, op->chunk),
				      sync_len, DMA_BIDIRECTIONAL);
}

/* Whether @wr is one of the WRs of answer @w: by address, never read. */
static bool rift_srv_rsp_owns(const struct rift_srv_rsp_wrs *w, const struct ib_send_wr *wr)
{
	const void *p = wr;

	return wr == &w->inv || wr == &w->reg.wr || wr == &w->wr ||
	       (w->rd_lo && p >= w->rd_lo && p < w->rd_hi);
}

/*
 * A post of @n answers failed at @bad_wr.  Drivers post a chain WR by WR
 * and stop at the one that fails: the answers before it are on the QP
 * whole, and their last WRs' completions (flushes, once the path fails)
 * free their rds, maybe already (the post's tasklets run as bottom
 * halves come back on): nothing of theirs is read here, and the answer
 * @bad_wr belongs to is found by comparing addresses.  From @bad_wr on
 * nothing is posted.  A read's WRITEs use its rd (@err_cqe, for their
 * flush) and its DMA mappings until the QP is drained, so an rd with
 * some of them posted waits for the close work's drain on its
 * connection's list, and one with none posted is freed here.  A driver
 * that leaves @bad_wr unset, or names a WR of none of the answers, told
 * nothing: the last answer's last WR, the chain's last, is certainly not
 * posted, so its rd is parked; the others' fate is unknown, and an rd
 * that may be freed by its completion must not be parked too, so they
 * are left (a leak, warned about, never a double free).  Every answer's
 * @tx_out stays raised: its chunk waits for the path's teardown (QPs
 * destroyed first).
 */
static void rift_srv_rsp_unpost(struct rift_srv_con *con, struct rift_srv_rsp_wrs *wrs,
				unsigned int n, const struct ib_send_wr *bad_wr)
{
	unsigned int i, bad = n;
	bool bad_early = false;

	for (i = 0; i < n; i++) {
		if (bad_wr && rift_srv_rsp_owns(&wrs[i], bad_wr)) {
			bad = i;
			/* No WRITE of the read posted: @bad_wr is its first, or before. */
			bad_early = bad_wr == &wrs[i].inv || bad_wr == wrs[i].first;
			break;
		}
	}
	WARN_ON_ONCE(bad == n && n > 1);
	for (i = 0; i < n; i++) {
		struct rift_srv_rd *rd;

		if (!wrs[i].rd_lo)
			continue;
		rd = container_of(wrs[i].wr.wr_cqe, struct rift_srv_rd, cqe);
		if (bad == n) {
			if (i == n - 1)
				llist_add(&rd->park, &con->rd_parked);
		} else if (i > bad || (i == bad && bad_early)) {
			rift_srv_rd_free(rd);
		} else if (i == bad) {
			llist_add(&rd->park, &con->rd_parked);
		}
	}
}

/*
 * Post the @n answers built in @wrs, all on @con, with one doorbell, and
 * release their ops.  Caller holds the path's io_ref.
 *
 * An op is released only after ib_post_send() returned (finding L6).
 * The posted WRs read state shared by every request on the chunk: the
 * inline rkey message is copied, and the MR's key read, during the post,
 * and the next answer on the chunk rewrites both.  Released before the
 * post, a client that reuses the chunk at once (it may, once it has the
 * answer, which can go out while the post is still running) could have
 * its next request answered first and the shared data overwritten under
 * this post: a wrong rkey for the client, and an always-invalidate key
 * that the next answer's REG_MR has already made current.  Snapshotting
 * into a per-post copy would cover the message but not the MR, which is
 * one per chunk; so the post stays inside the op's ownership.  Its cost
 * is that a next request can arrive before the release:
 * RIFT_SRV_OP_POSTING tells rift_srv_op_start() to wait for it (a few
 * microseconds: one post) instead of failing the path.  Bottom halves are
 * off meanwhile, and in the waiter (rift_srv_op_take()), so that the
 * waiter, in the connection's CQ work, can never spin on this CPU's own
 * interrupted or preempted post.  The read's WRs live in
 * their own allocation and need no such care, and the answers' own WRs
 * in @wrs, which the caller keeps until this returns.
 */
static void rift_srv_send_rsp(struct rift_srv_con *con, struct rift_srv_rsp_wrs *wrs,
			      unsigned int n)
{
	struct rift_srv_path *path = con->path;
	const struct ib_send_wr *bad_wr = NULL;
	unsigned int i;
	int ret;

	for (i = 0; i + 1 < n; i++)
		wrs[i].tail->next = wrs[i + 1].post;
	local_bh_disable();
	for (i = 0; i < n; i++)
		set_bit(RIFT_SRV_OP_POSTING, &wrs[i].op->flags);
	ret = ib_post_send(con->c.cm_id->qp, wrs[0].post, &bad_wr);
	/*
	 * POSTING stays set: cleared here first, a request arriving before
	 * BUSY goes would find BUSY alone.  The next taker clears it.  From
	 * here on an op may carry another request: only @wrs is ours.
	 */
	for (i = 0; i < n; i++)
		clear_bit_unlock(RIFT_SRV_OP_BUSY, &wrs[i].op->flags);
	local_bh_enable();
	if (n > 1)
		this_cpu_add(path->stats->rsp_batched, n - 1);
	/*
	 * Memory credits: a chunk given back while this post ran was left
	 * by the pool work for BUSY; it runs again now instead of polling.
	 * The barrier pairs with the one in rift_srv_pool_reclaim() between
	 * its look at cr_reclaim and at BUSY: it saw BUSY clear, or this
	 * sees the bit.  The chunk, not the op: the op may carry another
	 * request.
	 */
	if (path->credits) {
		/* BUSY's clear before the look at cr_reclaim: above. */
		smp_mb();
		for (i = 0; i < n; i++) {
			if (test_bit(wrs[i].chunk, path->cr_reclaim)) {
				rift_srv_pool_kick(path);
				break;
			}
		}
	}
	if (ret) {
		rift_srv_rsp_unpost(con, wrs, n, bad_wr);
		rift_srv_path_fail(path, "cannot post a response: %d", ret);
	}
}

/*
 * The bookkeeping of an answer, in a context that may post: the errno
 * clamped to the wire's range, the counters.  Returns the errno to send.
 */
static int rift_srv_resp_account(struct rift_srv_op *op, int err)
{
	struct rift_srv_path *path = op->path;

	if (WARN_ON_ONCE(err > 0))
		err = -EIO;
	err = max(err, -(int)RIFT_IMM_ERRNO_MAX);
	if (err)
		this_cpu_inc(path->stats->base.errors);
	atomic_dec(&path->base.inflight);
	return err;
}

/*
 * The references an op held for its answer (rift_srv_op_start()).  The op
 * may already carry another request, and once the path is put it may be
 * freed with the path: the caller passes what it read before the release.
 */
static void rift_srv_resp_put(struct rift_srv_path *path, struct rift_srv_sess *sess)
{
	kobject_put(&path->base.kobj);
	percpu_ref_put(&sess->ops_ref);
}

/*
 * An answer given in hard interrupt context goes to a workqueue.  A block
 * driver completes bios in its interrupt handler (virtio_blk, NVMe), so a
 * ULP answering from end_io calls in from hard interrupt context.  The
 * send path must not run there: it enables bottom halves, and rxe
 * transmits inline through the network stack (seen: a WARNING in
 * __local_bh_enable_ip, then the NIC's transmit queue wedged for good).
 * The op, busy until answered, keeps its path and session meanwhile.
 */
static bool rift_srv_resp_defer(struct rift_srv_op *op, int err)
{
	if (!in_hardirq() && !irqs_disabled())
		return false;
	op->resp_err = err;
	queue_work(rift_srv_resp_wq, &op->resp_work);
	return true;
}

/*
 * An answer that waits to be posted (a ULP's batch, a CQ run's): counted
 * now, and the op keeps the path's io_ref until its post.  A path that
 * is closing takes no more posts: the op is released instead.  Returns
 * false then.  The caller has set HELD.
 */
static bool rift_srv_resp_keep(struct rift_srv_op *op, int *err)
{
	struct rift_srv_path *path = op->path;

	*err = rift_srv_resp_account(op, *err);
	if (percpu_ref_tryget_live(&path->io_ref))
		return true;
	clear_bit(RIFT_SRV_OP_HELD, &op->flags);
	clear_bit_unlock(RIFT_SRV_OP_BUSY, &op->flags);
	rift_srv_resp_put(path, op->sess);
	return false;
}

/*
 * An answer given in its connection's CQ work (the ULP answered from
 * rdma_ev, e.g. riftblk submitting to a device that completes inline)
 * waits for the end of that run: @rsp_flush, queued on this CPU's
 * high-priority pool as the RDMA core's CQ work is, runs in the same
 * worker once that work has reaped what the CQ holds, and posts every
 * answer of the run with one doorbell.  Posted one by one, each answer's
 * local_bh_enable() ran rxe's send tasklet, the link's receive and the
 * client's completion inline before the next request was even reaped.
 * The server cannot tell a lone request (QD1) from the first of a run,
 * so it holds that one too: one work item more.  The op stays BUSY and
 * holds the path's io_ref (its close waits) until posted.  Returns false
 * if the answer is not the run's to hold.
 */
static bool rift_srv_resp_hold(struct rift_srv_op *op, int err)
{
	struct rift_srv_con *con = op->con;

	if (!in_task() || READ_ONCE(con->cq_owner) != current)
		return false;
	set_bit(RIFT_SRV_OP_HELD, &op->flags);
	if (!rift_srv_resp_keep(op, &err))
		return true;
	op->resp_err = err;
	/* The first one queues the flush: it takes everything held. */
	if (llist_add(&op->held_node, &con->rsp_held))
		queue_work(rift_srv_resp_wq, &con->rsp_flush);
	return true;
}

/**
 * rift_srv_resp() - answer a request
 * @op: the request, as passed to rdma_ev
 * @err: 0, or a negative errno for the client (clamped to the wire's range)
 *
 * Any context: process, softirq, or hard interrupt with interrupts off.
 * For a successful read, the first data_len bytes of the data buffer
 * rdma_ev was given are sent to the client first.  If the path the
 * request came on has gone meanwhile, nothing is sent; the op is released
 * either way and must not be touched again.
 */
void rift_srv_resp(struct rift_srv_op *op, int err)
{
	struct rift_srv_path *path = op->path;
	struct rift_srv_sess *sess = op->sess;
	struct rift_srv_rsp_wrs w;

	if (WARN_ON_ONCE(!test_bit(RIFT_SRV_OP_BUSY, &op->flags) ||
			 test_bit(RIFT_SRV_OP_HELD, &op->flags)))
		return;
	/* Answered: see rift_srv_op_deliver().  Only the op's owner writes. */
	WRITE_ONCE(op->answers, op->answers + 1);
	if (rift_srv_resp_defer(op, err) || rift_srv_resp_hold(op, err))
		return;
	err = rift_srv_resp_account(op, err);
	if (percpu_ref_tryget_live(&path->io_ref)) {
		w.op = op;
		w.path = path;
		w.err = err;
		rift_srv_rsp_build(&w);
		rift_srv_send_rsp(op->con, &w, 1);
		percpu_ref_put(&path->io_ref);
	} else {
		clear_bit_unlock(RIFT_SRV_OP_BUSY, &op->flags);
	}
	rift_srv_resp_put(path, sess);
}
EXPORT_SYMBOL_GPL(rift_srv_resp);

/**
 * rift_srv_batch_alloc() - allocate a batch of answers
 *
 * A batch lets a ULP that answers several requests in a row post them
 * with one doorbell per connection (rift_srv_resp_batch()), as a block
 * ULP's submitting thread does when the device completes its bios inline.
 * One user at a time: the ULP serialises its calls on a batch.  May
 * sleep.
 *
 * Return: the batch, or NULL.
 */
struct rift_srv_batch *rift_srv_batch_alloc(void)
{
	return kzalloc(sizeof(struct rift_srv_batch), GFP_KERNEL);
}
EXPORT_SYMBOL_GPL(rift_srv_batch_alloc);

/**
 * rift_srv_batch_free() - free a batch
 * @batch: batch with no answer held (flushed), or NULL
 */
void rift_srv_batch_free(struct rift_srv_batch *batch)
{
	if (batch)
		WARN_ON_ONCE(batch->nr);
	kfree(batch);
}
EXPORT_SYMBOL_GPL(rift_srv_batch_free);

/**
 * rift_srv_batch_flush() - post the answers a batch holds
 * @batch: the batch
 *
 * Process or softirq context, never with interrupts off (the post enables
 * bottom halves).  The answers on one connection go in one post, in the
 * order they were given; the batch is empty afterwards.
 */
void rift_srv_batch_flush(struct rift_srv_batch *batch)
{
	struct rift_srv_op *op;
	unsigned int i, j, k = 0, start;
	struct rift_srv_con *con;

	if (!batch->nr || WARN_ON_ONCE(in_hardirq() || irqs_disabled()))
		return;
	/* Grouped by connection, each group in the order given. */
	for (i = 0; i < batch->nr; i++) {
		op = batch->held[i].op;
		if (!op)
			continue;
		con = op->con;
		start = k;
		for (j = i; j < batch->nr; j++) {
			op = batch->held[j].op;
			if (!op || op->con != con)
				continue;
			batch->wrs[k].op = op;
			batch->wrs[k].path = op->path;
			batch->wrs[k].err = batch->held[j].err;
			clear_bit(RIFT_SRV_OP_HELD, &op->flags);
			rift_srv_rsp_build(&batch->wrs[k]);
			batch->held[j].op = NULL;
			k++;
		}
		rift_srv_send_rsp(con, &batch->wrs[start], k - start);
	}
	for (i = 0; i < k; i++) {
		struct rift_srv_path *path = batch->wrs[i].path;

		percpu_ref_put(&path->io_ref);
		rift_srv_resp_put(path, path->sess);
	}
	batch->nr = 0;
}
EXPORT_SYMBOL_GPL(rift_srv_batch_flush);

/* Hold a kept answer in @batch; a full batch is posted first. */
static void rift_srv_batch_add(struct rift_srv_batch *batch,
			       struct rift_srv_op *op, int err)
{
	if (batch->nr == RIFT_SRV_BATCH_MAX)
		rift_srv_batch_flush(batch);
	batch->held[batch->nr].op = op;
	batch->held[batch->nr].err = err;
	batch->nr++;
}

/**
 * rift_srv_con_rsp_flush() - post the answers a CQ run held
 * @work: &rift_srv_con.rsp_flush
 *
 * Queued by the answer that found @rsp_held empty, so it always finds at
 * least one: each holds the path (rift_srv_resp_hold()).  The last put
 * of the batch may let the path, and this connection, go: the flush
 * holds the path itself until it is done with both.
 */
void rift_srv_con_rsp_flush(struct work_struct *work)
{
	struct rift_srv_con *con = container_of(work, struct rift_srv_con, rsp_flush);
	struct rift_srv_batch *batch = con->rsp_batch;
	struct rift_srv_path *path = con->path;
	struct llist_node *held = llist_del_all(&con->rsp_held);
	struct rift_srv_op *op, *tmp;

	kobject_get(&path->base.kobj);
	/* Oldest first: the order the ULP answered in. */
	llist_for_each_entry_safe(op, tmp, llist_reverse_order(held), held_node)
		rift_srv_batch_add(batch, op, op->resp_err);
	rift_srv_batch_flush(batch);
	kobject_put(&path->base.kobj);
}

/**
 * rift_srv_resp_batch() - answer a request, posting the answer later
 * @batch: where the answer waits for rift_srv_batch_flush()
 * @op: the request, as passed to rdma_ev
 * @err: as for rift_srv_resp()
 *
 * As rift_srv_resp(), but the answer is built and posted by the next
 * rift_srv_batch_flush() of @batch, together with the others on its
 * connection (a full batch posts those it holds first).  The ULP must
 * flush soon, and before it may sleep for long: the client waits for the
 * answer, and the op keeps its path until it is posted (the path's close
 * waits for it).  The op is the ULP's no more, as after rift_srv_resp().
 * In hard interrupt context, or with interrupts off, this is
 * rift_srv_resp().
 */
void rift_srv_resp_batch(struct rift_srv_batch *batch, struct rift_srv_op *op, int err)
{
	if (WARN_ON_ONCE(!test_bit(RIFT_SRV_OP_BUSY, &op->flags)))
		return;
	if (in_hardirq() || irqs_disabled()) {
		rift_srv_resp(op, err);
		return;
	}
	/* A second answer while the first is held: see rift_srv_op_deliver(). */
	if (WARN_ON_ONCE(test_and_set_bit(RIFT_SRV_OP_HELD, &op->flags)))
		return;
	WRITE_ONCE(op->answers, op->answers + 1);
	if (rift_srv_resp_keep(op, &err))
		rift_srv_batch_add(batch, op, err);
}
EXPORT_SYMBOL_GPL(rift_srv_resp_batch);

/* Longest wait for an answer's post to return; see rift_srv_send_rsp(). */
#define RIFT_SRV_POST_WAIT_NS	(10 * NSEC_PER_MSEC)

/*
 * Take the chunk's op.  A busy op is a protocol violation, unless its
 * answer is being posted: the client may have seen that answer already.
 * The poster runs with bottom halves off and only its ib_post_send() is
 * left, so the wait is short; it is bounded all the same.  The wait too
 * has bottom halves off: then it cannot have interrupted a post on its
 * own CPU (nor, on PREEMPT_RT, where that section is a per-CPU lock,
 * preempted one), which it would spin on for nothing.
 */
static bool rift_srv_op_take(struct rift_srv_op *op)
{
	bool taken = true;
	u64 end;

	if (test_and_set_bit_lock(RIFT_SRV_OP_BUSY, &op->flags)) {
		if (!test_bit(RIFT_SRV_OP_POSTING, &op->flags))
			return false;
		end = ktime_get_ns() + RIFT_SRV_POST_WAIT_NS;
		local_bh_disable();
		while (test_and_set_bit_lock(RIFT_SRV_OP_BUSY, &op->flags)) {
			if (ktime_get_ns() > end) {
				taken = false;
				break;
			}
			cpu_relax();
		}
		local_bh_enable();
		if (!taken)
			return false;
		this_cpu_inc(op->path->stats->posting_waits);
	}
	/* The previous answer's post is over: see rift_srv_send_rsp(). */
	clear_bit(RIFT_SRV_OP_POSTING, &op->flags);
	return true;
}

/*
 * Validate a request and take the chunk's op for it.  @inv_rkey is the key
 * a write's SEND WITH_INV invalidated (REMOTE_INV), NULL for a request
 * that came as a WRITE WITH_IMM.  Returns NULL after failing the path if
 * the client sent something it must not have.
 */
static struct rift_srv_op *rift_srv_op_start(struct rift_srv_con *con,
					     const struct rift_imm *imm,
					     const u32 *inv_rkey)
{
	struct rift_srv_path *path = con->path;
	struct rift_srv_sess *sess = path->sess;
	struct rift_srv_op *op = &path->ops[imm->chunk];
	const struct rift_io_limits lim = {
		.chunk_size	= sess->chunk_size,
		.max_io_size	= sess->max_io_size,
	};
	struct rift_io_req req;
	unsigned long now;
	dma_addr_t dma;
	u8 *chunk;
	u32 avail;
	int err;

	/*
	 * Decoded against the path's queue depth, so the chunk id is in
	 * range.  Ops are per path instance: only this path's client can have
	 * left this op busy.
	 */
	if (!rift_srv_op_take(op)) {
		rift_srv_path_fail(path, "request on chunk %u, which has one unanswered",
				   imm->chunk);
		return NULL;
	}
	/*
	 * Memory credits: a CREDIT_REL of this chunk on connection 0 may have
	 * crossed the request since the caller checked the grant.  The op is
	 * ours now (BUSY set, POSTING clear); look at the grant again before
	 * touching the chunk, which may be on its way back.  Dekker with
	 * rift_srv_credit_rel(), which clears the grant and then looks at
	 * BUSY and POSTING: one of the two sides sees the other and fails
	 * the path.  The pool work, which frees a given-back chunk only
	 * while its op is not BUSY, sees it too (the barrier in
	 * rift_srv_pool_reclaim()).
	 */
	if (path->credits) {
		/* BUSY set and POSTING cleared before the grant is read. */
		smp_mb__after_atomic();
		if (!rift_srv_credit_granted(path, imm->chunk)) {
			clear_bit_unlock(RIFT_SRV_OP_BUSY, &op->flags);
			rift_srv_path_fail(path, "request names a chunk not granted");
			return NULL;
		}
		/*
		 * Every connection's requests land here: a store per request
		 * would bounce the line between their CPUs, so store only
		 * when the tick moved (the idle test needs no more).
		 */
		now = jiffies;
		if (READ_ONCE(path->cr_last_rx) != now)
			WRITE_ONCE(path->cr_last_rx, now);
		if (!READ_ONCE(path->cr_ready))
			WRITE_ONCE(path->cr_ready, true);
	}
	/*
	 * REMOTE_INV: the SEND killed a key as it landed; it must be this
	 * chunk's, or the chunk is still open to the client while its ULP
	 * reads the data.  Read only now that the op is ours: the previous
	 * answer's REG_MR set the key before it let BUSY go.  Whatever the
	 * key broke (another chunk of this path; on a device that does not
	 * hold remote invalidation to the QP's protection domain, as rxe,
	 * any MR whose key the client guessed, see security.rst), the path
	 * fails.
	 */
	if (inv_rkey && *inv_rkey != path->mrs[imm->chunk]->rkey) {
		clear_bit_unlock(RIFT_SRV_OP_BUSY, &op->flags);
		rift_srv_path_fail(path, "write in chunk %u invalidated key 0x%x, not its chunk's",
				   imm->chunk, *inv_rkey);
		return NULL;
	}
	chunk = path->chunks[imm->chunk];
	dma = rift_srv_chunk_dma(path, imm->chunk);
	if (imm->desc_off >= lim.chunk_size) {
		err = -EBADMSG;
		goto bad;
	}
	avail = min_t(u32, lim.chunk_size - imm->desc_off, RIFT_IO_DESC_MAX_LEN);
	ib_dma_sync_single_for_cpu(path->ib_dev, dma + imm->desc_off, avail,
				   DMA_BIDIRECTIONAL);
	err = rift_proto_io_desc_decode(&lim, imm, chunk + imm->desc_off, avail,
					&req, op->segs, RIFT_IO_MAX_SEGS);
	if (err)
		goto bad;
	if (req.desc_off)
		ib_dma_sync_single_for_cpu(path->ib_dev, dma, req.desc_off,
					   DMA_BIDIRECTIONAL);

	/*
	 * This also clears CANCELLED: a CANCEL of the previous request that
	 * lands from here on finds another generation (with CANCEL_GEN).
	 */
	atomic_set(&op->cancel, path->cancel_gen ? req.gen : 0);
	/* RSP_GEN: the answer names this request, so a copy cannot pass for the next. */
	op->rsp_gen = rift_proto_rsp_gen_put(req.gen, path->rsp_gen ? RIFT_FEAT_RSP_GEN : 0);
	op->con = con;
	op->dir = req.dir == RIFT_IO_READ ? RIFT_READ : RIFT_WRITE;
	op->data_off = req.data_off;
	op->data_len = req.data_len;
	op->usr_len = req.usr_len;
	op->nr_segs = req.nr_segs;
	op->sync_len = req.desc_off + req.desc_len;
	/*
	 * always-invalidate: a write's key dies before its ULP reads the data
	 * (rift_srv_op_invalidate()), which must not change under it.  A
	 * read's key lives until its answer, whose post invalidates it first
	 * (rift_srv_send_rsp()): the ULP only writes a read's data, so all
	 * the client can change meanwhile is its own read's result, and the
	 * read goes to the ULP without waiting for a signalled LOCAL_INV.
	 * What the server reads from the chunk must not change all the
	 * same: the descriptor is decoded into @segs already, and the ULP
	 * header is copied out (usr_len is at most RIFT_USR_LEN_MAX, see
	 * rift_proto_io_layout()).
	 *
	 * The old key then dies on the device only once the answer's post
	 * runs there, after BUSY went.  A hostile client that sends its next
	 * request on the chunk before it has the answer can have that one
	 * taken meanwhile; if it is a write, its LOCAL_INV of the new key
	 * (another connection) may run before the answer's REG_MR of it.
	 * A device that follows the IB spec refuses to invalidate under a
	 * key the MR does not carry (rxe: "wr key ... doesn't match mr
	 * key"): the invalidate fails and so does the path, as it should.
	 */
	op->inv_at_rsp = path->always_inv && op->dir == RIFT_READ;
	if (op->inv_at_rsp) {
		memcpy(op->usr_copy, chunk + req.usr_off, req.usr_len);
		op->usr = op->usr_copy;
	} else {
		op->usr = chunk + req.usr_off;
	}
	/* Released by rift_srv_resp(), see rift-srv.h. */
	kobject_get(&path->base.kobj);
	percpu_ref_get(&sess->ops_ref);
	atomic_inc(&path->base.inflight);
	if (op->dir == RIFT_READ) {
		this_cpu_inc(path->stats->base.reqs_read);
		this_cpu_add(path->stats->base.bytes_read, req.data_len);
	} else {
		this_cpu_inc(path->stats->base.reqs_write);
		this_cpu_add(path->stats->base.bytes_write, req.data_len);
		if (inv_rkey)
			this_cpu_inc(path->stats->remote_invs);
	}
	return op;

bad:
	clear_bit_unlock(RIFT_SRV_OP_BUSY, &op->flags);
	rift_srv_path_fail(path, "invalid request descriptor in chunk %u at %u: %d",
			   imm->chunk, imm->desc_off, err);
	return NULL;
}

static void rift_srv_op_deliver(struct rift_srv_op *op)
{
	struct rift_srv_con *con = op->con;
	struct rift_srv_sess *sess = op->sess;
	u8 *chunk = op->path->chunks[op->chunk];
	/* The op is ours until it is answered: nobody else moves this. */
	unsigned int answers = READ_ONCE(op->answers);
	int ret;

	/* In the CQ work (both callers): see rift_srv_resp_hold(). */
	WRITE_ONCE(con->cq_owner, current);
	ret = sess->ctx->ops->rdma_ev(READ_ONCE(sess->priv), op, op->dir,
				      chunk + op->data_off, op->data_len,
				      op->usr, op->usr_len);
	WRITE_ONCE(con->cq_owner, NULL);
	/*
	 * On 0 the op may already be answered and reused: leave it alone.
	 * A negative return is the answer, unless the ULP answered already
	 * (rdma_ev's contract forbids both): the op may carry the client's
	 * next request on the chunk by now, and a second answer would echo
	 * that request's generation (RSP_GEN) and complete it before its
	 * data.  Seen when the answer came before the return, in this
	 * thread (hard interrupt deferral included); an answer the ULP
	 * makes on another CPU at the same time is not.
	 */
	if (ret < 0 && !WARN_ON_ONCE(READ_ONCE(op->answers) != answers))
		rift_srv_resp(op, ret);
}

static void rift_srv_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_srv_op *op = container_of(wc->wr_cqe, struct rift_srv_op,
					      inv_cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		rift_srv_path_fail(op->path, "chunk %u: local invalidate failed: %s",
				   op->chunk, ib_wc_status_msg(wc->status));
		rift_srv_resp(op, -ECONNRESET);
		return;
	}
	rift_srv_op_deliver(op);
}

/*
 * always-invalidate, writes: the chunk's key dies before the ULP sees the
 * data, so a client that kept it (stale or hostile) can no longer write
 * while the ULP works on the chunk; rift_srv_send_rsp() registers a new
 * one.  Reads are invalidated by their answer instead, see
 * rift_srv_op_start().
 */
static void rift_srv_op_invalidate(struct rift_srv_op *op)
{
	struct ib_send_wr inv = {
		.opcode			= IB_WR_LOCAL_INV,
		.wr_cqe			= &op->inv_cqe,
		.send_flags		= IB_SEND_SIGNALED,
		.ex.invalidate_rkey	= op->path->mrs[op->chunk]->rkey,
	};
	int err;

	op->inv_cqe.done = rift_srv_inv_done;
	err = ib_post_send(op->con->c.cm_id->qp, &inv, NULL);
	if (err) {
		rift_srv_path_fail(op->path, "cannot post local invalidate: %d", err);
		rift_srv_resp(op, -ECONNRESET);
	}
}

/*
 * Mark the request a CANCEL names.  The client sends CANCEL before it has
 * seen the answer, but a CANCEL on one connection and the next request on
 * the chunk on another are not ordered: the answer can cross the CANCEL,
 * the client reuse the chunk, and the new request arrive first.  With
 * CANCEL_GEN the CANCEL names its request's generation and only that one
 * is marked; one for an earlier request is counted and ignored.  Without
 * it (gen 0 on both sides) whatever request holds the chunk is marked, as
 * before the feature.  A mark on an idle op is harmless: the next request
 * overwrites the word in rift_srv_op_start().  Returns false after failing
 * the path.
 */
static bool rift_srv_cancel(struct rift_srv_path *path, const struct rift_imm *imm)
{
	struct rift_srv_op *op = &path->ops[imm->chunk];
	u64 feat = (path->can_cancel ? RIFT_FEAT_CANCEL : 0) |
		   (path->cancel_gen ? RIFT_FEAT_CANCEL_GEN : 0);
	u16 gen;
	int old, err;

	err = rift_proto_cancel_gen(imm, feat, &gen);
	if (err) {
		rift_srv_path_fail(path, "CANCEL %s", err == -EPROTO ?
				   "without the feature" : "with a generation without CANCEL_GEN");
		return false;
	}
	/*
	 * Memory credits: a CANCEL of a chunk not granted is ignored (design,
	 * open questions), once it passed the checks every CANCEL must:
	 * CANCEL goes on the timed-out request's connection and the
	 * CREDIT_REL that gives the chunk back, once the late answer came,
	 * on connection 0, so the release can overtake the CANCEL without
	 * the client misbehaving.  Ignoring it is safe: it only marks an op,
	 * which no request holds once the chunk is given back.  Without
	 * credits every chunk is granted (checked by the caller).
	 */
	if (!rift_srv_credit_granted(path, imm->chunk)) {
		this_cpu_inc(path->stats->cancels_stale);
		return true;
	}
	old = atomic_read(&op->cancel);
	do {
		if ((old & RIFT_SRV_OP_GEN_MASK) != gen) {
			this_cpu_inc(path->stats->cancels_stale);
			return true;
		}
		if (old & RIFT_SRV_OP_CANCELLED)
			return true;
	} while (!atomic_try_cmpxchg(&op->cancel, &old, old | RIFT_SRV_OP_CANCELLED));
	return true;
}

static void rift_srv_imm_arrived(struct rift_srv_con *con, struct rift_iu *iu,
				 const struct ib_wc *wc)
{
	struct rift_srv_path *path = con->path;
	enum rift_srv_path_state state = READ_ONCE(path->state);
	const u32 *inv_rkey = NULL;
	struct rift_srv_op *op = NULL;
	struct rift_imm imm;
	u32 len;

	if (state != RIFT_SRV_PATH_CONNECTED) {
		if (state == RIFT_SRV_PATH_CONNECTING)
			rift_srv_path_fail(path, "message before INFO_RSP");
		return;
	}
	/* Any traffic is a sign of life for the heartbeat. */
	rift_hb_rx(&path->hb);
	if (wc->wc_flags & IB_WC_WITH_IMM) {
		if (rift_imm_decode(wc->ex.imm_data, path->queue_depth, &imm)) {
			rift_srv_path_fail(path, "malformed immediate data 0x%08x",
					   be32_to_cpu(wc->ex.imm_data));
			return;
		}
		/* One form per write: its key must die as it lands. */
		if (imm.type == RIFT_IMM_WRITE && path->remote_inv) {
			rift_srv_path_fail(path, "write request without remote invalidation");
			return;
		}
	} else {
		/* A SEND WITH_INV (the caller checked): a write, REMOTE_INV only. */
		if (!path->remote_inv) {
			rift_srv_path_fail(path, "remote invalidation without REMOTE_INV");
			return;
		}
		len = min_t(u32, wc->byte_len, iu->size);
		ib_dma_sync_single_for_cpu(path->ib_dev, iu->dma, len, DMA_FROM_DEVICE);
		if (wc->opcode != IB_WC_RECV ||
		    rift_proto_write_inv_decode(iu->buf, wc->byte_len, path->queue_depth, &imm)) {
			rift_srv_path_fail(path,
					   "malformed write request with remote invalidation");
			return;
		}
		inv_rkey = &wc->ex.invalidate_rkey;
	}
	/*
	 * A chunk not granted (memory credits) is not the client's to use:
	 * no request may name it.  Every chunk is granted when the feature
	 * is off.  A CANCEL of one is validated and then ignored instead,
	 * see rift_srv_cancel().
	 */
	if ((imm.type == RIFT_IMM_WRITE || imm.type == RIFT_IMM_READ) &&
	    !rift_srv_credit_granted(path, imm.chunk)) {
		rift_srv_path_fail(path, "request names a chunk not granted");
		return;
	}
	switch (imm.type) {
	case RIFT_IMM_WRITE:
	case RIFT_IMM_READ:
		op = rift_srv_op_start(con, &imm, inv_rkey);
		if (!op)
			return;
		break;
	case RIFT_IMM_HB:
		rift_srv_send_hb_ack(con, imm.seq);
		break;
	case RIFT_IMM_HB_ACK:
		rift_hb_ack(&path->hb, imm.seq);
		break;
	case RIFT_IMM_CANCEL:
		if (!rift_srv_cancel(path, &imm))
			return;
		break;
	case RIFT_IMM_CREDIT_REQ:
		if (!rift_srv_credit_req(con, &imm))
			return;
		break;
	case RIFT_IMM_CREDIT_REL:
		if (!rift_srv_credit_rel(con, &imm))
			return;
		break;
	default:
		rift_srv_path_fail(path, "unexpected message type %u", imm.type);
		return;
	}
	/* Repost first: the ULP may answer at once and the client send again. */
	if (rift_post_recv(&con->c, iu)) {
		rift_srv_path_fail(path, "cannot repost a receive");
		if (op)
			rift_srv_resp(op, -ECONNRESET);
		return;
	}
	/* A remote invalidation killed the key already (rift_srv_op_start()). */
	if (op && path->always_inv && !op->inv_at_rsp && !inv_rkey)
		rift_srv_op_invalidate(op);
	else if (op)
		rift_srv_op_deliver(op);
}

/**
 * rift_srv_info_req_arrived() - the INFO_REQ buffer of connection 0 filled
 * @con: connection 0
 * @wc: its successful receive completion
 *
 * CQ context: records the message and leaves the rest to the info work.
 */
static void rift_srv_info_req_arrived(struct rift_srv_con *con, struct ib_wc *wc)
{
	struct rift_srv_path *path = con->path;
	unsigned long flags;
	bool kick;

	if (wc->opcode != IB_WC_RECV ||
	    (wc->wc_flags & (IB_WC_WITH_IMM | IB_WC_WITH_INVALIDATE))) {
		rift_srv_path_fail(path, "first message is not an INFO_REQ");
		return;
	}
	spin_lock_irqsave(&path->base.lock, flags);
	path->info_rcvd = true;
	path->info_len = wc->byte_len;
	kick = rift_srv_path_all_connected(path);
	spin_unlock_irqrestore(&path->base.lock, flags);
	if (kick)
		rift_srv_path_queue_info(path);
}

/**
 * rift_srv_rx_done() - completion of every receive on a server connection
 * @cq: completion queue
 * @wc: work completion
 *
 * The connection's CQ work, which must not sleep: requests go to the ULP
 * from here; INFO_REQ and anything that needs to sleep or tear down is
 * handed to the path's work items.
 */
void rift_srv_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_iu *iu = container_of(wc->wr_cqe, struct rift_iu, cqe);
	struct rift_srv_con *con = rift_srv_wc_con(wc);

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		/* A flush while closing is expected and ignored by the fail. */
		rift_srv_path_fail(con->path, "connection %u: receive failed: %s",
				   con->idx, ib_wc_status_msg(wc->status));
		return;
	}
	if (iu == READ_ONCE(con->info_rx)) {
		rift_srv_info_req_arrived(con, wc);
		return;
	}
	if (!(wc->wc_flags & (IB_WC_WITH_IMM | IB_WC_WITH_INVALIDATE))) {
		rift_srv_path_fail(con->path, "connection %u: message without immediate data",
				   con->idx);
		return;
	}
	rift_srv_imm_arrived(con, iu, wc);
}

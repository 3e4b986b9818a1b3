// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: the budgeted chunk pool of memory credits (step 3 of
 * Documentation/design/memory-credits.rst).  A path instance that runs
 * with RIFT_FEAT_CREDITS has memory, a DMA mapping and an MR only for the
 * chunks it holds: its initial grant at admission, each later grant as it
 * is answered (rift-srv-credit.c calls rift_srv_pool_chunk_get()).  Every
 * chunk is counted against the server's budget (pool_mb, or max_pinned_mb
 * while pool_mb is 0) before it is allocated, and goes back to it only
 * once it is of no use to anyone:
 *
 *  1. CREDIT_REL took it out of the grant (rift-srv-credit.c), so no
 *     request may name it any more;
 *  2. every answer that used it is complete on the device: its op is no
 *     longer BUSY (the answer was posted) and its tx_out is 0 (the
 *     answer's signalled send completed on its IO connection, a read's
 *     rdma_rw contexts are destroyed and their DMA mappings gone).  A
 *     posted WR is not done: a client that stops reposting receives
 *     holds a read's WRITEs, or an always-invalidate REG_MR, queued on
 *     that connection for as long as it likes, and neither a LOCAL_INV
 *     on connection 0 (another QP, unordered with it) nor one on the
 *     same QP would stop the device's DMA reads of the pages;
 *  3. the pool work posts a signalled LOCAL_INV of its MR on connection 0;
 *  4. when that completes the key is dead on the device, and the pool
 *     work deregisters the MR, unmaps and frees the memory and releases
 *     the budget.
 *
 * A path that closes gives back what it holds once its QPs are drained
 * and destroyed (every answer's completion, flushed or not, has run): at
 * once each chunk whose op the ULP does not hold (rift_srv_pool_stop()),
 * the others once the ULP answered them (rift_srv_pool_path_free()).
 * The pool work also revokes the grant of an idle path down to its
 * floor (not below the requests its ULP still holds, so that the client
 * can pay at once), looking every credit_idle_ms / 2 while the grant is
 * above it (rift_credit_srv_revoke() decides); at the floor, with
 * nothing to reclaim, it runs only when kicked.  Nothing here
 * runs in a CQ callback but the LOCAL_INV completion, which only queues
 * the work.
 *
 * A path without credits (an old client, or credit_floor 0) takes none of
 * this: it allocates its whole queue depth at admission, as it always
 * did (rift_srv_path_alloc_chunks()), against the same budget, and
 * registers it with the same rift_srv_chunk_reg().
 *
 * Calls into the parameters and the state machine only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mm.h>

#include "rift-srv.h"

static void rift_srv_pool_work(struct work_struct *work);
static void rift_srv_pool_inv_done(struct ib_cq *cq, struct ib_wc *wc);

/**
 * rift_srv_pool_path_init() - the per-id tables of a path with credits
 * @path: admitted path whose ops exist; runs in its INFO work
 *
 * Only pointers and bits per chunk id: the chunks themselves come with
 * the grant.  The path's free work frees what was allocated.
 *
 * Return: 0 or -ENOMEM.
 */
int rift_srv_pool_path_init(struct rift_srv_path *path)
{
	u16 qd = path->queue_depth;

	mutex_init(&path->cr_mutex);
	INIT_DELAYED_WORK(&path->pool_work, rift_srv_pool_work);
	path->cr_inv_cqe.done = rift_srv_pool_inv_done;
	path->chunks = kcalloc(qd, sizeof(*path->chunks), GFP_KERNEL);
	path->sgs = kcalloc(qd, sizeof(*path->sgs), GFP_KERNEL);
	path->mrs = kcalloc(qd, sizeof(*path->mrs), GFP_KERNEL);
	path->cr_present = bitmap_zalloc(qd, GFP_KERNEL);
	path->cr_reclaim = bitmap_zalloc(qd, GFP_KERNEL);
	if (!path->chunks || !path->sgs || !path->mrs || !path->cr_present ||
	    !path->cr_reclaim)
		return -ENOMEM;
	return 0;
}

/* Bytes of the segment array that comes with each chunk. */
#define RIFT_SRV_POOL_SEGS_BYTES	(RIFT_IO_MAX_SEGS * sizeof(struct rift_rbuf))

/**
 * rift_srv_chunk_reg() - map a chunk for the path's device and give it an MR
 * @path: path whose scatterlist and MR tables exist; process context
 * @id: chunk id without an MR
 * @buf: the chunk's memory: chunk_size bytes, physically contiguous
 * @wr: filled with the REG_MR that makes the key valid, not chained; it
 *	must reach the device before the client hears of the chunk
 *
 * The one registration of chunk memory: a chunk granted as a credit
 * (rift_srv_pool_chunk_get()) and every chunk of a path without credits
 * (rift_srv_path_reg_chunks()) are mapped, keyed and announced alike.
 * All or nothing: what a failure leaves of @id is undone here, because
 * the pool frees the chunk's pages at once and they must be unmapped
 * first.  The MR goes into @path->mrs last, only on success: that entry
 * is what rift_srv_chunk_unreg() goes by.
 *
 * Return: 0, -ENOMEM if the DMA mapping fails, ib_alloc_mr()'s errno
 * (an -ENOSPC there is the driver's limit, not the budget's), or -EINVAL
 * if the MR cannot take the chunk as one mapping.
 */
int rift_srv_chunk_reg(struct rift_srv_path *path, u16 id, void *buf,
		       struct ib_reg_wr *wr)
{
	u32 size = path->sess->chunk_size;
	struct ib_mr *mr;
	int err;

	sg_init_one(&path->sgs[id], buf, size);
	if (ib_dma_map_sg(path->ib_dev, &path->sgs[id], 1, DMA_BIDIRECTIONAL) != 1)
		return -ENOMEM;
	mr = ib_alloc_mr(path->pd.pd, IB_MR_TYPE_MEM_REG, DIV_ROUND_UP(size, PAGE_SIZE));
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
		goto err_unmap;
	}
	if (ib_map_mr_sg(mr, &path->sgs[id], 1, NULL, PAGE_SIZE) != 1) {
		err = -EINVAL;
		goto err_dereg;
	}
	/* The id as the tag: a trace tells the chunks of a path apart. */
	rift_mr_hide_iova(mr, id);
	/* A credit answer's REG_MRs are on its stack, not zeroed. */
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = IB_WR_REG_MR;
	wr->wr.wr_cqe = &path->reg_cqe;
	wr->mr = mr;
	wr->key = mr->rkey;
	wr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	path->mrs[id] = mr;
	return 0;

err_dereg:
	ib_dereg_mr(mr);
err_unmap:
	ib_dma_unmap_sg(path->ib_dev, &path->sgs[id], 1, DMA_BIDIRECTIONAL);
	return err;
}

/**
 * rift_srv_chunk_unreg() - undo rift_srv_chunk_reg()
 * @path: path on which no key of chunk @id can be used any more: its
 *	LOCAL_INV completed, or the path's QPs are drained
 * @id: chunk id
 *
 * The MR goes before the mapping its page list names.  Nothing to do for
 * an id without an MR, or once the close work freed the MR table
 * (rift_srv_path_unreg_chunks()): a chunk the ULP held at close is
 * unregistered by rift_srv_pool_stop() and comes here again when its
 * memory goes (rift_srv_pool_path_free()).
 */
void rift_srv_chunk_unreg(struct rift_srv_path *path, u16 id)
{
	if (path->mrs && path->mrs[id]) {
		ib_dereg_mr(path->mrs[id]);
		path->mrs[id] = NULL;
		ib_dma_unmap_sg(path->ib_dev, &path->sgs[id], 1, DMA_BIDIRECTIONAL);
	}
}

/**
 * rift_srv_pool_chunk_get() - give chunk @id memory and a registration
 * @path: path with credits
 * @id: chunk id without memory
 * @wr: filled with the REG_MR that must reach the device before the
 *	client hears of the chunk (the caller chains it in front of the
 *	message that announces it)
 *
 * Process context, under @path->cr_mutex or before the path is connected.
 * Zeroed memory: a read the ULP does not fill cannot leak what another
 * session (or this one's previous holder of the pages) left.  The
 * segment array comes with the chunk: a path at its floor has two.
 *
 * Return: 0, -EDQUOT if the budget has no room (not -ENOSPC, which a
 * driver's ib_alloc_mr() may return for its own limits, and which must
 * not be reported as the budget's), or another negative errno.
 */
int rift_srv_pool_chunk_get(struct rift_srv_path *path, u16 id, struct ib_reg_wr *wr)
{
	struct rift_srv_sess *sess = path->sess;
	u32 size = sess->chunk_size;
	struct rift_rbuf *segs;
	void *buf;
	int err = -ENOMEM;

	if (WARN_ON_ONCE(test_bit(id, path->cr_present)))
		return -EINVAL;
	if (!rift_srv_pinned_reserve(size))
		return -EDQUOT;
	buf = alloc_pages_exact(size, GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	/* always-invalidate: the chunk's read header copy comes with it. */
	segs = kzalloc(RIFT_SRV_POOL_SEGS_BYTES +
		       (path->always_inv ? RIFT_USR_LEN_MAX : 0), GFP_KERNEL);
	if (!buf || !segs)
		goto err_free;
	err = rift_srv_chunk_reg(path, id, buf, wr);
	if (err)
		goto err_free;
	path->chunks[id] = buf;
	path->ops[id].segs = segs;
	if (path->always_inv)
		path->ops[id].usr_copy = (u8 *)segs + RIFT_SRV_POOL_SEGS_BYTES;
	set_bit(id, path->cr_present);
	WRITE_ONCE(path->nr_present, path->nr_present + 1);
	atomic64_add(size, &sess->pinned);
	return 0;

err_free:
	kfree(segs);
	if (buf)
		free_pages_exact(buf, size);
	rift_srv_pinned_release(size);
	return err;
}

/* The memory half: no request on it is at the ULP. */
static void rift_srv_pool_chunk_free(struct rift_srv_path *path, u16 id)
{
	struct rift_srv_sess *sess = path->sess;

	free_pages_exact(path->chunks[id], sess->chunk_size);
	path->chunks[id] = NULL;
	kfree(path->ops[id].segs);
	path->ops[id].segs = NULL;
	path->ops[id].usr_copy = NULL;
	clear_bit(id, path->cr_present);
	WRITE_ONCE(path->nr_present, path->nr_present - 1);
	atomic64_sub(sess->chunk_size, &sess->pinned);
	rift_srv_pinned_release(sess->chunk_size);
}

/**
 * rift_srv_pool_admit() - the initial grant's chunks
 * @path: path with credits whose ids 0 .. @nr - 1 are granted
 * @nr: the initial grant
 * @wrs: @nr REG_MR WRs, chained, to go out in front of INFO_RSP
 * @table: INFO_RSP's chunk table, @nr entries
 *
 * Return: 0, -EDQUOT when the budget cannot hold the floor, or another
 * negative errno; what was allocated goes with the path.
 */
int rift_srv_pool_admit(struct rift_srv_path *path, u16 nr, struct ib_reg_wr *wrs,
			struct rift_rbuf *table)
{
	u16 i;
	int err;

	for (i = 0; i < nr; i++) {
		err = rift_srv_pool_chunk_get(path, i, &wrs[i]);
		if (err)
			return err;
		wrs[i].wr.next = i + 1 < nr ? &wrs[i + 1].wr : NULL;
		table[i].addr = path->mrs[i]->iova;
		table[i].len = path->sess->chunk_size;
		table[i].rkey = path->mrs[i]->rkey;
	}
	return 0;
}

/**
 * rift_srv_pool_room_chunks() - chunks the budget has room for now
 * @path: path whose chunk size counts
 *
 * Return: a hint for the size of an answer.
 */
u32 rift_srv_pool_room_chunks(struct rift_srv_path *path)
{
	return min_t(u64, div_u64(rift_srv_pool_room(), path->sess->chunk_size), U16_MAX);
}

/**
 * rift_srv_pool_start() - the path is connected: start its pool work
 * @path: path with credits, INFO_RSP on its way
 */
void rift_srv_pool_start(struct rift_srv_path *path)
{
	WRITE_ONCE(path->cr_last_rx, jiffies);
	queue_delayed_work(rift_srv_credit_wq, &path->pool_work,
			   msecs_to_jiffies(path->cr_idle_ms / 2));
}

/**
 * rift_srv_pool_kick() - run the pool work now
 * @path: path with credits; any context (a CREDIT_REL's receive handler)
 */
void rift_srv_pool_kick(struct rift_srv_path *path)
{
	mod_delayed_work(rift_srv_credit_wq, &path->pool_work, 0);
}

static void rift_srv_pool_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_srv_path *path = container_of(wc->wr_cqe, struct rift_srv_path,
						  cr_inv_cqe);

	/* A failed batch leaves its chunks to the path's teardown. */
	if (wc->status != IB_WC_SUCCESS) {
		rift_srv_path_fail(path, "chunk reclaim: local invalidate failed: %s",
				   ib_wc_status_msg(wc->status));
		return;
	}
	WRITE_ONCE(path->cr_inv_done, true);
	rift_srv_pool_kick(path);
}

/* The batch's keys are dead: its chunks go back to the budget. */
static void rift_srv_pool_reclaim_done(struct rift_srv_path *path)
{
	u16 i;

	lockdep_assert_held(&path->cr_mutex);
	if (!path->cr_inv_nr || !READ_ONCE(path->cr_inv_done))
		return;
	for (i = 0; i < path->cr_inv_nr; i++) {
		rift_srv_chunk_unreg(path, path->cr_inv[i]);
		rift_srv_pool_chunk_free(path, path->cr_inv[i]);
	}
	this_cpu_add(path->stats->reclaimed, path->cr_inv_nr);
	path->cr_inv_nr = 0;
	WRITE_ONCE(path->cr_inv_done, false);
}

/*
 * Post the LOCAL_INVs of chunks given back, one batch at a time, the
 * batch's last WR signalled (send WRs complete in order).  Every chunk
 * left behind has something that runs the work again, so nothing polls:
 * one whose op is still BUSY had its answer's post running when the
 * CREDIT_REL came, and the post's end kicks the work
 * (rift_srv_send_rsp()); one whose answers are posted but not complete
 * (tx_out) waits for the last of them, which kicks it
 * (rift_srv_op_tx_done()); one beyond the batch waits for the batch's
 * LOCAL_INV completion, which kicks it.  Caller holds the io_ref.
 */
static void rift_srv_pool_reclaim(struct rift_srv_path *path)
{
	struct ib_send_wr wrs[RIFT_SRV_POOL_INV_BATCH] = {};
	struct rift_srv_con *con = &path->cons[0];
	unsigned long bit;
	u16 nr = 0, i;
	int err;

	lockdep_assert_held(&path->cr_mutex);
	if (path->cr_inv_nr)
		return;
	spin_lock_irq(&path->cr_lock);
	/*
	 * The bits of cr_reclaim and the grant's clears were stored under
	 * cr_lock, so they are seen here; the full barrier orders them
	 * before the looks at BUSY.  It pairs with the barrier after
	 * rift_srv_op_take() in the IO path (a request that took the op
	 * before CREDIT_REL cleared the grant is seen BUSY here, one that
	 * took it after sees the grant gone), and with the one after the
	 * post in rift_srv_send_rsp() (a post seen BUSY here sees the bit
	 * there, and kicks the work).
	 */
	smp_mb__after_spinlock();
	for_each_set_bit(bit, path->cr_reclaim, path->queue_depth) {
		if (nr == RIFT_SRV_POOL_INV_BATCH)
			break;
		if (test_bit(RIFT_SRV_OP_BUSY, &path->ops[bit].flags))
			continue;
		/*
		 * BUSY went after tx_out was raised (release); and pairs with
		 * the barrier of the decrement in rift_srv_op_tx_done(): it
		 * kicks the work if this still saw its answer outstanding.
		 */
		smp_mb();
		if (atomic_read(&path->ops[bit].tx_out))
			continue;
		clear_bit(bit, path->cr_reclaim);
		path->cr_inv[nr++] = bit;
	}
	spin_unlock_irq(&path->cr_lock);
	if (!nr)
		return;
	for (i = 0; i < nr; i++) {
		wrs[i].opcode = IB_WR_LOCAL_INV;
		wrs[i].ex.invalidate_rkey = path->mrs[path->cr_inv[i]]->rkey;
		wrs[i].wr_cqe = &path->cr_inv_cqe;
		wrs[i].next = i + 1 < nr ? &wrs[i + 1] : NULL;
	}
	/* Counted like every send, and signalled whatever the count says. */
	rift_con_signal_n(&con->c, nr);
	wrs[nr - 1].send_flags = IB_SEND_SIGNALED;
	path->cr_inv_nr = nr;
	WRITE_ONCE(path->cr_inv_done, false);
	err = ib_post_send(con->c.qp, wrs, NULL);
	if (err)
		rift_srv_path_fail(path, "cannot post a chunk reclaim: %d", err);
}

/*
 * Revoke an idle path's grant down to its floor, or to the requests its
 * ULP still holds if they are more (rift_credit_srv_revoke()): the next
 * run takes it down the rest of the way once they ended, since the grant
 * is still above the floor (rift_srv_pool_rearm()).  The message's counts
 * are taken and the message posted under cr_mutex, as an answer's are,
 * so the client sees grants and revokes in the order they were counted.
 * Caller holds the io_ref.
 */
static void rift_srv_pool_revoke(struct rift_srv_path *path)
{
	struct rift_srv_con *con = &path->cons[0];
	struct rift_imm imm = { .type = RIFT_IMM_CREDIT };
	struct rift_credit c = { .flags = RIFT_CREDIT_F_REVOKE };
	struct rift_credit_srv s;
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	u16 keep;
	int len, err;

	lockdep_assert_held(&path->cr_mutex);
	if (rift_imm_encode(&imm, &wr.ex.imm_data))
		return;
	spin_lock_irq(&path->cr_lock);
	s = (struct rift_credit_srv) {
		.queue_depth	= path->queue_depth,
		.granted	= path->nr_granted,
		.floor		= path->cr_floor,
		.idle_ms	= path->cr_idle_ms,
		.quiet_ms	= jiffies_to_msecs(jiffies - READ_ONCE(path->cr_last_rx)),
		/* Requests at the ULP: keep their chunks (see there). */
		.busy		= max(atomic_read(&path->base.inflight), 0),
		.ready		= READ_ONCE(path->cr_ready),
		.req_out	= path->cr_req_out,
		.revoking	= path->cr_revoking,
	};
	keep = rift_credit_srv_revoke(&s);
	if (keep) {
		path->cr_revoking = true;
		path->cr_keep = keep;
		c.keep = keep;
		c.granted = path->nr_granted;
	}
	spin_unlock_irq(&path->cr_lock);
	if (!keep)
		return;
	/*
	 * The buffer is reused only by the next revoke, which waits for this
	 * one to end: for the client's CREDIT_RELs, sent after it had this.
	 */
	len = rift_proto_credit_encode(&c, path->queue_depth, path->cr_rev_tx->buf,
				       path->cr_rev_tx->size);
	if (len < 0) {
		rift_srv_path_fail(path, "cannot encode a revoke: %d", len);
		return;
	}
	ib_dma_sync_single_for_device(path->ib_dev, path->cr_rev_tx->dma, len,
				      DMA_TO_DEVICE);
	sge.addr = path->cr_rev_tx->dma;
	sge.length = len;
	sge.lkey = path->pd.pd->local_dma_lkey;
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr_cqe = &con->tx_cqe;
	if (rift_con_signal_n(&con->c, 1))
		wr.send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(con->c.qp, &wr, NULL);
	if (err) {
		rift_srv_path_fail(path, "cannot send a revoke: %d", err);
		return;
	}
	this_cpu_inc(path->stats->revokes);
	this_cpu_inc(path->stats->credits);
}

/*
 * Whether the work has a reason to run again by itself: the grant is
 * above the floor (a revoke may come due), or chunks wait for their
 * reclaim.  At the floor with nothing to reclaim it waits for a kick
 * instead: an answer that grows the grant queues it again
 * (rift_srv_pool_grown()), a CREDIT_REL kicks it.  Under cr_mutex, which
 * the answer holds while it grows the grant, so one of the two sees the
 * other.
 */
static bool rift_srv_pool_rearm(struct rift_srv_path *path)
{
	bool rearm;

	lockdep_assert_held(&path->cr_mutex);
	spin_lock_irq(&path->cr_lock);
	rearm = path->nr_granted > path->cr_floor || path->cr_inv_nr ||
		!bitmap_empty(path->cr_reclaim, path->queue_depth);
	spin_unlock_irq(&path->cr_lock);
	return rearm;
}

/**
 * rift_srv_pool_grown() - an answer grew the grant: watch it for idleness
 * @path: path with credits; its answer, under cr_mutex
 *
 * Queues the pool work in half an idle period unless it is queued
 * already (a sooner run stays).
 */
void rift_srv_pool_grown(struct rift_srv_path *path)
{
	lockdep_assert_held(&path->cr_mutex);
	queue_delayed_work(rift_srv_credit_wq, &path->pool_work,
			   msecs_to_jiffies(max(path->cr_idle_ms / 2, 1U)));
}

/*
 * Process context on rift_srv_credit_wq: finish the reclaim whose
 * LOCAL_INVs completed, start the next, revoke an idle path; then run
 * again in half an idle period (sooner when kicked) while there is
 * anything to revoke or reclaim.
 */
static void rift_srv_pool_work(struct work_struct *work)
{
	struct rift_srv_path *path = container_of(to_delayed_work(work),
						  struct rift_srv_path, pool_work);
	unsigned long delay = msecs_to_jiffies(max(path->cr_idle_ms / 2, 1U));
	bool rearm;

	if (READ_ONCE(path->state) != RIFT_SRV_PATH_CONNECTED)
		return;
	/* The close work waits for this before it destroys the QPs. */
	if (!percpu_ref_tryget_live(&path->io_ref))
		return;
	mutex_lock(&path->cr_mutex);
	rift_srv_pool_reclaim_done(path);
	rift_srv_pool_reclaim(path);
	rift_srv_pool_revoke(path);
	rearm = rift_srv_pool_rearm(path);
	mutex_unlock(&path->cr_mutex);
	percpu_ref_put(&path->io_ref);
	/* A kick meanwhile already queued it sooner: keep that. */
	if (rearm)
		queue_delayed_work(rift_srv_credit_wq, &path->pool_work, delay);
}

/**
 * rift_srv_pool_stop() - the path's QPs are destroyed: end its pool
 * @path: closing path; its close work
 *
 * No work runs or is queued afterwards, and every chunk's key is dead:
 * the MRs are deregistered and the memory unmapped here, while the
 * device is still there.  The memory of a chunk whose op is not BUSY goes
 * back to the budget here too, so that the path's next instance (a
 * reconnect) does not find the budget still held by this one's idle
 * chunks; a chunk the ULP holds stays until it answered
 * (rift_srv_pool_path_free()).
 *
 * Nothing can touch a chunk freed here afterwards: its op is not BUSY,
 * so no request on it is at the ULP, and none can start (the QPs and
 * their CQs are gone, so no receive runs rift_srv_op_start()); an op
 * becomes BUSY nowhere else.  Every WR that used it has completed or
 * flushed (drained), a half-posted read's rd is freed
 * (rift_srv_con_free_parked()), the answer and pool works are cancelled
 * and nothing can queue them (their kicks come from completions and from
 * posts under the io_ref, which is dead).  The INFO work, the only other
 * allocator, runs on the same ordered workqueue as this close work.
 */
void rift_srv_pool_stop(struct rift_srv_path *path)
{
	unsigned long bit;
	u32 freed = 0;

	if (!path->cr_present)
		return;
	cancel_delayed_work_sync(&path->pool_work);
	for_each_set_bit(bit, path->cr_present, path->queue_depth) {
		rift_srv_chunk_unreg(path, bit);
		/*
		 * Acquire: pairs with the release of BUSY in rift_srv_resp()
		 * (or its post), so that the ULP's last use of the chunk
		 * comes before the free.  Clearing the current bit does not
		 * upset the walk.
		 */
		if (!test_bit_acquire(RIFT_SRV_OP_BUSY, &path->ops[bit].flags)) {
			rift_srv_pool_chunk_free(path, bit);
			freed++;
		}
	}
	path->cr_inv_nr = 0;
	pr_debug("%s: %u chunks back to the budget at close, %u held by the ULP\n",
		 path->base.name, freed, READ_ONCE(path->nr_present));
}

/**
 * rift_srv_pool_path_free() - give everything back to the budget
 * @path: path whose last reference is gone; its free work
 */
void rift_srv_pool_path_free(struct rift_srv_path *path)
{
	unsigned long bit;

	/*
	 * Either bitmap may be missing when rift_srv_pool_path_init() failed
	 * half way: walk what exists, free both (bitmap_free(NULL) is a
	 * no-op).
	 */
	if (path->cr_present) {
		for_each_set_bit(bit, path->cr_present, path->queue_depth) {
			/* Unless setup failed before the close work could run. */
			rift_srv_chunk_unreg(path, bit);
			rift_srv_pool_chunk_free(path, bit);
		}
	}
	bitmap_free(path->cr_present);
	path->cr_present = NULL;
	bitmap_free(path->cr_reclaim);
	path->cr_reclaim = NULL;
}

/*
 * Chunks a path instance holds now: those present with credits, its
 * whole allocation without.  Lock-free, a snapshot.
 */
static u64 rift_srv_path_nr_chunks(struct rift_srv_path *path)
{
	return READ_ONCE(path->cr_present) ? READ_ONCE(path->nr_present) :
					     READ_ONCE(path->nr_chunks);
}

/**
 * rift_srv_path_pinned_bytes() - chunk memory a path instance holds
 * @path: any path; sysfs
 *
 * Chunks only, chunk_size each, as the session's and the module's
 * pinned_bytes count them (what the budget counts): without credits the
 * whole queue depth, as before memory credits; with them the chunks
 * granted or on their way back.  A snapshot.
 *
 * Return: bytes.
 */
u64 rift_srv_path_pinned_bytes(struct rift_srv_path *path)
{
	return rift_srv_path_nr_chunks(path) * path->sess->chunk_size;
}

/**
 * rift_srv_path_held_bytes() - everything a path instance holds on the server
 * @path: any path; sysfs
 *
 * What the design's "idle session pins at most 1 MiB" counts: chunk
 * memory, segment arrays (with a read header copy each under
 * always-invalidate), the per-id bookkeeping (ops, scatterlists, MR and
 * chunk pointers, rkey messages; header copies without credits) and the
 * receive buffers of every connection.  Not the QP and CQ rings, which the
 * device driver sizes.  Read without locks: a snapshot.
 *
 * Return: bytes.
 */
u64 rift_srv_path_held_bytes(struct rift_srv_path *path)
{
	u64 qd = path->queue_depth, chunks, segs, b;
	u16 i;

	chunks = rift_srv_path_nr_chunks(path);
	if (READ_ONCE(path->cr_present))
		segs = chunks * (RIFT_SRV_POOL_SEGS_BYTES +
				 (path->always_inv ? RIFT_USR_LEN_MAX : 0));
	else
		segs = READ_ONCE(path->segs) ? qd * RIFT_SRV_POOL_SEGS_BYTES : 0;
	b = rift_srv_path_pinned_bytes(path) + segs;
	if (READ_ONCE(path->ops))
		b += qd * (sizeof(struct rift_srv_op) + sizeof(struct scatterlist) +
			   sizeof(struct ib_mr *) + sizeof(void *));
	if (READ_ONCE(path->rkey_msgs))
		b += qd * sizeof(struct rift_wire_rkey_msg);
	if (READ_ONCE(path->usr_copies))
		b += qd * RIFT_USR_LEN_MAX;	/* without credits */
	for (i = 0; i < path->con_cnt; i++)
		b += (u64)READ_ONCE(path->cons[i].c.nr_rx) *
		     (RIFT_MSG_BUF_SIZE + sizeof(struct rift_iu));
	return b;
}

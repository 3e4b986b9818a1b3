// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: submission.  A ULP's request (rift_clt_request()) is
 * checked, kept in its slot, and posted on a path the multipath policy
 * picks, on the connection of the permit's CPU or poll connection: its
 * data as RDMA WRITEs or a read's fast registration, then its header as
 * an RDMA WRITE WITH_IMM (with REMOTE_INV a write's header as an RDMA
 * WRITE and a SEND WITH_INV of its chunk's key); a write's header rides
 * in its payload's last WRITE where that has room.  Requests submitted
 * with RIFT_REQ_MORE wait, built, in their connection's batch and go with
 * one ib_post_send().
 * The failover work (rift-clt-failover.c) posts again through
 * rift_clt_req_post() what a failed path held or what found no path.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"

static struct rift_clt_con *rift_clt_pick_con(struct rift_clt_path *path,
					      struct rift_permit *permit)
{
	int cpu = raw_smp_processor_id();
	u16 nr_io = rift_clt_nr_io_cons(path);

	/* Every path of a session has the session's poll connections. */
	if (permit->poll)
		return rift_clt_poll_con(path, permit->poll - 1);
	if (!nr_io)
		return &path->cons[RIFT_CLT_CON_CTL];
	if (cpu != permit->cpu)
		this_cpu_inc(path->stats->migrations);
	return &path->cons[1 + cpu % nr_io];
}

/*
 * Build a request's WRs into its slot: data WRITEs or a read's REG_MR,
 * then the header's WRITE WITH_IMM (with REMOTE_INV a write's header
 * WRITE and a SEND WITH_INV), linked from req->first_wr.  A write's
 * header may go in its payload's last WRITE instead, which then is the
 * WRITE WITH_IMM.  Nothing is posted here: rift_clt_con_queue() does,
 * alone or with a batch.
 */
static int rift_clt_build_io(struct rift_clt_req *req, struct rift_io_req *io)
{
	struct rift_clt_con *con = req->con;
	struct rift_clt_path *path = req->path;
	struct ib_device *ib_dev = con->c.dev->ib_dev;
	struct rift_io_limits lim = {
		.chunk_size = path->chunk_size,
		.max_io_size = path->max_io_size,
	};
	const struct rift_rbuf *chunk = &path->chunks[req->chunk];
	struct ib_rdma_wr *hdr_wr = &req->hdr_wr, *data_wr = NULL;
	struct ib_reg_wr *reg_wr = &req->reg_wr;
	struct ib_send_wr **link = &req->first_wr;
	struct rift_rbuf seg;
	struct rift_imm imm = {};
	struct scatterlist *s;
	u32 max_sge = con->c.max_send_sge;
	u32 off, hdr_gap;
	int n;
	bool inline_hdr, remote_inv, fold;
	int i;
	int len, err;
	__be32 imm_data;

	memset(hdr_wr, 0, sizeof(*hdr_wr));
	req->nr_wr = 1;
	/* req->hdr starts with the ULP header, the descriptor follows it. */
	if (req->bounced) {
		rift_clt_bounce_seg(path, req->chunk, req->data_len, &seg);
		io->nr_segs = 1;
	} else if (io->dir == RIFT_IO_READ) {
		req->mr = ib_mr_pool_get(con->c.qp, &con->c.qp->rdma_mrs);
		if (!req->mr)
			return -EAGAIN;
		n = ib_map_mr_sg(req->mr, req->sg, req->nents, NULL, PAGE_SIZE);
		if (n != req->nents)
			return n < 0 ? n : -EINVAL;
		rift_mr_hide_iova(req->mr, 0);
		ib_update_fast_reg_key(req->mr, ib_inc_rkey(req->mr->rkey));
		memset(reg_wr, 0, sizeof(*reg_wr));
		reg_wr->wr.opcode = IB_WR_REG_MR;
		reg_wr->wr.wr_cqe = &rift_clt_io_cqe;
		reg_wr->mr = req->mr;
		reg_wr->key = req->mr->rkey;
		reg_wr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
		seg.addr = req->mr->iova;
		seg.len = req->mr->length;
		seg.rkey = req->mr->rkey;
		io->nr_segs = 1;
	}
	err = rift_proto_io_layout(&lim, io);
	if (err)
		return err;
	hdr_gap = io->desc_off - io->usr_off;
	len = rift_proto_io_desc_encode(&lim, io, io->dir == RIFT_IO_READ ? &seg : NULL,
					req->hdr + hdr_gap, RIFT_CLT_HDR_BUF - hdr_gap);
	if (len < 0)
		return len;
	req->hdr_len = hdr_gap + len;
	/*
	 * A write's header lands right behind its payload (usr_off ==
	 * data_len): it goes as one more entry of the payload's last WRITE
	 * where that has room, which then carries the immediate.  One
	 * message instead of two, so one ACK fewer; the header is then read
	 * by the device, not copied inline.
	 */
	fold = io->dir == RIFT_IO_WRITE && req->nents % max_sge;
	inline_hdr = !fold && req->hdr_len <= con->c.max_inline;
	if (!inline_hdr) {
		req->hdr_dma = ib_dma_map_single(ib_dev, req->hdr, RIFT_CLT_HDR_BUF,
						 DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ib_dev, req->hdr_dma)) {
			req->hdr_dma = 0;
			return -ENOMEM;
		}
	}

	if (req->bounced) {
		/* The staging page is registered already: nothing to chain. */
	} else if (io->dir == RIFT_IO_READ) {
		*link = &reg_wr->wr;
		link = &reg_wr->wr.next;
		req->nr_wr++;
	} else {
		/* Payload at the start of the chunk, max_sge entries per WR. */
		struct ib_rdma_wr *wr = NULL;

		/* Room for the header behind the payload's entries. */
		BUILD_BUG_ON(RIFT_CLT_NR_SGES <= RIFT_IO_MAX_SEGS);

		off = 0;
		n = 0;
		for_each_sg(req->sg, s, req->nents, i) {
			if (i % max_sge == 0) {
				wr = &req->wrs[n++];
				req->nr_wr++;
				memset(wr, 0, sizeof(*wr));
				wr->wr.opcode = IB_WR_RDMA_WRITE;
				wr->wr.sg_list = &req->sges[i];
				wr->wr.wr_cqe = &rift_clt_io_cqe;
				wr->remote_addr = chunk->addr + io->data_off + off;
				wr->rkey = chunk->rkey;
				*link = &wr->wr;
				link = &wr->wr.next;
			}
			req->sges[i].addr = sg_dma_address(s);
			req->sges[i].length = sg_dma_len(s);
			req->sges[i].lkey = con->c.pd->local_dma_lkey;
			wr->wr.num_sge++;
			off += sg_dma_len(s);
		}
		data_wr = wr;
	}

	imm.type = io->dir == RIFT_IO_READ ? RIFT_IMM_READ : RIFT_IMM_WRITE;
	imm.chunk = req->chunk;
	imm.desc_off = io->desc_off;
	err = rift_imm_encode(&imm, &imm_data);
	if (err)
		return err;
	remote_inv = imm.type == RIFT_IMM_WRITE && READ_ONCE(path->remote_inv);
	/* Inline data is copied by the CPU at post time: no mapping needed. */
	req->hdr_sge.addr = inline_hdr ? (uintptr_t)req->hdr : req->hdr_dma;
	req->hdr_sge.length = req->hdr_len;
	req->hdr_sge.lkey = con->c.pd->local_dma_lkey;
	if (inline_hdr)
		hdr_wr->wr.send_flags = IB_SEND_INLINE;
	else
		ib_dma_sync_single_for_device(ib_dev, req->hdr_dma, req->hdr_len,
					      DMA_TO_DEVICE);
	if (fold) {
		hdr_wr = data_wr;
		req->sges[req->nents] = req->hdr_sge;
		hdr_wr->wr.num_sge++;
		req->nr_wr--;
	} else {
		hdr_wr->wr.sg_list = &req->hdr_sge;
		hdr_wr->wr.num_sge = 1;
		hdr_wr->wr.wr_cqe = &rift_clt_io_cqe;
		hdr_wr->remote_addr = chunk->addr + io->usr_off;
		hdr_wr->rkey = chunk->rkey;
		*link = &hdr_wr->wr;
	}
	hdr_wr->wr.opcode = remote_inv ? IB_WR_RDMA_WRITE : IB_WR_RDMA_WRITE_WITH_IMM;
	if (!remote_inv)
		hdr_wr->wr.ex.imm_data = imm_data;
	hdr_wr->wr.next = NULL;
	req->last_wr = &hdr_wr->wr;
	if (!remote_inv)
		return 0;

	/*
	 * REMOTE_INV: the request goes as a SEND that kills the chunk's key
	 * on the server's device as it lands, behind the data and header
	 * writes (an RC QP executes them in order), so the server gives it
	 * to its ULP without invalidating the key itself.  We offer it only
	 * where every connection sends the payload inline
	 * (rift_clt_path_inline_ok()).
	 */
	err = rift_proto_write_inv_encode(&imm, &req->inv_msg, sizeof(req->inv_msg));
	if (err < 0)
		return err;
	req->inv_sge.addr = (uintptr_t)&req->inv_msg;
	req->inv_sge.length = sizeof(req->inv_msg);
	req->inv_sge.lkey = con->c.pd->local_dma_lkey;
	memset(&req->inv_wr, 0, sizeof(req->inv_wr));
	req->inv_wr.opcode = IB_WR_SEND_WITH_INV;
	req->inv_wr.sg_list = &req->inv_sge;
	req->inv_wr.num_sge = 1;
	req->inv_wr.send_flags = IB_SEND_INLINE;
	req->inv_wr.ex.invalidate_rkey = chunk->rkey;
	req->inv_wr.wr_cqe = &rift_clt_io_cqe;
	hdr_wr->wr.next = &req->inv_wr;
	req->last_wr = &req->inv_wr;
	req->nr_wr++;
	return 0;
}

/* Whether @wr is one of @req's WRs (its chain ends with @req->last_wr). */
static bool rift_clt_req_has_wr(struct rift_clt_req *req,
				const struct ib_send_wr *wr)
{
	const struct ib_send_wr *w;

	for (w = req->first_wr; w; w = w->next) {
		if (w == wr)
			return true;
		if (w == req->last_wr)
			break;
	}
	return false;
}

/*
 * Post a connection's batch with one ib_post_send(), under its
 * batch_lock.  The requests stay QUEUED until the post returned: a
 * response that finds one QUEUED waits for this lock (rift_clt_rsp()),
 * so nothing else can claim one while the chain is walked, and a request
 * is POSTED only once its WRs are on the QP, which is what a timeout's
 * fence, posted behind it, relies on.  On an error, ib_post_send()'s bad
 * WR splits the chain: requests before it are on the wire; the one it
 * falls inside of is partly, and the path fails (its teardown drains the
 * QP, then moves or completes it); those from it on never left: @own
 * gets the error back, the others (whose ULP had its call return 0
 * already) wait for the failover work, which posts them again.
 *
 * Return: 0, or the error if @own was not posted; it is released then.
 */
static int rift_clt_con_post_batch(struct rift_clt_con *con,
				   struct rift_clt_req *own)
{
	struct rift_clt_req *req, *next, *owner = NULL, *first = con->batch_first;
	struct rift_clt_path *path = con->path;
	const struct ib_send_wr *bad = NULL;
	bool unsent = false;
	int err, ret = 0;
	u32 nr = 0;

	lockdep_assert_held(&con->batch_lock);
	if (!first)
		return 0;
	con->batch_first = NULL;
	con->batch_last = NULL;
	for (req = first; req; req = req->batch_next) {
		/* Every Nth WR signalled, counted in the order they are posted. */
		if (rift_con_signal_n(&con->c, req->nr_wr))
			req->last_wr->send_flags |= IB_SEND_SIGNALED;
		/* Before the post: its completion may come before it returns. */
		if (rift_clt_req_tx_wait(req)) {
			req->last_wr->wr_cqe = &req->tx_cqe;
			req->last_wr->send_flags |= IB_SEND_SIGNALED;
			atomic_set(&req->tx_out, 1);
		}
		req->last_wr->next = req->batch_next ? req->batch_next->first_wr : NULL;
		nr++;
	}
	atomic_sub(nr, &path->sess->nr_batched);
	err = ib_post_send(con->c.qp, first->first_wr, &bad);
	this_cpu_inc(path->stats->posts);
	if (err) {
		for (owner = first; owner; owner = owner->batch_next)
			if (rift_clt_req_has_wr(owner, bad))
				break;
		/* Some WRs may be on the wire: only draining the QP tells. */
		if (!owner || bad != owner->first_wr)
			rift_clt_path_fail(path, "partial post");
	}
	for (req = first; req; req = next) {
		next = req->batch_next;
		req->batch_next = NULL;
		if (req == owner)
			unsent = true;
		/* Its last WR, at or behind the bad one, never went out. */
		if (unsent)
			atomic_set(&req->tx_out, 0);
		if (!unsent || (req == owner && bad != req->first_wr)) {
			/* Pairs with the acquire of a response's cmpxchg. */
			atomic_set_release(&req->state, RIFT_CLT_REQ_POSTED);
			continue;
		}
		atomic_set(&req->state, RIFT_CLT_REQ_IDLE);
		rift_clt_req_release(req);
		if (req == own) {
			ret = err;
			continue;
		}
		/*
		 * Its ULP was told it is submitted; no done callback here,
		 * under the lock a completion's requeue may need.
		 */
		rift_clt_req_park(req);
	}
	return ret;
}

/*
 * Queue a built request on its connection's batch; without @more, post
 * the batch.  The caller is in the RCU read section in which it saw the
 * path connected, so the path's teardown cannot drain the QP meanwhile.
 *
 * Return: 0, or the error of @req's post (then it is released).
 */
static int rift_clt_con_queue(struct rift_clt_con *con,
			      struct rift_clt_req *req, bool more)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&con->batch_lock, flags);
	req->batch_next = NULL;
	if (con->batch_last)
		con->batch_last->batch_next = req;
	else
		con->batch_first = req;
	con->batch_last = req;
	atomic_inc(&req->sess->nr_batched);
	if (!more)
		err = rift_clt_con_post_batch(con, req);
	spin_unlock_irqrestore(&con->batch_lock, flags);
	return err;
}

/*
 * Post every batch of a path.  The caller is in an RCU read section in
 * which it saw the path connected.
 */
void rift_clt_path_commit(struct rift_clt_path *path)
{
	struct rift_clt_con *con;
	unsigned long flags;
	u16 i;

	for (i = 0; i < path->nr_cons; i++) {
		con = &path->cons[i];
		if (!READ_ONCE(con->batch_first))
			continue;
		spin_lock_irqsave(&con->batch_lock, flags);
		rift_clt_con_post_batch(con, NULL);
		spin_unlock_irqrestore(&con->batch_lock, flags);
	}
}

/**
 * rift_clt_commit() - post the requests a session holds back
 * @sess: session
 *
 * Posts every request submitted with %RIFT_REQ_MORE that no later
 * request has posted yet, one ib_post_send() per connection.  A ULP that
 * submitted with %RIFT_REQ_MORE calls this, or submits a request without
 * the flag, when its batch ends: blk-mq's ->commit_rqs.  Any context;
 * cheap when nothing is held back.
 */
void rift_clt_commit(struct rift_clt_sess *sess)
{
	struct rift_clt_path *path;

	if (!atomic_read(&sess->nr_batched))
		return;
	/*
	 * A path seen connected here cannot be drained before this section
	 * ends; a path that failed keeps its batches for its teardown
	 * (rift_clt_fail_inflight()), which moves them to another path.
	 */
	rcu_read_lock();
	list_for_each_entry_rcu(path, &sess->paths, entry)
		if (READ_ONCE(path->state) == RIFT_CLT_PATH_CONNECTED)
			rift_clt_path_commit(path);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(rift_clt_commit);

/*
 * The picked path @*pathp had no free chunk (memory credits, or orphans
 * of permits used again): take one of another connected path, else ask
 * the picked one for more.  Caller holds the RCU read lock.
 *
 * Return: 0 with *@pathp the path whose chunk @req holds, or -ENOBUFS.
 */
static int rift_clt_req_other_path(struct rift_clt_req *req,
				   struct rift_clt_path **pathp)
{
	struct rift_clt_path *path;

	list_for_each_entry_rcu(path, &req->sess->paths, entry) {
		if (path == *pathp || READ_ONCE(path->state) != RIFT_CLT_PATH_CONNECTED)
			continue;
		if (!rift_clt_chunk_get(path, req)) {
			*pathp = path;
			return 0;
		}
	}
	rift_clt_credit_starved(*pathp);
	return -ENOBUFS;
}

/**
 * rift_clt_req_post() - post a prepared request on a connected path
 * @req: request slot with the ULP's header, data and completion set
 * @more: more requests follow: leave it in its connection's batch
 *
 * Used for a new request and for a request moved off a failed path.
 *
 * Return: 0 if posted or queued in a batch (the completion will run),
 * -ENOTCONN if no path is connected, -ENOBUFS if no connected path has a
 * free chunk (memory credits: more were asked for), another negative
 * errno if posting failed; the request is not in flight then.
 */
int rift_clt_req_post(struct rift_clt_req *req, bool more)
{
	struct rift_clt_sess *sess = req->sess;
	struct rift_io_req io = {};
	struct rift_clt_path *path;
	struct ib_device *ib_dev;
	int err;

	/*
	 * The RCU read section spans the post: a path's teardown waits
	 * for it (synchronize_rcu) before draining the QP we post to.
	 */
	rcu_read_lock();
	path = rift_clt_pick_path(sess);
	if (!path) {
		err = -ENOTCONN;
		goto out_unlock;
	}
	/*
	 * A chunk of this path instance, whatever the request held on a path
	 * it lost: that one belonged to an instance that is gone.  With a
	 * chunk per permit there is one unless orphans hold chunks of
	 * permits used again (rift_clt_chunks_set_usable()).  A server that
	 * grants fewer (memory credits) may leave the picked path without a
	 * free one too: another connected path with one is taken instead,
	 * and with none the picked path asks for more (with memory credits)
	 * and the request waits for a chunk put (rift_clt_chunk_freed()).
	 */
	err = rift_clt_chunk_get(path, req);
	if (err == -ENOBUFS)
		err = rift_clt_req_other_path(req, &path);
	if (err)
		goto out_unlock;
	req->path = path;
	WRITE_ONCE(req->con, rift_clt_pick_con(path, req->permit));
	req->nents = 0;
	req->mr = NULL;
	req->hdr_dma = 0;
	req->bounced = rift_clt_bounce_usable(path, req);
	ib_dev = req->con->c.dev->ib_dev;
	if (req->data_len && !req->bounced) {
		req->nents = ib_dma_map_sg(ib_dev, req->sg, req->sg_cnt,
					   req->dir == RIFT_READ ? DMA_FROM_DEVICE :
					   DMA_TO_DEVICE);
		if (!req->nents) {
			rift_clt_chunk_put(path, req->chunk);
			WRITE_ONCE(req->chunk, RIFT_CLT_NO_CHUNK);
			err = -ENOMEM;
			goto out_unlock;
		}
	}
	io.dir = req->dir == RIFT_READ ? RIFT_IO_READ : RIFT_IO_WRITE;
	io.chunk = req->chunk;
	io.usr_len = req->usr_len;
	io.data_len = req->data_len;
	/* Its CANCEL names it (CANCEL_GEN), its answer echoes it (RSP_GEN). */
	io.gen = READ_ONCE(path->cancel_gen) || READ_ONCE(path->rsp_gen) ? req->gen : 0;
	atomic_inc(&path->base.inflight);
	atomic_inc(&req->con->inflight);
	/* Not POSTED before its WRs are: see rift_clt_con_post_batch(). */
	atomic_set_release(&req->state, RIFT_CLT_REQ_QUEUED);
	err = rift_clt_build_io(req, &io);
	if (err) {
		atomic_set(&req->state, RIFT_CLT_REQ_IDLE);
		rift_clt_req_release(req);
		goto out_unlock;
	}
	if (req->dir == RIFT_READ) {
		if (req->bounced)
			this_cpu_inc(path->stats->bounced_reads);
		this_cpu_inc(path->stats->base.reqs_read);
		this_cpu_add(path->stats->base.bytes_read, req->data_len);
	} else {
		this_cpu_inc(path->stats->base.reqs_write);
		this_cpu_add(path->stats->base.bytes_write, req->data_len);
	}
	err = rift_clt_con_queue(req->con, req, more);
out_unlock:
	rcu_read_unlock();
	return err;
}

static int rift_clt_submit(struct rift_clt_sess *sess, enum rift_dir dir,
			   const struct rift_clt_req_ops *ops,
			   struct rift_permit *permit,
			   const struct kvec *usr, size_t nr_usr,
			   size_t data_len, struct scatterlist *sg,
			   unsigned int sg_cnt, bool more)
{
	struct rift_clt_req *req = &sess->reqs[permit->id];
	size_t usr_len = 0, k;
	struct scatterlist *s;
	size_t sg_len = 0;
	unsigned int i;
	int err;

	for (k = 0; k < nr_usr; k++)
		usr_len += usr[k].iov_len;
	if (usr_len > RIFT_USR_LEN_MAX || data_len > sess->max_io_size ||
	    sg_cnt > RIFT_IO_MAX_SEGS)
		return -EMSGSIZE;
	if (permit->poll > sess->nr_poll_cons)
		return -EINVAL;
	/* The payload lands at the start of the chunk: it must be exact. */
	for_each_sg(sg, s, sg_cnt, i)
		sg_len += s->length;
	if (sg_len != data_len)
		return -EINVAL;

	/* Kept in the slot: a failover re-posts it without the ULP. */
	for (k = 0, usr_len = 0; k < nr_usr; k++) {
		memcpy(req->hdr + usr_len, usr[k].iov_base, usr[k].iov_len);
		usr_len += usr[k].iov_len;
	}
	req->usr_len = usr_len;
	req->permit = permit;
	req->dir = dir;
	req->ops = *ops;
	req->sg = sg;
	req->sg_cnt = sg_cnt;
	req->data_len = data_len;
	req->has_deadline = false;
	req->lost_path = false;
	req->start = jiffies;
	err = rift_clt_req_post(req, more);
	/*
	 * No path, or no chunk on one (memory credits): wait, within
	 * io_timeout_ms, for the failover work to post it.
	 */
	if ((err == -ENOTCONN || err == -ENOBUFS) && rift_clt_sess_may_wait(sess)) {
		req->lost_path = err == -ENOTCONN;
		rift_clt_req_park(req);
		return 0;
	}
	/*
	 * Not waiting (io_timeout_ms 0): no chunk free is a moment's
	 * shortage, as a busy MR pool is, which the ULP retries (riftblk:
	 * BLK_STS_RESOURCE), not an error of the request.
	 */
	if (err == -ENOBUFS)
		err = -EAGAIN;
	return err;
}

/**
 * rift_clt_request() - submit a read or write request
 * @sess: session
 * @dir: RIFT_READ (server to @sg) or RIFT_WRITE (@sg to server)
 * @ops: completion, called exactly once unless this returns an error
 * @permit: permit held by the caller for this request
 * @usr: ULP header pieces, RIFT_USR_LEN_MAX bytes in total at most
 * @nr_usr: number of @usr pieces
 * @data_len: payload bytes, at most the session's max_io_size
 * @sg: payload
 * @sg_cnt: entries in @sg, at most the session's max_segments
 * @flags: 0, or %RIFT_REQ_MORE
 *
 * With no path connected, or no free chunk on any (a server granting
 * memory credits), the request waits up to the session's io_timeout_ms
 * for one (then completes with -ETIMEDOUT); a request in
 * flight on a path that fails is posted again on another connected path,
 * see rift_clt_fail_inflight().  A request still in flight io_timeout_ms
 * after this call completes with -ETIMEDOUT, once no RDMA can touch @sg
 * any more; its permit may then be released as usual.
 *
 * With %RIFT_REQ_MORE the request's work requests wait, built, on their
 * connection until the batch is posted: by the next call without the
 * flag (which posts every batch of the session, also when it fails
 * itself) or rift_clt_commit().  The caller owes one of the two: until
 * then the request is not on the wire (the path's heartbeat tick posts a
 * forgotten batch, late).  A request of a batch is otherwise like any
 * other: if its path fails first it goes to another one, and if its
 * post fails its done callback reports it, after a retry on a path.
 *
 * Return: 0 if submitted; -EMSGSIZE for a request over the limits,
 * -EINVAL for a permit marked for a poll connection the session does not
 * have (rift_permit_set_poll()) or unknown @flags, -ENOTCONN if no path
 * is connected and none can come back (session closing, io_timeout_ms
 * 0), -EAGAIN if no connected path has a free chunk and the request may
 * not wait for one (io_timeout_ms 0: try again later, as when out of
 * MRs), another negative errno if posting failed (the request was not
 * submitted then).
 */
int rift_clt_request(struct rift_clt_sess *sess, enum rift_dir dir,
		     const struct rift_clt_req_ops *ops,
		     struct rift_permit *permit,
		     const struct kvec *usr, size_t nr_usr,
		     size_t data_len, struct scatterlist *sg,
		     unsigned int sg_cnt, unsigned int flags)
{
	bool more = flags & RIFT_REQ_MORE;
	int err;

	if (flags & ~RIFT_REQ_MORE)
		err = -EINVAL;
	else
		err = rift_clt_submit(sess, dir, ops, permit, usr, nr_usr,
				      data_len, sg, sg_cnt, more);
	/* The batch ends here: post what this and earlier calls queued. */
	if (!more)
		rift_clt_commit(sess);
	return err;
}
EXPORT_SYMBOL_GPL(rift_clt_request);

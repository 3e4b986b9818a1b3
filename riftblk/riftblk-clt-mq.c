// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client side, the IO path (blk-mq's operations).
 *
 * One blk-mq hardware queue per CPU: rift_clt_request() posts on the
 * connection of the CPU it runs on, so each CPU's queue feeds its own
 * connection.  A request takes a transport permit without waiting; when
 * there is none, blk-mq runs the queue again later (BLK_STS_RESOURCE).
 *
 * The requests of one dispatch go out with one doorbell: all but the
 * last (bd->last) are submitted with RIFT_REQ_MORE and wait, built, on
 * their connection; the last posts them, chained, with one
 * ib_post_send() per connection.  A dispatch that stops early ends with
 * ->commit_rqs, and every error return here commits too, so that no
 * request of the batch waits on the permits it holds itself.
 * Completions come from the transport's softirq and end the request
 * through blk_mq_complete_request().
 *
 * Requests never time out in the block layer: the transport fails them
 * over to other paths and fails them itself after its io_timeout_ms, and
 * a shorter block-layer timeout would fail IO the transport still holds.
 *
 * With nr_poll_queues=N the tag set has HCTX_TYPE_POLL queues after the
 * per-CPU ones (reads share the default queues): a request on poll queue
 * i goes on the session's poll connection i, whose completions no
 * interrupt reaps; blk-mq's ->poll (io_uring with IOPOLL, preadv2 with
 * RWF_HIPRI) reaps them through rift_clt_poll().
 *
 * A request the server answers ESTALE (it lost the mapping) is parked
 * for riftblk-clt-recover.c, which requeues or fails it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/blk-mq.h>

#include "riftblk-clt.h"

static blk_status_t riftblk_clt_errno_to_sts(int err)
{
	switch (err) {
	case 0:
		return BLK_STS_OK;
	case -ENOSPC:
		return BLK_STS_NOSPC;
	case -EOPNOTSUPP:
		return BLK_STS_NOTSUPP;
	case -ETIMEDOUT:
		return BLK_STS_TIMEOUT;
	case -ENODATA:
		return BLK_STS_MEDIUM;
	case -EILSEQ:
		return BLK_STS_PROTECTION;
	case -EREMOTEIO:
		return BLK_STS_TARGET;
	default:
		return BLK_STS_IOERR;
	}
}

static void riftblk_clt_io_done(void *priv, int err)
{
	struct request *rq = priv;
	struct riftblk_clt_iu *iu = blk_mq_rq_to_pdu(rq);
	struct riftblk_clt_dev *dev = rq->q->queuedata;

	iu->err = err;
	rift_clt_put_permit(dev->sess->rsess, iu->permit);
	if (err == -ESTALE) {
		/* The server lost the mapping: the request waits for a new one. */
		riftblk_clt_park(dev, iu);
		return;
	}
	blk_mq_complete_request(rq);
}

static void riftblk_clt_complete(struct request *rq)
{
	struct riftblk_clt_iu *iu = blk_mq_rq_to_pdu(rq);

	if (iu->err)
		pr_err_ratelimited("%s: %s of %u bytes at sector %llu failed: %d\n",
				   rq->q->disk ? rq->q->disk->disk_name : "?",
				   blk_op_str(req_op(rq)), blk_rq_bytes(rq),
				   (unsigned long long)blk_rq_pos(rq), iu->err);
	blk_mq_end_request(rq, riftblk_clt_errno_to_sts(iu->err));
}

/* The riftblk IO for a request; false for what riftblk cannot carry. */
static bool riftblk_clt_rq_io(struct request *rq, u32 dev_id, struct riftblk_io *io)
{
	memset(io, 0, sizeof(*io));
	io->dev_id = dev_id;
	io->sector = blk_rq_pos(rq);
	io->len = blk_rq_bytes(rq);
	switch (req_op(rq)) {
	case REQ_OP_READ:
		io->op = RIFTBLK_OP_READ;
		break;
	case REQ_OP_WRITE:
		io->op = RIFTBLK_OP_WRITE;
		break;
	case REQ_OP_FLUSH:
		io->op = RIFTBLK_OP_FLUSH;
		io->sector = 0;
		io->len = 0;
		break;
	case REQ_OP_DISCARD:
		io->op = RIFTBLK_OP_DISCARD;
		break;
	case REQ_OP_WRITE_ZEROES:
		io->op = RIFTBLK_OP_WRITE_ZEROES;
		if (rq->cmd_flags & REQ_NOUNMAP)
			io->flags |= RIFTBLK_IO_F_NOUNMAP;
		break;
	case REQ_OP_SECURE_ERASE:
		io->op = RIFTBLK_OP_SECURE_ERASE;
		break;
	default:
		return false;
	}
	if ((rq->cmd_flags & REQ_FUA) && io->op == RIFTBLK_OP_WRITE)
		io->flags |= RIFTBLK_IO_F_FUA;
	return true;
}

/* The poll connection of a poll queue: poll queues follow the others. */
static unsigned int riftblk_clt_poll_idx(struct blk_mq_hw_ctx *hctx)
{
	return hctx->queue_num - hctx->queue->tag_set->map[HCTX_TYPE_POLL].queue_offset;
}

static blk_status_t riftblk_clt_queue_rq(struct blk_mq_hw_ctx *hctx,
					 const struct blk_mq_queue_data *bd)
{
	struct request *rq = bd->rq;
	struct riftblk_clt_dev *dev = rq->q->queuedata;
	struct riftblk_clt_iu *iu = blk_mq_rq_to_pdu(rq);
	struct rift_clt_req_ops ops = { .priv = rq, .done = riftblk_clt_io_done };
	u8 hdr[sizeof(struct riftblk_wire_io)];
	struct kvec usr = { .iov_base = hdr, .iov_len = sizeof(hdr) };
	struct rift_clt_sess *rsess = dev->sess->rsess;
	unsigned int nents = 0;
	struct riftblk_io io;
	blk_status_t sts;
	bool data;
	int err;

	iu->dev_id = READ_ONCE(dev->dev_id);
	sts = BLK_STS_NOTSUPP;
	if (!riftblk_clt_rq_io(rq, iu->dev_id, &io))
		goto out;
	sts = BLK_STS_IOERR;
	if (riftblk_io_encode(&io, hdr, sizeof(hdr)) < 0)
		goto out;
	data = io.op == RIFTBLK_OP_READ || io.op == RIFTBLK_OP_WRITE;

	sts = BLK_STS_RESOURCE;
	iu->permit = rift_clt_get_permit(rsess, RIFT_PERMIT_NOWAIT);
	if (!iu->permit)
		goto out;
	sts = BLK_STS_IOERR;
	if (hctx->type == HCTX_TYPE_POLL)
		rift_permit_set_poll(iu->permit, riftblk_clt_poll_idx(hctx));
	blk_mq_start_request(rq);
	if (data) {
		sg_init_table(iu->sg, dev->sess->max_segments);
		nents = blk_rq_map_sg(rq->q, rq, iu->sg);
	}
	/* A failing call without RIFT_REQ_MORE still posts the batch. */
	err = rift_clt_request(rsess, io.op == RIFTBLK_OP_READ ? RIFT_READ : RIFT_WRITE,
			       &ops, iu->permit, &usr, 1, data ? io.len : 0,
			       nents ? iu->sg : NULL, nents,
			       bd->last ? 0 : RIFT_REQ_MORE);
	if (!err)
		return BLK_STS_OK;
	rift_clt_put_permit(rsess, iu->permit);
	/* Out of MRs or memory for a moment: blk-mq tries again. */
	if (err == -EAGAIN || err == -ENOMEM)
		sts = BLK_STS_RESOURCE;
	else
		pr_err_ratelimited("%s: cannot submit a request: %d\n",
				   dev->disk->disk_name, err);
out:
	/*
	 * blk-mq does not always call ->commit_rqs when the dispatch's last
	 * request fails (a direct issue's last one finding no permit): the
	 * requests held back would keep their permits and wait for this one.
	 */
	rift_clt_commit(rsess);
	return sts;
}

static void riftblk_clt_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct riftblk_clt_dev *dev = hctx->queue->queuedata;

	rift_clt_commit(dev->sess->rsess);
}

static enum blk_eh_timer_return riftblk_clt_timeout(struct request *rq)
{
	pr_info_ratelimited("%s: request at sector %llu still with the transport after %us\n",
			    rq->q->disk ? rq->q->disk->disk_name : "?",
			    (unsigned long long)blk_rq_pos(rq), RIFTBLK_RQ_TIMEOUT / HZ);
	return BLK_EH_RESET_TIMER;
}

static int riftblk_clt_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct riftblk_clt_dev *dev = hctx->queue->queuedata;

	return rift_clt_poll(dev->sess->rsess, riftblk_clt_poll_idx(hctx));
}

/*
 * Per-CPU default queues, reads sharing them; poll queues after them,
 * spread over the CPUs (a CPU's polled IO goes to one poll queue).
 */
static void riftblk_clt_map_queues(struct blk_mq_tag_set *set)
{
	struct riftblk_clt_dev *dev = set->driver_data;
	struct blk_mq_queue_map *map = set->map;

	map[HCTX_TYPE_DEFAULT].nr_queues = nr_cpu_ids;
	map[HCTX_TYPE_DEFAULT].queue_offset = 0;
	blk_mq_map_queues(&map[HCTX_TYPE_DEFAULT]);
	if (set->nr_maps == 1)
		return;
	map[HCTX_TYPE_READ].nr_queues = nr_cpu_ids;
	map[HCTX_TYPE_READ].queue_offset = 0;
	blk_mq_map_queues(&map[HCTX_TYPE_READ]);
	map[HCTX_TYPE_POLL].nr_queues = dev->nr_poll_queues;
	map[HCTX_TYPE_POLL].queue_offset = nr_cpu_ids;
	blk_mq_map_queues(&map[HCTX_TYPE_POLL]);
}

const struct blk_mq_ops riftblk_clt_mq_ops = {
	.queue_rq	= riftblk_clt_queue_rq,
	.commit_rqs	= riftblk_clt_commit_rqs,
	.complete	= riftblk_clt_complete,
	.timeout	= riftblk_clt_timeout,
	.poll		= riftblk_clt_poll,
	.map_queues	= riftblk_clt_map_queues,
};

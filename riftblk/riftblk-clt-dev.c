// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client side, the block device.
 *
 * One blk-mq hardware queue per CPU: rift_clt_request() posts on the
 * connection of the CPU it runs on, so each CPU's queue feeds its own
 * connection.  A request takes a transport permit without waiting; when
 * there is none, blk-mq runs the queue again later (BLK_STS_RESOURCE).
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
 * A server that lost the mapping without closing it on request (it was
 * reloaded, or the session was gone long enough for the server to drop
 * it) answers its IO ESTALE.  Such requests are parked, the device is
 * opened again under its device_path and access_mode from a work item,
 * and the parked requests are requeued with the new handle; they fail
 * only when re-opening keeps failing for remap_timeout_ms.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "riftblk-clt.h"

#define RIFTBLK_PART_SHIFT	4
/* Only to report requests the transport holds for long: they are kept. */
#define RIFTBLK_RQ_TIMEOUT	(120 * HZ)

static unsigned int size_poll_ms = 2000;
module_param(size_poll_ms, uint, 0644);
MODULE_PARM_DESC(size_poll_ms,
		 "Interval at which mapped devices re-read their size from the server, ms; 0: never (default 2000)");

static unsigned int remap_timeout_ms = 30000;
module_param(remap_timeout_ms, uint, 0644);
MODULE_PARM_DESC(remap_timeout_ms,
		 "How long IO waits for a device the server lost (ESTALE) to be opened again before it fails, ms (default 30000, the transport's default io_timeout_ms)");

/* Pause between attempts to open a lost device again. */
#define RIFTBLK_REOPEN_RETRY	HZ

static int riftblk_major;
static DEFINE_IDA(riftblk_clt_ida);
static LIST_HEAD(riftblk_clt_devs);

/**
 * struct riftblk_clt_iu - per-request data of the blk-mq request
 * @permit: the transport permit the request holds
 * @err: the request's result
 * @dev_id: the handle it was sent with
 * @stale_entry: in riftblk_clt_dev.stale_rqs
 * @sg: its data, rift_clt_attrs.max_segments entries
 */
struct riftblk_clt_iu {
	struct rift_permit	*permit;
	int			err;
	u32			dev_id;
	struct list_head	stale_entry;
	struct scatterlist	sg[];
};

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

static bool riftblk_clt_dev_change_state(struct riftblk_clt_dev *dev,
					 enum riftblk_clt_state new);

static void riftblk_clt_io_done(void *priv, int err)
{
	struct request *rq = priv;
	struct riftblk_clt_iu *iu = blk_mq_rq_to_pdu(rq);
	struct riftblk_clt_dev *dev = rq->q->queuedata;

	iu->err = err;
	rift_clt_put_permit(dev->sess->rsess, iu->permit);
	if (err == -ESTALE) {
		unsigned long flags;

		/* Opening the device again sleeps: hand it to a work item. */
		spin_lock_irqsave(&dev->state_lock, flags);
		list_add_tail(&iu->stale_entry, &dev->stale_rqs);
		/*
		 * Refused when the device is REMAPPING already (requests wait
		 * from when the first parked) or UNMAPPING.
		 */
		riftblk_clt_dev_change_state(dev, RIFTBLK_CLT_REMAPPING);
		spin_unlock_irqrestore(&dev->state_lock, flags);
		queue_delayed_work(system_long_wq, &dev->recover_work, 0);
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
	bool data;
	int err;

	iu->dev_id = READ_ONCE(dev->dev_id);
	if (!riftblk_clt_rq_io(rq, iu->dev_id, &io))
		return BLK_STS_NOTSUPP;
	if (riftblk_io_encode(&io, hdr, sizeof(hdr)) < 0)
		return BLK_STS_IOERR;
	data = io.op == RIFTBLK_OP_READ || io.op == RIFTBLK_OP_WRITE;

	iu->permit = rift_clt_get_permit(rsess, RIFT_PERMIT_NOWAIT);
	if (!iu->permit)
		return BLK_STS_RESOURCE;
	if (hctx->type == HCTX_TYPE_POLL)
		rift_permit_set_poll(iu->permit, riftblk_clt_poll_idx(hctx));
	blk_mq_start_request(rq);
	if (data) {
		sg_init_table(iu->sg, dev->sess->max_segments);
		nents = blk_rq_map_sg(rq->q, rq, iu->sg);
	}
	err = rift_clt_request(rsess, io.op == RIFTBLK_OP_READ ? RIFT_READ : RIFT_WRITE,
			       &ops, iu->permit, &usr, 1, data ? io.len : 0,
			       nents ? iu->sg : NULL, nents);
	if (!err)
		return BLK_STS_OK;
	rift_clt_put_permit(rsess, iu->permit);
	/* Out of MRs or memory for a moment: blk-mq tries again. */
	if (err == -EAGAIN || err == -ENOMEM)
		return BLK_STS_RESOURCE;
	pr_err_ratelimited("%s: cannot submit a request: %d\n",
			   dev->disk->disk_name, err);
	return BLK_STS_IOERR;
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

static const struct blk_mq_ops riftblk_clt_mq_ops = {
	.queue_rq	= riftblk_clt_queue_rq,
	.complete	= riftblk_clt_complete,
	.timeout	= riftblk_clt_timeout,
	.poll		= riftblk_clt_poll,
	.map_queues	= riftblk_clt_map_queues,
};

static bool riftblk_clt_dev_unmapping(struct riftblk_clt_dev *dev);

static int riftblk_clt_open(struct block_device *bdev, fmode_t mode)
{
	struct riftblk_clt_dev *dev = bdev->bd_disk->private_data;
	int err = 0;

	mutex_lock(&dev->lock);
	if (riftblk_clt_dev_unmapping(dev))
		err = -ENXIO;
	else if ((mode & FMODE_WRITE) && dev->access_mode == RIFTBLK_ACCESS_RO)
		err = -EROFS;
	else
		dev->open_cnt++;
	mutex_unlock(&dev->lock);
	return err;
}

static void riftblk_clt_release(struct gendisk *disk, fmode_t mode)
{
	struct riftblk_clt_dev *dev = disk->private_data;

	mutex_lock(&dev->lock);
	dev->open_cnt--;
	mutex_unlock(&dev->lock);
}

/* The last reference to the disk is gone: nothing can reach @dev. */
static void riftblk_clt_free_disk(struct gendisk *disk)
{
	struct riftblk_clt_dev *dev = disk->private_data;

	ida_free(&riftblk_clt_ida, dev->idx);
	kfree(dev);
}

static const struct block_device_operations riftblk_clt_fops = {
	.owner		= THIS_MODULE,
	.open		= riftblk_clt_open,
	.release	= riftblk_clt_release,
	.free_disk	= riftblk_clt_free_disk,
};

/* ------------------------------------------------------------------ */
/* Talking to the server                                               */
/* ------------------------------------------------------------------ */

static int riftblk_clt_ask_info(struct riftblk_clt_sess *sess, u16 type,
				const void *msg, size_t len,
				struct riftblk_dev_info *info)
{
	void *buf;
	int err;

	buf = (void *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = riftblk_clt_sync_req(sess, RIFT_READ, msg, len, buf, RIFTBLK_RSP_BUF_LEN);
	if (!err) {
		err = riftblk_dev_info_decode(type, buf, RIFTBLK_RSP_BUF_LEN, info);
		if (err)
			pr_err_ratelimited("session %s: %s from the server refused: malformed or device limits out of range (%d)\n",
					   sess->name, type == RIFTBLK_MSG_OPEN_RSP ?
					   "OPEN_RSP" : "INFO_RSP", err);
	}
	free_page((unsigned long)buf);
	return err;
}

static int riftblk_clt_send_open(struct riftblk_clt_sess *sess, const char *path,
				 u16 mode, struct riftblk_dev_info *info)
{
	struct riftblk_open *open;
	u8 msg[sizeof(struct riftblk_wire_open)];
	int len;

	open = kzalloc(sizeof(*open), GFP_KERNEL);
	if (!open)
		return -ENOMEM;
	open->access_mode = mode;
	strscpy(open->path, path, sizeof(open->path));
	len = riftblk_open_encode(open, msg, sizeof(msg));
	kfree(open);
	if (len < 0)
		return len;
	len = riftblk_clt_ask_info(sess, RIFTBLK_MSG_OPEN_RSP, msg, len, info);
	if (!len && info->access_mode != mode) {
		pr_err_ratelimited("session %s: server granted %s for %s, asked %s\n", sess->name,
				   riftblk_access_mode_name(info->access_mode), path,
				   riftblk_access_mode_name(mode));
		return -EPROTO;
	}
	return len;
}

/* CLOSE or INFO (its answer in @info) of the mapping with handle @dev_id. */
static int riftblk_clt_send_dev(struct riftblk_clt_sess *sess, u16 type,
				u32 dev_id, struct riftblk_dev_info *info)
{
	u8 msg[sizeof(struct riftblk_wire_dev)];
	int len;

	len = riftblk_dev_encode(type, dev_id, msg, sizeof(msg));
	if (len < 0)
		return len;
	if (type == RIFTBLK_MSG_CLOSE)
		return riftblk_clt_sync_req(sess, RIFT_WRITE, msg, len, NULL, 0);
	return riftblk_clt_ask_info(sess, RIFTBLK_MSG_INFO_RSP, msg, len, info);
}

/* ------------------------------------------------------------------ */
/* Queue limits and size                                               */
/* ------------------------------------------------------------------ */

static void riftblk_clt_set_limits(struct riftblk_clt_dev *dev)
{
	const struct riftblk_dev_info *info = &dev->info;
	struct request_queue *q = dev->disk->queue;
	u32 max_sectors = round_down(dev->sess->max_io_size, PAGE_SIZE) >> SECTOR_SHIFT;
	/* Whole-byte lengths of one request must fit the IO message's len. */
	u32 cap = U32_MAX >> SECTOR_SHIFT;

	blk_queue_logical_block_size(q, info->logical_block_size);
	blk_queue_physical_block_size(q, info->physical_block_size);
	blk_queue_io_min(q, info->io_min);
	blk_queue_io_opt(q, info->io_opt);
	blk_queue_max_hw_sectors(q, max_sectors);
	blk_queue_max_segments(q, min_t(u32, dev->sess->max_segments, USHRT_MAX));
	/* Reads go through one page-granular MR: no gaps inside a page. */
	blk_queue_virt_boundary(q, PAGE_SIZE - 1);
	blk_queue_max_discard_segments(q, 1);
	blk_queue_max_discard_sectors(q, min(info->max_discard_sectors, cap));
	q->limits.discard_granularity = info->max_discard_sectors ?
		max(info->discard_granularity, info->logical_block_size) : 0;
	blk_queue_max_write_zeroes_sectors(q, min(info->max_write_zeroes_sectors, cap));
	blk_queue_max_secure_erase_sectors(q, min(info->max_secure_erase_sectors, cap));
	blk_queue_write_cache(q, info->caps & RIFTBLK_CAP_WRITE_CACHE,
			      info->caps & RIFTBLK_CAP_FUA);
	if (info->caps & RIFTBLK_CAP_ROTATIONAL)
		blk_queue_flag_clear(QUEUE_FLAG_NONROT, q);
	else
		blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_rq_timeout(q, RIFTBLK_RQ_TIMEOUT);
}

/* ------------------------------------------------------------------ */
/* The device's state machine                                          */
/* ------------------------------------------------------------------ */

static const char * const riftblk_clt_state_names[] = {
	[RIFTBLK_CLT_MAPPED]	= "mapped",
	[RIFTBLK_CLT_REMAPPING]	= "remapping",
	[RIFTBLK_CLT_UNMAPPING]	= "unmapping",
};

static_assert(ARRAY_SIZE(riftblk_clt_state_names) == RIFTBLK_CLT_STATE_NR);

#define S(x) BIT(RIFTBLK_CLT_##x)
/* Allowed transitions: from state (index) to any state in the mask. */
static const u32 riftblk_clt_state_next[RIFTBLK_CLT_STATE_NR] = {
	[RIFTBLK_CLT_MAPPED]	= S(REMAPPING) | S(UNMAPPING),
	[RIFTBLK_CLT_REMAPPING]	= S(MAPPED) | S(UNMAPPING),
	[RIFTBLK_CLT_UNMAPPING]	= 0,
};

#undef S

static const struct rift_sm riftblk_clt_dev_sm = {
	.name	= "riftblk device",
	.names	= riftblk_clt_state_names,
	.next	= riftblk_clt_state_next,
	.nr	= RIFTBLK_CLT_STATE_NR,
};

/*
 * The one place a device changes state.  Returns false when the
 * transition is not allowed, which callers use to lose races: a request
 * parked while the device is REMAPPING already leaves the time the first
 * one began to wait, and nothing leaves UNMAPPING.
 */
static bool riftblk_clt_dev_change_state(struct riftblk_clt_dev *dev,
					 enum riftblk_clt_state new)
{
	lockdep_assert_held(&dev->state_lock);
	if (new == RIFTBLK_CLT_UNMAPPING)
		lockdep_assert_held(&dev->lock);
	if (!rift_sm_change(&riftblk_clt_dev_sm, dev->state, new,
			    dev->sess->name, dev->disk->disk_name))
		return false;
	if (new == RIFTBLK_CLT_REMAPPING)
		dev->remap_start = jiffies;
	WRITE_ONCE(dev->state, new);
	return true;
}

/* Under @dev->lock, which no change into UNMAPPING happens without. */
static bool riftblk_clt_dev_unmapping(struct riftblk_clt_dev *dev)
{
	lockdep_assert_held(&dev->lock);
	return READ_ONCE(dev->state) == RIFTBLK_CLT_UNMAPPING;
}

/*
 * Back to MAPPED, unless requests still wait parked or the handle is
 * known lost: the recovery work then still has them to see to.
 */
static void riftblk_clt_remap_end(struct riftblk_clt_dev *dev)
{
	lockdep_assert_held(&dev->id_lock);
	spin_lock_irq(&dev->state_lock);
	if (!dev->reopen && list_empty(&dev->stale_rqs))
		riftblk_clt_dev_change_state(dev, RIFTBLK_CLT_MAPPED);
	spin_unlock_irq(&dev->state_lock);
}

/* ------------------------------------------------------------------ */
/* Opening a device again: remap, and the server lost it               */
/* ------------------------------------------------------------------ */

/*
 * Open the device under a new handle: the one way for both a write to
 * remap (@remap) and the recovery from ESTALE.  A remap first drops the
 * old mapping, which either end may still hold, and takes the device's
 * current size and limits: the queue is frozen, no request waits that was
 * built for the old ones.  The recovery takes over only the size: the
 * queue's requests were built for the other limits.  A new logical block
 * size is refused by both (EMEDIUMTYPE), and its mapping closed again.
 */
static int riftblk_clt_reopen(struct riftblk_clt_dev *dev, bool remap)
{
	struct riftblk_dev_info info;
	int err;

	lockdep_assert_held(&dev->id_lock);
	if (remap) {
		err = riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_CLOSE, dev->dev_id, NULL);
		if (err && err != -ENODEV && err != -ESTALE)
			pr_info("%s: remap: closing the old mapping: %d\n",
				dev->disk->disk_name, err);
	}
	err = riftblk_clt_send_open(dev->sess, dev->device_path, dev->access_mode, &info);
	if (err)
		return err;
	if (info.logical_block_size != dev->info.logical_block_size) {
		riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_CLOSE, info.dev_id, NULL);
		return -EMEDIUMTYPE;
	}
	WRITE_ONCE(dev->dev_id, info.dev_id);
	dev->reopen = false;
	if (remap) {
		dev->info = info;
		riftblk_clt_set_limits(dev);
		set_capacity_and_notify(dev->disk, info.nr_sectors);
		pr_info("%s: remapped %s as dev_id %u\n", dev->disk->disk_name,
			dev->device_path, info.dev_id);
		return 0;
	}
	dev->info.dev_id = info.dev_id;
	if (info.nr_sectors != dev->info.nr_sectors) {
		dev->info.nr_sectors = info.nr_sectors;
		set_capacity_and_notify(dev->disk, info.nr_sectors);
	}
	pr_info_ratelimited("%s: the server lost %s: opened it again as dev_id %u\n",
			    dev->disk->disk_name, dev->device_path, info.dev_id);
	return 0;
}

/*
 * Re-open the device if a parked request carries the current handle
 * (the server does not know it), then requeue what is parked.  Parked
 * requests with an older handle only need the requeue.  A failed re-open
 * is tried again until remap_timeout_ms after the first request parked;
 * then, or when the device is being unmapped, the requests fail.
 */
static void riftblk_clt_recover_work(struct work_struct *work)
{
	struct riftblk_clt_dev *dev = container_of(to_delayed_work(work),
						   struct riftblk_clt_dev, recover_work);
	unsigned long deadline;
	struct riftblk_clt_iu *iu, *tmp;
	bool reopen, unmapping, requeued = false;
	LIST_HEAD(rqs);
	int err = 0;

	mutex_lock(&dev->id_lock);
	spin_lock_irq(&dev->state_lock);
	list_splice_init(&dev->stale_rqs, &rqs);
	deadline = dev->remap_start + msecs_to_jiffies(READ_ONCE(remap_timeout_ms));
	unmapping = dev->state == RIFTBLK_CLT_UNMAPPING;
	spin_unlock_irq(&dev->state_lock);
	reopen = dev->reopen;
	list_for_each_entry(iu, &rqs, stale_entry)
		reopen |= iu->dev_id == dev->dev_id;
	if (reopen)
		err = unmapping ? -ENODEV : riftblk_clt_reopen(dev, false);
	spin_lock_irq(&dev->state_lock);
	if (err && err != -ENODEV && time_before(jiffies, deadline)) {
		/* Requests parked meanwhile wait with these. */
		list_splice(&rqs, &dev->stale_rqs);
		spin_unlock_irq(&dev->state_lock);
		mutex_unlock(&dev->id_lock);
		pr_info_ratelimited("%s: opening %s again failed: %d; retrying\n",
				    dev->disk->disk_name, dev->device_path, err);
		queue_delayed_work(system_long_wq, &dev->recover_work,
				   RIFTBLK_REOPEN_RETRY);
		return;
	}
	spin_unlock_irq(&dev->state_lock);
	dev->reopen = false;
	riftblk_clt_remap_end(dev);
	mutex_unlock(&dev->id_lock);
	if (err)
		pr_err_ratelimited("%s: the server lost %s and it cannot be opened again: %d\n",
				   dev->disk->disk_name, dev->device_path, err);

	list_for_each_entry_safe(iu, tmp, &rqs, stale_entry) {
		struct request *rq = blk_mq_rq_from_pdu(iu);

		/* Off the list first: a requeued request is soon reused. */
		list_del_init(&iu->stale_entry);
		if (err) {
			iu->err = err;
			blk_mq_complete_request(rq);
		} else {
			blk_mq_requeue_request(rq, false);
			requeued = true;
		}
	}
	if (requeued)
		blk_mq_kick_requeue_list(dev->disk->queue);
}

/*
 * Map the device again on the server under a new handle (after the
 * server lost the mapping: reload, force-close) and take its current
 * size and limits.  IO waits in the frozen queue meanwhile.
 */
static int riftblk_clt_remap(struct riftblk_clt_dev *dev)
{
	int err;

	mutex_lock(&dev->lock);
	if (riftblk_clt_dev_unmapping(dev)) {
		mutex_unlock(&dev->lock);
		return -ENODEV;
	}
	blk_mq_freeze_queue(dev->disk->queue);
	/* After the freeze: it waited for the re-open of parked requests. */
	mutex_lock(&dev->id_lock);
	spin_lock_irq(&dev->state_lock);
	riftblk_clt_dev_change_state(dev, RIFTBLK_CLT_REMAPPING);
	spin_unlock_irq(&dev->state_lock);
	err = riftblk_clt_reopen(dev, true);
	if (err)
		pr_err("%s: remap of %s failed: %d\n", dev->disk->disk_name,
		       dev->device_path, err);
	riftblk_clt_remap_end(dev);
	mutex_unlock(&dev->id_lock);
	blk_mq_unfreeze_queue(dev->disk->queue);
	mutex_unlock(&dev->lock);
	return err;
}

static void riftblk_clt_size_work(struct work_struct *work)
{
	struct riftblk_clt_dev *dev = container_of(to_delayed_work(work),
						   struct riftblk_clt_dev, size_work);
	unsigned int ms = READ_ONCE(size_poll_ms);
	struct riftblk_dev_info info;
	int err = -ENOTCONN;

	mutex_lock(&dev->lock);
	mutex_lock(&dev->id_lock);
	if (ms && !riftblk_clt_dev_unmapping(dev) && !READ_ONCE(dev->sess->disconnected))
		err = riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_INFO, dev->dev_id, &info);
	if (err == -ESTALE) {
		/* The server lost the device: open it before IO finds out. */
		dev->reopen = true;
		spin_lock_irq(&dev->state_lock);
		riftblk_clt_dev_change_state(dev, RIFTBLK_CLT_REMAPPING);
		spin_unlock_irq(&dev->state_lock);
		queue_delayed_work(system_long_wq, &dev->recover_work, 0);
	} else if (!err && info.logical_block_size == dev->info.logical_block_size &&
		   info.nr_sectors != dev->info.nr_sectors) {
		pr_info_ratelimited("%s: size changed on the server: %llu -> %llu sectors\n",
				    dev->disk->disk_name, dev->info.nr_sectors, info.nr_sectors);
		dev->info.nr_sectors = info.nr_sectors;
		set_capacity_and_notify(dev->disk, info.nr_sectors);
	}
	mutex_unlock(&dev->id_lock);
	mutex_unlock(&dev->lock);
	/* Polling off: look again later whether it was turned back on. */
	queue_delayed_work(system_long_wq, &dev->size_work,
			   msecs_to_jiffies(ms ? ms : 1000));
}

/* ------------------------------------------------------------------ */
/* sysfs: /sys/block/riftblk<N>/riftblk/                               */
/* ------------------------------------------------------------------ */

static struct riftblk_clt_dev *to_clt_dev(struct kobject *kobj)
{
	return container_of(kobj, struct riftblk_clt_dev, kobj);
}

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct riftblk_clt_dev *dev = to_clt_dev(kobj);
	enum riftblk_clt_state state = READ_ONCE(dev->state);

	/* The session's link state shows only where the device's says nothing. */
	if (state == RIFTBLK_CLT_MAPPED && READ_ONCE(dev->sess->disconnected))
		return sysfs_emit(buf, "disconnected\n");
	return sysfs_emit(buf, "%s\n", rift_sm_state_str(&riftblk_clt_dev_sm, state));
}

static struct kobj_attribute riftblk_clt_attr_state = __ATTR_RO(state);

static ssize_t session_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", to_clt_dev(kobj)->sess->name);
}

static struct kobj_attribute riftblk_clt_attr_session = __ATTR_RO(session);

static ssize_t mapping_path_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_clt_dev(kobj)->device_path);
}

static struct kobj_attribute riftblk_clt_attr_mapping_path = __ATTR_RO(mapping_path);

/*
 * The name udev links under /dev/disk/by-id/riftblk-<name>: the session
 * and the server's device path, which stay the same across reboots and
 * remaps while riftblkN does not.  A path's '/' would make directories
 * of the link: the leading one is dropped, the others become '_'.
 */
static void riftblk_clt_stable_name(struct riftblk_clt_dev *dev, char *buf,
				    size_t len)
{
	const char *p = dev->device_path;
	char *c;

	while (*p == '/')
		p++;
	snprintf(buf, len, "%s-%s", dev->sess->name, p);
	for (c = buf; *c; c++)
		if (*c == '/')
			*c = '_';
}

static ssize_t stable_name_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	char name[RIFTBLK_STABLE_NAME_MAX];

	riftblk_clt_stable_name(to_clt_dev(kobj), name, sizeof(name));
	return sysfs_emit(buf, "%s\n", name);
}

static struct kobj_attribute riftblk_clt_attr_stable_name = __ATTR_RO(stable_name);

static ssize_t access_mode_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  riftblk_access_mode_name(to_clt_dev(kobj)->access_mode));
}

static struct kobj_attribute riftblk_clt_attr_access_mode = __ATTR_RO(access_mode);

static ssize_t nr_poll_queues_show(struct kobject *kobj, struct kobj_attribute *attr,
				   char *buf)
{
	return sysfs_emit(buf, "%u\n", to_clt_dev(kobj)->nr_poll_queues);
}

static struct kobj_attribute riftblk_clt_attr_nr_poll_queues = __ATTR_RO(nr_poll_queues);

static ssize_t unmap_device_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct riftblk_clt_dev *dev = to_clt_dev(kobj);
	bool force;
	int err;

	if (sysfs_streq(buf, "force"))
		force = true;
	else if (sysfs_streq(buf, "1"))
		force = false;
	else
		return -EINVAL;
	/* The file goes with the device: keep the device while it does. */
	kobject_get(kobj);
	err = riftblk_clt_dev_unmap(dev, force, &attr->attr);
	kobject_put(kobj);
	return err ? err : count;
}

static struct kobj_attribute riftblk_clt_attr_unmap_device = __ATTR_WO(unmap_device);

static ssize_t remap_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int err;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	err = riftblk_clt_remap(to_clt_dev(kobj));
	return err ? err : count;
}

static struct kobj_attribute riftblk_clt_attr_remap = __ATTR_WO(remap);

static struct attribute *riftblk_clt_dev_attrs[] = {
	&riftblk_clt_attr_state.attr,
	&riftblk_clt_attr_session.attr,
	&riftblk_clt_attr_mapping_path.attr,
	&riftblk_clt_attr_stable_name.attr,
	&riftblk_clt_attr_access_mode.attr,
	&riftblk_clt_attr_nr_poll_queues.attr,
	&riftblk_clt_attr_unmap_device.attr,
	&riftblk_clt_attr_remap.attr,
	NULL,
};
ATTRIBUTE_GROUPS(riftblk_clt_dev);

/* The directory's hold on the disk; the disk's release frees @dev. */
static void riftblk_clt_kobj_release(struct kobject *kobj)
{
	put_disk(to_clt_dev(kobj)->disk);
}

static struct kobj_type riftblk_clt_dev_ktype = {
	.release	= riftblk_clt_kobj_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= riftblk_clt_dev_groups,
};

/* ------------------------------------------------------------------ */
/* Map and unmap                                                       */
/* ------------------------------------------------------------------ */

static int riftblk_clt_dev_setup(struct riftblk_clt_dev *dev)
{
	struct blk_mq_tag_set *set = &dev->tag_set;
	struct gendisk *disk;
	int err;

	set->ops = &riftblk_clt_mq_ops;
	/* One per CPU, each feeding that CPU's connection; then poll queues. */
	set->nr_hw_queues = nr_cpu_ids + dev->nr_poll_queues;
	set->nr_maps = dev->nr_poll_queues ? HCTX_MAX_TYPES : 1;
	set->queue_depth = dev->sess->queue_depth;
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = sizeof(struct riftblk_clt_iu) +
			dev->sess->max_segments * sizeof(struct scatterlist);
	/*
	 * Tags shared across the queues: no more in flight than permits.
	 * Shared tags alone would make blk-mq pick mq-deadline for the
	 * device, as for a single-queue disk; like other multi-queue network
	 * disks it starts without a scheduler (the server's disk has its own),
	 * and the admin may still choose one.
	 */
	set->flags = BLK_MQ_F_SHOULD_MERGE | BLK_MQ_F_TAG_HCTX_SHARED |
		     BLK_MQ_F_NO_SCHED_BY_DEFAULT;
	set->driver_data = dev;
	err = blk_mq_alloc_tag_set(set);
	if (err)
		return err;
	disk = blk_mq_alloc_disk(set, dev);
	if (IS_ERR(disk)) {
		blk_mq_free_tag_set(set);
		return PTR_ERR(disk);
	}
	dev->disk = disk;
	disk->major = riftblk_major;
	disk->first_minor = dev->idx << RIFTBLK_PART_SHIFT;
	disk->minors = 1 << RIFTBLK_PART_SHIFT;
	disk->fops = &riftblk_clt_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "riftblk%d", dev->idx);
	riftblk_clt_set_limits(dev);
	set_capacity(disk, dev->info.nr_sectors);
	if (dev->access_mode == RIFTBLK_ACCESS_RO)
		set_disk_ro(disk, true);
	return 0;
}

/*
 * The disk's add event went out before its riftblk/ directory existed,
 * so udev could not name it then: a change event once it does, with the
 * name in the event itself for rules and monitors that read no sysfs.
 * Events udev makes up later (trigger, coldplug) carry no RIFTBLK_*
 * variables: the rule (60-riftblk.rules) reads riftblk/stable_name then.
 */
static void riftblk_clt_dev_uevent(struct riftblk_clt_dev *dev)
{
	char name[RIFTBLK_STABLE_NAME_MAX];
	char *envp[4] = {};
	int err = -ENOMEM;

	riftblk_clt_stable_name(dev, name, sizeof(name));
	envp[0] = kasprintf(GFP_KERNEL, "RIFTBLK_ID=%s", name);
	envp[1] = kasprintf(GFP_KERNEL, "RIFTBLK_SESSION=%s", dev->sess->name);
	envp[2] = kasprintf(GFP_KERNEL, "RIFTBLK_PATH=%s", dev->device_path);
	if (envp[0] && envp[1] && envp[2])
		err = kobject_uevent_env(&disk_to_dev(dev->disk)->kobj,
					 KOBJ_CHANGE, envp);
	/* Only the by-id link is missing until the next event: say so. */
	if (err)
		pr_warn("%s: change event for udev not sent: %d\n",
			dev->disk->disk_name, err);
	kfree(envp[0]);
	kfree(envp[1]);
	kfree(envp[2]);
}

/**
 * riftblk_clt_dev_map() - map a device of the server
 * @sess: session, with a reference the device takes over on success
 * @args: the map_device line
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int riftblk_clt_dev_map(struct riftblk_clt_sess *sess,
			const struct riftblk_map_args *args)
{
	struct riftblk_clt_dev *dev;
	int err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->idx = ida_alloc_max(&riftblk_clt_ida, (1 << (MINORBITS - RIFTBLK_PART_SHIFT)) - 1,
				 GFP_KERNEL);
	if (dev->idx < 0) {
		err = dev->idx;
		kfree(dev);
		return err;
	}
	dev->sess = sess;
	mutex_init(&dev->lock);
	INIT_LIST_HEAD(&dev->entry);
	INIT_DELAYED_WORK(&dev->size_work, riftblk_clt_size_work);
	mutex_init(&dev->id_lock);
	spin_lock_init(&dev->state_lock);
	INIT_LIST_HEAD(&dev->stale_rqs);
	INIT_DELAYED_WORK(&dev->recover_work, riftblk_clt_recover_work);
	dev->access_mode = args->access_mode;
	dev->nr_poll_queues = args->nr_poll_queues;
	strscpy(dev->device_path, args->device_path, sizeof(dev->device_path));

	err = riftblk_clt_send_open(sess, dev->device_path, dev->access_mode, &dev->info);
	if (err) {
		/* EACCES: not exported to this host in that mode, see the server's log. */
		pr_err("map_device: server refused %s (%s) on session %s: %pe\n",
		       dev->device_path, riftblk_access_mode_name(dev->access_mode),
		       sess->name, ERR_PTR(err));
		goto err_free;
	}
	dev->dev_id = dev->info.dev_id;
	err = riftblk_clt_dev_setup(dev);
	if (err)
		goto err_close;
	err = add_disk(dev->disk);
	if (err)
		goto err_disk;
	/*
	 * From here the disk's release frees @dev, and the kobject holds the
	 * disk's first reference.
	 */
	kobject_init(&dev->kobj, &riftblk_clt_dev_ktype);
	err = kobject_add(&dev->kobj, &disk_to_dev(dev->disk)->kobj, "riftblk");
	if (err) {
		mutex_lock(&dev->lock);
		spin_lock_irq(&dev->state_lock);
		riftblk_clt_dev_change_state(dev, RIFTBLK_CLT_UNMAPPING);
		spin_unlock_irq(&dev->state_lock);
		mutex_unlock(&dev->lock);
		del_gendisk(dev->disk);
		riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_CLOSE, dev->dev_id, NULL);
		blk_mq_free_tag_set(&dev->tag_set);
		kobject_put(&dev->kobj);
		return err;
	}
	riftblk_clt_dev_uevent(dev);
	mutex_lock(&riftblk_clt_lock);
	list_add_tail(&dev->entry, &riftblk_clt_devs);
	mutex_unlock(&riftblk_clt_lock);
	queue_delayed_work(system_long_wq, &dev->size_work,
			   msecs_to_jiffies(size_poll_ms ? size_poll_ms : 1000));
	pr_info("%s: mapped %s (%s) over session %s: %llu sectors, dev_id %u\n",
		dev->disk->disk_name, dev->device_path,
		riftblk_access_mode_name(dev->access_mode), sess->name,
		dev->info.nr_sectors, dev->dev_id);
	return 0;

err_disk:
	put_disk(dev->disk);
	blk_mq_free_tag_set(&dev->tag_set);
err_close:
	riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_CLOSE, dev->dev_id, NULL);
err_free:
	ida_free(&riftblk_clt_ida, dev->idx);
	kfree(dev);
	return err;
}

/**
 * riftblk_clt_dev_unmap() - unmap a device
 * @dev: device; the caller holds a reference to its kobject
 * @force: unmap even if the device is open (its IO then fails)
 * @self: the sysfs file being written, which is removed first; NULL if
 *	not called from sysfs
 *
 * Return: 0, -EBUSY if open and not @force, -EALREADY if another unmap
 * is going on.
 */
int riftblk_clt_dev_unmap(struct riftblk_clt_dev *dev, bool force,
			  const struct attribute *self)
{
	struct riftblk_clt_sess *sess = dev->sess;
	int err;

	mutex_lock(&dev->lock);
	if (riftblk_clt_dev_unmapping(dev)) {
		mutex_unlock(&dev->lock);
		return -EALREADY;
	}
	if (dev->open_cnt && !force) {
		mutex_unlock(&dev->lock);
		pr_info("%s: not unmapped: open %u times (write 'force' to unmap anyway)\n",
			dev->disk->disk_name, dev->open_cnt);
		return -EBUSY;
	}
	spin_lock_irq(&dev->state_lock);
	riftblk_clt_dev_change_state(dev, RIFTBLK_CLT_UNMAPPING);
	spin_unlock_irq(&dev->state_lock);
	mutex_unlock(&dev->lock);
	/* Removing the directory would otherwise wait for this very write. */
	if (self)
		sysfs_remove_file_self(&dev->kobj, self);

	mutex_lock(&riftblk_clt_lock);
	list_del_init(&dev->entry);
	mutex_unlock(&riftblk_clt_lock);
	cancel_delayed_work_sync(&dev->size_work);
	kobject_del(&dev->kobj);
	/*
	 * Waits for the IO in flight, which the transport completes, and
	 * for requests waiting for a re-open, which then fail or go on.
	 */
	del_gendisk(dev->disk);
	cancel_delayed_work_sync(&dev->recover_work);
	err = riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_CLOSE, dev->dev_id, NULL);
	if (err)
		pr_info("%s: the server did not confirm the unmap: %d\n",
			dev->disk->disk_name, err);
	pr_info("%s: unmapped %s\n", dev->disk->disk_name, dev->device_path);
	blk_mq_free_tag_set(&dev->tag_set);
	kobject_put(&dev->kobj);
	riftblk_clt_sess_put(sess);
	return 0;
}

/**
 * riftblk_clt_unmap_all() - unmap every device, open or not (module exit)
 */
void riftblk_clt_unmap_all(void)
{
	struct riftblk_clt_dev *dev;

	for (;;) {
		mutex_lock(&riftblk_clt_lock);
		dev = list_first_entry_or_null(&riftblk_clt_devs,
					       struct riftblk_clt_dev, entry);
		if (dev)
			kobject_get(&dev->kobj);
		mutex_unlock(&riftblk_clt_lock);
		if (!dev)
			return;
		riftblk_clt_dev_unmap(dev, true, NULL);
		kobject_put(&dev->kobj);
	}
}

/**
 * riftblk_clt_dev_init() - register the block major
 *
 * Return: 0 or a negative errno.
 */
int riftblk_clt_dev_init(void)
{
	riftblk_major = register_blkdev(0, "riftblk");
	if (riftblk_major < 0) {
		pr_err("cannot register a block major: %d\n", riftblk_major);
		return riftblk_major;
	}
	return 0;
}

/**
 * riftblk_clt_dev_exit() - release the block major
 */
void riftblk_clt_dev_exit(void)
{
	unregister_blkdev(riftblk_major, "riftblk");
	ida_destroy(&riftblk_clt_ida);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client side, the device's state machine and opening
 * it again.
 *
 * A device is MAPPED, REMAPPING while it is being opened again, or
 * UNMAPPING; riftblk_clt_dev_change_state() is the one place it changes,
 * checked against the table below and traced (rift:rift_state).
 *
 * A server that lost the mapping without closing it on request (it was
 * reloaded, or the session was gone long enough for the server to drop
 * it) answers its IO ESTALE.  Such requests are parked, the device is
 * opened again under its device_path and access_mode from a work item,
 * and the parked requests are requeued with the new handle; they fail
 * only when re-opening keeps failing for remap_timeout_ms.  A write to
 * remap opens the device again the same way (riftblk_clt_reopen()), with
 * the queue frozen.  Size polling finds out about a new size, and about a
 * lost mapping before IO does.
 *
 * Calls only riftblk-clt-sess.c of the client's files.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>

#include <rift/rift-compat.h>
#include "riftblk-clt.h"

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

/**
 * riftblk_clt_state_str() - name of a device state, as sysfs shows it
 * @state: enum riftblk_clt_state
 *
 * Return: the name, or "invalid".
 */
const char *riftblk_clt_state_str(enum riftblk_clt_state state)
{
	return rift_sm_state_str(&riftblk_clt_dev_sm, state);
}

/**
 * riftblk_clt_dev_change_state() - the one place a device changes state
 * @dev: device
 * @new: wanted state
 *
 * The caller holds @dev->state_lock, and @dev->lock too for UNMAPPING.
 *
 * Return: false when the transition is not allowed, which callers use
 * to lose races: a request parked while the device is REMAPPING already
 * leaves the time the first one began to wait, and nothing leaves
 * UNMAPPING.
 */
bool riftblk_clt_dev_change_state(struct riftblk_clt_dev *dev,
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

/**
 * riftblk_clt_dev_unmapping() - whether the device is being unmapped
 * @dev: device, whose @lock the caller holds: no change into UNMAPPING
 *	happens without it
 *
 * Return: true if it is UNMAPPING.
 */
bool riftblk_clt_dev_unmapping(struct riftblk_clt_dev *dev)
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

/**
 * riftblk_clt_park() - park a request the server refused with ESTALE
 * @dev: device
 * @iu: the request's data
 *
 * Called from the request's completion: in the transport's softirq, or
 * in process context when a poll queue reaps it.
 */
void riftblk_clt_park(struct riftblk_clt_dev *dev, struct riftblk_clt_iu *iu)
{
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
}

/* ------------------------------------------------------------------ */
/* Queue limits and size                                               */
/* ------------------------------------------------------------------ */

/**
 * riftblk_clt_set_limits() - the queue's limits from the server's INFO
 * @dev: device, with @info as the server gave it
 *
 * Return: 0, or a negative errno if the block layer refuses them (6.11
 * and later check them as a whole; the codec's checks make that unlikely).
 */
int riftblk_clt_set_limits(struct riftblk_clt_dev *dev)
{
	const struct riftblk_dev_info *info = &dev->info;
	struct request_queue *q = dev->disk->queue;
	/* Whole-byte lengths of one request must fit the IO message's len. */
	u32 cap = U32_MAX >> SECTOR_SHIFT;
	struct rift_queue_limits lim = {
		.logical_block_size = info->logical_block_size,
		.physical_block_size = info->physical_block_size,
		.io_min = info->io_min,
		.io_opt = info->io_opt,
		.max_hw_sectors = round_down(dev->sess->max_io_size, PAGE_SIZE) >> SECTOR_SHIFT,
		.max_segments = min_t(u32, dev->sess->max_segments, USHRT_MAX),
		/* Reads go through one page-granular MR: no gaps inside a page. */
		.virt_boundary_mask = PAGE_SIZE - 1,
		.max_discard_segments = 1,
		.max_discard_sectors = min(info->max_discard_sectors, cap),
		.discard_granularity = info->max_discard_sectors ?
			max(info->discard_granularity, info->logical_block_size) : 0,
		.max_write_zeroes_sectors = min(info->max_write_zeroes_sectors, cap),
		.max_secure_erase_sectors = min(info->max_secure_erase_sectors, cap),
		.write_cache = info->caps & RIFTBLK_CAP_WRITE_CACHE,
		.fua = info->caps & RIFTBLK_CAP_FUA,
		.rotational = info->caps & RIFTBLK_CAP_ROTATIONAL,
	};
	int err;

	err = rift_queue_limits_apply(q, &lim);
	if (err)
		return err;
	blk_queue_rq_timeout(q, RIFTBLK_RQ_TIMEOUT);
	return 0;
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
		err = riftblk_clt_set_limits(dev);
		if (err) {
			pr_warn_ratelimited("%s: remap: the block layer refuses the limits of %s: %d\n",
					    dev->disk->disk_name, dev->device_path, err);
			return err;
		}
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

/**
 * riftblk_clt_remap() - map the device again (the remap file)
 * @dev: device
 *
 * Map the device again on the server under a new handle (after the
 * server lost the mapping: reload, force-close) and take its current
 * size and limits.  IO waits in the frozen queue meanwhile.
 *
 * Return: 0, -ENODEV if being unmapped, or the errno of the re-open.
 */
int riftblk_clt_remap(struct riftblk_clt_dev *dev)
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

/**
 * riftblk_clt_size_poll_start() - start polling the server for the size
 * @dev: device, mapped
 */
void riftblk_clt_size_poll_start(struct riftblk_clt_dev *dev)
{
	unsigned int ms = READ_ONCE(size_poll_ms);

	queue_delayed_work(system_long_wq, &dev->size_work,
			   msecs_to_jiffies(ms ? ms : 1000));
}

/**
 * riftblk_clt_recover_init() - set up what this file keeps of a device
 * @dev: device, not mapped yet (MAPPED, the zero state, once it is)
 */
void riftblk_clt_recover_init(struct riftblk_clt_dev *dev)
{
	INIT_DELAYED_WORK(&dev->size_work, riftblk_clt_size_work);
	mutex_init(&dev->id_lock);
	spin_lock_init(&dev->state_lock);
	INIT_LIST_HEAD(&dev->stale_rqs);
	INIT_DELAYED_WORK(&dev->recover_work, riftblk_clt_recover_work);
}

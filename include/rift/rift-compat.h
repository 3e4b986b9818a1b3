/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift: every difference between the kernels it builds for, in one place.
 *
 * Supported: Debian 12's 6.1 (the default) and its 6.12 from
 * bookworm-security (tools/kernel-612.sh).  The 6.1 branch of each helper
 * below makes exactly the calls the code made before it existed, so a 6.1
 * build behaves as it did.  Kernels between the two are not built for:
 * they had third APIs for opening block devices and for queue limits.
 *
 * Kernel code only: tools/unit and tools/fuzz never include it.
 */
#ifndef _RIFT_COMPAT_H
#define _RIFT_COMPAT_H

#include <linux/version.h>

/*
 * Which side of the line the kernel is on, where no macro of the new API
 * tells.  Every API below changed between 6.1 and 6.12 (the comments say
 * in which version); the kernels between are not built for.
 */
#define RIFT_612	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))
#if !RIFT_612 && LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#error "Rift builds for Linux 6.1 and for 6.12 or later"
#endif

/*
 * Tracepoints: 6.10 dropped __assign_str()'s second argument, the source
 * being the one __string() named already.
 */
#if RIFT_612
#define rift_assign_str(dst, src)	__assign_str(dst)
#else
#define rift_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * 6.12 moved the unaligned accessors from <asm/> to <linux/>.  Not tested
 * with __has_include(): sparse 0.6.4 (Debian 12's) does not know it.
 */
#if RIFT_612
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/file.h>

/*
 * Block device operations: 6.5 passes ->open() the gendisk and a
 * blk_mode_t (BLK_OPEN_*, new then) instead of the block_device and an
 * fmode_t, and ->release() no mode.  A driver writes
 * int PREFIX_open_disk(struct gendisk *, bool write) and
 * void PREFIX_release_disk(struct gendisk *), and
 * RIFT_DEFINE_BDEV_OPS(PREFIX) defines from them the PREFIX_open and
 * PREFIX_release its block_device_operations name.
 */
#ifdef BLK_OPEN_WRITE
#define RIFT_DEFINE_BDEV_OPS(prefix)					\
static int prefix##_open(struct gendisk *disk, blk_mode_t mode)		\
{									\
	return prefix##_open_disk(disk, mode & BLK_OPEN_WRITE);		\
}									\
									\
static void prefix##_release(struct gendisk *disk)			\
{									\
	prefix##_release_disk(disk);					\
}
#else
#define RIFT_DEFINE_BDEV_OPS(prefix)					\
static int prefix##_open(struct block_device *bdev, fmode_t mode)	\
{									\
	return prefix##_open_disk(bdev->bd_disk, mode & FMODE_WRITE);	\
}									\
									\
static void prefix##_release(struct gendisk *disk, fmode_t mode)	\
{									\
	prefix##_release_disk(disk);					\
}
#endif

/**
 * struct rift_bdev - a block device Rift opened
 * @bdev: the device
 * @file: what 6.9's bdev_file_open_by_dev() returned, for the close
 * @mode: what 6.1's blkdev_get_by_dev() was given, for blkdev_put()
 */
struct rift_bdev {
	struct block_device	*bdev;
#if RIFT_612
	struct file		*file;
#else
	fmode_t			mode;
#endif
};

/**
 * rift_bdev_open() - open a block device by number
 * @b: filled on success
 * @devt: the device
 * @write: for writing too
 * @holder: non-NULL for an exclusive open with this holder
 *
 * 6.1 opens with blkdev_get_by_dev() and FMODE_EXCL; 6.9 returns a file
 * (bdev_file_open_by_dev(), exclusive when a holder is given) and 6.10
 * closes it with bdev_fput().
 *
 * Return: 0 or a negative errno.
 */
static inline int rift_bdev_open(struct rift_bdev *b, dev_t devt, bool write,
				 void *holder)
{
#if RIFT_612
	blk_mode_t mode = BLK_OPEN_READ;
	struct file *f;

	if (write)
		mode |= BLK_OPEN_WRITE;
	f = bdev_file_open_by_dev(devt, mode, holder, NULL);
	if (IS_ERR(f))
		return PTR_ERR(f);
	b->file = f;
	b->bdev = file_bdev(f);
	return 0;
#else
	fmode_t mode = FMODE_READ;
	struct block_device *bdev;

	if (holder)
		mode |= FMODE_EXCL;
	if (write)
		mode |= FMODE_WRITE;
	bdev = blkdev_get_by_dev(devt, mode, holder);
	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	b->bdev = bdev;
	b->mode = mode;
	return 0;
#endif
}

/**
 * rift_bdev_close() - close what rift_bdev_open() opened
 * @b: the open device
 */
static inline void rift_bdev_close(struct rift_bdev *b)
{
#if RIFT_612
	bdev_fput(b->file);
#else
	blkdev_put(b->bdev, b->mode);
#endif
}

/**
 * struct rift_queue_limits - what a Rift disk sets of its queue's limits
 * @logical_block_size: bytes
 * @physical_block_size: bytes
 * @io_min: bytes
 * @io_opt: bytes
 * @max_hw_sectors: longest request
 * @max_segments: most segments of a request
 * @virt_boundary_mask: no gaps between segments inside this
 * @max_discard_segments: most ranges of a discard
 * @max_discard_sectors: longest discard, 0 for none
 * @discard_granularity: bytes
 * @max_write_zeroes_sectors: longest write-zeroes, 0 for none
 * @max_secure_erase_sectors: longest secure erase, 0 for none
 * @write_cache: the device has a volatile write cache
 * @fua: the device honours FUA writes
 * @rotational: the device is a rotational one
 *
 * 6.1 sets limits one by one on the queue with blk_queue_*() and queue
 * flags; 6.11 removed those setters and has the driver commit a whole
 * struct queue_limits, with the cache and rotational flags among its
 * features (BLK_FEAT_*, new in 6.11).
 */
struct rift_queue_limits {
	u32		logical_block_size;
	u32		physical_block_size;
	u32		io_min;
	u32		io_opt;
	u32		max_hw_sectors;
	u32		max_segments;
	unsigned long	virt_boundary_mask;
	u32		max_discard_segments;
	u32		max_discard_sectors;
	u32		discard_granularity;
	u32		max_write_zeroes_sectors;
	u32		max_secure_erase_sectors;
	bool		write_cache;
	bool		fua;
	bool		rotational;
};

/**
 * rift_queue_limits_apply() - set a queue's limits
 * @q: the queue, its disk's added or not
 * @l: the limits
 *
 * On 6.11 and later the block layer checks them as a whole and may refuse
 * them; 6.1 takes each as it comes.  The queue is not frozen, as on 6.1:
 * the callers may hold requests of it.
 *
 * Return: 0 or a negative errno.
 */
static inline int rift_queue_limits_apply(struct request_queue *q,
					  const struct rift_queue_limits *l)
{
#ifdef BLK_FEAT_WRITE_CACHE
	struct queue_limits lim = queue_limits_start_update(q);

	lim.logical_block_size = l->logical_block_size;
	lim.physical_block_size = l->physical_block_size;
	lim.io_min = l->io_min;
	lim.io_opt = l->io_opt;
	lim.max_hw_sectors = l->max_hw_sectors;
	lim.max_segments = l->max_segments;
	lim.virt_boundary_mask = l->virt_boundary_mask;
	lim.max_discard_segments = l->max_discard_segments;
	lim.max_hw_discard_sectors = l->max_discard_sectors;
	lim.discard_granularity = l->discard_granularity;
	lim.max_write_zeroes_sectors = l->max_write_zeroes_sectors;
	lim.max_secure_erase_sectors = l->max_secure_erase_sectors;
	lim.features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA | BLK_FEAT_ROTATIONAL);
	if (l->write_cache)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	if (l->fua)
		lim.features |= BLK_FEAT_FUA;
	if (l->rotational)
		lim.features |= BLK_FEAT_ROTATIONAL;
	return queue_limits_commit_update(q, &lim);
#else
	blk_queue_logical_block_size(q, l->logical_block_size);
	blk_queue_physical_block_size(q, l->physical_block_size);
	blk_queue_io_min(q, l->io_min);
	blk_queue_io_opt(q, l->io_opt);
	blk_queue_max_hw_sectors(q, l->max_hw_sectors);
	blk_queue_max_segments(q, l->max_segments);
	blk_queue_virt_boundary(q, l->virt_boundary_mask);
	blk_queue_max_discard_segments(q, l->max_discard_segments);
	blk_queue_max_discard_sectors(q, l->max_discard_sectors);
	q->limits.discard_granularity = l->discard_granularity;
	blk_queue_max_write_zeroes_sectors(q, l->max_write_zeroes_sectors);
	blk_queue_max_secure_erase_sectors(q, l->max_secure_erase_sectors);
	blk_queue_write_cache(q, l->write_cache, l->fua);
	if (l->rotational)
		blk_queue_flag_clear(QUEUE_FLAG_NONROT, q);
	else
		blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	return 0;
#endif
}

/*
 * blk_mq_alloc_disk() takes the queue's limits since 6.9; Rift sets them
 * after the allocation (rift_queue_limits_apply()), as on 6.1.
 */
#if RIFT_612
#define rift_blk_mq_alloc_disk(set, queuedata)	blk_mq_alloc_disk(set, NULL, queuedata)
#else
#define rift_blk_mq_alloc_disk(set, queuedata)	blk_mq_alloc_disk(set, queuedata)
#endif

#endif /* _RIFT_COMPAT_H */

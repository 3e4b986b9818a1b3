// SPDX-License-Identifier: GPL-2.0
/*
 * riftblk server: the IO path.
 *
 * Requests arrive in the transport's CQ work, a task: each IO is checked
 * there and counted on its mapping.  A read or write that fits one bio,
 * on a device that can refuse rather than wait (riftblk_srv_nowait_ok()), is
 * submitted right there with REQ_NOWAIT: no hand-off, no wake-up.  The
 * CQ work must not sleep (it reaps the
 * completions of every request on its connection, an export stacked on
 * a riftblk device of this server's included), so a bio the device
 * would have to wait for (BLK_STS_AGAIN), and every other IO, goes to
 * its CPU's worker instead, which
 * builds the bios straight over the transport's chunks and submits
 * everything queued at once, under a plug.  The bio's completion answers
 * the request.  A device that completes bios while they are submitted
 * (null_blk, a RAM disk, an error) answers in the worker itself: those
 * answers are held in the worker's batch and posted together once the
 * run is submitted, one doorbell per connection instead of one per IO
 * (rift_srv_resp_batch()).  A worker about to sleep (a tag, throttling, a
 * frozen queue) first posts what it holds and hands the IOs still queued
 * behind it to work items of their own, as each IO had before, so that
 * neither its answers nor other exports' IOs wait for its device.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blk-integrity.h>
#include <linux/llist.h>
#include <linux/percpu.h>

#include "riftblk-srv.h"

/* IOs that can always be started, even when GFP_ATOMIC memory is short. */
#define RIFTBLK_SRV_IO_RESERVE	64

/**
 * struct riftblk_srv_worker - one CPU's submitter
 * @ios: IOs queued on this CPU, newest first
 * @work: submits them
 * @batch: answers given while @work runs, posted at its end
 * @owner: the task running @work while it submits, else NULL: an answer
 *	given in that task (not in an interrupt it took) goes to @batch
 * @rest: the IOs of the current run not submitted yet; only @owner
 *	touches it (riftblk_srv_unplug() runs in that task)
 * @cpu: the CPU whose IOs these are
 */
struct riftblk_srv_worker {
	struct llist_head	ios;
	struct work_struct	work;
	struct rift_srv_batch	*batch;
	struct task_struct	*owner;
	struct llist_node	*rest;
	int			cpu;
};

/**
 * struct riftblk_srv_io - one IO between rdma_ev and its answer
 * @node: in its worker's @ios
 * @worker: the worker it was queued to
 * @work: submits it alone, when its worker handed it off
 * @nowait: submitted from the CQ work with REQ_NOWAIT; a refusal goes
 *	to the worker
 * @map: mapping, kept by its inflight count
 * @op: the transport's request
 * @data: the request's data buffer
 * @io: the decoded IO
 */
struct riftblk_srv_io {
	struct llist_node	node;
	struct riftblk_srv_worker *worker;
	struct work_struct	work;
	bool			nowait;
	struct riftblk_srv_map	*map;
	struct rift_srv_op	*op;
	void			*data;
	struct riftblk_io	io;
};

/* Woken as a mapping's last IO in flight ends: its close waits here. */
DECLARE_WAIT_QUEUE_HEAD(riftblk_srv_idle_wait);
static struct kmem_cache *riftblk_srv_io_cache;
static mempool_t *riftblk_srv_io_pool;
static struct workqueue_struct *riftblk_srv_io_wq;
static struct riftblk_srv_worker __percpu *riftblk_srv_workers;

static bool riftblk_io_writes(u16 op)
{
	return op == RIFTBLK_OP_WRITE || op == RIFTBLK_OP_DISCARD ||
	       op == RIFTBLK_OP_WRITE_ZEROES || op == RIFTBLK_OP_SECURE_ERASE;
}

/* What the device and the mapping allow; the peer is not trusted. */
static int riftblk_srv_io_check(struct riftblk_srv_map *map,
				const struct riftblk_io *io)
{
	struct block_device *bdev = map->bdev.bdev;
	u32 lbs = bdev_logical_block_size(bdev);
	sector_t nr = bdev_nr_sectors(bdev);

	if (riftblk_io_writes(io->op) && map->access_mode == RIFTBLK_ACCESS_RO)
		return -EROFS;
	if (io->op == RIFTBLK_OP_FLUSH)
		return 0;
	if (((io->sector << SECTOR_SHIFT) | io->len) & (lbs - 1))
		return -EINVAL;
	if (io->sector > nr || (io->len >> SECTOR_SHIFT) > nr - io->sector)
		return -ERANGE;
	switch (io->op) {
	case RIFTBLK_OP_DISCARD:
		return bdev_max_discard_sectors(bdev) ? 0 : -EOPNOTSUPP;
	case RIFTBLK_OP_WRITE_ZEROES:
		return bdev_write_zeroes_sectors(bdev) ? 0 : -EOPNOTSUPP;
	case RIFTBLK_OP_SECURE_ERASE:
		return bdev_max_secure_erase_sectors(bdev) ? 0 : -EOPNOTSUPP;
	default:
		return 0;
	}
}

/* The worker is kicked by the IO that finds its list empty. */
static void riftblk_srv_io_queue(struct riftblk_srv_io *ctx)
{
	struct riftblk_srv_worker *w = ctx->worker;

	if (llist_add(&ctx->node, &w->ios))
		queue_work_on(w->cpu, riftblk_srv_io_wq, &w->work);
}

static void riftblk_srv_io_end(struct bio *bio)
{
	struct riftblk_srv_io *ctx = bio->bi_private;
	struct riftblk_srv_map *map = ctx->map;
	struct riftblk_srv_worker *w = ctx->worker;
	int err = blk_status_to_errno(bio->bi_status);

	bio_put(bio);
	/*
	 * Refused, not failed: the device would have had to wait (a tag, a
	 * frozen queue).  Nothing was done; the worker submits it again
	 * and may wait.  From any context: a refusal may come later than
	 * the submission.
	 */
	if (ctx->nowait && err == -EAGAIN) {
		ctx->nowait = false;
		riftblk_srv_io_queue(ctx);
		return;
	}
	/*
	 * Completed while its worker submits, in the worker's own task: the
	 * batch is the worker's alone then.  An interrupt taken by that task
	 * has it as current too, hence in_task().
	 */
	if (in_task() && READ_ONCE(w->owner) == current)
		rift_srv_resp_batch(w->batch, ctx->op, err);
	else
		rift_srv_resp(ctx->op, err);
	mempool_free(ctx, riftblk_srv_io_pool);
	/* The mapping may be freed as soon as this reaches zero. */
	if (atomic_dec_and_test(&map->inflight))
		wake_up_all(&riftblk_srv_idle_wait);
}

static blk_opf_t riftblk_srv_opf(const struct riftblk_io *io)
{
	blk_opf_t opf;

	switch (io->op) {
	case RIFTBLK_OP_READ:
		opf = REQ_OP_READ;
		break;
	case RIFTBLK_OP_WRITE:
		opf = REQ_OP_WRITE;
		break;
	case RIFTBLK_OP_FLUSH:
		opf = REQ_OP_WRITE | REQ_PREFLUSH;
		break;
	case RIFTBLK_OP_DISCARD:
		opf = REQ_OP_DISCARD;
		break;
	case RIFTBLK_OP_WRITE_ZEROES:
		opf = REQ_OP_WRITE_ZEROES;
		if (io->flags & RIFTBLK_IO_F_NOUNMAP)
			opf |= REQ_NOUNMAP;
		break;
	default:
		opf = REQ_OP_SECURE_ERASE;
		break;
	}
	if (io->flags & RIFTBLK_IO_F_FUA)
		opf |= REQ_FUA;
	if (io->flags & RIFTBLK_IO_F_PREFLUSH)
		opf |= REQ_PREFLUSH;
	return opf;
}

static struct page *riftblk_srv_page(const void *p)
{
	return is_vmalloc_addr(p) ? vmalloc_to_page(p) : virt_to_page(p);
}

static unsigned short riftblk_srv_nr_vecs(const u8 *p, u32 left)
{
	return min_t(u32, DIV_ROUND_UP(offset_in_page(p) + left, PAGE_SIZE),
		     BIO_MAX_VECS);
}

/*
 * The data stays where the transport put it: the bio points at the
 * chunk's pages, which stay the request's until it is answered.
 */
static void riftblk_srv_io_submit(struct riftblk_srv_io *ctx)
{
	struct block_device *bdev = ctx->map->bdev.bdev;
	blk_opf_t opf = riftblk_srv_opf(&ctx->io);
	bool data = ctx->io.op == RIFTBLK_OP_READ || ctx->io.op == RIFTBLK_OP_WRITE;
	u8 *p = ctx->data;
	u32 left = data ? ctx->io.len : 0;
	struct bio *bio, *next;
	u32 n;

	/* GFP_NOIO from the bio set's mempool: this cannot fail. */
	bio = bio_alloc(bdev, data ? riftblk_srv_nr_vecs(p, left) : 0, opf, GFP_NOIO);
	bio->bi_iter.bi_sector = ctx->io.sector;
	if (!data && ctx->io.op != RIFTBLK_OP_FLUSH)
		bio->bi_iter.bi_size = ctx->io.len;
	while (left) {
		n = min_t(u32, left, PAGE_SIZE - offset_in_page(p));
		if (bio_add_page(bio, riftblk_srv_page(p), n, offset_in_page(p)) == n) {
			p += n;
			left -= n;
			continue;
		}
		/* Longer than one bio holds: chain the rest behind it. */
		next = bio_alloc(bdev, riftblk_srv_nr_vecs(p, left), opf, GFP_NOIO);
		next->bi_iter.bi_sector = bio_end_sector(bio);
		bio_chain(bio, next);
		submit_bio(bio);
		bio = next;
	}
	bio->bi_private = ctx;
	bio->bi_end_io = riftblk_srv_io_end;
	submit_bio(bio);
}

/*
 * Whether a REQ_NOWAIT bio to @bdev is submitted without sleeping: a
 * blk-mq device whose driver does not sleep in its queue_rq (a
 * BLK_MQ_F_BLOCKING one may, REQ_NOWAIT or not), which refuses what it
 * would wait for.  A bio-based driver (dm, md) may sleep in its
 * submit_bio whatever it announces; integrity data is allocated with
 * GFP_NOIO.
 */
static bool riftblk_srv_nowait_ok(struct block_device *bdev)
{
	struct request_queue *q = bdev_get_queue(bdev);

	return bdev_nowait(bdev) && queue_is_mq(q) &&
	       !(q->tag_set->flags & BLK_MQ_F_BLOCKING) &&
	       !bdev_get_integrity(bdev);
}

/*
 * Submit @ctx here, in the transport's CQ work, if that cannot sleep: a
 * read or write that one bio holds, with REQ_NOWAIT, on a device that
 * honours it.  Returns false if it was not submitted (then the worker
 * does it).
 */
static bool riftblk_srv_io_nowait(struct riftblk_srv_io *ctx)
{
	struct block_device *bdev = ctx->map->bdev.bdev;
	u8 *p = ctx->data;
	u32 left = ctx->io.len, n;
	unsigned int nr;
	struct bio *bio;
	blk_opf_t opf;

	if ((ctx->io.op != RIFTBLK_OP_READ && ctx->io.op != RIFTBLK_OP_WRITE) ||
	    !riftblk_srv_nowait_ok(bdev))
		return false;
	/*
	 * One bio the queue takes whole: one the block layer would have to
	 * split is refused (BLK_STS_AGAIN) under REQ_NOWAIT.
	 */
	nr = DIV_ROUND_UP(offset_in_page(p) + left, PAGE_SIZE);
	if (nr > BIO_MAX_VECS || nr > queue_max_segments(bdev_get_queue(bdev)) ||
	    left > queue_max_sectors(bdev_get_queue(bdev)) << SECTOR_SHIFT)
		return false;
	opf = riftblk_srv_opf(&ctx->io) | REQ_NOWAIT;
	/*
	 * As an O_DIRECT write: writeback throttling (wbt) would make any
	 * other write sleep, REQ_NOWAIT or not, and this task must not.
	 */
	if (ctx->io.op == RIFTBLK_OP_WRITE)
		opf |= REQ_SYNC | REQ_IDLE;
	bio = bio_alloc(bdev, nr, opf, GFP_NOWAIT);
	if (!bio)
		return false;
	bio->bi_iter.bi_sector = ctx->io.sector;
	while (left) {
		n = min_t(u32, left, PAGE_SIZE - offset_in_page(p));
		/* nr vectors hold it: a page per vector at most. */
		__bio_add_page(bio, riftblk_srv_page(p), n, offset_in_page(p));
		p += n;
		left -= n;
	}
	bio->bi_private = ctx;
	bio->bi_end_io = riftblk_srv_io_end;
	ctx->nowait = true;
	submit_bio(bio);
	return true;
}

/* An IO its worker handed off: submitted on its own, answered directly. */
static void riftblk_srv_io_one(struct work_struct *work)
{
	riftblk_srv_io_submit(container_of(work, struct riftblk_srv_io, work));
}

/*
 * The worker's plug is flushed: at the end of its run, or because the
 * worker is about to sleep (@from_schedule).  What it holds is posted
 * now either way: only this task adds to the batch, and nothing here
 * sleeps.  Before a sleep, the IOs still queued behind the one that
 * sleeps go to work items of their own, which the workqueue runs beside
 * it: a slow device must not hold up another export's IO, nor an IO
 * this one waits for (an export over a riftblk device of this server).
 */
static void riftblk_srv_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct riftblk_srv_worker *w = cb->data;
	struct riftblk_srv_io *ctx, *tmp;
	struct llist_node *rest;

	kfree(cb);
	rift_srv_batch_flush(w->batch);
	if (!from_schedule)
		return;
	rest = w->rest;
	w->rest = NULL;
	llist_for_each_entry_safe(ctx, tmp, rest, node) {
		INIT_WORK(&ctx->work, riftblk_srv_io_one);
		queue_work_on(w->cpu, riftblk_srv_io_wq, &ctx->work);
	}
}

/*
 * Submit what this CPU queued, oldest first, then post the answers the
 * device gave meanwhile.  One run of the work at a time (the workqueue
 * never runs one work item twice at once), so the batch has one user.
 */
static void riftblk_srv_io_work(struct work_struct *work)
{
	struct riftblk_srv_worker *w = container_of(work, struct riftblk_srv_worker, work);
	struct riftblk_srv_io *ctx;
	struct blk_plug plug;

	w->rest = llist_reverse_order(llist_del_all(&w->ios));
	WRITE_ONCE(w->owner, current);
	blk_start_plug(&plug);
	while (w->rest) {
		ctx = llist_entry(w->rest, struct riftblk_srv_io, node);
		w->rest = w->rest->next;
		/*
		 * Armed again for each IO: a flush before a sleep used the
		 * callback up.  Without one (no memory) the answers simply
		 * wait for the end of the run.
		 */
		blk_check_plugged(riftblk_srv_unplug, w, sizeof(struct blk_plug_cb));
		riftblk_srv_io_submit(ctx);
	}
	blk_finish_plug(&plug);
	WRITE_ONCE(w->owner, NULL);
	rift_srv_batch_flush(w->batch);
}

/**
 * riftblk_srv_io_start() - check an IO request and submit or queue it
 * @sess: session it came on
 * @op: the transport's request
 * @dir: its direction
 * @data: its data buffer
 * @datalen: bytes of @data
 * @usr: its ULP header, in the chunk the client can still write: decoded
 *	once into a local copy, which is what is checked and used
 * @usrlen: bytes of @usr
 *
 * The transport's CQ work, a task that must not sleep: an IO is submitted
 * there only as REQ_NOWAIT.  From a context that cannot sleep at all it
 * is queued to the worker.
 *
 * Return: 0 if submitted or queued (it will be answered, maybe already
 * is), a negative errno to answer it with otherwise.
 */
int riftblk_srv_io_start(struct riftblk_srv_sess *sess, struct rift_srv_op *op,
			 enum rift_dir dir, void *data, size_t datalen,
			 const void *usr, size_t usrlen)
{
	struct riftblk_srv_map *map;
	struct riftblk_srv_io *ctx;
	struct riftblk_io io;
	bool has_data, rd_op, rd_req = dir == RIFT_READ;
	int err;

	err = riftblk_io_decode(usr, usrlen, &io);
	if (err)
		return err;
	has_data = io.op == RIFTBLK_OP_READ || io.op == RIFTBLK_OP_WRITE;
	rd_op = io.op == RIFTBLK_OP_READ;
	if (rd_op != rd_req ||
	    datalen != (has_data ? io.len : 0))
		return -EBADMSG;

	ctx = mempool_alloc(riftblk_srv_io_pool, GFP_ATOMIC);
	if (!ctx)
		return -ENOMEM;
	spin_lock_bh(&sess->lock);
	map = xa_load(&sess->maps, io.dev_id);
	if (!map)
		err = -ESTALE;
	else if (xa_is_value(map) || map->closing)
		err = -ENODEV;
	else
		err = riftblk_srv_io_check(map, &io);
	if (!err)
		atomic_inc(&map->inflight);
	spin_unlock_bh(&sess->lock);
	if (err) {
		mempool_free(ctx, riftblk_srv_io_pool);
		return err;
	}
	ctx->map = map;
	ctx->op = op;
	ctx->data = data;
	ctx->io = io;
	ctx->nowait = false;
	/*
	 * This CPU's worker, for this IO or for its refusal.  Any worker
	 * may take any IO (its list is lock-free), so a migration in between
	 * costs a cache line, nothing more.
	 */
	ctx->worker = per_cpu_ptr(riftblk_srv_workers, raw_smp_processor_id());
	/* Where submit_bio() may be called; never on a kernel that cannot tell. */
	if (!preemptible() || !riftblk_srv_io_nowait(ctx))
		riftblk_srv_io_queue(ctx);
	return 0;
}

static void riftblk_srv_workers_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		rift_srv_batch_free(per_cpu_ptr(riftblk_srv_workers, cpu)->batch);
	free_percpu(riftblk_srv_workers);
}

/**
 * riftblk_srv_io_init() - set up the IO path
 *
 * Return: 0 or -ENOMEM.
 */
int riftblk_srv_io_init(void)
{
	struct riftblk_srv_worker *w;
	int cpu;

	riftblk_srv_workers = alloc_percpu(struct riftblk_srv_worker);
	if (!riftblk_srv_workers)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		w = per_cpu_ptr(riftblk_srv_workers, cpu);
		init_llist_head(&w->ios);
		INIT_WORK(&w->work, riftblk_srv_io_work);
		w->cpu = cpu;
		w->batch = rift_srv_batch_alloc();
		if (!w->batch)
			goto err_workers;
	}
	riftblk_srv_io_cache = KMEM_CACHE(riftblk_srv_io, 0);
	if (!riftblk_srv_io_cache)
		goto err_workers;
	riftblk_srv_io_pool = mempool_create_slab_pool(RIFTBLK_SRV_IO_RESERVE,
						       riftblk_srv_io_cache);
	if (!riftblk_srv_io_pool)
		goto err_cache;
	/* Per-CPU: an IO is submitted on the CPU its request arrived on. */
	riftblk_srv_io_wq = alloc_workqueue("riftblk_srv_io",
					    WQ_MEM_RECLAIM | WQ_HIGHPRI, 0);
	if (!riftblk_srv_io_wq)
		goto err_pool;
	return 0;

err_pool:
	mempool_destroy(riftblk_srv_io_pool);
err_cache:
	kmem_cache_destroy(riftblk_srv_io_cache);
err_workers:
	riftblk_srv_workers_free();
	return -ENOMEM;
}

/**
 * riftblk_srv_io_exit() - tear the IO path down; no IO may be in flight
 */
void riftblk_srv_io_exit(void)
{
	destroy_workqueue(riftblk_srv_io_wq);
	mempool_destroy(riftblk_srv_io_pool);
	kmem_cache_destroy(riftblk_srv_io_cache);
	riftblk_srv_workers_free();
}

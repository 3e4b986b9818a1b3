// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: reads answered into buffers registered once.
 *
 * A read into the ULP's own pages costs a fast registration before it is
 * sent and a local invalidation after the answer, before the pages may go
 * back: two more work requests, a completion and, at queue depth one, a
 * round through the device before the ULP learns of its data.  On a
 * software device (rxe) that is a large part of a small read, and rxe 6.1
 * runs a REG_MR again when it retransmits across it, which can wedge the
 * QP (see the admin guide).  Reads of up to read_bounce_kb instead name a
 * slot of the path's own, as many pages per chunk, registered once per
 * connected path instance, and the answer is copied out of it.
 *
 * What the server can reach stays bounded: only these staging slots,
 * never the ULP's memory.  A slot belongs to a chunk of the path (a
 * request uses the slot of the chunk it holds), and the chunk of a read
 * that timed out stays an orphan, taken, until its late answer arrives
 * or the path closes (see rift-clt-chunk.c), so a late transfer lands in
 * a slot nobody reads.  The registrations are dropped when the
 * path instance's connections are gone.  The cost is memory: queue depth
 * (the most chunks a path lets requests use) times the slot size per path
 * instance (16.5 MiB at 128 permits of the
 * default 132 KiB; the server pins as much for its chunks), reported per
 * path in sysfs (bounce_bytes).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>

#include "rift-clt.h"

static bool read_bounce = true;
module_param(read_bounce, bool, 0644);
MODULE_PARM_DESC(read_bounce,
		 "Reads of up to read_bounce_kb land in per-chunk buffers registered once per path and are copied out, instead of a registration and an invalidation per read; taken at connect (default true)");

static unsigned int read_bounce_kb = 1024;
module_param(read_bounce_kb, uint, 0644);
MODULE_PARM_DESC(read_bounce_kb,
		 "Largest read answered into a staging slot, 4..1024 KiB and at most the session's max_io_size; larger reads register the ULP's pages; taken at connect (default 1024: every read up to max_io_size)");

/* Pages one MR covers at most: bounds the sg list built to register it. */
#define RIFT_CLT_BOUNCE_PER_MR	256U
/* How long the registration may take before the attempt fails. */
#define RIFT_CLT_BOUNCE_REG_MS	5000

/**
 * struct rift_clt_bounce - the staging pages of one path instance
 * @dev: device the pages are mapped for and whose PD the MRs are in; a
 *	reference of its own, since the connections' go before the MRs do
 * @ib_dev: its RDMA device
 * @nr: pages, @slot of them per chunk
 * @slot: pages per chunk, a divisor of @per_mr
 * @per_mr: pages per MR
 * @nr_mrs: entries in @mrs
 * @pages: the pages
 * @dma: their DMA addresses
 * @mrs: their registrations
 * @reg_cqe: completion of the registration chain
 * @reg_done: the chain's signalled last WR completed
 * @reg_err: its error
 */
struct rift_clt_bounce {
	struct rift_dev		*dev;
	struct ib_device	*ib_dev;
	u32			nr;
	u32			slot;
	u32			per_mr;
	u32			nr_mrs;
	struct page		**pages;
	u64			*dma;
	struct ib_mr		**mrs;
	struct ib_cqe		reg_cqe;
	struct completion	reg_done;
	int			reg_err;
};

static void rift_clt_bounce_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_clt_bounce *b = container_of(wc->wr_cqe,
						 struct rift_clt_bounce, reg_cqe);

	/*
	 * Only the chain's last WR is signalled; the others report here only
	 * when they fail (flushed), and the first report wakes the waiter.
	 */
	if (wc->status != IB_WC_SUCCESS && !b->reg_err)
		b->reg_err = -EIO;
	complete(&b->reg_done);
}

/**
 * rift_clt_bounce_free() - drop a path instance's staging pages
 * @path: path whose connections are all closed (no WR can reach them)
 *
 * Safe to call twice and on a partial setup.  Process context: may sleep.
 */
void rift_clt_bounce_free(struct rift_clt_path *path)
{
	struct rift_clt_bounce *b = path->bounce;
	u32 i;

	if (!b)
		return;
	WRITE_ONCE(path->bounce, NULL);
	WRITE_ONCE(path->bounce_bytes, 0);
	for (i = 0; b->mrs && i < b->nr_mrs; i++)
		if (b->mrs[i])
			ib_dereg_mr(b->mrs[i]);
	for (i = 0; b->pages && i < b->nr; i++) {
		/* Thousands of pages, each zeroed when init_on_free is on. */
		cond_resched();
		if (!b->pages[i])
			continue;
		if (b->dma && b->dma[i])
			ib_dma_unmap_page(b->ib_dev, b->dma[i], PAGE_SIZE,
					  DMA_FROM_DEVICE);
		__free_page(b->pages[i]);
	}
	kfree(b->mrs);
	kfree(b->dma);
	kfree(b->pages);
	/* Last: the mappings had to go before the device may. */
	if (b->dev)
		rift_dev_put(b->dev);
	kfree(b);
}

/* Map @b's pages of MR @m and set up its registration WR. */
static int rift_clt_bounce_map_mr(struct rift_clt_bounce *b, struct ib_pd *pd,
				  u32 m, struct scatterlist *sgl,
				  struct ib_reg_wr *wr)
{
	u32 first = m * b->per_mr, n = min(b->per_mr, b->nr - first), i;
	struct scatterlist *sg;
	struct ib_mr *mr;
	int mapped;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, n);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	b->mrs[m] = mr;
	sg_init_table(sgl, n);
	for_each_sg(sgl, sg, n, i) {
		sg_set_page(sg, b->pages[first + i], PAGE_SIZE, 0);
		sg_dma_address(sg) = b->dma[first + i];
		sg_dma_len(sg) = PAGE_SIZE;
	}
	mapped = ib_map_mr_sg(mr, sgl, n, NULL, PAGE_SIZE);
	if (mapped != n)
		return mapped < 0 ? mapped : -EINVAL;
	rift_mr_hide_iova(mr, m);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = IB_WR_REG_MR;
	wr->mr = mr;
	wr->key = mr->rkey;
	wr->access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	return 0;
}

/**
 * rift_clt_bounce_setup() - register a connected path's staging pages
 * @path: path whose connections are established and limits adopted
 *
 * Without them (module parameter off, or the device cannot register a
 * page list) reads use per-read registrations; that is not an error.
 *
 * Return: 0 or a negative errno; the caller closes the connections and
 * then calls rift_clt_bounce_free() on error.
 */
int rift_clt_bounce_setup(struct rift_clt_path *path)
{
	struct rift_clt_con *ctl = &path->cons[RIFT_CLT_CON_CTL];
	struct ib_device *ib_dev = ctl->c.dev->ib_dev;
	u32 qd = path->sess->queue_depth, kb = READ_ONCE(read_bounce_kb);
	struct ib_reg_wr *wrs = NULL;
	struct scatterlist *sgl = NULL;
	struct rift_clt_bounce *b;
	u32 nr, slot, per_mr, i;
	int err = -ENOMEM;

	/* Whole pages for the largest read taken, no more than one request carries. */
	slot = DIV_ROUND_UP(min(clamp(kb, 4U, 1024U) * 1024, path->max_io_size), PAGE_SIZE);
	per_mr = min(ib_dev->attrs.max_fast_reg_page_list_len, RIFT_CLT_BOUNCE_PER_MR);
	if (!READ_ONCE(read_bounce) || !qd || !slot || per_mr < slot)
		return 0;
	/* A slot never straddles two MRs: its addresses are one range. */
	per_mr -= per_mr % slot;
	nr = qd * slot;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	path->bounce = b;
	b->dev = rift_dev_get(ib_dev);
	if (IS_ERR(b->dev)) {
		err = PTR_ERR(b->dev);
		b->dev = NULL;
		return err;
	}
	b->ib_dev = ib_dev;
	b->nr = nr;
	b->slot = slot;
	b->per_mr = per_mr;
	b->nr_mrs = DIV_ROUND_UP(nr, per_mr);
	b->reg_cqe.done = rift_clt_bounce_reg_done;
	init_completion(&b->reg_done);
	b->pages = kcalloc(nr, sizeof(*b->pages), GFP_KERNEL);
	b->dma = kcalloc(nr, sizeof(*b->dma), GFP_KERNEL);
	b->mrs = kcalloc(b->nr_mrs, sizeof(*b->mrs), GFP_KERNEL);
	wrs = kcalloc(b->nr_mrs, sizeof(*wrs), GFP_KERNEL);
	sgl = kcalloc(per_mr, sizeof(*sgl), GFP_KERNEL);
	if (!b->pages || !b->dma || !b->mrs || !wrs || !sgl)
		goto out;
	for (i = 0; i < nr; i++) {
		u64 dma;

		/* Thousands of pages: let others run, also without preemption. */
		cond_resched();
		/* Zeroed: a read the server answers without data shows no old kernel memory. */
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!b->pages[i])
			goto out;
		dma = ib_dma_map_page(ib_dev, b->pages[i], 0, PAGE_SIZE,
				      DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ib_dev, dma))
			goto out;
		b->dma[i] = dma;
	}
	for (i = 0; i < b->nr_mrs; i++) {
		err = rift_clt_bounce_map_mr(b, path->pd.pd, i, sgl, &wrs[i]);
		if (err)
			goto out;
		wrs[i].wr.wr_cqe = &b->reg_cqe;
		if (i)
			wrs[i - 1].wr.next = &wrs[i].wr;
	}
	wrs[b->nr_mrs - 1].wr.send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(ctl->c.qp, &wrs[0].wr, NULL);
	if (err)
		goto out;
	/*
	 * On a timeout the WRs may still complete: @b stays on the path for
	 * the caller's teardown, which drains the QP before freeing it.
	 */
	if (!wait_for_completion_timeout(&b->reg_done,
					 msecs_to_jiffies(RIFT_CLT_BOUNCE_REG_MS)))
		err = -ETIMEDOUT;
	else
		err = b->reg_err;
	if (!err)
		WRITE_ONCE(path->bounce_bytes, (u64)nr << PAGE_SHIFT);
out:
	kfree(sgl);
	kfree(wrs);
	return err;
}

/**
 * rift_clt_bounce_seg() - where the server is to write a bounced read
 * @path: connected path with staging slots
 * @id: the chunk the request holds
 * @len: the read's length, at most the slot's size
 * @seg: filled with the slot's address, @len and its MR's rkey
 */
void rift_clt_bounce_seg(struct rift_clt_path *path, u32 id, u32 len,
			 struct rift_rbuf *seg)
{
	struct rift_clt_bounce *b = path->bounce;
	u32 first = id * b->slot, k, n;
	struct ib_mr *mr = b->mrs[first / b->per_mr];

	for (k = 0; k * PAGE_SIZE < len; k++) {
		n = min_t(u32, len - k * PAGE_SIZE, PAGE_SIZE);
		ib_dma_sync_single_for_device(b->ib_dev, b->dma[first + k], n,
					      DMA_FROM_DEVICE);
	}
	seg->addr = mr->iova + (u64)(first % b->per_mr) * PAGE_SIZE;
	seg->len = len;
	seg->rkey = mr->rkey;
}

/**
 * rift_clt_bounce_copy() - hand a bounced read's data to the ULP
 * @req: request answered with success on its path
 */
void rift_clt_bounce_copy(struct rift_clt_req *req)
{
	struct rift_clt_bounce *b = req->path->bounce;
	u32 first = req->chunk * b->slot, k, n;

	for (k = 0; k * PAGE_SIZE < req->data_len; k++) {
		n = min_t(u32, req->data_len - k * PAGE_SIZE, PAGE_SIZE);
		ib_dma_sync_single_for_cpu(b->ib_dev, b->dma[first + k], n,
					   DMA_FROM_DEVICE);
		sg_pcopy_from_buffer(req->sg, req->sg_cnt,
				     page_address(b->pages[first + k]), n,
				     (size_t)k * PAGE_SIZE);
	}
}

/**
 * rift_clt_bounce_usable() - whether a read goes through a staging slot
 * @path: path the read is posted on
 * @req: the read
 */
bool rift_clt_bounce_usable(struct rift_clt_path *path, struct rift_clt_req *req)
{
	struct rift_clt_bounce *b = path->bounce;

	return req->dir == RIFT_READ && req->data_len && b &&
	       req->data_len <= b->slot * PAGE_SIZE &&
	       req->chunk < b->nr / b->slot;
}

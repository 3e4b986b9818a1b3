// SPDX-License-Identifier: GPL-2.0
/*
 * Rift core: verbs plumbing shared by client and server (device/PD
 * references, message buffers, QP setup and teardown, posting).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>

#include "rift-core.h"

static LIST_HEAD(rift_dev_list);
static DEFINE_MUTEX(rift_dev_mutex);

/**
 * rift_dev_get() - take a reference on the Rift state of an RDMA device
 * @ib_dev: device a connection is about to use
 *
 * All Rift connections on one device share one protection domain, so an
 * rkey handed out on one path works with the lkeys of another on the same
 * device.
 *
 * Return: the device state, or NULL when it cannot be allocated.
 */
struct rift_dev *rift_dev_get(struct ib_device *ib_dev)
{
	struct rift_dev *dev;

	mutex_lock(&rift_dev_mutex);
	list_for_each_entry(dev, &rift_dev_list, entry) {
		if (dev->ib_dev == ib_dev && kref_get_unless_zero(&dev->ref))
			goto out;
	}
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		goto out;
	dev->pd = ib_alloc_pd(ib_dev, 0);
	if (IS_ERR(dev->pd)) {
		pr_err("%s: cannot allocate a protection domain: %ld\n",
		       dev_name(&ib_dev->dev), PTR_ERR(dev->pd));
		kfree(dev);
		dev = NULL;
		goto out;
	}
	kref_init(&dev->ref);
	dev->ib_dev = ib_dev;
	list_add(&dev->entry, &rift_dev_list);
out:
	mutex_unlock(&rift_dev_mutex);
	return dev;
}
EXPORT_SYMBOL_GPL(rift_dev_get);

static void rift_dev_release(struct kref *ref)
	__must_hold(&rift_dev_mutex)
{
	struct rift_dev *dev = container_of(ref, struct rift_dev, ref);

	list_del(&dev->entry);
	ib_dealloc_pd(dev->pd);
	kfree(dev);
}

/**
 * rift_dev_put() - drop a reference taken by rift_dev_get()
 * @dev: device state; freed with its PD on the last put
 */
void rift_dev_put(struct rift_dev *dev)
{
	mutex_lock(&rift_dev_mutex);
	kref_put(&dev->ref, rift_dev_release);
	mutex_unlock(&rift_dev_mutex);
}
EXPORT_SYMBOL_GPL(rift_dev_put);

/**
 * rift_iu_alloc() - allocate and DMA-map a message buffer
 * @ib_dev: device the buffer is mapped for
 * @size: bytes
 * @dir: DMA_TO_DEVICE for sends, DMA_FROM_DEVICE for receives
 * @done: completion handler of the work requests that use it
 *
 * Return: the buffer, or NULL.
 */
struct rift_iu *rift_iu_alloc(struct ib_device *ib_dev, size_t size,
			      enum dma_data_direction dir,
			      void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	struct rift_iu *iu;

	iu = kzalloc(sizeof(*iu), GFP_KERNEL);
	if (!iu)
		return NULL;
	iu->buf = kzalloc(size, GFP_KERNEL);
	if (!iu->buf)
		goto err_free_iu;
	iu->dma = ib_dma_map_single(ib_dev, iu->buf, size, dir);
	if (ib_dma_mapping_error(ib_dev, iu->dma))
		goto err_free_buf;
	iu->size = size;
	iu->dir = dir;
	iu->cqe.done = done;
	return iu;

err_free_buf:
	kfree(iu->buf);
err_free_iu:
	kfree(iu);
	return NULL;
}
EXPORT_SYMBOL_GPL(rift_iu_alloc);

/**
 * rift_iu_free() - unmap and free a buffer from rift_iu_alloc()
 * @ib_dev: device it was mapped for
 * @iu: the buffer; NULL is ignored
 */
void rift_iu_free(struct ib_device *ib_dev, struct rift_iu *iu)
{
	if (!iu)
		return;
	ib_dma_unmap_single(ib_dev, iu->dma, iu->size, iu->dir);
	kfree(iu->buf);
	kfree(iu);
}
EXPORT_SYMBOL_GPL(rift_iu_free);

/* Give back a connection's CQ to where it came from. */
static void rift_con_put_cq(struct rift_con *con)
{
	if (!con->cq)
		return;
	if (con->direct_cq)
		ib_free_cq(con->cq);
	else
		ib_cq_pool_put(con->cq, con->cq_size);
	con->cq = NULL;
}

/**
 * rift_con_create_qp() - create the RC QP of a connection on its rdma_cm id
 * @con: connection; ->cm_id, ->dev, ->cq and the sizes are filled in;
 *	->direct_cq chooses a CQ the caller polls (IB_POLL_DIRECT)
 * @cm_id: rdma_cm id whose device is resolved
 * @max_send_wr: send queue depth
 * @max_recv_wr: receive queue depth
 * @comp_vector: completion vector (spreads connections over CPUs)
 *
 * Return: 0 or a negative errno; on error nothing is left allocated.
 */
int rift_con_create_qp(struct rift_con *con, struct rdma_cm_id *cm_id,
		       u32 max_send_wr, u32 max_recv_wr, int comp_vector)
{
	struct ib_qp_init_attr init = {};
	struct ib_device *ib_dev = cm_id->device;
	int err;

	max_send_wr = min_t(u32, max_send_wr, ib_dev->attrs.max_qp_wr);
	max_recv_wr = min_t(u32, max_recv_wr, ib_dev->attrs.max_qp_wr);

	con->dev = rift_dev_get(ib_dev);
	if (!con->dev)
		return -ENOMEM;

	/* One more WR each way and two CQEs for ib_drain_qp()'s markers. */
	con->cq_size = max_send_wr + max_recv_wr + 2;
	/*
	 * A polled connection's completions are reaped by whoever polls it,
	 * never by an interrupt; ib_drain_qp() polls such a CQ itself.
	 */
	if (con->direct_cq)
		con->cq = ib_alloc_cq(ib_dev, con, con->cq_size, comp_vector,
				      IB_POLL_DIRECT);
	else
		con->cq = ib_cq_pool_get(ib_dev, con->cq_size, comp_vector,
					 IB_POLL_SOFTIRQ);
	if (IS_ERR(con->cq)) {
		err = PTR_ERR(con->cq);
		con->cq = NULL;
		goto err_put_dev;
	}

	init.event_handler = NULL;
	init.qp_context = con;
	init.send_cq = con->cq;
	init.recv_cq = con->cq;
	init.cap.max_send_wr = max_send_wr + 1;
	init.cap.max_recv_wr = max_recv_wr + 1;
	init.cap.max_send_sge = min_t(u32, ib_dev->attrs.max_send_sge, 16);
	init.cap.max_recv_sge = 1;
	init.cap.max_inline_data = RIFT_MAX_INLINE;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	err = rdma_create_qp(cm_id, con->dev->pd, &init);
	if (err) {
		init.cap.max_inline_data = 0;
		err = rdma_create_qp(cm_id, con->dev->pd, &init);
	}
	if (err)
		goto err_put_cq;

	con->cm_id = cm_id;
	con->qp = cm_id->qp;
	con->max_send_wr = max_send_wr;
	con->max_recv_wr = max_recv_wr;
	con->max_send_sge = init.cap.max_send_sge;
	con->max_inline = init.cap.max_inline_data;
	/*
	 * Up to signal_every completed-but-unretired WRs plus what is in
	 * flight must fit: callers size the SQ at twice what can be in
	 * flight, and a quarter keeps a margin for chains.
	 */
	con->signal_every = max(1U, max_send_wr / 4);
	atomic_set(&con->unsignalled, 0);
	return 0;

err_put_cq:
	rift_con_put_cq(con);
err_put_dev:
	rift_dev_put(con->dev);
	con->dev = NULL;
	return err;
}
EXPORT_SYMBOL_GPL(rift_con_create_qp);

/**
 * rift_con_destroy_qp() - drain and destroy a connection's QP
 * @con: connection; safe to call twice and on a connection without a QP.
 *	->cm_id may already be destroyed (set to NULL) by then.
 *
 * Draining first guarantees that every posted work request has completed
 * or flushed, so no completion handler can run on memory freed next.
 */
void rift_con_destroy_qp(struct rift_con *con)
{
	if (con->qp) {
		ib_drain_qp(con->qp);
		if (con->cm_id && con->cm_id->qp == con->qp)
			rdma_destroy_qp(con->cm_id);
		else
			ib_destroy_qp(con->qp);
		con->qp = NULL;
	}
	rift_con_put_cq(con);
	if (con->dev) {
		rift_dev_put(con->dev);
		con->dev = NULL;
	}
}
EXPORT_SYMBOL_GPL(rift_con_destroy_qp);

/**
 * rift_con_need_signal() - whether the next send must be signalled
 * @con: connection
 *
 * Return: true for every ->signal_every-th send on @con.
 */
bool rift_con_need_signal(struct rift_con *con)
{
	return rift_con_signal_n(con, 1);
}
EXPORT_SYMBOL_GPL(rift_con_need_signal);

/**
 * rift_con_signal_n() - whether a chain of WRs must end signalled
 * @con: connection
 * @nr_wr: work requests in the chain about to be posted
 *
 * Counts WRs, not posts: the chain's last WR is signalled whenever the
 * chain crosses a multiple of ->signal_every, so at most that many WRs
 * are ever posted without a signalled one among them.
 *
 * Return: true if the chain's last WR must be signalled.
 */
bool rift_con_signal_n(struct rift_con *con, u32 nr_wr)
{
	u32 old = atomic_fetch_add(nr_wr, &con->unsignalled);

	return old / con->signal_every != (old + nr_wr) / con->signal_every;
}
EXPORT_SYMBOL_GPL(rift_con_signal_n);

/**
 * rift_post_recv() - post a receive into a message buffer
 * @con: connection
 * @iu: buffer, mapped DMA_FROM_DEVICE
 *
 * Return: 0 or the verbs error.
 */
int rift_post_recv(struct rift_con *con, struct rift_iu *iu)
{
	struct ib_sge sge = {
		.addr = iu->dma,
		.length = iu->size,
		.lkey = con->dev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &iu->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(con->qp, &wr, NULL);
}
EXPORT_SYMBOL_GPL(rift_post_recv);

/**
 * rift_post_send() - post a SEND of a message buffer
 * @con: connection
 * @iu: buffer, mapped DMA_TO_DEVICE
 * @len: bytes of @iu to send
 * @head: work requests to post before the send (chained), or NULL
 * @signal: request a completion (else one is requested every Nth send)
 *
 * Return: 0 or the verbs error.
 */
int rift_post_send(struct rift_con *con, struct rift_iu *iu, size_t len,
		   struct ib_send_wr *head, bool signal)
{
	struct ib_sge sge = {
		.addr = iu->dma,
		.length = len,
		.lkey = con->dev->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &iu->cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
	};
	struct ib_send_wr *tail;

	ib_dma_sync_single_for_device(con->dev->ib_dev, iu->dma, len,
				      DMA_TO_DEVICE);
	if (signal || rift_con_need_signal(con))
		wr.send_flags = IB_SEND_SIGNALED;
	if (!head)
		return ib_post_send(con->qp, &wr, NULL);
	for (tail = head; tail->next; tail = tail->next)
		;
	tail->next = &wr;
	return ib_post_send(con->qp, head, NULL);
}
EXPORT_SYMBOL_GPL(rift_post_send);

/**
 * rift_cm_event_str() - name of an rdma_cm event for logs
 * @ev: event
 *
 * Return: a static string.
 */
const char *rift_cm_event_str(enum rdma_cm_event_type ev)
{
	return rdma_event_msg(ev);
}
EXPORT_SYMBOL_GPL(rift_cm_event_str);

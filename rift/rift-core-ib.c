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

/*
 * Every RDMA device rdma_cm can bind an id to has an entry here, made when
 * the device registers and dropped when it unregisters.  The entry counts
 * what Rift holds on the device (QPs with their CQs, MRs, mappings):
 * device removal waits for that count to reach zero, so nothing Rift
 * frees afterwards can touch a device that is gone.
 */
static LIST_HEAD(rift_dev_list);
static DEFINE_MUTEX(rift_dev_mutex);
static DECLARE_WAIT_QUEUE_HEAD(rift_dev_wait);
static BLOCKING_NOTIFIER_HEAD(rift_dev_chain);

static struct rift_dev *rift_dev_find(struct ib_device *ib_dev)
	__must_hold(&rift_dev_mutex)
{
	struct rift_dev *dev;

	lockdep_assert_held(&rift_dev_mutex);
	list_for_each_entry(dev, &rift_dev_list, entry)
		if (dev->ib_dev == ib_dev)
			return dev;
	return NULL;
}

/**
 * rift_dev_get() - take a reference on the Rift state of an RDMA device
 * @ib_dev: device a connection or a path is about to use
 *
 * Return: the device state, or ERR_PTR(-ENODEV) for a device that is
 * being removed (or not known yet).
 */
struct rift_dev *rift_dev_get(struct ib_device *ib_dev)
{
	struct rift_dev *dev;

	mutex_lock(&rift_dev_mutex);
	dev = rift_dev_find(ib_dev);
	if (!dev || dev->removing)
		dev = ERR_PTR(-ENODEV);
	else
		WRITE_ONCE(dev->users, dev->users + 1);
	mutex_unlock(&rift_dev_mutex);
	return dev;
}
EXPORT_SYMBOL_GPL(rift_dev_get);

/**
 * rift_dev_put() - drop a reference taken by rift_dev_get()
 * @dev: device state
 */
void rift_dev_put(struct rift_dev *dev)
{
	mutex_lock(&rift_dev_mutex);
	if (!WARN_ON_ONCE(!dev->users)) {
		WRITE_ONCE(dev->users, dev->users - 1);
		if (!dev->users)
			wake_up_all(&rift_dev_wait);
	}
	mutex_unlock(&rift_dev_mutex);
}
EXPORT_SYMBOL_GPL(rift_dev_put);

/**
 * rift_pd_get() - a protection domain of a path's own
 * @p: filled in; zeroed or put before
 * @ib_dev: device of the path
 *
 * Every path instance gets a PD of its own on both ends: an (address,
 * rkey) pair of one path instance, however it leaked or was guessed, is
 * refused by the device on the QPs of any other path or session, since
 * devices check an rkey against the PD of the QP it arrives on.
 *
 * Return: 0, -ENODEV for a device being removed, or the verbs error.
 */
int rift_pd_get(struct rift_pd *p, struct ib_device *ib_dev)
{
	struct rift_dev *dev;
	struct ib_pd *pd;

	dev = rift_dev_get(ib_dev);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	pd = ib_alloc_pd(ib_dev, 0);
	if (IS_ERR(pd)) {
		pr_err_ratelimited("%s: cannot allocate a protection domain: %ld\n",
				   dev_name(&ib_dev->dev), PTR_ERR(pd));
		rift_dev_put(dev);
		return PTR_ERR(pd);
	}
	p->dev = dev;
	p->pd = pd;
	return 0;
}
EXPORT_SYMBOL_GPL(rift_pd_get);

/**
 * rift_pd_put() - free a path's protection domain
 * @p: from rift_pd_get(); every QP and MR in it is gone.  Safe twice and
 *	on a zeroed one.
 */
void rift_pd_put(struct rift_pd *p)
{
	if (p->pd) {
		ib_dealloc_pd(p->pd);
		p->pd = NULL;
	}
	if (p->dev) {
		rift_dev_put(p->dev);
		p->dev = NULL;
	}
}
EXPORT_SYMBOL_GPL(rift_pd_put);

/**
 * rift_dev_alive() - whether a device in use is not being removed
 * @dev: device state the caller holds a reference on
 *
 * A user that took its reference just before removal began is told to
 * its removal notifier only if the notifier can already see the user;
 * setup code checks this once more before it declares a path usable.
 *
 * Return: false once removal of the device has begun.
 */
bool rift_dev_alive(struct rift_dev *dev)
{
	bool alive;

	mutex_lock(&rift_dev_mutex);
	alive = !dev->removing;
	mutex_unlock(&rift_dev_mutex);
	return alive;
}
EXPORT_SYMBOL_GPL(rift_dev_alive);

/**
 * rift_dev_register_notifier() - be told when an RDMA device or port goes away
 * @nb: notifier; called with %RIFT_DEV_REMOVING and the struct rift_dev,
 *	or with %RIFT_DEV_PORT_DOWN and a struct rift_port_event
 *
 * The callback runs in process context, while the device is being
 * unregistered or from the RDMA core's event work.  It must not wait for
 * teardown itself: it only fails the paths that use the device or port
 * (state change plus queued work).  On removal, rift-core then waits until
 * every reference on the device is dropped before it lets the removal go
 * on.
 *
 * Return: 0 or a negative errno.
 */
int rift_dev_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&rift_dev_chain, nb);
}
EXPORT_SYMBOL_GPL(rift_dev_register_notifier);

/**
 * rift_dev_unregister_notifier() - undo rift_dev_register_notifier()
 * @nb: notifier; waits for a callback that is running
 */
void rift_dev_unregister_notifier(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&rift_dev_chain, nb);
}
EXPORT_SYMBOL_GPL(rift_dev_unregister_notifier);

/*
 * A port went down (the link lost carrier, its netdev was set down): the
 * paths over it cannot carry anything until it is back, so they fail now
 * and their requests move to healthy paths at once instead of after the
 * heartbeats have gone unanswered.  Heartbeats stay the detector for loss
 * no port event reports.  The RDMA core calls this from its workqueue, in
 * process context; the notifiers only change path states and queue work.
 */
static void rift_ib_event(struct ib_event_handler *handler,
			  struct ib_event *event)
{
	struct rift_dev *dev = container_of(handler, struct rift_dev, event_handler);
	struct rift_port_event pe = { .dev = dev };

	if (event->event != IB_EVENT_PORT_ERR)
		return;
	pe.port = event->element.port_num;
	pr_info_ratelimited("%s: port %u down: failing the paths over it\n",
			    dev_name(&dev->ib_dev->dev), pe.port);
	blocking_notifier_call_chain(&rift_dev_chain, RIFT_DEV_PORT_DOWN, &pe);
}

static int rift_ib_add(struct ib_device *ib_dev)
{
	struct rift_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ib_dev = ib_dev;
	INIT_IB_EVENT_HANDLER(&dev->event_handler, ib_dev, rift_ib_event);
	ib_register_event_handler(&dev->event_handler);
	mutex_lock(&rift_dev_mutex);
	list_add(&dev->entry, &rift_dev_list);
	mutex_unlock(&rift_dev_mutex);
	return 0;
}

/*
 * Lockless: it is wait_event's condition, which runs with the task no
 * longer TASK_RUNNING and must not sleep (taking rift_dev_mutex here was
 * reported by DEBUG_ATOMIC_SLEEP).  Once removal began @users only falls;
 * the last rift_dev_put() wakes the waiter while it still holds the mutex,
 * and the waiter takes the mutex before it frees @dev.
 */
static bool rift_dev_unused(struct rift_dev *dev)
{
	return !READ_ONCE(dev->users);
}

/*
 * Called by the RDMA core before rdma_cm's own removal handling (clients
 * are removed in the reverse order of registration, and rift-core loads
 * after rdma_cm), and before the core frees the device's CQ pool.  New
 * users are refused from here on; the roles fail every path on the
 * device, and we return only once their teardown released all of it.
 */
static void rift_ib_remove(struct ib_device *ib_dev, void *client_data)
{
	unsigned long start = jiffies;
	struct rift_dev *dev;

	mutex_lock(&rift_dev_mutex);
	dev = rift_dev_find(ib_dev);
	if (dev)
		dev->removing = true;
	mutex_unlock(&rift_dev_mutex);
	if (!dev)
		return;
	/* Waits for a port event being handled; removal fails the paths anyway. */
	ib_unregister_event_handler(&dev->event_handler);
	if (!rift_dev_unused(dev))
		pr_info("%s: device removed: closing the paths that use it\n",
			dev_name(&ib_dev->dev));
	blocking_notifier_call_chain(&rift_dev_chain, RIFT_DEV_REMOVING, dev);
	while (!wait_event_timeout(rift_dev_wait, rift_dev_unused(dev),
				   RIFT_DEV_REMOVE_REPORT_MS * HZ / MSEC_PER_SEC))
		pr_warn("%s: removal waits for %u Rift users after %u ms\n",
			dev_name(&ib_dev->dev), READ_ONCE(dev->users),
			jiffies_to_msecs(jiffies - start));
	mutex_lock(&rift_dev_mutex);
	list_del(&dev->entry);
	mutex_unlock(&rift_dev_mutex);
	kfree(dev);
}

static struct ib_client rift_ib_client = {
	.name	= "rift",
	.add	= rift_ib_add,
	.remove	= rift_ib_remove,
};

/**
 * rift_core_ib_init() - start tracking RDMA devices
 *
 * Return: 0 or a negative errno.
 */
int rift_core_ib_init(void)
{
	return ib_register_client(&rift_ib_client);
}

/**
 * rift_core_ib_exit() - stop tracking RDMA devices
 *
 * Every role module is gone by then, so no device has users left.
 */
void rift_core_ib_exit(void)
{
	ib_unregister_client(&rift_ib_client);
}

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
 *	->direct_cq chooses a CQ the caller polls (IB_POLL_DIRECT), ->wq_cq
 *	one reaped in the RDMA core's CQ work (IB_POLL_WORKQUEUE); ->pd,
 *	the path's protection domain on @cm_id's device, is set by the caller
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

	if (WARN_ON_ONCE(!con->pd || con->pd->device != ib_dev))
		return -EINVAL;
	con->dev = rift_dev_get(ib_dev);
	if (IS_ERR(con->dev)) {
		err = PTR_ERR(con->dev);
		con->dev = NULL;
		return err;
	}

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
					 con->wq_cq ? IB_POLL_WORKQUEUE : IB_POLL_SOFTIRQ);
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
	err = rdma_create_qp(cm_id, con->pd, &init);
	if (err) {
		init.cap.max_inline_data = 0;
		err = rdma_create_qp(cm_id, con->pd, &init);
	}
	if (err)
		goto err_put_cq;

	con->cm_id = cm_id;
	con->qp = cm_id->qp;
	con->drained = false;
	con->port = cm_id->port_num;
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
 * rift_con_drain_qp() - drain a connection's QP, once
 * @con: connection; safe to call twice and on a connection without a QP
 *
 * Every posted work request has completed or flushed, and its completion
 * handler has run, when this returns.  For a caller that must free what
 * posted WRs still reference before the QP goes (rdma_rw contexts need
 * the QP to be destroyed); rift_con_destroy_qp() then drains no more.
 */
void rift_con_drain_qp(struct rift_con *con)
{
	if (con->qp && !con->drained) {
		ib_drain_qp(con->qp);
		con->drained = true;
	}
}
EXPORT_SYMBOL_GPL(rift_con_drain_qp);

/**
 * rift_con_destroy_qp() - drain and destroy a connection's QP
 * @con: connection; safe to call twice and on a connection without a QP.
 *	->cm_id may already be destroyed (set to NULL) by then.
 *
 * Draining first guarantees that every posted work request has completed
 * or flushed, so no completion handler can run on memory freed next.
 * The device reference stays: the caller still unmaps its receive
 * buffers, then calls rift_con_put_dev().
 */
void rift_con_destroy_qp(struct rift_con *con)
{
	if (con->qp) {
		rift_con_drain_qp(con);
		if (con->cm_id && con->cm_id->qp == con->qp)
			rdma_destroy_qp(con->cm_id);
		else
			ib_destroy_qp(con->qp);
		con->qp = NULL;
	}
	rift_con_put_cq(con);
}
EXPORT_SYMBOL_GPL(rift_con_destroy_qp);

/**
 * rift_con_put_dev() - drop the device reference of a connection
 * @con: connection whose QP is destroyed and whose buffers are unmapped;
 *	safe to call twice
 *
 * The last thing a connection's teardown does on its device: device
 * removal may complete as soon as this returns.
 */
void rift_con_put_dev(struct rift_con *con)
{
	if (con->dev) {
		rift_dev_put(con->dev);
		con->dev = NULL;
	}
}
EXPORT_SYMBOL_GPL(rift_con_put_dev);

/**
 * rift_con_need_signal() - whether the next send must be signalled
 * @con: connection
 *
 * Return: true for every ->signal_every-th send on @con.
 */
static bool rift_con_need_signal(struct rift_con *con)
{
	return rift_con_signal_n(con, 1);
}

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
 * rift_con_send_imm() - send a message that is only an immediate
 * @con: connection
 * @cqe: completion handler of the send, when it is signalled
 * @imm: message (heartbeats, probes, responses without payload)
 *
 * Counted like every send (rift_con_need_signal()), so that heartbeats
 * can never fill the send queue with unsignalled work requests.
 *
 * Return: 0 or a negative errno.
 */
int rift_con_send_imm(struct rift_con *con, struct ib_cqe *cqe,
		      const struct rift_imm *imm)
{
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND_WITH_IMM,
		.wr_cqe = cqe,
	};
	int err;

	err = rift_imm_encode(imm, &wr.ex.imm_data);
	if (err)
		return err;
	if (rift_con_need_signal(con))
		wr.send_flags = IB_SEND_SIGNALED;
	return ib_post_send(con->qp, &wr, NULL);
}
EXPORT_SYMBOL_GPL(rift_con_send_imm);

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
		.lkey = con->pd->local_dma_lkey,
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
 * rift_con_rx_alloc() - set up and post a connection's receive ring
 * @con: connection whose QP exists
 * @ib_dev: device of the QP
 * @nr: buffers, each of %RIFT_MSG_BUF_SIZE
 * @done: the owner's receive handler, which posts a buffer again once
 *	it is done with it
 *
 * On failure what was set up stays for rift_con_rx_free(), which the
 * connection's teardown calls (after destroying the QP) in any case.
 *
 * Return: 0 or a negative errno.
 */
int rift_con_rx_alloc(struct rift_con *con, struct ib_device *ib_dev, u32 nr,
		      void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	u32 i;
	int err;

	con->rx = kcalloc(nr, sizeof(*con->rx), GFP_KERNEL);
	if (!con->rx)
		return -ENOMEM;
	WRITE_ONCE(con->nr_rx, nr);
	for (i = 0; i < nr; i++) {
		con->rx[i] = rift_iu_alloc(ib_dev, RIFT_MSG_BUF_SIZE,
					   DMA_FROM_DEVICE, done);
		if (!con->rx[i])
			return -ENOMEM;
		err = rift_post_recv(con, con->rx[i]);
		if (err)
			return err;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rift_con_rx_alloc);

/**
 * rift_con_rx_free() - free a connection's receive ring
 * @con: connection whose QP is destroyed (nothing can land any more)
 * @ib_dev: device the buffers are mapped for
 *
 * Safe twice and on a connection without a ring.
 */
void rift_con_rx_free(struct rift_con *con, struct ib_device *ib_dev)
{
	u32 i;

	if (!con->rx)
		return;
	for (i = 0; i < con->nr_rx; i++)
		rift_iu_free(ib_dev, con->rx[i]);
	kfree(con->rx);
	con->rx = NULL;
	WRITE_ONCE(con->nr_rx, 0);
}
EXPORT_SYMBOL_GPL(rift_con_rx_free);

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
		.lkey = con->pd->local_dma_lkey,
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

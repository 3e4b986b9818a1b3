// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: connections.  One connection of a path is set up through
 * rdma_cm (address and route resolution, the QP, its MR pool and
 * receives, CON_REQ/CON_RSP) and torn down (drain, fail over what it
 * held, destroy the QP, then the cm_id).  The CM handler and the teardown
 * exclude each other through the connection's cm_lock.  The path's
 * lifecycle (rift-clt-path.c) connects and closes all of a path's
 * connections through here; the INFO exchange that follows is
 * rift-clt-info.c's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"
/* rift-core's, shared with the server. */
#include "rift_trace.h"

/* Also bounds each wait of the INFO exchange (rift-clt-info.c). */
unsigned int rift_clt_connect_timeout_ms = 10000;

/* 0 would fail every attempt at once; an hour is "never" already. */
static int rift_clt_set_connect_timeout(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 100, 3600000);
}

static const struct kernel_param_ops rift_clt_connect_timeout_ops = {
	.set = rift_clt_set_connect_timeout,
	.get = param_get_uint,
};

module_param_cb(connect_timeout_ms, &rift_clt_connect_timeout_ops,
		&rift_clt_connect_timeout_ms, 0644);
MODULE_PARM_DESC(connect_timeout_ms,
		 "Give up a connection attempt that saw no CM event for this long, 100..3600000 (default 10000)");

static u8 ack_timeout = 20;
module_param(ack_timeout, byte, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "QP ack timeout, 4.096 us * 2^N (default 20: ~4.3 s; 0: rdma_cm's)");

static void rift_clt_con_finish(struct rift_clt_con *con, int err)
{
	con->err = err;
	complete(&con->done);
}

static int rift_clt_con_rx_alloc(struct rift_clt_con *con)
{
	struct ib_device *ib_dev = con->c.cm_id->device;
	int err;

	if (con->idx == RIFT_CLT_CON_CTL) {
		con->info_rx = rift_iu_alloc(ib_dev, RIFT_INFO_MAX_LEN,
					     DMA_FROM_DEVICE, rift_clt_rx_done);
		if (!con->info_rx)
			return -ENOMEM;
		err = rift_post_recv(&con->c, con->info_rx);
		if (err)
			return err;
	}
	return rift_con_rx_alloc(&con->c, ib_dev, con->path->sess->req_queue_depth + 16,
				 rift_clt_rx_done);
}

static void rift_clt_con_rx_free(struct rift_clt_con *con,
				 struct ib_device *ib_dev)
{
	rift_con_rx_free(&con->c, ib_dev);
	rift_iu_free(ib_dev, con->info_rx);
	con->info_rx = NULL;
}

static int rift_clt_con_route_resolved(struct rift_clt_con *con)
{
	struct rift_clt_path *path = con->path;
	struct rift_clt_sess *sess = path->sess;
	struct rdma_cm_id *cm_id = con->c.cm_id;
	u8 priv[RIFT_CON_PRIV_MAX];
	struct rdma_conn_param param = {};
	struct rift_con_req *req = &con->req;
	u32 qd = sess->req_queue_depth;
	u32 max_pages, sge, wrs;
	int err, len;

	/* The path's own PD, on the device the first connection resolved to. */
	if (!path->pd.pd) {
		err = rift_pd_get(&path->pd, cm_id->device);
		if (err == -ENODEV) {
			rift_clt_path_set_error(path, "RDMA device %s is being removed",
						dev_name(&cm_id->device->dev));
			return err;
		}
		if (err) {
			rift_clt_path_set_error(path, "cannot allocate a PD: %d", err);
			return err;
		}
	} else if (path->pd.pd->device != cm_id->device) {
		rift_clt_path_set_error(path, "connections resolve to %s and %s",
					dev_name(&path->pd.pd->device->dev),
					dev_name(&cm_id->device->dev));
		return -EXDEV;
	}
	con->c.pd = path->pd.pd;
	/*
	 * Per request at most: RDMA WRITEs of data, max_send_sge entries each
	 * (rift_con_create_qp() takes at most 16), the header write, with
	 * REMOTE_INV a write's SEND WITH_INV, and on a timeout a CANCEL and a
	 * fence (a read has a REG_MR and a LOCAL_INV instead of the data).
	 * A quarter of the queue more: with every-Nth signalling
	 * (signal_every) that many completed WRs may not be reaped yet.
	 */
	sge = clamp_t(u32, cm_id->device->attrs.max_send_sge, 1, 16);
	wrs = qd * (DIV_ROUND_UP(RIFT_IO_MAX_SEGS, sge) + 4);
	err = rift_con_create_qp(&con->c, cm_id, wrs + wrs / 3 + 32, qd + 16 + 1,
				 con->idx % cm_id->device->num_comp_vectors);
	if (err == -ENODEV) {
		rift_clt_path_set_error(path, "RDMA device %s is being removed",
					dev_name(&cm_id->device->dev));
		return err;
	}
	if (err) {
		rift_clt_path_set_error(path, "cannot create QP: %d", err);
		return err;
	}
	if (con->c.direct_cq) {
		spin_lock(&con->poll_lock);
		con->poll_ok = true;
		spin_unlock(&con->poll_lock);
	}
	if (con->idx != RIFT_CLT_CON_CTL) {
		max_pages = (RIFT_CHUNK_SIZE_MAX >> PAGE_SHIFT) + 1;
		max_pages = min(max_pages, cm_id->device->attrs.max_fast_reg_page_list_len);
		err = ib_mr_pool_init(cm_id->qp, &cm_id->qp->rdma_mrs, qd,
				      IB_MR_TYPE_MEM_REG, max_pages, 0);
		if (err) {
			rift_clt_path_set_error(path, "cannot allocate MRs: %d", err);
			return err;
		}
		con->mrs_ready = true;
	}
	err = rift_clt_con_rx_alloc(con);
	if (err) {
		rift_clt_path_set_error(path, "cannot post receives: %d", err);
		return err;
	}

	memset(req, 0, sizeof(*req));
	req->min_version = RIFT_PROTO_VERSION_MIN;
	req->max_version = RIFT_PROTO_VERSION_MAX;
	rift_clt_dbg_con_req(req);
	memcpy(req->sess_uuid, sess->uuid, RIFT_UUID_LEN);
	memcpy(req->path_uuid, path->uuid, RIFT_UUID_LEN);
	req->con_idx = con->idx;
	req->con_cnt = path->nr_cons;
	req->queue_depth = qd;
	req->reconnect_gen = path->reconnect_gen;
	len = rift_proto_con_req_encode(req, priv, sizeof(priv));
	if (len < 0)
		return len;

	param.private_data = priv;
	param.private_data_len = len;
	param.responder_resources = min_t(u32, 16, cm_id->device->attrs.max_qp_rd_atom);
	param.initiator_depth = min_t(u32, 16, cm_id->device->attrs.max_qp_init_rd_atom);
	/* Not 7: rxe treats 7 as "retry forever" and a dead peer would hang. */
	param.retry_count = 6;
	param.rnr_retry_count = 7;
	err = rdma_connect_locked(cm_id, &param);
	if (err)
		rift_clt_path_set_error(path, "rdma_connect failed: %d", err);
	return err;
}

static void rift_clt_con_rejected(struct rift_clt_con *con,
				  struct rdma_cm_event *ev)
{
	struct rift_clt_path *path = con->path;
	struct rift_reject rej;
	const void *data;
	u8 len = 0;

	data = rdma_consumer_reject_data(con->c.cm_id, ev, &len);
	if (data && rift_proto_reject_decode(data, len, &rej) == 0) {
		rift_clt_path_set_error(path,
					"server refused: %s (client speaks %u..%u, server %u..%u)",
					rift_proto_reject_str(rej.reason),
					con->req.min_version, con->req.max_version,
					rej.min_version, rej.max_version);
	} else {
		rift_clt_path_set_error(path, "connection rejected: %s",
					rdma_reject_msg(con->c.cm_id, ev->status));
	}
}

/*
 * Only connection 0's CON_RSP is checked against INFO_RSP and carries the
 * nonce the proofs use: a server that grants the other connections
 * something else is inconsistent, and the client must not pick one.  The
 * protocol requires the values to be identical (NEW_SESSION aside, which
 * only the connection that created the session reports).
 */
static bool rift_clt_con_rsp_same(const struct rift_con_rsp *a,
				  const struct rift_con_rsp *b)
{
	return a->version == b->version && a->queue_depth == b->queue_depth &&
	       a->max_io_size == b->max_io_size && a->chunk_size == b->chunk_size &&
	       a->has_nonce == b->has_nonce &&
	       !memcmp(a->auth_nonce, b->auth_nonce, sizeof(a->auth_nonce));
}

static void rift_clt_cm_event(struct rift_clt_con *con, struct rdma_cm_id *cm_id,
			      struct rdma_cm_event *ev);

static int rift_clt_cm_handler(struct rdma_cm_id *cm_id,
			       struct rdma_cm_event *ev)
{
	struct rift_clt_con *con = cm_id->context;
	struct rift_clt_path *path = con->path;

	trace_rift_con_event("client", path->sess->name, path->base.name,
			     con->idx, ev->event, ev->status);
	/*
	 * Once the teardown has begun it owns the QP and the cm_id: what
	 * rdma_cm still reports of this attempt (DISCONNECTED, TIMEWAIT_EXIT,
	 * DEVICE_REMOVAL, ...) has nothing left to act on.  Always 0: the
	 * teardown destroys the id itself.
	 */
	mutex_lock(&con->cm_lock);
	if (!con->closing)
		rift_clt_cm_event(con, cm_id, ev);
	mutex_unlock(&con->cm_lock);
	return 0;
}

static void rift_clt_cm_event(struct rift_clt_con *con, struct rdma_cm_id *cm_id,
			      struct rdma_cm_event *ev)
{
	struct rift_clt_path *path = con->path;
	int err;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		err = rdma_resolve_route(cm_id, RIFT_RESOLVE_TIMEOUT_MS);
		if (err)
			rift_clt_con_finish(con, err);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		err = rift_clt_con_route_resolved(con);
		if (err)
			rift_clt_con_finish(con, err);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		err = rift_proto_con_rsp_decode(ev->param.conn.private_data,
						ev->param.conn.private_data_len,
						&con->req, &con->rsp);
		if (!err && con->rsp.status != RIFT_REJ_NONE)
			err = -ECONNREFUSED;
		con->established = true;
		if (err) {
			rift_clt_path_set_error(path, "bad CON_RSP from server: %pe",
						ERR_PTR(err));
		} else if (con->idx != RIFT_CLT_CON_CTL &&
			   !rift_clt_con_rsp_same(&con->rsp, &path->cons[RIFT_CLT_CON_CTL].rsp)) {
			rift_clt_path_set_error(path,
						"CON_RSP of connection %u differs from connection 0's",
						con->idx);
			err = -EBADMSG;
		}
		rift_clt_con_finish(con, err);
		break;
	case RDMA_CM_EVENT_REJECTED:
		rift_clt_con_rejected(con, ev);
		rift_clt_con_finish(con, -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		rift_clt_path_set_error(path, "%s (%d)", rift_cm_event_str(ev->event),
					ev->status);
		rift_clt_con_finish(con, ev->status ? ev->status : -EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		/*
		 * Teardown needs to destroy this id, which cannot happen from
		 * its own handler: hand it to the close work.
		 */
		rift_clt_path_fail(path, "%s", rift_cm_event_str(ev->event));
		if (!completion_done(&con->done))
			rift_clt_con_finish(con, -ECONNRESET);
		con->established = false;
		break;
	default:
		break;
	}
}

/*
 * Tear down one connection; safe on a connection in any state, including
 * one whose connect attempt timed out while its CM handler was running,
 * and safe twice.  In the order setup went the other way: drain the QP,
 * destroy it, then the cm_id (as the server side does).
 */
static void rift_clt_con_close(struct rift_clt_con *con)
{
	struct rdma_cm_id *cm_id = con->c.cm_id;
	struct ib_device *ib_dev = cm_id ? cm_id->device : NULL;
	struct ib_qp *qp;

	if (!cm_id)
		return;
	/*
	 * Wait for a running handler and keep every later one away, so
	 * what the handler set up (QP, MR pool, receives) is stable from
	 * here although the id lives on until the QP is gone.
	 */
	mutex_lock(&con->cm_lock);
	con->closing = true;
	mutex_unlock(&con->cm_lock);
	if (con->established)
		rdma_disconnect(cm_id);
	con->established = false;
	/*
	 * The drain below polls a poll connection's CQ itself: wait for a
	 * poller that is at it, and keep every later one away.
	 */
	if (con->c.direct_cq) {
		spin_lock(&con->poll_lock);
		con->poll_ok = false;
		spin_unlock(&con->poll_lock);
	}
	qp = con->c.qp;
	if (qp) {
		/*
		 * Drained, no completion can arrive for what the QP held:
		 * fail those requests while their MRs and mappings exist;
		 * deregistering the MRs then makes a late server write fail
		 * on the wire instead of landing in reused pages.
		 */
		ib_drain_qp(qp);
		rift_clt_fail_inflight(con);
		if (con->mrs_ready) {
			ib_mr_pool_destroy(qp, &qp->rdma_mrs);
			con->mrs_ready = false;
		}
	}
	/*
	 * Drains again: catches invalidates posted from softirq meanwhile.
	 * The id is alive, so rdma_cm destroys the QP it knows of.
	 */
	rift_con_destroy_qp(&con->c);
	rdma_destroy_id(cm_id);
	con->c.cm_id = NULL;
	rift_clt_con_rx_free(con, ib_dev);
	/* Last: the device may be unregistered as soon as this is dropped. */
	rift_con_put_dev(&con->c);
}

int rift_clt_con_connect(struct rift_clt_con *con)
{
	struct rift_clt_path *path = con->path;
	struct rdma_cm_id *cm_id;
	struct sockaddr *src = NULL;
	int err;

	/* No handler of this attempt can run before its id exists. */
	con->closing = false;
	cm_id = rdma_create_id(&init_net, rift_clt_cm_handler, con,
			       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	init_completion(&con->done);
	con->err = 0;
	con->c.cm_id = cm_id;
	/*
	 * A retransmission costs rxe (6.1) dearly: its retry re-executes
	 * REG_MR work requests that already ran, which fails and wedges the
	 * QP.  Acks delayed by a busy host must not trigger one, so wait
	 * longer than rdma_cm's default before retransmitting; a dead peer is
	 * found by heartbeats anyway, never by the retry counter.
	 */
	if (ack_timeout) {
		err = rdma_set_ack_timeout(cm_id, ack_timeout);
		if (err) {
			rift_clt_path_set_error(path, "cannot set the ack timeout: %d", err);
			goto err_close;
		}
	}
	if (path->base.src.ss_family != AF_UNSPEC)
		src = (struct sockaddr *)&path->base.src;
	err = rdma_resolve_addr(cm_id, src, (struct sockaddr *)&path->base.dst,
				RIFT_RESOLVE_TIMEOUT_MS);
	if (err == -ENODEV) {
		/* Its device was removed, or the address is not configured. */
		rift_clt_path_set_error(path, "no RDMA device for the source address (%d)",
					err);
		goto err_close;
	}
	if (err) {
		rift_clt_path_set_error(path, "cannot resolve address: %d", err);
		goto err_close;
	}
	/*
	 * A peer that vanishes mid-handshake may never produce another CM
	 * event: bound the wait so the path cannot stay CONNECTING forever.
	 */
	if (!wait_for_completion_timeout(&con->done,
					 msecs_to_jiffies(rift_clt_connect_timeout_ms))) {
		rift_clt_path_set_error(path, "connect timed out after %u ms",
					rift_clt_connect_timeout_ms);
		err = -ETIMEDOUT;
		goto err_close;
	}
	err = con->err;
	/* Device removal wakes the wait; the reason is in last_error. */
	if (!err && READ_ONCE(path->setup_failed))
		err = -ECONNABORTED;
	if (err)
		goto err_close;
	return 0;

err_close:
	rift_clt_con_close(con);
	return err;
}

/*
 * Close every connection of a path, the last one first; safe on
 * connections in any state and twice.  One step of the path's teardown
 * (rift_clt_path_teardown(), which says what comes before and after).
 */
void rift_clt_path_close_cons(struct rift_clt_path *path)
{
	int i;

	for (i = path->nr_cons - 1; i >= 0; i--)
		rift_clt_con_close(&path->cons[i]);
}

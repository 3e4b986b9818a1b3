// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: sessions, paths and connections.  The listener's rdma_cm
 * events (CON_REQ validation, accept or reject), creation and teardown.
 * The state machines are in rift-srv-state.c, the INFO exchange that
 * completes a path in rift-srv-info.c, the IO path in rift-srv-io.c: this
 * file calls them all and none of them calls back into it.
 *
 * Nothing is torn down from a CQ callback or an rdma_cm handler: those
 * only move a path to CLOSING and queue its close work.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <rdma/ib_cm.h>

#include "rift-srv.h"
#include "rift_trace.h"

/* ------------------------------------------------------------------ */
/* Sessions                                                            */
/* ------------------------------------------------------------------ */

static void rift_srv_sess_release(struct device *dev)
{
	struct rift_srv_sess *sess = container_of(dev, struct rift_srv_sess, dev);

	/* Every path, and with it every chunk, is gone: each held a reference. */
	WARN_ON_ONCE(atomic64_read(&sess->pinned));
	percpu_ref_exit(&sess->ops_ref);
	kfree(sess);
	rift_srv_sess_slot_put();
}

/* Every op is answered and no path is left: tell the ULP, then go. */
static void rift_srv_sess_release_work(struct work_struct *work)
{
	struct rift_srv_sess *sess = container_of(work, struct rift_srv_sess,
						  release_work);
	struct rift_srv_ctx *ctx = sess->ctx;

	if (sess->ulp_up && ctx->ops->link_ev)
		ctx->ops->link_ev(sess, RIFT_SRV_LINK_EV_DISCONNECTED, ctx->priv);
	mutex_lock(&sess->lock);
	rift_srv_sess_change_state(sess, RIFT_SRV_SESS_CLOSED);
	mutex_unlock(&sess->lock);
	rift_srv_peer_info("session %s closed\n", rift_srv_sess_label(sess));
	rift_srv_sess_sysfs_del(sess);
	mutex_lock(&ctx->lock);
	list_del(&sess->entry);
	mutex_unlock(&ctx->lock);
	put_device(&sess->dev);
	/* rift_srv_close() flushes the workqueue after seeing zero. */
	atomic_dec(&ctx->nr_sess);
	wake_up(&ctx->wait);
}

/* Any context: the last op put or the kill's RCU callback. */
static void rift_srv_sess_ops_released(struct percpu_ref *ref)
{
	struct rift_srv_sess *sess = container_of(ref, struct rift_srv_sess, ops_ref);

	/* The context's list reference keeps @sess alive until the work ran. */
	queue_work(rift_srv_wq, &sess->release_work);
}

static struct rift_srv_sess *rift_srv_sess_find(struct rift_srv_ctx *ctx,
						const u8 *uuid)
{
	struct rift_srv_sess *sess;

	lockdep_assert_held(&ctx->lock);
	list_for_each_entry(sess, &ctx->sessions, entry)
		if (!memcmp(sess->uuid, uuid, RIFT_UUID_LEN))
			return sess;
	return NULL;
}

static struct rift_srv_sess *rift_srv_sess_create(struct rift_srv_ctx *ctx,
						  const struct rift_con_req *req)
{
	struct rift_srv_sess *sess;
	int err;

	lockdep_assert_held(&ctx->lock);
	if (!rift_srv_sess_slot_get())
		return ERR_PTR(-ENOSPC);
	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess) {
		rift_srv_sess_slot_put();
		return ERR_PTR(-ENOMEM);
	}
	device_initialize(&sess->dev);
	sess->dev.class = &rift_srv_class;
	sess->dev.release = rift_srv_sess_release;
	sess->dev.groups = rift_srv_sess_groups;
	mutex_init(&sess->lock);
	INIT_LIST_HEAD(&sess->paths);
	INIT_LIST_HEAD(&sess->entry);
	INIT_WORK(&sess->release_work, rift_srv_sess_release_work);
	memcpy(sess->uuid, req->sess_uuid, RIFT_UUID_LEN);
	snprintf(sess->uuid_str, sizeof(sess->uuid_str), "%pU", sess->uuid);
	sess->label = sess->uuid_str;
	sess->ctx = ctx;
	sess->priv = ctx->priv;
	sess->port = ctx->port;
	sess->state = RIFT_SRV_SESS_CONNECTING;
	sess->queue_depth = min_t(u32, req->queue_depth,
				  rift_srv_param_max_queue_depth());
	sess->chunk_size = rift_srv_param_chunk_size();
	/* The largest size the headroom rule allows; already 512-aligned. */
	sess->max_io_size = round_down(sess->chunk_size - RIFT_CHUNK_HEADROOM,
				       RIFT_IO_SIZE_ALIGN);

	atomic64_set(&sess->pinned, 0);

	err = percpu_ref_init(&sess->ops_ref, rift_srv_sess_ops_released, 0,
			      GFP_KERNEL);
	if (err) {
		put_device(&sess->dev);
		return ERR_PTR(err);
	}
	list_add_tail(&sess->entry, &ctx->sessions);
	atomic_inc(&ctx->nr_sess);
	pr_debug("session %s: up to %u chunks of %u bytes per path\n", sess->label,
		 sess->queue_depth, sess->chunk_size);
	return sess;
}

/* ------------------------------------------------------------------ */
/* Paths and connections                                               */
/* ------------------------------------------------------------------ */

/*
 * Process context, from the path's release: the QPs were destroyed by the
 * close work before it dropped the list reference, and every op the ULP
 * held has been answered (each held a reference), so neither RDMA nor the
 * ULP can touch the chunks any more.
 */
static void rift_srv_path_free_work(struct work_struct *work)
{
	struct rift_srv_path *path = container_of(work, struct rift_srv_path,
						  free_work);
	struct rift_srv_sess *sess = path->sess;
	u32 i;

	/*
	 * Memory credits: the chunks the ULP held at close (the others went
	 * back in rift_srv_pool_stop()), or all of them if setup failed
	 * before the close work could run.
	 */
	rift_srv_pool_path_free(path);
	for (i = 0; i < path->nr_chunks; i++)
		free_pages_exact(path->chunks[i], sess->chunk_size);
	atomic64_sub((u64)path->nr_chunks * sess->chunk_size, &sess->pinned);
	rift_srv_pinned_release(path->pinned_reserved);
	/* Closed by the close work already, unless setup failed early. */
	rift_pd_put(&path->pd);
	kfree(path->chunks);
	kfree(path->ops);
	kvfree(path->segs);
	percpu_ref_exit(&path->io_ref);
	free_percpu(path->stats);
	kfree(path->cons);
	kfree(path->rsp_batches);
	kfree(path->sgs);
	kfree(path->mrs);
	kfree(path->rkey_msgs);
	kvfree(path->usr_copies);
	rift_srv_credit_free(path);
	kfree(path);
	put_device(&sess->dev);
}

/*
 * The last put may be rift_srv_resp() in any context, even under the
 * ULP's spinlocks, where freeing queue_depth chunks and a vmalloc'ed
 * segment table does not belong.  rift_srv_wq is ordered, so the free runs
 * before a session release work queued after this put, and module exit
 * drains it.
 */
static void rift_srv_path_release(struct kobject *kobj)
{
	struct rift_srv_path *path = container_of(kobj, struct rift_srv_path, base.kobj);

	queue_work(rift_srv_wq, &path->free_work);
}

static const struct kobj_type rift_srv_path_ktype = {
	.sysfs_ops	= &kobj_sysfs_ops,
	.release	= rift_srv_path_release,
	.default_groups	= rift_srv_path_groups,
};

static void rift_srv_path_io_released(struct percpu_ref *ref)
{
	struct rift_srv_path *path = container_of(ref, struct rift_srv_path, io_ref);

	complete(&path->io_done);
}

static void rift_srv_path_setup_timeout(struct work_struct *work)
{
	struct rift_srv_path *path = container_of(to_delayed_work(work),
						  struct rift_srv_path, setup_work);

	if (READ_ONCE(path->state) == RIFT_SRV_PATH_CONNECTING)
		rift_srv_path_fail(path, "not set up within %u ms",
				   path->setup_timeout_ms);
	kobject_put(&path->base.kobj);
}

static void rift_srv_path_close_work(struct work_struct *work);

static struct rift_srv_path *rift_srv_path_create(struct rift_srv_sess *sess,
						  struct rdma_cm_id *cm_id,
						  const struct rift_con_req *req,
						  u16 version, bool new_sess)
{
	struct rift_srv_path *path;
	u16 i;

	lockdep_assert_held(&sess->lock);
	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return ERR_PTR(-ENOMEM);
	kobject_init(&path->base.kobj, &rift_srv_path_ktype);
	get_device(&sess->dev);
	path->sess = sess;
	INIT_LIST_HEAD(&path->entry);
	INIT_LIST_HEAD(&path->pending_entry);
	spin_lock_init(&path->base.lock);
	path->state = RIFT_SRV_PATH_CONNECTING;
	path->base.state_str = rift_srv_path_base_state_str;
	memcpy(path->uuid, req->path_uuid, RIFT_UUID_LEN);
	path->reconnect_gen = req->reconnect_gen;
	/* Fresh per instance: a proof made for one is worthless on another. */
	get_random_bytes(path->auth_nonce, sizeof(path->auth_nonce));
	path->version = version;
	path->con_cnt = req->con_cnt;
	path->queue_depth = min_t(u32, sess->queue_depth, req->queue_depth);
	path->created_sess = new_sess;
	/* On a passive id the route's destination is the client. */
	memcpy(&path->base.src, &cm_id->route.addr.dst_addr, sizeof(path->base.src));
	memcpy(&path->base.dst, &cm_id->route.addr.src_addr, sizeof(path->base.dst));
	snprintf(path->base.name, sizeof(path->base.name), "%pISc@%pISpc", &path->base.src,
		 &path->base.dst);
	path->ib_dev = cm_id->device;
	strscpy(path->base.hca_name, dev_name(&cm_id->device->dev), sizeof(path->base.hca_name));
	path->base.hca_port = cm_id->port_num;
	path->reg_cqe.done = rift_srv_reg_done;
	init_completion(&path->io_done);
	INIT_WORK(&path->info_work, rift_srv_path_info_work);
	INIT_WORK(&path->close_work, rift_srv_path_close_work);
	INIT_WORK(&path->free_work, rift_srv_path_free_work);
	INIT_DELAYED_WORK(&path->setup_work, rift_srv_path_setup_timeout);
	INIT_DELAYED_WORK(&path->hb_work, rift_srv_path_hb_work);
	rift_srv_credit_init(path);
	path->hb.interval_ms = rift_srv_param_hb_interval_ms();
	path->hb.missed_max = RIFT_HB_MISSED_DEFAULT;
	atomic_set(&path->base.inflight, 0);

	path->setup_timeout_ms = rift_srv_param_setup_timeout_ms();

	/* Small state only: the chunks wait for admission (INFO_REQ). */
	path->cons = kcalloc(path->con_cnt, sizeof(*path->cons), GFP_KERNEL);
	path->stats = alloc_percpu(struct rift_srv_stats);
	path->base.stats = path->stats;
	if (!path->cons || !path->stats ||
	    percpu_ref_init(&path->io_ref, rift_srv_path_io_released, 0,
			    GFP_KERNEL) ||
	    rift_pd_get(&path->pd, cm_id->device)) {
		kobject_put(&path->base.kobj);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < path->con_cnt; i++) {
		struct rift_srv_con *con = &path->cons[i];

		con->tag.kind = RIFT_SRV_CM_CON;
		con->path = path;
		con->idx = i;
		con->state = RIFT_SRV_CON_IDLE;
		con->tx_cqe.done = rift_srv_tx_done;
		INIT_WORK(&con->rsp_flush, rift_srv_con_rsp_flush);
	}
	list_add_tail(&path->entry, &sess->paths);
	lockdep_assert_held(&sess->ctx->lock);
	list_add_tail(&path->pending_entry, &sess->ctx->pending);
	kobject_get(&path->base.kobj);
	queue_delayed_work(rift_srv_wq, &path->setup_work,
			   msecs_to_jiffies(path->setup_timeout_ms));
	pr_debug("session %s: new path %s, generation %u, %u connections\n",
		 sess->label, path->base.name, path->reconnect_gen, path->con_cnt);
	return path;
}

/* Safe on a connection in any state and twice. */
static void rift_srv_con_free(struct rift_srv_con *con)
{
	struct ib_device *ib_dev;

	if (!con->c.cm_id)
		return;
	ib_dev = con->c.cm_id->device;
	/*
	 * A response posted only in part left its rd to this: its WRITEs
	 * on the QP (and their flush completions) use it up to the drain,
	 * and destroying its rdma_rw contexts needs the QP still there.
	 */
	rift_con_drain_qp(&con->c);
	rift_srv_con_free_parked(con);
	rift_con_destroy_qp(&con->c);
	rift_con_rx_free(&con->c, ib_dev);
	rift_iu_free(ib_dev, con->info_rx);
	WRITE_ONCE(con->info_rx, NULL);
	/* The caller drops the device reference once the path let go too. */
}

/*
 * Every receive is posted before the accept, so the client can never
 * find a receive queue short (no RNR): one per chunk plus headroom for
 * heartbeats, and on connection 0 the INFO_REQ buffer ahead of them.
 */
static int rift_srv_con_setup(struct rift_srv_con *con, struct rdma_cm_id *cm_id)
{
	struct rift_srv_path *path = con->path;
	struct ib_device *ib_dev = cm_id->device;
	u32 qd = path->queue_depth;
	u32 send, recv;
	int credits, err;

	/*
	 * A response per chunk, with always-invalidate a LOCAL_INV and a
	 * REG_MR too (the feature is agreed only later, in INFO), budgeted
	 * RDMA WRITEs for reads and control, doubled for the every-Nth
	 * signalling rule, plus the drain WR.
	 */
	send = 2 * (qd * (1 + RIFT_SRV_INV_WRS + RIFT_SRV_RD_WRS) +
		    RIFT_SRV_CTL_WRS) + 1;
	recv = qd + RIFT_SRV_RX_HEADROOM + 1 + (con->idx == 0);
	con->c.cm_id = cm_id;
	/*
	 * As on the client: an rxe (6.1) retransmission re-executes the
	 * REG_MRs queued behind the retransmitted WR (always-invalidate
	 * posts one per response), which revives an old key or fails and
	 * wedges the QP.  Acks late because the host is busy must not
	 * trigger one; dead peers are found by heartbeats.
	 */
	if (rift_srv_param_ack_timeout()) {
		err = rdma_set_ack_timeout(cm_id, rift_srv_param_ack_timeout());
		if (err)
			return err;
	}
	con->c.pd = path->pd.pd;
	/*
	 * Completions are reaped in a task (the RDMA core's CQ work), as
	 * nvmet-rdma does: a ULP starts a request's work in rdma_ev itself
	 * (riftblk submits its bio there) instead of handing it on to a
	 * worker of its own, a wake-up and a context switch per request.
	 */
	con->c.wq_cq = true;
	err = rift_con_create_qp(&con->c, cm_id, send, recv,
				 con->idx % max(1, ib_dev->num_comp_vectors));
	if (err)
		return err;
	credits = (int)((con->c.max_send_wr - 1) / 2) -
		  qd * (1 + RIFT_SRV_INV_WRS) - RIFT_SRV_CTL_WRS;
	if (credits < 1)
		return -ENOMEM;
	atomic_set(&con->rd_credits, credits);

	if (con->idx == 0) {
		con->info_rx = rift_iu_alloc(ib_dev, RIFT_INFO_REQ_MAX_LEN,
					     DMA_FROM_DEVICE, rift_srv_rx_done);
		if (!con->info_rx)
			return -ENOMEM;
		err = rift_post_recv(&con->c, con->info_rx);
		if (err)
			return err;
	}
	return rift_con_rx_alloc(&con->c, ib_dev, qd + RIFT_SRV_RX_HEADROOM,
				 rift_srv_rx_done);
}

static int rift_srv_con_accept(struct rift_srv_con *con, struct rdma_cm_id *cm_id,
			       const struct rdma_cm_event *ev)
{
	const struct ib_device_attr *attrs = &cm_id->device->attrs;
	struct rift_srv_path *path = con->path;
	struct rift_srv_sess *sess = path->sess;
	struct rift_con_rsp rsp = {
		.version	= path->version,
		.status		= RIFT_REJ_NONE,
		.flags		= path->created_sess ? RIFT_CON_RSP_F_NEW_SESSION : 0,
		.queue_depth	= path->queue_depth,
		.max_io_size	= sess->max_io_size,
		.chunk_size	= sess->chunk_size,
		.has_nonce	= true,
	};
	u8 buf[sizeof(struct rift_wire_con_rsp)];
	struct rdma_conn_param param = {};
	int len;

	memcpy(rsp.auth_nonce, path->auth_nonce, sizeof(rsp.auth_nonce));
	len = rift_proto_con_rsp_encode(&rsp, buf, sizeof(buf));
	if (len < 0)
		return len;
	param.private_data = buf;
	param.private_data_len = len;
	param.responder_resources = min_t(u32, ev->param.conn.responder_resources,
					  attrs->max_qp_rd_atom);
	param.initiator_depth = min_t(u32, ev->param.conn.initiator_depth,
				      attrs->max_qp_init_rd_atom);
	param.flow_control = 1;
	param.retry_count = ev->param.conn.retry_count;
	param.rnr_retry_count = 7;
	return rdma_accept(cm_id, &param);
}

/* ------------------------------------------------------------------ */
/* CONNECT_REQUEST                                                     */
/* ------------------------------------------------------------------ */

/**
 * struct rift_srv_verdict - outcome of a CONNECT_REQUEST
 * @reason: %RIFT_REJ_NONE when accepted, else the reject reason
 * @no_reject: the accept itself failed, so there is nothing to reject
 * @why: detail for the log
 */
struct rift_srv_verdict {
	u16	reason;
	bool	no_reject;
	char	why[96];
};

static __printf(3, 4)
void rift_srv_refuse(struct rift_srv_verdict *v, u16 reason, const char *fmt, ...)
{
	va_list ap;

	v->reason = reason;
	va_start(ap, fmt);
	vscnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

/* Returns non-zero, which has rdma_cm destroy the id it never saw accepted. */
static int rift_srv_reject(struct rdma_cm_id *cm_id, const struct rift_srv_verdict *v)
{
	struct rift_reject rej = {
		.reason		= v->reason,
		.min_version	= RIFT_PROTO_VERSION_MIN,
		.max_version	= RIFT_PROTO_VERSION_MAX,
	};
	u8 buf[sizeof(struct rift_wire_reject)];
	int len;

	rift_srv_refuse_info("refusing connection from %pISpc: %s%s%s\n",
			     &cm_id->route.addr.dst_addr,
			     rift_proto_reject_str(v->reason),
			     v->why[0] ? ": " : "", v->why);
	if (v->no_reject)
		return -ECONNREFUSED;
	len = rift_proto_reject_encode(&rej, buf, sizeof(buf));
	if (len > 0)
		rdma_reject(cm_id, buf, len, IB_CM_REJ_CONSUMER_DEFINED);
	return -ECONNREFUSED;
}

static bool rift_srv_same_addr(const struct sockaddr_storage *a,
			       const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
				       &((const struct sockaddr_in6 *)b)->sin6_addr);
	return !memcmp(a, b, sizeof(*a));
}

/*
 * Half-open handshakes from one client address: a host that floods
 * CONNECT_REQUESTs ties up at most max_pending_per_addr of them, each for
 * setup_timeout_ms at most, and hosts elsewhere still get in.
 */
static u32 rift_srv_pending_from(struct rift_srv_ctx *ctx, struct rdma_cm_id *cm_id)
{
	const struct sockaddr_storage *src = &cm_id->route.addr.dst_addr;
	struct rift_srv_path *p;
	u32 n = 0;

	lockdep_assert_held(&ctx->lock);
	list_for_each_entry(p, &ctx->pending, pending_entry)
		if (rift_srv_same_addr(&p->base.src, src))
			n++;
	return n;
}

static u32 rift_srv_sess_nr_paths(struct rift_srv_sess *sess)
{
	struct rift_srv_path *p;
	u32 n = 0;

	lockdep_assert_held(&sess->lock);
	list_for_each_entry(p, &sess->paths, entry)
		n++;
	return n;
}

/*
 * Find the path instance this connection belongs to, or make one.  A
 * connection joins the instance of its path UUID and generation; any other
 * generation starts an instance of its own, which replaces the current one
 * only once it is admitted (rift_srv_path_admit()).  Only admitted
 * instances can make a generation stale: a host that is not admitted
 * cannot close a path or lock it out by sending a high generation.
 */
static struct rift_srv_path *rift_srv_path_pick(struct rift_srv_sess *sess,
						struct rdma_cm_id *cm_id,
						const struct rift_con_req *req,
						u16 version, bool new_sess,
						struct rift_srv_verdict *v)
{
	struct rift_srv_path *p, *cur = NULL, *same = NULL;
	struct rift_srv_path *path;

	lockdep_assert_held(&sess->lock);
	if (sess->state >= RIFT_SRV_SESS_CLOSING) {
		rift_srv_refuse(v, RIFT_REJ_SESSION_CLOSING, "session %s",
				rift_srv_sess_label(sess));
		return NULL;
	}
	list_for_each_entry(p, &sess->paths, entry) {
		if (memcmp(p->uuid, req->path_uuid, RIFT_UUID_LEN))
			continue;
		if (p->reconnect_gen == req->reconnect_gen)
			same = p;
		if (p->admitted && (!cur || p->reconnect_gen > cur->reconnect_gen))
			cur = p;
	}

	if (!same && cur && req->reconnect_gen < cur->reconnect_gen) {
		rift_srv_refuse(v, RIFT_REJ_STALE_GEN, "generation %u, path is at %u",
				req->reconnect_gen, cur->reconnect_gen);
		return NULL;
	}
	if (same) {
		struct rift_srv_con *con;

		cur = same;
		if (READ_ONCE(cur->state) >= RIFT_SRV_PATH_CLOSING) {
			rift_srv_refuse(v, RIFT_REJ_STALE_GEN,
					"generation %u is being closed",
					req->reconnect_gen);
			return NULL;
		}
		if (req->con_cnt != cur->con_cnt) {
			rift_srv_refuse(v, RIFT_REJ_BAD_CON_INDEX,
					"%u connections, path has %u",
					req->con_cnt, cur->con_cnt);
			return NULL;
		}
		con = &cur->cons[req->con_idx];
		if (con->c.cm_id || READ_ONCE(con->state) != RIFT_SRV_CON_IDLE) {
			rift_srv_refuse(v, RIFT_REJ_DUPLICATE_CON, "connection %u",
					req->con_idx);
			return NULL;
		}
		if (version != cur->version || req->queue_depth < cur->queue_depth) {
			rift_srv_refuse(v, RIFT_REJ_MALFORMED,
					"connection %u disagrees with connection 0 on version or queue depth",
					req->con_idx);
			return NULL;
		}
		/* One PD per device: the chunk rkeys only work on one device. */
		if (cm_id->device != cur->ib_dev) {
			rift_srv_refuse(v, RIFT_REJ_NO_RESOURCES,
					"connection on %s, path uses %s",
					dev_name(&cm_id->device->dev),
					dev_name(&cur->ib_dev->dev));
			return NULL;
		}
		return cur;
	}
	if (req->con_cnt > rift_srv_param_max_cons_per_path()) {
		rift_srv_refuse(v, RIFT_REJ_NO_RESOURCES, "%u connections, at most %u",
				req->con_cnt, rift_srv_param_max_cons_per_path());
		return NULL;
	}
	/*
	 * Closing instances count: they hold their memory until they are
	 * gone.  The instance a reconnect replaces does not: a path at the
	 * limit must still be able to reconnect.
	 */
	if (rift_srv_sess_nr_paths(sess) - !!cur >= rift_srv_param_max_paths_per_session()) {
		rift_srv_refuse(v, RIFT_REJ_NO_RESOURCES, "session has %u paths already",
				rift_srv_sess_nr_paths(sess));
		return NULL;
	}
	if (rift_srv_pending_from(sess->ctx, cm_id) >= rift_srv_param_max_pending_per_addr()) {
		rift_srv_refuse(v, RIFT_REJ_NO_RESOURCES,
				"%u paths from this address are in setup already",
				rift_srv_pending_from(sess->ctx, cm_id));
		return NULL;
	}
	path = rift_srv_path_create(sess, cm_id, req, version, new_sess);
	if (IS_ERR(path)) {
		rift_srv_refuse(v, RIFT_REJ_NO_RESOURCES, "cannot allocate a path");
		return NULL;
	}
	return path;
}

static void rift_srv_con_attach(struct rift_srv_path *path, struct rdma_cm_id *cm_id,
				const struct rdma_cm_event *ev,
				const struct rift_con_req *req,
				struct rift_srv_verdict *v)
{
	struct rift_srv_con *con = &path->cons[req->con_idx];
	int err;

	lockdep_assert_held(&path->sess->lock);
	err = rift_srv_con_setup(con, cm_id);
	if (err) {
		rift_srv_refuse(v, RIFT_REJ_NO_RESOURCES,
				"cannot set up connection %u: %d", con->idx, err);
		goto err_free;
	}
	cm_id->context = &con->tag;
	err = rift_srv_con_accept(con, cm_id, ev);
	if (err) {
		rift_srv_refuse(v, RIFT_REJ_INTERNAL, "accept failed: %d", err);
		v->no_reject = true;
		goto err_free;
	}
	spin_lock_irq(&path->base.lock);
	rift_srv_con_change_state(con, RIFT_SRV_CON_CONNECTING);
	spin_unlock_irq(&path->base.lock);
	return;

err_free:
	rift_srv_con_free(con);
	rift_con_put_dev(&con->c);
	/* rdma_cm destroys the id when we return non-zero: forget it. */
	con->c.cm_id = NULL;
	rift_srv_path_fail(path, "connection %u could not be accepted", con->idx);
}

static int rift_srv_con_request(struct rift_srv_ctx *ctx, struct rdma_cm_id *cm_id,
				const struct rdma_cm_event *ev)
{
	struct rift_srv_verdict v = { .reason = RIFT_REJ_NONE };
	struct rift_srv_sess *sess;
	struct rift_srv_path *path;
	struct rift_con_req req;
	bool new_sess = false;
	int ver;

	if (rift_proto_con_req_decode(ev->param.conn.private_data,
				      ev->param.conn.private_data_len, &req)) {
		rift_srv_refuse(&v, RIFT_REJ_MALFORMED, "invalid CON_REQ (%u bytes)",
				ev->param.conn.private_data_len);
		return rift_srv_reject(cm_id, &v);
	}
	ver = rift_proto_version_pick(req.min_version, req.max_version,
				      RIFT_PROTO_VERSION_MIN, RIFT_PROTO_VERSION_MAX);
	if (ver < 0) {
		rift_srv_refuse(&v, RIFT_REJ_VERSION,
				"client speaks %u..%u, server %u..%u",
				req.min_version, req.max_version,
				RIFT_PROTO_VERSION_MIN, RIFT_PROTO_VERSION_MAX);
		return rift_srv_reject(cm_id, &v);
	}

	/* Serialises connection setup per context, which keeps it simple. */
	mutex_lock(&ctx->lock);
	if (ctx->closing) {
		rift_srv_refuse(&v, RIFT_REJ_SESSION_CLOSING, "server closing");
		goto out_unlock_ctx;
	}
	sess = rift_srv_sess_find(ctx, req.sess_uuid);
	if (!sess) {
		if (req.flags & RIFT_CON_F_JOIN) {
			rift_srv_refuse(&v, RIFT_REJ_UNKNOWN_SESSION, "%pU",
					req.sess_uuid);
			goto out_unlock_ctx;
		}
		sess = rift_srv_sess_create(ctx, &req);
		if (IS_ERR(sess)) {
			rift_srv_refuse(&v, RIFT_REJ_NO_RESOURCES, "%s",
					PTR_ERR(sess) == -ENOSPC ?
					"max_sessions reached" :
					"cannot allocate a session");
			goto out_unlock_ctx;
		}
		new_sess = true;
	}

	mutex_lock(&sess->lock);
	path = rift_srv_path_pick(sess, cm_id, &req, ver, new_sess, &v);
	if (path)
		rift_srv_con_attach(path, cm_id, ev, &req, &v);
	if (new_sess && list_empty(&sess->paths)) {
		/* Nothing will ever close a session without a path: drop it. */
		mutex_unlock(&sess->lock);
		list_del(&sess->entry);
		atomic_dec(&ctx->nr_sess);
		put_device(&sess->dev);
	} else {
		mutex_unlock(&sess->lock);
	}
out_unlock_ctx:
	mutex_unlock(&ctx->lock);
	if (v.reason != RIFT_REJ_NONE)
		return rift_srv_reject(cm_id, &v);
	return 0;
}

/* ------------------------------------------------------------------ */
/* rdma_cm events                                                      */
/* ------------------------------------------------------------------ */

static void rift_srv_con_established(struct rift_srv_con *con)
{
	struct rift_srv_path *path = con->path;
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&path->base.lock, flags);
	kick = rift_srv_con_change_state(con, RIFT_SRV_CON_CONNECTED) &&
	       path->info_rcvd && rift_srv_path_all_connected(path);
	spin_unlock_irqrestore(&path->base.lock, flags);
	/* INFO_REQ may overtake the last ESTABLISHED: whoever is last kicks. */
	if (kick)
		rift_srv_path_queue_info(path);
}

/**
 * rift_srv_cm_handler() - rdma_cm events of listeners and connections
 * @cm_id: the id; its context is a struct rift_srv_cm_tag
 * @ev: the event
 *
 * Return: non-zero only for a CONNECT_REQUEST that was refused, so that
 * rdma_cm destroys the new id; ids that were accepted are destroyed by
 * the path's close work, never here.
 */
int rift_srv_cm_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev)
{
	struct rift_srv_cm_tag *tag = cm_id->context;
	struct rift_srv_ctx *ctx;
	struct rift_srv_con *con;

	if (tag->kind == RIFT_SRV_CM_LISTENER) {
		ctx = container_of(tag, struct rift_srv_ctx, tag);
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return rift_srv_con_request(ctx, cm_id, ev);
		/* rdma_cm itself takes wildcard listeners off removed devices. */
		pr_info_ratelimited("listener on port %u: %s (%d)\n", ctx->port,
				    rift_cm_event_str(ev->event), ev->status);
		return 0;
	}

	con = container_of(tag, struct rift_srv_con, tag);
	trace_rift_con_event("server", rift_srv_sess_label(con->path->sess),
			     con->path->base.name, con->idx, ev->event, ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		rift_srv_con_established(con);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		/*
		 * Teardown destroys this id, which its own handler must not
		 * do (rdma_destroy_id() would wait for us): the close work
		 * does it.  Device removal waits for that to happen.
		 */
		rift_srv_path_fail(con->path, "connection %u: %s (%d)", con->idx,
				   rift_cm_event_str(ev->event), ev->status);
		break;
	default:
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Teardown                                                            */
/* ------------------------------------------------------------------ */

/*
 * Reverse of setup, except that the QPs go before the chunk MRs and
 * mappings: draining them is what guarantees no RDMA still targets the
 * chunks.  The cm ids go last because rdma_cm keeps the device alive for
 * them, and everything above still uses the device.  The chunks and ops
 * themselves stay until the path's last reference is put: the ULP may
 * still hold ops of this path.
 */
static void rift_srv_path_close_work(struct work_struct *work)
{
	struct rift_srv_path *path = container_of(work, struct rift_srv_path,
						  close_work);
	struct rift_srv_sess *sess = path->sess;
	bool kill = false;
	int i;

	if (cancel_delayed_work(&path->setup_work))
		kobject_put(&path->base.kobj);
	/* The state is CLOSING: a running tick sends nothing and stops. */
	cancel_delayed_work_sync(&path->hb_work);
	/* A CONNECT_REQUEST attaching a connection holds this: let it finish. */
	mutex_lock(&sess->lock);
	mutex_unlock(&sess->lock);

	rift_srv_path_not_pending(path);
	spin_lock_irq(&path->base.lock);
	for (i = 0; i < path->con_cnt; i++)
		rift_srv_con_change_state(&path->cons[i], RIFT_SRV_CON_CLOSING);
	spin_unlock_irq(&path->base.lock);
	for (i = 0; i < path->con_cnt; i++)
		if (path->cons[i].c.cm_id)
			rdma_disconnect(path->cons[i].c.cm_id);

	/* No rift_srv_resp() may post once the QPs are being destroyed. */
	percpu_ref_kill(&path->io_ref);
	wait_for_completion(&path->io_done);

	for (i = path->con_cnt - 1; i >= 0; i--)
		rift_srv_con_free(&path->cons[i]);
	/* No receive can queue an answer now, and none can post one. */
	rift_srv_credit_stop(path);
	rift_iu_free(path->ib_dev, path->info_tx);
	path->info_tx = NULL;
	rift_srv_path_unreg_chunks(path);
	/* Nothing is left on the device: its removal may go on after this. */
	for (i = path->con_cnt - 1; i >= 0; i--)
		rift_con_put_dev(&path->cons[i].c);
	rift_pd_put(&path->pd);
	for (i = path->con_cnt - 1; i >= 0; i--) {
		if (path->cons[i].c.cm_id) {
			rdma_destroy_id(path->cons[i].c.cm_id);
			path->cons[i].c.cm_id = NULL;
		}
	}
	spin_lock_irq(&path->base.lock);
	for (i = 0; i < path->con_cnt; i++)
		rift_srv_con_change_state(&path->cons[i], RIFT_SRV_CON_CLOSED);
	rift_srv_path_change_state(path, RIFT_SRV_PATH_CLOSED);
	spin_unlock_irq(&path->base.lock);
	rift_srv_path_sysfs_del(path);

	mutex_lock(&sess->lock);
	list_del_init(&path->entry);
	if (list_empty(&sess->paths)) {
		rift_srv_sess_change_state(sess, RIFT_SRV_SESS_CLOSING);
		kill = !sess->ops_killed;
		sess->ops_killed = true;
	}
	mutex_unlock(&sess->lock);
	rift_srv_peer_info("session %s: path %s closed\n", rift_srv_sess_label(sess),
			   path->base.name);
	/*
	 * The session ends once the ULP answered what it still holds.  Its
	 * name goes now, not at release: a client that closes and at once
	 * reopens a session of the same name must not be refused because
	 * this one still waits for its ULP.
	 */
	if (kill) {
		rift_srv_sess_sysfs_del(sess);
		percpu_ref_kill(&sess->ops_ref);
	}
	kobject_put(&path->base.kobj);
}

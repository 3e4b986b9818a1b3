// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: paths.  The INFO exchange, connecting a path, reconnect
 * backoff, and teardown.  The state machine and the failure reports that
 * move it are in rift-clt-state.c, each connection's rdma_cm setup and
 * teardown in rift-clt-connect.c, heartbeats and stall probes in
 * rift-clt-hb.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/inet.h>
#include <linux/utsname.h>
#include <linux/uuid.h>

#include "rift-clt.h"
/* The client's own, created in rift-clt-hb.c. */
#include "rift_clt_trace.h"

/*
 * The host's identity, like NVMe's hostnqn and hostid: servers admit, and
 * authenticate, by the name; a session belongs to the name and UUID that
 * opened it.  Fixed at load: every path of every session then carries the
 * same identity, and an administrator sets them with modprobe options.
 */
static char host_name[RIFT_NAME_MAX + 1];
module_param_string(host_name, host_name, sizeof(host_name), 0444);
MODULE_PARM_DESC(host_name,
		 "This host's name as servers admit it (default: the node name)");

static char host_uuid[UUID_STRING_LEN + 1];
module_param_string(host_uuid, host_uuid, sizeof(host_uuid), 0444);
MODULE_PARM_DESC(host_uuid,
		 "This host's UUID, xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (default: random at load)");

static uuid_t rift_clt_host_uuid;

/** rift_clt_host_name() - this host's name, fixed once the module is loaded */
static const char *rift_clt_host_name(void)
{
	return host_name;
}

/** rift_clt_host_uuid_raw() - this host's UUID as its 16 bytes */
static const u8 *rift_clt_host_uuid_raw(void)
{
	return rift_clt_host_uuid.b;
}

/**
 * rift_clt_identity_init() - check or make up the host's name and UUID
 *
 * Return: 0, or -EINVAL for a name or UUID given at load that is invalid.
 */
int rift_clt_identity_init(void)
{
	if (!host_name[0]) {
		strscpy(host_name, utsname()->nodename, sizeof(host_name));
		if (!rift_proto_name_valid(host_name, strlen(host_name)))
			strscpy(host_name, "rift-host", sizeof(host_name));
	} else if (!rift_proto_name_valid(host_name, strlen(host_name))) {
		pr_err("host_name: 1 to %u printable characters\n", RIFT_NAME_MAX);
		return -EINVAL;
	}
	if (!host_uuid[0]) {
		uuid_gen(&rift_clt_host_uuid);
		snprintf(host_uuid, sizeof(host_uuid), "%pUb", &rift_clt_host_uuid);
	} else if (uuid_parse(host_uuid, &rift_clt_host_uuid) ||
		   uuid_is_null(&rift_clt_host_uuid)) {
		pr_err("host_uuid: a non-zero UUID as xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n");
		return -EINVAL;
	}
	return 0;
}

static void rift_clt_info_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_con *c = wc->qp->qp_context;
	struct rift_clt_con *con = container_of(c, struct rift_clt_con, c);

	if (wc->status != IB_WC_SUCCESS)
		con->path->info_err = -EIO;
	complete(&con->path->info_tx_done);
}

/* What a server means by the errno it refuses a path with in INFO_RSP. */
static const char *rift_clt_info_status_str(u16 status)
{
	switch (status) {
	case ENOSPC:
		return "server's pinned-memory limit reached";
	case ENOMEM:
		return "server out of memory";
	case EACCES:
		return "host not allowed";
	case ENOKEY:
		return "server requires authentication (no secret given)";
	case EKEYREJECTED:
		return "authentication failed (wrong secret)";
	case EPERM:
		return "session belongs to another host";
	case ESTALE:
		return "a newer instance of this path is connected";
	case EEXIST:
		return "session name taken by another session";
	case EINVAL:
		return "session name differs from the session's";
	case ESHUTDOWN:
		return "session is closing";
	case EPROTONOSUPPORT:
		return "server imposes a feature this path cannot do (always-invalidate)";
	case EBADMSG:
	case EPROTO:
		return "server could not parse INFO_REQ";
	default:
		return "refused";
	}
}

/*
 * Authentication, client side: our proof goes into INFO_REQ, over the
 * nonce the server sent in connection 0's CON_RSP; the server's proof
 * comes back in INFO_RSP over ours.
 */
static void rift_clt_auth_ids(struct rift_clt_path *path, const struct rift_info *req,
			      struct rift_auth_ids *ids)
{
	struct rift_clt_con *ctl = &path->cons[RIFT_CLT_CON_CTL];

	ids->srv_nonce = ctl->rsp.auth_nonce;
	ids->clt_nonce = req->auth_nonce;
	ids->sess_uuid = path->sess->uuid;
	ids->path_uuid = path->uuid;
	ids->reconnect_gen = path->reconnect_gen;
	ids->sess_name = req->sess_name;
	ids->host_name = req->host_name;
	ids->host_uuid = req->host_uuid;
}

static int rift_clt_path_prove(struct rift_clt_path *path, struct rift_info *req)
{
	struct rift_clt_con *ctl = &path->cons[RIFT_CLT_CON_CTL];
	struct rift_clt_sess *sess = path->sess;
	struct rift_auth_ids ids;
	int err;

	get_random_bytes(req->auth_nonce, sizeof(req->auth_nonce));
	req->present |= BIT(RIFT_TLV_AUTH_NONCE);
	if (!sess->secret_len)
		return 0;
	if (!ctl->rsp.has_nonce) {
		rift_clt_path_set_error(path, "server cannot authenticate (no nonce in CON_RSP)");
		return -EPROTONOSUPPORT;
	}
	rift_clt_auth_ids(path, req, &ids);
	err = rift_auth_proof(sess->secret, sess->secret_len, RIFT_AUTH_CLIENT, &ids,
			      req->auth_proof);
	if (err) {
		rift_clt_path_set_error(path, "cannot compute the proof: %d", err);
		return err;
	}
	req->present |= BIT(RIFT_TLV_AUTH_PROOF);
	return 0;
}

static int rift_clt_path_check_server(struct rift_clt_path *path,
				      const struct rift_info *req,
				      const struct rift_info *rsp)
{
	struct rift_clt_sess *sess = path->sess;
	struct rift_auth_ids ids;
	int err;

	if (!sess->server_secret_len)
		return 0;
	if (!(rsp->present & BIT(RIFT_TLV_AUTH_PROOF))) {
		rift_clt_path_set_error(path,
					"server did not authenticate (no proof in INFO_RSP)");
		return -EKEYREJECTED;
	}
	rift_clt_auth_ids(path, req, &ids);
	err = rift_auth_check(sess->server_secret, sess->server_secret_len,
			      RIFT_AUTH_SERVER, &ids, rsp->auth_proof);
	if (err == -EKEYREJECTED)
		rift_clt_path_set_error(path, "server failed authentication (wrong secret)");
	else if (err)
		rift_clt_path_set_error(path, "cannot check the server's proof: %d", err);
	return err;
}

/* Say which rule an INFO_RSP that rift_info_rsp_check() refused broke. */
static void rift_clt_info_rsp_error(struct rift_clt_path *path, const struct rift_info *rsp,
				    u64 offered, int err)
{
	const struct rift_con_rsp *con = &path->cons[RIFT_CLT_CON_CTL].rsp;

	if (rsp->type != RIFT_INFO_RSP)
		rift_clt_path_set_error(path, "server answered INFO_REQ with INFO type %u",
					rsp->type);
	else if (rift_proto_features_check(offered, rsp->feat_accepted))
		rift_clt_path_set_error(path,
					"INFO_RSP accepts features 0x%llx, offered 0x%llx",
					rsp->feat_accepted, offered);
	else if (con->queue_depth != rsp->queue_depth || con->chunk_size != rsp->chunk_size ||
		 con->max_io_size != rsp->max_io_size || con->version != rsp->version)
		rift_clt_path_set_error(path,
					"INFO_RSP disagrees with CON_RSP: %u chunks of %u bytes, io %u, v%u vs %u of %u, io %u, v%u",
					rsp->queue_depth, rsp->chunk_size, rsp->max_io_size,
					rsp->version, con->queue_depth, con->chunk_size,
					con->max_io_size, con->version);
	else
		rift_clt_path_set_error(path, "invalid INFO_RSP from server: %pe",
					ERR_PTR(err));
}

static int rift_clt_path_info(struct rift_clt_path *path)
{
	struct rift_clt_con *ctl = &path->cons[RIFT_CLT_CON_CTL];
	struct rift_clt_sess *sess = path->sess;
	struct ib_device *ib_dev = ctl->c.cm_id->device;
	struct rift_info req = {}, rsp = {};
	struct rift_rbuf *chunks;
	unsigned long *orphans;
	struct rift_iu *tx;
	int len, err;

	tx = rift_iu_alloc(ib_dev, 1024, DMA_TO_DEVICE, rift_clt_info_tx_done);
	if (!tx)
		return -ENOMEM;
	req.type = RIFT_INFO_REQ;
	req.version = ctl->rsp.version;
	strscpy(req.sess_name, sess->name, sizeof(req.sess_name));
	strscpy(req.host_name, rift_clt_host_name(), sizeof(req.host_name));
	memcpy(req.host_uuid, rift_clt_host_uuid_raw(), sizeof(req.host_uuid));
	err = rift_clt_path_prove(path, &req);
	if (err)
		goto out_free_tx;
	/* We follow always-invalidate whenever a server imposes it. */
	req.feat_offered = RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN | RIFT_FEAT_AI_CAPABLE |
			   (READ_ONCE(sess->always_inv) ? RIFT_FEAT_ALWAYS_INVALIDATE : 0);
	/* The server watches us at the tick we ask for. */
	req.hb_interval_ms = READ_ONCE(sess->hb_interval_ms);
	len = rift_info_encode(&req, tx->buf, tx->size);
	if (len < 0) {
		err = len;
		goto out_free_tx;
	}
	err = rift_post_send(&ctl->c, tx, len, NULL, true);
	if (err)
		goto out_free_tx;
	/* @tx may be freed only once its send completed (or flushed). */
	if (!wait_for_completion_timeout(&path->info_tx_done,
					 msecs_to_jiffies(rift_clt_connect_timeout_ms))) {
		rift_clt_path_set_error(path, "INFO_REQ send timed out");
		err = -ETIMEDOUT;
		goto out_drain;
	}
	if (!wait_for_completion_timeout(&path->info_done,
					 msecs_to_jiffies(rift_clt_connect_timeout_ms))) {
		rift_clt_path_set_error(path, "no INFO_RSP within %u ms",
					rift_clt_connect_timeout_ms);
		err = -ETIMEDOUT;
		goto out_drain;
	}
	/*
	 * A server refuses a path with an INFO_RSP and then disconnects, and
	 * the disconnect may be seen before this thread runs: an answer that
	 * arrived is read anyway, so that the attempt fails for the server's
	 * reason (EACCES, EKEYREJECTED...) rather than for the disconnect.
	 * An answer that lets the path in is still refused below (CONNECTED
	 * is never reached with ->setup_failed set).
	 */
	if (READ_ONCE(path->setup_failed) && !smp_load_acquire(&path->info_len)) {
		err = -ECONNABORTED;
		goto out_drain;
	}
	if (path->info_err) {
		err = path->info_err;
		rift_clt_path_set_error(path, "INFO exchange failed: %d", err);
		goto out_drain;
	}

	chunks = kcalloc(ctl->rsp.queue_depth, sizeof(*chunks), GFP_KERNEL);
	if (!chunks) {
		err = -ENOMEM;
		goto out_drain;
	}
	ib_dma_sync_single_for_cpu(ib_dev, ctl->info_rx->dma, path->info_len,
				   DMA_FROM_DEVICE);
	err = rift_info_parse(ctl->info_rx->buf, path->info_len, ctl->rsp.version,
			      &rsp, chunks, ctl->rsp.queue_depth);
	if (!err && rsp.type == RIFT_INFO_RSP && rsp.status) {
		rift_clt_path_set_error(path, "server refused the path: %s (%pe)",
					rift_clt_info_status_str(rsp.status),
					ERR_PTR(-(int)rsp.status));
		kfree(chunks);
		/* The server's reason is the attempt's errno (the codec bounds it). */
		err = -(int)rsp.status;
		goto out_drain;
	}
	if (err) {
		rift_clt_path_set_error(path, "INFO_RSP from server does not parse: %pe",
					ERR_PTR(err));
		kfree(chunks);
		goto out_drain;
	}
	err = rift_info_rsp_check(&rsp, req.feat_offered, &ctl->rsp);
	if (err) {
		rift_clt_info_rsp_error(path, &rsp, req.feat_offered, err);
		kfree(chunks);
		goto out_drain;
	}
	err = rift_clt_path_check_server(path, &req, &rsp);
	if (err) {
		kfree(chunks);
		goto out_drain;
	}
	/* Consumed and never posted again: give the 128 KiB back. */
	rift_iu_free(ib_dev, ctl->info_rx);
	ctl->info_rx = NULL;
	/* The server's tick is its own: ours are the session's tunables. */
	pr_debug("%s/%s: %u chunks of %u bytes, hb %u ms x %u\n", sess->name,
		 path->base.name, rsp.nr_chunks, rsp.chunk_size, rsp.hb_interval_ms,
		 rsp.hb_missed_max);
	orphans = bitmap_zalloc(rsp.nr_chunks, GFP_KERNEL);
	if (!orphans || rift_clt_dbg_chunks_reset(path, rsp.nr_chunks)) {
		bitmap_free(orphans);
		kfree(chunks);
		err = -ENOMEM;
		goto out_drain;
	}
	/* Emptied when the last instance closed; a new one starts clean. */
	rift_clt_path_release_orphans(path);
	bitmap_free(path->orphans);
	path->orphans = orphans;
	path->always_inv = rsp.feat_accepted & RIFT_FEAT_ALWAYS_INVALIDATE;
	path->can_cancel = rsp.feat_accepted & RIFT_FEAT_CANCEL;
	path->cancel_gen = rsp.feat_accepted & RIFT_FEAT_CANCEL_GEN;
	kfree(path->chunks);
	path->chunks = chunks;
	path->nr_chunks = rsp.nr_chunks;
	path->chunk_size = rsp.chunk_size;
	path->max_io_size = rsp.max_io_size;
	err = 0;
	goto out_free_tx;

out_drain:
	/* The send may still be in flight: flush it before freeing @tx. */
	ib_drain_qp(ctl->c.qp);
out_free_tx:
	rift_iu_free(ib_dev, tx);
	return err;
}

/*
 * The session's limits are fixed by the first path that connects; a later
 * path to a server that grants less cannot carry the same permits.
 */
static int rift_clt_path_adopt_limits(struct rift_clt_path *path)
{
	struct rift_clt_sess *sess = path->sess;
	int err = 0;

	mutex_lock(&sess->lock);
	if (!sess->queue_depth) {
		sess->queue_depth = min(path->nr_chunks, sess->req_queue_depth);
		sess->max_io_size = path->max_io_size;
	} else if (path->nr_chunks < sess->queue_depth) {
		rift_clt_path_set_error(path,
					"server grants %u chunks, session uses %u",
					path->nr_chunks, sess->queue_depth);
		err = -EINVAL;
	} else if (path->max_io_size < sess->max_io_size) {
		/* ULPs sized their requests by rift_clt_query() already. */
		rift_clt_path_set_error(path,
					"server allows %u-byte IO, session uses %u",
					path->max_io_size, sess->max_io_size);
		err = -EINVAL;
	}
	mutex_unlock(&sess->lock);
	return err;
}

/*
 * Establish every connection of a path and run the INFO exchange.  Called
 * with ->conn_mutex held, from the connect work only.
 *
 * Return: 0 when the path is CONNECTED, else a negative errno with the
 * path in ERROR and the reason in last_error.
 */
static int rift_clt_path_connect_sync(struct rift_clt_path *path)
{
	struct ib_device *ib_dev;
	unsigned long flags;
	bool reconnect, ok;
	int i, err;

	lockdep_assert_held(&path->conn_mutex);
	reconnect = rift_clt_path_get_state(path) == RIFT_CLT_PATH_ERROR ||
		    rift_clt_path_get_state(path) == RIFT_CLT_PATH_GAVE_UP;
	if (!rift_clt_path_set_state(path, reconnect ? RIFT_CLT_PATH_RECONNECTING :
				     RIFT_CLT_PATH_CONNECTING))
		return -EINVAL;
	/* Connections a failed attempt or a failure left behind. */
	rift_clt_path_close_cons(path);
	path->reconnect_gen++;
	WRITE_ONCE(path->setup_failed, false);
	init_completion(&path->info_done);
	init_completion(&path->info_tx_done);
	path->info_err = 0;
	path->info_len = 0;
	/*
	 * The server may start sending heartbeats as soon as it answered
	 * INFO: count them from here, not from what an earlier attempt saw.
	 */
	atomic_set(&path->hb_rx, 0);
	WRITE_ONCE(path->hb_rx_start, jiffies);

	for (i = 0; i < path->nr_cons; i++) {
		err = rift_clt_con_connect(&path->cons[i]);
		if (err)
			goto err_close;
	}
	err = rift_clt_path_info(path);
	if (err)
		goto err_close;
	err = rift_clt_path_adopt_limits(path);
	if (err)
		goto err_close;
	err = rift_clt_bounce_setup(path);
	if (err)
		goto err_close;
	/*
	 * A device whose removal began after our connections took their
	 * references may have been missed by the removal notifier (it saw
	 * the connections not yet set up): ask once more, before CONNECTED.
	 */
	for (i = 0; i < path->nr_cons; i++) {
		if (!rift_dev_alive(path->cons[i].c.dev)) {
			rift_clt_path_set_error(path, "RDMA device %s removed",
						dev_name(&path->cons[i].c.dev->ib_dev->dev));
			err = -ENODEV;
			goto err_close;
		}
	}

	ib_dev = path->cons[0].c.cm_id->device;
	strscpy(path->base.hca_name, dev_name(&ib_dev->dev), sizeof(path->base.hca_name));
	path->base.hca_port = path->cons[0].c.cm_id->port_num;
	rift_hb_start(&path->hb);
	for (i = 0; i < path->nr_cons; i++) {
		path->cons[i].stalled = false;
		path->cons[i].probe_out = false;
		atomic_set(&path->cons[i].rx_seen, 0);
	}
	/*
	 * A connection that failed after it was established (the failure was
	 * noted in ->setup_failed) must not let the path go CONNECTED.
	 */
	spin_lock_irqsave(&path->base.lock, flags);
	ok = !path->setup_failed &&
	     rift_clt_path_change_state(path, RIFT_CLT_PATH_CONNECTED);
	if (ok)
		path->base.last_error[0] = '\0';
	spin_unlock_irqrestore(&path->base.lock, flags);
	if (!ok) {
		err = -ECONNABORTED;
		goto err_close;
	}
	if (reconnect)
		path->reconnects++;
	path->reconnect_attempts = 0;
	WRITE_ONCE(path->hb_last, jiffies);
	WRITE_ONCE(path->hb.due, path->hb_last);
	queue_delayed_work(path->sess->wq, &path->hb_work,
			   rift_hb_next(&path->hb.due,
					READ_ONCE(path->sess->hb_interval_ms)));
	path->stall_last = jiffies;
	queue_delayed_work(path->sess->wq, &path->stall_work,
			   rift_clt_stall_tick(READ_ONCE(path->sess->stall_timeout_ms)));
	/* Requests waiting for a path may go now. */
	rift_clt_sess_kick_failover(path->sess);
	return 0;

err_close:
	rift_clt_path_close_cons(path);
	rift_clt_path_set_state(path, RIFT_CLT_PATH_ERROR);
	return err;
}

/*
 * Exponential backoff from reconnect_delay_ms up to reconnect_delay_max_ms,
 * in milliseconds, each delay drawn uniformly from [d/2, d] so that the
 * paths of many clients that lost the same server do not come back in
 * lockstep.  After max_reconnect_attempts failed attempts the path gives
 * up and waits for the user's reconnect.
 */
static void rift_clt_path_schedule_reconnect(struct rift_clt_path *path)
{
	struct rift_clt_sess *sess = path->sess;
	int max = READ_ONCE(sess->max_reconnect_attempts);
	u32 base = READ_ONCE(sess->reconnect_delay_ms);
	u32 cap = max_t(u32, READ_ONCE(sess->reconnect_delay_max_ms), base);
	u32 n = path->reconnect_attempts;
	u64 d;

	lockdep_assert_held(&path->conn_mutex);
	if (READ_ONCE(path->removed) || READ_ONCE(sess->closing) ||
	    rift_clt_path_get_state(path) != RIFT_CLT_PATH_ERROR)
		return;
	if (max >= 0 && n >= max) {
		if (rift_clt_path_set_state(path, RIFT_CLT_PATH_GAVE_UP))
			rift_clt_path_set_error(path, "gave up after %u reconnect attempts",
						n);
		return;
	}
	path->reconnect_attempts = n + 1;
	d = min_t(u64, (u64)base << min_t(u32, n, 20), cap);
	d = d / 2 + get_random_u32_below(d - d / 2 + 1);
	trace_rift_clt_path_backoff(sess->name, path->base.name, n + 1, d);
	queue_delayed_work(sess->connect_wq, &path->connect_work, msecs_to_jiffies(d));
}

static void rift_clt_path_connect_work(struct work_struct *work)
{
	struct rift_clt_path *path = container_of(to_delayed_work(work),
						  struct rift_clt_path,
						  connect_work);
	struct rift_clt_sess *sess = path->sess;
	enum rift_clt_path_state state;
	bool was_down, up;
	int err;

	mutex_lock(&path->conn_mutex);
	state = rift_clt_path_get_state(path);
	if (READ_ONCE(path->removed) || READ_ONCE(sess->closing) ||
	    (state != RIFT_CLT_PATH_IDLE && state != RIFT_CLT_PATH_ERROR &&
	     state != RIFT_CLT_PATH_GAVE_UP)) {
		mutex_unlock(&path->conn_mutex);
		return;
	}
	was_down = atomic_read(&sess->connected) == 0;
	err = rift_clt_path_connect_sync(path);
	WRITE_ONCE(path->last_errno, err);
	up = !err;
	/* Under the mutex: path destroy cancels this work after taking it. */
	if (!up)
		rift_clt_path_schedule_reconnect(path);
	mutex_unlock(&path->conn_mutex);
	if (up && was_down && sess->ops.link_ev)
		sess->ops.link_ev(sess->ops.priv, RIFT_CLT_LINK_EV_RECONNECTED);
}

/**
 * rift_clt_path_connect_now() - run a connect attempt and wait for it
 * @path: path in IDLE or ERROR state; the caller holds a reference
 *
 * Return: 0 if the path is connected afterwards, -ENOTCONN otherwise (the
 * reason is in last_error and a retry is scheduled).
 */
int rift_clt_path_connect_now(struct rift_clt_path *path)
{
	mod_delayed_work(path->sess->connect_wq, &path->connect_work, 0);
	flush_delayed_work(&path->connect_work);
	return rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED ?
		0 : -ENOTCONN;
}

static void rift_clt_path_close_work(struct work_struct *work)
{
	struct rift_clt_path *path = container_of(work, struct rift_clt_path,
						  close_work);
	struct rift_clt_sess *sess = path->sess;

	cancel_delayed_work_sync(&path->hb_work);
	cancel_delayed_work_sync(&path->stall_work);
	/* Submitters that saw the path connected have finished posting. */
	synchronize_rcu();
	mutex_lock(&path->conn_mutex);
	/* A connect attempt may have taken over (and closed them) already. */
	if (rift_clt_path_get_state(path) == RIFT_CLT_PATH_ERROR)
		rift_clt_path_close_cons(path);
	mutex_unlock(&path->conn_mutex);
	if (atomic_read(&sess->connected) == 0 && sess->ops.link_ev &&
	    !READ_ONCE(sess->closing))
		sess->ops.link_ev(sess->ops.priv, RIFT_CLT_LINK_EV_DISCONNECTED);
	mutex_lock(&path->conn_mutex);
	rift_clt_path_schedule_reconnect(path);
	mutex_unlock(&path->conn_mutex);
}

/**
 * rift_clt_path_reconnect() - user asked to reconnect a path now
 * @path: path
 */
void rift_clt_path_reconnect(struct rift_clt_path *path)
{
	if (rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED)
		rift_clt_path_fail(path, "reconnect requested by user");
	/* The close work requeues the connect; only make it immediate. */
	flush_work(&path->close_work);
	mutex_lock(&path->conn_mutex);
	path->reconnect_attempts = 0;
	if (!READ_ONCE(path->removed))
		mod_delayed_work(path->sess->connect_wq, &path->connect_work, 0);
	mutex_unlock(&path->conn_mutex);
}

static void rift_clt_path_release(struct kobject *kobj)
{
	struct rift_clt_path *path = container_of(kobj, struct rift_clt_path, base.kobj);
	struct rift_clt_sess *sess = path->sess;

	free_percpu(path->stats);
	kfree(path->chunks);
	rift_clt_dbg_path_free(path);
	bitmap_free(path->orphans);
	kfree(path->cons);
	kfree(path);
	put_device(&sess->dev);
}

static const struct kobj_type rift_clt_path_ktype = {
	.sysfs_ops = &kobj_sysfs_ops,
	.release = rift_clt_path_release,
};

/**
 * rift_clt_path_create() - allocate a path (not connected, not in sysfs)
 * @sess: session
 * @src: source address, or family AF_UNSPEC
 * @dst: destination address with port
 *
 * Return: the path or an ERR_PTR.
 */
struct rift_clt_path *rift_clt_path_create(struct rift_clt_sess *sess,
					   const struct sockaddr_storage *src,
					   const struct sockaddr_storage *dst)
{
	struct rift_clt_path *path;
	int i;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return ERR_PTR(-ENOMEM);
	kobject_init(&path->base.kobj, &rift_clt_path_ktype);
	/* The path's sysfs files may outlive the session's close. */
	get_device(&sess->dev);
	path->sess = sess;
	INIT_LIST_HEAD(&path->entry);
	path->base.src = *src;
	path->base.dst = *dst;
	spin_lock_init(&path->base.lock);
	ratelimit_state_init(&path->err_rs, 5 * HZ, 5);
	path->state = RIFT_CLT_PATH_IDLE;
	path->base.state_str = rift_clt_path_base_state_str;
	get_random_bytes(path->uuid, sizeof(path->uuid));
	path->uuid[0] |= 1;	/* never all-zero */
	INIT_DELAYED_WORK(&path->connect_work, rift_clt_path_connect_work);
	INIT_WORK(&path->close_work, rift_clt_path_close_work);
	INIT_DELAYED_WORK(&path->hb_work, rift_clt_path_hb_work);
	INIT_DELAYED_WORK(&path->stall_work, rift_clt_path_stall_work);
	mutex_init(&path->conn_mutex);
	atomic_set(&path->hb.rx_seen, 0);
	atomic_set(&path->base.inflight, 0);
	if (src->ss_family != AF_UNSPEC)
		snprintf(path->base.name, sizeof(path->base.name), "%pISc@%pISpc", src, dst);
	else
		snprintf(path->base.name, sizeof(path->base.name), "%pISpc", dst);

	path->nr_poll_cons = sess->nr_poll_cons;
	path->nr_cons = sess->nr_cons + sess->nr_poll_cons;
	path->cons = kcalloc(path->nr_cons, sizeof(*path->cons), GFP_KERNEL);
	path->stats = alloc_percpu(struct rift_clt_stats);
	path->base.stats = path->stats;
	if (!path->cons || !path->stats) {
		kobject_put(&path->base.kobj);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < path->nr_cons; i++) {
		path->cons[i].path = path;
		path->cons[i].idx = i;
		init_completion(&path->cons[i].done);
		spin_lock_init(&path->cons[i].poll_lock);
		spin_lock_init(&path->cons[i].batch_lock);
		mutex_init(&path->cons[i].cm_lock);
		path->cons[i].c.direct_cq = i >= path->nr_cons - path->nr_poll_cons;
	}
	return path;
}

/**
 * rift_clt_path_stop() - first step of a path's removal
 * @path: path, already unlinked from its session's list (and RCU-synced)
 *
 * From here on failures and user writes stop acting on it: the caller
 * removes its sysfs directory next (no writer can queue work after that)
 * and then calls rift_clt_path_destroy().
 */
void rift_clt_path_stop(struct rift_clt_path *path)
{
	unsigned long flags;

	spin_lock_irqsave(&path->base.lock, flags);
	WRITE_ONCE(path->removed, true);
	rift_clt_path_change_state(path, RIFT_CLT_PATH_CLOSING);
	spin_unlock_irqrestore(&path->base.lock, flags);
}

/**
 * rift_clt_path_destroy() - tear down and free a stopped path
 * @path: path after rift_clt_path_stop() and the removal of its sysfs
 *
 * Only after those two steps, which stop failures, user writes and
 * reconnects from queueing work; then safe on a path in any state.  The
 * work items go first, then the connections under ->conn_mutex.
 */
void rift_clt_path_destroy(struct rift_clt_path *path)
{
	cancel_delayed_work_sync(&path->connect_work);
	cancel_work_sync(&path->close_work);
	cancel_delayed_work_sync(&path->hb_work);
	cancel_delayed_work_sync(&path->stall_work);
	mutex_lock(&path->conn_mutex);
	rift_clt_path_close_cons(path);
	mutex_unlock(&path->conn_mutex);
	rift_clt_path_set_state(path, RIFT_CLT_PATH_CLOSED);
	kobject_put(&path->base.kobj);
}

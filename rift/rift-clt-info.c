// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: the INFO exchange.  Once every connection of a path is
 * established, INFO_REQ goes out on connection 0 with this host's
 * identity (host_name, host_uuid), the features we offer and our proof
 * of the session secret; INFO_RSP brings the server's chunk table, the
 * features it accepted and its own proof, each checked before the path
 * may connect.  The session's limits are fixed by the first path that
 * gets through here.  Called by the path's lifecycle (rift-clt-path.c)
 * and, for the identity, at module load.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/utsname.h>
#include <linux/uuid.h>

#include "rift-clt.h"

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

/*
 * Whether every connection of @path, poll connections included, sends
 * @len bytes inline: a write's SEND WITH_INV payload (REMOTE_INV) lives in
 * its request slot, which is not DMA-mapped.  Called once all are
 * connected, before INFO_REQ.
 */
static bool rift_clt_path_inline_ok(struct rift_clt_path *path, u32 len)
{
	u16 i;

	for (i = 0; i < path->nr_cons; i++)
		if (path->cons[i].c.max_inline < len)
			return false;
	return true;
}

int rift_clt_path_info(struct rift_clt_path *path)
{
	struct rift_clt_con *ctl = &path->cons[RIFT_CLT_CON_CTL];
	struct rift_clt_sess *sess = path->sess;
	struct ib_device *ib_dev = ctl->c.cm_id->device;
	struct rift_info req = {}, rsp = {};
	struct rift_rbuf *chunks;
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
			   RIFT_FEAT_CREDITS | RIFT_FEAT_RSP_GEN |
			   (READ_ONCE(sess->always_inv) ? RIFT_FEAT_ALWAYS_INVALIDATE : 0) |
			   (rift_clt_path_inline_ok(path, sizeof(struct rift_wire_write_inv)) ?
			    RIFT_FEAT_REMOTE_INV : 0);
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
	/*
	 * With memory credits the table is the initial grant; chunk ids are
	 * 0..queue_depth-1 either way, and the later grants land in @chunks.
	 */
	if (rift_clt_dbg_chunks_reset(path, rsp.queue_depth)) {
		kfree(chunks);
		err = -ENOMEM;
		goto out_drain;
	}
	/* Emptied when the last instance closed; a new one starts clean. */
	rift_clt_path_release_orphans(path);
	err = rift_clt_chunks_reset(path, rsp.queue_depth);
	if (err) {
		/* The codec bounds the table by what we asked for. */
		rift_clt_path_set_error(path, "INFO_RSP announces %u chunks, more than asked",
					rsp.queue_depth);
		kfree(chunks);
		goto out_drain;
	}
	/*
	 * Read without a lock: by the CQs, where a hostile server's early
	 * response lands, by sysfs, and by submitters and the heartbeat
	 * tick's timeouts, which a late CQ or a sysfs read can overlap.
	 */
	WRITE_ONCE(path->always_inv, rsp.feat_accepted & RIFT_FEAT_ALWAYS_INVALIDATE);
	WRITE_ONCE(path->remote_inv, rsp.feat_accepted & RIFT_FEAT_REMOTE_INV);
	WRITE_ONCE(path->can_cancel, rsp.feat_accepted & RIFT_FEAT_CANCEL);
	WRITE_ONCE(path->cancel_gen, rsp.feat_accepted & RIFT_FEAT_CANCEL_GEN);
	WRITE_ONCE(path->rsp_gen, rsp.feat_accepted & RIFT_FEAT_RSP_GEN);
	WRITE_ONCE(path->credits, rsp.feat_accepted & RIFT_FEAT_CREDITS);
	kfree(path->chunks);
	path->chunks = chunks;
	/* The id space; the grant starts as the table (see above). */
	path->nr_chunks = rsp.queue_depth;
	path->cr_initial = rsp.nr_chunks;
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
int rift_clt_path_adopt_limits(struct rift_clt_path *path)
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
	if (!err)
		rift_clt_chunks_set_usable(path, sess->queue_depth);
	mutex_unlock(&sess->lock);
	return err;
}

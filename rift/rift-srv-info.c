// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: the INFO exchange that completes a path.  Once every
 * connection is established and INFO_REQ arrived on connection 0, the
 * name is checked (and given to the session if it is the first path),
 * the path's chunks are allocated and registered for its device, the ULP
 * hears of a new session, and INFO_RSP goes out behind the REG_MR work
 * requests.  The receive path (rift-srv-io.c) records INFO_REQ and queues
 * this work; this file calls the IO path only to set up a path's ops.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/utsname.h>
#include <linux/mm.h>

#include "rift-srv.h"

void rift_srv_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		rift_srv_path_fail(rift_srv_wc_con(wc)->path,
				   "chunk key update failed: %s",
				   ib_wc_status_msg(wc->status));
}

/*
 * Undo rift_srv_path_reg_chunks(), however far it got; QPs already
 * drained.  A path with credits has no chunk counted here (nr_mrs is 0):
 * rift_srv_pool_stop() unregistered its chunks, only the tables go.
 */
void rift_srv_path_unreg_chunks(struct rift_srv_path *path)
{
	u32 i;

	/* Chunk by chunk: an MR's page list names its own chunk's pages only. */
	for (i = 0; i < path->nr_mrs; i++)
		rift_srv_chunk_unreg(path, i);
	path->nr_mrs = 0;
	kfree(path->mrs);
	path->mrs = NULL;
	kfree(path->sgs);
	path->sgs = NULL;
}

static void rift_srv_info_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_srv_path *path = rift_srv_wc_con(wc)->path;

	if (wc->status != IB_WC_SUCCESS)
		rift_srv_path_fail(path, "INFO_RSP send failed: %s",
				   ib_wc_status_msg(wc->status));
	else if (READ_ONCE(path->refused))
		rift_srv_path_fail(path, "refusal sent");
}

/*
 * Tell the client why with an INFO_RSP carrying @status (a positive errno)
 * and close the path once it is sent.
 */
static __printf(3, 4)
void rift_srv_path_refuse(struct rift_srv_path *path, int status, const char *fmt, ...)
{
	struct rift_info rsp = {
		.type		= RIFT_INFO_RSP,
		.version	= path->version,
		.status		= clamp(status, 1, (int)RIFT_IMM_ERRNO_MAX),
	};
	struct va_format vaf;
	struct rift_iu *tx;
	va_list ap;
	int len;

	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	rift_srv_refuse_info("session %s, path %s: refusing: %pV\n",
			     rift_srv_sess_label(path->sess), path->base.name, &vaf);
	va_end(ap);

	if (path->info_tx)
		goto fail;
	tx = rift_iu_alloc(path->ib_dev, sizeof(struct rift_wire_info_hdr),
			   DMA_TO_DEVICE, rift_srv_info_tx_done);
	if (!tx)
		goto fail;
	path->info_tx = tx;
	len = rift_info_encode(&rsp, tx->buf, tx->size);
	WRITE_ONCE(path->refused, true);
	if (len < 0 || rift_post_send(&path->cons[0].c, tx, len, NULL, true))
		goto fail;
	return;
fail:
	rift_srv_path_fail(path, "cannot send the refusal");
}

/* Caller holds sess->lock; the ordered workqueue makes the name check final. */
static int rift_srv_sess_set_name(struct rift_srv_sess *sess,
				  const struct rift_info *req)
{
	const char *name = req->sess_name;
	struct device *other;
	int err;

	lockdep_assert_held(&sess->lock);
	if (sess->named)
		return strcmp(sess->name, name) ? -EINVAL : 0;
	other = class_find_device_by_name(&rift_srv_class, name);
	if (other) {
		put_device(other);
		return -EEXIST;
	}
	strscpy(sess->name, name, sizeof(sess->name));
	strscpy(sess->host_name, req->host_name, sizeof(sess->host_name));
	memcpy(sess->host_uuid, req->host_uuid, sizeof(sess->host_uuid));
	err = rift_srv_sess_sysfs_add(sess);
	if (err) {
		memset(sess->name, 0, sizeof(sess->name));
		memset(sess->host_name, 0, sizeof(sess->host_name));
		return err;
	}
	/* Publish the name only after its bytes: readers take no lock. */
	smp_store_release(&sess->named, true);
	/* Log lines switch from the UUID to the name the same way. */
	smp_store_release(&sess->label, (const char *)sess->name);
	return 0;
}

/* Upper bound of an INFO_RSP with @qd chunks: what rift_info_encode() emits. */
static size_t rift_srv_info_rsp_size(u32 qd)
{
	size_t tlv = ALIGN(sizeof(struct rift_wire_tlv) + RIFT_NAME_MAX,
			   RIFT_INFO_ALIGN);
	size_t runs = DIV_ROUND_UP(qd, RIFT_INFO_CHUNKS_PER_TLV);
	size_t size;

	/* Host name, six scalars and a proof, each no larger than a name TLV. */
	size = sizeof(struct rift_wire_info_hdr) + 8 * tlv +
	       runs * ALIGN(sizeof(struct rift_wire_tlv) +
			    sizeof(struct rift_wire_chunk_tlv), RIFT_INFO_ALIGN) +
	       (size_t)qd * sizeof(struct rift_wire_rbuf);
	return min_t(size_t, size, RIFT_INFO_MAX_LEN);
}

/**
 * rift_srv_path_alloc_chunks() - allocate the chunks of an admitted path
 * @path: path whose INFO_REQ was accepted; runs on rift_srv_wq
 *
 * One physically contiguous buffer per chunk makes it a single sg entry
 * and a single MR; the _exact variant returns the tail of the power-of-two
 * allocation, so a chunk pins exactly chunk_size bytes.  Zeroed so that a
 * read the ULP does not fill cannot leak memory, the previous instance's
 * data included.  Counted against max_pinned_mb first: the memory every
 * client together can make the server pin is bounded.
 *
 * Return: 0, -ENOSPC over the limit, or -ENOMEM.
 */
int rift_srv_path_alloc_chunks(struct rift_srv_path *path)
{
	struct rift_srv_sess *sess = path->sess;
	u64 bytes = (u64)path->queue_depth * sess->chunk_size;
	u32 i;

	if (!rift_srv_pinned_reserve(bytes))
		return -ENOSPC;
	path->pinned_reserved = bytes;
	path->chunks = kcalloc(path->queue_depth, sizeof(*path->chunks),
			       GFP_KERNEL);
	if (!path->chunks)
		return -ENOMEM;
	for (i = 0; i < path->queue_depth; i++) {
		path->chunks[i] = alloc_pages_exact(sess->chunk_size,
						    GFP_KERNEL | __GFP_ZERO |
						    __GFP_NOWARN);
		if (!path->chunks[i])
			return -ENOMEM;
		path->nr_chunks++;
		atomic64_add(sess->chunk_size, &sess->pinned);
	}
	return rift_srv_path_init_ops(path, false);
}

/*
 * Map every chunk of the path for its device and give it an MR; the
 * REG_MR WRs are returned in @wrs, to go out in front of INFO_RSP, and the
 * resulting table in @table.  The chunks are this path instance's own, so
 * the table's entries are valid on no other path.  A chunk whose
 * registration fails is undone by rift_srv_chunk_reg() itself, at once
 * rather than by the close work: no REG_MR of this path has been posted
 * yet, so its MR may go any time.  Those before it stay, counted in
 * nr_mrs, for the close work: the refusal that follows closes the path.
 */
static int rift_srv_path_reg_chunks(struct rift_srv_path *path,
				    struct ib_reg_wr *wrs, struct rift_rbuf *table)
{
	struct rift_srv_sess *sess = path->sess;
	u16 qd = path->queue_depth, i;
	int err;

	path->sgs = kcalloc(qd, sizeof(*path->sgs), GFP_KERNEL);
	path->mrs = kcalloc(qd, sizeof(*path->mrs), GFP_KERNEL);
	if (!path->sgs || !path->mrs)
		return -ENOMEM;
	for (i = 0; i < qd; i++) {
		err = rift_srv_chunk_reg(path, i, path->chunks[i], &wrs[i]);
		if (err)
			return err;
		path->nr_mrs++;
		wrs[i].wr.next = i + 1 < qd ? &wrs[i + 1].wr : NULL;
		table[i].addr = path->mrs[i]->iova;
		table[i].len = sess->chunk_size;
		table[i].rkey = path->mrs[i]->rkey;
	}
	return 0;
}

static int rift_srv_path_send_info_rsp(struct rift_srv_path *path,
				       const struct rift_info *req, const u8 *proof,
				       struct ib_reg_wr *wrs, struct rift_rbuf *table,
				       u16 nr_table)
{
	struct rift_srv_sess *sess = path->sess;
	struct rift_info rsp = {
		.type		= RIFT_INFO_RSP,
		.version	= path->version,
		.feat_accepted	= (path->always_inv ? RIFT_FEAT_ALWAYS_INVALIDATE : 0) |
				  (path->remote_inv ? RIFT_FEAT_REMOTE_INV : 0) |
				  (path->can_cancel ? RIFT_FEAT_CANCEL : 0) |
				  (path->cancel_gen ? RIFT_FEAT_CANCEL_GEN : 0) |
				  (path->credits ? RIFT_FEAT_CREDITS : 0) |
				  (path->rsp_gen ? RIFT_FEAT_RSP_GEN : 0),
		.hb_interval_ms	= path->hb.interval_ms,
		.hb_missed_max	= path->hb.missed_max,
		.max_io_size	= sess->max_io_size,
		.queue_depth	= path->queue_depth,
		.chunk_size	= sess->chunk_size,
		/* The initial grant: the whole queue depth without credits. */
		.nr_chunks	= nr_table,
		.chunks		= table,
		.chunks_cap	= nr_table,
	};
	struct rift_iu *tx;
	bool ok;
	int len;

	strscpy(rsp.host_name, utsname()->nodename, sizeof(rsp.host_name));
	if (!rift_proto_name_valid(rsp.host_name, strlen(rsp.host_name)))
		rsp.host_name[0] = '\0';
	if (proof) {
		memcpy(rsp.auth_proof, proof, sizeof(rsp.auth_proof));
		rsp.present |= BIT(RIFT_TLV_AUTH_PROOF);
	}
	tx = rift_iu_alloc(path->ib_dev, rift_srv_info_rsp_size(path->queue_depth),
			   DMA_TO_DEVICE, rift_srv_info_tx_done);
	if (!tx)
		return -ENOMEM;
	path->info_tx = tx;
	len = rift_info_encode(&rsp, tx->buf, tx->size);
	if (len < 0)
		return len;

	/* Before INFO_RSP leaves, so the first request finds the path up. */
	spin_lock_irq(&path->base.lock);
	ok = rift_srv_path_change_state(path, RIFT_SRV_PATH_CONNECTED);
	spin_unlock_irq(&path->base.lock);
	if (!ok)
		return -ECONNRESET;
	if (cancel_delayed_work(&path->setup_work))
		kobject_put(&path->base.kobj);
	rift_srv_path_not_pending(path);
	rift_srv_path_hb_start(path);
	return rift_post_send(&path->cons[0].c, tx, len, &wrs[0].wr, true);
}

/*
 * Admission, step one, before anything is allocated: the host must be
 * listed (or allow_any_host set) and, if its entry has a secret, prove it
 * over this instance's nonce.  Fills @proof with the server's own proof
 * when the host has a secret and the client sent a nonce.
 *
 * Return: 0 if the host may go on, else the positive errno the path was
 * refused with.
 */
static int rift_srv_path_authenticate(struct rift_srv_path *path,
				      const struct rift_info *req, u8 *proof,
				      bool *proved)
{
	struct rift_srv_sess *sess = path->sess;
	const char *host = req->host_name[0] ? req->host_name : "(unnamed)";
	struct rift_auth_ids ids = {
		.srv_nonce	= path->auth_nonce,
		.clt_nonce	= req->auth_nonce,
		.sess_uuid	= sess->uuid,
		.path_uuid	= path->uuid,
		.reconnect_gen	= path->reconnect_gen,
		.sess_name	= req->sess_name,
		.host_name	= req->host_name,
		.host_uuid	= req->host_uuid,
	};
	struct rift_srv_auth *auth;
	int err;

	*proved = false;
	auth = kzalloc(sizeof(*auth), GFP_KERNEL);
	if (!auth) {
		rift_srv_path_refuse(path, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	err = rift_srv_host_admit(req->host_name, auth);
	if (err) {
		rift_srv_path_refuse(path, EACCES, "host %s is not allowed", host);
		err = -EACCES;
		goto out;
	}
	if (!auth->keylen)
		goto out;
	if (!(req->present & BIT(RIFT_TLV_AUTH_PROOF))) {
		rift_srv_path_refuse(path, ENOKEY,
				     "host %s must authenticate and sent no proof", host);
		err = -ENOKEY;
		goto out;
	}
	err = -EKEYREJECTED;
	if (req->present & BIT(RIFT_TLV_AUTH_NONCE))
		err = rift_auth_check(auth->key, auth->keylen, RIFT_AUTH_CLIENT, &ids,
				      req->auth_proof);
	if (err) {
		rift_srv_path_refuse(path, -err, "host %s failed authentication%s",
				     host, err == -EKEYREJECTED ? "" : " (cannot compute)");
		goto out;
	}
	/* The client's nonce is what makes our proof fresh for it. */
	err = rift_auth_proof(auth->skey, auth->skeylen, RIFT_AUTH_SERVER, &ids, proof);
	if (err) {
		rift_srv_path_refuse(path, -err, "cannot compute the server's proof: %d", err);
		goto out;
	}
	*proved = true;
out:
	kfree_sensitive(auth);
	return err;
}

/*
 * Admission, step two, under the session's lock: a session belongs to the
 * host that created it, and an admitted instance replaces the older ones
 * of its path (only now: an instance that is not admitted must not be able
 * to close the path it names).
 *
 * Return: 0, or the negative errno the path was refused with.
 */
static int rift_srv_path_bind(struct rift_srv_path *path, const struct rift_info *req,
			      bool proved)
{
	struct rift_srv_sess *sess = path->sess;
	struct rift_srv_path *p;

	lockdep_assert_held(&sess->lock);
	if (sess->named && (strcmp(sess->host_name, req->host_name) ||
			    memcmp(sess->host_uuid, req->host_uuid, RIFT_UUID_LEN))) {
		rift_srv_path_refuse(path, EPERM,
				     "session belongs to host %s, not to %s",
				     sess->host_name[0] ? sess->host_name : "(unnamed)",
				     req->host_name[0] ? req->host_name : "(unnamed)");
		return -EPERM;
	}
	if (sess->named && sess->authenticated && !proved) {
		rift_srv_path_refuse(path, ENOKEY,
				     "session was authenticated and this path is not");
		return -ENOKEY;
	}
	list_for_each_entry(p, &sess->paths, entry) {
		if (p != path && p->admitted && !memcmp(p->uuid, path->uuid, RIFT_UUID_LEN) &&
		    p->reconnect_gen > path->reconnect_gen) {
			rift_srv_path_refuse(path, ESTALE,
					     "generation %u is older than the admitted %u",
					     path->reconnect_gen, p->reconnect_gen);
			return -ESTALE;
		}
	}
	path->admitted = true;
	if (proved)
		sess->authenticated = true;
	list_for_each_entry(p, &sess->paths, entry) {
		if (p == path || memcmp(p->uuid, path->uuid, RIFT_UUID_LEN) ||
		    p->reconnect_gen > path->reconnect_gen)
			continue;
		/*
		 * Its close work waits behind us on the ordered queue: take
		 * its name out of sysfs now, or ours would clash with it.
		 */
		rift_srv_path_sysfs_del(p);
		rift_srv_path_fail(p, "replaced by reconnect generation %u",
				   path->reconnect_gen);
	}
	return 0;
}

static int rift_srv_path_info_connect(struct rift_srv_path *path,
				      const struct rift_info *req)
{
	u8 proof[RIFT_AUTH_PROOF_LEN];
	bool proved;
	struct rift_srv_sess *sess = path->sess;
	struct rift_srv_ctx *ctx = sess->ctx;
	struct rift_rbuf *table;
	struct ib_reg_wr *wrs;
	u64 supported = RIFT_FEAT_CREDITS | RIFT_FEAT_RSP_GEN, imposed = 0, feat;
	int nr_table;
	bool first, credits, ai_ok;
	u32 floor;
	int err;

	/*
	 * The client's tick, when it names one (the codec checked the
	 * range): both ends then declare the path dead after the same time.
	 */
	if (req->hb_interval_ms)
		path->hb.interval_ms = req->hb_interval_ms;

	if (rift_srv_path_authenticate(path, req, proof, &proved))
		return 0;
	mutex_lock(&sess->lock);
	if (sess->state >= RIFT_SRV_SESS_CLOSING) {
		mutex_unlock(&sess->lock);
		rift_srv_path_refuse(path, ESHUTDOWN, "session is closing");
		return 0;
	}
	err = rift_srv_sess_set_name(sess, req);
	if (err == -EEXIST || err == -EINVAL) {
		mutex_unlock(&sess->lock);
		rift_srv_path_refuse(path, -err, "session name '%s' %s",
				     req->sess_name, err == -EEXIST ?
				     "is taken by another session" :
				     "differs from the session's");
		return 0;
	}
	if (err) {
		mutex_unlock(&sess->lock);
		/* A device that failed to register cannot be added again. */
		rift_srv_sess_close(sess, path, "cannot register the session");
		rift_srv_path_refuse(path, -err, "cannot register session %s: %d",
				     req->sess_name, err);
		return 0;
	}
	if (rift_srv_path_bind(path, req, proved)) {
		mutex_unlock(&sess->lock);
		return 0;
	}
	err = rift_srv_path_sysfs_add(path);
	if (err) {
		mutex_unlock(&sess->lock);
		rift_srv_path_refuse(path, -err, "%s", err == -EEXIST ?
				     "another path has the same addresses" :
				     "cannot add the path to sysfs");
		return 0;
	}
	/* Only control work changes ulp_up, and it runs one item at a time. */
	first = !sess->ulp_up;
	mutex_unlock(&sess->lock);

	/*
	 * Fixed before the first request, so the IO path reads it lock-free.
	 * The new key travels inline in the response: a device that cannot
	 * send 16 bytes inline does without the feature, and cannot serve a
	 * server that imposes it.  Remote invalidation qualifies
	 * always-invalidate, whether the client asked for that or the server
	 * imposes it (rift_proto_features_decide()): it takes a local
	 * invalidate and its completion off every write, for one 8-byte
	 * inline SEND more from the client, which on Soft-RoCE costs more
	 * than it saves; hence the parameter, off by default.
	 */
	ai_ok = path->cons[0].c.max_inline >= sizeof(struct rift_wire_rkey_msg);
	if (rift_srv_param_always_invalidate() && ai_ok)
		supported |= RIFT_FEAT_ALWAYS_INVALIDATE;
	if (rift_srv_param_remote_invalidate())
		supported |= RIFT_FEAT_REMOTE_INV;
	if (rift_srv_param_cancel())
		supported |= RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN;
	if (rift_srv_param_force_always_invalidate())
		imposed = RIFT_FEAT_ALWAYS_INVALIDATE;
	err = imposed && !ai_ok ? -EPROTONOSUPPORT :
	      rift_proto_features_decide(req->feat_offered, supported, imposed, &feat);
	if (WARN_ON_ONCE(err && err != -EPROTONOSUPPORT)) {
		rift_srv_path_refuse(path, -err, "cannot decide the features: %d", err);
		return 0;
	}
	if (err) {
		rift_srv_path_refuse(path, EPROTONOSUPPORT,
				     "always-invalidate is imposed and the %s cannot do it",
				     ai_ok ? "client" : "device");
		return 0;
	}
	/*
	 * Admitted: only now does the path cost chunk memory.  Without
	 * credits (an old client, or credit_floor 0) its whole queue depth,
	 * as it always was; with them only the initial grant, below.
	 */
	floor = rift_srv_param_credit_floor();
	credits = (feat & RIFT_FEAT_CREDITS) && floor;
	if (credits)
		err = rift_srv_path_init_ops(path, true) ?: rift_srv_pool_path_init(path);
	else
		err = rift_srv_path_alloc_chunks(path);
	if (err) {
		rift_srv_path_refuse(path, -err, "%s%s", err == -ENOSPC ?
				     rift_srv_budget_name() : "cannot allocate chunks",
				     err == -ENOSPC ? " reached" : "");
		return 0;
	}
	path->always_inv = feat & RIFT_FEAT_ALWAYS_INVALIDATE;
	path->remote_inv = feat & RIFT_FEAT_REMOTE_INV;
	path->can_cancel = feat & RIFT_FEAT_CANCEL;
	path->cancel_gen = feat & RIFT_FEAT_CANCEL_GEN;
	path->rsp_gen = feat & RIFT_FEAT_RSP_GEN;
	if (path->always_inv) {
		u32 i;

		path->rkey_msgs = kcalloc(path->queue_depth, sizeof(*path->rkey_msgs),
					  GFP_KERNEL);
		/* With credits each chunk brings its own (rift_srv_pool_chunk_get()). */
		if (!credits)
			path->usr_copies = kvcalloc(path->queue_depth, RIFT_USR_LEN_MAX,
						    GFP_KERNEL);
		if (!path->rkey_msgs || (!credits && !path->usr_copies)) {
			rift_srv_path_refuse(path, ENOMEM,
					     "cannot allocate always-invalidate state");
			return 0;
		}
		for (i = 0; i < path->queue_depth && !credits; i++)
			path->ops[i].usr_copy = path->usr_copies + i * RIFT_USR_LEN_MAX;
	}
	/* Accepted only with a credit_floor: see rift_srv_credit_setup(). */
	nr_table = rift_srv_credit_setup(path, credits, floor);
	if (nr_table < 0) {
		rift_srv_path_refuse(path, ENOMEM, "cannot allocate credit state");
		return 0;
	}
	wrs = kcalloc(path->queue_depth, sizeof(*wrs), GFP_KERNEL);
	table = kcalloc(path->queue_depth, sizeof(*table), GFP_KERNEL);
	if (!wrs || !table)
		err = -ENOMEM;
	else if (path->credits)
		err = rift_srv_pool_admit(path, nr_table, wrs, table);
	else
		err = rift_srv_path_reg_chunks(path, wrs, table);
	if (err == -EDQUOT) {
		/*
		 * The floor does not fit the budget (rift_srv_pool_chunk_get());
		 * the client is told ENOSPC, as for an old client's queue depth.
		 * An -ENOSPC is the driver's (ib_alloc_mr()), reported below.
		 */
		rift_srv_path_refuse(path, ENOSPC, "%s reached", rift_srv_budget_name());
		goto out;
	}
	if (err) {
		rift_srv_path_refuse(path, -err, "cannot register chunks: %d", err);
		goto out;
	}

	if (first) {
		mutex_lock(&sess->lock);
		sess->ulp_up = true;
		mutex_unlock(&sess->lock);
	}
	/* Not under sess->lock: the ULP may call back into us. */
	if (first && ctx->ops->link_ev) {
		err = ctx->ops->link_ev(sess, RIFT_SRV_LINK_EV_CONNECTED, ctx->priv);
		if (err < 0) {
			/* Refused: DISCONNECTED would tell it of nothing it knows. */
			mutex_lock(&sess->lock);
			sess->ulp_up = false;
			mutex_unlock(&sess->lock);
			rift_srv_sess_close(sess, path, "refused by the ULP");
			rift_srv_path_refuse(path, -err, "ULP refused the session: %d",
					     err);
			err = 0;
			goto out;
		}
	}
	if (first) {
		mutex_lock(&sess->lock);
		rift_srv_sess_change_state(sess, RIFT_SRV_SESS_CONNECTED);
		mutex_unlock(&sess->lock);
	}
	err = rift_srv_path_send_info_rsp(path, req, proved && (req->present &
					  BIT(RIFT_TLV_AUTH_NONCE)) ? proof : NULL, wrs, table,
					  nr_table);
	if (!err && path->credits)
		rift_srv_pool_start(path);
	if (!err)
		rift_srv_peer_info("session %s: path %s connected on %s port %u, %u connections\n",
				   sess->name, path->base.name, dev_name(&path->ib_dev->dev),
				   path->base.hca_port, path->con_cnt);
out:
	kfree(table);
	kfree(wrs);
	return err;
}

void rift_srv_path_info_work(struct work_struct *work)
{
	struct rift_srv_path *path = container_of(work, struct rift_srv_path,
						  info_work);
	struct rift_srv_con *con = &path->cons[0];
	struct rift_info req;
	struct rift_iu *iu;
	bool ready;
	int err;

	spin_lock_irq(&path->base.lock);
	ready = path->state == RIFT_SRV_PATH_CONNECTING && path->info_rcvd &&
		con->info_rx && !path->info_tx &&
		rift_srv_path_all_connected(path);
	spin_unlock_irq(&path->base.lock);
	if (!ready)
		goto out;

	ib_dma_sync_single_for_cpu(path->ib_dev, con->info_rx->dma, path->info_len,
				   DMA_FROM_DEVICE);
	err = rift_info_parse(con->info_rx->buf, path->info_len, path->version,
			      &req, NULL, 0);
	if (!err && req.type != RIFT_INFO_REQ)
		err = -EBADMSG;
	/* Never posted again; the close work must not free it twice. */
	iu = con->info_rx;
	WRITE_ONCE(con->info_rx, NULL);
	rift_iu_free(path->ib_dev, iu);
	if (err) {
		rift_srv_path_refuse(path, -err, "invalid INFO_REQ (%u bytes): %d",
				     path->info_len, err);
		goto out;
	}
	err = rift_srv_path_info_connect(path, &req);
	if (err)
		rift_srv_path_fail(path, "cannot send INFO_RSP: %d", err);
out:
	kobject_put(&path->base.kobj);
}

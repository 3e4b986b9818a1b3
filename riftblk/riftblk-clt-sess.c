// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client sessions.  Devices mapped with the same
 * session name share one Rift session, counted here by name; requests a
 * device waits for (OPEN, INFO, CLOSE) are built and sent here, through
 * riftblk_clt_sync_req().  Calls no other file of riftblk's client: the
 * map (riftblk-clt-main.c) and the devices (riftblk-clt-dev.c,
 * riftblk-clt-recover.c) call in.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/completion.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <linux/delay.h>
#include <linux/jiffies.h>

#include "riftblk-clt.h"

static LIST_HEAD(riftblk_clt_sessions);
/* Sessions, the device list, and opening sessions. */
DEFINE_MUTEX(riftblk_clt_lock);

struct riftblk_clt_sync {
	struct completion	done;
	int			err;
};

static void riftblk_clt_sync_done(void *priv, int err)
{
	struct riftblk_clt_sync *s = priv;

	s->err = err;
	complete(&s->done);
}

/*
 * How long a control request retries a moment's chunk shortage (see
 * riftblk_clt_sync_req()), and how often: a grant grows by up to 12
 * chunks per answer, one answer per 10 ms, and a chunk comes back with
 * every answer the server sends.
 */
#define RIFTBLK_SYNC_RETRY_MS		10000
#define RIFTBLK_SYNC_RETRY_NAP_MS	10

/**
 * riftblk_clt_sync_req() - one request, waited for
 * @sess: session
 * @dir: RIFT_READ (the answer lands in @buf) or RIFT_WRITE (no data)
 * @usr: riftblk message
 * @usrlen: its bytes
 * @buf: page-aligned buffer for a read's answer, or NULL
 * @buflen: bytes of @buf
 *
 * Waits as long as the transport's failover and io_timeout_ms rules keep
 * the request alive; with io_timeout_ms 0, retries for up to
 * RIFTBLK_SYNC_RETRY_MS while no chunk of a connected path is free.
 *
 * Return: 0 or a negative errno from the transport or the server.
 */
int riftblk_clt_sync_req(struct riftblk_clt_sess *sess, enum rift_dir dir,
			 const void *usr, size_t usrlen, void *buf, size_t buflen)
{
	struct riftblk_clt_sync s = { .err = 0 };
	struct rift_clt_req_ops ops = { .priv = &s, .done = riftblk_clt_sync_done };
	struct kvec kv = { .iov_base = (void *)usr, .iov_len = usrlen };
	struct rift_permit *permit;
	struct scatterlist sg;
	unsigned long deadline;
	int err;

	init_completion(&s.done);
	if (buf)
		sg_init_one(&sg, buf, buflen);
	permit = rift_clt_get_permit(sess->rsess, RIFT_PERMIT_WAIT);
	/*
	 * -EAGAIN: no chunk of a connected path is free (memory credits:
	 * a path at its floor or still growing its grant) and the session
	 * does not wait for one (io_timeout_ms 0).  Block IO requeues
	 * then; a map, unmap or size poll has nobody to requeue it, so it
	 * retries here, as long as the shortage can last in ordinary use.
	 */
	deadline = jiffies + msecs_to_jiffies(RIFTBLK_SYNC_RETRY_MS);
	for (;;) {
		err = rift_clt_request(sess->rsess, dir, &ops, permit, &kv, 1,
				       buf ? buflen : 0, buf ? &sg : NULL,
				       buf ? 1 : 0, 0);
		if (err != -EAGAIN || time_after(jiffies, deadline))
			break;
		msleep(RIFTBLK_SYNC_RETRY_NAP_MS);
	}
	if (!err) {
		wait_for_completion(&s.done);
		err = s.err;
	}
	rift_clt_put_permit(sess->rsess, permit);
	return err;
}

static int riftblk_clt_ask_info(struct riftblk_clt_sess *sess, u16 type,
				const void *msg, size_t len,
				struct riftblk_dev_info *info)
{
	void *buf;
	int err;

	buf = (void *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = riftblk_clt_sync_req(sess, RIFT_READ, msg, len, buf, RIFTBLK_RSP_BUF_LEN);
	if (!err) {
		err = riftblk_dev_info_decode(type, buf, RIFTBLK_RSP_BUF_LEN, info);
		if (err)
			pr_err_ratelimited("session %s: %s from the server refused: malformed or device limits out of range (%d)\n",
					   sess->name, type == RIFTBLK_MSG_OPEN_RSP ?
					   "OPEN_RSP" : "INFO_RSP", err);
	}
	free_page((unsigned long)buf);
	return err;
}

/**
 * riftblk_clt_send_open() - OPEN a device of the server
 * @sess: session
 * @path: the device's path on the server
 * @mode: enum riftblk_access_mode asked for
 * @info: the server's OPEN_RSP, with the mapping's new handle
 *
 * Return: 0, -EPROTO if the server granted another mode, or a negative
 * errno from the transport or the server.
 */
int riftblk_clt_send_open(struct riftblk_clt_sess *sess, const char *path,
			  u16 mode, struct riftblk_dev_info *info)
{
	struct riftblk_open *open;
	u8 msg[sizeof(struct riftblk_wire_open)];
	int len;

	open = kzalloc(sizeof(*open), GFP_KERNEL);
	if (!open)
		return -ENOMEM;
	open->access_mode = mode;
	strscpy(open->path, path, sizeof(open->path));
	len = riftblk_open_encode(open, msg, sizeof(msg));
	kfree(open);
	if (len < 0)
		return len;
	len = riftblk_clt_ask_info(sess, RIFTBLK_MSG_OPEN_RSP, msg, len, info);
	if (!len && info->access_mode != mode) {
		pr_err_ratelimited("session %s: server granted %s for %s, asked %s\n", sess->name,
				   riftblk_access_mode_name(info->access_mode), path,
				   riftblk_access_mode_name(mode));
		return -EPROTO;
	}
	return len;
}

/**
 * riftblk_clt_send_dev() - CLOSE or INFO of a mapping
 * @sess: session
 * @type: RIFTBLK_MSG_CLOSE or RIFTBLK_MSG_INFO
 * @dev_id: the mapping's handle
 * @info: INFO's answer; NULL for CLOSE
 *
 * Return: 0 or a negative errno from the transport or the server.
 */
int riftblk_clt_send_dev(struct riftblk_clt_sess *sess, u16 type, u32 dev_id,
			 struct riftblk_dev_info *info)
{
	u8 msg[sizeof(struct riftblk_wire_dev)];
	int len;

	len = riftblk_dev_encode(type, dev_id, msg, sizeof(msg));
	if (len < 0)
		return len;
	if (type == RIFTBLK_MSG_CLOSE)
		return riftblk_clt_sync_req(sess, RIFT_WRITE, msg, len, NULL, 0);
	return riftblk_clt_ask_info(sess, RIFTBLK_MSG_INFO_RSP, msg, len, info);
}

static void riftblk_clt_link_ev(void *priv, enum rift_clt_link_ev ev)
{
	struct riftblk_clt_sess *sess = priv;

	WRITE_ONCE(sess->disconnected, ev == RIFT_CLT_LINK_EV_DISCONNECTED);
	pr_info_ratelimited("session %s: %s\n", sess->name,
			    ev == RIFT_CLT_LINK_EV_DISCONNECTED ? "no path connected" :
			    "path connected");
}

struct riftblk_clt_addrs {
	struct rift_path_addr		paths[RIFTBLK_MAX_PATHS];
	struct sockaddr_storage		srcs[RIFTBLK_MAX_PATHS];
	struct sockaddr_storage		dsts[RIFTBLK_MAX_PATHS];
};

static struct riftblk_clt_sess *riftblk_clt_sess_open(const struct riftblk_map_args *args)
{
	struct rift_clt_open_args oa = {};
	struct riftblk_clt_addrs *a;
	struct riftblk_clt_sess *sess;
	struct rift_clt_attrs attrs;
	unsigned int i;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	err = -ENOMEM;
	if (!a || !sess)
		goto err;
	for (i = 0; i < args->nr_paths; i++) {
		err = rift_clt_parse_path(args->paths[i], &a->srcs[i], &a->dsts[i],
					  args->port);
		if (err) {
			pr_err("map_device: invalid path '%s'\n", args->paths[i]);
			goto err;
		}
		a->paths[i].src = &a->srcs[i];
		a->paths[i].dst = &a->dsts[i];
	}
	strscpy(sess->name, args->sessname, sizeof(sess->name));
	sess->refs = 1;
	sess->ops.priv = sess;
	sess->ops.link_ev = riftblk_clt_link_ev;
	oa.sessname = sess->name;
	oa.paths = a->paths;
	oa.nr_paths = args->nr_paths;
	oa.port = args->port;
	oa.nr_poll_cons = args->nr_poll_queues;
	oa.ops = &sess->ops;
	if (args->secret_len) {
		oa.secret = args->secret;
		oa.secret_len = args->secret_len;
	}
	if (args->server_secret_len) {
		oa.server_secret = args->server_secret;
		oa.server_secret_len = args->server_secret_len;
	}
	sess->rsess = rift_clt_open(&oa);
	if (IS_ERR(sess->rsess)) {
		err = PTR_ERR(sess->rsess);
		pr_err("map_device: cannot open session %s: %d\n", sess->name, err);
		goto err;
	}
	rift_clt_query(sess->rsess, &attrs);
	sess->queue_depth = attrs.queue_depth;
	sess->max_io_size = attrs.max_io_size;
	sess->max_segments = attrs.max_segments;
	sess->nr_poll_cons = attrs.nr_poll_cons;
	kfree(a);
	return sess;

err:
	kfree(a);
	kfree(sess);
	return ERR_PTR(err);
}

/**
 * riftblk_clt_sess_get() - the session a map names, opened if need be
 * @args: the map's arguments (session name, paths, port, secrets)
 *
 * Caller holds riftblk_clt_lock.
 *
 * Return: the session with a reference for the caller, or an ERR_PTR.
 */
struct riftblk_clt_sess *riftblk_clt_sess_get(const struct riftblk_map_args *args)
{
	struct riftblk_clt_sess *sess;

	lockdep_assert_held(&riftblk_clt_lock);
	list_for_each_entry(sess, &riftblk_clt_sessions, entry) {
		if (strcmp(sess->name, args->sessname))
			continue;
		/*
		 * Poll connections are the session's, opened with it: a device
		 * may use as many as it has, not add any.
		 */
		if (args->nr_poll_queues > sess->nr_poll_cons) {
			pr_err("map_device: nr_poll_queues=%u: session %s has %u poll connections (set by the map that opened it); unmap its devices to open it again with more\n",
			       args->nr_poll_queues, sess->name, sess->nr_poll_cons);
			return ERR_PTR(-EINVAL);
		}
		/* Secrets are proved per path: they belong to the session. */
		if (args->secret_len || args->server_secret_len) {
			pr_err("map_device: session %s is open already, with the secrets of the map that opened it; give none\n",
			       sess->name);
			return ERR_PTR(-EBUSY);
		}
		/* The session's own paths and port serve every device on it. */
		sess->refs++;
		return sess;
	}
	sess = riftblk_clt_sess_open(args);
	if (!IS_ERR(sess))
		list_add_tail(&sess->entry, &riftblk_clt_sessions);
	return sess;
}

/**
 * riftblk_clt_sess_put() - drop a reference; the last closes the session
 * @sess: session
 */
void riftblk_clt_sess_put(struct riftblk_clt_sess *sess)
{
	mutex_lock(&riftblk_clt_lock);
	if (--sess->refs) {
		mutex_unlock(&riftblk_clt_lock);
		return;
	}
	list_del(&sess->entry);
	mutex_unlock(&riftblk_clt_lock);
	rift_clt_close(sess->rsess);
	kfree(sess);
}

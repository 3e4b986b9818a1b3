// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: the path state machine and the events that move it.  A
 * failure, an abort during setup, a device or port going away and a
 * user's disconnect only change the state and queue the path's close
 * work (rift-clt-path.c), so any context may report them: the IO path's
 * completions, rdma_cm handlers and rift-core's notifiers.  Every other
 * file of the client may call into this one; this one calls none of them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"

static const char * const rift_clt_path_state_names[] = {
	[RIFT_CLT_PATH_IDLE]		= "idle",
	[RIFT_CLT_PATH_CONNECTING]	= "connecting",
	[RIFT_CLT_PATH_CONNECTED]	= "connected",
	[RIFT_CLT_PATH_ERROR]		= "error",
	[RIFT_CLT_PATH_RECONNECTING]	= "reconnecting",
	[RIFT_CLT_PATH_CLOSING]		= "closing",
	[RIFT_CLT_PATH_CLOSED]		= "closed",
	[RIFT_CLT_PATH_GAVE_UP]		= "gave-up",
};

static_assert(ARRAY_SIZE(rift_clt_path_state_names) == RIFT_CLT_PATH_STATE_NR);

#define S(x) BIT(RIFT_CLT_PATH_##x)
/* Allowed transitions: from state (index) to any state in the mask. */
static const u32 rift_clt_path_next[RIFT_CLT_PATH_STATE_NR] = {
	[RIFT_CLT_PATH_IDLE]		= S(CONNECTING) | S(CLOSING),
	[RIFT_CLT_PATH_CONNECTING]	= S(CONNECTED) | S(ERROR) | S(CLOSING),
	[RIFT_CLT_PATH_CONNECTED]	= S(ERROR) | S(CLOSING),
	[RIFT_CLT_PATH_ERROR]		= S(RECONNECTING) | S(GAVE_UP) | S(CLOSING),
	[RIFT_CLT_PATH_RECONNECTING]	= S(CONNECTED) | S(ERROR) | S(CLOSING),
	[RIFT_CLT_PATH_CLOSING]		= S(CLOSED),
	[RIFT_CLT_PATH_CLOSED]		= 0,
	[RIFT_CLT_PATH_GAVE_UP]		= S(RECONNECTING) | S(CLOSING),
};

#undef S

static const struct rift_sm rift_clt_path_sm = {
	.name	= "client path",
	.names	= rift_clt_path_state_names,
	.next	= rift_clt_path_next,
	.nr	= RIFT_CLT_PATH_STATE_NR,
};

const char *rift_clt_path_state_str(enum rift_clt_path_state s)
{
	return rift_sm_state_str(&rift_clt_path_sm, s);
}

/*
 * The one place a path changes state.  Returns false when the transition is
 * not allowed, which callers use to lose races (e.g. a failure seen by two
 * completions at once is handled by the first).
 */
bool rift_clt_path_change_state(struct rift_clt_path *path,
				enum rift_clt_path_state new)
{
	enum rift_clt_path_state old = path->state;

	lockdep_assert_held(&path->base.lock);
	if (!rift_sm_change(&rift_clt_path_sm, old, new, path->sess->name,
			    path->base.name))
		return false;
	path->state = new;
	if (new == RIFT_CLT_PATH_CONNECTED)
		atomic_inc(&path->sess->connected);
	else if (old == RIFT_CLT_PATH_CONNECTED)
		atomic_dec(&path->sess->connected);
	return true;
}

bool rift_clt_path_set_state(struct rift_clt_path *path,
			     enum rift_clt_path_state new)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&path->base.lock, flags);
	ok = rift_clt_path_change_state(path, new);
	spin_unlock_irqrestore(&path->base.lock, flags);
	return ok;
}

enum rift_clt_path_state rift_clt_path_get_state(struct rift_clt_path *path)
{
	return READ_ONCE(path->state);
}

/* The path's state file (rift-core's) asks here for the name. */
const char *rift_clt_path_base_state_str(struct rift_path_base *base)
{
	struct rift_clt_path *path = container_of(base, struct rift_clt_path, base);

	return rift_clt_path_state_str(rift_clt_path_get_state(path));
}

void rift_clt_path_set_error(struct rift_clt_path *path, const char *fmt, ...)
{
	unsigned long flags;
	va_list ap;

	char msg[sizeof(path->base.last_error)];

	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	spin_lock_irqsave(&path->base.lock, flags);
	strscpy(path->base.last_error, msg, sizeof(path->base.last_error));
	spin_unlock_irqrestore(&path->base.lock, flags);
	if (__ratelimit(&path->err_rs))
		pr_info("%s/%s: %s\n", path->sess->name, path->base.name, msg);
}

/**
 * rift_clt_path_fail() - a connected path stopped working
 * @path: path
 * @fmt: reason, for last_error and the log (like rift_srv_path_fail())
 *
 * Callable from CQ and CM callbacks: only changes state and queues the
 * close work, which tears down and then schedules a reconnect.
 */
void rift_clt_path_fail(struct rift_clt_path *path, const char *fmt, ...)
{
	struct va_format vaf;
	unsigned long flags;
	va_list ap;
	bool failed;

	/*
	 * While (re)connecting, the connect worker owns the connections and
	 * sees failures itself; only a connected path is handed to close work.
	 */
	va_start(ap, fmt);
	spin_lock_irqsave(&path->base.lock, flags);
	if (path->state == RIFT_CLT_PATH_CONNECTING ||
	    path->state == RIFT_CLT_PATH_RECONNECTING)
		path->setup_failed = true;
	failed = path->state == RIFT_CLT_PATH_CONNECTED &&
		 rift_clt_path_change_state(path, RIFT_CLT_PATH_ERROR);
	if (failed)
		rift_path_vset_error(&path->base, fmt, ap);
	spin_unlock_irqrestore(&path->base.lock, flags);
	if (failed) {
		/* The whole reason, even where last_error cut it short. */
		vaf.fmt = fmt;
		vaf.va = &ap;
		pr_info_ratelimited("%s/%s: path failed: %pV\n", path->sess->name,
				    path->base.name, &vaf);
		queue_work(path->sess->wq, &path->close_work);
	}
	va_end(ap);
}

/**
 * rift_clt_path_abort() - fail a path, also while it is being set up
 * @path: path
 * @fmt: reason, for last_error and the log
 *
 * A connected path is failed (its close work releases everything it
 * holds); a path being set up has its attempt aborted with the reason in
 * last_error and every wait of the attempt woken, so the connect work
 * closes its connections now rather than after connect_timeout_ms.  For
 * what the path ran over going away, and for a server that misbehaves
 * before the path is up (rift_clt_path_fail() would abort the attempt
 * without a reason).  Must not wait for teardown: called from rift-core's
 * notifiers and from CQ callbacks.
 */
void rift_clt_path_abort(struct rift_clt_path *path, const char *fmt, ...)
{
	char why[sizeof(path->base.last_error)];
	unsigned long flags;
	bool setup, again = false;
	va_list ap;
	u16 i;

	va_start(ap, fmt);
	vscnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	spin_lock_irqsave(&path->base.lock, flags);
	setup = path->state == RIFT_CLT_PATH_CONNECTING ||
		path->state == RIFT_CLT_PATH_RECONNECTING;
	if (setup) {
		/* Said already (a flood calls once per heartbeat): quiet. */
		again = path->setup_failed && !strcmp(path->base.last_error, why);
		path->setup_failed = true;
		strscpy(path->base.last_error, why, sizeof(path->base.last_error));
	}
	spin_unlock_irqrestore(&path->base.lock, flags);
	if (!setup) {
		rift_clt_path_fail(path, "%s", why);
		return;
	}
	if (again)
		return;
	pr_info_ratelimited("%s/%s: connect aborted: %s\n", path->sess->name,
			    path->base.name, why);
	/* Every wait of the attempt checks ->setup_failed when woken. */
	for (i = 0; i < path->nr_cons; i++)
		complete(&path->cons[i].done);
	complete(&path->info_tx_done);
	complete(&path->info_done);
}

/**
 * rift_clt_path_dev_removed() - the RDMA device under a path is going away
 * @path: path of a session, seen under RCU
 * @dev: the device being removed
 *
 * rift-core waits for the path to release what it holds on @dev.
 */
void rift_clt_path_dev_removed(struct rift_clt_path *path, struct rift_dev *dev)
{
	bool uses = false;
	u16 i;

	/* Pointers only: another device's state may be freed meanwhile. */
	for (i = 0; i < path->nr_cons; i++)
		if (READ_ONCE(path->cons[i].c.dev) == dev)
			uses = true;
	if (READ_ONCE(path->pd.dev) == dev)
		uses = true;
	if (!uses)
		return;
	rift_clt_path_abort(path, "RDMA device %s removed", dev_name(&dev->ib_dev->dev));
}

/**
 * rift_clt_path_port_down() - the RDMA port under a path went down
 * @path: path of a session, seen under RCU
 * @dev: device of the port
 * @port: port number
 *
 * Nothing can move over the port until it is back: the path fails now
 * and its requests fail over at once, rather than after hb_interval_ms *
 * (hb_missed_max + 1).  It reconnects with its usual backoff.
 */
void rift_clt_path_port_down(struct rift_clt_path *path, struct rift_dev *dev,
			     u32 port)
{
	bool uses = false;
	u16 i;

	for (i = 0; i < path->nr_cons; i++)
		if (rift_con_on_port(&path->cons[i].c, dev, port))
			uses = true;
	if (!uses)
		return;
	rift_clt_path_abort(path, "RDMA port %s/%u down", dev_name(&dev->ib_dev->dev),
			    port);
}

/**
 * rift_clt_path_disconnect() - user asked to disconnect a path
 * @path: path; it reconnects after the session's reconnect delay
 */
void rift_clt_path_disconnect(struct rift_clt_path *path)
{
	rift_clt_path_fail(path, "disconnected by user");
}

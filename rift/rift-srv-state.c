// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: the state machines of sessions, paths and connections, and
 * the events every other file reports through them: a path fails, a
 * session closes, a path leaves setup.  Nothing here tears anything down;
 * a failed path's close work (rift-srv-conn.c) does, so any context may
 * report a failure.  Every file of the server above it calls into this
 * one; this one calls only rift-srv-globals.c (its workqueue and log
 * budget).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-srv.h"
#include "rift_trace.h"

/* ------------------------------------------------------------------ */
/* State machines                                                      */
/* ------------------------------------------------------------------ */

static const char * const rift_srv_sess_state_names[] = {
	[RIFT_SRV_SESS_CONNECTING]	= "connecting",
	[RIFT_SRV_SESS_CONNECTED]	= "connected",
	[RIFT_SRV_SESS_CLOSING]		= "closing",
	[RIFT_SRV_SESS_CLOSED]		= "closed",
};

static_assert(ARRAY_SIZE(rift_srv_sess_state_names) == RIFT_SRV_SESS_STATE_NR);

static const char * const rift_srv_path_state_names[] = {
	[RIFT_SRV_PATH_CONNECTING]	= "connecting",
	[RIFT_SRV_PATH_CONNECTED]	= "connected",
	[RIFT_SRV_PATH_CLOSING]		= "closing",
	[RIFT_SRV_PATH_CLOSED]		= "closed",
};

static_assert(ARRAY_SIZE(rift_srv_path_state_names) == RIFT_SRV_PATH_STATE_NR);

static const char * const rift_srv_con_state_names[] = {
	[RIFT_SRV_CON_IDLE]		= "idle",
	[RIFT_SRV_CON_CONNECTING]	= "connecting",
	[RIFT_SRV_CON_CONNECTED]	= "connected",
	[RIFT_SRV_CON_CLOSING]		= "closing",
	[RIFT_SRV_CON_CLOSED]		= "closed",
};

static_assert(ARRAY_SIZE(rift_srv_con_state_names) == RIFT_SRV_CON_STATE_NR);

/* Allowed transitions: from the state (index) to any state in the mask. */
#define SS(x) BIT(RIFT_SRV_SESS_##x)
static const u32 rift_srv_sess_next[RIFT_SRV_SESS_STATE_NR] = {
	[RIFT_SRV_SESS_CONNECTING]	= SS(CONNECTED) | SS(CLOSING),
	[RIFT_SRV_SESS_CONNECTED]	= SS(CLOSING),
	[RIFT_SRV_SESS_CLOSING]		= SS(CLOSED),
	[RIFT_SRV_SESS_CLOSED]		= 0,
};

#undef SS

#define PS(x) BIT(RIFT_SRV_PATH_##x)
static const u32 rift_srv_path_next[RIFT_SRV_PATH_STATE_NR] = {
	[RIFT_SRV_PATH_CONNECTING]	= PS(CONNECTED) | PS(CLOSING),
	[RIFT_SRV_PATH_CONNECTED]	= PS(CLOSING),
	[RIFT_SRV_PATH_CLOSING]		= PS(CLOSED),
	[RIFT_SRV_PATH_CLOSED]		= 0,
};

#undef PS

#define CS(x) BIT(RIFT_SRV_CON_##x)
static const u32 rift_srv_con_next[RIFT_SRV_CON_STATE_NR] = {
	[RIFT_SRV_CON_IDLE]		= CS(CONNECTING) | CS(CLOSED),
	[RIFT_SRV_CON_CONNECTING]	= CS(CONNECTED) | CS(CLOSING),
	[RIFT_SRV_CON_CONNECTED]	= CS(CLOSING),
	[RIFT_SRV_CON_CLOSING]		= CS(CLOSED),
	[RIFT_SRV_CON_CLOSED]		= 0,
};

#undef CS

static const struct rift_sm rift_srv_sess_sm = {
	.name	= "server session",
	.names	= rift_srv_sess_state_names,
	.next	= rift_srv_sess_next,
	.nr	= RIFT_SRV_SESS_STATE_NR,
};

static const struct rift_sm rift_srv_path_sm = {
	.name	= "server path",
	.names	= rift_srv_path_state_names,
	.next	= rift_srv_path_next,
	.nr	= RIFT_SRV_PATH_STATE_NR,
};

static const struct rift_sm rift_srv_con_sm = {
	.name	= "server connection",
	.names	= rift_srv_con_state_names,
	.next	= rift_srv_con_next,
	.nr	= RIFT_SRV_CON_STATE_NR,
};

const char *rift_srv_sess_state_str(enum rift_srv_sess_state s)
{
	return rift_sm_state_str(&rift_srv_sess_sm, s);
}

const char *rift_srv_path_state_str(enum rift_srv_path_state s)
{
	return rift_sm_state_str(&rift_srv_path_sm, s);
}

const char *rift_srv_con_state_str(enum rift_srv_con_state s)
{
	return rift_sm_state_str(&rift_srv_con_sm, s);
}

/* The path's state file (rift-core's) asks here for the name. */
const char *rift_srv_path_base_state_str(struct rift_path_base *base)
{
	struct rift_srv_path *path = container_of(base, struct rift_srv_path, base);

	return rift_srv_path_state_str(READ_ONCE(path->state));
}

const char *rift_srv_sess_label(struct rift_srv_sess *sess)
{
	/* Pairs with the release in rift_srv_sess_set_name(). */
	return smp_load_acquire(&sess->label);
}

/*
 * The only places the states change.  A refused transition returns false,
 * which is how concurrent failure reports lose the race to the first one.
 */
bool rift_srv_sess_change_state(struct rift_srv_sess *sess,
				enum rift_srv_sess_state new)
{
	lockdep_assert_held(&sess->lock);
	if (!rift_sm_change(&rift_srv_sess_sm, sess->state, new,
			    rift_srv_sess_label(sess), ""))
		return false;
	WRITE_ONCE(sess->state, new);
	return true;
}

bool rift_srv_path_change_state(struct rift_srv_path *path,
				enum rift_srv_path_state new)
{
	lockdep_assert_held(&path->base.lock);
	if (!rift_sm_change(&rift_srv_path_sm, path->state, new,
			    rift_srv_sess_label(path->sess), path->base.name))
		return false;
	WRITE_ONCE(path->state, new);
	return true;
}

bool rift_srv_con_change_state(struct rift_srv_con *con,
			       enum rift_srv_con_state new)
{
	char obj[sizeof(con->path->base.name) + 16];

	lockdep_assert_held(&con->path->base.lock);
	/* Connections change state only while they connect and close. */
	snprintf(obj, sizeof(obj), "%s con %u", con->path->base.name, con->idx);
	if (!rift_sm_change(&rift_srv_con_sm, con->state, new,
			    rift_srv_sess_label(con->path->sess), obj))
		return false;
	WRITE_ONCE(con->state, new);
	return true;
}

bool rift_srv_path_all_connected(struct rift_srv_path *path)
{
	u16 i;

	lockdep_assert_held(&path->base.lock);
	for (i = 0; i < path->con_cnt; i++)
		if (path->cons[i].state != RIFT_SRV_CON_CONNECTED)
			return false;
	return true;
}

/**
 * rift_srv_path_fail() - stop using a path and schedule its teardown
 * @path: path
 * @fmt: reason, for last_error and the log (rate-limited), from the
 *	first caller only
 *
 * Any context.  Later calls, and calls on a path already closing, do
 * nothing, so every failure report can simply call this.
 */
void rift_srv_path_fail(struct rift_srv_path *path, const char *fmt, ...)
{
	struct va_format vaf;
	unsigned long flags;
	va_list ap;
	bool failed;

	va_start(ap, fmt);
	spin_lock_irqsave(&path->base.lock, flags);
	failed = rift_srv_path_change_state(path, RIFT_SRV_PATH_CLOSING);
	if (failed)
		rift_path_vset_error(&path->base, fmt, ap);
	spin_unlock_irqrestore(&path->base.lock, flags);
	if (!failed) {
		va_end(ap);
		return;
	}
	/* Set once, by this caller: no one rewrites it under us. */
	trace_rift_path_error("server", rift_srv_sess_label(path->sess), path->base.name,
			      path->base.last_error);
	vaf.fmt = fmt;
	vaf.va = &ap;
	rift_srv_peer_info("session %s, path %s: closing: %pV\n",
			   rift_srv_sess_label(path->sess), path->base.name, &vaf);
	va_end(ap);
	/* The session's list reference keeps @path alive until this ran. */
	queue_work(rift_srv_wq, &path->close_work);
}

/**
 * rift_srv_sess_close() - close every path of a session
 * @sess: session
 * @except: path the caller closes itself, or NULL
 * @why: reason for the log
 */
void rift_srv_sess_close(struct rift_srv_sess *sess, struct rift_srv_path *except,
			 const char *why)
{
	struct rift_srv_path *path;

	mutex_lock(&sess->lock);
	rift_srv_sess_change_state(sess, RIFT_SRV_SESS_CLOSING);
	list_for_each_entry(path, &sess->paths, entry)
		if (path != except)
			rift_srv_path_fail(path, "%s", why);
	mutex_unlock(&sess->lock);
}

/**
 * rift_srv_path_not_pending() - a path left setup (connected or closing)
 * @path: path; safe to call twice
 */
void rift_srv_path_not_pending(struct rift_srv_path *path)
{
	struct rift_srv_ctx *ctx = path->sess->ctx;

	mutex_lock(&ctx->lock);
	list_del_init(&path->pending_entry);
	mutex_unlock(&ctx->lock);
}

/*
 * Each queued run holds a path reference; the work checks readiness
 * itself, so ESTABLISHED and INFO_REQ may both kick it.
 */
void rift_srv_path_queue_info(struct rift_srv_path *path)
{
	kobject_get(&path->base.kobj);
	if (!queue_work(rift_srv_wq, &path->info_work))
		kobject_put(&path->base.kobj);
}

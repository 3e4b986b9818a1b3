// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: heartbeats.  Each path's tick asks a silent client for a
 * sign of life and closes the path after hb_missed_max silent ticks; a
 * client's heartbeat is answered on the connection it came on.  The
 * counters are rift-core's heartbeat engine, shared with the client.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-srv.h"
#include "rift_trace.h"

static int rift_srv_send_imm(struct rift_srv_con *con, const struct rift_imm *imm)
{
	return rift_con_send_imm(&con->c, &con->tx_cqe, imm);
}

/**
 * rift_srv_path_hb_start() - start the heartbeat of a path gone CONNECTED
 * @path: path
 */
void rift_srv_path_hb_start(struct rift_srv_path *path)
{
	rift_hb_start(&path->hb);
	queue_delayed_work(rift_srv_hb_wq, &path->hb_work,
			   rift_hb_next(&path->hb.due, path->hb.interval_ms));
}

/**
 * rift_srv_path_hb_work() - heartbeat tick of a server path
 * @work: the path's hb_work
 *
 * A client that vanishes (host crash, cable pulled, rxe retrying forever)
 * leaves no QP error behind: without this, its session would pin its
 * chunks on the server for good.  Ask with a heartbeat on a silent tick;
 * after hb_missed_max silent ticks in a row close the path, which frees
 * its resources and, for the last path, the session's.
 */
void rift_srv_path_hb_work(struct work_struct *work)
{
	struct rift_srv_path *path = container_of(to_delayed_work(work),
						  struct rift_srv_path, hb_work);
	struct rift_imm imm = { .type = RIFT_IMM_HB };
	unsigned long flags;
	bool up, silent;
	int err = 0;
	u32 late;

	if (READ_ONCE(path->state) != RIFT_SRV_PATH_CONNECTED)
		return;
	late = rift_hb_late_ms(path->hb.due);
	silent = rift_hb_tick(&path->hb);
	trace_rift_hb_tick("server", rift_srv_sess_label(path->sess),
			   path->base.name, path->hb.missed, late);
	if (silent) {
		rift_srv_path_fail(path, "heartbeat: nothing received for %u ms",
				   path->hb.missed * path->hb.interval_ms);
		return;
	}
	/* Only on silent ticks: the client's heartbeats keep traffic going. */
	if (rift_hb_send(&path->hb, false, &imm.seq)) {
		/* Under the lock: teardown changes the state before the QPs go. */
		spin_lock_irqsave(&path->base.lock, flags);
		up = path->state == RIFT_SRV_PATH_CONNECTED;
		if (up)
			err = rift_srv_send_imm(&path->cons[0], &imm);
		spin_unlock_irqrestore(&path->base.lock, flags);
		if (err) {
			rift_srv_path_fail(path, "cannot send a heartbeat: %d", err);
			return;
		}
		if (!up)
			return;
	}
	queue_delayed_work(rift_srv_hb_wq, &path->hb_work,
			   rift_hb_next(&path->hb.due, path->hb.interval_ms));
}

/**
 * rift_srv_send_hb_ack() - answer a client's heartbeat
 * @con: connection it arrived on, where the answer goes
 * @seq: its sequence number, echoed
 *
 * CQ context; a failure to post closes the path.
 */
void rift_srv_send_hb_ack(struct rift_srv_con *con, u16 seq)
{
	struct rift_imm imm = {
		.type	= RIFT_IMM_HB_ACK,
		.seq	= seq,
	};
	int err = rift_srv_send_imm(con, &imm);

	if (err)
		rift_srv_path_fail(con->path, "cannot answer a heartbeat: %d", err);
}

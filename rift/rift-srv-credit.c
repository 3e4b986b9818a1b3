// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: memory credits (RIFT_FEAT_CREDITS).  A path instance's
 * chunks are granted to its client: INFO_RSP's chunk table is the initial
 * grant (credit_floor), a CREDIT_REQ is answered with more, a CREDIT_REL
 * gives one back.  A request may only name a granted chunk.
 *
 * Step 2 of Documentation/design/memory-credits.rst: every chunk of the
 * path is still allocated and registered at admission, so a grant only
 * hands out what exists already and a chunk given back stays allocated.
 * The policy that decides how much an answer grants is
 * rift_srv_credit_grant_nr(), the one place a budgeted pool (step 3)
 * replaces; it will also have to post the receives a larger grant needs
 * before answering (today every connection has one per chunk of the
 * queue depth from the start).
 *
 * The grant is under the path's cr_lock: the receive handler of
 * connection 0 (CREDIT_REQ, CREDIT_REL) and the answer work change it,
 * every connection's receive handler reads it without the lock (one
 * atomic bit per request).
 * Called by the IO path, the INFO exchange and the path's teardown;
 * calls only into the state machine and the parameters.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "rift-srv.h"

/*
 * A path's CREDIT_REQs are answered at most this often: a client that
 * asks in a loop gets at most 100 answers a second.
 */
#define RIFT_SRV_CREDIT_INTERVAL_MS	10

static void rift_srv_credit_work(struct work_struct *work);

/**
 * rift_srv_credit_init() - prepare a new path instance's grant
 * @path: path being created
 */
void rift_srv_credit_init(struct rift_srv_path *path)
{
	spin_lock_init(&path->cr_lock);
	INIT_DELAYED_WORK(&path->credit_work, rift_srv_credit_work);
	/*
	 * As if the last answer were an interval ago: the first CREDIT_REQ
	 * is answered at once.  Not 0: jiffies starts 5 minutes before it
	 * wraps (INITIAL_JIFFIES), so during the first minutes of uptime
	 * (or, with a 32-bit jiffies, in every other half of its range)
	 * 0 + the interval lies in the future, and the first answer would
	 * wait for the wrap.
	 */
	path->cr_last = jiffies - msecs_to_jiffies(RIFT_SRV_CREDIT_INTERVAL_MS);
}

/**
 * rift_srv_credit_setup() - the initial grant of an admitted path
 * @path: path whose chunks are allocated; runs in its INFO work
 * @credits: the client offered %RIFT_FEAT_CREDITS and the server accepts it
 *
 * Without credits every chunk is granted, as before the feature, so the
 * IO path checks the grant the same way for every client.
 *
 * Return: the chunks INFO_RSP's table announces, or -ENOMEM.
 */
int rift_srv_credit_setup(struct rift_srv_path *path, bool credits)
{
	u16 qd = path->queue_depth, floor = rift_proto_credit_floor(qd);
	u32 g = rift_srv_param_credit_floor();
	u16 i;

	path->cr_granted = bitmap_zalloc(qd, GFP_KERNEL);
	if (!path->cr_granted)
		return -ENOMEM;
	if (credits && g) {
		path->credits = true;
		/* Sent with connection 0's tx_cqe: no handler of their own. */
		for (i = 0; i < RIFT_CREDIT_MAX_MSGS; i++) {
			path->cr_tx[i] = rift_iu_alloc(path->ib_dev, RIFT_CREDIT_MAX_LEN,
						       DMA_TO_DEVICE, NULL);
			if (!path->cr_tx[i])
				return -ENOMEM;
		}
		/* The protocol's floor lets every path make progress. */
		g = clamp_t(u32, g, floor, qd);
	} else {
		/*
		 * credit_floor 0 grants the whole queue depth at once: the
		 * client then never needs to ask, and the feature costs
		 * nothing on the wire.  Not accepted, so nothing of it is
		 * sent or expected.
		 */
		g = qd;
	}
	bitmap_set(path->cr_granted, 0, g);
	path->nr_granted = g;
	return g;
}

/**
 * rift_srv_credit_stop() - no answer runs or is queued any more
 * @path: path whose QPs are destroyed, so no CREDIT_REQ can queue one
 *
 * Frees the answers' buffers, mapped for the path's device; the grant
 * itself goes with the path's memory (rift_srv_credit_free()).
 */
void rift_srv_credit_stop(struct rift_srv_path *path)
{
	unsigned int i;

	cancel_delayed_work_sync(&path->credit_work);
	for (i = 0; i < RIFT_CREDIT_MAX_MSGS; i++) {
		rift_iu_free(path->ib_dev, path->cr_tx[i]);
		path->cr_tx[i] = NULL;
	}
}

/**
 * rift_srv_credit_free() - free the grant
 * @path: path whose last reference is gone
 */
void rift_srv_credit_free(struct rift_srv_path *path)
{
	bitmap_free(path->cr_granted);
	path->cr_granted = NULL;
}

/**
 * rift_srv_credit_granted() - may a request name this chunk?
 * @path: connected path
 * @chunk: chunk id below the path's queue depth
 *
 * Return: whether @chunk is granted to the client.
 */
bool rift_srv_credit_granted(struct rift_srv_path *path, u16 chunk)
{
	return test_bit(chunk, path->cr_granted);
}

/*
 * How many chunks the answer grants: up to @want in total (at least the
 * floor, which a client that gave chunks back without a revoke may have
 * left), at most RIFT_CREDIT_MAX_MSGS messages' worth.  Step 2 grants
 * from the chunks the path has allocated anyway; this is where a pool
 * with a budget and shares decides instead.
 */
static u16 rift_srv_credit_grant_nr(struct rift_srv_path *path, u16 want)
{
	u16 floor = rift_proto_credit_floor(path->queue_depth);
	u16 target = max(want, floor);

	lockdep_assert_held(&path->cr_lock);
	if (target <= path->nr_granted)
		return 0;
	return min_t(u16, target - path->nr_granted,
		     RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS);
}

/*
 * Answer the outstanding CREDIT_REQ: pick the chunks, mark them granted
 * before the client can hear of them (it may send a request on one as
 * soon as the message arrives), encode one to four messages, and post
 * them in one chain on connection 0.  The request stops being outstanding
 * before the post: the client may ask again as soon as it has the last
 * message.  The message buffers are rewritten only by the next answer,
 * which needs the next CREDIT_REQ, which the client sends only after it
 * received this answer's last message: by then the device has read them.
 */
static void rift_srv_credit_answer(struct rift_srv_path *path)
{
	struct rift_srv_con *con = &path->cons[0];
	struct ib_send_wr wrs[RIFT_CREDIT_MAX_MSGS] = {};
	struct ib_sge sges[RIFT_CREDIT_MAX_MSGS];
	struct rift_imm imm = { .type = RIFT_IMM_CREDIT };
	struct rift_credit c;
	unsigned long bit = 0, flags;
	u16 n, nr_msgs, i, k;
	__be32 imm_data;
	int len, err;

	if (rift_imm_encode(&imm, &imm_data))
		return;
	spin_lock_irqsave(&path->cr_lock, flags);
	n = rift_srv_credit_grant_nr(path, path->cr_want);
	nr_msgs = max_t(u16, 1, DIV_ROUND_UP(n, RIFT_CREDIT_MAX_GRANTS));
	for (i = 0; i < nr_msgs; i++) {
		memset(&c, 0, sizeof(c));
		c.flags = RIFT_CREDIT_F_ANSWER | (i + 1 < nr_msgs ? RIFT_CREDIT_F_MORE : 0);
		for (k = 0; k < RIFT_CREDIT_MAX_GRANTS && n; k++, n--) {
			bit = find_next_zero_bit(path->cr_granted, path->queue_depth, bit);
			/* n is bounded by the chunks not granted. */
			if (WARN_ON_ONCE(bit >= path->queue_depth))
				break;
			c.grant[k].chunk = bit;
			c.grant[k].addr = path->mrs[bit]->iova;
			c.grant[k].rkey = path->mrs[bit]->rkey;
			set_bit(bit, path->cr_granted);
			path->nr_granted++;
			c.nr_grant++;
		}
		c.granted = path->nr_granted;
		len = rift_proto_credit_encode(&c, path->queue_depth, path->cr_tx[i]->buf,
					       path->cr_tx[i]->size);
		if (len < 0) {
			spin_unlock_irqrestore(&path->cr_lock, flags);
			rift_srv_path_fail(path, "cannot encode a credit answer: %d", len);
			return;
		}
		ib_dma_sync_single_for_device(path->ib_dev, path->cr_tx[i]->dma, len,
					      DMA_TO_DEVICE);
		sges[i].addr = path->cr_tx[i]->dma;
		sges[i].length = len;
		sges[i].lkey = path->pd.pd->local_dma_lkey;
		wrs[i].opcode = IB_WR_SEND_WITH_IMM;
		wrs[i].ex.imm_data = imm_data;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].wr_cqe = &con->tx_cqe;
		wrs[i].next = i + 1 < nr_msgs ? &wrs[i + 1] : NULL;
	}
	path->cr_req_out = false;
	path->cr_last = jiffies;
	spin_unlock_irqrestore(&path->cr_lock, flags);
	if (rift_con_signal_n(&con->c, nr_msgs))
		wrs[nr_msgs - 1].send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(con->c.qp, wrs, NULL);
	if (err) {
		rift_srv_path_fail(path, "cannot send a credit answer: %d", err);
		return;
	}
	this_cpu_add(path->stats->credits, nr_msgs);
}

/* The answer, at most once per RIFT_SRV_CREDIT_INTERVAL_MS per path. */
static void rift_srv_credit_work(struct work_struct *work)
{
	struct rift_srv_path *path = container_of(to_delayed_work(work),
						  struct rift_srv_path, credit_work);

	if (READ_ONCE(path->state) != RIFT_SRV_PATH_CONNECTED)
		return;
	/* The close work waits for this before it destroys the QPs. */
	if (!percpu_ref_tryget_live(&path->io_ref))
		return;
	rift_srv_credit_answer(path);
	percpu_ref_put(&path->io_ref);
}

/**
 * rift_srv_credit_req() - a CREDIT_REQ arrived
 * @con: connection it came on
 * @imm: the decoded immediate
 *
 * Softirq (receive completion).  The answer is sent from a work item,
 * delayed to keep the per-path interval: at most one request is ever
 * unanswered, so at most one answer (four messages) is on its way to
 * the client's receives.
 *
 * Return: false after failing the path.
 */
bool rift_srv_credit_req(struct rift_srv_con *con, const struct rift_imm *imm)
{
	struct rift_srv_path *path = con->path;
	unsigned long due, flags;

	if (!path->credits) {
		rift_srv_path_fail(path, "unexpected message type %u", imm->type);
		return false;
	}
	if (con->idx || imm->chunk || !rift_proto_credit_want_ok(imm->want, path->queue_depth)) {
		rift_srv_path_fail(path, "malformed credit request");
		return false;
	}
	spin_lock_irqsave(&path->cr_lock, flags);
	if (path->cr_req_out) {
		spin_unlock_irqrestore(&path->cr_lock, flags);
		rift_srv_path_fail(path, "credit request flood");
		return false;
	}
	path->cr_req_out = true;
	path->cr_want = imm->want;
	due = path->cr_last + msecs_to_jiffies(RIFT_SRV_CREDIT_INTERVAL_MS);
	spin_unlock_irqrestore(&path->cr_lock, flags);
	this_cpu_inc(path->stats->credit_reqs);
	queue_delayed_work(rift_srv_hb_wq, &path->credit_work,
			   time_after(due, jiffies) ? due - jiffies : 0);
	return true;
}

/**
 * rift_srv_credit_rel() - a CREDIT_REL arrived
 * @con: connection it came on
 * @imm: the decoded immediate
 *
 * The chunk is no longer granted: a request naming it fails the path.
 * Its memory and registration stay (step 2); it may be granted again.
 *
 * Return: false after failing the path.
 */
bool rift_srv_credit_rel(struct rift_srv_con *con, const struct rift_imm *imm)
{
	struct rift_srv_path *path = con->path;
	struct rift_srv_op *op;
	unsigned long flags;

	if (!path->credits) {
		rift_srv_path_fail(path, "unexpected message type %u", imm->type);
		return false;
	}
	if (con->idx) {
		rift_srv_path_fail(path, "credit release off connection 0");
		return false;
	}
	spin_lock_irqsave(&path->cr_lock, flags);
	if (imm->chunk >= path->queue_depth || !test_bit(imm->chunk, path->cr_granted)) {
		spin_unlock_irqrestore(&path->cr_lock, flags);
		rift_srv_path_fail(path, "release of a chunk not granted");
		return false;
	}
	/*
	 * At the ULP until its answer is being posted: the client gives a
	 * chunk back only once it has that answer.
	 */
	op = &path->ops[imm->chunk];
	if (test_bit(RIFT_SRV_OP_BUSY, &op->flags) &&
	    !test_bit(RIFT_SRV_OP_POSTING, &op->flags)) {
		spin_unlock_irqrestore(&path->cr_lock, flags);
		rift_srv_path_fail(path, "release of a chunk in use");
		return false;
	}
	clear_bit(imm->chunk, path->cr_granted);
	path->nr_granted--;
	spin_unlock_irqrestore(&path->cr_lock, flags);
	this_cpu_inc(path->stats->credit_rels);
	return true;
}

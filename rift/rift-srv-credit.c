// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: memory credits (RIFT_FEAT_CREDITS).  A path instance's
 * chunks are granted to its client: INFO_RSP's chunk table is the initial
 * grant (credit_floor), a CREDIT_REQ is answered with more, a CREDIT_REL
 * gives one back.  A request may only name a granted chunk.
 *
 * Step 3 of Documentation/design/memory-credits.rst: a chunk exists only
 * while it is granted (or on its way back to the budget): an answer
 * allocates and registers what it grants (rift-srv-pool.c), a CREDIT_REL
 * hands the chunk to the pool work, which, once the answers that used it
 * are complete on the device, invalidates its key and frees it, and the
 * same work revokes an idle path down to its floor.  While a
 * revoke is pending an answer is held back, so that every CREDIT_REL the
 * revoke asked for has arrived before the answer's count is taken (the
 * counts would otherwise differ without anyone misbehaving).  Receives
 * are still posted for the whole queue depth at connect.
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
 * @path: admitted path, in its INFO work: without @credits its whole
 *	queue depth is allocated already (rift_srv_path_alloc_chunks()); with
 *	them only its ops and per-id tables, the chunks of the initial grant
 *	come afterwards (rift_srv_pool_admit())
 * @credits: the client offered %RIFT_FEAT_CREDITS and the server accepts it
 * @floor: credit_floor as read for this admission (0: feature off)
 *
 * Without credits every chunk is granted, as before the feature, so the
 * IO path checks the grant the same way for every client.
 *
 * Return: the chunks INFO_RSP's table announces, or -ENOMEM.
 */
int rift_srv_credit_setup(struct rift_srv_path *path, bool credits, u32 floor)
{
	u16 qd = path->queue_depth;
	u32 g = rift_credit_srv_floor(qd, floor);
	u16 i;

	path->cr_granted = bitmap_zalloc(qd, GFP_KERNEL);
	if (!path->cr_granted)
		return -ENOMEM;
	if (credits && g) {
		path->credits = true;
		path->cr_floor = g;
		path->cr_idle_ms = rift_srv_param_credit_idle_ms();
		path->cr_rev_tx = rift_iu_alloc(path->ib_dev, RIFT_CREDIT_MAX_LEN,
						DMA_TO_DEVICE, NULL);
		if (!path->cr_rev_tx)
			return -ENOMEM;
		/* Sent with connection 0's tx_cqe: no handler of their own. */
		for (i = 0; i < RIFT_CREDIT_MAX_MSGS; i++) {
			path->cr_tx[i] = rift_iu_alloc(path->ib_dev, RIFT_CREDIT_MAX_LEN,
						       DMA_TO_DEVICE, NULL);
			if (!path->cr_tx[i])
				return -ENOMEM;
		}
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
 * Frees the answers' buffers, mapped for the path's device, and kills
 * every chunk's key (rift_srv_pool_stop()); the grant itself goes with
 * the path's memory (rift_srv_credit_free()).
 */
void rift_srv_credit_stop(struct rift_srv_path *path)
{
	unsigned int i;

	cancel_delayed_work_sync(&path->credit_work);
	rift_srv_pool_stop(path);
	for (i = 0; i < RIFT_CREDIT_MAX_MSGS; i++) {
		rift_iu_free(path->ib_dev, path->cr_tx[i]);
		path->cr_tx[i] = NULL;
	}
	rift_iu_free(path->ib_dev, path->cr_rev_tx);
	path->cr_rev_tx = NULL;
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
 * An acquire: a caller that sees the bit reads the chunk's memory,
 * scatterlist and segment array next, which rift_srv_credit_answer()
 * publishes before the bit (its smp_wmb()).
 *
 * Return: whether @chunk is granted to the client.
 */
bool rift_srv_credit_granted(struct rift_srv_path *path, u16 chunk)
{
	return test_bit_acquire(chunk, path->cr_granted);
}

/*
 * Give the chunks the answer grants memory and a registration, before
 * anything is counted: allocation sleeps.  Up to @n chunk ids without
 * memory, lowest first (a chunk on its way back keeps its id until its
 * key is dead); stops early when the budget is short.  Returns the ids
 * in @ids and their REG_MRs, chained, in @regs.
 */
static u16 rift_srv_credit_alloc(struct rift_srv_path *path, u16 n, u16 *ids,
				 struct ib_reg_wr *regs)
{
	unsigned long bit = 0;
	u16 k = 0;

	lockdep_assert_held(&path->cr_mutex);
	while (k < n) {
		bit = find_next_zero_bit(path->cr_present, path->queue_depth, bit);
		if (bit >= path->queue_depth ||
		    rift_srv_pool_chunk_get(path, bit, &regs[k]))
			break;
		if (k)
			regs[k - 1].wr.next = &regs[k].wr;
		ids[k++] = bit++;
	}
	return k;
}

/*
 * Answer the outstanding CREDIT_REQ: allocate and register the chunks
 * (rift-srv-pool.c), mark them granted before the client can hear of
 * them (it may send a request on one as soon as the message arrives),
 * encode one to four messages, and post them in one chain on connection
 * 0 behind the REG_MRs of the new chunks (in order on the QP: the keys
 * are valid before the client learns them).  The request stops being
 * outstanding before the post: the client may ask again as soon as it
 * has the last message.  The message buffers are rewritten only by the
 * next answer, which needs the next CREDIT_REQ, which the client sends
 * only after it received this answer's last message: by then the device
 * has read them.  While a revoke is pending the answer waits: the
 * CREDIT_REL that ends the revoke queues it again.
 */
static void rift_srv_credit_answer(struct rift_srv_path *path)
{
	struct rift_srv_con *con = &path->cons[0];
	struct ib_send_wr wrs[RIFT_CREDIT_MAX_MSGS] = {};
	struct ib_reg_wr regs[RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS];
	u16 ids[RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS];
	struct ib_sge sges[RIFT_CREDIT_MAX_MSGS];
	struct rift_imm imm = { .type = RIFT_IMM_CREDIT };
	struct ib_send_wr *first = wrs;
	struct rift_credit c;
	u16 n, full, nr_msgs, i, k, got, next = 0;
	unsigned long flags;
	__be32 imm_data;
	int len, err;

	if (rift_imm_encode(&imm, &imm_data))
		return;
	mutex_lock(&path->cr_mutex);
	spin_lock_irqsave(&path->cr_lock, flags);
	if (path->cr_revoking || !path->cr_req_out) {
		spin_unlock_irqrestore(&path->cr_lock, flags);
		goto out;
	}
	n = rift_credit_srv_grant_nr(path->queue_depth, path->nr_granted, path->cr_want,
				     rift_srv_pool_room_chunks(path));
	/*
	 * What the same request would get from a budget without limit,
	 * from the same counts (under the same lock, so that only the
	 * budget tells the two apart): an answer below it is short.
	 */
	full = rift_credit_srv_grant_nr(path->queue_depth, path->nr_granted, path->cr_want,
					U32_MAX);
	spin_unlock_irqrestore(&path->cr_lock, flags);
	got = rift_srv_credit_alloc(path, n, ids, regs);

	spin_lock_irqsave(&path->cr_lock, flags);
	/*
	 * The new chunks' pointers, scatterlists, MRs and segment arrays
	 * (rift_srv_pool_chunk_get()) are stored before their grant bits:
	 * rift_srv_op_start() reads them once it saw the bit, with acquire.
	 * The lock's acquire alone does not order earlier stores.
	 */
	smp_wmb();
	nr_msgs = max_t(u16, 1, DIV_ROUND_UP(got, RIFT_CREDIT_MAX_GRANTS));
	for (i = 0; i < nr_msgs; i++) {
		memset(&c, 0, sizeof(c));
		c.flags = RIFT_CREDIT_F_ANSWER | (i + 1 < nr_msgs ? RIFT_CREDIT_F_MORE : 0);
		for (k = 0; k < RIFT_CREDIT_MAX_GRANTS && next < got; k++, next++) {
			u16 bit = ids[next];

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
			goto out;
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
	if (got) {
		regs[got - 1].wr.next = wrs;
		first = &regs[0].wr;
	}
	if (rift_con_signal_n(&con->c, nr_msgs + got))
		wrs[nr_msgs - 1].send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(con->c.qp, first, NULL);
	if (err) {
		rift_srv_path_fail(path, "cannot send a credit answer: %d", err);
		goto out;
	}
	this_cpu_add(path->stats->credits, nr_msgs);
	/*
	 * Against what was allocated, not n: a failed allocation leaves
	 * the client as short as a full budget does.  The client cannot
	 * tell either from a grant that sufficed, and a path kept on few
	 * chunks can have requests time out waiting for one: this is how
	 * an administrator sees it.
	 */
	if (got < full)
		this_cpu_inc(path->stats->credit_short);
	/* Above the floor now: the pool work watches it for idleness. */
	if (got)
		rift_srv_pool_grown(path);
out:
	mutex_unlock(&path->cr_mutex);
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
 * Receive completion, in the connection's CQ work.  The answer is sent
 * from a work item, delayed to keep the per-path interval: at most one
 * request is ever unanswered, so at most one answer (four messages) is on
 * its way to the client's receives.
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
	/*
	 * The client's instance is ready for CREDITs, revokes included; and
	 * one that asks is not idle.
	 */
	WRITE_ONCE(path->cr_ready, true);
	WRITE_ONCE(path->cr_last_rx, jiffies);
	due = path->cr_last + msecs_to_jiffies(RIFT_SRV_CREDIT_INTERVAL_MS);
	spin_unlock_irqrestore(&path->cr_lock, flags);
	this_cpu_inc(path->stats->credit_reqs);
	queue_delayed_work(rift_srv_credit_wq, &path->credit_work,
			   time_after(due, jiffies) ? due - jiffies : 0);
	return true;
}

/**
 * rift_srv_credit_rel() - a CREDIT_REL arrived
 * @con: connection it came on
 * @imm: the decoded immediate
 *
 * The chunk is no longer granted: a request naming it fails the path.
 * The pool work invalidates its key and gives its memory back to the
 * budget; a revoke the release completes lets a held answer go.
 *
 * Return: false after failing the path.
 */
bool rift_srv_credit_rel(struct rift_srv_con *con, const struct rift_imm *imm)
{
	struct rift_srv_path *path = con->path;
	struct rift_srv_op *op;
	unsigned long flags;
	bool held;

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
	/* Else no later CREDIT could be encoded (granted below the floor). */
	if (!rift_credit_srv_rel_ok(path->queue_depth, path->nr_granted)) {
		spin_unlock_irqrestore(&path->cr_lock, flags);
		rift_srv_path_fail(path, "release below the floor");
		return false;
	}
	/*
	 * The grant goes first, then the op is looked at: a request on the
	 * chunk that crosses the release (rift_srv_op_start() sets BUSY and
	 * clears POSTING, then looks at the grant, a full barrier between)
	 * either finds the grant gone and fails the path, or is seen here
	 * and the release fails it.  Tested the other way round, a request
	 * taking the op between the test and the clear would reach the ULP
	 * on a chunk given back (Dekker: each side stores, then loads what
	 * the other stored).
	 */
	clear_bit(imm->chunk, path->cr_granted);
	path->nr_granted--;
	/* The grant's clear before the looks at BUSY and POSTING: above. */
	smp_mb();
	/*
	 * At the ULP until its answer is being posted: the client gives a
	 * chunk back only once it has that answer.  Its answer having been
	 * posted (BUSY clear, or POSTING) does not mean the device is done
	 * with the chunk: a read's WRITEs or an always-invalidate REG_MR may
	 * still be queued on its connection.  The pool frees it only once
	 * they completed (rift_srv_pool_reclaim(), the op's tx_out).  A
	 * release that fails leaves the chunk out of cr_reclaim: the path's
	 * teardown frees it once the ULP answered.
	 */
	op = &path->ops[imm->chunk];
	if (test_bit(RIFT_SRV_OP_BUSY, &op->flags) &&
	    !test_bit(RIFT_SRV_OP_POSTING, &op->flags)) {
		spin_unlock_irqrestore(&path->cr_lock, flags);
		rift_srv_path_fail(path, "release of a chunk in use");
		return false;
	}
	/*
	 * The pool work invalidates its key once its answers are complete
	 * on the device, then frees it.
	 */
	set_bit(imm->chunk, path->cr_reclaim);
	held = false;
	if (path->cr_revoking && path->nr_granted <= path->cr_keep) {
		path->cr_revoking = false;
		held = path->cr_req_out;
	}
	spin_unlock_irqrestore(&path->cr_lock, flags);
	this_cpu_inc(path->stats->credit_rels);
	rift_srv_pool_kick(path);
	/* An answer held back by the revoke: the interval is long over. */
	if (held)
		mod_delayed_work(rift_srv_credit_wq, &path->credit_work, 0);
	return true;
}

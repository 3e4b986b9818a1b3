// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: the chunks of a path.  A request holds a chunk of the path
 * it is posted on, taken here when it is posted and given back when it
 * leaves the path; a response is mapped to its request through the chunk
 * it names, on the path it came on.  Permits are the session's and bound
 * how many requests are in flight; chunks are a path instance's and say
 * where on the server a request sits.  The two are not the same number:
 * a server that grants a path fewer chunks than the session has permits
 * (memory credits, Documentation/design/memory-credits.rst) only changes
 * how many chunks this file may hand out.
 *
 * A timed-out request's chunk becomes an orphan: the server may still
 * answer it, and until then its late RDMA (a bounced read's data lands in
 * the chunk's staging slot) and its response belong to the old request.
 * The orphan keeps the chunk out of use, and the request's permit out of
 * the pool, until the server's late answer or the end of the path
 * instance gives it back; no new request can take the chunk meanwhile.
 * Only the late answer itself gives it back: on the connection the
 * request went on, whose QP alone orders the request's late RDMA before
 * it, and with RSP_GEN echoing the request's generation.  Any other
 * response naming the orphan fails the path and leaves it an orphan.
 *
 * The arrays are allocated with the path for the queue depth the session
 * asks for, which bounds every chunk table a server may announce
 * (rift_proto_con_rsp_decode()), and live as long as the path: a
 * completion of a new instance's connections can then never see them
 * freed, whatever a hostile server sends before the instance is ready.
 *
 * Memory credits (RIFT_FEAT_CREDITS): the server grants a path instance
 * some of its chunk ids (INFO_RSP's table, then CREDIT answers) and may
 * ask some back (a revoke).  A chunk not granted is kept taken in
 * chunk_map (reserved), so the allocator above never hands it out; a
 * grant clears its bit, a chunk given back keeps it set.  The grant's
 * state machine is the codec's (rift_credit_clt_*(), unit-tested), kept
 * under chunk_lock; CREDIT_REQ and CREDIT_REL go out from here, on
 * connection 0, only while the path is connected (its teardown waits
 * for the RCU section they are sent in).  Without the feature every
 * chunk is granted and none of this sends anything.
 *
 * This file calls into the path state (to fail a path) and the failover
 * queue (to wake requests waiting for a chunk) only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "rift-clt.h"

/**
 * rift_clt_chunks_alloc() - allocate a path's chunk bookkeeping
 * @path: new path of a session whose requested queue depth is set
 *
 * Return: 0 or -ENOMEM; rift_clt_chunks_free() frees a partial result.
 */
int rift_clt_chunks_alloc(struct rift_clt_path *path)
{
	u32 cap = path->sess->req_queue_depth;

	spin_lock_init(&path->chunk_lock);
	path->chunk_map = bitmap_zalloc(cap, GFP_KERNEL);
	path->orphans = bitmap_zalloc(cap, GFP_KERNEL);
	path->chunk_reqs = kcalloc(cap, sizeof(*path->chunk_reqs), GFP_KERNEL);
	path->chunk_gens = kcalloc(cap, sizeof(*path->chunk_gens), GFP_KERNEL);
	path->orphan_cons = kcalloc(cap, sizeof(*path->orphan_cons), GFP_KERNEL);
	path->cr_granted = kzalloc(cap, GFP_KERNEL);
	if (!path->chunk_map || !path->orphans || !path->chunk_reqs ||
	    !path->chunk_gens || !path->orphan_cons || !path->cr_granted)
		return -ENOMEM;
	path->chunks_cap = cap;
	return 0;
}

/**
 * rift_clt_chunks_free() - free what rift_clt_chunks_alloc() allocated
 * @path: path being released
 */
void rift_clt_chunks_free(struct rift_clt_path *path)
{
	bitmap_free(path->chunk_map);
	bitmap_free(path->orphans);
	kfree(path->chunk_reqs);
	kfree(path->chunk_gens);
	kfree(path->orphan_cons);
	kfree(path->cr_granted);
	path->chunks_cap = 0;
}

/**
 * rift_clt_chunks_reset() - no chunk of a path may be named any more
 * @path: path whose last instance is closed, orphans released
 * @nr_chunks: chunks the new instance's INFO_RSP announced; 0 when the
 *	instance just closed
 *
 * None may be taken, and a response or rkey naming any fails the path,
 * until rift_clt_chunks_set_usable() says how many of them the session's
 * queue depth lets requests use.  So the chunk table may be replaced
 * meanwhile, also while a hostile server sends responses before the new
 * instance is ready.
 *
 * Return: 0, or -EPROTO if @nr_chunks exceeds what the client asked for.
 */
int rift_clt_chunks_reset(struct rift_clt_path *path, u32 nr_chunks)
{
	if (nr_chunks > path->chunks_cap)
		return -EPROTO;
	/*
	 * Nothing to clear: the last instance's teardown gave back every
	 * request's chunk and every orphan.  The one holder that may
	 * outlive it is the stale-rkey probe, whose chunk
	 * rift_clt_chunks_set_usable() takes back (see there).
	 */
	WRITE_ONCE(path->nr_usable, 0);
	return 0;
}

/**
 * rift_clt_chunks_set_usable() - how many chunks requests may take
 * @path: path that adopted the session's limits, not yet connected
 * @queue_depth: the session's queue depth
 *
 * Every permit prefers one chunk, the permits spread over the chunks
 * one to one, starting at an offset that moves with every path instance.
 * With a chunk per permit, as servers without memory credits grant, a
 * request thus finds its preferred chunk free, so taking one costs a
 * single atomic bit operation, unless a timed-out request's orphan holds
 * it: its ULP may use the permit again before the late answer came, and
 * the permit then holds two chunks, leaving some permit without a free
 * one for a while (rift_clt_chunk_freed() wakes it).  The offset makes
 * chunk ids and permit ids differ on almost every instance, so that
 * nothing can quietly rely on them being equal.
 *
 * The grant starts as the INFO_RSP's table (@path->cr_initial chunks):
 * the chunks beyond it are reserved until granted.
 */
void rift_clt_chunks_set_usable(struct rift_clt_path *path, u32 queue_depth)
{
	u32 n = min(path->nr_chunks, queue_depth), id;
	unsigned long flags;

	spin_lock_irqsave(&path->chunk_lock, flags);
	/*
	 * The last instance's reservations go, and so does a chunk the
	 * stale-rkey probe may still hold: its WR went on a QP that is gone,
	 * and the new epoch makes its rift_clt_chunk_put_id() a no-op, so it
	 * can never free a chunk a request of this instance took.  No
	 * request of this instance runs yet.
	 */
	path->chunk_epoch++;
	bitmap_zero(path->chunk_map, path->chunks_cap);
	memset(path->cr_granted, 0, path->chunks_cap);
	rift_credit_clt_init(&path->cr, path->cr_granted, path->nr_chunks,
			     path->cr_initial, path->chunk_size, n);
	for (id = 0; id < n; id++)
		if (!path->cr_granted[id])
			set_bit(id, path->chunk_map);
	WRITE_ONCE(path->cr_owed, 0);
	atomic_set(&path->cr_in_use, 0);
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	path->chunk_hint = n ? path->reconnect_gen % n : 0;
	/*
	 * Published last: a completion that sees the count sees the chunk
	 * table and rkeys of this instance (rift_clt_nr_usable()).
	 */
	smp_store_release(&path->nr_usable, n);
}

/* Take chunk @id if it is free. */
static bool rift_clt_chunk_try(struct rift_clt_path *path, u32 id)
{
	return !test_and_set_bit_lock(id, path->chunk_map);
}

/* The completion handler of CREDIT_REQ and CREDIT_REL sends. */
static void rift_clt_credit_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_con *c = wc->qp->qp_context;

	if (unlikely(wc->status != IB_WC_SUCCESS))
		rift_clt_path_fail(container_of(c, struct rift_clt_con, c)->path,
				   "%s", ib_wc_status_msg(wc->status));
}

static struct ib_cqe rift_clt_credit_cqe = {
	.done = rift_clt_credit_tx_done,
};

/*
 * Send a credit message on connection 0, if the path is connected: its
 * teardown waits for this RCU section before it drains the QP.  A
 * message a dying instance cannot send is moot: its grant dies with it.
 */
static void rift_clt_credit_send(struct rift_clt_path *path, const struct rift_imm *imm)
{
	rcu_read_lock();
	if (rift_clt_path_get_state(path) == RIFT_CLT_PATH_CONNECTED &&
	    rift_con_send_imm(&path->cons[RIFT_CLT_CON_CTL].c, &rift_clt_credit_cqe, imm))
		rift_clt_path_fail(path, "cannot send a credit message");
	rcu_read_unlock();
}

/*
 * Ask for more chunks (CREDIT_REQ) if the grant's rules say so: when a
 * request found none free (@starved), or when three quarters of the grant
 * are in use; never with one outstanding or a revoke pending.
 */
static void rift_clt_credit_ask(struct rift_clt_path *path, bool starved)
{
	struct rift_imm imm = { .type = RIFT_IMM_CREDIT_REQ };
	u32 in_use = max(atomic_read(&path->cr_in_use), 0);
	unsigned long flags;
	bool ask;

	/* Lock-free first: most requests find nothing to ask for. */
	if (READ_ONCE(path->cr.req_out) ||
	    READ_ONCE(path->cr.nr_granted) >= READ_ONCE(path->cr.usable) ||
	    (!starved && 4 * in_use < 3 * (u32)READ_ONCE(path->cr.nr_granted)))
		return;
	spin_lock_irqsave(&path->chunk_lock, flags);
	ask = rift_clt_nr_usable(path) &&
	      rift_credit_clt_should_ask(&path->cr, in_use, starved);
	if (ask) {
		imm.want = rift_credit_clt_want(&path->cr, in_use,
						READ_ONCE(path->sess->nr_pending) + starved);
		rift_credit_clt_asked(&path->cr);
	}
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	if (!ask)
		return;
	this_cpu_inc(path->stats->credit_reqs);
	rift_clt_credit_send(path, &imm);
}

/**
 * rift_clt_credit_starved() - a request found no free chunk on a path
 * @path: connected path the multipath policy picked
 *
 * With memory credits this asks the server for more (the request waits
 * for a chunk in the failover queue meanwhile).  Without, it happens only
 * while orphans hold chunks of permits that were used again; the request
 * waits for a chunk put then, and nothing is sent.
 */
void rift_clt_credit_starved(struct rift_clt_path *path)
{
	if (READ_ONCE(path->credits))
		rift_clt_credit_ask(path, true);
}

/**
 * rift_clt_chunk_get() - give a request a chunk of the path it goes on
 * @path: connected path
 * @req: request about to be posted on @path
 *
 * Sets @req->chunk and the chunk's generation for @req (@req->gen).  The
 * chunk is @req's until rift_clt_req_release() gives it back, or, if the
 * request times out, until its orphan is released.  While a revoke still
 * asks chunks back, none is handed out: every free one went back already,
 * so the chunks in use are more than the server lets the path keep.
 *
 * Return: 0, -EAGAIN if the path has no instance ready, -ENOBUFS if no
 * granted chunk of @path is free (the request may wait for one).
 */
int rift_clt_chunk_get(struct rift_clt_path *path, struct rift_clt_req *req)
{
	u32 n = rift_clt_nr_usable(path), id;
	u16 gen;

	if (!n)
		return -EAGAIN;
	if (unlikely(READ_ONCE(path->cr_owed)))
		return -ENOBUFS;
	id = (req->permit_id + path->chunk_hint) % n;
	while (!rift_clt_chunk_try(path, id)) {
		/*
		 * The hint's chunk is taken: by another request on this
		 * path, a chunk kept as an orphan, or one the server's grant
		 * does not cover.
		 */
		id = find_first_zero_bit(path->chunk_map, n);
		if (id >= n)
			return -ENOBUFS;
	}
	if (READ_ONCE(path->credits)) {
		atomic_inc(&path->cr_in_use);
		rift_clt_credit_ask(path, false);
	}
	WRITE_ONCE(path->chunk_reqs[id], req);
	/* A response on another chunk may be looking at @req right now. */
	WRITE_ONCE(req->chunk, id);
	req->orphaned = false;
	/*
	 * A new generation per request on the chunk, so that a CANCEL of
	 * the last one cannot cancel this one (CANCEL_GEN) and a copy of
	 * its answer cannot complete this one (RSP_GEN).  Only the chunk's
	 * holder changes it; a CQ may read it meanwhile (a duplicate's
	 * check, rift_clt_rsp()).  Released with the request's state: the
	 * timeout that sees it POSTED sends this request's gen.
	 */
	gen = path->chunk_gens[id] + 1;
	WRITE_ONCE(path->chunk_gens[id], gen);
	WRITE_ONCE(req->gen, gen);
	return 0;
}

/**
 * rift_clt_chunk_get_id() - take one given chunk, for no request
 * @path: connected path
 * @id: chunk
 * @epoch: set to the path instance's chunk epoch, for
 *	rift_clt_chunk_put_id()
 *
 * For the stale-rkey probe, which writes into a chunk no request may use
 * meanwhile.  A response naming the chunk finds no request and fails the
 * path.  Under the chunk lock, so that the chunk and @epoch belong to the
 * same instance (rift_clt_chunks_set_usable() changes both under it).
 *
 * Return: true if @id was free and is taken now.
 */
bool rift_clt_chunk_get_id(struct rift_clt_path *path, u32 id, u32 *epoch)
{
	unsigned long flags;
	bool taken;

	spin_lock_irqsave(&path->chunk_lock, flags);
	taken = id < rift_clt_nr_usable(path) && rift_clt_chunk_try(path, id);
	if (taken) {
		*epoch = path->chunk_epoch;
		if (path->credits)
			atomic_inc(&path->cr_in_use);
	}
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	return taken;
}

/*
 * A revoke asks chunks back: give @id back (CREDIT_REL) if it is still
 * free and still owed.  It was free when the caller looked; whoever takes
 * its bit first owns it, so a request that took it meanwhile keeps it
 * and its release comes here again.
 */
static void rift_clt_credit_give_back(struct rift_clt_path *path, u32 id)
{
	struct rift_imm imm = { .type = RIFT_IMM_CREDIT_REL, .chunk = id };
	unsigned long flags;
	bool rel = false;

	spin_lock_irqsave(&path->chunk_lock, flags);
	if (rift_credit_clt_owed(&path->cr) && path->cr_granted[id] &&
	    rift_clt_chunk_try(path, id)) {
		/* Its bit stays set: a chunk not granted is reserved. */
		rift_credit_clt_give_back(&path->cr, id);
		WRITE_ONCE(path->cr_owed, rift_credit_clt_owed(&path->cr));
		rel = true;
	}
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	if (rel) {
		this_cpu_inc(path->stats->credit_rels);
		rift_clt_credit_send(path, &imm);
	}
}

/*
 * A chunk was given back: a revoke may take it, waiting requests may.
 * Every put comes here, with memory credits or without: a permit whose
 * timed-out request's chunk is still an orphan may carry a new request,
 * so the chunks in use can outnumber the permits held and a request can
 * find none free on a path that grants one per permit too.  It waits in
 * the failover queue, and without this kick would only be posted by the
 * failover work's next retry.
 */
static void rift_clt_chunk_freed(struct rift_clt_path *path, u32 id)
{
	/*
	 * Pairs with the barrier of a revoke between its owed count and its
	 * scan: either it saw this chunk free, or this sees the debt.  It
	 * also puts the free bit before the look at the waiters; one that
	 * parks after the look is left to the failover work's retry.
	 */
	smp_mb__after_atomic();
	if (unlikely(READ_ONCE(path->cr_owed)))
		rift_clt_credit_give_back(path, id);
	if (READ_ONCE(path->sess->nr_pending))
		rift_clt_sess_kick_failover(path->sess);
}

/**
 * rift_clt_chunk_put() - give a chunk back
 * @path: its path
 * @id: chunk taken by rift_clt_chunk_get(), of the path instance that is
 *	current (its requests and orphans are all given back before the next
 *	instance's rift_clt_chunks_set_usable())
 *
 * Requests waiting for a chunk are woken (rift_clt_chunk_freed()); with
 * memory credits a pending revoke takes the chunk back to the server
 * instead.  The chunk is granted: a request can only take a granted one,
 * and a revoke gives back none in use, so nothing here reads the grant,
 * which rift_clt_chunks_set_usable() rewrites under the chunk lock.
 */
void rift_clt_chunk_put(struct rift_clt_path *path, u32 id)
{
	WRITE_ONCE(path->chunk_reqs[id], NULL);
	clear_bit_unlock(id, path->chunk_map);
	if (READ_ONCE(path->credits))
		atomic_dec(&path->cr_in_use);
	rift_clt_chunk_freed(path, id);
}

/**
 * rift_clt_chunk_put_id() - give back a chunk rift_clt_chunk_get_id() took
 * @path: its path
 * @id: the chunk
 * @epoch: the epoch rift_clt_chunk_get_id() returned
 *
 * The stale-rkey probe may give its chunk back after the path instance it
 * took it from is gone and the next one's rift_clt_chunks_set_usable()
 * ran: that one took the chunk back already and a request of the new
 * instance may hold it now, so a put of an older epoch does nothing.
 * Checked and cleared under the chunk lock, which orders it against
 * rift_clt_chunks_set_usable().
 */
void rift_clt_chunk_put_id(struct rift_clt_path *path, u32 id, u32 epoch)
{
	unsigned long flags;

	spin_lock_irqsave(&path->chunk_lock, flags);
	if (epoch != path->chunk_epoch) {
		spin_unlock_irqrestore(&path->chunk_lock, flags);
		return;
	}
	clear_bit_unlock(id, path->chunk_map);
	if (path->credits)
		atomic_dec(&path->cr_in_use);
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	rift_clt_chunk_freed(path, id);
}

/**
 * rift_clt_chunk_granted() - may a response name this chunk?
 * @path: path the response came on
 * @id: chunk id, below rift_clt_nr_usable()
 *
 * Return: whether @id is granted to the path instance (always, without
 * memory credits).
 */
bool rift_clt_chunk_granted(struct rift_clt_path *path, u32 id)
{
	return READ_ONCE(path->cr_granted[id]);
}

/*
 * A revoke became pending: give back the free chunks at once, highest ids
 * first (the ones beyond what requests may use, then the usable ones);
 * the ones in use follow as their requests leave them (chunk put), the
 * orphans once their late answers came.  Called under chunk_lock.
 */
static u32 rift_clt_credit_revoke(struct rift_clt_path *path, u16 *rel, u32 cap)
{
	u32 n = rift_clt_nr_usable(path), id, nr = 0;

	WRITE_ONCE(path->cr_owed, rift_credit_clt_owed(&path->cr));
	/* Pairs with the barrier in rift_clt_chunk_put(). */
	smp_mb();
	for (id = path->cr.queue_depth; id-- > 0 && rift_credit_clt_owed(&path->cr) && nr < cap;) {
		if (!path->cr_granted[id])
			continue;
		if (id < n && !rift_clt_chunk_try(path, id))
			continue;
		/* Beyond the usable ones a granted chunk's bit is never used. */
		if (id >= n)
			set_bit(id, path->chunk_map);
		rift_credit_clt_give_back(&path->cr, id);
		rel[nr++] = id;
	}
	WRITE_ONCE(path->cr_owed, rift_credit_clt_owed(&path->cr));
	return nr;
}

/**
 * rift_clt_credit_rx() - a CREDIT message arrived on connection 0
 * @path: its path
 * @buf: payload, synced for the CPU
 * @len: bytes received
 *
 * Any CREDIT before the path instance is connected is unsolicited;
 * later ones are checked against the grant (rift_credit_clt_check());
 * grants are stored (address, key) before their chunks become free to
 * take; a revoke gives back the free chunks it asks for now.
 *
 * Return: NULL, or the reason to fail the path with.
 */
const char *rift_clt_credit_rx(struct rift_clt_path *path, const void *buf, u32 len)
{
	u16 rel[64];
	enum rift_credit_fault f;
	struct rift_credit c;
	unsigned long flags;
	u32 n, i, nr_rel = 0;
	bool more;

	spin_lock_irqsave(&path->chunk_lock, flags);
	n = rift_clt_nr_usable(path);
	/*
	 * Before the instance is ready (connected) nothing can have been
	 * asked for, and nothing could be given back: a revoke accepted
	 * then would mark chunks given back whose CREDIT_RELs
	 * rift_clt_credit_send() drops, as it sends only while connected.
	 * Chunks usable is not enough: they are set before the instance
	 * goes connected.  Once connected a path never is again, so an
	 * instance that fails after this check sends nothing, as it should.
	 */
	if (!n || rift_clt_path_get_state(path) != RIFT_CLT_PATH_CONNECTED)
		f = RIFT_CREDIT_UNSOLICITED;
	else
		f = rift_credit_clt_check(&path->cr, buf, len, &c);
	if (f != RIFT_CREDIT_OK) {
		spin_unlock_irqrestore(&path->chunk_lock, flags);
		return rift_credit_fault_str(f);
	}
	for (i = 0; i < c.nr_grant; i++) {
		struct rift_rbuf *chunk = &path->chunks[c.grant[i].chunk];

		chunk->addr = c.grant[i].addr;
		chunk->len = path->chunk_size;
		WRITE_ONCE(chunk->rkey, c.grant[i].rkey);
	}
	rift_credit_clt_apply(&path->cr, &c);
	/* The table entries above are published by the bit's release. */
	for (i = 0; i < c.nr_grant; i++)
		if (c.grant[i].chunk < n)
			clear_bit_unlock(c.grant[i].chunk, path->chunk_map);
	/* A revoke, or grants that answer a request while one is pending. */
	if (rift_credit_clt_owed(&path->cr)) {
		do {
			nr_rel = rift_clt_credit_revoke(path, rel, ARRAY_SIZE(rel));
			more = nr_rel == ARRAY_SIZE(rel);
			spin_unlock_irqrestore(&path->chunk_lock, flags);
			for (i = 0; i < nr_rel; i++) {
				struct rift_imm imm = {
					.type = RIFT_IMM_CREDIT_REL, .chunk = rel[i],
				};

				this_cpu_inc(path->stats->credit_rels);
				rift_clt_credit_send(path, &imm);
			}
			if (more)
				spin_lock_irqsave(&path->chunk_lock, flags);
		} while (more);
	} else {
		spin_unlock_irqrestore(&path->chunk_lock, flags);
	}
	this_cpu_inc(path->stats->credits);
	/* Requests waiting for a chunk may find one now. */
	if (c.nr_grant && READ_ONCE(path->sess->nr_pending))
		rift_clt_sess_kick_failover(path->sess);
	return NULL;
}

/**
 * rift_clt_chunk_req() - the request that holds a chunk
 * @path: path a response came on
 * @id: chunk the response names, below @path->nr_usable
 *
 * The request may have left the path already (an orphan's timed-out
 * request) or be completing right now: the caller claims it through its
 * state before it believes either.
 *
 * Return: the request, or NULL if none holds @id.
 */
struct rift_clt_req *rift_clt_chunk_req(struct rift_clt_path *path, u32 id)
{
	if (id >= rift_clt_nr_usable(path))
		return NULL;
	return READ_ONCE(path->chunk_reqs[id]);
}

/**
 * rift_clt_chunk_orphan() - claim a timed-out request, orphan its chunk
 * @path: path the request is posted on
 * @req: request seen POSTED for too long
 *
 * One step under the path's chunk lock, so that a response that finds
 * the request no longer POSTED (rift_clt_chunk_unorphan(), under the same
 * lock) also finds the orphan, and the connection its late answer must
 * come on: the request's permit gets a hold of the orphan's, and its
 * chunk stays taken when the request is released (@req->orphaned) until
 * the late answer or the path's end gives it back.  Neither @req's
 * connection nor its generation can stand for the orphan's later: the
 * release clears the one, and the ULP may post the slot again (its
 * permit is its own until it puts it) and change both.
 *
 * Return: true if @req was POSTED and is CANCELLING now; false if a
 * response claimed it first (nothing changed then).
 */
bool rift_clt_chunk_orphan(struct rift_clt_path *path, struct rift_clt_req *req)
{
	unsigned long flags;
	bool claimed;

	spin_lock_irqsave(&path->chunk_lock, flags);
	claimed = atomic_cmpxchg(&req->state, RIFT_CLT_REQ_POSTED,
				 RIFT_CLT_REQ_CANCELLING) == RIFT_CLT_REQ_POSTED;
	if (claimed) {
		atomic_inc(&req->holds);
		req->orphaned = true;
		path->orphan_cons[req->chunk] = req->con->idx;
		set_bit(req->chunk, path->orphans);
	}
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	return claimed;
}

/**
 * rift_clt_chunk_unorphan() - is a response its orphan's late answer?
 * @path: path the response came on
 * @con: connection it came on
 * @imm: the response; its chunk is below rift_clt_nr_usable()
 * @req: set to the orphan's timed-out request when it is
 * @gen: set to the generation the late answer must echo when the chunk
 *	is an orphan of @con's (for the caller's reason)
 *
 * An orphan is given back only for its timed-out request's own answer:
 * on the connection that request went on (RC orders the request's late
 * RDMA before its answer on that QP only) and, with RSP_GEN, echoing its
 * generation (nothing takes an orphan's chunk, so it is the chunk's).  A
 * duplicate of an earlier answer on the chunk, or an answer on another
 * connection, may arrive while the late RDMA is still on its way: the
 * chunk must stay an orphan, and the caller fails the path, whose end
 * gives it back (rift_clt_chunk_release_orphan()).
 *
 * The checks and the clearing of the orphan bit are one step under the
 * chunk lock, the step rift_clt_chunk_orphan() claims the request and
 * sets the bit in: a response that found the request claimed by a
 * timeout (no longer POSTED) before the bit was set waits here for the
 * timeout to finish and judges the orphan it left, never a half-made one.
 *
 * Return: 0 if the response is the late answer: the chunk is no orphan
 * any more but still taken, and the caller stores what the answer brings
 * (an RSP_RKEY's key), gives the chunk back with rift_clt_chunk_put() and
 * drops @req's permit hold (rift_clt_hold_put()).  -ENOENT if the chunk
 * is no orphan, or an orphan of another connection; -ESTALE if it is one
 * of @con's and the response echoes another generation.  The chunk is
 * left as it was on either error.
 */
int rift_clt_chunk_unorphan(struct rift_clt_path *path, struct rift_clt_con *con,
			    const struct rift_imm *imm, struct rift_clt_req **req, u16 *gen)
{
	u32 id = imm->chunk;
	unsigned long flags;
	int ret = -ENOENT;

	spin_lock_irqsave(&path->chunk_lock, flags);
	if (test_bit(id, path->orphans) && path->orphan_cons[id] == con->idx) {
		*gen = path->chunk_gens[id];
		if (rift_proto_rsp_gen_match(imm, rift_clt_rsp_feat(path), *gen)) {
			clear_bit(id, path->orphans);
			*req = path->chunk_reqs[id];
			ret = 0;
		} else {
			ret = -ESTALE;
		}
	}
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	return ret;
}

/**
 * rift_clt_chunk_release_orphan() - the server can no longer answer it
 * @path: path whose connections are all closed
 * @id: one of @path->orphans
 *
 * Gives the chunk back if it is an orphan: with the path instance's QPs
 * gone no late RDMA or answer of its request can arrive.
 *
 * Return: the timed-out request whose permit hold (rift_clt_hold_put())
 * the caller drops now, or NULL if @id is no orphan.
 */
struct rift_clt_req *rift_clt_chunk_release_orphan(struct rift_clt_path *path, u32 id)
{
	struct rift_clt_req *req = NULL;
	unsigned long flags;
	bool orphan;

	if (id >= path->chunks_cap)
		return NULL;
	spin_lock_irqsave(&path->chunk_lock, flags);
	orphan = test_and_clear_bit(id, path->orphans);
	if (orphan)
		req = path->chunk_reqs[id];
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	/*
	 * Out of the lock, which a revoke's give-back takes: the chunk is
	 * still taken, and no longer an orphan, so nothing else touches it.
	 */
	if (orphan)
		rift_clt_chunk_put(path, id);
	return req;
}

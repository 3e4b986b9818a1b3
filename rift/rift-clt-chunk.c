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
 *
 * The arrays are allocated with the path for the queue depth the session
 * asks for, which bounds every chunk table a server may announce
 * (rift_proto_con_rsp_decode()), and live as long as the path: a
 * completion of a new instance's connections can then never see them
 * freed, whatever a hostile server sends before the instance is ready.
 * This file calls into no other.
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
	if (!path->chunk_map || !path->orphans || !path->chunk_reqs ||
	    !path->chunk_gens)
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
	 * outlive it is the stale-rkey probe, which gives its chunk back
	 * once its WR completed; clearing its bit here would let a request
	 * of this instance take the chunk and the probe then free it under
	 * that request.
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
 * With a chunk per permit, as today's servers grant, a request thus
 * always finds its preferred chunk free (chunks in use never outnumber
 * the permits held, an orphan's included), so taking one costs a single
 * atomic bit operation; and the offset makes chunk ids and permit ids
 * differ on almost every instance, so that nothing can quietly rely on
 * them being equal.
 */
void rift_clt_chunks_set_usable(struct rift_clt_path *path, u32 queue_depth)
{
	u32 n = min(path->nr_chunks, queue_depth);

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

/**
 * rift_clt_chunk_get() - give a request a chunk of the path it goes on
 * @path: connected path
 * @req: request about to be posted on @path
 *
 * Sets @req->chunk and the chunk's generation for @req (@req->gen).  The
 * chunk is @req's until rift_clt_req_release() gives it back, or, if the
 * request times out, until its orphan is released.
 *
 * Return: 0, or -EAGAIN if every usable chunk of @path is in use.
 */
int rift_clt_chunk_get(struct rift_clt_path *path, struct rift_clt_req *req)
{
	u32 n = rift_clt_nr_usable(path), id;

	if (!n)
		return -EAGAIN;
	id = (req->permit_id + path->chunk_hint) % n;
	while (!rift_clt_chunk_try(path, id)) {
		/* Only when a server grants fewer chunks than we have permits. */
		id = find_first_zero_bit(path->chunk_map, n);
		if (id >= n)
			return -EAGAIN;
	}
	WRITE_ONCE(path->chunk_reqs[id], req);
	req->chunk = id;
	req->orphaned = false;
	/*
	 * A new generation per request on the chunk, so that a CANCEL of
	 * the last one cannot cancel this one (CANCEL_GEN).  Only the
	 * chunk's holder changes it.  Released with the request's state:
	 * the timeout that sees it POSTED sends this request's gen.
	 */
	path->chunk_gens[id]++;
	WRITE_ONCE(req->gen, path->chunk_gens[id]);
	return 0;
}

/**
 * rift_clt_chunk_get_id() - take one given chunk, for no request
 * @path: connected path
 * @id: chunk
 *
 * For the stale-rkey probe, which writes into a chunk no request may use
 * meanwhile.  A response naming the chunk finds no request and fails the
 * path.
 *
 * Return: true if @id was free and is taken now.
 */
bool rift_clt_chunk_get_id(struct rift_clt_path *path, u32 id)
{
	return id < rift_clt_nr_usable(path) && rift_clt_chunk_try(path, id);
}

/**
 * rift_clt_chunk_put() - give a chunk back
 * @path: its path
 * @id: chunk taken by rift_clt_chunk_get() or rift_clt_chunk_get_id()
 */
void rift_clt_chunk_put(struct rift_clt_path *path, u32 id)
{
	WRITE_ONCE(path->chunk_reqs[id], NULL);
	clear_bit_unlock(id, path->chunk_map);
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
 * lock) also finds the orphan: the request's permit gets a hold of the
 * orphan's, and its chunk stays taken when the request is released
 * (@req->orphaned) until the late answer or the path's end gives it back.
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
		set_bit(req->chunk, path->orphans);
	}
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	return claimed;
}

/**
 * rift_clt_chunk_unorphan() - the server answered an orphan, or cannot
 * @path: path of the orphan
 * @id: chunk a response named, or one of @path->orphans at the path's end
 *
 * Gives the chunk back if it is an orphan: its request's late RDMA came
 * before the answer (RC order), or the path instance is gone.
 *
 * Return: the timed-out request whose permit hold (rift_clt_hold_put())
 * the caller drops now, or NULL if @id is no orphan.
 */
struct rift_clt_req *rift_clt_chunk_unorphan(struct rift_clt_path *path, u32 id)
{
	struct rift_clt_req *req = NULL;
	unsigned long flags;

	if (id >= path->chunks_cap)
		return NULL;
	spin_lock_irqsave(&path->chunk_lock, flags);
	if (test_and_clear_bit(id, path->orphans)) {
		req = path->chunk_reqs[id];
		rift_clt_chunk_put(path, id);
	}
	spin_unlock_irqrestore(&path->chunk_lock, flags);
	return req;
}

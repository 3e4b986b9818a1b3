/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift server: internal structures.
 *
 * Object model: a context (one per rift_srv_open(), i.e. per ULP and port)
 * owns sessions; a session has one or more path instances (one per
 * reconnect generation of a client path); a path instance owns its
 * connections, its chunks with their registrations, one op per chunk and
 * the INFO exchange.  Chunk X of one path instance and chunk X of another
 * are different memory: a client that re-issues a request of a failed
 * path on another one, with the same chunk id, can neither find that
 * chunk busy nor have a late write of the failed path land in it.
 *
 * Lifetimes:
 *  - A session's memory lives as long as its struct device.  The context's
 *    session list holds one reference, every path holds one.
 *  - A path's memory, its chunks and ops included, lives as long as its
 *    kobject.  The session's path list holds one reference (dropped by the
 *    close work once the QPs are destroyed), every queued work item holds
 *    one, and every op handed to the ULP holds one, so rift_srv_resp() can
 *    always look at the path it came from, and a chunk outlives both the
 *    RDMA that may target it and the ULP's use of it.  The memory is freed
 *    by the path's free work, as the last put may come from any context.
 *  - path->io_ref guards posting on the path's QPs from rift_srv_resp():
 *    the close work kills it and waits for it before draining the QPs.
 *    An answer held in a ULP's batch (rift_srv_resp_batch()) keeps it
 *    until the ULP flushes the batch, which the ULP does at once.
 *  - sess->ops_ref counts ops at the ULP, over all paths.  It is killed
 *    when the last path is gone; its release queues the session's release
 *    work, which calls link_ev(DISCONNECTED) and unlinks the session.  The
 *    ULP therefore hears of the end only once the last path is gone and
 *    every op of every path has been answered.
 *
 * Locking order: ctx->lock, sess->lock, path->base.lock.  Control work (INFO,
 * close, session release) runs on one ordered workqueue, which serialises
 * it and lets sysfs names be checked without further locks.
 */
#ifndef _RIFT_SRV_H
#define _RIFT_SRV_H

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/percpu.h>
#include <linux/percpu-refcount.h>
#include <linux/llist.h>
#include <linux/wait.h>
#include <linux/ratelimit.h>

#include <rift/rift.h>
#include "rift-core.h"

/* Receives kept posted per connection beyond one per chunk (HB, HB_ACK). */
#define RIFT_SRV_RX_HEADROOM	16
/* Send WRs per request besides the response: LOCAL_INV and REG_MR. */
#define RIFT_SRV_INV_WRS	2
/* Send WRs budgeted per request for the RDMA WRITEs of a read. */
#define RIFT_SRV_RD_WRS		2
/* Send WRs for control traffic (HB_ACK) per connection. */
#define RIFT_SRV_CTL_WRS	16
/* LOCAL_INVs of chunks given back posted in one chain (memory credits). */
#define RIFT_SRV_POOL_INV_BATCH	16
/* A path that has not finished its INFO exchange by then is closed. */

/**
 * enum rift_srv_cm_kind - what an rdma_cm id's context points at
 * @RIFT_SRV_CM_LISTENER: a context's listener
 * @RIFT_SRV_CM_CON: a connection of a path
 */
enum rift_srv_cm_kind {
	RIFT_SRV_CM_LISTENER,
	RIFT_SRV_CM_CON,
};

/**
 * struct rift_srv_cm_tag - first thing an rdma_cm id's context points at
 * @kind: which object contains the tag
 *
 * Child ids inherit the listener's context until CONNECT_REQUEST points
 * them at their connection, so one handler must tell the two apart.
 */
struct rift_srv_cm_tag {
	enum rift_srv_cm_kind	kind;
};

enum rift_srv_sess_state {
	RIFT_SRV_SESS_CONNECTING,
	RIFT_SRV_SESS_CONNECTED,
	RIFT_SRV_SESS_CLOSING,
	RIFT_SRV_SESS_CLOSED,
	RIFT_SRV_SESS_STATE_NR,
};

enum rift_srv_path_state {
	RIFT_SRV_PATH_CONNECTING,
	RIFT_SRV_PATH_CONNECTED,
	RIFT_SRV_PATH_CLOSING,
	RIFT_SRV_PATH_CLOSED,
	RIFT_SRV_PATH_STATE_NR,
};

enum rift_srv_con_state {
	RIFT_SRV_CON_IDLE,
	RIFT_SRV_CON_CONNECTING,
	RIFT_SRV_CON_CONNECTED,
	RIFT_SRV_CON_CLOSING,
	RIFT_SRV_CON_CLOSED,
	RIFT_SRV_CON_STATE_NR,
};

/**
 * struct rift_srv_ctx - what rift_srv_open() returns
 * @tag: rdma_cm context of the listener
 * @listen_id: the listener
 * @ops: ULP callbacks
 * @priv: ULP data for link_ev, and the default session data for rdma_ev
 * @port: port listened on
 * @lock: guards @sessions and @closing
 * @sessions: sessions of this context
 * @nr_sess: sessions not yet released; rift_srv_close() waits for 0
 * @wait: woken when @nr_sess drops
 * @closing: rift_srv_close() started; new connections are refused
 * @pending: paths not yet CONNECTED (half-open handshakes), counted per
 *	client address against max_pending_per_addr; under @lock
 * @dev_nb: told when an RDMA device goes away (rift_dev_register_notifier())
 */
struct rift_srv_ctx {
	struct rift_srv_cm_tag		tag;
	struct rdma_cm_id		*listen_id;
	const struct rift_srv_ops	*ops;
	void				*priv;
	u16				port;
	struct mutex			lock;	/* sessions, closing */
	struct list_head		sessions;
	atomic_t			nr_sess;
	wait_queue_head_t		wait;
	bool				closing;
	struct list_head		pending;
	struct notifier_block		dev_nb;
};

/* rift_srv_op.flags */
#define RIFT_SRV_OP_BUSY	0
/*
 * The answer is final and being posted; BUSY goes once the post returned.
 * The client may see the answer and send the next request on the chunk
 * before that: rift_srv_op_start() waits for BUSY instead of calling it a
 * protocol violation.  Set by the poster, cleared by the next taker of
 * BUSY (never between the post and the release of BUSY).
 */
#define RIFT_SRV_OP_POSTING	1
/*
 * Answered into a ULP's batch (rift_srv_resp_batch()) and not posted
 * yet: the op is still BUSY, and a second answer is the ULP's bug.
 */
#define RIFT_SRV_OP_HELD	2

/*
 * rift_srv_op.cancel: the generation of the request on the chunk in the
 * low 16 bits (0 without RIFT_FEAT_CANCEL_GEN), and whether the client
 * gave up on it (CANCEL: answer without read data).  One word, so that a
 * CANCEL tests the generation and marks the request in one cmpxchg: a
 * test then a set could mark the next request, when the chunk is reused
 * between the two.
 */
#define RIFT_SRV_OP_GEN_MASK	0xffffU
#define RIFT_SRV_OP_CANCELLED	BIT(16)

/**
 * struct rift_srv_op - one request, preallocated per chunk of a path
 * @flags: RIFT_SRV_OP_BUSY from the request's arrival until its answer is
 *	posted, RIFT_SRV_OP_POSTING from then until the op is taken again
 * @cancel: generation of the request and RIFT_SRV_OP_CANCELLED, see above
 * @sess: session of @path (fixed), for the ULP API
 * @segs: client segments of a read (fixed, RIFT_IO_MAX_SEGS entries)
 * @chunk: chunk id (fixed)
 * @path: owning path (fixed); the op holds a reference on it while busy
 * @con: connection the request arrived on; the response goes there
 * @dir: direction
 * @data_off: payload offset in the chunk
 * @data_len: payload length
 * @usr_len: ULP header length
 * @nr_segs: entries in @segs
 * @rsp_gen: what the answer echoes in its arg bits 15..12: the low bits of
 *	the request's generation with RIFT_FEAT_RSP_GEN, 0 without
 * @sync_len: bytes at the start of the chunk the CPU took ownership of
 * @usr: the ULP header rdma_ev is given: in the chunk, or @usr_copy
 * @usr_copy: always-invalidate: a read's ULP header, copied out of the
 *	chunk before the ULP sees it (the chunk's key is still valid then,
 *	see rift_srv_op_start()); RIFT_USR_LEN_MAX bytes of @path's
 *	@usr_copies, or with credits of the chunk's segment allocation
 * @inv_at_rsp: always-invalidate: the chunk's key was not invalidated on
 *	arrival (a read), so the answer's post invalidates it first
 * @inv_cqe: completion of the chunk MR's local invalidation
 *	(always-invalidate, writes), after which the request goes to the ULP
 * @tx_out: memory credits: answers posted whose WRs read the chunk (a
 *	read's RDMA WRITEs, each with a DMA mapping of its own) or name
 *	its MR (an always-invalidate REG_MR), and whose signalled send has
 *	not completed yet; the pool frees a chunk given back only at 0
 *	(rift-srv-pool.c).  Raised before BUSY goes, so a reclaim that
 *	sees BUSY clear sees it.  0 without credits.
 * @rsp_cqe: completion of such an answer without a read's data (its
 *	always-invalidate REG_MR), which drops @tx_out
 * @resp_work: posts the answer of a ULP that answered from hard interrupt
 *	context (see rift_srv_resp())
 * @resp_err: the answer @resp_work, or the connection's flush, posts
 * @held_node: on the connection's @rsp_held while its answer waits for
 *	the end of the CQ run it was given in (rift_srv_resp_hold())
 * @answers: moved by every rift_srv_resp() on the op, wrapping;
 *	rift_srv_op_deliver() compares it around rdma_ev to tell whether
 *	the ULP answered before it returned an error
 */
struct rift_srv_op {
	unsigned long		flags;
	atomic_t		cancel;
	struct rift_srv_sess	*sess;
	struct rift_rbuf	*segs;
	u16			chunk;
	struct rift_srv_path	*path;
	struct rift_srv_con	*con;
	enum rift_dir		dir;
	u32			data_off;
	u32			data_len;
	u16			usr_len;
	u16			nr_segs;
	u8			rsp_gen;
	u32			sync_len;
	const void		*usr;
	u8			*usr_copy;
	bool			inv_at_rsp;
	struct ib_cqe		inv_cqe;
	atomic_t		tx_out;
	struct ib_cqe		rsp_cqe;
	struct work_struct	resp_work;
	int			resp_err;
	struct llist_node	held_node;
	unsigned int		answers;
};

/**
 * struct rift_srv_sess - a client's session
 * @dev: /sys/class/rift-server/<name>, added once the name is known
 * @paths_kobj: its paths/ directory
 * @entry: in the context's session list
 * @ctx: owning context
 * @uuid: session identity chosen by the client
 * @label: @name once known, else @uuid_str; for log lines
 * @uuid_str: @uuid as text
 * @name: session name from the first INFO_REQ
 * @host_name: the host the session belongs to (first INFO_REQ)
 * @host_uuid: that host's UUID (zero if it sent none)
 * @authenticated: a path proved the host's secret; every later one must
 * @named: @name is set (and never changes again)
 * @state: see enum rift_srv_sess_state; guarded by @lock
 * @lock: guards @paths, @state, @name, @ulp_up, @ops_killed
 * @paths: path instances, closing ones included until their close work ends
 * @ulp_up: link_ev(CONNECTED) was delivered, so DISCONNECTED is owed
 * @ops_killed: @ops_ref was killed (the last path is gone)
 * @priv: data passed to rdma_ev, see rift_srv_set_sess_priv()
 * @port: port of the context
 * @queue_depth: most chunks a path instance of the session gets
 * @chunk_size: bytes per chunk
 * @max_io_size: largest data length of a request
 * @pinned: bytes of chunk memory its path instances hold, closing ones too
 * @writes_refused: read data the client refused, over all path instances
 *	(the instance that saw it closes, and its stats go with it)
 * @ops_ref: ops at the ULP, see the top of this file
 * @release_work: tells the ULP and unlinks the session
 */
struct rift_srv_sess {
	struct device		dev;
	struct kobject		*paths_kobj;
	struct list_head	entry;
	struct rift_srv_ctx	*ctx;
	u8			uuid[RIFT_UUID_LEN];
	const char		*label;
	char			uuid_str[40];
	char			name[RIFT_NAME_MAX + 1];
	char			host_name[RIFT_NAME_MAX + 1];
	u8			host_uuid[RIFT_UUID_LEN];
	bool			authenticated;
	bool			named;
	enum rift_srv_sess_state state;
	struct mutex		lock;	/* paths, state, name */
	struct list_head	paths;
	bool			ulp_up;
	bool			ops_killed;
	void			*priv;
	u16			port;
	u32			queue_depth;
	u32			chunk_size;
	u32			max_io_size;
	atomic64_t		pinned;
	atomic64_t		writes_refused;
	struct percpu_ref	ops_ref;
	struct work_struct	release_work;
};

/**
 * struct rift_srv_con - one connection of a path
 * @tag: rdma_cm context of @c.cm_id
 * @c: verbs state; @c.cm_id is owned from CONNECT_REQUEST on
 * @path: owning path
 * @idx: index within the path
 * @state: see enum rift_srv_con_state; guarded by the path's lock
 * @info_rx: INFO_REQ buffer (connection 0 until INFO_REQ is processed)
 * @tx_cqe: completion of responses to writes and of HB_ACKs
 * @rd_credits: send WRs left for the RDMA WRITEs of reads
 * @rd_parked: read responses whose chain was posted only in part: WRs
 *	already on the QP still use them, so they are freed only once the QP
 *	is drained, before it is destroyed (rift_srv_con_free_parked())
 * @cq_owner: the task running the ULP's rdma_ev from this connection's
 *	CQ work, else NULL: an answer it gives may wait for the run's end
 * @rsp_held: answers given in the CQ work, newest first, for @rsp_flush
 * @rsp_flush: posts @rsp_held once the CQ work is done
 * @rsp_batch: @rsp_flush's batch (rift_srv_path_init_ops(), freed with
 *	the path: the flush's last put may let the path go)
 */
struct rift_srv_con {
	struct rift_srv_cm_tag	tag;
	struct rift_con		c;
	struct rift_srv_path	*path;
	u16			idx;
	enum rift_srv_con_state	state;
	struct rift_iu		*info_rx;
	struct ib_cqe		tx_cqe;
	atomic_t		rd_credits;
	struct llist_head	rd_parked;
	struct task_struct	*cq_owner;
	struct llist_head	rsp_held;
	struct work_struct	rsp_flush;
	struct rift_srv_batch	*rsp_batch;
};

/**
 * struct rift_srv_stats - per-CPU path counters
 * @base: those a client path has too (requests received and their
 *	payload bytes, requests answered with an error); first, so that
 *	rift-core's stats files find them
 * @rkey_rotations: chunk MRs invalidated and registered again under a new
 *	rkey (always-invalidate)
 * @remote_invs: writes whose chunk key the client's SEND WITH_INV killed as
 *	they landed (REMOTE_INV): the server invalidated none of those
 * @cancelled: requests answered after the client cancelled them
 * @cancels_stale: CANCELs ignored because they named an earlier request
 *	on the chunk than the one the server has (RIFT_FEAT_CANCEL_GEN)
 * @posting_waits: requests that arrived while the answer to the previous
 *	one on their chunk was still being posted, and waited for the post
 * @rsp_batched: answers posted behind another answer in one post (a
 *	ULP's rift_srv_resp_batch()): doorbells saved
 * @writes_refused: RDMA WRITEs of read data the client refused with a
 *	remote access error, e.g. a late response into a read it had timed
 *	out and invalidated
 * @credit_reqs: CREDIT_REQs received (RIFT_FEAT_CREDITS)
 * @credits: CREDIT messages sent (an answer is one to four of them)
 * @credit_rels: CREDIT_RELs received: chunks the client gave back
 * @credit_short: answers that granted fewer chunks than the CREDIT_REQ
 *	would have got from an unlimited budget: pool_mb (or max_pinned_mb)
 *	had no room, a chunk's allocation failed, or ids given back were not
 *	reclaimed yet.  Otherwise silent: the client just runs on less
 * @revokes: revokes sent (an idle path taken down to its floor)
 * @reclaimed: chunks given back whose key was invalidated and whose
 *	memory went back to the budget
 */
struct rift_srv_stats {
	struct rift_path_stats	base;
	u64			rkey_rotations;
	u64			remote_invs;
	u64			writes_refused;
	u64			cancelled;
	u64			cancels_stale;
	u64			posting_waits;
	u64			rsp_batched;
	u64			credit_reqs;
	u64			credits;
	u64			credit_rels;
	u64			credit_short;
	u64			revokes;
	u64			reclaimed;
};

/**
 * struct rift_srv_path - one instance of a client path
 * @base: name ("<client addr>@<server addr:port>"), addresses (source: the
 *	client's), RDMA device name (kept for sysfs past the device's
 *	lifetime) and port, the directory
 *	/sys/class/rift-server/<sess>/paths/<name>/, the lock (guards
 *	@state, the connections' states, @info_rcvd, @info_len,
 *	@base.last_error) and the requests at the ULP
 * @entry: in the session's path list
 * @sess: owning session
 * @uuid: path identity chosen by the client
 * @reconnect_gen: generation of this instance
 * @version: protocol version negotiated by its first connection
 * @con_cnt: connections
 * @queue_depth: chunks granted to this path, at most the session's
 * @created_sess: the session was created for this path (CON_RSP flag)
 * @state: see enum rift_srv_path_state; guarded by @base.lock
 * @info_rcvd: INFO_REQ arrived
 * @info_len: its length
 * @refused: the INFO_RSP refuses the path; close once it is sent
 * @admitted: the host passed admission (and authentication) on this
 *	instance; only admitted instances replace or outrank others
 * @auth_nonce: the server's nonce of this instance, sent in every CON_RSP
 * @in_sysfs: @base.kobj was added (changed by the ordered workqueue only)
 * @ib_dev: device of every connection of the path
 * @chunks: kernel addresses of the chunks, each physically contiguous
 * @nr_chunks: entries of @chunks allocated
 * @pinned_reserved: bytes counted against the budget (pool_mb, or
 *	max_pinned_mb while pool_mb is 0) for @chunks of a path without
 *	@credits; a path with them counts each chunk against it as it is
 *	granted (rift-srv-pool.c) and leaves this 0
 * @pending_entry: in the context's @pending list until CONNECTED or closed
 * @setup_timeout_ms: how long @setup_work gives the path to connect
 * @ops: one op per chunk
 * @segs: segment storage of all ops
 * @rsp_batches: one batch per connection, see &rift_srv_con.rsp_batch
 * @pd: the path instance's own protection domain: its QPs and chunk MRs
 * @sgs: per-chunk scatterlists mapped for @ib_dev
 * @mrs: per-chunk MRs
 * @always_inv: ALWAYS_INVALIDATE was accepted for this path instance
 * @remote_inv: REMOTE_INV too: every write arrives as a SEND WITH_INV of
 *	its chunk's key, nothing else does
 * @can_cancel: CANCEL was accepted for this path instance
 * @cancel_gen: CANCEL_GEN too: requests and CANCELs carry a generation
 * @rsp_gen: RSP_GEN was accepted: requests carry a generation and every
 *	answer echoes its low bits
 * @rkey_msgs: per-chunk RSP_RKEY payloads (always-invalidate)
 * @usr_copies: per-chunk copies of a read's ULP header (always-invalidate
 *	without credits), RIFT_USR_LEN_MAX bytes each
 * @nr_mrs: chunks 0 .. @nr_mrs - 1 registered (rift_srv_chunk_reg()) by a
 *	path without @credits; 0 with them, whose chunks come and go one by one
 * @reg_cqe: completion of the REG_MR WRs, and of the LOCAL_INV that starts
 *	an always-invalidate read's answer (seen only on failure)
 * @info_tx: INFO_RSP buffer
 * @cons: connections
 * @io_ref: see the top of this file
 * @io_done: @io_ref reached zero after being killed
 * @info_work: processes INFO_REQ
 * @close_work: tears the path down
 * @free_work: frees the path's memory once the last reference is gone
 * @setup_work: closes a path stuck before CONNECTED
 * @stats: counters (@base.stats too)
 * @hb_work: heartbeat tick while CONNECTED
 * @hb: heartbeats; interval and silent ticks as announced in INFO_RSP
 * @credits: RIFT_FEAT_CREDITS was accepted: chunks are granted as credits
 * @cr_lock: guards @cr_granted's changes, @nr_granted, @cr_req_out,
 *	@cr_want and @cr_last (see rift-srv-credit.c)
 * @cr_granted: bit per chunk id, set while granted to the client (every
 *	chunk without @credits); a request may only name such a chunk
 * @nr_granted: bits of @cr_granted set
 * @cr_req_out: a CREDIT_REQ is unanswered
 * @cr_want: what it asked for in total
 * @cr_last: when the last answer went out, in jiffies
 * @credit_work: sends the answer, at most once per interval
 * @cr_tx: buffers of an answer's messages
 * @cr_floor: the grant at admission and the floor of revokes
 *	(rift_credit_srv_floor()); 0 without @credits
 * @cr_idle_ms: credit_idle_ms when the path was admitted
 * @cr_ready: a request or CREDIT_REQ of this instance arrived: a revoke
 *	may be sent (guarded by @cr_lock, set lock-free once)
 * @cr_last_rx: when the last request arrived, in jiffies
 * @cr_revoking: a revoke is pending, until @nr_granted <= @cr_keep; an
 *	answer is held back meanwhile
 * @cr_keep: what the pending revoke lets the client keep
 * @cr_rev_tx: buffer of the revoke message
 * @cr_mutex: serialises the answer and the pool work: each computes a
 *	CREDIT's counts and posts it in one go, so that they reach the
 *	client in the order their counts were taken
 * @cr_present: bit per chunk id whose memory and MR exist (@credits
 *	paths; a superset of @cr_granted); changed under @cr_mutex
 * @cr_reclaim: chunks given back (CREDIT_REL) whose key is still to be
 *	invalidated; under @cr_lock
 * @nr_present: bits of @cr_present set
 * @cr_inv: chunk ids of the LOCAL_INV batch in flight
 * @cr_inv_nr: entries of @cr_inv; 0 when no batch is in flight
 * @cr_inv_done: the batch completed successfully: its chunks may go
 * @cr_inv_cqe: completion of a batch's last (signalled) LOCAL_INV
 * @pool_work: invalidates and frees chunks given back, revokes an idle
 *	path (every @cr_idle_ms / 2)
 */
struct rift_srv_path {
	struct rift_path_base		base;
	struct list_head		entry;
	struct rift_srv_sess		*sess;
	u8				uuid[RIFT_UUID_LEN];
	u32				reconnect_gen;
	u16				version;
	u16				con_cnt;
	u16				queue_depth;
	bool				created_sess;
	u64				pinned_reserved;
	struct list_head		pending_entry;
	u32				setup_timeout_ms;
	enum rift_srv_path_state	state;
	bool				info_rcvd;
	u32				info_len;
	bool				refused;
	bool				admitted;
	u8				auth_nonce[RIFT_AUTH_NONCE_LEN];
	bool				in_sysfs;
	struct ib_device		*ib_dev;
	void				**chunks;
	u32				nr_chunks;
	struct rift_srv_op		*ops;
	struct rift_rbuf		*segs;
	struct rift_srv_batch		*rsp_batches;
	struct rift_pd			pd;
	struct scatterlist		*sgs;
	struct ib_mr			**mrs;
	u32				nr_mrs;
	bool				always_inv;
	bool				remote_inv;
	bool				can_cancel;
	bool				cancel_gen;
	bool				rsp_gen;
	struct rift_wire_rkey_msg	*rkey_msgs;
	u8				*usr_copies;
	struct ib_cqe			reg_cqe;
	struct rift_iu			*info_tx;
	struct rift_srv_con		*cons;
	struct percpu_ref		io_ref;
	struct completion		io_done;
	struct work_struct		info_work;
	struct work_struct		close_work;
	struct work_struct		free_work;
	struct delayed_work		setup_work;
	struct rift_srv_stats __percpu	*stats;
	struct delayed_work		hb_work;
	struct rift_hb			hb;
	bool				credits;
	spinlock_t			cr_lock;	/* see above */
	unsigned long			*cr_granted;
	u16				nr_granted;
	bool				cr_req_out;
	u16				cr_want;
	unsigned long			cr_last;
	struct delayed_work		credit_work;
	struct rift_iu			*cr_tx[RIFT_CREDIT_MAX_MSGS];
	u16				cr_floor;
	u32				cr_idle_ms;
	bool				cr_ready;
	unsigned long			cr_last_rx;
	bool				cr_revoking;
	u16				cr_keep;
	struct rift_iu			*cr_rev_tx;
	struct mutex			cr_mutex;	/* see above */
	unsigned long			*cr_present;
	unsigned long			*cr_reclaim;
	u16				nr_present;
	u16				cr_inv[RIFT_SRV_POOL_INV_BATCH];
	u16				cr_inv_nr;
	bool				cr_inv_done;
	struct ib_cqe			cr_inv_cqe;
	struct delayed_work		pool_work;
};

/**
 * struct rift_srv_auth - what a host must prove, copied out of its entry
 * @key: the secret the host proves
 * @keylen: bytes of @key (0: no authentication)
 * @skey: the secret the server proves
 * @skeylen: bytes of @skey
 */
struct rift_srv_auth {
	u8	key[RIFT_AUTH_SECRET_MAX];
	u8	keylen;
	u8	skey[RIFT_AUTH_SECRET_MAX];
	u8	skeylen;
};

/**
 * rift_srv_wc_con() - the connection a work completion belongs to
 * @wc: work completion
 *
 * Return: the connection.
 */
static inline struct rift_srv_con *rift_srv_wc_con(struct ib_wc *wc)
{
	struct rift_con *c = wc->qp->qp_context;

	return container_of(c, struct rift_srv_con, c);
}

/*
 * The files of rift-server, from the bottom up: each calls only into the
 * ones listed before it (Documentation/callgraph.rst, checked by make
 * check).
 */

/* rift-srv-globals.c */
extern struct class rift_srv_class;
extern struct kobject *rift_srv_kobj;
extern struct workqueue_struct *rift_srv_wq;
extern struct workqueue_struct *rift_srv_hb_wq;
extern struct workqueue_struct *rift_srv_resp_wq;
extern struct workqueue_struct *rift_srv_credit_wq;
int rift_srv_globals_init(void);
void rift_srv_globals_exit_wqs(void);
void rift_srv_globals_exit(void);
u32 rift_srv_param_max_queue_depth(void);
u32 rift_srv_param_chunk_size(void);
u32 rift_srv_param_hb_interval_ms(void);
bool rift_srv_param_always_invalidate(void);
bool rift_srv_param_force_always_invalidate(void);
bool rift_srv_param_remote_invalidate(void);
bool rift_srv_param_cancel(void);
u8 rift_srv_param_ack_timeout(void);
u32 rift_srv_param_max_sessions(void);
u32 rift_srv_param_max_paths_per_session(void);
u32 rift_srv_param_max_cons_per_path(void);
u32 rift_srv_param_max_pending_per_addr(void);
u32 rift_srv_param_setup_timeout_ms(void);
u32 rift_srv_param_credit_floor(void);
u32 rift_srv_param_credit_idle_ms(void);
u64 rift_srv_pool_room(void);
const char *rift_srv_budget_name(void);
bool rift_srv_pinned_reserve(u64 bytes);
void rift_srv_pinned_release(u64 bytes);
bool rift_srv_sess_slot_get(void);
void rift_srv_sess_slot_put(void);

/*
 * Log lines any client can cause at will, by connecting, failing a path
 * and closing, over and over: one budget for all of them, so churn that
 * hits many kinds of line still cannot flood the log.  Refusals (why a
 * host, session or path was turned away) have a budget of their own, the
 * same size: they are what an administrator looks for, and the chatter
 * of sessions coming and going must not crowd them out.
 */
extern struct ratelimit_state rift_srv_peer_rs;
extern struct ratelimit_state rift_srv_refuse_rs;
#define rift_srv_peer_info(fmt, ...)					\
	do {								\
		if (__ratelimit(&rift_srv_peer_rs))			\
			pr_info(fmt, ##__VA_ARGS__);			\
	} while (0)
#define rift_srv_refuse_info(fmt, ...)					\
	do {								\
		if (__ratelimit(&rift_srv_refuse_rs))			\
			pr_info(fmt, ##__VA_ARGS__);			\
	} while (0)

/* rift-srv-hosts.c */
int rift_srv_host_admit(const char *name, struct rift_srv_auth *auth);
int rift_srv_hosts_init(struct kobject *parent);
void rift_srv_hosts_exit(struct kobject *parent);

/* rift-srv-state.c */
void rift_srv_path_fail(struct rift_srv_path *path, const char *fmt, ...)
	__printf(2, 3);
void rift_srv_sess_close(struct rift_srv_sess *sess, struct rift_srv_path *except,
			 const char *why);
const char *rift_srv_sess_state_str(enum rift_srv_sess_state s);
const char *rift_srv_path_state_str(enum rift_srv_path_state s);
const char *rift_srv_con_state_str(enum rift_srv_con_state s);
const char *rift_srv_path_base_state_str(struct rift_path_base *base);
const char *rift_srv_sess_label(struct rift_srv_sess *sess);
bool rift_srv_sess_change_state(struct rift_srv_sess *sess,
				enum rift_srv_sess_state new);
bool rift_srv_path_change_state(struct rift_srv_path *path,
				enum rift_srv_path_state new);
bool rift_srv_con_change_state(struct rift_srv_con *con,
			       enum rift_srv_con_state new);
bool rift_srv_path_all_connected(struct rift_srv_path *path);
void rift_srv_path_not_pending(struct rift_srv_path *path);
void rift_srv_path_queue_info(struct rift_srv_path *path);

/* rift-srv-pool.c */
int rift_srv_pool_path_init(struct rift_srv_path *path);
int rift_srv_pool_admit(struct rift_srv_path *path, u16 nr, struct ib_reg_wr *wrs,
			struct rift_rbuf *table);
int rift_srv_chunk_reg(struct rift_srv_path *path, u16 id, void *buf,
		       struct ib_reg_wr *wr);
void rift_srv_chunk_unreg(struct rift_srv_path *path, u16 id);
int rift_srv_pool_chunk_get(struct rift_srv_path *path, u16 id, struct ib_reg_wr *wr);
u32 rift_srv_pool_room_chunks(struct rift_srv_path *path);
void rift_srv_pool_start(struct rift_srv_path *path);
void rift_srv_pool_kick(struct rift_srv_path *path);
void rift_srv_pool_grown(struct rift_srv_path *path);
void rift_srv_pool_stop(struct rift_srv_path *path);
void rift_srv_pool_path_free(struct rift_srv_path *path);
u64 rift_srv_path_pinned_bytes(struct rift_srv_path *path);
u64 rift_srv_path_held_bytes(struct rift_srv_path *path);

/* rift-srv-sysfs.c */
extern const struct attribute_group *rift_srv_sess_groups[];
extern const struct attribute_group *rift_srv_path_groups[];
int rift_srv_sess_sysfs_add(struct rift_srv_sess *sess);
void rift_srv_sess_sysfs_del(struct rift_srv_sess *sess);
int rift_srv_path_sysfs_add(struct rift_srv_path *path);
void rift_srv_path_sysfs_del(struct rift_srv_path *path);

/* rift-srv-hb.c */
void rift_srv_path_hb_start(struct rift_srv_path *path);
void rift_srv_path_hb_work(struct work_struct *work);
void rift_srv_send_hb_ack(struct rift_srv_con *con, u16 seq);

/* rift-srv-credit.c */
void rift_srv_credit_init(struct rift_srv_path *path);
int rift_srv_credit_setup(struct rift_srv_path *path, bool credits, u32 floor);
void rift_srv_credit_stop(struct rift_srv_path *path);
void rift_srv_credit_free(struct rift_srv_path *path);
bool rift_srv_credit_granted(struct rift_srv_path *path, u16 chunk);
bool rift_srv_credit_req(struct rift_srv_con *con, const struct rift_imm *imm);
bool rift_srv_credit_rel(struct rift_srv_con *con, const struct rift_imm *imm);

/* rift-srv-io.c */
void rift_srv_rx_done(struct ib_cq *cq, struct ib_wc *wc);
void rift_srv_tx_done(struct ib_cq *cq, struct ib_wc *wc);
void rift_srv_con_free_parked(struct rift_srv_con *con);
int rift_srv_path_init_ops(struct rift_srv_path *path, bool per_chunk_segs);
void rift_srv_con_rsp_flush(struct work_struct *work);

/* rift-srv-info.c */
int rift_srv_path_alloc_chunks(struct rift_srv_path *path);
void rift_srv_path_info_work(struct work_struct *work);
void rift_srv_reg_done(struct ib_cq *cq, struct ib_wc *wc);
void rift_srv_path_unreg_chunks(struct rift_srv_path *path);

/* rift-srv-conn.c */
int rift_srv_cm_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev);

#endif /* _RIFT_SRV_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift client: internal structures.
 */
#ifndef _RIFT_CLT_H
#define _RIFT_CLT_H

#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/percpu.h>
#include <linux/wait.h>
#include <linux/ratelimit.h>
#include <rdma/mr_pool.h>

#include <rift/rift.h>
#include "rift-core.h"

/*
 * Connection index 0 carries control traffic; IO uses the next ones, one
 * per CPU up to a cap; the path's last nr_poll_cons connections are poll
 * connections, whose completions the ULP reaps with rift_clt_poll().
 */
#define RIFT_CLT_CON_CTL	0
#define RIFT_CLT_MAX_IO_CONS	16

struct rift_clt_bounce;

/* Every connection of a path must fit in the CON_REQ's con_cnt. */
static_assert(1 + RIFT_CLT_MAX_IO_CONS + RIFT_CLT_MAX_POLL_CONS <= RIFT_MAX_CONS);

/*
 * Completions one rift_clt_poll() reaps per connection at most: a caller
 * spinning on one request should not spend long on others' completions.
 */
#define RIFT_CLT_POLL_BUDGET	16

/*
 * Bytes of a request slot's header buffer: ULP header, alignment padding
 * and the longest descriptor.
 */
#define RIFT_CLT_HDR_BUF	(RIFT_USR_LEN_MAX + RIFT_IO_DESC_ALIGN + \
				 RIFT_IO_DESC_MAX_LEN)

/* Ranges of the session tunables (sysfs and module parameters). */
#define RIFT_CLT_RECONNECT_DELAY_MIN_MS	10U
#define RIFT_CLT_RECONNECT_DELAY_MAX_MS	3600000U
#define RIFT_CLT_IO_TIMEOUT_MAX_MS	3600000U
#define RIFT_HB_INTERVAL_CLT_DEFAULT_MS	5000U
#define RIFT_CLT_STALL_TIMEOUT_MIN_MS	200U
#define RIFT_CLT_STALL_TIMEOUT_MAX_MS	60000U
#define RIFT_CLT_STALL_TIMEOUT_DEFAULT_MS	1000U
/*
 * The progress tick of every path runs this often at most (a quarter of
 * stall_timeout_ms when that is shorter): a wedged connection is found
 * within stall_timeout_ms plus one tick, whatever the heartbeat interval.
 */
#define RIFT_CLT_STALL_TICK_MS		250U

/*
 * Path states.  The connect worker moves IDLE/ERROR -> CONNECTING ->
 * CONNECTED or ERROR; a failure of a connected path goes to ERROR and the
 * reconnect work retries with backoff; once max_reconnect_attempts are
 * used up the path rests in GAVE_UP until the user writes reconnect;
 * removal goes through CLOSING to CLOSED.
 */
enum rift_clt_path_state {
	RIFT_CLT_PATH_IDLE,
	RIFT_CLT_PATH_CONNECTING,
	RIFT_CLT_PATH_CONNECTED,
	RIFT_CLT_PATH_ERROR,
	RIFT_CLT_PATH_RECONNECTING,
	RIFT_CLT_PATH_CLOSING,
	RIFT_CLT_PATH_CLOSED,
	RIFT_CLT_PATH_GAVE_UP,
	RIFT_CLT_PATH_STATE_NR,
};

struct rift_clt_path;

/**
 * struct rift_clt_con - one connection of a path
 * @c: verbs state shared with the server side's code
 * @path: owning path
 * @idx: index within the path
 * @done: completed by the CM handler when the connect attempt ends
 * @err: result of the connect attempt
 * @req: CON_REQ sent
 * @rsp: CON_RSP the server accepted with
 * @info_rx: INFO_RSP buffer (connection 0 only)
 * @mrs_ready: the QP's fast-registration MR pool is set up
 * @established: rdma_cm reported ESTABLISHED and no disconnect since
 * @inflight: requests posted on this connection and not yet completed
 * @rx_seen: something arrived since the last progress tick
 * @stalled: a progress tick found requests in flight and nothing received
 *	since the tick before, and nothing arrived since
 * @stall_since: if @stalled, when the tick before that one ran (nothing
 *	was received after it), in jiffies
 * @probe_out: a heartbeat probe was sent on this connection and not yet
 *	answered
 * @probe_sent: when the last probe went out, in jiffies
 * @poll_lock: a poll connection's CQ is polled by one caller at a time
 *	(ib_process_cq_direct() is not reentrant on one CQ); taken with
 *	trylock by pollers, with a wait by the teardown
 * @poll_ok: under @poll_lock: the CQ exists and may be polled; cleared
 *	before the teardown drains the QP, which then polls it alone
 * @batch_lock: @batch_first, @batch_last and the post of a batch, whose
 *	requests turn POSTED under it once their WRs are on the QP: what
 *	must follow a request there (a timed-out request's fence) is
 *	posted only after it
 * @batch_first: first request held back (RIFT_CLT_REQ_QUEUED), built but
 *	not posted, waiting to go with the others of its batch; NULL if none
 * @batch_last: last of them, where the next one is linked
 * @cm_lock: held by the CM handler while it runs and by the teardown
 *	while it sets @closing, so the teardown can drain and destroy the QP
 *	with the cm_id still alive and no handler touching either
 * @closing: under @cm_lock: the teardown has begun; the handler ignores
 *	every further event of this attempt's cm_id
 */
struct rift_clt_con {
	struct rift_con		c;
	struct rift_clt_path	*path;
	u16			idx;
	struct completion	done;
	int			err;
	struct rift_con_req	req;
	struct rift_con_rsp	rsp;
	struct rift_iu		*info_rx;
	bool			mrs_ready;
	bool			established;
	atomic_t		inflight;
	atomic_t		rx_seen;
	bool			stalled;
	unsigned long		stall_since;
	bool			probe_out;
	unsigned long		probe_sent;
	spinlock_t		poll_lock;	/* see above */
	bool			poll_ok;
	spinlock_t		batch_lock;	/* see above */
	struct rift_clt_req	*batch_first;
	struct rift_clt_req	*batch_last;
	struct mutex		cm_lock;	/* see above */
	bool			closing;
};

/**
 * struct rift_clt_stats - per-CPU path counters
 * @base: those a server path has too (requests submitted and their
 *	payload bytes, requests completed with an error); first, so that
 *	rift-core's stats files find them
 * @failovers: requests in flight when the path failed, moved off it
 * @rkey_updates: new chunk rkeys received (always-invalidate)
 * @migrations: requests submitted from a CPU other than the one whose
 *	connection carried them
 * @timeouts: requests failed with -ETIMEDOUT after io_timeout_ms in flight
 * @late_responses: responses that arrived for timed-out requests
 * @stale_responses: responses that echoed another generation than the
 *	request (or timed-out request) of their chunk and connection
 *	(RSP_GEN); each failed the path
 * @bounced_reads: reads answered into a staging page and copied out
 * @poll_completions: completions rift_clt_poll() reaped on poll connections
 * @poll_tick_completions: completions on poll connections that the
 *	heartbeat or progress tick reaped because no one else had polled them
 * @stall_probes: heartbeats sent on IO connections that had requests in
 *	flight and received nothing for a progress tick
 * @stalls: times the path was failed because an IO connection made no
 *	progress and left its probe unanswered for stall_timeout_ms
 * @posts: ib_post_send() calls that carried requests: one per request,
 *	fewer when the ULP submits batches (RIFT_REQ_MORE)
 * @credit_reqs: CREDIT_REQs sent (memory credits)
 * @credits: CREDIT messages received
 * @credit_rels: CREDIT_RELs sent: chunks given back to a revoke
 * @sends_awaited: responses that arrived before the request's own last WR
 *	had completed; the request ended only once it had
 */
struct rift_clt_stats {
	struct rift_path_stats	base;
	u64			failovers;
	u64			migrations;
	u64			rkey_updates;
	u64			timeouts;
	u64			late_responses;
	u64			stale_responses;
	u64			bounced_reads;
	u64			poll_completions;
	u64			poll_tick_completions;
	u64			stall_probes;
	u64			stalls;
	u64			posts;
	u64			credit_reqs;
	u64			credits;
	u64			credit_rels;
	u64			sends_awaited;
};

/**
 * struct rift_clt_path - one source/destination pair of a session
 * @base: name ("<src>@<dst>"), addresses (source AF_UNSPEC: any), RDMA
 *	device and port, the directory
 *	/sys/class/rift-client/<sess>/paths/<name>/ and its stats/, the
 *	lock (guards @state, @base.last_error) and the requests in flight
 * @entry: in the session's path list
 * @sess: owning session
 * @uuid: path identity the server knows us by
 * @state: see enum rift_clt_path_state; guarded by @base.lock
 * @last_errno: the errno of the last connect attempt (0: it connected)
 * @err_rs: log lines of @base.last_error, limited per path: one path's noise
 *	cannot hide another's reason
 * @reconnect_gen: bumped at every connect attempt
 * @nr_cons: connections, control and poll connections included
 * @nr_poll_cons: poll connections, the last ones of @cons
 * @cons: the connections
 * @connect_work: (re)connects the path
 * @close_work: tears the connections down after a failure
 * @reconnects: completed reconnects
 * @reconnect_attempts: failed attempts since the path was last connected
 * @nr_chunks: entries in @chunks
 * @chunks: the server's chunk table as seen on this path
 * @chunks_cap: entries of @chunk_map, @orphans, @chunk_reqs,
 *	@chunk_gens and @orphan_cons: the session's requested queue depth,
 *	which bounds @nr_chunks of every instance
 * @nr_usable: chunks of @chunks requests may take: min(@nr_chunks,
 *	session queue depth), set when the path adopts the session's limits
 * @chunk_hint: where a permit's preferred chunk starts; see
 *	rift_clt_chunk_get()
 * @chunk_epoch: bumped under @chunk_lock by every instance's
 *	rift_clt_chunks_set_usable(); the stale-rkey probe's chunk is given
 *	back only in the epoch it was taken in
 * @chunk_lock: orders a timeout's orphaning of a chunk against its late
 *	response and the path's release of its orphans, the stale-rkey
 *	probe's chunk against the next instance; the fast paths (take, give
 *	back, a response's lookup) are lock-free
 * @chunk_map: chunks in use: by a request on this path, as an orphan, or
 *	by the stale-rkey probe, and (memory credits) chunks not granted,
 *	reserved so that none is handed out; a bit is set while @chunk_reqs
 *	may be written for it
 * @chunk_reqs: per chunk, the request that holds it (for an orphan, the
 *	timed-out request whose permit it keeps); NULL when free or held by
 *	the probe.  A response is mapped to its request through this
 * @chunk_gens: per chunk, the generation of the last request posted on it
 *	(CANCEL_GEN, RSP_GEN): the request that holds it, or the timed-out
 *	request of an orphan; wraps
 * @old_rkeys: per chunk, the rkey the last RSP_RKEY replaced, for the
 *	stale-rkey probe (CONFIG_RIFT_DEBUG only)
 * @dbg_connected: instances of the path that connected, counted under
 *	@conn_mutex (CONFIG_RIFT_DEBUG only: test_connect_race)
 * @dbg_race_inst: the instance test_connect_race failed last, whose close
 *	work is to wait for the next (0: none; CONFIG_RIFT_DEBUG only)
 * @always_inv: ALWAYS_INVALIDATE is on for this path instance
 * @remote_inv: REMOTE_INV too: a write ends with a SEND WITH_INV of its
 *	chunk's key instead of its header's WRITE WITH_IMM
 * @can_cancel: the server accepted CANCEL for this path instance
 * @cancel_gen: it accepted CANCEL_GEN too: requests and CANCELs carry the
 *	request's generation
 * @rsp_gen: it accepted RSP_GEN: requests carry their generation and
 *	responses echo its low bits, which rift_clt_rsp() checks against
 *	@chunk_gens; read by the CQs through rift_clt_rsp_feat().  The INFO
 *	exchange sets these four with WRITE_ONCE(); the CQs, submitters,
 *	the heartbeat tick and sysfs read them with READ_ONCE(), no lock
 * @pd: protection domain of the path instance: its QPs, per-read MRs and
 *	staging MRs; taken by the first connection, put once all are closed
 * @bounce: staging slots of reads for this path instance, or NULL;
 *	see rift-clt-bounce.c
 * @bounce_bytes: memory of @bounce, for sysfs (0 without)
 * @orphans: chunks of timed-out requests the server has not answered yet;
 *	they stay in @chunk_map and their requests' permits stay out of the
 *	pool until it does or the path closes; under @chunk_lock
 * @orphan_cons: per orphan, the index of the connection its timed-out
 *	request went on, the one its late answer must come on; set with
 *	the @orphans bit, under @chunk_lock
 * @chunk_size: bytes per chunk
 * @max_io_size: largest data length the server accepts
 * @stats: per-CPU counters (@base.stats too)
 * @info_done: INFO_RSP arrived (or the QP failed)
 * @info_len: bytes received in the INFO_RSP of this attempt (0: none yet)
 * @info_tx_done: the INFO_REQ send completed
 * @info_err: error of the INFO exchange
 * @removed: remove_path was written; never connect again
 * @hb_work: heartbeat tick, every @hb_interval_ms while connected
 * @hb: heartbeats (interval and silent ticks from the session's
 *	tunables, taken at every tick), the round trip min-latency uses
 * @hb_rx: heartbeats the server sent since @hb_rx_start
 * @hb_rx_start: start of the current flood-count window, in jiffies
 * @conn_mutex: serialises connecting and tearing down the connections
 * @setup_failed: a connection failed while the path was (re)connecting
 * @hb_last: when the last tick ran (or the path connected), in jiffies
 * @stall_work: progress tick of the IO connections, every
 *	RIFT_CLT_STALL_TICK_MS (or stall_timeout_ms / 4) while connected
 * @stall_last: when the last progress tick ran (or the path connected),
 *	in jiffies
 * @credits: the server accepted RIFT_FEAT_CREDITS for this path instance
 * @cr_initial: chunks of the instance's INFO_RSP table: the initial grant
 * @cr: the grant's state machine (rift-proto.c), under @chunk_lock
 * @cr_granted: its storage: per chunk id, 1 while granted; read
 *	lock-free by responses (a chunk not granted is named by none)
 * @cr_owed: chunks a pending revoke still asks back (a hint for the
 *	lock-free paths; @cr says under @chunk_lock)
 * @cr_in_use: chunks taken (requests, orphans, the probe) while @credits
 */
struct rift_clt_path {
	struct rift_path_base		base;
	struct list_head		entry;
	struct rift_clt_sess		*sess;
	u8				uuid[RIFT_UUID_LEN];
	enum rift_clt_path_state	state;
	int				last_errno;
	struct ratelimit_state		err_rs;
	u32				reconnect_gen;
	u16				nr_cons;
	u16				nr_poll_cons;
	struct rift_clt_con		*cons;
	struct delayed_work		connect_work;
	struct work_struct		close_work;
	u64				reconnects;
	u32				reconnect_attempts;
	u32				nr_chunks;
	struct rift_rbuf		*chunks;
	u32				chunks_cap;
	u32				nr_usable;
	u32				chunk_hint;
	u32				chunk_epoch;
	spinlock_t			chunk_lock;	/* see above */
	unsigned long			*chunk_map;
	struct rift_clt_req		**chunk_reqs;
	u16				*chunk_gens;
#ifdef CONFIG_RIFT_DEBUG
	u32				*old_rkeys;
	u32				dbg_connected;
	u32				dbg_race_inst;
#endif
	bool				always_inv;
	bool				remote_inv;
	bool				can_cancel;
	bool				cancel_gen;
	bool				rsp_gen;
	struct rift_pd			pd;
	struct rift_clt_bounce		*bounce;
	u64				bounce_bytes;
	unsigned long			*orphans;
	u16				*orphan_cons;
	u32				chunk_size;
	u32				max_io_size;
	struct rift_clt_stats __percpu	*stats;
	struct completion		info_done;
	struct completion		info_tx_done;
	u32				info_len;
	int				info_err;
	bool				removed;
	struct delayed_work		hb_work;
	struct rift_hb			hb;
	atomic_t			hb_rx;
	unsigned long			hb_rx_start;
	struct mutex			conn_mutex;	/* cons[] setup/teardown */
	bool				setup_failed;
	unsigned long			hb_last;
	struct delayed_work		stall_work;
	unsigned long			stall_last;
	bool				credits;
	u16				cr_initial;
	struct rift_credit_clt		cr;
	u8				*cr_granted;
	u16				cr_owed;
	atomic_t			cr_in_use;
};

/**
 * enum rift_clt_req_state - lifecycle of a request slot
 * @RIFT_CLT_REQ_IDLE: not in flight
 * @RIFT_CLT_REQ_POSTED: posted, waiting for the server's response
 * @RIFT_CLT_REQ_INVALIDATING: response arrived, the read's MR is being
 *	invalidated before the pages go back to the ULP
 * @RIFT_CLT_REQ_PENDING: on no path: its path failed, or none was
 *	connected; waits in the session's pending list
 * @RIFT_CLT_REQ_CANCELLING: timed out in flight; completes with -ETIMEDOUT
 *	once a WR posted behind it (for a read: its MR's local invalidation)
 *	has completed, so no RDMA can touch its pages any more
 * @RIFT_CLT_REQ_QUEUED: on a path and built, its WRs held back in its
 *	connection's batch (rift_clt_con.batch_first) until the batch is
 *	posted; nothing but the holder of the connection's batch_lock moves
 *	it on, and no response or timeout can claim it meanwhile
 * @RIFT_CLT_REQ_SENDING: response arrived before the request's own last
 *	WR completed (its ACK was lost or late): the device may still read
 *	the request's mapped memory for a retransmission, so it ends, with
 *	@result, only once that WR completes (rift_clt_req_tx_done())
 */
enum rift_clt_req_state {
	RIFT_CLT_REQ_IDLE,
	RIFT_CLT_REQ_POSTED,
	RIFT_CLT_REQ_INVALIDATING,
	RIFT_CLT_REQ_PENDING,
	RIFT_CLT_REQ_CANCELLING,
	RIFT_CLT_REQ_QUEUED,
	RIFT_CLT_REQ_SENDING,
};

/**
 * enum rift_clt_mp_policy - how a request picks among connected paths
 * @RIFT_CLT_MP_ROUND_ROBIN: in turn
 * @RIFT_CLT_MP_MIN_INFLIGHT: the one with the fewest requests in flight
 * @RIFT_CLT_MP_MIN_LATENCY: the one with the lowest heartbeat round trip
 * @RIFT_CLT_MP_NR: number of policies
 */
enum rift_clt_mp_policy {
	RIFT_CLT_MP_ROUND_ROBIN,
	RIFT_CLT_MP_MIN_INFLIGHT,
	RIFT_CLT_MP_MIN_LATENCY,
	RIFT_CLT_MP_NR,
};

/* A write's payload entries and its header's (rift_clt_req.sges). */
#define RIFT_CLT_NR_SGES	(RIFT_IO_MAX_SEGS + 1)

/* rift_clt_req.chunk of a request that holds no chunk. */
#define RIFT_CLT_NO_CHUNK	U32_MAX

/**
 * struct rift_clt_req - one in-flight request, one per permit
 * @permit_id: the permit it uses
 * @chunk: the chunk of @path it holds while posted there, or
 *	%RIFT_CLT_NO_CHUNK; taken by rift_clt_req_post(), given back by
 *	rift_clt_req_release() unless the request timed out (@orphaned)
 * @orphaned: it timed out on @path, and @chunk went to the path's
 *	orphans, which give it back once the server answered
 * @sess: owning session
 * @permit: the ULP's permit (its CPU picks the connection)
 * @usr_len: bytes of ULP header at the start of @hdr
 * @pending: in the session's pending list while PENDING
 * @start: jiffies when the ULP submitted it; it times out io_timeout_ms
 *	later wherever it is
 * @holds: the permit goes back to the pool when this drops to zero: one
 *	for the ULP, one while the chunk of a timed-out request is orphaned
 * @deadline: jiffies after which a PENDING request fails
 * @has_deadline: @deadline is set (the request lost a path or found none)
 * @lost_path: it lost its path or found none connected since it was last
 *	posted, so @failover_work's post of it counts in the session's
 *	failed_over; not set by a wait for a chunk (memory credits) alone
 * @path: path carrying it
 * @con: connection carrying it
 * @dir: direction
 * @ops: ULP completion
 * @sg: ULP data
 * @sg_cnt: entries in @sg
 * @nents: entries after DMA mapping
 * @data_len: payload bytes
 * @sges: scatter/gather entries of a write's payload, and the header's
 *	after them when it rides in the payload's last WRITE
 * @wrs: RDMA WRITEs of a write's payload
 * @hdr_sge: the header's scatter/gather entry
 * @hdr_wr: the header's RDMA WRITE WITH_IMM, the request's last WR, or
 *	with REMOTE_INV a write's header RDMA WRITE, followed by @inv_wr;
 *	unused when the header rides in the payload's last WRITE, which
 *	takes its place
 * @inv_sge: @inv_msg's scatter/gather entry, sent inline
 * @inv_wr: with REMOTE_INV, a write's SEND WITH_INV of its chunk's key,
 *	the request's last WR
 * @inv_msg: its payload, the immediate @hdr_wr would have carried
 * @reg_wr: a read's fast registration of its destination
 * @first_wr: the request's first WR: its chain ends with @last_wr
 * @last_wr: the header's WRITE (@hdr_wr or the payload's last) or @inv_wr
 * @nr_wr: WRs in that chain
 * @batch_next: next request of its connection's batch while QUEUED
 * @hdr: ULP header and descriptor, written into the chunk's tail
 * @hdr_dma: DMA address of @hdr
 * @hdr_len: bytes of @hdr sent
 * @mr: fast-registration MR of a read's destination
 * @bounced: a read answered into its path's staging page for the permit
 * @inv_cqe: completion of the MR's local invalidation
 * @tx_cqe: completion of @last_wr when the request waits for it
 *	(rift_clt_req_tx_wait())
 * @tx_out: 1 from the post of a request that waits for its last WR until
 *	that WR's completion (or until it is known never to have been posted)
 * @result: errno the server answered with
 * @gen: generation of this request on its chunk (CANCEL_GEN), which its
 *	CANCEL names
 * @state: enum rift_clt_req_state; every completion path claims the
 *	request with a cmpxchg, so it completes exactly once
 */
struct rift_clt_req {
	u32				permit_id;
	u32				chunk;
	bool				orphaned;
	struct rift_clt_sess		*sess;
	struct rift_permit		*permit;
	u32				usr_len;
	struct list_head		pending;
	unsigned long			start;
	atomic_t			holds;
	unsigned long			deadline;
	bool				has_deadline;
	bool				lost_path;
	struct rift_clt_path		*path;
	struct rift_clt_con		*con;
	enum rift_dir			dir;
	struct rift_clt_req_ops		ops;
	struct scatterlist		*sg;
	unsigned int			sg_cnt;
	int				nents;
	u32				data_len;
	struct ib_sge			*sges;
	struct ib_rdma_wr		*wrs;
	struct ib_sge			hdr_sge;
	struct ib_rdma_wr		hdr_wr;
	struct ib_sge			inv_sge;
	struct ib_send_wr		inv_wr;
	struct rift_wire_write_inv	inv_msg;
	struct ib_reg_wr		reg_wr;
	struct ib_send_wr		*first_wr;
	struct ib_send_wr		*last_wr;
	u32				nr_wr;
	struct rift_clt_req		*batch_next;
	void				*hdr;
	u64				hdr_dma;
	u32				hdr_len;
	struct ib_mr			*mr;
	bool				bounced;
	struct ib_cqe			inv_cqe;
	struct ib_cqe			tx_cqe;
	atomic_t			tx_out;
	int				result;
	u16				gen;
	atomic_t			state;
};

/**
 * struct rift_permit - what a ULP holds while it owns a request slot
 * @id: permit index, the session's request slot; not a chunk id (the
 *	request takes a chunk of the path it is posted on)
 * @cpu: CPU the permit was taken on
 * @poll: 0, or 1 + the poll connection its request goes on
 *	(rift_permit_set_poll())
 * @pdu: ULP private data (rift_clt_open_args.pdu_size bytes)
 */
struct rift_permit {
	u32	id;
	int	cpu;
	u16	poll;
	u8	pdu[] __aligned(8);
};

/**
 * struct rift_clt_sess - a session: a named group of paths to one server
 * @dev: /sys/class/rift-client/<name>
 * @paths_kobj: its paths/ directory
 * @name: session name
 * @uuid: session identity
 * @ops: ULP callbacks (copied)
 * @port: server port
 * @nr_cons: connections per path, control included, poll connections not
 * @nr_poll_cons: poll connections per path
 * @queue_depth: permits granted (agreed by the first path to connect)
 * @req_queue_depth: permits asked for
 * @max_io_size: smallest limit of any path that connected
 * @pdu_size: bytes of ULP data per permit
 * @permit_size: bytes per permit, pdu included
 * @permits: permit array (@queue_depth of them)
 * @permit_map: bitmap of permits in use
 * @permit_wait: ULPs waiting for a permit
 * @reqs: one request per permit
 * @lock: guards @paths, the path list
 * @paths: the paths
 * @rr_next: round-robin cursor
 * @connected: paths that are CONNECTED
 * @closing: rift_clt_close() started
 * @removing: paths being removed through sysfs right now
 * @removed_wait: rift_clt_close() waits here for those removals
 * @reconnect_delay_ms: wait before reconnecting a failed path
 * @wq: runs close, heartbeat and failover work
 * @connect_wq: runs connect work; unbound, see rift_clt_open()
 * @dev_nb: told when an RDMA device goes away (rift_dev_register_notifier())
 * @mp_policy: enum rift_clt_mp_policy
 * @io_timeout_ms: how long a request may wait for a connected path
 * @hb_interval_ms: heartbeat tick of every path
 * @hb_missed_max: silent ticks before a path is declared failed
 * @stall_timeout_ms: an IO connection with requests in flight that
 *	receives nothing this long, its probe included, fails its path
 * @reconnect_delay_max_ms: cap of the exponential reconnect backoff
 * @max_reconnect_attempts: attempts after a failure before giving up;
 *	-1 retries forever, 0 never reconnects on its own
 * @pending_lock: guards @pending and @nr_pending
 * @pending: requests on no path, waiting for one
 * @nr_pending: entries of @pending
 * @failover_work: posts @pending requests, fails them at their deadline
 * @always_inv: offer ALWAYS_INVALIDATE when a path (re)connects (0 or 1)
 * @failed_over: posts made by @failover_work: requests posted again after
 *	losing their path, and requests submitted with no path connected
 *	(their first post)
 * @nr_batched: requests held back in a connection's batch (QUEUED) on
 *	any path; rift_clt_commit() has nothing to do while it is zero
 * @failover_errors: requests that found no path within io_timeout_ms
 * @secret: what every path proves to the server
 * @secret_len: bytes of @secret (0: none)
 * @server_secret: what the server must prove
 * @server_secret_len: bytes of @server_secret (0: its proof is not required)
 */
struct rift_clt_sess {
	struct device			dev;
	struct kobject			*paths_kobj;
	char				name[RIFT_NAME_MAX + 1];
	u8				uuid[RIFT_UUID_LEN];
	struct rift_clt_ops		ops;
	u16				port;
	u16				nr_cons;
	u16				nr_poll_cons;
	u32				queue_depth;
	u32				req_queue_depth;
	u32				max_io_size;
	size_t				pdu_size;
	size_t				permit_size;
	void				*permits;
	unsigned long			*permit_map;
	wait_queue_head_t		permit_wait;
	struct rift_clt_req		*reqs;
	struct mutex			lock;	/* paths, closing */
	struct list_head		paths;
	atomic_t			rr_next;
	atomic_t			connected;
	bool				closing;
	int				removing;
	wait_queue_head_t		removed_wait;
	u32				reconnect_delay_ms;
	struct workqueue_struct		*wq;
	struct workqueue_struct		*connect_wq;
	struct notifier_block		dev_nb;
	enum rift_clt_mp_policy		mp_policy;
	u32				io_timeout_ms;
	u32				hb_interval_ms;
	u32				hb_missed_max;
	u32				stall_timeout_ms;
	u32				reconnect_delay_max_ms;
	int				max_reconnect_attempts;
	spinlock_t			pending_lock;	/* pending */
	struct list_head		pending;
	u32				nr_pending;
	struct delayed_work		failover_work;
	u32				always_inv;
	atomic_t			nr_batched;
	atomic64_t			failed_over;
	atomic64_t			failover_errors;
	u8				secret[RIFT_AUTH_SECRET_MAX];
	u8				secret_len;
	u8				server_secret[RIFT_AUTH_SECRET_MAX];
	u8				server_secret_len;
};

extern struct class rift_clt_class;

/* Poll connection @idx of @path; @idx < path->nr_poll_cons. */
static inline struct rift_clt_con *rift_clt_poll_con(struct rift_clt_path *path,
						     unsigned int idx)
{
	return &path->cons[path->nr_cons - path->nr_poll_cons + idx];
}

/* IO connections that are not poll connections. */
static inline u16 rift_clt_nr_io_cons(const struct rift_clt_path *path)
{
	return path->nr_cons - 1 - path->nr_poll_cons;
}

static inline struct rift_clt_con *rift_clt_wc_con(struct ib_wc *wc)
{
	struct rift_con *c = wc->qp->qp_context;

	return container_of(c, struct rift_clt_con, c);
}

static inline bool rift_clt_sysfs_yes(const char *buf)
{
	return sysfs_streq(buf, "1");
}

/*
 * The files of rift-client, from the bottom up: each calls only into the
 * ones listed before it (Documentation/callgraph.rst, checked by make
 * check).
 */

/* rift-clt-bounce.c */
int rift_clt_bounce_setup(struct rift_clt_path *path);
void rift_clt_bounce_free(struct rift_clt_path *path);
bool rift_clt_bounce_usable(struct rift_clt_path *path, struct rift_clt_req *req);
void rift_clt_bounce_seg(struct rift_clt_path *path, u32 id, u32 len,
			 struct rift_rbuf *seg);
void rift_clt_bounce_copy(struct rift_clt_req *req);

/*
 * Chunks of @path requests may use and responses may name; 0 while the
 * path has no instance ready.
 */
static inline u32 rift_clt_nr_usable(struct rift_clt_path *path)
{
	/* Pairs with rift_clt_chunks_set_usable(): the table comes first. */
	return smp_load_acquire(&path->nr_usable);
}

/*
 * %RIFT_FEAT_RSP_GEN if the path instance accepted it, else 0: the
 * feature word the codec's response checks take.  Read in the CQs, where
 * a hostile server's response can land while the INFO exchange sets it
 * (no chunk is usable then, so either value fails the path).
 */
static inline u64 rift_clt_rsp_feat(const struct rift_clt_path *path)
{
	return READ_ONCE(path->rsp_gen) ? RIFT_FEAT_RSP_GEN : 0;
}

/* rift-clt-state.c */
const char *rift_clt_path_state_str(enum rift_clt_path_state s);
bool rift_clt_path_change_state(struct rift_clt_path *path,
				enum rift_clt_path_state new);
bool rift_clt_path_set_state(struct rift_clt_path *path,
			     enum rift_clt_path_state new);
enum rift_clt_path_state rift_clt_path_get_state(struct rift_clt_path *path);
const char *rift_clt_path_base_state_str(struct rift_path_base *base);
void rift_clt_path_set_error(struct rift_clt_path *path, const char *fmt, ...)
	__printf(2, 3);
void rift_clt_path_fail(struct rift_clt_path *path, const char *fmt, ...)
	__printf(2, 3);
void rift_clt_path_abort(struct rift_clt_path *path, const char *fmt, ...)
	__printf(2, 3);
void rift_clt_path_dev_removed(struct rift_clt_path *path, struct rift_dev *dev);
void rift_clt_path_port_down(struct rift_clt_path *path, struct rift_dev *dev,
			     u32 port);
void rift_clt_path_disconnect(struct rift_clt_path *path);

/* rift-clt-mp.c */
struct rift_clt_path *rift_clt_pick_path(struct rift_clt_sess *sess);
const char *rift_clt_mp_policy_str(enum rift_clt_mp_policy p);
int rift_clt_mp_policy_parse(const char *buf);

/* rift-clt-pending.c */
bool rift_clt_sess_may_wait(struct rift_clt_sess *sess);
void rift_clt_req_park(struct rift_clt_req *req);
void rift_clt_sess_kick_failover(struct rift_clt_sess *sess);
void rift_clt_take_pending(struct rift_clt_sess *sess, struct list_head *list);
void rift_clt_req_fail_pending(struct rift_clt_req *req, int err);
void rift_clt_sess_fail_pending(struct rift_clt_sess *sess);

/* rift-clt-chunk.c */
int rift_clt_chunks_alloc(struct rift_clt_path *path);
int rift_clt_chunks_reset(struct rift_clt_path *path, u32 nr_chunks);
void rift_clt_chunks_free(struct rift_clt_path *path);
void rift_clt_chunks_set_usable(struct rift_clt_path *path, u32 queue_depth);
int rift_clt_chunk_get(struct rift_clt_path *path, struct rift_clt_req *req);
bool rift_clt_chunk_get_id(struct rift_clt_path *path, u32 id, u32 *epoch);
void rift_clt_chunk_put(struct rift_clt_path *path, u32 id);
void rift_clt_chunk_put_id(struct rift_clt_path *path, u32 id, u32 epoch);
struct rift_clt_req *rift_clt_chunk_req(struct rift_clt_path *path, u32 id);
bool rift_clt_chunk_orphan(struct rift_clt_path *path, struct rift_clt_req *req);
int rift_clt_chunk_unorphan(struct rift_clt_path *path, struct rift_clt_con *con,
			    const struct rift_imm *imm, struct rift_clt_req **req, u16 *gen);
struct rift_clt_req *rift_clt_chunk_release_orphan(struct rift_clt_path *path, u32 id);
bool rift_clt_chunk_granted(struct rift_clt_path *path, u32 id);
void rift_clt_credit_starved(struct rift_clt_path *path);
const char *rift_clt_credit_rx(struct rift_clt_path *path, const void *buf, u32 len);

/* rift-clt-req.c */
void rift_clt_hold_put(struct rift_clt_sess *sess, struct rift_clt_req *req);
void rift_clt_req_release(struct rift_clt_req *req);
void rift_clt_req_end(struct rift_clt_req *req, int err);
void rift_clt_req_end_answered(struct rift_clt_req *req);
int rift_clt_reqs_init(struct rift_clt_sess *sess);
void rift_clt_reqs_free(struct rift_clt_sess *sess);
u64 rift_clt_sess_pinned_bytes(struct rift_clt_sess *sess);

/*
 * Whether @req, posted, ends only once its own last WR has completed.
 * The device reads its mapped payload and header while sending them, and
 * again for a retransmission until the peer's ACK arrives; the server's
 * answer can come before that ACK (the ACK lost or late).  Unmapped then,
 * an IOMMU would fault the retransmission, and pages handed back to the
 * ULP could be resent after reuse.  A read with an MR needs no wait: its
 * local invalidation, posted behind it once answered, completes only
 * after the request's WRs.  Inline data is copied at post time.
 */
static inline bool rift_clt_req_tx_wait(const struct rift_clt_req *req)
{
	return !req->mr && (req->nents || req->hdr_dma);
}

/* rift-clt-complete.c */
extern struct ib_cqe rift_clt_io_cqe;
int rift_clt_send_imm(struct rift_clt_con *con, const struct rift_imm *imm);
void rift_clt_rx_done(struct ib_cq *cq, struct ib_wc *wc);
int rift_clt_con_poll(struct rift_clt_con *con, int budget);
void rift_clt_path_poll_tick(struct rift_clt_path *path);

/* rift-clt-submit.c */
void rift_clt_path_commit(struct rift_clt_path *path);
int rift_clt_req_post(struct rift_clt_req *req, bool more);

/* rift-clt-timeout.c */
void rift_clt_path_scan_timeouts(struct rift_clt_path *path);
void rift_clt_path_release_orphans(struct rift_clt_path *path);

/* rift-clt-failover.c */
void rift_clt_fail_inflight(struct rift_clt_con *con);
void rift_clt_sess_failover_init(struct rift_clt_sess *sess);

/*
 * rift-clt-debug.c: the selftests' hooks, built with CONFIG_RIFT_DEBUG
 * only; without it these are empty and the IO path keeps no test state.
 */
#ifdef CONFIG_RIFT_DEBUG
void rift_clt_dbg_con_req(struct rift_con_req *req);
int rift_clt_dbg_chunks_reset(struct rift_clt_path *path, u32 nr_chunks);
void rift_clt_dbg_path_free(struct rift_clt_path *path);
void rift_clt_dbg_connected(struct rift_clt_path *path);
void rift_clt_dbg_close_late(struct rift_clt_path *path);

/* An RSP_RKEY is about to replace @chunk's rkey: remember the old one. */
static inline void rift_clt_dbg_rkey_rotated(struct rift_clt_path *path, u32 chunk)
{
	path->old_rkeys[chunk] = path->chunks[chunk].rkey;
}
#else
static inline void rift_clt_dbg_con_req(struct rift_con_req *req) {}
static inline int rift_clt_dbg_chunks_reset(struct rift_clt_path *path,
					    u32 nr_chunks)
{
	return 0;
}

static inline void rift_clt_dbg_path_free(struct rift_clt_path *path) {}
static inline void rift_clt_dbg_connected(struct rift_clt_path *path) {}
static inline void rift_clt_dbg_close_late(struct rift_clt_path *path) {}
static inline void rift_clt_dbg_rkey_rotated(struct rift_clt_path *path,
					     u32 chunk) {}
#endif

/* rift-clt-hb.c */
unsigned long rift_clt_stall_tick(u32 timeout_ms);
void rift_clt_path_stall_work(struct work_struct *work);
void rift_clt_path_hb_work(struct work_struct *work);
void rift_clt_sess_hb_rearm(struct rift_clt_sess *sess);

/* rift-clt-connect.c */
extern unsigned int rift_clt_connect_timeout_ms;
int rift_clt_con_connect(struct rift_clt_con *con);
void rift_clt_path_close_cons(struct rift_clt_path *path);

/* rift-clt-info.c */
int rift_clt_identity_init(void);
int rift_clt_path_info(struct rift_clt_path *path);
int rift_clt_path_adopt_limits(struct rift_clt_path *path);

/* rift-clt-path.c */
struct rift_clt_path *rift_clt_path_create(struct rift_clt_sess *sess,
					   const struct sockaddr_storage *src,
					   const struct sockaddr_storage *dst);
void rift_clt_path_stop(struct rift_clt_path *path);
void rift_clt_path_destroy(struct rift_clt_path *path);
int rift_clt_path_connect_now(struct rift_clt_path *path);
void rift_clt_path_reconnect(struct rift_clt_path *path);

/* rift-clt-sysfs.c */
extern const struct attribute_group rift_clt_sess_group;
int rift_clt_path_sysfs_add(struct rift_clt_path *path);
void rift_clt_path_sysfs_del(struct rift_clt_path *path);
int rift_clt_parse_addr(const char *s, size_t len,
			struct sockaddr_storage *ss, u16 port);

/* rift-clt-main.c */
int rift_clt_sess_add_path(struct rift_clt_sess *sess,
			   const struct sockaddr_storage *src,
			   const struct sockaddr_storage *dst);
int rift_clt_sess_remove_path(struct rift_clt_path *path, bool keep_one);

#endif /* _RIFT_CLT_H */

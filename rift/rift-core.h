/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift: internals shared by rift-client and rift-server (not a ULP API;
 * ULPs use include/rift/rift.h).
 */
#ifndef _RIFT_CORE_H
#define _RIFT_CORE_H

#include <linux/types.h>
#include <linux/kref.h>
#include <linux/notifier.h>
#include <linux/list.h>
#include <linux/dma-direction.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/stdarg.h>
#include <linux/kobject.h>
#include <linux/socket.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <rift/rift.h>
#include "rift-proto.h"

/* rdma_cm address/route resolution budget, per step. */
#define RIFT_RESOLVE_TIMEOUT_MS	5000

/*
 * Small messages (heartbeats carry no payload; responses with a rotated
 * rkey carry a struct rift_wire_rkey_msg) fit one receive buffer of this
 * size; only the INFO exchange is larger and gets its own buffer.
 */
#define RIFT_MSG_BUF_SIZE	64

/*
 * Request headers and descriptors are small; sending them inline saves
 * the device a DMA read per request.  Devices that cannot get 0.
 */
#define RIFT_MAX_INLINE		256

/* How often a device removal still waiting for Rift says so. */
#define RIFT_DEV_REMOVE_REPORT_MS	10000

/* Notifier event: the device of the struct rift_dev passed along goes away. */
#define RIFT_DEV_REMOVING	1
/* Notifier event: a port went down; the data is a struct rift_port_event. */
#define RIFT_DEV_PORT_DOWN	2

/**
 * struct rift_dev - an RDMA device Rift tracks, for its removal
 * @entry: in the global device list
 * @ib_dev: the device
 * @event_handler: receives the device's port events
 * @users: references from rift_dev_get(): a connection (QP and CQ), a
 *	path's protection domain, staging pages
 * @removing: the device is being unregistered: no new users
 *
 * @users and @removing are written under the device list's mutex; the
 * removal's wait reads @users without it.
 */
struct rift_dev {
	struct list_head	entry;
	struct ib_device	*ib_dev;
	struct ib_event_handler	event_handler;
	unsigned int		users;
	bool			removing;
};

/**
 * struct rift_port_event - what %RIFT_DEV_PORT_DOWN tells its notifiers
 * @dev: device of the port
 * @port: the port number that went down
 */
struct rift_port_event {
	struct rift_dev		*dev;
	u32			port;
};

/**
 * struct rift_pd - a protection domain of one path instance
 * @dev: device reference it holds
 * @pd: the PD; its QPs, chunk MRs and staging MRs live in it
 */
struct rift_pd {
	struct rift_dev		*dev;
	struct ib_pd		*pd;
};

int rift_pd_get(struct rift_pd *p, struct ib_device *ib_dev);
void rift_pd_put(struct rift_pd *p);

struct rift_dev *rift_dev_get(struct ib_device *ib_dev);
void rift_dev_put(struct rift_dev *dev);
bool rift_dev_alive(struct rift_dev *dev);
int rift_dev_register_notifier(struct notifier_block *nb);
void rift_dev_unregister_notifier(struct notifier_block *nb);
int rift_core_ib_init(void);

int rift_auth_proof(const u8 *key, size_t keylen, enum rift_auth_role role,
		    const struct rift_auth_ids *ids, u8 *proof);
int rift_auth_check(const u8 *key, size_t keylen, enum rift_auth_role role,
		    const struct rift_auth_ids *ids, const u8 *proof);
void rift_core_ib_exit(void);

/**
 * struct rift_iu - a DMA-mapped message buffer and the CQE of its work request
 * @cqe: completion entry; ->done is set by the owner
 * @buf: kernel address
 * @size: bytes in @buf
 * @dma: bus address
 * @dir: DMA direction of the mapping
 */
struct rift_iu {
	struct ib_cqe		cqe;
	void			*buf;
	size_t			size;
	u64			dma;
	enum dma_data_direction	dir;
};

struct rift_iu *rift_iu_alloc(struct ib_device *ib_dev, size_t size,
			      enum dma_data_direction dir,
			      void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void rift_iu_free(struct ib_device *ib_dev, struct rift_iu *iu);

/**
 * struct rift_con - one RC connection: rdma_cm id, QP and its completion queue
 * @cm_id: rdma_cm identifier the QP was created on
 * @qp: the QP; kept here too so it can be destroyed after @cm_id
 * @dev: device the QP lives on
 * @pd: protection domain of the QP: its path's, set before
 *	rift_con_create_qp()
 * @cq: from the device's shared CQ pool, or the connection's own when
 *	@direct_cq is set
 * @cq_size: CQEs taken from the pool (or allocated), returned with @cq
 * @direct_cq: the owner polls @cq itself (IB_POLL_DIRECT): set before
 *	rift_con_create_qp(); the CQ pool has no DIRECT CQs, so such a
 *	connection gets a CQ of its own
 * @wq_cq: completions are reaped in a task, the RDMA core's CQ work
 *	(IB_POLL_WORKQUEUE), not in a softirq: set before
 *	rift_con_create_qp().  The handlers may then start work that must
 *	run in a task (submit a bio) at once instead of handing it on
 * @drained: @qp was drained (rift_con_drain_qp()), so destroying it
 *	drains no more
 * @max_send_wr: send queue depth
 * @max_recv_wr: receive queue depth
 * @max_send_sge: scatter/gather entries per send WR
 * @max_inline: bytes a send may carry inline (0: inline not available)
 * @unsignalled: sends posted since the last signalled one
 * @signal_every: signal at least every Nth send
 * @port: port of @dev the QP is bound to (for port events)
 * @rx: the receive ring: @nr_rx message buffers, each posted once the QP
 *	exists and posted again by the owner's receive handler
 * @nr_rx: buffers in @rx
 *
 * Unsignalled sends are retired only by a later signalled one on the same
 * QP, so every sender (IO, heartbeats, control) goes through
 * rift_con_need_signal(): the send queue is sized for twice the WRs that
 * can be outstanding and at least every @signal_every-th send is signalled.
 */
struct rift_con {
	struct rdma_cm_id	*cm_id;
	struct ib_qp		*qp;
	struct rift_dev		*dev;
	u32			port;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	u32			cq_size;
	bool			direct_cq;
	bool			wq_cq;
	bool			drained;
	u32			max_send_wr;
	u32			max_recv_wr;
	u32			max_send_sge;
	u32			max_inline;
	atomic_t		unsignalled;
	u32			signal_every;
	struct rift_iu		**rx;
	u32			nr_rx;
};

/**
 * rift_con_on_port() - whether a connection runs over a given port
 * @con: connection
 * @dev: device of the port
 * @port: port number
 *
 * Compares values only, never dereferences what @con points to: callers
 * look at connections that may be torn down at the same time.
 *
 * Return: true if @con holds a QP on @dev, bound to @port.
 */
static inline bool rift_con_on_port(struct rift_con *con, struct rift_dev *dev,
				    u32 port)
{
	return READ_ONCE(con->dev) == dev && READ_ONCE(con->port) == port;
}

int rift_con_create_qp(struct rift_con *con, struct rdma_cm_id *cm_id,
		       u32 max_send_wr, u32 max_recv_wr, int comp_vector);
void rift_con_drain_qp(struct rift_con *con);
void rift_con_destroy_qp(struct rift_con *con);
void rift_con_put_dev(struct rift_con *con);
bool rift_con_signal_n(struct rift_con *con, u32 nr_wr);

int rift_con_send_imm(struct rift_con *con, struct ib_cqe *cqe,
		      const struct rift_imm *imm);
int rift_con_rx_alloc(struct rift_con *con, struct ib_device *ib_dev, u32 nr,
		      void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void rift_con_rx_free(struct rift_con *con, struct ib_device *ib_dev);
int rift_post_recv(struct rift_con *con, struct rift_iu *iu);
int rift_post_send(struct rift_con *con, struct rift_iu *iu, size_t len,
		   struct ib_send_wr *head, bool signal);

const char *rift_cm_event_str(enum rdma_cm_event_type ev);

/**
 * struct rift_path_stats - the per-CPU counters a path has in both roles
 * @reqs_read: read requests (client: submitted, server: received)
 * @reqs_write: write requests
 * @bytes_read: payload bytes of reads
 * @bytes_write: payload bytes of writes
 * @errors: requests that ended with an error (client: completed with
 *	one, server: answered with one)
 *
 * The first member of each role's per-CPU stats struct: rift-core's
 * stats files read them through struct rift_path_base's @stats.
 */
struct rift_path_stats {
	u64	reqs_read;
	u64	reqs_write;
	u64	bytes_read;
	u64	bytes_write;
	u64	errors;
};

/**
 * struct rift_path_base - what a path is, the same in both roles
 * @kobj: its sysfs directory, paths/<name>/ under its session; the
 *	role's ktype frees the path that embeds this
 * @name: the directory's name, from the addresses
 * @src: source address (client: AF_UNSPEC when the routing picks it)
 * @dst: destination address and port
 * @hca_name: RDMA device it runs on, kept past the device's lifetime
 * @hca_port: its port
 * @lock: the path's state lock; guards @last_error, and the role's
 *	path state with what the role adds (rift-clt.h, rift-srv.h)
 * @last_error: why the path last failed (client: or why its last
 *	connect attempt did); "" until then
 * @state_str: the role's name of the path's state now, for the state
 *	file (the role's state machine's names)
 * @stats: the role's per-CPU stats, which begin with a struct
 *	rift_path_stats
 * @inflight: requests outstanding on the path (client: posted and not
 *	completed, server: at the ULP)
 *
 * Both roles embed it in their path and add rift_path_base_group and
 * rift_path_stats_group to the path's directory: src_addr, dst_addr,
 * hca_name, hca_port, state, last_error and stats/ with the counters of
 * struct rift_path_stats and inflight are the same files, written once.
 * A role adds its own counters to stats/ with sysfs_merge_group(), each
 * a struct rift_stat_attr made with RIFT_STAT_ATTR().  The role sets
 * @state_str and @stats before the directory is added, and initialises
 * @lock itself (a lock class per role).
 */
struct rift_path_base {
	struct kobject			kobj;
	char				name[128];
	struct sockaddr_storage		src;
	struct sockaddr_storage		dst;
	char				hca_name[IB_DEVICE_NAME_MAX];
	u32				hca_port;
	spinlock_t			lock;	/* last_error, role's state */
	char				last_error[128];
	const char			*(*state_str)(struct rift_path_base *base);
	void __percpu			*stats;
	atomic_t			inflight;
};

extern const struct attribute_group rift_path_base_group;
extern const struct attribute_group rift_path_stats_group;

void rift_path_vset_error(struct rift_path_base *base, const char *fmt, va_list ap)
	__printf(2, 0);

/**
 * struct rift_stat_attr - a sysfs file showing one per-CPU counter
 * @attr: the file; its show is rift_path_stat_show()
 * @off: offset of the u64 counter in the role's per-CPU stats struct
 */
struct rift_stat_attr {
	struct kobj_attribute	attr;
	size_t			off;
};

ssize_t rift_path_stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf);

/* A counter file of paths/<name>/stats/: @_field of the role's @_type. */
#define RIFT_STAT_ATTR(_name, _type, _field) {				\
	.attr = __ATTR(_name, 0444, rift_path_stat_show, NULL),		\
	.off = offsetof(_type, _field),					\
}

/**
 * rift_mr_hide_iova() - give an MR an address that tells nothing of the host
 * @mr: MR just mapped by ib_map_mr_sg() with PAGE_SIZE pages
 * @tag: any value, to tell the MRs of one owner apart in traces
 *
 * Peers name memory by the MR's iova, which ib_map_mr_sg() sets to the
 * DMA address of the first page: a kernel virtual address on software
 * devices such as rxe (it would give KASLR away), a bus address on
 * others.  Devices translate an iova relative to the MR's own, so any
 * base works that keeps the offset into the first page (NFS over RDMA
 * rewrites the upper bits of its FRWR iovas the same way).  Lengths stay
 * far below 4 GiB, so the range cannot wrap.
 */
static inline void rift_mr_hide_iova(struct ib_mr *mr, u32 tag)
{
	mr->iova = ((u64)(tag | BIT(31)) << 32) | (mr->iova & ~PAGE_MASK);
}

/**
 * rift_hb_next() - deadline of the next heartbeat tick
 * @due: set to the next tick's deadline
 * @interval_ms: tick period
 *
 * The next tick is due a whole interval after the one running now, not
 * on a fixed grid: every silent tick then gave the peer at least an
 * interval to answer the last heartbeat, however late the host ran the
 * tick (a grid would shorten the gap after a late tick, and a loaded peer
 * could be declared dead for it).  The price is that lateness adds up
 * over the hb_missed_max ticks of a decision; rift_hb_late_ms() tells how
 * much, for the trace.
 *
 * Return: the delay, in jiffies, to queue the next tick with.
 */
static inline unsigned long rift_hb_next(unsigned long *due, u32 interval_ms)
{
	unsigned long ivl = msecs_to_jiffies(interval_ms);

	*due = jiffies + ivl;
	return ivl;
}

/**
 * struct rift_hb - a path's heartbeats, in either role
 * @rx_seen: something arrived since the last tick (0 or 1); set by the
 *	receive handlers (rift_hb_rx()), taken by the tick
 * @interval_ms: tick period
 * @missed_max: silent ticks in a row that fail the path
 * @missed: silent ticks in a row so far
 * @seq: sequence number of the last heartbeat sent
 * @outstanding: a heartbeat was sent and not yet answered; one at most,
 *	or the peer's receive queue could fill
 * @sent: when the outstanding heartbeat was sent
 * @rtt_us: round trip of the last answered heartbeat
 * @due: deadline, in jiffies, of the next tick
 *
 * The tick runs from its owner's delayed work, one at a time; the
 * receive handlers touch only @rx_seen, and the HB_ACK handler @seq,
 * @outstanding and @rtt_us (rift_hb_ack()).
 */
struct rift_hb {
	atomic_t	rx_seen;
	u32		interval_ms;
	u32		missed_max;
	u32		missed;
	u16		seq;
	bool		outstanding;
	ktime_t		sent;
	u32		rtt_us;
	unsigned long	due;
};

/**
 * rift_hb_start() - the path is connected: a fresh count
 * @hb: heartbeats
 *
 * Counts the connect itself as traffic, so the first tick is not silent.
 */
static inline void rift_hb_start(struct rift_hb *hb)
{
	hb->missed = 0;
	WRITE_ONCE(hb->outstanding, false);
	atomic_set(&hb->rx_seen, 1);
}

/**
 * rift_hb_rx() - something arrived on the path
 * @hb: heartbeats
 */
static inline void rift_hb_rx(struct rift_hb *hb)
{
	atomic_set(&hb->rx_seen, 1);
}

/**
 * rift_hb_tick() - count one tick
 * @hb: heartbeats
 *
 * Return: true once @missed_max ticks in a row saw nothing arrive: the
 * owner fails the path ("nothing received for @missed * @interval_ms").
 */
static inline bool rift_hb_tick(struct rift_hb *hb)
{
	if (atomic_xchg(&hb->rx_seen, 0))
		hb->missed = 0;
	else
		hb->missed++;
	return hb->missed >= hb->missed_max;
}

/**
 * rift_hb_send() - whether to send a heartbeat on this tick
 * @hb: heartbeats
 * @busy_too: send on ticks that saw traffic as well (the client does,
 *	so that @rtt_us stays fresh); otherwise only on silent ones
 * @seq: the heartbeat's sequence number, when it is to be sent
 *
 * Return: true if the owner sends a heartbeat with *@seq now.
 */
static inline bool rift_hb_send(struct rift_hb *hb, bool busy_too, u16 *seq)
{
	if (READ_ONCE(hb->outstanding) || (!busy_too && !hb->missed))
		return false;
	WRITE_ONCE(hb->outstanding, true);
	*seq = hb->seq + 1;
	WRITE_ONCE(hb->seq, *seq);
	hb->sent = ktime_get();
	return true;
}

/**
 * rift_hb_ack() - a heartbeat was answered
 * @hb: heartbeats
 * @seq: the sequence number the answer carries
 *
 * An answer to an earlier heartbeat (a late one) changes nothing.
 */
static inline void rift_hb_ack(struct rift_hb *hb, u16 seq)
{
	if (seq != READ_ONCE(hb->seq))
		return;
	WRITE_ONCE(hb->rtt_us, ktime_us_delta(ktime_get(), hb->sent));
	WRITE_ONCE(hb->outstanding, false);
}

/**
 * rift_hb_late_ms() - how late a heartbeat tick runs
 * @due: its deadline
 *
 * Return: milliseconds since @due, 0 if it is not past.
 */
static inline u32 rift_hb_late_ms(unsigned long due)
{
	unsigned long now = jiffies;

	return time_after(now, due) ? jiffies_to_msecs(now - due) : 0;
}

#endif /* _RIFT_CORE_H */

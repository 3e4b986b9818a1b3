// SPDX-License-Identifier: GPL-2.0
/*
 * rift-evil: a hostile Rift server in user space, for the kernel client
 * (selftests/hostile_server.sh).
 *
 * It serves rift-test's store (test/rift-test.c's ULP header, a RAM store
 * here) well enough for the kernel client to bring paths up and run
 * verified IO, and breaks the protocol on purpose on the paths that come
 * in over its "bad" address, as the case given with -c says:
 *
 *   forged_idle     an extra RSP for a chunk with no request on it
 *   forged_range    an extra RSP naming a chunk beyond the queue depth
 *   errno_range     a RSP whose errno field exceeds 4095 (its bits 15..12
 *                   set: the bad path does not accept RIFT_FEAT_RSP_GEN)
 *   dup_rsp         a request answered twice
 *   wrong_con       the answer on another connection of the path
 *   late_rsp        an answer after the client timed the request out
 *                   (-l MS later), then the same answer once more
 *   late_rsp_gen    RSP_GEN accepted: as late_rsp, but one answer only,
 *                   echoing another generation than the request's: not
 *                   the orphan's late answer
 *   late_rsp_con    as late_rsp, but one answer only, on another
 *                   connection of the path than the request's
 *   rkey_noai       RSP_RKEY without always-invalidate negotiated
 *   rkey_chunk      always-invalidate: RSP_RKEY whose payload names
 *                   another chunk than its immediate
 *   rkey_bogus      always-invalidate: RSP_RKEY with a key that does not
 *                   exist; the client's next write to the chunk is
 *                   refused by this side's device
 *   rkey_missing    always-invalidate: a plain RSP, no new key
 *   read_overrun    read data written past the client's segment
 *   info_qd         INFO_RSP queue depth differs from CON_RSP's
 *   info_chunk_size INFO_RSP chunk size differs from CON_RSP's
 *   info_feat       INFO_RSP accepts a feature bit nobody knows
 *   info_rinv       INFO_RSP accepts REMOTE_INV (offered) alone, without
 *                   the always-invalidate it qualifies
 *   info_table      a chunk table entry shorter than the chunk size
 *   con_rsp_differs the CON_RSP of connection 1 grants another chunk
 *                   size than connection 0's
 *   hb_flood        heartbeats as fast as the send queue takes them
 *                   (-f MS long)
 *   rnr             no receive reposted: the client's sends meet
 *                   receiver-not-ready for good
 *   silent          nothing answered, heartbeats neither; the
 *                   connections stay up
 *   mute_io         from the first request on, nothing answered on the
 *                   IO connections (requests nor heartbeats), while
 *                   connection 0 answers heartbeats: a wedged IO
 *                   connection under a control connection that is fine;
 *                   "mute_io: silent from S.US" gives the moment on
 *                   CLOCK_MONOTONIC
 *   mute_always     mute_io on every path instance, over either address,
 *                   not once: the client's requests go from path to path
 *                   and none is ever answered
 *   mute_ctl        from the first request on, nothing answered on
 *                   connection 0 (heartbeats nor credit requests) while the
 *                   IO connections answer every request: a wedged control
 *                   connection under IO that moves; "mute_ctl: silent
 *                   from S.US" as for mute_io
 *   rsp_gen         RSP_GEN accepted: a request answered (once) with
 *                   another generation than its descriptor's while the
 *                   client waits for it
 *
 * Every path accepts RIFT_FEAT_RSP_GEN when the client offers it (but the
 * bad one of errno_range, and none with -G), and its answers echo the
 * request's generation, as rift-server's do: dup_rsp's and late_rsp's
 * second answers echo it too.  With -G every path declines the feature,
 * as a server that predates it: answers carry no generation, and a
 * request descriptor that carries one anyway (the client may send it
 * only with RSP_GEN or CANCEL_GEN, and this server accepts neither) is
 * logged once per path instance as "descriptor generation N without
 * RSP_GEN or CANCEL_GEN".
 *
 * The cr_* cases accept memory credits (RIFT_FEAT_CREDITS) on their bad
 * paths, grant 2 chunks in INFO_RSP and answer CREDIT_REQs, breaking one
 * rule once:
 *
 *   cr_malformed    the first answer says 4 grants and carries 3
 *   cr_unknown      the first answer grants a chunk beyond the queue depth
 *   cr_twice        the first answer grants chunk 0, which the client holds
 *   cr_count        the first answer's granted count is one too many
 *   cr_unsolicited  with the first request, a CREDIT that neither answers
 *                   nor revokes
 *   cr_floor        with the first request, a revoke down to 1 chunk
 *   cr_rsp_ungranted with the first request's answer, a RSP naming a chunk
 *                   not granted
 *   cr_revoke       no violation: once the grant has grown, a revoke down
 *                   to 2 chunks (valid); the client gives chunks back
 *                   ("released chunk N") and IO goes on
 *
 * With -B it serves riftblk instead: its RAM store is one device (any
 * OPEN path maps it read-write, 512-byte blocks, discard and write
 * zeroes), so a kernel riftblk client maps it and runs IO; the rb_*
 * cases break the device limits in every OPEN_RSP (INFO_RSP for
 * rb_info_dgran) sent over a bad path, starting from valid ones:
 *
 *   rb_lbs          logical block size 1000
 *   rb_sectors      4 KiB blocks and a size that is not a whole number
 *                   of them
 *   rb_max_hw       max_hw_sectors 0
 *   rb_dgran        discard granularity 3000 (not a power of two)
 *   rb_dgran_huge   discard granularity 2^31
 *   rb_short        the message's length field shorter than an OPEN_RSP
 *   rb_info_dgran   a valid OPEN_RSP; every INFO_RSP (size poll) has
 *                   discard granularity 3000 and twice the size
 *
 * The info_* and con_rsp_differs cases hit every attempt of a bad path
 * (it never comes up), mute_always every instance of any path once it
 * has a request;
 * the others fire once, on the first bad path
 * instance that gets a request (hb_flood, rnr and silent: that finishes
 * its INFO exchange; mute_io: on an IO connection), after which the path
 * reconnects to a server that behaves.  "none" misbehaves nowhere.
 *
 * usage: rift-evil -g GOOD_ADDR [-b BAD_ADDR] [-p PORT] [-c CASE] [-B] [-G]
 *                  [-t SECONDS] [-l LATE_MS] [-f FLOOD_MS]
 *        rift-evil -L
 *
 * Prints "listening" once both listeners are up, one line per path
 * event ("path N ...", "fired CASE ...") and exits 0 after SECONDS
 * (default 60), 2 on a setup error.  Messages are built with Rift's
 * codec; the hostile ones start from valid values and break them.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "peer-lib.h"
#include <riftblk/riftblk-proto.h>

#define EVIL_MAX_PATHS		8
#define EVIL_MAX_CONS		8
#define EVIL_QD			8
#define EVIL_CHUNK		(36U << 10)
#define EVIL_IO			(32U << 10)
#define EVIL_STORE		(4U << 20)
/* The two answers of late_rsp are this far apart. */
#define EVIL_LATE_GAP_MS	500

static_assert(EVIL_IO + RIFT_CHUNK_HEADROOM <= EVIL_CHUNK);
static_assert(EVIL_IO + 4096 <= PEER_TX_MAX);

enum evil_case {
	C_NONE, C_FORGED_IDLE, C_FORGED_RANGE, C_ERRNO_RANGE, C_DUP_RSP,
	C_WRONG_CON, C_LATE_RSP, C_RKEY_NOAI, C_RKEY_CHUNK, C_RKEY_BOGUS,
	C_RKEY_MISSING, C_READ_OVERRUN, C_INFO_QD, C_INFO_CHUNK_SIZE,
	C_INFO_FEAT, C_INFO_RINV, C_INFO_TABLE, C_CON_RSP_DIFFERS, C_HB_FLOOD, C_RNR,
	C_SILENT, C_MUTE_IO, C_MUTE_ALWAYS, C_MUTE_CTL, C_RSP_GEN, C_LATE_RSP_GEN, C_LATE_RSP_CON,
	C_CR_MALFORMED, C_CR_UNKNOWN,
	C_CR_TWICE, C_CR_COUNT, C_CR_UNSOLICITED, C_CR_FLOOR, C_CR_RSP_UNGRANTED,
	C_CR_REVOKE, C_RB_LBS, C_RB_SECTORS, C_RB_MAX_HW,
	C_RB_DGRAN, C_RB_DGRAN_HUGE, C_RB_SHORT, C_RB_INFO_DGRAN, C_NR,
};

static const char * const case_names[C_NR] = {
	"none", "forged_idle", "forged_range", "errno_range", "dup_rsp",
	"wrong_con", "late_rsp", "rkey_noai", "rkey_chunk", "rkey_bogus",
	"rkey_missing", "read_overrun", "info_qd", "info_chunk_size",
	"info_feat", "info_rinv", "info_table", "con_rsp_differs", "hb_flood", "rnr",
	"silent", "mute_io", "mute_always", "mute_ctl", "rsp_gen", "late_rsp_gen", "late_rsp_con",
	"cr_malformed", "cr_unknown",
	"cr_twice", "cr_count", "cr_unsolicited", "cr_floor", "cr_rsp_ungranted",
	"cr_revoke", "rb_lbs", "rb_sectors", "rb_max_hw",
	"rb_dgran", "rb_dgran_huge", "rb_short", "rb_info_dgran",
};

/**
 * struct epath - one path instance as this server sees it
 * @used: the slot holds a path
 * @bad: it came in over the bad address
 * @id: number for the log
 * @req: CON_REQ of connection 0
 * @rsp: CON_RSP of connection 0
 * @con: the accepted connections, @nr_cons of them
 * @nr_cons: connections accepted so far
 * @region: the chunks, @rsp.queue_depth of EVIL_CHUNK bytes
 * @raddr: their address for the client
 * @rkey: their key
 * @info_done: INFO_RSP sent
 * @ai: always-invalidate accepted: every answer is a RSP_RKEY
 * @rsp_gen: RIFT_FEAT_RSP_GEN accepted: every answer echoes the low bits
 *	of its request's generation
 * @fired: this instance misbehaves now (hb_flood, rnr, silent, mute_io,
 *	   mute_always, mute_ctl)
 * @held: late_rsp*: answers of the held request still to send
 * @held_sent: answers of it sent so far
 * @held_chunk: its chunk
 * @held_con: the connection its answers go on: the one it came on (but
 *	for late_rsp_con)
 * @held_gen: the generation its answers echo: its own (but for
 *	late_rsp_gen)
 * @held_due: when the next answer goes out
 * @gen_seen: a descriptor carried a generation the path never asked for
 * @flood_end: hb_flood: when to stop
 * @hb_seq: sequence of the flood's heartbeats
 * @credits: memory credits accepted (cr_* cases, bad paths)
 * @granted: per chunk, granted to the client
 * @nr_granted: chunks granted
 * @rels: chunks the client gave back
 */
struct epath {
	bool			used;
	bool			bad;
	int			id;
	struct rift_con_req	req;
	struct rift_con_rsp	rsp;
	struct peer_conn	*con[EVIL_MAX_CONS];
	u16			nr_cons;
	u8			*region;
	u64			raddr;
	u32			rkey;
	bool			info_done;
	bool			ai;
	bool			rsp_gen;
	bool			fired;
	int			held;
	int			held_sent;
	u16			held_chunk;
	u16			held_con;
	u16			held_gen;
	long long		held_due;
	bool			gen_seen;
	long long		flood_end;
	u16			hb_seq;
	bool			credits;
	bool			granted[EVIL_QD];
	u16			nr_granted;
	u16			rels;
};

static enum evil_case the_case = C_NONE;
/* -G: no path accepts RIFT_FEAT_RSP_GEN, as a server that predates it. */
static bool no_rsp_gen;
/* A once-only case has happened (on some bad path instance). */
static bool fired_once;
static int late_ms = 5000;
static int flood_ms = 5000;
static int path_ids;
static struct epath paths[EVIL_MAX_PATHS];
/* Room behind the end for read_overrun's extra page. */
static u8 store[EVIL_STORE + 4096];

static __printf(2, 3) void say(const struct epath *p, const char *fmt, ...)
{
	va_list ap;

	printf("path %d%s: ", p->id, p->bad ? " (bad)" : "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static bool info_case(void)
{
	return the_case >= C_INFO_QD && the_case <= C_CON_RSP_DIFFERS;
}

static bool credit_case(void)
{
	return the_case >= C_CR_MALFORMED && the_case <= C_CR_REVOKE;
}

/* The initial grant of the cr_* cases: the protocol's floor. */
#define EVIL_CREDIT_FLOOR	2

static bool blk_case(void)
{
	return the_case >= C_RB_LBS && the_case <= C_RB_INFO_DGRAN;
}

/*
 * Case @c fires on @p now: a once-only case if @p is a bad path and it has
 * not fired yet, mute_always on every path instance.
 */
static bool fire(struct epath *p, enum evil_case c)
{
	if (the_case != c)
		return false;
	if (c != C_MUTE_ALWAYS) {
		if (!p->bad || fired_once)
			return false;
		fired_once = true;
	}
	p->fired = true;
	say(p, "fired %s", case_names[c]);
	return true;
}

static void path_close(struct epath *p, const char *why)
{
	int i;

	say(p, "closed (%s)", why);
	/* Connection 0 holds the region's domain longest: free it last. */
	for (i = p->nr_cons - 1; i >= 0; i--)
		peer_conn_free(p->con[i]);
	memset(p, 0, sizeof(*p));
}

static bool send_imm_raw(struct peer_conn *c, __be32 imm)
{
	u32 raw = (__force u32)imm;

	return !peer_send(c, NULL, 0, &raw);
}

/* What an answer to a request of generation @gen carries in arg bits 15..12. */
static u16 rsp_gen_of(const struct epath *p, u16 gen)
{
	return rift_proto_rsp_gen_put(gen, p->rsp_gen ? RIFT_FEAT_RSP_GEN : 0);
}

static bool send_rsp_raw(struct epath *p, u16 con, u16 chunk, u16 gen, int err,
			 bool rkey_msg, u16 msg_chunk, u32 rkey)
{
	struct rift_imm imm = {
		.type	= rkey_msg ? RIFT_IMM_RSP_RKEY : RIFT_IMM_RSP,
		.chunk	= chunk,
		.err	= err,
	};
	u8 msg[sizeof(struct rift_wire_rkey_msg)];
	__be32 v;
	u32 raw;

	/* Chunk ids up to the field's limit: the client must check them. */
	v = imm_raw(imm.type, chunk, -err | (u32)rsp_gen_of(p, gen) << RIFT_IMM_RSP_GEN_SHIFT);
	raw = (__force u32)v;
	if (!rkey_msg)
		return !peer_send(p->con[con], NULL, 0, &raw);
	if (rift_proto_rkey_encode(msg_chunk, rkey, msg, sizeof(msg)) < 0)
		return false;
	return !peer_send(p->con[con], msg, sizeof(msg), &raw);
}

/* The answer a well-behaved server gives to a request of generation @gen. */
static bool send_rsp(struct epath *p, u16 con, u16 chunk, u16 gen, int err)
{
	return send_rsp_raw(p, con, chunk, gen, err, p->ai, chunk, p->rkey);
}

/* ------------------------------------------------------------------ */
/* Connection establishment and INFO                                   */
/* ------------------------------------------------------------------ */

static struct epath *path_find(const struct rift_con_req *req)
{
	int i;

	for (i = 0; i < EVIL_MAX_PATHS; i++)
		if (paths[i].used &&
		    !memcmp(paths[i].req.sess_uuid, req->sess_uuid, RIFT_UUID_LEN) &&
		    !memcmp(paths[i].req.path_uuid, req->path_uuid, RIFT_UUID_LEN))
			return &paths[i];
	return NULL;
}

static void refuse(struct peer_conn *c, u16 reason)
{
	struct rift_reject rej = {
		.reason		= reason,
		.min_version	= RIFT_PROTO_VERSION_MIN,
		.max_version	= RIFT_PROTO_VERSION_MAX,
	};
	u8 buf[sizeof(struct rift_wire_reject)];
	int len = rift_proto_reject_encode(&rej, buf, sizeof(buf));

	peer_conn_reject(c, buf, len > 0 ? len : 0);
	peer_conn_free(c);
}

static void on_connect(struct peer_conn *c, bool bad)
{
	struct rift_con_rsp rsp = { .status = RIFT_REJ_NONE };
	struct rift_con_req req;
	u8 buf[sizeof(struct rift_wire_con_rsp)];
	struct epath *p;
	const void *d;
	size_t n;
	int len, i;

	d = peer_conn_priv(c, &n);
	if (rift_proto_con_req_decode(d, n, &req)) {
		printf("connect request without a valid CON_REQ\n");
		refuse(c, RIFT_REJ_MALFORMED);
		return;
	}
	p = path_find(&req);
	if (req.con_idx == 0) {
		/* A new instance replaces what is left of the old one. */
		if (p)
			path_close(p, "replaced");
		for (i = 0, p = NULL; i < EVIL_MAX_PATHS && !p; i++)
			if (!paths[i].used)
				p = &paths[i];
		if (!p || req.con_cnt > EVIL_MAX_CONS) {
			refuse(c, RIFT_REJ_NO_RESOURCES);
			return;
		}
		memset(p, 0, sizeof(*p));
		p->used = true;
		p->bad = bad;
		p->id = ++path_ids;
		p->req = req;
		p->rsp.version = req.max_version < RIFT_PROTO_VERSION_MAX ?
				 req.max_version : RIFT_PROTO_VERSION_MAX;
		p->rsp.queue_depth = req.queue_depth < EVIL_QD ? req.queue_depth : EVIL_QD;
		p->rsp.max_io_size = EVIL_IO;
		p->rsp.chunk_size = EVIL_CHUNK;
		p->rsp.flags = RIFT_CON_RSP_F_NEW_SESSION;
		p->rsp.has_nonce = true;
		for (i = 0; i < RIFT_AUTH_NONCE_LEN; i++)
			p->rsp.auth_nonce[i] = (u8)rand();
	} else if (!p || req.con_idx != p->nr_cons || req.reconnect_gen != p->req.reconnect_gen ||
		   req.con_idx >= EVIL_MAX_CONS) {
		refuse(c, RIFT_REJ_BAD_CON_INDEX);
		return;
	}
	rsp = p->rsp;
	if (req.con_idx && bad && the_case == C_CON_RSP_DIFFERS) {
		/* Valid on its own; only the comparison with connection 0 fails. */
		rsp.chunk_size += 4096;
		rsp.flags = 0;
		say(p, "CON_RSP of connection %u: chunk size %u, connection 0 had %u",
		    req.con_idx, rsp.chunk_size, p->rsp.chunk_size);
	} else if (req.con_idx) {
		rsp.flags = 0;
	}
	len = rift_proto_con_rsp_encode(&rsp, buf, sizeof(buf));
	if (len < 0 ||
	    peer_conn_accept(c, req.con_idx ? p->con[0] : NULL, buf, len) != PEER_ESTABLISHED) {
		say(p, "connection %u not established: %s", req.con_idx, peer_conn_error(c));
		peer_conn_free(c);
		if (!req.con_idx)
			memset(p, 0, sizeof(*p));
		else
			path_close(p, "a connection failed");
		return;
	}
	p->con[p->nr_cons++] = c;
	if (!req.con_idx) {
		p->region = peer_region(c, (size_t)p->rsp.queue_depth * EVIL_CHUNK, &p->raddr,
					&p->rkey);
		if (!p->region) {
			path_close(p, "no chunk memory");
			return;
		}
	}
	say(p, "connection %u of %u established", req.con_idx, req.con_cnt);
}

static int put_u32(struct rift_info_builder *b, u16 type, u32 v)
{
	__le32 w = cpu_to_le32(v);

	return rift_info_put(b, type, &w, sizeof(w));
}

/*
 * Built TLV by TLV rather than with rift_info_encode(), which refuses to
 * build what a client must refuse.
 */
static int info_rsp_build(struct epath *p, u32 hb_ms, u64 offered, u8 *buf, size_t cap)
{
	struct rift_info_builder b;
	u32 qd = p->rsp.queue_depth, cs = p->rsp.chunk_size, i, nr_table;
	u8 table[sizeof(struct rift_wire_chunk_tlv) +
		 EVIL_QD * sizeof(struct rift_wire_rbuf)];
	u64 feat = 0;
	__le64 f;
	int err;

	if (p->bad && (the_case == C_RKEY_CHUNK || the_case == C_RKEY_BOGUS ||
		       the_case == C_RKEY_MISSING))
		p->ai = true;
	if (p->ai)
		feat |= RIFT_FEAT_ALWAYS_INVALIDATE;
	if (p->bad && the_case == C_INFO_QD)
		qd--;
	if (p->bad && the_case == C_INFO_CHUNK_SIZE)
		cs += 4096;
	if (p->bad && the_case == C_INFO_FEAT)
		feat |= BIT_ULL(9);
	/* errno_range's bad path sets bits 15..12, which only RSP_GEN allows. */
	if ((offered & RIFT_FEAT_RSP_GEN) && !no_rsp_gen &&
	    !(p->bad && the_case == C_ERRNO_RANGE)) {
		p->rsp_gen = true;
		feat |= RIFT_FEAT_RSP_GEN;
	}
	/* Nothing else, so that the client's reason names this bit alone. */
	if (p->bad && the_case == C_INFO_RINV) {
		feat = RIFT_FEAT_REMOTE_INV;
		p->rsp_gen = false;
	}
	/* The table is the initial grant; the rest comes on request. */
	nr_table = qd;
	if (p->bad && credit_case() && (offered & RIFT_FEAT_CREDITS) &&
	    qd > EVIL_CREDIT_FLOOR) {
		p->credits = true;
		feat |= RIFT_FEAT_CREDITS;
		nr_table = EVIL_CREDIT_FLOOR;
	}
	for (i = 0; i < qd; i++)
		p->granted[i] = i < nr_table;
	p->nr_granted = nr_table;
	err = rift_info_start(&b, buf, cap, RIFT_INFO_RSP, p->rsp.version, 0);
	f = cpu_to_le64(feat);
	err = err ?: rift_info_put(&b, RIFT_TLV_FEAT_ACCEPTED, &f, sizeof(f));
	err = err ?: put_u32(&b, RIFT_TLV_HB_INTERVAL_MS, hb_ms);
	err = err ?: put_u32(&b, RIFT_TLV_HB_MISSED_MAX, RIFT_HB_MISSED_DEFAULT);
	err = err ?: put_u32(&b, RIFT_TLV_MAX_IO_SIZE, p->rsp.max_io_size);
	err = err ?: put_u32(&b, RIFT_TLV_QUEUE_DEPTH, qd);
	err = err ?: put_u32(&b, RIFT_TLV_CHUNK_SIZE, cs);
	if (err)
		return err;
	put_le16(table, 0);
	put_le16(table + 2, sizeof(struct rift_wire_rbuf));
	for (i = 0; i < nr_table; i++) {
		u8 *e = table + 4 + i * sizeof(struct rift_wire_rbuf);
		u32 len = cs;

		if (p->bad && the_case == C_INFO_TABLE && i == 1)
			len = cs / 2;
		put_le64(e, p->raddr + (u64)i * EVIL_CHUNK);
		put_le32(e + 8, len);
		put_le32(e + 12, p->rkey);
	}
	err = rift_info_put(&b, RIFT_TLV_CHUNK_TABLE | RIFT_TLV_CRITICAL, table,
			    4 + nr_table * sizeof(struct rift_wire_rbuf));
	return err ?: rift_info_finish(&b);
}

static void on_info_req(struct epath *p, const struct peer_recv *r)
{
	struct rift_info req;
	u8 buf[1024];
	int len;

	if (rift_info_parse(r->data, r->len, p->rsp.version, &req, NULL, 0) ||
	    req.type != RIFT_INFO_REQ) {
		path_close(p, "bad INFO_REQ");
		return;
	}
	len = info_rsp_build(p, req.hb_interval_ms ? req.hb_interval_ms :
			     RIFT_HB_INTERVAL_DEFAULT_MS, req.feat_offered, buf, sizeof(buf));
	if (len < 0 || peer_send(p->con[0], buf, len, NULL)) {
		path_close(p, "cannot send INFO_RSP");
		return;
	}
	p->info_done = true;
	say(p, "INFO_RSP sent: session %s from %s, %u chunks%s%s%s", req.sess_name,
	    req.host_name, p->rsp.queue_depth, p->ai ? ", always-invalidate" : "",
	    p->credits ? ", credits" : "", p->rsp_gen ? ", rsp-gen" : "");
	if (fire(p, C_SILENT))
		return;
	if (fire(p, C_HB_FLOOD)) {
		p->flood_end = now_ms() + flood_ms;
		return;
	}
	if (fire(p, C_RNR)) {
		int i;

		for (i = 0; i < p->nr_cons; i++)
			peer_conn_no_repost(p->con[i]);
	}
}

/* ------------------------------------------------------------------ */
/* Memory credits (cr_* cases)                                         */
/* ------------------------------------------------------------------ */

/* One CREDIT message, as encoded; @len bytes of @buf go out. */
static bool send_credit(struct epath *p, const u8 *buf, int len)
{
	u32 raw = (__force u32)imm_raw(RIFT_IMM_CREDIT, 0, 0);

	return len > 0 && !peer_send(p->con[0], buf, len, &raw);
}

/*
 * A valid CREDIT encoded with the codec, then broken in its bytes as the
 * case says (the encoder refuses to build what a client must refuse).
 */
static int credit_build(struct epath *p, struct rift_credit *c, u8 *buf)
{
	int len = rift_proto_credit_encode(c, p->rsp.queue_depth, buf, RIFT_CREDIT_MAX_LEN);

	if (len < 0)
		return len;
	if (fire(p, C_CR_MALFORMED))
		buf[0] = RIFT_CREDIT_MAX_GRANTS + 1;
	else if (c->nr_grant && fire(p, C_CR_UNKNOWN))
		put_le16(buf + 16 + 12, p->rsp.queue_depth);
	else if (c->nr_grant && fire(p, C_CR_TWICE))
		put_le16(buf + 16 + 12, 0);
	else if (fire(p, C_CR_COUNT))
		put_le16(buf + 4, c->granted + 1);
	return len;
}

/* Answer a CREDIT_REQ as the protocol says: up to @want, 3 per message. */
static void on_credit_req(struct epath *p, u16 want)
{
	u16 qd = p->rsp.queue_depth, n, i = 0, k;
	u8 buf[RIFT_CREDIT_MAX_LEN];
	struct rift_credit c;
	int len;

	n = want > p->nr_granted ? want - p->nr_granted : 0;
	if (n > RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS)
		n = RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS;
	do {
		memset(&c, 0, sizeof(c));
		for (k = 0; k < RIFT_CREDIT_MAX_GRANTS && n; k++, n--) {
			while (i < qd && p->granted[i])
				i++;
			if (i >= qd)
				break;
			p->granted[i] = true;
			p->nr_granted++;
			c.grant[c.nr_grant].chunk = i;
			c.grant[c.nr_grant].addr = p->raddr + (u64)i * EVIL_CHUNK;
			c.grant[c.nr_grant].rkey = p->rkey;
			c.nr_grant++;
		}
		c.flags = RIFT_CREDIT_F_ANSWER | (n ? RIFT_CREDIT_F_MORE : 0);
		c.granted = p->nr_granted;
		len = credit_build(p, &c, buf);
		if (!send_credit(p, buf, len)) {
			path_close(p, "cannot send a credit answer");
			return;
		}
	} while (n);
	say(p, "credit request for %u: %u granted", want, p->nr_granted);
}

/*
 * The credit cases that come with a request: a CREDIT that neither
 * answers nor revokes, a revoke below the floor, a response naming a
 * chunk not granted, a valid revoke once the grant has grown.
 */
static void credit_with_request(struct epath *p, u16 con)
{
	u8 buf[RIFT_CREDIT_MAX_LEN];
	struct rift_credit c = { .granted = p->nr_granted };
	u16 i, qd = p->rsp.queue_depth;

	if (!p->credits)
		return;
	if (fire(p, C_CR_UNSOLICITED)) {
		for (i = 0; i < qd && p->granted[i]; i++)
			;
		if (i < qd) {
			c.nr_grant = 1;
			c.grant[0].chunk = i;
			c.grant[0].addr = p->raddr + (u64)i * EVIL_CHUNK;
			c.grant[0].rkey = p->rkey;
			c.granted++;
		}
		/* A valid answer, but to no request: its ANSWER flag goes. */
		c.flags = RIFT_CREDIT_F_ANSWER;
		if (rift_proto_credit_encode(&c, qd, buf, sizeof(buf)) > 0) {
			buf[1] = 0;
			send_credit(p, buf, 16 + 16 * c.nr_grant);
		}
		return;
	}
	if (fire(p, C_CR_FLOOR)) {
		/* By hand: no valid revoke exists at the floor to start from. */
		memset(buf, 0, sizeof(buf));
		buf[1] = RIFT_CREDIT_F_REVOKE;
		put_le16(buf + 2, 1);
		put_le16(buf + 4, p->nr_granted);
		send_credit(p, buf, 16);
		return;
	}
	if (fire(p, C_CR_RSP_UNGRANTED)) {
		for (i = qd; i-- > 0 && p->granted[i];)
			;
		if (i < qd)
			send_rsp(p, con, i, 0, 0);
		return;
	}
	if (p->nr_granted > EVIL_CREDIT_FLOOR + 2 && fire(p, C_CR_REVOKE)) {
		c.flags = RIFT_CREDIT_F_REVOKE;
		c.keep = EVIL_CREDIT_FLOOR;
		if (rift_proto_credit_encode(&c, qd, buf, sizeof(buf)) > 0 &&
		    send_credit(p, buf, 16))
			say(p, "revoke: %u granted, keep %u", c.granted, c.keep);
	}
}

static void on_credit_rel(struct epath *p, u16 chunk)
{
	if (!p->credits || chunk >= p->rsp.queue_depth || !p->granted[chunk]) {
		path_close(p, "bad CREDIT_REL");
		return;
	}
	p->granted[chunk] = false;
	p->nr_granted--;
	p->rels++;
	say(p, "released chunk %u (%u released, %u granted)", chunk, p->rels, p->nr_granted);
}

/* ------------------------------------------------------------------ */
/* riftblk (-B)                                                        */
/* ------------------------------------------------------------------ */

#define EVIL_BLK_DEV_ID		7

static bool blk_mode;

/*
 * OPEN_RSP or INFO_RSP of the store, into @buf (RIFTBLK_RSP_BUF_LEN
 * bytes): encoded from valid limits, then broken in the wire struct as
 * the case says (the encoder refuses bad values on purpose).
 * Return: bytes to send, or a negative errno.
 */
static int blk_info_build(struct epath *p, u16 type, u8 *buf)
{
	struct riftblk_wire_dev_info *w = (struct riftblk_wire_dev_info *)buf;
	bool open = type == RIFTBLK_MSG_OPEN_RSP;
	struct riftblk_dev_info info = {
		.dev_id			= EVIL_BLK_DEV_ID,
		.access_mode		= RIFTBLK_ACCESS_RW,
		.nr_sectors		= EVIL_STORE >> 9,
		.logical_block_size	= 512,
		.physical_block_size	= 4096,
		.max_hw_sectors		= EVIL_IO >> 9,
		.max_discard_sectors	= EVIL_STORE >> 9,
		.discard_granularity	= 4096,
		.max_write_zeroes_sectors = EVIL_STORE >> 9,
	};
	int len;

	len = riftblk_dev_info_encode(type, &info, buf, RIFTBLK_RSP_BUF_LEN);
	if (len < 0 || !p->bad || !blk_case() ||
	    open == (the_case == C_RB_INFO_DGRAN))
		return len;
	switch (the_case) {
	case C_RB_LBS:
		w->logical_block_size = cpu_to_le32(1000);
		break;
	case C_RB_SECTORS:
		w->logical_block_size = cpu_to_le32(4096);
		w->nr_sectors = cpu_to_le64((EVIL_STORE >> 9) - 1);
		break;
	case C_RB_MAX_HW:
		w->max_hw_sectors = 0;
		break;
	case C_RB_DGRAN:
		w->discard_granularity = cpu_to_le32(3000);
		break;
	case C_RB_DGRAN_HUGE:
		w->discard_granularity = cpu_to_le32(1U << 31);
		break;
	case C_RB_SHORT:
		w->hdr.len = cpu_to_le16(sizeof(*w) - 24);
		break;
	case C_RB_INFO_DGRAN:
		/* A client that took it would also take the new size. */
		w->discard_granularity = cpu_to_le32(3000);
		w->nr_sectors = cpu_to_le64((EVIL_STORE >> 9) * 2);
		break;
	default:
		break;
	}
	say(p, "fired %s: %s sent", case_names[the_case], open ? "OPEN_RSP" : "INFO_RSP");
	return len;
}

/* @len bytes from @src into the client's segments, in order. */
static int blk_write_segs(struct epath *p, u16 con, const u8 *src, u32 len,
			  const struct rift_rbuf *seg, u32 nr_segs)
{
	u32 i, n;

	for (i = 0; i < nr_segs && len; i++) {
		n = seg[i].len < len ? seg[i].len : len;
		if (peer_write(p->con[con], src, n, seg[i].addr, seg[i].rkey))
			return -EIO;
		src += n;
		len -= n;
	}
	return len ? -EINVAL : 0;
}

/* One riftblk message: OPEN, CLOSE, INFO or IO on the store. */
static void blk_request(struct epath *p, u16 con, u16 chunk_id, const u8 *chunk,
			const struct rift_io_req *req, const struct rift_rbuf *seg)
{
	u8 rsp[RIFTBLK_RSP_BUF_LEN];
	const u8 *src = NULL;
	struct riftblk_hdr h;
	struct riftblk_io io;
	u32 len = 0;
	u64 off;
	int err = 0, n;

	if (riftblk_hdr_decode(chunk + req->usr_off, req->usr_len, &h)) {
		send_rsp(p, con, chunk_id, req->gen, -EBADMSG);
		return;
	}
	switch (h.type) {
	case RIFTBLK_MSG_OPEN:
	case RIFTBLK_MSG_INFO:
		if (req->dir != RIFT_IO_READ || req->data_len < RIFTBLK_RSP_BUF_LEN) {
			err = -EINVAL;
			break;
		}
		n = blk_info_build(p, h.type == RIFTBLK_MSG_OPEN ? RIFTBLK_MSG_OPEN_RSP :
				   RIFTBLK_MSG_INFO_RSP, rsp);
		if (n < 0)
			err = n;
		src = rsp;
		len = n < 0 ? 0 : n;
		break;
	case RIFTBLK_MSG_CLOSE:
		break;
	case RIFTBLK_MSG_IO:
		if (riftblk_io_decode(chunk + req->usr_off, req->usr_len, &io)) {
			err = -EBADMSG;
			break;
		}
		off = io.sector << 9;
		if (io.dev_id != EVIL_BLK_DEV_ID) {
			err = -ESTALE;
		} else if (off > EVIL_STORE || io.len > EVIL_STORE - off) {
			err = -ERANGE;
		} else if (io.op == RIFTBLK_OP_READ || io.op == RIFTBLK_OP_WRITE) {
			if (io.len != req->data_len) {
				err = -EINVAL;
			} else if (io.op == RIFTBLK_OP_WRITE) {
				memcpy(store + off, chunk + req->data_off, io.len);
			} else {
				src = store + off;
				len = io.len;
			}
		} else if (io.op == RIFTBLK_OP_DISCARD || io.op == RIFTBLK_OP_WRITE_ZEROES) {
			memset(store + off, 0, io.len);
		} else if (io.op != RIFTBLK_OP_FLUSH) {
			err = -EOPNOTSUPP;
		}
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	if (!err && src && blk_write_segs(p, con, src, len, seg, req->nr_segs)) {
		path_close(p, "cannot write read data");
		return;
	}
	send_rsp(p, con, chunk_id, req->gen, err);
}

/* ------------------------------------------------------------------ */
/* IO                                                                  */
/* ------------------------------------------------------------------ */

static void on_request(struct epath *p, u16 con, const struct rift_imm *imm)
{
	const struct rift_io_limits lim = {
		.chunk_size	= EVIL_CHUNK,
		.max_io_size	= EVIL_IO,
	};
	u8 *chunk = p->region + (size_t)imm->chunk * EVIL_CHUNK;
	struct rift_rbuf seg[RIFT_IO_MAX_SEGS];
	struct rift_io_req req;
	struct test_hdr h;
	u64 off;
	u32 len, extra = 0;
	int err = 0;

	if (imm->desc_off >= EVIL_CHUNK ||
	    rift_proto_io_desc_decode(&lim, imm, chunk + imm->desc_off,
				      EVIL_CHUNK - imm->desc_off, &req, seg,
				      RIFT_IO_MAX_SEGS) < 0 ||
	    (!blk_mode && req.usr_len < sizeof(h))) {
		say(p, "bad request on chunk %u", imm->chunk);
		/* Its generation is unknown (0): never sent to a client that behaves. */
		send_rsp(p, con, imm->chunk, 0, -EBADMSG);
		return;
	}
	/* Without RSP_GEN (or CANCEL_GEN, never accepted here) it must be 0. */
	if (req.gen && !p->rsp_gen && !p->gen_seen) {
		p->gen_seen = true;
		say(p, "descriptor generation %u without RSP_GEN or CANCEL_GEN (chunk %u)",
		    req.gen, imm->chunk);
	}
	if (blk_mode) {
		blk_request(p, con, imm->chunk, chunk, &req, seg);
		return;
	}
	memcpy(&h, chunk + req.usr_off, sizeof(h));
	off = le64_to_cpu(h.offset);
	len = le32_to_cpu(h.len);
	if (le32_to_cpu(h.magic) != TEST_MAGIC || len != req.data_len) {
		err = -EINVAL;
	} else if (off > EVIL_STORE || len > EVIL_STORE - off) {
		err = -ERANGE;
	} else if (req.dir == RIFT_IO_WRITE) {
		memcpy(store + off, chunk + req.data_off, len);
	} else if (req.nr_segs != 1 || seg[0].len < len) {
		err = -EINVAL;
	} else {
		if (fire(p, C_READ_OVERRUN))
			extra = 4096;
		/* Past the store's end reads zeroes: the staging ring holds them. */
		if (len && peer_write(p->con[con], store + off, len + extra, seg[0].addr,
				      seg[0].rkey)) {
			path_close(p, "cannot write read data");
			return;
		}
	}

	/*
	 * Held: no answer until the client has given up on it.  Only the
	 * first late answer of late_rsp is the orphan's: the client gives
	 * the chunk back for it alone.  late_rsp_gen's (another generation,
	 * so with RSP_GEN only) and late_rsp_con's (another connection) are
	 * not, and must leave it an orphan.
	 */
	if (fire(p, C_LATE_RSP) || (p->rsp_gen && fire(p, C_LATE_RSP_GEN)) ||
	    fire(p, C_LATE_RSP_CON)) {
		p->held = the_case == C_LATE_RSP ? 2 : 1;
		p->held_sent = 0;
		p->held_chunk = imm->chunk;
		p->held_con = the_case == C_LATE_RSP_CON ? (con + 1) % p->nr_cons : con;
		p->held_gen = the_case == C_LATE_RSP_GEN ? req.gen + 1 : req.gen;
		p->held_due = now_ms() + late_ms;
		say(p, "holding the answer to chunk %u (connection %u, generation %u)",
		    imm->chunk, con, req.gen);
		return;
	}
	if (fire(p, C_WRONG_CON)) {
		send_rsp(p, (con + 1) % p->nr_cons, imm->chunk, req.gen, err);
		return;
	}
	/* Only with the feature: without it bits 15..12 must be 0 (errno_range). */
	if (p->rsp_gen && fire(p, C_RSP_GEN)) {
		say(p, "rsp_gen: chunk %u, generation %u answered as %u", imm->chunk, req.gen,
		    rsp_gen_of(p, req.gen + 1));
		send_rsp(p, con, imm->chunk, req.gen + 1, err);
		return;
	}
	if (fire(p, C_ERRNO_RANGE)) {
		send_imm_raw(p->con[con], imm_raw(RIFT_IMM_RSP, imm->chunk, 0x1fff));
		return;
	}
	if (fire(p, C_RKEY_NOAI)) {
		send_rsp_raw(p, con, imm->chunk, req.gen, err, true, imm->chunk, p->rkey);
		return;
	}
	if (fire(p, C_RKEY_CHUNK)) {
		send_rsp_raw(p, con, imm->chunk, req.gen, err, true,
			     (imm->chunk + 1) % p->rsp.queue_depth, p->rkey);
		return;
	}
	if (fire(p, C_RKEY_BOGUS)) {
		send_rsp_raw(p, con, imm->chunk, req.gen, err, true, imm->chunk,
			     p->rkey ^ 0x5a5a00);
		return;
	}
	if (fire(p, C_RKEY_MISSING)) {
		send_rsp_raw(p, con, imm->chunk, req.gen, err, false, 0, 0);
		return;
	}
	send_rsp(p, con, imm->chunk, req.gen, err);
	credit_with_request(p, con);
	/* The same answer again, its generation too, as a buggy server would. */
	if (fire(p, C_DUP_RSP))
		send_rsp(p, con, imm->chunk, req.gen, err);
	if (fire(p, C_FORGED_IDLE))
		send_rsp(p, con, imm->chunk == p->rsp.queue_depth - 1 ? 0 :
			 p->rsp.queue_depth - 1, 0, 0);
	if (fire(p, C_FORGED_RANGE))
		send_rsp_raw(p, con, p->rsp.queue_depth + 5, 0, 0, false, 0, 0);
}

/*
 * mute_io fires on the first message on an IO connection of a bad path
 * (a request: the client probes only a connection with requests in
 * flight); that message and all after it on the IO connections go
 * unanswered.  The moment is printed on CLOCK_MONOTONIC, the clock of the
 * kernel's "mono" trace clock, for the test to time the client against.
 */
static void mute_say(struct epath *p, const char *what, u16 con)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	say(p, "%s: silent from %lld.%06ld on connection %u", what, (long long)ts.tv_sec,
	    ts.tv_nsec / 1000, con);
}

static bool mute_io_fire(struct epath *p, u16 con)
{
	if (!fire(p, C_MUTE_IO) && !fire(p, C_MUTE_ALWAYS))
		return false;
	mute_say(p, "mute_io", con);
	return true;
}

static void on_message(struct epath *p, u16 con, const struct peer_recv *r)
{
	struct rift_imm imm;
	__be32 v;

	if (!p->info_done) {
		if (con == 0 && !r->has_imm)
			on_info_req(p, r);
		return;
	}
	if (p->fired && the_case == C_SILENT)
		return;
	/* mute_ctl: the request that fires it is answered, as all after it. */
	if (the_case == C_MUTE_CTL) {
		if (con == 0 && p->fired)
			return;
		if (con > 0 && !p->fired && fire(p, C_MUTE_CTL))
			mute_say(p, "mute_ctl", 0);
	}
	if (con > 0 && ((p->fired && (the_case == C_MUTE_IO || the_case == C_MUTE_ALWAYS)) ||
			mute_io_fire(p, con)))
		return;
	if (!r->has_imm ||
	    rift_imm_decode((__force __be32)r->imm, p->rsp.queue_depth, &imm)) {
		say(p, "unexpected message on connection %u", con);
		return;
	}
	switch (imm.type) {
	case RIFT_IMM_HB:
		imm.type = RIFT_IMM_HB_ACK;
		if (!rift_imm_encode(&imm, &v))
			send_imm_raw(p->con[con], v);
		break;
	case RIFT_IMM_WRITE:
	case RIFT_IMM_READ:
		on_request(p, con, &imm);
		break;
	case RIFT_IMM_CREDIT_REQ:
		if (p->credits)
			on_credit_req(p, imm.want);
		break;
	case RIFT_IMM_CREDIT_REL:
		on_credit_rel(p, imm.chunk);
		break;
	default:
		break;
	}
}

static void tick(struct epath *p)
{
	struct rift_imm hb = { .type = RIFT_IMM_HB };
	long long now = now_ms();
	unsigned int n;
	__be32 v;

	if (p->held && now >= p->held_due) {
		say(p, "late answer %d for chunk %u on connection %u, echo %u", ++p->held_sent,
		    p->held_chunk, p->held_con, rsp_gen_of(p, p->held_gen));
		send_rsp(p, p->held_con, p->held_chunk, p->held_gen, 0);
		p->held--;
		p->held_due = now + EVIL_LATE_GAP_MS;
	}
	if (p->flood_end && now < p->flood_end) {
		for (n = peer_send_room(p->con[0]); n > 1; n--) {
			hb.seq = ++p->hb_seq;
			if (rift_imm_encode(&hb, &v) || !send_imm_raw(p->con[0], v))
				break;
		}
	} else if (p->flood_end) {
		say(p, "flood over: %u heartbeats", p->hb_seq);
		p->flood_end = 0;
	}
}

/* Serve every connection of @p once; true if anything happened. */
static bool serve(struct epath *p)
{
	struct peer_recv r;
	bool busy = false;
	int i, err;

	for (i = 0; i < p->nr_cons && p->used; i++) {
		while (p->used && !(err = peer_recv(p->con[i], 0, &r))) {
			busy = true;
			on_message(p, i, &r);
		}
		if (!p->used)
			break;
		if (err != -ETIMEDOUT) {
			path_close(p, peer_conn_error(p->con[i]));
			return true;
		}
		if (peer_conn_closed(p->con[i])) {
			path_close(p, "disconnected by the client");
			return true;
		}
	}
	if (p->used)
		tick(p);
	return busy;
}

static void print_usage(void)
{
	fputs("usage: rift-evil -g GOOD_ADDR [-b BAD_ADDR] [-p PORT] [-c CASE] [-B] [-G]\n", stderr);
	fputs("                 [-t SECONDS] [-l LATE_MS] [-f FLOOD_MS]\n", stderr);
	fputs("       rift-evil -L\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const struct timespec nap = { .tv_nsec = 500 * 1000 };
	struct peer_listener *good = NULL, *bad = NULL;
	const char *good_addr = NULL, *bad_addr = NULL, *when;
	int port = 7690, secs = 60, opt, i;
	struct peer_conn *c;
	long long end;
	char why[160];
	bool busy;

	while ((opt = getopt(argc, argv, "g:b:p:c:t:l:f:LBG")) != -1) {
		switch (opt) {
		case 'g':
			good_addr = optarg;
			break;
		case 'b':
			bad_addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'c':
			for (i = 0; i < C_NR && strcmp(case_names[i], optarg); i++)
				;
			if (i == C_NR)
				print_usage();
			the_case = i;
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'l':
			late_ms = atoi(optarg);
			break;
		case 'f':
			flood_ms = atoi(optarg);
			break;
		case 'B':
			blk_mode = true;
			break;
		case 'G':
			no_rsp_gen = true;
			break;
		case 'L':
			for (i = 1; i < C_NR; i++)
				printf("%s\n", case_names[i]);
			return 0;
		default:
			print_usage();
		}
	}
	if (!good_addr || port <= 0 || port > 65535 || secs <= 0)
		print_usage();
	/* The rb_* cases need riftblk; the others, rift-test's header. */
	if (the_case != C_NONE && blk_mode != blk_case())
		print_usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	srand(getpid() ^ time(NULL));
	/* Enough for a client's requests, few enough to run out (rnr). */
	peer_nr_rx = 2 * EVIL_QD;
	good = peer_listen(good_addr, port, why, sizeof(why));
	if (good && bad_addr)
		bad = peer_listen(bad_addr, port, why, sizeof(why));
	if (!good || (bad_addr && !bad)) {
		fprintf(stderr, "rift-evil: %s\n", why);
		return 2;
	}
	when = info_case() || blk_case() ? "every attempt" : "once";
	printf("listening on %s:%d, bad %s:%d, case %s, %s%s%s\n", good_addr, port,
	       bad_addr ? bad_addr : "-", port, case_names[the_case], when,
	       blk_mode ? ", riftblk" : "", no_rsp_gen ? ", RSP_GEN declined" : "");

	end = now_ms() + secs * 1000LL;
	while (now_ms() < end) {
		busy = false;
		c = peer_listen_next(good, 0);
		if (c) {
			on_connect(c, false);
			busy = true;
		}
		c = bad ? peer_listen_next(bad, 0) : NULL;
		if (c) {
			on_connect(c, true);
			busy = true;
		}
		for (i = 0; i < EVIL_MAX_PATHS; i++)
			if (paths[i].used && serve(&paths[i]))
				busy = true;
		if (!busy)
			nanosleep(&nap, NULL);
	}
	for (i = 0; i < EVIL_MAX_PATHS; i++)
		if (paths[i].used)
			path_close(&paths[i], "exiting");
	peer_listener_free(bad);
	peer_listener_free(good);
	printf("done\n");
	return 0;
}

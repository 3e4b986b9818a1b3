// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer's cases of remote invalidation (REMOTE_INV, which qualifies
 * always-invalidate): a write whose chunk key the peer kills itself, with
 * a SEND WITH_INV behind the write's data and header, and every way of
 * getting that wrong that the server must close the path for (a write as
 * a WRITE WITH_IMM, another chunk's key, a payload that is not the exact
 * struct, the SEND on a path that did not negotiate it, a second write on
 * a chunk whose first is unanswered, a chunk's previous key, a chunk not
 * granted, the SEND as a path's first message), and the feature never
 * accepted without always-invalidate, always with it imposed.  The driver
 * and its table are in rift-peer.c.
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rift-peer.h"

/* A store offset of their own. */
#define RINV_OFF		0x200000ULL
/* rinv_unanswered's held write, whose late answer lands after the case. */
#define RINV_HOLD_OFF		(RINV_OFF + 0x100000ULL)
/* rinv_not_granted's credit_floor: chunks 0 and 1 granted, 2 not. */
#define RINV_CREDIT_FLOOR	2

/* A path of one connection offering always-invalidate and REMOTE_INV: both accepted. */
static bool path_up_rinv(struct path *p)
{
	const u64 want = RIFT_FEAT_ALWAYS_INVALIDATE | RIFT_FEAT_REMOTE_INV;

	return path_up_feat(p, want) &&
	       EXPECT((p->info.feat_accepted & want) == want,
		      "features %#llx accepted, %#llx offered",
		      (unsigned long long)p->info.feat_accepted, (unsigned long long)want);
}

/* Lay out in @io a write of @len bytes of @data at RINV_OFF through @chunk. */
static bool rinv_build(const struct path *p, struct io *io, u16 chunk, const u8 *data,
		       u32 len)
{
	struct test_hdr h;

	test_hdr_init(&h, RINV_OFF, len);
	return io_build(p, io, RIFT_IO_WRITE, chunk, data, len, &h, sizeof(h), NULL, 0);
}

/* The server counted @want writes whose key the peer killed, no more. */
static bool expect_remote_invs(const struct path *p, long long want)
{
	long long got = srv_path_stat(p, "remote_invs");

	return EXPECT(got == want, "remote_invs %lld, expected %lld", got, want);
}

/*
 * Read back through chunk 0, under its key @rkey, the @len bytes of
 * @data written at RINV_OFF: a WRITE WITH_IMM (reads are unchanged by
 * REMOTE_INV), answered with chunk 0's next key.  The read region is
 * cleared first (test_read_post()), so matching data came from the store.
 */
static bool rinv_read_back(struct path *p, u32 rkey, const u8 *data, u32 len)
{
	struct rift_imm rsp;
	const u8 *back;
	u32 next;

	p->chunks[0].rkey = rkey;
	return test_read_post(p, p->con[0], 0, RINV_OFF, len, 1, &back) &&
	       recv_rsp_rkey(p, p->con[0], &rsp, &next) &&
	       EXPECT(rsp.chunk == 0, "answer for chunk %u, expected 0", rsp.chunk) &&
	       expect_errno(rsp.err, 0, "read under the write's new key") &&
	       EXPECT(!memcmp(back, data, len), "the read returned other data");
}

/*
 * The feature at work: a 4 KiB write sent the REMOTE_INV way is answered
 * with RSP_RKEY, errno 0 and a new key, and counted in the path's
 * remote_invs (the read after it is not).  Its data reads back under the
 * new key, so the server registered the chunk again after the peer's
 * SEND killed it.  The key that SEND killed stays dead: an RDMA WRITE
 * under it is refused by the server's device.
 */
bool case_rinv_write(const struct peer_case *tc)
{
	u8 data[4096], junk[8];
	struct rift_imm rsp;
	struct path p;
	struct io io;
	u32 old, rkey;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 101);
	memset(junk, 0x5a, sizeof(junk));
	ok = path_up_rinv(&p) && rinv_build(&p, &io, 0, data, sizeof(data)) &&
	     io_post_inv(&p, p.con[0], &io) && recv_rsp_rkey(&p, p.con[0], &rsp, &rkey) &&
	     EXPECT(rsp.chunk == 0, "answer for chunk %u, expected 0", rsp.chunk) &&
	     expect_errno(rsp.err, 0, "write with remote invalidation");
	/* The key the write's SEND killed, before the read back replaces it. */
	old = p.chunks[0].rkey;
	ok = ok && rinv_read_back(&p, rkey, data, sizeof(data)) && expect_remote_invs(&p, 1) &&
	     EXPECT(!peer_write(p.con[0], junk, sizeof(junk), p.chunks[0].addr, old),
		    "cannot post: %s", peer_conn_error(p.con[0])) &&
	     expect_write_refused(p.con[0]);
	path_down(&p);
	return ok;
}

/*
 * With REMOTE_INV accepted a write has one form only: sent as a WRITE
 * WITH_IMM, as without the feature, its key would stay open to the peer
 * while the ULP reads the data (the server no longer invalidates a
 * write's key itself).  The server closes the path.
 */
bool case_rinv_write_imm(const struct peer_case *tc)
{
	u8 data[512];
	struct path p;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 102);
	ok = srv_reasons_on() && path_up_rinv(&p) &&
	     test_write_post(&p, p.con[0], 0, 0, RINV_OFF, data, sizeof(data)) &&
	     expect_closed_for(&p, p.con[0], "write request without remote invalidation");
	path_down(&p);
	return ok;
}

/*
 * A write into chunk 0 whose SEND WITH_INV kills chunk 1's current key
 * instead: chunk 0's key would stay open to the peer while the ULP reads
 * the data, and chunk 1 is broken.  The server closes the path.
 */
bool case_rinv_wrong_key(const struct peer_case *tc)
{
	struct io_inv inv;
	u8 data[512];
	struct path p;
	struct io io;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 103);
	ok = srv_reasons_on() && path_up_rinv(&p) &&
	     EXPECT(p.info.queue_depth > 1, "queue depth %u: no chunk 1", p.info.queue_depth) &&
	     rinv_build(&p, &io, 0, data, sizeof(data)) && io_inv_init(&p, &io, &inv);
	if (ok) {
		inv.rkey = p.chunks[1].rkey;
		ok = io_post_inv_raw(&p, p.con[0], &io, &inv) &&
		     expect_closed_for(&p, p.con[0], "not its chunk's");
	}
	path_down(&p);
	return ok;
}

/* How rinv_bad_payload breaks a write's SEND WITH_INV payload. */
enum rinv_bad {
	RINV_SHORT,
	RINV_LONG,
	RINV_RESERVED,
	RINV_READ_IMM,
	RINV_HB_IMM,
	RINV_CHUNK_RANGE,
	RINV_OVERSIZE,
	RINV_NR_BAD,
};

static const char * const rinv_bad_what[RINV_NR_BAD] = {
	[RINV_SHORT]		= "4-byte payload, the immediate alone",
	[RINV_LONG]		= "12-byte payload, 4 bytes past the struct",
	[RINV_RESERVED]		= "reserved field 1",
	[RINV_READ_IMM]		= "a READ's immediate",
	[RINV_HB_IMM]		= "a heartbeat's immediate",
	[RINV_CHUNK_RANGE]	= "a WRITE immediate naming chunk queue_depth",
	[RINV_OVERSIZE]		= "a payload longer than the server's receive buffer",
};

/* What the server says closing the path for each. */
#define RINV_MALFORMED		"malformed write request with remote invalidation"
static const char * const rinv_bad_reason[RINV_NR_BAD] = {
	[RINV_SHORT]		= RINV_MALFORMED,
	[RINV_LONG]		= RINV_MALFORMED,
	[RINV_RESERVED]		= RINV_MALFORMED,
	[RINV_READ_IMM]		= RINV_MALFORMED,
	[RINV_HB_IMM]		= RINV_MALFORMED,
	[RINV_CHUNK_RANGE]	= RINV_MALFORMED,
	/*
	 * The device fails the receive before Rift sees it (rxe 6.1: a local
	 * QP operation error; a local length error elsewhere).
	 */
	[RINV_OVERSIZE]		= "connection 0: receive failed",
};

/* Break @inv, the SEND WITH_INV of the write @io on @p, as @how says. */
static bool rinv_break(const struct path *p, const struct io *io, struct io_inv *inv,
		       enum rinv_bad how)
{
	const size_t imm_at = offsetof(struct rift_wire_write_inv, imm);
	struct rift_imm rd = io->imm;
	__be32 v;

	switch (how) {
	case RINV_SHORT:
		inv->len = sizeof(v);
		return true;
	case RINV_LONG:
		inv->len = sizeof(struct rift_wire_write_inv) + 4;
		return true;
	case RINV_OVERSIZE:
		inv->len = sizeof(inv->msg);
		return true;
	case RINV_RESERVED:
		put_le32(inv->msg + offsetof(struct rift_wire_write_inv, reserved), 1);
		return true;
	case RINV_HB_IMM:
		v = imm_raw(RIFT_IMM_HB, 0, 1);
		break;
	case RINV_CHUNK_RANGE:
		/* In the immediate's range, past the path's queue depth. */
		v = imm_raw(RIFT_IMM_WRITE, p->info.queue_depth,
			    io->imm.desc_off / RIFT_IO_DESC_ALIGN);
		break;
	default:
		/* RINV_READ_IMM: the codec's encoder refuses it, so by hand. */
		rd.type = RIFT_IMM_READ;
		if (!EXPECT(!rift_imm_encode(&rd, &v), "cannot encode a READ immediate"))
			return false;
		break;
	}
	memcpy(inv->msg + imm_at, &v, sizeof(v));
	return true;
}

/*
 * The SEND WITH_INV's payload must be exactly struct rift_wire_write_inv
 * with reserved zero and a valid WRITE immediate of a chunk of the path:
 * the server cannot tell what a shorter or longer one means, reserved
 * bits are for a later version to give a meaning, and only writes come
 * this way (a read's key is the server's to kill, at its answer; a
 * heartbeat has its own form).  Each breakage, on a path of its own with
 * everything else right (chunk 0's own key), closes the path, for its
 * reason.
 */
bool case_rinv_bad_payload(const struct peer_case *tc)
{
	struct io_inv inv;
	u8 data[512];
	struct path p;
	struct io io;
	bool ok = true;
	int how;

	(void)tc;
	pattern(data, sizeof(data), 104);
	ok = srv_reasons_on();
	for (how = 0; ok && how < RINV_NR_BAD; how++) {
		diag("%s", rinv_bad_what[how]);
		ok = path_up_rinv(&p) && rinv_build(&p, &io, 0, data, sizeof(data)) &&
		     io_inv_init(&p, &io, &inv) && rinv_break(&p, &io, &inv, how) &&
		     io_post_inv_raw(&p, p.con[0], &io, &inv) &&
		     expect_closed_for(&p, p.con[0], rinv_bad_reason[how]);
		path_down(&p);
	}
	return ok;
}

/*
 * A well-formed REMOTE_INV write on a path offering @feat, which does not
 * hold REMOTE_INV, so the server did not accept it: the server's device
 * killed a key behind the server's back, outside the protocol the path
 * runs.  The server closes the path, for that reason.
 */
static bool rinv_unaccepted(u64 feat, u8 seed)
{
	u8 data[512];
	struct path p;
	struct io io;
	bool ok;

	pattern(data, sizeof(data), seed);
	ok = srv_reasons_on() && path_up_feat(&p, feat) &&
	     EXPECT((p.info.feat_accepted & (RIFT_FEAT_ALWAYS_INVALIDATE | RIFT_FEAT_REMOTE_INV)) ==
		    feat, "features %#llx accepted, %#llx offered",
		    (unsigned long long)p.info.feat_accepted, (unsigned long long)feat) &&
	     rinv_build(&p, &io, 0, data, sizeof(data)) && io_post_inv(&p, p.con[0], &io) &&
	     expect_closed_for(&p, p.con[0], "remote invalidation without REMOTE_INV");
	path_down(&p);
	return ok;
}

/* An always-invalidate path that did not offer REMOTE_INV. */
bool case_rinv_unnegotiated(const struct peer_case *tc)
{
	(void)tc;
	return rinv_unaccepted(RIFT_FEAT_ALWAYS_INVALIDATE, 105);
}

/*
 * A path without always-invalidate, whose chunks have no per-chunk MRs on
 * the server: the SEND must be refused before anything looks a chunk's
 * MR up (a NULL dereference from the network otherwise).
 */
bool case_rinv_no_ai(const struct peer_case *tc)
{
	(void)tc;
	return rinv_unaccepted(0, 107);
}

/*
 * REMOTE_INV only qualifies always-invalidate: offered alone, or with
 * AI_CAPABLE to a server that does not impose always-invalidate
 * (force_always_invalidate 0, hostile_peer.sh's default), neither is
 * accepted, and a write goes the usual way: a WRITE WITH_IMM answered
 * with a plain RSP (io_wait() takes nothing else) and errno 0.
 */
bool case_rinv_not_without_ai(const struct peer_case *tc)
{
	static const u64 offers[] = {
		RIFT_FEAT_REMOTE_INV,
		RIFT_FEAT_AI_CAPABLE | RIFT_FEAT_REMOTE_INV,
	};
	const u64 ai = RIFT_FEAT_ALWAYS_INVALIDATE | RIFT_FEAT_REMOTE_INV;
	u8 data[512];
	struct path p;
	bool ok;
	size_t i;
	int err;

	(void)tc;
	pattern(data, sizeof(data), 106);
	ok = EXPECT(!get_bool_param("rift_server", "force_always_invalidate", true),
		    "the server imposes always-invalidate (force_always_invalidate)");
	for (i = 0; ok && i < ARRAY_SIZE(offers); i++) {
		ok = path_up_feat(&p, offers[i]) &&
		     EXPECT(!(p.info.feat_accepted & ai), "features %#llx accepted, %#llx offered",
			    (unsigned long long)p.info.feat_accepted,
			    (unsigned long long)offers[i]) &&
		     test_write(&p, p.con[0], 0, RINV_OFF, data, sizeof(data), &err) &&
		     expect_errno(err, 0, "write without REMOTE_INV");
		path_down(&p);
	}
	return ok;
}

/*
 * A second SEND WITH_INV on chunk 0 while its first write is still with
 * the ULP (rift-test-srv holds the answer HOLD_MS): the key the SEND
 * names is still the chunk's, so the device takes it, and the server
 * must refuse a request on a chunk with one unanswered rather than hand
 * the ULP a second request in a buffer it is reading.  The held write
 * has a store offset of its own and is waited out: its late answer still
 * stores its data, which no other case may read.
 */
bool case_rinv_unanswered(const struct peer_case *tc)
{
	struct io_inv inv;
	struct test_hdr h;
	long long until;
	u8 data[512];
	struct path p;
	struct io io;
	bool ok;

	(void)tc;
	memset(&p, 0, sizeof(p));
	pattern(data, sizeof(data), 108);
	test_hdr_init(&h, RINV_HOLD_OFF, sizeof(data));
	ok = srv_reasons_on() && path_up_rinv(&p) &&
	     io_build(&p, &io, RIFT_IO_WRITE, 0, data, sizeof(data), &h, sizeof(h), NULL, 0) &&
	     io_inv_init(&p, &io, &inv) &&
	     set_param("rift_test_srv", "delay_offset", RINV_HOLD_OFF) &&
	     set_param("rift_test_srv", "delay_next_ms", HOLD_MS) &&
	     io_post_inv_raw(&p, p.con[0], &io, &inv);
	/* The hook clears delay_next_ms as it takes the write. */
	until = now_ms() + 2000;
	while (ok && get_param("rift_test_srv", "delay_next_ms", 0) && now_ms() < until)
		usleep(5000);
	ok = ok && EXPECT(!get_param("rift_test_srv", "delay_next_ms", 0),
			  "rift-test-srv did not hold the first write") &&
	     EXPECT(!peer_send_inv(p.con[0], inv.msg, inv.len, inv.rkey),
		    "cannot post the second SEND: %s", peer_conn_error(p.con[0])) &&
	     expect_closed_for(&p, p.con[0], "which has one unanswered");
	set_param("rift_test_srv", "delay_next_ms", 0);
	path_down(&p);
	usleep(2 * HOLD_MS * 1000);
	return ok;
}

/*
 * After a write's answer the chunk carries a new key; a write that kills
 * the previous one instead leaves the new key open.  A device that checks
 * the key against the MR's (rxe: "wr key ... doesn't match mr key") fails
 * the receive ("receive failed"); on one that did not, the server's own
 * check (rift_srv_op_start(), "not its chunk's", which rinv_wrong_key
 * exercises on rxe) would.  Either way the path closes for one of those
 * and the write never reaches the ULP: the store, read on a new path,
 * still holds the first write's data.
 */
bool case_rinv_stale_key(const struct peer_case *tc)
{
	u8 first[1024], second[1024];
	struct rift_imm rsp;
	struct io_inv inv;
	struct path p, q;
	struct io io;
	u32 rkey, old;
	bool ok;

	(void)tc;
	memset(&p, 0, sizeof(p));
	memset(&q, 0, sizeof(q));
	pattern(first, sizeof(first), 109);
	pattern(second, sizeof(second), 110);
	ok = srv_reasons_on() && path_up_rinv(&p) && rinv_build(&p, &io, 0, first, sizeof(first)) &&
	     io_inv_init(&p, &io, &inv) && io_post_inv_raw(&p, p.con[0], &io, &inv) &&
	     recv_rsp_rkey(&p, p.con[0], &rsp, &rkey) &&
	     expect_errno(rsp.err, 0, "first write");
	if (ok) {
		/* The second write's data under the new key; its SEND kills the old. */
		old = p.chunks[0].rkey;
		p.chunks[0].rkey = rkey;
		ok = rinv_build(&p, &io, 0, second, sizeof(second)) &&
		     io_inv_init(&p, &io, &inv);
		inv.rkey = old;
		ok = ok && io_post_inv_raw(&p, p.con[0], &io, &inv) &&
		     expect_closed_for(&p, p.con[0],
				       "connection 0: receive failed|not its chunk's");
	}
	path_down(&p);
	if (!ok)
		return false;
	ok = path_up_rinv(&q) && rinv_read_back(&q, q.chunks[0].rkey, first, sizeof(first));
	path_down(&q);
	return ok;
}

/*
 * With memory credits a chunk not granted has no memory behind it on the
 * server, nor (always-invalidate) an MR: a REMOTE_INV write naming one
 * must be refused before anything looks either up (a NULL dereference
 * from the network otherwise).  The write's data goes to chunk 0, whose
 * key the SEND names, so that only the chunk id is wrong.
 */
bool case_rinv_not_granted(const struct peer_case *tc)
{
	const u64 feat = RIFT_FEAT_CREDITS | RIFT_FEAT_ALWAYS_INVALIDATE | RIFT_FEAT_REMOTE_INV;
	u16 chunk = RINV_CREDIT_FLOOR;
	struct io_inv inv;
	u8 data[512];
	struct path p;
	struct io io;
	bool ok;

	(void)tc;
	memset(&p, 0, sizeof(p));
	pattern(data, sizeof(data), 111);
	ok = srv_reasons_on() && credit_path_up(&p, RINV_CREDIT_FLOOR, feat) &&
	     EXPECT((p.info.feat_accepted & feat) == feat, "features %#llx accepted, %#llx offered",
		    (unsigned long long)p.info.feat_accepted, (unsigned long long)feat) &&
	     EXPECT(p.info.queue_depth > chunk, "queue depth %u: no chunk %u",
		    p.info.queue_depth, chunk);
	if (ok) {
		p.chunks[chunk] = p.chunks[0];
		ok = rinv_build(&p, &io, chunk, data, sizeof(data)) &&
		     io_inv_init(&p, &io, &inv) && io_post_inv_raw(&p, p.con[0], &io, &inv) &&
		     expect_closed_for(&p, p.con[0], "request names a chunk not granted");
	}
	path_down(&p);
	return ok;
}

/*
 * A SEND WITH_INV as a path's first message, where the server waits for
 * its INFO_REQ.  The key it names must be one the server's device holds
 * or the device fails the receive first: another path's chunk key (rxe
 * does not hold an invalidation to the QP's protection domain, see
 * security.rst; a device that does fails the receive instead, "receive
 * failed", also accepted).  The server must take it for what it is, not
 * an INFO_REQ, and close the path.
 */
bool case_rinv_first_msg(const struct peer_case *tc)
{
	struct io_inv inv;
	struct path a, b;
	u8 data[512];
	struct io io;
	bool ok;

	(void)tc;
	memset(&a, 0, sizeof(a));
	pattern(data, sizeof(data), 112);
	ok = srv_reasons_on() && path_up_rinv(&a) &&
	     EXPECT(a.info.queue_depth > 1, "queue depth %u: no chunk 1", a.info.queue_depth) &&
	     rinv_build(&a, &io, 1, data, sizeof(data)) && io_inv_init(&a, &io, &inv);
	if (ok) {
		path_init(&b, 1, 1);
		ok = path_connect(&b, 0) &&
		     EXPECT(!peer_send_inv(b.con[0], inv.msg, inv.len, a.chunks[1].rkey),
			    "cannot post: %s", peer_conn_error(b.con[0])) &&
		     expect_closed_for(&b, b.con[0],
				       "first message is not an INFO_REQ|connection 0: receive failed");
		path_down(&b);
	}
	path_down(&a);
	return ok;
}

/*
 * A server that imposes always-invalidate (force_always_invalidate) on a
 * client offering only AI_CAPABLE and REMOTE_INV accepts both, and the
 * write goes the REMOTE_INV way: answered with a new key, counted in
 * remote_invs, and its data reads back.
 */
bool case_rinv_imposed(const struct peer_case *tc)
{
	const u64 offer = RIFT_FEAT_AI_CAPABLE | RIFT_FEAT_REMOTE_INV;
	const u64 want = RIFT_FEAT_ALWAYS_INVALIDATE | RIFT_FEAT_REMOTE_INV;
	bool force0 = get_bool_param("rift_server", "force_always_invalidate", false);
	struct rift_imm rsp;
	u8 data[2048];
	struct path p;
	struct io io;
	u32 rkey;
	bool ok;

	(void)tc;
	memset(&p, 0, sizeof(p));
	pattern(data, sizeof(data), 113);
	ok = set_param("rift_server", "force_always_invalidate", 1) && path_up_feat(&p, offer);
	set_param("rift_server", "force_always_invalidate", force0);
	ok = ok && EXPECT((p.info.feat_accepted & want) == want,
			  "features %#llx accepted, %#llx offered with always-invalidate imposed",
			  (unsigned long long)p.info.feat_accepted, (unsigned long long)offer) &&
	     rinv_build(&p, &io, 0, data, sizeof(data)) && io_post_inv(&p, p.con[0], &io) &&
	     recv_rsp_rkey(&p, p.con[0], &rsp, &rkey) &&
	     expect_errno(rsp.err, 0, "write with remote invalidation, imposed") &&
	     rinv_read_back(&p, rkey, data, sizeof(data)) && expect_remote_invs(&p, 1);
	path_down(&p);
	return ok;
}

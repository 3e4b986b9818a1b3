// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer's cases of a session that is up: heartbeats, immediates the
 * server must refuse, RDMA writes and reads through its chunks (every
 * chunk at once, errors of the ULP, descriptors that do not validate),
 * chunk reuse under always-invalidate, a read's chunk open to its owner
 * until answered, CANCEL of a stale request, the generation a response
 * echoes (RSP_GEN), and keys that are not the peer's to use.  The driver
 * and its table are in rift-peer.c.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rift-peer.h"

/* all_chunks_in_flight keeps a bitmap of chunks in a u32. */
static_assert(PEER_QD <= 32);

bool case_hb_echo(const struct peer_case *tc)
{
	static const u16 seqs[] = { 42, 0, 0xffff, 43 };
	struct path p;
	bool ok;
	size_t i;

	(void)tc;
	ok = path_up(&p);
	for (i = 0; ok && i < ARRAY_SIZE(seqs); i++)
		ok = hb_roundtrip(&p, p.con[0], seqs[i]);
	path_down(&p);
	return ok;
}

/* An HB_ACK nobody asked for is harmless. */
bool case_hb_ack_unsolicited(const struct peer_case *tc)
{
	struct path p;
	bool ok;

	(void)tc;
	ok = path_up(&p) && send_imm(p.con[0], imm_raw(RIFT_IMM_HB_ACK, 0, 99)) &&
	     hb_roundtrip(&p, p.con[0], 100);
	path_down(&p);
	return ok;
}

/*
 * Post a write of 4 KiB on every chunk at once, each to its own offset of
 * rift-test's store; the pattern is derived from @seed and the chunk.
 */
static bool write_all_chunks(const struct path *p, struct peer_conn *c, u32 seed)
{
	u8 data[4096];
	struct test_hdr h;
	struct io io;
	u32 i;

	for (i = 0; i < p->info.queue_depth; i++) {
		pattern(data, sizeof(data), seed + i);
		test_hdr_init(&h, (u64)i * sizeof(data), sizeof(data));
		if (!io_build(p, &io, RIFT_IO_WRITE, i, data, sizeof(data), &h, sizeof(h),
			      NULL, 0) ||
		    !io_post(p, c, &io))
			return false;
	}
	return true;
}

/* Every chunk busy at once: each gets exactly one response, all succeed. */
bool case_all_chunks_in_flight(const struct peer_case *tc)
{
	u8 data[4096];
	u32 seen = 0, i;
	struct rift_imm rsp;
	const u8 *back;
	struct path p;
	bool ok;
	int err;

	(void)tc;
	ok = path_up(&p) && write_all_chunks(&p, p.con[0], 40);
	for (i = 0; ok && i < p.info.queue_depth; i++) {
		ok = recv_imm(&p, p.con[0], &rsp) &&
		     EXPECT(rsp.type == RIFT_IMM_RSP, "got type %u, expected RSP", rsp.type) &&
		     EXPECT(!(seen & 1U << rsp.chunk), "two responses for chunk %u",
			    rsp.chunk) &&
		     expect_errno(rsp.err, 0, "write");
		seen |= 1U << rsp.chunk;
	}
	for (i = 0; ok && i < p.info.queue_depth; i++) {
		pattern(data, sizeof(data), 40 + i);
		ok = test_read(&p, p.con[0], i, (u64)i * sizeof(data), sizeof(data), 1, &err,
			       &back) &&
		     expect_errno(err, 0, "read") &&
		     EXPECT(!memcmp(back, data, sizeof(data)), "chunk %u: read back other data",
			    i);
	}
	path_down(&p);
	return ok;
}

/* Disconnecting with every chunk busy leaves the server able to serve. */
bool case_abort_with_requests(const struct peer_case *tc)
{
	u8 data[512];
	struct path p;
	bool ok;
	int err;

	(void)tc;
	ok = path_up(&p) && write_all_chunks(&p, p.con[0], 60);
	path_down(&p);
	pattern(data, sizeof(data), 61);
	ok = ok && path_up(&p) &&
	     test_write(&p, p.con[0], 0, 0, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write on a new session");
	path_down(&p);
	return ok;
}

/*
 * Errors of the ULP travel back in the response and leave the chunk
 * usable: a bad ULP header (EBADMSG), then an offset beyond rift-test's
 * store (ERANGE), then a good write, all through chunk 0.
 */
bool case_ulp_error(const struct peer_case *tc)
{
	struct test_hdr bad;
	u8 data[512];
	struct path p;
	struct io io;
	bool ok;
	int err;

	(void)tc;
	memset(&bad, 0, sizeof(bad));
	pattern(data, sizeof(data), 1);
	ok = path_up(&p) &&
	     io_build(&p, &io, RIFT_IO_WRITE, 0, NULL, 0, &bad, sizeof(bad), NULL, 0) &&
	     io_post(&p, p.con[0], &io) && io_wait(&p, p.con[0], 0, &err) &&
	     expect_errno(err, -EBADMSG, "bad ULP header") &&
	     test_write(&p, p.con[0], 0, 1ULL << 40, data, sizeof(data), &err) &&
	     expect_errno(err, -ERANGE, "write beyond the store") &&
	     test_write(&p, p.con[0], 0, 4096, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "good write on the same chunk");
	path_down(&p);
	return ok;
}

/* Data written comes back through other chunks and split segments. */
bool case_write_read(const struct peer_case *tc)
{
	u8 data[16384];
	const u8 *back;
	struct path p;
	bool ok;
	int err;

	(void)tc;
	pattern(data, sizeof(data), 2);
	ok = path_up(&p) &&
	     test_write(&p, p.con[0], 1, 65536, data, 4096, &err) &&
	     expect_errno(err, 0, "write") &&
	     test_read(&p, p.con[0], 2, 65536, 4096, 3, &err, &back) &&
	     expect_errno(err, 0, "read") &&
	     EXPECT(!memcmp(back, data, 4096), "read back other data") &&
	     hb_roundtrip(&p, p.con[0], 5);
	path_down(&p);
	return ok;
}

/* Answers chunk_reuse_ai waits for. */
#define REUSE_ROUNDS		1000

/* The next RSP_RKEY on @c, with its new key; answers heartbeats. */
static bool recv_rsp_rkey(const struct path *p, struct peer_conn *c, struct rift_imm *imm,
			  u32 *rkey)
{
	struct rift_imm ack = { .type = RIFT_IMM_HB_ACK };
	struct peer_recv r;
	__be32 v;
	int err;

	for (;;) {
		err = peer_recv(c, peer_timeout_ms, &r);
		if (!EXPECT(!err, "nothing received: %s",
			    err == -ETIMEDOUT ? "timed out" : peer_conn_error(c)) ||
		    !EXPECT(r.has_imm, "a %u-byte message without immediate data", r.len))
			return false;
		v = (__force __be32)r.imm;
		if (!EXPECT(!rift_imm_decode(v, p->info.queue_depth, imm),
			    "malformed immediate 0x%08x", be32_to_cpu(v)))
			return false;
		if (imm->type != RIFT_IMM_HB)
			break;
		ack.seq = imm->seq;
		if (rift_imm_encode(&ack, &v) || !send_imm(c, v))
			return false;
	}
	return EXPECT(imm->type == RIFT_IMM_RSP_RKEY, "got type %u, expected RSP_RKEY",
		      imm->type) &&
	       EXPECT(!rift_proto_rsp_gen_check(imm, p->info.feat_accepted),
		      "RSP_RKEY 0x%08x sets bits 15..12 without RSP_GEN", be32_to_cpu(v)) &&
	       EXPECT(!rift_proto_rkey_decode(r.data, r.len, imm->chunk, rkey),
		      "RSP_RKEY of chunk %u with a bad %u-byte payload", imm->chunk, r.len);
}

/*
 * L6 stress: with always-invalidate every answer carries the chunk's next
 * rkey, and the peer writes into the chunk again under that key the moment
 * it has the answer, on every chunk at once.  The server must take each
 * next request although the previous answer's post may not have returned
 * yet (no "one unanswered" refusal), and must never hand out a key that
 * the chunk's MR does not carry (the next write would be refused by its
 * device and the connection broken).
 */
static bool chunk_reuse_ai_once(void)
{
	u32 done = 0, posted = 0, rkey, i;
	struct rift_imm rsp;
	u8 data[512];
	struct path p;
	bool ok;

	path_init(&p, 1, 1);
	p.feat = RIFT_FEAT_ALWAYS_INVALIDATE;
	pattern(data, sizeof(data), 80);
	ok = path_connect(&p, 0) && path_info(&p) &&
	     EXPECT(p.info.feat_accepted & RIFT_FEAT_ALWAYS_INVALIDATE,
		    "always-invalidate not accepted");
	for (i = 0; ok && i < p.info.queue_depth; i++, posted++)
		ok = test_write_post(&p, p.con[0], i, 0, (u64)i * 4096, data, sizeof(data));
	while (ok && done < posted) {
		ok = recv_rsp_rkey(&p, p.con[0], &rsp, &rkey) &&
		     expect_errno(rsp.err, 0, "write");
		if (!ok)
			break;
		done++;
		p.chunks[rsp.chunk].rkey = rkey;
		if (posted < REUSE_ROUNDS) {
			ok = test_write_post(&p, p.con[0], rsp.chunk, 0,
					     (u64)rsp.chunk * 4096, data, sizeof(data));
			posted++;
		}
	}
	diag("%u writes answered, posting_waits %lld", done,
	     srv_path_stat(&p, "posting_waits"));
	ok = ok && hb_roundtrip(&p, p.con[0], 11);
	path_down(&p);
	return ok;
}

/* What rxe (6.1) logs when it runs an already-executed REG_MR again. */
#define RXE_REG_MR_AGAIN	"rxe_reg_fast_mr: mr->lkey = "

/*
 * rxe 6.1 rewinds its send queue on a retransmission and runs again a
 * REG_MR that had already run; the WR fails, and the server's QP can wait
 * for good (Documentation/admin-guide.rst, "Stalled connections").
 * Under always-invalidate every answer is preceded by a REG_MR, so a
 * retransmission (rare; seen on the sanitizer kernel) wedges this case
 * and the server closes the path on its heartbeat.  That is the device's
 * defect, not the server's: the case runs once more on a new path, only
 * when the kernel log shows the defect during the first run, and must
 * then pass.
 */
bool case_chunk_reuse_ai(const struct peer_case *tc)
{
	long before = kmsg_count(RXE_REG_MR_AGAIN), after;

	(void)tc;
	if (chunk_reuse_ai_once())
		return true;
	after = kmsg_count(RXE_REG_MR_AGAIN);
	if (before < 0 || after <= before)
		return false;
	diag("rxe ran a REG_MR again on a retransmission (\"%s...\" in the kernel log) %s",
	     RXE_REG_MR_AGAIN, "and wedged the server's QP: once more on a new path");
	return chunk_reuse_ai_once();
}

/* Store offset and hold time of the request cancel_stale_* hold back. */
#define CANCEL_OFF		0x100000ULL
#define CANCEL_HOLD_MS		800

/*
 * Post a write of generation @gen through chunk 0 that rift-test-srv holds
 * back for CANCEL_HOLD_MS, then a CANCEL of generation @cancel_gen on the
 * same connection (so it arrives while the write is held), and wait for
 * the write's answer.  Fails unless the write was really held.
 */
static bool held_write_cancelled(struct path *p, u16 gen, u16 cancel_gen, int *err)
{
	struct rift_imm cancel = { .type = RIFT_IMM_CANCEL, .gen = cancel_gen };
	long long t0 = now_ms(), took;
	u8 data[512];
	__be32 v;

	pattern(data, sizeof(data), 70 + gen);
	if (!set_param("rift_test_srv", "delay_offset", CANCEL_OFF) ||
	    !set_param("rift_test_srv", "delay_next_ms", CANCEL_HOLD_MS) ||
	    !test_write_post(p, p->con[0], 0, gen, CANCEL_OFF, data, sizeof(data)) ||
	    !EXPECT(!rift_imm_encode(&cancel, &v), "cannot encode CANCEL") ||
	    !send_imm(p->con[0], v) || !io_wait(p, p->con[0], 0, err))
		return false;
	took = now_ms() - t0;
	return EXPECT(took >= CANCEL_HOLD_MS * 3 / 4,
		      "request of generation %u answered after %lld ms: not held back", gen,
		      took);
}

/*
 * M3: a CANCEL and the next request on its chunk are not ordered on the
 * server (another connection, another CQ): the client times request 1
 * out and sends CANCEL, request 1's answer crosses it, the client reuses
 * the chunk for request 2, and request 2 reaches the server first.  The
 * peer replays that order on one connection: request 1 answered, request
 * 2 held back by rift-test-srv, then request 1's CANCEL.
 *  - CANCEL_GEN: the CANCEL names generation 1, the server holds 2, so it
 *    is ignored and counted (cancels_stale); request 2 succeeds.  A CANCEL
 *    naming generation 3 does cancel request 3.
 *  - without it (an old peer): the CANCEL names only the chunk, and
 *    request 2 is cancelled, the race the feature closes; the old
 *    behaviour stays for such peers.
 */
bool case_cancel_stale(const struct peer_case *tc)
{
	bool gen = tc->arg == CANCEL_WITH_GEN;
	long long stale0 = -1, stale1;
	u8 data[512];
	struct path p;
	bool ok;
	int err;

	path_init(&p, 1, 1);
	p.feat = RIFT_FEAT_CANCEL | (gen ? RIFT_FEAT_CANCEL_GEN : 0);
	pattern(data, sizeof(data), 69);
	ok = path_connect(&p, 0) && path_info(&p) &&
	     EXPECT(p.info.feat_accepted == p.feat, "features %#llx accepted, %#llx offered",
		    (unsigned long long)p.info.feat_accepted, (unsigned long long)p.feat) &&
	     test_write_post(&p, p.con[0], 0, 1, CANCEL_OFF, data, sizeof(data)) &&
	     io_wait(&p, p.con[0], 0, &err) && expect_errno(err, 0, "request 1") &&
	     EXPECT((stale0 = srv_path_stat(&p, "cancels_stale")) >= 0,
		    "cannot read the path's cancels_stale") &&
	     held_write_cancelled(&p, 2, gen ? 1 : 0, &err);
	if (ok && gen) {
		stale1 = srv_path_stat(&p, "cancels_stale");
		ok = expect_errno(err, 0, "request 2, after request 1's late CANCEL") &&
		     EXPECT(stale1 == stale0 + 1, "cancels_stale %lld before, %lld after",
			    stale0, stale1) &&
		     held_write_cancelled(&p, 3, 3, &err) &&
		     expect_errno(err, -ECANCELED, "request 3, cancelled by its own CANCEL");
	} else if (ok) {
		ok = expect_errno(err, -ECANCELED,
				  "request 2 without CANCEL_GEN: cancelled by request 1's CANCEL");
	}
	ok = ok && hb_roundtrip(&p, p.con[0], 9);
	set_param("rift_test_srv", "delay_next_ms", 0);
	path_down(&p);
	return ok;
}

/* Store offset of the writes rsp_gen_* send. */
#define RSP_GEN_OFF		0x140000ULL

/*
 * A write through chunk 0 whose descriptor carries generation @gen; its
 * answer must succeed, and its arg bits 15..12 go to @echo (recv_imm()
 * refused them already if they are set without RSP_GEN).
 */
static bool write_echo(struct path *p, u16 gen, u16 *echo)
{
	struct rift_imm rsp;
	u8 data[512];

	pattern(data, sizeof(data), 80 + gen);
	if (!test_write_post(p, p->con[0], 0, gen, RSP_GEN_OFF, data, sizeof(data)) ||
	    !recv_imm(p, p->con[0], &rsp) ||
	    !EXPECT(rsp.type == RIFT_IMM_RSP && rsp.chunk == 0,
		    "got type %u for chunk %u, expected RSP for chunk 0", rsp.type, rsp.chunk) ||
	    !expect_errno(rsp.err, 0, "write"))
		return false;
	*echo = rsp.gen;
	return true;
}

/*
 * RSP_GEN: the server echoes the low 4 bits of each request's descriptor
 * generation in its answer's arg bits 15..12, which is how a client tells
 * a duplicate answer from the one to the request now on the chunk.
 *  - rsp_gen_echo: offered alone (no CANCEL: the descriptor's generation
 *    means something with RSP_GEN by itself) and accepted; generations
 *    that cover every 4-bit value, the 16-bit wrap and ones alike in their
 *    low bits, each echoed as its low 4 bits.
 *  - rsp_gen_off: not offered, CANCEL_GEN is (so the server reads the
 *    descriptor's generation): not accepted, and bits 15..12 of every
 *    answer are 0 whatever the generation.
 */
bool case_rsp_gen(const struct peer_case *tc)
{
	static const u16 gens[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
				    0x10, 0x11, 0x1235, 0xfffe, 0xffff, 0, 1, 0x8001 };
	bool on = tc->arg == RSP_GEN_ECHO;
	struct path p;
	u16 echo;
	size_t i;
	bool ok;

	path_init(&p, 1, 1);
	p.feat = on ? RIFT_FEAT_RSP_GEN : RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN;
	ok = path_connect(&p, 0) && path_info(&p) &&
	     EXPECT(p.info.feat_accepted == p.feat, "features %#llx accepted, %#llx offered",
		    (unsigned long long)p.info.feat_accepted, (unsigned long long)p.feat);
	for (i = 0; ok && i < ARRAY_SIZE(gens); i++) {
		ok = write_echo(&p, gens[i], &echo);
		if (!ok)
			break;
		if (on)
			ok = EXPECT(echo == (gens[i] & RIFT_IMM_RSP_GEN_MASK),
				    "request of generation %#x answered with %#x, expected %#x",
				    gens[i], echo, (unsigned int)(gens[i] & RIFT_IMM_RSP_GEN_MASK));
		else
			ok = EXPECT(!echo, "request of generation %#x: answer's bits 15..12 %#x %s",
				    gens[i], echo, "without RSP_GEN");
	}
	if (ok)
		diag("%zu answers, each %s", ARRAY_SIZE(gens),
		     on ? "echoing its generation's low 4 bits" : "with bits 15..12 clear");
	ok = ok && hb_roundtrip(&p, p.con[0], 11);
	path_down(&p);
	return ok;
}

/*
 * A request whose descriptor does not validate is a protocol violation:
 * the server closes the path instead of answering.
 */
bool case_bad_desc(const struct peer_case *tc)
{
	u8 data[512], *desc;
	struct rift_rbuf seg;
	struct test_hdr h;
	struct path p;
	struct io io;
	u32 rkey;
	bool ok = false;

	if (!path_up(&p))
		goto out;
	pattern(data, sizeof(data), 4);
	if (tc->arg == DESC_SEG_WRAP || tc->arg == DESC_SEG_SUM) {
		peer_read_region(p.con[0], &seg.addr, &rkey);
		seg.len = sizeof(data);
		seg.rkey = rkey;
		test_hdr_init(&h, 0, sizeof(data));
		if (!io_build(&p, &io, RIFT_IO_READ, 0, NULL, sizeof(data), &h, sizeof(h),
			      &seg, 1))
			goto out;
	} else {
		test_hdr_init(&h, 0, sizeof(data));
		if (!io_build(&p, &io, RIFT_IO_WRITE, 0, data, sizeof(data), &h, sizeof(h),
			      NULL, 0))
			goto out;
	}
	desc = io.img + io.req.desc_off;
	switch (tc->arg) {
	case DESC_OFF_MISMATCH:
		/* A valid descriptor, one alignment unit too far. */
		memmove(desc + RIFT_IO_DESC_ALIGN, desc, io.req.desc_len);
		memset(desc, 0, RIFT_IO_DESC_ALIGN);
		io.imm.desc_off += RIFT_IO_DESC_ALIGN;
		io.len += RIFT_IO_DESC_ALIGN;
		break;
	case DESC_BAD_MAGIC:
		desc[offsetof(struct rift_wire_io_desc, magic)] ^= 0xff;
		break;
	case DESC_DIR_MISMATCH:
		io.imm.type = RIFT_IMM_READ;
		break;
	case DESC_CHUNK_MISMATCH:
		put_le16(desc + offsetof(struct rift_wire_io_desc, chunk), 1);
		break;
	case DESC_FLAGS:
		put_le16(desc + offsetof(struct rift_wire_io_desc, flags), 1);
		break;
	case DESC_USR_OVERLAP:
		/* A ULP header reaching past the descriptor's offset. */
		put_le16(desc + offsetof(struct rift_wire_io_desc, usr_len),
			 RIFT_USR_LEN_MAX);
		break;
	case DESC_DATA_LEN:
		put_le32(desc + offsetof(struct rift_wire_io_desc, data_len),
			 p.info.max_io_size + RIFT_IO_SIZE_ALIGN);
		break;
	case DESC_BEYOND_CHUNK:
		io.imm.desc_off = p.info.chunk_size;
		break;
	case DESC_SEG_WRAP:
		put_le64(desc + sizeof(struct rift_wire_io_desc) +
			 offsetof(struct rift_wire_rbuf, addr), UINT64_MAX - 16);
		break;
	case DESC_SEG_SUM:
		put_le32(desc + sizeof(struct rift_wire_io_desc) +
			 offsetof(struct rift_wire_rbuf, len), sizeof(data) - 64);
		break;
	}
	ok = io_post(&p, p.con[0], &io) && expect_closed(p.con[0]);
out:
	path_down(&p);
	return ok;
}

/* An immediate the server must not accept closes the path. */
bool case_bad_imm(const struct peer_case *tc)
{
	struct path p;
	__be32 imm = 0;
	bool ok = false;

	if (!path_up(&p))
		goto out;
	switch (tc->arg) {
	case IMM_ZERO:
		imm = imm_raw(RIFT_IMM_INVALID, 0, 0);
		break;
	case IMM_RESERVED_TYPE:
		imm = imm_raw(RIFT_IMM_TYPE_NR + 2, 0, 0);
		break;
	case IMM_SERVER_TYPE:
		imm = imm_raw(RIFT_IMM_RSP, 0, 0);
		break;
	case IMM_CHUNK_RANGE:
		imm = imm_raw(RIFT_IMM_WRITE, p.info.queue_depth, 1);
		break;
	case IMM_HB_CHUNK:
		imm = imm_raw(RIFT_IMM_HB, 1, 7);
		break;
	}
	diag("immediate 0x%08x", be32_to_cpu(imm));
	ok = send_imm(p.con[0], imm) && expect_closed(p.con[0]);
out:
	path_down(&p);
	return ok;
}

/* A plain SEND once the path is up: only INFO_REQ may come without one. */
bool case_send_without_imm(const struct peer_case *tc)
{
	u8 msg[16] = { 0 };
	struct path p;
	bool ok;

	(void)tc;
	ok = path_up(&p) && send_msg(p.con[0], msg, sizeof(msg)) &&
	     expect_closed(p.con[0]);
	path_down(&p);
	return ok;
}

/* Writing into a chunk with a key the server never handed out. */
bool case_write_bad_rkey(const struct peer_case *tc)
{
	u8 data[512];
	struct test_hdr h;
	struct path p;
	struct io io;
	__be32 imm;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 5);
	test_hdr_init(&h, 0, sizeof(data));
	ok = path_up(&p) &&
	     io_build(&p, &io, RIFT_IO_WRITE, 0, data, sizeof(data), &h, sizeof(h),
		      NULL, 0) &&
	     EXPECT(!rift_imm_encode(&io.imm, &imm), "cannot encode the immediate");
	if (ok) {
		p.chunks[0].rkey ^= 0xff;
		ok = io_post_raw(&p, p.con[0], &io, imm) && expect_closed(p.con[0]);
	}
	path_down(&p);
	return ok;
}

/*
 * The server's device refused our RDMA WRITE (the key is not valid on
 * the QP it arrived on): our send completes with a remote access error.
 * Any other end, the server closing the connection for what our write
 * left in our own chunk, for one, means the write was let in.
 */
static bool expect_write_refused(struct peer_conn *c)
{
	struct peer_recv r;
	int err = peer_recv(c, QUIET_MS * 5, &r);

	return EXPECT(err == -EIO && strstr(peer_conn_error(c), "remote access"),
		      "the write was not refused by the server's device: %d, %s",
		      err, err == -EIO ? peer_conn_error(c) : "no error");
}

/*
 * Another session's (address, rkey), used on our own connection: every
 * path instance has a protection domain of its own on the server, so the
 * server's device refuses the write (our connection is closed) and the
 * other session, whose chunk it named, goes on with its data intact.
 */
bool case_cross_session_rkey(const struct peer_case *tc)
{
	u8 data[512], mine[4096];
	const u8 *back;
	struct test_hdr h;
	struct path victim, p;
	struct io io;
	__be32 imm;
	bool ok;
	int err;

	(void)tc;
	pattern(mine, sizeof(mine), 8);
	pattern(data, sizeof(data), 9);
	test_hdr_init(&h, 0, sizeof(data));
	ok = path_up(&victim) && path_up(&p) &&
	     test_write(&victim, victim.con[0], 1, 8192, mine, sizeof(mine), &err) &&
	     expect_errno(err, 0, "victim's write");
	if (ok) {
		/* The victim's chunk 0, named through our QP. */
		p.chunks[0] = victim.chunks[0];
		ok = io_build(&p, &io, RIFT_IO_WRITE, 0, data, sizeof(data), &h,
			      sizeof(h), NULL, 0) &&
		     EXPECT(!rift_imm_encode(&io.imm, &imm), "cannot encode the immediate") &&
		     io_post_raw(&p, p.con[0], &io, imm) &&
		     expect_write_refused(p.con[0]);
	}
	ok = ok &&
	     test_read(&victim, victim.con[0], 2, 8192, sizeof(mine), 1, &err, &back) &&
	     expect_errno(err, 0, "victim's read") &&
	     EXPECT(!memcmp(back, mine, sizeof(mine)), "the victim reads other data") &&
	     hb_roundtrip(&victim, victim.con[0], 4);
	path_down(&p);
	path_down(&victim);
	return ok;
}

/* Store offset and hold time of ai_read_open's held requests. */
#define AI_OPEN_OFF		0x180000ULL
#define AI_OPEN_HOLD_MS		1000

/*
 * Post a request of @dir for @len bytes at AI_OPEN_OFF through chunk 0,
 * which rift-test-srv holds back for AI_OPEN_HOLD_MS; once it holds it
 * (the hook's delay_next_ms back at 0, which rdma_ev sets after the
 * server took the request in), RDMA-WRITE over its ULP header and
 * descriptor under the key it was sent with (chunk 0's current one).  A
 * read's data is to land in the read region (*@out).
 */
static bool held_then_overwritten(const struct path *p, u8 dir, const u8 *data, u32 len,
				  const u8 **out)
{
	struct rift_rbuf seg = { .len = len };
	long long until;
	struct test_hdr h;
	u8 junk[256];
	struct io io;
	u32 jlen;
	u8 *region;
	int err;

	memset(junk, 0xa5, sizeof(junk));
	test_hdr_init(&h, AI_OPEN_OFF, len);
	if (dir == RIFT_IO_READ) {
		region = peer_read_region(p->con[0], &seg.addr, &seg.rkey);
		memset(region, 0, len);
		*out = region;
	}
	if (!set_param("rift_test_srv", "delay_offset", AI_OPEN_OFF) ||
	    !set_param("rift_test_srv", "delay_next_ms", AI_OPEN_HOLD_MS) ||
	    !io_build(p, &io, dir, 0, data, len, &h, sizeof(h),
		      dir == RIFT_IO_READ ? &seg : NULL, dir == RIFT_IO_READ) ||
	    !io_post(p, p->con[0], &io))
		return false;
	until = now_ms() + AI_OPEN_HOLD_MS / 2;
	while (get_param("rift_test_srv", "delay_next_ms", 0) && now_ms() < until)
		usleep(5000);
	jlen = io.req.desc_off + io.req.desc_len - io.req.usr_off;
	if (!EXPECT(!get_param("rift_test_srv", "delay_next_ms", 0),
		    "request not taken in after %d ms", AI_OPEN_HOLD_MS / 2) ||
	    !EXPECT(jlen <= sizeof(junk), "header and descriptor of %u bytes", jlen))
		return false;
	err = peer_write(p->con[0], junk, jlen, p->chunks[0].addr + io.req.usr_off,
			 p->chunks[0].rkey);
	return EXPECT(!err, "cannot post the write over the header: %s",
		      peer_conn_error(p->con[0]));
}

/* A path of one connection with always-invalidate. */
static bool path_up_ai(struct path *p)
{
	path_init(p, 1, 1);
	p->feat = RIFT_FEAT_ALWAYS_INVALIDATE;
	return path_connect(p, 0) && path_info(p) &&
	       EXPECT(p->info.feat_accepted & RIFT_FEAT_ALWAYS_INVALIDATE,
		      "always-invalidate not accepted");
}

/*
 * always-invalidate keeps a read's chunk open to its owner until the
 * answer (Documentation/rift-protocol.rst, "Responses"): the server hands
 * a read to its ULP without waiting for a LOCAL_INV, and its answer's
 * post invalidates the key first.  The client may then write into the
 * chunk while the read is held: the write over its ULP header and
 * descriptor is accepted, yet the header stays what it was
 * (rift-test-srv looks at it again when it answers the held request, and
 * answers -EILSEQ if it changed) and the data goes where the descriptor
 * first said, the data written before.  Once answered, the read's key is
 * refused.  A write's key dies when the write arrives: the same write
 * over a held write's header is refused by the server's device.  Not
 * seen from here: where in the answer's post the LOCAL_INV is, and a
 * path with memory credits (whose chunks carry their own header copy).
 */
bool case_ai_read_open(const struct peer_case *tc)
{
	u8 data[4096], junk[8];
	long long t0, took = 0;
	struct rift_imm rsp;
	const u8 *back;
	u32 rkey, old;
	struct path p;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 91);
	memset(junk, 0x5a, sizeof(junk));
	ok = path_up_ai(&p) &&
	     test_write_post(&p, p.con[0], 0, 0, AI_OPEN_OFF, data, sizeof(data)) &&
	     recv_rsp_rkey(&p, p.con[0], &rsp, &rkey) && expect_errno(rsp.err, 0, "write");
	if (ok) {
		p.chunks[0].rkey = rkey;
		t0 = now_ms();
		ok = held_then_overwritten(&p, RIFT_IO_READ, NULL, sizeof(data), &back) &&
		     recv_rsp_rkey(&p, p.con[0], &rsp, &rkey) &&
		     EXPECT(rsp.chunk == 0, "answer for chunk %u, expected 0", rsp.chunk) &&
		     expect_errno(rsp.err, 0, "held read whose header the peer wrote over");
		took = now_ms() - t0;
		ok = ok &&
		     EXPECT(!memcmp(back, data, sizeof(data)), "the read returned other data") &&
		     EXPECT(took >= AI_OPEN_HOLD_MS * 3 / 4,
			    "read answered after %lld ms: not held back", took);
	}
	if (ok) {
		diag("held read answered after %lld ms, the write over its header accepted", took);
		old = p.chunks[0].rkey;
		p.chunks[0].rkey = rkey;
		ok = EXPECT(!peer_write(p.con[0], junk, sizeof(junk), p.chunks[0].addr, old),
			    "cannot post: %s", peer_conn_error(p.con[0])) &&
		     expect_write_refused(p.con[0]);
	}
	path_down(&p);
	ok = ok && path_up_ai(&p) &&
	     held_then_overwritten(&p, RIFT_IO_WRITE, data, sizeof(data), NULL) &&
	     expect_write_refused(p.con[0]);
	path_down(&p);
	/* The held write is answered to a closed path: the next case finds the hook free. */
	usleep(AI_OPEN_HOLD_MS * 1000);
	set_param("rift_test_srv", "delay_next_ms", 0);
	return ok;
}

/*
 * The chunk table's addresses are the server's MR iovas: on rxe these
 * would be kernel virtual addresses (x86-64's upper half) unless the
 * server replaces them.  Reads and writes through them still work.
 */
bool case_chunk_addrs_opaque(const struct peer_case *tc)
{
	u8 data[4096];
	const u8 *back;
	struct path p;
	bool ok;
	int err;
	u32 i;

	(void)tc;
	pattern(data, sizeof(data), 12);
	ok = path_up(&p);
	for (i = 0; ok && i < PEER_QD; i++)
		ok = EXPECT(p.chunks[i].addr < 0xffff800000000000ULL,
			    "chunk %u at 0x%llx, a kernel address", i,
			    (unsigned long long)p.chunks[i].addr);
	ok = ok && test_write(&p, p.con[0], 3, 4096, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write") &&
	     test_read(&p, p.con[0], 4, 4096, sizeof(data), 2, &err, &back) &&
	     expect_errno(err, 0, "read") &&
	     EXPECT(!memcmp(back, data, sizeof(data)), "read back other data");
	path_down(&p);
	return ok;
}

/* A read whose segment names a key that is not ours: the server's write fails. */
bool case_read_bad_rkey(const struct peer_case *tc)
{
	struct rift_rbuf seg;
	struct test_hdr h;
	struct path p;
	struct io io;
	bool ok;

	(void)tc;
	test_hdr_init(&h, 0, 512);
	ok = path_up(&p);
	if (ok) {
		peer_read_region(p.con[0], &seg.addr, &seg.rkey);
		seg.rkey ^= 0xff;
		seg.len = 512;
		ok = io_build(&p, &io, RIFT_IO_READ, 0, NULL, 512, &h, sizeof(h), &seg, 1) &&
		     io_post(&p, p.con[0], &io) && expect_closed(p.con[0]);
	}
	path_down(&p);
	return ok;
}

/*
 * A client that stops talking: the server must notice by heartbeats
 * (protocol, "Heartbeats") and close the path after hb_missed_max
 * intervals without traffic.
 */
bool case_silent_peer(const struct peer_case *tc)
{
	struct path p;
	bool ok;
	int ms;

	(void)tc;
	ok = path_up(&p);
	if (ok) {
		ms = (p.info.hb_missed_max + 2) * p.info.hb_interval_ms + 2000;
		diag("silent for up to %d ms (hb_interval_ms %u, hb_missed_max %u)", ms,
		     p.info.hb_interval_ms, p.info.hb_missed_max);
		ok = expect_closed_within(p.con[0], ms);
	}
	path_down(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Memory credits (RIFT_FEAT_CREDITS)                                  */
/* ------------------------------------------------------------------ */

/* The initial grant the credit cases ask the server for. */
#define CREDIT_FLOOR		2
/* A store offset of their own. */
#define CREDIT_OFF		0x180000ULL

/*
 * A path offering memory credits while the server's credit_floor is
 * @floor (0: the feature is not accepted) and its credit_idle_ms
 * @idle_ms; both are read at INFO_REQ, so they are put back as they were
 * (the module's defaults, unless the selftest set them: credit_floor 2,
 * credit_idle_ms 1000) as soon as the path is up.  rift_server's own
 * default is memory credits on: every other case, and the normal session
 * hostile_peer.sh opens after the peer, runs with what it found.
 */
/* Long enough that no revoke comes in the middle of a case. */
#define CREDIT_IDLE_NEVER_MS	600000

/* As credit_path_up_idle(), with @cons connections. */
static bool credit_path_up_cons(struct path *p, u16 cons, unsigned int floor, u64 feat,
				unsigned int idle_ms)
{
	unsigned long long floor0 = get_param("rift_server", "credit_floor", 2);
	unsigned long long idle0 = get_param("rift_server", "credit_idle_ms", 1000);
	bool ok;
	u16 i;

	path_init(p, cons, 1);
	p->feat = feat;
	ok = set_param("rift_server", "credit_floor", floor) &&
	     set_param("rift_server", "credit_idle_ms", idle_ms);
	for (i = 0; ok && i < cons; i++)
		ok = path_connect(p, i);
	ok = ok && path_info(p);
	set_param("rift_server", "credit_floor", floor0);
	set_param("rift_server", "credit_idle_ms", idle0);
	if (!ok)
		return false;
	diag("INFO_RSP: %u of %u chunks granted, features 0x%llx", p->info.nr_chunks,
	     p->info.queue_depth, (unsigned long long)p->info.feat_accepted);
	if (!floor || !(feat & RIFT_FEAT_CREDITS))
		return EXPECT(!(p->info.feat_accepted & RIFT_FEAT_CREDITS),
			      "CREDITS accepted without credit_floor or the offer") &&
		       EXPECT(p->info.nr_chunks == p->info.queue_depth,
			      "a table of %u chunks without credits", p->info.nr_chunks);
	return EXPECT(p->info.feat_accepted & RIFT_FEAT_CREDITS, "CREDITS not accepted") &&
	       EXPECT(p->info.nr_chunks == floor, "initial grant %u, expected %u",
		      p->info.nr_chunks, floor);
}

static bool credit_path_up_idle(struct path *p, unsigned int floor, u64 feat,
				unsigned int idle_ms)
{
	return credit_path_up_cons(p, 1, floor, feat, idle_ms);
}

static bool credit_path_up(struct path *p, unsigned int floor, u64 feat)
{
	return credit_path_up_idle(p, floor, feat, CREDIT_IDLE_NEVER_MS);
}

static bool credit_req_send(struct path *p, u16 want)
{
	struct rift_imm req = { .type = RIFT_IMM_CREDIT_REQ, .want = want };
	__be32 v;

	return EXPECT(!rift_imm_encode(&req, &v), "cannot encode CREDIT_REQ") &&
	       send_imm(p->con[0], v);
}

/* The next CREDIT on connection 0 (heartbeats answered), decoded. */
static bool credit_recv(struct path *p, struct rift_credit *c)
{
	struct rift_imm imm, ack = { .type = RIFT_IMM_HB_ACK };
	struct peer_recv r;
	__be32 v;
	int err;

	for (;;) {
		err = peer_recv(p->con[0], peer_timeout_ms, &r);
		if (!EXPECT(!err, "no CREDIT: %s",
			    err == -ETIMEDOUT ? "timed out" : peer_conn_error(p->con[0])) ||
		    !EXPECT(r.has_imm, "a %u-byte message without immediate data", r.len))
			return false;
		v = (__force __be32)r.imm;
		if (!EXPECT(!rift_imm_decode(v, p->info.queue_depth, &imm),
			    "malformed immediate 0x%08x", be32_to_cpu(v)))
			return false;
		if (imm.type == RIFT_IMM_HB) {
			ack.seq = imm.seq;
			if (rift_imm_encode(&ack, &v) || !send_imm(p->con[0], v))
				return false;
			continue;
		}
		if (!EXPECT(imm.type == RIFT_IMM_CREDIT, "type %u instead of CREDIT", imm.type))
			return false;
		err = rift_proto_credit_decode(r.data, r.len, p->info.queue_depth, c);
		return EXPECT(!err, "CREDIT of %u bytes does not decode: %d", r.len, err);
	}
}

/*
 * Ask for @want chunks in total and take the whole answer: every message
 * ANSWER, MORE on all but the last, at most four, grants of chunks not
 * held, granted counting up; the grants go into @p's chunk table.
 */
static bool credit_take_answer(struct path *p, u16 want, u16 *granted)
{
	struct rift_credit c;
	unsigned int msgs = 0, i;
	u16 id;

	if (!credit_req_send(p, want))
		return false;
	do {
		if (!credit_recv(p, &c) ||
		    !EXPECT(c.flags & RIFT_CREDIT_F_ANSWER, "CREDIT flags 0x%x, not an answer",
			    c.flags) ||
		    !EXPECT(++msgs <= RIFT_CREDIT_MAX_MSGS, "an answer of %u messages", msgs))
			return false;
		for (i = 0; i < c.nr_grant; i++) {
			id = c.grant[i].chunk;
			if (!EXPECT(id >= *granted, "chunk %u granted again", id))
				return false;
			p->chunks[id].addr = c.grant[i].addr;
			p->chunks[id].len = p->info.chunk_size;
			p->chunks[id].rkey = c.grant[i].rkey;
		}
		*granted += c.nr_grant;
		if (!EXPECT(c.granted == *granted, "CREDIT says %u granted, counted %u",
			    c.granted, *granted))
			return false;
	} while (c.flags & RIFT_CREDIT_F_MORE);
	diag("asked for %u: %u granted in %u message(s)", want, *granted, msgs);
	return true;
}

/*
 * The grant grows on request (12 chunks per answer at most, here up to
 * the queue depth), a granted chunk carries IO, a chunk given back
 * (CREDIT_REL) is counted, and a request naming it afterwards closes the
 * path ("request names a chunk not granted").
 */
bool case_credit_grow(const struct peer_case *tc)
{
	u16 last, granted = CREDIT_FLOOR;
	u8 data[4096];
	const u8 *out;
	struct path p;
	int err = 0;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 91);
	ok = credit_path_up(&p, CREDIT_FLOOR, RIFT_FEAT_CREDITS) &&
	     credit_take_answer(&p, p.info.queue_depth, &granted) &&
	     EXPECT(granted == p.info.queue_depth, "%u granted of %u asked", granted,
		    p.info.queue_depth);
	last = p.info.queue_depth - 1;
	ok = ok && test_write(&p, p.con[0], last, CREDIT_OFF, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write through the last chunk granted") &&
	     test_read(&p, p.con[0], last, CREDIT_OFF, sizeof(data), 1, &err, &out) &&
	     expect_errno(err, 0, "read through it") &&
	     EXPECT(!memcmp(out, data, sizeof(data)), "read back differs");
	/*
	 * Asking for what is held gets an empty answer.  Neither answer
	 * was short: the budget (pool_mb 0, so max_pinned_mb) has room
	 * for the whole queue depth, and an empty answer to a request
	 * that is already met cuts nothing.
	 */
	ok = ok && credit_take_answer(&p, p.info.queue_depth, &granted) &&
	     EXPECT(srv_path_stat(&p, "credit_short") == 0, "credit_short is %lld with room",
		    srv_path_stat(&p, "credit_short")) &&
	     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, last, 0));
	if (ok) {
		long long t0 = now_ms();

		while (srv_path_stat(&p, "credit_rels") < 1 && now_ms() - t0 < peer_timeout_ms)
			usleep(10000);
		ok = EXPECT(srv_path_stat(&p, "credit_rels") == 1, "credit_rels is %lld",
			    srv_path_stat(&p, "credit_rels")) &&
		     test_write_post(&p, p.con[0], last, 0, CREDIT_OFF, data, 512) &&
		     expect_closed(p.con[0]);
	}
	path_down(&p);
	return ok;
}

/*
 * Each rule a client can break, on a path with the initial grant of
 * CREDIT_FLOOR chunks: the server closes the path.
 */
bool case_credit_bad(const struct peer_case *tc)
{
	u64 feat = tc->arg == CREDIT_NOFEAT ? 0 : RIFT_FEAT_CREDITS;
	/* credit_floor 0, the opt-out: the offer is declined. */
	unsigned int floor = tc->arg == CREDIT_SRV_OFF ? 0 : CREDIT_FLOOR;
	u16 granted = CREDIT_FLOOR;
	u8 data[512];
	struct path p;
	int err;
	bool ok;

	pattern(data, sizeof(data), 92);
	ok = credit_path_up(&p, floor, feat);
	if (!ok)
		goto out;
	switch (tc->arg) {
	case CREDIT_NOFEAT:
	case CREDIT_SRV_OFF:
		/* Not accepted: as any unknown type. */
		ok = credit_req_send(&p, 2);
		break;
	case CREDIT_REQ_WANT_ZERO:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REQ, 0, 0));
		break;
	case CREDIT_REQ_WANT_RANGE:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REQ, 0,
						p.info.queue_depth + 1));
		break;
	case CREDIT_REQ_CHUNK:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REQ, 1, 4));
		break;
	case CREDIT_REQ_FLOOD:
		/*
		 * The second request of a pair is answered only once the
		 * per-path interval (10 ms) since the first answer is over:
		 * the third, sent right behind it, finds it unanswered.
		 */
		ok = credit_take_answer(&p, 4, &granted) && credit_req_send(&p, 6) &&
		     credit_req_send(&p, 6);
		break;
	case CREDIT_REL_NOT_GRANTED:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, CREDIT_FLOOR, 0));
		break;
	case CREDIT_REL_RANGE:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, 0xfff, 0));
		break;
	case CREDIT_REL_TWICE:
		/* Above the floor, so that only the second is wrong. */
		ok = credit_take_answer(&p, CREDIT_FLOOR + 2, &granted) &&
		     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, CREDIT_FLOOR + 1, 0)) &&
		     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, CREDIT_FLOOR + 1, 0));
		break;
	case CREDIT_REL_BELOW_FLOOR:
		/*
		 * At the floor of 2: no CREDIT could count what would be left
		 * ("release below the floor").
		 */
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, 1, 0));
		break;
	case CREDIT_REL_IN_USE:
		/*
		 * Held at the ULP, as the cancel cases hold theirs; above the
		 * floor, so that only its use is wrong.
		 */
		ok = credit_take_answer(&p, CREDIT_FLOOR + 1, &granted) &&
		     set_param("rift_test_srv", "delay_offset", CREDIT_OFF) &&
		     set_param("rift_test_srv", "delay_next_ms", CANCEL_HOLD_MS) &&
		     test_write_post(&p, p.con[0], 0, 0, CREDIT_OFF, data, sizeof(data)) &&
		     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, 0, 0));
		break;
	case CREDIT_REQ_UNGRANTED:
		/* Its chunk exists on the server, its address is made up. */
		p.chunks[CREDIT_FLOOR] = p.chunks[0];
		ok = test_write_post(&p, p.con[0], CREDIT_FLOOR, 0, CREDIT_OFF, data,
				     sizeof(data));
		break;
	case CREDIT_CANCEL_UNGRANTED_NOFEAT:
		/*
		 * CANCEL was not offered: a CANCEL is a violation even of a
		 * chunk not granted, which is ignored only once the CANCEL
		 * itself is valid.
		 */
		ok = EXPECT(!(p.info.feat_accepted & RIFT_FEAT_CANCEL), "CANCEL accepted") &&
		     send_imm(p.con[0], imm_raw(RIFT_IMM_CANCEL, CREDIT_FLOOR, 0));
		break;
	}
	(void)err;
	ok = ok && expect_closed(p.con[0]);
out:
	path_down(&p);
	return ok;
}

/*
 * A CANCEL of a chunk not granted is ignored, not a violation: the
 * CREDIT_REL that gave the chunk back (connection 0) may overtake the
 * CANCEL of its timed-out request (that request's connection).  The path
 * stays up, counts it in cancels_stale and carries IO afterwards.
 */
bool case_credit_cancel_ungranted(const struct peer_case *tc)
{
	u8 data[512];
	struct path p;
	int err = 0;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 93);
	ok = credit_path_up(&p, CREDIT_FLOOR, RIFT_FEAT_CREDITS | RIFT_FEAT_CANCEL) &&
	     EXPECT(p.info.feat_accepted & RIFT_FEAT_CANCEL, "CANCEL not accepted") &&
	     send_imm(p.con[0], imm_raw(RIFT_IMM_CANCEL, CREDIT_FLOOR, 0));
	if (ok) {
		long long t0 = now_ms();

		while (srv_path_stat(&p, "cancels_stale") < 1 && now_ms() - t0 < peer_timeout_ms)
			usleep(10000);
		ok = EXPECT(srv_path_stat(&p, "cancels_stale") == 1, "cancels_stale is %lld",
			    srv_path_stat(&p, "cancels_stale")) &&
		     test_write(&p, p.con[0], 0, CREDIT_OFF, data, sizeof(data), &err) &&
		     expect_errno(err, 0, "write after the ignored CANCEL");
	}
	path_down(&p);
	return ok;
}

/* Nothing but heartbeats (answered) arrives on connection 0 for @ms. */
static bool credit_quiet(struct path *p, int ms)
{
	struct rift_imm imm, ack = { .type = RIFT_IMM_HB_ACK };
	long long end = now_ms() + ms;
	struct peer_recv r;
	__be32 v;
	int err;

	while (now_ms() < end) {
		err = peer_recv(p->con[0], (int)(end - now_ms()) + 1, &r);
		if (err == -ETIMEDOUT)
			return true;
		if (!EXPECT(!err && r.has_imm, "connection 0 failed or sent a plain message"))
			return false;
		v = (__force __be32)r.imm;
		if (!EXPECT(!rift_imm_decode(v, p->info.queue_depth, &imm) &&
			    imm.type == RIFT_IMM_HB,
			    "0x%08x while a revoke is pending and the request held",
			    be32_to_cpu(v)))
			return false;
		ack.seq = imm.seq;
		if (rift_imm_encode(&ack, &v) || !send_imm(p->con[0], v))
			return false;
	}
	return true;
}

/*
 * The server revokes an idle path down to its floor (credit_idle_ms
 * 100 here): one REVOKE, keep = the floor, granted = the grant.  A
 * CREDIT_REQ sent while the revoke is pending is answered only once the
 * releases it asked for arrived (the answer is held, so its count
 * includes them); releases are counted, the chunks reclaimed (their keys
 * invalidated, their memory freed), and the path carries IO afterwards.
 */
bool case_credit_revoke(const struct peer_case *tc)
{
	u16 granted = CREDIT_FLOOR, keep, id, ids[RIFT_CREDIT_MAX_GRANTS * RIFT_CREDIT_MAX_MSGS];
	unsigned int i, n;
	struct rift_credit c;
	u8 data[512];
	struct path p;
	int err = 0;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 94);
	/*
	 * No IO between the answer and the revoke: with credit_idle_ms 100
	 * the revoke may come before a request's response under TCG (seen:
	 * a CREDIT where the write's RSP was awaited).  The other credit
	 * cases write through grown grants.
	 */
	ok = credit_path_up_idle(&p, CREDIT_FLOOR, RIFT_FEAT_CREDITS, 100) &&
	     credit_take_answer(&p, p.info.queue_depth, &granted) &&
	     EXPECT(granted > CREDIT_FLOOR, "only %u granted", granted);
	/* Idle from here: the revoke comes within 100 ms + a tick. */
	ok = ok && credit_recv(&p, &c) &&
	     EXPECT(c.flags == RIFT_CREDIT_F_REVOKE, "CREDIT flags 0x%x, not a revoke",
		    c.flags) &&
	     EXPECT(c.keep == CREDIT_FLOOR, "revoke keeps %u, floor %u", c.keep, CREDIT_FLOOR) &&
	     EXPECT(c.granted == granted, "revoke says %u granted, held %u", c.granted, granted);
	keep = c.keep;
	/* Asked before the releases: held back while the revoke is pending. */
	ok = ok && credit_req_send(&p, p.info.queue_depth) && credit_quiet(&p, 300);
	for (id = granted; ok && id > keep; id--)
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, id - 1, 0));
	granted = keep;
	/* Now the held answer: its count includes every release. */
	n = 0;
	ok = ok && credit_recv(&p, &c) &&
	     EXPECT(c.flags & RIFT_CREDIT_F_ANSWER, "CREDIT flags 0x%x, not the answer",
		    c.flags) &&
	     EXPECT(c.granted >= keep && c.granted == keep + c.nr_grant,
		    "held answer says %u granted with %u grants, %u kept", c.granted,
		    c.nr_grant, keep);
	for (;;) {
		for (i = 0; ok && i < c.nr_grant && n < ARRAY_SIZE(ids); i++)
			ids[n++] = c.grant[i].chunk;
		granted = c.granted;
		if (!ok || !(c.flags & RIFT_CREDIT_F_MORE))
			break;
		ok = credit_recv(&p, &c);
	}
	/*
	 * Above the floor again and idle: revoked again (no IO may come
	 * first, or its response would meet the CREDIT).  Given back, the
	 * path sits at its floor, where nothing more is revoked.
	 */
	if (ok && granted > keep) {
		ok = credit_recv(&p, &c) &&
		     EXPECT(c.flags == RIFT_CREDIT_F_REVOKE, "CREDIT flags 0x%x, not a revoke",
			    c.flags) &&
		     EXPECT(c.keep == keep && c.granted == granted && n == (unsigned int)(granted - keep),
			    "second revoke keeps %u of %u, expected %u of %u (%u granted ids)",
			    c.keep, c.granted, keep, granted, n);
		for (i = 0; ok && i < n; i++)
			ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, ids[i], 0));
	}
	if (ok) {
		long long t0 = now_ms();

		while (srv_path_stat(&p, "reclaimed") < 1 && now_ms() - t0 < peer_timeout_ms)
			usleep(10000);
		ok = EXPECT(srv_path_stat(&p, "revokes") >= 1, "revokes is %lld",
			    srv_path_stat(&p, "revokes")) &&
		     EXPECT(srv_path_stat(&p, "reclaimed") >= 1, "reclaimed is %lld",
			    srv_path_stat(&p, "reclaimed")) &&
		     test_write(&p, p.con[0], 0, CREDIT_OFF, data, sizeof(data), &err) &&
		     expect_errno(err, 0, "write through the floor after the revoke");
	}
	path_down(&p);
	return ok;
}

/* Wait for the server path's stat @name to reach @min; its value. */
static long long credit_stat_wait(struct path *p, const char *name, long long min)
{
	long long t0 = now_ms();

	while (srv_path_stat(p, name) < min && now_ms() - t0 < peer_timeout_ms)
		usleep(10000);
	return srv_path_stat(p, name);
}

/*
 * A chunk given back is freed only once the answers that used it are
 * complete on the device, not once they are posted.  Connection 1 stops
 * reposting its receives and has them all used up by HB_ACKs; one more
 * HB leaves the server's HB_ACK retrying receiver-not-ready (RNR retry 7:
 * for ever), and a READ of chunk X has its RDMA WRITEs and its answer
 * queued behind that SEND.  CREDIT_REL of X on connection 0 is accepted
 * (the answer is posted), but X must not be reclaimed while the answer
 * waits: its pages would be freed under the WRITEs, and the device would
 * send whatever they hold next.  Once the receives are back the answer
 * arrives with the data, and X is reclaimed.
 */
bool case_credit_reclaim_after_answer(const struct peer_case *tc)
{
	u16 granted = CREDIT_FLOOR, x = CREDIT_FLOOR, seq;
	struct rift_imm ack, hb = { .type = RIFT_IMM_HB };
	__be32 v;
	u8 data[4096];
	const u8 *out = NULL;
	struct path p;
	int err = 0;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 95);
	ok = credit_path_up_cons(&p, 2, CREDIT_FLOOR, RIFT_FEAT_CREDITS, CREDIT_IDLE_NEVER_MS) &&
	     credit_take_answer(&p, CREDIT_FLOOR + 1, &granted) &&
	     EXPECT(granted == CREDIT_FLOOR + 1, "%u granted", granted) &&
	     test_write(&p, p.con[1], x, CREDIT_OFF, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write through the chunk to give back");
	/*
	 * Every receive of connection 1 used up: peer_nr_rx of them (the
	 * INFO_RSP buffer, posted first and never reposted, took the write's
	 * answer above; one more round trip waited for an answer that could
	 * not land).
	 */
	if (ok)
		peer_conn_no_repost(p.con[1]);
	for (seq = 1; ok && seq <= peer_nr_rx; seq++)
		ok = hb_roundtrip(&p, p.con[1], seq);
	/* This HB_ACK meets receiver-not-ready; the READ's answer queues behind. */
	hb.seq = seq;
	ok = ok && EXPECT(!rift_imm_encode(&hb, &v), "cannot encode HB") &&
	     send_imm(p.con[1], v) &&
	     test_read_post(&p, p.con[1], x, CREDIT_OFF, sizeof(data), 2, &out);
	if (ok) {
		/* rift-test answers at once: the answer is posted by then. */
		usleep(300000);
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, x, 0)) &&
		     EXPECT(credit_stat_wait(&p, "credit_rels", 1) == 1, "credit_rels is %lld",
			    srv_path_stat(&p, "credit_rels")) &&
		     credit_quiet(&p, 1000) &&
		     EXPECT(srv_path_stat(&p, "reclaimed") == 0,
			    "chunk %u reclaimed while its answer was still queued (reclaimed %lld)",
			    x, srv_path_stat(&p, "reclaimed"));
	}
	/* The receives back: the HB_ACK, then the answer with its data. */
	ok = ok && EXPECT(!peer_conn_repost(p.con[1]), "cannot repost the receives") &&
	     recv_imm(&p, p.con[1], &ack) &&
	     EXPECT(ack.type == RIFT_IMM_HB_ACK && ack.seq == seq, "type %u seq %u, not HB_ACK %u",
		    ack.type, ack.seq, seq) &&
	     io_wait(&p, p.con[1], x, &err) && expect_errno(err, 0, "the held-up read") &&
	     EXPECT(!memcmp(out, data, sizeof(data)), "read data differs");
	ok = ok && EXPECT(credit_stat_wait(&p, "reclaimed", 1) == 1,
			  "reclaimed is %lld once the answer completed",
			  srv_path_stat(&p, "reclaimed")) &&
	     test_write(&p, p.con[0], 0, CREDIT_OFF, data, 512, &err) &&
	     expect_errno(err, 0, "write after the reclaim");
	path_down(&p);
	return ok;
}

/* Rounds of case_credit_rel_race(), and how long its request is held. */
#define CREDIT_RACE_ROUNDS	6
#define CREDIT_RACE_HOLD_MS	200

/*
 * A request on a chunk and a CREDIT_REL of the same chunk, sent back to
 * back on two connections (request on 1, release on 0), so that the
 * server's two receive handlers race: the release clears the grant and
 * then looks at the op, the request takes the op and then looks at the
 * grant.  Whichever comes first, the path must close ("request names a
 * chunk not granted" or "release of a chunk in use"): rift-test-srv holds
 * the request at the ULP, so it cannot be answered before the release
 * lands, and no order of the two is a client keeping to the rules.
 * Before the Dekker pairing the request could reach the ULP on a chunk
 * already given back, and the path stay up.  Both orders of sending,
 * several rounds: the window is narrow, the outcome is the same in all.
 */
bool case_credit_rel_race(const struct peer_case *tc)
{
	u16 granted, x = CREDIT_FLOOR, round;
	u8 data[512];
	struct path p;
	bool ok = true, rel_first;

	(void)tc;
	pattern(data, sizeof(data), 96);
	for (round = 0; ok && round < CREDIT_RACE_ROUNDS; round++) {
		rel_first = round & 1;
		granted = CREDIT_FLOOR;
		ok = credit_path_up_cons(&p, 2, CREDIT_FLOOR, RIFT_FEAT_CREDITS,
					 CREDIT_IDLE_NEVER_MS) &&
		     credit_take_answer(&p, CREDIT_FLOOR + 1, &granted) &&
		     EXPECT(granted == CREDIT_FLOOR + 1, "%u granted", granted) &&
		     set_param("rift_test_srv", "delay_offset", CREDIT_OFF) &&
		     set_param("rift_test_srv", "delay_next_ms", CREDIT_RACE_HOLD_MS);
		if (ok && rel_first)
			ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, x, 0)) &&
			     test_write_post(&p, p.con[1], x, 0, CREDIT_OFF, data,
					     sizeof(data));
		else if (ok)
			ok = test_write_post(&p, p.con[1], x, 0, CREDIT_OFF, data,
					     sizeof(data)) &&
			     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, x, 0));
		ok = ok && expect_closed(p.con[0]);
		if (!ok)
			diag("round %u (%s first)", round, rel_first ? "release" : "request");
		/* A request refused before the ULP leaves the hold armed. */
		set_param("rift_test_srv", "delay_next_ms", 0);
		path_down(&p);
	}
	return ok;
}

/* A number from a sysfs file, -1 if it cannot be read. */
static long long read_ll(const char *file)
{
	long long v = -1;
	FILE *f = fopen(file, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * An old client (no CREDITS) reserves its whole queue depth from the
 * budget at admission and is refused with ENOSPC when it does not fit;
 * a client with credits needs only its floor and is admitted.  Asking
 * then for its whole queue depth, it is granted what the budget still
 * holds and no more, and the server counts that answer as short
 * (stats/credit_short), the client being told nothing.  pool_mb 1 holds
 * 7 chunks of the default size, not PEER_QD (8) of them; run only when
 * nothing else is pinned, so that the budget is this case's alone.
 */
bool case_credit_pool_enospc(const struct peer_case *tc)
{
	long long pinned = read_ll("/sys/kernel/rift_server/pinned_bytes");
	unsigned long long floor0 = get_param("rift_server", "credit_floor", 2);
	unsigned long long pool0 = get_param("rift_server", "pool_mb", 0);
	u16 granted = CREDIT_FLOOR, fit;
	struct path p;
	u8 buf[512];
	int len;
	bool ok;

	(void)tc;
	/*
	 * The previous case's path may still be going away on the server:
	 * wait for it.  A budget shared with anything else would prove
	 * nothing, and a skip would pass without proving it either, so
	 * what is still pinned after the wait fails the case.
	 */
	for (long long t0 = now_ms(); pinned != 0 && now_ms() - t0 < peer_timeout_ms;
	     pinned = read_ll("/sys/kernel/rift_server/pinned_bytes"))
		usleep(10000);
	if (!EXPECT(pinned == 0, "%lld bytes pinned by others", pinned))
		return false;
	path_init(&p, 1, 1);
	/* The INFO_REQ carries the version CON_RSP agreed: after the connect. */
	ok = set_param("rift_server", "pool_mb", 1) &&
	     set_param("rift_server", "credit_floor", CREDIT_FLOOR) && path_connect(&p, 0);
	len = ok ? info_req_encode_feat(p.name, PEER_HOST, NULL, 0, p.rsp.version, buf,
					sizeof(buf)) : -1;
	ok = ok && EXPECT(len > 0, "cannot encode INFO_REQ") &&
	     expect_info_refusal(&p, buf, len, ENOSPC);
	set_param("rift_server", "credit_floor", floor0);
	path_down(&p);
	/*
	 * The same budget admits a client with credits: its floor fits.
	 * Its request for the queue depth gets what fits: one answer, up
	 * to 12 chunks, would grant all of it from a budget with room.
	 */
	if (ok) {
		ok = credit_path_up_idle(&p, CREDIT_FLOOR, RIFT_FEAT_CREDITS,
					 CREDIT_IDLE_NEVER_MS);
		fit = ok ? (1U << 20) / p.info.chunk_size : 0;
		ok = ok && EXPECT(fit >= CREDIT_FLOOR && fit < p.info.queue_depth &&
				  p.info.queue_depth - CREDIT_FLOOR <=
				  RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS,
				  "no short answer: pool_mb 1 holds %u of %u bytes, depth %u",
				  fit, p.info.chunk_size, p.info.queue_depth) &&
		     EXPECT(srv_path_stat(&p, "credit_short") == 0,
			    "credit_short is %lld before any request",
			    srv_path_stat(&p, "credit_short")) &&
		     credit_take_answer(&p, p.info.queue_depth, &granted) &&
		     EXPECT(granted == fit, "%u granted, the budget holds %u", granted, fit) &&
		     EXPECT(credit_stat_wait(&p, "credit_short", 1) == 1,
			    "credit_short is %lld after an answer the budget cut short",
			    srv_path_stat(&p, "credit_short"));
		path_down(&p);
	}
	set_param("rift_server", "pool_mb", pool0);
	return ok;
}

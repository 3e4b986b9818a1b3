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

/* A path of one connection with always-invalidate. */
bool path_up_ai(struct path *p)
{
	return path_up_feat(p, RIFT_FEAT_ALWAYS_INVALIDATE) &&
	       EXPECT(p->info.feat_accepted & RIFT_FEAT_ALWAYS_INVALIDATE,
		      "always-invalidate not accepted");
}

/* Answers chunk_reuse_ai waits for. */
#define REUSE_ROUNDS		1000

/* The next RSP_RKEY on @c, with its new key; answers heartbeats. */
bool recv_rsp_rkey(const struct path *p, struct peer_conn *c, struct rift_imm *imm,
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

	pattern(data, sizeof(data), 80);
	ok = path_up_ai(&p);
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

/* Store offset of the request cancel_stale_* holds back (for HOLD_MS). */
#define CANCEL_OFF		0x100000ULL

/*
 * Post a write of generation @gen through chunk 0 that rift-test-srv holds
 * back for HOLD_MS, then a CANCEL of generation @cancel_gen on the
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
	    !set_param("rift_test_srv", "delay_next_ms", HOLD_MS) ||
	    !test_write_post(p, p->con[0], 0, gen, CANCEL_OFF, data, sizeof(data)) ||
	    !EXPECT(!rift_imm_encode(&cancel, &v), "cannot encode CANCEL") ||
	    !send_imm(p->con[0], v) || !io_wait(p, p->con[0], 0, err))
		return false;
	took = now_ms() - t0;
	return EXPECT(took >= HOLD_MS * 3 / 4,
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
bool expect_write_refused(struct peer_conn *c)
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
#define AI_OPEN_OFF		0x1c0000ULL
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

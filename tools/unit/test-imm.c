// SPDX-License-Identifier: GPL-2.0
/*
 * 32-bit immediate data: layout, round trips, rejection of bad values.
 */
#include "unit.h"

static u32 raw_of(__be32 v)
{
	u8 b[4];

	memcpy(b, &v, 4);
	return (u32)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
}

static __be32 be_of(u32 v)
{
	u8 b[4] = { v >> 24, v >> 16, v >> 8, v };
	__be32 r;

	memcpy(&r, b, 4);
	return r;
}

static void test_imm_layout(void)
{
	struct rift_imm imm = { .type = RIFT_IMM_WRITE, .chunk = 0x123,
				.desc_off = 0x4567 * RIFT_IO_DESC_ALIGN };
	__be32 v;

	/* type in 31..28, chunk in 27..16, arg in 15..0, network byte order. */
	CHECK_EQ(rift_imm_encode(&imm, &v), 0);
	CHECK_EQ(raw_of(v), 0x11234567);

	imm = (struct rift_imm){ .type = RIFT_IMM_RSP, .chunk = 0xfff, .err = -EIO };
	CHECK_EQ(rift_imm_encode(&imm, &v), 0);
	CHECK_EQ(raw_of(v), 0x3fff0000 | EIO);

	/* RSP_GEN: the generation's low 4 bits above the 12-bit errno. */
	imm = (struct rift_imm){ .type = RIFT_IMM_RSP_RKEY, .chunk = 0x12, .err = -4095,
				 .gen = 0xa };
	CHECK_EQ(rift_imm_encode(&imm, &v), 0);
	CHECK_EQ(raw_of(v), 0x4012afff);

	imm = (struct rift_imm){ .type = RIFT_IMM_HB_ACK, .seq = 0xbeef };
	CHECK_EQ(rift_imm_encode(&imm, &v), 0);
	CHECK_EQ(raw_of(v), 0x6000beef);

	CHECK_EQ(RIFT_IMM_TYPE_BITS + RIFT_IMM_CHUNK_BITS + RIFT_IMM_ARG_BITS, 32);
}

static void roundtrip(const struct rift_imm *in, u32 nr_chunks)
{
	struct rift_imm out;
	__be32 v;

	CHECK_EQ(rift_imm_encode(in, &v), 0);
	CHECK_EQ(rift_imm_decode(v, nr_chunks, &out), 0);
	CHECK_EQ(out.type, in->type);
	CHECK_EQ(out.chunk, in->chunk);
	switch (in->type) {
	case RIFT_IMM_WRITE:
	case RIFT_IMM_READ:
		CHECK_EQ(out.desc_off, in->desc_off);
		CHECK_EQ(out.err, 0);
		CHECK_EQ(out.seq, 0);
		break;
	case RIFT_IMM_RSP:
	case RIFT_IMM_RSP_RKEY:
		CHECK_EQ(out.err, in->err);
		CHECK_EQ(out.gen, in->gen);
		CHECK_EQ(out.desc_off, 0);
		break;
	case RIFT_IMM_CANCEL:
		CHECK_EQ(out.gen, in->gen);
		CHECK_EQ(out.seq, 0);
		CHECK_EQ(out.err, 0);
		break;
	default:
		CHECK_EQ(out.seq, in->seq);
		CHECK_EQ(out.gen, 0);
		CHECK_EQ(out.err, 0);
		break;
	}
}

static void test_imm_roundtrip(void)
{
	static const u32 offs[] = { 0, 64, 4096, 65535U * 64 };
	static const int errs[] = { 0, -1, -EIO, -ENOMEM, -EBADMSG, -4095 };
	static const u16 chunks[] = { 0, 1, 4094, 4095 };
	struct rift_imm imm;
	unsigned int i, j, k;

	for (k = 0; k < 4; k++) {
		for (i = 0; i < 4; i++) {
			imm = (struct rift_imm){ .type = RIFT_IMM_WRITE, .chunk = chunks[k],
						 .desc_off = offs[i] };
			roundtrip(&imm, RIFT_MAX_QUEUE_DEPTH);
			imm.type = RIFT_IMM_READ;
			roundtrip(&imm, RIFT_MAX_QUEUE_DEPTH);
		}
		for (j = 0; j < 6 * 16; j++) {
			imm = (struct rift_imm){ .type = RIFT_IMM_RSP, .chunk = chunks[k],
						 .err = errs[j % 6], .gen = j / 6 };
			roundtrip(&imm, RIFT_MAX_QUEUE_DEPTH);
			imm.type = RIFT_IMM_RSP_RKEY;
			roundtrip(&imm, RIFT_MAX_QUEUE_DEPTH);
		}
	}
	for (k = 0; k < ARRAY_SIZE(chunks); k++) {
		for (i = 0; i < 0x10000; i += 0x3333) {
			imm = (struct rift_imm){ .type = RIFT_IMM_CANCEL, .chunk = chunks[k],
						 .gen = i };
			roundtrip(&imm, RIFT_MAX_QUEUE_DEPTH);
		}
	}
	for (i = 0; i < 0x10000; i += 0x1111) {
		imm = (struct rift_imm){ .type = RIFT_IMM_HB, .seq = i };
		roundtrip(&imm, 1);
		imm.type = RIFT_IMM_HB_ACK;
		roundtrip(&imm, 1);
	}
}

static void test_imm_encode_bad(void)
{
	struct rift_imm imm;
	__be32 v = be_of(0xdeadbeef);
	unsigned int t;

	imm = (struct rift_imm){ .type = RIFT_IMM_WRITE, .desc_off = 65536U * 64 };
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);
	imm.desc_off = 32;
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);
	imm.desc_off = 64;
	imm.chunk = RIFT_MAX_QUEUE_DEPTH;
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);

	imm = (struct rift_imm){ .type = RIFT_IMM_RSP, .err = -4096 };
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);
	imm.err = 1;
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);
	/* A response carries 4 bits of generation, never the whole of it. */
	imm = (struct rift_imm){ .type = RIFT_IMM_RSP, .gen = 0x10 };
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);
	imm = (struct rift_imm){ .type = RIFT_IMM_RSP_RKEY, .gen = 0xffff };
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);

	imm = (struct rift_imm){ .type = RIFT_IMM_HB, .chunk = 1 };
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);

	for (t = 0; t < 256; t++) {
		if (t > RIFT_IMM_INVALID && t < RIFT_IMM_TYPE_NR)
			continue;
		imm = (struct rift_imm){ .type = t };
		CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);
	}
	/* Failed encodes leave the output alone. */
	CHECK_EQ(raw_of(v), 0xdeadbeef);
}

static void test_imm_decode_bad(void)
{
	struct rift_imm out;
	u32 t;

	/* Unknown types, including the all-zero immediate. */
	CHECK_EQ(rift_imm_decode(be_of(0), 16, &out), -EBADMSG);
	for (t = RIFT_IMM_TYPE_NR; t < 16; t++)
		CHECK_EQ(rift_imm_decode(be_of(t << 28 | 0x00010040), 16, &out), -EBADMSG);

	/*
	 * CANCEL: chunk in range; the argument is the generation, any value
	 * (whether it may be non-zero is rift_proto_cancel_gen()'s call).
	 */
	CHECK_EQ(rift_imm_decode(be_of(0x700f0000), 16, &out), 0);
	CHECK_EQ(out.type, RIFT_IMM_CANCEL);
	CHECK_EQ(out.chunk, 15);
	CHECK_EQ(out.gen, 0);
	CHECK_EQ(rift_imm_decode(be_of(0x70100000), 16, &out), -EBADMSG);
	CHECK_EQ(out.gen, 0);
	CHECK_EQ(rift_imm_decode(be_of(0x7003beef), 16, &out), 0);
	CHECK_EQ(out.chunk, 3);
	CHECK_EQ(out.gen, 0xbeef);

	/* Chunk id against the session's queue depth. */
	CHECK_EQ(rift_imm_decode(be_of(0x100f0001), 16, &out), 0);
	CHECK_EQ(rift_imm_decode(be_of(0x10100001), 16, &out), -EBADMSG);
	CHECK_EQ(out.type, 0);
	CHECK_EQ(rift_imm_decode(be_of(0x20100001), 16, &out), -EBADMSG);
	CHECK_EQ(rift_imm_decode(be_of(0x30100000), 16, &out), -EBADMSG);
	CHECK_EQ(rift_imm_decode(be_of(0x40100000), 16, &out), -EBADMSG);
	CHECK_EQ(rift_imm_decode(be_of(0x3fff0000), 4096, &out), 0);

	/*
	 * Response errno in 12 bits; bits 15..12 are the generation, any
	 * value (whether it may be non-zero is rift_proto_rsp_gen_check()'s call).
	 */
	CHECK_EQ(rift_imm_decode(be_of(0x30000fff), 1, &out), 0);
	CHECK_EQ(out.err, -4095);
	CHECK_EQ(out.gen, 0);
	CHECK_EQ(rift_imm_decode(be_of(0x30001000), 1, &out), 0);
	CHECK_EQ(out.err, 0);
	CHECK_EQ(out.gen, 1);
	CHECK_EQ(rift_imm_decode(be_of(0x4000f005), 1, &out), 0);
	CHECK_EQ(out.type, RIFT_IMM_RSP_RKEY);
	CHECK_EQ(out.err, -5);
	CHECK_EQ(out.gen, 0xf);
	CHECK_EQ(rift_imm_decode(be_of(0x4001f005), 1, &out), -EBADMSG);
	CHECK_EQ(out.gen, 0);

	/* Heartbeats carry no chunk. */
	CHECK_EQ(rift_imm_decode(be_of(0x5000ffff), 1, &out), 0);
	CHECK_EQ(out.seq, 0xffff);
	CHECK_EQ(rift_imm_decode(be_of(0x50010000), 4096, &out), -EBADMSG);
	CHECK_EQ(rift_imm_decode(be_of(0x6fff0000), 4096, &out), -EBADMSG);

	/* The caller's queue depth must be sane. */
	CHECK_EQ(rift_imm_decode(be_of(0x10000001), 0, &out), -EINVAL);
	CHECK_EQ(rift_imm_decode(be_of(0x10000001), 4097, &out), -EINVAL);
}

/*
 * Credit messages: CREDIT_REQ and CREDIT_REL pass their chunk id through
 * (the server names the violation), CREDIT carries neither id nor arg.
 */
static void test_imm_credit(void)
{
	struct rift_imm imm, out;
	__be32 v;

	imm = (struct rift_imm){ .type = RIFT_IMM_CREDIT_REQ, .want = 128 };
	CHECK_EQ(rift_imm_encode(&imm, &v), 0);
	CHECK_EQ(raw_of(v), 0x80000080);
	CHECK_EQ(rift_imm_decode(v, 16, &out), 0);
	CHECK_EQ(out.type, RIFT_IMM_CREDIT_REQ);
	CHECK_EQ(out.want, 128);
	CHECK_EQ(out.chunk, 0);
	/* Decoded whatever the path's depth: the receiver judges want and id. */
	CHECK_EQ(rift_imm_decode(be_of(0x8fffffff), 1, &out), 0);
	CHECK_EQ(out.chunk, 0xfff);
	CHECK_EQ(out.want, 0xffff);

	imm = (struct rift_imm){ .type = RIFT_IMM_CREDIT };
	CHECK_EQ(rift_imm_encode(&imm, &v), 0);
	CHECK_EQ(raw_of(v), 0x90000000);
	CHECK_EQ(rift_imm_decode(v, 1, &out), 0);
	CHECK_EQ(out.type, RIFT_IMM_CREDIT);
	imm.chunk = 1;
	CHECK_EQ(rift_imm_encode(&imm, &v), -EINVAL);
	CHECK_EQ(rift_imm_decode(be_of(0x90010000), 16, &out), -EBADMSG);
	CHECK_EQ(rift_imm_decode(be_of(0x90000001), 16, &out), -EBADMSG);

	imm = (struct rift_imm){ .type = RIFT_IMM_CREDIT_REL, .chunk = 7 };
	CHECK_EQ(rift_imm_encode(&imm, &v), 0);
	CHECK_EQ(raw_of(v), 0xa0070000);
	CHECK_EQ(rift_imm_decode(v, 8, &out), 0);
	CHECK_EQ(out.type, RIFT_IMM_CREDIT_REL);
	CHECK_EQ(out.chunk, 7);
	CHECK_EQ(rift_imm_decode(be_of(0xa0ff0000), 8, &out), 0);
	CHECK_EQ(out.chunk, 0xff);
	CHECK_EQ(rift_imm_decode(be_of(0xa0070001), 8, &out), -EBADMSG);
	CHECK_EQ(out.type, 0);
}

/* Anything that decodes re-encodes to the same bits: the codec is a bijection. */
static void test_imm_random(void)
{
	struct rift_imm out;
	unsigned int i, ok = 0;
	__be32 v;
	u32 raw;

	for (i = 0; i < 200000; i++) {
		raw = unit_rand();
		if (rift_imm_decode(be_of(raw), RIFT_MAX_QUEUE_DEPTH, &out))
			continue;
		ok++;
		CHECK_EQ(rift_imm_encode(&out, &v), 0);
		CHECK_EQ(raw_of(v), raw);
	}
	/*
	 * About 37% of random words are valid (any WRITE, READ, RSP,
	 * RSP_RKEY, CANCEL and CREDIT_REQ); make sure we exercised them.
	 */
	CHECK(ok > 200000 / 10);
}

/*
 * A CANCEL's generation against the path's features: without CANCEL it is
 * a violation, without CANCEL_GEN only 0 is valid and it names whatever
 * request holds the chunk, with it the generation is passed through.
 */
static void test_cancel_gen(void)
{
	const u64 cg = RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN;
	struct rift_imm imm = { .type = RIFT_IMM_CANCEL, .chunk = 2, .gen = 7 };
	u16 gen = 0x5555;

	CHECK_EQ(rift_proto_cancel_gen(&imm, cg, &gen), 0);
	CHECK_EQ(gen, 7);
	imm.gen = 0;
	CHECK_EQ(rift_proto_cancel_gen(&imm, cg, &gen), 0);
	CHECK_EQ(gen, 0);
	imm.gen = 0xffff;
	CHECK_EQ(rift_proto_cancel_gen(&imm, cg | RIFT_FEAT_ALWAYS_INVALIDATE, &gen), 0);
	CHECK_EQ(gen, 0xffff);

	/* An old peer's CANCEL: generation 0, matching any request. */
	imm.gen = 0;
	gen = 0x5555;
	CHECK_EQ(rift_proto_cancel_gen(&imm, RIFT_FEAT_CANCEL, &gen), 0);
	CHECK_EQ(gen, 0);
	imm.gen = 1;
	gen = 0x5555;
	CHECK_EQ(rift_proto_cancel_gen(&imm, RIFT_FEAT_CANCEL, &gen), -EBADMSG);
	CHECK_EQ(gen, 0);

	/* CANCEL_GEN alone means nothing; no CANCEL at all is a violation. */
	CHECK_EQ(rift_proto_cancel_gen(&imm, RIFT_FEAT_CANCEL_GEN, &gen), -EPROTO);
	CHECK_EQ(rift_proto_cancel_gen(&imm, 0, &gen), -EPROTO);
	imm.gen = 0;
	CHECK_EQ(rift_proto_cancel_gen(&imm, RIFT_FEAT_ALWAYS_INVALIDATE, &gen), -EPROTO);

	/* Not a CANCEL. */
	imm = (struct rift_imm){ .type = RIFT_IMM_HB };
	CHECK_EQ(rift_proto_cancel_gen(&imm, cg, &gen), -EINVAL);
}

/*
 * A response's generation (RSP_GEN): the server echoes the request's low
 * 4 bits with the feature and 0 without; the client refuses bits set
 * without the feature as malformed, and with it completes a request only
 * with an answer that echoes its generation.  Every rule a hostile server
 * can break, and the 4-bit wrap the protocol documents.
 */
static void test_rsp_gen(void)
{
	const u64 feat = RIFT_FEAT_RSP_GEN;
	struct rift_imm imm = { .type = RIFT_IMM_RSP, .chunk = 3 };
	struct rift_imm out;
	__be32 v;
	u32 g;

	/* Server: the low 4 bits with the feature, nothing without. */
	CHECK_EQ(rift_proto_rsp_gen_put(0x1234, feat), 4);
	CHECK_EQ(rift_proto_rsp_gen_put(0xffff, feat), 0xf);
	CHECK_EQ(rift_proto_rsp_gen_put(0x10, feat), 0);
	CHECK_EQ(rift_proto_rsp_gen_put(0x1234, 0), 0);
	CHECK_EQ(rift_proto_rsp_gen_put(0x1234, RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN), 0);
	CHECK_EQ(rift_proto_rsp_gen_put(0x1234, ~RIFT_FEAT_RSP_GEN), 0);

	/* Through the wire and back: what the server puts is what the client sees. */
	for (g = 0; g < 0x10000; g += 0x101) {
		imm.gen = rift_proto_rsp_gen_put(g, feat);
		imm.err = -(int)(g % 4096);
		CHECK_EQ(rift_imm_encode(&imm, &v), 0);
		CHECK_EQ(rift_imm_decode(v, 16, &out), 0);
		CHECK_EQ(rift_proto_rsp_gen_check(&out, feat), 0);
		CHECK(rift_proto_rsp_gen_match(&out, feat, g));
		CHECK(!rift_proto_rsp_gen_match(&out, feat, g + 1));
		CHECK(!rift_proto_rsp_gen_match(&out, feat, g - 1));
		CHECK_EQ(out.err, imm.err);
	}

	/* Form: bits 15..12 set without the feature are malformed. */
	imm = (struct rift_imm){ .type = RIFT_IMM_RSP, .gen = 0 };
	CHECK_EQ(rift_proto_rsp_gen_check(&imm, 0), 0);
	CHECK_EQ(rift_proto_rsp_gen_check(&imm, feat), 0);
	for (g = 1; g <= RIFT_IMM_RSP_GEN_MASK; g++) {
		imm.gen = g;
		imm.type = RIFT_IMM_RSP;
		CHECK_EQ(rift_proto_rsp_gen_check(&imm, 0), -EBADMSG);
		CHECK_EQ(rift_proto_rsp_gen_check(&imm, RIFT_FEAT_KNOWN & ~feat), -EBADMSG);
		CHECK_EQ(rift_proto_rsp_gen_check(&imm, feat), 0);
		imm.type = RIFT_IMM_RSP_RKEY;
		CHECK_EQ(rift_proto_rsp_gen_check(&imm, RIFT_FEAT_ALWAYS_INVALIDATE), -EBADMSG);
		CHECK_EQ(rift_proto_rsp_gen_check(&imm, RIFT_FEAT_ALWAYS_INVALIDATE | feat), 0);
	}
	/* As the client sees it off the wire: errno 0, generation 1. */
	CHECK_EQ(rift_imm_decode(be_of(0x30021000), 16, &out), 0);
	CHECK_EQ(rift_proto_rsp_gen_check(&out, 0), -EBADMSG);
	CHECK_EQ(rift_proto_rsp_gen_check(&out, feat), 0);

	/* Not a response. */
	imm = (struct rift_imm){ .type = RIFT_IMM_CANCEL, .gen = 1 };
	CHECK_EQ(rift_proto_rsp_gen_check(&imm, feat), -EINVAL);
	imm = (struct rift_imm){ .type = RIFT_IMM_HB };
	CHECK_EQ(rift_proto_rsp_gen_check(&imm, feat), -EINVAL);

	/*
	 * Match: without the feature any response answers the request on
	 * the chunk (the behaviour before it: a duplicate is taken for the
	 * next request's answer).  With it only the request's own echo.
	 */
	imm = (struct rift_imm){ .type = RIFT_IMM_RSP, .gen = 0 };
	CHECK(rift_proto_rsp_gen_match(&imm, 0, 7));
	CHECK(rift_proto_rsp_gen_match(&imm, RIFT_FEAT_CANCEL_GEN, 7));
	CHECK(!rift_proto_rsp_gen_match(&imm, feat, 7));
	/* The duplicate of request 7 while request 8 holds the chunk. */
	imm.gen = 7;
	CHECK(rift_proto_rsp_gen_match(&imm, feat, 7));
	CHECK(!rift_proto_rsp_gen_match(&imm, feat, 8));
	/* The generation wraps at 16 bits; the echo compares the low 4. */
	imm.gen = 0xf;
	CHECK(rift_proto_rsp_gen_match(&imm, feat, 0xffff));
	CHECK(!rift_proto_rsp_gen_match(&imm, feat, 0));
	/* Documented limit: a duplicate 16 reuses late is not told apart. */
	imm.gen = 7;
	CHECK(rift_proto_rsp_gen_match(&imm, feat, 7 + 16));
	CHECK(rift_proto_rsp_gen_match(&imm, feat, 7 + 16 * 100));
}

static void test_rkey_msg(void)
{
	u8 buf[32];
	u32 rkey;
	size_t len;

	memset(buf, 0xcc, sizeof(buf));
	CHECK_EQ(rift_proto_rkey_encode(77, 0xfeedf00d, buf, sizeof(buf)), 16);
	CHECK_EQ(get32(buf), 0xfeedf00d);
	CHECK_EQ(get16(buf + 4), 77);
	CHECK_EQ(buf[6], 0);
	CHECK_EQ(buf[15], 0);
	CHECK_EQ(buf[16], 0xcc);
	CHECK_EQ(rift_proto_rkey_decode(buf, 16, 77, &rkey), 0);
	CHECK_EQ(rkey, 0xfeedf00d);
	CHECK_EQ(rift_proto_rkey_decode(buf, 32, 77, &rkey), 0);
	/* The SEND payload must match the immediate's chunk. */
	CHECK_EQ(rift_proto_rkey_decode(buf, 16, 78, &rkey), -EBADMSG);
	CHECK_EQ(rkey, 0);
	for (len = 0; len < 16; len++) {
		CHECK_EQ(rift_proto_rkey_decode(buf, len, 77, &rkey), -EBADMSG);
		CHECK_EQ(rift_proto_rkey_encode(77, 1, buf, len), -EMSGSIZE);
	}
	CHECK_EQ(rift_proto_rkey_encode(RIFT_MAX_QUEUE_DEPTH, 1, buf, 16), -EINVAL);
}

static void test_write_inv(void)
{
	struct rift_imm w = { .type = RIFT_IMM_WRITE, .chunk = 300, .desc_off = 64 * 7 };
	struct rift_imm r = { .type = RIFT_IMM_READ, .chunk = 3 };
	struct rift_imm hb = { .type = RIFT_IMM_HB, .seq = 9 };
	struct rift_imm got;
	__be32 imm;
	u8 buf[16];
	size_t len;

	memset(buf, 0xcc, sizeof(buf));
	CHECK_EQ(rift_proto_write_inv_encode(&w, buf, sizeof(buf)), 8);
	CHECK_EQ(rift_imm_encode(&w, &imm), 0);
	/* The immediate as a WRITE WITH_IMM would carry it, network order. */
	CHECK_EQ(memcmp(buf, &imm, 4), 0);
	CHECK_EQ(get32(buf + 4), 0);
	CHECK_EQ(buf[8], 0xcc);
	CHECK_EQ(rift_proto_write_inv_decode(buf, 8, 301, &got), 0);
	CHECK_EQ(got.type, RIFT_IMM_WRITE);
	CHECK_EQ(got.chunk, 300);
	CHECK_EQ(got.desc_off, 64 * 7);
	/* Exactly the struct: neither short nor long. */
	for (len = 0; len < sizeof(buf); len++)
		if (len != 8)
			CHECK_EQ(rift_proto_write_inv_decode(buf, len, 301, &got), -EBADMSG);
	CHECK_EQ(rift_proto_write_inv_decode(NULL, 8, 301, &got), -EBADMSG);
	/* A chunk the path does not have, a bad queue depth. */
	CHECK_EQ(rift_proto_write_inv_decode(buf, 8, 300, &got), -EBADMSG);
	CHECK_EQ(got.type, 0);
	CHECK_EQ(rift_proto_write_inv_decode(buf, 8, 0, &got), -EINVAL);
	CHECK_EQ(rift_proto_write_inv_decode(buf, 8, RIFT_MAX_QUEUE_DEPTH + 1, &got), -EINVAL);
	/* Reserved bytes must be zero. */
	buf[7] = 1;
	CHECK_EQ(rift_proto_write_inv_decode(buf, 8, 301, &got), -EBADMSG);
	CHECK_EQ(got.chunk, 0);
	buf[7] = 0;
	/* Only a write comes this way. */
	CHECK_EQ(rift_imm_encode(&r, &imm), 0);
	memcpy(buf, &imm, 4);
	CHECK_EQ(rift_proto_write_inv_decode(buf, 8, 301, &got), -EBADMSG);
	CHECK_EQ(got.type, 0);
	CHECK_EQ(rift_imm_encode(&hb, &imm), 0);
	memcpy(buf, &imm, 4);
	CHECK_EQ(rift_proto_write_inv_decode(buf, 8, 301, &got), -EBADMSG);
	memset(buf, 0, 8);
	CHECK_EQ(rift_proto_write_inv_decode(buf, 8, 301, &got), -EBADMSG);
	/* The encoder refuses what the decoder would. */
	CHECK_EQ(rift_proto_write_inv_encode(&r, buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(rift_proto_write_inv_encode(&hb, buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(rift_proto_write_inv_encode(&w, buf, 7), -EMSGSIZE);
	w.chunk = RIFT_MAX_QUEUE_DEPTH;
	CHECK_EQ(rift_proto_write_inv_encode(&w, buf, sizeof(buf)), -EINVAL);
}

const struct unit_test unit_imm_tests[] = {
	UNIT(test_cancel_gen),
	UNIT(test_imm_layout),
	UNIT(test_imm_roundtrip),
	UNIT(test_imm_encode_bad),
	UNIT(test_imm_credit),
	UNIT(test_imm_decode_bad),
	UNIT(test_imm_random),
	UNIT(test_rkey_msg),
	UNIT(test_write_inv),
	UNIT(test_rsp_gen),
	{ NULL, NULL }
};

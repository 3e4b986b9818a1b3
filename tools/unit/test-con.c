// SPDX-License-Identifier: GPL-2.0
/*
 * CON_REQ / CON_RSP / reject private data, version negotiation, features.
 */
#include "unit.h"

static void make_req(struct rift_con_req *req)
{
	int i;

	memset(req, 0, sizeof(*req));
	req->min_version = 1;
	req->max_version = 1;
	req->flags = RIFT_CON_F_JOIN;
	req->con_idx = 2;
	req->con_cnt = 4;
	req->queue_depth = 512;
	req->reconnect_gen = 0xa1b2c3d4;
	for (i = 0; i < RIFT_UUID_LEN; i++) {
		req->sess_uuid[i] = 0x10 + i;
		req->path_uuid[i] = 0x80 + i;
	}
}

static void make_rsp(struct rift_con_rsp *rsp)
{
	memset(rsp, 0, sizeof(*rsp));
	rsp->version = 1;
	rsp->queue_depth = 256;
	rsp->flags = RIFT_CON_RSP_F_NEW_SESSION;
	rsp->max_io_size = 128 << 10;
	rsp->chunk_size = (128 << 10) + 4096;
}

static void test_version_pick(void)
{
	/* Overlap picks the highest common version. */
	CHECK_EQ(rift_proto_version_pick(1, 3, 2, 5), 3);
	CHECK_EQ(rift_proto_version_pick(2, 5, 1, 3), 3);
	CHECK_EQ(rift_proto_version_pick(1, 1, 1, 1), 1);
	CHECK_EQ(rift_proto_version_pick(1, 4, 4, 9), 4);
	/* N+1 client against N server and the other way round. */
	CHECK_EQ(rift_proto_version_pick(1, 2, 1, 1), 1);
	CHECK_EQ(rift_proto_version_pick(1, 1, 1, 2), 1);
	CHECK_EQ(rift_proto_version_pick(2, 2, 1, 1), -EPROTONOSUPPORT);
	CHECK_EQ(rift_proto_version_pick(1, 1, 2, 2), -EPROTONOSUPPORT);
	/* Disjoint ranges. */
	CHECK_EQ(rift_proto_version_pick(1, 1, 2, 3), -EPROTONOSUPPORT);
	CHECK_EQ(rift_proto_version_pick(4, 6, 1, 3), -EPROTONOSUPPORT);
	/* Malformed ranges. */
	CHECK_EQ(rift_proto_version_pick(0, 1, 1, 1), -EINVAL);
	CHECK_EQ(rift_proto_version_pick(2, 1, 1, 2), -EINVAL);
	CHECK_EQ(rift_proto_version_pick(1, 1, 3, 2), -EINVAL);
	CHECK_EQ(rift_proto_version_pick(1, 0xffff, 0xffff, 0xffff), 0xffff);
}

static void test_features(void)
{
	u64 unknown = 1ULL << 63;

	/* Unknown offered bits are ignored, never accepted. */
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_ALWAYS_INVALIDATE | unknown, ~0ULL),
		 RIFT_FEAT_ALWAYS_INVALIDATE);
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_ALWAYS_INVALIDATE, 0), 0);
	CHECK_EQ(rift_proto_features_accept(0, ~0ULL), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_ALWAYS_INVALIDATE,
					   RIFT_FEAT_ALWAYS_INVALIDATE), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_ALWAYS_INVALIDATE, 0), 0);
	/* Accepted must be a subset of offered. */
	CHECK_EQ(rift_proto_features_check(0, RIFT_FEAT_ALWAYS_INVALIDATE), -EBADMSG);
	CHECK_EQ(rift_proto_features_check(unknown, unknown), -EBADMSG);

	/* CANCEL_GEN qualifies CANCEL: never accepted, nor valid, without it. */
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN, ~0ULL),
		 RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN);
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_CANCEL_GEN, ~0ULL), 0);
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN,
					    RIFT_FEAT_CANCEL_GEN), 0);
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN,
					    RIFT_FEAT_CANCEL), RIFT_FEAT_CANCEL);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN,
					   RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN,
					   RIFT_FEAT_CANCEL), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN,
					   RIFT_FEAT_CANCEL_GEN), -EBADMSG);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_CANCEL, RIFT_FEAT_CANCEL |
					   RIFT_FEAT_CANCEL_GEN), -EBADMSG);

	/*
	 * RSP_GEN stands alone: the descriptor's generation is meaningful
	 * with it whether or not CANCEL is on, so it is accepted and valid
	 * without CANCEL, and like any bit only if it was offered.
	 */
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_RSP_GEN, ~0ULL), RIFT_FEAT_RSP_GEN);
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_RSP_GEN | RIFT_FEAT_CANCEL,
					    RIFT_FEAT_RSP_GEN), RIFT_FEAT_RSP_GEN);
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_RSP_GEN, RIFT_FEAT_CANCEL), 0);
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_KNOWN, ~0ULL), RIFT_FEAT_KNOWN);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_RSP_GEN, RIFT_FEAT_RSP_GEN), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_RSP_GEN, 0), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN,
					   RIFT_FEAT_RSP_GEN), -EBADMSG);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_AI_CAPABLE, RIFT_FEAT_RSP_GEN), -EBADMSG);
	CHECK(BIT_ULL(5) == RIFT_FEAT_RSP_GEN);
}

static void test_con_req_roundtrip(void)
{
	struct rift_con_req req, out;
	u8 buf[RIFT_CON_PRIV_MAX];

	make_req(&req);
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, sizeof(buf)), 56);
	CHECK_EQ(rift_proto_con_req_decode(buf, sizeof(buf), &out), 0);
	CHECK(!memcmp(&req, &out, sizeof(req)));

	/* Every connection index of a max-size path. */
	req.con_cnt = RIFT_MAX_CONS;
	req.con_idx = RIFT_MAX_CONS - 1;
	req.queue_depth = RIFT_MAX_QUEUE_DEPTH;
	req.flags = 0;
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, sizeof(buf)), 56);
	CHECK_EQ(rift_proto_con_req_decode(buf, sizeof(buf), &out), 0);
	CHECK(!memcmp(&req, &out, sizeof(req)));
}

/* Byte offsets as documented in Documentation/rift-protocol.rst. */
static void test_con_req_golden(void)
{
	struct rift_con_req req;
	u8 buf[64];

	make_req(&req);
	memset(buf, 0xee, sizeof(buf));
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, sizeof(buf)), 56);
	CHECK(!memcmp(buf, "RFRQ", 4));
	CHECK_EQ(get16(buf + 4), 1);
	CHECK_EQ(get16(buf + 6), 1);
	CHECK_EQ(buf[8], 0x10);
	CHECK_EQ(buf[23], 0x1f);
	CHECK_EQ(buf[24], 0x80);
	CHECK_EQ(buf[39], 0x8f);
	CHECK_EQ(get16(buf + 40), 2);
	CHECK_EQ(get16(buf + 42), 4);
	CHECK_EQ(get16(buf + 44), 512);
	CHECK_EQ(get16(buf + 46), RIFT_CON_F_JOIN);
	CHECK_EQ(get32(buf + 48), 0xa1b2c3d4);
	CHECK_EQ(get32(buf + 52), 0);
	/* Nothing written past the struct. */
	CHECK_EQ(buf[56], 0xee);
}

static void test_con_req_lengths(void)
{
	struct rift_con_req req, out;
	u8 buf[256];
	size_t len;

	make_req(&req);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, sizeof(buf)), 56);

	/* Every truncation is refused and leaves the output cleared. */
	for (len = 0; len < 56; len++) {
		memset(&out, 0x5a, sizeof(out));
		CHECK_EQ(rift_proto_con_req_decode(buf, len, &out), -EBADMSG);
		CHECK_EQ(out.queue_depth, 0);
	}
	CHECK_EQ(rift_proto_con_req_decode(NULL, 56, &out), -EBADMSG);

	/* Zero padding (what rdma_cm hands up on IB) and longer buffers. */
	for (len = 56; len <= sizeof(buf); len++) {
		CHECK_EQ(rift_proto_con_req_decode(buf, len, &out), 0);
		CHECK(!memcmp(&req, &out, sizeof(req)));
	}
	/* A newer client's non-zero tail and reserved bytes are ignored. */
	memset(buf + 52, 0x77, sizeof(buf) - 52);
	CHECK_EQ(rift_proto_con_req_decode(buf, sizeof(buf), &out), 0);
	CHECK(!memcmp(&req, &out, sizeof(req)));

	/* Encoder capacity. */
	for (len = 0; len < 56; len++)
		CHECK_EQ(rift_proto_con_req_encode(&req, buf, len), -EMSGSIZE);
}

static void corrupt_req(u8 *buf, size_t off, u16 val, int want)
{
	struct rift_con_req req, out;

	make_req(&req);
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, 56), 56);
	put16(buf + off, val);
	CHECK_EQ(rift_proto_con_req_decode(buf, 56, &out), want);
}

static void test_con_req_invalid(void)
{
	struct rift_con_req req, out;
	u8 buf[56];

	corrupt_req(buf, 0, 0x4652, 0);			/* magic low half kept */
	corrupt_req(buf, 0, 0x0000, -EBADMSG);		/* magic */
	corrupt_req(buf, 4, 0, -EBADMSG);		/* min_version 0 */
	corrupt_req(buf, 4, 2, -EBADMSG);		/* min > max */
	corrupt_req(buf, 6, 7, 0);			/* wider range is fine */
	corrupt_req(buf, 40, 4, -EBADMSG);		/* con_idx == con_cnt */
	corrupt_req(buf, 40, 3, 0);			/* last index */
	corrupt_req(buf, 42, 0, -EBADMSG);		/* con_cnt 0 */
	corrupt_req(buf, 42, RIFT_MAX_CONS + 1, -EBADMSG);
	corrupt_req(buf, 44, 0, -EBADMSG);		/* queue depth 0 */
	corrupt_req(buf, 44, RIFT_MAX_QUEUE_DEPTH + 1, -EBADMSG);
	corrupt_req(buf, 44, RIFT_MAX_QUEUE_DEPTH, 0);

	/* Unknown flags from a newer client are dropped, not fatal. */
	corrupt_req(buf, 46, 0xffff, 0);
	CHECK_EQ(rift_proto_con_req_decode(buf, 56, &out), 0);
	CHECK_EQ(out.flags, RIFT_CON_F_KNOWN);

	/* All-zero UUIDs mean an uninitialised client. */
	make_req(&req);
	rift_proto_con_req_encode(&req, buf, 56);
	memset(buf + 8, 0, 16);
	CHECK_EQ(rift_proto_con_req_decode(buf, 56, &out), -EBADMSG);
	rift_proto_con_req_encode(&req, buf, 56);
	memset(buf + 24, 0, 16);
	CHECK_EQ(rift_proto_con_req_decode(buf, 56, &out), -EBADMSG);

	/* The encoder refuses what the decoder would refuse. */
	make_req(&req);
	req.flags = 0x8000;
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, 56), -EINVAL);
	make_req(&req);
	req.con_idx = req.con_cnt;
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, 56), -EINVAL);
	make_req(&req);
	memset(req.sess_uuid, 0, RIFT_UUID_LEN);
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, 56), -EINVAL);
	make_req(&req);
	req.min_version = 0;
	CHECK_EQ(rift_proto_con_req_encode(&req, buf, 56), -EINVAL);
}

static void test_con_rsp_roundtrip(void)
{
	struct rift_con_rsp rsp, out, v1;
	struct rift_con_req req;
	u8 buf[80];
	size_t len, i;

	make_req(&req);
	make_rsp(&rsp);
	rsp.has_nonce = true;
	for (i = 0; i < RIFT_AUTH_NONCE_LEN; i++)
		rsp.auth_nonce[i] = (u8)(0xa0 + i);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(rift_proto_con_rsp_encode(&rsp, buf, sizeof(buf)), 64);
	CHECK(!memcmp(buf, "RFRS", 4));
	CHECK_EQ(get16(buf + 4), 1);
	CHECK_EQ(get16(buf + 6), 0);
	CHECK_EQ(get16(buf + 8), 256);
	CHECK_EQ(get16(buf + 10), RIFT_CON_RSP_F_NEW_SESSION);
	CHECK_EQ(get32(buf + 12), 128 << 10);
	CHECK_EQ(get32(buf + 16), (128 << 10) + 4096);
	/* The nonce follows the 32 bytes every version sends. */
	CHECK(!memcmp(buf + 32, rsp.auth_nonce, RIFT_AUTH_NONCE_LEN));

	CHECK_EQ(rift_proto_con_rsp_decode(buf, 64, &req, &out), 0);
	CHECK(!memcmp(&rsp, &out, sizeof(rsp)));
	CHECK_EQ(rift_proto_con_rsp_decode(buf, 64, NULL, &out), 0);
	for (len = 0; len < 32; len++)
		CHECK_EQ(rift_proto_con_rsp_decode(buf, len, &req, &out), -EBADMSG);
	/* An older server's 32 bytes, or a cut nonce: no nonce at all. */
	v1 = rsp;
	v1.has_nonce = false;
	memset(v1.auth_nonce, 0, sizeof(v1.auth_nonce));
	for (len = 32; len < 64; len++) {
		CHECK_EQ(rift_proto_con_rsp_decode(buf, len, &req, &out), 0);
		CHECK(!memcmp(&v1, &out, sizeof(out)));
	}
	/* Longer (padded or extended) accept data is fine. */
	memset(buf + 64, 0x99, 16);
	CHECK_EQ(rift_proto_con_rsp_decode(buf, 80, &req, &out), 0);
	CHECK(!memcmp(&rsp, &out, sizeof(rsp)));
	for (len = 0; len < 64; len++)
		CHECK_EQ(rift_proto_con_rsp_encode(&rsp, buf, len), -EMSGSIZE);
}

static int rsp_variant(const struct rift_con_rsp *rsp, const struct rift_con_req *req)
{
	struct rift_con_rsp out;
	u8 buf[32];

	/* Bypass the encoder's own checks to see what the decoder does. */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "RFRS", 4);
	put16(buf + 4, rsp->version);
	put16(buf + 6, rsp->status);
	put16(buf + 8, rsp->queue_depth);
	put16(buf + 10, rsp->flags);
	put32(buf + 12, rsp->max_io_size);
	put32(buf + 16, rsp->chunk_size);
	return rift_proto_con_rsp_decode(buf, sizeof(buf), req, &out);
}

static void test_con_rsp_invalid(void)
{
	struct rift_con_rsp rsp, out;
	struct rift_con_req req;
	u8 buf[64], big[56];

	make_req(&req);
	make_rsp(&rsp);
	CHECK_EQ(rsp_variant(&rsp, &req), 0);

	rsp.version = 2;	/* outside what the client offered */
	CHECK_EQ(rsp_variant(&rsp, &req), -EBADMSG);
	CHECK_EQ(rsp_variant(&rsp, NULL), 0);
	make_rsp(&rsp);
	rsp.version = 0;
	CHECK_EQ(rsp_variant(&rsp, NULL), -EBADMSG);
	make_rsp(&rsp);
	rsp.queue_depth = req.queue_depth + 1;	/* more than asked for */
	CHECK_EQ(rsp_variant(&rsp, &req), -EBADMSG);
	rsp.queue_depth = req.queue_depth;
	CHECK_EQ(rsp_variant(&rsp, &req), 0);
	rsp.queue_depth = 0;
	CHECK_EQ(rsp_variant(&rsp, NULL), -EBADMSG);
	make_rsp(&rsp);
	rsp.chunk_size = 4095;
	CHECK_EQ(rsp_variant(&rsp, &req), -EBADMSG);
	rsp.chunk_size = RIFT_CHUNK_SIZE_MAX + 4096;
	CHECK_EQ(rsp_variant(&rsp, &req), -EBADMSG);
	make_rsp(&rsp);
	rsp.max_io_size = rsp.chunk_size;	/* no headroom for header + desc */
	CHECK_EQ(rsp_variant(&rsp, &req), -EBADMSG);
	rsp.max_io_size = rsp.chunk_size - RIFT_CHUNK_HEADROOM;
	CHECK_EQ(rsp_variant(&rsp, &req), 0);
	rsp.max_io_size = 1000;			/* not a multiple of 512 */
	CHECK_EQ(rsp_variant(&rsp, &req), -EBADMSG);
	rsp.max_io_size = 0;
	CHECK_EQ(rsp_variant(&rsp, &req), -EBADMSG);

	/* A refusal delivered through accept. */
	make_rsp(&rsp);
	rsp.status = RIFT_REJ_NO_RESOURCES;
	CHECK_EQ(rift_proto_con_rsp_encode(&rsp, buf, sizeof(buf)), 64);
	CHECK_EQ(rift_proto_con_rsp_decode(buf, sizeof(buf), &req, &out), -ECONNREFUSED);
	CHECK_EQ(out.status, RIFT_REJ_NO_RESOURCES);
	CHECK_EQ(out.queue_depth, 0);

	/* Encoder refuses an accept the client would refuse. */
	make_rsp(&rsp);
	rsp.max_io_size = rsp.chunk_size;
	CHECK_EQ(rift_proto_con_rsp_encode(&rsp, buf, sizeof(buf)), -EINVAL);
	make_rsp(&rsp);
	rsp.flags = 0x100;
	CHECK_EQ(rift_proto_con_rsp_encode(&rsp, buf, sizeof(buf)), -EINVAL);

	/* Bad magic, e.g. a CON_REQ echoed back. */
	make_req(&req);
	CHECK_EQ(rift_proto_con_req_encode(&req, big, sizeof(big)), 56);
	CHECK_EQ(rift_proto_con_rsp_decode(big, sizeof(big), NULL, &out), -EBADMSG);
}

static void test_reject(void)
{
	struct rift_reject rej = { RIFT_REJ_VERSION, 2, 3 }, out;
	char line[128];
	u8 buf[148];
	size_t len;

	memset(buf, 0, sizeof(buf));
	CHECK_EQ(rift_proto_reject_encode(&rej, buf, sizeof(buf)), 16);
	CHECK(!memcmp(buf, "RFRJ", 4));
	CHECK_EQ(get16(buf + 4), RIFT_REJ_VERSION);
	CHECK_EQ(get16(buf + 6), 2);
	CHECK_EQ(get16(buf + 8), 3);
	/* IB REJ private data is 148 bytes, zero padded. */
	CHECK_EQ(rift_proto_reject_decode(buf, sizeof(buf), &out), 0);
	CHECK(!memcmp(&rej, &out, sizeof(rej)));
	for (len = 0; len < 16; len++)
		CHECK_EQ(rift_proto_reject_decode(buf, len, &out), -EBADMSG);
	CHECK_EQ(rift_proto_reject_decode(NULL, 0, &out), -EBADMSG);

	/* The log line the client prints. */
	CHECK_EQ(rift_proto_reject_decode(buf, 16, &out), 0);
	snprintf(line, sizeof(line), "server refused: %s: client speaks %u..%u, server %u..%u",
		 rift_proto_reject_str(out.reason), 1, 1, out.min_version, out.max_version);
	CHECK(!strcmp(line, "server refused: protocol version mismatch: "
			    "client speaks 1..1, server 2..3"));

	/* Newer reasons pass through with a generic name. */
	rej.reason = 0x1234;
	CHECK_EQ(rift_proto_reject_encode(&rej, buf, sizeof(buf)), 16);
	CHECK_EQ(rift_proto_reject_decode(buf, sizeof(buf), &out), 0);
	CHECK_EQ(out.reason, 0x1234);
	CHECK(!strcmp(rift_proto_reject_str(out.reason), "unknown reason"));

	/* REJ_NONE is not a refusal; version ranges must be sane. */
	rej.reason = RIFT_REJ_NONE;
	CHECK_EQ(rift_proto_reject_encode(&rej, buf, sizeof(buf)), -EINVAL);
	put16(buf + 4, RIFT_REJ_NONE);
	CHECK_EQ(rift_proto_reject_decode(buf, sizeof(buf), &out), -EBADMSG);
	put16(buf + 4, RIFT_REJ_MALFORMED);
	put16(buf + 6, 4);
	CHECK_EQ(rift_proto_reject_decode(buf, sizeof(buf), &out), -EBADMSG);
	put16(buf + 6, 3);
	CHECK_EQ(rift_proto_reject_decode(buf, sizeof(buf), &out), 0);
	/* Consumer-less CM rejects carry no Rift magic. */
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(rift_proto_reject_decode(buf, sizeof(buf), &out), -EBADMSG);
}

static void test_reject_strings(void)
{
	u16 r;

	for (r = 0; r < RIFT_REJ_NR; r++) {
		const char *s = rift_proto_reject_str(r);

		CHECK(s && s[0]);
		CHECK(strcmp(s, "unknown reason"));
		CHECK(strlen(s) < 40);
	}
	CHECK(!strcmp(rift_proto_reject_str(RIFT_REJ_UNKNOWN_SESSION), "unknown session"));
	CHECK(!strcmp(rift_proto_reject_str(RIFT_REJ_NR), "unknown reason"));
	CHECK(!strcmp(rift_proto_reject_str(0xffff), "unknown reason"));
}

static void test_names(void)
{
	CHECK(rift_proto_name_valid("blk-0", 5));
	CHECK(rift_proto_name_valid("a", 1));
	CHECK(rift_proto_name_valid("...", 3));
	CHECK(rift_proto_name_valid(".x", 2));
	CHECK(!rift_proto_name_valid("", 0));
	CHECK(!rift_proto_name_valid(".", 1));
	CHECK(!rift_proto_name_valid("..", 2));
	CHECK(!rift_proto_name_valid("a/b", 3));
	CHECK(!rift_proto_name_valid("a b", 3));
	CHECK(!rift_proto_name_valid("a\0b", 3));
	CHECK(!rift_proto_name_valid("a\x7f", 2));
	CHECK(!rift_proto_name_valid("\xc3\xa9", 2));
	CHECK(rift_proto_name_valid("0123456789012345678901234567890123456789"
				    "012345678901234567890123", 64));
	CHECK(!rift_proto_name_valid("0123456789012345678901234567890123456789"
				     "0123456789012345678901234", 65));
}

const struct unit_test unit_con_tests[] = {
	UNIT(test_version_pick),
	UNIT(test_features),
	UNIT(test_con_req_roundtrip),
	UNIT(test_con_req_golden),
	UNIT(test_con_req_lengths),
	UNIT(test_con_req_invalid),
	UNIT(test_con_rsp_roundtrip),
	UNIT(test_con_rsp_invalid),
	UNIT(test_reject),
	UNIT(test_reject_strings),
	UNIT(test_names),
	{ NULL, NULL }
};

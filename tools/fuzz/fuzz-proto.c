// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over every Rift decoder.  Besides "no crash, no UB", each
 * successful decode is checked against the invariants callers rely on and,
 * where the encoder can express the result, re-encoded and decoded again to
 * prove the two sides agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rift-proto.h"

#include "fuzz.h"

#define FUZZ_ASSERT(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, \
				__FILE__, __LINE__); \
			abort(); \
		} \
	} while (0)

static struct rift_rbuf chunks[RIFT_MAX_QUEUE_DEPTH];
static struct rift_rbuf chunks2[RIFT_MAX_QUEUE_DEPTH];
static struct rift_rbuf segs[RIFT_IO_MAX_SEGS + 1];
static struct rift_rbuf segs2[RIFT_IO_MAX_SEGS + 1];
static u8 out[RIFT_INFO_MAX_LEN];

static u16 rd16(const u8 *p)
{
	return p[0] | p[1] << 8;
}

static u32 rd32be(const u8 *p)
{
	return (u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static __be32 to_be(u32 v)
{
	u8 b[4] = { v >> 24, v >> 16, v >> 8, v };
	__be32 r;

	memcpy(&r, b, 4);
	return r;
}

static void fuzz_con_req(const u8 *data, size_t size)
{
	struct rift_con_req req, req2;

	if (rift_proto_con_req_decode(data, size, &req))
		return;
	FUZZ_ASSERT(size >= sizeof(struct rift_wire_con_req));
	FUZZ_ASSERT(req.min_version && req.min_version <= req.max_version);
	FUZZ_ASSERT(req.con_idx < req.con_cnt && req.con_cnt <= RIFT_MAX_CONS);
	FUZZ_ASSERT(req.queue_depth && req.queue_depth <= RIFT_MAX_QUEUE_DEPTH);
	FUZZ_ASSERT(!(req.flags & ~RIFT_CON_F_KNOWN));
	FUZZ_ASSERT(rift_proto_con_req_encode(&req, out, RIFT_CON_PRIV_MAX) ==
		    sizeof(struct rift_wire_con_req));
	FUZZ_ASSERT(!rift_proto_con_req_decode(out, RIFT_CON_PRIV_MAX, &req2));
	FUZZ_ASSERT(!memcmp(&req, &req2, sizeof(req)));
}

static void fuzz_con_rsp(const u8 *data, size_t size)
{
	static const struct rift_con_req req = {
		.min_version = 1, .max_version = 3, .con_cnt = 1, .queue_depth = 1024,
		.sess_uuid = { 1 }, .path_uuid = { 2 },
	};
	struct rift_con_rsp rsp, rsp2;
	int ret, ret_any;

	ret_any = rift_proto_con_rsp_decode(data, size, NULL, &rsp);
	ret = rift_proto_con_rsp_decode(data, size, &req, &rsp);
	/* Checking against a request can only make things stricter. */
	FUZZ_ASSERT(ret_any == 0 || ret == ret_any);
	if (ret == -ECONNREFUSED)
		FUZZ_ASSERT(rsp.status != RIFT_REJ_NONE);
	if (ret)
		return;
	FUZZ_ASSERT(rsp.version >= 1 && rsp.version <= 3);
	FUZZ_ASSERT(rsp.queue_depth && rsp.queue_depth <= 1024);
	FUZZ_ASSERT(rsp.max_io_size + RIFT_CHUNK_HEADROOM <= rsp.chunk_size);
	FUZZ_ASSERT(rift_proto_con_rsp_encode(&rsp, out, 64) ==
		    sizeof(struct rift_wire_con_rsp));
	FUZZ_ASSERT(!rift_proto_con_rsp_decode(out, 64, &req, &rsp2));
	/* The encoder always sends a nonce field: zeroes stand for none. */
	if (!rsp.has_nonce) {
		FUZZ_ASSERT(rsp2.has_nonce);
		rsp2.has_nonce = false;
	}
	FUZZ_ASSERT(!memcmp(&rsp, &rsp2, sizeof(rsp)));
}

static void fuzz_reject(const u8 *data, size_t size)
{
	struct rift_reject rej, rej2;

	if (rift_proto_reject_decode(data, size, &rej))
		return;
	FUZZ_ASSERT(rift_proto_reject_str(rej.reason));
	FUZZ_ASSERT(rift_proto_reject_encode(&rej, out, 148) ==
		    sizeof(struct rift_wire_reject));
	FUZZ_ASSERT(!rift_proto_reject_decode(out, 148, &rej2));
	FUZZ_ASSERT(!memcmp(&rej, &rej2, sizeof(rej)));
}

static void fuzz_info(const u8 *data, size_t size)
{
	struct rift_info info, info2;
	u32 cap, i;
	int len;

	if (size < FUZZ_INFO_PARAMS)
		return;
	cap = rd16(data) % (RIFT_MAX_QUEUE_DEPTH + 1);
	data += FUZZ_INFO_PARAMS;
	size -= FUZZ_INFO_PARAMS;

	if (rift_info_parse(data, size, 1, &info, chunks, cap))
		return;
	FUZZ_ASSERT(info.type == RIFT_INFO_REQ || info.type == RIFT_INFO_RSP);
	FUZZ_ASSERT(strlen(info.sess_name) <= RIFT_NAME_MAX);
	FUZZ_ASSERT(strlen(info.host_name) <= RIFT_NAME_MAX);
	FUZZ_ASSERT(info.nr_chunks <= cap);
	if (info.type == RIFT_INFO_RSP && info.status)
		return;
	if (info.type == RIFT_INFO_RSP) {
		bool feat_bad = (info.feat_accepted & ~RIFT_FEAT_KNOWN) ||
				((info.feat_accepted & RIFT_FEAT_CANCEL_GEN) &&
				 !(info.feat_accepted & RIFT_FEAT_CANCEL)) ||
				((info.feat_accepted & RIFT_FEAT_REMOTE_INV) &&
				 !(info.feat_accepted & RIFT_FEAT_ALWAYS_INVALIDATE));

		FUZZ_ASSERT(rift_info_rsp_check(&info, info.feat_accepted, NULL) ==
			    (feat_bad ? -EBADMSG : 0));
		/* With memory credits the table is the initial grant. */
		FUZZ_ASSERT(info.nr_chunks == info.queue_depth ||
			    ((info.feat_accepted & RIFT_FEAT_CREDITS) &&
			     info.nr_chunks >= rift_proto_credit_floor(info.queue_depth) &&
			     info.nr_chunks < info.queue_depth));
		FUZZ_ASSERT(info.max_io_size + RIFT_CHUNK_HEADROOM <= info.chunk_size);
		for (i = 0; i < info.nr_chunks; i++)
			FUZZ_ASSERT(chunks[i].len == info.chunk_size);
	} else {
		FUZZ_ASSERT(info.sess_name[0]);
	}

	/* Feature bits we do not know cannot be re-sent by this build. */
	info.feat_offered &= RIFT_FEAT_KNOWN;
	info.feat_accepted &= RIFT_FEAT_KNOWN;
	len = rift_info_encode(&info, out, sizeof(out));
	FUZZ_ASSERT(len > 0);
	FUZZ_ASSERT(!rift_info_parse(out, len, 1, &info2, chunks2, cap));
	FUZZ_ASSERT(!strcmp(info.sess_name, info2.sess_name));
	FUZZ_ASSERT(!strcmp(info.host_name, info2.host_name));
	FUZZ_ASSERT(info.feat_offered == info2.feat_offered);
	FUZZ_ASSERT(info.feat_accepted == info2.feat_accepted);
	FUZZ_ASSERT(info.hb_interval_ms == info2.hb_interval_ms);
	FUZZ_ASSERT(info.hb_missed_max == info2.hb_missed_max);
	FUZZ_ASSERT(info.max_io_size == info2.max_io_size);
	FUZZ_ASSERT(info.queue_depth == info2.queue_depth);
	FUZZ_ASSERT(info.chunk_size == info2.chunk_size);
	FUZZ_ASSERT(info.nr_chunks == info2.nr_chunks);
	FUZZ_ASSERT(!memcmp(chunks, chunks2, info.nr_chunks * sizeof(chunks[0])));
	/* Identity and authentication values survive a round trip. */
	if (info.type == RIFT_INFO_REQ) {
		FUZZ_ASSERT(!memcmp(info.host_uuid, info2.host_uuid, RIFT_UUID_LEN));
		FUZZ_ASSERT((info.present & BIT(RIFT_TLV_AUTH_NONCE)) ==
			    (info2.present & BIT(RIFT_TLV_AUTH_NONCE)));
		if (info.present & BIT(RIFT_TLV_AUTH_NONCE))
			FUZZ_ASSERT(!memcmp(info.auth_nonce, info2.auth_nonce,
					    RIFT_AUTH_NONCE_LEN));
	}
	FUZZ_ASSERT((info.present & BIT(RIFT_TLV_AUTH_PROOF)) ==
		    (info2.present & BIT(RIFT_TLV_AUTH_PROOF)));
	if (info.present & BIT(RIFT_TLV_AUTH_PROOF))
		FUZZ_ASSERT(!memcmp(info.auth_proof, info2.auth_proof, RIFT_AUTH_PROOF_LEN));
}

static void fuzz_io_desc(const u8 *data, size_t size)
{
	struct rift_io_limits lim;
	struct rift_io_req req, req2;
	struct rift_imm imm;
	u32 raw, steps, avail, sum, i, segs_cap;
	int ret, len;

	if (size < FUZZ_IO_PARAMS)
		return;
	raw = rd32be(data);
	lim.chunk_size = RIFT_CHUNK_SIZE_MIN * (1 + data[4] % 64);
	steps = (lim.chunk_size - RIFT_CHUNK_HEADROOM) / RIFT_IO_SIZE_ALIGN;
	lim.max_io_size = RIFT_IO_SIZE_ALIGN * (1 + data[5] % steps);
	segs_cap = data[6] % (RIFT_IO_MAX_SEGS + 2);
	data += FUZZ_IO_PARAMS;
	size -= FUZZ_IO_PARAMS;

	/* Prefer a real decoded immediate; otherwise force a plausible one. */
	if (rift_imm_decode(to_be(raw), RIFT_MAX_QUEUE_DEPTH, &imm) ||
	    (imm.type != RIFT_IMM_WRITE && imm.type != RIFT_IMM_READ)) {
		memset(&imm, 0, sizeof(imm));
		imm.type = raw & 0x80000000 ? RIFT_IMM_READ : RIFT_IMM_WRITE;
		imm.chunk = (raw >> 16) & RIFT_IMM_CHUNK_MASK;
		imm.desc_off = (raw & RIFT_IMM_ARG_MASK) * RIFT_IO_DESC_ALIGN;
	}
	avail = size;
	if (imm.desc_off < lim.chunk_size && avail > lim.chunk_size - imm.desc_off)
		avail = lim.chunk_size - imm.desc_off;

	ret = rift_proto_io_desc_decode(&lim, &imm, data, avail, &req, segs, segs_cap);
	if (ret)
		return;
	FUZZ_ASSERT(req.chunk == imm.chunk && req.desc_off == imm.desc_off);
	/* The generation is taken as it is, whatever the path makes of it. */
	FUZZ_ASSERT(req.gen == rd16(data + 14));
	FUZZ_ASSERT(req.desc_len <= avail);
	FUZZ_ASSERT(req.desc_off + req.desc_len <= lim.chunk_size);
	FUZZ_ASSERT(req.usr_off + req.usr_len <= req.desc_off);
	FUZZ_ASSERT(req.usr_len <= RIFT_USR_LEN_MAX);
	FUZZ_ASSERT(req.data_len <= lim.max_io_size);
	FUZZ_ASSERT(req.nr_segs <= segs_cap);
	if (req.dir == RIFT_IO_WRITE) {
		FUZZ_ASSERT(req.data_off + req.data_len <= req.usr_off);
		FUZZ_ASSERT(!req.nr_segs);
	} else {
		FUZZ_ASSERT(req.nr_segs);
		for (i = 0, sum = 0; i < req.nr_segs; i++) {
			FUZZ_ASSERT(segs[i].len);
			FUZZ_ASSERT(segs[i].addr + segs[i].len > segs[i].addr);
			sum += segs[i].len;
		}
		FUZZ_ASSERT(sum == req.data_len);
	}

	req2 = req;
	len = rift_proto_io_desc_encode(&lim, &req2, segs, out, sizeof(out));
	FUZZ_ASSERT(len > 0 && (u32)len == req.desc_len);
	FUZZ_ASSERT(!memcmp(&req, &req2, sizeof(req)));
	FUZZ_ASSERT(!rift_proto_io_desc_decode(&lim, &imm, out, len, &req2, segs2,
					       segs_cap));
	FUZZ_ASSERT(!memcmp(&req, &req2, sizeof(req)));
	FUZZ_ASSERT(!memcmp(segs, segs2, req.nr_segs * sizeof(segs[0])));
}

/* A CANCEL's generation under each feature set a path can have. */
static void fuzz_cancel_gen(const struct rift_imm *imm, u16 arg)
{
	u16 gen = 1;
	int ret;

	FUZZ_ASSERT(rift_proto_cancel_gen(imm, 0, &gen) == -EPROTO && !gen);
	FUZZ_ASSERT(rift_proto_cancel_gen(imm, RIFT_FEAT_CANCEL_GEN, &gen) == -EPROTO);
	ret = rift_proto_cancel_gen(imm, RIFT_FEAT_CANCEL, &gen);
	FUZZ_ASSERT(ret == (arg ? -EBADMSG : 0) && !gen);
	ret = rift_proto_cancel_gen(imm, RIFT_FEAT_CANCEL | RIFT_FEAT_CANCEL_GEN, &gen);
	FUZZ_ASSERT(!ret && gen == arg);
}

/*
 * A response's generation bits (RSP_GEN): decoded whatever they are, 0 is
 * the only well-formed value without the feature, and with it the echo
 * matches exactly the generations that agree in their low 4 bits.
 */
static void fuzz_rsp_gen(const struct rift_imm *imm, u16 arg, u16 req_gen)
{
	u16 echo = arg >> RIFT_IMM_RSP_GEN_SHIFT;

	FUZZ_ASSERT(imm->gen == echo && imm->err == -(int)(arg & RIFT_IMM_ERRNO_MAX));
	FUZZ_ASSERT(rift_proto_rsp_gen_check(imm, 0) == (echo ? -EBADMSG : 0));
	FUZZ_ASSERT(rift_proto_rsp_gen_check(imm, RIFT_FEAT_KNOWN & ~RIFT_FEAT_RSP_GEN) ==
		    (echo ? -EBADMSG : 0));
	FUZZ_ASSERT(!rift_proto_rsp_gen_check(imm, RIFT_FEAT_RSP_GEN));
	FUZZ_ASSERT(rift_proto_rsp_gen_match(imm, 0, req_gen));
	FUZZ_ASSERT(rift_proto_rsp_gen_match(imm, RIFT_FEAT_RSP_GEN, req_gen) ==
		    (echo == (req_gen & RIFT_IMM_RSP_GEN_MASK)));
	/* What a server puts for that generation is what this client accepts. */
	FUZZ_ASSERT(rift_proto_rsp_gen_put(req_gen, 0) == 0);
	FUZZ_ASSERT(rift_proto_rsp_gen_put(req_gen, RIFT_FEAT_RSP_GEN) ==
		    (req_gen & RIFT_IMM_RSP_GEN_MASK));
}

static void fuzz_imm(const u8 *data, size_t size)
{
	struct rift_imm imm;
	u32 raw, nr;
	__be32 v;

	if (size < FUZZ_IMM_PARAMS)
		return;
	raw = rd32be(data);
	nr = rd16(data + 4);
	if (rift_imm_decode(to_be(raw), nr, &imm))
		return;
	FUZZ_ASSERT(nr && nr <= RIFT_MAX_QUEUE_DEPTH);
	/* The server checks the ids of credit requests and releases itself. */
	FUZZ_ASSERT(imm.chunk < nr || imm.type == RIFT_IMM_CREDIT_REQ ||
		    imm.type == RIFT_IMM_CREDIT_REL);
	FUZZ_ASSERT(imm.type != RIFT_IMM_CREDIT || (!imm.chunk && !(raw & RIFT_IMM_ARG_MASK)));
	FUZZ_ASSERT(!rift_imm_encode(&imm, &v));
	FUZZ_ASSERT(!memcmp(&v, data, 4));
	if (imm.type == RIFT_IMM_CANCEL)
		fuzz_cancel_gen(&imm, raw & RIFT_IMM_ARG_MASK);
	/* The queue depth's bytes double as the request's generation. */
	if (imm.type == RIFT_IMM_RSP || imm.type == RIFT_IMM_RSP_RKEY)
		fuzz_rsp_gen(&imm, raw & RIFT_IMM_ARG_MASK, nr);
	else
		FUZZ_ASSERT(rift_proto_rsp_gen_check(&imm, RIFT_FEAT_RSP_GEN) == -EINVAL);
}

static void fuzz_rkey(const u8 *data, size_t size)
{
	u32 rkey;
	u16 chunk;

	if (size < FUZZ_RKEY_PARAMS)
		return;
	chunk = rd16(data);
	if (rift_proto_rkey_decode(data + 2, size - 2, chunk, &rkey))
		return;
	FUZZ_ASSERT(size - 2 >= sizeof(struct rift_wire_rkey_msg));
	FUZZ_ASSERT(rd16(data + 2 + 4) == chunk);
}

/*
 * A write's SEND_WITH_INV payload: what is accepted is a write of a chunk
 * the path has, and encodes back to the same bytes.
 */
static void fuzz_write_inv(const u8 *data, size_t size)
{
	struct rift_imm imm;
	u8 out[sizeof(struct rift_wire_write_inv)];
	u16 nr;

	if (size < FUZZ_WRITE_INV_PARAMS)
		return;
	nr = rd16(data);
	if (rift_proto_write_inv_decode(data + 2, size - 2, nr, &imm))
		return;
	FUZZ_ASSERT(size - 2 == sizeof(struct rift_wire_write_inv));
	FUZZ_ASSERT(imm.type == RIFT_IMM_WRITE);
	FUZZ_ASSERT(imm.chunk < nr);
	FUZZ_ASSERT(rift_proto_write_inv_encode(&imm, out, sizeof(out)) == sizeof(out));
	FUZZ_ASSERT(!memcmp(out, data + 2, sizeof(out)));
}

/*
 * The client's view of the same payload: whatever its state, it never
 * accepts what the codec refuses, and accepting keeps its count equal to
 * the chunks it marks granted, within the id space.
 */
static void fuzz_credit_clt(const u8 *data, size_t size, u16 qd)
{
	static u8 granted[RIFT_MAX_QUEUE_DEPTH];
	u16 floor = rift_proto_credit_floor(qd), initial;
	struct rift_credit_clt st;
	struct rift_credit c, d;
	unsigned int i, n = 0;

	if (!qd || qd > RIFT_MAX_QUEUE_DEPTH)
		return;
	initial = floor + (data[0] ^ data[1]) % (qd - floor + 1);
	/* CHUNK_SIZE small or the largest, so that grants near the top wrap. */
	rift_credit_clt_init(&st, granted, qd, initial,
			     data[0] & 2 ? RIFT_CHUNK_SIZE_MAX : RIFT_CHUNK_SIZE_MIN,
			     1 + data[1] % qd);
	if (data[0] & 1)
		rift_credit_clt_asked(&st);
	if (rift_credit_clt_check(&st, data + 2, size - 2, &c) != RIFT_CREDIT_OK)
		return;
	FUZZ_ASSERT(!rift_proto_credit_decode(data + 2, size - 2, qd, &d));
	for (i = 0; i < c.nr_grant; i++)
		FUZZ_ASSERT(c.grant[i].addr <= ~0ULL - st.chunk_size);
	rift_credit_clt_apply(&st, &c);
	for (i = 0; i < qd; i++)
		n += granted[i];
	FUZZ_ASSERT(n == st.nr_granted && n <= qd && n == c.granted);
}

static void fuzz_credit(const u8 *data, size_t size)
{
	struct rift_credit c, c2;
	u16 qd, floor;
	unsigned int i, j;
	int len;

	if (size < FUZZ_CREDIT_PARAMS)
		return;
	qd = rd16(data);
	fuzz_credit_clt(data, size, qd);
	if (rift_proto_credit_decode(data + 2, size - 2, qd, &c))
		return;
	floor = rift_proto_credit_floor(qd);
	FUZZ_ASSERT(qd && qd <= RIFT_MAX_QUEUE_DEPTH);
	FUZZ_ASSERT(c.nr_grant <= RIFT_CREDIT_MAX_GRANTS);
	FUZZ_ASSERT(size - 2 >= sizeof(struct rift_wire_credit) +
		    c.nr_grant * sizeof(struct rift_wire_credit_grant));
	FUZZ_ASSERT(!(c.flags & ~RIFT_CREDIT_F_KNOWN));
	FUZZ_ASSERT(c.granted >= floor && c.granted <= qd && c.granted >= c.nr_grant);
	if (c.flags & RIFT_CREDIT_F_REVOKE)
		FUZZ_ASSERT(!c.nr_grant && c.keep >= floor && c.keep < c.granted);
	else
		FUZZ_ASSERT(!c.keep && (c.flags || c.nr_grant));
	for (i = 0; i < c.nr_grant; i++) {
		FUZZ_ASSERT(c.grant[i].chunk < qd);
		for (j = 0; j < i; j++)
			FUZZ_ASSERT(c.grant[j].chunk != c.grant[i].chunk);
	}
	len = rift_proto_credit_encode(&c, qd, out, RIFT_CREDIT_MAX_LEN);
	FUZZ_ASSERT(len == (int)(sizeof(struct rift_wire_credit) +
				 c.nr_grant * sizeof(struct rift_wire_credit_grant)));
	FUZZ_ASSERT(!rift_proto_credit_decode(out, len, qd, &c2));
	FUZZ_ASSERT(!memcmp(&c, &c2, sizeof(c)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	/* libFuzzer's buffer ends exactly at data + size, so over-reads trap. */
	switch (data[0] % FUZZ_NR) {
	case FUZZ_CON_REQ:
		fuzz_con_req(data + 1, size - 1);
		break;
	case FUZZ_CON_RSP:
		fuzz_con_rsp(data + 1, size - 1);
		break;
	case FUZZ_REJECT:
		fuzz_reject(data + 1, size - 1);
		break;
	case FUZZ_INFO:
		fuzz_info(data + 1, size - 1);
		break;
	case FUZZ_IO_DESC:
		fuzz_io_desc(data + 1, size - 1);
		break;
	case FUZZ_IMM:
		fuzz_imm(data + 1, size - 1);
		break;
	case FUZZ_RKEY:
		fuzz_rkey(data + 1, size - 1);
		break;
	case FUZZ_CREDIT:
		fuzz_credit(data + 1, size - 1);
		break;
	case FUZZ_WRITE_INV:
		fuzz_write_inv(data + 1, size - 1);
		break;
	}
	return 0;
}

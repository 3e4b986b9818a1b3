// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the seed corpus: one valid input per decoder and message flavour,
 * built with the real encoders so the seeds follow the codec as it evolves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rift-proto.h"

#include "fuzz.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *dir;
static int nr_seeds;
static u8 buf[1 << 16];

static void seed(u8 target, const void *params, size_t plen, const void *msg, size_t mlen)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%u-%02d", dir, target, nr_seeds++);
	f = fopen(path, "wb");
	if (!f || fwrite(&target, 1, 1, f) != 1 ||
	    (plen && fwrite(params, 1, plen, f) != plen) ||
	    (mlen && fwrite(msg, 1, mlen, f) != mlen) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void must(int ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "gen-corpus: %s failed: %d\n", what, ret);
		exit(1);
	}
}

static void seed_con(void)
{
	struct rift_con_req req = {
		.min_version = 1, .max_version = 2, .con_idx = 1, .con_cnt = 4,
		.queue_depth = 128, .reconnect_gen = 3, .flags = RIFT_CON_F_JOIN,
		.sess_uuid = { 0xde, 0xad }, .path_uuid = { 0xbe, 0xef },
	};
	struct rift_con_rsp rsp = {
		.version = 1, .queue_depth = 128, .max_io_size = 128 << 10,
		.chunk_size = (128 << 10) + 4096, .flags = RIFT_CON_RSP_F_NEW_SESSION,
	};
	struct rift_reject rej = { RIFT_REJ_VERSION, 2, 3 };

	memset(buf, 0, 92);
	must(rift_proto_con_req_encode(&req, buf, sizeof(buf)), "con_req");
	seed(FUZZ_CON_REQ, NULL, 0, buf, 56);
	seed(FUZZ_CON_REQ, NULL, 0, buf, 92);	/* IB pads to the REQ size */

	memset(buf, 0, 64);
	rsp.has_nonce = true;
	memset(rsp.auth_nonce, 0x5a, sizeof(rsp.auth_nonce));
	must(rift_proto_con_rsp_encode(&rsp, buf, sizeof(buf)), "con_rsp");
	seed(FUZZ_CON_RSP, NULL, 0, buf, 32);	/* as servers without a nonce send it */
	seed(FUZZ_CON_RSP, NULL, 0, buf, 64);
	rsp.status = RIFT_REJ_NO_RESOURCES;
	must(rift_proto_con_rsp_encode(&rsp, buf, sizeof(buf)), "con_rsp refusal");
	seed(FUZZ_CON_RSP, NULL, 0, buf, 32);

	memset(buf, 0, 148);
	must(rift_proto_reject_encode(&rej, buf, sizeof(buf)), "reject");
	seed(FUZZ_REJECT, NULL, 0, buf, 16);
	seed(FUZZ_REJECT, NULL, 0, buf, 148);
}

static void seed_info(void)
{
	static struct rift_rbuf chunks[5];
	struct rift_info info;
	u8 cap[2] = { 8, 0 };
	int len, i;

	memset(&info, 0, sizeof(info));
	info.type = RIFT_INFO_REQ;
	info.version = 1;
	strcpy(info.sess_name, "vol0");
	strcpy(info.host_name, "client");
	info.feat_offered = RIFT_FEAT_ALWAYS_INVALIDATE;
	info.hb_interval_ms = 1000;
	len = rift_info_encode(&info, buf, sizeof(buf));
	must(len, "info_req");
	seed(FUZZ_INFO, cap, 2, buf, len);
	/* With a host UUID, a nonce and a proof. */
	memset(info.host_uuid, 0x33, sizeof(info.host_uuid));
	memset(info.auth_nonce, 0x44, sizeof(info.auth_nonce));
	memset(info.auth_proof, 0x55, sizeof(info.auth_proof));
	info.present = BIT(RIFT_TLV_AUTH_NONCE) | BIT(RIFT_TLV_AUTH_PROOF);
	len = rift_info_encode(&info, buf, sizeof(buf));
	must(len, "info_req auth");
	seed(FUZZ_INFO, cap, 2, buf, len);

	memset(&info, 0, sizeof(info));
	info.type = RIFT_INFO_RSP;
	info.version = 1;
	strcpy(info.host_name, "server");
	info.feat_accepted = RIFT_FEAT_ALWAYS_INVALIDATE;
	info.hb_interval_ms = 1000;
	info.hb_missed_max = 5;
	info.max_io_size = 128 << 10;
	info.chunk_size = (128 << 10) + 4096;
	info.queue_depth = 5;
	info.nr_chunks = 5;
	info.chunks = chunks;
	for (i = 0; i < 5; i++) {
		chunks[i].addr = 0x10000000ULL + (u64)i * info.chunk_size;
		chunks[i].len = info.chunk_size;
		chunks[i].rkey = 0x100 + i;
	}
	len = rift_info_encode(&info, buf, sizeof(buf));
	must(len, "info_rsp");
	seed(FUZZ_INFO, cap, 2, buf, len);
	memset(info.auth_proof, 0x66, sizeof(info.auth_proof));
	info.present = BIT(RIFT_TLV_AUTH_PROOF);
	len = rift_info_encode(&info, buf, sizeof(buf));
	must(len, "info_rsp proof");
	seed(FUZZ_INFO, cap, 2, buf, len);

	memset(&info, 0, sizeof(info));
	info.type = RIFT_INFO_RSP;
	info.version = 1;
	info.status = 13;
	len = rift_info_encode(&info, buf, sizeof(buf));
	must(len, "info_rsp refusal");
	seed(FUZZ_INFO, cap, 2, buf, len);
}

static void seed_io(void)
{
	static const struct rift_io_limits lim = {
		.chunk_size = (128 << 10) + 4096, .max_io_size = 128 << 10,
	};
	/* Selectors that map back to the limits above, see fuzz-proto.c. */
	u8 params[FUZZ_IO_PARAMS] = { 0, 0, 0, 0, 32, 255, 16 };
	struct rift_rbuf segs[3] = {
		{ 0x7f0000001000ULL, 4096, 0x11 },
		{ 0x7f0000003000ULL, 8192, 0x12 },
		{ 0x7f0000010000ULL, 512, 0x13 },
	};
	struct rift_io_req req = { .dir = RIFT_IO_WRITE, .chunk = 3, .gen = 0x0102,
				   .usr_len = 32, .data_len = 4096 };
	struct rift_imm imm = { .type = RIFT_IMM_WRITE, .chunk = 3 };
	__be32 raw;
	int len;

	len = rift_proto_io_desc_encode(&lim, &req, NULL, buf, sizeof(buf));
	must(len, "write desc");
	imm.desc_off = req.desc_off;
	must(rift_imm_encode(&imm, &raw), "write imm");
	memcpy(params, &raw, 4);
	seed(FUZZ_IO_DESC, params, sizeof(params), buf, len);

	req = (struct rift_io_req){ .dir = RIFT_IO_READ, .chunk = 7, .usr_len = 100,
				    .data_len = 4096 + 8192 + 512, .nr_segs = 3 };
	len = rift_proto_io_desc_encode(&lim, &req, segs, buf, sizeof(buf));
	must(len, "read desc");
	imm = (struct rift_imm){ .type = RIFT_IMM_READ, .chunk = 7, .desc_off = req.desc_off };
	must(rift_imm_encode(&imm, &raw), "read imm");
	memcpy(params, &raw, 4);
	seed(FUZZ_IO_DESC, params, sizeof(params), buf, len);
}

static void seed_imm(void)
{
	static const struct rift_imm imms[] = {
		{ .type = RIFT_IMM_WRITE, .chunk = 5, .desc_off = 4160 },
		{ .type = RIFT_IMM_READ, .chunk = 4095, .desc_off = 128 },
		{ .type = RIFT_IMM_RSP, .chunk = 5, .err = -5 },
		{ .type = RIFT_IMM_RSP_RKEY, .chunk = 9 },
		{ .type = RIFT_IMM_RSP, .chunk = 5, .err = -5, .gen = 0xa },
		{ .type = RIFT_IMM_RSP_RKEY, .chunk = 9, .gen = 0xf },
		{ .type = RIFT_IMM_HB, .seq = 77 },
		{ .type = RIFT_IMM_HB_ACK, .seq = 77 },
		{ .type = RIFT_IMM_CANCEL, .chunk = 6 },
		{ .type = RIFT_IMM_CANCEL, .chunk = 6, .gen = 0x1234 },
	};
	u8 params[FUZZ_IMM_PARAMS] = { 0, 0, 0, 0, 0x00, 0x10 };	/* 4096 chunks */
	unsigned int i;
	__be32 raw;

	for (i = 0; i < ARRAY_SIZE(imms); i++) {
		must(rift_imm_encode(&imms[i], &raw), "imm");
		memcpy(params, &raw, 4);
		seed(FUZZ_IMM, params, sizeof(params), NULL, 0);
	}
}

static void seed_rkey(void)
{
	u8 chunk[2] = { 9, 0 };

	must(rift_proto_rkey_encode(9, 0xabcdef01, buf, sizeof(buf)), "rkey");
	seed(FUZZ_RKEY, chunk, 2, buf, sizeof(struct rift_wire_rkey_msg));
}

static void seed_write_inv(void)
{
	struct rift_imm imm = { .type = RIFT_IMM_WRITE, .chunk = 9, .desc_off = 4096 };
	u8 nr[2] = { 128, 0 };

	must(rift_proto_write_inv_encode(&imm, buf, sizeof(buf)), "write_inv");
	seed(FUZZ_WRITE_INV, nr, 2, buf, sizeof(struct rift_wire_write_inv));
}

static void seed_credit(void)
{
	static const struct rift_credit msgs[] = {
		{ .nr_grant = 3, .flags = RIFT_CREDIT_F_ANSWER | RIFT_CREDIT_F_MORE, .granted = 5,
		  .grant = { { 0x10000, 0x101, 2 }, { 0x20000, 0x102, 3 }, { 0x30000, 0x103, 4 } } },
		{ .nr_grant = 1, .flags = RIFT_CREDIT_F_ANSWER, .granted = 6,
		  .grant = { { 0x40000, 0x104, 5 } } },
		{ .flags = RIFT_CREDIT_F_ANSWER, .granted = 2 },
		{ .flags = RIFT_CREDIT_F_REVOKE, .keep = 2, .granted = 6 },
	};
	u8 qd[2] = { 128, 0 };
	unsigned int i;
	int len;

	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		len = rift_proto_credit_encode(&msgs[i], 128, buf, sizeof(buf));
		must(len, "credit");
		seed(FUZZ_CREDIT, qd, 2, buf, len);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s <corpus-dir>\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	seed_con();
	seed_info();
	seed_io();
	seed_imm();
	seed_rkey();
	seed_credit();
	seed_write_inv();
	printf("gen-corpus: wrote %d seeds to %s\n", nr_seeds, dir);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for authentication in the codec: the INFO TLVs that carry
 * identity, nonces and proofs, the transcript a proof covers, and the
 * parser of secrets as administrators write them.
 */

#include "unit.h"

static u8 abuf[4096];

static void make_auth_req(struct rift_info *in)
{
	size_t i;

	memset(in, 0, sizeof(*in));
	in->type = RIFT_INFO_REQ;
	in->version = 1;
	strcpy(in->sess_name, "sess");
	strcpy(in->host_name, "host-a");
	for (i = 0; i < RIFT_UUID_LEN; i++)
		in->host_uuid[i] = (u8)(0x10 + i);
	for (i = 0; i < RIFT_AUTH_NONCE_LEN; i++)
		in->auth_nonce[i] = (u8)(0x40 + i);
	for (i = 0; i < RIFT_AUTH_PROOF_LEN; i++)
		in->auth_proof[i] = (u8)(0x80 + i);
	in->present = BIT(RIFT_TLV_AUTH_NONCE) | BIT(RIFT_TLV_AUTH_PROOF);
}

/* Offset of the first TLV of @type in abuf, or -1. */
static int find_tlv(u32 total, u16 type)
{
	u32 off = get16(abuf + 10);

	while (off + 4 <= total) {
		if ((get16(abuf + off) & RIFT_TLV_TYPE_MASK) == type)
			return (int)off;
		off = (off + 4 + get16(abuf + off + 2) + 7) & ~7U;
	}
	return -1;
}

static void test_auth_info_req(void)
{
	struct rift_info in, out;
	int len, off;

	make_auth_req(&in);
	len = rift_info_encode(&in, abuf, sizeof(abuf));
	CHECK(len > 0);
	off = find_tlv(len, RIFT_TLV_HOST_UUID);
	CHECK(off > 0);
	CHECK_EQ(get16(abuf + off + 2), RIFT_UUID_LEN);
	off = find_tlv(len, RIFT_TLV_AUTH_NONCE);
	CHECK(off > 0);
	CHECK_EQ(get16(abuf + off), RIFT_TLV_AUTH_NONCE);
	off = find_tlv(len, RIFT_TLV_AUTH_PROOF);
	CHECK(off > 0);
	/* A server that cannot check a proof must refuse, not ignore it. */
	CHECK_EQ(get16(abuf + off), RIFT_TLV_AUTH_PROOF | RIFT_TLV_CRITICAL);

	CHECK_EQ(rift_info_parse(abuf, len, 1, &out, NULL, 0), 0);
	CHECK(!memcmp(out.host_uuid, in.host_uuid, RIFT_UUID_LEN));
	CHECK(!memcmp(out.auth_nonce, in.auth_nonce, RIFT_AUTH_NONCE_LEN));
	CHECK(!memcmp(out.auth_proof, in.auth_proof, RIFT_AUTH_PROOF_LEN));
	CHECK(out.present & BIT(RIFT_TLV_HOST_UUID));
	CHECK(out.present & BIT(RIFT_TLV_AUTH_NONCE));
	CHECK(out.present & BIT(RIFT_TLV_AUTH_PROOF));

	/* Without them: nothing sent, nothing present. */
	in.present = 0;
	memset(in.host_uuid, 0, sizeof(in.host_uuid));
	len = rift_info_encode(&in, abuf, sizeof(abuf));
	CHECK_EQ(find_tlv(len, RIFT_TLV_HOST_UUID), -1);
	CHECK_EQ(find_tlv(len, RIFT_TLV_AUTH_NONCE), -1);
	CHECK_EQ(find_tlv(len, RIFT_TLV_AUTH_PROOF), -1);
	CHECK_EQ(rift_info_parse(abuf, len, 1, &out, NULL, 0), 0);
	CHECK_EQ(out.present & (BIT(RIFT_TLV_HOST_UUID) | BIT(RIFT_TLV_AUTH_NONCE) |
				BIT(RIFT_TLV_AUTH_PROOF)), 0);
}

/* A proof or nonce shorter than its size is malformed; a longer one is an extension. */
static void test_auth_tlv_lengths(void)
{
	static const u16 types[] = { RIFT_TLV_HOST_UUID, RIFT_TLV_AUTH_NONCE,
				     RIFT_TLV_AUTH_PROOF };
	struct rift_info in, out;
	unsigned int i;
	int len, off;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		make_auth_req(&in);
		len = rift_info_encode(&in, abuf, sizeof(abuf));
		off = find_tlv(len, types[i]);
		CHECK(off > 0);
		put16(abuf + off + 2, get16(abuf + off + 2) - 1);
		CHECK_EQ(rift_info_parse(abuf, len, 1, &out, NULL, 0), -EBADMSG);
	}
}

static void make_ids(struct rift_auth_ids *ids, u8 *sn, u8 *cn, u8 *su, u8 *pu, u8 *hu)
{
	memset(sn, 0x11, RIFT_AUTH_NONCE_LEN);
	memset(cn, 0x22, RIFT_AUTH_NONCE_LEN);
	memset(su, 0x33, RIFT_UUID_LEN);
	memset(pu, 0x44, RIFT_UUID_LEN);
	memset(hu, 0x55, RIFT_UUID_LEN);
	ids->srv_nonce = sn;
	ids->clt_nonce = cn;
	ids->sess_uuid = su;
	ids->path_uuid = pu;
	ids->reconnect_gen = 7;
	ids->sess_name = "sess";
	ids->host_name = "host-a";
	ids->host_uuid = hu;
}

static void test_auth_transcript(void)
{
	u8 sn[RIFT_AUTH_NONCE_LEN], cn[RIFT_AUTH_NONCE_LEN];
	u8 su[RIFT_UUID_LEN], pu[RIFT_UUID_LEN], hu[RIFT_UUID_LEN];
	static u8 a[RIFT_AUTH_TRANSCRIPT_MAX], b[RIFT_AUTH_TRANSCRIPT_MAX];
	struct rift_auth_ids ids;
	int la, lb;

	make_ids(&ids, sn, cn, su, pu, hu);
	la = rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, a, sizeof(a));
	/* label, two nonces, three UUIDs, the generation, two names + NULs */
	CHECK_EQ(la, 16 + 64 + 48 + 4 + 5 + 7);
	CHECK(!memcmp(a, "rift-v1-client", 14));
	/* The client's own nonce first, the server's second. */
	CHECK_EQ(a[16], 0x22);
	CHECK_EQ(a[48], 0x11);
	lb = rift_auth_transcript(RIFT_AUTH_SERVER, &ids, b, sizeof(b));
	CHECK_EQ(lb, la);
	CHECK(!memcmp(b, "rift-v1-server", 14));
	CHECK_EQ(b[16], 0x11);
	/* Roles never share a transcript: no reflection of one as the other. */
	CHECK(memcmp(a, b, la));

	/* Every bound value changes the transcript. */
	ids.reconnect_gen = 8;
	lb = rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, sizeof(b));
	CHECK(lb == la && memcmp(a, b, la));
	ids.reconnect_gen = 7;
	hu[3] ^= 1;
	lb = rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, sizeof(b));
	CHECK(lb == la && memcmp(a, b, la));
	hu[3] ^= 1;
	ids.sess_name = "sesz";
	lb = rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, sizeof(b));
	CHECK(lb == la && memcmp(a, b, la));
	/* Names are delimited: moving a character between them differs. */
	ids.sess_name = "sessh";
	ids.host_name = "ost-a";
	lb = rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, sizeof(b));
	CHECK(lb == la && memcmp(a, b, la));
	make_ids(&ids, sn, cn, su, pu, hu);
	lb = rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, sizeof(b));
	CHECK(lb == la && !memcmp(a, b, la));

	/* An unnamed host is allowed, a bad name and a short buffer are not. */
	ids.host_name = "";
	CHECK(rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, sizeof(b)) > 0);
	ids.host_name = "a b";
	CHECK_EQ(rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, sizeof(b)), -EINVAL);
	ids.host_name = "host-a";
	ids.sess_name = "";
	CHECK_EQ(rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, sizeof(b)), -EINVAL);
	ids.sess_name = "sess";
	CHECK_EQ(rift_auth_transcript(0, &ids, b, sizeof(b)), -EINVAL);
	CHECK_EQ(rift_auth_transcript(RIFT_AUTH_CLIENT, &ids, b, RIFT_AUTH_TRANSCRIPT_MAX - 1),
		 -EMSGSIZE);
}

static void test_auth_parse_secret(void)
{
	static const char * const bad[] = {
		"", "\n", "0", "0011223344556677889900aabbccddeef",	/* odd length */
		"00112233445566778899aabbccddee",			/* 15 bytes */
		"00112233445566778899aabbccddeeXX",			/* not hex */
		"00112233445566778899aabbccddeeff\n\n",
		" 00112233445566778899aabbccddeeff",
	};
	char big[2 * RIFT_AUTH_SECRET_MAX + 3];
	u8 key[RIFT_AUTH_SECRET_MAX];
	unsigned int i;

	CHECK_EQ(rift_auth_parse_secret("00112233445566778899aabbccddeeff", 32, key), 16);
	CHECK_EQ(key[0], 0x00);
	CHECK_EQ(key[15], 0xff);
	CHECK_EQ(rift_auth_parse_secret("00112233445566778899AABBCCDDEEFF\n", 33, key), 16);
	CHECK_EQ(key[10], 0xaa);
	for (i = 0; i < 2 * RIFT_AUTH_SECRET_MAX; i++)
		big[i] = "0123456789abcdef"[i % 16];
	CHECK_EQ(rift_auth_parse_secret(big, 2 * RIFT_AUTH_SECRET_MAX, key),
		 RIFT_AUTH_SECRET_MAX);
	big[2 * RIFT_AUTH_SECRET_MAX] = 'a';
	big[2 * RIFT_AUTH_SECRET_MAX + 1] = 'b';
	CHECK_EQ(rift_auth_parse_secret(big, 2 * RIFT_AUTH_SECRET_MAX + 2, key), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK_EQ(rift_auth_parse_secret(bad[i], strlen(bad[i]), key), -EINVAL);
}

/* A server may impose always-invalidate on a client that can follow it. */
static void test_feat_ai_capable(void)
{
	const u64 ai = RIFT_FEAT_ALWAYS_INVALIDATE;

	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_CANCEL, ai), -EBADMSG);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_AI_CAPABLE, ai), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_AI_CAPABLE | RIFT_FEAT_CANCEL,
					   ai | RIFT_FEAT_CANCEL), 0);
	CHECK_EQ(rift_proto_features_check(ai, ai), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_AI_CAPABLE, RIFT_FEAT_CANCEL), -EBADMSG);
	CHECK_EQ(rift_proto_features_acceptable(RIFT_FEAT_AI_CAPABLE),
		 RIFT_FEAT_AI_CAPABLE | ai);
	CHECK_EQ(rift_proto_features_acceptable(RIFT_FEAT_CANCEL), RIFT_FEAT_CANCEL);
	/* The server accepts only what it supports of what was offered. */
	CHECK_EQ(rift_proto_features_accept(RIFT_FEAT_AI_CAPABLE, ai | RIFT_FEAT_CANCEL), 0);
}

/* Remote invalidation qualifies always-invalidate: never without it. */
static void test_feat_remote_inv(void)
{
	const u64 ai = RIFT_FEAT_ALWAYS_INVALIDATE, ri = RIFT_FEAT_REMOTE_INV;

	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_AI_CAPABLE | ri, ai | ri), 0);
	CHECK_EQ(rift_proto_features_check(ai | ri, ai | ri), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_AI_CAPABLE | ri, ai), 0);
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_AI_CAPABLE | ri, ri), -EBADMSG);
	/* Accepted only if offered. */
	CHECK_EQ(rift_proto_features_check(RIFT_FEAT_AI_CAPABLE, ai | ri), -EBADMSG);
	CHECK_EQ(rift_proto_features_accept(ai | ri, ~0ULL), ai | ri);
	CHECK_EQ(rift_proto_features_accept(ri | RIFT_FEAT_CANCEL, ~0ULL), RIFT_FEAT_CANCEL);
	CHECK_EQ(rift_proto_features_accept(ai | ri, ri), 0);
}

/*
 * The server's answer in one place: what it imposes is had only from a
 * client that can follow it, and REMOTE_INV then rides on always-
 * invalidate whether asked for or imposed.
 */
static void test_feat_decide(void)
{
	const u64 ai = RIFT_FEAT_ALWAYS_INVALIDATE, ri = RIFT_FEAT_REMOTE_INV;
	const u64 cap = RIFT_FEAT_AI_CAPABLE, sup = RIFT_FEAT_CANCEL | ri;
	u64 feat = ~0ULL;

	/* Nothing imposed: as rift_proto_features_accept(). */
	CHECK_EQ(rift_proto_features_decide(ai | ri, ai | sup, 0, &feat), 0);
	CHECK_EQ(feat, ai | ri);
	CHECK_EQ(rift_proto_features_decide(ai | ri, sup, 0, &feat), 0);
	CHECK_EQ(feat, 0);
	CHECK_EQ(rift_proto_features_decide(cap | ri, ai | sup, 0, &feat), 0);
	CHECK_EQ(feat, 0);
	/* Imposed on a client able to follow: with REMOTE_INV if offered and supported. */
	CHECK_EQ(rift_proto_features_decide(cap | ri, sup, ai, &feat), 0);
	CHECK_EQ(feat, ai | ri);
	CHECK_EQ(rift_proto_features_decide(cap, sup, ai, &feat), 0);
	CHECK_EQ(feat, ai);
	CHECK_EQ(rift_proto_features_decide(cap | ri, RIFT_FEAT_CANCEL, ai, &feat), 0);
	CHECK_EQ(feat, ai);
	CHECK_EQ(rift_proto_features_decide(ai | ri | RIFT_FEAT_CANCEL, sup, ai, &feat), 0);
	CHECK_EQ(feat, ai | ri | RIFT_FEAT_CANCEL);
	/* Not on a client that cannot, nor anything else imposed. */
	feat = ~0ULL;
	CHECK_EQ(rift_proto_features_decide(ri | RIFT_FEAT_CANCEL, sup, ai, &feat),
		 -EPROTONOSUPPORT);
	CHECK_EQ(feat, 0);
	feat = ~0ULL;
	CHECK_EQ(rift_proto_features_decide(RIFT_FEAT_CANCEL, sup, RIFT_FEAT_CANCEL, &feat),
		 -EINVAL);
	CHECK_EQ(feat, 0);
	CHECK_EQ(rift_proto_features_decide(cap, sup, ai | BIT_ULL(40), &feat), -EINVAL);
	/* The other qualifier and unknown bits as without imposition. */
	CHECK_EQ(rift_proto_features_decide(cap | RIFT_FEAT_CANCEL_GEN | BIT_ULL(40), sup, ai,
					    &feat), 0);
	CHECK_EQ(feat, ai);
}

const struct unit_test unit_auth_tests[] = {
	UNIT(test_feat_ai_capable),
	UNIT(test_feat_decide),
	UNIT(test_feat_remote_inv),
	UNIT(test_auth_info_req),
	UNIT(test_auth_tlv_lengths),
	UNIT(test_auth_transcript),
	UNIT(test_auth_parse_secret),
	{ NULL, NULL }
};

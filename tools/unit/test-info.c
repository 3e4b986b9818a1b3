// SPDX-License-Identifier: GPL-2.0
/*
 * INFO_REQ / INFO_RSP: TLV encoding, the parser's length discipline,
 * forward compatibility, critical TLVs and chunk table rules.
 */
#include <stdlib.h>

#include "unit.h"

#define CSIZE	((128U << 10) + 4096)
#define MAXIO	(128U << 10)

static struct rift_rbuf chunks[RIFT_MAX_QUEUE_DEPTH];
static struct rift_rbuf got[RIFT_MAX_QUEUE_DEPTH];
static u8 buf[RIFT_INFO_MAX_LEN + 64];

static void make_req_info(struct rift_info *info)
{
	memset(info, 0, sizeof(*info));
	info->type = RIFT_INFO_REQ;
	info->version = 1;
	strcpy(info->sess_name, "blk0");
	strcpy(info->host_name, "client-a");
	info->feat_offered = RIFT_FEAT_ALWAYS_INVALIDATE;
	info->hb_interval_ms = 500;
}

static void make_rsp_info(struct rift_info *info, u32 qd)
{
	u32 i;

	memset(info, 0, sizeof(*info));
	info->type = RIFT_INFO_RSP;
	info->version = 1;
	strcpy(info->host_name, "server-1");
	info->feat_accepted = RIFT_FEAT_ALWAYS_INVALIDATE;
	info->hb_interval_ms = 1000;
	info->hb_missed_max = 7;
	info->max_io_size = MAXIO;
	info->queue_depth = qd;
	info->chunk_size = CSIZE;
	for (i = 0; i < qd; i++) {
		chunks[i].addr = 0x100000000ULL + (u64)i * CSIZE;
		chunks[i].len = CSIZE;
		chunks[i].rkey = 0x1000 + i;
	}
	info->chunks = chunks;
	info->nr_chunks = qd;
}

static void check_info_eq(const struct rift_info *a, const struct rift_info *b)
{
	CHECK_EQ(a->type, b->type);
	CHECK_EQ(a->version, b->version);
	CHECK_EQ(a->status, b->status);
	CHECK(!strcmp(a->sess_name, b->sess_name));
	CHECK(!strcmp(a->host_name, b->host_name));
	CHECK_EQ(a->feat_offered, b->feat_offered);
	CHECK_EQ(a->feat_accepted, b->feat_accepted);
	CHECK_EQ(a->hb_interval_ms, b->hb_interval_ms);
	CHECK_EQ(a->hb_missed_max, b->hb_missed_max);
	CHECK_EQ(a->max_io_size, b->max_io_size);
	CHECK_EQ(a->queue_depth, b->queue_depth);
	CHECK_EQ(a->chunk_size, b->chunk_size);
	CHECK_EQ(a->nr_chunks, b->nr_chunks);
	if (a->nr_chunks == b->nr_chunks && a->nr_chunks)
		CHECK(!memcmp(a->chunks, b->chunks, a->nr_chunks * sizeof(*a->chunks)));
}

/* Raw message writer for messages our encoder would never produce. */
struct raw {
	u32 len;
};

static void raw_hdr(struct raw *r, u16 type, u16 hdr_len)
{
	memset(buf, 0, sizeof(buf));
	memcpy(buf, "RFIN", 4);
	put16(buf + 4, type);
	put16(buf + 6, 1);
	put16(buf + 10, hdr_len);
	r->len = hdr_len;
}

static void raw_tlv(struct raw *r, u16 type, const void *val, u16 len)
{
	put16(buf + r->len, type);
	put16(buf + r->len + 2, len);
	if (len)
		memcpy(buf + r->len + 4, val, len);
	r->len = (r->len + 4 + len + 7) & ~7U;
}

static void raw_u32(struct raw *r, u16 type, u32 v)
{
	u8 b[4];

	put32(b, v);
	raw_tlv(r, type, b, 4);
}

static void raw_u64(struct raw *r, u16 type, u64 v)
{
	u8 b[8];

	put64(b, v);
	raw_tlv(r, type, b, 8);
}

static void raw_chunks_len(struct raw *r, u16 first, u16 n, u16 entry_len, u32 clen)
{
	static u8 v[4 + 1024 * 32];
	u16 i;

	memset(v, 0, sizeof(v));
	put16(v, first);
	put16(v + 2, entry_len);
	for (i = 0; i < n; i++) {
		u8 *e = v + 4 + i * entry_len;

		put64(e, 0x200000000ULL + (u64)(first + i) * CSIZE);
		put32(e + 8, clen);
		put32(e + 12, 0x2000 + first + i);
		if (entry_len > 16)
			memset(e + 16, 0xab, entry_len - 16);
	}
	raw_tlv(r, RIFT_TLV_CHUNK_TABLE | RIFT_TLV_CRITICAL, v, 4 + n * entry_len);
}

static void raw_chunks(struct raw *r, u16 first, u16 n)
{
	raw_chunks_len(r, first, n, 16, CSIZE);
}

static u32 raw_end(struct raw *r)
{
	put32(buf + 12, r->len);
	return r->len;
}

/* The scalar part of a valid INFO_RSP; callers add the chunk table. */
static void raw_rsp_base(struct raw *r, u32 qd)
{
	raw_hdr(r, RIFT_INFO_RSP, 24);
	raw_u32(r, RIFT_TLV_HB_INTERVAL_MS, 1000);
	raw_u32(r, RIFT_TLV_MAX_IO_SIZE, MAXIO);
	raw_u32(r, RIFT_TLV_QUEUE_DEPTH, qd);
	raw_u32(r, RIFT_TLV_CHUNK_SIZE, CSIZE);
}

static int parse(u32 len, struct rift_info *out)
{
	return rift_info_parse(buf, len, 1, out, got, RIFT_MAX_QUEUE_DEPTH);
}

static void test_info_req_roundtrip(void)
{
	struct rift_info in, out;
	int len;

	make_req_info(&in);
	len = rift_info_encode(&in, buf, sizeof(buf));
	CHECK_EQ(len, 72);
	/* Header and TLV placement as in the specification. */
	CHECK(!memcmp(buf, "RFIN", 4));
	CHECK_EQ(get16(buf + 4), RIFT_INFO_REQ);
	CHECK_EQ(get16(buf + 6), 1);
	CHECK_EQ(get16(buf + 10), 24);
	CHECK_EQ(get32(buf + 12), 72);
	CHECK_EQ(get16(buf + 24), RIFT_TLV_HOST_NAME);
	CHECK_EQ(get16(buf + 26), 8);
	CHECK(!memcmp(buf + 28, "client-a", 8));
	CHECK_EQ(buf[36], 0);		/* padding */
	CHECK_EQ(get16(buf + 40), RIFT_TLV_SESS_NAME | RIFT_TLV_CRITICAL);
	CHECK_EQ(get16(buf + 42), 4);
	CHECK_EQ(get16(buf + 48), RIFT_TLV_FEAT_OFFERED);
	CHECK_EQ(get16(buf + 64), RIFT_TLV_HB_INTERVAL_MS);
	CHECK_EQ(get32(buf + 68), 500);

	CHECK_EQ(parse(len, &out), 0);
	check_info_eq(&in, &out);
	CHECK_EQ(out.present, BIT(RIFT_TLV_SESS_NAME) | BIT(RIFT_TLV_HOST_NAME) |
			      BIT(RIFT_TLV_FEAT_OFFERED) | BIT(RIFT_TLV_HB_INTERVAL_MS));
	CHECK_EQ(out.nr_skipped, 0);

	/* Optional parts left out. */
	in.host_name[0] = 0;
	in.hb_interval_ms = 0;
	in.feat_offered = 0;
	len = rift_info_encode(&in, buf, sizeof(buf));
	CHECK_EQ(len, 48);
	CHECK_EQ(parse(len, &out), 0);
	check_info_eq(&in, &out);
}

static int count_chunk_tlvs(u32 total)
{
	u32 off = get16(buf + 10);
	int n = 0;

	while (off < total) {
		if ((get16(buf + off) & RIFT_TLV_TYPE_MASK) == RIFT_TLV_CHUNK_TABLE)
			n++;
		off = (off + 4 + get16(buf + off + 2) + 7) & ~7U;
	}
	return n;
}

static void test_info_rsp_roundtrip(void)
{
	static const u32 qds[] = { 1, 8, 1023, 1024, 1025, 4096 };
	struct rift_con_rsp con = { .version = 1, .max_io_size = MAXIO, .chunk_size = CSIZE };
	struct rift_info in, out;
	unsigned int i;
	int len;

	for (i = 0; i < ARRAY_SIZE(qds); i++) {
		make_rsp_info(&in, qds[i]);
		len = rift_info_encode(&in, buf, sizeof(buf));
		CHECK(len > 0);
		CHECK(len <= (int)RIFT_INFO_MAX_LEN);
		CHECK_EQ(count_chunk_tlvs(len), (qds[i] + 1023) / 1024);
		memset(got, 0, sizeof(got));
		CHECK_EQ(parse(len, &out), 0);
		check_info_eq(&in, &out);
		CHECK(out.chunks == got);
		/* Storage exactly as large as the table is enough. */
		CHECK_EQ(rift_info_parse(buf, len, 1, &out, got, qds[i]), 0);
		con.queue_depth = qds[i];
		CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_KNOWN, &con), 0);
	}

	/* A refusing INFO_RSP carries no session parameters. */
	memset(&in, 0, sizeof(in));
	in.type = RIFT_INFO_RSP;
	in.version = 1;
	in.status = EACCES;
	len = rift_info_encode(&in, buf, sizeof(buf));
	CHECK_EQ(len, 24);
	CHECK_EQ(parse(len, &out), 0);
	CHECK_EQ(out.status, EACCES);
	CHECK_EQ(rift_info_rsp_check(&out, 0, NULL), -ECONNREFUSED);
}

static void test_info_truncated(void)
{
	struct rift_info in, out;
	int len, l;

	make_req_info(&in);
	len = rift_info_encode(&in, buf, sizeof(buf));
	for (l = 0; l < len; l++) {
		memset(&out, 0x5a, sizeof(out));
		CHECK_EQ(parse(l, &out), -EBADMSG);
		CHECK_EQ(out.type, 0);
		CHECK_EQ(out.present, 0);
	}
	CHECK_EQ(parse(len, &out), 0);

	make_rsp_info(&in, 64);
	len = rift_info_encode(&in, buf, sizeof(buf));
	for (l = 0; l < len; l++)
		CHECK_EQ(parse(l, &out), -EBADMSG);
	/*
	 * Now a consistent liar: total_len shrunk to each prefix.  The chunk
	 * table is last, so every prefix loses required data or cuts a TLV.
	 */
	for (l = 0; l < len; l++) {
		len = rift_info_encode(&in, buf, sizeof(buf));
		put32(buf + 12, l);
		CHECK_EQ(parse(len, &out), -EBADMSG);
	}
	CHECK_EQ(rift_info_parse(NULL, 100, 1, &out, got, 1), -EBADMSG);
}

static void test_info_total_len(void)
{
	struct rift_info in, out;
	int len;

	make_req_info(&in);
	len = rift_info_encode(&in, buf, sizeof(buf));
	/* Claims more than was received. */
	put32(buf + 12, len + 8);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	memset(buf + len, 0, 8);
	CHECK_EQ(parse(len + 8, &out), -EBADMSG);	/* TLV of type 0 */
	put32(buf + 12, 0xfffffff8);
	CHECK_EQ(parse(sizeof(buf), &out), -EBADMSG);
	put32(buf + 12, RIFT_INFO_MAX_LEN + 8);
	CHECK_EQ(parse(sizeof(buf), &out), -EBADMSG);
	/* Less than the header, or not a multiple of the alignment. */
	put32(buf + 12, 16);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	put32(buf + 12, 0);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	put32(buf + 12, len - 4);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	/* Header only: the required session name is missing. */
	put32(buf + 12, 24);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	/* A receive buffer longer than the message, with junk after it, is fine. */
	put32(buf + 12, len);
	memset(buf + len, 0xff, 64);
	CHECK_EQ(parse(len + 64, &out), 0);
}

static void test_info_header(void)
{
	struct rift_info in, out;
	int len;

	make_req_info(&in);
	len = rift_info_encode(&in, buf, sizeof(buf));
	CHECK_EQ(rift_info_parse(buf, len, 2, &out, NULL, 0), -EBADMSG);
	CHECK_EQ(rift_info_parse(buf, len, 0, &out, NULL, 0), -EBADMSG);
	CHECK_EQ(rift_info_parse(buf, len, 1, &out, NULL, 0), 0);

	buf[0] ^= 1;
	CHECK_EQ(parse(len, &out), -EBADMSG);
	buf[0] ^= 1;
	put16(buf + 4, 0);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	put16(buf + 4, 3);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	put16(buf + 4, RIFT_INFO_REQ);
	put16(buf + 10, 16);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	put16(buf + 10, 28);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	put16(buf + 10, len + 8);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	put16(buf + 10, 24);
	/* Only an INFO_RSP may carry a status. */
	put16(buf + 16, EIO);
	CHECK_EQ(parse(len, &out), -EBADMSG);
	put16(buf + 16, 0);
	/* Flags and reserved bytes are ignored. */
	put16(buf + 8, 0xffff);
	memset(buf + 18, 0xff, 6);
	CHECK_EQ(parse(len, &out), 0);

	make_rsp_info(&in, 2);
	in.status = 0;
	len = rift_info_encode(&in, buf, sizeof(buf));
	put16(buf + 16, 4096);
	CHECK_EQ(parse(len, &out), -EBADMSG);
}

/* A version N+1 peer: longer header, longer values, unknown TLVs. */
static void test_info_future_peer(void)
{
	struct rift_info out;
	struct raw r;
	u8 v[16];

	raw_hdr(&r, RIFT_INFO_RSP, 40);
	memset(buf + 18, 0xee, 40 - 18);	/* reserved + new header fields */
	put16(buf + 8, 0x8001);			/* unknown header flags */
	raw_tlv(&r, 0x0100, "future", 6);
	put32(v, 1000);
	put32(v + 4, 0xdeadbeef);		/* a field v1 does not know */
	raw_tlv(&r, RIFT_TLV_HB_INTERVAL_MS, v, 8);
	raw_u32(&r, RIFT_TLV_MAX_IO_SIZE | RIFT_TLV_CRITICAL, MAXIO);
	raw_tlv(&r, RIFT_TLV_NR, NULL, 0);	/* next type to be assigned */
	raw_u32(&r, RIFT_TLV_QUEUE_DEPTH, 3);
	put64(v, RIFT_FEAT_ALWAYS_INVALIDATE);
	put64(v + 8, ~0ULL);
	raw_tlv(&r, RIFT_TLV_FEAT_ACCEPTED, v, 16);
	raw_u32(&r, 31, 5);
	raw_chunks_len(&r, 0, 2, 24, CSIZE);	/* longer entries */
	raw_u32(&r, RIFT_TLV_CHUNK_SIZE, CSIZE);
	raw_chunks_len(&r, 2, 1, 32, CSIZE);
	raw_tlv(&r, RIFT_TLV_TYPE_MASK, "x", 1);
	/* A known type v1 only defines for INFO_REQ. */
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "later", 5);

	CHECK_EQ(parse(raw_end(&r), &out), 0);
	CHECK_EQ(out.nr_skipped, 5);
	CHECK_EQ(out.hb_interval_ms, 1000);
	CHECK_EQ(out.hb_missed_max, RIFT_HB_MISSED_DEFAULT);
	CHECK_EQ(out.feat_accepted, RIFT_FEAT_ALWAYS_INVALIDATE);
	CHECK_EQ(out.queue_depth, 3);
	CHECK_EQ(out.nr_chunks, 3);
	CHECK_EQ(got[1].addr, 0x200000000ULL + CSIZE);
	CHECK_EQ(got[1].len, CSIZE);
	CHECK_EQ(got[2].rkey, 0x2002);
	CHECK_EQ(out.sess_name[0], 0);
	CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_ALWAYS_INVALIDATE, NULL), 0);

	/* Same for an INFO_REQ from a newer client. */
	raw_hdr(&r, RIFT_INFO_REQ, 32);
	raw_tlv(&r, 0x0123, "abc", 3);
	raw_tlv(&r, RIFT_TLV_SESS_NAME | RIFT_TLV_CRITICAL, "vol", 3);
	raw_u32(&r, RIFT_TLV_CHUNK_SIZE, CSIZE);	/* RSP-only in v1 */
	put64(v, RIFT_FEAT_ALWAYS_INVALIDATE | 1ULL << 40);
	raw_tlv(&r, RIFT_TLV_FEAT_OFFERED, v, 8);
	CHECK_EQ(parse(raw_end(&r), &out), 0);
	CHECK_EQ(out.nr_skipped, 2);
	CHECK(!strcmp(out.sess_name, "vol"));
	/* The server ignores what it does not know when accepting. */
	CHECK_EQ(rift_proto_features_accept(out.feat_offered, ~0ULL),
		 RIFT_FEAT_ALWAYS_INVALIDATE);
}

static void test_info_critical(void)
{
	struct rift_info out;
	struct raw r;

	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_tlv(&r, 0x0200 | RIFT_TLV_CRITICAL, "must-know", 9);
	CHECK_EQ(parse(raw_end(&r), &out), -EOPNOTSUPP);
	CHECK_EQ(out.present, 0);

	/* Known type, but not defined for this message type. */
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_chunks(&r, 0, 1);
	CHECK_EQ(parse(raw_end(&r), &out), -EOPNOTSUPP);

	raw_rsp_base(&r, 1);
	raw_chunks(&r, 0, 1);
	raw_tlv(&r, RIFT_TLV_NR | RIFT_TLV_CRITICAL, NULL, 0);
	CHECK_EQ(parse(raw_end(&r), &out), -EOPNOTSUPP);

	/* The same TLVs without the flag are skipped. */
	raw_rsp_base(&r, 1);
	raw_chunks(&r, 0, 1);
	raw_tlv(&r, RIFT_TLV_NR, NULL, 0);
	raw_tlv(&r, RIFT_TLV_FEAT_OFFERED, "12345678", 8);
	CHECK_EQ(parse(raw_end(&r), &out), 0);
	CHECK_EQ(out.nr_skipped, 2);
	CHECK_EQ(out.feat_offered, 0);

	/* Type 0 is never valid, critical or not. */
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_tlv(&r, 0, "", 0);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_tlv(&r, RIFT_TLV_CRITICAL, "", 0);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
}

static void test_info_duplicates(void)
{
	static const u16 singles[] = { RIFT_TLV_HOST_NAME, RIFT_TLV_FEAT_ACCEPTED,
				       RIFT_TLV_HB_INTERVAL_MS, RIFT_TLV_HB_MISSED_MAX,
				       RIFT_TLV_MAX_IO_SIZE, RIFT_TLV_QUEUE_DEPTH,
				       RIFT_TLV_CHUNK_SIZE };
	struct rift_info out;
	struct raw r;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(singles); i++) {
		raw_rsp_base(&r, 1);
		raw_chunks(&r, 0, 1);
		raw_u32(&r, RIFT_TLV_HB_MISSED_MAX, 3);
		raw_u64(&r, RIFT_TLV_FEAT_ACCEPTED, 0);
		raw_tlv(&r, RIFT_TLV_HOST_NAME, "srv", 3);
		CHECK_EQ(parse(raw_end(&r), &out), 0);
		/* Same value again is still a duplicate. */
		switch (singles[i]) {
		case RIFT_TLV_HOST_NAME:
			raw_tlv(&r, singles[i], "srv", 3);
			break;
		case RIFT_TLV_FEAT_ACCEPTED:
			raw_u64(&r, singles[i], 0);
			break;
		default:
			raw_u32(&r, singles[i], singles[i] == RIFT_TLV_HB_MISSED_MAX ? 3 :
				singles[i] == RIFT_TLV_HB_INTERVAL_MS ? 1000 :
				singles[i] == RIFT_TLV_MAX_IO_SIZE ? MAXIO :
				singles[i] == RIFT_TLV_QUEUE_DEPTH ? 1 : CSIZE);
			break;
		}
		CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	}

	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_u64(&r, RIFT_TLV_FEAT_OFFERED, 1);
	raw_u64(&r, RIFT_TLV_FEAT_OFFERED, 1);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/* Unknown optional TLVs may repeat. */
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_tlv(&r, 0x444, "a", 1);
	raw_tlv(&r, 0x444, "a", 1);
	CHECK_EQ(parse(raw_end(&r), &out), 0);
}

static void test_info_tlv_bounds(void)
{
	struct rift_info out;
	struct raw r;
	u32 len;

	/* TLV length running past total_len (but inside the buffer). */
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	len = raw_end(&r);
	put16(buf + 26, 3 + 8);
	CHECK_EQ(parse(sizeof(buf), &out), -EBADMSG);
	put16(buf + 26, 0xffff);
	CHECK_EQ(parse(sizeof(buf), &out), -EBADMSG);
	/* Exactly filling the message without padding slack is fine. */
	put16(buf + 26, 4);
	buf[31] = 'x';
	CHECK_EQ(parse(len, &out), 0);
	CHECK(!strcmp(out.sess_name, "volx"));

	/* Values shorter than their type needs. */
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_tlv(&r, RIFT_TLV_HB_INTERVAL_MS, "\xe8\x03\0", 3);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "vol", 3);
	raw_tlv(&r, RIFT_TLV_FEAT_OFFERED, "\1\0\0\0", 4);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_rsp_base(&r, 1);
	raw_tlv(&r, RIFT_TLV_CHUNK_TABLE, "\0\0\x10\0", 4);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
}

static void name_case(const char *name, u16 len, int want)
{
	struct rift_info out;
	struct raw r;

	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, name, len);
	CHECK_EQ(parse(raw_end(&r), &out), want);
	if (!want) {
		CHECK_EQ(strlen(out.sess_name), len);
		CHECK(!memcmp(out.sess_name, name, len));
	}
	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_tlv(&r, RIFT_TLV_SESS_NAME, "ok", 2);
	raw_tlv(&r, RIFT_TLV_HOST_NAME, name, len);
	CHECK_EQ(parse(raw_end(&r), &out), want);
}

static void test_info_names(void)
{
	static const char n64[] = "0123456789abcdef0123456789abcdef"
				  "0123456789abcdef0123456789abcdef!";
	struct rift_info in;

	name_case("vol-1_A.b:c", 11, 0);
	name_case(n64, 64, 0);
	name_case(n64, 65, -EBADMSG);
	name_case("", 0, -EBADMSG);
	name_case("vol\0", 4, -EBADMSG);	/* no terminator on the wire */
	name_case("v\0l", 3, -EBADMSG);
	name_case("v l", 3, -EBADMSG);
	name_case("v/l", 3, -EBADMSG);
	name_case("..", 2, -EBADMSG);
	name_case(".", 1, -EBADMSG);
	name_case("v\nl", 3, -EBADMSG);
	name_case("v\xffl", 3, -EBADMSG);

	/* The encoder refuses names the parser would refuse. */
	make_req_info(&in);
	strcpy(in.sess_name, "a b");
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_req_info(&in);
	in.sess_name[0] = 0;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_req_info(&in);
	memset(in.sess_name, 'x', sizeof(in.sess_name));	/* unterminated */
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_req_info(&in);
	strcpy(in.host_name, "..");
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
}

static void test_info_chunk_table(void)
{
	struct rift_info out;
	struct raw r;

	/* Split into uneven runs, queue depth announced last. */
	raw_hdr(&r, RIFT_INFO_RSP, 24);
	raw_u32(&r, RIFT_TLV_HB_INTERVAL_MS, 1000);
	raw_u32(&r, RIFT_TLV_MAX_IO_SIZE, MAXIO);
	raw_u32(&r, RIFT_TLV_CHUNK_SIZE, CSIZE);
	raw_chunks(&r, 0, 1);
	raw_chunks(&r, 1, 3);
	raw_chunks(&r, 4, 4);
	raw_u32(&r, RIFT_TLV_QUEUE_DEPTH, 8);
	CHECK_EQ(parse(raw_end(&r), &out), 0);
	CHECK_EQ(out.nr_chunks, 8);
	CHECK_EQ(got[7].rkey, 0x2007);

	/* Queue depth smaller than chunks already seen. */
	put32(buf + r.len - 4, 7);
	CHECK_EQ(parse(r.len, &out), -EBADMSG);

	/* Gap. */
	raw_rsp_base(&r, 8);
	raw_chunks(&r, 0, 2);
	raw_chunks(&r, 3, 5);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/* Overlap. */
	raw_rsp_base(&r, 8);
	raw_chunks(&r, 0, 4);
	raw_chunks(&r, 2, 6);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/* Out of order. */
	raw_rsp_base(&r, 8);
	raw_chunks(&r, 4, 4);
	raw_chunks(&r, 0, 4);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/* Same run twice. */
	raw_rsp_base(&r, 8);
	raw_chunks(&r, 0, 8);
	raw_chunks(&r, 0, 8);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/* Fewer entries than the queue depth. */
	raw_rsp_base(&r, 8);
	raw_chunks(&r, 0, 7);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/* More entries than the queue depth. */
	raw_rsp_base(&r, 8);
	raw_chunks(&r, 0, 9);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/*
	 * With CREDITS accepted the table is the initial grant: the floor
	 * (2) up to the queue depth; without it, fewer entries stay refused.
	 */
	raw_rsp_base(&r, 8);
	raw_u64(&r, RIFT_TLV_FEAT_ACCEPTED, RIFT_FEAT_CREDITS);
	raw_chunks(&r, 0, 2);
	CHECK_EQ(parse(raw_end(&r), &out), 0);
	CHECK_EQ(out.nr_chunks, 2);
	CHECK_EQ(out.queue_depth, 8);
	raw_rsp_base(&r, 8);
	raw_u64(&r, RIFT_TLV_FEAT_ACCEPTED, RIFT_FEAT_CREDITS);
	raw_chunks(&r, 0, 1);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_rsp_base(&r, 8);
	raw_u64(&r, RIFT_TLV_FEAT_ACCEPTED, RIFT_FEAT_CREDITS);
	raw_chunks(&r, 0, 9);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_rsp_base(&r, 1);
	raw_u64(&r, RIFT_TLV_FEAT_ACCEPTED, RIFT_FEAT_CREDITS);
	raw_chunks(&r, 0, 1);
	CHECK_EQ(parse(raw_end(&r), &out), 0);
	raw_rsp_base(&r, 8);
	raw_u64(&r, RIFT_TLV_FEAT_ACCEPTED, RIFT_FEAT_CANCEL);
	raw_chunks(&r, 0, 2);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/* A full table, then one index past the protocol maximum. */
	raw_hdr(&r, RIFT_INFO_RSP, 24);
	raw_chunks(&r, 0, 1024);
	raw_chunks(&r, 1024, 1024);
	raw_chunks(&r, 2048, 1024);
	raw_chunks(&r, 3072, 1024);
	raw_chunks(&r, 4096, 1);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	/* Same table without the extra entry is fine. */
	raw_rsp_base(&r, 4096);
	raw_chunks(&r, 0, 1024);
	raw_chunks(&r, 1024, 1024);
	raw_chunks(&r, 2048, 1024);
	raw_chunks(&r, 3072, 1024);
	CHECK_EQ(parse(raw_end(&r), &out), 0);
	CHECK_EQ(got[4095].rkey, 0x2000 + 4095);

	/* Bad entries. */
	raw_rsp_base(&r, 2);
	raw_chunks_len(&r, 0, 2, 16, 0);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_rsp_base(&r, 2);
	raw_chunks_len(&r, 0, 2, 16, CSIZE + 1);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_rsp_base(&r, 2);
	raw_chunks_len(&r, 0, 2, 16, CSIZE + 4096);	/* valid size, != chunk_size */
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_rsp_base(&r, 1);
	raw_chunks(&r, 0, 1);
	put64(buf + r.len - 16, 0xffffffffffff0000ULL);	/* addr + len wraps */
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	put64(buf + r.len - 16, 0xffffffffffff0000ULL - CSIZE);
	CHECK_EQ(parse(raw_end(&r), &out), 0);

	/* Bad entry sizes and a value that is not a whole number of entries. */
	raw_rsp_base(&r, 1);
	raw_chunks_len(&r, 0, 1, 16, CSIZE);
	put16(buf + r.len - 16 - 2, 8);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	put16(buf + r.len - 16 - 2, 0);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	put16(buf + r.len - 16 - 2, 20);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_rsp_base(&r, 1);
	raw_chunks_len(&r, 0, 1, 20, CSIZE);	/* whole, but not 8-aligned */
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	raw_rsp_base(&r, 2);
	raw_chunks_len(&r, 0, 2, 24, CSIZE);
	put16(buf + r.len - 48 - 2, 16);	/* 48 bytes = 3 entries of 16 */
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	put16(buf + r.len - 48 - 2, 32);	/* 48 is not a multiple of 32 */
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);

	/*
	 * Entries shorter than v1's: a parser that still copied 16 bytes per
	 * entry would read past the message, which sits at the very end of an
	 * exactly sized heap buffer so ASan sees it.
	 */
	raw_rsp_base(&r, 2);
	raw_chunks(&r, 0, 1);
	put16(buf + r.len - 16 - 2, 8);
	raw_end(&r);
	{
		u8 *exact = malloc(r.len);

		CHECK(exact);
		if (exact) {
			memcpy(exact, buf, r.len);
			CHECK_EQ(rift_info_parse(exact, r.len, 1, &out, got, 2), -EBADMSG);
			free(exact);
		}
	}

	/* Caller storage too small, or absent. */
	raw_rsp_base(&r, 8);
	raw_chunks(&r, 0, 8);
	raw_end(&r);
	CHECK_EQ(rift_info_parse(buf, r.len, 1, &out, got, 7), -ENOSPC);
	CHECK(out.chunks == got);
	CHECK_EQ(out.nr_chunks, 0);
	CHECK_EQ(rift_info_parse(buf, r.len, 1, &out, NULL, 8), -ENOSPC);
	CHECK_EQ(rift_info_parse(buf, r.len, 1, &out, got, 8), 0);
}

static void test_info_required(void)
{
	static const u16 req[] = { RIFT_TLV_HB_INTERVAL_MS, RIFT_TLV_MAX_IO_SIZE,
				   RIFT_TLV_QUEUE_DEPTH, RIFT_TLV_CHUNK_SIZE,
				   RIFT_TLV_CHUNK_TABLE };
	struct rift_info out;
	unsigned int i;
	struct raw r;

	for (i = 0; i < ARRAY_SIZE(req); i++) {
		raw_hdr(&r, RIFT_INFO_RSP, 24);
		if (req[i] != RIFT_TLV_HB_INTERVAL_MS)
			raw_u32(&r, RIFT_TLV_HB_INTERVAL_MS, 1000);
		if (req[i] != RIFT_TLV_MAX_IO_SIZE)
			raw_u32(&r, RIFT_TLV_MAX_IO_SIZE, MAXIO);
		if (req[i] != RIFT_TLV_QUEUE_DEPTH)
			raw_u32(&r, RIFT_TLV_QUEUE_DEPTH, 1);
		if (req[i] != RIFT_TLV_CHUNK_SIZE)
			raw_u32(&r, RIFT_TLV_CHUNK_SIZE, CSIZE);
		if (req[i] != RIFT_TLV_CHUNK_TABLE)
			raw_chunks(&r, 0, 1);
		CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
	}
	raw_rsp_base(&r, 1);
	raw_chunks(&r, 0, 1);
	CHECK_EQ(parse(raw_end(&r), &out), 0);
	CHECK_EQ(out.hb_missed_max, RIFT_HB_MISSED_DEFAULT);
	CHECK_EQ(out.feat_accepted, 0);

	raw_hdr(&r, RIFT_INFO_REQ, 24);
	raw_u64(&r, RIFT_TLV_FEAT_OFFERED, 1);
	CHECK_EQ(parse(raw_end(&r), &out), -EBADMSG);
}

static void value_case(u16 type, u32 v, int want)
{
	struct rift_info out;
	struct raw r;

	raw_hdr(&r, RIFT_INFO_RSP, 24);
	raw_u32(&r, RIFT_TLV_HB_INTERVAL_MS, type == RIFT_TLV_HB_INTERVAL_MS ? v : 1000);
	raw_u32(&r, RIFT_TLV_MAX_IO_SIZE, type == RIFT_TLV_MAX_IO_SIZE ? v : MAXIO);
	raw_u32(&r, RIFT_TLV_QUEUE_DEPTH, type == RIFT_TLV_QUEUE_DEPTH ? v : 1);
	raw_u32(&r, RIFT_TLV_CHUNK_SIZE, type == RIFT_TLV_CHUNK_SIZE ? v : CSIZE);
	raw_u32(&r, RIFT_TLV_HB_MISSED_MAX, type == RIFT_TLV_HB_MISSED_MAX ? v : 3);
	raw_chunks_len(&r, 0, 1, 16, type == RIFT_TLV_CHUNK_SIZE ? v : CSIZE);
	CHECK_EQ(parse(raw_end(&r), &out), want);
}

static void test_info_values(void)
{
	value_case(RIFT_TLV_HB_INTERVAL_MS, 100, 0);
	value_case(RIFT_TLV_HB_INTERVAL_MS, 99, -EBADMSG);
	value_case(RIFT_TLV_HB_INTERVAL_MS, 60000, 0);
	value_case(RIFT_TLV_HB_INTERVAL_MS, 60001, -EBADMSG);
	value_case(RIFT_TLV_HB_MISSED_MAX, 0, -EBADMSG);
	value_case(RIFT_TLV_HB_MISSED_MAX, 100, 0);
	value_case(RIFT_TLV_HB_MISSED_MAX, 101, -EBADMSG);
	value_case(RIFT_TLV_MAX_IO_SIZE, 0, -EBADMSG);
	value_case(RIFT_TLV_MAX_IO_SIZE, 512, 0);
	value_case(RIFT_TLV_MAX_IO_SIZE, 1000, -EBADMSG);
	value_case(RIFT_TLV_MAX_IO_SIZE, CSIZE - RIFT_CHUNK_HEADROOM, 0);
	value_case(RIFT_TLV_MAX_IO_SIZE, CSIZE - RIFT_CHUNK_HEADROOM + 512, -EBADMSG);
	value_case(RIFT_TLV_MAX_IO_SIZE, 0xfffffe00, -EBADMSG);
	value_case(RIFT_TLV_QUEUE_DEPTH, 0, -EBADMSG);
	value_case(RIFT_TLV_QUEUE_DEPTH, 4097, -EBADMSG);
	value_case(RIFT_TLV_CHUNK_SIZE, 4095, -EBADMSG);
	value_case(RIFT_TLV_CHUNK_SIZE, CSIZE + 100, -EBADMSG);
	value_case(RIFT_TLV_CHUNK_SIZE, RIFT_CHUNK_SIZE_MAX, 0);
	value_case(RIFT_TLV_CHUNK_SIZE, RIFT_CHUNK_SIZE_MAX + 4096, -EBADMSG);
	/* Chunk smaller than max_io_size plus headroom. */
	value_case(RIFT_TLV_CHUNK_SIZE, MAXIO, -EBADMSG);
}

static void test_info_rsp_check(void)
{
	struct rift_con_rsp con = { .version = 1, .queue_depth = 4, .max_io_size = MAXIO,
				    .chunk_size = CSIZE };
	struct rift_info in, out;
	int len;

	make_rsp_info(&in, 4);
	len = rift_info_encode(&in, buf, sizeof(buf));
	CHECK_EQ(parse(len, &out), 0);
	CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_ALWAYS_INVALIDATE, &con), 0);
	/* Accepted but never offered. */
	CHECK_EQ(rift_info_rsp_check(&out, 0, &con), -EBADMSG);
	/* Disagreement with the CM private data. */
	con.queue_depth = 5;
	CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_KNOWN, &con), -EBADMSG);
	con.queue_depth = 4;
	con.chunk_size += 4096;
	CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_KNOWN, &con), -EBADMSG);
	con.chunk_size -= 4096;
	con.max_io_size -= 512;
	CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_KNOWN, &con), -EBADMSG);
	con.max_io_size += 512;
	con.version = 2;
	CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_KNOWN, &con), -EBADMSG);
	con.version = 1;
	CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_KNOWN, &con), 0);

	make_req_info(&in);
	len = rift_info_encode(&in, buf, sizeof(buf));
	CHECK_EQ(parse(len, &out), 0);
	CHECK_EQ(rift_info_rsp_check(&out, RIFT_FEAT_KNOWN, NULL), -EINVAL);
}

static void test_info_encoder(void)
{
	static const u8 junk[1000];
	struct rift_info_builder b;
	struct rift_info in, out;
	int len, cap;

	/* Every capacity short of the message fails cleanly. */
	make_rsp_info(&in, 16);
	len = rift_info_encode(&in, buf, sizeof(buf));
	CHECK(len > 0);
	for (cap = 0; cap < len; cap++)
		CHECK_EQ(rift_info_encode(&in, buf, cap), -EMSGSIZE);
	CHECK_EQ(rift_info_encode(&in, buf, len), len);

	/* Refuses to emit what a peer must reject. */
	make_rsp_info(&in, 16);
	in.nr_chunks = 15;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	/* With memory credits a shorter table is the initial grant... */
	in.feat_accepted |= RIFT_FEAT_CREDITS;
	in.nr_chunks = 2;
	len = rift_info_encode(&in, buf, sizeof(buf));
	CHECK(len > 0);
	CHECK_EQ(rift_info_parse(buf, len, 1, &out, got, RIFT_MAX_QUEUE_DEPTH), 0);
	CHECK_EQ(out.nr_chunks, 2);
	CHECK_EQ(out.queue_depth, 16);
	CHECK_EQ(got[1].rkey, 0x1001);
	/* ...but never below the floor. */
	in.nr_chunks = 1;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_rsp_info(&in, 16);
	chunks[3].len = CSIZE - 4096;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_rsp_info(&in, 16);
	in.feat_accepted = 1ULL << 50;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_rsp_info(&in, 16);
	in.hb_interval_ms = 10;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_rsp_info(&in, 16);
	in.chunks = NULL;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_req_info(&in);
	in.feat_offered = 1ULL << 50;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_req_info(&in);
	in.status = 5;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);
	make_req_info(&in);
	in.version = 0;
	CHECK_EQ(rift_info_encode(&in, buf, sizeof(buf)), -EINVAL);

	/* Builder misuse. */
	memset(&b, 0, sizeof(b));
	CHECK_EQ(rift_info_put(&b, RIFT_TLV_HOST_NAME, "x", 1), -EINVAL);
	CHECK_EQ(rift_info_finish(&b), -EINVAL);
	CHECK_EQ(rift_info_start(&b, buf, 23, RIFT_INFO_REQ, 1, 0), -EMSGSIZE);
	CHECK_EQ(rift_info_start(&b, buf, 64, 7, 1, 0), -EINVAL);
	CHECK_EQ(rift_info_start(&b, buf, 64, RIFT_INFO_REQ, 1, 0), 0);
	CHECK_EQ(rift_info_put(&b, 0, "x", 1), -EINVAL);
	CHECK_EQ(rift_info_put(&b, RIFT_TLV_CRITICAL, "x", 1), -EINVAL);
	CHECK_EQ(rift_info_put(&b, RIFT_TLV_SESS_NAME, NULL, 1), -EINVAL);
	CHECK_EQ(rift_info_put(&b, RIFT_TLV_SESS_NAME, "0123456789abcdef", 16), 0);
	/* 16 bytes left: a 12-byte value pads to exactly that, 13 does not. */
	CHECK_EQ(rift_info_put(&b, 0x300, "0123456789abcdef", 13), -EMSGSIZE);
	CHECK_EQ(rift_info_put(&b, 0x300, "0123456789abcdef", 12), 0);
	CHECK_EQ(rift_info_put(&b, 0x300, NULL, 0), -EMSGSIZE);
	CHECK_EQ(rift_info_finish(&b), 64);
	CHECK_EQ(parse(64, &out), 0);
	CHECK_EQ(out.nr_skipped, 1);

	/* Capacity is clamped to the protocol maximum. */
	CHECK_EQ(rift_info_start(&b, buf, sizeof(buf), RIFT_INFO_REQ, 1, 0), 0);
	CHECK_EQ(b.cap, RIFT_INFO_MAX_LEN);
	while (!rift_info_put(&b, 0x300, junk, sizeof(junk)))
		;
	CHECK(b.len <= RIFT_INFO_MAX_LEN);
	CHECK(b.len > RIFT_INFO_MAX_LEN - 1008);
}

/* Mutated and random inputs: never crash, and success means consistency. */
static void check_success_invariants(const struct rift_info *out)
{
	u32 i;

	CHECK(out->type == RIFT_INFO_REQ || out->type == RIFT_INFO_RSP);
	CHECK(strlen(out->sess_name) <= RIFT_NAME_MAX);
	CHECK(strlen(out->host_name) <= RIFT_NAME_MAX);
	if (out->type == RIFT_INFO_RSP && !out->status) {
		CHECK_EQ(out->nr_chunks, out->queue_depth);
		CHECK(out->max_io_size + RIFT_CHUNK_HEADROOM <= out->chunk_size);
		for (i = 0; i < out->nr_chunks; i++)
			CHECK_EQ(out->chunks[i].len, out->chunk_size);
	}
}

static void test_info_garbage(void)
{
	struct rift_info in, out;
	unsigned int i, j, ok = 0;
	int len;
	u32 l;

	for (i = 0; i < 20000; i++) {
		if (i & 1)
			make_rsp_info(&in, 1 + unit_rand() % 8);
		else
			make_req_info(&in);
		len = rift_info_encode(&in, buf, sizeof(buf));
		for (j = 0; j < 1 + unit_rand() % 4; j++)
			buf[unit_rand() % len] ^= 1 << (unit_rand() % 8);
		l = unit_rand() % 4 ? (u32)len : unit_rand() % (len + 16);
		if (!parse(l, &out)) {
			ok++;
			check_success_invariants(&out);
		}
	}
	/* Some flips land in names, rkeys or padding and stay valid. */
	CHECK(ok > 100);

	for (i = 0; i < 20000; i++) {
		l = unit_rand() % 512;
		for (j = 0; j < l; j++)
			buf[j] = unit_rand();
		if (i & 1) {
			memcpy(buf, "RFIN", 4);
			put16(buf + 4, 1 + (i & 2) / 2);
			put16(buf + 6, 1);
			put16(buf + 10, 24);
			put32(buf + 12, l & ~7U);
		}
		CHECK(parse(l, &out) != 0 || (check_success_invariants(&out), 1));
	}
}

const struct unit_test unit_info_tests[] = {
	UNIT(test_info_req_roundtrip),
	UNIT(test_info_rsp_roundtrip),
	UNIT(test_info_truncated),
	UNIT(test_info_total_len),
	UNIT(test_info_header),
	UNIT(test_info_future_peer),
	UNIT(test_info_critical),
	UNIT(test_info_duplicates),
	UNIT(test_info_tlv_bounds),
	UNIT(test_info_names),
	UNIT(test_info_chunk_table),
	UNIT(test_info_required),
	UNIT(test_info_values),
	UNIT(test_info_rsp_check),
	UNIT(test_info_encoder),
	UNIT(test_info_garbage),
	{ NULL, NULL }
};

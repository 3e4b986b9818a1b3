// SPDX-License-Identifier: GPL-2.0
/*
 * IO descriptors: layout, round trips and the validator's defences against
 * peer-controlled lengths and offsets.
 */
#include "unit.h"

#define CHUNK	(132U << 10)
#define MAXIO	(128U << 10)

static const struct rift_io_limits lim = { .chunk_size = CHUNK, .max_io_size = MAXIO };
static u8 chunk[CHUNK];

/* Raw descriptor writer, independent of the encoder under test. */
static void mk_desc(u8 *p, u8 magic, u8 dir, u16 flags, u16 usr_len, u16 nr_segs,
		    u32 data_len, u16 id)
{
	memset(p, 0, 16);
	put8(p, magic);
	put8(p + 1, dir);
	put16(p + 2, flags);
	put16(p + 4, usr_len);
	put16(p + 6, nr_segs);
	put32(p + 8, data_len);
	put16(p + 12, id);
}

static void mk_seg(u8 *p, u64 addr, u32 len, u32 rkey)
{
	put64(p, addr);
	put32(p + 8, len);
	put32(p + 12, rkey);
}

static int decode_at(u8 type, u16 id, u32 off, size_t avail, struct rift_io_req *req,
		     struct rift_rbuf *segs, u32 cap)
{
	struct rift_imm imm = { .type = type, .chunk = id, .desc_off = off };

	return rift_proto_io_desc_decode(&lim, &imm, chunk + (off < CHUNK ? off : 0), avail,
					 req, segs, cap);
}

static u32 align64(u32 v)
{
	return (v + 63) & ~63U;
}

static void test_io_layout(void)
{
	struct rift_io_req req = { .dir = RIFT_IO_WRITE, .usr_len = 32, .data_len = 4096 };
	struct rift_io_limits bad = { .chunk_size = 4096, .max_io_size = 4096 };

	CHECK_EQ(rift_proto_io_layout(&lim, &req), 0);
	CHECK_EQ(req.data_off, 0);
	CHECK_EQ(req.usr_off, 4096);
	CHECK_EQ(req.desc_off, 4160);
	CHECK_EQ(req.desc_len, 16);

	req = (struct rift_io_req){ .dir = RIFT_IO_READ, .usr_len = 65, .data_len = 8192,
				    .nr_segs = 2 };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), 0);
	CHECK_EQ(req.usr_off, 0);
	CHECK_EQ(req.desc_off, 128);
	CHECK_EQ(req.desc_len, 48);

	/* Largest write still fits the headroom. */
	req = (struct rift_io_req){ .dir = RIFT_IO_WRITE, .usr_len = RIFT_USR_LEN_MAX,
				    .data_len = MAXIO };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), 0);
	CHECK(req.desc_off + req.desc_len <= CHUNK);
	req.data_len++;
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);
	req.data_len = MAXIO;
	req.usr_len++;
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);

	/* Largest read descriptor. */
	req = (struct rift_io_req){ .dir = RIFT_IO_READ, .usr_len = RIFT_USR_LEN_MAX,
				    .data_len = MAXIO, .nr_segs = RIFT_IO_MAX_SEGS };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), 0);
	CHECK_EQ(req.desc_len, RIFT_IO_DESC_MAX_LEN);
	req.nr_segs++;
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);

	/* Zero-length rules. */
	req = (struct rift_io_req){ .dir = RIFT_IO_WRITE };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);
	req.usr_len = 1;
	CHECK_EQ(rift_proto_io_layout(&lim, &req), 0);
	CHECK_EQ(req.desc_off, 64);
	req = (struct rift_io_req){ .dir = RIFT_IO_WRITE, .data_len = 1, .nr_segs = 1 };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);
	req = (struct rift_io_req){ .dir = RIFT_IO_READ, .data_len = 0, .nr_segs = 1 };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);
	req = (struct rift_io_req){ .dir = RIFT_IO_READ, .data_len = 512, .nr_segs = 0 };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);
	req = (struct rift_io_req){ .dir = 3, .data_len = 512 };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);
	req = (struct rift_io_req){ .dir = RIFT_IO_WRITE, .data_len = 512, .flags = 1 };
	CHECK_EQ(rift_proto_io_layout(&lim, &req), -EINVAL);

	/* Limits that leave no headroom are refused outright. */
	req = (struct rift_io_req){ .dir = RIFT_IO_WRITE, .data_len = 512 };
	CHECK_EQ(rift_proto_io_layout(&bad, &req), -EINVAL);
}

static void test_io_write_roundtrip(void)
{
	struct rift_io_req req = { .dir = RIFT_IO_WRITE, .chunk = 9, .gen = 0xa55a,
				   .usr_len = 40, .data_len = 12345 }, out;
	struct rift_imm imm = { .type = RIFT_IMM_WRITE, .chunk = 9 }, dimm;
	__be32 raw;
	int len;

	memset(chunk, 0, sizeof(chunk));
	CHECK_EQ(rift_proto_io_layout(&lim, &req), 0);
	len = rift_proto_io_desc_encode(&lim, &req, NULL, chunk + req.desc_off,
					CHUNK - req.desc_off);
	CHECK_EQ(len, 16);
	CHECK_EQ(chunk[req.desc_off], RIFT_IO_DESC_MAGIC);
	CHECK_EQ(chunk[req.desc_off + 1], RIFT_IO_WRITE);
	CHECK_EQ(get16(chunk + req.desc_off + 4), 40);
	CHECK_EQ(get32(chunk + req.desc_off + 8), 12345);
	CHECK_EQ(get16(chunk + req.desc_off + 12), 9);
	/* The generation sits in the last two bytes, little endian. */
	CHECK_EQ(get16(chunk + req.desc_off + 14), 0xa55a);

	/* The whole path: immediate on the wire, then the descriptor. */
	imm.desc_off = req.desc_off;
	CHECK_EQ(rift_imm_encode(&imm, &raw), 0);
	CHECK_EQ(rift_imm_decode(raw, 16, &dimm), 0);
	CHECK_EQ(rift_proto_io_desc_decode(&lim, &dimm, chunk + dimm.desc_off,
					   CHUNK - dimm.desc_off, &out, NULL, 0), 0);
	CHECK(!memcmp(&req, &out, sizeof(req)));
	/* Exactly the descriptor's bytes are enough. */
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 9, req.desc_off, 16, &out, NULL, 0), 0);

	/* Encoder capacity. */
	CHECK_EQ(rift_proto_io_desc_encode(&lim, &req, NULL, chunk, 15), -EMSGSIZE);
}

static void test_io_read_roundtrip(void)
{
	struct rift_rbuf segs[RIFT_IO_MAX_SEGS], got[RIFT_IO_MAX_SEGS];
	struct rift_io_req req = { .dir = RIFT_IO_READ, .chunk = 4095, .usr_len = 100,
				   .nr_segs = RIFT_IO_MAX_SEGS }, out;
	unsigned int i;
	int len;

	for (i = 0; i < RIFT_IO_MAX_SEGS; i++) {
		segs[i].addr = 0x7f0000000000ULL + i * 0x10000;
		segs[i].len = 1024;
		segs[i].rkey = 0x100 + i;
		req.data_len += 1024;
	}
	memset(chunk, 0, sizeof(chunk));
	CHECK_EQ(rift_proto_io_layout(&lim, &req), 0);
	len = rift_proto_io_desc_encode(&lim, &req, segs, chunk + req.desc_off,
					CHUNK - req.desc_off);
	CHECK_EQ(len, RIFT_IO_DESC_MAX_LEN);
	CHECK_EQ(get32(chunk + req.desc_off + 16 + 8), 1024);

	memset(got, 0, sizeof(got));
	CHECK_EQ(decode_at(RIFT_IMM_READ, 4095, req.desc_off, CHUNK - req.desc_off, &out,
			   got, RIFT_IO_MAX_SEGS), 0);
	CHECK(!memcmp(&req, &out, sizeof(req)));
	CHECK(!memcmp(segs, got, sizeof(segs)));

	/* Caller storage too small is not the peer's fault. */
	CHECK_EQ(decode_at(RIFT_IMM_READ, 4095, req.desc_off, CHUNK - req.desc_off, &out,
			   got, RIFT_IO_MAX_SEGS - 1), -ENOSPC);

	/* Every truncation of the descriptor is refused. */
	for (i = 0; i < (unsigned int)len; i++)
		CHECK_EQ(decode_at(RIFT_IMM_READ, 4095, req.desc_off, i, &out, got,
				   RIFT_IO_MAX_SEGS), -EBADMSG);

	/* Encoder refuses inconsistent segments. */
	segs[3].len = 0;
	CHECK_EQ(rift_proto_io_desc_encode(&lim, &req, segs, chunk + req.desc_off,
					   CHUNK - req.desc_off), -EINVAL);
	segs[3].len = 1023;
	CHECK_EQ(rift_proto_io_desc_encode(&lim, &req, segs, chunk + req.desc_off,
					   CHUNK - req.desc_off), -EINVAL);
}

/*
 * The bug class where a server trusts a peer's usr_len and computes
 * "desc_off - usr_len" (or similar), underflowing into a huge length.  The
 * naive server arithmetic is replayed for every descriptor the validator
 * accepts, across a grid of hostile combinations; any acceptance that lets
 * it wrap fails the test, as does refusing an honest request.
 */
static void test_io_usr_len_underflow(void)
{
	static const u32 usrs[] = { 0, 1, 63, 64, 65, 100, 511, 512, 513, 1000, 4096, 65535 };
	static const u32 datas[] = { 0, 1, 64, 512, 4095, 4096, MAXIO - 1, MAXIO, MAXIO + 1,
				     CHUNK, 0x7fffffff, 0xffffffc0, 0xffffffff };
	struct rift_io_req out;
	unsigned int u, d, accepted = 0, expected_ok = 0;
	u32 off, want, naive_end;
	int k, ret;

	for (u = 0; u < ARRAY_SIZE(usrs); u++) {
		for (d = 0; d < ARRAY_SIZE(datas); d++) {
			bool honest = usrs[u] <= RIFT_USR_LEN_MAX && datas[d] <= MAXIO &&
				      (usrs[u] || datas[d]);

			want = align64((u32)(datas[d] + usrs[u]));
			for (k = -3; k <= 3; k++) {
				off = want + k * 64;
				if ((int)off < 0 || off > CHUNK - 16)
					continue;
				mk_desc(chunk + off, RIFT_IO_DESC_MAGIC, RIFT_IO_WRITE, 0,
					usrs[u], 0, datas[d], 1);
				ret = decode_at(RIFT_IMM_WRITE, 1, off, CHUNK - off, &out,
						NULL, 0);
				if (honest && k == 0) {
					expected_ok++;
					CHECK_EQ(ret, 0);
				} else {
					CHECK_EQ(ret, -EBADMSG);
				}
				if (ret)
					continue;
				accepted++;
				/* What a careless server would compute. */
				naive_end = out.desc_off - out.usr_len;
				CHECK(naive_end <= out.desc_off);
				CHECK(naive_end >= out.data_len);
				CHECK(out.usr_off + out.usr_len <= out.desc_off);
				CHECK(out.data_off + out.data_len <= out.usr_off);
				CHECK(out.desc_off + out.desc_len <= CHUNK);
			}
		}
	}
	CHECK(expected_ok > 20);
	CHECK_EQ(accepted, expected_ok);

	/* The textbook case: usr_len larger than everything before the desc. */
	mk_desc(chunk + 64, RIFT_IO_DESC_MAGIC, RIFT_IO_WRITE, 0, 512, 0, 0, 1);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 1, 64, CHUNK - 64, &out, NULL, 0), -EBADMSG);
	mk_desc(chunk, RIFT_IO_DESC_MAGIC, RIFT_IO_READ, 0, 100, 1, 512, 1);
	mk_seg(chunk + 16, 0x1000, 512, 1);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 1, 0, CHUNK, &out, NULL, 1), -EBADMSG);
}

static void test_io_overflow(void)
{
	static const struct rift_io_limits big = { .chunk_size = RIFT_CHUNK_SIZE_MAX,
						   .max_io_size = RIFT_CHUNK_SIZE_MAX -
								  RIFT_CHUNK_HEADROOM };
	struct rift_imm imm = { .type = RIFT_IMM_WRITE, .chunk = 0 };
	struct rift_io_req out;

	/* data_len + usr_len wraps to a small, "valid-looking" offset. */
	mk_desc(chunk, RIFT_IO_DESC_MAGIC, RIFT_IO_WRITE, 0, 0x80, 0, 0xffffffc0, 0);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 0, 64, CHUNK - 64, &out, NULL, 0), -EBADMSG);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 0, 0, CHUNK, &out, NULL, 0), -EBADMSG);
	/* Even with the largest limits the protocol allows. */
	imm.desc_off = 64;
	CHECK_EQ(rift_proto_io_desc_decode(&big, &imm, chunk, 64, &out, NULL, 0), -EBADMSG);
	imm.desc_off = 0;
	CHECK_EQ(rift_proto_io_desc_decode(&big, &imm, chunk, 64, &out, NULL, 0), -EBADMSG);
	CHECK_EQ(out.data_len, 0);

	/* Layout arithmetic itself refuses wrapping sums. */
	out = (struct rift_io_req){ .dir = RIFT_IO_WRITE, .usr_len = 0xffff,
				    .data_len = 0xffffffff };
	CHECK_EQ(rift_proto_io_layout(&big, &out), -EINVAL);
}

static void test_io_desc_position(void)
{
	struct rift_io_req out;
	struct rift_imm imm = { .type = RIFT_IMM_WRITE, .chunk = 0 };

	/* Offsets at or past the end of the chunk. */
	imm.desc_off = CHUNK;
	CHECK_EQ(rift_proto_io_desc_decode(&lim, &imm, chunk, 16, &out, NULL, 0), -EBADMSG);
	imm.desc_off = CHUNK + 64;
	CHECK_EQ(rift_proto_io_desc_decode(&lim, &imm, chunk, 16, &out, NULL, 0), -EBADMSG);
	imm.desc_off = 65535U * 64;
	CHECK_EQ(rift_proto_io_desc_decode(&lim, &imm, chunk, 16, &out, NULL, 0), -EBADMSG);
	/* Misaligned offsets cannot come from the immediate but are refused. */
	imm.desc_off = 96;
	CHECK_EQ(rift_proto_io_desc_decode(&lim, &imm, chunk, 16, &out, NULL, 0), -EBADMSG);
	/* The caller may not claim more bytes than the chunk has left. */
	imm.desc_off = CHUNK - 64;
	CHECK_EQ(rift_proto_io_desc_decode(&lim, &imm, chunk + CHUNK - 64, 65, &out, NULL, 0),
		 -EINVAL);
	/* Wrong immediate type is a caller bug. */
	imm.type = RIFT_IMM_RSP;
	CHECK_EQ(rift_proto_io_desc_decode(&lim, &imm, chunk, 16, &out, NULL, 0), -EINVAL);
	imm.type = RIFT_IMM_WRITE;
	imm.desc_off = 0;
	CHECK_EQ(rift_proto_io_desc_decode(&lim, &imm, NULL, 16, &out, NULL, 0), -EINVAL);

	/* Descriptor at the very end of a chunk holding a max-size write. */
	mk_desc(chunk + align64(MAXIO + 512), RIFT_IO_DESC_MAGIC, RIFT_IO_WRITE, 0, 512, 0,
		MAXIO, 0);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 0, align64(MAXIO + 512), 16, &out, NULL, 0), 0);
}

static void test_io_header_fields(void)
{
	struct rift_io_req out;

	mk_desc(chunk + 64, RIFT_IO_DESC_MAGIC, RIFT_IO_WRITE, 0, 0, 0, 64, 5);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 5, 64, 64, &out, NULL, 0), 0);
	/* Written into one chunk, announced for another. */
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 6, 64, 64, &out, NULL, 0), -EBADMSG);
	/* Immediate says READ, descriptor says WRITE. */
	CHECK_EQ(decode_at(RIFT_IMM_READ, 5, 64, 64, &out, NULL, 0), -EBADMSG);
	mk_desc(chunk + 64, 0xa2, RIFT_IO_WRITE, 0, 0, 0, 64, 5);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 5, 64, 64, &out, NULL, 0), -EBADMSG);
	mk_desc(chunk + 64, RIFT_IO_DESC_MAGIC, RIFT_IO_WRITE, 0x8000, 0, 0, 64, 5);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 5, 64, 64, &out, NULL, 0), -EBADMSG);
	mk_desc(chunk + 64, RIFT_IO_DESC_MAGIC, 0, 0, 0, 0, 64, 5);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 5, 64, 64, &out, NULL, 0), -EBADMSG);
	/* Writes carry no segments. */
	mk_desc(chunk + 64, RIFT_IO_DESC_MAGIC, RIFT_IO_WRITE, 0, 0, 1, 64, 5);
	mk_seg(chunk + 80, 0, 64, 0);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 5, 64, 64, &out, NULL, 1), -EBADMSG);
	/*
	 * The former reserved bytes are the generation: any value decodes
	 * (a peer without CANCEL_GEN may send anything; the server then
	 * ignores it).
	 */
	mk_desc(chunk + 64, RIFT_IO_DESC_MAGIC, RIFT_IO_WRITE, 0, 0, 0, 64, 5);
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 5, 64, 64, &out, NULL, 0), 0);
	CHECK_EQ(out.gen, 0);
	chunk[64 + 14] = 0xfe;
	chunk[64 + 15] = 0xff;
	CHECK_EQ(decode_at(RIFT_IMM_WRITE, 5, 64, 64, &out, NULL, 0), 0);
	CHECK_EQ(out.gen, 0xfffe);
	/* Every truncation of a write descriptor. */
	for (int i = 0; i < 16; i++)
		CHECK_EQ(decode_at(RIFT_IMM_WRITE, 5, 64, i, &out, NULL, 0), -EBADMSG);
}

static void read_desc(u16 nr_segs, u32 data_len)
{
	mk_desc(chunk, RIFT_IO_DESC_MAGIC, RIFT_IO_READ, 0, 0, nr_segs, data_len, 2);
}

static void test_io_segments(void)
{
	struct rift_rbuf segs[RIFT_IO_MAX_SEGS];
	struct rift_io_req out;

	read_desc(2, 8192);
	mk_seg(chunk + 16, 0x10000, 4096, 1);
	mk_seg(chunk + 32, 0x30000, 4096, 2);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), 0);
	CHECK_EQ(segs[1].addr, 0x30000);
	CHECK_EQ(segs[1].rkey, 2);

	/* Segment list runs past what is available. */
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 47, &out, segs, 2), -EBADMSG);
	read_desc(3, 8192);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 3), -EBADMSG);
	/* More segments than the protocol allows, however much room. */
	read_desc(RIFT_IO_MAX_SEGS + 1, 8192);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, CHUNK, &out, segs, RIFT_IO_MAX_SEGS),
		 -EBADMSG);
	read_desc(0xffff, 8192);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, CHUNK, &out, segs, RIFT_IO_MAX_SEGS),
		 -EBADMSG);

	/* Sum mismatch in both directions. */
	read_desc(2, 8193);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), -EBADMSG);
	read_desc(2, 8191);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), -EBADMSG);

	/* Sum that only matches after wrapping 32 bits. */
	read_desc(2, 4096);
	mk_seg(chunk + 16, 0x10000, 0xffffffff, 1);
	mk_seg(chunk + 32, 0x30000, 0x1001, 2);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), -EBADMSG);

	/* Zero-length segment. */
	read_desc(2, 4096);
	mk_seg(chunk + 16, 0x10000, 0, 1);
	mk_seg(chunk + 32, 0x30000, 4096, 2);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), -EBADMSG);

	/* Segment wrapping the address space. */
	read_desc(1, 8192);
	mk_seg(chunk + 16, 0xfffffffffffff000ULL, 8192, 1);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), -EBADMSG);
	/* addr + len must be representable, so the very last page is refused... */
	mk_seg(chunk + 16, 0xffffffffffffe000ULL, 8192, 1);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), -EBADMSG);
	mk_seg(chunk + 16, 0xffffffffffffd000ULL, 8192, 1);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), 0);

	/* Read larger than max_io_size even if the segments agree. */
	read_desc(1, MAXIO + 512);
	mk_seg(chunk + 16, 0x10000, MAXIO + 512, 1);
	CHECK_EQ(decode_at(RIFT_IMM_READ, 2, 0, 48, &out, segs, 2), -EBADMSG);
}

/*
 * Spray random descriptors at random offsets; whatever the validator
 * accepts must satisfy the invariants callers rely on.
 */
static void test_io_random(void)
{
	struct rift_rbuf segs[RIFT_IO_MAX_SEGS];
	struct rift_io_req out;
	unsigned int i, j, ok = 0;
	u32 off, avail, sum;
	u8 type;

	for (i = 0; i < 100000; i++) {
		u32 r = unit_rand();
		u16 usr = r & 1 ? unit_rand() % 700 : unit_rand();
		u16 nsegs = r & 2 ? unit_rand() % 4 : unit_rand();
		u32 dlen = r & 4 ? unit_rand() % 9000 : unit_rand();

		type = r & 8 ? RIFT_IMM_READ : RIFT_IMM_WRITE;
		off = r & 16 ? align64(dlen + usr) : (unit_rand() % 0x10000) * 64;
		if (type == RIFT_IMM_READ && r & 32)
			off = align64(usr);
		if (off >= CHUNK - 16)
			continue;
		mk_desc(chunk + off, RIFT_IO_DESC_MAGIC,
			type == RIFT_IMM_READ ? RIFT_IO_READ : RIFT_IO_WRITE, 0, usr, nsegs,
			dlen, 3);
		for (j = 0; j < 4 && off + 16 + (j + 1) * 16 <= CHUNK; j++)
			mk_seg(chunk + off + 16 + j * 16, unit_rand(),
			       r & 64 ? dlen / (nsegs ? nsegs : 1) : unit_rand() % 5000, 7);
		avail = r & 128 ? CHUNK - off : unit_rand() % (CHUNK - off + 1);
		if (decode_at(type, 3, off, avail, &out, segs, RIFT_IO_MAX_SEGS))
			continue;
		ok++;
		CHECK_EQ(out.desc_off, off);
		CHECK(out.desc_len <= avail);
		CHECK(out.desc_off + out.desc_len <= CHUNK);
		CHECK(out.usr_off + out.usr_len <= out.desc_off);
		CHECK(out.usr_len <= RIFT_USR_LEN_MAX);
		CHECK(out.data_len <= MAXIO);
		if (out.dir == RIFT_IO_WRITE) {
			CHECK(out.data_off + out.data_len <= out.usr_off);
			CHECK_EQ(out.nr_segs, 0);
		} else {
			CHECK(out.nr_segs >= 1 && out.nr_segs <= RIFT_IO_MAX_SEGS);
			for (j = 0, sum = 0; j < out.nr_segs; j++) {
				CHECK(segs[j].len);
				sum += segs[j].len;
			}
			CHECK_EQ(sum, out.data_len);
		}
	}
	CHECK(ok > 1000);
}

const struct unit_test unit_io_tests[] = {
	UNIT(test_io_layout),
	UNIT(test_io_write_roundtrip),
	UNIT(test_io_read_roundtrip),
	UNIT(test_io_usr_len_underflow),
	UNIT(test_io_overflow),
	UNIT(test_io_desc_position),
	UNIT(test_io_header_fields),
	UNIT(test_io_segments),
	UNIT(test_io_random),
	{ NULL, NULL }
};

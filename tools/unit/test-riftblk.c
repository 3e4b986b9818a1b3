// SPDX-License-Identifier: GPL-2.0
/*
 * riftblk: the message codec (riftblk/riftblk-proto.c) and the
 * map_device grammar (riftblk/riftblk-args.c).
 */
#include <riftblk/riftblk-proto.h>
#include <riftblk/riftblk-args.h>

#include "unit.h"

static const struct riftblk_dev_info good_info = {
	.dev_id = 7, .access_mode = RIFTBLK_ACCESS_RW, .nr_sectors = 1 << 21,
	.logical_block_size = 512, .physical_block_size = 4096, .io_min = 4096,
	.io_opt = 65536, .max_hw_sectors = 2560, .max_discard_sectors = 1 << 20,
	.discard_granularity = 4096, .max_write_zeroes_sectors = 1 << 16,
	.caps = RIFTBLK_CAP_WRITE_CACHE | RIFTBLK_CAP_FUA,
};

static void test_riftblk_layout(void)
{
	u8 buf[512];
	struct riftblk_io io = { .dev_id = 0x01020304, .op = RIFTBLK_OP_WRITE,
				 .flags = RIFTBLK_IO_F_FUA, .len = 4096,
				 .sector = 0x1122334455ULL };

	CHECK_EQ(riftblk_io_encode(&io, buf, sizeof(buf)), 40);
	/* "RBLK", type, version 1, length, then the IO fields. */
	CHECK(!memcmp(buf, "RBLK", 4));
	CHECK_EQ(get16(buf + 4), RIFTBLK_MSG_IO);
	CHECK_EQ(get16(buf + 6), 1);
	CHECK_EQ(get16(buf + 8), 40);
	CHECK_EQ(get16(buf + 10), 0);
	CHECK_EQ(get32(buf + 12), 0);
	CHECK_EQ(get32(buf + 16), 0x01020304);
	CHECK_EQ(get16(buf + 20), RIFTBLK_OP_WRITE);
	CHECK_EQ(get16(buf + 22), RIFTBLK_IO_F_FUA);
	CHECK_EQ(get32(buf + 24), 4096);
	CHECK_EQ(get32(buf + 32), 0x22334455);
	CHECK_EQ(get32(buf + 36), 0x11);
}

static void test_riftblk_open(void)
{
	struct riftblk_open in = { .access_mode = RIFTBLK_ACCESS_RO }, out;
	u8 buf[RIFT_USR_LEN_MAX];
	int len, l;

	strcpy(in.path, "/dev/nullb0");
	len = riftblk_open_encode(&in, buf, sizeof(buf));
	CHECK_EQ(len, (int)sizeof(struct riftblk_wire_open));
	CHECK_EQ(riftblk_open_decode(buf, len, &out), 0);
	CHECK(!strcmp(out.path, "/dev/nullb0"));
	CHECK_EQ(out.access_mode, RIFTBLK_ACCESS_RO);
	CHECK_EQ(out.version, 1);
	/* Every truncation is refused. */
	for (l = 0; l < len; l++)
		CHECK_EQ(riftblk_open_decode(buf, l, &out), -EBADMSG);
	/* A longer message of a newer version: the excess is ignored. */
	put16(buf + 6, 2);
	put16(buf + 8, len + 100);
	memset(buf + len, 0xee, 100);
	CHECK_EQ(riftblk_open_decode(buf, len + 100, &out), 0);
	CHECK_EQ(out.version, 2);
	/* ... but not if it claims more than was received. */
	CHECK_EQ(riftblk_open_decode(buf, len + 99, &out), -EBADMSG);
	put16(buf + 8, len);
	/* Reserved fields are ignored. */
	put32(buf + 12, 0xffffffff);
	put32(buf + 20, 0xffffffff);
	CHECK_EQ(riftblk_open_decode(buf, len, &out), 0);
	/* Bad mode, bad path lengths, bytes a path may not hold. */
	put16(buf + 16, RIFTBLK_ACCESS_NR);
	CHECK_EQ(riftblk_open_decode(buf, len, &out), -EBADMSG);
	put16(buf + 16, RIFTBLK_ACCESS_RW);
	put16(buf + 18, 0);
	CHECK_EQ(riftblk_open_decode(buf, len, &out), -EBADMSG);
	put16(buf + 18, RIFTBLK_PATH_MAX);
	CHECK_EQ(riftblk_open_decode(buf, len, &out), -EBADMSG);
	put16(buf + 18, 12);	/* takes in the NUL */
	CHECK_EQ(riftblk_open_decode(buf, len, &out), -EBADMSG);
	put16(buf + 18, 11);
	buf[32 + 4] = ' ';
	CHECK_EQ(riftblk_open_decode(buf, len, &out), -EBADMSG);
	CHECK_EQ(out.path[0], 0);
	buf[32 + 4] = 'n';
	CHECK_EQ(riftblk_open_decode(buf, len, &out), 0);
	/* Wrong type, magic, zero version. */
	put16(buf + 4, RIFTBLK_MSG_CLOSE);
	CHECK_EQ(riftblk_open_decode(buf, len, &out), -EPROTO);
	put16(buf + 4, RIFTBLK_MSG_OPEN);
	buf[0] ^= 1;
	CHECK_EQ(riftblk_open_decode(buf, len, &out), -EBADMSG);
	buf[0] ^= 1;
	put16(buf + 6, 0);
	CHECK_EQ(riftblk_open_decode(buf, len, &out), -EBADMSG);
	/* Encoder refuses what a decoder would. */
	in.path[0] = '\0';
	CHECK_EQ(riftblk_open_encode(&in, buf, sizeof(buf)), -EINVAL);
	strcpy(in.path, "a b");
	CHECK_EQ(riftblk_open_encode(&in, buf, sizeof(buf)), -EINVAL);
	strcpy(in.path, "x");
	CHECK_EQ(riftblk_open_encode(&in, buf, len - 1), -EMSGSIZE);
	in.access_mode = 9;
	CHECK_EQ(riftblk_open_encode(&in, buf, sizeof(buf)), -EINVAL);
}

static void test_riftblk_dev_info(void)
{
	struct riftblk_dev_info in = good_info, out;
	u8 buf[RIFTBLK_RSP_BUF_LEN];
	int len;

	len = riftblk_dev_info_encode(RIFTBLK_MSG_OPEN_RSP, &in, buf, sizeof(buf));
	CHECK_EQ(len, 96);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_OPEN_RSP, buf, sizeof(buf), &out), 0);
	out.version = 0;
	CHECK(!memcmp(&in, &out, sizeof(in)));
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, sizeof(buf), &out),
		 -EPROTO);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_OPEN_RSP, buf, len - 1, &out),
		 -EBADMSG);
	/* Unknown capability bits are hints: dropped, not refused. */
	put32(buf + 68, 0xffffffff);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_OPEN_RSP, buf, len, &out), 0);
	CHECK_EQ(out.caps, RIFTBLK_CAP_KNOWN);

	in.logical_block_size = 1000;
	CHECK_EQ(riftblk_dev_info_encode(RIFTBLK_MSG_OPEN_RSP, &in, buf, sizeof(buf)),
		 -EINVAL);
	/* Values a hostile server might send, each refused. */
	len = riftblk_dev_info_encode(RIFTBLK_MSG_INFO_RSP, &good_info, buf, sizeof(buf));
	CHECK_EQ(len, 96);
	put32(buf + 32, 8192);	/* lbs over the maximum */
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	CHECK_EQ(out.nr_sectors, 0);
	put32(buf + 32, 256);	/* under the minimum */
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 32, 4096);
	put32(buf + 36, 512);	/* pbs < lbs */
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 36, 4096);
	put64(buf + 24, 9);	/* not whole logical blocks */
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put64(buf + 24, ~0ULL & ~7ULL);	/* bytes overflow */
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put64(buf + 24, 8);
	put16(buf + 20, 3);	/* mode */
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put16(buf + 20, 0);
	put32(buf + 48, 0);	/* max_hw_sectors below a block */
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 48, 8);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), 0);
	CHECK_EQ(out.logical_block_size, 4096);
	/* io_min and io_opt: whole blocks, not beyond RIFTBLK_IO_HINT_MAX. */
	put32(buf + 40, 4096 + 512);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 40, 4096);
	put32(buf + 44, 0x80000000U);	/* readahead = 2 * io_opt overflows */
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 44, RIFTBLK_IO_HINT_MAX + 4096);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 44, RIFTBLK_IO_HINT_MAX);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), 0);
	/*
	 * Discard granularity: the review's hang value, one not a power of
	 * two, one below a block; with discard off it is not used.
	 */
	put32(buf + 56, 0xfffffe01U);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 56, 3 * 4096);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 56, 2048);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 56, RIFTBLK_DISCARD_GRAN_MAX << 1);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), -EBADMSG);
	put32(buf + 52, 0);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), 0);
	put32(buf + 52, 1 << 20);
	put32(buf + 56, 8192);
	CHECK_EQ(riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, len, &out), 0);
	CHECK_EQ(out.discard_granularity, 8192);
}

static void test_riftblk_dev_msg(void)
{
	u8 buf[64];
	u32 id;

	CHECK_EQ(riftblk_dev_encode(RIFTBLK_MSG_CLOSE, 42, buf, sizeof(buf)), 24);
	CHECK_EQ(riftblk_dev_decode(RIFTBLK_MSG_CLOSE, buf, 24, &id), 0);
	CHECK_EQ(id, 42);
	CHECK_EQ(riftblk_dev_decode(RIFTBLK_MSG_INFO, buf, 24, &id), -EPROTO);
	CHECK_EQ(riftblk_dev_decode(RIFTBLK_MSG_CLOSE, buf, 23, &id), -EBADMSG);
	CHECK_EQ(riftblk_dev_decode(RIFTBLK_MSG_IO, buf, 24, &id), -EINVAL);
	CHECK_EQ(riftblk_dev_encode(RIFTBLK_MSG_OPEN, 1, buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(riftblk_dev_encode(RIFTBLK_MSG_INFO, 1, buf, 23), -EMSGSIZE);
	/* A header claiming less than the type's size. */
	CHECK_EQ(riftblk_dev_encode(RIFTBLK_MSG_INFO, 1, buf, sizeof(buf)), 24);
	put16(buf + 8, 20);
	CHECK_EQ(riftblk_dev_decode(RIFTBLK_MSG_INFO, buf, 24, &id), -EBADMSG);
}

static void test_riftblk_io(void)
{
	struct riftblk_io in = { .dev_id = 3, .op = RIFTBLK_OP_READ, .len = 65536,
				 .sector = 2048 }, out;
	u8 buf[64];
	int len, i;

	len = riftblk_io_encode(&in, buf, sizeof(buf));
	CHECK_EQ(len, 40);
	CHECK_EQ(riftblk_io_decode(buf, len, &out), 0);
	CHECK(!memcmp(&in, &out, sizeof(in)));

	/* Unknown op or flag: not understood, so not done. */
	put16(buf + 20, RIFTBLK_OP_NR);
	CHECK_EQ(riftblk_io_decode(buf, len, &out), -EOPNOTSUPP);
	put16(buf + 20, 0);
	CHECK_EQ(riftblk_io_decode(buf, len, &out), -EOPNOTSUPP);
	put16(buf + 20, RIFTBLK_OP_READ);
	put16(buf + 22, 0x80);
	CHECK_EQ(riftblk_io_decode(buf, len, &out), -EOPNOTSUPP);
	put16(buf + 22, 0);
	/* Lengths: whole sectors, not zero, no wrap. */
	put32(buf + 24, 513);
	CHECK_EQ(riftblk_io_decode(buf, len, &out), -EBADMSG);
	put32(buf + 24, 0);
	CHECK_EQ(riftblk_io_decode(buf, len, &out), -EBADMSG);
	put32(buf + 24, 1024);
	put64(buf + 32, ~0ULL >> 9);
	CHECK_EQ(riftblk_io_decode(buf, len, &out), -EBADMSG);
	put64(buf + 32, (~0ULL >> 9) - 2);
	CHECK_EQ(riftblk_io_decode(buf, len, &out), 0);

	/* A flush carries nothing. */
	in = (struct riftblk_io){ .op = RIFTBLK_OP_FLUSH };
	CHECK_EQ(riftblk_io_encode(&in, buf, sizeof(buf)), 40);
	CHECK_EQ(riftblk_io_decode(buf, 40, &out), 0);
	in.len = 512;
	CHECK_EQ(riftblk_io_encode(&in, buf, sizeof(buf)), -EINVAL);
	in = (struct riftblk_io){ .op = RIFTBLK_OP_FLUSH, .flags = RIFTBLK_IO_F_FUA };
	CHECK_EQ(riftblk_io_encode(&in, buf, sizeof(buf)), -EINVAL);
	/* NOUNMAP only for write zeroes. */
	in = (struct riftblk_io){ .op = RIFTBLK_OP_WRITE_ZEROES, .len = 1 << 20,
				  .flags = RIFTBLK_IO_F_NOUNMAP };
	CHECK_EQ(riftblk_io_encode(&in, buf, sizeof(buf)), 40);
	CHECK_EQ(riftblk_io_decode(buf, 40, &out), 0);
	CHECK_EQ(out.flags, RIFTBLK_IO_F_NOUNMAP);
	in.op = RIFTBLK_OP_DISCARD;
	CHECK_EQ(riftblk_io_encode(&in, buf, sizeof(buf)), -EINVAL);
	in.flags = 0;
	CHECK_EQ(riftblk_io_encode(&in, buf, 39), -EMSGSIZE);

	/* FUA and PREFLUSH qualify writes only: decoded from hostile bytes. */
	in = (struct riftblk_io){ .op = RIFTBLK_OP_WRITE, .len = 4096,
				  .flags = RIFTBLK_IO_F_FUA | RIFTBLK_IO_F_PREFLUSH };
	CHECK_EQ(riftblk_io_encode(&in, buf, sizeof(buf)), 40);
	CHECK_EQ(riftblk_io_decode(buf, 40, &out), 0);
	for (i = 0; i < 4; i++) {
		static const u16 ops[] = { RIFTBLK_OP_READ, RIFTBLK_OP_DISCARD,
					   RIFTBLK_OP_WRITE_ZEROES,
					   RIFTBLK_OP_SECURE_ERASE };

		put16(buf + 20, ops[i]);
		put16(buf + 22, RIFTBLK_IO_F_FUA);
		CHECK_EQ(riftblk_io_decode(buf, 40, &out), -EBADMSG);
		put16(buf + 22, RIFTBLK_IO_F_PREFLUSH);
		CHECK_EQ(riftblk_io_decode(buf, 40, &out), -EBADMSG);
	}
	in = (struct riftblk_io){ .op = RIFTBLK_OP_READ, .len = 4096,
				  .flags = RIFTBLK_IO_F_FUA };
	CHECK_EQ(riftblk_io_encode(&in, buf, sizeof(buf)), -EINVAL);
}

static void test_riftblk_random(void)
{
	struct riftblk_io io;
	struct riftblk_open open;
	struct riftblk_dev_info info;
	struct riftblk_hdr hdr;
	u8 buf[128];
	u32 id;
	int i, j;

	/* Random bytes behind a valid header: no crash, consistent outputs. */
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < (int)sizeof(buf); j++)
			buf[j] = unit_rand();
		memcpy(buf, "RBLK", 4);
		put16(buf + 4, 1 + unit_rand() % 6);
		put16(buf + 8, 16 + unit_rand() % 120);
		if (!riftblk_io_decode(buf, sizeof(buf), &io)) {
			CHECK(io.op >= RIFTBLK_OP_READ && io.op < RIFTBLK_OP_NR);
			CHECK(!(io.len & 511));
		}
		if (!riftblk_open_decode(buf, sizeof(buf), &open))
			CHECK(strlen(open.path) > 0);
		if (!riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, buf, sizeof(buf), &info))
			CHECK(info.logical_block_size >= 512);
		riftblk_dev_decode(RIFTBLK_MSG_CLOSE, buf, sizeof(buf), &id);
		if (!riftblk_hdr_decode(buf, sizeof(buf), &hdr))
			CHECK(hdr.len <= sizeof(buf) && hdr.len >= 16);
	}
	CHECK(!strcmp(riftblk_access_mode_name(RIFTBLK_ACCESS_MIGRATION), "migration"));
	CHECK(!strcmp(riftblk_access_mode_name(77), "unknown"));
	CHECK_EQ(riftblk_access_mode_parse("ro"), RIFTBLK_ACCESS_RO);
	CHECK_EQ(riftblk_access_mode_parse("RW"), -EINVAL);
}

static int parse(const char *s, struct riftblk_map_args *a, const char **why)
{
	struct riftblk_parse_err e;
	int err = riftblk_parse_map_args(s, strlen(s), a, &e);

	*why = e.why ? e.why : "";
	return err;
}

static void test_riftblk_args_good(void)
{
	struct riftblk_map_args a;
	const char *why;

	CHECK_EQ(parse("sessname=s1 path=1.2.3.4 device_path=/dev/nullb0\n", &a, &why), 0);
	CHECK(!strcmp(a.sessname, "s1"));
	CHECK_EQ(a.nr_paths, 1);
	CHECK(!strcmp(a.paths[0], "1.2.3.4"));
	CHECK(!strcmp(a.device_path, "/dev/nullb0"));
	CHECK_EQ(a.access_mode, RIFTBLK_ACCESS_RW);
	CHECK_EQ(a.port, RIFTBLK_DEFAULT_PORT);
	CHECK_EQ(a.nr_poll_queues, 0);

	CHECK_EQ(parse("\t path=ip:10.0.0.2@ip:10.0.0.1  sessname=a.b-c_d path=fe80::1%eth0@fe80::2%eth0\n"
		       "device_path=nullb1 access_mode=migration port=7000 nr_poll_queues=0",
		       &a, &why), 0);
	CHECK_EQ(a.nr_paths, 2);
	CHECK(!strcmp(a.paths[1], "fe80::1%eth0@fe80::2%eth0"));
	CHECK_EQ(a.access_mode, RIFTBLK_ACCESS_MIGRATION);
	CHECK_EQ(a.port, 7000);
	CHECK(!strcmp(a.device_path, "nullb1"));
	CHECK_EQ(parse("sessname=s path=a path=b path=c path=d path=e path=f path=g path=h device_path=x access_mode=ro nr_poll_queues=256",
		       &a, &why), 0);
	CHECK_EQ(a.nr_paths, 8);
	CHECK_EQ(a.access_mode, RIFTBLK_ACCESS_RO);
	CHECK_EQ(a.nr_poll_queues, 256);
}

static void test_riftblk_args_bad(void)
{
	static const char *const bad[] = {
		"",
		"\n",
		"path=a device_path=x",				/* no sessname */
		"sessname=s device_path=x",			/* no path */
		"sessname=s path=a",				/* no device_path */
		"sessname=s path=a device_path=x bogus=1",	/* unknown key */
		"sessname=s path=a device_path=x Sessname=t",
		"sessname=s sessname=t path=a device_path=x",	/* duplicate */
		"sessname=s path=a device_path=x device_path=y",
		"sessname=s path=a device_path=x access_mode=rw access_mode=ro",
		"sessname=s path=a device_path=x port=1 port=1",
		"sessname= path=a device_path=x",		/* empty value */
		"sessname=s path= device_path=x",
		"sessname=s path=a device_path=",
		"sessname=s path=a device_path=x access_mode",	/* no '=' */
		"sessname=s path=a device_path=x =rw",
		"sessname=s path=a device_path=x access_mode=RW",
		"sessname=s path=a device_path=x access_mode=r",
		"sessname=s path=a device_path=x nr_poll_queues=-1",
		"sessname=s path=a device_path=x nr_poll_queues=257",
		"sessname=s path=a device_path=x nr_poll_queues=1x",
		"sessname=s path=a device_path=x nr_poll_queues=99999999999",
		"sessname=s path=a device_path=x port=0",
		"sessname=s path=a device_path=x port=65536",
		"sessname=s path=a device_path=x port=+1",
		"sessname=a/b path=a device_path=x",		/* invalid name */
		"sessname=.. path=a device_path=x",
		"sessname=s path=a path=b path=c path=d path=e path=f path=g path=h path=i device_path=x",
	};
	struct riftblk_map_args a;
	const char *why;
	char line[5000];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse(bad[i], &a, &why) != -EINVAL)
			printf("    # accepted: '%s'\n", bad[i]);
		CHECK(*why);
	}
	CHECK_EQ(parse("sessname=s path=a device_path=x nr_poll_queues=1x", &a, &why), -EINVAL);
	CHECK(strstr(why, "nr_poll_queues"));
	CHECK_EQ(parse("sessname=s path=a device_path=x bogus=1", &a, &why), -EINVAL);
	CHECK(!strcmp(why, "unknown key"));
	/* Over-long values and lines, a NUL inside. */
	memset(line, 0, sizeof(line));
	strcpy(line, "sessname=s path=a device_path=/");
	memset(line + strlen(line), 'd', RIFTBLK_PATH_MAX);
	CHECK_EQ(parse(line, &a, &why), -EINVAL);
	memset(line, 'x', sizeof(line) - 1);
	memcpy(line, "sessname=", 9);
	line[sizeof(line) - 1] = '\0';
	CHECK_EQ(parse(line, &a, &why), -EINVAL);
	{
		static const char nul[] = "sessname=s path=a\0 device_path=x";
		struct riftblk_parse_err e;

		CHECK_EQ(riftblk_parse_map_args(nul, sizeof(nul) - 1, &a, &e), -EINVAL);
	}
}

/* Secrets: parsed into bytes, and an error never echoes the value. */
static void test_riftblk_args_secret(void)
{
	struct riftblk_map_args a;
	struct riftblk_parse_err e;
	const char *line;
	const char *why;

	CHECK_EQ(parse("sessname=s path=a device_path=x secret=00112233445566778899aabbccddeeff",
		       &a, &why), 0);
	CHECK_EQ(a.secret_len, 16);
	CHECK_EQ(a.secret[15], 0xff);
	CHECK_EQ(a.server_secret_len, 0);
	CHECK_EQ(parse("sessname=s path=a device_path=x secret=00112233445566778899aabbccddeeff "
		       "server_secret=ffeeddccbbaa99887766554433221100", &a, &why), 0);
	CHECK_EQ(a.server_secret_len, 16);
	CHECK_EQ(a.server_secret[0], 0xff);
	/* server_secret alone proves nothing of the client. */
	CHECK_EQ(parse("sessname=s path=a device_path=x server_secret=00112233445566778899aabbccddeeff",
		       &a, &why), -EINVAL);
	line = "sessname=s path=a device_path=x secret=0011223344556677889900zzsecretvalue";
	CHECK_EQ(riftblk_parse_map_args(line, strlen(line), &a, &e), -EINVAL);
	CHECK(!strcmp(e.token, "secret"));
	CHECK(!strstr(e.token, "zz"));
	CHECK_EQ(parse("sessname=s path=a device_path=x secret=0011", &a, &why), -EINVAL);
	CHECK_EQ(parse("sessname=s path=a device_path=x secret=00112233445566778899aabbccddeeff "
		       "secret=00112233445566778899aabbccddeeff", &a, &why), -EINVAL);
}

const struct unit_test unit_riftblk_tests[] = {
	UNIT(test_riftblk_layout),
	UNIT(test_riftblk_open),
	UNIT(test_riftblk_dev_info),
	UNIT(test_riftblk_dev_msg),
	UNIT(test_riftblk_io),
	UNIT(test_riftblk_random),
	UNIT(test_riftblk_args_good),
	UNIT(test_riftblk_args_bad),
	UNIT(test_riftblk_args_secret),
	{ NULL, NULL }
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Writes the riftblk seed corpus with the real encoders, so the seeds
 * follow the codec as it evolves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <riftblk/riftblk-proto.h>

#include "fuzz-riftblk.h"

static const char *dir;
static int nr_seeds;

static void seed(u8 target, const void *msg, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-blk-%u-%02d", dir, target, nr_seeds++);
	f = fopen(path, "wb");
	if (!f || fwrite(&target, 1, 1, f) != 1 ||
	    (len && fwrite(msg, 1, len, f) != len) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static int must(int ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "gen-riftblk: %s failed: %d\n", what, ret);
		exit(1);
	}
	return ret;
}

int main(int argc, char **argv)
{
	static const struct riftblk_io ios[] = {
		{ .dev_id = 1, .op = RIFTBLK_OP_READ, .len = 4096, .sector = 8 },
		{ .dev_id = 2, .op = RIFTBLK_OP_WRITE, .len = 131072, .flags = RIFTBLK_IO_F_FUA },
		{ .op = RIFTBLK_OP_FLUSH },
		{ .op = RIFTBLK_OP_DISCARD, .len = 1 << 20, .sector = 2048 },
		{ .op = RIFTBLK_OP_WRITE_ZEROES, .len = 65536, .flags = RIFTBLK_IO_F_NOUNMAP },
		{ .op = RIFTBLK_OP_SECURE_ERASE, .len = 512 },
	};
	struct riftblk_dev_info info = {
		.dev_id = 3, .access_mode = RIFTBLK_ACCESS_RW, .nr_sectors = 1 << 20,
		.logical_block_size = 512, .physical_block_size = 4096,
		.max_hw_sectors = 256, .max_discard_sectors = 1 << 16,
		.discard_granularity = 4096,
		.caps = RIFTBLK_CAP_WRITE_CACHE,
	};
	struct riftblk_open open = { .access_mode = RIFTBLK_ACCESS_RO };
	static const char args[] =
		"sessname=s1 path=198.18.0.2@198.18.0.1 path=ip:10.0.0.1 device_path=/dev/nullb0 access_mode=migration port=7675 nr_poll_queues=0\n";
	u8 buf[RIFTBLK_RSP_BUF_LEN];
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	for (i = 0; i < sizeof(ios) / sizeof(ios[0]); i++)
		seed(FUZZ_BLK_IO, buf, must(riftblk_io_encode(&ios[i], buf, sizeof(buf)), "io"));
	strcpy(open.path, "/dev/nullb0");
	seed(FUZZ_BLK_OPEN, buf, must(riftblk_open_encode(&open, buf, sizeof(buf)), "open"));
	seed(FUZZ_BLK_DEV_INFO, buf,
	     must(riftblk_dev_info_encode(RIFTBLK_MSG_OPEN_RSP, &info, buf, sizeof(buf)), "info"));
	seed(FUZZ_BLK_DEV, buf,
	     must(riftblk_dev_encode(RIFTBLK_MSG_CLOSE, 9, buf, sizeof(buf)), "close"));
	seed(FUZZ_BLK_ARGS, args, sizeof(args) - 1);
	printf("gen-riftblk: %d seeds in %s\n", nr_seeds, dir);
	return 0;
}

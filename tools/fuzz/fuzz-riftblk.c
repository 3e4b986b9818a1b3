// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over riftblk's decoders and its map_device parser.
 * The first byte picks the target; every successful decode is checked
 * against the invariants the modules rely on, re-encoded and decoded
 * again to prove the two sides agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <riftblk/riftblk-proto.h>
#include <riftblk/riftblk-args.h>

#define FUZZ_ASSERT(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, \
				__FILE__, __LINE__); \
			abort(); \
		} \
	} while (0)

#include "fuzz-riftblk.h"

static u8 out[RIFTBLK_RSP_BUF_LEN];

static void fuzz_io(const u8 *data, size_t size)
{
	struct riftblk_io io, io2;
	int len;

	if (riftblk_io_decode(data, size, &io))
		return;
	FUZZ_ASSERT(io.op >= RIFTBLK_OP_READ && io.op < RIFTBLK_OP_NR);
	FUZZ_ASSERT(!(io.flags & ~RIFTBLK_IO_F_KNOWN));
	FUZZ_ASSERT(!(io.len & 511));
	FUZZ_ASSERT(io.op == RIFTBLK_OP_FLUSH ? !io.len : io.len > 0);
	FUZZ_ASSERT(io.sector + (io.len >> 9) >= io.sector);
	len = riftblk_io_encode(&io, out, sizeof(out));
	FUZZ_ASSERT(len == sizeof(struct riftblk_wire_io));
	FUZZ_ASSERT(!riftblk_io_decode(out, len, &io2));
	FUZZ_ASSERT(!memcmp(&io, &io2, sizeof(io)));
}

static void fuzz_open(const u8 *data, size_t size)
{
	struct riftblk_open o, o2;
	int len;

	if (riftblk_open_decode(data, size, &o))
		return;
	FUZZ_ASSERT(o.access_mode < RIFTBLK_ACCESS_NR);
	FUZZ_ASSERT(strlen(o.path) > 0 && strlen(o.path) < RIFTBLK_PATH_MAX);
	FUZZ_ASSERT(!strchr(o.path, ' '));
	len = riftblk_open_encode(&o, out, sizeof(out));
	FUZZ_ASSERT(len == sizeof(struct riftblk_wire_open));
	FUZZ_ASSERT(!riftblk_open_decode(out, len, &o2));
	o2.version = o.version;
	FUZZ_ASSERT(!memcmp(&o, &o2, sizeof(o)));
}

static void fuzz_dev_info(const u8 *data, size_t size)
{
	struct riftblk_dev_info i, i2;
	int len;

	if (riftblk_dev_info_decode(RIFTBLK_MSG_OPEN_RSP, data, size, &i))
		return;
	FUZZ_ASSERT(i.logical_block_size >= RIFTBLK_LBS_MIN &&
		    i.logical_block_size <= RIFTBLK_LBS_MAX);
	FUZZ_ASSERT(!(i.logical_block_size & (i.logical_block_size - 1)));
	FUZZ_ASSERT(i.physical_block_size >= i.logical_block_size);
	FUZZ_ASSERT(!(i.nr_sectors % (i.logical_block_size >> 9)));
	FUZZ_ASSERT(i.access_mode < RIFTBLK_ACCESS_NR);
	FUZZ_ASSERT(!(i.caps & ~RIFTBLK_CAP_KNOWN));
	len = riftblk_dev_info_encode(RIFTBLK_MSG_OPEN_RSP, &i, out, sizeof(out));
	FUZZ_ASSERT(len == sizeof(struct riftblk_wire_dev_info));
	FUZZ_ASSERT(!riftblk_dev_info_decode(RIFTBLK_MSG_OPEN_RSP, out, len, &i2));
	i2.version = i.version;
	FUZZ_ASSERT(!memcmp(&i, &i2, sizeof(i)));
}

static void fuzz_dev(const u8 *data, size_t size)
{
	u32 id, id2;
	int len;

	if (riftblk_dev_decode(RIFTBLK_MSG_CLOSE, data, size, &id))
		return;
	len = riftblk_dev_encode(RIFTBLK_MSG_CLOSE, id, out, sizeof(out));
	FUZZ_ASSERT(len == sizeof(struct riftblk_wire_dev));
	FUZZ_ASSERT(!riftblk_dev_decode(RIFTBLK_MSG_CLOSE, out, len, &id2) && id == id2);
}

static void fuzz_args(const u8 *data, size_t size)
{
	struct riftblk_map_args a;
	struct riftblk_parse_err e;
	unsigned int i;

	if (riftblk_parse_map_args((const char *)data, size, &a, &e)) {
		FUZZ_ASSERT(e.why && strlen(e.token) < sizeof(e.token));
		return;
	}
	FUZZ_ASSERT(a.nr_paths >= 1 && a.nr_paths <= RIFTBLK_MAX_PATHS);
	FUZZ_ASSERT(a.sessname[0] && a.device_path[0]);
	FUZZ_ASSERT(strlen(a.sessname) <= RIFT_NAME_MAX);
	FUZZ_ASSERT(strlen(a.device_path) < RIFTBLK_PATH_MAX);
	for (i = 0; i < a.nr_paths; i++)
		FUZZ_ASSERT(a.paths[i][0] && strlen(a.paths[i]) < RIFTBLK_ADDR_MAX &&
			    !strchr(a.paths[i], ' '));
	FUZZ_ASSERT(a.access_mode < RIFTBLK_ACCESS_NR && a.port);
	FUZZ_ASSERT(a.nr_poll_queues <= RIFTBLK_MAX_POLL_QUEUES);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	if (!size)
		return 0;
	/* libFuzzer's buffer ends exactly at data + size, so over-reads trap. */
	switch (data[0] % FUZZ_BLK_NR) {
	case FUZZ_BLK_IO:
		fuzz_io(data + 1, size - 1);
		break;
	case FUZZ_BLK_OPEN:
		fuzz_open(data + 1, size - 1);
		break;
	case FUZZ_BLK_DEV_INFO:
		fuzz_dev_info(data + 1, size - 1);
		break;
	case FUZZ_BLK_DEV:
		fuzz_dev(data + 1, size - 1);
		break;
	default:
		fuzz_args(data + 1, size - 1);
		break;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer -B: a hostile riftblk client.
 *
 * Speaks riftblk (Documentation/riftblk-protocol.rst) over the peer's
 * Rift sessions against the kernel's riftblk-server, and breaks it on
 * purpose: handles of other sessions and handles never given out, cache
 * flags on reads and discards, unknown flags, ops and message types, IO
 * beyond the device or wrapping the sector space, lengths that are no
 * whole block, odd and oversized OPEN paths, OPEN/CLOSE loops and
 * sessions that go without closing.  Every case asserts the server's
 * exact errno; selftests/riftblk_hostile.sh runs them while a kernel
 * client's mapping of another device runs verified IO, and checks that
 * nothing is left behind.
 *
 * Messages come from riftblk's own codec (riftblk/riftblk-proto.c); a
 * hostile one starts as a valid encoding whose bytes are then broken.
 *
 * Options: -D DEV, the device the cases map (rw, a 4096-byte logical
 * block, discard, over 4 GiB + 128 MiB: riftblk_hostile.sh makes it);
 * -X DEV:DEV_ID, a device and the handle another (kernel) session maps it
 * under; -R FILE, a file on the server that is no block device; -N N,
 * OPEN/CLOSE rounds of the loop case (500).
 *
 * The rb_open_race cases run only when named: they need the VM harness's
 * rift-inject module (tools/vm/inject), which selftests/riftblk_open_race.sh
 * loads, to hold an OPEN half-done.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "peer-lib.h"
#include <riftblk/riftblk-proto.h>

static_assert(RIFTBLK_PEER_PORT == RIFTBLK_DEFAULT_PORT);

/* -D: the device the cases map. */
static const char *dev_path;
/* -X: another session's device and its handle there. */
static char blk_victim[RIFTBLK_PATH_MAX];
static u32 blk_victim_id;
static bool blk_victim_set;
/* -R: not a block device. */
static const char *blk_file;
/* -N: rounds of the OPEN/CLOSE loop. */
static unsigned int blk_loops = 500;

/* The device -D names: 4096-byte blocks (riftblk_hostile.sh). */
#define BLK_LBS			4096U
#define BLK_LBS_SECTORS		(BLK_LBS >> 9)
/* The sector of the 4 GiB boundary. */
#define BLK_4G_SECTOR		BIT_ULL(23)

bool blk_option(int opt, const char *arg)
{
	const char *colon;
	char *end;

	switch (opt) {
	case 'D':
		dev_path = arg;
		return strlen(arg) < RIFTBLK_PATH_MAX;
	case 'X':
		colon = strrchr(arg, ':');
		if (!colon || colon == arg || colon - arg >= RIFTBLK_PATH_MAX)
			return false;
		memcpy(blk_victim, arg, colon - arg);
		blk_victim[colon - arg] = '\0';
		blk_victim_id = strtoul(colon + 1, &end, 0);
		blk_victim_set = !*end && end != colon + 1;
		return blk_victim_set;
	case 'R':
		blk_file = arg;
		return true;
	case 'N':
		blk_loops = atoi(arg);
		return blk_loops > 0;
	}
	return false;
}

static bool need_dev(void)
{
	return EXPECT(dev_path, "no device to map (-D)");
}

static bool need_victim(void)
{
	return EXPECT(blk_victim_set, "no other session's mapping (-X DEV:DEV_ID)");
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

/*
 * One riftblk request through chunk 0, the ULP header @usr: a READ brings
 * @xfer bytes back into the read region (*@out), a WRITE carries @data.
 * False if the transport failed; the server's errno in *@err.
 */
static bool blk_rpc(struct path *p, u8 dir, const void *usr, u16 usr_len,
		    const void *data, u32 xfer, int *err, const u8 **out)
{
	struct rift_rbuf seg;
	struct io io;
	u8 *region;

	*err = 0;
	if (dir == RIFT_IO_READ) {
		if (!EXPECT(xfer && xfer <= PEER_READ_REGION_LEN, "read of %u bytes", xfer))
			return false;
		region = peer_read_region(p->con[0], &seg.addr, &seg.rkey);
		memset(region, 0, xfer);
		seg.len = xfer;
		if (out)
			*out = region;
		return io_build(p, &io, RIFT_IO_READ, 0, NULL, xfer, usr, usr_len, &seg, 1) &&
		       io_post(p, p->con[0], &io) && io_wait(p, p->con[0], 0, err);
	}
	return io_build(p, &io, RIFT_IO_WRITE, 0, data, xfer, usr, usr_len, NULL, 0) &&
	       io_post(p, p->con[0], &io) && io_wait(p, p->con[0], 0, err);
}

/* An IO message with any op, flags, len and sector. */
static int io_msg(u8 *buf, u32 id, u16 op, u16 flags, u32 len, u64 sector)
{
	struct riftblk_io io = { .dev_id = id, .op = RIFTBLK_OP_READ, .len = 512 };
	int n = riftblk_io_encode(&io, buf, sizeof(struct riftblk_wire_io));

	if (!EXPECT(n > 0, "cannot encode IO: %d", n))
		return -1;
	put_le16(buf + offsetof(struct riftblk_wire_io, op), op);
	put_le16(buf + offsetof(struct riftblk_wire_io, flags), flags);
	put_le32(buf + offsetof(struct riftblk_wire_io, len), len);
	put_le64(buf + offsetof(struct riftblk_wire_io, sector), sector);
	return n;
}

static u8 wdata[8192];

/*
 * IO on handle @id.  A READ op goes as a Rift READ, anything else as a
 * WRITE; @xfer is the request's data length (the IO's len for a
 * well-formed read or write, 0 for other ops).
 */
static bool blk_io(struct path *p, u32 id, u16 op, u16 flags, u32 len, u64 sector,
		   u32 xfer, int *err, const u8 **out)
{
	u8 msg[sizeof(struct riftblk_wire_io)];

	return io_msg(msg, id, op, flags, len, sector) > 0 &&
	       blk_rpc(p, op == RIFTBLK_OP_READ ? RIFT_IO_READ : RIFT_IO_WRITE, msg,
		       sizeof(msg), wdata, xfer, err, out);
}

/* The same, answered with @want. */
static bool blk_io_expect(struct path *p, u32 id, u16 op, u16 flags, u32 len,
			  u64 sector, u32 xfer, int want)
{
	char what[128];
	int err;

	snprintf(what, sizeof(what), "IO op %u flags 0x%x len %u sector %llu (data %u) on %u",
		 op, flags, len, (unsigned long long)sector, xfer, id);
	return blk_io(p, id, op, flags, len, sector, xfer, &err, NULL) &&
	       expect_errno(err, want, what);
}

/* A well-formed IO of @op; data ops carry their @len. */
static bool blk_op_expect(struct path *p, u32 id, u16 op, u16 flags, u32 len,
			  u64 sector, int want)
{
	bool data = op == RIFTBLK_OP_READ || op == RIFTBLK_OP_WRITE;

	return blk_io_expect(p, id, op, flags, len, sector, data ? len : 0, want);
}

/* An OPEN message as sent: @buf holds sizeof(struct riftblk_wire_open). */
static bool blk_open_msg(u8 *buf, const char *path, u16 mode)
{
	struct riftblk_open o = { .access_mode = mode };
	int n;

	snprintf(o.path, sizeof(o.path), "%s", path);
	n = riftblk_open_encode(&o, buf, sizeof(struct riftblk_wire_open));
	return EXPECT(n == sizeof(struct riftblk_wire_open), "cannot encode OPEN %s: %d",
		      path, n);
}

/* Send an OPEN as built; on success its OPEN_RSP must decode into @info. */
static bool blk_open_raw(struct path *p, const u8 *msg, u8 dir, u32 buf_len, int *err,
			 struct riftblk_dev_info *info)
{
	struct riftblk_dev_info tmp;
	const u8 *rsp = NULL;
	int derr;

	if (!blk_rpc(p, dir, msg, sizeof(struct riftblk_wire_open), NULL, buf_len, err, &rsp))
		return false;
	if (*err || dir != RIFT_IO_READ)
		return true;
	derr = riftblk_dev_info_decode(RIFTBLK_MSG_OPEN_RSP, rsp, buf_len, info ? info : &tmp);
	return EXPECT(!derr, "OPEN answered 0 with an OPEN_RSP that does not decode: %d", derr);
}

static bool blk_open(struct path *p, const char *path, u16 mode, int *err,
		     struct riftblk_dev_info *info)
{
	u8 msg[sizeof(struct riftblk_wire_open)];

	return blk_open_msg(msg, path, mode) &&
	       blk_open_raw(p, msg, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN, err, info);
}

static bool blk_close_expect(struct path *p, u32 id, int want);

static bool blk_open_expect(struct path *p, const char *path, u16 mode, int want)
{
	char what[RIFTBLK_PATH_MAX + 32];
	struct riftblk_dev_info info;
	int err;

	snprintf(what, sizeof(what), "OPEN %s %s", riftblk_access_mode_name(mode), path);
	/* A mapping it was meant to make is closed again. */
	return blk_open(p, path, mode, &err, &info) && expect_errno(err, want, what) &&
	       (err || blk_close_expect(p, info.dev_id, 0));
}

/* OPEN that must succeed; the handle in *@id. */
static bool blk_map(struct path *p, const char *path, u16 mode, u32 *id)
{
	struct riftblk_dev_info info;
	int err;

	if (!blk_open(p, path, mode, &err, &info) ||
	    !expect_errno(err, 0, path))
		return false;
	*id = info.dev_id;
	return EXPECT(info.access_mode == mode && info.logical_block_size &&
		      info.nr_sectors, "OPEN_RSP: mode %u lbs %u %llu sectors",
		      info.access_mode, info.logical_block_size,
		      (unsigned long long)info.nr_sectors);
}

/* CLOSE (a WRITE without data) or INFO (a READ of @buf_len bytes). */
static bool blk_dev(struct path *p, u16 type, u32 id, u8 dir, u32 buf_len, int *err,
		    struct riftblk_dev_info *info)
{
	u8 msg[sizeof(struct riftblk_wire_dev)];
	const u8 *rsp = NULL;
	int n, derr;

	n = riftblk_dev_encode(type, id, msg, sizeof(msg));
	if (!EXPECT(n == sizeof(msg), "cannot encode type %u: %d", type, n) ||
	    !blk_rpc(p, dir, msg, sizeof(msg), NULL, dir == RIFT_IO_READ ? buf_len : 0,
		     err, &rsp))
		return false;
	if (*err || type != RIFTBLK_MSG_INFO || !info)
		return true;
	derr = riftblk_dev_info_decode(RIFTBLK_MSG_INFO_RSP, rsp, buf_len, info);
	return EXPECT(!derr, "INFO answered 0 with an INFO_RSP that does not decode: %d", derr);
}

static bool blk_close_expect(struct path *p, u32 id, int want)
{
	int err;

	return blk_dev(p, RIFTBLK_MSG_CLOSE, id, RIFT_IO_WRITE, 0, &err, NULL) &&
	       expect_errno(err, want, "CLOSE");
}

static bool blk_info_expect(struct path *p, u32 id, int want)
{
	struct riftblk_dev_info info;
	int err;

	return blk_dev(p, RIFTBLK_MSG_INFO, id, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN, &err,
		       &info) &&
	       expect_errno(err, want, "INFO");
}

/*
 * A session mapping -D rw: the cases' usual start.  The session of a case
 * that failed before its CLOSE may still hold the rw mapping for a moment
 * (the server closes it once that session is gone): wait for it, so that
 * one failure does not fail the cases after it.
 */
static bool blk_up(struct path *p, u32 *id)
{
	struct riftblk_dev_info info;
	long long end = now_ms() + 5000;
	int err;

	if (!need_dev() || !path_up(p))
		return false;
	for (;;) {
		if (!blk_open(p, dev_path, RIFTBLK_ACCESS_RW, &err, &info))
			return false;
		if (err != -EBUSY || now_ms() >= end)
			break;
		usleep(50000);
	}
	if (!expect_errno(err, 0, dev_path))
		return false;
	*id = info.dev_id;
	return true;
}

/* Write 4 KiB of a pattern at @sector and read it back. */
static bool blk_write_verify(struct path *p, u32 id, u64 sector, u32 seed)
{
	const u8 *back;
	u8 want[BLK_LBS];
	int err;

	pattern(wdata, BLK_LBS, seed);
	memcpy(want, wdata, BLK_LBS);
	return blk_io(p, id, RIFTBLK_OP_WRITE, 0, BLK_LBS, sector, BLK_LBS, &err, NULL) &&
	       expect_errno(err, 0, "write") &&
	       blk_io(p, id, RIFTBLK_OP_READ, 0, BLK_LBS, sector, BLK_LBS, &err, &back) &&
	       expect_errno(err, 0, "read") &&
	       EXPECT(!memcmp(back, want, BLK_LBS), "sector %llu reads back other data",
		      (unsigned long long)sector);
}

/* 4 KiB at @sector read back as zeroes (@zero) or as pattern @seed. */
static bool blk_read_is(struct path *p, u32 id, u64 sector, bool zero, u32 seed)
{
	const u8 *back;
	u8 want[BLK_LBS];
	int err;

	if (zero)
		memset(want, 0, sizeof(want));
	else
		pattern(want, sizeof(want), seed);
	return blk_io(p, id, RIFTBLK_OP_READ, 0, BLK_LBS, sector, BLK_LBS, &err, &back) &&
	       expect_errno(err, 0, "read") &&
	       EXPECT(!memcmp(back, want, BLK_LBS), "sector %llu: expected %s",
		      (unsigned long long)sector, zero ? "zeroes" : "the pattern");
}

/* ------------------------------------------------------------------ */
/* Handles the session does not have                                   */
/* ------------------------------------------------------------------ */

/* Everything a client may name a handle in: all ESTALE for @id. */
static bool blk_all_stale(struct path *p, u32 id)
{
	pattern(wdata, BLK_LBS, 0xbad);
	return blk_info_expect(p, id, -ESTALE) &&
	       blk_op_expect(p, id, RIFTBLK_OP_READ, 0, BLK_LBS, 0, -ESTALE) &&
	       blk_op_expect(p, id, RIFTBLK_OP_WRITE, 0, BLK_LBS, 0, -ESTALE) &&
	       blk_op_expect(p, id, RIFTBLK_OP_FLUSH, 0, 0, 0, -ESTALE) &&
	       blk_op_expect(p, id, RIFTBLK_OP_DISCARD, 0, BLK_LBS, 0, -ESTALE) &&
	       blk_close_expect(p, id, -ESTALE);
}

static u64 rnd_state;

static u32 rnd32(void)
{
	/* xorshift64: reproducible from the seed the case prints. */
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (u32)(rnd_state >> 16);
}

static void rnd_seed(void)
{
	rnd_state = ((u64)time(NULL) << 20) ^ (u64)getpid() ^ 0x9e3779b97f4a7c15ULL;
	diag("random seed 0x%llx", (unsigned long long)rnd_state);
}

enum {
	FOREIGN_NEVER,
	FOREIGN_OTHER_SESSION,
	FOREIGN_ENUM,
};

/*
 * A session's handles are its own: handles it never had, from the
 * extremes or at random, and the one another session maps a device
 * under, name nothing (ESTALE) in INFO, IO and CLOSE; so do 1000 random
 * handles and the ones next to the other session's when the session
 * maps a device of its own (whose handle alone works).
 */
static bool case_foreign(const struct peer_case *tc)
{
	static const u32 fixed[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff };
	unsigned int i, bad = 0, n = 0;
	struct path p = { 0 };
	bool ok;
	u32 own, id;
	int err;

	rnd_seed();
	switch (tc->arg) {
	case FOREIGN_NEVER:
		ok = path_up(&p);
		for (i = 0; ok && i < ARRAY_SIZE(fixed); i++)
			ok = blk_all_stale(&p, fixed[i]);
		for (i = 0; ok && i < 4; i++)
			ok = blk_all_stale(&p, rnd32());
		break;
	case FOREIGN_OTHER_SESSION:
		ok = need_victim() && blk_up(&p, &own) &&
		     EXPECT(own != blk_victim_id, "given the victim's handle %u", own) &&
		     blk_all_stale(&p, blk_victim_id) &&
		     blk_info_expect(&p, own, 0) && blk_close_expect(&p, own, 0);
		break;
	default:
		ok = blk_up(&p, &own);
		for (i = 0; ok && i < 1000 + (blk_victim_set ? 129 : 0); i++) {
			id = i < 1000 ? rnd32() : blk_victim_id + i - 1064;
			if (id == own)
				continue;
			ok = blk_dev(&p, RIFTBLK_MSG_INFO, id, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN,
				     &err, NULL);
			n++;
			if (ok && err != -ESTALE && bad++ < 5)
				diag("FAIL: INFO of handle %u answered %d (%s)", id, err,
				     strerror(-err));
		}
		ok = ok && EXPECT(!bad, "%u of %u foreign handles not ESTALE", bad, n) &&
		     blk_info_expect(&p, own, 0) && blk_close_expect(&p, own, 0);
		if (ok)
			diag("%u foreign handles: all ESTALE", n);
		break;
	}
	path_down(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Flags, ops and message types                                        */
/* ------------------------------------------------------------------ */

enum {
	FLAGS_CACHE_NON_WRITE,
	FLAGS_FLUSH_FUA,
	FLAGS_NOUNMAP,
	FLAGS_UNKNOWN,
	OPS_UNKNOWN,
	TYPES_UNKNOWN,
	HDR_MALFORMED,
};

/* One message of type @type with a well-formed header and @len bytes. */
static bool blk_type_expect(struct path *p, u16 type, u8 dir, int want)
{
	u8 msg[sizeof(struct riftblk_wire_open)];
	char what[64];
	int err;

	/* The largest message, so that no type is refused for its size. */
	if (!blk_open_msg(msg, "x", RIFTBLK_ACCESS_RO))
		return false;
	put_le16(msg + offsetof(struct riftblk_wire_hdr, type), type);
	snprintf(what, sizeof(what), "message type %u (%s)", type,
		 dir == RIFT_IO_READ ? "read" : "write");
	return blk_rpc(p, dir, msg, sizeof(msg), NULL,
		       dir == RIFT_IO_READ ? RIFTBLK_RSP_BUF_LEN : 0, &err, NULL) &&
	       expect_errno(err, want, what);
}

/* A valid IO header of @usr_len bytes with one field broken. */
static bool blk_hdr_expect(struct path *p, u32 id, size_t off, u32 v, unsigned int width,
			   u16 usr_len, const char *what)
{
	u8 msg[sizeof(struct riftblk_wire_io) + 8];
	int err;

	memset(msg, 0, sizeof(msg));
	if (io_msg(msg, id, RIFTBLK_OP_FLUSH, 0, 0, 0) < 0)
		return false;
	if (width == 4)
		put_le32(msg + off, v);
	else if (width == 2)
		put_le16(msg + off, v);
	return blk_rpc(p, RIFT_IO_WRITE, msg, usr_len, NULL, 0, &err, NULL) &&
	       expect_errno(err, -EBADMSG, what);
}

/*
 * What an IO means must be understood: cache flags on anything but a
 * write, FUA on a flush, NOUNMAP off write zeroes are malformed
 * (EBADMSG); unknown flags, ops and message types are refused
 * (EOPNOTSUPP); a broken header is malformed.  The mapping keeps working.
 */
static bool case_flags(const struct peer_case *tc)
{
	const u16 F = RIFTBLK_IO_F_FUA, P = RIFTBLK_IO_F_PREFLUSH;
	const int BAD = -EBADMSG, NS = -EOPNOTSUPP;
	const u16 R = RIFTBLK_OP_READ, W = RIFTBLK_OP_WRITE, D = RIFTBLK_OP_DISCARD;
	const u16 Z = RIFTBLK_OP_WRITE_ZEROES, S = RIFTBLK_OP_SECURE_ERASE;
	const u16 FL = RIFTBLK_OP_FLUSH;
	struct path p = { 0 };
	bool ok;
	u32 id;

	ok = blk_up(&p, &id);
	switch (tc->arg) {
	case FLAGS_CACHE_NON_WRITE:
		ok = ok && blk_op_expect(&p, id, R, F, BLK_LBS, 0, BAD) &&
		     blk_op_expect(&p, id, R, P, BLK_LBS, 0, BAD) &&
		     blk_op_expect(&p, id, R, F | P, BLK_LBS, 0, BAD) &&
		     blk_op_expect(&p, id, D, F, BLK_LBS, 0, BAD) &&
		     blk_op_expect(&p, id, D, P, BLK_LBS, 0, BAD) &&
		     blk_op_expect(&p, id, Z, F, BLK_LBS, 0, BAD) &&
		     blk_op_expect(&p, id, S, P, BLK_LBS, 0, BAD) &&
		     /* A write takes both. */
		     blk_op_expect(&p, id, W, F | P, BLK_LBS, 0, 0);
		break;
	case FLAGS_FLUSH_FUA:
		ok = ok && blk_op_expect(&p, id, FL, F, 0, 0, BAD) &&
		     blk_op_expect(&p, id, FL, 0, 0, 0, 0);
		break;
	case FLAGS_NOUNMAP:
		ok = ok && blk_op_expect(&p, id, W, RIFTBLK_IO_F_NOUNMAP, BLK_LBS, 0, BAD) &&
		     blk_op_expect(&p, id, D, RIFTBLK_IO_F_NOUNMAP, BLK_LBS, 0, BAD) &&
		     blk_op_expect(&p, id, R, RIFTBLK_IO_F_NOUNMAP, BLK_LBS, 0, BAD);
		break;
	case FLAGS_UNKNOWN:
		ok = ok && blk_op_expect(&p, id, W, BIT(3), BLK_LBS, 0, NS) &&
		     blk_op_expect(&p, id, R, BIT(15), BLK_LBS, 0, NS) &&
		     blk_op_expect(&p, id, FL, 0xfff8, 0, 0, NS);
		break;
	case OPS_UNKNOWN:
		ok = ok && blk_io_expect(&p, id, 0, 0, BLK_LBS, 0, 0, NS) &&
		     blk_io_expect(&p, id, RIFTBLK_OP_NR, 0, BLK_LBS, 0, 0, NS) &&
		     blk_io_expect(&p, id, RIFTBLK_OP_NR, 0, BLK_LBS, 0, BLK_LBS, NS) &&
		     blk_io_expect(&p, id, 0xffff, 0, BLK_LBS, 0, 0, NS);
		break;
	case TYPES_UNKNOWN:
		ok = ok && blk_type_expect(&p, 0, RIFT_IO_WRITE, NS) &&
		     blk_type_expect(&p, RIFTBLK_MSG_OPEN_RSP, RIFT_IO_READ, NS) &&
		     blk_type_expect(&p, RIFTBLK_MSG_INFO_RSP, RIFT_IO_READ, NS) &&
		     blk_type_expect(&p, RIFTBLK_MSG_NR, RIFT_IO_WRITE, NS) &&
		     blk_type_expect(&p, 0xffff, RIFT_IO_READ, NS);
		break;
	case HDR_MALFORMED:
		ok = ok &&
		     blk_hdr_expect(&p, id, offsetof(struct riftblk_wire_hdr, magic), 0x4b4c4253,
				    4, sizeof(struct riftblk_wire_io), "bad magic") &&
		     blk_hdr_expect(&p, id, offsetof(struct riftblk_wire_hdr, version), 0, 2,
				    sizeof(struct riftblk_wire_io), "version 0") &&
		     blk_hdr_expect(&p, id, offsetof(struct riftblk_wire_hdr, len),
				    sizeof(struct riftblk_wire_io) + 1, 2,
				    sizeof(struct riftblk_wire_io), "len beyond the header") &&
		     blk_hdr_expect(&p, id, offsetof(struct riftblk_wire_hdr, len), 15, 2,
				    sizeof(struct riftblk_wire_io), "len below a header") &&
		     blk_hdr_expect(&p, id, offsetof(struct riftblk_wire_hdr, len), 32, 2,
				    32, "IO shorter than its struct") &&
		     blk_hdr_expect(&p, id, 0, 0, 0, 12, "12 bytes, no header");
		break;
	}
	/* Refusals leave the mapping as it was. */
	ok = ok && blk_write_verify(&p, id, 8, 70 + tc->arg) && blk_close_expect(&p, id, 0);
	path_down(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Sectors and lengths                                                 */
/* ------------------------------------------------------------------ */

enum {
	RANGE_END,
	RANGE_WRAP,
	RANGE_ALIGN,
	RANGE_LEN_SECTORS,
	RANGE_LEN_ZERO,
	RANGE_XFER,
	RANGE_UNSUPPORTED,
	RANGE_READ_ONLY,
	RANGE_DISCARD_4G,
};

/*
 * IO must lie in the device (ERANGE), in whole logical blocks (EINVAL),
 * in whole sectors and not wrap the sector space (EBADMSG), carry the
 * data its op says (EBADMSG); ops the device cannot do are refused
 * (EOPNOTSUPP) and a read-only mapping changes nothing (EROFS).
 * Discards near the 4 GiB boundary land where they were asked to.
 */
static bool case_range(const struct peer_case *tc)
{
	const u16 R = RIFTBLK_OP_READ, W = RIFTBLK_OP_WRITE, D = RIFTBLK_OP_DISCARD;
	const u64 top = ~0ULL >> 9;
	struct riftblk_dev_info info;
	struct path p = { 0 }, ro;
	u64 nr = 0;
	bool ok;
	u32 id, rid;
	int err;

	memset(&ro, 0, sizeof(ro));
	ok = blk_up(&p, &id) &&
	     blk_dev(&p, RIFTBLK_MSG_INFO, id, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN, &err, &info) &&
	     expect_errno(err, 0, "INFO") &&
	     EXPECT(info.logical_block_size == BLK_LBS &&
		    info.nr_sectors >= BLK_4G_SECTOR + (128U << 11) && info.max_discard_sectors,
		    "-D: lbs %u, %llu sectors, discard %u: want %u, > 4 GiB, discard",
		    info.logical_block_size, (unsigned long long)info.nr_sectors,
		    info.max_discard_sectors, BLK_LBS);
	if (ok)
		nr = info.nr_sectors;
	switch (tc->arg) {
	case RANGE_END:
		ok = ok && blk_op_expect(&p, id, R, 0, BLK_LBS, nr - BLK_LBS_SECTORS, 0) &&
		     blk_op_expect(&p, id, R, 0, 2 * BLK_LBS, nr - BLK_LBS_SECTORS, -ERANGE) &&
		     blk_op_expect(&p, id, R, 0, BLK_LBS, nr, -ERANGE) &&
		     blk_op_expect(&p, id, W, 0, BLK_LBS, nr + BLK_LBS_SECTORS, -ERANGE) &&
		     blk_op_expect(&p, id, W, 0, BLK_LBS, 1ULL << 40, -ERANGE) &&
		     blk_op_expect(&p, id, D, 0, 0xfffff000, nr - BLK_LBS_SECTORS, -ERANGE) &&
		     /* Beyond what 32 bits of sector hold. */
		     blk_op_expect(&p, id, D, 0, BLK_LBS, 1ULL << 32, -ERANGE) &&
		     blk_op_expect(&p, id, D, 0, BLK_LBS, (1ULL << 32) + nr, -ERANGE);
		break;
	case RANGE_WRAP:
		ok = ok &&
		     blk_op_expect(&p, id, R, 0, 2 * BLK_LBS, top - BLK_LBS_SECTORS + 1,
				   -EBADMSG) &&
		     blk_op_expect(&p, id, D, 0, 0xfffff000, top - 8, -EBADMSG) &&
		     blk_op_expect(&p, id, W, 0, BLK_LBS, ~0ULL - 7, -EBADMSG) &&
		     blk_op_expect(&p, id, D, 0, BLK_LBS, ~0ULL - 7, -EBADMSG);
		break;
	case RANGE_ALIGN:
		ok = ok && blk_op_expect(&p, id, R, 0, 512, 0, -EINVAL) &&
		     blk_op_expect(&p, id, R, 0, BLK_LBS, 1, -EINVAL) &&
		     blk_op_expect(&p, id, W, 0, BLK_LBS + 512, 0, -EINVAL) &&
		     blk_op_expect(&p, id, D, 0, 0xfffffe00, 0, -EINVAL) &&
		     blk_op_expect(&p, id, D, 0, BLK_LBS, BLK_4G_SECTOR - 4, -EINVAL);
		break;
	case RANGE_LEN_SECTORS:
		ok = ok && blk_io_expect(&p, id, R, 0, 100, 0, 512, -EBADMSG) &&
		     blk_io_expect(&p, id, D, 0, BLK_LBS + 1, 0, 0, -EBADMSG);
		break;
	case RANGE_LEN_ZERO:
		ok = ok && blk_io_expect(&p, id, R, 0, 0, 0, 512, -EBADMSG) &&
		     blk_io_expect(&p, id, W, 0, 0, 0, 0, -EBADMSG) &&
		     blk_io_expect(&p, id, D, 0, 0, 0, 0, -EBADMSG) &&
		     blk_io_expect(&p, id, D, 0, 0, BLK_4G_SECTOR, 0, -EBADMSG);
		break;
	case RANGE_XFER:
		ok = ok && blk_io_expect(&p, id, R, 0, 2 * BLK_LBS, 0, BLK_LBS, -EBADMSG) &&
		     blk_io_expect(&p, id, W, 0, BLK_LBS, 0, 0, -EBADMSG) &&
		     blk_io_expect(&p, id, D, 0, BLK_LBS, 0, BLK_LBS, -EBADMSG);
		if (ok) {
			u8 msg[sizeof(struct riftblk_wire_io)];

			/* A read sent as a Rift WRITE, a write as a READ. */
			ok = io_msg(msg, id, R, 0, BLK_LBS, 0) > 0 &&
			     blk_rpc(&p, RIFT_IO_WRITE, msg, sizeof(msg), wdata, BLK_LBS, &err,
				     NULL) &&
			     expect_errno(err, -EBADMSG, "read as a Rift WRITE") &&
			     io_msg(msg, id, W, 0, BLK_LBS, 0) > 0 &&
			     blk_rpc(&p, RIFT_IO_READ, msg, sizeof(msg), NULL, BLK_LBS, &err,
				     NULL) &&
			     expect_errno(err, -EBADMSG, "write as a Rift READ");
		}
		break;
	case RANGE_UNSUPPORTED:
		/* null_blk neither zeroes nor securely erases. */
		ok = ok && EXPECT(!info.max_write_zeroes_sectors && !info.max_secure_erase_sectors,
				  "-D zeroes (%u) or erases (%u)", info.max_write_zeroes_sectors,
				  info.max_secure_erase_sectors) &&
		     blk_op_expect(&p, id, RIFTBLK_OP_WRITE_ZEROES, 0, BLK_LBS, 0, -EOPNOTSUPP) &&
		     blk_op_expect(&p, id, RIFTBLK_OP_SECURE_ERASE, 0, BLK_LBS, 0, -EOPNOTSUPP);
		break;
	case RANGE_READ_ONLY:
		ok = ok && path_up(&ro) && blk_map(&ro, dev_path, RIFTBLK_ACCESS_RO, &rid) &&
		     blk_op_expect(&ro, rid, W, 0, BLK_LBS, 0, -EROFS) &&
		     blk_op_expect(&ro, rid, W, RIFTBLK_IO_F_FUA, BLK_LBS, 0, -EROFS) &&
		     blk_op_expect(&ro, rid, D, 0, BLK_LBS, 0, -EROFS) &&
		     blk_op_expect(&ro, rid, RIFTBLK_OP_WRITE_ZEROES, 0, BLK_LBS, 0, -EROFS) &&
		     blk_op_expect(&ro, rid, R, 0, BLK_LBS, 0, 0) &&
		     blk_close_expect(&ro, rid, 0);
		path_down(&ro);
		break;
	case RANGE_DISCARD_4G:
		/*
		 * Blocks 0 and 1, and three around 4 GiB; a discard across the
		 * boundary and one above it: those read zeroes, blocks 0 and 1
		 * (where a byte offset cut to 32 bits would land) keep their
		 * data.
		 */
		ok = ok && blk_write_verify(&p, id, 0, 80) &&
		     blk_write_verify(&p, id, BLK_LBS_SECTORS, 83) &&
		     blk_write_verify(&p, id, BLK_4G_SECTOR - BLK_LBS_SECTORS, 81) &&
		     blk_write_verify(&p, id, BLK_4G_SECTOR, 82) &&
		     blk_write_verify(&p, id, BLK_4G_SECTOR + BLK_LBS_SECTORS, 84) &&
		     blk_op_expect(&p, id, D, 0, 2 * BLK_LBS, BLK_4G_SECTOR - BLK_LBS_SECTORS, 0) &&
		     blk_op_expect(&p, id, D, 0, BLK_LBS, BLK_4G_SECTOR + BLK_LBS_SECTORS, 0) &&
		     blk_read_is(&p, id, BLK_4G_SECTOR - BLK_LBS_SECTORS, true, 0) &&
		     blk_read_is(&p, id, BLK_4G_SECTOR, true, 0) &&
		     blk_read_is(&p, id, BLK_4G_SECTOR + BLK_LBS_SECTORS, true, 0) &&
		     blk_read_is(&p, id, 0, false, 80) &&
		     blk_read_is(&p, id, BLK_LBS_SECTORS, false, 83) &&
		     /*
		      * 256 MiB across the boundary (null_blk frees a discard
		      * block by block with interrupts off: not 4 GiB at once).
		      */
		     blk_op_expect(&p, id, D, 0, 256U << 20, BLK_4G_SECTOR - (128U << 11), 0) &&
		     blk_read_is(&p, id, 0, false, 80);
		break;
	}
	ok = ok && blk_close_expect(&p, id, 0);
	path_down(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* OPEN                                                                */
/* ------------------------------------------------------------------ */

enum {
	PATH_DOTDOT,
	PATH_OUTSIDE,
	PATH_NOT_BLOCK,
	PATH_LONG,
	PATH_FIELD,
	PATH_NO_NUL,
	OPEN_FORM,
	DEV_MSG_FORM,
	OPEN_CONFLICT,
	OPEN_REFUSALS,
};

/* The device's name under /dev/ (-D is /dev/NAME). */
static const char *dev_name(void)
{
	const char *s = strrchr(dev_path, '/');

	return s ? s + 1 : dev_path;
}

/*
 * OPEN whose path field is @field (all 256 bytes as given) with path_len
 * @plen, answered @want; a mapping it made is closed again.
 */
static bool blk_open_field(struct path *p, const u8 *field, u16 plen, int want,
			   const char *what)
{
	u8 msg[sizeof(struct riftblk_wire_open)];
	struct riftblk_dev_info info;
	int err;

	if (!blk_open_msg(msg, "x", RIFTBLK_ACCESS_RO))
		return false;
	memcpy(msg + offsetof(struct riftblk_wire_open, path), field, RIFTBLK_PATH_MAX);
	put_le16(msg + offsetof(struct riftblk_wire_open, path_len), plen);
	return blk_open_raw(p, msg, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN, &err, &info) &&
	       expect_errno(err, want, what) &&
	       (err || blk_close_expect(p, info.dev_id, 0));
}

static bool case_open(const struct peer_case *tc)
{
	const u16 RO = RIFTBLK_ACCESS_RO, RW = RIFTBLK_ACCESS_RW;
	u8 field[RIFTBLK_PATH_MAX], msg[sizeof(struct riftblk_wire_open)];
	char path[2 * RIFTBLK_PATH_MAX];
	unsigned int i;
	struct path p = { 0 };
	bool ok;
	int err;
	u32 id;

	ok = need_dev() && path_up(&p);
	switch (tc->arg) {
	/*
	 * The server resolves a path (symlinks and ".." included) to a
	 * device and maps it only if that device is exported to the host:
	 * a detour to an exported device maps it, anything else is EACCES,
	 * whatever the reason, so that a client learns nothing of what
	 * exists on the server.
	 */
	case PATH_DOTDOT:
		snprintf(path, sizeof(path), "//dev/../dev/%s", dev_name());
		ok = ok && blk_open_expect(&p, path, RW, 0);
		snprintf(path, sizeof(path), "/dev/../dev/%s", dev_name());
		ok = ok && blk_open_expect(&p, path, RO, 0);
		snprintf(path, sizeof(path), "../dev/%s", dev_name());
		ok = ok && blk_open_expect(&p, path, RO, 0);
		snprintf(path, sizeof(path), "%s/../%s", dev_name(), dev_name());
		ok = ok && blk_open_expect(&p, path, RO, -EACCES) &&
		     blk_open_expect(&p, "/dev/..", RO, -EACCES) &&
		     blk_open_expect(&p, "..", RO, -EACCES);
		break;
	case PATH_OUTSIDE:
		snprintf(path, sizeof(path), "/devx/%s", dev_name());
		ok = ok && blk_open_expect(&p, path, RW, -EACCES);
		snprintf(path, sizeof(path), "//dev/%s", dev_name());
		ok = ok && blk_open_expect(&p, path, RW, 0) &&
		     blk_open_expect(&p, "/dev", RO, -EACCES) &&
		     blk_open_expect(&p, "/", RO, -EACCES) &&
		     blk_open_expect(&p, "/proc/self/fd/0", RO, -EACCES);
		break;
	case PATH_NOT_BLOCK:
		ok = ok && blk_open_expect(&p, "/dev/null", RO, -EACCES) &&
		     blk_open_expect(&p, "/dev/", RO, -EACCES) &&
		     blk_open_expect(&p, "null", RW, -EACCES) &&
		     (!blk_file || blk_open_expect(&p, blk_file, RW, -EACCES)) &&
		     blk_open_expect(&p, "/dev/rift-peer-does-not-exist", RO, -EACCES);
		break;
	case PATH_LONG:
		/* 255 bytes: the most a path holds; relative ones too. */
		snprintf(path, sizeof(path), "/dev/%0250d", 0);
		ok = ok && blk_open_expect(&p, path, RO, -EACCES);
		snprintf(path, sizeof(path), "%0255d", 0);
		ok = ok && blk_open_expect(&p, path, RO, -EACCES);
		snprintf(path, sizeof(path), "%0251d", 0);
		ok = ok && blk_open_expect(&p, path, RO, -EACCES);
		break;
	case PATH_FIELD:
		memset(field, 0, sizeof(field));
		memcpy(field, dev_path, strlen(dev_path));
		ok = ok &&
		     blk_open_field(&p, field, 0, -EBADMSG, "path_len 0") &&
		     blk_open_field(&p, field, RIFTBLK_PATH_MAX, -EBADMSG, "path_len 256") &&
		     blk_open_field(&p, field, 1000, -EBADMSG, "path_len 1000") &&
		     blk_open_field(&p, field, strlen(dev_path) + 1, -EBADMSG,
				    "path_len counting the NUL");
		field[4] = ' ';
		ok = ok && blk_open_field(&p, field, strlen(dev_path), -EBADMSG, "a space");
		field[4] = 0x7f;
		ok = ok && blk_open_field(&p, field, strlen(dev_path), -EBADMSG, "DEL");
		field[4] = 0xc3;
		ok = ok && blk_open_field(&p, field, strlen(dev_path), -EBADMSG, "a byte > 0x7e");
		field[4] = '\n';
		ok = ok && blk_open_field(&p, field, strlen(dev_path), -EBADMSG, "a newline");
		break;
	case PATH_NO_NUL:
		/*
		 * A field without NUL: the server takes path_len bytes and no
		 * more.  -D followed by garbage maps -D; 255 bytes of it are no
		 * device.
		 */
		memset(field, 'Z', sizeof(field));
		memcpy(field, dev_path, strlen(dev_path));
		ok = ok && blk_open_field(&p, field, strlen(dev_path), 0,
					  "OPEN of -D and garbage, path_len of -D") &&
		     blk_open_field(&p, field, RIFTBLK_PATH_MAX - 1, -EACCES,
				    "255 bytes of a 256-byte field without NUL");
		break;
	case OPEN_FORM:
		ok = ok && blk_open_msg(msg, dev_path, RW);
		for (i = 0; ok && i < 2; i++) {
			put_le16(msg + offsetof(struct riftblk_wire_open, access_mode),
				 i ? 0xffff : RIFTBLK_ACCESS_NR);
			ok = blk_open_raw(&p, msg, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN, &err, NULL) &&
			     expect_errno(err, -EBADMSG, "unknown access mode");
		}
		ok = ok && blk_open_msg(msg, dev_path, RW) &&
		     blk_open_raw(&p, msg, RIFT_IO_WRITE, 0, &err, NULL) &&
		     expect_errno(err, -EBADMSG, "OPEN as a Rift WRITE") &&
		     blk_open_raw(&p, msg, RIFT_IO_READ, 64, &err, NULL) &&
		     expect_errno(err, -EBADMSG, "OPEN with a 64-byte answer buffer");
		if (ok) {
			put_le16(msg + offsetof(struct riftblk_wire_hdr, len), 100);
			ok = blk_open_raw(&p, msg, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN, &err, NULL) &&
			     expect_errno(err, -EBADMSG, "OPEN of 100 bytes");
		}
		/* Nothing of it was mapped: a real OPEN works. */
		ok = ok && blk_map(&p, dev_path, RW, &id) && blk_close_expect(&p, id, 0);
		break;
	case DEV_MSG_FORM:
		ok = ok && blk_map(&p, dev_path, RW, &id) &&
		     blk_dev(&p, RIFTBLK_MSG_INFO, id, RIFT_IO_READ, 64, &err, NULL) &&
		     expect_errno(err, -EBADMSG, "INFO with a 64-byte answer buffer") &&
		     blk_dev(&p, RIFTBLK_MSG_INFO, id, RIFT_IO_WRITE, 0, &err, NULL) &&
		     expect_errno(err, -EBADMSG, "INFO as a Rift WRITE") &&
		     blk_dev(&p, RIFTBLK_MSG_CLOSE, id, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN, &err,
			     NULL) &&
		     expect_errno(err, -EBADMSG, "CLOSE as a Rift READ") &&
		     /* Still mapped. */
		     blk_info_expect(&p, id, 0) && blk_close_expect(&p, id, 0);
		break;
	case OPEN_CONFLICT:
		ok = ok && blk_map(&p, dev_path, RW, &id) &&
		     blk_open_expect(&p, dev_path, RO, -EEXIST);
		snprintf(path, sizeof(path), "/dev//%s", dev_name());
		ok = ok && blk_open_expect(&p, path, RW, -EEXIST) &&
		     (!blk_victim_set || blk_open_expect(&p, blk_victim, RW, -EBUSY)) &&
		     blk_close_expect(&p, id, 0);
		break;
	case OPEN_REFUSALS:
		/* The server's log must not grow with them (the test counts). */
		for (i = 0; ok && i < 200; i++) {
			snprintf(path, sizeof(path), "/outside/%u", i);
			ok = blk_open(&p, path, RO, &err, NULL) &&
			     expect_errno(err, -EACCES, "OPEN of an unexported path");
		}
		for (i = 0; ok && i < 100; i++) {
			snprintf(path, sizeof(path), "/dev/rift-peer-none-%u", i);
			ok = blk_open(&p, path, RO, &err, NULL) &&
			     expect_errno(err, -EACCES, "OPEN of a missing device");
		}
		break;
	}
	path_down(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Loops, disconnects, CLOSE racing IO                                 */
/* ------------------------------------------------------------------ */

/*
 * OPEN and CLOSE -N times in one session: each answered 0 with a new
 * handle; afterwards the server remembers none of them (ESTALE in INFO,
 * IO and CLOSE), which is what keeps a session's table from growing with
 * the rounds; and the device opens once more.
 */
static bool case_open_close_loop(const struct peer_case *tc)
{
	unsigned int i, remembered = 0;
	u32 *ids = calloc(blk_loops, sizeof(*ids));
	long long t0 = now_ms();
	struct path p = { 0 };
	bool ok;
	int err;
	u32 id;

	(void)tc;
	ok = EXPECT(ids, "no memory") && need_dev() && path_up(&p);
	for (i = 0; ok && i < blk_loops; i++) {
		ok = blk_map(&p, dev_path, RIFTBLK_ACCESS_RW, &ids[i]) &&
		     EXPECT(!i || ids[i] != ids[i - 1], "handle %u given out twice", ids[i]) &&
		     blk_close_expect(&p, ids[i], 0);
	}
	if (ok)
		diag("%u OPEN/CLOSE rounds in %lld ms", blk_loops, now_ms() - t0);
	for (i = 0; ok && i < blk_loops; i++) {
		ok = blk_dev(&p, RIFTBLK_MSG_INFO, ids[i], RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN,
			     &err, NULL);
		if (ok && err != -ESTALE && remembered++ < 3)
			diag("FAIL: INFO of closed handle %u answered %d (%s), expected ESTALE",
			     ids[i], err, strerror(-err));
	}
	ok = ok && EXPECT(!remembered, "the server still remembers %u of %u closed handles",
			  remembered, blk_loops) &&
	     blk_all_stale(&p, ids[blk_loops - 1]) &&
	     blk_map(&p, dev_path, RIFTBLK_ACCESS_RW, &id) && blk_close_expect(&p, id, 0);
	path_down(&p);
	free(ids);
	return ok;
}

/*
 * A session that maps -D rw (and the other session's device ro) and goes
 * without CLOSE: the server closes its mappings, so another session soon
 * maps -D rw (not EBUSY).
 */
static bool case_open_no_close(const struct peer_case *tc)
{
	struct riftblk_dev_info info;
	long long end;
	struct path p = { 0 }, q = { 0 };
	bool ok;
	int err = 0;
	u32 id, vid;

	(void)tc;
	ok = blk_up(&p, &id) &&
	     (!blk_victim_set || blk_map(&p, blk_victim, RIFTBLK_ACCESS_RO, &vid)) &&
	     blk_write_verify(&p, id, 16, 90);
	path_down(&p);
	ok = ok && path_up(&q);
	end = now_ms() + 20000;
	while (ok) {
		ok = blk_open(&q, dev_path, RIFTBLK_ACCESS_RW, &err, &info);
		if (!ok || err != -EBUSY || now_ms() > end)
			break;
		usleep(100000);
	}
	ok = ok && expect_errno(err, 0, "rw OPEN after the other session went") &&
	     blk_close_expect(&q, info.dev_id, 0);
	path_down(&q);
	return ok;
}

/*
 * Reads of a mapping right behind its CLOSE, on the other chunks: CLOSE
 * answers 0, each read 0 (it came first), ENODEV (the mapping was
 * closing) or ESTALE (closed), nothing else.  Rounds of it race the
 * server's lookup of the handle (softirq) against the mapping's end (its
 * workqueue).
 */
static bool case_close_during_io(const struct peer_case *tc)
{
	unsigned int round, i, n, got, hist[3] = { 0 };
	u8 msg[sizeof(struct riftblk_wire_io)];
	u8 cmsg[sizeof(struct riftblk_wire_dev)];
	struct rift_rbuf seg;
	struct rift_imm rsp;
	struct path p = { 0 };
	struct io io;
	bool ok;
	u32 id;

	(void)tc;
	ok = need_dev() && path_up(&p);
	n = ok ? p.info.queue_depth : 0;
	ok = ok && EXPECT(n >= 2 && n * BLK_LBS <= PEER_READ_REGION_LEN, "queue depth %u", n);
	if (ok)
		peer_read_region(p.con[0], &seg.addr, &seg.rkey);
	for (round = 0; ok && round < 30; round++) {
		ok = blk_map(&p, dev_path, RIFTBLK_ACCESS_RW, &id) &&
		     riftblk_dev_encode(RIFTBLK_MSG_CLOSE, id, cmsg, sizeof(cmsg)) > 0 &&
		     io_build(&p, &io, RIFT_IO_WRITE, 0, NULL, 0, cmsg, sizeof(cmsg), NULL, 0) &&
		     io_post(&p, p.con[0], &io);
		/* CLOSE on chunk 0, right behind it reads on chunks 1.. */
		for (i = 1; ok && i < n; i++) {
			struct rift_rbuf s = seg;

			s.addr += i * BLK_LBS;
			s.len = BLK_LBS;
			ok = io_msg(msg, id, RIFTBLK_OP_READ, 0, BLK_LBS,
				    i * BLK_LBS_SECTORS) > 0 &&
			     io_build(&p, &io, RIFT_IO_READ, i, NULL, BLK_LBS, msg, sizeof(msg),
				      &s, 1) &&
			     io_post(&p, p.con[0], &io);
		}
		for (got = 0; ok && got < n; got++) {
			ok = recv_imm(&p, p.con[0], &rsp) &&
			     EXPECT(rsp.type == RIFT_IMM_RSP, "type %u, expected RSP", rsp.type);
			if (!ok)
				break;
			if (!rsp.chunk) {
				ok = expect_errno(rsp.err, 0, "CLOSE during reads");
				continue;
			}
			if (rsp.err == 0)
				hist[0]++;
			else if (rsp.err == -ENODEV)
				hist[1]++;
			else if (rsp.err == -ESTALE)
				hist[2]++;
			else
				ok = EXPECT(false, "read racing CLOSE answered %d (%s)", rsp.err,
					    strerror(-rsp.err));
		}
	}
	if (ok)
		diag("reads racing CLOSE: %u done, %u ENODEV, %u ESTALE", hist[0], hist[1],
		     hist[2]);
	path_down(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* IO on a handle whose OPEN has not finished (needs rift-inject)      */
/* ------------------------------------------------------------------ */

enum {
	RACE_FAIL,
	RACE_DELAY,
};

/* How long rift-inject holds the OPEN between its handle and its answer. */
#define BLK_RACE_DELAY_MS	1500
/*
 * Guessed-handle IOs that must have been answered while it held it, in
 * one of BLK_RACE_TRIES attempts.  The hold busy-waits (a kretprobe
 * handler cannot sleep) on whichever CPU runs the OPEN; when that CPU is
 * also the one answering the connection's IO, few answers come back
 * during the hold (CI, session 17: 7, against 100-300 otherwise), and an
 * attempt that did not exercise the window proves nothing either way.
 */
#define BLK_RACE_MIN_EARLY	10
#define BLK_RACE_TRIES		3

/* rift-inject's (tools/vm/inject) count of kobject_add()s acted on. */
static long long inject_hits(void)
{
	long long v = -1;
	FILE *f = fopen("/sys/module/rift_inject/parameters/hits", "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static bool inject_arm(unsigned int delay_ms, unsigned int fail, unsigned int count)
{
	return set_param("rift_inject", "delay_ms", delay_ms) &&
	       set_param("rift_inject", "fail", fail) &&
	       set_param("rift_inject", "count", count);
}

/* Answers to the guessed-handle IOs of one handle. */
struct race_tally {
	unsigned int early_stale;	/* ESTALE before the OPEN's answer */
	unsigned int early_ok;		/* 0 before it */
	unsigned int stale_after_ok;	/* ESTALE, sent after a 0 came back */
	unsigned int late_stale;	/* ESTALE after it */
	unsigned int late_ok;		/* 0 after it */
	unsigned int other;		/* any other answer */
	int first_other;
};

/*
 * An IO's answer: @open_answered, whether the OPEN's answer came before
 * it; @sent_published, whether the IO was sent after the peer knew the
 * mapping was published (the OPEN answered 0 or an IO on it done).  Only
 * such an IO is wrong to be ESTALE: one sent before may have been
 * refused just before the publication and its answer overtaken.
 */
static void race_count(struct race_tally *t, int err, bool open_answered,
		       bool sent_published)
{
	if (err == -ESTALE) {
		if (sent_published)
			t->stale_after_ok++;
		else if (open_answered)
			t->late_stale++;
		else
			t->early_stale++;
	} else if (!err) {
		if (open_answered)
			t->late_ok++;
		else
			t->early_ok++;
	} else if (!t->other++) {
		t->first_other = err;
	}
}

static void race_report(const char *what, const struct race_tally *t)
{
	diag("%s: before the OPEN's answer %u ESTALE, %u done (%u ESTALE sent after one done)",
	     what, t->early_stale, t->early_ok, t->stale_after_ok);
	diag("%s: after it %u ESTALE, %u done; %u other answers (first %d)", what,
	     t->late_stale, t->late_ok, t->other, t->first_other);
}

/*
 * The guessed-handle IO of @chunk: a READ (chunks 1 and 2) or a WRITE
 * (chunk 3) at sector 8 of @id; chunk 2's names @id + 1.
 */
static bool race_post(struct path *p, const struct rift_rbuf *region, u16 chunk, u32 id)
{
	u8 msg[sizeof(struct riftblk_wire_io)];
	struct rift_rbuf s = *region;
	bool rd = chunk != 3;
	struct io io;

	s.addr += chunk * BLK_LBS;
	s.len = BLK_LBS;
	return io_msg(msg, chunk == 2 ? id + 1 : id,
		      rd ? RIFTBLK_OP_READ : RIFTBLK_OP_WRITE, 0, BLK_LBS,
		      BLK_LBS_SECTORS) > 0 &&
	       io_build(p, &io, rd ? RIFT_IO_READ : RIFT_IO_WRITE, chunk, rd ? NULL : wdata,
			BLK_LBS, msg, sizeof(msg), rd ? &s : NULL, rd ? 1 : 0) &&
	       io_post(p, p->con[0], &io);
}

/*
 * Handles are sequential: a client that saw one knows the next.  It OPENs
 * -D and, without waiting for the answer, sends IO on the handle that
 * OPEN is about to get (READs and a WRITE) and on the one after, again
 * and again until the OPEN is answered.  rift-inject holds the OPEN
 * BLK_RACE_DELAY_MS between the handle's allocation and its answer (in
 * the mapping's kobject_add()), so many of those IOs arrive meanwhile:
 * the server must answer each ESTALE, as for a handle it never gave out
 * (not ENODEV, and never run one on the unfinished mapping).
 * RACE_FAIL: rift-inject then fails the OPEN (ENOMEM), which frees the
 * mapping: every IO on both handles is ESTALE, during the OPEN and after
 * it.  RACE_DELAY: the OPEN succeeds with the guessed handle; an IO on
 * it is ESTALE until the mapping is published and done from then on (a
 * few may be answered before the OPEN, right behind the publication; an
 * IO sent after one was done is never ESTALE); the handle after it is
 * never given out.  Either way the session then
 * maps, writes and reads as before.
 */
static bool open_race_once(const struct peer_case *tc, bool *exercised)
{
	const bool fail = tc->arg == RACE_FAIL;
	u8 omsg[sizeof(struct riftblk_wire_open)];
	struct race_tally g = { 0 }, g1 = { 0 };
	struct riftblk_dev_info info = { 0 };
	struct rift_rbuf region;
	const u8 *orsp = NULL;
	struct rift_imm rsp;
	bool open_answered = false, sent_published[4] = { false };
	unsigned int outstanding = 0;
	long long hits0, t0 = 0, t_open = 0;
	int open_err = 0;
	struct path p = { 0 };
	struct io io;
	u32 id, guess = 0;
	bool ok;
	u16 c;

	ok = need_dev() && path_up(&p) &&
	     EXPECT(p.info.queue_depth >= 4, "queue depth %u", p.info.queue_depth);
	hits0 = inject_hits();
	ok = ok && EXPECT(hits0 >= 0, "rift-inject is not loaded (tools/vm/inject)") &&
	     /* The handle the next OPEN gets, from this one's. */
	     blk_map(&p, dev_path, RIFTBLK_ACCESS_RW, &id) && blk_close_expect(&p, id, 0);
	guess = id + 1;
	pattern(wdata, BLK_LBS, 0x0be7);
	ok = ok && inject_arm(BLK_RACE_DELAY_MS, fail ? ENOMEM : 0, 1) &&
	     blk_open_msg(omsg, dev_path, RIFTBLK_ACCESS_RW);
	if (ok) {
		orsp = peer_read_region(p.con[0], &region.addr, &region.rkey);
		region.len = RIFTBLK_RSP_BUF_LEN;
		t0 = now_ms();
		ok = io_build(&p, &io, RIFT_IO_READ, 0, NULL, RIFTBLK_RSP_BUF_LEN, omsg,
			      sizeof(omsg), &region, 1) &&
		     io_post(&p, p.con[0], &io);
		outstanding++;
	}
	for (c = 1; ok && c <= 3; c++, outstanding++)
		ok = race_post(&p, &region, c, guess);
	/* One IO in flight per chunk, sent again once answered. */
	while (ok && outstanding) {
		ok = recv_imm(&p, p.con[0], &rsp) &&
		     EXPECT(rsp.type == RIFT_IMM_RSP && rsp.chunk <= 3,
			    "type %u chunk %u, expected an answer", rsp.type, rsp.chunk);
		if (!ok)
			break;
		outstanding--;
		if (!rsp.chunk) {
			open_answered = true;
			open_err = rsp.err;
			t_open = now_ms();
			continue;
		}
		race_count(rsp.chunk == 2 ? &g1 : &g, rsp.err, open_answered,
			   sent_published[rsp.chunk]);
		if (!open_answered) {
			sent_published[rsp.chunk] = rsp.chunk != 2 && g.early_ok;
			ok = race_post(&p, &region, rsp.chunk, guess);
			outstanding++;
		}
	}
	if (ok) {
		diag("OPEN answered %d after %lld ms; IO on handles %u and %u meanwhile:",
		     open_err, t_open - t0, guess, guess + 1);
		race_report("the OPEN's handle", &g);
		race_report("the handle after it", &g1);
	}
	ok = ok && inject_arm(0, 0, 0) &&
	     EXPECT(inject_hits() == hits0 + 1, "rift-inject acted %lld times, expected once",
		    inject_hits() - hits0) &&
	     expect_errno(open_err, fail ? -ENOMEM : 0, "OPEN held by rift-inject") &&
	     EXPECT(!g.other && !g1.other, "IO on a guessed handle answered %d (%s)",
		    g.other ? g.first_other : g1.first_other,
		    strerror(g.other ? -g.first_other : -g1.first_other)) &&
	     EXPECT(!g1.early_ok && !g1.late_ok, "IO on handle %u, never given out, done",
		    guess + 1) &&
	     EXPECT(!fail || (!g.early_ok && !g.late_ok),
		    "%u IOs done on the mapping of an OPEN that failed", g.early_ok + g.late_ok) &&
	     EXPECT(!g.stale_after_ok, "%u IOs sent after one was done on the handle: ESTALE",
		    g.stale_after_ok);
	*exercised = g.early_stale >= BLK_RACE_MIN_EARLY;
	if (ok && fail)
		ok = blk_all_stale(&p, guess);
	/* The handle guessed is the one the OPEN got. */
	if (ok && !fail)
		ok = EXPECT(!riftblk_dev_info_decode(RIFTBLK_MSG_OPEN_RSP, orsp,
						     RIFTBLK_RSP_BUF_LEN, &info) &&
			    info.dev_id == guess, "the OPEN got handle %u, not %u",
			    info.dev_id, guess) &&
		     blk_dev(&p, RIFTBLK_MSG_INFO, guess, RIFT_IO_READ, RIFTBLK_RSP_BUF_LEN,
			     &open_err, &info) &&
		     expect_errno(open_err, 0, "INFO of the OPEN's guessed handle") &&
		     blk_write_verify(&p, guess, 16, 0x0be8) && blk_close_expect(&p, guess, 0);
	ok = ok && blk_all_stale(&p, guess + 1) &&
	     /* The session is as good as before. */
	     blk_map(&p, dev_path, RIFTBLK_ACCESS_RW, &id) &&
	     blk_write_verify(&p, id, 24, 0x0be9) && blk_close_expect(&p, id, 0);
	if (!ok)
		inject_arm(0, 0, 0);
	path_down(&p);
	return ok;
}

/*
 * Every attempt must keep every rule; attempts go on only while none
 * had BLK_RACE_MIN_EARLY IOs answered during the hold.
 */
static bool case_open_race(const struct peer_case *tc)
{
	bool exercised = false;
	int i;

	for (i = 1; i <= BLK_RACE_TRIES; i++) {
		if (!open_race_once(tc, &exercised))
			return false;
		if (exercised)
			return true;
		if (i < BLK_RACE_TRIES)
			diag("attempt %d: fewer than %u IOs answered while the OPEN was held: again",
			     i, BLK_RACE_MIN_EARLY);
	}
	return EXPECT(false, "in %d attempts, never %u IOs on the OPEN's handle answered ESTALE before its answer",
		      BLK_RACE_TRIES, BLK_RACE_MIN_EARLY);
}

/* After everything: the session still maps, writes and reads. */
static bool case_still_serves(const struct peer_case *tc)
{
	struct path p = { 0 };
	bool ok;
	u32 id;

	(void)tc;
	ok = blk_up(&p, &id) && blk_write_verify(&p, id, 24, 99) &&
	     blk_op_expect(&p, id, RIFTBLK_OP_FLUSH, 0, 0, 0, 0) &&
	     blk_close_expect(&p, id, 0);
	path_down(&p);
	return ok;
}

#define CASE(n, fn)		{ .name = n, .run = fn }
#define VARIANT(n, fn, a)	{ .name = n, .run = fn, .arg = a }
/* Only when named: they need tools/vm/inject's rift-inject loaded. */
#define MANUAL(n, fn, a)	{ .name = n, .run = fn, .arg = a, .manual = true }

const struct peer_case blk_cases[] = {
	VARIANT("rb_handle_never_given",	case_foreign, FOREIGN_NEVER),
	VARIANT("rb_handle_of_other_session",	case_foreign, FOREIGN_OTHER_SESSION),
	VARIANT("rb_handle_enumeration",	case_foreign, FOREIGN_ENUM),
	VARIANT("rb_cache_flags_on_non_writes",	case_flags, FLAGS_CACHE_NON_WRITE),
	VARIANT("rb_flush_fua",			case_flags, FLAGS_FLUSH_FUA),
	VARIANT("rb_nounmap_off_write_zeroes",	case_flags, FLAGS_NOUNMAP),
	VARIANT("rb_unknown_flags",		case_flags, FLAGS_UNKNOWN),
	VARIANT("rb_unknown_ops",		case_flags, OPS_UNKNOWN),
	VARIANT("rb_unknown_types",		case_flags, TYPES_UNKNOWN),
	VARIANT("rb_malformed_header",		case_flags, HDR_MALFORMED),
	VARIANT("rb_beyond_end",		case_range, RANGE_END),
	VARIANT("rb_sector_wrap",		case_range, RANGE_WRAP),
	VARIANT("rb_not_block_aligned",		case_range, RANGE_ALIGN),
	VARIANT("rb_len_not_sectors",		case_range, RANGE_LEN_SECTORS),
	VARIANT("rb_len_zero",			case_range, RANGE_LEN_ZERO),
	VARIANT("rb_data_len_mismatch",		case_range, RANGE_XFER),
	VARIANT("rb_unsupported_ops",		case_range, RANGE_UNSUPPORTED),
	VARIANT("rb_read_only_mapping",		case_range, RANGE_READ_ONLY),
	VARIANT("rb_discard_4g_boundary",	case_range, RANGE_DISCARD_4G),
	VARIANT("rb_open_dotdot",		case_open, PATH_DOTDOT),
	VARIANT("rb_open_outside_search_path",	case_open, PATH_OUTSIDE),
	VARIANT("rb_open_not_block",		case_open, PATH_NOT_BLOCK),
	VARIANT("rb_open_long_path",		case_open, PATH_LONG),
	VARIANT("rb_open_bad_path_field",	case_open, PATH_FIELD),
	VARIANT("rb_open_path_without_nul",	case_open, PATH_NO_NUL),
	VARIANT("rb_open_malformed",		case_open, OPEN_FORM),
	VARIANT("rb_close_info_malformed",	case_open, DEV_MSG_FORM),
	VARIANT("rb_open_conflicts",		case_open, OPEN_CONFLICT),
	VARIANT("rb_open_refusal_flood",	case_open, OPEN_REFUSALS),
	CASE("rb_open_close_loop",		case_open_close_loop),
	CASE("rb_open_without_close",		case_open_no_close),
	CASE("rb_close_during_io",		case_close_during_io),
	CASE("rb_still_serves",			case_still_serves),
	MANUAL("rb_open_race_fail",		case_open_race, RACE_FAIL),
	MANUAL("rb_open_race_delay",		case_open_race, RACE_DELAY),
};

const size_t blk_nr_cases = ARRAY_SIZE(blk_cases);

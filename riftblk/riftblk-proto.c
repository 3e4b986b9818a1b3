// SPDX-License-Identifier: GPL-2.0
/*
 * riftblk wire format: encoders and decoders.
 *
 * Pure (no locks, no allocation, no kernel services), so that the same
 * code runs in both riftblk modules, the unit tests and the fuzzer.
 *
 * Decoders follow Rift's rules (see rift/rift-proto.c): lengths are
 * checked against what was received, wire structs are copied out with
 * memcpy() before use (the peer may rewrite the buffer meanwhile), and on
 * failure the output is cleared.  A message may be longer than this
 * version's struct (a newer peer appends fields): the excess is ignored.
 *
 * Errors: -EBADMSG for anything malformed off the wire, -EPROTO for a
 * well-formed message of the wrong type, -EINVAL for bad local arguments,
 * -EMSGSIZE when an encoder's buffer is too small.
 */

#include <linux/export.h>
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <asm/byteorder.h>

#include <riftblk/riftblk-proto.h>

static bool riftblk_is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

static void riftblk_hdr_fill(struct riftblk_wire_hdr *w, u16 type, size_t len)
{
	memset(w, 0, sizeof(*w));
	w->magic = cpu_to_le32(RIFTBLK_MAGIC);
	w->type = cpu_to_le16(type);
	w->version = cpu_to_le16(RIFTBLK_PROTO_VERSION);
	w->len = cpu_to_le16(len);
}

/**
 * riftblk_hdr_decode() - validate the header of a received message
 * @buf: received bytes
 * @len: number of bytes received
 * @hdr: filled in
 *
 * Return: 0, or -EBADMSG if the header is malformed or claims more bytes
 * than were received.
 */
int riftblk_hdr_decode(const void *buf, size_t len, struct riftblk_hdr *hdr)
{
	struct riftblk_wire_hdr w;
	u16 mlen;

	memset(hdr, 0, sizeof(*hdr));
	if (!buf || len < sizeof(w))
		return -EBADMSG;
	memcpy(&w, buf, sizeof(w));
	mlen = le16_to_cpu(w.len);
	if (le32_to_cpu(w.magic) != RIFTBLK_MAGIC || !le16_to_cpu(w.version) ||
	    mlen < sizeof(w) || mlen > len)
		return -EBADMSG;
	hdr->type = le16_to_cpu(w.type);
	hdr->version = le16_to_cpu(w.version);
	hdr->len = mlen;
	return 0;
}
EXPORT_SYMBOL_GPL(riftblk_hdr_decode);

/*
 * Header of a message of @type whose version-1 struct is @min bytes.
 * Return: the message length, or a negative errno.
 */
static int riftblk_msg_check(const void *buf, size_t len, u16 type, size_t min,
			     u16 *version)
{
	struct riftblk_hdr hdr;
	int err;

	err = riftblk_hdr_decode(buf, len, &hdr);
	if (err)
		return err;
	if (hdr.type != type)
		return -EPROTO;
	if (hdr.len < min)
		return -EBADMSG;
	*version = hdr.version;
	return hdr.len;
}

/* Printable ASCII without space: what a device path may contain. */
static bool riftblk_path_ok(const char *p, size_t len)
{
	size_t i;

	if (!len || len >= RIFTBLK_PATH_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (p[i] < 0x21 || p[i] > 0x7e)
			return false;
	return true;
}

/**
 * riftblk_open_encode() - write an OPEN
 * @open: what to ask for; @open->path NUL-terminated
 * @buf: destination
 * @cap: bytes at @buf
 *
 * Return: bytes written, -EINVAL for a bad mode or path, -EMSGSIZE.
 */
int riftblk_open_encode(const struct riftblk_open *open, void *buf, size_t cap)
{
	struct riftblk_wire_open w;
	size_t plen = strnlen(open->path, RIFTBLK_PATH_MAX);

	if (open->access_mode >= RIFTBLK_ACCESS_NR || !riftblk_path_ok(open->path, plen))
		return -EINVAL;
	if (cap < sizeof(w))
		return -EMSGSIZE;
	memset(&w, 0, sizeof(w));
	riftblk_hdr_fill(&w.hdr, RIFTBLK_MSG_OPEN, sizeof(w));
	w.access_mode = cpu_to_le16(open->access_mode);
	w.path_len = cpu_to_le16(plen);
	memcpy(w.path, open->path, plen);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(riftblk_open_encode);

/**
 * riftblk_open_decode() - validate a received OPEN
 * @buf: received bytes
 * @len: number of bytes received
 * @open: filled in; its path is NUL-terminated
 *
 * Return: 0, -EPROTO for another type, -EBADMSG if malformed.
 */
int riftblk_open_decode(const void *buf, size_t len, struct riftblk_open *open)
{
	struct riftblk_wire_open w;
	u16 version, plen, mode;
	int ret;

	memset(open, 0, sizeof(*open));
	ret = riftblk_msg_check(buf, len, RIFTBLK_MSG_OPEN, sizeof(w), &version);
	if (ret < 0)
		return ret;
	memcpy(&w, buf, sizeof(w));
	plen = le16_to_cpu(w.path_len);
	mode = le16_to_cpu(w.access_mode);
	if (mode >= RIFTBLK_ACCESS_NR || !riftblk_path_ok((const char *)w.path, plen))
		return -EBADMSG;
	open->version = version;
	open->access_mode = mode;
	memcpy(open->path, w.path, plen);
	open->path[plen] = '\0';
	return 0;
}
EXPORT_SYMBOL_GPL(riftblk_open_decode);

static bool riftblk_dev_info_ok(const struct riftblk_dev_info *info)
{
	u32 lbs = info->logical_block_size, pbs = info->physical_block_size;

	if (info->access_mode >= RIFTBLK_ACCESS_NR)
		return false;
	if (!riftblk_is_pow2(lbs) || lbs < RIFTBLK_LBS_MIN || lbs > RIFTBLK_LBS_MAX)
		return false;
	if (!riftblk_is_pow2(pbs) || pbs < lbs || pbs > RIFTBLK_PBS_MAX)
		return false;
	/* A whole number of logical blocks that a sector_t byte count holds. */
	if (info->nr_sectors % (lbs >> 9) || info->nr_sectors > (~0ULL >> 10))
		return false;
	/* Hints the block layer multiplies or rounds by must stay sane. */
	if (info->io_min % lbs || info->io_min > RIFTBLK_IO_HINT_MAX ||
	    info->io_opt % lbs || info->io_opt > RIFTBLK_IO_HINT_MAX)
		return false;
	/*
	 * A discard granularity that is not a power of two of at least a
	 * block makes the client's discard splitting loop for good (6.1's
	 * __blkdev_issue_discard() never checks for signals): a hostile
	 * server could hang blkdiscard, mkfs and fstrim with it.
	 */
	if (info->max_discard_sectors &&
	    (!riftblk_is_pow2(info->discard_granularity) ||
	     info->discard_granularity < lbs ||
	     info->discard_granularity > RIFTBLK_DISCARD_GRAN_MAX))
		return false;
	return info->max_hw_sectors >= (lbs >> 9);
}

/**
 * riftblk_dev_info_encode() - write an OPEN_RSP or INFO_RSP
 * @type: %RIFTBLK_MSG_OPEN_RSP or %RIFTBLK_MSG_INFO_RSP
 * @info: the mapping and device
 * @buf: destination
 * @cap: bytes at @buf
 *
 * Return: bytes written, -EINVAL for a bad type or values a receiver
 * would refuse, -EMSGSIZE.
 */
int riftblk_dev_info_encode(u16 type, const struct riftblk_dev_info *info,
			    void *buf, size_t cap)
{
	struct riftblk_wire_dev_info w;

	if ((type != RIFTBLK_MSG_OPEN_RSP && type != RIFTBLK_MSG_INFO_RSP) ||
	    !riftblk_dev_info_ok(info))
		return -EINVAL;
	if (cap < sizeof(w))
		return -EMSGSIZE;
	memset(&w, 0, sizeof(w));
	riftblk_hdr_fill(&w.hdr, type, sizeof(w));
	w.dev_id = cpu_to_le32(info->dev_id);
	w.access_mode = cpu_to_le16(info->access_mode);
	w.nr_sectors = cpu_to_le64(info->nr_sectors);
	w.logical_block_size = cpu_to_le32(info->logical_block_size);
	w.physical_block_size = cpu_to_le32(info->physical_block_size);
	w.io_min = cpu_to_le32(info->io_min);
	w.io_opt = cpu_to_le32(info->io_opt);
	w.max_hw_sectors = cpu_to_le32(info->max_hw_sectors);
	w.max_discard_sectors = cpu_to_le32(info->max_discard_sectors);
	w.discard_granularity = cpu_to_le32(info->discard_granularity);
	w.max_write_zeroes_sectors = cpu_to_le32(info->max_write_zeroes_sectors);
	w.max_secure_erase_sectors = cpu_to_le32(info->max_secure_erase_sectors);
	w.caps = cpu_to_le32(info->caps & RIFTBLK_CAP_KNOWN);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(riftblk_dev_info_encode);

/**
 * riftblk_dev_info_decode() - validate a received OPEN_RSP or INFO_RSP
 * @type: the type expected
 * @buf: received bytes
 * @len: number of bytes received
 * @info: filled in; unknown capability bits are dropped
 *
 * Return: 0, -EPROTO for another type, -EBADMSG if malformed.
 */
int riftblk_dev_info_decode(u16 type, const void *buf, size_t len,
			    struct riftblk_dev_info *info)
{
	struct riftblk_wire_dev_info w;
	u16 version;
	int ret;

	memset(info, 0, sizeof(*info));
	if (type != RIFTBLK_MSG_OPEN_RSP && type != RIFTBLK_MSG_INFO_RSP)
		return -EINVAL;
	ret = riftblk_msg_check(buf, len, type, sizeof(w), &version);
	if (ret < 0)
		return ret;
	memcpy(&w, buf, sizeof(w));
	info->version = version;
	info->dev_id = le32_to_cpu(w.dev_id);
	info->access_mode = le16_to_cpu(w.access_mode);
	info->nr_sectors = le64_to_cpu(w.nr_sectors);
	info->logical_block_size = le32_to_cpu(w.logical_block_size);
	info->physical_block_size = le32_to_cpu(w.physical_block_size);
	info->io_min = le32_to_cpu(w.io_min);
	info->io_opt = le32_to_cpu(w.io_opt);
	info->max_hw_sectors = le32_to_cpu(w.max_hw_sectors);
	info->max_discard_sectors = le32_to_cpu(w.max_discard_sectors);
	info->discard_granularity = le32_to_cpu(w.discard_granularity);
	info->max_write_zeroes_sectors = le32_to_cpu(w.max_write_zeroes_sectors);
	info->max_secure_erase_sectors = le32_to_cpu(w.max_secure_erase_sectors);
	info->caps = le32_to_cpu(w.caps) & RIFTBLK_CAP_KNOWN;
	if (!riftblk_dev_info_ok(info)) {
		memset(info, 0, sizeof(*info));
		return -EBADMSG;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(riftblk_dev_info_decode);

/**
 * riftblk_dev_encode() - write a CLOSE or INFO
 * @type: %RIFTBLK_MSG_CLOSE or %RIFTBLK_MSG_INFO
 * @dev_id: mapping
 * @buf: destination
 * @cap: bytes at @buf
 *
 * Return: bytes written, -EINVAL for a bad type, -EMSGSIZE.
 */
int riftblk_dev_encode(u16 type, u32 dev_id, void *buf, size_t cap)
{
	struct riftblk_wire_dev w;

	if (type != RIFTBLK_MSG_CLOSE && type != RIFTBLK_MSG_INFO)
		return -EINVAL;
	if (cap < sizeof(w))
		return -EMSGSIZE;
	memset(&w, 0, sizeof(w));
	riftblk_hdr_fill(&w.hdr, type, sizeof(w));
	w.dev_id = cpu_to_le32(dev_id);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(riftblk_dev_encode);

/**
 * riftblk_dev_decode() - validate a received CLOSE or INFO
 * @type: the type expected
 * @buf: received bytes
 * @len: number of bytes received
 * @dev_id: filled in
 *
 * Return: 0, -EPROTO for another type, -EBADMSG if malformed.
 */
int riftblk_dev_decode(u16 type, const void *buf, size_t len, u32 *dev_id)
{
	struct riftblk_wire_dev w;
	u16 version;
	int ret;

	*dev_id = 0;
	if (type != RIFTBLK_MSG_CLOSE && type != RIFTBLK_MSG_INFO)
		return -EINVAL;
	ret = riftblk_msg_check(buf, len, type, sizeof(w), &version);
	if (ret < 0)
		return ret;
	memcpy(&w, buf, sizeof(w));
	*dev_id = le32_to_cpu(w.dev_id);
	return 0;
}
EXPORT_SYMBOL_GPL(riftblk_dev_decode);

/*
 * What the transport can carry: lengths in whole sectors, data ops with
 * data, the others without; nothing that wraps the sector space.
 */
static bool riftblk_io_ok(const struct riftblk_io *io)
{
	u64 nr = io->len >> 9;

	if (io->op < RIFTBLK_OP_READ || io->op >= RIFTBLK_OP_NR ||
	    (io->flags & ~RIFTBLK_IO_F_KNOWN) || (io->len & 511))
		return false;
	if (io->op == RIFTBLK_OP_FLUSH)
		return !io->len && !io->sector &&
		       !(io->flags & (RIFTBLK_IO_F_FUA | RIFTBLK_IO_F_NOUNMAP));
	/*
	 * Cache flags qualify writes only: on a read-only mapping a read
	 * must not force cache flushes, and newer kernels warn about flush
	 * flags on bios that do not write data.
	 */
	if ((io->flags & (RIFTBLK_IO_F_FUA | RIFTBLK_IO_F_PREFLUSH)) &&
	    io->op != RIFTBLK_OP_WRITE)
		return false;
	if (!io->len || io->sector > (~0ULL >> 9) - nr)
		return false;
	/* NOUNMAP only qualifies write zeroes. */
	return !(io->flags & RIFTBLK_IO_F_NOUNMAP) || io->op == RIFTBLK_OP_WRITE_ZEROES;
}

/**
 * riftblk_io_encode() - write an IO
 * @io: the IO
 * @buf: destination
 * @cap: bytes at @buf
 *
 * Return: bytes written, -EINVAL for an IO the protocol cannot express,
 * -EMSGSIZE.
 */
int riftblk_io_encode(const struct riftblk_io *io, void *buf, size_t cap)
{
	struct riftblk_wire_io w;

	if (!riftblk_io_ok(io))
		return -EINVAL;
	if (cap < sizeof(w))
		return -EMSGSIZE;
	memset(&w, 0, sizeof(w));
	riftblk_hdr_fill(&w.hdr, RIFTBLK_MSG_IO, sizeof(w));
	w.dev_id = cpu_to_le32(io->dev_id);
	w.op = cpu_to_le16(io->op);
	w.flags = cpu_to_le16(io->flags);
	w.len = cpu_to_le32(io->len);
	w.sector = cpu_to_le64(io->sector);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(riftblk_io_encode);

/**
 * riftblk_io_decode() - validate a received IO
 * @buf: received bytes
 * @len: number of bytes received
 * @io: filled in
 *
 * Whether the IO fits the device and the request's data is the caller's
 * to check.
 *
 * Return: 0, -EPROTO for another type, -EBADMSG if malformed,
 * -EOPNOTSUPP for an unknown op or flag.
 */
int riftblk_io_decode(const void *buf, size_t len, struct riftblk_io *io)
{
	struct riftblk_wire_io w;
	u16 version;
	int ret;

	memset(io, 0, sizeof(*io));
	ret = riftblk_msg_check(buf, len, RIFTBLK_MSG_IO, sizeof(w), &version);
	if (ret < 0)
		return ret;
	memcpy(&w, buf, sizeof(w));
	io->dev_id = le32_to_cpu(w.dev_id);
	io->op = le16_to_cpu(w.op);
	io->flags = le16_to_cpu(w.flags);
	io->len = le32_to_cpu(w.len);
	io->sector = le64_to_cpu(w.sector);
	if (!riftblk_io_ok(io)) {
		ret = (io->op < RIFTBLK_OP_READ || io->op >= RIFTBLK_OP_NR ||
		       (io->flags & ~RIFTBLK_IO_F_KNOWN)) ? -EOPNOTSUPP : -EBADMSG;
		memset(io, 0, sizeof(*io));
		return ret;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(riftblk_io_decode);

static const char *const riftblk_mode_names[RIFTBLK_ACCESS_NR] = {
	[RIFTBLK_ACCESS_RO]		= "ro",
	[RIFTBLK_ACCESS_RW]		= "rw",
	[RIFTBLK_ACCESS_MIGRATION]	= "migration",
};

/**
 * riftblk_access_mode_name() - name of an access mode
 * @mode: enum riftblk_access_mode
 *
 * Return: "ro", "rw", "migration" or "unknown".
 */
const char *riftblk_access_mode_name(u16 mode)
{
	return mode < RIFTBLK_ACCESS_NR ? riftblk_mode_names[mode] : "unknown";
}
EXPORT_SYMBOL_GPL(riftblk_access_mode_name);

/**
 * riftblk_access_mode_parse() - access mode of a name
 * @name: "ro", "rw" or "migration", NUL-terminated
 *
 * Return: the mode, or -EINVAL.
 */
int riftblk_access_mode_parse(const char *name)
{
	int i;

	for (i = 0; i < RIFTBLK_ACCESS_NR; i++)
		if (!strcmp(name, riftblk_mode_names[i]))
			return i;
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(riftblk_access_mode_parse);

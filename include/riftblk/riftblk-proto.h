/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riftblk wire format and the pure codec shared by the client and server
 * modules, tools/unit and tools/fuzz.
 *
 * Documentation/riftblk-protocol.rst is the specification.  Every riftblk
 * message is the ULP header of one Rift request (at most RIFT_USR_LEN_MAX
 * bytes), or, for OPEN and INFO, also the data a RIFT_READ request brings
 * back.  Wire structs (riftblk_wire_*) are only (de)serialised; the rest
 * of riftblk works on the host-order structs the decoders fill after
 * validating every byte.
 */
#ifndef _RIFTBLK_PROTO_H
#define _RIFTBLK_PROTO_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/build_bug.h>

#include <rift/rift.h>

/* "RBLK" in ASCII on the wire. */
#define RIFTBLK_MAGIC			0x4b4c4252U
/* Versions only append fields; a receiver accepts any version >= 1. */
#define RIFTBLK_PROTO_VERSION		1
/* Not Rift's default port: the test ULP's server listens there. */
#define RIFTBLK_DEFAULT_PORT		7675
/* Device path bytes on the wire, including the terminating NUL. */
#define RIFTBLK_PATH_MAX		256
/* Size of the data buffer an OPEN or INFO request reads its answer into. */
#define RIFTBLK_RSP_BUF_LEN		4096U
#define RIFTBLK_MAX_PATHS		8
/* Text of one path= value ("[ip:]SRC@[ip:]DST" with IPv6 and scopes). */
#define RIFTBLK_ADDR_MAX		128
#define RIFTBLK_MAX_POLL_QUEUES		256

/**
 * enum riftblk_msg_type - riftblk message types
 * @RIFTBLK_MSG_OPEN: client to server: map a device (RIFT_READ request,
 *	answered with OPEN_RSP in the data buffer)
 * @RIFTBLK_MSG_OPEN_RSP: server to client: the mapping and the device's
 *	capabilities
 * @RIFTBLK_MSG_CLOSE: client to server: unmap (RIFT_WRITE, no data)
 * @RIFTBLK_MSG_IO: client to server: one block IO
 * @RIFTBLK_MSG_INFO: client to server: current capabilities and size of
 *	a mapped device (RIFT_READ, answered with INFO_RSP)
 * @RIFTBLK_MSG_INFO_RSP: server to client: as OPEN_RSP
 * @RIFTBLK_MSG_NR: first unassigned type
 */
enum riftblk_msg_type {
	RIFTBLK_MSG_OPEN	= 1,
	RIFTBLK_MSG_OPEN_RSP	= 2,
	RIFTBLK_MSG_CLOSE	= 3,
	RIFTBLK_MSG_IO		= 4,
	RIFTBLK_MSG_INFO	= 5,
	RIFTBLK_MSG_INFO_RSP	= 6,
	RIFTBLK_MSG_NR,
};

/**
 * enum riftblk_access_mode - what a mapping may do
 * @RIFTBLK_ACCESS_RO: read only; any number per device
 * @RIFTBLK_ACCESS_RW: read and write; one per device
 * @RIFTBLK_ACCESS_MIGRATION: read and write, as the second writer of a
 *	device during a live migration; one per device
 * @RIFTBLK_ACCESS_NR: first unassigned mode
 */
enum riftblk_access_mode {
	RIFTBLK_ACCESS_RO		= 0,
	RIFTBLK_ACCESS_RW		= 1,
	RIFTBLK_ACCESS_MIGRATION	= 2,
	RIFTBLK_ACCESS_NR,
};

/**
 * enum riftblk_io_op - operation of an IO message
 * @RIFTBLK_OP_READ: read @len bytes (RIFT_READ request of @len bytes)
 * @RIFTBLK_OP_WRITE: write @len bytes (RIFT_WRITE request of @len bytes)
 * @RIFTBLK_OP_FLUSH: flush the device's write cache (no data, @len 0)
 * @RIFTBLK_OP_DISCARD: discard @len bytes (no data)
 * @RIFTBLK_OP_WRITE_ZEROES: zero @len bytes (no data)
 * @RIFTBLK_OP_SECURE_ERASE: securely erase @len bytes (no data)
 * @RIFTBLK_OP_NR: first unassigned op
 */
enum riftblk_io_op {
	RIFTBLK_OP_READ		= 1,
	RIFTBLK_OP_WRITE	= 2,
	RIFTBLK_OP_FLUSH	= 3,
	RIFTBLK_OP_DISCARD	= 4,
	RIFTBLK_OP_WRITE_ZEROES	= 5,
	RIFTBLK_OP_SECURE_ERASE	= 6,
	RIFTBLK_OP_NR,
};

/* IO flags change what an IO means: a receiver refuses unknown ones. */
#define RIFTBLK_IO_F_FUA		BIT(0)
#define RIFTBLK_IO_F_PREFLUSH		BIT(1)
#define RIFTBLK_IO_F_NOUNMAP		BIT(2)
#define RIFTBLK_IO_F_KNOWN		(RIFTBLK_IO_F_FUA | RIFTBLK_IO_F_PREFLUSH | \
					 RIFTBLK_IO_F_NOUNMAP)

/* Device capabilities: only hints, so unknown bits are ignored. */
#define RIFTBLK_CAP_WRITE_CACHE		BIT(0)
#define RIFTBLK_CAP_FUA			BIT(1)
#define RIFTBLK_CAP_ROTATIONAL		BIT(2)
#define RIFTBLK_CAP_KNOWN		(RIFTBLK_CAP_WRITE_CACHE | RIFTBLK_CAP_FUA | \
					 RIFTBLK_CAP_ROTATIONAL)

/* Logical block sizes a mapping may have. */
#define RIFTBLK_LBS_MIN			512U
#define RIFTBLK_LBS_MAX			4096U
#define RIFTBLK_PBS_MAX			(64U << 10)
/*
 * io_min and io_opt above this are not believed: the block layer sizes
 * readahead as twice io_opt in 32 bits.
 */
#define RIFTBLK_IO_HINT_MAX		(256U << 20)
/* A larger granularity makes the block layer's discard split loop spin. */
#define RIFTBLK_DISCARD_GRAN_MAX	BIT(30)

/* ------------------------------------------------------------------ */
/* On-wire structures.  Sizes are part of the protocol.                */
/* ------------------------------------------------------------------ */

/**
 * struct riftblk_wire_hdr - first bytes of every riftblk message
 * @magic: %RIFTBLK_MAGIC
 * @type: enum riftblk_msg_type
 * @version: sender's protocol version, at least 1
 * @len: bytes of the whole message, this header included; at least the
 *	type's version-1 size, at most what the transport delivered
 * @flags: none defined; zero when sent, ignored when received
 * @reserved: zero when sent, ignored when received
 */
struct riftblk_wire_hdr {
	__le32	magic;
	__le16	type;
	__le16	version;
	__le16	len;
	__le16	flags;
	__le32	reserved;
};

static_assert(sizeof(struct riftblk_wire_hdr) == 16);

/**
 * struct riftblk_wire_open - OPEN
 * @hdr: type %RIFTBLK_MSG_OPEN
 * @access_mode: enum riftblk_access_mode
 * @path_len: bytes of @path before its NUL, 1..%RIFTBLK_PATH_MAX - 1
 * @reserved: zero when sent, ignored when received
 * @path: device path, NUL-padded; printable ASCII without spaces
 */
struct riftblk_wire_open {
	struct riftblk_wire_hdr	hdr;
	__le16	access_mode;
	__le16	path_len;
	__le32	reserved[3];
	u8	path[RIFTBLK_PATH_MAX];
};

static_assert(sizeof(struct riftblk_wire_open) == 288);
static_assert(sizeof(struct riftblk_wire_open) <= RIFT_USR_LEN_MAX);

/**
 * struct riftblk_wire_dev_info - OPEN_RSP and INFO_RSP
 * @hdr: type %RIFTBLK_MSG_OPEN_RSP or %RIFTBLK_MSG_INFO_RSP
 * @dev_id: the server's handle of the mapping, named by later messages
 * @access_mode: mode granted
 * @reserved0: zero when sent, ignored when received
 * @nr_sectors: device size in 512-byte sectors, a whole number of
 *	logical blocks
 * @logical_block_size: power of two, %RIFTBLK_LBS_MIN..%RIFTBLK_LBS_MAX
 * @physical_block_size: power of two, at least @logical_block_size
 * @io_min: preferred minimum IO size in bytes, 0 if unknown
 * @io_opt: optimal IO size in bytes, 0 if unknown
 * @max_hw_sectors: largest IO the device takes at once, in sectors
 * @max_discard_sectors: 0 if the device cannot discard
 * @discard_granularity: bytes
 * @max_write_zeroes_sectors: 0 if the device cannot write zeroes
 * @max_secure_erase_sectors: 0 if the device cannot securely erase
 * @caps: RIFTBLK_CAP_* bits
 * @reserved: zero when sent, ignored when received
 */
struct riftblk_wire_dev_info {
	struct riftblk_wire_hdr	hdr;
	__le32	dev_id;
	__le16	access_mode;
	__le16	reserved0;
	__le64	nr_sectors;
	__le32	logical_block_size;
	__le32	physical_block_size;
	__le32	io_min;
	__le32	io_opt;
	__le32	max_hw_sectors;
	__le32	max_discard_sectors;
	__le32	discard_granularity;
	__le32	max_write_zeroes_sectors;
	__le32	max_secure_erase_sectors;
	__le32	caps;
	u8	reserved[24];
};

static_assert(sizeof(struct riftblk_wire_dev_info) == 96);
static_assert(sizeof(struct riftblk_wire_dev_info) <= RIFTBLK_RSP_BUF_LEN);

/**
 * struct riftblk_wire_dev - CLOSE and INFO
 * @hdr: type %RIFTBLK_MSG_CLOSE or %RIFTBLK_MSG_INFO
 * @dev_id: mapping, from OPEN_RSP
 * @reserved: zero when sent, ignored when received
 */
struct riftblk_wire_dev {
	struct riftblk_wire_hdr	hdr;
	__le32	dev_id;
	__le32	reserved;
};

static_assert(sizeof(struct riftblk_wire_dev) == 24);

/**
 * struct riftblk_wire_io - IO
 * @hdr: type %RIFTBLK_MSG_IO
 * @dev_id: mapping, from OPEN_RSP
 * @op: enum riftblk_io_op
 * @flags: RIFTBLK_IO_F_*
 * @len: bytes, a multiple of 512; the request's data length for reads
 *	and writes, 0 for a flush
 * @reserved: zero when sent, ignored when received
 * @sector: first 512-byte sector; 0 for a flush
 */
struct riftblk_wire_io {
	struct riftblk_wire_hdr	hdr;
	__le32	dev_id;
	__le16	op;
	__le16	flags;
	__le32	len;
	__le32	reserved;
	__le64	sector;
};

static_assert(sizeof(struct riftblk_wire_io) == 40);

/* ------------------------------------------------------------------ */
/* Host-order structures filled by the decoders.                       */
/* ------------------------------------------------------------------ */

/**
 * struct riftblk_hdr - a decoded message header
 * @type: message type (not checked against the known ones)
 * @version: sender's version
 * @len: message length, within what was received
 */
struct riftblk_hdr {
	u16	type;
	u16	version;
	u16	len;
};

/**
 * struct riftblk_open - a decoded OPEN
 * @version: sender's version
 * @access_mode: enum riftblk_access_mode
 * @path: NUL-terminated device path
 */
struct riftblk_open {
	u16	version;
	u16	access_mode;
	char	path[RIFTBLK_PATH_MAX];
};

/**
 * struct riftblk_dev_info - a decoded OPEN_RSP or INFO_RSP
 * @version: sender's version
 * @dev_id: mapping handle
 * @access_mode: mode granted
 * @nr_sectors: size in 512-byte sectors
 * @logical_block_size: bytes
 * @physical_block_size: bytes
 * @io_min: bytes
 * @io_opt: bytes
 * @max_hw_sectors: sectors
 * @max_discard_sectors: sectors, 0: no discard
 * @discard_granularity: bytes
 * @max_write_zeroes_sectors: sectors, 0: no write zeroes
 * @max_secure_erase_sectors: sectors, 0: no secure erase
 * @caps: RIFTBLK_CAP_* bits this version knows
 */
struct riftblk_dev_info {
	u16	version;
	u32	dev_id;
	u16	access_mode;
	u64	nr_sectors;
	u32	logical_block_size;
	u32	physical_block_size;
	u32	io_min;
	u32	io_opt;
	u32	max_hw_sectors;
	u32	max_discard_sectors;
	u32	discard_granularity;
	u32	max_write_zeroes_sectors;
	u32	max_secure_erase_sectors;
	u32	caps;
};

/**
 * struct riftblk_io - a decoded IO
 * @dev_id: mapping handle
 * @op: enum riftblk_io_op
 * @flags: RIFTBLK_IO_F_*
 * @len: bytes
 * @sector: first sector
 */
struct riftblk_io {
	u32	dev_id;
	u16	op;
	u16	flags;
	u32	len;
	u64	sector;
};

int riftblk_hdr_decode(const void *buf, size_t len, struct riftblk_hdr *hdr);
int riftblk_open_encode(const struct riftblk_open *open, void *buf, size_t cap);
int riftblk_open_decode(const void *buf, size_t len, struct riftblk_open *open);
int riftblk_dev_info_encode(u16 type, const struct riftblk_dev_info *info,
			    void *buf, size_t cap);
int riftblk_dev_info_decode(u16 type, const void *buf, size_t len,
			    struct riftblk_dev_info *info);
int riftblk_dev_encode(u16 type, u32 dev_id, void *buf, size_t cap);
int riftblk_dev_decode(u16 type, const void *buf, size_t len, u32 *dev_id);
int riftblk_io_encode(const struct riftblk_io *io, void *buf, size_t cap);
int riftblk_io_decode(const void *buf, size_t len, struct riftblk_io *io);
const char *riftblk_access_mode_name(u16 mode);
int riftblk_access_mode_parse(const char *name);

#endif /* _RIFTBLK_PROTO_H */

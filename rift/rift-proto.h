/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift wire format.
 *
 * Documentation/rift-protocol.rst is the specification; this header is its
 * C rendering, private to the transport (rift-core, rift-client,
 * rift-server) and to the user-space tools under tools/, which reach it by
 * include path.  ULPs see include/rift/rift.h only: the limits both share
 * (name, ULP header and secret lengths, queue depth, connections) are
 * defined there.  Every multi-byte field on the wire is little endian except
 * the RDMA immediate, which verbs hand over in network order.  Wire structs
 * are named rift_wire_* and are never used for anything but (de)serialising:
 * the rest of Rift works on the host-order structs that the codec in
 * rift/rift-proto.c fills after validating every byte it received.
 */
#ifndef _RIFT_PROTO_H
#define _RIFT_PROTO_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/build_bug.h>

#include <rift/rift.h>

/* Protocol versions this build speaks; 0 is never a valid version. */
#define RIFT_PROTO_VERSION_MIN		1
#define RIFT_PROTO_VERSION_MAX		1

/* Magics are ASCII on the wire ("RFRQ", "RFRS", "RFRJ", "RFIN"). */
#define RIFT_CON_REQ_MAGIC		0x51524652U
#define RIFT_CON_RSP_MAGIC		0x53524652U
#define RIFT_REJECT_MAGIC		0x4a524652U
#define RIFT_INFO_MAGIC			0x4e494652U
/* First byte of an IO descriptor; bumped if the descriptor layout changes. */
#define RIFT_IO_DESC_MAGIC		0xa1

/*
 * IB CM REQ private data is 92 bytes and rdma_cm keeps 36 of them for its
 * own header, so 56 bytes is all a CON_REQ may ever use.
 */
#define RIFT_CON_PRIV_MAX		56
#define RIFT_UUID_LEN			16

/*
 * Host authentication (see "Authentication" in the specification): each
 * side contributes a random nonce, proofs are HMAC-SHA256 over a
 * transcript both ends build from what they exchanged.
 */
#define RIFT_AUTH_NONCE_LEN		32
#define RIFT_AUTH_PROOF_LEN		32

/* Sizing limits; see "Limits" in the specification (and rift.h). */
#define RIFT_CHUNK_SIZE_MIN		4096U
#define RIFT_CHUNK_SIZE_MAX		(4U << 20)
#define RIFT_CHUNK_SIZE_ALIGN		4096U
#define RIFT_IO_SIZE_MIN		512U
#define RIFT_IO_SIZE_ALIGN		512U
#define RIFT_CHUNK_HEADROOM		1024U
#define RIFT_IO_MAX_SEGS		128U
#define RIFT_IO_DESC_ALIGN		64U

#define RIFT_HB_INTERVAL_MIN_MS		100U
#define RIFT_HB_INTERVAL_MAX_MS		60000U
#define RIFT_HB_INTERVAL_DEFAULT_MS	1000U
#define RIFT_HB_MISSED_MIN		1U
#define RIFT_HB_MISSED_LIMIT		100U
#define RIFT_HB_MISSED_DEFAULT		5U

#define RIFT_INFO_MAX_LEN		(128U << 10)
/* INFO_REQ carries no chunk table: what a server receives it into. */
#define RIFT_INFO_REQ_MAX_LEN		4096U
#define RIFT_INFO_ALIGN			8U
#define RIFT_INFO_CHUNKS_PER_TLV	1024U

/* CON_REQ flags. */
#define RIFT_CON_F_JOIN			BIT(0)
#define RIFT_CON_F_KNOWN		RIFT_CON_F_JOIN

/* CON_RSP flags. */
#define RIFT_CON_RSP_F_NEW_SESSION	BIT(0)
#define RIFT_CON_RSP_F_KNOWN		RIFT_CON_RSP_F_NEW_SESSION

/* Feature bits, negotiated in INFO_REQ/INFO_RSP. */
#define RIFT_FEAT_ALWAYS_INVALIDATE	BIT_ULL(0)
#define RIFT_FEAT_CANCEL		BIT_ULL(1)
/*
 * The client follows ALWAYS_INVALIDATE if the server imposes it; it does
 * not ask for it (that is bit 0).  A server may then accept bit 0 although
 * it was not offered.
 */
#define RIFT_FEAT_AI_CAPABLE		BIT_ULL(2)
/*
 * Requests carry a per-chunk generation (descriptor @gen) and a CANCEL
 * names it in its immediate's arg, so a CANCEL that arrives after the
 * chunk was reused cannot cancel the next request.  Only meaningful
 * together with %RIFT_FEAT_CANCEL; a server accepts it only with that.
 */
#define RIFT_FEAT_CANCEL_GEN		BIT_ULL(3)
/*
 * The server grants chunks as credits: INFO_RSP's chunk table is the
 * initial grant (at least the floor, at most QUEUE_DEPTH entries), and
 * CREDIT_REQ, CREDIT and CREDIT_REL grow it, shrink it and give chunks
 * back (Documentation/rift-protocol.rst, "Memory credits").
 */
#define RIFT_FEAT_CREDITS		BIT_ULL(4)
/*
 * Requests carry the per-chunk generation in their descriptor (as with
 * %RIFT_FEAT_CANCEL_GEN, which it does not need) and every RSP and
 * RSP_RKEY echoes its low %RIFT_IMM_RSP_GEN_BITS bits in arg bits
 * 15..12, so a client tells a duplicate or stale answer from the answer
 * to the request that holds the chunk now.  Without it those bits are 0.
 */
#define RIFT_FEAT_RSP_GEN		BIT_ULL(5)
/*
 * With %RIFT_FEAT_ALWAYS_INVALIDATE: a write request ends with a SEND
 * WITH_INVALIDATE of its chunk's current rkey, whose payload (struct
 * rift_wire_write_inv) carries the immediate its header write would
 * have, instead of that header going as a WRITE WITH_IMM.  The key dies
 * on the server's device as the request lands, so the server gives the
 * write to its ULP without a local invalidate of its own.  Reads are not
 * affected.  Only meaningful with always-invalidate; a server accepts it
 * only with that.
 */
#define RIFT_FEAT_REMOTE_INV		BIT_ULL(6)
#define RIFT_FEAT_KNOWN			(RIFT_FEAT_ALWAYS_INVALIDATE | RIFT_FEAT_CANCEL | \
					 RIFT_FEAT_AI_CAPABLE | RIFT_FEAT_CANCEL_GEN | \
					 RIFT_FEAT_CREDITS | RIFT_FEAT_RSP_GEN | \
					 RIFT_FEAT_REMOTE_INV)

/* IO descriptor flags: none are defined in version 1. */
#define RIFT_IO_F_KNOWN			0U

/* TLV type bit telling a receiver that does not know the type to fail. */
#define RIFT_TLV_CRITICAL		BIT(15)
#define RIFT_TLV_TYPE_MASK		0x7fffU

/*
 * Immediate data layout (host order, after be32_to_cpu()):
 *
 *   31    28 27          16 15                   0
 *  +--------+--------------+----------------------+
 *  |  type  |   chunk id   |         arg          |
 *  +--------+--------------+----------------------+
 */
#define RIFT_IMM_TYPE_BITS		4
#define RIFT_IMM_CHUNK_BITS		12
#define RIFT_IMM_ARG_BITS		16
#define RIFT_IMM_ARG_SHIFT		0
#define RIFT_IMM_CHUNK_SHIFT		(RIFT_IMM_ARG_SHIFT + RIFT_IMM_ARG_BITS)
#define RIFT_IMM_TYPE_SHIFT		(RIFT_IMM_CHUNK_SHIFT + RIFT_IMM_CHUNK_BITS)
#define RIFT_IMM_ARG_MASK		GENMASK(RIFT_IMM_ARG_BITS - 1, 0)
#define RIFT_IMM_CHUNK_MASK		GENMASK(RIFT_IMM_CHUNK_BITS - 1, 0)
#define RIFT_IMM_TYPE_MASK		GENMASK(RIFT_IMM_TYPE_BITS - 1, 0)
/*
 * Response arg: positive errno in the low 12 bits; bits 15..12 carry the
 * low 4 bits of the answered request's generation with
 * %RIFT_FEAT_RSP_GEN and must be zero without it.
 */
#define RIFT_IMM_ERRNO_BITS		12
#define RIFT_IMM_ERRNO_MAX		4095
#define RIFT_IMM_RSP_GEN_BITS		4
#define RIFT_IMM_RSP_GEN_SHIFT		RIFT_IMM_ERRNO_BITS
#define RIFT_IMM_RSP_GEN_MASK		GENMASK(RIFT_IMM_RSP_GEN_BITS - 1, 0)

static_assert(RIFT_IMM_TYPE_BITS + RIFT_IMM_CHUNK_BITS + RIFT_IMM_ARG_BITS == 32);
static_assert(RIFT_IMM_TYPE_SHIFT + RIFT_IMM_TYPE_BITS == 32);
static_assert((1U << RIFT_IMM_CHUNK_BITS) >= RIFT_MAX_QUEUE_DEPTH);
static_assert((1ULL << RIFT_IMM_ARG_BITS) * RIFT_IO_DESC_ALIGN >= RIFT_CHUNK_SIZE_MAX);
static_assert((1U << RIFT_IMM_ERRNO_BITS) - 1 == RIFT_IMM_ERRNO_MAX);
static_assert(RIFT_IMM_ERRNO_BITS <= RIFT_IMM_ARG_BITS);
static_assert(RIFT_IMM_RSP_GEN_SHIFT + RIFT_IMM_RSP_GEN_BITS == RIFT_IMM_ARG_BITS);

/**
 * enum rift_imm_type - message type carried in bits 31..28 of an immediate
 * @RIFT_IMM_INVALID: never sent, so that an all-zero immediate is rejected
 * @RIFT_IMM_WRITE: client to server: a write request sits in chunk @chunk,
 *	arg is the descriptor offset in units of %RIFT_IO_DESC_ALIGN
 * @RIFT_IMM_READ: client to server: a read request, arg as for WRITE
 * @RIFT_IMM_RSP: server to client: request in chunk @chunk completed,
 *	arg bits 11..0 are the positive errno (0 = success), bits 15..12
 *	the low bits of the request's generation with %RIFT_FEAT_RSP_GEN
 *	(0 without)
 * @RIFT_IMM_RSP_RKEY: as RSP, but sent as SEND with immediate carrying a
 *	struct rift_wire_rkey_msg with the chunk's new rkey; only used when
 *	%RIFT_FEAT_ALWAYS_INVALIDATE was accepted
 * @RIFT_IMM_HB: heartbeat request, arg is a sequence number, chunk is 0
 * @RIFT_IMM_HB_ACK: heartbeat answer echoing the request's sequence number
 * @RIFT_IMM_CANCEL: client to server: the request in chunk @chunk timed
 *	out; answer it without sending read data.  arg is the generation of
 *	that request (its descriptor's @gen) when %RIFT_FEAT_CANCEL_GEN was
 *	accepted, 0 otherwise.  Only used when %RIFT_FEAT_CANCEL was accepted
 * @RIFT_IMM_CREDIT_REQ: client to server, connection 0: arg is @want, the
 *	chunks the client wants to hold in total; chunk id 0 (the receiver
 *	checks both, so that it can name the violation)
 * @RIFT_IMM_CREDIT: server to client, connection 0: SEND with immediate
 *	carrying struct rift_wire_credit; chunk id and arg 0
 * @RIFT_IMM_CREDIT_REL: client to server, connection 0: chunk @chunk is
 *	given back; arg 0 (the receiver checks the chunk id)
 * @RIFT_IMM_TYPE_NR: first unassigned type; it and all above are rejected
 */
enum rift_imm_type {
	RIFT_IMM_INVALID	= 0,
	RIFT_IMM_WRITE		= 1,
	RIFT_IMM_READ		= 2,
	RIFT_IMM_RSP		= 3,
	RIFT_IMM_RSP_RKEY	= 4,
	RIFT_IMM_HB		= 5,
	RIFT_IMM_HB_ACK		= 6,
	RIFT_IMM_CANCEL		= 7,
	RIFT_IMM_CREDIT_REQ	= 8,
	RIFT_IMM_CREDIT		= 9,
	RIFT_IMM_CREDIT_REL	= 10,
	RIFT_IMM_TYPE_NR,
};

static_assert(RIFT_IMM_TYPE_NR <= (1U << RIFT_IMM_TYPE_BITS));

/**
 * enum rift_reject_reason - why a server refused a connection
 * @RIFT_REJ_NONE: not a refusal; the value of CON_RSP status on success
 * @RIFT_REJ_VERSION: no protocol version in common
 * @RIFT_REJ_UNKNOWN_SESSION: %RIFT_CON_F_JOIN set but no such session
 * @RIFT_REJ_SESSION_CLOSING: the session is being torn down
 * @RIFT_REJ_NO_RESOURCES: the server cannot allocate what the path needs
 * @RIFT_REJ_MALFORMED: the CON_REQ did not validate
 * @RIFT_REJ_BAD_CON_INDEX: index or count disagrees with the session
 * @RIFT_REJ_STALE_GEN: reconnect generation older than the one in use
 * @RIFT_REJ_DUPLICATE_CON: that connection index is already established
 * @RIFT_REJ_ACCESS_DENIED: server policy refuses this client or session
 * @RIFT_REJ_INTERNAL: unexpected server-side failure
 * @RIFT_REJ_NR: first unassigned code; newer peers may send higher ones
 */
enum rift_reject_reason {
	RIFT_REJ_NONE			= 0,
	RIFT_REJ_VERSION		= 1,
	RIFT_REJ_UNKNOWN_SESSION	= 2,
	RIFT_REJ_SESSION_CLOSING	= 3,
	RIFT_REJ_NO_RESOURCES		= 4,
	RIFT_REJ_MALFORMED		= 5,
	RIFT_REJ_BAD_CON_INDEX		= 6,
	RIFT_REJ_STALE_GEN		= 7,
	RIFT_REJ_DUPLICATE_CON		= 8,
	RIFT_REJ_ACCESS_DENIED		= 9,
	RIFT_REJ_INTERNAL		= 10,
	RIFT_REJ_NR,
};

/**
 * enum rift_info_type - INFO message types
 * @RIFT_INFO_REQ: client to server, first SEND on connection 0
 * @RIFT_INFO_RSP: server to client, the answer to INFO_REQ
 */
enum rift_info_type {
	RIFT_INFO_REQ	= 1,
	RIFT_INFO_RSP	= 2,
};

/**
 * enum rift_tlv_type - INFO attribute types (low 15 bits of the TLV type)
 * @RIFT_TLV_SESS_NAME: session name string (INFO_REQ, required)
 * @RIFT_TLV_HOST_NAME: sender's host name string (optional, both)
 * @RIFT_TLV_FEAT_OFFERED: le64 feature bits the client offers (INFO_REQ)
 * @RIFT_TLV_FEAT_ACCEPTED: le64 feature bits the server turned on (INFO_RSP)
 * @RIFT_TLV_HB_INTERVAL_MS: le32 heartbeat interval; a preference in
 *	INFO_REQ, binding and required in INFO_RSP
 * @RIFT_TLV_HB_MISSED_MAX: le32 missed heartbeats before a path is failed
 *	(INFO_RSP, optional, default %RIFT_HB_MISSED_DEFAULT)
 * @RIFT_TLV_MAX_IO_SIZE: le32 largest data_len of one request (INFO_RSP)
 * @RIFT_TLV_QUEUE_DEPTH: le32 number of server chunks (INFO_RSP)
 * @RIFT_TLV_CHUNK_SIZE: le32 size of every server chunk (INFO_RSP)
 * @RIFT_TLV_CHUNK_TABLE: a run of chunk descriptors (INFO_RSP, repeatable)
 * @RIFT_TLV_HOST_UUID: the client host's 16-byte UUID (INFO_REQ, optional)
 * @RIFT_TLV_AUTH_NONCE: the client's %RIFT_AUTH_NONCE_LEN-byte nonce
 *	(INFO_REQ, optional; the server then proves its secret if it has one)
 * @RIFT_TLV_AUTH_PROOF: %RIFT_AUTH_PROOF_LEN-byte HMAC proof: the client's
 *	in INFO_REQ, the server's in INFO_RSP
 * @RIFT_TLV_NR: first unassigned type
 */
enum rift_tlv_type {
	RIFT_TLV_SESS_NAME	= 1,
	RIFT_TLV_HOST_NAME	= 2,
	RIFT_TLV_FEAT_OFFERED	= 3,
	RIFT_TLV_FEAT_ACCEPTED	= 4,
	RIFT_TLV_HB_INTERVAL_MS	= 5,
	RIFT_TLV_HB_MISSED_MAX	= 6,
	RIFT_TLV_MAX_IO_SIZE	= 7,
	RIFT_TLV_QUEUE_DEPTH	= 8,
	RIFT_TLV_CHUNK_SIZE	= 9,
	RIFT_TLV_CHUNK_TABLE	= 10,
	RIFT_TLV_HOST_UUID	= 11,
	RIFT_TLV_AUTH_NONCE	= 12,
	RIFT_TLV_AUTH_PROOF	= 13,
	RIFT_TLV_NR,
};

/* rift_info.present is a u32 bitmap indexed by TLV type. */
static_assert(RIFT_TLV_NR <= 32);

/**
 * enum rift_io_dir - direction of an IO request, seen from the client
 * @RIFT_IO_WRITE: payload travels client to server inside the chunk
 * @RIFT_IO_READ: server RDMA-writes the payload into client segments
 */
enum rift_io_dir {
	RIFT_IO_WRITE	= 1,
	RIFT_IO_READ	= 2,
};

/* ------------------------------------------------------------------ */
/* On-wire structures.  Sizes are part of the protocol.                */
/* ------------------------------------------------------------------ */

/**
 * struct rift_wire_con_req - CON_REQ, rdma_connect() private data
 * @magic: %RIFT_CON_REQ_MAGIC
 * @min_version: lowest protocol version the client speaks
 * @max_version: highest protocol version the client speaks
 * @sess_uuid: session identity, chosen by the client, never all-zero
 * @path_uuid: path identity within the session, never all-zero
 * @con_idx: index of this connection within the path
 * @con_cnt: number of connections the path will have
 * @queue_depth: chunks the client asks for (1..%RIFT_MAX_QUEUE_DEPTH)
 * @flags: RIFT_CON_F_*; unknown bits are ignored by the server
 * @reconnect_gen: bumped by the client each time it re-establishes the path
 * @reserved: zero when sent, ignored when received
 */
struct rift_wire_con_req {
	__le32	magic;
	__le16	min_version;
	__le16	max_version;
	u8	sess_uuid[RIFT_UUID_LEN];
	u8	path_uuid[RIFT_UUID_LEN];
	__le16	con_idx;
	__le16	con_cnt;
	__le16	queue_depth;
	__le16	flags;
	__le32	reconnect_gen;
	u8	reserved[4];
};

static_assert(sizeof(struct rift_wire_con_req) == 56);
static_assert(sizeof(struct rift_wire_con_req) <= RIFT_CON_PRIV_MAX);

/**
 * struct rift_wire_con_rsp - CON_RSP, rdma_accept() private data
 * @magic: %RIFT_CON_RSP_MAGIC
 * @version: version chosen by the server from the client's range
 * @status: %RIFT_REJ_NONE, or a reason code when the server had to accept
 *	the CM connection only to refuse it (the client then disconnects)
 * @queue_depth: chunks granted, at most what was requested
 * @flags: RIFT_CON_RSP_F_*; unknown bits are ignored by the client
 * @max_io_size: largest data_len of a single request
 * @chunk_size: bytes in each server chunk
 * @reserved: zero when sent, ignored when received
 * @auth_nonce: the server's nonce for this path instance, the same in the
 *	CON_RSP of every connection of it; a client proves its secret over it
 *	in INFO_REQ.  Absent from the 32-byte CON_RSP of servers that predate
 *	authentication (%RIFT_CON_RSP_V1_LEN)
 */
struct rift_wire_con_rsp {
	__le32	magic;
	__le16	version;
	__le16	status;
	__le16	queue_depth;
	__le16	flags;
	__le32	max_io_size;
	__le32	chunk_size;
	u8	reserved[12];
	u8	auth_nonce[RIFT_AUTH_NONCE_LEN];
};

static_assert(sizeof(struct rift_wire_con_rsp) == 64);
/* The CON_RSP before the nonce; decoders accept it (no nonce then). */
#define RIFT_CON_RSP_V1_LEN		32
/* IB CM REP private data holds 196 bytes, all of them the consumer's. */
static_assert(sizeof(struct rift_wire_con_rsp) <= 196);

/**
 * struct rift_wire_reject - rdma_reject() private data
 * @magic: %RIFT_REJECT_MAGIC
 * @reason: enum rift_reject_reason, never %RIFT_REJ_NONE
 * @min_version: lowest version the server speaks
 * @max_version: highest version the server speaks
 * @reserved: zero when sent, ignored when received
 */
struct rift_wire_reject {
	__le32	magic;
	__le16	reason;
	__le16	min_version;
	__le16	max_version;
	u8	reserved[6];
};

static_assert(sizeof(struct rift_wire_reject) == 16);

/**
 * struct rift_wire_info_hdr - fixed header of INFO_REQ and INFO_RSP
 * @magic: %RIFT_INFO_MAGIC
 * @type: enum rift_info_type
 * @version: the version negotiated by CON_REQ/CON_RSP
 * @flags: none defined; zero when sent, ignored when received
 * @hdr_len: offset of the first TLV; at least sizeof(this struct) and a
 *	multiple of %RIFT_INFO_ALIGN, so later versions can grow the header
 * @total_len: header plus all TLVs including their padding
 * @status: INFO_RSP only: 0, or a positive errno refusing the session
 * @reserved: zero when sent, ignored when received
 */
struct rift_wire_info_hdr {
	__le32	magic;
	__le16	type;
	__le16	version;
	__le16	flags;
	__le16	hdr_len;
	__le32	total_len;
	__le16	status;
	u8	reserved[6];
};

static_assert(sizeof(struct rift_wire_info_hdr) == 24);

/**
 * struct rift_wire_tlv - INFO attribute header
 * @type: enum rift_tlv_type, optionally or'ed with %RIFT_TLV_CRITICAL
 * @len: bytes of value following this header, excluding padding; the next
 *	TLV starts at the next multiple of %RIFT_INFO_ALIGN
 */
struct rift_wire_tlv {
	__le16	type;
	__le16	len;
};

static_assert(sizeof(struct rift_wire_tlv) == 4);

/**
 * struct rift_wire_chunk_tlv - value header of a CHUNK_TABLE TLV
 * @first: table index of the first entry that follows
 * @entry_len: bytes per entry, at least sizeof(struct rift_wire_rbuf) and a
 *	multiple of 8, so later versions can append fields to an entry
 */
struct rift_wire_chunk_tlv {
	__le16	first;
	__le16	entry_len;
};

static_assert(sizeof(struct rift_wire_chunk_tlv) == 4);

/**
 * struct rift_wire_rbuf - a remotely accessible buffer
 * @addr: RDMA address (iova) of the buffer
 * @len: length in bytes
 * @rkey: remote key covering [@addr, @addr + @len)
 *
 * Used both for server chunks in the chunk table and for client segments
 * in a read descriptor.
 */
struct rift_wire_rbuf {
	__le64	addr;
	__le32	len;
	__le32	rkey;
};

static_assert(sizeof(struct rift_wire_rbuf) == 16);

/**
 * struct rift_wire_io_desc - request descriptor written into a chunk
 * @magic: %RIFT_IO_DESC_MAGIC
 * @dir: enum rift_io_dir; must agree with the immediate's type
 * @flags: RIFT_IO_F_*; none defined, so must be zero
 * @usr_len: bytes of ULP header (0..%RIFT_USR_LEN_MAX)
 * @nr_segs: client segments following this header (reads only)
 * @data_len: payload bytes (in the chunk for writes, in segments for reads)
 * @chunk: chunk id, repeated so a descriptor written into the wrong chunk
 *	is caught
 * @gen: with %RIFT_FEAT_CANCEL_GEN or %RIFT_FEAT_RSP_GEN, the chunk's
 *	request generation, which the client changes for every request on
 *	the chunk and a CANCEL repeats, a response echoes (RSP_GEN);
 *	otherwise zero when sent and ignored when received (it was a
 *	reserved field before those features)
 */
struct rift_wire_io_desc {
	u8	magic;
	u8	dir;
	__le16	flags;
	__le16	usr_len;
	__le16	nr_segs;
	__le32	data_len;
	__le16	chunk;
	__le16	gen;
};

static_assert(sizeof(struct rift_wire_io_desc) == 16);

/* Longest descriptor: header plus a full segment list. */
#define RIFT_IO_DESC_MAX_LEN \
	(sizeof(struct rift_wire_io_desc) + RIFT_IO_MAX_SEGS * sizeof(struct rift_wire_rbuf))

/**
 * struct rift_wire_rkey_msg - payload of a %RIFT_IMM_RSP_RKEY SEND
 * @rkey: rkey the client must use for the chunk from now on
 * @chunk: chunk id, repeated to cross-check the immediate
 * @reserved: zero when sent, ignored when received
 */
struct rift_wire_rkey_msg {
	__le32	rkey;
	__le16	chunk;
	u8	reserved[10];
};

static_assert(sizeof(struct rift_wire_rkey_msg) == 16);

/**
 * struct rift_wire_write_inv - payload of a write request's SEND WITH_INV
 * @imm: the request's immediate (%RIFT_IMM_WRITE), as a WRITE WITH_IMM
 *	would carry it: network order
 * @reserved: zero; a receiver refuses anything else
 *
 * Only with %RIFT_FEAT_REMOTE_INV; the SEND invalidates the chunk's key.
 */
struct rift_wire_write_inv {
	__be32	imm;
	__le32	reserved;
};

static_assert(sizeof(struct rift_wire_write_inv) == 8);

/*
 * Credits (%RIFT_FEAT_CREDITS, Documentation/design/memory-credits.rst):
 * a CREDIT message grants at most three chunks so that it fits the 64-byte
 * receive buffer every connection posts; one answer spans at most four
 * messages.  A client may always keep RIFT_CREDIT_FLOOR chunks (or
 * queue_depth if smaller), so that a revoked path still makes progress.
 */
#define RIFT_CREDIT_MAX_GRANTS		3
#define RIFT_CREDIT_MAX_MSGS		4
#define RIFT_CREDIT_FLOOR		2

#define RIFT_CREDIT_F_ANSWER		BIT(0)
#define RIFT_CREDIT_F_MORE		BIT(1)
#define RIFT_CREDIT_F_REVOKE		BIT(2)
#define RIFT_CREDIT_F_KNOWN		(RIFT_CREDIT_F_ANSWER | RIFT_CREDIT_F_MORE | \
					 RIFT_CREDIT_F_REVOKE)

/**
 * struct rift_wire_credit_grant - one chunk granted by a CREDIT message
 * @addr: RDMA address of the chunk (its length is the path's chunk size)
 * @rkey: the chunk's current rkey
 * @chunk: chunk id, below the path's queue depth
 * @reserved: zero when sent, ignored when received
 */
struct rift_wire_credit_grant {
	__le64	addr;
	__le32	rkey;
	__le16	chunk;
	u8	reserved[2];
};

static_assert(sizeof(struct rift_wire_credit_grant) == 16);

/**
 * struct rift_wire_credit - payload of a CREDIT SEND, followed by
 *	@nr_grant entries of struct rift_wire_credit_grant
 * @nr_grant: grant entries that follow (0..%RIFT_CREDIT_MAX_GRANTS)
 * @flags: RIFT_CREDIT_F_*; unknown bits are refused
 * @keep: with %RIFT_CREDIT_F_REVOKE, chunks the client may keep; else 0
 * @granted: chunks granted to the path instance after this message
 * @reserved: zero when sent, ignored when received
 */
struct rift_wire_credit {
	u8	nr_grant;
	u8	flags;
	__le16	keep;
	__le16	granted;
	u8	reserved[10];
};

static_assert(sizeof(struct rift_wire_credit) == 16);
static_assert(sizeof(struct rift_wire_credit) +
	      RIFT_CREDIT_MAX_GRANTS * sizeof(struct rift_wire_credit_grant) <= 64);

/* Longest CREDIT payload. */
#define RIFT_CREDIT_MAX_LEN \
	(sizeof(struct rift_wire_credit) + \
	 RIFT_CREDIT_MAX_GRANTS * sizeof(struct rift_wire_credit_grant))

/* ------------------------------------------------------------------ */
/* Host-order views filled or consumed by the codec.                   */
/* ------------------------------------------------------------------ */

/**
 * struct rift_con_req - CON_REQ contents in host order
 * @min_version: lowest version the client speaks
 * @max_version: highest version the client speaks
 * @flags: RIFT_CON_F_* (unknown bits are dropped when decoding)
 * @con_idx: connection index within the path
 * @con_cnt: connections in the path
 * @queue_depth: requested number of chunks
 * @reconnect_gen: reconnect generation
 * @sess_uuid: session UUID
 * @path_uuid: path UUID
 */
struct rift_con_req {
	u16	min_version;
	u16	max_version;
	u16	flags;
	u16	con_idx;
	u16	con_cnt;
	u16	queue_depth;
	u32	reconnect_gen;
	u8	sess_uuid[RIFT_UUID_LEN];
	u8	path_uuid[RIFT_UUID_LEN];
};

/**
 * struct rift_con_rsp - CON_RSP contents in host order
 * @version: negotiated version
 * @status: %RIFT_REJ_NONE or a reason code
 * @flags: RIFT_CON_RSP_F_* (unknown bits are dropped when decoding)
 * @queue_depth: granted chunks
 * @max_io_size: largest data_len of one request
 * @chunk_size: size of each chunk
 * @has_nonce: @auth_nonce was present
 * @auth_nonce: the server's nonce (zero when absent)
 */
struct rift_con_rsp {
	u16	version;
	u16	status;
	u16	flags;
	u16	queue_depth;
	u32	max_io_size;
	u32	chunk_size;
	bool	has_nonce;
	u8	auth_nonce[RIFT_AUTH_NONCE_LEN];
};

/**
 * struct rift_reject - refusal contents in host order
 * @reason: enum rift_reject_reason (may exceed %RIFT_REJ_NR from newer peers)
 * @min_version: lowest version the server speaks
 * @max_version: highest version the server speaks
 */
struct rift_reject {
	u16	reason;
	u16	min_version;
	u16	max_version;
};

/**
 * struct rift_rbuf - a remote buffer in host order
 * @addr: RDMA address
 * @len: length in bytes
 * @rkey: remote key
 */
struct rift_rbuf {
	u64	addr;
	u32	len;
	u32	rkey;
};

/**
 * struct rift_imm - a decoded immediate
 * @type: enum rift_imm_type
 * @chunk: chunk id (0 for heartbeats)
 * @seq: heartbeat sequence number (HB, HB_ACK)
 * @gen: generation of the cancelled request (CANCEL); 0 without
 *	%RIFT_FEAT_CANCEL_GEN, see rift_proto_cancel_gen().  The low
 *	%RIFT_IMM_RSP_GEN_BITS bits of the answered request's generation
 *	(RSP, RSP_RKEY); 0 without %RIFT_FEAT_RSP_GEN, see
 *	rift_proto_rsp_gen_check()
 * @desc_off: descriptor byte offset in the chunk (WRITE, READ)
 * @err: 0 or negative errno (RSP, RSP_RKEY)
 * @want: chunks the client wants to hold in total (CREDIT_REQ)
 *
 * Fields that do not belong to @type are zero after decoding and ignored
 * when encoding.
 */
struct rift_imm {
	u8	type;
	u16	chunk;
	u16	seq;
	u16	gen;
	u32	desc_off;
	int	err;
	u16	want;
};

/**
 * struct rift_io_limits - what the server agreed to for a path
 * @chunk_size: bytes in each chunk
 * @max_io_size: largest data_len of a request
 */
struct rift_io_limits {
	u32	chunk_size;
	u32	max_io_size;
};

/**
 * struct rift_io_req - an IO request and where its parts sit in the chunk
 * @dir: enum rift_io_dir
 * @flags: RIFT_IO_F_*
 * @chunk: chunk id
 * @gen: request generation (%RIFT_FEAT_CANCEL_GEN, %RIFT_FEAT_RSP_GEN), 0
 *	without either
 * @usr_len: ULP header length
 * @nr_segs: number of client segments (reads)
 * @data_len: payload length
 * @data_off: chunk offset of the payload (writes; 0 for reads)
 * @usr_off: chunk offset of the ULP header
 * @desc_off: chunk offset of the descriptor
 * @desc_len: descriptor length including its segment list
 *
 * The client fills @dir .. @data_len; rift_proto_io_layout() derives the
 * offsets.  The server gets everything from rift_proto_io_desc_decode().
 */
struct rift_io_req {
	u8	dir;
	u16	flags;
	u16	chunk;
	u16	gen;
	u16	usr_len;
	u16	nr_segs;
	u32	data_len;
	u32	data_off;
	u32	usr_off;
	u32	desc_off;
	u32	desc_len;
};

/**
 * struct rift_credit_grant - a granted chunk in host order
 * @addr: RDMA address
 * @rkey: remote key
 * @chunk: chunk id
 */
struct rift_credit_grant {
	u64	addr;
	u32	rkey;
	u16	chunk;
};

/**
 * struct rift_credit - CREDIT contents in host order
 * @nr_grant: valid entries of @grant
 * @flags: RIFT_CREDIT_F_*
 * @keep: chunks the client may keep (%RIFT_CREDIT_F_REVOKE), else 0
 * @granted: chunks granted to the path instance after this message
 * @grant: the chunks this message grants
 */
struct rift_credit {
	u8				nr_grant;
	u8				flags;
	u16				keep;
	u16				granted;
	struct rift_credit_grant	grant[RIFT_CREDIT_MAX_GRANTS];
};

/**
 * enum rift_credit_fault - why a client refuses a CREDIT message
 * @RIFT_CREDIT_OK: none: the message is valid in the path's state
 * @RIFT_CREDIT_MALFORMED: short, too many grants, unknown flag bits, MORE
 *	without ANSWER, a revoke that grants, answers or asks nothing back,
 *	keep without a revoke, or a grant whose addr + CHUNK_SIZE wraps
 * @RIFT_CREDIT_UNKNOWN_CHUNK: a grant beyond the path's id space
 * @RIFT_CREDIT_TWICE: a grant of a chunk the client holds already, or
 *	twice in the message
 * @RIFT_CREDIT_COUNT: @granted is not the client's count after the message
 * @RIFT_CREDIT_UNSOLICITED: an answer to no CREDIT_REQ (or one message too
 *	many of an answer), a message that neither answers nor revokes, a
 *	revoke while one is pending
 * @RIFT_CREDIT_BELOW_FLOOR: a revoke whose keep is below the floor
 */
enum rift_credit_fault {
	RIFT_CREDIT_OK,
	RIFT_CREDIT_MALFORMED,
	RIFT_CREDIT_UNKNOWN_CHUNK,
	RIFT_CREDIT_TWICE,
	RIFT_CREDIT_COUNT,
	RIFT_CREDIT_UNSOLICITED,
	RIFT_CREDIT_BELOW_FLOOR,
};

/**
 * struct rift_credit_clt - a client path instance's side of its grant
 * @granted: per chunk id, 1 while the chunk is granted to the client and
 *	not given back; @queue_depth entries, the caller's storage
 * @queue_depth: the instance's chunk id space
 * @chunk_size: CHUNK_SIZE of the instance: a grant's addr + @chunk_size
 *	must not wrap 64 bits, as for a chunk table entry
 * @usable: chunks the client's requests can use (ids below it), at most
 *	@queue_depth: a CREDIT_REQ never asks for more
 * @nr_granted: entries of @granted set
 * @keep: while @revoking, how many chunks the client may keep
 * @answer_msgs: messages of the answer under way received so far
 * @req_out: a CREDIT_REQ is outstanding: until an ANSWER without MORE
 * @revoking: a revoke is pending: until @nr_granted <= @keep
 *
 * Pure state, no locking: the kernel client keeps it under its path's
 * chunk lock, the unit tests drive it directly.
 */
struct rift_credit_clt {
	u8	*granted;
	u16	queue_depth;
	u32	chunk_size;
	u16	usable;
	u16	nr_granted;
	u16	keep;
	u8	answer_msgs;
	bool	req_out;
	bool	revoking;
};

/**
 * struct rift_credit_srv - what a server's revoke decision looks at
 * @queue_depth: the path instance's chunk id space
 * @granted: chunks granted to it now
 * @floor: the server's floor for it (rift_credit_srv_floor())
 * @idle_ms: how long a path must receive no request to be idle
 * @quiet_ms: how long it has received none
 * @busy: its requests the ULP holds now (received, not yet answered)
 * @ready: a request or CREDIT_REQ of the instance arrived: its client is
 *	ready for a CREDIT (the protocol's rule)
 * @req_out: a CREDIT_REQ is unanswered: the client wants more, it is not
 *	idle, and a revoke now would cross the answer
 * @revoking: a revoke is pending: at most one at a time
 *
 * Pure input, filled by the kernel server under its path's credit lock
 * and by the unit tests.
 */
struct rift_credit_srv {
	u16	queue_depth;
	u16	granted;
	u16	floor;
	u32	idle_ms;
	u32	quiet_ms;
	u32	busy;
	bool	ready;
	bool	req_out;
	bool	revoking;
};

/**
 * struct rift_info - INFO_REQ or INFO_RSP contents in host order
 * @type: enum rift_info_type
 * @version: version from the header
 * @status: INFO_RSP status (0 or positive errno)
 * @present: bitmap of BIT(enum rift_tlv_type) seen while parsing; ignored
 *	by the encoder, which derives what to send from the values
 * @nr_skipped: unknown optional TLVs the parser skipped
 * @sess_name: NUL-terminated session name
 * @host_name: NUL-terminated host name, empty if absent
 * @host_uuid: the client host's UUID (INFO_REQ; all-zero if absent)
 * @auth_nonce: the client's nonce (INFO_REQ), valid if present
 * @auth_proof: the sender's proof, valid if present
 * @feat_offered: offered feature bits (INFO_REQ)
 * @feat_accepted: accepted feature bits (INFO_RSP)
 * @hb_interval_ms: heartbeat interval, 0 if absent from an INFO_REQ
 * @hb_missed_max: missed heartbeats tolerated
 * @max_io_size: largest data_len of one request
 * @queue_depth: number of chunks
 * @chunk_size: size of each chunk
 * @nr_chunks: valid entries in @chunks
 * @chunks: chunk table storage, owned by the caller
 * @chunks_cap: capacity of @chunks in entries
 */
struct rift_info {
	u16	type;
	u16	version;
	u16	status;
	u32	present;
	u32	nr_skipped;
	char	sess_name[RIFT_NAME_MAX + 1];
	char	host_name[RIFT_NAME_MAX + 1];
	u8	host_uuid[RIFT_UUID_LEN];
	u8	auth_nonce[RIFT_AUTH_NONCE_LEN];
	u8	auth_proof[RIFT_AUTH_PROOF_LEN];
	u64	feat_offered;
	u64	feat_accepted;
	u32	hb_interval_ms;
	u32	hb_missed_max;
	u32	max_io_size;
	u32	queue_depth;
	u32	chunk_size;
	u32	nr_chunks;
	struct rift_rbuf *chunks;
	u32	chunks_cap;
};

/**
 * struct rift_info_builder - cursor for assembling an INFO message
 * @buf: destination buffer
 * @cap: usable bytes at @buf (never more than %RIFT_INFO_MAX_LEN)
 * @len: bytes written so far; 0 until rift_info_start() succeeded
 */
struct rift_info_builder {
	u8	*buf;
	u32	cap;
	u32	len;
};

/* Version negotiation and features. */
int rift_proto_version_pick(u16 cmin, u16 cmax, u16 smin, u16 smax);
u64 rift_proto_features_accept(u64 offered, u64 supported);
int rift_proto_features_decide(u64 offered, u64 supported, u64 imposed, u64 *feat);
int rift_proto_features_check(u64 offered, u64 accepted);
u64 rift_proto_features_acceptable(u64 offered);

/* Connection establishment private data. */
int rift_proto_con_req_encode(const struct rift_con_req *req, void *buf, size_t cap);
int rift_proto_con_req_decode(const void *buf, size_t len, struct rift_con_req *req);
int rift_proto_con_rsp_encode(const struct rift_con_rsp *rsp, void *buf, size_t cap);
int rift_proto_con_rsp_decode(const void *buf, size_t len, const struct rift_con_req *req,
			      struct rift_con_rsp *rsp);
int rift_proto_reject_encode(const struct rift_reject *rej, void *buf, size_t cap);
int rift_proto_reject_decode(const void *buf, size_t len, struct rift_reject *rej);
const char *rift_proto_reject_str(u16 reason);

/* Immediate data. */
int rift_imm_encode(const struct rift_imm *imm, __be32 *imm_data);
int rift_imm_decode(__be32 imm_data, u32 nr_chunks, struct rift_imm *imm);
int rift_proto_cancel_gen(const struct rift_imm *imm, u64 feat, u16 *gen);
u16 rift_proto_rsp_gen_put(u16 req_gen, u64 feat);
int rift_proto_rsp_gen_check(const struct rift_imm *imm, u64 feat);
bool rift_proto_rsp_gen_match(const struct rift_imm *imm, u64 feat, u16 req_gen);

/* IO path. */
int rift_proto_io_layout(const struct rift_io_limits *lim, struct rift_io_req *req);
int rift_proto_io_desc_encode(const struct rift_io_limits *lim, struct rift_io_req *req,
			      const struct rift_rbuf *segs, void *buf, size_t cap);
int rift_proto_io_desc_decode(const struct rift_io_limits *lim, const struct rift_imm *imm,
			      const void *desc, size_t avail, struct rift_io_req *req,
			      struct rift_rbuf *segs, u32 segs_cap);
int rift_proto_rkey_encode(u16 chunk, u32 rkey, void *buf, size_t cap);
int rift_proto_rkey_decode(const void *buf, size_t len, u16 chunk, u32 *rkey);
int rift_proto_write_inv_encode(const struct rift_imm *imm, void *buf, size_t cap);
int rift_proto_write_inv_decode(const void *buf, size_t len, u32 nr_chunks,
				struct rift_imm *imm);
u16 rift_proto_credit_floor(u16 queue_depth);
bool rift_proto_credit_want_ok(u16 want, u16 queue_depth);
int rift_proto_credit_encode(const struct rift_credit *c, u16 queue_depth,
			     void *buf, size_t cap);
int rift_proto_credit_decode(const void *buf, size_t len, u16 queue_depth,
			     struct rift_credit *c);
const char *rift_credit_fault_str(enum rift_credit_fault f);
void rift_credit_clt_init(struct rift_credit_clt *s, u8 *granted, u16 queue_depth,
			  u16 initial, u32 chunk_size, u16 usable);
enum rift_credit_fault rift_credit_clt_check(const struct rift_credit_clt *s,
					     const void *buf, size_t len,
					     struct rift_credit *c);
void rift_credit_clt_apply(struct rift_credit_clt *s, const struct rift_credit *c);
u16 rift_credit_clt_owed(const struct rift_credit_clt *s);
void rift_credit_clt_give_back(struct rift_credit_clt *s, u16 chunk);
bool rift_credit_clt_should_ask(const struct rift_credit_clt *s, u32 in_use,
				bool starved);
u16 rift_credit_clt_want(const struct rift_credit_clt *s, u32 in_use, u32 waiting);
void rift_credit_clt_asked(struct rift_credit_clt *s);
u16 rift_credit_srv_floor(u16 queue_depth, u32 param);
u16 rift_credit_srv_grant_nr(u16 queue_depth, u16 granted, u16 want, u32 room);
u16 rift_credit_srv_revoke(const struct rift_credit_srv *s);
bool rift_credit_srv_revoke_over(const struct rift_credit_srv *s, u16 keep);
bool rift_credit_srv_rel_ok(u16 queue_depth, u16 granted);

/**
 * enum rift_auth_role - whose proof a transcript is for
 * @RIFT_AUTH_CLIENT: the client's, in INFO_REQ
 * @RIFT_AUTH_SERVER: the server's, in INFO_RSP
 */
enum rift_auth_role {
	RIFT_AUTH_CLIENT = 1,
	RIFT_AUTH_SERVER = 2,
};

/**
 * struct rift_auth_ids - what a proof binds
 * @srv_nonce: the server's nonce (CON_RSP)
 * @clt_nonce: the client's nonce (INFO_REQ)
 * @sess_uuid: session UUID (CON_REQ)
 * @path_uuid: path UUID (CON_REQ)
 * @reconnect_gen: path instance generation (CON_REQ)
 * @sess_name: session name (INFO_REQ)
 * @host_name: client host name (INFO_REQ)
 * @host_uuid: client host UUID (INFO_REQ)
 */
struct rift_auth_ids {
	const u8	*srv_nonce;
	const u8	*clt_nonce;
	const u8	*sess_uuid;
	const u8	*path_uuid;
	u32		reconnect_gen;
	const char	*sess_name;
	const char	*host_name;
	const u8	*host_uuid;
};

/* Upper bound of rift_auth_transcript()'s output. */
#define RIFT_AUTH_TRANSCRIPT_MAX	(16 + 2 * RIFT_AUTH_NONCE_LEN + \
					 3 * RIFT_UUID_LEN + 4 + \
					 2 * (RIFT_NAME_MAX + 1))

int rift_auth_transcript(enum rift_auth_role role, const struct rift_auth_ids *ids,
			 u8 *buf, size_t cap);

/* INFO messages. */
int rift_info_start(struct rift_info_builder *b, void *buf, size_t cap, u16 type,
		    u16 version, u16 status);
int rift_info_put(struct rift_info_builder *b, u16 type, const void *val, u16 len);
int rift_info_finish(struct rift_info_builder *b);
int rift_info_encode(const struct rift_info *info, void *buf, size_t cap);
int rift_info_parse(const void *buf, size_t len, u16 version, struct rift_info *info,
		    struct rift_rbuf *chunks, u32 chunks_cap);
int rift_info_rsp_check(const struct rift_info *rsp, u64 offered,
			const struct rift_con_rsp *con);

/* Limits every part of the codec checks (rift-proto*.c). */
static inline bool rift_chunk_size_ok(u32 size)
{
	return size >= RIFT_CHUNK_SIZE_MIN && size <= RIFT_CHUNK_SIZE_MAX &&
	       !(size % RIFT_CHUNK_SIZE_ALIGN);
}

/* max_io_size may be checked before the chunk size is known (TLV order). */
static inline bool rift_io_size_ok(u32 size)
{
	return size >= RIFT_IO_SIZE_MIN && !(size % RIFT_IO_SIZE_ALIGN) &&
	       size <= RIFT_CHUNK_SIZE_MAX - RIFT_CHUNK_HEADROOM;
}

static inline bool rift_io_fits_chunk(u32 max_io_size, u32 chunk_size)
{
	return rift_io_size_ok(max_io_size) && rift_chunk_size_ok(chunk_size) &&
	       max_io_size + RIFT_CHUNK_HEADROOM <= chunk_size;
}

#endif /* _RIFT_PROTO_H */

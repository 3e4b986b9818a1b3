// SPDX-License-Identifier: GPL-2.0
/*
 * Rift wire format: encoders, decoders and validators.
 *
 * This file is deliberately pure (no locks, no allocation, no kernel
 * services) so that the very same object code that runs in rift-core.ko is
 * exercised by the user-space unit tests and fuzzers under tools/.
 *
 * Rules every decoder here follows:
 *  - Lengths are checked against what was actually received, never against
 *    our own struct sizes: a newer peer may send more, a hostile one less.
 *  - Wire structs are copied out with memcpy() before use, so a buffer of
 *    any alignment is fine and each received byte is read once (a client
 *    can keep rewriting a chunk while the server parses it).
 *  - Offsets and lengths are combined with overflow-checked arithmetic only.
 *  - On failure the output is cleared, so a caller that ignores the return
 *    value acts on zeroes rather than on half-validated peer data.
 *
 * Error convention: -EBADMSG for anything malformed that came off the wire,
 * -EINVAL for bad arguments from the local caller, -EMSGSIZE when an
 * encoder's buffer is too small, -ENOSPC when caller storage for decoded
 * entries is too small, -EPROTONOSUPPORT when versions do not overlap,
 * -EOPNOTSUPP for an unknown critical TLV and -ECONNREFUSED for a
 * well-formed refusal.
 */

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/export.h>
#include <linux/build_bug.h>
#include <linux/overflow.h>
#include <asm/byteorder.h>

#include "rift-proto.h"

/* Descriptor alignment must be a power of two for the mask arithmetic. */
static_assert((RIFT_IO_DESC_ALIGN & (RIFT_IO_DESC_ALIGN - 1)) == 0);
static_assert((RIFT_INFO_ALIGN & (RIFT_INFO_ALIGN - 1)) == 0);
/* The headroom must cover the worst-case ULP header plus a write descriptor. */
static_assert(RIFT_USR_LEN_MAX + RIFT_IO_DESC_ALIGN - 1 +
	      sizeof(struct rift_wire_io_desc) <= RIFT_CHUNK_HEADROOM);
/* The largest read descriptor must fit in the smallest chunk. */
static_assert(RIFT_USR_LEN_MAX + RIFT_IO_DESC_MAX_LEN <= RIFT_CHUNK_SIZE_MIN);
/* Chunk table indices travel in __le16 fields. */
static_assert(RIFT_MAX_QUEUE_DEPTH <= 0xffff);
/* A full chunk table (4 TLVs worth) must fit in one INFO message. */
static_assert(RIFT_MAX_QUEUE_DEPTH * sizeof(struct rift_wire_rbuf) * 3 / 2 <=
	      RIFT_INFO_MAX_LEN);
static_assert(RIFT_INFO_CHUNKS_PER_TLV * sizeof(struct rift_wire_rbuf) +
	      sizeof(struct rift_wire_chunk_tlv) <= 0xffff);

static bool rift_align_up(u32 val, u32 align, u32 *out)
{
	u32 sum;

	if (check_add_overflow(val, align - 1, &sum))
		return false;
	*out = sum & ~(align - 1);
	return true;
}

static bool rift_version_range_ok(u16 min, u16 max)
{
	return min && min <= max;
}

static bool rift_uuid_null(const u8 *uuid)
{
	unsigned int i;

	for (i = 0; i < RIFT_UUID_LEN; i++)
		if (uuid[i])
			return false;
	return true;
}

/**
 * rift_proto_version_pick() - choose the protocol version for a connection
 * @cmin: lowest version the client speaks
 * @cmax: highest version the client speaks
 * @smin: lowest version the server speaks
 * @smax: highest version the server speaks
 *
 * The highest common version wins so that two upgraded peers always use
 * their newest shared behaviour without any extra round trip.
 *
 * Return: the chosen version (> 0), -EINVAL if a range is empty or starts at
 * 0, or -EPROTONOSUPPORT if the ranges do not overlap.
 */
int rift_proto_version_pick(u16 cmin, u16 cmax, u16 smin, u16 smax)
{
	u16 lo, hi;

	if (!rift_version_range_ok(cmin, cmax) || !rift_version_range_ok(smin, smax))
		return -EINVAL;
	lo = cmin > smin ? cmin : smin;
	hi = cmax < smax ? cmax : smax;
	if (lo > hi)
		return -EPROTONOSUPPORT;
	return hi;
}
EXPORT_SYMBOL_GPL(rift_proto_version_pick);

/**
 * rift_proto_features_accept() - server side: features to turn on
 * @offered: feature bits from the client's INFO_REQ
 * @supported: feature bits the server is willing to use
 *
 * Bits this build does not know are dropped even if @supported has them, so
 * a server can never accept something it cannot implement.
 * %RIFT_FEAT_CANCEL_GEN qualifies CANCEL and is dropped without it;
 * %RIFT_FEAT_REMOTE_INV qualifies ALWAYS_INVALIDATE and is dropped without
 * it (a server that imposes ALWAYS_INVALIDATE, which the client did not
 * offer, adds REMOTE_INV itself if offered).
 *
 * Return: the feature bits to send in INFO_RSP.
 */
u64 rift_proto_features_accept(u64 offered, u64 supported)
{
	u64 feat = offered & supported & RIFT_FEAT_KNOWN;

	if (!(feat & RIFT_FEAT_CANCEL))
		feat &= ~RIFT_FEAT_CANCEL_GEN;
	if (!(feat & RIFT_FEAT_ALWAYS_INVALIDATE))
		feat &= ~RIFT_FEAT_REMOTE_INV;
	return feat;
}
EXPORT_SYMBOL_GPL(rift_proto_features_accept);

/**
 * rift_proto_features_acceptable() - what a server may accept
 * @offered: feature bits from the client's INFO_REQ
 *
 * The offered bits, plus %RIFT_FEAT_ALWAYS_INVALIDATE when the client is
 * %RIFT_FEAT_AI_CAPABLE: a server may impose it on such a client.
 *
 * Return: the bits an INFO_RSP may accept.
 */
u64 rift_proto_features_acceptable(u64 offered)
{
	if (offered & RIFT_FEAT_AI_CAPABLE)
		offered |= RIFT_FEAT_ALWAYS_INVALIDATE;
	return offered;
}
EXPORT_SYMBOL_GPL(rift_proto_features_acceptable);

/**
 * rift_proto_features_decide() - server side: the features a path runs
 * @offered: feature bits from the client's INFO_REQ
 * @supported: bits the server is willing to use if offered
 * @imposed: bits the server requires whether offered or not: at most
 *	%RIFT_FEAT_ALWAYS_INVALIDATE, which a client must be able to follow
 *	(rift_proto_features_acceptable())
 * @feat: set to the bits to send in INFO_RSP
 *
 * The one place a server's answer is decided, so that a qualifier is
 * settled after what it qualifies: %RIFT_FEAT_REMOTE_INV is accepted
 * when offered and supported and always-invalidate holds, asked for or
 * imposed (rift_proto_features_accept() drops it otherwise).
 *
 * Return: 0, or -EPROTONOSUPPORT if this client cannot follow @imposed,
 * -EINVAL if @imposed holds another bit (@feat is 0 on error).
 */
int rift_proto_features_decide(u64 offered, u64 supported, u64 imposed, u64 *feat)
{
	*feat = 0;
	if (imposed & ~RIFT_FEAT_ALWAYS_INVALIDATE)
		return -EINVAL;
	if (imposed & ~rift_proto_features_acceptable(offered))
		return -EPROTONOSUPPORT;
	*feat = rift_proto_features_accept(offered | imposed, supported | imposed);
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_features_decide);

/**
 * rift_proto_features_check() - client side: validate accepted features
 * @offered: feature bits the client sent in INFO_REQ
 * @accepted: feature bits the server returned in INFO_RSP
 *
 * Return: 0 if @accepted is a subset of what rift_proto_features_acceptable()
 * allows for @offered and of the known bits, -EBADMSG otherwise, and for
 * %RIFT_FEAT_CANCEL_GEN without %RIFT_FEAT_CANCEL or %RIFT_FEAT_REMOTE_INV
 * without %RIFT_FEAT_ALWAYS_INVALIDATE.
 */
int rift_proto_features_check(u64 offered, u64 accepted)
{
	if (accepted & ~rift_proto_features_acceptable(offered))
		return -EBADMSG;
	if (accepted & ~RIFT_FEAT_KNOWN)
		return -EBADMSG;
	if ((accepted & RIFT_FEAT_CANCEL_GEN) && !(accepted & RIFT_FEAT_CANCEL))
		return -EBADMSG;
	if ((accepted & RIFT_FEAT_REMOTE_INV) && !(accepted & RIFT_FEAT_ALWAYS_INVALIDATE))
		return -EBADMSG;
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_features_check);

/**
 * rift_proto_name_valid() - check a session or host name
 * @name: name bytes, need not be NUL-terminated
 * @len: number of bytes in @name
 *
 * Names end up as sysfs directory names and in log lines, so they are
 * limited to printable ASCII without space or '/', must not be "." or ".."
 * and are 1..%RIFT_NAME_MAX bytes long.
 *
 * Return: true if the name may be sent or accepted.
 */
bool rift_proto_name_valid(const char *name, size_t len)
{
	size_t i;

	if (!len || len > RIFT_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		if (name[i] < 0x21 || name[i] > 0x7e || name[i] == '/')
			return false;
	}
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return false;
	return true;
}
EXPORT_SYMBOL_GPL(rift_proto_name_valid);

/* ------------------------------------------------------------------ */
/* CON_REQ / CON_RSP / reject                                          */
/* ------------------------------------------------------------------ */

static bool rift_con_req_ok(const struct rift_con_req *req)
{
	if (!rift_version_range_ok(req->min_version, req->max_version))
		return false;
	if (!req->con_cnt || req->con_cnt > RIFT_MAX_CONS || req->con_idx >= req->con_cnt)
		return false;
	if (!req->queue_depth || req->queue_depth > RIFT_MAX_QUEUE_DEPTH)
		return false;
	/* The server keys sessions and paths by UUID; zero means "unset". */
	return !rift_uuid_null(req->sess_uuid) && !rift_uuid_null(req->path_uuid);
}

/**
 * rift_proto_con_req_encode() - build CON_REQ private data
 * @req: request to encode
 * @buf: destination
 * @cap: bytes available at @buf
 *
 * Return: bytes written (sizeof(struct rift_wire_con_req)), -EMSGSIZE if
 * @cap is too small, -EINVAL if @req would not pass the server's checks or
 * sets flags this build does not define.
 */
int rift_proto_con_req_encode(const struct rift_con_req *req, void *buf, size_t cap)
{
	struct rift_wire_con_req w;

	if (cap < sizeof(w))
		return -EMSGSIZE;
	if (!rift_con_req_ok(req) || (req->flags & ~RIFT_CON_F_KNOWN))
		return -EINVAL;

	memset(&w, 0, sizeof(w));
	w.magic = cpu_to_le32(RIFT_CON_REQ_MAGIC);
	w.min_version = cpu_to_le16(req->min_version);
	w.max_version = cpu_to_le16(req->max_version);
	memcpy(w.sess_uuid, req->sess_uuid, RIFT_UUID_LEN);
	memcpy(w.path_uuid, req->path_uuid, RIFT_UUID_LEN);
	w.con_idx = cpu_to_le16(req->con_idx);
	w.con_cnt = cpu_to_le16(req->con_cnt);
	w.queue_depth = cpu_to_le16(req->queue_depth);
	w.flags = cpu_to_le16(req->flags);
	w.reconnect_gen = cpu_to_le32(req->reconnect_gen);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(rift_proto_con_req_encode);

/**
 * rift_proto_con_req_decode() - validate and decode CON_REQ private data
 * @buf: private data as delivered by rdma_cm
 * @len: its length; may exceed the struct (transports pad with zeroes and
 *	later versions may append), bytes beyond the struct are ignored
 * @req: decoded request, zeroed on failure
 *
 * Return: 0 on success, -EBADMSG if the data is short, carries the wrong
 * magic or holds values outside the protocol's limits.
 */
int rift_proto_con_req_decode(const void *buf, size_t len, struct rift_con_req *req)
{
	struct rift_wire_con_req w;

	memset(req, 0, sizeof(*req));
	if (!buf || len < sizeof(w))
		return -EBADMSG;
	memcpy(&w, buf, sizeof(w));
	if (le32_to_cpu(w.magic) != RIFT_CON_REQ_MAGIC)
		return -EBADMSG;

	req->min_version = le16_to_cpu(w.min_version);
	req->max_version = le16_to_cpu(w.max_version);
	memcpy(req->sess_uuid, w.sess_uuid, RIFT_UUID_LEN);
	memcpy(req->path_uuid, w.path_uuid, RIFT_UUID_LEN);
	req->con_idx = le16_to_cpu(w.con_idx);
	req->con_cnt = le16_to_cpu(w.con_cnt);
	req->queue_depth = le16_to_cpu(w.queue_depth);
	/* Newer clients may set flags we do not know; they are hints to us. */
	req->flags = le16_to_cpu(w.flags) & RIFT_CON_F_KNOWN;
	req->reconnect_gen = le32_to_cpu(w.reconnect_gen);

	if (!rift_con_req_ok(req)) {
		memset(req, 0, sizeof(*req));
		return -EBADMSG;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_con_req_decode);

static bool rift_con_rsp_ok(const struct rift_con_rsp *rsp)
{
	return rsp->version && rsp->queue_depth &&
	       rsp->queue_depth <= RIFT_MAX_QUEUE_DEPTH &&
	       rift_io_fits_chunk(rsp->max_io_size, rsp->chunk_size);
}

/**
 * rift_proto_con_rsp_encode() - build CON_RSP private data
 * @rsp: response to encode; with a non-zero @rsp->status only the status and
 *	version are meaningful and the other fields are not checked
 * @buf: destination
 * @cap: bytes available at @buf
 *
 * Return: bytes written, -EMSGSIZE if @cap is too small, -EINVAL if an
 * accepting response carries values the client would reject.
 */
int rift_proto_con_rsp_encode(const struct rift_con_rsp *rsp, void *buf, size_t cap)
{
	struct rift_wire_con_rsp w;

	if (cap < sizeof(w))
		return -EMSGSIZE;
	if (rsp->flags & ~RIFT_CON_RSP_F_KNOWN)
		return -EINVAL;
	if (rsp->status == RIFT_REJ_NONE && !rift_con_rsp_ok(rsp))
		return -EINVAL;

	memset(&w, 0, sizeof(w));
	w.magic = cpu_to_le32(RIFT_CON_RSP_MAGIC);
	w.version = cpu_to_le16(rsp->version);
	w.status = cpu_to_le16(rsp->status);
	w.queue_depth = cpu_to_le16(rsp->queue_depth);
	w.flags = cpu_to_le16(rsp->flags);
	w.max_io_size = cpu_to_le32(rsp->max_io_size);
	w.chunk_size = cpu_to_le32(rsp->chunk_size);
	if (rsp->has_nonce)
		memcpy(w.auth_nonce, rsp->auth_nonce, sizeof(w.auth_nonce));
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(rift_proto_con_rsp_encode);

/**
 * rift_proto_con_rsp_decode() - validate and decode CON_RSP private data
 * @buf: private data from the ESTABLISHED event
 * @len: its length; bytes beyond the struct are ignored, and a response
 *	of only %RIFT_CON_RSP_V1_LEN bytes is one without a nonce
 * @req: the request this answers, or NULL to skip the checks against it
 * @rsp: decoded response; on -ECONNREFUSED only @rsp->status is set
 *
 * The version must lie in the range the client offered and the queue depth
 * must not exceed what it asked for: a server that grants more would let
 * the client index chunks it never registered receive buffers for.
 *
 * Return: 0 on success, -ECONNREFUSED if the server accepted only to refuse
 * (status set), -EBADMSG if the response is malformed or inconsistent with
 * @req.
 */
int rift_proto_con_rsp_decode(const void *buf, size_t len, const struct rift_con_req *req,
			      struct rift_con_rsp *rsp)
{
	struct rift_wire_con_rsp w;

	memset(rsp, 0, sizeof(*rsp));
	if (!buf || len < RIFT_CON_RSP_V1_LEN)
		return -EBADMSG;
	/* Never read more than arrived: zero stands in for what did not. */
	memset(&w, 0, sizeof(w));
	memcpy(&w, buf, len < sizeof(w) ? len : sizeof(w));
	if (le32_to_cpu(w.magic) != RIFT_CON_RSP_MAGIC)
		return -EBADMSG;

	rsp->status = le16_to_cpu(w.status);
	if (rsp->status != RIFT_REJ_NONE)
		return -ECONNREFUSED;

	rsp->version = le16_to_cpu(w.version);
	rsp->flags = le16_to_cpu(w.flags) & RIFT_CON_RSP_F_KNOWN;
	rsp->queue_depth = le16_to_cpu(w.queue_depth);
	rsp->max_io_size = le32_to_cpu(w.max_io_size);
	rsp->chunk_size = le32_to_cpu(w.chunk_size);
	if (len >= sizeof(w)) {
		rsp->has_nonce = true;
		memcpy(rsp->auth_nonce, w.auth_nonce, sizeof(rsp->auth_nonce));
	}

	if (!rift_con_rsp_ok(rsp))
		goto bad;
	if (req && (rsp->version < req->min_version || rsp->version > req->max_version ||
		    rsp->queue_depth > req->queue_depth))
		goto bad;
	return 0;
bad:
	memset(rsp, 0, sizeof(*rsp));
	return -EBADMSG;
}
EXPORT_SYMBOL_GPL(rift_proto_con_rsp_decode);

/**
 * rift_proto_reject_encode() - build rdma_reject() private data
 * @rej: reason and the server's version range
 * @buf: destination
 * @cap: bytes available at @buf
 *
 * Return: bytes written, -EMSGSIZE if @cap is too small, -EINVAL for
 * %RIFT_REJ_NONE or an invalid version range.
 */
int rift_proto_reject_encode(const struct rift_reject *rej, void *buf, size_t cap)
{
	struct rift_wire_reject w;

	if (cap < sizeof(w))
		return -EMSGSIZE;
	if (rej->reason == RIFT_REJ_NONE ||
	    !rift_version_range_ok(rej->min_version, rej->max_version))
		return -EINVAL;

	memset(&w, 0, sizeof(w));
	w.magic = cpu_to_le32(RIFT_REJECT_MAGIC);
	w.reason = cpu_to_le16(rej->reason);
	w.min_version = cpu_to_le16(rej->min_version);
	w.max_version = cpu_to_le16(rej->max_version);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(rift_proto_reject_encode);

/**
 * rift_proto_reject_decode() - decode rdma_reject() private data
 * @buf: private data from the REJECTED event (may come from the CM itself
 *	or a non-Rift peer, hence the magic check)
 * @len: its length; bytes beyond the struct are ignored
 * @rej: decoded refusal, zeroed on failure
 *
 * Reason codes above the ones this build knows are passed through, so the
 * log can at least print the number a newer server sent.
 *
 * Return: 0 on success, -EBADMSG if the data is not a Rift refusal.
 */
int rift_proto_reject_decode(const void *buf, size_t len, struct rift_reject *rej)
{
	struct rift_wire_reject w;

	memset(rej, 0, sizeof(*rej));
	if (!buf || len < sizeof(w))
		return -EBADMSG;
	memcpy(&w, buf, sizeof(w));
	if (le32_to_cpu(w.magic) != RIFT_REJECT_MAGIC)
		return -EBADMSG;
	rej->reason = le16_to_cpu(w.reason);
	rej->min_version = le16_to_cpu(w.min_version);
	rej->max_version = le16_to_cpu(w.max_version);
	if (rej->reason == RIFT_REJ_NONE ||
	    !rift_version_range_ok(rej->min_version, rej->max_version)) {
		memset(rej, 0, sizeof(*rej));
		return -EBADMSG;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_reject_decode);

static const char * const rift_reject_names[RIFT_REJ_NR] = {
	[RIFT_REJ_NONE]			= "accepted",
	[RIFT_REJ_VERSION]		= "protocol version mismatch",
	[RIFT_REJ_UNKNOWN_SESSION]	= "unknown session",
	[RIFT_REJ_SESSION_CLOSING]	= "session closing",
	[RIFT_REJ_NO_RESOURCES]		= "no resources",
	[RIFT_REJ_MALFORMED]		= "malformed request",
	[RIFT_REJ_BAD_CON_INDEX]	= "bad connection index",
	[RIFT_REJ_STALE_GEN]		= "stale reconnect generation",
	[RIFT_REJ_DUPLICATE_CON]	= "connection already established",
	[RIFT_REJ_ACCESS_DENIED]	= "access denied",
	[RIFT_REJ_INTERNAL]		= "internal server error",
};

/**
 * rift_proto_reject_str() - short text for a reason code
 * @reason: enum rift_reject_reason value, possibly from a newer peer
 *
 * Return: a static string suitable for logs and sysfs; never NULL.
 */
const char *rift_proto_reject_str(u16 reason)
{
	if (reason >= RIFT_REJ_NR || !rift_reject_names[reason])
		return "unknown reason";
	return rift_reject_names[reason];
}
EXPORT_SYMBOL_GPL(rift_proto_reject_str);

/* ------------------------------------------------------------------ */
/* Immediate data                                                      */
/* ------------------------------------------------------------------ */

/**
 * rift_imm_encode() - build a 32-bit immediate
 * @imm: fields to encode; only those belonging to @imm->type are used
 * @imm_data: result in network order, ready for ib_send_wr.ex.imm_data
 *
 * Return: 0 on success, -EINVAL if the type is unknown or a field does not
 * fit its bits (misaligned or too large descriptor offset, errno outside
 * 0..%RIFT_IMM_ERRNO_MAX, a response generation above
 * %RIFT_IMM_RSP_GEN_MASK, non-zero chunk on a heartbeat).  A CANCEL
 * carries @imm->gen, which the caller leaves 0 without
 * %RIFT_FEAT_CANCEL_GEN; a response carries @imm->gen as
 * rift_proto_rsp_gen_put() gives it.
 */
int rift_imm_encode(const struct rift_imm *imm, __be32 *imm_data)
{
	u32 arg;

	if (imm->chunk >= RIFT_MAX_QUEUE_DEPTH)
		return -EINVAL;

	switch (imm->type) {
	case RIFT_IMM_WRITE:
	case RIFT_IMM_READ:
		if (imm->desc_off % RIFT_IO_DESC_ALIGN ||
		    imm->desc_off / RIFT_IO_DESC_ALIGN > RIFT_IMM_ARG_MASK)
			return -EINVAL;
		arg = imm->desc_off / RIFT_IO_DESC_ALIGN;
		break;
	case RIFT_IMM_RSP:
	case RIFT_IMM_RSP_RKEY:
		if (imm->err > 0 || imm->err < -RIFT_IMM_ERRNO_MAX ||
		    imm->gen > RIFT_IMM_RSP_GEN_MASK)
			return -EINVAL;
		arg = -imm->err | (u32)imm->gen << RIFT_IMM_RSP_GEN_SHIFT;
		break;
	case RIFT_IMM_HB:
	case RIFT_IMM_HB_ACK:
		/* A non-zero chunk here means the caller mixed up types. */
		if (imm->chunk)
			return -EINVAL;
		arg = imm->seq;
		break;
	case RIFT_IMM_CANCEL:
		arg = imm->gen;
		break;
	case RIFT_IMM_CREDIT_REQ:
		/* Any chunk id: a test peer sends what a server must refuse. */
		arg = imm->want;
		break;
	case RIFT_IMM_CREDIT:
		if (imm->chunk)
			return -EINVAL;
		arg = 0;
		break;
	case RIFT_IMM_CREDIT_REL:
		arg = 0;
		break;
	default:
		return -EINVAL;
	}

	*imm_data = cpu_to_be32((u32)imm->type << RIFT_IMM_TYPE_SHIFT |
				(u32)imm->chunk << RIFT_IMM_CHUNK_SHIFT |
				arg << RIFT_IMM_ARG_SHIFT);
	return 0;
}
EXPORT_SYMBOL_GPL(rift_imm_encode);

/**
 * rift_imm_decode() - validate and decode a received immediate
 * @imm_data: immediate from the work completion, network order
 * @nr_chunks: chunks in the session; chunk ids at or above it are rejected
 * @imm: decoded fields, zeroed on failure
 *
 * Return: 0 on success, -EINVAL if @nr_chunks is out of range, -EBADMSG for
 * an unknown type, an out-of-range chunk id, a non-zero chunk id in a
 * heartbeat, a CREDIT with a chunk id or an arg, a CREDIT_REL with an arg.
 * The chunk ids of CREDIT_REQ and CREDIT_REL are not checked here: the
 * server refuses them with a reason of their own (the grant, not the id
 * space, is what they are held to).  A CANCEL's arg, and a response's arg
 * bits 15..12, are returned in @imm->gen whatever their value: whether
 * they may be non-zero depends on the path's features, see
 * rift_proto_cancel_gen() and rift_proto_rsp_gen_check().
 */
int rift_imm_decode(__be32 imm_data, u32 nr_chunks, struct rift_imm *imm)
{
	u32 v = be32_to_cpu(imm_data);
	u32 type = (v >> RIFT_IMM_TYPE_SHIFT) & RIFT_IMM_TYPE_MASK;
	u32 chunk = (v >> RIFT_IMM_CHUNK_SHIFT) & RIFT_IMM_CHUNK_MASK;
	u32 arg = (v >> RIFT_IMM_ARG_SHIFT) & RIFT_IMM_ARG_MASK;

	memset(imm, 0, sizeof(*imm));
	if (!nr_chunks || nr_chunks > RIFT_MAX_QUEUE_DEPTH)
		return -EINVAL;

	switch (type) {
	case RIFT_IMM_WRITE:
	case RIFT_IMM_READ:
		if (chunk >= nr_chunks)
			return -EBADMSG;
		imm->desc_off = arg * RIFT_IO_DESC_ALIGN;
		break;
	case RIFT_IMM_RSP:
	case RIFT_IMM_RSP_RKEY:
		if (chunk >= nr_chunks)
			return -EBADMSG;
		imm->err = -(int)(arg & RIFT_IMM_ERRNO_MAX);
		imm->gen = arg >> RIFT_IMM_RSP_GEN_SHIFT;
		break;
	case RIFT_IMM_HB:
	case RIFT_IMM_HB_ACK:
		if (chunk)
			return -EBADMSG;
		imm->seq = arg;
		break;
	case RIFT_IMM_CANCEL:
		if (chunk >= nr_chunks)
			return -EBADMSG;
		imm->gen = arg;
		break;
	case RIFT_IMM_CREDIT_REQ:
		/* Chunk and want are the server's to judge: it names the rule. */
		imm->want = arg;
		break;
	case RIFT_IMM_CREDIT:
		if (chunk || arg)
			return -EBADMSG;
		break;
	case RIFT_IMM_CREDIT_REL:
		/* The chunk id is checked against the grant by the server. */
		if (arg)
			return -EBADMSG;
		break;
	default:
		return -EBADMSG;
	}
	imm->type = type;
	imm->chunk = chunk;
	return 0;
}
EXPORT_SYMBOL_GPL(rift_imm_decode);

/**
 * rift_proto_cancel_gen() - server side: validate a CANCEL for a path
 * @imm: a decoded %RIFT_IMM_CANCEL
 * @feat: the features accepted for the path
 * @gen: the generation of the request it names
 *
 * With %RIFT_FEAT_CANCEL_GEN, @gen is the CANCEL's arg and the caller
 * cancels the request on the chunk only if its descriptor carried the same
 * generation: a CANCEL that crossed the chunk's reuse then names an
 * earlier request and is ignored.  Without it the arg must be 0 and so is
 * @gen: the request on the chunk is cancelled whichever it is (the
 * behaviour before the feature, with the race it fixes).
 *
 * Return: 0 with *@gen set, -EINVAL if @imm is not a CANCEL, -EPROTO if
 * CANCEL was not accepted, -EBADMSG for a non-zero arg without
 * %RIFT_FEAT_CANCEL_GEN.
 */
int rift_proto_cancel_gen(const struct rift_imm *imm, u64 feat, u16 *gen)
{
	*gen = 0;
	if (imm->type != RIFT_IMM_CANCEL)
		return -EINVAL;
	if (!(feat & RIFT_FEAT_CANCEL))
		return -EPROTO;
	if (!(feat & RIFT_FEAT_CANCEL_GEN))
		return imm->gen ? -EBADMSG : 0;
	*gen = imm->gen;
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_cancel_gen);

/**
 * rift_proto_rsp_gen_put() - server side: the generation a response carries
 * @req_gen: the answered request's generation, from its descriptor
 * @feat: the features accepted for the path
 *
 * Return: the low %RIFT_IMM_RSP_GEN_BITS bits of @req_gen with
 * %RIFT_FEAT_RSP_GEN, for the response's @gen; 0 without it.
 */
u16 rift_proto_rsp_gen_put(u16 req_gen, u64 feat)
{
	return feat & RIFT_FEAT_RSP_GEN ? req_gen & RIFT_IMM_RSP_GEN_MASK : 0;
}
EXPORT_SYMBOL_GPL(rift_proto_rsp_gen_put);

/**
 * rift_proto_rsp_gen_check() - client side: validate a response's generation bits
 * @imm: a decoded %RIFT_IMM_RSP or %RIFT_IMM_RSP_RKEY
 * @feat: the features accepted for the path
 *
 * The form only, before the request is looked up: without
 * %RIFT_FEAT_RSP_GEN, arg bits 15..12 of a response are reserved and a
 * server that sets them sent a malformed immediate.  With it any value is
 * well-formed; rift_proto_rsp_gen_match() says whether it is the answer
 * to the request that holds the chunk.
 *
 * Return: 0, -EINVAL if @imm is not a response, -EBADMSG for a non-zero
 * generation without %RIFT_FEAT_RSP_GEN.
 */
int rift_proto_rsp_gen_check(const struct rift_imm *imm, u64 feat)
{
	if (imm->type != RIFT_IMM_RSP && imm->type != RIFT_IMM_RSP_RKEY)
		return -EINVAL;
	if (!(feat & RIFT_FEAT_RSP_GEN) && imm->gen)
		return -EBADMSG;
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_rsp_gen_check);

/**
 * rift_proto_rsp_gen_match() - client side: is this the request's answer
 * @imm: a response that passed rift_proto_rsp_gen_check()
 * @feat: the features accepted for the path
 * @req_gen: generation of the request (or timed-out request, for its late
 *	answer) that holds the chunk the response names
 *
 * With %RIFT_FEAT_RSP_GEN a response answers the request whose generation
 * it echoes: one that echoes another generation answers an earlier request
 * on the chunk (a duplicate, or an answer to a request that was answered
 * already), which a correct server never sends.  Only the low
 * %RIFT_IMM_RSP_GEN_BITS bits travel, so a stale answer delayed by a
 * multiple of 16 requests on the chunk matches: the check catches a
 * server's duplicate or stray answer, it does not bound what a hostile
 * server can do (Documentation/rift-protocol.rst, "Response generation").
 * Without the feature every response matches (the behaviour before it).
 *
 * Return: true if the response may complete the request.
 */
bool rift_proto_rsp_gen_match(const struct rift_imm *imm, u64 feat, u16 req_gen)
{
	if (!(feat & RIFT_FEAT_RSP_GEN))
		return true;
	return imm->gen == (req_gen & RIFT_IMM_RSP_GEN_MASK);
}
EXPORT_SYMBOL_GPL(rift_proto_rsp_gen_match);

/* ------------------------------------------------------------------ */
/* IO descriptors                                                      */
/* ------------------------------------------------------------------ */

static bool rift_io_limits_ok(const struct rift_io_limits *lim)
{
	return rift_io_fits_chunk(lim->max_io_size, lim->chunk_size);
}

/**
 * rift_proto_io_layout() - place a request's parts inside a chunk
 * @lim: the path's chunk size and maximum IO size
 * @req: request with @dir, @flags, @usr_len, @nr_segs and @data_len set;
 *	@data_off, @usr_off, @desc_off and @desc_len are filled in
 *
 * A write chunk holds [payload | ULP header | pad | descriptor], a read
 * chunk [ULP header | pad | descriptor + segments]; the descriptor starts at
 * the first %RIFT_IO_DESC_ALIGN boundary after the ULP header.  Client and
 * server both derive the layout here, so the server's validator can demand
 * the exact offset instead of trusting peer arithmetic.
 *
 * Return: 0 if the request fits, -EINVAL otherwise.
 */
int rift_proto_io_layout(const struct rift_io_limits *lim, struct rift_io_req *req)
{
	u32 end, desc_end;

	if (!rift_io_limits_ok(lim))
		return -EINVAL;
	if (req->usr_len > RIFT_USR_LEN_MAX || (req->flags & ~RIFT_IO_F_KNOWN))
		return -EINVAL;
	if (req->data_len > lim->max_io_size)
		return -EINVAL;

	switch (req->dir) {
	case RIFT_IO_WRITE:
		/* An empty write carries nothing for anyone to act on. */
		if (req->nr_segs || (!req->data_len && !req->usr_len))
			return -EINVAL;
		req->data_off = 0;
		req->usr_off = req->data_len;
		if (check_add_overflow(req->data_len, (u32)req->usr_len, &end))
			return -EINVAL;
		break;
	case RIFT_IO_READ:
		if (!req->data_len || !req->nr_segs || req->nr_segs > RIFT_IO_MAX_SEGS)
			return -EINVAL;
		req->data_off = 0;
		req->usr_off = 0;
		end = req->usr_len;
		break;
	default:
		return -EINVAL;
	}

	if (!rift_align_up(end, RIFT_IO_DESC_ALIGN, &req->desc_off))
		return -EINVAL;
	req->desc_len = sizeof(struct rift_wire_io_desc) +
			req->nr_segs * sizeof(struct rift_wire_rbuf);
	if (check_add_overflow(req->desc_off, req->desc_len, &desc_end) ||
	    desc_end > lim->chunk_size)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_io_layout);

/**
 * rift_proto_io_desc_encode() - client side: write a request descriptor
 * @lim: the path's limits
 * @req: request; its layout fields are (re)computed by this call
 * @segs: @req->nr_segs client segments for a read, NULL for a write
 * @buf: where the descriptor goes, i.e. chunk offset @req->desc_off in the
 *	client's staging copy of the chunk
 * @cap: bytes available at @buf
 *
 * Return: descriptor length on success, -EINVAL if the request does not fit
 * the limits or a segment is empty, wraps or the lengths do not add up to
 * @req->data_len, -EMSGSIZE if @cap is too small.
 */
int rift_proto_io_desc_encode(const struct rift_io_limits *lim, struct rift_io_req *req,
			      const struct rift_rbuf *segs, void *buf, size_t cap)
{
	struct rift_wire_io_desc w;
	struct rift_wire_rbuf ws;
	u8 *p = buf;
	u64 end;
	u32 i, sum = 0;
	int err;

	err = rift_proto_io_layout(lim, req);
	if (err)
		return err;
	if (req->chunk >= RIFT_MAX_QUEUE_DEPTH)
		return -EINVAL;
	for (i = 0; i < req->nr_segs; i++) {
		if (!segs[i].len || check_add_overflow(segs[i].addr, (u64)segs[i].len, &end) ||
		    check_add_overflow(sum, segs[i].len, &sum))
			return -EINVAL;
	}
	if (req->dir == RIFT_IO_READ && sum != req->data_len)
		return -EINVAL;
	if (cap < req->desc_len)
		return -EMSGSIZE;

	memset(&w, 0, sizeof(w));
	w.magic = RIFT_IO_DESC_MAGIC;
	w.dir = req->dir;
	w.flags = cpu_to_le16(req->flags);
	w.usr_len = cpu_to_le16(req->usr_len);
	w.nr_segs = cpu_to_le16(req->nr_segs);
	w.data_len = cpu_to_le32(req->data_len);
	w.chunk = cpu_to_le16(req->chunk);
	w.gen = cpu_to_le16(req->gen);
	memcpy(p, &w, sizeof(w));
	p += sizeof(w);
	for (i = 0; i < req->nr_segs; i++) {
		ws.addr = cpu_to_le64(segs[i].addr);
		ws.len = cpu_to_le32(segs[i].len);
		ws.rkey = cpu_to_le32(segs[i].rkey);
		memcpy(p, &ws, sizeof(ws));
		p += sizeof(ws);
	}
	return req->desc_len;
}
EXPORT_SYMBOL_GPL(rift_proto_io_desc_encode);

/**
 * rift_proto_io_desc_decode() - server side: validate a request descriptor
 * @lim: the path's limits
 * @imm: the decoded WRITE or READ immediate that announced the request
 * @desc: the bytes at chunk offset @imm->desc_off (in place or a copy)
 * @avail: bytes readable at @desc; at most chunk_size - desc_off
 * @req: validated request including offsets, zeroed on failure
 * @segs: storage for the client segments of a read
 * @segs_cap: capacity of @segs in entries
 *
 * Everything a client controls is checked before any of it is believed:
 * the descriptor lies inside the chunk, the payload and ULP header lie
 * entirely before it at exactly the offsets rift_proto_io_layout() derives,
 * and a read's segment list is inside @avail, non-empty, non-wrapping and
 * adds up to data_len.  On success, for any request:
 * data_off + data_len <= usr_off (writes), usr_off + usr_len <= desc_off and
 * desc_off + desc_len <= chunk_size, so callers can subtract freely.
 *
 * Return: 0 on success, -EINVAL for bad local arguments, -ENOSPC if @segs
 * is too small, -EBADMSG for any malformed descriptor.
 */
int rift_proto_io_desc_decode(const struct rift_io_limits *lim, const struct rift_imm *imm,
			      const void *desc, size_t avail, struct rift_io_req *req,
			      struct rift_rbuf *segs, u32 segs_cap)
{
	struct rift_wire_io_desc w;
	struct rift_wire_rbuf ws;
	const u8 *p = desc;
	u32 i, sum = 0;
	u64 end;
	u8 dir;
	int err = -EBADMSG;

	memset(req, 0, sizeof(*req));
	if (!rift_io_limits_ok(lim))
		return -EINVAL;
	if (imm->type == RIFT_IMM_WRITE)
		dir = RIFT_IO_WRITE;
	else if (imm->type == RIFT_IMM_READ)
		dir = RIFT_IO_READ;
	else
		return -EINVAL;

	if (imm->chunk >= RIFT_MAX_QUEUE_DEPTH || imm->desc_off % RIFT_IO_DESC_ALIGN)
		return -EBADMSG;
	if (imm->desc_off >= lim->chunk_size ||
	    lim->chunk_size - imm->desc_off < sizeof(w))
		return -EBADMSG;
	if (!desc || avail > lim->chunk_size - imm->desc_off)
		return -EINVAL;
	if (avail < sizeof(w))
		return -EBADMSG;

	memcpy(&w, p, sizeof(w));
	if (w.magic != RIFT_IO_DESC_MAGIC || w.dir != dir)
		return -EBADMSG;
	req->dir = dir;
	req->flags = le16_to_cpu(w.flags);
	req->usr_len = le16_to_cpu(w.usr_len);
	req->nr_segs = le16_to_cpu(w.nr_segs);
	req->data_len = le32_to_cpu(w.data_len);
	req->chunk = le16_to_cpu(w.chunk);
	/* Any value: whether it means anything is the path's business. */
	req->gen = le16_to_cpu(w.gen);

	if (req->chunk != imm->chunk)
		goto out;
	if (rift_proto_io_layout(lim, req))
		goto out;
	/*
	 * The offset the client announced must be the one its own header
	 * implies; this is what stops usr_len/data_len from pointing past
	 * or "before" the descriptor.
	 */
	if (req->desc_off != imm->desc_off || req->desc_len > avail)
		goto out;
	if (req->nr_segs > segs_cap) {
		err = -ENOSPC;
		goto out;
	}

	p += sizeof(w);
	for (i = 0; i < req->nr_segs; i++) {
		memcpy(&ws, p, sizeof(ws));
		p += sizeof(ws);
		segs[i].addr = le64_to_cpu(ws.addr);
		segs[i].len = le32_to_cpu(ws.len);
		segs[i].rkey = le32_to_cpu(ws.rkey);
		if (!segs[i].len ||
		    check_add_overflow(segs[i].addr, (u64)segs[i].len, &end) ||
		    check_add_overflow(sum, segs[i].len, &sum))
			goto out;
	}
	if (dir == RIFT_IO_READ && sum != req->data_len)
		goto out;
	return 0;
out:
	memset(req, 0, sizeof(*req));
	return err;
}
EXPORT_SYMBOL_GPL(rift_proto_io_desc_decode);

/**
 * rift_proto_rkey_encode() - build the payload of a RSP_RKEY SEND
 * @chunk: chunk whose key was rotated
 * @rkey: the new rkey
 * @buf: destination
 * @cap: bytes available at @buf
 *
 * Return: bytes written, -EMSGSIZE if @cap is too small, -EINVAL for a chunk
 * id that cannot exist.
 */
int rift_proto_rkey_encode(u16 chunk, u32 rkey, void *buf, size_t cap)
{
	struct rift_wire_rkey_msg w;

	if (cap < sizeof(w))
		return -EMSGSIZE;
	if (chunk >= RIFT_MAX_QUEUE_DEPTH)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.rkey = cpu_to_le32(rkey);
	w.chunk = cpu_to_le16(chunk);
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(rift_proto_rkey_encode);

/**
 * rift_proto_rkey_decode() - decode the payload of a RSP_RKEY SEND
 * @buf: received payload
 * @len: byte_len from the work completion
 * @chunk: chunk id from the immediate of the same completion
 * @rkey: the new rkey, 0 on failure
 *
 * Return: 0 on success, -EBADMSG if the payload is short or names a
 * different chunk than the immediate.
 */
int rift_proto_rkey_decode(const void *buf, size_t len, u16 chunk, u32 *rkey)
{
	struct rift_wire_rkey_msg w;

	*rkey = 0;
	if (!buf || len < sizeof(w))
		return -EBADMSG;
	memcpy(&w, buf, sizeof(w));
	if (le16_to_cpu(w.chunk) != chunk)
		return -EBADMSG;
	*rkey = le32_to_cpu(w.rkey);
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_rkey_decode);

/**
 * rift_proto_write_inv_encode() - build a write request's SEND WITH_INV payload
 * @imm: the request's immediate fields; must be a %RIFT_IMM_WRITE
 * @buf: destination
 * @cap: bytes available at @buf
 *
 * Return: bytes written, -EMSGSIZE if @cap is too small, -EINVAL for
 * anything but a write or a field rift_imm_encode() refuses.
 */
int rift_proto_write_inv_encode(const struct rift_imm *imm, void *buf, size_t cap)
{
	struct rift_wire_write_inv w;
	int err;

	if (cap < sizeof(w))
		return -EMSGSIZE;
	if (imm->type != RIFT_IMM_WRITE)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	err = rift_imm_encode(imm, &w.imm);
	if (err)
		return err;
	memcpy(buf, &w, sizeof(w));
	return sizeof(w);
}
EXPORT_SYMBOL_GPL(rift_proto_write_inv_encode);

/**
 * rift_proto_write_inv_decode() - decode a write request's SEND WITH_INV payload
 * @buf: received payload
 * @len: byte_len from the work completion
 * @nr_chunks: chunks of the path, as for rift_imm_decode()
 * @imm: the decoded immediate, zeroed on failure
 *
 * The payload must be exactly the struct, reserved bytes zero, and carry a
 * valid %RIFT_IMM_WRITE: a read, a heartbeat or anything else never comes
 * this way.  Which key the SEND invalidated is the caller's to check.
 *
 * Return: 0, -EINVAL if @nr_chunks is out of range, -EBADMSG otherwise.
 */
int rift_proto_write_inv_decode(const void *buf, size_t len, u32 nr_chunks,
				struct rift_imm *imm)
{
	struct rift_wire_write_inv w;
	int err;

	memset(imm, 0, sizeof(*imm));
	if (!nr_chunks || nr_chunks > RIFT_MAX_QUEUE_DEPTH)
		return -EINVAL;
	if (!buf || len != sizeof(w))
		return -EBADMSG;
	memcpy(&w, buf, sizeof(w));
	if (w.reserved)
		return -EBADMSG;
	err = rift_imm_decode(w.imm, nr_chunks, imm);
	if (err)
		return err;
	if (imm->type != RIFT_IMM_WRITE) {
		memset(imm, 0, sizeof(*imm));
		return -EBADMSG;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_write_inv_decode);

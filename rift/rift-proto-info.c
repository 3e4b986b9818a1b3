// SPDX-License-Identifier: GPL-2.0
/*
 * Rift wire format, second half: the INFO exchange (TLV builder, parser,
 * the checks of a request and of a response) and the authentication
 * helpers.  Pure code, shared with tools/ like rift-proto.c, and under
 * the same rules and error convention (see there).
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

/* ------------------------------------------------------------------ */
/* INFO messages                                                       */
/* ------------------------------------------------------------------ */

#define RIFT_INFO_REQ_ALLOWED	(BIT(RIFT_TLV_SESS_NAME) | BIT(RIFT_TLV_HOST_NAME) | \
				 BIT(RIFT_TLV_FEAT_OFFERED) | BIT(RIFT_TLV_HB_INTERVAL_MS) | \
				 BIT(RIFT_TLV_HOST_UUID) | BIT(RIFT_TLV_AUTH_NONCE) | \
				 BIT(RIFT_TLV_AUTH_PROOF))
#define RIFT_INFO_REQ_REQUIRED	BIT(RIFT_TLV_SESS_NAME)
#define RIFT_INFO_RSP_ALLOWED	(BIT(RIFT_TLV_HOST_NAME) | BIT(RIFT_TLV_FEAT_ACCEPTED) | \
				 BIT(RIFT_TLV_HB_INTERVAL_MS) | BIT(RIFT_TLV_HB_MISSED_MAX) | \
				 BIT(RIFT_TLV_MAX_IO_SIZE) | BIT(RIFT_TLV_QUEUE_DEPTH) | \
				 BIT(RIFT_TLV_CHUNK_SIZE) | BIT(RIFT_TLV_CHUNK_TABLE) | \
				 BIT(RIFT_TLV_AUTH_PROOF))
#define RIFT_INFO_RSP_REQUIRED	(BIT(RIFT_TLV_HB_INTERVAL_MS) | BIT(RIFT_TLV_MAX_IO_SIZE) | \
				 BIT(RIFT_TLV_QUEUE_DEPTH) | BIT(RIFT_TLV_CHUNK_SIZE) | \
				 BIT(RIFT_TLV_CHUNK_TABLE))

/* Smallest value each known TLV may carry; longer values are extensions. */
static const u8 rift_tlv_min_len[RIFT_TLV_NR] = {
	[RIFT_TLV_SESS_NAME]		= 1,
	[RIFT_TLV_HOST_NAME]		= 1,
	[RIFT_TLV_FEAT_OFFERED]		= sizeof(__le64),
	[RIFT_TLV_FEAT_ACCEPTED]	= sizeof(__le64),
	[RIFT_TLV_HB_INTERVAL_MS]	= sizeof(__le32),
	[RIFT_TLV_HB_MISSED_MAX]	= sizeof(__le32),
	[RIFT_TLV_MAX_IO_SIZE]		= sizeof(__le32),
	[RIFT_TLV_QUEUE_DEPTH]		= sizeof(__le32),
	[RIFT_TLV_CHUNK_SIZE]		= sizeof(__le32),
	[RIFT_TLV_CHUNK_TABLE]		= sizeof(struct rift_wire_chunk_tlv) +
					  sizeof(struct rift_wire_rbuf),
	[RIFT_TLV_HOST_UUID]		= RIFT_UUID_LEN,
	[RIFT_TLV_AUTH_NONCE]		= RIFT_AUTH_NONCE_LEN,
	[RIFT_TLV_AUTH_PROOF]		= RIFT_AUTH_PROOF_LEN,
};

static u32 rift_info_allowed(u16 type)
{
	return type == RIFT_INFO_REQ ? RIFT_INFO_REQ_ALLOWED : RIFT_INFO_RSP_ALLOWED;
}

static bool rift_zero(const u8 *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/**
 * rift_info_start() - begin an INFO message
 * @b: builder to initialise
 * @buf: destination buffer
 * @cap: its size; anything beyond %RIFT_INFO_MAX_LEN is not used
 * @type: enum rift_info_type
 * @version: negotiated version
 * @status: 0, or a positive errno in an INFO_RSP refusing the session
 *
 * Return: 0 on success, -EINVAL for a bad type, version or status,
 * -EMSGSIZE if not even the header fits.
 */
int rift_info_start(struct rift_info_builder *b, void *buf, size_t cap, u16 type,
		    u16 version, u16 status)
{
	struct rift_wire_info_hdr h;

	b->buf = buf;
	b->cap = cap > RIFT_INFO_MAX_LEN ? RIFT_INFO_MAX_LEN : cap;
	b->len = 0;
	if ((type != RIFT_INFO_REQ && type != RIFT_INFO_RSP) || !version)
		return -EINVAL;
	if (status && (type != RIFT_INFO_RSP || status > RIFT_IMM_ERRNO_MAX))
		return -EINVAL;
	if (!buf || b->cap < sizeof(h))
		return -EMSGSIZE;

	memset(&h, 0, sizeof(h));
	h.magic = cpu_to_le32(RIFT_INFO_MAGIC);
	h.type = cpu_to_le16(type);
	h.version = cpu_to_le16(version);
	h.hdr_len = cpu_to_le16(sizeof(h));
	h.status = cpu_to_le16(status);
	memcpy(buf, &h, sizeof(h));
	b->len = sizeof(h);
	return 0;
}

/* Append a TLV header and return its zeroed, padded value area. */
static void *rift_info_reserve(struct rift_info_builder *b, u16 type, u16 len)
{
	struct rift_wire_tlv t;
	u32 need;
	u8 *p;

	if (!b->len || !(type & RIFT_TLV_TYPE_MASK))
		return NULL;
	/* Cannot wrap: len is at most 0xffff and the cursor under 128 KiB. */
	need = sizeof(t) + len;
	need = (need + RIFT_INFO_ALIGN - 1) & ~(RIFT_INFO_ALIGN - 1);
	if (need > b->cap - b->len)
		return NULL;

	p = b->buf + b->len;
	memset(p, 0, need);
	t.type = cpu_to_le16(type);
	t.len = cpu_to_le16(len);
	memcpy(p, &t, sizeof(t));
	b->len += need;
	return p + sizeof(t);
}

/**
 * rift_info_put() - append one TLV
 * @b: builder from rift_info_start()
 * @type: TLV type, optionally with %RIFT_TLV_CRITICAL
 * @val: value bytes (may be NULL if @len is 0)
 * @len: value length; padding to %RIFT_INFO_ALIGN is added here
 *
 * Return: 0 on success, -EINVAL for type 0 or an unstarted builder,
 * -EMSGSIZE if the TLV does not fit.
 */
int rift_info_put(struct rift_info_builder *b, u16 type, const void *val, u16 len)
{
	u8 *p;

	if (!b->len || !(type & RIFT_TLV_TYPE_MASK) || (len && !val))
		return -EINVAL;
	p = rift_info_reserve(b, type, len);
	if (!p)
		return -EMSGSIZE;
	if (len)
		memcpy(p, val, len);
	return 0;
}

/**
 * rift_info_finish() - seal an INFO message
 * @b: builder from rift_info_start()
 *
 * Return: total message length to post as the SEND, or -EINVAL if the
 * builder was never started.
 */
int rift_info_finish(struct rift_info_builder *b)
{
	__le32 total;

	if (b->len < sizeof(struct rift_wire_info_hdr))
		return -EINVAL;
	total = cpu_to_le32(b->len);
	memcpy(b->buf + offsetof(struct rift_wire_info_hdr, total_len), &total,
	       sizeof(total));
	return b->len;
}

static int rift_info_put_u32(struct rift_info_builder *b, u16 type, u32 val)
{
	__le32 v = cpu_to_le32(val);

	return rift_info_put(b, type, &v, sizeof(v));
}

static int rift_info_put_u64(struct rift_info_builder *b, u16 type, u64 val)
{
	__le64 v = cpu_to_le64(val);

	return rift_info_put(b, type, &v, sizeof(v));
}

static int rift_info_put_name(struct rift_info_builder *b, u16 type, const char *name)
{
	size_t len = strnlen(name, RIFT_NAME_MAX + 1);

	if (!rift_proto_name_valid(name, len))
		return -EINVAL;
	return rift_info_put(b, type, name, len);
}

static int rift_info_put_chunks(struct rift_info_builder *b, const struct rift_rbuf *chunks,
				u32 nr)
{
	struct rift_wire_chunk_tlv ct;
	struct rift_wire_rbuf e;
	u32 first, n, i;
	u8 *p;

	for (first = 0; first < nr; first += n) {
		n = nr - first;
		if (n > RIFT_INFO_CHUNKS_PER_TLV)
			n = RIFT_INFO_CHUNKS_PER_TLV;
		p = rift_info_reserve(b, RIFT_TLV_CHUNK_TABLE | RIFT_TLV_CRITICAL,
				      sizeof(ct) + n * sizeof(e));
		if (!p)
			return -EMSGSIZE;
		ct.first = cpu_to_le16(first);
		ct.entry_len = cpu_to_le16(sizeof(e));
		memcpy(p, &ct, sizeof(ct));
		p += sizeof(ct);
		for (i = 0; i < n; i++) {
			e.addr = cpu_to_le64(chunks[first + i].addr);
			e.len = cpu_to_le32(chunks[first + i].len);
			e.rkey = cpu_to_le32(chunks[first + i].rkey);
			memcpy(p, &e, sizeof(e));
			p += sizeof(e);
		}
	}
	return 0;
}

static bool rift_hb_ok(u32 interval_ms)
{
	return interval_ms >= RIFT_HB_INTERVAL_MIN_MS && interval_ms <= RIFT_HB_INTERVAL_MAX_MS;
}

static bool rift_hb_missed_ok(u32 missed)
{
	return missed >= RIFT_HB_MISSED_MIN && missed <= RIFT_HB_MISSED_LIMIT;
}

static bool rift_chunk_ok(const struct rift_rbuf *c)
{
	u64 end;

	return rift_chunk_size_ok(c->len) && !check_add_overflow(c->addr, (u64)c->len, &end);
}

/*
 * The chunk table has QUEUE_DEPTH entries, or with CREDITS accepted it is
 * the initial grant: at least the floor, at most QUEUE_DEPTH (the id
 * space, which the table never exceeds: see rift_info_parse_chunks()).
 */
static bool rift_info_table_size_ok(const struct rift_info *info)
{
	if (info->nr_chunks == info->queue_depth)
		return true;
	return (info->feat_accepted & RIFT_FEAT_CREDITS) &&
	       info->nr_chunks >= rift_proto_credit_floor(info->queue_depth) &&
	       info->nr_chunks <= info->queue_depth;
}

/* Mirror of the parser's checks, so we never emit what a peer must refuse. */
static bool rift_info_rsp_values_ok(const struct rift_info *info)
{
	u32 i;

	if (!rift_hb_ok(info->hb_interval_ms) || !rift_hb_missed_ok(info->hb_missed_max))
		return false;
	if (!rift_io_fits_chunk(info->max_io_size, info->chunk_size))
		return false;
	if (!info->queue_depth || info->queue_depth > RIFT_MAX_QUEUE_DEPTH ||
	    !rift_info_table_size_ok(info) || !info->chunks)
		return false;
	if (info->feat_accepted & ~RIFT_FEAT_KNOWN)
		return false;
	for (i = 0; i < info->nr_chunks; i++) {
		if (!rift_chunk_ok(&info->chunks[i]) || info->chunks[i].len != info->chunk_size)
			return false;
	}
	return true;
}

/**
 * rift_info_encode() - build a complete INFO_REQ or INFO_RSP
 * @info: contents; the TLVs sent are derived from @info->type, the status
 *	and which optional values are non-zero/non-empty, not from
 *	@info->present
 * @buf: destination
 * @cap: bytes available at @buf
 *
 * INFO_REQ carries the session name, host name (if set), offered features
 * and heartbeat preference (if non-zero).  An INFO_RSP with status 0
 * carries everything the client needs to start IO; a refusing one only the
 * host name.
 *
 * Return: total length on success, -EINVAL if a value would be rejected by
 * the peer, -EMSGSIZE if @cap is too small.
 */
int rift_info_encode(const struct rift_info *info, void *buf, size_t cap)
{
	struct rift_info_builder b;
	int err;

	err = rift_info_start(&b, buf, cap, info->type, info->version, info->status);
	if (err)
		return err;

	if (info->host_name[0]) {
		err = rift_info_put_name(&b, RIFT_TLV_HOST_NAME, info->host_name);
		if (err)
			return err;
	}

	if (info->type == RIFT_INFO_REQ) {
		if (info->feat_offered & ~RIFT_FEAT_KNOWN)
			return -EINVAL;
		if (info->hb_interval_ms && !rift_hb_ok(info->hb_interval_ms))
			return -EINVAL;
		err = rift_info_put_name(&b, RIFT_TLV_SESS_NAME | RIFT_TLV_CRITICAL,
					 info->sess_name);
		if (!err)
			err = rift_info_put_u64(&b, RIFT_TLV_FEAT_OFFERED, info->feat_offered);
		if (!err && info->hb_interval_ms)
			err = rift_info_put_u32(&b, RIFT_TLV_HB_INTERVAL_MS,
						info->hb_interval_ms);
		if (!err && !rift_zero(info->host_uuid, sizeof(info->host_uuid)))
			err = rift_info_put(&b, RIFT_TLV_HOST_UUID, info->host_uuid,
					    sizeof(info->host_uuid));
		if (!err && (info->present & BIT(RIFT_TLV_AUTH_NONCE)))
			err = rift_info_put(&b, RIFT_TLV_AUTH_NONCE, info->auth_nonce,
					    sizeof(info->auth_nonce));
		/* Critical: a server that cannot check it must not ignore it. */
		if (!err && (info->present & BIT(RIFT_TLV_AUTH_PROOF)))
			err = rift_info_put(&b, RIFT_TLV_AUTH_PROOF | RIFT_TLV_CRITICAL,
					    info->auth_proof, sizeof(info->auth_proof));
		return err ? err : rift_info_finish(&b);
	}

	if (info->status)
		return rift_info_finish(&b);
	if (!rift_info_rsp_values_ok(info))
		return -EINVAL;

	err = rift_info_put_u64(&b, RIFT_TLV_FEAT_ACCEPTED | RIFT_TLV_CRITICAL,
				info->feat_accepted);
	if (!err)
		err = rift_info_put_u32(&b, RIFT_TLV_HB_INTERVAL_MS, info->hb_interval_ms);
	if (!err)
		err = rift_info_put_u32(&b, RIFT_TLV_HB_MISSED_MAX, info->hb_missed_max);
	if (!err)
		err = rift_info_put_u32(&b, RIFT_TLV_MAX_IO_SIZE | RIFT_TLV_CRITICAL,
					info->max_io_size);
	if (!err)
		err = rift_info_put_u32(&b, RIFT_TLV_QUEUE_DEPTH | RIFT_TLV_CRITICAL,
					info->queue_depth);
	if (!err)
		err = rift_info_put_u32(&b, RIFT_TLV_CHUNK_SIZE | RIFT_TLV_CRITICAL,
					info->chunk_size);
	if (!err)
		err = rift_info_put_chunks(&b, info->chunks, info->nr_chunks);
	if (!err && (info->present & BIT(RIFT_TLV_AUTH_PROOF)))
		err = rift_info_put(&b, RIFT_TLV_AUTH_PROOF | RIFT_TLV_CRITICAL,
				    info->auth_proof, sizeof(info->auth_proof));
	return err ? err : rift_info_finish(&b);
}
EXPORT_SYMBOL_GPL(rift_info_encode);

static u32 rift_get_le32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static u64 rift_get_le64(const u8 *p)
{
	__le64 v;

	memcpy(&v, p, sizeof(v));
	return le64_to_cpu(v);
}

static int rift_info_parse_name(char *dst, const u8 *val, u16 len)
{
	if (!rift_proto_name_valid((const char *)val, len))
		return -EBADMSG;
	memcpy(dst, val, len);
	dst[len] = '\0';
	return 0;
}

/*
 * Chunk table runs must arrive in index order and back to back: requiring
 * first == entries seen so far rules out gaps, overlaps and duplicates with
 * one comparison and keeps the caller's array densely filled.
 */
static int rift_info_parse_chunks(struct rift_info *info, const u8 *val, u16 len)
{
	struct rift_wire_chunk_tlv ct;
	struct rift_wire_rbuf e;
	struct rift_rbuf *c;
	u32 first, elen, n, i;

	memcpy(&ct, val, sizeof(ct));
	first = le16_to_cpu(ct.first);
	elen = le16_to_cpu(ct.entry_len);
	if (elen < sizeof(e) || elen % 8)
		return -EBADMSG;
	len -= sizeof(ct);
	val += sizeof(ct);
	if (!len || len % elen)
		return -EBADMSG;
	n = len / elen;
	if (first != info->nr_chunks || first + n > RIFT_MAX_QUEUE_DEPTH)
		return -EBADMSG;
	if ((info->present & BIT(RIFT_TLV_QUEUE_DEPTH)) && first + n > info->queue_depth)
		return -EBADMSG;
	if (first + n > info->chunks_cap)
		return -ENOSPC;

	for (i = 0; i < n; i++, val += elen) {
		/* Only the v1 prefix of a longer entry is understood. */
		memcpy(&e, val, sizeof(e));
		c = &info->chunks[first + i];
		c->addr = le64_to_cpu(e.addr);
		c->len = le32_to_cpu(e.len);
		c->rkey = le32_to_cpu(e.rkey);
		if (!rift_chunk_ok(c))
			return -EBADMSG;
	}
	info->nr_chunks = first + n;
	return 0;
}

static int rift_info_parse_tlv(struct rift_info *info, u16 t, const u8 *val, u16 len)
{
	u32 v;

	switch (t) {
	case RIFT_TLV_SESS_NAME:
		return rift_info_parse_name(info->sess_name, val, len);
	case RIFT_TLV_HOST_NAME:
		return rift_info_parse_name(info->host_name, val, len);
	case RIFT_TLV_FEAT_OFFERED:
		info->feat_offered = rift_get_le64(val);
		return 0;
	case RIFT_TLV_FEAT_ACCEPTED:
		info->feat_accepted = rift_get_le64(val);
		return 0;
	case RIFT_TLV_CHUNK_TABLE:
		return rift_info_parse_chunks(info, val, len);
	case RIFT_TLV_HOST_UUID:
		memcpy(info->host_uuid, val, sizeof(info->host_uuid));
		return 0;
	case RIFT_TLV_AUTH_NONCE:
		memcpy(info->auth_nonce, val, sizeof(info->auth_nonce));
		return 0;
	case RIFT_TLV_AUTH_PROOF:
		memcpy(info->auth_proof, val, sizeof(info->auth_proof));
		return 0;
	}

	v = rift_get_le32(val);
	switch (t) {
	case RIFT_TLV_HB_INTERVAL_MS:
		info->hb_interval_ms = v;
		return rift_hb_ok(v) ? 0 : -EBADMSG;
	case RIFT_TLV_HB_MISSED_MAX:
		info->hb_missed_max = v;
		return rift_hb_missed_ok(v) ? 0 : -EBADMSG;
	case RIFT_TLV_MAX_IO_SIZE:
		info->max_io_size = v;
		return rift_io_size_ok(v) ? 0 : -EBADMSG;
	case RIFT_TLV_QUEUE_DEPTH:
		info->queue_depth = v;
		if (!v || v > RIFT_MAX_QUEUE_DEPTH || v < info->nr_chunks)
			return -EBADMSG;
		return 0;
	case RIFT_TLV_CHUNK_SIZE:
		info->chunk_size = v;
		return rift_chunk_size_ok(v) ? 0 : -EBADMSG;
	}
	return -EBADMSG;
}

/* Whole-message rules that no single TLV can check. */
static int rift_info_parse_final(struct rift_info *info)
{
	u32 i;

	if (info->type == RIFT_INFO_REQ)
		return (info->present & RIFT_INFO_REQ_REQUIRED) == RIFT_INFO_REQ_REQUIRED ?
		       0 : -EBADMSG;
	if (info->status)
		return 0;
	if ((info->present & RIFT_INFO_RSP_REQUIRED) != RIFT_INFO_RSP_REQUIRED)
		return -EBADMSG;
	if (!(info->present & BIT(RIFT_TLV_HB_MISSED_MAX)))
		info->hb_missed_max = RIFT_HB_MISSED_DEFAULT;
	if (!rift_info_table_size_ok(info))
		return -EBADMSG;
	if (!rift_io_fits_chunk(info->max_io_size, info->chunk_size))
		return -EBADMSG;
	for (i = 0; i < info->nr_chunks; i++)
		if (info->chunks[i].len != info->chunk_size)
			return -EBADMSG;
	return 0;
}

/**
 * rift_info_parse() - validate and decode an INFO_REQ or INFO_RSP
 * @buf: received message
 * @len: byte_len of the receive completion; total_len must not exceed it
 * @version: negotiated version the header must carry
 * @info: decoded contents, zeroed on failure (except @chunks/@chunks_cap)
 * @chunks: storage for the chunk table, NULL if none is expected
 * @chunks_cap: capacity of @chunks in entries
 *
 * Longer headers and longer fixed-size values than this build knows are
 * accepted and their tails ignored; unknown TLVs are skipped unless marked
 * %RIFT_TLV_CRITICAL.  A known TLV in a message type that does not define
 * it is treated as unknown, because a later version may define it there.
 *
 * Return: 0 on success; -EOPNOTSUPP for an unknown critical TLV; -ENOSPC if
 * the chunk table does not fit @chunks_cap; -EBADMSG for anything else
 * malformed (bad header, lengths beyond @len, overrunning or duplicate
 * TLVs, bad values, missing required TLVs, inconsistent chunk table).
 */
int rift_info_parse(const void *buf, size_t len, u16 version, struct rift_info *info,
		    struct rift_rbuf *chunks, u32 chunks_cap)
{
	struct rift_wire_info_hdr h;
	struct rift_wire_tlv t;
	const u8 *p = buf;
	u32 hdr_len, total, off, next, allowed;
	u16 raw, type, vlen;
	int err = -EBADMSG;

	memset(info, 0, sizeof(*info));
	info->chunks = chunks;
	info->chunks_cap = chunks ? chunks_cap : 0;

	if (!buf || len < sizeof(h))
		goto out;
	memcpy(&h, buf, sizeof(h));
	if (le32_to_cpu(h.magic) != RIFT_INFO_MAGIC)
		goto out;
	info->type = le16_to_cpu(h.type);
	info->version = le16_to_cpu(h.version);
	info->status = le16_to_cpu(h.status);
	hdr_len = le16_to_cpu(h.hdr_len);
	total = le32_to_cpu(h.total_len);

	if (info->type != RIFT_INFO_REQ && info->type != RIFT_INFO_RSP)
		goto out;
	if (!version || info->version != version)
		goto out;
	if (info->status && (info->type != RIFT_INFO_RSP || info->status > RIFT_IMM_ERRNO_MAX))
		goto out;
	if (hdr_len < sizeof(h) || hdr_len % RIFT_INFO_ALIGN)
		goto out;
	if (total < hdr_len || total > len || total > RIFT_INFO_MAX_LEN ||
	    total % RIFT_INFO_ALIGN)
		goto out;

	allowed = rift_info_allowed(info->type);
	for (off = hdr_len; off < total; off = next) {
		/* off and total are multiples of 8, so a TLV header always fits. */
		memcpy(&t, p + off, sizeof(t));
		raw = le16_to_cpu(t.type);
		vlen = le16_to_cpu(t.len);
		type = raw & RIFT_TLV_TYPE_MASK;
		if (vlen > total - off - sizeof(t))
			goto out;
		next = off + sizeof(t) + vlen;
		next = (next + RIFT_INFO_ALIGN - 1) & ~(RIFT_INFO_ALIGN - 1);

		if (!type)
			goto out;
		if (type >= RIFT_TLV_NR || !(allowed & BIT(type))) {
			if (raw & RIFT_TLV_CRITICAL) {
				err = -EOPNOTSUPP;
				goto out;
			}
			info->nr_skipped++;
			continue;
		}
		if (vlen < rift_tlv_min_len[type])
			goto out;
		if (type != RIFT_TLV_CHUNK_TABLE && (info->present & BIT(type)))
			goto out;
		err = rift_info_parse_tlv(info, type, p + off + sizeof(t), vlen);
		if (err)
			goto out;
		err = -EBADMSG;
		info->present |= BIT(type);
	}

	err = rift_info_parse_final(info);
	if (!err)
		return 0;
out:
	memset(info, 0, sizeof(*info));
	info->chunks = chunks;
	info->chunks_cap = chunks ? chunks_cap : 0;
	return err;
}
EXPORT_SYMBOL_GPL(rift_info_parse);

/**
 * rift_info_rsp_check() - client side: accept a parsed INFO_RSP
 * @rsp: parsed INFO_RSP
 * @offered: feature bits the client sent in its INFO_REQ
 * @con: CON_RSP of connection 0, or NULL to skip the comparison
 *
 * The server states the queue depth, chunk size and IO size twice (CM
 * private data, then INFO_RSP); a mismatch means one of them is lying or
 * stale and the client must not guess which.
 *
 * Return: 0 if the session may start, -ECONNREFUSED if the server refused
 * it, -EINVAL if @rsp is not an INFO_RSP, -EBADMSG on any inconsistency.
 */
int rift_info_rsp_check(const struct rift_info *rsp, u64 offered,
			const struct rift_con_rsp *con)
{
	if (rsp->type != RIFT_INFO_RSP)
		return -EINVAL;
	if (rsp->status)
		return -ECONNREFUSED;
	if (rift_proto_features_check(offered, rsp->feat_accepted))
		return -EBADMSG;
	if (con && (con->version != rsp->version || con->queue_depth != rsp->queue_depth ||
		    con->chunk_size != rsp->chunk_size || con->max_io_size != rsp->max_io_size))
		return -EBADMSG;
	return 0;
}
EXPORT_SYMBOL_GPL(rift_info_rsp_check);

/* ------------------------------------------------------------------ */
/* Authentication                                                      */
/* ------------------------------------------------------------------ */

static u8 *rift_auth_put(u8 *p, const void *val, size_t len)
{
	memcpy(p, val, len);
	return p + len;
}

/**
 * rift_auth_transcript() - the bytes a proof is computed over
 * @role: whose proof
 * @ids: what it binds; names must be NUL-terminated and valid
 * @buf: destination
 * @cap: bytes at @buf, at least %RIFT_AUTH_TRANSCRIPT_MAX is always enough
 *
 * A label naming the role comes first, so a proof of one role never
 * passes for the other's (a server cannot be used as an oracle for the
 * client's proof).  The role's own partner nonce follows its own, so each
 * side's proof covers the nonce it did not choose.  Names are sent with
 * their terminating NUL: "a" + "bc" and "ab" + "c" differ.
 *
 * Return: the transcript's length, -EINVAL for invalid names, -EMSGSIZE if
 * @cap is too small.
 */
int rift_auth_transcript(enum rift_auth_role role, const struct rift_auth_ids *ids,
			 u8 *buf, size_t cap)
{
	static const char clt_label[16] = "rift-v1-client";
	static const char srv_label[16] = "rift-v1-server";
	size_t sn = strnlen(ids->sess_name, RIFT_NAME_MAX + 1);
	size_t hn = strnlen(ids->host_name, RIFT_NAME_MAX + 1);
	__le32 gen = cpu_to_le32(ids->reconnect_gen);
	u8 *p = buf;

	if (role != RIFT_AUTH_CLIENT && role != RIFT_AUTH_SERVER)
		return -EINVAL;
	if (!rift_proto_name_valid(ids->sess_name, sn) ||
	    (hn && !rift_proto_name_valid(ids->host_name, hn)))
		return -EINVAL;
	if (cap < RIFT_AUTH_TRANSCRIPT_MAX)
		return -EMSGSIZE;
	if (role == RIFT_AUTH_CLIENT) {
		p = rift_auth_put(p, clt_label, sizeof(clt_label));
		p = rift_auth_put(p, ids->clt_nonce, RIFT_AUTH_NONCE_LEN);
		p = rift_auth_put(p, ids->srv_nonce, RIFT_AUTH_NONCE_LEN);
	} else {
		p = rift_auth_put(p, srv_label, sizeof(srv_label));
		p = rift_auth_put(p, ids->srv_nonce, RIFT_AUTH_NONCE_LEN);
		p = rift_auth_put(p, ids->clt_nonce, RIFT_AUTH_NONCE_LEN);
	}
	p = rift_auth_put(p, ids->sess_uuid, RIFT_UUID_LEN);
	p = rift_auth_put(p, ids->path_uuid, RIFT_UUID_LEN);
	p = rift_auth_put(p, &gen, sizeof(gen));
	p = rift_auth_put(p, ids->host_uuid, RIFT_UUID_LEN);
	p = rift_auth_put(p, ids->sess_name, sn + 1);
	p = rift_auth_put(p, ids->host_name, hn + 1);
	return p - buf;
}

static int rift_hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * rift_auth_parse_secret() - a secret as an administrator writes it
 * @hex: hexadecimal digits, optionally followed by one newline
 * @len: bytes at @hex
 * @key: destination, %RIFT_AUTH_SECRET_MAX bytes
 *
 * Return: the secret's length in bytes (%RIFT_AUTH_SECRET_MIN..
 * %RIFT_AUTH_SECRET_MAX), or -EINVAL for anything else (odd length, a
 * non-hex character, too short or too long).
 */
int rift_auth_parse_secret(const char *hex, size_t len, u8 *key)
{
	size_t i;
	int hi, lo;

	if (len && hex[len - 1] == '\n')
		len--;
	if (len % 2 || len / 2 < RIFT_AUTH_SECRET_MIN || len / 2 > RIFT_AUTH_SECRET_MAX)
		return -EINVAL;
	for (i = 0; i < len / 2; i++) {
		hi = rift_hex_nibble(hex[2 * i]);
		lo = rift_hex_nibble(hex[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			memset(key, 0, RIFT_AUTH_SECRET_MAX);
			return -EINVAL;
		}
		key[i] = (u8)(hi << 4 | lo);
	}
	return len / 2;
}
EXPORT_SYMBOL_GPL(rift_auth_parse_secret);

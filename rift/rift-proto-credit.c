// SPDX-License-Identifier: GPL-2.0
/*
 * Rift wire format, third part: memory credits (the floor, the checks of
 * a CREDIT message, the client's and the server's pure decisions).  Pure
 * code, shared with tools/ like rift-proto.c, and under the same rules and
 * error convention (see there).
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

/**
 * rift_proto_credit_floor() - chunks a path instance always keeps
 * @queue_depth: the path's chunk id space
 *
 * A revoke never takes a path below this, so that every path can still
 * make progress with its initial grant.
 *
 * Return: min(%RIFT_CREDIT_FLOOR, @queue_depth).
 */
u16 rift_proto_credit_floor(u16 queue_depth)
{
	return queue_depth < RIFT_CREDIT_FLOOR ? queue_depth : RIFT_CREDIT_FLOOR;
}
EXPORT_SYMBOL_GPL(rift_proto_credit_floor);

/**
 * rift_proto_credit_want_ok() - validate a CREDIT_REQ's argument
 * @want: chunks the client wants to hold in total
 * @queue_depth: the path's chunk id space
 *
 * Return: whether @want is within 1..@queue_depth.
 */
bool rift_proto_credit_want_ok(u16 want, u16 queue_depth)
{
	return want >= 1 && want <= queue_depth;
}
EXPORT_SYMBOL_GPL(rift_proto_credit_want_ok);

/*
 * The rules both directions share, so that a server cannot send what its
 * clients would refuse: at most three grants of distinct chunks inside the
 * id space; known flags; MORE only within an answer; a revoke grants
 * nothing, answers nothing and asks back at least one chunk without going
 * below the floor; @granted covers what this message grants and stays
 * within floor..queue depth; a message that neither answers, revokes nor
 * grants says nothing and is refused.
 */
static bool rift_credit_valid(const struct rift_credit *c, u16 queue_depth)
{
	u16 floor = rift_proto_credit_floor(queue_depth);
	unsigned int i, j;

	if (!queue_depth || queue_depth > RIFT_MAX_QUEUE_DEPTH)
		return false;
	if (c->nr_grant > RIFT_CREDIT_MAX_GRANTS || c->flags & ~RIFT_CREDIT_F_KNOWN)
		return false;
	if ((c->flags & RIFT_CREDIT_F_MORE) && !(c->flags & RIFT_CREDIT_F_ANSWER))
		return false;
	if (c->granted < floor || c->granted > queue_depth || c->granted < c->nr_grant)
		return false;
	if (c->flags & RIFT_CREDIT_F_REVOKE) {
		if (c->flags != RIFT_CREDIT_F_REVOKE || c->nr_grant)
			return false;
		if (c->keep < floor || c->keep >= c->granted)
			return false;
	} else {
		if (c->keep)
			return false;
		if (!c->flags && !c->nr_grant)
			return false;
	}
	for (i = 0; i < c->nr_grant; i++) {
		if (c->grant[i].chunk >= queue_depth)
			return false;
		for (j = 0; j < i; j++)
			if (c->grant[j].chunk == c->grant[i].chunk)
				return false;
	}
	return true;
}

/**
 * rift_proto_credit_encode() - build the payload of a CREDIT SEND
 * @c: message contents
 * @queue_depth: the path's chunk id space
 * @buf: destination
 * @cap: bytes available at @buf
 *
 * Return: bytes written, -EMSGSIZE if @cap is too small, -EINVAL if @c
 * breaks a rule rift_proto_credit_decode() enforces.
 */
int rift_proto_credit_encode(const struct rift_credit *c, u16 queue_depth,
			     void *buf, size_t cap)
{
	struct rift_wire_credit_grant g;
	struct rift_wire_credit w;
	size_t len;
	unsigned int i;

	if (!rift_credit_valid(c, queue_depth))
		return -EINVAL;
	len = sizeof(w) + c->nr_grant * sizeof(g);
	if (cap < len)
		return -EMSGSIZE;
	memset(&w, 0, sizeof(w));
	w.nr_grant = c->nr_grant;
	w.flags = c->flags;
	w.keep = cpu_to_le16(c->keep);
	w.granted = cpu_to_le16(c->granted);
	memcpy(buf, &w, sizeof(w));
	for (i = 0; i < c->nr_grant; i++) {
		memset(&g, 0, sizeof(g));
		g.addr = cpu_to_le64(c->grant[i].addr);
		g.rkey = cpu_to_le32(c->grant[i].rkey);
		g.chunk = cpu_to_le16(c->grant[i].chunk);
		memcpy((u8 *)buf + sizeof(w) + i * sizeof(g), &g, sizeof(g));
	}
	return len;
}
EXPORT_SYMBOL_GPL(rift_proto_credit_encode);

/**
 * rift_proto_credit_decode() - decode and validate a CREDIT payload
 * @buf: received payload
 * @len: byte_len from the work completion
 * @queue_depth: the path's chunk id space
 * @c: decoded contents; zeroed on failure
 *
 * Bytes beyond the grants are ignored, as with every SEND payload, so that
 * a later version may append fields.
 *
 * Return: 0, or -EBADMSG for a payload shorter than its grants or one that
 * breaks a rule (see rift_credit_valid()).
 */
int rift_proto_credit_decode(const void *buf, size_t len, u16 queue_depth,
			     struct rift_credit *c)
{
	struct rift_wire_credit_grant g;
	struct rift_wire_credit w;
	unsigned int i;

	memset(c, 0, sizeof(*c));
	if (!buf || len < sizeof(w))
		return -EBADMSG;
	memcpy(&w, buf, sizeof(w));
	if (w.nr_grant > RIFT_CREDIT_MAX_GRANTS ||
	    len < sizeof(w) + w.nr_grant * sizeof(g))
		return -EBADMSG;
	c->nr_grant = w.nr_grant;
	c->flags = w.flags;
	c->keep = le16_to_cpu(w.keep);
	c->granted = le16_to_cpu(w.granted);
	for (i = 0; i < w.nr_grant; i++) {
		memcpy(&g, (const u8 *)buf + sizeof(w) + i * sizeof(g), sizeof(g));
		c->grant[i].addr = le64_to_cpu(g.addr);
		c->grant[i].rkey = le32_to_cpu(g.rkey);
		c->grant[i].chunk = le16_to_cpu(g.chunk);
	}
	if (!rift_credit_valid(c, queue_depth)) {
		memset(c, 0, sizeof(*c));
		return -EBADMSG;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(rift_proto_credit_decode);

/**
 * rift_credit_fault_str() - the reason a client fails its path with
 * @f: what rift_credit_clt_check() found
 *
 * Return: a static string (Documentation/rift-protocol.rst's wording).
 */
const char *rift_credit_fault_str(enum rift_credit_fault f)
{
	switch (f) {
	case RIFT_CREDIT_OK:
		return "valid credit";
	case RIFT_CREDIT_UNKNOWN_CHUNK:
		return "credit names an unknown chunk";
	case RIFT_CREDIT_TWICE:
		return "credit grants a chunk twice";
	case RIFT_CREDIT_COUNT:
		return "credit count disagrees";
	case RIFT_CREDIT_UNSOLICITED:
		return "unsolicited credit";
	case RIFT_CREDIT_BELOW_FLOOR:
		return "revoke below the floor";
	case RIFT_CREDIT_MALFORMED:
	default:
		return "malformed credit";
	}
}
EXPORT_SYMBOL_GPL(rift_credit_fault_str);

/**
 * rift_credit_clt_init() - a new path instance's grant
 * @s: state to set up
 * @granted: @queue_depth bytes of storage the state keeps using
 * @queue_depth: the instance's chunk id space
 * @initial: entries of INFO_RSP's chunk table: chunks 0..@initial-1
 * @chunk_size: the instance's CHUNK_SIZE (a grant's length)
 * @usable: chunks 0..@usable-1 are what the client's requests can use
 *	(its own queue depth may be below the server's); more is never
 *	asked for.  0 or above @queue_depth: @queue_depth
 *
 * Without %RIFT_FEAT_CREDITS @initial is @queue_depth: every chunk is
 * granted and no CREDIT is ever valid, since none is solicited.
 */
void rift_credit_clt_init(struct rift_credit_clt *s, u8 *granted, u16 queue_depth,
			  u16 initial, u32 chunk_size, u16 usable)
{
	memset(s, 0, sizeof(*s));
	s->granted = granted;
	s->queue_depth = queue_depth;
	s->chunk_size = chunk_size;
	s->usable = usable && usable <= queue_depth ? usable : queue_depth;
	if (initial > queue_depth)
		initial = queue_depth;
	memset(granted, 0, queue_depth);
	memset(granted, 1, initial);
	s->nr_granted = initial;
}
EXPORT_SYMBOL_GPL(rift_credit_clt_init);

/**
 * rift_credit_clt_check() - judge a received CREDIT in the path's state
 * @s: the path instance's grant
 * @buf: the payload received
 * @len: byte_len from the work completion
 * @c: the message decoded, valid when this returns %RIFT_CREDIT_OK
 *
 * Every message rift_proto_credit_decode() refuses is refused here too,
 * with the reason a hostile server's case is named by; what the codec
 * cannot know (the grant so far, a request outstanding, a revoke pending)
 * is checked against @s.  Nothing is changed: rift_credit_clt_apply()
 * does that once the caller has accepted the message.
 *
 * Return: %RIFT_CREDIT_OK or the first rule the message breaks.
 */
enum rift_credit_fault rift_credit_clt_check(const struct rift_credit_clt *s,
					     const void *buf, size_t len,
					     struct rift_credit *c)
{
	u16 floor = rift_proto_credit_floor(s->queue_depth);
	struct rift_wire_credit_grant g;
	struct rift_wire_credit w;
	unsigned int i, j;

	memset(c, 0, sizeof(*c));
	if (!buf || len < sizeof(w))
		return RIFT_CREDIT_MALFORMED;
	memcpy(&w, buf, sizeof(w));
	if (w.nr_grant > RIFT_CREDIT_MAX_GRANTS ||
	    len < sizeof(w) + w.nr_grant * sizeof(g) ||
	    w.flags & ~RIFT_CREDIT_F_KNOWN ||
	    ((w.flags & RIFT_CREDIT_F_MORE) && !(w.flags & RIFT_CREDIT_F_ANSWER)))
		return RIFT_CREDIT_MALFORMED;
	c->nr_grant = w.nr_grant;
	c->flags = w.flags;
	c->keep = le16_to_cpu(w.keep);
	c->granted = le16_to_cpu(w.granted);
	for (i = 0; i < c->nr_grant; i++) {
		memcpy(&g, (const u8 *)buf + sizeof(w) + i * sizeof(g), sizeof(g));
		c->grant[i].addr = le64_to_cpu(g.addr);
		c->grant[i].rkey = le32_to_cpu(g.rkey);
		c->grant[i].chunk = le16_to_cpu(g.chunk);
	}
	/* A revoke only asks: it neither grants nor answers. */
	if ((c->flags & RIFT_CREDIT_F_REVOKE) &&
	    (c->flags != RIFT_CREDIT_F_REVOKE || c->nr_grant))
		return RIFT_CREDIT_MALFORMED;
	if (!(c->flags & RIFT_CREDIT_F_REVOKE) && c->keep)
		return RIFT_CREDIT_MALFORMED;
	/* A grant is a chunk table entry: the table's rule (rift_chunk_ok()). */
	for (i = 0; i < c->nr_grant; i++) {
		u64 end;

		if (check_add_overflow(c->grant[i].addr, (u64)s->chunk_size, &end))
			return RIFT_CREDIT_MALFORMED;
	}
	for (i = 0; i < c->nr_grant; i++) {
		if (c->grant[i].chunk >= s->queue_depth)
			return RIFT_CREDIT_UNKNOWN_CHUNK;
		if (s->granted[c->grant[i].chunk])
			return RIFT_CREDIT_TWICE;
		for (j = 0; j < i; j++)
			if (c->grant[j].chunk == c->grant[i].chunk)
				return RIFT_CREDIT_TWICE;
	}
	/*
	 * What bounds the receives a server can make us consume: one answer
	 * of at most RIFT_CREDIT_MAX_MSGS messages per CREDIT_REQ, one revoke
	 * at a time, nothing else.
	 */
	if (!(c->flags & (RIFT_CREDIT_F_ANSWER | RIFT_CREDIT_F_REVOKE)))
		return RIFT_CREDIT_UNSOLICITED;
	if ((c->flags & RIFT_CREDIT_F_ANSWER) &&
	    (!s->req_out || s->answer_msgs + 1 + !!(c->flags & RIFT_CREDIT_F_MORE) >
			    RIFT_CREDIT_MAX_MSGS))
		return RIFT_CREDIT_UNSOLICITED;
	if ((c->flags & RIFT_CREDIT_F_REVOKE) && s->revoking)
		return RIFT_CREDIT_UNSOLICITED;
	if ((c->flags & RIFT_CREDIT_F_REVOKE) && c->keep < floor)
		return RIFT_CREDIT_BELOW_FLOOR;
	/* Grants are unique and within the id space, so this bounds them too. */
	if (c->granted != s->nr_granted + c->nr_grant)
		return RIFT_CREDIT_COUNT;
	if ((c->flags & RIFT_CREDIT_F_REVOKE) && c->keep >= c->granted)
		return RIFT_CREDIT_MALFORMED;
	return RIFT_CREDIT_OK;
}
EXPORT_SYMBOL_GPL(rift_credit_clt_check);

/**
 * rift_credit_clt_apply() - take a CREDIT rift_credit_clt_check() accepted
 * @s: the path instance's grant
 * @c: the message
 *
 * Grants are marked (the caller makes them usable once it stored their
 * address and key), an answer's last message ends the CREDIT_REQ, a
 * revoke becomes pending: rift_credit_clt_owed() then says how many
 * chunks to give back.
 */
void rift_credit_clt_apply(struct rift_credit_clt *s, const struct rift_credit *c)
{
	unsigned int i;

	for (i = 0; i < c->nr_grant; i++) {
		s->granted[c->grant[i].chunk] = 1;
		s->nr_granted++;
	}
	if (c->flags & RIFT_CREDIT_F_ANSWER) {
		s->answer_msgs++;
		if (!(c->flags & RIFT_CREDIT_F_MORE)) {
			s->req_out = false;
			s->answer_msgs = 0;
		}
	}
	if (c->flags & RIFT_CREDIT_F_REVOKE) {
		s->revoking = true;
		s->keep = c->keep;
	}
}
EXPORT_SYMBOL_GPL(rift_credit_clt_apply);

/**
 * rift_credit_clt_owed() - chunks a pending revoke still asks back
 * @s: the path instance's grant
 *
 * Return: 0 without a revoke pending.
 */
u16 rift_credit_clt_owed(const struct rift_credit_clt *s)
{
	return s->revoking && s->nr_granted > s->keep ? s->nr_granted - s->keep : 0;
}
EXPORT_SYMBOL_GPL(rift_credit_clt_owed);

/**
 * rift_credit_clt_give_back() - a chunk goes back to the server
 * @s: the path instance's grant, with a revoke owed
 * @chunk: a granted chunk no request holds, and no orphan (the caller
 *	sends its CREDIT_REL)
 *
 * The revoke ends once the client holds no more than it may keep.
 */
void rift_credit_clt_give_back(struct rift_credit_clt *s, u16 chunk)
{
	if (chunk >= s->queue_depth || !s->granted[chunk])
		return;
	s->granted[chunk] = 0;
	s->nr_granted--;
	if (s->nr_granted <= s->keep) {
		s->revoking = false;
		s->keep = 0;
	}
}
EXPORT_SYMBOL_GPL(rift_credit_clt_give_back);

/**
 * rift_credit_clt_should_ask() - is it time for a CREDIT_REQ?
 * @s: the path instance's grant
 * @in_use: chunks taken (by requests, orphans)
 * @starved: a request found no free granted chunk
 *
 * When starved, or when three quarters of the grant are in use, unless a
 * request is outstanding already, a revoke is pending or as many chunks
 * as the client can use (the id space, or less) are granted.
 *
 * Return: whether to send one (see rift_credit_clt_want()).
 */
bool rift_credit_clt_should_ask(const struct rift_credit_clt *s, u32 in_use,
				bool starved)
{
	if (s->req_out || s->revoking || s->nr_granted >= s->usable)
		return false;
	return starved || 4 * in_use >= 3 * (u32)s->nr_granted;
}
EXPORT_SYMBOL_GPL(rift_credit_clt_should_ask);

/**
 * rift_credit_clt_want() - the total a CREDIT_REQ asks for
 * @s: the path instance's grant
 * @in_use: chunks taken
 * @waiting: requests waiting for a chunk, the one asking included
 *
 * Twice the grant, or what is in use and waiting if that is more, within
 * the chunks the client can use: a busy path doubles per answer (at most
 * 12 more chunks).
 *
 * Return: 1..the chunks the client can use (at most the queue depth).
 */
u16 rift_credit_clt_want(const struct rift_credit_clt *s, u32 in_use, u32 waiting)
{
	u32 want = 2 * (u32)s->nr_granted;

	if (in_use + waiting > want)
		want = in_use + waiting;
	if (want > s->usable)
		want = s->usable;
	return want ? want : 1;
}
EXPORT_SYMBOL_GPL(rift_credit_clt_want);

/**
 * rift_credit_clt_asked() - a CREDIT_REQ went out
 * @s: the path instance's grant
 */
void rift_credit_clt_asked(struct rift_credit_clt *s)
{
	s->req_out = true;
	s->answer_msgs = 0;
}
EXPORT_SYMBOL_GPL(rift_credit_clt_asked);

/*
 * The server's side of memory credits (Documentation/design/
 * memory-credits.rst, step 3): pure decisions, so that the unit tests
 * check the same arithmetic the kernel server runs.
 */

/**
 * rift_credit_srv_floor() - a server's initial grant and revoke floor
 * @queue_depth: the path instance's chunk id space
 * @param: the server's credit_floor (0: the feature is off)
 *
 * The protocol's floor (rift_proto_credit_floor()) is the least a client
 * accepts in INFO_RSP and in a revoke's keep, so a smaller @param is
 * raised to it; the floor is not lowered to 1 (design, open questions).
 *
 * Return: 0 when @param is 0, else @param within [protocol floor,
 * @queue_depth].
 */
u16 rift_credit_srv_floor(u16 queue_depth, u32 param)
{
	u16 lo = rift_proto_credit_floor(queue_depth);

	if (!param)
		return 0;
	if (param < lo)
		return lo;
	return param > queue_depth ? queue_depth : param;
}
EXPORT_SYMBOL_GPL(rift_credit_srv_floor);

/**
 * rift_credit_srv_grant_nr() - how many chunks an answer grants
 * @queue_depth: the path instance's chunk id space
 * @granted: chunks granted to it now
 * @want: the CREDIT_REQ's total (validated by rift_proto_credit_want_ok())
 * @room: chunks the server's budget still has room for
 *
 * Up to @want in total, at least the protocol's floor (a client that gave
 * chunks back may ask for it again), at most one answer's worth
 * (%RIFT_CREDIT_MAX_MSGS messages), never beyond the id space or @room.
 *
 * Return: chunks to grant, possibly 0 (the answer then grants nothing).
 */
u16 rift_credit_srv_grant_nr(u16 queue_depth, u16 granted, u16 want, u32 room)
{
	u16 floor = rift_proto_credit_floor(queue_depth);
	u32 target = want > floor ? want : floor, n;

	if (target > queue_depth)
		target = queue_depth;
	if (target <= granted)
		return 0;
	n = target - granted;
	if (n > RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS)
		n = RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS;
	return n < room ? n : room;
}
EXPORT_SYMBOL_GPL(rift_credit_srv_grant_nr);

/**
 * rift_credit_srv_revoke() - should the server revoke, and to what
 * @s: the path instance's grant
 *
 * A path is revoked down to its floor when it received no request for
 * @s->idle_ms, holds more than the floor, its client is known to be ready
 * for a CREDIT, and neither a revoke nor a CREDIT_REQ is pending: a
 * client that asks is not idle, and holding the revoke back while an
 * answer is due keeps the two from crossing.
 *
 * Not below what the ULP still holds (@s->busy): a client that owes a
 * revoke takes no chunk for a new request until it has paid (its chunks
 * in use go back as their requests end), so a revoke below the requests
 * a slow backend keeps for seconds would hold every new request of the
 * path behind them, up to its io_timeout_ms (and a timed-out request's
 * chunk stays taken until its late answer).  With keep at least @s->busy
 * the client can pay at once with free chunks; a later look, once those
 * requests ended, takes the grant down to the floor.
 *
 * Return: the revoke's keep (>= the protocol's floor, >= @s->busy, below
 * @s->granted), or 0 for no revoke.
 */
u16 rift_credit_srv_revoke(const struct rift_credit_srv *s)
{
	u32 keep = s->floor;

	if (keep < rift_proto_credit_floor(s->queue_depth))
		keep = rift_proto_credit_floor(s->queue_depth);
	if (keep < s->busy)
		keep = s->busy;
	if (!s->floor || !s->ready || s->req_out || s->revoking ||
	    s->quiet_ms < s->idle_ms || s->granted <= keep)
		return 0;
	return keep;
}
EXPORT_SYMBOL_GPL(rift_credit_srv_revoke);

/**
 * rift_credit_srv_revoke_over() - has the pending revoke ended?
 * @s: the path instance's grant, after a CREDIT_REL
 * @keep: what the revoke let the client keep
 *
 * The client's revoke ends when it holds @keep or fewer, so the server's
 * does too; an answer held back meanwhile may go out then.
 *
 * Return: true once the revoke is over.
 */
bool rift_credit_srv_revoke_over(const struct rift_credit_srv *s, u16 keep)
{
	return s->revoking && s->granted <= keep;
}
EXPORT_SYMBOL_GPL(rift_credit_srv_revoke_over);

/**
 * rift_credit_srv_rel_ok() - may a CREDIT_REL take a chunk back?
 * @queue_depth: the path instance's chunk id space
 * @granted: chunks granted to it before the release
 *
 * A path instance never holds fewer than the protocol's floor: every
 * CREDIT's granted must be at least that (rift_proto_credit_encode()
 * refuses less), so a release below it would leave the server unable to
 * answer or revoke.  The client has no reason to: a revoke's keep is at
 * least the floor.
 *
 * Return: true if the grant stays at or above the floor after it.
 */
bool rift_credit_srv_rel_ok(u16 queue_depth, u16 granted)
{
	return granted > rift_proto_credit_floor(queue_depth);
}
EXPORT_SYMBOL_GPL(rift_credit_srv_rel_ok);

// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer's cases of a session being set up: CON_REQs the server must
 * refuse and the CON_RSP it answers a good one with, second connections
 * and reconnect generations, the INFO exchange, session names and second
 * paths, and admission: hosts that are not on the server's list or
 * cannot prove their secret, joins of another host's session, the
 * CONNECT_REQUEST flood and session churn.  The driver and its table are
 * in rift-peer.c, which also parses the options (-F, -L, -C, -V) some of
 * these cases are told.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rift-peer.h"

/* ------------------------------------------------------------------ */
/* Cases: CON_REQ                                                      */
/* ------------------------------------------------------------------ */

bool case_con_req_empty(const struct peer_case *tc)
{
	struct rift_reject rej;

	(void)tc;
	return expect_refusal(NULL, 0, RIFT_REJ_MALFORMED, &rej);
}

bool case_con_req_garbage(const struct peer_case *tc)
{
	struct rift_reject rej;
	u8 buf[40];

	(void)tc;
	memset(buf, 0x5a, sizeof(buf));
	return expect_refusal(buf, sizeof(buf), RIFT_REJ_MALFORMED, &rej);
}

/* A valid CON_REQ with one field broken: MALFORMED. */
bool case_con_req_bad(const struct peer_case *tc)
{
	struct rift_reject rej;
	u8 buf[RIFT_CON_PRIV_MAX];
	struct path p;
	int len;

	path_init(&p, 1, 1);
	len = con_req_encode(&p, 0, buf);
	if (len < 0)
		return false;
	switch (tc->arg) {
	case CON_REQ_BAD_MAGIC:
		buf[offsetof(struct rift_wire_con_req, magic)] ^= 0xff;
		break;
	case CON_REQ_ZERO_SESS_UUID:
		memset(buf + offsetof(struct rift_wire_con_req, sess_uuid), 0, RIFT_UUID_LEN);
		break;
	case CON_REQ_ZERO_PATH_UUID:
		memset(buf + offsetof(struct rift_wire_con_req, path_uuid), 0, RIFT_UUID_LEN);
		break;
	case CON_REQ_IDX_RANGE:
		put_le16(buf + offsetof(struct rift_wire_con_req, con_idx), 1);
		break;
	case CON_REQ_TOO_MANY_CONS:
		put_le16(buf + offsetof(struct rift_wire_con_req, con_cnt), RIFT_MAX_CONS + 1);
		break;
	case CON_REQ_ZERO_QD:
		put_le16(buf + offsetof(struct rift_wire_con_req, queue_depth), 0);
		break;
	case CON_REQ_QD_RANGE:
		put_le16(buf + offsetof(struct rift_wire_con_req, queue_depth),
			 RIFT_MAX_QUEUE_DEPTH + 1);
		break;
	}
	return expect_refusal(buf, len, RIFT_REJ_MALFORMED, &rej);
}

/* Only versions the server does not speak: VERSION, with its range. */
bool case_con_req_version(const struct peer_case *tc)
{
	u16 v = RIFT_PROTO_VERSION_MAX + 1;
	struct rift_reject rej;
	u8 buf[RIFT_CON_PRIV_MAX];
	struct path p;
	int len;

	(void)tc;
	path_init(&p, 1, 1);
	p.req.min_version = v;
	p.req.max_version = v + 1;
	len = con_req_encode(&p, 0, buf);
	return len > 0 && expect_refusal(buf, len, RIFT_REJ_VERSION, &rej) &&
	       EXPECT(rej.min_version == RIFT_PROTO_VERSION_MIN &&
		      rej.max_version == RIFT_PROTO_VERSION_MAX,
		      "server claims to speak %u..%u, expected %u..%u",
		      rej.min_version, rej.max_version, RIFT_PROTO_VERSION_MIN,
		      RIFT_PROTO_VERSION_MAX);
}

/* JOIN of a session the server does not know: UNKNOWN_SESSION. */
bool case_con_req_join_unknown(const struct peer_case *tc)
{
	struct rift_reject rej;
	u8 buf[RIFT_CON_PRIV_MAX];
	struct path p;
	int len;

	(void)tc;
	path_init(&p, 1, 1);
	p.req.flags = RIFT_CON_F_JOIN;
	len = con_req_encode(&p, 0, buf);
	return len > 0 && expect_refusal(buf, len, RIFT_REJ_UNKNOWN_SESSION, &rej);
}

/*
 * Connection 0 of a two-connection path is up; a second CON_REQ for the
 * path that disagrees with it must be refused with the matching reason.
 */
bool case_con_second(const struct peer_case *tc)
{
	struct rift_reject rej;
	u8 buf[RIFT_CON_PRIV_MAX];
	struct path p, q;
	u16 reason = RIFT_REJ_NONE;
	bool ok = false;
	int len;

	path_init(&p, 2, 5);
	if (!path_connect(&p, 0))
		goto out;
	if (!EXPECT(p.rsp.flags & RIFT_CON_RSP_F_NEW_SESSION,
		    "CON_RSP of a new session lacks NEW_SESSION"))
		goto out;
	q = p;
	q.con[0] = NULL;
	switch (tc->arg) {
	case CON_DUPLICATE:
		q.req.con_idx = 0;
		reason = RIFT_REJ_DUPLICATE_CON;
		break;
	case CON_CNT_MISMATCH:
		q.req.con_cnt = 3;
		reason = RIFT_REJ_BAD_CON_INDEX;
		break;
	case CON_QD_MISMATCH:
		q.req.queue_depth = p.rsp.queue_depth > 1 ? p.rsp.queue_depth - 1 : 0;
		reason = RIFT_REJ_MALFORMED;
		break;
	}
	len = con_req_encode(&q, tc->arg == CON_DUPLICATE ? 0 : 1, buf);
	ok = len > 0 && expect_refusal(buf, len, reason, &rej);
out:
	path_down(&p);
	return ok;
}

/*
 * Only an admitted instance (INFO done) makes older generations stale:
 * a connection of an older generation is then refused.
 */
bool case_con_stale_gen(const struct peer_case *tc)
{
	struct rift_reject rej;
	u8 buf[RIFT_CON_PRIV_MAX];
	struct path p, q;
	bool ok = false;
	int len;

	(void)tc;
	if (!path_up(&p))
		goto out;
	q = p;
	q.con[0] = NULL;
	q.req.flags = RIFT_CON_F_JOIN;
	q.req.reconnect_gen = p.req.reconnect_gen - 1;
	len = con_req_encode(&q, 0, buf);
	ok = len > 0 && expect_refusal(buf, len, RIFT_REJ_STALE_GEN, &rej);
out:
	path_down(&p);
	return ok;
}

/*
 * A higher reconnect generation replaces the path instance the server
 * holds: it is accepted, the old instance is disconnected once the new
 * one is admitted, and the new one completes the path.
 */
bool case_con_newer_gen(const struct peer_case *tc)
{
	struct path old, p;
	bool ok;

	(void)tc;
	path_init(&old, 2, 5);
	p = old;
	p.req.con_cnt = 1;
	p.req.reconnect_gen = old.req.reconnect_gen + 1;
	ok = path_connect(&old, 0) && path_connect(&p, 0) &&
	     EXPECT(!(p.rsp.flags & RIFT_CON_RSP_F_NEW_SESSION),
		    "replacement claims a new session") &&
	     path_info(&p) && expect_closed(old.con[0]) && hb_roundtrip(&p, p.con[0], 1);
	path_down(&old);
	path_down(&p);
	return ok;
}

/*
 * The same on a path that is up, as a client does after a failure: the
 * live instance is closed and the new one takes over the session.
 */
bool case_con_reconnect(const struct peer_case *tc)
{
	u8 data[4096];
	const u8 *back;
	struct path old, p;
	bool ok;
	int err;

	(void)tc;
	pattern(data, sizeof(data), 6);
	ok = path_up(&old) &&
	     test_write(&old, old.con[0], 0, 0, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write before the reconnect");
	if (ok) {
		p = old;
		p.con[0] = NULL;
		memset(&p.rsp, 0, sizeof(p.rsp));
		p.req.flags = RIFT_CON_F_JOIN;
		p.req.reconnect_gen++;
		ok = path_connect(&p, 0) &&
		     EXPECT(!(p.rsp.flags & RIFT_CON_RSP_F_NEW_SESSION),
			    "reconnect claims a new session") &&
		     path_info(&p) && expect_closed(old.con[0]) &&
		     test_read(&p, p.con[0], 1, 0, sizeof(data), 1, &err, &back) &&
		     expect_errno(err, 0, "read after the reconnect") &&
		     EXPECT(!memcmp(back, data, sizeof(data)), "read back other data");
		path_down(&p);
	}
	path_down(&old);
	return ok;
}

/* Asking for more chunks than the server allows: it grants its maximum. */
bool case_con_qd_clamped(const struct peer_case *tc)
{
	unsigned int max = RIFT_MAX_QUEUE_DEPTH;
	struct path p;
	FILE *f;
	bool ok;

	(void)tc;
	f = fopen("/sys/module/rift_server/parameters/max_queue_depth", "r");
	if (f) {
		if (fscanf(f, "%u", &max) != 1)
			max = RIFT_MAX_QUEUE_DEPTH;
		fclose(f);
	}
	path_init(&p, 1, 1);
	p.req.queue_depth = RIFT_MAX_QUEUE_DEPTH;
	ok = path_connect(&p, 0) &&
	     EXPECT(p.rsp.queue_depth == max, "granted %u chunks, expected %u",
		    p.rsp.queue_depth, max);
	if (ok)
		diag("granted %u of %u chunks", p.rsp.queue_depth, RIFT_MAX_QUEUE_DEPTH);
	path_down(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Cases: session setup                                                */
/* ------------------------------------------------------------------ */

/* IO traffic before INFO_REQ closes the path. */
bool case_msg_before_info(const struct peer_case *tc)
{
	struct path p;
	bool ok;

	(void)tc;
	path_init(&p, 1, 1);
	ok = path_connect(&p, 0) && send_imm(p.con[0], imm_raw(RIFT_IMM_HB, 0, 1)) &&
	     expect_closed(p.con[0]);
	path_down(&p);
	return ok;
}

/* A bad INFO_REQ: an INFO_RSP with the reason, then the path is closed. */
bool case_info_bad(const struct peer_case *tc)
{
	struct rift_info_builder b;
	int status = EBADMSG;
	u8 buf[512];
	__le32 val = 0;
	struct path p;
	bool ok = false;
	int len = -EINVAL;

	path_init(&p, 1, 1);
	if (!path_connect(&p, 0))
		goto out;
	switch (tc->arg) {
	case INFO_GARBAGE:
		len = 96;
		memset(buf, 0x11, len);
		break;
	case INFO_CRITICAL_TLV:
		/* A type from the future that the server must not ignore. */
		status = EOPNOTSUPP;
		if (rift_info_start(&b, buf, sizeof(buf), RIFT_INFO_REQ, p.rsp.version, 0) ||
		    rift_info_put(&b, RIFT_TLV_SESS_NAME | RIFT_TLV_CRITICAL, p.name,
				  strlen(p.name)) ||
		    rift_info_put(&b, (RIFT_TLV_NR + 10) | RIFT_TLV_CRITICAL, &val,
				  sizeof(val)))
			break;
		len = rift_info_finish(&b);
		break;
	case INFO_BAD_NAME:
		/* ".." would become a sysfs directory name. */
		if (rift_info_start(&b, buf, sizeof(buf), RIFT_INFO_REQ, p.rsp.version, 0) ||
		    rift_info_put(&b, RIFT_TLV_SESS_NAME | RIFT_TLV_CRITICAL, "..", 2))
			break;
		len = rift_info_finish(&b);
		break;
	case INFO_NO_NAME:
		if (rift_info_start(&b, buf, sizeof(buf), RIFT_INFO_REQ, p.rsp.version, 0) ||
		    rift_info_put(&b, RIFT_TLV_HOST_NAME, "rift-peer", 9))
			break;
		len = rift_info_finish(&b);
		break;
	case INFO_WRONG_VERSION:
		len = info_req_encode(p.name, p.rsp.version + 1, buf, sizeof(buf));
		break;
	case INFO_TOTAL_LEN:
		/* total_len claims more than was sent. */
		len = info_req_encode(p.name, p.rsp.version, buf, sizeof(buf));
		if (len > 0)
			put_le32(buf + offsetof(struct rift_wire_info_hdr, total_len),
				 len + 8);
		break;
	}
	if (!EXPECT(len > 0, "cannot build the INFO_REQ: %d", len))
		goto out;
	ok = expect_info_refusal(&p, buf, len, status);
out:
	path_down(&p);
	return ok;
}

/*
 * An INFO_REQ of exactly RIFT_INFO_REQ_MAX_LEN, padded with optional TLVs of
 * a type from the future, fills the server's receive buffer and must be
 * accepted; 8 bytes more overflow it and the path is closed.
 */
bool case_info_size(const struct peer_case *tc)
{
	static const u8 zeros[0xfff8];
	const u16 unknown = RIFT_TLV_NR + 3;
	size_t len = RIFT_INFO_REQ_MAX_LEN + 8;
	struct rift_info_builder b;
	struct path p;
	bool ok = false;
	u32 room, vlen;
	int err;
	u8 *buf;

	buf = calloc(1, len);
	path_init(&p, 1, 1);
	if (!EXPECT(buf, "out of memory") || !path_connect(&p, 0))
		goto out;
	err = rift_info_start(&b, buf, RIFT_INFO_REQ_MAX_LEN, RIFT_INFO_REQ, p.rsp.version, 0);
	if (!err)
		err = rift_info_put(&b, RIFT_TLV_SESS_NAME | RIFT_TLV_CRITICAL, p.name,
				    strlen(p.name));
	/* An allow-listed host: the size is what is under test. */
	if (!err)
		err = rift_info_put(&b, RIFT_TLV_HOST_NAME, PEER_HOST, strlen(PEER_HOST));
	while (!err && b.len < b.cap) {
		room = b.cap - b.len;
		vlen = (room < 0xfff8 ? room : 0xfff8) - sizeof(struct rift_wire_tlv);
		err = rift_info_put(&b, unknown, zeros, vlen);
	}
	if (!err)
		err = rift_info_finish(&b);
	if (!EXPECT(err == (int)RIFT_INFO_REQ_MAX_LEN, "cannot build the INFO_REQ: %d", err))
		goto out;
	if (tc->arg == INFO_OVERSIZED) {
		ok = send_msg(p.con[0], buf, len) && expect_closed(p.con[0]);
		goto out;
	}
	ok = send_msg(p.con[0], buf, RIFT_INFO_REQ_MAX_LEN) && info_recv(&p, p.con[0]) &&
	     EXPECT(!p.info.status, "INFO_RSP status %u (%s)", p.info.status,
		    strerror(p.info.status)) &&
	     hb_roundtrip(&p, p.con[0], 3);
out:
	path_down(&p);
	free(buf);
	return ok;
}

/*
 * INFO_REQ sent before the path's second connection exists is answered
 * only once it is up; requests are answered on the connection they came.
 */
bool case_info_waits_for_all_cons(const struct peer_case *tc)
{
	u8 buf[512], data[4096];
	const u8 *back;
	struct peer_recv r;
	struct path p;
	bool ok = false;
	int len, err;

	(void)tc;
	path_init(&p, 2, 1);
	if (!path_connect(&p, 0))
		goto out;
	len = info_req_encode(p.name, p.rsp.version, buf, sizeof(buf));
	if (len < 0 || !send_msg(p.con[0], buf, len))
		goto out;
	err = peer_recv(p.con[0], QUIET_MS, &r);
	if (!EXPECT(err == -ETIMEDOUT, "answered before all connections were up (%d)",
		    err))
		goto out;
	if (!path_connect(&p, 1) || !info_recv(&p, p.con[0]) ||
	    !EXPECT(!p.info.status, "INFO_RSP status %u", p.info.status))
		goto out;
	pattern(data, sizeof(data), 3);
	ok = test_write(&p, p.con[1], 0, 8192, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write on connection 1") &&
	     test_read(&p, p.con[0], 1, 8192, sizeof(data), 1, &err, &back) &&
	     expect_errno(err, 0, "read on connection 0") &&
	     EXPECT(!memcmp(back, data, sizeof(data)), "read back other data");
out:
	path_down(&p);
	return ok;
}

/*
 * Second paths: another session may not take a name in use (EEXIST), a
 * second path of a session may not rename it (EINVAL) nor use the
 * addresses of its first path (EEXIST), and one over other addresses
 * joins and shares the session's data.  The first path is unaffected
 * either way.
 */
bool case_session_name(const struct peer_case *tc)
{
	u8 buf[512], data[512];
	struct path a, b;
	const u8 *back;
	bool ok = false;
	int len, err;

	memset(&b, 0, sizeof(b));
	if (!path_up(&a))
		goto out_a;
	switch (tc->arg) {
	case NAME_CLASH:
		path_init(&b, 1, 1);
		len = info_req_encode(a.name, a.rsp.version, buf, sizeof(buf));
		ok = len > 0 && path_connect(&b, 0) &&
		     expect_info_refusal(&b, buf, len, EEXIST);
		break;
	case NAME_MISMATCH:
		path_init_sibling(&b, &a, 1);
		b.tgt = &reverse;
		len = info_req_encode("rift-peer-other", a.rsp.version, buf, sizeof(buf));
		ok = len > 0 && path_connect(&b, 0) &&
		     EXPECT(!(b.rsp.flags & RIFT_CON_RSP_F_NEW_SESSION),
			    "second path claims a new session") &&
		     expect_info_refusal(&b, buf, len, EINVAL);
		break;
	case PATH_SAME_ADDR:
		path_init_sibling(&b, &a, 1);
		len = info_req_encode(a.name, a.rsp.version, buf, sizeof(buf));
		ok = len > 0 && path_connect(&b, 0) &&
		     expect_info_refusal(&b, buf, len, EEXIST);
		break;
	case PATH_JOIN:
		path_init_sibling(&b, &a, 1);
		b.tgt = &reverse;
		b.req.flags = RIFT_CON_F_JOIN;
		pattern(data, sizeof(data), 9);
		ok = path_connect(&b, 0) &&
		     EXPECT(!(b.rsp.flags & RIFT_CON_RSP_F_NEW_SESSION),
			    "second path claims a new session") &&
		     path_info(&b) &&
		     test_write(&b, b.con[0], 2, 0, data, sizeof(data), &err) &&
		     expect_errno(err, 0, "write on the second path") &&
		     test_read(&a, a.con[0], 3, 0, sizeof(data), 2, &err, &back) &&
		     expect_errno(err, 0, "read on the first path") &&
		     EXPECT(!memcmp(back, data, sizeof(data)), "read back other data");
		break;
	}
	path_down(&b);
	ok = ok && EXPECT(hb_roundtrip(&a, a.con[0], 77), "the first session broke");
out_a:
	path_down(&a);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Cases: admission and authentication                                 */
/* ------------------------------------------------------------------ */

static long long srv_pinned_bytes(void)
{
	long long v = -1;
	FILE *f = fopen("/sys/kernel/rift_server/pinned_bytes", "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * The server's pinned bytes once they stopped moving: a former case's
 * session may still be releasing its chunks (up to the peer's wait limit).
 */
static long long srv_pinned_bytes_settled(void)
{
	long long v = srv_pinned_bytes(), prev;
	long long end = now_ms() + peer_timeout_ms;

	do {
		prev = v;
		usleep(300 * 1000);
		v = srv_pinned_bytes();
	} while (v != prev && now_ms() < end);
	return v;
}

/*
 * INFO_REQ of a host the server must refuse: one not on its list, or one
 * with a secret that proves nothing or the wrong thing.  The refusal
 * comes before any chunk memory is pinned.
 */
bool case_host_refused(const struct peer_case *tc)
{
	static const u8 proof[RIFT_AUTH_PROOF_LEN] = { 0xba, 0xd0 };
	const char *host = PEER_HOST_AUTH;
	const u8 *pf = NULL;
	long long before, after;
	u8 buf[512];
	struct path p;
	bool ok = false;
	int len, status = EACCES;

	path_init(&p, 1, 1);
	before = srv_pinned_bytes_settled();
	if (!EXPECT(before >= 0, "cannot read the server's pinned_bytes") ||
	    !path_connect(&p, 0))
		goto out;
	switch (tc->arg) {
	case HOST_UNKNOWN:
		host = PEER_HOST_UNKNOWN;
		break;
	case HOST_AUTH_NO_PROOF:
		status = ENOKEY;
		break;
	case HOST_AUTH_BAD_PROOF:
		pf = proof;
		status = EKEYREJECTED;
		break;
	}
	len = info_req_encode_as(p.name, host, pf, p.rsp.version, buf, sizeof(buf));
	if (len <= 0 || !expect_info_refusal(&p, buf, len, status))
		goto out;
	after = srv_pinned_bytes();
	ok = EXPECT(after == before, "pinned bytes %lld before, %lld after the refusal",
		    before, after);
out:
	path_down(&p);
	return ok;
}

/*
 * Another allow-listed host joins a session it did not open, with the
 * session's UUID and name: refused, and the session's path goes on.
 */
bool case_join_other_host(const struct peer_case *tc)
{
	struct path v, a;
	u8 buf[512];
	bool ok = false;
	int len;

	(void)tc;
	if (!path_up(&v))
		goto out_v;
	path_init_sibling(&a, &v, 1);
	a.req.flags = RIFT_CON_F_JOIN;
	if (!path_connect(&a, 0))
		goto out;
	len = info_req_encode_as(a.name, PEER_HOST_OTHER, NULL, a.rsp.version, buf,
				 sizeof(buf));
	ok = len > 0 && expect_info_refusal(&a, buf, len, EPERM) &&
	     hb_roundtrip(&v, v.con[0], 3);
out:
	path_down(&a);
out_v:
	path_down(&v);
	return ok;
}

/*
 * A host that is not admitted names a live path with the highest
 * generation there is.  The path must not be closed by that, the intruder
 * is refused at INFO, and the path's own client still reconnects with its
 * next generation (no lockout).
 */
/* @dst: another instance of @src's path, generation @gen, not connected. */
static void path_instance(struct path *dst, const struct path *src, u32 gen)
{
	*dst = *src;
	dst->con[0] = NULL;
	dst->con[1] = NULL;
	memset(&dst->rsp, 0, sizeof(dst->rsp));
	dst->req.flags = RIFT_CON_F_JOIN;
	dst->req.reconnect_gen = gen;
}

bool case_join_high_gen(const struct peer_case *tc)
{
	struct path v, a, r;
	u8 buf[512];
	bool ok = false;
	int len;

	(void)tc;
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	if (!path_up(&v))
		goto out;
	path_instance(&a, &v, 0xffffffffU);
	if (!path_connect(&a, 0) ||
	    !EXPECT(hb_roundtrip(&v, v.con[0], 4), "the path died of a CON_REQ alone"))
		goto out;
	len = info_req_encode_as(a.name, PEER_HOST_UNKNOWN, NULL, a.rsp.version, buf,
				 sizeof(buf));
	if (len <= 0 || !expect_info_refusal(&a, buf, len, EACCES) ||
	    !hb_roundtrip(&v, v.con[0], 5))
		goto out;
	path_instance(&r, &v, v.req.reconnect_gen + 1);
	ok = path_connect(&r, 0) && path_info(&r) && expect_closed(v.con[0]) &&
	     hb_roundtrip(&r, r.con[0], 6);
out:
	path_down(&r);
	path_down(&a);
	path_down(&v);
	return ok;
}

/*
 * Join a kernel client's session (-V) claiming its host name, without the
 * host's secret: refused for no proof, or for a wrong one.
 */
bool case_foreign_join(const struct peer_case *tc)
{
	static const u8 proof[RIFT_AUTH_PROOF_LEN] = { 0xf0, 0x0d };
	struct path a;
	u8 buf[512];
	bool ok = false;
	int len;

	if (!EXPECT(victim.set, "needs -V UUID:NAME:HOST"))
		return false;
	path_init(&a, 1, 1);
	memcpy(a.req.sess_uuid, victim.uuid, RIFT_UUID_LEN);
	strcpy(a.name, victim.name);
	a.req.flags = RIFT_CON_F_JOIN;
	if (!path_connect(&a, 0) ||
	    !EXPECT(!(a.rsp.flags & RIFT_CON_RSP_F_NEW_SESSION),
		    "the server knows no session %s", victim.name))
		goto out;
	len = info_req_encode_as(a.name, victim.host, tc->arg ? proof : NULL,
				 a.rsp.version, buf, sizeof(buf));
	ok = len > 0 && expect_info_refusal(&a, buf, len, tc->arg ? EKEYREJECTED : ENOKEY);
out:
	path_down(&a);
	return ok;
}

/* Half-open connections the flood keeps at once; older ones are dropped. */
#define FLOOD_WINDOW	64

/*
 * -F CONNECT_REQUESTs (more if -L seconds have not passed yet), each a new
 * session with a random UUID, and every accepted one left half-open (no
 * INFO_REQ) until the window pushes it out.  The server must answer every
 * one, accepting or refusing with NO_RESOURCES, and nothing else; its caps
 * must bite (some refusals).
 */
bool case_flood(const struct peer_case *tc)
{
	struct peer_conn *ring[FLOOD_WINDOW] = { NULL };
	unsigned int acc = 0, nores = 0, other = 0, sent, i;
	long long t0 = now_ms();
	enum peer_outcome o;
	struct peer_conn *c;
	struct path p;
	u16 reason;

	(void)tc;
	for (sent = 0; sent < flood_n || now_ms() - t0 < flood_secs * 1000LL; sent++) {
		/*
		 * The flood as a whole may take minutes under TCG: the bound
		 * that catches a stuck peer is per request here.
		 */
		alarm(8 * peer_timeout_ms / 1000 + 30);
		path_init(&p, 1, 1);
		o = path_try(&p, &c, &reason);
		if (o == PEER_ESTABLISHED) {
			peer_conn_free(ring[acc % FLOOD_WINDOW]);
			ring[acc % FLOOD_WINDOW] = c;
			acc++;
			continue;
		}
		if (o == PEER_REJECTED && reason == RIFT_REJ_NO_RESOURCES)
			nores++;
		else if (other++ < 5)
			diag("request %u: %s, reason %u", sent, outcome_str(o), reason);
		peer_conn_free(c);
	}
	for (i = 0; i < FLOOD_WINDOW; i++)
		peer_conn_free(ring[i]);
	diag("%u CONNECT_REQUESTs in %lld ms: %u accepted and left half-open, %u refused with NO_RESOURCES, %u other",
	     sent, now_ms() - t0, acc, nores, other);
	return EXPECT(!other, "%u answers were neither an accept nor NO_RESOURCES", other) &&
	       EXPECT(nores, "no request was refused: the server's caps did not bite");
}

/*
 * -N sessions, one after the other, each connected, refused at INFO (a
 * host not on the list) and closed: every cycle makes the server create
 * and tear down a session and a path.  The peer checks only that each is
 * refused; hostile_peer.sh checks that the kernel log did not grow with
 * the cycles (the server's lines for them are rate-limited).
 */
bool case_session_churn(const struct peer_case *tc)
{
	unsigned int i, refused = 0;
	long long t0 = now_ms();
	struct path p;
	u8 buf[512];
	bool ok = true;
	int len;

	(void)tc;
	for (i = 0; ok && i < churn_n; i++) {
		path_init(&p, 1, 1);
		ok = path_connect(&p, 0);
		len = ok ? info_req_encode_as(p.name, PEER_HOST_UNKNOWN, NULL, p.rsp.version,
					      buf, sizeof(buf)) : -1;
		ok = ok && len > 0 && send_msg(p.con[0], buf, len) && info_recv(&p, p.con[0]) &&
		     EXPECT(p.info.status == EACCES, "cycle %u: INFO_RSP status %u, expected %d",
			    i, p.info.status, EACCES);
		refused += ok;
		path_down(&p);
	}
	diag("%u sessions connected and refused in %lld ms", refused, now_ms() - t0);
	return ok;
}

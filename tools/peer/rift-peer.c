// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer: a hostile Rift client in user space.
 *
 * Connects to a kernel Rift server (rift-server.ko serving the test ULP,
 * rift-test-srv.ko) over rdma_cm and breaks the wire protocol on
 * purpose, one case at a time.  Every case asserts the server's exact
 * answer: the reason code of a REJECT, the status of an INFO_RSP, the
 * errno in an IO response, the sequence number echoed by HB_ACK, or the
 * server closing the connection on its own within the time limit.
 *
 * Messages are built and parsed with Rift's own codec (rift/rift-proto.c,
 * compiled here against the shim headers of tools/unit), so the peer
 * cannot drift from Documentation/rift-protocol.rst; the hostile cases
 * start from a valid encoding and break its bytes afterwards.  The
 * protocol helpers the cases are built from are in peer-lib.c, the verbs
 * glue in peer-rdma.c.
 *
 * usage: rift-peer [-s SRC] [-d DST] [-p PORT] [-t MS] [-F N] [-L SECS] [-C N] [CASE...]
 *        rift-peer -B -D DEV [-X DEV:DEV_ID] [-R FILE] [-N N] [...] [CASE...]
 *        rift-peer [-B] -l
 *
 *   -s, -d   client and server IPv4 addresses (198.18.0.2, 198.18.0.1)
 *   -p       server port (7674)
 *   -t       limit of every single wait, in ms (10000)
 *   -C       cycles of the (manual) session_churn case (300)
 *   -F, -L   CONNECT_REQUESTs of the (manual) flood case (1000), and
 *            seconds it goes on at least (0)
 *   -l       list the cases
 *   -B       the riftblk cases instead (peer-blk.c), against riftblk-server
 *            (port 7675); -D, -X, -R and -N are theirs
 *
 * Runs the named cases, or all of them, and prints KTAP: one line per
 * case, diagnostics as "# case: ..." lines.  Exits 1 if any case
 * failed, 2 on a usage error.  Built and run by
 * selftests/hostile_peer.sh.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "peer-lib.h"

/* How long to make sure something does not happen. */
#define QUIET_MS		1000

/* all_chunks_in_flight keeps a bitmap of chunks in a u32. */
static_assert(PEER_QD <= 32);

/* -F: CONNECT_REQUESTs the flood case sends at least. */
static unsigned int flood_n = 1000;
/* -L: seconds the flood case goes on at least (0: until -F are sent). */
static unsigned int flood_secs;

/* -C: connect/refuse cycles the session_churn case runs. */
static unsigned int churn_n = 300;

/* -V: a session of a kernel client the foreign_join cases attack. */
static struct {
	bool	set;
	u8	uuid[RIFT_UUID_LEN];
	char	name[RIFT_NAME_MAX + 1];
	char	host[RIFT_NAME_MAX + 1];
} victim;

/* UUID:NAME:HOST, the UUID as /sys/class/rift-server/<s>/uuid shows it. */
static bool victim_parse(const char *arg)
{
	const char *p = arg, *n, *h;
	unsigned int v, i = 0;

	while (i < RIFT_UUID_LEN && *p && *p != ':') {
		if (*p == '-') {
			p++;
			continue;
		}
		if (sscanf(p, "%2x", &v) != 1)
			return false;
		victim.uuid[i++] = (u8)v;
		p += 2;
	}
	n = strchr(p, ':');
	h = n ? strchr(n + 1, ':') : NULL;
	if (i != RIFT_UUID_LEN || !n || !h || h - n - 1 > RIFT_NAME_MAX ||
	    strlen(h + 1) > RIFT_NAME_MAX)
		return false;
	memcpy(victim.name, n + 1, h - n - 1);
	victim.name[h - n - 1] = '\0';
	strcpy(victim.host, h + 1);
	victim.set = true;
	return true;
}

/* ------------------------------------------------------------------ */
/* Cases: CON_REQ                                                      */
/* ------------------------------------------------------------------ */

static bool case_con_req_empty(const struct peer_case *tc)
{
	struct rift_reject rej;

	(void)tc;
	return expect_refusal(NULL, 0, RIFT_REJ_MALFORMED, &rej);
}

static bool case_con_req_garbage(const struct peer_case *tc)
{
	struct rift_reject rej;
	u8 buf[40];

	(void)tc;
	memset(buf, 0x5a, sizeof(buf));
	return expect_refusal(buf, sizeof(buf), RIFT_REJ_MALFORMED, &rej);
}

enum {
	CON_REQ_BAD_MAGIC,
	CON_REQ_ZERO_SESS_UUID,
	CON_REQ_ZERO_PATH_UUID,
	CON_REQ_IDX_RANGE,
	CON_REQ_TOO_MANY_CONS,
	CON_REQ_ZERO_QD,
	CON_REQ_QD_RANGE,
};

/* A valid CON_REQ with one field broken: MALFORMED. */
static bool case_con_req_bad(const struct peer_case *tc)
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
static bool case_con_req_version(const struct peer_case *tc)
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
static bool case_con_req_join_unknown(const struct peer_case *tc)
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

enum {
	CON_DUPLICATE,
	CON_CNT_MISMATCH,
	CON_STALE_GEN,
	CON_QD_MISMATCH,
};

/*
 * Connection 0 of a two-connection path is up; a second CON_REQ for the
 * path that disagrees with it must be refused with the matching reason.
 */
static bool case_con_second(const struct peer_case *tc)
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
static bool case_con_stale_gen(const struct peer_case *tc)
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
static bool case_con_newer_gen(const struct peer_case *tc)
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
static bool case_con_reconnect(const struct peer_case *tc)
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
static bool case_con_qd_clamped(const struct peer_case *tc)
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
static bool case_msg_before_info(const struct peer_case *tc)
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

enum {
	INFO_GARBAGE,
	INFO_CRITICAL_TLV,
	INFO_BAD_NAME,
	INFO_NO_NAME,
	INFO_WRONG_VERSION,
	INFO_TOTAL_LEN,
};

/* A bad INFO_REQ: an INFO_RSP with the reason, then the path is closed. */
static bool case_info_bad(const struct peer_case *tc)
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

enum {
	INFO_MAX_LEN,
	INFO_OVERSIZED,
};

/*
 * An INFO_REQ of exactly RIFT_INFO_REQ_MAX_LEN, padded with optional TLVs of
 * a type from the future, fills the server's receive buffer and must be
 * accepted; 8 bytes more overflow it and the path is closed.
 */
static bool case_info_size(const struct peer_case *tc)
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
static bool case_info_waits_for_all_cons(const struct peer_case *tc)
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

enum {
	NAME_CLASH,
	NAME_MISMATCH,
	PATH_SAME_ADDR,
	PATH_JOIN,
};

/*
 * Second paths: another session may not take a name in use (EEXIST), a
 * second path of a session may not rename it (EINVAL) nor use the
 * addresses of its first path (EEXIST), and one over other addresses
 * joins and shares the session's data.  The first path is unaffected
 * either way.
 */
static bool case_session_name(const struct peer_case *tc)
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

enum {
	HOST_UNKNOWN,
	HOST_AUTH_NO_PROOF,
	HOST_AUTH_BAD_PROOF,
};

/*
 * INFO_REQ of a host the server must refuse: one not on its list, or one
 * with a secret that proves nothing or the wrong thing.  The refusal
 * comes before any chunk memory is pinned.
 */
static bool case_host_refused(const struct peer_case *tc)
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
static bool case_join_other_host(const struct peer_case *tc)
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

static bool case_join_high_gen(const struct peer_case *tc)
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
static bool case_foreign_join(const struct peer_case *tc)
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
static bool case_flood(const struct peer_case *tc)
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
static bool case_session_churn(const struct peer_case *tc)
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

/* ------------------------------------------------------------------ */
/* Cases: heartbeats and IO                                            */
/* ------------------------------------------------------------------ */

static bool case_hb_echo(const struct peer_case *tc)
{
	static const u16 seqs[] = { 42, 0, 0xffff, 43 };
	struct path p;
	bool ok;
	size_t i;

	(void)tc;
	ok = path_up(&p);
	for (i = 0; ok && i < ARRAY_SIZE(seqs); i++)
		ok = hb_roundtrip(&p, p.con[0], seqs[i]);
	path_down(&p);
	return ok;
}

/* An HB_ACK nobody asked for is harmless. */
static bool case_hb_ack_unsolicited(const struct peer_case *tc)
{
	struct path p;
	bool ok;

	(void)tc;
	ok = path_up(&p) && send_imm(p.con[0], imm_raw(RIFT_IMM_HB_ACK, 0, 99)) &&
	     hb_roundtrip(&p, p.con[0], 100);
	path_down(&p);
	return ok;
}

/*
 * Post a write of 4 KiB on every chunk at once, each to its own offset of
 * rift-test's store; the pattern is derived from @seed and the chunk.
 */
static bool write_all_chunks(const struct path *p, struct peer_conn *c, u32 seed)
{
	u8 data[4096];
	struct test_hdr h;
	struct io io;
	u32 i;

	for (i = 0; i < p->info.queue_depth; i++) {
		pattern(data, sizeof(data), seed + i);
		test_hdr_init(&h, (u64)i * sizeof(data), sizeof(data));
		if (!io_build(p, &io, RIFT_IO_WRITE, i, data, sizeof(data), &h, sizeof(h),
			      NULL, 0) ||
		    !io_post(p, c, &io))
			return false;
	}
	return true;
}

/* Every chunk busy at once: each gets exactly one response, all succeed. */
static bool case_all_chunks_in_flight(const struct peer_case *tc)
{
	u8 data[4096];
	u32 seen = 0, i;
	struct rift_imm rsp;
	const u8 *back;
	struct path p;
	bool ok;
	int err;

	(void)tc;
	ok = path_up(&p) && write_all_chunks(&p, p.con[0], 40);
	for (i = 0; ok && i < p.info.queue_depth; i++) {
		ok = recv_imm(&p, p.con[0], &rsp) &&
		     EXPECT(rsp.type == RIFT_IMM_RSP, "got type %u, expected RSP", rsp.type) &&
		     EXPECT(!(seen & 1U << rsp.chunk), "two responses for chunk %u",
			    rsp.chunk) &&
		     expect_errno(rsp.err, 0, "write");
		seen |= 1U << rsp.chunk;
	}
	for (i = 0; ok && i < p.info.queue_depth; i++) {
		pattern(data, sizeof(data), 40 + i);
		ok = test_read(&p, p.con[0], i, (u64)i * sizeof(data), sizeof(data), 1, &err,
			       &back) &&
		     expect_errno(err, 0, "read") &&
		     EXPECT(!memcmp(back, data, sizeof(data)), "chunk %u: read back other data",
			    i);
	}
	path_down(&p);
	return ok;
}

/* Disconnecting with every chunk busy leaves the server able to serve. */
static bool case_abort_with_requests(const struct peer_case *tc)
{
	u8 data[512];
	struct path p;
	bool ok;
	int err;

	(void)tc;
	ok = path_up(&p) && write_all_chunks(&p, p.con[0], 60);
	path_down(&p);
	pattern(data, sizeof(data), 61);
	ok = ok && path_up(&p) &&
	     test_write(&p, p.con[0], 0, 0, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write on a new session");
	path_down(&p);
	return ok;
}

/*
 * Errors of the ULP travel back in the response and leave the chunk
 * usable: a bad ULP header (EBADMSG), then an offset beyond rift-test's
 * store (ERANGE), then a good write, all through chunk 0.
 */
static bool case_ulp_error(const struct peer_case *tc)
{
	struct test_hdr bad;
	u8 data[512];
	struct path p;
	struct io io;
	bool ok;
	int err;

	(void)tc;
	memset(&bad, 0, sizeof(bad));
	pattern(data, sizeof(data), 1);
	ok = path_up(&p) &&
	     io_build(&p, &io, RIFT_IO_WRITE, 0, NULL, 0, &bad, sizeof(bad), NULL, 0) &&
	     io_post(&p, p.con[0], &io) && io_wait(&p, p.con[0], 0, &err) &&
	     expect_errno(err, -EBADMSG, "bad ULP header") &&
	     test_write(&p, p.con[0], 0, 1ULL << 40, data, sizeof(data), &err) &&
	     expect_errno(err, -ERANGE, "write beyond the store") &&
	     test_write(&p, p.con[0], 0, 4096, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "good write on the same chunk");
	path_down(&p);
	return ok;
}

/* Data written comes back through other chunks and split segments. */
static bool case_write_read(const struct peer_case *tc)
{
	u8 data[16384];
	const u8 *back;
	struct path p;
	bool ok;
	int err;

	(void)tc;
	pattern(data, sizeof(data), 2);
	ok = path_up(&p) &&
	     test_write(&p, p.con[0], 1, 65536, data, 4096, &err) &&
	     expect_errno(err, 0, "write") &&
	     test_read(&p, p.con[0], 2, 65536, 4096, 3, &err, &back) &&
	     expect_errno(err, 0, "read") &&
	     EXPECT(!memcmp(back, data, 4096), "read back other data") &&
	     hb_roundtrip(&p, p.con[0], 5);
	path_down(&p);
	return ok;
}

/* Answers chunk_reuse_ai waits for. */
#define REUSE_ROUNDS		1000

/* The next RSP_RKEY on @c, with its new key; answers heartbeats. */
static bool recv_rsp_rkey(const struct path *p, struct peer_conn *c, struct rift_imm *imm,
			  u32 *rkey)
{
	struct rift_imm ack = { .type = RIFT_IMM_HB_ACK };
	struct peer_recv r;
	__be32 v;
	int err;

	for (;;) {
		err = peer_recv(c, peer_timeout_ms, &r);
		if (!EXPECT(!err, "nothing received: %s",
			    err == -ETIMEDOUT ? "timed out" : peer_conn_error(c)) ||
		    !EXPECT(r.has_imm, "a %u-byte message without immediate data", r.len))
			return false;
		v = (__force __be32)r.imm;
		if (!EXPECT(!rift_imm_decode(v, p->info.queue_depth, imm),
			    "malformed immediate 0x%08x", be32_to_cpu(v)))
			return false;
		if (imm->type != RIFT_IMM_HB)
			break;
		ack.seq = imm->seq;
		if (rift_imm_encode(&ack, &v) || !send_imm(c, v))
			return false;
	}
	return EXPECT(imm->type == RIFT_IMM_RSP_RKEY, "got type %u, expected RSP_RKEY",
		      imm->type) &&
	       EXPECT(!rift_proto_rkey_decode(r.data, r.len, imm->chunk, rkey),
		      "RSP_RKEY of chunk %u with a bad %u-byte payload", imm->chunk, r.len);
}

/*
 * L6 stress: with always-invalidate every answer carries the chunk's next
 * rkey, and the peer writes into the chunk again under that key the moment
 * it has the answer, on every chunk at once.  The server must take each
 * next request although the previous answer's post may not have returned
 * yet (no "one unanswered" refusal), and must never hand out a key that
 * the chunk's MR does not carry (the next write would be refused by its
 * device and the connection broken).
 */
static bool chunk_reuse_ai_once(void)
{
	u32 done = 0, posted = 0, rkey, i;
	struct rift_imm rsp;
	u8 data[512];
	struct path p;
	bool ok;

	path_init(&p, 1, 1);
	p.feat = RIFT_FEAT_ALWAYS_INVALIDATE;
	pattern(data, sizeof(data), 80);
	ok = path_connect(&p, 0) && path_info(&p) &&
	     EXPECT(p.info.feat_accepted & RIFT_FEAT_ALWAYS_INVALIDATE,
		    "always-invalidate not accepted");
	for (i = 0; ok && i < p.info.queue_depth; i++, posted++)
		ok = test_write_post(&p, p.con[0], i, 0, (u64)i * 4096, data, sizeof(data));
	while (ok && done < posted) {
		ok = recv_rsp_rkey(&p, p.con[0], &rsp, &rkey) &&
		     expect_errno(rsp.err, 0, "write");
		if (!ok)
			break;
		done++;
		p.chunks[rsp.chunk].rkey = rkey;
		if (posted < REUSE_ROUNDS) {
			ok = test_write_post(&p, p.con[0], rsp.chunk, 0,
					     (u64)rsp.chunk * 4096, data, sizeof(data));
			posted++;
		}
	}
	diag("%u writes answered, posting_waits %lld", done,
	     srv_path_stat(&p, "posting_waits"));
	ok = ok && hb_roundtrip(&p, p.con[0], 11);
	path_down(&p);
	return ok;
}

/* What rxe (6.1) logs when it runs an already-executed REG_MR again. */
#define RXE_REG_MR_AGAIN	"rxe_reg_fast_mr: mr->lkey = "

/*
 * rxe 6.1 rewinds its send queue on a retransmission and runs again a
 * REG_MR that had already run; the WR fails, and the server's QP can wait
 * for good (Documentation/admin-guide.rst, "Stalled connections").
 * Under always-invalidate every answer is preceded by a REG_MR, so a
 * retransmission (rare; seen on the sanitizer kernel) wedges this case
 * and the server closes the path on its heartbeat.  That is the device's
 * defect, not the server's: the case runs once more on a new path, only
 * when the kernel log shows the defect during the first run, and must
 * then pass.
 */
static bool case_chunk_reuse_ai(const struct peer_case *tc)
{
	long before = kmsg_count(RXE_REG_MR_AGAIN), after;

	(void)tc;
	if (chunk_reuse_ai_once())
		return true;
	after = kmsg_count(RXE_REG_MR_AGAIN);
	if (before < 0 || after <= before)
		return false;
	diag("rxe ran a REG_MR again on a retransmission (\"%s...\" in the kernel log) %s",
	     RXE_REG_MR_AGAIN, "and wedged the server's QP: once more on a new path");
	return chunk_reuse_ai_once();
}

/* Store offset and hold time of the request cancel_stale_* hold back. */
#define CANCEL_OFF		0x100000ULL
#define CANCEL_HOLD_MS		800

/*
 * Post a write of generation @gen through chunk 0 that rift-test-srv holds
 * back for CANCEL_HOLD_MS, then a CANCEL of generation @cancel_gen on the
 * same connection (so it arrives while the write is held), and wait for
 * the write's answer.  Fails unless the write was really held.
 */
static bool held_write_cancelled(struct path *p, u16 gen, u16 cancel_gen, int *err)
{
	struct rift_imm cancel = { .type = RIFT_IMM_CANCEL, .gen = cancel_gen };
	long long t0 = now_ms(), took;
	u8 data[512];
	__be32 v;

	pattern(data, sizeof(data), 70 + gen);
	if (!set_param("rift_test_srv", "delay_offset", CANCEL_OFF) ||
	    !set_param("rift_test_srv", "delay_next_ms", CANCEL_HOLD_MS) ||
	    !test_write_post(p, p->con[0], 0, gen, CANCEL_OFF, data, sizeof(data)) ||
	    !EXPECT(!rift_imm_encode(&cancel, &v), "cannot encode CANCEL") ||
	    !send_imm(p->con[0], v) || !io_wait(p, p->con[0], 0, err))
		return false;
	took = now_ms() - t0;
	return EXPECT(took >= CANCEL_HOLD_MS * 3 / 4,
		      "request of generation %u answered after %lld ms: not held back", gen,
		      took);
}

enum {
	CANCEL_WITH_GEN,
	CANCEL_LEGACY,
};

/*
 * M3: a CANCEL and the next request on its chunk are not ordered on the
 * server (another connection, another CQ): the client times request 1
 * out and sends CANCEL, request 1's answer crosses it, the client reuses
 * the chunk for request 2, and request 2 reaches the server first.  The
 * peer replays that order on one connection: request 1 answered, request
 * 2 held back by rift-test-srv, then request 1's CANCEL.
 *  - CANCEL_GEN: the CANCEL names generation 1, the server holds 2, so it
 *    is ignored and counted (cancels_stale); request 2 succeeds.  A CANCEL
 *    naming generation 3 does cancel request 3.
 *  - without it (an old peer): the CANCEL names only the chunk, and
 *    request 2 is cancelled, the race the feature closes; the old
 *    behaviour stays for such peers.
 */
static bool case_cancel_stale(const struct peer_case *tc)
{
	bool gen = tc->arg == CANCEL_WITH_GEN;
	long long stale0 = -1, stale1;
	u8 data[512];
	struct path p;
	bool ok;
	int err;

	path_init(&p, 1, 1);
	p.feat = RIFT_FEAT_CANCEL | (gen ? RIFT_FEAT_CANCEL_GEN : 0);
	pattern(data, sizeof(data), 69);
	ok = path_connect(&p, 0) && path_info(&p) &&
	     EXPECT(p.info.feat_accepted == p.feat, "features %#llx accepted, %#llx offered",
		    (unsigned long long)p.info.feat_accepted, (unsigned long long)p.feat) &&
	     test_write_post(&p, p.con[0], 0, 1, CANCEL_OFF, data, sizeof(data)) &&
	     io_wait(&p, p.con[0], 0, &err) && expect_errno(err, 0, "request 1") &&
	     EXPECT((stale0 = srv_path_stat(&p, "cancels_stale")) >= 0,
		    "cannot read the path's cancels_stale") &&
	     held_write_cancelled(&p, 2, gen ? 1 : 0, &err);
	if (ok && gen) {
		stale1 = srv_path_stat(&p, "cancels_stale");
		ok = expect_errno(err, 0, "request 2, after request 1's late CANCEL") &&
		     EXPECT(stale1 == stale0 + 1, "cancels_stale %lld before, %lld after",
			    stale0, stale1) &&
		     held_write_cancelled(&p, 3, 3, &err) &&
		     expect_errno(err, -ECANCELED, "request 3, cancelled by its own CANCEL");
	} else if (ok) {
		ok = expect_errno(err, -ECANCELED,
				  "request 2 without CANCEL_GEN: cancelled by request 1's CANCEL");
	}
	ok = ok && hb_roundtrip(&p, p.con[0], 9);
	set_param("rift_test_srv", "delay_next_ms", 0);
	path_down(&p);
	return ok;
}

enum {
	DESC_OFF_MISMATCH,
	DESC_BAD_MAGIC,
	DESC_DIR_MISMATCH,
	DESC_CHUNK_MISMATCH,
	DESC_FLAGS,
	DESC_USR_OVERLAP,
	DESC_DATA_LEN,
	DESC_BEYOND_CHUNK,
	DESC_SEG_WRAP,
	DESC_SEG_SUM,
};

/*
 * A request whose descriptor does not validate is a protocol violation:
 * the server closes the path instead of answering.
 */
static bool case_bad_desc(const struct peer_case *tc)
{
	u8 data[512], *desc;
	struct rift_rbuf seg;
	struct test_hdr h;
	struct path p;
	struct io io;
	u32 rkey;
	bool ok = false;

	if (!path_up(&p))
		goto out;
	pattern(data, sizeof(data), 4);
	if (tc->arg == DESC_SEG_WRAP || tc->arg == DESC_SEG_SUM) {
		peer_read_region(p.con[0], &seg.addr, &rkey);
		seg.len = sizeof(data);
		seg.rkey = rkey;
		test_hdr_init(&h, 0, sizeof(data));
		if (!io_build(&p, &io, RIFT_IO_READ, 0, NULL, sizeof(data), &h, sizeof(h),
			      &seg, 1))
			goto out;
	} else {
		test_hdr_init(&h, 0, sizeof(data));
		if (!io_build(&p, &io, RIFT_IO_WRITE, 0, data, sizeof(data), &h, sizeof(h),
			      NULL, 0))
			goto out;
	}
	desc = io.img + io.req.desc_off;
	switch (tc->arg) {
	case DESC_OFF_MISMATCH:
		/* A valid descriptor, one alignment unit too far. */
		memmove(desc + RIFT_IO_DESC_ALIGN, desc, io.req.desc_len);
		memset(desc, 0, RIFT_IO_DESC_ALIGN);
		io.imm.desc_off += RIFT_IO_DESC_ALIGN;
		io.len += RIFT_IO_DESC_ALIGN;
		break;
	case DESC_BAD_MAGIC:
		desc[offsetof(struct rift_wire_io_desc, magic)] ^= 0xff;
		break;
	case DESC_DIR_MISMATCH:
		io.imm.type = RIFT_IMM_READ;
		break;
	case DESC_CHUNK_MISMATCH:
		put_le16(desc + offsetof(struct rift_wire_io_desc, chunk), 1);
		break;
	case DESC_FLAGS:
		put_le16(desc + offsetof(struct rift_wire_io_desc, flags), 1);
		break;
	case DESC_USR_OVERLAP:
		/* A ULP header reaching past the descriptor's offset. */
		put_le16(desc + offsetof(struct rift_wire_io_desc, usr_len),
			 RIFT_USR_LEN_MAX);
		break;
	case DESC_DATA_LEN:
		put_le32(desc + offsetof(struct rift_wire_io_desc, data_len),
			 p.info.max_io_size + RIFT_IO_SIZE_ALIGN);
		break;
	case DESC_BEYOND_CHUNK:
		io.imm.desc_off = p.info.chunk_size;
		break;
	case DESC_SEG_WRAP:
		put_le64(desc + sizeof(struct rift_wire_io_desc) +
			 offsetof(struct rift_wire_rbuf, addr), UINT64_MAX - 16);
		break;
	case DESC_SEG_SUM:
		put_le32(desc + sizeof(struct rift_wire_io_desc) +
			 offsetof(struct rift_wire_rbuf, len), sizeof(data) - 64);
		break;
	}
	ok = io_post(&p, p.con[0], &io) && expect_closed(p.con[0]);
out:
	path_down(&p);
	return ok;
}

enum {
	IMM_ZERO,
	IMM_RESERVED_TYPE,
	IMM_SERVER_TYPE,
	IMM_CHUNK_RANGE,
	IMM_HB_CHUNK,
};

/* An immediate the server must not accept closes the path. */
static bool case_bad_imm(const struct peer_case *tc)
{
	struct path p;
	__be32 imm = 0;
	bool ok = false;

	if (!path_up(&p))
		goto out;
	switch (tc->arg) {
	case IMM_ZERO:
		imm = imm_raw(RIFT_IMM_INVALID, 0, 0);
		break;
	case IMM_RESERVED_TYPE:
		imm = imm_raw(RIFT_IMM_TYPE_NR + 2, 0, 0);
		break;
	case IMM_SERVER_TYPE:
		imm = imm_raw(RIFT_IMM_RSP, 0, 0);
		break;
	case IMM_CHUNK_RANGE:
		imm = imm_raw(RIFT_IMM_WRITE, p.info.queue_depth, 1);
		break;
	case IMM_HB_CHUNK:
		imm = imm_raw(RIFT_IMM_HB, 1, 7);
		break;
	}
	diag("immediate 0x%08x", be32_to_cpu(imm));
	ok = send_imm(p.con[0], imm) && expect_closed(p.con[0]);
out:
	path_down(&p);
	return ok;
}

/* A plain SEND once the path is up: only INFO_REQ may come without one. */
static bool case_send_without_imm(const struct peer_case *tc)
{
	u8 msg[16] = { 0 };
	struct path p;
	bool ok;

	(void)tc;
	ok = path_up(&p) && send_msg(p.con[0], msg, sizeof(msg)) &&
	     expect_closed(p.con[0]);
	path_down(&p);
	return ok;
}

/* Writing into a chunk with a key the server never handed out. */
static bool case_write_bad_rkey(const struct peer_case *tc)
{
	u8 data[512];
	struct test_hdr h;
	struct path p;
	struct io io;
	__be32 imm;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 5);
	test_hdr_init(&h, 0, sizeof(data));
	ok = path_up(&p) &&
	     io_build(&p, &io, RIFT_IO_WRITE, 0, data, sizeof(data), &h, sizeof(h),
		      NULL, 0) &&
	     EXPECT(!rift_imm_encode(&io.imm, &imm), "cannot encode the immediate");
	if (ok) {
		p.chunks[0].rkey ^= 0xff;
		ok = io_post_raw(&p, p.con[0], &io, imm) && expect_closed(p.con[0]);
	}
	path_down(&p);
	return ok;
}

/*
 * The server's device refused our RDMA WRITE (the key is not valid on
 * the QP it arrived on): our send completes with a remote access error.
 * Any other end, the server closing the connection for what our write
 * left in our own chunk, for one, means the write was let in.
 */
static bool expect_write_refused(struct peer_conn *c)
{
	struct peer_recv r;
	int err = peer_recv(c, QUIET_MS * 5, &r);

	return EXPECT(err == -EIO && strstr(peer_conn_error(c), "remote access"),
		      "the write was not refused by the server's device: %d, %s",
		      err, err == -EIO ? peer_conn_error(c) : "no error");
}

/*
 * Another session's (address, rkey), used on our own connection: every
 * path instance has a protection domain of its own on the server, so the
 * server's device refuses the write (our connection is closed) and the
 * other session, whose chunk it named, goes on with its data intact.
 */
static bool case_cross_session_rkey(const struct peer_case *tc)
{
	u8 data[512], mine[4096];
	const u8 *back;
	struct test_hdr h;
	struct path victim, p;
	struct io io;
	__be32 imm;
	bool ok;
	int err;

	(void)tc;
	pattern(mine, sizeof(mine), 8);
	pattern(data, sizeof(data), 9);
	test_hdr_init(&h, 0, sizeof(data));
	ok = path_up(&victim) && path_up(&p) &&
	     test_write(&victim, victim.con[0], 1, 8192, mine, sizeof(mine), &err) &&
	     expect_errno(err, 0, "victim's write");
	if (ok) {
		/* The victim's chunk 0, named through our QP. */
		p.chunks[0] = victim.chunks[0];
		ok = io_build(&p, &io, RIFT_IO_WRITE, 0, data, sizeof(data), &h,
			      sizeof(h), NULL, 0) &&
		     EXPECT(!rift_imm_encode(&io.imm, &imm), "cannot encode the immediate") &&
		     io_post_raw(&p, p.con[0], &io, imm) &&
		     expect_write_refused(p.con[0]);
	}
	ok = ok &&
	     test_read(&victim, victim.con[0], 2, 8192, sizeof(mine), 1, &err, &back) &&
	     expect_errno(err, 0, "victim's read") &&
	     EXPECT(!memcmp(back, mine, sizeof(mine)), "the victim reads other data") &&
	     hb_roundtrip(&victim, victim.con[0], 4);
	path_down(&p);
	path_down(&victim);
	return ok;
}

/*
 * The chunk table's addresses are the server's MR iovas: on rxe these
 * would be kernel virtual addresses (x86-64's upper half) unless the
 * server replaces them.  Reads and writes through them still work.
 */
static bool case_chunk_addrs_opaque(const struct peer_case *tc)
{
	u8 data[4096];
	const u8 *back;
	struct path p;
	bool ok;
	int err;
	u32 i;

	(void)tc;
	pattern(data, sizeof(data), 12);
	ok = path_up(&p);
	for (i = 0; ok && i < PEER_QD; i++)
		ok = EXPECT(p.chunks[i].addr < 0xffff800000000000ULL,
			    "chunk %u at 0x%llx, a kernel address", i,
			    (unsigned long long)p.chunks[i].addr);
	ok = ok && test_write(&p, p.con[0], 3, 4096, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write") &&
	     test_read(&p, p.con[0], 4, 4096, sizeof(data), 2, &err, &back) &&
	     expect_errno(err, 0, "read") &&
	     EXPECT(!memcmp(back, data, sizeof(data)), "read back other data");
	path_down(&p);
	return ok;
}

/* A read whose segment names a key that is not ours: the server's write fails. */
static bool case_read_bad_rkey(const struct peer_case *tc)
{
	struct rift_rbuf seg;
	struct test_hdr h;
	struct path p;
	struct io io;
	bool ok;

	(void)tc;
	test_hdr_init(&h, 0, 512);
	ok = path_up(&p);
	if (ok) {
		peer_read_region(p.con[0], &seg.addr, &seg.rkey);
		seg.rkey ^= 0xff;
		seg.len = 512;
		ok = io_build(&p, &io, RIFT_IO_READ, 0, NULL, 512, &h, sizeof(h), &seg, 1) &&
		     io_post(&p, p.con[0], &io) && expect_closed(p.con[0]);
	}
	path_down(&p);
	return ok;
}

/*
 * A client that stops talking: the server must notice by heartbeats
 * (protocol, "Heartbeats") and close the path after hb_missed_max
 * intervals without traffic.
 */
static bool case_silent_peer(const struct peer_case *tc)
{
	struct path p;
	bool ok;
	int ms;

	(void)tc;
	ok = path_up(&p);
	if (ok) {
		ms = (p.info.hb_missed_max + 2) * p.info.hb_interval_ms + 2000;
		diag("silent for up to %d ms (hb_interval_ms %u, hb_missed_max %u)", ms,
		     p.info.hb_interval_ms, p.info.hb_missed_max);
		ok = expect_closed_within(p.con[0], ms);
	}
	path_down(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Driver                                                              */
/* ------------------------------------------------------------------ */

/* Table entries: a case, a variant of a shared case. */
#define CASE(n, fn)		{ .name = n, .run = fn }
#define VARIANT(n, fn, a)	{ .name = n, .run = fn, .arg = a }
/* Run only when named: they need what an option gives them. */
#define MANUAL(n, fn, a)	{ .name = n, .run = fn, .arg = a, .manual = true }

static const struct peer_case cases[] = {
	CASE("con_req_empty",			case_con_req_empty),
	CASE("con_req_garbage",			case_con_req_garbage),
	VARIANT("con_req_bad_magic",		case_con_req_bad, CON_REQ_BAD_MAGIC),
	VARIANT("con_req_zero_sess_uuid",	case_con_req_bad, CON_REQ_ZERO_SESS_UUID),
	VARIANT("con_req_zero_path_uuid",	case_con_req_bad, CON_REQ_ZERO_PATH_UUID),
	VARIANT("con_req_idx_out_of_range",	case_con_req_bad, CON_REQ_IDX_RANGE),
	VARIANT("con_req_too_many_cons",	case_con_req_bad, CON_REQ_TOO_MANY_CONS),
	VARIANT("con_req_zero_queue_depth",	case_con_req_bad, CON_REQ_ZERO_QD),
	VARIANT("con_req_queue_depth_range",	case_con_req_bad, CON_REQ_QD_RANGE),
	CASE("con_req_version",			case_con_req_version),
	CASE("con_req_join_unknown",		case_con_req_join_unknown),
	VARIANT("con_duplicate",		case_con_second, CON_DUPLICATE),
	VARIANT("con_cnt_mismatch",		case_con_second, CON_CNT_MISMATCH),
	CASE("con_stale_gen",			case_con_stale_gen),
	VARIANT("con_queue_depth_mismatch",	case_con_second, CON_QD_MISMATCH),
	CASE("con_newer_gen_replaces",		case_con_newer_gen),
	CASE("con_newer_gen_on_live_path",	case_con_reconnect),
	CASE("con_queue_depth_clamped",		case_con_qd_clamped),
	VARIANT("host_unknown",			case_host_refused, HOST_UNKNOWN),
	VARIANT("host_auth_no_proof",		case_host_refused, HOST_AUTH_NO_PROOF),
	VARIANT("host_auth_bad_proof",		case_host_refused, HOST_AUTH_BAD_PROOF),
	CASE("join_other_host",			case_join_other_host),
	CASE("join_high_gen_no_lockout",	case_join_high_gen),
	MANUAL("flood",				case_flood, 0),
	MANUAL("foreign_join",			case_foreign_join, 0),
	MANUAL("session_churn",			case_session_churn, 0),
	MANUAL("foreign_join_bad_proof",	case_foreign_join, 1),
	CASE("msg_before_info",			case_msg_before_info),
	VARIANT("info_garbage",			case_info_bad, INFO_GARBAGE),
	VARIANT("info_critical_tlv",		case_info_bad, INFO_CRITICAL_TLV),
	VARIANT("info_bad_name",		case_info_bad, INFO_BAD_NAME),
	VARIANT("info_no_name",			case_info_bad, INFO_NO_NAME),
	VARIANT("info_wrong_version",		case_info_bad, INFO_WRONG_VERSION),
	VARIANT("info_total_len",		case_info_bad, INFO_TOTAL_LEN),
	VARIANT("info_max_len",			case_info_size, INFO_MAX_LEN),
	VARIANT("info_oversized",		case_info_size, INFO_OVERSIZED),
	CASE("info_waits_for_all_cons",		case_info_waits_for_all_cons),
	VARIANT("name_clash",			case_session_name, NAME_CLASH),
	VARIANT("name_mismatch",		case_session_name, NAME_MISMATCH),
	VARIANT("path_same_addresses",		case_session_name, PATH_SAME_ADDR),
	VARIANT("second_path_joins",		case_session_name, PATH_JOIN),
	CASE("hb_echo",				case_hb_echo),
	CASE("hb_ack_unsolicited",		case_hb_ack_unsolicited),
	CASE("ulp_error_chunk_reused",		case_ulp_error),
	CASE("write_read",			case_write_read),
	CASE("all_chunks_in_flight",		case_all_chunks_in_flight),
	CASE("abort_with_requests",		case_abort_with_requests),
	CASE("chunk_reuse_ai",			case_chunk_reuse_ai),
	VARIANT("cancel_stale_gen",		case_cancel_stale, CANCEL_WITH_GEN),
	VARIANT("cancel_stale_legacy",		case_cancel_stale, CANCEL_LEGACY),
	VARIANT("desc_off_mismatch",		case_bad_desc, DESC_OFF_MISMATCH),
	VARIANT("desc_bad_magic",		case_bad_desc, DESC_BAD_MAGIC),
	VARIANT("desc_dir_mismatch",		case_bad_desc, DESC_DIR_MISMATCH),
	VARIANT("desc_chunk_mismatch",		case_bad_desc, DESC_CHUNK_MISMATCH),
	VARIANT("desc_flags",			case_bad_desc, DESC_FLAGS),
	VARIANT("desc_usr_overlap",		case_bad_desc, DESC_USR_OVERLAP),
	VARIANT("desc_data_len",		case_bad_desc, DESC_DATA_LEN),
	VARIANT("desc_beyond_chunk",		case_bad_desc, DESC_BEYOND_CHUNK),
	VARIANT("desc_seg_wrap",		case_bad_desc, DESC_SEG_WRAP),
	VARIANT("desc_seg_sum",			case_bad_desc, DESC_SEG_SUM),
	VARIANT("imm_zero",			case_bad_imm, IMM_ZERO),
	VARIANT("imm_reserved_type",		case_bad_imm, IMM_RESERVED_TYPE),
	VARIANT("imm_server_type",		case_bad_imm, IMM_SERVER_TYPE),
	VARIANT("imm_chunk_out_of_range",	case_bad_imm, IMM_CHUNK_RANGE),
	VARIANT("imm_hb_with_chunk",		case_bad_imm, IMM_HB_CHUNK),
	CASE("send_without_imm",		case_send_without_imm),
	CASE("write_bad_rkey",			case_write_bad_rkey),
	CASE("read_bad_rkey",			case_read_bad_rkey),
	CASE("cross_session_rkey",		case_cross_session_rkey),
	CASE("chunk_addrs_opaque",		case_chunk_addrs_opaque),
	CASE("silent_peer",			case_silent_peer),
};

static void overrun(int sig)
{
	static const char msg[] = "# rift-peer: case overran its time budget\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: rift-peer [-s SRC] [-d DST] [-p PORT] [-t MS] [-V UUID:SESSION:HOST] [-F N] [-L SECS] [-C N] [CASE...]\n"
		"       rift-peer -B -D DEV [-X DEV:DEV_ID] [-R FILE] [-N N] [-s SRC] [-d DST] [-p PORT] [-t MS] [CASE...]\n"
		"       rift-peer [-B] -l\n");
	exit(2);
}

/* The table the run uses: the transport's cases, or riftblk's (-B). */
static const struct peer_case *tab = cases;
static size_t tab_len = ARRAY_SIZE(cases);

static const struct peer_case *find_case(const char *name)
{
	size_t i;

	for (i = 0; i < tab_len; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct peer_case *sel[256];
	int pass = 0, fail = 0, opt, port = 0;
	bool ok, list = false;
	size_t n = 0, i;

	while ((opt = getopt(argc, argv, "s:d:p:t:V:F:L:C:BD:X:R:N:lh")) != -1) {
		switch (opt) {
		case 's':
			target.src = optarg;
			break;
		case 'd':
			target.dst = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 't':
			peer_timeout_ms = atoi(optarg);
			if (peer_timeout_ms <= 0)
				print_usage();
			break;
		case 'F':
			flood_n = atoi(optarg);
			if (!flood_n)
				print_usage();
			break;
		case 'L':
			flood_secs = atoi(optarg);
			break;
		case 'C':
			churn_n = atoi(optarg);
			if (!churn_n)
				print_usage();
			break;
		case 'V':
			if (!victim_parse(optarg))
				print_usage();
			break;
		case 'B':
			/* riftblk's own port unless -p says otherwise. */
			tab = blk_cases;
			tab_len = blk_nr_cases;
			target.port = RIFTBLK_PEER_PORT;
			break;
		case 'l':
			list = true;
			break;
		default:
			if (!blk_option(opt, optarg))
				print_usage();
		}
	}
	static_assert(ARRAY_SIZE(cases) <= ARRAY_SIZE(sel));
	if (port)
		target.port = port;
	if (list) {
		for (i = 0; i < tab_len; i++)
			if (!tab[i].manual)
				printf("%s\n", tab[i].name);
		return 0;
	}
	if (optind == argc) {
		for (i = 0; i < tab_len && n < ARRAY_SIZE(sel); i++)
			if (!tab[i].manual)
				sel[n++] = &tab[i];
	}
	for (; optind < argc; optind++) {
		const struct peer_case *tc = find_case(argv[optind]);

		if (!tc || n == ARRAY_SIZE(sel)) {
			fprintf(stderr, "rift-peer: no case '%s' (see -l)\n", argv[optind]);
			return 2;
		}
		sel[n++] = tc;
	}

	reverse.src = target.dst;
	reverse.dst = target.src;
	reverse.port = target.port;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, overrun);
	run_id_init();
	printf("KTAP version 1\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		cur_case = sel[i]->name;
		/* Every wait is bounded; this catches a bug in the peer itself. */
		alarm(8 * peer_timeout_ms / 1000 + 30);
		ok = sel[i]->run(sel[i]);
		alarm(0);
		printf("%sok %zu %s\n", ok ? "" : "not ", i + 1, sel[i]->name);
		if (ok)
			pass++;
		else
			fail++;
	}
	cur_case = "rift-peer";
	diag("%d passed, %d failed", pass, fail);
	return fail ? 1 : 0;
}

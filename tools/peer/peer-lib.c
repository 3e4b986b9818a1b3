// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer's protocol helpers: connecting a session's paths, the INFO
 * exchange, immediates and IO requests against rift-test's store, each
 * checking the server's answer and saying why when it is not the one
 * expected.  The cases of rift-peer (peer-con.c, peer-io.c, peer-blk.c)
 * and of rift-evil are built from these.
 */

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "peer-lib.h"

static_assert(PEER_INFO_RX_LEN == RIFT_INFO_MAX_LEN);

struct peer_target target = {
	.src	= "198.18.0.2",
	.dst	= "198.18.0.1",
	.port	= 7674,
};

/* The same link the other way round: a second path of a session. */
struct peer_target reverse;

const char *cur_case = "rift-peer";
static u8 run_id[8];
static u32 uuid_seq;
static u32 name_seq;

void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", cur_case);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Check @cond; if false, say why.  Evaluates to @cond, so checks chain. */
#define EXPECT(cond, fmt, ...) \
	((cond) ? true : (diag("FAIL: " fmt, ##__VA_ARGS__), false))

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void put_le16(u8 *p, u16 v)
{
	__le16 w = cpu_to_le16(v);

	memcpy(p, &w, sizeof(w));
}

void put_le32(u8 *p, u32 v)
{
	__le32 w = cpu_to_le32(v);

	memcpy(p, &w, sizeof(w));
}

void put_le64(u8 *p, u64 v)
{
	__le64 w = cpu_to_le64(v);

	memcpy(p, &w, sizeof(w));
}

const char *outcome_str(enum peer_outcome o)
{
	static const char * const s[] = {
		[PEER_ESTABLISHED]	= "accepted",
		[PEER_REJECTED]		= "rejected",
		[PEER_DISCONNECTED]	= "disconnected",
		[PEER_TIMEOUT]		= "timed out",
		[PEER_ERROR]		= "failed",
	};

	return s[o];
}

/* Every session and path of a run gets a fresh UUID, never all-zero. */
static void uuid_new(u8 *uuid)
{
	u32 n = ++uuid_seq;

	memcpy(uuid, run_id, sizeof(run_id));
	memset(uuid + 8, 0, 4);
	memcpy(uuid + 12, &n, sizeof(n));
}

static void con_req_init(struct rift_con_req *req, u16 con_cnt, u32 gen)
{
	memset(req, 0, sizeof(*req));
	req->min_version = RIFT_PROTO_VERSION_MIN;
	req->max_version = RIFT_PROTO_VERSION_MAX;
	req->con_cnt = con_cnt;
	req->queue_depth = PEER_QD;
	req->reconnect_gen = gen;
	uuid_new(req->sess_uuid);
	uuid_new(req->path_uuid);
}

/* A new session with one path of @con_cnt connections, none connected. */
void path_init(struct path *p, u16 con_cnt, u32 gen)
{
	memset(p, 0, sizeof(*p));
	p->tgt = &target;
	con_req_init(&p->req, con_cnt, gen);
	snprintf(p->name, sizeof(p->name), "rift-peer-%d-%u", (int)getpid(),
		 ++name_seq);
}

/* Another path of @sess's session, with the same name. */
void path_init_sibling(struct path *p, const struct path *sess, u32 gen)
{
	path_init(p, 1, gen);
	memcpy(p->req.sess_uuid, sess->req.sess_uuid, RIFT_UUID_LEN);
	memcpy(p->name, sess->name, sizeof(p->name));
}

void path_down(struct path *p)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(p->con); i++) {
		peer_conn_free(p->con[i]);
		p->con[i] = NULL;
	}
}

/* ------------------------------------------------------------------ */
/* Connection establishment                                            */
/* ------------------------------------------------------------------ */

static struct peer_conn *dial(const struct peer_target *t, const void *priv,
			      size_t len, enum peer_outcome *o)
{
	struct peer_conn *c;
	char err[160];

	*o = PEER_ERROR;
	c = peer_conn_new(t, err, sizeof(err));
	if (!c) {
		diag("FAIL: no route %s -> %s:%u: %s", t->src, t->dst, t->port,
		     err);
		return NULL;
	}
	*o = peer_conn_connect(c, priv, len);
	return c;
}

/*
 * One CONNECT_REQUEST for connection 0 of @p, whatever the answer: the
 * outcome, the connection in *@c (NULL if none was made; the caller frees
 * it) and, for a refusal, the reject reason in *@reason (0 if none).
 */
enum peer_outcome path_try(struct path *p, struct peer_conn **c, u16 *reason)
{
	u8 buf[RIFT_CON_PRIV_MAX];
	struct rift_reject rej;
	enum peer_outcome o = PEER_ERROR;
	const void *d;
	size_t n;
	int len;

	*c = NULL;
	*reason = 0;
	len = con_req_encode(p, 0, buf);
	if (len < 0)
		return PEER_ERROR;
	*c = dial(p->tgt, buf, len, &o);
	if (*c && o == PEER_REJECTED) {
		d = peer_conn_priv(*c, &n);
		if (!rift_proto_reject_decode(d, n, &rej))
			*reason = rej.reason;
	}
	return o;
}

/* What the last connection attempt on @c got, for a diagnostic. */
static const char *why(const struct peer_conn *c)
{
	static char s[192];
	struct rift_reject rej;
	const void *d;
	size_t n;

	d = peer_conn_priv(c, &n);
	if (!rift_proto_reject_decode(d, n, &rej))
		snprintf(s, sizeof(s), "REJECT %u (%s)", rej.reason,
			 rift_proto_reject_str(rej.reason));
	else
		snprintf(s, sizeof(s), "%s, %s", peer_conn_event(c),
			 peer_conn_error(c));
	return s;
}

/* Connect with private data @priv; the server must refuse with @reason. */
bool expect_refusal(const void *priv, size_t len, u16 reason,
		    struct rift_reject *rej)
{
	enum peer_outcome o;
	struct peer_conn *c;
	const void *d;
	size_t n;
	bool ok;

	memset(rej, 0, sizeof(*rej));
	c = dial(&target, priv, len, &o);
	if (!c)
		return false;
	d = peer_conn_priv(c, &n);
	ok = EXPECT(o == PEER_REJECTED, "connection %s (%s), expected a refusal",
		    outcome_str(o), why(c)) &&
	     EXPECT(!rift_proto_reject_decode(d, n, rej),
		    "the refusal carries no Rift REJECT (%zu bytes)", n) &&
	     EXPECT(rej->reason == reason, "refused with %u (%s), expected %u (%s)",
		    rej->reason, rift_proto_reject_str(rej->reason), reason,
		    rift_proto_reject_str(reason));
	if (ok)
		diag("refused: %s", rift_proto_reject_str(rej->reason));
	peer_conn_free(c);
	return ok;
}

int con_req_encode(const struct path *p, u16 idx, u8 *buf)
{
	struct rift_con_req req = p->req;
	int len;

	req.con_idx = idx;
	len = rift_proto_con_req_encode(&req, buf, RIFT_CON_PRIV_MAX);
	EXPECT(len > 0, "cannot encode CON_REQ: %d", len);
	return len;
}

/* Connect connection @idx of @p; the server must accept it with a CON_RSP. */
bool path_connect(struct path *p, u16 idx)
{
	struct rift_con_req req = p->req;
	u8 buf[RIFT_CON_PRIV_MAX];
	struct rift_con_rsp rsp;
	struct peer_conn *c;
	enum peer_outcome o;
	const void *d;
	size_t n;
	int len, err;

	req.con_idx = idx;
	len = con_req_encode(p, idx, buf);
	if (len < 0)
		return false;
	c = dial(p->tgt, buf, len, &o);
	p->con[idx] = c;
	if (!c)
		return false;
	if (!EXPECT(o == PEER_ESTABLISHED, "connection %u %s: %s", idx,
		    outcome_str(o), why(c)))
		return false;
	d = peer_conn_priv(c, &n);
	err = rift_proto_con_rsp_decode(d, n, &req, &rsp);
	if (!EXPECT(!err, "connection %u: CON_RSP does not decode (%zu bytes): %d",
		    idx, n, err))
		return false;
	if (!p->rsp.version) {
		p->rsp = rsp;
		return true;
	}
	return EXPECT(rsp.version == p->rsp.version && rsp.flags == p->rsp.flags &&
		      rsp.queue_depth == p->rsp.queue_depth &&
		      rsp.max_io_size == p->rsp.max_io_size &&
		      rsp.chunk_size == p->rsp.chunk_size,
		      "connection %u: CON_RSP differs from connection 0's", idx);
}

/* ------------------------------------------------------------------ */
/* INFO exchange                                                       */
/* ------------------------------------------------------------------ */

int info_req_encode(const char *name, u16 version, u8 *buf, size_t cap)
{
	return info_req_encode_as(name, PEER_HOST, NULL, version, buf, cap);
}

/*
 * INFO_REQ from host @host; with @proof, a nonce and that (made-up) proof
 * too: the peer has no secret, so any proof it sends is a wrong one.
 */
int info_req_encode_as(const char *name, const char *host, const u8 *proof,
		       u16 version, u8 *buf, size_t cap)
{
	return info_req_encode_feat(name, host, proof, 0, version, buf, cap);
}

/* As info_req_encode_as(), offering the features @feat. */
int info_req_encode_feat(const char *name, const char *host, const u8 *proof,
			 u64 feat, u16 version, u8 *buf, size_t cap)
{
	struct rift_info req = {
		.type		= RIFT_INFO_REQ,
		.version	= version,
		.feat_offered	= feat,
	};
	int len;

	snprintf(req.sess_name, sizeof(req.sess_name), "%s", name);
	snprintf(req.host_name, sizeof(req.host_name), "%s", host);
	if (proof) {
		memset(req.auth_nonce, 0x6e, sizeof(req.auth_nonce));
		memcpy(req.auth_proof, proof, sizeof(req.auth_proof));
		req.present = BIT(RIFT_TLV_AUTH_NONCE) | BIT(RIFT_TLV_AUTH_PROOF);
	}
	len = rift_info_encode(&req, buf, cap);
	EXPECT(len > 0, "cannot encode INFO_REQ: %d", len);
	return len;
}

bool send_msg(struct peer_conn *c, const void *msg, size_t len)
{
	int err = peer_send(c, msg, len, NULL);

	return EXPECT(!err, "cannot send %zu bytes: %s", len, peer_conn_error(c));
}

/* Receive the INFO_RSP on @c and parse it into @p->info. */
bool info_recv(struct path *p, struct peer_conn *c)
{
	struct peer_recv r;
	int err;

	err = peer_recv(c, peer_timeout_ms, &r);
	if (!EXPECT(!err, "no INFO_RSP: %s",
		    err == -ETIMEDOUT ? "timed out" : peer_conn_error(c)) ||
	    !EXPECT(!r.has_imm, "got immediate 0x%08x instead of an INFO_RSP",
		    be32_to_cpu((__force __be32)r.imm)))
		return false;
	err = rift_info_parse(r.data, r.len, p->rsp.version, &p->info, p->chunks,
			      ARRAY_SIZE(p->chunks));
	return EXPECT(!err, "INFO_RSP of %u bytes does not parse: %d", r.len, err) &&
	       EXPECT(p->info.type == RIFT_INFO_RSP, "INFO type %u, expected INFO_RSP",
		      p->info.type);
}

/* A well-formed INFO_REQ; the server must complete the path. */
bool path_info(struct path *p)
{
	u8 buf[512];
	int len, err;

	len = info_req_encode_feat(p->name, PEER_HOST, NULL, p->feat, p->rsp.version, buf,
				   sizeof(buf));
	if (len < 0 || !send_msg(p->con[0], buf, len) || !info_recv(p, p->con[0]))
		return false;
	if (!EXPECT(!p->info.status, "session %s refused: INFO_RSP status %u (%s)",
		    p->name, p->info.status, strerror(p->info.status)))
		return false;
	err = rift_info_rsp_check(&p->info, p->feat, &p->rsp);
	return EXPECT(!err, "INFO_RSP disagrees with CON_RSP or the request: %d", err);
}

/*
 * A session with one path of one connection offering the features @feat,
 * ready for IO; what the server accepted is in @p->info.feat_accepted.
 */
bool path_up_feat(struct path *p, u64 feat)
{
	path_init(p, 1, 1);
	p->feat = feat;
	return path_connect(p, 0) && path_info(p);
}

/* A session with one path of one connection, ready for IO. */
bool path_up(struct path *p)
{
	return path_up_feat(p, 0);
}

/* The server must close @c on its own within the time limit. */
bool expect_closed_within(struct peer_conn *c, int ms)
{
	long long t0 = now_ms();
	enum peer_outcome o = peer_wait_closed(c, ms);

	if (o == PEER_DISCONNECTED) {
		diag("closed by the server after %lld ms", now_ms() - t0);
		return true;
	}
	return EXPECT(false, "not closed by the server within %d ms: %s", ms,
		      o == PEER_TIMEOUT ? "still connected" : peer_conn_event(c));
}

bool expect_closed(struct peer_conn *c)
{
	return expect_closed_within(c, peer_timeout_ms);
}

#define PATH_ERROR_EVENT	"/sys/kernel/tracing/events/rift/rift_path_error/enable"
#define TRACE_FILE		"/sys/kernel/tracing/trace"

/*
 * Turn on rift-core's rift_path_error tracepoint, which records why the
 * server failed a path: its log line is rate-limited and cannot tell one
 * case's reason reliably after a burst of others.  Idempotent.
 */
bool srv_reasons_on(void)
{
	FILE *f = fopen(PATH_ERROR_EVENT, "w");
	bool ok = f && fputs("1", f) >= 0;

	if (f && fclose(f))
		ok = false;
	return EXPECT(ok, "cannot enable %s: %s", PATH_ERROR_EVENT, strerror(errno));
}

/* Whether the trace holds a server path error of session @sess naming @reason. */
static bool srv_reason_seen(const char *sess, const char *reason)
{
	char line[1024], who[160];
	bool seen = false;
	FILE *f = fopen(TRACE_FILE, "r");

	if (!f)
		return false;
	snprintf(who, sizeof(who), " server %s/", sess);
	while (!seen && fgets(line, sizeof(line), f))
		seen = strstr(line, "rift_path_error:") && strstr(line, who) &&
		       strstr(line, reason);
	fclose(f);
	return seen;
}

/*
 * Whether the trace holds @reason for @p's session: under its name, or,
 * for a path failed before its INFO_REQ named the session, under its
 * UUID as the server prints it (%pU: the 16 bytes in order, 8-4-4-4-12).
 */
static bool srv_path_reason_seen(const struct path *p, const char *reason)
{
	const u8 *u = p->req.sess_uuid;
	char label[40], one[256];
	const char *r, *bar;
	size_t n;

	snprintf(label, sizeof(label),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	/* Alternatives are separated by '|', which no reason contains. */
	for (r = reason; r; r = bar ? bar + 1 : NULL) {
		bar = strchr(r, '|');
		n = bar ? (size_t)(bar - r) : strlen(r);
		if (n >= sizeof(one))
			n = sizeof(one) - 1;
		memcpy(one, r, n);
		one[n] = 0;
		if (srv_reason_seen(p->name, one) || srv_reason_seen(label, one))
			return true;
	}
	return false;
}

/*
 * The server must close @p's connection @c, and for @reason (a part of
 * its last_error; "a|b" takes either): a path closed for another cause
 * (the device refusing something later, heartbeats) does not pass.
 * srv_reasons_on() first.
 */
bool expect_closed_for(const struct path *p, struct peer_conn *c, const char *reason)
{
	long long until;

	if (!expect_closed(c))
		return false;
	/* The close reaches us after the server's fail, which traced first. */
	until = now_ms() + 2000;
	while (!srv_path_reason_seen(p, reason) && now_ms() < until)
		usleep(20000);
	return EXPECT(srv_path_reason_seen(p, reason),
		      "closed, but the server's reason is not \"%s\"", reason);
}

/* Send @msg as INFO_REQ: INFO_RSP must refuse it with @status, then close. */
bool expect_info_refusal(struct path *p, const void *msg, size_t len,
			 int status)
{
	if (!send_msg(p->con[0], msg, len) || !info_recv(p, p->con[0]) ||
	    !EXPECT(p->info.status == status, "INFO_RSP status %u (%s), expected %d (%s)",
		    p->info.status, strerror(p->info.status), status, strerror(status)))
		return false;
	diag("INFO_RSP status %u (%s)", p->info.status, strerror(p->info.status));
	return expect_closed(p->con[0]);
}

/* ------------------------------------------------------------------ */
/* Immediates and IO                                                   */
/* ------------------------------------------------------------------ */

/* Any immediate, including ones the codec refuses to build. */
__be32 imm_raw(u32 type, u32 chunk, u32 arg)
{
	return cpu_to_be32(type << RIFT_IMM_TYPE_SHIFT | chunk << RIFT_IMM_CHUNK_SHIFT |
			   arg << RIFT_IMM_ARG_SHIFT);
}

bool send_imm(struct peer_conn *c, __be32 imm)
{
	u32 raw = (__force u32)imm;
	int err = peer_send(c, NULL, 0, &raw);

	return EXPECT(!err, "cannot send immediate 0x%08x: %s", be32_to_cpu(imm),
		      peer_conn_error(c));
}

/*
 * Receive the next immediate on @c, answering the server's heartbeats.  A
 * response's arg bits 15..12 must be 0 unless the server accepted RSP_GEN
 * (rift_proto_rsp_gen_check()): every case checks that the server leaves them
 * clear for a client that did not ask for the echo.
 */
bool recv_imm(const struct path *p, struct peer_conn *c, struct rift_imm *imm)
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
		err = rift_imm_decode(v, p->info.queue_depth, imm);
		if (!EXPECT(!err, "malformed immediate 0x%08x from the server",
			    be32_to_cpu(v)))
			return false;
		if ((imm->type == RIFT_IMM_RSP || imm->type == RIFT_IMM_RSP_RKEY) &&
		    !EXPECT(!rift_proto_rsp_gen_check(imm, p->info.feat_accepted),
			    "response 0x%08x sets bits 15..12 without RSP_GEN", be32_to_cpu(v)))
			return false;
		if (imm->type != RIFT_IMM_HB)
			return true;
		ack.seq = imm->seq;
		if (rift_imm_encode(&ack, &v) || !send_imm(c, v))
			return false;
	}
}

bool hb_roundtrip(const struct path *p, struct peer_conn *c, u16 seq)
{
	struct rift_imm hb = { .type = RIFT_IMM_HB, .seq = seq };
	struct rift_imm ack;
	__be32 v;

	if (!EXPECT(!rift_imm_encode(&hb, &v), "cannot encode HB") || !send_imm(c, v) ||
	    !recv_imm(p, c, &ack))
		return false;
	return EXPECT(ack.type == RIFT_IMM_HB_ACK && ack.seq == seq,
		      "HB %u answered with type %u seq %u", seq, ack.type, ack.seq);
}

/* Lay out a request with the codec, as a well-behaved client would. */
bool io_build(const struct path *p, struct io *io, u8 dir, u16 chunk,
	      const void *data, u32 data_len, const void *usr, u16 usr_len,
	      const struct rift_rbuf *segs, u16 nr_segs)
{
	const struct rift_io_limits lim = {
		.chunk_size	= p->info.chunk_size,
		.max_io_size	= p->info.max_io_size,
	};
	int err;

	memset(io, 0, sizeof(*io));
	io->req.dir = dir;
	io->req.chunk = chunk;
	io->req.usr_len = usr_len;
	io->req.nr_segs = nr_segs;
	io->req.data_len = data_len;
	err = rift_proto_io_layout(&lim, &io->req);
	if (!EXPECT(!err, "request does not fit the chunk: %d", err) ||
	    !EXPECT(io->req.desc_off + io->req.desc_len <= sizeof(io->img),
		    "request too large for this peer"))
		return false;
	err = rift_proto_io_desc_encode(&lim, &io->req, segs, io->img + io->req.desc_off,
					sizeof(io->img) - io->req.desc_off);
	if (!EXPECT(err > 0, "cannot encode the descriptor: %d", err))
		return false;
	if (dir == RIFT_IO_WRITE && data_len)
		memcpy(io->img + io->req.data_off, data, data_len);
	if (usr_len)
		memcpy(io->img + io->req.usr_off, usr, usr_len);
	io->len = io->req.desc_off + io->req.desc_len;
	io->imm.type = dir == RIFT_IO_WRITE ? RIFT_IMM_WRITE : RIFT_IMM_READ;
	io->imm.chunk = chunk;
	io->imm.desc_off = io->req.desc_off;
	return true;
}

/* Write @io into the server chunk its immediate names, announced by @imm. */
bool io_post_raw(const struct path *p, struct peer_conn *c, const struct io *io,
		 __be32 imm)
{
	const struct rift_rbuf *chunk = &p->chunks[io->imm.chunk];
	int err;

	err = peer_write_imm(c, io->img, io->len, chunk->addr, chunk->rkey,
			     (__force u32)imm);
	return EXPECT(!err, "cannot post the request: %s", peer_conn_error(c));
}

bool io_post(const struct path *p, struct peer_conn *c, const struct io *io)
{
	__be32 v;
	int err = rift_imm_encode(&io->imm, &v);

	return EXPECT(!err, "cannot encode the immediate: %d", err) &&
	       io_post_raw(p, c, io, v);
}

/*
 * The SEND WITH_INV a well-behaved client ends the write @io with under
 * REMOTE_INV: its immediate as the payload, its chunk's current key.  A
 * case may break *@inv before io_post_inv_raw() sends it.
 */
bool io_inv_init(const struct path *p, const struct io *io, struct io_inv *inv)
{
	int len;

	memset(inv->msg, 0, sizeof(inv->msg));
	len = rift_proto_write_inv_encode(&io->imm, inv->msg, sizeof(inv->msg));
	inv->len = len;
	inv->rkey = p->chunks[io->imm.chunk].rkey;
	return EXPECT(len == sizeof(struct rift_wire_write_inv),
		      "cannot encode the SEND WITH_INV payload: %d", len);
}

/*
 * Post the write @io the REMOTE_INV way: its payload (at the chunk's
 * start) and then its ULP header and descriptor as plain RDMA WRITEs
 * under the chunk's key, then @inv as a SEND WITH_INV.  One QP executes
 * them in that order, so the SEND lands last, as a kernel client's does.
 */
bool io_post_inv_raw(const struct path *p, struct peer_conn *c, const struct io *io,
		     const struct io_inv *inv)
{
	const struct rift_rbuf *chunk = &p->chunks[io->imm.chunk];
	u32 hdr = io->req.usr_off;
	int err = 0;

	if (hdr)
		err = peer_write(c, io->img, hdr, chunk->addr, chunk->rkey);
	if (!err)
		err = peer_write(c, io->img + hdr, io->len - hdr, chunk->addr + hdr,
				 chunk->rkey);
	if (!err)
		err = peer_send_inv(c, inv->msg, inv->len, inv->rkey);
	return EXPECT(!err, "cannot post the request: %s", peer_conn_error(c));
}

/* Post the write @io the REMOTE_INV way, as a well-behaved client would. */
bool io_post_inv(const struct path *p, struct peer_conn *c, const struct io *io)
{
	struct io_inv inv;

	return io_inv_init(p, io, &inv) && io_post_inv_raw(p, c, io, &inv);
}

/*
 * Post a write of @len bytes at @off of rift-test's store through @chunk,
 * its descriptor carrying generation @gen; the answer is left to the case.
 */
bool test_write_post(const struct path *p, struct peer_conn *c, u16 chunk, u16 gen,
		     u64 off, const void *data, u32 len)
{
	const struct rift_io_limits lim = {
		.chunk_size	= p->info.chunk_size,
		.max_io_size	= p->info.max_io_size,
	};
	struct test_hdr h;
	struct io io;

	test_hdr_init(&h, off, len);
	if (!io_build(p, &io, RIFT_IO_WRITE, chunk, data, len, &h, sizeof(h), NULL, 0))
		return false;
	io.req.gen = gen;
	/* Encoded again: io_build() leaves the generation 0. */
	return EXPECT(rift_proto_io_desc_encode(&lim, &io.req, NULL, io.img + io.req.desc_off,
						sizeof(io.img) - io.req.desc_off) > 0,
		      "cannot encode the descriptor") &&
	       io_post(p, c, &io);
}

/* Write @v to /sys/module/@mod/parameters/@name (test hooks). */
bool set_param(const char *mod, const char *name, unsigned long long v)
{
	char path[160];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, name);
	f = fopen(path, "w");
	if (!EXPECT(f, "cannot open %s: %s", path, strerror(errno)))
		return false;
	err = fprintf(f, "%llu\n", v) < 0;
	err |= fclose(f) != 0;
	return EXPECT(!err, "cannot write %llu to %s", v, path);
}

/*
 * The value of /sys/module/@mod/parameters/@name, so that a case that
 * changes it can put back what it found (a selftest may have set it, and
 * the next case expects the module's default); @dflt if it cannot be read.
 */
unsigned long long get_param(const char *mod, const char *name, unsigned long long dflt)
{
	unsigned long long v;
	char path[160];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, name);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%llu", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* A bool module parameter (Y or N); @dflt if it cannot be read. */
bool get_bool_param(const char *mod, const char *name, bool dflt)
{
	char path[160];
	int c;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, name);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	c = fgetc(f);
	fclose(f);
	if (c == 'Y' || c == '1')
		return true;
	if (c == 'N' || c == '0')
		return false;
	return dflt;
}

/*
 * Server statistic @stat of @p's path: the session has one path, so the
 * sum over its paths directory is that path's.  -1 if none is readable.
 */
long long srv_path_stat(const struct path *p, const char *stat)
{
	char pat[320];
	long long v, sum = 0;
	glob_t g;
	size_t i;
	FILE *f;

	snprintf(pat, sizeof(pat), "/sys/class/rift-server/%s/paths/*/stats/%s", p->name,
		 stat);
	if (glob(pat, 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		f = fopen(g.gl_pathv[i], "r");
		if (!f || fscanf(f, "%lld", &v) != 1)
			sum = -1;
		if (f)
			fclose(f);
		if (sum < 0)
			break;
		sum += v;
	}
	globfree(&g);
	return sum;
}

/* The response to the request in @chunk; its errno goes to @err. */
bool io_wait(const struct path *p, struct peer_conn *c, u16 chunk, int *err)
{
	struct rift_imm rsp;

	if (!recv_imm(p, c, &rsp) ||
	    !EXPECT(rsp.type == RIFT_IMM_RSP && rsp.chunk == chunk,
		    "got type %u for chunk %u, expected RSP for chunk %u",
		    rsp.type, rsp.chunk, chunk))
		return false;
	*err = rsp.err;
	return true;
}

void test_hdr_init(struct test_hdr *h, u64 off, u32 len)
{
	h->magic = cpu_to_le32(TEST_MAGIC);
	h->len = cpu_to_le32(len);
	h->offset = cpu_to_le64(off);
}

/* Write @len bytes at @off of rift-test's store through @chunk. */
bool test_write(const struct path *p, struct peer_conn *c, u16 chunk, u64 off,
		const void *data, u32 len, int *err)
{
	struct test_hdr h;
	struct io io;

	test_hdr_init(&h, off, len);
	return io_build(p, &io, RIFT_IO_WRITE, chunk, data, len, &h, sizeof(h), NULL, 0) &&
	       io_post(p, c, &io) && io_wait(p, c, chunk, err);
}

/*
 * Read @len bytes at @off of the store through @chunk into the start of
 * the read region, split over @nr_segs segments.
 */
/*
 * Post a read of @len bytes at @off of rift-test's store through @chunk
 * into @c's read region (*@out), in @nr_segs segments; the answer is left
 * to the caller.
 */
bool test_read_post(const struct path *p, struct peer_conn *c, u16 chunk, u64 off,
		    u32 len, u16 nr_segs, const u8 **out)
{
	struct rift_rbuf segs[4];
	struct test_hdr h;
	struct io io;
	u32 rkey, i, at = 0;
	u64 addr;
	u8 *region;

	if (!EXPECT(nr_segs && nr_segs <= ARRAY_SIZE(segs) && len <= PEER_READ_REGION_LEN,
		    "bad read request"))
		return false;
	region = peer_read_region(c, &addr, &rkey);
	memset(region, 0, len);
	for (i = 0; i < nr_segs; i++) {
		segs[i].addr = addr + at;
		segs[i].len = i + 1 < nr_segs ? len / nr_segs : len - at;
		segs[i].rkey = rkey;
		at += segs[i].len;
	}
	*out = region;
	test_hdr_init(&h, off, len);
	return io_build(p, &io, RIFT_IO_READ, chunk, NULL, len, &h, sizeof(h), segs,
			nr_segs) &&
	       io_post(p, c, &io);
}

bool test_read(const struct path *p, struct peer_conn *c, u16 chunk, u64 off,
	       u32 len, u16 nr_segs, int *err, const u8 **out)
{
	return test_read_post(p, c, chunk, off, len, nr_segs, out) &&
	       io_wait(p, c, chunk, err);
}

void pattern(u8 *buf, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)(seed * 131 + i * 7 + (i >> 8));
}

bool expect_errno(int got, int want, const char *what)
{
	return EXPECT(got == want, "%s answered %d (%s), expected %d (%s)", what,
		      got, strerror(-got), want, strerror(-want));
}

void run_id_init(void)
{
	FILE *f = fopen("/dev/urandom", "r");
	u64 v;

	if (!f || fread(run_id, sizeof(run_id), 1, f) != 1) {
		v = (u64)time(NULL) << 20 ^ (u64)getpid();
		memcpy(run_id, &v, sizeof(v));
	}
	if (f)
		fclose(f);
}

/*
 * Lines of the kernel log that contain @needle, or -1 if the log cannot be
 * read.  /dev/kmsg, opened afresh, starts at the oldest record it keeps.
 */
long kmsg_count(const char *needle)
{
	char rec[2048];
	long n = 0;
	ssize_t len;
	int fd;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	for (;;) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten while read: skip it */
		if (len <= 0)
			break;
		rec[len] = '\0';
		if (strstr(rec, needle))
			n++;
	}
	close(fd);
	return n;
}

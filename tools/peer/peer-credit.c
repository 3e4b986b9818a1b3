// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer's cases of memory credits: a path's grant growing on request,
 * requests and releases the server must refuse, revokes of an idle path,
 * a chunk reclaimed only after its answer, a release racing a request,
 * and a budget that runs out.  The driver and its table are in
 * rift-peer.c.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rift-peer.h"

/* The initial grant the credit cases ask the server for. */
#define CREDIT_FLOOR		2
/* A store offset of their own. */
#define CREDIT_OFF		0x180000ULL

/*
 * A path offering memory credits while the server's credit_floor is
 * @floor (0: the feature is not accepted) and its credit_idle_ms
 * @idle_ms; both are read at INFO_REQ, so they are put back as they were
 * (the module's defaults, unless the selftest set them: credit_floor 2,
 * credit_idle_ms 1000) as soon as the path is up.  rift_server's own
 * default is memory credits on: every other case, and the normal session
 * hostile_peer.sh opens after the peer, runs with what it found.
 */
/* Long enough that no revoke comes in the middle of a case. */
#define CREDIT_IDLE_NEVER_MS	600000

/* Wait for the server path's stat @name to reach @min; its value. */
static long long credit_stat_wait(struct path *p, const char *name, long long min)
{
	long long t0 = now_ms();

	while (srv_path_stat(p, name) < min && now_ms() - t0 < peer_timeout_ms)
		usleep(10000);
	return srv_path_stat(p, name);
}

/* As credit_path_up_idle(), with @cons connections. */
static bool credit_path_up_cons(struct path *p, u16 cons, unsigned int floor, u64 feat,
				unsigned int idle_ms)
{
	unsigned long long floor0 = get_param("rift_server", "credit_floor", 2);
	unsigned long long idle0 = get_param("rift_server", "credit_idle_ms", 1000);
	bool ok;
	u16 i;

	path_init(p, cons, 1);
	p->feat = feat;
	ok = set_param("rift_server", "credit_floor", floor) &&
	     set_param("rift_server", "credit_idle_ms", idle_ms);
	for (i = 0; ok && i < cons; i++)
		ok = path_connect(p, i);
	ok = ok && path_info(p);
	set_param("rift_server", "credit_floor", floor0);
	set_param("rift_server", "credit_idle_ms", idle0);
	if (!ok)
		return false;
	diag("INFO_RSP: %u of %u chunks granted, features 0x%llx", p->info.nr_chunks,
	     p->info.queue_depth, (unsigned long long)p->info.feat_accepted);
	if (!floor || !(feat & RIFT_FEAT_CREDITS))
		return EXPECT(!(p->info.feat_accepted & RIFT_FEAT_CREDITS),
			      "CREDITS accepted without credit_floor or the offer") &&
		       EXPECT(p->info.nr_chunks == p->info.queue_depth,
			      "a table of %u chunks without credits", p->info.nr_chunks);
	return EXPECT(p->info.feat_accepted & RIFT_FEAT_CREDITS, "CREDITS not accepted") &&
	       EXPECT(p->info.nr_chunks == floor, "initial grant %u, expected %u",
		      p->info.nr_chunks, floor);
}

static bool credit_path_up_idle(struct path *p, unsigned int floor, u64 feat,
				unsigned int idle_ms)
{
	return credit_path_up_cons(p, 1, floor, feat, idle_ms);
}

/* A path of one connection, under a credit_floor of @floor, offering @feat. */
bool credit_path_up(struct path *p, unsigned int floor, u64 feat)
{
	return credit_path_up_idle(p, floor, feat, CREDIT_IDLE_NEVER_MS);
}

static bool credit_req_send(struct path *p, u16 want)
{
	struct rift_imm req = { .type = RIFT_IMM_CREDIT_REQ, .want = want };
	__be32 v;

	return EXPECT(!rift_imm_encode(&req, &v), "cannot encode CREDIT_REQ") &&
	       send_imm(p->con[0], v);
}

/* The next CREDIT on connection 0 (heartbeats answered), decoded. */
static bool credit_recv(struct path *p, struct rift_credit *c)
{
	struct rift_imm imm, ack = { .type = RIFT_IMM_HB_ACK };
	struct peer_recv r;
	__be32 v;
	int err;

	for (;;) {
		err = peer_recv(p->con[0], peer_timeout_ms, &r);
		if (!EXPECT(!err, "no CREDIT: %s",
			    err == -ETIMEDOUT ? "timed out" : peer_conn_error(p->con[0])) ||
		    !EXPECT(r.has_imm, "a %u-byte message without immediate data", r.len))
			return false;
		v = (__force __be32)r.imm;
		if (!EXPECT(!rift_imm_decode(v, p->info.queue_depth, &imm),
			    "malformed immediate 0x%08x", be32_to_cpu(v)))
			return false;
		if (imm.type == RIFT_IMM_HB) {
			ack.seq = imm.seq;
			if (rift_imm_encode(&ack, &v) || !send_imm(p->con[0], v))
				return false;
			continue;
		}
		if (!EXPECT(imm.type == RIFT_IMM_CREDIT, "type %u instead of CREDIT", imm.type))
			return false;
		err = rift_proto_credit_decode(r.data, r.len, p->info.queue_depth, c);
		return EXPECT(!err, "CREDIT of %u bytes does not decode: %d", r.len, err);
	}
}

/*
 * Ask for @want chunks in total and take the whole answer: every message
 * ANSWER, MORE on all but the last, at most four, grants of chunks not
 * held, granted counting up; the grants go into @p's chunk table.
 */
static bool credit_take_answer(struct path *p, u16 want, u16 *granted)
{
	struct rift_credit c;
	unsigned int msgs = 0, i;
	u16 id;

	if (!credit_req_send(p, want))
		return false;
	do {
		if (!credit_recv(p, &c) ||
		    !EXPECT(c.flags & RIFT_CREDIT_F_ANSWER, "CREDIT flags 0x%x, not an answer",
			    c.flags) ||
		    !EXPECT(++msgs <= RIFT_CREDIT_MAX_MSGS, "an answer of %u messages", msgs))
			return false;
		for (i = 0; i < c.nr_grant; i++) {
			id = c.grant[i].chunk;
			if (!EXPECT(id >= *granted, "chunk %u granted again", id))
				return false;
			p->chunks[id].addr = c.grant[i].addr;
			p->chunks[id].len = p->info.chunk_size;
			p->chunks[id].rkey = c.grant[i].rkey;
		}
		*granted += c.nr_grant;
		if (!EXPECT(c.granted == *granted, "CREDIT says %u granted, counted %u",
			    c.granted, *granted))
			return false;
	} while (c.flags & RIFT_CREDIT_F_MORE);
	diag("asked for %u: %u granted in %u message(s)", want, *granted, msgs);
	return true;
}

/*
 * The grant grows on request (12 chunks per answer at most, here up to
 * the queue depth), a granted chunk carries IO, a chunk given back
 * (CREDIT_REL) is counted, and a request naming it afterwards closes the
 * path ("request names a chunk not granted").
 */
bool case_credit_grow(const struct peer_case *tc)
{
	u16 last, granted = CREDIT_FLOOR;
	u8 data[4096];
	const u8 *out;
	struct path p;
	int err = 0;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 91);
	ok = credit_path_up(&p, CREDIT_FLOOR, RIFT_FEAT_CREDITS) &&
	     credit_take_answer(&p, p.info.queue_depth, &granted) &&
	     EXPECT(granted == p.info.queue_depth, "%u granted of %u asked", granted,
		    p.info.queue_depth);
	last = p.info.queue_depth - 1;
	ok = ok && test_write(&p, p.con[0], last, CREDIT_OFF, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write through the last chunk granted") &&
	     test_read(&p, p.con[0], last, CREDIT_OFF, sizeof(data), 1, &err, &out) &&
	     expect_errno(err, 0, "read through it") &&
	     EXPECT(!memcmp(out, data, sizeof(data)), "read back differs");
	/*
	 * Asking for what is held gets an empty answer.  Neither answer
	 * was short: the budget (pool_mb 0, so max_pinned_mb) has room
	 * for the whole queue depth, and an empty answer to a request
	 * that is already met cuts nothing.
	 */
	ok = ok && credit_take_answer(&p, p.info.queue_depth, &granted) &&
	     EXPECT(srv_path_stat(&p, "credit_short") == 0, "credit_short is %lld with room",
		    srv_path_stat(&p, "credit_short")) &&
	     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, last, 0));
	if (ok) {
		long long v = credit_stat_wait(&p, "credit_rels", 1);

		ok = EXPECT(v == 1, "credit_rels is %lld", v) &&
		     test_write_post(&p, p.con[0], last, 0, CREDIT_OFF, data, 512) &&
		     expect_closed(p.con[0]);
	}
	path_down(&p);
	return ok;
}

/*
 * Each rule a client can break, on a path with the initial grant of
 * CREDIT_FLOOR chunks: the server closes the path.
 */
bool case_credit_bad(const struct peer_case *tc)
{
	u64 feat = tc->arg == CREDIT_NOFEAT ? 0 : RIFT_FEAT_CREDITS;
	/* credit_floor 0, the opt-out: the offer is declined. */
	unsigned int floor = tc->arg == CREDIT_SRV_OFF ? 0 : CREDIT_FLOOR;
	u16 granted = CREDIT_FLOOR;
	u8 data[512];
	struct path p;
	int err;
	bool ok;

	pattern(data, sizeof(data), 92);
	ok = credit_path_up(&p, floor, feat);
	if (!ok)
		goto out;
	switch (tc->arg) {
	case CREDIT_NOFEAT:
	case CREDIT_SRV_OFF:
		/* Not accepted: as any unknown type. */
		ok = credit_req_send(&p, 2);
		break;
	case CREDIT_REQ_WANT_ZERO:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REQ, 0, 0));
		break;
	case CREDIT_REQ_WANT_RANGE:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REQ, 0,
						p.info.queue_depth + 1));
		break;
	case CREDIT_REQ_CHUNK:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REQ, 1, 4));
		break;
	case CREDIT_REQ_FLOOD:
		/*
		 * The second request of a pair is answered only once the
		 * per-path interval (10 ms) since the first answer is over:
		 * the third, sent right behind it, finds it unanswered.
		 */
		ok = credit_take_answer(&p, 4, &granted) && credit_req_send(&p, 6) &&
		     credit_req_send(&p, 6);
		break;
	case CREDIT_REL_NOT_GRANTED:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, CREDIT_FLOOR, 0));
		break;
	case CREDIT_REL_RANGE:
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, 0xfff, 0));
		break;
	case CREDIT_REL_TWICE:
		/* Above the floor, so that only the second is wrong. */
		ok = credit_take_answer(&p, CREDIT_FLOOR + 2, &granted) &&
		     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, CREDIT_FLOOR + 1, 0)) &&
		     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, CREDIT_FLOOR + 1, 0));
		break;
	case CREDIT_REL_BELOW_FLOOR:
		/*
		 * At the floor of 2: no CREDIT could count what would be left
		 * ("release below the floor").
		 */
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, 1, 0));
		break;
	case CREDIT_REL_IN_USE:
		/*
		 * Held at the ULP, as the cancel cases hold theirs; above the
		 * floor, so that only its use is wrong.
		 */
		ok = credit_take_answer(&p, CREDIT_FLOOR + 1, &granted) &&
		     set_param("rift_test_srv", "delay_offset", CREDIT_OFF) &&
		     set_param("rift_test_srv", "delay_next_ms", HOLD_MS) &&
		     test_write_post(&p, p.con[0], 0, 0, CREDIT_OFF, data, sizeof(data)) &&
		     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, 0, 0));
		break;
	case CREDIT_REQ_UNGRANTED:
		/* Its chunk exists on the server, its address is made up. */
		p.chunks[CREDIT_FLOOR] = p.chunks[0];
		ok = test_write_post(&p, p.con[0], CREDIT_FLOOR, 0, CREDIT_OFF, data,
				     sizeof(data));
		break;
	case CREDIT_CANCEL_UNGRANTED_NOFEAT:
		/*
		 * CANCEL was not offered: a CANCEL is a violation even of a
		 * chunk not granted, which is ignored only once the CANCEL
		 * itself is valid.
		 */
		ok = EXPECT(!(p.info.feat_accepted & RIFT_FEAT_CANCEL), "CANCEL accepted") &&
		     send_imm(p.con[0], imm_raw(RIFT_IMM_CANCEL, CREDIT_FLOOR, 0));
		break;
	}
	(void)err;
	ok = ok && expect_closed(p.con[0]);
out:
	path_down(&p);
	return ok;
}

/*
 * A CANCEL of a chunk not granted is ignored, not a violation: the
 * CREDIT_REL that gave the chunk back (connection 0) may overtake the
 * CANCEL of its timed-out request (that request's connection).  The path
 * stays up, counts it in cancels_stale and carries IO afterwards.
 */
bool case_credit_cancel_ungranted(const struct peer_case *tc)
{
	u8 data[512];
	struct path p;
	int err = 0;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 93);
	ok = credit_path_up(&p, CREDIT_FLOOR, RIFT_FEAT_CREDITS | RIFT_FEAT_CANCEL) &&
	     EXPECT(p.info.feat_accepted & RIFT_FEAT_CANCEL, "CANCEL not accepted") &&
	     send_imm(p.con[0], imm_raw(RIFT_IMM_CANCEL, CREDIT_FLOOR, 0));
	if (ok) {
		long long v = credit_stat_wait(&p, "cancels_stale", 1);

		ok = EXPECT(v == 1, "cancels_stale is %lld", v) &&
		     test_write(&p, p.con[0], 0, CREDIT_OFF, data, sizeof(data), &err) &&
		     expect_errno(err, 0, "write after the ignored CANCEL");
	}
	path_down(&p);
	return ok;
}

/* Nothing but heartbeats (answered) arrives on connection 0 for @ms. */
static bool credit_quiet(struct path *p, int ms)
{
	struct rift_imm imm, ack = { .type = RIFT_IMM_HB_ACK };
	long long end = now_ms() + ms;
	struct peer_recv r;
	__be32 v;
	int err;

	while (now_ms() < end) {
		err = peer_recv(p->con[0], (int)(end - now_ms()) + 1, &r);
		if (err == -ETIMEDOUT)
			return true;
		if (!EXPECT(!err && r.has_imm, "connection 0 failed or sent a plain message"))
			return false;
		v = (__force __be32)r.imm;
		if (!EXPECT(!rift_imm_decode(v, p->info.queue_depth, &imm) &&
			    imm.type == RIFT_IMM_HB,
			    "0x%08x while a revoke is pending and the request held",
			    be32_to_cpu(v)))
			return false;
		ack.seq = imm.seq;
		if (rift_imm_encode(&ack, &v) || !send_imm(p->con[0], v))
			return false;
	}
	return true;
}

/*
 * The server revokes an idle path down to its floor (credit_idle_ms
 * 100 here): one REVOKE, keep = the floor, granted = the grant.  A
 * CREDIT_REQ sent while the revoke is pending is answered only once the
 * releases it asked for arrived (the answer is held, so its count
 * includes them); releases are counted, the chunks reclaimed (their keys
 * invalidated, their memory freed), and the path carries IO afterwards.
 */
bool case_credit_revoke(const struct peer_case *tc)
{
	u16 granted = CREDIT_FLOOR, keep, id, ids[RIFT_CREDIT_MAX_GRANTS * RIFT_CREDIT_MAX_MSGS];
	unsigned int i, n;
	struct rift_credit c;
	u8 data[512];
	struct path p;
	int err = 0;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 94);
	/*
	 * No IO between the answer and the revoke: with credit_idle_ms 100
	 * the revoke may come before a request's response under TCG (seen:
	 * a CREDIT where the write's RSP was awaited).  The other credit
	 * cases write through grown grants.
	 */
	ok = credit_path_up_idle(&p, CREDIT_FLOOR, RIFT_FEAT_CREDITS, 100) &&
	     credit_take_answer(&p, p.info.queue_depth, &granted) &&
	     EXPECT(granted > CREDIT_FLOOR, "only %u granted", granted);
	/* Idle from here: the revoke comes within 100 ms + a tick. */
	ok = ok && credit_recv(&p, &c) &&
	     EXPECT(c.flags == RIFT_CREDIT_F_REVOKE, "CREDIT flags 0x%x, not a revoke",
		    c.flags) &&
	     EXPECT(c.keep == CREDIT_FLOOR, "revoke keeps %u, floor %u", c.keep, CREDIT_FLOOR) &&
	     EXPECT(c.granted == granted, "revoke says %u granted, held %u", c.granted, granted);
	keep = c.keep;
	/* Asked before the releases: held back while the revoke is pending. */
	ok = ok && credit_req_send(&p, p.info.queue_depth) && credit_quiet(&p, 300);
	for (id = granted; ok && id > keep; id--)
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, id - 1, 0));
	granted = keep;
	/* Now the held answer: its count includes every release. */
	n = 0;
	ok = ok && credit_recv(&p, &c) &&
	     EXPECT(c.flags & RIFT_CREDIT_F_ANSWER, "CREDIT flags 0x%x, not the answer",
		    c.flags) &&
	     EXPECT(c.granted >= keep && c.granted == keep + c.nr_grant,
		    "held answer says %u granted with %u grants, %u kept", c.granted,
		    c.nr_grant, keep);
	for (;;) {
		for (i = 0; ok && i < c.nr_grant && n < ARRAY_SIZE(ids); i++)
			ids[n++] = c.grant[i].chunk;
		granted = c.granted;
		if (!ok || !(c.flags & RIFT_CREDIT_F_MORE))
			break;
		ok = credit_recv(&p, &c);
	}
	/*
	 * Above the floor again and idle: revoked again (no IO may come
	 * first, or its response would meet the CREDIT).  Given back, the
	 * path sits at its floor, where nothing more is revoked.
	 */
	if (ok && granted > keep) {
		ok = credit_recv(&p, &c) &&
		     EXPECT(c.flags == RIFT_CREDIT_F_REVOKE, "CREDIT flags 0x%x, not a revoke",
			    c.flags) &&
		     EXPECT(c.keep == keep && c.granted == granted && n == (unsigned int)(granted - keep),
			    "second revoke keeps %u of %u, expected %u of %u (%u granted ids)",
			    c.keep, c.granted, keep, granted, n);
		for (i = 0; ok && i < n; i++)
			ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, ids[i], 0));
	}
	if (ok) {
		long long t0 = now_ms();

		while (srv_path_stat(&p, "reclaimed") < 1 && now_ms() - t0 < peer_timeout_ms)
			usleep(10000);
		ok = EXPECT(srv_path_stat(&p, "revokes") >= 1, "revokes is %lld",
			    srv_path_stat(&p, "revokes")) &&
		     EXPECT(srv_path_stat(&p, "reclaimed") >= 1, "reclaimed is %lld",
			    srv_path_stat(&p, "reclaimed")) &&
		     test_write(&p, p.con[0], 0, CREDIT_OFF, data, sizeof(data), &err) &&
		     expect_errno(err, 0, "write through the floor after the revoke");
	}
	path_down(&p);
	return ok;
}

/*
 * A chunk given back is freed only once the answers that used it are
 * complete on the device, not once they are posted.  Connection 1 stops
 * reposting its receives and has them all used up by HB_ACKs; one more
 * HB leaves the server's HB_ACK retrying receiver-not-ready (RNR retry 7:
 * for ever), and a READ of chunk X has its RDMA WRITEs and its answer
 * queued behind that SEND.  CREDIT_REL of X on connection 0 is accepted
 * (the answer is posted), but X must not be reclaimed while the answer
 * waits: its pages would be freed under the WRITEs, and the device would
 * send whatever they hold next.  Once the receives are back the answer
 * arrives with the data, and X is reclaimed.
 */
bool case_credit_reclaim_after_answer(const struct peer_case *tc)
{
	u16 granted = CREDIT_FLOOR, x = CREDIT_FLOOR, seq;
	struct rift_imm ack, hb = { .type = RIFT_IMM_HB };
	__be32 v;
	u8 data[4096];
	const u8 *out = NULL;
	struct path p;
	int err = 0;
	bool ok;

	(void)tc;
	pattern(data, sizeof(data), 95);
	ok = credit_path_up_cons(&p, 2, CREDIT_FLOOR, RIFT_FEAT_CREDITS, CREDIT_IDLE_NEVER_MS) &&
	     credit_take_answer(&p, CREDIT_FLOOR + 1, &granted) &&
	     EXPECT(granted == CREDIT_FLOOR + 1, "%u granted", granted) &&
	     test_write(&p, p.con[1], x, CREDIT_OFF, data, sizeof(data), &err) &&
	     expect_errno(err, 0, "write through the chunk to give back");
	/*
	 * Every receive of connection 1 used up: peer_nr_rx of them (the
	 * INFO_RSP buffer, posted first and never reposted, took the write's
	 * answer above; one more round trip waited for an answer that could
	 * not land).
	 */
	if (ok)
		peer_conn_no_repost(p.con[1]);
	for (seq = 1; ok && seq <= peer_nr_rx; seq++)
		ok = hb_roundtrip(&p, p.con[1], seq);
	/* This HB_ACK meets receiver-not-ready; the READ's answer queues behind. */
	hb.seq = seq;
	ok = ok && EXPECT(!rift_imm_encode(&hb, &v), "cannot encode HB") &&
	     send_imm(p.con[1], v) &&
	     test_read_post(&p, p.con[1], x, CREDIT_OFF, sizeof(data), 2, &out);
	if (ok) {
		/* rift-test answers at once: the answer is posted by then. */
		usleep(300000);
		ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, x, 0)) &&
		     EXPECT(credit_stat_wait(&p, "credit_rels", 1) == 1, "credit_rels is %lld",
			    srv_path_stat(&p, "credit_rels")) &&
		     credit_quiet(&p, 1000) &&
		     EXPECT(srv_path_stat(&p, "reclaimed") == 0,
			    "chunk %u reclaimed while its answer was still queued (reclaimed %lld)",
			    x, srv_path_stat(&p, "reclaimed"));
	}
	/* The receives back: the HB_ACK, then the answer with its data. */
	ok = ok && EXPECT(!peer_conn_repost(p.con[1]), "cannot repost the receives") &&
	     recv_imm(&p, p.con[1], &ack) &&
	     EXPECT(ack.type == RIFT_IMM_HB_ACK && ack.seq == seq, "type %u seq %u, not HB_ACK %u",
		    ack.type, ack.seq, seq) &&
	     io_wait(&p, p.con[1], x, &err) && expect_errno(err, 0, "the held-up read") &&
	     EXPECT(!memcmp(out, data, sizeof(data)), "read data differs");
	ok = ok && EXPECT(credit_stat_wait(&p, "reclaimed", 1) == 1,
			  "reclaimed is %lld once the answer completed",
			  srv_path_stat(&p, "reclaimed")) &&
	     test_write(&p, p.con[0], 0, CREDIT_OFF, data, 512, &err) &&
	     expect_errno(err, 0, "write after the reclaim");
	path_down(&p);
	return ok;
}

/* Rounds of case_credit_rel_race(), and how long its request is held. */
#define CREDIT_RACE_ROUNDS	6
#define CREDIT_RACE_HOLD_MS	200

/*
 * A request on a chunk and a CREDIT_REL of the same chunk, sent back to
 * back on two connections (request on 1, release on 0), so that the
 * server's two receive handlers race: the release clears the grant and
 * then looks at the op, the request takes the op and then looks at the
 * grant.  Whichever comes first, the path must close ("request names a
 * chunk not granted" or "release of a chunk in use"): rift-test-srv holds
 * the request at the ULP, so it cannot be answered before the release
 * lands, and no order of the two is a client keeping to the rules.
 * Before the Dekker pairing the request could reach the ULP on a chunk
 * already given back, and the path stay up.  Both orders of sending,
 * several rounds: the window is narrow, the outcome is the same in all.
 */
bool case_credit_rel_race(const struct peer_case *tc)
{
	u16 granted, x = CREDIT_FLOOR, round;
	u8 data[512];
	struct path p;
	bool ok = true, rel_first;

	(void)tc;
	pattern(data, sizeof(data), 96);
	for (round = 0; ok && round < CREDIT_RACE_ROUNDS; round++) {
		rel_first = round & 1;
		granted = CREDIT_FLOOR;
		ok = credit_path_up_cons(&p, 2, CREDIT_FLOOR, RIFT_FEAT_CREDITS,
					 CREDIT_IDLE_NEVER_MS) &&
		     credit_take_answer(&p, CREDIT_FLOOR + 1, &granted) &&
		     EXPECT(granted == CREDIT_FLOOR + 1, "%u granted", granted) &&
		     set_param("rift_test_srv", "delay_offset", CREDIT_OFF) &&
		     set_param("rift_test_srv", "delay_next_ms", CREDIT_RACE_HOLD_MS);
		if (ok && rel_first)
			ok = send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, x, 0)) &&
			     test_write_post(&p, p.con[1], x, 0, CREDIT_OFF, data,
					     sizeof(data));
		else if (ok)
			ok = test_write_post(&p, p.con[1], x, 0, CREDIT_OFF, data,
					     sizeof(data)) &&
			     send_imm(p.con[0], imm_raw(RIFT_IMM_CREDIT_REL, x, 0));
		ok = ok && expect_closed(p.con[0]);
		if (!ok)
			diag("round %u (%s first)", round, rel_first ? "release" : "request");
		/* A request refused before the ULP leaves the hold armed. */
		set_param("rift_test_srv", "delay_next_ms", 0);
		path_down(&p);
	}
	return ok;
}

/* A number from a sysfs file, -1 if it cannot be read. */
static long long read_ll(const char *file)
{
	long long v = -1;
	FILE *f = fopen(file, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * An old client (no CREDITS) reserves its whole queue depth from the
 * budget at admission and is refused with ENOSPC when it does not fit;
 * a client with credits needs only its floor and is admitted.  Asking
 * then for its whole queue depth, it is granted what the budget still
 * holds and no more, and the server counts that answer as short
 * (stats/credit_short), the client being told nothing.  pool_mb 1 holds
 * 7 chunks of the default size, not PEER_QD (8) of them; run only when
 * nothing else is pinned, so that the budget is this case's alone.
 */
bool case_credit_pool_enospc(const struct peer_case *tc)
{
	long long pinned = read_ll("/sys/kernel/rift_server/pinned_bytes");
	unsigned long long floor0 = get_param("rift_server", "credit_floor", 2);
	unsigned long long pool0 = get_param("rift_server", "pool_mb", 0);
	u16 granted = CREDIT_FLOOR, fit;
	struct path p;
	u8 buf[512];
	int len;
	bool ok;

	(void)tc;
	/*
	 * The previous case's path may still be going away on the server:
	 * wait for it.  A budget shared with anything else would prove
	 * nothing, and a skip would pass without proving it either, so
	 * what is still pinned after the wait fails the case.
	 */
	for (long long t0 = now_ms(); pinned != 0 && now_ms() - t0 < peer_timeout_ms;
	     pinned = read_ll("/sys/kernel/rift_server/pinned_bytes"))
		usleep(10000);
	if (!EXPECT(pinned == 0, "%lld bytes pinned by others", pinned))
		return false;
	path_init(&p, 1, 1);
	/* The INFO_REQ carries the version CON_RSP agreed: after the connect. */
	ok = set_param("rift_server", "pool_mb", 1) &&
	     set_param("rift_server", "credit_floor", CREDIT_FLOOR) && path_connect(&p, 0);
	len = ok ? info_req_encode_feat(p.name, PEER_HOST, NULL, 0, p.rsp.version, buf,
					sizeof(buf)) : -1;
	ok = ok && EXPECT(len > 0, "cannot encode INFO_REQ") &&
	     expect_info_refusal(&p, buf, len, ENOSPC);
	set_param("rift_server", "credit_floor", floor0);
	path_down(&p);
	/*
	 * The same budget admits a client with credits: its floor fits.
	 * Its request for the queue depth gets what fits: one answer, up
	 * to 12 chunks, would grant all of it from a budget with room.
	 */
	if (ok) {
		ok = credit_path_up_idle(&p, CREDIT_FLOOR, RIFT_FEAT_CREDITS,
					 CREDIT_IDLE_NEVER_MS);
		fit = ok ? (1U << 20) / p.info.chunk_size : 0;
		ok = ok && EXPECT(fit >= CREDIT_FLOOR && fit < p.info.queue_depth &&
				  p.info.queue_depth - CREDIT_FLOOR <=
				  RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS,
				  "no short answer: pool_mb 1 holds %u of %u bytes, depth %u",
				  fit, p.info.chunk_size, p.info.queue_depth) &&
		     EXPECT(srv_path_stat(&p, "credit_short") == 0,
			    "credit_short is %lld before any request",
			    srv_path_stat(&p, "credit_short")) &&
		     credit_take_answer(&p, p.info.queue_depth, &granted) &&
		     EXPECT(granted == fit, "%u granted, the budget holds %u", granted, fit) &&
		     EXPECT(credit_stat_wait(&p, "credit_short", 1) == 1,
			    "credit_short is %lld after an answer the budget cut short",
			    srv_path_stat(&p, "credit_short"));
		path_down(&p);
	}
	set_param("rift_server", "pool_mb", pool0);
	return ok;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * CREDIT messages (Documentation/design/memory-credits.rst): round trips,
 * and every rule a hostile server could break: grant counts, the id space,
 * duplicates, flag combinations, the floor a revoke may not cross, short
 * payloads.
 */
#include "unit.h"

#define QD	128
#define CHUNK	(132U << 10)

/* Raw writers, independent of the encoder under test. */
static void mk_hdr(u8 *p, u8 nr_grant, u8 flags, u16 keep, u16 granted)
{
	memset(p, 0, 16);
	put8(p, nr_grant);
	put8(p + 1, flags);
	put16(p + 2, keep);
	put16(p + 4, granted);
}

static void mk_grant(u8 *p, u64 addr, u32 rkey, u16 chunk)
{
	memset(p, 0, 16);
	put64(p, addr);
	put32(p + 8, rkey);
	put16(p + 12, chunk);
}

static void test_credit_floor(void)
{
	CHECK_EQ(rift_proto_credit_floor(1), 1);
	CHECK_EQ(rift_proto_credit_floor(2), 2);
	CHECK_EQ(rift_proto_credit_floor(QD), 2);
	CHECK(!rift_proto_credit_want_ok(0, QD));
	CHECK(rift_proto_credit_want_ok(1, QD));
	CHECK(rift_proto_credit_want_ok(QD, QD));
	CHECK(!rift_proto_credit_want_ok(QD + 1, QD));
	CHECK(!rift_proto_credit_want_ok(0xffff, QD));
}

static void test_credit_roundtrip(void)
{
	struct rift_credit c = {
		.nr_grant = 3, .flags = RIFT_CREDIT_F_ANSWER | RIFT_CREDIT_F_MORE, .granted = 5,
		.grant = { { 0x1122334455667788ULL, 0xa1, 2 }, { 0x2000, 0xa2, 127 },
			   { 0x3000, 0xa3, 3 } },
	};
	struct rift_credit d;
	u8 buf[64];
	int len;

	len = rift_proto_credit_encode(&c, QD, buf, sizeof(buf));
	CHECK_EQ(len, 64);
	/* The wire layout, read back by hand. */
	CHECK_EQ(buf[0], 3);
	CHECK_EQ(buf[1], RIFT_CREDIT_F_ANSWER | RIFT_CREDIT_F_MORE);
	CHECK_EQ(get16(buf + 2), 0);
	CHECK_EQ(get16(buf + 4), 5);
	CHECK_EQ(get32(buf + 16), 0x55667788);
	CHECK_EQ(get32(buf + 20), 0x11223344);
	CHECK_EQ(get32(buf + 24), 0xa1);
	CHECK_EQ(get16(buf + 28), 2);
	CHECK_EQ(get16(buf + 44), 127);
	CHECK_EQ(rift_proto_credit_decode(buf, len, QD, &d), 0);
	CHECK(!memcmp(&c, &d, sizeof(c)));
	/* Too little room: nothing written past cap. */
	CHECK_EQ(rift_proto_credit_encode(&c, QD, buf, 63), -EMSGSIZE);

	c = (struct rift_credit){ .flags = RIFT_CREDIT_F_REVOKE, .keep = 2, .granted = 40 };
	len = rift_proto_credit_encode(&c, QD, buf, sizeof(buf));
	CHECK_EQ(len, 16);
	CHECK_EQ(rift_proto_credit_decode(buf, len, QD, &d), 0);
	CHECK_EQ(d.keep, 2);
	CHECK_EQ(d.granted, 40);

	/* An empty answer: the server has nothing more to give. */
	c = (struct rift_credit){ .flags = RIFT_CREDIT_F_ANSWER, .granted = 2 };
	CHECK_EQ(rift_proto_credit_encode(&c, QD, buf, sizeof(buf)), 16);
	CHECK_EQ(rift_proto_credit_decode(buf, 16, QD, &d), 0);
	/* An unsolicited grant is allowed. */
	mk_hdr(buf, 1, 0, 0, 3);
	mk_grant(buf + 16, 0x5000, 7, 2);
	CHECK_EQ(rift_proto_credit_decode(buf, 32, QD, &d), 0);
	/* Reserved bytes and trailing bytes are ignored. */
	buf[10] = 0xff;
	buf[16 + 14] = 0xff;
	memset(buf + 32, 0xee, 32);
	CHECK_EQ(rift_proto_credit_decode(buf, 64, QD, &d), 0);
	CHECK_EQ(d.grant[0].chunk, 2);
}

/* Every malformed payload is refused and leaves nothing decoded. */
static void expect_bad(const u8 *buf, size_t len, u16 qd)
{
	struct rift_credit d;

	memset(&d, 0x5a, sizeof(d));
	CHECK_EQ(rift_proto_credit_decode(buf, len, qd, &d), -EBADMSG);
	CHECK_EQ(d.nr_grant, 0);
	CHECK_EQ(d.granted, 0);
	CHECK_EQ(d.grant[0].rkey, 0);
}

static void test_credit_hostile(void)
{
	u8 buf[80];
	unsigned int i;

	/* Short: no header, or fewer grant bytes than nr_grant says. */
	expect_bad(NULL, 16, QD);
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 0, 2);
	expect_bad(buf, 15, QD);
	mk_hdr(buf, 2, RIFT_CREDIT_F_ANSWER, 0, 4);
	mk_grant(buf + 16, 0x1000, 1, 2);
	mk_grant(buf + 32, 0x2000, 2, 3);
	expect_bad(buf, 47, QD);
	/* More grants than fit a receive buffer. */
	mk_hdr(buf, 4, RIFT_CREDIT_F_ANSWER, 0, 6);
	for (i = 0; i < 4; i++)
		mk_grant(buf + 16 + 16 * i, 0x1000 * i, i, 2 + i);
	expect_bad(buf, 80, QD);
	mk_hdr(buf, 0xff, RIFT_CREDIT_F_ANSWER, 0, 6);
	expect_bad(buf, 80, QD);
	/* A chunk beyond the id space, at it, and a duplicate. */
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 3);
	mk_grant(buf + 16, 0x1000, 1, QD);
	expect_bad(buf, 32, QD);
	mk_grant(buf + 16, 0x1000, 1, 0xffff);
	expect_bad(buf, 32, QD);
	mk_hdr(buf, 2, RIFT_CREDIT_F_ANSWER, 0, 4);
	mk_grant(buf + 16, 0x1000, 1, 5);
	mk_grant(buf + 32, 0x2000, 2, 5);
	expect_bad(buf, 48, QD);
	/* Unknown flags; MORE outside an answer. */
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER | 0x08, 0, 2);
	expect_bad(buf, 16, QD);
	mk_hdr(buf, 0, 0x80, 0, 2);
	expect_bad(buf, 16, QD);
	mk_hdr(buf, 1, RIFT_CREDIT_F_MORE, 0, 3);
	mk_grant(buf + 16, 0x1000, 1, 2);
	expect_bad(buf, 32, QD);
	/* A message that says nothing. */
	mk_hdr(buf, 0, 0, 0, 2);
	expect_bad(buf, 16, QD);
	/* granted below the floor, above the id space, below the grants. */
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 0, 1);
	expect_bad(buf, 16, QD);
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 0, QD + 1);
	expect_bad(buf, 16, QD);
	mk_hdr(buf, 3, RIFT_CREDIT_F_ANSWER, 0, 2);
	for (i = 0; i < 3; i++)
		mk_grant(buf + 16 + 16 * i, 0x1000 * i, i, i);
	expect_bad(buf, 64, QD);
	/* keep without a revoke. */
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 3, 4);
	expect_bad(buf, 16, QD);
	/* Revokes: below the floor, taking nothing, granting, answering. */
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE, 1, 8);
	expect_bad(buf, 16, QD);
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE, 0, 8);
	expect_bad(buf, 16, QD);
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE, 8, 8);
	expect_bad(buf, 16, QD);
	mk_hdr(buf, 1, RIFT_CREDIT_F_REVOKE, 2, 8);
	mk_grant(buf + 16, 0x1000, 1, 2);
	expect_bad(buf, 32, QD);
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE | RIFT_CREDIT_F_ANSWER, 2, 8);
	expect_bad(buf, 16, QD);
	/* A queue depth of one: floor 1, and a revoke can take nothing. */
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE, 1, 1);
	expect_bad(buf, 16, 1);
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 0, 1);
	CHECK_EQ(rift_proto_credit_decode(buf, 16, 1, &(struct rift_credit){ 0 }), 0);
	/* No id space at all, or one the protocol cannot have. */
	expect_bad(buf, 16, 0);
	expect_bad(buf, 16, RIFT_MAX_QUEUE_DEPTH + 1);
}

/* The encoder refuses what the decoder would: a server cannot send it. */
static void test_credit_encode_refuses(void)
{
	struct rift_credit c = { .nr_grant = 1, .flags = RIFT_CREDIT_F_ANSWER, .granted = 3,
				 .grant = { { 0x1000, 1, QD } } };
	u8 buf[64];

	CHECK_EQ(rift_proto_credit_encode(&c, QD, buf, sizeof(buf)), -EINVAL);
	c.grant[0].chunk = 1;
	c.nr_grant = 4;
	CHECK_EQ(rift_proto_credit_encode(&c, QD, buf, sizeof(buf)), -EINVAL);
	c = (struct rift_credit){ .flags = RIFT_CREDIT_F_REVOKE, .keep = 1, .granted = 4 };
	CHECK_EQ(rift_proto_credit_encode(&c, QD, buf, sizeof(buf)), -EINVAL);
	c = (struct rift_credit){ .flags = RIFT_CREDIT_F_MORE, .granted = 4 };
	CHECK_EQ(rift_proto_credit_encode(&c, QD, buf, sizeof(buf)), -EINVAL);
}

/* Random payloads: whatever decodes re-encodes to the same bytes' meaning. */
static void test_credit_random(void)
{
	struct rift_credit c, d;
	u8 buf[64], out[64];
	unsigned int i, j, ok = 0;
	int len;
	u16 qd;

	for (i = 0; i < 200000; i++) {
		qd = 1 + unit_rand() % 16;
		for (j = 0; j < sizeof(buf); j++)
			buf[j] = unit_rand();
		/* Bias towards plausible headers so that some decode. */
		buf[0] %= 4;
		buf[1] &= 7;
		buf[3] = 0;
		buf[2] %= 17;
		buf[5] = 0;
		buf[4] %= 17;
		for (j = 0; j < 3; j++)
			buf[16 + 16 * j + 12] %= 16, buf[16 + 16 * j + 13] = 0;
		if (rift_proto_credit_decode(buf, 16 + 16 * (unit_rand() % 4), qd, &c))
			continue;
		ok++;
		len = rift_proto_credit_encode(&c, qd, out, sizeof(out));
		CHECK_EQ(len, 16 + 16 * c.nr_grant);
		CHECK_EQ(rift_proto_credit_decode(out, len, qd, &d), 0);
		CHECK(!memcmp(&c, &d, sizeof(c)));
	}
	CHECK(ok > 1000);
}

/* A client path instance of QD chunks, @initial granted, for the tests below. */
static u8 clt_map[QD];

static void clt_setup(struct rift_credit_clt *s, u16 initial)
{
	rift_credit_clt_init(s, clt_map, QD, initial, CHUNK, QD);
}

static enum rift_credit_fault clt_rx(struct rift_credit_clt *s, const u8 *buf, size_t len)
{
	struct rift_credit c;
	enum rift_credit_fault f = rift_credit_clt_check(s, buf, len, &c);

	if (f == RIFT_CREDIT_OK)
		rift_credit_clt_apply(s, &c);
	return f;
}

/* The client's whole cycle: ask, get an answer in parts, be revoked. */
static void test_credit_clt_cycle(void)
{
	struct rift_credit_clt s;
	u8 buf[64];
	unsigned int i;

	clt_setup(&s, 2);
	CHECK_EQ(s.nr_granted, 2);
	CHECK_EQ(clt_map[0], 1);
	CHECK_EQ(clt_map[1], 1);
	CHECK_EQ(clt_map[2], 0);
	/* Half the grant in use: not yet; three quarters, or starved: ask. */
	CHECK(!rift_credit_clt_should_ask(&s, 1, false));
	CHECK(rift_credit_clt_should_ask(&s, 2, false));
	CHECK(rift_credit_clt_should_ask(&s, 0, true));
	/* Twice the grant, or what is in use and waiting if more. */
	CHECK_EQ(rift_credit_clt_want(&s, 2, 1), 4);
	CHECK_EQ(rift_credit_clt_want(&s, 2, 9), 11);
	CHECK_EQ(rift_credit_clt_want(&s, 2, 1000), QD);
	rift_credit_clt_asked(&s);
	CHECK(!rift_credit_clt_should_ask(&s, 2, true));

	/* An answer in two messages: 3 grants with MORE, then 1. */
	mk_hdr(buf, 3, RIFT_CREDIT_F_ANSWER | RIFT_CREDIT_F_MORE, 0, 5);
	for (i = 0; i < 3; i++)
		mk_grant(buf + 16 + 16 * i, 0x1000 * i, i, 2 + i);
	CHECK_EQ(clt_rx(&s, buf, 64), RIFT_CREDIT_OK);
	CHECK(s.req_out);
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 6);
	mk_grant(buf + 16, 0x9000, 9, 100);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_OK);
	CHECK(!s.req_out);
	CHECK_EQ(s.nr_granted, 6);
	CHECK_EQ(clt_map[100], 1);
	/* Another answer: no request is outstanding. */
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 7);
	mk_grant(buf + 16, 0x9000, 9, 101);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_UNSOLICITED);
	CHECK_EQ(s.nr_granted, 6);

	/* An empty answer ends a request too. */
	rift_credit_clt_asked(&s);
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 0, 6);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_OK);
	CHECK(!s.req_out);

	/* A revoke down to 3: owed 3, given back one by one. */
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE, 3, 6);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_OK);
	CHECK_EQ(rift_credit_clt_owed(&s), 3);
	CHECK(!rift_credit_clt_should_ask(&s, 6, true));
	/* A second one while it is pending. */
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_UNSOLICITED);
	rift_credit_clt_give_back(&s, 100);
	CHECK_EQ(clt_map[100], 0);
	CHECK_EQ(rift_credit_clt_owed(&s), 2);
	/* Not granted: nothing changes. */
	rift_credit_clt_give_back(&s, 100);
	rift_credit_clt_give_back(&s, QD + 3);
	CHECK_EQ(rift_credit_clt_owed(&s), 2);
	rift_credit_clt_give_back(&s, 4);
	rift_credit_clt_give_back(&s, 3);
	CHECK_EQ(rift_credit_clt_owed(&s), 0);
	CHECK(!s.revoking);
	CHECK_EQ(s.nr_granted, 3);
	/* Given back, a chunk may be granted again; held ones may not. */
	rift_credit_clt_asked(&s);
	mk_hdr(buf, 2, RIFT_CREDIT_F_ANSWER, 0, 5);
	mk_grant(buf + 16, 0x1000, 1, 100);
	mk_grant(buf + 32, 0x1000, 1, 3);
	CHECK_EQ(clt_rx(&s, buf, 48), RIFT_CREDIT_OK);
	CHECK_EQ(s.nr_granted, 5);
	/* The whole id space granted: nothing more to ask for. */
	clt_setup(&s, QD);
	CHECK(!rift_credit_clt_should_ask(&s, QD, true));
}

/* Each hostile server rule, with the reason the path fails with. */
static void test_credit_clt_hostile(void)
{
	struct rift_credit_clt s;
	u8 buf[80];
	unsigned int i;

	clt_setup(&s, 2);
	rift_credit_clt_asked(&s);
	/* malformed: short, too many grants, unknown flags, MORE alone. */
	CHECK_EQ(clt_rx(&s, NULL, 16), RIFT_CREDIT_MALFORMED);
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 3);
	mk_grant(buf + 16, 0x1000, 1, 2);
	CHECK_EQ(clt_rx(&s, buf, 31), RIFT_CREDIT_MALFORMED);
	CHECK_EQ(clt_rx(&s, buf, 15), RIFT_CREDIT_MALFORMED);
	mk_hdr(buf, 4, RIFT_CREDIT_F_ANSWER, 0, 6);
	CHECK_EQ(clt_rx(&s, buf, 80), RIFT_CREDIT_MALFORMED);
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER | 0x10, 0, 2);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_MALFORMED);
	mk_hdr(buf, 0, RIFT_CREDIT_F_MORE, 0, 2);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_MALFORMED);
	/* keep without a revoke; a revoke that grants or answers. */
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 2, 2);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_MALFORMED);
	mk_hdr(buf, 1, RIFT_CREDIT_F_REVOKE, 2, 3);
	mk_grant(buf + 16, 0x1000, 1, 2);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_MALFORMED);
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE | RIFT_CREDIT_F_ANSWER, 2, 2);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_MALFORMED);
	/* Unknown chunk: at and beyond the id space. */
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 3);
	mk_grant(buf + 16, 0x1000, 1, QD);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_UNKNOWN_CHUNK);
	mk_grant(buf + 16, 0x1000, 1, 0xffff);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_UNKNOWN_CHUNK);
	/* Twice: a chunk held already, and one twice in the message. */
	mk_grant(buf + 16, 0x1000, 1, 1);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_TWICE);
	mk_hdr(buf, 2, RIFT_CREDIT_F_ANSWER, 0, 4);
	mk_grant(buf + 16, 0x1000, 1, 5);
	mk_grant(buf + 32, 0x1000, 1, 5);
	CHECK_EQ(clt_rx(&s, buf, 48), RIFT_CREDIT_TWICE);
	/* Count: one more, one less, far beyond the id space. */
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 4);
	mk_grant(buf + 16, 0x1000, 1, 5);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_COUNT);
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 2);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_COUNT);
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 0, 0xffff);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_COUNT);
	/* Nothing of this changed the state. */
	CHECK_EQ(s.nr_granted, 2);
	CHECK(s.req_out);
	/* Unsolicited: neither answer nor revoke; an answer too long. */
	mk_hdr(buf, 1, 0, 0, 3);
	mk_grant(buf + 16, 0x1000, 1, 5);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_UNSOLICITED);
	for (i = 0; i < RIFT_CREDIT_MAX_MSGS - 1; i++) {
		mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER | RIFT_CREDIT_F_MORE, 0, 2);
		CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_OK);
	}
	/* The fourth message must end the answer. */
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_UNSOLICITED);
	mk_hdr(buf, 0, RIFT_CREDIT_F_ANSWER, 0, 2);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_OK);
	CHECK(!s.req_out);
	/* Below the floor, even with nothing to take back otherwise. */
	clt_setup(&s, 8);
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE, 1, 8);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_BELOW_FLOOR);
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE, 0, 8);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_BELOW_FLOOR);
	/* A revoke that asks nothing back. */
	mk_hdr(buf, 0, RIFT_CREDIT_F_REVOKE, 8, 8);
	CHECK_EQ(clt_rx(&s, buf, 16), RIFT_CREDIT_MALFORMED);
	CHECK(!s.revoking);
	/* The reasons' wording is the protocol document's. */
	CHECK(!strcmp(rift_credit_fault_str(RIFT_CREDIT_MALFORMED), "malformed credit"));
	CHECK(!strcmp(rift_credit_fault_str(RIFT_CREDIT_UNKNOWN_CHUNK),
		      "credit names an unknown chunk"));
	CHECK(!strcmp(rift_credit_fault_str(RIFT_CREDIT_TWICE), "credit grants a chunk twice"));
	CHECK(!strcmp(rift_credit_fault_str(RIFT_CREDIT_COUNT), "credit count disagrees"));
	CHECK(!strcmp(rift_credit_fault_str(RIFT_CREDIT_UNSOLICITED), "unsolicited credit"));
	CHECK(!strcmp(rift_credit_fault_str(RIFT_CREDIT_BELOW_FLOOR), "revoke below the floor"));
}

/*
 * A server whose queue depth exceeds the session's: the client asks for
 * no more than the chunks its requests can use (ids below the session's
 * queue depth), and stops asking once it holds that many.
 */
static void test_credit_clt_usable(void)
{
	struct rift_credit_clt s;
	u8 buf[64];
	unsigned int i;

	rift_credit_clt_init(&s, clt_map, QD, 2, CHUNK, 5);
	CHECK_EQ(s.usable, 5);
	CHECK_EQ(rift_credit_clt_want(&s, 2, 1), 4);
	CHECK_EQ(rift_credit_clt_want(&s, 2, 9), 5);
	CHECK_EQ(rift_credit_clt_want(&s, 2, 1000), 5);
	CHECK(rift_credit_clt_should_ask(&s, 2, false));
	rift_credit_clt_asked(&s);
	mk_hdr(buf, 3, RIFT_CREDIT_F_ANSWER, 0, 5);
	for (i = 0; i < 3; i++)
		mk_grant(buf + 16 + 16 * i, 0x1000 * i, i, 2 + i);
	CHECK_EQ(clt_rx(&s, buf, 64), RIFT_CREDIT_OK);
	/* All it can use is granted: never again, starved or full. */
	CHECK(!rift_credit_clt_should_ask(&s, 5, true));
	CHECK(!rift_credit_clt_should_ask(&s, 5, false));
	CHECK_EQ(rift_credit_clt_want(&s, 5, 3), 5);
	/* 0, or more than the id space, means the id space. */
	rift_credit_clt_init(&s, clt_map, QD, 2, CHUNK, 0);
	CHECK_EQ(s.usable, QD);
	rift_credit_clt_init(&s, clt_map, 8, 2, CHUNK, 9);
	CHECK_EQ(s.usable, 8);
	CHECK_EQ(rift_credit_clt_want(&s, 2, 1000), 8);
}

/*
 * A grant whose addr + CHUNK_SIZE wraps 64 bits is refused as a chunk
 * table entry is (rift_chunk_ok()): "malformed credit", checked before
 * the id, so even for an unknown chunk; the last address that fits is
 * fine.
 */
static void test_credit_clt_wrap(void)
{
	struct rift_credit_clt s;
	u8 buf[64];

	clt_setup(&s, 2);
	rift_credit_clt_asked(&s);
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 3);
	mk_grant(buf + 16, ~0ULL - CHUNK + 2, 1, 2);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_MALFORMED);
	mk_grant(buf + 16, ~0ULL, 1, QD);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_MALFORMED);
	/* One bad entry of three refuses the whole message. */
	mk_hdr(buf, 3, RIFT_CREDIT_F_ANSWER, 0, 5);
	mk_grant(buf + 16, 0x1000, 1, 2);
	mk_grant(buf + 32, 0x2000, 1, 3);
	mk_grant(buf + 48, ~0ULL - CHUNK / 2, 1, 4);
	CHECK_EQ(clt_rx(&s, buf, 64), RIFT_CREDIT_MALFORMED);
	CHECK_EQ(s.nr_granted, 2);
	CHECK_EQ(clt_map[2], 0);
	CHECK(s.req_out);
	/* Ends exactly at 2^64 - 1: no wrap. */
	mk_hdr(buf, 1, RIFT_CREDIT_F_ANSWER, 0, 3);
	mk_grant(buf + 16, ~0ULL - CHUNK, 1, 2);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_OK);
	CHECK_EQ(s.nr_granted, 3);
	CHECK_EQ(clt_map[2], 1);
	/* The size is the instance's: a larger chunk wraps sooner. */
	rift_credit_clt_init(&s, clt_map, QD, 2, 2 * CHUNK, QD);
	rift_credit_clt_asked(&s);
	CHECK_EQ(clt_rx(&s, buf, 32), RIFT_CREDIT_MALFORMED);
}

/*
 * Whatever the codec refuses, the client refuses too (a server cannot get
 * past the state machine with what the wire format forbids), and what the
 * client accepts in a fresh state decodes.
 */
static void test_credit_clt_random(void)
{
	struct rift_credit_clt s;
	struct rift_credit c;
	u8 buf[64];
	unsigned int i, j, ok = 0;
	size_t len;
	int dec;

	for (i = 0; i < 200000; i++) {
		for (j = 0; j < sizeof(buf); j++)
			buf[j] = unit_rand();
		buf[0] %= 4;
		buf[1] &= 7;
		buf[3] = 0;
		buf[2] %= 9;
		buf[5] = 0;
		buf[4] %= 9;
		for (j = 0; j < 3; j++)
			buf[16 + 16 * j + 12] %= 12, buf[16 + 16 * j + 13] = 0;
		len = 16 + 16 * (unit_rand() % 4);
		rift_credit_clt_init(&s, clt_map, 8, 2 + unit_rand() % 7, CHUNK,
				     unit_rand() % 10);
		if (unit_rand() & 1)
			rift_credit_clt_asked(&s);
		dec = rift_proto_credit_decode(buf, len, 8, &c);
		if (rift_credit_clt_check(&s, buf, len, &c) != RIFT_CREDIT_OK) {
			continue;
		}
		ok++;
		CHECK_EQ(dec, 0);
	}
	CHECK(ok > 100);
}

/* The server's floor: 0 is the feature off, below the protocol's is raised. */
static void test_credit_srv_floor(void)
{
	CHECK_EQ(rift_credit_srv_floor(QD, 0), 0);
	CHECK_EQ(rift_credit_srv_floor(QD, 1), 2);
	CHECK_EQ(rift_credit_srv_floor(QD, 2), 2);
	CHECK_EQ(rift_credit_srv_floor(QD, 16), 16);
	CHECK_EQ(rift_credit_srv_floor(QD, 4096), QD);
	CHECK_EQ(rift_credit_srv_floor(1, 1), 1);
	CHECK_EQ(rift_credit_srv_floor(1, 2), 1);
	CHECK_EQ(rift_credit_srv_floor(0xffff, 0xffffffffU), 0xffff);
}

/* An answer: up to want, at least the floor, 12 at most, within the budget. */
static void test_credit_srv_grant_nr(void)
{
	const u16 max = RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS;

	CHECK_EQ(rift_credit_srv_grant_nr(QD, 2, 4, 1000), 2);
	CHECK_EQ(rift_credit_srv_grant_nr(QD, 2, QD, 1000), max);
	CHECK_EQ(rift_credit_srv_grant_nr(QD, QD - 3, QD, 1000), 3);
	/* Asking for what is held, or less, grants nothing. */
	CHECK_EQ(rift_credit_srv_grant_nr(QD, 8, 8, 1000), 0);
	CHECK_EQ(rift_credit_srv_grant_nr(QD, 8, 1, 1000), 0);
	/* A client that gave chunks back below the floor gets it again. */
	CHECK_EQ(rift_credit_srv_grant_nr(QD, 0, 1, 1000), 2);
	/* The budget bounds the answer, an empty budget grants nothing. */
	CHECK_EQ(rift_credit_srv_grant_nr(QD, 2, QD, 5), 5);
	CHECK_EQ(rift_credit_srv_grant_nr(QD, 2, QD, 0), 0);
	/* Never beyond the id space, whatever want says. */
	CHECK_EQ(rift_credit_srv_grant_nr(4, 2, 0xffff, 1000), 2);
	CHECK_EQ(rift_credit_srv_grant_nr(1, 0, 1, 1000), 1);
}

static struct rift_credit_srv srv_idle(u16 granted)
{
	struct rift_credit_srv s = {
		.queue_depth = QD, .granted = granted, .floor = 2,
		.idle_ms = 1000, .quiet_ms = 1000, .ready = true,
	};

	return s;
}

/* Every rule that keeps a revoke from being sent, one at a time. */
static void test_credit_srv_revoke(void)
{
	struct rift_credit_srv s = srv_idle(40);

	CHECK_EQ(rift_credit_srv_revoke(&s), 2);
	s.floor = 8;
	CHECK_EQ(rift_credit_srv_revoke(&s), 8);
	/* A floor below the protocol's is never what keep says. */
	s.floor = 1;
	CHECK_EQ(rift_credit_srv_revoke(&s), 2);
	/* Feature off: no floor, no revoke. */
	s.floor = 0;
	CHECK_EQ(rift_credit_srv_revoke(&s), 0);
	s = srv_idle(40);
	s.quiet_ms = 999;
	CHECK_EQ(rift_credit_srv_revoke(&s), 0);
	s = srv_idle(40);
	s.ready = false;
	CHECK_EQ(rift_credit_srv_revoke(&s), 0);
	/* An unanswered CREDIT_REQ: the client is not idle, no crossing. */
	s = srv_idle(40);
	s.req_out = true;
	CHECK_EQ(rift_credit_srv_revoke(&s), 0);
	s = srv_idle(40);
	s.revoking = true;
	CHECK_EQ(rift_credit_srv_revoke(&s), 0);
	/* At or below the floor there is nothing to take. */
	s = srv_idle(2);
	CHECK_EQ(rift_credit_srv_revoke(&s), 0);
	s = srv_idle(3);
	CHECK_EQ(rift_credit_srv_revoke(&s), 2);
	/* A one-chunk path has a floor of 1. */
	s = srv_idle(1);
	s.queue_depth = 1;
	CHECK_EQ(rift_credit_srv_revoke(&s), 0);
}

/*
 * Requests the ULP still holds (a slow backend) keep their chunks: the
 * client could not pay a revoke below them until they end, and would
 * hold every new request of the path meanwhile.  Once they ended, the
 * next look takes the grant down to the floor.
 */
static void test_credit_srv_revoke_busy(void)
{
	static const struct {
		u16 granted, floor;
		u32 busy;
		u16 keep;
	} cases[] = {
		{ 40, 2, 1, 2 },
		{ 40, 2, 2, 2 },
		{ 40, 2, 5, 5 },
		{ 40, 8, 5, 8 },
		/* All but one in use: still something to take back. */
		{ 40, 8, 39, 39 },
		/* Every granted chunk, or more, at the ULP: nothing to take. */
		{ 40, 8, 40, 0 },
		{ 40, 8, 0xffffffffU, 0 },
		/* They ended: down to the floor at the next look. */
		{ 5, 2, 0, 2 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rift_credit_srv s = srv_idle(cases[i].granted);

		s.floor = cases[i].floor;
		s.busy = cases[i].busy;
		CHECK_EQ(rift_credit_srv_revoke(&s), cases[i].keep);
	}
}

/*
 * A revoke ends when the grant is down to keep, not before; the answer
 * held meanwhile goes out then.  Driven the way the kernel server drives
 * it: one CREDIT_REL at a time.
 */
static void test_credit_srv_revoke_cycle(void)
{
	struct rift_credit_srv s = srv_idle(14);
	u16 keep = rift_credit_srv_revoke(&s);

	CHECK_EQ(keep, 2);
	s.revoking = true;
	/* A CREDIT_REQ crossing the revoke: held, no second revoke. */
	s.req_out = true;
	CHECK_EQ(rift_credit_srv_revoke(&s), 0);
	while (s.granted > keep) {
		CHECK(!rift_credit_srv_revoke_over(&s, keep));
		s.granted--;
	}
	CHECK(rift_credit_srv_revoke_over(&s, keep));
	s.revoking = false;
	CHECK(!rift_credit_srv_revoke_over(&s, keep));
	/* The held answer may now grow it again. */
	CHECK_EQ(rift_credit_srv_grant_nr(QD, s.granted, 8, 100), 6);
}

/*
 * A CREDIT_REL is refused when the grant would drop below the protocol's
 * floor, min(2, queue depth): no CREDIT could say granted then.
 */
static void test_credit_srv_rel_ok(void)
{
	u8 buf[RIFT_CREDIT_MAX_LEN];
	struct rift_credit c = { .flags = RIFT_CREDIT_F_ANSWER };
	u16 qd, g;

	CHECK(rift_credit_srv_rel_ok(QD, 3));
	CHECK(!rift_credit_srv_rel_ok(QD, 2));
	CHECK(!rift_credit_srv_rel_ok(QD, 1));
	CHECK(!rift_credit_srv_rel_ok(QD, 0));
	CHECK(!rift_credit_srv_rel_ok(1, 1));
	CHECK(rift_credit_srv_rel_ok(2, 3) && !rift_credit_srv_rel_ok(2, 2));
	/* Whatever a release accepted leaves can still be encoded. */
	for (qd = 1; qd <= 8; qd++) {
		for (g = 0; g <= qd; g++) {
			c.granted = g - 1;
			if (rift_credit_srv_rel_ok(qd, g))
				CHECK(rift_proto_credit_encode(&c, qd, buf, sizeof(buf)) > 0);
			else if (g)
				CHECK(rift_proto_credit_encode(&c, qd, buf, sizeof(buf)) < 0);
		}
	}
}

/*
 * Random states: keep is 0 or in [floor, granted), never below 2 nor
 * below the requests at the ULP.
 */
static void test_credit_srv_random(void)
{
	unsigned int i;

	for (i = 0; i < 100000; i++) {
		struct rift_credit_srv s = {
			.queue_depth = 1 + unit_rand() % QD,
			.floor = unit_rand() % 20,
			.idle_ms = unit_rand() % 3,
			.quiet_ms = unit_rand() % 3,
			.busy = unit_rand() % (QD + 2),
			.ready = unit_rand() & 1,
			.req_out = unit_rand() & 1,
			.revoking = unit_rand() & 1,
		};
		u16 keep, n;

		s.granted = unit_rand() % (s.queue_depth + 1);
		keep = rift_credit_srv_revoke(&s);
		if (keep) {
			CHECK(keep >= rift_proto_credit_floor(s.queue_depth));
			CHECK(keep >= s.busy);
			CHECK(keep < s.granted);
			CHECK(s.ready && !s.req_out && !s.revoking && s.floor);
		}
		n = rift_credit_srv_grant_nr(s.queue_depth, s.granted,
					     1 + unit_rand() % s.queue_depth,
					     unit_rand() % 20);
		CHECK(s.granted + n <= s.queue_depth);
		CHECK(n <= RIFT_CREDIT_MAX_MSGS * RIFT_CREDIT_MAX_GRANTS);
	}
}

const struct unit_test unit_credit_tests[] = {
	UNIT(test_credit_floor),
	UNIT(test_credit_roundtrip),
	UNIT(test_credit_hostile),
	UNIT(test_credit_encode_refuses),
	UNIT(test_credit_random),
	UNIT(test_credit_clt_cycle),
	UNIT(test_credit_clt_hostile),
	UNIT(test_credit_clt_wrap),
	UNIT(test_credit_clt_usable),
	UNIT(test_credit_clt_random),
	UNIT(test_credit_srv_floor),
	UNIT(test_credit_srv_grant_nr),
	UNIT(test_credit_srv_revoke),
	UNIT(test_credit_srv_revoke_busy),
	UNIT(test_credit_srv_revoke_cycle),
	UNIT(test_credit_srv_rel_ok),
	UNIT(test_credit_srv_random),
	{ NULL, NULL }
};

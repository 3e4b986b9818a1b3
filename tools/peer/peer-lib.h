/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rift-peer's protocol helpers (peer-lib.c): connecting a session's paths,
 * the INFO exchange, immediates and IO requests against rift-test's store.
 * Every helper that talks to the server checks its answer, says why in a
 * diagnostic when it is not the one expected and returns false then, so
 * the cases of peer-con.c, peer-io.c and peer-blk.c chain them with &&.
 *
 * Built, like the cases, against the codec's kernel-style shim headers.
 */
#ifndef _RIFT_PEER_LIB_H
#define _RIFT_PEER_LIB_H

#include <linux/types.h>
#include <asm/byteorder.h>
#include "rift-proto.h"

#include "peer-rdma.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* Chunks every path asks for; the server may grant fewer. */
#define PEER_QD			8
/* rift-test's ULP header magic, "REST" (test/rift-test.c). */
#define TEST_MAGIC		0x54534552U

/* rift-test's ULP header, in front of every request. */
struct test_hdr {
	__le32	magic;
	__le32	len;
	__le64	offset;
};

/**
 * struct path - one path of a session, as the peer sees it
 * @tgt: addresses it connects over
 * @req: CON_REQ template; each connection sets its con_idx
 * @rsp: CON_RSP of the first connection accepted
 * @con: the connections
 * @info: the INFO_RSP, once received
 * @chunks: its chunk table
 * @name: session name the INFO_REQ carries
 * @feat: feature bits path_info() offers (none unless a case sets them)
 */
struct path {
	const struct peer_target *tgt;
	struct rift_con_req	req;
	struct rift_con_rsp	rsp;
	struct peer_conn	*con[2];
	struct rift_info	info;
	struct rift_rbuf	chunks[PEER_QD];
	char			name[RIFT_NAME_MAX + 1];
	u64			feat;
};

/**
 * struct io - a request laid out in a local image of a server chunk
 * @req: descriptor contents and layout, from the codec
 * @imm: the immediate announcing it
 * @len: bytes of @img to write into the chunk
 * @img: payload, ULP header and descriptor at their chunk offsets
 */
struct io {
	struct rift_io_req	req;
	struct rift_imm		imm;
	u32			len;
	u8			img[2 * RIFT_CHUNK_SIZE_MIN];
};

/*
 * Room for a SEND WITH_INV payload longer than a server's receive buffer
 * (RIFT_MSG_BUF_SIZE, 64 bytes, rift/rift-core.h), to overflow it.
 */
#define RINV_MSG_ROOM		96

/**
 * struct io_inv - the SEND WITH_INV that ends a write with REMOTE_INV
 * @msg: its payload, a struct rift_wire_write_inv unless a case breaks it;
 *	room for more than a server's receive buffer holds
 * @len: bytes of @msg sent (a case may send fewer, or more)
 * @rkey: the key it invalidates on the server, its chunk's current one
 *	unless a case names another
 */
struct io_inv {
	u8	msg[RINV_MSG_ROOM];
	u32	len;
	u32	rkey;
};

/**
 * struct peer_case - one test point
 * @name: KTAP name, also the command line name
 * @run: the test; true if the server answered as expected
 * @arg: variant, for cases that share @run
 * @manual: run only when named
 */
struct peer_case {
	const char	*name;
	bool		(*run)(const struct peer_case *tc);
	int		arg;
	bool		manual;
};

/* riftblk-server's default port (RIFTBLK_DEFAULT_PORT), where -B goes. */
#define RIFTBLK_PEER_PORT	7675

/* The riftblk cases of -B (peer-blk.c) and what they are told. */
extern const struct peer_case blk_cases[];
extern const size_t blk_nr_cases;
bool blk_option(int opt, const char *arg);

/* Where the cases connect to (-s, -d, -p), and the same link reversed. */
extern struct peer_target target;
extern struct peer_target reverse;
/* Name of the case running, for diagnostics. */
extern const char *cur_case;

__printf(1, 2) void diag(const char *fmt, ...);

/* Check @cond; if false, say why.  Evaluates to @cond, so checks chain. */
#define EXPECT(cond, fmt, ...) \
	((cond) ? true : (diag("FAIL: " fmt, ##__VA_ARGS__), false))

void put_le16(u8 *p, u16 v);
void put_le32(u8 *p, u32 v);
void put_le64(u8 *p, u64 v);
void run_id_init(void);

/* ------------------------------------------------------------------ */
/* Connection establishment                                            */
/* ------------------------------------------------------------------ */

void path_init(struct path *p, u16 con_cnt, u32 gen);
void path_init_sibling(struct path *p, const struct path *sess, u32 gen);
void path_down(struct path *p);
bool expect_refusal(const void *priv, size_t len, u16 reason,
		    struct rift_reject *rej);
int con_req_encode(const struct path *p, u16 idx, u8 *buf);
bool path_connect(struct path *p, u16 idx);

/* ------------------------------------------------------------------ */
/* INFO exchange                                                       */
/* ------------------------------------------------------------------ */

/* The host name the peer's cases use, allow-listed by hostile_peer.sh. */
#define PEER_HOST		"rift-peer"
/* Allow-listed too, with a secret the peer does not know. */
#define PEER_HOST_AUTH		"rift-peer-auth"
/* Allow-listed, no secret: another host than PEER_HOST. */
#define PEER_HOST_OTHER		"rift-peer-other"
/* Not allow-listed. */
#define PEER_HOST_UNKNOWN	"rift-peer-unknown"

int info_req_encode(const char *name, u16 version, u8 *buf, size_t cap);
enum peer_outcome path_try(struct path *p, struct peer_conn **c, u16 *reason);
long long now_ms(void);
long kmsg_count(const char *needle);
const char *outcome_str(enum peer_outcome o);
int info_req_encode_as(const char *name, const char *host, const u8 *proof,
		       u16 version, u8 *buf, size_t cap);
int info_req_encode_feat(const char *name, const char *host, const u8 *proof,
			 u64 feat, u16 version, u8 *buf, size_t cap);
bool send_msg(struct peer_conn *c, const void *msg, size_t len);
bool info_recv(struct path *p, struct peer_conn *c);
bool path_info(struct path *p);
bool path_up_feat(struct path *p, u64 feat);
bool path_up(struct path *p);
bool expect_closed_within(struct peer_conn *c, int ms);
bool expect_closed(struct peer_conn *c);
bool srv_reasons_on(void);
bool expect_closed_for(const struct path *p, struct peer_conn *c, const char *reason);
bool expect_info_refusal(struct path *p, const void *msg, size_t len,
			 int status);

/* ------------------------------------------------------------------ */
/* Immediates and IO                                                   */
/* ------------------------------------------------------------------ */

__be32 imm_raw(u32 type, u32 chunk, u32 arg);
bool send_imm(struct peer_conn *c, __be32 imm);
bool recv_imm(const struct path *p, struct peer_conn *c, struct rift_imm *imm);
bool hb_roundtrip(const struct path *p, struct peer_conn *c, u16 seq);
bool io_build(const struct path *p, struct io *io, u8 dir, u16 chunk,
	      const void *data, u32 data_len, const void *usr, u16 usr_len,
	      const struct rift_rbuf *segs, u16 nr_segs);
bool io_post_raw(const struct path *p, struct peer_conn *c, const struct io *io,
		 __be32 imm);
bool io_post(const struct path *p, struct peer_conn *c, const struct io *io);
bool io_inv_init(const struct path *p, const struct io *io, struct io_inv *inv);
bool io_post_inv_raw(const struct path *p, struct peer_conn *c, const struct io *io,
		     const struct io_inv *inv);
bool io_post_inv(const struct path *p, struct peer_conn *c, const struct io *io);
bool test_write_post(const struct path *p, struct peer_conn *c, u16 chunk, u16 gen,
		     u64 off, const void *data, u32 len);
bool set_param(const char *mod, const char *name, unsigned long long v);
unsigned long long get_param(const char *mod, const char *name, unsigned long long dflt);
bool get_bool_param(const char *mod, const char *name, bool dflt);
long long srv_path_stat(const struct path *p, const char *stat);
bool io_wait(const struct path *p, struct peer_conn *c, u16 chunk, int *err);
void test_hdr_init(struct test_hdr *h, u64 off, u32 len);
bool test_write(const struct path *p, struct peer_conn *c, u16 chunk, u64 off,
		const void *data, u32 len, int *err);
bool test_read_post(const struct path *p, struct peer_conn *c, u16 chunk, u64 off,
		    u32 len, u16 nr_segs, const u8 **out);
bool test_read(const struct path *p, struct peer_conn *c, u16 chunk, u64 off,
	       u32 len, u16 nr_segs, int *err, const u8 **out);
void pattern(u8 *buf, u32 len, u32 seed);
bool expect_errno(int got, int want, const char *what);

#endif /* _RIFT_PEER_LIB_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rift-peer's cases, as the driver (rift-peer.c) that lists them in its
 * table sees them: their functions and the variants a shared one is told
 * in its entry's arg; and what the cases get from elsewhere: the options
 * main() parses for them, and what cases in both files use.
 *
 * The cases by concern: peer-con.c, a session being set up (CON_REQ and
 * CON_RSP, reconnect generations, the INFO exchange, host admission and
 * authentication, the flood); peer-io.c, heartbeats and IO (immediates,
 * RDMA reads and writes, descriptors, chunk reuse, CANCEL, keys);
 * peer-credit.c, memory credits; peer-rinv.c, writes whose key the client
 * invalidates itself (REMOTE_INV); with -B the riftblk ones of peer-blk.c
 * (declared in peer-lib.h).
 */
#ifndef _RIFT_PEER_H
#define _RIFT_PEER_H

#include "peer-lib.h"

/* How long to make sure something does not happen. */
#define QUIET_MS		1000
/* How long rift-test-srv holds back a request a case asks it to hold. */
#define HOLD_MS			800

/* ------------------------------------------------------------------ */
/* Options some cases are told, set by rift-peer.c's main()            */
/* ------------------------------------------------------------------ */

/* -F: CONNECT_REQUESTs the flood case sends at least. */
extern unsigned int flood_n;
/* -L: seconds the flood case goes on at least (0: until -F are sent). */
extern unsigned int flood_secs;

/* -C: connect/refuse cycles the session_churn case runs. */
extern unsigned int churn_n;

/* -V: a session of a kernel client the foreign_join cases attack. */
struct peer_victim {
	bool	set;
	u8	uuid[RIFT_UUID_LEN];
	char	name[RIFT_NAME_MAX + 1];
	char	host[RIFT_NAME_MAX + 1];
};

extern struct peer_victim victim;

/* ------------------------------------------------------------------ */
/* peer-con.c: connection and session setup, admission                 */
/* ------------------------------------------------------------------ */

bool case_con_req_empty(const struct peer_case *tc);
bool case_con_req_garbage(const struct peer_case *tc);

/* Variants of case_con_req_bad, its table entries' arg. */
enum {
	CON_REQ_BAD_MAGIC,
	CON_REQ_ZERO_SESS_UUID,
	CON_REQ_ZERO_PATH_UUID,
	CON_REQ_IDX_RANGE,
	CON_REQ_TOO_MANY_CONS,
	CON_REQ_ZERO_QD,
	CON_REQ_QD_RANGE,
};

bool case_con_req_bad(const struct peer_case *tc);
bool case_con_req_version(const struct peer_case *tc);
bool case_con_req_join_unknown(const struct peer_case *tc);

/* Variants of case_con_second, its table entries' arg. */
enum {
	CON_DUPLICATE,
	CON_CNT_MISMATCH,
	CON_STALE_GEN,
	CON_QD_MISMATCH,
};

bool case_con_second(const struct peer_case *tc);
bool case_con_stale_gen(const struct peer_case *tc);
bool case_con_newer_gen(const struct peer_case *tc);
bool case_con_reconnect(const struct peer_case *tc);
bool case_con_qd_clamped(const struct peer_case *tc);
bool case_msg_before_info(const struct peer_case *tc);

/* Variants of case_info_bad, its table entries' arg. */
enum {
	INFO_GARBAGE,
	INFO_CRITICAL_TLV,
	INFO_BAD_NAME,
	INFO_NO_NAME,
	INFO_WRONG_VERSION,
	INFO_TOTAL_LEN,
};

bool case_info_bad(const struct peer_case *tc);

/* Variants of case_info_size, its table entries' arg. */
enum {
	INFO_MAX_LEN,
	INFO_OVERSIZED,
};

bool case_info_size(const struct peer_case *tc);
bool case_info_waits_for_all_cons(const struct peer_case *tc);

/* Variants of case_session_name, its table entries' arg. */
enum {
	NAME_CLASH,
	NAME_MISMATCH,
	PATH_SAME_ADDR,
	PATH_JOIN,
};

bool case_session_name(const struct peer_case *tc);

/* Variants of case_host_refused, its table entries' arg. */
enum {
	HOST_UNKNOWN,
	HOST_AUTH_NO_PROOF,
	HOST_AUTH_BAD_PROOF,
};

bool case_host_refused(const struct peer_case *tc);
bool case_join_other_host(const struct peer_case *tc);
bool case_join_high_gen(const struct peer_case *tc);
bool case_foreign_join(const struct peer_case *tc);
bool case_flood(const struct peer_case *tc);
bool case_session_churn(const struct peer_case *tc);

/* ------------------------------------------------------------------ */
/* peer-io.c: heartbeats and IO                                        */
/* ------------------------------------------------------------------ */

bool case_hb_echo(const struct peer_case *tc);
bool case_hb_ack_unsolicited(const struct peer_case *tc);
bool case_all_chunks_in_flight(const struct peer_case *tc);
bool case_abort_with_requests(const struct peer_case *tc);
bool case_ulp_error(const struct peer_case *tc);
bool case_write_read(const struct peer_case *tc);
bool case_chunk_reuse_ai(const struct peer_case *tc);
bool case_ai_read_open(const struct peer_case *tc);

/* peer-io.c's always-invalidate helpers, which peer-rinv.c uses too. */
bool path_up_ai(struct path *p);
bool recv_rsp_rkey(const struct path *p, struct peer_conn *c, struct rift_imm *imm,
		   u32 *rkey);
bool expect_write_refused(struct peer_conn *c);

/* Variants of case_cancel_stale, its table entries' arg. */
enum {
	CANCEL_WITH_GEN,
	CANCEL_LEGACY,
};

bool case_cancel_stale(const struct peer_case *tc);

/* Variants of case_rsp_gen, its table entries' arg. */
enum {
	RSP_GEN_ECHO,
	RSP_GEN_OFF,
};

bool case_rsp_gen(const struct peer_case *tc);

/* Variants of case_bad_desc, its table entries' arg. */
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

bool case_bad_desc(const struct peer_case *tc);

/* Variants of case_bad_imm, its table entries' arg. */
enum {
	IMM_ZERO,
	IMM_RESERVED_TYPE,
	IMM_SERVER_TYPE,
	IMM_CHUNK_RANGE,
	IMM_HB_CHUNK,
};

bool case_bad_imm(const struct peer_case *tc);
bool case_send_without_imm(const struct peer_case *tc);
bool case_write_bad_rkey(const struct peer_case *tc);
bool case_cross_session_rkey(const struct peer_case *tc);
bool case_chunk_addrs_opaque(const struct peer_case *tc);
bool case_read_bad_rkey(const struct peer_case *tc);
bool case_silent_peer(const struct peer_case *tc);
bool case_credit_grow(const struct peer_case *tc);

/* peer-credit.c's path setup, which peer-rinv.c uses too. */
bool credit_path_up(struct path *p, unsigned int floor, u64 feat);

/* Variants of case_credit_bad, its table entries' arg. */
enum {
	CREDIT_NOFEAT,
	CREDIT_REQ_WANT_ZERO,
	CREDIT_REQ_WANT_RANGE,
	CREDIT_REQ_CHUNK,
	CREDIT_REQ_FLOOD,
	CREDIT_REL_NOT_GRANTED,
	CREDIT_REL_RANGE,
	CREDIT_REL_TWICE,
	CREDIT_REL_IN_USE,
	CREDIT_REQ_UNGRANTED,
	CREDIT_CANCEL_UNGRANTED_NOFEAT,
	CREDIT_REL_BELOW_FLOOR,
	CREDIT_SRV_OFF,
};

bool case_credit_bad(const struct peer_case *tc);
bool case_credit_cancel_ungranted(const struct peer_case *tc);
bool case_credit_revoke(const struct peer_case *tc);
bool case_credit_pool_enospc(const struct peer_case *tc);
bool case_credit_reclaim_after_answer(const struct peer_case *tc);
bool case_credit_rel_race(const struct peer_case *tc);

/* ------------------------------------------------------------------ */
/* peer-rinv.c: remote invalidation (REMOTE_INV)                       */
/* ------------------------------------------------------------------ */

bool case_rinv_write(const struct peer_case *tc);
bool case_rinv_write_imm(const struct peer_case *tc);
bool case_rinv_wrong_key(const struct peer_case *tc);
bool case_rinv_bad_payload(const struct peer_case *tc);
bool case_rinv_unnegotiated(const struct peer_case *tc);
bool case_rinv_no_ai(const struct peer_case *tc);
bool case_rinv_not_without_ai(const struct peer_case *tc);
bool case_rinv_unanswered(const struct peer_case *tc);
bool case_rinv_stale_key(const struct peer_case *tc);
bool case_rinv_not_granted(const struct peer_case *tc);
bool case_rinv_first_msg(const struct peer_case *tc);
bool case_rinv_imposed(const struct peer_case *tc);

#endif /* _RIFT_PEER_H */

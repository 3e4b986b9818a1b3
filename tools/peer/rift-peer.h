/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rift-peer's cases, as the driver (rift-peer.c) that lists them in its
 * table sees them: their functions, the variants a shared one is told in
 * its entry's arg, and what the cases of several files use.
 *
 * The cases by concern: peer-io.c, heartbeats and IO (immediates, RDMA
 * reads and writes, descriptors, chunk reuse, CANCEL, keys); with -B the
 * riftblk ones of peer-blk.c (declared in peer-lib.h).
 */
#ifndef _RIFT_PEER_H
#define _RIFT_PEER_H

#include "peer-lib.h"

/* How long to make sure something does not happen. */
#define QUIET_MS		1000

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

/* Variants of case_cancel_stale, its table entries' arg. */
enum {
	CANCEL_WITH_GEN,
	CANCEL_LEGACY,
};

bool case_cancel_stale(const struct peer_case *tc);

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

#endif /* _RIFT_PEER_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input format shared by the fuzz target and the seed generator: the first
 * byte picks the decoder, the rest is that decoder's input (see
 * fuzz-proto.c for the per-decoder parameter bytes).
 */
#ifndef _RIFT_FUZZ_H
#define _RIFT_FUZZ_H

enum fuzz_target {
	FUZZ_CON_REQ,
	FUZZ_CON_RSP,
	FUZZ_REJECT,
	FUZZ_INFO,
	FUZZ_IO_DESC,
	FUZZ_IMM,
	FUZZ_RKEY,
	FUZZ_CREDIT,
	FUZZ_WRITE_INV,
	FUZZ_NR,
};

/* FUZZ_INFO: 2 bytes chunk capacity (le16, mod 4097), then the message. */
#define FUZZ_INFO_PARAMS	2
/*
 * FUZZ_IO_DESC: 4 bytes immediate (be32), 1 byte chunk size selector,
 * 1 byte max IO selector, 1 byte segment capacity, then descriptor bytes.
 */
#define FUZZ_IO_PARAMS		7
/* FUZZ_IMM: 4 bytes immediate (be32), 2 bytes nr_chunks (le16). */
#define FUZZ_IMM_PARAMS		6
/* FUZZ_RKEY: 2 bytes chunk id (le16), then the payload. */
#define FUZZ_RKEY_PARAMS	2
/* FUZZ_CREDIT: 2 bytes queue depth (le16), then the CREDIT payload. */
#define FUZZ_CREDIT_PARAMS	2
/* FUZZ_WRITE_INV: 2 bytes nr_chunks (le16), then the SEND_WITH_INV payload. */
#define FUZZ_WRITE_INV_PARAMS	2

#endif /* _RIFT_FUZZ_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input format of the riftblk fuzz target and its seed generator: the
 * first byte picks the decoder, the rest is its input.
 */
#ifndef _RIFTBLK_FUZZ_H
#define _RIFTBLK_FUZZ_H

enum fuzz_riftblk_target {
	FUZZ_BLK_IO,
	FUZZ_BLK_OPEN,
	FUZZ_BLK_DEV_INFO,
	FUZZ_BLK_DEV,
	FUZZ_BLK_ARGS,
	FUZZ_BLK_NR,
};

#endif /* _RIFTBLK_FUZZ_H */

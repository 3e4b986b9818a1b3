// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: the codec (riftblk-proto.c, shared with tools/unit
 * and tools/fuzz) compiled into riftblk-client.  Each module has its own
 * object of it: one object in two modules has no single KBUILD_MODNAME,
 * and 6.12's kbuild warns about it (W=1); see riftblk/Kbuild.
 */
#include "riftblk-proto.c"

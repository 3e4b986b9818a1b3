// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: the module both ends load for the wire codec
 * (riftblk-proto.c, which tools/unit and tools/fuzz compile in user space
 * too).  One copy in the kernel, as rift-core is for the transport's
 * codec: an object linked into two modules has no single KBUILD_MODNAME,
 * and 6.12's kbuild warns about it (W=1).
 */
#include <linux/module.h>

MODULE_DESCRIPTION("Rift block device: wire format shared by client and server");
MODULE_LICENSE("GPL");

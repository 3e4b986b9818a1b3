// SPDX-License-Identifier: GPL-2.0
/*
 * Rift core: code shared by the client and the server side of the
 * transport (wire protocol codec, common helpers).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

static int __init rift_core_init(void)
{
	pr_debug("loaded\n");
	return 0;
}

static void __exit rift_core_exit(void)
{
	pr_debug("unloaded\n");
}

module_init(rift_core_init);
module_exit(rift_core_exit);

MODULE_DESCRIPTION("Rift RDMA transport: shared core");
MODULE_LICENSE("GPL");

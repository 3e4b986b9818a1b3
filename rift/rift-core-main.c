// SPDX-License-Identifier: GPL-2.0
/*
 * Rift core: code shared by the client and the server side of the
 * transport (wire protocol codec, common helpers).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-core.h"

static int __init rift_core_init(void)
{
	int err;

	err = rift_core_ib_init();
	if (err)
		pr_err("cannot register as an RDMA client: %d\n", err);
	return err;
}

static void __exit rift_core_exit(void)
{
	rift_core_ib_exit();
}

module_init(rift_core_init);
module_exit(rift_core_exit);

MODULE_DESCRIPTION("Rift RDMA transport: shared core");
MODULE_LICENSE("GPL");
MODULE_SOFTDEP("pre: hmac sha256");

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift RDMA transport: client side, module entry.
 *
 * The class gives every object this module creates a stable home under
 * /sys/class/rift-client/, which is where users configure it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>

static struct class rift_clt_class = {
	.name = "rift-client",
};

static int __init rift_clt_init(void)
{
	int err;

	err = class_register(&rift_clt_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		return err;
	}
	return 0;
}

static void __exit rift_clt_exit(void)
{
	class_unregister(&rift_clt_class);
}

module_init(rift_clt_init);
module_exit(rift_clt_exit);

MODULE_DESCRIPTION("Rift RDMA transport: client side");
MODULE_LICENSE("GPL");

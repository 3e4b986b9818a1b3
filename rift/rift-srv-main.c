// SPDX-License-Identifier: GPL-2.0
/*
 * Rift RDMA transport: server side, module entry.
 *
 * The class gives every object this module creates a stable home under
 * /sys/class/rift-server/, which is where users configure it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>

static struct class rift_srv_class = {
	.name = "rift-server",
};

static int __init rift_srv_init(void)
{
	int err;

	err = class_register(&rift_srv_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		return err;
	}
	return 0;
}

static void __exit rift_srv_exit(void)
{
	class_unregister(&rift_srv_class);
}

module_init(rift_srv_init);
module_exit(rift_srv_exit);

MODULE_DESCRIPTION("Rift RDMA transport: server side");
MODULE_LICENSE("GPL");

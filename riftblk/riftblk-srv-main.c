// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: server side, module entry.
 *
 * The class gives every object this module creates a stable home under
 * /sys/class/riftblk-server/, which is where users configure it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>

static struct class riftblk_srv_class = {
	.name = "riftblk-server",
};

static int __init riftblk_srv_init(void)
{
	int err;

	err = class_register(&riftblk_srv_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		return err;
	}
	return 0;
}

static void __exit riftblk_srv_exit(void)
{
	class_unregister(&riftblk_srv_class);
}

module_init(riftblk_srv_init);
module_exit(riftblk_srv_exit);

MODULE_DESCRIPTION("Rift block device: server side");
MODULE_LICENSE("GPL");

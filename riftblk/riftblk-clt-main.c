// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client side, module entry.
 *
 * Devices are mapped by writing to /sys/class/riftblk-client/ctl/, so
 * the module owns a class and a control device in it from load time.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kdev_t.h>

static struct class riftblk_clt_class = {
	.name = "riftblk-client",
};

static struct device *riftblk_clt_ctl_dev;

static int __init riftblk_clt_init(void)
{
	int err;

	err = class_register(&riftblk_clt_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		return err;
	}

	riftblk_clt_ctl_dev = device_create(&riftblk_clt_class, NULL,
					    MKDEV(0, 0), NULL, "ctl");
	if (IS_ERR(riftblk_clt_ctl_dev)) {
		err = PTR_ERR(riftblk_clt_ctl_dev);
		pr_err("cannot create control device: %d\n", err);
		goto err_unregister_class;
	}
	return 0;

err_unregister_class:
	class_unregister(&riftblk_clt_class);
	return err;
}

static void __exit riftblk_clt_exit(void)
{
	device_unregister(riftblk_clt_ctl_dev);
	class_unregister(&riftblk_clt_class);
}

module_init(riftblk_clt_init);
module_exit(riftblk_clt_exit);

MODULE_DESCRIPTION("Rift block device: client side");
MODULE_LICENSE("GPL");

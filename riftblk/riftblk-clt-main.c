// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client side, module entry and the map_device file.
 *
 * Devices are mapped by writing to /sys/class/riftblk-client/ctl/
 * map_device (grammar in riftblk-args.c): the line names a session
 * (riftblk-clt-sess.c) and the device to map on it (riftblk-clt-dev.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kdev_t.h>
#include <linux/slab.h>

#include "riftblk-clt.h"

static struct class riftblk_clt_class = {
	.name = "riftblk-client",
};

static struct device *riftblk_clt_ctl_dev;
static int riftblk_clt_map(const char *buf, size_t count)
{
	struct riftblk_parse_err perr;
	struct riftblk_map_args *args;
	struct riftblk_clt_sess *sess;
	int err;

	args = kmalloc(sizeof(*args), GFP_KERNEL);
	if (!args)
		return -ENOMEM;
	err = riftblk_parse_map_args(buf, count, args, &perr);
	if (err) {
		pr_err("map_device: %s: '%s'\n", perr.why, perr.token);
		goto out;
	}
	/* The grammar allows more than the transport gives a session. */
	if (args->nr_poll_queues > RIFT_CLT_MAX_POLL_CONS) {
		pr_err("map_device: nr_poll_queues=%u: at most %u poll queues\n",
		       args->nr_poll_queues, RIFT_CLT_MAX_POLL_CONS);
		err = -EINVAL;
		goto out;
	}
	mutex_lock(&riftblk_clt_lock);
	sess = riftblk_clt_sess_get(args);
	mutex_unlock(&riftblk_clt_lock);
	if (IS_ERR(sess)) {
		err = PTR_ERR(sess);
		goto out;
	}
	err = riftblk_clt_dev_map(sess, args);
	if (err)
		riftblk_clt_sess_put(sess);
out:
	/* It may hold secrets. */
	kfree_sensitive(args);
	return err;
}

static ssize_t map_device_store(struct device *dev, struct device_attribute *attr,
				const char *buf, size_t count)
{
	int err = riftblk_clt_map(buf, count);

	return err ? err : count;
}

static DEVICE_ATTR_WO(map_device);

static struct attribute *riftblk_clt_ctl_attrs[] = {
	&dev_attr_map_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(riftblk_clt_ctl);

static int __init riftblk_clt_init(void)
{
	int err;

	err = riftblk_clt_dev_init();
	if (err)
		return err;
	err = class_register(&riftblk_clt_class);
	if (err) {
		pr_err("cannot register class: %d\n", err);
		goto err_dev;
	}
	riftblk_clt_ctl_dev = device_create_with_groups(&riftblk_clt_class, NULL,
							MKDEV(0, 0), NULL,
							riftblk_clt_ctl_groups, "ctl");
	if (IS_ERR(riftblk_clt_ctl_dev)) {
		err = PTR_ERR(riftblk_clt_ctl_dev);
		pr_err("cannot create control device: %d\n", err);
		goto err_unregister_class;
	}
	return 0;

err_unregister_class:
	class_unregister(&riftblk_clt_class);
err_dev:
	riftblk_clt_dev_exit();
	return err;
}

static void __exit riftblk_clt_exit(void)
{
	/* No map can start: the control file is gone first. */
	device_unregister(riftblk_clt_ctl_dev);
	riftblk_clt_unmap_all();
	class_unregister(&riftblk_clt_class);
	riftblk_clt_dev_exit();
}

module_init(riftblk_clt_init);
module_exit(riftblk_clt_exit);

MODULE_DESCRIPTION("Rift block device: client side");
MODULE_LICENSE("GPL");

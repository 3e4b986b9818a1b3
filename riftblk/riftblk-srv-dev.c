// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: server side, the devices clients map.  One entry
 * per block device with at least one mapping, in the riftblk-server
 * class: /sys/class/riftblk-server/<bdev>/ (path, nr_sessions, and
 * sessions/ where riftblk-srv-main.c lists each mapping).  Holds
 * riftblk_srv_lock, which every change to sessions, devices, mappings
 * and exports takes.  Calls no other file of riftblk's server.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/blkdev.h>

#include "riftblk-srv.h"

static struct class riftblk_srv_class = {
	.name = "riftblk-server",
};

/* Sessions, devices, mappings and exports: every change to them. */
DEFINE_MUTEX(riftblk_srv_lock);
static LIST_HEAD(riftblk_srv_devs);

static struct riftblk_srv_dev *to_srv_dev(struct device *dev)
{
	return container_of(dev, struct riftblk_srv_dev, dev);
}

static ssize_t path_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_srv_dev(dev)->path);
}

static DEVICE_ATTR_RO(path);

static ssize_t nr_sessions_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	unsigned int n;

	/* Without the lock: device removal waits for this reader. */
	n = READ_ONCE(to_srv_dev(dev)->nr_maps);
	return sysfs_emit(buf, "%u\n", n);
}

static DEVICE_ATTR_RO(nr_sessions);

static struct attribute *riftblk_srv_dev_attrs[] = {
	&dev_attr_path.attr,
	&dev_attr_nr_sessions.attr,
	NULL,
};
ATTRIBUTE_GROUPS(riftblk_srv_dev);

static void riftblk_srv_dev_release(struct device *dev)
{
	kfree(to_srv_dev(dev));
}

/**
 * riftblk_srv_dev_get() - the entry of a device, made on its first mapping
 * @bdev: the device, opened by the mapping being made
 * @path: the path its first mapping named, shown in sysfs
 *
 * Caller holds riftblk_srv_lock; the entry lives while it has mappings
 * (riftblk_srv_dev_put()).
 *
 * Return: the entry, or an ERR_PTR.
 */
struct riftblk_srv_dev *riftblk_srv_dev_get(struct block_device *bdev, const char *path)
{
	struct riftblk_srv_dev *d;
	int err;

	lockdep_assert_held(&riftblk_srv_lock);
	list_for_each_entry(d, &riftblk_srv_devs, entry)
		if (d->devt == bdev->bd_dev)
			return d;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	d->devt = bdev->bd_dev;
	strscpy(d->path, path, sizeof(d->path));
	INIT_LIST_HEAD(&d->maps);
	device_initialize(&d->dev);
	d->dev.class = &riftblk_srv_class;
	d->dev.release = riftblk_srv_dev_release;
	d->dev.groups = riftblk_srv_dev_groups;
	err = dev_set_name(&d->dev, "%pg", bdev);
	if (!err)
		err = device_add(&d->dev);
	if (err)
		goto err_put;
	d->sessions_kobj = kobject_create_and_add("sessions", &d->dev.kobj);
	if (!d->sessions_kobj) {
		err = -ENOMEM;
		device_del(&d->dev);
		goto err_put;
	}
	list_add_tail(&d->entry, &riftblk_srv_devs);
	return d;

err_put:
	put_device(&d->dev);
	return ERR_PTR(err);
}

/**
 * riftblk_srv_dev_mapped() - does some session map the device
 * @devt: the device
 *
 * Caller holds riftblk_srv_lock.
 *
 * Return: true while any mapping of @devt is open.
 */
bool riftblk_srv_dev_mapped(dev_t devt)
{
	struct riftblk_srv_dev *d;

	lockdep_assert_held(&riftblk_srv_lock);
	list_for_each_entry(d, &riftblk_srv_devs, entry)
		if (d->devt == devt)
			return d->nr_maps > 0;
	return false;
}

/**
 * riftblk_srv_dev_put() - drop a device's entry once it has no mapping
 * @d: the entry; caller holds riftblk_srv_lock and has counted its
 *	mapping out of ->nr_maps
 */
void riftblk_srv_dev_put(struct riftblk_srv_dev *d)
{
	lockdep_assert_held(&riftblk_srv_lock);
	if (d->nr_maps)
		return;
	list_del(&d->entry);
	kobject_put(d->sessions_kobj);
	device_unregister(&d->dev);
}

/**
 * riftblk_srv_devs_init() - register the riftblk-server class
 *
 * Return: 0 or a negative errno.
 */
int riftblk_srv_devs_init(void)
{
	int err = class_register(&riftblk_srv_class);

	if (err)
		pr_err("cannot register class: %d\n", err);
	return err;
}

/**
 * riftblk_srv_devs_exit() - unregister the class; every mapping is closed
 */
void riftblk_srv_devs_exit(void)
{
	class_unregister(&riftblk_srv_class);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client side, the block device: its disk and tag
 * set, its riftblk/ directory, map and unmap.
 *
 * The IO path is riftblk-clt-mq.c's; the device's state machine and
 * opening it again (remap, a server that lost it) riftblk-clt-recover.c's;
 * its files riftblk-clt-sysfs.c's, but for unmap_device, which is here
 * with the unmap it starts.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <rift/rift-compat.h>
#include "riftblk-clt.h"

#define RIFTBLK_PART_SHIFT	4

static int riftblk_major;
static DEFINE_IDA(riftblk_clt_ida);
static LIST_HEAD(riftblk_clt_devs);

static int riftblk_clt_open_disk(struct gendisk *disk, bool write)
{
	struct riftblk_clt_dev *dev = disk->private_data;
	int err = 0;

	mutex_lock(&dev->lock);
	if (riftblk_clt_dev_unmapping(dev))
		err = -ENXIO;
	else if (write && dev->access_mode == RIFTBLK_ACCESS_RO)
		err = -EROFS;
	else
		dev->open_cnt++;
	mutex_unlock(&dev->lock);
	return err;
}

static void riftblk_clt_release_disk(struct gendisk *disk)
{
	struct riftblk_clt_dev *dev = disk->private_data;

	mutex_lock(&dev->lock);
	dev->open_cnt--;
	mutex_unlock(&dev->lock);
}

RIFT_DEFINE_BDEV_OPS(riftblk_clt)

/* The last reference to the disk is gone: nothing can reach @dev. */
static void riftblk_clt_free_disk(struct gendisk *disk)
{
	struct riftblk_clt_dev *dev = disk->private_data;

	ida_free(&riftblk_clt_ida, dev->idx);
	kfree(dev);
}

static const struct block_device_operations riftblk_clt_fops = {
	.owner		= THIS_MODULE,
	.open		= riftblk_clt_open,
	.release	= riftblk_clt_release,
	.free_disk	= riftblk_clt_free_disk,
};

/* ------------------------------------------------------------------ */
/* sysfs: unmap_device                                                 */
/* ------------------------------------------------------------------ */

static ssize_t unmap_device_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct riftblk_clt_dev *dev = to_clt_dev(kobj);
	bool force;
	int err;

	if (sysfs_streq(buf, "force"))
		force = true;
	else if (sysfs_streq(buf, "1"))
		force = false;
	else
		return -EINVAL;
	/* The file goes with the device: keep the device while it does. */
	kobject_get(kobj);
	err = riftblk_clt_dev_unmap(dev, force, &attr->attr);
	kobject_put(kobj);
	return err ? err : count;
}

static struct kobj_attribute riftblk_clt_attr_unmap_device = __ATTR_WO(unmap_device);

static struct attribute *riftblk_clt_dev_attrs[] = {
	&riftblk_clt_attr_unmap_device.attr,
	NULL,
};

static const struct attribute_group riftblk_clt_dev_group = {
	.attrs	= riftblk_clt_dev_attrs,
};

/* riftblk/: the files of riftblk-clt-sysfs.c, and unmap_device. */
static const struct attribute_group *riftblk_clt_dev_groups[] = {
	&riftblk_clt_sysfs_group,
	&riftblk_clt_dev_group,
	NULL,
};

/* The directory's hold on the disk; the disk's release frees @dev. */
static void riftblk_clt_kobj_release(struct kobject *kobj)
{
	put_disk(to_clt_dev(kobj)->disk);
}

static struct kobj_type riftblk_clt_dev_ktype = {
	.release	= riftblk_clt_kobj_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= riftblk_clt_dev_groups,
};

/* ------------------------------------------------------------------ */
/* Map and unmap                                                       */
/* ------------------------------------------------------------------ */

static int riftblk_clt_dev_setup(struct riftblk_clt_dev *dev)
{
	struct blk_mq_tag_set *set = &dev->tag_set;
	struct gendisk *disk;
	int err;

	set->ops = &riftblk_clt_mq_ops;
	/* One per CPU, each feeding that CPU's connection; then poll queues. */
	set->nr_hw_queues = nr_cpu_ids + dev->nr_poll_queues;
	set->nr_maps = dev->nr_poll_queues ? HCTX_MAX_TYPES : 1;
	set->queue_depth = dev->sess->queue_depth;
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = sizeof(struct riftblk_clt_iu) +
			dev->sess->max_segments * sizeof(struct scatterlist);
	/*
	 * Tags shared across the queues: no more in flight than permits.
	 * Shared tags alone would make blk-mq pick mq-deadline for the
	 * device, as for a single-queue disk; like other multi-queue network
	 * disks it starts without a scheduler (the server's disk has its own),
	 * and the admin may still choose one.
	 */
	set->flags = BLK_MQ_F_SHOULD_MERGE | BLK_MQ_F_TAG_HCTX_SHARED |
		     BLK_MQ_F_NO_SCHED_BY_DEFAULT;
	set->driver_data = dev;
	err = blk_mq_alloc_tag_set(set);
	if (err)
		return err;
	disk = rift_blk_mq_alloc_disk(set, dev);
	if (IS_ERR(disk)) {
		blk_mq_free_tag_set(set);
		return PTR_ERR(disk);
	}
	dev->disk = disk;
	disk->major = riftblk_major;
	disk->first_minor = dev->idx << RIFTBLK_PART_SHIFT;
	disk->minors = 1 << RIFTBLK_PART_SHIFT;
	disk->fops = &riftblk_clt_fops;
	disk->private_data = dev;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "riftblk%d", dev->idx);
	err = riftblk_clt_set_limits(dev);
	if (err) {
		/* Not added: the release does not free @dev. */
		put_disk(disk);
		blk_mq_free_tag_set(set);
		return err;
	}
	set_capacity(disk, dev->info.nr_sectors);
	if (dev->access_mode == RIFTBLK_ACCESS_RO)
		set_disk_ro(disk, true);
	return 0;
}

/*
 * The disk's add event went out before its riftblk/ directory existed,
 * so udev could not name it then: a change event once it does, with the
 * name in the event itself for rules and monitors that read no sysfs.
 * Events udev makes up later (trigger, coldplug) carry no RIFTBLK_*
 * variables: the rule (60-riftblk.rules) reads riftblk/stable_name then.
 */
static void riftblk_clt_dev_uevent(struct riftblk_clt_dev *dev)
{
	char name[RIFTBLK_STABLE_NAME_MAX];
	char *envp[4] = {};
	int err = -ENOMEM;

	riftblk_clt_stable_name(dev, name, sizeof(name));
	envp[0] = kasprintf(GFP_KERNEL, "RIFTBLK_ID=%s", name);
	envp[1] = kasprintf(GFP_KERNEL, "RIFTBLK_SESSION=%s", dev->sess->name);
	envp[2] = kasprintf(GFP_KERNEL, "RIFTBLK_PATH=%s", dev->device_path);
	if (envp[0] && envp[1] && envp[2])
		err = kobject_uevent_env(&disk_to_dev(dev->disk)->kobj,
					 KOBJ_CHANGE, envp);
	/* Only the by-id link is missing until the next event: say so. */
	if (err)
		pr_warn("%s: change event for udev not sent: %d\n",
			dev->disk->disk_name, err);
	kfree(envp[0]);
	kfree(envp[1]);
	kfree(envp[2]);
}

/**
 * riftblk_clt_dev_map() - map a device of the server
 * @sess: session, with a reference the device takes over on success
 * @args: the map_device line
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int riftblk_clt_dev_map(struct riftblk_clt_sess *sess,
			const struct riftblk_map_args *args)
{
	struct riftblk_clt_dev *dev;
	int err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->idx = ida_alloc_max(&riftblk_clt_ida, (1 << (MINORBITS - RIFTBLK_PART_SHIFT)) - 1,
				 GFP_KERNEL);
	if (dev->idx < 0) {
		err = dev->idx;
		kfree(dev);
		return err;
	}
	dev->sess = sess;
	mutex_init(&dev->lock);
	INIT_LIST_HEAD(&dev->entry);
	riftblk_clt_recover_init(dev);
	dev->access_mode = args->access_mode;
	dev->nr_poll_queues = args->nr_poll_queues;
	strscpy(dev->device_path, args->device_path, sizeof(dev->device_path));

	err = riftblk_clt_send_open(sess, dev->device_path, dev->access_mode, &dev->info);
	if (err) {
		/* EACCES: not exported to this host in that mode, see the server's log. */
		pr_err("map_device: server refused %s (%s) on session %s: %pe\n",
		       dev->device_path, riftblk_access_mode_name(dev->access_mode),
		       sess->name, ERR_PTR(err));
		goto err_free;
	}
	dev->dev_id = dev->info.dev_id;
	err = riftblk_clt_dev_setup(dev);
	if (err)
		goto err_close;
	err = add_disk(dev->disk);
	if (err)
		goto err_disk;
	/*
	 * From here the disk's release frees @dev, and the kobject holds the
	 * disk's first reference.
	 */
	kobject_init(&dev->kobj, &riftblk_clt_dev_ktype);
	err = kobject_add(&dev->kobj, &disk_to_dev(dev->disk)->kobj, "riftblk");
	if (err) {
		mutex_lock(&dev->lock);
		spin_lock_irq(&dev->state_lock);
		riftblk_clt_dev_change_state(dev, RIFTBLK_CLT_UNMAPPING);
		spin_unlock_irq(&dev->state_lock);
		mutex_unlock(&dev->lock);
		del_gendisk(dev->disk);
		/* An ESTALE in the partition scan may have queued it. */
		cancel_delayed_work_sync(&dev->recover_work);
		riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_CLOSE, dev->dev_id, NULL);
		blk_mq_free_tag_set(&dev->tag_set);
		kobject_put(&dev->kobj);
		return err;
	}
	riftblk_clt_dev_uevent(dev);
	mutex_lock(&riftblk_clt_lock);
	list_add_tail(&dev->entry, &riftblk_clt_devs);
	mutex_unlock(&riftblk_clt_lock);
	riftblk_clt_size_poll_start(dev);
	pr_info("%s: mapped %s (%s) over session %s: %llu sectors, dev_id %u\n",
		dev->disk->disk_name, dev->device_path,
		riftblk_access_mode_name(dev->access_mode), sess->name,
		dev->info.nr_sectors, dev->dev_id);
	return 0;

err_disk:
	put_disk(dev->disk);
	blk_mq_free_tag_set(&dev->tag_set);
err_close:
	riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_CLOSE, dev->dev_id, NULL);
err_free:
	ida_free(&riftblk_clt_ida, dev->idx);
	kfree(dev);
	return err;
}

/**
 * riftblk_clt_dev_unmap() - unmap a device
 * @dev: device; the caller holds a reference to its kobject
 * @force: unmap even if the device is open (its IO then fails)
 * @self: the sysfs file being written, which is removed first; NULL if
 *	not called from sysfs
 *
 * Return: 0, -EBUSY if open and not @force, -EALREADY if another unmap
 * is going on.
 */
int riftblk_clt_dev_unmap(struct riftblk_clt_dev *dev, bool force,
			  const struct attribute *self)
{
	struct riftblk_clt_sess *sess = dev->sess;
	int err;

	mutex_lock(&dev->lock);
	if (riftblk_clt_dev_unmapping(dev)) {
		mutex_unlock(&dev->lock);
		return -EALREADY;
	}
	if (dev->open_cnt && !force) {
		mutex_unlock(&dev->lock);
		pr_info("%s: not unmapped: open %u times (write 'force' to unmap anyway)\n",
			dev->disk->disk_name, dev->open_cnt);
		return -EBUSY;
	}
	spin_lock_irq(&dev->state_lock);
	riftblk_clt_dev_change_state(dev, RIFTBLK_CLT_UNMAPPING);
	spin_unlock_irq(&dev->state_lock);
	mutex_unlock(&dev->lock);
	/* Removing the directory would otherwise wait for this very write. */
	if (self)
		sysfs_remove_file_self(&dev->kobj, self);

	mutex_lock(&riftblk_clt_lock);
	list_del_init(&dev->entry);
	mutex_unlock(&riftblk_clt_lock);
	cancel_delayed_work_sync(&dev->size_work);
	kobject_del(&dev->kobj);
	/*
	 * Waits for the IO in flight, which the transport completes, and
	 * for requests waiting for a re-open, which then fail or go on.
	 */
	del_gendisk(dev->disk);
	cancel_delayed_work_sync(&dev->recover_work);
	err = riftblk_clt_send_dev(dev->sess, RIFTBLK_MSG_CLOSE, dev->dev_id, NULL);
	if (err)
		pr_info("%s: the server did not confirm the unmap: %d\n",
			dev->disk->disk_name, err);
	pr_info("%s: unmapped %s\n", dev->disk->disk_name, dev->device_path);
	blk_mq_free_tag_set(&dev->tag_set);
	kobject_put(&dev->kobj);
	riftblk_clt_sess_put(sess);
	return 0;
}

/**
 * riftblk_clt_unmap_all() - unmap every device, open or not (module exit)
 */
void riftblk_clt_unmap_all(void)
{
	struct riftblk_clt_dev *dev;

	for (;;) {
		mutex_lock(&riftblk_clt_lock);
		dev = list_first_entry_or_null(&riftblk_clt_devs,
					       struct riftblk_clt_dev, entry);
		if (dev)
			kobject_get(&dev->kobj);
		mutex_unlock(&riftblk_clt_lock);
		if (!dev)
			return;
		riftblk_clt_dev_unmap(dev, true, NULL);
		kobject_put(&dev->kobj);
	}
}

/**
 * riftblk_clt_dev_init() - register the block major
 *
 * Return: 0 or a negative errno.
 */
int riftblk_clt_dev_init(void)
{
	riftblk_major = register_blkdev(0, "riftblk");
	if (riftblk_major < 0) {
		pr_err("cannot register a block major: %d\n", riftblk_major);
		return riftblk_major;
	}
	return 0;
}

/**
 * riftblk_clt_dev_exit() - release the block major
 */
void riftblk_clt_dev_exit(void)
{
	unregister_blkdev(riftblk_major, "riftblk");
	ida_destroy(&riftblk_clt_ida);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: client side, a device's files in
 * /sys/block/riftblk<N>/riftblk/ (Documentation/ABI/testing/
 * sysfs-class-riftblk-client), all but unmap_device: riftblk-clt-dev.c
 * creates the directory with these files and keeps unmap_device beside
 * the unmap it starts, so that calls between the two files go one way.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sysfs.h>

#include "riftblk-clt.h"

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct riftblk_clt_dev *dev = to_clt_dev(kobj);
	enum riftblk_clt_state state = READ_ONCE(dev->state);

	/* The session's link state shows only where the device's says nothing. */
	if (state == RIFTBLK_CLT_MAPPED && READ_ONCE(dev->sess->disconnected))
		return sysfs_emit(buf, "disconnected\n");
	return sysfs_emit(buf, "%s\n", riftblk_clt_state_str(state));
}

static struct kobj_attribute riftblk_clt_attr_state = __ATTR_RO(state);

static ssize_t session_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", to_clt_dev(kobj)->sess->name);
}

static struct kobj_attribute riftblk_clt_attr_session = __ATTR_RO(session);

static ssize_t mapping_path_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_clt_dev(kobj)->device_path);
}

static struct kobj_attribute riftblk_clt_attr_mapping_path = __ATTR_RO(mapping_path);

/**
 * riftblk_clt_stable_name() - the device's stable name
 * @dev: device
 * @buf: where to write it
 * @len: bytes of @buf, RIFTBLK_STABLE_NAME_MAX
 *
 * The name udev links under /dev/disk/by-id/riftblk-<name>: the session
 * and the server's device path, which stay the same across reboots and
 * remaps while riftblkN does not.  A path's '/' would make directories
 * of the link: the leading one is dropped, the others become '_'.
 */
void riftblk_clt_stable_name(struct riftblk_clt_dev *dev, char *buf, size_t len)
{
	const char *p = dev->device_path;
	char *c;

	while (*p == '/')
		p++;
	snprintf(buf, len, "%s-%s", dev->sess->name, p);
	for (c = buf; *c; c++)
		if (*c == '/')
			*c = '_';
}

static ssize_t stable_name_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	char name[RIFTBLK_STABLE_NAME_MAX];

	riftblk_clt_stable_name(to_clt_dev(kobj), name, sizeof(name));
	return sysfs_emit(buf, "%s\n", name);
}

static struct kobj_attribute riftblk_clt_attr_stable_name = __ATTR_RO(stable_name);

static ssize_t access_mode_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  riftblk_access_mode_name(to_clt_dev(kobj)->access_mode));
}

static struct kobj_attribute riftblk_clt_attr_access_mode = __ATTR_RO(access_mode);

static ssize_t nr_poll_queues_show(struct kobject *kobj, struct kobj_attribute *attr,
				   char *buf)
{
	return sysfs_emit(buf, "%u\n", to_clt_dev(kobj)->nr_poll_queues);
}

static struct kobj_attribute riftblk_clt_attr_nr_poll_queues = __ATTR_RO(nr_poll_queues);

static ssize_t remap_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int err;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	err = riftblk_clt_remap(to_clt_dev(kobj));
	return err ? err : count;
}

static struct kobj_attribute riftblk_clt_attr_remap = __ATTR_WO(remap);

static struct attribute *riftblk_clt_sysfs_attrs[] = {
	&riftblk_clt_attr_state.attr,
	&riftblk_clt_attr_session.attr,
	&riftblk_clt_attr_mapping_path.attr,
	&riftblk_clt_attr_stable_name.attr,
	&riftblk_clt_attr_access_mode.attr,
	&riftblk_clt_attr_nr_poll_queues.attr,
	&riftblk_clt_attr_remap.attr,
	NULL,
};

const struct attribute_group riftblk_clt_sysfs_group = {
	.attrs	= riftblk_clt_sysfs_attrs,
};

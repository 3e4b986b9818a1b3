// SPDX-License-Identifier: GPL-2.0
/*
 * Rift: the sysfs files every path has in both roles, and the per-CPU
 * counter sums both roles' stats files show.  A role embeds struct
 * rift_path_base in its path and adds rift_path_base_group to the path's
 * directory; what differs (state names, last_error, pinned memory) stays
 * with the role.
 */
#include <linux/module.h>
#include <linux/sysfs.h>
#include <linux/percpu.h>

#include "rift-core.h"

#define to_base(k) container_of(k, struct rift_path_base, kobj)

static ssize_t src_addr_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct rift_path_base *base = to_base(kobj);

	/* A client path may leave the source to the routing. */
	if (base->src.ss_family == AF_UNSPEC)
		return sysfs_emit(buf, "any\n");
	return sysfs_emit(buf, "%pISc\n", &base->src);
}

static struct kobj_attribute rift_path_src_attr = __ATTR_RO(src_addr);

static ssize_t dst_addr_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%pISpc\n", &to_base(kobj)->dst);
}

static struct kobj_attribute rift_path_dst_attr = __ATTR_RO(dst_addr);

static ssize_t hca_name_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", to_base(kobj)->hca_name);
}

static struct kobj_attribute rift_path_hca_name_attr = __ATTR_RO(hca_name);

static ssize_t hca_port_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", to_base(kobj)->hca_port);
}

static struct kobj_attribute rift_path_hca_port_attr = __ATTR_RO(hca_port);

static struct attribute *rift_path_base_attrs[] = {
	&rift_path_src_attr.attr,
	&rift_path_dst_attr.attr,
	&rift_path_hca_name_attr.attr,
	&rift_path_hca_port_attr.attr,
	NULL,
};

const struct attribute_group rift_path_base_group = {
	.attrs = rift_path_base_attrs,
};
EXPORT_SYMBOL_GPL(rift_path_base_group);

/**
 * rift_stat_sum() - the value of a per-CPU counter file
 * @stats: the role's per-CPU stats struct of the path
 * @attr: the file, embedded in a struct rift_stat_attr
 *
 * Counters are only ever added to on their own CPU: the sum is a
 * moment's value, like any other statistics file.
 *
 * Return: the counter summed over every possible CPU.
 */
u64 rift_stat_sum(const void __percpu *stats, const struct kobj_attribute *attr)
{
	size_t off = container_of(attr, struct rift_stat_attr, attr)->off;
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(const u64 *)((const u8 *)per_cpu_ptr(stats, cpu) + off);
	return sum;
}
EXPORT_SYMBOL_GPL(rift_stat_sum);

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift: the sysfs files every path has in both roles, and the per-CPU
 * counter sums both roles' stats files show.  A role embeds struct
 * rift_path_base in its path and adds rift_path_base_group and
 * rift_path_stats_group to the path's directory; what differs (its
 * state names, its other counters, pinned memory, disconnect) stays with
 * the role.
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

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct rift_path_base *base = to_base(kobj);

	return sysfs_emit(buf, "%s\n", base->state_str(base));
}

static struct kobj_attribute rift_path_state_attr = __ATTR_RO(state);

static ssize_t last_error_show(struct kobject *kobj, struct kobj_attribute *attr,
			       char *buf)
{
	struct rift_path_base *base = to_base(kobj);
	ssize_t n;

	spin_lock_irq(&base->lock);
	n = sysfs_emit(buf, "%s\n", base->last_error);
	spin_unlock_irq(&base->lock);
	return n;
}

static struct kobj_attribute rift_path_last_error_attr = __ATTR_RO(last_error);

static struct attribute *rift_path_base_attrs[] = {
	&rift_path_src_attr.attr,
	&rift_path_dst_attr.attr,
	&rift_path_hca_name_attr.attr,
	&rift_path_hca_port_attr.attr,
	&rift_path_state_attr.attr,
	&rift_path_last_error_attr.attr,
	NULL,
};

const struct attribute_group rift_path_base_group = {
	.attrs = rift_path_base_attrs,
};
EXPORT_SYMBOL_GPL(rift_path_base_group);

/**
 * rift_path_vset_error() - say why a path failed, in its last_error
 * @base: the path; the caller holds @base->lock (it changes the role's
 *	state in the same section, so the file never shows one without
 *	the other)
 * @fmt: the reason
 * @ap: its arguments, read through a copy: the caller logs them too
 */
void rift_path_vset_error(struct rift_path_base *base, const char *fmt, va_list ap)
{
	va_list aq;

	lockdep_assert_held(&base->lock);
	va_copy(aq, ap);
	vscnprintf(base->last_error, sizeof(base->last_error), fmt, aq);
	va_end(aq);
}
EXPORT_SYMBOL_GPL(rift_path_vset_error);

/*
 * Counters are only ever added to on their own CPU: the sum is a
 * moment's value, like any other statistics file.
 */
static u64 rift_stat_sum(const void __percpu *stats, const struct kobj_attribute *attr)
{
	size_t off = container_of(attr, struct rift_stat_attr, attr)->off;
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(const u64 *)((const u8 *)per_cpu_ptr(stats, cpu) + off);
	return sum;
}

/**
 * rift_path_stat_show() - show a per-CPU counter of a path, either role's
 * @kobj: the path's directory (struct rift_path_base.kobj)
 * @attr: the file, embedded in a struct rift_stat_attr (RIFT_STAT_ATTR())
 * @buf: where the value goes
 *
 * Return: bytes written to @buf: the counter summed over every possible CPU.
 */
ssize_t rift_path_stat_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%llu\n", rift_stat_sum(to_base(kobj)->stats, attr));
}
EXPORT_SYMBOL_GPL(rift_path_stat_show);

static struct rift_stat_attr rift_path_stat_counters[] = {
	RIFT_STAT_ATTR(reqs_read, struct rift_path_stats, reqs_read),
	RIFT_STAT_ATTR(reqs_write, struct rift_path_stats, reqs_write),
	RIFT_STAT_ATTR(bytes_read, struct rift_path_stats, bytes_read),
	RIFT_STAT_ATTR(bytes_write, struct rift_path_stats, bytes_write),
	RIFT_STAT_ATTR(errors, struct rift_path_stats, errors),
};

static ssize_t inflight_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&to_base(kobj)->inflight));
}

static struct kobj_attribute rift_path_inflight_attr = __ATTR_RO(inflight);

static struct attribute *rift_path_stats_attrs[] = {
	&rift_path_stat_counters[0].attr.attr,
	&rift_path_stat_counters[1].attr.attr,
	&rift_path_stat_counters[2].attr.attr,
	&rift_path_stat_counters[3].attr.attr,
	&rift_path_stat_counters[4].attr.attr,
	&rift_path_inflight_attr.attr,
	NULL,
};

/* A counter added above must be listed there too. */
static_assert(ARRAY_SIZE(rift_path_stats_attrs) == ARRAY_SIZE(rift_path_stat_counters) + 2);

/*
 * paths/<name>/stats/: the counters both roles have; a role merges its
 * own into the same directory (sysfs_merge_group()).
 */
const struct attribute_group rift_path_stats_group = {
	.name = "stats",
	.attrs = rift_path_stats_attrs,
};
EXPORT_SYMBOL_GPL(rift_path_stats_group);

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: sysfs.  /sys/class/rift-client/<session>/ and its
 * paths/<path>/ directories; see Documentation/ABI/testing/sysfs-class-rift-client.
 * The files that add and remove paths are in rift-clt-main.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/inet.h>

#include "rift-clt.h"

#define to_path(k) container_of(k, struct rift_clt_path, base.kobj)
#define to_sess(d) container_of(d, struct rift_clt_sess, dev)

/**
 * rift_clt_parse_addr() - parse "[ip:]ADDR" into a socket address
 * @s: text, not NUL-terminated
 * @len: bytes of @s
 * @ss: result
 * @port: port to set
 *
 * Return: 0 or -EINVAL.
 */
int rift_clt_parse_addr(const char *s, size_t len, struct sockaddr_storage *ss,
			u16 port)
{
	char addr[INET6_ADDRSTRLEN + 16], portstr[8];
	const char *end;
	size_t alen;
	u8 bin[16];

	if (len > 3 && !strncmp(s, "ip:", 3)) {
		s += 3;
		len -= 3;
	}
	if (!len || len >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, s, len);
	addr[len] = '\0';
	/*
	 * The kernel's parsers stop at the first character that cannot
	 * continue an address (in4_pton() ends at a ':'), so "1.2.3.4:junk"
	 * would pass: insist that the address is the whole text, up to a
	 * '%' scope of an IPv6 one.
	 */
	alen = strcspn(addr, "%");
	if (!in4_pton(addr, len, bin, -1, &end) || end != addr + len) {
		if (!in6_pton(addr, alen, bin, -1, &end) || end != addr + alen)
			return -EINVAL;
	}
	snprintf(portstr, sizeof(portstr), "%u", port);
	return inet_pton_with_scope(&init_net, AF_UNSPEC, addr, portstr, ss) ?
		-EINVAL : 0;
}

/**
 * rift_clt_parse_path() - parse a path: "[ip:]SRC@[ip:]DST" or "[ip:]DST"
 * @buf: NUL-terminated text; one trailing newline is ignored
 * @src: source, family AF_UNSPEC when not given
 * @dst: destination
 * @port: server port
 *
 * Return: 0 or -EINVAL.
 */
int rift_clt_parse_path(const char *buf, struct sockaddr_storage *src,
			struct sockaddr_storage *dst, u16 port)
{
	size_t len = strcspn(buf, "\n");
	const char *at = strnchr(buf, len, '@');

	memset(src, 0, sizeof(*src));
	src->ss_family = AF_UNSPEC;
	if (buf[len] == '\n' && buf[len + 1])
		return -EINVAL;
	if (!at)
		return rift_clt_parse_addr(buf, len, dst, port);
	if (rift_clt_parse_addr(buf, at - buf, src, 0) ||
	    rift_clt_parse_addr(at + 1, len - (at + 1 - buf), dst, port))
		return -EINVAL;
	/* No route joins two families: refuse now, not by a failed connect. */
	return src->ss_family == dst->ss_family ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(rift_clt_parse_path);

/* Session attributes. */

static ssize_t queue_depth_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sess(dev)->queue_depth);
}

static DEVICE_ATTR_RO(queue_depth);

static ssize_t max_io_size_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sess(dev)->max_io_size);
}

static DEVICE_ATTR_RO(max_io_size);

static ssize_t connected_paths_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&to_sess(dev)->connected));
}

static DEVICE_ATTR_RO(connected_paths);

static ssize_t pinned_bytes_show(struct device *dev, struct device_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%llu\n", rift_clt_sess_pinned_bytes(to_sess(dev)));
}

static DEVICE_ATTR_RO(pinned_bytes);

static ssize_t nr_cons_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sess(dev)->nr_cons);
}

static DEVICE_ATTR_RO(nr_cons);

static ssize_t nr_poll_cons_show(struct device *dev, struct device_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sess(dev)->nr_poll_cons);
}

static DEVICE_ATTR_RO(nr_poll_cons);

static ssize_t mp_policy_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  rift_clt_mp_policy_str(READ_ONCE(to_sess(dev)->mp_policy)));
}

static ssize_t mp_policy_store(struct device *dev, struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct rift_clt_sess *sess = to_sess(dev);
	int p = rift_clt_mp_policy_parse(buf);

	if (p < 0) {
		pr_info_ratelimited("%s: mp_policy: unknown policy '%.*s'\n", sess->name,
				    (int)strcspn(buf, "\n"), buf);
		return p;
	}
	WRITE_ONCE(sess->mp_policy, p);
	return count;
}

static DEVICE_ATTR_RW(mp_policy);

/*
 * Numeric session tunables: each a u32 or int field of the session with
 * its range; a value out of range is refused whole, never clamped, so the
 * file always reads back what was written.
 */
struct rift_clt_tunable {
	struct device_attribute	attr;
	size_t			off;
	s64			min;
	s64			max;
	bool			is_int;
};

static ssize_t rift_clt_tunable_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	const struct rift_clt_tunable *t =
		container_of(attr, struct rift_clt_tunable, attr);
	void *field = (void *)to_sess(dev) + t->off;

	if (t->is_int)
		return sysfs_emit(buf, "%d\n", READ_ONCE(*(int *)field));
	return sysfs_emit(buf, "%u\n", READ_ONCE(*(u32 *)field));
}

static ssize_t rift_clt_tunable_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	const struct rift_clt_tunable *t =
		container_of(attr, struct rift_clt_tunable, attr);
	struct rift_clt_sess *sess = to_sess(dev);
	void *field = (void *)sess + t->off;
	s64 v;

	if (kstrtos64(buf, 0, &v) || v < t->min || v > t->max) {
		pr_info_ratelimited("%s: %s: '%.*s' is not a number in %lld..%lld\n",
				    sess->name, attr->attr.name,
				    (int)strcspn(buf, "\n"), buf, t->min, t->max);
		return -EINVAL;
	}
	if (t->is_int)
		WRITE_ONCE(*(int *)field, (int)v);
	else
		WRITE_ONCE(*(u32 *)field, (u32)v);
	/* A shorter tick must not wait for the end of the current one. */
	if (t->off == offsetof(struct rift_clt_sess, hb_interval_ms))
		rift_clt_sess_hb_rearm(sess);
	return count;
}

#define RIFT_CLT_TUNABLE(_file, _field, _min, _max, _int) {		\
	.attr = {							\
		.attr = { .name = _file, .mode = 0644 },		\
		.show = rift_clt_tunable_show,				\
		.store = rift_clt_tunable_store,			\
	},								\
	.off = offsetof(struct rift_clt_sess, _field),			\
	.min = (_min),							\
	.max = (_max),							\
	.is_int = (_int),						\
}

static struct rift_clt_tunable rift_clt_tunables[] = {
	RIFT_CLT_TUNABLE("io_timeout_ms", io_timeout_ms, 0,
			 RIFT_CLT_IO_TIMEOUT_MAX_MS, false),
	RIFT_CLT_TUNABLE("hb_interval_ms", hb_interval_ms, RIFT_HB_INTERVAL_MIN_MS,
			 RIFT_HB_INTERVAL_MAX_MS, false),
	RIFT_CLT_TUNABLE("hb_missed_max", hb_missed_max, RIFT_HB_MISSED_MIN,
			 RIFT_HB_MISSED_LIMIT, false),
	RIFT_CLT_TUNABLE("stall_timeout_ms", stall_timeout_ms,
			 RIFT_CLT_STALL_TIMEOUT_MIN_MS,
			 RIFT_CLT_STALL_TIMEOUT_MAX_MS, false),
	RIFT_CLT_TUNABLE("reconnect_delay_ms", reconnect_delay_ms,
			 RIFT_CLT_RECONNECT_DELAY_MIN_MS,
			 RIFT_CLT_RECONNECT_DELAY_MAX_MS, false),
	RIFT_CLT_TUNABLE("reconnect_delay_max_ms", reconnect_delay_max_ms,
			 RIFT_CLT_RECONNECT_DELAY_MIN_MS,
			 RIFT_CLT_RECONNECT_DELAY_MAX_MS, false),
	RIFT_CLT_TUNABLE("max_reconnect_attempts", max_reconnect_attempts, -1,
			 INT_MAX, true),
	RIFT_CLT_TUNABLE("always_invalidate", always_inv, 0, 1, false),
};

static ssize_t failed_over_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&to_sess(dev)->failed_over));
}

static DEVICE_ATTR_RO(failed_over);

static ssize_t failover_errors_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_sess(dev)->failover_errors));
}

static DEVICE_ATTR_RO(failover_errors);

static ssize_t pending_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_sess(dev)->nr_pending));
}

static DEVICE_ATTR_RO(pending);

/* A tunable added above must be listed below too. */
static_assert(ARRAY_SIZE(rift_clt_tunables) == 8);

static struct attribute *rift_clt_sess_attrs[] = {
	&dev_attr_queue_depth.attr,
	&dev_attr_max_io_size.attr,
	&dev_attr_connected_paths.attr,
	&dev_attr_nr_cons.attr,
	&dev_attr_nr_poll_cons.attr,
	&dev_attr_pinned_bytes.attr,
	&dev_attr_mp_policy.attr,
	&dev_attr_failed_over.attr,
	&dev_attr_failover_errors.attr,
	&dev_attr_pending.attr,
	&rift_clt_tunables[0].attr.attr,
	&rift_clt_tunables[1].attr.attr,
	&rift_clt_tunables[2].attr.attr,
	&rift_clt_tunables[3].attr.attr,
	&rift_clt_tunables[4].attr.attr,
	&rift_clt_tunables[5].attr.attr,
	&rift_clt_tunables[6].attr.attr,
	&rift_clt_tunables[7].attr.attr,
	NULL,
};

const struct attribute_group rift_clt_sess_group = {
	.attrs = rift_clt_sess_attrs,
};

/* Path attributes: state and last_error are rift-core's. */

static ssize_t bounce_bytes_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(to_path(kobj)->bounce_bytes));
}

static struct kobj_attribute rift_clt_path_bounce_bytes_attr = __ATTR_RO(bounce_bytes);

static ssize_t disconnect_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	if (!rift_clt_sysfs_yes(buf))
		return -EINVAL;
	rift_clt_path_disconnect(to_path(kobj));
	return count;
}

static struct kobj_attribute rift_clt_path_disconnect_attr = __ATTR_WO(disconnect);

static ssize_t reconnect_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	if (!rift_clt_sysfs_yes(buf))
		return -EINVAL;
	rift_clt_path_reconnect(to_path(kobj));
	return count;
}

static struct kobj_attribute rift_clt_path_reconnect_attr = __ATTR_WO(reconnect);

static ssize_t always_invalidate_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_path(kobj)->always_inv));
}

static struct kobj_attribute rift_clt_path_always_inv_attr =
	__ATTR_RO(always_invalidate);

static ssize_t remote_invalidate_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_path(kobj)->remote_inv));
}

static struct kobj_attribute rift_clt_path_remote_inv_attr =
	__ATTR_RO(remote_invalidate);

/*
 * Memory credits: the chunks the server grants the path instance now
 * (every chunk without the feature; 0 before the first instance).
 */
static ssize_t granted_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_path(kobj)->cr.nr_granted));
}

static struct kobj_attribute rift_clt_path_granted_attr = __ATTR_RO(granted);

static ssize_t credits_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_path(kobj)->credits));
}

static struct kobj_attribute rift_clt_path_credits_attr = __ATTR_RO(credits);

static struct attribute *rift_clt_path_attrs[] = {
	&rift_clt_path_bounce_bytes_attr.attr,
	&rift_clt_path_disconnect_attr.attr,
	&rift_clt_path_reconnect_attr.attr,
	&rift_clt_path_always_inv_attr.attr,
	&rift_clt_path_remote_inv_attr.attr,
	&rift_clt_path_granted_attr.attr,
	&rift_clt_path_credits_attr.attr,
	NULL,
};

static const struct attribute_group rift_clt_path_group = {
	.attrs = rift_clt_path_attrs,
};

/* What both roles' paths show (rift-core), then what a client's adds. */
static const struct attribute_group *rift_clt_path_groups[] = {
	&rift_path_base_group,
	&rift_path_stats_group,
	&rift_clt_path_group,
	NULL,
};

/*
 * Path statistics: the client's own per-CPU counters, each shown as the
 * sum over all CPUs, beside rift-core's in the same stats/ directory.
 */
static struct rift_stat_attr rift_clt_stat_counters[] = {
	RIFT_STAT_ATTR(migrations, struct rift_clt_stats, migrations),
	RIFT_STAT_ATTR(failovers, struct rift_clt_stats, failovers),
	RIFT_STAT_ATTR(rkey_updates, struct rift_clt_stats, rkey_updates),
	RIFT_STAT_ATTR(timeouts, struct rift_clt_stats, timeouts),
	RIFT_STAT_ATTR(late_responses, struct rift_clt_stats, late_responses),
	RIFT_STAT_ATTR(stale_responses, struct rift_clt_stats, stale_responses),
	RIFT_STAT_ATTR(bounced_reads, struct rift_clt_stats, bounced_reads),
	RIFT_STAT_ATTR(sends_awaited, struct rift_clt_stats, sends_awaited),
	RIFT_STAT_ATTR(poll_completions, struct rift_clt_stats, poll_completions),
	RIFT_STAT_ATTR(poll_tick_completions, struct rift_clt_stats,
		       poll_tick_completions),
	RIFT_STAT_ATTR(stall_probes, struct rift_clt_stats, stall_probes),
	RIFT_STAT_ATTR(stalls, struct rift_clt_stats, stalls),
	RIFT_STAT_ATTR(posts, struct rift_clt_stats, posts),
	RIFT_STAT_ATTR(credit_reqs, struct rift_clt_stats, credit_reqs),
	RIFT_STAT_ATTR(credits, struct rift_clt_stats, credits),
	RIFT_STAT_ATTR(credit_rels, struct rift_clt_stats, credit_rels),
};

static ssize_t reconnects_show(struct kobject *kobj, struct kobj_attribute *attr,
			       char *buf)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(to_path(kobj)->reconnects));
}

static struct kobj_attribute rift_clt_stat_reconnects = __ATTR_RO(reconnects);

static ssize_t rtt_us_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_path(kobj)->hb.rtt_us));
}

static struct kobj_attribute rift_clt_stat_rtt_us = __ATTR_RO(rtt_us);

static ssize_t reset_all_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	struct rift_clt_path *path = to_path(kobj);
	int cpu;

	if (!rift_clt_sysfs_yes(buf))
		return -EINVAL;
	/* rift-core's counters too: they begin the struct. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(path->stats, cpu), 0, sizeof(struct rift_clt_stats));
	WRITE_ONCE(path->reconnects, 0);
	return count;
}

static struct kobj_attribute rift_clt_stat_reset_all = __ATTR_WO(reset_all);

static struct attribute *rift_clt_stats_attrs[] = {
	&rift_clt_stat_counters[0].attr.attr,
	&rift_clt_stat_counters[1].attr.attr,
	&rift_clt_stat_counters[2].attr.attr,
	&rift_clt_stat_counters[3].attr.attr,
	&rift_clt_stat_counters[4].attr.attr,
	&rift_clt_stat_counters[5].attr.attr,
	&rift_clt_stat_counters[6].attr.attr,
	&rift_clt_stat_counters[7].attr.attr,
	&rift_clt_stat_counters[8].attr.attr,
	&rift_clt_stat_counters[9].attr.attr,
	&rift_clt_stat_counters[10].attr.attr,
	&rift_clt_stat_counters[11].attr.attr,
	&rift_clt_stat_counters[12].attr.attr,
	&rift_clt_stat_counters[13].attr.attr,
	&rift_clt_stat_counters[14].attr.attr,
	&rift_clt_stat_counters[15].attr.attr,
	&rift_clt_stat_reconnects.attr,
	&rift_clt_stat_rtt_us.attr,
	&rift_clt_stat_reset_all.attr,
	NULL,
};

/* A counter added above must be listed there too. */
static_assert(ARRAY_SIZE(rift_clt_stats_attrs) == ARRAY_SIZE(rift_clt_stat_counters) + 4);
/* rift-core's files read the counters both roles have from the start. */
static_assert(offsetof(struct rift_clt_stats, base) == 0);

/* Merged into rift-core's stats/ (rift_path_stats_group). */
static const struct attribute_group rift_clt_stats_group = {
	.name = "stats",
	.attrs = rift_clt_stats_attrs,
};

/**
 * rift_clt_path_sysfs_add() - create paths/<name>/ and its stats/
 * @path: path
 *
 * Return: 0 or a negative errno (nothing created then).
 */
int rift_clt_path_sysfs_add(struct rift_clt_path *path)
{
	int err;

	err = kobject_add(&path->base.kobj, path->sess->paths_kobj, "%s",
			  path->base.name);
	if (err)
		return err;
	err = sysfs_create_groups(&path->base.kobj, rift_clt_path_groups);
	if (err)
		goto err_del;
	err = sysfs_merge_group(&path->base.kobj, &rift_clt_stats_group);
	if (err)
		goto err_remove;
	return 0;

err_remove:
	sysfs_remove_groups(&path->base.kobj, rift_clt_path_groups);
err_del:
	kobject_del(&path->base.kobj);
	return err;
}

/**
 * rift_clt_path_sysfs_del() - remove what rift_clt_path_sysfs_add() made
 * @path: path; safe to call on a path never added
 */
void rift_clt_path_sysfs_del(struct rift_clt_path *path)
{
	if (!path->base.kobj.state_in_sysfs)
		return;
	/* Its groups, stats/ with what was merged into it, go with it. */
	kobject_del(&path->base.kobj);
}

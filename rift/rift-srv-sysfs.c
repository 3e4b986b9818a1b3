// SPDX-License-Identifier: GPL-2.0
/*
 * Rift server: sysfs.  /sys/class/rift-server/<session>/ and its
 * paths/<path>/ directories; see
 * Documentation/ABI/testing/sysfs-class-rift-server.
 *
 * A session appears once its name is known (the first INFO_REQ), a path
 * once it has sent its INFO_REQ; both disappear when torn down.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "rift-srv.h"

#define to_sess(d) container_of(d, struct rift_srv_sess, dev)
#define to_path(k) container_of(k, struct rift_srv_path, base.kobj)

/* Session attributes. */

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  rift_srv_sess_state_str(READ_ONCE(to_sess(dev)->state)));
}

static DEVICE_ATTR_RO(state);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sess(dev)->port);
}

static DEVICE_ATTR_RO(port);

static ssize_t queue_depth_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sess(dev)->queue_depth);
}

static DEVICE_ATTR_RO(queue_depth);

static ssize_t chunk_size_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sess(dev)->chunk_size);
}

static DEVICE_ATTR_RO(chunk_size);

static ssize_t max_io_size_show(struct device *dev, struct device_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%u\n", to_sess(dev)->max_io_size);
}

static DEVICE_ATTR_RO(max_io_size);

static ssize_t pinned_bytes_show(struct device *dev, struct device_attribute *attr,
				 char *buf)
{
	/* Closing paths too: their chunks stay until the ULP answered. */
	return sysfs_emit(buf, "%llu\n", (u64)atomic64_read(&to_sess(dev)->pinned));
}

static DEVICE_ATTR_RO(pinned_bytes);

static ssize_t writes_refused_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_sess(dev)->writes_refused));
}

static DEVICE_ATTR_RO(writes_refused);

/* Fixed before the directory exists, like the name. */
static ssize_t host_name_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%s\n", to_sess(dev)->host_name);
}

static DEVICE_ATTR_RO(host_name);

static ssize_t host_uuid_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%pUb\n", to_sess(dev)->host_uuid);
}

static DEVICE_ATTR_RO(host_uuid);

static ssize_t uuid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%pUb\n", to_sess(dev)->uuid);
}

static DEVICE_ATTR_RO(uuid);

static ssize_t authenticated_show(struct device *dev, struct device_attribute *attr,
				  char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_sess(dev)->authenticated));
}

static DEVICE_ATTR_RO(authenticated);

static struct attribute *rift_srv_sess_attrs[] = {
	&dev_attr_state.attr,
	&dev_attr_port.attr,
	&dev_attr_queue_depth.attr,
	&dev_attr_chunk_size.attr,
	&dev_attr_max_io_size.attr,
	&dev_attr_pinned_bytes.attr,
	&dev_attr_writes_refused.attr,
	&dev_attr_host_name.attr,
	&dev_attr_host_uuid.attr,
	&dev_attr_uuid.attr,
	&dev_attr_authenticated.attr,
	NULL,
};

static const struct attribute_group rift_srv_sess_group = {
	.attrs = rift_srv_sess_attrs,
};

const struct attribute_group *rift_srv_sess_groups[] = {
	&rift_srv_sess_group,
	NULL,
};

/**
 * rift_srv_sess_sysfs_add() - register a session's device under its name
 * @sess: session whose name was just set; caller holds its lock
 *
 * Return: 0, or a negative errno with nothing registered.
 */
int rift_srv_sess_sysfs_add(struct rift_srv_sess *sess)
{
	int err;

	err = dev_set_name(&sess->dev, "%s", sess->name);
	if (err)
		return err;
	err = device_add(&sess->dev);
	if (err)
		return err;
	sess->paths_kobj = kobject_create_and_add("paths", &sess->dev.kobj);
	if (!sess->paths_kobj) {
		device_del(&sess->dev);
		return -ENOMEM;
	}
	return 0;
}

/**
 * rift_srv_sess_sysfs_del() - undo rift_srv_sess_sysfs_add()
 * @sess: session, possibly never registered
 */
void rift_srv_sess_sysfs_del(struct rift_srv_sess *sess)
{
	if (sess->paths_kobj) {
		kobject_del(sess->paths_kobj);
		kobject_put(sess->paths_kobj);
		sess->paths_kobj = NULL;
	}
	if (device_is_registered(&sess->dev))
		device_del(&sess->dev);
}

/* Path attributes: state and last_error are rift-core's. */

static ssize_t con_states_show(struct kobject *kobj, struct kobj_attribute *attr,
			       char *buf)
{
	struct rift_srv_path *path = to_path(kobj);
	int len = 0;
	u16 i;

	for (i = 0; i < path->con_cnt; i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? " " : "",
				     rift_srv_con_state_str(READ_ONCE(path->cons[i].state)));
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static struct kobj_attribute rift_srv_path_con_states_attr = __ATTR_RO(con_states);

static ssize_t path_pinned_bytes_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", rift_srv_path_pinned_bytes(to_path(kobj)));
}

static struct kobj_attribute rift_srv_path_pinned_bytes_attr =
	__ATTR(pinned_bytes, 0444, path_pinned_bytes_show, NULL);

/* Chunks and everything else the path instance holds (memory credits). */
static ssize_t held_bytes_show(struct kobject *kobj, struct kobj_attribute *attr,
			       char *buf)
{
	return sysfs_emit(buf, "%llu\n", rift_srv_path_held_bytes(to_path(kobj)));
}

static struct kobj_attribute rift_srv_path_held_bytes_attr = __ATTR_RO(held_bytes);

/* Memory credits: the chunks granted to the client right now. */
static ssize_t granted_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_path(kobj)->nr_granted));
}

static struct kobj_attribute rift_srv_path_granted_attr = __ATTR_RO(granted);

static ssize_t disconnect_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	/*
	 * Only queue the teardown: it removes this very file, which waits
	 * for this write to return, so doing it here would deadlock or,
	 * done carelessly, free the path under us (CVE-2024-50062).  The
	 * path stays alive until the close work's final put, after that
	 * removal.
	 */
	rift_srv_path_fail(to_path(kobj), "disconnected through sysfs");
	return count;
}

static struct kobj_attribute rift_srv_path_disconnect_attr = __ATTR_WO(disconnect);

static struct attribute *rift_srv_path_attrs[] = {
	&rift_srv_path_con_states_attr.attr,
	&rift_srv_path_pinned_bytes_attr.attr,
	&rift_srv_path_held_bytes_attr.attr,
	&rift_srv_path_granted_attr.attr,
	&rift_srv_path_disconnect_attr.attr,
	NULL,
};

static const struct attribute_group rift_srv_path_group = {
	.attrs = rift_srv_path_attrs,
};

/*
 * Path statistics: the server's own per-CPU counters, each shown as the
 * sum over all CPUs, beside rift-core's in the same stats/ directory.
 */
static struct rift_stat_attr rift_srv_stat_counters[] = {
	RIFT_STAT_ATTR(rkey_rotations, struct rift_srv_stats, rkey_rotations),
	RIFT_STAT_ATTR(writes_refused, struct rift_srv_stats, writes_refused),
	RIFT_STAT_ATTR(cancelled, struct rift_srv_stats, cancelled),
	RIFT_STAT_ATTR(cancels_stale, struct rift_srv_stats, cancels_stale),
	RIFT_STAT_ATTR(posting_waits, struct rift_srv_stats, posting_waits),
	RIFT_STAT_ATTR(rsp_batched, struct rift_srv_stats, rsp_batched),
	RIFT_STAT_ATTR(credit_reqs, struct rift_srv_stats, credit_reqs),
	RIFT_STAT_ATTR(credits, struct rift_srv_stats, credits),
	RIFT_STAT_ATTR(credit_rels, struct rift_srv_stats, credit_rels),
	RIFT_STAT_ATTR(credit_short, struct rift_srv_stats, credit_short),
	RIFT_STAT_ATTR(revokes, struct rift_srv_stats, revokes),
	RIFT_STAT_ATTR(reclaimed, struct rift_srv_stats, reclaimed),
	RIFT_STAT_ATTR(remote_invs, struct rift_srv_stats, remote_invs),
};

static struct attribute *rift_srv_stats_attrs[] = {
	&rift_srv_stat_counters[0].attr.attr,
	&rift_srv_stat_counters[1].attr.attr,
	&rift_srv_stat_counters[2].attr.attr,
	&rift_srv_stat_counters[3].attr.attr,
	&rift_srv_stat_counters[4].attr.attr,
	&rift_srv_stat_counters[5].attr.attr,
	&rift_srv_stat_counters[6].attr.attr,
	&rift_srv_stat_counters[7].attr.attr,
	&rift_srv_stat_counters[8].attr.attr,
	&rift_srv_stat_counters[9].attr.attr,
	&rift_srv_stat_counters[10].attr.attr,
	&rift_srv_stat_counters[11].attr.attr,
	&rift_srv_stat_counters[12].attr.attr,
	NULL,
};

/* A counter added above must be listed there too. */
static_assert(ARRAY_SIZE(rift_srv_stats_attrs) == ARRAY_SIZE(rift_srv_stat_counters) + 1);
/* rift-core's files read the counters both roles have from the start. */
static_assert(offsetof(struct rift_srv_stats, base) == 0);

/* Merged into rift-core's stats/ (rift_path_stats_group). */
static const struct attribute_group rift_srv_stats_group = {
	.name = "stats",
	.attrs = rift_srv_stats_attrs,
};

/* What both roles' paths show (rift-core), then what a server's adds. */
const struct attribute_group *rift_srv_path_groups[] = {
	&rift_path_base_group,
	&rift_path_stats_group,
	&rift_srv_path_group,
	NULL,
};

/**
 * rift_srv_path_sysfs_add() - create paths/<name>/ of a path
 * @path: path of a registered session; caller holds the session's lock
 *
 * Return: 0, -EEXIST if another path of the session has the same
 * addresses, or another negative errno.
 */
int rift_srv_path_sysfs_add(struct rift_srv_path *path)
{
	struct rift_srv_sess *sess = path->sess;
	struct rift_srv_path *p;
	int err;

	lockdep_assert_held(&sess->lock);
	/* Checked first: kobject_add() would warn loudly about a clash. */
	list_for_each_entry(p, &sess->paths, entry)
		if (p->in_sysfs && !strcmp(p->base.name, path->base.name))
			return -EEXIST;
	err = kobject_add(&path->base.kobj, sess->paths_kobj, "%s", path->base.name);
	if (err)
		return err;
	/* Into the stats/ that rift_path_stats_group, a default group, made. */
	err = sysfs_merge_group(&path->base.kobj, &rift_srv_stats_group);
	if (err) {
		kobject_del(&path->base.kobj);
		return err;
	}
	path->in_sysfs = true;
	return 0;
}

/**
 * rift_srv_path_sysfs_del() - remove a path's directory
 * @path: path, possibly never added
 */
void rift_srv_path_sysfs_del(struct rift_srv_path *path)
{
	if (!path->in_sysfs)
		return;
	kobject_del(&path->base.kobj);
	path->in_sysfs = false;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift block device: server side.
 *
 * Serves riftblk clients on port srv_port.  A client maps a block device
 * the administrator exported to its host (riftblk-srv-exports.c) with an
 * OPEN; each mapping opens the device on its own (blkdev_get_by_dev,
 * exclusive to riftblk) and gets a handle, dev_id, that its session's IOs
 * name.  OPEN, CLOSE and INFO sleep (path walks, opening devices, sysfs),
 * so they run on an ordered workqueue, under riftblk_srv_lock except for
 * an OPEN's path walk; IO goes through riftblk-srv-io.c.
 *
 * sysfs: /sys/class/riftblk-server/<bdev>/ per exported device, with
 * sessions/<session>/ per mapping (Documentation/ABI/testing/
 * sysfs-class-riftblk-server).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/blkdev.h>
#include <linux/random.h>
#include <linux/namei.h>
#include <linux/mount.h>

#include "riftblk-srv.h"

/*
 * Not what grants access (the exports do): a further limit on which
 * device nodes a client's path may resolve to.
 */
static char dev_search_path[RIFTBLK_PATH_MAX];
module_param_string(dev_search_path, dev_search_path, sizeof(dev_search_path), 0444);
MODULE_PARM_DESC(dev_search_path,
		 "If set, an absolute directory: an exported device is mapped only by a path that resolves to a node under it, and relative names are taken from it (default unset: no limit beyond the exports)");

static ushort srv_port = RIFTBLK_DEFAULT_PORT;
module_param(srv_port, ushort, 0444);
MODULE_PARM_DESC(srv_port, "Port to serve riftblk on (default 7675)");

static LIST_HEAD(riftblk_srv_sessions);
static struct workqueue_struct *riftblk_srv_ctl_wq;
static struct rift_srv_ctx *riftblk_srv_ctx;
/* The holder of every exclusive open: mappings share devices. */
static int riftblk_srv_holder;
/* Next dev_id to hand out, any session; under riftblk_srv_lock. */
static u32 riftblk_srv_next_id;

/**
 * struct riftblk_srv_ctl - OPEN, CLOSE or INFO on its way to the workqueue
 * @work: runs it
 * @sess: session it came on; the unanswered request keeps it
 * @op: the transport's request
 * @dir: its direction
 * @data: its data buffer
 * @datalen: bytes of @data
 * @usrlen: bytes of @usr
 * @usr: a copy of its ULP header
 */
struct riftblk_srv_ctl {
	struct work_struct	work;
	struct riftblk_srv_sess	*sess;
	struct rift_srv_op	*op;
	enum rift_dir		dir;
	void			*data;
	size_t			datalen;
	size_t			usrlen;
	u8			usr[RIFT_USR_LEN_MAX];
};

/* ------------------------------------------------------------------ */
/* sysfs                                                               */
/* ------------------------------------------------------------------ */

static struct riftblk_srv_map *to_srv_map(struct kobject *kobj)
{
	return container_of(kobj, struct riftblk_srv_map, kobj);
}

static ssize_t access_mode_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  riftblk_access_mode_name(to_srv_map(kobj)->access_mode));
}

static struct kobj_attribute riftblk_srv_attr_access_mode = __ATTR_RO(access_mode);

static ssize_t dev_id_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", to_srv_map(kobj)->dev_id);
}

static struct kobj_attribute riftblk_srv_attr_dev_id = __ATTR_RO(dev_id);

static void riftblk_srv_map_close(struct riftblk_srv_map *map);

/*
 * The file removes itself first: closing removes the mapping's directory,
 * which would otherwise wait for this very write to end.
 */
static ssize_t force_close_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	struct riftblk_srv_map *map = to_srv_map(kobj);

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	kobject_get(kobj);
	if (!sysfs_remove_file_self(kobj, &attr->attr)) {
		kobject_put(kobj);
		return -ENODEV;
	}
	mutex_lock(&riftblk_srv_lock);
	if (!list_empty(&map->dev_entry)) {
		pr_info("%s: %s: mapping force-closed\n", map->dev->path, map->sess->name);
		riftblk_srv_map_close(map);
	}
	mutex_unlock(&riftblk_srv_lock);
	kobject_put(kobj);
	return count;
}

static struct kobj_attribute riftblk_srv_attr_force_close = __ATTR_WO(force_close);

static struct attribute *riftblk_srv_map_attrs[] = {
	&riftblk_srv_attr_access_mode.attr,
	&riftblk_srv_attr_dev_id.attr,
	&riftblk_srv_attr_force_close.attr,
	NULL,
};
ATTRIBUTE_GROUPS(riftblk_srv_map);

static void riftblk_srv_map_release(struct kobject *kobj)
{
	kfree(to_srv_map(kobj));
}

static struct kobj_type riftblk_srv_map_ktype = {
	.release	= riftblk_srv_map_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= riftblk_srv_map_groups,
};

/* ------------------------------------------------------------------ */
/* Devices and mappings; everything here under riftblk_srv_lock.       */
/* ------------------------------------------------------------------ */

/*
 * The device a client's path names, as this server resolves it: symlinks
 * followed and ".." walked, the end a block device node on a mount that
 * allows device nodes, under dev_search_path if one is set.  Only the
 * device number counts from here on, so no spelling of a path reaches a
 * device that is not exported.  Called without riftblk_srv_lock: the walk
 * can block (autofs, NFS, FUSE), which must not stall the other sessions'
 * CLOSEs and teardown.
 *
 * Return: 0 and *@devt, -EXDEV if the node lies outside dev_search_path,
 * or another negative errno (ENOENT, ENOTBLK, ...).
 */
static int riftblk_srv_lookup(const char *req, dev_t *devt)
{
	struct inode *inode;
	struct path p, sp;
	char *abs = NULL;
	int err;

	/* Relative names are taken from dev_search_path, or from the root. */
	if (req[0] != '/') {
		abs = kasprintf(GFP_KERNEL, "%s/%s", dev_search_path, req);
		if (!abs)
			return -ENOMEM;
	}
	err = kern_path(abs ?: req, LOOKUP_FOLLOW, &p);
	kfree(abs);
	if (err)
		return err;
	inode = d_backing_inode(p.dentry);
	err = -ENOTBLK;
	if (!S_ISBLK(inode->i_mode))
		goto out;
	/* What may_open_dev() checks for an open by path. */
	err = -EACCES;
	if ((p.mnt->mnt_flags & MNT_NODEV) || (p.mnt->mnt_sb->s_iflags & SB_I_NODEV))
		goto out;
	if (dev_search_path[0]) {
		err = kern_path(dev_search_path, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &sp);
		if (err)
			goto out;
		err = path_is_under(&p, &sp) ? 0 : -EXDEV;
		path_put(&sp);
		if (err)
			goto out;
	}
	*devt = inode->i_rdev;
	err = 0;
out:
	path_put(&p);
	return err;
}

/*
 * Close a mapping: no IO starts once it is marked, the ones in flight
 * are waited for, then the device's open and sysfs entries go.
 */
static void riftblk_srv_map_close(struct riftblk_srv_map *map)
{
	struct riftblk_srv_sess *sess = map->sess;
	struct riftblk_srv_dev *d = map->dev;

	/*
	 * Keep the handle taken: its IO is refused ENODEV, which the client
	 * takes as final, not ESTALE, which would make it open the device
	 * again behind the administrator's back.  Replacing an existing
	 * entry allocates nothing.  It is replaced before the lock below:
	 * an IO that looked the mapping up earlier holds that lock until it
	 * has counted itself in flight or seen @closing, and after it no IO
	 * finds the mapping, which may then be freed once none is in flight.
	 */
	xa_store(&sess->maps, map->dev_id, RIFTBLK_SRV_CLOSED, GFP_KERNEL);
	spin_lock_bh(&sess->lock);
	map->closing = true;
	spin_unlock_bh(&sess->lock);
	wait_event(riftblk_srv_idle_wait, !atomic_read(&map->inflight));

	list_del_init(&map->dev_entry);
	d->nr_maps--;
	if (map->access_mode == RIFTBLK_ACCESS_RW)
		d->nr_rw--;
	else if (map->access_mode == RIFTBLK_ACCESS_MIGRATION)
		d->nr_migration--;
	rift_bdev_close(&map->bdev);
	kobject_del(&map->kobj);
	kobject_put(&map->kobj);
	riftblk_srv_dev_put(d);
}

static void riftblk_srv_fill_info(struct riftblk_srv_map *map,
				  struct riftblk_dev_info *info)
{
	struct block_device *bdev = map->bdev.bdev;
	u32 lbs = bdev_logical_block_size(bdev);
	bool ro = map->access_mode == RIFTBLK_ACCESS_RO;

	memset(info, 0, sizeof(*info));
	info->dev_id = map->dev_id;
	info->access_mode = map->access_mode;
	info->nr_sectors = round_down(bdev_nr_sectors(bdev), lbs >> SECTOR_SHIFT);
	info->logical_block_size = lbs;
	info->physical_block_size = max(bdev_physical_block_size(bdev), lbs);
	/* Hints a client would refuse are left out rather than sent. */
	info->io_min = bdev_io_min(bdev);
	if (info->io_min % lbs || info->io_min > RIFTBLK_IO_HINT_MAX)
		info->io_min = 0;
	info->io_opt = bdev_io_opt(bdev);
	if (info->io_opt % lbs || info->io_opt > RIFTBLK_IO_HINT_MAX)
		info->io_opt = 0;
	info->max_hw_sectors = queue_max_hw_sectors(bdev_get_queue(bdev));
	/* A read-only mapping cannot change data: no discard or zeroing. */
	if (!ro) {
		info->max_discard_sectors = bdev_max_discard_sectors(bdev);
		info->discard_granularity = max(bdev_discard_granularity(bdev), lbs);
		/* e.g. a RAID stripe: exported without discard (see the codec). */
		if (!is_power_of_2(info->discard_granularity) ||
		    info->discard_granularity > RIFTBLK_DISCARD_GRAN_MAX) {
			info->max_discard_sectors = 0;
			info->discard_granularity = 0;
		}
		info->max_write_zeroes_sectors = bdev_write_zeroes_sectors(bdev);
		info->max_secure_erase_sectors = bdev_max_secure_erase_sectors(bdev);
	}
	if (bdev_write_cache(bdev))
		info->caps |= RIFTBLK_CAP_WRITE_CACHE;
	if (bdev_fua(bdev))
		info->caps |= RIFTBLK_CAP_FUA;
	if (!bdev_nonrot(bdev))
		info->caps |= RIFTBLK_CAP_ROTATIONAL;
}

static int riftblk_srv_answer_info(struct riftblk_srv_map *map, u16 type,
				   void *data, size_t datalen)
{
	struct riftblk_dev_info info;
	int len;

	riftblk_srv_fill_info(map, &info);
	len = riftblk_dev_info_encode(type, &info, data, datalen);
	return len < 0 ? -EOPNOTSUPP : 0;
}

/* May a mapping in @mode join the device's others? */
static int riftblk_srv_mode_ok(struct riftblk_srv_dev *d,
			       struct riftblk_srv_sess *sess, u16 mode)
{
	struct riftblk_srv_map *m;

	list_for_each_entry(m, &d->maps, dev_entry)
		if (m->sess == sess)
			return -EEXIST;
	if (mode == RIFTBLK_ACCESS_RW && d->nr_rw)
		return -EBUSY;
	if (mode == RIFTBLK_ACCESS_MIGRATION && d->nr_migration)
		return -EBUSY;
	return 0;
}

/*
 * May the session's host map what @req names, and which device is it?
 * Everything refused is refused EACCES: a client learns no more about
 * the server's devices and files than what is exported to its host.  The
 * kernel log says why.
 */
static int riftblk_srv_open_check(struct riftblk_srv_sess *sess,
				  const struct riftblk_open *req,
				  const char *host, dev_t *devt)
{
	const char *why;
	bool any;
	int err;

	mutex_lock(&riftblk_srv_lock);
	any = riftblk_srv_host_has_exports(host);
	mutex_unlock(&riftblk_srv_lock);
	/* Not even a path walk for a host nothing is exported to. */
	if (!any) {
		why = "nothing is exported to the host";
		goto refuse;
	}
	err = riftblk_srv_lookup(req->path, devt);
	if (err == -ENOMEM)
		return err;
	if (!err)
		return 0;
	why = err == -EXDEV ? "the device node is outside dev_search_path" :
	      err == -ENOTBLK ? "not a block device" :
	      err == -ENOENT ? "no such file" : "the path does not resolve";
refuse:
	pr_warn_ratelimited("%s: refusing %s of %s for host '%s': %s\n", sess->name,
			    riftblk_access_mode_name(req->access_mode), req->path,
			    host, why);
	return -EACCES;
}

static int riftblk_srv_open(struct riftblk_srv_sess *sess,
			    const struct riftblk_open *req,
			    void *data, size_t datalen)
{
	char host[RIFT_NAME_MAX + 1];
	struct riftblk_srv_map *map;
	struct riftblk_srv_dev *d;
	dev_t devt;
	int err;

	/* Every session that can send an OPEN was admitted, named. */
	if (rift_srv_get_host_name(sess->rsess, host, sizeof(host)) < 0)
		return -EACCES;
	err = riftblk_srv_open_check(sess, req, host, &devt);
	if (err)
		return err;
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	/*
	 * The export is checked again, and the mapping listed, under one
	 * hold of the lock: remove_export sees the export and no mapping, or
	 * the mapping (EBUSY).
	 */
	mutex_lock(&riftblk_srv_lock);
	err = riftblk_srv_export_check(devt, host, req->access_mode);
	if (err) {
		pr_warn_ratelimited("%s: refusing %s of %s for host '%s': %s\n",
				    sess->name, riftblk_access_mode_name(req->access_mode),
				    req->path, host, err == -EROFS ?
				    "exported read-only" : "not exported to the host");
		err = -EACCES;
		goto err_free;
	}
	map->access_mode = req->access_mode;
	err = rift_bdev_open(&map->bdev, devt, req->access_mode != RIFTBLK_ACCESS_RO,
			     &riftblk_srv_holder);
	if (err) {
		pr_warn_ratelimited("%s: cannot open %s: %d\n", sess->name, req->path, err);
		goto err_free;
	}
	d = riftblk_srv_dev_get(map->bdev.bdev, req->path);
	if (IS_ERR(d)) {
		err = PTR_ERR(d);
		goto err_put_bdev;
	}
	err = riftblk_srv_mode_ok(d, sess, req->access_mode);
	if (err) {
		pr_warn_ratelimited("%s: refusing %s mapping of %s: %s\n", sess->name,
				    riftblk_access_mode_name(req->access_mode), req->path,
				    err == -EEXIST ? "already mapped by the session" :
				    "the device has a mapping in that mode");
		goto err_put_dev;
	}
	map->dev = d;
	map->sess = sess;
	atomic_set(&map->inflight, 0);
	kobject_init(&map->kobj, &riftblk_srv_map_ktype);
	/*
	 * Handles come from one counter for every session, starting at a
	 * random value when the module loads: a handle a client kept from a
	 * former server instance or session is almost surely unknown here
	 * (ESTALE) rather than naming another device.
	 *
	 * The slot is only reserved here (a NULL entry, which lookups see
	 * as absent): handles are sequential, so a client may guess this
	 * one and send IO on it before the OPEN has finished, or on an OPEN
	 * that then fails and frees the mapping under that IO.  The mapping
	 * is published below, once nothing can fail any more.
	 */
	err = xa_alloc_cyclic(&sess->maps, &map->dev_id, NULL, xa_limit_32b,
			      &riftblk_srv_next_id, GFP_KERNEL);
	if (err < 0)
		goto err_put_dev;
	err = riftblk_srv_answer_info(map, RIFTBLK_MSG_OPEN_RSP, data, datalen);
	if (err)
		goto err_erase;
	err = kobject_add(&map->kobj, d->sessions_kobj, "%s", sess->name);
	if (err)
		goto err_erase;
	list_add_tail(&map->dev_entry, &d->maps);
	d->nr_maps++;
	if (map->access_mode == RIFTBLK_ACCESS_RW)
		d->nr_rw++;
	else if (map->access_mode == RIFTBLK_ACCESS_MIGRATION)
		d->nr_migration++;
	/* Filling a reserved slot allocates nothing: it cannot fail. */
	xa_store(&sess->maps, map->dev_id, map, GFP_KERNEL);
	/* Before the unlock: a force_close may free the mapping after it. */
	pr_info_ratelimited("%s: mapped %s (%pg) %s for host '%s' as dev_id %u\n",
			    sess->name, req->path, map->bdev.bdev,
			    riftblk_access_mode_name(map->access_mode), host, map->dev_id);
	mutex_unlock(&riftblk_srv_lock);
	return 0;

err_erase:
	xa_erase(&sess->maps, map->dev_id);
	riftblk_srv_dev_put(d);
	rift_bdev_close(&map->bdev);
	mutex_unlock(&riftblk_srv_lock);
	/* Its name may be set: the release frees the mapping. */
	kobject_put(&map->kobj);
	return err;

err_put_dev:
	riftblk_srv_dev_put(d);
err_put_bdev:
	rift_bdev_close(&map->bdev);
err_free:
	mutex_unlock(&riftblk_srv_lock);
	kfree(map);
	return err;
}

static void riftblk_srv_ctl_work(struct work_struct *work)
{
	struct riftblk_srv_ctl *ctl = container_of(work, struct riftblk_srv_ctl, work);
	struct riftblk_srv_sess *sess = ctl->sess;
	struct riftblk_srv_map *map;
	struct riftblk_open *open;
	struct riftblk_hdr hdr;
	u32 dev_id;
	int err;

	err = riftblk_hdr_decode(ctl->usr, ctl->usrlen, &hdr);
	if (err)
		goto out;
	/* OPEN takes riftblk_srv_lock itself, around its path walk. */
	if (hdr.type != RIFTBLK_MSG_OPEN)
		mutex_lock(&riftblk_srv_lock);
	switch (hdr.type) {
	case RIFTBLK_MSG_OPEN:
		err = -EBADMSG;
		open = kmalloc(sizeof(*open), GFP_KERNEL);
		if (!open) {
			err = -ENOMEM;
			break;
		}
		if (ctl->dir == RIFT_READ &&
		    ctl->datalen >= sizeof(struct riftblk_wire_dev_info) &&
		    !riftblk_open_decode(ctl->usr, ctl->usrlen, open))
			err = riftblk_srv_open(sess, open, ctl->data, ctl->datalen);
		kfree(open);
		break;
	case RIFTBLK_MSG_CLOSE:
	case RIFTBLK_MSG_INFO:
		err = riftblk_dev_decode(hdr.type, ctl->usr, ctl->usrlen, &dev_id);
		if (err)
			break;
		map = xa_load(&sess->maps, dev_id);
		if (!map) {
			err = -ESTALE;
		} else if (xa_is_value(map)) {
			err = -ENODEV;
		} else if (hdr.type == RIFTBLK_MSG_CLOSE) {
			err = ctl->dir == RIFT_WRITE && !ctl->datalen ? 0 : -EBADMSG;
			if (!err) {
				pr_info_ratelimited("%s: unmapped %s\n", sess->name,
						    map->dev->path);
				riftblk_srv_map_close(map);
				/*
				 * The client closed it and names it no more:
				 * forget the handle (ESTALE from now on).  Only
				 * a force-closed mapping keeps one, for the
				 * ENODEV above; keeping every closed one would
				 * let a client grow the table without bound by
				 * OPEN/CLOSE loops for as long as it stays.
				 */
				xa_erase(&sess->maps, dev_id);
			}
		} else {
			/* As for OPEN: a buffer the answer does not fit is malformed. */
			err = ctl->dir == RIFT_READ &&
			      ctl->datalen >= sizeof(struct riftblk_wire_dev_info) ?
				riftblk_srv_answer_info(map, RIFTBLK_MSG_INFO_RSP,
							ctl->data, ctl->datalen) :
				-EBADMSG;
		}
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	if (hdr.type != RIFTBLK_MSG_OPEN)
		mutex_unlock(&riftblk_srv_lock);
out:
	rift_srv_resp(ctl->op, err);
	kfree(ctl);
}

/*
 * The transport's CQ work, which must not sleep: IO is checked and
 * submitted or queued, the rest goes to the ordered queue.
 */
static int riftblk_srv_rdma_ev(void *priv, struct rift_srv_op *op,
			       enum rift_dir dir, void *data, size_t datalen,
			       const void *usr, size_t usrlen)
{
	struct riftblk_srv_sess *sess = priv;
	struct riftblk_srv_ctl *ctl;
	struct riftblk_hdr hdr;
	int err;

	if (!sess)
		return -ENOTCONN;
	if (usrlen > RIFT_USR_LEN_MAX)
		return -EBADMSG;
	/*
	 * A read's data overlaps its header, and a read may be done (its
	 * data written) before this returns: the decoders copy what they
	 * read once, before anything is submitted.  IO is decoded in place,
	 * the other messages are copied for later.
	 */
	err = riftblk_hdr_decode(usr, usrlen, &hdr);
	if (err)
		return err;
	if (hdr.type == RIFTBLK_MSG_IO)
		return riftblk_srv_io_start(sess, op, dir, data, datalen, usr, usrlen);
	if (hdr.type != RIFTBLK_MSG_OPEN && hdr.type != RIFTBLK_MSG_CLOSE &&
	    hdr.type != RIFTBLK_MSG_INFO)
		return -EOPNOTSUPP;
	ctl = kmalloc(sizeof(*ctl), GFP_ATOMIC);
	if (!ctl)
		return -ENOMEM;
	INIT_WORK(&ctl->work, riftblk_srv_ctl_work);
	ctl->sess = sess;
	ctl->op = op;
	ctl->dir = dir;
	ctl->data = data;
	ctl->datalen = datalen;
	ctl->usrlen = usrlen;
	memcpy(ctl->usr, usr, usrlen);
	queue_work(riftblk_srv_ctl_wq, &ctl->work);
	return 0;
}

static int riftblk_srv_sess_up(struct rift_srv_sess *rsess)
{
	struct riftblk_srv_sess *sess;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return -ENOMEM;
	sess->rsess = rsess;
	if (rift_srv_get_sess_name(rsess, sess->name, sizeof(sess->name)) < 0) {
		kfree(sess);
		return -EINVAL;
	}
	spin_lock_init(&sess->lock);
	xa_init_flags(&sess->maps, XA_FLAGS_ALLOC);
	mutex_lock(&riftblk_srv_lock);
	list_add_tail(&sess->entry, &riftblk_srv_sessions);
	mutex_unlock(&riftblk_srv_lock);
	rift_srv_set_sess_priv(rsess, sess);
	return 0;
}

/* Every request of the session is answered: close what it left mapped. */
static void riftblk_srv_sess_down(struct rift_srv_sess *rsess)
{
	struct riftblk_srv_sess *sess = NULL, *s;
	struct riftblk_srv_map *map;
	unsigned long id;

	mutex_lock(&riftblk_srv_lock);
	list_for_each_entry(s, &riftblk_srv_sessions, entry) {
		if (s->rsess == rsess) {
			sess = s;
			break;
		}
	}
	if (sess) {
		list_del(&sess->entry);
		xa_for_each(&sess->maps, id, map) {
			if (xa_is_value(map))
				continue;
			pr_info_ratelimited("%s: disconnected: unmapping %s\n", sess->name,
					    map->dev->path);
			riftblk_srv_map_close(map);
		}
		xa_destroy(&sess->maps);
	}
	mutex_unlock(&riftblk_srv_lock);
	kfree(sess);
}

static int riftblk_srv_link_ev(struct rift_srv_sess *rsess,
			       enum rift_srv_link_ev ev, void *priv)
{
	if (ev == RIFT_SRV_LINK_EV_CONNECTED)
		return riftblk_srv_sess_up(rsess);
	riftblk_srv_sess_down(rsess);
	return 0;
}

static const struct rift_srv_ops riftblk_srv_ops = {
	.rdma_ev = riftblk_srv_rdma_ev,
	.link_ev = riftblk_srv_link_ev,
};

/* Unset, or absolute: it is walked as given, like an OPEN's path. */
static int riftblk_srv_check_search_path(void)
{
	if (dev_search_path[0] && dev_search_path[0] != '/') {
		pr_err("dev_search_path must be empty or an absolute path: %s\n",
		       dev_search_path);
		return -EINVAL;
	}
	return 0;
}

static int __init riftblk_srv_init(void)
{
	int err;

	err = riftblk_srv_check_search_path();
	if (err)
		return err;
	riftblk_srv_next_id = get_random_u32();
	err = riftblk_srv_devs_init();
	if (err)
		return err;
	err = -ENOMEM;
	riftblk_srv_ctl_wq = alloc_ordered_workqueue("riftblk_srv_ctl", WQ_MEM_RECLAIM);
	if (!riftblk_srv_ctl_wq)
		goto err_class;
	err = riftblk_srv_io_init();
	if (err)
		goto err_wq;
	err = riftblk_srv_exports_init();
	if (err)
		goto err_io;
	riftblk_srv_ctx = rift_srv_open(&riftblk_srv_ops, NULL, srv_port);
	if (IS_ERR(riftblk_srv_ctx)) {
		err = PTR_ERR(riftblk_srv_ctx);
		pr_err("cannot serve on port %u: %d\n", srv_port, err);
		goto err_exports;
	}
	return 0;

err_exports:
	riftblk_srv_exports_exit();
err_io:
	riftblk_srv_io_exit();
err_wq:
	destroy_workqueue(riftblk_srv_ctl_wq);
err_class:
	riftblk_srv_devs_exit();
	return err;
}

static void __exit riftblk_srv_exit(void)
{
	/* Every session goes, each with its link_ev(DISCONNECTED). */
	rift_srv_close(riftblk_srv_ctx);
	destroy_workqueue(riftblk_srv_ctl_wq);
	riftblk_srv_exports_exit();
	riftblk_srv_io_exit();
	riftblk_srv_devs_exit();
}

module_init(riftblk_srv_init);
module_exit(riftblk_srv_exit);

MODULE_DESCRIPTION("Rift block device: server side");
MODULE_LICENSE("GPL");

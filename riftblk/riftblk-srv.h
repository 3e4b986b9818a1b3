/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riftblk server: what its files share.
 */
#ifndef _RIFTBLK_SRV_H
#define _RIFTBLK_SRV_H

#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/blkdev.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>

#include <rift/rift.h>
#include <rift/rift-compat.h>
#include <riftblk/riftblk-proto.h>

/**
 * struct riftblk_srv_sess - a client session riftblk serves
 * @rsess: the transport's session
 * @entry: in riftblk_srv_sessions, under riftblk_srv_lock
 * @name: session name
 * @lock: makes looking a mapping up and counting an IO on it atomic with
 *	closing the mapping
 * @maps: dev_id -> struct riftblk_srv_map, changed under riftblk_srv_lock
 *	and @lock.  A mapping the server closed (force_close) leaves
 *	RIFTBLK_SRV_CLOSED behind: the session then knows the handle was its
 *	own (ENODEV) from one it does not have (ESTALE, e.g. a handle of a
 *	server instance before a reload, or one the client closed itself).
 */
struct riftblk_srv_sess {
	struct rift_srv_sess	*rsess;
	struct list_head	entry;
	char			name[RIFT_NAME_MAX + 1];
	spinlock_t		lock;	/* see above */
	struct xarray		maps;
};

/**
 * struct riftblk_srv_dev - an exported block device
 * @dev: /sys/class/riftblk-server/<bdev name>/
 * @entry: in riftblk_srv_devs, under riftblk_srv_lock
 * @devt: the block device
 * @path: path the first mapping opened it by
 * @maps: its mappings, under riftblk_srv_lock
 * @sessions_kobj: sessions/, one directory per mapping
 * @nr_maps: mappings
 * @nr_rw: mappings in mode rw
 * @nr_migration: mappings in mode migration
 */
struct riftblk_srv_dev {
	struct device		dev;
	struct list_head	entry;
	dev_t			devt;
	char			path[RIFTBLK_PATH_MAX];
	struct list_head	maps;
	struct kobject		*sessions_kobj;
	unsigned int		nr_maps;
	unsigned int		nr_rw;
	unsigned int		nr_migration;
};

/**
 * struct riftblk_srv_map - one session's mapping of a device
 * @kobj: sessions/<session name>/ of the device
 * @dev: the device
 * @sess: the session
 * @dev_entry: in @dev->maps
 * @bdev: the mapping's own open of the device
 * @dev_id: the handle the client names the mapping by
 * @access_mode: enum riftblk_access_mode
 * @closing: no new IO; under @sess->lock
 * @inflight: IOs submitted and not yet answered
 */
struct riftblk_srv_map {
	struct kobject		kobj;
	struct riftblk_srv_dev	*dev;
	struct riftblk_srv_sess	*sess;
	struct list_head	dev_entry;
	struct rift_bdev	bdev;
	u32			dev_id;
	u16			access_mode;
	bool			closing;
	atomic_t		inflight;
};

/* The @maps entry of a mapping the session had and that was closed. */
#define RIFTBLK_SRV_CLOSED	xa_mk_value(0)

extern struct mutex riftblk_srv_lock;
extern wait_queue_head_t riftblk_srv_idle_wait;

int riftblk_srv_exports_init(void);
void riftblk_srv_exports_exit(void);
int riftblk_srv_export_check(dev_t devt, const char *host, u16 mode);
bool riftblk_srv_host_has_exports(const char *host);

int riftblk_srv_devs_init(void);
void riftblk_srv_devs_exit(void);
struct riftblk_srv_dev *riftblk_srv_dev_get(struct block_device *bdev, const char *path);
void riftblk_srv_dev_put(struct riftblk_srv_dev *d);
bool riftblk_srv_dev_mapped(dev_t devt);

int riftblk_srv_io_init(void);
void riftblk_srv_io_exit(void);
int riftblk_srv_io_start(struct riftblk_srv_sess *sess, struct rift_srv_op *op,
			 enum rift_dir dir, void *data, size_t datalen,
			 const void *usr, size_t usrlen);

#endif /* _RIFTBLK_SRV_H */

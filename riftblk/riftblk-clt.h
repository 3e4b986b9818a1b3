/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riftblk client: what its files share.
 */
#ifndef _RIFTBLK_CLT_H
#define _RIFTBLK_CLT_H

#include <linux/blk-mq.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <rift/rift.h>
#include <riftblk/riftblk-proto.h>
#include <riftblk/riftblk-args.h>

/**
 * struct riftblk_clt_sess - a Rift session, shared by the devices mapped
 *	over it
 * @entry: in the session list, under riftblk_clt_lock
 * @refs: devices using it, and a map being set up; under riftblk_clt_lock
 * @name: session name
 * @rsess: the transport's session
 * @ops: link event callback, with this as its data
 * @disconnected: the transport reported no connected path
 * @queue_depth: permits
 * @max_io_size: bytes per request
 * @max_segments: scatterlist entries per request
 * @nr_poll_cons: the transport's poll connections per path, fixed by the
 *	map that opened the session; a device's poll queues use the first ones
 */
struct riftblk_clt_sess {
	struct list_head	entry;
	unsigned int		refs;
	char			name[RIFT_NAME_MAX + 1];
	struct rift_clt_sess	*rsess;
	struct rift_clt_ops	ops;
	bool			disconnected;
	u32			queue_depth;
	u32			max_io_size;
	u32			max_segments;
	u32			nr_poll_cons;
};

/**
 * enum riftblk_clt_state - state of a mapped device (riftblk_clt_dev_sm)
 * @RIFTBLK_CLT_MAPPED: serving IO
 * @RIFTBLK_CLT_REMAPPING: being opened again on the server: it lost the
 *	mapping (it answered IO or INFO with ESTALE), requests it refused
 *	wait parked for the new handle; or a write to remap opens it again
 * @RIFTBLK_CLT_UNMAPPING: being unmapped; no new opener
 * @RIFTBLK_CLT_STATE_NR: number of states
 */
enum riftblk_clt_state {
	RIFTBLK_CLT_MAPPED,
	RIFTBLK_CLT_REMAPPING,
	RIFTBLK_CLT_UNMAPPING,
	RIFTBLK_CLT_STATE_NR,
};

/* riftblk/stable_name: "<session>-<device path>", with its NUL. */
#define RIFTBLK_STABLE_NAME_MAX	(RIFT_NAME_MAX + 1 + RIFTBLK_PATH_MAX)

/**
 * struct riftblk_clt_dev - a mapped device, /dev/riftblk<idx>
 * @kobj: /sys/block/riftblk<idx>/riftblk/; holds a disk reference
 * @entry: in the device list, under riftblk_clt_lock
 * @sess: session it is mapped over; a reference
 * @idx: device index
 * @disk: the disk; frees this struct when released (free_disk)
 * @tag_set: its blk-mq tags
 * @lock: @open_cnt, whether @state is UNMAPPING, and remaps and unmaps
 *	against each other
 * @state: enum riftblk_clt_state; changes only in
 *	riftblk_clt_dev_change_state(), under @state_lock, and into UNMAPPING
 *	under @lock too: holders of @lock see whether the device is being
 *	unmapped, while completions move it between MAPPED and REMAPPING
 * @open_cnt: openers of the disk
 * @dev_id: the server's handle of the mapping
 * @access_mode: enum riftblk_access_mode
 * @device_path: device path on the server
 * @info: what the server said about the device last; under @id_lock
 * @size_work: re-reads the size from the server periodically
 * @id_lock: @dev_id and @info against the automatic re-open; nests in
 *	@lock.  The re-open never takes @lock: a remap holds it while it
 *	waits for requests that only the re-open can finish.
 * @state_lock: @state, @stale_rqs, @remap_start; taken in the
 *	completions' context, innermost
 * @stale_rqs: requests the server refused with ESTALE, waiting for the
 *	re-open
 * @remap_start: jiffies when the device entered REMAPPING, which is when
 *	the first of them began to wait
 * @reopen: the server said ESTALE to an INFO: re-open even without IO;
 *	under @id_lock
 * @recover_work: re-opens the device and requeues @stale_rqs
 * @nr_poll_queues: HCTX_TYPE_POLL hardware queues; poll queue i sends on
 *	and polls the session's poll connection i
 */
struct riftblk_clt_dev {
	struct kobject			kobj;
	struct list_head		entry;
	struct riftblk_clt_sess		*sess;
	int				idx;
	struct gendisk			*disk;
	struct blk_mq_tag_set		tag_set;
	struct mutex			lock;	/* see above */
	enum riftblk_clt_state		state;
	unsigned int			open_cnt;
	u32				dev_id;
	u16				access_mode;
	char				device_path[RIFTBLK_PATH_MAX];
	struct riftblk_dev_info		info;
	struct delayed_work		size_work;
	struct mutex			id_lock;	/* see above */
	spinlock_t			state_lock;	/* see above */
	struct list_head		stale_rqs;
	unsigned long			remap_start;
	bool				reopen;
	struct delayed_work		recover_work;
	u32				nr_poll_queues;
};

/**
 * struct riftblk_clt_iu - per-request data of the blk-mq request
 * @permit: the transport permit the request holds
 * @err: the request's result
 * @dev_id: the handle it was sent with
 * @stale_entry: in riftblk_clt_dev.stale_rqs
 * @sg: its data, rift_clt_attrs.max_segments entries
 */
struct riftblk_clt_iu {
	struct rift_permit	*permit;
	int			err;
	u32			dev_id;
	struct list_head	stale_entry;
	struct scatterlist	sg[];
};

/* Only to report requests the transport holds for long: they are kept. */
#define RIFTBLK_RQ_TIMEOUT	(120 * HZ)

static inline struct riftblk_clt_dev *to_clt_dev(struct kobject *kobj)
{
	return container_of(kobj, struct riftblk_clt_dev, kobj);
}

/*
 * The files of riftblk-client, from the bottom up: each calls only into
 * the ones listed before it (Documentation/callgraph.rst, checked by make
 * check), and riftblk-args.c and riftblk-proto.c, which call none of them.
 */

/* riftblk-clt-sess.c: sessions, and the messages a device waits for */
extern struct mutex riftblk_clt_lock;
int riftblk_clt_sync_req(struct riftblk_clt_sess *sess, enum rift_dir dir,
			 const void *usr, size_t usrlen, void *buf, size_t buflen);
int riftblk_clt_send_open(struct riftblk_clt_sess *sess, const char *path,
			  u16 mode, struct riftblk_dev_info *info);
int riftblk_clt_send_dev(struct riftblk_clt_sess *sess, u16 type, u32 dev_id,
			 struct riftblk_dev_info *info);
struct riftblk_clt_sess *riftblk_clt_sess_get(const struct riftblk_map_args *args);
void riftblk_clt_sess_put(struct riftblk_clt_sess *sess);

/*
 * riftblk-clt-recover.c: the device's state machine, opening it again
 * (remap, and after ESTALE), size polling and queue limits
 */
void riftblk_clt_recover_init(struct riftblk_clt_dev *dev);
const char *riftblk_clt_state_str(enum riftblk_clt_state state);
bool riftblk_clt_dev_change_state(struct riftblk_clt_dev *dev,
				  enum riftblk_clt_state new);
bool riftblk_clt_dev_unmapping(struct riftblk_clt_dev *dev);
void riftblk_clt_park(struct riftblk_clt_dev *dev, struct riftblk_clt_iu *iu);
int riftblk_clt_remap(struct riftblk_clt_dev *dev);
int riftblk_clt_set_limits(struct riftblk_clt_dev *dev);
void riftblk_clt_size_poll_start(struct riftblk_clt_dev *dev);

/* riftblk-clt-mq.c: blk-mq's operations, the IO path */
extern const struct blk_mq_ops riftblk_clt_mq_ops;

/* riftblk-clt-sysfs.c: /sys/block/riftblk<N>/riftblk/ but unmap_device */
extern const struct attribute_group riftblk_clt_sysfs_group;
void riftblk_clt_stable_name(struct riftblk_clt_dev *dev, char *buf, size_t len);

/* riftblk-clt-dev.c: the disk, map and unmap (and unmap_device) */
int riftblk_clt_dev_map(struct riftblk_clt_sess *sess,
			const struct riftblk_map_args *args);
int riftblk_clt_dev_unmap(struct riftblk_clt_dev *dev, bool force,
			  const struct attribute *self);
int riftblk_clt_dev_init(void);
void riftblk_clt_dev_exit(void);
void riftblk_clt_unmap_all(void);

/* riftblk-clt-main.c: module entry and map_device, on top */

#endif /* _RIFTBLK_CLT_H */

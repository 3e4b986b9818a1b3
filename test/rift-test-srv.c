// SPDX-License-Identifier: GPL-2.0
/*
 * Rift test ULP, server side: serves reads and writes of a store_mb MiB
 * RAM store on port srv_port.  A module of its own, so that the selftests
 * can unload and reload the server side (this and rift-server.ko) while
 * a client keeps its sessions.  Testing only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/vmalloc.h>
#include <linux/spinlock.h>
#include <linux/err.h>
#include <linux/workqueue.h>

#include <rift/rift.h>
#include "rift-test.h"

static ushort srv_port;
module_param(srv_port, ushort, 0444);
MODULE_PARM_DESC(srv_port, "Server port (default: Rift's default port)");

static uint store_mb = 16;
module_param(store_mb, uint, 0444);
MODULE_PARM_DESC(store_mb, "Size of the RAM store in MiB (default 16)");

static uint delay_next_ms;
module_param(delay_next_ms, uint, 0644);
MODULE_PARM_DESC(delay_next_ms,
		 "Test hook: answer the next request this many ms late (reset once used)");

static unsigned long long delay_offset;
module_param(delay_offset, ullong, 0644);
MODULE_PARM_DESC(delay_offset,
		 "Test hook: delay_next_ms applies to a request at this store offset only");

/* The one request delay_next_ms holds back. */
static struct {
	struct delayed_work	work;
	struct rift_srv_op	*op;
	void			*data;
	const void		*usr;
	struct rift_test_hdr	hdr;
	size_t			len;
	u64			off;
	enum rift_dir		dir;
	u32			ms;
	bool			busy;
} rift_test_late;

static struct rift_srv_ctx *rift_test_srv;
static void *rift_test_store;
static size_t rift_test_store_size;
static DEFINE_SPINLOCK(rift_test_store_lock);

static int rift_test_rdma_ev(void *priv, struct rift_srv_op *op,
			     enum rift_dir dir, void *data, size_t datalen,
			     const void *usr, size_t usrlen)
{
	struct rift_test_hdr hdr;
	u64 off;

	if (usrlen != sizeof(hdr))
		return -EBADMSG;
	/* For reads the header shares the chunk with the data: copy first. */
	memcpy(&hdr, usr, sizeof(hdr));
	off = le64_to_cpu(hdr.offset);
	if (le32_to_cpu(hdr.magic) != RIFT_TEST_MAGIC ||
	    le32_to_cpu(hdr.len) != datalen)
		return -EBADMSG;
	if (off > rift_test_store_size || datalen > rift_test_store_size - off)
		return -ERANGE;
	spin_lock(&rift_test_store_lock);
	if (READ_ONCE(delay_next_ms) && off == READ_ONCE(delay_offset) &&
	    !rift_test_late.busy) {
		/* The chunk stays ours until rift_srv_resp(): fill it then. */
		rift_test_late.busy = true;
		rift_test_late.op = op;
		rift_test_late.data = data;
		rift_test_late.usr = usr;
		rift_test_late.hdr = hdr;
		rift_test_late.len = datalen;
		rift_test_late.off = off;
		rift_test_late.dir = dir;
		rift_test_late.ms = xchg(&delay_next_ms, 0);
		schedule_delayed_work(&rift_test_late.work,
				      msecs_to_jiffies(rift_test_late.ms));
		spin_unlock(&rift_test_store_lock);
		return 0;
	}
	if (dir == RIFT_WRITE)
		memcpy(rift_test_store + off, data, datalen);
	else
		memcpy(data, rift_test_store + off, datalen);
	spin_unlock(&rift_test_store_lock);
	rift_srv_resp(op, 0);
	return 0;
}

static void rift_test_late_work(struct work_struct *work)
{
	struct rift_srv_op *op;
	int err = 0;
	u32 ms;

	/* Not under rdma_ev's feet, whichever context the transport calls it in. */
	spin_lock_bh(&rift_test_store_lock);
	/*
	 * The header is looked at again, as a ULP that trusts
	 * always-invalidate may: its transport must keep it what it was
	 * until the answer (a write's chunk has no key then, a read's
	 * header is a copy).  A held request is the window a selftest
	 * writes into (rift-peer ai_read_open); one whose header changed is
	 * answered -EILSEQ and its data left alone.
	 */
	if (memcmp(rift_test_late.usr, &rift_test_late.hdr, sizeof(rift_test_late.hdr)))
		err = -EILSEQ;
	else if (rift_test_late.dir == RIFT_WRITE)
		memcpy(rift_test_store + rift_test_late.off, rift_test_late.data,
		       rift_test_late.len);
	else
		memcpy(rift_test_late.data, rift_test_store + rift_test_late.off,
		       rift_test_late.len);
	op = rift_test_late.op;
	ms = rift_test_late.ms;
	rift_test_late.busy = false;
	spin_unlock_bh(&rift_test_store_lock);
	pr_info("answering a request %u ms late, as asked%s\n", ms,
		err ? ": its header changed meanwhile" : "");
	rift_srv_resp(op, err);
}

static int rift_test_link_ev(struct rift_srv_sess *sess,
			     enum rift_srv_link_ev ev, void *priv)
{
	char name[RIFT_NAME_MAX + 1];

	if (rift_srv_get_sess_name(sess, name, sizeof(name)) < 0)
		strscpy(name, "?", sizeof(name));
	pr_debug("session %s %s\n", name,
		 ev == RIFT_SRV_LINK_EV_CONNECTED ? "connected" : "disconnected");
	return 0;
}

static const struct rift_srv_ops rift_test_srv_ops = {
	.rdma_ev = rift_test_rdma_ev,
	.link_ev = rift_test_link_ev,
};

static int __init rift_test_srv_init(void)
{
	int err;

	INIT_DELAYED_WORK(&rift_test_late.work, rift_test_late_work);
	rift_test_store_size = (size_t)store_mb << 20;
	rift_test_store = vzalloc(rift_test_store_size);
	if (!rift_test_store)
		return -ENOMEM;
	rift_test_srv = rift_srv_open(&rift_test_srv_ops, NULL, srv_port);
	if (IS_ERR(rift_test_srv)) {
		err = PTR_ERR(rift_test_srv);
		pr_err("cannot open the server on port %u: %d\n", srv_port, err);
		vfree(rift_test_store);
		return err;
	}
	return 0;
}

static void __exit rift_test_srv_exit(void)
{
	/* A held-back answer goes out first: close waits for every request. */
	flush_delayed_work(&rift_test_late.work);
	/* Closes every session and waits for their requests. */
	rift_srv_close(rift_test_srv);
	vfree(rift_test_store);
}

module_init(rift_test_srv_init);
module_exit(rift_test_srv_exit);

MODULE_DESCRIPTION("Rift test ULP, RAM store server (testing only)");
MODULE_LICENSE("GPL");

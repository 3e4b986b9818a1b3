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

#include <rift/rift.h>
#include "rift-test.h"

static ushort srv_port;
module_param(srv_port, ushort, 0444);
MODULE_PARM_DESC(srv_port, "Server port (default: Rift's default port)");

static uint store_mb = 16;
module_param(store_mb, uint, 0444);
MODULE_PARM_DESC(store_mb, "Size of the RAM store in MiB (default 16)");

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
	if (dir == RIFT_WRITE)
		memcpy(rift_test_store + off, data, datalen);
	else
		memcpy(data, rift_test_store + off, datalen);
	spin_unlock(&rift_test_store_lock);
	rift_srv_resp(op, 0);
	return 0;
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
	/* Closes every session and waits for their requests. */
	rift_srv_close(rift_test_srv);
	vfree(rift_test_store);
}

module_init(rift_test_srv_init);
module_exit(rift_test_srv_exit);

MODULE_DESCRIPTION("Rift test ULP, RAM store server (testing only)");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: hooks for the selftests, built only with CONFIG_RIFT_DEBUG.
 *
 * A production client never needs them and a distribution package is
 * built without them (dkms.conf): they make the client misbehave on
 * purpose, which is what a test of the server's defences needs.
 *  - test_proto_version: offer one protocol version only, so a selftest
 *    can watch a server refuse a version it does not speak.
 *  - rift_clt_test_stale_rkey(): write into a chunk with the rkey that
 *    always-invalidate rotated away, as a stale or hostile client would;
 *    the client remembers each chunk's previous rkey for it (old_rkeys)
 *    and takes the chunk from its path, so no request uses it meanwhile.
 *  - test_connect_race: fail the next path instances as soon as they
 *    connect, each with a connect queued behind the failure and its close
 *    work held back until that connect has connected the next instance:
 *    the late close work a slow workqueue or a user's reconnect can cause
 *    now and then, on demand, so a selftest can check that it leaves the
 *    newer instance alone.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/delay.h>

#include "rift-clt.h"

static ushort test_proto_version;
module_param(test_proto_version, ushort, 0644);
MODULE_PARM_DESC(test_proto_version,
		 "Testing only: offer just this protocol version (0: the built-in range)");

static uint test_connect_race;
module_param(test_connect_race, uint, 0644);
MODULE_PARM_DESC(test_connect_race,
		 "Testing only: fail the next N path instances as soon as they connect, each close work running after the reconnect queued behind it (0: off)");

/*
 * How long a held-back close work waits for the next instance at most:
 * a reconnect that cannot connect must not hold it (and the user's
 * reconnect, which flushes it) for good.
 */
#define RIFT_CLT_DBG_RACE_WAIT_MS	30000

/* Narrow the CON_REQ's version range to test_proto_version, if set. */
void rift_clt_dbg_con_req(struct rift_con_req *req)
{
	u16 ver = READ_ONCE(test_proto_version);

	if (ver) {
		req->min_version = ver;
		req->max_version = ver;
	}
}

/*
 * A new path instance with @nr_chunks chunks: no rkey was rotated yet.
 * Called before the instance is connected, when neither the RSP_RKEY
 * handler nor the probe looks at the array.
 */
int rift_clt_dbg_chunks_reset(struct rift_clt_path *path, u32 nr_chunks)
{
	u32 *old_rkeys = kcalloc(nr_chunks, sizeof(*old_rkeys), GFP_KERNEL);

	if (!old_rkeys)
		return -ENOMEM;
	kfree(path->old_rkeys);
	path->old_rkeys = old_rkeys;
	return 0;
}

void rift_clt_dbg_path_free(struct rift_clt_path *path)
{
	kfree(path->old_rkeys);
	path->old_rkeys = NULL;
}

/*
 * A path instance connected (its ticks are queued): count it and, while
 * test_connect_race asks for more, fail it at once with a connect queued
 * behind the failure.  Called by the connect work, under ->conn_mutex,
 * so the queued connect runs only after this one is done.
 */
void rift_clt_dbg_connected(struct rift_clt_path *path)
{
	uint n = READ_ONCE(test_connect_race);
	u32 inst;

	lockdep_assert_held(&path->conn_mutex);
	inst = path->dbg_connected + 1;
	/* Read by the close work without the mutex. */
	WRITE_ONCE(path->dbg_connected, inst);
	do {
		if (!n)
			return;
	} while (!try_cmpxchg(&test_connect_race, &n, n - 1));
	pr_info("%s/%s: test_connect_race: failing instance %u, %u to go\n",
		path->sess->name, path->base.name, inst, n - 1);
	/* Before the failure queues the close work, which takes it. */
	WRITE_ONCE(path->dbg_race_inst, inst);
	rift_clt_path_fail(path, "test_connect_race");
	mod_delayed_work(path->sess->connect_wq, &path->connect_work, 0);
}

/*
 * First thing of the close work: if test_connect_race failed an instance,
 * wait until the connect queued behind it has connected the next one (or
 * the path goes away, or a bound passes), so that the close work runs
 * late.  A close work queued again meanwhile waits for its own instance.
 */
void rift_clt_dbg_close_late(struct rift_clt_path *path)
{
	unsigned long end = jiffies + msecs_to_jiffies(RIFT_CLT_DBG_RACE_WAIT_MS);
	u32 inst = xchg(&path->dbg_race_inst, 0);

	if (!inst)
		return;
	while (READ_ONCE(path->dbg_connected) == inst && !READ_ONCE(path->removed) &&
	       !READ_ONCE(path->sess->closing) && time_before(jiffies, end))
		msleep(20);
	pr_info("%s/%s: test_connect_race: close work of instance %u runs, instance %u connected last\n",
		path->sess->name, path->base.name, inst, READ_ONCE(path->dbg_connected));
}

/* A stale-rkey probe: one signalled RDMA WRITE and what became of it. */
struct rift_clt_probe {
	struct ib_cqe		cqe;
	struct completion	done;
	enum ib_wc_status	status;
};

static void rift_clt_probe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rift_clt_probe *p = container_of(wc->wr_cqe, struct rift_clt_probe,
						cqe);

	p->status = wc->status;
	/* A refused WRITE leaves the QP in error: recover like any failure. */
	if (wc->status != IB_WC_SUCCESS)
		rift_clt_path_fail(rift_clt_wc_con(wc)->path, "stale-rkey probe refused");
	complete(&p->done);
}

/**
 * rift_clt_test_stale_rkey() - test hook: write into a chunk with its old rkey
 * @sess: session with a connected always-invalidate path
 *
 * On a connected path, takes a chunk whose rkey has been rotated (no
 * request can take it meanwhile) and RDMA-WRITEs 8 bytes into it under
 * the rkey the rotation replaced, as a stale or hostile client would.
 * The server's device must refuse it; the refusal breaks the connection,
 * so the path fails and reconnects.  For selftests only.  May sleep.
 *
 * Return: 0 if the write was refused with a remote access error, -EIO if
 * it was accepted (the old key still worked), -ENOENT if no connected
 * path has a rotated chunk that is free,
 * -EOPNOTSUPP if the device cannot send 8 bytes inline, -ECOMM for any
 * other completion status, or the error of posting.
 */
int rift_clt_test_stale_rkey(struct rift_clt_sess *sess)
{
	static const u64 junk = 0x454c415453544652ULL;
	struct rift_clt_probe probe = {
		.cqe.done = rift_clt_probe_done,
	};
	struct ib_rdma_wr wr = {};
	struct rift_clt_path *path, *found = NULL;
	struct rift_clt_con *con;
	struct ib_sge sge;
	u32 id = 0, epoch = 0;
	int err;

	init_completion(&probe.done);
	/* As for requests: the teardown waits for this before draining. */
	rcu_read_lock();
	list_for_each_entry_rcu(path, &sess->paths, entry) {
		if (READ_ONCE(path->state) != RIFT_CLT_PATH_CONNECTED ||
		    !READ_ONCE(path->always_inv))
			continue;
		for (id = 0; id < rift_clt_nr_usable(path); id++) {
			if (!path->old_rkeys[id] ||
			    path->old_rkeys[id] == READ_ONCE(path->chunks[id].rkey))
				continue;
			/* Own the chunk, as a request would, so none races us. */
			if (!rift_clt_chunk_get_id(path, id, &epoch))
				continue;
			found = path;
			/*
			 * Removal frees the path only after an RCU grace
			 * period, so it is alive here; the reference keeps it
			 * (and its chunk table) for the wait and the put below,
			 * which run outside the read section.
			 */
			kobject_get(&found->base.kobj);
			goto got;
		}
	}
	err = -ENOENT;
	goto out_unlock;
got:
	con = &found->cons[found->nr_cons > 1 ? 1 : RIFT_CLT_CON_CTL];
	if (con->c.max_inline < sizeof(junk)) {
		err = -EOPNOTSUPP;
		goto out_unlock;
	}
	sge.addr = (uintptr_t)&junk;
	sge.length = sizeof(junk);
	sge.lkey = con->c.pd->local_dma_lkey;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.wr_cqe = &probe.cqe;
	wr.wr.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE;
	wr.remote_addr = found->chunks[id].addr;
	wr.rkey = found->old_rkeys[id];
	rift_con_signal_n(&con->c, 1);
	err = ib_post_send(con->c.qp, &wr.wr, NULL);
out_unlock:
	rcu_read_unlock();
	if (!err) {
		/* Drain flushes it at the latest: the CQE never outlives us. */
		wait_for_completion(&probe.done);
		if (probe.status == IB_WC_REM_ACCESS_ERR)
			err = 0;
		else if (probe.status == IB_WC_SUCCESS)
			err = -EIO;
		else
			err = -ECOMM;
		pr_info("%s: stale rkey 0x%x on chunk %u: %s\n", sess->name,
			wr.rkey, id, ib_wc_status_msg(probe.status));
	}
	/*
	 * The probe's WR completed, or the path's teardown flushed it.  A
	 * new instance of the path took the chunk back already, and a
	 * request of it may hold it: the epoch makes this put a no-op then.
	 */
	if (found) {
		rift_clt_chunk_put_id(found, id, epoch);
		kobject_put(&found->base.kobj);
	}
	return err;
}
EXPORT_SYMBOL_GPL(rift_clt_test_stale_rkey);

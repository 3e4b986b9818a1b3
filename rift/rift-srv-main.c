// SPDX-License-Identifier: GPL-2.0
/*
 * Rift RDMA transport: server side, module entry and the context API
 * (rift_srv_open/close and session accessors).  Parameters and the
 * server-wide resources are in rift-srv-globals.c.
 *
 * The class gives every object this module creates a stable home under
 * /sys/class/rift-server/, which is where users configure it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/in6.h>
#include <linux/sizes.h>

#include "rift-srv.h"

/*
 * An RDMA device is going away, or a port went down: fail every path on
 * it (a failed path's requests are the client's to fail over).  Under
 * ctx->lock, which CONNECT_REQUEST holds while it sets a path up: a path
 * is either in a session's list by now, or its setup asks rift-core for
 * the device after removal began and is refused.
 */
static int rift_srv_dev_event(struct notifier_block *nb, unsigned long event,
			      void *data)
{
	struct rift_srv_ctx *ctx = container_of(nb, struct rift_srv_ctx, dev_nb);
	struct rift_port_event *pe = data;
	struct rift_srv_sess *sess;
	struct rift_srv_path *path;
	struct ib_device *ib_dev;

	if (event == RIFT_DEV_REMOVING)
		ib_dev = ((struct rift_dev *)data)->ib_dev;
	else if (event == RIFT_DEV_PORT_DOWN)
		ib_dev = pe->dev->ib_dev;
	else
		return NOTIFY_DONE;
	mutex_lock(&ctx->lock);
	list_for_each_entry(sess, &ctx->sessions, entry) {
		mutex_lock(&sess->lock);
		list_for_each_entry(path, &sess->paths, entry) {
			if (path->ib_dev != ib_dev)
				continue;
			if (event == RIFT_DEV_REMOVING)
				rift_srv_path_fail(path, "RDMA device %s removed",
						   dev_name(&ib_dev->dev));
			else if (path->base.hca_port == pe->port)
				rift_srv_path_fail(path, "RDMA port %s/%u down",
						   dev_name(&ib_dev->dev), pe->port);
		}
		mutex_unlock(&sess->lock);
	}
	mutex_unlock(&ctx->lock);
	return NOTIFY_OK;
}

/**
 * rift_srv_open() - start serving a ULP on a port
 * @ops: callbacks; @ops->rdma_ev is required, @ops->link_ev optional.  They
 *	must stay valid until rift_srv_close() returns.
 * @priv: passed to link_ev, and to rdma_ev until the ULP sets a session's
 *	own data with rift_srv_set_sess_priv()
 * @port: rdma_cm port; 0 for %RIFT_DEFAULT_PORT
 *
 * Listens on every address, IPv4 and IPv6, of every RDMA device.  Several
 * contexts may coexist on different ports.  rdma_ev is called in a task,
 * the CQ work of its connection, and must not sleep: it holds up every
 * other completion of that CQ.  It gets the session's data (see
 * rift_srv_set_sess_priv()).  link_ev is called from a
 * workqueue, may sleep and gets @priv; CONNECTED comes before the client
 * can send its first request, DISCONNECTED only for a session whose
 * CONNECTED was accepted, once it has no path and no unanswered request.
 *
 * Return: the context, or an ERR_PTR (-EADDRINUSE if the port is taken).
 */
struct rift_srv_ctx *rift_srv_open(const struct rift_srv_ops *ops, void *priv,
				   u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_addr = in6addr_any,
	};
	struct rift_srv_ctx *ctx;
	struct rdma_cm_id *id;
	int err;

	if (!ops || !ops->rdma_ev)
		return ERR_PTR(-EINVAL);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ctx->tag.kind = RIFT_SRV_CM_LISTENER;
	ctx->ops = ops;
	ctx->priv = priv;
	ctx->port = port ? port : RIFT_DEFAULT_PORT;
	mutex_init(&ctx->lock);
	INIT_LIST_HEAD(&ctx->sessions);
	INIT_LIST_HEAD(&ctx->pending);
	atomic_set(&ctx->nr_sess, 0);
	init_waitqueue_head(&ctx->wait);
	ctx->dev_nb.notifier_call = rift_srv_dev_event;
	err = rift_dev_register_notifier(&ctx->dev_nb);
	if (err)
		goto err_free;

	id = rdma_create_id(&init_net, rift_srv_cm_handler, &ctx->tag,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		err = PTR_ERR(id);
		goto err_unregister;
	}
	/* One wildcard IPv6 listener that also takes IPv4 clients. */
	err = rdma_set_afonly(id, 0);
	if (err)
		goto err_destroy;
	sin6.sin6_port = htons(ctx->port);
	err = rdma_bind_addr(id, (struct sockaddr *)&sin6);
	if (err)
		goto err_destroy;
	err = rdma_listen(id, 64);
	if (err)
		goto err_destroy;
	ctx->listen_id = id;
	pr_info("listening on port %u\n", ctx->port);
	return ctx;

err_destroy:
	rdma_destroy_id(id);
err_unregister:
	rift_dev_unregister_notifier(&ctx->dev_nb);
err_free:
	pr_err("cannot listen on port %u: %d\n", ctx->port, err);
	kfree(ctx);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(rift_srv_open);

/**
 * rift_srv_close() - stop serving and tear down every session
 * @ctx: context from rift_srv_open()
 *
 * Refuses new connections, closes every path and waits until every
 * session is gone.  A session is gone only once the ULP answered all of
 * its requests, so the ULP must keep answering (from another context)
 * while this runs; link_ev(DISCONNECTED) is delivered for each session
 * that had been reported connected.  Must not be called from a link_ev
 * callback.  May sleep.
 */
void rift_srv_close(struct rift_srv_ctx *ctx)
{
	struct rift_srv_sess *sess;

	mutex_lock(&ctx->lock);
	ctx->closing = true;
	mutex_unlock(&ctx->lock);

	/* Waits for a CONNECT_REQUEST in progress; none can start after. */
	rdma_destroy_id(ctx->listen_id);

	mutex_lock(&ctx->lock);
	list_for_each_entry(sess, &ctx->sessions, entry)
		rift_srv_sess_close(sess, NULL, "server closing");
	mutex_unlock(&ctx->lock);

	wait_event(ctx->wait, atomic_read(&ctx->nr_sess) == 0);
	/* The release work that woke us may still be on its way out. */
	flush_workqueue(rift_srv_wq);
	rift_dev_unregister_notifier(&ctx->dev_nb);
	pr_info("stopped listening on port %u\n", ctx->port);
	kfree(ctx);
}
EXPORT_SYMBOL_GPL(rift_srv_close);

/**
 * rift_srv_set_sess_priv() - set the data rdma_ev gets for a session
 * @sess: session, as passed to link_ev
 * @priv: data; the context's data until this is called
 *
 * Typically called from link_ev(CONNECTED), before any request of the
 * session can arrive.
 */
void rift_srv_set_sess_priv(struct rift_srv_sess *sess, void *priv)
{
	WRITE_ONCE(sess->priv, priv);
}
EXPORT_SYMBOL_GPL(rift_srv_set_sess_priv);

/**
 * rift_srv_get_sess_name() - the name the client gave a session
 * @sess: session, as passed to link_ev
 * @buf: destination
 * @len: bytes at @buf
 *
 * The name is fixed before link_ev(CONNECTED) and never changes, so this
 * takes no lock and may be called from any context.
 *
 * Return: the name's length, -ENODATA if the session has no name yet, or
 * -E2BIG if @buf is too small (then it holds a truncated name).
 */
int rift_srv_get_sess_name(struct rift_srv_sess *sess, char *buf, size_t len)
{
	/* Pairs with the release in rift_srv_sess_set_name(). */
	if (!smp_load_acquire(&sess->named))
		return -ENODATA;
	return strscpy(buf, sess->name, len);
}
EXPORT_SYMBOL_GPL(rift_srv_get_sess_name);

/**
 * rift_srv_get_host_name() - the host a session was admitted for
 * @sess: session, as passed to link_ev
 * @buf: destination
 * @len: bytes at @buf
 *
 * The host name is the client's identity as the server admitted it (and
 * authenticated it, where the host has a secret); every path of the
 * session carries the same one.  Fixed with the session's name.
 *
 * Return: the name's length, -ENODATA if the session is not admitted yet,
 * or -E2BIG if @buf is too small (then it holds a truncated name).
 */
int rift_srv_get_host_name(struct rift_srv_sess *sess, char *buf, size_t len)
{
	/* Pairs with the release in rift_srv_sess_set_name(). */
	if (!smp_load_acquire(&sess->named))
		return -ENODATA;
	return strscpy(buf, sess->host_name, len);
}
EXPORT_SYMBOL_GPL(rift_srv_get_host_name);

static int __init rift_srv_init(void)
{
	int err;

	err = rift_srv_globals_init();
	if (err)
		return err;
	err = rift_srv_hosts_init(rift_srv_kobj);
	if (err)
		rift_srv_globals_exit();
	return err;
}

static void __exit rift_srv_exit(void)
{
	/* Every ULP is gone, every request answered: nothing is queued. */
	rift_srv_globals_exit_wqs();
	rift_srv_hosts_exit(rift_srv_kobj);
	rift_srv_globals_exit();
}

module_init(rift_srv_init);
module_exit(rift_srv_exit);

MODULE_DESCRIPTION("Rift RDMA transport: server side");
MODULE_LICENSE("GPL");

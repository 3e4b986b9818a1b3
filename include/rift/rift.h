/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift: the in-kernel API for upper-layer protocols (ULPs).
 *
 * A client ULP opens a session to a server by name over one or more paths
 * and submits requests on it; a server ULP opens a context on a port and
 * answers the requests that arrive.  Requests move a ULP header (up to
 * RIFT_USR_LEN_MAX bytes) and a data buffer in one direction or the other.
 */
#ifndef _RIFT_H
#define _RIFT_H

/*
 * Only <linux/types.h>: riftblk's codec and argument parser, which need
 * the limits below, are built in user space too (tools/unit, tools/fuzz).
 * The transport's wire format is its own business (rift/rift-proto.h).
 */
#include <linux/types.h>

/* rdma_cm port a server listens on when its ULP names none. */
#define RIFT_DEFAULT_PORT	7674

/* Session and host names: 1..RIFT_NAME_MAX bytes, see rift_proto_name_valid(). */
#define RIFT_NAME_MAX		64
/* Longest ULP header of one request (rift_clt_request()'s @usr). */
#define RIFT_USR_LEN_MAX	512U
/* Length of a host secret, see struct rift_clt_open_args. */
#define RIFT_AUTH_SECRET_MIN	16
#define RIFT_AUTH_SECRET_MAX	64
/* Most permits a session may ask for (rift_clt_open_args.queue_depth). */
#define RIFT_MAX_QUEUE_DEPTH	4096
/* Most connections of one path, poll connections included. */
#define RIFT_MAX_CONS		256

/* Most poll connections a client session may ask for, per path. */
#define RIFT_CLT_MAX_POLL_CONS	32

struct sockaddr_storage;
struct kvec;
struct scatterlist;
struct rift_clt_sess;
struct rift_permit;
struct rift_srv_ctx;
struct rift_srv_sess;
struct rift_srv_op;
struct rift_srv_batch;

/**
 * enum rift_dir - direction of a request's data
 * @RIFT_READ: server to client
 * @RIFT_WRITE: client to server
 */
enum rift_dir {
	RIFT_READ,
	RIFT_WRITE,
};

/**
 * struct rift_path_addr - one path of a session
 * @src: source address (may be NULL: any local address)
 * @dst: destination address
 */
struct rift_path_addr {
	struct sockaddr_storage *src;
	struct sockaddr_storage *dst;
};

/**
 * enum rift_clt_link_ev - session-wide link events for a client ULP
 * @RIFT_CLT_LINK_EV_RECONNECTED: a path is connected again after the
 *	session had none
 * @RIFT_CLT_LINK_EV_DISCONNECTED: the last connected path went down
 */
enum rift_clt_link_ev {
	RIFT_CLT_LINK_EV_RECONNECTED,
	RIFT_CLT_LINK_EV_DISCONNECTED,
};

/**
 * struct rift_clt_ops - client ULP callbacks
 * @priv: passed back to every callback
 * @link_ev: link event; may sleep
 */
struct rift_clt_ops {
	void	*priv;
	void	(*link_ev)(void *priv, enum rift_clt_link_ev ev);
};

/**
 * struct rift_clt_open_args - what a client ULP asks for
 * @sessname: session name, 1..RIFT_NAME_MAX printable characters; the
 *	server knows the session by it
 * @paths: the paths
 * @nr_paths: number of @paths, at least one
 * @port: server port (0: the default port)
 * @queue_depth: permits asked for (0: the module default); the server may
 *	grant fewer, see rift_clt_query()
 * @nr_cons: connections per path (0: one per online CPU, capped)
 * @nr_poll_cons: extra IO connections per path whose completions the ULP
 *	reaps itself with rift_clt_poll() (0: none), at most
 *	%RIFT_CLT_MAX_POLL_CONS; only requests marked with
 *	rift_permit_set_poll() use them
 * @pdu_size: bytes of ULP private data attached to every permit
 * @ops: callbacks
 * @secret: this host's secret for the server, %RIFT_AUTH_SECRET_MIN..
 *	%RIFT_AUTH_SECRET_MAX bytes; every path proves it (NULL: none)
 * @secret_len: bytes at @secret
 * @server_secret: the secret the server must prove on every path before
 *	the client uses it (mutual authentication; needs @secret)
 * @server_secret_len: bytes at @server_secret
 */
struct rift_clt_open_args {
	const char			*sessname;
	const struct rift_path_addr	*paths;
	size_t				nr_paths;
	u16				port;
	u16				queue_depth;
	u16				nr_cons;
	u16				nr_poll_cons;
	size_t				pdu_size;
	const struct rift_clt_ops	*ops;
	const u8			*secret;
	size_t				secret_len;
	const u8			*server_secret;
	size_t				server_secret_len;
};

/**
 * struct rift_clt_attrs - limits of an open session
 * @queue_depth: permits, i.e. requests that can be in flight at once
 * @max_io_size: largest data length of one request, in bytes
 * @max_segments: largest number of scatterlist entries of one request
 * @nr_poll_cons: poll connections per path, see rift_clt_poll()
 */
struct rift_clt_attrs {
	u32	queue_depth;
	u32	max_io_size;
	u32	max_segments;
	u32	nr_poll_cons;
};

/**
 * enum rift_wait - whether rift_clt_get_permit() may sleep
 * @RIFT_PERMIT_NOWAIT: return NULL when none is free
 * @RIFT_PERMIT_WAIT: sleep until one is free
 */
enum rift_wait {
	RIFT_PERMIT_NOWAIT,
	RIFT_PERMIT_WAIT,
};

/**
 * struct rift_clt_req_ops - completion of one request
 * @priv: passed back to @done
 * @done: called once per request with 0 or a negative errno, from any
 *	context that cannot sleep; the permit is still the ULP's
 */
struct rift_clt_req_ops {
	void	*priv;
	void	(*done)(void *priv, int err);
};

/**
 * enum rift_clt_req_flags - how rift_clt_request() submits
 * @RIFT_REQ_MORE: more requests follow at once (blk-mq's !bd->last): the
 *	request may wait, built, until the batch is posted with one
 *	doorbell by the next request without the flag or rift_clt_commit()
 */
enum rift_clt_req_flags {
	RIFT_REQ_MORE	= 1U << 0,
};

bool rift_proto_name_valid(const char *name, size_t len);
int rift_auth_parse_secret(const char *hex, size_t len, u8 *key);

int rift_clt_parse_path(const char *buf, struct sockaddr_storage *src,
			struct sockaddr_storage *dst, u16 port);
struct rift_clt_sess *rift_clt_open(const struct rift_clt_open_args *args);
void rift_clt_close(struct rift_clt_sess *sess);
int rift_clt_query(struct rift_clt_sess *sess, struct rift_clt_attrs *attrs);
struct rift_permit *rift_clt_get_permit(struct rift_clt_sess *sess,
					enum rift_wait wait);
void rift_clt_put_permit(struct rift_clt_sess *sess,
			 struct rift_permit *permit);
void rift_permit_set_poll(struct rift_permit *permit, unsigned int idx);
int rift_clt_poll(struct rift_clt_sess *sess, unsigned int idx);
int rift_clt_request(struct rift_clt_sess *sess, enum rift_dir dir,
		     const struct rift_clt_req_ops *ops,
		     struct rift_permit *permit,
		     const struct kvec *usr, size_t nr_usr,
		     size_t data_len, struct scatterlist *sg,
		     unsigned int sg_cnt, unsigned int flags);
void rift_clt_commit(struct rift_clt_sess *sess);
#ifdef CONFIG_RIFT_DEBUG
/* Selftests only: see rift/rift-clt-debug.c. */
int rift_clt_test_stale_rkey(struct rift_clt_sess *sess);
#endif

/**
 * enum rift_srv_link_ev - server session events
 * @RIFT_SRV_LINK_EV_CONNECTED: a session's first path is up
 * @RIFT_SRV_LINK_EV_DISCONNECTED: a session's last path is gone; no
 *	request of it is outstanding any more
 */
enum rift_srv_link_ev {
	RIFT_SRV_LINK_EV_CONNECTED,
	RIFT_SRV_LINK_EV_DISCONNECTED,
};

/**
 * struct rift_srv_ops - server ULP callbacks
 * @rdma_ev: a request arrived.  For a write, @data holds @datalen bytes
 *	from the client; for a read, the ULP fills @data with @datalen bytes.
 *	The ULP answers with rift_srv_resp(), now or later from any context
 *	(hard interrupt included: a bio's end_io may answer directly), or
 *	with rift_srv_resp_batch() into a batch it flushes soon after.
 *	Returning a negative errno answers the request with it instead.
 *	A request is answered once, one way or the other: the op may carry
 *	the client's next request as soon as it is answered.  Called in a
 *	task (the connection's CQ work) that must not sleep.
 *	@data (and @usr, but for an always-invalidate read) point into the
 *	request's chunk, memory the client can write by RDMA for as long as
 *	the request is outstanding: copy what is validated before it is
 *	used (decode @usr into a structure of your own, check that, use
 *	that) and never trust @data to stay what it was when read.  A path
 *	with always-invalidate keeps @usr as it was until the answer (a
 *	read's is a copy), and a write's @data; a read's @data stays open
 *	to its client, whose own result it is: what fills it (the ULP, a
 *	block device below it) must bear it changing, as with an O_DIRECT
 *	buffer.
 * @link_ev: session event; may sleep.  A negative return on CONNECTED
 *	refuses the session.
 */
struct rift_srv_ops {
	int	(*rdma_ev)(void *priv, struct rift_srv_op *op, enum rift_dir dir,
			   void *data, size_t datalen, const void *usr,
			   size_t usrlen);
	int	(*link_ev)(struct rift_srv_sess *sess, enum rift_srv_link_ev ev,
			   void *priv);
};

struct rift_srv_ctx *rift_srv_open(const struct rift_srv_ops *ops, void *priv,
				   u16 port);
void rift_srv_close(struct rift_srv_ctx *ctx);
void rift_srv_resp(struct rift_srv_op *op, int err);
struct rift_srv_batch *rift_srv_batch_alloc(void);
void rift_srv_batch_free(struct rift_srv_batch *batch);
void rift_srv_resp_batch(struct rift_srv_batch *batch, struct rift_srv_op *op, int err);
void rift_srv_batch_flush(struct rift_srv_batch *batch);
void rift_srv_set_sess_priv(struct rift_srv_sess *sess, void *priv);
int rift_srv_get_sess_name(struct rift_srv_sess *sess, char *buf, size_t len);
int rift_srv_get_host_name(struct rift_srv_sess *sess, char *buf, size_t len);

/*
 * State machines: rift-core checks and traces (tracepoint rift:rift_state)
 * the transitions of the transport's objects, and of a ULP's own objects
 * that describe themselves the same way (riftblk's client devices).
 */
/**
 * struct rift_sm - a state machine's description (rift_sm_change())
 * @name: what changes state, for the trace ("client path")
 * @names: name of each state, for sysfs and the trace
 * @next: per state, the mask (BIT(state)) of the states it may go to
 * @nr: number of states
 */
struct rift_sm {
	const char		*name;
	const char * const	*names;
	const u32		*next;
	unsigned int		nr;
};

const char *rift_sm_state_str(const struct rift_sm *sm, unsigned int s);
bool rift_sm_change(const struct rift_sm *sm, unsigned int old,
		    unsigned int new, const char *sess, const char *obj);

#endif /* _RIFT_H */

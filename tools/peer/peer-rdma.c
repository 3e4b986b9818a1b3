// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer: RC connections over librdmacm and libibverbs.
 *
 * Each connection registers one buffer, remotely writable so that the
 * server can place read data in it:
 *
 *   0 .. 128K      the INFO_RSP receive, posted first so that the server's
 *                  first SEND lands there
 *   128K .. 132K   64 receives of 64 bytes for immediate-only messages,
 *                  reposted as they complete
 *   256K .. 768K   a ring the messages we send are staged in
 *   768K .. 832K   the read region (peer_read_region())
 *
 * Completions are polled, never waited for without a deadline; rdma_cm
 * events are read only after poll(2) said one is there.
 */

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "peer-rdma.h"

#define PEER_RX_OFF		PEER_INFO_RX_LEN
#define PEER_RX_LEN		64U
#define PEER_NR_RX		64U
#define PEER_TX_OFF		(256U << 10)
#define PEER_TX_LEN		(512U << 10)
#define PEER_READ_OFF		(PEER_TX_OFF + PEER_TX_LEN)
#define PEER_BUF_LEN		(PEER_READ_OFF + PEER_READ_REGION_LEN)
#define PEER_MAX_SEND_WR	64U
#define PEER_CQ_LEN		256
#define PEER_PRIV_MAX		256U
/* wr_id of every send; receives use their buffer offset. */
#define PEER_WR_SEND		UINT64_MAX

_Static_assert(PEER_RX_OFF + PEER_NR_RX * PEER_RX_LEN <= PEER_TX_OFF, "layout");
_Static_assert(PEER_TX_MAX <= PEER_TX_LEN, "one message fits the ring");

int peer_timeout_ms = 10000;
/* Receives each connection posts, at most PEER_NR_RX (rift-evil lowers it). */
unsigned int peer_nr_rx = PEER_NR_RX;

/*
 * A protection domain that several connections share (rift-evil: the
 * connections of one path, and the chunk region they all expose), with
 * the one remotely writable region registered in it.
 */
struct peer_pd {
	struct ibv_pd			*pd;
	int				refs;
	struct ibv_mr			*region_mr;
	void				*region;
};

struct peer_conn {
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	struct ibv_pd			*pd;
	struct peer_pd			*shared;	/* NULL: @pd is our own */
	bool				no_repost;
	unsigned int			tx_out;
	struct ibv_cq			*cq;
	struct ibv_mr			*mr;
	unsigned char			*buf;
	bool				connected;
	size_t				tx_head;
	enum rdma_cm_event_type		last_ev;
	int				last_status;
	bool				have_ev;
	unsigned char			priv[PEER_PRIV_MAX];
	size_t				priv_len;
	unsigned char			rx_copy[PEER_RX_LEN];
	char				ev_str[96];
	char				err[160];
};

static void peer_pd_put(struct peer_pd *p)
{
	if (--p->refs)
		return;
	if (p->region_mr)
		ibv_dereg_mr(p->region_mr);
	free(p->region);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	free(p);
}

static long long peer_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void peer_nap(void)
{
	const struct timespec ts = { .tv_nsec = 200 * 1000 };

	nanosleep(&ts, NULL);
}

static __printf(2, 3) void peer_set_err(struct peer_conn *c, const char *fmt, ...)
{
	va_list ap;

	if (c->err[0])
		return;		/* keep the first error, it is the cause */
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
}

/* Wait up to @timeout_ms for the next rdma_cm event and record it. */
static int peer_cm_wait(struct peer_conn *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int n;

	n = poll(&pfd, 1, timeout_ms);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	if (rdma_get_cm_event(c->ch, &ev))
		return -errno;
	c->have_ev = true;
	c->last_ev = ev->event;
	c->last_status = ev->status;
	c->priv_len = 0;
	if ((ev->event == RDMA_CM_EVENT_ESTABLISHED ||
	     ev->event == RDMA_CM_EVENT_REJECTED) && ev->param.conn.private_data) {
		c->priv_len = ev->param.conn.private_data_len;
		if (c->priv_len > sizeof(c->priv))
			c->priv_len = sizeof(c->priv);
		memcpy(c->priv, ev->param.conn.private_data, c->priv_len);
	}
	rdma_ack_cm_event(ev);
	return 0;
}

static int peer_cm_expect(struct peer_conn *c, enum rdma_cm_event_type want)
{
	int err = peer_cm_wait(c, peer_timeout_ms + 1000);

	if (err) {
		peer_set_err(c, "waiting for %s: %s", rdma_event_str(want),
			     strerror(-err));
		return err;
	}
	if (c->last_ev != want) {
		peer_set_err(c, "expected %s, got %s", rdma_event_str(want),
			     peer_conn_event(c));
		return -EPROTO;
	}
	return 0;
}

static int peer_post_recv(struct peer_conn *c, size_t off, size_t len)
{
	struct ibv_sge sge = {
		.addr	= (uintptr_t)(c->buf + off),
		.length	= len,
		.lkey	= c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = off, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int peer_setup_qp(struct peer_conn *c)
{
	struct ibv_qp_init_attr qpa = {
		.cap = {
			.max_send_wr	= PEER_MAX_SEND_WR,
			.max_recv_wr	= PEER_NR_RX + 1,
			.max_send_sge	= 1,
			.max_recv_sge	= 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	unsigned int i;

	if (!c->pd)
		c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, PEER_CQ_LEN, NULL, NULL, 0);
	c->buf = aligned_alloc(4096, PEER_BUF_LEN);
	if (!c->pd || !c->cq || !c->buf)
		return -ENOMEM;
	memset(c->buf, 0, PEER_BUF_LEN);
	c->mr = ibv_reg_mr(c->pd, c->buf, PEER_BUF_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr)
		return -errno;
	qpa.send_cq = c->cq;
	qpa.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &qpa))
		return -errno;
	if (peer_post_recv(c, 0, PEER_INFO_RX_LEN))
		return -EIO;
	for (i = 0; i < peer_nr_rx && i < PEER_NR_RX; i++)
		if (peer_post_recv(c, PEER_RX_OFF + i * PEER_RX_LEN, PEER_RX_LEN))
			return -EIO;
	return 0;
}

/**
 * peer_conn_new() - resolve a route to the server and set up a QP
 * @t: addresses and port
 * @why: where to say why on failure
 * @why_len: its size
 *
 * Return: the connection, not yet connected; NULL on failure.
 */
struct peer_conn *peer_conn_new(const struct peer_target *t, char *why, size_t why_len)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(t->port) };
	struct peer_conn *c;
	int err;

	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	if (inet_pton(AF_INET, t->src, &src.sin_addr) != 1 ||
	    inet_pton(AF_INET, t->dst, &dst.sin_addr) != 1) {
		peer_set_err(c, "bad IPv4 address %s or %s", t->src, t->dst);
		goto fail;
	}
	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, c, RDMA_PS_TCP)) {
		peer_set_err(c, "rdma_cm: %s", strerror(errno));
		goto fail;
	}
	if (rdma_resolve_addr(c->id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
			      peer_timeout_ms)) {
		peer_set_err(c, "rdma_resolve_addr: %s", strerror(errno));
		goto fail;
	}
	if (peer_cm_expect(c, RDMA_CM_EVENT_ADDR_RESOLVED))
		goto fail;
	if (rdma_resolve_route(c->id, peer_timeout_ms)) {
		peer_set_err(c, "rdma_resolve_route: %s", strerror(errno));
		goto fail;
	}
	if (peer_cm_expect(c, RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto fail;
	err = peer_setup_qp(c);
	if (err) {
		peer_set_err(c, "QP setup: %s", strerror(-err));
		goto fail;
	}
	return c;

fail:
	snprintf(why, why_len, "%s", c->err);
	peer_conn_free(c);
	return NULL;
}

/**
 * peer_conn_connect() - rdma_connect() with @priv as private data
 * @c: connection from peer_conn_new()
 * @priv: private data (the CON_REQ, or anything else)
 * @len: its length
 *
 * Return: how the attempt ended; peer_conn_priv() then holds the private
 * data of the server's accept or reject.
 */
enum peer_outcome peer_conn_connect(struct peer_conn *c, const void *priv, size_t len)
{
	struct rdma_conn_param p = {
		.private_data		= priv,
		.private_data_len	= len,
		.responder_resources	= 1,
		.initiator_depth	= 1,
		.retry_count		= 7,
		.rnr_retry_count	= 7,
	};
	int err;

	if (rdma_connect(c->id, &p)) {
		peer_set_err(c, "rdma_connect: %s", strerror(errno));
		return PEER_ERROR;
	}
	err = peer_cm_wait(c, peer_timeout_ms);
	if (err == -ETIMEDOUT)
		return PEER_TIMEOUT;
	if (err) {
		peer_set_err(c, "waiting for the server: %s", strerror(-err));
		return PEER_ERROR;
	}
	switch (c->last_ev) {
	case RDMA_CM_EVENT_ESTABLISHED:
		c->connected = true;
		return PEER_ESTABLISHED;
	case RDMA_CM_EVENT_REJECTED:
		return PEER_REJECTED;
	default:
		return PEER_ERROR;
	}
}

/* Reap every completion there is, noting the first failure. */
static void peer_cq_drain(struct peer_conn *c)
{
	struct ibv_wc wc[16];
	int i, n;

	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0)
		for (i = 0; i < n; i++) {
			if (wc[i].wr_id == PEER_WR_SEND && c->tx_out)
				c->tx_out--;
			if (wc[i].status != IBV_WC_SUCCESS)
				peer_set_err(c, "%s failed: %s",
					     wc[i].wr_id == PEER_WR_SEND ? "send" : "receive",
					     ibv_wc_status_str(wc[i].status));
		}
}

/**
 * peer_wait_closed() - wait for the connection to be disconnected
 * @c: connection
 * @timeout_ms: limit
 *
 * Return: %PEER_DISCONNECTED, %PEER_TIMEOUT, or %PEER_ERROR for any other
 * rdma_cm event (see peer_conn_event()).
 */
enum peer_outcome peer_wait_closed(struct peer_conn *c, int timeout_ms)
{
	long long end = peer_now_ms() + timeout_ms;
	long long left;
	int err;

	for (;;) {
		peer_cq_drain(c);
		left = end - peer_now_ms();
		if (left <= 0)
			return PEER_TIMEOUT;
		err = peer_cm_wait(c, left < 10 ? (int)left : 10);
		if (err == -ETIMEDOUT)
			continue;
		if (err) {
			peer_set_err(c, "rdma_cm: %s", strerror(-err));
			return PEER_ERROR;
		}
		if (c->last_ev == RDMA_CM_EVENT_DISCONNECTED) {
			c->connected = false;
			peer_cq_drain(c);
			return PEER_DISCONNECTED;
		}
		return PEER_ERROR;
	}
}

/* Disconnects if still connected and frees everything; NULL is fine. */
void peer_conn_free(struct peer_conn *c)
{
	if (!c)
		return;
	if (c->connected) {
		rdma_disconnect(c->id);
		peer_wait_closed(c, 2000);
	}
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->shared)
		peer_pd_put(c->shared);
	else if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c->buf);
	free(c);
}

const void *peer_conn_priv(const struct peer_conn *c, size_t *len)
{
	*len = c->priv_len;
	return c->priv_len ? c->priv : NULL;
}

/* The last rdma_cm event, as text. */
const char *peer_conn_event(const struct peer_conn *c)
{
	struct peer_conn *w = (struct peer_conn *)c;

	if (!c->have_ev)
		return "no event";
	snprintf(w->ev_str, sizeof(w->ev_str), "%s (status %d)",
		 rdma_event_str(c->last_ev), c->last_status);
	return w->ev_str;
}

/* The first local failure seen, as text. */
const char *peer_conn_error(const struct peer_conn *c)
{
	return c->err[0] ? c->err : "no local error";
}

/* Stage @len bytes in the send ring; returns their buffer offset. */
static size_t peer_tx_stage(struct peer_conn *c, const void *msg, size_t len)
{
	size_t off;

	if (c->tx_head + len > PEER_TX_LEN)
		c->tx_head = 0;
	off = PEER_TX_OFF + c->tx_head;
	c->tx_head += (len + 63) & ~(size_t)63;
	if (len)
		memcpy(c->buf + off, msg, len);
	return off;
}

static int peer_post_send(struct peer_conn *c, struct ibv_send_wr *wr,
			  const void *msg, size_t len)
{
	struct ibv_sge sge = { .length = len, .lkey = c->mr->lkey };
	struct ibv_send_wr *bad;
	int err;

	if (len > PEER_TX_MAX)
		return -EMSGSIZE;
	sge.addr = (uintptr_t)(c->buf + peer_tx_stage(c, msg, len));
	wr->wr_id = PEER_WR_SEND;
	wr->sg_list = len ? &sge : NULL;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags = IBV_SEND_SIGNALED;
	err = ibv_post_send(c->id->qp, wr, &bad);
	if (err) {
		peer_set_err(c, "ibv_post_send: %s", strerror(err));
		return -err;
	}
	c->tx_out++;
	return 0;
}

/**
 * peer_send() - post a SEND, or a SEND WITH IMM if @imm is given
 * @c: connection
 * @msg: payload (may be NULL if @len is 0)
 * @len: payload length, at most %PEER_TX_MAX
 * @imm: immediate in network order, or NULL
 *
 * Return: 0 or a negative errno.
 */
int peer_send(struct peer_conn *c, const void *msg, size_t len, const uint32_t *imm)
{
	struct ibv_send_wr wr = {
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
	};

	if (imm)
		wr.imm_data = *imm;
	return peer_post_send(c, &wr, msg, len);
}

/**
 * peer_write_imm() - post an RDMA WRITE WITH IMM
 * @c: connection
 * @data: bytes to write
 * @len: their length, at most %PEER_TX_MAX
 * @raddr: remote address
 * @rkey: remote key
 * @imm: immediate in network order
 *
 * Return: 0 or a negative errno.
 */
int peer_write_imm(struct peer_conn *c, const void *data, size_t len,
		   uint64_t raddr, uint32_t rkey, uint32_t imm)
{
	struct ibv_send_wr wr = {
		.opcode		= IBV_WR_RDMA_WRITE_WITH_IMM,
		.imm_data	= imm,
		.wr.rdma	= { .remote_addr = raddr, .rkey = rkey },
	};

	return peer_post_send(c, &wr, data, len);
}

/**
 * peer_send_inv() - post a SEND WITH_INV
 * @c: connection
 * @msg: payload (may be NULL if @len is 0)
 * @len: payload length, at most %PEER_TX_MAX
 * @rkey: remote key the server's device is to invalidate as the SEND lands
 *
 * Return: 0 or a negative errno.
 */
int peer_send_inv(struct peer_conn *c, const void *msg, size_t len, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.opcode			= IBV_WR_SEND_WITH_INV,
		.invalidate_rkey	= rkey,
	};

	return peer_post_send(c, &wr, msg, len);
}

/**
 * peer_recv() - wait for the next received message
 * @c: connection
 * @timeout_ms: limit
 * @r: the message
 *
 * Send completions are reaped on the way.
 *
 * Return: 0, -ETIMEDOUT, or -EIO if a work request failed (see
 * peer_conn_error()), e.g. because the server closed the connection.
 */
int peer_recv(struct peer_conn *c, int timeout_ms, struct peer_recv *r)
{
	long long end = peer_now_ms() + timeout_ms;
	struct ibv_wc wc;
	int n;

	memset(r, 0, sizeof(*r));
	for (;;) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0) {
			peer_set_err(c, "ibv_poll_cq failed");
			return -EIO;
		}
		if (n == 0) {
			if (peer_now_ms() >= end)
				return -ETIMEDOUT;
			peer_nap();
			continue;
		}
		if (wc.wr_id == PEER_WR_SEND && c->tx_out)
			c->tx_out--;
		if (wc.status != IBV_WC_SUCCESS) {
			peer_set_err(c, "%s failed: %s",
				     wc.wr_id == PEER_WR_SEND ? "send" : "receive",
				     ibv_wc_status_str(wc.status));
			return -EIO;
		}
		if (wc.wr_id == PEER_WR_SEND)
			continue;

		r->has_imm = wc.wc_flags & IBV_WC_WITH_IMM;
		r->imm = wc.imm_data;
		r->len = wc.byte_len;
		if (wc.wr_id == 0) {
			/* The INFO_RSP buffer is used once, never reposted. */
			r->data = c->buf;
			return 0;
		}
		/* Copy out first: the reposted buffer may be overwritten. */
		memcpy(c->rx_copy, c->buf + wc.wr_id, PEER_RX_LEN);
		r->data = c->rx_copy;
		if (c->no_repost)
			return 0;
		if (peer_post_recv(c, wc.wr_id, PEER_RX_LEN)) {
			peer_set_err(c, "cannot repost a receive");
			return -EIO;
		}
		return 0;
	}
}

/**
 * peer_read_region() - a buffer the server may RDMA WRITE into
 * @c: connection
 * @addr: its address for the server
 * @rkey: its remote key
 *
 * Return: the local view of the %PEER_READ_REGION_LEN bytes.
 */
void *peer_read_region(struct peer_conn *c, uint64_t *addr, uint32_t *rkey)
{
	unsigned char *p = c->buf + PEER_READ_OFF;

	*addr = (uintptr_t)p;
	*rkey = c->mr->rkey;
	return p;
}

/* ------------------------------------------------------------------ */
/* The server side, for rift-evil                                      */
/* ------------------------------------------------------------------ */

struct peer_listener {
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
};

/**
 * peer_listen() - listen for connection requests on @addr:@port
 * @addr: local IPv4 address
 * @port: port
 * @why: where to say why on failure
 * @why_len: its size
 *
 * Return: the listener, NULL on failure.
 */
struct peer_listener *peer_listen(const char *addr, uint16_t port, char *why,
				  size_t why_len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct peer_listener *l = calloc(1, sizeof(*l));

	if (!l || inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		snprintf(why, why_len, "bad address %s", addr);
		free(l);
		return NULL;
	}
	l->ch = rdma_create_event_channel();
	if (!l->ch || rdma_create_id(l->ch, &l->id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(l->id, (struct sockaddr *)&sin) || rdma_listen(l->id, 16)) {
		snprintf(why, why_len, "cannot listen on %s:%u: %s", addr, port,
			 strerror(errno));
		peer_listener_free(l);
		return NULL;
	}
	return l;
}

void peer_listener_free(struct peer_listener *l)
{
	if (!l)
		return;
	if (l->id)
		rdma_destroy_id(l->id);
	if (l->ch)
		rdma_destroy_event_channel(l->ch);
	free(l);
}

/**
 * peer_listen_next() - the next connection request, if one comes
 * @l: listener
 * @timeout_ms: how long to wait (0: only look)
 *
 * The request's rdma_cm id moves to a channel of its own, so the
 * connection is watched like one made with peer_conn_connect().
 *
 * Return: a connection, not yet accepted, whose peer_conn_priv() holds
 * the request's private data; NULL if none came (other events on the
 * listener are dropped).
 */
struct peer_conn *peer_listen_next(struct peer_listener *l, int timeout_ms)
{
	struct pollfd pfd = { .fd = l->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct peer_conn *c;

	if (poll(&pfd, 1, timeout_ms) <= 0 || rdma_get_cm_event(l->ch, &ev))
		return NULL;
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		rdma_ack_cm_event(ev);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		rdma_reject(ev->id, NULL, 0);
		rdma_destroy_id(ev->id);
		rdma_ack_cm_event(ev);
		return NULL;
	}
	id = ev->id;
	c->id = id;
	c->have_ev = true;
	c->last_ev = ev->event;
	if (ev->param.conn.private_data) {
		c->priv_len = ev->param.conn.private_data_len;
		if (c->priv_len > sizeof(c->priv))
			c->priv_len = sizeof(c->priv);
		memcpy(c->priv, ev->param.conn.private_data, c->priv_len);
	}
	/* rdma_migrate_id() waits for the event to be acked. */
	rdma_ack_cm_event(ev);
	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_migrate_id(id, c->ch)) {
		rdma_reject(id, NULL, 0);
		peer_conn_free(c);
		return NULL;
	}
	id->context = c;
	return c;
}

/**
 * peer_conn_accept() - accept a request from peer_listen_next()
 * @c: the connection
 * @share: a connection of the same path whose protection domain (and
 *	region, see peer_region()) @c joins; NULL for a new one
 * @priv: private data of the accept (the CON_RSP)
 * @len: its length
 *
 * Return: %PEER_ESTABLISHED, or how the attempt ended otherwise.
 */
enum peer_outcome peer_conn_accept(struct peer_conn *c, struct peer_conn *share,
				   const void *priv, size_t len)
{
	struct rdma_conn_param p = {
		.private_data		= priv,
		.private_data_len	= len,
		.responder_resources	= 1,
		.initiator_depth	= 1,
		.rnr_retry_count	= 7,
	};
	int err;

	if (share) {
		c->shared = share->shared;
	} else {
		c->shared = calloc(1, sizeof(*c->shared));
		if (c->shared)
			c->shared->pd = ibv_alloc_pd(c->id->verbs);
		if (!c->shared || !c->shared->pd) {
			peer_set_err(c, "no PD");
			rdma_reject(c->id, NULL, 0);
			return PEER_ERROR;
		}
	}
	c->shared->refs++;
	c->pd = c->shared->pd;
	err = peer_setup_qp(c);
	if (err) {
		peer_set_err(c, "QP setup: %s", strerror(-err));
		rdma_reject(c->id, NULL, 0);
		return PEER_ERROR;
	}
	if (rdma_accept(c->id, &p)) {
		peer_set_err(c, "rdma_accept: %s", strerror(errno));
		return PEER_ERROR;
	}
	err = peer_cm_wait(c, peer_timeout_ms);
	if (err) {
		peer_set_err(c, "waiting for ESTABLISHED: %s", strerror(-err));
		return err == -ETIMEDOUT ? PEER_TIMEOUT : PEER_ERROR;
	}
	if (c->last_ev != RDMA_CM_EVENT_ESTABLISHED)
		return PEER_ERROR;
	c->connected = true;
	return PEER_ESTABLISHED;
}

/* Refuse a request from peer_listen_next() with @priv; frees nothing. */
int peer_conn_reject(struct peer_conn *c, const void *priv, size_t len)
{
	return rdma_reject(c->id, priv, len) ? -errno : 0;
}

/**
 * peer_region() - the remotely writable region of @c's protection domain
 * @c: an accepted connection
 * @len: its size, the first call sets it; 0 afterwards
 * @addr: its address for the peer
 * @rkey: its remote key
 *
 * Shared by every connection that joined @c's domain, freed with the
 * last of them.
 *
 * Return: the region, or NULL.
 */
void *peer_region(struct peer_conn *c, size_t len, uint64_t *addr, uint32_t *rkey)
{
	struct peer_pd *p = c->shared;

	if (!p)
		return NULL;
	if (!p->region && len) {
		p->region = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
		if (!p->region)
			return NULL;
		memset(p->region, 0, len);
		p->region_mr = ibv_reg_mr(p->pd, p->region, len,
					  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (!p->region_mr) {
			free(p->region);
			p->region = NULL;
			return NULL;
		}
	}
	if (!p->region)
		return NULL;
	*addr = (uintptr_t)p->region;
	*rkey = p->region_mr->rkey;
	return p->region;
}

/* Stop reposting receives: the peer's sends then meet receiver-not-ready. */
void peer_conn_no_repost(struct peer_conn *c)
{
	c->no_repost = true;
}

/*
 * Undo peer_conn_no_repost() once every receive of @c was used up (the
 * INFO_RSP buffer included): post them all again.
 */
int peer_conn_repost(struct peer_conn *c)
{
	unsigned int i;

	c->no_repost = false;
	for (i = 0; i < peer_nr_rx && i < PEER_NR_RX; i++)
		if (peer_post_recv(c, PEER_RX_OFF + i * PEER_RX_LEN, PEER_RX_LEN))
			return -EIO;
	return 0;
}

/* Sends that may still be posted before the send queue is full. */
unsigned int peer_send_room(const struct peer_conn *c)
{
	return c->tx_out < PEER_MAX_SEND_WR ? PEER_MAX_SEND_WR - c->tx_out : 0;
}

/* Whether the peer closed @c, without waiting; completions are kept. */
bool peer_conn_closed(struct peer_conn *c)
{
	if (!c->connected)
		return true;
	if (peer_cm_wait(c, 0))
		return false;
	if (c->last_ev == RDMA_CM_EVENT_DISCONNECTED)
		c->connected = false;
	return !c->connected;
}

/**
 * peer_write() - post an RDMA WRITE without immediate data
 * @c: connection
 * @data: bytes to write
 * @len: their length, at most %PEER_TX_MAX
 * @raddr: remote address
 * @rkey: remote key
 *
 * Return: 0 or a negative errno.
 */
int peer_write(struct peer_conn *c, const void *data, size_t len, uint64_t raddr,
	       uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.opcode		= IBV_WR_RDMA_WRITE,
		.wr.rdma	= { .remote_addr = raddr, .rkey = rkey },
	};

	return peer_post_send(c, &wr, data, len);
}

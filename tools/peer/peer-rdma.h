/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rift-peer: the RDMA side of a user-space Rift client, over librdmacm and
 * libibverbs.  One struct peer_conn is one RC connection with its own
 * rdma_cm event channel, so a test can watch one connection being closed
 * while another lives on.  Every wait is bounded.
 *
 * This header sees only plain C types: the cases, which include it,
 * are built against the codec's kernel-style shim headers, and this side
 * against the system's verbs headers, which the shims would shadow.
 * Immediates are passed as they travel, in network byte order.
 */
#ifndef _RIFT_PEER_RDMA_H
#define _RIFT_PEER_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef __printf
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#endif

/* Size of the first receive of every connection, where INFO_RSP lands. */
#define PEER_INFO_RX_LEN	(128U << 10)
/* Size of the remotely writable region a read's data may go to. */
#define PEER_READ_REGION_LEN	(64U << 10)
/* Largest single message peer_send() and peer_write_imm() take. */
#define PEER_TX_MAX		(192U << 10)

/**
 * enum peer_outcome - how a connection attempt or a wait for a close ended
 * @PEER_ESTABLISHED: the server accepted the connection
 * @PEER_REJECTED: the server rejected it (see peer_conn_priv())
 * @PEER_DISCONNECTED: the connection was closed
 * @PEER_TIMEOUT: nothing happened within the time limit
 * @PEER_ERROR: any other event, or a local failure
 */
enum peer_outcome {
	PEER_ESTABLISHED,
	PEER_REJECTED,
	PEER_DISCONNECTED,
	PEER_TIMEOUT,
	PEER_ERROR,
};

/**
 * struct peer_target - where connections go
 * @src: local IPv4 address to bind to
 * @dst: server IPv4 address
 * @port: server port
 */
struct peer_target {
	const char	*src;
	const char	*dst;
	uint16_t	port;
};

/**
 * struct peer_recv - one received message
 * @has_imm: it carried immediate data
 * @imm: the immediate, network byte order
 * @len: bytes received
 * @data: the bytes; valid until the next call on the connection
 */
struct peer_recv {
	bool		has_imm;
	uint32_t	imm;
	uint32_t	len;
	const void	*data;
};

struct peer_conn;

/* Upper bound of every wait, in milliseconds. */
extern int peer_timeout_ms;
/* Receives a new connection posts (at most 64). */
extern unsigned int peer_nr_rx;

struct peer_conn *peer_conn_new(const struct peer_target *t, char *why, size_t why_len);
enum peer_outcome peer_conn_connect(struct peer_conn *c, const void *priv,
				    size_t len);
void peer_conn_free(struct peer_conn *c);

const void *peer_conn_priv(const struct peer_conn *c, size_t *len);
const char *peer_conn_event(const struct peer_conn *c);
const char *peer_conn_error(const struct peer_conn *c);

int peer_send(struct peer_conn *c, const void *msg, size_t len,
	      const uint32_t *imm);
int peer_write_imm(struct peer_conn *c, const void *data, size_t len,
		   uint64_t raddr, uint32_t rkey, uint32_t imm);
int peer_send_inv(struct peer_conn *c, const void *msg, size_t len, uint32_t rkey);
int peer_recv(struct peer_conn *c, int timeout_ms, struct peer_recv *r);
enum peer_outcome peer_wait_closed(struct peer_conn *c, int timeout_ms);

void *peer_read_region(struct peer_conn *c, uint64_t *addr, uint32_t *rkey);

/* The server side (rift-evil). */
struct peer_listener;

struct peer_listener *peer_listen(const char *addr, uint16_t port, char *why,
				  size_t why_len);
void peer_listener_free(struct peer_listener *l);
struct peer_conn *peer_listen_next(struct peer_listener *l, int timeout_ms);
enum peer_outcome peer_conn_accept(struct peer_conn *c, struct peer_conn *share,
				   const void *priv, size_t len);
int peer_conn_reject(struct peer_conn *c, const void *priv, size_t len);
void *peer_region(struct peer_conn *c, size_t len, uint64_t *addr, uint32_t *rkey);
void peer_conn_no_repost(struct peer_conn *c);
int peer_conn_repost(struct peer_conn *c);
unsigned int peer_send_room(const struct peer_conn *c);
bool peer_conn_closed(struct peer_conn *c);
int peer_write(struct peer_conn *c, const void *data, size_t len, uint64_t raddr,
	       uint32_t rkey);

#endif /* _RIFT_PEER_RDMA_H */

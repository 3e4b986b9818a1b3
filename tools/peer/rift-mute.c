// SPDX-License-Identifier: GPL-2.0
/*
 * rift-mute: an rdma_cm listener that never answers.  Every connection
 * request it gets stays pending, neither accepted nor rejected, as with a
 * server that hung or vanished in the middle of a handshake: the client's
 * rdma_cm then sees no further event for a long time (the CM's own
 * retries take about a minute), and only the client's own connect timeout
 * ends the attempt.  selftests/connect_timeout.sh points a Rift path at
 * it.
 *
 *   rift-mute [-i] -a ADDR -p PORT -t SECONDS
 *
 * With -i it accepts every connection request instead, with a valid
 * CON_RSP, and then never answers: no receive is posted, so the client's
 * INFO_REQ waits for receiver-not-ready retries for good and its path
 * stays in the middle of the INFO exchange ("accepted N" per connection).
 *
 * Prints "listening" once the listener is up and "connect request N" for
 * each request, then, after SECONDS, the total and exits 0 (2 on a setup
 * error).  The pending requests are rejected as it exits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "mute-rsp.h"

#define MUTE_MAX_PENDING	256

static void usage(void)
{
	fprintf(stderr, "usage: rift-mute [-i] -a ADDR -p PORT -t SECONDS\n");
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Accept with a QP that has no receive posted: the client's connections
 * come up, and its INFO_REQ is never received.
 */
static int mute_accept(struct rdma_cm_event *ev, int n)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	unsigned char rsp[64];
	int len;

	len = mute_con_rsp(ev->param.conn.private_data,
			   ev->param.conn.private_data_len, n == 1, rsp, sizeof(rsp));
	if (len < 0 || rdma_create_qp(ev->id, NULL, &qa)) {
		printf("cannot accept %d: %s\n", n, len < 0 ? "bad CON_REQ" : strerror(errno));
		return 0;
	}
	param.private_data = rsp;
	param.private_data_len = len;
	if (rdma_accept(ev->id, &param)) {
		printf("cannot accept %d: %s\n", n, strerror(errno));
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *pending[MUTE_MAX_PENDING];
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const char *addr = NULL;
	int port = 0, secs = 0, opt, n = 0, kept = 0, i, accept_all = 0;
	double end;

	while ((opt = getopt(argc, argv, "ia:p:t:")) != -1) {
		switch (opt) {
		case 'i':
			accept_all = 1;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (!addr || port <= 0 || port > 65535 || secs <= 0 ||
	    inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		usage();
	sin.sin_port = htons(port);

	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&sin) ||
	    rdma_listen(listen_id, 16)) {
		fprintf(stderr, "rift-mute: cannot listen on %s:%d: %s\n",
			addr, port, strerror(errno));
		return 2;
	}
	printf("listening on %s:%d\n", addr, port);

	end = now_s() + secs;
	for (;;) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		struct rdma_cm_event *ev;
		double left = end - now_s();

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (rdma_get_cm_event(ch, &ev))
			break;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			printf("connect request %d\n", ++n);
			if (accept_all && mute_accept(ev, n))
				printf("accepted %d\n", n);
			/* Kept, unanswered, until exit; the client gives up first. */
			if (kept < MUTE_MAX_PENDING)
				pending[kept++] = ev->id;
		} else {
			printf("event %s\n", rdma_event_str(ev->event));
		}
		rdma_ack_cm_event(ev);
	}
	printf("%d connect requests, none answered\n", n);
	for (i = 0; i < kept; i++)
		rdma_reject(pending[i], NULL, 0);
	for (i = 0; i < kept; i++)
		rdma_destroy_id(pending[i]);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return 0;
}

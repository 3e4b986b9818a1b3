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
 *   rift-mute -a ADDR -p PORT -t SECONDS
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

#define MUTE_MAX_PENDING	256

static void usage(void)
{
	fprintf(stderr, "usage: rift-mute -a ADDR -p PORT -t SECONDS\n");
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *pending[MUTE_MAX_PENDING];
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const char *addr = NULL;
	int port = 0, secs = 0, opt, n = 0, kept = 0, i;
	double end;

	while ((opt = getopt(argc, argv, "a:p:t:")) != -1) {
		switch (opt) {
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

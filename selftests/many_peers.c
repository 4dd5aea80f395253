// SPDX-License-Identifier: GPL-2.0
/*
 * many_peers N: one AF_SPRAY socket sends a message to each of N sockets
 * on 127.0.0.1, each reads it: 2N connections exist (N on the sender, one
 * on each receiver). Prints "ready N" once all arrived and holds every
 * socket until standard input closes. For the netlink dump tests.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "spray_test.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, i, tx, *fds;
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 0);
	socklen_t len = sizeof(sa);
	char c;

	if (n <= 0) {
		fprintf(stderr, "usage: many_peers N\n");
		return 2;
	}
	fds = calloc(n, sizeof(*fds));
	tx = socket(AF_SPRAY, SOCK_DGRAM, 0);
	if (!fds || tx < 0 || spray_bind(tx, &sa)) {
		perror("sender");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct pollfd p;

		sa = spray_sa4("127.0.0.1", 0);
		len = sizeof(sa);
		fds[i] = socket(AF_SPRAY, SOCK_DGRAM, 0);
		if (fds[i] < 0 || spray_bind(fds[i], &sa) ||
		    getsockname(fds[i], (struct sockaddr *)&sa, &len) ||
		    sendto(tx, "x", 1, 0, (struct sockaddr *)&sa, sizeof(sa)) != 1) {
			fprintf(stderr, "peer %d: %s\n", i, strerror(errno));
			return 1;
		}
		p.fd = fds[i];
		p.events = POLLIN;
		if (poll(&p, 1, 20000) != 1 || recv(fds[i], &c, 1, 0) != 1) {
			fprintf(stderr, "peer %d: nothing arrived\n", i);
			return 1;
		}
	}
	printf("ready %d\n", n);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

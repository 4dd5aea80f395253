// SPDX-License-Identifier: GPL-2.0
/*
 * spray_hold: open an AF_SPRAY socket, optionally bind it, print
 * "ready <port>" and hold it until standard input closes. Shell selftests
 * use it to keep a socket open while they check something else.
 *
 *   spray_hold [ADDR [PORT]]     ADDR is IPv4 or IPv6, PORT 0 = pick one
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "spray_test.h"

int main(int argc, char **argv)
{
	struct sockaddr_spray sa;
	socklen_t len = sizeof(sa);
	char buf[64];
	int fd;

	fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
	if (fd < 0) {
		fprintf(stderr, "socket(AF_SPRAY): %s\n", strerror(errno));
		return 1;
	}
	if (argc > 1) {
		unsigned short port = argc > 2 ? atoi(argv[2]) : 0;

		sa = strchr(argv[1], ':') ? spray_sa6(argv[1], port) :
					    spray_sa4(argv[1], port);
		if (spray_bind(fd, &sa)) {
			fprintf(stderr, "bind %s %u: %s\n", argv[1], port,
				strerror(errno));
			return 1;
		}
	}
	if (getsockname(fd, (struct sockaddr *)&sa, &len)) {
		perror("getsockname");
		return 1;
	}
	printf("ready %u\n", ntohs(sa.sspray_port));
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

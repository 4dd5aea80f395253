// SPDX-License-Identifier: GPL-2.0
/*
 * many_sockets: open COUNT AF_SPRAY sockets bound to ADDR (port 0: each
 * gets a free port), print "ready COUNT" and hold them until standard input
 * closes. netlink.sh uses it to make the sockets dump span many messages.
 *
 *   many_sockets COUNT [ADDR]      ADDR default 127.0.0.1
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "spray_test.h"

int main(int argc, char **argv)
{
	const char *addr = argc > 2 ? argv[2] : "127.0.0.1";
	int count = argc > 1 ? atoi(argv[1]) : 0;
	struct rlimit rl;
	struct sockaddr_spray sa;
	char buf[64];
	int i, fd;

	if (count <= 0) {
		fprintf(stderr, "usage: many_sockets COUNT [ADDR]\n");
		return 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)count + 64) {
		rl.rlim_cur = count + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < count; i++) {
		fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
		if (fd < 0) {
			fprintf(stderr, "socket %d: %s\n", i, strerror(errno));
			return 1;
		}
		sa = strchr(addr, ':') ? spray_sa6(addr, 0) : spray_sa4(addr, 0);
		if (spray_bind(fd, &sa)) {
			fprintf(stderr, "bind %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	printf("ready %d\n", count);
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}

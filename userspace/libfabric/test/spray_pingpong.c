// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * AF_SPRAY socket ping-pong: the baseline that fi_pingpong over the spray
 * provider is compared with (scripts/bench mpi scenario). The same
 * pattern and the same columns as fi_pingpong: the client sends SIZE
 * bytes, the server returns SIZE bytes, ITERS times; both poll without
 * blocking, as fi_pingpong polls its CQ.
 *
 *   spray_pingpong -p PORT [-S SIZE] [-I ITERS]             server
 *   spray_pingpong -p PORT [-S SIZE] [-I ITERS] SERVER_IP   client
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <time.h>
#include <unistd.h>

#include <linux/spray.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static ssize_t xrecv(int fd, void *buf, size_t len, struct sockaddr_spray *from)
{
	socklen_t fl = sizeof(*from);
	ssize_t n;

	do
		n = recvfrom(fd, buf, len, MSG_DONTWAIT, (struct sockaddr *)from, &fl);
	while (n < 0 && (errno == EAGAIN || errno == EINTR));
	return n;
}

static int xsend(int fd, const void *buf, size_t len,
		 const struct sockaddr_spray *to)
{
	ssize_t n;

	do
		n = sendto(fd, buf, len, MSG_DONTWAIT, (const struct sockaddr *)to,
			   sizeof(*to));
	while (n < 0 && (errno == EAGAIN || errno == EINTR));
	return n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_spray me = { .sspray_family = AF_SPRAY,
				     .sspray_af = AF_INET }, peer;
	size_t size = 64, max = 8 << 20;
	int iters = 1000, port = 7471, o, fd, i;
	char *buf;

	while ((o = getopt(argc, argv, "p:S:I:")) != -1) {
		switch (o) {
		case 'p': port = atoi(optarg); break;
		case 'S': size = strtoul(optarg, NULL, 0); break;
		case 'I': iters = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s -p PORT [-S SIZE] [-I ITERS] [SERVER]\n",
				argv[0]);
			return 2;
		}
	}
	buf = malloc(max);
	fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
	if (!buf || fd < 0) {
		perror("socket(AF_SPRAY)");
		return 1;
	}
	if (optind == argc) {	/* server: echo until a 1-byte "q" */
		me.sspray_port = htons(port);
		if (bind(fd, (struct sockaddr *)&me, sizeof(me))) {
			perror("bind");
			return 1;
		}
		printf("ready %d\n", port);
		fflush(stdout);
		for (;;) {
			ssize_t n = xrecv(fd, buf, max, &peer);

			if (n < 0) {
				perror("recvfrom");
				return 1;
			}
			if (n == 1 && buf[0] == 'q')
				return 0;
			if (xsend(fd, buf, n, &peer)) {
				perror("sendto");
				return 1;
			}
		}
	}
	peer = me;
	peer.sspray_port = htons(port);
	if (inet_pton(AF_INET, argv[optind], &peer.sspray_addr4) != 1) {
		fprintf(stderr, "bad address %s\n", argv[optind]);
		return 2;
	}
	memset(buf, 'x', size);
	/* warm up: the connection and the paths */
	for (i = 0; i < 10; i++)
		if (xsend(fd, buf, size, &peer) || xrecv(fd, buf, max, &peer) < 0)
			return 1;
	{
		double t0 = now_us(), el;

		for (i = 0; i < iters; i++) {
			if (xsend(fd, buf, size, &peer) ||
			    xrecv(fd, buf, max, &peer) != (ssize_t)size) {
				perror("ping-pong");
				return 1;
			}
		}
		el = now_us() - t0;
		printf("%-8s%-8s%-9s%-8s%8s %10s%13s%13s\n", "bytes", "#sent",
		       "#ack", "total", "time", "MB/sec", "usec/xfer", "Mxfers/sec");
		printf("%-8zu%-8d=%-8d%-8zu%8.2fs%10.2f%11.2f%11.2f\n", size, iters,
		       iters, (size_t)iters * size * 2, el / 1e6,
		       (double)iters * size * 2 / el, el / iters / 2,
		       1.0 / (el / iters / 2));
	}
	buf[0] = 'q';
	xsend(fd, buf, 1, &peer);
	/* the server must get the "q" before this socket goes */
	for (i = 0; i < 1000; i++) {
		int q = 0;

		if (ioctl(fd, SIOCOUTQ, &q) || !q)
			break;
		usleep(1000);
	}
	return 0;
}

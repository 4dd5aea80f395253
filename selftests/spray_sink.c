// SPDX-License-Identifier: GPL-2.0
/*
 * spray_sink: receive AF_SPRAY messages from any number of senders and
 * account for each: the receiving end of the congestion control tests
 * (incast, fairness).
 *
 *   spray_sink ADDR PORT TOTAL_BYTES TIMEOUT_S [RCVBUF]
 *       bind, print "ready", receive until TOTAL_BYTES arrived (or
 *       TIMEOUT_S passed: exit 1); then one line per sender
 *         sender ADDR:PORT bytes B msgs M secs S bps R
 *       (S from its first to its last message, R = 8 B / S), and
 *         total bytes B senders N secs S bps R jain J
 *       (S from the first message of all to the last, J Jain's fairness
 *       index over the senders' rates).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/spray.h>

#define MAXSENDERS	64
#define BUFLEN		(8u << 20)

struct sender {
	struct sockaddr_spray addr;
	uint64_t bytes, msgs;
	double first, last;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_addr(const char *s, uint16_t port, struct sockaddr_spray *a)
{
	memset(a, 0, sizeof(*a));
	a->sspray_family = AF_SPRAY;
	a->sspray_port = htons(port);
	if (inet_pton(AF_INET, s, &a->sspray_addr4) == 1) {
		a->sspray_af = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->sspray_addr6) == 1) {
		a->sspray_af = AF_INET6;
		return 0;
	}
	return -1;
}

static int same(const struct sockaddr_spray *a, const struct sockaddr_spray *b)
{
	return a->sspray_af == b->sspray_af && a->sspray_port == b->sspray_port &&
	       !memcmp(a->sspray_addr6, b->sspray_addr6,
		       a->sspray_af == AF_INET ? 4 : 16);
}

static void fmt(const struct sockaddr_spray *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(a->sspray_af, a->sspray_addr6, ip, sizeof(ip));
	snprintf(buf, len, "%s:%u", ip, ntohs(a->sspray_port));
}

int main(int argc, char **argv)
{
	static struct sender s[MAXSENDERS];
	double deadline, first = 0, last = 0, sum = 0, sq = 0;
	uint64_t total, got = 0;
	struct sockaddr_spray me, from;
	unsigned int n = 0, i;
	unsigned char *buf;
	int fd, rcvbuf;

	if (argc < 5) {
		fprintf(stderr, "usage: %s ADDR PORT TOTAL_BYTES TIMEOUT_S [RCVBUF]\n",
			argv[0]);
		return 2;
	}
	if (parse_addr(argv[1], atoi(argv[2]), &me)) {
		fprintf(stderr, "bad address %s\n", argv[1]);
		return 2;
	}
	total = strtoull(argv[3], NULL, 0);
	deadline = now_s() + atof(argv[4]);
	buf = malloc(BUFLEN);
	fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
	if (!buf || fd < 0) {
		perror("socket");
		return 1;
	}
	if (argc > 5) {
		rcvbuf = atoi(argv[5]);
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
			perror("SO_RCVBUF");
	}
	if (bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		perror("bind");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);

	while (got < total) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		socklen_t alen = sizeof(from);
		double t = now_s();
		ssize_t r;

		if (t >= deadline) {
			fprintf(stderr, "timeout: %llu of %llu bytes\n",
				(unsigned long long)got,
				(unsigned long long)total);
			break;
		}
		if (poll(&p, 1, (int)((deadline - t) * 1000) + 1) <= 0)
			continue;
		r = recvfrom(fd, buf, BUFLEN, MSG_DONTWAIT,
			     (struct sockaddr *)&from, &alen);
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			perror("recvfrom");
			return 1;
		}
		t = now_s();
		for (i = 0; i < n && !same(&s[i].addr, &from); i++)
			;
		if (i == n) {
			if (n == MAXSENDERS) {
				fprintf(stderr, "too many senders\n");
				return 1;
			}
			s[n].addr = from;
			s[n].first = t;
			n++;
		}
		s[i].bytes += r;
		s[i].msgs++;
		s[i].last = t;
		if (!first)
			first = t;
		last = t;
		got += r;
	}

	for (i = 0; i < n; i++) {
		double secs = s[i].last - s[i].first;
		double bps = secs > 0 ? 8.0 * s[i].bytes / secs : 0;
		char a[64];

		fmt(&s[i].addr, a, sizeof(a));
		printf("sender %s bytes %llu msgs %llu secs %.3f bps %.0f\n", a,
		       (unsigned long long)s[i].bytes,
		       (unsigned long long)s[i].msgs, secs, bps);
		sum += bps;
		sq += bps * bps;
	}
	printf("total bytes %llu senders %u secs %.3f bps %.0f jain %.3f\n",
	       (unsigned long long)got, n, last - first,
	       last > first ? 8.0 * got / (last - first) : 0,
	       sq > 0 ? sum * sum / (n * sq) : 0);
	return got >= total ? 0 : 1;
}

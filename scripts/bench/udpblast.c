// SPDX-License-Identifier: GPL-2.0
/*
 * udpblast: raw UDP for the AF_SPRAY benchmarks, the ceiling for per-packet
 * cost (scripts/bench). Python senders cost more CPU than the transports
 * under test, and Debian 12's iperf3 fails to open UDP streams under TCG.
 *
 *   udpblast send ADDR PORT MBIT SECONDS [SIZE]
 *       send SIZE-byte datagrams (default 1400) to ADDR:PORT for SECONDS,
 *       paced at MBIT (of payload; 0: as fast as the CPU goes), then 20
 *       "END" datagrams; prints {"sent_pkts": N, "sent_bytes": B,
 *       "enobufs": E} (E: datagrams the local qdisc refused). The
 *       datagrams are ECN-capable (ECT(0)) as AF_SPRAY's, TCP's (ECN on)
 *       and RoCEv2's: an AQM marks them instead of dropping them, so what
 *       is lost is what the emulated fabric could not carry.
 *   udpblast recv PORT NFLOWS SECONDS
 *       count datagrams on PORT until NFLOWS senders said END, SECONDS
 *       passed, or 3 s of silence after data; prints {"bytes": B, "pkts":
 *       N, "seconds": S, "first": T0, "last": T1} (S from the first
 *       datagram to the last; T0/T1 wall clock), "ready" first.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fprintf(stderr, "usage: udpblast send ADDR PORT MBIT SECONDS [SIZE]\n"
		"       udpblast recv PORT NFLOWS SECONDS\n");
	return 2;
}

static int do_send(int argc, char **argv)
{
	double mbit, secs, t0, end, pps, t;
	long long n = 0, bytes = 0, enobufs = 0, due;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char buf[65536];
	int fd, size = 1400, i, tos = 0x02;	/* ECT(0) */

	if (argc < 4)
		return usage();
	if (inet_pton(AF_INET, argv[0], &sa.sin_addr) != 1) {
		fprintf(stderr, "udpblast: bad address '%s'\n", argv[0]);
		return 2;
	}
	sa.sin_port = htons(atoi(argv[1]));
	mbit = atof(argv[2]);
	secs = atof(argv[3]);
	if (argc > 4)
		size = atoi(argv[4]);
	if (size < 1 || size > (int)sizeof(buf) || secs <= 0 || mbit < 0) {
		fprintf(stderr, "udpblast: bad size, rate or duration\n");
		return 2;
	}
	memset(buf, 0xa5, sizeof(buf));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("udpblast: socket");
		return 1;
	}
	pps = mbit * 1e6 / 8 / size;
	t0 = now(CLOCK_MONOTONIC);
	end = t0 + secs;
	for (;;) {
		t = now(CLOCK_MONOTONIC);
		if (t >= end)
			break;
		due = pps > 0 ? (long long)((t - t0) * pps) + 1 : n + 64;
		while (n < due) {
			if (send(fd, buf, size, 0) == size)
				bytes += size;
			else if (errno == ENOBUFS || errno == EAGAIN)
				enobufs++;
			n++;
		}
		if (pps > 0) {
			/* until the next datagram is due, at least 1 ms */
			double w = t0 + n / pps - now(CLOCK_MONOTONIC);
			struct timespec ts;

			if (w < 0.001)
				w = 0.001;
			ts.tv_sec = (time_t)w;
			ts.tv_nsec = (long)((w - ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
	}
	for (i = 0; i < 20; i++) {
		struct timespec ts = { 0, 50000000 };

		send(fd, "END", 3, 0);
		nanosleep(&ts, NULL);
	}
	printf("{\"sent_pkts\": %lld, \"sent_bytes\": %lld, \"enobufs\": %lld}\n",
	       n, bytes, enobufs);
	return 0;
}

static int do_recv(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	double stop, first = 0, last = 0, t;
	long long bytes = 0, pkts = 0;
	int fd, nflows, ended = 0, rcv = 4 << 20, i;
	struct sockaddr_in src, done[64];
	char buf[65536];

	if (argc < 3)
		return usage();
	sa.sin_port = htons(atoi(argv[0]));
	nflows = atoi(argv[1]);
	stop = now(CLOCK_REALTIME) + atof(argv[2]);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return perror("udpblast: socket"), 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return perror("udpblast: bind"), 1;
	printf("ready\n");
	fflush(stdout);
	while (ended < nflows) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		socklen_t sl = sizeof(src);
		ssize_t r;

		t = now(CLOCK_REALTIME);
		if (t >= stop || (last && t - last > 3))
			break;
		if (poll(&p, 1, 500) <= 0)
			continue;
		r = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&src, &sl);
		if (r < 0)
			continue;
		if (r == 3 && !memcmp(buf, "END", 3)) {
			/* each sender sends 20: count senders, not datagrams */
			for (i = 0; i < ended; i++)
				if (done[i].sin_addr.s_addr == src.sin_addr.s_addr &&
				    done[i].sin_port == src.sin_port)
					break;
			if (i == ended && ended < 64)
				done[ended++] = src;
			continue;
		}
		t = now(CLOCK_REALTIME);
		if (!first)
			first = t;
		last = t;
		bytes += r;
		pkts++;
	}
	printf("{\"bytes\": %lld, \"pkts\": %lld, \"seconds\": %.6f, "
	       "\"first\": %.6f, \"last\": %.6f}\n",
	       bytes, pkts, last - first, first, last);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "send"))
		return do_send(argc - 2, argv + 2);
	if (!strcmp(argv[1], "recv"))
		return do_recv(argc - 2, argv + 2);
	return usage();
}

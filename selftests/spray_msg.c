// SPDX-License-Identifier: GPL-2.0
/*
 * spray_msg: send or receive numbered, verifiable AF_SPRAY messages. The
 * correctness oracle of the shell selftests: every message's content is a
 * function of (seed, number, length), so the receiver checks each byte,
 * and counts duplicates and missing messages.
 *
 *   spray_msg recv ADDR PORT COUNT DIST [SEED [TIMEOUT_S]]
 *       bind, receive until the COUNT messages the sender with the same
 *       DIST and SEED sends arrived intact; print "received N bytes B dup D
 *       bad X"; exit 0 only if all of them arrived exactly once and intact.
 *       Messages of 16 bytes and more carry their number; shorter ones are
 *       checked against the expected content and counted per length.
 *   spray_msg send ADDR PORT DADDR DPORT COUNT DIST [SEED [RATE]]
 *       DIST: fixed:N, or mix (99% log-uniform 1 B..64 KiB, 1% uniform
 *       1 B..1 MiB: about 11 KiB a message on average); RATE paces the
 *       sending at that many messages a second; waits until every
 *       message is acknowledged (SIOCOUTQ == 0); prints "sent N bytes B".
 *   spray_msg echo ADDR PORT COUNT [TIMEOUT_S]
 *       answer COUNT messages, each with its own bytes to its sender;
 *       prints "echoed N"; exit 0 if all COUNT were answered.
 *   spray_msg ask ADDR PORT DADDR DPORT COUNT LEN
 *       request/response: send a numbered message of LEN bytes (16 or
 *       more), wait for it to come back (30 s at most), check it, COUNT
 *       times; prints "asked N answered A bad X seconds S"; exit 0 if
 *       every answer came back intact, in order.
 *   spray_msg content SEQ LEN SEED
 *       write message SEQ's LEN bytes (as send makes them) to standard
 *       output, for a forger of packets (hostile.sh).
 *   With SPRAY_HOLD=1 in the environment, send, recv and ask keep the
 *   socket open after their work until standard input closes. With
 *   SPRAY_PAUSE=K, ask prints "paused N" after every K exchanges (N of
 *   them so far) and waits for a line on standard input before the next
 *   (its connection stays).
 *   spray_msg fail ADDR PORT DADDR DPORT TIMEOUT_S
 *       send one message and wait for its failure on the error queue;
 *       prints "error ERRNO_NAME after S seconds", then its history
 *       (SPRAY_CMSG_HISTORY) as "history peer=ADDR:PORT conn=.. msg=..
 *       ack_age_us=.. retx_rack=.. retx_nack=.. retx_rto=..
 *       retx_refused=.. nacks=.. rtos=.. evs=A,B,.. cookie=..";
 *       exit 0 if it came. SPRAY_LEN=N: a message of N bytes (1000).
 *   spray_msg vanish ADDR PORT DADDR DPORT TIMEOUT_S
 *       send one message and wait until it is acknowledged, print "acked",
 *       wait for a line on standard input (the peer vanishes meanwhile),
 *       then as fail, with a second message (cookie 4242).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <linux/errqueue.h>

#include "spray_test.h"

#define MAGIC	0x53505259u
#define MAXLEN	(1u << 20)

struct hdr {
	uint32_t magic, seq, len, seed;
};

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static void content(unsigned char *buf, uint32_t len, uint32_t seq,
		    uint32_t seed)
{
	uint64_t x = ((uint64_t)seed << 32 | seq) * 0x9e3779b97f4a7c15ULL + len;
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7)) {
			x ^= x >> 31;
			x *= 0xbf58476d1ce4e5b9ULL;
			x ^= x >> 27;
		}
		buf[i] = (unsigned char)(x >> ((i & 7) * 8));
	}
	if (len >= sizeof(struct hdr)) {
		struct hdr h = { MAGIC, seq, len, seed };

		memcpy(buf, &h, sizeof(h));
	}
}

static uint32_t pick_len(const char *dist)
{
	double u;

	if (!strncmp(dist, "fixed:", 6))
		return (uint32_t)atoi(dist + 6);
	if (rnd() % 100 == 0)
		return 1 + rnd() % MAXLEN;
	u = (rnd() & 0xffffff) / (double)0x1000000;
	return (uint32_t)(1 << (int)(u * 16)) + rnd() % (1u << (int)(u * 16));
}

static struct sockaddr_spray addr(const char *ip, const char *port)
{
	return strchr(ip, ':') ? spray_sa6(ip, atoi(port)) :
				 spray_sa4(ip, atoi(port));
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void print_history(const struct spray_msg_history *h, uint64_t cookie);

/* One entry of the error queue: its error, cookie and history. */
struct errq_entry {
	struct sock_extended_err	ee;
	struct spray_msg_history	h;
	bool				have_h;
	uint64_t			cookie;
};

/* Read one entry (@flags: MSG_DONTWAIT or 0); 0, or -1 if none (errno). */
static int errq_read(int fd, int flags, struct errq_entry *e)
{
	unsigned char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = {};
	struct cmsghdr *cm;
	char cbuf[256];

	memset(e, 0, sizeof(*e));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	if (recvmsg(fd, &m, MSG_ERRQUEUE | flags) < 0)
		return -1;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SPRAY)
			continue;
		if (cm->cmsg_type == SPRAY_CMSG_ERR)
			memcpy(&e->ee, CMSG_DATA(cm), sizeof(e->ee));
		else if (cm->cmsg_type == SPRAY_CMSG_COOKIE)
			memcpy(&e->cookie, CMSG_DATA(cm), sizeof(e->cookie));
		else if (cm->cmsg_type == SPRAY_CMSG_HISTORY &&
			 cm->cmsg_len == CMSG_LEN(sizeof(e->h))) {
			memcpy(&e->h, CMSG_DATA(cm), sizeof(e->h));
			e->have_h = true;
		}
	}
	return 0;
}

static int do_send(int fd, char **argv)
{
	struct sockaddr_spray to = addr(argv[0], argv[1]);
	uint32_t count = atoi(argv[2]), seed = argv[4] ? atoi(argv[4]) : 1;
	double rate = argv[4] && argv[5] ? atof(argv[5]) : 0, start = now_s();
	const char *dist = argv[3];
	unsigned char *buf = malloc(MAXLEN);
	unsigned long long bytes = 0;
	uint32_t seq, len, failed = 0;
	struct errq_entry e;
	double t0;
	int q;

	rng_state = 0x12345678ULL * seed + 1;
	for (seq = 0; seq < count; seq++) {
		while (rate > 0 && now_s() - start < seq / rate)
			usleep(1000);
		len = pick_len(dist);
		content(buf, len, seq, seed);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) != (ssize_t)len) {
			fprintf(stderr, "send %u (%u bytes): %s\n", seq, len,
				strerror(errno));
			return 1;
		}
		bytes += len;
	}
	/* Reliable means acknowledged: wait for the queue to drain. */
	t0 = now_s();
	while (!ioctl(fd, SIOCOUTQ, &q) && q > 0 && now_s() - t0 < 600)
		usleep(10000);
	/* Messages that failed left the queue too: count them, name a few. */
	while (errq_read(fd, MSG_DONTWAIT, &e) == 0) {
		if (failed++ >= 3)
			continue;
		fflush(stdout);
		fprintf(stderr, "failed: %s\n", strerror(e.ee.ee_errno));
		fflush(stderr);
		if (e.have_h)
			print_history(&e.h, e.cookie);
		fflush(stdout);
	}
	printf("sent %u bytes %llu unacked %d failed %u\n", count, bytes, q,
	       failed);
	return q || failed ? 1 : 0;
}

static int do_recv(int fd, char **argv)
{
	uint32_t count = atoi(argv[0]), got = 0, dup = 0, bad = 0, seq, len;
	uint32_t seed = argv[2] ? atoi(argv[2]) : 1;
	double timeout = argv[2] && argv[3] ? atof(argv[3]) : 300;
	unsigned char *buf = malloc(MAXLEN + 1), *want = malloc(MAXLEN);
	unsigned char *seen = calloc(count, 1);
	uint32_t short_left[sizeof(struct hdr)] = {};
	unsigned long long bytes = 0;
	const char *dist = argv[1];
	double t0 = now_s();
	struct hdr h;
	ssize_t n;

	/* The same lengths as the sender: short messages are expected. */
	rng_state = 0x12345678ULL * seed + 1;
	for (seq = 0; seq < count; seq++) {
		len = pick_len(dist);
		if (len < sizeof(h))
			short_left[len]++;
	}
	printf("ready\n");
	fflush(stdout);
	while (got < count && now_s() - t0 < timeout) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 1000) <= 0)
			continue;
		n = recv(fd, buf, MAXLEN + 1, MSG_DONTWAIT);
		if (n <= 0)
			continue;
		if (n < (ssize_t)sizeof(h)) {
			if (!short_left[n]) {
				dup++;
				continue;
			}
			short_left[n]--;
			got++;
			bytes += n;
			continue;
		}
		memcpy(&h, buf, sizeof(h));
		if (h.magic != MAGIC || h.len != n || h.seq >= count ||
		    h.seed != seed) {
			bad++;
			continue;
		}
		content(want, h.len, h.seq, h.seed);
		if (memcmp(buf, want, n)) {
			bad++;
			continue;
		}
		if (seen[h.seq]++) {
			dup++;
			continue;
		}
		got++;
		bytes += n;
	}
	printf("received %u bytes %llu dup %u bad %u seconds %.1f\n", got,
	       bytes, dup, bad, now_s() - t0);
	return got == count && !dup && !bad ? 0 : 1;
}

static int do_echo(int fd, char **argv)
{
	double timeout = argv[1] ? atof(argv[1]) : 300, t0 = now_s();
	uint32_t count = atoi(argv[0]), done = 0;
	unsigned char *buf = malloc(MAXLEN);
	struct sockaddr_spray from;
	socklen_t fl;
	ssize_t n;

	printf("ready\n");
	fflush(stdout);
	while (done < count && now_s() - t0 < timeout) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 1000) <= 0)
			continue;
		fl = sizeof(from);
		n = recvfrom(fd, buf, MAXLEN, MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fl);
		if (n <= 0)
			continue;
		if (sendto(fd, buf, n, 0, (struct sockaddr *)&from, fl) != n) {
			fprintf(stderr, "echo %u: %s\n", done, strerror(errno));
			break;
		}
		done++;
	}
	printf("echoed %u\n", done);
	return done == count ? 0 : 1;
}

static int do_ask(int fd, char **argv)
{
	uint32_t count = atoi(argv[2]), len = atoi(argv[3]), seq, ok = 0;
	unsigned char *buf = malloc(MAXLEN), *got = malloc(MAXLEN);
	struct sockaddr_spray to = addr(argv[0], argv[1]);
	const char *pause = getenv("SPRAY_PAUSE");
	uint32_t bad = 0;
	double t0 = now_s();
	ssize_t n;
	char c;

	if (len < sizeof(struct hdr) || len > MAXLEN) {
		fprintf(stderr, "ask: LEN %u outside 16..%u\n", len, MAXLEN);
		return 2;
	}
	for (seq = 0; seq < count; seq++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (pause && atoi(pause) > 0 && seq && !(seq % atoi(pause))) {
			printf("paused %u\n", seq);
			fflush(stdout);
			while (read(0, &c, 1) > 0 && c != '\n')
				;
		}
		content(buf, len, seq, 1);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) != (ssize_t)len) {
			fprintf(stderr, "ask %u: %s\n", seq, strerror(errno));
			break;
		}
		if (poll(&p, 1, 30000) <= 0) {
			fprintf(stderr, "ask %u: no answer in 30 s\n", seq);
			break;
		}
		n = recv(fd, got, MAXLEN, 0);
		if (n != (ssize_t)len || memcmp(got, buf, len)) {
			bad++;
			break;
		}
		ok++;
	}
	printf("asked %u answered %u bad %u seconds %.1f\n", seq < count ?
	       seq + 1 : count, ok, bad, now_s() - t0);
	return ok == count ? 0 : 1;
}

/* sendto() with a SPRAY_CMSG_COOKIE */
static ssize_t send_cookie(int fd, const void *buf, size_t len,
			   const struct sockaddr_spray *to, uint64_t cookie)
{
	char cbuf[CMSG_SPACE(sizeof(cookie))] = {};
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = {
		.msg_name = (void *)to, .msg_namelen = sizeof(*to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SPRAY;
	cm->cmsg_type = SPRAY_CMSG_COOKIE;
	cm->cmsg_len = CMSG_LEN(sizeof(cookie));
	memcpy(CMSG_DATA(cm), &cookie, sizeof(cookie));
	return sendmsg(fd, &m, 0);
}

static void print_history(const struct spray_msg_history *h, uint64_t cookie)
{
	char a[INET6_ADDRSTRLEN] = "?";
	int i;

	if (h->sh_peer.sspray_af == AF_INET)
		inet_ntop(AF_INET, &h->sh_peer.sspray_addr4, a, sizeof(a));
	else
		inet_ntop(AF_INET6, h->sh_peer.sspray_addr6, a, sizeof(a));
	printf("history peer=%s:%u conn=%u msg=%u ack_age_us=%u retx_rack=%u retx_nack=%u retx_rto=%u retx_refused=%u nacks=%u rtos=%u evs=",
	       a, ntohs(h->sh_peer.sspray_port), h->sh_conn_id, h->sh_msg_id,
	       h->sh_ack_age_us, h->sh_retx_rack, h->sh_retx_nack,
	       h->sh_retx_rto, h->sh_retx_refused, h->sh_nacks, h->sh_rtos);
	for (i = 0; i < h->sh_nr_evs && i < SPRAY_HIST_EVS; i++)
		printf("%s%u", i ? "," : "", h->sh_evs[i]);
	printf(" cookie=%llu\n", (unsigned long long)cookie);
}

static int do_fail(int fd, char **argv, bool vanish)
{
	struct sockaddr_spray to = addr(argv[0], argv[1]);
	double timeout = atof(argv[2]), t0 = now_s();
	struct pollfd p = { .fd = fd, .events = 0 };
	const char *len_env = getenv("SPRAY_LEN");
	size_t len = len_env ? strtoul(len_env, NULL, 0) : 1000;
	struct errq_entry e;
	char *buf;
	int q;

	buf = calloc(1, len ?: 1);
	if (!buf)
		return 1;
	memcpy(buf, "gone?", len < 5 ? len : 5);

	if (vanish) {
		/* a peer that answers first: it acknowledges a message */
		if (sendto(fd, "here?", 5, 0, (struct sockaddr *)&to,
			   sizeof(to)) < 0) {
			perror("sendto");
			return 1;
		}
		while (!ioctl(fd, SIOCOUTQ, &q) && q > 0 && now_s() - t0 < timeout)
			usleep(10000);
		if (q) {
			printf("not acknowledged after %.1f seconds\n", now_s() - t0);
			return 1;
		}
		printf("acked\n");
		fflush(stdout);
		while (read(0, buf, 1) == 1 && buf[0] != '\n')
			;
		t0 = now_s();
	}
	if (send_cookie(fd, buf, len, &to, vanish ? 4242 : 0) < 0) {
		perror("sendto");
		return 1;
	}
	if (poll(&p, 1, (int)(timeout * 1000)) != 1 || !(p.revents & POLLERR)) {
		printf("no error after %.1f seconds\n", now_s() - t0);
		return 1;
	}
	if (errq_read(fd, 0, &e) < 0) {
		perror("recvmsg(MSG_ERRQUEUE)");
		return 1;
	}
	printf("error %s after %.2f seconds\n",
	       strerrorname_np(e.ee.ee_errno) ?: strerror(e.ee.ee_errno),
	       now_s() - t0);
	if (e.have_h)
		print_history(&e.h, e.cookie);
	return 0;
}

static int hold(int rc)
{
	char c;

	fflush(stdout);
	if (getenv("SPRAY_HOLD"))
		while (read(0, &c, 1) > 0)
			;
	return rc;
}

int main(int argc, char **argv)
{
	struct sockaddr_spray me;
	int fd, size = 64 << 20;

	if (argc == 5 && !strcmp(argv[1], "content")) {
		uint32_t len = (uint32_t)atoi(argv[3]);
		unsigned char *buf = len <= MAXLEN ? malloc(len ?: 1) : NULL;

		if (!buf)
			return 2;
		content(buf, len, (uint32_t)atoi(argv[2]),
			(uint32_t)atoi(argv[4]));
		return fwrite(buf, 1, len, stdout) == len ? 0 : 1;
	}
	if (argc < 5) {
		fprintf(stderr, "usage: see the top of spray_msg.c\n");
		return 2;
	}
	fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket(AF_SPRAY)");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size));
	me = addr(argv[2], argv[3]);
	if (spray_bind(fd, &me)) {
		perror("bind");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(argv[1], "send") && argc >= 8)
		return hold(do_send(fd, argv + 4));
	if (!strcmp(argv[1], "fail") && argc >= 7)
		return do_fail(fd, argv + 4, false);
	if (!strcmp(argv[1], "vanish") && argc >= 7)
		return do_fail(fd, argv + 4, true);
	if (!strcmp(argv[1], "ask") && argc >= 8)
		return hold(do_ask(fd, argv + 4));
	if (!strcmp(argv[1], "echo") && argc >= 5)
		return hold(do_echo(fd, argv + 4));
	if (!strcmp(argv[1], "recv") && argc >= 6)
		return hold(do_recv(fd, argv + 4));
	fprintf(stderr, "usage: see the top of spray_msg.c\n");
	return 2;
}

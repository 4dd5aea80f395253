// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY messages over loopback: sizes from 1 byte to the maximum,
 * recvmsg semantics (whole messages, sender address, MSG_TRUNC, MSG_PEEK),
 * poll, non-blocking calls, the error queue, and bad sendmsg input.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/errqueue.h>

#include "kselftest_harness.h"
#include "spray_test.h"

#define MAX_MSG		(8 << 20)
#define TIMEOUT_MS	20000

static void fill(unsigned char *buf, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static int wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

FIXTURE(pair) {
	int a, b;
	struct sockaddr_spray sa, sb;
};

/* Every pair test runs over IPv4 and over IPv6. */
FIXTURE_VARIANT(pair) {
	const char *addr;
};

FIXTURE_VARIANT_ADD(pair, ipv4) {
	.addr = "127.0.0.1",
};

FIXTURE_VARIANT_ADD(pair, ipv6) {
	.addr = "::1",
};

static struct sockaddr_spray sa_of(const char *addr, unsigned short port)
{
	return strchr(addr, ':') ? spray_sa6(addr, port) : spray_sa4(addr, port);
}

FIXTURE_SETUP(pair)
{
	socklen_t len = sizeof(self->sa);

	self->a = socket(AF_SPRAY, SOCK_DGRAM, 0);
	self->b = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->a);
	ASSERT_LE(0, self->b);
	self->sa = sa_of(variant->addr, 0);
	self->sb = sa_of(variant->addr, 0);
	ASSERT_EQ(0, spray_bind(self->a, &self->sa)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, spray_bind(self->b, &self->sb));
	ASSERT_EQ(0, getsockname(self->a, (struct sockaddr *)&self->sa, &len));
	ASSERT_EQ(0, getsockname(self->b, (struct sockaddr *)&self->sb, &len));
}

FIXTURE_TEARDOWN(pair)
{
	close(self->a);
	close(self->b);
}

TEST_F_TIMEOUT(pair, sizes_round_trip, 120)
{
	size_t sizes[] = { 1, 2, 100, 255, 256, 257, 1423, 1424, 1425, 4096,
			   65536, 100001, 1 << 20, MAX_MSG };
	unsigned char *tx = malloc(MAX_MSG), *rx = malloc(MAX_MSG + 1);
	struct sockaddr_spray from;
	socklen_t flen;
	unsigned int i;
	ssize_t n;

	ASSERT_NE(NULL, tx);
	ASSERT_NE(NULL, rx);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fill(tx, sizes[i], i);
		n = spray_sendto(self->a, tx, sizes[i], &self->sb);
		ASSERT_EQ((ssize_t)sizes[i], n) TH_LOG("send %zu: %s", sizes[i],
							strerror(errno));
		ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS))
			TH_LOG("message of %zu bytes never arrived", sizes[i]);
		flen = sizeof(from);
		n = recvfrom(self->b, rx, MAX_MSG + 1, 0,
			     (struct sockaddr *)&from, &flen);
		ASSERT_EQ((ssize_t)sizes[i], n);
		EXPECT_EQ(0, memcmp(tx, rx, sizes[i])) TH_LOG("size %zu", sizes[i]);
		EXPECT_EQ(sizeof(from), flen);
		EXPECT_EQ(0, memcmp(&from, &self->sa, sizeof(from)));
	}
	free(tx);
	free(rx);
}

TEST_F(pair, both_directions_many)
{
	unsigned char buf[3000], got[3000];
	int i, n;

	for (i = 0; i < 200; i++) {
		fill(buf, sizeof(buf), i);
		ASSERT_EQ(1000 + i * 10, spray_sendto(self->a, buf, 1000 + i * 10, &self->sb));
		ASSERT_EQ(1000 + i * 10, spray_sendto(self->b, buf, 1000 + i * 10, &self->sa));
	}
	for (i = 0; i < 200; i++) {
		ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
		n = recv(self->b, got, sizeof(got), 0);
		EXPECT_LE(1000, n);
		ASSERT_TRUE(wait_readable(self->a, TIMEOUT_MS));
		n = recv(self->a, got, sizeof(got), 0);
		EXPECT_LE(1000, n);
	}
}

TEST_F(pair, truncation_like_udp)
{
	unsigned char buf[5000], got[100];
	int n;

	fill(buf, sizeof(buf), 7);
	ASSERT_EQ(5000, spray_sendto(self->a, buf, 5000, &self->sb));
	ASSERT_EQ(5000, spray_sendto(self->a, buf, 5000, &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	/* MSG_PEEK leaves it queued; MSG_TRUNC returns the real length. */
	n = recv(self->b, got, sizeof(got), MSG_PEEK | MSG_TRUNC);
	EXPECT_EQ(5000, n);
	n = recv(self->b, got, sizeof(got), 0);
	EXPECT_EQ(100, n);
	EXPECT_EQ(0, memcmp(buf, got, 100));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	n = recv(self->b, got, sizeof(got), MSG_TRUNC);
	EXPECT_EQ(5000, n);
	/* The rest of a truncated message is gone. */
	errno = 0;
	EXPECT_EQ(-1, recv(self->b, got, sizeof(got), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * A message of many fragments read into a scattered buffer whose pieces
 * end inside fragments and pages (the receiver keeps fragments in the skbs
 * they came in, or copies them into pages: recvmsg() walks whichever it
 * has), then one peeked and read truncated in the middle of a fragment:
 * every byte where it belongs.
 */
TEST_F(pair, scattered_and_truncated_reads_of_a_long_message)
{
	static const size_t piece[] = { 1, 999, 4095, 7, 1500, 8193, 3 };
	const size_t len = 300000, cut = 123457;
	unsigned char *tx, *rx, *p;
	struct iovec iov[8];
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 8 };
	size_t i, sum = 0;
	ssize_t n;

	tx = malloc(len);
	rx = malloc(len);
	ASSERT_TRUE(tx && rx);
	fill(tx, len, 11);
	ASSERT_EQ((ssize_t)len, spray_sendto(self->a, tx, len, &self->sb));
	ASSERT_EQ((ssize_t)len, spray_sendto(self->a, tx, len, &self->sb));
	memset(rx, 0, len);
	for (i = 0, p = rx; i < 7; p += piece[i], sum += piece[i], i++) {
		iov[i].iov_base = p;
		iov[i].iov_len = piece[i];
	}
	iov[7].iov_base = p;
	iov[7].iov_len = len - sum;
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	EXPECT_EQ((ssize_t)len, recvmsg(self->b, &m, 0));
	EXPECT_EQ(0, memcmp(tx, rx, len));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	memset(rx, 0, len);
	n = recv(self->b, rx, cut, MSG_PEEK);
	EXPECT_EQ((ssize_t)cut, n);
	EXPECT_EQ(0, memcmp(tx, rx, cut));
	memset(rx, 0, len);
	n = recv(self->b, rx, cut, MSG_TRUNC);
	EXPECT_EQ((ssize_t)len, n);
	EXPECT_EQ(0, memcmp(tx, rx, cut));
	EXPECT_EQ(0, rx[cut]);
	free(tx);
	free(rx);
}

/*
 * A short message (the receiver keeps it in its record, not in pages):
 * read scattered, peeked and read truncated, as a long one is.
 */
TEST_F(pair, short_message_scattered_peeked_truncated)
{
	unsigned char tx[200], rx[200];
	struct iovec iov[3] = {
		{ .iov_base = rx, .iov_len = 1 },
		{ .iov_base = rx + 1, .iov_len = 100 },
		{ .iov_base = rx + 101, .iov_len = sizeof(rx) - 101 },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 3 };

	fill(tx, sizeof(tx), 5);
	ASSERT_EQ((ssize_t)sizeof(tx), spray_sendto(self->a, tx, sizeof(tx), &self->sb));
	ASSERT_EQ((ssize_t)sizeof(tx), spray_sendto(self->a, tx, sizeof(tx), &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	memset(rx, 0, sizeof(rx));
	EXPECT_EQ((ssize_t)sizeof(tx), recvmsg(self->b, &m, 0));
	EXPECT_EQ(0, memcmp(tx, rx, sizeof(tx)));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	memset(rx, 0, sizeof(rx));
	EXPECT_EQ(50, recv(self->b, rx, 50, MSG_PEEK));
	EXPECT_EQ(0, memcmp(tx, rx, 50));
	memset(rx, 0, sizeof(rx));
	EXPECT_EQ((ssize_t)sizeof(tx), recv(self->b, rx, 50, MSG_TRUNC));
	EXPECT_EQ(0, memcmp(tx, rx, 50));
	EXPECT_EQ(0, rx[50]);
	errno = 0;
	EXPECT_EQ(-1, recv(self->b, rx, sizeof(rx), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(pair, recvmsg_flags_truncated)
{
	char buf[64] = "hello", got[2];
	struct iovec iov = { .iov_base = got, .iov_len = sizeof(got) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	ASSERT_EQ(5, spray_sendto(self->a, buf, 5, &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	EXPECT_EQ(2, recvmsg(self->b, &m, 0));
	EXPECT_TRUE(m.msg_flags & MSG_TRUNC);
}

TEST_F(pair, nonblocking_empty)
{
	char c;
	struct pollfd p = { .fd = self->b, .events = POLLIN | POLLOUT };

	errno = 0;
	EXPECT_EQ(-1, recv(self->b, &c, 1, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLOUT, p.revents);
}

TEST_F(pair, sndbuf_bounds_queue)
{
	int sndbuf = 65536, n, sent = 0, i;
	static unsigned char buf[60000];

	/* Nobody reads b: the sender's queue fills up to SO_SNDBUF. */
	ASSERT_EQ(0, setsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &sndbuf, sizeof(sndbuf)));
	ASSERT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)));
	for (i = 0; i < 1000; i++) {
		n = sendto(self->a, buf, sizeof(buf), MSG_DONTWAIT,
			   (struct sockaddr *)&self->sb, sizeof(self->sb));
		if (n < 0)
			break;
		sent++;
	}
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_GT(100, sent) TH_LOG("sent %d messages without blocking", sent);
	/* Reading everything lets every queued message through. */
	for (i = 0; i < sent; i++) {
		ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS)) TH_LOG("msg %d of %d", i, sent);
		EXPECT_EQ((ssize_t)sizeof(buf), recv(self->b, buf, sizeof(buf), 0));
	}
}

TEST_F(pair, ordered_option)
{
	int one = 1, v = 0;
	socklen_t len = sizeof(v);

	EXPECT_EQ(0, setsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &one, sizeof(one)));
	EXPECT_EQ(0, getsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &v, &len));
	EXPECT_EQ(1, v);
	v = 2;
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &v, sizeof(v)));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &v, 2));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->b, SOL_SPRAY, 999, &v, sizeof(v)));
	EXPECT_EQ(ENOPROTOOPT, errno);
}

TEST_F(pair, send_to_closed_port_reports_error)
{
	struct sockaddr_spray nobody = sa_of(variant->addr, 9);
	char buf[100] = "x", cbuf[256], back[200];
	struct sockaddr_spray from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	uint64_t cookie = 0x1122334455667788ULL, got_cookie = 0;
	struct sock_extended_err ee = {};
	struct pollfd p = { .fd = self->a, .events = POLLIN };
	struct cmsghdr *cm;
	union { char b[CMSG_SPACE(8)]; struct cmsghdr h; } c;

	memset(&c, 0, sizeof(c));
	m.msg_name = &nobody;
	m.msg_namelen = sizeof(nobody);
	m.msg_control = c.b;
	m.msg_controllen = sizeof(c.b);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SPRAY;
	cm->cmsg_type = SPRAY_CMSG_COOKIE;
	cm->cmsg_len = CMSG_LEN(8);
	memcpy(CMSG_DATA(cm), &cookie, 8);
	ASSERT_EQ(100, sendmsg(self->a, &m, 0)) TH_LOG("%s", strerror(errno));

	/* The failure shows up as POLLERR, then on the error queue. */
	ASSERT_EQ(1, poll(&p, 1, TIMEOUT_MS));
	ASSERT_TRUE(p.revents & POLLERR);
	memset(&m, 0, sizeof(m));
	m.msg_name = &from;
	m.msg_namelen = sizeof(from);
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	/* the message comes back with the error: its 100 bytes */
	memset(back, 0xee, sizeof(back));
	iov.iov_base = back;
	iov.iov_len = sizeof(back);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	ASSERT_EQ(100, recvmsg(self->a, &m, MSG_ERRQUEUE)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, memcmp(back, buf, sizeof(buf)));
	EXPECT_FALSE(m.msg_flags & MSG_TRUNC);
	EXPECT_TRUE(m.msg_flags & MSG_ERRQUEUE);
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level == SOL_SPRAY && cm->cmsg_type == SPRAY_CMSG_ERR)
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
		if (cm->cmsg_level == SOL_SPRAY && cm->cmsg_type == SPRAY_CMSG_COOKIE)
			memcpy(&got_cookie, CMSG_DATA(cm), 8);
	}
	EXPECT_EQ(ECONNREFUSED, (int)ee.ee_errno);
	EXPECT_EQ(SO_EE_ORIGIN_LOCAL, (int)ee.ee_origin);
	EXPECT_EQ(100, (int)ee.ee_info);
	EXPECT_EQ(cookie, got_cookie);
	EXPECT_EQ(0, memcmp(&from, &nobody, sizeof(from)));
	errno = 0;
	EXPECT_EQ(-1, recvmsg(self->a, &m, MSG_ERRQUEUE));
	EXPECT_EQ(EAGAIN, errno);

	/* a short buffer: truncated as a message is; MSG_TRUNC: the length */
	ASSERT_EQ(100, spray_sendto(self->a, buf, 100, &nobody));
	ASSERT_EQ(1, poll(&p, 1, TIMEOUT_MS));
	EXPECT_EQ(100, recv(self->a, back, 10, MSG_ERRQUEUE | MSG_TRUNC));
	ASSERT_EQ(100, spray_sendto(self->a, buf, 100, &nobody));
	ASSERT_EQ(1, poll(&p, 1, TIMEOUT_MS));
	memset(&m, 0, sizeof(m));
	iov.iov_len = 10;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	EXPECT_EQ(10, recvmsg(self->a, &m, MSG_ERRQUEUE));
	EXPECT_TRUE(m.msg_flags & MSG_TRUNC);
	/* the error queue does not peek */
	errno = 0;
	EXPECT_EQ(-1, recv(self->a, back, sizeof(back), MSG_ERRQUEUE | MSG_PEEK));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

/*
 * More failures than the error queue holds (1024): the failures beyond it
 * are not lost silently: the next recvmsg() fails with ENOBUFS (once), and
 * the queue holds the first 1024.
 */
TEST_F_TIMEOUT(pair, error_queue_overflow_says_enobufs, 120)
{
	struct sockaddr_spray nobody = sa_of(variant->addr, 9);
	const unsigned int n = 1100;
	long failed0 = spray_ctl_val(NULL, "stats", "msg-failed");
	int big = 16 << 20, i, queued = 0;
	char buf[64] = "x", back[64];
	double end;

	ASSERT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_SNDBUFFORCE, &big,
				sizeof(big)));
	for (i = 0; i < (int)n; i++)
		ASSERT_EQ(64, spray_sendto(self->a, buf, 64, &nobody))
			TH_LOG("message %d: %s", i, strerror(errno));
	end = spray_now() + 60;
	while (spray_ctl_val(NULL, "stats", "msg-failed") - failed0 < n &&
	       spray_now() < end)
		usleep(20000);
	ASSERT_EQ(n, spray_ctl_val(NULL, "stats", "msg-failed") - failed0);
	errno = 0;
	EXPECT_EQ(-1, recv(self->a, back, sizeof(back), MSG_DONTWAIT));
	EXPECT_EQ(ENOBUFS, errno);
	errno = 0;
	EXPECT_EQ(-1, recv(self->a, back, sizeof(back), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	while (recv(self->a, back, sizeof(back), MSG_ERRQUEUE | MSG_DONTWAIT) == 64)
		queued++;
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(1024, queued);
}

/* Pages of the protocol's memory in use (/proc/net/protocols), -1 if unknown. */
static long spray_proto_pages(void)
{
	char line[256], name[32];
	long size, socks, mem = -1;
	FILE *f = fopen("/proc/net/protocols", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %ld %ld %ld", name, &size, &socks, &mem) == 4 &&
		    !strcmp(name, "SPRAY"))
			break;
		else
			mem = -1;
	fclose(f);
	return mem;
}

/*
 * Fill the protocol's memory with 1 MiB messages that @to refuses, from
 * sockets opened into @fd (@max at most) as each one's SO_SNDBUF fills,
 * until a sender is stopped before its SO_SNDBUF is full (the send mark,
 * EAGAIN) or the memory limit refuses it (ENOBUFS). Return: the sockets
 * used, the last one the one stopped; negative if neither happened; *@err
 * the errno that stopped it.
 */
static int fill_to_mark(int *fd, int max, const struct sockaddr_spray *to,
			unsigned char *buf, int *err)
{
	int n = 0, sent = 0, size = 1 << 20;
	ssize_t r;

	*err = 0;
	fd[n++] = socket(AF_SPRAY, SOCK_DGRAM, 0);
	for (;;) {
		if (fd[n - 1] < 0)
			return -n;
		r = sendto(fd[n - 1], buf, size, MSG_DONTWAIT,
			   (const struct sockaddr *)to, sizeof(*to));
		if (r == size) {
			sent++;
			continue;
		}
		if (r >= 0 || (errno != EAGAIN && errno != ENOBUFS))
			return -n;
		/* 16 of them fill the default SO_SNDBUF (16 MiB) */
		if (errno == ENOBUFS || sent < 15) {
			*err = errno;
			return n;
		}
		if (n == max)
			return -n;
		fd[n++] = socket(AF_SPRAY, SOCK_DGRAM, 0);
		sent = 0;
	}
}

/*
 * The protocol's memory is bounded as UDP's (an eighth of the machine's,
 * af_spray.c), and above half of its pressure mark a socket that queues
 * 64 KiB or more gets no more send memory: the rest is for receiving.
 * Senders whose messages nobody takes (b refuses them) stop there: a
 * non-blocking send fails with EAGAIN and poll() shows no room; a
 * blocking one waits until memory is freed. A socket queueing little
 * still sends, and a receiver still receives: 16 senders with full
 * default send buffers in a 2 GiB machine used to take it all, up to the
 * hard limit, and starve the receivers that would have freed it by
 * acknowledging.
 */
TEST_F_TIMEOUT(pair, senders_leave_memory_for_receivers, 180)
{
	enum { FILLERS = 64, SMALL = 16 << 10, BIG = 4 << 20 };
	struct linger drop = { .l_onoff = 1, .l_linger = 0 };
	int tiny = 1, i, st, fd[FILLERS] = {}, nf, p[2], c, d, hog, err;
	struct sockaddr_spray sc = self->sb;
	static unsigned char big[BIG];
	socklen_t len = sizeof(sc);
	char buf[1000] = "m";
	struct pollfd pf;
	pid_t child;
	ssize_t r;

	/*
	 * On the debug kernel (KSFT_MACHINE_SLOW) memory came free while the
	 * fill ran, some 8 senders' worth (issue 13's note), so the test
	 * asserts only where the memory holds still.
	 */
	if (getenv("KSFT_MACHINE_SLOW") &&
	    !strcmp(getenv("KSFT_MACHINE_SLOW"), "yes"))
		SKIP(return, "the protocol's memory does not hold still on a slow (debug) kernel");
	/*
	 * What the tests before freed goes back first: the fill below must
	 * not find the memory moving.
	 */
	for (i = 0; i < 100; i++) {
		long m0 = spray_proto_pages();

		usleep(100000);
		if (m0 >= 0 && spray_proto_pages() == m0)
			break;
	}
	/* b admits one message and refuses the rest: a's second stays queued */
	ASSERT_EQ(0, setsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &tiny, sizeof(tiny)));
	ASSERT_EQ(1000, spray_sendto(self->a, buf, 1000, &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	ASSERT_EQ(1000, spray_sendto(self->a, buf, 1000, &self->sb));
	/* c receives with the default buffer; d sends, queueing nothing yet */
	c = socket(AF_SPRAY, SOCK_DGRAM, 0);
	d = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, c);
	ASSERT_LE(0, d);
	sc.sspray_port = 0;
	ASSERT_EQ(0, spray_bind(c, &sc));
	ASSERT_EQ(0, getsockname(c, (struct sockaddr *)&sc, &len));

	nf = fill_to_mark(fd, FILLERS, &self->sb, big, &err);
	if (nf < 0) {
		for (i = 0; i < -nf; i++)
			close(fd[i]);
		close(c);
		close(d);
		SKIP(return, "%d x 16 MiB did not reach the send mark", -nf);
	}
	hog = fd[nf - 1];
	TH_LOG("the senders stopped after %d sockets, %ld pages", nf,
	       spray_proto_pages());
	/* stopped by the mark, before the limit */
	EXPECT_EQ(EAGAIN, err) TH_LOG("stopped by %s", strerror(err));
	errno = 0;
	EXPECT_EQ(-1, sendto(hog, big, BIG, MSG_DONTWAIT,
			     (struct sockaddr *)&sc, sizeof(sc)));
	EXPECT_EQ(EAGAIN, errno);
	pf = (struct pollfd){ .fd = hog, .events = POLLOUT };
	EXPECT_EQ(0, poll(&pf, 1, 0)) TH_LOG("poll: room at the mark");
	/*
	 * d, queueing less than 64 KiB, sends two; c takes both before it
	 * reads one (a receiver's first message is admitted whatever the
	 * memory: the second is the one that starved)
	 */
	for (i = 0; i < 2; i++)
		EXPECT_EQ(SMALL, sendto(d, big, SMALL, MSG_DONTWAIT,
					(struct sockaddr *)&sc, sizeof(sc)))
			TH_LOG("a socket queueing little: %s", strerror(errno));
	EXPECT_TRUE(spray_wait_acked(d, TIMEOUT_MS))
		TH_LOG("c did not take both messages");
	for (i = 0; i < 2; i++) {
		EXPECT_TRUE(wait_readable(c, TIMEOUT_MS));
		EXPECT_EQ(SMALL, recv(c, big, BIG, MSG_DONTWAIT));
	}

	/* the hog, blocking: waits (a child, which says how its send ended) */
	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		/* the other fillers are the parent's to close */
		for (i = 0; i < nf; i++)
			if (fd[i] != hog)
				close(fd[i]);
		r = spray_sendto(hog, big, BIG, &sc);
		st = r == BIG ? 0 : errno;
		_exit(write(p[1], &st, sizeof(st)) == sizeof(st) ? 0 : 1);
	}
	close(p[1]);
	pf = (struct pollfd){ .fd = p[0], .events = POLLIN };
	/* (an absence: a bounded wait, the child says so if it returns) */
	EXPECT_EQ(0, poll(&pf, 1, 1000)) {
		if (read(p[0], &st, sizeof(st)) == sizeof(st))
			TH_LOG("the blocking send returned: %s",
			       st ? strerror(st) : "sent");
	}
	/* memory freed: it goes on */
	for (i = 0; i < nf; i++) {
		if (fd[i] == hog)
			continue;
		setsockopt(fd[i], SOL_SOCKET, SO_LINGER, &drop, sizeof(drop));
		close(fd[i]);
	}
	st = -1;
	if (poll(&pf, 1, TIMEOUT_MS) == 1)
		EXPECT_EQ((ssize_t)sizeof(st), read(p[0], &st, sizeof(st)));
	if (st)
		kill(child, SIGKILL);
	ASSERT_EQ(0, st) TH_LOG("the blocking send: %s",
				st < 0 ? "still waiting" : strerror(st));
	ASSERT_EQ(child, waitpid(child, NULL, 0));
	close(p[0]);
	/* the hog's message arrives at c; what it had for b is dropped */
	ASSERT_TRUE(wait_readable(c, TIMEOUT_MS));
	EXPECT_EQ(BIG, recv(c, big, BIG, 0));
	setsockopt(hog, SOL_SOCKET, SO_LINGER, &drop, sizeof(drop));
	close(hog);
	/* a's second message, next in b's line, arrives whole */
	EXPECT_EQ(1000, recv(self->b, big, BIG, 0));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	EXPECT_EQ(1000, recv(self->b, big, BIG, 0));
	close(c);
	close(d);
}

TEST_F(pair, sendmsg_bad_input)
{
	struct sockaddr_spray to = self->sb;
	static char big[MAX_MSG + 1];
	char buf[16] = "x";
	struct iovec iov = { .iov_base = buf, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_name = &to, .msg_namelen = sizeof(to) };
	union { char b[CMSG_SPACE(4)]; struct cmsghdr h; } c;

	errno = 0;
	EXPECT_EQ(-1, send(self->a, buf, 1, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(self->a, buf, 0, &to));
	EXPECT_EQ(EINVAL, errno) TH_LOG("empty message");
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(self->a, big, sizeof(big), &to));
	EXPECT_EQ(EMSGSIZE, errno);
	errno = 0;
	EXPECT_EQ(-1, sendto(self->a, buf, 1, 0, (struct sockaddr *)&to, 8));
	EXPECT_EQ(EINVAL, errno) TH_LOG("short address");
	to.sspray_family = AF_INET;
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(self->a, buf, 1, &to));
	EXPECT_EQ(EAFNOSUPPORT, errno);
	to = self->sb;
	to.sspray_port = 0;
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(self->a, buf, 1, &to));
	EXPECT_EQ(EINVAL, errno) TH_LOG("port 0");
	to = spray_sa4("0.0.0.0", 5);
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(self->a, buf, 1, &to));
	EXPECT_EQ(EINVAL, errno) TH_LOG("wildcard destination");
	to = self->sb;
	errno = 0;
	EXPECT_EQ(-1, sendto(self->a, buf, 1, MSG_OOB, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, sendto(self->a, (void *)8, 100, 0, (struct sockaddr *)&to, sizeof(to)));
	EXPECT_EQ(EFAULT, errno);
	/* A cmsg that is not ours, or of the wrong size. */
	memset(&c, 0, sizeof(c));
	m.msg_control = c.b;
	m.msg_controllen = sizeof(c.b);
	CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SPRAY;
	CMSG_FIRSTHDR(&m)->cmsg_type = SPRAY_CMSG_COOKIE;
	CMSG_FIRSTHDR(&m)->cmsg_len = CMSG_LEN(4);
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EINVAL, errno);
	CMSG_FIRSTHDR(&m)->cmsg_level = SOL_SOCKET;
	CMSG_FIRSTHDR(&m)->cmsg_type = 12345;
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing of all that was delivered. */
	EXPECT_FALSE(wait_readable(self->b, 200));
}

TEST(unbound_sender_autobinds)
{
	int a = socket(AF_SPRAY, SOCK_DGRAM, 0), b = socket(AF_SPRAY, SOCK_DGRAM, 0);
	struct sockaddr_spray sb = spray_sa4("127.0.0.1", 0), from, name;
	socklen_t len = sizeof(sb);
	char buf[10];

	ASSERT_EQ(0, spray_bind(b, &sb));
	ASSERT_EQ(0, getsockname(b, (struct sockaddr *)&sb, &len));
	ASSERT_EQ(3, spray_sendto(a, "abc", 3, &sb));
	len = sizeof(name);
	ASSERT_EQ(0, getsockname(a, (struct sockaddr *)&name, &len));
	EXPECT_NE(0, name.sspray_port);
	ASSERT_TRUE(wait_readable(b, TIMEOUT_MS));
	len = sizeof(from);
	EXPECT_EQ(3, recvfrom(b, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len));
	EXPECT_EQ(name.sspray_port, from.sspray_port);
	close(a);
	close(b);
}

TEST_F(pair, family_mismatch)
{
	struct sockaddr_spray other = strchr(variant->addr, ':') ?
		spray_sa4("127.0.0.1", 5) : spray_sa6("::1", 5);

	/* A socket bound to one family cannot hear replies from the other. */
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(self->a, "x", 1, &other));
	EXPECT_EQ(EAFNOSUPPORT, errno);
}

TEST(v6_wildcard_talks_to_both)
{
	int a = socket(AF_SPRAY, SOCK_DGRAM, 0), b4, b6;
	struct sockaddr_spray any = spray_sa6("::", 0);
	struct sockaddr_spray t4 = spray_sa4("127.0.0.1", 0);
	struct sockaddr_spray t6 = spray_sa6("::1", 0);
	socklen_t len = sizeof(t4);
	char buf[8];

	b4 = socket(AF_SPRAY, SOCK_DGRAM, 0);
	b6 = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_EQ(0, spray_bind(a, &any));
	ASSERT_EQ(0, spray_bind(b4, &t4));
	ASSERT_EQ(0, spray_bind(b6, &t6));
	ASSERT_EQ(0, getsockname(b4, (struct sockaddr *)&t4, &len));
	ASSERT_EQ(0, getsockname(b6, (struct sockaddr *)&t6, &len));
	ASSERT_EQ(2, spray_sendto(a, "v4", 2, &t4));
	ASSERT_EQ(2, spray_sendto(a, "v6", 2, &t6));
	ASSERT_TRUE(wait_readable(b4, TIMEOUT_MS));
	EXPECT_EQ(2, recv(b4, buf, sizeof(buf), 0));
	ASSERT_TRUE(wait_readable(b6, TIMEOUT_MS));
	EXPECT_EQ(2, recv(b6, buf, sizeof(buf), 0));
	close(a);
	close(b4);
	close(b6);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY delivery guarantees a user relies on, each where it used to
 * break (issue 14): a lost window update, a message larger than the
 * receiver takes, a receiver that restarts or forgets its sender, ordered
 * delivery switched during traffic, a multi-homed receiver, a message
 * larger than the receive buffer, and close() with messages still queued.
 *
 * Most tests run between two namespaces, so that each end has its own
 * settings (sprayctl set acts per namespace):
 *
 *   this process's namespace A          namespace B (ip netns)
 *   10.77.0.1  fd77::1  -- veth va/vb --  10.77.0.2  fd77::2
 *   socket a (sender)                     socket b (receiver)
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/errqueue.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"
#include "spray_test.h"

#define PORT_A	7100
#define PORT_B	7200

/* Message content: a function of its number and length, checked byte by byte. */
static void fill(unsigned char *buf, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seq * 131 + i * 7 + (i >> 9));
	if (len >= 4)
		memcpy(buf, &seq, 4);
}

/* The message's number if it is intact, else -1. */
static long check(const unsigned char *buf, uint32_t len)
{
	uint32_t seq = 0, i;

	if (len >= 4)
		memcpy(&seq, buf, 4);
	for (i = 4; i < len; i++)
		if (buf[i] != (unsigned char)(seq * 131 + i * 7 + (i >> 9)))
			return -1;
	return seq;
}

FIXTURE(two) {
	char nb[32];
	int a, b;
	struct sockaddr_spray sa, sb;
};

FIXTURE_VARIANT(two) {
	bool v6;
};

FIXTURE_VARIANT_ADD(two, ipv4) {
	.v6 = false,
};

FIXTURE_VARIANT_ADD(two, ipv6) {
	.v6 = true,
};

/* A socket bound in namespace @ns (NULL: ours), to @addr:@port. */
static int sock_in(const char *ns, const struct sockaddr_spray *sa)
{
	int self = open("/proc/self/ns/net", O_RDONLY), fd = -1;

	if (self < 0)
		return -1;
	if (!ns || !spray_setns(ns)) {
		fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
		if (fd >= 0 && spray_bind(fd, sa)) {
			close(fd);
			fd = -1;
		}
	}
	if (ns && setns(self, CLONE_NEWNET))
		abort();
	close(self);
	return fd;
}

static struct sockaddr_spray addr_of(bool v6, int host, int port)
{
	char ip[32];

	if (v6) {
		snprintf(ip, sizeof(ip), "fd77::%d", host);
		return spray_sa6(ip, port);
	}
	snprintf(ip, sizeof(ip), "10.77.0.%d", host);
	return spray_sa4(ip, port);
}

FIXTURE_SETUP(two)
{
	const char *slow = getenv("KSFT_MACHINE_SLOW");

	/*
	 * The debug kernel (KSFT_MACHINE_SLOW=yes) runs these over IPv4
	 * only: each test takes it 5-45 s, both families about 12 minutes of
	 * the CI's hour. The release kernels of the matrix run both; IPv6
	 * under KASAN and lockdep is still run by socket_test, transfer_test,
	 * stress_test and netns.sh there, and SPRAY_SLOW_ALL=1 runs it all.
	 */
	if (variant->v6 && slow && !strcmp(slow, "yes") &&
	    !getenv("SPRAY_SLOW_ALL"))
		SKIP(return, "IPv6 on a slow machine: the release kernels run it");
	ASSERT_EQ(0, spray_enter_netns(0));
	snprintf(self->nb, sizeof(self->nb), "relb%d", getpid());
	ASSERT_EQ(0, spray_sh("ip netns add %s && ip -n %s link set lo up && "
			      "ip link add va type veth peer name vb netns %s && "
			      "ip addr add 10.77.0.1/24 dev va && "
			      "ip addr add fd77::1/64 dev va nodad && "
			      "ip link set va up && "
			      "ip -n %s addr add 10.77.0.2/24 dev vb && "
			      "ip -n %s addr add fd77::2/64 dev vb nodad && "
			      "ip -n %s link set vb up",
			      self->nb, self->nb, self->nb, self->nb, self->nb,
			      self->nb));
	/* the link is up once a ping crosses it */
	ASSERT_EQ(0, spray_sh("for i in $(seq 50); do ping -c1 -W1 %s "
			      ">/dev/null 2>&1 && exit 0; sleep 0.1; done; exit 1",
			      variant->v6 ? "fd77::2" : "10.77.0.2"));
	self->sa = addr_of(variant->v6, 1, PORT_A);
	self->sb = addr_of(variant->v6, 2, PORT_B);
	self->a = sock_in(NULL, &self->sa);
	self->b = sock_in(self->nb, &self->sb);
	ASSERT_LE(0, self->a);
	ASSERT_LE(0, self->b);
}

FIXTURE_TEARDOWN(two)
{
	if (self->a >= 0)
		close(self->a);
	if (self->b >= 0)
		close(self->b);
	spray_sh("ip netns del %s 2>/dev/null", self->nb);
}

static ssize_t send_seq(int fd, const struct sockaddr_spray *to, uint32_t len,
			uint32_t seq, int flags)
{
	static unsigned char buf[2 << 20];

	fill(buf, len, seq);
	return sendto(fd, buf, len, flags, (const struct sockaddr *)to,
		      sizeof(*to));
}

/* Receive up to @n messages within @ms; mark their numbers in @seen. */
static unsigned int recv_some(int fd, unsigned int n, int ms, unsigned char *seen,
		     unsigned int nseen, int *bad)
{
	static unsigned char buf[2 << 20];
	double end = spray_now() + ms / 1000.0;
	unsigned int got = 0;
	ssize_t r;
	long seq;

	while (got < n && spray_now() < end) {
		if (!spray_wait_readable(fd, 100))
			continue;
		r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r < 0)
			continue;
		seq = check(buf, (uint32_t)r);
		if (seq < 0 || (unsigned long)seq >= nseen || seen[seq]) {
			(*bad)++;
			continue;
		}
		seen[seq] = 1;
		got++;
	}
	return got;
}

/* The next error queue entry: errno, cookie and length; -1 if none within @ms. */
static int errq_next(int fd, int ms, uint64_t *cookie, uint32_t *len,
		     ssize_t *ret)
{
	static unsigned char buf[2 << 20];
	char ctl[256];
	struct sockaddr_spray to;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m = {
		.msg_name = &to, .msg_namelen = sizeof(to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct sock_extended_err *ee = NULL;
	struct pollfd p = { .fd = fd, .events = 0 };
	struct cmsghdr *c;

	if (poll(&p, 1, ms) != 1 || !(p.revents & POLLERR))
		return -1;
	*ret = recvmsg(fd, &m, MSG_ERRQUEUE);
	if (*ret < 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SPRAY)
			continue;
		if (c->cmsg_type == SPRAY_CMSG_ERR)
			ee = (struct sock_extended_err *)CMSG_DATA(c);
		else if (c->cmsg_type == SPRAY_CMSG_COOKIE)
			memcpy(cookie, CMSG_DATA(c), sizeof(*cookie));
	}
	if (!ee)
		return -1;
	*len = ee->ee_info;
	if (*ret > 0 && check(buf, (uint32_t)*ret) < 0)
		return -2;	/* the data given back is not the message */
	return ee->ee_errno;
}

static ssize_t send_cookie(int fd, const struct sockaddr_spray *to,
			   uint32_t len, uint32_t seq, uint64_t cookie)
{
	static unsigned char buf[2 << 20];
	union {
		char b[CMSG_SPACE(sizeof(uint64_t))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = {
		.msg_name = (void *)to, .msg_namelen = sizeof(*to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.b, .msg_controllen = sizeof(u.b),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	fill(buf, len, seq);
	c->cmsg_level = SOL_SPRAY;
	c->cmsg_type = SPRAY_CMSG_COOKIE;
	c->cmsg_len = CMSG_LEN(sizeof(cookie));
	memcpy(CMSG_DATA(c), &cookie, sizeof(cookie));
	return sendmsg(fd, &m, 0);
}

/* Both ends' counters, into the test's log (after a failure). */
static void dump_stats(const char *nb)
{
	spray_sh("echo '# sender:'; " SPRAYCTL " -t stats | awk '$2 != 0 { print \"#   \" $0 }'; "
		 SPRAYCTL " -t peers | sed 's/^/#   /'; "
		 "echo '# receiver:'; ip netns exec %s " SPRAYCTL
		 " -t stats | awk '$2 != 0 { print \"#   \" $0 }'; "
		 "ip netns exec %s " SPRAYCTL " -t peers | sed 's/^/#   /'; "
		 "ip netns exec %s " SPRAYCTL " -t sockets | sed 's/^/#   /'; "
		 /* what the stack below dropped, both ends */
		 "echo '# udp, sender:'; nstat -asz | awk '/^(Udp6?|Ip6?)(InErrors|InCsumErrors|RcvbufErrors|SndbufErrors|NoPorts|InDiscards|OutDiscards)/ && $2 { print \"#   \" $1, $2 }'; "
		 "echo '# udp, receiver:'; ip netns exec %s nstat -asz | awk '/^(Udp6?|Ip6?)(InErrors|InCsumErrors|RcvbufErrors|SndbufErrors|NoPorts|InDiscards|OutDiscards)/ && $2 { print \"#   \" $1, $2 }'",
		 nb, nb, nb, nb);
}

/* SIOCOUTQ: bytes queued and not acknowledged, -1 on error. */
static int outq(int fd)
{
	int q;

	return ioctl(fd, SIOCOUTQ, &q) ? -1 : q;
}

static int wait_acked(int fd, int ms)
{
	double end = spray_now() + ms / 1000.0;

	while (outq(fd) && spray_now() < end)
		usleep(10000);
	return outq(fd);
}

/*
 * Whether the sender @fd (the only one in its namespace) stops for the
 * receiver's credit within 30 s: data queued, nothing in flight, for three
 * looks 100 ms apart.
 */
static bool stopped_for_credit(int fd)
{
	double end = spray_now() + 30;
	int stable = 0;

	while (stable < 3 && spray_now() < end) {
		usleep(100000);
		if (outq(fd) > 0 &&
		    spray_ctl_val(NULL, "peers", "in-flight") == 0)
			stable++;
		else
			stable = 0;
	}
	return stable == 3;
}

/*
 * Set b's SO_RCVBUF to @rcvbuf, send @n messages of @len bytes to it
 * (nobody reads them) and wait until the sender stops for its credit:
 * 0 then, a negative errno if a step failed or it never stopped.
 */
static int fill_until_stopped(FIXTURE_DATA(two) *self, int rcvbuf,
			      unsigned int n, unsigned int len)
{
	unsigned int i;

	if (setsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		return -errno;
	for (i = 0; i < n; i++)
		if (send_seq(self->a, &self->sb, len, i, 0) != (ssize_t)len)
			return -EIO;
	return stopped_for_credit(self->a) ? 0 : -ETIMEDOUT;
}

/*
 * The receiver's window update is lost while nothing is in flight: the
 * sender's persist timer must find out (it used to wait for ever).
 */
TEST_F_TIMEOUT(two, lost_window_update_does_not_stall, 120)
{
	/* one packet each: the credit is exact, the grant stops the sender */
	const unsigned int n = 200, len = 1000;
	unsigned char seen[200] = {};
	uint64_t cookie = 0;
	int bad = 0, e;
	uint32_t elen;
	unsigned int got;
	double cut;
	ssize_t eret;

	/*
	 * The way back is cut for as long as the reading below takes: on a
	 * slow machine (the debug kernel, with namespaces of the tests before
	 * still going away) seconds, past the default retry budget (15 RTOs
	 * of at most 200 ms), and the connection would fail for that, not
	 * for a stall. What is tested is the persist timer.
	 */
	ASSERT_EQ(0, spray_sh(SPRAYCTL " set retry-limit 255"));
	/* the receiver's buffer fills, the sender stops: nothing in flight */
	ASSERT_EQ(0, fill_until_stopped(self, 64 << 10, n, len))
		TH_LOG("the sender never stopped for credit");
	/* every packet from b to a is lost while b reads what it holds */
	cut = spray_now();
	ASSERT_EQ(0, spray_sh("ip netns exec %s tc qdisc add dev vb root netem loss 100%%",
			      self->nb));
	got = recv_some(self->b, n, 500, seen, n, &bad);
	ASSERT_LT(0U, got);
	ASSERT_EQ(0, spray_sh("ip netns exec %s tc qdisc del dev vb root", self->nb));
	cut = spray_now() - cut;
	/* the rest arrives: no stall */
	got += recv_some(self->b, n - got, 20000, seen, n, &bad);
	EXPECT_EQ(n, got) TH_LOG("%u of %u arrived, %ld window probes, way back cut for %.1f s",
				 got, n, spray_ctl_val(NULL, "stats", "window-probes"),
				 cut);
	if (got != n)
		dump_stats(self->nb);
	/* and nothing failed on the sender's side */
	e = errq_next(self->a, 0, &cookie, &elen, &eret);
	EXPECT_EQ(-1, e) TH_LOG("a message failed: %s", strerror(e > 0 ? e : 0));
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, wait_acked(self->a, 10000));
	/* (a probe that finds the receiver still full is refused: it waits) */
	EXPECT_LE(1, spray_ctl_val(NULL, "stats", "window-probes"));
}

/*
 * At MTU 9000 a receiver that stops reading grants no more than its buffer
 * takes: a packet there may be a new message costing three pages, and the
 * credit used to count one page a packet, so that twice what fits was
 * granted, sent and refused. Messages of one packet each into a 256 KiB
 * buffer nobody reads: once the sender stops for credit, every packet it
 * sent (each counted once, not its resends) was taken, but for its window
 * probes when they carry data (one packet past the grant, to a receiver
 * of an earlier release: spray-wire.rst). Then everything arrives.
 */
TEST_F_TIMEOUT(two, jumbo_credit_fits_the_buffer, 120)
{
	const unsigned int n = 120, len = 8000;
	unsigned char seen[120] = {};
	long sent, taken, probes;
	unsigned int got;
	int bad = 0;

	ASSERT_EQ(0, spray_sh("ip link set va mtu 9000 && "
			      "ip -n %s link set vb mtu 9000", self->nb));
	ASSERT_EQ(0, fill_until_stopped(self, 256 << 10, n, len))
		TH_LOG("the sender never stopped for credit");
	probes = spray_ctl_val(NULL, "stats", "window-probes");
	sent = spray_ctl_val(NULL, "stats", "tx-pkts");
	taken = spray_ctl_val(self->nb, "stats", "rx-pkts");
	EXPECT_GE(taken + probes, sent)
		TH_LOG("sent %ld packets, the receiver took %ld, %ld window probes",
		       sent, taken, probes);
	EXPECT_LT(0, taken);
	got = recv_some(self->b, n, 60000, seen, n, &bad);
	EXPECT_EQ(n, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, wait_acked(self->a, 20000));
	if (got != n || taken + probes < sent)
		dump_stats(self->nb);
}

/*
 * A sender stopped by the grant of a receiver that does not read probes it
 * with a PROBE (spray-wire.rst, "Window probes"), not with a packet beyond
 * the grant: nothing more is sent, the receiver refuses nothing (a refused
 * probe used to cost a NACK and its resending each time, and put the
 * sender in the receiver's line). When the receiver reads, everything
 * arrives.
 */
TEST_F_TIMEOUT(two, window_probe_carries_no_data, 120)
{
	const unsigned int n = 200, len = 1000;
	long tx, retx, nacks, probes, now;
	unsigned char seen[200] = {};
	unsigned int got;
	int bad = 0;
	double end;

	ASSERT_EQ(0, fill_until_stopped(self, 64 << 10, n, len))
		TH_LOG("the sender never stopped for credit");
	tx = spray_ctl_val(NULL, "stats", "tx-pkts");
	retx = spray_ctl_val(NULL, "stats", "retx-pkts");
	nacks = spray_ctl_val(self->nb, "stats", "nack-tx");
	probes = spray_ctl_val(NULL, "stats", "window-probes");
	/* two probes more: the persist timer runs while nobody reads */
	end = spray_now() + 30;
	do {
		usleep(20000);
		now = spray_ctl_val(NULL, "stats", "window-probes");
	} while (now < probes + 2 && spray_now() < end);
	ASSERT_LE(probes + 2, now) TH_LOG("%ld window probes in 30 s", now - probes);
	EXPECT_EQ(tx, spray_ctl_val(NULL, "stats", "tx-pkts"));
	EXPECT_EQ(retx, spray_ctl_val(NULL, "stats", "retx-pkts"));
	EXPECT_EQ(nacks, spray_ctl_val(self->nb, "stats", "nack-tx"))
		TH_LOG("the receiver refused a window probe");
	got = recv_some(self->b, n, 60000, seen, n, &bad);
	EXPECT_EQ(n, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, wait_acked(self->a, 20000));
	if (got != n)
		dump_stats(self->nb);
}

/*
 * Incast into a small receive buffer: 8 senders, 16 messages of 64 KiB
 * each, into a socket whose SO_RCVBUF holds about three. The senders take
 * turns (spray.rst, "Receiver credit"): a sender refused for lack of
 * buffer waits in line and is told to send again when the room is its,
 * the others get no credit for new messages meanwhile. Everything
 * arrives intact, and what the receiver refused stays a small part of
 * what it took (every sender told to go at once used to resend more
 * than all of it).
 */
TEST_F_TIMEOUT(two, incast_into_small_rcvbuf_takes_turns, 180)
{
	enum { SENDERS = 8, MSGS = 16, LEN = 64 << 10 };
	unsigned char seen[SENDERS * MSGS] = {};
	long refused, rx, retx, resent, resumes, turns;
	int rcvbuf = 256 << 10, bad = 0, fd[SENDERS];
	struct sockaddr_spray sa;
	unsigned int i, j, got;

	ASSERT_EQ(0, setsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				sizeof(rcvbuf)));
	sa = addr_of(variant->v6, 1, 0);
	for (i = 0; i < SENDERS; i++) {
		fd[i] = sock_in(NULL, &sa);
		ASSERT_LE(0, fd[i]);
	}
	/* all queued at once: the sends do not wait for the receiver */
	for (j = 0; j < MSGS; j++)
		for (i = 0; i < SENDERS; i++)
			ASSERT_EQ((ssize_t)LEN, send_seq(fd[i], &self->sb, LEN,
							 i * MSGS + j, 0));
	got = recv_some(self->b, SENDERS * MSGS, 120000, seen,
			SENDERS * MSGS, &bad);
	EXPECT_EQ((unsigned int)SENDERS * MSGS, got);
	EXPECT_EQ(0, bad);
	for (i = 0; i < SENDERS; i++) {
		EXPECT_EQ(0, wait_acked(fd[i], 10000)) TH_LOG("sender %u", i);
		close(fd[i]);
	}
	refused = spray_ctl_val(self->nb, "stats", "rcvbuf-full");
	rx = spray_ctl_val(self->nb, "stats", "rx-pkts");
	retx = spray_ctl_val(NULL, "stats", "retx-pkts");
	resent = spray_ctl_val(NULL, "stats", "refused-resent");
	resumes = spray_ctl_val(self->nb, "stats", "resume-tx");
	turns = spray_ctl_val(self->nb, "stats", "rx-turns");
	TH_LOG("%ld packets refused for lack of buffer, %ld taken, %ld resent (%ld after a refusal); %ld RESUMEs, %ld turns",
	       refused, rx, retx, resent, resumes, turns);
	ASSERT_LT(0, rx);
	/* 8 MiB into 256 KiB: refused, told there is room, let in by turns */
	EXPECT_LT(0, refused);
	EXPECT_LT(0, resumes);
	EXPECT_LT(0, turns);
	/* what was refused came back: counted apart from what was lost */
	EXPECT_LT(0, resent);
	EXPECT_GE(retx, resent);
	EXPECT_GE(spray_ctl_val(self->nb, "stats", "nack-tx"),
		  refused + resumes);
	/*
	 * refused and resent: at most half of what was taken (9-11% with
	 * turns on 6.1, 23-32% on the debug kernel; 109% when every refused
	 * sender resent at once)
	 */
	EXPECT_GE(rx / 2, refused) dump_stats(self->nb);
	EXPECT_GE(rx / 2, retx);
}

/*
 * A reader slower than its senders: 8 senders queue 12 MiB of 64 KiB
 * messages into a receive buffer of 8 MiB (SO_RCVBUFFORCE 4 MiB, doubled)
 * that is read only once it is nearly full, then as fast as the reader
 * goes. The credit given while it filled outruns the room (each grant is
 * a share of the room at its time), so the buffer fills up, someone's
 * message is refused and waits in line for its turn; were every other
 * sender then refused too when it starts a message on credit it was
 * given, each would join the line, and each message be refused and resent
 * once (the module before this test refused 19% of the packets). Credit
 * given to a peer that hears us is honoured, up to half of SO_RCVBUF
 * beyond it: about 5% are refused (4.7-5.6% on 6.1), at the end of the
 * filling.
 */
TEST_F_TIMEOUT(two, slow_reader_credit_is_honoured, 180)
{
	enum { SENDERS = 8, MSGS = 24, LEN = 64 << 10 };
	unsigned char seen[SENDERS * MSGS] = {};
	int rcvbuf = 4 << 20, got_buf, bad = 0, fd[SENDERS];
	long refused, rx, retx, rxq = 0;
	socklen_t sl = sizeof(got_buf);
	struct sockaddr_spray sa;
	unsigned int i, j, got;
	double end;

	ASSERT_EQ(0, setsockopt(self->b, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				sizeof(rcvbuf)));
	ASSERT_EQ(0, getsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &got_buf, &sl));
	sa = addr_of(variant->v6, 1, 0);
	for (i = 0; i < SENDERS; i++) {
		fd[i] = sock_in(NULL, &sa);
		ASSERT_LE(0, fd[i]);
	}
	for (j = 0; j < MSGS; j++)
		for (i = 0; i < SENDERS; i++)
			ASSERT_EQ((ssize_t)LEN, send_seq(fd[i], &self->sb, LEN,
							 i * MSGS + j, 0));
	/* nothing read until the buffer holds all but a megabyte */
	end = spray_now() + 60;
	while (spray_now() < end &&
	       (rxq = spray_ctl_val(self->nb, "sockets", "rx-queue")) <
	       got_buf - (1 << 20))
		usleep(20000);
	ASSERT_LE(got_buf - (1 << 20), rxq) TH_LOG("SO_RCVBUF %d", got_buf);
	got = recv_some(self->b, SENDERS * MSGS, 120000, seen,
			SENDERS * MSGS, &bad);
	EXPECT_EQ((unsigned int)SENDERS * MSGS, got);
	EXPECT_EQ(0, bad);
	for (i = 0; i < SENDERS; i++) {
		EXPECT_EQ(0, wait_acked(fd[i], 10000)) TH_LOG("sender %u", i);
		close(fd[i]);
	}
	refused = spray_ctl_val(self->nb, "stats", "rcvbuf-full");
	rx = spray_ctl_val(self->nb, "stats", "rx-pkts");
	retx = spray_ctl_val(NULL, "stats", "retx-pkts");
	TH_LOG("SO_RCVBUF %d: %ld packets taken, %ld refused for lack of buffer, %ld resent",
	       got_buf, rx, refused, retx);
	ASSERT_LT(0, rx);
	EXPECT_GE(rx / 10, refused) dump_stats(self->nb);
}

/*
 * A sender that goes away while waiting in line for buffer does not hold
 * up the line: x (an address of its own) is refused, y behind it; then
 * nothing from x comes and nothing reaches it (u32 filters drop both ways); when
 * the reader makes room the turn is x's, unused, and taken back (after 8
 * of its RTTs, 50 ms at least): y's message goes in.
 */
TEST_F_TIMEOUT(two, unused_turn_is_taken_back, 90)
{
	const char *xip = variant->v6 ? "fd77::3" : "10.77.0.3";
	struct sockaddr_spray xa, ya;
	long turns0, expired0, resumes0;
	unsigned char seen[3] = {};
	int tiny = 1, x, y, bad = 0;
	unsigned int got;
	double t0, end;

	ASSERT_EQ(0, spray_sh("ip addr add %s/%d dev va nodad", xip,
			      variant->v6 ? 64 : 24));
	xa = addr_of(variant->v6, 3, 0);
	ya = addr_of(variant->v6, 1, 0);
	ASSERT_EQ(0, setsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &tiny,
				sizeof(tiny)));
	x = sock_in(NULL, &xa);
	y = sock_in(NULL, &ya);
	ASSERT_LE(0, x);
	ASSERT_LE(0, y);
	/* x: one message admitted (b does not read yet), the next refused */
	ASSERT_EQ(1000, send_seq(x, &self->sb, 1000, 0, 0));
	ASSERT_TRUE(spray_wait_readable(self->b, 10000));
	ASSERT_EQ(1000, send_seq(x, &self->sb, 1000, 1, 0));
	end = spray_now() + 10;
	while (spray_ctl_val(self->nb, "stats", "rcvbuf-full") < 1 &&
	       spray_now() < end)
		usleep(10000);
	ASSERT_LE(1, spray_ctl_val(self->nb, "stats", "rcvbuf-full"));
	/* y: refused too, behind x in line */
	ASSERT_EQ(1000, send_seq(y, &self->sb, 1000, 2, 0));
	/*
	 * x's host goes away: everything from x and to x is dropped from
	 * now on (removing its address is not enough: IPv6 still sends from
	 * an address no longer there)
	 */
	ASSERT_EQ(0, spray_sh("tc qdisc add dev va root handle 1: prio && "
			      "tc filter add dev va parent 1: protocol %s u32 "
			      "match %s src %s action drop && "
			      "ip netns exec %s tc qdisc add dev vb root handle 1: prio && "
			      "ip netns exec %s tc filter add dev vb parent 1: protocol %s u32 "
			      "match %s dst %s action drop",
			      variant->v6 ? "ipv6" : "ip", variant->v6 ? "ip6" : "ip", xip,
			      self->nb, self->nb,
			      variant->v6 ? "ipv6" : "ip", variant->v6 ? "ip6" : "ip", xip));
	/* b reads x's first message: room, and the turn is x's */
	turns0 = spray_ctl_val(self->nb, "stats", "rx-turns");
	expired0 = spray_ctl_val(self->nb, "stats", "rx-turns-expired");
	resumes0 = spray_ctl_val(self->nb, "stats", "resume-tx");
	t0 = spray_now();
	got = recv_some(self->b, 1, 10000, seen, 3, &bad);
	ASSERT_EQ(1U, got);
	ASSERT_EQ(1, seen[0]);
	/* taken back unused: y's message goes in */
	got = recv_some(self->b, 1, 20000, seen, 3, &bad);
	TH_LOG("y's message %s %.2f s after the room came",
	       got ? "arrived" : "did not arrive in", spray_now() - t0);
	EXPECT_EQ(1U, got);
	EXPECT_EQ(1, seen[2]);
	EXPECT_EQ(0, seen[1]);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, wait_acked(y, 10000));
	/* counted: x's turn and y's given, x's taken back, each told */
	EXPECT_LE(2, spray_ctl_val(self->nb, "stats", "rx-turns") - turns0);
	EXPECT_EQ(1, spray_ctl_val(self->nb, "stats", "rx-turns-expired") -
		     expired0);
	EXPECT_LE(2, spray_ctl_val(self->nb, "stats", "resume-tx") - resumes0);
	close(x);
	close(y);
}

/*
 * A message longer than the receiver's max-msg fails at once with EMSGSIZE
 * (and its cookie); the messages around it are delivered.
 */
static void too_big(struct __test_metadata *_metadata,
		    FIXTURE_DATA(two) *self, bool ordered)
{
	unsigned char seen[4] = {};
	uint32_t len = 0;
	uint64_t cookie = 0;
	int one = 1, bad = 0, e;
	unsigned int got;
	ssize_t ret = -1;
	double t0;

	ASSERT_EQ(0, spray_sh("ip netns exec %s " SPRAYCTL " set max-msg 524288",
			      self->nb));
	if (ordered)
		ASSERT_EQ(0, setsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &one,
					sizeof(one)));
	t0 = spray_now();
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 0, 0));
	ASSERT_EQ(1 << 20, send_cookie(self->a, &self->sb, 1 << 20, 1, 42));
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 2, 0));
	ASSERT_EQ(500000, send_seq(self->a, &self->sb, 500000, 3, 0));
	e = errq_next(self->a, 10000, &cookie, &len, &ret);
	EXPECT_EQ(EMSGSIZE, e);
	EXPECT_EQ(42ULL, cookie);
	EXPECT_EQ(1U << 20, len);
	TH_LOG("failed after %.2f s", spray_now() - t0);
	EXPECT_GT(5.0, spray_now() - t0) TH_LOG("not at once");
	got = recv_some(self->b, 3, 10000, seen, 4, &bad);
	EXPECT_EQ(3U, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, seen[1]);
	EXPECT_EQ(1, seen[3]);
	EXPECT_EQ(0, wait_acked(self->a, 10000));
	/* one failure, and the connection carried on */
	EXPECT_EQ(1, spray_ctl_val(NULL, "stats", "msg-failed"));
	EXPECT_EQ(0, spray_ctl_val(NULL, "stats", "conn-reset"));
	EXPECT_GT(100, spray_ctl_val(NULL, "stats", "retx-pkts"))
		dump_stats(self->nb);
	/* and it still does */
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 0, 0));
	memset(seen, 0, sizeof(seen));
	EXPECT_EQ(1U, recv_some(self->b, 1, 5000, seen, 4, &bad));
}

TEST_F_TIMEOUT(two, message_above_peer_max_msg_fails_alone, 90)
{
	too_big(_metadata, self, false);
}

TEST_F_TIMEOUT(two, message_above_peer_max_msg_ordered, 90)
{
	too_big(_metadata, self, true);
}

/*
 * The receiving process exits and a new one binds the same port: the
 * sender's established connection starts again and delivers to it.
 */
TEST_F_TIMEOUT(two, receiver_restart_same_port, 90)
{
	unsigned char seen[8] = {};
	uint64_t cookie;
	uint32_t len;
	unsigned int i;
	ssize_t ret;
	int bad = 0;

	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 0, 0));
	ASSERT_EQ(1U, recv_some(self->b, 1, 10000, seen, 8, &bad));
	ASSERT_EQ(0, wait_acked(self->a, 5000));
	close(self->b);
	self->b = sock_in(self->nb, &self->sb);
	ASSERT_LE(0, self->b);
	for (i = 1; i < 6; i++)
		ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, i, 0));
	EXPECT_EQ(5U, recv_some(self->b, 5, 15000, seen, 8, &bad));
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, wait_acked(self->a, 5000));
	EXPECT_EQ(-1, errq_next(self->a, 0, &cookie, &len, &ret))
		TH_LOG("a message failed");
	EXPECT_LE(1, spray_ctl_val(NULL, "stats", "conn-reset"));
}

/*
 * The receiver forgets an idle sender (its idle timeout is shorter than
 * the sender's): the next message still arrives.
 */
TEST_F_TIMEOUT(two, receiver_idled_out, 90)
{
	unsigned char seen[8] = {};
	uint64_t cookie;
	uint32_t len;
	long closed;
	unsigned int i;
	ssize_t ret;
	double end;
	int bad = 0;

	ASSERT_EQ(0, spray_sh("ip netns exec %s " SPRAYCTL " set idle-timeout-ms 300",
			      self->nb));
	for (i = 0; i < 4; i++) {
		closed = spray_ctl_val(self->nb, "stats", "conn-close");
		ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, i, 0));
		ASSERT_EQ(1U, recv_some(self->b, 1, 10000, seen, 8, &bad))
			TH_LOG("message %u lost", i);
		/* until the receiver has forgotten us */
		end = spray_now() + 10;
		while (spray_ctl_val(self->nb, "stats", "conn-close") <= closed &&
		       spray_now() < end)
			usleep(50000);
		ASSERT_LT(closed, spray_ctl_val(self->nb, "stats", "conn-close"));
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(-1, errq_next(self->a, 0, &cookie, &len, &ret));
}

/*
 * Every ACK of the receiver is lost while the sender retransmits a message
 * the receiver delivered: the retransmissions keep the connection alive on
 * the receiver. It used to count only new packets, forget the sender after
 * its idle timeout and answer NACK NO_CONN, and the sender sent the message
 * again in a new incarnation: delivered twice.
 */
TEST_F_TIMEOUT(two, retransmissions_keep_the_receiver_state, 90)
{
	unsigned char seen[4] = {};
	double t0, end;
	long dups = 0;
	int bad = 0;

	ASSERT_EQ(0, spray_sh("ip netns exec %s " SPRAYCTL " set idle-timeout-ms 1000",
			      self->nb));
	/* the retransmissions go on for as long as the way back is cut */
	ASSERT_EQ(0, spray_sh(SPRAYCTL " set retry-limit 255"));
	ASSERT_EQ(0, spray_sh("ip netns exec %s tc qdisc add dev vb root netem loss 100%%",
			      self->nb));
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 0, 0));
	ASSERT_EQ(1U, recv_some(self->b, 1, 10000, seen, 4, &bad));
	/* three idle timeouts of retransmissions, each one a duplicate */
	t0 = spray_now();
	end = t0 + 60;
	while (spray_now() < end && (spray_now() - t0 < 3 || dups < 10)) {
		usleep(100000);
		dups = spray_ctl_val(self->nb, "stats", "drop-dup");
	}
	ASSERT_LE(10, dups);
	EXPECT_EQ(0, spray_ctl_val(self->nb, "stats", "conn-close"))
		TH_LOG("the receiver forgot a sender that was retransmitting");
	ASSERT_EQ(0, spray_sh("ip netns exec %s tc qdisc del dev vb root", self->nb));
	EXPECT_EQ(0, wait_acked(self->a, 10000));
	/* message 0 is not delivered again (it would come before 1) */
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 1, 0));
	EXPECT_EQ(1U, recv_some(self->b, 1, 10000, seen, 4, &bad));
	EXPECT_EQ(0, bad) TH_LOG("a message delivered twice");
	EXPECT_EQ(0, spray_wait_readable(self->b, 0));
	EXPECT_EQ(0, spray_ctl_val(NULL, "stats", "conn-reset"));
}

/*
 * Every packet to the receiver is lost, with a retry limit that would
 * let the only packet go on for a minute: the sender gives up (ETIMEDOUT)
 * once it has heard nothing for half its idle timeout, before the
 * receiver would forget it (idle-timeout-ms, the same on both ends as a
 * rule) and a new incarnation deliver again what it had taken. It used to
 * count only each packet's retransmissions, which an RTO of seconds and
 * many packets outstanding spread over minutes.
 */
TEST_F_TIMEOUT(two, silent_peer_fails_before_the_idle_timeout, 90)
{
	uint64_t cookie = 0;
	uint32_t len = 0;
	ssize_t ret;
	double t0;
	int e;

	ASSERT_EQ(0, spray_sh(SPRAYCTL " set idle-timeout-ms 4000 retry-limit 255"));
	ASSERT_EQ(0, spray_sh("tc qdisc add dev va root netem loss 100%%"));
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 0, 0));
	t0 = spray_now();
	e = errq_next(self->a, 20000, &cookie, &len, &ret);
	EXPECT_EQ(ETIMEDOUT, e) TH_LOG("after %.1f s: %s", spray_now() - t0,
				       e > 0 ? strerror(e) : "no failure");
	TH_LOG("failed after %.1f s of silence", spray_now() - t0);
	EXPECT_EQ(1000U, len);
	EXPECT_EQ(0, outq(self->a));
}

/*
 * SPRAY_ORDERED on a socket that already receives: refused (EBUSY), and
 * messages keep flowing; turning it off releases what was held back.
 */
TEST_F_TIMEOUT(two, ordered_switch_on_during_traffic, 60)
{
	unsigned char seen[8] = {};
	int one = 1, bad = 0, v;
	socklen_t sl = sizeof(v);
	unsigned int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, i, 0));
	ASSERT_EQ(3U, recv_some(self->b, 3, 10000, seen, 8, &bad));
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &one,
				 sizeof(one)));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, getsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &v, &sl));
	EXPECT_EQ(0, v);
	for (; i < 6; i++)
		ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, i, 0));
	EXPECT_EQ(3U, recv_some(self->b, 3, 10000, seen, 8, &bad));
	EXPECT_EQ(0, bad);
}

TEST_F_TIMEOUT(two, ordered_switch_off_releases_held, 60)
{
	unsigned char seen[8] = {};
	int one = 1, zero = 0, bad = 0;
	double end;

	ASSERT_EQ(0, setsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &one,
				sizeof(one)));
	/* retries enough for message 0 to wait as long as it must */
	ASSERT_EQ(0, spray_sh(SPRAYCTL " set retry-limit 255"));
	/* every DATA packet of message 0 is dropped on the way */
	ASSERT_EQ(0, spray_sh("tc qdisc add dev va root handle 1: prio && "
			      "tc filter add dev va parent 1: protocol %s u32 "
			      "match u8 1 0xff at %d match u32 0 0xffffffff at %d "
			      "action drop",
			      variant->v6 ? "ipv6" : "ip",
			      variant->v6 ? 49 : 29, variant->v6 ? 72 : 52));
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 0, 0));
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 1, 0));
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 2, 0));
	/* 1 and 2 arrive and wait for 0 */
	end = spray_now() + 10;
	while (spray_ctl_val(self->nb, "stats", "rx-msgs") < 2 &&
	       spray_now() < end)
		usleep(20000);
	ASSERT_EQ(2, spray_ctl_val(self->nb, "stats", "rx-msgs"));
	EXPECT_EQ(0, spray_wait_readable(self->b, 0));
	/* unordered now: they come at once */
	ASSERT_EQ(0, setsockopt(self->b, SOL_SPRAY, SPRAY_ORDERED, &zero,
				sizeof(zero)));
	EXPECT_EQ(2U, recv_some(self->b, 2, 1000, seen, 8, &bad));
	EXPECT_EQ(1, seen[1]);
	EXPECT_EQ(1, seen[2]);
	/* and 0 once it can pass */
	ASSERT_EQ(0, spray_sh("tc qdisc del dev va root"));
	EXPECT_EQ(1U, recv_some(self->b, 1, 20000, seen, 8, &bad));
	EXPECT_EQ(0, bad);
}

/*
 * A message larger than SO_RCVBUF (after rmem_max's clamp) is delivered,
 * among small ones, under loss: never a failed connection.
 */
TEST_F_TIMEOUT(two, message_above_rcvbuf_under_loss, 240)
{
	const unsigned int n = 12;
	unsigned char seen[12] = {};
	int big = 16 << 20, got_buf, bad = 0;
	socklen_t sl = sizeof(got_buf);
	unsigned int i, got;
	uint64_t cookie;
	uint32_t len;
	ssize_t ret;

	ASSERT_EQ(0, setsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big)));
	ASSERT_EQ(0, getsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &got_buf, &sl));
	TH_LOG("asked SO_RCVBUF 16 MiB, got %d", got_buf);
	ASSERT_GT(1 << 20, got_buf);
	ASSERT_EQ(0, spray_sh("tc qdisc add dev va root netem loss 2%% && "
			      "ip netns exec %s tc qdisc add dev vb root netem loss 2%%",
			      self->nb));
	for (i = 0; i < n; i++) {
		uint32_t l = i % 2 ? 1000 : 1 << 20;

		ASSERT_EQ((ssize_t)l, send_seq(self->a, &self->sb, l, i, 0));
	}
	got = recv_some(self->b, n, 120000, seen, n, &bad);
	EXPECT_EQ(n, got);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, wait_acked(self->a, 20000));
	EXPECT_EQ(-1, errq_next(self->a, 0, &cookie, &len, &ret));
	EXPECT_EQ(0, spray_ctl_val(NULL, "stats", "msg-failed"));
	EXPECT_EQ(0, spray_ctl_val(NULL, "stats", "conn-reset"));
	dump_stats(self->nb);
	TH_LOG("refused %ld, lost %ld, path-down %ld, rto %ld",
	       spray_ctl_val(self->nb, "stats", "rcvbuf-full"),
	       spray_ctl_val(NULL, "stats", "lost-pkts"),
	       spray_ctl_val(NULL, "stats", "path-down"),
	       spray_ctl_val(NULL, "stats", "rto"));
}

/* close() right after sending: the messages are still delivered. */
TEST_F_TIMEOUT(two, close_delivers_queued, 60)
{
	const unsigned int n = 20;
	unsigned char seen[20] = {};
	unsigned int i;
	int bad = 0;

	for (i = 0; i < n; i++)
		ASSERT_EQ(50000, send_seq(self->a, &self->sb, 50000, i, 0));
	close(self->a);
	self->a = -1;
	EXPECT_EQ(n, recv_some(self->b, n, 20000, seen, n, &bad));
	EXPECT_EQ(0, bad);
	/* the socket goes once everything is acknowledged */
	for (i = 0; i < 100 && spray_ctl_val(NULL, "stats", "bound-sockets"); i++)
		usleep(100000);
	EXPECT_EQ(0, spray_ctl_val(NULL, "stats", "bound-sockets"));
}

/*
 * The receiver reads the last message and closes at once, its ACK still
 * delayed: close() acknowledges what arrived, so the sender sees the
 * message delivered, not ECONNREFUSED from a retransmission into the
 * closed socket (fi_pingpong's finalize hit this).
 */
TEST_F_TIMEOUT(two, close_acknowledges_what_arrived, 60)
{
	unsigned char seen[1] = {}, c;
	int bad = 0;

	/* B holds its ACK for a second; A would not resend before 2 s */
	ASSERT_EQ(0, spray_sh("ip netns exec %s " SPRAYCTL " set ack-every 64 && "
			      "ip netns exec %s " SPRAYCTL " set ack-delay-us 1000000 && "
			      SPRAYCTL " set rto-max-us 4000000 && "
			      SPRAYCTL " set rto-min-us 2000000", self->nb, self->nb));
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 0, 0));
	ASSERT_EQ(1U, recv_some(self->b, 1, 10000, seen, 1, &bad));
	close(self->b);
	self->b = -1;
	EXPECT_EQ(0, wait_acked(self->a, 10000));
	EXPECT_GT(0, recv(self->a, &c, 1, MSG_ERRQUEUE | MSG_DONTWAIT))
		TH_LOG("the delivered message failed");
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * The ACK close() sends is lost as well (everything B sends is, until it
 * closed): A resends into a port nobody binds any more. B's namespace
 * remembers what the closed connection had received and acknowledges it
 * (closed-acks), so the message A's peer got is delivered, not failed with
 * ECONNREFUSED (trace.sh's transfer at 2% loss failed so in the CI). A
 * packet it had not received still fails: send_to_closed_port_reports_error.
 */
TEST_F_TIMEOUT(two, close_ack_lost_resend_acknowledged, 60)
{
	unsigned char seen[1] = {}, c;
	int bad = 0, i;

	/* A resends slowly: B is gone well before A's retries are */
	ASSERT_EQ(0, spray_sh(SPRAYCTL " set rto-max-us 1000000 && "
			      SPRAYCTL " set rto-min-us 200000"));
	ASSERT_EQ(0, spray_sh("ip netns exec %s tc qdisc add dev vb root netem loss 100%%",
			      self->nb));
	ASSERT_EQ(1000, send_seq(self->a, &self->sb, 1000, 0, 0));
	ASSERT_EQ(1U, recv_some(self->b, 1, 10000, seen, 1, &bad));
	EXPECT_EQ(0, bad);
	close(self->b);
	self->b = -1;
	for (i = 0; i < 100 && spray_ctl_val(self->nb, "stats", "bound-sockets"); i++)
		usleep(100000);
	ASSERT_EQ(0, spray_ctl_val(self->nb, "stats", "bound-sockets"));
	ASSERT_EQ(0, spray_sh("ip netns exec %s tc qdisc del dev vb root", self->nb));
	EXPECT_EQ(0, wait_acked(self->a, 20000));
	EXPECT_GT(0, recv(self->a, &c, 1, MSG_ERRQUEUE | MSG_DONTWAIT))
		TH_LOG("the delivered message failed");
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, spray_ctl_val(NULL, "stats", "msg-failed"));
	EXPECT_LE(1, spray_ctl_val(self->nb, "stats", "closed-acks"));
	EXPECT_LE(1, spray_ctl_val(NULL, "stats", "retx-pkts"));
}

/* B answers @n requests from A with their own bytes (a thread). */
static void *answer_requests(void *arg)
{
	struct { int fd; unsigned int n; long failed; } *srv = arg;
	static unsigned char buf[65536];
	struct sockaddr_spray from;
	socklen_t flen;
	unsigned int i;
	ssize_t r;

	for (i = 0; i < srv->n; i++) {
		struct pollfd p = { .fd = srv->fd, .events = POLLIN };
		/*
		 * Longer than the client waits for an answer: the wait for
		 * the next request starts before the client reads its stats
		 * and sets up a loss (a fork and exec each, about a second
		 * on the debug kernel), the client's own wait after that
		 */
		int pr = poll(&p, 1, 60000);

		if (pr != 1 || !(p.revents & POLLIN)) {
			fprintf(stderr, "# server: request %u: %s (poll %d revents %#x errno %d)\n",
				i, pr ? "poll failed" : "none within 60 s",
				pr, p.revents, errno);
			break;
		}
		flen = sizeof(from);
		r = recvfrom(srv->fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &flen);
		if (r <= 0 || sendto(srv->fd, buf, (size_t)r, 0,
				     (struct sockaddr *)&from, flen) != r) {
			fprintf(stderr, "# server: request %u: recvfrom %zd errno %d\n",
				i, r, errno);
			break;
		}
	}
	srv->failed = srv->n - i;
	return NULL;
}

/*
 * A sends @n requests of @len bytes to @to, each after the answer to the
 * one before; returns how many answers came back intact.
 */
static unsigned int ask_requests(int fd, const struct sockaddr_spray *to,
				 unsigned int n, uint32_t len)
{
	unsigned char buf[256];
	unsigned int i, ok = 0;
	ssize_t r;

	for (i = 0; i < n; i++) {
		if (send_seq(fd, to, len, i, 0) != (ssize_t)len ||
		    !spray_wait_readable(fd, 20000))
			break;
		r = recv(fd, buf, sizeof(buf), 0);
		if (r == (ssize_t)len && check(buf, len) == (long)i)
			ok++;
	}
	return ok;
}

static long acks_of(const char *ns, const char *what)
{
	return spray_ctl_val(ns, "stats", what);
}

/* sprayctl set @what in this namespace and in @nb; 0 on success */
static int set_both(const char *nb, const char *what)
{
	return spray_sh(SPRAYCTL " set %s && ip netns exec %s " SPRAYCTL " set %s",
			what, nb, what);
}

/*
 * Requests and their answers: each answer carries the ACK of its request,
 * each next request the ACK of the answer before it (SPRAY_F_ACK), so an
 * exchange is two packets, not four; every ACK still arrives, and every
 * message is acknowledged in the end (the last answer's ACK goes alone).
 */
TEST_F_TIMEOUT(two, answers_carry_acks, 120)
{
	const unsigned int n = 200, len = 64;
	struct { int fd; unsigned int n; long failed; } srv = {
		.fd = self->b, .n = n, .failed = -1,
	};
	long tx_a, tx_b, car_a, car_b, rx_a, rx_b;
	unsigned int ok;
	double end;
	pthread_t t;

	/*
	 * A quarter of rto-min-us is how long an ACK waits for the answer:
	 * 10 ms here, so that a slow machine (the debug kernel) answers in
	 * time too. What is tested is that answers carry the ACKs.
	 */
	ASSERT_EQ(0, set_both(self->nb, "rto-min-us 40000"));
	ASSERT_EQ(0, pthread_create(&t, NULL, answer_requests, &srv));
	ok = ask_requests(self->a, &self->sb, n, len);
	pthread_join(t, NULL);
	EXPECT_EQ(0, srv.failed);
	EXPECT_EQ(n, ok) TH_LOG("%u of %u answers came back intact", ok, n);
	/* every message delivered: the last answer's ACK went alone */
	EXPECT_EQ(0, wait_acked(self->a, 10000));
	EXPECT_EQ(0, wait_acked(self->b, 10000));
	/* every ACK sent arrived, carried or not (wait for the last one) */
	end = spray_now() + 10;
	do {
		tx_a = acks_of(NULL, "ack-tx");
		car_a = acks_of(NULL, "ack-carried");
		rx_a = acks_of(NULL, "ack-rx");
		tx_b = acks_of(self->nb, "ack-tx");
		car_b = acks_of(self->nb, "ack-carried");
		rx_b = acks_of(self->nb, "ack-rx");
		if (rx_a == tx_b + car_b && rx_b == tx_a + car_a)
			break;
		usleep(20000);
	} while (spray_now() < end);
	EXPECT_EQ(tx_b + car_b, rx_a);
	EXPECT_EQ(tx_a + car_a, rx_b);
	/*
	 * B's answers carried the ACKs of A's requests, A's requests those of
	 * B's answers; ACK packets of their own: the first exchange's (SYN),
	 * the last answer's, a few where the answer came late.
	 */
	EXPECT_LE(n - n / 10, car_b) TH_LOG("B: %ld carried, %ld alone", car_b, tx_b);
	EXPECT_LE(n - n / 10, car_a) TH_LOG("A: %ld carried, %ld alone", car_a, tx_a);
	EXPECT_GE(n / 10 + 4, tx_a + tx_b) {
		TH_LOG("ACK packets: A %ld, B %ld for %u exchanges", tx_a, tx_b, n);
		dump_stats(self->nb);
	}
}

/* what the timer expirations of namespace @ns had to do */
static long timer_work_of(const char *ns)
{
	static const char * const what[] = {
		"ack-tx", "nack-tx", "rto", "window-probes",
	};
	long sum = 0, v;
	unsigned int i;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		v = acks_of(ns, what[i]);
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

/* counter @what of both namespaces, or -1 if one cannot be read */
static long both_of(const char *nb, const char *what)
{
	long a = acks_of(NULL, what), b = acks_of(nb, what);

	return a < 0 || b < 0 ? -1 : a + b;
}

/*
 * Requests and answers with the default rto-min-us: no exchange arms or
 * moves the connection's timer. An end that answers holds the ACK its
 * answer will carry without a timer (its peer asks at its RTO if the
 * answer is late: SPRAY_CAP_ANSWER_PROBE), and the RTO of each request
 * or answer is not moved on: the timer an earlier one left fires, finds
 * nothing due and arms again, once per RTO (1 ms at least) on each end
 * however many exchanges it spans. Before, the delayed ACK was armed at
 * each arrival and moved to the RTO at each answer: four hrtimer starts
 * per exchange, and an interrupt on the CPU each start moved it from.
 * Those are not counted here; expirations are: an expiration that had
 * something to do sent an ACK, a NACK, a probe or a retransmission; the
 * others are at most one per RTO on each end while the exchanges last,
 * two more per exchange whose ACK went alone (a slow machine: the debug
 * kernel, where answers come late), and a tenth of the exchanges.
 */
TEST_F_TIMEOUT(two, answers_leave_the_timer_alone, 120)
{
	const unsigned int n = 400, len = 64;
	struct { int fd; unsigned int n; long failed; } srv = {
		.fd = self->b, .n = n, .failed = -1,
	};
	long fires, work, car, late, wa, wb, rtos;
	unsigned int ok;
	double start;
	pthread_t t;

	/* the namespaces are the test's own: their counters start at 0 */
	ASSERT_EQ(0, pthread_create(&t, NULL, answer_requests, &srv));
	start = spray_now();
	ok = ask_requests(self->a, &self->sb, n, len);
	/* one per RTO (rto-min-us, 1 ms) on each end, and the last one */
	rtos = 2 * (long)((spray_now() - start) * 1000) + 2;
	fires = both_of(self->nb, "timer-fires");
	car = both_of(self->nb, "ack-carried");
	wa = timer_work_of(NULL);
	wb = timer_work_of(self->nb);
	work = wa < 0 || wb < 0 ? -1 : wa + wb;
	/* the ACKs of requests and answers that went alone */
	late = 2 * (long)n > car ? 2 * (long)n - car : 0;
	pthread_join(t, NULL);
	/* a bound of unread counters would hold whatever the timer did */
	ASSERT_TRUE(fires >= 0 && car >= 0 && work >= 0)
		TH_LOG("sprayctl stats unreadable: %ld %ld %ld", fires, car, work);
	EXPECT_EQ(0, srv.failed);
	EXPECT_EQ(n, ok) {
		struct pollfd pb = { .fd = self->b, .events = POLLIN };
		int inq = -1;

		ioctl(self->b, SIOCINQ, &inq);
		TH_LOG("%u of %u answers came back intact; B: SIOCINQ %d, poll %d revents %#x",
		       ok, n, inq, poll(&pb, 1, 0), pb.revents);
		dump_stats(self->nb);
	}
	TH_LOG("%ld timer expirations, %ld ACKs/NACKs/probes/RTOs, %ld ACKs alone, %u exchanges, %ld RTO periods",
	       fires, work, late, n, rtos);
	EXPECT_LE(fires, work + 2 * late + rtos + n / 10)
		dump_stats(self->nb);
}

/*
 * An answer that comes late: B, which has been answering, holds the ACK
 * of A's request for its answer to carry, with no timer of its own; A,
 * whose RTO expires first, asks for that ACK with a PROBE
 * (SPRAY_CAP_ANSWER_PROBE) instead of sending the request again. The
 * request is acknowledged long before the answer, without an RTO or a
 * retransmission. rto-min-us 40 ms, as in answers_carry_acks, so that a
 * slow machine answers in time (10 ms) while B is answering.
 */
TEST_F_TIMEOUT(two, late_answer_is_asked_for, 120)
{
	const unsigned int n = 50, len = 64;
	struct { int fd; unsigned int n; long failed; } srv = {
		.fd = self->b, .n = n, .failed = -1,
	};
	struct sockaddr_spray from;
	unsigned char buf[256];
	long rto0, retx0, probes0, car;
	socklen_t flen;
	pthread_t t;
	ssize_t r;

	ASSERT_EQ(0, set_both(self->nb, "rto-min-us 40000"));
	ASSERT_EQ(0, pthread_create(&t, NULL, answer_requests, &srv));
	ASSERT_EQ(n, ask_requests(self->a, &self->sb, n, len));
	pthread_join(t, NULL);
	ASSERT_EQ(0, srv.failed);
	/* B answered in time: its answers carried the ACKs */
	car = acks_of(self->nb, "ack-carried");
	ASSERT_LE(n - n / 10, car) TH_LOG("B: %ld ACKs carried of %u", car, n);
	rto0 = acks_of(NULL, "rto");
	retx0 = acks_of(NULL, "retx-pkts");
	probes0 = acks_of(NULL, "answer-probes");
	ASSERT_TRUE(rto0 >= 0 && retx0 >= 0 && probes0 >= 0);

	/* one more request, which B reads and does not answer yet */
	ASSERT_EQ(len, send_seq(self->a, &self->sb, len, n, 0));
	ASSERT_TRUE(spray_wait_readable(self->b, 20000));
	flen = sizeof(from);
	r = recvfrom(self->b, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		     &flen);
	ASSERT_EQ(len, r);
	/* acknowledged without its answer: A asked at its RTO */
	EXPECT_EQ(0, wait_acked(self->a, 20000));
	EXPECT_LE(probes0 + 1, acks_of(NULL, "answer-probes")) dump_stats(self->nb);
	EXPECT_EQ(rto0, acks_of(NULL, "rto")) dump_stats(self->nb);
	EXPECT_EQ(retx0, acks_of(NULL, "retx-pkts")) dump_stats(self->nb);
	/* the answer still comes, and is acknowledged too */
	ASSERT_EQ(r, sendto(self->b, buf, (size_t)r, 0,
			    (struct sockaddr *)&from, flen));
	ASSERT_TRUE(spray_wait_readable(self->a, 20000));
	r = recv(self->a, buf, sizeof(buf), 0);
	EXPECT_EQ(len, r);
	EXPECT_EQ((long)n, check(buf, len));
	EXPECT_EQ(0, wait_acked(self->b, 20000));
}

/*
 * A request lost while its peer answers. The RTO asks first, as above (an
 * answer probe); the ACK to the probe acknowledges nothing new, so the
 * request is declared lost then and resent: one round trip after the
 * expiry, not one more RTO. The request is dropped by netem on A's way
 * out; the RTO floor of 2 s (4 s on a slow machine) leaves the time to
 * take the qdisc away before the expiry, so that the probe and the
 * retransmission go through.
 */
TEST_F_TIMEOUT(two, lost_request_is_found_by_the_probe, 120)
{
	const unsigned int n = 20, len = 64;
	struct { int fd; unsigned int n; long failed; } srv = {
		.fd = self->b, .n = n + 1, .failed = -1,
	};
	const char *slow = getenv("KSFT_MACHINE_SLOW");
	long probes0, rto0, lost0, retx0, car;
	unsigned char buf[256];
	double rto, sent, took;
	char what[64];
	pthread_t t;
	ssize_t r;

	/* the debug kernel forks and execs tc in about a second */
	rto = slow && !strcmp(slow, "yes") ? 4.0 : 2.0;
	snprintf(what, sizeof(what), "rto-max-us 4000000 rto-min-us %.0f",
		 rto * 1e6);
	ASSERT_EQ(0, set_both(self->nb, what));
	ASSERT_EQ(0, pthread_create(&t, NULL, answer_requests, &srv));
	ASSERT_EQ(n, ask_requests(self->a, &self->sb, n, len));
	/* B answers: its answers carry the ACKs, A's RTO will ask first */
	car = acks_of(self->nb, "ack-carried");
	ASSERT_LE(n - n / 10, car) TH_LOG("B: %ld ACKs carried of %u", car, n);
	probes0 = acks_of(NULL, "answer-probes");
	rto0 = acks_of(NULL, "rto");
	lost0 = acks_of(NULL, "lost-rto");
	retx0 = acks_of(NULL, "retx-pkts");
	ASSERT_TRUE(probes0 >= 0 && rto0 >= 0 && lost0 >= 0 && retx0 >= 0);

	/*
	 * The next request is dropped on its way out of A: the qdisc goes
	 * once it counted the drop (one shell: a fork and exec each time
	 * is slow on a debug kernel), or after 5 s without one (failed)
	 */
	ASSERT_EQ(0, spray_sh("tc qdisc add dev va root netem loss 100%%"));
	sent = spray_now();
	ASSERT_EQ(len, send_seq(self->a, &self->sb, len, n, 0));
	ASSERT_EQ(0, spray_sh("i=0; until tc -s qdisc show dev va | grep -q 'dropped [1-9]'; do "
			      "i=$((i + 1)); [ $i -lt 500 ] || { tc qdisc del dev va root; exit 1; }; "
			      "sleep 0.01; done; tc qdisc del dev va root"));
	/* otherwise the probe could have been dropped too: not this test */
	ASSERT_LT(spray_now() - sent, rto * 0.9)
		TH_LOG("the qdisc went away %.3f s after the send",
		       spray_now() - sent);

	/* the answer comes: the request was resent after the probe */
	ASSERT_TRUE(spray_wait_readable(self->a, 20000)) dump_stats(self->nb);
	took = spray_now() - sent;
	r = recv(self->a, buf, sizeof(buf), 0);
	EXPECT_EQ(len, r);
	EXPECT_EQ((long)n, check(buf, len));
	pthread_join(t, NULL);
	EXPECT_EQ(0, srv.failed);
	EXPECT_EQ(probes0 + 1, acks_of(NULL, "answer-probes")) dump_stats(self->nb);
	EXPECT_EQ(rto0 + 1, acks_of(NULL, "rto")) dump_stats(self->nb);
	EXPECT_EQ(lost0 + 1, acks_of(NULL, "lost-rto")) dump_stats(self->nb);
	EXPECT_EQ(retx0 + 1, acks_of(NULL, "retx-pkts")) dump_stats(self->nb);
	/*
	 * Found at the probe's ACK, a round trip after the expiry (under a
	 * millisecond here), not at a second expiry a whole RTO later
	 */
	EXPECT_LT(took, 1.5 * rto) TH_LOG("answered %.3f s after the send", took);
	EXPECT_EQ(0, wait_acked(self->a, 20000));
	EXPECT_EQ(0, wait_acked(self->b, 20000));
}

/*
 * A peer of an earlier release announces caps 0: it takes no ACK inside
 * DATA (an older stack ignores the flag), so the answers to its requests
 * carry none and every request is acknowledged by an ACK packet of its
 * own. A peer that announces SPRAY_CAP_DATA_ACK gets them in the answers
 * (the same run with caps 1: the check can tell). The peer is
 * spray_oldpeer, the wire spoken from a UDP socket on the AF_SPRAY port,
 * which A's namespace leaves free once its sockets moved to another.
 */
TEST_F_TIMEOUT(two, old_peer_gets_acks_alone, 180)
{
	const unsigned int n = 100;
	struct { int fd; unsigned int n; long failed; } srv;
	unsigned int answers, carried, acks, acked, nacks, caps;
	char cmd[512], line[256];
	pthread_t t;
	FILE *f;
	int st;

	close(self->a);
	self->a = -1;
	ASSERT_EQ(0, spray_sh(SPRAYCTL " set udp-port 4798 && "
			      "ip netns exec %s " SPRAYCTL " set rto-min-us 40000",
			      self->nb));
	/* caps 1: SPRAY_CAP_DATA_ACK (kernel/core/wire.h) */
	for (caps = 0; caps <= 1; caps++) {
		srv.fd = self->b;
		srv.n = n;
		srv.failed = -1;
		ASSERT_EQ(0, pthread_create(&t, NULL, answer_requests, &srv));
		/* a new source port each time: a new connection */
		snprintf(cmd, sizeof(cmd),
			 "./spray_oldpeer %s -l %s -d %s -S %u -P %u -C %u -n %u -t 60",
			 variant->v6 ? "-6" : "",
			 variant->v6 ? "fd77::1" : "10.77.0.1",
			 variant->v6 ? "fd77::2" : "10.77.0.2",
			 PORT_A + caps, PORT_B, caps, n);
		f = popen(cmd, "r");
		ASSERT_NE(NULL, f);
		line[0] = 0;
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		st = pclose(f);
		pthread_join(t, NULL);
		TH_LOG("caps %u: %s", caps, line);
		ASSERT_EQ(5, sscanf(line, "answers %u carried %u acks %u acked %u nacks %u ",
				    &answers, &carried, &acks, &acked, &nacks));
		EXPECT_EQ(0, st);
		EXPECT_EQ(0, srv.failed);
		EXPECT_EQ(n, answers);
		EXPECT_EQ(n, acked);
		if (!caps) {
			/*
			 * Nothing carried: requests acknowledged by ACK
			 * packets, each after the ACK delay (50 us), not held
			 * for an answer that cannot carry it (10 ms here:
			 * then ~7 requests went per ACK, cumulated)
			 */
			EXPECT_EQ(0U, carried);
			EXPECT_LE(n / 2, acks);
		} else {
			EXPECT_LE(n - n / 10, carried);
		}
	}
}

/*
 * A receiver of an earlier release (caps 0: no SPRAY_CAP_WINDOW_PROBE)
 * answers a PROBE with no grant, so a sender stopped by its grant probes
 * it as before, with one answer beyond the grant at a time (spray-wire.rst,
 * "Window probes"). spray_oldpeer grants 20 answers and never more: the
 * other 10 come one persist timer each, and no PROBE goes to it.
 */
TEST_F_TIMEOUT(two, old_receiver_gets_window_probes_with_data, 180)
{
	const unsigned int n = 30, grant = 20;
	struct { int fd; unsigned int n; long failed; } srv = {
		.fd = -1, .n = n, .failed = -1,
	};
	unsigned int answers, carried, acks, acked, nacks, probes;
	char cmd[512], line[256];
	long wprobes;
	pthread_t t;
	FILE *f;
	int st;

	close(self->a);
	self->a = -1;
	ASSERT_EQ(0, spray_sh(SPRAYCTL " set udp-port 4798 && "
			      "ip netns exec %s " SPRAYCTL " set rto-min-us 20000",
			      self->nb));
	wprobes = spray_ctl_val(self->nb, "stats", "window-probes");
	srv.fd = self->b;
	ASSERT_EQ(0, pthread_create(&t, NULL, answer_requests, &srv));
	snprintf(cmd, sizeof(cmd),
		 "./spray_oldpeer %s -l %s -d %s -S %u -P %u -C 0 -g %u -n %u -t 90",
		 variant->v6 ? "-6" : "",
		 variant->v6 ? "fd77::1" : "10.77.0.1",
		 variant->v6 ? "fd77::2" : "10.77.0.2",
		 PORT_A, PORT_B, grant, n);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	line[0] = 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	st = pclose(f);
	pthread_join(t, NULL);
	wprobes = spray_ctl_val(self->nb, "stats", "window-probes") - wprobes;
	TH_LOG("%s, %ld window probes", line, wprobes);
	ASSERT_EQ(6, sscanf(line, "answers %u carried %u acks %u acked %u nacks %u probes %u",
			    &answers, &carried, &acks, &acked, &nacks, &probes));
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, srv.failed);
	EXPECT_EQ(n, answers);
	EXPECT_EQ(n, acked);
	/* no PROBE: its answer would carry no grant */
	EXPECT_EQ(0U, probes);
	/* every answer beyond the grant was a window probe */
	EXPECT_LE((long)(n - grant), wprobes);
}

/* SO_LINGER 0: close() drops what is queued, at once. */
TEST_F_TIMEOUT(two, close_linger_zero_drops, 60)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	unsigned int i;
	double t0;

	/* nothing gets through: everything stays queued */
	ASSERT_EQ(0, spray_sh("tc qdisc add dev va root netem loss 100%%"));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(50000, send_seq(self->a, &self->sb, 50000, i, 0));
	ASSERT_LT(0, outq(self->a));
	ASSERT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	t0 = spray_now();
	close(self->a);
	self->a = -1;
	EXPECT_GT(0.5, spray_now() - t0);
	/* gone: no socket, no connection left, the port can be bound again */
	EXPECT_EQ(0, spray_ctl_val(NULL, "stats", "bound-sockets"));
	self->a = sock_in(NULL, &self->sa);
	EXPECT_LE(0, self->a);
}

/* SO_LINGER with a timeout: close() waits for delivery, at most that long. */
TEST_F_TIMEOUT(two, close_linger_waits, 60)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 2 };
	unsigned char seen[4] = {};
	unsigned int i;
	double t0, dt;
	int bad = 0;

	/* the path works: close() returns once all is acknowledged */
	for (i = 0; i < 4; i++)
		ASSERT_EQ(50000, send_seq(self->a, &self->sb, 50000, i, 0));
	ASSERT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	t0 = spray_now();
	close(self->a);
	dt = spray_now() - t0;
	self->a = -1;
	EXPECT_EQ(4U, recv_some(self->b, 4, 5000, seen, 4, &bad));
	TH_LOG("close() took %.2f s with a working path", dt);
	EXPECT_GT(2.0, dt);

	/* nothing gets through: close() waits the linger time */
	self->a = sock_in(NULL, &self->sa);
	ASSERT_LE(0, self->a);
	ASSERT_EQ(0, spray_sh("tc qdisc add dev va root netem loss 100%%"));
	ASSERT_EQ(50000, send_seq(self->a, &self->sb, 50000, 9, 0));
	ASSERT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	t0 = spray_now();
	close(self->a);
	dt = spray_now() - t0;
	self->a = -1;
	TH_LOG("close() took %.2f s with a dead path", dt);
	EXPECT_LE(1.9, dt);
	EXPECT_GT(4.0, dt);
}

/*
 * A closed socket's undeliverable messages end with its namespace: the
 * namespace goes away (and takes the orphan with it) without waiting.
 */
TEST_F_TIMEOUT(two, orphan_ends_with_namespace, 60)
{
	char na[32];
	int fd;

	/* a sender in a third namespace whose peer never answers */
	snprintf(na, sizeof(na), "rela%d", getpid());
	ASSERT_EQ(0, spray_sh("ip netns add %s && ip -n %s link set lo up && "
			      "ip -n %s addr add 10.88.0.1/24 dev lo && "
			      "ip -n %s route add 10.89.0.0/24 dev lo",
			      na, na, na, na));
	ASSERT_EQ(0, spray_sh("ip netns exec %s " SPRAYCTL
			      " set retry-limit 255 rto-max-us 4000000", na));
	{
		struct sockaddr_spray me = spray_sa4("10.88.0.1", 7300);
		struct sockaddr_spray far = spray_sa4("10.89.0.9", 7300);

		fd = sock_in(na, &me);
		ASSERT_LE(0, fd);
		ASSERT_EQ(1000, send_seq(fd, &far, 1000, 0, 0));
		close(fd);
	}
	/* it lingers (for minutes: retry-limit 255 x 4 s) */
	EXPECT_EQ(1, spray_ctl_val(na, "stats", "bound-sockets"));
	/* the namespace's deletion ends it: nothing is left behind */
	ASSERT_EQ(0, spray_sh("ip netns del %s", na));
}

/*
 * A socket bound to the wildcard on a host with two addresses answers
 * from the address its peer used, for everything it sends.
 */
FIXTURE(multihomed) {
	int r, a;
};

FIXTURE_VARIANT(multihomed) {
	bool v6;
};

FIXTURE_VARIANT_ADD(multihomed, ipv4) {
	.v6 = false,
};

FIXTURE_VARIANT_ADD(multihomed, ipv6) {
	.v6 = true,
};

FIXTURE_SETUP(multihomed)
{
	ASSERT_EQ(0, spray_enter_netns(0));
	ASSERT_EQ(0, spray_sh("ip addr add 10.66.0.1/32 dev lo && "
			      "ip addr add 10.66.0.2/32 dev lo && "
			      "ip addr add fd66::1/128 dev lo nodad && "
			      "ip addr add fd66::2/128 dev lo nodad"));
	self->r = socket(AF_SPRAY, SOCK_DGRAM, 0);
	self->a = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->r);
	ASSERT_LE(0, self->a);
}

FIXTURE_TEARDOWN(multihomed)
{
	close(self->r);
	close(self->a);
}

TEST_F_TIMEOUT(multihomed, answers_from_address_used, 60)
{
	struct sockaddr_spray any = spray_sa6("::", 7400), from;
	struct sockaddr_spray ra, r2, me;
	static unsigned char buf[4096];
	socklen_t fl = sizeof(from);
	unsigned char seen[8] = {};
	int bad = 0;
	ssize_t n;

	if (variant->v6) {
		me = spray_sa6("fd66::1", 7401);
		r2 = spray_sa6("fd66::2", 7400);
	} else {
		any = spray_sa4("0.0.0.0", 7400);
		me = spray_sa4("10.66.0.1", 7401);
		r2 = spray_sa4("10.66.0.2", 7400);
	}
	ra = me;
	ASSERT_EQ(0, spray_bind(self->r, &any));
	ASSERT_EQ(0, spray_bind(self->a, &me));
	/* a speaks to r's second address */
	ASSERT_EQ(1000, send_seq(self->a, &r2, 1000, 0, 0));
	ASSERT_EQ(1, spray_wait_readable(self->r, 5000));
	n = recvfrom(self->r, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	ASSERT_EQ(1000, n);
	ASSERT_EQ(0, memcmp(&from, &ra, sizeof(ra)));
	/* r answers: it comes from the address a used */
	ASSERT_EQ(1000, send_seq(self->r, &from, 1000, 1, 0));
	ASSERT_EQ(1, spray_wait_readable(self->a, 5000));
	fl = sizeof(from);
	n = recvfrom(self->a, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	ASSERT_EQ(1000, n);
	EXPECT_EQ(0, memcmp(&from, &r2, sizeof(r2)))
		TH_LOG("the answer came from another address of r");
	/* and a's next messages to that address are acknowledged */
	ASSERT_EQ(1000, send_seq(self->a, &r2, 1000, 2, 0));
	ASSERT_EQ(1000, send_seq(self->a, &r2, 1000, 3, 0));
	EXPECT_EQ(2U, recv_some(self->r, 2, 5000, seen, 8, &bad));
	EXPECT_EQ(0, wait_acked(self->a, 5000));
	EXPECT_EQ(0, wait_acked(self->r, 5000));
	EXPECT_EQ(0, spray_ctl_val(NULL, "stats", "msg-failed"));
}

TEST_HARNESS_MAIN

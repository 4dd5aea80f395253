// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY against hostile local callers: every socket call with bad
 * arguments that socket_test and transfer_test do not already try
 * (lengths, families, flags, zero and huge sizes, garbage control
 * messages, socket options with bad lengths, bad pointers), threads
 * blocked in send and recv while another closes or shuts the socket down,
 * a peer's network namespace destroyed in the middle of a transfer, many
 * namespaces dying with traffic in flight, and a receiver that never reads
 * with the smallest SO_RCVBUF. Each call gets a clear error; nothing hangs
 * (every wait is bounded); memory stays bounded; no message is lost or
 * duplicated when the receiver finally reads. The kernel log is checked
 * for warnings by run.sh afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/errqueue.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"
#include "spray_test.h"

#define MAX_MSG		(8 << 20)
#define TIMEOUT_MS	20000

static int wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* errno is one of the listed values */
static int errno_in(int e, const int *set, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (e == set[i])
			return 1;
	return 0;
}

#define ERRNO_IN(...) ({ const int _s[] = { __VA_ARGS__ }; \
	errno_in(errno, _s, sizeof(_s) / sizeof(_s[0])); })

/* Numbered message content: seq and len in the first 8 bytes. */
static void fill(unsigned char *buf, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seq * 131 + i * 7 + (i >> 9));
	if (len >= 8) {
		memcpy(buf, &seq, 4);
		memcpy(buf + 4, &len, 4);
	}
}

static int check_msg(const unsigned char *buf, uint32_t n, uint32_t *seq)
{
	static unsigned char want[1 << 20];
	uint32_t len;

	if (n < 8 || n > sizeof(want))
		return -1;
	memcpy(seq, buf, 4);
	memcpy(&len, buf + 4, 4);
	if (len != n)
		return -1;
	fill(want, n, *seq);
	return memcmp(buf, want, n) ? -1 : 0;
}

/* A socket bound to 127.0.0.1, any port; its address in @sa. */
static int bound_sock(struct sockaddr_spray *sa)
{
	socklen_t len = sizeof(*sa);
	int fd = socket(AF_SPRAY, SOCK_DGRAM, 0);

	*sa = spray_sa4("127.0.0.1", 0);
	if (fd < 0 || spray_bind(fd, sa) ||
	    getsockname(fd, (struct sockaddr *)sa, &len))
		return -1;
	return fd;
}

FIXTURE(pair) {
	int a, b;
	struct sockaddr_spray sa, sb;
};

FIXTURE_SETUP(pair)
{
	self->a = bound_sock(&self->sa);
	self->b = bound_sock(&self->sb);
	ASSERT_LE(0, self->a);
	ASSERT_LE(0, self->b);
}

FIXTURE_TEARDOWN(pair)
{
	close(self->a);
	close(self->b);
}

/* One byte a to b, received: the pair still works. */
static int pair_works(int a, int b, const struct sockaddr_spray *sb)
{
	char c = 'k';

	if (spray_sendto(a, &c, 1, sb) != 1 || !wait_readable(b, TIMEOUT_MS))
		return 0;
	return recv(b, &c, 1, 0) == 1 && c == 'k';
}

/* ---- calls AF_SPRAY does not support ---- */

TEST_F(pair, unsupported_calls)
{
	struct sockaddr_spray sa = self->sb;
	int sv[2], f;
	char buf[16];
	void *p;

	errno = 0;
	EXPECT_EQ(-1, connect(self->a, (struct sockaddr *)&sa, sizeof(sa)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, socketpair(AF_SPRAY, SOCK_DGRAM, 0, sv));
	EXPECT_EQ(EOPNOTSUPP, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->a, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	/* write() and send() have no destination */
	errno = 0;
	EXPECT_EQ(-1, write(self->a, "x", 1));
	EXPECT_EQ(EDESTADDRREQ, errno);
	/* read() of an empty non-blocking socket */
	fcntl(self->b, F_SETFL, O_NONBLOCK);
	errno = 0;
	EXPECT_EQ(-1, read(self->b, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);
	/* sendfile() into the socket: no destination either */
	f = open("/proc/self/stat", O_RDONLY);
	ASSERT_LE(0, f);
	errno = 0;
	EXPECT_EQ(-1, sendfile(self->a, f, NULL, 100));
	EXPECT_TRUE(ERRNO_IN(EDESTADDRREQ, EOPNOTSUPP, EINVAL))
		TH_LOG("sendfile: %s", strerror(errno));
	close(f);
	EXPECT_TRUE(pair_works(self->a, self->b, &self->sb));
}

/* ---- shutdown() ---- */

TEST_F(pair, shutdown_semantics)
{
	char c;

	errno = 0;
	EXPECT_EQ(-1, shutdown(self->a, 3));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, shutdown(self->a, -1));
	EXPECT_EQ(EINVAL, errno);

	/* a message queued before SHUT_RD is still read, then end of file */
	ASSERT_EQ(1, spray_sendto(self->a, "q", 1, &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	ASSERT_EQ(0, shutdown(self->b, SHUT_RD));
	EXPECT_EQ(1, recv(self->b, &c, 1, 0));
	EXPECT_EQ(0, recv(self->b, &c, 1, 0));
	EXPECT_TRUE(wait_readable(self->b, 0)) TH_LOG("POLLIN at end of file");

	/* SHUT_WR: sending fails at once with EPIPE (MSG_NOSIGNAL: no signal) */
	ASSERT_EQ(0, shutdown(self->a, SHUT_WR));
	errno = 0;
	EXPECT_EQ(-1, sendto(self->a, "x", 1, MSG_NOSIGNAL,
			     (struct sockaddr *)&self->sb, sizeof(self->sb)));
	EXPECT_EQ(EPIPE, errno);
	/* ... and shutting down twice is harmless */
	EXPECT_EQ(0, shutdown(self->a, SHUT_RDWR));
	EXPECT_EQ(0, shutdown(self->a, SHUT_RDWR));
}

/* ---- sendmsg ---- */

TEST_F(pair, sendmsg_bad_iovecs)
{
	static char big[MAX_MSG / 2 + 1];
	struct iovec iov[UIO_MAXIOV + 1];
	struct msghdr m = {
		.msg_name = &self->sb, .msg_namelen = sizeof(self->sb),
		.msg_iov = iov,
	};
	char buf[64] = "hello";
	int i;

	for (i = 0; i <= UIO_MAXIOV; i++) {
		iov[i].iov_base = buf;
		iov[i].iov_len = 1;
	}
	/* more iovecs than the kernel takes */
	m.msg_iovlen = UIO_MAXIOV + 1;
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EMSGSIZE, errno);
	/* UIO_MAXIOV single bytes: one message of 1024 bytes */
	m.msg_iovlen = UIO_MAXIOV;
	EXPECT_EQ(UIO_MAXIOV, sendmsg(self->a, &m, 0));
	/* no iovec, or only empty ones: an empty message */
	m.msg_iovlen = 0;
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EINVAL, errno);
	iov[0].iov_len = 0;
	iov[1].iov_len = 0;
	m.msg_iovlen = 2;
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EINVAL, errno);
	/* a negative length */
	iov[0].iov_len = (size_t)-5;
	m.msg_iovlen = 1;
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EINVAL, errno);
	/* a bad pointer among good ones */
	iov[0].iov_base = buf;
	iov[0].iov_len = 5;
	iov[1].iov_base = (void *)16;
	iov[1].iov_len = 10;
	m.msg_iovlen = 2;
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EFAULT, errno);
	/* two halves of more than the largest message */
	iov[0].iov_base = big;
	iov[0].iov_len = sizeof(big);
	iov[1].iov_base = big;
	iov[1].iov_len = sizeof(big);
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EMSGSIZE, errno);
	/* the largest size the kernel can describe, with a small buffer */
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(self->a, buf, SIZE_MAX, &self->sb));
	EXPECT_TRUE(ERRNO_IN(EMSGSIZE, EFAULT, EINVAL)) TH_LOG("%s", strerror(errno));
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(self->a, buf, INT_MAX, &self->sb));
	EXPECT_TRUE(ERRNO_IN(EMSGSIZE, EFAULT)) TH_LOG("%s", strerror(errno));

	/* only the 1024-byte message arrived */
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	EXPECT_EQ(UIO_MAXIOV, recv(self->b, big, sizeof(big), MSG_DONTWAIT));
	EXPECT_EQ(0, memcmp(big, "hhhhh", 5));
	errno = 0;
	EXPECT_EQ(-1, recv(self->b, big, sizeof(big), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(pair, sendmsg_bad_names)
{
	struct {
		struct sockaddr_spray sa;
		char pad[200];
	} big;
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct sockaddr_spray to;
	unsigned int i;
	int s6;
	const char *bad4[] = { "224.0.0.1", "239.1.2.3", "255.255.255.255" };
	const char *bad6[] = { "ff02::1", "ff0e::1234", "::ffff:127.0.0.1" };
	const int sflags[] = { MSG_OOB, MSG_PEEK, MSG_DONTROUTE, MSG_EOR,
			       MSG_MORE, MSG_CONFIRM, MSG_TRUNC, MSG_WAITALL,
			       MSG_ERRQUEUE, MSG_ZEROCOPY, MSG_FASTOPEN,
			       1 << 30 };

	/* NULL name with a length, bad pointer, negative length */
	m.msg_namelen = sizeof(to);
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	m.msg_name = (void *)16;
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EFAULT, errno);
	m.msg_name = &self->sb;
	m.msg_namelen = -1;
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EINVAL, errno);
	/* longer than a sockaddr_storage: trailing garbage is refused */
	memset(&big, 0, sizeof(big));
	big.sa = self->sb;
	big.pad[50] = 1;
	m.msg_name = &big;
	m.msg_namelen = sizeof(big);
	errno = 0;
	EXPECT_EQ(-1, sendmsg(self->a, &m, 0));
	EXPECT_EQ(EINVAL, errno);
	/* every short length */
	for (i = 0; i < sizeof(to); i++) {
		m.msg_name = &self->sb;
		m.msg_namelen = i;
		errno = 0;
		EXPECT_EQ(-1, sendmsg(self->a, &m, 0)) TH_LOG("namelen %u", i);
		EXPECT_TRUE(ERRNO_IN(EINVAL, EDESTADDRREQ)) TH_LOG("namelen %u: %s",
								  i, strerror(errno));
	}
	/* every other family in sspray_family and sspray_af */
	for (i = 0; i < 64; i++) {
		to = self->sb;
		to.sspray_family = (sa_family_t)i;
		errno = 0;
		if (i == AF_SPRAY)
			continue;
		EXPECT_EQ(-1, spray_sendto(self->a, "x", 1, &to));
		EXPECT_EQ(EAFNOSUPPORT, errno) TH_LOG("family %u", i);
		to = self->sb;
		to.sspray_af = (uint16_t)i;
		if (i == AF_INET || i == AF_INET6)
			continue;
		errno = 0;
		EXPECT_EQ(-1, spray_sendto(self->a, "x", 1, &to));
		EXPECT_EQ(EAFNOSUPPORT, errno) TH_LOG("inner family %u", i);
	}
	/* not a unicast destination: refused before anything is sent */
	for (i = 0; i < sizeof(bad4) / sizeof(bad4[0]); i++) {
		to = spray_sa4(bad4[i], 7000);
		errno = 0;
		EXPECT_EQ(-1, spray_sendto(self->a, "x", 1, &to)) TH_LOG("%s", bad4[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s: %s", bad4[i], strerror(errno));
	}
	for (i = 0; i < sizeof(bad6) / sizeof(bad6[0]); i++) {
		s6 = socket(AF_SPRAY, SOCK_DGRAM, 0);
		to = spray_sa6(bad6[i], 7000);
		errno = 0;
		EXPECT_EQ(-1, spray_sendto(s6, "x", 1, &to)) TH_LOG("%s", bad6[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s: %s", bad6[i], strerror(errno));
		close(s6);
	}
	/* flags beyond MSG_DONTWAIT and MSG_NOSIGNAL */
	for (i = 0; i < sizeof(sflags) / sizeof(sflags[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, sendto(self->a, "x", 1, sflags[i],
				     (struct sockaddr *)&self->sb,
				     sizeof(self->sb)));
		EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("flag %#x", sflags[i]);
	}
	EXPECT_TRUE(pair_works(self->a, self->b, &self->sb));
	errno = 0;
	EXPECT_EQ(-1, recv(self->b, big.pad, 1, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("something else was delivered");
}

/* One cmsg of @len bytes (cmsg_len as given) with level/type, sent a->b. */
static ssize_t send_cmsg(int fd, const struct sockaddr_spray *to, void *ctl,
			 size_t ctllen)
{
	struct iovec iov = { .iov_base = "c", .iov_len = 1 };
	struct msghdr m = {
		.msg_name = (void *)to, .msg_namelen = sizeof(*to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = ctllen,
	};

	return sendmsg(fd, &m, 0);
}

TEST_F(pair, sendmsg_garbage_cmsg)
{
	union {
		char b[512];
		struct cmsghdr h;
	} c;
	struct cmsghdr *cm = &c.h;
	uint64_t cookie = 7;
	int i, ok = 0, got = 0, fd;
	unsigned int seed = 12345;
	char buf[4];

	/* cmsg_len below the header, beyond the buffer, zero */
	memset(&c, 0, sizeof(c));
	cm->cmsg_level = SOL_SPRAY;
	cm->cmsg_type = SPRAY_CMSG_COOKIE;
	cm->cmsg_len = sizeof(*cm) - 1;
	errno = 0;
	EXPECT_EQ(-1, send_cmsg(self->a, &self->sb, &c, CMSG_SPACE(8)));
	EXPECT_EQ(EINVAL, errno);
	cm->cmsg_len = CMSG_LEN(8) + 100;
	errno = 0;
	EXPECT_EQ(-1, send_cmsg(self->a, &self->sb, &c, CMSG_SPACE(8)));
	EXPECT_EQ(EINVAL, errno);
	cm->cmsg_len = 0;
	errno = 0;
	EXPECT_EQ(-1, send_cmsg(self->a, &self->sb, &c, CMSG_SPACE(8)));
	EXPECT_EQ(EINVAL, errno);
	/* a control buffer the kernel refuses to copy */
	errno = 0;
	EXPECT_EQ(-1, send_cmsg(self->a, &self->sb, &c, (size_t)INT_MAX + 1));
	EXPECT_TRUE(ERRNO_IN(ENOBUFS, EINVAL)) TH_LOG("%s", strerror(errno));
	errno = 0;
	EXPECT_EQ(-1, send_cmsg(self->a, &self->sb, (void *)16, 64));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, send_cmsg(self->a, &self->sb, NULL, 64));
	EXPECT_EQ(EFAULT, errno);
	/* SCM_RIGHTS: not ours; the descriptor is neither taken nor passed */
	fd = dup(0);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	errno = 0;
	EXPECT_EQ(-1, send_cmsg(self->a, &self->sb, &c, CMSG_SPACE(sizeof(int))));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, close(fd));
	/* two cookies: accepted (the last one counts) */
	cm->cmsg_level = SOL_SPRAY;
	cm->cmsg_type = SPRAY_CMSG_COOKIE;
	cm->cmsg_len = CMSG_LEN(8);
	memcpy(CMSG_DATA(cm), &cookie, 8);
	memcpy(c.b + CMSG_SPACE(8), cm, CMSG_SPACE(8));
	EXPECT_EQ(1, send_cmsg(self->a, &self->sb, &c, 2 * CMSG_SPACE(8)));
	got--;	/* that one arrives too */

	/* random control buffers: each call succeeds or fails cleanly */
	for (i = 0; i < 2000; i++) {
		size_t len = rand_r(&seed) % sizeof(c.b);
		unsigned int j;

		for (j = 0; j < sizeof(c.b); j++)
			c.b[j] = (char)rand_r(&seed);
		if (i & 1) {
			/* plausible headers, random lengths and types */
			cm->cmsg_len = rand_r(&seed) % 64;
			cm->cmsg_level = (i & 2) ? SOL_SPRAY : SOL_SOCKET;
			cm->cmsg_type = rand_r(&seed) % 4;
		}
		if (send_cmsg(self->a, &self->sb, &c, len) == 1) {
			ok++;
		} else {
			EXPECT_TRUE(ERRNO_IN(EINVAL, ENOBUFS))
				TH_LOG("%s", strerror(errno));
		}
	}
	/* exactly the accepted messages arrive */
	while (wait_readable(self->b, 2000) && recv(self->b, buf, 4, 0) == 1)
		got++;
	EXPECT_EQ(ok, got);
	TH_LOG("%d of 2000 random control buffers accepted", ok);
}

/* ---- recvmsg ---- */

TEST_F(pair, recvmsg_bad_arguments)
{
	struct sockaddr_spray from;
	char buf[64], small[4];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	const int flags[] = { MSG_OOB, MSG_EOR, MSG_MORE, MSG_CONFIRM,
			      MSG_DONTROUTE, 1 << 30 };
	unsigned int i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, recv(self->b, buf, sizeof(buf), flags[i] | MSG_DONTWAIT));
		EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("flag %#x", flags[i]);
	}
	/* a bad buffer: EFAULT, and the socket goes on working */
	ASSERT_EQ(5, spray_sendto(self->a, "hello", 5, &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	errno = 0;
	EXPECT_EQ(-1, recv(self->b, (void *)16, 5, 0));
	EXPECT_EQ(EFAULT, errno);
	/* a bad name pointer */
	ASSERT_EQ(5, spray_sendto(self->a, "world", 5, &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	m.msg_name = (void *)16;
	m.msg_namelen = sizeof(from);
	errno = 0;
	EXPECT_EQ(-1, recvmsg(self->b, &m, 0));
	EXPECT_EQ(EFAULT, errno);
	/* a name buffer too short: truncated, full length reported */
	ASSERT_EQ(5, spray_sendto(self->a, "again", 5, &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	m.msg_name = small;
	m.msg_namelen = sizeof(small);
	EXPECT_EQ(5, recvmsg(self->b, &m, 0));
	EXPECT_EQ(sizeof(from), m.msg_namelen);
	/* zero-length read: the message is consumed, MSG_TRUNC tells its size */
	ASSERT_EQ(5, spray_sendto(self->a, "zero!", 5, &self->sb));
	ASSERT_TRUE(wait_readable(self->b, TIMEOUT_MS));
	EXPECT_EQ(5, recv(self->b, NULL, 0, MSG_TRUNC));
	/* the error queue: empty, with and without room for control data */
	m.msg_name = NULL;
	m.msg_namelen = 0;
	errno = 0;
	EXPECT_EQ(-1, recvmsg(self->b, &m, MSG_ERRQUEUE));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_TRUE(pair_works(self->a, self->b, &self->sb));
}

TEST_F(pair, errqueue_small_control_buffer)
{
	struct sockaddr_spray nobody = spray_sa4("127.0.0.1", 9);
	char cbuf[CMSG_SPACE(4)];
	struct msghdr m = { .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct pollfd p = { .fd = self->a, .events = 0 };

	ASSERT_EQ(3, spray_sendto(self->a, "abc", 3, &nobody));
	ASSERT_EQ(1, poll(&p, 1, TIMEOUT_MS));
	ASSERT_TRUE(p.revents & POLLERR);
	/* no room for the extended error: truncated, flagged, not a crash */
	EXPECT_EQ(0, recvmsg(self->a, &m, MSG_ERRQUEUE));
	EXPECT_TRUE(m.msg_flags & MSG_CTRUNC);
	EXPECT_TRUE(m.msg_flags & MSG_ERRQUEUE);
}

/* ---- socket options and ioctls ---- */

TEST_F(pair, sockopt_bad_lengths)
{
	int v = 1, len;
	socklen_t sl;
	char huge[256] = { 1 };
	const unsigned int bad_len[] = { 0, 1, 2, 3 };
	unsigned int i;

	for (i = 0; i < sizeof(bad_len) / sizeof(bad_len[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, setsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, &v,
					 bad_len[i]));
		EXPECT_EQ(EINVAL, errno) TH_LOG("optlen %u", bad_len[i]);
	}
	/* longer than an int: the int is read */
	memset(huge, 0, sizeof(huge));
	huge[0] = 1;
	EXPECT_EQ(0, setsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, huge, sizeof(huge)));
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, NULL, 4));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, (void *)16, 4));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->a, SOL_SPRAY, -1, &v, 4));
	EXPECT_EQ(ENOPROTOOPT, errno);
	/* levels of other protocols */
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->a, SOL_IP, IP_TOS, &v, 4));
	EXPECT_EQ(ENOPROTOOPT, errno);
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->a, IPPROTO_UDP, 1, &v, 4));
	EXPECT_EQ(ENOPROTOOPT, errno);

	/* getsockopt: short, negative, NULL lengths; NULL value */
	sl = 2;
	errno = 0;
	EXPECT_EQ(-1, getsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, &v, &sl));
	EXPECT_EQ(EINVAL, errno);
	len = -1;
	errno = 0;
	EXPECT_EQ(-1, getsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, &v,
				 (socklen_t *)&len));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, getsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, &v, NULL));
	EXPECT_EQ(EFAULT, errno);
	sl = 4;
	errno = 0;
	EXPECT_EQ(-1, getsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, NULL, &sl));
	EXPECT_EQ(EFAULT, errno);
	sl = sizeof(huge);
	v = 0;
	EXPECT_EQ(0, getsockopt(self->a, SOL_SPRAY, SPRAY_ORDERED, huge, &sl));
	EXPECT_EQ(sizeof(int), sl);
	EXPECT_EQ(1, huge[0]);
	errno = 0;
	sl = 4;
	EXPECT_EQ(-1, getsockopt(self->a, SOL_SPRAY, 77, &v, &sl));
	EXPECT_EQ(ENOPROTOOPT, errno);

	/* the generic socket level knows what this socket is */
	sl = sizeof(v);
	EXPECT_EQ(0, getsockopt(self->a, SOL_SOCKET, SO_DOMAIN, &v, &sl));
	EXPECT_EQ(AF_SPRAY, v);
	EXPECT_EQ(0, getsockopt(self->a, SOL_SOCKET, SO_TYPE, &v, &sl));
	EXPECT_EQ(SOCK_DGRAM, v);
	EXPECT_EQ(0, getsockopt(self->a, SOL_SOCKET, SO_PROTOCOL, &v, &sl));
	EXPECT_EQ(0, v);
	/* extreme buffer sizes are clamped, the socket keeps working */
	v = 0;
	EXPECT_EQ(0, setsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
	v = -1;
	EXPECT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)));
	v = INT_MAX;
	EXPECT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
	sl = sizeof(v);
	EXPECT_EQ(0, getsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &v, &sl));
	EXPECT_LT(0, v);
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->a, SOL_SOCKET, SO_RCVTIMEO, &v, 3));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_TRUE(pair_works(self->a, self->b, &self->sb));
}

TEST_F(pair, ioctl_bad_arguments)
{
	int v;

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->a, SIOCINQ, NULL));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->a, SIOCOUTQ, (void *)16));
	EXPECT_EQ(EFAULT, errno);
	/* not an ioctl of sockets */
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->a, _IOR('x', 1, int), &v));
	EXPECT_EQ(ENOTTY, errno) TH_LOG("%s", strerror(errno));
	/* a protocol-private number AF_SPRAY does not define */
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->a, SIOCPROTOPRIVATE, &v));
	EXPECT_TRUE(ERRNO_IN(ENOTTY, EINVAL, EOPNOTSUPP, ENODEV, EFAULT))
		TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, ioctl(self->b, SIOCINQ, &v));
	EXPECT_EQ(0, v);
}

/* ---- threads blocked in send and recv ---- */

struct blocked {
	int fd;
	struct sockaddr_spray to;
	int ret, err;
	double took;
	volatile int started;
	volatile int calls;	/* sends that returned */
};

static void *recv_thread(void *arg)
{
	struct blocked *b = arg;
	double t0 = now_s();
	char buf[16];

	b->started = 1;
	b->ret = (int)recv(b->fd, buf, sizeof(buf), 0);
	b->err = errno;
	b->took = now_s() - t0;
	return NULL;
}

static void *send_thread(void *arg)
{
	static char buf[1 << 20];
	struct blocked *b = arg;
	double t0 = now_s();

	b->started = 1;
	/* send until the queue is full and then block, or fail */
	do {
		b->ret = (int)sendto(b->fd, buf, sizeof(buf), MSG_NOSIGNAL,
				     (struct sockaddr *)&b->to, sizeof(b->to));
		b->calls++;
	} while (b->ret > 0 && now_s() - t0 < 30);
	b->err = errno;
	b->took = now_s() - t0;
	return NULL;
}

/* Message @seq of @len bytes a to b, and read whole: 0, or -1. */
static int long_message_through(int a, int b, const struct sockaddr_spray *sb,
				unsigned char *buf, size_t len, uint32_t seq)
{
	uint32_t got;

	fill(buf, len, seq);
	if (spray_sendto(a, buf, len, sb) != (ssize_t)len ||
	    !wait_readable(b, TIMEOUT_MS))
		return -1;
	memset(buf, 0, len);
	if (recv(b, buf, len, 0) != (ssize_t)len || check_msg(buf, len, &got))
		return -1;
	return got == seq ? 0 : -1;
}

/*
 * A long message sent from, or read into, a buffer with an unmapped page in
 * its middle: EFAULT, and nothing else. On a loopback of MTU 1500 the
 * message goes as trains of 1.4 KiB slots, whose payloads the receiver
 * keeps in the sender's chunks and copies out one by one, some across a
 * page: the send fails before anything goes, the read consumes the message
 * it faulted on, and the messages around them arrive whole.
 */
TEST(a_hole_in_a_long_message_buffer_faults)
{
	const size_t len = 1 << 16, pg = sysconf(_SC_PAGESIZE);
	static unsigned char good[1 << 16];
	struct sockaddr_spray sa, sb;
	unsigned char *holed;
	int a, b;

	ASSERT_EQ(0, spray_enter_netns(1500));
	a = bound_sock(&sa);
	b = bound_sock(&sb);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	holed = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, holed);
	fill(holed, len, 9);
	/* a page at 40 KiB: slots before it copy, then one faults */
	ASSERT_EQ(0, munmap(holed + 10 * pg, pg));

	errno = 0;
	EXPECT_EQ(-1, spray_sendto(a, holed, len, &sb));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, long_message_through(a, b, &sb, good, len, 1))
		TH_LOG("the faulted send went out");

	fill(good, len, 2);
	ASSERT_EQ((ssize_t)len, spray_sendto(a, good, len, &sb));
	ASSERT_TRUE(wait_readable(b, TIMEOUT_MS));
	errno = 0;
	EXPECT_EQ(-1, recv(b, holed, len, 0));
	EXPECT_EQ(EFAULT, errno);
	/* the bytes before the hole were copied, as UDP would */
	EXPECT_EQ(2U, *(uint32_t *)holed);

	EXPECT_EQ(0, long_message_through(a, b, &sb, good, len, 3));
	errno = 0;
	EXPECT_EQ(-1, recv(b, good, len, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	close(a);
	close(b);
}

/*
 * Long messages on a loopback of MTU 1500 (trains of 1.4 KiB slots) sent
 * from and read into iovecs: pieces that end inside slots and pages (the
 * copies through the iterator, a slot in several calls), and one piece
 * holding the whole message before an empty one (the copies straight to
 * and from that piece's address, as for send() and recv()): every byte
 * where it belongs, and the length returned.
 */
TEST(long_messages_through_iovecs)
{
	static const size_t piece[] = { 1, 1423, 1425, 4095, 7, 8193, 3 };
	const size_t len = 100000;
	unsigned char *tx, *rx, *p;
	struct sockaddr_spray sa, sb;
	struct iovec iov[8];
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 8,
			    .msg_namelen = sizeof(sb) };
	size_t i, sum = 0;
	int a, b, round;

	ASSERT_EQ(0, spray_enter_netns(1500));
	a = bound_sock(&sa);
	b = bound_sock(&sb);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	tx = malloc(len);
	rx = malloc(len);
	ASSERT_TRUE(tx && rx);
	m.msg_name = &sb;
	for (round = 0; round < 4; round++) {
		fill(tx, len, 20 + round);
		memset(rx, 0, len);
		/* rounds 0, 1: scattered; 2, 3: one piece, then an empty one */
		if (round < 2) {
			for (i = 0, sum = 0, p = tx; i < 7;
			     p += piece[i], sum += piece[i], i++) {
				iov[i].iov_base = p;
				iov[i].iov_len = piece[i];
			}
			iov[7].iov_base = p;
			iov[7].iov_len = len - sum;
			m.msg_iovlen = 8;
		} else {
			iov[0].iov_base = tx;
			iov[0].iov_len = len;
			iov[1].iov_base = tx + len;
			iov[1].iov_len = 0;
			m.msg_iovlen = 2;
		}
		/* odd rounds send from one buffer, and read the other way */
		if (round & 1) {
			ASSERT_EQ((ssize_t)len, spray_sendto(a, tx, len, &sb));
		} else {
			ASSERT_EQ((ssize_t)len, sendmsg(a, &m, 0))
				TH_LOG("round %d: %s", round, strerror(errno));
		}
		ASSERT_TRUE(wait_readable(b, TIMEOUT_MS));
		if (round & 1) {
			/* the same pieces, over the receive buffer */
			for (i = 0; i < m.msg_iovlen; i++)
				iov[i].iov_base = rx + ((unsigned char *)
					iov[i].iov_base - tx);
			m.msg_name = NULL;
			m.msg_namelen = 0;
			EXPECT_EQ((ssize_t)len, recvmsg(b, &m, 0));
			m.msg_name = &sb;
			m.msg_namelen = sizeof(sb);
		} else {
			EXPECT_EQ((ssize_t)len, recv(b, rx, len, 0));
		}
		EXPECT_EQ(0, memcmp(tx, rx, len)) TH_LOG("round %d", round);
	}
	free(tx);
	free(rx);
	close(a);
	close(b);
}

/*
 * A directed broadcast (the broadcast address of a configured subnet) is
 * refused like a multicast address, when its route is looked up.
 */
TEST(directed_broadcast_refused)
{
	struct sockaddr_spray bc = spray_sa4("10.11.0.255", 7000);
	struct sockaddr_spray uc = spray_sa4("10.11.0.7", 7000);
	int fd;

	ASSERT_EQ(0, spray_enter_netns(0));
	if (system("ip link add d0 type dummy 2>/dev/null && "
		   "ip addr add 10.11.0.1/24 dev d0 && ip link set d0 up"))
		SKIP(return, "no dummy interface");
	fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(fd, "x", 1, &bc));
	EXPECT_EQ(EINVAL, errno) TH_LOG("%s", strerror(errno));
	/* a unicast address of the same subnet is fine */
	EXPECT_EQ(1, spray_sendto(fd, "x", 1, &uc)) TH_LOG("%s", strerror(errno));
	close(fd);
}

/* Join within @s seconds; a thread still blocked after that is a hang. */
static int join_within(pthread_t t, double s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)s;
	return pthread_timedjoin_np(t, NULL, &ts);
}

static void on_usr1(int sig)
{
}

/* A socket whose peer never reads: sends block once SO_SNDBUF is full. */
static void setup_blocking(int a, int b)
{
	int small = 1 << 16;

	setsockopt(b, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	setsockopt(a, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
}

/*
 * Wait until a thread sits in its call: started, and for a sender, its
 * queue at SO_SNDBUF and no send returned for 300 ms.
 */
static int wait_blocked(const struct blocked *b, int fd, int sender)
{
	double t0 = now_s(), still = 0;
	int q, calls = -1;

	while (!b->started && now_s() - t0 < 5)
		usleep(1000);
	if (!sender) {
		usleep(100000);
		return b->started;
	}
	while (now_s() - t0 < 20) {
		int sndbuf;
		socklen_t sl = sizeof(sndbuf);

		if (ioctl(fd, SIOCOUTQ, &q) == 0 &&
		    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl) == 0 &&
		    q >= sndbuf && b->calls == calls && b->ret > 0) {
			if (now_s() - still >= 0.3)
				return 1;
		} else {
			calls = b->calls;
			still = now_s();
		}
		usleep(10000);
	}
	return 0;
}

/*
 * Two threads blocked on socket a: one in recv() (nobody sends to a), one
 * in send() (a sends to b, which never reads: a's queue fills up).
 */
TEST_F_TIMEOUT(pair, shutdown_wakes_blocked_threads, 60)
{
	struct blocked r = { .fd = self->a }, s = { .fd = self->a, .to = self->sb };
	pthread_t tr, ts;

	setup_blocking(self->a, self->b);
	ASSERT_EQ(0, pthread_create(&tr, NULL, recv_thread, &r));
	ASSERT_EQ(0, pthread_create(&ts, NULL, send_thread, &s));
	ASSERT_TRUE(wait_blocked(&r, self->a, 0));
	ASSERT_TRUE(wait_blocked(&s, self->a, 1));
	ASSERT_EQ(0, shutdown(self->a, SHUT_RDWR));
	ASSERT_EQ(0, join_within(tr, 5)) TH_LOG("recv still blocked after shutdown");
	ASSERT_EQ(0, join_within(ts, 5)) TH_LOG("send still blocked after shutdown");
	EXPECT_EQ(0, r.ret) TH_LOG("recv: %d %s", r.ret, strerror(r.err));
	EXPECT_EQ(-1, s.ret);
	EXPECT_EQ(EPIPE, s.err) TH_LOG("send: %s", strerror(s.err));
}

TEST_F_TIMEOUT(pair, close_with_blocked_threads, 60)
{
	struct blocked r = { .fd = self->a }, s = { .fd = self->a, .to = self->sb };
	struct timeval tv = { .tv_sec = 2 };
	pthread_t tr, ts;

	/*
	 * close() from another thread does not wake a thread inside a call
	 * on the same socket (Linux: the call holds the file); the timeouts
	 * bound the wait, and the socket is released when the calls return.
	 */
	setup_blocking(self->a, self->b);
	ASSERT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	ASSERT_EQ(0, setsockopt(self->a, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	ASSERT_EQ(0, pthread_create(&tr, NULL, recv_thread, &r));
	ASSERT_EQ(0, pthread_create(&ts, NULL, send_thread, &s));
	ASSERT_TRUE(wait_blocked(&r, self->a, 0));
	ASSERT_TRUE(wait_blocked(&s, self->a, 1));
	EXPECT_EQ(0, close(self->a));
	ASSERT_EQ(0, join_within(tr, 10)) TH_LOG("recv hangs after close");
	ASSERT_EQ(0, join_within(ts, 10)) TH_LOG("send hangs after close");
	/* (b, which never reads, keeps a's queue full until then) */
	EXPECT_EQ(0, close(self->b));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EAGAIN, r.err) TH_LOG("recv: %s", strerror(r.err));
	EXPECT_EQ(-1, s.ret);
	EXPECT_EQ(EAGAIN, s.err) TH_LOG("send: %s", strerror(s.err));
	/* the descriptors are gone */
	EXPECT_EQ(-1, fcntl(self->a, F_GETFD));
	self->a = bound_sock(&self->sa);
	self->b = bound_sock(&self->sb);
}

TEST_F_TIMEOUT(pair, signal_interrupts_blocked_threads, 60)
{
	struct blocked r = { .fd = self->a }, s = { .fd = self->a, .to = self->sb };
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	pthread_t tr, ts;

	sigaction(SIGUSR1, &sa, NULL);
	setup_blocking(self->a, self->b);
	ASSERT_EQ(0, pthread_create(&tr, NULL, recv_thread, &r));
	ASSERT_EQ(0, pthread_create(&ts, NULL, send_thread, &s));
	ASSERT_TRUE(wait_blocked(&r, self->a, 0));
	ASSERT_TRUE(wait_blocked(&s, self->a, 1));
	pthread_kill(tr, SIGUSR1);
	pthread_kill(ts, SIGUSR1);
	ASSERT_EQ(0, join_within(tr, 5));
	ASSERT_EQ(0, join_within(ts, 5));
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EINTR, r.err) TH_LOG("recv: %s", strerror(r.err));
	EXPECT_EQ(-1, s.ret);
	EXPECT_EQ(EINTR, s.err) TH_LOG("send: %s", strerror(s.err));
}

/* ---- network namespaces going away under traffic ---- */

struct traffic {
	int tx, rx;
	struct sockaddr_spray to;
};

static void *pump(void *arg)
{
	static unsigned char buf[1 << 20];
	struct traffic *t = arg;
	uint32_t seq = 0;

	for (;;) {
		uint32_t len = 1 + (seq * 7919) % sizeof(buf);

		fill(buf, len, seq++);
		sendto(t->tx, buf, len, MSG_DONTWAIT,
		       (struct sockaddr *)&t->to, sizeof(t->to));
		usleep(100);
	}
	return NULL;
}

static void *drain(void *arg)
{
	static unsigned char buf[1 << 20];
	struct traffic *t = arg;

	for (;;)
		recv(t->rx, buf, sizeof(buf), 0);
	return NULL;
}

/*
 * A process in its own namespace sends and receives in both directions
 * and dies mid-transfer: its sockets close with messages in flight,
 * timers armed and connections half torn down, and the namespace is
 * destroyed right after. 20 times; run.sh then checks the kernel log.
 */
/* The module's reference count: one per open socket (and per user). */
static int module_refcnt(void)
{
	FILE *f = fopen("/sys/module/spray/refcnt", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

TEST_F_TIMEOUT(pair, netns_dies_with_traffic, 120)
{
	int i, status, refs = module_refcnt();
	double t0;

	for (i = 0; i < 20; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			struct traffic t1, t2;
			pthread_t th[4];

			if (spray_enter_netns(i & 1 ? 1500 : 0))
				_exit(10);
			t1.tx = bound_sock(&t2.to);
			t1.rx = t1.tx;
			t2.tx = bound_sock(&t1.to);
			t2.rx = t2.tx;
			if (t1.tx < 0 || t2.tx < 0)
				_exit(11);
			pthread_create(&th[0], NULL, pump, &t1);
			pthread_create(&th[1], NULL, pump, &t2);
			pthread_create(&th[2], NULL, drain, &t1);
			pthread_create(&th[3], NULL, drain, &t2);
			usleep(50000 + i * 20000);
			_exit(0);	/* every thread, socket and the netns */
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	/* every socket of the dead namespaces is released (no leak) */
	t0 = now_s();
	while (module_refcnt() > refs && now_s() - t0 < 20)
		usleep(10000);
	EXPECT_EQ(refs, module_refcnt()) TH_LOG("sockets left behind");
}

/* Run a shell command; 0 if it exited 0. */
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/*
 * The receiver's namespace is destroyed mid-transfer (its process dies,
 * taking its end of the veth with it): the sender's queued and in-flight
 * messages fail with a clear error on the error queue within the retry
 * budget, its queue drains, and new messages to the dead address fail.
 */
TEST_F_TIMEOUT(pair, peer_netns_destroyed_mid_transfer, 120)
{
	static unsigned char buf[1 << 16];
	struct sockaddr_spray me = spray_sa4("10.9.0.1", 0);
	struct sockaddr_spray peer = spray_sa4("10.9.0.2", 7000);
	int pfd[2], tx, q, failed = 0, timedout = 0, sent = 0, got = 0;
	bool drained = false;
	int rerr = 0;
	double t0;
	pid_t rx;
	char c;

	ASSERT_EQ(0, spray_enter_netns(0));
	/* short retry budget, so that failure is quick */
	ASSERT_EQ(0, sh(SPRAYCTL " set retry-limit 4 rto-max-us 20000"));
	ASSERT_EQ(0, pipe(pfd));
	rx = fork();
	ASSERT_LE(0, rx);
	if (!rx) {
		int fd;

		close(pfd[0]);
		if (spray_enter_netns(0))
			_exit(1);
		if (write(pfd[1], "n", 1) != 1)
			_exit(1);
		/* wait for our end of the veth */
		for (fd = 0; fd < 500 && if_nametoindex("v1") == 0; fd++)
			usleep(10000);
		if (sh("ip addr add 10.9.0.2/24 dev v1 && ip link set v1 up"))
			_exit(2);
		fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
		if (fd < 0 || spray_bind(fd, &peer))
			_exit(3);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		for (;;) {
			if (recv(fd, buf, sizeof(buf), 0) > 0 &&
			    write(pfd[1], "m", 1) != 1)
				_exit(1);
		}
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &c, 1));
	ASSERT_EQ(0, sh("ip link add v0 type veth peer name v1 netns %d && "
			"ip addr add 10.9.0.1/24 dev v0 && ip link set v0 up",
			(int)rx));
	ASSERT_EQ(1, read(pfd[0], &c, 1));
	ASSERT_EQ('r', c);

	tx = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, tx);
	ASSERT_EQ(0, spray_bind(tx, &me));
	/* some messages arrive */
	for (sent = 0; sent < 20; sent++)
		ASSERT_EQ((ssize_t)sizeof(buf), spray_sendto(tx, buf, sizeof(buf), &peer))
			TH_LOG("%s", strerror(errno));
	while (got < 5 && read(pfd[0], &c, 1) == 1)
		got++;
	/* the receiver's namespace dies with messages still in flight */
	kill(rx, SIGKILL);
	waitpid(rx, NULL, 0);
	for (; sent < 60; sent++)
		if (spray_sendto(tx, buf, sizeof(buf), &peer) < 0)
			break;
	/* every message not delivered fails, within the retry budget */
	t0 = now_s();
	while (now_s() - t0 < 30) {
		struct sock_extended_err ee;
		char cbuf[256];
		struct msghdr m = { .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;

		if (recvmsg(tx, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			rerr = errno;
			/*
			 * Drained: what failed left the queue as it went on
			 * the error queue (in a work item), so it is there by
			 * now; read it once more before stopping
			 */
			if (drained)
				break;
			drained = ioctl(tx, SIOCOUTQ, &q) == 0 && q == 0;
			if (!drained)
				usleep(10000);
			continue;
		}
		failed++;
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
			if (cm->cmsg_level == SOL_SPRAY &&
			    cm->cmsg_type == SPRAY_CMSG_ERR) {
				memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
				if (ee.ee_errno == ETIMEDOUT ||
				    ee.ee_errno == ECONNREFUSED)
					timedout++;
			}
	}
	EXPECT_EQ(0, ioctl(tx, SIOCOUTQ, &q));
	EXPECT_EQ(0, q) TH_LOG("queue never drained");
	EXPECT_LT(0, failed) TH_LOG("no message reported as failed");
	EXPECT_EQ(failed, timedout);
	TH_LOG("%d sent, %d failed with ETIMEDOUT/ECONNREFUSED after %.1f s",
	       sent, failed, now_s() - t0);
	/* what says where the messages went, if they went astray */
	if (!failed || failed != timedout) {
		int soerr = 0;
		socklen_t sl = sizeof(soerr);

		getsockopt(tx, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		TH_LOG("last recvmsg(MSG_ERRQUEUE): %s; SO_ERROR %s",
		       strerror(rerr), strerror(soerr));
		sh(SPRAYCTL " stats >&2; " SPRAYCTL " peers >&2");
	}
	/* the namespace is destroyed asynchronously; then so is our veth end */
	t0 = now_s();
	while (if_nametoindex("v0") && now_s() - t0 < 20)
		usleep(10000);
	EXPECT_EQ(0U, if_nametoindex("v0"));
	/* the address is gone: a new message cannot even be routed */
	peer = spray_sa4("10.9.0.3", 1);
	errno = 0;
	EXPECT_EQ(-1, spray_sendto(tx, buf, 100, &peer));
	EXPECT_EQ(ENETUNREACH, errno) TH_LOG("%s", strerror(errno));
	close(tx);
}

/* ---- a receiver that never reads ---- */

/* On failure: the namespace's counters and connections, for the log. */
static void dump_state(void)
{
	fflush(stdout);
	if (system(SPRAYCTL " -t stats | awk '$2 != 0 { print \"# \" $0 }'; "
		   SPRAYCTL " -t peers | sed 's/^/# /'"))
		printf("# sprayctl failed\n");
}

/* a counter of the namespace (sprayctl stats), -1 if not found */
static long stat_val(const char *name)
{
	char line[256], key[64];
	long v, found = -1;
	FILE *f;

	f = popen(SPRAYCTL " -t stats", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	pclose(f);
	return found;
}

/* rx-queue and tx-queue (bytes) of the socket bound to @port, by netlink */
static int queues(int port, long *rxq, long *txq)
{
	char line[256], want[32];
	int found = -1;
	FILE *f;

	snprintf(want, sizeof(want), "127.0.0.1:%d\t", port);
	f = popen(SPRAYCTL " -t sockets", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) &&
		    sscanf(line + strlen(want), "%ld %ld", rxq, txq) == 2)
			found = 0;
	pclose(f);
	return found;
}

TEST_F_TIMEOUT(pair, receiver_never_reads_tiny_rcvbuf, 180)
{
	static unsigned char buf[1 << 20];
	struct sockaddr_spray sa, sb;
	int a, b, one = 1, sndbuf = 256 << 10, rcvbuf_got, q;
	struct pollfd pout = { .events = POLLOUT };
	uint32_t sent = 0, got = 0, seq, len, maxlen = 0;
	unsigned char *seen;
	long rxq, txq, max_rxq = 0, max_txq = 0, refused, lost;
	socklen_t sl = sizeof(rcvbuf_got);
	double t0;
	ssize_t n;

	/* MTU 1500: a message is many packets, as on a real link */
	ASSERT_EQ(0, spray_enter_netns(1500));
	/* a short retry budget: being refused must not use it up */
	ASSERT_EQ(0, sh(SPRAYCTL " set retry-limit 3 rto-max-us 20000"));
	a = bound_sock(&sa);
	b = bound_sock(&sb);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, setsockopt(b, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)));
	ASSERT_EQ(0, getsockopt(b, SOL_SOCKET, SO_RCVBUF, &rcvbuf_got, &sl));
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)));
	sl = sizeof(sndbuf);
	ASSERT_EQ(0, getsockopt(a, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl));
	TH_LOG("SO_RCVBUF %d, SO_SNDBUF %d", rcvbuf_got, sndbuf);
	pout.fd = a;

	/* send without blocking until the sender's queue is full */
	t0 = now_s();
	for (;;) {
		len = 8 + (sent * 104729) % (64 << 10);
		fill(buf, len, sent);
		n = sendto(a, buf, len, MSG_DONTWAIT, (struct sockaddr *)&sb,
			   sizeof(sb));
		if (n < 0)
			break;
		ASSERT_EQ((ssize_t)len, n);
		maxlen = len > maxlen ? len : maxlen;
		sent++;
		ASSERT_GT(5000U, sent) TH_LOG("never blocked");
	}
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_LT(0U, sent);
	/* the sender's queue stops at SO_SNDBUF plus one message */
	ASSERT_EQ(0, ioctl(a, SIOCOUTQ, &q));
	EXPECT_GE(sndbuf + (int)maxlen, q);
	/* POLLOUT is off while full */
	EXPECT_EQ(0, poll(&pout, 1, 0));
	/*
	 * Nobody reads for 2 seconds: much longer than the retry budget
	 * (3 x 20 ms). Both queues stay bounded the whole time.
	 */
	while (now_s() - t0 < 2) {
		if (!queues(ntohs(sb.sspray_port), &rxq, &txq) &&
		    rxq > max_rxq)
			max_rxq = rxq;
		if (!ioctl(a, SIOCOUTQ, &q) && q > max_txq)
			max_txq = q;
		usleep(100000);
	}
	TH_LOG("%u messages queued; receiver held at most %ld bytes, sender %ld",
	       sent, max_rxq, max_txq);
	EXPECT_GE(rcvbuf_got + (long)maxlen + 65536, max_rxq)
		TH_LOG("receive queue beyond SO_RCVBUF + one message");
	EXPECT_GE(sndbuf + (long)maxlen, max_txq);
	/*
	 * Refused is not lost: a full receive buffer says nothing against
	 * the paths nor of congestion (a tenth allows for a late timer).
	 */
	refused = stat_val("rcvbuf-full");
	lost = stat_val("lost-pkts");
	TH_LOG("refused %ld times, %ld declared lost, %ld paths down", refused,
	       lost, stat_val("path-down"));
	EXPECT_LT(0, refused);
	EXPECT_GE(refused / 10, lost) TH_LOG("refusals taken for losses");
	/* nothing failed meanwhile */
	errno = 0;
	EXPECT_EQ(-1, recv(a, buf, 1, MSG_ERRQUEUE | MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("a message failed while the receiver was away");

	/* the receiver reads: every message arrives, once, intact */
	seen = calloc(sent, 1);
	ASSERT_NE(NULL, seen);
	t0 = now_s();
	while (got < sent && now_s() - t0 < 60) {
		if (!wait_readable(b, 1000))
			continue;
		n = recv(b, buf, sizeof(buf), 0);
		ASSERT_LT(0, n);
		ASSERT_EQ(0, check_msg(buf, (uint32_t)n, &seq)) TH_LOG("corrupt message");
		ASSERT_GT(sent, seq);
		EXPECT_EQ(0, seen[seq]) TH_LOG("message %u twice", seq);
		seen[seq] = 1;
		got++;
	}
	EXPECT_EQ(sent, got) TH_LOG("%u of %u arrived", got, sent);
	if (got != sent)
		dump_state();
	/* ... acknowledged, and none reported failed */
	t0 = now_s();
	while (!ioctl(a, SIOCOUTQ, &q) && q && now_s() - t0 < 20)
		usleep(10000);
	EXPECT_EQ(0, q);
	errno = 0;
	EXPECT_EQ(-1, recv(a, buf, 1, MSG_ERRQUEUE | MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	free(seen);
	close(a);
	close(b);
}

/* A number from a cgroup file: the whole file, or the line "KEY N". */
static long cg_read(const char *cg, const char *file, const char *key)
{
	char path[256], line[256], k[64];
	long v = -1, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!key && sscanf(line, "%ld", &n) == 1)
			v = n;
		else if (key && sscanf(line, "%63s %ld", k, &n) == 2 &&
			 !strcmp(k, key))
			v = n;
	}
	fclose(f);
	return v;
}

/*
 * An unprivileged user sends 1-byte messages to a socket that never reads,
 * as fast as the kernel takes them: what the queues hold is what they
 * charge (the message records, not one byte each), bounded by SO_SNDBUF
 * and SO_RCVBUF, and charged to the user's memory cgroup.
 */
TEST_F_TIMEOUT(pair, tiny_messages_bounded_and_accounted, 180)
{
	char cgdir[] = "/tmp/spray-cg-XXXXXX", cg[300], buf[340];
	struct sockaddr_spray me = spray_sa4("127.0.0.1", 0);
	int pipe_up[2], pipe_down[2], sndbuf = 0, rcvbuf = 0;
	long count = -1, sock, cur, rxq = -1, txq = -1;
	socklen_t sl = sizeof(int);
	pid_t child;

	ASSERT_NE(NULL, mkdtemp(cgdir));
	/* a cgroup v2 hierarchy of our own, the memory controller on */
	if (mount("none", cgdir, "cgroup2", 0, NULL)) {
		rmdir(cgdir);
		SKIP(return, "no cgroup2: %s", strerror(errno));
	}
	snprintf(cg, sizeof(cg), "%s/spray-%d", cgdir, getpid());
	if (sh("echo +memory > %s/cgroup.subtree_control", cgdir) ||
	    mkdir(cg, 0755)) {
		umount(cgdir);
		rmdir(cgdir);
		SKIP(return, "no memory controller");
	}
	ASSERT_EQ(0, getsockopt(self->b, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &sl));
	ASSERT_EQ(0, pipe(pipe_up));
	ASSERT_EQ(0, pipe(pipe_down));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		long n = 0;
		int fd;

		close(pipe_up[0]);
		close(pipe_down[1]);
		snprintf(buf, sizeof(buf), "%s/cgroup.procs", cg);
		fd = open(buf, O_WRONLY);
		if (fd < 0 || write(fd, "0", 1) != 1 || setgid(65534) ||
		    setuid(65534))
			_exit(2);
		close(fd);
		fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
		if (fd < 0 || spray_bind(fd, &me))
			_exit(3);
		getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl);
		while (n < (4 << 20) &&
		       sendto(fd, "x", 1, MSG_DONTWAIT,
			      (struct sockaddr *)&self->sb,
			      sizeof(self->sb)) == 1)
			n++;
		if (write(pipe_up[1], &n, sizeof(n)) != sizeof(n) ||
		    write(pipe_up[1], &sndbuf, sizeof(sndbuf)) != sizeof(sndbuf))
			_exit(4);
		/* hold the socket until the parent has measured */
		if (read(pipe_down[0], &n, 1) < 0)
			_exit(5);
		_exit(0);
	}
	close(pipe_up[1]);
	close(pipe_down[0]);
	ASSERT_EQ((ssize_t)sizeof(count), read(pipe_up[0], &count, sizeof(count)));
	ASSERT_EQ((ssize_t)sizeof(sndbuf),
		  read(pipe_up[0], &sndbuf, sizeof(sndbuf)));
	cur = cg_read(cg, "memory.current", NULL);
	sock = cg_read(cg, "memory.stat", "sock");
	queues(ntohs(self->sb.sspray_port), &rxq, &txq);
	TH_LOG("%ld messages of 1 byte queued (SO_SNDBUF %d); cgroup: %ld bytes, "
	       "%ld of them socket memory; receiver holds %ld (SO_RCVBUF %d)",
	       count, sndbuf, cur, sock, rxq, rcvbuf);
	/* each message costs what it holds: the queue stops long before */
	EXPECT_GT(sndbuf / 64, count);
	/* charged to the sender's cgroup, about what it holds */
	EXPECT_LE(count * 64, sock);
	EXPECT_GE(sndbuf + (8 << 20), sock);
	EXPECT_GE(sndbuf + (16 << 20), cur);
	/* the receiver that never reads: bounded by SO_RCVBUF too */
	EXPECT_GE(rcvbuf + 65536, rxq);
	close(pipe_down[1]);
	waitpid(child, NULL, 0);
	rmdir(cg);
	umount(cgdir);
	rmdir(cgdir);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY socket family: creation, bind, getsockname, close, in every
 * network namespace, and the errors a user expects for bad input.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "spray_test.h"

TEST(socket_dgram_ok)
{
	int fd = socket(AF_SPRAY, SOCK_DGRAM, 0);

	ASSERT_LE(0, fd) TH_LOG("socket(AF_SPRAY): %s", strerror(errno));
	ASSERT_EQ(0, close(fd));
	fd = socket(AF_SPRAY, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	EXPECT_TRUE(fcntl(fd, F_GETFL) & O_NONBLOCK);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

TEST(socket_bad_type)
{
	int types[] = { SOCK_STREAM, SOCK_SEQPACKET, SOCK_RAW, SOCK_RDM };
	unsigned int i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, socket(AF_SPRAY, types[i], 0));
		EXPECT_EQ(ESOCKTNOSUPPORT, errno) TH_LOG("type %d", types[i]);
	}
}

TEST(socket_bad_protocol)
{
	errno = 0;
	EXPECT_EQ(-1, socket(AF_SPRAY, SOCK_DGRAM, 17));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	errno = 0;
	EXPECT_EQ(-1, socket(AF_SPRAY, SOCK_DGRAM, -1));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
}

FIXTURE(sock) {
	int fd;
};

FIXTURE_SETUP(sock)
{
	self->fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(sock)
{
	close(self->fd);
}

static struct sockaddr_spray name_of(int fd)
{
	struct sockaddr_spray sa;
	socklen_t len = sizeof(sa);

	memset(&sa, 0xaa, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) || len != sizeof(sa))
		memset(&sa, 0xff, sizeof(sa));
	return sa;
}

TEST_F(sock, getsockname_unbound)
{
	struct sockaddr_spray sa = name_of(self->fd);

	EXPECT_EQ(AF_SPRAY, sa.sspray_family);
	EXPECT_EQ(0, sa.sspray_port);
	EXPECT_EQ(0, sa.sspray_af);
}

TEST_F(sock, bind_v4_and_getsockname)
{
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 4000);
	struct sockaddr_spray got;

	ASSERT_EQ(0, spray_bind(self->fd, &sa)) TH_LOG("%s", strerror(errno));
	got = name_of(self->fd);
	EXPECT_EQ(0, memcmp(&sa, &got, sizeof(sa)));
}

TEST_F(sock, bind_v6_and_getsockname)
{
	struct sockaddr_spray sa = spray_sa6("::1", 4001);
	struct sockaddr_spray got;

	ASSERT_EQ(0, spray_bind(self->fd, &sa)) TH_LOG("%s", strerror(errno));
	got = name_of(self->fd);
	EXPECT_EQ(0, memcmp(&sa, &got, sizeof(sa)));
}

TEST_F(sock, bind_port_zero_picks_free_port)
{
	struct sockaddr_spray sa = spray_sa4("0.0.0.0", 0);
	struct sockaddr_spray a, b;
	int fd2;

	ASSERT_EQ(0, spray_bind(self->fd, &sa));
	a = name_of(self->fd);
	EXPECT_NE(0, a.sspray_port);

	fd2 = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, spray_bind(fd2, &sa));
	b = name_of(fd2);
	EXPECT_NE(0, b.sspray_port);
	EXPECT_NE(a.sspray_port, b.sspray_port);
	close(fd2);
}

TEST_F(sock, bind_in_use)
{
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 4002);
	struct sockaddr_spray any4 = spray_sa4("0.0.0.0", 4002);
	struct sockaddr_spray any6 = spray_sa6("::", 4002);
	int fd2;

	ASSERT_EQ(0, spray_bind(self->fd, &sa));
	fd2 = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd2);
	errno = 0;
	EXPECT_EQ(-1, spray_bind(fd2, &sa));
	EXPECT_EQ(EADDRINUSE, errno);
	errno = 0;
	EXPECT_EQ(-1, spray_bind(fd2, &any4));
	EXPECT_EQ(EADDRINUSE, errno);
	errno = 0;
	EXPECT_EQ(-1, spray_bind(fd2, &any6));
	EXPECT_EQ(EADDRINUSE, errno);
	close(fd2);
}

TEST_F(sock, bind_v6_any_covers_v4)
{
	struct sockaddr_spray any6 = spray_sa6("::", 4003);
	struct sockaddr_spray lo4 = spray_sa4("127.0.0.1", 4003);
	struct sockaddr_spray other = spray_sa4("127.0.0.1", 4004);
	int fd2;

	ASSERT_EQ(0, spray_bind(self->fd, &any6));
	fd2 = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd2);
	errno = 0;
	EXPECT_EQ(-1, spray_bind(fd2, &lo4));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(0, spray_bind(fd2, &other));
	close(fd2);
}

TEST_F(sock, bind_port_free_after_close)
{
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 4005);
	int fd2;

	ASSERT_EQ(0, spray_bind(self->fd, &sa));
	close(self->fd);
	self->fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, spray_bind(self->fd, &sa)) TH_LOG("%s", strerror(errno));
	fd2 = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-1, spray_bind(fd2, &sa));
	close(fd2);
}

TEST_F(sock, bind_twice)
{
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 4006);
	struct sockaddr_spray sb = spray_sa4("127.0.0.1", 4007);

	ASSERT_EQ(0, spray_bind(self->fd, &sa));
	errno = 0;
	EXPECT_EQ(-1, spray_bind(self->fd, &sb));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(htons(4006), name_of(self->fd).sspray_port);
}

TEST_F(sock, bind_short_length)
{
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 4008);

	errno = 0;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, sizeof(sa) - 1));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, 2));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&sa, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing was bound by the failures. */
	EXPECT_EQ(0, name_of(self->fd).sspray_port);
}

TEST_F(sock, bind_long_length)
{
	struct {
		struct sockaddr_spray sa;
		char pad[8];
	} big;

	memset(&big, 0, sizeof(big));
	big.sa = spray_sa4("127.0.0.1", 4009);
	big.pad[3] = 1;
	errno = 0;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&big, sizeof(big)));
	EXPECT_EQ(EINVAL, errno) TH_LOG("non-zero trailing bytes");
	big.pad[3] = 0;
	EXPECT_EQ(0, bind(self->fd, (struct sockaddr *)&big, sizeof(big)));
	errno = 0;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&big, 4096));
	EXPECT_EQ(EINVAL, errno) TH_LOG("longer than sockaddr_storage");
}

TEST_F(sock, bind_bad_pointer)
{
	errno = 0;
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)8,
			   sizeof(struct sockaddr_spray)));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(sock, bind_bad_family)
{
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 4010);

	sa.sspray_family = AF_INET;
	errno = 0;
	EXPECT_EQ(-1, spray_bind(self->fd, &sa));
	EXPECT_EQ(EAFNOSUPPORT, errno);

	sa = spray_sa4("127.0.0.1", 4010);
	sa.sspray_af = AF_UNIX;
	errno = 0;
	EXPECT_EQ(-1, spray_bind(self->fd, &sa));
	EXPECT_EQ(EAFNOSUPPORT, errno);
}

TEST_F(sock, bind_reserved_nonzero)
{
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 4011);

	sa.sspray_reserved = 1;
	errno = 0;
	EXPECT_EQ(-1, spray_bind(self->fd, &sa));
	EXPECT_EQ(EINVAL, errno);
	sa = spray_sa4("127.0.0.1", 4011);
	sa.sspray_scope_id = 1;
	errno = 0;
	EXPECT_EQ(-1, spray_bind(self->fd, &sa));
	EXPECT_EQ(EINVAL, errno) TH_LOG("scope id on an IPv4 address");
}

TEST_F(sock, bind_not_local)
{
	struct sockaddr_spray sa = spray_sa4("192.0.2.1", 4012);
	struct sockaddr_spray sa6 = spray_sa6("2001:db8::1", 4012);

	errno = 0;
	EXPECT_EQ(-1, spray_bind(self->fd, &sa));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	errno = 0;
	EXPECT_EQ(-1, spray_bind(self->fd, &sa6));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
}

TEST_F(sock, bind_v4_mapped_rejected)
{
	struct sockaddr_spray sa = spray_sa6("::ffff:127.0.0.1", 4013);

	errno = 0;
	EXPECT_EQ(-1, spray_bind(self->fd, &sa));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(sock, getpeername_unconnected)
{
	struct sockaddr_spray sa;
	socklen_t len = sizeof(sa);

	errno = 0;
	EXPECT_EQ(-1, getpeername(self->fd, (struct sockaddr *)&sa, &len));
	EXPECT_EQ(ENOTCONN, errno);
}

TEST_F(sock, unsupported_calls)
{
	errno = 0;
	EXPECT_EQ(-1, listen(self->fd, 1));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, accept(self->fd, NULL, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

/* SPRAY_CC_MODE: the namespace's default (both), each mode, bad values. */
TEST_F(sock, cc_mode_option)
{
	socklen_t len = sizeof(int);
	int v = -1, bad[] = { -1, 4, 1000 };
	unsigned int i;

	ASSERT_EQ(0, getsockopt(self->fd, SOL_SPRAY, SPRAY_CC_MODE, &v, &len));
	EXPECT_EQ(SPRAY_CC_MODE_BOTH, v);
	EXPECT_EQ(sizeof(int), len);
	for (i = SPRAY_CC_MODE_OFF; i <= SPRAY_CC_MODE_BOTH; i++) {
		v = i;
		EXPECT_EQ(0, setsockopt(self->fd, SOL_SPRAY, SPRAY_CC_MODE,
					&v, sizeof(v)));
		v = -1;
		EXPECT_EQ(0, getsockopt(self->fd, SOL_SPRAY, SPRAY_CC_MODE,
					&v, &len));
		EXPECT_EQ((int)i, v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, setsockopt(self->fd, SOL_SPRAY, SPRAY_CC_MODE,
					 &bad[i], sizeof(bad[i])));
		EXPECT_EQ(EINVAL, errno);
	}
	/* a refused value changes nothing */
	EXPECT_EQ(0, getsockopt(self->fd, SOL_SPRAY, SPRAY_CC_MODE, &v, &len));
	EXPECT_EQ(SPRAY_CC_MODE_BOTH, v);
	errno = 0;
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_SPRAY, SPRAY_CC_MODE, &v, 2));
	EXPECT_EQ(EINVAL, errno);
}

/* Each namespace has its own spray port space. */
TEST_F(sock, netns_own_port_space)
{
	struct sockaddr_spray sa = spray_sa4("127.0.0.1", 4014);
	int status;
	pid_t pid;

	ASSERT_EQ(0, spray_bind(self->fd, &sa));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd, fd2;

		if (spray_enter_netns(0))
			_exit(10);
		fd = socket(AF_SPRAY, SOCK_DGRAM, 0);
		if (fd < 0)
			_exit(11);
		if (spray_bind(fd, &sa))
			_exit(12);
		fd2 = socket(AF_SPRAY, SOCK_DGRAM, 0);
		if (fd2 < 0 || spray_bind(fd2, &sa) != -1 || errno != EADDRINUSE)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN

/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the AF_SPRAY C selftests. */
#ifndef _SPRAY_TEST_H
#define _SPRAY_TEST_H

#include <arpa/inet.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/spray.h>

static inline struct sockaddr_spray spray_sa4(const char *ip, unsigned short port)
{
	struct sockaddr_spray sa;

	memset(&sa, 0, sizeof(sa));
	sa.sspray_family = AF_SPRAY;
	sa.sspray_af = AF_INET;
	sa.sspray_port = htons(port);
	inet_pton(AF_INET, ip, &sa.sspray_addr4);
	return sa;
}

static inline struct sockaddr_spray spray_sa6(const char *ip, unsigned short port)
{
	struct sockaddr_spray sa;

	memset(&sa, 0, sizeof(sa));
	sa.sspray_family = AF_SPRAY;
	sa.sspray_af = AF_INET6;
	sa.sspray_port = htons(port);
	inet_pton(AF_INET6, ip, sa.sspray_addr6);
	return sa;
}

static inline int spray_bind(int fd, const struct sockaddr_spray *sa)
{
	return bind(fd, (const struct sockaddr *)sa, sizeof(*sa));
}

static inline ssize_t spray_sendto(int fd, const void *buf, size_t len,
				   const struct sockaddr_spray *to)
{
	return sendto(fd, buf, len, 0, (const struct sockaddr *)to, sizeof(*to));
}

/* Bring up loopback (with @mtu if non-zero) in a fresh network namespace. */
static inline int spray_enter_netns(int mtu)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd, ret = 0;

	if (unshare(CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	if (mtu) {
		ifr.ifr_mtu = mtu;
		ret = ioctl(fd, SIOCSIFMTU, &ifr);
	}
	if (!ret)
		ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	if (!ret)
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return ret;
}

#endif

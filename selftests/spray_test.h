/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the AF_SPRAY C selftests. */
#ifndef _SPRAY_TEST_H
#define _SPRAY_TEST_H

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
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

#endif

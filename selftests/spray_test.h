/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the AF_SPRAY C selftests. */
#ifndef _SPRAY_TEST_H
#define _SPRAY_TEST_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sockios.h>
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

#ifndef SPRAYCTL
#define SPRAYCTL	"../userspace/sprayctl/sprayctl"
#endif

/* Run a shell command; 0 if it succeeded. Its output goes to stderr. */
static inline int spray_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	return system(cmd);
}

/*
 * A counter of sprayctl's JSON output, in namespace @ns (NULL: this one):
 * key @key of "sprayctl -j @what", summed over the rows of a listing.
 * -1 if sprayctl fails or has no such key.
 */
static inline long spray_ctl_val(const char *ns, const char *what,
				 const char *key)
{
	char cmd[512], pre[128] = "";
	long v = -1;
	FILE *f;

	if (ns)
		snprintf(pre, sizeof(pre), "ip netns exec %s ", ns);
	snprintf(cmd, sizeof(cmd),
		 "%s" SPRAYCTL " -j %s | python3 -c 'import json, sys\n"
		 "d = json.load(sys.stdin)\n"
		 "d = d if isinstance(d, list) else [d]\n"
		 "v = [r[sys.argv[1]] for r in d if sys.argv[1] in r]\n"
		 "print(sum(v) if v else -1)' %s", pre, what, key);
	fflush(stdout);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	pclose(f);
	return v;
}

static inline double spray_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int spray_wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/*
 * Wait up to @ms for every message queued on @fd to be acknowledged
 * (SIOCOUTQ 0); 1 if they were.
 */
static inline int spray_wait_acked(int fd, int ms)
{
	double end = spray_now() + ms / 1e3;
	int q;

	do {
		if (ioctl(fd, SIOCOUTQ, &q) == 0 && q == 0)
			return 1;
		usleep(10000);
	} while (spray_now() < end);
	return 0;
}

/* Enter the network namespace named @name (ip netns); 0 or -1. */
static inline int spray_setns(const char *name)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ret = setns(fd, CLONE_NEWNET);
	close(fd);
	return ret;
}

#endif

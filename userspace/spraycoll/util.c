// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: small helpers (messages, time, sizes, addresses, blocking I/O
 * with a deadline).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "spraycoll.h"

int sc_rank = -1;

static void vmsg(const char *fmt, va_list ap)
{
	char buf[1024];
	int n;

	if (sc_rank >= 0)
		n = snprintf(buf, sizeof(buf), SC_NAME ": rank %d: ", sc_rank);
	else
		n = snprintf(buf, sizeof(buf), SC_NAME ": ");
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	/* one write so lines of concurrent ranks do not interleave */
	n = strlen(buf);
	if (n < (int)sizeof(buf) - 1)
		buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return;
}

void sc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void sc_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void *xzalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		sc_err("out of memory allocating %zu bytes", n);
		exit(1);
	}
	return p;
}

int is_pow2(int n)
{
	return n > 0 && !(n & (n - 1));
}

/* "4096", "64K", "1M", "2G" (binary multiples, as nccl-tests) */
int parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!s || *s == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		v <<= 10; end++; break;
	case 'm': case 'M':
		v <<= 20; end++; break;
	case 'g': case 'G':
		v <<= 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

int parse_sockaddr(const char *host, int port, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	char buf[INET6_ADDRSTRLEN + 16], *pct;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", host);
	if (buf[0] == '[') {
		memmove(buf, buf + 1, strlen(buf));
		pct = strchr(buf, ']');
		if (pct)
			*pct = 0;
	}
	pct = strchr(buf, '%');
	if (pct)
		*pct++ = 0;
	if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (pct)
			sin6->sin6_scope_id = atoi(pct);
		*len = sizeof(*sin6);
		return 0;
	}
	return -1;
}

const char *fmt_sockaddr(const void *sa, char *buf, size_t len)
{
	const struct sockaddr_in *sin = sa;
	const struct sockaddr_in6 *sin6 = sa;
	char a[INET6_ADDRSTRLEN];

	if (sin->sin_family == AF_INET) {
		inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(sin->sin_port));
	} else if (sin->sin_family == AF_INET6) {
		inet_ntop(AF_INET6, &sin6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(sin6->sin6_port));
	} else {
		snprintf(buf, len, "(family %u)", sin->sin_family);
	}
	return buf;
}

/*
 * Read or write exactly @len bytes on a (possibly non-blocking) socket.
 * Returns 0, -ETIMEDOUT, -EPIPE on EOF, or -errno.
 */
int io_full(int fd, void *buf, size_t len, int wr, double deadline)
{
	char *p = buf;
	struct pollfd pfd = { .fd = fd, .events = wr ? POLLOUT : POLLIN };

	while (len) {
		ssize_t r;
		double left = deadline - now_s();

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			continue;
		if (wr)
			r = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		else
			r = recv(fd, p, len, MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		if (!r)
			return -EPIPE;
		p += r;
		len -= r;
	}
	return 0;
}

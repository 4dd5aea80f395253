// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: TCP bootstrap. Rank 0 listens on MASTER_ADDR:MASTER_PORT, the
 * other ranks connect to it (retrying until the bootstrap timeout) and say
 * who they are. Over this star the ranks then exchange data-plane addresses
 * and synchronise (gather, broadcast, barrier). Data never flows here.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "spraycoll.h"

struct hello {
	uint32_t magic;
	uint32_t rank;
	uint32_t nranks;
};

/* Listening socket for rank 0; @port 0 picks one, returned in @port_out. */
int boot_listen(const char *addr, int port, int *port_out)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char sa[80];
	int fd, one = 1;

	if (parse_sockaddr(addr, port, &ss, &len)) {
		sc_err("bad bootstrap address '%s'", addr);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		sc_err("bootstrap socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 1024)) {
		sc_err("bootstrap: cannot listen on %s: %s",
		       fmt_sockaddr(&ss, sa, sizeof(sa)), strerror(errno));
		close(fd);
		return -1;
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	if (port_out)
		*port_out = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

static int boot_connect(struct boot *b, const char *master, int port,
			double deadline)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char sa[80];
	int fd, err = 0, one = 1;

	if (parse_sockaddr(master, port, &ss, &len)) {
		sc_err("bad MASTER_ADDR '%s' (numeric IPv4 or IPv6 expected)",
		       master);
		return -1;
	}
	fmt_sockaddr(&ss, sa, sizeof(sa));
	for (;;) {
		fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			sc_err("bootstrap socket: %s", strerror(errno));
			return -1;
		}
		if (!connect(fd, (struct sockaddr *)&ss, len))
			break;
		err = errno;
		close(fd);
		if (now_s() >= deadline) {
			sc_err("cannot reach the bootstrap (rank 0) at %s: %s "
			       "(gave up after %.1f s)", sa, strerror(err),
			       b->timeout);
			return -1;
		}
		usleep(50000);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	b->local_len = sizeof(b->local);
	getsockname(fd, (struct sockaddr *)&b->local, &b->local_len);
	return fd;
}

static const char *ioerr(int err)
{
	if (err == -ETIMEDOUT)
		return "timed out";
	if (err == -EPIPE)
		return "connection closed (peer exited?)";
	return strerror(-err);
}

int boot_init(struct boot *b, int rank, int nranks, const char *master,
	      int port, int listen_fd, double timeout)
{
	double deadline = now_s() + timeout;
	struct hello h;
	int i, err, one = 1;

	memset(b, 0, sizeof(*b));
	b->rank = rank;
	b->nranks = nranks;
	b->timeout = timeout;
	b->fd = -1;

	if (rank) {
		b->fd = boot_connect(b, master, port, deadline);
		if (b->fd < 0)
			return -1;
		h.magic = htonl(SC_MAGIC);
		h.rank = htonl(rank);
		h.nranks = htonl(nranks);
		err = io_full(b->fd, &h, sizeof(h), 1, deadline);
		if (!err)
			err = io_full(b->fd, &h, sizeof(h), 0, deadline);
		if (err) {
			sc_err("bootstrap handshake with rank 0: %s",
			       ioerr(err));
			return -1;
		}
		if (ntohl(h.magic) != SC_MAGIC || ntohl(h.nranks) != (uint32_t)nranks) {
			sc_err("bootstrap: rank 0 disagrees about the world "
			       "size (%u, here %d)", ntohl(h.nranks), nranks);
			return -1;
		}
		return 0;
	}

	b->fds = xzalloc(nranks * sizeof(int));
	for (i = 0; i < nranks; i++)
		b->fds[i] = -1;
	if (listen_fd < 0) {
		listen_fd = boot_listen(master, port, NULL);
		if (listen_fd < 0)
			return -1;
	}
	for (i = 1; i < nranks; i++) {
		int fd;
		uint32_t r;

		for (;;) {
			struct pollfd pfd = { listen_fd, POLLIN, 0 };
			double left = deadline - now_s();

			poll(&pfd, 1, left > 0 ? (int)(left * 1000) + 1 : 0);
			fd = accept4(listen_fd, NULL, NULL,
				     SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0)
				break;
			if (now_s() >= deadline) {
				char missing[256] = "";
				int j, n = 0;

				for (j = 1; j < nranks && n < 200; j++)
					if (b->fds[j] < 0)
						n += snprintf(missing + n,
							sizeof(missing) - n,
							"%s%d", n ? "," : "", j);
				sc_err("bootstrap: timed out after %.1f s "
				       "waiting for rank(s) %s to join",
				       timeout, missing);
				close(listen_fd);
				return -1;
			}
			usleep(10000);
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		err = io_full(fd, &h, sizeof(h), 0, deadline);
		r = ntohl(h.rank);
		if (err || ntohl(h.magic) != SC_MAGIC) {
			sc_err("bootstrap: bad hello from a joining rank (%s)",
			       err ? ioerr(err) : "bad magic");
			close(fd);
			i--;
			continue;
		}
		if (ntohl(h.nranks) != (uint32_t)nranks || !r ||
		    r >= (uint32_t)nranks || b->fds[r] >= 0) {
			sc_err("bootstrap: rank %u (world size %u) does not "
			       "fit a world of %d ranks, or joined twice",
			       r, ntohl(h.nranks), nranks);
			close(fd);
			close(listen_fd);
			return -1;
		}
		b->fds[r] = fd;
		if (i == 1) {
			b->local_len = sizeof(b->local);
			getsockname(fd, (struct sockaddr *)&b->local,
				    &b->local_len);
		}
	}
	close(listen_fd);
	h.magic = htonl(SC_MAGIC);
	h.rank = 0;
	h.nranks = htonl(nranks);
	for (i = 1; i < nranks; i++) {
		err = io_full(b->fds[i], &h, sizeof(h), 1, deadline);
		if (err) {
			sc_err("bootstrap: rank %d: %s", i, ioerr(err));
			return -1;
		}
	}
	return 0;
}

int boot_gather(struct boot *b, const void *mine, void *all, size_t len)
{
	double deadline = now_s() + b->timeout;
	int i, err;

	if (b->rank) {
		err = io_full(b->fd, (void *)mine, len, 1, deadline);
		if (err)
			sc_err("bootstrap: sending to rank 0: %s", ioerr(err));
		return err ? -1 : 0;
	}
	memcpy(all, mine, len);
	for (i = 1; i < b->nranks; i++) {
		err = io_full(b->fds[i], (char *)all + i * len, len, 0,
			      deadline);
		if (err) {
			sc_err("bootstrap: waiting for rank %d: %s", i,
			       ioerr(err));
			return -1;
		}
	}
	return 0;
}

int boot_bcast(struct boot *b, void *buf, size_t len)
{
	double deadline = now_s() + b->timeout;
	int i, err;

	if (b->rank) {
		err = io_full(b->fd, buf, len, 0, deadline);
		if (err)
			sc_err("bootstrap: waiting for rank 0: %s", ioerr(err));
		return err ? -1 : 0;
	}
	for (i = 1; i < b->nranks; i++) {
		err = io_full(b->fds[i], buf, len, 1, deadline);
		if (err) {
			sc_err("bootstrap: sending to rank %d: %s", i,
			       ioerr(err));
			return -1;
		}
	}
	return 0;
}

int boot_allgather(struct boot *b, const void *mine, void *all, size_t len)
{
	if (boot_gather(b, mine, all, len))
		return -1;
	return boot_bcast(b, all, len * b->nranks);
}

int boot_barrier(struct boot *b)
{
	char c = 0, all[b->nranks];

	return boot_allgather(b, &c, all, 1);
}

void boot_close(struct boot *b)
{
	int i;

	if (b->fd >= 0)
		close(b->fd);
	if (b->fds) {
		for (i = 0; i < b->nranks; i++)
			if (b->fds[i] >= 0)
				close(b->fds[i]);
		free(b->fds);
	}
	b->fds = NULL;
	b->fd = -1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: TCP (and MPTCP) transport. One connection per pair of ranks,
 * the lower rank accepting; each message is a wire header (its length
 * prefix and tag) followed by the payload. TCP keeps per-peer order, so a
 * received header must match the oldest posted receive from that peer.
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
#include <sys/uio.h>

#include "spraycoll.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

struct tcp_peer {
	int fd;
	struct wire_hdr shdr, rhdr;
	size_t shdr_done, rhdr_done;
};

struct tcp_priv {
	int lfd;
	struct tcp_peer *p;
	struct pollfd *pfd;
	struct xfer **shead, **rhead;
};

static int tcp_proto(const struct transport *t)
{
	return t->o->tp == TP_MPTCP ? IPPROTO_MPTCP : 0;
}

static int tcp_socket(struct transport *t, int family)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, tcp_proto(t));

	if (fd < 0 && t->o->tp == TP_MPTCP &&
	    (errno == EPROTONOSUPPORT || errno == EINVAL ||
	     errno == ENOPROTOOPT || errno == EAFNOSUPPORT)) {
		sc_err("MPTCP is not available on this kernel "
		       "(socket(IPPROTO_MPTCP): %s); it needs CONFIG_MPTCP "
		       "and sysctl net.mptcp.enabled=1", strerror(errno));
		return -1;
	}
	if (fd < 0)
		sc_err("%s socket: %s", t->o->tp == TP_MPTCP ? "MPTCP" : "TCP",
		       strerror(errno));
	return fd;
}

static int tcp_open(struct transport *t, const char *addr, void *blob,
		    size_t *bloblen)
{
	struct tcp_priv *tp = xzalloc(sizeof(*tp));
	struct sockaddr_storage ss;
	socklen_t len;
	char sa[80];
	int i, one = 1, port = t->o->data_port ? t->o->data_port + t->rank : 0;

	t->priv = tp;
	tp->p = xzalloc(t->nranks * sizeof(*tp->p));
	tp->pfd = xzalloc(t->nranks * sizeof(*tp->pfd));
	tp->shead = xzalloc(t->nranks * sizeof(*tp->shead));
	tp->rhead = xzalloc(t->nranks * sizeof(*tp->rhead));
	for (i = 0; i < t->nranks; i++)
		tp->p[i].fd = -1;
	tp->lfd = -1;

	if (parse_sockaddr(addr, port, &ss, &len)) {
		sc_err("bad data address '%s'", addr);
		return -1;
	}
	tp->lfd = tcp_socket(t, ss.ss_family);
	if (tp->lfd < 0)
		return -1;
	setsockopt(tp->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(tp->lfd, (struct sockaddr *)&ss, len) ||
	    listen(tp->lfd, 1024)) {
		sc_err("cannot listen on %s: %s",
		       fmt_sockaddr(&ss, sa, sizeof(sa)), strerror(errno));
		return -1;
	}
	len = sizeof(ss);
	getsockname(tp->lfd, (struct sockaddr *)&ss, &len);
	memcpy(blob, &ss, len);
	*bloblen = len;
	/* before the others learn the address: none can connect early */
	if (t->o->inject_noconnect_rank == t->rank) {
		sc_info("fault injection: closing the data listener");
		close(tp->lfd);
		tp->lfd = -1;
	}
	return 0;
}

static int tcp_connect(struct transport *t, const char *blobs,
		       double deadline)
{
	struct tcp_priv *tp = t->priv;
	uint32_t me = htonl(t->rank), who;
	char sa[80];
	int i, fd, err, one = 1;

	/* connect to lower ranks; their backlog completes the handshake */
	for (i = 0; i < t->rank; i++) {
		const struct sockaddr_storage *ss =
			(const void *)(blobs + i * SC_BLOB_MAX);
		socklen_t len = ss->ss_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

		fmt_sockaddr(ss, sa, sizeof(sa));
		for (;;) {
			fd = tcp_socket(t, ss->ss_family);
			if (fd < 0)
				return -1;
			if (!connect(fd, (const struct sockaddr *)ss, len))
				break;
			err = errno;
			close(fd);
			if (now_s() >= deadline) {
				sc_err("cannot connect to rank %d at %s: %s "
				       "(peer unreachable)", i, sa,
				       strerror(err));
				return -1;
			}
			usleep(50000);
		}
		err = io_full(fd, &me, sizeof(me), 1, deadline);
		if (err) {
			sc_err("handshake with rank %d at %s: %s", i, sa,
			       strerror(-err));
			close(fd);
			return -1;
		}
		tp->p[i].fd = fd;
	}
	/* accept higher ranks */
	for (i = t->rank + 1; i < t->nranks; i++) {
		struct pollfd pfd = { .fd = tp->lfd, .events = POLLIN };
		double left = deadline - now_s();

		if (tp->lfd < 0) {
			/*
			 * As a peer that never answers: the others try until
			 * the deadline, as they would against a dead host,
			 * and the launcher must not stop them sooner.
			 */
			while (deadline - now_s() > -1.0)
				poll(NULL, 0, (int)((deadline - now_s() + 1.0) *
						    1000) + 1);
			sc_err("no data listener: cannot accept ranks above %d",
			       t->rank);
			return -1;
		}
		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0) {
			char miss[256];
			int j, n = 0;

			for (j = t->rank + 1; j < t->nranks && n < 200; j++)
				if (tp->p[j].fd < 0)
					n += snprintf(miss + n, sizeof(miss) - n,
						      "%s%d", n ? "," : "", j);
			sc_err("timed out waiting for data connections from "
			       "rank(s) %s", miss);
			return -1;
		}
		fd = accept4(tp->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			sc_err("accept: %s", strerror(errno));
			return -1;
		}
		err = io_full(fd, &who, sizeof(who), 0, deadline);
		who = ntohl(who);
		if (err || who <= (uint32_t)t->rank || who >= (uint32_t)t->nranks ||
		    tp->p[who].fd >= 0) {
			sc_err("bad data-connection handshake (%s)",
			       err ? strerror(-err) : "unexpected rank");
			close(fd);
			return -1;
		}
		tp->p[who].fd = fd;
	}
	if (tp->lfd >= 0)
		close(tp->lfd);
	tp->lfd = -1;
	for (i = 0; i < t->nranks; i++) {
		if (tp->p[i].fd < 0)
			continue;
		setsockopt(tp->p[i].fd, IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof(one));
	}
	return 0;
}

static void hdr_make(struct transport *t, struct xfer *x, struct wire_hdr *h)
{
	h->magic = htonl(SC_MAGIC);
	h->coll = htonl(t->coll);
	h->step = htonl(x->step);
	h->chunk = 0;
	h->nchunks = htonl(1);
	h->total = htonl(x->len);
	h->offset = 0;
	h->len = htonl(x->len);
}

/* returns 1 on progress, 0 on EAGAIN, -1 on error */
static int tcp_do_send(struct transport *t, struct tcp_peer *p,
		       struct xfer *x)
{
	struct iovec iov[2];
	struct msghdr m = { .msg_iov = iov };
	int n = 0;
	ssize_t r;

	if (!p->shdr_done && !x->done)
		hdr_make(t, x, &p->shdr);
	if (p->shdr_done < sizeof(p->shdr)) {
		iov[n].iov_base = (char *)&p->shdr + p->shdr_done;
		iov[n++].iov_len = sizeof(p->shdr) - p->shdr_done;
	}
	iov[n].iov_base = x->buf + x->done;
	iov[n++].iov_len = x->len - x->done;
	m.msg_iovlen = n;
	r = sendmsg(p->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (r < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		sc_err("%s: sending to rank %d: %s", t->ctx, x->peer,
		       strerror(errno));
		return -1;
	}
	if (p->shdr_done < sizeof(p->shdr)) {
		size_t h = sizeof(p->shdr) - p->shdr_done;

		if ((size_t)r < h) {
			p->shdr_done += r;
			return 1;
		}
		p->shdr_done = sizeof(p->shdr);
		r -= h;
	}
	x->done += r;
	if (x->done == x->len) {
		x->complete = 1;
		p->shdr_done = 0;
		t->tx_bytes[x->peer] += x->len;
	}
	return 1;
}

static int tcp_do_recv(struct transport *t, struct tcp_peer *p,
		       struct xfer *x)
{
	ssize_t r;

	if (p->rhdr_done < sizeof(p->rhdr)) {
		r = recv(p->fd, (char *)&p->rhdr + p->rhdr_done,
			 sizeof(p->rhdr) - p->rhdr_done, MSG_DONTWAIT);
		if (r <= 0)
			goto err;
		p->rhdr_done += r;
		if (p->rhdr_done < sizeof(p->rhdr))
			return 1;
		if (ntohl(p->rhdr.magic) != SC_MAGIC ||
		    ntohl(p->rhdr.coll) != t->coll ||
		    ntohl(p->rhdr.step) != x->step ||
		    ntohl(p->rhdr.total) != x->len) {
			sc_err("%s: protocol error from rank %d: expected "
			       "collective %u step %u of %zu bytes, got "
			       "collective %u step %u of %u bytes (magic %08x)",
			       t->ctx, x->peer, t->coll, x->step, x->len,
			       ntohl(p->rhdr.coll), ntohl(p->rhdr.step),
			       ntohl(p->rhdr.total), ntohl(p->rhdr.magic));
			return -1;
		}
	}
	if (x->done < x->len) {
		r = recv(p->fd, x->buf + x->done, x->len - x->done,
			 MSG_DONTWAIT);
		if (r <= 0)
			goto err;
		x->done += r;
	}
	if (x->done == x->len) {
		x->complete = 1;
		p->rhdr_done = 0;
		t->rx_bytes[x->peer] += x->len;
	}
	return 1;
err:
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	sc_err("%s: receiving from rank %d: %s", t->ctx, x->peer,
	       r ? strerror(errno) : "connection closed (peer exited?)");
	return -1;
}

static int tcp_run(struct transport *t, struct xfer *x, int n,
		   double deadline)
{
	struct tcp_priv *tp = t->priv;
	int i, r;

	for (;;) {
		int npfd = 0, pending = 0, progress = 0;
		double left;

		for (i = 0; i < t->nranks; i++)
			tp->shead[i] = tp->rhead[i] = NULL;
		/* only the oldest send and receive per peer may move */
		for (i = 0; i < n; i++) {
			struct xfer **head;

			if (x[i].complete)
				continue;
			pending++;
			head = x[i].send ? &tp->shead[x[i].peer] :
					   &tp->rhead[x[i].peer];
			if (!*head)
				*head = &x[i];
		}
		if (!pending)
			return 0;
		for (i = 0; i < t->nranks; i++) {
			if (tp->shead[i]) {
				r = tcp_do_send(t, &tp->p[i], tp->shead[i]);
				if (r < 0)
					return -1;
				progress |= r;
			}
			if (tp->rhead[i]) {
				r = tcp_do_recv(t, &tp->p[i], tp->rhead[i]);
				if (r < 0)
					return -1;
				progress |= r;
			}
		}
		if (progress)
			continue;
		left = deadline - now_s();
		if (left <= 0) {
			report_stall(t, x, n, t->o->timeout);
			return -ETIMEDOUT;
		}
		for (i = 0; i < t->nranks; i++) {
			short ev = (tp->shead[i] ? POLLOUT : 0) |
				   (tp->rhead[i] ? POLLIN : 0);

			if (!ev)
				continue;
			tp->pfd[npfd].fd = tp->p[i].fd;
			tp->pfd[npfd].events = ev;
			npfd++;
		}
		poll(tp->pfd, npfd, (int)(left * 1000) + 1);
	}
}

static void tcp_close(struct transport *t)
{
	struct tcp_priv *tp = t->priv;
	int i;

	if (!tp)
		return;
	for (i = 0; i < t->nranks; i++)
		if (tp->p[i].fd >= 0)
			close(tp->p[i].fd);
	if (tp->lfd >= 0)
		close(tp->lfd);
	free(tp->p);
	free(tp->pfd);
	free(tp->shead);
	free(tp->rhead);
	free(tp);
	t->priv = NULL;
}

const struct transport_ops tcp_ops = {
	.name = "tcp",
	.open = tcp_open,
	.connect = tcp_connect,
	.run = tcp_run,
	.close = tcp_close,
};

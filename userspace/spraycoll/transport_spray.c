// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: datagram transport for AF_SPRAY.
 *
 * One SOCK_DGRAM socket per rank, bound to a spray port. Messages from all
 * peers arrive on it, so each one is demultiplexed by its source address.
 * A transfer is cut into chunks of at most -C bytes, each a datagram with
 * a wire header {collective, step, chunk, offset}; AF_SPRAY delivers whole
 * datagrams reliably but in any order, so chunks are placed by offset, and
 * chunks that arrive before their receive is posted (another step, another
 * collective) wait on a per-peer queue of whole messages.
 *
 * The same engine runs over AF_UNIX SOCK_DGRAM (-t unix), which is also
 * reliable and message-preserving: a testing aid for hosts without the
 * module. --shuffle sends chunks in a random order to exercise reassembly.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <linux/errqueue.h>
#include <linux/sockios.h>

#include "spraycoll.h"
#include "uapi/linux/spray.h"

struct umsg {			/* unexpected message (one chunk) */
	struct umsg *next;
	struct wire_hdr h;	/* host byte order */
	char data[];
};

struct spray_priv {
	int fd;
	int family;		/* AF_SPRAY or AF_UNIX */
	size_t chunk;
	struct sockaddr_storage *peer;
	socklen_t *peer_len;
	struct umsg **uq, **uq_tail;	/* per-peer unexpected queues */
	char *rbuf;
	size_t rbuf_len;
	int warned_stranger;
	double drain_s;		/* close: how long to wait for SIOCOUTQ 0 */
};

static int spray_addr_from(const char *addr, int port,
			   struct sockaddr_spray *sp)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (parse_sockaddr(addr, port, &ss, &len))
		return -1;
	memset(sp, 0, sizeof(*sp));
	sp->sspray_family = AF_SPRAY;
	sp->sspray_port = htons(port);
	sp->sspray_af = ss.ss_family;
	if (ss.ss_family == AF_INET) {
		sp->sspray_addr4 = ((struct sockaddr_in *)&ss)->sin_addr.s_addr;
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		memcpy(sp->sspray_addr6, &s6->sin6_addr, 16);
		sp->sspray_scope_id = s6->sin6_scope_id;
	}
	return 0;
}

static const char *spray_fmt(const void *a, char *buf, size_t len)
{
	const struct sockaddr_spray *sp = a;
	const struct sockaddr_un *su = a;
	char ip[INET6_ADDRSTRLEN];

	if (sp->sspray_family == AF_UNIX) {
		snprintf(buf, len, "unix:@%.20s", su->sun_path + 1);
		return buf;
	}
	if (sp->sspray_af == AF_INET)
		inet_ntop(AF_INET, &sp->sspray_addr4, ip, sizeof(ip));
	else
		inet_ntop(AF_INET6, sp->sspray_addr6, ip, sizeof(ip));
	snprintf(buf, len, "spray:%s port %u", ip, ntohs(sp->sspray_port));
	return buf;
}

/*
 * AF_SPRAY buffers default to 16 MiB (two largest messages). Never lower
 * them: SO_RCVBUF bounds the messages being reassembled from all peers, and
 * senders to a full receiver are only slowed down. Raise SO_RCVBUF when the
 * peers can have more chunks in flight than it holds (two per peer), with
 * SO_RCVBUFFORCE first since net.core.rmem_max caps SO_RCVBUF.
 */
static void set_buf_min(int fd, int opt, int force, int want, const char *name)
{
	int cur = 0;
	socklen_t len = sizeof(cur);

	if (getsockopt(fd, SOL_SOCKET, opt, &cur, &len) || cur >= want)
		return;
	/* the kernel doubles the value it is given */
	want /= 2;
	if (setsockopt(fd, SOL_SOCKET, force, &want, sizeof(want)) &&
	    setsockopt(fd, SOL_SOCKET, opt, &want, sizeof(want)))
		return;
	len = sizeof(cur);
	if (!getsockopt(fd, SOL_SOCKET, opt, &cur, &len) && cur < 2 * want)
		sc_info("%s is %d bytes, less than the %d wanted (raise "
			"net.core.%cmem_max or run with CAP_NET_ADMIN)", name,
			cur, 2 * want, opt == SO_RCVBUF ? 'r' : 'w');
}

static void spray_bufs(struct transport *t, struct spray_priv *sp)
{
	uint64_t want = (uint64_t)2 * (t->nranks - 1) * sp->rbuf_len;

	if (want > (1u << 30))
		want = 1u << 30;
	set_buf_min(sp->fd, SO_RCVBUF, SO_RCVBUFFORCE, (int)want, "SO_RCVBUF");
	want = (uint64_t)2 * sp->rbuf_len;
	set_buf_min(sp->fd, SO_SNDBUF, SO_SNDBUFFORCE, (int)want, "SO_SNDBUF");
}

static int spray_open(struct transport *t, const char *addr, void *blob,
		      size_t *bloblen)
{
	struct spray_priv *sp = xzalloc(sizeof(*sp));
	struct sockaddr_storage ss;
	socklen_t len;
	char sa[96];
	int sz, port = t->o->data_port ? t->o->data_port + t->rank : 0;

	t->priv = sp;
	sp->family = t->o->tp == TP_UNIX ? AF_UNIX : AF_SPRAY;
	sp->chunk = t->o->chunk;
	sp->peer = xzalloc(t->nranks * sizeof(*sp->peer));
	sp->peer_len = xzalloc(t->nranks * sizeof(*sp->peer_len));
	sp->uq = xzalloc(t->nranks * sizeof(*sp->uq));
	sp->uq_tail = xzalloc(t->nranks * sizeof(*sp->uq_tail));
	sp->rbuf_len = sp->chunk + sizeof(struct wire_hdr);
	sp->rbuf = xzalloc(sp->rbuf_len);

	sp->fd = socket(sp->family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			0);
	if (sp->fd < 0) {
		if (sp->family == AF_SPRAY && errno == EAFNOSUPPORT)
			sc_err("AF_SPRAY (%d) is not supported by this kernel: "
			       "is the spray module loaded? (%s)", AF_SPRAY,
			       strerror(errno));
		else
			sc_err("socket(%s, SOCK_DGRAM): %s",
			       sp->family == AF_SPRAY ? "AF_SPRAY" : "AF_UNIX",
			       strerror(errno));
		return -1;
	}
	if (sp->family == AF_SPRAY)
		spray_bufs(t, sp);
	else {
		/* room for a few chunks in flight each way */
		sz = sp->rbuf_len * 4 > (1u << 30) ? 1 << 30 :
		     (int)sp->rbuf_len * 4;
		setsockopt(sp->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(sp->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}

	memset(&ss, 0, sizeof(ss));
	if (sp->family == AF_UNIX) {
		/* autobind: the kernel picks a unique abstract name */
		ss.ss_family = AF_UNIX;
		len = sizeof(sa_family_t);
		snprintf(sa, sizeof(sa), "unix autobind");
	} else {
		if (spray_addr_from(addr, port, (void *)&ss)) {
			sc_err("bad data address '%s'", addr);
			return -1;
		}
		len = sizeof(struct sockaddr_spray);
		spray_fmt(&ss, sa, sizeof(sa));
	}
	if (bind(sp->fd, (struct sockaddr *)&ss, len)) {
		sc_err("cannot bind %s: %s", sa, strerror(errno));
		return -1;
	}
	len = sizeof(ss);
	if (getsockname(sp->fd, (struct sockaddr *)&ss, &len) ||
	    len > SC_BLOB_MAX) {
		sc_err("getsockname: %s", strerror(errno));
		return -1;
	}
	memcpy(blob, &ss, len);
	*bloblen = len;
	return 0;
}

static int spray_connect(struct transport *t, const char *blobs,
			 double deadline)
{
	struct spray_priv *sp = t->priv;
	int i;

	(void)deadline;
	for (i = 0; i < t->nranks; i++) {
		const struct sockaddr_storage *ss =
			(const void *)(blobs + i * SC_BLOB_MAX);

		memcpy(&sp->peer[i], ss, SC_BLOB_MAX);
		if (sp->family == AF_UNIX)
			sp->peer_len[i] = sizeof(sa_family_t) + 6;
		else
			sp->peer_len[i] = sizeof(struct sockaddr_spray);
	}
	if (t->o->inject_noconnect_rank == t->rank) {
		sc_info("fault injection: closing the data socket");
		close(sp->fd);
		sp->fd = socket(sp->family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	}
	return 0;
}

static int addr_eq(struct spray_priv *sp, const void *a, socklen_t alen,
		   int peer)
{
	const struct sockaddr_spray *x = a, *y = (void *)&sp->peer[peer];

	if (sp->family == AF_UNIX)
		return alen == sp->peer_len[peer] &&
		       !memcmp(a, &sp->peer[peer], alen);
	if (x->sspray_port != y->sspray_port || x->sspray_af != y->sspray_af)
		return 0;
	if (x->sspray_af == AF_INET)
		return x->sspray_addr4 == y->sspray_addr4;
	return !memcmp(x->sspray_addr6, y->sspray_addr6, 16);
}

static int peer_of(struct transport *t, const void *a, socklen_t alen)
{
	int i;

	for (i = 0; i < t->nranks; i++)
		if (i != t->rank && addr_eq(t->priv, a, alen, i))
			return i;
	return -1;
}

static int place(struct transport *t, struct xfer *x, const struct wire_hdr *h,
		 const void *data)
{
	if (h->total != x->len || h->offset + (uint64_t)h->len > x->len) {
		sc_err("%s: message from rank %d (collective %u step %u) is "
		       "%u bytes, expected %zu (chunk at %u+%u)", t->ctx,
		       x->peer, h->coll, h->step, h->total, x->len,
		       h->offset, h->len);
		return -1;
	}
	if (!x->nchunks)
		x->nchunks = h->nchunks;
	memcpy(x->buf + h->offset, data, h->len);
	x->done += h->len;
	if (++x->chunks_done >= x->nchunks) {
		x->complete = 1;
		t->rx_bytes[x->peer] += x->len;
	}
	return 0;
}

static struct xfer *match(struct transport *t, struct xfer *x, int n,
			  int peer, const struct wire_hdr *h)
{
	int i;

	if (h->coll != t->coll)
		return NULL;
	for (i = 0; i < n; i++)
		if (!x[i].send && !x[i].complete && x[i].peer == peer &&
		    x[i].step == h->step)
			return &x[i];
	return NULL;
}

/* receive everything queued on the socket; 1 if anything came */
static int drain(struct transport *t, struct xfer *x, int n)
{
	struct spray_priv *sp = t->priv;
	struct sockaddr_storage from;
	struct wire_hdr h;
	char sa[96];
	int got = 0;

	for (;;) {
		struct iovec iov = { sp->rbuf, sp->rbuf_len };
		struct msghdr m = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
		};
		ssize_t r = recvmsg(sp->fd, &m, MSG_DONTWAIT | MSG_TRUNC);
		struct xfer *xf;
		int peer;

		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return got;
			sc_err("%s: recvmsg: %s", t->ctx, strerror(errno));
			return -1;
		}
		got = 1;
		peer = peer_of(t, &from, m.msg_namelen);
		if (peer < 0) {
			if (!sp->warned_stranger++)
				sc_err("ignoring a datagram from %s, not a rank",
				       spray_fmt(&from, sa, sizeof(sa)));
			continue;
		}
		if ((size_t)r > sp->rbuf_len) {
			sc_err("%s: a %zd-byte message from rank %d exceeds "
			       "the chunk size %zu: all ranks must use the same "
			       "-C", t->ctx, r, peer, sp->chunk);
			return -1;
		}
		memcpy(&h, sp->rbuf, sizeof(h));
		h.magic = ntohl(h.magic);
		h.coll = ntohl(h.coll);
		h.step = ntohl(h.step);
		h.chunk = ntohl(h.chunk);
		h.nchunks = ntohl(h.nchunks);
		h.total = ntohl(h.total);
		h.offset = ntohl(h.offset);
		h.len = ntohl(h.len);
		if ((size_t)r < sizeof(h) || h.magic != SC_MAGIC ||
		    h.len != r - sizeof(h)) {
			sc_err("%s: malformed message (%zd bytes) from rank %d",
			       t->ctx, r, peer);
			return -1;
		}
		if (h.coll < t->coll) {
			sc_err("%s: stale message from rank %d: collective %u "
			       "step %u chunk %u (now at collective %u)",
			       t->ctx, peer, h.coll, h.step, h.chunk, t->coll);
			return -1;
		}
		xf = match(t, x, n, peer, &h);
		if (xf) {
			if (place(t, xf, &h, sp->rbuf + sizeof(h)))
				return -1;
		} else {
			struct umsg *u = xzalloc(sizeof(*u) + h.len);

			u->h = h;
			memcpy(u->data, sp->rbuf + sizeof(h), h.len);
			if (sp->uq_tail[peer])
				sp->uq_tail[peer]->next = u;
			else
				sp->uq[peer] = u;
			sp->uq_tail[peer] = u;
		}
	}
}

/* take queued chunks for a newly posted receive */
static int from_queue(struct transport *t, struct xfer *x)
{
	struct spray_priv *sp = t->priv;
	struct umsg **pp = &sp->uq[x->peer], *u, *prev = NULL;

	while ((u = *pp) && !x->complete) {
		if (u->h.coll == t->coll && u->h.step == x->step) {
			*pp = u->next;
			if (sp->uq_tail[x->peer] == u)
				sp->uq_tail[x->peer] = prev;
			if (place(t, x, &u->h, u->data)) {
				free(u);
				return -1;
			}
			free(u);
			continue;
		}
		prev = u;
		pp = &u->next;
	}
	return 0;
}

static void shuffle(uint32_t *a, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		a[i] = i;
	for (i = n; i > 1; i--) {
		uint32_t j = random() % i, tmp = a[i - 1];

		a[i - 1] = a[j];
		a[j] = tmp;
	}
}

/*
 * A message AF_SPRAY gives up on comes back on the error queue with its
 * destination and our cookie (collective, step, chunk): name the peer.
 * -1 if there was one, else 0.
 */
static int spray_errq(struct transport *t)
{
	struct spray_priv *sp = t->priv;
	struct sockaddr_spray to;
	char cbuf[CMSG_SPACE(sizeof(struct sock_extended_err)) +
		  CMSG_SPACE(sizeof(uint64_t))], sa[96], dummy;
	struct iovec iov = { &dummy, 1 };
	struct msghdr m = {
		.msg_name = &to, .msg_namelen = sizeof(to),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct sock_extended_err ee = { 0 };
	struct cmsghdr *cm;
	uint64_t cookie = 0;
	int peer;

	if (sp->family != AF_SPRAY)
		return 0;
	memset(&to, 0, sizeof(to));
	if (recvmsg(sp->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return 0;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SPRAY)
			continue;
		if (cm->cmsg_type == SPRAY_CMSG_ERR)
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
		else if (cm->cmsg_type == SPRAY_CMSG_COOKIE)
			memcpy(&cookie, CMSG_DATA(cm), sizeof(cookie));
	}
	peer = peer_of(t, &to, m.msg_namelen);
	sc_err("%s: cannot reach rank %d at %s: a %u-byte message "
	       "(collective %u step %u chunk %u) failed: %s%s", t->ctx, peer,
	       spray_fmt(&to, sa, sizeof(sa)), ee.ee_info,
	       (unsigned int)(cookie >> 32),
	       (unsigned int)(cookie >> 16) & 0xffff,
	       (unsigned int)cookie & 0xffff,
	       strerror(ee.ee_errno ? (int)ee.ee_errno : EIO),
	       ee.ee_errno == ECONNREFUSED ?
	       " (nothing bound at its spray port, or its host runs no "
	       "AF_SPRAY: did it exit?)" :
	       ee.ee_errno == ETIMEDOUT ?
	       " (retry limit reached: the peer or every path to it is "
	       "gone)" :
	       ee.ee_errno == EHOSTUNREACH ?
	       " (retry limit reached, and the network said its host is "
	       "unreachable)" : "");
	return -1;
}

/* send chunks of @x until the socket is full; -1 error, 0 blocked, 1 sent */
static int send_chunks(struct transport *t, struct xfer *x, int budget)
{
	struct spray_priv *sp = t->priv;
	int sent = 0;

	while (x->next_chunk < x->nchunks && budget--) {
		uint32_t c = x->order ? x->order[x->next_chunk] : x->next_chunk;
		size_t off = (size_t)c * sp->chunk;
		size_t len = x->len - off < sp->chunk ? x->len - off : sp->chunk;
		struct wire_hdr h = {
			.magic = htonl(SC_MAGIC), .coll = htonl(t->coll),
			.step = htonl(x->step), .chunk = htonl(c),
			.nchunks = htonl(x->nchunks), .total = htonl(x->len),
			.offset = htonl(off), .len = htonl(len),
		};
		struct iovec iov[2] = {
			{ &h, sizeof(h) }, { x->buf + off, len },
		};
		struct msghdr m = {
			.msg_name = &sp->peer[x->peer],
			.msg_namelen = sp->peer_len[x->peer],
			.msg_iov = iov, .msg_iovlen = 2,
		};
		union {
			char buf[CMSG_SPACE(sizeof(uint64_t))];
			struct cmsghdr align;
		} cbuf;
		uint64_t cookie = (uint64_t)t->coll << 32 |
				  (x->step & 0xffff) << 16 | (c & 0xffff);
		char sa[96];

		if (sp->family == AF_SPRAY) {
			struct cmsghdr *cm;

			memset(&cbuf, 0, sizeof(cbuf));
			m.msg_control = cbuf.buf;
			m.msg_controllen = sizeof(cbuf.buf);
			cm = CMSG_FIRSTHDR(&m);
			cm->cmsg_level = SOL_SPRAY;
			cm->cmsg_type = SPRAY_CMSG_COOKIE;
			cm->cmsg_len = CMSG_LEN(sizeof(cookie));
			memcpy(CMSG_DATA(cm), &cookie, sizeof(cookie));
		}

		if (x->len == 0)
			len = 0, iov[1].iov_len = 0, h.len = 0;
		if (sendmsg(sp->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			if (errno == EAGAIN || errno == EINTR ||
			    errno == ENOBUFS)
				return sent;
			sc_err("%s: sending to rank %d (%s): %s%s", t->ctx,
			       x->peer, spray_fmt(&sp->peer[x->peer], sa,
						  sizeof(sa)),
			       strerror(errno), errno == EMSGSIZE ?
			       " (lower the chunk size with -C)" : "");
			return -1;
		}
		sent = 1;
		x->next_chunk++;
		x->done += len;
	}
	if (x->next_chunk == x->nchunks) {
		x->complete = 1;
		t->tx_bytes[x->peer] += x->len;
		free(x->order);
		x->order = NULL;
	}
	return 1;
}

static int spray_run(struct transport *t, struct xfer *x, int n,
		     double deadline)
{
	struct spray_priv *sp = t->priv;
	int i, r;

	for (i = 0; i < n; i++) {
		if (x[i].send) {
			x[i].nchunks = x[i].len ?
				(x[i].len + sp->chunk - 1) / sp->chunk : 1;
			if (t->o->shuffle && x[i].nchunks > 1) {
				x[i].order = xzalloc(x[i].nchunks * 4);
				shuffle(x[i].order, x[i].nchunks);
			}
		} else if (from_queue(t, &x[i])) {
			return -1;
		}
	}
	for (;;) {
		int pending_send = 0, pending = 0, blocked = 0;
		struct pollfd pfd = { .fd = sp->fd, .events = POLLIN };
		double left;

		/* round-robin: a few chunks per transfer per pass */
		for (i = 0; i < n; i++) {
			if (!x[i].send || x[i].complete)
				continue;
			r = send_chunks(t, &x[i], 4);
			if (r < 0)
				return -1;
			if (!x[i].complete) {
				pending_send++;
				blocked |= !r;
			}
		}
		if (drain(t, x, n) < 0)
			return -1;
		for (i = 0; i < n; i++)
			pending += !x[i].complete;
		if (!pending)
			return 0;
		if (pending_send && !blocked)
			continue;
		left = deadline - now_s();
		if (left <= 0) {
			report_stall(t, x, n, t->o->timeout);
			for (i = 0; i < n; i++) {
				free(x[i].order);
				x[i].order = NULL;
			}
			return -ETIMEDOUT;
		}
		if (pending_send)
			pfd.events |= POLLOUT;
		/* POLLOUT of an unconnected datagram socket may not track the
		 * receiver's queue: retry sends at least every millisecond */
		if (poll(&pfd, 1, pending_send ? 1 : (int)(left * 1000) + 1) >
		    0 && (pfd.revents & POLLERR) && spray_errq(t))
			return -1;
	}
}

/*
 * Wait until the peers acknowledged everything sent (SIOCOUTQ 0): before
 * reading the counters of a size, and before closing, which would drop the
 * rest.
 */
static int spray_flush(struct transport *t, double deadline)
{
	struct spray_priv *sp = t->priv;
	int outq = 0;

	if (!sp || sp->family != AF_SPRAY || sp->fd < 0)
		return 0;
	while (!ioctl(sp->fd, SIOCOUTQ, &outq) && outq > 0) {
		struct pollfd pfd = { .fd = sp->fd, .events = 0 };

		if (now_s() > deadline) {
			sc_err("%s: %d bytes sent are still not acknowledged "
			       "after %.3g s", t->ctx, outq, t->o->timeout);
			return -ETIMEDOUT;
		}
		if (poll(&pfd, 1, 1) > 0 && (pfd.revents & POLLERR) &&
		    spray_errq(t))
			return -1;
	}
	return 0;
}

static void spray_close(struct transport *t)
{
	struct spray_priv *sp = t->priv;
	int i;

	if (!sp)
		return;
	/* closing drops what the peers have not acknowledged yet */
	if (sp->fd >= 0 && !t->failed) {
		t->ctx = "close";
		spray_flush(t, now_s() + t->o->timeout + 5);
	}
	for (i = 0; i < t->nranks; i++) {
		while (sp->uq[i]) {
			struct umsg *u = sp->uq[i];

			sp->uq[i] = u->next;
			free(u);
		}
	}
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->peer);
	free(sp->peer_len);
	free(sp->uq);
	free(sp->uq_tail);
	free(sp->rbuf);
	free(sp);
	t->priv = NULL;
}

const struct transport_ops spray_ops = {
	.name = "spray",
	.open = spray_open,
	.connect = spray_connect,
	.run = spray_run,
	.flush = spray_flush,
	.close = spray_close,
};

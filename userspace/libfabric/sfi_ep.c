// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Endpoints of the spray provider: the data path over one AF_SPRAY socket.
 *
 * Sending: each message gets a 40-byte header (struct sfi_hdr: operation,
 * tag, remote CQ data, total length, offset) and goes out as one AF_SPRAY
 * message, or as several of at most max-msg bytes each when larger; the
 * socket has SPRAY_ORDERED set, so a peer's messages, and the fragments
 * of one, arrive in the order they were sent. sendmsg() never blocks
 * (MSG_DONTWAIT): what the socket refuses waits in a FIFO that progress
 * drains. Every message carries a SPRAY_CMSG_COOKIE naming its transmit
 * entry, so that a failure read from the error queue reaches the
 * operation.
 *
 * Completion (FI_TRANSMIT_COMPLETE, the default): a send completes once
 * the peer's transport acknowledged it, i.e. when the socket's SIOCOUTQ
 * (bytes queued and not yet acknowledged) reads 0 after it was handed to
 * the kernel, and the error queue holds no failure for it (the queue is
 * read after SIOCOUTQ: a message that failed is on the error queue before
 * it leaves the count). FI_INJECT_COMPLETE completes when sendmsg()
 * returns. A message that cannot be delivered completes with the error
 * the transport reported (ETIMEDOUT, ECONNREFUSED, EMSGSIZE, ...), and its
 * peer is marked failed: later sends to it, and directed receives from it,
 * fail at once, until the address is removed from the AV.
 *
 * Receiving: progress reads whole messages into a bounce buffer, matches
 * the first fragment (sfi_match.c) and copies into the posted buffer or an
 * unexpected-message buffer.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>
#include <linux/errqueue.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <rdma/fi_collective.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>
#include <rdma/providers/fi_log.h>

#include "spray_fi.h"

#define SFI_RX_BUDGET	64	/* messages read per progress call */

/* ---- peers ----------------------------------------------------------------- */

static struct sfi_peer *sfi_peer_get(struct sfi_ep *ep,
				     const struct sockaddr_spray *sa)
{
	uint32_t h = sfi_addr_hash(sa) % 256;
	struct sfi_peer *p;

	for (p = ep->peers[h]; p; p = p->hnext)
		if (sfi_addr_eq(&p->addr, sa))
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	memcpy(&p->addr, sa, sizeof(*sa));
	p->hnext = ep->peers[h];
	ep->peers[h] = p;
	ep->npeers++;
	return p;
}

static fi_addr_t sfi_resolve(void *arg, void *peer)
{
	struct sfi_ep *ep = arg;

	return sfi_av_reverse(ep->av, &((struct sfi_peer *)peer)->addr);
}

void sfi_av_ep_removed(struct sfi_av *av, const struct sockaddr_spray *sa)
{
	struct sfi_list *pos, *tmp;

	sfi_list_for_each_safe(pos, tmp, &av->dom->eps) {
		struct sfi_ep *ep = sfi_container_of(pos, struct sfi_ep, dom_link);
		uint32_t h = sfi_addr_hash(sa) % 256;
		struct sfi_peer *p;

		if (ep->av != av)
			continue;
		for (p = ep->peers[h]; p; p = p->hnext)
			if (sfi_addr_eq(&p->addr, sa))
				p->failed = 0;
	}
}

/* ---- completions ----------------------------------------------------------- */

static const char *sfi_err_hint(int err)
{
	switch (err) {
	case ETIMEDOUT:
		return "the peer or every path to it is gone (retry limit reached)";
	case ECONNREFUSED:
		return "no endpoint is bound at that address, or its host takes no AF_SPRAY";
	case EHOSTUNREACH:
		return "the network said its host is unreachable (retry limit reached)";
	case EMSGSIZE:
		return "a fragment is larger than the receiver's max-msg";
	case ECONNRESET:
		return "the peer reset the connection";
	default:
		return "";
	}
}

static void sfi_tx_comp(struct sfi_ep *ep, struct sfi_tx *tx, int err,
			const char *why)
{
	struct sfi_comp c = {
		.context = tx->context,
		.flags = FI_SEND | (tx->tagged ? FI_TAGGED : FI_MSG),
		.len = tx->len,
		.tag = tx->tagged ? tx->hdr.tag : 0,
		.src = FI_ADDR_NOTAVAIL,
		.err = err,
		.prov_errno = err,
	};

	if (err && why)
		snprintf(c.err_data, sizeof(c.err_data), "%s", why);
	sfi_cntr_inc(ep->cntr_send, err != 0);
	if (!ep->tx_cq || (tx->flags & SFI_TXF_NOCOMP))
		return;
	if (err || !ep->tx_selective || (tx->flags & FI_COMPLETION))
		sfi_cq_push(ep->tx_cq, &c);
}

static void sfi_tx_free(struct sfi_ep *ep, struct sfi_tx *tx)
{
	sfi_list_del(&tx->link);
	tx->state = SFI_TX_FREE;
	tx->gen++;
	tx->context = NULL;
	sfi_list_add_tail(&ep->tx_free, &tx->link);
}

static void sfi_rx_finish(struct sfi_ep *ep, struct sfi_rx *rx, bool tagged)
{
	struct sfi_comp c;

	sfi_rx_comp(rx, tagged, &c);
	if (c.err == FI_ETRUNC)
		snprintf(c.err_data, sizeof(c.err_data),
			 "message of %zu bytes truncated to the %zu-byte buffer",
			 rx->msg_len, rx->cap);
	sfi_cntr_inc(ep->cntr_recv, c.err != 0);
	if (ep->rx_cq && (c.err || !ep->rx_selective || (rx->flags & FI_COMPLETION)))
		sfi_cq_push(ep->rx_cq, &c);
	free(rx);
}

static void sfi_rx_fail(struct sfi_ep *ep, struct sfi_rx *rx, bool tagged,
			int err, const char *why)
{
	struct sfi_comp c = {
		.context = rx->context,
		.flags = FI_RECV | (tagged ? FI_TAGGED : FI_MSG),
		.tag = rx->tag,
		.src = rx->src,
		.err = err,
		.prov_errno = err,
	};

	if (why)
		snprintf(c.err_data, sizeof(c.err_data), "%s", why);
	sfi_cntr_inc(ep->cntr_recv, true);
	if (ep->rx_cq)
		sfi_cq_push(ep->rx_cq, &c);
	free(rx);
}

/* ---- sending --------------------------------------------------------------- */

static void sfi_hdr_to_wire(const struct sfi_hdr *h, uint64_t off,
			    struct sfi_hdr *w)
{
	w->version = SFI_HDR_VERSION;
	w->op = h->op;
	w->flags = htole16(h->flags);
	w->reserved = 0;
	w->tag = htole64(h->tag);
	w->data = htole64(h->data);
	w->total = htole64(h->total);
	w->offset = htole64(off);
}

/* Hand the rest of tx to the kernel: 0 when all of it is there. */
static int sfi_tx_push(struct sfi_ep *ep, struct sfi_tx *tx)
{
	const struct sockaddr_spray *to = &tx->peer->addr;

	do {
		union {
			char buf[CMSG_SPACE(sizeof(uint64_t))];
			struct cmsghdr align;
		} cm;
		struct iovec v[SFI_IOV_LIMIT + 1];
		size_t frag = tx->len - tx->sent, off, i, nv = 1, left;
		struct msghdr m = { 0 };
		struct sfi_hdr w;
		struct cmsghdr *c;
		uint64_t cookie = ((uint64_t)tx->gen << 32) | tx->idx;
		ssize_t n;

		if (frag > ep->frag_payload)
			frag = ep->frag_payload;
		sfi_hdr_to_wire(&tx->hdr, tx->sent, &w);
		v[0].iov_base = &w;
		v[0].iov_len = sizeof(w);
		/* the slice [sent, sent + frag) of the payload */
		off = tx->sent;
		left = frag;
		for (i = 0; i < tx->iov_count && left; i++) {
			size_t l = tx->iov[i].iov_len;

			if (off >= l) {
				off -= l;
				continue;
			}
			v[nv].iov_base = (char *)tx->iov[i].iov_base + off;
			v[nv].iov_len = l - off < left ? l - off : left;
			left -= v[nv].iov_len;
			nv++;
			off = 0;
		}
		m.msg_name = (void *)to;
		m.msg_namelen = sizeof(*to);
		m.msg_iov = v;
		m.msg_iovlen = nv;
		m.msg_control = cm.buf;
		m.msg_controllen = sizeof(cm.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SPRAY;
		c->cmsg_type = SPRAY_CMSG_COOKIE;
		c->cmsg_len = CMSG_LEN(sizeof(cookie));
		memcpy(CMSG_DATA(c), &cookie, sizeof(cookie));
		n = sendmsg(ep->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ENOBUFS || errno == ENOMEM)
				return -FI_EAGAIN;
			return -errno;
		}
		tx->sent += frag;
	} while (tx->sent < tx->len);
	return 0;
}

static void sfi_tx_fail(struct sfi_ep *ep, struct sfi_tx *tx, int err)
{
	char a[64], why[SFI_ERR_DATA_LEN];

	snprintf(why, sizeof(why),
		 "message of %zu bytes to %s (fi_addr %llu) not delivered: %s%s%s",
		 tx->len, sfi_addr_str(&tx->peer->addr, a, sizeof(a)),
		 (unsigned long long)tx->dest, strerror(err),
		 *sfi_err_hint(err) ? ": " : "", sfi_err_hint(err));
	sfi_tx_comp(ep, tx, err, why);
	sfi_tx_free(ep, tx);
}

/* tx is all in the kernel: complete now or wait for the acknowledgement */
static void sfi_tx_handed(struct sfi_ep *ep, struct sfi_tx *tx)
{
	sfi_list_del(&tx->link);
	if (tx->flags & FI_INJECT_COMPLETE) {
		sfi_list_add_tail(&ep->tx_inflight, &tx->link);
		sfi_tx_comp(ep, tx, 0, NULL);
		sfi_tx_free(ep, tx);
		return;
	}
	tx->state = SFI_TX_INFLIGHT;
	sfi_list_add_tail(&ep->tx_inflight, &tx->link);
}

static void sfi_tx_drain_queue(struct sfi_ep *ep)
{
	while (!sfi_list_empty(&ep->tx_queued)) {
		struct sfi_tx *tx = sfi_container_of(ep->tx_queued.next,
						     struct sfi_tx, link);
		int ret;

		if (tx->peer->failed) {
			sfi_tx_fail(ep, tx, tx->peer->failed);
			continue;
		}
		ret = sfi_tx_push(ep, tx);
		if (ret == -FI_EAGAIN)
			return;
		if (ret)
			sfi_tx_fail(ep, tx, -ret);
		else
			sfi_tx_handed(ep, tx);
	}
}

static void sfi_peer_fail(struct sfi_ep *ep, struct sfi_peer *peer, int err,
			  size_t len)
{
	struct sfi_list *pos, *tmp;
	char a[64], b[64], why[SFI_ERR_DATA_LEN];
	fi_addr_t fa;
	int i;

	fa = sfi_av_reverse(ep->av, &peer->addr);
	snprintf(why, sizeof(why),
		 "peer %s (fi_addr %llu) failed: %s%s%s", sfi_addr_str(&peer->addr, a, sizeof(a)),
		 (unsigned long long)fa, strerror(err),
		 *sfi_err_hint(err) ? ": " : "", sfi_err_hint(err));
	if (!peer->failed) {
		/*
		 * The first failure of a peer is said once on stderr even
		 * when libfabric's log is off (its default): an MPI job that
		 * dies of it otherwise only says MPI_ERR_INTERN.
		 */
		if (fi_log_enabled(&sfi_prov, FI_LOG_WARN, FI_LOG_EP_DATA))
			FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
				"message of %zu bytes to %s (fi_addr %llu) not delivered: %s%s%s\n",
				len, a, (unsigned long long)fa, strerror(err),
				*sfi_err_hint(err) ? ": " : "", sfi_err_hint(err));
		else if (sfi_param_peer_errors)
			fprintf(stderr,
				"libfabric:%d:spray: message of %zu bytes from %s to %s (fi_addr %llu) not delivered: %s%s%s\n",
				(int)getpid(), len, sfi_addr_str(&ep->addr, b, sizeof(b)),
				a, (unsigned long long)fa, strerror(err),
				*sfi_err_hint(err) ? ": " : "", sfi_err_hint(err));
		sfi_eq_write_err(ep->eq, &ep->ep_fid.fid, ep->context, err, err,
				 why);
	}
	peer->failed = err;
	/* everything in flight or queued to it fails with it */
	sfi_list_for_each_safe(pos, tmp, &ep->tx_inflight) {
		struct sfi_tx *tx = sfi_container_of(pos, struct sfi_tx, link);

		if (tx->peer == peer)
			sfi_tx_fail(ep, tx, err);
	}
	sfi_list_for_each_safe(pos, tmp, &ep->tx_queued) {
		struct sfi_tx *tx = sfi_container_of(pos, struct sfi_tx, link);

		if (tx->peer == peer)
			sfi_tx_fail(ep, tx, err);
	}
	/* and so do the receives that wait for it by name */
	if (!ep->q.directed || fa == FI_ADDR_NOTAVAIL)
		return;
	for (i = 0; i < 2; i++) {
		sfi_list_for_each_safe(pos, tmp, &ep->q.posted[i]) {
			struct sfi_rx *rx = sfi_container_of(pos, struct sfi_rx, link);

			if (rx->src != fa)
				continue;
			sfi_list_del(&rx->link);
			ep->q.nposted--;
			sfi_rx_fail(ep, rx, i, err, why);
		}
	}
}

static struct sfi_tx *sfi_tx_by_cookie(struct sfi_ep *ep, uint64_t cookie)
{
	uint32_t idx = (uint32_t)cookie, gen = (uint32_t)(cookie >> 32);

	if (idx >= ep->ntx || ep->txs[idx].gen != gen ||
	    ep->txs[idx].state == SFI_TX_FREE)
		return NULL;
	return &ep->txs[idx];
}

static void sfi_ep_read_errq(struct sfi_ep *ep)
{
	for (;;) {
		union {
			char buf[512];
			struct cmsghdr align;
		} cm;
		struct sockaddr_spray to = { 0 };
		struct sock_extended_err ee = { 0 };
		struct msghdr m = {
			.msg_name = &to, .msg_namelen = sizeof(to),
			.msg_control = cm.buf, .msg_controllen = sizeof(cm.buf),
		};
		struct cmsghdr *c;
		uint64_t cookie = 0;
		struct sfi_peer *peer;
		struct sfi_tx *tx;
		bool have = false;

		if (recvmsg(ep->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_SPRAY)
				continue;
			if (c->cmsg_type == SPRAY_CMSG_ERR) {
				memcpy(&ee, CMSG_DATA(c), sizeof(ee));
				have = true;
			} else if (c->cmsg_type == SPRAY_CMSG_COOKIE) {
				memcpy(&cookie, CMSG_DATA(c), sizeof(cookie));
			}
		}
		if (!have || !ee.ee_errno)
			continue;
		tx = sfi_tx_by_cookie(ep, cookie);
		peer = tx ? tx->peer : sfi_peer_get(ep, &to);
		if (!peer)
			continue;
		if (tx)
			sfi_tx_fail(ep, tx, (int)ee.ee_errno);
		sfi_peer_fail(ep, peer, (int)ee.ee_errno,
			      ee.ee_info > sizeof(struct sfi_hdr) ?
			      ee.ee_info - sizeof(struct sfi_hdr) : 0);
	}
}

static ssize_t sfi_send_common(struct sfi_ep *ep, const struct iovec *iov,
			       size_t count, fi_addr_t dest, uint64_t tag,
			       uint64_t data, uint64_t flags, void *context,
			       bool tagged)
{
	const struct sockaddr_spray *sa;
	struct sfi_peer *peer;
	struct sfi_tx *tx;
	size_t len = 0, i;
	ssize_t ret = 0;

	if (count > SFI_IOV_LIMIT)
		return -FI_EINVAL;
	for (i = 0; i < count; i++)
		len += iov[i].iov_len;
	if (len > SFI_MAX_MSG_SIZE)
		return -FI_EMSGSIZE;
	if ((flags & FI_INJECT) && len > ep->inject_size)
		return -FI_EMSGSIZE;
	pthread_mutex_lock(&ep->dom->lock);
	if (!ep->enabled) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	sa = sfi_av_get(ep->av, dest);
	if (!sa) {
		ret = -FI_EINVAL;
		goto out;
	}
	peer = sfi_peer_get(ep, sa);
	if (!peer) {
		ret = -FI_ENOMEM;
		goto out;
	}
	if (sfi_list_empty(&ep->tx_free))
		sfi_ep_progress(ep);
	if (sfi_list_empty(&ep->tx_free)) {
		ret = -FI_EAGAIN;
		goto out;
	}
	tx = sfi_container_of(ep->tx_free.next, struct sfi_tx, link);
	sfi_list_del(&tx->link);
	tx->context = context;
	tx->flags = flags;
	tx->tagged = tagged;
	tx->dest = dest;
	tx->peer = peer;
	tx->len = len;
	tx->sent = 0;
	tx->hdr = (struct sfi_hdr){
		.op = tagged ? SFI_OP_TAGGED : SFI_OP_MSG,
		.flags = (flags & FI_REMOTE_CQ_DATA) ? SFI_HF_DATA : 0,
		.tag = tag, .data = data, .total = len,
	};
	if (flags & FI_INJECT) {
		size_t off = 0;

		for (i = 0; i < count; i++) {
			memcpy(tx->inject_buf + off, iov[i].iov_base, iov[i].iov_len);
			off += iov[i].iov_len;
		}
		tx->iov[0].iov_base = tx->inject_buf;
		tx->iov[0].iov_len = len;
		tx->iov_count = 1;
	} else {
		memcpy(tx->iov, iov, count * sizeof(*iov));
		tx->iov_count = count;
	}
	tx->state = SFI_TX_QUEUED;
	sfi_list_add_tail(&ep->tx_queued, &tx->link);
	if (peer->failed) {
		if (flags & SFI_TXF_NOCOMP) {
			/* no completion to carry it: say it here */
			ret = -peer->failed;
			sfi_tx_free(ep, tx);
			goto out;
		}
		sfi_tx_fail(ep, tx, peer->failed);
		goto out;
	}
	if (ep->tx_queued.next == &tx->link)
		sfi_tx_drain_queue(ep);
out:
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

/* ---- receiving --------------------------------------------------------------- */

static void sfi_peer_abort_cur(struct sfi_ep *ep, struct sfi_peer *peer)
{
	char a[64], why[SFI_ERR_DATA_LEN];

	if (peer->cur_rx) {
		snprintf(why, sizeof(why), "message from %s cut short",
			 sfi_addr_str(&peer->addr, a, sizeof(a)));
		FI_WARN(&sfi_prov, FI_LOG_EP_DATA, "%s\n", why);
		sfi_rx_fail(ep, peer->cur_rx, peer->cur_tagged, FI_EIO, why);
	}
	if (peer->cur_ue) {
		struct sfi_unexp *ue = peer->cur_ue;

		sfi_unexp_remove(&ep->q, ue);
		sfi_unexp_free(ue);
	}
	peer->cur_rx = NULL;
	peer->cur_ue = NULL;
	peer->cur_drop = false;
}

static void sfi_ep_rx_frag(struct sfi_ep *ep, const struct sockaddr_spray *from,
			   const char *buf, size_t n)
{
	const char *payload = buf + sizeof(struct sfi_hdr);
	size_t plen = n - sizeof(struct sfi_hdr);
	struct sfi_peer *peer;
	struct sfi_hdr h;
	bool tagged, has_data;
	uint64_t total, off;

	if (n < sizeof(h))
		return;
	memcpy(&h, buf, sizeof(h));
	if (h.version != SFI_HDR_VERSION ||
	    (h.op != SFI_OP_MSG && h.op != SFI_OP_TAGGED))
		return;
	tagged = h.op == SFI_OP_TAGGED;
	has_data = le16toh(h.flags) & SFI_HF_DATA;
	total = le64toh(h.total);
	off = le64toh(h.offset);
	if (off + plen > total)
		return;
	peer = sfi_peer_get(ep, from);
	if (!peer)
		return;
	if (off == 0) {
		fi_addr_t src = sfi_av_reverse(ep->av, from);
		struct sfi_rx *rx;
		struct sfi_unexp *ue;

		if (peer->cur_rx || peer->cur_ue || peer->cur_drop)
			sfi_peer_abort_cur(ep, peer);
		rx = sfi_match_posted(&ep->q, tagged, src, le64toh(h.tag));
		if (rx) {
			sfi_rx_start(rx, src, le64toh(h.tag), le64toh(h.data),
				     has_data, total);
			sfi_rx_fill(rx, 0, payload, plen);
			if (plen >= total) {
				sfi_rx_finish(ep, rx, tagged);
			} else {
				peer->cur_rx = rx;
				peer->cur_tagged = tagged;
			}
			return;
		}
		ue = calloc(1, sizeof(*ue));
		if (ue)
			ue->buf = malloc(total ? total : 1);
		if (!ue || !ue->buf) {
			FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
				"no memory for an unexpected message of %llu bytes: dropped\n",
				(unsigned long long)total);
			free(ue);
			peer->cur_drop = plen < total;
			return;
		}
		ue->src = src;
		ue->peer = peer;
		ue->tag = le64toh(h.tag);
		ue->data = le64toh(h.data);
		ue->has_data = has_data;
		ue->len = total;
		memcpy(ue->buf, payload, plen);
		ue->got = plen;
		sfi_unexp_add(&ep->q, ue, tagged);
		if (plen < total) {
			peer->cur_ue = ue;
			peer->cur_tagged = tagged;
		}
		return;
	}
	/* a continuation of the message being reassembled from this peer */
	if (peer->cur_rx) {
		struct sfi_rx *rx = peer->cur_rx;

		if (off != rx->got) {
			sfi_peer_abort_cur(ep, peer);
			return;
		}
		sfi_rx_fill(rx, off, payload, plen);
		if (rx->got >= rx->msg_len) {
			peer->cur_rx = NULL;
			sfi_rx_finish(ep, rx, peer->cur_tagged);
		}
	} else if (peer->cur_ue) {
		struct sfi_unexp *ue = peer->cur_ue;

		if (off != ue->got || off + plen > ue->len) {
			sfi_peer_abort_cur(ep, peer);
			return;
		}
		memcpy(ue->buf + off, payload, plen);
		ue->got = off + plen;
		if (ue->got >= ue->len) {
			peer->cur_ue = NULL;
			if (ue->discard) {
				sfi_unexp_remove(&ep->q, ue);
				sfi_unexp_free(ue);
			}
		}
	} else if (peer->cur_drop && off + plen >= total) {
		peer->cur_drop = false;
	}
}

static void sfi_ep_read_socket(struct sfi_ep *ep)
{
	int i;

	for (i = 0; i < SFI_RX_BUDGET; i++) {
		struct sockaddr_spray from = { 0 };
		struct iovec v = { ep->bounce, ep->bounce_len };
		struct msghdr m = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &v, .msg_iovlen = 1,
		};
		ssize_t n = recvmsg(ep->fd, &m, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				FI_WARN(&sfi_prov, FI_LOG_EP_DATA, "recvmsg: %s\n",
					strerror(errno));
			return;
		}
		if (m.msg_flags & MSG_TRUNC) {
			FI_WARN(&sfi_prov, FI_LOG_EP_DATA,
				"a message above the %zu-byte fragment limit was dropped (FI_SPRAY_MAX_MSG differs between peers?)\n",
				ep->bounce_len);
			continue;
		}
		sfi_ep_rx_frag(ep, &from, ep->bounce, (size_t)n);
	}
}

/* ---- progress ------------------------------------------------------------- */

void sfi_ep_progress(struct sfi_ep *ep)
{
	struct pollfd p = { .fd = ep->fd, .events = POLLIN };
	int outq = -1;

	if (!ep->enabled)
		return;
	if (ep->timer_armed) {
		uint64_t x;

		if (read(ep->timerfd, &x, sizeof(x)) == sizeof(x))
			ep->timer_armed = false;
	}
	/* SIOCOUTQ first, then the error queue: see the top of the file */
	if (!sfi_list_empty(&ep->tx_inflight) && ioctl(ep->fd, SIOCOUTQ, &outq))
		outq = -1;
	if (poll(&p, 1, 0) < 0)
		p.revents = 0;
	if (p.revents & POLLERR)
		sfi_ep_read_errq(ep);
	if (outq == 0) {
		while (!sfi_list_empty(&ep->tx_inflight)) {
			struct sfi_tx *tx = sfi_container_of(ep->tx_inflight.next,
							     struct sfi_tx, link);

			sfi_tx_comp(ep, tx, 0, NULL);
			sfi_tx_free(ep, tx);
		}
		ep->poll_backoff_us = 0;
	}
	if (!sfi_list_empty(&ep->tx_queued))
		sfi_tx_drain_queue(ep);
	if (p.revents & POLLIN)
		sfi_ep_read_socket(ep);
}

bool sfi_ep_waiting_tx(const struct sfi_ep *ep)
{
	return !sfi_list_empty(&ep->tx_inflight) || !sfi_list_empty(&ep->tx_queued);
}

/*
 * Before a thread blocks on a wait object that holds this endpoint: if
 * sends wait for their acknowledgement, which no descriptor announces,
 * arm the timer that makes the wait return to read SIOCOUTQ again, with a
 * back-off from 100 us to 20 ms. An idle endpoint arms nothing.
 */
void sfi_ep_prepare_wait(struct sfi_ep *ep)
{
	struct itimerspec its = { 0 };

	if (!ep->enabled || !sfi_ep_waiting_tx(ep) || ep->timer_armed)
		return;
	ep->poll_backoff_us = ep->poll_backoff_us ? ep->poll_backoff_us * 2 : 100;
	if (ep->poll_backoff_us > 20000)
		ep->poll_backoff_us = 20000;
	its.it_value.tv_nsec = (long)ep->poll_backoff_us * 1000;
	if (!timerfd_settime(ep->timerfd, 0, &its, NULL))
		ep->timer_armed = true;
}

/* ---- receive entry points ------------------------------------------------ */

static void sfi_peek(struct sfi_ep *ep, uint64_t tag, uint64_t ignore,
		     fi_addr_t src, uint64_t flags, void *context)
{
	struct sfi_unexp *ue;
	struct sfi_comp c = { .context = context, .src = src };

	sfi_ep_progress(ep);
	ue = sfi_match_unexp(&ep->q, true, src, tag, ignore, sfi_resolve, ep);
	if (!ue) {
		c.flags = FI_RECV | FI_TAGGED;
		c.tag = tag;
		c.err = FI_ENOMSG;
		c.prov_errno = FI_ENOMSG;
		if (ep->rx_cq)
			sfi_cq_push(ep->rx_cq, &c);
		return;
	}
	c.flags = FI_RECV | FI_TAGGED | (ue->has_data ? FI_REMOTE_CQ_DATA : 0);
	c.len = ue->len;
	c.tag = ue->tag;
	c.data = ue->has_data ? ue->data : 0;
	c.src = ue->src;
	if (flags & FI_DISCARD) {
		if (ue->got < ue->len) {
			ue->discard = true;
		} else {
			sfi_unexp_remove(&ep->q, ue);
			sfi_unexp_free(ue);
		}
	} else if (flags & FI_CLAIM) {
		ue->claimed = true;
		((struct fi_context *)context)->internal[0] = ue;
	}
	if (ep->rx_cq)
		sfi_cq_push(ep->rx_cq, &c);
}

/* Deliver an unexpected message into a receive (complete now or later). */
static void sfi_take_unexp(struct sfi_ep *ep, struct sfi_unexp *ue,
			   struct sfi_rx *rx, bool tagged)
{
	struct sfi_peer *peer = ue->peer;

	sfi_unexp_remove(&ep->q, ue);
	sfi_unexp_to_rx(ue, rx);
	if (ue->got >= ue->len) {
		sfi_rx_finish(ep, rx, tagged);
	} else {
		/* the rest of its fragments go straight to the buffer */
		peer->cur_ue = NULL;
		peer->cur_rx = rx;
		peer->cur_tagged = tagged;
	}
	sfi_unexp_free(ue);
}

static ssize_t sfi_recv_common(struct sfi_ep *ep, const struct iovec *iov,
			       size_t count, fi_addr_t src, uint64_t tag,
			       uint64_t ignore, uint64_t flags, void *context,
			       bool tagged)
{
	struct sfi_unexp *ue;
	struct sfi_rx *rx;
	ssize_t ret = 0;
	size_t i;

	if (count > SFI_IOV_LIMIT)
		return -FI_EINVAL;
	if ((flags & (FI_PEEK | FI_CLAIM)) && !tagged)
		return -FI_EBADFLAGS;
	if ((flags & FI_CLAIM) && !context)
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->dom->lock);
	if (!ep->enabled) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	if (!ep->q.directed)
		src = FI_ADDR_UNSPEC;
	else if (src != FI_ADDR_UNSPEC && !sfi_av_get(ep->av, src)) {
		ret = -FI_EINVAL;
		goto out;
	}
	if (flags & FI_PEEK) {
		sfi_peek(ep, tag, ignore, src, flags, context);
		goto out;
	}
	rx = calloc(1, sizeof(*rx));
	if (!rx) {
		ret = -FI_ENOMEM;
		goto out;
	}
	rx->context = context;
	rx->flags = flags;
	rx->src = src;
	rx->tag = tag;
	rx->ignore = ignore;
	memcpy(rx->iov, iov, count * sizeof(*iov));
	rx->iov_count = count;
	for (i = 0; i < count; i++)
		rx->cap += iov[i].iov_len;
	if (flags & FI_CLAIM) {
		ue = ((struct fi_context *)context)->internal[0];
		if (!ue || !ue->claimed) {
			free(rx);
			ret = -FI_EINVAL;
			goto out;
		}
		if (flags & FI_DISCARD) {
			sfi_rx_start(rx, ue->src, ue->tag, ue->data, ue->has_data, 0);
			if (ue->got < ue->len) {
				ue->claimed = false;
				ue->discard = true;
			} else {
				sfi_unexp_remove(&ep->q, ue);
				sfi_unexp_free(ue);
			}
			sfi_rx_finish(ep, rx, true);
			goto out;
		}
		sfi_take_unexp(ep, ue, rx, true);
		goto out;
	}
	ue = sfi_match_unexp(&ep->q, tagged, src, tag, ignore, sfi_resolve, ep);
	if (ue) {
		sfi_take_unexp(ep, ue, rx, tagged);
		goto out;
	}
	if (src != FI_ADDR_UNSPEC) {
		struct sfi_peer *peer = sfi_peer_get(ep, sfi_av_get(ep->av, src));

		if (peer && peer->failed) {
			char a[64], why[SFI_ERR_DATA_LEN];

			snprintf(why, sizeof(why), "peer %s (fi_addr %llu) failed: %s",
				 sfi_addr_str(&peer->addr, a, sizeof(a)),
				 (unsigned long long)src, strerror(peer->failed));
			sfi_rx_fail(ep, rx, tagged, peer->failed, why);
			goto out;
		}
	}
	sfi_post_rx(&ep->q, rx, tagged);
out:
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

/* ---- fi_ops_msg / fi_ops_tagged ---------------------------------------- */

#define EP(fep) sfi_container_of(fep, struct sfi_ep, ep_fid)

static ssize_t sfi_recv(struct fid_ep *fep, void *buf, size_t len, void *desc,
			fi_addr_t src, void *context)
{
	struct iovec v = { buf, len };

	(void)desc;
	return sfi_recv_common(EP(fep), &v, 1, src, 0, 0, EP(fep)->rx_op_flags,
			       context, false);
}

static ssize_t sfi_recvv(struct fid_ep *fep, const struct iovec *iov,
			 void **desc, size_t count, fi_addr_t src, void *context)
{
	(void)desc;
	return sfi_recv_common(EP(fep), iov, count, src, 0, 0,
			       EP(fep)->rx_op_flags, context, false);
}

static ssize_t sfi_recvmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   uint64_t flags)
{
	return sfi_recv_common(EP(fep), msg->msg_iov, msg->iov_count, msg->addr,
			       0, 0, flags, msg->context, false);
}

static ssize_t sfi_send(struct fid_ep *fep, const void *buf, size_t len,
			void *desc, fi_addr_t dest, void *context)
{
	struct iovec v = { (void *)buf, len };

	(void)desc;
	return sfi_send_common(EP(fep), &v, 1, dest, 0, 0, EP(fep)->tx_op_flags,
			       context, false);
}

static ssize_t sfi_sendv(struct fid_ep *fep, const struct iovec *iov,
			 void **desc, size_t count, fi_addr_t dest, void *context)
{
	(void)desc;
	return sfi_send_common(EP(fep), iov, count, dest, 0, 0,
			       EP(fep)->tx_op_flags, context, false);
}

static ssize_t sfi_sendmsg(struct fid_ep *fep, const struct fi_msg *msg,
			   uint64_t flags)
{
	return sfi_send_common(EP(fep), msg->msg_iov, msg->iov_count, msg->addr,
			       0, msg->data, flags, msg->context, false);
}

static ssize_t sfi_inject(struct fid_ep *fep, const void *buf, size_t len,
			  fi_addr_t dest)
{
	struct iovec v = { (void *)buf, len };

	return sfi_send_common(EP(fep), &v, 1, dest, 0, 0,
			       FI_INJECT | SFI_TXF_NOCOMP, NULL, false);
}

static ssize_t sfi_senddata(struct fid_ep *fep, const void *buf, size_t len,
			    void *desc, uint64_t data, fi_addr_t dest,
			    void *context)
{
	struct iovec v = { (void *)buf, len };

	(void)desc;
	return sfi_send_common(EP(fep), &v, 1, dest, 0, data,
			       EP(fep)->tx_op_flags | FI_REMOTE_CQ_DATA, context,
			       false);
}

static ssize_t sfi_injectdata(struct fid_ep *fep, const void *buf, size_t len,
			      uint64_t data, fi_addr_t dest)
{
	struct iovec v = { (void *)buf, len };

	return sfi_send_common(EP(fep), &v, 1, dest, 0, data,
			       FI_INJECT | SFI_TXF_NOCOMP | FI_REMOTE_CQ_DATA,
			       NULL, false);
}

static ssize_t sfi_trecv(struct fid_ep *fep, void *buf, size_t len, void *desc,
			 fi_addr_t src, uint64_t tag, uint64_t ignore,
			 void *context)
{
	struct iovec v = { buf, len };

	(void)desc;
	return sfi_recv_common(EP(fep), &v, 1, src, tag, ignore,
			       EP(fep)->rx_op_flags, context, true);
}

static ssize_t sfi_trecvv(struct fid_ep *fep, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t src, uint64_t tag,
			  uint64_t ignore, void *context)
{
	(void)desc;
	return sfi_recv_common(EP(fep), iov, count, src, tag, ignore,
			       EP(fep)->rx_op_flags, context, true);
}

static ssize_t sfi_trecvmsg(struct fid_ep *fep, const struct fi_msg_tagged *msg,
			    uint64_t flags)
{
	return sfi_recv_common(EP(fep), msg->msg_iov, msg->iov_count, msg->addr,
			       msg->tag, msg->ignore, flags, msg->context, true);
}

static ssize_t sfi_tsend(struct fid_ep *fep, const void *buf, size_t len,
			 void *desc, fi_addr_t dest, uint64_t tag, void *context)
{
	struct iovec v = { (void *)buf, len };

	(void)desc;
	return sfi_send_common(EP(fep), &v, 1, dest, tag, 0,
			       EP(fep)->tx_op_flags, context, true);
}

static ssize_t sfi_tsendv(struct fid_ep *fep, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t dest, uint64_t tag,
			  void *context)
{
	(void)desc;
	return sfi_send_common(EP(fep), iov, count, dest, tag, 0,
			       EP(fep)->tx_op_flags, context, true);
}

static ssize_t sfi_tsendmsg(struct fid_ep *fep, const struct fi_msg_tagged *msg,
			    uint64_t flags)
{
	return sfi_send_common(EP(fep), msg->msg_iov, msg->iov_count, msg->addr,
			       msg->tag, msg->data, flags, msg->context, true);
}

static ssize_t sfi_tinject(struct fid_ep *fep, const void *buf, size_t len,
			   fi_addr_t dest, uint64_t tag)
{
	struct iovec v = { (void *)buf, len };

	return sfi_send_common(EP(fep), &v, 1, dest, tag, 0,
			       FI_INJECT | SFI_TXF_NOCOMP, NULL, true);
}

static ssize_t sfi_tsenddata(struct fid_ep *fep, const void *buf, size_t len,
			     void *desc, uint64_t data, fi_addr_t dest,
			     uint64_t tag, void *context)
{
	struct iovec v = { (void *)buf, len };

	(void)desc;
	return sfi_send_common(EP(fep), &v, 1, dest, tag, data,
			       EP(fep)->tx_op_flags | FI_REMOTE_CQ_DATA, context,
			       true);
}

static ssize_t sfi_tinjectdata(struct fid_ep *fep, const void *buf, size_t len,
			       uint64_t data, fi_addr_t dest, uint64_t tag)
{
	struct iovec v = { (void *)buf, len };

	return sfi_send_common(EP(fep), &v, 1, dest, tag, data,
			       FI_INJECT | SFI_TXF_NOCOMP | FI_REMOTE_CQ_DATA,
			       NULL, true);
}

static struct fi_ops_msg sfi_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = sfi_recv,
	.recvv = sfi_recvv,
	.recvmsg = sfi_recvmsg,
	.send = sfi_send,
	.sendv = sfi_sendv,
	.sendmsg = sfi_sendmsg,
	.inject = sfi_inject,
	.senddata = sfi_senddata,
	.injectdata = sfi_injectdata,
};

static struct fi_ops_tagged sfi_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = sfi_trecv,
	.recvv = sfi_trecvv,
	.recvmsg = sfi_trecvmsg,
	.send = sfi_tsend,
	.sendv = sfi_tsendv,
	.sendmsg = sfi_tsendmsg,
	.inject = sfi_tinject,
	.senddata = sfi_tsenddata,
	.injectdata = sfi_tinjectdata,
};

/* RMA, atomics and collectives: not offered (fi_getinfo does not list
 * them); their entry points return -FI_ENOSYS. */
static struct fi_ops_rma sfi_rma_ops;
static struct fi_ops_atomic sfi_atomic_ops;
static struct fi_ops_collective sfi_coll_ops;

static ssize_t sfi_nosys(void)
{
	return -FI_ENOSYS;
}

/* An ops table is a size followed by function pointers: fill them all. */
static void sfi_fill_nosys(void *ops, size_t size)
{
	void (**fn)(void) = (void (**)(void))((char *)ops + sizeof(size_t));
	size_t i, n = (size - sizeof(size_t)) / sizeof(*fn);

	*(size_t *)ops = size;
	for (i = 0; i < n; i++)
		fn[i] = (void (*)(void))sfi_nosys;
}

/* ---- fi_ops_ep, fi_ops_cm ---------------------------------------------- */

static ssize_t sfi_cancel(fid_t fid, void *context)
{
	struct sfi_ep *ep = sfi_container_of(fid, struct sfi_ep, ep_fid.fid);
	struct sfi_rx *rx;
	bool tagged;

	pthread_mutex_lock(&ep->dom->lock);
	rx = sfi_cancel_posted(&ep->q, context);
	if (rx) {
		struct sfi_comp c = {
			.context = rx->context, .tag = rx->tag,
			.err = FI_ECANCELED, .prov_errno = FI_ECANCELED,
			.src = FI_ADDR_NOTAVAIL,
		};

		tagged = rx->flags & FI_TAGGED;
		c.flags = FI_RECV | (tagged ? FI_TAGGED : FI_MSG);
		if (ep->rx_cq)
			sfi_cq_push(ep->rx_cq, &c);
		sfi_cntr_inc(ep->cntr_recv, true);
		free(rx);
	}
	pthread_mutex_unlock(&ep->dom->lock);
	return rx ? 0 : -FI_ENOENT;
}

static int sfi_getopt(fid_t fid, int level, int optname, void *optval,
		      size_t *optlen)
{
	(void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
	return -FI_ENOPROTOOPT;
}

static int sfi_setopt(fid_t fid, int level, int optname, const void *optval,
		      size_t optlen)
{
	(void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
	return -FI_ENOPROTOOPT;
}

static ssize_t sfi_rx_size_left(struct fid_ep *fep)
{
	struct sfi_ep *ep = EP(fep);

	return ep->enabled ? (ssize_t)(SFI_RX_SIZE - ep->q.nposted) : -FI_EOPBADSTATE;
}

static ssize_t sfi_tx_size_left(struct fid_ep *fep)
{
	struct sfi_ep *ep = EP(fep);
	struct sfi_list *pos, *tmp;
	ssize_t n = 0;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	pthread_mutex_lock(&ep->dom->lock);
	sfi_list_for_each_safe(pos, tmp, &ep->tx_free)
		n++;
	pthread_mutex_unlock(&ep->dom->lock);
	return n;
}

static struct fi_ops_ep sfi_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = sfi_cancel,
	.getopt = sfi_getopt,
	.setopt = sfi_setopt,
	.rx_size_left = sfi_rx_size_left,
	.tx_size_left = sfi_tx_size_left,
};

static int sfi_ep_open_socket(struct sfi_ep *ep, const struct sockaddr_spray *sa)
{
	socklen_t len = sizeof(ep->addr);
	int one = 1, fd;

	fd = socket(AF_SPRAY, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		FI_WARN(&sfi_prov, FI_LOG_EP_CTRL,
			"socket(AF_SPRAY): %s (is spray.ko loaded?)\n",
			strerror(errno));
		return -errno;
	}
	if (setsockopt(fd, SOL_SPRAY, SPRAY_ORDERED, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
	    getsockname(fd, (struct sockaddr *)&ep->addr, &len)) {
		int err = errno;
		char a[64];

		FI_WARN(&sfi_prov, FI_LOG_EP_CTRL, "AF_SPRAY socket at %s: %s\n",
			sfi_addr_str(sa, a, sizeof(a)), strerror(err));
		close(fd);
		return -err;
	}
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = fd;
	return 0;
}

static int sfi_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct sfi_ep *ep = sfi_container_of(fid, struct sfi_ep, ep_fid.fid);
	int ret;

	if (addrlen < sizeof(struct sockaddr_spray))
		return -FI_EINVAL;
	pthread_mutex_lock(&ep->dom->lock);
	ret = ep->enabled ? -FI_EOPBADSTATE : sfi_ep_open_socket(ep, addr);
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

static int sfi_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct sfi_ep *ep = sfi_container_of(fid, struct sfi_ep, ep_fid.fid);
	size_t need = sizeof(ep->addr);

	if (*addrlen < need) {
		*addrlen = need;
		return -FI_ETOOSMALL;
	}
	memcpy(addr, &ep->addr, need);
	*addrlen = need;
	return 0;
}

static struct fi_ops_cm sfi_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = sfi_setname,
	.getname = sfi_getname,
};

/* ---- lifetime ------------------------------------------------------------ */

static void sfi_ep_watch(struct sfi_ep *ep, int epfd, bool add)
{
	if (add) {
		sfi_wait_fd_add(epfd, ep->fd);
		sfi_wait_fd_add(epfd, ep->timerfd);
	} else {
		sfi_wait_fd_del(epfd, ep->fd);
		sfi_wait_fd_del(epfd, ep->timerfd);
	}
}

static int sfi_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct sfi_ep *ep = sfi_container_of(fid, struct sfi_ep, ep_fid.fid);
	int ret = 0;

	pthread_mutex_lock(&ep->dom->lock);
	if (ep->enabled) {
		ret = -FI_EOPBADSTATE;
		goto out;
	}
	switch (bfid->fclass) {
	case FI_CLASS_AV:
		if (ep->av) {
			ret = -FI_EINVAL;
			break;
		}
		ep->av = sfi_container_of(bfid, struct sfi_av, av_fid.fid);
		ep->av->refs++;
		break;
	case FI_CLASS_CQ: {
		struct sfi_cq *cq = sfi_container_of(bfid, struct sfi_cq, cq_fid.fid);

		if (flags & ~(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION) ||
		    !(flags & (FI_TRANSMIT | FI_RECV))) {
			ret = -FI_EBADFLAGS;
			break;
		}
		if (flags & FI_TRANSMIT) {
			if (ep->tx_cq) {
				ret = -FI_EINVAL;
				break;
			}
			ep->tx_cq = cq;
			cq->refs++;
			ep->tx_selective = flags & FI_SELECTIVE_COMPLETION;
		}
		if (flags & FI_RECV) {
			if (ep->rx_cq) {
				ret = -FI_EINVAL;
				break;
			}
			ep->rx_cq = cq;
			cq->refs++;
			ep->rx_selective = flags & FI_SELECTIVE_COMPLETION;
		}
		sfi_ep_watch(ep, cq->epfd, true);
		break;
	}
	case FI_CLASS_CNTR: {
		struct sfi_cntr *c = sfi_container_of(bfid, struct sfi_cntr,
						      cntr_fid.fid);

		if (flags & ~(FI_SEND | FI_RECV | FI_TRANSMIT)) {
			ret = -FI_EBADFLAGS;	/* no RMA: no read/write counters */
			break;
		}
		if (flags & (FI_SEND | FI_TRANSMIT)) {
			ep->cntr_send = c;
			c->refs++;
		}
		if (flags & FI_RECV) {
			ep->cntr_recv = c;
			c->refs++;
		}
		sfi_ep_watch(ep, c->epfd, true);
		break;
	}
	case FI_CLASS_EQ:
		ep->eq = sfi_container_of(bfid, struct sfi_eq, eq_fid.fid);
		ep->eq->refs++;
		break;
	default:
		ret = -FI_EINVAL;
	}
out:
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

static int sfi_ep_enable(struct sfi_ep *ep)
{
	if (ep->enabled)
		return 0;
	if (!ep->av)
		return -FI_ENOAV;
	if (((ep->caps & FI_SEND) && !ep->tx_cq && !ep->cntr_send) ||
	    ((ep->caps & FI_RECV) && !ep->rx_cq && !ep->cntr_recv))
		return -FI_ENOCQ;
	ep->enabled = true;
	return sfi_dom_thread_add(ep->dom, ep);
}

static int sfi_ep_control(struct fid *fid, int command, void *arg)
{
	struct sfi_ep *ep = sfi_container_of(fid, struct sfi_ep, ep_fid.fid);
	int ret;

	switch (command) {
	case FI_ENABLE:
		pthread_mutex_lock(&ep->dom->lock);
		ret = sfi_ep_enable(ep);
		pthread_mutex_unlock(&ep->dom->lock);
		return ret;
	case FI_GETOPSFLAG: {
		uint64_t *f = arg;

		*f = (*f & FI_TRANSMIT) ? ep->tx_op_flags : ep->rx_op_flags;
		return 0;
	}
	case FI_SETOPSFLAG: {
		uint64_t f = *(uint64_t *)arg;

		if (f & FI_TRANSMIT)
			ep->tx_op_flags = f & ~(FI_TRANSMIT | FI_RECV);
		else
			ep->rx_op_flags = f & ~(FI_TRANSMIT | FI_RECV);
		return 0;
	}
	default:
		return -FI_ENOSYS;
	}
}

static int sfi_ep_close(struct fid *fid)
{
	struct sfi_ep *ep = sfi_container_of(fid, struct sfi_ep, ep_fid.fid);
	struct sfi_domain *dom = ep->dom;
	struct sfi_list *pos, *tmp;
	int i;

	sfi_dom_thread_del(dom, ep);
	pthread_mutex_lock(&dom->lock);
	sfi_list_del(&ep->dom_link);
	if (ep->tx_cq) {
		ep->tx_cq->refs--;
		sfi_ep_watch(ep, ep->tx_cq->epfd, false);
	}
	if (ep->rx_cq) {
		ep->rx_cq->refs--;
		sfi_ep_watch(ep, ep->rx_cq->epfd, false);
	}
	if (ep->cntr_send) {
		ep->cntr_send->refs--;
		sfi_ep_watch(ep, ep->cntr_send->epfd, false);
	}
	if (ep->cntr_recv) {
		ep->cntr_recv->refs--;
		sfi_ep_watch(ep, ep->cntr_recv->epfd, false);
	}
	if (ep->av)
		ep->av->refs--;
	if (ep->eq)
		ep->eq->refs--;
	dom->refs--;
	for (i = 0; i < 2; i++) {
		sfi_list_for_each_safe(pos, tmp, &ep->q.posted[i]) {
			sfi_list_del(pos);
			free(sfi_container_of(pos, struct sfi_rx, link));
		}
		sfi_list_for_each_safe(pos, tmp, &ep->q.unexp[i]) {
			sfi_list_del(pos);
			sfi_unexp_free(sfi_container_of(pos, struct sfi_unexp, link));
		}
	}
	for (i = 0; i < 256; i++) {
		while (ep->peers[i]) {
			struct sfi_peer *p = ep->peers[i];

			ep->peers[i] = p->hnext;
			free(p->cur_rx);
			free(p);
		}
	}
	pthread_mutex_unlock(&dom->lock);
	/* queued messages still go out: AF_SPRAY's close() lingers */
	if (ep->fd >= 0)
		close(ep->fd);
	if (ep->timerfd >= 0)
		close(ep->timerfd);
	if (ep->txs)
		free(ep->txs[0].inject_buf);
	free(ep->txs);
	free(ep->bounce);
	fi_freeinfo(ep->info);
	free(ep);
	return 0;
}

static struct fi_ops sfi_ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_ep_close,
	.bind = sfi_ep_bind,
	.control = sfi_ep_control,
	.ops_open = sfi_no_ops_open,
};

int sfi_endpoint(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **fep, void *context)
{
	struct sfi_domain *dom = sfi_container_of(domain, struct sfi_domain,
						  domain_fid);
	struct sockaddr_spray sa = dom->addr;
	struct sfi_ep *ep;
	size_t i;
	int ret;

	if (!info || !info->ep_attr || info->ep_attr->type != FI_EP_RDM)
		return -FI_EINVAL;
	if (!sfi_rma_ops.size) {
		sfi_fill_nosys(&sfi_rma_ops, sizeof(sfi_rma_ops));
		sfi_fill_nosys(&sfi_atomic_ops, sizeof(sfi_atomic_ops));
		sfi_fill_nosys(&sfi_coll_ops, sizeof(sfi_coll_ops));
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->fd = ep->timerfd = -1;
	ep->info = fi_dupinfo(info);
	ep->type = info->ep_attr->type;
	ep->caps = info->caps;
	if (!(ep->caps & (FI_SEND | FI_RECV)))
		ep->caps |= FI_SEND | FI_RECV;
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	ep->inject_size = (size_t)sfi_param_inject_size;
	ep->frag_payload = (size_t)sfi_param_max_msg - sizeof(struct sfi_hdr);
	ep->context = context;
	sfi_queues_init(&ep->q, info->caps & FI_DIRECTED_RECV);
	sfi_list_init(&ep->tx_free);
	sfi_list_init(&ep->tx_queued);
	sfi_list_init(&ep->tx_inflight);
	ep->ntx = info->tx_attr && info->tx_attr->size ? info->tx_attr->size :
							 SFI_TX_SIZE;
	ep->txs = calloc(ep->ntx, sizeof(*ep->txs));
	ep->bounce_len = (size_t)sfi_param_max_msg;
	ep->bounce = malloc(ep->bounce_len);
	ep->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (!ep->info || !ep->txs || !ep->bounce || ep->timerfd < 0) {
		ret = -FI_ENOMEM;
		goto err;
	}
	ep->txs[0].inject_buf = malloc(ep->ntx * ep->inject_size + 1);
	if (!ep->txs[0].inject_buf) {
		ret = -FI_ENOMEM;
		goto err;
	}
	for (i = 0; i < ep->ntx; i++) {
		ep->txs[i].idx = (uint32_t)i;
		ep->txs[i].inject_buf = ep->txs[0].inject_buf + i * ep->inject_size;
		sfi_list_add_tail(&ep->tx_free, &ep->txs[i].link);
	}
	if (info->src_addr && info->src_addrlen >= sizeof(sa) &&
	    ((struct sockaddr_spray *)info->src_addr)->sspray_family == AF_SPRAY)
		memcpy(&sa, info->src_addr, sizeof(sa));
	ret = sfi_ep_open_socket(ep, &sa);
	if (ret)
		goto err;
	ep->ep_fid.fid.fclass = FI_CLASS_EP;
	ep->ep_fid.fid.context = context;
	ep->ep_fid.fid.ops = &sfi_ep_fi_ops;
	ep->ep_fid.ops = &sfi_ep_ops;
	ep->ep_fid.cm = &sfi_cm_ops;
	ep->ep_fid.msg = &sfi_msg_ops;
	ep->ep_fid.tagged = &sfi_tagged_ops;
	ep->ep_fid.rma = &sfi_rma_ops;
	ep->ep_fid.atomic = &sfi_atomic_ops;
	ep->ep_fid.collective = &sfi_coll_ops;
	ep->dom = dom;
	pthread_mutex_lock(&dom->lock);
	sfi_list_add_tail(&dom->eps, &ep->dom_link);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*fep = &ep->ep_fid;
	return 0;
err:
	if (ep->fd >= 0)
		close(ep->fd);
	if (ep->timerfd >= 0)
		close(ep->timerfd);
	if (ep->txs)
		free(ep->txs[0].inject_buf);
	free(ep->txs);
	free(ep->bounce);
	fi_freeinfo(ep->info);
	free(ep);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive matching of the spray provider: posted receives and unexpected
 * messages, one queue pair for FI_MSG and one for FI_TAGGED, matched in
 * arrival and posting order (FI_ORDER_SAS), with ignore bits and, when the
 * endpoint has FI_DIRECTED_RECV, source addresses. No socket here: the
 * host unit tests (test/unit_match.c) drive it directly.
 */
#include <stdlib.h>
#include <string.h>

#include "spray_fi.h"

void sfi_queues_init(struct sfi_queues *q, bool directed)
{
	int i;

	for (i = 0; i < 2; i++) {
		sfi_list_init(&q->posted[i]);
		sfi_list_init(&q->unexp[i]);
	}
	q->nposted = q->nunexp = q->unexp_bytes = 0;
	q->directed = directed;
}

static bool sfi_src_ok(const struct sfi_queues *q, fi_addr_t want,
		       fi_addr_t src)
{
	return !q->directed || want == FI_ADDR_UNSPEC || want == src;
}

bool sfi_rx_matches(const struct sfi_queues *q, const struct sfi_rx *rx,
		    bool tagged, fi_addr_t src, uint64_t tag)
{
	if (!sfi_src_ok(q, rx->src, src))
		return false;
	return !tagged || ((rx->tag ^ tag) & ~rx->ignore) == 0;
}

struct sfi_rx *sfi_match_posted(struct sfi_queues *q, bool tagged,
				fi_addr_t src, uint64_t tag)
{
	struct sfi_list *pos, *tmp;

	sfi_list_for_each_safe(pos, tmp, &q->posted[tagged]) {
		struct sfi_rx *rx = sfi_container_of(pos, struct sfi_rx, link);

		if (sfi_rx_matches(q, rx, tagged, src, tag)) {
			sfi_list_del(&rx->link);
			q->nposted--;
			return rx;
		}
	}
	return NULL;
}

struct sfi_unexp *sfi_match_unexp(struct sfi_queues *q, bool tagged,
				  fi_addr_t src, uint64_t tag, uint64_t ignore,
				  sfi_resolve_fn resolve, void *arg)
{
	struct sfi_list *pos, *tmp;

	sfi_list_for_each_safe(pos, tmp, &q->unexp[tagged]) {
		struct sfi_unexp *ue = sfi_container_of(pos, struct sfi_unexp, link);

		if (ue->claimed || ue->discard)
			continue;
		/* the sender may have entered the AV since it arrived */
		if (ue->src == FI_ADDR_NOTAVAIL && resolve && q->directed &&
		    src != FI_ADDR_UNSPEC)
			ue->src = resolve(arg, ue->peer);
		if (!sfi_src_ok(q, src, ue->src))
			continue;
		if (tagged && ((ue->tag ^ tag) & ~ignore))
			continue;
		return ue;
	}
	return NULL;
}

void sfi_post_rx(struct sfi_queues *q, struct sfi_rx *rx, bool tagged)
{
	sfi_list_add_tail(&q->posted[tagged], &rx->link);
	q->nposted++;
}

void sfi_unexp_add(struct sfi_queues *q, struct sfi_unexp *ue, bool tagged)
{
	sfi_list_add_tail(&q->unexp[tagged], &ue->link);
	q->nunexp++;
	q->unexp_bytes += ue->len;
}

void sfi_unexp_remove(struct sfi_queues *q, struct sfi_unexp *ue)
{
	sfi_list_del(&ue->link);
	q->nunexp--;
	q->unexp_bytes -= ue->len;
}

void sfi_unexp_free(struct sfi_unexp *ue)
{
	free(ue->buf);
	free(ue);
}

struct sfi_rx *sfi_cancel_posted(struct sfi_queues *q, void *context)
{
	struct sfi_list *pos, *tmp;
	int i;

	for (i = 0; i < 2; i++) {
		sfi_list_for_each_safe(pos, tmp, &q->posted[i]) {
			struct sfi_rx *rx = sfi_container_of(pos, struct sfi_rx, link);

			if (rx->context == context) {
				sfi_list_del(&rx->link);
				q->nposted--;
				return rx;
			}
		}
	}
	return NULL;
}

/* Copy len bytes to offset off of the iov array; returns bytes copied. */
size_t sfi_copy_to_iov(const struct iovec *iov, size_t count, size_t off,
		       const void *src, size_t len)
{
	const char *s = src;
	size_t i, done = 0;

	for (i = 0; i < count && done < len; i++) {
		size_t n;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		n = iov[i].iov_len - off;
		if (n > len - done)
			n = len - done;
		memcpy((char *)iov[i].iov_base + off, s + done, n);
		done += n;
		off = 0;
	}
	return done;
}

void sfi_rx_start(struct sfi_rx *rx, fi_addr_t src, uint64_t tag,
		  uint64_t data, bool has_data, size_t len)
{
	rx->matched = true;
	rx->msg_src = src;
	rx->msg_tag = tag;
	rx->msg_data = data;
	rx->msg_has_data = has_data;
	rx->msg_len = len;
	rx->got = 0;
}

void sfi_rx_fill(struct sfi_rx *rx, size_t off, const void *p, size_t n)
{
	if (off < rx->cap)
		sfi_copy_to_iov(rx->iov, rx->iov_count, off, p,
				n < rx->cap - off ? n : rx->cap - off);
	rx->got = off + n;
}

void sfi_rx_comp(const struct sfi_rx *rx, bool tagged, struct sfi_comp *c)
{
	memset(c, 0, sizeof(*c));
	c->context = rx->context;
	c->flags = FI_RECV | (tagged ? FI_TAGGED : FI_MSG) |
		   (rx->msg_has_data ? FI_REMOTE_CQ_DATA : 0);
	c->len = rx->msg_len < rx->cap ? rx->msg_len : rx->cap;
	c->buf = rx->iov_count ? rx->iov[0].iov_base : NULL;
	c->data = rx->msg_has_data ? rx->msg_data : 0;
	c->tag = tagged ? rx->msg_tag : 0;
	c->src = rx->msg_src;
	if (rx->msg_len > rx->cap) {
		c->err = FI_ETRUNC;
		c->prov_errno = FI_ETRUNC;
		c->olen = rx->msg_len - rx->cap;
	}
}

void sfi_unexp_to_rx(struct sfi_unexp *ue, struct sfi_rx *rx)
{
	sfi_rx_start(rx, ue->src, ue->tag, ue->data, ue->has_data, ue->len);
	sfi_rx_fill(rx, 0, ue->buf, ue->got);
}

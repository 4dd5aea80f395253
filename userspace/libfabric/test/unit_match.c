// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host unit tests of the spray provider's matching and queueing logic
 * (sfi_match.c): posted and unexpected queues, tags and ignore bits,
 * directed receives, order, cancel, scatter into iovs, truncation,
 * reassembly into a receive. TAP output; built with ASan and UBSan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../spray_fi.h"

static int n, failed;

#define CHECK(cond, name)						\
	do {								\
		n++;							\
		if (cond) {						\
			printf("ok %d %s\n", n, name);			\
		} else {						\
			printf("not ok %d %s (%s:%d: %s)\n", n, name,	\
			       __FILE__, __LINE__, #cond);		\
			failed++;					\
		}							\
	} while (0)

static struct sfi_rx *rx_new(fi_addr_t src, uint64_t tag, uint64_t ignore,
			     void *buf, size_t len, void *ctx)
{
	struct sfi_rx *rx = calloc(1, sizeof(*rx));

	rx->src = src;
	rx->tag = tag;
	rx->ignore = ignore;
	rx->context = ctx;
	rx->iov[0].iov_base = buf;
	rx->iov[0].iov_len = len;
	rx->iov_count = 1;
	rx->cap = len;
	return rx;
}

static struct sfi_unexp *ue_new(fi_addr_t src, uint64_t tag, const char *data,
				size_t len, size_t got)
{
	struct sfi_unexp *ue = calloc(1, sizeof(*ue));

	ue->src = src;
	ue->tag = tag;
	ue->len = len;
	ue->got = got;
	ue->buf = malloc(len ? len : 1);
	memcpy(ue->buf, data, got);
	return ue;
}

static fi_addr_t resolve_to_7(void *arg, void *peer)
{
	(void)arg; (void)peer;
	return 7;
}

static void t_posted_order_and_tags(void)
{
	struct sfi_queues q;
	char b[4][8];
	struct sfi_rx *r[4], *m;
	int i;

	sfi_queues_init(&q, true);
	r[0] = rx_new(FI_ADDR_UNSPEC, 0x10, 0, b[0], 8, (void *)1);
	r[1] = rx_new(FI_ADDR_UNSPEC, 0x10, 0, b[1], 8, (void *)2);
	r[2] = rx_new(FI_ADDR_UNSPEC, 0x20, 0x0f, b[2], 8, (void *)3);
	r[3] = rx_new(3, 0x30, 0, b[3], 8, (void *)4);
	for (i = 0; i < 4; i++)
		sfi_post_rx(&q, r[i], true);
	m = sfi_match_posted(&q, true, 5, 0x10);
	CHECK(m == r[0], "match_posted__first_posted_matches_first");
	free(m);
	m = sfi_match_posted(&q, true, 5, 0x2a);
	CHECK(m == r[2], "match_posted__ignore_bits_mask_the_tag");
	free(m);
	m = sfi_match_posted(&q, true, 5, 0x30);
	CHECK(!m, "match_posted__directed_receive_skips_other_source");
	m = sfi_match_posted(&q, true, 3, 0x30);
	CHECK(m == r[3], "match_posted__directed_receive_takes_its_source");
	free(m);
	m = sfi_match_posted(&q, true, 5, 0x11);
	CHECK(!m, "match_posted__tag_mismatch_no_match");
	m = sfi_match_posted(&q, false, 5, 0x10);
	CHECK(!m, "match_posted__msg_and_tagged_queues_apart");
	CHECK(q.nposted == 1, "match_posted__count_follows");
	m = sfi_cancel_posted(&q, (void *)2);
	CHECK(m == r[1] && q.nposted == 0, "cancel_posted__removes_by_context");
	free(m);
	CHECK(!sfi_cancel_posted(&q, (void *)2), "cancel_posted__unknown_context_none");
}

static void t_undirected(void)
{
	struct sfi_queues q;
	char b[8];
	struct sfi_rx *r = rx_new(3, 1, 0, b, 8, NULL), *m;

	sfi_queues_init(&q, false);
	sfi_post_rx(&q, r, true);
	m = sfi_match_posted(&q, true, 9, 1);
	CHECK(m == r, "match_posted__without_directed_recv_source_ignored");
	free(m);
}

static void t_unexpected(void)
{
	struct sfi_queues q;
	struct sfi_unexp *u[3], *m;
	int i;

	sfi_queues_init(&q, true);
	u[0] = ue_new(1, 0x5, "aaaa", 4, 4);
	u[1] = ue_new(2, 0x5, "bbbb", 4, 4);
	u[2] = ue_new(FI_ADDR_NOTAVAIL, 0x6, "cccc", 4, 4);
	for (i = 0; i < 3; i++)
		sfi_unexp_add(&q, u[i], true);
	CHECK(q.nunexp == 3 && q.unexp_bytes == 12, "unexp_add__counts_messages_and_bytes");
	m = sfi_match_unexp(&q, true, FI_ADDR_UNSPEC, 0x5, 0, NULL, NULL);
	CHECK(m == u[0], "match_unexp__arrival_order");
	m = sfi_match_unexp(&q, true, 2, 0x5, 0, NULL, NULL);
	CHECK(m == u[1], "match_unexp__directed_picks_its_source");
	u[0]->claimed = true;
	m = sfi_match_unexp(&q, true, FI_ADDR_UNSPEC, 0x5, 0, NULL, NULL);
	CHECK(m == u[1], "match_unexp__claimed_message_skipped");
	m = sfi_match_unexp(&q, true, 7, 0x6, 0, NULL, NULL);
	CHECK(!m, "match_unexp__unknown_sender_not_directed_match");
	m = sfi_match_unexp(&q, true, 7, 0x6, 0, resolve_to_7, NULL);
	CHECK(m == u[2] && u[2]->src == 7,
	      "match_unexp__sender_inserted_later_resolves");
	m = sfi_match_unexp(&q, true, FI_ADDR_UNSPEC, 0x0, ~0ULL, NULL, NULL);
	CHECK(m == u[1], "match_unexp__ignore_all_matches_any");
	for (i = 0; i < 3; i++) {
		sfi_unexp_remove(&q, u[i]);
		sfi_unexp_free(u[i]);
	}
	CHECK(q.nunexp == 0 && q.unexp_bytes == 0, "unexp_remove__counts_back_to_zero");
}

static void t_copy_and_trunc(void)
{
	char a[3], b[5], out[16];
	struct iovec v[2] = { { a, 3 }, { b, 5 } };
	struct sfi_rx rx = { 0 };
	struct sfi_comp c;
	size_t k;

	k = sfi_copy_to_iov(v, 2, 0, "abcdefgh", 8);
	CHECK(k == 8 && !memcmp(a, "abc", 3) && !memcmp(b, "defgh", 5),
	      "copy_to_iov__spans_iovs");
	k = sfi_copy_to_iov(v, 2, 4, "XY", 2);
	CHECK(k == 2 && !memcmp(b, "dXYgh", 5), "copy_to_iov__offset_inside_second");
	k = sfi_copy_to_iov(v, 2, 7, "123", 3);
	CHECK(k == 1, "copy_to_iov__stops_at_capacity");

	rx.iov[0].iov_base = out;
	rx.iov[0].iov_len = 6;
	rx.iov_count = 1;
	rx.cap = 6;
	rx.context = (void *)9;
	sfi_rx_start(&rx, 4, 0x77, 0xdd, true, 10);
	sfi_rx_fill(&rx, 0, "01234", 5);
	sfi_rx_fill(&rx, 5, "56789", 5);
	sfi_rx_comp(&rx, true, &c);
	CHECK(rx.got == 10 && !memcmp(out, "012345", 6),
	      "rx_fill__fragments_land_at_offsets_truncated");
	CHECK(c.err == FI_ETRUNC && c.olen == 4 && c.len == 6,
	      "rx_comp__overflow_is_etrunc_with_olen");
	CHECK(c.flags == (FI_RECV | FI_TAGGED | FI_REMOTE_CQ_DATA) &&
	      c.tag == 0x77 && c.data == 0xdd && c.src == 4 && c.context == (void *)9,
	      "rx_comp__flags_tag_data_source");
	sfi_rx_start(&rx, 4, 0, 0, false, 6);
	sfi_rx_fill(&rx, 0, "abcdef", 6);
	sfi_rx_comp(&rx, false, &c);
	CHECK(!c.err && c.len == 6 && c.flags == (FI_RECV | FI_MSG),
	      "rx_comp__exact_fit_no_error");
}

static void t_unexp_to_rx(void)
{
	char out[8] = { 0 };
	struct sfi_rx *rx = rx_new(FI_ADDR_UNSPEC, 0, 0, out, 8, NULL);
	struct sfi_unexp *ue = ue_new(2, 3, "abcd", 8, 4);

	ue->has_data = true;
	ue->data = 42;
	sfi_unexp_to_rx(ue, rx);
	CHECK(rx->matched && rx->msg_len == 8 && rx->got == 4 &&
	      !memcmp(out, "abcd", 4) && rx->msg_data == 42,
	      "unexp_to_rx__partial_message_moves_with_its_metadata");
	sfi_rx_fill(rx, 4, "efgh", 4);
	CHECK(rx->got == 8 && !memcmp(out, "abcdefgh", 8),
	      "unexp_to_rx__rest_arrives_in_place");
	sfi_unexp_free(ue);
	free(rx);
}

static void t_many(void)
{
	struct sfi_queues q;
	int i, ok = 1;

	/* 10000 unexpected messages with tags i, received in reverse order */
	sfi_queues_init(&q, true);
	for (i = 0; i < 10000; i++) {
		char d = (char)i;

		sfi_unexp_add(&q, ue_new(1, (uint64_t)i, &d, 1, 1), true);
	}
	for (i = 9999; i >= 0; i--) {
		struct sfi_unexp *u = sfi_match_unexp(&q, true, 1, (uint64_t)i, 0,
						      NULL, NULL);

		if (!u || u->tag != (uint64_t)i || u->buf[0] != (char)i)
			ok = 0;
		if (u) {
			sfi_unexp_remove(&q, u);
			sfi_unexp_free(u);
		}
	}
	CHECK(ok && q.nunexp == 0, "match_unexp__10000_messages_any_order");
	/* same tag: FIFO */
	for (i = 0; i < 100; i++) {
		char d = (char)i;

		sfi_unexp_add(&q, ue_new(1, 5, &d, 1, 1), true);
	}
	for (i = 0; i < 100; i++) {
		struct sfi_unexp *u = sfi_match_unexp(&q, true, FI_ADDR_UNSPEC, 5,
						      0, NULL, NULL);

		if (!u || u->buf[0] != (char)i)
			ok = 0;
		if (u) {
			sfi_unexp_remove(&q, u);
			sfi_unexp_free(u);
		}
	}
	CHECK(ok, "match_unexp__same_tag_first_in_first_out");
}

int main(void)
{
	t_posted_order_and_tags();
	t_undirected();
	t_unexpected();
	t_copy_and_trunc();
	t_unexp_to_rx();
	t_many();
	printf("1..%d\n", n);
	printf("# libfabric unit: %d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
#include "rxwin.h"
#include "test.h"

static struct spray_rxwin w;

static int rx(u32 psn, u64 now)
{
	return spray_rxwin_rcv(&w, psn, 0, false, now, 7, now);
}

TEST(spray_rxwin_rcv__in_order_advances_cum)
{
	u32 i;

	spray_rxwin_init(&w, 100, NULL);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(rx(100 + i, 1000 + i), 0);
	EXPECT_EQ(w.cum, 110);
	EXPECT_EQ(w.high, 110);
	EXPECT_EQ(w.new, 10);
}

TEST(spray_rxwin_rcv__duplicates_detected)
{
	spray_rxwin_init(&w, 100, NULL);
	EXPECT_EQ(rx(100, 1), 0);
	EXPECT_EQ(rx(105, 2), 0);
	EXPECT_EQ(rx(100, 3), -SPRAY_DROP_DUP);	/* before cum */
	EXPECT_EQ(rx(105, 4), -SPRAY_DROP_DUP);	/* sacked */
	EXPECT_EQ(w.dups, 2);
	EXPECT(w.ack_now & SPRAY_RXACK_DUP);
	EXPECT_EQ(w.cum, 101);
}

TEST(spray_rxwin_rcv__out_of_order_then_fill)
{
	u32 i;

	spray_rxwin_init(&w, 0, NULL);
	for (i = 9; i >= 1; i--)
		EXPECT_EQ(rx(i, 10 - i), 0);
	EXPECT_EQ(w.cum, 0);
	EXPECT_EQ(w.high, 10);
	EXPECT(!spray_rxwin_received(&w, 0));
	EXPECT(spray_rxwin_received(&w, 5));
	EXPECT_EQ(rx(0, 20), 0);
	EXPECT_EQ(w.cum, 10);
	EXPECT(w.ack_now & SPRAY_RXACK_FILL);
}

TEST(spray_rxwin_rcv__window_edge)
{
	spray_rxwin_init(&w, 1000, NULL);
	EXPECT_EQ(rx(1000 + SPRAY_RXWIN_BITS - 1, 1), 0);
	EXPECT_EQ(rx(1000 + SPRAY_RXWIN_BITS, 2), -SPRAY_DROP_WINDOW);
	EXPECT_EQ(rx(1000 + SPRAY_RXWIN_BITS + 500, 2), -SPRAY_DROP_WINDOW);
	EXPECT_EQ(w.beyond, 2);
	EXPECT_EQ(rx(1000, 3), 0);
	EXPECT_EQ(rx(1000 + SPRAY_RXWIN_BITS, 4), 0);	/* edge moved */
}

TEST(spray_rxwin_rcv__far_psn_is_stale)
{
	spray_rxwin_init(&w, 1000, NULL);
	EXPECT_EQ(rx(1000 + SPRAY_RXWIN_FAR, 1), -SPRAY_DROP_STALE);
	EXPECT_EQ(rx(1000 - SPRAY_RXWIN_FAR - 1, 1), -SPRAY_DROP_STALE);
	EXPECT_EQ(rx(1000 + 0x80000000U, 1), -SPRAY_DROP_STALE);
	EXPECT_EQ(rx(1000 - SPRAY_RXWIN_FAR, 1), -SPRAY_DROP_DUP);
	EXPECT_EQ(w.stale, 3);
	EXPECT_EQ(w.cum, 1000);
	EXPECT_EQ(w.unacked, 1);
}

TEST(spray_rxwin_rcv__wraparound)
{
	u32 isn = 0xffffffe0, i;

	spray_rxwin_init(&w, isn, NULL);
	for (i = 0; i < 64; i += 2)
		EXPECT_EQ(rx(isn + i, i), 0);
	EXPECT_EQ(w.cum, isn + 1);
	for (i = 1; i < 64; i += 2)
		EXPECT_EQ(rx(isn + i, 100 + i), 0);
	EXPECT_EQ(w.cum, isn + 64);
	EXPECT_EQ(w.cum, 0x20);
	EXPECT_EQ(rx(0xfffffff0, 200), -SPRAY_DROP_DUP);
	EXPECT(spray_rxwin_received(&w, 0xffffffff));
}

TEST(spray_rxwin_rcv__long_random_against_model)
{
	static u8 seen[20000];
	u32 rng = 99, isn = 0xfffff000, i, base = 0, psn, cum = 0;
	int r;

	memset(seen, 0, sizeof(seen));
	spray_rxwin_init(&w, isn, NULL);
	for (i = 0; i < 200000 && cum < 19000; i++) {
		/* mostly near the edge, sometimes old or beyond */
		psn = cum + spray_prng_below(&rng, 300);
		if (spray_prng_below(&rng, 10) == 0 && psn >= 200)
			psn -= 200;
		if (psn >= 20000)
			continue;
		r = rx(isn + psn, i);
		if (seen[psn])
			EXPECT_EQ(r, -SPRAY_DROP_DUP);
		else
			EXPECT_EQ(r, 0);
		seen[psn] = 1;
		while (cum < 20000 && seen[cum])
			cum++;
		EXPECT_EQ(w.cum, isn + cum);
		(void)base;
	}
	EXPECT(cum >= 19000);
}

TEST(spray_rxwin_build_ack__sack_bitmap)
{
	struct spray_ack a;

	spray_rxwin_init(&w, 1000, NULL);
	rx(1000, 1);
	rx(1001, 2);
	rx(1003, 3);
	rx(1010, 4);
	spray_rxwin_build_ack(&w, 10, &a);
	EXPECT_EQ(a.cum_psn, 1002);
	/* range ends at the highest psn: base = 1011 - 64 */
	EXPECT_EQ(a.sack_base, 1011 - 64);
	EXPECT_EQ(a.sack, (~0ULL >> 9) | (1ULL << 56) | (1ULL << 63));
	EXPECT_EQ(a.ecn, 0);
	EXPECT_EQ(a.ts_echo, 4);
	EXPECT_EQ(a.hold_ns, 6);
	EXPECT_EQ(a.echo_psn, 1010);
	EXPECT_EQ(a.ev_echo, 7);
	EXPECT_EQ(w.unacked, 0);
}

TEST(spray_rxwin_build_ack__ecn_bitmap)
{
	struct spray_ack a;
	u32 i;

	spray_rxwin_init(&w, 50, NULL);
	for (i = 0; i < 70; i++)
		spray_rxwin_rcv(&w, 50 + i, 0, i % 3 == 0, i, 1, i);
	spray_rxwin_build_ack(&w, 100, &a);
	EXPECT_EQ(a.cum_psn, 120);
	EXPECT_EQ(a.sack_base, 56);
	EXPECT_EQ(a.sack, ~0ULL);
	for (i = 0; i < 64; i++)
		EXPECT_EQ(!!(a.ecn & (1ULL << i)), (6 + i) % 3 == 0);
}

TEST(spray_rxwin_build_ack__oldest_unreported_first)
{
	struct spray_ack a;

	spray_rxwin_init(&w, 0, NULL);
	rx(5, 1);
	rx(300, 2);
	spray_rxwin_build_ack(&w, 3, &a);
	EXPECT_EQ(a.sack_base, 5);
	EXPECT_EQ(a.sack, 1);
	rx(301, 4);
	spray_rxwin_build_ack(&w, 5, &a);
	EXPECT_EQ(a.sack_base, 302 - 64);
	EXPECT_EQ(a.sack >> 62, 3);
	EXPECT_EQ(a.cum_psn, 0);
}

/*
 * The ACK as the word-at-a-time spray_rxwin_build_ack() must build it: a
 * psn at a time over the 64 of the range (what it did before), on a copy
 * of the window.
 */
static bool ref_test(const u64 *map, u32 psn)
{
	u32 i = psn & (SPRAY_RXWIN_RING - 1);

	return map[i / 64] & (1ULL << (i % 64));
}

static void ref_build_ack(struct spray_rxwin *r, u32 base, u64 *sack,
			  u64 *ecn)
{
	u32 i, psn, b;

	*sack = 0;
	*ecn = 0;
	for (i = 0; i < 64; i++) {
		psn = base + i;
		b = psn & (SPRAY_RXWIN_RING - 1);
		if (!spray_psn_before(psn, r->cum) &&
		    spray_psn_before(psn, r->high) && ref_test(r->unrep, psn)) {
			r->unrep[b / 64] &= ~(1ULL << (b % 64));
			r->n_unrep--;
		}
		if (spray_psn_before(psn, r->cum)) {
			*sack |= 1ULL << i;
			if (!spray_psn_before(psn, r->cum - SPRAY_RXWIN_HIST) &&
			    ref_test(r->cemap, psn))
				*ecn |= 1ULL << i;
		} else if (spray_psn_before(psn, r->high) &&
			   ref_test(r->rcvd, psn)) {
			*sack |= 1ULL << i;
			if (ref_test(r->cemap, psn))
				*ecn |= 1ULL << i;
		}
	}
}

TEST(spray_rxwin_build_ack__same_as_psn_by_psn)
{
	static const u32 isns[] = { 0, 8192 - 40, 0xffffffe0u, 12345 };
	u64 seed = 0x9e3779b97f4a7c15ULL, sack, ecn, now = 1;
	struct spray_rxwin r;
	struct spray_ack a;
	u32 k, n, psn, acks = 0, bad = 0;

	for (k = 0; k < sizeof(isns) / sizeof(isns[0]); k++) {
		spray_rxwin_init(&w, isns[k], NULL);
		for (n = 0; n < 20000; n++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			/* mostly in order, some holes, reordering up to 200 */
			psn = w.cum + (seed % 8 ? seed % 3 : (seed >> 8) % 200);
			spray_rxwin_rcv(&w, psn, 0, (seed >> 20) % 5 == 0, now,
					1, now);
			now++;
			/* an ACK every few packets, or several in a row */
			if ((seed >> 32) % 4)
				continue;
			r = w;
			spray_rxwin_build_ack(&w, now, &a);
			ref_build_ack(&r, a.sack_base, &sack, &ecn);
			acks++;
			if (a.sack != sack || a.ecn != ecn ||
			    w.n_unrep != r.n_unrep ||
			    memcmp(w.unrep, r.unrep, sizeof(w.unrep)))
				bad++;
		}
	}
	EXPECT(acks > 10000);
	EXPECT_EQ(bad, 0);
}

TEST(spray_rxwin_ack_due__every_n_timer_and_urgent)
{
	struct spray_rxwin_cfg cfg = { .ack_every = 4, .ack_delay_ns = 100,
				       .reorder_min_ns = 10 };
	struct spray_ack a;

	spray_rxwin_init(&w, 0, &cfg);
	EXPECT(!spray_rxwin_ack_due(&w, 0));
	EXPECT_EQ(spray_rxwin_ack_deadline(&w), 0);
	spray_rxwin_rcv(&w, 0, SPRAY_F_SYN, false, 1, 1, 1000);
	EXPECT(spray_rxwin_ack_due(&w, 1000));		/* first SYN */
	spray_rxwin_build_ack(&w, 1000, &a);
	spray_rxwin_rcv(&w, 1, SPRAY_F_SYN, false, 1, 1, 1001);
	EXPECT(!spray_rxwin_ack_due(&w, 1001));		/* later SYNs: no */
	EXPECT_EQ(spray_rxwin_ack_deadline(&w), 1101);
	EXPECT(spray_rxwin_ack_due(&w, 1101));		/* timer */
	rx(2, 1002);
	rx(3, 1003);
	EXPECT(!spray_rxwin_ack_due(&w, 1003));
	rx(4, 1004);
	EXPECT(spray_rxwin_ack_due(&w, 1004));		/* every 4 */
	spray_rxwin_build_ack(&w, 1004, &a);
	spray_rxwin_rcv(&w, 5, 0, true, 1, 1, 1005);
	EXPECT(spray_rxwin_ack_due(&w, 1005));		/* CE change */
	spray_rxwin_build_ack(&w, 1005, &a);
	spray_rxwin_rcv(&w, 6, 0, true, 1, 1, 1006);
	EXPECT(!spray_rxwin_ack_due(&w, 1006));		/* CE steady */
	spray_rxwin_rcv(&w, 7, SPRAY_F_ACK_REQ, true, 1, 1, 1007);
	EXPECT(spray_rxwin_ack_due(&w, 1007));
}

TEST(spray_rxwin_answering__acks_wait_for_the_answer)
{
	struct spray_rxwin_cfg cfg = { .ack_every = 4, .ack_delay_ns = 100,
				       .reorder_min_ns = 10, .answer_ns = 1000 };
	struct spray_ack a;

	spray_rxwin_init(&w, 0, &cfg);
	EXPECT(!spray_rxwin_ack_pending(&w));
	/* sending before anything arrived answers nothing */
	spray_rxwin_data_sent(&w, 10);
	EXPECT(!w.answering);
	rx(0, 1000);
	EXPECT(spray_rxwin_ack_pending(&w));
	EXPECT_EQ(spray_rxwin_ack_deadline(&w), 1100);	/* not answering */
	/* data sent soon after the arrival: an answer */
	spray_rxwin_data_sent(&w, 1500);
	EXPECT(w.answering);
	spray_rxwin_build_ack(&w, 1500, &a);		/* carried by it */
	EXPECT(!spray_rxwin_ack_pending(&w));
	rx(1, 3000);
	EXPECT(!spray_rxwin_ack_due(&w, 3100));		/* waits for the answer */
	EXPECT_EQ(spray_rxwin_ack_deadline(&w), 4000);
	EXPECT(spray_rxwin_ack_due(&w, 4000));
	/* counted and urgent ACKs do not wait */
	rx(2, 3001);
	rx(3, 3002);
	rx(4, 3003);
	EXPECT(spray_rxwin_ack_due(&w, 3003));
	EXPECT(!spray_rxwin_ack_timed_out(&w, 3003));
	spray_rxwin_lone_ack(&w, 3003);			/* count: still answering */
	EXPECT(w.answering);
	spray_rxwin_build_ack(&w, 3003, &a);
	/* an ACK for credit (the reader made room) before the delay ran out */
	rx(5, 5000);
	EXPECT(!spray_rxwin_ack_due(&w, 5100));
	EXPECT(!spray_rxwin_ack_timed_out(&w, 5100));
	spray_rxwin_lone_ack(&w, 5100);			/* still answering */
	EXPECT(w.answering);
	spray_rxwin_build_ack(&w, 5100, &a);
	/* no answer came in time: the lone ACK ends the waiting */
	rx(6, 5300);
	EXPECT(spray_rxwin_ack_due(&w, 6300));
	EXPECT(spray_rxwin_ack_timed_out(&w, 6300));
	spray_rxwin_lone_ack(&w, 6300);
	EXPECT(!w.answering);
	spray_rxwin_build_ack(&w, 6300, &a);
	rx(7, 7000);
	EXPECT_EQ(spray_rxwin_ack_deadline(&w), 7100);
	/* data long after the arrival is no answer */
	spray_rxwin_data_sent(&w, 9000);
	EXPECT(!w.answering);
	/* off without answer_ns */
	cfg.answer_ns = 0;
	spray_rxwin_init(&w, 0, &cfg);
	rx(0, 1000);
	spray_rxwin_data_sent(&w, 1001);
	EXPECT(!w.answering);
	EXPECT_EQ(spray_rxwin_ack_deadline(&w), 1100);
}

TEST(spray_rxwin_nack_scan__observed_reordering_widens_window)
{
	struct spray_rxwin_nack out[8];

	spray_rxwin_init(&w, 0, NULL);
	rx(0, 1000);
	rx(2, 1000);
	rx(1, 3001000);			/* an original, 3 ms behind psn 2 */
	EXPECT(w.reo_obs_ns >= 2900000);
	/* a new hole is not NACKed within 1.5 x 3 ms, even with rtt 20 us */
	rx(4, 4000000);
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 4000000 + 4000000, 20000, out, 8),
		  0);
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 4000000 + 9000000, 20000, out, 8),
		  1);
	EXPECT_EQ(out[0].psn, 3);
}

TEST(spray_rxwin_build_ack__every_psn_reported_once_at_least)
{
	struct spray_ack a;
	u32 seen[3] = { 0 }, n = 0, i;
	u32 want[3] = { 10, 100, 180 };

	spray_rxwin_init(&w, 0, NULL);
	rx(100, 1000);
	rx(10, 1000);
	rx(180, 1000);		/* 10 .. 180: more than one 64-psn range */
	while (spray_rxwin_ack_due(&w, 1000000) && n < 8) {
		spray_rxwin_build_ack(&w, 1000000, &a);
		n++;
		for (i = 0; i < 3; i++)
			if (want[i] - a.sack_base < 64 &&
			    (a.sack >> (want[i] - a.sack_base) & 1))
				seen[i]++;
	}
	EXPECT_EQ(n, 3);
	EXPECT(seen[0] && seen[1] && seen[2]);
	EXPECT_EQ(spray_rxwin_ack_due(&w, 1000000), false);
}

TEST(spray_rxwin_nack_scan__waits_for_reorder_window)
{
	struct spray_rxwin_nack out[8];
	u32 n;

	spray_rxwin_init(&w, 0, NULL);		/* reorder_min 10 us */
	rx(0, 1000);
	rx(3, 1000);
	rx(4, 1000);
	rx(8, 2000);
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 5000, 20000, out, 8), 0);
	/* rtt 20 us: reorder window max(5 us, 10 us) */
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 10999, 20000, out, 8), 0);
	n = spray_rxwin_nack_scan(&w, 11000, 20000, out, 8);
	EXPECT_EQ(n, 1);
	EXPECT_EQ(out[0].psn, 1);
	EXPECT_EQ(out[0].count, 2);
	/* snapshot was high = 5 at t=1000: 5..7 not reported yet */
	n = spray_rxwin_nack_scan(&w, 21000, 20000, out, 8);
	EXPECT_EQ(n, 1);
	EXPECT_EQ(out[0].psn, 5);
	EXPECT_EQ(out[0].count, 3);
	/*
	 * Not again before rtt + reorder, doubled: the second report found
	 * cum where the first left it (backoff 1).
	 */
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 60000, 20000, out, 8), 0);
	EXPECT_EQ(spray_rxwin_nack_deadline(&w, 20000), 21000 + 2 * 30000);
	n = spray_rxwin_nack_scan(&w, 81000, 20000, out, 8);
	EXPECT_EQ(n, 2);
	EXPECT_EQ(out[0].psn, 1);
	EXPECT_EQ(out[1].psn, 5);
	EXPECT_EQ(w.nacks, 4);
	/* a sender that never answers draws ever fewer NACKs */
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 81000 + 4 * 30000 - 1, 20000,
					out, 8), 0);
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 81000 + 4 * 30000, 20000, out, 8),
		  2);
	/* progress resets the backoff */
	spray_rxwin_rcv(&w, 1, SPRAY_F_RETX, false, 300000, 7, 300000);
	spray_rxwin_rcv(&w, 2, SPRAY_F_RETX, false, 300000, 7, 300000);
	EXPECT_EQ(w.cum, 5);
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 400000, 20000, out, 8), 1);
	EXPECT_EQ(w.nack_shift, 0);
	EXPECT_EQ(spray_rxwin_nack_deadline(&w, 20000), 400000 + 30000);
}

TEST(spray_rxwin_nack_scan__fill_clears)
{
	struct spray_rxwin_nack out[8];

	spray_rxwin_init(&w, 0, NULL);
	rx(1, 0);
	rx(0, 5);
	EXPECT(!w.snap_valid);
	EXPECT_EQ(spray_rxwin_nack_scan(&w, 1000000, 0, out, 8), 0);
}

TEST(spray_rxwin_nack_scan__long_hole_split)
{
	struct spray_rxwin_nack out[8];
	u32 n;

	spray_rxwin_init(&w, 0, NULL);
	rx(200, 1);
	n = spray_rxwin_nack_scan(&w, 20000, 0, out, 2);
	EXPECT_EQ(n, 2);
	EXPECT_EQ(out[0].psn, 0);
	EXPECT_EQ(out[0].count, 64);
	EXPECT_EQ(out[1].psn, 64);
	EXPECT_EQ(out[1].count, 64);
	/* the rest next time, not the runs already reported */
	n = spray_rxwin_nack_scan(&w, 20001, 0, out, 8);
	EXPECT_EQ(n, 2);
	EXPECT_EQ(out[0].psn, 128);
	EXPECT_EQ(out[1].psn, 192);
	EXPECT_EQ(out[1].count, 8);
}

/*
 * A run of psns that extends the window (a train's followers) leaves the
 * window exactly as the same packets one by one: from states reached by
 * random arrivals (holes, reordering, CE changes, ACKs and NACK scans in
 * between), runs in order and above holes, with and without CE.
 */
TEST(spray_rxwin_rcv_run__same_as_psn_by_psn)
{
	static struct spray_rxwin a, b;
	u32 rng = 7, isn = 0xffffff00, i, k, n, psn, runs = 0, holes = 0;
	struct spray_rxwin_nack nk[4];
	struct spray_ack ack;
	u64 now = 1000;
	bool ce;

	spray_rxwin_init(&w, isn, NULL);
	for (i = 0; i < 20000; i++) {
		now += 1 + spray_prng_below(&rng, 3000);
		ce = spray_prng_below(&rng, 8) == 0;
		switch (spray_prng_below(&rng, 8)) {
		case 0:
			/* every hole filled: the window in order again */
			for (psn = w.cum; psn != w.high; psn++)
				if (!spray_rxwin_received(&w, psn))
					spray_rxwin_rcv(&w, psn, SPRAY_F_RETX,
							ce, now, 3, now);
			break;
		case 1:
			/* a hole filled, a psn out of order, an old one */
			psn = w.cum;
			if (spray_prng_below(&rng, 3) == 0)
				psn += spray_prng_below(&rng, 200);
			if (spray_prng_below(&rng, 8) == 0)
				psn -= 100;
			spray_rxwin_rcv(&w, psn, SPRAY_F_RETX, ce, now, 3,
					now);
			continue;
		case 2:
			spray_rxwin_build_ack(&w, now, &ack);
			continue;
		case 3:
			spray_rxwin_nack_scan(&w, now, 50000, nk,
					      ARRAY_SIZE(nk));
			continue;
		default:
			break;
		}
		/* a train's followers: from high, or a little beyond it */
		n = 1 + spray_prng_below(&rng, 24);
		psn = w.high;
		if (spray_prng_below(&rng, 6) == 0)
			psn += spray_prng_below(&rng, 20);
		if (psn + n - 1 - w.cum >= SPRAY_RXWIN_BITS) {
			/* beyond the window: refused, nothing changes */
			a = w;
			EXPECT_EQ(spray_rxwin_rcv_run(&w, psn, n, 0, ce, now,
						      5, now),
				  -SPRAY_DROP_WINDOW);
			EXPECT(!memcmp(&a, &w, sizeof(w)));
			spray_rxwin_build_ack(&w, now, &ack);
			spray_rxwin_rcv(&w, w.cum, SPRAY_F_RETX, ce, now, 3,
					now);
			continue;
		}
		a = w;
		b = w;
		EXPECT_EQ(spray_rxwin_rcv_run(&a, psn, n, SPRAY_F_ACK_REQ *
					      (n == 3), ce, now - 5, 9, now),
			  0);
		for (k = 0; k < n; k++)
			EXPECT_EQ(spray_rxwin_rcv(&b, psn + k,
						  SPRAY_F_ACK_REQ * (n == 3),
						  ce, now - 5, 9, now), 0);
		EXPECT(!memcmp(&a, &b, sizeof(a)));
		EXPECT_OK();
		holes += a.cum != a.high;
		runs++;
		w = a;
	}
	/* both kinds of run were tried, many times */
	fprintf(stderr, "#   %u runs, %u above a hole\n", runs, holes);
	EXPECT(runs > 5000);
	EXPECT(holes > 1000);
	EXPECT(runs - holes > 1000);
	/* a run that does not extend the window is refused as a whole */
	a = w;
	EXPECT_EQ(spray_rxwin_rcv_run(&w, w.high - 1, 2, 0, false, now, 5, now),
		  -SPRAY_DROP_WINDOW);
	EXPECT_EQ(spray_rxwin_rcv_run(&w, w.high, 0, 0, false, now, 5, now),
		  -SPRAY_DROP_WINDOW);
	EXPECT(!memcmp(&a, &w, sizeof(w)));
}

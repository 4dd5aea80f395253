// SPDX-License-Identifier: GPL-2.0
#include "txwin.h"
#include "test.h"

static struct spray_txrec ring[64];
static struct spray_txwin tw;
static struct spray_txwin_cfg cfg;

static struct {
	u32 acked[256], nacked, ce;
	u32 lost[256], nlost, why[SPRAY_LOSS_REFUSED + 1];
	u32 failed, failed_psn;
} ev;

static void on_acked(void *ctx, u32 psn, const struct spray_txrec *rec,
		     bool ce)
{
	(void)ctx;
	(void)rec;
	if (ev.nacked < 256)
		ev.acked[ev.nacked++] = psn;
	ev.ce += ce;
}

static void on_lost(void *ctx, u32 psn, const struct spray_txrec *rec,
		    enum spray_loss_why why)
{
	(void)ctx;
	(void)rec;
	if (ev.nlost < 256)
		ev.lost[ev.nlost++] = psn;
	ev.why[why]++;
}

static void on_failed(void *ctx, u32 psn, const struct spray_txrec *rec)
{
	(void)ctx;
	(void)rec;
	ev.failed++;
	ev.failed_psn = psn;
}

static const struct spray_txwin_ops ops = {
	.acked = on_acked, .lost = on_lost, .failed = on_failed,
};

static void setup(u32 isn)
{
	memset(&ev, 0, sizeof(ev));
	spray_txwin_cfg_default(&cfg);
	cfg.rto_min_ns = 100000;
	cfg.rto_init_ns = 100000;
	cfg.reorder_min_ns = 10000;
	cfg.max_retx = 3;
	spray_txwin_init(&tw, ring, 64, isn, isn + 1000, &cfg);
}

static void send_n(u32 n, u64 now)
{
	while (n--)
		spray_txwin_send_new(&tw, now, (u16)(tw.nxt % 8), 1,
				     0, 1000, NULL);
}

static int ack(u32 cum, u32 base, u64 sack, u64 ecn, u64 ts, u64 now,
	       struct spray_txack_sum *s)
{
	struct spray_ack a = {
		.cum_psn = cum, .sack_base = base, .sack = sack, .ecn = ecn,
		.ts_echo = ts, .grant_psn = 0,
	};

	return spray_txwin_on_ack(&tw, &a, now, &ops, NULL, s);
}

TEST(spray_txwin_init__rejects_bad_ring)
{
	EXPECT_EQ(spray_txwin_init(&tw, ring, 48, 0, 0, NULL), -EINVAL);
	EXPECT_EQ(spray_txwin_init(&tw, ring, 0, 0, 0, NULL), -EINVAL);
	EXPECT_EQ(spray_txwin_init(&tw, NULL, 64, 0, 0, NULL), -EINVAL);
	EXPECT_EQ(spray_txwin_init(&tw, ring, 64, 0, 0, NULL), 0);
}

TEST(spray_txwin_room__min_of_cwnd_grant_ring)
{
	setup(0xfffffff0);
	EXPECT_EQ(spray_txwin_room(&tw, 10), 10);
	EXPECT_EQ(spray_txwin_room(&tw, 1000), 64);	/* ring */
	tw.grant = 0xfffffff0 + 5;
	EXPECT_EQ(spray_txwin_room(&tw, 1000), 5);	/* grant */
	send_n(5, 1);
	EXPECT_EQ(spray_txwin_room(&tw, 1000), 0);
	EXPECT_EQ(spray_txwin_room(&tw, 3), 0);
	tw.grant = 0xfffffff0 + 1000;			/* wraps past 0 */
	EXPECT_EQ(spray_txwin_room(&tw, 8), 3);		/* cwnd */
	EXPECT_EQ(tw.nxt, 0xfffffff5);
}

TEST(spray_txwin_on_ack__cum_and_sack_each_once)
{
	struct spray_txack_sum s;

	setup(0xfffffffc);				/* wraps */
	send_n(10, 1000);
	/* cum 2 (4 psns), sack psn 3 and 5 (base = 0xfffffffc + 5) */
	EXPECT_EQ(ack(0xfffffffe, 0xfffffffc, 0x28, 0x20, 0, 2000, &s), 0);
	EXPECT_EQ(s.pkts, 4);
	EXPECT_EQ(s.ce_pkts, 1);
	EXPECT(s.cum_advanced);
	EXPECT_EQ(tw.una, 0xfffffffe);
	EXPECT_EQ(tw.inflight, 6);
	EXPECT_EQ(tw.sacked, 2);
	/* same ACK again: nothing new */
	EXPECT_EQ(ack(0xfffffffe, 0xfffffffc, 0x28, 0x20, 0, 2001, &s), 0);
	EXPECT_EQ(s.pkts, 0);
	EXPECT_EQ(ev.nacked, 4);
	/* cum over sacked psns reports only the others */
	EXPECT_EQ(ack(0xfffffffc + 6, 0, 0, 0, 0, 2002, &s), 0);
	EXPECT_EQ(s.pkts, 2);
	EXPECT_EQ(tw.sacked, 0);
	EXPECT_EQ(tw.inflight, 4);
	EXPECT_EQ(ev.nacked, 6);
	EXPECT_EQ(ev.ce, 1);
}

TEST(spray_txwin_on_ack__sack_range_below_una_skipped)
{
	struct spray_txack_sum s;

	setup(0xfffffff0);				/* the range wraps */
	send_n(40, 1000);
	/*
	 * Every bit of the range set, as a receiver's range below cum is:
	 * psns 0..19 acked by cum, 20..39 by the SACK, 40..63 never sent
	 */
	EXPECT_EQ(ack(0xfffffff0 + 20, 0xfffffff0, ~0ULL, 0, 0, 2000, &s), 0);
	EXPECT_EQ(s.pkts, 40);
	EXPECT_EQ(tw.una, 0xfffffff0 + 20);
	EXPECT_EQ(tw.inflight, 0);
	EXPECT_EQ(tw.sacked, 20);
	EXPECT_EQ(ev.nacked, 40);
	/* the same range once cum passed all of it: nothing twice */
	EXPECT_EQ(ack(0xfffffff0 + 40, 0xfffffff0, ~0ULL, 0, 0, 2001, &s), 0);
	EXPECT_EQ(s.pkts, 0);
	EXPECT_EQ(tw.sacked, 0);
	EXPECT_EQ(ev.nacked, 40);
}

TEST(spray_txwin_on_ack__rejects_unsent_and_old_cum)
{
	struct spray_txack_sum s;

	setup(100);
	send_n(4, 1);
	EXPECT_EQ(ack(105, 100, 0, 0, 0, 2, &s), -EINVAL);
	EXPECT_EQ(tw.bad_acks, 1);
	EXPECT_EQ(ack(104, 100, 0, 0, 0, 2, &s), 0);
	EXPECT_EQ(ack(102, 102, 3, 0, 0, 3, &s), 0);	/* reordered ACK */
	EXPECT_EQ(s.pkts, 0);
	EXPECT_EQ(tw.una, 104);
}

TEST(spray_txwin_on_ack__rtt_sample_excludes_hold)
{
	struct spray_ack a = { .cum_psn = 11, .sack_base = 0,
			       .ts_echo = 1000, .hold_ns = 3000 };
	struct spray_txack_sum s;

	setup(10);
	send_n(1, 1000);
	EXPECT_EQ(spray_txwin_on_ack(&tw, &a, 21000, &ops, NULL, &s), 0);
	EXPECT_EQ(s.rtt_ns, 17000);
	EXPECT_EQ(tw.srtt_ns, 17000);
	EXPECT_EQ(tw.min_rtt_ns, 17000);
	EXPECT_EQ(tw.rto_ns, 100000);			/* floor */
}

TEST(spray_txwin_on_ack__grant_only_grows)
{
	struct spray_ack a = { .cum_psn = 10, .grant_psn = 2000 };
	struct spray_txack_sum s;

	setup(10);
	spray_txwin_on_ack(&tw, &a, 1, &ops, NULL, &s);
	EXPECT_EQ(tw.grant, 2000);
	a.grant_psn = 1500;
	spray_txwin_on_ack(&tw, &a, 2, &ops, NULL, &s);
	EXPECT_EQ(tw.grant, 2000);
	a.grant_psn = 10 + SPRAY_TX_GRANT_MAX + 1;	/* bogus */
	spray_txwin_on_ack(&tw, &a, 3, &ops, NULL, &s);
	EXPECT_EQ(tw.grant, 2000);
}

TEST(spray_txwin_detect_loss__rack_after_reorder_window)
{
	struct spray_txack_sum s;
	u64 next;

	setup(0);
	send_n(4, 1000);				/* 0..3 at t=1000 */
	send_n(4, 2000);				/* 4..7 at t=2000 */
	/* psn 5 acked at 22000 (rtt 20 us): 0..3 older, not lost yet */
	EXPECT_EQ(ack(0, 5, 1, 0, 2000, 22000, &s), 0);
	EXPECT_EQ(ev.nlost, 0);
	next = spray_txwin_detect_loss(&tw, 22000, &ops, NULL);
	/*
	 * Overtaken on other EVs only: srtt 20 us + reorder 10 us, but at
	 * least 2 srtt.
	 */
	EXPECT_EQ(next, 1000 + 40000);
	EXPECT_EQ(spray_txwin_detect_loss(&tw, 40999, &ops, NULL), next);
	EXPECT_EQ(ev.nlost, 0);
	spray_txwin_detect_loss(&tw, 41000, &ops, NULL);
	EXPECT_EQ(ev.nlost, 4);
	EXPECT_EQ(ev.why[SPRAY_LOSS_RACK], 4);
	EXPECT_EQ(tw.lost, 4);
	/*
	 * 4 (sent with 5, before it) becomes lost at 42000; 6 and 7, sent
	 * in the same burst after 5, are not overtaken: no evidence.
	 */
	spray_txwin_detect_loss(&tw, 42000, &ops, NULL);
	EXPECT_EQ(ev.nlost, 5);
	EXPECT_EQ(ev.lost[4], 4);
	EXPECT_EQ(tw.inflight, 2);
	spray_txwin_detect_loss(&tw, 100000, &ops, NULL);
	EXPECT_EQ(ev.nlost, 5);
}

TEST(spray_txwin_detect_loss__overtaken_on_its_own_ev_is_lost_sooner)
{
	struct spray_txack_sum s;

	setup(0);
	spray_txwin_send_new(&tw, 1000, 3, 1, 0, 1000, NULL);	/* psn 0, EV 3 */
	spray_txwin_send_new(&tw, 2000, 3, 1, 0, 1000, NULL);	/* psn 1, EV 3 */
	EXPECT_EQ(ack(0, 1, 1, 0, 2000, 22000, &s), 0);	/* psn 1 acked */
	/* one EV is one FIFO path: srtt 20 us + reorder 10 us is enough */
	EXPECT_EQ(spray_txwin_detect_loss(&tw, 30999, &ops, NULL),
		  1000 + 30000);
	EXPECT_EQ(ev.nlost, 0);
	spray_txwin_detect_loss(&tw, 31000, &ops, NULL);
	EXPECT_EQ(ev.nlost, 1);
}

TEST(spray_txwin_next_retx__lowest_lost_then_reacked)
{
	struct spray_txack_sum s;
	u32 psn;

	setup(0);
	send_n(4, 1000);
	send_n(1, 50000);
	EXPECT_EQ(ack(0, 4, 1, 0, 50000, 60000, &s), 0);
	EXPECT(spray_txwin_detect_loss(&tw, 200000, &ops, NULL) == 0);
	EXPECT_EQ(tw.lost, 4);
	EXPECT(spray_txwin_next_retx(&tw, &psn));
	EXPECT_EQ(psn, 0);
	spray_txwin_sent_retx(&tw, 0, 3, 200000);
	EXPECT_EQ(tw.ring[0].retx, 1);
	EXPECT_EQ(tw.ring[0].ev, 3);
	EXPECT(spray_txwin_next_retx(&tw, &psn));
	EXPECT_EQ(psn, 1);
	/* the original of psn 2 arrives after all: spurious */
	EXPECT_EQ(ack(0, 2, 1, 0, 0, 200001, &s), 0);
	EXPECT_EQ(tw.spurious, 1);
	EXPECT_EQ(tw.lost, 2);
	EXPECT_EQ(tw.retx, 1);
}

TEST(spray_txwin_on_nack__marks_lost_with_guard)
{
	struct spray_txack_sum s;
	int n;

	setup(0);
	send_n(2, 1000);
	send_n(6, 2000);	/* after what gets acked: no RACK */
	EXPECT_EQ(ack(2, 2, 0, 0, 1000, 11000, &s), 0);	/* min_rtt 10 us */
	/* lost only once srtt + reorder window (10 + 10 us) have passed */
	n = spray_txwin_on_nack(&tw, 2, 3, SPRAY_NACK_LOSS, 2, 1500, 15000,
				&ops, NULL);
	EXPECT_EQ(n, 0);
	n = spray_txwin_on_nack(&tw, 2, 3, SPRAY_NACK_LOSS, 2, 1500, 25000,
				&ops, NULL);
	EXPECT_EQ(n, 3);
	EXPECT_EQ(tw.grant, 1500);
	EXPECT_EQ(ev.why[SPRAY_LOSS_NACK], 3);
	spray_txwin_sent_retx(&tw, 2, 1, 26000);
	/* a NACK about the old transmission must not kill the retx */
	n = spray_txwin_on_nack(&tw, 2, 1, SPRAY_NACK_LOSS, 2, 500, 27000,
				&ops, NULL);
	EXPECT_EQ(n, 0);
	EXPECT_EQ(spray_txwin_on_nack(&tw, 2, 1, SPRAY_NACK_NO_CONN, 2, 500,
				      17000, &ops, NULL), -ECONNRESET);
	EXPECT_EQ(spray_txwin_on_nack(&tw, 7, 2, SPRAY_NACK_LOSS, 2, 500,
				      17000, &ops, NULL), -EINVAL);
}

/* fire the RTO until @psn is declared lost (or the window failed) */
static u64 rto_until_lost(u32 psn, u64 t)
{
	int k;

	for (k = 0; k < 8 && !tw.failed &&
	     spray_txwin_rec(&tw, psn)->state != SPRAY_TXREC_LOST &&
	     spray_txwin_rec(&tw, psn)->state != SPRAY_TXREC_FAILED; k++) {
		t = spray_txwin_rto_deadline(&tw);
		spray_txwin_on_rto(&tw, t, &ops, NULL);
	}
	return t;
}

TEST(spray_txwin_on_nack__refusal_waits_for_room_and_spends_no_retry)
{
	struct spray_txack_sum s;
	struct spray_ack a = {};
	u32 i;
	u64 t;

	setup(0);
	send_n(4, 1000);
	EXPECT_EQ(ack(0, 0, 0, 0, 1000, 11000, &s), 0);	/* srtt 10 us */
	/* psns 1 and 2 refused (no buffer): nothing declared lost */
	EXPECT_EQ(spray_txwin_on_nack(&tw, 1, 2, SPRAY_NACK_NO_BUF, 0, 1000,
				      12000, &ops, NULL), 0);
	EXPECT_EQ(ev.nlost, 0);
	EXPECT_EQ(tw.refusals, 2);
	/* not in flight: a window of 2 has room for what the receiver takes */
	EXPECT_EQ(tw.inflight, 2);
	EXPECT_EQ(tw.refused, 2);
	EXPECT_EQ(spray_txwin_room(&tw, 4), 2);
	/* psn 3 arrives: RACK finds psn 0 lost, not the refused ones */
	EXPECT_EQ(ack(0, 0, 1ULL << 3, 0, 0, 500000, &s), 0);
	EXPECT_EQ(ev.why[SPRAY_LOSS_RACK], 1);
	EXPECT_EQ(ev.lost[0], 0);
	EXPECT_EQ(tw.inflight, 0);
	EXPECT_EQ(tw.refused, 2);
	/* an ACK with no more room releases nothing */
	a.cum_psn = 0;
	a.sack_base = 0;
	a.grant_psn = 1000;
	EXPECT_EQ(spray_txwin_on_ack(&tw, &a, 501000, &ops, NULL, &s), 0);
	EXPECT_EQ(ev.why[SPRAY_LOSS_REFUSED], 0);
	/* the receiver read: its grant moves, the refused go again */
	a.grant_psn = 1010;
	EXPECT_EQ(spray_txwin_on_ack(&tw, &a, 502000, &ops, NULL, &s), 0);
	EXPECT_EQ(ev.why[SPRAY_LOSS_REFUSED], 2);
	EXPECT_EQ(tw.lost, 3);
	EXPECT_EQ(tw.refused, 0);
	EXPECT_EQ(ev.why[SPRAY_LOSS_RTO] + ev.why[SPRAY_LOSS_NACK], 0);

	/*
	 * A receiver that does not read refuses psn 1 again and again, far
	 * more often than the retry limit (3): it waits, it does not fail.
	 */
	t = 600000;
	for (i = 0; i < 3 * cfg.max_retx; i++) {
		spray_txwin_sent_retx(&tw, 1, 2, t);
		EXPECT_EQ(spray_txwin_on_nack(&tw, 1, 1, SPRAY_NACK_WINDOW, 0,
					      1010, t + 10000, &ops, NULL), 0);
		t = rto_until_lost(1, t);
		EXPECT_EQ(spray_txwin_rec(&tw, 1)->state, SPRAY_TXREC_LOST);
	}
	EXPECT_EQ(ev.failed, 0);
	EXPECT(!tw.failed);
	EXPECT_EQ(ev.why[SPRAY_LOSS_RTO], 0);
	EXPECT_EQ(ev.why[SPRAY_LOSS_REFUSED], 2 + 3 * cfg.max_retx);
	/* while a lost one is lost for good after 3 retransmissions */
	for (i = 0; i <= cfg.max_retx && !tw.failed; i++) {
		spray_txwin_sent_retx(&tw, 0, 2, t);
		t = rto_until_lost(0, t);
	}
	EXPECT_EQ(ev.failed, 1);
	EXPECT_EQ(ev.failed_psn, 0);
}

TEST(spray_txwin_on_rto__refused_psns_come_round_in_turn)
{
	u64 t;
	u32 i;

	setup(0);
	send_n(8, 1000);
	EXPECT_EQ(spray_txwin_on_nack(&tw, 0, 8, SPRAY_NACK_NO_BUF, 0, 1000,
				      2000, &ops, NULL), 0);
	EXPECT_EQ(tw.refused, 8);
	t = spray_txwin_rto_deadline(&tw);
	EXPECT_EQ(spray_txwin_on_rto(&tw, t, &ops, NULL), SPRAY_TX_RTO_BURST);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(ev.lost[i], i);
		spray_txwin_sent_retx(&tw, i, 1, t);
	}
	/* refused again; the next expiry takes the four not resent yet */
	EXPECT_EQ(spray_txwin_on_nack(&tw, 0, 4, SPRAY_NACK_NO_BUF, 0, 1000,
				      t + 1000, &ops, NULL), 0);
	t = spray_txwin_rto_deadline(&tw);
	EXPECT_EQ(spray_txwin_on_rto(&tw, t, &ops, NULL), SPRAY_TX_RTO_BURST);
	for (i = 4; i < 8; i++)
		EXPECT_EQ(ev.lost[i], i);
	EXPECT_EQ(ev.why[SPRAY_LOSS_REFUSED], 8);
}

TEST(spray_txwin_on_ack__duplicate_echo_widens_reorder_window)
{
	struct spray_txack_sum s;
	struct spray_ack a;

	setup(0);
	send_n(4, 1000);
	EXPECT_EQ(ack(1, 1, 0, 0, 1000, 11000, &s), 0);
	spray_txwin_rec(&tw, 1)->retx = 1;	/* psn 1 was resent */
	EXPECT_EQ(tw.reo_mult, 1);
	/* psn 1's original arrives; then its retransmission, a duplicate */
	EXPECT_EQ(ack(2, 2, 0, 0, 1000, 13000, &s), 0);
	memset(&a, 0, sizeof(a));
	a.cum_psn = 2;
	a.sack_base = 2;
	a.echo_psn = 1;
	a.ts_echo = 12000;
	EXPECT_EQ(spray_txwin_on_ack(&tw, &a, 14000, &ops, NULL, &s), 0);
	EXPECT_EQ(tw.reo_mult, 2);
	EXPECT_EQ(tw.spurious, 1);
}

TEST(spray_txwin_on_ack__late_packet_widens_reorder_window)
{
	struct spray_txack_sum s;

	setup(0);
	send_n(1, 1000);			/* psn 0 */
	send_n(1, 2000);			/* psn 1 */
	EXPECT_EQ(ack(0, 0, 2, 0, 2000, 12000, &s), 0);	/* psn 1 first */
	EXPECT_EQ(tw.reo_obs_ns, 0);
	/* psn 0 arrives 5 ms after srtt (10 us) would have it: observed */
	EXPECT_EQ(ack(2, 2, 0, 0, 2000, 5011000, &s), 0);
	EXPECT(tw.reo_obs_ns >= 4900000);
}

TEST(spray_txwin_on_rto__backoff_doubles_and_resets)
{
	struct spray_txack_sum s;
	u64 d;

	setup(0);
	EXPECT_EQ(spray_txwin_rto_deadline(&tw), 0);
	send_n(2, 1000);
	d = spray_txwin_rto_deadline(&tw);
	EXPECT_EQ(d, 1000 + 100000);
	EXPECT_EQ(spray_txwin_on_rto(&tw, d - 1, &ops, NULL), 0);
	EXPECT_EQ(spray_txwin_on_rto(&tw, d, &ops, NULL), 2);
	EXPECT_EQ(ev.why[SPRAY_LOSS_RTO], 2);
	EXPECT_EQ(tw.backoff, 1);
	EXPECT_EQ(spray_txwin_rto_deadline(&tw), d + 200000);
	spray_txwin_sent_retx(&tw, 0, 1, d + 1);
	spray_txwin_on_rto(&tw, d + 200000, &ops, NULL);
	EXPECT_EQ(tw.backoff, 2);
	EXPECT_EQ(spray_txwin_rto_deadline(&tw), d + 200000 + 400000);
	/* progress resets the backoff */
	EXPECT_EQ(ack(1, 0, 0, 0, 0, d + 300000, &s), 0);
	EXPECT_EQ(tw.backoff, 0);
	EXPECT_EQ(spray_txwin_rto_deadline(&tw), d + 300000 + 100000);
}

TEST(spray_txwin_answer_probed__period_again_nothing_lost)
{
	u64 d;

	setup(0);
	send_n(2, 1000);
	d = spray_txwin_rto_deadline(&tw);
	/* the expiry asked for the ACK instead: nothing lost, no backoff */
	spray_txwin_answer_probed(&tw, d);
	EXPECT_EQ(ev.why[SPRAY_LOSS_RTO], 0);
	EXPECT_EQ(tw.backoff, 0);
	EXPECT_EQ(tw.inflight, 2);
	EXPECT_EQ(spray_txwin_rto_deadline(&tw), d + 100000);
	/* the next expiry is an RTO's, with its backoff */
	EXPECT_EQ(spray_txwin_on_rto(&tw, d + 100000, &ops, NULL), 2);
	EXPECT_EQ(tw.backoff, 1);
}

TEST(spray_txwin_probe_unanswered__lost_a_round_trip_after_the_expiry)
{
	u64 d;

	setup(0);
	send_n(2, 1000);
	d = spray_txwin_rto_deadline(&tw);
	spray_txwin_answer_probed(&tw, d);
	/* the probe's ACK, 30 us later, acknowledged nothing: lost now */
	EXPECT_EQ(spray_txwin_probe_unanswered(&tw, d + 30000, &ops, NULL), 2);
	EXPECT_EQ(ev.why[SPRAY_LOSS_RTO], 2);
	EXPECT_EQ(tw.backoff, 1);
	EXPECT_EQ(spray_txwin_rto_deadline(&tw), d + 30000 + 200000);
}

/* an ACK echoing @echo_psn's transmission of @ts, held @hold ns */
static void ack_echo(u32 cum, u32 echo_psn, u64 ts, u32 hold, u64 now)
{
	struct spray_ack a = {
		.cum_psn = cum, .sack_base = cum, .ts_echo = ts,
		.hold_ns = hold, .echo_psn = echo_psn,
	};
	struct spray_txack_sum s;

	spray_txwin_on_ack(&tw, &a, now, &ops, NULL, &s);
}

/*
 * An RTO fired while nothing was lost: the echo of the first transmission
 * (RFC 3522) shows the round trip it took; the RTO's floor rises to 5/4
 * of it, stays while RTT samples are small, and loses an eighth after
 * each second without another spurious RTO, down to cfg.rto_min_ns.
 */
TEST(spray_txwin_on_rto__spurious_rto_raises_floor)
{
	u64 d, t;
	u32 f;
	int i;

	setup(0);
	send_n(2, 1000);
	d = spray_txwin_rto_deadline(&tw);
	EXPECT_EQ(spray_txwin_on_rto(&tw, d, &ops, NULL), 2);
	spray_txwin_sent_retx(&tw, 0, 1, d + 1);
	/* psn 0's first transmission arrives: 500 us, 10 us of it held */
	ack_echo(1, 0, 1000, 10000, 1000 + 510000);
	EXPECT_EQ(tw.rto_floor_ns, 500000 * 5 / 4);
	EXPECT(tw.rto_ns >= 500000 * 5 / 4);
	/*
	 * psn 1, LOST and not resent yet, arrives after 609 us: the floor
	 * rises to that; the small sample of psn 2 leaves it
	 */
	send_n(1, 600000);
	ack_echo(3, 2, 600000, 0, 610000);
	EXPECT_EQ(tw.rto_floor_ns, 609000 * 5 / 4);
	EXPECT(tw.rto_ns >= 609000 * 5 / 4);
	/*
	 * Each second without a spurious RTO: an eighth lower, the RTO not
	 * below it; below half after 6 s; gone once at rto_min
	 */
	f = 609000 * 5 / 4;
	t = 610000;
	for (i = 0; i < 30 && tw.rto_floor_ns; i++) {
		t += 1010000000;
		send_n(1, t);
		ack_echo(tw.nxt, tw.nxt - 1, t, 0, t + 10000);
		f -= f / 8;
		if (f <= cfg.rto_min_ns)
			f = 0;
		EXPECT_EQ(tw.rto_floor_ns, f);
		EXPECT(tw.rto_ns >= f);
		if (i == 5)
			EXPECT(f < 609000 * 5 / 8);
	}
	EXPECT(i > 10 && i < 20);	/* 16 steps from 761 us to 100 us */
	EXPECT_EQ(tw.rto_floor_ns, 0);
	EXPECT_EQ(tw.rto_ns, tw.srtt_ns + 4 * tw.rttvar_ns > cfg.rto_min_ns ?
		  tw.srtt_ns + 4 * tw.rttvar_ns : cfg.rto_min_ns);
}

/*
 * Delivered while still LOST (its retransmission not sent yet): its round
 * trip is known from its send time.
 */
TEST(spray_txwin_on_rto__spurious_before_resend)
{
	u64 d;

	setup(0);
	send_n(1, 1000);
	d = spray_txwin_rto_deadline(&tw);
	EXPECT_EQ(spray_txwin_on_rto(&tw, d, &ops, NULL), 1);
	ack_echo(1, 0, 1000, 0, 1000 + 400000);
	EXPECT_EQ(tw.spurious, 1);
	EXPECT_EQ(tw.rto_floor_ns, 500000);
}

/*
 * The retransmission's duplicate tells that the RTO was early without the
 * round trip: twice the RTO; a retransmission that was needed (its own
 * echo) changes nothing.
 */
TEST(spray_txwin_on_rto__duplicate_doubles_floor_real_loss_not)
{
	u64 d;

	setup(0);
	send_n(1, 1000);
	d = spray_txwin_rto_deadline(&tw);
	spray_txwin_on_rto(&tw, d, &ops, NULL);
	spray_txwin_sent_retx(&tw, 0, 1, d);
	/* the ACK of the first transmission echoes another psn */
	ack_echo(1, 7, 0, 0, d + 50000);
	EXPECT_EQ(tw.rto_floor_ns, 0);
	/* then the retransmission arrives, a duplicate */
	ack_echo(1, 0, d, 0, d + 60000);
	EXPECT_EQ(tw.rto_floor_ns, 2 * 100000);
	EXPECT_EQ(tw.rto_ns, 2 * 100000);

	/* a real loss: the retransmission's echo is its own */
	setup(0);
	send_n(1, 1000);
	d = spray_txwin_rto_deadline(&tw);
	spray_txwin_on_rto(&tw, d, &ops, NULL);
	spray_txwin_sent_retx(&tw, 0, 1, d);
	ack_echo(1, 0, d, 0, d + 20000);
	EXPECT_EQ(tw.rto_floor_ns, 0);
	EXPECT_EQ(tw.rto_ns, cfg.rto_min_ns);
}

TEST(spray_txwin_on_rto__backoff_capped)
{
	u64 now = 1000;
	int i;

	setup(0);
	cfg.rto_max_ns = 1000000;
	spray_txwin_init(&tw, ring, 64, 0, 100, &cfg);
	send_n(1, now);
	for (i = 0; i < 40; i++) {
		now = spray_txwin_rto_deadline(&tw);
		spray_txwin_on_rto(&tw, now, &ops, NULL);
		if (tw.lost)
			spray_txwin_sent_retx(&tw, 0, 0, now);
		tw.ring[0].retx = 0;			/* no retry limit */
	}
	EXPECT_EQ(spray_txwin_rto_deadline(&tw) - now, 1000000);
}

/*
 * RTTs above the ceiling (deep queues on a slow or long fabric): the RTO
 * follows the RTT, else it would fire before any ACK can come.
 */
TEST(spray_txwin_rto__not_below_rtt_above_ceiling)
{
	struct spray_txack_sum s;
	struct spray_ack a = { 0 };
	u64 now = 1000;
	u32 psn;

	setup(0);
	cfg.rto_max_ns = 100000000;			/* 100 ms */
	spray_txwin_init(&tw, ring, 64, 0, 100, &cfg);
	for (psn = 0; psn < 8; psn++) {
		send_n(1, now);
		a.cum_psn = psn + 1;
		a.ts_echo = (u32)now;
		now += 300000000;			/* 300 ms RTT */
		spray_txwin_on_ack(&tw, &a, now, &ops, NULL, &s);
	}
	EXPECT(tw.srtt_ns >= 290000000);
	EXPECT(tw.rto_ns >= tw.srtt_ns);
	send_n(1, now);
	EXPECT(spray_txwin_rto_deadline(&tw) - now >= tw.srtt_ns);
	/* nothing is declared lost before an RTT has passed */
	EXPECT_EQ(spray_txwin_on_rto(&tw, now + 200000000, &ops, NULL), 0);
}

TEST(spray_txwin_retry_limit__fails_connection)
{
	u64 now = 1000;
	u32 psn;
	int i;

	setup(0);
	send_n(1, now);
	for (i = 0; i < 10 && !tw.failed; i++) {
		now = spray_txwin_rto_deadline(&tw);
		spray_txwin_on_rto(&tw, now, &ops, NULL);
		if (spray_txwin_next_retx(&tw, &psn))
			spray_txwin_sent_retx(&tw, psn, 0, now);
	}
	EXPECT(tw.failed);
	EXPECT_EQ(ev.failed, 1);
	EXPECT_EQ(ev.failed_psn, 0);
	EXPECT_EQ(tw.retx, cfg.max_retx);
	EXPECT_EQ(spray_txwin_room(&tw, 100), 0);
}

TEST(spray_txwin_persist__probe_only_when_grant_stops_and_nothing_out)
{
	struct spray_txack_sum s;
	u64 t;

	setup(0);
	tw.grant = 2;
	send_n(2, 1000);
	EXPECT_EQ(spray_txwin_room(&tw, 100), 0);
	/* something in flight: the RTO runs, not the persist timer */
	EXPECT_EQ(spray_txwin_persist_deadline(&tw), 0);
	/* all acknowledged, the grant does not move (its ACK was lost) */
	EXPECT_EQ(ack(2, 0, 0, 0, 1000, 11000, &s), 0);
	t = spray_txwin_persist_deadline(&tw);
	EXPECT(t > 11000);
	EXPECT(!spray_txwin_on_persist(&tw, t - 1, true));
	EXPECT(spray_txwin_on_persist(&tw, t, true));
	EXPECT_EQ(tw.probes, 1);
	/* one packet beyond the grant, once */
	EXPECT_EQ(spray_txwin_room(&tw, 100), 1);
	EXPECT_EQ(spray_txwin_persist_deadline(&tw), 0);
	send_n(1, t);
	EXPECT_EQ(spray_txwin_room(&tw, 100), 0);
	EXPECT(!tw.probe_ok);
	/* in flight now: the RTO covers it */
	EXPECT_EQ(spray_txwin_persist_deadline(&tw), 0);
	EXPECT(spray_txwin_rto_deadline(&tw) > t);
}

TEST(spray_txwin_persist__backs_off_and_resets_on_progress)
{
	struct spray_txack_sum s;
	u64 t1, t2, t3;

	setup(0);
	tw.grant = 1;
	send_n(1, 1000);
	EXPECT_EQ(ack(1, 0, 0, 0, 1000, 11000, &s), 0);
	t1 = spray_txwin_persist_deadline(&tw);
	EXPECT(spray_txwin_on_persist(&tw, t1, true));
	/* the probe is refused (no room): then the persist timer again, later */
	tw.probe_ok = false;
	t2 = spray_txwin_persist_deadline(&tw);
	EXPECT(t2 - t1 > t1 - 11000);
	EXPECT(spray_txwin_on_persist(&tw, t2, true));
	tw.probe_ok = false;
	t3 = spray_txwin_persist_deadline(&tw);
	EXPECT(t3 - t2 > t2 - t1);
	/* a grant that moves ends it */
	tw.grant = 10;
	EXPECT_EQ(spray_txwin_persist_deadline(&tw), 0);
	EXPECT_EQ(spray_txwin_room(&tw, 100), 9);
}

/*
 * A receiver that answers a PROBE with its grant gets a probe without
 * data: nothing goes beyond the grant for it to refuse, and the timer
 * backs off while the grant stays put.
 */
TEST(spray_txwin_persist__probe_without_data_sends_nothing_beyond_grant)
{
	struct spray_txack_sum s;
	u64 t1, t2;

	setup(0);
	tw.grant = 2;
	send_n(2, 1000);
	EXPECT_EQ(ack(2, 0, 0, 0, 1000, 11000, &s), 0);
	t1 = spray_txwin_persist_deadline(&tw);
	/* SPRAY_TX_PERSIST_RTOS RTOs after the last progress, not one */
	EXPECT(tw.rto_ns * SPRAY_TX_PERSIST_RTOS < cfg.rto_max_ns);
	EXPECT_EQ(t1, 11000 + tw.rto_ns * SPRAY_TX_PERSIST_RTOS);
	EXPECT(!spray_txwin_on_persist(&tw, t1 - 1, false));
	EXPECT(spray_txwin_on_persist(&tw, t1, false));
	EXPECT_EQ(tw.probes, 1);
	EXPECT(!tw.probe_ok);
	EXPECT_EQ(spray_txwin_room(&tw, 100), 0);
	/* due once: the next is later, and later than the first period */
	EXPECT(!spray_txwin_on_persist(&tw, t1, false));
	t2 = spray_txwin_persist_deadline(&tw);
	EXPECT(t2 - t1 > t1 - 11000);
	EXPECT(spray_txwin_on_persist(&tw, t2, false));
	EXPECT_EQ(tw.probes, 2);
	EXPECT_EQ(tw.sent, 2);
	/* the answer's grant moves: new data goes, the timer stops */
	tw.grant = 5;
	EXPECT_EQ(spray_txwin_persist_deadline(&tw), 0);
	EXPECT_EQ(spray_txwin_room(&tw, 100), 3);
}

TEST(spray_txwin_on_nack__msg_size_acks_and_reports)
{
	struct spray_txack_sum sum;

	setup(0);
	send_n(4, 1000);
	/*
	 * the receiver took psns 0..1 (1 discarded), cum 2: acknowledged up
	 * to the psn named, whose record stays for the caller to find its
	 * message by (spray_tx_msg_size()); the next ACK takes it
	 */
	EXPECT_EQ(spray_txwin_on_nack(&tw, 1, 1, SPRAY_NACK_MSG_SIZE, 2, 1000,
				      5000, &ops, NULL), -EMSGSIZE);
	EXPECT_EQ(tw.una, 1);
	EXPECT_EQ(ev.nacked, 1);
	EXPECT(spray_txwin_rec(&tw, 1) && spray_txwin_rec(&tw, 1)->state ==
	       SPRAY_TXREC_INFLIGHT);
	EXPECT_EQ(ev.nlost, 0);
	EXPECT(!tw.failed);
	EXPECT_EQ(ack(2, 2, 0, 0, 0, 5100, &sum), 0);
	EXPECT_EQ(tw.una, 2);
	EXPECT_EQ(ev.nacked, 2);
	/* a NACK naming psns never sent is refused, whatever its reason */
	EXPECT_EQ(spray_txwin_on_nack(&tw, 9, 1, SPRAY_NACK_MSG_SIZE, 2, 1000,
				      5000, &ops, NULL), -EINVAL);
}

TEST(spray_txwin_on_nack__refusal_spends_retries_when_closing)
{
	u64 t = 1000;
	u32 i;

	setup(0);
	tw.refusal_costs = true;
	send_n(1, t);
	/* refused, resent at the RTO, refused again ...: the limit ends it */
	for (i = 0; i < 8 && !tw.failed; i++) {
		spray_txwin_on_nack(&tw, 0, 1, SPRAY_NACK_NO_BUF, 0, 1000,
				    t + 10, &ops, NULL);
		t = spray_txwin_rto_deadline(&tw);
		spray_txwin_on_rto(&tw, t, &ops, NULL);
		if (spray_txwin_next_retx(&tw, &(u32){0}))
			spray_txwin_sent_retx(&tw, 0, 1, t);
	}
	EXPECT(tw.failed);
	EXPECT(i <= (u32)cfg.max_retx + 1);
}

TEST(spray_txwin_refusing__until_the_highest_refused_psn_is_acked)
{
	struct spray_txack_sum s;

	setup(0xfffffffe);	/* across the wrap */
	send_n(6, 1000);
	EXPECT(!spray_txwin_refusing(&tw));
	/* psns 1..2 (the 4th and 5th) refused: the receiver refuses */
	EXPECT_EQ(spray_txwin_on_nack(&tw, 1, 2, SPRAY_NACK_NO_BUF,
				      0xfffffffe, 0xfffffffe + 1000, 2000,
				      &ops, NULL), 0);
	EXPECT(spray_txwin_refusing(&tw));
	/* told to send them again: none waits, the refusal is not over */
	EXPECT_EQ(spray_txwin_on_nack(&tw, 0xfffffffe, 1, SPRAY_NACK_RESUME,
				      0xfffffffe, 0xfffffffe + 1000, 2100,
				      &ops, NULL), 0);
	EXPECT_EQ(tw.refused, 0);
	EXPECT(spray_txwin_refusing(&tw));
	/* acked up to psn 1, psn 2 not yet */
	EXPECT_EQ(ack(2, 2, 0, 0, 0, 2200, &s), 0);
	EXPECT(spray_txwin_refusing(&tw));
	/* taken: over */
	EXPECT_EQ(ack(3, 3, 0, 0, 0, 2300, &s), 0);
	EXPECT(!spray_txwin_refusing(&tw));
	EXPECT_EQ(tw.refused_top, 3);
	/* and stays over as the psns go on (kept at una) */
	EXPECT_EQ(ack(4, 4, 0, 0, 0, 2400, &s), 0);
	EXPECT_EQ(tw.refused_top, 4);
	EXPECT(!spray_txwin_refusing(&tw));
}

TEST(spray_txwin_on_nack__resume_releases_refused_at_once)
{
	setup(0);
	send_n(6, 1000);
	/* psns 2..4 refused: nothing new goes */
	EXPECT_EQ(spray_txwin_on_nack(&tw, 2, 3, SPRAY_NACK_NO_BUF, 2, 1000,
				      2000, &ops, NULL), 0);
	EXPECT_EQ(tw.refused, 3);
	/* the receiver has room: all three go again, none counted lost */
	EXPECT_EQ(spray_txwin_on_nack(&tw, 2, 1, SPRAY_NACK_RESUME, 2, 1000,
				      2100, &ops, NULL), 0);
	EXPECT_EQ(tw.refused, 0);
	EXPECT_EQ(tw.lost, 3);
	EXPECT_EQ(ev.why[SPRAY_LOSS_REFUSED], 3);
	EXPECT_EQ(tw.lost_rack + tw.lost_nack + tw.lost_rto, 0);
	EXPECT_EQ(spray_txwin_room(&tw, 100), 64 - 4);	/* the ring: 2..5 out */
}

/*
 * Silence: RTOs (1 ms ceiling) resend what is outstanding with no answer.
 * Returns the time the window failed, 0 if it had not by @until.
 */
static u64 rto_until(u64 now, u64 until)
{
	u32 psn;

	while (!tw.failed) {
		now = spray_txwin_rto_deadline(&tw);
		if (!now || now > until)
			return 0;
		spray_txwin_on_rto(&tw, now, &ops, NULL);
		while (spray_txwin_next_retx(&tw, &psn))
			spray_txwin_sent_retx(&tw, psn, 0, now);
	}
	return now;
}

static void setup_silence(u64 silence_ns)
{
	memset(&ev, 0, sizeof(ev));
	spray_txwin_cfg_default(&cfg);
	cfg.rto_min_ns = 100000;
	cfg.rto_init_ns = 100000;
	cfg.rto_max_ns = 1000000;
	cfg.max_retx = 255;
	cfg.silence_ns = silence_ns;
	spray_txwin_init(&tw, ring, 64, 0, 1000, &cfg);
}

TEST(spray_txwin_on_rto__silent_peer_fails_after_silence_ns)
{
	u64 t0 = 1000000, failed;

	setup_silence(20000000);
	send_n(40, t0);
	failed = rto_until(t0, t0 + 1000000000);
	/* the first RTO past 20 ms of silence, not the retry limit */
	EXPECT(failed > t0 + 20000000);
	EXPECT(failed <= t0 + 21000000);
	EXPECT_EQ(tw.silences, 1);
	EXPECT_EQ(ev.failed, 0);
	EXPECT_EQ(spray_txwin_room(&tw, 100), 0);
}

TEST(spray_txwin_on_rto__an_answer_restarts_the_silence)
{
	struct spray_txack_sum s;
	u64 t0 = 1000000, failed;

	setup_silence(20000000);
	send_n(40, t0);
	EXPECT_EQ(rto_until(t0, t0 + 15000000), 0);
	/* psn 0 acked at 15 ms: 20 ms more */
	EXPECT_EQ(ack(1, 1, 0, 0, 0, t0 + 15000000, &s), 0);
	EXPECT_EQ(rto_until(t0 + 15000000, t0 + 35000000), 0);
	EXPECT(!tw.failed);
	/* an ACK for psns never sent is no answer */
	EXPECT_EQ(ack(500, 500, 0, 0, 0, t0 + 30000000, &s), -EINVAL);
	failed = rto_until(t0 + 35000000, t0 + 1000000000);
	EXPECT(failed > t0 + 35000000);
	EXPECT(failed <= t0 + 36000000);
	/* a NACK is an answer too */
	setup_silence(20000000);
	send_n(40, t0);
	EXPECT_EQ(rto_until(t0, t0 + 15000000), 0);
	EXPECT(spray_txwin_on_nack(&tw, 5, 1, SPRAY_NACK_LOSS, 0, 1000,
				   t0 + 15000000, &ops, NULL) >= 0);
	EXPECT_EQ(rto_until(t0 + 15000000, t0 + 35000000), 0);
	/* and so is what the caller heard otherwise (a probe's echo) */
	spray_txwin_heard(&tw, t0 + 34000000);
	EXPECT_EQ(rto_until(t0 + 35000000, t0 + 54000000), 0);
	EXPECT(rto_until(t0 + 54000000, t0 + 1000000000) > t0 + 54000000);
	EXPECT_EQ(tw.silences, 1);
}

TEST(spray_txwin_on_rto__silence_counts_from_the_first_psn_after_quiet)
{
	struct spray_txack_sum s;
	u64 t0 = 1000000;

	setup_silence(20000000);
	send_n(2, t0);
	EXPECT_EQ(ack(2, 2, 0, 0, 0, t0 + 1000000, &s), 0);
	/* 100 ms with nothing outstanding, then new data */
	send_n(40, t0 + 100000000);
	EXPECT_EQ(rto_until(t0 + 100000000, t0 + 120000000), 0);
	EXPECT(rto_until(t0 + 120000000, t0 + 1000000000) > t0 + 120000000);
}

TEST(spray_txwin_on_rto__silence_bound_at_least_four_rtos)
{
	u64 t0 = 1000000, failed;

	/* 1 ms of silence allowed, but four RTOs of 1 ms pass first */
	setup_silence(1000000);
	send_n(40, t0);
	failed = rto_until(t0, t0 + 1000000000);
	EXPECT(failed > t0 + 4000000);
	/* no bound: only the retry limit, which 40 psns reach much later */
	setup_silence(0);
	send_n(40, t0);
	EXPECT_EQ(rto_until(t0, t0 + 200000000), 0);
	EXPECT_EQ(tw.silences, 0);
}

TEST(spray_train_defer__waits_only_when_acks_make_the_train)
{
	/* the window cut it, more queued, in flight frees enough: wait */
	EXPECT(spray_train_defer(8, 200, 22, 22));
	/* room for the whole train, or the data queued fits: go */
	EXPECT(!spray_train_defer(22, 200, 22, 22));
	EXPECT(!spray_train_defer(8, 200, 22, 8));
	EXPECT(!spray_train_defer(8, 200, 22, 5));
	/* nothing in flight: no ACK will come to open more */
	EXPECT(!spray_train_defer(8, 0, 22, 22));
	/* what is in flight could never make the train: go */
	EXPECT(!spray_train_defer(8, 10, 22, 22));
	EXPECT(spray_train_defer(8, 14, 22, 22));
	/* no room at all is the window's business, not a train's */
	EXPECT(spray_train_defer(0, 30, 4, 4));
}

/*
 * A train's first transmissions delivered by the cumulative ack go to
 * ops->acked_run as runs; the window ends as with ops->acked per psn, and
 * the verdicts add up to the same: two windows driven alike, one with
 * acked_run, through trains of 1-24 packets on 8 EVs and 3 messages,
 * losses (NACKs, RTOs), retransmissions, CE marks and SACKs.
 */
static struct {
	u64 pkts, bytes, ev[8], msg[3], runs, longest;
} tally[2];
static int msgs[3];

static void tally_acked(void *ctx, u32 psn, const struct spray_txrec *rec,
			bool ce)
{
	int t = ctx ? 1 : 0;

	(void)psn;
	(void)ce;
	tally[t].pkts++;
	tally[t].bytes += rec->len;
	tally[t].ev[rec->ev % 8]++;
	if (rec->msg)
		tally[t].msg[(int *)rec->msg - msgs]++;
}

static void tally_run(void *ctx, u32 psn, u32 n, const struct spray_txrec *rec,
		      u32 bytes)
{
	(void)ctx;
	(void)psn;
	tally[1].pkts += n;
	tally[1].bytes += bytes;
	tally[1].ev[rec->ev % 8] += n;
	if (rec->msg)
		tally[1].msg[(int *)rec->msg - msgs] += n;
	tally[1].runs++;
	if (n > tally[1].longest)
		tally[1].longest = n;
}

TEST(spray_txwin_on_ack__runs_same_as_psn_by_psn)
{
	static const struct spray_txwin_ops per_psn = { .acked = tally_acked };
	static const struct spray_txwin_ops runs = {
		.acked = tally_acked, .acked_run = tally_run,
	};
	static struct spray_txrec ra[1024], rb[1024];
	static struct spray_txwin a, b;
	struct spray_txack_sum sa, sb;
	u32 rng = 11, isn = 0xfffffe00, i, k, n, psn, step, lag;
	struct spray_ack ack;
	u64 now = 1000000;
	u16 ev;
	int *m;

	memset(tally, 0, sizeof(tally));
	spray_txwin_cfg_default(&cfg);
	spray_txwin_init(&a, ra, 1024, isn, isn + 1000000, &cfg);
	spray_txwin_init(&b, rb, 1024, isn, isn + 1000000, &cfg);
	for (step = 0; step < 6000; step++) {
		now += 1000 + spray_prng_below(&rng, 20000);
		/* a train: k packets at one time on one EV, of one message */
		k = 1 + spray_prng_below(&rng, 24);
		ev = (u16)spray_prng_below(&rng, 8);
		m = &msgs[spray_prng_below(&rng, 3)];
		for (i = 0; i < k && a.nxt - a.una < 900; i++) {
			spray_txwin_send_new(&a, now, ev, 1, 0,
					     (u16)(1000 + spray_prng_below(&rng, 400)),
					     m);
			b.ring = rb;
			spray_txwin_send_new(&b, now, ev, 1, 0,
					     a.ring[(a.nxt - 1) & a.mask].len, m);
		}
		/* sometimes a NACK, an RTO, a retransmission */
		switch (spray_prng_below(&rng, 12)) {
		case 0:
			psn = a.una + spray_prng_below(&rng, a.nxt - a.una + 1);
			n = 1 + spray_prng_below(&rng, 4);
			spray_txwin_on_nack(&a, psn, (u16)n, SPRAY_NACK_LOSS,
					    a.una, a.grant, now, &per_psn, NULL);
			spray_txwin_on_nack(&b, psn, (u16)n, SPRAY_NACK_LOSS,
					    b.una, b.grant, now, &runs, &b);
			break;
		case 1:
			spray_txwin_on_rto(&a, now, &per_psn, NULL);
			spray_txwin_on_rto(&b, now, &runs, &b);
			break;
		case 2:
			while (spray_txwin_next_retx(&a, &psn)) {
				spray_txwin_sent_retx(&a, psn, ev, now);
				EXPECT(spray_txwin_next_retx(&b, &n) && n == psn);
				spray_txwin_sent_retx(&b, psn, ev, now);
			}
			break;
		default:
			break;
		}
		/* an ACK: cum somewhere behind nxt, SACKs and CE marks */
		lag = spray_prng_below(&rng, 40);
		memset(&ack, 0, sizeof(ack));
		ack.cum_psn = a.nxt - a.una > lag ? a.nxt - lag : a.una;
		ack.sack_base = ack.cum_psn - spray_prng_below(&rng, 16);
		if (spray_prng_below(&rng, 3) == 0)
			ack.sack = ((u64)spray_prng_next(&rng) << 32 |
				    spray_prng_next(&rng)) &
				   ~spray_psn_bits_before(ack.sack_base,
							  ack.cum_psn) &
				   spray_psn_bits_before(ack.sack_base, a.nxt);
		if (spray_prng_below(&rng, 8) == 0)
			ack.ecn = (u64)spray_prng_next(&rng) << 32 |
				  spray_prng_next(&rng);
		ack.grant_psn = a.grant;
		ack.ts_echo = now - 500;
		EXPECT_EQ(spray_txwin_on_ack(&a, &ack, now, &per_psn, NULL, &sa),
			  0);
		EXPECT_EQ(spray_txwin_on_ack(&b, &ack, now, &runs, &b, &sb), 0);
		EXPECT(!memcmp(&sa, &sb, sizeof(sa)));
		/* the same window, record for record */
		b.ring = ra;
		EXPECT(!memcmp(&a, &b, sizeof(a)));
		b.ring = rb;
		EXPECT(!memcmp(ra, rb, sizeof(ra)));
		EXPECT_OK();
	}
	EXPECT(!memcmp(&tally[0], &tally[1], offsetof(typeof(tally[0]), runs)));
	fprintf(stderr, "#   %llu psns acked, %llu runs, the longest %llu\n",
		(unsigned long long)tally[0].pkts,
		(unsigned long long)tally[1].runs,
		(unsigned long long)tally[1].longest);
	EXPECT(tally[1].runs > 1000 && tally[1].longest >= 20);
	EXPECT(tally[0].pkts > 30000);
}

/* A train's records at once: as many spray_txwin_send_new() calls. */
TEST(spray_txwin_send_run__same_as_packet_by_packet)
{
	static struct spray_txrec ra[1024], rb[1024];
	static struct spray_txwin a, b;
	u32 rng = 5, step, n, i, off, cum;
	struct spray_txack_sum sum;
	struct spray_ack ack;
	u64 now = 5000;
	u16 len, last;

	spray_txwin_cfg_default(&cfg);
	spray_txwin_init(&a, ra, 1024, 77, 100000, &cfg);
	spray_txwin_init(&b, rb, 1024, 77, 100000, &cfg);
	for (step = 0; step < 3000; step++) {
		now += 1 + spray_prng_below(&rng, 5000);
		n = spray_prng_below(&rng, 25);
		len = (u16)(1000 + spray_prng_below(&rng, 500));
		last = (u16)(1 + spray_prng_below(&rng, len));
		off = spray_prng_below(&rng, 1000) * len;
		if (a.nxt - a.una + n > 1000)
			n = 0;
		for (i = 0; i < n; i++)
			spray_txwin_send_new(&a, now, 3, step, off + i * len,
					     i + 1 < n ? len : last, msgs);
		EXPECT_EQ(spray_txwin_send_run(&b, now, 3, step, off, len, last,
					       n, msgs), a.nxt - n);
		/* sometimes all acknowledged: the window empty again */
		cum = a.nxt;
		if (spray_prng_below(&rng, 4))
			cum -= spray_prng_below(&rng, a.nxt - a.una + 1);
		memset(&ack, 0, sizeof(ack));
		ack.cum_psn = cum;
		ack.sack_base = cum;
		ack.grant_psn = a.grant;
		spray_txwin_on_ack(&a, &ack, now, NULL, NULL, &sum);
		spray_txwin_on_ack(&b, &ack, now, NULL, NULL, &sum);
		b.ring = ra;
		EXPECT(!memcmp(&a, &b, sizeof(a)));
		b.ring = rb;
		EXPECT(!memcmp(ra, rb, sizeof(ra)));
		EXPECT_OK();
	}
}

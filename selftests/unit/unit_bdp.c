// SPDX-License-Identifier: GPL-2.0
/*
 * The per-peer BDP (cc.c): its rules, then a simulation of senders and one
 * receiver through one bottleneck link, so that one connection is seen to
 * fill a 100 Gbit/s link at a 20 and a 50 us RTT and a long-haul path
 * (10 ms one way, deep buffer) alike, in each mode that limits the sender,
 * with the namespace's bdp-bytes a cap far above what either needs.
 *
 * The fabric: each sender's NIC serializes at its rate, then one FIFO (the
 * bottleneck: its rate, an ECN mark threshold, a drop limit, both in bytes
 * queued), then the one-way delay to the receiver; ACKs come back after the
 * one-way delay. Packets stay in order (one path): this is about windows
 * and credit, unit_sim.c is about spraying.
 */
#include "pkt.h"
#include "rxwin.h"
#include "txwin.h"
#include "cc.h"
#include "test.h"

/* ---- rules ---- */

TEST(spray_rtt_encode__round_trip_within_a_2048th)
{
	static const u32 v[] = { 1, 63, 64, 1000, 20000, 50000, 262143,
				 262144, 1000000, 20000000, 150000000,
				 2000000000U, U32_MAX };
	u32 i, d, prev = 0;
	u16 e;

	EXPECT_EQ(spray_rtt_encode(0), 0);
	EXPECT_EQ(spray_rtt_decode(0), 0);
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		e = spray_rtt_encode(v[i]);
		EXPECT(e);			/* known, however small */
		d = spray_rtt_decode(e);
		EXPECT(d >= prev);		/* monotonic */
		prev = d;
		if (v[i] >= 64)
			EXPECT(d > v[i] ? d - v[i] <= v[i] / 2048 + 64 :
			       v[i] - d <= v[i] / 2048 + 64);
	}
	/* 64 ns steps below 262 us: a data-centre RTT to the unit */
	EXPECT_EQ(spray_rtt_decode(spray_rtt_encode(20000)), 19968);
}

TEST(spray_bdp__rate_times_rtt_within_floor_and_cap)
{
	/* 100 Gbit/s = 12.5 bytes/ns = 13107200 bytes per 2^20 ns */
	u32 r100g = 13107200;

	EXPECT_EQ(spray_bdp(r100g, 50000, 0, U32_MAX), 625000);
	EXPECT_EQ(spray_bdp(r100g, 50000, 1 << 20, U32_MAX), 1 << 20);
	EXPECT_EQ(spray_bdp(r100g, 50000, 0, 300000), 300000);
	EXPECT_EQ(spray_bdp(0, 50000, 4096, 300000), 4096);
	/* no overflow at the extremes: 8 Tbit/s x 4 s is capped */
	EXPECT_EQ(spray_bdp(1ULL << 33, U32_MAX, 0, 1U << 30), 1U << 30);
}

TEST(spray_cc_cfg_check__bdp_bytes_is_the_cap)
{
	struct spray_cc_cfg c;

	spray_cc_cfg_default(&c);
	c.bdp_bytes = 16 << 20;
	c.bdp_min = c.max_cwnd = c.init_cwnd = c.rcv_bdp_bytes = 0;
	EXPECT_EQ(spray_cc_cfg_check(&c), 0);
	/* a large cap starts and floors every peer at 256 KiB */
	EXPECT_EQ(c.bdp_min, SPRAY_CC_BDP_INIT);
	EXPECT_EQ(c.init_cwnd, SPRAY_CC_BDP_INIT);
	EXPECT_EQ(c.rcv_bdp_bytes, SPRAY_CC_BDP_INIT);
	EXPECT_EQ(c.max_cwnd, 24 << 20);
	/* a cap below 256 KiB is the value, as bdp-bytes was before */
	spray_cc_cfg_default(&c);
	c.bdp_bytes = 4096;
	c.bdp_min = c.max_cwnd = c.init_cwnd = c.rcv_bdp_bytes = 0;
	EXPECT_EQ(spray_cc_cfg_check(&c), 0);
	EXPECT_EQ(c.bdp_min, 4096);
	EXPECT_EQ(c.init_cwnd, 4096);
	EXPECT_EQ(c.rcv_bdp_bytes, 4096);
	EXPECT_EQ(c.max_cwnd, 6144);
}

/* ACKs delivering @rate bytes/ns (as num/den) for @ns from @t0, one per us */
static u64 feed(struct spray_nscc *cc, const struct spray_cc_cfg *cfg,
		u64 t0, u64 ns, u64 num, u64 den, u32 rtt)
{
	struct spray_txack_sum s;
	u64 t;

	for (t = t0; t < t0 + ns; t += 1000) {
		memset(&s, 0, sizeof(s));
		s.bytes = (u32)(1000 * num / den);
		s.pkts = 1;
		s.rtt_ns = rtt;
		s.echo_ns = t - rtt;
		spray_nscc_on_ack(cc, cfg, &s, rtt, t);
	}
	return t;
}

TEST(spray_nscc__learns_the_peer_bdp_from_rate_and_min_rtt)
{
	struct spray_cc_cfg c;
	struct spray_nscc cc;
	u64 t;

	spray_cc_cfg_default(&c);
	c.bdp_bytes = 16 << 20;
	c.bdp_min = c.max_cwnd = c.init_cwnd = c.rcv_bdp_bytes = 0;
	spray_cc_cfg_check(&c);
	spray_nscc_init(&cc, &c);
	EXPECT_EQ(cc.bdp, SPRAY_CC_BDP_INIT);
	EXPECT_EQ(spray_nscc_max_cwnd(&cc, &c), SPRAY_CC_BDP_INIT * 3 / 2);
	/* 100 Gbit/s delivered, min RTT 50 us: 625 KB */
	t = feed(&cc, &c, 1000000, 2000000, 25, 2, 50000);
	EXPECT(cc.bdp > 610000 && cc.bdp < 640000);
	EXPECT_EQ(spray_nscc_max_cwnd(&cc, &c), cc.bdp + cc.bdp / 2);
	/* a slower rate is forgotten within two epochs of windows */
	t = feed(&cc, &c, t, 2 * SPRAY_CC_RATE_EPOCH * SPRAY_CC_RATE_WIN_MIN_NS + 300000, 6, 1,
		 50000);
	EXPECT(cc.bdp > 285000 && cc.bdp < 315000);
	/* 1 Gbit/s is below the floor: the floor */
	feed(&cc, &c, t, 2 * SPRAY_CC_RATE_EPOCH * SPRAY_CC_RATE_WIN_MIN_NS + 300000, 1, 8,
	     50000);
	EXPECT_EQ(cc.bdp, SPRAY_CC_BDP_INIT);
	/* the cap: 100 Gbit/s x 20 ms would be 250 MB */
	spray_nscc_init(&cc, &c);
	feed(&cc, &c, 1000000, 200000000, 25, 2, 20000000);
	EXPECT_EQ(cc.bdp, 16 << 20);
	EXPECT_EQ(spray_nscc_max_cwnd(&cc, &c), 24 << 20);
}

TEST(spray_nscc__bunched_acks_are_not_a_faster_rate)
{
	struct spray_txack_sum s;
	struct spray_cc_cfg c;
	struct spray_nscc cc;
	u64 t, t0 = 1000000, sent = t0;
	int i;

	spray_cc_cfg_default(&c);
	c.bdp_bytes = 1 << 30;
	c.bdp_min = 4096;
	c.max_cwnd = c.init_cwnd = c.rcv_bdp_bytes = 0;
	spray_cc_cfg_check(&c);
	spray_nscc_init(&cc, &c);
	/*
	 * Sent at 10 bytes/ns, but each 100 us of ACKs arrives within 10 us
	 * after a stall: the ACK clock says 100 bytes/ns, the send times 10.
	 */
	for (i = 0; i < 40; i++) {
		for (t = 0; t < 10000; t += 1000) {
			memset(&s, 0, sizeof(s));
			s.bytes = 100000;
			s.pkts = 25;
			s.rtt_ns = 20000;
			sent += 10000;
			s.echo_ns = sent;
			spray_nscc_on_ack(&cc, &c, &s, 20000, t0 + 100000 * i + 90000 + t);
		}
	}
	/* 10 bytes/ns x 20 us = 200 KB, not 2 MB */
	EXPECT(cc.bdp > 180000 && cc.bdp < 230000);
}

TEST(spray_nscc__an_idle_gap_is_not_a_sample)
{
	struct spray_cc_cfg c;
	struct spray_nscc cc;
	u64 t;

	spray_cc_cfg_default(&c);
	c.bdp_bytes = 1 << 30;
	c.bdp_min = 4096;
	c.max_cwnd = c.init_cwnd = c.rcv_bdp_bytes = 0;
	spray_cc_cfg_check(&c);
	spray_nscc_init(&cc, &c);
	t = feed(&cc, &c, 1000000, 1000000, 10, 1, 100000);
	EXPECT(cc.bdp > 950000 && cc.bdp < 1050000);
	/* nothing to send for a long while, then 100 us worth again */
	feed(&cc, &c, t + 100000000ULL, 100000, 10, 1, 100000);
	EXPECT(cc.rate.max >= cc.rate.prev || cc.rate.prev);
	EXPECT(cc.bdp > 950000);
}

TEST(spray_rcc__credit_from_the_socket_rate_and_the_sender_rtt)
{
	struct spray_rcc_conn a = {}, b = {};
	struct spray_rcc r = {};
	struct spray_cc_cfg c;
	u32 g, rtt = spray_rtt_encode(50000);
	u64 t;

	spray_cc_cfg_default(&c);
	c.bdp_bytes = 16 << 20;
	c.bdp_min = c.max_cwnd = c.init_cwnd = c.rcv_bdp_bytes = 0;
	spray_cc_cfg_check(&c);
	spray_rcc_conn_init(&a, &c, 1000);
	spray_rcc_conn_init(&b, &c, 5000);
	/* nothing learned: the floor */
	EXPECT_EQ(spray_rcc_bdp(&r, &a, &c), SPRAY_CC_BDP_INIT);
	/* 100 Gbit/s arrive, half from each, both senders 50 us away */
	for (t = 1000000; t < 3000000; t += 1000) {
		spray_rcc_on_data(&r, &a, 6250, rtt, t);
		spray_rcc_on_data(&r, &b, 6250, rtt, t + 500);
	}
	EXPECT_EQ(a.rtt_ns, spray_rtt_decode(rtt));
	/* 1.25 x 625 KB: room to find more */
	g = spray_rcc_bdp(&r, &a, &c);
	EXPECT(g > 760000 && g < 800000);
	/*
	 * Split among the senders with a message incomplete now; one whose
	 * message just completed counts itself.
	 */
	spray_rcc_set_active(&r, &a, true);
	spray_rcc_set_active(&r, &a, true);
	EXPECT_EQ(r.nactive, 1);
	EXPECT_EQ(spray_rcc_grant(&r, &a, &c, 1000, 1U << 30),
		  1000 + g / c.mtu);
	EXPECT_EQ(spray_rcc_grant(&r, &b, &c, 5000, 1U << 30),
		  5000 + g / 2 / c.mtu);
	spray_rcc_set_active(&r, &b, true);
	EXPECT_EQ(r.nactive, 2);
	spray_rcc_set_active(&r, &a, false);
	spray_rcc_set_active(&r, &a, false);
	EXPECT_EQ(r.nactive, 1);
	/* the cap */
	c.bdp_bytes = 512 * 1024;
	EXPECT_EQ(spray_rcc_bdp(&r, &a, &c), 512 * 1024);
	/* a sender that does not say its RTT (an older one): the floor */
	spray_rcc_conn_init(&a, &c, 1000);
	spray_rcc_on_data(&r, &a, 1000, 0, t);
	EXPECT_EQ(spray_rcc_bdp(&r, &a, &c), SPRAY_CC_BDP_INIT);
}

TEST(spray_rcc_on_data__a_clock_read_earlier_elsewhere_costs_nothing)
{
	struct spray_rcc_conn a = {};
	struct spray_rcc r = {};
	u16 rtt = spray_rtt_encode(100000);
	u64 t;

	/*
	 * Two CPUs read the clock, then take the socket lock in the other
	 * order: 10 bytes/ns, every other packet stamped 3 us earlier.
	 */
	for (t = 1000000; t < 4000000; t += 2000) {
		spray_rcc_on_data(&r, &a, 10000, rtt, t);
		spray_rcc_on_data(&r, &a, 10000, rtt, t - 3000);
	}
	/* 10 bytes/ns is 10485760 per 2^20 ns */
	EXPECT(spray_rate_get(&r.rate) > 10000000 &&
	       spray_rate_get(&r.rate) < 11000000);
}

/* ---- the bottleneck simulation ---- */

#define NSND		4
#define FRAG		4096
#define WIRE		(FRAG + SPRAY_DATA_HDR_LEN + 42)	/* + UDP/IP/Eth */
#define RING		2048
#define DQ		16384		/* DATA between sender and receiver */
#define AQ		4096		/* ACKs on their way back, per sender */
#define MSGP		256		/* 1 MiB messages, back to back */
#define ISN		0xffff0000U

/* DATA as parsed (the payload is not simulated), ACKs as built */
struct bdata {
	u64	at;
	struct spray_pkt p;
	u8	src;
	bool	ce;
};

struct back {
	u64	at;
	u8	buf[SPRAY_ACK_LEN];
};

struct sender {
	struct spray_txwin tw;
	struct spray_txrec ring[RING];
	struct spray_nscc nscc;
	u32	msg, off;
	u64	nic_free;
	struct back aq[AQ];
	u32	ah, at;
	u64	acked_bytes;
	/* the receiver's side of this connection */
	struct spray_rxwin rx;
	struct spray_rcc_conn rcc;
	u16	got[64];		/* packets of message m % 64 */
	u32	partial;		/* messages begun, not complete */
	u32	maxactive;
};

static struct bsim {
	u32	ns;			/* senders */
	u64	nic_bps, bn_bps;	/* bits a second */
	u64	owd_ns;			/* one-way delay, each way */
	u64	mark, limit;		/* bytes queued */
	u64	bn_free;
	struct bdata dq[DQ];
	u32	dh, dt;
	struct spray_cc_cfg cfg;
	struct spray_rcc rcc;
	struct sender s[NSND];
	u64	now;
	u64	dropped, marked, qmax, rtos;
} B;

static u64 ser_ns(u64 bytes, u64 bps)
{
	return bytes * 8 * 1000000000ULL / bps;
}

static void b_lost(void *ctx, u32 psn, const struct spray_txrec *rec,
		   enum spray_loss_why why)
{
	struct sender *s = ctx;

	(void)psn;
	(void)rec;
	spray_nscc_on_loss(&s->nscc, &B.cfg, why, B.now);
}

static const struct spray_txwin_ops b_ops = { .lost = b_lost };

/* one DATA packet of sender @i through its NIC and the bottleneck */
static void b_xmit(u32 i, u32 psn, const struct spray_txrec *rec, bool retx)
{
	struct sender *s = &B.s[i];
	struct bdata *q;
	u64 arr, backlog;

	s->nic_free = max(s->nic_free, B.now) + ser_ns(WIRE, B.nic_bps);
	arr = s->nic_free;
	backlog = B.bn_free > arr ?
		  (B.bn_free - arr) * B.bn_bps / 8000000000ULL : 0;
	B.qmax = max(B.qmax, backlog);
	if (backlog + WIRE > B.limit || B.dt - B.dh == DQ) {
		B.dropped++;
		return;
	}
	B.bn_free = max(B.bn_free, arr) + ser_ns(WIRE, B.bn_bps);
	q = &B.dq[B.dt++ % DQ];
	memset(q, 0, sizeof(*q));
	q->at = B.bn_free + B.owd_ns;
	q->src = (u8)i;
	q->ce = backlog > B.mark;
	B.marked += q->ce;
	q->p.type = SPRAY_T_DATA;
	q->p.src_cid = ISN + i;
	q->p.psn = psn;
	q->p.flags = (retx ? SPRAY_F_RETX : 0) |
		     (s->tw.acked ? 0 : SPRAY_F_SYN);
	q->p.data.msg_id = rec->msg_id;
	q->p.data.frag_off = rec->frag_off;
	q->p.data.frag_len = rec->len;
	q->p.data.min_rtt = spray_rtt_encode(s->tw.min_rtt_ns);
	q->p.data.ts_ns = B.now;
}

static void b_pump(u32 i)
{
	struct sender *s = &B.s[i];
	u32 cwnd = spray_nscc_cwnd_pkts(&s->nscc, &B.cfg), psn;

	while (s->tw.inflight < cwnd && spray_txwin_next_retx(&s->tw, &psn)) {
		spray_txwin_sent_retx(&s->tw, psn, 0, B.now);
		b_xmit(i, psn, spray_txwin_rec(&s->tw, psn), true);
	}
	while (spray_txwin_room(&s->tw, cwnd)) {
		psn = spray_txwin_send_new(&s->tw, B.now, 0, s->msg,
					   s->off * FRAG, FRAG, NULL);
		b_xmit(i, psn, spray_txwin_rec(&s->tw, psn), false);
		if (++s->off == MSGP) {
			s->msg++;
			s->off = 0;
		}
	}
}

/* the receiver's ACK to sender @i, with its grant */
static void b_send_ack(u32 i)
{
	struct sender *s = &B.s[i];
	struct spray_pkt p = {
		.type = SPRAY_T_ACK, .sport = 2, .dport = 1, .src_cid = 77,
		.dst_cid = ISN + i,
	};
	struct back *q;

	spray_rxwin_build_ack(&s->rx, B.now, &p.ack);
	p.ack.grant_psn = spray_rcc_grant_rx(&B.rcc, &s->rcc, &B.cfg,
					     s->rx.cum, s->rx.high, s->rx.cum,
					     1U << 30);
	if (s->at - s->ah == AQ)
		return;
	q = &s->aq[s->at++ % AQ];
	q->at = B.now + B.owd_ns;
	spray_pkt_build(q->buf, sizeof(q->buf), &p);
}

static void b_rx(const struct bdata *q)
{
	struct sender *s = &B.s[q->src];
	const struct spray_pkt *p = &q->p;
	u32 m = p->data.msg_id % 64;

	if (spray_rxwin_rcv(&s->rx, p->psn, p->flags, q->ce, p->data.ts_ns,
			    p->ev, B.now))
		return;
	spray_rcc_on_data(&B.rcc, &s->rcc, p->data.frag_len,
			  p->data.min_rtt, B.now);
	/* active while a message of it is incomplete (input.c) */
	if (!s->got[m]++)
		s->partial++;
	if (s->got[m] == MSGP) {
		s->got[m] = 0;
		s->partial--;
	}
	spray_rcc_set_active(&B.rcc, &s->rcc, s->partial);
	B.s[0].maxactive = max(B.s[0].maxactive, B.rcc.nactive);
	while (spray_rxwin_ack_due(&s->rx, B.now))
		b_send_ack(q->src);
}

static void b_rx_ack(u32 i, const struct back *q)
{
	struct sender *s = &B.s[i];
	struct spray_txack_sum sum;
	struct spray_pkt p;

	if (spray_pkt_parse(q->buf, SPRAY_ACK_LEN, &p) || p.type != SPRAY_T_ACK)
		return;
	if (spray_txwin_on_ack(&s->tw, &p.ack, B.now, &b_ops, s, &sum))
		return;
	s->acked_bytes += sum.bytes;
	spray_nscc_on_ack(&s->nscc, &B.cfg, &sum, s->tw.min_rtt_ns, B.now);
}

static u64 later(u64 next, u64 t)
{
	if (!t)
		return next;
	t = max(t, B.now);
	return next ? min(next, t) : t;
}

/*
 * @ns senders through a link of @gbit Gbit/s (the senders' NICs @nic_gbit)
 * @owd_us away each way, marking above @mark_bdp and dropping above
 * @limit_bdp times the path's BDP queued; bdp-bytes @cap.
 */
static void b_setup(u32 ns, u8 mode, u64 nic_gbit, u64 gbit, u64 owd_us,
		    u32 mark_pct, u32 limit_pct, u32 cap)
{
	struct spray_txwin_cfg tcfg;
	u64 bdp;
	u32 i;

	memset(&B, 0, sizeof(B));
	B.ns = ns;
	B.nic_bps = nic_gbit * 1000000000ULL;
	B.bn_bps = gbit * 1000000000ULL;
	B.owd_ns = owd_us * 1000;
	bdp = B.bn_bps / 8 * 2 * B.owd_ns / 1000000000ULL;
	B.mark = bdp * mark_pct / 100;
	B.limit = bdp * limit_pct / 100;
	spray_cc_cfg_default(&B.cfg);
	B.cfg.mode = mode;
	B.cfg.mtu = FRAG;
	B.cfg.bdp_bytes = cap;
	B.cfg.bdp_min = B.cfg.min_cwnd = B.cfg.max_cwnd = 0;
	B.cfg.init_cwnd = B.cfg.rcv_bdp_bytes = 0;
	spray_cc_cfg_check(&B.cfg);
	spray_txwin_cfg_default(&tcfg);
	tcfg.rto_max_ns = 200000000;
	for (i = 0; i < ns; i++) {
		struct sender *s = &B.s[i];

		spray_nscc_init(&s->nscc, &B.cfg);
		spray_txwin_init(&s->tw, s->ring, RING, ISN + i,
				 spray_rcc_initial_grant(&B.cfg, ISN + i),
				 &tcfg);
		spray_rxwin_init(&s->rx, ISN + i, NULL);
		spray_rcc_conn_init(&s->rcc, &B.cfg, ISN + i);
	}
}

/* run to @end; the payload delivered per sender in [@t1, @end] */
static void b_run(u64 t1, u64 end, u64 *bytes)
{
	u64 next, base[NSND] = { 0 };
	u32 i;

	B.now = 1000;
	for (i = 0; i < B.ns; i++)
		b_pump(i);
	while (B.now < end) {
		if (t1 && B.now >= t1) {
			for (i = 0; i < B.ns; i++)
				base[i] = B.s[i].acked_bytes;
			t1 = 0;
		}
		next = end;
		if (B.dh != B.dt)
			next = later(next, B.dq[B.dh % DQ].at);
		for (i = 0; i < B.ns; i++) {
			struct sender *s = &B.s[i];

			if (s->ah != s->at)
				next = later(next, s->aq[s->ah % AQ].at);
			next = later(next, spray_rxwin_ack_deadline(&s->rx));
			next = later(next, spray_txwin_rto_deadline(&s->tw));
		}
		B.now = max(B.now, next);
		while (B.dh != B.dt && B.dq[B.dh % DQ].at <= B.now)
			b_rx(&B.dq[B.dh++ % DQ]);
		for (i = 0; i < B.ns; i++) {
			struct sender *s = &B.s[i];
			u64 d = spray_rxwin_ack_deadline(&s->rx);

			if (d && d <= B.now)
				while (spray_rxwin_ack_due(&s->rx, B.now))
					b_send_ack(i);
			while (s->ah != s->at && s->aq[s->ah % AQ].at <= B.now)
				b_rx_ack(i, &s->aq[s->ah++ % AQ]);
			d = spray_txwin_rto_deadline(&s->tw);
			if (d && d <= B.now) {
				B.rtos++;
				spray_txwin_on_rto(&s->tw, B.now, &b_ops, s);
			}
			b_pump(i);
		}
	}
	for (i = 0; i < B.ns; i++)
		bytes[i] = B.s[i].acked_bytes - base[i];
}

/* payload the bottleneck carries in @ns nanoseconds */
static u64 b_cap(u64 ns)
{
	return B.bn_bps / 8 * ns / 1000000000ULL * FRAG / WIRE;
}

static const char *mode_name[] = { "off", "sender", "receiver", "both" };

/*
 * One connection fills the link whatever its RTT, with bdp-bytes a cap of
 * 16 MiB (the kernel's default); @learned: its BDP is above the 256 KiB
 * every peer starts from, so that only learning it fills the link.
 */
static void one_conn(u64 gbit, u64 owd_us, u64 t1, u64 end, u32 mark_pct,
		     u32 limit_pct, bool learned)
{
	u64 got, cap, path_bdp = gbit * 1000000000ULL / 8 * 2 * owd_us /
				 1000000;
	u8 mode;

	for (mode = SPRAY_CC_SENDER; mode <= SPRAY_CC_BOTH; mode++) {
		b_setup(1, mode, 100, gbit, owd_us, mark_pct, limit_pct,
			16 << 20);
		b_run(t1, end, &got);
		cap = b_cap(end - t1);
		printf("#   %llu Gbit/s, RTT %llu us, %s: %.1f%% of the link,"
		       " sender BDP %u (path %llu), receiver BDP %u, cwnd %u,"
		       " queue max %llu, marked %llu, dropped %llu, RTOs %llu\n",
		       (unsigned long long)gbit,
		       (unsigned long long)(2 * owd_us), mode_name[mode],
		       100.0 * got / cap, B.s[0].nscc.bdp,
		       (unsigned long long)path_bdp,
		       spray_rcc_bdp(&B.rcc, &B.s[0].rcc, &B.cfg),
		       B.s[0].nscc.cwnd, (unsigned long long)B.qmax,
		       (unsigned long long)B.marked,
		       (unsigned long long)B.dropped,
		       (unsigned long long)B.rtos);
		EXPECT(got * 10 >= cap * 9);
		EXPECT(!B.s[0].tw.failed);
		if (learned && mode != SPRAY_CC_RECEIVER)
			EXPECT(B.s[0].nscc.bdp > SPRAY_CC_BDP_INIT);
		if (learned && mode != SPRAY_CC_SENDER)
			EXPECT(spray_rcc_bdp(&B.rcc, &B.s[0].rcc, &B.cfg) >
			       SPRAY_CC_BDP_INIT);
	}
}

TEST(spray_bdp_sim__one_conn_fills_100g_at_20us)
{
	one_conn(100, 10, 2000000, 6000000, 30, 400, false);
}

TEST(spray_bdp_sim__one_conn_fills_100g_at_50us)
{
	one_conn(100, 25, 4000000, 10000000, 30, 400, true);
}

TEST(spray_bdp_sim__one_conn_fills_a_long_haul_path)
{
	/* 10 ms one way, 2 Gbit/s: 5 MB in flight, a buffer of 2 BDP */
	one_conn(2, 10000, 1500000000, 2500000000ULL, 50, 200, true);
}

TEST(spray_bdp_sim__long_haul_incast_shares_the_receiver)
{
	u64 got[NSND], cap, sum = 0, sq = 0;
	u32 i;

	/* 4 senders 10 ms away, one 2 Gbit/s link into the receiver */
	b_setup(4, SPRAY_CC_RECEIVER, 100, 2, 10000, 50, 200, 16 << 20);
	b_run(2000000000ULL, 3000000000ULL, got);
	cap = b_cap(1000000000ULL);
	for (i = 0; i < 4; i++) {
		sum += got[i];
		sq += got[i] * got[i] / 1000000;
	}
	printf("#   4 -> 1, 2 Gbit/s, RTT 20 ms, receiver: %.1f%% of the link, "
	       "Jain %.3f, active at most %u, receiver BDP %u, queue max %llu,"
	       " dropped %llu\n", 100.0 * sum / cap,
	       (double)sum / 1000000 * sum / (4.0 * sq),
	       B.s[0].maxactive, spray_rcc_bdp(&B.rcc, &B.s[0].rcc, &B.cfg),
	       (unsigned long long)B.qmax, (unsigned long long)B.dropped);
	EXPECT(sum * 10 >= cap * 9);
	EXPECT(sum / 1000000 * sum * 10 >= 9 * 4 * sq);	/* Jain >= 0.9 */
	EXPECT_EQ(B.s[0].maxactive, 4);
}

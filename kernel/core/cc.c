// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY congestion control.
 *
 * Sender (NSCC, per ACK, with the delay EWMA weight 1/80 per packet acked):
 *	no ECN, delay < target:  proportional increase,
 *				 cwnd += acked * (target - delay) / target
 *	no ECN, delay >= target: fair increase, cwnd += mtu * acked / cwnd
 *	ECN, delay >= target:    cwnd *= max(1 - 0.8 (delay - target) / delay,
 *				 0.5), at most once per RTT (the ACK's sample)
 *	ECN, delay < target:     hold
 * bounded by [min_cwnd, max_cwnd] and by 1.5 times the peer's BDP.
 *
 * The per-peer BDP is learned: the delivery rate (a windowed maximum of
 * bytes acknowledged per min RTT, never faster than they were sent) times
 * the min RTT, within [bdp_min, bdp_bytes]: the namespace's bdp-bytes is
 * the cap, not the value, so one setting serves a peer 20 us away and one
 * 20 ms away.
 *
 * Receiver: each connection with a message incomplete now (an active
 * sender) gets an equal share of its peer's BDP as credit beyond its
 * cumulative ack, never more than the receive buffer has room for nor the
 * receive window; grants only grow. The receiver's per-peer BDP is the
 * rate at which the socket receives (all senders together: what its link
 * carries), plus a quarter to find more, times the sender's min RTT,
 * which the sender puts in its DATA; at least rcv_bdp_bytes, at most
 * bdp_bytes.
 */
#include "cc.h"
#include "rxwin.h"

#define NSCC_EWMA_DIV		80	/* delay EWMA weight 0.0125 */
/*
 * Delays and the target are capped at 2.1 s (u32 ns, the products below
 * in u64). A data-centre fabric's RTT is microseconds, but a scale-across
 * (metro, inter-DC) fabric or a slow emulated one has a base RTT of tens
 * of milliseconds: a cap below the base RTT would make delay and target
 * equal at the cap, and ECN would never cut the window.
 */
#define NSCC_DELAY_CAP		(1U << 31)

/**
 * spray_cc_cfg_default() - fill the default congestion control tunables
 * @cfg: to fill
 */
void spray_cc_cfg_default(struct spray_cc_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = SPRAY_CC_BOTH;
	cfg->mtu = 4096;
	cfg->bdp_bytes = SPRAY_CC_BDP_INIT;
	cfg->bdp_min = SPRAY_CC_BDP_INIT;
	cfg->min_cwnd = cfg->mtu;
	cfg->max_cwnd = cfg->bdp_bytes + cfg->bdp_bytes / 2;
	cfg->init_cwnd = cfg->bdp_min;
	cfg->unsched_pkts = 16;
	cfg->rcv_bdp_bytes = cfg->bdp_min;
}

/**
 * spray_cc_cfg_check() - validate a configuration, fill derived defaults
 * @cfg: to check; zero bdp_min, min/max/init windows and rcv_bdp_bytes
 *	are derived from mtu and bdp_bytes; bdp_min is at most bdp_bytes
 *
 * Return: 0 or -EINVAL.
 */
int spray_cc_cfg_check(struct spray_cc_cfg *cfg)
{
	if (cfg->mode > SPRAY_CC_BOTH || cfg->mtu < 64 || cfg->mtu > 65535 ||
	    !cfg->bdp_bytes || cfg->bdp_bytes > (1U << 30))
		return -EINVAL;
	if (!cfg->bdp_min)
		cfg->bdp_min = SPRAY_CC_BDP_INIT;
	cfg->bdp_min = min(cfg->bdp_min, cfg->bdp_bytes);
	if (!cfg->min_cwnd)
		cfg->min_cwnd = cfg->mtu;
	if (!cfg->max_cwnd)
		cfg->max_cwnd = cfg->bdp_bytes + cfg->bdp_bytes / 2;
	if (!cfg->init_cwnd)
		cfg->init_cwnd = cfg->bdp_min;
	if (!cfg->rcv_bdp_bytes)
		cfg->rcv_bdp_bytes = cfg->bdp_min;
	if (cfg->min_cwnd > cfg->max_cwnd)
		return -EINVAL;
	cfg->init_cwnd = clamp(cfg->init_cwnd, cfg->min_cwnd, cfg->max_cwnd);
	return 0;
}

/**
 * spray_nscc_init() - start a sender window
 * @cc: state
 * @cfg: checked configuration
 */
void spray_nscc_init(struct spray_nscc *cc, const struct spray_cc_cfg *cfg)
{
	memset(cc, 0, sizeof(*cc));
	cc->bdp = cfg->bdp_min;
	cc->cwnd = min(cfg->init_cwnd, spray_nscc_max_cwnd(cc, cfg));
}

/* @bytes over @ns in bytes per 2^20 ns */
static u32 rate_of(u64 bytes, u64 ns)
{
	if (!ns)
		return 0;
	bytes = min_t(u64, bytes, 1ULL << 43);	/* << 20 stays in u64 */
	return (u32)min_t(u64, spray_div64_u64(bytes << 20, ns), U32_MAX);
}

/**
 * spray_rate_get() - a rate's windowed maximum
 * @r: the rate
 *
 * Return: bytes per 2^20 ns, 0 before the first sample.
 */
u32 spray_rate_get(const struct spray_rate *r)
{
	return max(r->max, r->prev);
}

/*
 * Count @bytes at @now_ns in the open window of @r, at least @win_ns long;
 * @sent_ns: sender side, the send time of the newest packet these bytes
 * acknowledge (0 receiver side). A window that reached its length closes
 * with a sample: its bytes over its length, or over the span of their send
 * times if that is longer (ACKs that bunched up after a stall carry bytes
 * sent over a longer time). A window four times its length or more has
 * seen the traffic stop (nothing to send, an idle sender): no sample.
 */
static void rate_add(struct spray_rate *r, u64 bytes, u64 now_ns, u64 sent_ns,
		     u32 win_ns)
{
	u64 el, span;

	win_ns = max(win_ns, SPRAY_CC_RATE_WIN_MIN_NS);
	if (r->start_ns) {
		r->bytes += bytes;
		/* a clock read on another CPU before this one's: no time */
		if (now_ns < r->start_ns)
			return;
		r->win_ns = max(r->win_ns, win_ns);
		el = now_ns - r->start_ns;
		if (el < r->win_ns)
			return;
		if (el <= 4ULL * r->win_ns) {
			span = 0;
			if (sent_ns && r->sent_ns && sent_ns > r->sent_ns)
				span = sent_ns - r->sent_ns;
			r->max = max(r->max, rate_of(r->bytes, max(el, span)));
			if (++r->n >= SPRAY_CC_RATE_EPOCH) {
				r->prev = r->max;
				r->max = 0;
				r->n = 0;
			}
		}
	}
	r->start_ns = now_ns;
	r->sent_ns = sent_ns;
	r->bytes = 0;
	r->win_ns = win_ns;
}

/**
 * spray_bdp() - a bandwidth-delay product
 * @rate: bytes per 2^20 ns (spray_rate_get(), up to 2^33)
 * @rtt_ns: round-trip time
 * @lo: floor
 * @hi: cap (at least @lo)
 *
 * Return: @rate x @rtt_ns bytes within [@lo, @hi].
 */
u32 spray_bdp(u64 rate, u32 rtt_ns, u32 lo, u32 hi)
{
	u64 b = (min_t(u64, rate, 1ULL << 33) * (rtt_ns >> 4)) >> 16;

	return (u32)clamp_t(u64, b, lo, max(lo, hi));
}

/**
 * spray_nscc_max_cwnd() - the largest window the connection may have now
 * @cc: sender window
 * @cfg: configuration
 *
 * Return: 1.5 times the peer's BDP, within [min_cwnd, max_cwnd].
 */
u32 spray_nscc_max_cwnd(const struct spray_nscc *cc,
			const struct spray_cc_cfg *cfg)
{
	u64 m = (u64)cc->bdp + cc->bdp / 2;

	return (u32)clamp_t(u64, m, cfg->min_cwnd, cfg->max_cwnd);
}

static void nscc_clamp(struct spray_nscc *cc, const struct spray_cc_cfg *cfg)
{
	cc->cwnd = clamp(cc->cwnd, cfg->min_cwnd, spray_nscc_max_cwnd(cc, cfg));
}

/*
 * The delivery rate, sampled over windows of a min RTT (a round trip's
 * worth of ACKs), makes the peer's BDP: rate x min RTT within [bdp_min,
 * bdp_bytes]. The window's bound of 1.5 BDP leaves it room to grow by half
 * a BDP a round trip until the path, not the window, limits the rate.
 */
static void nscc_learn(struct spray_nscc *cc, const struct spray_cc_cfg *cfg,
		       const struct spray_txack_sum *sum, u32 rtt_ns, u64 now_ns)
{
	u32 rate;

	if (sum->bytes || sum->echo_ns)
		rate_add(&cc->rate, sum->bytes, now_ns, sum->echo_ns, rtt_ns);
	rate = spray_rate_get(&cc->rate);
	if (rate && rtt_ns)
		cc->bdp = spray_bdp(rate, rtt_ns, cfg->bdp_min, cfg->bdp_bytes);
	nscc_clamp(cc, cfg);
}

/**
 * spray_nscc_on_ack() - adjust the window for one ACK
 * @cc: sender window
 * @cfg: configuration
 * @sum: what the ACK delivered (spray_txwin_on_ack())
 * @min_rtt_ns: the connection's smallest RTT sample, the base RTT when
 *	cfg->base_rtt_ns is 0
 * @now_ns: current time
 */
void spray_nscc_on_ack(struct spray_nscc *cc, const struct spray_cc_cfg *cfg,
		       const struct spray_txack_sum *sum, u32 min_rtt_ns,
		       u64 now_ns)
{
	u32 base = cfg->base_rtt_ns ? cfg->base_rtt_ns : min_rtt_ns;
	u32 target, delay, avg, w, factor;
	u32 clean = sum->bytes - sum->ce_bytes;
	u64 inc;

	if (cfg->mode != SPRAY_CC_SENDER && cfg->mode != SPRAY_CC_BOTH)
		return;
	nscc_learn(cc, cfg, sum, base, now_ns);
	if (!sum->pkts || !base)
		return;
	target = cfg->target_ns ? cfg->target_ns : base;
	target = min(target, NSCC_DELAY_CAP);

	if (sum->rtt_ns) {
		delay = sum->rtt_ns > base ? sum->rtt_ns - base : 0;
		delay = min(delay, NSCC_DELAY_CAP);
		w = min_t(u32, sum->pkts, NSCC_EWMA_DIV);
		/* avg += (delay - avg) * w / 80, rounded towards avg */
		if (delay >= cc->avg_delay_ns)
			cc->avg_delay_ns += (u32)spray_div_u64((u64)(delay -
					cc->avg_delay_ns) * w, NSCC_EWMA_DIV);
		else
			cc->avg_delay_ns -= (u32)spray_div_u64((u64)(cc->avg_delay_ns -
					delay) * w, NSCC_EWMA_DIV);
	}
	avg = cc->avg_delay_ns;

	if (sum->ce_pkts && avg >= target && avg) {
		/*
		 * Once per round trip as it is now (queue included): the
		 * marks of the packets already queued when the window was cut
		 * must not cut it again.
		 */
		if (now_ns - cc->last_md_ns >= max(base, sum->rtt_ns) ||
		    !cc->last_md_ns) {
			/* 1 - 0.8 (avg - target) / avg, in 1/1024 */
			factor = 1024 - (u32)spray_div_u64(819ULL *
							   (avg - target),
							   avg);
			factor = max(factor, 512U);
			cc->cwnd = (u32)(((u64)cc->cwnd * factor) >> 10);
			cc->undo_cwnd = 0;	/* congestion for real */
			cc->last_md_ns = now_ns;
			cc->md++;
		}
	} else if (!sum->ce_pkts && avg < target) {
		inc = spray_div_u64((u64)clean * (target - avg), target);
		cc->cwnd = (u32)min_t(u64, (u64)cc->cwnd + inc, U32_MAX);
		cc->inc_prop++;
	} else if (!sum->ce_pkts) {
		inc = spray_div_u64((u64)cfg->mtu * clean, cc->cwnd);
		cc->cwnd = (u32)min_t(u64, (u64)cc->cwnd + inc, U32_MAX);
		cc->inc_fair++;
	}
	/* ECN below target: hold */
	nscc_clamp(cc, cfg);
}

/**
 * spray_nscc_on_loss() - adjust the window for a lost packet
 * @cc: sender window
 * @cfg: configuration
 * @why: how it was detected
 * @now_ns: current time
 *
 * A RACK or NACK loss costs one mtu (losses on a sprayed fabric are often a
 * failed path, handled by path.c, not congestion); an RTO halves the window
 * at most once per RTO event. A packet the receiver refused (no buffer) is
 * flow control, not congestion: the window stays.
 */
void spray_nscc_on_loss(struct spray_nscc *cc, const struct spray_cc_cfg *cfg,
			enum spray_loss_why why, u64 now_ns)
{
	if (cfg->mode != SPRAY_CC_SENDER && cfg->mode != SPRAY_CC_BOTH)
		return;
	if (why == SPRAY_LOSS_REFUSED)
		return;
	if (why == SPRAY_LOSS_RTO) {
		if (cc->last_md_ns != now_ns) {
			if (!cc->undo_cwnd)
				cc->undo_cwnd = cc->cwnd;
			cc->cwnd /= 2;
			cc->last_md_ns = now_ns;
			cc->md++;
		}
	} else {
		cc->cwnd = cc->cwnd > cfg->mtu ? cc->cwnd - cfg->mtu : 0;
	}
	nscc_clamp(cc, cfg);
}

/**
 * spray_nscc_on_spurious() - a loss turned out not to be one
 * @cc: sender window
 * @cfg: configuration
 * @why: how the loss had been detected
 *
 * A packet declared lost by an RTO was delivered after all: the timeout was
 * a delay (a stall of a host, a queue), not congestion loss. The window
 * goes back to what it was before the RTO halved it, as F-RTO and Eifel
 * undo; ECN marks and delay keep their say through the next ACKs.
 */
void spray_nscc_on_spurious(struct spray_nscc *cc,
			    const struct spray_cc_cfg *cfg,
			    enum spray_loss_why why)
{
	if (cfg->mode != SPRAY_CC_SENDER && cfg->mode != SPRAY_CC_BOTH)
		return;
	if (why == SPRAY_LOSS_REFUSED)
		return;
	if (why == SPRAY_LOSS_RTO && cc->undo_cwnd) {
		cc->cwnd = max(cc->cwnd, cc->undo_cwnd);
		cc->undo_cwnd = 0;
		nscc_clamp(cc, cfg);
	} else if (why != SPRAY_LOSS_RTO) {
		/* a RACK or NACK loss cost one mtu: give it back */
		cc->cwnd += cfg->mtu;
		nscc_clamp(cc, cfg);
	}
}

/**
 * spray_nscc_cwnd_pkts() - the window in packets, for spray_txwin_room()
 * @cc: sender window
 * @cfg: configuration
 *
 * Return: at least 1, U32_MAX when the sender window is off.
 */
u32 spray_nscc_cwnd_pkts(const struct spray_nscc *cc,
			 const struct spray_cc_cfg *cfg)
{
	if (cfg->mode != SPRAY_CC_SENDER && cfg->mode != SPRAY_CC_BOTH)
		return U32_MAX;
	return max(cc->cwnd / cfg->mtu, 1U);
}

/**
 * spray_rcc_initial_grant() - the sender's grant before any ACK
 * @cfg: configuration
 * @isn: first psn of the incarnation
 *
 * Return: isn + unsched_pkts, or isn + the receive window when receiver
 * credit is off.
 */
u32 spray_rcc_initial_grant(const struct spray_cc_cfg *cfg, u32 isn)
{
	if (cfg->mode != SPRAY_CC_RECEIVER && cfg->mode != SPRAY_CC_BOTH)
		return isn + SPRAY_RXWIN_BITS;
	return isn + min(max(cfg->unsched_pkts, 1U), SPRAY_RXWIN_BITS);
}

/**
 * spray_rcc_conn_init() - receiver credit of a new incoming incarnation
 * @c: state
 * @cfg: configuration
 * @isn: first psn of the incarnation
 */
void spray_rcc_conn_init(struct spray_rcc_conn *c,
			 const struct spray_cc_cfg *cfg, u32 isn)
{
	c->grant = spray_rcc_initial_grant(cfg, isn);
	c->active = false;
	c->rtt_ns = 0;
}

/**
 * spray_rcc_activate() - count a connection among the active senders
 * @r: receiving socket's credit state
 * @c: connection
 *
 * The caller activates a connection while a message of it is incomplete
 * (data for it is expected) and deactivates it when all its messages are
 * complete, so that the credit is shared among the senders that use it
 * now, not every peer seen lately.
 */
void spray_rcc_activate(struct spray_rcc *r, struct spray_rcc_conn *c)
{
	if (!c->active) {
		c->active = true;
		r->nactive++;
	}
}

/**
 * spray_rcc_deactivate() - stop counting a connection as active
 * @r: receiving socket's credit state
 * @c: connection
 */
void spray_rcc_deactivate(struct spray_rcc *r, struct spray_rcc_conn *c)
{
	if (c->active) {
		c->active = false;
		r->nactive--;
	}
}

/**
 * spray_rcc_set_active() - spray_rcc_activate() or spray_rcc_deactivate()
 * @r: receiving socket's credit state
 * @c: connection
 * @active: whether it has a message incomplete now
 */
void spray_rcc_set_active(struct spray_rcc *r, struct spray_rcc_conn *c,
			  bool active)
{
	if (active)
		spray_rcc_activate(r, c);
	else
		spray_rcc_deactivate(r, c);
}

/**
 * spray_rcc_on_data() - a DATA packet was received
 * @r: receiving socket's credit state
 * @c: connection
 * @bytes: its payload
 * @min_rtt: its min_rtt field (the sender's min RTT, spray_rtt_encode()d)
 * @now_ns: arrival time
 *
 * Learns the sender's min RTT and the rate at which the socket receives,
 * in windows as long as the longest min RTT of the senders in them.
 */
void spray_rcc_on_data(struct spray_rcc *r, struct spray_rcc_conn *c,
		       u32 bytes, u16 min_rtt, u64 now_ns)
{
	u32 rtt = spray_rtt_decode(min_rtt);

	if (rtt)
		c->rtt_ns = rtt;
	rate_add(&r->rate, bytes, now_ns, 0, c->rtt_ns);
}

/**
 * spray_rcc_bdp() - the receiver's BDP for one sender
 * @r: receiving socket's credit state
 * @c: connection
 * @cfg: configuration
 *
 * The rate the socket receives at plus a quarter (room to find more: the
 * rate it sees is what its credit allowed) times the sender's min RTT.
 *
 * Return: bytes, within [rcv_bdp_bytes, bdp_bytes]; rcv_bdp_bytes while
 * either is unknown.
 */
u32 spray_rcc_bdp(const struct spray_rcc *r, const struct spray_rcc_conn *c,
		  const struct spray_cc_cfg *cfg)
{
	u64 rate = spray_rate_get(&r->rate);

	if (!rate || !c->rtt_ns)
		return cfg->rcv_bdp_bytes;
	return spray_bdp(rate + rate / 4, c->rtt_ns, cfg->rcv_bdp_bytes,
			 cfg->bdp_bytes);
}

/**
 * spray_rcc_grant_rcvd() - compute the grant psn to put in an ACK or NACK
 * @r: receiving socket's credit state
 * @c: connection
 * @cfg: configuration
 * @cum_psn: the connection's cumulative ack
 * @rcvd: psns from @cum_psn that need no new credit: received out of
 *	order, or holes below them (repaired on the psns they had)
 * @rcvbuf_free: bytes the socket receive buffer can still take
 *
 * Credit is what is granted and not yet received: grant = cum + rcvd +
 * min(share, rcvbuf_free), in packets of mtu bytes, at least one packet
 * while the buffer has room for one. The share is BDP / active senders,
 * or, were that less than a train of SPRAY_RCC_TRAIN packets, up to a
 * train within SPRAY_RCC_OVERCOMMIT x BDP / active senders and within one
 * BDP: many senders in flight at once may overcommit the BDP a few times
 * (queueing, which the sender's window and ECN bound), not send a packet
 * per ACK; one sender alone never gets more than the BDP (its extra
 * credit would only stand in the bottleneck's queue). A hole
 * below packets received (a loss being repaired) does not stop the
 * sender. Never beyond the receive window (cum + SPRAY_RXWIN_BITS) nor
 * below the previous grant (a sent grant cannot be taken back). BDP is
 * spray_rcc_bdp(); a
 * connection not counted active (its last message just completed) counts
 * itself, as it would be were a message of it incomplete.
 *
 * Return: the grant psn (also stored in @c).
 */
u32 spray_rcc_grant_rcvd(const struct spray_rcc *r, struct spray_rcc_conn *c,
			 const struct spray_cc_cfg *cfg, u32 cum_psn, u32 rcvd,
			 u32 rcvbuf_free)
{
	u32 share, pkts, g, n, bdp;
	u64 over;

	if (cfg->mode != SPRAY_CC_RECEIVER && cfg->mode != SPRAY_CC_BOTH) {
		pkts = SPRAY_RXWIN_BITS;
	} else {
		n = max(r->nactive + !c->active, 1U);
		bdp = spray_rcc_bdp(r, c, cfg);
		share = bdp / n;
		if (share < SPRAY_RCC_TRAIN * cfg->mtu) {
			over = spray_div_u64((u64)bdp * SPRAY_RCC_OVERCOMMIT,
					     n);
			share = (u32)min_t(u64, SPRAY_RCC_TRAIN * cfg->mtu,
					   min_t(u64, over, bdp));
		}
		share = min(share, rcvbuf_free);
		pkts = share / cfg->mtu;
		if (!pkts && rcvbuf_free >= cfg->mtu)
			pkts = 1;
		pkts = min_t(u64, (u64)pkts + rcvd, SPRAY_RXWIN_BITS);
	}
	g = cum_psn + pkts;
	if (spray_psn_after(g, c->grant))
		c->grant = g;
	return c->grant;
}

/**
 * spray_rcc_grant() - spray_rcc_grant_rcvd() with nothing out of order
 * @r: receiving socket's credit state
 * @c: connection
 * @cfg: configuration
 * @cum_psn: the connection's cumulative ack
 * @rcvbuf_free: bytes the socket receive buffer can still take
 *
 * Return: the grant psn (also stored in @c).
 */
u32 spray_rcc_grant(const struct spray_rcc *r, struct spray_rcc_conn *c,
		    const struct spray_cc_cfg *cfg, u32 cum_psn,
		    u32 rcvbuf_free)
{
	return spray_rcc_grant_rcvd(r, c, cfg, cum_psn, 0, rcvbuf_free);
}

/**
 * spray_rcc_grant_rx() - the grant of a receiving connection
 * @r: receiving socket's credit state
 * @c: connection
 * @cfg: configuration
 * @cum_psn: the connection's cumulative ack
 * @high: one past the highest psn received
 * @refused_top: one past the highest psn refused for lack of room
 * @rcvbuf_free: bytes the rest of the admitted messages and new ones can
 *	take
 *
 * Every psn below @high or @refused_top needs no new credit: received, a
 * loss being repaired on the psn it had, or refused and coming back when
 * there is room. Counted as missing, each would take a packet of the
 * credit the sender needs to finish a message already admitted: a refused
 * psn below the rest of that message would stop it for good.
 *
 * Return: the grant psn (also stored in @c).
 */
u32 spray_rcc_grant_rx(const struct spray_rcc *r, struct spray_rcc_conn *c,
		       const struct spray_cc_cfg *cfg, u32 cum_psn, u32 high,
		       u32 refused_top, u32 rcvbuf_free)
{
	u32 top = high;

	if (spray_psn_after(refused_top, top))
		top = refused_top;
	if (!spray_psn_after(top, cum_psn))
		top = cum_psn;
	return spray_rcc_grant_rcvd(r, c, cfg, cum_psn, top - cum_psn,
				    rcvbuf_free);
}

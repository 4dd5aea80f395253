// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY timers: one hrtimer per connection for delayed ACKs, NACKs,
 * the RTO, the persist timer, paced bursts and the idle teardown.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errqueue.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/udp.h>

#include "conn.h"
#include "netlink.h"
#include <trace/events/spray.h>

/* ---- timers ---- */

static u64 spray_earliest(u64 a, u64 b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return min(a, b);
}

/*
 * Nothing queued, in flight or owed an ACK. Messages being reassembled do
 * not count: a sender silent for the idle timeout gave up on them (or
 * never existed: a spoofed SYN), and they must not pin the connection and
 * the receive buffer for ever; but see spray_conn_rx_held().
 */
static bool spray_conn_idle(const struct spray_conn *c)
{
	if (!spray_conn_tx_done(c))
		return false;
	return !(c->peer_cid && c->rx.unacked);
}

/*
 * Partial messages wait while the application has messages to read: the
 * sender may be silent for lack of credit, which reading gives back.
 */
static bool spray_conn_rx_held(const struct spray_conn *c)
{
	/* a hint: recvmsg() takes messages off under rxq_lock alone */
	return (!list_empty(&c->rmsgs) || !list_empty(&c->rdone)) &&
	       !list_empty_careful(&c->ss->rxq);
}

/*
 * We answer what the peer sends, and the peer asks at its RTO for the ACK
 * an answer would carry (SPRAY_CAP_ANSWER_PROBE): no timer waits for it.
 */
static bool spray_conn_answers_prober(const struct spray_conn *c)
{
	return c->rx.answering && (c->peer_caps & SPRAY_CAP_ANSWER_PROBE);
}

static u64 spray_conn_idle_deadline(const struct spray_conn *c)
{
	u32 ms = READ_ONCE(spray_conn_net(c)->cfg.idle_timeout_ms);

	return c->last_active_ns + (u64)ms * NSEC_PER_MSEC;
}

/* The persist timer applies: the grant stops new data that waits. */
static u64 spray_conn_persist_deadline(struct spray_conn *c)
{
	u64 t;

	if (!c->tx_ready)
		return 0;
	t = spray_txwin_persist_deadline(&c->tw);
	return t && spray_conn_next_new(c) ? t : 0;
}

/*
 * Arm the timer for the next ACK, NACK, loss, RTO or persist deadline; with
 * @later, also when that is later than the timer is queued for.
 */
static void __spray_conn_arm(struct spray_conn *c, u64 now, bool later)
{
	u64 t = 0;

	lockdep_assert_held(&c->ss->lock);
	if (c->ss->dead)
		return;
	if (c->peer_cid) {
		u32 rtt = c->tx_ready && c->tw.srtt_ns ? c->tw.srtt_ns :
			  1000000;

		/*
		 * An ACK our answer will carry, or that the peer will ask
		 * for, waits without a timer of its own: only a backstop two
		 * RTOs on (a peer gone quiet), which the timer our last answer
		 * left (its RTO) covers, so that no exchange moves the timer.
		 */
		if (c->rx.unacked && spray_conn_answers_prober(c))
			t = spray_earliest(t, spray_rxwin_ack_deadline(&c->rx) +
					   2ULL * max_t(u32, c->tw.rto_ns,
							c->rx.cfg.answer_ns));
		else if (c->rx.unacked)
			t = spray_earliest(t, spray_rxwin_ack_deadline(&c->rx));
		t = spray_earliest(t, spray_rxwin_nack_deadline(&c->rx, rtt));
	}
	if (c->tx_ready && spray_txwin_outstanding(&c->tw))
		t = spray_earliest(t, spray_txwin_rto_deadline(&c->tw));
	if (c->pump_more)
		t = spray_earliest(t, c->pump_at);
	t = spray_earliest(t, spray_conn_persist_deadline(c));
	if (!t && spray_conn_idle(c))
		t = spray_conn_idle_deadline(c);
	if (!t)
		return;
	if (t <= now)
		t = now + 1000;
	/*
	 * Queued to fire no later: leave it (it arms again for what is due
	 * then). Restarting a queued hrtimer costs a tree removal and
	 * insertion per packet. Answering a prober, no delayed ACK was armed:
	 * what is queued is an earlier RTO, and moving it on at each answer
	 * would cost an hrtimer start per exchange where letting it fire
	 * costs one expiry per RTO.
	 */
	if (later && spray_conn_answers_prober(c))
		later = false;
	if (!later && hrtimer_is_queued(&c->timer) &&
	    ktime_to_ns(hrtimer_get_expires(&c->timer)) <= t)
		return;
	hrtimer_start(&c->timer, ns_to_ktime(t), HRTIMER_MODE_ABS_SOFT);
}

void spray_conn_arm(struct spray_conn *c, u64 now)
{
	__spray_conn_arm(c, now, false);
}

/**
 * spray_conn_arm_carried() - arm the timer after data that carried an ACK
 * @c: the connection, its socket's lock held
 * @now: current time
 *
 * The timer was queued for the delayed ACK, which waited for an answer to
 * carry it (rxwin.answering) and is gone with it: the timer moves to the
 * next deadline, the RTO of the answer. Left queued, it would fire for
 * nothing once per request and once per answer, on both ends of a
 * request/response exchange.
 */
void spray_conn_arm_carried(struct spray_conn *c, u64 now)
{
	__spray_conn_arm(c, now, true);
}

/**
 * spray_conn_rto() - the retransmission timeout: outstanding packets lost
 * @c: the connection, its socket's lock held, its sending half ready
 * @now: current time
 * @probed: not the timer's expiry but the ACK that answered an answer
 *	probe (SPRAY_CAP_ANSWER_PROBE), which acknowledged nothing new
 *
 * Either way the probe, if one went, is answered: a later ACK without
 * progress is no reason for another RTO.
 */
void spray_conn_rto(struct spray_conn *c, u64 now, bool probed)
{
	/* the period that expired, before the backoff grows */
	u64 period = spray_txwin_rto_deadline(&c->tw) - c->tw.rto_start_ns;
	u32 lost;

	lockdep_assert_held(&c->ss->lock);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RTO);
	c->rtos++;
	c->ops_now = now;
	c->rto_probed = false;
	if (probed)
		lost = spray_txwin_probe_unanswered(&c->tw, now, &spray_tx_ops,
						    c);
	else
		lost = spray_txwin_on_rto(&c->tw, now, &spray_tx_ops, c);
	trace_spray_rto(c, lost, period, probed);
}

enum hrtimer_restart spray_conn_timer(struct hrtimer *t)
{
	struct spray_conn *c = container_of(t, struct spray_conn, timer);
	struct spray_sock *ss = c->ss;
	struct spray_net *sn = ss->sn;
	struct sk_buff_head q;
	u64 now, rto;
	bool wprobe;

	__skb_queue_head_init(&q);
	spray_mib_inc(sn, SPRAY_MIB_TIMER_FIRES);
	spin_lock_bh(&ss->lock);
	if (ss->dead)
		goto out;
	now = ktime_get_ns();
	if (spray_conn_idle(c) && now >= spray_conn_idle_deadline(c) &&
	    spray_conn_rx_held(c)) {
		/* look again one idle timeout later */
		c->last_active_ns = now;
	} else if (spray_conn_idle(c) && now >= spray_conn_idle_deadline(c)) {
		/* Idle for idle-timeout-ms: unhash, free outside the timer. */
		hlist_del(&c->node);
		list_del_init(&c->tsq_node);
		ss->nconns--;
		atomic_dec(&sn->nconns);
		spray_mib_inc(sn, SPRAY_MIB_CONN_CLOSE);
		sock_hold(&ss->sk);
		queue_work(spray_wq, &c->free_work);
		goto out;
	}
	if (c->peer_cid) {
		spray_queue_acks(c, now, &q);
		spray_queue_nacks(c, now, &q);
	}
	if (c->tx_ready) {
		/*
		 * No RACK here: a timer that fires late (a busy or stalled
		 * host) would find packets old whose ACKs wait in the receive
		 * queue. RACK runs as ACKs arrive; the RTO covers the tail.
		 */
		rto = spray_txwin_rto_deadline(&c->tw);
		if (rto && rto <= now && c->peer_answers && !c->rto_probed &&
		    (c->peer_caps & SPRAY_CAP_ANSWER_PROBE)) {
			/* ask for the ACK its answer would have carried */
			spray_mib_inc(sn, SPRAY_MIB_ANSWER_PROBES);
			trace_spray_rto_probe(c, rto - c->tw.rto_start_ns);
			c->rto_probed = true;
			c->peer_answers = false;
			spray_txwin_answer_probed(&c->tw, now);
			spray_queue_window_probe(c, now, &q);
		} else if (rto && rto <= now) {
			spray_conn_rto(c, now, false);
		}
		/*
		 * The grant stops us, and its ACK may be lost: probe, with a
		 * PROBE where the receiver answers one with its grant
		 */
		wprobe = c->peer_caps & SPRAY_CAP_WINDOW_PROBE;
		if (spray_conn_persist_deadline(c) &&
		    spray_txwin_on_persist(&c->tw, now, !wprobe)) {
			spray_mib_inc(sn, SPRAY_MIB_WINDOW_PROBES);
			if (wprobe)
				spray_queue_window_probe(c, now, &q);
		}
		if (c->tw.failed)
			spray_tx_fail_all(c, spray_conn_timeout_err(c));
		spray_conn_tx_feedback(c, now, &q);
	}
	spray_conn_arm(c, now);
out:
	spin_unlock_bh(&ss->lock);
	spray_xmit_queue(sn, &q);
	return HRTIMER_NORESTART;
}


// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY send window.
 *
 * Records of psns [una, nxt) live in a caller-provided ring indexed by
 * psn & mask. A psn is INFLIGHT after (re)transmission, SACKED when a SACK
 * bit names it, LOST when RACK, a NACK or the RTO declares it lost (until it
 * is retransmitted), FAILED at the retry limit. The cumulative ack frees
 * records. RTT samples come from the timestamp echo (the receiver echoes the
 * ts_ns of the transmission it got), so they are valid for retransmissions
 * too (Karn's problem does not arise).
 */
#include "txwin.h"

/**
 * spray_txwin_cfg_default() - fill the default send tunables
 * @cfg: to fill
 */
void spray_txwin_cfg_default(struct spray_txwin_cfg *cfg)
{
	cfg->rto_init_ns = 1000000;
	cfg->rto_min_ns = 200000;
	cfg->rto_max_ns = 100000000;
	cfg->reorder_min_ns = 10000;
	cfg->max_retx = 15;
}

/**
 * spray_txwin_init() - start the send window of a new incarnation
 * @tw: state to initialise
 * @ring: caller storage for @ring_size records
 * @ring_size: a power of two, at most 2^15; the most psns outstanding
 * @isn: first psn (the incarnation's src_cid)
 * @grant: initial grant psn (isn + unscheduled packets); see cc.h
 * @cfg: tunables, copied; NULL for defaults
 *
 * Return: 0, or -EINVAL for a bad ring size or config.
 */
int spray_txwin_init(struct spray_txwin *tw, struct spray_txrec *ring,
		     u32 ring_size, u32 isn, u32 grant,
		     const struct spray_txwin_cfg *cfg)
{
	if (!ring || !ring_size || (ring_size & (ring_size - 1)) ||
	    ring_size > (1U << 15))
		return -EINVAL;
	memset(tw, 0, sizeof(*tw));
	if (cfg)
		tw->cfg = *cfg;
	else
		spray_txwin_cfg_default(&tw->cfg);
	if (!tw->cfg.rto_min_ns || tw->cfg.rto_min_ns > tw->cfg.rto_max_ns)
		return -EINVAL;
	memset(ring, 0, sizeof(*ring) * ring_size);
	tw->ring = ring;
	tw->mask = ring_size - 1;
	tw->una = isn;
	tw->nxt = isn;
	tw->lost_low = isn;
	tw->t_head = SPRAY_TX_NIL;
	tw->t_tail = SPRAY_TX_NIL;
	tw->grant = grant;
	tw->refused_top = isn;
	tw->rto_ns = clamp_t(u32, tw->cfg.rto_init_ns, tw->cfg.rto_min_ns,
			     tw->cfg.rto_max_ns);
	tw->reo_mult = 1;
	return 0;
}

/**
 * spray_txwin_rec() - the record of an outstanding psn
 * @tw: send window
 * @psn: psn
 *
 * Return: the record, or NULL if @psn is not in [una, nxt).
 */
struct spray_txrec *spray_txwin_rec(struct spray_txwin *tw, u32 psn)
{
	if (!spray_psn_in(psn, tw->una, tw->nxt))
		return NULL;
	return &tw->ring[psn & tw->mask];
}

/*
 * The sent list: INFLIGHT and REFUSED records in the order of their latest
 * transmission (doubly linked through the ring by index). Appended at each
 * transmission, unlinked when a record leaves those states: O(1) each.
 */
static void txw_link(struct spray_txwin *tw, struct spray_txrec *rec)
{
	u16 idx = (u16)(rec - tw->ring);

	rec->tnext = SPRAY_TX_NIL;
	rec->tprev = (u16)tw->t_tail;
	if (tw->t_tail == SPRAY_TX_NIL)
		tw->t_head = idx;
	else
		tw->ring[tw->t_tail].tnext = idx;
	tw->t_tail = idx;
}

/* Cut @first .. @last, a stretch of the list, out (their links stay). */
static void txw_cut(struct spray_txwin *tw, const struct spray_txrec *first,
		    const struct spray_txrec *last)
{
	if (first->tprev == SPRAY_TX_NIL)
		tw->t_head = last->tnext;
	else
		tw->ring[first->tprev].tnext = last->tnext;
	if (last->tnext == SPRAY_TX_NIL)
		tw->t_tail = first->tprev;
	else
		tw->ring[last->tnext].tprev = first->tprev;
}

static void txw_unlink(struct spray_txwin *tw, struct spray_txrec *rec)
{
	txw_cut(tw, rec, rec);
	rec->tprev = SPRAY_TX_NIL;
	rec->tnext = SPRAY_TX_NIL;
}

/* the psn of a ring record (within [una, nxt)) */
static u32 txw_psn(const struct spray_txwin *tw, const struct spray_txrec *rec)
{
	return tw->una + (((u32)(rec - tw->ring) - tw->una) & tw->mask);
}

/**
 * spray_txwin_room() - how many new psns may be sent now
 * @tw: send window
 * @cwnd_pkts: congestion window in packets (U32_MAX if none)
 *
 * Sending is bounded by the congestion window (packets in flight), the
 * receiver's grant and the ring. Retransmissions need only cwnd room:
 * cwnd_pkts - inflight. REFUSED psns are not in flight: what to send
 * while the receiver refuses is the caller's choice (conn.c sends only
 * the rest of messages the receiver admitted).
 *
 * Return: number of new psns allowed.
 */
u32 spray_txwin_room(const struct spray_txwin *tw, u32 cwnd_pkts)
{
	u32 ring_room = tw->mask + 1 - (tw->nxt - tw->una);
	u32 cw_room, grant_room = 0;

	if (tw->failed)
		return 0;
	cw_room = cwnd_pkts > tw->inflight + tw->lost ?
		  cwnd_pkts - tw->inflight - tw->lost : 0;
	if (spray_psn_after(tw->grant, tw->nxt))
		grant_room = tw->grant - tw->nxt;
	else if (tw->probe_ok)
		grant_room = 1;
	return spray_min3_u32(cw_room, grant_room, ring_room);
}

/**
 * spray_txwin_send_new() - record the first transmission of a new psn
 * @tw: send window; the caller checked spray_txwin_room() > 0
 * @now_ns: send time (also the ts_ns put in the packet)
 * @ev: EV index used
 * @msg_id: message of the fragment
 * @frag_off: fragment offset
 * @len: payload bytes
 * @msg: the caller's message (kept in the record, opaque)
 *
 * Return: the psn to put in the packet.
 */
u32 spray_txwin_send_new(struct spray_txwin *tw, u64 now_ns, u16 ev,
			 u32 msg_id, u32 frag_off, u16 len, void *msg)
{
	return spray_txwin_send_run(tw, now_ns, ev, msg_id, frag_off, len, len,
				    1, msg);
}

/**
 * spray_txwin_send_run() - record the first transmissions of a train's
 *	packets of one message
 * @tw: send window; the caller checked spray_txwin_room() >= @n (or 1)
 * @now_ns: send time
 * @ev: EV index used
 * @msg_id: their message
 * @frag_off: the first's fragment offset; each next one follows at @len
 * @len: payload bytes of each but the last
 * @last_len: the last's
 * @n: how many, from 1
 * @msg: the caller's message
 *
 * Leaves the window as recording the packets one at a time would
 * (spray_txwin_send_new() is a run of one; the unit tests compare them).
 *
 * Return: the first psn.
 */
u32 spray_txwin_send_run(struct spray_txwin *tw, u64 now_ns, u16 ev,
			 u32 msg_id, u32 frag_off, u16 len, u16 last_len,
			 u32 n, void *msg)
{
	u32 first = tw->nxt, i;
	struct spray_txrec *rec;

	if (!n)
		return first;
	if (!tw->inflight && !tw->lost && !tw->refused)
		tw->rto_start_ns = now_ns;
	/* the silence the RTO bounds starts now */
	if (!spray_txwin_outstanding(tw))
		tw->heard_ns = now_ns;
	for (i = 0; i < n; i++) {
		rec = &tw->ring[(first + i) & tw->mask];
		rec->sent_ns = now_ns;
		rec->msg_id = msg_id;
		rec->frag_off = frag_off + i * len;
		rec->len = i + 1 < n ? len : last_len;
		rec->ev = ev;
		rec->retx = 0;
		rec->state = SPRAY_TXREC_INFLIGHT;
		rec->why = 0;
		rec->msg = msg;
		txw_link(tw, rec);
	}
	tw->inflight += n;
	tw->sent += n;
	tw->probe_ok = false;
	tw->nxt += n;
	return first;
}

/**
 * spray_txwin_next_retx() - choose the psn to retransmit next
 * @tw: send window
 * @psn: set to the lowest LOST psn
 *
 * Return: true if a psn awaits retransmission.
 */
bool spray_txwin_next_retx(struct spray_txwin *tw, u32 *psn)
{
	u32 p;

	if (!tw->lost)
		return false;
	/* nothing before lost_low is LOST: amortized O(1) */
	if (!spray_psn_in(tw->lost_low, tw->una, tw->nxt))
		tw->lost_low = tw->una;
	for (p = tw->lost_low; p != tw->nxt; p++) {
		if (tw->ring[p & tw->mask].state == SPRAY_TXREC_LOST) {
			tw->lost_low = p;
			*psn = p;
			return true;
		}
	}
	tw->lost_low = tw->nxt;
	return false;
}

/**
 * spray_txwin_sent_retx() - record the retransmission of a LOST psn
 * @tw: send window
 * @psn: the psn from spray_txwin_next_retx()
 * @ev: EV index used (preferably not the one that lost it)
 * @now_ns: send time (also the ts_ns put in the packet)
 */
void spray_txwin_sent_retx(struct spray_txwin *tw, u32 psn, u16 ev,
			   u64 now_ns)
{
	struct spray_txrec *rec = spray_txwin_rec(tw, psn);

	if (!rec || rec->state != SPRAY_TXREC_LOST)
		return;
	if (!tw->inflight && !tw->lost && !tw->refused)
		tw->rto_start_ns = now_ns;
	rec->state = SPRAY_TXREC_INFLIGHT;
	rec->sent_ns = now_ns;
	rec->ev = ev;
	rec->retx++;
	txw_link(tw, rec);
	tw->lost--;
	tw->inflight++;
	tw->retx++;
}

/* the RTO never goes below this: the configured floor, or the learnt one */
static u32 txw_rto_floor(const struct spray_txwin *tw)
{
	return max(tw->cfg.rto_min_ns, tw->rto_floor_ns);
}

static void txw_rtt_sample(struct spray_txwin *tw, u32 rtt, u64 now_ns)
{
	u32 delta;

	if (!rtt)
		rtt = 1;
	if (!tw->srtt_ns) {
		tw->srtt_ns = rtt;
		tw->rttvar_ns = rtt / 2;
		tw->min_rtt_ns = rtt;
	} else {
		delta = tw->srtt_ns > rtt ? tw->srtt_ns - rtt :
					    rtt - tw->srtt_ns;
		tw->rttvar_ns = tw->rttvar_ns - tw->rttvar_ns / 4 + delta / 4;
		tw->srtt_ns = tw->srtt_ns - tw->srtt_ns / 8 + rtt / 8;
		tw->min_rtt_ns = min(tw->min_rtt_ns, rtt);
	}
	/*
	 * The slowest path's RTT, recently: a new maximum at once, then
	 * 1/64 of the way down per sample. Paths with deeper queues deliver
	 * later than srtt says; waiting that long is no loss.
	 */
	if (rtt >= tw->rtt_max_ns)
		tw->rtt_max_ns = rtt;
	else
		tw->rtt_max_ns -= (tw->rtt_max_ns - rtt) / 64;
	/* the learnt floor loses an eighth per second without a spurious RTO */
	if (tw->rto_floor_ns &&
	    now_ns - tw->rto_spurious_ns > SPRAY_TX_RTO_FLOOR_HOLD_NS) {
		tw->rto_floor_ns -= tw->rto_floor_ns / 8;
		if (tw->rto_floor_ns <= tw->cfg.rto_min_ns)
			tw->rto_floor_ns = 0;
		tw->rto_spurious_ns = now_ns;
	}
	/*
	 * Not capped by cfg.rto_max_ns: that bounds the backoff. A timeout
	 * shorter than the path's RTT fires before any ACK can come, every
	 * time (a fabric with deep queues or a long reach: RTTs above the
	 * ceiling, as RFC 6298 forbids for TCP).
	 */
	tw->rto_ns = (u32)clamp_t(u64, (u64)tw->srtt_ns + 4ULL * tw->rttvar_ns,
				  txw_rto_floor(tw),
				  max(tw->cfg.rto_max_ns, SPRAY_TXWIN_RTO_LIMIT_NS));
}

/*
 * An RTO declared a psn lost that was not: raise the RTO's floor to 5/4 of
 * @delay_ns, the round trip it took (0: unknown, then twice the RTO), at
 * most the RTO's ceiling (cfg.rto_max_ns).
 */
static void txw_rto_spurious(struct spray_txwin *tw, u64 delay_ns, u64 now_ns)
{
	u64 floor = delay_ns ? delay_ns * 5 / 4 : 2ULL * tw->rto_ns;

	floor = min_t(u64, floor, tw->cfg.rto_max_ns);
	if (floor > tw->rto_floor_ns)
		tw->rto_floor_ns = (u32)floor;
	tw->rto_spurious_ns = now_ns;
	if (tw->rto_ns < tw->rto_floor_ns)
		tw->rto_ns = tw->rto_floor_ns;
}

/* the RTO ceiling: cfg.rto_max_ns, or the RTO itself when above it */
static u64 txw_rto_ceiling(const struct spray_txwin *tw)
{
	return max_t(u64, tw->cfg.rto_max_ns, tw->rto_ns);
}

static void txw_deliver(struct spray_txwin *tw, u32 psn, u64 now_ns,
			struct spray_txrec *rec, bool ce, bool sack,
			const struct spray_ack *ack,
			const struct spray_txwin_ops *ops, void *ctx,
			struct spray_txack_sum *sum)
{
	if (rec->state == SPRAY_TXREC_INFLIGHT) {
		txw_unlink(tw, rec);
		tw->inflight--;
	} else if (rec->state == SPRAY_TXREC_REFUSED) {
		txw_unlink(tw, rec);
		tw->refused--;
	} else if (rec->state == SPRAY_TXREC_LOST) {
		tw->lost--;
		tw->spurious++;
		/* before its retransmission went: its round trip is known */
		if (rec->why == SPRAY_LOSS_RTO && now_ns > rec->sent_ns)
			txw_rto_spurious(tw, now_ns - rec->sent_ns, now_ns);
		if (ops && ops->spurious && rec->why)
			ops->spurious(ctx, psn, rec);
		rec->why = 0;
	}
	/*
	 * RACK: the send time of what was delivered. A retransmitted psn
	 * counts only if the echo proves the latest transmission arrived.
	 */
	if (!rec->retx || (ack->echo_psn == psn &&
			   ack->ts_echo == rec->sent_ns)) {
		/*
		 * Overtaken by a packet sent later, it took d longer than
		 * srtt: the reorder window must cover d or RACK would have
		 * declared it lost. Remember the largest recent d (decaying
		 * by 1/16 per observation).
		 */
		if (rec->sent_ns < tw->rack_ns && tw->srtt_ns &&
		    now_ns > rec->sent_ns + tw->srtt_ns) {
			u64 d = now_ns - rec->sent_ns - tw->srtt_ns;

			tw->reo_obs_ns -= tw->reo_obs_ns / 16;
			if (d > tw->reo_obs_ns)
				tw->reo_obs_ns = (u32)min_t(u64, d, U32_MAX);
		}
		if (rec->sent_ns > tw->rack_ns ||
		    (rec->sent_ns == tw->rack_ns &&
		     spray_psn_after(psn, tw->rack_psn))) {
			tw->rack_ns = rec->sent_ns;
			tw->rack_psn = psn;
		}
		if (rec->ev < SPRAY_TX_MAX_EVS)
			tw->ev_rack[rec->ev] = max(tw->ev_rack[rec->ev],
						   rec->sent_ns);
	}
	tw->acked++;
	sum->pkts++;
	sum->bytes += rec->len;
	if (ce) {
		sum->ce_pkts++;
		sum->ce_bytes += rec->len;
	}
	if (ops && ops->acked)
		ops->acked(ctx, psn, rec, ce);
	if (sack) {
		rec->state = SPRAY_TXREC_SACKED;
		tw->sacked++;
	}
}

/* the ACK's ECN bit of @psn (none outside its SACK range) */
static bool txw_ce(const struct spray_ack *ack, u32 psn)
{
	u32 i = psn - ack->sack_base;

	return i < 64 && (ack->ecn & (1ULL << i));
}

/*
 * How many psns from @psn (its record @rec, a first transmission in
 * flight), before the ACK's cum_psn, are like it: in flight, sent once,
 * at its time, on its EV, of its message, not CE-marked, and each next to
 * the one before in the sent list (sent together, none moved since: a
 * stretch of the list, cut out whole); their bytes in @bytes.
 */
static u32 txw_run_len(const struct spray_txwin *tw, u32 psn,
		       const struct spray_txrec *rec,
		       const struct spray_ack *ack, u32 *bytes)
{
	u16 prev = (u16)(rec - tw->ring);
	const struct spray_txrec *r;
	u32 n = 1;

	*bytes = rec->len;
	for (psn++; spray_psn_before(psn, ack->cum_psn); psn++, n++) {
		r = &tw->ring[psn & tw->mask];
		if (r->state != SPRAY_TXREC_INFLIGHT || r->retx ||
		    r->sent_ns != rec->sent_ns || r->ev != rec->ev ||
		    r->msg != rec->msg || r->tprev != prev ||
		    txw_ce(ack, psn))
			break;
		*bytes += r->len;
		prev = (u16)(psn & tw->mask);
	}
	return n;
}

/*
 * Deliver the @n psns from @psn (@bytes in all) that txw_run_len() found,
 * as @n calls of txw_deliver() would (not CE-marked, not SACKed), the
 * verdict in one ops->acked_run() call; their records are cleared.
 */
static void txw_deliver_run(struct spray_txwin *tw, u32 psn, u32 n,
			    u32 bytes, u64 now_ns, struct spray_txrec *first,
			    const struct spray_txwin_ops *ops, void *ctx,
			    struct spray_txack_sum *sum)
{
	struct spray_txrec *rec = &tw->ring[(psn + n - 1) & tw->mask];
	u64 sent = first->sent_ns, d;
	u32 last = psn + n - 1, i;

	/* first..rec, a stretch of the sent list: unlinked at once */
	txw_cut(tw, first, rec);
	tw->inflight -= n;
	/* each overtaken by as much: the reordering seen, n times */
	if (sent < tw->rack_ns && tw->srtt_ns && now_ns > sent + tw->srtt_ns) {
		d = now_ns - sent - tw->srtt_ns;
		for (i = 0; i < n; i++) {
			tw->reo_obs_ns -= tw->reo_obs_ns / 16;
			if (d > tw->reo_obs_ns)
				tw->reo_obs_ns = (u32)min_t(u64, d, U32_MAX);
		}
	}
	if (sent > tw->rack_ns ||
	    (sent == tw->rack_ns && spray_psn_after(last, tw->rack_psn))) {
		tw->rack_ns = sent;
		tw->rack_psn = last;
	}
	if (first->ev < SPRAY_TX_MAX_EVS)
		tw->ev_rack[first->ev] = max(tw->ev_rack[first->ev], sent);
	tw->acked += n;
	sum->pkts += n;
	sum->bytes += bytes;
	ops->acked_run(ctx, psn, n, first, bytes);
	for (i = 0; i < n; i++) {
		rec = &tw->ring[(psn + i) & tw->mask];
		rec->state = 0;
		rec->tprev = SPRAY_TX_NIL;
		rec->tnext = SPRAY_TX_NIL;
	}
}

static void txw_mark_lost(struct spray_txwin *tw, u32 psn,
			  struct spray_txrec *rec, enum spray_loss_why why,
			  const struct spray_txwin_ops *ops, void *ctx)
{
	txw_unlink(tw, rec);
	if (rec->state == SPRAY_TXREC_REFUSED) {
		tw->refused--;
		why = SPRAY_LOSS_REFUSED;
	} else {
		tw->inflight--;
	}
	if (rec->retx >= tw->cfg.max_retx) {
		rec->state = SPRAY_TXREC_FAILED;
		tw->failed = true;
		if (ops && ops->failed)
			ops->failed(ctx, psn, rec);
		return;
	}
	rec->state = SPRAY_TXREC_LOST;
	rec->why = why;
	if (!tw->lost || spray_psn_before(psn, tw->lost_low))
		tw->lost_low = psn;
	tw->lost++;
	if (why == SPRAY_LOSS_RACK)
		tw->lost_rack++;
	else if (why == SPRAY_LOSS_NACK)
		tw->lost_nack++;
	else if (why == SPRAY_LOSS_RTO)
		tw->lost_rto++;
	if (ops && ops->lost)
		ops->lost(ctx, psn, rec, why);
}

/*
 * An ACK echoes the psn whose arrival triggered it. If that psn had been
 * delivered already, the receiver got a duplicate: a retransmission that
 * was not needed. Spraying reordered more than the reorder window allowed,
 * so widen it (RACK's reo_wnd_mult, RFC 8985 6.2); it shrinks back slowly.
 */
static void txw_check_spurious(struct spray_txwin *tw,
			       const struct spray_ack *ack, u64 now_ns,
			       const struct spray_txwin_ops *ops, void *ctx)
{
	struct spray_txrec *rec;
	u32 psn = ack->echo_psn;

	if (!spray_psn_before(psn, tw->nxt) ||
	    spray_psn_before(psn, tw->nxt - (tw->mask + 1)))
		return;
	rec = &tw->ring[psn & tw->mask];
	if (!rec->retx)
		return;
	/*
	 * The echo is of a transmission before the latest (RFC 3522's
	 * timestamps): the psn arrived without its retransmission. If an
	 * RTO declared it lost, the timer was shorter than this round trip.
	 */
	if (rec->why == SPRAY_LOSS_RTO && rec->state == SPRAY_TXREC_INFLIGHT &&
	    ack->ts_echo && ack->ts_echo < rec->sent_ns &&
	    now_ns > ack->ts_echo) {
		u64 rtt = now_ns - ack->ts_echo;

		if (ack->hold_ns < rtt)
			rtt -= ack->hold_ns;
		txw_rto_spurious(tw, rtt, now_ns);
	}
	if (spray_psn_before(psn, tw->una) ||
	    rec->state == SPRAY_TXREC_SACKED) {
		/*
		 * The duplicate of an RTO's retransmission: the RTO was
		 * early, unless that was found since it was sent (above).
		 */
		if (rec->why == SPRAY_LOSS_RTO &&
		    tw->rto_spurious_ns < rec->sent_ns)
			txw_rto_spurious(tw, 0, now_ns);
		tw->spurious++;
		tw->reo_calm = 0;
		if (tw->reo_mult < 64)
			tw->reo_mult *= 2;
		if (ops && ops->spurious && rec->why)
			ops->spurious(ctx, psn, rec);
		rec->why = 0;
	}
}

/* Every 4096 packets delivered without a spurious retransmission, halve. */
static void txw_reo_decay(struct spray_txwin *tw, u32 pkts)
{
	tw->reo_calm += pkts;
	if (tw->reo_calm >= 4096) {
		tw->reo_calm = 0;
		if (tw->reo_mult > 1)
			tw->reo_mult /= 2;
	}
}

/* Take a grant that moves forward and is not bogus; true if it moved. */
static bool txw_take_grant(struct spray_txwin *tw, u32 grant_psn)
{
	if (!spray_psn_after(grant_psn, tw->grant) ||
	    spray_psn_after(grant_psn, tw->una + SPRAY_TX_GRANT_MAX))
		return false;
	tw->grant = grant_psn;
	return true;
}

/*
 * The receiver made room (its grant moved): what it refused goes again now,
 * not at the next RTO. Not what was resent less than half an srtt ago: the
 * refusal may have been of an earlier transmission.
 */
static void txw_release_refused(struct spray_txwin *tw, u64 now_ns,
				const struct spray_txwin_ops *ops, void *ctx)
{
	u64 guard = tw->srtt_ns / 2;
	struct spray_txrec *rec;
	u32 i, next;

	/* oldest first; what was resent within the guard is newer still */
	for (i = tw->t_head; i != SPRAY_TX_NIL && tw->refused; i = next) {
		rec = &tw->ring[i];
		next = rec->tnext;
		if (now_ns < rec->sent_ns + guard)
			break;
		if (rec->state == SPRAY_TXREC_REFUSED)
			txw_mark_lost(tw, txw_psn(tw, rec), rec,
				      SPRAY_LOSS_REFUSED, ops, ctx);
	}
}

/**
 * spray_txwin_on_ack() - apply an ACK
 * @tw: send window
 * @ack: the ACK (from spray_pkt_parse())
 * @now_ns: arrival time
 * @ops: verdict callbacks (may be NULL)
 * @ctx: passed to @ops
 * @sum: filled with what changed, for congestion control
 *
 * Delivers every psn before cum_psn and every SACK bit, once each, with its
 * ECN bit (psns cum-acked outside the SACK range report no CE); raises the
 * grant (never lowers it); takes an RTT sample from ts_echo - hold_ns;
 * restarts the RTO on progress; then runs RACK loss detection. ACKs may
 * arrive reordered: an old cum_psn is ignored, its SACK bits still count.
 *
 * Return: 0, or -EINVAL if the ACK acknowledges psns never sent (nothing
 * changed then).
 */
int spray_txwin_on_ack(struct spray_txwin *tw, const struct spray_ack *ack,
		       u64 now_ns, const struct spray_txwin_ops *ops,
		       void *ctx, struct spray_txack_sum *sum)
{
	u32 psn, i, n, bytes;
	struct spray_txrec *rec;
	u64 bits;

	memset(sum, 0, sizeof(*sum));
	if (spray_psn_after(ack->cum_psn, tw->nxt)) {
		tw->bad_acks++;
		return -EINVAL;
	}
	tw->heard_ns = now_ns;
	txw_check_spurious(tw, ack, now_ns, ops, ctx);

	/* cumulative part: a train's first transmissions as one run */
	for (psn = tw->una; spray_psn_before(psn, ack->cum_psn); psn += n) {
		rec = &tw->ring[psn & tw->mask];
		n = 1;
		if (rec->state == SPRAY_TXREC_INFLIGHT && !rec->retx && ops &&
		    ops->acked_run && !txw_ce(ack, psn)) {
			n = txw_run_len(tw, psn, rec, ack, &bytes);
			txw_deliver_run(tw, psn, n, bytes, now_ns, rec, ops,
					ctx, sum);
			continue;
		}
		if (rec->state == SPRAY_TXREC_SACKED) {
			tw->sacked--;
		} else if (rec->state == SPRAY_TXREC_INFLIGHT ||
			   rec->state == SPRAY_TXREC_LOST ||
			   rec->state == SPRAY_TXREC_REFUSED) {
			txw_deliver(tw, psn, now_ns, rec, txw_ce(ack, psn),
				    false, ack, ops, ctx, sum);
		}
		rec->state = 0;
	}
	if (spray_psn_after(ack->cum_psn, tw->una)) {
		tw->una = ack->cum_psn;
		sum->cum_advanced = true;
	}
	/* kept at una when passed: psns wrap */
	if (!spray_psn_after(tw->refused_top, tw->una))
		tw->refused_top = tw->una;

	/*
	 * selective part: the range's psns before una, acknowledged already
	 * (most of its bits, once cum passed them), are not looked up
	 */
	bits = ack->sack & ~spray_psn_bits_before(ack->sack_base, tw->una);
	while (bits) {
		i = spray_ffs64(bits);
		bits &= bits - 1;
		psn = ack->sack_base + i;
		rec = spray_txwin_rec(tw, psn);
		if (!rec || (rec->state != SPRAY_TXREC_INFLIGHT &&
			     rec->state != SPRAY_TXREC_LOST &&
			     rec->state != SPRAY_TXREC_REFUSED))
			continue;
		txw_deliver(tw, psn, now_ns, rec, ack->ecn & (1ULL << i), true, ack,
			    ops, ctx, sum);
	}

	if (txw_take_grant(tw, ack->grant_psn) && tw->refused)
		txw_release_refused(tw, now_ns, ops, ctx);

	if (ack->ts_echo && ack->ts_echo <= now_ns &&
	    now_ns - ack->ts_echo <= U32_MAX) {
		u32 rtt = (u32)(now_ns - ack->ts_echo);

		if (ack->hold_ns < rtt)
			rtt -= ack->hold_ns;
		txw_rtt_sample(tw, rtt, now_ns);
		sum->rtt_ns = rtt;
		sum->echo_ns = ack->ts_echo;
	}

	if (sum->pkts) {
		tw->backoff = 0;
		tw->rto_start_ns = now_ns;
		txw_reo_decay(tw, sum->pkts);
	}
	spray_txwin_detect_loss(tw, now_ns, ops, ctx);
	return 0;
}

/*
 * How old a packet must be before evidence that later ones arrived (RACK,
 * or a NACK) makes it lost: srtt plus the reorder window, max(min_rtt / 4
 * times the adaptive multiplier, cfg.reorder_min_ns), at most 2 srtt, and
 * never below 1.25 times the reordering recently observed.
 */
static u64 txw_loss_wait(const struct spray_txwin *tw)
{
	u64 reo = max_t(u64, (u64)tw->min_rtt_ns / 4 * tw->reo_mult,
			tw->cfg.reorder_min_ns);

	if (tw->srtt_ns)
		reo = min_t(u64, reo, 2ULL * tw->srtt_ns);
	/* never below the reordering actually seen, plus a quarter */
	reo = max_t(u64, reo, (u64)tw->reo_obs_ns * 5 / 4);
	return (u64)(tw->srtt_ns ? tw->srtt_ns : tw->rto_ns) + reo;
}

/* twice the slowest path's recent RTT, never beyond the RTO ceiling */
static u64 txw_rtt_max2(const struct spray_txwin *tw)
{
	return min_t(u64, 2ULL * tw->rtt_max_ns, txw_rto_ceiling(tw));
}

/*
 * ... and overtaken on other EVs only: at least twice the slowest
 * path's recent RTT (its queue may still grow while the packet waits).
 */
static u64 txw_loss_wait_cross(const struct spray_txwin *tw)
{
	u64 wait = max_t(u64, txw_loss_wait(tw), 2ULL * tw->srtt_ns);

	return max_t(u64, wait, txw_rtt_max2(tw));
}

/**
 * spray_txwin_detect_loss() - RACK-style loss detection
 * @tw: send window
 * @now_ns: current time
 * @ops: verdict callbacks (may be NULL)
 * @ctx: passed to @ops
 *
 * An INFLIGHT psn is lost when a psn sent no earlier than it has been
 * delivered and it is older than srtt + reorder window (max(min_rtt / 4,
 * cfg.reorder_min_ns)). Spraying reorders packets by up to the spread of
 * path delays; the reorder window absorbs it. Called by
 * spray_txwin_on_ack(); call it also when the returned deadline passes.
 *
 * Return: when the next psn would become lost (arm a timer), 0 if none.
 */
u64 spray_txwin_detect_loss(struct spray_txwin *tw, u64 now_ns,
			    const struct spray_txwin_ops *ops, void *ctx)
{
	u64 wait, wait_ev, deadline, next = 0;
	struct spray_txrec *rec;
	u32 psn, i, nexti;

	if (!tw->rack_ns || !tw->inflight)
		return 0;
	/*
	 * Overtaken on its own EV, a packet is lost after the plain RACK
	 * window: one EV is one path and one queue, where packets stay in
	 * order. Overtaken only on other EVs, it may just have met a longer
	 * queue: the wider, adaptive window applies, at least 2 srtt and the
	 * slowest path's recent RTT.
	 */
	wait = txw_loss_wait_cross(tw);
	wait_ev = (u64)(tw->srtt_ns ? tw->srtt_ns : tw->rto_ns) +
		  max_t(u64, tw->min_rtt_ns / 4, tw->cfg.reorder_min_ns);
	/*
	 * The sent list, oldest transmission first: it stops at the first
	 * packet sent after the newest delivered one (no evidence for it nor
	 * for any later), and at the first not old enough even for the
	 * shorter window (no later one is older).
	 */
	for (i = tw->t_head; i != SPRAY_TX_NIL; i = nexti) {
		rec = &tw->ring[i];
		nexti = rec->tnext;
		if (rec->sent_ns > tw->rack_ns)
			break;
		if (rec->state != SPRAY_TXREC_INFLIGHT)
			continue;
		psn = txw_psn(tw, rec);
		if (rec->sent_ns == tw->rack_ns &&
		    !spray_psn_before(psn, tw->rack_psn))
			continue;
		if (rec->ev < SPRAY_TX_MAX_EVS &&
		    rec->sent_ns < tw->ev_rack[rec->ev])
			deadline = rec->sent_ns + wait_ev;
		else
			deadline = rec->sent_ns + wait;
		if (now_ns >= deadline) {
			txw_mark_lost(tw, psn, rec, SPRAY_LOSS_RACK, ops, ctx);
			continue;
		}
		if (!next || deadline < next)
			next = deadline;
		if (now_ns < rec->sent_ns + wait_ev)
			break;
	}
	return next;
}

/**
 * spray_txwin_on_nack() - apply a NACK
 * @tw: send window
 * @psn: first psn named
 * @count: how many
 * @reason: enum spray_nack_reason
 * @cum_psn: the NACK's cumulative ack
 * @grant_psn: the NACK's grant
 * @now_ns: arrival time
 * @ops: verdict callbacks (may be NULL)
 * @ctx: passed to @ops
 *
 * Applies @cum_psn and @grant_psn as an ACK would. For LOSS, declares the
 * named INFLIGHT psns lost, except those (re)sent less than srtt + reorder
 * window ago (the receiver may have NACKed before reordering delivered
 * them, as RACK's rule).
 *
 * WINDOW and NO_BUF refuse the psns: they reached the receiver, which had
 * no room. That says nothing against their paths nor of congestion, and
 * it must not spend the retry budget (a receiver that stops reading for a
 * while is no failure): the INFLIGHT psns become REFUSED and their retry
 * count starts again. Not in flight, they leave room in cwnd for what the
 * receiver does take (the rest of a message it admitted); they wait until
 * its grant moves (it made room) or the RTO fires, as an RNR NAK waits for
 * its timer: a receiver that does not read costs a few packets per RTO,
 * not a stream of refusals.
 *
 * MSG_SIZE says the receiver does not take the psn's message at all (it
 * is longer than the receiver's maximum); the receiver acknowledges its
 * psns without keeping them. Applied as an ACK up to @psn, not past it
 * (@psn's record stays); the caller fails the message of @psn and sends
 * no more of it.
 *
 * RESUME says the receiver has room again (it read, or admitted the
 * message the refused psns belong to): every REFUSED psn goes again at
 * once (LOST with why REFUSED), without waiting for its grant to move or
 * the RTO. Applied as an ACK first.
 *
 * Return: psns declared lost (0 for a refusal), -ECONNRESET for
 * SPRAY_NACK_NO_CONN (the caller starts a new incarnation), -EMSGSIZE for
 * SPRAY_NACK_MSG_SIZE (after the ACK part), -EINVAL for a NACK of psns
 * never sent.
 */
int spray_txwin_on_nack(struct spray_txwin *tw, u32 psn, u16 count,
			u8 reason, u32 cum_psn, u32 grant_psn, u64 now_ns,
			const struct spray_txwin_ops *ops, void *ctx)
{
	struct spray_ack ack = {
		.cum_psn = cum_psn,
		.sack_base = cum_psn,
		.grant_psn = grant_psn,
	};
	struct spray_txack_sum sum;
	struct spray_txrec *rec;
	int err, n = 0;
	u64 guard;

	if (reason == SPRAY_NACK_NO_CONN)
		return -ECONNRESET;
	if (!count || count > SPRAY_NACK_MAX_COUNT ||
	    spray_psn_after(psn + count, tw->nxt)) {
		tw->bad_acks++;
		return -EINVAL;
	}
	if (reason == SPRAY_NACK_NO_BUF || reason == SPRAY_NACK_WINDOW) {
		if (spray_psn_after(cum_psn, tw->nxt)) {
			tw->bad_acks++;
			return -EINVAL;
		}
		/*
		 * Marked before the ACK part runs, so that RACK leaves them;
		 * the grant is taken without releasing them: the receiver
		 * refused them with this very grant.
		 */
		for (; count; count--, psn++) {
			rec = spray_txwin_rec(tw, psn);
			if (!rec || (rec->state != SPRAY_TXREC_INFLIGHT &&
				     rec->state != SPRAY_TXREC_LOST &&
				     rec->state != SPRAY_TXREC_REFUSED))
				continue;
			if (!tw->refusal_costs)
				rec->retx = 0;
			tw->refusals++;
			if (spray_psn_after(psn + 1, tw->refused_top))
				tw->refused_top = psn + 1;
			if (rec->state != SPRAY_TXREC_INFLIGHT)
				continue;
			rec->state = SPRAY_TXREC_REFUSED;
			tw->inflight--;
			tw->refused++;
		}
		ack.grant_psn = tw->grant;
		err = spray_txwin_on_ack(tw, &ack, now_ns, ops, ctx, &sum);
		if (!err)
			txw_take_grant(tw, grant_psn);
		return err;
	}
	/*
	 * Not past the psn named: its record stays for the caller to find its
	 * message by, which the ACK part would have completed and freed if
	 * it covered the message; the receiver's next ACK takes the rest
	 */
	if (reason == SPRAY_NACK_MSG_SIZE && spray_psn_after(ack.cum_psn, psn)) {
		ack.cum_psn = psn;
		ack.sack_base = psn;
	}
	err = spray_txwin_on_ack(tw, &ack, now_ns, ops, ctx, &sum);
	if (err)
		return err;
	if (reason == SPRAY_NACK_MSG_SIZE)
		return -EMSGSIZE;
	if (reason == SPRAY_NACK_RESUME) {
		u32 i, next;

		/* the receiver made room: what it refused goes again, now */
		for (i = tw->t_head; i != SPRAY_TX_NIL && tw->refused; i = next) {
			rec = &tw->ring[i];
			next = rec->tnext;
			if (rec->state == SPRAY_TXREC_REFUSED)
				txw_mark_lost(tw, txw_psn(tw, rec), rec,
					      SPRAY_LOSS_REFUSED, ops, ctx);
		}
		return 0;
	}

	/*
	 * A NACK is evidence as RACK's is when overtaken on other EVs: the
	 * receiver sees a hole, not which path the packet took.
	 */
	guard = txw_loss_wait_cross(tw);
	for (; count; count--, psn++) {
		rec = spray_txwin_rec(tw, psn);
		if (!rec || rec->state != SPRAY_TXREC_INFLIGHT ||
		    now_ns < rec->sent_ns + guard)
			continue;
		txw_mark_lost(tw, psn, rec, SPRAY_LOSS_NACK, ops, ctx);
		n++;
	}
	return n;
}

static u64 txw_rto_cur(const struct spray_txwin *tw)
{
	return min_t(u64, (u64)tw->rto_ns << tw->backoff, txw_rto_ceiling(tw));
}

/**
 * spray_txwin_rto_deadline() - when the retransmission timer fires
 * @tw: send window
 *
 * The timer runs while psns are in flight or await retransmission; it
 * restarts on every ACK that delivers something, and its period is
 * rto << backoff, at most cfg.rto_max_ns (or rto, when rto is above it).
 *
 * Return: absolute time, 0 if nothing is outstanding.
 */
u64 spray_txwin_rto_deadline(const struct spray_txwin *tw)
{
	if (!tw->inflight && !tw->lost && !tw->refused)
		return 0;
	return tw->rto_start_ns + txw_rto_cur(tw);
}

/*
 * The peer has said nothing for cfg.silence_ns (at least four of the
 * longest RTO: a backoff that reached its ceiling) while psns were
 * outstanding.
 */
static bool txw_silent_too_long(const struct spray_txwin *tw, u64 now_ns)
{
	u64 rto = max_t(u64, tw->rto_ns, tw->cfg.rto_max_ns);

	return tw->cfg.silence_ns && tw->heard_ns &&
	       spray_txwin_outstanding(tw) &&
	       now_ns - tw->heard_ns > max_t(u64, tw->cfg.silence_ns, 4 * rto);
}

/**
 * spray_txwin_on_rto() - handle the retransmission timer
 * @tw: send window
 * @now_ns: current time
 * @ops: verdict callbacks (may be NULL)
 * @ctx: passed to @ops
 *
 * If the deadline passed: the INFLIGHT or REFUSED psns sent at least one RTO
 * ago and least recently (at most SPRAY_TX_RTO_BURST of them) are declared
 * lost, the backoff doubles the next period (up to cfg.rto_max_ns, never
 * below rto) and the timer restarts. The window fails if the peer has
 * been silent for longer than cfg.silence_ns (txw_silent_too_long()).
 * As a tail loss probe, a few packets suffice: their ACKs let RACK find
 * the rest, where marking everything would resend what merely waits in a
 * queue.
 *
 * Return: psns declared lost (0 also when the deadline has not passed).
 */
u32 spray_txwin_on_rto(struct spray_txwin *tw, u64 now_ns,
		       const struct spray_txwin_ops *ops, void *ctx)
{
	u64 deadline = spray_txwin_rto_deadline(tw);
	u64 cur = txw_rto_cur(tw);
	u64 age = max_t(u64, cur, txw_rtt_max2(tw));
	u32 pick[SPRAY_TX_RTO_BURST];
	struct spray_txrec *rec;
	u32 i, n = 0;

	if (!deadline || now_ns < deadline)
		return 0;
	tw->rtos++;
	/*
	 * The least recently sent first (the sent list's head): records the
	 * receiver keeps refusing come round in turn, where the lowest psns
	 * would be the only ones ever resent. Nor what the slowest path may
	 * still be carrying: the list stops at the first too young.
	 */
	for (i = tw->t_head; i != SPRAY_TX_NIL && n < SPRAY_TX_RTO_BURST;
	     i = rec->tnext) {
		rec = &tw->ring[i];
		if (now_ns - rec->sent_ns < age)
			break;
		pick[n++] = txw_psn(tw, rec);
	}
	for (i = 0; i < n && !tw->failed; i++)
		txw_mark_lost(tw, pick[i], &tw->ring[pick[i] & tw->mask],
			      SPRAY_LOSS_RTO, ops, ctx);
	if (!tw->failed && txw_silent_too_long(tw, now_ns)) {
		tw->failed = true;
		tw->silences++;
	}
	if (tw->backoff < 16)
		tw->backoff++;
	tw->rto_start_ns = now_ns;
	return i;
}

/**
 * spray_txwin_probe_unanswered() - the ACK an answer probe asked for
 *	acknowledges nothing new
 * @tw: send window
 * @now_ns: current time
 * @ops: callbacks
 * @ctx: their context
 *
 * spray_txwin_answer_probed() restarted the period that had expired: it
 * counts as expired, and what the RTO would have declared lost then is
 * lost now, one round trip later.
 *
 * Return: as spray_txwin_on_rto(), the psns declared lost.
 */
u32 spray_txwin_probe_unanswered(struct spray_txwin *tw, u64 now_ns,
				 const struct spray_txwin_ops *ops, void *ctx)
{
	u64 cur = txw_rto_cur(tw);

	tw->rto_start_ns = now_ns > cur ? now_ns - cur : 0;
	return spray_txwin_on_rto(tw, now_ns, ops, ctx);
}

/*
 * The persist timer's period: SPRAY_TX_PERSIST_RTOS RTOs, doubled by the
 * backoff, within the RTO's ceiling. A receiver announces a grant that
 * moves to a sender without credit at once, so the probe only finds a
 * lost announcement; as the receiver keeps a turn for 8 round trips, the
 * sender asks after as many. One RTO (a millisecond on a LAN) made
 * senders waiting their turn behind a full buffer probe it many times a
 * stall, each probe costing the busy receiver an answer (TCP's persist
 * timer waits 200 ms at least).
 */
static u64 txw_persist_cur(const struct spray_txwin *tw)
{
	return min_t(u64, ((u64)tw->rto_ns * SPRAY_TX_PERSIST_RTOS) <<
		     tw->backoff, txw_rto_ceiling(tw));
}

/**
 * spray_txwin_persist_deadline() - when to probe a receiver that gives no
 *	credit
 * @tw: send window
 *
 * The receiver's grant stops the sender, and nothing is outstanding: no
 * timer would run, and if the ACK that opens the window is lost the
 * connection would wait for ever. The persist timer (as TCP's) probes the
 * receiver after SPRAY_TX_PERSIST_RTOS RTOs (with the RTO's backoff and
 * ceiling) have passed without progress; the answer carries the grant.
 * The caller arms it only while it has new data to send.
 *
 * Return: absolute time, 0 when the timer does not apply (something is
 * outstanding, the grant leaves room, a probe is allowed already, or the
 * window failed).
 */
u64 spray_txwin_persist_deadline(const struct spray_txwin *tw)
{
	if (tw->failed || tw->probe_ok || tw->inflight || tw->lost ||
	    tw->refused || spray_psn_after(tw->grant, tw->nxt))
		return 0;
	return tw->rto_start_ns + txw_persist_cur(tw);
}

/**
 * spray_txwin_on_persist() - handle the persist timer
 * @tw: send window
 * @now_ns: current time
 * @with_data: the probe is one new psn beyond the grant (a receiver that
 *	does not answer a PROBE with its grant: SPRAY_CAP_WINDOW_PROBE)
 *
 * If the deadline passed, a window probe is due: with @with_data, one new
 * psn may go beyond the grant (probe_ok); without, the caller sends a
 * PROBE asking for an ACK, which carries no data a receiver out of room
 * would have to refuse (as TCP's zero-window probe carries none it must
 * accept). Either way the next period doubles (backoff, reset by progress)
 * and the timer restarts.
 *
 * Return: true if a probe is due now.
 */
bool spray_txwin_on_persist(struct spray_txwin *tw, u64 now_ns,
			    bool with_data)
{
	u64 deadline = spray_txwin_persist_deadline(tw);

	if (!deadline || now_ns < deadline)
		return false;
	tw->probe_ok = with_data;
	tw->probes++;
	if (tw->backoff < 16)
		tw->backoff++;
	tw->rto_start_ns = now_ns;
	return true;
}

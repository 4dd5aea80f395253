// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY receive window.
 *
 * Two ring bitmaps of SPRAY_RXWIN_RING bits, indexed by psn, record which
 * psns arrived and which arrived CE-marked. Valid bits cover
 * [cum - HIST, cum + BITS); bits of psns falling below cum - HIST are
 * cleared as cum advances, so a slot is clean when its next psn enters the
 * window (RING >= BITS + HIST).
 */
#include "rxwin.h"

#define RXW_MASK	(SPRAY_RXWIN_RING - 1)

static inline bool rxw_test(const u64 *map, u32 psn)
{
	u32 i = psn & RXW_MASK;

	return map[i / 64] & (1ULL << (i % 64));
}

static inline void rxw_set(u64 *map, u32 psn)
{
	u32 i = psn & RXW_MASK;

	map[i / 64] |= 1ULL << (i % 64);
}

static inline void rxw_clear(u64 *map, u32 psn)
{
	u32 i = psn & RXW_MASK;

	map[i / 64] &= ~(1ULL << (i % 64));
}

/*
 * The bits of psns @psn .. @psn + @n - 1 (@n at most the ring), a word at a
 * time: set (@set) or cleared.
 */
static void rxw_range(u64 *map, u32 psn, u32 n, bool set)
{
	u32 i = psn & RXW_MASK, k;
	u64 bits;

	while (n) {
		k = min(n, 64 - i % 64);
		bits = (k == 64 ? ~0ULL : (1ULL << k) - 1) << (i % 64);
		if (set)
			map[i / 64] |= bits;
		else
			map[i / 64] &= ~bits;
		n -= k;
		i = (i + k) & RXW_MASK;
	}
}

/**
 * spray_rxwin_cfg_default() - fill the default receive tunables
 * @cfg: to fill
 */
void spray_rxwin_cfg_default(struct spray_rxwin_cfg *cfg)
{
	cfg->ack_every = 8;
	cfg->ack_delay_ns = 10000;
	cfg->reorder_min_ns = 10000;
}

/**
 * spray_rxwin_init() - open the receive window of a new incarnation
 * @w: state to initialise (caller storage)
 * @isn: first psn of the incarnation (its src_cid, see wire.h)
 * @cfg: tunables, copied; NULL for defaults
 */
void spray_rxwin_init(struct spray_rxwin *w, u32 isn,
		      const struct spray_rxwin_cfg *cfg)
{
	BUILD_BUG_ON(SPRAY_RXWIN_RING & (SPRAY_RXWIN_RING - 1));
	BUILD_BUG_ON(SPRAY_RXWIN_BITS + SPRAY_RXWIN_HIST > SPRAY_RXWIN_RING);
	BUILD_BUG_ON(SPRAY_RXWIN_HIST != 64);
	BUILD_BUG_ON(SPRAY_RXWIN_FAR <= SPRAY_RXWIN_BITS);

	memset(w, 0, sizeof(*w));
	if (cfg)
		w->cfg = *cfg;
	else
		spray_rxwin_cfg_default(&w->cfg);
	if (!w->cfg.ack_every)
		w->cfg.ack_every = 1;
	w->cum = isn;
	w->nack_cum = isn - 1;	/* no report yet */
	w->high = isn;
	w->nacked_upto = isn;
	w->reo_mult = 1;
}

/**
 * spray_rxwin_received() - whether a psn has been received
 * @w: receive window
 * @psn: psn to test
 *
 * Return: true for psns before cum and received psns in the window.
 */
bool spray_rxwin_received(const struct spray_rxwin *w, u32 psn)
{
	if (spray_psn_before(psn, w->cum))
		return true;
	if (!spray_psn_before(psn, w->high))
		return false;
	return rxw_test(w->rcvd, psn);
}

static void rxw_note_arrival(struct spray_rxwin *w, u32 psn, u64 ts_ns,
			     u16 ev, u64 now_ns)
{
	if (!w->unacked) {
		w->first_unacked_ns = now_ns;
		w->rep_lo = psn;
	} else if (spray_psn_before(psn, w->rep_lo)) {
		w->rep_lo = psn;
	}
	w->unacked++;
	w->last_ts = ts_ns;
	w->last_arrival_ns = now_ns;
	w->last_psn = psn;
	w->last_ev = ev;
}

static void rxw_advance(struct spray_rxwin *w, u64 now_ns)
{
	u32 old = w->cum;
	u32 psn;

	while (w->cum != w->high && rxw_test(w->rcvd, w->cum)) {
		/* the cumulative ack reports it */
		if (rxw_test(w->unrep, w->cum)) {
			rxw_clear(w->unrep, w->cum);
			w->n_unrep--;
		}
		w->cum++;
		w->above--;
	}
	/* forget bits that fall out of the ACK history */
	for (psn = old - SPRAY_RXWIN_HIST; psn != w->cum - SPRAY_RXWIN_HIST;
	     psn++) {
		rxw_clear(w->rcvd, psn);
		rxw_clear(w->cemap, psn);
	}
	if (w->cum - old > 1)
		w->ack_now |= SPRAY_RXACK_FILL;
	if (w->snap_valid && spray_psn_after_eq(w->cum, w->snap_high))
		w->snap_valid = false;
	if (!w->snap_valid && w->cum != w->high) {
		w->snap_valid = true;
		w->snap_high = w->high;
		w->snap_ns = now_ns;
	}
}

/**
 * spray_rxwin_rcv() - account one arriving DATA packet
 * @w: receive window
 * @psn: its psn
 * @flags: its SPRAY_F_* flags
 * @ce: it arrived with ECN CE
 * @ts_ns: its ts_ns (echoed by the next ACK)
 * @ev: its ev (echoed by the next ACK)
 * @now_ns: arrival time
 *
 * Duplicates (psn before cum, or already received) are counted and make an
 * ACK due (the sender did not get ours). A psn at or beyond cum +
 * SPRAY_RXWIN_BITS is refused (the sender overran the window or grant); a
 * psn more than SPRAY_RXWIN_FAR away on either side is stale or garbage and
 * changes nothing.
 *
 * Return: 0 for a new packet to deliver, -SPRAY_DROP_DUP,
 * -SPRAY_DROP_WINDOW or -SPRAY_DROP_STALE.
 */
int spray_rxwin_rcv(struct spray_rxwin *w, u32 psn, u16 flags, bool ce,
		    u64 ts_ns, u16 ev, u64 now_ns)
{
	s32 d = (s32)(psn - w->cum);

	if (d < -(s32)SPRAY_RXWIN_FAR || d >= (s32)SPRAY_RXWIN_FAR) {
		w->stale++;
		return -SPRAY_DROP_STALE;
	}
	if (d >= (s32)SPRAY_RXWIN_BITS) {
		w->beyond++;
		return -SPRAY_DROP_WINDOW;
	}
	if (d < 0 || rxw_test(w->rcvd, psn)) {
		w->dups++;
		w->ack_now |= SPRAY_RXACK_DUP;
		rxw_note_arrival(w, psn, ts_ns, ev, now_ns);
		return -SPRAY_DROP_DUP;
	}

	w->new++;
	w->above++;
	rxw_set(w->unrep, psn);
	w->n_unrep++;
	if (!(flags & SPRAY_F_RETX) && spray_psn_before(psn, w->high)) {
		/*
		 * An original arriving behind later psns: it was reordered
		 * by about the time since the first packet of its 64-psn
		 * block arrived. Keep the largest recent delay (decaying by
		 * 1/16 per observation) for the NACK reorder window.
		 */
		u64 d = now_ns - w->blk_ns[(psn / 64) % ARRAY_SIZE(w->blk_ns)];

		w->reo_obs_ns -= w->reo_obs_ns / 16;
		if (d < SPRAY_RXWIN_FAR_NS && d > w->reo_obs_ns)
			w->reo_obs_ns = (u32)d;
		/* filling a hole we NACKed: the NACK was premature */
		if (w->nacked_ns && spray_psn_before(psn, w->nacked_upto) &&
		    w->reo_mult < 64)
			w->reo_mult *= 2;
	}
	rxw_set(w->rcvd, psn);
	if (ce) {
		rxw_set(w->cemap, psn);
		w->ce++;
	}
	if (ce != w->last_ce) {
		w->ack_now |= SPRAY_RXACK_CE;
		w->last_ce = ce;
	}
	if ((flags & SPRAY_F_SYN) && !w->acks)
		w->ack_now |= SPRAY_RXACK_SYN;
	if (flags & SPRAY_F_ACK_REQ)
		w->ack_now |= SPRAY_RXACK_REQ;
	if (!spray_psn_before(psn, w->high)) {
		u32 ob = (w->high - 1) / 64, nb = psn / 64, b;

		/* note when each 64-psn block was first reached */
		for (b = ob + 1; b != nb + 1 && b - ob <= ARRAY_SIZE(w->blk_ns);
		     b++)
			w->blk_ns[b % ARRAY_SIZE(w->blk_ns)] = now_ns;
		w->high = psn + 1;
	}
	rxw_note_arrival(w, psn, ts_ns, ev, now_ns);
	rxw_advance(w, now_ns);
	return 0;
}

/**
 * spray_rxwin_rcv_run() - account a run of DATA packets that extends the
 *	window: the followers of a train, all at once
 * @w: receive window
 * @psn: the first psn of the run: not before @w->high (nothing at or after
 *	it received yet)
 * @n: how many consecutive psns, from 1; the last inside the window
 *	(before @w->cum + SPRAY_RXWIN_BITS)
 * @flags: their SPRAY_F_* flags (one header but for psn and fragment)
 * @ce: they arrived with ECN CE (one IP header: one skb)
 * @ts_ns: their ts_ns
 * @ev: their ev
 * @now_ns: arrival time
 *
 * Leaves @w as @n calls of spray_rxwin_rcv(), one per psn in order, would
 * (the unit tests compare them): the first packet goes through it, the
 * others, which can only extend the window by one psn each, are counted
 * together: their bits set as one range, the cumulative ack moved once
 * when the run arrived in order, not psn by psn.
 *
 * Return: 0, or -SPRAY_DROP_WINDOW (nothing done) if the run is not one
 * that extends the window.
 */
int spray_rxwin_rcv_run(struct spray_rxwin *w, u32 psn, u32 n, u16 flags,
			bool ce, u64 ts_ns, u16 ev, u64 now_ns)
{
	u32 last = psn + n - 1, old, ob, nb, b;

	if (!n || spray_psn_before(psn, w->high) ||
	    last - w->cum >= SPRAY_RXWIN_BITS)
		return -SPRAY_DROP_WINDOW;
	if (spray_rxwin_rcv(w, psn, flags, ce, ts_ns, ev, now_ns))
		return -SPRAY_DROP_WINDOW;	/* cannot be: checked above */
	if (n == 1)
		return 0;
	/*
	 * psn + 1 .. last: each one past the highest, with the first's
	 * flags, CE state and echo: no reordering, no new ACK reason
	 */
	n--;
	w->new += n;
	w->above += n;
	if (ce)
		w->ce += n;
	ob = (w->high - 1) / 64;
	nb = last / 64;
	for (b = ob + 1; b != nb + 1 && b - ob <= ARRAY_SIZE(w->blk_ns); b++)
		w->blk_ns[b % ARRAY_SIZE(w->blk_ns)] = now_ns;
	w->unacked += n;
	w->last_psn = last;
	if (w->cum != w->high) {
		/* a hole below: the cumulative ack stays, the SACKs grow */
		rxw_range(w->rcvd, psn + 1, n, true);
		rxw_range(w->unrep, psn + 1, n, true);
		if (ce)
			rxw_range(w->cemap, psn + 1, n, true);
		w->n_unrep += n;
		w->high = last + 1;
		return 0;
	}
	/*
	 * In order: each would have moved the cumulative ack by one and been
	 * reported by it (no unreported bit left, no FILL), and pushed one
	 * psn out of the ACK history
	 */
	rxw_range(w->rcvd, psn + 1, n, true);
	if (ce)
		rxw_range(w->cemap, psn + 1, n, true);
	old = w->cum;
	w->cum = last + 1;
	w->high = last + 1;
	w->above -= n;
	/* the history's oldest n: never the ones just set (HIST + BITS <= RING) */
	rxw_range(w->rcvd, old - SPRAY_RXWIN_HIST, w->cum - old, false);
	rxw_range(w->cemap, old - SPRAY_RXWIN_HIST, w->cum - old, false);
	if (w->snap_valid && spray_psn_after_eq(w->cum, w->snap_high))
		w->snap_valid = false;
	return 0;
}

/* how long a delayed ACK waits */
static u32 rxw_ack_delay(const struct spray_rxwin *w)
{
	if (w->answering && w->cfg.answer_ns > w->cfg.ack_delay_ns)
		return w->cfg.answer_ns;
	return w->cfg.ack_delay_ns;
}

/**
 * spray_rxwin_ack_due() - whether an ACK should be sent now
 * @w: receive window
 * @now_ns: current time
 *
 * An ACK is due when packets are unacknowledged and: an immediate reason is
 * pending (SPRAY_RXACK_*), @cfg.ack_every packets arrived, or the oldest
 * is @cfg.ack_delay_ns old (@cfg.answer_ns while the connection answers).
 *
 * Return: true if the caller should build and send an ACK.
 */
bool spray_rxwin_ack_due(const struct spray_rxwin *w, u64 now_ns)
{
	if (w->ack_now & SPRAY_RXACK_MORE)
		return true;
	if (!w->unacked)
		return false;
	if (w->ack_now || w->unacked >= w->cfg.ack_every)
		return true;
	return now_ns - w->first_unacked_ns >= rxw_ack_delay(w);
}

/**
 * spray_rxwin_ack_deadline() - when the delayed-ACK timer must fire
 * @w: receive window
 *
 * Return: absolute time, or 0 if no packet awaits acknowledgment.
 */
u64 spray_rxwin_ack_deadline(const struct spray_rxwin *w)
{
	if (!w->unacked)
		return 0;
	return w->first_unacked_ns + rxw_ack_delay(w);
}

/**
 * spray_rxwin_ack_pending() - whether an ACK has something to say
 * @w: receive window
 *
 * Return: packets arrived since the last ACK, or an immediate reason is
 * pending: data we send now should carry an ACK (SPRAY_F_ACK).
 */
bool spray_rxwin_ack_pending(const struct spray_rxwin *w)
{
	return w->unacked || w->ack_now;
}

/**
 * spray_rxwin_data_sent() - our side sent new data on the connection
 * @w: receive window
 * @now_ns: current time
 *
 * Data sent within @cfg.answer_ns of the last arrival answers it: delayed
 * ACKs then wait for such data to carry them (as TCP enters its ping-pong
 * mode when it sends within its delayed-ACK timeout of a receive).
 */
void spray_rxwin_data_sent(struct spray_rxwin *w, u64 now_ns)
{
	if (w->cfg.answer_ns && w->last_arrival_ns &&
	    now_ns - w->last_arrival_ns < w->cfg.answer_ns)
		w->answering = true;
}

/**
 * spray_rxwin_ack_timed_out() - whether an ACK goes only for its delay
 * @w: receive window
 * @now_ns: current time
 *
 * Return: packets await acknowledgment, no immediate reason is pending,
 * fewer than @cfg.ack_every arrived, and the oldest has waited the whole
 * delay. An ACK sent for another reason (credit: the reader made room)
 * before that says nothing of answers.
 */
bool spray_rxwin_ack_timed_out(const struct spray_rxwin *w, u64 now_ns)
{
	return w->unacked && !w->ack_now && w->unacked < w->cfg.ack_every &&
	       now_ns - w->first_unacked_ns >= rxw_ack_delay(w);
}

/**
 * spray_rxwin_lone_ack() - an ACK goes in a packet of its own
 * @w: receive window
 * @now_ns: current time
 *
 * Call before spray_rxwin_build_ack() for an ACK that no data carries. If
 * it goes only because the delay ran out (spray_rxwin_ack_timed_out()),
 * no answer came in time: delayed ACKs stop waiting for one (as TCP leaves
 * ping-pong mode when its delayed-ACK timer fires), until data sent soon
 * after an arrival shows answers again.
 */
void spray_rxwin_lone_ack(struct spray_rxwin *w, u64 now_ns)
{
	if (spray_rxwin_ack_timed_out(w, now_ns))
		w->answering = false;
}

/* The lowest psn received and not yet reported by any ACK. */
static u32 rxw_first_unrep(const struct spray_rxwin *w)
{
	u32 psn = w->cum, end = w->high, word;
	u64 bits;

	while (spray_psn_before(psn, end)) {
		word = (psn & RXW_MASK) / 64;
		bits = w->unrep[word] >> (psn % 64);
		if (bits)
			return psn + spray_ffs64(bits);
		psn += 64 - psn % 64;
	}
	return end;
}

/* The 64 bits of ring bitmap @map for psns [@base, @base + 64). */
static u64 rxw_window(const u64 *map, u32 base)
{
	u32 i = base & RXW_MASK, word = i / 64, sh = i % 64;
	u64 lo = map[word];

	if (!sh)
		return lo;
	return (lo >> sh) |
	       (map[(word + 1) % (SPRAY_RXWIN_RING / 64)] << (64 - sh));
}

/* Clear the bits of @bits (psns @base + i for bit i) in ring bitmap @map. */
static void rxw_window_clear(u64 *map, u32 base, u64 bits)
{
	u32 i = base & RXW_MASK, word = i / 64, sh = i % 64;

	map[word] &= ~(bits << sh);
	if (sh)
		map[(word + 1) % (SPRAY_RXWIN_RING / 64)] &=
			~(bits >> (64 - sh));
}

/**
 * spray_rxwin_build_ack() - fill an ACK and mark everything acknowledged
 * @w: receive window
 * @now_ns: current time (for hold_ns)
 * @ack: filled, except grant_psn (left 0 for congestion control to set)
 *
 * The 64-psn SACK/ECN range ends at the highest psn received when that
 * covers every psn received since the last ACK (then older bits, up to 64
 * before cum, still give the CE state of recently cum-acked packets);
 * otherwise it starts at the lowest psn received since the last ACK so
 * that the oldest unreported information goes out first. A word at a
 * time: the range's bits of each bitmap, masked by where cum and high
 * fall in it (a loop over its 64 psns was 1% of a 64 B exchange's CPU).
 */
void spray_rxwin_build_ack(struct spray_rxwin *w, u64 now_ns,
			   struct spray_ack *ack)
{
	u64 below_cum, live, rep, sack, ecn;
	u32 lo, base;

	/* high - 64 is never below cum - HIST (the CE marks below, below) */
	BUILD_BUG_ON(SPRAY_RXWIN_HIST < 64);
	/*
	 * Start at the oldest psn no ACK has reported: with reordering the
	 * psns received between two ACKs can span more than 64, and one left
	 * out would look lost to the sender forever.
	 */
	lo = w->n_unrep ? rxw_first_unrep(w) :
	     w->unacked ? w->rep_lo : w->high;
	if (spray_psn_before(lo, w->cum - SPRAY_RXWIN_HIST))
		lo = w->cum - SPRAY_RXWIN_HIST;
	if (w->high - lo <= 64)
		base = w->high - 64;
	else
		base = lo;

	/* all of [base, cum) arrived; of [cum, high), what rcvd says */
	below_cum = spray_psn_bits_before(base, w->cum);
	live = ~below_cum & spray_psn_bits_before(base, w->high);
	rep = rxw_window(w->unrep, base) & live;
	if (rep) {
		rxw_window_clear(w->unrep, base, rep);
		w->n_unrep -= spray_hweight64(rep);
	}
	sack = below_cum | (rxw_window(w->rcvd, base) & live);
	/*
	 * The range starts no lower than cum - HIST (lo and high - 64 do
	 * not), where the ring's history of CE marks ends
	 */
	ecn = rxw_window(w->cemap, base) & sack;

	memset(ack, 0, sizeof(*ack));
	ack->cum_psn = w->cum;
	ack->sack_base = base;
	ack->sack = sack;
	ack->ecn = ecn;
	ack->ts_echo = w->last_ts;
	if (now_ns > w->last_arrival_ns)
		ack->hold_ns = (u32)min_t(u64, now_ns - w->last_arrival_ns,
					  U32_MAX);
	ack->ev_echo = w->last_ev;
	ack->echo_psn = w->last_psn;

	w->unacked = 0;
	w->ack_now = w->n_unrep ? SPRAY_RXACK_MORE : 0;
	w->acks++;
}

/*
 * How long a hole may be explained by reordering: a quarter RTT, times a
 * multiplier that doubles whenever a NACK proves premature (the original
 * packet arrived after it), capped at two RTTs; and at least 1.5 times the
 * reordering delay recently observed.
 */
static u32 rxw_reorder(const struct spray_rxwin *w, u32 rtt_ns)
{
	u64 reo = (u64)rtt_ns / 4 * w->reo_mult;

	reo = max_t(u64, min_t(u64, reo, 2ULL * rtt_ns),
		    w->cfg.reorder_min_ns);
	/* never below the reordering recently observed, plus a half */
	return (u32)max_t(u64, reo, (u64)w->reo_obs_ns * 3 / 2);
}

/* How long after a NACK report the same psns may be reported again. */
static u64 rxw_renack(const struct spray_rxwin *w, u32 rtt_ns, u32 reorder)
{
	/* backed off while the cumulative ack has not moved since */
	u8 shift = w->cum == w->nack_cum ? w->nack_shift : 0;

	return ((u64)rtt_ns + reorder) << shift;
}

/**
 * spray_rxwin_nack_deadline() - when spray_rxwin_nack_scan() may next report
 * @w: receive window
 * @rtt_ns: as for spray_rxwin_nack_scan()
 *
 * Return: absolute time to arm the NACK timer at, 0 if there is no hole.
 */
u64 spray_rxwin_nack_deadline(const struct spray_rxwin *w, u32 rtt_ns)
{
	u32 reorder = rxw_reorder(w, rtt_ns);
	u64 t, renack_at;

	if (!w->snap_valid)
		return 0;
	t = w->snap_ns + reorder;
	renack_at = w->nacked_ns + rxw_renack(w, rtt_ns, reorder);
	/* everything below the snapshot was reported recently */
	if (w->nacked_ns && spray_psn_after_eq(w->nacked_upto, w->snap_high) &&
	    renack_at > t)
		t = renack_at;
	return t;
}

/**
 * spray_rxwin_nack_scan() - find holes that reordering cannot explain
 * @w: receive window
 * @now_ns: current time
 * @rtt_ns: the caller's RTT estimate for the peer (0 if unknown)
 * @out: runs of missing psns to NACK
 * @max: capacity of @out
 *
 * Spraying reorders by design, so a missing psn is NACKed only once it has
 * been overtaken for a whole reorder window, max(@rtt_ns / 4,
 * cfg.reorder_min_ns): a snapshot of @high is taken when holes appear; when
 * the snapshot is a reorder window old, the holes below it are reported and
 * a new snapshot is taken. A psn is reported again no sooner than
 * @rtt_ns + reorder window after its previous report, the time for the
 * retransmission to arrive; that interval doubles with each report that
 * finds the cumulative ack where the previous one left it (up to
 * 2^SPRAY_RXWIN_NACK_SHIFT times), so that a sender that does not answer
 * (gone, or a forged source) draws ever fewer NACKs. Call it from the
 * receive path or the ACK timer.
 *
 * Return: number of runs written to @out.
 */
u32 spray_rxwin_nack_scan(struct spray_rxwin *w, u64 now_ns, u32 rtt_ns,
			  struct spray_rxwin_nack *out, u32 max)
{
	u32 reorder = rxw_reorder(w, rtt_ns);
	u64 renack = rxw_renack(w, rtt_ns, reorder);
	bool recent = now_ns - w->nacked_ns < renack;
	u32 psn, end, n = 0;

	if (!w->snap_valid || now_ns - w->snap_ns < reorder || !max)
		return 0;

	end = w->snap_high;
	psn = w->cum;
	if (recent && w->nacked_ns &&
	    spray_psn_after(w->nacked_upto, psn) &&
	    spray_psn_before(w->nacked_upto, end))
		psn = w->nacked_upto;
	else if (recent && w->nacked_ns &&
		 spray_psn_after_eq(w->nacked_upto, end))
		return 0;

	while (psn != end && n < max) {
		if (rxw_test(w->rcvd, psn)) {
			psn++;
			continue;
		}
		out[n].psn = psn;
		out[n].count = 0;
		while (psn != end && !rxw_test(w->rcvd, psn) &&
		       out[n].count < SPRAY_NACK_MAX_COUNT) {
			out[n].count++;
			psn++;
		}
		n++;
	}
	w->nacks += n;
	if (n) {
		w->nacked_upto = psn;
		w->nacked_ns = now_ns;
		if (w->cum != w->nack_cum) {
			w->nack_cum = w->cum;
			w->nack_shift = 0;
		} else if (w->nack_shift < SPRAY_RXWIN_NACK_SHIFT) {
			w->nack_shift++;
		}
	}
	if (psn == end) {
		/* everything below the snapshot reported: take a new one */
		w->snap_valid = w->cum != w->high;
		w->snap_high = w->high;
		w->snap_ns = now_ns;
	}
	return n;
}

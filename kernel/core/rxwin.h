/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY receive window of one connection: duplicate detection, cumulative
 * and selective acknowledgment, per-packet ECN record, ACK coalescing and
 * NACK of holes that reordering can no longer explain.
 */
#ifndef _SPRAY_RXWIN_H
#define _SPRAY_RXWIN_H

#include "core.h"
#include "wire.h"
#include "pkt.h"

/* psns accepted at or after the cumulative ack: [cum, cum + BITS) */
#define SPRAY_RXWIN_BITS	4096U
/* psns before cum whose ECN bits are kept for ACK bitmaps */
#define SPRAY_RXWIN_HIST	64U
/* ring of received/CE bits, a power of two >= BITS + HIST */
#define SPRAY_RXWIN_RING	8192U
/* NACKs of a hole that stays back off to 2^this times their interval */
#define SPRAY_RXWIN_NACK_SHIFT	10
/* a reordering delay above this (ns) is not believed */
#define SPRAY_RXWIN_FAR_NS	(1ULL << 30)
/* psns further than this from cum are absurd (other incarnation, garbage) */
#define SPRAY_RXWIN_FAR		(1U << 24)

/**
 * struct spray_rxwin_cfg - receive window tunables
 * @ack_every: send an ACK after this many packets (default 8).
 * @ack_delay_ns: ... or when the oldest unacknowledged packet is this old
 *	(default 10 us).
 * @reorder_min_ns: floor of the reorder window before a hole is NACKed
 *	(default 10 us); the window is max(rtt / 4, this).
 * @answer_ns: while the connection answers what it receives (struct
 *	spray_rxwin.answering), a delayed ACK waits this long (if more than
 *	@ack_delay_ns) for the answer to carry it (default 0: never).
 */
struct spray_rxwin_cfg {
	u32	ack_every;
	u32	ack_delay_ns;
	u32	reorder_min_ns;
	u32	answer_ns;
};

/* why an ACK is due at once (spray_rxwin.ack_now bits) */
#define SPRAY_RXACK_SYN		0x01	/* first packet of an incarnation */
#define SPRAY_RXACK_DUP		0x02	/* duplicate: our ACK was lost */
#define SPRAY_RXACK_CE		0x04	/* CE state changed (as DCTCP) */
#define SPRAY_RXACK_REQ		0x08	/* sender set SPRAY_F_ACK_REQ */
#define SPRAY_RXACK_FILL	0x10	/* a hole filled, cum jumped */
#define SPRAY_RXACK_MORE	0x20	/* psns received, never reported yet */

/**
 * struct spray_rxwin_nack - a run of missing psns to NACK
 * @psn: first missing psn.
 * @count: number of missing psns, 1..SPRAY_NACK_MAX_COUNT.
 */
struct spray_rxwin_nack {
	u32	psn;
	u16	count;
};

/**
 * struct spray_rxwin - receive state of one connection (about 2.2 KiB)
 * @cfg: tunables.
 * @cum: every psn before @cum has been received.
 * @high: one past the highest psn received (== @cum when in order).
 * @rep_lo: lowest psn received since the last ACK.
 * @above: psns received at or after @cum (those after @cum are out of
 *	order; @cum itself is never received, or it would have advanced).
 * @unacked: packets (new or duplicate) received since the last ACK.
 * @ack_now: SPRAY_RXACK_* reasons for an immediate ACK.
 * @last_ce: CE state of the last packet, for SPRAY_RXACK_CE.
 * @answering: our side sends data soon after data arrives (a request and
 *	its answer, as TCP's ping-pong mode): delayed ACKs wait
 *	@cfg.answer_ns for that data to carry them.
 * @first_unacked_ns: arrival of the oldest unacknowledged packet.
 * @last_ts: ts_ns of the newest arrival, echoed by the next ACK.
 * @last_arrival_ns: its arrival time (for hold_ns).
 * @last_psn: its psn (echo_psn).
 * @last_ev: its ev (ev_echo).
 * @snap_valid: @snap_high/@snap_ns hold a hole snapshot.
 * @snap_high: @high at @snap_ns: missing psns below it had been overtaken.
 * @snap_ns: time of the snapshot.
 * @nacked_upto: psns before it were NACKed at @nacked_ns.
 * @nacked_ns: time of the last NACK scan that reported holes.
 * @nack_cum: @cum at the last NACK report.
 * @nack_shift: backoff of repeated NACKs while @cum stays at @nack_cum.
 * @acks: ACKs built.
 * @new: new packets accepted.
 * @dups: duplicates.
 * @beyond: packets at or beyond the window edge.
 * @stale: packets absurdly far from the window.
 * @ce: new packets that arrived CE-marked.
 * @nacks: NACK runs reported.
 * @rcvd: ring bitmap, bit (psn & (RING - 1)) = psn received.
 * @cemap: ring bitmap, psn arrived CE-marked.
 * @reo_mult: multiplier of the NACK reorder window, doubled when a psn
 *	fills a hole already NACKed (the NACK was premature), up to 64.
 * @reo_obs_ns: the largest recent delay of an original psn arriving
 *	behind later ones (decaying by 1/16 per observation): the NACK
 *	reorder window covers it.
 * @blk_ns: per 64-psn block of the ring, when its first psn arrived (how
 *	late a reordered psn is).
 * @unrep: ring bitmap, psn received and not yet reported in an ACK's
 *	SACK range (the oldest go out first).
 * @n_unrep: bits set in @unrep.
 */
struct spray_rxwin {
	struct spray_rxwin_cfg cfg;
	u32	cum;
	u32	high;
	u32	rep_lo;
	u32	above;
	u32	unacked;
	u8	ack_now;
	bool	last_ce;
	bool	answering;
	bool	snap_valid;
	u64	first_unacked_ns;
	u64	last_ts;
	u64	last_arrival_ns;
	u32	last_psn;
	u16	last_ev;
	u32	snap_high;
	u64	snap_ns;
	u32	nacked_upto;
	u64	nacked_ns;
	u32	nack_cum;
	u8	nack_shift;
	u8	reo_mult;
	u32	reo_obs_ns;
	u64	acks;
	u64	new;
	u64	dups;
	u64	beyond;
	u64	stale;
	u64	ce;
	u64	nacks;
	u64	rcvd[SPRAY_RXWIN_RING / 64];
	u64	blk_ns[SPRAY_RXWIN_RING / 64];
	u64	unrep[SPRAY_RXWIN_RING / 64];
	u32	n_unrep;
	u64	cemap[SPRAY_RXWIN_RING / 64];
};

void spray_rxwin_cfg_default(struct spray_rxwin_cfg *cfg);
void spray_rxwin_init(struct spray_rxwin *w, u32 isn,
		      const struct spray_rxwin_cfg *cfg);
int spray_rxwin_rcv(struct spray_rxwin *w, u32 psn, u16 flags, bool ce,
		    u64 ts_ns, u16 ev, u64 now_ns);
int spray_rxwin_rcv_run(struct spray_rxwin *w, u32 psn, u32 n, u16 flags,
			bool ce, u64 ts_ns, u16 ev, u64 now_ns);
bool spray_rxwin_received(const struct spray_rxwin *w, u32 psn);
bool spray_rxwin_ack_due(const struct spray_rxwin *w, u64 now_ns);
u64 spray_rxwin_ack_deadline(const struct spray_rxwin *w);
bool spray_rxwin_ack_pending(const struct spray_rxwin *w);
void spray_rxwin_data_sent(struct spray_rxwin *w, u64 now_ns);
bool spray_rxwin_ack_timed_out(const struct spray_rxwin *w, u64 now_ns);
void spray_rxwin_lone_ack(struct spray_rxwin *w, u64 now_ns);
void spray_rxwin_build_ack(struct spray_rxwin *w, u64 now_ns,
			   struct spray_ack *ack);
u64 spray_rxwin_nack_deadline(const struct spray_rxwin *w, u32 rtt_ns);
u32 spray_rxwin_nack_scan(struct spray_rxwin *w, u64 now_ns, u32 rtt_ns,
			  struct spray_rxwin_nack *out, u32 max);

#endif /* _SPRAY_RXWIN_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY send window of one connection: per-psn records, ACK/SACK/ECN
 * processing, RTT estimation, RACK-style loss detection, NACKs, RTO with
 * backoff and the retry limit.
 */
#ifndef _SPRAY_TXWIN_H
#define _SPRAY_TXWIN_H

#include "core.h"
#include "wire.h"
#include "pkt.h"

/* EVs whose per-EV RACK state the window keeps (spray_path's maximum) */
#define SPRAY_TX_MAX_EVS	256

/* psns an RTO declares lost at most */
#define SPRAY_TX_RTO_BURST	4

/* a grant more than this beyond una is bogus and ignored */
#define SPRAY_TX_GRANT_MAX	(1U << 20)

/* RTOs a sender stopped by the grant waits before it probes (persist) */
#define SPRAY_TX_PERSIST_RTOS	8

/*
 * A spurious RTO raises the RTO's floor (spray_txwin.rto_floor_ns); it
 * loses an eighth after each such time without another (half in about 5).
 */
#define SPRAY_TX_RTO_FLOOR_HOLD_NS	1000000000ULL

/* spray_txrec.state */
enum spray_txrec_state {
	SPRAY_TXREC_INFLIGHT = 1,	/* sent, no verdict yet */
	SPRAY_TXREC_SACKED,		/* selectively acked, above cum */
	SPRAY_TXREC_LOST,		/* declared lost, awaits retransmit */
	SPRAY_TXREC_FAILED,		/* retry limit reached */
	SPRAY_TXREC_REFUSED,		/* refused by the receiver, waits */
};

/* why a psn was declared lost (the @why of spray_txwin_ops.lost) */
enum spray_loss_why {
	SPRAY_LOSS_RACK = 1,	/* a packet sent later was acked, reorder window passed */
	SPRAY_LOSS_NACK,	/* the receiver NACKed it */
	SPRAY_LOSS_RTO,		/* retransmission timeout */
	SPRAY_LOSS_REFUSED,	/* the receiver refused it (no buffer or window) */
};

/**
 * struct spray_txrec - one outstanding psn (caller-provided ring slot)
 * @sent_ns: time of the latest transmission.
 * @msg_id: message the fragment belongs to.
 * @frag_off: fragment offset in the message.
 * @len: payload bytes.
 * @ev: index of the EV (struct spray_path) of the latest transmission.
 * @retx: retransmissions so far.
 * @state: enum spray_txrec_state.
 * @why: enum spray_loss_why of the latest loss declared, 0 if none.
 * @tprev: previous record in the time-ordered sent list (ring index).
 * @tnext: next record in it (SPRAY_TX_NIL at either end).
 * @msg: the caller's message of the fragment (opaque), for O(1) lookups.
 */
struct spray_txrec {
	u64	sent_ns;
	u32	msg_id;
	u32	frag_off;
	u16	len;
	u16	ev;
	u8	retx;
	u8	state;
	u8	why;
	u16	tprev;
	u16	tnext;
	void	*msg;
};

/* no record: the end of the sent list */
#define SPRAY_TX_NIL	0xffffU

/* the largest RTO, whatever the RTT samples say (u32 ns) */
#define SPRAY_TXWIN_RTO_LIMIT_NS	4000000000U

/**
 * struct spray_txwin_cfg - send window tunables
 * @rto_init_ns: RTO before the first RTT sample (default 1 ms).
 * @rto_min_ns: RTO floor (default 200 us, as EQDS).
 * @rto_max_ns: ceiling of the backoff (default 100 ms); an RTO computed
 *	from the RTT (srtt + 4 rttvar) above it is used as it is, up to
 *	SPRAY_TXWIN_RTO_LIMIT_NS (or this, if higher).
 * @reorder_min_ns: floor of the RACK reorder window (default 10 us); the
 *	window is max(min_rtt / 4, this).
 * @max_retx: retransmissions of one psn before the connection fails
 *	(default 15).
 * @silence_ns: the connection also fails at an RTO when the peer has not
 *	answered for this long (at least four of the longest RTO) while
 *	psns were outstanding; 0 (default): no such bound. The retry limit
 *	alone counts each psn's retransmissions, and an RTO resends only
 *	the few sent longest ago: with many psns outstanding and RTOs of
 *	seconds, a sender whose packets all vanish could go on for minutes,
 *	past the time its peer keeps its state.
 */
struct spray_txwin_cfg {
	u32	rto_init_ns;
	u32	rto_min_ns;
	u32	rto_max_ns;
	u32	reorder_min_ns;
	u8	max_retx;
	u64	silence_ns;
};

/**
 * struct spray_txwin_ops - verdicts on psns, called from the txwin functions
 * @acked: @psn was delivered; @ce: it arrived CE-marked. Called once per
 *	psn (also for a psn that had been declared lost: spurious loss).
 * @lost: @psn was declared lost and queued for retransmission.
 * @failed: @psn exceeded the retry limit; the connection is failed.
 * @spurious: @psn had been declared lost but arrived after all: it was
 *	acknowledged while LOST, or the receiver got its retransmission
 *	as a duplicate (the ACK echoes it). Loss signals it gave were wrong.
 * @acked_run: @n psns from @psn were delivered by the cumulative ack, in
 *	place of @n calls of @acked: first transmissions sent at one time
 *	on one EV for one message (a train's packets), none CE-marked;
 *	@rec is the first's, @bytes their payload. NULL: @acked is called
 *	for each.
 *
 * Any member may be NULL. @rec is valid during the call only.
 */
struct spray_txwin_ops {
	void (*acked)(void *ctx, u32 psn, const struct spray_txrec *rec,
		      bool ce);
	void (*acked_run)(void *ctx, u32 psn, u32 n,
			  const struct spray_txrec *rec, u32 bytes);
	void (*lost)(void *ctx, u32 psn, const struct spray_txrec *rec,
		     enum spray_loss_why why);
	void (*failed)(void *ctx, u32 psn, const struct spray_txrec *rec);
	void (*spurious)(void *ctx, u32 psn, const struct spray_txrec *rec);
};

/**
 * struct spray_txack_sum - what one ACK changed, for congestion control
 * @pkts: psns newly delivered.
 * @bytes: their payload bytes.
 * @ce_pkts: of which arrived CE-marked.
 * @ce_bytes: their bytes.
 * @rtt_ns: RTT sample (ts echo minus receiver hold), 0 if none.
 * @echo_ns: the send time of the packet of that sample (the ACK's
 *	ts_echo), 0 if none.
 * @cum_advanced: the cumulative ack moved.
 */
struct spray_txack_sum {
	u32	pkts;
	u32	bytes;
	u32	ce_pkts;
	u32	ce_bytes;
	u32	rtt_ns;
	u64	echo_ns;
	bool	cum_advanced;
};

/**
 * struct spray_txwin - send state of one connection
 * @cfg: tunables.
 * @ring: caller-provided records, @mask + 1 (a power of two) of them.
 * @mask: ring size - 1; also bounds the psns outstanding.
 * @una: oldest psn not cumulatively acked.
 * @nxt: next new psn.
 * @grant: peer credit, new psns before it may be sent.
 * @inflight: records INFLIGHT.
 * @lost: records LOST (awaiting retransmission).
 * @sacked: records SACKED.
 * @refused: records REFUSED (the receiver had no room; not in flight).
 * @refused_top: one past the highest psn the receiver refused, kept at
 *	@una once everything below it is acked (spray_txwin_refusing()).
 * @rack_ns: latest sent_ns among delivered psns (RACK).
 * @rack_psn: the psn that set it; among psns sent at the same time (one
 *	burst) the lower ones went first.
 * @srtt_ns: smoothed RTT (0 = no sample yet).
 * @rttvar_ns: RTT variation.
 * @min_rtt_ns: smallest RTT sample (the base RTT).
 * @rtt_max_ns: largest recent RTT sample, decaying (the slowest path).
 * @rto_ns: current RTO without backoff.
 * @rto_floor_ns: the RTO's floor learnt from spurious RTOs (0: none;
 *	cfg.rto_min_ns applies anyway): a timer that fired while nothing
 *	was lost, the packets or their ACKs only delayed (a host whose
 *	softirq work waits behind a busy CPU, a queue that filled at once),
 *	would fire again at the next such stall and resend packets by the
 *	dozen. Raised to 5/4 of the delayed packet's round trip when the
 *	echo shows it (RFC 3522), else to twice the RTO; an eighth lower
 *	after each SPRAY_TX_RTO_FLOOR_HOLD_NS without a spurious RTO.
 * @rto_spurious_ns: when the last spurious RTO was found (or the floor
 *	last went down).
 * @backoff: RTO doublings since the last progress.
 * @reo_mult: multiplier of the RACK reorder window, doubled by a spurious
 *	retransmission (up to 64), halved after 4096 psns delivered without
 *	one.
 * @reo_calm: psns delivered since the last spurious retransmission or
 *	halving.
 * @reo_obs_ns: the largest recent delay beyond srtt of a psn overtaken by
 *	one sent later (decaying by 1/16 per observation): the reorder
 *	window covers it.
 * @ev_rack: per EV, the latest sent_ns among its delivered psns (RACK on
 *	each path: a psn overtaken on its own EV is lost sooner).
 * @failed: a psn hit the retry limit, or the peer was silent for
 *	longer than cfg.silence_ns.
 * @heard_ns: when the peer last answered (an accepted ACK or NACK, or
 *	spray_txwin_heard()), or when psns became outstanding after none
 *	were; 0 before either. The silence cfg.silence_ns bounds starts
 *	here.
 * @probe_ok: one new psn may go beyond the grant: a window probe with
 *	data (spray_txwin_on_persist()).
 * @refusal_costs: a refusal does not give a psn its retries back (the
 *	sender is closing: a receiver that never reads must not hold it for
 *	ever).
 * @rto_start_ns: when the RTO timer was last (re)started, or the sender
 *	last made progress (the persist timer counts from it).
 * @sent: new psns sent.
 * @retx: retransmissions sent.
 * @acked: psns delivered.
 * @spurious: psns delivered after being declared lost.
 * @lost_rack: losses by RACK.
 * @lost_nack: losses by NACK.
 * @lost_rto: losses by RTO.
 * @refusals: psns named by NO_BUF and WINDOW NACKs.
 * @t_head: the sent list's oldest record (ring index, SPRAY_TX_NIL if
 *	empty): every INFLIGHT and REFUSED record, in the order of their
 *	latest transmission, so that loss detection and the RTO start from the
 *	oldest and stop early.
 * @t_tail: its newest.
 * @lost_low: no psn before it is LOST (where the search for the next
 *	retransmission starts).
 * @rtos: RTO expiries.
 * @silences: failures for the peer's silence (cfg.silence_ns).
 * @probes: window probes (persist timer expiries), with data or not.
 * @bad_acks: ACKs acknowledging psns never sent.
 */
struct spray_txwin {
	struct spray_txwin_cfg cfg;
	struct spray_txrec *ring;
	u32	mask;
	u32	una;
	u32	nxt;
	u32	grant;
	u32	inflight;
	u32	lost;
	u32	sacked;
	u32	refused;
	u32	refused_top;
	u64	rack_ns;
	u32	rack_psn;
	u32	srtt_ns;
	u32	rttvar_ns;
	u32	min_rtt_ns;
	u32	rtt_max_ns;
	u32	rto_ns;
	u32	rto_floor_ns;
	u64	rto_spurious_ns;
	u8	backoff;
	u8	reo_mult;
	u32	reo_calm;
	u32	reo_obs_ns;
	u64	ev_rack[SPRAY_TX_MAX_EVS];
	u32	t_head;
	u32	t_tail;
	u32	lost_low;
	bool	failed;
	bool	probe_ok;
	bool	refusal_costs;
	u64	rto_start_ns;
	u64	heard_ns;
	u64	sent;
	u64	retx;
	u64	acked;
	u64	spurious;
	u64	lost_rack;
	u64	lost_nack;
	u64	lost_rto;
	u64	refusals;
	u64	rtos;
	u64	silences;
	u64	probes;
	u64	bad_acks;
};

void spray_txwin_cfg_default(struct spray_txwin_cfg *cfg);
int spray_txwin_init(struct spray_txwin *tw, struct spray_txrec *ring,
		     u32 ring_size, u32 isn, u32 grant,
		     const struct spray_txwin_cfg *cfg);
struct spray_txrec *spray_txwin_rec(struct spray_txwin *tw, u32 psn);
u32 spray_txwin_room(const struct spray_txwin *tw, u32 cwnd_pkts);
u32 spray_txwin_send_new(struct spray_txwin *tw, u64 now_ns, u16 ev,
			 u32 msg_id, u32 frag_off, u16 len, void *msg);
u32 spray_txwin_send_run(struct spray_txwin *tw, u64 now_ns, u16 ev,
			 u32 msg_id, u32 frag_off, u16 len, u16 last_len,
			 u32 n, void *msg);
bool spray_txwin_next_retx(struct spray_txwin *tw, u32 *psn);
void spray_txwin_sent_retx(struct spray_txwin *tw, u32 psn, u16 ev,
			   u64 now_ns);
int spray_txwin_on_ack(struct spray_txwin *tw, const struct spray_ack *ack,
		       u64 now_ns, const struct spray_txwin_ops *ops,
		       void *ctx, struct spray_txack_sum *sum);
int spray_txwin_on_nack(struct spray_txwin *tw, u32 psn, u16 count,
			u8 reason, u32 cum_psn, u32 grant_psn, u64 now_ns,
			const struct spray_txwin_ops *ops, void *ctx);
u64 spray_txwin_detect_loss(struct spray_txwin *tw, u64 now_ns,
			    const struct spray_txwin_ops *ops, void *ctx);
u64 spray_txwin_rto_deadline(const struct spray_txwin *tw);
u32 spray_txwin_on_rto(struct spray_txwin *tw, u64 now_ns,
		       const struct spray_txwin_ops *ops, void *ctx);
u32 spray_txwin_probe_unanswered(struct spray_txwin *tw, u64 now_ns,
				 const struct spray_txwin_ops *ops, void *ctx);
u64 spray_txwin_persist_deadline(const struct spray_txwin *tw);
bool spray_txwin_on_persist(struct spray_txwin *tw, u64 now_ns,
			    bool with_data);

static inline u32 spray_txwin_outstanding(const struct spray_txwin *tw)
{
	return tw->nxt - tw->una;
}

/*
 * The peer answered by other means than an ACK or a NACK (a path probe's
 * echo): the silence bound starts again.
 */
static inline void spray_txwin_heard(struct spray_txwin *tw, u64 now_ns)
{
	tw->heard_ns = now_ns;
}

/**
 * spray_txwin_answer_probed() - an RTO expiry asked for an ACK instead
 * @tw: send window
 * @now_ns: current time
 *
 * The peer answers what we send, and holds the ACK of our last packets for
 * its answer to carry (SPRAY_CAP_ANSWER_PROBE): the expiry sent a PROBE
 * asking for that ACK rather than declare the packets lost. The period
 * starts again, without backoff; if it expires again, or if the ACK the
 * probe asked for acknowledges nothing new (spray_txwin_probe_unanswered()),
 * the packets are lost.
 */
static inline void spray_txwin_answer_probed(struct spray_txwin *tw,
					     u64 now_ns)
{
	tw->rto_start_ns = now_ns;
}

/**
 * spray_txwin_refusing() - is the receiver refusing for lack of room?
 * @tw: send window
 *
 * While psns it refused wait (REFUSED), and after they went again until
 * the receiver acked everything up to the highest of them: what it
 * refused and was told to send again (a RESUME, its grant moving) may be
 * refused once more, and a new message sent meanwhile would be refused
 * too (the receiver admits only the message whose turn came). A lost psn
 * below the highest refused one delays new messages until it is repaired.
 *
 * Return: true while the receiver may refuse what is not admitted yet.
 */
static inline bool spray_txwin_refusing(const struct spray_txwin *tw)
{
	return tw->refused || (s32)(tw->refused_top - tw->una) > 0;
}

/**
 * spray_train_defer() - whether new data that the window cuts short waits
 *	for the ACKs of what is in flight, as TCP defers a TSO frame the
 *	window would cut (tcp_tso_should_defer())
 * @room: packets the windows allow now (spray_txwin_room())
 * @inflight: packets in flight
 * @want: the train the path allows (at most an eighth of the window)
 * @left: packets of new data queued, counted up to @want
 *
 * Sent at once, a train is as long as the room the last ACK opened, and
 * the ACKs of short trains open short rooms: a window that once fills
 * goes on in trains of the ACK frequency, whatever the CPU could do.
 * Waiting while less than @want is free, but what is in flight frees
 * enough, costs at most an eighth of the window for an RTT. Never when
 * nothing is in flight (no ACK to wait for), when the data queued fits the
 * room, or when what is in flight could never make @want of room.
 *
 * Return: true if the train waits for an ACK.
 */
static inline bool spray_train_defer(u32 room, u32 inflight, u32 want,
				     u32 left)
{
	return room < want && left > room && inflight &&
	       room + inflight >= want;
}

#endif /* _SPRAY_TXWIN_H */

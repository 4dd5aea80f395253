// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_txwin: the send window (txwin.c) driven by an arbitrary sequence of
 * events: new sends, retransmissions, a fabric that drops, duplicates,
 * reorders and CE-marks packets on their way to a real receive window
 * (rxwin.c), its ACKs and NACKs (reordered, lost or replayed), hostile
 * ACKs/NACKs with arbitrary fields and raw packets, both through the real
 * parser (pkt.c), timer expiries and time.
 *
 * After every event:
 * - the counters inflight/lost/sacked equal the records in those states,
 *   never negative (no u32 wrap), and [una, nxt) fits the ring;
 * - una never moves back, nxt moves only by sends, the grant never shrinks
 *   nor jumps beyond una + SPRAY_TX_GRANT_MAX, new psns are sent only below
 *   the grant and within the ring;
 * - every psn is acked at most once, and only while it is in [una, nxt)
 *   (no psn outside the window is accepted); an ACK naming psns never sent
 *   is refused and changes nothing; the ACK summary matches the callbacks;
 * - ACKs built by the receive window ack only psns that it received;
 * - loss verdicts name only psns in flight; RTO/timer values stay in range.
 * When the input ends, if every ACK/NACK was the receiver's own, the window
 * must drain: everything acked (or the connection failed at the retry
 * limit) once the fabric delivers and timers fire.
 */
#include "pkt.h"
#include "rxwin.h"
#include "txwin.h"
#include "fuzz.h"

#define MAX_RING	256
#define MAX_SENT	32768
#define FABRIC		64
#define ACKQ		8

/* shadow state of one psn, indexed by psn - isn */
#define S_ACKED		0x01
#define S_RCVD		0x02

struct xmit {
	u32	psn;
	u16	ev;
	u16	flags;
	u64	ts;
};

static struct h {
	struct spray_txwin tw;
	struct spray_txrec ring[MAX_RING];
	struct spray_rxwin rx;
	u32	isn;
	u64	now;
	u8	shadow[MAX_SENT];
	u16	len[MAX_SENT];
	u32	nsent;
	u64	nretx;
	u64	nacked;
	u32	prev_una;
	u32	prev_grant;
	/* the current call */
	u32	call_una;
	bool	honest;
	u32	call_pkts;
	u64	call_bytes;
	u32	call_ce;
	bool	hostile;	/* a hostile ACK/NACK was applied */
	struct xmit fabric[FABRIC];
	u32	nfab;
	struct spray_ack ackq[ACKQ];
	u32	nackq;
} H;

static u32 off(u32 psn)
{
	return psn - H.isn;
}

static void on_acked(void *ctx, u32 psn, const struct spray_txrec *rec,
		     bool ce)
{
	(void)ctx;
	FZ_CHECK(spray_psn_in(psn, H.call_una, H.tw.nxt),
		 "psn %u acked outside [%u, %u)", psn, H.call_una, H.tw.nxt);
	FZ_CHECK(off(psn) < H.nsent, "psn %u never sent", psn);
	FZ_CHECK(!(H.shadow[off(psn)] & S_ACKED), "psn %u acked twice", psn);
	FZ_CHECK(rec->len == H.len[off(psn)], "psn %u len %u, sent %u", psn,
		 rec->len, H.len[off(psn)]);
	if (H.honest)
		FZ_CHECK(H.shadow[off(psn)] & S_RCVD,
			 "receiver's ACK acks psn %u it never received", psn);
	H.shadow[off(psn)] |= S_ACKED;
	H.nacked++;
	H.call_pkts++;
	H.call_bytes += rec->len;
	H.call_ce += ce;
}

static void on_lost(void *ctx, u32 psn, const struct spray_txrec *rec,
		    enum spray_loss_why why)
{
	(void)ctx;
	FZ_CHECK(spray_txwin_rec(&H.tw, psn) == rec, "lost psn %u not in window",
		 psn);
	FZ_CHECK(rec->state == SPRAY_TXREC_LOST, "lost psn %u state %u", psn,
		 rec->state);
	FZ_CHECK(!(H.shadow[off(psn)] & S_ACKED), "acked psn %u declared lost",
		 psn);
	FZ_CHECK(why >= SPRAY_LOSS_RACK && why <= SPRAY_LOSS_REFUSED, "why %d",
		 why);
}

static void on_failed(void *ctx, u32 psn, const struct spray_txrec *rec)
{
	(void)ctx;
	FZ_CHECK(spray_txwin_rec(&H.tw, psn) == rec, "failed psn %u", psn);
	FZ_CHECK(rec->state == SPRAY_TXREC_FAILED && H.tw.failed,
		 "failed psn %u state %u", psn, rec->state);
}

/*
 * A run delivered by the cumulative ack: each psn as on_acked() checks it
 * (unmarked), all first transmissions in flight of one send time, EV and
 * message, @bytes their payload
 */
static void on_acked_run(void *ctx, u32 psn, u32 n,
			 const struct spray_txrec *rec, u32 bytes)
{
	const struct spray_txrec *r;
	u64 sum = 0;
	u32 i;

	FZ_CHECK(n >= 1 && spray_txwin_rec(&H.tw, psn) == rec,
		 "run of %u at psn %u", n, psn);
	for (i = 0; i < n; i++) {
		r = &H.tw.ring[(psn + i) & H.tw.mask];
		FZ_CHECK(spray_psn_in(psn + i, H.call_una, H.tw.nxt),
			 "run psn %u outside [%u, %u)", psn + i, H.call_una,
			 H.tw.nxt);
		FZ_CHECK(r->state == SPRAY_TXREC_INFLIGHT && !r->retx &&
			 r->sent_ns == rec->sent_ns && r->ev == rec->ev &&
			 r->msg == rec->msg,
			 "psn %u in a run: state %u retx %u", psn + i, r->state,
			 r->retx);
		sum += r->len;
		on_acked(ctx, psn + i, r, false);
	}
	FZ_CHECK(sum == bytes, "run of %u: %u bytes, records %llu", n, bytes,
		 (unsigned long long)sum);
}

static const struct spray_txwin_ops ops = {
	.acked = on_acked, .acked_run = on_acked_run, .lost = on_lost,
	.failed = on_failed,
};

static void call_begin(bool honest)
{
	H.call_una = H.tw.una;
	H.honest = honest;
	H.call_pkts = 0;
	H.call_bytes = 0;
	H.call_ce = 0;
}

/*
 * The sent list holds exactly the INFLIGHT and REFUSED records, each once,
 * linked both ways, in the order of their send times, every one in the
 * window, lost_low at or before every LOST psn.
 */
static void check_sent_list(const struct spray_txwin *tw, u32 want)
{
	u32 i, prev = SPRAY_TX_NIL, n = 0, psn;
	const struct spray_txrec *rec;
	u64 t = 0;

	for (i = tw->t_head; i != SPRAY_TX_NIL; i = rec->tnext) {
		FZ_CHECK(i <= tw->mask && n <= tw->mask, "sent list: index %u, %u long",
			 i, n);
		rec = &tw->ring[i];
		psn = tw->una + ((i - tw->una) & tw->mask);
		FZ_CHECK(spray_psn_in(psn, tw->una, tw->nxt),
			 "sent list: psn %u outside [%u, %u)", psn, tw->una, tw->nxt);
		FZ_CHECK(rec->state == SPRAY_TXREC_INFLIGHT ||
			 rec->state == SPRAY_TXREC_REFUSED,
			 "sent list: psn %u state %u", psn, rec->state);
		FZ_CHECK(rec->tprev == prev, "sent list: psn %u prev %u, not %u",
			 psn, rec->tprev, prev);
		FZ_CHECK(rec->sent_ns >= t, "sent list: psn %u sent before the one ahead",
			 psn);
		t = rec->sent_ns;
		prev = i;
		n++;
	}
	FZ_CHECK(tw->t_tail == prev, "sent list: tail %u, last %u", tw->t_tail,
		 prev);
	FZ_CHECK(n == want, "sent list: %u records, %u INFLIGHT or REFUSED", n,
		 want);
	/* (lost_low may fall behind una: the search starts at una then) */
	for (psn = tw->una; tw->lost && spray_psn_in(tw->lost_low, tw->una, tw->nxt + 1) &&
	     psn != tw->lost_low; psn++)
		FZ_CHECK(tw->ring[psn & tw->mask].state != SPRAY_TXREC_LOST,
			 "lost psn %u before lost_low %u", psn, tw->lost_low);
}

static void check_tw(void)
{
	const struct spray_txwin *tw = &H.tw;
	u32 psn, inflight = 0, lost = 0, sacked = 0, failed = 0, refused = 0;
	const struct spray_txrec *rec;

	FZ_CHECK(tw->nxt - tw->una <= tw->mask + 1, "%u outstanding, ring %u",
		 tw->nxt - tw->una, tw->mask + 1);
	FZ_CHECK(off(tw->nxt) == H.nsent, "nxt moved without a send");
	FZ_CHECK(off(tw->una) >= off(H.prev_una) && off(tw->una) <= H.nsent,
		 "una %u moved back from %u", tw->una, H.prev_una);
	FZ_CHECK((s32)(tw->grant - H.prev_grant) >= 0, "grant %u shrank from %u",
		 tw->grant, H.prev_grant);
	if (tw->grant != H.prev_grant)
		FZ_CHECK(tw->grant - tw->una <= SPRAY_TX_GRANT_MAX,
			 "bogus grant %u accepted, una %u", tw->grant, tw->una);
	H.prev_una = tw->una;
	H.prev_grant = tw->grant;

	for (psn = tw->una; psn != tw->nxt; psn++) {
		rec = &tw->ring[psn & tw->mask];
		switch (rec->state) {
		case SPRAY_TXREC_INFLIGHT:
			inflight++;
			break;
		case SPRAY_TXREC_LOST:
			lost++;
			break;
		case SPRAY_TXREC_SACKED:
			sacked++;
			break;
		case SPRAY_TXREC_FAILED:
			failed++;
			break;
		case SPRAY_TXREC_REFUSED:
			refused++;
			break;
		default:
			FZ_CHECK(0, "psn %u in window with state %u", psn,
				 rec->state);
		}
		FZ_CHECK(!!(H.shadow[off(psn)] & S_ACKED) ==
			 (rec->state == SPRAY_TXREC_SACKED),
			 "psn %u state %u acked %d", psn, rec->state,
			 H.shadow[off(psn)] & S_ACKED);
		FZ_CHECK(rec->len == H.len[off(psn)], "psn %u record changed",
			 psn);
	}
	FZ_CHECK(tw->inflight == inflight, "inflight %u, records %u",
		 tw->inflight, inflight);
	FZ_CHECK(tw->lost == lost, "lost %u, records %u", tw->lost, lost);
	FZ_CHECK(tw->sacked == sacked, "sacked %u, records %u", tw->sacked,
		 sacked);
	FZ_CHECK(tw->refused == refused, "refused %u, records %u", tw->refused,
		 refused);
	FZ_CHECK(!failed || tw->failed, "FAILED record, window not failed");
	check_sent_list(tw, inflight + refused);
	FZ_CHECK(tw->acked == H.nacked, "acked %llu, callbacks %llu",
		 (unsigned long long)tw->acked, (unsigned long long)H.nacked);
	FZ_CHECK(tw->sent == H.nsent && tw->retx == H.nretx, "send counters");
	FZ_CHECK(tw->rto_ns >= tw->cfg.rto_min_ns &&
		 tw->rto_ns <= max(tw->cfg.rto_max_ns, SPRAY_TXWIN_RTO_LIMIT_NS),
		 "rto %u outside [%u, max(%u, %u)]", tw->rto_ns,
		 tw->cfg.rto_min_ns, tw->cfg.rto_max_ns, SPRAY_TXWIN_RTO_LIMIT_NS);
	FZ_CHECK(tw->backoff <= 16, "backoff %u", tw->backoff);
	FZ_CHECK(tw->reo_mult >= 1 && tw->reo_mult <= 64 &&
		 !(tw->reo_mult & (tw->reo_mult - 1)), "reo_mult %u",
		 tw->reo_mult);
	FZ_CHECK(!!spray_txwin_rto_deadline(tw) ==
		 !!(tw->inflight || tw->lost || tw->refused),
		 "RTO armed %d with %u in flight, %u lost, %u refused",
		 !!spray_txwin_rto_deadline(tw), tw->inflight, tw->lost,
		 tw->refused);
	if (tw->failed)
		FZ_CHECK(!spray_txwin_room(tw, U32_MAX), "room after failure");
}

static void check_sum(const struct spray_txack_sum *sum)
{
	FZ_CHECK(sum->pkts == H.call_pkts && sum->bytes == H.call_bytes &&
		 sum->ce_pkts == H.call_ce, "summary %u/%u/%u, callbacks %u/%llu/%u",
		 sum->pkts, sum->bytes, sum->ce_pkts, H.call_pkts,
		 (unsigned long long)H.call_bytes, H.call_ce);
	FZ_CHECK(sum->ce_bytes <= sum->bytes, "ce_bytes %u > bytes %u",
		 sum->ce_bytes, sum->bytes);
}

static void fabric_push(u32 psn, u16 ev, u16 flags)
{
	if (H.nfab == FABRIC)
		return;		/* queue full: lost */
	H.fabric[H.nfab++] = (struct xmit){
		.psn = psn, .ev = ev, .flags = flags, .ts = H.now,
	};
}

static void send_new(struct fz *f)
{
	u32 n = 1 + fz_u8(f) % 16, cwnd = fz_u8(f), room, psn, i;
	u16 ev = fz_u16(f) % 320, len = fz_u16(f) ? : 1;

	if (!cwnd)
		cwnd = U32_MAX;
	room = spray_txwin_room(&H.tw, cwnd);
	FZ_CHECK(room <= H.tw.mask + 1 - (H.tw.nxt - H.tw.una), "room %u", room);
	FZ_CHECK(!room || (spray_psn_before(H.tw.nxt, H.tw.grant) &&
			   room <= H.tw.grant - H.tw.nxt),
		 "room %u beyond grant", room);
	if (cwnd != U32_MAX)
		FZ_CHECK((u64)room + H.tw.inflight + H.tw.lost <= cwnd ||
			 !room, "room %u beyond cwnd %u", room, cwnd);
	for (i = 0; i < n && i < room && H.nsent < MAX_SENT; i++) {
		H.len[H.nsent] = len;
		H.nsent++;
		psn = spray_txwin_send_new(&H.tw, H.now, ev, 1, 0, len, NULL);
		FZ_CHECK(off(psn) == H.nsent - 1, "send_new gave psn %u", psn);
		fabric_push(psn, ev, off(psn) < 16 ? SPRAY_F_SYN : 0);
		ev = (ev + 1) % 320;
	}
}

static void retransmit(struct fz *f)
{
	u16 ev = fz_u16(f) % 320;
	struct spray_txrec *rec;
	u32 psn;
	u8 retx;

	if (!spray_txwin_next_retx(&H.tw, &psn)) {
		FZ_CHECK(!H.tw.lost, "%u lost, none to resend", H.tw.lost);
		return;
	}
	rec = spray_txwin_rec(&H.tw, psn);
	FZ_CHECK(rec && rec->state == SPRAY_TXREC_LOST, "next_retx psn %u", psn);
	retx = rec->retx;
	spray_txwin_sent_retx(&H.tw, psn, ev, H.now);
	FZ_CHECK(rec->state == SPRAY_TXREC_INFLIGHT && rec->retx == retx + 1 &&
		 rec->ev == ev && rec->sent_ns == H.now, "sent_retx psn %u", psn);
	H.nretx++;
	fabric_push(psn, ev, SPRAY_F_RETX);
}

static void rx_deliver(const struct xmit *x, bool ce)
{
	bool was = spray_rxwin_received(&H.rx, x->psn);
	int ret;

	ret = spray_rxwin_rcv(&H.rx, x->psn, x->flags, ce, x->ts, x->ev, H.now);
	if (!ret) {
		FZ_CHECK(!was && !(H.shadow[off(x->psn)] & S_RCVD),
			 "psn %u accepted twice by the receiver", x->psn);
		H.shadow[off(x->psn)] |= S_RCVD;
	}
}

static void apply_ack(const struct spray_ack *ack, bool honest)
{
	struct spray_txwin snap;
	struct spray_txack_sum sum;
	int ret;

	memcpy(&snap, &H.tw, sizeof(snap));
	call_begin(honest);
	ret = spray_txwin_on_ack(&H.tw, ack, H.now, &ops, NULL, &sum);
	if (ret) {
		FZ_CHECK(ret == -EINVAL && !honest, "on_ack %d (honest %d)", ret,
			 honest);
		FZ_CHECK(spray_psn_after(ack->cum_psn, snap.nxt),
			 "ACK cum %u refused, nxt %u", ack->cum_psn, snap.nxt);
		snap.bad_acks++;
		FZ_CHECK(!memcmp(&snap, &H.tw, sizeof(snap)),
			 "refused ACK changed the window");
		FZ_CHECK(!H.call_pkts, "refused ACK acked psns");
		return;
	}
	FZ_CHECK(!spray_psn_after(ack->cum_psn, snap.nxt), "ACK cum %u beyond nxt %u accepted",
		 ack->cum_psn, snap.nxt);
	check_sum(&sum);
	FZ_CHECK(sum.cum_advanced == (H.tw.una != snap.una), "cum_advanced");
	if (spray_psn_after(ack->cum_psn, snap.una))
		FZ_CHECK(H.tw.una == ack->cum_psn, "una %u, ACK cum %u",
			 H.tw.una, ack->cum_psn);
}

static void apply_nack(u32 psn, u16 count, u8 reason, u32 cum, u32 grant,
		       bool honest)
{
	u8 was[SPRAY_NACK_MAX_COUNT] = {};
	struct spray_txwin snap;
	struct spray_txrec *rec;
	int ret;
	u32 i;

	memcpy(&snap, &H.tw, sizeof(snap));
	for (i = 0; i < count && i < SPRAY_NACK_MAX_COUNT; i++) {
		rec = spray_txwin_rec(&H.tw, psn + i);
		was[i] = rec ? rec->state : 0;
	}
	call_begin(honest);
	ret = spray_txwin_on_nack(&H.tw, psn, count, reason, cum, grant, H.now,
				  &ops, NULL);
	if (ret == -EMSGSIZE) {
		/* the receiver does not take that message: applied as an ACK */
		FZ_CHECK(reason == SPRAY_NACK_MSG_SIZE, "on_nack %d, reason %u",
			 ret, reason);
		ret = 0;
	}
	if (ret < 0) {
		FZ_CHECK(!honest, "receiver's NACK refused: %d", ret);
		FZ_CHECK(ret == -EINVAL || (ret == -ECONNRESET &&
					    reason == SPRAY_NACK_NO_CONN),
			 "on_nack %d", ret);
		if (ret == -EINVAL)
			snap.bad_acks++;
		FZ_CHECK(!memcmp(&snap, &H.tw, sizeof(snap)),
			 "refused NACK changed the window");
		return;
	}
	FZ_CHECK(ret <= count, "%d lost of %u named", ret, count);
	/* refused psns wait for room: none lost at once, none failed */
	if (reason == SPRAY_NACK_NO_BUF || reason == SPRAY_NACK_WINDOW) {
		FZ_CHECK(!ret, "refusal declared %d lost", ret);
		for (i = 0; i < count; i++) {
			rec = spray_txwin_rec(&H.tw, psn + i);
			FZ_CHECK(!rec || rec->state != SPRAY_TXREC_FAILED ||
				 was[i] == SPRAY_TXREC_FAILED,
				 "refused psn %u failed (was %u)", psn + i,
				 was[i]);
		}
	}
}

/* the receiver's ACK, with a grant as receiver credit would set it */
static void build_ack(struct spray_ack *ack, u32 credit)
{
	spray_rxwin_build_ack(&H.rx, H.now, ack);
	ack->grant_psn = H.rx.cum + credit % (SPRAY_RXWIN_BITS + 1);
}

static void raw_packet(const u8 *buf, u32 len)
{
	struct spray_pkt p;

	if (spray_pkt_parse(buf, len, &p))
		return;
	H.hostile = true;
	if (p.type == SPRAY_T_ACK && !(p.flags & SPRAY_F_PROBE))
		apply_ack(&p.ack, false);
	else if (p.type == SPRAY_T_NACK)
		apply_nack(p.nack.psn, p.nack.count, p.nack.reason,
			   p.nack.cum_psn, p.nack.grant_psn, false);
}

/* a hostile packet with fields near the window, through the encoder */
static void forged(struct fz *f, u8 type)
{
	struct spray_pkt p = {
		.type = type, .sport = 1, .dport = 1, .src_cid = 1,
	};
	u8 buf[SPRAY_ACK_LEN];
	int n;

	if (type == SPRAY_T_ACK) {
		p.ack.cum_psn = H.tw.una + (s16)fz_u16(f);
		p.ack.sack_base = H.tw.una + (s16)fz_u16(f);
		p.ack.sack = fz_u64(f);
		p.ack.ecn = fz_u64(f);
		p.ack.ts_echo = fz_u8(f) & 1 ? H.now - fz_u32(f) : fz_u64(f);
		p.ack.hold_ns = fz_u32(f);
		p.ack.grant_psn = H.tw.una + (s32)fz_u32(f);
		p.ack.ev_echo = fz_u16(f);
		p.ack.echo_psn = H.tw.una + (s16)fz_u16(f);
	} else {
		p.nack.psn = H.tw.una + (s16)fz_u16(f);
		p.nack.count = fz_u8(f);
		p.nack.reason = fz_u8(f) % 6;
		p.nack.cum_psn = H.tw.una + (s16)fz_u16(f);
		p.nack.grant_psn = H.tw.una + (s32)fz_u32(f);
	}
	n = spray_pkt_build(buf, sizeof(buf), &p);
	FZ_CHECK(n > 0, "build %d", n);
	raw_packet(buf, (u32)n);
}

static void deliver(struct fz *f)
{
	u8 k = fz_u8(f), what = fz_u8(f);
	struct xmit x;

	if (!H.nfab)
		return;
	k %= H.nfab;
	x = H.fabric[k];
	if (!(what & 4))	/* leaves the fabric, else duplicated later */
		H.fabric[k] = H.fabric[--H.nfab];
	if (what & 3)		/* 1 in 4 is lost */
		rx_deliver(&x, what & 8);
}

static void receiver_ack(struct fz *f)
{
	u32 credit = fz_u16(f);
	u8 how = fz_u8(f);
	struct spray_ack ack;

	if (!(how & 1) && !spray_rxwin_ack_due(&H.rx, H.now))
		return;
	build_ack(&ack, credit);
	if (how & 2 && H.nackq < ACKQ)
		H.ackq[H.nackq++] = ack;	/* delayed: applied later */
	else
		apply_ack(&ack, true);
}

static void delayed_ack(struct fz *f)
{
	u8 k = fz_u8(f), what = fz_u8(f);
	struct spray_ack ack;

	if (!H.nackq)
		return;
	k %= H.nackq;
	ack = H.ackq[k];
	if (!(what & 1))
		H.ackq[k] = H.ackq[--H.nackq];
	if (!(what & 2))
		apply_ack(&ack, true);
}

static void receiver_nack(struct fz *f)
{
	u32 rtt = fz_u32(f), credit = fz_u16(f), i, n;
	struct spray_rxwin_nack nk[4];

	n = spray_rxwin_nack_scan(&H.rx, H.now, rtt, nk, ARRAY_SIZE(nk));
	FZ_CHECK(n <= ARRAY_SIZE(nk), "%u NACK runs", n);
	for (i = 0; i < n; i++)
		apply_nack(nk[i].psn, nk[i].count, SPRAY_NACK_LOSS, H.rx.cum,
			   H.rx.cum + credit % (SPRAY_RXWIN_BITS + 1), true);
}

static void receiver_refuse(struct fz *f)
{
	u8 k = fz_u8(f), reason = fz_u8(f) & 1 ? SPRAY_NACK_NO_BUF :
						SPRAY_NACK_WINDOW;

	/* the receiver refused a packet (no buffer): a NACK, not an ACK */
	if (!H.nfab)
		return;
	k %= H.nfab;
	if (!spray_psn_before(H.fabric[k].psn, H.tw.nxt))
		return;
	apply_nack(H.fabric[k].psn, 1, reason, H.rx.cum, H.rx.cum, true);
	H.fabric[k] = H.fabric[--H.nfab];
}

static void detect_loss(void)
{
	u64 next = spray_txwin_detect_loss(&H.tw, H.now, &ops, NULL);

	FZ_CHECK(!next || next > H.now, "loss deadline %llu not after now %llu",
		 (unsigned long long)next, (unsigned long long)H.now);
}

static void rto(struct fz *f)
{
	u64 deadline = spray_txwin_rto_deadline(&H.tw);
	u32 lost = H.tw.lost, n;

	if (fz_u8(f) & 1 && deadline > H.now)
		H.now = deadline;
	n = spray_txwin_on_rto(&H.tw, H.now, &ops, NULL);
	FZ_CHECK(n <= SPRAY_TX_RTO_BURST, "RTO declared %u lost", n);
	if (!deadline || H.now < deadline)
		FZ_CHECK(!n, "RTO before its deadline");
	FZ_CHECK(H.tw.lost <= lost + n, "lost grew by more than %u", n);
}

/* every packet arrives, every ACK too, timers fire: the window drains */
static void drain(void)
{
	struct spray_ack ack;
	u32 round, psn, i;
	u64 deadline;

	for (round = 0; round < 2048; round++) {
		for (i = 0; i < H.nfab; i++)
			rx_deliver(&H.fabric[i], false);
		H.nfab = 0;
		if (spray_rxwin_ack_due(&H.rx, H.now) || round % 2) {
			build_ack(&ack, SPRAY_RXWIN_BITS);
			apply_ack(&ack, true);
			check_tw();
		}
		if (H.tw.una == H.tw.nxt || H.tw.failed)
			return;
		while (spray_txwin_next_retx(&H.tw, &psn)) {
			spray_txwin_sent_retx(&H.tw, psn, (u16)(round % 256), H.now);
			H.nretx++;
			fabric_push(psn, (u16)(round % 256), SPRAY_F_RETX);
		}
		if (H.nfab)
			continue;
		/* nothing to deliver: let a timer fire */
		deadline = spray_txwin_rto_deadline(&H.tw);
		H.now = deadline > H.now ? deadline : H.now + 1000;
		detect_loss();
		spray_txwin_on_rto(&H.tw, H.now, &ops, NULL);
		check_tw();
	}
	FZ_CHECK(0, "not drained: una %u nxt %u in flight %u lost %u rx cum %u",
		 H.tw.una, H.tw.nxt, H.tw.inflight, H.tw.lost, H.rx.cum);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz f = { .p = data, .n = size };
	struct spray_txwin_cfg cfg;
	u32 ring_size, grant;
	size_t got;
	const u8 *b;

	memset(&H, 0, sizeof(H));
	ring_size = 1U << (fz_u8(&f) % 9);
	H.isn = fz_u32(&f);
	grant = H.isn + fz_u16(&f);
	spray_txwin_cfg_default(&cfg);
	if (fz_u8(&f) & 1) {
		cfg.rto_init_ns = fz_u32(&f);
		cfg.rto_min_ns = fz_u32(&f);
		cfg.rto_max_ns = fz_u32(&f);
		cfg.reorder_min_ns = fz_u32(&f);
		cfg.max_retx = fz_u8(&f);
	}
	if (spray_txwin_init(&H.tw, H.ring, ring_size, H.isn, grant, &cfg)) {
		FZ_CHECK(!cfg.rto_min_ns || cfg.rto_min_ns > cfg.rto_max_ns,
			 "valid config refused");
		return 0;
	}
	spray_rxwin_init(&H.rx, H.isn, NULL);
	H.now = fz_u32(&f) + 1ULL;	/* ktime: never 0 */
	H.prev_una = H.isn;
	H.prev_grant = grant;

	while (fz_more(&f)) {
		switch (fz_u8(&f) % __TX_MAX) {
		case TX_SEND:
			send_new(&f);
			break;
		case TX_RETX:
			retransmit(&f);
			break;
		case TX_DELIVER:
			deliver(&f);
			break;
		case TX_ACK:
			receiver_ack(&f);
			break;
		case TX_DELAYED_ACK:
			delayed_ack(&f);
			break;
		case TX_NACK:
			receiver_nack(&f);
			break;
		case TX_REFUSE:
			receiver_refuse(&f);
			break;
		case TX_TIME:
			H.now += (u64)fz_u16(&f) << (fz_u8(&f) % 24);
			break;
		case TX_DETECT:
			detect_loss();
			break;
		case TX_RTO:
			rto(&f);
			break;
		case TX_FORGED:
			forged(&f, fz_u8(&f) & 1 ? SPRAY_T_ACK : SPRAY_T_NACK);
			break;
		case TX_RAW:
			b = fz_bytes(&f, fz_u8(&f), &got);
			raw_packet(b, (u32)got);
			break;
		}
		check_tw();
	}
	if (!H.hostile)
		drain();
	return 0;
}

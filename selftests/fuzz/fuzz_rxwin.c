// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_rxwin: the receive window (rxwin.c) and message reassembly on top of
 * it, fed arbitrary arrivals of DATA packets through the real parser
 * (pkt.c): in-order, reordered, duplicated, far outside the window,
 * truncated, corrupted, or raw bytes; with ACKs built, NACK scans and time
 * passing in between.
 *
 * The sender's messages are laid out from the input (message lengths,
 * fragment size); psn isn + k carries fragment k. The receiver does what
 * conn.c does: a psn it has received, or outside [cum, cum + BITS), only
 * goes to spray_rxwin_rcv() to be counted, which must refuse it; any other
 * psn is accepted, which must succeed (conn.c warns otherwise), and its
 * fragment is copied into its message, delivered once every fragment is in.
 *
 * After every event:
 * - a psn is accepted at most once, only inside the window; nothing
 *   received nor in the window is refused; cum is the first psn not
 *   received and high one past the highest; the received bitmap agrees
 *   with the psns accepted; n_unrep equals the unreported bits;
 * - each message is delivered exactly once, only when all its fragments
 *   have been accepted (and then every psn of it reads as received);
 * - an ACK reports cum exactly, SACK bits only for psns received (or
 *   before cum), ECN bits only where SACK bits are set and only for psns
 *   that arrived CE-marked; ACKing until none is due reports every
 *   accepted psn in some ACK;
 * - NACK runs name only psns not received, between cum and high, in
 *   order, 1..SPRAY_NACK_MAX_COUNT each, never more runs than asked; the
 *   NACK timer never fires in a loop at one instant.
 * When the input ends, if no forged packet took a psn, the missing
 * fragments are delivered in order and every message must complete.
 */
#include "pkt.h"
#include "rxwin.h"
#include "fuzz.h"

#define LAYOUT		8192	/* psns of the sender's layout */
#define SHADOW		(LAYOUT + SPRAY_RXWIN_BITS + 64)
#define MAX_MSGS	64
#define MAX_FRAG	256

/* per psn offset from isn */
#define P_ACC		0x01	/* accepted */
#define P_CE		0x02	/* accepted CE-marked */
#define P_REP		0x04	/* reported by an ACK */
#define P_GARBAGE	0x08	/* accepted, but not the layout's fragment */
#define P_FILLED	0x10	/* its fragment is in its message */

struct msg {
	u32	len;
	u32	first;		/* psn offset of its first fragment */
	u32	nfrags;
	u32	filled;
	bool	delivered;
};

static struct h {
	struct spray_rxwin w;
	u32	isn;
	u64	now;
	u16	frag;
	u32	nmsgs;
	u32	npsns;		/* psns of the layout */
	struct msg msgs[MAX_MSGS];
	u16	msg_of[LAYOUT];
	u8	st[SHADOW];
	u32	cum_off;	/* first offset not accepted */
	u32	high_off;	/* one past the highest accepted */
	u32	rep_off;	/* psns before it reported by a cum_psn */
	bool	garbage;
	u64	acks;
} H;

static bool in_shadow(u32 psn)
{
	return psn - H.isn < SHADOW;
}

static bool accepted(u32 psn)
{
	return in_shadow(psn) && H.st[psn - H.isn] & P_ACC;
}

static void frag_of(u32 k, u32 *msg, u32 *foff, u32 *flen)
{
	const struct msg *m;

	*msg = H.msg_of[k];
	m = &H.msgs[*msg];
	*foff = (k - m->first) * H.frag;
	*flen = min_t(u32, H.frag, m->len - *foff);
}

static void deliver_frag(u32 k)
{
	struct msg *m = &H.msgs[H.msg_of[k]];

	FZ_CHECK(!(H.st[k] & P_FILLED), "fragment of psn %u filled twice",
		 H.isn + k);
	FZ_CHECK(!m->delivered, "fragment for delivered message %u",
		 H.msg_of[k]);
	H.st[k] |= P_FILLED;
	m->filled++;
	FZ_CHECK(m->filled <= m->nfrags, "message %u overfilled", H.msg_of[k]);
	if (m->filled == m->nfrags)
		m->delivered = true;
}

/*
 * A new psn was accepted, CE-marked if @ce; @p: its packet, or NULL for the
 * layout's
 */
static void accept(u32 psn, bool ce, const struct spray_pkt *p)
{
	u32 k, msg, foff, flen;

	FZ_CHECK(in_shadow(psn), "psn %u accepted far from isn %u", psn, H.isn);
	k = psn - H.isn;
	H.st[k] |= P_ACC | (ce ? P_CE : 0);
	while (H.cum_off < SHADOW && H.st[H.cum_off] & P_ACC)
		H.cum_off++;
	if (k + 1 > H.high_off)
		H.high_off = k + 1;

	if (k >= H.npsns) {
		H.st[k] |= P_GARBAGE;
		H.garbage = true;
		return;
	}
	frag_of(k, &msg, &foff, &flen);
	if (p && (p->data.msg_id != msg || p->data.msg_len != H.msgs[msg].len ||
		  p->data.frag_off != foff || p->data.frag_len != flen)) {
		/* forged: takes the psn, its fragment never comes */
		H.st[k] |= P_GARBAGE;
		H.garbage = true;
		return;
	}
	deliver_frag(k);
}

/* a packet arrived: parse it and do what conn.c does with DATA */
static void rcv_packet(const u8 *buf, u32 len, bool ce)
{
	struct spray_pkt p;
	u32 psn;
	bool in, was;
	int ret;

	if (spray_pkt_parse(buf, len, &p) || p.type != SPRAY_T_DATA)
		return;
	if (p.src_cid != H.isn)
		return;		/* another incarnation: not modelled */
	if (H.cum_off >= LAYOUT)
		return;		/* keeps accepted psns inside the shadow */
	psn = p.psn;
	was = spray_rxwin_received(&H.w, psn);
	FZ_CHECK(was == (accepted(psn) || spray_psn_before(psn, H.w.cum)),
		 "received(%u) says %d", psn, was);
	in = spray_psn_in(psn, H.w.cum, H.w.cum + SPRAY_RXWIN_BITS);
	ret = spray_rxwin_rcv(&H.w, psn, p.flags, ce, p.data.ts_ns, p.ev,
			      H.now);
	if (was || !in) {
		FZ_CHECK(ret < 0, "psn %u (received %d, in window %d) accepted",
			 psn, was, in);
		if (was && (s32)(psn - H.w.cum) >= -(s32)SPRAY_RXWIN_FAR)
			FZ_CHECK(ret == -SPRAY_DROP_DUP, "dup psn %u: %d", psn,
				 ret);
		return;
	}
	FZ_CHECK(ret == 0, "new psn %u in window refused: %d", psn, ret);
	accept(psn, ce, &p);
}

/* build the layout's DATA packet of a psn (any psn: outside, msg 0) */
static u32 build_data(u8 *buf, u32 psn, u16 flags, u16 ev)
{
	struct spray_pkt p = {
		.type = SPRAY_T_DATA, .flags = flags, .sport = 7, .dport = 9,
		.src_cid = H.isn, .psn = psn, .ev = ev,
		/* an ACK carried (SPRAY_F_ACK) is the sender's concern */
		.dack = { .src_cid = 1 },
	};
	u32 k = psn - H.isn, msg = 0, foff = 0, flen = 1, i;
	int n;

	if (k < H.npsns)
		frag_of(k, &msg, &foff, &flen);
	p.data.msg_id = msg;
	p.data.msg_len = k < H.npsns ? H.msgs[msg].len : 1;
	p.data.frag_off = foff;
	p.data.frag_len = flen;
	p.data.ts_ns = H.now;
	n = spray_pkt_build(buf, SPRAY_MAX_HDR_LEN + MAX_FRAG, &p);
	FZ_CHECK(n == (int)spray_pkt_hlen(SPRAY_T_DATA, flags), "build %d", n);
	for (i = 0; i < flen; i++)
		buf[n + i] = (u8)(msg + foff + i);
	return n + flen;
}

static void arrival(struct fz *f)
{
	u8 how = fz_u8(f), b = fz_u8(f), cut = fz_u8(f);
	u8 buf[SPRAY_MAX_HDR_LEN + MAX_FRAG];
	u16 flags = fz_u8(f) & SPRAY_F_DATA_MASK, at;
	u32 psn, len;

	switch (how % 4) {
	case 0:		/* near the cumulative ack */
	case 1:
		psn = H.w.cum + b - 16;
		break;
	case 2:		/* anywhere in the layout */
		psn = H.isn + fz_u16(f) % LAYOUT;
		break;
	default:	/* anywhere */
		psn = H.w.cum + fz_u32(f);
		break;
	}
	len = build_data(buf, psn, flags, (u16)how);
	if (how & 0x10 && cut)		/* truncated */
		len -= min_t(u32, cut, len);
	if (how & 0x20 && len) {	/* one byte corrupted */
		at = fz_u16(f);
		buf[at % len] ^= fz_u8(f);
	}
	rcv_packet(buf, len, how & 0x40);
}

/*
 * The followers of a train (the layout's packets), taken as one run as
 * conn.c takes them: only when they extend the window (from high on, the
 * last inside it); anything else is refused and changes nothing.
 */
static void train(struct fz *f)
{
	u32 n = fz_u8(f) % 32, psn = H.w.high + fz_u8(f) % 4 - 1, i;
	u16 flags = fz_u8(f) & SPRAY_F_DATA_MASK;
	bool ce = fz_u8(f) & 1, fits;
	struct spray_rxwin old;
	int ret;

	if (H.cum_off >= LAYOUT)
		return;		/* keeps accepted psns inside the shadow */
	fits = n && !spray_psn_before(psn, H.w.high) &&
	       psn + n - 1 - H.w.cum < SPRAY_RXWIN_BITS;
	old = H.w;
	ret = spray_rxwin_rcv_run(&H.w, psn, n, flags, ce, H.now, 5, H.now);
	if (!fits) {
		FZ_CHECK(ret == -SPRAY_DROP_WINDOW && !memcmp(&old, &H.w,
							      sizeof(old)),
			 "run of %u at %u (high %u, cum %u) taken: %d", n, psn,
			 old.high, old.cum, ret);
		return;
	}
	FZ_CHECK(ret == 0, "run of %u at %u (high %u, cum %u) refused: %d", n,
		 psn, old.high, old.cum, ret);
	FZ_CHECK(H.w.new == old.new + n && H.w.unacked == old.unacked + n,
		 "run of %u counted %llu new, %u unacked", n,
		 (unsigned long long)(H.w.new - old.new),
		 H.w.unacked - old.unacked);
	for (i = 0; i < n; i++)
		accept(psn + i, ce, NULL);
}

static void check_ack(const struct spray_ack *a, u64 now)
{
	u32 i, psn;
	bool sack, ecn;

	FZ_CHECK(a->cum_psn == H.w.cum && H.w.cum == H.isn + H.cum_off,
		 "ACK cum %u, first missing %u", a->cum_psn, H.isn + H.cum_off);
	FZ_CHECK(!a->grant_psn, "rxwin set a grant");
	FZ_CHECK(a->hold_ns == (now > H.w.last_arrival_ns ?
				min_t(u64, now - H.w.last_arrival_ns, U32_MAX) : 0),
		 "hold_ns %u", a->hold_ns);
	for (i = 0; i < 64; i++) {
		psn = a->sack_base + i;
		sack = a->sack & (1ULL << i);
		ecn = a->ecn & (1ULL << i);
		FZ_CHECK(!ecn || sack, "ECN bit %u without SACK bit", i);
		if (spray_psn_before(psn, H.w.cum)) {
			FZ_CHECK(sack, "psn %u before cum not SACKed", psn);
		} else {
			FZ_CHECK(sack == accepted(psn), "psn %u SACK %d, received %d",
				 psn, sack, accepted(psn));
		}
		if (ecn)
			FZ_CHECK(accepted(psn) && H.st[psn - H.isn] & P_CE,
				 "psn %u ECN without CE", psn);
		/* CE of a psn received in range is reported */
		if (accepted(psn) && H.st[psn - H.isn] & P_CE &&
		    !spray_psn_before(psn, H.w.cum - SPRAY_RXWIN_HIST))
			FZ_CHECK(ecn, "psn %u CE not echoed", psn);
		if (sack && accepted(psn))
			H.st[psn - H.isn] |= P_REP;
	}
	for (i = H.rep_off; i < H.cum_off; i++)
		H.st[i] |= P_REP;
	H.rep_off = H.cum_off;
	H.acks++;
	FZ_CHECK(H.w.acks == H.acks, "acks %llu", (unsigned long long)H.w.acks);
}

static void ack(struct fz *f)
{
	struct spray_ack a;

	if (!(fz_u8(f) & 1) && !spray_rxwin_ack_due(&H.w, H.now))
		return;
	spray_rxwin_build_ack(&H.w, H.now, &a);
	check_ack(&a, H.now);
}

/*
 * ACK as long as one is due or the ACK timer is armed (it would fire):
 * then every accepted psn has been reported.
 */
static void flush_acks(void)
{
	struct spray_ack a;
	u32 i;

	for (i = 0; i <= SPRAY_RXWIN_BITS + 1; i++) {
		if (!spray_rxwin_ack_due(&H.w, H.now) &&
		    !spray_rxwin_ack_deadline(&H.w))
			break;
		spray_rxwin_build_ack(&H.w, H.now, &a);
		check_ack(&a, H.now);
	}
	FZ_CHECK(i <= SPRAY_RXWIN_BITS + 1, "ACKs due forever");
	FZ_CHECK(!H.w.n_unrep, "%u unreported after flush", H.w.n_unrep);
	for (i = 0; i < H.high_off; i++)
		FZ_CHECK(!(H.st[i] & P_ACC) || H.st[i] & P_REP,
			 "psn %u received, never reported", H.isn + i);
}

static void nack(struct fz *f)
{
	u32 rtt = fz_u32(f), max = fz_u8(f) % 9, n, i, j, psn, prev_end;
	struct spray_rxwin_nack out[8];
	u64 deadline;

	n = spray_rxwin_nack_scan(&H.w, H.now, rtt, out, max);
	FZ_CHECK(n <= max, "%u runs, max %u", n, max);
	prev_end = H.w.cum;
	for (i = 0; i < n; i++) {
		FZ_CHECK(out[i].count >= 1 && out[i].count <= SPRAY_NACK_MAX_COUNT,
			 "run of %u", out[i].count);
		FZ_CHECK(spray_psn_after_eq(out[i].psn, prev_end),
			 "run %u at %u overlaps or precedes cum", i, out[i].psn);
		for (j = 0; j < out[i].count; j++) {
			psn = out[i].psn + j;
			FZ_CHECK(!accepted(psn) && spray_psn_before(psn, H.w.high),
				 "NACK of psn %u (received %d, high %u)", psn,
				 accepted(psn), H.w.high);
		}
		prev_end = out[i].psn + out[i].count;
	}

	/* at its deadline the NACK timer makes progress, it cannot spin */
	for (i = 0; i < SPRAY_RXWIN_BITS + 2; i++) {
		deadline = spray_rxwin_nack_deadline(&H.w, rtt);
		if (!deadline || deadline > H.now)
			break;
		spray_rxwin_nack_scan(&H.w, H.now, rtt, out, 4);
	}
	FZ_CHECK(i < SPRAY_RXWIN_BITS + 2, "NACK timer spins at %llu (rtt %u)",
		 (unsigned long long)H.now, rtt);
}

static void check_rx(void)
{
	const struct spray_rxwin *w = &H.w;
	u32 psn, unrep = 0, i, m;

	FZ_CHECK(w->cum == H.isn + H.cum_off, "cum %u, first missing %u",
		 w->cum, H.isn + H.cum_off);
	FZ_CHECK(w->high == H.isn + H.high_off, "high %u, highest+1 %u",
		 w->high, H.isn + H.high_off);
	for (psn = w->cum; psn != w->high; psn++)
		FZ_CHECK(spray_rxwin_received(w, psn) == accepted(psn),
			 "bitmap of psn %u", psn);
	FZ_CHECK(!spray_rxwin_received(w, w->high), "high received");
	for (i = 0; i < ARRAY_SIZE(w->unrep); i++)
		unrep += (u32)__builtin_popcountll(w->unrep[i]);
	FZ_CHECK(unrep == w->n_unrep, "n_unrep %u, bits %u", w->n_unrep, unrep);
	FZ_CHECK(w->n_unrep <= w->high - w->cum, "n_unrep %u beyond high",
		 w->n_unrep);
	FZ_CHECK(w->cum != w->high || !w->snap_valid, "snapshot without hole");
	if (w->snap_valid)
		FZ_CHECK(spray_psn_after(w->snap_high, w->cum) &&
			 spray_psn_before_eq(w->snap_high, w->high),
			 "snapshot %u outside (%u, %u]", w->snap_high, w->cum,
			 w->high);
	FZ_CHECK(!w->unacked == !spray_rxwin_ack_deadline(w), "ACK timer");
	FZ_CHECK(w->reo_mult >= 1 && w->reo_mult <= 64, "reo_mult %u",
		 w->reo_mult);
	for (m = 0; m < H.nmsgs; m++) {
		const struct msg *msg = &H.msgs[m];

		FZ_CHECK(msg->delivered == (msg->filled == msg->nfrags),
			 "message %u delivered %d with %u/%u fragments", m,
			 msg->delivered, msg->filled, msg->nfrags);
		if (msg->delivered)
			FZ_CHECK(spray_rxwin_received(w, H.isn + msg->first +
						      msg->nfrags - 1),
				 "message %u delivered, last psn not received",
				 m);
	}
}

/*
 * The sender retransmits what is missing, in order: all completes. (The
 * packets are the layout's, so the parser is skipped here for speed.)
 */
static void drain(void)
{
	u32 k, m;
	int ret;

	for (k = 0; k < H.npsns; k++) {
		if (H.st[k] & P_ACC)
			continue;
		FZ_CHECK(H.w.cum == H.isn + k, "cum %u, first missing %u",
			 H.w.cum, H.isn + k);
		ret = spray_rxwin_rcv(&H.w, H.isn + k, SPRAY_F_RETX, false,
				      H.now, 1, H.now);
		FZ_CHECK(!ret, "psn %u refused in order: %d", H.isn + k, ret);
		H.st[k] |= P_ACC;
		deliver_frag(k);
	}
	H.cum_off = H.npsns;
	while (H.cum_off < SHADOW && H.st[H.cum_off] & P_ACC)
		H.cum_off++;
	if (H.npsns > H.high_off)
		H.high_off = H.npsns;
	check_rx();
	for (m = 0; m < H.nmsgs; m++)
		FZ_CHECK(H.msgs[m].delivered, "message %u never completed", m);
	flush_acks();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz f = { .p = data, .n = size };
	struct spray_rxwin_cfg cfg;
	u32 m, len, nfrags;
	size_t got;
	const u8 *b;

	memset(&H, 0, sizeof(H));
	H.isn = fz_u32(&f) ? : 1;	/* a cid, never 0 */
	spray_rxwin_cfg_default(&cfg);
	if (fz_u8(&f) & 1) {
		cfg.ack_every = fz_u8(&f);
		cfg.ack_delay_ns = fz_u32(&f);
		/*
		 * Not 0: with a zero floor and rtt_ns 0 the reorder window
		 * is 0 and the NACK timer would fire again at the same
		 * instant. The module always uses the 10 us default.
		 */
		cfg.reorder_min_ns = fz_u32(&f) ? : 1;
	}
	H.frag = fz_u8(&f) + 1;
	H.nmsgs = fz_u8(&f) % MAX_MSGS + 1;
	for (m = 0; m < H.nmsgs; m++) {
		len = fz_u16(&f) % 8192 + 1;
		nfrags = (len + H.frag - 1) / H.frag;
		if (H.npsns + nfrags > LAYOUT) {
			H.nmsgs = m;
			break;
		}
		H.msgs[m].len = len;
		H.msgs[m].first = H.npsns;
		H.msgs[m].nfrags = nfrags;
		while (nfrags--)
			H.msg_of[H.npsns++] = (u16)m;
	}
	spray_rxwin_init(&H.w, H.isn, &cfg);
	H.now = fz_u32(&f) + 1ULL;	/* ktime: never 0 */

	while (fz_more(&f)) {
		switch (fz_u8(&f) % __RX_MAX) {
		case RX_ARRIVE:
			arrival(&f);
			break;
		case RX_RAW:
			b = fz_bytes(&f, fz_u8(&f), &got);
			rcv_packet(b, (u32)got, false);
			break;
		case RX_TIME:
			H.now += (u64)fz_u16(&f) << (fz_u8(&f) % 24);
			break;
		case RX_ACK:
			ack(&f);
			break;
		case RX_NACK:
			nack(&f);
			break;
		case RX_FLUSH:
			flush_acks();
			break;
		case RX_TRAIN:
			train(&f);
			break;
		}
		check_rx();
	}
	if (!H.garbage)
		drain();
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_cc: congestion control (cc.c) with an arbitrary configuration and
 * arbitrary feedback: ACK summaries (delivered/CE packets and bytes, RTT
 * samples and their send times, base RTT), losses of each kind, time; and
 * receiver credit for a few connections activated, deactivated, receiving
 * DATA (bytes, the sender's min RTT) and granted in any order with any
 * receive buffer space. UBSan catches division by zero and signed overflow.
 *
 * Checks:
 * - spray_cc_cfg_check() accepts exactly the valid configurations and
 *   leaves min_cwnd <= init_cwnd <= max_cwnd;
 * - the window stays within [min_cwnd, max_cwnd] and within 1.5 times the
 *   peer's BDP, which stays within [bdp_min, bdp_bytes]; in packets at
 *   least 1; an ACK without CE never shrinks it (but to a bound the BDP
 *   learned lower), one with CE never grows it, a loss
 *   never grows it; a multiplicative decrease keeps at least half; an RTO
 *   halves it at most once per instant; the delay average stays below its
 *   cap; with the sender window off nothing changes;
 * - nactive counts the active connections; a grant never decreases, stays
 *   within the receive window of the cumulative ack, and a grant that
 *   moved is covered by the free receive buffer; the receiver's BDP of a
 *   sender stays within [rcv_bdp_bytes, bdp_bytes].
 */
#include "cc.h"
#include "rxwin.h"
#include "fuzz.h"

#define NCONN		4
#define DELAY_CAP	(1U << 31)

static struct spray_cc_cfg cfg;
static struct spray_nscc cc;
static struct spray_rcc rcc;
static struct spray_rcc_conn conns[NCONN];
static u32 cum[NCONN];
static u64 now;

static bool sender_on(void)
{
	return cfg.mode == SPRAY_CC_SENDER || cfg.mode == SPRAY_CC_BOTH;
}

static bool receiver_on(void)
{
	return cfg.mode == SPRAY_CC_RECEIVER || cfg.mode == SPRAY_CC_BOTH;
}

static void check_cwnd(void)
{
	u32 pkts = spray_nscc_cwnd_pkts(&cc, &cfg);

	FZ_CHECK(cc.cwnd >= cfg.min_cwnd && cc.cwnd <= cfg.max_cwnd,
		 "cwnd %u outside [%u, %u]", cc.cwnd, cfg.min_cwnd,
		 cfg.max_cwnd);
	FZ_CHECK(cc.bdp >= cfg.bdp_min && cc.bdp <= cfg.bdp_bytes,
		 "peer BDP %u outside [%u, %u]", cc.bdp, cfg.bdp_min,
		 cfg.bdp_bytes);
	FZ_CHECK(cc.cwnd <= spray_nscc_max_cwnd(&cc, &cfg),
		 "cwnd %u above 1.5 BDP %u", cc.cwnd, cc.bdp);
	if (sender_on())
		FZ_CHECK(pkts >= 1 && pkts == max(cc.cwnd / cfg.mtu, 1U),
			 "cwnd %u bytes is %u packets of %u", cc.cwnd, pkts,
			 cfg.mtu);
	else
		FZ_CHECK(pkts == U32_MAX, "window off, %u packets", pkts);
	FZ_CHECK(cc.avg_delay_ns <= DELAY_CAP, "delay average %u",
		 cc.avg_delay_ns);
}

static void on_ack(struct fz *f)
{
	struct spray_txack_sum sum = {0};
	struct spray_nscc before = cc;
	u32 min_rtt;

	sum.pkts = fz_u16(f);
	sum.bytes = (u32)(fz_u32(f) % ((u64)sum.pkts * 65535 + 1));
	sum.ce_pkts = fz_u16(f) % (sum.pkts + 1);
	sum.ce_bytes = sum.ce_pkts ? fz_u32(f) % ((u64)sum.bytes + 1) : 0;
	sum.rtt_ns = fz_u8(f) & 1 ? fz_u32(f) : fz_u16(f);
	sum.cum_advanced = fz_u8(f) & 1;
	min_rtt = fz_u8(f) & 1 ? fz_u32(f) : fz_u16(f);
	if (sum.rtt_ns && sum.rtt_ns < min_rtt)
		min_rtt = sum.rtt_ns;	/* as txwin: min of the samples */
	if (fz_u8(f) & 1)
		sum.echo_ns = now - min_t(u64, fz_u16(f), now - 1);

	spray_nscc_on_ack(&cc, &cfg, &sum, min_rtt, now);
	if (!sender_on()) {
		FZ_CHECK(!memcmp(&before, &cc, sizeof(cc)),
			 "window off, state changed");
		return;
	}
	if (!sum.ce_pkts)
		FZ_CHECK(cc.cwnd >= min(before.cwnd,
					spray_nscc_max_cwnd(&cc, &cfg)),
			 "clean ACK shrank %u to %u", before.cwnd, cc.cwnd);
	else
		FZ_CHECK(cc.cwnd <= before.cwnd, "CE ACK grew %u to %u",
			 before.cwnd, cc.cwnd);
	if (cc.md != before.md)
		FZ_CHECK(cc.cwnd >= min(before.cwnd,
					spray_nscc_max_cwnd(&cc, &cfg)) / 2 ||
			 cc.cwnd == cfg.min_cwnd, "decrease %u to %u",
			 before.cwnd, cc.cwnd);
}

static void on_loss(struct fz *f)
{
	u8 why = fz_u8(f) % 4 + SPRAY_LOSS_RACK;
	struct spray_nscc before = cc;

	spray_nscc_on_loss(&cc, &cfg, (enum spray_loss_why)why, now);
	if (!sender_on() || why == SPRAY_LOSS_REFUSED) {
		FZ_CHECK(!memcmp(&before, &cc, sizeof(cc)),
			 "window off or refusal, state changed");
		return;
	}
	FZ_CHECK(cc.cwnd <= before.cwnd, "loss grew %u to %u", before.cwnd,
		 cc.cwnd);
	if (why == SPRAY_LOSS_RTO && before.last_md_ns == now)
		FZ_CHECK(cc.cwnd == before.cwnd, "second RTO halving at %llu",
			 (unsigned long long)now);
}

static void check_rcc(void)
{
	u32 i, active = 0;

	for (i = 0; i < NCONN; i++) {
		active += conns[i].active;
		FZ_CHECK(spray_psn_before_eq(conns[i].grant,
					     cum[i] + SPRAY_RXWIN_BITS),
			 "conn %u grant %u beyond cum %u + window", i,
			 conns[i].grant, cum[i]);
	}
	FZ_CHECK(rcc.nactive == active, "nactive %u, active %u", rcc.nactive,
		 active);
}

static void credit(struct fz *f)
{
	u8 op = fz_u8(f);
	u32 i = op % NCONN, prev, free, g, adv;

	switch (op / NCONN % 3) {
	case 0:
		spray_rcc_activate(&rcc, &conns[i]);
		FZ_CHECK(conns[i].active, "not activated");
		break;
	case 1:
		spray_rcc_deactivate(&rcc, &conns[i]);
		FZ_CHECK(!conns[i].active, "not deactivated");
		break;
	default:
		/* the receiver got psns: cum moves within its window */
		adv = fz_u16(f) % (SPRAY_RXWIN_BITS + 1);
		cum[i] += adv;
		free = fz_u8(f) & 1 ? fz_u32(f) : fz_u16(f);
		prev = conns[i].grant;
		g = spray_rcc_grant(&rcc, &conns[i], &cfg, cum[i], free);
		FZ_CHECK(g == conns[i].grant, "returned %u, stored %u", g,
			 conns[i].grant);
		FZ_CHECK(spray_psn_after_eq(g, prev), "grant %u < previous %u", g,
			 prev);
		if (g != prev && receiver_on())
			FZ_CHECK((u64)(g - cum[i]) * cfg.mtu <= free,
				 "granted %u packets of %u, %u bytes free",
				 g - cum[i], cfg.mtu, free);
		break;
	}
}

/* DATA for a connection: the sender's min RTT, the socket's rate */
static void rdata(struct fz *f)
{
	u32 i = fz_u8(f) % NCONN, bytes = fz_u16(f), b, hi;
	u16 rtt = fz_u16(f);

	spray_rcc_on_data(&rcc, &conns[i], bytes, rtt, now);
	if (spray_rtt_decode(rtt))
		FZ_CHECK(conns[i].rtt_ns == spray_rtt_decode(rtt),
			 "rtt %u, field %u", conns[i].rtt_ns, rtt);
	b = spray_rcc_bdp(&rcc, &conns[i], &cfg);
	hi = max(cfg.rcv_bdp_bytes, cfg.bdp_bytes);
	FZ_CHECK(b >= cfg.rcv_bdp_bytes && b <= hi,
		 "receiver BDP %u outside [%u, %u]", b, cfg.rcv_bdp_bytes, hi);
	spray_rcc_set_active(&rcc, &conns[i], fz_u8(f) & 1);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz f = { .p = data, .n = size };
	struct spray_cc_cfg in;
	u32 i, isn, g;
	bool valid;
	u8 op;

	memset(&rcc, 0, sizeof(rcc));
	spray_cc_cfg_default(&cfg);
	op = fz_u8(&f);
	cfg.mode = op % 4;
	if (op & 4) {
		cfg.mode = fz_u8(&f) % 5;
		cfg.mtu = fz_u8(&f) & 1 ? fz_u32(&f) : fz_u16(&f);
		cfg.base_rtt_ns = fz_u32(&f);
		cfg.target_ns = fz_u32(&f);
		cfg.bdp_bytes = fz_u8(&f) & 1 ? fz_u32(&f) : fz_u32(&f) >> 12;
		cfg.min_cwnd = fz_u8(&f) & 1 ? fz_u32(&f) : 0;
		cfg.max_cwnd = fz_u8(&f) & 1 ? fz_u32(&f) : 0;
		cfg.init_cwnd = fz_u8(&f) & 1 ? fz_u32(&f) : 0;
		cfg.unsched_pkts = fz_u32(&f);
		cfg.rcv_bdp_bytes = fz_u32(&f);
	}
	in = cfg;
	valid = cfg.mode <= SPRAY_CC_BOTH && cfg.mtu >= 64 &&
		cfg.mtu <= 65535 && cfg.bdp_bytes &&
		cfg.bdp_bytes <= (1U << 30) &&
		(in.min_cwnd ? in.min_cwnd : cfg.mtu) <=
		(in.max_cwnd ? in.max_cwnd :
		 cfg.bdp_bytes + cfg.bdp_bytes / 2);
	if (spray_cc_cfg_check(&cfg)) {
		FZ_CHECK(!valid, "valid config refused");
		return 0;
	}
	FZ_CHECK(valid, "invalid config accepted");
	FZ_CHECK(cfg.min_cwnd && cfg.min_cwnd <= cfg.init_cwnd &&
		 cfg.init_cwnd <= cfg.max_cwnd && cfg.rcv_bdp_bytes,
		 "derived config %u <= %u <= %u", cfg.min_cwnd, cfg.init_cwnd,
		 cfg.max_cwnd);
	spray_nscc_init(&cc, &cfg);
	FZ_CHECK(cc.cwnd == min(cfg.init_cwnd, spray_nscc_max_cwnd(&cc, &cfg)),
		 "initial window");
	for (i = 0; i < NCONN; i++) {
		isn = fz_u32(&f);
		g = spray_rcc_initial_grant(&cfg, isn);
		FZ_CHECK(g - isn >= 1 && g - isn <= SPRAY_RXWIN_BITS,
			 "initial grant isn + %u", g - isn);
		spray_rcc_conn_init(&conns[i], &cfg, isn);
		FZ_CHECK(conns[i].grant == g && !conns[i].active, "conn init");
		cum[i] = isn;
	}
	now = fz_u32(&f) + 1ULL;	/* ktime: never 0 */
	check_cwnd();

	while (fz_more(&f)) {
		op = fz_u8(&f);
		switch (op % __CC_MAX) {
		case CC_ACK:
			on_ack(&f);
			break;
		case CC_LOSS:
			on_loss(&f);
			break;
		case CC_CREDIT:
			credit(&f);
			break;
		case CC_RDATA:
			rdata(&f);
			break;
		case CC_TIME:
			if (op & 0x80)
				now += fz_u32(&f);
			else
				now += (u64)fz_u16(&f) << (op % 32);
			break;
		}
		check_cwnd();
		check_rcc();
	}
	return 0;
}

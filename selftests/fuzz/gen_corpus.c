// SPDX-License-Identifier: GPL-2.0
/*
 * Seed corpus generator of the AF_SPRAY fuzz harnesses: `make corpus`
 * writes corpus/<harness>/<seed>. Packets are built with the real encoder
 * (spray_pkt_build()), so the packet seeds are valid packets of every type,
 * and the event scripts of the other harnesses follow their formats
 * (opcodes in fuzz.h) with packets, where they carry any, from the encoder.
 */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include "pkt.h"
#include "rxwin.h"
#include "cc.h"
#include "fuzz.h"

static u8 buf[8192];
static size_t len;
static const char *dir;

static void put8(u32 v)
{
	if (len == sizeof(buf))
		abort();
	buf[len++] = (u8)v;
}

/* little-endian, as struct fz reads */
static void put16(u32 v)
{
	put8(v);
	put8(v >> 8);
}

static void put32(u32 v)
{
	put16(v);
	put16(v >> 16);
}

static void put64(u64 v)
{
	put32((u32)v);
	put32((u32)(v >> 32));
}

static void save(const char *harness, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, harness);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", dir, harness, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
	len = 0;
}

/* a packet from the encoder, with @payload bytes after the headers */
static u32 build(u8 *out, u32 size, const struct spray_pkt *p, u32 payload)
{
	int n = spray_pkt_build(out, size, p);
	u32 i;

	if (n < 0 || n + payload > size) {
		fprintf(stderr, "build: %d\n", n);
		exit(1);
	}
	for (i = 0; i < payload; i++)
		out[n + i] = (u8)(i * 7);
	return (u32)n + payload;
}

static void put_pkt(const struct spray_pkt *p, u32 payload)
{
	len += build(buf + len, (u32)(sizeof(buf) - len), p, payload);
}

/* ---- fuzz_pkt: one packet each ---- */

static struct spray_pkt hdr(u8 type, u16 flags)
{
	struct spray_pkt p = {
		.type = type, .flags = flags, .sport = 7000, .dport = 7001,
		.src_cid = 0x1234abcd, .dst_cid = 0x55aa0001, .ev = 49152 + 17,
	};

	return p;
}

static void gen_pkt(void)
{
	struct spray_pkt p;
	u8 r;

	p = hdr(SPRAY_T_DATA, SPRAY_F_SYN | SPRAY_F_ACK_REQ);
	p.psn = 0x1234abcd;
	p.data.msg_id = 1;
	p.data.msg_len = 3000;
	p.data.frag_off = 1024;
	p.data.frag_len = 200;
	p.data.ts_ns = 123456789;
	put_pkt(&p, 200);
	save("fuzz_pkt", "data");

	p = hdr(SPRAY_T_DATA, SPRAY_F_RETX);
	p.psn = 0xffffffff;
	p.data.msg_id = 0xffffffff;
	p.data.msg_len = SPRAY_WIRE_MAX_MSG;
	p.data.frag_off = SPRAY_WIRE_MAX_MSG - 1;
	p.data.frag_len = 1;
	put_pkt(&p, 1);
	save("fuzz_pkt", "data-last-byte");

	/* an answer carrying the ACK of its request */
	p = hdr(SPRAY_T_DATA, SPRAY_F_ACK);
	p.caps = SPRAY_CAP_DATA_ACK;
	p.psn = 0x1234abce;
	p.data.msg_id = 2;
	p.data.msg_len = 64;
	p.data.frag_len = 64;
	p.dack.src_cid = 0x0badcafe;
	p.dack.dst_cid = 0x55aa0002;
	p.dack.ack.cum_psn = 1001;
	p.dack.ack.sack_base = 937;
	p.dack.ack.sack = ~0ULL;
	p.dack.ack.grant_psn = 1100;
	p.dack.ack.echo_psn = 1000;
	put_pkt(&p, 64);
	save("fuzz_pkt", "data-ack");

	p = hdr(SPRAY_T_ACK, 0);
	p.ack.cum_psn = 1000;
	p.ack.sack_base = 990;
	p.ack.sack = 0xf0f0f0f0f0f003ffULL;
	p.ack.ecn = 0x00f0000000000100ULL;
	p.ack.ts_echo = 5000000;
	p.ack.hold_ns = 3000;
	p.ack.grant_psn = 1016;
	p.ack.ev_echo = 50000;
	p.ack.echo_psn = 1030;
	put_pkt(&p, 0);
	save("fuzz_pkt", "ack-sack-ecn");

	p = hdr(SPRAY_T_ACK, SPRAY_F_PROBE);
	p.ack.ts_echo = 77;
	p.ack.ev_echo = 60001;
	p.ack.echo_psn = 3;
	put_pkt(&p, 0);
	save("fuzz_pkt", "ack-probe");

	for (r = SPRAY_NACK_LOSS; r < __SPRAY_NACK_MAX; r++) {
		static const char * const names[] = {
			[SPRAY_NACK_LOSS] = "nack-loss",
			[SPRAY_NACK_WINDOW] = "nack-window",
			[SPRAY_NACK_NO_CONN] = "nack-no-conn",
			[SPRAY_NACK_NO_BUF] = "nack-no-buf",
			[SPRAY_NACK_MSG_SIZE] = "nack-msg-size",
			[SPRAY_NACK_RESUME] = "nack-resume",
		};

		p = hdr(SPRAY_T_NACK, 0);
		p.nack.psn = 500;
		p.nack.count = r == SPRAY_NACK_LOSS ? SPRAY_NACK_MAX_COUNT : 1;
		p.nack.reason = r;
		p.nack.cum_psn = 498;
		p.nack.grant_psn = 600;
		/* a reason added without a name here fails the build */
		BUILD_BUG_ON(ARRAY_SIZE(names) != __SPRAY_NACK_MAX);
		put_pkt(&p, 0);
		save("fuzz_pkt", names[r]);
	}

	p = hdr(SPRAY_T_PROBE, SPRAY_F_SYN | SPRAY_F_ACK_REQ);
	p.probe.ts_ns = 999;
	p.probe.probe_id = 12;
	put_pkt(&p, 0);
	save("fuzz_pkt", "probe");

	p = hdr(SPRAY_T_CLOSE, 0);
	put_pkt(&p, 0);
	save("fuzz_pkt", "close");

	/* refused ones: the fuzzer starts next to each check */
	p = hdr(SPRAY_T_CLOSE, 0);
	put_pkt(&p, 0);
	len--;
	save("fuzz_pkt", "bad-short");
	p = hdr(SPRAY_T_PROBE, SPRAY_F_RETX);
	put_pkt(&p, 0);
	save("fuzz_pkt", "bad-flags");
	p = hdr(SPRAY_T_DATA, 0);
	p.data.msg_len = 100;
	p.data.frag_off = 90;
	p.data.frag_len = 20;
	put_pkt(&p, 20);
	save("fuzz_pkt", "bad-fragment");
	p = hdr(SPRAY_T_NACK, 0);
	p.nack.count = SPRAY_NACK_MAX_COUNT + 1;
	p.nack.reason = SPRAY_NACK_LOSS;
	put_pkt(&p, 0);
	save("fuzz_pkt", "bad-nack-count");
}

/* ---- fuzz_txwin: event scripts ---- */

static void tx_head(u8 ring_log, u32 isn, u16 grant, bool cfg)
{
	put8(ring_log);
	put32(isn);
	put16(grant);
	put8(cfg);
	if (cfg) {
		put32(100000);		/* rto_init_ns */
		put32(50000);		/* rto_min_ns */
		put32(10000000);	/* rto_max_ns */
		put32(5000);		/* reorder_min_ns */
		put8(3);		/* max_retx */
	}
	put32(1000000);			/* now */
}

static void tx_send(u32 n, u16 ev, u16 plen)
{
	put8(TX_SEND);
	put8(n - 1);
	put8(0);		/* no cwnd limit */
	put16(ev);
	put16(plen);
}

static void tx_deliver(u8 slot, u8 what)
{
	put8(TX_DELIVER);
	put8(slot);
	put8(what);
}

static void tx_ack(u16 credit, u8 how)
{
	put8(TX_ACK);
	put16(credit);
	put8(how);
}

static void tx_time(u16 ns, u8 shift)
{
	put8(TX_TIME);
	put16(ns);
	put8(shift);
}

static void gen_txwin(void)
{
	struct spray_pkt p;
	u32 i;

	tx_head(6, 1000, 64, false);
	tx_send(8, 3, 1000);
	for (i = 0; i < 8; i++)
		tx_deliver(0, 1);
	tx_time(20000, 0);
	tx_ack(64, 1);
	tx_send(8, 9, 4096);
	for (i = 0; i < 8; i++)
		tx_deliver(7 - i, 1 | 8);	/* reversed, CE */
	tx_ack(64, 1);
	save("fuzz_txwin", "in-order");

	/* first packet lost: RACK after the reorder window, retransmit */
	tx_head(5, 0xfffffff8, 32, true);	/* psns wrap */
	tx_send(16, 0, 1500);
	tx_deliver(0, 0);
	for (i = 0; i < 15; i++)
		tx_deliver(0, 1);
	tx_time(50000, 2);
	tx_ack(32, 1);
	put8(TX_DETECT);
	put8(TX_RETX);
	put16(5);
	tx_deliver(0, 1);
	tx_ack(32, 1);
	save("fuzz_txwin", "rack-wrap");

	/* hole NACKed by the receiver */
	tx_head(6, 77, 64, false);
	tx_send(16, 1, 800);
	tx_deliver(3, 0);
	for (i = 0; i < 15; i++)
		tx_deliver(0, 1);
	tx_ack(64, 0);
	tx_time(4000, 8);
	put8(TX_NACK);
	put32(100000);
	put16(64);
	put8(TX_RETX);
	put16(2);
	tx_deliver(0, 1);
	tx_ack(64, 1);
	save("fuzz_txwin", "nack");

	/* tail loss: RTO, backoff, retransmit */
	tx_head(2, 5, 4, false);
	tx_send(4, 0, 100);
	for (i = 0; i < 4; i++)
		tx_deliver(0, 0);
	put8(TX_RTO);
	put8(1);
	put8(TX_RETX);
	put16(1);
	put8(TX_RTO);
	put8(1);
	put8(TX_RETX);
	put16(2);
	tx_deliver(0, 1);
	tx_deliver(0, 1);
	tx_ack(4, 1);
	save("fuzz_txwin", "rto");

	/* ACKs delayed, duplicated, reordered; packets duplicated */
	tx_head(4, 4000, 16, false);
	tx_send(8, 0, 500);
	for (i = 0; i < 4; i++)
		tx_deliver(0, 1 | 4);
	tx_ack(16, 3);
	for (i = 0; i < 8; i++)
		tx_deliver(0, 1);
	tx_ack(16, 3);
	put8(TX_DELAYED_ACK);
	put8(1);
	put8(1);
	put8(TX_DELAYED_ACK);
	put8(0);
	put8(0);
	put8(TX_DELAYED_ACK);
	put8(0);
	put8(0);
	save("fuzz_txwin", "delayed-acks");

	/* receiver out of buffer: NO_BUF and WINDOW NACKs */
	tx_head(3, 9, 8, false);
	tx_send(8, 0, 64);
	put8(TX_REFUSE);
	put8(0);
	put8(1);
	put8(TX_REFUSE);
	put8(0);
	put8(0);
	tx_deliver(0, 1);
	tx_ack(8, 1);
	save("fuzz_txwin", "refused");

	/* hostile: forged ACK and NACK near una, raw ACK from the encoder */
	tx_head(4, 100, 16, false);
	tx_send(8, 0, 100);
	put8(TX_FORGED);
	put8(1);		/* ACK */
	put16(3);		/* cum = una + 3 */
	put16(0);		/* sack_base = una */
	put64(0xffULL);
	put64(0x0fULL);
	put8(1);
	put32(1000);
	put32(0);
	put32(16);
	put16(0);
	put16(5);
	put8(TX_FORGED);
	put8(0);		/* NACK */
	put16(4);
	put8(2);
	put8(SPRAY_NACK_LOSS);
	put16(4);
	put32(16);
	p = hdr(SPRAY_T_ACK, 0);
	p.ack.cum_psn = 106;
	p.ack.sack_base = 106;
	p.ack.sack = 0x3;
	p.ack.grant_psn = 130;
	put8(TX_RAW);
	put8(SPRAY_ACK_LEN);
	put_pkt(&p, 0);
	p = hdr(SPRAY_T_NACK, 0);
	p.nack.psn = 108;
	p.nack.count = 1;
	p.nack.reason = SPRAY_NACK_NO_CONN;
	put8(TX_RAW);
	put8(SPRAY_NACK_LEN);
	put_pkt(&p, 0);
	save("fuzz_txwin", "hostile");

	/* a ring of one */
	tx_head(0, 1, 1000, false);
	for (i = 0; i < 4; i++) {
		tx_send(1, (u16)i, 10);
		tx_deliver(0, 1);
		tx_ack(100, 1);
	}
	save("fuzz_txwin", "ring-of-one");
}

/* ---- fuzz_rxwin: event scripts ---- */

static void rx_head(u32 isn, u8 frag, u32 nmsgs, const u16 *lens)
{
	u32 i;

	put32(isn);
	put8(0);		/* default config */
	put8(frag - 1);
	put8(nmsgs - 1);
	for (i = 0; i < nmsgs; i++)
		put16(lens[i] - 1);
	put32(1000000);		/* now */
}

/* arrival of psn cum + d (-16 <= d < 240) */
static void rx_near(int d, u8 flags, bool ce)
{
	put8(RX_ARRIVE);
	put8(ce ? 0x40 : 0);
	put8((u8)(d + 16));
	put8(0);
	put8(flags);
}

static void rx_time(u16 ns, u8 shift)
{
	put8(RX_TIME);
	put16(ns);
	put8(shift);
}

static void gen_rxwin(void)
{
	static const u16 three[] = { 1000, 1, 2500 };
	static const u16 big[] = { 8192, 8192, 8192, 8192, 8192 };
	struct spray_pkt p;
	u32 i;

	rx_head(0x10000, 250, 3, three);
	for (i = 0; i < 15; i++)
		rx_near(0, i ? 0 : SPRAY_F_SYN, i == 7);
	put8(RX_ACK);
	put8(0);
	put8(RX_FLUSH);
	save("fuzz_rxwin", "in-order");

	/* sprayed: reordered, holes, NACKs, then filled */
	rx_head(0xfffffff0, 64, 3, three);	/* psns wrap */
	for (i = 0; i < 30; i++)
		rx_near((int)((i * 7) % 31), 0, i % 5 == 0);
	put8(RX_ACK);
	put8(1);
	rx_time(30000, 0);
	put8(RX_NACK);
	put32(20000);
	put8(4);
	for (i = 0; i < 40; i++)
		rx_near(0, SPRAY_F_RETX, false);
	put8(RX_FLUSH);
	save("fuzz_rxwin", "reordered");

	/* duplicates, before cum and SACKed */
	rx_head(7, 100, 3, three);
	rx_near(0, 0, false);
	rx_near(-1, 0, false);
	rx_near(3, 0, false);
	rx_near(3, SPRAY_F_RETX, true);
	put8(RX_ACK);
	put8(0);
	save("fuzz_rxwin", "duplicates");

	/* window edge, beyond, absurdly far; in the layout, far */
	rx_head(1, 1, 5, big);
	put8(RX_ARRIVE);
	put8(3);
	put8(0);
	put8(0);
	put8(0);
	put32(SPRAY_RXWIN_BITS - 1);
	put8(RX_ARRIVE);
	put8(3);
	put8(0);
	put8(0);
	put8(0);
	put32(SPRAY_RXWIN_BITS);
	put8(RX_ARRIVE);
	put8(3);
	put8(0);
	put8(0);
	put8(0);
	put32(1U << 25);
	put8(RX_ARRIVE);
	put8(2);
	put8(0);
	put8(0);
	put8(0);
	put16(5000);
	put8(RX_NACK);
	put32(0);
	put8(8);
	save("fuzz_rxwin", "window-edges");

	/* trains: runs in order, above a hole, beyond the window */
	rx_head(0xfffffffa, 100, 3, three);
	for (i = 0; i < 4; i++) {
		rx_near(0, i ? 0 : SPRAY_F_SYN, false);
		put8(RX_TRAIN);
		put8(6);		/* 6 followers */
		put8(1 + (i == 2));	/* from high; one beyond it once */
		put8(0);
		put8(i == 1);		/* CE */
	}
	put8(RX_TRAIN);
	put8(0);			/* none */
	put8(0);			/* before high */
	put8(0);
	put8(0);
	put8(RX_ACK);
	put8(1);
	put8(RX_FLUSH);
	save("fuzz_rxwin", "trains");

	/* truncated and corrupted packets */
	rx_head(99, 200, 3, three);
	put8(RX_ARRIVE);
	put8(0x10);
	put8(16);
	put8(10);		/* 10 bytes cut */
	put8(0);
	put8(RX_ARRIVE);
	put8(0x20);
	put8(16);
	put8(0);
	put8(0);
	put16(30);		/* frag_off */
	put8(0x40);
	rx_near(0, 0, false);
	save("fuzz_rxwin", "damaged");

	/* a raw DATA packet from the encoder, of the layout's second psn */
	rx_head(0x4000, 200, 3, three);
	p = hdr(SPRAY_T_DATA, SPRAY_F_SYN);
	p.src_cid = 0x4000;
	p.psn = 0x4001;
	p.data.msg_id = 0;
	p.data.msg_len = 1000;
	p.data.frag_off = 200;
	p.data.frag_len = 200;
	put8(RX_RAW);
	put8(SPRAY_DATA_HDR_LEN + 200);
	put_pkt(&p, 200);
	rx_near(0, 0, false);
	put8(RX_ACK);
	put8(1);
	save("fuzz_rxwin", "raw-data");
}

/* ---- fuzz_path ---- */

static void path_pick(int avoid)
{
	put8(PATH_PICK);
	if (avoid < 0) {
		put8(0x80);
	} else {
		put8(0);
		put16((u16)avoid);
	}
}

static void path_fb(u8 op, u16 idx, u32 ns)
{
	put8(op);
	put16(idx);
	put32(ns);
}

static void gen_path(void)
{
	u32 i;

	put8(0);		/* defaults, n from the next byte */
	put8(31);		/* n = 32 */
	put32(0xdeadbeef);	/* seed */
	put32(1000);		/* now */
	for (i = 0; i < 40; i++)
		path_pick(-1);
	path_fb(PATH_LOSS, 3, 0);
	path_pick(3);
	path_fb(PATH_ACK, 4, 1);	/* CE */
	path_fb(PATH_PENALIZE, 5, 100000);
	for (i = 0; i < 33; i++)
		path_pick(-1);
	put8(PATH_TIME);
	put16(1000);
	put8(10);
	path_pick(-1);
	save("fuzz_path", "spray");

	/* an EV goes DOWN, is probed, comes back */
	put8(2);
	put8(3);		/* n = 4 */
	put8(2);		/* down_thresh */
	put32(200000);		/* avoid_loss_ns */
	put32(50000);		/* avoid_ecn_ns */
	put32(1000000);		/* probe_min_ns */
	put32(4000000);		/* probe_max_ns */
	put32(7);
	put32(1);
	path_fb(PATH_LOSS, 2, 0);
	path_fb(PATH_LOSS, 2, 0);
	for (i = 0; i < 6; i++)
		path_pick(-1);
	put8(PATH_TIME);
	put16(1000);
	put8(10);
	path_pick(-1);
	path_pick(-1);
	put8(PATH_TIME);
	put16(4000);
	put8(10);
	path_pick(-1);
	path_fb(PATH_ACK, 2, 0);
	path_pick(-1);
	save("fuzz_path", "down-probe");

	/* every EV down: fallbacks; retransmissions avoid */
	put8(3);
	put16(4);		/* n */
	put16(1000);
	put16(1003);		/* exactly n ports */
	put8(1);		/* down_thresh */
	put32(1000);
	put32(1000);
	put32(5000);
	put32(5000);
	put32(42);
	put32(1);
	for (i = 0; i < 4; i++)
		path_fb(PATH_LOSS, (u16)i, 0);
	path_fb(PATH_LOSS, 9, 0);	/* out of range */
	path_pick(1);
	path_pick(-1);
	put8(0x80 | PATH_TIME);
	put64(1ULL << 40);
	put8(0);
	path_pick(-1);
	save("fuzz_path", "all-down");
}

/* ---- fuzz_cc ---- */

static void cc_ack(u16 pkts, u32 bytes, u16 ce, u32 ce_bytes, u32 rtt,
		   u32 min_rtt)
{
	put8(CC_ACK);
	put16(pkts);
	put32(bytes);
	put16(ce);
	if (ce % (pkts + 1))
		put32(ce_bytes);
	put8(1);
	put32(rtt);
	put8(1);
	put8(1);
	put32(min_rtt);
	put8(1);
	put16(rtt);		/* sent one RTT ago */
}

static void cc_rdata(u8 conn, u16 bytes, u32 rtt_ns, u8 active)
{
	put8(CC_RDATA);
	put8(conn);
	put16(bytes);
	put16(spray_rtt_encode(rtt_ns));
	put8(active);
}

static void cc_credit(u8 conn, u8 what, u16 adv, u32 free)
{
	put8(CC_CREDIT);
	put8(what * 4 + conn);
	if (what == 2) {
		put16(adv);
		put8(1);
		put32(free);
	}
}

static void gen_cc(void)
{
	u32 i;

	put8(SPRAY_CC_BOTH);	/* default config */
	for (i = 0; i < 4; i++)
		put32(100 * i + 1);
	put32(1000);
	cc_ack(8, 8 * 4096, 0, 0, 25000, 20000);	/* below target */
	cc_ack(8, 8 * 4096, 0, 0, 60000, 20000);	/* above target */
	cc_ack(8, 8 * 4096, 4, 4 * 4096, 90000, 20000);	/* ECN */
	put8(CC_TIME | 0x80);
	put32(100000);
	cc_ack(8, 8 * 4096, 8, 8 * 4096, 90000, 20000);
	put8(CC_LOSS);
	put8(0);
	put8(CC_LOSS);
	put8(2);	/* RTO */
	put8(CC_LOSS);
	put8(2);	/* RTO again, same instant */
	cc_credit(0, 0, 0, 0);
	cc_credit(1, 0, 0, 0);
	cc_credit(0, 2, 10, 1 << 20);
	cc_credit(1, 2, 100, 5000);
	cc_credit(1, 1, 0, 0);
	cc_credit(0, 2, 10, 100);
	save("fuzz_cc", "both");

	/* a custom configuration, receiver credit only */
	put8(4);
	put8(SPRAY_CC_RECEIVER);
	put8(0);
	put16(9000);		/* mtu */
	put32(20000);		/* base_rtt_ns */
	put32(5000);		/* target_ns */
	put8(1);
	put32(1 << 20);		/* bdp_bytes */
	put8(1);
	put32(9000);		/* min_cwnd */
	put8(1);
	put32(4 << 20);		/* max_cwnd */
	put8(0);		/* init_cwnd: derived */
	put32(4);		/* unsched_pkts */
	put32(1 << 19);		/* rcv_bdp_bytes */
	for (i = 0; i < 4; i++)
		put32(0xfffffff0 + i);
	put32(1);
	cc_credit(2, 0, 0, 0);
	cc_credit(2, 2, 4096, 1 << 30);
	cc_ack(100, 100 * 9000, 0, 0, 20000, 20000);
	save("fuzz_cc", "receiver");

	/* the smallest windows, sender only */
	put8(4);
	put8(SPRAY_CC_SENDER);
	put8(0);
	put16(64);
	put32(0);
	put32(0);
	put8(0);
	put32(64 << 12);	/* bdp_bytes >> 12 = 64 */
	put8(1);
	put32(64);
	put8(1);
	put32(64);
	put8(0);
	put32(0);
	put32(0);
	for (i = 0; i < 5; i++)
		put32(i);
	for (i = 0; i < 10; i++) {
		cc_ack(1, 64, i % 2, 64, 1, 1);
		put8(CC_LOSS);
		put8((u8)i);
	}
	save("fuzz_cc", "tiny");

	/* learning a BDP above the floor: 100 Gbit/s, 50 us, both ends */
	put8(SPRAY_CC_BOTH);
	for (i = 0; i < 4; i++)
		put32(7 * i + 3);
	put32(1000);
	for (i = 0; i < 64; i++) {
		cc_ack(16, 16 * 4096, 0, 0, 50000, 50000);
		cc_rdata(i % 2, 65000, 50000, 1);
		cc_credit(i % 2, 2, 16, 1 << 30);
		put8(CC_TIME);
		put16(5000);
	}
	cc_rdata(0, 4096, 0, 0);
	cc_credit(0, 2, 1, 1 << 30);
	save("fuzz_cc", "learn");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	mkdir(dir, 0755);
	gen_pkt();
	gen_txwin();
	gen_rxwin();
	gen_path();
	gen_cc();
	return 0;
}

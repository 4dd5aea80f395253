// SPDX-License-Identifier: GPL-2.0
/*
 * The header work of a train's packets at native speed, on the host: a
 * full parse (spray_pkt_parse()) against a prediction from the packet
 * before (spray_pkt_parse_next()), and a header built whole
 * (spray_pkt_build()) against the train's rewritten per packet
 * (spray_pkt_build_frag()). ns per packet, best of 5 rounds.
 *
 *   cc -O2 -I../../../../kernel/core hdrbench.c ../../../../kernel/core/pkt.c -o hdrbench
 */
#include <stdio.h>
#include <time.h>
#include "pkt.h"

#define N	(1 << 22)
#define TRAIN	16

static u8 pkts[TRAIN][SPRAY_DATA_HDR_LEN + 1452];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static struct spray_pkt train_pkt(u32 i)
{
	struct spray_pkt p = {
		.type = SPRAY_T_DATA, .sport = 7000, .dport = 7001,
		.src_cid = 0x1234567, .dst_cid = 0x7654321, .psn = 1000 + i,
		.ev = 50001, .caps = 3,
		.data = { .msg_id = 9, .msg_len = 65536, .frag_off = i * 1452,
			  .frag_len = 1452, .min_rtt = 300, .ts_ns = 123456789 },
	};
	return p;
}

int main(void)
{
	double t, best[4] = { 1e30, 1e30, 1e30, 1e30 };
	volatile u32 sink = 0;
	struct spray_pkt p, q;
	u32 i, r, k;
	u8 hdr[SPRAY_DATA_HDR_LEN];

	for (i = 0; i < TRAIN; i++) {
		p = train_pkt(i);
		spray_pkt_build(pkts[i], SPRAY_DATA_HDR_LEN, &p);
	}
	for (r = 0; r < 5; r++) {
		t = now();
		for (i = 0; i < N; i++) {
			spray_pkt_parse(pkts[i % TRAIN], sizeof(pkts[0]), &p);
			sink += p.psn;
		}
		t = (now() - t) / N;
		best[0] = t < best[0] ? t : best[0];

		spray_pkt_parse(pkts[0], sizeof(pkts[0]), &q);
		t = now();
		for (i = 0; i < N; i++) {
			k = i % TRAIN;
			if (!k)
				spray_pkt_parse(pkts[0], sizeof(pkts[0]), &q);
			else if (spray_pkt_parse_next(pkts[k], sizeof(pkts[0]),
						      pkts[0], &q))
				return 1;
			sink += q.psn;
		}
		t = (now() - t) / N;
		best[1] = t < best[1] ? t : best[1];

		t = now();
		for (i = 0; i < N; i++) {
			p = train_pkt(i % TRAIN);
			spray_pkt_build(hdr, sizeof(hdr), &p);
			sink += hdr[19];
		}
		t = (now() - t) / N;
		best[2] = t < best[2] ? t : best[2];

		t = now();
		for (i = 0; i < N; i++) {
			k = i % TRAIN;
			p = train_pkt(k);
			if (!k)
				spray_pkt_build(hdr, sizeof(hdr), &p);
			else
				spray_pkt_build_frag(hdr, &p);
			sink += hdr[19];
		}
		t = (now() - t) / N;
		best[3] = t < best[3] ? t : best[3];
	}
	printf("ns per packet, trains of %d (best of 5 rounds of %d packets)\n", TRAIN, N);
	printf("%-34s %6.1f\n", "parse, every packet", best[0]);
	printf("%-34s %6.1f\n", "parse the first, predict the rest", best[1]);
	printf("%-34s %6.1f\n", "build every header", best[2]);
	printf("%-34s %6.1f\n", "build the first, rewrite the rest", best[3]);
	return sink == 42;
}

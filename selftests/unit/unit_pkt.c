// SPDX-License-Identifier: GPL-2.0
#include "pkt.h"
#include "test.h"

static u8 buf[2048];

static int build_data(u32 payload, u32 msg_len, u32 off)
{
	struct spray_pkt p = {
		.type = SPRAY_T_DATA, .flags = SPRAY_F_SYN,
		.sport = 7, .dport = 9, .src_cid = 0xdeadbeef, .dst_cid = 0,
		.psn = 0xfffffffe, .ev = 50000,
		.data = { .msg_id = 3, .msg_len = msg_len, .frag_off = off,
			  .frag_len = payload, .ts_ns = 0x0102030405060708ULL },
	};
	int n = spray_pkt_build(buf, sizeof(buf), &p);

	return n < 0 ? n : n + (int)payload;
}

TEST(spray_pkt_build__data_roundtrip)
{
	struct spray_pkt p;
	int len = build_data(100, 1000, 900);

	EXPECT_EQ(len, SPRAY_DATA_HDR_LEN + 100);
	EXPECT_EQ(buf[0], 1);
	EXPECT_EQ(buf[1], SPRAY_T_DATA);
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), 0);
	EXPECT_EQ(p.type, SPRAY_T_DATA);
	EXPECT_EQ(p.flags, SPRAY_F_SYN);
	EXPECT_EQ(p.sport, 7);
	EXPECT_EQ(p.dport, 9);
	EXPECT_EQ(p.src_cid, 0xdeadbeef);
	EXPECT_EQ(p.psn, 0xfffffffe);
	EXPECT_EQ(p.ev, 50000);
	EXPECT_EQ(p.hdr_len, SPRAY_DATA_HDR_LEN);
	EXPECT_EQ(p.data.msg_id, 3);
	EXPECT_EQ(p.data.msg_len, 1000);
	EXPECT_EQ(p.data.frag_off, 900);
	EXPECT_EQ(p.data.frag_len, 100);
	EXPECT_EQ(p.data.ts_ns, 0x0102030405060708ULL);
	/* big-endian on the wire: psn at offset 16 */
	EXPECT_EQ(buf[16], 0xff);
	EXPECT_EQ(buf[19], 0xfe);
}

TEST(spray_pkt_build__ack_roundtrip)
{
	struct spray_pkt p = {
		.type = SPRAY_T_ACK, .flags = SPRAY_F_PROBE, .sport = 1,
		.dport = 2, .src_cid = 5, .dst_cid = 6,
		.ack = { .cum_psn = 10, .sack_base = 8,
			 .sack = 0x8000000000000003ULL, .ecn = 2,
			 .ts_echo = 123456789, .hold_ns = 777,
			 .grant_psn = 99, .ev_echo = 65000, .echo_psn = 71 },
	};
	struct spray_pkt q;

	EXPECT_EQ(spray_pkt_build(buf, sizeof(buf), &p), SPRAY_ACK_LEN);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_ACK_LEN, &q), 0);
	EXPECT(!memcmp(&p.ack, &q.ack, sizeof(p.ack)));
	EXPECT_EQ(q.flags, SPRAY_F_PROBE);
	EXPECT_EQ(q.dst_cid, 6);
}

TEST(spray_pkt_build__nack_probe_close_roundtrip)
{
	struct spray_pkt p = {
		.type = SPRAY_T_NACK, .sport = 1, .dport = 2, .src_cid = 5,
		.nack = { .psn = 4, .count = 3, .reason = SPRAY_NACK_LOSS,
			  .cum_psn = 2, .grant_psn = 40 },
	};
	struct spray_pkt q;

	EXPECT_EQ(spray_pkt_build(buf, sizeof(buf), &p), SPRAY_NACK_LEN);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_NACK_LEN, &q), 0);
	EXPECT_EQ(q.nack.psn, 4);
	EXPECT_EQ(q.nack.count, 3);
	EXPECT_EQ(q.nack.reason, SPRAY_NACK_LOSS);
	EXPECT_EQ(q.nack.cum_psn, 2);
	EXPECT_EQ(q.nack.grant_psn, 40);

	memset(&p.nack, 0, sizeof(p.nack));
	p.type = SPRAY_T_PROBE;
	p.probe.ts_ns = 42;
	p.probe.probe_id = 43;
	EXPECT_EQ(spray_pkt_build(buf, sizeof(buf), &p), SPRAY_PROBE_LEN);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_PROBE_LEN, &q), 0);
	EXPECT_EQ(q.probe.ts_ns, 42);
	EXPECT_EQ(q.probe.probe_id, 43);

	p.type = SPRAY_T_CLOSE;
	EXPECT_EQ(spray_pkt_build(buf, sizeof(buf), &p), SPRAY_CLOSE_LEN);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_CLOSE_LEN, &q), 0);
	EXPECT_EQ(q.type, SPRAY_T_CLOSE);
}

TEST(spray_pkt_build__data_carrying_ack_roundtrip)
{
	struct spray_pkt p = {
		.type = SPRAY_T_DATA, .flags = SPRAY_F_ACK, .sport = 7,
		.dport = 9, .src_cid = 11, .dst_cid = 12, .psn = 13,
		.ev = 50001, .caps = SPRAY_CAP_DATA_ACK,
		.data = { .msg_id = 1, .msg_len = 64, .frag_len = 64,
			  .ts_ns = 5 },
		.dack = { .src_cid = 21, .dst_cid = 22,
			  .ack = { .cum_psn = 30, .sack_base = 28,
				   .sack = 0x8000000000000001ULL, .ecn = 1,
				   .ts_echo = 987654321, .hold_ns = 4242,
				   .grant_psn = 90, .ev_echo = 50002,
				   .echo_psn = 29 } },
	};
	struct spray_pkt q;
	int n;

	n = spray_pkt_build(buf, sizeof(buf), &p);
	EXPECT_EQ(n, SPRAY_MAX_HDR_LEN);
	EXPECT_EQ(spray_pkt_hlen(SPRAY_T_DATA, SPRAY_F_ACK), SPRAY_MAX_HDR_LEN);
	EXPECT_EQ(spray_pkt_hlen(SPRAY_T_ACK, SPRAY_F_ACK), SPRAY_ACK_LEN);
	memset(buf + n, 0xab, 64);
	EXPECT_EQ(spray_pkt_parse(buf, n + 64, &q), 0);
	EXPECT_EQ(q.hdr_len, SPRAY_MAX_HDR_LEN);
	EXPECT_EQ(q.flags, SPRAY_F_ACK);
	EXPECT_EQ(q.caps, SPRAY_CAP_DATA_ACK);
	EXPECT_EQ(q.src_cid, 11);
	EXPECT_EQ(q.dst_cid, 12);
	EXPECT_EQ(q.data.frag_len, 64);
	EXPECT_EQ(q.dack.src_cid, 21);
	EXPECT_EQ(q.dack.dst_cid, 22);
	EXPECT(!memcmp(&p.dack.ack, &q.dack.ack, sizeof(p.dack.ack)));
	/* caps on the wire at offset 22, big-endian */
	EXPECT_EQ(buf[22], 0);
	EXPECT_EQ(buf[23], SPRAY_CAP_DATA_ACK);

	/* cut inside the carried ACK: short, not a payload length error */
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_DATA_HDR_LEN + 10, &q),
		  -SPRAY_DROP_SHORT);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_MAX_HDR_LEN - 1, &q),
		  -SPRAY_DROP_SHORT);
	/* headers only: no payload is a length error, as for any DATA */
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_MAX_HDR_LEN, &q), -SPRAY_DROP_LEN);
	/* a carried ACK from cid 0, as an ACK packet from it, is refused */
	p.dack.src_cid = 0;
	EXPECT_EQ(spray_pkt_build(buf, sizeof(buf), &p), SPRAY_MAX_HDR_LEN);
	EXPECT_EQ(spray_pkt_parse(buf, n + 64, &q), -SPRAY_DROP_CID);
	/* the flag on any other type is invalid */
	p.type = SPRAY_T_PROBE;
	p.dack.src_cid = 21;
	EXPECT_EQ(spray_pkt_build(buf, sizeof(buf), &p), SPRAY_PROBE_LEN);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_PROBE_LEN, &q), -SPRAY_DROP_FLAGS);
}

TEST(spray_pkt_build__buffer_too_small)
{
	struct spray_pkt p = { .type = SPRAY_T_ACK };

	EXPECT_EQ(spray_pkt_build(buf, SPRAY_ACK_LEN - 1, &p), -ENOSPC);
	p.type = 99;
	EXPECT_EQ(spray_pkt_build(buf, sizeof(buf), &p), -EINVAL);
}

TEST(spray_pkt_parse__truncated)
{
	struct spray_pkt p;
	int len = build_data(10, 10, 0), i;

	for (i = 0; i < SPRAY_DATA_HDR_LEN; i++)
		EXPECT_EQ(spray_pkt_parse(buf, i, &p), -SPRAY_DROP_SHORT);
	/* header complete but payload cut: frag_len mismatch */
	EXPECT_EQ(spray_pkt_parse(buf, len - 1, &p), -SPRAY_DROP_LEN);
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), 0);
}

TEST(spray_pkt_parse__unknown_version)
{
	struct spray_pkt p;
	int len = build_data(10, 10, 0);

	buf[0] = 2;
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_VERSION);
	buf[0] = 0;
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_VERSION);
}

TEST(spray_pkt_parse__unknown_type)
{
	struct spray_pkt p;
	int len = build_data(10, 10, 0);

	buf[1] = 0;
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_TYPE);
	buf[1] = __SPRAY_T_MAX;
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_TYPE);
}

TEST(spray_pkt_parse__flags_invalid_for_type)
{
	struct spray_pkt p;
	int len = build_data(10, 10, 0);

	buf[3] |= SPRAY_F_PROBE;	/* ACK-only flag on DATA */
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_FLAGS);
	build_data(10, 10, 0);
	buf[2] = 0x80;			/* undefined bit */
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_FLAGS);
}

TEST(spray_pkt_parse__zero_port_or_cid)
{
	struct spray_pkt p;
	int len = build_data(10, 10, 0);

	buf[4] = buf[5] = 0;
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_PORT);
	build_data(10, 10, 0);
	memset(buf + 8, 0, 4);
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_CID);
}

TEST(spray_pkt_parse__absurd_lengths)
{
	struct spray_pkt p;
	int len;

	len = build_data(10, SPRAY_WIRE_MAX_MSG + 1, 0);
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_LEN);
	len = build_data(10, 0, 0);
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_LEN);
	len = build_data(10, 100, 91);		/* 91 + 10 > 100 */
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_LEN);
	len = build_data(10, 100, 0xfffffff8);	/* would wrap */
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_LEN);
	len = build_data(0, 100, 0);		/* empty fragment */
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), -SPRAY_DROP_LEN);
	len = build_data(10, SPRAY_WIRE_MAX_MSG, SPRAY_WIRE_MAX_MSG - 10);
	EXPECT_EQ(spray_pkt_parse(buf, len, &p), 0);
	/* control packet with trailing bytes */
	memset(&p, 0, sizeof(p));
	p.type = SPRAY_T_CLOSE;
	p.sport = p.dport = 1;
	p.src_cid = 1;
	EXPECT_EQ(spray_pkt_build(buf, sizeof(buf), &p), SPRAY_CLOSE_LEN);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_CLOSE_LEN + 1, &p),
		  -SPRAY_DROP_LEN);
}

TEST(spray_pkt_parse__nack_fields)
{
	struct spray_pkt p = {
		.type = SPRAY_T_NACK, .sport = 1, .dport = 2, .src_cid = 5,
		.nack = { .psn = 4, .count = SPRAY_NACK_MAX_COUNT + 1,
			  .reason = SPRAY_NACK_LOSS },
	};
	struct spray_pkt q;

	spray_pkt_build(buf, sizeof(buf), &p);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_NACK_LEN, &q), -SPRAY_DROP_FIELD);
	p.nack.count = 1;
	p.nack.reason = __SPRAY_NACK_MAX;
	spray_pkt_build(buf, sizeof(buf), &p);
	EXPECT_EQ(spray_pkt_parse(buf, SPRAY_NACK_LEN, &q), -SPRAY_DROP_FIELD);
}

TEST(spray_pkt_parse__garbage_never_crashes)
{
	u32 rng = 12345, i, j, len;
	struct spray_pkt p;
	int r, ok = 0;

	for (i = 0; i < 20000; i++) {
		len = spray_prng_below(&rng, 200);
		for (j = 0; j < len; j++)
			buf[j] = (u8)spray_prng_next(&rng);
		if (i & 1) {		/* plausible header, random rest */
			buf[0] = 1;
			buf[1] = (u8)(1 + spray_prng_below(&rng, 5));
		}
		r = spray_pkt_parse(buf, len, &p);
		EXPECT(r <= 0 && r > -__SPRAY_DROP_MAX);
		if (!r) {
			ok++;
			EXPECT(p.hdr_len <= len);
		}
	}
	EXPECT(ok < 20000);
}

TEST(spray_drop_reason_name__all_named)
{
	int i;

	for (i = 0; i < __SPRAY_DROP_MAX; i++)
		EXPECT(spray_drop_reason_name(i) != NULL);
	EXPECT(!strcmp(spray_drop_reason_name(__SPRAY_DROP_MAX), "unknown"));
	EXPECT(!strcmp(spray_drop_reason_name(SPRAY_DROP_SHORT), "short"));
}

/* packet @i of a train as spray_queue_train() builds them, into @b */
static int build_train_pkt(u8 *b, u32 i, u32 frag, u32 msg_len)
{
	struct spray_pkt p = {
		.type = SPRAY_T_DATA, .sport = 7, .dport = 9,
		.src_cid = 0xdeadbeef, .dst_cid = 11, .psn = 0xfffffffe + i,
		.ev = 50000, .caps = 0x3,
		.data = { .msg_id = 3, .msg_len = msg_len, .frag_off = i * frag,
			  .min_rtt = 77, .ts_ns = 0x0102030405060708ULL },
	};
	int n;

	p.data.frag_len = msg_len - p.data.frag_off < frag ?
			  msg_len - p.data.frag_off : frag;
	n = spray_pkt_build(b, 256, &p);
	return n < 0 ? n : n + (int)p.data.frag_len;
}

TEST(spray_pkt_parse_next__a_train_as_parse_sees_it)
{
	static u8 prev[256], cur[256];
	struct spray_pkt p, full;
	int len, i;

	/* 3 packets of 100 bytes and a short last one of 50 */
	len = build_train_pkt(prev, 0, 100, 350);
	EXPECT_EQ(spray_pkt_parse(prev, len, &p), 0);
	for (i = 1; i < 4; i++) {
		len = build_train_pkt(cur, i, 100, 350);
		EXPECT_EQ(spray_pkt_parse_next(cur, len, prev, &p), 0);
		EXPECT_EQ(spray_pkt_parse(cur, len, &full), 0);
		EXPECT(!memcmp(&p, &full, sizeof(p)));
	}
	EXPECT_EQ(p.psn, 0xfffffffe + 3);
	EXPECT_EQ(p.data.frag_off, 300);
	EXPECT_EQ(p.data.frag_len, 50);
}

TEST(spray_pkt_parse_next__anything_else_is_parsed_in_full)
{
	static u8 prev[256], cur[256];
	struct spray_pkt p, q;
	int len, plen, j;

	plen = build_train_pkt(prev, 0, 100, 350);
	EXPECT_EQ(spray_pkt_parse(prev, plen, &p), 0);
	len = build_train_pkt(cur, 1, 100, 350);
	/* any byte of the header but psn, frag_off, frag_len */
	for (j = 0; j < SPRAY_DATA_HDR_LEN; j++) {
		if ((j >= 16 && j < 20) || (j >= 32 && j < 38))
			continue;
		cur[j] ^= 0x40;
		q = p;
		EXPECT_EQ(spray_pkt_parse_next(cur, len, prev, &q), -EAGAIN);
		EXPECT(!memcmp(&p, &q, sizeof(p)));
		cur[j] ^= 0x40;
	}
	q = p;
	/* a payload that is not frag_len long, or none */
	EXPECT_EQ(spray_pkt_parse_next(cur, len - 1, prev, &q), -EAGAIN);
	EXPECT_EQ(spray_pkt_parse_next(cur, SPRAY_DATA_HDR_LEN, prev, &q),
		  -EAGAIN);
	/* a fragment beyond the message */
	len = build_train_pkt(cur, 1, 100, 350);
	cur[32 + 3] = 255;	/* frag_off 355 */
	EXPECT_EQ(spray_pkt_parse_next(cur, len, prev, &q), -EAGAIN);
	cur[32] = 0xff;		/* frag_off far beyond 8 MiB: no wrap */
	EXPECT_EQ(spray_pkt_parse_next(cur, len, prev, &q), -EAGAIN);
	EXPECT(!memcmp(&p, &q, sizeof(p)));
	/* after a packet that carries an ACK, or is not DATA: never */
	len = build_train_pkt(cur, 1, 100, 350);
	q.flags |= SPRAY_F_ACK;
	EXPECT_EQ(spray_pkt_parse_next(cur, len, prev, &q), -EAGAIN);
	q = p;
	q.type = SPRAY_T_ACK;
	EXPECT_EQ(spray_pkt_parse_next(cur, len, prev, &q), -EAGAIN);
}

/*
 * A train's first packet's header made each next one's: by
 * spray_pkt_build_frag() on to the next message (round 0), by
 * spray_pkt_build_next() within the message, a short last one among them
 * (round 1); each as spray_pkt_build() makes it, at any alignment.
 */
TEST(spray_pkt_build_frag_next__the_train_header_made_each_packets)
{
	static u8 tmpl[256], want[256], odd[256];
	int len, i, round;
	struct spray_pkt p;

	build_train_pkt(tmpl, 0, 100, 350);
	for (round = 0; round < 2; round++) {
		for (i = 1; i < 4; i++) {
			len = build_train_pkt(want, i, 100, 350);
			EXPECT_EQ(spray_pkt_parse(want, len, &p), 0);
			if (round) {
				p.data.frag_len = 7 * i;
			} else {
				p.data.msg_id += i;
				p.data.msg_len += i;
			}
			EXPECT_EQ(spray_pkt_build(want, sizeof(want), &p),
				  SPRAY_DATA_HDR_LEN);
			memcpy(odd + 1, tmpl, SPRAY_DATA_HDR_LEN);
			if (round)
				spray_pkt_build_next(odd + 1, p.psn,
						     p.data.frag_off,
						     (u16)p.data.frag_len);
			else
				spray_pkt_build_frag(odd + 1, &p);
			EXPECT(!memcmp(odd + 1, want, SPRAY_DATA_HDR_LEN));
		}
	}
}

/*
 * The receiver's check of a train's next packet (spray_rcv_run()): the
 * header its predecessor's predicts (spray_pkt_build_next() with the next
 * psn and fragment) is the packet's, at any alignment, and no byte of the
 * packet's header may differ from it, the psn and fragment included.
 */
TEST(spray_pkt_data_hdr_eq__a_train_packet_as_predicted_and_no_other)
{
	static u8 prev[256], cur[256], exp[64], odd[64];
	u32 i, b;
	int len;

	build_train_pkt(prev, 0, 100, 350);
	for (i = 1; i < 4; i++) {
		len = build_train_pkt(cur, i, 100, 350);
		EXPECT(len > SPRAY_DATA_HDR_LEN);
		memcpy(exp + 8, prev, SPRAY_DATA_HDR_LEN);
		spray_pkt_build_next(exp + 8, 0xfffffffe + i, i * 100,
				     i < 3 ? 100 : 50);
		memcpy(odd + 3, cur, SPRAY_DATA_HDR_LEN);
		EXPECT(spray_pkt_data_hdr_eq(odd + 3, exp + 8));
		/* the previous packet's header is not the next one's */
		EXPECT(!spray_pkt_data_hdr_eq(prev, exp + 8));
		for (b = 0; b < SPRAY_DATA_HDR_LEN; b++) {
			odd[3 + b] ^= 0x40;
			EXPECT(!spray_pkt_data_hdr_eq(odd + 3, exp + 8));
			odd[3 + b] ^= 0x40;
		}
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_pkt: spray_pkt_parse() on arbitrary bytes, every packet type.
 *
 * The input is one UDP payload. It is parsed from a buffer that ends exactly
 * where the input ends (ASan catches any read past it) and starts at an odd
 * address (UBSan catches any misaligned load). Checks:
 * - a drop returns one of the parser's reasons and names it;
 * - an accepted packet satisfies everything spray_pkt_parse() promises:
 *   known type, only the flags of the type, non-zero ports and src_cid,
 *   hdr_len the type's (a DATA's with its carried ACK if SPRAY_F_ACK, whose
 *   src_cid is non-zero), control packets exactly that long; DATA with
 *   1 <= msg_len <= 8 MiB, frag_len the payload length, fragment inside
 *   the message; NACK count 1..SPRAY_NACK_MAX_COUNT and a known reason;
 * - spray_pkt_build() of the parsed packet gives back the input bytes
 *   (but the reserved fields, zero on send and ignored on receive; caps
 *   are kept) and
 *   parses to the same fields;
 * - of an accepted DATA without a carried ACK, a next packet made from
 *   it (psn, frag_off, frag_len and the length from its payload's first
 *   bytes, one header byte perhaps flipped): spray_pkt_parse_next()
 *   accepts it only if spray_pkt_parse() does, with the same fields, and
 *   does whenever it differs only in those three; refused, it leaves the
 *   predecessor's fields as they were.
 */
#include "pkt.h"
#include "fuzz.h"

/* byte offsets of the reserved fields of each type, from wire.h */
static void zero_reserved(u8 *b, u8 type, u16 flags)
{
	switch (type) {
	case SPRAY_T_DATA:
		/* struct spray_ack_hdr's reserved, in the carried ACK */
		if (flags & SPRAY_F_ACK) {
			b[SPRAY_DATA_HDR_LEN + 8 + 42] = 0;
			b[SPRAY_DATA_HDR_LEN + 8 + 43] = 0;
		}
		break;
	case SPRAY_T_ACK:
		b[SPRAY_HDR_LEN + 42] = 0;
		b[SPRAY_HDR_LEN + 43] = 0;
		break;
	case SPRAY_T_NACK:
		b[SPRAY_HDR_LEN + 7] = 0;
		break;
	case SPRAY_T_PROBE:
		memset(b + SPRAY_HDR_LEN + 12, 0, 4);
		break;
	}
}

static void same_pkt(const struct spray_pkt *a, const struct spray_pkt *b)
{
	FZ_CHECK(a->type == b->type && a->flags == b->flags &&
		 a->sport == b->sport && a->dport == b->dport &&
		 a->src_cid == b->src_cid && a->dst_cid == b->dst_cid &&
		 a->psn == b->psn && a->ev == b->ev && a->caps == b->caps &&
		 a->hdr_len == b->hdr_len, "common header differs");
	FZ_CHECK(!memcmp(&a->dack, &b->dack, sizeof(a->dack)),
		 "carried ACK differs");
	switch (a->type) {
	case SPRAY_T_DATA:
		FZ_CHECK(a->data.msg_id == b->data.msg_id &&
			 a->data.msg_len == b->data.msg_len &&
			 a->data.frag_off == b->data.frag_off &&
			 a->data.frag_len == b->data.frag_len &&
			 a->data.min_rtt == b->data.min_rtt &&
			 a->data.ts_ns == b->data.ts_ns, "DATA differs");
		break;
	case SPRAY_T_ACK:
		FZ_CHECK(a->ack.cum_psn == b->ack.cum_psn &&
			 a->ack.sack_base == b->ack.sack_base &&
			 a->ack.sack == b->ack.sack &&
			 a->ack.ecn == b->ack.ecn &&
			 a->ack.ts_echo == b->ack.ts_echo &&
			 a->ack.hold_ns == b->ack.hold_ns &&
			 a->ack.grant_psn == b->ack.grant_psn &&
			 a->ack.ev_echo == b->ack.ev_echo &&
			 a->ack.echo_psn == b->ack.echo_psn, "ACK differs");
		break;
	case SPRAY_T_NACK:
		FZ_CHECK(a->nack.psn == b->nack.psn &&
			 a->nack.count == b->nack.count &&
			 a->nack.reason == b->nack.reason &&
			 a->nack.cum_psn == b->nack.cum_psn &&
			 a->nack.grant_psn == b->nack.grant_psn,
			 "NACK differs");
		break;
	case SPRAY_T_PROBE:
		FZ_CHECK(a->probe.ts_ns == b->probe.ts_ns &&
			 a->probe.probe_id == b->probe.probe_id,
			 "PROBE differs");
		break;
	}
}

static u16 type_flags(u8 type)
{
	switch (type) {
	case SPRAY_T_DATA:
		return SPRAY_F_DATA_MASK;
	case SPRAY_T_ACK:
		return SPRAY_F_ACK_MASK;
	case SPRAY_T_NACK:
		return SPRAY_F_NACK_MASK;
	case SPRAY_T_PROBE:
		return SPRAY_F_PROBE_MASK;
	}
	return SPRAY_F_CLOSE_MASK;
}

static void check_accepted(const u8 *in, u32 len, const struct spray_pkt *p)
{
	struct spray_pkt again;
	u8 *out, *want;
	int n;

	FZ_CHECK(p->type >= SPRAY_T_DATA && p->type < __SPRAY_T_MAX,
		 "type %u", p->type);
	FZ_CHECK(!(p->flags & ~type_flags(p->type)), "flags %#x type %u",
		 p->flags, p->type);
	FZ_CHECK(p->sport && p->dport && p->src_cid, "zero port or cid");
	FZ_CHECK(p->hdr_len == spray_pkt_hlen(p->type, p->flags) &&
		 p->hdr_len && p->hdr_len <= len, "hdr_len %u len %u",
		 p->hdr_len, len);
	FZ_CHECK(!(p->flags & SPRAY_F_ACK) ||
		 (p->type == SPRAY_T_DATA && p->dack.src_cid &&
		  p->hdr_len == SPRAY_MAX_HDR_LEN),
		 "carried ACK: type %u src_cid %u hdr_len %u", p->type,
		 p->dack.src_cid, p->hdr_len);
	if (p->type == SPRAY_T_DATA) {
		FZ_CHECK(p->data.msg_len >= 1 &&
			 p->data.msg_len <= SPRAY_WIRE_MAX_MSG,
			 "msg_len %u", p->data.msg_len);
		FZ_CHECK(p->data.frag_len && p->data.frag_len == len - p->hdr_len,
			 "frag_len %u payload %u", p->data.frag_len,
			 len - p->hdr_len);
		FZ_CHECK((u64)p->data.frag_off + p->data.frag_len <=
			 p->data.msg_len, "fragment %u+%u beyond %u",
			 p->data.frag_off, p->data.frag_len, p->data.msg_len);
	} else {
		FZ_CHECK(len == p->hdr_len, "control packet of %u bytes", len);
	}
	if (p->type == SPRAY_T_NACK) {
		FZ_CHECK(p->nack.count >= 1 &&
			 p->nack.count <= SPRAY_NACK_MAX_COUNT,
			 "NACK count %u", p->nack.count);
		FZ_CHECK(p->nack.reason >= SPRAY_NACK_LOSS &&
			 p->nack.reason < __SPRAY_NACK_MAX,
			 "NACK reason %u", p->nack.reason);
	}

	/* round trip: build gives the input back, reserved fields zeroed */
	out = malloc(p->hdr_len);
	want = malloc(p->hdr_len);
	FZ_CHECK(out && want, "malloc");
	FZ_CHECK(spray_pkt_build(out, p->hdr_len - 1, p) == -ENOSPC,
		 "build into a short buffer");
	n = spray_pkt_build(out, p->hdr_len, p);
	FZ_CHECK(n == (int)p->hdr_len, "build returned %d", n);
	memcpy(want, in, p->hdr_len);
	zero_reserved(want, p->type, p->flags);
	FZ_CHECK(!memcmp(out, want, p->hdr_len), "rebuilt headers differ");
	free(want);
	free(out);

	/* and the rebuilt packet parses the same (payload from the input) */
	out = malloc(len);
	FZ_CHECK(out, "malloc");
	memcpy(out, in, len);
	zero_reserved(out, p->type, p->flags);
	FZ_CHECK(spray_pkt_parse(out, len, &again) == 0, "rebuilt refused");
	same_pkt(p, &again);
	free(out);
}

/* the payload's bytes from @i, 0 past its end */
static u32 pl_bytes(const u8 *pl, u32 n, u32 i, u32 k)
{
	u32 v = 0;

	while (k--)
		v = v << 8 | (i < n ? pl[i++] : 0);
	return v;
}

static void check_next(const u8 *in, u32 len, const struct spray_pkt *p)
{
	const u8 *pl = in + SPRAY_DATA_HDR_LEN;
	u32 n = len - SPRAY_DATA_HDR_LEN, clen, flip;
	struct spray_pkt q = *p, full;
	bool same = true;
	u8 *cur;
	int r1, r2;

	clen = SPRAY_DATA_HDR_LEN + pl_bytes(pl, n, 10, 2) % (n + 2);
	cur = malloc(clen + 1);
	FZ_CHECK(cur, "malloc");
	cur++;	/* an odd address */
	memset(cur, 0xa5, clen);
	memcpy(cur, in, SPRAY_DATA_HDR_LEN);
	memcpy(cur + 16, pl, n < 4 ? n : 4);		/* psn */
	if (n > 4)
		memcpy(cur + 32, pl + 4, n < 10 ? n - 4 : 6); /* frag */
	if (pl_bytes(pl, n, 12, 1) & 1) {
		/* a consistent frag_len */
		cur[36] = (u8)((clen - SPRAY_DATA_HDR_LEN) >> 8);
		cur[37] = (u8)(clen - SPRAY_DATA_HDR_LEN);
	}
	if (pl_bytes(pl, n, 12, 1) & 2) {
		flip = pl_bytes(pl, n, 13, 1) % SPRAY_DATA_HDR_LEN;
		cur[flip] ^= (u8)(pl_bytes(pl, n, 14, 1) | 1);
		same = (flip >= 16 && flip < 20) || (flip >= 32 && flip < 38);
	}
	r1 = spray_pkt_parse(cur, clen, &full);
	r2 = spray_pkt_parse_next(cur, clen, in, &q);
	FZ_CHECK(r2 == 0 || r2 == -EAGAIN, "parse_next returned %d", r2);
	if (!r2) {
		FZ_CHECK(!r1, "parse_next took what parse refuses (%d)", r1);
		same_pkt(&q, &full);
	} else {
		FZ_CHECK(!memcmp(&q, p, sizeof(q)), "refused, yet changed");
		FZ_CHECK(r1 || !same, "parse_next refused a train's packet");
	}
	free(cur - 1);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct spray_pkt p;
	u32 len = size > 0x100000 ? 0x100000 : (u32)size;
	const char *name;
	u8 *raw, *buf;
	int ret;

	/* an odd address, and the last byte at the end of the allocation */
	raw = malloc(len + 1);
	FZ_CHECK(raw, "malloc");
	buf = raw + 1;
	memcpy(buf, data, len);

	ret = spray_pkt_parse(buf, len, &p);
	FZ_CHECK(ret <= 0, "parse returned %d", ret);
	if (ret) {
		FZ_CHECK(-ret >= SPRAY_DROP_SHORT && -ret <= SPRAY_DROP_FIELD,
			 "drop reason %d", -ret);
		name = spray_drop_reason_name((enum spray_drop_reason)-ret);
		FZ_CHECK(name && strcmp(name, "unknown") && strcmp(name, "none"),
			 "reason %d has no name", -ret);
	} else {
		check_accepted(buf, len, &p);
		if (p.type == SPRAY_T_DATA && !(p.flags & SPRAY_F_ACK))
			check_next(buf, len, &p);
	}

	/* names of arbitrary reasons and lengths of arbitrary types */
	if (len) {
		name = spray_drop_reason_name((enum spray_drop_reason)buf[0]);
		FZ_CHECK(name, "NULL name");
		ret = (int)spray_pkt_hdr_len(buf[0]);
		FZ_CHECK(ret == 0 || ret >= SPRAY_HDR_LEN, "hdr_len %d", ret);
	}
	free(raw);
	return 0;
}

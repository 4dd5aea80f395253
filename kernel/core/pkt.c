// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY packet parsing, validation and header building.
 *
 * Parsing copies the headers out with memcpy: a UDP payload in an skb is
 * only 4-byte aligned in general, and the 64-bit fields must not be loaded
 * in place.
 */
#include "pkt.h"

static const char * const spray_drop_names[__SPRAY_DROP_MAX] = {
	[SPRAY_DROP_NONE]	= "none",
	[SPRAY_DROP_SHORT]	= "short",
	[SPRAY_DROP_VERSION]	= "version",
	[SPRAY_DROP_TYPE]	= "type",
	[SPRAY_DROP_FLAGS]	= "flags",
	[SPRAY_DROP_PORT]	= "port",
	[SPRAY_DROP_CID]	= "cid",
	[SPRAY_DROP_LEN]	= "len",
	[SPRAY_DROP_FIELD]	= "field",
	[SPRAY_DROP_DUP]	= "dup",
	[SPRAY_DROP_WINDOW]	= "window",
	[SPRAY_DROP_STALE]	= "stale",
	[SPRAY_DROP_ADDR]	= "addr",
	[SPRAY_DROP_LIMIT]	= "limit",
	[SPRAY_DROP_FRAG]	= "frag",
	[SPRAY_DROP_MSG_SIZE]	= "msg-size",
	[SPRAY_DROP_CLOSED]	= "closed",
	[SPRAY_DROP_RATELIMIT]	= "nack-ratelimit",
};

/**
 * spray_drop_reason_name() - short name of a drop reason, for stats dumps
 * @reason: enum spray_drop_reason
 *
 * Return: a static string, "unknown" for out-of-range values.
 */
const char *spray_drop_reason_name(enum spray_drop_reason reason)
{
	if ((unsigned int)reason >= __SPRAY_DROP_MAX)
		return "unknown";
	return spray_drop_names[reason];
}

/**
 * spray_pkt_hdr_len() - bytes of headers of a packet type
 * @type: enum spray_type
 *
 * Return: the header length, 0 for an unknown type.
 */
u32 spray_pkt_hdr_len(u8 type)
{
	switch (type) {
	case SPRAY_T_DATA:
		return SPRAY_DATA_HDR_LEN;
	case SPRAY_T_ACK:
		return SPRAY_ACK_LEN;
	case SPRAY_T_NACK:
		return SPRAY_NACK_LEN;
	case SPRAY_T_PROBE:
		return SPRAY_PROBE_LEN;
	case SPRAY_T_CLOSE:
		return SPRAY_CLOSE_LEN;
	}
	return 0;
}

/**
 * spray_pkt_hlen() - bytes of headers of a packet of a type with flags
 * @type: enum spray_type
 * @flags: SPRAY_F_* bits (DATA with SPRAY_F_ACK carries an ACK header)
 *
 * Return: the header length, 0 for an unknown type.
 */
u32 spray_pkt_hlen(u8 type, u16 flags)
{
	u32 len = spray_pkt_hdr_len(type);

	if (type == SPRAY_T_DATA && (flags & SPRAY_F_ACK))
		len += SPRAY_DATA_ACK_LEN;
	return len;
}

static u16 spray_flags_mask(u8 type)
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

static int spray_parse_data(const u8 *buf, u32 len, struct spray_pkt *out)
{
	struct spray_data_hdr d;
	u32 payload;

	memcpy(&d, buf + SPRAY_HDR_LEN, sizeof(d));
	out->data.msg_id = be32_to_cpu(d.msg_id);
	out->data.msg_len = be32_to_cpu(d.msg_len);
	out->data.frag_off = be32_to_cpu(d.frag_off);
	out->data.frag_len = be16_to_cpu(d.frag_len);
	out->data.min_rtt = be16_to_cpu(d.min_rtt);
	out->data.ts_ns = be64_to_cpu(d.ts_ns);

	payload = len - out->hdr_len;
	if (!out->data.msg_len || out->data.msg_len > SPRAY_WIRE_MAX_MSG)
		return -SPRAY_DROP_LEN;
	if (!out->data.frag_len || out->data.frag_len != payload)
		return -SPRAY_DROP_LEN;
	/* both <= 8 MiB + 64 KiB: no overflow in u32 */
	if (out->data.frag_off > SPRAY_WIRE_MAX_MSG ||
	    out->data.frag_off + out->data.frag_len > out->data.msg_len)
		return -SPRAY_DROP_LEN;
	return 0;
}

static void spray_parse_ack(const u8 *buf, struct spray_ack *out)
{
	struct spray_ack_hdr a;

	memcpy(&a, buf, sizeof(a));
	out->cum_psn = be32_to_cpu(a.cum_psn);
	out->sack_base = be32_to_cpu(a.sack_base);
	out->sack = be64_to_cpu(a.sack);
	out->ecn = be64_to_cpu(a.ecn);
	out->ts_echo = be64_to_cpu(a.ts_echo);
	out->hold_ns = be32_to_cpu(a.hold_ns);
	out->grant_psn = be32_to_cpu(a.grant_psn);
	out->ev_echo = be16_to_cpu(a.ev_echo);
	out->echo_psn = be32_to_cpu(a.echo_psn);
}

/* the ACK a DATA packet carries (SPRAY_F_ACK) */
static int spray_parse_dack(const u8 *buf, struct spray_pkt *out)
{
	__be32 cids[2];

	memcpy(cids, buf + SPRAY_DATA_HDR_LEN, sizeof(cids));
	out->dack.src_cid = be32_to_cpu(cids[0]);
	out->dack.dst_cid = be32_to_cpu(cids[1]);
	/* an ACK packet's src_cid may not be 0: nor may this one */
	if (!out->dack.src_cid)
		return -SPRAY_DROP_CID;
	spray_parse_ack(buf + SPRAY_DATA_HDR_LEN + sizeof(cids),
			&out->dack.ack);
	return 0;
}

static int spray_parse_nack(const u8 *buf, struct spray_pkt *out)
{
	struct spray_nack_hdr n;

	memcpy(&n, buf + SPRAY_HDR_LEN, sizeof(n));
	out->nack.psn = be32_to_cpu(n.nack_psn);
	out->nack.count = be16_to_cpu(n.count);
	out->nack.reason = n.reason;
	out->nack.cum_psn = be32_to_cpu(n.cum_psn);
	out->nack.grant_psn = be32_to_cpu(n.grant_psn);
	if (!out->nack.count || out->nack.count > SPRAY_NACK_MAX_COUNT)
		return -SPRAY_DROP_FIELD;
	if (!out->nack.reason || out->nack.reason >= __SPRAY_NACK_MAX)
		return -SPRAY_DROP_FIELD;
	return 0;
}

static void spray_parse_probe(const u8 *buf, struct spray_pkt *out)
{
	struct spray_probe_hdr p;

	memcpy(&p, buf + SPRAY_HDR_LEN, sizeof(p));
	out->probe.ts_ns = be64_to_cpu(p.ts_ns);
	out->probe.probe_id = be32_to_cpu(p.probe_id);
}

/**
 * spray_pkt_parse() - parse and validate one UDP payload
 * @buf: the UDP payload (any alignment)
 * @len: its length in bytes
 * @out: the parsed packet; valid only when 0 is returned
 *
 * Checks everything that can be checked without connection state: version,
 * type, flags for the type, ports, cid, header lengths, DATA length fields
 * (message at most SPRAY_WIRE_MAX_MSG, fragment within the message, payload
 * length equal to frag_len), NACK count and reason. Control packets must be
 * exactly their header length.
 *
 * Return: 0, or the negated enum spray_drop_reason.
 */
int spray_pkt_parse(const void *buf, u32 len, struct spray_pkt *out)
{
	const u8 *p = buf;
	struct spray_hdr h;
	u32 need;

	memset(out, 0, sizeof(*out));
	if (len < SPRAY_HDR_LEN)
		return -SPRAY_DROP_SHORT;
	memcpy(&h, p, sizeof(h));
	if (h.version != SPRAY_WIRE_VERSION)
		return -SPRAY_DROP_VERSION;
	need = spray_pkt_hdr_len(h.type);
	if (!need)
		return -SPRAY_DROP_TYPE;
	if (len < need)
		return -SPRAY_DROP_SHORT;

	out->type = h.type;
	out->flags = be16_to_cpu(h.flags);
	out->sport = be16_to_cpu(h.sport);
	out->dport = be16_to_cpu(h.dport);
	out->src_cid = be32_to_cpu(h.src_cid);
	out->dst_cid = be32_to_cpu(h.dst_cid);
	out->psn = be32_to_cpu(h.psn);
	out->ev = be16_to_cpu(h.ev);
	out->caps = be16_to_cpu(h.caps);

	if (out->flags & ~spray_flags_mask(h.type))
		return -SPRAY_DROP_FLAGS;
	need = spray_pkt_hlen(h.type, out->flags);
	if (len < need)
		return -SPRAY_DROP_SHORT;
	out->hdr_len = need;
	if (!out->sport || !out->dport)
		return -SPRAY_DROP_PORT;
	if (!out->src_cid)
		return -SPRAY_DROP_CID;
	if (h.type != SPRAY_T_DATA && len != need)
		return -SPRAY_DROP_LEN;

	switch (h.type) {
	case SPRAY_T_DATA:
		if (out->flags & SPRAY_F_ACK) {
			int err = spray_parse_dack(p, out);

			if (err)
				return err;
		}
		return spray_parse_data(p, len, out);
	case SPRAY_T_ACK:
		spray_parse_ack(p + SPRAY_HDR_LEN, &out->ack);
		break;
	case SPRAY_T_NACK:
		return spray_parse_nack(p, out);
	case SPRAY_T_PROBE:
		spray_parse_probe(p, out);
		break;
	}
	return 0;
}

/**
 * spray_pkt_build_frag() - make a DATA header another packet's of its train
 * @buf: SPRAY_DATA_HDR_LEN bytes that spray_pkt_build() wrote for a packet
 *	of the train (DATA without SPRAY_F_ACK)
 * @pkt: the packet: its psn, msg_id, msg_len, frag_off and frag_len are
 *	written, the rest of the header is the train's
 *
 * The packets of a train share their header but for these fields: the
 * header is built once per train and rewritten where it differs.
 */
void spray_pkt_build_frag(void *buf, const struct spray_pkt *pkt)
{
	__be32 v[2] = {
		cpu_to_be32(pkt->data.msg_id),
		cpu_to_be32(pkt->data.msg_len),
	};

	memcpy((u8 *)buf + SPRAY_OFF_MSG_ID, v, sizeof(v));
	spray_pkt_build_next(buf, pkt->psn, pkt->data.frag_off,
			     (u16)pkt->data.frag_len);
}

/**
 * spray_pkt_parse_next() - parse the next packet of a train, by prediction
 * @buf: its UDP payload (any alignment)
 * @len: its length in bytes
 * @prev: the first SPRAY_DATA_HDR_LEN bytes of the train's previous packet
 * @p: what spray_pkt_parse() made of @prev: DATA without SPRAY_F_ACK;
 *	becomes what it makes of @buf when 0 is returned, else unchanged
 *
 * The packets of a train (spray_queue_train()) carry one header but for
 * their psn, frag_off and frag_len. A packet whose header bytes are
 * @prev's but for those three fields is valid as @prev was in everything
 * else; only those fields are checked, as spray_pkt_parse() checks them
 * (the fragment inside the message, frag_len the payload's length).
 *
 * Return: 0, or -EAGAIN if @buf is not such a packet (spray_pkt_parse()
 * says what it is).
 */
int spray_pkt_parse_next(const void *buf, u32 len, const void *prev,
			 struct spray_pkt *p)
{
	const u8 *b = buf, *a = prev;
	__be32 psn, off;
	__be16 flen;
	u32 o, n;

	if (p->type != SPRAY_T_DATA || (p->flags & SPRAY_F_ACK) ||
	    len <= SPRAY_DATA_HDR_LEN)
		return -EAGAIN;
	/* psn, then msg_id and msg_len, then frag_off and frag_len */
	if (memcmp(b, a, SPRAY_OFF_PSN) ||
	    memcmp(b + SPRAY_OFF_PSN + 4, a + SPRAY_OFF_PSN + 4,
		   SPRAY_OFF_FRAG_OFF - SPRAY_OFF_PSN - 4) ||
	    memcmp(b + SPRAY_OFF_MIN_RTT, a + SPRAY_OFF_MIN_RTT,
		   SPRAY_DATA_HDR_LEN - SPRAY_OFF_MIN_RTT))
		return -EAGAIN;
	memcpy(&off, b + SPRAY_OFF_FRAG_OFF, sizeof(off));
	memcpy(&flen, b + SPRAY_OFF_FRAG_OFF + 4, sizeof(flen));
	o = be32_to_cpu(off);
	n = be16_to_cpu(flen);
	/* as spray_parse_data(): msg_len <= 8 MiB, no overflow in u32 */
	if (n != len - SPRAY_DATA_HDR_LEN || o > SPRAY_WIRE_MAX_MSG ||
	    o + n > p->data.msg_len)
		return -EAGAIN;
	memcpy(&psn, b + SPRAY_OFF_PSN, sizeof(psn));
	p->psn = be32_to_cpu(psn);
	p->data.frag_off = o;
	p->data.frag_len = n;
	return 0;
}

static void spray_build_ack(u8 *buf, const struct spray_ack *ack)
{
	struct spray_ack_hdr a = {
		.cum_psn = cpu_to_be32(ack->cum_psn),
		.sack_base = cpu_to_be32(ack->sack_base),
		.sack = cpu_to_be64(ack->sack),
		.ecn = cpu_to_be64(ack->ecn),
		.ts_echo = cpu_to_be64(ack->ts_echo),
		.hold_ns = cpu_to_be32(ack->hold_ns),
		.grant_psn = cpu_to_be32(ack->grant_psn),
		.ev_echo = cpu_to_be16(ack->ev_echo),
		.echo_psn = cpu_to_be32(ack->echo_psn),
	};

	memcpy(buf, &a, sizeof(a));
}

/**
 * spray_pkt_build() - write the headers of a packet into a buffer
 * @buf: destination (any alignment); DATA payload goes at buf + return value
 * @size: bytes available at @buf
 * @pkt: what to write; the fields of @pkt->type are used, hdr_len is not
 *
 * Writes version, zero reserved fields, caps and every field of the type
 * (for DATA with SPRAY_F_ACK, the ACK in pkt->dack too). For DATA,
 * pkt->data.frag_len must be the payload length the caller appends.
 * Does not validate the values beyond the type (the sender is trusted).
 *
 * Return: header bytes written, -EINVAL for an unknown type, -ENOSPC if
 * @size is too small.
 */
int spray_pkt_build(void *buf, u32 size, const struct spray_pkt *pkt)
{
	u32 len = spray_pkt_hlen(pkt->type, pkt->flags);
	u8 *p = buf;
	struct spray_hdr h;

	spray_wire_check_sizes();
	if (!len)
		return -EINVAL;
	if (size < len)
		return -ENOSPC;

	memset(&h, 0, sizeof(h));
	h.version = SPRAY_WIRE_VERSION;
	h.type = pkt->type;
	h.flags = cpu_to_be16(pkt->flags);
	h.sport = cpu_to_be16(pkt->sport);
	h.dport = cpu_to_be16(pkt->dport);
	h.src_cid = cpu_to_be32(pkt->src_cid);
	h.dst_cid = cpu_to_be32(pkt->dst_cid);
	h.psn = cpu_to_be32(pkt->psn);
	h.ev = cpu_to_be16(pkt->ev);
	h.caps = cpu_to_be16(pkt->caps);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);

	switch (pkt->type) {
	case SPRAY_T_DATA: {
		struct spray_data_hdr d = {
			.msg_id = cpu_to_be32(pkt->data.msg_id),
			.msg_len = cpu_to_be32(pkt->data.msg_len),
			.frag_off = cpu_to_be32(pkt->data.frag_off),
			.frag_len = cpu_to_be16((u16)pkt->data.frag_len),
			.min_rtt = cpu_to_be16(pkt->data.min_rtt),
			.ts_ns = cpu_to_be64(pkt->data.ts_ns),
		};

		memcpy(p, &d, sizeof(d));
		if (pkt->flags & SPRAY_F_ACK) {
			__be32 cids[2] = {
				cpu_to_be32(pkt->dack.src_cid),
				cpu_to_be32(pkt->dack.dst_cid),
			};

			p += sizeof(d);
			memcpy(p, cids, sizeof(cids));
			spray_build_ack(p + sizeof(cids), &pkt->dack.ack);
		}
		break;
	}
	case SPRAY_T_ACK:
		spray_build_ack(p, &pkt->ack);
		break;
	case SPRAY_T_NACK: {
		struct spray_nack_hdr n = {
			.nack_psn = cpu_to_be32(pkt->nack.psn),
			.count = cpu_to_be16(pkt->nack.count),
			.reason = pkt->nack.reason,
			.cum_psn = cpu_to_be32(pkt->nack.cum_psn),
			.grant_psn = cpu_to_be32(pkt->nack.grant_psn),
		};

		memcpy(p, &n, sizeof(n));
		break;
	}
	case SPRAY_T_PROBE: {
		struct spray_probe_hdr pr = {
			.ts_ns = cpu_to_be64(pkt->probe.ts_ns),
			.probe_id = cpu_to_be32(pkt->probe.probe_id),
		};

		memcpy(p, &pr, sizeof(pr));
		break;
	}
	}
	return (int)len;
}

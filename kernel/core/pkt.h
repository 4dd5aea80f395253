/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY packet parsing, validation and header building (no kernel API).
 */
#ifndef _SPRAY_PKT_H
#define _SPRAY_PKT_H

#include "core.h"
#include "wire.h"

/**
 * enum spray_drop_reason - why an incoming packet was dropped by parsing
 * @SPRAY_DROP_NONE: not dropped (0).
 * @SPRAY_DROP_SHORT: shorter than the headers its type needs.
 * @SPRAY_DROP_VERSION: version is not SPRAY_WIRE_VERSION.
 * @SPRAY_DROP_TYPE: unknown type.
 * @SPRAY_DROP_FLAGS: a flag not valid for the type is set.
 * @SPRAY_DROP_PORT: source or destination spray port is 0.
 * @SPRAY_DROP_CID: src_cid is 0.
 * @SPRAY_DROP_LEN: DATA length fields absurd: msg_len 0 or above
 *	SPRAY_WIRE_MAX_MSG, frag_len 0 or not the payload length, fragment
 *	beyond msg_len; control packet longer than its type.
 * @SPRAY_DROP_FIELD: another field out of range (NACK count or reason).
 * @__SPRAY_DROP_MAX: number of reasons, for counter arrays.
 *
 * The parser returns the negated value; the kernel counts drops per reason.
 * The reasons below are not returned by spray_pkt_parse() but by the
 * receive path, listed here so that one counter array covers all drops.
 * @SPRAY_DROP_DUP: duplicate psn (already received).
 * @SPRAY_DROP_WINDOW: psn at or beyond the receive window.
 * @SPRAY_DROP_STALE: psn absurdly far from the window, or stale cid.
 * @SPRAY_DROP_ADDR: sent to a multicast or broadcast address: AF_SPRAY is
 *	unicast, and answering would make every listener answer.
 * @SPRAY_DROP_LIMIT: would open a connection beyond a limit: the
 *	socket's (SPRAY_MAX_CONNS) or the namespace's (SPRAY_MAX_NET_CONNS).
 * @SPRAY_DROP_FRAG: a fragment that overlaps, repeats or is misaligned
 *	with the fragments of its message already received.
 * @SPRAY_DROP_MSG_SIZE: a fragment of a message longer than the
 *	namespace's max-msg: acknowledged, payload discarded, the sender told
 *	(NACK SPRAY_NACK_MSG_SIZE).
 * @SPRAY_DROP_CLOSED: DATA for a socket that is closed and only finishes
 *	sending (lingering): answered with NACK SPRAY_NACK_NO_CONN.
 * @SPRAY_DROP_RATELIMIT: a NACK that would have answered the packet was not
 *	sent, the source's NACK rate was used up (the packet itself was
 *	counted under its own reason too).
 */
enum spray_drop_reason {
	SPRAY_DROP_NONE,
	SPRAY_DROP_SHORT,
	SPRAY_DROP_VERSION,
	SPRAY_DROP_TYPE,
	SPRAY_DROP_FLAGS,
	SPRAY_DROP_PORT,
	SPRAY_DROP_CID,
	SPRAY_DROP_LEN,
	SPRAY_DROP_FIELD,
	SPRAY_DROP_DUP,
	SPRAY_DROP_WINDOW,
	SPRAY_DROP_STALE,
	SPRAY_DROP_ADDR,
	SPRAY_DROP_LIMIT,
	SPRAY_DROP_FRAG,
	SPRAY_DROP_MSG_SIZE,
	SPRAY_DROP_CLOSED,
	SPRAY_DROP_RATELIMIT,
	__SPRAY_DROP_MAX,
};

/**
 * struct spray_ack - the content of an ACK, host byte order
 *
 * @cum_psn: every psn before it has been received.
 * @sack_base: first psn described by @sack and @ecn.
 * @sack: bit i set: psn sack_base + i has been received.
 * @ecn: bit i set: psn sack_base + i arrived CE-marked.
 * @ts_echo: the sender's ts_ns of the latest DATA (or PROBE) packet.
 * @hold_ns: how long the receiver held that packet before this ACK.
 * @grant_psn: receiver credit: the sender may send psns before it.
 * @ev_echo: the ev of the packet whose ts is echoed.
 * @echo_psn: its psn (probe_id for a probe's echo).
 *
 * Fields as in struct spray_ack_hdr. Filled by spray_rxwin_build_ack() (all
 * but @grant_psn, which congestion control sets) and consumed by
 * spray_txwin_on_ack().
 */
struct spray_ack {
	u32	cum_psn;
	u32	sack_base;
	u64	sack;
	u64	ecn;
	u64	ts_echo;
	u32	hold_ns;
	u32	grant_psn;
	u16	ev_echo;
	u32	echo_psn;
};

/**
 * struct spray_pkt - a parsed packet, host byte order
 * @type: enum spray_type.
 * @flags: SPRAY_F_* bits.
 * @sport: source spray port.
 * @dport: destination spray port.
 * @src_cid: sender's connection id.
 * @dst_cid: receiver's connection id as known by the sender, or 0.
 * @psn: packet sequence number (DATA).
 * @ev: entropy value the sender chose.
 * @caps: SPRAY_CAP_* bits of the sender's stack.
 * @hdr_len: bytes of headers; DATA payload starts at buf + hdr_len.
 * @data: DATA fields (frag_len = payload bytes).
 * @ack: ACK fields.
 * @nack: NACK fields.
 * @probe: PROBE fields.
 * @dack: DATA with SPRAY_F_ACK: the acknowledgment it carries, with the
 *	cids an ACK packet would have in its spray_hdr.
 */
struct spray_pkt {
	u8	type;
	u16	flags;
	u16	sport;
	u16	dport;
	u32	src_cid;
	u32	dst_cid;
	u32	psn;
	u16	ev;
	u16	caps;
	u32	hdr_len;
	union {
		struct {
			u32	msg_id;
			u32	msg_len;
			u32	frag_off;
			u32	frag_len;
			u16	min_rtt;	/* spray_rtt_encode()d */
			u64	ts_ns;
		} data;
		struct spray_ack ack;
		struct {
			u32	psn;
			u16	count;
			u8	reason;
			u32	cum_psn;
			u32	grant_psn;
		} nack;
		struct {
			u64	ts_ns;
			u32	probe_id;
		} probe;
	};
	struct {
		u32			src_cid;
		u32			dst_cid;
		struct spray_ack	ack;
	} dack;
};

const char *spray_drop_reason_name(enum spray_drop_reason reason);
u32 spray_pkt_hdr_len(u8 type);
u32 spray_pkt_hlen(u8 type, u16 flags);
int spray_pkt_parse(const void *buf, u32 len, struct spray_pkt *out);
int spray_pkt_build(void *buf, u32 size, const struct spray_pkt *pkt);
void spray_pkt_build_frag(void *buf, const struct spray_pkt *pkt);
int spray_pkt_parse_next(const void *buf, u32 len, const void *prev,
			 struct spray_pkt *p);

/* where the fields a train's packets differ in lie in a DATA header */
#define SPRAY_OFF_PSN		offsetof(struct spray_hdr, psn)
#define SPRAY_OFF_MSG_ID	(SPRAY_HDR_LEN + \
				 offsetof(struct spray_data_hdr, msg_id))
#define SPRAY_OFF_FRAG_OFF	(SPRAY_HDR_LEN + \
				 offsetof(struct spray_data_hdr, frag_off))
#define SPRAY_OFF_MIN_RTT	(SPRAY_HDR_LEN + \
				 offsetof(struct spray_data_hdr, min_rtt))

/**
 * spray_pkt_build_next() - make a DATA header its message's next packet's
 * @buf: SPRAY_DATA_HDR_LEN bytes that spray_pkt_build() or
 *	spray_pkt_build_frag() wrote for a packet of the same message in the
 *	same train
 * @psn: the packet's psn
 * @frag_off: its fragment's offset in the message
 * @frag_len: its payload's length
 *
 * As spray_pkt_build_frag() for a packet of the message @buf is of, whose
 * id and length stay: what a message's packets differ in, written inline
 * once per packet as a train is made.
 */
static inline void spray_pkt_build_next(void *buf, u32 psn, u32 frag_off,
					u16 frag_len)
{
	__be32 be_psn = cpu_to_be32(psn), off = cpu_to_be32(frag_off);
	__be16 len = cpu_to_be16(frag_len);
	u8 *b = buf;

	memcpy(b + SPRAY_OFF_PSN, &be_psn, sizeof(be_psn));
	memcpy(b + SPRAY_OFF_FRAG_OFF, &off, sizeof(off));
	memcpy(b + SPRAY_OFF_FRAG_OFF + 4, &len, sizeof(len));
}

/**
 * spray_pkt_data_hdr_eq() - are two DATA headers the same bytes?
 * @a: SPRAY_DATA_HDR_LEN bytes (any alignment)
 * @b: as many
 *
 * A word at a time, inline: a train's next packet checked against the
 * header its predecessor's predicts for it (spray_pkt_build_next()) in
 * one compare, not field by field.
 *
 * Return: true if all their bytes are equal.
 */
static inline bool spray_pkt_data_hdr_eq(const void *a, const void *b)
{
	u64 x[SPRAY_DATA_HDR_LEN / 8], y[SPRAY_DATA_HDR_LEN / 8];

	BUILD_BUG_ON(SPRAY_DATA_HDR_LEN != 6 * 8);
	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return !((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) |
		 (x[3] ^ y[3]) | (x[4] ^ y[4]) | (x[5] ^ y[5]));
}

#endif /* _SPRAY_PKT_H */

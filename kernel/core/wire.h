/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY on-wire format, version 1.
 *
 * Every AF_SPRAY packet is one UDP datagram to the namespace's AF_SPRAY UDP
 * port. Its UDP source port is the packet's entropy value (EV), chosen per
 * packet by path.c. The UDP payload starts with struct spray_hdr, followed
 * by a type-specific header and, for DATA, the payload bytes. All fields are
 * big-endian; every struct is naturally aligned (no padding, no __packed)
 * and its size is pinned by spray_wire_check_sizes().
 *
 * Connections. A connection is the pair (local spray port + address, peer
 * spray port + address) in one direction of sending. Its *incarnation* is
 * named by the sender's random non-zero 32-bit connection id (src_cid); the
 * receiver has its own cid for the reverse direction, learned by the sender
 * from the first ACK (dst_cid, 0 until then). The first PSN of an
 * incarnation is its src_cid, so the initial PSN is random without an extra
 * field and a receiver can open its window from whichever SYN packet of the
 * incarnation arrives first.
 *
 * See Documentation/networking/spray-wire.rst.
 */
#ifndef _SPRAY_WIRE_H
#define _SPRAY_WIRE_H

#include "core.h"

#define SPRAY_WIRE_VERSION	1

/* largest message (sum of all fragments), 8 MiB */
#define SPRAY_WIRE_MAX_MSG	(8U << 20)

/**
 * enum spray_type - packet types (spray_hdr.type)
 * @SPRAY_T_DATA: one fragment of a message, sequenced by psn.
 * @SPRAY_T_ACK: coalesced cumulative + selective acknowledgment, ECN echo,
 *	RTT echo and receiver credit (grant).
 * @SPRAY_T_NACK: negative acknowledgment of a run of psns, with a reason.
 * @SPRAY_T_PROBE: path probe sent on one EV, answered by an ACK with
 *	SPRAY_F_PROBE set, not sequenced.
 * @SPRAY_T_CLOSE: the sender ends the incarnation named by src_cid; the
 *	receiver drops its state for it.
 * @__SPRAY_T_MAX: one past the last type.
 */
enum spray_type {
	SPRAY_T_DATA	= 1,
	SPRAY_T_ACK	= 2,
	SPRAY_T_NACK	= 3,
	SPRAY_T_PROBE	= 4,
	SPRAY_T_CLOSE	= 5,
	__SPRAY_T_MAX,
};

/*
 * Flags (spray_hdr.flags). A bit not listed for a type must be zero, else
 * the packet is dropped (SPRAY_DROP_FLAGS).
 *
 * SPRAY_F_SYN: DATA, PROBE. Set on every packet of a new incarnation until
 *	the sender has received an ACK for it: the receiver may create
 *	connection state (a packet without SYN for an unknown src_cid is
 *	answered with NACK reason SPRAY_NACK_NO_CONN).
 * SPRAY_F_RETX: DATA. This transmission is a retransmission (same psn).
 * SPRAY_F_ACK_REQ: DATA, PROBE. Acknowledge without coalescing delay. On
 *	a PROBE (a window probe, or an answer probe: see
 *	SPRAY_CAP_ANSWER_PROBE): a receiver with SPRAY_CAP_WINDOW_PROBE
 *	answers with an ACK of the connection (its cumulative ack and grant)
 *	as well as the probe's own.
 * SPRAY_F_PROBE: ACK. This ACK answers a PROBE: echo_psn is the probe_id,
 *	ts_echo and ev_echo are the probe's.
 * SPRAY_F_ACK: DATA. The packet carries an acknowledgment of the reverse
 *	direction (the sender's receiving side of the connection): struct
 *	spray_data_ack_hdr follows struct spray_data_hdr, the payload follows
 *	it. Sent only to a peer whose packets carry SPRAY_CAP_DATA_ACK, so
 *	that an answer acknowledges its request without a packet of its own.
 */
#define SPRAY_F_SYN		0x0001
#define SPRAY_F_RETX		0x0002
#define SPRAY_F_ACK_REQ		0x0004
#define SPRAY_F_PROBE		0x0008
#define SPRAY_F_ACK		0x0010

#define SPRAY_F_DATA_MASK	(SPRAY_F_SYN | SPRAY_F_RETX | SPRAY_F_ACK_REQ | \
				 SPRAY_F_ACK)
#define SPRAY_F_ACK_MASK	SPRAY_F_PROBE
#define SPRAY_F_NACK_MASK	0
#define SPRAY_F_PROBE_MASK	(SPRAY_F_SYN | SPRAY_F_ACK_REQ)
#define SPRAY_F_CLOSE_MASK	0

/**
 * struct spray_hdr - common header, first in every UDP payload (24 bytes)
 * @version: SPRAY_WIRE_VERSION; any other value is dropped
 *	(SPRAY_DROP_VERSION) so that a later version can change everything
 *	that follows.
 * @type: enum spray_type; unknown types are dropped (SPRAY_DROP_TYPE).
 * @flags: SPRAY_F_* bits valid for @type.
 * @sport: source spray port (the sending socket), non-zero.
 * @dport: destination spray port (the receiving socket), non-zero.
 * @src_cid: sender's connection id for this direction, random, non-zero,
 *	constant for the incarnation. Its value is also the incarnation's
 *	first psn.
 * @dst_cid: the peer's connection id as known by the sender, 0 until the
 *	sender has learned it (from an ACK's src_cid). A mismatch with the
 *	receiver's own cid means stale state (NACK SPRAY_NACK_NO_CONN).
 * @psn: DATA: packet sequence number, one per packet, consecutive per
 *	connection, starting at src_cid; a retransmission reuses the psn.
 *	Other types: 0.
 * @ev: the entropy value (UDP source port) the sender chose for this
 *	packet, echoed by ACKs so that path feedback survives source-port
 *	rewriting on the way.
 * @caps: SPRAY_CAP_* bits: what the sender's stack accepts. Sent in every
 *	packet; bits a receiver does not know are ignored. Stacks older than
 *	the bits sent 0 (the field was reserved).
 */
struct spray_hdr {
	u8	version;
	u8	type;
	__be16	flags;
	__be16	sport;
	__be16	dport;
	__be32	src_cid;
	__be32	dst_cid;
	__be32	psn;
	__be16	ev;
	__be16	caps;
};

/*
 * Capabilities (spray_hdr.caps).
 *
 * SPRAY_CAP_DATA_ACK: DATA with SPRAY_F_ACK is understood. Without it a
 *	receiver drops such DATA (SPRAY_DROP_FLAGS), so a sender carries
 *	ACKs in DATA only to a peer whose packets had the bit.
 * SPRAY_CAP_WINDOW_PROBE: a PROBE with SPRAY_F_ACK_REQ is answered with an
 *	ACK that carries the grant. A sender stopped by the grant probes such
 *	a receiver with a PROBE; others with one new psn beyond the grant,
 *	which a receiver out of room refuses.
 * SPRAY_CAP_ANSWER_PROBE: the sender asks for the ACK its requests' answers
 *	would carry: while the peer's ACKs come in its DATA (it answers), an
 *	RTO that expires first sends a PROBE with SPRAY_F_ACK_REQ, once, not
 *	a retransmission. A receiver answering such a peer keeps no timer
 *	for an ACK its answer will carry (only a backstop of two RTOs); a
 *	peer without the bit gets its delayed ACKs as before.
 */
#define SPRAY_CAP_DATA_ACK	0x0001
#define SPRAY_CAP_WINDOW_PROBE	0x0002
#define SPRAY_CAP_ANSWER_PROBE	0x0004

/**
 * struct spray_data_hdr - follows spray_hdr in DATA packets (24 bytes)
 * @msg_id: message number, per connection, +1 per message (wraps); lets the
 *	receiver deliver messages of one peer in order if asked to.
 * @msg_len: total message length in bytes, 1..SPRAY_WIRE_MAX_MSG.
 * @frag_off: offset of this fragment's first byte in the message.
 * @frag_len: payload bytes in this packet; must equal the UDP payload length
 *	minus the headers, be non-zero, and frag_off + frag_len <= msg_len.
 * @min_rtt: the sender's smallest RTT sample of this connection,
 *	spray_rtt_encode()d (0: none yet). The receiver sizes its credit for
 *	the sender from it (the per-peer BDP, spray-wire.rst); a receiver
 *	that ignores it (older ones: it was reserved, zero) loses nothing.
 * @ts_ns: sender's clock (ns) when this transmission left; echoed by the ACK
 *	(ts_echo) so that RTT samples are unambiguous for retransmissions.
 */
struct spray_data_hdr {
	__be32	msg_id;
	__be32	msg_len;
	__be32	frag_off;
	__be16	frag_len;
	__be16	min_rtt;
	__be64	ts_ns;
};

/*
 * An RTT in 16 bits (spray_data_hdr.min_rtt): a 12-bit mantissa m and a
 * 4-bit exponent e, m << e units of 64 ns: 64 ns steps up to 262 us, then
 * within 1/2048 of the value, up to 8.6 s. 0 means none.
 */
#define SPRAY_RTT_UNIT_SHIFT	6
#define SPRAY_RTT_MANT_BITS	12

static inline u16 spray_rtt_encode(u32 ns)
{
	u32 m = ns >> SPRAY_RTT_UNIT_SHIFT, e = 0;

	if (!ns)
		return 0;
	while (m >> SPRAY_RTT_MANT_BITS) {
		m = (m + 1) >> 1;	/* rounded: never 0, may carry */
		e++;
	}
	return (u16)(e << SPRAY_RTT_MANT_BITS | (m ? m : 1));
}

static inline u32 spray_rtt_decode(u16 v)
{
	u64 ns = (u64)(v & ((1U << SPRAY_RTT_MANT_BITS) - 1)) <<
		 (SPRAY_RTT_UNIT_SHIFT + (v >> SPRAY_RTT_MANT_BITS));

	return ns > U32_MAX ? U32_MAX : (u32)ns;
}

/**
 * struct spray_ack_hdr - follows spray_hdr in ACK packets (48 bytes)
 * @cum_psn: every psn before cum_psn has been received.
 * @sack_base: first psn described by @sack and @ecn.
 * @sack: bit i set = psn sack_base + i has been received (bits for psns
 *	before cum_psn are set).
 * @ecn: bit i set = psn sack_base + i arrived with ECN CE; the per-packet
 *	ECN echo of NSCC. Meaningful only where the @sack bit is set.
 * @ts_echo: ts_ns of the most recently arrived DATA (or PROBE) packet.
 * @hold_ns: how long the receiver held that packet before sending this ACK;
 *	the sender's RTT sample is now - ts_echo - hold_ns.
 * @grant_psn: receiver credit: the sender may send psns before grant_psn.
 *	Absolute, never decreases within an incarnation, so a lost ACK loses
 *	no credit.
 * @ev_echo: the ev of the packet whose ts is echoed.
 * @reserved: zero on send, ignored on receive.
 * @echo_psn: the psn of that packet (probe_id for SPRAY_F_PROBE).
 */
struct spray_ack_hdr {
	__be32	cum_psn;
	__be32	sack_base;
	__be64	sack;
	__be64	ecn;
	__be64	ts_echo;
	__be32	hold_ns;
	__be32	grant_psn;
	__be16	ev_echo;
	__be16	reserved;
	__be32	echo_psn;
};

/**
 * struct spray_data_ack_hdr - follows spray_data_hdr in DATA packets with
 *	SPRAY_F_ACK (56 bytes)
 * @src_cid: as an ACK's spray_hdr.src_cid: the sender's cid in the ACKs of
 *	the incarnation acknowledged.
 * @dst_cid: as an ACK's spray_hdr.dst_cid: the incarnation acknowledged
 *	(the receiver's src_cid of its own DATA); checked as an ACK's is.
 * @ack: the acknowledgment, as in an ACK packet; hold_ns and ts_echo
 *	make the RTT sample exact whatever the answer waited for.
 *
 * The DATA's own spray_hdr cids name the incarnation of the data, as in any
 * DATA packet; the carried ACK is processed as an ACK packet with these
 * fields would be, whether or not the data is accepted.
 */
struct spray_data_ack_hdr {
	__be32			src_cid;
	__be32			dst_cid;
	struct spray_ack_hdr	ack;
};

/**
 * enum spray_nack_reason - spray_nack_hdr.reason
 * @SPRAY_NACK_LOSS: the psns are missing while later ones have arrived for
 *	longer than the reorder window: retransmit them.
 * @SPRAY_NACK_WINDOW: the psn was at or beyond the receive window (or the
 *	grant): back off and retransmit later.
 * @SPRAY_NACK_NO_CONN: no connection matches src_cid/dst_cid (the receiver
 *	restarted or the incarnation is stale): start a new incarnation.
 * @SPRAY_NACK_NO_BUF: no receive buffer for the data: retransmit later.
 * @SPRAY_NACK_MSG_SIZE: the psn's message is longer than the receiver
 *	accepts (its max-msg). The receiver counts the psn as received and
 *	discards its payload, as it does every psn of that message: the
 *	sender fails the message (EMSGSIZE) and sends no more of it, the
 *	connection carries on with the next.
 * @SPRAY_NACK_RESUME: the receiver has room again (its application read,
 *	or it admitted a message some of whose packets it had refused): the
 *	psns it refused (NO_BUF, WINDOW) may come now. The sender sends them
 *	again at once, before anything new. Named psns: the first it misses.
 * @__SPRAY_NACK_MAX: one past the last reason.
 */
enum spray_nack_reason {
	SPRAY_NACK_LOSS		= 1,
	SPRAY_NACK_WINDOW	= 2,
	SPRAY_NACK_NO_CONN	= 3,
	SPRAY_NACK_NO_BUF	= 4,
	SPRAY_NACK_MSG_SIZE	= 5,
	SPRAY_NACK_RESUME	= 6,
	__SPRAY_NACK_MAX,
};

/* largest run of psns one NACK may name */
#define SPRAY_NACK_MAX_COUNT	64

/**
 * struct spray_nack_hdr - follows spray_hdr in NACK packets (16 bytes)
 * @nack_psn: first psn named.
 * @count: number of consecutive psns named, 1..SPRAY_NACK_MAX_COUNT.
 * @reason: enum spray_nack_reason.
 * @reserved: zero on send, ignored on receive.
 * @cum_psn: as in an ACK.
 * @grant_psn: as in an ACK.
 */
struct spray_nack_hdr {
	__be32	nack_psn;
	__be16	count;
	u8	reason;
	u8	reserved;
	__be32	cum_psn;
	__be32	grant_psn;
};

/**
 * struct spray_probe_hdr - follows spray_hdr in PROBE packets (16 bytes)
 * @ts_ns: sender's clock, echoed as ts_echo.
 * @probe_id: sender's cookie, echoed as echo_psn.
 * @reserved: zero on send, ignored on receive.
 */
struct spray_probe_hdr {
	__be64	ts_ns;
	__be32	probe_id;
	__be32	reserved;
};

#define SPRAY_HDR_LEN		24
#define SPRAY_DATA_HDR_LEN	48
#define SPRAY_DATA_ACK_LEN	56	/* struct spray_data_ack_hdr */
/* the longest headers: DATA carrying an ACK */
#define SPRAY_MAX_HDR_LEN	(SPRAY_DATA_HDR_LEN + SPRAY_DATA_ACK_LEN)
#define SPRAY_ACK_LEN		72
#define SPRAY_NACK_LEN		40
#define SPRAY_PROBE_LEN		40
#define SPRAY_CLOSE_LEN		SPRAY_HDR_LEN

static inline void spray_wire_check_sizes(void)
{
	BUILD_BUG_ON(sizeof(struct spray_hdr) != SPRAY_HDR_LEN);
	BUILD_BUG_ON(sizeof(struct spray_data_hdr) !=
		     SPRAY_DATA_HDR_LEN - SPRAY_HDR_LEN);
	BUILD_BUG_ON(sizeof(struct spray_ack_hdr) !=
		     SPRAY_ACK_LEN - SPRAY_HDR_LEN);
	BUILD_BUG_ON(sizeof(struct spray_data_ack_hdr) != SPRAY_DATA_ACK_LEN);
	BUILD_BUG_ON(sizeof(struct spray_nack_hdr) !=
		     SPRAY_NACK_LEN - SPRAY_HDR_LEN);
	BUILD_BUG_ON(sizeof(struct spray_probe_hdr) !=
		     SPRAY_PROBE_LEN - SPRAY_HDR_LEN);
	BUILD_BUG_ON(SPRAY_NACK_MAX_COUNT > 0xffff);
}

#endif /* _SPRAY_WIRE_H */

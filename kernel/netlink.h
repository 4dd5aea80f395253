/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY generic netlink API (family "spray"): the interface between the
 * netlink code (netlink.c) and the transport.
 *
 * The transport provides spray_conn_dump() (peer.c) and calls
 * spray_nl_notify_path() and spray_nl_notify_unreachable() on path and peer
 * events. Attribute documentation: Documentation/netlink/specs/spray.yaml.
 */
#ifndef _SPRAY_NETLINK_H
#define _SPRAY_NETLINK_H

#include <linux/types.h>
#include <linux/spray_netlink.h>

#include "spray.h"

struct net;

/**
 * struct spray_peer_info - one peer (connection), as the peers dump shows it
 * @id: peer id, unique in the namespace, named by struct spray_path_info
 * @local: local address
 * @remote: remote address
 * @local_cid: local connection id
 * @remote_cid: remote connection id, 0 until known
 * @state: enum spray_nl_peer_state
 * @srtt_us: smoothed round-trip time
 * @min_rtt_us: smallest round-trip time seen
 * @rto_us: current retransmission timeout
 * @cwnd: sender congestion window, bytes
 * @grant_outstanding: packets granted to the peer and not yet received
 * @in_flight: packets sent and not yet acknowledged
 * @tx_pkts: DATA packets sent, first transmissions
 * @retx_pkts: DATA packets sent again
 * @rx_pkts: DATA packets accepted
 * @ecn_marked_ppm: recently acknowledged packets CE-marked, parts per million
 * @bdp: the peer's BDP as this end sends to it (learned), bytes; 0 if none
 * @rcv_bdp: the BDP this end grants credit for as the peer's receiver,
 *	bytes; 0 if the peer has not sent
 * @pkt_payload: the payload of a full packet of the messages that start
 *	(&spray_conn.frag_size), bytes; 0 if this end has not sent
 */
struct spray_peer_info {
	u32			id;
	struct spray_addr	local;
	struct spray_addr	remote;
	u32			local_cid;
	u32			remote_cid;
	u32			state;
	u32			srtt_us;
	u32			min_rtt_us;
	u32			rto_us;
	u32			cwnd;
	u32			grant_outstanding;
	u32			in_flight;
	u64			tx_pkts;
	u64			retx_pkts;
	u64			rx_pkts;
	u32			ecn_marked_ppm;
	u32			bdp;
	u32			rcv_bdp;
	u32			pkt_payload;
};

/**
 * struct spray_path_info - one path (entropy value) of a peer
 * @peer_id: &spray_peer_info.id of its peer
 * @ev: entropy value, the UDP source port
 * @state: enum spray_nl_path_state
 * @tx_pkts: DATA packets sent on it
 * @acked_pkts: packets acknowledged on it
 * @lost_pkts: packets declared lost on it
 * @ecn_pkts: packets echoed CE-marked on it
 * @retx_pkts: retransmissions sent on it
 */
struct spray_path_info {
	u32	peer_id;
	u16	ev;
	u32	state;
	u64	tx_pkts;
	u64	acked_pkts;
	u64	lost_pkts;
	u64	ecn_pkts;
	u64	retx_pkts;
};

/*
 * Called for each entry of a peers (@pi) or paths (@ph) dump; non-zero
 * stops the dump's message there (-EMSGSIZE: full).
 */
typedef int (*spray_nl_emit_t)(void *ctx, const struct spray_peer_info *pi,
			       const struct spray_path_info *ph);

/* words of a dump's position (netlink_callback.args) */
#define SPRAY_DUMP_CURSOR	5

int spray_conn_dump(struct net *net, unsigned long *cur, bool paths,
		    spray_nl_emit_t emit, void *ctx);

int spray_netlink_init(void);
void spray_netlink_exit(void);

void spray_nl_notify_path(struct net *net, const struct spray_addr *local,
			  const struct spray_addr *remote, u16 ev, bool up);
void spray_nl_notify_unreachable(struct net *net,
				 const struct spray_addr *local,
				 const struct spray_addr *remote, int err);

#endif /* _SPRAY_NETLINK_H */

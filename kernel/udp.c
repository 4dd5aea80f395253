// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY over UDP: the namespace's UDP socket, the receive hook and
 * transmission with a per-packet UDP source port (the entropy value).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "spray.h"
#include "conn.h"

/*
 * Called by UDP for every datagram to the namespace's AF_SPRAY port, in
 * softirq under rcu_read_lock(), with the checksum verified and skb->data at
 * the UDP header. Returns 0: the skb is always consumed.
 */
static int spray_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct spray_net *sn = rcu_dereference_sk_user_data(sk);
	struct spray_addr from = { .af = AF_INET };
	struct spray_addr to = { .af = AF_INET };
	const struct iphdr *iph;
	bool ce;

	if (!sn || skb->protocol != htons(ETH_P_IP)) {
		kfree_skb(skb);
		return 0;
	}
	iph = ip_hdr(skb);
	ipv6_addr_set_v4mapped(iph->saddr, &from.v6);
	ipv6_addr_set_v4mapped(iph->daddr, &to.v6);
	ce = INET_ECN_is_ce(iph->tos);
	__skb_pull(skb, sizeof(struct udphdr));
	spray_conn_rcv(sn, skb, &from, &to, ce);
	return 0;
}

/**
 * spray_udp_get() - make sure the namespace's UDP socket exists
 * @sn: the namespace
 *
 * Creates the socket, bound to the configured port, with the first AF_SPRAY
 * socket that binds; later calls are cheap. Process context.
 *
 * Return: 0, or the error of creating or binding the socket (EADDRINUSE if
 * another program holds the UDP port).
 */
int spray_udp_get(struct spray_net *sn)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg ucfg = {};
	struct socket *sock;
	u16 port;
	int err;

	if (READ_ONCE(sn->udp_sock))
		return 0;
	mutex_lock(&sn->udp_lock);
	if (sn->udp_sock) {
		mutex_unlock(&sn->udp_lock);
		return 0;
	}
	port = READ_ONCE(sn->cfg.udp_port);
	ucfg.family = AF_INET;
	ucfg.local_ip.s_addr = htonl(INADDR_ANY);
	ucfg.local_udp_port = htons(port);
	err = udp_sock_create(sn->net, &ucfg, &sock);
	if (err) {
		mutex_unlock(&sn->udp_lock);
		net_warn_ratelimited("spray: cannot bind UDP port %u: %d\n",
				     port, err);
		return err;
	}
	tcfg.sk_user_data = sn;
	tcfg.encap_type = 1;
	tcfg.encap_rcv = spray_udp_encap_rcv;
	setup_udp_tunnel_sock(sn->net, sock, &tcfg);
	sn->udp_bound_port = port;
	WRITE_ONCE(sn->udp_sock, sock);
	mutex_unlock(&sn->udp_lock);
	return 0;
}

/**
 * spray_udp_put_all() - close the namespace's UDP socket
 * @sn: the namespace, being torn down
 */
void spray_udp_put_all(struct spray_net *sn)
{
	if (sn->udp_sock) {
		udp_tunnel_sock_release(sn->udp_sock);
		sn->udp_sock = NULL;
	}
}

/**
 * spray_udp_route() - the route and source address towards a peer
 * @sn: the namespace
 * @saddr: source address, or 0 to let the routing table choose
 * @daddr: destination
 * @ev: UDP source port (hashed by ECMP with the L4 policy)
 * @fl4: the flow, filled
 *
 * Return: the route or an ERR_PTR.
 */
struct rtable *spray_udp_route(struct spray_net *sn, __be32 saddr,
			       __be32 daddr, u16 ev, struct flowi4 *fl4)
{
	memset(fl4, 0, sizeof(*fl4));
	fl4->daddr = daddr;
	fl4->saddr = saddr;
	fl4->flowi4_proto = IPPROTO_UDP;
	fl4->fl4_sport = htons(ev);
	fl4->fl4_dport = htons(READ_ONCE(sn->cfg.udp_port));
	return ip_route_output_key(sn->net, fl4);
}

/**
 * spray_udp_xmit() - send one AF_SPRAY packet
 * @sn: the namespace
 * @skb: skb->data at the AF_SPRAY header, addresses and entropy value in
 *	SPRAY_SKB_CB(skb)
 *
 * Every packet is ECN-capable (ECT(0)): congestion control reads CE marks.
 *
 * Return: 0 or a negative error; the skb is consumed either way.
 */
int spray_udp_xmit(struct spray_net *sn, struct sk_buff *skb)
{
	struct spray_skb_cb *cb = SPRAY_SKB_CB(skb);
	struct socket *sock = READ_ONCE(sn->udp_sock);
	struct flowi4 fl4;
	struct rtable *rt;

	if (unlikely(!sock)) {
		kfree_skb(skb);
		return -ENOTCONN;
	}
	rt = spray_udp_route(sn, cb->saddr, cb->daddr, cb->ev, &fl4);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	udp_tunnel_xmit_skb(rt, sock->sk, skb, fl4.saddr, fl4.daddr,
			    INET_ECN_ECT_0, ip4_dst_hoplimit(&rt->dst), 0,
			    htons(cb->ev), htons(READ_ONCE(sn->cfg.udp_port)),
			    false, false);
	return 0;
}

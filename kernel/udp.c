// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY over UDP: the namespace's UDP sockets (IPv4 and IPv6), what
 * they receive and transmission with a per-packet UDP source port (the
 * entropy value).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/icmp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "spray.h"
#include "conn.h"

/*
 * The UDP payload a packet has room for on a path of @mtu bytes, with the
 * floor the kernel's routes keep: IPv6's 1280; for IPv4 the namespace's
 * net.ipv4.route.min_pmtu (552 by default: a Fragmentation Needed for
 * less leaves the route at it, locked, and its packets without DF), but
 * never below a packet of %SPRAY_MIN_FRAG (SPRAY_V4_MIN_MTU).
 */
static u32 spray_mtu_payload(const struct net *net, u32 mtu, bool v4)
{
	if (v4)
		return max3(mtu, READ_ONCE(net->ipv4.ip_rt_min_pmtu),
			    (u32)SPRAY_V4_MIN_MTU) -
		       sizeof(struct iphdr) - sizeof(struct udphdr);
	return max(mtu, IPV6_MIN_MTU) - sizeof(struct ipv6hdr) -
	       sizeof(struct udphdr);
}

/*
 * The addresses of the IP header at @nh (IPv4 if @v4, else IPv6), ports
 * left alone; a link-local @peer (one of them) is scoped to the device
 * @skb came in by.
 */
static void spray_ip_addrs(const struct sk_buff *skb, const void *nh,
			   bool v4, struct spray_addr *src,
			   struct spray_addr *dst, struct spray_addr *peer)
{
	if (v4) {
		const struct iphdr *iph = nh;

		src->af = AF_INET;
		dst->af = AF_INET;
		ipv6_addr_set_v4mapped(iph->saddr, &src->v6);
		ipv6_addr_set_v4mapped(iph->daddr, &dst->v6);
		return;
	}
	src->af = AF_INET6;
	dst->af = AF_INET6;
	src->v6 = ((const struct ipv6hdr *)nh)->saddr;
	dst->v6 = ((const struct ipv6hdr *)nh)->daddr;
	if (ipv6_addr_type(&peer->v6) & IPV6_ADDR_LINKLOCAL)
		peer->scope_id = skb->skb_iif;
}

/*
 * One datagram of the namespace's UDP socket, as UDP queued it: a
 * sender's train (UDP GSO) or the packets GRO merged, whole, or one
 * packet. skb->data is at the payload (UDP pulled its header); UDP keeps
 * its scratch in skb->dev. The checksum is verified here (UDP leaves that
 * to recvmsg()). Datagrams to a broadcast or multicast address are dropped
 * (SPRAY_DROP_ADDR): state and answers are for unicast peers only; for
 * IPv4, IP_PKTINFO's specific destination, which is the destination
 * itself for a local unicast address only, tells them apart (UDP dropped
 * the route). Softirq, under rcu_read_lock(); the skb is consumed.
 */
static void spray_udp_rcv(struct spray_net *sn, struct sk_buff *skb)
{
	enum skb_drop_reason reason = SKB_DROP_REASON_NO_SOCKET;
	bool csum_ok = udp_skb_csum_unnecessary(skb);
	struct spray_addr from = {}, to = {};
	bool v4 = skb->protocol == htons(ETH_P_IP);
	bool ce;

	/* UDP's scratch, not a device: nothing after us may follow it */
	skb->dev = NULL;
	if (!sn)
		goto drop;
	if (!csum_ok && __udp_lib_checksum_complete(skb)) {
		if (v4) {
			__UDP_INC_STATS(sn->net, UDP_MIB_CSUMERRORS, 0);
			__UDP_INC_STATS(sn->net, UDP_MIB_INERRORS, 0);
		} else {
			__UDP6_INC_STATS(sn->net, UDP_MIB_CSUMERRORS, 0);
			__UDP6_INC_STATS(sn->net, UDP_MIB_INERRORS, 0);
		}
		reason = SKB_DROP_REASON_UDP_CSUM;
		goto drop;
	}
	if (v4) {
		const struct iphdr *iph = ip_hdr(skb);
		__be32 spec = PKTINFO_SKB_CB(skb)->ipi_spec_dst.s_addr;

		if (spec ? spec != iph->daddr :
		    ipv4_is_multicast(iph->daddr) || ipv4_is_lbcast(iph->daddr))
			goto drop_addr;
		ce = INET_ECN_is_ce(iph->tos);
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		if (ipv6_addr_is_multicast(&ip6h->daddr))
			goto drop_addr;
		ce = INET_ECN_is_ce(ipv6_get_dsfield(ip6h));
	} else {
		reason = SKB_DROP_REASON_UNHANDLED_PROTO;
		goto drop;
	}
	spray_ip_addrs(skb, skb_network_header(skb), v4, &from, &to, &from);
	spray_conn_rcv(sn, skb, &from, &to, ce);
	return;
drop_addr:
	reason = spray_drop(sn, SPRAY_DROP_ADDR);
drop:
	kfree_skb_reason(skb, reason);
}

/*
 * The UDP socket has datagrams: take them all, now, in the softirq that
 * queued them. A datagram is taken once whatever the CPU (UDP's queues
 * have their own locks); another CPU's may be handled in between, as
 * packets of other paths are.
 */
static void spray_udp_data_ready(struct sock *sk)
{
	struct spray_net *sn;
	struct sk_buff *skb;
	int off = 0, err;

	rcu_read_lock();
	sn = rcu_dereference_sk_user_data(sk);
	while ((skb = __skb_recv_udp(sk, MSG_DONTWAIT, &off, &err)))
		spray_udp_rcv(sn, skb);
	rcu_read_unlock();
}

/*
 * An ICMP error about a datagram we sent (net/ipv{4,6}/udp.c, for a
 * socket bound to its destination port: UDP_GRO made the lookup a tunnel's
 * one): ours if it quotes an AF_SPRAY header, or too little to tell. UDP
 * then applies it to the route: an ICMP Fragmentation Needed or ICMPv6
 * Packet Too Big lowers the path MTU towards the peer, which the packets
 * larger are then fragmented to (ignore_df in __spray_udp_xmit()), as a
 * UDP socket's are. Return: 0 if ours.
 */
static int spray_udp_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	u8 *ver, buf;

	ver = skb_header_pointer(skb, skb_transport_offset(skb) +
				 sizeof(struct udphdr), 1, &buf);
	return ver && *ver != SPRAY_WIRE_VERSION ? -ENOENT : 0;
}

/*
 * What an ICMP error means for a connection, as TCP takes it
 * (tcp_v4_err(), tcp_v6_err()): a negative errno, *@fatal if it ends a
 * connection being opened (a port unreachable: -ECONNREFUSED), else it is
 * what the messages fail with if they time out (a host unreachable:
 * -EHOSTUNREACH); or 0 and in *@frag the payload a packet may carry now,
 * for an error about the path MTU (0 if none).
 */
static int spray_icmp_err(const struct net *net, const struct sk_buff *skb,
			  bool *fatal, u32 *frag)
{
	u32 mtu;
	int err;

	*fatal = false;
	*frag = 0;
	if (skb->protocol == htons(ETH_P_IP)) {
		const struct icmphdr *ih = icmp_hdr(skb);

		switch (ih->type) {
		case ICMP_PARAMETERPROB:
			*fatal = true;
			return -EPROTO;
		case ICMP_DEST_UNREACH:
			if (ih->code == ICMP_FRAG_NEEDED) {
				/* 0 from routers before RFC 1191: unknown */
				mtu = ntohs(ih->un.frag.mtu);
				if (mtu)
					*frag = spray_mtu_payload(net, mtu,
								  true) -
						SPRAY_DATA_HDR_LEN;
				return 0;
			}
			if (ih->code > NR_ICMP_UNREACH)
				return -EHOSTUNREACH;
			*fatal = icmp_err_convert[ih->code].fatal;
			return -icmp_err_convert[ih->code].errno;
		case ICMP_TIME_EXCEEDED:
			return -EHOSTUNREACH;
		default:
			return 0;
		}
	}
	if (icmp6_hdr(skb)->icmp6_type == ICMPV6_PKT_TOOBIG) {
		mtu = ntohl(icmp6_hdr(skb)->icmp6_mtu);
		*frag = spray_mtu_payload(net, mtu, false) -
			SPRAY_DATA_HDR_LEN;
		return 0;
	}
	*fatal = icmpv6_err_convert(icmp6_hdr(skb)->icmp6_type,
				    icmp6_hdr(skb)->icmp6_code, &err);
	return -err;
}

/*
 * An ICMP error about a packet we sent, that spray_udp_err_lookup() took
 * and UDP applied to the route: skb->data at the IP header it quotes, the
 * AF_SPRAY header at @off. Counted (icmp-errors), and told to the
 * connection it names (spray_conn_icmp_err()). Softirq, under
 * rcu_read_lock().
 */
static void spray_udp_err(struct sock *sk, struct sk_buff *skb, int off)
{
	struct spray_addr local = {}, peer = {};
	const struct spray_hdr *hp;
	struct spray_hdr buf;
	struct spray_net *sn;
	bool fatal;
	u32 frag;
	int err;

	sn = rcu_dereference_sk_user_data(sk);
	hp = skb_header_pointer(skb, off, offsetofend(struct spray_hdr, src_cid),
				&buf);
	if (!sn || !hp || hp->version != SPRAY_WIRE_VERSION)
		return;
	spray_mib_inc(sn, SPRAY_MIB_ICMP_ERRORS);
	err = spray_icmp_err(sn->net, skb, &fatal, &frag);
	if (!err && !frag)
		return;
	/* the packet we sent: from us to the peer */
	spray_ip_addrs(skb, skb->data, skb->protocol == htons(ETH_P_IP),
		       &local, &peer, &peer);
	local.port = ntohs(hp->sport);
	peer.port = ntohs(hp->dport);
	spray_conn_icmp_err(sn, &local, &peer, hp, -err, fatal, frag);
}

#ifdef SPRAY_HAVE_ERR_RCV_OFFSET
/* before 6.2: @udp_offset from skb->data (the quoted IP header) */
static void spray_udp_err_rcv(struct sock *sk, struct sk_buff *skb,
			      unsigned int udp_offset)
{
	spray_udp_err(sk, skb, udp_offset + sizeof(struct udphdr));
}
#else
static void spray_udp_err_rcv(struct sock *sk, struct sk_buff *skb, int err,
			      __be16 port, u32 info, u8 *payload)
{
	spray_udp_err(sk, skb, payload - skb->data);
}
#endif

/*
 * A plain UDP socket, not a tunnel socket: on the kernels of the matrix a
 * tunnel socket's encap_rcv never sees a GSO skb (UDP cuts it up first,
 * "udp: do not accept non-tunnel GSO skbs landing in a tunnel"), while a
 * socket with UDP_GRO takes a sender's train whole, and GRO merges each
 * entropy value's packets for it on a NIC. Its data_ready takes what UDP
 * queued at once (spray_udp_data_ready()); the queue only passes through,
 * so its limit is set out of the way (memory is charged to the AF_SPRAY
 * socket that keeps the payload).
 */
static int spray_udp_open(struct spray_net *sn, int family, u16 port,
			  struct socket **sockp)
{
	struct udp_port_cfg ucfg = {};
	struct socket *sock;
	struct sock *sk;
	int one = 1, err;

	ucfg.family = family;
	ucfg.local_udp_port = htons(port);
	if (family == AF_INET6) {
		ucfg.ipv6_v6only = 1;
		ucfg.local_ip6 = in6addr_any;
	} else {
		ucfg.local_ip.s_addr = htonl(INADDR_ANY);
	}
	err = udp_sock_create(sn->net, &ucfg, &sock);
	if (err)
		return err;
	sk = sock->sk;
	err = sock->ops->setsockopt(sock, SOL_UDP, UDP_GRO,
				    KERNEL_SOCKPTR(&one), sizeof(one));
	if (err) {
		udp_tunnel_sock_release(sock);
		return err;
	}
	if (family == AF_INET)
		ip_sock_set_pktinfo(sk);
	lock_sock(sk);
	sk->sk_userlocks |= SOCK_RCVBUF_LOCK;
	WRITE_ONCE(sk->sk_rcvbuf, INT_MAX / 2);
	release_sock(sk);
	write_lock_bh(&sk->sk_callback_lock);
	rcu_assign_sk_user_data(sk, sn);
	sk->sk_data_ready = spray_udp_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(udp_sk(sk)->encap_err_lookup, spray_udp_err_lookup);
	WRITE_ONCE(udp_sk(sk)->encap_err_rcv, spray_udp_err_rcv);
	*sockp = sock;
	return 0;
}

/**
 * spray_udp_get() - make sure the namespace's UDP sockets exist
 * @sn: the namespace
 *
 * Creates them, bound to the configured port, with the first AF_SPRAY
 * socket that binds; later calls are cheap. The IPv6 socket is optional:
 * without IPv6 (ipv6.disable=1) AF_SPRAY carries IPv4 only. Process
 * context.
 *
 * Return: 0, or the error of creating or binding the IPv4 socket
 * (EADDRINUSE if another program holds the UDP port).
 */
int spray_udp_get(struct spray_net *sn)
{
	struct socket *sock, *sock6 = NULL;
	u16 port;
	int err;

	if (rcu_access_pointer(sn->udp_sock))
		return 0;
	mutex_lock(&sn->udp_lock);
	if (rcu_access_pointer(sn->udp_sock)) {
		mutex_unlock(&sn->udp_lock);
		return 0;
	}
	port = READ_ONCE(sn->cfg.udp_port);
	err = spray_udp_open(sn, AF_INET, port, &sock);
	if (err) {
		mutex_unlock(&sn->udp_lock);
		net_warn_ratelimited("spray: cannot bind UDP port %u: %d\n",
				     port, err);
		return err;
	}
	if (IS_ENABLED(CONFIG_IPV6) && ipv6_mod_enabled() &&
	    spray_udp_open(sn, AF_INET6, port, &sock6))
		sock6 = NULL;
	sn->udp_bound_port = port;
	rcu_assign_pointer(sn->udp6_sock, sock6);
	rcu_assign_pointer(sn->udp_sock, sock);
	mutex_unlock(&sn->udp_lock);
	return 0;
}

/**
 * spray_udp_rebind() - move the namespace's UDP sockets to another port
 * @sn: the namespace
 * @port: the new port
 *
 * @old: set to the sockets replaced (NULL, NULL if none), which the caller
 *	gives to spray_udp_release() once it holds no lock
 *
 * Called with &spray_net.config_lock held, before the setting is stored.
 * If the sockets do not exist yet they will be created on the new port.
 * Packets in flight to the old port are lost and sent again.
 *
 * Return: 0, or the error of binding the new port (the old one stays).
 */
int spray_udp_rebind(struct spray_net *sn, u16 port, struct socket *old[2])
{
	struct socket *s4, *s6 = NULL;
	int err;

	old[0] = NULL;
	old[1] = NULL;
	mutex_lock(&sn->udp_lock);
	if (!rcu_access_pointer(sn->udp_sock) || sn->udp_bound_port == port) {
		mutex_unlock(&sn->udp_lock);
		return 0;
	}
	err = spray_udp_open(sn, AF_INET, port, &s4);
	if (err) {
		mutex_unlock(&sn->udp_lock);
		return err;
	}
	if (IS_ENABLED(CONFIG_IPV6) && ipv6_mod_enabled() &&
	    spray_udp_open(sn, AF_INET6, port, &s6))
		s6 = NULL;
	old[0] = rcu_dereference_protected(sn->udp_sock,
					   lockdep_is_held(&sn->udp_lock));
	old[1] = rcu_dereference_protected(sn->udp6_sock,
					   lockdep_is_held(&sn->udp_lock));
	rcu_assign_pointer(sn->udp_sock, s4);
	rcu_assign_pointer(sn->udp6_sock, s6);
	sn->udp_bound_port = port;
	mutex_unlock(&sn->udp_lock);
	return 0;
}

/**
 * spray_udp_release() - close the sockets spray_udp_rebind() replaced
 * @old: them (either may be NULL)
 *
 * Waits for a grace period (transmitters and route lookups read the
 * pointers under RCU; under load one took 30 s), so the caller holds no
 * lock that others wait for, such as &spray_net.config_lock. The old port
 * is free when it returns.
 */
void spray_udp_release(struct socket *old[2])
{
	if (!old[0] && !old[1])
		return;
	synchronize_rcu();
	if (old[0])
		udp_tunnel_sock_release(old[0]);
	if (old[1])
		udp_tunnel_sock_release(old[1]);
}

/**
 * spray_udp_put_all() - close the namespace's UDP sockets
 * @sn: the namespace, being torn down
 */
void spray_udp_put_all(struct spray_net *sn)
{
	struct socket *s4 = rcu_dereference_protected(sn->udp_sock, 1);
	struct socket *s6 = rcu_dereference_protected(sn->udp6_sock, 1);

	RCU_INIT_POINTER(sn->udp6_sock, NULL);
	RCU_INIT_POINTER(sn->udp_sock, NULL);
	/* no reader is left: the namespace is going away */
	if (s6)
		udp_tunnel_sock_release(s6);
	if (s4)
		udp_tunnel_sock_release(s4);
}

/* Caller holds rcu_read_lock(): the UDP socket may be replaced meanwhile. */
static struct dst_entry *spray_route6(struct spray_net *sn,
				      const struct in6_addr *saddr,
				      const struct in6_addr *daddr,
				      u32 oif, u16 ev, struct flowi6 *fl6)
{
	struct socket *sock = rcu_dereference(sn->udp6_sock);

	if (!IS_ENABLED(CONFIG_IPV6) || !sock)
		return ERR_PTR(-EAFNOSUPPORT);
	memset(fl6, 0, sizeof(*fl6));
	fl6->daddr = *daddr;
	fl6->saddr = *saddr;
	fl6->flowi6_oif = oif;
	fl6->flowi6_proto = IPPROTO_UDP;
	fl6->fl6_sport = htons(ev);
	fl6->fl6_dport = htons(READ_ONCE(sn->cfg.udp_port));
	return ipv6_stub->ipv6_dst_lookup_flow(sn->net, sock->sk, fl6, NULL);
}

/*
 * The route of an IPv4 peer, or an error: a peer is a unicast or local
 * address, never a directed broadcast or a multicast group (-EINVAL).
 */
static struct rtable *spray_route4(struct spray_net *sn, __be32 saddr,
				   __be32 daddr, u16 ev, struct flowi4 *fl4)
{
	struct rtable *rt;

	memset(fl4, 0, sizeof(*fl4));
	fl4->daddr = daddr;
	fl4->saddr = saddr;
	fl4->flowi4_proto = IPPROTO_UDP;
	fl4->fl4_sport = htons(ev);
	fl4->fl4_dport = htons(READ_ONCE(sn->cfg.udp_port));
	rt = ip_route_output_key(sn->net, fl4);
	if (IS_ERR(rt))
		return rt;
	if (rt->rt_type != RTN_UNICAST && rt->rt_type != RTN_LOCAL) {
		ip_rt_put(rt);
		return ERR_PTR(-EINVAL);
	}
	return rt;
}

static int __spray_udp_path(struct spray_net *sn, struct in6_addr *saddr,
			    const struct in6_addr *daddr, u32 oif, u32 *payload)
{
	u32 mtu;

	if (ipv6_addr_v4mapped(daddr)) {
		struct flowi4 fl4;
		struct rtable *rt;

		rt = spray_route4(sn, ipv6_addr_v4mapped(saddr) ?
				  saddr->s6_addr32[3] : 0,
				  daddr->s6_addr32[3], 0, &fl4);
		if (IS_ERR(rt))
			return PTR_ERR(rt);
		mtu = dst_mtu(&rt->dst);
		ipv6_addr_set_v4mapped(fl4.saddr, saddr);
		ip_rt_put(rt);
		*payload = spray_mtu_payload(sn->net, mtu, true);
		return 0;
	}
	{
		struct dst_entry *dst;
		struct flowi6 fl6;

		dst = spray_route6(sn, saddr, daddr, oif, 0, &fl6);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
		mtu = dst_mtu(dst);
		*saddr = fl6.saddr;
		dst_release(dst);
		*payload = spray_mtu_payload(sn->net, mtu, false);
		return 0;
	}
}

/**
 * spray_udp_path() - source address and payload room towards a peer
 * @sn: the namespace
 * @saddr: in: the bound address (or any), out: the source to use
 * @daddr: destination (IPv4 v4-mapped)
 * @oif: interface of a link-local IPv6 destination, else 0
 * @payload: out: UDP payload bytes that fit the path MTU
 *
 * Any context: the lookup runs under rcu_read_lock(), as the namespace's
 * UDP socket may be replaced (a new udp-port) while it runs.
 *
 * Return: 0, the routing error (-ENETUNREACH, ...), or -EINVAL if
 * @daddr is a broadcast address.
 */
int spray_udp_path(struct spray_net *sn, struct in6_addr *saddr,
		   const struct in6_addr *daddr, u32 oif, u32 *payload)
{
	int err;

	rcu_read_lock();
	err = __spray_udp_path(sn, saddr, daddr, oif, payload);
	rcu_read_unlock();
	return err;
}

/**
 * spray_udp_dst_payload() - the UDP payload a route's MTU leaves
 * @dst: the route
 * @v4: of an IPv4 destination
 *
 * Return: bytes, for a packet that must not be fragmented on the way.
 */
u32 spray_udp_dst_payload(const struct dst_entry *dst, bool v4)
{
	return spray_mtu_payload(dev_net(dst->dev), dst_mtu(dst), v4);
}

/**
 * spray_udp_dst_pmtu_min() - an IPv6 route takes IPv6's least MTU
 * @dst: the route (IPv6)
 * @saddr: the source of the packets that vanished on it
 * @daddr: their destination
 *
 * As an ICMPv6 Packet Too Big for 1280 bytes quoting such a packet would
 * (__udp6_lib_err(), ip6_update_pmtu()): an exception of the route, for
 * net.ipv6.route.mtu_expires, at the next hop of @dst.
 *
 * Return: 0 if lowered; -EEXIST if the route's MTU is 1280 already,
 * -ENOMEM.
 */
int spray_udp_dst_pmtu_min(struct dst_entry *dst, const struct in6_addr *saddr,
			   const struct in6_addr *daddr)
{
	struct ipv6hdr *ip6h;
	struct sk_buff *skb;

	if (dst_mtu(dst) <= IPV6_MIN_MTU || !dst->ops->update_pmtu)
		return -EEXIST;
	/* the quoted header an ICMPv6 error would carry */
	skb = alloc_skb(sizeof(*ip6h), GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reset_network_header(skb);
	ip6h = skb_put_zero(skb, sizeof(*ip6h));
	ip6h->version = 6;
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->saddr = *saddr;
	ip6h->daddr = *daddr;
	dst->ops->update_pmtu(dst, NULL, skb, IPV6_MIN_MTU, false);
	consume_skb(skb);
	return 0;
}

/**
 * spray_udp_dst() - the route of a connection's packets on one entropy value
 * @sn: the namespace
 * @slot: the connection's cache for that entropy value
 * @saddr: the connection's source address
 * @daddr: its destination (IPv4 v4-mapped)
 * @oif: interface of a link-local IPv6 destination, else 0
 * @ev: the entropy value (UDP source port)
 *
 * A route lookup per entropy value, not per packet: the route is kept in
 * @slot, checked at each use as the kernel's dst caches do (dst_check():
 * a route or device change makes it stale) and looked up again when
 * stale or looked up for another port. ECMP hashes the ports, so each
 * entropy value has a route of its own. A source address not yet chosen,
 * or a route that is not unicast, is not kept: spray_udp_xmit() looks it
 * up then, and drops what it must.
 *
 * Under the lock of the connection's socket.
 *
 * Return: a reference to the route, for the packet's skb, or NULL.
 */
struct dst_entry *spray_udp_dst(struct spray_net *sn,
				struct spray_dst_slot *slot,
				const struct in6_addr *saddr,
				const struct in6_addr *daddr, u32 oif, u16 ev)
{
	u16 udp_port = READ_ONCE(sn->cfg.udp_port);
	struct dst_entry *dst = slot->dst;
	u32 cookie = 0;

	if (dst && slot->ev == ev && slot->udp_port == udp_port &&
	    dst_check(dst, slot->cookie)) {
		dst_hold(dst);
		return dst;
	}
	slot->dst = NULL;
	dst_release(dst);
	dst = NULL;
	rcu_read_lock();
	if (ipv6_addr_v4mapped(daddr)) {
		struct flowi4 fl4;
		struct rtable *rt;

		if (!ipv6_addr_v4mapped(saddr) || !saddr->s6_addr32[3])
			goto out;
		rt = spray_route4(sn, saddr->s6_addr32[3], daddr->s6_addr32[3],
				  ev, &fl4);
		if (IS_ERR(rt))
			goto out;
		dst = &rt->dst;
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		struct flowi6 fl6;

		if (ipv6_addr_any(saddr) || ipv6_addr_v4mapped(saddr))
			goto out;
		dst = spray_route6(sn, saddr, daddr, oif, ev, &fl6);
		if (IS_ERR(dst)) {
			dst = NULL;
			goto out;
		}
		cookie = rt6_get_cookie(container_of(dst, struct rt6_info,
						     dst));
	}
	if (dst) {
		slot->dst = dst;
		slot->cookie = cookie;
		slot->ev = ev;
		slot->udp_port = udp_port;
		dst_hold(dst);
	}
out:
	rcu_read_unlock();
	return dst;
}

/**
 * spray_udp_dst_release() - let the routes of a connection's cache go
 * @slots: the cache
 * @n: its slots
 */
void spray_udp_dst_release(struct spray_dst_slot *slots, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		dst_release(slots[i].dst);
		slots[i].dst = NULL;
	}
}

static int __spray_udp_xmit(struct spray_net *sn, struct sk_buff *skb)
{
	struct spray_skb_cb cb = *SPRAY_SKB_CB(skb);
	__be16 dport = htons(READ_ONCE(sn->cfg.udp_port));
	enum skb_drop_reason reason = SKB_DROP_REASON_IP_OUTNOROUTES;
	struct dst_entry *dst = skb_dst(skb);
	struct socket *sock;

	/*
	 * The route from the connection's cache (spray_udp_dst()): the
	 * skb's reference is taken over (skb_dst_set() releases nothing),
	 * as the tunnel helpers attach the route they are given.
	 */
	if (dst)
		skb_dst_set(skb, NULL);
	/*
	 * A train (spray_queue_train()): UDP GSO, cut into its packets by
	 * the device or by the stack where the device cannot. Its checksum
	 * is left to that (CHECKSUM_PARTIAL at the UDP header the tunnel
	 * helpers push next, which set the pseudo-header sum for a GSO skb).
	 */
	if (skb_is_gso(skb)) {
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_headroom(skb) - sizeof(struct udphdr);
		skb->csum_offset = offsetof(struct udphdr, check);
	}

	/*
	 * Fragmented at the source where the packet is larger than the
	 * route's MTU (a Fragmentation Needed or Packet Too Big lowered it:
	 * spray_udp_err_lookup()) rather than dropped, as a UDP socket's
	 * datagrams are (IP_PMTUDISC_WANT)
	 */
	skb->ignore_df = 1;
	if (ipv6_addr_v4mapped(&cb.daddr)) {
		/* filled by the lookup, or its addresses only: no clearing */
		struct flowi4 fl4 __uninitialized;
		struct rtable *rt;
		__be16 df = 0;
		u32 len;

		sock = rcu_dereference(sn->udp_sock);
		if (unlikely(!sock))
			goto drop_nosock;
		if (dst) {
			/* the connection's cache keeps unicast routes only */
			rt = container_of(dst, struct rtable, dst);
			fl4.saddr = cb.saddr.s6_addr32[3];
			fl4.daddr = cb.daddr.s6_addr32[3];
		} else {
			rt = spray_route4(sn, cb.saddr.s6_addr32[3],
					  cb.daddr.s6_addr32[3], cb.ev, &fl4);
			/* never answer towards a broadcast address */
			if (IS_ERR(rt))
				goto drop;
		}
		/*
		 * DF where the packet fits the route, as UDP's
		 * IP_PMTUDISC_WANT sets it (__ip_make_skb()): a router with a
		 * smaller MTU further on answers Fragmentation Needed, which
		 * lowers the route's MTU and cuts the connection's next
		 * messages (spray_conn_icmp_err()), instead of fragmenting
		 * every packet on the way, which a data-centre switch may not
		 * do in hardware and where one fragment lost loses the
		 * packet. Not where the connection suspects that such answers
		 * are filtered (a black hole: spray_tx_lost()), nor on a
		 * route whose MTU is locked, nor where the namespace turned
		 * path MTU discovery off (net.ipv4.ip_no_pmtu_disc when the
		 * UDP socket was made: ip_dont_fragment()).
		 */
		len = (skb_is_gso(skb) ? skb_shinfo(skb)->gso_size : skb->len) +
		      sizeof(struct iphdr) + sizeof(struct udphdr);
		if (!cb.nodf && len <= dst_mtu(&rt->dst) &&
		    ip_dont_fragment(sock->sk, &rt->dst))
			df = htons(IP_DF);
		udp_tunnel_xmit_skb(rt, sock->sk, skb, fl4.saddr, fl4.daddr,
				    INET_ECN_ECT_0, ip4_dst_hoplimit(&rt->dst),
				    df, htons(cb.ev), dport, false, false);
		return 0;
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		struct flowi6 fl6 __uninitialized;

		sock = rcu_dereference(sn->udp6_sock);
		if (unlikely(!sock))
			goto drop_nosock;
		if (dst) {
			fl6.saddr = cb.saddr;
			fl6.daddr = cb.daddr;
		} else {
			dst = spray_route6(sn, &cb.saddr, &cb.daddr, cb.oif,
					   cb.ev, &fl6);
			if (IS_ERR(dst)) {
				dst = NULL;
				goto drop;
			}
		}
		/* no tunnel device: dev NULL, no device statistics */
		udp_tunnel6_xmit_skb(dst, sock->sk, skb, NULL, &fl6.saddr,
				     &fl6.daddr, INET_ECN_ECT_0,
				     ip6_dst_hoplimit(dst), 0, htons(cb.ev),
				     dport, false);
		return 0;
	}
#endif
	/* the namespace's UDP sockets are gone (it exits) or never came */
drop_nosock:
	reason = SKB_DROP_REASON_NO_SOCKET;
drop:
	dst_release(dst);
	kfree_skb_reason(skb, reason);
	return -ENETUNREACH;
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
	int err;

	rcu_read_lock();
	err = __spray_udp_xmit(sn, skb);
	rcu_read_unlock();
	return err;
}

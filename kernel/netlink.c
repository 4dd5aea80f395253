// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY generic netlink family "spray": per namespace configuration,
 * counters, socket, peer and path listings, and path events.
 *
 * The policies and the ops table are generated (netlink-gen.c) from
 * Documentation/netlink/specs/spray.yaml; this file holds the handlers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/uidgid.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "genl_compat.h"
#include "netlink-gen.h"
#include "netlink.h"
#include "spray.h"

/* Attribute of each enum spray_mib_field counter in a stats-get reply. */
static const u16 spray_nl_mib_attr[__SPRAY_MIB_MAX] = {
	[SPRAY_MIB_TX_PKTS]	= SPRAY_A_STATS_TX_PKTS,
	[SPRAY_MIB_TX_BYTES]	= SPRAY_A_STATS_TX_BYTES,
	[SPRAY_MIB_RETX_PKTS]	= SPRAY_A_STATS_RETX_PKTS,
	[SPRAY_MIB_RX_PKTS]	= SPRAY_A_STATS_RX_PKTS,
	[SPRAY_MIB_RX_BYTES]	= SPRAY_A_STATS_RX_BYTES,
	[SPRAY_MIB_TX_MSGS]	= SPRAY_A_STATS_TX_MSGS,
	[SPRAY_MIB_RX_MSGS]	= SPRAY_A_STATS_RX_MSGS,
	[SPRAY_MIB_MSG_FAILED]	= SPRAY_A_STATS_MSG_FAILED,
	[SPRAY_MIB_ACK_TX]	= SPRAY_A_STATS_ACK_TX,
	[SPRAY_MIB_ACK_RX]	= SPRAY_A_STATS_ACK_RX,
	[SPRAY_MIB_NACK_TX]	= SPRAY_A_STATS_NACK_TX,
	[SPRAY_MIB_NACK_RX]	= SPRAY_A_STATS_NACK_RX,
	[SPRAY_MIB_LOST_PKTS]	= SPRAY_A_STATS_LOST_PKTS,
	[SPRAY_MIB_RTO]		= SPRAY_A_STATS_RTO,
	[SPRAY_MIB_ECN_CE]	= SPRAY_A_STATS_ECN_CE,
	[SPRAY_MIB_ECN_ECHO]	= SPRAY_A_STATS_ECN_ECHO,
	[SPRAY_MIB_CONN_OPEN]	= SPRAY_A_STATS_CONN_OPEN,
	[SPRAY_MIB_CONN_CLOSE]	= SPRAY_A_STATS_CONN_CLOSE,
	[SPRAY_MIB_CONN_RESET]	= SPRAY_A_STATS_CONN_RESET,
	[SPRAY_MIB_PATH_DOWN]	= SPRAY_A_STATS_PATH_DOWN,
	[SPRAY_MIB_PATH_UP]	= SPRAY_A_STATS_PATH_UP,
	[SPRAY_MIB_RCVBUF_FULL]	= SPRAY_A_STATS_RCVBUF_FULL,
	[SPRAY_MIB_NO_SOCKET]	= SPRAY_A_STATS_NO_SOCKET,
	[SPRAY_MIB_LOST_RACK]	= SPRAY_A_STATS_LOST_RACK,
	[SPRAY_MIB_LOST_NACK]	= SPRAY_A_STATS_LOST_NACK,
	[SPRAY_MIB_LOST_RTO]	= SPRAY_A_STATS_LOST_RTO,
	[SPRAY_MIB_SPURIOUS_LOSS] = SPRAY_A_STATS_SPURIOUS_LOSS,
	[SPRAY_MIB_WINDOW_PROBES] = SPRAY_A_STATS_WINDOW_PROBES,
	[SPRAY_MIB_RX_COPIED]	= SPRAY_A_STATS_RX_COPIED,
	[SPRAY_MIB_TX_THROTTLED] = SPRAY_A_STATS_TX_THROTTLED,
	[SPRAY_MIB_ACK_CARRIED]	= SPRAY_A_STATS_ACK_CARRIED,
	[SPRAY_MIB_REFUSED_RESENT] = SPRAY_A_STATS_REFUSED_RESENT,
	[SPRAY_MIB_RESUME_TX]	= SPRAY_A_STATS_RESUME_TX,
	[SPRAY_MIB_RX_TURNS]	= SPRAY_A_STATS_RX_TURNS,
	[SPRAY_MIB_RX_TURNS_EXPIRED] = SPRAY_A_STATS_RX_TURNS_EXPIRED,
	[SPRAY_MIB_CLOSED_ACKS]	= SPRAY_A_STATS_CLOSED_ACKS,
	[SPRAY_MIB_TIMER_FIRES]	= SPRAY_A_STATS_TIMER_FIRES,
	[SPRAY_MIB_ANSWER_PROBES] = SPRAY_A_STATS_ANSWER_PROBES,
	[SPRAY_MIB_TX_TRAINS]	= SPRAY_A_STATS_TX_TRAINS,
	[SPRAY_MIB_RX_TRAINS]	= SPRAY_A_STATS_RX_TRAINS,
	[SPRAY_MIB_ICMP_ERRORS]	= SPRAY_A_STATS_ICMP_ERRORS,
	[SPRAY_MIB_PMTU_BLACKHOLES] = SPRAY_A_STATS_PMTU_BLACKHOLES,
};

#ifndef SPRAY_HAVE_SPLIT_OPS
/* One entry per command, built from the generated split ops at init. */
static struct genl_ops spray_nl_merged_ops[SPRAY_CMD_MAX] __ro_after_init;
#endif

static size_t spray_nl_addr_size(void)
{
	return nla_total_size(0) +			/* nest */
	       nla_total_size(sizeof(u16)) +		/* af */
	       nla_total_size(sizeof(struct in6_addr)) +	/* addr4/6 */
	       nla_total_size(sizeof(u32)) +		/* scope-id */
	       nla_total_size(sizeof(u16));		/* port */
}

static int spray_nl_put_addr(struct sk_buff *skb, int attr,
			     const struct spray_addr *a)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u16(skb, SPRAY_A_ADDRESS_AF, a->af))
		goto cancel;
	if (a->af == AF_INET) {
		if (nla_put_in_addr(skb, SPRAY_A_ADDRESS_ADDR4,
				    a->v6.s6_addr32[3]))
			goto cancel;
	} else {
		if (nla_put_in6_addr(skb, SPRAY_A_ADDRESS_ADDR6, &a->v6))
			goto cancel;
		if (a->scope_id &&
		    nla_put_u32(skb, SPRAY_A_ADDRESS_SCOPE_ID, a->scope_id))
			goto cancel;
	}
	if (nla_put_u16(skb, SPRAY_A_ADDRESS_PORT, a->port))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int spray_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct spray_net *sn = spray_net(genl_info_net(info));
	struct spray_config cfg;
	struct sk_buff *msg;
	void *hdr;

	mutex_lock(&sn->config_lock);
	cfg = sn->cfg;
	mutex_unlock(&sn->config_lock);

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &spray_nl_family, 0,
				SPRAY_CMD_CONFIG_GET);
	if (!hdr)
		goto nospace;
	if (nla_put_u16(msg, SPRAY_A_CONFIG_UDP_PORT, cfg.udp_port) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_NR_EVS, cfg.nr_evs) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_CC_MODE, cfg.cc_mode) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_RTO_MIN_US, cfg.rto_min_us) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_RTO_MAX_US, cfg.rto_max_us) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_RETRY_LIMIT, cfg.retry_limit) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_ACK_EVERY, cfg.ack_every) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_ACK_DELAY_US, cfg.ack_delay_us) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_MAX_MSG, cfg.max_msg) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_IDLE_TIMEOUT_MS,
			cfg.idle_timeout_ms) ||
	    nla_put_u32(msg, SPRAY_A_CONFIG_BDP_BYTES, cfg.bdp_bytes))
		goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/**
 * spray_nl_config_set_doit() - change some settings of a namespace
 * @skb: the request
 * @info: its attributes, already checked against the spec's policy
 *
 * All or nothing: the cross checks run before anything is written. A new
 * udp-port moves the namespace's UDP sockets first (a port in use leaves
 * everything unchanged); the old ones are closed after the config lock is
 * dropped, since that waits for an RCU grace period.
 *
 * Return: 0, or -EINVAL with an extack message.
 */
int spray_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct spray_net *sn = spray_net(genl_info_net(info));
	struct netlink_ext_ack *extack = info->extack;
	struct socket *old[2] = { NULL, NULL };
	struct spray_config *cfg = &sn->cfg;
	struct nlattr **tb = info->attrs;
	u32 rto_min, rto_max;
	bool any = false;
	int err = 0;
	int i;

	/* as GENL_UNS_ADMIN_PERM: the namespace's owner, not init_user_ns */
	if (!netlink_ns_capable(skb, genl_info_net(info)->user_ns,
				CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "needs CAP_NET_ADMIN over the network namespace");
		return -EPERM;
	}
	for (i = 1; i <= SPRAY_A_CONFIG_MAX; i++)
		any |= !!tb[i];
	if (!any) {
		NL_SET_ERR_MSG_MOD(extack, "no setting given");
		return -EINVAL;
	}

	mutex_lock(&sn->config_lock);
	rto_min = tb[SPRAY_A_CONFIG_RTO_MIN_US] ?
		  nla_get_u32(tb[SPRAY_A_CONFIG_RTO_MIN_US]) : cfg->rto_min_us;
	rto_max = tb[SPRAY_A_CONFIG_RTO_MAX_US] ?
		  nla_get_u32(tb[SPRAY_A_CONFIG_RTO_MAX_US]) : cfg->rto_max_us;
	if (rto_min > rto_max) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SPRAY_A_CONFIG_RTO_MIN_US] ?:
				    tb[SPRAY_A_CONFIG_RTO_MAX_US],
				    "spray: rto-min-us exceeds rto-max-us");
		err = -EINVAL;
		goto unlock;
	}

	if (tb[SPRAY_A_CONFIG_UDP_PORT]) {
		u16 port = nla_get_u16(tb[SPRAY_A_CONFIG_UDP_PORT]);

		/* the sockets move first: a port in use leaves all unchanged */
		err = spray_udp_rebind(sn, port, old);
		if (err) {
			NL_SET_ERR_MSG_ATTR(extack, tb[SPRAY_A_CONFIG_UDP_PORT],
					    "spray: cannot bind that UDP port");
			goto unlock;
		}
		WRITE_ONCE(cfg->udp_port, port);
	}
	if (tb[SPRAY_A_CONFIG_NR_EVS])
		WRITE_ONCE(cfg->nr_evs, nla_get_u32(tb[SPRAY_A_CONFIG_NR_EVS]));
	if (tb[SPRAY_A_CONFIG_CC_MODE])
		WRITE_ONCE(cfg->cc_mode,
			   nla_get_u32(tb[SPRAY_A_CONFIG_CC_MODE]));
	WRITE_ONCE(cfg->rto_min_us, rto_min);
	WRITE_ONCE(cfg->rto_max_us, rto_max);
	if (tb[SPRAY_A_CONFIG_RETRY_LIMIT])
		WRITE_ONCE(cfg->retry_limit,
			   nla_get_u32(tb[SPRAY_A_CONFIG_RETRY_LIMIT]));
	if (tb[SPRAY_A_CONFIG_ACK_EVERY])
		WRITE_ONCE(cfg->ack_every,
			   nla_get_u32(tb[SPRAY_A_CONFIG_ACK_EVERY]));
	if (tb[SPRAY_A_CONFIG_ACK_DELAY_US])
		WRITE_ONCE(cfg->ack_delay_us,
			   nla_get_u32(tb[SPRAY_A_CONFIG_ACK_DELAY_US]));
	if (tb[SPRAY_A_CONFIG_MAX_MSG])
		WRITE_ONCE(cfg->max_msg, nla_get_u32(tb[SPRAY_A_CONFIG_MAX_MSG]));
	if (tb[SPRAY_A_CONFIG_IDLE_TIMEOUT_MS])
		WRITE_ONCE(cfg->idle_timeout_ms,
			   nla_get_u32(tb[SPRAY_A_CONFIG_IDLE_TIMEOUT_MS]));
	if (tb[SPRAY_A_CONFIG_BDP_BYTES])
		WRITE_ONCE(cfg->bdp_bytes,
			   nla_get_u32(tb[SPRAY_A_CONFIG_BDP_BYTES]));
unlock:
	mutex_unlock(&sn->config_lock);
	spray_udp_release(old);
	return err;
}

static int spray_nl_put_drops(struct sk_buff *msg, const struct spray_mib *mib)
{
	struct nlattr *nest;
	unsigned int r;

	for (r = SPRAY_DROP_NONE + 1; r < __SPRAY_DROP_MAX; r++) {
		nest = nla_nest_start(msg, SPRAY_A_STATS_DROP);
		if (!nest)
			return -EMSGSIZE;
		if (nla_put_string(msg, SPRAY_A_DROP_REASON,
				   spray_drop_reason_name(r)) ||
		    nla_put_u64_64bit(msg, SPRAY_A_DROP_COUNT, mib->drops[r],
				      SPRAY_A_DROP_PAD)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(msg, nest);
	}
	return 0;
}

int spray_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct spray_net *sn = spray_net(genl_info_net(info));
	struct spray_mib *mib;
	struct sk_buff *msg;
	unsigned int i;
	int err = -ENOMEM;
	void *hdr;

	mib = kmalloc(sizeof(*mib), GFP_KERNEL);
	if (!mib)
		return -ENOMEM;
	spray_mib_read(sn, mib);

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto free_mib;
	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &spray_nl_family, 0,
				SPRAY_CMD_STATS_GET);
	if (!hdr)
		goto free_msg;
	for (i = 0; i < __SPRAY_MIB_MAX; i++)
		if (nla_put_u64_64bit(msg, spray_nl_mib_attr[i], mib->cnt[i],
				      SPRAY_A_STATS_PAD))
			goto free_msg;
	if (spray_nl_put_drops(msg, mib))
		goto free_msg;
	if (nla_put_u32(msg, SPRAY_A_STATS_BOUND_SOCKETS,
			READ_ONCE(sn->nr_bound)))
		goto free_msg;
	genlmsg_end(msg, hdr);
	kfree(mib);
	return genlmsg_reply(msg, info);

free_msg:
	nlmsg_free(msg);
free_mib:
	kfree(mib);
	return err;
}

static int spray_nl_fill_socket(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct spray_sock *ss)
{
	struct user_namespace *user_ns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	struct sock *sk = &ss->sk;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &spray_nl_family, NLM_F_MULTI, SPRAY_CMD_SOCKETS);
	if (!hdr)
		return -EMSGSIZE;
	if (spray_nl_put_addr(skb, SPRAY_A_SOCKET_LOCAL, &ss->local) ||
	    nla_put_u32(skb, SPRAY_A_SOCKET_RX_QUEUE, sk_rmem_alloc_get(sk)) ||
	    nla_put_u32(skb, SPRAY_A_SOCKET_TX_QUEUE,
			READ_ONCE(sk->sk_wmem_queued)) ||
	    nla_put_u64_64bit(skb, SPRAY_A_SOCKET_INODE, sock_i_ino(sk),
			      SPRAY_A_SOCKET_PAD) ||
	    nla_put_u32(skb, SPRAY_A_SOCKET_UID,
			from_kuid_munged(user_ns, sock_i_uid(sk)))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * spray_nl_sockets_dumpit() - list the bound sockets of a namespace
 * @skb: the message to fill
 * @cb: the dump; args[0] is the hash bucket to resume at, args[1] the number
 *	of sockets of that bucket already sent
 *
 * Sockets bound or closed between two messages of one dump may be missed or
 * listed twice, as with every netlink dump of a hash table; a stable table is
 * listed completely, over as many messages as it takes.
 *
 * Return: the length of @skb (0 ends the dump), or a negative error.
 */
int spray_nl_sockets_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct spray_net *sn = spray_net(sock_net(skb->sk));
	unsigned long bucket = cb->args[0];
	unsigned long skip = cb->args[1];
	struct spray_sock *ss;
	unsigned long idx = 0;
	int err = 0;

	rcu_read_lock();
	for (; bucket < SPRAY_PORT_HASH_SIZE; bucket++, skip = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(ss, &sn->ports[bucket], bind_node) {
			if (idx < skip) {
				idx++;
				continue;
			}
			err = spray_nl_fill_socket(skb, cb, ss);
			if (err)
				goto out;
			idx++;
		}
	}
	idx = 0;
out:
	rcu_read_unlock();
	cb->args[0] = bucket;
	cb->args[1] = idx;
	if (err && !skb->len)
		return err;	/* one socket does not fit in a message */
	return skb->len;
}

/* A dump message being filled, for the transport's walk. */
struct spray_nl_dump {
	struct sk_buff			*skb;
	struct netlink_callback		*cb;
	bool				admin;
};

static int spray_nl_fill_peer(struct spray_nl_dump *d,
			      const struct spray_peer_info *pi)
{
	struct sk_buff *skb = d->skb;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, &spray_nl_family, NLM_F_MULTI,
			  SPRAY_CMD_PEERS);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SPRAY_A_PEER_ID, pi->id) ||
	    spray_nl_put_addr(skb, SPRAY_A_PEER_LOCAL, &pi->local) ||
	    spray_nl_put_addr(skb, SPRAY_A_PEER_REMOTE, &pi->remote) ||
	    /* with the ids one can speak in the connection: admins only */
	    (d->admin &&
	     (nla_put_u32(skb, SPRAY_A_PEER_LOCAL_CID, pi->local_cid) ||
	      nla_put_u32(skb, SPRAY_A_PEER_REMOTE_CID, pi->remote_cid))) ||
	    nla_put_u32(skb, SPRAY_A_PEER_STATE, pi->state) ||
	    nla_put_u32(skb, SPRAY_A_PEER_SRTT_US, pi->srtt_us) ||
	    nla_put_u32(skb, SPRAY_A_PEER_MIN_RTT_US, pi->min_rtt_us) ||
	    nla_put_u32(skb, SPRAY_A_PEER_RTO_US, pi->rto_us) ||
	    nla_put_u32(skb, SPRAY_A_PEER_CWND, pi->cwnd) ||
	    nla_put_u32(skb, SPRAY_A_PEER_GRANT_OUTSTANDING,
			pi->grant_outstanding) ||
	    nla_put_u32(skb, SPRAY_A_PEER_IN_FLIGHT, pi->in_flight) ||
	    nla_put_u64_64bit(skb, SPRAY_A_PEER_TX_PKTS, pi->tx_pkts,
			      SPRAY_A_PEER_PAD) ||
	    nla_put_u64_64bit(skb, SPRAY_A_PEER_RETX_PKTS, pi->retx_pkts,
			      SPRAY_A_PEER_PAD) ||
	    nla_put_u64_64bit(skb, SPRAY_A_PEER_RX_PKTS, pi->rx_pkts,
			      SPRAY_A_PEER_PAD) ||
	    nla_put_u32(skb, SPRAY_A_PEER_ECN_MARKED, pi->ecn_marked_ppm) ||
	    nla_put_u32(skb, SPRAY_A_PEER_BDP, pi->bdp) ||
	    nla_put_u32(skb, SPRAY_A_PEER_RCV_BDP, pi->rcv_bdp) ||
	    nla_put_u32(skb, SPRAY_A_PEER_PKT_PAYLOAD, pi->pkt_payload)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int spray_nl_fill_path(struct spray_nl_dump *d,
			      const struct spray_path_info *pi)
{
	struct sk_buff *skb = d->skb;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, &spray_nl_family, NLM_F_MULTI,
			  SPRAY_CMD_PATHS);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SPRAY_A_PATH_PEER_ID, pi->peer_id) ||
	    nla_put_u16(skb, SPRAY_A_PATH_EV, pi->ev) ||
	    nla_put_u32(skb, SPRAY_A_PATH_STATE, pi->state) ||
	    nla_put_u64_64bit(skb, SPRAY_A_PATH_TX_PKTS, pi->tx_pkts,
			      SPRAY_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, SPRAY_A_PATH_ACKED_PKTS, pi->acked_pkts,
			      SPRAY_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, SPRAY_A_PATH_LOST_PKTS, pi->lost_pkts,
			      SPRAY_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, SPRAY_A_PATH_ECN_PKTS, pi->ecn_pkts,
			      SPRAY_A_PATH_PAD) ||
	    nla_put_u64_64bit(skb, SPRAY_A_PATH_RETX_PKTS, pi->retx_pkts,
			      SPRAY_A_PATH_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int spray_nl_emit(void *ctx, const struct spray_peer_info *pi,
			 const struct spray_path_info *ph)
{
	return pi ? spray_nl_fill_peer(ctx, pi) : spray_nl_fill_path(ctx, ph);
}

/*
 * Peers and paths: as many as fit in each message, resuming where the last
 * one stopped (spray_conn_dump() keeps its position in cb->args).
 */
static int spray_nl_conn_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb, bool paths)
{
	struct spray_nl_dump d = {
		.skb	= skb,
		.cb	= cb,
		.admin	= netlink_net_capable(cb->skb, CAP_NET_ADMIN),
	};
	int err;

	BUILD_BUG_ON(ARRAY_SIZE(cb->args) < SPRAY_DUMP_CURSOR);
	err = spray_conn_dump(sock_net(skb->sk), cb->args, paths,
			      spray_nl_emit, &d);
	if (!err || (err == -EMSGSIZE && skb->len))
		return skb->len;
	return err;	/* one entry does not fit in a message */
}

int spray_nl_peers_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return spray_nl_conn_dumpit(skb, cb, false);
}

int spray_nl_paths_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return spray_nl_conn_dumpit(skb, cb, true);
}

static void spray_nl_notify(struct net *net, u8 cmd,
			    const struct spray_addr *local,
			    const struct spray_addr *remote,
			    int attr, u32 val)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&spray_nl_family, net, SPRAY_NLGRP_EVENTS))
		return;
	msg = genlmsg_new(2 * spray_nl_addr_size() + nla_total_size(sizeof(u32)),
			  GFP_ATOMIC);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &spray_nl_family, 0, cmd);
	if (!hdr)
		goto free;
	if (spray_nl_put_addr(msg, SPRAY_A_EVENT_LOCAL, local) ||
	    spray_nl_put_addr(msg, SPRAY_A_EVENT_REMOTE, remote))
		goto free;
	if (attr == SPRAY_A_EVENT_EV ? nla_put_u16(msg, attr, val) :
				       nla_put_u32(msg, attr, val))
		goto free;
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&spray_nl_family, net, msg, 0,
				SPRAY_NLGRP_EVENTS, GFP_ATOMIC);
	return;

free:
	nlmsg_free(msg);
}

/**
 * spray_nl_notify_path() - tell the events group a path went down or up
 * @net: the namespace of the peer
 * @local: local address of the connection
 * @remote: the peer's address
 * @ev: the entropy value (UDP source port) of the path
 * @up: true for path-up, false for path-down
 *
 * Any context (GFP_ATOMIC); nothing is built without a listener.
 */
void spray_nl_notify_path(struct net *net, const struct spray_addr *local,
			  const struct spray_addr *remote, u16 ev, bool up)
{
	spray_nl_notify(net, up ? SPRAY_CMD_PATH_UP : SPRAY_CMD_PATH_DOWN,
			local, remote, SPRAY_A_EVENT_EV, ev);
}

/**
 * spray_nl_notify_unreachable() - tell the events group a peer is unreachable
 * @net: the namespace of the peer
 * @local: local address of the connection
 * @remote: the peer's address
 * @err: why, a negative errno (-ETIMEDOUT, -EHOSTUNREACH...)
 *
 * Any context (GFP_ATOMIC); nothing is built without a listener.
 */
void spray_nl_notify_unreachable(struct net *net,
				 const struct spray_addr *local,
				 const struct spray_addr *remote, int err)
{
	spray_nl_notify(net, SPRAY_CMD_PEER_UNREACHABLE, local, remote,
			SPRAY_A_EVENT_ERROR, err < 0 ? -err : err);
}

/**
 * spray_netlink_init() - register the "spray" generic netlink family
 *
 * Return: 0 or the error of genl_register_family().
 */
int spray_netlink_init(void)
{
	unsigned int __maybe_unused n;
	unsigned int i;

	BUILD_BUG_ON((int)SPRAY_NL_CC_MODE_OFF != (int)SPRAY_CC_OFF ||
		     (int)SPRAY_NL_CC_MODE_SENDER != (int)SPRAY_CC_SENDER ||
		     (int)SPRAY_NL_CC_MODE_RECEIVER != (int)SPRAY_CC_RECEIVER ||
		     (int)SPRAY_NL_CC_MODE_BOTH != (int)SPRAY_CC_BOTH);
	BUILD_BUG_ON(SPRAY_CFG_MAX_EVS != SPRAY_MAX_EVS);
	BUILD_BUG_ON(SPRAY_CFG_MAX_MSG != SPRAY_MAX_MSG);
	/* A counter added to enum spray_mib_field needs an attribute. */
	for (i = 0; i < __SPRAY_MIB_MAX; i++)
		if (WARN_ON_ONCE(!spray_nl_mib_attr[i]))
			return -EINVAL;

#ifndef SPRAY_HAVE_SPLIT_OPS
	/* The generated table, rendered as genl_ops: see genl_compat.h. */
	n = spray_genl_merge_ops(spray_nl_merged_ops,
				 ARRAY_SIZE(spray_nl_merged_ops),
				 spray_nl_family.ops, spray_nl_family.n_ops);
	if (WARN_ON_ONCE(!n))
		return -EINVAL;
	spray_nl_family.ops = spray_nl_merged_ops;
	spray_nl_family.n_ops = n;
#endif
	return genl_register_family(&spray_nl_family);
}

void spray_netlink_exit(void)
{
	genl_unregister_family(&spray_nl_family);
}

MODULE_ALIAS_GENL_FAMILY(SPRAY_FAMILY_NAME);

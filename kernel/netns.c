// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY per network namespace state: the spray port table.
 */
#include <linux/random.h>
#include <net/ip.h>
#include <net/netns/generic.h>
#include <net/ipv6.h>

#include "spray.h"

/* NACKs to packets that no connection expects, per source address */
#define SPRAY_NACK_RATE		20	/* a second */
#define SPRAY_NACK_BURST	20

static unsigned int spray_net_id __read_mostly;

struct spray_net *spray_net(const struct net *net)
{
	return net_generic(net, spray_net_id);
}

static struct hlist_head *spray_port_head(struct spray_net *sn, u16 port)
{
	return &sn->ports[hash_32(port, SPRAY_PORT_HASH_BITS)];
}

/*
 * Two bindings of one port conflict when their addresses overlap: equal, or
 * one of them a wildcard that covers the other's family. The IPv6 wildcard
 * covers IPv4 too (see struct sockaddr_spray).
 */
static bool spray_addr_overlap(const struct spray_addr *a,
			       const struct spray_addr *b)
{
	bool a_any = spray_addr_is_any(a);
	bool b_any = spray_addr_is_any(b);

	if (a_any && b_any)
		return a->af == b->af || a->af == AF_INET6 ||
		       b->af == AF_INET6;
	if (a_any)
		return a->af == AF_INET6 || b->af == AF_INET;
	if (b_any)
		return b->af == AF_INET6 || a->af == AF_INET;
	return a->af == b->af && ipv6_addr_equal(&a->v6, &b->v6) &&
	       a->scope_id == b->scope_id;
}

static bool spray_port_conflict(struct spray_net *sn,
				const struct spray_addr *addr, u16 port)
{
	struct spray_sock *other;

	hlist_for_each_entry(other, spray_port_head(sn, port), bind_node)
		if (other->local.port == port &&
		    spray_addr_overlap(&other->local, addr))
			return true;
	return false;
}

/**
 * spray_port_bind() - hash a socket under its spray port
 * @sn: the namespace
 * @ss: the socket, not yet bound
 * @addr: the address; port 0 picks a free port from the namespace's
 *	ip_local_port_range, starting at a random offset
 *
 * Return: 0, or -EADDRINUSE if the port (or every ephemeral port) is taken.
 */
int spray_port_bind(struct spray_net *sn, struct spray_sock *ss,
		    const struct spray_addr *addr)
{
	struct spray_addr local = *addr;
	u32 range, off, i;
	int low, high;
	int err = 0;

	spin_lock_bh(&sn->port_lock);
	if (local.port) {
		if (spray_port_conflict(sn, &local, local.port))
			err = -EADDRINUSE;
	} else {
		inet_get_local_port_range(sock_net(&ss->sk), &low, &high);
		range = high - low + 1;
		off = get_random_u32_below(range);
		err = -EADDRINUSE;
		for (i = 0; i < range; i++) {
			u16 port = low + (off + i) % range;

			if (!spray_port_conflict(sn, &local, port)) {
				local.port = port;
				err = 0;
				break;
			}
		}
	}
	if (!err) {
		ss->local = local;
		ss->bound = true;
		sn->nr_bound++;
		hlist_add_head_rcu(&ss->bind_node,
				   spray_port_head(sn, local.port));
	}
	spin_unlock_bh(&sn->port_lock);
	return err;
}

/**
 * spray_sock_lookup_rcu() - the socket a packet is for
 * @sn: the namespace
 * @port: destination spray port
 * @daddr: destination address of the packet
 *
 * Caller holds rcu_read_lock(); the socket stays valid until it is released
 * (SOCK_RCU_FREE) but may be closing: check &spray_sock.dead under its lock.
 *
 * Return: the socket bound to @port whose address covers @daddr, or NULL.
 */
struct spray_sock *spray_sock_lookup_rcu(struct spray_net *sn, u16 port,
					 const struct spray_addr *daddr)
{
	struct spray_sock *ss;

	hlist_for_each_entry_rcu(ss, spray_port_head(sn, port), bind_node) {
		if (ss->local.port != port)
			continue;
		if (spray_addr_is_any(&ss->local)) {
			if (ss->local.af == AF_INET6 || daddr->af == AF_INET)
				return ss;
		} else if (ipv6_addr_equal(&ss->local.v6, &daddr->v6)) {
			return ss;
		}
	}
	return NULL;
}

/**
 * spray_port_unbind() - remove a socket from the port table
 * @sn: the namespace
 * @ss: the socket; nothing happens if it is not bound
 *
 * Readers walk the table under RCU: the socket is freed after a grace period
 * (SOCK_RCU_FREE), so it stays valid for them.
 */
void spray_port_unbind(struct spray_net *sn, struct spray_sock *ss)
{
	spin_lock_bh(&sn->port_lock);
	if (ss->bound) {
		hlist_del_init_rcu(&ss->bind_node);
		ss->bound = false;
		sn->nr_bound--;
	}
	spin_unlock_bh(&sn->port_lock);
}

/**
 * spray_mib_read() - sum a namespace's per cpu counters
 * @sn: the namespace
 * @out: the sums
 */
void spray_mib_read(struct spray_net *sn, struct spray_mib *out)
{
	unsigned int i;
	int cpu;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct spray_mib *m = per_cpu_ptr(sn->mib, cpu);

		for (i = 0; i < __SPRAY_MIB_MAX; i++)
			out->cnt[i] += READ_ONCE(m->cnt[i]);
		for (i = 0; i < __SPRAY_DROP_MAX; i++)
			out->drops[i] += READ_ONCE(m->drops[i]);
	}
}

static void spray_config_default(struct spray_config *cfg)
{
	cfg->udp_port = SPRAY_DEFAULT_UDP_PORT;
	cfg->nr_evs = 256;
	cfg->cc_mode = SPRAY_CC_BOTH;
	cfg->rto_min_us = 1000;
	cfg->rto_max_us = 200000;
	cfg->retry_limit = 15;
	cfg->ack_every = 8;
	cfg->ack_delay_us = 50;
	cfg->max_msg = SPRAY_MAX_MSG;
	cfg->idle_timeout_ms = 30000;
	cfg->bdp_bytes = SPRAY_DEFAULT_BDP_CAP;
}

static int __net_init spray_net_init(struct net *net)
{
	struct spray_net *sn = spray_net(net);
	unsigned int i;

	sn->net = net;
	mutex_init(&sn->udp_lock);
	spin_lock_init(&sn->port_lock);
	for (i = 0; i < SPRAY_PORT_HASH_SIZE; i++)
		INIT_HLIST_HEAD(&sn->ports[i]);
	mutex_init(&sn->config_lock);
	spray_config_default(&sn->cfg);
	spin_lock_init(&sn->nack_rl_lock);
	/* as the kernel's ICMP limits: a few answers a second per source */
	spray_rl_init(&sn->nack_rl, SPRAY_NACK_RATE, SPRAY_NACK_BURST,
		      get_random_u32());
	spray_tw_init(sn);
	sn->mib = alloc_percpu(struct spray_mib);
	if (!sn->mib)
		return -ENOMEM;
	return 0;
}

static void __net_exit spray_net_exit(struct net *net)
{
	struct spray_net *sn = spray_net(net);

	/*
	 * Sockets hold a reference on their namespace: only orphans (closed,
	 * still delivering, spray_sock_orphan()) can be bound; they end here.
	 */
	spray_net_kill_orphans(sn);
	WARN_ON_ONCE(sn->nr_bound);
	/* ... nor have connections: their count must be back to zero */
	WARN_ON_ONCE(atomic_read(&sn->nconns));
	spray_udp_put_all(sn);
	spray_tw_exit(sn);
	free_percpu(sn->mib);
}

static struct pernet_operations spray_net_ops = {
	.init = spray_net_init,
	.exit = spray_net_exit,
	.id   = &spray_net_id,
	.size = sizeof(struct spray_net),
};

int spray_netns_init(void)
{
	return register_pernet_subsys(&spray_net_ops);
}

void spray_netns_exit(void)
{
	unregister_pernet_subsys(&spray_net_ops);
}

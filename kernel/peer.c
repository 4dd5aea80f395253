// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY: peers (connections) and paths (entropy values) of a namespace,
 * walked for the netlink dumps.
 */
#include "conn.h"
#include "netlink.h"

/*
 * Visit the connections of a namespace in a stable order (port table
 * bucket, socket, connection bucket, connection) and stop at the one whose
 * number is @want, under its socket's lock. fn returns true when it filled
 * its output. Dumps resume by number: a connection opened or closed
 * between two dump messages may be missed or shown twice, as with any
 * netlink dump of a changing table.
 */
static int spray_conn_walk(struct net *net, unsigned long *pos,
			   bool (*fn)(struct spray_conn *c, unsigned long *k,
				      void *out),
			   void *out)
{
	struct spray_net *sn = spray_net(net);
	unsigned long k = 0;
	struct spray_sock *ss;
	struct spray_conn *c;
	unsigned int b, i;
	bool found = false;

	rcu_read_lock();
	for (b = 0; b < SPRAY_PORT_HASH_SIZE && !found; b++) {
		hlist_for_each_entry_rcu(ss, &sn->ports[b], bind_node) {
			spin_lock_bh(&ss->lock);
			for (i = 0; i < ARRAY_SIZE(ss->conns) && !ss->dead &&
			     !found; i++) {
				hlist_for_each_entry(c, &ss->conns[i], node) {
					if (fn(c, &k, out) && k > *pos) {
						found = true;
						break;
					}
				}
			}
			spin_unlock_bh(&ss->lock);
			if (found)
				break;
		}
	}
	rcu_read_unlock();
	if (!found)
		return -ENOENT;
	*pos = k;
	return 0;
}

struct spray_peer_walk_ctx {
	unsigned long		want;
	struct spray_peer_info	*pi;
};

static bool spray_peer_fill(struct spray_conn *c, unsigned long *k, void *out)
{
	struct spray_peer_walk_ctx *w = out;
	struct spray_peer_info *pi = w->pi;

	if ((*k)++ != w->want)
		return false;
	memset(pi, 0, sizeof(*pi));
	pi->id = c->id;
	spray_conn_local_addr(c, &pi->local);
	pi->remote = c->remote;
	pi->remote_cid = c->peer_cid;
	pi->rx_pkts = c->stat_rx;
	if (c->peer_cid)
		pi->grant_outstanding = c->rcc.grant - c->rx.cum;
	pi->state = SPRAY_NL_PEER_STATE_IDLE;
	if (c->tx_ready) {
		pi->local_cid = c->local_cid;
		pi->srtt_us = c->tw.srtt_ns / NSEC_PER_USEC;
		pi->min_rtt_us = c->tw.min_rtt_ns / NSEC_PER_USEC;
		pi->rto_us = c->tw.rto_ns / NSEC_PER_USEC;
		pi->cwnd = c->nscc.cwnd;
		pi->in_flight = c->tw.inflight;
		pi->tx_pkts = c->stat_tx;
		pi->retx_pkts = c->stat_retx;
		if (c->tw.acked)
			pi->ecn_marked_ppm = div64_u64(c->stat_ecn * 1000000,
						       c->tw.acked);
		if (!list_empty(&c->tmsgs))
			pi->state = SPRAY_NL_PEER_STATE_ACTIVE;
		if (c->path.n_down == c->path.cfg.n)
			pi->state = SPRAY_NL_PEER_STATE_UNREACHABLE;
	}
	if (!list_empty(&c->rmsgs))
		pi->state = SPRAY_NL_PEER_STATE_ACTIVE;
	return true;
}

/**
 * spray_peer_walk() - the next connection of a namespace, for a dump
 * @net: the namespace
 * @pos: 0 to start; advanced past the connection returned
 * @pi: filled
 *
 * Return: 0, or -ENOENT after the last one.
 */
int spray_peer_walk(struct net *net, unsigned long *pos,
		    struct spray_peer_info *pi)
{
	struct spray_peer_walk_ctx w = { .want = *pos, .pi = pi };

	return spray_conn_walk(net, pos, spray_peer_fill, &w);
}

struct spray_path_walk_ctx {
	unsigned long		want;
	struct spray_path_info	*pi;
};

/* Each connection that sends counts once per entropy value. */
static bool spray_path_fill(struct spray_conn *c, unsigned long *k, void *out)
{
	struct spray_path_walk_ctx *w = out;
	struct spray_path_info *pi = w->pi;
	const struct spray_ev *ev;
	unsigned long idx;

	if (!c->tx_ready)
		return false;
	if (w->want >= *k + c->path.cfg.n) {
		*k += c->path.cfg.n;
		return false;
	}
	idx = w->want - *k;
	*k = w->want + 1;
	ev = &c->evs[idx];
	memset(pi, 0, sizeof(*pi));
	pi->peer_id = c->id;
	pi->ev = ev->port;
	switch (ev->state) {
	case SPRAY_EV_AVOIDED:
		pi->state = SPRAY_NL_PATH_STATE_AVOIDED;
		break;
	case SPRAY_EV_DOWN:
		pi->state = SPRAY_NL_PATH_STATE_DOWN;
		break;
	default:
		pi->state = SPRAY_NL_PATH_STATE_UP;
	}
	pi->tx_pkts = ev->tx;
	pi->acked_pkts = ev->acked;
	pi->lost_pkts = ev->lost;
	pi->ecn_pkts = ev->ecn;
	pi->retx_pkts = ev->retx;
	return true;
}

/**
 * spray_path_walk() - the next entropy value of a namespace, for a dump
 * @net: the namespace
 * @pos: 0 to start; advanced past the one returned
 * @pi: filled
 *
 * Return: 0, or -ENOENT after the last one.
 */
int spray_path_walk(struct net *net, unsigned long *pos,
		    struct spray_path_info *pi)
{
	struct spray_path_walk_ctx w = { .want = *pos, .pi = pi };

	return spray_conn_walk(net, pos, spray_path_fill, &w);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY: peers (connections) and paths (entropy values) of a namespace,
 * walked for the netlink dumps.
 */
#include "conn.h"
#include "netlink.h"

/*
 * The walk's position, kept in the dump between its messages: port table
 * bucket, sockets of it done, connection bucket of that socket,
 * connections of it done, entries of that connection done (its entropy
 * values, for paths). Each message resumes where the last one stopped,
 * skipping only within one hash chain: a dump costs O(connections), not
 * O(connections^2). A connection opened or closed between two messages may
 * be missed or shown twice, as with any netlink dump of a changing table.
 */
enum { W_BUCKET, W_SOCK, W_CBUCKET, W_CONN, W_SUB, __W_MAX };

static void spray_peer_fill(const struct spray_conn *c,
			    struct spray_peer_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->id = c->id;
	spray_conn_local_addr(c, &pi->local);
	pi->remote = c->remote;
	pi->remote_cid = c->peer_cid;
	pi->rx_pkts = c->stat_rx;
	if (c->peer_cid) {
		pi->grant_outstanding = c->rcc.grant - c->rx.cum;
		pi->rcv_bdp = spray_rcc_bdp(&c->ss->rcc, &c->rcc, &c->cc);
	}
	pi->state = SPRAY_NL_PEER_STATE_IDLE;
	if (c->tx_ready) {
		pi->local_cid = c->local_cid;
		pi->srtt_us = c->tw.srtt_ns / NSEC_PER_USEC;
		pi->min_rtt_us = c->tw.min_rtt_ns / NSEC_PER_USEC;
		pi->rto_us = c->tw.rto_ns / NSEC_PER_USEC;
		pi->cwnd = c->nscc.cwnd;
		pi->bdp = c->nscc.bdp;
		pi->pkt_payload = c->frag_size;
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
}

static void spray_path_fill(const struct spray_conn *c, unsigned long idx,
			    struct spray_path_info *pi)
{
	const struct spray_ev *ev = &c->evs[idx];

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
}

/*
 * Emit the entries of one connection from *@sub on: its peer (one entry)
 * or its entropy values (paths, for a connection that sends). Return: 0
 * when all went, else what @emit returned (*@sub names the entry that did
 * not go).
 */
static int spray_conn_emit(const struct spray_conn *c, bool paths,
			   unsigned long *sub, spray_nl_emit_t emit, void *ctx)
{
	struct spray_peer_info pi;
	struct spray_path_info ph;
	int err;

	if (!paths) {
		if (*sub)
			return 0;
		spray_peer_fill(c, &pi);
		return emit(ctx, &pi, NULL);
	}
	if (!c->tx_ready)
		return 0;
	for (; *sub < c->path.cfg.n; (*sub)++) {
		spray_path_fill(c, *sub, &ph);
		err = emit(ctx, NULL, &ph);
		if (err)
			return err;
	}
	return 0;
}

/**
 * spray_conn_dump() - emit the peers or paths of a namespace, resumably
 * @net: the namespace
 * @cur: the dump's position (__W_MAX words, zero at the start)
 * @paths: paths (entropy values) instead of peers
 * @emit: called per entry under the connection's socket lock (BH off); a
 *	non-zero return stops the walk there, the entry to be emitted again
 *	by the next call
 * @ctx: for @emit
 *
 * Return: 0 at the end of the table, else what @emit returned.
 */
int spray_conn_dump(struct net *net, unsigned long *cur, bool paths,
		    spray_nl_emit_t emit, void *ctx)
{
	struct spray_net *sn = spray_net(net);
	unsigned long si, cj;
	struct spray_sock *ss;
	struct spray_conn *c;
	int err = 0;

	BUILD_BUG_ON(__W_MAX != SPRAY_DUMP_CURSOR);
	rcu_read_lock();
	for (; cur[W_BUCKET] < SPRAY_PORT_HASH_SIZE; cur[W_BUCKET]++) {
		si = 0;
		hlist_for_each_entry_rcu(ss, &sn->ports[cur[W_BUCKET]],
					 bind_node) {
			if (si++ < cur[W_SOCK])
				continue;
			spin_lock_bh(&ss->lock);
			for (; !ss->dead && cur[W_CBUCKET] < ARRAY_SIZE(ss->conns);
			     cur[W_CBUCKET]++) {
				cj = 0;
				hlist_for_each_entry(c, &ss->conns[cur[W_CBUCKET]],
						     node) {
					if (cj++ < cur[W_CONN])
						continue;
					err = spray_conn_emit(c, paths,
							      &cur[W_SUB],
							      emit, ctx);
					if (err)
						break;
					cur[W_SUB] = 0;
					cur[W_CONN]++;
				}
				if (err)
					break;
				cur[W_CONN] = 0;
			}
			spin_unlock_bh(&ss->lock);
			if (err)
				goto out;
			cur[W_CBUCKET] = 0;
			cur[W_SOCK]++;
		}
		cur[W_SOCK] = 0;
	}
out:
	rcu_read_unlock();
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY: what a namespace remembers of a closed socket's connections,
 * TCP's TIME-WAIT for a receiver.
 *
 * close() acknowledges what arrived, but that ACK can be lost like any
 * other. The sender then resends a packet the receiver had, into a closed
 * socket: answered with NACK NO_CONN, the message it belonged to would fail
 * with ECONNREFUSED although it was received. So each connection that was
 * receiving leaves a small record behind (addresses, connection ids and
 * its cumulative ACK) for the namespace's idle-timeout-ms, the time an
 * open socket would keep an idle connection: a DATA packet below that ACK
 * is answered with it, once the socket is gone (or while it lingers to
 * finish sending, or when a new socket on the port does not know the
 * sender). A packet at or above it still gets NO_CONN: its message did
 * not arrive whole, and fails.
 *
 * The records are a leaf of the locking (taken under a socket's lock or
 * none), bounded per namespace (the oldest goes first) and dropped when
 * they expire, at the next insertion or lookup: no timer.
 */
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/slab.h>

#include "conn.h"

/**
 * struct spray_tw - a closed connection's receiving half, remembered
 * @hnode: in &spray_net.closed_hash
 * @lnode: in &spray_net.closed_list, oldest first
 * @remote: the sender's address and port
 * @local: the address it sent to
 * @lport: the spray port it sent to
 * @peer_cid: the sender's incarnation (its DATA's src_cid)
 * @ack_cid: ours, as our ACKs carried it
 * @cum: every psn before this one arrived
 * @expires_ns: forgotten after this
 */
struct spray_tw {
	struct hlist_node	hnode;
	struct list_head	lnode;
	struct spray_addr	remote;
	struct in6_addr		local;
	u16			lport;
	u32			peer_cid;
	u32			ack_cid;
	u32			cum;
	u64			expires_ns;
};

static u32 spray_tw_hash(const struct spray_addr *remote, u16 lport)
{
	return hash_32(ipv6_addr_hash(&remote->v6) ^ remote->port ^
		       (u32)lport << 16, SPRAY_TW_HASH_BITS);
}

static void spray_tw_free(struct spray_net *sn, struct spray_tw *tw)
{
	lockdep_assert_held(&sn->closed_lock);
	hlist_del(&tw->hnode);
	list_del(&tw->lnode);
	sn->nr_closed--;
	kfree(tw);
}

/* Forget the expired records, and the oldest while more than @keep. */
static void spray_tw_gc(struct spray_net *sn, u64 now, unsigned int keep)
{
	struct spray_tw *tw, *tmp;

	lockdep_assert_held(&sn->closed_lock);
	list_for_each_entry_safe(tw, tmp, &sn->closed_list, lnode) {
		if (sn->nr_closed <= keep && (s64)(now - tw->expires_ns) < 0)
			break;
		spray_tw_free(sn, tw);
	}
}

static struct spray_tw *spray_tw_find(struct spray_net *sn,
				      const struct spray_addr *remote,
				      const struct in6_addr *local, u16 lport,
				      u32 peer_cid)
{
	struct spray_tw *tw;

	lockdep_assert_held(&sn->closed_lock);
	hlist_for_each_entry(tw, &sn->closed_hash[spray_tw_hash(remote, lport)],
			     hnode) {
		if (tw->peer_cid == peer_cid && tw->lport == lport &&
		    tw->remote.port == remote->port &&
		    ipv6_addr_equal(&tw->remote.v6, &remote->v6) &&
		    ipv6_addr_equal(&tw->local, local))
			return tw;
	}
	return NULL;
}

/**
 * spray_tw_add() - remember a connection whose socket stops receiving
 * @c: the connection, its receiving half still whole
 * @now: ktime_get_ns()
 *
 * Called under the socket's lock, before the receiving half is freed. A
 * connection that received nothing of its current incarnation leaves
 * nothing; without memory the record is not kept (a late resend then
 * fails its message, as it did before these records).
 */
void spray_tw_add(struct spray_conn *c, u64 now)
{
	struct spray_net *sn = spray_conn_net(c);
	u32 ms = READ_ONCE(sn->cfg.idle_timeout_ms);
	struct spray_tw *tw, *old;

	lockdep_assert_held(&c->ss->lock);
	if (!c->peer_cid || !c->ss->bound)
		return;
	tw = kmalloc(sizeof(*tw), GFP_ATOMIC);
	if (!tw)
		return;
	tw->remote = c->remote;
	tw->local = c->saddr;
	tw->lport = c->ss->local.port;
	tw->peer_cid = c->peer_cid;
	tw->ack_cid = c->ack_cid;
	tw->cum = c->rx.cum;
	tw->expires_ns = now + (u64)ms * NSEC_PER_MSEC;

	spin_lock_bh(&sn->closed_lock);
	spray_tw_gc(sn, now, SPRAY_TW_MAX - 1);
	old = spray_tw_find(sn, &tw->remote, &tw->local, tw->lport,
			    tw->peer_cid);
	if (old)
		spray_tw_free(sn, old);
	hlist_add_head(&tw->hnode,
		       &sn->closed_hash[spray_tw_hash(&tw->remote, tw->lport)]);
	list_add_tail(&tw->lnode, &sn->closed_list);
	sn->nr_closed++;
	spin_unlock_bh(&sn->closed_lock);
}

/**
 * spray_tw_answer() - answer a DATA packet no open connection takes
 * @sn: the namespace it arrived in
 * @p: the packet
 * @peer: its source (address and spray port)
 * @to: the address it was sent to
 * @now: ktime_get_ns()
 * @q: where the answer goes
 *
 * If @p is of a connection a closed socket remembers and its psn arrived
 * before the close, queue that connection's last ACK on @q (at most a few a
 * second per source, as the NACKs of spray_nack_skb()).
 *
 * Return: true if @p was such a packet (answered or rate-limited): the
 * caller sends no NACK NO_CONN for it.
 */
bool spray_tw_answer(struct spray_net *sn, const struct spray_pkt *p,
		     const struct spray_addr *peer,
		     const struct spray_addr *to, u64 now,
		     struct sk_buff_head *q)
{
	struct spray_tw *tw;
	struct sk_buff *skb;
	u32 ack_cid, cum;

	if (p->type != SPRAY_T_DATA || !READ_ONCE(sn->nr_closed))
		return false;
	spin_lock_bh(&sn->closed_lock);
	spray_tw_gc(sn, now, SPRAY_TW_MAX);
	tw = spray_tw_find(sn, peer, &to->v6, p->dport, p->src_cid);
	if (!tw || (p->dst_cid && p->dst_cid != tw->ack_cid) ||
	    !spray_psn_before(p->psn, tw->cum)) {
		spin_unlock_bh(&sn->closed_lock);
		return false;
	}
	ack_cid = tw->ack_cid;
	cum = tw->cum;
	spin_unlock_bh(&sn->closed_lock);

	if (!spray_nack_allowed(sn, peer, now))
		return true;
	skb = spray_closed_ack_skb(peer, &to->v6, p, ack_cid, cum);
	if (skb) {
		__skb_queue_tail(q, skb);
		spray_mib_inc(sn, SPRAY_MIB_CLOSED_ACKS);
	}
	return true;
}

/* A new namespace remembers nothing. */
void spray_tw_init(struct spray_net *sn)
{
	unsigned int i;

	spin_lock_init(&sn->closed_lock);
	INIT_LIST_HEAD(&sn->closed_list);
	for (i = 0; i < ARRAY_SIZE(sn->closed_hash); i++)
		INIT_HLIST_HEAD(&sn->closed_hash[i]);
	sn->nr_closed = 0;
}

/* The namespace goes: forget everything. */
void spray_tw_exit(struct spray_net *sn)
{
	spin_lock_bh(&sn->closed_lock);
	spray_tw_gc(sn, 0, 0);
	spin_unlock_bh(&sn->closed_lock);
}

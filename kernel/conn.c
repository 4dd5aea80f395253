// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY connections: sending and receiving messages with the protocol
 * core (txwin, rxwin, path, cc) under one lock per socket.
 *
 * A connection is one socket's state for one peer socket (address + spray
 * port) and one local address. It has two independent halves:
 *  - sending: our incarnation (local_cid), its send window, the entropy
 *    values (paths) and the congestion window;
 *  - receiving: the peer's incarnation (peer_cid), its receive window,
 *    receiver credit and the messages being reassembled.
 * Everything runs under spray_sock.lock with BH off; packets are built under
 * the lock into a queue and transmitted after it is released.
 *
 * Memory: what messages hold is charged to the socket (sk_wmem_queued for
 * messages being sent, sk_rmem_alloc for messages received and errors) and
 * through the protocol's memory accounting to the socket's memory cgroup
 * (sk_wmem_schedule(), sk_rmem_schedule()), all under spray_sock.lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errqueue.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/udp.h>

#include "conn.h"
#include "netlink.h"

/* room in front of our header for UDP, IP and the link layer */
#define SPRAY_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			 sizeof(struct udphdr))

static void spray_conn_arm(struct spray_conn *c, u64 now);
static void spray_conn_free_work(struct work_struct *work);
static void spray_sock_linger_work(struct work_struct *work);

/* frees idle connections and orphans: process context, flushed at exit */
static struct workqueue_struct *spray_wq;

static u32 spray_addr_hash(const struct spray_addr *a)
{
	return hash_32(ipv6_addr_hash(&a->v6) ^ a->port, SPRAY_CONN_HASH_BITS);
}

static bool spray_addr_eq(const struct spray_addr *a,
			  const struct spray_addr *b)
{
	return a->port == b->port && ipv6_addr_equal(&a->v6, &b->v6);
}

/*
 * The connection to @remote over our address @local; with @local NULL, the
 * one a new message to @remote goes on: one that sends already, else one
 * the peer opened (we answer from the address it used).
 */
static struct spray_conn *spray_conn_find(struct spray_sock *ss,
					  const struct spray_addr *remote,
					  const struct in6_addr *local)
{
	struct spray_conn *c, *any = NULL;

	hlist_for_each_entry(c, &ss->conns[spray_addr_hash(remote)], node) {
		if (!spray_addr_eq(&c->remote, remote))
			continue;
		if (local) {
			if (ipv6_addr_equal(&c->saddr, local))
				return c;
		} else if (c->tx_ready) {
			return c;
		} else if (!any) {
			any = c;
		}
	}
	return any;
}

static u32 spray_new_cid(void)
{
	u32 cid;

	do {
		cid = get_random_u32();
	} while (!cid);
	return cid;
}

static struct spray_net *spray_conn_net(const struct spray_conn *c)
{
	return spray_net(sock_net(&c->ss->sk));
}

static enum hrtimer_restart spray_conn_timer(struct hrtimer *t);

/*
 * Congestion control settings of a connection: the socket's mode, the
 * namespace's bdp-bytes; @mtu the payload of a full packet (0: not known
 * yet, the default until the sending half is set up).
 */
static void spray_conn_cc_init(struct spray_conn *c, u32 mtu)
{
	struct spray_net *sn = spray_net(sock_net(&c->ss->sk));
	struct spray_cc_cfg *cc = &c->cc;

	spray_cc_cfg_default(cc);
	cc->mode = READ_ONCE(c->ss->cc_mode);
	cc->bdp_bytes = READ_ONCE(sn->cfg.bdp_bytes);
	if (mtu)
		cc->mtu = mtu;
	/* derived from mtu and bdp_bytes by the check */
	cc->min_cwnd = 0;
	cc->max_cwnd = 0;
	cc->init_cwnd = 0;
	cc->rcv_bdp_bytes = 0;
	if (spray_cc_cfg_check(cc))
		spray_cc_cfg_default(cc);
}

/* A connection with its receiving half idle; GFP_ATOMIC from softirq. */
static struct spray_conn *spray_conn_alloc(struct spray_sock *ss,
					   const struct spray_addr *remote,
					   gfp_t gfp)
{
	struct spray_conn *c;

	c = kzalloc(sizeof(*c), gfp);
	if (!c)
		return NULL;
	c->ss = ss;
	c->remote = *remote;
	INIT_LIST_HEAD(&c->tmsgs);
	INIT_LIST_HEAD(&c->rmsgs);
	INIT_LIST_HEAD(&c->rdone);
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	c->timer.function = spray_conn_timer;
	INIT_WORK(&c->free_work, spray_conn_free_work);
	c->last_active_ns = ktime_get_ns();
	spray_conn_cc_init(c, 0);
	return c;
}

static void spray_conn_insert(struct spray_sock *ss, struct spray_conn *c)
{
	hlist_add_head(&c->node, &ss->conns[spray_addr_hash(&c->remote)]);
	ss->nconns++;
	atomic_inc(&spray_conn_net(c)->nconns);
	c->id = atomic_inc_return(&spray_conn_net(c)->next_conn_id);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_CONN_OPEN);
}

/* ---- memory ---- */

/*
 * Charges, under spray_sock.lock: the socket's queue (sk_wmem_queued or
 * sk_rmem_alloc, against SO_SNDBUF and SO_RCVBUF) and the protocol's
 * memory accounting (global limits, the socket's memory cgroup).
 */
static bool spray_wmem_charge(struct sock *sk, u32 size)
{
	if (!sk_wmem_schedule(sk, size))
		return false;
	sk_mem_charge(sk, size);
	WRITE_ONCE(sk->sk_wmem_queued, sk->sk_wmem_queued + size);
	return true;
}

static void spray_wmem_uncharge(struct sock *sk, u32 size)
{
	WRITE_ONCE(sk->sk_wmem_queued, sk->sk_wmem_queued - size);
	sk_mem_uncharge(sk, size);
}

static bool spray_rmem_charge(struct sock *sk, u32 size)
{
	if (!__sk_rmem_schedule(sk, size, false))
		return false;
	sk_mem_charge(sk, size);
	atomic_add(size, &sk->sk_rmem_alloc);
	return true;
}

static void spray_rmem_uncharge(struct sock *sk, u32 size)
{
	atomic_sub(size, &sk->sk_rmem_alloc);
	sk_mem_uncharge(sk, size);
}

/* What a message being sent holds: its record and its data (kvmalloc). */
static u32 spray_tmsg_charge(u32 len)
{
	u32 data = len <= PAGE_SIZE ? kmalloc_size_roundup(len) :
				      PAGE_ALIGN(len);

	return kmalloc_size_roundup(sizeof(struct spray_tmsg)) + data;
}

/* An error queue entry whose data did not fit the receive buffer. */
static u32 spray_tmsg_charge_nodata(void)
{
	return kmalloc_size_roundup(sizeof(struct spray_tmsg));
}

/*
 * What a message being received holds: its pages, reserved when it is
 * admitted (allocated as the fragments arrive, so that an admitted message
 * always completes), and its record, page array and fragment bitmap. A
 * 1-byte message takes a page.
 */
static u32 spray_rmsg_charge(u32 len)
{
	u32 npages = DIV_ROUND_UP(len, PAGE_SIZE);

	return PAGE_ALIGN(len) + kmalloc_size_roundup(sizeof(struct spray_rmsg)) +
	       kmalloc_size_roundup(npages * sizeof(struct page *)) +
	       kmalloc_size_roundup(BITS_TO_LONGS(npages * PAGE_SIZE /
						  SPRAY_MIN_FRAG + 1) *
				    sizeof(long));
}

/* ---- messages ---- */

/* Bytes of @m that SIOCOUTQ counts: sent or to send, not acknowledged. */
static u32 spray_tmsg_unacked(const struct spray_tmsg *m)
{
	return (m->abandoned ? m->next_off : m->len) - m->acked;
}

static void spray_tmsg_free(struct spray_sock *ss, struct spray_tmsg *m)
{
	list_del(&m->node);
	WRITE_ONCE(ss->tx_bytes, ss->tx_bytes - spray_tmsg_unacked(m));
	spray_wmem_uncharge(&ss->sk, m->charge);
	kvfree(m->buf);
	kfree(m);
}

/**
 * spray_tmsg_free_error() - free an entry taken off the error queue
 * @ss: its socket
 * @m: the entry, from spray_sock_pop_error()
 */
void spray_tmsg_free_error(struct spray_sock *ss, struct spray_tmsg *m)
{
	spin_lock_bh(&ss->lock);
	spray_rmem_uncharge(&ss->sk, m->charge);
	spin_unlock_bh(&ss->lock);
	kvfree(m->buf);
	kfree(m);
}

/**
 * spray_sock_pop_error() - the oldest entry of the error queue
 * @ss: the socket
 *
 * Return: the entry, removed from the queue (the caller frees it with
 * spray_tmsg_free_error()), or NULL.
 */
struct spray_tmsg *spray_sock_pop_error(struct spray_sock *ss)
{
	struct spray_tmsg *m;

	spin_lock_bh(&ss->lock);
	m = list_first_entry_or_null(&ss->errq, struct spray_tmsg, node);
	if (m) {
		list_del_init(&m->node);
		WRITE_ONCE(ss->errq_len, ss->errq_len - 1);
	}
	spin_unlock_bh(&ss->lock);
	return m;
}

static void spray_rmsg_unlink_left(struct spray_conn *c, struct spray_rmsg *rm)
{
	if (rm->skipped)
		return;
	c->rx_left_bytes -= rm->len - rm->got;
	c->rx_left_msgs--;
}

void spray_rmsg_free(struct spray_sock *ss, struct spray_rmsg *rm)
{
	u32 i;

	list_del(&rm->node);
	for (i = 0; i < rm->npages; i++)
		if (rm->pages[i])
			__free_page(rm->pages[i]);
	if (rm->charge)
		spray_rmem_uncharge(&ss->sk, rm->charge);
	bitmap_free(rm->fmap);
	kfree(rm->pages);
	kfree(rm);
}

/* Free the messages a connection is reassembling or holds for ordering. */
static void spray_conn_free_rx(struct spray_conn *c)
{
	struct spray_rmsg *rm, *tmp;

	list_for_each_entry_safe(rm, tmp, &c->rmsgs, node) {
		spray_rmsg_unlink_left(c, rm);
		spray_rmsg_free(c->ss, rm);
	}
	list_for_each_entry_safe(rm, tmp, &c->rdone, node)
		spray_rmsg_free(c->ss, rm);
}

/* Writers may go on: the queue is below SO_SNDBUF. */
bool spray_sock_wspace(const struct sock *sk)
{
	return READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf);
}

/* Wake everyone sleeping on the socket, if it still has a file. */
static void spray_sock_wake(struct sock *sk, __poll_t events)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_sync_poll(&wq->wait, events);
	rcu_read_unlock();
}

static void spray_write_space(struct sock *sk)
{
	if (!spray_sock_wspace(sk))
		return;
	spray_sock_wake(sk, EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND);
	sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
}

/*
 * Report a message that will not be delivered on the error queue
 * (recvmsg(MSG_ERRQUEUE)): the destination, the user's cookie, an errno
 * and the message itself. Its memory moves from the send queue to the
 * receive buffer; if the buffer has no room, the entry goes without its
 * data; beyond SPRAY_MAX_ERRQ entries (or for a closed socket) the failure
 * is only counted.
 */
static void spray_tmsg_fail(struct spray_conn *c, struct spray_tmsg *m,
			    int err)
{
	struct spray_sock *ss = c->ss;
	struct sock *sk = &ss->sk;
	u32 nodata;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_MSG_FAILED);
	if (ss->closing || ss->errq_len >= SPRAY_MAX_ERRQ) {
		spray_tmsg_free(ss, m);
		return;
	}
	list_del(&m->node);
	WRITE_ONCE(ss->tx_bytes, ss->tx_bytes - spray_tmsg_unacked(m));
	spray_wmem_uncharge(sk, m->charge);
	if (atomic_read(&sk->sk_rmem_alloc) >= READ_ONCE(sk->sk_rcvbuf) ||
	    !spray_rmem_charge(sk, m->charge)) {
		kvfree(m->buf);
		m->buf = NULL;
		nodata = spray_tmsg_charge_nodata();
		/* at the hard memory limit the entry goes uncharged */
		m->charge = spray_rmem_charge(sk, nodata) ? nodata : 0;
	}
	m->err = err;
	m->dst = c->remote;
	list_add_tail(&m->node, &ss->errq);
	WRITE_ONCE(ss->errq_len, ss->errq_len + 1);
	sk_error_report(sk);
}

/* ---- packets ---- */

static struct sk_buff *spray_build_skb(struct spray_pkt *p, u32 payload,
				       const struct in6_addr *saddr,
				       const struct spray_addr *to, u16 sport,
				       u16 dport, u16 ev)
{
	struct sk_buff *skb;
	u32 hlen;
	int n;

	hlen = spray_pkt_hdr_len(p->type);
	skb = alloc_skb(SPRAY_HEADROOM + hlen + payload, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, SPRAY_HEADROOM);
	p->sport = sport;
	p->dport = dport;
	p->ev = ev;
	n = spray_pkt_build(skb_put(skb, hlen), hlen, p);
	if (WARN_ON_ONCE(n != (int)hlen)) {
		kfree_skb(skb);
		return NULL;
	}
	SPRAY_SKB_CB(skb)->saddr = *saddr;
	SPRAY_SKB_CB(skb)->daddr = to->v6;
	SPRAY_SKB_CB(skb)->oif = to->scope_id;
	SPRAY_SKB_CB(skb)->ev = ev;
	return skb;
}

static struct sk_buff *spray_pkt_skb(struct spray_conn *c,
				     struct spray_pkt *p, u32 payload, u16 ev)
{
	return spray_build_skb(p, payload, &c->saddr, &c->remote,
			       c->ss->local.port, c->remote.port, ev);
}

static u16 spray_ctrl_ev(struct spray_conn *c)
{
	if (c->tx_ready)
		return spray_path_port(&c->path,
				       get_random_u32_below(c->path.cfg.n));
	return 49152 + get_random_u32_below(16384);
}

static struct spray_tmsg *spray_tmsg_find(struct spray_conn *c, u32 msg_id)
{
	struct spray_tmsg *m;

	list_for_each_entry(m, &c->tmsgs, node)
		if (m->msg_id == msg_id)
			return m;
	return NULL;
}

static void spray_queue_data(struct spray_conn *c, u32 psn,
			     const struct spray_txrec *rec, int ev_idx,
			     bool probe, bool retx, u64 now,
			     struct sk_buff_head *q)
{
	struct spray_tmsg *m = spray_tmsg_find(c, rec->msg_id);
	struct spray_pkt p = {};
	struct sk_buff *skb;

	/* every psn outstanding has its message until it is acknowledged */
	if (WARN_ON_ONCE(!m))
		return;
	p.type = SPRAY_T_DATA;
	p.flags = (retx ? SPRAY_F_RETX : 0) |
		  (probe ? SPRAY_F_ACK_REQ : 0) |
		  (c->synced ? 0 : SPRAY_F_SYN);
	p.src_cid = c->local_cid;
	p.dst_cid = c->peer_ack_cid;
	p.psn = psn;
	p.data.msg_id = rec->msg_id;
	p.data.msg_len = m->len;
	p.data.frag_off = rec->frag_off;
	p.data.frag_len = rec->len;
	p.data.ts_ns = now;
	skb = spray_pkt_skb(c, &p, rec->len,
			    spray_path_port(&c->path, (u16)ev_idx));
	if (!skb)
		return;	/* the RTO sends it again */
	skb_put_data(skb, m->buf + rec->frag_off, rec->len);
	__skb_queue_tail(q, skb);
	c->stat_tx++;
	if (retx) {
		c->stat_retx++;
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RETX_PKTS);
	} else {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_TX_PKTS);
		spray_mib_add(spray_conn_net(c), SPRAY_MIB_TX_BYTES, rec->len);
	}
}

static u32 spray_conn_cwnd(const struct spray_conn *c)
{
	return spray_nscc_cwnd_pkts(&c->nscc, &c->cc);
}

/* A PROBE on a DOWN entropy value: answered by an ACK with SPRAY_F_PROBE. */
static void spray_queue_probe(struct spray_conn *c, int ev_idx, u64 now,
			      struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	p.type = SPRAY_T_PROBE;
	p.flags = c->synced ? 0 : SPRAY_F_SYN;
	p.src_cid = c->local_cid;
	p.dst_cid = c->peer_ack_cid;
	p.probe.ts_ns = now;
	p.probe.probe_id = ev_idx;
	skb = spray_pkt_skb(c, &p, 0, spray_path_port(&c->path, (u16)ev_idx));
	if (skb)
		__skb_queue_tail(q, skb);
}

/*
 * The entropy value of a new packet. Probes of DOWN entropy values that
 * fall due go out as PROBE packets on the way: data never rides a path
 * believed dead.
 */
static int spray_pick_data_ev(struct spray_conn *c, u64 now,
			      struct sk_buff_head *q)
{
	u32 tries = c->path.cfg.n + 1;
	bool probe;
	int ev;

	do {
		ev = spray_path_pick(&c->path, now, -1, &probe);
		if (ev < 0 || !probe)
			return ev;
		spray_queue_probe(c, ev, now, q);
	} while (--tries);
	/* unreachable: each probe moves its EV's next probe into the future */
	return ev;
}

/* The first message with bytes never sent, or NULL. */
static struct spray_tmsg *spray_conn_next_new(struct spray_conn *c)
{
	struct spray_tmsg *m;

	list_for_each_entry(m, &c->tmsgs, node)
		if (!m->abandoned && m->next_off < m->len)
			return m;
	return NULL;
}

/*
 * Send what the windows allow: retransmissions first, then new data, at
 * most SPRAY_TX_BURST packets; if room is left, the timer goes on with the
 * next burst once this one is out (spray_conn_arm()).
 */
static void spray_conn_pump(struct spray_conn *c, u64 now,
			    struct sk_buff_head *q)
{
	u32 cwnd, psn, len, n = 0;
	struct spray_txrec *rec;
	struct spray_tmsg *m;
	bool probe;
	int ev;

	c->pump_more = false;
	if (!c->tx_ready || c->tw.failed)
		return;
	cwnd = spray_conn_cwnd(c);
	while (c->tw.inflight < cwnd && spray_txwin_next_retx(&c->tw, &psn)) {
		if (n == SPRAY_TX_BURST)
			goto more;
		rec = spray_txwin_rec(&c->tw, psn);
		ev = spray_path_pick(&c->path, now, rec->ev, &probe);
		if (ev < 0)
			break;
		spray_txwin_sent_retx(&c->tw, psn, (u16)ev, now);
		spray_queue_data(c, psn, rec, ev, probe, true, now, q);
		n++;
	}
	m = spray_conn_next_new(c);
	while (m && spray_txwin_room(&c->tw, cwnd)) {
		/*
		 * While the receiver refuses packets for lack of room, only
		 * messages it admitted (some of their packets were acked)
		 * go on: anything else would be refused too, and an admitted
		 * message must complete for the room to come back.
		 */
		if (c->tw.refused && !m->acked)
			break;
		if (n == SPRAY_TX_BURST)
			goto more;
		len = min(c->frag_size, m->len - m->next_off);
		ev = spray_pick_data_ev(c, now, q);
		if (ev < 0)
			return;
		/* a window probe asks for its ACK at once */
		probe = c->tw.probe_ok;
		psn = spray_txwin_send_new(&c->tw, now, (u16)ev, m->msg_id,
					   m->next_off, (u16)len);
		m->next_off += len;
		spray_queue_data(c, psn, spray_txwin_rec(&c->tw, psn), ev,
				 probe, false, now, q);
		n++;
		if (m->next_off == m->len)
			m = spray_conn_next_new(c);
	}
	return;
more:
	c->pump_more = true;
	c->pump_at = now;
}

/*
 * Receiver credit: how many packets of the peer's this socket can take. The
 * rest of each message already admitted has its room reserved (in packets
 * of the peer's size, rounded up per message); a new message is admitted
 * while the buffer is below SO_RCVBUF, and each of its packets may be a new
 * message costing a page: one packet per page free, at least one while
 * there is room. O(1): the per-connection sums are kept up to date.
 */
static u32 spray_conn_grant(struct spray_conn *c)
{
	struct spray_cc_cfg cfg = c->cc;
	struct sock *sk = &c->ss->sk;
	u32 rcvd = c->rx.above;
	s64 room;
	u64 pkts;

	/* credit counts packets of the size the peer sends */
	if (c->rx_mtu)
		cfg.mtu = c->rx_mtu;
	pkts = c->rx_left_bytes / cfg.mtu + c->rx_left_msgs;
	room = (s64)READ_ONCE(sk->sk_rcvbuf) - atomic_read(&sk->sk_rmem_alloc);
	if (room > 0)
		pkts += max_t(u64, div_u64(room, spray_rmsg_charge(1)), 1);
	/*
	 * psns refused for lack of room are holes that come back only when
	 * there is room: counted as received, or they would use up the
	 * credit that lets the sender finish a message already admitted.
	 */
	if (!spray_psn_after(c->rx_refused_top, c->rx.cum))
		c->rx_refused_top = c->rx.cum;	/* kept near cum: psns wrap */
	else if (spray_psn_after(c->rx_refused_top, c->rx.cum + rcvd))
		rcvd = c->rx_refused_top - c->rx.cum;
	return spray_rcc_grant_rcvd(&c->ss->rcc, &c->rcc, &cfg, c->rx.cum,
				    rcvd, (u32)min_t(u64, pkts * cfg.mtu,
						     U32_MAX));
}

static void spray_queue_ack(struct spray_conn *c, u64 now,
			    struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	p.type = SPRAY_T_ACK;
	p.src_cid = c->ack_cid;
	p.dst_cid = c->peer_cid;
	spray_rxwin_build_ack(&c->rx, now, &p.ack);
	p.ack.grant_psn = spray_conn_grant(c);
	skb = spray_pkt_skb(c, &p, 0, spray_ctrl_ev(c));
	if (!skb)
		return;
	__skb_queue_tail(q, skb);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_ACK_TX);
}

/*
 * The ACKs due: one usually, a few when reordering spread the psns
 * received since the last ACK over more than one 64-psn SACK range.
 */
static void spray_queue_acks(struct spray_conn *c, u64 now,
			     struct sk_buff_head *q)
{
	unsigned int n = 0;

	while (n++ < 8 && spray_rxwin_ack_due(&c->rx, now))
		spray_queue_ack(c, now, q);
}

/*
 * Answers to packets that no connection expects may go to forged sources:
 * at most SPRAY_NACK_RATE a second per source address (spray_net.nack_rl).
 */
static bool spray_nack_allowed(struct spray_net *sn,
			       const struct spray_addr *to, u64 now)
{
	u32 key[4];
	bool ok;

	/* the address as it is: a hash key, no arithmetic */
	memcpy(key, &to->v6, sizeof(key));
	spin_lock_bh(&sn->nack_rl_lock);
	ok = spray_rl_allow(&sn->nack_rl, key, 4, now);
	spin_unlock_bh(&sn->nack_rl_lock);
	if (!ok)
		spray_mib_drop(sn, SPRAY_DROP_RATELIMIT);
	return ok;
}

/*
 * A NACK NO_CONN answering a packet that no connection expects (a port
 * nobody binds, a connection that does not exist or is closed): the sender
 * fails fast, or starts a new incarnation. Rate-limited per source.
 */
static struct sk_buff *spray_nack_skb(struct spray_net *sn,
				      const struct spray_addr *to,
				      const struct in6_addr *saddr,
				      const struct spray_pkt *in, u64 now)
{
	struct spray_pkt p = {};

	if (!spray_nack_allowed(sn, to, now))
		return NULL;
	p.type = SPRAY_T_NACK;
	p.src_cid = in->dst_cid ? in->dst_cid : 1;
	p.dst_cid = in->src_cid;
	p.nack.psn = in->psn;
	p.nack.count = 1;
	p.nack.reason = SPRAY_NACK_NO_CONN;
	p.nack.cum_psn = in->psn;
	p.nack.grant_psn = in->psn;
	return spray_build_skb(&p, 0, saddr, to, in->dport, in->sport,
			       49152 + get_random_u32_below(16384));
}

/* A NACK of @count psns from @psn, with the current cumulative ACK and grant. */
static void spray_queue_nack(struct spray_conn *c, u32 psn, u16 count,
			     u8 reason, struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	p.type = SPRAY_T_NACK;
	p.src_cid = c->ack_cid;
	p.dst_cid = c->peer_cid;
	p.nack.psn = psn;
	p.nack.count = count;
	p.nack.reason = reason;
	p.nack.cum_psn = c->rx.cum;
	p.nack.grant_psn = spray_conn_grant(c);
	skb = spray_pkt_skb(c, &p, 0, spray_ctrl_ev(c));
	if (!skb)
		return;
	__skb_queue_tail(q, skb);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_NACK_TX);
}

/*
 * Room again (the application read, or a message was admitted): the psns
 * refused since the last time may come now, without waiting for the
 * sender's timer.
 */
static void spray_queue_resume(struct spray_conn *c, struct sk_buff_head *q)
{
	if (!c->rx_resume || !spray_psn_after(c->rx_refused_top, c->rx.cum))
		return;
	c->rx_resume = false;
	spray_queue_nack(c, c->rx.cum, 1, SPRAY_NACK_RESUME, q);
}

static void spray_queue_nacks(struct spray_conn *c, u64 now,
			      struct sk_buff_head *q)
{
	struct spray_rxwin_nack nk[4];
	u32 n, i, rtt;

	if (!c->peer_cid)
		return;
	rtt = c->tx_ready && c->tw.srtt_ns ? c->tw.srtt_ns : 1000000;
	n = spray_rxwin_nack_scan(&c->rx, now, rtt, nk, ARRAY_SIZE(nk));
	for (i = 0; i < n; i++)
		spray_queue_nack(c, nk[i].psn, nk[i].count, SPRAY_NACK_LOSS, q);
}

static void spray_xmit_queue(struct spray_net *sn, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		spray_udp_xmit(sn, skb);
}

/* ---- the sending half ---- */

/* An entropy value went down or came back: count it, tell "events". */
static void spray_conn_path_event(struct spray_conn *c, u16 idx, bool up)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_addr local;

	spray_mib_inc(sn, up ? SPRAY_MIB_PATH_UP : SPRAY_MIB_PATH_DOWN);
	spray_conn_local_addr(c, &local);
	spray_nl_notify_path(sn->net, &local, &c->remote,
			     spray_path_port(&c->path, idx), up);
}

static void spray_tx_acked(void *ctx, u32 psn, const struct spray_txrec *rec,
			   bool ce)
{
	struct spray_conn *c = ctx;
	struct spray_tmsg *m;

	spray_path_on_ack(&c->path, rec->ev, ce, ktime_get_ns());
	if (ce) {
		c->stat_ecn++;
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_ECN_ECHO);
	}
	m = spray_tmsg_find(c, rec->msg_id);
	if (!m)
		return;
	m->acked += rec->len;
	WRITE_ONCE(c->ss->tx_bytes, c->ss->tx_bytes - rec->len);
	if (m->abandoned) {
		/* failed already: gone once what was sent is acknowledged */
		if (m->acked >= m->next_off)
			spray_tmsg_free(c->ss, m);
	} else if (m->acked >= m->len) {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_TX_MSGS);
		spray_tmsg_free(c->ss, m);
	}
}

static void spray_tx_lost(void *ctx, u32 psn, const struct spray_txrec *rec,
			  enum spray_loss_why why)
{
	struct spray_conn *c = ctx;
	u64 now = ktime_get_ns();
	bool was_down;

	/* refused by the receiver: its path and the network are fine */
	if (why == SPRAY_LOSS_REFUSED)
		return;
	was_down = rec->ev < c->path.cfg.n &&
		   c->evs[rec->ev].state == SPRAY_EV_DOWN;
	spray_path_on_loss(&c->path, rec->ev, now);
	if (!was_down && rec->ev < c->path.cfg.n &&
	    c->evs[rec->ev].state == SPRAY_EV_DOWN)
		spray_conn_path_event(c, rec->ev, false);
	spray_nscc_on_loss(&c->nscc, &c->cc, why, now);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_LOST_PKTS);
	spray_mib_inc(spray_conn_net(c), why == SPRAY_LOSS_RACK ?
		      SPRAY_MIB_LOST_RACK : why == SPRAY_LOSS_NACK ?
		      SPRAY_MIB_LOST_NACK : SPRAY_MIB_LOST_RTO);
}

static void spray_tx_spurious(void *ctx, u32 psn,
			      const struct spray_txrec *rec)
{
	struct spray_conn *c = ctx;

	if (rec->why == SPRAY_LOSS_REFUSED)
		return;
	spray_nscc_on_spurious(&c->nscc, &c->cc, rec->why);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_SPURIOUS_LOSS);
}

static const struct spray_txwin_ops spray_tx_ops = {
	.acked	= spray_tx_acked,
	.lost	= spray_tx_lost,
	.spurious = spray_tx_spurious,
};

/*
 * The send window's settings from the namespace's: the RTO bounds in
 * nanoseconds (netlink keeps them within SPRAY_TXWIN_RTO_LIMIT_NS, and
 * rto-min below rto-max; clamped again here, since the two are read
 * without the config lock).
 */
static void spray_txwin_cfg_net(struct spray_net *sn,
				struct spray_txwin_cfg *tcfg)
{
	u64 lo = (u64)READ_ONCE(sn->cfg.rto_min_us) * NSEC_PER_USEC;
	u64 hi = (u64)READ_ONCE(sn->cfg.rto_max_us) * NSEC_PER_USEC;

	spray_txwin_cfg_default(tcfg);
	hi = clamp_t(u64, hi, 1, SPRAY_TXWIN_RTO_LIMIT_NS);
	lo = clamp_t(u64, lo, 1, hi);
	tcfg->rto_min_ns = lo;
	tcfg->rto_max_ns = hi;
	tcfg->rto_init_ns = max(tcfg->rto_init_ns, tcfg->rto_min_ns);
	tcfg->max_retx = clamp_t(u32, READ_ONCE(sn->cfg.retry_limit), 1, 255);
}

/*
 * Start a new sending incarnation: new cid and psn space, every message not
 * fully acknowledged is sent again from its first byte (the peer lost its
 * state, or ours failed). Messages that had already failed are dropped.
 */
static int spray_tx_restart(struct spray_conn *c)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_txwin_cfg tcfg;
	struct spray_tmsg *m, *tmp;
	int err;

	spray_txwin_cfg_net(sn, &tcfg);
	c->local_cid = spray_new_cid();
	c->synced = false;
	c->peer_ack_cid = 0;
	c->next_msg_id = 0;
	err = spray_txwin_init(&c->tw, c->ring, SPRAY_TX_RING, c->local_cid,
			       spray_rcc_initial_grant(&c->cc, c->local_cid),
			       &tcfg);
	if (err)
		return err;
	c->tw.refusal_costs = c->lingering;
	spray_nscc_init(&c->nscc, &c->cc);
	list_for_each_entry_safe(m, tmp, &c->tmsgs, node) {
		if (m->abandoned) {
			spray_tmsg_free(c->ss, m);
			continue;
		}
		WRITE_ONCE(c->ss->tx_bytes, c->ss->tx_bytes + m->acked);
		m->msg_id = c->next_msg_id++;
		m->next_off = 0;
		m->acked = 0;
	}
	return 0;
}

/* Fail every queued message with @err and start afresh. */
static void spray_tx_fail_all(struct spray_conn *c, int err)
{
	struct spray_tmsg *m, *tmp;
	struct spray_addr local;

	spray_conn_local_addr(c, &local);
	spray_nl_notify_unreachable(spray_conn_net(c)->net, &local, &c->remote,
				    err);
	list_for_each_entry_safe(m, tmp, &c->tmsgs, node) {
		if (m->abandoned)
			spray_tmsg_free(c->ss, m);
		else
			spray_tmsg_fail(c, m, err);
	}
	/* the settings were valid when the connection started: they still are */
	WARN_ON_ONCE(spray_tx_restart(c));
	spray_write_space(&c->ss->sk);
}

/*
 * The receiver will not take message @psn belongs to (longer than its
 * max-msg): fail the message at once (EMSGSIZE), send no more of it. Its
 * psns in flight are acknowledged by the receiver, which discards them.
 */
static void spray_tx_msg_size(struct spray_conn *c, u32 psn)
{
	struct spray_txrec *rec = spray_txwin_rec(&c->tw, psn);
	struct spray_tmsg *m;

	if (!rec)
		return;
	m = spray_tmsg_find(c, rec->msg_id);
	if (!m || m->abandoned)
		return;
	if (m->acked >= m->next_off) {
		spray_tmsg_fail(c, m, EMSGSIZE);
		return;
	}
	/* the error goes now; the record stays until its psns are acked */
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_MSG_FAILED);
	m->abandoned = true;
	WRITE_ONCE(c->ss->tx_bytes, c->ss->tx_bytes - (m->len - m->next_off));
	if (!c->ss->closing && c->ss->errq_len < SPRAY_MAX_ERRQ) {
		u32 charge = spray_tmsg_charge_nodata();
		struct spray_tmsg *e;

		e = kzalloc(sizeof(*e), GFP_ATOMIC);
		if (e && spray_rmem_charge(&c->ss->sk, charge)) {
			e->charge = charge;
			e->len = m->len;
			e->cookie = m->cookie;
			e->err = EMSGSIZE;
			e->dst = c->remote;
			list_add_tail(&e->node, &c->ss->errq);
			WRITE_ONCE(c->ss->errq_len, c->ss->errq_len + 1);
			sk_error_report(&c->ss->sk);
		} else {
			kfree(e);
		}
	}
}

/* The sending half, allocated on the first message to the peer. */
static int spray_conn_tx_init(struct spray_conn *c, struct spray_net *sn)
{
	BUILD_BUG_ON(sizeof(struct spray_skb_cb) > sizeof_field(struct sk_buff, cb));
	struct spray_path_cfg pcfg;
	u32 payload;
	int err;

	err = spray_udp_path(sn, &c->saddr, &c->remote.v6, c->remote.scope_id,
			     &payload);
	if (err)
		return err;
	c->frag_size = min_t(u32, payload - SPRAY_DATA_HDR_LEN, 65000);
	spray_conn_cc_init(c, c->frag_size);

	spray_path_cfg_default(&pcfg);
	/* a dead path costs one small PROBE per EV per quarter second */
	pcfg.probe_max_ns = 250 * NSEC_PER_MSEC;
	pcfg.n = clamp_t(u32, READ_ONCE(sn->cfg.nr_evs), 1, SPRAY_MAX_EVS);
	c->evs = kcalloc(pcfg.n, sizeof(*c->evs), GFP_KERNEL);
	c->ring = kvcalloc(SPRAY_TX_RING, sizeof(*c->ring), GFP_KERNEL);
	if (!c->evs || !c->ring) {
		err = -ENOMEM;
		goto err_free;
	}
	spray_path_init(&c->path, c->evs, &pcfg, get_random_u32());
	err = spray_tx_restart(c);
	if (err)
		goto err_free;
	return 0;

err_free:
	kfree(c->evs);
	kvfree(c->ring);
	c->evs = NULL;
	c->ring = NULL;
	return err;
}

static void spray_conn_free(struct spray_conn *c)
{
	struct spray_tmsg *m, *tmp;
	struct spray_sock *ss = c->ss;

	hrtimer_cancel(&c->timer);
	spin_lock_bh(&ss->lock);
	list_for_each_entry_safe(m, tmp, &c->tmsgs, node)
		spray_tmsg_free(ss, m);
	spray_conn_free_rx(c);
	if (c->peer_cid)
		spray_rcc_deactivate(&ss->rcc, &c->rcc);
	spin_unlock_bh(&ss->lock);
	kvfree(c->ring);
	kfree(c->evs);
	kfree(c);
}

static void spray_conn_free_work(struct work_struct *work)
{
	struct spray_conn *c = container_of(work, struct spray_conn, free_work);
	struct spray_sock *ss = c->ss;

	spray_conn_free(c);
	sock_put(&ss->sk);
}

int spray_conn_init(void)
{
	spray_wq = alloc_workqueue("spray", WQ_UNBOUND, 0);
	return spray_wq ? 0 : -ENOMEM;
}

void spray_conn_exit(void)
{
	destroy_workqueue(spray_wq);
}

/* Nothing left to deliver: all sent, all acknowledged (or failed). */
static bool spray_conn_tx_done(const struct spray_conn *c)
{
	return !c->tx_ready || (list_empty(&c->tmsgs) &&
				!spray_txwin_outstanding(&c->tw));
}

/*
 * A closed socket's connection finished delivering (or failed): once the
 * last one has, the socket goes (in process context: spray_wq).
 */
static void spray_conn_linger_check(struct spray_conn *c)
{
	struct spray_sock *ss = c->ss;

	if (!c->lingering || !spray_conn_tx_done(c))
		return;
	c->lingering = false;
	if (--ss->nlinger)
		return;
	if (!ss->orphan) {
		/* close() waits for this (SO_LINGER with a timeout) */
		spray_sock_wake(&ss->sk, EPOLLOUT);
		return;
	}
	if (!test_and_set_bit(SPRAY_SS_LINGER_DONE, &ss->flags)) {
		sock_hold(&ss->sk);
		if (!queue_work(spray_wq, &ss->linger_work))
			sock_put(&ss->sk);
	}
}

/**
 * spray_conn_sendmsg() - queue one message to a peer and start sending it
 * @ss: the sending socket, bound
 * @to: the peer
 * @msg: the data, @len bytes, 1..max_msg
 * @len: its length
 * @cookie: reported with the message if it cannot be delivered
 *
 * Waits (unless non-blocking) while the socket's queued bytes are at or
 * above SO_SNDBUF; then charges the message's memory and copies it in.
 *
 * Return: @len, or -EAGAIN, -EFAULT, -ENOMEM, -ENOBUFS (the protocol's or
 * the memory cgroup's limit, or too many connections), -ENETUNREACH (no
 * route), a signal's -EINTR/-ERESTARTSYS, or -EPIPE if the socket is
 * closing or was shut down for sending while waiting.
 */
int spray_conn_sendmsg(struct spray_sock *ss, const struct spray_addr *to,
		       struct msghdr *msg, size_t len, u64 cookie)
{
	struct spray_net *sn = spray_net(sock_net(&ss->sk));
	struct spray_conn *c, *fresh = NULL;
	u32 charge = spray_tmsg_charge(len);
	struct sock *sk = &ss->sk;
	struct in6_addr saddr;
	struct spray_tmsg *m;
	struct sk_buff_head q;
	bool charged;
	long timeo;
	int err;

	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	for (;;) {
		DEFINE_WAIT_FUNC(wait, woken_wake_function);

		if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)
			return -EPIPE;
		spin_lock_bh(&ss->lock);
		/* below SO_SNDBUF: room for one more message, of any size */
		if (spray_sock_wspace(sk)) {
			charged = spray_wmem_charge(sk, charge);
			spin_unlock_bh(&ss->lock);
			if (!charged)
				return -ENOBUFS;	/* memory limits */
			break;
		}
		spin_unlock_bh(&ss->lock);
		if (!timeo)
			return -EAGAIN;
		if (signal_pending(current))
			return sock_intr_errno(timeo);
		sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		add_wait_queue(sk_sleep(sk), &wait);
		if (!spray_sock_wspace(sk) &&
		    !(READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN))
			timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, timeo);
		remove_wait_queue(sk_sleep(sk), &wait);
	}

	/* charged: now the memory */
	err = -ENOMEM;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		goto err_uncharge;
	m->buf = kvmalloc(len, GFP_KERNEL);
	if (!m->buf)
		goto err_free;
	m->len = len;
	m->charge = charge;
	m->cookie = cookie;
	if (!copy_from_iter_full(m->buf, len, &msg->msg_iter)) {
		err = -EFAULT;
		goto err_free;
	}

	spin_lock_bh(&ss->lock);
	c = spray_conn_find(ss, to, NULL);
	if (!c || !c->tx_ready) {
		/* answer from the address the peer used, if it spoke first */
		saddr = c ? c->saddr : ss->local.v6;
		spin_unlock_bh(&ss->lock);
		fresh = spray_conn_alloc(ss, to, GFP_KERNEL);
		if (!fresh)
			goto err_free;
		fresh->saddr = saddr;
		err = spray_conn_tx_init(fresh, sn);
		if (err)
			goto err_free;
		spin_lock_bh(&ss->lock);
		c = spray_conn_find(ss, to, &fresh->saddr);
		if (!c) {
			if (ss->nconns >= SPRAY_MAX_CONNS) {
				err = -ENOBUFS;
				goto err_unlock;
			}
			c = fresh;
			fresh = NULL;
			spray_conn_insert(ss, c);
		} else if (!c->tx_ready) {
			/* The peer opened it first: adopt our sending half. */
			swap(c->ring, fresh->ring);
			swap(c->evs, fresh->evs);
			c->frag_size = fresh->frag_size;
			c->cc = fresh->cc;
			spray_path_init(&c->path, c->evs, &fresh->path.cfg,
					get_random_u32());
			err = spray_tx_restart(c);
			if (err)
				goto err_unlock;
		}
		c->tx_ready = true;
	}
	if (ss->dead || ss->closing) {
		err = -EPIPE;
		goto err_unlock;
	}
	m->msg_id = c->next_msg_id++;
	list_add_tail(&m->node, &c->tmsgs);
	WRITE_ONCE(ss->tx_bytes, ss->tx_bytes + len);
	c->last_active_ns = ktime_get_ns();
	__skb_queue_head_init(&q);
	spray_conn_pump(c, ktime_get_ns(), &q);
	spray_conn_arm(c, ktime_get_ns());
	spin_unlock_bh(&ss->lock);
	spray_xmit_queue(sn, &q);
	if (fresh)
		spray_conn_free(fresh);
	return len;

err_unlock:
	spin_unlock_bh(&ss->lock);
err_free:
	if (fresh)
		spray_conn_free(fresh);
	if (m)
		kvfree(m->buf);
	kfree(m);
err_uncharge:
	spin_lock_bh(&ss->lock);
	spray_wmem_uncharge(sk, charge);
	spin_unlock_bh(&ss->lock);
	spray_write_space(sk);
	return err;
}

/* ---- the receiving half ---- */

/*
 * Forget the peer's current incarnation and take @cid as the new one, whose
 * first packet (sender timestamp @ts) arrived at @now.
 */
static void spray_rx_reset(struct spray_conn *c, u32 cid, u64 ts, u64 now)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_rxwin_cfg rcfg;

	if (c->peer_cid) {
		spray_mib_inc(sn, SPRAY_MIB_CONN_RESET);
		spray_rcc_deactivate(&c->ss->rcc, &c->rcc);
	}
	spray_conn_free_rx(c);
	spray_rxwin_cfg_default(&rcfg);
	rcfg.ack_every = READ_ONCE(sn->cfg.ack_every);
	rcfg.ack_delay_ns = READ_ONCE(sn->cfg.ack_delay_us) * NSEC_PER_USEC;
	spray_rxwin_init(&c->rx, cid, &rcfg);
	spray_rcc_conn_init(&c->rcc, &c->cc, cid);
	spray_rcc_activate(&c->ss->rcc, &c->rcc);
	c->peer_cid = cid;
	c->ack_cid = spray_new_cid();
	c->rx_verified = false;
	c->chal_for = 0;
	c->peer_last_ts = ts;
	c->rx_last_ns = now;
	c->rx_next_id = 0;
	c->rx_refused_top = cid;
	c->rx_resume = false;
}

/* Stop receiving on a connection (its socket is closing). */
static void spray_rx_close(struct spray_conn *c)
{
	spray_conn_free_rx(c);
	if (c->peer_cid)
		spray_rcc_deactivate(&c->ss->rcc, &c->rcc);
	c->peer_cid = 0;
}

static void spray_data_ready(struct spray_sock *ss)
{
	ss->sk.sk_data_ready(&ss->sk);
}

/*
 * Ordered delivery: @rm (complete, or the place of a message the receiver
 * refused) joins the held-back messages, sorted by msg_id (wrapping); then
 * those next in order go to the socket.
 */
static void spray_rx_ordered_push(struct spray_conn *c, struct spray_rmsg *rm)
{
	struct spray_sock *ss = c->ss;
	struct spray_rmsg *pos;

	list_for_each_entry(pos, &c->rdone, node)
		if ((s32)(rm->msg_id - pos->msg_id) < 0)
			break;
	list_add_tail(&rm->node, &pos->node);
	while (!list_empty(&c->rdone)) {
		pos = list_first_entry(&c->rdone, struct spray_rmsg, node);
		if (pos->msg_id != c->rx_next_id)
			break;
		c->rx_next_id++;
		if (pos->skipped) {
			spray_rmsg_free(ss, pos);
			continue;
		}
		list_move_tail(&pos->node, &ss->rxq);
		spray_data_ready(ss);
	}
}

/* Hand a complete message to the socket, in order if it asked for it. */
static void spray_rx_complete(struct spray_conn *c, struct spray_rmsg *rm)
{
	struct spray_sock *ss = c->ss;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RX_MSGS);
	spray_rmsg_unlink_left(c, rm);
	list_del(&rm->node);
	if (!ss->ordered) {
		list_add_tail(&rm->node, &ss->rxq);
		spray_data_ready(ss);
		return;
	}
	spray_rx_ordered_push(c, rm);
}

/*
 * A message refused for its size never completes: ordered delivery must go
 * past its number. Return: 0, or -ENOMEM (the packet is then refused for
 * lack of buffer and comes again).
 */
static int spray_rx_skip(struct spray_conn *c, u32 msg_id)
{
	struct spray_rmsg *rm;

	if (!c->ss->ordered || (s32)(msg_id - c->rx_next_id) < 0)
		return 0;
	list_for_each_entry(rm, &c->rdone, node)
		if (rm->msg_id == msg_id)
			return 0;
	rm = kzalloc(sizeof(*rm), GFP_ATOMIC);
	if (!rm)
		return -ENOMEM;
	rm->msg_id = msg_id;
	rm->skipped = true;
	rm->from = c->remote;
	spray_rx_ordered_push(c, rm);
	return 0;
}

/*
 * The message a DATA packet belongs to: the one being reassembled, or a
 * new one admitted while the receive buffer is below SO_RCVBUF (as UDP
 * admits a datagram: one message of any size up to max-msg always gets
 * in) and the memory limits allow. Its whole size is reserved at once, so
 * an admitted message always completes.
 *
 * Return: the message, or ERR_PTR(-EMSGSIZE) (longer than max-msg),
 * -EINVAL (its length disagrees with the message's), -ENOBUFS (no room
 * now), -ENOMEM.
 */
static struct spray_rmsg *spray_rmsg_get(struct spray_conn *c,
					 const struct spray_pkt *p)
{
	struct sock *sk = &c->ss->sk;
	struct spray_rmsg *rm;
	u32 len = p->data.msg_len;
	u32 charge;

	list_for_each_entry(rm, &c->rmsgs, node)
		if (rm->msg_id == p->data.msg_id)
			return rm->len == len ? rm : ERR_PTR(-EINVAL);
	if (len > READ_ONCE(spray_conn_net(c)->cfg.max_msg))
		return ERR_PTR(-EMSGSIZE);
	charge = spray_rmsg_charge(len);
	if (atomic_read(&sk->sk_rmem_alloc) >= READ_ONCE(sk->sk_rcvbuf) ||
	    !spray_rmem_charge(sk, charge)) {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RCVBUF_FULL);
		return ERR_PTR(-ENOBUFS);
	}
	rm = kzalloc(sizeof(*rm), GFP_ATOMIC);
	if (!rm)
		goto err_uncharge;
	rm->npages = DIV_ROUND_UP(len, PAGE_SIZE);
	rm->pages = kcalloc(rm->npages, sizeof(*rm->pages),
			    GFP_ATOMIC | __GFP_NOWARN);
	if (!rm->pages) {
		kfree(rm);
		goto err_uncharge;
	}
	rm->msg_id = p->data.msg_id;
	rm->len = len;
	rm->from = c->remote;
	rm->last_off = U32_MAX;
	rm->charge = charge;
	list_add_tail(&rm->node, &c->rmsgs);
	c->rx_left_bytes += len;
	c->rx_left_msgs++;
	return rm;

err_uncharge:
	spray_rmem_uncharge(sk, charge);
	return ERR_PTR(-ENOMEM);
}

/*
 * Check a fragment against what the message already has, before its data
 * is copied: fragments of one message lie on one grid (a sender cuts every
 * message in fragments of its frag size), so a message is complete when
 * each fragment arrived once. Overlapping, misaligned or repeated
 * fragments (from a broken or hostile sender: each on its own psn) are
 * refused; counting their bytes would complete a message with holes.
 *
 * Return: 0 to accept (@rm->got counts it), -EINVAL to refuse, -ENOMEM.
 */
static int spray_rmsg_frag(struct spray_rmsg *rm, u32 off, u32 len)
{
	bool last = off + len == rm->len;
	u32 i, n;

	if (!len || off >= rm->len || len > rm->len - off)
		return -EINVAL;
	if (!rm->frag && last && off) {
		/* the last fragment first: place it once the grid is known */
		if (rm->last_off != U32_MAX)
			return -EINVAL;
		rm->last_off = off;
		rm->got += len;
		return 0;
	}
	if (!rm->frag) {
		if (!last && len < SPRAY_MIN_FRAG)
			return -EINVAL;
		if (off % len)
			return -EINVAL;
		n = DIV_ROUND_UP(rm->len, len);
		/* a pending last fragment must be the grid's last */
		if (rm->last_off != U32_MAX &&
		    (rm->last_off % len || rm->last_off / len != n - 1))
			return -EINVAL;
		rm->fmap = bitmap_zalloc(n, GFP_ATOMIC | __GFP_NOWARN);
		if (!rm->fmap)
			return -ENOMEM;
		rm->frag = len;
		if (rm->last_off != U32_MAX)
			__set_bit(n - 1, rm->fmap);
	} else if (off % rm->frag ||
		   len != min(rm->frag, rm->len - off)) {
		return -EINVAL;
	}
	i = off / rm->frag;
	if (__test_and_set_bit(i, rm->fmap))
		return -EINVAL;
	rm->got += len;
	return 0;
}

/* Forget a fragment spray_rmsg_frag() accepted but that could not be stored. */
static void spray_rmsg_unfrag(struct spray_rmsg *rm, u32 off, u32 len)
{
	if (rm->frag)
		__clear_bit(off / rm->frag, rm->fmap);
	else if (rm->last_off == off)
		rm->last_off = U32_MAX;
	rm->got -= len;
}

/* Copy a fragment's payload into the message's pages. */
static int spray_rmsg_fill(struct spray_rmsg *rm, const struct sk_buff *skb,
			   u32 skb_off, u32 off, u32 len)
{
	while (len) {
		u32 idx = off >> PAGE_SHIFT, poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);

		if (!rm->pages[idx]) {
			rm->pages[idx] = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
			if (!rm->pages[idx])
				return -ENOMEM;
		}
		if (skb_copy_bits(skb, skb_off, page_address(rm->pages[idx]) +
				  poff, n))
			return -EFAULT;
		skb_off += n;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * A challenge to the sender of incarnation @in->src_cid, whose SYN may not
 * replace the current incarnation: an ACK of that incarnation that
 * acknowledges nothing and whose src_cid is a token. Its real sender, and
 * only it, hears the ACK and puts the token in its next DATA (dst_cid, as
 * for any ACK): its incarnation is then adopted (spray_rx_incarnation()).
 * A replayed or forged SYN gets no answer. Rate-limited per source, as the
 * NACKs to unexpected packets are.
 */
static void spray_rx_challenge(struct spray_conn *c,
			       const struct spray_pkt *in, u64 now,
			       struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	if (c->chal_for != in->src_cid) {
		c->chal_for = in->src_cid;
		c->chal_cid = spray_new_cid();
	}
	if (!spray_nack_allowed(spray_conn_net(c), &c->remote, now))
		return;
	p.type = SPRAY_T_ACK;
	p.src_cid = c->chal_cid;
	p.dst_cid = in->src_cid;
	/* the incarnation's first psn: nothing acknowledged, no grant */
	p.ack.cum_psn = in->src_cid;
	p.ack.sack_base = in->src_cid;
	p.ack.grant_psn = in->src_cid;
	skb = spray_pkt_skb(c, &p, 0, spray_ctrl_ev(c));
	if (skb)
		__skb_queue_tail(q, skb);
}

/*
 * Is a DATA packet of the incarnation we receive, or one that may replace
 * it? A packet without SYN of another incarnation is answered with NACK
 * NO_CONN (the sender starts again). A SYN replaces the current
 * incarnation if that one is silent (SPRAY_STALE_NS), or if it is newer
 * (its sender timestamp) and, when the current one is verified (its sender
 * proved it hears our ACKs: spray_rx_accepted()), plausible: the peer's
 * clock cannot run ahead of ours by more than SPRAY_TS_SLACK_NS. So late
 * packets of an old incarnation, and forged ones with a far-future
 * timestamp, never replace the real peer's. Any other SYN is challenged
 * (spray_rx_challenge()): a real peer whose incarnation was displaced by a
 * forgery, or whose clock went back (a reboot), answers and is adopted; a
 * forgery cannot lock it out.
 */
static bool spray_rx_incarnation(struct spray_conn *c,
				 const struct spray_pkt *p, u64 now,
				 struct sk_buff_head *q)
{
	struct spray_net *sn = spray_conn_net(c);
	u64 ts = p->data.ts_ns;
	struct sk_buff *n;
	u32 token;

	if (p->src_cid == c->peer_cid)
		return true;
	if (c->chal_for && p->src_cid == c->chal_for &&
	    p->dst_cid == c->chal_cid) {
		/* the sender we challenged answered: it hears us */
		token = c->chal_cid;
		spray_rx_reset(c, p->src_cid, ts, now);
		c->ack_cid = token;
		c->rx_verified = true;
		return true;
	}
	if (!(p->flags & SPRAY_F_SYN)) {
		spray_mib_drop(sn, SPRAY_DROP_STALE);
		n = spray_nack_skb(sn, &c->remote, &c->saddr, p, now);
		if (n)
			__skb_queue_tail(q, n);
		return false;
	}
	if (c->peer_cid && now - c->rx_last_ns < SPRAY_STALE_NS &&
	    (ts <= c->peer_last_ts ||
	     (c->rx_verified && ts - c->peer_last_ts >
	      now - c->rx_last_ns + SPRAY_TS_SLACK_NS))) {
		spray_mib_drop(sn, SPRAY_DROP_STALE);
		spray_rx_challenge(c, p, now, q);
		return false;
	}
	spray_rx_reset(c, p->src_cid, ts, now);
	return true;
}

/* A packet of the current incarnation was accepted. */
static void spray_rx_accepted(struct spray_conn *c, const struct spray_pkt *p,
			      u64 now)
{
	c->last_active_ns = now;
	c->rx_last_ns = now;
	c->rx_mtu = max_t(u32, c->rx_mtu, p->data.frag_len);
	c->peer_last_ts = max(c->peer_last_ts, p->data.ts_ns);
	if (p->dst_cid && p->dst_cid == c->ack_cid)
		c->rx_verified = true;
}

static void spray_rcv_data(struct spray_conn *c, struct sk_buff *skb,
			   const struct spray_pkt *p, bool ce, u64 now,
			   struct sk_buff_head *q)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_rmsg *rm;
	bool admitted;
	int err;

	if (!spray_rx_incarnation(c, p, now, q))
		return;

	if (spray_rxwin_received(&c->rx, p->psn) ||
	    p->psn - c->rx.cum >= SPRAY_RXWIN_BITS) {
		/* duplicate, or outside the window: let rxwin count it */
		err = spray_rxwin_rcv(&c->rx, p->psn, p->flags, ce,
				      p->data.ts_ns, p->ev, now);
		spray_mib_drop(sn, -err);
		return;
	}
	admitted = c->rx_left_msgs;
	rm = spray_rmsg_get(c, p);
	admitted = c->rx_left_msgs > admitted;
	if (rm == ERR_PTR(-EINVAL)) {
		spray_mib_drop(sn, SPRAY_DROP_FRAG);
		return;
	}
	if (rm == ERR_PTR(-EMSGSIZE) && !spray_rx_skip(c, p->data.msg_id)) {
		/*
		 * Longer than we take: acknowledged and discarded, every
		 * packet of it, and the sender told to fail it (only when
		 * the sender can learn its failure: acked, so that the rest
		 * of the connection goes on).
		 */
		err = spray_rxwin_rcv(&c->rx, p->psn, p->flags, ce,
				      p->data.ts_ns, p->ev, now);
		if (WARN_ON_ONCE(err))
			return;
		spray_rx_accepted(c, p, now);
		spray_mib_drop(sn, SPRAY_DROP_MSG_SIZE);
		spray_queue_nack(c, p->psn, 1, SPRAY_NACK_MSG_SIZE, q);
		return;
	}
	if (!IS_ERR(rm)) {
		err = spray_rmsg_frag(rm, p->data.frag_off, p->data.frag_len);
		if (err == -EINVAL) {
			spray_mib_drop(sn, SPRAY_DROP_FRAG);
			return;
		}
		if (err)
			rm = ERR_PTR(err);
	}
	if (!IS_ERR(rm) && spray_rmsg_fill(rm, skb, p->hdr_len,
					   p->data.frag_off,
					   p->data.frag_len)) {
		spray_rmsg_unfrag(rm, p->data.frag_off, p->data.frag_len);
		rm = ERR_PTR(-ENOMEM);
	}
	if (IS_ERR(rm)) {
		/*
		 * No memory or buffer: not received. Tell the sender it was
		 * refused, not lost: it resends without spending retries.
		 * The sender is alive: the connection is not idle.
		 */
		c->last_active_ns = now;
		if (spray_psn_after(p->psn + 1, c->rx_refused_top))
			c->rx_refused_top = p->psn + 1;
		c->rx_resume = true;
		spray_queue_nack(c, p->psn, 1, SPRAY_NACK_NO_BUF, q);
		return;
	}
	err = spray_rxwin_rcv(&c->rx, p->psn, p->flags, ce, p->data.ts_ns,
			      p->ev, now);
	if (WARN_ON_ONCE(err))
		return;
	spray_rx_accepted(c, p, now);
	c->rx_left_bytes -= p->data.frag_len;
	/* its other packets may have been refused: they fit now */
	if (admitted)
		spray_queue_resume(c, q);
	c->stat_rx++;
	spray_mib_inc(sn, SPRAY_MIB_RX_PKTS);
	spray_mib_add(sn, SPRAY_MIB_RX_BYTES, p->data.frag_len);
	if (ce)
		spray_mib_inc(sn, SPRAY_MIB_ECN_CE);
	if (rm->got >= rm->len)
		spray_rx_complete(c, rm);
}

static void spray_rcv_ack(struct spray_conn *c, const struct spray_pkt *p,
			  u64 now)
{
	struct spray_txack_sum sum;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_ACK_RX);
	if (spray_txwin_on_ack(&c->tw, &p->ack, now, &spray_tx_ops, c, &sum))
		return;
	c->synced = true;
	c->peer_ack_cid = p->src_cid;
	c->last_active_ns = now;
	spray_nscc_on_ack(&c->nscc, &c->cc, &sum, c->tw.min_rtt_ns, now);
	if (c->tw.failed)
		spray_tx_fail_all(c, ETIMEDOUT);
	else
		spray_write_space(&c->ss->sk);
}

static void spray_rcv_nack(struct spray_conn *c, const struct spray_pkt *p,
			   u64 now)
{
	int ret;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_NACK_RX);
	ret = spray_txwin_on_nack(&c->tw, p->nack.psn, p->nack.count,
				  p->nack.reason, p->nack.cum_psn,
				  p->nack.grant_psn, now, &spray_tx_ops, c);
	if (ret == -EINVAL)
		return;
	c->last_active_ns = now;
	if (ret == -EMSGSIZE) {
		spray_tx_msg_size(c, p->nack.psn);
		spray_write_space(&c->ss->sk);
		return;
	}
	if (ret != -ECONNRESET) {
		if (c->tw.failed)
			spray_tx_fail_all(c, ETIMEDOUT);
		return;
	}
	/*
	 * The peer has no state for us. If it never acknowledged this
	 * incarnation, nobody listens there: the messages fail. Else it
	 * restarted (or forgot us, idle): send everything again in a new
	 * incarnation.
	 */
	if (!c->synced) {
		spray_tx_fail_all(c, ECONNREFUSED);
	} else {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_CONN_RESET);
		/* the settings were valid when the connection started */
		WARN_ON_ONCE(spray_tx_restart(c));
	}
}

/* Echo a PROBE on the entropy value it came on, so its path is known. */
static void spray_answer_probe(struct spray_conn *c, const struct spray_pkt *in,
			       u64 now, struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	p.type = SPRAY_T_ACK;
	p.flags = SPRAY_F_PROBE;
	p.src_cid = c->ack_cid;
	p.dst_cid = in->src_cid;
	p.ack.ts_echo = in->probe.ts_ns;
	p.ack.ev_echo = in->ev;
	p.ack.echo_psn = in->probe.probe_id;
	skb = spray_pkt_skb(c, &p, 0, spray_ctrl_ev(c));
	if (skb)
		__skb_queue_tail(q, skb);
}

/* A probe came back: its entropy value works again. */
static void spray_probe_acked(struct spray_conn *c, const struct spray_pkt *p,
			      u64 now)
{
	u32 idx = p->ack.echo_psn;

	if (idx >= c->path.cfg.n ||
	    spray_path_port(&c->path, idx) != p->ack.ev_echo)
		return;
	c->last_active_ns = now;
	if (c->evs[idx].state == SPRAY_EV_DOWN)
		spray_conn_path_event(c, idx, true);
	spray_path_on_ack(&c->path, idx, false, now);
}

/**
 * spray_conn_rcv() - handle one AF_SPRAY packet
 * @sn: the namespace it arrived in
 * @skb: the packet, skb->data at the AF_SPRAY header; consumed
 * @from: source address (port filled here from the header)
 * @to: destination address
 * @ce: the IP header carried ECN CE
 *
 * Softirq, under rcu_read_lock(). Only packets valid for a connection
 * (DATA of its incarnation, ACKs and NACKs naming our incarnation, PROBEs
 * of the peer's) count as activity that keeps it from idling out.
 */
void spray_conn_rcv(struct spray_net *sn, struct sk_buff *skb,
		    const struct spray_addr *from,
		    const struct spray_addr *to, bool ce)
{
	u8 hdr[SPRAY_ACK_LEN];
	struct spray_addr peer = *from;
	struct sk_buff_head q;
	struct spray_sock *ss;
	struct spray_conn *c;
	struct sk_buff *nack;
	struct spray_pkt p;
	u32 len = skb->len;
	u64 now;
	int err;

	__skb_queue_head_init(&q);
	err = spray_pkt_parse(skb_header_pointer(skb, 0,
						 min_t(u32, len, sizeof(hdr)),
						 hdr) ?: hdr, len, &p);
	if (err) {
		spray_mib_drop(sn, -err);
		goto out;
	}
	peer.port = p.sport;
	now = ktime_get_ns();
	ss = spray_sock_lookup_rcu(sn, p.dport, to);
	if (!ss) {
		spray_mib_inc(sn, SPRAY_MIB_NO_SOCKET);
		/* Port unreachable: the sender fails fast. */
		if (p.type == SPRAY_T_DATA) {
			nack = spray_nack_skb(sn, &peer, &to->v6, &p, now);
			if (nack)
				spray_udp_xmit(sn, nack);
		}
		goto out;
	}

	spin_lock_bh(&ss->lock);
	if (ss->dead)
		goto out_unlock;
	if (p.type == SPRAY_T_DATA && ss->closing) {
		/* closed: nothing more is received, the sender is told */
		spray_mib_drop(sn, SPRAY_DROP_CLOSED);
		nack = spray_nack_skb(sn, &peer, &to->v6, &p, now);
		if (nack)
			__skb_queue_tail(&q, nack);
		goto out_unlock;
	}
	c = spray_conn_find(ss, &peer, &to->v6);
	if (!c) {
		if (p.type != SPRAY_T_DATA) {
			spray_mib_drop(sn, SPRAY_DROP_STALE);
			goto out_unlock;
		}
		if (!(p.flags & SPRAY_F_SYN)) {
			/*
			 * We forgot the sender (we restarted, or idled out):
			 * it starts a new incarnation and sends again.
			 */
			spray_mib_drop(sn, SPRAY_DROP_STALE);
			nack = spray_nack_skb(sn, &peer, &to->v6, &p, now);
			if (nack)
				__skb_queue_tail(&q, nack);
			goto out_unlock;
		}
		/* state for unknown senders is bounded per socket and netns */
		if (ss->nconns >= SPRAY_MAX_CONNS ||
		    atomic_read(&sn->nconns) >= SPRAY_MAX_NET_CONNS) {
			spray_mib_drop(sn, SPRAY_DROP_LIMIT);
			goto out_unlock;
		}
		c = spray_conn_alloc(ss, &peer, GFP_ATOMIC);
		if (!c)
			goto out_unlock;
		c->saddr = to->v6;
		spray_conn_insert(ss, c);
	}

	switch (p.type) {
	case SPRAY_T_DATA:
		spray_rcv_data(c, skb, &p, ce, now, &q);
		if (c->peer_cid) {
			spray_queue_acks(c, now, &q);
			spray_queue_nacks(c, now, &q);
		}
		break;
	case SPRAY_T_PROBE:
		if (!c->peer_cid || p.src_cid != c->peer_cid) {
			spray_mib_drop(sn, SPRAY_DROP_STALE);
			break;
		}
		c->last_active_ns = now;
		spray_answer_probe(c, &p, now, &q);
		break;
	case SPRAY_T_ACK:
	case SPRAY_T_NACK:
		if (!c->tx_ready || p.dst_cid != c->local_cid) {
			spray_mib_drop(sn, SPRAY_DROP_STALE);
			break;
		}
		if (p.type == SPRAY_T_NACK)
			spray_rcv_nack(c, &p, now);
		else if (p.flags & SPRAY_F_PROBE)
			spray_probe_acked(c, &p, now);
		else
			spray_rcv_ack(c, &p, now);
		spray_conn_pump(c, now, &q);
		spray_conn_linger_check(c);
		break;
	default:
		break;
	}
	spray_conn_arm(c, now);
out_unlock:
	spin_unlock_bh(&ss->lock);
	spray_xmit_queue(sn, &q);
out:
	consume_skb(skb);
}

/* ---- timers ---- */

static u64 spray_earliest(u64 a, u64 b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return min(a, b);
}

/*
 * Nothing queued, in flight or owed an ACK. Messages being reassembled do
 * not count: a sender silent for the idle timeout gave up on them (or
 * never existed: a spoofed SYN), and they must not pin the connection and
 * the receive buffer for ever; but see spray_conn_rx_held().
 */
static bool spray_conn_idle(const struct spray_conn *c)
{
	if (!spray_conn_tx_done(c))
		return false;
	return !(c->peer_cid && c->rx.unacked);
}

/*
 * Partial messages wait while the application has messages to read: the
 * sender may be silent for lack of credit, which reading gives back.
 */
static bool spray_conn_rx_held(const struct spray_conn *c)
{
	return (!list_empty(&c->rmsgs) || !list_empty(&c->rdone)) &&
	       !list_empty(&c->ss->rxq);
}

static u64 spray_conn_idle_deadline(const struct spray_conn *c)
{
	u32 ms = READ_ONCE(spray_conn_net(c)->cfg.idle_timeout_ms);

	return c->last_active_ns + (u64)ms * NSEC_PER_MSEC;
}

/* The persist timer applies: the grant stops new data that waits. */
static u64 spray_conn_persist_deadline(struct spray_conn *c)
{
	u64 t;

	if (!c->tx_ready)
		return 0;
	t = spray_txwin_persist_deadline(&c->tw);
	return t && spray_conn_next_new(c) ? t : 0;
}

/* Arm the timer for the next ACK, NACK, loss, RTO or persist deadline. */
static void spray_conn_arm(struct spray_conn *c, u64 now)
{
	u64 t = 0;

	if (c->ss->dead)
		return;
	if (c->peer_cid) {
		u32 rtt = c->tx_ready && c->tw.srtt_ns ? c->tw.srtt_ns :
			  1000000;

		if (c->rx.unacked)
			t = spray_earliest(t, spray_rxwin_ack_deadline(&c->rx));
		t = spray_earliest(t, spray_rxwin_nack_deadline(&c->rx, rtt));
	}
	if (c->tx_ready && spray_txwin_outstanding(&c->tw))
		t = spray_earliest(t, spray_txwin_rto_deadline(&c->tw));
	if (c->pump_more)
		t = spray_earliest(t, c->pump_at);
	t = spray_earliest(t, spray_conn_persist_deadline(c));
	if (!t && spray_conn_idle(c))
		t = spray_conn_idle_deadline(c);
	if (!t)
		return;
	if (t <= now)
		t = now + 1000;
	hrtimer_start(&c->timer, ns_to_ktime(t), HRTIMER_MODE_ABS_SOFT);
}

static enum hrtimer_restart spray_conn_timer(struct hrtimer *t)
{
	struct spray_conn *c = container_of(t, struct spray_conn, timer);
	struct spray_sock *ss = c->ss;
	struct spray_net *sn = spray_net(sock_net(&ss->sk));
	struct sk_buff_head q;
	u64 now, rto;

	__skb_queue_head_init(&q);
	spin_lock_bh(&ss->lock);
	if (ss->dead)
		goto out;
	now = ktime_get_ns();
	if (spray_conn_idle(c) && now >= spray_conn_idle_deadline(c) &&
	    spray_conn_rx_held(c)) {
		/* look again one idle timeout later */
		c->last_active_ns = now;
	} else if (spray_conn_idle(c) && now >= spray_conn_idle_deadline(c)) {
		/* Idle for idle-timeout-ms: unhash, free outside the timer. */
		hlist_del(&c->node);
		ss->nconns--;
		atomic_dec(&sn->nconns);
		spray_mib_inc(sn, SPRAY_MIB_CONN_CLOSE);
		sock_hold(&ss->sk);
		queue_work(spray_wq, &c->free_work);
		goto out;
	}
	if (c->peer_cid) {
		spray_queue_acks(c, now, &q);
		spray_queue_nacks(c, now, &q);
	}
	if (c->tx_ready) {
		/*
		 * No RACK here: a timer that fires late (a busy or stalled
		 * host) would find packets old whose ACKs wait in the receive
		 * queue. RACK runs as ACKs arrive; the RTO covers the tail.
		 */
		rto = spray_txwin_rto_deadline(&c->tw);
		if (rto && rto <= now) {
			spray_mib_inc(sn, SPRAY_MIB_RTO);
			spray_txwin_on_rto(&c->tw, now, &spray_tx_ops, c);
		}
		/* the grant stops us, and its ACK may be lost: probe */
		if (spray_conn_persist_deadline(c) &&
		    spray_txwin_on_persist(&c->tw, now))
			spray_mib_inc(sn, SPRAY_MIB_WINDOW_PROBES);
		if (c->tw.failed)
			spray_tx_fail_all(c, ETIMEDOUT);
		spray_conn_pump(c, now, &q);
		spray_conn_linger_check(c);
	}
	spray_conn_arm(c, now);
out:
	spin_unlock_bh(&ss->lock);
	spray_xmit_queue(sn, &q);
	return HRTIMER_NORESTART;
}

/* ---- the socket ---- */

/**
 * spray_sock_set_cc_mode() - change a socket's congestion control mode
 * @ss: the socket
 * @mode: enum spray_cc_mode, checked by the caller
 *
 * Applies at once to the socket's connections and to those it makes later.
 */
void spray_sock_set_cc_mode(struct spray_sock *ss, u8 mode)
{
	struct spray_conn *c;
	unsigned int i;

	spin_lock_bh(&ss->lock);
	WRITE_ONCE(ss->cc_mode, mode);
	for (i = 0; i < ARRAY_SIZE(ss->conns); i++)
		hlist_for_each_entry(c, &ss->conns[i], node)
			c->cc.mode = mode;
	spin_unlock_bh(&ss->lock);
}

/**
 * spray_sock_set_ordered() - switch ordered delivery (SPRAY_ORDERED)
 * @ss: the socket
 * @ordered: the new setting
 *
 * Turning it off is always possible: messages held back for order go to
 * the socket at once, in order. Turning it on needs to know, for each
 * peer, which message comes next: only while no connection receives (a
 * new incarnation starts at message 0).
 *
 * Return: 0, or -EBUSY if a connection is receiving.
 */
int spray_sock_set_ordered(struct spray_sock *ss, bool ordered)
{
	struct spray_rmsg *rm, *tmp;
	struct spray_conn *c;
	bool ready = false;
	unsigned int i;
	int err = 0;

	spin_lock_bh(&ss->lock);
	if (ordered == ss->ordered)
		goto out;
	for (i = 0; i < ARRAY_SIZE(ss->conns); i++) {
		hlist_for_each_entry(c, &ss->conns[i], node) {
			if (ordered && c->peer_cid) {
				err = -EBUSY;
				goto out;
			}
			list_for_each_entry_safe(rm, tmp, &c->rdone, node) {
				if (rm->skipped) {
					spray_rmsg_free(ss, rm);
					continue;
				}
				list_move_tail(&rm->node, &ss->rxq);
				ready = true;
			}
		}
	}
	WRITE_ONCE(ss->ordered, ordered);
out:
	spin_unlock_bh(&ss->lock);
	if (ready)
		spray_data_ready(ss);
	return err;
}

/**
 * spray_sock_rmem_freed() - the application read: open the receive windows
 * @ss: the socket
 *
 * Called after recvmsg() freed a message: connections whose grant can now
 * move forward tell their sender at once.
 */
void spray_sock_rmem_freed(struct spray_sock *ss)
{
	struct spray_net *sn = spray_net(sock_net(&ss->sk));
	struct sk_buff_head q;
	struct spray_conn *c;
	u64 now = ktime_get_ns();
	unsigned int i;

	__skb_queue_head_init(&q);
	spin_lock_bh(&ss->lock);
	for (i = 0; i < ARRAY_SIZE(ss->conns) && !ss->dead; i++)
		hlist_for_each_entry(c, &ss->conns[i], node) {
			u32 old = c->rcc.grant;

			if (!c->peer_cid)
				continue;
			if (c->rx_resume)
				spray_queue_resume(c, &q);
			else if (spray_conn_grant(c) != old)
				spray_queue_ack(c, now, &q);
		}
	spin_unlock_bh(&ss->lock);
	spray_xmit_queue(sn, &q);
}

/**
 * spray_sock_close_rx() - close(): stop receiving, keep what must be sent
 * @ss: the socket
 * @drop: drop queued messages too (SO_LINGER with a zero timeout)
 *
 * Messages received and not read, errors not read and messages being
 * reassembled go; DATA arriving from now on is answered with NACK NO_CONN
 * (the sender's messages fail with ECONNREFUSED). Unless @drop, each
 * connection with messages not yet acknowledged lingers: it goes on
 * delivering them, bounded by the retry limit (a receiver that refuses
 * them for lack of buffer now spends it too).
 *
 * Return: the number of connections that linger.
 */
unsigned int spray_sock_close_rx(struct spray_sock *ss, bool drop)
{
	struct spray_tmsg *m, *mtmp;
	struct spray_rmsg *rm, *tmp;
	struct spray_conn *c;
	unsigned int i, n;

	spin_lock_bh(&ss->lock);
	ss->closing = true;
	list_for_each_entry_safe(rm, tmp, &ss->rxq, node)
		spray_rmsg_free(ss, rm);
	list_for_each_entry_safe(m, mtmp, &ss->errq, node) {
		list_del(&m->node);
		spray_rmem_uncharge(&ss->sk, m->charge);
		kvfree(m->buf);
		kfree(m);
	}
	ss->errq_len = 0;
	for (i = 0; i < ARRAY_SIZE(ss->conns); i++) {
		hlist_for_each_entry(c, &ss->conns[i], node) {
			spray_rx_close(c);
			if (drop || spray_conn_tx_done(c))
				continue;
			c->lingering = true;
			c->tw.refusal_costs = true;
			ss->nlinger++;
		}
	}
	n = ss->nlinger;
	spin_unlock_bh(&ss->lock);
	return n;
}

/**
 * spray_sock_linger_wait() - wait for the lingering connections
 * @ss: the socket, still with its file (SO_LINGER with a timeout)
 * @timeo: how long, jiffies
 *
 * Return: the connections still lingering (0: all delivered or failed).
 */
unsigned int spray_sock_linger_wait(struct spray_sock *ss, long timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &ss->sk;

	add_wait_queue(sk_sleep(sk), &wait);
	while (READ_ONCE(ss->nlinger) && timeo && !signal_pending(current))
		timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, timeo);
	remove_wait_queue(sk_sleep(sk), &wait);
	return READ_ONCE(ss->nlinger);
}

/**
 * spray_sock_orphan() - let a closed socket's connections linger
 * @ss: the socket, without its file now
 *
 * Return: true if connections linger (the socket stays, holding the
 * reference of its file, until spray_sock_linger_work() or the
 * namespace's exit ends it), false if none does any more.
 */
bool spray_sock_orphan(struct spray_sock *ss)
{
	bool linger;

	spin_lock_bh(&ss->lock);
	linger = ss->nlinger;
	ss->orphan = linger;
	spin_unlock_bh(&ss->lock);
	return linger;
}

/**
 * spray_sock_teardown() - free a closed socket's connections
 * @ss: the socket, closing
 *
 * Unbinds it and frees everything it holds. Process context. After this
 * no timer of the socket runs and the queues are empty.
 */
void spray_sock_teardown(struct spray_sock *ss)
{
	struct spray_net *sn = spray_net(sock_net(&ss->sk));
	struct hlist_node *tmp;
	struct spray_conn *c;
	HLIST_HEAD(dead);
	unsigned int i;

	spray_port_unbind(sn, ss);
	spray_sock_close_rx(ss, true);
	spin_lock_bh(&ss->lock);
	ss->dead = true;
	for (i = 0; i < ARRAY_SIZE(ss->conns); i++) {
		hlist_for_each_entry_safe(c, tmp, &ss->conns[i], node) {
			hlist_del(&c->node);
			hlist_add_head(&c->node, &dead);
		}
	}
	atomic_sub(ss->nconns, &sn->nconns);
	ss->nconns = 0;
	ss->nlinger = 0;
	spin_unlock_bh(&ss->lock);

	hlist_for_each_entry_safe(c, tmp, &dead, node) {
		spray_mib_inc(sn, SPRAY_MIB_CONN_CLOSE);
		spray_conn_free(c);
	}
	spin_lock_bh(&ss->lock);
	sk_mem_reclaim_final(&ss->sk);
	spin_unlock_bh(&ss->lock);
}

/* A new socket: nothing lingers yet. */
void spray_sock_init_linger(struct spray_sock *ss)
{
	INIT_WORK(&ss->linger_work, spray_sock_linger_work);
}

/* The last lingering connection of an orphan finished: free the socket. */
static void spray_sock_linger_work(struct work_struct *work)
{
	struct spray_sock *ss = container_of(work, struct spray_sock,
					     linger_work);

	if (!test_and_set_bit(SPRAY_SS_GONE, &ss->flags)) {
		spray_sock_teardown(ss);
		sock_put(&ss->sk);	/* the reference the file had */
	}
	sock_put(&ss->sk);		/* the work's */
}

/**
 * spray_net_kill_orphans() - end the lingering sockets of a namespace
 * @sn: the namespace, exiting (or the module unloading)
 *
 * Orphans hold no reference on their namespace: its exit ends them, with
 * what they had left to deliver.
 */
void spray_net_kill_orphans(struct spray_net *sn)
{
	struct spray_sock *ss, *found;
	unsigned int b;

	for (;;) {
		found = NULL;
		spin_lock_bh(&sn->port_lock);
		for (b = 0; b < SPRAY_PORT_HASH_SIZE && !found; b++)
			hlist_for_each_entry(ss, &sn->ports[b], bind_node)
				if (READ_ONCE(ss->orphan)) {
					found = ss;
					sock_hold(&ss->sk);
					break;
				}
		spin_unlock_bh(&sn->port_lock);
		if (!found)
			return;
		if (!test_and_set_bit(SPRAY_SS_GONE, &found->flags)) {
			spray_sock_teardown(found);
			sock_put(&found->sk);	/* the file's reference */
		} else {
			/* its linger work is tearing it down */
			flush_work(&found->linger_work);
		}
		sock_put(&found->sk);
	}
}

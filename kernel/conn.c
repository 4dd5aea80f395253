// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY connections: sending and receiving messages with the protocol
 * core (txwin, rxwin, path, cc) under one lock per socket.
 *
 * A connection is one socket's state for one peer socket (address + spray
 * port). It has two independent halves:
 *  - sending: our incarnation (local_cid), its send window, the entropy
 *    values (paths) and the congestion window;
 *  - receiving: the peer's incarnation (peer_cid), its receive window,
 *    receiver credit and the messages being reassembled.
 * Everything runs under spray_sock.lock with BH off; packets are built under
 * the lock into a queue and transmitted after it is released.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errqueue.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/udp.h>

#include "conn.h"
#include "netlink.h"

/* room in front of our header for UDP, IP and the link layer */
#define SPRAY_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			 sizeof(struct udphdr))
/* errors queued for MSG_ERRQUEUE before new ones are dropped */
#define SPRAY_MAX_ERRQ	1024

static void spray_conn_arm(struct spray_conn *c, u64 now);
static void spray_conn_free_work(struct work_struct *work);

/* frees idle connections: process context, flushed at module exit */
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

static struct spray_conn *spray_conn_find(struct spray_sock *ss,
					  const struct spray_addr *remote)
{
	struct spray_conn *c;

	hlist_for_each_entry(c, &ss->conns[spray_addr_hash(remote)], node)
		if (spray_addr_eq(&c->remote, remote))
			return c;
	return NULL;
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

/* ---- messages ---- */

static void spray_tmsg_free(struct spray_sock *ss, struct spray_tmsg *m)
{
	list_del(&m->node);
	WRITE_ONCE(ss->sk.sk_wmem_queued, ss->sk.sk_wmem_queued - m->len);
	kvfree(m->buf);
	kfree(m);
}

/*
 * What a message costs the receive buffer: its pages (allocated as the
 * fragments arrive), not its length, so that SO_RCVBUF bounds the memory
 * that partial and unread messages hold; a 1-byte message takes a page.
 */
static u32 spray_rmsg_charge(u32 len)
{
	return PAGE_ALIGN(len);
}

void spray_rmsg_free(struct spray_sock *ss, struct spray_rmsg *rm)
{
	u32 i;

	list_del(&rm->node);
	for (i = 0; i < rm->npages; i++)
		if (rm->pages[i])
			__free_page(rm->pages[i]);
	atomic_sub(spray_rmsg_charge(rm->len), &ss->sk.sk_rmem_alloc);
	bitmap_free(rm->fmap);
	kfree(rm->pages);
	kfree(rm);
}

/* Wake writers once the queue has room. */
bool spray_sock_wspace(const struct sock *sk)
{
	return READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf);
}

static void spray_write_space(struct sock *sk)
{
	struct socket_wq *wq;

	if (!spray_sock_wspace(sk))
		return;
	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_sync_poll(&wq->wait, EPOLLOUT |
						EPOLLWRNORM | EPOLLWRBAND);
	sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

/*
 * Report a message that will not be delivered on the error queue
 * (recvmsg(MSG_ERRQUEUE)): the destination, the user's cookie and an errno.
 */
static void spray_tmsg_fail(struct spray_conn *c, struct spray_tmsg *m,
			    int err)
{
	struct spray_sock *ss = c->ss;
	struct sock *sk = &ss->sk;
	struct sock_exterr_skb *serr;
	struct spray_errinfo *info;
	struct sk_buff *skb;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_MSG_FAILED);
	if (skb_queue_len(&sk->sk_error_queue) >= SPRAY_MAX_ERRQ)
		goto out;
	skb = alloc_skb(sizeof(*info), GFP_ATOMIC);
	if (!skb)
		goto out;
	info = skb_put_zero(skb, sizeof(*info));
	spray_addr_to_user(&c->remote, &info->addr);
	info->cookie = m->cookie;
	serr = SKB_EXT_ERR(skb);
	memset(serr, 0, sizeof(*serr));
	serr->ee.ee_errno = err;
	serr->ee.ee_origin = SO_EE_ORIGIN_LOCAL;
	serr->ee.ee_info = m->len;
	skb_queue_tail(&sk->sk_error_queue, skb);
	sk_error_report(sk);
out:
	spray_tmsg_free(ss, m);
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

	if (WARN_ON_ONCE(!m))
		return;
	p.type = SPRAY_T_DATA;
	p.flags = (retx ? SPRAY_F_RETX : 0) |
		  (probe ? SPRAY_F_ACK_REQ : 0) |
		  (c->synced ? 0 : SPRAY_F_SYN);
	p.src_cid = c->local_cid;
	p.dst_cid = c->peer_cid;
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
	p.dst_cid = c->peer_cid;
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

/*
 * Send what the windows allow: retransmissions first, then new data, at
 * most SPRAY_TX_BURST packets; if room is left, the timer goes on with the
 * next burst once this one is out (spray_conn_arm()).
 */
static void spray_conn_pump(struct spray_conn *c, u64 now,
			    struct sk_buff_head *q)
{
	u32 cwnd, psn, len, room, n = 0;
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
	list_for_each_entry(m, &c->tmsgs, node) {
		while (m->next_off < m->len) {
			room = spray_txwin_room(&c->tw, cwnd);
			if (!room)
				return;
			if (n == SPRAY_TX_BURST)
				goto more;
			len = min(c->frag_size, m->len - m->next_off);
			ev = spray_pick_data_ev(c, now, q);
			if (ev < 0)
				return;
			probe = false;
			psn = spray_txwin_send_new(&c->tw, now, (u16)ev,
						   m->msg_id, m->next_off,
						   (u16)len);
			m->next_off += len;
			spray_queue_data(c, psn, spray_txwin_rec(&c->tw, psn),
					 ev, probe, false, now, q);
			n++;
		}
	}
	return;
more:
	c->pump_more = true;
	c->pump_at = now;
}

static u32 spray_conn_grant(struct spray_conn *c)
{
	struct spray_cc_cfg cfg = c->cc;
	struct sock *sk = &c->ss->sk;
	u32 rcvd = c->rx.above;
	struct spray_rmsg *rm;
	s64 free_b;

	/* credit counts packets of the size the peer sends */
	if (c->rx_mtu)
		cfg.mtu = c->rx_mtu;
	free_b = READ_ONCE(sk->sk_rcvbuf) - atomic_read(&sk->sk_rmem_alloc);
	free_b = max_t(s64, free_b, 0);
	/*
	 * The rest of the messages already admitted has its room charged:
	 * credit for all of it (rounded up to whole packets), or a message
	 * larger than the free room (the one that always fits) could never
	 * complete.
	 */
	list_for_each_entry(rm, &c->rmsgs, node)
		free_b += rm->len - rm->got + cfg.mtu - 1;
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
				    rcvd, (u32)clamp_t(s64, free_b, 0, U32_MAX));
}

static void spray_queue_ack(struct spray_conn *c, u64 now,
			    struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	p.type = SPRAY_T_ACK;
	p.src_cid = c->tx_ready ? c->local_cid : c->peer_cid;
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

/* A NACK answering a packet, when there may be no connection at all. */
static struct sk_buff *spray_nack_skb(const struct spray_addr *to,
				      const struct in6_addr *saddr,
				      const struct spray_pkt *in, u8 reason)
{
	struct spray_pkt p = {};

	p.type = SPRAY_T_NACK;
	p.src_cid = in->dst_cid ? in->dst_cid : 1;
	p.dst_cid = in->src_cid;
	p.nack.psn = in->psn;
	p.nack.count = 1;
	p.nack.reason = reason;
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
	p.src_cid = c->tx_ready ? c->local_cid : c->peer_cid;
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
	if (m->acked >= m->len) {
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

static void spray_tx_failed(void *ctx, u32 psn, const struct spray_txrec *rec)
{
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
	.failed	= spray_tx_failed,
	.spurious = spray_tx_spurious,
};

/*
 * Start a new sending incarnation: new cid and psn space, every message not
 * fully acknowledged is sent again from its first byte (the peer lost its
 * state, or ours failed).
 */
static void spray_tx_restart(struct spray_conn *c)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_txwin_cfg tcfg;
	struct spray_tmsg *m;

	spray_txwin_cfg_default(&tcfg);
	tcfg.rto_min_ns = READ_ONCE(sn->cfg.rto_min_us) * NSEC_PER_USEC;
	tcfg.rto_max_ns = READ_ONCE(sn->cfg.rto_max_us) * NSEC_PER_USEC;
	tcfg.rto_init_ns = max(tcfg.rto_init_ns, tcfg.rto_min_ns);
	tcfg.max_retx = min_t(u32, READ_ONCE(sn->cfg.retry_limit), 255);
	c->local_cid = spray_new_cid();
	c->synced = false;
	c->next_msg_id = 0;
	spray_txwin_init(&c->tw, c->ring, SPRAY_TX_RING, c->local_cid,
			 spray_rcc_initial_grant(&c->cc, c->local_cid), &tcfg);
	spray_nscc_init(&c->nscc, &c->cc);
	list_for_each_entry(m, &c->tmsgs, node) {
		m->msg_id = c->next_msg_id++;
		m->next_off = 0;
		m->acked = 0;
	}
}

/* Fail every queued message with @err and start afresh. */
static void spray_tx_fail_all(struct spray_conn *c, int err)
{
	struct spray_tmsg *m, *tmp;
	struct spray_addr local;

	spray_conn_local_addr(c, &local);
	spray_nl_notify_unreachable(spray_conn_net(c)->net, &local, &c->remote,
				    err);
	list_for_each_entry_safe(m, tmp, &c->tmsgs, node)
		spray_tmsg_fail(c, m, err);
	spray_tx_restart(c);
	spray_write_space(&c->ss->sk);
}

/* The sending half, allocated on the first message to the peer. */
static int spray_conn_tx_init(struct spray_conn *c, struct spray_net *sn)
{
	BUILD_BUG_ON(sizeof(struct spray_skb_cb) > sizeof_field(struct sk_buff, cb));
	struct spray_path_cfg pcfg;
	u32 payload;
	int err;

	c->saddr = c->ss->local.v6;
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
		kfree(c->evs);
		kvfree(c->ring);
		c->evs = NULL;
		c->ring = NULL;
		return -ENOMEM;
	}
	spray_path_init(&c->path, c->evs, &pcfg, get_random_u32());
	spray_tx_restart(c);
	return 0;
}

static void spray_conn_free(struct spray_conn *c)
{
	struct spray_rmsg *rm, *rtmp;
	struct spray_tmsg *m, *tmp;

	hrtimer_cancel(&c->timer);
	list_for_each_entry_safe(m, tmp, &c->tmsgs, node)
		spray_tmsg_free(c->ss, m);
	list_for_each_entry_safe(rm, rtmp, &c->rmsgs, node)
		spray_rmsg_free(c->ss, rm);
	list_for_each_entry_safe(rm, rtmp, &c->rdone, node)
		spray_rmsg_free(c->ss, rm);
	if (c->peer_cid)
		spray_rcc_deactivate(&c->ss->rcc, &c->rcc);
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

/**
 * spray_sock_destroy_conns() - tear down a closing socket's connections
 * @ss: the socket, already unhashed from the port table
 *
 * Process context. After this no timer of the socket runs and the queues
 * are empty.
 */
void spray_sock_destroy_conns(struct spray_sock *ss)
{
	struct spray_rmsg *rm, *rtmp;
	struct hlist_node *tmp;
	struct spray_conn *c;
	HLIST_HEAD(dead);
	unsigned int i;

	spin_lock_bh(&ss->lock);
	ss->dead = true;
	for (i = 0; i < ARRAY_SIZE(ss->conns); i++) {
		hlist_for_each_entry_safe(c, tmp, &ss->conns[i], node) {
			hlist_del(&c->node);
			hlist_add_head(&c->node, &dead);
		}
	}
	atomic_sub(ss->nconns, &spray_net(sock_net(&ss->sk))->nconns);
	ss->nconns = 0;
	list_for_each_entry_safe(rm, rtmp, &ss->rxq, node)
		spray_rmsg_free(ss, rm);
	spin_unlock_bh(&ss->lock);

	hlist_for_each_entry_safe(c, tmp, &dead, node) {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_CONN_CLOSE);
		spray_conn_free(c);
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
 * above SO_SNDBUF.
 *
 * Return: @len, or -EAGAIN, -EFAULT, -ENOMEM, -ENETUNREACH (no route), a
 * signal's -EINTR/-ERESTARTSYS, or -EPIPE if the socket is closing or
 * was shut down for sending while waiting.
 */
int spray_conn_sendmsg(struct spray_sock *ss, const struct spray_addr *to,
		       struct msghdr *msg, size_t len, u64 cookie)
{
	struct spray_net *sn = spray_net(sock_net(&ss->sk));
	struct spray_conn *c, *fresh = NULL;
	struct sock *sk = &ss->sk;
	struct sk_buff_head q;
	struct spray_tmsg *m;
	long timeo;
	int err;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->buf = kvmalloc(len, GFP_KERNEL);
	if (!m->buf) {
		err = -ENOMEM;
		goto err_free;
	}
	m->len = len;
	m->cookie = cookie;
	if (!copy_from_iter_full(m->buf, len, &msg->msg_iter)) {
		err = -EFAULT;
		goto err_free;
	}

	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	while (!spray_sock_wspace(sk)) {
		DEFINE_WAIT_FUNC(wait, woken_wake_function);

		if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN) {
			err = -EPIPE;
			goto err_free;
		}
		if (!timeo) {
			err = -EAGAIN;
			goto err_free;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			goto err_free;
		}
		sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		add_wait_queue(sk_sleep(sk), &wait);
		if (!spray_sock_wspace(sk) &&
		    !(READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN))
			timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, timeo);
		remove_wait_queue(sk_sleep(sk), &wait);
	}

	spin_lock_bh(&ss->lock);
	c = spray_conn_find(ss, to);
	if (!c || !c->tx_ready) {
		spin_unlock_bh(&ss->lock);
		fresh = spray_conn_alloc(ss, to, GFP_KERNEL);
		if (!fresh) {
			err = -ENOMEM;
			goto err_free;
		}
		err = spray_conn_tx_init(fresh, sn);
		if (err)
			goto err_free;
		spin_lock_bh(&ss->lock);
		c = spray_conn_find(ss, to);
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
			c->saddr = fresh->saddr;
			c->frag_size = fresh->frag_size;
			c->cc = fresh->cc;
			spray_path_init(&c->path, c->evs, &fresh->path.cfg,
					get_random_u32());
			spray_tx_restart(c);
		}
		c->tx_ready = true;
	}
	if (ss->dead) {
		err = -EPIPE;
		goto err_unlock;
	}
	m->msg_id = c->next_msg_id++;
	list_add_tail(&m->node, &c->tmsgs);
	c->last_active_ns = ktime_get_ns();
	WRITE_ONCE(sk->sk_wmem_queued, sk->sk_wmem_queued + len);
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
	kvfree(m->buf);
	kfree(m);
	return err;
}

/* ---- the receiving half ---- */

/* Forget the peer's current incarnation and take @cid as the new one. */
static void spray_rx_reset(struct spray_conn *c, u32 cid)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_rxwin_cfg rcfg;
	struct spray_rmsg *rm, *tmp;

	if (c->peer_cid) {
		spray_mib_inc(sn, SPRAY_MIB_CONN_RESET);
		spray_rcc_deactivate(&c->ss->rcc, &c->rcc);
	}
	list_for_each_entry_safe(rm, tmp, &c->rmsgs, node)
		spray_rmsg_free(c->ss, rm);
	list_for_each_entry_safe(rm, tmp, &c->rdone, node)
		spray_rmsg_free(c->ss, rm);
	spray_rxwin_cfg_default(&rcfg);
	rcfg.ack_every = READ_ONCE(sn->cfg.ack_every);
	rcfg.ack_delay_ns = READ_ONCE(sn->cfg.ack_delay_us) * NSEC_PER_USEC;
	spray_rxwin_init(&c->rx, cid, &rcfg);
	spray_rcc_conn_init(&c->rcc, &c->cc, cid);
	spray_rcc_activate(&c->ss->rcc, &c->rcc);
	c->peer_cid = cid;
	c->peer_last_ts = 0;
	c->rx_next_id = 0;
	c->rx_refused_top = cid;
}

static void spray_data_ready(struct spray_sock *ss)
{
	ss->sk.sk_data_ready(&ss->sk);
}

/* Hand a complete message to the socket, in order if it asked for it. */
static void spray_rx_complete(struct spray_conn *c, struct spray_rmsg *rm)
{
	struct spray_sock *ss = c->ss;
	struct spray_rmsg *pos;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RX_MSGS);
	list_del(&rm->node);
	if (!READ_ONCE(ss->ordered)) {
		list_add_tail(&rm->node, &ss->rxq);
		spray_data_ready(ss);
		return;
	}
	/* rdone is sorted by msg_id (wrapping) */
	list_for_each_entry(pos, &c->rdone, node)
		if ((s32)(rm->msg_id - pos->msg_id) < 0)
			break;
	list_add_tail(&rm->node, &pos->node);
	while (!list_empty(&c->rdone)) {
		pos = list_first_entry(&c->rdone, struct spray_rmsg, node);
		if (pos->msg_id != c->rx_next_id)
			break;
		c->rx_next_id++;
		list_move_tail(&pos->node, &ss->rxq);
		spray_data_ready(ss);
	}
}

static struct spray_rmsg *spray_rmsg_get(struct spray_conn *c,
					 const struct spray_pkt *p)
{
	struct sock *sk = &c->ss->sk;
	struct spray_rmsg *rm;
	u32 len = p->data.msg_len;

	list_for_each_entry(rm, &c->rmsgs, node)
		if (rm->msg_id == p->data.msg_id)
			return rm->len == len ? rm : NULL;
	if (len > READ_ONCE(spray_conn_net(c)->cfg.max_msg))
		return NULL;
	/* Admit while under SO_RCVBUF; one message always fits. */
	if (atomic_read(&sk->sk_rmem_alloc) &&
	    atomic_read(&sk->sk_rmem_alloc) + spray_rmsg_charge(len) >
	    READ_ONCE(sk->sk_rcvbuf)) {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RCVBUF_FULL);
		return NULL;
	}
	rm = kzalloc(sizeof(*rm), GFP_ATOMIC);
	if (!rm)
		return NULL;
	rm->npages = DIV_ROUND_UP(len, PAGE_SIZE);
	rm->pages = kcalloc(rm->npages, sizeof(*rm->pages),
			    GFP_ATOMIC | __GFP_NOWARN);
	if (!rm->pages) {
		kfree(rm);
		return NULL;
	}
	rm->msg_id = p->data.msg_id;
	rm->len = len;
	rm->from = c->remote;
	rm->last_off = U32_MAX;
	atomic_add(spray_rmsg_charge(len), &sk->sk_rmem_alloc);
	list_add_tail(&rm->node, &c->rmsgs);
	return rm;
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

static void spray_rcv_data(struct spray_conn *c, struct sk_buff *skb,
			   const struct spray_pkt *p, bool ce, u64 now,
			   struct sk_buff_head *q)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_rmsg *rm;
	int err;

	if (p->src_cid != c->peer_cid) {
		/*
		 * A new incarnation needs SYN, and must be newer than the one
		 * we have: a late packet of an old incarnation never
		 * replaces the current one (unless that one fell silent).
		 */
		if (!(p->flags & SPRAY_F_SYN) ||
		    (c->peer_cid && p->data.ts_ns <= c->peer_last_ts &&
		     now - c->rx_last_ns < SPRAY_STALE_NS)) {
			spray_mib_drop(sn, SPRAY_DROP_STALE);
			if (!(p->flags & SPRAY_F_SYN)) {
				struct sk_buff *n;

				n = spray_nack_skb(&c->remote, &c->saddr, p,
						   SPRAY_NACK_NO_CONN);
				if (n)
					__skb_queue_tail(q, n);
			}
			return;
		}
		spray_rx_reset(c, p->src_cid);
	}

	if (spray_rxwin_received(&c->rx, p->psn) ||
	    p->psn - c->rx.cum >= SPRAY_RXWIN_BITS) {
		/* duplicate, or outside the window: let rxwin count it */
		err = spray_rxwin_rcv(&c->rx, p->psn, p->flags, ce,
				      p->data.ts_ns, p->ev, now);
		spray_mib_drop(sn, -err);
		return;
	}
	rm = spray_rmsg_get(c, p);
	if (rm) {
		err = spray_rmsg_frag(rm, p->data.frag_off, p->data.frag_len);
		if (err == -EINVAL) {
			spray_mib_drop(sn, SPRAY_DROP_FRAG);
			return;
		}
		if (err)
			rm = NULL;
	}
	if (rm && spray_rmsg_fill(rm, skb, p->hdr_len, p->data.frag_off,
				  p->data.frag_len)) {
		spray_rmsg_unfrag(rm, p->data.frag_off, p->data.frag_len);
		rm = NULL;
	}
	if (!rm) {
		/*
		 * No memory or buffer: not received. Tell the sender it was
		 * refused, not lost: it resends without spending retries.
		 */
		if (spray_psn_after(p->psn + 1, c->rx_refused_top))
			c->rx_refused_top = p->psn + 1;
		spray_queue_nack(c, p->psn, 1, SPRAY_NACK_NO_BUF, q);
		return;
	}
	err = spray_rxwin_rcv(&c->rx, p->psn, p->flags, ce, p->data.ts_ns,
			      p->ev, now);
	if (WARN_ON_ONCE(err))
		return;
	c->rx_last_ns = now;
	c->rx_mtu = max_t(u32, c->rx_mtu, p->data.frag_len);
	c->peer_last_ts = max(c->peer_last_ts, p->data.ts_ns);
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
	if (ret != -ECONNRESET)
		return;
	/*
	 * The peer has no state for us. If it never acknowledged this
	 * incarnation, nobody listens there: the messages fail. Else it
	 * restarted: send everything again in a new incarnation.
	 */
	if (!c->synced) {
		spray_tx_fail_all(c, ECONNREFUSED);
	} else {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_CONN_RESET);
		spray_tx_restart(c);
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
	p.src_cid = c->tx_ready ? c->local_cid : in->dst_cid ?: 1;
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
 * Softirq, under rcu_read_lock().
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
	ss = spray_sock_lookup_rcu(sn, p.dport, to);
	if (!ss) {
		spray_mib_inc(sn, SPRAY_MIB_NO_SOCKET);
		if (p.type == SPRAY_T_DATA) {
			struct sk_buff *n;

			/* Port unreachable: the sender fails fast. */
			n = spray_nack_skb(&peer, &to->v6, &p,
					   SPRAY_NACK_NO_CONN);
			if (n)
				spray_udp_xmit(sn, n);
		}
		goto out;
	}

	now = ktime_get_ns();
	spin_lock_bh(&ss->lock);
	if (ss->dead)
		goto out_unlock;
	c = spray_conn_find(ss, &peer);
	if (!c) {
		if (p.type != SPRAY_T_DATA || !(p.flags & SPRAY_F_SYN)) {
			spray_mib_drop(sn, SPRAY_DROP_STALE);
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

	c->last_active_ns = now;
	switch (p.type) {
	case SPRAY_T_DATA:
		spray_rcv_data(c, skb, &p, ce, now, &q);
		if (c->peer_cid)
			spray_queue_acks(c, now, &q);
		spray_queue_nacks(c, now, &q);
		break;
	case SPRAY_T_PROBE:
		spray_answer_probe(c, &p, now, &q);
		break;
	case SPRAY_T_ACK:
		if (p.flags & SPRAY_F_PROBE) {
			if (c->tx_ready && p.dst_cid == c->local_cid)
				spray_probe_acked(c, &p, now);
			break;
		}
		fallthrough;
	case SPRAY_T_NACK:
		if (!c->tx_ready || p.dst_cid != c->local_cid) {
			spray_mib_drop(sn, SPRAY_DROP_STALE);
			break;
		}
		if (p.type == SPRAY_T_ACK)
			spray_rcv_ack(c, &p, now);
		else
			spray_rcv_nack(c, &p, now);
		spray_conn_pump(c, now, &q);
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
	if (c->tx_ready && (!list_empty(&c->tmsgs) ||
			    spray_txwin_outstanding(&c->tw)))
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

/* Arm the timer for the next ACK, NACK, loss or RTO deadline. */
static void spray_conn_arm(struct spray_conn *c, u64 now)
{
	u64 t = 0;

	if (c->ss->dead)
		return;
	if (c->peer_cid) {
		if (c->rx.unacked)
			t = spray_earliest(t, spray_rxwin_ack_deadline(&c->rx));
		u32 rtt = c->tx_ready && c->tw.srtt_ns ? c->tw.srtt_ns :
			  1000000;

		t = spray_earliest(t, spray_rxwin_nack_deadline(&c->rx, rtt));
	}
	if (c->tx_ready && spray_txwin_outstanding(&c->tw))
		t = spray_earliest(t, spray_txwin_rto_deadline(&c->tw));
	if (c->pump_more)
		t = spray_earliest(t, c->pump_at);
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
	if (c->tx_ready && (spray_txwin_outstanding(&c->tw) || c->pump_more)) {
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
		if (c->tw.failed)
			spray_tx_fail_all(c, ETIMEDOUT);
		spray_conn_pump(c, now, &q);
	}
	spray_conn_arm(c, now);
out:
	spin_unlock_bh(&ss->lock);
	spray_xmit_queue(sn, &q);
	return HRTIMER_NORESTART;
}

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
		hlist_for_each_entry(c, &ss->conns[i], node)
			if (c->peer_cid) {
				u32 old = c->rcc.grant;

				if (spray_conn_grant(c) != old)
					spray_queue_ack(c, now, &q);
			}
	spin_unlock_bh(&ss->lock);
	spray_xmit_queue(sn, &q);
}

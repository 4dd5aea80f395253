// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY output: packets built under the socket lock (DATA with its
 * entropy value, PROBE, ACK, NACK), the pump that sends what the windows
 * allow, receiver credit, and sendmsg().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errqueue.h>
#include <linux/hash.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/percpu_counter.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/udp.h>

#include "conn.h"
#include "netlink.h"
#include <trace/events/spray.h>

/* room in front of our header for UDP, IP and the link layer */
#define SPRAY_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			 sizeof(struct udphdr))

/* what our packets tell the peer we accept (spray_hdr.caps) */
#define SPRAY_CAPS	(SPRAY_CAP_DATA_ACK | SPRAY_CAP_WINDOW_PROBE | \
			 SPRAY_CAP_ANSWER_PROBE)

/* ---- what a socket has below it (TSQ) ---- */

/*
 * DATA and PROBE skbs of every socket not yet freed or orphaned below it:
 * their destructor is ours, so the module waits for them to go before it
 * does (spray_tsq_drain()). A per-CPU counter: every skb goes through it
 * twice, on any CPU.
 */
static struct percpu_counter spray_tsq_pending;

/* Is the socket past its bound below it (@div 1), or past half of it (2)? */
static bool spray_tsq_over(struct spray_sock *ss, u32 div)
{
	u32 bytes = refcount_read(&ss->sk.sk_wmem_alloc) - 1;

	return bytes > SPRAY_TSQ_BYTES / div ||
	       (u32)atomic_read(&ss->tsq_skbs) >= SPRAY_TSQ_SKBS / div;
}

/*
 * The destructor of a DATA or PROBE skb: the stack freed it (a device sent
 * it, a qdisc dropped it) or orphaned it (the IP layer that received it
 * behind a veth). Any context, no lock of ours. Once half of what the
 * socket had below it drained, its waiting connections go on
 * (spray_tsq_work(), queued with the unit of sk_wmem_alloc this skb held
 * last, so that the socket outlives it).
 */
static void spray_wfree(struct sk_buff *skb)
{
	struct sock *sk = skb->sk;
	struct spray_sock *ss = spray_sk(sk);

	WARN_ON(refcount_sub_and_test(skb->truesize - 1, &sk->sk_wmem_alloc));
	atomic_dec(&ss->tsq_skbs);
	/* pairs with the barrier in spray_tsq_throttled() */
	smp_mb__after_atomic();
	if (!test_bit(SPRAY_SS_TSQ_THROTTLED, &ss->flags) ||
	    spray_tsq_over(ss, 2) ||
	    !test_and_clear_bit(SPRAY_SS_TSQ_THROTTLED, &ss->flags) ||
	    !queue_work(spray_wq, &ss->tsq_work))
		sk_free(sk);
	/* last: module exit waits for this (then for an RCU grace period) */
	percpu_counter_dec(&spray_tsq_pending);
}

/* A DATA or PROBE skb of @c's socket goes below it: charged until freed. */
static void spray_tsq_charge(struct spray_conn *c, struct sk_buff *skb)
{
	struct sock *sk = &c->ss->sk;

	percpu_counter_inc(&spray_tsq_pending);
	atomic_inc(&c->ss->tsq_skbs);
	refcount_add(skb->truesize, &sk->sk_wmem_alloc);
	skb->sk = sk;
	skb->destructor = spray_wfree;
}

/*
 * TCP small queues for a socket of many connections: is what the socket
 * has below it at its bound (SPRAY_TSQ_BYTES, SPRAY_TSQ_SKBS)? Then @c
 * waits on &spray_sock.tsq_conns until half of it drained. Without it a
 * sender's queue below grows with the number of its connections: 16 of
 * them overran the CPU's receive backlog behind a veth (netdev_max_backlog
 * skbs) while ksoftirqd, which alone drains it once it runs (6.1), had a
 * 17th of the CPU. Under the socket lock.
 */
static bool spray_tsq_throttled(struct spray_conn *c)
{
	struct spray_sock *ss = c->ss;

	lockdep_assert_held(&ss->lock);
	if (!spray_tsq_over(ss, 1))
		return false;
	set_bit(SPRAY_SS_TSQ_THROTTLED, &ss->flags);
	/* a destructor after this sees the bit, or we see what it freed */
	smp_mb__after_atomic();
	if (!spray_tsq_over(ss, 1))
		return false;
	if (list_empty(&c->tsq_node)) {
		list_add_tail(&c->tsq_node, &ss->tsq_conns);
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_TX_THROTTLED);
	}
	return true;
}

/**
 * spray_tsq_work() - send for the connections that waited for what their
 *	socket had below it to drain
 * @work: &spray_sock.tsq_work
 *
 * Holds a unit of the socket's sk_wmem_alloc (spray_wfree()), and drops it
 * last.
 */
void spray_tsq_work(struct work_struct *work)
{
	struct spray_sock *ss = container_of(work, struct spray_sock,
					     tsq_work);
	struct spray_net *sn = NULL;
	struct spray_conn *c, *tmp;
	struct sk_buff_head q;
	LIST_HEAD(todo);
	u64 now;

	__skb_queue_head_init(&q);
	spin_lock_bh(&ss->lock);
	if (!ss->dead) {
		sn = ss->sn;
		now = ktime_get_ns();
		/* one that waits again goes back on tsq_conns, not on todo */
		list_splice_init(&ss->tsq_conns, &todo);
		list_for_each_entry_safe(c, tmp, &todo, tsq_node) {
			list_del_init(&c->tsq_node);
			spray_conn_pump(c, now, &q);
			spray_conn_arm(c, now);
		}
	}
	spin_unlock_bh(&ss->lock);
	if (sn)
		spray_xmit_queue(sn, &q);
	sk_free(&ss->sk);
}

/**
 * spray_tsq_init() - module init: the count of skbs below the sockets
 *
 * Return: 0 or -ENOMEM.
 */
int spray_tsq_init(void)
{
	return percpu_counter_init(&spray_tsq_pending, 0, GFP_KERNEL);
}

/**
 * spray_tsq_drain() - wait for every skb below the sockets to go,
 *	then free their count
 *
 * Module exit, once no socket sends any more: the skbs' destructor, and
 * the work it may queue, are the module's. A qdisc that holds them for
 * long holds the unload as long (said every 10 s).
 */
void spray_tsq_drain(void)
{
	unsigned int ms = 0;
	s64 n;

	while ((n = percpu_counter_sum(&spray_tsq_pending)) > 0) {
		msleep(20);
		ms += 20;
		if (!(ms % 10000))
			pr_warn("unload waits for %lld packets below the sockets\n",
				n);
	}
	/* the destructor that counted the last one may still be returning */
	synchronize_rcu();
	percpu_counter_destroy(&spray_tsq_pending);
}

/* ---- packets ---- */

/*
 * An skb with @len bytes of head, from the CPU's page fragment cache when
 * head and shared info fit a page. netdev_alloc_skb() takes a head below
 * 1 KiB (an ACK's, a train's) from kmalloc, which clears the whole object
 * at every allocation under init_on_alloc (Debian's default): 2% of a
 * sending CPU. A fragment cache page is cleared once per 32 KiB.
 */
static struct sk_buff *spray_alloc_skb(unsigned int len)
{
	unsigned int size = SKB_DATA_ALIGN(len) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb;
	void *data;

	if (size > PAGE_SIZE)
		return alloc_skb(len, GFP_ATOMIC);
	data = netdev_alloc_frag(size);
	if (!data)
		return NULL;
	skb = build_skb(data, size);
	if (!skb)
		skb_free_frag(data);
	return skb;
}

static struct sk_buff *spray_build_skb(struct spray_pkt *p, u32 payload,
				       const struct in6_addr *saddr,
				       const struct spray_addr *to, u16 sport,
				       u16 dport, u16 ev)
{
	struct sk_buff *skb;
	u32 hlen;
	int n;

	hlen = spray_pkt_hlen(p->type, p->flags);
	skb = spray_alloc_skb(SPRAY_HEADROOM + hlen + payload);
	if (!skb)
		return NULL;
	skb_reserve(skb, SPRAY_HEADROOM);
	p->sport = sport;
	p->dport = dport;
	p->ev = ev;
	p->caps = SPRAY_CAPS;
	n = spray_pkt_build(skb_put(skb, hlen), hlen, p);
	if (WARN_ON_ONCE(n != (int)hlen)) {
		kfree_skb_reason(skb, SKB_DROP_REASON_NOT_SPECIFIED);
		return NULL;
	}
	SPRAY_SKB_CB(skb)->saddr = *saddr;
	SPRAY_SKB_CB(skb)->daddr = to->v6;
	SPRAY_SKB_CB(skb)->oif = to->scope_id;
	SPRAY_SKB_CB(skb)->ev = ev;
	SPRAY_SKB_CB(skb)->nodf = 0;
	return skb;
}

/* The UDP source port of entropy value @ev (spray_pkt_skb()). */
static u16 spray_ev_port(const struct spray_conn *c, int ev)
{
	if (ev < 0)
		return c->ctrl_ports[-ev - 1];
	return spray_path_port(&c->path, (u16)ev);
}

/*
 * Give @skb the route of entropy value @ev from the connection's cache
 * (spray_udp_dst()): a route lookup per EV, not per packet. Without one,
 * spray_udp_xmit() looks it up.
 */
static void spray_skb_route(struct spray_conn *c, struct sk_buff *skb,
			    int ev, u16 port)
{
	struct spray_dst_slot *slot;
	struct dst_entry *dst;

	lockdep_assert_held(&c->ss->lock);
	if (ev < 0)
		slot = &c->ctrl_dsts[-ev - 1];
	else if (c->dsts)
		slot = &c->dsts[ev];
	else
		return;
	dst = spray_udp_dst(spray_conn_net(c), slot, &c->saddr,
			    &c->remote.v6, c->remote.scope_id, port);
	if (dst)
		skb_dst_set(skb, dst);
}

/**
 * spray_pkt_skb() - a packet of a connection
 * @c: the connection, its socket's lock held
 * @p: the packet (ports, EV and caps filled here)
 * @payload: room for this many bytes after its header
 * @ev: its entropy value: an index into @c->path, or what
 *	spray_ctrl_ev() returned
 *
 * Return: the skb, its route attached when the cache has it, or NULL.
 */
struct sk_buff *spray_pkt_skb(struct spray_conn *c,
			      struct spray_pkt *p, u32 payload, int ev)
{
	u16 port = spray_ev_port(c, ev);
	struct sk_buff *skb;

	skb = spray_build_skb(p, payload, &c->saddr, &c->remote,
			      c->ss->local.port, c->remote.port, port);
	if (skb) {
		SPRAY_SKB_CB(skb)->nodf = c->nodf;
		spray_skb_route(c, skb, ev, port);
	}
	return skb;
}

/*
 * The entropy value of a control packet (ACK, NACK): any of the path's,
 * or, before the connection sends, any of its control EVs. Drawn from the
 * connection's own xorshift (@c->ctrl_rng), not the kernel's CRNG: the
 * EVs themselves are random, the order they serve in needs no secret,
 * and get_random_u32_below() takes a per-CPU lock with interrupts off and
 * refills its batch from a ChaCha block (2.7 us per 64 KiB message under
 * TCG: about a microsecond per ACK).
 */
int spray_ctrl_ev(struct spray_conn *c)
{
	lockdep_assert_held(&c->ss->lock);
	if (c->tx_ready)
		return spray_prng_below(&c->ctrl_rng, c->path.cfg.n);
	return -1 - (int)spray_prng_below(&c->ctrl_rng, SPRAY_CTRL_EVS);
}

/*
 * DATA carries the connection's ACK when there is one to send and the peer
 * understands it (SPRAY_CAP_DATA_ACK) and it fits the packet: the answer to
 * a request acknowledges it, no ACK packet of its own goes.
 */
static void spray_data_ack(struct spray_conn *c, struct spray_pkt *p,
			   u64 now)
{
	u16 why;

	if (!(c->peer_caps & SPRAY_CAP_DATA_ACK) || !c->peer_cid ||
	    !spray_rxwin_ack_pending(&c->rx) ||
	    p->data.frag_len + SPRAY_DATA_ACK_LEN > c->frag_size)
		return;
	why = c->rx.ack_now | SPRAY_TRACE_ACK_CARRIED;
	p->flags |= SPRAY_F_ACK;
	p->dack.src_cid = c->ack_cid;
	p->dack.dst_cid = c->peer_cid;
	spray_rxwin_build_ack(&c->rx, now, &p->dack.ack);
	p->dack.ack.grant_psn = spray_conn_grant(c);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_ACK_CARRIED);
	trace_spray_ack_sent(c, &p->dack.ack, why);
}

/* Return: the packet is queued. */
static bool spray_queue_data(struct spray_conn *c, u32 psn,
			     const struct spray_txrec *rec, int ev_idx,
			     bool probe, bool retx, u64 now,
			     struct sk_buff_head *q)
{
	struct spray_tmsg *m = rec->msg;
	struct spray_pkt p = {};
	struct sk_buff *skb;

	/* every psn outstanding has its message until it is acknowledged */
	if (WARN_ON_ONCE(!m))
		return false;
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
	p.data.min_rtt = spray_rtt_encode(c->tw.min_rtt_ns);
	p.data.ts_ns = now;
	spray_data_ack(c, &p, now);
	skb = spray_pkt_skb(c, &p, m->buf ? rec->len : 0, ev_idx);
	if (!skb)
		return false;	/* the RTO sends it again */
	if (m->buf) {
		skb_put_data(skb, m->buf + rec->frag_off, rec->len);
	} else if (WARN_ON_ONCE(spray_skb_add_tmsg(skb, m, rec->frag_off,
						   rec->len))) {
		kfree_skb_reason(skb, SKB_DROP_REASON_NOT_SPECIFIED);
		return false;
	}
	spray_tsq_charge(c, skb);
	__skb_queue_tail(q, skb);
	c->stat_tx++;
	spray_hist_ev(m, p.ev);
	if (retx) {
		c->stat_retx++;
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RETX_PKTS);
		if (rec->why == SPRAY_LOSS_REFUSED)
			spray_mib_inc(spray_conn_net(c),
				      SPRAY_MIB_REFUSED_RESENT);
		if (rec->why >= SPRAY_LOSS_RACK && rec->why <= SPRAY_LOSS_REFUSED)
			spray_hist_inc(&m->hist.retx[rec->why - 1]);
	} else {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_TX_PKTS);
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_TX_TRAINS);
		spray_mib_add(spray_conn_net(c), SPRAY_MIB_TX_BYTES, rec->len);
	}
	return true;
}

static u32 spray_conn_cwnd(const struct spray_conn *c)
{
	return spray_nscc_cwnd_pkts(&c->nscc, &c->cc);
}

/*
 * A PROBE on entropy value @ev_idx: answered by an ACK with SPRAY_F_PROBE;
 * with @ack_req (a window probe) by the connection's ACK too.
 */
static void __spray_queue_probe(struct spray_conn *c, int ev_idx,
				bool ack_req, u64 now, struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	p.type = SPRAY_T_PROBE;
	p.flags = (c->synced ? 0 : SPRAY_F_SYN) |
		  (ack_req ? SPRAY_F_ACK_REQ : 0);
	p.src_cid = c->local_cid;
	p.dst_cid = c->peer_ack_cid;
	p.probe.ts_ns = now;
	p.probe.probe_id = ev_idx;
	skb = spray_pkt_skb(c, &p, 0, ev_idx);
	if (skb) {
		spray_tsq_charge(c, skb);
		__skb_queue_tail(q, skb);
	}
}

/* A PROBE on a DOWN entropy value: its ACK says the path works again. */
static void spray_queue_probe(struct spray_conn *c, int ev_idx, u64 now,
			      struct sk_buff_head *q)
{
	__spray_queue_probe(c, ev_idx, false, now, q);
}

/*
 * The entropy value of a new packet. Probes of DOWN entropy values that
 * fall due go out as PROBE packets on the way: data never rides a path
 * believed dead. Return: the EV, or -1 if none can carry data or the
 * socket has too much below it (a probe due then waits its next turn).
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
		/* the caller checked before the probe; the train comes after */
		if (spray_tsq_throttled(c))
			return -1;
	} while (--tries);
	/* unreachable: each probe moves its EV's next probe into the future */
	return ev;
}

/**
 * spray_queue_window_probe() - probe a receiver whose grant stops us
 * @c: connection, its socket locked
 * @now: current time
 * @q: where the packet goes
 *
 * The persist timer fired (spray_txwin_on_persist() without data): a
 * PROBE with SPRAY_F_ACK_REQ on an entropy value that carries data, whose
 * answer carries the grant. Unlike a psn beyond the grant, it holds
 * nothing a receiver out of room would refuse, nor puts us in its line.
 */
void spray_queue_window_probe(struct spray_conn *c, u64 now,
			      struct sk_buff_head *q)
{
	int ev;

	lockdep_assert_held(&c->ss->lock);
	ev = spray_pick_data_ev(c, now, q);
	if (ev < 0)
		ev = get_random_u32_below(c->path.cfg.n);
	__spray_queue_probe(c, ev, true, now, q);
}

/*
 * The PROBE that tests a black hole the connection suspects (spray_tx_lost()):
 * small enough for any path, it is answered if the peer is there
 * (spray_conn_blackhole_check()). Its time is the first since the
 * suspicion: an answer to any of them counts.
 */
static void spray_queue_blackhole_probe(struct spray_conn *c, u64 now,
					struct sk_buff_head *q)
{
	int ev;

	c->bh_probe_due = false;
	ev = spray_pick_data_ev(c, now, q);
	if (ev < 0)
		ev = get_random_u32_below(c->path.cfg.n);
	if (!c->bh_probe_ns)
		c->bh_probe_ns = now;
	__spray_queue_probe(c, ev, false, now, q);
}

/*
 * The first message with bytes never sent, or NULL: from the cursor, past
 * what is sent or given up (amortized O(1): the cursor never goes back but
 * at a new incarnation).
 */
struct spray_tmsg *spray_conn_next_new(struct spray_conn *c)
{
	struct spray_tmsg *m = c->tx_next;

	lockdep_assert_held(&c->ss->lock);
	while (m && (m->abandoned || m->next_off >= m->len))
		m = list_is_last(&m->node, &c->tmsgs) ? NULL :
		    list_next_entry(m, node);
	c->tx_next = m;
	return m;
}

/*
 * Packets of new data queued from @m on (its rest, and the messages after
 * it), counted up to @max: the first few messages at most.
 */
static u32 spray_conn_new_pkts(const struct spray_conn *c,
			       const struct spray_tmsg *m, u32 max)
{
	u32 n = 0;

	list_for_each_entry_from(m, &c->tmsgs, node) {
		if (!m->abandoned)
			n += DIV_ROUND_UP(m->len - m->next_off,
					  spray_tmsg_frag(c, m));
		if (n >= max)
			break;
	}
	return n;
}

/*
 * The longest train of packets with @frag bytes of payload:
 * SPRAY_TRAIN_MAX packets, as many as one GSO skb of 64 KiB holds.
 */
static u32 spray_train_max(u32 frag)
{
	u32 seg = SPRAY_DATA_HDR_LEN + frag;

	return clamp_t(u32, (GSO_LEGACY_MAX_SIZE - SPRAY_HEADROOM) / seg, 1,
		       SPRAY_TRAIN_MAX);
}

/*
 * The length of a train: an eighth of the congestion window, so that a
 * window is still spread over eight choices of path at least, as long as
 * the network carried 64 packets per packet of train without loss nor
 * mark (@c->train), at most spray_train_max(). A small window (a slow or
 * congested path) sends single packets, each on its own path.
 */
static u32 spray_train_len(const struct spray_conn *c, u32 cwnd)
{
	return clamp_t(u32, cwnd / 8, 1, spray_train_max(c->frag_size));
}

/*
 * One packet of a train: its header (@hdr, built for @p) and a small
 * message's data, copied, in a block of the CPU's page fragment cache, a
 * long message's data by reference to its chunks. Return: 0, -ENOMEM, or
 * -EMSGSIZE when the skb has no frags left for it.
 */
static int spray_train_add(struct sk_buff *skb, const struct spray_pkt *p,
			   const void *hdr, const struct spray_tmsg *m)
{
	u32 len = p->data.frag_len, blen = SPRAY_DATA_HDR_LEN;
	u32 need = 1;
	struct page *pg;
	void *blk;

	if (m->buf)
		blen += len;
	else
		need += spray_tmsg_nr_frags(m, p->data.frag_off, len);
	if (skb_shinfo(skb)->nr_frags + need > MAX_SKB_FRAGS)
		return -EMSGSIZE;
	blk = netdev_alloc_frag(blen);
	if (!blk)
		return -ENOMEM;
	memcpy(blk, hdr, SPRAY_DATA_HDR_LEN);
	if (m->buf)
		memcpy(blk + SPRAY_DATA_HDR_LEN, m->buf + p->data.frag_off, len);
	pg = virt_to_head_page(blk);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, pg,
			   blk - page_address(pg), blen);
	skb->len += blen;
	skb->data_len += blen;
	skb->truesize += blen;
	if (!m->buf)
		/* room checked above */
		WARN_ON_ONCE(spray_skb_add_tmsg(skb, m, p->data.frag_off, len));
	return 0;
}

/*
 * Record in the send window the @n packets of @m (if any) a train took,
 * from its byte @off: full fragments but for a short last one.
 */
static void spray_train_record(struct spray_conn *c, struct spray_tmsg *m,
			       u32 off, u32 n, int ev, u64 now)
{
	u32 last;

	if (!m || !n)
		return;
	last = min_t(u32, m->frag, m->len - (off + (n - 1) * m->frag));
	spray_txwin_send_run(&c->tw, now, (u16)ev, m->msg_id, off,
			     m->frag, (u16)last, n, m);
}

/*
 * New fragments, from message @m on, as one train of at most @k packets on
 * entropy value @ev: one skb, one GSO segment per packet (each with its own
 * AF_SPRAY header, one UDP source port), that goes down the stack once and
 * is cut where it must be (a device without UDP GSO); a receiver on a
 * veth takes it whole, and one behind a NIC whose GRO merges it again.
 * Every packet but the last of a
 * train is a full fragment (GSO segments have one size), so a train ends
 * at a message's last fragment when that one is short; and at the skb's
 * frags: a packet of a slotted message extends the run of its chunk
 * (spray_skb_add_slots()), any other takes a header block and one to three
 * chunks of data. The packets of a train have one size: a message that
 * started with another (its path MTU fell since) goes in a train of its
 * own. Return: the message to go on with, NULL if none.
 */
static struct spray_tmsg *spray_queue_train(struct spray_conn *c,
					    struct spray_tmsg *m, u32 k,
					    int ev, u64 now,
					    struct sk_buff_head *q)
{
	u32 frag = spray_tmsg_frag(c, m), seg = SPRAY_DATA_HDR_LEN + frag;
	u32 bytes = 0, run_off = 0, run_n = 0, want, got, n = 0, len, psn, room;
	struct spray_net *sn = spray_conn_net(c);
	/* the train's header, rewritten per packet where they differ */
	u8 hdr[SPRAY_DATA_HDR_LEN];
	u16 port = spray_path_port(&c->path, (u16)ev);
	struct spray_tmsg *run = NULL;
	struct spray_pkt p = {};
	bool probe, refusing;
	struct sk_buff *skb;
	int err = 0;

	/*
	 * New data soon after an arrival answers it: delayed ACKs wait for
	 * the answer, if it can carry them (a peer of an earlier release
	 * takes no ACK in DATA: its ACKs never wait)
	 */
	if (c->peer_caps & SPRAY_CAP_DATA_ACK)
		spray_rxwin_data_sent(&c->rx, now);
	k = min(k, spray_train_max(frag));
	if (k < 2 || m->len - m->next_off < frag) {
		/* one packet: as any other */
		m->frag = frag;
		len = min(frag, m->len - m->next_off);
		probe = c->tw.probe_ok;	/* a window probe asks for its ACK */
		psn = spray_txwin_send_new(&c->tw, now, (u16)ev, m->msg_id,
					   m->next_off, (u16)len, m);
		m->next_off += len;
		spray_queue_data(c, psn, spray_txwin_rec(&c->tw, psn), ev,
				 probe, false, now, q);
		return spray_conn_next_new(c);
	}
	skb = spray_alloc_skb(SPRAY_HEADROOM);
	if (!skb)
		return spray_queue_train(c, m, 1, ev, now, q);
	skb_reserve(skb, SPRAY_HEADROOM);
	p.type = SPRAY_T_DATA;
	p.flags = c->synced ? 0 : SPRAY_F_SYN;
	p.src_cid = c->local_cid;
	p.dst_cid = c->peer_ack_cid;
	p.sport = c->ss->local.port;
	p.dport = c->remote.port;
	p.ev = port;
	p.caps = SPRAY_CAPS;
	p.data.min_rtt = spray_rtt_encode(c->tw.min_rtt_ns);
	p.data.ts_ns = now;
	/*
	 * The windows, and a receiver that refuses, as the pump has them:
	 * each packet takes one psn of the room (spray_txwin_room()), and
	 * nothing else changes them while the train is made. Its packets
	 * are recorded once they are in it, a message's at once
	 * (spray_train_record()).
	 */
	room = max(spray_txwin_room(&c->tw, spray_conn_cwnd(c)), 1U);
	refusing = spray_txwin_refusing(&c->tw);
	psn = c->tw.nxt;
	while (n < k && n < room && m) {
		if (n && ((refusing && !m->acked) ||
			  spray_tmsg_frag(c, m) != frag))
			break;
		m->frag = frag;
		len = min(frag, m->len - m->next_off);
		p.data.msg_id = m->msg_id;
		p.data.msg_len = m->len;
		p.data.frag_off = m->next_off;
		p.data.frag_len = len;
		p.psn = psn + n;
		if (!n && WARN_ON_ONCE(spray_pkt_build(hdr, sizeof(hdr), &p) !=
				       sizeof(hdr)))
			break;
		if (n)
			spray_pkt_build_frag(hdr, &p);
		if (m->slot_frag && m->slot_frag == frag &&
		    !(p.data.frag_off % m->slot_frag)) {
			/* this packet and the message's next ones, at once */
			want = min(min(k, room) - n,
				   DIV_ROUND_UP(m->len - m->next_off, frag));
			got = spray_skb_add_slots(skb, m, &p, hdr, want, &len);
			err = got ? 0 : -EMSGSIZE;
		} else {
			want = 1;
			got = 1;
			err = spray_train_add(skb, &p, hdr, m);
		}
		if (err)
			break;
		if (m != run) {
			spray_train_record(c, run, run_off, n - run_n, ev, now);
			run = m;
			run_off = m->next_off;
			run_n = n;
			spray_hist_ev(m, port);
		}
		m->next_off += len;
		n += got;
		bytes += len;
		if (m->next_off >= m->len)
			m = spray_conn_next_new(c);
		/*
		 * a short fragment (a message's last) only ends a train, and
		 * so do frags run out
		 */
		if (p.data.frag_len < frag || got < want)
			break;
	}
	spray_train_record(c, run, run_off, n - run_n, ev, now);
	if (!n) {
		/* no packet in it: an allocation, never a packet */
		consume_skb(skb);
		/* no page fragment: one packet, as any other */
		return err == -ENOMEM ? spray_queue_train(c, m, 1, ev, now, q) :
		       m;
	}
	spray_mib_add(sn, SPRAY_MIB_TX_BYTES, bytes);
	spray_mib_add(sn, SPRAY_MIB_TX_PKTS, n);
	spray_mib_inc(sn, SPRAY_MIB_TX_TRAINS);
	c->stat_tx += n;
	/* the pick counted one packet on the EV: the train is n */
	c->path.evs[ev].tx += n - 1;
	if (n > 1) {
		skb_shinfo(skb)->gso_size = seg;
		skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
		skb_shinfo(skb)->gso_segs = n;
	}
	SPRAY_SKB_CB(skb)->saddr = c->saddr;
	SPRAY_SKB_CB(skb)->daddr = c->remote.v6;
	SPRAY_SKB_CB(skb)->oif = c->remote.scope_id;
	SPRAY_SKB_CB(skb)->ev = port;
	SPRAY_SKB_CB(skb)->nodf = c->nodf;
	spray_skb_route(c, skb, ev, port);
	spray_tsq_charge(c, skb);
	__skb_queue_tail(q, skb);
	return m;
}

/* A reference to the route of entropy value @i (spray_udp_dst()), or NULL. */
static struct dst_entry *spray_conn_ev_dst(struct spray_conn *c, u32 i)
{
	return spray_udp_dst(spray_conn_net(c), &c->dsts[i], &c->saddr,
			     &c->remote.v6, c->remote.scope_id,
			     spray_ev_port(c, i));
}

/*
 * The payload of the messages that start from now on, from the least MTU
 * of the routes kept for the entropy values (ECMP may give each its own):
 * what an ICMP error about another connection's packets taught the route
 * (spray_conn_icmp_err() cuts the connection it names at once), a route
 * changed (``ip route ... mtu``), or the route's own again once what an
 * error taught it expired (10 minutes after). At most every
 * SPRAY_PMTU_CHECK_NS: a check of each route kept, as per packet.
 */
static void spray_conn_path_mtu(struct spray_conn *c, u64 now)
{
	bool v4 = ipv6_addr_v4mapped(&c->remote.v6);
	u32 payload = U32_MAX, frag, i;
	struct dst_entry *dst;

	if (now < c->pmtu_check_ns || !c->dsts)
		return;
	c->pmtu_check_ns = now + SPRAY_PMTU_CHECK_NS;
	for (i = 0; i < c->path.cfg.n; i++) {
		dst = spray_conn_ev_dst(c, i);
		if (!dst)
			continue;
		payload = min(payload, spray_udp_dst_payload(dst, v4));
		dst_release(dst);
	}
	if (payload == U32_MAX)
		return;
	/* as spray_conn_tx_init() */
	frag = min_t(u32, payload - SPRAY_DATA_HDR_LEN, 65000);
	if (frag == c->frag_size)
		return;
	trace_spray_path_mtu(c, c->frag_size, frag, !c->nodf);
	/*
	 * Packets larger than before must be acknowledged anew before they
	 * count as fitting the path (spray_tx_lost(): a black hole)
	 */
	if (frag > c->frag_size)
		c->acked_len_max = min_t(u32, c->acked_len_max, c->frag_size);
	c->frag_size = frag;
}

/**
 * spray_conn_pmtu_min() - IPv6's least MTU for the routes to a peer
 * @c: the connection (IPv6), its socket's lock held
 *
 * What an ICMPv6 Packet Too Big for 1280 bytes would do to the routes kept
 * for the entropy values (each may be another ECMP next hop), for a path
 * MTU black hole: spray_conn_blackhole(). The connection's next message
 * looks at them again.
 *
 * Return: whether a route was lowered.
 */
bool spray_conn_pmtu_min(struct spray_conn *c)
{
	struct dst_entry *dst;
	bool lowered = false;
	u32 i;

	lockdep_assert_held(&c->ss->lock);
	for (i = 0; c->dsts && i < c->path.cfg.n; i++) {
		dst = spray_conn_ev_dst(c, i);
		if (!dst)
			continue;
		lowered |= !spray_udp_dst_pmtu_min(dst, &c->saddr,
						   &c->remote.v6);
		dst_release(dst);
	}
	c->pmtu_check_ns = 0;
	return lowered;
}

/*
 * Send what the windows allow: retransmissions first, then new data, at
 * most SPRAY_TX_BURST skbs (of up to c->train packets of new data each);
 * if room is left, the timer goes on with the next burst once this one is
 * out (spray_conn_arm()); if the socket has too much below it, the
 * connection waits for that to drain (spray_tsq_throttled()).
 */
void spray_conn_pump(struct spray_conn *c, u64 now,
		     struct sk_buff_head *q)
{
	u32 cwnd, psn, room, want, n = 0;
	struct spray_txrec *rec;
	struct spray_tmsg *m;
	u16 old_ev;
	bool probe;
	int ev;

	lockdep_assert_held(&c->ss->lock);
	c->pump_more = false;
	if (!c->tx_ready || c->tw.failed)
		return;
	if (unlikely(c->bh_probe_due))
		spray_queue_blackhole_probe(c, now, q);
	cwnd = spray_conn_cwnd(c);
	while (c->tw.inflight < cwnd && spray_txwin_next_retx(&c->tw, &psn)) {
		if (n == SPRAY_TX_BURST)
			goto more;
		if (spray_tsq_throttled(c))
			return;
		rec = spray_txwin_rec(&c->tw, psn);
		ev = spray_path_pick(&c->path, now, rec->ev, &probe);
		if (ev < 0)
			break;
		old_ev = spray_path_port(&c->path, rec->ev);
		spray_txwin_sent_retx(&c->tw, psn, (u16)ev, now);
		if (spray_queue_data(c, psn, rec, ev, probe, true, now, q))
			trace_spray_retransmit(c, psn, rec, old_ev,
					       spray_path_port(&c->path, (u16)ev));
		n++;
	}
	m = spray_conn_next_new(c);
	if (m && !m->frag)
		spray_conn_path_mtu(c, now);
	while (m && (room = spray_txwin_room(&c->tw, cwnd))) {
		/*
		 * While the receiver refuses packets for lack of room, only
		 * messages it admitted (some of their packets were acked)
		 * go on: anything else would be refused too, and an admitted
		 * message must complete for the room to come back.
		 */
		if (spray_txwin_refusing(&c->tw) && !m->acked)
			break;
		if (n == SPRAY_TX_BURST)
			goto more;
		if (spray_tsq_throttled(c))
			return;
		want = min(c->train, spray_train_len(c, cwnd));
		if (spray_train_defer(room, c->tw.inflight, want,
				      spray_conn_new_pkts(c, m, want)))
			break;
		ev = spray_pick_data_ev(c, now, q);
		if (ev < 0)
			return;
		m = spray_queue_train(c, m, min(room, want), ev, now, q);
		n++;
	}
	return;
more:
	c->pump_more = true;
	c->pump_at = now;
}

/*
 * After what the sender learns (an ACK, carried or not, a NACK, a timer):
 * send what the windows now allow, end a linger that is done, trace the
 * congestion state.
 */
void spray_conn_tx_feedback(struct spray_conn *c, u64 now,
			    struct sk_buff_head *q)
{
	lockdep_assert_held(&c->ss->lock);
	spray_conn_pump(c, now, q);
	spray_conn_linger_check(c);
	spray_conn_trace_cc(c);
}

/*
 * Receiver credit: how many packets of the peer's this socket can take. The
 * rest of each message already admitted has its room reserved (its packets
 * not received yet: &spray_rmsg.pkts_left). New messages share the free
 * room (spray_rx_room()) among the senders with a message incomplete: each
 * of their packets may be a new message of one packet, costing its payload
 * rounded up to pages (a page at MTU 1500, three at 9000) and what the skb
 * it comes in may hold beyond its payload (&spray_sock.rx_extra, learned as
 * TCP learns its len/truesize ratio): one packet per such cost of the
 * share, at least one while there is room. While senders wait in line for
 * buffer (spray_rx_turns()), only the one whose turn it is gets credit for
 * a new message: its reservation. O(1): the per-connection sums are kept
 * up to date.
 */
u32 spray_conn_grant(struct spray_conn *c)
{
	struct spray_cc_cfg cfg = c->cc;
	struct spray_sock *ss = c->ss;
	u32 old = c->rcc.grant, grant;
	s64 room;
	u64 pkts;

	lockdep_assert_held(&c->ss->lock);
	/* credit counts packets of the size the peer sends */
	if (c->rx_mtu)
		cfg.mtu = c->rx_mtu;
	pkts = c->rx_left_pkts;
	if (c->rx_turn)
		room = c->rx_wait_charge;
	else if (!list_empty(&ss->rx_waiting))
		room = 0;
	else
		room = div_s64(spray_rx_room(ss),
			       ss->rcc.nactive + !c->rcc.active);
	if (room > 0)
		pkts += max_t(u64, div_u64(room, spray_rmsg_charge(cfg.mtu,
							ss->rx_extra)), 1);
	if (!spray_psn_after(c->rx_refused_top, c->rx.cum))
		c->rx_refused_top = c->rx.cum;	/* kept near cum: psns wrap */
	grant = spray_rcc_grant_rx(&c->ss->rcc, &c->rcc, &cfg, c->rx.cum,
				   c->rx.high, c->rx_refused_top,
				   (u32)min_t(u64, pkts * cfg.mtu, U32_MAX));
	if (grant != old)
		trace_spray_credit(c, true, grant, old, grant - c->rx.cum);
	return grant;
}

void spray_queue_ack(struct spray_conn *c, u64 now,
		     struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;
	u16 why = 0;

	lockdep_assert_held(&c->ss->lock);
	/* why now: rxwin's reasons, else the count, the delay, or credit */
	if (trace_spray_ack_sent_enabled()) {
		why = c->rx.ack_now;
		if (c->rx.unacked >= c->rx.cfg.ack_every)
			why |= SPRAY_TRACE_ACK_COUNT;
		else if (spray_rxwin_ack_timed_out(&c->rx, now))
			why |= SPRAY_TRACE_ACK_DELAY;
		else if (!why)
			why |= SPRAY_TRACE_ACK_CREDIT;
	}
	p.type = SPRAY_T_ACK;
	p.src_cid = c->ack_cid;
	p.dst_cid = c->peer_cid;
	spray_rxwin_lone_ack(&c->rx, now);
	spray_rxwin_build_ack(&c->rx, now, &p.ack);
	p.ack.grant_psn = spray_conn_grant(c);
	skb = spray_pkt_skb(c, &p, 0, spray_ctrl_ev(c));
	if (!skb)
		return;
	__skb_queue_tail(q, skb);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_ACK_TX);
	trace_spray_ack_sent(c, &p.ack, why);
}

/*
 * The ACKs due: one usually, a few when reordering spread the psns
 * received since the last ACK over more than one 64-psn SACK range.
 */
void spray_queue_acks(struct spray_conn *c, u64 now,
		      struct sk_buff_head *q)
{
	unsigned int n = 0;

	lockdep_assert_held(&c->ss->lock);
	while (n++ < 8 && spray_rxwin_ack_due(&c->rx, now))
		spray_queue_ack(c, now, q);
}

/*
 * The entropy value (UDP source port) of an answer sent without a
 * connection: one of the ephemeral range, drawn each time.
 */
static u16 spray_stateless_ev(void)
{
	return 49152 + get_random_u32_below(16384);
}

/*
 * Answers to packets that no connection expects may go to forged sources:
 * at most SPRAY_NACK_RATE a second per source address (spray_net.nack_rl).
 */
bool spray_nack_allowed(struct spray_net *sn,
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
struct sk_buff *spray_nack_skb(struct spray_net *sn,
			       const struct spray_addr *to,
			       const struct in6_addr *saddr,
			       const struct spray_pkt *in, u64 now)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

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
	skb = spray_build_skb(&p, 0, saddr, to, in->dport, in->sport,
			      spray_stateless_ev());
	if (skb)
		trace_spray_nack_sent(0, to, p.nack.psn, 1, SPRAY_NACK_NO_CONN);
	return skb;
}

/**
 * spray_probe_echo_skb() - answer a PROBE of an incarnation we do not hold
 * @sn: the namespace
 * @to: its sender
 * @saddr: our address it came to
 * @in: the PROBE, with SPRAY_F_SYN (its sender has no ACK from us yet)
 * @now: current time
 *
 * Echoed as a connection's PROBE is (its time, entropy value and id, in
 * an ACK with SPRAY_F_PROBE), without state and at the rate NACKs to
 * unknown senders go (a reflection no larger than what came). The sender
 * whose DATA never came whole learns that this host answers: its large
 * packets were lost for their size, a black hole, not for a peer gone
 * (spray_conn_blackhole_check()).
 *
 * Return: the skb, or NULL (over the rate, no memory).
 */
struct sk_buff *spray_probe_echo_skb(struct spray_net *sn,
				     const struct spray_addr *to,
				     const struct in6_addr *saddr,
				     const struct spray_pkt *in, u64 now)
{
	struct spray_pkt p = {};

	if (!spray_nack_allowed(sn, to, now))
		return NULL;
	p.type = SPRAY_T_ACK;
	p.flags = SPRAY_F_PROBE;
	p.src_cid = in->dst_cid ? in->dst_cid : 1;
	p.dst_cid = in->src_cid;
	p.ack.ts_echo = in->probe.ts_ns;
	p.ack.ev_echo = in->ev;
	p.ack.echo_psn = in->probe.probe_id;
	return spray_build_skb(&p, 0, saddr, to, in->dport, in->sport,
			       spray_stateless_ev());
}

/*
 * The last ACK of a connection whose socket closed (kernel/timewait.c),
 * answering @in, a resent packet that had arrived before: every psn before
 * @cum arrived, no credit beyond it, no RTT sample.
 */
struct sk_buff *spray_closed_ack_skb(const struct spray_addr *to,
				     const struct in6_addr *saddr,
				     const struct spray_pkt *in, u32 ack_cid,
				     u32 cum)
{
	struct spray_pkt p = {};

	p.type = SPRAY_T_ACK;
	p.src_cid = ack_cid;
	p.dst_cid = in->src_cid;
	p.ack.cum_psn = cum;
	p.ack.sack_base = cum;
	p.ack.grant_psn = cum;
	p.ack.ev_echo = in->ev;
	return spray_build_skb(&p, 0, saddr, to, in->dport, in->sport,
			       spray_stateless_ev());
}

/* A NACK of @count psns from @psn, with the current cumulative ACK and grant. */
void spray_queue_nack(struct spray_conn *c, u32 psn, u16 count,
		      u8 reason, struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	lockdep_assert_held(&c->ss->lock);
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
	trace_spray_nack_sent(c->id, &c->remote, psn, count, reason);
}

/*
 * Room again (the application read, or a message was admitted): the psns
 * refused since the last time may come now, without waiting for the
 * sender's timer.
 */
void spray_queue_resume(struct spray_conn *c, struct sk_buff_head *q)
{
	lockdep_assert_held(&c->ss->lock);
	if (!c->rx_resume || !spray_psn_after(c->rx_refused_top, c->rx.cum))
		return;
	c->rx_resume = false;
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RESUME_TX);
	spray_queue_nack(c, c->rx.cum, 1, SPRAY_NACK_RESUME, q);
}

void spray_queue_nacks(struct spray_conn *c, u64 now,
		       struct sk_buff_head *q)
{
	struct spray_rxwin_nack nk[4];
	u32 n, i, rtt;

	lockdep_assert_held(&c->ss->lock);
	if (!c->peer_cid)
		return;
	rtt = c->tx_ready && c->tw.srtt_ns ? c->tw.srtt_ns : 1000000;
	n = spray_rxwin_nack_scan(&c->rx, now, rtt, nk, ARRAY_SIZE(nk));
	for (i = 0; i < n; i++)
		spray_queue_nack(c, nk[i].psn, nk[i].count, SPRAY_NACK_LOSS, q);
}

/*
 * Send what a locked section queued, with bottom halves held off: from a
 * task (sendmsg(), a read that opens a window, close), each skb's
 * transmission would otherwise run the softirqs when it lets them go, and
 * on a veth the receiver's whole path (net_rx_action() and all) ran once
 * per skb; now once for the queue. In a softirq (the receive path, the
 * timer) it only nests.
 */
void spray_xmit_queue(struct spray_net *sn, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	if (skb_queue_empty(q))
		return;
	local_bh_disable();
	while ((skb = __skb_dequeue(q)))
		spray_udp_xmit(sn, skb);
	local_bh_enable();
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
 * above SO_SNDBUF, or above %SPRAY_WMEM_FLOOR while the protocol's memory
 * is above its send mark (spray_sock_wspace()), and while the protocol's
 * memory limits refuse the charge, as TCP waits for memory
 * (sk_stream_wait_memory()): until its own messages' acknowledgements
 * wake it, or, for the mark and the limits, again after a short random
 * wait (others may free memory); then charges the message's memory and
 * copies it in.
 *
 * Return: @len, or -EAGAIN, -EFAULT, -ENOMEM, -ENOBUFS (the protocol's or
 * the memory cgroup's limit, or too many connections), -ENETUNREACH (no
 * route), a signal's -EINTR/-ERESTARTSYS, or -EPIPE if the socket is
 * closing or was shut down for sending while waiting.
 */
int spray_conn_sendmsg(struct spray_sock *ss, const struct spray_addr *to,
		       struct msghdr *msg, size_t len, u64 cookie)
{
	struct spray_net *sn = ss->sn;
	struct spray_conn *c, *fresh = NULL;
	u32 charge, slot_frag;
	struct sock *sk = &ss->sk;
	struct in6_addr saddr;
	struct spray_tmsg *m;
	struct sk_buff_head q;
	long timeo, vm_wait;
	bool charged, owed;
	u64 now;
	int err;

	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	for (;;) {
		DEFINE_WAIT_FUNC(wait, spray_writer_wake);

		if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)
			return -EPIPE;
		vm_wait = 0;
		spin_lock_bh(&ss->lock);
		/*
		 * laid out in slots of the connection's packets if it has
		 * sent: its trains take one frag per chunk (layout.h)
		 */
		c = spray_conn_find(ss, to, NULL);
		slot_frag = c && c->tx_ready ? c->frag_size : 0;
		charge = spray_tmsg_charge(len, slot_frag);
		/* below SO_SNDBUF: room for one more message, of any size */
		if (spray_sock_wspace(sk)) {
			charged = spray_wmem_charge(sk, charge);
			spin_unlock_bh(&ss->lock);
			if (charged)
				break;
			if (!timeo)
				return -ENOBUFS;	/* memory limits */
			vm_wait = min_t(long, timeo,
					get_random_u32_below(HZ / 5) + 2);
		} else {
			spin_unlock_bh(&ss->lock);
			if (!timeo)
				return -EAGAIN;
			/* the send mark: nothing wakes it but its own ACKs */
			if (READ_ONCE(sk->sk_wmem_queued) <
			    READ_ONCE(sk->sk_sndbuf))
				vm_wait = min_t(long, timeo,
						get_random_u32_below(HZ / 5) + 2);
		}
		if (signal_pending(current))
			return sock_intr_errno(timeo);
		sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		add_wait_queue(sk_sleep(sk), &wait);
		if (vm_wait) {
			/* the time left counts what this wait took */
			vm_wait -= wait_woken(&wait, TASK_INTERRUPTIBLE, vm_wait);
			if (timeo != MAX_SCHEDULE_TIMEOUT)
				timeo -= vm_wait;
		} else if (!spray_sock_wspace(sk) &&
			   !(READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)) {
			timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, timeo);
		}
		remove_wait_queue(sk_sleep(sk), &wait);
	}

	/* charged: now the memory */
	err = -ENOMEM;
	m = spray_tmsg_alloc(len);
	if (!m)
		goto err_uncharge;
	m->charge = charge;
	m->cookie = cookie;
	if (spray_tmsg_alloc_data(m, len, slot_frag))
		goto err_free;
	err = spray_tmsg_copy_from(m, &msg->msg_iter);
	if (err)
		goto err_free;

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
			swap(c->dsts, fresh->dsts);
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
	trace_spray_msg_sent(c, m->msg_id, m->len, m->cookie);
	list_add_tail(&m->node, &c->tmsgs);
	if (!c->tx_next)
		c->tx_next = m;
	WRITE_ONCE(ss->tx_bytes, ss->tx_bytes + len);
	now = ktime_get_ns();
	c->last_active_ns = now;
	__skb_queue_head_init(&q);
	owed = c->peer_cid && c->rx.unacked;
	spray_conn_pump(c, now, &q);
	if (owed && !c->rx.unacked)
		spray_conn_arm_carried(c, now);
	else
		spray_conn_arm(c, now);
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
		spray_tmsg_free_data(m);
	kfree(m);
err_uncharge:
	spin_lock_bh(&ss->lock);
	spray_wmem_uncharge(sk, charge);
	spin_unlock_bh(&ss->lock);
	spray_write_space(sk);
	return err;
}


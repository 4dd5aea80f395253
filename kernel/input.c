// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY input: a packet from the namespace's UDP socket to its
 * connection: incarnations, reassembly into messages, ordered delivery,
 * ACKs, NACKs and probes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errqueue.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/udp.h>

#include "conn.h"
#include "netlink.h"
#include <trace/events/spray.h>

/* ---- drops ---- */

/*
 * The kernel's reason for each of ours, for kfree_skb_reason() (skb:kfree_skb,
 * dropwatch): out of tree, the module cannot register reasons of its own.
 * The table of Documentation/networking/spray.rst ("Drop reasons") explains
 * each choice; NOT_SPECIFIED where none fits.
 */
static const enum skb_drop_reason spray_skb_drop[__SPRAY_DROP_MAX] = {
	[SPRAY_DROP_NONE]	= SKB_DROP_REASON_NOT_SPECIFIED,
	[SPRAY_DROP_SHORT]	= SKB_DROP_REASON_PKT_TOO_SMALL,
	[SPRAY_DROP_VERSION]	= SKB_DROP_REASON_UNHANDLED_PROTO,
	[SPRAY_DROP_TYPE]	= SKB_DROP_REASON_UNHANDLED_PROTO,
	[SPRAY_DROP_FLAGS]	= SKB_DROP_REASON_INVALID_PROTO,
	[SPRAY_DROP_PORT]	= SKB_DROP_REASON_INVALID_PROTO,
	[SPRAY_DROP_CID]	= SKB_DROP_REASON_INVALID_PROTO,
	[SPRAY_DROP_LEN]	= SKB_DROP_REASON_INVALID_PROTO,
	[SPRAY_DROP_FIELD]	= SKB_DROP_REASON_INVALID_PROTO,
	[SPRAY_DROP_DUP]	= SKB_DROP_REASON_TCP_OLD_DATA,
	[SPRAY_DROP_WINDOW]	= SKB_DROP_REASON_TCP_OVERWINDOW,
	[SPRAY_DROP_STALE]	= SKB_DROP_REASON_TCP_INVALID_SEQUENCE,
	[SPRAY_DROP_ADDR]	= SKB_DROP_REASON_NOT_SPECIFIED,
	[SPRAY_DROP_LIMIT]	= SKB_DROP_REASON_PROTO_MEM,
	[SPRAY_DROP_FRAG]	= SKB_DROP_REASON_INVALID_PROTO,
	[SPRAY_DROP_MSG_SIZE]	= SKB_DROP_REASON_PKT_TOO_BIG,
	[SPRAY_DROP_CLOSED]	= SPRAY_SKB_DROP_CLOSED,
	[SPRAY_DROP_RATELIMIT]	= SKB_DROP_REASON_NOT_SPECIFIED,
};

/**
 * spray_drop() - count a dropped packet, name its reason for the kernel
 * @sn: the namespace
 * @reason: enum spray_drop_reason (drop-* of sprayctl stats)
 *
 * Return: the skb_drop_reason to free its skb with.
 */
enum skb_drop_reason spray_drop(struct spray_net *sn, int reason)
{
	spray_mib_drop(sn, reason);
	if (reason <= 0 || reason >= __SPRAY_DROP_MAX)
		return SKB_DROP_REASON_NOT_SPECIFIED;
	return spray_skb_drop[reason];
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

	lockdep_assert_held(&c->ss->lock);
	if (c->peer_cid) {
		spray_mib_inc(sn, SPRAY_MIB_CONN_RESET);
		spray_rcc_deactivate(&c->ss->rcc, &c->rcc);
	}
	spray_conn_free_rx(c);
	spray_rx_unwait(c);
	spray_rxwin_cfg_default(&rcfg);
	rcfg.ack_every = READ_ONCE(sn->cfg.ack_every);
	rcfg.ack_delay_ns = READ_ONCE(sn->cfg.ack_delay_us) * NSEC_PER_USEC;
	/*
	 * An ACK waiting for an answer to carry it stays well inside the
	 * sender's retransmission timeout (rto-min-us, the same config on
	 * both ends as a rule): a quarter of it, 250 us by default.
	 */
	rcfg.answer_ns = min_t(u64, (u64)READ_ONCE(sn->cfg.rto_min_us) *
			       (NSEC_PER_USEC / 4), U32_MAX);
	spray_rxwin_init(&c->rx, cid, &rcfg);
	/* active once a message of it is incomplete (spray_rx_update_active()) */
	spray_rcc_conn_init(&c->rcc, &c->cc, cid);
	c->peer_cid = cid;
	if (list_empty(&c->rnode))
		list_add_tail(&c->rnode, &c->ss->rconns);
	c->ack_cid = spray_new_cid();
	c->rx_verified = false;
	c->peer_last_ts = ts;
	c->rx_last_ns = now;
	c->rx_next_id = 0;
	c->rx_refused_top = cid;
	c->rx_resume = false;
}

/* Stop receiving on a connection (its socket is closing). */
void spray_rx_close(struct spray_conn *c)
{
	lockdep_assert_held(&c->ss->lock);
	spray_conn_free_rx(c);
	spray_rx_unwait(c);
	if (c->peer_cid)
		spray_rcc_deactivate(&c->ss->rcc, &c->rcc);
	c->peer_cid = 0;
	list_del_init(&c->rnode);
}

/*
 * Receiver credit is shared among the senders that have a message
 * incomplete now: one being reassembled, or psns refused for lack of
 * buffer that must come again (below them the cumulative ack cannot pass).
 * A sender between messages, or idle, takes no share; its next message's
 * first packet makes it active again. Under the socket lock, as everything
 * that counts in spray_rcc.nactive.
 */
static void spray_rx_update_active(struct spray_conn *c)
{
	lockdep_assert_held(&c->ss->lock);
	if (!c->peer_cid)
		return;
	spray_rcc_set_active(&c->ss->rcc, &c->rcc, c->rx_left_msgs ||
			     spray_psn_after(c->rx_refused_top, c->rx.cum));
}

void spray_data_ready(struct spray_sock *ss)
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
		spin_lock(&ss->rxq_lock);
		list_move_tail(&pos->node, &ss->rxq);
		spin_unlock(&ss->rxq_lock);
		ss->rx_wake = true;
	}
}

/* Hand a complete message to the socket, in order if it asked for it. */
static void spray_rx_complete(struct spray_conn *c, struct spray_rmsg *rm)
{
	struct spray_sock *ss = c->ss;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RX_MSGS);
	trace_spray_msg_received(c, rm->msg_id, rm->len, 0);
	spray_rmsg_unlink_left(c, rm);
	list_del(&rm->node);
	if (!ss->ordered) {
		spin_lock(&ss->rxq_lock);
		list_add_tail(&rm->node, &ss->rxq);
		spin_unlock(&ss->rxq_lock);
		ss->rx_wake = true;
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
 * Bytes of the receive buffer free for new messages: below SO_RCVBUF,
 * past what messages admitted hold and the turns given reserve. May be
 * negative (a message is admitted whole while the buffer is below).
 */
s64 spray_rx_room(const struct spray_sock *ss)
{
	return (s64)READ_ONCE(ss->sk.sk_rcvbuf) -
	       atomic_read(&ss->sk.sk_rmem_alloc) - ss->rx_turns;
}

/*
 * @c's new message costing @charge was refused for lack of buffer: it
 * waits in line for its turn (unless it has it, and only the memory limit
 * refused it: it keeps it).
 */
static void spray_rx_wait(struct spray_conn *c, u32 charge)
{
	lockdep_assert_held(&c->ss->lock);
	if (c->rx_turn || !list_empty(&c->rx_wait_node))
		return;
	list_add_tail(&c->rx_wait_node, &c->ss->rx_waiting);
	c->rx_wait_charge = charge;
}

/**
 * spray_rx_unwait() - out of the line for receive buffer
 * @c: connection whose message was admitted, that stops receiving, or
 *	whose turn went unused
 *
 * What its turn reserved is free again (spray_rx_turns() gives it to the
 * next ones).
 */
void spray_rx_unwait(struct spray_conn *c)
{
	struct spray_sock *ss = c->ss;

	lockdep_assert_held(&ss->lock);
	list_del_init(&c->rx_wait_node);
	if (c->rx_turn) {
		ss->rx_turns -= c->rx_wait_charge;
		c->rx_turn = false;
	}
	c->rx_wait_charge = 0;
}

/* How long a turn waits for its sender: 8 of its RTTs, 50 ms at least. */
static u64 spray_rx_turn_ns(const struct spray_conn *c)
{
	return max_t(u64, 8ULL * c->rcc.rtt_ns, SPRAY_RX_TURN_MIN_NS);
}

/**
 * spray_rx_turns() - give connections waiting for receive buffer their turn
 * @ss: the receiving socket
 * @now: the time
 * @q: where their NACK RESUME goes
 *
 * Many senders into one buffer: were every refused sender told to send
 * again at once whenever a message's room came free, all of them would
 * send, one message would be admitted and the rest refused again, each
 * refusal a train resent. So they take turns, in the order they were
 * refused: as many as the free room holds, each reserving what its
 * refused message costs; the first one even if its message is larger than
 * the room, while nothing else is reserved and the buffer is below
 * SO_RCVBUF (as a message of any size is admitted into a buffer with
 * room). The others get no credit for new messages meanwhile
 * (spray_conn_grant()). A turn its sender does not use in time (it went
 * away) is taken back, oldest first; the sender queues again if it comes
 * back. O(1) per turn given or taken back.
 */
void spray_rx_turns(struct spray_sock *ss, u64 now, struct sk_buff_head *q)
{
	struct spray_conn *c;
	s64 room;

	lockdep_assert_held(&ss->lock);
	while ((c = list_first_entry_or_null(&ss->rx_turned,
					     struct spray_conn,
					     rx_wait_node)) &&
	       now - c->rx_turn_ns > spray_rx_turn_ns(c)) {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RX_TURNS_EXPIRED);
		spray_rx_unwait(c);
	}
	while ((c = list_first_entry_or_null(&ss->rx_waiting,
					     struct spray_conn,
					     rx_wait_node))) {
		room = spray_rx_room(ss);
		if (room < c->rx_wait_charge && (ss->rx_turns || room <= 0))
			break;
		list_move_tail(&c->rx_wait_node, &ss->rx_turned);
		c->rx_turn = true;
		c->rx_turn_ns = now;
		ss->rx_turns += c->rx_wait_charge;
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RX_TURNS);
		spray_queue_resume(c, q);
	}
}

/*
 * May a new message of @c costing @charge, of which packet @psn came, be
 * admitted now? Its turn, or nobody in line and room in the buffer; or
 * the credit given to a peer that hears us is honoured (as TCP takes what
 * its window offered): a psn below the grant was sent on the room a grant
 * promised, though others took it since or joined the line meanwhile, up
 * to half of SO_RCVBUF beyond it. Refused, it would be resent after a
 * turn, and every sender with credit left would join the line behind it.
 * A psn refused once is not (below @rx_refused_top): the grant counts it
 * as coming again whatever the room, and it comes again on its turn.
 */
static bool spray_rx_admits(const struct spray_conn *c, u32 psn, u32 charge)
{
	const struct spray_sock *ss = c->ss;
	u32 rcvbuf;

	if (c->rx_turn)
		return true;
	/* those in line first; then while the buffer has room */
	if (list_empty(&ss->rx_waiting) && spray_rx_room(ss) > 0)
		return true;
	rcvbuf = READ_ONCE(ss->sk.sk_rcvbuf);
	return c->rx_verified && spray_psn_before(psn, c->rcc.grant) &&
	       !spray_psn_before(psn, c->rx_refused_top) &&
	       (u64)atomic_read(&ss->sk.sk_rmem_alloc) + charge <=
	       (u64)rcvbuf + rcvbuf / 2;
}

/*
 * The message a DATA packet belongs to: the one being reassembled, or a
 * new one admitted while the receive buffer is below SO_RCVBUF (as UDP
 * admits a datagram: one message of any size up to max-msg always gets
 * in), nobody waits in line for buffer before it (spray_rx_turns()) and
 * the memory limits allow. Its whole size is reserved at once, so an
 * admitted message always completes.
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
	u32 charge, extra, tail, n;

	rm = c->rx_last;
	if (rm && rm->msg_id == p->data.msg_id)
		return rm->len == len ? rm : ERR_PTR(-EINVAL);
	list_for_each_entry(rm, &c->rmsgs, node) {
		if (rm->msg_id != p->data.msg_id)
			continue;
		if (rm->len != len)
			return ERR_PTR(-EINVAL);
		c->rx_last = rm;
		return rm;
	}
	if (len > READ_ONCE(spray_conn_net(c)->cfg.max_msg))
		return ERR_PTR(-EMSGSIZE);
	/* its packets by the largest size received (see pkts_left below) */
	n = DIV_ROUND_UP(len, max(c->rx_mtu, p->data.frag_len));
	/* room for the skbs of its packets, if they are kept */
	extra = min_t(u64, (u64)n * c->ss->rx_extra, len);
	charge = spray_rmsg_charge(len, extra);
	if (!spray_rx_admits(c, p->psn, charge) ||
	    !spray_rmem_charge(sk, charge)) {
		spray_rx_wait(c, charge);
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_RCVBUF_FULL);
		return ERR_PTR(-ENOBUFS);
	}
	if (len <= SPRAY_RX_INLINE) {
		rm = kzalloc(struct_size(rm, data, len), GFP_ATOMIC);
		if (!rm)
			goto err_uncharge;
	} else {
		/* room for as many fragments as packets, if not many */
		tail = n <= SPRAY_RX_TAIL_MAX ? n : 0;
		rm = kzalloc(struct_size(rm, data, spray_rmsg_tail_size(tail)),
			     GFP_ATOMIC);
		if (!rm)
			goto err_uncharge;
		rm->tail_n = tail;
		/* its pages' array with the first payload copied into it */
		rm->npages = DIV_ROUND_UP(len, PAGE_SIZE);
	}
	rm->msg_id = p->data.msg_id;
	rm->len = len;
	rm->from = c->remote;
	rm->last_off = U32_MAX;
	rm->charge = charge;
	rm->extra_left = extra;
	list_add_tail(&rm->node, &c->rmsgs);
	/*
	 * Its packets, counted exactly: a message whose short last fragment
	 * came first would otherwise leave a packet of credit when it
	 * completes, which starts the next one, and so on for ever.
	 */
	rm->pkts_left = n;
	c->rx_left_pkts += rm->pkts_left;
	c->rx_left_msgs++;
	c->rx_last = rm;
	/* its turn, if it waited, is used */
	spray_rx_unwait(c);
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
	if (!rm->frag && !off && last && !rm->got) {
		/* the whole message in one packet: no grid to keep */
		rm->frag = len;
		rm->got = len;
		return 0;
	}
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
		/* in the record's room (zeroed with it), used once */
		if (n <= rm->tail_n)
			rm->fmap = spray_rmsg_tail_fmap(rm);
		else
			rm->fmap = bitmap_zalloc(n, GFP_ATOMIC | __GFP_NOWARN);
		if (!rm->fmap)
			return -ENOMEM;
		rm->frag = len;
		if (rm->last_off != U32_MAX)
			__set_bit(n - 1, rm->fmap);
	} else if (!rm->fmap || off % rm->frag ||
		   len != min(rm->frag, rm->len - off)) {
		/* no map: the message's one fragment came already */
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
	if (rm->fmap)
		__clear_bit(off / rm->frag, rm->fmap);
	else if (rm->frag)
		rm->frag = 0;	/* the message's one fragment */
	else if (rm->last_off == off)
		rm->last_off = U32_MAX;
	rm->got -= len;
}

/* Copy a fragment's payload into the message's pages (or its record). */
static int spray_rmsg_fill(struct spray_rmsg *rm, const struct sk_buff *skb,
			   u32 skb_off, u32 off, u32 len)
{
	if (spray_rmsg_inline(rm))
		return skb_copy_bits(skb, skb_off, rm->data + off, len) ?
		       -EFAULT : 0;
	/* a message kept in the skbs it came in never needs them */
	if (!rm->pages) {
		rm->pages = kcalloc(rm->npages, sizeof(*rm->pages),
				    GFP_ATOMIC | __GFP_NOWARN);
		if (!rm->pages)
			return -ENOMEM;
	}
	while (len) {
		u32 idx = off >> PAGE_SHIFT, poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);

		if (!rm->pages[idx]) {
			rm->pages[idx] = spray_page_alloc(0, GFP_ATOMIC |
							  __GFP_NOWARN);
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
 * Can the skb of a DATA packet with @len bytes of payload (@seg on the
 * wire, with its header) be kept, and what does it hold beyond them? A
 * packet of a size worth keeping, whose skb holds not much more than it (a
 * small fragment in a page-sized buffer is copied), of an skb nobody else
 * held when it came (@own). A train that arrived whole (GSO) is kept
 * packet by packet, each holding a reference to it: a packet's share of
 * the train's memory, by its length (the short last fragment of a message
 * holds less than a full one), is what it holds. Asked once per packet
 * (spray_rcv_data()).
 */
static bool spray_rx_keepable(const struct sk_buff *skb, bool own, u32 len,
			      u32 seg, u32 *extra)
{
	u32 size = skb->truesize;

	if (!own || len < SPRAY_KEEP_MIN)
		return false;
	if (skb_is_gso(skb))
		size = div_u64((u64)size * min(seg, skb->len), skb->len);
	if (size > 2 * len)
		return false;
	*extra = size > len ? size - len : 0;
	return true;
}

/*
 * Learn what @n keepable packets in a row hold each beyond their payload,
 * @extra (&spray_sock.rx_extra): the largest lately, falling by an eighth
 * of the difference per packet that holds less. An average left the
 * packets of a message that come in short trains (a clone's share of the
 * train's head is larger) without reservation: 20% of a bulk transfer's
 * packets were copied, 2% now (the short last fragment of each 64 KiB
 * message).
 */
static void spray_rx_learn_extra(struct spray_sock *ss, u32 extra, u32 n)
{
	u32 cur = ss->rx_extra;

	extra += SPRAY_RX_SLOT;
	if (!n)
		return;
	if (extra >= cur) {
		ss->rx_extra = extra;
		return;
	}
	/* @n packets that hold as much: an eighth each, until it stops */
	while (n-- && cur - extra >= 8)
		cur -= (cur - extra) / 8;
	ss->rx_extra = cur;
}

/*
 * Keep a reference to @skb (the packets of a train share it, each with a
 * reference of its own: no clone, no allocation per packet) for the
 * fragment at @off of @rm instead of copying its payload (at @data_off
 * from skb->data): recvmsg() copies it once, into the user's buffer.
 * Kept when it can be (spray_rx_keepable() said so, and that it holds
 * @extra beyond the payload), the fragment lies on the message's grid,
 * and @extra fits what the message's admission reserved for it
 * (&spray_rmsg.extra_left): the receive buffer's charge and the credit
 * stay what they were promised. The skb loses what ties it
 * to the way it came (route, conntrack).
 *
 * Return: true if kept (the caller still drops its own reference).
 */
static bool spray_rmsg_keep(struct spray_rmsg *rm, struct sk_buff *skb,
			    u32 extra, u32 data_off, u32 off)
{
	u32 n, arr, i;

	if (!rm->frag)
		return false;
	i = off / rm->frag;
	if (!rm->skbs) {
		n = DIV_ROUND_UP(rm->len, rm->frag);
		arr = kmalloc_size_roundup(n * sizeof(*rm->skbs));
		if (arr + extra > rm->extra_left)
			return false;
		if (n <= rm->tail_n)
			rm->skbs = spray_rmsg_tail_skbs(rm);
		else
			rm->skbs = kcalloc(n, sizeof(*rm->skbs),
					   GFP_ATOMIC | __GFP_NOWARN);
		if (!rm->skbs)
			return false;
		rm->nskbs = n;
		rm->extra_left -= arr;
	}
	if (extra > rm->extra_left || WARN_ON_ONCE(i >= rm->nskbs ||
						   rm->skbs[i].skb))
		return false;
	/* the first packet kept of it; no-ops for the rest of a train */
	skb_orphan(skb);
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	rm->extra_left -= extra;
	rm->skbs[i].skb = skb_get(skb);
	rm->skbs[i].data_off = data_off;
	return true;
}

/*
 * A challenge to the sender of incarnation @in->src_cid, whose SYN may not
 * replace the current incarnation: an ACK of that incarnation that
 * acknowledges nothing and whose src_cid is a token. The real sender at
 * the SYN's address, and only it, hears the ACK and puts the token in its
 * next DATA (dst_cid, as for any ACK): its incarnation is then adopted
 * (spray_rx_incarnation()). A replayed or forged SYN gets no answer. The
 * token is the connection's, not the incarnation's: a sender whose own
 * SYN was not challenged, because a flood of forged ones from its address
 * took the rate limit (the challenges share the per-source limit of the
 * NACKs), answers the challenge of a forged one (spray_rcv_challenge()).
 * It changes when an incarnation is adopted by it.
 */
static u32 spray_rx_chal_token(const struct spray_conn *c)
{
	return jhash_1word(c->remote.port, c->chal_key) ?: 1;
}

static void spray_rx_challenge(struct spray_conn *c,
			       const struct spray_pkt *in, u64 now,
			       struct sk_buff_head *q)
{
	struct spray_pkt p = {};
	struct sk_buff *skb;

	if (!spray_nack_allowed(spray_conn_net(c), &c->remote, now))
		return;
	p.type = SPRAY_T_ACK;
	p.src_cid = spray_rx_chal_token(c);
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
 * (its sender timestamp) and plausible: the peer's clock cannot run ahead
 * of ours by more than SPRAY_TS_SLACK_NS. So late packets of an old
 * incarnation, and forged ones with a far-future timestamp, never replace
 * the real peer's, verified (its sender proved it hears our ACKs:
 * spray_rx_accepted()) or not yet (its first round trip: a forged SYN that
 * took it then would leave the real sender's next DATA, no longer a SYN,
 * without a connection, and the forgery's timestamp ahead of the real
 * sender's new one). Any other SYN is challenged (spray_rx_challenge()):
 * a real peer whose clock went back (a reboot), or whose incarnation a
 * forgery took before it arrived, answers and is adopted.
 */
static enum skb_drop_reason spray_rx_incarnation(struct spray_conn *c,
						 const struct spray_pkt *p,
						 u64 now,
						 struct sk_buff_head *q)
{
	struct spray_net *sn = spray_conn_net(c);
	u64 ts = p->data.ts_ns;
	struct sk_buff *n;
	u32 token;

	if (p->src_cid == c->peer_cid)
		return SKB_NOT_DROPPED_YET;
	token = spray_rx_chal_token(c);
	if (p->dst_cid == token) {
		/* the sender we challenged answered: it hears us */
		spray_rx_reset(c, p->src_cid, ts, now);
		c->ack_cid = token;
		c->rx_verified = true;
		/* a late packet of it cannot take the next one back */
		c->chal_key = get_random_u32();
		return SKB_NOT_DROPPED_YET;
	}
	if (!(p->flags & SPRAY_F_SYN)) {
		n = spray_nack_skb(sn, &c->remote, &c->saddr, p, now);
		if (n)
			__skb_queue_tail(q, n);
		return spray_drop(sn, SPRAY_DROP_STALE);
	}
	if (c->peer_cid && now - c->rx_last_ns < SPRAY_STALE_NS &&
	    (ts <= c->peer_last_ts ||
	     ts - c->peer_last_ts > now - c->rx_last_ns + SPRAY_TS_SLACK_NS)) {
		spray_rx_challenge(c, p, now, q);
		return spray_drop(sn, SPRAY_DROP_STALE);
	}
	spray_rx_reset(c, p->src_cid, ts, now);
	return SKB_NOT_DROPPED_YET;
}

/* A packet of the current incarnation was accepted. */
static void spray_rx_accepted(struct spray_conn *c, const struct spray_pkt *p,
			      u64 now)
{
	c->last_active_ns = now;
	c->rx_last_ns = now;
	c->rx_mtu = max_t(u32, c->rx_mtu, p->data.frag_len);
	c->peer_last_ts = max(c->peer_last_ts, p->data.ts_ns);
	c->peer_caps = p->caps;
	if (p->dst_cid && p->dst_cid == c->ack_cid)
		c->rx_verified = true;
}

/* Return: SKB_NOT_DROPPED_YET if the packet was used, else why not. */
static enum skb_drop_reason spray_rcv_data(struct spray_conn *c,
					   struct sk_buff *skb, bool own,
					   u32 off, const struct spray_pkt *p,
					   bool ce, u64 now,
					   struct sk_buff_head *q)
{
	struct spray_net *sn = spray_conn_net(c);
	bool admitted, keep, copied = false;
	enum skb_drop_reason drop;
	struct spray_rmsg *rm;
	u32 extra = 0;
	int err;

	drop = spray_rx_incarnation(c, p, now, q);
	if (drop)
		return drop;

	if (spray_rxwin_received(&c->rx, p->psn) ||
	    p->psn - c->rx.cum >= SPRAY_RXWIN_BITS) {
		/*
		 * Duplicate, or outside the window: let rxwin count it (and
		 * ACK it again). Its sender is alive and may not have heard
		 * our ACKs: forgetting it now (idle) would make it start a
		 * new incarnation and send again what we delivered.
		 */
		c->last_active_ns = now;
		err = spray_rxwin_rcv(&c->rx, p->psn, p->flags, ce,
				      p->data.ts_ns, p->ev, now);
		return spray_drop(sn, -err);
	}
	/* room came free for those in line (the turn may be this one's) */
	if (!list_empty(&c->ss->rx_waiting) || !list_empty(&c->ss->rx_turned))
		spray_rx_turns(c->ss, now, q);
	admitted = c->rx_left_msgs;
	keep = spray_rx_keepable(skb, own, p->data.frag_len,
				 p->hdr_len + p->data.frag_len, &extra);
	if (keep)
		spray_rx_learn_extra(c->ss, extra, 1);
	rm = spray_rmsg_get(c, p);
	admitted = c->rx_left_msgs > admitted;
	if (rm == ERR_PTR(-EINVAL))
		return spray_drop(sn, SPRAY_DROP_FRAG);
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
			return SKB_DROP_REASON_NOT_SPECIFIED;
		spray_rx_accepted(c, p, now);
		spray_queue_nack(c, p->psn, 1, SPRAY_NACK_MSG_SIZE, q);
		return spray_drop(sn, SPRAY_DROP_MSG_SIZE);
	}
	if (!IS_ERR(rm)) {
		err = spray_rmsg_frag(rm, p->data.frag_off, p->data.frag_len);
		if (err == -EINVAL)
			return spray_drop(sn, SPRAY_DROP_FRAG);
		if (err)
			rm = ERR_PTR(err);
	}
	if (!IS_ERR(rm) && !(keep && spray_rmsg_keep(rm, skb, extra,
						     off + p->hdr_len,
						     p->data.frag_off))) {
		if (spray_rmsg_fill(rm, skb, off + p->hdr_len,
				    p->data.frag_off, p->data.frag_len)) {
			spray_rmsg_unfrag(rm, p->data.frag_off,
					  p->data.frag_len);
			rm = ERR_PTR(-ENOMEM);
		} else {
			copied = true;
		}
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
		/* the next read tells it to send again */
		WRITE_ONCE(c->ss->rx_wants_read, true);
		spray_queue_nack(c, p->psn, 1, SPRAY_NACK_NO_BUF, q);
		return rm == ERR_PTR(-ENOBUFS) ? SKB_DROP_REASON_SOCKET_RCVBUFF :
		       SKB_DROP_REASON_NOMEM;
	}
	err = spray_rxwin_rcv(&c->rx, p->psn, p->flags, ce, p->data.ts_ns,
			      p->ev, now);
	if (WARN_ON_ONCE(err))
		return SKB_DROP_REASON_NOT_SPECIFIED;
	spray_rx_accepted(c, p, now);
	spray_rcc_on_data(&c->ss->rcc, &c->rcc, p->data.frag_len,
			  p->data.min_rtt, now);
	if (rm->pkts_left) {
		rm->pkts_left--;
		c->rx_left_pkts--;
	}
	/* its other packets may have been refused: they fit now */
	if (admitted)
		spray_queue_resume(c, q);
	c->stat_rx++;
	spray_mib_inc(sn, SPRAY_MIB_RX_PKTS);
	if (copied)
		spray_mib_inc(sn, SPRAY_MIB_RX_COPIED);
	spray_mib_add(sn, SPRAY_MIB_RX_BYTES, p->data.frag_len);
	if (ce)
		spray_mib_inc(sn, SPRAY_MIB_ECN_CE);
	if (rm->got >= rm->len)
		spray_rx_complete(c, rm);
	return SKB_NOT_DROPPED_YET;
}

/*
 * An ACK of our incarnation, in a packet of its own (@ack_cid its src_cid)
 * or carried by the peer's DATA (spray_data_ack_hdr.src_cid).
 */
static enum skb_drop_reason spray_rcv_ack(struct spray_conn *c,
					  const struct spray_ack *ack,
					  u32 ack_cid, u16 caps, u64 now)
{
	struct spray_txack_sum sum;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_ACK_RX);
	c->ops_now = now;
	if (spray_txwin_on_ack(&c->tw, ack, now, &spray_tx_ops, c, &sum))
		return SKB_DROP_REASON_TCP_ACK_UNSENT_DATA;
	c->ack_rx_ns = now;
	/*
	 * Progress: the next RTO may probe again. None after an answer
	 * probe: the peer acknowledged what it has, the rest is lost (one
	 * round trip after the expiry, where the RTO would have said so)
	 */
	if (sum.pkts) {
		c->rto_probed = false;
		c->soft_err = 0;
	} else if (c->rto_probed && spray_txwin_rto_deadline(&c->tw) &&
		   !c->tw.failed) {
		spray_conn_rto(c, now, true);
	}
	c->synced = true;
	c->peer_ack_cid = ack_cid;
	c->peer_caps = caps;
	c->last_active_ns = now;
	spray_nscc_on_ack(&c->nscc, &c->cc, &sum, c->tw.min_rtt_ns, now);
	if (c->tw.failed)
		spray_tx_fail_all(c, spray_conn_timeout_err(c));
	else
		spray_write_space(&c->ss->sk);
	return SKB_NOT_DROPPED_YET;
}

/*
 * A challenge (spray_rx_challenge()) to another incarnation than ours,
 * while the peer has acknowledged none of ours: a flood of forged SYNs
 * from our address took the incarnation at the peer, and its challenges
 * reach us, the address's real owner, while ours wait behind the rate
 * limit. Its token goes in our next DATA (still SYN) as if our own SYN
 * had been challenged, and the peer adopts our incarnation. Nothing else
 * is taken from it (no RTO, no window): a forger off the path who sends
 * one can at most make our next packets carry a wrong token, which the
 * peer's first real ACK replaces.
 *
 * Return: whether @p was one.
 */
static bool spray_rcv_challenge(struct spray_conn *c, const struct spray_pkt *p)
{
	if (p->type != SPRAY_T_ACK || (p->flags & SPRAY_F_PROBE) ||
	    !c->tx_ready || c->synced || p->dst_cid == c->local_cid ||
	    p->ack.cum_psn != p->dst_cid || p->ack.sack_base != p->dst_cid ||
	    p->ack.grant_psn != p->dst_cid || !p->src_cid)
		return false;
	c->peer_ack_cid = p->src_cid;
	return true;
}

/*
 * The messages a NACK names count it in their history, once each (its
 * psns are consecutive: one or two messages usually). Before the NACK is
 * applied: its ACK part may free them.
 */
static void spray_nack_hist(struct spray_conn *c, const struct spray_pkt *p)
{
	struct spray_tmsg *last = NULL;
	struct spray_txrec *rec;
	u32 i;

	if (p->nack.reason != SPRAY_NACK_LOSS &&
	    p->nack.reason != SPRAY_NACK_WINDOW &&
	    p->nack.reason != SPRAY_NACK_NO_BUF)
		return;
	for (i = 0; i < p->nack.count && i < SPRAY_NACK_MAX_COUNT; i++) {
		rec = spray_txwin_rec(&c->tw, p->nack.psn + i);
		/* a SACKED record's message may be complete, and gone */
		if (!rec || !rec->msg || rec->msg == last ||
		    (rec->state != SPRAY_TXREC_INFLIGHT &&
		     rec->state != SPRAY_TXREC_LOST &&
		     rec->state != SPRAY_TXREC_REFUSED))
			continue;
		last = rec->msg;
		spray_hist_inc(&last->hist.nacks);
	}
}

static enum skb_drop_reason spray_rcv_nack(struct spray_conn *c,
					   const struct spray_pkt *p, u64 now)
{
	int ret;

	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_NACK_RX);
	c->ops_now = now;
	spray_nack_hist(c, p);
	ret = spray_txwin_on_nack(&c->tw, p->nack.psn, p->nack.count,
				  p->nack.reason, p->nack.cum_psn,
				  p->nack.grant_psn, now, &spray_tx_ops, c);
	if (ret == -EINVAL)
		return SKB_DROP_REASON_TCP_ACK_UNSENT_DATA;
	c->last_active_ns = now;
	if (ret == -EMSGSIZE) {
		spray_tx_msg_size(c, p->nack.psn);
		spray_write_space(&c->ss->sk);
		return SKB_NOT_DROPPED_YET;
	}
	if (ret != -ECONNRESET) {
		if (c->tw.failed)
			spray_tx_fail_all(c, spray_conn_timeout_err(c));
		return SKB_NOT_DROPPED_YET;
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
	return SKB_NOT_DROPPED_YET;
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
	c->ack_rx_ns = now;
	if (c->tx_ready)
		spray_txwin_heard(&c->tw, now);
	c->last_active_ns = now;
	if (c->evs[idx].state == SPRAY_EV_DOWN)
		spray_conn_path_event(c, idx, true);
	spray_path_on_ack(&c->path, idx, false, now);
	spray_conn_blackhole_check(c, p->ack.ts_echo);
}

/*
 * A PROBE of an incarnation of the sender's that we hold no state for: one
 * that never had an ACK of ours (SPRAY_F_SYN) is echoed, without state
 * (spray_probe_echo_skb()); any other is stale.
 */
static enum skb_drop_reason spray_rcv_stray_probe(struct spray_net *sn,
						  const struct spray_pkt *p,
						  const struct spray_addr *peer,
						  const struct spray_addr *to,
						  u64 now,
						  struct sk_buff_head *q)
{
	struct sk_buff *skb;

	if (p->flags & SPRAY_F_SYN) {
		skb = spray_probe_echo_skb(sn, peer, &to->v6, p, now);
		if (skb)
			__skb_queue_tail(q, skb);
	}
	return spray_drop(sn, SPRAY_DROP_STALE);
}

/*
 * One packet of socket @ss, under its lock: its connection (found, or
 * opened by a SYN) in *@cp, or NULL. Return: SKB_NOT_DROPPED_YET if the
 * packet was used, else the kernel's reason for dropping it.
 */
static enum skb_drop_reason spray_rcv_locked(struct spray_sock *ss,
					     struct sk_buff *skb, bool own,
					     u32 off, const struct spray_pkt *p,
					     const struct spray_addr *peer,
					     const struct spray_addr *to,
					     bool ce, u64 now,
					     struct sk_buff_head *q,
					     struct spray_conn *hint,
					     struct spray_conn **cp)
{
	struct spray_net *sn = ss->sn;
	enum skb_drop_reason drop = SKB_NOT_DROPPED_YET;
	struct spray_conn *c;
	struct sk_buff *nack;

	lockdep_assert_held(&ss->lock);
	*cp = NULL;
	if (ss->dead)
		return SPRAY_SKB_DROP_CLOSED;
	if (p->type == SPRAY_T_DATA && ss->closing) {
		/*
		 * closed: nothing more is received, the sender is told (a
		 * resend of what arrived before: that it arrived)
		 */
		if (!spray_tw_answer(sn, p, peer, to, now, q)) {
			nack = spray_nack_skb(sn, peer, &to->v6, p, now);
			if (nack)
				__skb_queue_tail(q, nack);
		}
		return spray_drop(sn, SPRAY_DROP_CLOSED);
	}
	/* the train's connection, as the last packet found it */
	if (hint && spray_addr_eq(&hint->remote, peer) &&
	    ipv6_addr_equal(&hint->saddr, &to->v6))
		c = hint;
	else
		c = spray_conn_find(ss, peer, &to->v6);
	if (!c) {
		if (p->type == SPRAY_T_PROBE)
			return spray_rcv_stray_probe(sn, p, peer, to, now, q);
		if (p->type != SPRAY_T_DATA)
			return spray_drop(sn, SPRAY_DROP_STALE);
		if (!(p->flags & SPRAY_F_SYN)) {
			/*
			 * We forgot the sender (we restarted, or idled out):
			 * it starts a new incarnation and sends again. Or a
			 * socket before us on this port received it and
			 * closed: it is told what arrived then.
			 */
			if (spray_tw_answer(sn, p, peer, to, now, q))
				return spray_drop(sn, SPRAY_DROP_CLOSED);
			nack = spray_nack_skb(sn, peer, &to->v6, p, now);
			if (nack)
				__skb_queue_tail(q, nack);
			return spray_drop(sn, SPRAY_DROP_STALE);
		}
		/* state for unknown senders is bounded per socket and netns */
		if (ss->nconns >= SPRAY_MAX_CONNS ||
		    atomic_read(&sn->nconns) >= SPRAY_MAX_NET_CONNS)
			return spray_drop(sn, SPRAY_DROP_LIMIT);
		c = spray_conn_alloc(ss, peer, GFP_ATOMIC);
		if (!c)
			return SKB_DROP_REASON_NOMEM;
		c->saddr = to->v6;
		spray_conn_insert(ss, c);
	}
	*cp = c;

	switch (p->type) {
	case SPRAY_T_DATA:
		drop = spray_rcv_data(c, skb, own, off, p, ce, now, q);
		/*
		 * Before the ACK: its grant counts the active senders. The
		 * ACK and NACKs come after the train (spray_rx_batch_end()).
		 */
		spray_rx_update_active(c);
		/* the ACK it carries counts whatever became of the data */
		if ((p->flags & SPRAY_F_ACK) && c->tx_ready &&
		    p->dack.dst_cid == c->local_cid) {
			spray_rcv_ack(c, &p->dack.ack, p->dack.src_cid, p->caps,
				      now);
			/* an answer carried it */
			c->peer_answers = true;
			spray_conn_tx_feedback(c, now, q);
		}
		break;
	case SPRAY_T_PROBE:
		if (!c->peer_cid || p->src_cid != c->peer_cid) {
			drop = spray_rcv_stray_probe(sn, p, peer, to, now, q);
			break;
		}
		c->last_active_ns = now;
		spray_answer_probe(c, p, now, q);
		/*
		 * A window probe (the sender waits for our grant) or an
		 * answer probe (it waited an RTO for our answer: none came in
		 * time, we stop holding ACKs for answers)
		 */
		if (p->flags & SPRAY_F_ACK_REQ) {
			c->rx.answering = false;
			spray_queue_ack(c, now, q);
		}
		break;
	case SPRAY_T_ACK:
	case SPRAY_T_NACK:
		if (spray_rcv_challenge(c, p))
			break;
		if (!c->tx_ready || p->dst_cid != c->local_cid) {
			drop = spray_drop(sn, SPRAY_DROP_STALE);
			break;
		}
		if (p->type == SPRAY_T_NACK)
			drop = spray_rcv_nack(c, p, now);
		else if (p->flags & SPRAY_F_PROBE)
			spray_probe_acked(c, p, now);
		else
			drop = spray_rcv_ack(c, &p->ack, p->src_cid, p->caps,
					     now);
		/* an ACK of its own: the peer did not answer in time */
		if (p->type == SPRAY_T_ACK && !(p->flags & SPRAY_F_PROBE))
			c->peer_answers = false;
		spray_conn_tx_feedback(c, now, q);
		break;
	default:
		/* CLOSE: defined, not implemented (spray-wire.rst) */
		drop = SKB_DROP_REASON_UNHANDLED_PROTO;
		break;
	}
	return drop;
}

/**
 * struct spray_rx_batch - the packets of one skb, taken together
 * @ss: the socket whose lock is held, for the skb's next packets
 * @dport: the port @ss was found for (the next packets to it need no
 *	lookup)
 * @c: the connection whose DATA packets wait for their answers
 * @own: nobody else held the skb when it came (not skb_shared()): its
 *	packets may be kept in it (spray_rmsg_keep()), each taking a
 *	reference, after which skb_shared() no longer tells
 * @now: the clock, read once @ss's lock was taken. Not before: what
 *	another CPU stamped under the lock meanwhile (a connection's
 *	rx_last_ns, say) would be later than a clock read before, and an
 *	age computed from them would wrap to centuries: a live incarnation
 *	would look silent, and a forged SYN replace it.
 * @next_ok: @p and @hdr are the last packet's, DATA without a carried ACK
 *	of @c: the skb's next packet is predicted from them
 * @p: the last packet, parsed
 * @hdr: its header's bytes
 *
 * A train's packets are most often one connection's: its ACK and NACK
 * decisions and its timer are made once, after the last of them (or when
 * the next packet is another connection's), as GRO gives TCP one ACK
 * decision per merged skb; one lock is taken for them all.
 */
struct spray_rx_batch {
	struct spray_sock	*ss;
	u16			dport;
	struct spray_conn	*c;
	bool			own;
	bool			next_ok;
	u64			now;
	struct spray_pkt	p;
	u8			hdr[SPRAY_DATA_HDR_LEN];
};

/* Answer the DATA packets taken for the batch's connection, arm its timer. */
static void spray_rx_batch_end(struct spray_rx_batch *b,
			       struct sk_buff_head *q)
{
	struct spray_conn *c = b->c;
	u64 now = b->now;

	b->next_ok = false;
	if (!c)
		return;
	lockdep_assert_held(&b->ss->lock);
	b->c = NULL;
	if (c->peer_cid) {
		spray_queue_acks(c, now, q);
		spray_queue_nacks(c, now, q);
	}
	spray_conn_arm(c, now);
}

/*
 * End the batch and let its socket's lock go, if it holds one; then wake
 * the reader if a message became ready (the socket stays valid: RCU, and
 * SOCK_RCU_FREE).
 */
static void spray_rx_batch_unlock(struct spray_rx_batch *b,
				  struct sk_buff_head *q)
{
	struct spray_sock *ss = b->ss;
	bool wake;

	if (!ss)
		return;
	spray_rx_batch_end(b, q);
	wake = ss->rx_wake;
	ss->rx_wake = false;
	/* taken in spray_rcv_one() for the skb's packets (for sparse) */
	__acquire(&ss->lock);
	spin_unlock_bh(&ss->lock);
	b->ss = NULL;
	if (wake)
		spray_data_ready(ss);
}

/*
 * The @len bytes at @off of @skb: in place when they lie in its head or in
 * one of its page frags (first the one @cur names), else copied into @buf
 * (skb_header_pointer()). The headers of a train that came whole lie in
 * its frags (the sender's chunks): copying each was 2.5% of the receiving
 * CPU.
 */
static const void *spray_skb_peek(const struct sk_buff *skb, u32 off,
				  u32 len, void *buf,
				  struct spray_skb_cursor *cur)
{
	const void *hp;

	if (off + len <= skb_headlen(skb))
		return skb->data + off;
	hp = spray_skb_at(skb, off, len, cur);
	return hp ?: skb_header_pointer(skb, off, len, buf);
}

/*
 * The followers of a train, from the one at @off on (parsed in @b->p,
 * predicted from its predecessor), taken as one run when they can be: the
 * next psns of @b->c's window, its current message's next fragments on
 * its grid, none received, each kept in @skb within what the message's
 * admission reserved. Their state changes once for the run (one range of
 * the receive window, of the fragment map and of the kept skbs, one
 * reference taken for them all, the counters and the credit once) and
 * ends as their DATA handling one by one (spray_rcv_data()) would leave
 * it: only its common case is taken here, the first packet that is not
 * (a duplicate, a new message, a copy, a socket with receivers in line)
 * ends the run and goes the usual way. @seg: @skb's packet size.
 *
 * Return: the bytes of @skb taken from @off (whole packets), or 0: the
 * packet at @off is to be taken alone (@b->p unchanged then).
 */
static u32 spray_rcv_run(struct spray_rx_batch *b, struct sk_buff *skb,
			 u32 off, u32 seg, bool ce)
{
	u32 psn, fo, fl, i0, at, len, lim, first_fl, last_fl = 0, n = 0;
	u32 bytes = 0, extras = 0, xlen = 0, xextra = 0, xn = 0, fn;
	u8 hdr[SPRAY_DATA_HDR_LEN] __uninitialized;
	/* the header the next packet must carry: @b->hdr's, but for three */
	u8 exp[SPRAY_DATA_HDR_LEN] __aligned(8);
	struct spray_skb_cursor cur = {};
	struct spray_conn *c = b->c;
	struct spray_pkt *p = &b->p;
	struct spray_sock *ss = c->ss;
	struct spray_rmsg *rm;
	const void *hp;
	u64 now = b->now;

	rm = c->rx_last;
	psn = p->psn;
	fo = p->data.frag_off;
	first_fl = p->data.frag_len;
	if (!b->own || p->src_cid != c->peer_cid || !rm ||
	    rm->msg_id != p->data.msg_id || rm->len != p->data.msg_len ||
	    !rm->fmap || !rm->skbs || fo % rm->frag ||
	    first_fl != min(rm->frag, rm->len - fo) ||
	    spray_psn_before(psn, c->rx.high) ||
	    psn - c->rx.cum >= SPRAY_RXWIN_BITS ||
	    !list_empty(&ss->rx_waiting) || !list_empty(&ss->rx_turned))
		return 0;
	/*
	 * The packets the run may take: from fragment i0 on, those the
	 * receive window has room for and not received yet (a fragment not
	 * in the map has no skb kept either: spray_rmsg_keep() follows
	 * spray_rmsg_frag()), looked for once rather than per packet
	 */
	i0 = fo / rm->frag;
	lim = find_next_bit(rm->fmap,
			    min(i0 + SPRAY_RXWIN_BITS - (psn - c->rx.cum),
				rm->nskbs), i0) - i0;
	memcpy(exp, b->hdr, sizeof(exp));
	/*
	 * Packet n of the run, at @at: its psn, fragment (offset @fn, length
	 * @fl) and header are what its predecessor's predict, checked (but
	 * for the first, parsed in @p) in one compare with @exp
	 */
	for (at = off, fn = fo, fl = first_fl; ; ) {
		if (fl != xlen) {
			/* the full packets share one size, the last another */
			spray_rx_learn_extra(ss, xextra, xn);
			xn = 0;
			if (!spray_rx_keepable(skb, true, fl, p->hdr_len + fl,
					       &xextra))
				break;
			xlen = fl;
		}
		if (n >= lim || xextra > rm->extra_left - extras)
			break;
		extras += xextra;
		xn++;
		bytes += fl;
		last_fl = fl;
		n++;
		at += p->hdr_len + fl;
		fn += fl;
		if (at >= skb->len || fn >= rm->len)
			break;
		fl = min(rm->frag, rm->len - fn);
		len = min(seg, skb->len - at);
		if (len != SPRAY_DATA_HDR_LEN + fl)
			break;
		spray_pkt_build_next(exp, psn + n, fn, fl);
		/* most often in the frag of the header before */
		hp = spray_skb_peek(skb, at, SPRAY_DATA_HDR_LEN, hdr, &cur);
		if (!hp || !spray_pkt_data_hdr_eq(hp, exp))
			break;
	}
	spray_rx_learn_extra(ss, xextra, xn);
	/* @p as the run's last packet: its psn, fragment, and all else */
	p->psn = psn + n - 1;
	p->data.frag_off = fo + (n - 1) * rm->frag;
	p->data.frag_len = last_fl;
	if (!n || WARN_ON_ONCE(spray_rxwin_rcv_run(&c->rx, psn, n, p->flags,
						   ce, p->data.ts_ns, p->ev,
						   now))) {
		p->psn = psn;
		p->data.frag_off = fo;
		p->data.frag_len = first_fl;
		return 0;
	}
	bitmap_set(rm->fmap, i0, n);
	rm->got += bytes;
	rm->extra_left -= extras;
	/* as spray_rmsg_keep(), once for the run */
	skb_orphan(skb);
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	refcount_add(n, &skb->users);
	for (at = 0; at < n; at++) {
		rm->skbs[i0 + at].skb = skb;
		rm->skbs[i0 + at].data_off = off + at * seg + p->hdr_len;
	}
	spray_rx_accepted(c, p, now);
	c->rx_mtu = max(c->rx_mtu, first_fl);
	/* the rate as packet by packet: the first may close its window */
	spray_rcc_on_data(&ss->rcc, &c->rcc, first_fl, p->data.min_rtt, now);
	if (n > 1)
		spray_rcc_on_data(&ss->rcc, &c->rcc, bytes - first_fl,
				  p->data.min_rtt, now);
	at = min(n, rm->pkts_left);
	rm->pkts_left -= at;
	c->rx_left_pkts -= at;
	c->stat_rx += n;
	spray_mib_add(ss->sn, SPRAY_MIB_RX_PKTS, n);
	spray_mib_add(ss->sn, SPRAY_MIB_RX_BYTES, bytes);
	if (ce)
		spray_mib_add(ss->sn, SPRAY_MIB_ECN_CE, n);
	if (rm->got >= rm->len)
		spray_rx_complete(c, rm);
	spray_rx_update_active(c);
	return (n - 1) * seg + p->hdr_len + last_fl;
}

/*
 * One packet at @off of @skb (@skb's packets are @seg bytes, the last may
 * be shorter), under the lock of its socket: taken here, and kept in @b
 * for the skb's next packets, which are most often the same connection's
 * (a train). A train's packets after its first are predicted
 * (spray_pkt_parse_next()): one whose header is its predecessor's but for
 * psn and fragment goes to the same connection's DATA handling without a
 * parse nor a lookup, as it would after them, with the followers after it
 * when they make a run (spray_rcv_run()). *@taken: the bytes of @skb
 * taken from @off, one packet or a run. Return: SKB_NOT_DROPPED_YET if
 * it was used, else the kernel's reason for dropping it.
 */
static enum skb_drop_reason spray_rcv_one(struct spray_net *sn,
					  struct sk_buff *skb,
					  u32 off, u32 seg, u32 *taken,
					  const struct spray_addr *from,
					  const struct spray_addr *to, bool ce,
					  struct sk_buff_head *q,
					  struct spray_rx_batch *b)
{
	u32 len = min(seg, skb->len - off);
	bool more = off + len < skb->len;
	/*
	 * Not read before it is written (a bounce buffer): not cleared per
	 * packet under CONFIG_INIT_STACK_ALL_ZERO, as Debian's kernels are
	 * built (a rep stos a packet: 9% of this function's own time).
	 */
	u8 hdr[SPRAY_MAX_HDR_LEN] __uninitialized;
	struct spray_skb_cursor cur = {};
	struct spray_pkt *p = &b->p;
	struct spray_addr peer = *from;
	enum skb_drop_reason drop;
	struct spray_sock *ss;
	struct spray_conn *c;
	struct sk_buff *nack;
	const void *hp;
	u64 now;
	int err;

	hp = spray_skb_peek(skb, off, min_t(u32, len, sizeof(hdr)), hdr, &cur);
	if (unlikely(!hp))
		return spray_drop(sn, SPRAY_DROP_SHORT);
	*taken = len;
	if (b->next_ok && !spray_pkt_parse_next(hp, len, b->hdr, p)) {
		/* the same socket, sender and incarnation as the last one */
		c = b->c;
		if (more) {
			*taken = spray_rcv_run(b, skb, off, seg, ce);
			if (*taken) {
				if (off + *taken >= skb->len)
					spray_rx_batch_end(b, q);
				return SKB_NOT_DROPPED_YET;
			}
			*taken = len;
		}
		drop = spray_rcv_data(c, skb, b->own, off, p, ce, b->now, q);
		spray_rx_update_active(c);
		if (!more)
			spray_rx_batch_end(b, q);
		return drop;
	}
	b->next_ok = false;
	err = spray_pkt_parse(hp, len, p);
	if (err)
		return spray_drop(sn, -err);
	peer.port = p->sport;
	/* a train's packets are most often one socket's: no lookup each */
	if (b->ss && b->dport == p->dport)
		ss = b->ss;
	else
		ss = spray_sock_lookup_rcu(sn, p->dport, to);
	if (!ss) {
		spray_mib_inc(sn, SPRAY_MIB_NO_SOCKET);
		now = ktime_get_ns();
		/*
		 * Port unreachable: the sender fails fast, unless this is a
		 * resend of what a socket closed since had received.
		 */
		if (p->type == SPRAY_T_DATA &&
		    !spray_tw_answer(sn, p, &peer, to, now, q)) {
			nack = spray_nack_skb(sn, &peer, &to->v6, p, now);
			if (nack)
				__skb_queue_tail(q, nack);
		}
		return SKB_DROP_REASON_NO_SOCKET;
	}
	if (ss != b->ss) {
		spray_rx_batch_unlock(b, q);
		spin_lock_bh(&ss->lock);
		/* held across calls, for the skb's next packets (for sparse) */
		__release(&ss->lock);
		b->ss = ss;
		b->dport = p->dport;
		b->now = ktime_get_ns();
	}
	now = b->now;
	drop = spray_rcv_locked(ss, skb, b->own, off, p, &peer, to, ce, now,
				q, b->c, &c);
	if (!c)
		return drop;
	if (p->type != SPRAY_T_DATA) {
		spray_conn_arm(c, now);
		return drop;
	}
	if (b->c != c)
		spray_rx_batch_end(b, q);
	b->c = c;
	if (!more) {
		spray_rx_batch_end(b, q);
	} else if (!(p->flags & SPRAY_F_ACK)) {
		/* the next packet is predicted from this one */
		memcpy(b->hdr, hp, SPRAY_DATA_HDR_LEN);
		b->next_ok = true;
	}
	return drop;
}

/**
 * spray_conn_icmp_err() - an ICMP error about a packet of ours
 * @sn: the namespace
 * @local: the address the packet left from, port the sending socket's
 * @peer: its destination, port the peer's spray port
 * @hdr: the first bytes of the AF_SPRAY header the error quotes
 * @err: what the error means (ECONNREFUSED for a port unreachable)
 * @fatal: it ends a connection being opened (spray_icmp_err())
 * @frag: for an error about the path MTU (@err 0), the payload a packet
 *	may carry now
 *
 * For the connection whose incarnation the quoted header names (a forger
 * off the path must guess its random id). A fatal error (a port
 * unreachable: nothing takes AF_SPRAY on the peer's UDP port, the module
 * not loaded there, nothing ever bound, another ``udp-port``) fails its
 * messages, as a NACK NO_CONN does, if the peer never acknowledged the
 * incarnation. Any other, or once acknowledged, is left to the
 * retransmissions, as TCP leaves it once established: the messages fail
 * with it instead of ETIMEDOUT if they time out before an ACK brings
 * progress (a host unreachable: EHOSTUNREACH). A smaller path MTU (a
 * Packet Too Big, which the route has learnt by then) cuts the messages
 * that have not started; those that have keep their packets' size, which
 * the stack fragments to the path (ignore_df). Softirq, under
 * rcu_read_lock().
 */
void spray_conn_icmp_err(struct spray_net *sn, const struct spray_addr *local,
			 const struct spray_addr *peer,
			 const struct spray_hdr *hdr, int err, bool fatal,
			 u32 frag)
{
	struct spray_sock *ss;
	struct spray_conn *c;

	if (hdr->type != SPRAY_T_DATA && hdr->type != SPRAY_T_PROBE)
		return;
	ss = spray_sock_lookup_rcu(sn, ntohs(hdr->sport), local);
	if (!ss)
		return;
	spin_lock_bh(&ss->lock);
	c = ss->dead ? NULL : spray_conn_find(ss, peer, &local->v6);
	if (c && c->tx_ready && c->local_cid == ntohl(hdr->src_cid)) {
		if (!err) {
			if (frag < c->frag_size) {
				trace_spray_path_mtu(c, c->frag_size, frag,
						     !c->nodf);
				c->frag_size = frag;
			}
		} else if (fatal && !c->synced) {
			spray_tx_fail_all(c, err);
			spray_conn_arm(c, ktime_get_ns());
		} else {
			c->soft_err = err;
		}
	}
	spin_unlock_bh(&ss->lock);
}

/**
 * spray_conn_rcv() - handle the AF_SPRAY packets of one skb
 * @sn: the namespace they arrived in
 * @skb: skb->data at the first packet's AF_SPRAY header; consumed. A GSO
 *	skb (a sender's train that travelled whole, or packets merged by
 *	GRO) holds its packets back to back, gso_size bytes each but the last
 * @from: source address (port filled here from the header)
 * @to: destination address
 * @ce: the IP header carried ECN CE
 *
 * Softirq, under rcu_read_lock(). Answers go out once the socket lock is
 * released; the skb's packets are taken one by one under the lock of
 * their socket, taken once for a train (one lock, one clock read under
 * it, one ACK decision and timer update, one transmission of the answers
 * for all its packets: struct spray_rx_batch). Only packets valid for a
 * connection (DATA of its incarnation, ACKs and NACKs naming our
 * incarnation, PROBEs of the peer's) count as activity that keeps it from
 * idling out.
 */
void spray_conn_rcv(struct spray_net *sn, struct sk_buff *skb,
		    const struct spray_addr *from,
		    const struct spray_addr *to, bool ce)
{
	u32 seg = skb_is_gso(skb) ? skb_shinfo(skb)->gso_size : skb->len;
	enum skb_drop_reason drop = SKB_DROP_REASON_PKT_TOO_SMALL;
	struct spray_rx_batch b = {};
	bool used = false, data = false;
	struct sk_buff_head q;
	u32 off, len;

	__skb_queue_head_init(&q);
	/* nobody else holds it: its packets may be kept in it */
	b.own = !skb_shared(skb);
	/* an empty datagram: shorter than any header */
	if (!skb->len)
		drop = spray_drop(sn, SPRAY_DROP_SHORT);
	for (off = 0; seg && off < skb->len; off += len) {
		drop = spray_rcv_one(sn, skb, off, seg, &len, from, to, ce,
				     &q, &b);
		if (drop == SKB_NOT_DROPPED_YET) {
			used = true;
			/* b.p: the packet just taken */
			data |= b.p.type == SPRAY_T_DATA;
		}
	}
	if (data)
		spray_mib_inc(sn, SPRAY_MIB_RX_TRAINS);
	/* the answers of a train whose last packet was not a connection's */
	spray_rx_batch_unlock(&b, &q);
	spray_xmit_queue(sn, &q);
	/*
	 * A packet's fate is its skb's. Of a train that arrived whole, the
	 * skb was used if any of its packets was (the ones kept hold clones),
	 * else it is dropped for the last one's reason.
	 */
	if (used)
		consume_skb(skb);
	else
		kfree_skb_reason(skb, drop);
}

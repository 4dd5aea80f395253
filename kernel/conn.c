// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY connections: lookup and life cycle, their memory, the sending
 * half's state, and what a socket does to all of its connections. The
 * datapath is in output.c (packets out, sendmsg), input.c (packets in) and
 * timer.c; the protocol logic in the core (txwin, rxwin, path, cc).
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
#include <trace/events/spray.h>

static void spray_conn_free_work(struct work_struct *work);
static void spray_sock_linger_work(struct work_struct *work);

/* frees idle connections and orphans: process context, flushed at exit */
struct workqueue_struct *spray_wq;

static u32 spray_addr_hash(const struct spray_addr *a)
{
	return hash_32(ipv6_addr_hash(&a->v6) ^ a->port, SPRAY_CONN_HASH_BITS);
}

/*
 * The connection to @remote over our address @local; with @local NULL, the
 * one a new message to @remote goes on: one that sends already, else one
 * the peer opened (we answer from the address it used).
 */
struct spray_conn *spray_conn_find(struct spray_sock *ss,
				   const struct spray_addr *remote,
				   const struct in6_addr *local)
{
	struct spray_conn *c, *any = NULL;

	lockdep_assert_held(&ss->lock);
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

u32 spray_new_cid(void)
{
	u32 cid;

	do {
		cid = get_random_u32();
	} while (!cid);
	return cid;
}

/*
 * Congestion control settings of a connection: the socket's mode, the
 * namespace's bdp-bytes (the cap of the peer's BDP, which is learned);
 * @mtu the payload of a full packet (0: not known yet, the default until
 * the sending half is set up).
 */
static void spray_conn_cc_init(struct spray_conn *c, u32 mtu)
{
	struct spray_net *sn = c->ss->sn;
	struct spray_cc_cfg *cc = &c->cc;

	spray_cc_cfg_default(cc);
	cc->mode = READ_ONCE(c->ss->cc_mode);
	cc->bdp_bytes = READ_ONCE(sn->cfg.bdp_bytes);
	if (mtu)
		cc->mtu = mtu;
	/* derived from mtu and bdp_bytes (the cap) by the check */
	cc->bdp_min = 0;
	cc->min_cwnd = 0;
	cc->max_cwnd = 0;
	cc->init_cwnd = 0;
	cc->rcv_bdp_bytes = 0;
	if (spray_cc_cfg_check(cc))
		spray_cc_cfg_default(cc);
}

/* A connection with its receiving half idle; GFP_ATOMIC from softirq. */
struct spray_conn *spray_conn_alloc(struct spray_sock *ss,
				    const struct spray_addr *remote,
				    gfp_t gfp)
{
	struct spray_conn *c;
	int i;

	c = kzalloc(sizeof(*c), gfp);
	if (!c)
		return NULL;
	c->ss = ss;
	c->remote = *remote;
	INIT_LIST_HEAD(&c->tmsgs);
	INIT_LIST_HEAD(&c->rnode);
	INIT_LIST_HEAD(&c->rx_wait_node);
	INIT_LIST_HEAD(&c->tsq_node);
	INIT_LIST_HEAD(&c->rmsgs);
	INIT_LIST_HEAD(&c->rdone);
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	c->timer.function = spray_conn_timer;
	INIT_WORK(&c->free_work, spray_conn_free_work);
	c->last_active_ns = ktime_get_ns();
	c->chal_key = get_random_u32();
	c->ctrl_rng = get_random_u32() | 1;	/* xorshift: never 0 */
	for (i = 0; i < SPRAY_CTRL_EVS; i++)
		c->ctrl_ports[i] = 49152 + i * (16384 / SPRAY_CTRL_EVS) +
				   get_random_u32_below(16384 / SPRAY_CTRL_EVS);
	spray_conn_cc_init(c, 0);
	return c;
}

void spray_conn_insert(struct spray_sock *ss, struct spray_conn *c)
{
	lockdep_assert_held(&ss->lock);
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
bool spray_wmem_charge(struct sock *sk, u32 size)
{
	if (!sk_wmem_schedule(sk, size))
		return false;
	sk_mem_charge(sk, size);
	WRITE_ONCE(sk->sk_wmem_queued, sk->sk_wmem_queued + size);
	return true;
}

void spray_wmem_uncharge(struct sock *sk, u32 size)
{
	WRITE_ONCE(sk->sk_wmem_queued, sk->sk_wmem_queued - size);
	sk_mem_uncharge(sk, size);
}

/**
 * spray_sock_uncharge_read() - account what reads gave back
 * @ss: the socket, its lock held
 *
 * A read gives back its message's sk_rmem_alloc at once, without the
 * lock (spray_sock_rmsg_read()); the sk_forward_alloc part, which the lock
 * guards, is done here by whoever holds it next.
 */
void spray_sock_uncharge_read(struct spray_sock *ss)
{
	int n;

	lockdep_assert_held(&ss->lock);
	if (!atomic_read(&ss->rx_uncharge))
		return;
	n = atomic_xchg(&ss->rx_uncharge, 0);
	if (n)
		sk_mem_uncharge(&ss->sk, n);
}

bool spray_rmem_charge(struct sock *sk, u32 size)
{
	spray_sock_uncharge_read(spray_sk(sk));
	if (!__sk_rmem_schedule(sk, size, false))
		return false;
	sk_mem_charge(sk, size);
	atomic_add(size, &sk->sk_rmem_alloc);
	return true;
}

void spray_rmem_uncharge(struct sock *sk, u32 size)
{
	atomic_sub(size, &sk->sk_rmem_alloc);
	sk_mem_uncharge(sk, size);
}

/*
 * What a message being sent holds: its record and its data (a buffer, or
 * page chunks and their array: spray_tmsg_alloc_data()). A short one
 * whose buffer is the record's tail is charged as if apart.
 */
u32 spray_tmsg_charge(u32 len, u32 slot_frag)
{
	u32 space = spray_layout_space(len, slot_frag, SPRAY_DATA_HDR_LEN);
	u32 data = len <= SPRAY_TMSG_LINEAR ? kmalloc_size_roundup(len) :
		   PAGE_ALIGN(space) +
		   kmalloc_size_roundup(sizeof(struct page *) *
					DIV_ROUND_UP(space, PAGE_SIZE));

	return kmalloc_size_roundup(sizeof(struct spray_tmsg)) + data;
}

/* The bytes @m's chunks hold: its data, and its slots' headers if any. */
static u32 spray_tmsg_space(const struct spray_tmsg *m)
{
	return spray_layout_space(m->len, m->slot_frag, SPRAY_DATA_HDR_LEN);
}

/* Chunk @i's order: @m->order, the last one's as small as it can be. */
static unsigned int spray_tmsg_chunk_order(const struct spray_tmsg *m, u32 i)
{
	return min_t(unsigned int, m->order,
		     get_order(spray_tmsg_space(m) -
			       (i << (PAGE_SHIFT + m->order))));
}

/* Chunks of order @order for @m, the last one as small as it can be. */
static int spray_tmsg_alloc_chunks(struct spray_tmsg *m, u8 order)
{
	u32 ch = PAGE_SIZE << order, n = DIV_ROUND_UP(spray_tmsg_space(m), ch);
	u32 i;

	/* the record's tail, zeroed with it (spray_tmsg_alloc()) */
	if (n <= SPRAY_TMSG_TAIL_CHUNKS)
		m->chunks = (struct page **)m->data;
	else
		m->chunks = kcalloc(n, sizeof(*m->chunks), GFP_KERNEL);
	if (!m->chunks)
		return -ENOMEM;
	m->nchunks = n;
	m->order = order;
	for (i = 0; i < n; i++) {
		m->chunks[i] = spray_page_alloc(spray_tmsg_chunk_order(m, i),
						GFP_KERNEL | __GFP_NOWARN);
		if (!m->chunks[i]) {
			spray_tmsg_free_data(m);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * spray_tmsg_alloc() - the record of a message of @len bytes to send
 * @len: its length
 *
 * Process context. A message of at most SPRAY_TMSG_INLINE bytes gets its
 * buffer at the record's end (&spray_tmsg.data), in the same allocation;
 * one of chunks, room there for the array of SPRAY_TMSG_TAIL_CHUNKS.
 *
 * Return: the record, zeroed, or NULL.
 */
struct spray_tmsg *spray_tmsg_alloc(u32 len)
{
	size_t tail = len <= SPRAY_TMSG_INLINE ? len :
		      len <= SPRAY_TMSG_LINEAR ? 0 :
		      SPRAY_TMSG_TAIL_CHUNKS * sizeof(struct page *);
	struct spray_tmsg *m;

	return kzalloc(struct_size(m, data, tail), GFP_KERNEL);
}

/**
 * spray_tmsg_alloc_data() - the memory for a message's @len bytes
 * @m: the message
 * @len: its length
 * @slot_frag: the payload of its connection's packets, to lay it out in
 *	slots of one packet each (layout.h); 0 to pack it
 *
 * Process context. Chunks of 32 KiB where the page allocator has them
 * without effort, else pages. A message that fits SPRAY_TMSG_LINEAR is
 * one buffer, copied into its packets: it is never slotted; up to
 * SPRAY_TMSG_INLINE bytes, the record's own tail (@m from
 * spray_tmsg_alloc() for @len).
 *
 * Return: 0 or -ENOMEM.
 */
int spray_tmsg_alloc_data(struct spray_tmsg *m, u32 len, u32 slot_frag)
{
	m->len = len;
	if (len <= SPRAY_TMSG_INLINE) {
		/* spray_tmsg_alloc() made room */
		m->buf = m->data;
		return 0;
	}
	if (len <= SPRAY_TMSG_LINEAR) {
		m->buf = kmalloc(len, GFP_KERNEL);
		return m->buf ? 0 : -ENOMEM;
	}
	m->slot_frag = slot_frag;
	if (!spray_tmsg_alloc_chunks(m, SPRAY_TMSG_ORDER))
		return 0;
	return spray_tmsg_alloc_chunks(m, 0);
}

/* The data goes; the packets still in flight keep their pages. */
void spray_tmsg_free_data(struct spray_tmsg *m)
{
	u16 i;

	if (m->buf != m->data)
		kfree(m->buf);
	m->buf = NULL;
	for (i = 0; m->chunks && i < m->nchunks && m->chunks[i]; i++)
		spray_page_free(m->chunks[i], spray_tmsg_chunk_order(m, i));
	if (m->chunks != (struct page **)m->data)
		kfree(m->chunks);
	else
		memset(m->data, 0, SPRAY_TMSG_TAIL_CHUNKS * sizeof(*m->chunks));
	m->chunks = NULL;
	m->nchunks = 0;
}

/*
 * Where byte @off of @m lies: its chunk, the offset in it, bytes from
 * there back to back (to the chunk's end, its slot's, or the message's).
 */
static struct page *spray_tmsg_at(const struct spray_tmsg *m, u32 off,
				  u32 *poff, u32 *avail)
{
	u32 pos = spray_layout_pos(off, m->slot_frag, SPRAY_DATA_HDR_LEN);
	u32 i = pos >> (PAGE_SHIFT + m->order);

	*poff = pos - (i << (PAGE_SHIFT + m->order));
	*avail = min((PAGE_SIZE << m->order) - *poff,
		     spray_layout_run(off, m->len, m->slot_frag));
	return m->chunks[i];
}

/*
 * The user address of @i's next @len bytes when they lie in one user
 * buffer (send() and recv() on 6.4+: ITER_UBUF; an iovec's current
 * segment), else NULL. A copy of pieces of them in and out of packet slots
 * goes straight to _copy_{from,to}_user() at that address, a call per
 * piece, and @i is advanced once for all: the iterator's per-call
 * dispatch and bookkeeping cost as much as a 1.4 KiB piece's own moves
 * under the emulator's count. What neither call checks is what
 * _copy_{from,to}_iter() do not check either (the kernel side is a chunk
 * or a frag, see below); access_ok() is in both.
 */
static void __user *spray_iter_ubase(const struct iov_iter *i, size_t len)
{
	if (len > iov_iter_count(i))
		return NULL;
	if (iter_is_ubuf(i))
		return i->ubuf + i->iov_offset;
#ifdef SPRAY_HAVE_ITER_IOV
	if (iter_is_iovec(i) && iter_iov_len(i) >= len)
		return iter_iov_addr(i);
#else
	if (iter_is_iovec(i) && i->iov->iov_len - i->iov_offset >= len)
		return i->iov->iov_base + i->iov_offset;
#endif
	return NULL;
}

/*
 * Copy the user's bytes in: all of them, or -EFAULT. A slotted message
 * takes a copy per packet (the slots followed one after the other, not
 * found from each offset), each in one call to the chunk's address (no
 * __GFP_HIGHMEM: a chunk is mapped whole), as copy_page_from_iter() copies
 * each page of it: not through copy_from_iter(), whose hardened-usercopy
 * check of the kernel address (for slab objects and stacks: a chunk is
 * neither) cost as much as the copy's own overhead per 1.4 KiB slot, nor
 * through copy_page_from_iter(), which makes a call per page a slot
 * touches (a third of them at MTU 1500, most at 9000). From one user
 * buffer (spray_iter_ubase()) each copy is a _copy_from_user() call.
 */
int spray_tmsg_copy_from(struct spray_tmsg *m, struct iov_iter *from)
{
	u32 shift = PAGE_SHIFT + m->order, csize = PAGE_SIZE << m->order;
	u32 off, pos, run, poff, n;
	void __user *ub;
	void *dst;

	if (m->buf)
		return copy_from_iter_full(m->buf, m->len, from) ? 0 : -EFAULT;
	ub = spray_iter_ubase(from, m->len);
	/* @run bytes lie back to back from @pos: a slot's payload, or all */
	pos = m->slot_frag ? SPRAY_DATA_HDR_LEN : 0;
	run = m->slot_frag ?: m->len;
	for (off = 0; off < m->len; off += n, pos += n, run -= n) {
		if (!run) {
			/* the next slot's payload, after its header */
			pos += SPRAY_DATA_HDR_LEN;
			run = m->slot_frag;
		}
		poff = pos & (csize - 1);
		n = min3(run, m->len - off, csize - poff);
		dst = page_address(m->chunks[pos >> shift]) + poff;
		if (ub) {
			if (_copy_from_user(dst, ub + off, n))
				return -EFAULT;
		} else if (_copy_from_iter(dst, n, from) != n) {
			return -EFAULT;
		}
	}
	if (ub)
		iov_iter_advance(from, m->len);
	return 0;
}

/* Copy the first @len bytes out (the error queue); bytes copied. */
size_t spray_tmsg_copy_to(const struct spray_tmsg *m, size_t len,
			  struct iov_iter *to)
{
	u32 off, poff, n;
	size_t done = 0;
	struct page *pg;

	len = min_t(size_t, len, m->len);
	if (m->buf)
		return copy_to_iter(m->buf, len, to);
	if (!m->chunks)
		return 0;
	for (off = 0; off < len; off += n) {
		pg = spray_tmsg_at(m, off, &poff, &n);
		n = min_t(u32, n, len - off);
		if (copy_to_iter(page_address(pg) + poff, n, to) != n)
			break;
		done += n;
	}
	return done;
}

/* How many skb frags bytes [@off, @off + @len) of a chunked @m take. */
u32 spray_tmsg_nr_frags(const struct spray_tmsg *m, u32 off, u32 len)
{
	u32 sh = PAGE_SHIFT + m->order, end = off + len, poff, n, nr = 0;

	if (!m->slot_frag)
		return ((off + len - 1) >> sh) - (off >> sh) + 1;
	/* a slot's payload and the next one's have a header between them */
	for (; off < end; off += n, nr++) {
		spray_tmsg_at(m, off, &poff, &n);
		n = min(n, end - off);
	}
	return nr;
}

/**
 * spray_skb_add_tmsg() - append bytes of a chunked message to an skb, by
 *	reference
 * @skb: the packet
 * @m: the message (@m->chunks)
 * @off: first byte
 * @len: how many
 *
 * Each frag holds a reference to its chunk: the message may go before the
 * packet does.
 *
 * Return: 0, or -EMSGSIZE if the skb has no frags left for them.
 */
int spray_skb_add_tmsg(struct sk_buff *skb, const struct spray_tmsg *m,
		       u32 off, u32 len)
{
	u32 end = off + len, poff, n;
	struct page *pg;

	if (skb_shinfo(skb)->nr_frags + spray_tmsg_nr_frags(m, off, len) >
	    MAX_SKB_FRAGS)
		return -EMSGSIZE;
	for (; off < end; off += n) {
		pg = spray_tmsg_at(m, off, &poff, &n);
		n = min(n, end - off);
		get_page(pg);
		skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, pg, poff, n);
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
	}
	return 0;
}

/*
 * Bytes [@pos, @pos + @len) of @m's memory as pieces within one chunk each:
 * the first piece's chunk, offset and length.
 */
static struct page *spray_tmsg_piece(const struct spray_tmsg *m, u32 pos,
				     u32 len, u32 *poff, u32 *n)
{
	u32 i = pos >> (PAGE_SHIFT + m->order);

	*poff = pos - (i << (PAGE_SHIFT + m->order));
	*n = min((PAGE_SIZE << m->order) - *poff, len);
	return m->chunks[i];
}

/*
 * Append a packet of a slotted message whose slot lies across chunks (@p,
 * its fragment at a slot's start; @hdr its header) to a train, by
 * reference: its header written into its slot in pieces, its payload a
 * frag per chunk, the first extending the skb's last frag if it continues
 * it. The packet's first transmission: nothing references its slot yet.
 * Return: 0, or -EMSGSIZE if the skb has no frags left for it (nothing was
 * written then).
 */
static int spray_skb_add_slot(struct sk_buff *skb, struct spray_tmsg *m,
			      const struct spray_pkt *p, const void *hdr)
{
	u32 pos = spray_layout_slot(p->data.frag_off, m->slot_frag,
				    SPRAY_DATA_HDR_LEN);
	u32 len = SPRAY_DATA_HDR_LEN + p->data.frag_len, at, poff, n;
	struct skb_shared_info *sh = skb_shinfo(skb);
	u32 first_off, first_n;
	struct page *pg, *first;
	int need = 1, i;

	first = spray_tmsg_piece(m, pos, len, &first_off, &first_n);
	for (at = first_n; at < len; at += n, need++)
		spray_tmsg_piece(m, pos + at, len - at, &poff, &n);
	i = sh->nr_frags;
	if (i && skb_can_coalesce(skb, i, first, first_off))
		need--;
	if (i + need > MAX_SKB_FRAGS)
		return -EMSGSIZE;
	/*
	 * the header into its slot: in the first piece found above, or in
	 * pieces across the end of a chunk
	 */
	pg = first;
	poff = first_off;
	n = min_t(u32, first_n, SPRAY_DATA_HDR_LEN);
	for (at = 0; at < SPRAY_DATA_HDR_LEN; at += n) {
		if (at)
			pg = spray_tmsg_piece(m, pos + at,
					      SPRAY_DATA_HDR_LEN - at, &poff, &n);
		memcpy(page_address(pg) + poff, (const u8 *)hdr + at, n);
	}
	pg = first;
	poff = first_off;
	n = first_n;
	for (at = 0; at < len; at += n) {
		if (at)
			pg = spray_tmsg_piece(m, pos + at, len - at, &poff, &n);
		i = sh->nr_frags;
		if (i && skb_can_coalesce(skb, i, pg, poff)) {
			skb_frag_size_add(&sh->frags[i - 1], n);
		} else {
			get_page(pg);
			skb_fill_page_desc(skb, i, pg, poff, n);
		}
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
	}
	return 0;
}

/**
 * spray_skb_add_slots() - append a message's next packets to a train, by
 *	reference: their headers, written into their slots, and payloads
 * @skb: the train
 * @m: the message (@m->slot_frag, the train's payload size)
 * @p: its first packet, at a slot's start; made the last one appended
 * @hdr: the first packet's header (spray_pkt_build() or
 *	spray_pkt_build_frag()); made each next one's
 *	(spray_pkt_build_next())
 * @cnt: packets of @m to append, at least 1: full fragments but for the
 *	message's last
 * @bytes: set to their payload bytes
 *
 * Slots in one chunk lie back to back: each adds its length to the frag
 * the one before opened or extended, and its header is written into its
 * place; a slot across chunks goes in pieces (spray_skb_add_slot()). The
 * packets' first transmission: nothing references their slots yet (a
 * retransmission takes a header block of its own, spray_skb_add_tmsg()).
 *
 * Return: the packets appended, fewer than @cnt (0: none) when the skb
 * ran out of frags.
 */
u32 spray_skb_add_slots(struct sk_buff *skb, struct spray_tmsg *m,
			struct spray_pkt *p, void *hdr, u32 cnt, u32 *bytes)
{
	u32 frag = m->slot_frag, shift = PAGE_SHIFT + m->order, len, i, j;
	u32 pos = spray_layout_slot(p->data.frag_off, frag, SPRAY_DATA_HDR_LEN);
	u32 csize = PAGE_SIZE << m->order, added = 0, coff;
	struct skb_shared_info *sh = skb_shinfo(skb);
	struct page *pg = NULL, *cur;
	skb_frag_t *f = NULL;
	void *va = NULL;

	*bytes = 0;
	for (j = 0; j < cnt; j++, pos += len) {
		if (j) {
			p->psn++;
			p->data.frag_off += frag;
			p->data.frag_len = min(frag, m->len - p->data.frag_off);
			spray_pkt_build_next(hdr, p->psn, p->data.frag_off,
					     p->data.frag_len);
		}
		len = SPRAY_DATA_HDR_LEN + p->data.frag_len;
		cur = m->chunks[pos >> shift];
		coff = pos & (csize - 1);
		if (coff + len > csize) {
			/* across chunks: the general way */
			if (spray_skb_add_slot(skb, m, p, hdr))
				goto full;
			f = NULL;
			*bytes += p->data.frag_len;
			continue;
		}
		if (cur != pg) {
			pg = cur;
			va = page_address(pg);
			f = NULL;
		}
		if (!f) {
			i = sh->nr_frags;
			if (i && skb_can_coalesce(skb, i, pg, coff)) {
				f = &sh->frags[i - 1];
			} else {
				if (i >= MAX_SKB_FRAGS)
					goto full;
				get_page(pg);
				skb_fill_page_desc(skb, i, pg, coff, 0);
				f = &sh->frags[i];
			}
		}
		skb_frag_size_add(f, len);
		/* a copy of a constant size: a few moves, not a loop */
		memcpy(va + coff, hdr, SPRAY_DATA_HDR_LEN);
		added += len;
		*bytes += p->data.frag_len;
	}
	goto out;
full:
	/* @p as the last packet appended, if any */
	if (j) {
		p->psn--;
		p->data.frag_off -= frag;
		p->data.frag_len = frag;
	}
out:
	skb->len += added;
	skb->data_len += added;
	skb->truesize += added;
	return j;
}

/*
 * An error queue entry whose data did not fit the receive buffer: its
 * record, with the @inl bytes a short message keeps at its end.
 */
static u32 spray_tmsg_charge_nodata(u32 inl)
{
	return kmalloc_size_roundup(sizeof(struct spray_tmsg) + inl);
}

/*
 * What a message being received holds: its pages, reserved when it is
 * admitted (allocated as the fragments arrive, so that an admitted message
 * always completes), @extra for the skbs of its fragments kept beyond
 * their payload (spray_rmsg_keep()), and its record, page array and
 * fragment bitmap. A 1-byte message takes a page: one that lies in its
 * record (up to SPRAY_RX_INLINE bytes) is charged the same, so that the
 * buffer and the credit count small messages as they always did, above
 * what they hold, as UDP charges a small datagram its skb's truesize.
 */
u32 spray_rmsg_charge(u32 len, u32 extra)
{
	u32 npages = DIV_ROUND_UP(len, PAGE_SIZE);

	return PAGE_ALIGN(len) + extra +
	       kmalloc_size_roundup(sizeof(struct spray_rmsg)) +
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

/* @m leaves the connection's queue: the next to send from may be the next. */
static void spray_tmsg_unnext(struct spray_conn *c, struct spray_tmsg *m)
{
	if (c->tx_next == m)
		c->tx_next = list_is_last(&m->node, &c->tmsgs) ? NULL :
			     list_next_entry(m, node);
}

/* @m, off its list, goes with its memory and its bytes in SIOCOUTQ. */
static void spray_tmsg_release(struct spray_sock *ss, struct spray_tmsg *m)
{
	list_del(&m->node);
	WRITE_ONCE(ss->tx_bytes, ss->tx_bytes - spray_tmsg_unacked(m));
	spray_wmem_uncharge(&ss->sk, m->charge);
	spray_tmsg_free_data(m);
	kfree(m);
}

static void spray_tmsg_free(struct spray_conn *c, struct spray_tmsg *m)
{
	spray_tmsg_unnext(c, m);
	spray_tmsg_release(c->ss, m);
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
	spray_tmsg_free_data(m);
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

void spray_rmsg_unlink_left(struct spray_conn *c, struct spray_rmsg *rm)
{
	lockdep_assert_held(&c->ss->lock);
	if (c->rx_last == rm)
		c->rx_last = NULL;
	if (rm->skipped)
		return;
	c->rx_left_pkts -= rm->pkts_left;
	c->rx_left_msgs--;
}

void spray_rmsg_free(struct spray_sock *ss, struct spray_rmsg *rm)
{
	struct sk_buff *skb;
	u32 i, j;

	list_del(&rm->node);
	for (i = 0; rm->pages && i < rm->npages; i++)
		if (rm->pages[i])
			spray_page_free(rm->pages[i], 0);
	for (i = 0; i < rm->nskbs; i = j) {
		skb = rm->skbs[i].skb;
		for (j = i + 1; j < rm->nskbs && rm->skbs[j].skb == skb; j++)
			;
		if (!skb)
			continue;
		/*
		 * A train's fragments hold a reference each (spray_rcv_run()):
		 * all but one dropped at once, the last as the skb is consumed
		 */
		if (j - i > 1 &&
		    WARN_ON_ONCE(refcount_sub_and_test(j - i - 1, &skb->users)))
			continue;
		consume_skb(skb);
	}
	if (!rm->tail_n || rm->skbs != spray_rmsg_tail_skbs(rm))
		kfree(rm->skbs);
	if (rm->charge)
		spray_rmem_uncharge(&ss->sk, rm->charge);
	if (!rm->tail_n || rm->fmap != spray_rmsg_tail_fmap(rm))
		bitmap_free(rm->fmap);
	kfree(rm->pages);
	kfree(rm);
}

/**
 * spray_skb_find() - find bytes of an skb in one of its frags
 * @skb: the skb
 * @off: the bytes' offset in @skb
 * @len: how many
 * @cur: set to the frag they lie in, if they do
 *
 * Return: their kernel address if they lie in one frag of @skb in the
 * linear map (a compound page, as the sender's chunks are; a frag in high
 * memory on 32-bit is not), else NULL: they lie in its head, span frags or
 * lie in its frag_list, and the caller copies them out
 * (skb_header_pointer(), skb_copy_datagram_iter()).
 */
void *spray_skb_find(const struct sk_buff *skb, u32 off, u32 len,
		     struct spray_skb_cursor *cur)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	u32 start = skb_headlen(skb), end, i;
	const skb_frag_t *f;

	for (i = 0; off >= start && i < sh->nr_frags; i++, start = end) {
		f = &sh->frags[i];
		end = start + skb_frag_size(f);
		if (off >= end)
			continue;
		if (off + len > end || PageHighMem(skb_frag_page(f)))
			break;
		cur->skb = skb;
		cur->addr = skb_frag_address(f);
		cur->start = start;
		cur->end = end;
		return cur->addr + (off - start);
	}
	return NULL;
}

/**
 * spray_rmsg_copy() - copy a received message's first bytes to the user
 * @rm: a complete message
 * @to: where
 * @len: how many, at most @rm->len
 *
 * Fragments kept as skbs are copied from them, the others from the pages
 * (a short message: from its record). A kept fragment in an skb's frags
 * (the sender's chunks, on a veth) is copied from each frag's address in
 * one call, as copy_page_to_iter() copies each page of one: one call, or
 * two where it crosses chunks (most at MTU 9000). The next fragment is
 * looked for in the same frag first (a train's payloads are one header
 * apart). skb_copy_datagram_iter() would walk the skb from its start and
 * check the address as if it could be a slab object or a stack (a frag is
 * neither), and copy_page_to_iter() would make a call per page the
 * payload touches (a third of them at MTU 1500). Into one user buffer
 * (spray_iter_ubase()) such a piece is a _copy_to_user() call, and @to
 * moves once. Anything else (head, frag_list, a frag in high memory) as
 * skb_copy_datagram_iter() does it.
 *
 * Return: 0, or -EFAULT.
 */
int spray_rmsg_copy(const struct spray_rmsg *rm, struct iov_iter *to, u32 len)
{
	u32 off, n, at = 0, adv = 0, i = 0, fend = rm->frag;
	void __user *ub = spray_iter_ubase(to, len);
	struct spray_skb_cursor cur = {};
	struct sk_buff *skb;
	const void *src;

	for (off = 0; off < len; off += n) {
		n = len - off;
		skb = NULL;
		src = NULL;
		if (rm->skbs) {
			/* fragment i ends at fend: not beyond it */
			if (off == fend) {
				i++;
				fend += rm->frag;
			}
			skb = rm->skbs[i].skb;
			n = min(n, min(rm->len, fend) - off);
		}
		if (skb) {
			at = rm->skbs[i].data_off + off - (fend - rm->frag);
			/* the part in its first frag: the rest next turn */
			src = spray_skb_at(skb, at, 1, &cur);
			if (src)
				n = min(n, cur.end - at);
		} else if (!spray_rmsg_inline(rm)) {
			n = min_t(u32, n, PAGE_SIZE - (off & ~PAGE_MASK));
		}
		if (src && ub) {
			if (_copy_to_user(ub + off, src, n))
				return -EFAULT;
			continue;
		}
		/* the others advance @to themselves, from where those left it */
		if (ub) {
			iov_iter_advance(to, off - adv);
			adv = off + n;
		}
		if (src) {
			if (_copy_to_iter(src, n, to) != n)
				return -EFAULT;
		} else if (skb) {
			if (skb_copy_datagram_iter(skb, at, to, n))
				return -EFAULT;
		} else if (spray_rmsg_inline(rm)) {
			if (copy_to_iter(rm->data + off, n, to) != n)
				return -EFAULT;
		} else if (copy_page_to_iter(rm->pages[off >> PAGE_SHIFT],
					     off & ~PAGE_MASK, n, to) != n) {
			return -EFAULT;
		}
	}
	if (ub)
		iov_iter_advance(to, len - adv);
	return 0;
}

/* Free the messages a connection is reassembling or holds for ordering. */
void spray_conn_free_rx(struct spray_conn *c)
{
	struct spray_rmsg *rm, *tmp;

	lockdep_assert_held(&c->ss->lock);
	list_for_each_entry_safe(rm, tmp, &c->rmsgs, node) {
		spray_rmsg_unlink_left(c, rm);
		spray_rmsg_free(c->ss, rm);
	}
	list_for_each_entry_safe(rm, tmp, &c->rdone, node)
		spray_rmsg_free(c->ss, rm);
}

/*
 * The protocol's memory above half of its pressure mark (sysctl_mem[0],
 * af_spray.c): what is left is for receiving. Above the pressure mark the
 * kernel refuses every receive charge beyond a socket's first page (the
 * protocol has no pressure state, as UDP), while a send charge passes up
 * to the hard limit, twice the mark, as long as the socket's sk_wmem_alloc
 * (which AF_SPRAY's queue is not in) is small: without this mark, senders
 * whose messages wait for acknowledgements could take all of it and
 * starve the receivers that would acknowledge them (16 sockets with full
 * default send buffers in a 2 GiB machine).
 */
static bool spray_mem_over_send_mark(const struct sock *sk)
{
	/* sk_memory_allocated(), which 6.10 moved to net/proto_memory.h */
	return atomic_long_read(sk->sk_prot->memory_allocated) >
	       sk_prot_mem_limits(sk, 0) / 2;
}

/**
 * spray_sock_wspace() - may a writer queue one more message?
 * @sk: the socket
 *
 * While its queue is below SO_SNDBUF, and, when the protocol's memory is
 * above its send mark, below %SPRAY_WMEM_FLOOR. The mark is not followed
 * by a wake-up: a writer waiting on it waits for its own acknowledgements
 * or a short time (spray_conn_sendmsg()).
 *
 * Return: true if it may.
 */
bool spray_sock_wspace(const struct sock *sk)
{
	int queued = READ_ONCE(sk->sk_wmem_queued);

	if (queued >= READ_ONCE(sk->sk_sndbuf))
		return false;
	return queued < SPRAY_WMEM_FLOOR || !spray_mem_over_send_mark(sk);
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

/*
 * Wake-up functions of a reader sleeping in recvmsg() and a writer in
 * sendmsg(): each wakes for its own events (and errors, shutdown: a wake-up
 * without a key), as datagram sockets' receiver_wake_function() does. A
 * request/response program sleeping in recvmsg() would otherwise wake up
 * and sleep again for the write space that every ACK makes.
 */
int spray_reader_wake(struct wait_queue_entry *wait, unsigned int mode,
		      int sync, void *key)
{
	if (key && !(key_to_poll(key) &
		     (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)))
		return 0;
	return woken_wake_function(wait, mode, sync, key);
}

int spray_writer_wake(struct wait_queue_entry *wait, unsigned int mode,
		      int sync, void *key)
{
	if (key && !(key_to_poll(key) & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
		return 0;
	return woken_wake_function(wait, mode, sync, key);
}

void spray_write_space(struct sock *sk)
{
	if (!spray_sock_wspace(sk))
		return;
	spray_sock_wake(sk, EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND);
	sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
}

/*
 * A failure that the error queue cannot hold (SPRAY_MAX_ERRQ entries, or no
 * memory): the next recvmsg() fails with ENOBUFS, as a netlink socket that
 * dropped a message says so, and poll() reports EPOLLERR. The application
 * knows that messages failed without a report of their own (msg-failed
 * counts them all). Nobody is told on a closing socket.
 */
static void spray_errq_lost(struct spray_sock *ss)
{
	if (ss->closing)
		return;
	WRITE_ONCE(ss->sk.sk_err, ENOBUFS);
	sk_error_report(&ss->sk);
}

/*
 * Report a message that will not be delivered on the error queue
 * (recvmsg(MSG_ERRQUEUE)): the destination, the user's cookie, an errno
 * and the message itself. Its memory moves from the send queue to the
 * receive buffer; if the buffer has no room, the entry goes without its
 * data; beyond SPRAY_MAX_ERRQ entries the failure is counted and the
 * socket's error set (spray_errq_lost()); on a closed socket, only counted.
 */
static void spray_tmsg_report(struct spray_sock *ss, struct spray_tmsg *m,
			      int err, const struct spray_addr *dst,
			      u32 conn_id, u32 ack_age_us)
{
	struct sock *sk = &ss->sk;
	u32 nodata;

	spray_mib_inc(spray_net(sock_net(sk)), SPRAY_MIB_MSG_FAILED);
	trace_spray_msg_failed(conn_id, dst, m, err, ack_age_us);
	if (ss->closing || ss->errq_len >= SPRAY_MAX_ERRQ) {
		spray_tmsg_release(ss, m);
		spray_errq_lost(ss);
		return;
	}
	list_del(&m->node);
	WRITE_ONCE(ss->tx_bytes, ss->tx_bytes - spray_tmsg_unacked(m));
	spray_wmem_uncharge(sk, m->charge);
	if (atomic_read(&sk->sk_rmem_alloc) >= READ_ONCE(sk->sk_rcvbuf) ||
	    !spray_rmem_charge(sk, m->charge)) {
		spray_tmsg_free_data(m);
		nodata = spray_tmsg_charge_nodata(m->len <= SPRAY_TMSG_INLINE ?
						  m->len : 0);
		/* at the hard memory limit the entry goes uncharged */
		m->charge = spray_rmem_charge(sk, nodata) ? nodata : 0;
	}
	m->err = err;
	m->dst = *dst;
	m->conn_id = conn_id;
	m->ack_age_us = ack_age_us;
	list_add_tail(&m->node, &ss->errq);
	WRITE_ONCE(ss->errq_len, ss->errq_len + 1);
	sk_error_report(sk);
}

static void spray_tmsg_fail(struct spray_conn *c, struct spray_tmsg *m,
			    int err)
{
	spray_tmsg_unnext(c, m);
	spray_tmsg_report(c->ss, m, err, &c->remote, c->id,
			  spray_conn_ack_age_us(c, ktime_get_ns()));
}

/*
 * The messages of a connection that failed, on their way to the error
 * queue: taken off the connection at once (O(1), in softirq), reported in
 * process context a few at a time (spray_sock_fail_work()), for a socket
 * may have queued hundreds of thousands of small messages, whose freeing
 * would hold a CPU in softirq for as long.
 */
struct spray_failbatch {
	struct list_head	node;
	struct list_head	msgs;
	struct spray_addr	dst;
	int			err;
	u32			conn_id;
	u32			ack_age_us;
};

#define SPRAY_FAIL_CHUNK	64

/* Report up to SPRAY_FAIL_CHUNK failed messages; false when none is left. */
static bool spray_sock_fail_some(struct spray_sock *ss)
{
	struct spray_failbatch *b;
	struct spray_tmsg *m;
	unsigned int n;
	bool more;

	spin_lock_bh(&ss->lock);
	b = list_first_entry_or_null(&ss->failing, struct spray_failbatch,
				     node);
	for (n = 0; b && n < SPRAY_FAIL_CHUNK && !list_empty(&b->msgs); n++) {
		m = list_first_entry(&b->msgs, struct spray_tmsg, node);
		if (m->abandoned)
			spray_tmsg_release(ss, m);
		else
			spray_tmsg_report(ss, m, b->err, &b->dst, b->conn_id,
					  b->ack_age_us);
	}
	if (b && list_empty(&b->msgs)) {
		list_del(&b->node);
		kfree(b);
	}
	more = !list_empty(&ss->failing);
	spin_unlock_bh(&ss->lock);
	if (n)
		spray_write_space(&ss->sk);
	return more;
}

static void spray_sock_fail_drain(struct spray_sock *ss)
{
	while (spray_sock_fail_some(ss))
		cond_resched();
}

static void spray_sock_fail_work(struct work_struct *work)
{
	struct spray_sock *ss = container_of(work, struct spray_sock,
					     fail_work);

	spray_sock_fail_drain(ss);
	sock_put(&ss->sk);
}

/* ---- the sending half ---- */

/* An entropy value went down or came back: count it, tell "events". */
void spray_conn_path_event(struct spray_conn *c, u16 idx, bool up)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_addr local;

	lockdep_assert_held(&c->ss->lock);
	spray_mib_inc(sn, up ? SPRAY_MIB_PATH_UP : SPRAY_MIB_PATH_DOWN);
	trace_spray_ev_state(c, idx, up);
	spray_conn_local_addr(c, &local);
	spray_nl_notify_path(sn->net, &local, &c->remote,
			     spray_path_port(&c->path, idx), up);
}

/*
 * The sender's window, and the grant the peer gave us, changed since the
 * tracepoints last said: tell them (a compare per ACK otherwise).
 */
void spray_conn_trace_cc(struct spray_conn *c)
{
	u32 old;

	if (!c->tx_ready)
		return;
	if (c->nscc.cwnd != c->tr_cwnd) {
		old = c->tr_cwnd;
		c->tr_cwnd = c->nscc.cwnd;
		trace_spray_cwnd(c, old);
	}
	if (c->tw.grant != c->tr_grant) {
		old = c->tr_grant;
		c->tr_grant = c->tw.grant;
		trace_spray_credit(c, false, c->tw.grant, old,
				   spray_psn_after(c->tw.grant, c->tw.nxt) ?
				   c->tw.grant - c->tw.nxt : 0);
	}
}

/* @bytes of @m's were acknowledged: it may be complete, or gone */
static void spray_tmsg_acked(struct spray_conn *c, struct spray_tmsg *m,
			     u32 bytes)
{
	m->acked += bytes;
	WRITE_ONCE(c->ss->tx_bytes, c->ss->tx_bytes - bytes);
	if (m->abandoned) {
		/* failed already: gone once what was sent is acknowledged */
		if (m->acked >= m->next_off)
			spray_tmsg_free(c, m);
	} else if (m->acked >= m->len) {
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_TX_MSGS);
		trace_spray_msg_delivered(c, m->msg_id, m->len, m->cookie);
		spray_tmsg_free(c, m);
	}
}

/* An unmarked packet was acknowledged: trains may grow again. */
static void spray_train_calm(struct spray_conn *c)
{
	if (++c->train_calm >= 64 && c->train < SPRAY_TRAIN_MAX) {
		c->train++;
		c->train_calm = 0;
	}
}

/* spray_train_calm() @n times, in a turn per step of the train */
static void spray_train_calm_n(struct spray_conn *c, u32 n)
{
	u32 k;

	while (n && c->train < SPRAY_TRAIN_MAX) {
		k = c->train_calm < 64 ? 64 - c->train_calm : 1;
		if (n < k)
			break;
		n -= k;
		c->train++;
		c->train_calm = 0;
	}
	c->train_calm += n;
}

static void spray_tx_acked(void *ctx, u32 psn, const struct spray_txrec *rec,
			   bool ce)
{
	struct spray_conn *c = ctx;

	spray_path_on_ack(&c->path, rec->ev, ce, c->ops_now);
	/* a marked path is no place for trains: one packet per EV again */
	if (ce) {
		c->train = 1;
		c->train_calm = 0;
		c->train_undo = 0;
		c->stat_ecn++;
		spray_mib_inc(spray_conn_net(c), SPRAY_MIB_ECN_ECHO);
	} else {
		spray_train_calm(c);
	}
	if (rec->len > c->acked_len_max)
		c->acked_len_max = rec->len;
	if (rec->msg)
		spray_tmsg_acked(c, rec->msg, rec->len);
}

/*
 * A train's packets, delivered by one ACK (none marked): as
 * spray_tx_acked() for each, the path, the message and the socket's
 * bytes counted once.
 */
static void spray_tx_acked_run(void *ctx, u32 psn, u32 n,
			       const struct spray_txrec *rec, u32 bytes)
{
	struct spray_conn *c = ctx;

	spray_path_on_acks(&c->path, rec->ev, n);
	spray_train_calm_n(c, n);
	/* the first of a train's packets is its largest */
	if (rec->len > c->acked_len_max)
		c->acked_len_max = rec->len;
	if (rec->msg)
		spray_tmsg_acked(c, rec->msg, bytes);
}

/*
 * A path MTU black hole (spray.rst, "Path MTU"): a packet larger than any
 * the peer acknowledged, lost again and again, while the peer answers a
 * small packet (spray_conn_blackhole_check()), as if a router dropped the
 * large one for its size and a filter ate the ICMP error it answered. The
 * connection's IPv4 packets leave without DF from now on, the lost one's
 * next transmission too: routers fragment them, as they did before DF
 * was set, and as TCP falls back when its black hole detection fires
 * (tcp_mtu_probing). IPv6 routers never fragment, but every IPv6 link
 * carries 1280 bytes: the routes to the peer take the Packet Too Big for
 * 1280 that never came, so that the host fragments what it sends larger
 * and the next messages are cut to it (as long as the route keeps it, 10
 * minutes; then again if the hole is still there).
 */
static void spray_conn_blackhole(struct spray_conn *c)
{
	if (ipv6_addr_v4mapped(&c->remote.v6)) {
		c->nodf = true;
	} else if (!spray_conn_pmtu_min(c)) {
		/* the routes took it already: a loss from before */
		return;
	}
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_PMTU_BLACKHOLES);
	trace_spray_path_mtu(c, c->frag_size, c->frag_size, false);
}

/**
 * spray_conn_blackhole_check() - a PROBE came back: is the hole there?
 * @c: the connection, its socket locked
 * @ts_echo: the send time the answer echoes
 *
 * A connection that suspects a black hole (&spray_conn.bh_len) sent a
 * PROBE, a packet small enough for any path. Its answer shows the peer
 * alive and reachable while the large packet was lost again and again:
 * its size was the reason, the fallback applies (spray_conn_blackhole()).
 * Without an answer (the peer's host down, a path that loses everything)
 * nothing changes: losses of every size are no black hole, and the
 * fallback would cost every flow to the peer IPv6's least MTU for ten
 * minutes. An answer to a PROBE sent before the suspicion says nothing.
 */
void spray_conn_blackhole_check(struct spray_conn *c, u64 ts_echo)
{
	lockdep_assert_held(&c->ss->lock);
	if (!c->bh_len || !c->bh_probe_ns || ts_echo < c->bh_probe_ns)
		return;
	/* not if a packet that large came through or an ICMP error came */
	if (c->bh_len > c->acked_len_max && c->bh_len <= c->frag_size &&
	    !c->nodf)
		spray_conn_blackhole(c);
	c->bh_len = 0;
	c->bh_probe_ns = 0;
}

static void spray_tx_lost(void *ctx, u32 psn, const struct spray_txrec *rec,
			  enum spray_loss_why why)
{
	struct spray_conn *c = ctx;
	struct spray_tmsg *m = rec->msg;
	u64 now = c->ops_now;
	bool was_down;

	trace_spray_pkt_lost(c, psn, rec, why);
	/* refused by the receiver: its path and the network are fine */
	if (why == SPRAY_LOSS_REFUSED)
		return;
	/*
	 * Not a packet larger than the path MTU learnt since: it leaves
	 * fragmented, without DF, and is lost for another reason. A black
	 * hole is suspected; the pump sends the PROBE whose answer confirms
	 * it.
	 */
	if (rec->retx + 1 >= SPRAY_BLACKHOLE_LOSSES &&
	    rec->len > c->acked_len_max && rec->len <= c->frag_size &&
	    !c->nodf) {
		if (!c->bh_len || rec->len < c->bh_len)
			c->bh_len = rec->len;
		c->bh_probe_due = true;
	}
	/* one RTO expiry counts once in the message's history */
	if (why == SPRAY_LOSS_RTO && m && m->hist.rto_mark != (u16)c->rtos) {
		m->hist.rto_mark = (u16)c->rtos;
		spray_hist_inc(&m->hist.rtos);
	}
	/* a loss costs a train all its packets: single packets again */
	c->train_undo = max(c->train_undo, c->train);
	c->train = 1;
	c->train_calm = 0;
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
	/* the train is given back with the window (a spurious RTO on TCG) */
	if (c->train_undo > c->train) {
		c->train = c->train_undo;
		c->train_calm = 0;
	}
	c->train_undo = 0;
	spray_nscc_on_spurious(&c->nscc, &c->cc, rec->why);
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_SPURIOUS_LOSS);
}

const struct spray_txwin_ops spray_tx_ops = {
	.acked	= spray_tx_acked,
	.acked_run = spray_tx_acked_run,
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
	/*
	 * The peer forgets us after idle-timeout-ms of nothing from us
	 * that it takes (the same setting on both ends, as a rule), answers
	 * NO_CONN, and a new incarnation would deliver again what it had
	 * taken: fail after half of that silence, before it forgets.
	 */
	tcfg->silence_ns = (u64)READ_ONCE(sn->cfg.idle_timeout_ms) *
			   NSEC_PER_MSEC / 2;
}

/*
 * Start a new sending incarnation: new cid and psn space, every message not
 * fully acknowledged is sent again from its first byte (the peer lost its
 * state, or ours failed). Messages that had already failed are dropped.
 */
int spray_tx_restart(struct spray_conn *c)
{
	struct spray_net *sn = spray_conn_net(c);
	struct spray_txwin_cfg tcfg;
	struct spray_tmsg *m, *tmp;
	int err;

	spray_txwin_cfg_net(sn, &tcfg);
	c->local_cid = spray_new_cid();
	c->synced = false;
	c->soft_err = 0;
	c->bh_len = 0;
	c->bh_probe_due = false;
	c->bh_probe_ns = 0;
	c->peer_ack_cid = 0;
	c->next_msg_id = 0;
	err = spray_txwin_init(&c->tw, c->ring, SPRAY_TX_RING, c->local_cid,
			       spray_rcc_initial_grant(&c->cc, c->local_cid),
			       &tcfg);
	if (err)
		return err;
	c->tw.refusal_costs = c->lingering;
	c->train = 1;
	c->train_undo = 0;
	spray_nscc_init(&c->nscc, &c->cc);
	c->tx_next = NULL;
	list_for_each_entry_safe(m, tmp, &c->tmsgs, node) {
		if (m->abandoned) {
			spray_tmsg_free(c, m);
			continue;
		}
		WRITE_ONCE(c->ss->tx_bytes, c->ss->tx_bytes + m->acked);
		m->msg_id = c->next_msg_id++;
		m->next_off = 0;
		m->acked = 0;
		m->frag = 0;
		if (!c->tx_next)
			c->tx_next = m;
	}
	return 0;
}

/*
 * Fail every queued message with @err and start afresh. The messages go to
 * the error queue from process context (struct spray_failbatch); without
 * memory for that, here.
 */
void spray_tx_fail_all(struct spray_conn *c, int err)
{
	struct spray_sock *ss = c->ss;
	struct spray_failbatch *b;
	struct spray_tmsg *m, *tmp;
	struct spray_addr local;

	lockdep_assert_held(&ss->lock);
	spray_conn_local_addr(c, &local);
	spray_nl_notify_unreachable(spray_conn_net(c)->net, &local, &c->remote,
				    err);
	b = list_empty(&c->tmsgs) ? NULL : kmalloc(sizeof(*b), GFP_ATOMIC);
	if (b) {
		INIT_LIST_HEAD(&b->msgs);
		list_splice_init(&c->tmsgs, &b->msgs);
		c->tx_next = NULL;
		b->dst = c->remote;
		b->err = err;
		b->conn_id = c->id;
		b->ack_age_us = spray_conn_ack_age_us(c, ktime_get_ns());
		list_add_tail(&b->node, &ss->failing);
		sock_hold(&ss->sk);
		if (!queue_work(spray_wq, &ss->fail_work))
			sock_put(&ss->sk);
	}
	list_for_each_entry_safe(m, tmp, &c->tmsgs, node) {
		if (m->abandoned)
			spray_tmsg_free(c, m);
		else
			spray_tmsg_fail(c, m, err);
	}
	/* the settings were valid when the connection started: they still are */
	WARN_ON_ONCE(spray_tx_restart(c));
	spray_write_space(&ss->sk);
}

/*
 * The receiver will not take message @psn belongs to (longer than its
 * max-msg): fail the message at once (EMSGSIZE), send no more of it. Its
 * psns in flight are acknowledged by the receiver, which discards them.
 */
void spray_tx_msg_size(struct spray_conn *c, u32 psn)
{
	struct spray_txrec *rec = spray_txwin_rec(&c->tw, psn);
	struct spray_tmsg *m;

	lockdep_assert_held(&c->ss->lock);
	if (!rec)
		return;
	m = rec->msg;
	if (!m || m->abandoned)
		return;
	if (m->acked >= m->next_off) {
		spray_tmsg_fail(c, m, EMSGSIZE);
		return;
	}
	/* the error goes now; the record stays until its psns are acked */
	spray_mib_inc(spray_conn_net(c), SPRAY_MIB_MSG_FAILED);
	trace_spray_msg_failed(c->id, &c->remote, m, EMSGSIZE,
			       spray_conn_ack_age_us(c, ktime_get_ns()));
	m->abandoned = true;
	WRITE_ONCE(c->ss->tx_bytes, c->ss->tx_bytes - (m->len - m->next_off));
	if (!c->ss->closing && c->ss->errq_len < SPRAY_MAX_ERRQ) {
		u32 charge = spray_tmsg_charge_nodata(0);
		struct spray_tmsg *e;

		e = kzalloc(sizeof(*e), GFP_ATOMIC);
		if (e && spray_rmem_charge(&c->ss->sk, charge)) {
			e->charge = charge;
			e->len = m->len;
			e->cookie = m->cookie;
			e->err = EMSGSIZE;
			e->dst = c->remote;
			e->msg_id = m->msg_id;
			e->hist = m->hist;
			e->conn_id = c->id;
			e->ack_age_us = spray_conn_ack_age_us(c, ktime_get_ns());
			list_add_tail(&e->node, &c->ss->errq);
			WRITE_ONCE(c->ss->errq_len, c->ss->errq_len + 1);
			sk_error_report(&c->ss->sk);
			return;
		}
		kfree(e);
	}
	spray_errq_lost(c->ss);
}

/* The sending half, allocated on the first message to the peer. */
int spray_conn_tx_init(struct spray_conn *c, struct spray_net *sn)
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
	c->dsts = kcalloc(pcfg.n, sizeof(*c->dsts), GFP_KERNEL);
	c->ring = kvcalloc(SPRAY_TX_RING, sizeof(*c->ring), GFP_KERNEL);
	if (!c->evs || !c->dsts || !c->ring) {
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
	kfree(c->dsts);
	kvfree(c->ring);
	c->evs = NULL;
	c->dsts = NULL;
	c->ring = NULL;
	return err;
}

void spray_conn_free(struct spray_conn *c)
{
	struct spray_sock *ss = c->ss;
	struct spray_tmsg *m;
	LIST_HEAD(dead);
	unsigned int n;

	might_sleep();
	hrtimer_cancel(&c->timer);
	spin_lock_bh(&ss->lock);
	list_splice_init(&c->tmsgs, &dead);
	c->tx_next = NULL;
	spray_conn_free_rx(c);
	spray_rx_unwait(c);
	if (c->peer_cid)
		spray_rcc_deactivate(&ss->rcc, &c->rcc);
	list_del_init(&c->rnode);
	list_del_init(&c->tsq_node);
	spin_unlock_bh(&ss->lock);
	/* a few at a time: there may be very many */
	while (!list_empty(&dead)) {
		spin_lock_bh(&ss->lock);
		for (n = 0; n < SPRAY_FAIL_CHUNK && !list_empty(&dead); n++) {
			m = list_first_entry(&dead, struct spray_tmsg, node);
			spray_tmsg_release(ss, m);
		}
		spin_unlock_bh(&ss->lock);
		cond_resched();
	}
	if (c->dsts)
		spray_udp_dst_release(c->dsts, c->path.cfg.n);
	spray_udp_dst_release(c->ctrl_dsts, SPRAY_CTRL_EVS);
	kvfree(c->ring);
	kfree(c->evs);
	kfree(c->dsts);
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
	int err;

	err = spray_tsq_init();
	if (err)
		return err;
	spray_wq = alloc_workqueue("spray", WQ_UNBOUND, 0);
	if (!spray_wq) {
		spray_tsq_drain();
		return -ENOMEM;
	}
	return 0;
}

void spray_conn_exit(void)
{
	/* their destructor is ours, and it may queue work */
	spray_tsq_drain();
	destroy_workqueue(spray_wq);
}

/* Nothing left to deliver: all sent, all acknowledged (or failed). */
bool spray_conn_tx_done(const struct spray_conn *c)
{
	return !c->tx_ready || (list_empty(&c->tmsgs) &&
				!spray_txwin_outstanding(&c->tw));
}

/*
 * A closed socket's connection finished delivering (or failed): once the
 * last one has, the socket goes (in process context: spray_wq).
 */
void spray_conn_linger_check(struct spray_conn *c)
{
	struct spray_sock *ss = c->ss;

	lockdep_assert_held(&c->ss->lock);
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
				spin_lock(&ss->rxq_lock);
				list_move_tail(&rm->node, &ss->rxq);
				spin_unlock(&ss->rxq_lock);
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

/* What a read that gave receive buffer back has to do about the windows */
enum spray_read_opens {
	SPRAY_READ_PASSES,	/* nothing: the ACKs carry the grants */
	SPRAY_READ_MAY_OPEN,	/* open them, unless the lock is busy */
	SPRAY_READ_OPENS,	/* open them */
};

/*
 * Does a read that gave back @charge bytes, the buffer holding @held before
 * it, have windows to open? When a sender was refused or waits in line
 * (told to send again: RESUME, or given its turn), and when the buffer was
 * more than half full (the room may be what limits the credit given, and
 * a sender may wait for it), it does. Every quarter of SO_RCVBUF read it
 * may (the grants follow the room): if the socket's lock is held, most
 * often by the receive path taking a train, whose ACKs will carry the
 * grants, the read passes and the next one tries again. Else the ACKs of
 * what arrives carry the grants, as TCP announces a window only when it
 * grew enough.
 *
 * The receive path sets rx_wants_read under the lock, after it found no
 * room; a read may give room back and look at the flag in between, and
 * pass. That read found the buffer full (a refusal for lack of buffer is
 * at SO_RCVBUF or beyond, or behind others in line, which set the flag
 * before): it opens the windows anyway. A refusal by the memory limit is
 * left to the sender's timer then, as before a read.
 */
static enum spray_read_opens spray_sock_read_opens(struct spray_sock *ss,
						   u32 charge, int held)
{
	u32 rcvbuf = READ_ONCE(ss->sk.sk_rcvbuf);

	if (READ_ONCE(ss->rx_wants_read) || held > rcvbuf / 2)
		return SPRAY_READ_OPENS;
	if (atomic_add_return(charge, &ss->rx_read_since) >= rcvbuf / 4)
		return SPRAY_READ_MAY_OPEN;
	return SPRAY_READ_PASSES;
}

/**
 * spray_sock_rmsg_read() - the application read a message: free it and
 *	open the receive windows
 * @ss: the socket
 * @rm: the message, off every list
 *
 * @rm's receive memory is given back at once (its forward-allocation part
 * by the next holder of the socket's lock: spray_sock_uncharge_read()),
 * and @rm itself (its skbs, pages and records) is freed outside the lock
 * that the receive path needs. Most reads end there: the lock is taken,
 * and the receiving connections walked, only when a window must be opened,
 * or may be and the lock is free (spray_sock_read_opens()). Of the
 * connections that receive (&spray_sock.rconns, not every connection of
 * the socket), those whose packets were refused are told to send again
 * (NACK RESUME; those in line for buffer when their turn comes:
 * spray_rx_turns()), and those whose grant moved by more than the credit
 * their sender still had get an ACK with it, as TCP announces a window
 * only when it grew enough: a sender with credit left learns the new grant
 * from the next ACK anyway.
 */
void spray_sock_rmsg_read(struct spray_sock *ss, struct spray_rmsg *rm)
{
	enum spray_read_opens opens = SPRAY_READ_OPENS;
	struct spray_net *sn = ss->sn;
	u32 charge = rm->charge, old, left;
	struct sk_buff_head q;
	struct spray_conn *c;
	bool wants = false;
	int held;
	u64 now;

	rm->charge = 0;
	if (charge) {
		atomic_add(charge, &ss->rx_uncharge);
		/* the room, at once; @held: what the buffer held before */
		held = atomic_sub_return(charge, &ss->sk.sk_rmem_alloc) + charge;
		opens = spray_sock_read_opens(ss, charge, held);
	}
	/*
	 * Under single-threaded TCG a reader spinning behind a train spun
	 * until the emulator switched vCPUs: 12-14% of its CPU in a bulk read.
	 */
	if (opens == SPRAY_READ_PASSES) {
		spray_rmsg_free(ss, rm);
		return;
	}
	if (opens == SPRAY_READ_MAY_OPEN) {
		if (!spin_trylock_bh(&ss->lock)) {
			spray_rmsg_free(ss, rm);
			return;
		}
	} else {
		spin_lock_bh(&ss->lock);
	}
	__skb_queue_head_init(&q);
	/* read under the lock (see struct spray_rx_batch) */
	now = ktime_get_ns();
	spray_sock_uncharge_read(ss);
	atomic_set(&ss->rx_read_since, 0);
	list_for_each_entry(c, &ss->rconns, rnode) {
		if (ss->dead)
			break;
		/* those in line for buffer go when their turn comes */
		if (c->rx_resume &&
		    (c->rx_turn || list_empty(&c->rx_wait_node))) {
			spray_queue_resume(c, &q);
			continue;
		}
		wants |= c->rx_resume &&
			 spray_psn_after(c->rx_refused_top, c->rx.cum);
		old = c->rcc.grant;
		/* what the sender may still send (psns it sent: up to high) */
		left = spray_psn_after(old, c->rx.high) ? old - c->rx.high : 0;
		if (spray_conn_grant(c) - old >= max(left, 1U))
			spray_queue_ack(c, now, &q);
	}
	if (!ss->dead)
		spray_rx_turns(ss, now, &q);
	wants |= !list_empty(&ss->rx_waiting) || !list_empty(&ss->rx_turned);
	WRITE_ONCE(ss->rx_wants_read, wants);
	spin_unlock_bh(&ss->lock);
	spray_rmsg_free(ss, rm);
	spray_xmit_queue(sn, &q);
}

/**
 * spray_sock_close_rx() - close(): stop receiving, keep what must be sent
 * @ss: the socket
 * @drop: drop queued messages too (SO_LINGER with a zero timeout)
 *
 * Messages received and not read, errors not read and messages being
 * reassembled go; what arrived and was not acknowledged yet (a delayed
 * ACK) is acknowledged now, so that a sender whose last message was
 * received (and perhaps read) does not resend it into a closed socket and
 * fail it; DATA arriving from now on is answered with NACK NO_CONN
 * (the sender's messages fail with ECONNREFUSED). Unless @drop, each
 * connection with messages not yet acknowledged lingers: it goes on
 * delivering them, bounded by the retry limit (a receiver that refuses
 * them for lack of buffer now spends it too).
 *
 * Return: the number of connections that linger.
 */
unsigned int spray_sock_close_rx(struct spray_sock *ss, bool drop)
{
	struct spray_net *sn = ss->sn;
	struct spray_tmsg *m, *mtmp;
	struct spray_rmsg *rm, *tmp;
	struct spray_conn *c;
	struct sk_buff_head q;
	unsigned int i, n;
	LIST_HEAD(rxq);
	u64 now;

	__skb_queue_head_init(&q);
	spin_lock_bh(&ss->lock);
	now = ktime_get_ns();
	ss->closing = true;
	spin_lock(&ss->rxq_lock);
	list_splice_init(&ss->rxq, &rxq);
	spin_unlock(&ss->rxq_lock);
	list_for_each_entry_safe(rm, tmp, &rxq, node)
		spray_rmsg_free(ss, rm);
	list_for_each_entry_safe(m, mtmp, &ss->errq, node) {
		list_del(&m->node);
		spray_rmem_uncharge(&ss->sk, m->charge);
		spray_tmsg_free_data(m);
		kfree(m);
	}
	ss->errq_len = 0;
	for (i = 0; i < ARRAY_SIZE(ss->conns); i++) {
		hlist_for_each_entry(c, &ss->conns[i], node) {
			if (c->peer_cid && c->rx.unacked)
				spray_queue_ack(c, now, &q);
			/* in case that ACK is lost: timewait.c */
			spray_tw_add(c, now);
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
	spray_xmit_queue(sn, &q);
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
	struct spray_net *sn = ss->sn;
	struct hlist_node *tmp;
	struct spray_conn *c;
	HLIST_HEAD(dead);
	unsigned int i;

	spray_port_unbind(sn, ss);
	spray_sock_close_rx(ss, true);
	/* failures still on their way: closing, they are only counted */
	spray_sock_fail_drain(ss);
	spin_lock_bh(&ss->lock);
	ss->dead = true;
	for (i = 0; i < ARRAY_SIZE(ss->conns); i++) {
		hlist_for_each_entry_safe(c, tmp, &ss->conns[i], node) {
			hlist_del(&c->node);
			list_del_init(&c->tsq_node);
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
	spray_sock_uncharge_read(ss);
	sk_mem_reclaim_final(&ss->sk);
	spin_unlock_bh(&ss->lock);
}

/* A new socket: nothing lingers yet. */
void spray_sock_init_linger(struct spray_sock *ss)
{
	INIT_WORK(&ss->fail_work, spray_sock_fail_work);
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

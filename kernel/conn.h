/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY connections: the state one socket keeps per peer socket.
 */
#ifndef _SPRAY_CONN_H
#define _SPRAY_CONN_H

#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <net/route.h>

#include "spray.h"
#include "rxwin.h"
#include "txwin.h"
#include "path.h"
#include "cc.h"
#include "layout.h"

/* outstanding packets per connection: a power of two */
#define SPRAY_TX_RING		2048
/*
 * DATA packets one pump builds before they go out. Every packet of a burst
 * carries the burst's timestamp while the last leaves only after the rest:
 * a long burst understates its packets' send times, and loss detection
 * then finds them late when they are not.
 */
#define SPRAY_TX_BURST		8
/*
 * Packets of new data one skb may carry down the stack (a GSO train, one
 * entropy value): up to this many, while the CPU, not the windows, limits
 * the sender (spray_conn_pump()). A train rides one path: it is the grain
 * of spraying, and it must stay small beside what each EV carries, or a
 * path's share of a transfer stops following its share of the EVs (256
 * EVs and 64-packet trains put one of 4 paths 2.5 points off its EVs'
 * share, multipath.sh; 24-packet ones within 1.4 points). 24 packets take
 * at most 3 skb frags in a slotted message (layout.h), make a 64 KiB
 * message two trains at MTU 1500 instead of three, and cost 10% fewer
 * instructions per byte than 16 (Documentation/performance.rst).
 */
#define SPRAY_TRAIN_MAX		24
/* a turn for receive buffer unused for this long (or 8 RTTs) is taken back */
#define SPRAY_RX_TURN_MIN_NS	(50 * NSEC_PER_MSEC)
/* connections one socket keeps; packets opening more are dropped */
#define SPRAY_MAX_CONNS		4096
/*
 * connections a namespace keeps; packets opening more are dropped (local
 * senders are bounded by SPRAY_MAX_CONNS per socket only)
 */
#define SPRAY_MAX_NET_CONNS	(4 * SPRAY_MAX_CONNS)
/* a verified incarnation silent this long may be replaced by any SYN */
#define SPRAY_STALE_NS		(2ULL * NSEC_PER_SEC)
/*
 * How far a peer's clock (the ts_ns of its packets) may run ahead of ours
 * between two of its packets, beyond the time that passed here: a new
 * incarnation claiming more is not believed (a forged timestamp would lock
 * the real peer out).
 */
#define SPRAY_TS_SLACK_NS	(1ULL * NSEC_PER_SEC)
/* errors kept for MSG_ERRQUEUE; beyond, failures are only counted */
#define SPRAY_MAX_ERRQ		1024
/*
 * Losses of one packet larger than any acknowledged on its connection
 * that make the connection suspect a path MTU black hole (&spray_conn.bh_len),
 * as TCP's black hole detection waits for its third RTO (tcp_retries1)
 */
#define SPRAY_BLACKHOLE_LOSSES	3
/* how often a sending connection checks its routes' MTU (spray_conn_pump()) */
#define SPRAY_PMTU_CHECK_NS	(10 * NSEC_PER_MSEC)

/**
 * struct spray_skb_cb - where a packet goes, in skb->cb until transmission
 * @saddr: source (IPv4 v4-mapped)
 * @daddr: destination (IPv4 v4-mapped)
 * @oif: interface of a link-local IPv6 destination, else 0
 * @ev: UDP source port
 * @nodf: an IPv4 packet that leaves without DF whatever its size (its
 *	connection suspects a path MTU black hole: &spray_conn.nodf)
 */
struct spray_skb_cb {
	struct in6_addr	saddr;
	struct in6_addr	daddr;
	u32		oif;
	u16		ev;
	u8		nodf;
};

#define SPRAY_SKB_CB(skb)	((struct spray_skb_cb *)(skb)->cb)

/**
 * struct spray_skb_cursor - the skb frag in which bytes were last found
 * @skb: the skb (NULL: none yet)
 * @addr: the kernel address of the frag's first byte
 * @start: the frag's offset in @skb
 * @end: one past its last byte's offset
 *
 * A train's packets lie back to back in its frags (the sender's chunks,
 * on a veth; 32 KiB each): the next packet's header or payload most often
 * lies in the frag of the one before, and is found there without walking
 * the skb's frags from its head (spray_skb_at()).
 */
struct spray_skb_cursor {
	const struct sk_buff	*skb;
	u8			*addr;
	u32			start;
	u32			end;
};

void *spray_skb_find(const struct sk_buff *skb, u32 off, u32 len,
		     struct spray_skb_cursor *cur);

/*
 * The kernel address of the @len bytes at @off of @skb if they lie in one
 * of its frags in the linear map (where @cur says, else as
 * spray_skb_find() finds them), else NULL.
 */
static inline void *spray_skb_at(const struct sk_buff *skb, u32 off,
				 u32 len, struct spray_skb_cursor *cur)
{
	if (likely(cur->skb == skb && off >= cur->start &&
		   off + len <= cur->end))
		return cur->addr + (off - cur->start);
	return spray_skb_find(skb, off, len, cur);
}

/**
 * struct spray_dst_slot - the route of one entropy value of a connection
 * @dst: a reference to it, or NULL
 * @cookie: what dst_check() validates it with (IPv6's fib serial number)
 * @ev: the UDP source port it was looked up for
 * @udp_port: and the destination port (the namespace's udp-port)
 *
 * Filled and used under the socket's lock (spray_udp_dst()).
 */
struct spray_dst_slot {
	struct dst_entry	*dst;
	u32			cookie;
	u16			ev;
	u16			udp_port;
};

/*
 * Entropy values of the control packets (ACKs, NACKs) of a connection
 * that has sent nothing: drawn when it is created, one in each of as many
 * equal parts of 49152-65535, so that their routes can be kept.
 */
#define SPRAY_CTRL_EVS		16

/* entropy values a message's history keeps (SPRAY_HIST_EVS of the uapi) */
#define SPRAY_TMSG_HIST_EVS	4

/**
 * struct spray_tmsg_hist - what the transport saw for one message, reported
 *	with it if it fails (SPRAY_CMSG_HISTORY): counters that saturate, no
 *	allocation, a few instructions per event
 * @retx: retransmissions of its packets, by enum spray_loss_why - 1 (rack,
 *	nack, rto, refused)
 * @nacks: NACKs (loss, window, no buffer) naming some of its psns
 * @rtos: RTO expiries that declared some of its packets lost
 * @rto_mark: the connection's &spray_conn.rtos when @rtos last counted
 *	(one expiry counts once however many of its packets it declared lost)
 * @evs: the last entropy values (UDP source ports) its packets went on,
 *	newest first, each different from the one before
 * @nevs: entries of @evs in use
 */
struct spray_tmsg_hist {
	u16	retx[4];
	u16	nacks;
	u16	rtos;
	u16	rto_mark;
	u16	evs[SPRAY_TMSG_HIST_EVS];
	u8	nevs;
};

/**
 * struct spray_tmsg - a message being sent, or one that failed
 * @node: in &spray_conn.tmsgs, in sending order; failed: in
 *	&spray_sock.errq
 * @msg_id: its number in the current incarnation
 * @len: bytes
 * @next_off: first byte not yet sent once
 * @acked: bytes acknowledged
 * @conn_id: on the error queue: the id of the connection it failed on
 * @ack_age_us: on the error queue: how long before it failed the peer's
 *	last ACK came (U32_MAX: none ever came)
 * @charge: what it costs the socket's buffer (sk_wmem_queued while sent,
 *	sk_rmem_alloc while on the error queue): the message, its metadata
 * @abandoned: failed while fragments were in flight (the receiver refused
 *	its size): nothing more of it is sent, it is freed once what was sent
 *	is acknowledged
 * @frag: its payload bytes per packet, the connection's when its first
 *	packet went (0 before: spray_tmsg_frag()); a path MTU learned
 *	meanwhile cuts the messages after it
 * @err: on the error queue: the errno
 * @dst: on the error queue: the destination
 * @cookie: the user's SPRAY_CMSG_COOKIE, reported if the message fails
 * @buf: the data of a message of at most SPRAY_TMSG_LINEAR bytes
 * @chunks: the data of a longer one, @nchunks chunks of order @order
 *	(the last one maybe less)
 * @nchunks: number of @chunks
 * @order: the chunks' order
 * @slot_frag: 0 if the chunks hold the bytes back to back; else they hold
 *	them in slots of a DATA header's room and @slot_frag bytes of
 *	payload, one per packet of that payload size (layout.h), written
 *	when the connection's packets had that size
 * @hist: its history, for the error queue
 * @data: @buf, for a message of at most %SPRAY_TMSG_INLINE bytes; for
 *	one in chunks, the array of @chunks when it has at most
 *	%SPRAY_TMSG_TAIL_CHUNKS (spray_tmsg_alloc())
 *
 * On the error queue, when the receive buffer had no room for its data,
 * the entry has neither @buf nor @chunks.
 */
struct spray_tmsg {
	struct list_head	node;
	u32			msg_id;
	u32			len;
	union {
		struct {	/* while it is sent */
			u32	next_off;
			u32	acked;
		};
		struct {	/* on the error queue */
			u32	conn_id;
			u32	ack_age_us;
		};
	};
	u32			charge;
	bool			abandoned;
	u16			frag;
	int			err;
	struct spray_addr	dst;
	u64			cookie;
	u8			*buf;
	struct page		**chunks;
	u16			nchunks;
	u8			order;
	u16			slot_frag;
	struct spray_tmsg_hist	hist;
	u8			data[] __aligned(8);
};

/*
 * A message's data. Up to SPRAY_TMSG_LINEAR bytes: one kmalloc buffer,
 * copied into its packets. Longer: chunks of PAGE_SIZE << order bytes
 * (order SPRAY_TMSG_ORDER when the allocator has them, else 0; the last
 * chunk as small as it can be), which its packets reference: the user's
 * bytes are copied once, at sendmsg(), and a retransmission copies nothing.
 * The chunks hold the bytes in slots of one packet each when the
 * connection's packet size is known (@spray_tmsg.slot_frag).
 */
#define SPRAY_TMSG_LINEAR	PAGE_SIZE
#define SPRAY_TMSG_ORDER	3
/* up to this many bytes, the buffer is the record's tail: one allocation */
#define SPRAY_TMSG_INLINE	256
/*
 * A chunked message's array of chunks is the record's tail when it has at
 * most this many (a message of up to about 120 KiB in 32 KiB chunks).
 */
#define SPRAY_TMSG_TAIL_CHUNKS	4

/**
 * struct spray_conn - one socket's state for one peer socket
 * @node: in &spray_sock.conns
 * @ss: the owning socket (connections never outlive it)
 * @remote: the peer: address and spray port
 * @saddr: our address in this connection (IPv4 v4-mapped): the one the
 *	peer sent to when it opened the connection, else the route's source.
 *	Part of the connection's key: a socket bound to a wildcard may hold
 *	one connection per local address to the same peer
 * @timer: ACK delay, NACK, loss detection and RTO
 * @tx_ready: the sending half below is allocated
 * @lingering: the socket is closed and this connection still delivers
 *	its queued messages (counted in &spray_sock.nlinger)
 * @local_cid: our sending incarnation (src_cid of our DATA, first psn)
 * @synced: the peer acknowledged this incarnation (no more SYN)
 * @peer_answers: the peer's last ACK came in its DATA (it answers what we
 *	send): an RTO probes it first (SPRAY_CAP_ANSWER_PROBE)
 * @rto_probed: an RTO expiry probed (answer probe) and no ACK came since:
 *	the first that acknowledges nothing new declares the rest lost
 * @soft_err: the last ICMP error about this incarnation's packets since
 *	an ACK brought progress (an errno, 0 if none): what its messages fail
 *	with instead of ETIMEDOUT if they time out (TCP's sk_err_soft)
 * @nodf: IPv4 packets leave without DF: a packet larger than any the peer
 *	acknowledged, and not larger than the path MTU learnt since (it left
 *	whole), was lost SPRAY_BLACKHOLE_LOSSES times, as if a router
 *	dropped it for the path MTU and a filter ate its Fragmentation
 *	Needed (a black hole); routers fragment them from then on
 * @acked_len_max: the largest payload of a packet the peer acknowledged
 * @bh_len: a black hole is suspected for packets of this payload (one was
 *	lost SPRAY_BLACKHOLE_LOSSES times, none so large acknowledged), 0 if
 *	none: the suspicion holds once the peer answers a small PROBE sent
 *	since (spray_conn_blackhole_check())
 * @bh_probe_due: the pump sends that PROBE
 * @bh_probe_ns: when it went (its answer echoes it), 0 before
 * @peer_ack_cid: the src_cid of the peer's ACKs for this incarnation, put
 *	in our DATA's dst_cid: proof to the peer that we hear its ACKs
 * @next_msg_id: number of the next message queued
 * @tmsgs: messages queued or in flight
 * @tx_next: the first of them with bytes never sent (a cursor: before it
 *	everything was sent once), NULL if none
 * @frag_size: payload bytes per packet: what the least MTU of the routes
 *	kept for the entropy values leaves (spray_conn_path_mtu()), or an
 *	ICMP error said since
 * @pmtu_check_ns: when the pump looks at the routes' MTU again
 * @pump_more: the last pump stopped at SPRAY_TX_BURST with room left; the
 *	timer continues it at @pump_at
 * @pump_at: when the next burst may go
 * @tsq_node: in &spray_sock.tsq_conns while it waits for what its socket
 *	has below it to drain
 * @train: the longest train allowed now, 1..SPRAY_TRAIN_MAX: back to 1
 *	at any loss or ECN mark, one more per 64 packets acknowledged
 *	without either (the pump also keeps a train within an eighth of
 *	the congestion window)
 * @train_calm: packets acknowledged, unmarked, since @train last moved
 * @train_undo: @train before the losses since, 0 if none: a loss that
 *	proves spurious (the packet arrived after all) gives it back, as
 *	the congestion window's cut is undone
 * @ops_now: the time of the ACK, NACK or timer that spray_tx_ops' verdicts
 *	come from (one clock read for all the psns of one ACK)
 * @tw: the send window
 * @ring: its records
 * @path: entropy value choice
 * @evs: its entropy values
 * @dsts: their routes, one slot each (allocated with @evs)
 * @ctrl_ports: the entropy values of control packets before the
 *	connection sends (spray_ctrl_ev())
 * @ctrl_dsts: their routes
 * @ctrl_rng: xorshift state that picks a control packet's EV
 * @nscc: sender congestion window
 * @cc: congestion control settings, from the namespace at creation
 * @peer_cid: the peer's sending incarnation we receive, 0 if none
 * @ack_cid: our cid in the ACKs and NACKs of that incarnation (random)
 * @rx_verified: the peer's DATA carried @ack_cid (or answered a
 *	challenge): it hears us, the incarnation is not forged from off the
 *	path
 * @peer_caps: SPRAY_CAP_* of the peer's last packet accepted (DATA of its
 *	incarnation, ACK of ours): whether our DATA may carry ACKs
 * @chal_key: the secret of this connection's challenge token (random,
 *	drawn again when an incarnation is adopted by it): one token for
 *	every SYN challenged, so that any number may be challenged at once,
 *	a flood of forged ones cannot displace the real peer's pending
 *	answer, and the real peer may answer the challenge of a forged one
 * @peer_last_ts: newest sender timestamp of the incarnation's packets
 * @rx_last_ns: when the incarnation's last packet was accepted
 * @rx_mtu: largest DATA payload received (receiver credit counts in it)
 * @rx_refused_top: one past the highest psn refused for lack of buffer
 * @rx_resume: psns were refused since the last NACK RESUME: tell the
 *	sender when there is room
 * @rx_wait_node: in &spray_sock.rx_waiting while its turn has not come,
 *	then in &spray_sock.rx_turned until it uses it
 * @rx_wait_charge: what the message refused for lack of buffer will cost
 *	(spray_rmsg_charge()): reserved in &spray_sock.rx_turns on its turn
 * @rx_turn: its turn came: its next new message is admitted
 * @rx_turn_ns: when (taken back if unused for long: spray_rx_turns())
 * @rx_left_pkts: packets the messages being reassembled still miss (the
 *	sum of their &spray_rmsg.pkts_left)
 * @rx_left_msgs: messages being reassembled (in @rmsgs)
 * @rx: the receive window
 * @rcc: receiver credit state
 * @rx_next_id: next message to deliver when the socket is ordered
 * @rmsgs: messages being reassembled
 * @rx_last: the one the last DATA packet belonged to (most do), or NULL
 * @rdone: complete messages held back for ordered delivery
 * @rnode: in &spray_sock.rconns while it receives (a peer incarnation)
 * @free_work: frees an idle connection outside its own timer
 * @last_active_ns: last message queued or packet received
 * @id: number of the connection in its namespace, for netlink
 * @stat_tx: DATA packets sent
 * @stat_retx: of those, retransmissions
 * @stat_rx: DATA packets accepted
 * @stat_ecn: acknowledged packets echoed CE-marked
 * @ack_rx_ns: when the peer's last ACK of our incarnation came, 0 never
 * @rtos: RTO expiries of the connection, every incarnation
 * @tr_cwnd: the window the spray_cwnd tracepoint last reported
 * @tr_grant: the grant the spray_credit tracepoint last reported (dir tx)
 */
struct spray_conn {
	struct hlist_node	node;
	struct spray_sock	*ss;
	struct spray_addr	remote;
	struct in6_addr		saddr;
	struct hrtimer		timer;

	bool			tx_ready;
	bool			lingering;
	u32			local_cid;
	bool			synced;
	bool			peer_answers;
	bool			rto_probed;
	u8			soft_err;
	bool			nodf;
	u16			acked_len_max;
	u16			bh_len;
	bool			bh_probe_due;
	u64			bh_probe_ns;
	u32			peer_ack_cid;
	u32			next_msg_id;
	struct list_head	tmsgs;
	struct spray_tmsg	*tx_next;
	u32			frag_size;
	u64			pmtu_check_ns;
	bool			pump_more;
	u64			pump_at;
	struct list_head	tsq_node;
	u32			train;
	u32			train_calm;
	u32			train_undo;
	u64			ops_now;
	struct spray_txwin	tw;
	struct spray_txrec	*ring;
	struct spray_path	path;
	struct spray_ev		*evs;
	struct spray_dst_slot	*dsts;
	u16			ctrl_ports[SPRAY_CTRL_EVS];
	struct spray_dst_slot	ctrl_dsts[SPRAY_CTRL_EVS];
	u32			ctrl_rng;
	struct spray_nscc	nscc;
	struct spray_cc_cfg	cc;

	u32			peer_cid;
	u32			ack_cid;
	bool			rx_verified;
	u16			peer_caps;
	u32			chal_key;
	u64			peer_last_ts;
	u64			rx_last_ns;
	u32			rx_mtu;
	u32			rx_refused_top;
	bool			rx_resume;
	struct list_head	rx_wait_node;
	u32			rx_wait_charge;
	bool			rx_turn;
	u64			rx_turn_ns;
	u32			rx_left_pkts;
	u32			rx_left_msgs;
	struct spray_rxwin	rx;
	struct spray_rcc_conn	rcc;
	u32			rx_next_id;
	struct list_head	rmsgs;
	struct spray_rmsg	*rx_last;
	struct list_head	rdone;
	struct list_head	rnode;

	struct work_struct	free_work;
	u64			last_active_ns;
	u32			id;
	u64			stat_tx;
	u64			stat_retx;
	u64			stat_rx;
	u64			stat_ecn;
	u64			ack_rx_ns;
	u32			rtos;
	u32			tr_cwnd;
	u32			tr_grant;
};

static inline void spray_conn_local_addr(const struct spray_conn *c,
					 struct spray_addr *a)
{
	*a = c->ss->local;
	if (!ipv6_addr_any(&c->saddr)) {
		a->v6 = c->saddr;
		a->af = ipv6_addr_v4mapped(&c->saddr) ? AF_INET : AF_INET6;
	}
}

/* A saturating counter of a message's history. */
static inline void spray_hist_inc(u16 *v)
{
	if (*v < U16_MAX)
		(*v)++;
}

/* A packet of @m goes on entropy value @port: its history keeps the last few. */
static inline void spray_hist_ev(struct spray_tmsg *m, u16 port)
{
	struct spray_tmsg_hist *h = &m->hist;

	if (h->nevs && h->evs[0] == port)
		return;
	memmove(&h->evs[1], &h->evs[0], sizeof(h->evs) - sizeof(h->evs[0]));
	h->evs[0] = port;
	if (h->nevs < SPRAY_TMSG_HIST_EVS)
		h->nevs++;
}

/* How long ago the peer's last ACK came, for a message's history. */
static inline u32 spray_conn_ack_age_us(const struct spray_conn *c, u64 now)
{
	if (!c->ack_rx_ns)
		return U32_MAX;
	if (now <= c->ack_rx_ns)
		return 0;
	return (u32)min_t(u64, div_u64(now - c->ack_rx_ns, NSEC_PER_USEC),
			  U32_MAX - 1);
}

int spray_udp_path(struct spray_net *sn, struct in6_addr *saddr,
		   const struct in6_addr *daddr, u32 oif, u32 *payload);
u32 spray_udp_dst_payload(const struct dst_entry *dst, bool v4);
int spray_udp_dst_pmtu_min(struct dst_entry *dst, const struct in6_addr *saddr,
			   const struct in6_addr *daddr);
bool spray_conn_pmtu_min(struct spray_conn *c);
void spray_conn_blackhole_check(struct spray_conn *c, u64 ts_echo);
struct dst_entry *spray_udp_dst(struct spray_net *sn,
				struct spray_dst_slot *slot,
				const struct in6_addr *saddr,
				const struct in6_addr *daddr, u32 oif, u16 ev);
void spray_udp_dst_release(struct spray_dst_slot *slots, u32 n);

/* Shared by the datapath's files: conn.c, output.c, input.c, timer.c. */
extern struct workqueue_struct *spray_wq;
extern const struct spray_txwin_ops spray_tx_ops;

/* conn.c: life cycle, memory, the sending half */
struct spray_conn *spray_conn_alloc(struct spray_sock *ss,
				    const struct spray_addr *remote, gfp_t gfp);
struct spray_conn *spray_conn_find(struct spray_sock *ss,
				   const struct spray_addr *remote, const struct in6_addr *local);
void spray_conn_free(struct spray_conn *c);
void spray_conn_free_rx(struct spray_conn *c);
void spray_conn_insert(struct spray_sock *ss, struct spray_conn *c);
void spray_conn_linger_check(struct spray_conn *c);
/* The same peer (address and port): what a connection is found by. */
static inline bool spray_addr_eq(const struct spray_addr *a,
				 const struct spray_addr *b)
{
	return a->port == b->port && ipv6_addr_equal(&a->v6, &b->v6);
}

static inline struct spray_net *spray_conn_net(const struct spray_conn *c)
{
	return c->ss->sn;
}

void spray_conn_arm_carried(struct spray_conn *c, u64 now);
void spray_conn_rto(struct spray_conn *c, u64 now, bool probed);
void spray_conn_path_event(struct spray_conn *c, u16 idx, bool up);
void spray_conn_trace_cc(struct spray_conn *c);
bool spray_conn_tx_done(const struct spray_conn *c);
int spray_conn_tx_init(struct spray_conn *c, struct spray_net *sn);
u32 spray_new_cid(void);
int spray_reader_wake(struct wait_queue_entry *wait, unsigned int mode,
		      int sync, void *key);
int spray_writer_wake(struct wait_queue_entry *wait, unsigned int mode,
		      int sync, void *key);
bool spray_rmem_charge(struct sock *sk, u32 size);
void spray_rmem_uncharge(struct sock *sk, u32 size);
void spray_sock_uncharge_read(struct spray_sock *ss);
u32 spray_rmsg_charge(u32 len, u32 extra);
void spray_rmsg_unlink_left(struct spray_conn *c, struct spray_rmsg *rm);
u32 spray_tmsg_charge(u32 len, u32 slot_frag);
void spray_tx_fail_all(struct spray_conn *c, int err);
void spray_tx_msg_size(struct spray_conn *c, u32 psn);
int spray_tx_restart(struct spray_conn *c);
bool spray_wmem_charge(struct sock *sk, u32 size);
void spray_wmem_uncharge(struct sock *sk, u32 size);
void spray_write_space(struct sock *sk);

/* The payload of @m's packets on @c: its own once it started. */
static inline u32 spray_tmsg_frag(const struct spray_conn *c,
				  const struct spray_tmsg *m)
{
	return m->frag ?: c->frag_size;
}

/* Why @c's messages time out: ETIMEDOUT, or what ICMP said meanwhile. */
static inline int spray_conn_timeout_err(const struct spray_conn *c)
{
	return c->soft_err ?: ETIMEDOUT;
}

/* output.c: packets out */
u32 spray_conn_grant(struct spray_conn *c);
struct spray_tmsg *spray_conn_next_new(struct spray_conn *c);
void spray_conn_pump(struct spray_conn *c, u64 now, struct sk_buff_head *q);
void spray_conn_tx_feedback(struct spray_conn *c, u64 now,
			    struct sk_buff_head *q);
int spray_ctrl_ev(struct spray_conn *c);
bool spray_nack_allowed(struct spray_net *sn, const struct spray_addr *to,
			u64 now);
struct sk_buff *spray_nack_skb(struct spray_net *sn,
			       const struct spray_addr *to, const struct in6_addr *saddr,
			       const struct spray_pkt *in, u64 now);
struct sk_buff *spray_probe_echo_skb(struct spray_net *sn,
				     const struct spray_addr *to,
				     const struct in6_addr *saddr,
				     const struct spray_pkt *in, u64 now);
struct sk_buff *spray_closed_ack_skb(const struct spray_addr *to,
				     const struct in6_addr *saddr,
				     const struct spray_pkt *in, u32 ack_cid,
				     u32 cum);
struct sk_buff *spray_pkt_skb(struct spray_conn *c, struct spray_pkt *p,
			      u32 payload, int ev);
void spray_queue_ack(struct spray_conn *c, u64 now, struct sk_buff_head *q);
void spray_queue_window_probe(struct spray_conn *c, u64 now,
			      struct sk_buff_head *q);
void spray_queue_acks(struct spray_conn *c, u64 now, struct sk_buff_head *q);
void spray_queue_nack(struct spray_conn *c, u32 psn, u16 count, u8 reason,
		      struct sk_buff_head *q);
void spray_queue_nacks(struct spray_conn *c, u64 now, struct sk_buff_head *q);
void spray_queue_resume(struct spray_conn *c, struct sk_buff_head *q);
void spray_xmit_queue(struct spray_net *sn, struct sk_buff_head *q);
int spray_tsq_init(void);
void spray_tsq_drain(void);

/* input.c: packets in */
void spray_data_ready(struct spray_sock *ss);
void spray_rx_close(struct spray_conn *c);
s64 spray_rx_room(const struct spray_sock *ss);
void spray_rx_unwait(struct spray_conn *c);
void spray_rx_turns(struct spray_sock *ss, u64 now, struct sk_buff_head *q);

/* timer.c */
void spray_conn_arm(struct spray_conn *c, u64 now);
enum hrtimer_restart spray_conn_timer(struct hrtimer *t);

struct spray_tmsg *spray_tmsg_alloc(u32 len);
int spray_tmsg_alloc_data(struct spray_tmsg *m, u32 len, u32 slot_frag);
void spray_tmsg_free_data(struct spray_tmsg *m);
int spray_tmsg_copy_from(struct spray_tmsg *m, struct iov_iter *from);
size_t spray_tmsg_copy_to(const struct spray_tmsg *m, size_t len,
			  struct iov_iter *to);
int spray_skb_add_tmsg(struct sk_buff *skb, const struct spray_tmsg *m,
		       u32 off, u32 len);
u32 spray_tmsg_nr_frags(const struct spray_tmsg *m, u32 off, u32 len);
u32 spray_skb_add_slots(struct sk_buff *skb, struct spray_tmsg *m,
			struct spray_pkt *p, void *hdr, u32 cnt, u32 *bytes);

struct page *spray_page_alloc(unsigned int order, gfp_t gfp);
void spray_page_free(struct page *pg, unsigned int order);
int spray_page_cache_init(void);
void spray_page_cache_drain(void);

/* timewait.c: closed connections remembered by their namespace */
void spray_tw_add(struct spray_conn *c, u64 now);
bool spray_tw_answer(struct spray_net *sn, const struct spray_pkt *p,
		     const struct spray_addr *peer,
		     const struct spray_addr *to, u64 now,
		     struct sk_buff_head *q);

#endif /* _SPRAY_CONN_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY internal definitions shared by the kernel files of the module.
 */
#ifndef _SPRAY_H
#define _SPRAY_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/in6.h>
#include <net/sock.h>
#include <net/net_namespace.h>
#include <net/ipv6.h>
#include <linux/spray.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sizes.h>

#include "pkt.h"
#include "cc.h"
#include "ratelimit.h"

#define SPRAY_PORT_HASH_BITS	8
#define SPRAY_PORT_HASH_SIZE	(1U << SPRAY_PORT_HASH_BITS)

/**
 * struct spray_addr - a bound or peer address in kernel form
 * @af: AF_INET or AF_INET6
 * @port: spray port, host byte order
 * @scope_id: IPv6 scope id, else 0
 * @v6: the address; an IPv4 address is stored v4-mapped (::ffff:a.b.c.d)
 */
struct spray_addr {
	u16		af;
	u16		port;
	u32		scope_id;
	struct in6_addr	v6;
};

/*
 * Closed connections a namespace remembers (kernel/timewait.c): at most
 * this many, the oldest forgotten first; about 100 bytes each.
 */
#define SPRAY_TW_MAX		4096
#define SPRAY_TW_HASH_BITS	8

/* The UDP port AF_SPRAY listens on by default, in every namespace. */
#define SPRAY_DEFAULT_UDP_PORT	4797

/**
 * struct spray_config - per namespace settings (netlink "config")
 * @udp_port: UDP port of every AF_SPRAY packet (destination), host order
 * @nr_evs: entropy values (UDP source ports) per peer, 1..SPRAY_MAX_EVS
 * @cc_mode: enum spray_cc_mode of new sockets
 * @rto_min_us: retransmission timeout floor
 * @rto_max_us: retransmission timeout ceiling
 * @retry_limit: transmissions of one packet before its message fails
 * @ack_every: coalesce up to this many DATA packets into one ACK
 * @ack_delay_us: longest an ACK is held back for coalescing
 * @max_msg: largest message sendmsg() accepts, bytes
 * @idle_timeout_ms: a connection with nothing in flight for this long is
 *	torn down; a sender that hears nothing for half of it with data
 *	outstanding fails (spray_txwin_cfg.silence_ns)
 * @bdp_bytes: the largest bandwidth-delay product a peer may have: the
 *	cap of the per-peer BDP that new connections learn (their delivery
 *	rate times their min RTT), which sizes the sender window and the
 *	receiver credit
 *
 * Readers on the datapath use READ_ONCE() per field; writers hold
 * &spray_net.config_lock. Changes apply to the next packet.
 */
struct spray_config {
	u16	udp_port;
	u16	nr_evs;
	u8	cc_mode;
	u32	rto_min_us;
	u32	rto_max_us;
	u32	retry_limit;
	u32	ack_every;
	u32	ack_delay_us;
	u32	max_msg;
	u32	idle_timeout_ms;
	u32	bdp_bytes;
};

#define SPRAY_MAX_EVS		256
/*
 * Default bdp-bytes: the cap of a peer's BDP. A connection cannot have
 * more in flight than its send ring anyway (2048 packets: 18 MB of jumbo
 * frames); 16 MiB is also the default SO_SNDBUF and SO_RCVBUF.
 */
#define SPRAY_DEFAULT_BDP_CAP	(16U << 20)
#define SPRAY_MAX_MSG		(8U << 20)
/* default SO_SNDBUF and SO_RCVBUF: two largest messages */
#define SPRAY_DEFAULT_BUF	(2 * SPRAY_MAX_MSG)
/*
 * Above the protocol's send mark (spray_sock_wspace()) a socket queues
 * more only while it queues less than this, as TCP guarantees tcp_wmem[0]
 * under pressure: one more message of any size then.
 */
#define SPRAY_WMEM_FLOOR	(64U << 10)

/**
 * enum spray_mib_field - per namespace counters (netlink "stats")
 * @SPRAY_MIB_TX_PKTS: DATA packets sent, first transmissions
 * @SPRAY_MIB_TX_BYTES: payload bytes of those
 * @SPRAY_MIB_RETX_PKTS: DATA packets sent again
 * @SPRAY_MIB_RX_PKTS: DATA packets accepted
 * @SPRAY_MIB_RX_BYTES: payload bytes of those
 * @SPRAY_MIB_TX_MSGS: messages fully acknowledged
 * @SPRAY_MIB_RX_MSGS: messages delivered to a socket
 * @SPRAY_MIB_MSG_FAILED: messages reported undeliverable
 * @SPRAY_MIB_ACK_TX: ACKs sent
 * @SPRAY_MIB_ACK_RX: ACKs received
 * @SPRAY_MIB_NACK_TX: NACKs sent
 * @SPRAY_MIB_NACK_RX: NACKs received
 * @SPRAY_MIB_LOST_PKTS: packets declared lost by the sender
 * @SPRAY_MIB_RTO: retransmission timeouts
 * @SPRAY_MIB_ECN_CE: DATA packets that arrived CE-marked
 * @SPRAY_MIB_ECN_ECHO: acked packets echoed as CE-marked
 * @SPRAY_MIB_CONN_OPEN: connections created
 * @SPRAY_MIB_CONN_CLOSE: connections torn down
 * @SPRAY_MIB_CONN_RESET: incarnations replaced (peer restart)
 * @SPRAY_MIB_PATH_DOWN: entropy values declared down
 * @SPRAY_MIB_PATH_UP: entropy values back up after a probe
 * @SPRAY_MIB_RCVBUF_FULL: DATA refused for lack of buffer
 * @SPRAY_MIB_NO_SOCKET: packets for an unbound spray port
 * @SPRAY_MIB_LOST_RACK: lost-pkts by RACK
 * @SPRAY_MIB_LOST_NACK: lost-pkts by NACK
 * @SPRAY_MIB_LOST_RTO: lost-pkts by RTO
 * @SPRAY_MIB_SPURIOUS_LOSS: declared lost, arrived after all
 * @SPRAY_MIB_WINDOW_PROBES: persist timer: a packet beyond the grant
 * @SPRAY_MIB_RX_COPIED: DATA payload copied, not kept in its skb
 * @SPRAY_MIB_TX_THROTTLED: waits for what a socket has below it
 * @SPRAY_MIB_ACK_CARRIED: ACKs carried by DATA (SPRAY_F_ACK)
 * @SPRAY_MIB_REFUSED_RESENT: retx-pkts of packets the peer refused
 * @SPRAY_MIB_RESUME_TX: NACK RESUME sent (of nack-tx)
 * @SPRAY_MIB_RX_TURNS: turns given to senders in line
 * @SPRAY_MIB_RX_TURNS_EXPIRED: turns taken back, unused
 * @SPRAY_MIB_CLOSED_ACKS: ACKs for connections closed (spray_tw)
 * @SPRAY_MIB_TIMER_FIRES: connection timer expirations
 * @SPRAY_MIB_ANSWER_PROBES: RTO expiries that asked an answering peer first
 * @SPRAY_MIB_TX_TRAINS: skbs of first transmissions (trains of 1 or more)
 * @SPRAY_MIB_RX_TRAINS: skbs that brought DATA packets to a socket
 * @SPRAY_MIB_ICMP_ERRORS: ICMP errors quoting a packet we sent
 * @SPRAY_MIB_PMTU_BLACKHOLES: path MTU black holes suspected: a connection's
 *	IPv4 packets leave without DF from then on, or for IPv6 the routes
 *	to its peer take 1280 bytes
 * @__SPRAY_MIB_MAX: the number of counters
 *
 * Drops of incoming packets are counted per enum spray_drop_reason in
 * &spray_mib.drops, the rest here.
 */
enum spray_mib_field {
	SPRAY_MIB_TX_PKTS,
	SPRAY_MIB_TX_BYTES,
	SPRAY_MIB_RETX_PKTS,
	SPRAY_MIB_RX_PKTS,
	SPRAY_MIB_RX_BYTES,
	SPRAY_MIB_TX_MSGS,
	SPRAY_MIB_RX_MSGS,
	SPRAY_MIB_MSG_FAILED,
	SPRAY_MIB_ACK_TX,
	SPRAY_MIB_ACK_RX,
	SPRAY_MIB_NACK_TX,
	SPRAY_MIB_NACK_RX,
	SPRAY_MIB_LOST_PKTS,
	SPRAY_MIB_RTO,
	SPRAY_MIB_ECN_CE,
	SPRAY_MIB_ECN_ECHO,
	SPRAY_MIB_CONN_OPEN,
	SPRAY_MIB_CONN_CLOSE,
	SPRAY_MIB_CONN_RESET,
	SPRAY_MIB_PATH_DOWN,
	SPRAY_MIB_PATH_UP,
	SPRAY_MIB_RCVBUF_FULL,
	SPRAY_MIB_NO_SOCKET,
	SPRAY_MIB_LOST_RACK,
	SPRAY_MIB_LOST_NACK,
	SPRAY_MIB_LOST_RTO,
	SPRAY_MIB_SPURIOUS_LOSS,
	SPRAY_MIB_WINDOW_PROBES,
	SPRAY_MIB_RX_COPIED,
	SPRAY_MIB_TX_THROTTLED,
	SPRAY_MIB_ACK_CARRIED,
	SPRAY_MIB_REFUSED_RESENT,
	SPRAY_MIB_RESUME_TX,
	SPRAY_MIB_RX_TURNS,
	SPRAY_MIB_RX_TURNS_EXPIRED,
	SPRAY_MIB_CLOSED_ACKS,
	SPRAY_MIB_TIMER_FIRES,
	SPRAY_MIB_ANSWER_PROBES,
	SPRAY_MIB_TX_TRAINS,
	SPRAY_MIB_RX_TRAINS,
	SPRAY_MIB_ICMP_ERRORS,
	SPRAY_MIB_PMTU_BLACKHOLES,
	__SPRAY_MIB_MAX
};

/**
 * struct spray_mib - per cpu counters of a namespace
 * @cnt: enum spray_mib_field counters
 * @drops: incoming packets dropped, per enum spray_drop_reason
 */
struct spray_mib {
	u64	cnt[__SPRAY_MIB_MAX];
	u64	drops[__SPRAY_DROP_MAX];
};

/**
 * struct spray_net - per network namespace state
 * @net: the namespace itself
 * @udp_lock: serializes creating and replacing @udp_sock
 * @udp_sock: the UDP socket every AF_SPRAY packet of the namespace arrives
 *	on over IPv4, created with the first bound AF_SPRAY socket; readers
 *	hold rcu_read_lock() (a new udp-port replaces it)
 * @udp6_sock: the same for IPv6 (NULL without IPv6)
 * @udp_bound_port: the port @udp_sock is bound to
 * @port_lock: protects @ports (writers); readers use RCU
 * @ports: bound sockets hashed by spray port
 * @nr_bound: number of bound sockets, for statistics
 * @config_lock: serializes writers of @cfg
 * @cfg: settings
 * @mib: counters
 * @next_conn_id: numbers connections for netlink dumps
 * @nconns: connections of every socket of the namespace, bounded by
 *	SPRAY_MAX_NET_CONNS for those that packets open
 * @nack_rl_lock: protects @nack_rl
 * @nack_rl: NACKs to packets no connection expects, per source address
 * @closed_lock: protects @closed_hash, @closed_list, @nr_closed (a leaf)
 * @closed_hash: closed connections remembered (kernel/timewait.c), by peer
 * @closed_list: the same, oldest first
 * @nr_closed: their number, at most SPRAY_TW_MAX
 */
struct spray_net {
	struct net		*net;
	struct mutex		udp_lock;	/* udp_sock, udp6_sock */
	struct socket __rcu	*udp_sock;
	struct socket __rcu	*udp6_sock;
	u16			udp_bound_port;
	spinlock_t		port_lock;	/* ports, nr_bound */
	struct hlist_head	ports[SPRAY_PORT_HASH_SIZE];
	unsigned int		nr_bound;
	struct mutex		config_lock;	/* writers of cfg */
	struct spray_config	cfg;
	struct spray_mib __percpu *mib;
	atomic_t		next_conn_id;
	atomic_t		nconns;
	spinlock_t		nack_rl_lock;	/* nack_rl */
	struct spray_ratelimit	nack_rl;
	spinlock_t		closed_lock;	/* closed_*, nr_closed */
	struct hlist_head	closed_hash[1 << SPRAY_TW_HASH_BITS];
	struct list_head	closed_list;
	unsigned int		nr_closed;
};

static inline void spray_mib_add(struct spray_net *sn,
				 enum spray_mib_field f, u64 n)
{
	this_cpu_add(sn->mib->cnt[f], n);
}

static inline void spray_mib_inc(struct spray_net *sn, enum spray_mib_field f)
{
	this_cpu_inc(sn->mib->cnt[f]);
}

static inline void spray_mib_drop(struct spray_net *sn, int reason)
{
	if (reason > 0 && reason < __SPRAY_DROP_MAX)
		this_cpu_inc(sn->mib->drops[reason]);
}

/*
 * DATA for a closed socket: the kernel's reason, where it has one for a
 * socket that is closing (6.12), else that there is no socket.
 */
#ifdef SPRAY_HAVE_DROP_SOCKET_CLOSE
#define SPRAY_SKB_DROP_CLOSED	SKB_DROP_REASON_SOCKET_CLOSE
#else
#define SPRAY_SKB_DROP_CLOSED	SKB_DROP_REASON_NO_SOCKET
#endif

/* input.c: count a drop of ours, the kernel's reason to free its skb with */
enum skb_drop_reason spray_drop(struct spray_net *sn, int reason);

/* Sum a namespace's counters over every cpu into @out. */
void spray_mib_read(struct spray_net *sn, struct spray_mib *out);

#define SPRAY_CONN_HASH_BITS	6

/**
 * struct spray_sock - an AF_SPRAY socket
 * @sk: the generic socket, first member
 * @no_pinet6: NULL, where an inet_sock keeps its IPv6 options (pinet6):
 *	the IPv6 output reads the skb's socket as an inet one
 *	(ip6_skb_dst_mtu(), ip6_fragment() through inet6_sk(skb->sk)), and
 *	our packets' skb->sk is this socket, so that it finds no options
 *	(the route's path MTU, no fragment size) instead of reading @sn as
 *	them
 * @sn: spray_net() of the socket's namespace (which outlives it), read
 *	on every packet without net_generic()
 * @bind_node: link in &spray_net.ports while bound
 * @bound: @local is valid and the socket is hashed
 * @local: bound address
 * @lock: protects everything below and the connections; taken with BH off
 * @dead: torn down: no new connections, timers stand down
 * @closing: close() began: nothing more is received (DATA is answered
 *	with NACK NO_CONN), connections only finish sending
 * @orphan: closed, its file gone, connections still delivering what was
 *	queued (SO_LINGER semantics, Documentation/networking/spray.rst)
 * @nlinger: connections with messages still to deliver after close()
 * @flags: SPRAY_SS_* bits (atomic)
 * @linger_work: tears the orphan down once @nlinger reaches zero
 * @conns: connections by peer address (struct spray_conn)
 * @nconns: number of connections
 * @rxq: complete messages waiting for recvmsg (struct spray_rmsg)
 * @rxq_lock: guards @rxq. Those who add to it or flush it hold @lock too
 *	and take this one inside it; recvmsg() and SIOCINQ take it alone,
 *	so that a reader taking a message off the queue does not wait for
 *	the receive path, which holds @lock for a whole train
 * @errq: messages that failed, waiting for recvmsg(MSG_ERRQUEUE) (struct
 *	spray_tmsg)
 * @errq_len: entries in @errq
 * @failing: batches of a failed connection's messages on their way to
 *	@errq (struct spray_failbatch, conn.c)
 * @rconns: connections that receive (a peer incarnation; struct
 *	spray_conn, rnode): what a read opens the windows of
 * @fail_work: reports @failing a few messages at a time, in process
 *	context
 * @tx_bytes: bytes of the messages queued not yet acknowledged (SIOCOUTQ)
 * @rx_extra: what a received packet's skb holds beyond its payload
 *	(truesize - payload), the largest of those it may keep
 *	(spray_rmsg_keep()) lately, and its place in the message's array of
 *	kept skbs (SPRAY_RX_SLOT): a message's admission reserves it per
 *	packet, the credit counts it
 * @rcc: receiver credit shared by the connections sending to us
 * @rx_waiting: connections refused for lack of buffer, in the order of
 *	their refusals (struct spray_conn, wait_node): they take turns
 *	(spray_rx_turns())
 * @rx_turned: those whose turn it is, in the order it came
 * @rx_turns: bytes of receive buffer reserved for them, until their
 *	message is admitted
 * @rx_wants_read: a sender was refused buffer, or waits in line for it,
 *	since a read last opened the windows: the next read does
 *	(spray_sock_rmsg_read())
 * @rx_uncharge: bytes read whose sk_rmem_alloc is given back, their
 *	sk_forward_alloc not yet: done by the next holder of @lock
 *	(spray_sock_uncharge_read())
 * @rx_read_since: bytes read since a read last opened the windows
 * @tsq_conns: connections waiting for what the socket has below it to
 *	drain (struct spray_conn, tsq_node): see spray_tsq_throttled()
 * @tsq_work: sends for them once half of it did (queued by its skbs'
 *	destructor, which hands it a unit of sk_wmem_alloc)
 * @tsq_skbs: DATA and PROBE skbs of the socket below it, not yet freed
 *	or orphaned by the stack (their bytes are in sk_wmem_alloc)
 * @ordered: deliver each peer's messages in the order they were sent
 * @rx_wake: a message became ready while the receive path held @lock:
 *	the reader is woken once it is dropped (spray_rx_batch_unlock()),
 *	not to spin on it while the rest of a train is handled
 * @cc_mode: enum spray_cc_mode of the socket's connections
 */
struct spray_sock {
	struct sock		sk;
	void			*no_pinet6;
	struct spray_net	*sn;
	struct hlist_node	bind_node;
	bool			bound;
	struct spray_addr	local;

	spinlock_t		lock;	/* all below, connections */
	bool			dead;
	bool			closing;
	bool			orphan;
	unsigned int		nlinger;
	unsigned long		flags;
	struct work_struct	linger_work;
	struct hlist_head	conns[1 << SPRAY_CONN_HASH_BITS];
	unsigned int		nconns;
	struct list_head	rxq;
	spinlock_t		rxq_lock;	/* see @rxq_lock above */
	struct list_head	errq;
	unsigned int		errq_len;
	struct list_head	failing;
	struct list_head	rconns;
	struct work_struct	fail_work;
	u32			tx_bytes;
	u32			rx_extra;
	struct spray_rcc	rcc;
	struct list_head	rx_waiting;
	struct list_head	rx_turned;
	u32			rx_turns;
	bool			rx_wants_read;
	atomic_t		rx_uncharge;
	atomic_t		rx_read_since;
	struct list_head	tsq_conns;
	struct work_struct	tsq_work;
	atomic_t		tsq_skbs;
	bool			ordered;
	bool			rx_wake;
	u8			cc_mode;
};

/**
 * struct spray_rx_frag - a fragment of a received message kept in its skb
 * @skb: a reference to the skb (NULL: not kept)
 * @data_off: where the fragment's payload starts, from skb->data
 */
struct spray_rx_frag {
	struct sk_buff	*skb;
	u32		data_off;
};

/**
 * struct spray_rmsg - a message being received, or received
 * @node: in &spray_conn.rmsgs while partial, &spray_sock.rxq when complete
 * @msg_id: the sender's message number
 * @len: message length
 * @got: bytes received so far, each byte once
 * @from: the sender
 * @frag: fragment size, from the first fragment that is not the last one
 *	(0 until known); every fragment but the last has this size and
 *	starts at a multiple of it
 * @last_off: offset of the last fragment if it came before @frag was
 *	known, U32_MAX otherwise
 * @fmap: fragments received, bit i = [i * frag, (i + 1) * frag); NULL
 *	until @frag is known
 * @npages: entries in @pages
 * @pages: the data, page by page, of the fragments copied (those not in
 *	@skbs): the array and its pages allocated as such fragments arrive
 *	(NULL while none did)
 * @nskbs: entries in @skbs (fragments of the grid)
 * @skbs: the received skbs kept as they are, fragment i's in entry i
 *	(a reference to its skb: the packets of a train share one), with
 *	no skb for a fragment not yet received or copied into @pages; NULL
 *	until one is kept
 * @charge: what it costs the receive buffer (sk_rmem_alloc): its pages,
 *	reserved when it is admitted, and its metadata
 * @extra_left: what is left of the reservation for the skbs it keeps
 *	beyond their payload (&spray_sock.rx_extra per packet at admission)
 * @pkts_left: its packets not received yet: its length in fragments of
 *	the largest size the connection had received when it was admitted
 *	(the sender's fragment size, unless that shrank since), less those
 *	received since; what credit the rest of it needs
 * @skipped: not a message: the place of one the receiver refused (longer
 *	than max-msg), so that ordered delivery goes past it
 * @tail_n: fragments the record has room for after it (0: none): a longer
 *	message's @skbs and @fmap lie there when its grid has at most as many
 *	(spray_rmsg_tail_skbs(), spray_rmsg_tail_fmap()), so that a message
 *	is one allocation, not three
 * @data: the data of a message of at most %SPRAY_RX_INLINE bytes, which
 *	has no @pages (spray_rmsg_inline()); else the room of @tail_n
 */
struct spray_rmsg {
	struct list_head	node;
	u32			msg_id;
	u32			len;
	u32			got;
	struct spray_addr	from;
	u32			frag;
	u32			last_off;
	unsigned long		*fmap;
	u32			npages;
	struct page		**pages;
	u32			nskbs;
	struct spray_rx_frag	*skbs;
	u32			charge;
	u32			extra_left;
	u32			pkts_left;
	bool			skipped;
	u8			tail_n;
	u8			data[] __aligned(8);
};

/*
 * At most as many fragments in a received message's record: a 64 KiB
 * message is 47 at MTU 1500 (a record of 1 KiB), 8 at 9000.
 */
#define SPRAY_RX_TAIL_MAX	64

/* the room after a record for @n fragments: kept skbs, then the map */
static inline size_t spray_rmsg_tail_size(u32 n)
{
	return n * sizeof(struct spray_rx_frag) +
	       BITS_TO_LONGS(n) * sizeof(unsigned long);
}

static inline struct spray_rx_frag *spray_rmsg_tail_skbs(struct spray_rmsg *rm)
{
	return (struct spray_rx_frag *)rm->data;
}

static inline unsigned long *spray_rmsg_tail_fmap(struct spray_rmsg *rm)
{
	return (unsigned long *)(rm->data + rm->tail_n *
				 sizeof(struct spray_rx_frag));
}

/*
 * Largest message received into its record (&spray_rmsg.data) rather than
 * pages: one allocation instead of three (record, page array, page), as a
 * sender keeps a short message in its record (SPRAY_TMSG_INLINE). At most
 * %SPRAY_MIN_FRAG: always one fragment.
 */
#define SPRAY_RX_INLINE		256

/* Does @rm's data lie in its record? */
static inline bool spray_rmsg_inline(const struct spray_rmsg *rm)
{
	return rm->len <= SPRAY_RX_INLINE;
}

/*
 * Smallest fragment accepted (but the last of a message): a sender's
 * fragments fill a packet of at least SPRAY_V4_MIN_MTU, the least MTU it
 * cuts its packets to (the kernel's IPv4 routes keep at least
 * net.ipv4.route.min_pmtu, 552 by default, which may be set as low as 68).
 */
#define SPRAY_MIN_FRAG		256
#define SPRAY_V4_MIN_MTU	(SPRAY_MIN_FRAG + SPRAY_DATA_HDR_LEN + 20 + 8)

/*
 * What a socket may have below it: its DATA and PROBE skbs in qdiscs,
 * device rings or a CPU's receive backlog (a veth's), until the stack
 * frees or orphans them (the receiving IP layer, behind a veth). Bytes of
 * truesize, as TCP's tcp_limit_output_bytes bounds a TCP socket, and skbs,
 * as a backlog counts them (netdev_max_backlog). Past either, the
 * socket's connections wait until half of it drained
 * (spray_tsq_throttled()).
 */
#define SPRAY_TSQ_BYTES		SZ_1M
#define SPRAY_TSQ_SKBS		64

/*
 * Smallest fragment whose skb a message keeps instead of copying its
 * payload (spray_rmsg_keep()): below it the copy costs less than the
 * memory the skb would pin.
 */
#define SPRAY_KEEP_MIN		512
/* a kept skb's place in its message's array: kmalloc at most doubles it */
#define SPRAY_RX_SLOT		(2 * sizeof(struct spray_rx_frag))

/* &spray_sock.flags */
#define SPRAY_SS_GONE		0	/* orphan torn down (work or netns exit) */
#define SPRAY_SS_LINGER_DONE	1	/* linger_work queued */
#define SPRAY_SS_TSQ_THROTTLED	2	/* a connection waits on tsq_conns */

static inline struct spray_sock *spray_sk(const struct sock *sk)
{
	return container_of(sk, struct spray_sock, sk);
}

/* netns.c */
struct spray_net *spray_net(const struct net *net);
int spray_netns_init(void);
void spray_netns_exit(void);
int spray_port_bind(struct spray_net *sn, struct spray_sock *ss,
		    const struct spray_addr *addr);
void spray_port_unbind(struct spray_net *sn, struct spray_sock *ss);

/* udp.c */
int spray_udp_get(struct spray_net *sn);
void spray_udp_put_all(struct spray_net *sn);
int spray_udp_rebind(struct spray_net *sn, u16 port, struct socket *old[2]);
void spray_udp_release(struct socket *old[2]);
int spray_udp_xmit(struct spray_net *sn, struct sk_buff *skb);
struct spray_sock *spray_sock_lookup_rcu(struct spray_net *sn, u16 port,
					 const struct spray_addr *daddr);

/* timewait.c */
void spray_tw_init(struct spray_net *sn);
void spray_tw_exit(struct spray_net *sn);

/* conn.c */
int spray_conn_sendmsg(struct spray_sock *ss, const struct spray_addr *to,
		       struct msghdr *msg, size_t len, u64 cookie);
unsigned int spray_sock_close_rx(struct spray_sock *ss, bool drop);
unsigned int spray_sock_linger_wait(struct spray_sock *ss, long timeo);
bool spray_sock_orphan(struct spray_sock *ss);
void spray_sock_init_linger(struct spray_sock *ss);
void spray_sock_teardown(struct spray_sock *ss);
void spray_tsq_work(struct work_struct *work);
void spray_net_kill_orphans(struct spray_net *sn);
int spray_sock_set_ordered(struct spray_sock *ss, bool ordered);
struct spray_tmsg *spray_sock_pop_error(struct spray_sock *ss);
void spray_tmsg_free_error(struct spray_sock *ss, struct spray_tmsg *m);
void spray_conn_rcv(struct spray_net *sn, struct sk_buff *skb,
		    const struct spray_addr *from,
		    const struct spray_addr *to, bool ce);
struct spray_hdr;
void spray_conn_icmp_err(struct spray_net *sn, const struct spray_addr *local,
			 const struct spray_addr *peer,
			 const struct spray_hdr *hdr, int err, bool fatal,
			 u32 frag);
int spray_conn_init(void);
void spray_conn_exit(void);
void spray_sock_rmsg_read(struct spray_sock *ss, struct spray_rmsg *rm);
void spray_sock_set_cc_mode(struct spray_sock *ss, u8 mode);
bool spray_sock_wspace(const struct sock *sk);
void spray_rmsg_free(struct spray_sock *ss, struct spray_rmsg *rm);
int spray_rmsg_copy(const struct spray_rmsg *rm, struct iov_iter *to, u32 len);

/* af_spray.c */
int spray_af_init(void);
void spray_af_exit(void);
void spray_af_exit_proto(void);
int spray_addr_from_user(const struct sockaddr *uaddr, int len,
			 struct spray_addr *out);
int spray_addr_to_user(const struct spray_addr *a, struct sockaddr_spray *sa);

/* addr helpers */
static inline bool spray_addr_is_any(const struct spray_addr *a)
{
	if (a->af == AF_INET)
		return a->v6.s6_addr32[3] == 0;
	return ipv6_addr_any(&a->v6);
}

#endif /* _SPRAY_H */

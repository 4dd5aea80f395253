/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY tracepoints (perf, bpftrace, tracefs: "spray:*"). See
 * Documentation/networking/spray.rst, "Observability".
 *
 * Every event of a connection names it: @conn is the id of the peers dump
 * (sprayctl peers), @peer the peer's address and spray port (printed as
 * ADDR:PORT), @raddr the same address as 16 bytes (IPv4 v4-mapped, for
 * bpftrace's ntop()). psns, message ids and entropy values (UDP source
 * ports) are those of the wire (spray-wire.rst).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM spray

#if !defined(_TRACE_SPRAY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SPRAY_H

#include <linux/tracepoint.h>
#include <linux/in6.h>

#include "conn.h"

/* The peer's fields of an event: conn.c fills them (spray_trace_peer()). */
#define SPRAY_TP_PEER							\
	__field(u32, conn)						\
	__field(u16, rport)						\
	__array(u8, raddr, 16)						\
	__array(u8, peer, sizeof(struct sockaddr_in6))

#define SPRAY_TP_PEER_FMT	"conn=%u peer=%pISpc"
#define SPRAY_TP_PEER_ARGS	__entry->conn, __entry->peer

void spray_trace_peer(u8 *sa, u8 *raddr, u16 *rport,
		      const struct spray_addr *a);

#define SPRAY_TP_PEER_ASSIGN(id, a)					\
	do {								\
		__entry->conn = (id);					\
		spray_trace_peer(__entry->peer, __entry->raddr,		\
				 &__entry->rport, (a));			\
	} while (0)

TRACE_DEFINE_ENUM(SPRAY_LOSS_RACK);
TRACE_DEFINE_ENUM(SPRAY_LOSS_NACK);
TRACE_DEFINE_ENUM(SPRAY_LOSS_RTO);
TRACE_DEFINE_ENUM(SPRAY_LOSS_REFUSED);

#define spray_show_cause(why)						\
	__print_symbolic(why,						\
			 { SPRAY_LOSS_RACK, "rack" },			\
			 { SPRAY_LOSS_NACK, "nack" },			\
			 { SPRAY_LOSS_RTO, "rto" },			\
			 { SPRAY_LOSS_REFUSED, "refused" })

TRACE_DEFINE_ENUM(SPRAY_NACK_LOSS);
TRACE_DEFINE_ENUM(SPRAY_NACK_WINDOW);
TRACE_DEFINE_ENUM(SPRAY_NACK_NO_CONN);
TRACE_DEFINE_ENUM(SPRAY_NACK_NO_BUF);
TRACE_DEFINE_ENUM(SPRAY_NACK_MSG_SIZE);
TRACE_DEFINE_ENUM(SPRAY_NACK_RESUME);

#define spray_show_nack(reason)						\
	__print_symbolic(reason,					\
			 { SPRAY_NACK_LOSS, "loss" },			\
			 { SPRAY_NACK_WINDOW, "window" },		\
			 { SPRAY_NACK_NO_CONN, "no_conn" },		\
			 { SPRAY_NACK_NO_BUF, "no_buf" },		\
			 { SPRAY_NACK_MSG_SIZE, "msg_size" },		\
			 { SPRAY_NACK_RESUME, "resume" })

/* why an ACK went: SPRAY_RXACK_* of rxwin.h, and these */
#define SPRAY_TRACE_ACK_COUNT	0x100	/* ack-every packets arrived */
#define SPRAY_TRACE_ACK_DELAY	0x200	/* the oldest waited ack-delay-us */
#define SPRAY_TRACE_ACK_CREDIT	0x400	/* the application read: more credit */
#define SPRAY_TRACE_ACK_CARRIED	0x800	/* carried by DATA (ack-carried) */

#define spray_show_ack_why(why)						\
	__print_flags(why, "|",						\
		      { SPRAY_RXACK_SYN, "syn" },			\
		      { SPRAY_RXACK_DUP, "dup" },			\
		      { SPRAY_RXACK_CE, "ce" },				\
		      { SPRAY_RXACK_REQ, "req" },			\
		      { SPRAY_RXACK_FILL, "fill" },			\
		      { SPRAY_RXACK_MORE, "more" },			\
		      { SPRAY_TRACE_ACK_COUNT, "count" },		\
		      { SPRAY_TRACE_ACK_DELAY, "delay" },		\
		      { SPRAY_TRACE_ACK_CREDIT, "credit" },		\
		      { SPRAY_TRACE_ACK_CARRIED, "carried" })

/* A message events: queued by sendmsg(), fully acknowledged, received. */
DECLARE_EVENT_CLASS(spray_msg_class,

	TP_PROTO(const struct spray_conn *c, u32 msg_id, u32 len, u64 cookie),

	TP_ARGS(c, msg_id, len, cookie),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, msg_id)
		__field(u32, len)
		__field(u64, cookie)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->msg_id = msg_id;
		__entry->len = len;
		__entry->cookie = cookie;
	),

	TP_printk(SPRAY_TP_PEER_FMT " msg_id=%u len=%u cookie=%llu",
		  SPRAY_TP_PEER_ARGS, __entry->msg_id, __entry->len,
		  __entry->cookie)
);

/* sendmsg() queued a message to the peer */
DEFINE_EVENT(spray_msg_class, spray_msg_sent,
	TP_PROTO(const struct spray_conn *c, u32 msg_id, u32 len, u64 cookie),
	TP_ARGS(c, msg_id, len, cookie)
);

/* the peer acknowledged every byte of a message (tx-msgs) */
DEFINE_EVENT(spray_msg_class, spray_msg_delivered,
	TP_PROTO(const struct spray_conn *c, u32 msg_id, u32 len, u64 cookie),
	TP_ARGS(c, msg_id, len, cookie)
);

/* a message from the peer is complete and goes to the socket (rx-msgs) */
DEFINE_EVENT(spray_msg_class, spray_msg_received,
	TP_PROTO(const struct spray_conn *c, u32 msg_id, u32 len, u64 cookie),
	TP_ARGS(c, msg_id, len, cookie)
);

/*
 * A message will not be delivered (msg-failed): the errno and what the
 * transport saw for it (the SPRAY_CMSG_HISTORY of its error-queue entry).
 */
TRACE_EVENT(spray_msg_failed,

	TP_PROTO(u32 conn, const struct spray_addr *peer,
		 const struct spray_tmsg *m, int err, u32 ack_age_us),

	TP_ARGS(conn, peer, m, err, ack_age_us),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, msg_id)
		__field(u32, len)
		__field(u64, cookie)
		__field(int, err)
		__field(u32, retx)
		__field(u16, nacks)
		__field(u16, rtos)
		__field(u32, ack_age_us)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(conn, peer);
		__entry->msg_id = m->msg_id;
		__entry->len = m->len;
		__entry->cookie = m->cookie;
		__entry->err = err;
		__entry->retx = m->hist.retx[0] + m->hist.retx[1] +
				m->hist.retx[2] + m->hist.retx[3];
		__entry->nacks = m->hist.nacks;
		__entry->rtos = m->hist.rtos;
		__entry->ack_age_us = ack_age_us;
	),

	TP_printk(SPRAY_TP_PEER_FMT " msg_id=%u len=%u cookie=%llu err=%d retx=%u nacks=%u rtos=%u ack_age_us=%u",
		  SPRAY_TP_PEER_ARGS, __entry->msg_id, __entry->len,
		  __entry->cookie, __entry->err, __entry->retx,
		  __entry->nacks, __entry->rtos, __entry->ack_age_us)
);

/* A DATA packet declared lost (lost-pkts, lost-rack/nack/rto). */
TRACE_EVENT(spray_pkt_lost,

	TP_PROTO(const struct spray_conn *c, u32 psn,
		 const struct spray_txrec *rec, u8 why),

	TP_ARGS(c, psn, rec, why),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, psn)
		__field(u32, msg_id)
		__field(u32, frag_off)
		__field(u16, ev)
		__field(u8, retx)
		__field(u8, cause)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->psn = psn;
		__entry->msg_id = rec->msg_id;
		__entry->frag_off = rec->frag_off;
		__entry->ev = rec->ev < c->path.cfg.n ?
			      spray_path_port(&c->path, rec->ev) : 0;
		__entry->retx = rec->retx;
		__entry->cause = why;
	),

	TP_printk(SPRAY_TP_PEER_FMT " psn=%u msg_id=%u frag_off=%u ev=%u retx=%u cause=%s",
		  SPRAY_TP_PEER_ARGS, __entry->psn, __entry->msg_id,
		  __entry->frag_off, __entry->ev, __entry->retx,
		  spray_show_cause(__entry->cause))
);

/*
 * A DATA packet sent again (retx-pkts), with why it was declared lost,
 * the entropy value that lost it and the one it goes on now.
 */
TRACE_EVENT(spray_retransmit,

	TP_PROTO(const struct spray_conn *c, u32 psn,
		 const struct spray_txrec *rec, u16 old_ev, u16 ev),

	TP_ARGS(c, psn, rec, old_ev, ev),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, psn)
		__field(u32, msg_id)
		__field(u32, frag_off)
		__field(u16, old_ev)
		__field(u16, ev)
		__field(u8, retx)
		__field(u8, cause)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->psn = psn;
		__entry->msg_id = rec->msg_id;
		__entry->frag_off = rec->frag_off;
		__entry->old_ev = old_ev;
		__entry->ev = ev;
		__entry->retx = rec->retx;
		__entry->cause = rec->why;
	),

	TP_printk(SPRAY_TP_PEER_FMT " psn=%u msg_id=%u frag_off=%u old_ev=%u ev=%u retx=%u cause=%s",
		  SPRAY_TP_PEER_ARGS, __entry->psn, __entry->msg_id,
		  __entry->frag_off, __entry->old_ev, __entry->ev,
		  __entry->retx, spray_show_cause(__entry->cause))
);

/* An entropy value went down, or a probe brought it up (path-down/up). */
TRACE_EVENT(spray_ev_state,

	TP_PROTO(const struct spray_conn *c, u16 idx, bool up),

	TP_ARGS(c, idx, up),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u16, ev)
		__field(u16, idx)
		__field(bool, up)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->ev = spray_path_port(&c->path, idx);
		__entry->idx = idx;
		__entry->up = up;
	),

	TP_printk(SPRAY_TP_PEER_FMT " ev=%u idx=%u state=%s",
		  SPRAY_TP_PEER_ARGS, __entry->ev, __entry->idx,
		  __entry->up ? "up" : "down")
);

/*
 * The retransmission timeout: what it declared lost. @probe: not the
 * timer's expiry but the ACK an answer probe asked for, which acknowledged
 * nothing new (the expiry itself sent spray_rto_probe).
 */
TRACE_EVENT(spray_rto,

	TP_PROTO(const struct spray_conn *c, u32 lost, u64 rto_ns, bool probe),

	TP_ARGS(c, lost, rto_ns, probe),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, una)
		__field(u32, inflight)
		__field(u32, lost)
		__field(u32, rto_us)
		__field(u8, backoff)
		__field(bool, probe)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->una = c->tw.una;
		__entry->inflight = c->tw.inflight;
		__entry->lost = lost;
		__entry->rto_us = (u32)min_t(u64, div_u64(rto_ns, 1000), U32_MAX);
		__entry->backoff = c->tw.backoff;
		__entry->probe = probe;
	),

	TP_printk(SPRAY_TP_PEER_FMT " una=%u inflight=%u lost=%u rto_us=%u backoff=%u cause=%s",
		  SPRAY_TP_PEER_ARGS, __entry->una, __entry->inflight,
		  __entry->lost, __entry->rto_us, __entry->backoff,
		  __entry->probe ? "probe" : "timer")
);

/*
 * The retransmission timer expired while the peer answers our data
 * (SPRAY_CAP_ANSWER_PROBE): a PROBE went to ask for the ACK its answer
 * would have carried, and nothing was declared lost yet. @una and
 * @inflight: what waits for that ACK.
 */
TRACE_EVENT(spray_rto_probe,

	TP_PROTO(const struct spray_conn *c, u64 rto_ns),

	TP_ARGS(c, rto_ns),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, una)
		__field(u32, inflight)
		__field(u32, rto_us)
		__field(u8, backoff)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->una = c->tw.una;
		__entry->inflight = c->tw.inflight;
		__entry->rto_us = (u32)min_t(u64, div_u64(rto_ns, 1000), U32_MAX);
		__entry->backoff = c->tw.backoff;
	),

	TP_printk(SPRAY_TP_PEER_FMT " una=%u inflight=%u rto_us=%u backoff=%u",
		  SPRAY_TP_PEER_ARGS, __entry->una, __entry->inflight,
		  __entry->rto_us, __entry->backoff)
);

/*
 * How the connection's packets meet the path MTU changed: an ICMP Packet
 * Too Big (or Fragmentation Needed) about them, or the MTU of its routes,
 * moved their payload from @old to @frag (the messages that start from
 * now on are cut to it); or (@old == @frag, @df false) its IPv4 packets
 * leave without DF from now on, a path MTU black hole suspected. @df: its
 * packets are sent with DF where they fit the route (IPv6's always are).
 */
TRACE_EVENT(spray_path_mtu,

	TP_PROTO(const struct spray_conn *c, u32 old, u32 frag, bool df),

	TP_ARGS(c, old, frag, df),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, old)
		__field(u32, frag)
		__field(bool, df)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->old = old;
		__entry->frag = frag;
		__entry->df = df;
	),

	TP_printk(SPRAY_TP_PEER_FMT " old=%u frag=%u df=%d",
		  SPRAY_TP_PEER_ARGS, __entry->old, __entry->frag, __entry->df)
);

/* The sender's congestion window changed (bytes). */
TRACE_EVENT(spray_cwnd,

	TP_PROTO(const struct spray_conn *c, u32 old_cwnd),

	TP_ARGS(c, old_cwnd),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, cwnd)
		__field(u32, old_cwnd)
		__field(u32, inflight)
		__field(u32, srtt_us)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->cwnd = c->nscc.cwnd;
		__entry->old_cwnd = old_cwnd;
		__entry->inflight = c->tw.inflight;
		__entry->srtt_us = c->tw.srtt_ns / 1000;
	),

	TP_printk(SPRAY_TP_PEER_FMT " cwnd=%u old=%u inflight=%u srtt_us=%u",
		  SPRAY_TP_PEER_ARGS, __entry->cwnd, __entry->old_cwnd,
		  __entry->inflight, __entry->srtt_us)
);

/*
 * Receiver credit moved: the grant (a psn: the sender may send the psns
 * before it) the peer gave us (dir=tx), or that we give the peer (dir=rx);
 * @credit is how far it is beyond what was sent (tx) or received (rx).
 */
TRACE_EVENT(spray_credit,

	TP_PROTO(const struct spray_conn *c, bool rx, u32 grant, u32 old,
		 u32 credit),

	TP_ARGS(c, rx, grant, old, credit),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, grant)
		__field(u32, old)
		__field(u32, credit)
		__field(bool, rx)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->grant = grant;
		__entry->old = old;
		__entry->credit = credit;
		__entry->rx = rx;
	),

	TP_printk(SPRAY_TP_PEER_FMT " dir=%s grant=%u old=%u credit=%u",
		  SPRAY_TP_PEER_ARGS, __entry->rx ? "rx" : "tx",
		  __entry->grant, __entry->old, __entry->credit)
);

/* An ACK built for the peer (ack-tx), and why it went now. */
TRACE_EVENT(spray_ack_sent,

	TP_PROTO(const struct spray_conn *c, const struct spray_ack *ack,
		 u16 why),

	TP_ARGS(c, ack, why),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, cum_psn)
		__field(u32, sack_base)
		__field(u64, sack)
		__field(u64, ecn)
		__field(u32, grant)
		__field(u16, why)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(c->id, &c->remote);
		__entry->cum_psn = ack->cum_psn;
		__entry->sack_base = ack->sack_base;
		__entry->sack = ack->sack;
		__entry->ecn = ack->ecn;
		__entry->grant = ack->grant_psn;
		__entry->why = why;
	),

	TP_printk(SPRAY_TP_PEER_FMT " cum=%u sack_base=%u sack=%#llx ecn=%#llx grant=%u why=%s",
		  SPRAY_TP_PEER_ARGS, __entry->cum_psn, __entry->sack_base,
		  __entry->sack, __entry->ecn, __entry->grant,
		  spray_show_ack_why(__entry->why))
);

/*
 * A NACK built for the peer, with its reason; @conn 0: an answer to a
 * packet no connection expects (NO_CONN, not counted in nack-tx).
 */
TRACE_EVENT(spray_nack_sent,

	TP_PROTO(u32 conn, const struct spray_addr *peer, u32 psn, u16 count,
		 u8 reason),

	TP_ARGS(conn, peer, psn, count, reason),

	TP_STRUCT__entry(
		SPRAY_TP_PEER
		__field(u32, psn)
		__field(u16, count)
		__field(u8, reason)
	),

	TP_fast_assign(
		SPRAY_TP_PEER_ASSIGN(conn, peer);
		__entry->psn = psn;
		__entry->count = count;
		__entry->reason = reason;
	),

	TP_printk(SPRAY_TP_PEER_FMT " psn=%u count=%u reason=%s",
		  SPRAY_TP_PEER_ARGS, __entry->psn, __entry->count,
		  spray_show_nack(__entry->reason))
);

#endif /* _TRACE_SPRAY_H */

/*
 * Out of tree: define_trace.h includes this file again through
 * TRACE_INCLUDE_PATH, which must find the module's include/trace/events
 * and not the kernel's. Kbuild puts that directory first on the quote
 * search path of the one file that defines CREATE_TRACE_POINTS
 * (kernel/trace.c), so "./spray.h" is this file, not kernel/spray.h.
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE spray

#include <trace/define_trace.h>

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY congestion control, signalled by both ends: an NSCC-like sender
 * window (ECN + queueing delay) and receiver credit (grants, as Homa and
 * RCCC). Integer arithmetic only.
 */
#ifndef _SPRAY_CC_H
#define _SPRAY_CC_H

#include "core.h"
#include "txwin.h"

/**
 * enum spray_cc_mode - which end limits the sender
 * @SPRAY_CC_OFF: neither (window and ring limits only).
 * @SPRAY_CC_SENDER: the sender's NSCC window only.
 * @SPRAY_CC_RECEIVER: the receiver's grants only.
 * @SPRAY_CC_BOTH: both (default).
 */
enum spray_cc_mode {
	SPRAY_CC_OFF,
	SPRAY_CC_SENDER,
	SPRAY_CC_RECEIVER,
	SPRAY_CC_BOTH,
};

/*
 * The per-peer BDP before anything is learned, and its floor: 100 Gbit/s x
 * 20 us, a data-centre fabric's (never above bdp_bytes, the cap).
 */
#define SPRAY_CC_BDP_INIT	(256U * 1024)

/*
 * Receiver credit among many senders (spray_rcc_grant_rcvd()): a share of
 * the BDP below a train of SPRAY_RCC_TRAIN packets grows towards one, as
 * long as all the shares together stay within SPRAY_RCC_OVERCOMMIT BDPs
 * and each within one (Homa grants to several messages at once for the
 * same reason, each at most RTTbytes). A
 * sender granted a packet or two at a time sends a packet or two per
 * ACK: sixteen senders at MTU 9000 had an ACK for every 1.7 packets.
 */
#define SPRAY_RCC_TRAIN		8U
#define SPRAY_RCC_OVERCOMMIT	4U

/* shortest window of a delivery-rate sample, ns */
#define SPRAY_CC_RATE_WIN_MIN_NS	100000U

/* sample windows per epoch of the windowed maximum of a rate */
#define SPRAY_CC_RATE_EPOCH	8

/**
 * struct spray_cc_cfg - congestion control tunables (per namespace)
 * @mode: enum spray_cc_mode.
 * @mtu: payload bytes of a full packet (default 4096).
 * @base_rtt_ns: unloaded RTT; 0 = use the measured minimum (default 0).
 * @target_ns: queueing delay target; 0 = the base RTT (default 0).
 * @bdp_bytes: the cap of every per-peer bandwidth-delay product (the
 *	namespace's bdp-bytes; default 256 KiB here, the kernel's is larger).
 *	A peer's BDP is learned: its delivery rate times its min RTT.
 * @bdp_min: a peer's BDP before it is learned, and its floor (default
 *	min(SPRAY_CC_BDP_INIT, bdp_bytes)).
 * @min_cwnd: smallest window, bytes (default 1 mtu).
 * @max_cwnd: largest window, bytes (default 1.5 bdp_bytes); a connection's
 *	window is also at most 1.5 times its peer's BDP.
 * @init_cwnd: first window, bytes (default bdp_min).
 * @unsched_pkts: packets a new incarnation may send before any grant
 *	(default 16).
 * @rcv_bdp_bytes: the receiver keeps at least about this many bytes
 *	granted and not yet received per peer BDP, shared among its active
 *	senders (default bdp_min; more for a peer whose BDP is learned larger).
 */
struct spray_cc_cfg {
	u8	mode;
	u32	mtu;
	u32	base_rtt_ns;
	u32	target_ns;
	u32	bdp_bytes;
	u32	bdp_min;
	u32	min_cwnd;
	u32	max_cwnd;
	u32	init_cwnd;
	u32	unsched_pkts;
	u32	rcv_bdp_bytes;
};

/**
 * struct spray_rate - a windowed maximum of a byte rate
 * @max: the largest sample of this epoch, bytes per 2^20 ns (about 1 ms).
 * @prev: that of the previous epoch; the rate is the larger of the two, so
 *	a sample counts for one to two epochs.
 * @start_ns: the current sample window's start (0: none open).
 * @sent_ns: sender: the send time of the newest packet acknowledged at
 *	@start_ns (a burst of ACKs cannot pass for a rate the sender never
 *	sent at).
 * @bytes: bytes counted in the window.
 * @win_ns: the window's length (at least SPRAY_CC_RATE_WIN_MIN_NS).
 * @n: windows closed in this epoch.
 */
struct spray_rate {
	u32	max;
	u32	prev;
	u64	start_ns;
	u64	sent_ns;
	u64	bytes;
	u32	win_ns;
	u8	n;
};

/**
 * struct spray_nscc - sender window of one connection
 * @cwnd: window in bytes.
 * @avg_delay_ns: EWMA of the queueing delay (RTT - base RTT).
 * @last_md_ns: time of the last multiplicative decrease.
 * @undo_cwnd: the window before the last RTO halved it (0: none to undo).
 * @md: multiplicative decreases.
 * @inc_prop: proportional increases.
 * @inc_fair: fair increases.
 * @bdp: the peer's BDP now, bytes: delivery rate x min RTT within
 *	[bdp_min, bdp_bytes]; the window is at most 1.5 times it.
 * @rate: the delivery rate, from the ACKs.
 */
struct spray_nscc {
	u32	cwnd;
	u32	bdp;
	struct spray_rate rate;
	u32	avg_delay_ns;
	u64	last_md_ns;
	u32	undo_cwnd;
	u64	md;
	u64	inc_prop;
	u64	inc_fair;
};

/**
 * struct spray_rcc - receiver credit state of one receiving socket
 * @nactive: connections with a message incomplete now
 *	(spray_rcc_set_active()).
 * @rate: the rate at which the socket received, all senders together.
 */
struct spray_rcc {
	u32	nactive;
	struct spray_rate rate;
};

/**
 * struct spray_rcc_conn - receiver credit of one incoming connection
 * @grant: last grant psn advertised (never decreases).
 * @active: counted in spray_rcc.nactive.
 * @rtt_ns: the sender's min RTT, from its DATA (0: not known).
 */
struct spray_rcc_conn {
	u32	grant;
	bool	active;
	u32	rtt_ns;
};

void spray_cc_cfg_default(struct spray_cc_cfg *cfg);
int spray_cc_cfg_check(struct spray_cc_cfg *cfg);
void spray_nscc_init(struct spray_nscc *cc, const struct spray_cc_cfg *cfg);
void spray_nscc_on_ack(struct spray_nscc *cc, const struct spray_cc_cfg *cfg,
		       const struct spray_txack_sum *sum, u32 min_rtt_ns,
		       u64 now_ns);
void spray_nscc_on_loss(struct spray_nscc *cc, const struct spray_cc_cfg *cfg,
			enum spray_loss_why why, u64 now_ns);
void spray_nscc_on_spurious(struct spray_nscc *cc,
			    const struct spray_cc_cfg *cfg,
			    enum spray_loss_why why);
u32 spray_nscc_cwnd_pkts(const struct spray_nscc *cc,
			 const struct spray_cc_cfg *cfg);
u32 spray_nscc_max_cwnd(const struct spray_nscc *cc,
			const struct spray_cc_cfg *cfg);
u32 spray_rate_get(const struct spray_rate *r);
u32 spray_bdp(u64 rate, u32 rtt_ns, u32 lo, u32 hi);
u32 spray_rcc_initial_grant(const struct spray_cc_cfg *cfg, u32 isn);
void spray_rcc_conn_init(struct spray_rcc_conn *c,
			 const struct spray_cc_cfg *cfg, u32 isn);
void spray_rcc_activate(struct spray_rcc *r, struct spray_rcc_conn *c);
void spray_rcc_deactivate(struct spray_rcc *r, struct spray_rcc_conn *c);
void spray_rcc_set_active(struct spray_rcc *r, struct spray_rcc_conn *c,
			  bool active);
void spray_rcc_on_data(struct spray_rcc *r, struct spray_rcc_conn *c,
		       u32 bytes, u16 min_rtt, u64 now_ns);
u32 spray_rcc_bdp(const struct spray_rcc *r, const struct spray_rcc_conn *c,
		  const struct spray_cc_cfg *cfg);
u32 spray_rcc_grant_rcvd(const struct spray_rcc *r, struct spray_rcc_conn *c,
			 const struct spray_cc_cfg *cfg, u32 cum_psn, u32 rcvd,
			 u32 rcvbuf_free);
u32 spray_rcc_grant_rx(const struct spray_rcc *r, struct spray_rcc_conn *c,
		       const struct spray_cc_cfg *cfg, u32 cum_psn, u32 high,
		       u32 refused_top, u32 rcvbuf_free);
u32 spray_rcc_grant(const struct spray_rcc *r, struct spray_rcc_conn *c,
		    const struct spray_cc_cfg *cfg, u32 cum_psn,
		    u32 rcvbuf_free);

#endif /* _SPRAY_CC_H */

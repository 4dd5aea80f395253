/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY entropy (path) choice for one peer: a set of EVs (UDP source
 * ports), sprayed evenly, with per-EV feedback: avoid after loss or ECN,
 * down after repeated loss, re-probe with backoff.
 */
#ifndef _SPRAY_PATH_H
#define _SPRAY_PATH_H

#include "core.h"

#define SPRAY_PATH_DEF_EVS	32
#define SPRAY_PATH_MAX_EVS	256

/**
 * enum spray_ev_state - state of one EV
 * @SPRAY_EV_ACTIVE: used in turn.
 * @SPRAY_EV_AVOIDED: skipped until avoid_until_ns (loss or ECN on it).
 * @SPRAY_EV_DOWN: down_thresh consecutive losses; only probes use it.
 */
enum spray_ev_state {
	SPRAY_EV_ACTIVE,
	SPRAY_EV_AVOIDED,
	SPRAY_EV_DOWN,
};

/**
 * struct spray_ev - one entropy value and its feedback (caller storage)
 * @port: the UDP source port.
 * @state: enum spray_ev_state.
 * @consec_loss: losses since the last ack on this EV (saturates at 255).
 * @avoid_until_ns: AVOIDED until then.
 * @probe_at_ns: DOWN: time of the next probe.
 * @probe_gap_ns: DOWN: current probe interval (doubles, capped).
 * @tx: packets sent (probes and retransmissions included).
 * @acked: packets acked.
 * @lost: packets declared lost.
 * @ecn: packets acked CE-marked.
 * @retx: retransmissions sent.
 * @probes: probes sent while DOWN.
 * @downs: transitions to DOWN.
 */
struct spray_ev {
	u16	port;
	u8	state;
	u8	consec_loss;
	u64	avoid_until_ns;
	u64	probe_at_ns;
	u32	probe_gap_ns;
	u64	tx;
	u64	acked;
	u64	lost;
	u64	ecn;
	u64	retx;
	u64	probes;
	u32	downs;
};

/**
 * struct spray_path_cfg - path choice tunables
 * @n: number of EVs, 1..SPRAY_PATH_MAX_EVS (default 32).
 * @port_lo: lowest UDP source port (default 49152).
 * @port_hi: highest UDP source port (default 65535); range >= @n.
 * @down_thresh: consecutive losses that make an EV DOWN (default 3).
 * @avoid_loss_ns: avoid time after a loss, doubled per consecutive loss
 *	(default 200 us).
 * @avoid_ecn_ns: avoid time after a CE-marked ack (default 50 us).
 * @probe_min_ns: first probe of a DOWN EV after this (default 1 ms).
 * @probe_max_ns: probe interval cap (default 64 ms).
 */
struct spray_path_cfg {
	u16	n;
	u16	port_lo;
	u16	port_hi;
	u8	down_thresh;
	u32	avoid_loss_ns;
	u32	avoid_ecn_ns;
	u32	probe_min_ns;
	u32	probe_max_ns;
};

/**
 * struct spray_path - EV set of one peer
 * @cfg: tunables.
 * @evs: caller storage, @cfg.n entries.
 * @rng: xorshift32 state for the round permutations.
 * @pos: next position in @order.
 * @n_down: EVs DOWN.
 * @next_probe_ns: earliest probe_at_ns among DOWN EVs.
 * @order: the current round's permutation of EV indexes.
 * @rounds: permutations drawn.
 * @fallbacks: picks that found no ACTIVE EV.
 */
struct spray_path {
	struct spray_path_cfg cfg;
	struct spray_ev *evs;
	u32	rng;
	u16	pos;
	u16	n_down;
	u64	next_probe_ns;
	u8	order[SPRAY_PATH_MAX_EVS];
	u64	rounds;
	u64	fallbacks;
};

void spray_path_cfg_default(struct spray_path_cfg *cfg);
int spray_path_init(struct spray_path *p, struct spray_ev *evs,
		    const struct spray_path_cfg *cfg, u32 seed);
int spray_path_pick(struct spray_path *p, u64 now_ns, int avoid,
		    bool *probe);
void spray_path_on_ack(struct spray_path *p, u16 idx, bool ce, u64 now_ns);
void spray_path_on_acks(struct spray_path *p, u16 idx, u32 n);
void spray_path_on_loss(struct spray_path *p, u16 idx, u64 now_ns);
void spray_path_penalize(struct spray_path *p, u16 idx, u32 ns,
			 u64 now_ns);

static inline u16 spray_path_port(const struct spray_path *p, u16 idx)
{
	return p->evs[idx].port;
}

static inline const struct spray_ev *spray_path_ev(const struct spray_path *p,
						   u16 idx)
{
	return idx < p->cfg.n ? &p->evs[idx] : NULL;
}

#endif /* _SPRAY_PATH_H */

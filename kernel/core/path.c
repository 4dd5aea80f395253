// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY path (EV) choice.
 *
 * Spraying: EVs are used round robin over a permutation drawn anew every
 * round (EQDS), so every good EV carries the same share and successive
 * rounds do not repeat a pattern. An EV that lost a packet or returned a
 * CE-marked ack is skipped for a while (AVOIDED, the penalty decays with
 * time); consecutive losses lengthen the avoidance and after down_thresh of
 * them the EV is DOWN: it carries only probes, spaced by a doubling,
 * capped interval, and the first ack on it makes it ACTIVE again. Many EVs
 * hash onto one physical path; when that path dies, each of its EVs loses
 * its packets in flight, is avoided at once and is DOWN after down_thresh
 * attempts, within a few RTOs.
 */
#include "path.h"

/**
 * spray_path_cfg_default() - fill the default path tunables
 * @cfg: to fill
 */
void spray_path_cfg_default(struct spray_path_cfg *cfg)
{
	cfg->n = SPRAY_PATH_DEF_EVS;
	cfg->port_lo = 49152;
	cfg->port_hi = 65535;
	cfg->down_thresh = 3;
	cfg->avoid_loss_ns = 200000;
	cfg->avoid_ecn_ns = 50000;
	cfg->probe_min_ns = 1000000;
	cfg->probe_max_ns = 64000000;
}

static void path_shuffle(struct spray_path *p)
{
	u32 i, j;
	u8 t;

	/* Fisher-Yates */
	for (i = p->cfg.n - 1; i > 0; i--) {
		j = spray_prng_below(&p->rng, i + 1);
		t = p->order[i];
		p->order[i] = p->order[j];
		p->order[j] = t;
	}
	p->pos = 0;
	p->rounds++;
}

/**
 * spray_path_init() - draw the EV set of a peer
 * @p: state to initialise
 * @evs: caller storage for cfg->n EVs
 * @cfg: tunables, copied; NULL for defaults
 * @seed: random seed (0 is replaced)
 *
 * The port range is cut into n equal strata and one port is drawn in each:
 * the EVs are distinct and spread over the range.
 *
 * Return: 0, or -EINVAL for n out of range, a port range smaller than n or
 * including port 0.
 */
int spray_path_init(struct spray_path *p, struct spray_ev *evs,
		    const struct spray_path_cfg *cfg, u32 seed)
{
	u32 i, range, lo, hi;

	memset(p, 0, sizeof(*p));
	if (cfg)
		p->cfg = *cfg;
	else
		spray_path_cfg_default(&p->cfg);
	if (!p->cfg.n || p->cfg.n > SPRAY_PATH_MAX_EVS || !p->cfg.port_lo ||
	    p->cfg.port_hi < p->cfg.port_lo)
		return -EINVAL;
	range = (u32)p->cfg.port_hi - p->cfg.port_lo + 1;
	if (range < p->cfg.n)
		return -EINVAL;
	if (!p->cfg.down_thresh)
		p->cfg.down_thresh = 1;
	if (!p->cfg.probe_min_ns)
		p->cfg.probe_min_ns = 1;
	if (p->cfg.probe_max_ns < p->cfg.probe_min_ns)
		p->cfg.probe_max_ns = p->cfg.probe_min_ns;

	p->evs = evs;
	p->rng = seed ? seed : 0x9e3779b9;
	memset(evs, 0, sizeof(*evs) * p->cfg.n);
	for (i = 0; i < p->cfg.n; i++) {
		lo = range * i / p->cfg.n;
		hi = range * (i + 1) / p->cfg.n;
		evs[i].port = (u16)(p->cfg.port_lo + lo +
				    spray_prng_below(&p->rng, hi - lo));
		p->order[i] = (u8)i;
	}
	path_shuffle(p);
	p->rounds = 0;
	return 0;
}

static void path_recompute_probe(struct spray_path *p)
{
	u64 next = U64_MAX;
	u32 i;

	for (i = 0; i < p->cfg.n; i++)
		if (p->evs[i].state == SPRAY_EV_DOWN)
			next = min(next, p->evs[i].probe_at_ns);
	p->next_probe_ns = next;
}

/* 0 = ACTIVE, 2 = AVOIDED, 4 = DOWN; +1 for the EV to avoid */
static u32 path_badness(struct spray_path *p, u32 idx, u64 now_ns, int avoid)
{
	struct spray_ev *ev = &p->evs[idx];
	u32 bad = 0;

	if (ev->state == SPRAY_EV_AVOIDED && now_ns >= ev->avoid_until_ns)
		ev->state = SPRAY_EV_ACTIVE;
	if (ev->state == SPRAY_EV_AVOIDED)
		bad = 2;
	else if (ev->state == SPRAY_EV_DOWN)
		bad = 4;
	if ((int)idx == avoid)
		bad++;
	return bad;
}

/**
 * spray_path_pick() - choose the EV of the next packet
 * @p: EV set
 * @now_ns: current time
 * @avoid: for a retransmission, the EV index that lost the packet (used
 *	only if nothing else as good is left); -1 for a first transmission
 * @probe: set to true if the pick is a DOWN EV's probe: the caller sends
 *	the packet with SPRAY_F_ACK_REQ (or a PROBE) and feeds back its ack
 *
 * A DOWN EV whose probe time has come is returned first (once per probe
 * interval), for first transmissions only: a retransmission never rides a
 * probe, or a packet could exhaust its retries on a dead path. Otherwise
 * the next EV of the round's permutation that is ACTIVE; if none is, the
 * first of the least bad (AVOIDED before DOWN) from the current position,
 * so the load still spreads.
 *
 * Return: the EV index; spray_path_port() gives the UDP source port.
 */
int spray_path_pick(struct spray_path *p, u64 now_ns, int avoid,
		    bool *probe)
{
	u32 n = p->cfg.n, i, idx, bad, best = 0, best_bad = U32_MAX;
	u32 best_pos = 0;
	struct spray_ev *ev;

	*probe = false;
	if (avoid < 0 && p->n_down && now_ns >= p->next_probe_ns) {
		for (i = 0; i < n; i++) {
			ev = &p->evs[i];
			if (ev->state != SPRAY_EV_DOWN ||
			    now_ns < ev->probe_at_ns)
				continue;
			ev->probe_at_ns = now_ns + ev->probe_gap_ns;
			ev->probe_gap_ns = min_t(u64, ev->probe_gap_ns * 2ULL,
						 p->cfg.probe_max_ns);
			ev->probes++;
			ev->tx++;
			path_recompute_probe(p);
			*probe = true;
			return (int)i;
		}
	}

	for (i = 0; i < n; i++) {
		u32 pos = (p->pos + i) % n;

		idx = p->order[pos];
		bad = path_badness(p, idx, now_ns, avoid);
		if (bad < best_bad) {
			best_bad = bad;
			best = idx;
			best_pos = pos;
			if (!bad)
				break;
		}
	}
	if (best_bad > 1)
		p->fallbacks++;
	p->pos = (u16)(best_pos + 1);
	if (p->pos >= n)
		path_shuffle(p);
	ev = &p->evs[best];
	ev->tx++;
	if (avoid >= 0)
		ev->retx++;
	return (int)best;
}

/**
 * spray_path_on_ack() - a packet sent on an EV was acked
 * @p: EV set
 * @idx: EV index
 * @ce: the packet arrived CE-marked
 * @now_ns: current time
 *
 * Clears the EV's consecutive losses and makes a DOWN EV ACTIVE; a CE mark
 * avoids the EV for cfg.avoid_ecn_ns.
 */
void spray_path_on_ack(struct spray_path *p, u16 idx, bool ce, u64 now_ns)
{
	if (idx >= p->cfg.n)
		return;
	spray_path_on_acks(p, idx, 1);
	if (ce) {
		p->evs[idx].ecn++;
		spray_path_penalize(p, idx, p->cfg.avoid_ecn_ns, now_ns);
	}
}

/**
 * spray_path_on_acks() - packets sent on an EV were acked, none CE-marked
 * @p: EV set
 * @idx: EV index
 * @n: how many (a train's)
 *
 * As @n calls of spray_path_on_ack() without CE.
 */
void spray_path_on_acks(struct spray_path *p, u16 idx, u32 n)
{
	struct spray_ev *ev;

	if (idx >= p->cfg.n || !n)
		return;
	ev = &p->evs[idx];
	ev->acked += n;
	ev->consec_loss = 0;
	if (ev->state == SPRAY_EV_DOWN) {
		ev->state = SPRAY_EV_ACTIVE;
		p->n_down--;
		path_recompute_probe(p);
	}
}

/**
 * spray_path_on_loss() - a packet sent on an EV was declared lost
 * @p: EV set
 * @idx: EV index
 * @now_ns: current time
 *
 * Avoids the EV for avoid_loss_ns << (consecutive losses - 1), or makes
 * it DOWN at cfg.down_thresh consecutive losses (first probe after
 * cfg.probe_min_ns).
 */
void spray_path_on_loss(struct spray_path *p, u16 idx, u64 now_ns)
{
	struct spray_ev *ev;
	u32 shift;

	if (idx >= p->cfg.n)
		return;
	ev = &p->evs[idx];
	ev->lost++;
	if (ev->consec_loss < 255)
		ev->consec_loss++;
	if (ev->state == SPRAY_EV_DOWN)
		return;
	if (ev->consec_loss >= p->cfg.down_thresh) {
		ev->state = SPRAY_EV_DOWN;
		ev->downs++;
		ev->probe_gap_ns = p->cfg.probe_min_ns;
		ev->probe_at_ns = now_ns + ev->probe_gap_ns;
		p->n_down++;
		path_recompute_probe(p);
		return;
	}
	shift = min_t(u32, ev->consec_loss - 1, 10);
	spray_path_penalize(p, idx, p->cfg.avoid_loss_ns << shift, now_ns);
}

/**
 * spray_path_penalize() - avoid an EV for a while
 * @p: EV set
 * @idx: EV index
 * @ns: how long (extends, never shortens, a current avoidance)
 * @now_ns: current time
 *
 * Also for the caller's own signals, e.g. an RTT sample far above srtt.
 */
void spray_path_penalize(struct spray_path *p, u16 idx, u32 ns, u64 now_ns)
{
	struct spray_ev *ev;

	if (idx >= p->cfg.n)
		return;
	ev = &p->evs[idx];
	if (ev->state == SPRAY_EV_DOWN)
		return;
	if (ev->state != SPRAY_EV_AVOIDED || ev->avoid_until_ns < now_ns + ns)
		ev->avoid_until_ns = now_ns + ns;
	ev->state = SPRAY_EV_AVOIDED;
}

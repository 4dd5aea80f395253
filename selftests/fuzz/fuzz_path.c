// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_path: entropy (path) choice (path.c) with an arbitrary configuration
 * and arbitrary feedback: picks for first transmissions and for
 * retransmissions (avoiding an EV), acks with and without CE, losses,
 * penalties, EV indexes out of range, and time moving in small and huge
 * steps.
 *
 * Checks:
 * - a configuration is refused exactly when it is invalid; otherwise the
 *   EVs are distinct ports inside [port_lo, port_hi], never 0;
 * - every pick is a valid index; a probe only for a first transmission,
 *   on an EV that is DOWN and due; otherwise the pick is one of the best
 *   EVs available (ACTIVE before AVOIDED before DOWN, the EV to avoid last
 *   among equals), and with every EV ACTIVE it is the next one of the
 *   round's permutation;
 * - the permutation is always a permutation of 0..n-1, pos < n;
 * - n_down counts the DOWN EVs, next_probe_ns is their earliest probe;
 *   probe intervals stay within [probe_min, probe_max];
 * - feedback on an index out of range changes nothing.
 */
#include "path.h"
#include "fuzz.h"

#define TIME_MAX	(1ULL << 62)

static struct spray_path P;
static struct spray_ev evs[SPRAY_PATH_MAX_EVS];
static struct spray_ev evs_copy[SPRAY_PATH_MAX_EVS];
static u64 now;

static u32 badness(u32 i, int avoid)
{
	const struct spray_ev *ev = &evs[i];
	u32 bad = 0;

	if (ev->state == SPRAY_EV_AVOIDED && now < ev->avoid_until_ns)
		bad = 2;
	else if (ev->state == SPRAY_EV_DOWN)
		bad = 4;
	return bad + ((int)i == avoid);
}

static void check_path(void)
{
	u32 n = P.cfg.n, i, down = 0;
	u64 next = U64_MAX;
	u8 seen[SPRAY_PATH_MAX_EVS] = {0};

	FZ_CHECK(P.pos < n, "pos %u n %u", P.pos, n);
	for (i = 0; i < n; i++) {
		FZ_CHECK(P.order[i] < n && !seen[P.order[i]]++,
			 "order is not a permutation at %u", i);
		FZ_CHECK(evs[i].state <= SPRAY_EV_DOWN, "EV %u state %u", i,
			 evs[i].state);
		if (evs[i].state == SPRAY_EV_DOWN) {
			down++;
			next = min(next, evs[i].probe_at_ns);
			FZ_CHECK(evs[i].probe_gap_ns >= P.cfg.probe_min_ns &&
				 evs[i].probe_gap_ns <= P.cfg.probe_max_ns,
				 "EV %u probe gap %u", i, evs[i].probe_gap_ns);
		}
		FZ_CHECK(evs[i].acked + evs[i].lost <= U64_MAX / 2, "counters");
	}
	FZ_CHECK(P.n_down == down, "n_down %u, DOWN EVs %u", P.n_down, down);
	if (down)
		FZ_CHECK(P.next_probe_ns == next, "next probe %llu, earliest %llu",
			 (unsigned long long)P.next_probe_ns,
			 (unsigned long long)next);
}

static void pick(struct fz *f)
{
	u8 a = fz_u8(f);
	int avoid = a & 0x80 ? -1 : (int)(fz_u16(f) % (P.cfg.n + 4));
	u32 n = P.cfg.n, i, best = U32_MAX, all_active = 1;
	u16 pos = P.pos;
	u8 next_in_order = P.order[P.pos];
	bool probe, due = false;
	u64 tx;
	int idx;

	for (i = 0; i < n; i++) {
		best = min(best, badness(i, avoid));
		if (badness(i, -1))
			all_active = 0;
		if (evs[i].state == SPRAY_EV_DOWN && now >= evs[i].probe_at_ns)
			due = true;
	}
	idx = spray_path_pick(&P, now, avoid, &probe);
	FZ_CHECK(idx >= 0 && (u32)idx < n, "picked %d of %u", idx, n);
	tx = evs[idx].tx;
	FZ_CHECK(tx > 0, "pick not counted");
	if (probe) {
		FZ_CHECK(avoid < 0, "probe for a retransmission");
		FZ_CHECK(evs[idx].state == SPRAY_EV_DOWN, "probe on EV %d state %u",
			 idx, evs[idx].state);
		FZ_CHECK(evs[idx].probe_at_ns > now, "probe rescheduled at %llu",
			 (unsigned long long)evs[idx].probe_at_ns);
		return;
	}
	FZ_CHECK(avoid >= 0 || !due, "a probe was due and none was sent");
	FZ_CHECK(badness((u32)idx, avoid) == best,
		 "picked EV %d of badness %u, best %u", idx,
		 badness((u32)idx, avoid), best);
	if (all_active && avoid < 0)
		FZ_CHECK(idx == next_in_order, "picked %d, permutation says %u at %u",
			 idx, next_in_order, pos);
}

static void feedback(struct fz *f, u8 op)
{
	u16 idx = fz_u16(f) % (P.cfg.n + 8);
	bool valid = idx < P.cfg.n;
	struct spray_path before;
	u32 ns = fz_u32(f);

	memcpy(&before, &P, sizeof(before));
	memcpy(evs_copy, evs, sizeof(evs));
	switch (op) {
	case PATH_ACK:
		spray_path_on_ack(&P, idx, ns & 1, now);
		if (valid)
			FZ_CHECK(evs[idx].state != SPRAY_EV_DOWN &&
				 !evs[idx].consec_loss, "ack left EV %u down", idx);
		break;
	case PATH_LOSS:
		spray_path_on_loss(&P, idx, now);
		if (valid && evs_copy[idx].state != SPRAY_EV_DOWN)
			FZ_CHECK(evs[idx].state != SPRAY_EV_ACTIVE ||
				 !P.cfg.avoid_loss_ns,
				 "EV %u still ACTIVE after a loss", idx);
		break;
	default:
		spray_path_penalize(&P, idx, ns, now);
		if (valid && evs_copy[idx].state != SPRAY_EV_DOWN)
			FZ_CHECK(evs[idx].state == SPRAY_EV_AVOIDED &&
				 evs[idx].avoid_until_ns >= now + ns,
				 "penalty on EV %u", idx);
		break;
	}
	if (!valid)
		FZ_CHECK(!memcmp(&before, &P, sizeof(P)) &&
			 !memcmp(evs_copy, evs, sizeof(evs)),
			 "feedback on index %u of %u changed something", idx,
			 P.cfg.n);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fz f = { .p = data, .n = size };
	struct spray_path_cfg cfg;
	u32 seed, i, j, range;
	bool bad;
	u8 op;

	memset(&P, 0, sizeof(P));
	memset(evs, 0, sizeof(evs));
	spray_path_cfg_default(&cfg);
	op = fz_u8(&f);
	if (op & 1) {
		cfg.n = fz_u16(&f) % (SPRAY_PATH_MAX_EVS + 2);
		cfg.port_lo = fz_u16(&f);
		cfg.port_hi = fz_u16(&f);
	} else {
		cfg.n = fz_u8(&f) + 1;
	}
	if (op & 2) {
		cfg.down_thresh = fz_u8(&f);
		cfg.avoid_loss_ns = fz_u32(&f);
		cfg.avoid_ecn_ns = fz_u32(&f);
		cfg.probe_min_ns = fz_u32(&f);
		cfg.probe_max_ns = fz_u32(&f);
	}
	seed = fz_u32(&f);
	/* ktime: never 0, below 2^62 */
	now = op & 4 ? fz_u64(&f) >> (fz_u8(&f) % 62 + 2) | 1 :
	      fz_u32(&f) + 1ULL;

	range = cfg.port_hi >= cfg.port_lo ? cfg.port_hi - cfg.port_lo + 1U : 0;
	bad = !cfg.n || cfg.n > SPRAY_PATH_MAX_EVS || !cfg.port_lo ||
	      range < cfg.n;
	if (spray_path_init(&P, evs, &cfg, seed)) {
		FZ_CHECK(bad, "valid config refused: n %u ports %u-%u", cfg.n,
			 cfg.port_lo, cfg.port_hi);
		return 0;
	}
	FZ_CHECK(!bad, "invalid config accepted: n %u ports %u-%u", cfg.n,
		 cfg.port_lo, cfg.port_hi);
	for (i = 0; i < P.cfg.n; i++) {
		FZ_CHECK(evs[i].port >= cfg.port_lo && evs[i].port <= cfg.port_hi &&
			 evs[i].port, "EV %u port %u", i, evs[i].port);
		FZ_CHECK(spray_path_port(&P, (u16)i) == evs[i].port &&
			 spray_path_ev(&P, (u16)i) == &evs[i], "accessors");
		for (j = 0; j < i; j++)
			FZ_CHECK(evs[i].port != evs[j].port, "EVs %u and %u share %u",
				 i, j, evs[i].port);
	}
	FZ_CHECK(!spray_path_ev(&P, P.cfg.n), "EV beyond n");
	check_path();

	while (fz_more(&f)) {
		op = fz_u8(&f);
		switch (op % __PATH_MAX) {
		case PATH_PICK:
			pick(&f);
			break;
		case PATH_ACK:
		case PATH_LOSS:
		case PATH_PENALIZE:
			feedback(&f, op % __PATH_MAX);
			break;
		case PATH_TIME:
			/* time: small steps or huge jumps, never back */
			if (op & 0x80)
				now += fz_u64(&f) >> (fz_u8(&f) % 62 + 2);
			else
				now += (u64)fz_u16(&f) << (fz_u8(&f) % 16);
			/* below 2^62 ns (146 years): no u64 wrap in now + x */
			now = min_t(u64, now, TIME_MAX);
			break;
		}
		check_path();
	}
	return 0;
}

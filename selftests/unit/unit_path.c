// SPDX-License-Identifier: GPL-2.0
#include "path.h"
#include "test.h"

static struct spray_ev evs[SPRAY_PATH_MAX_EVS];
static struct spray_path p;

static int pick(u64 now)
{
	bool probe;

	return spray_path_pick(&p, now, -1, &probe);
}

TEST(spray_path_init__distinct_ports_in_range)
{
	struct spray_path_cfg cfg;
	u32 i, j;

	spray_path_cfg_default(&cfg);
	cfg.n = 256;
	cfg.port_lo = 60000;
	cfg.port_hi = 60255;				/* exactly n ports */
	EXPECT_EQ(spray_path_init(&p, evs, &cfg, 7), 0);
	for (i = 0; i < 256; i++) {
		EXPECT(evs[i].port >= 60000 && evs[i].port <= 60255);
		for (j = 0; j < i; j++)
			EXPECT(evs[i].port != evs[j].port);
	}
	cfg.port_hi = 60254;
	EXPECT_EQ(spray_path_init(&p, evs, &cfg, 7), -EINVAL);
	cfg.n = 0;
	EXPECT_EQ(spray_path_init(&p, evs, &cfg, 7), -EINVAL);
	cfg.n = 257;
	EXPECT_EQ(spray_path_init(&p, evs, &cfg, 7), -EINVAL);
	EXPECT_EQ(spray_path_init(&p, evs, NULL, 0), 0);
	EXPECT_EQ(p.cfg.n, 32);
	EXPECT(evs[0].port >= 49152);
}

TEST(spray_path_pick__spreads_evenly)
{
	u32 count[32] = { 0 }, i, prev = 99, repeats = 0;
	int idx;

	spray_path_init(&p, evs, NULL, 1234);
	for (i = 0; i < 32 * 1000; i++) {
		idx = pick(i);
		EXPECT(idx >= 0 && idx < 32);
		count[idx]++;
		repeats += (u32)idx == prev;
		prev = idx;
	}
	for (i = 0; i < 32; i++) {
		EXPECT(count[i] >= 950 && count[i] <= 1050);
		EXPECT_EQ(evs[i].tx, count[i]);
	}
	EXPECT(repeats < 100);
	EXPECT(p.rounds >= 999);
}

TEST(spray_path_pick__avoids_lossy_ev)
{
	u32 i, hits = 0;

	spray_path_init(&p, evs, NULL, 5);
	spray_path_on_loss(&p, 3, 1000);
	EXPECT_EQ(evs[3].state, SPRAY_EV_AVOIDED);
	for (i = 0; i < 320; i++)
		hits += pick(1000 + i) == 3;
	EXPECT_EQ(hits, 0);
	/* penalty decays: back in use after avoid_loss_ns */
	for (i = 0; i < 320; i++)
		hits += pick(1000 + 200000 + i) == 3;
	EXPECT(hits >= 8);
	EXPECT_EQ(evs[3].state, SPRAY_EV_ACTIVE);
	/* ECN also avoids, for less time */
	spray_path_on_ack(&p, 4, true, 500000);
	EXPECT_EQ(evs[4].state, SPRAY_EV_AVOIDED);
	EXPECT_EQ(evs[4].avoid_until_ns, 550000);
	EXPECT_EQ(evs[4].ecn, 1);
}

TEST(spray_path_on_loss__down_then_probe_restores)
{
	u32 i, down_picks = 0, probes = 0;
	bool probe;
	int idx;

	spray_path_init(&p, evs, NULL, 9);
	spray_path_on_loss(&p, 7, 0);
	spray_path_on_loss(&p, 7, 10);
	EXPECT_EQ(evs[7].state, SPRAY_EV_AVOIDED);
	EXPECT_EQ(evs[7].avoid_until_ns, 10 + 400000);	/* doubled */
	spray_path_on_loss(&p, 7, 20);
	EXPECT_EQ(evs[7].state, SPRAY_EV_DOWN);
	EXPECT_EQ(p.n_down, 1);
	/* never chosen before its probe time, 1 ms */
	for (i = 0; i < 999; i++)
		down_picks += pick(20 + i * 1000) == 7;
	EXPECT_EQ(down_picks, 0);
	idx = spray_path_pick(&p, 1000020, -1, &probe);
	EXPECT_EQ(idx, 7);
	EXPECT(probe);
	/* one probe per interval; interval doubled */
	for (i = 0; i < 100; i++) {
		idx = spray_path_pick(&p, 1000021 + i, -1, &probe);
		probes += probe;
	}
	EXPECT_EQ(probes, 0);
	EXPECT_EQ(evs[7].probe_at_ns, 1000020 + 1000000);
	EXPECT_EQ(evs[7].probe_gap_ns, 2000000);
	/* probe lost: next probe 1 ms later, then 2 ms */
	idx = spray_path_pick(&p, 2000020, -1, &probe);
	EXPECT(probe && idx == 7);
	EXPECT_EQ(evs[7].probe_at_ns, 2000020 + 2000000);
	spray_path_on_ack(&p, 7, false, 2100000);
	EXPECT_EQ(evs[7].state, SPRAY_EV_ACTIVE);
	EXPECT_EQ(p.n_down, 0);
	EXPECT_EQ(evs[7].probes, 2);
	EXPECT_EQ(evs[7].downs, 1);
}

TEST(spray_path_on_loss__probe_gap_capped)
{
	struct spray_path_cfg cfg;
	u64 now = 0;
	bool probe;
	int i;

	spray_path_cfg_default(&cfg);
	cfg.n = 4;
	cfg.probe_max_ns = 4000000;
	spray_path_init(&p, evs, &cfg, 3);
	for (i = 0; i < 3; i++)
		spray_path_on_loss(&p, 0, 0);
	for (i = 0; i < 10; i++) {
		now = evs[0].probe_at_ns;
		EXPECT_EQ(spray_path_pick(&p, now, -1, &probe), 0);
		EXPECT(probe);
	}
	EXPECT_EQ(evs[0].probe_gap_ns, 4000000);
	EXPECT_EQ(evs[0].probe_at_ns - now, 4000000);
}

TEST(spray_path_pick__retx_prefers_other_ev)
{
	bool probe;
	u32 i;

	spray_path_init(&p, evs, NULL, 11);
	for (i = 0; i < 1000; i++)
		EXPECT(spray_path_pick(&p, i, 5, &probe) != 5);
	EXPECT_EQ(evs[5].tx, 0);
	/* single EV: the avoided one is still used */
	evs[0].retx = 0;
	p.cfg.n = 1;
	p.pos = 0;
	p.order[0] = 0;
	EXPECT_EQ(spray_path_pick(&p, 0, 0, &probe), 0);
	EXPECT_EQ(evs[0].retx, 1);
}

TEST(spray_path_pick__all_bad_still_spreads)
{
	u32 count[32] = { 0 }, i;

	spray_path_init(&p, evs, NULL, 77);
	for (i = 0; i < 32; i++)
		spray_path_on_ack(&p, i, true, 0);	/* all avoided */
	for (i = 0; i < 3200; i++)
		count[pick(1)]++;
	for (i = 0; i < 32; i++)
		EXPECT(count[i] >= 90 && count[i] <= 110);
	EXPECT(p.fallbacks == 3200);
	/* all but one down: only that one (and probes) */
	spray_path_init(&p, evs, NULL, 78);
	for (i = 1; i < 32; i++) {
		spray_path_on_loss(&p, i, 0);
		spray_path_on_loss(&p, i, 0);
		spray_path_on_loss(&p, i, 0);
	}
	for (i = 0; i < 100; i++)
		EXPECT_EQ(pick(100 + i), 0);
}

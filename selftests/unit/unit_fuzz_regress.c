// SPDX-License-Identifier: GPL-2.0
/*
 * Regression tests of bugs found by the fuzz harnesses (selftests/fuzz),
 * each reduced to the API calls that showed it. The crashing inputs
 * themselves are replayed by `make -C selftests/fuzz check` from
 * selftests/fuzz/regress/<harness>/.
 */
#include "path.h"
#include "test.h"

/*
 * fuzz_path, regress/fuzz_path/crash-876af0cb...: the probe interval of a
 * DOWN EV doubled in u32 (min_t(u32, gap * 2ULL, max)), so a gap of 2^31 ns
 * or more wrapped to a small value, below probe_min_ns: the EV was then
 * probed far more often than configured.
 */
TEST(spray_path_pick__probe_gap_doubling_does_not_wrap)
{
	struct spray_ev evs[4];
	struct spray_path_cfg cfg;
	struct spray_path p;
	bool probe;
	int idx;

	spray_path_cfg_default(&cfg);
	cfg.n = 4;
	cfg.down_thresh = 1;
	cfg.probe_min_ns = 3000000000U;
	cfg.probe_max_ns = 4000000000U;
	EXPECT_EQ(spray_path_init(&p, evs, &cfg, 1), 0);

	spray_path_on_loss(&p, 2, 1000);
	EXPECT_EQ(evs[2].state, SPRAY_EV_DOWN);
	EXPECT_EQ(evs[2].probe_gap_ns, 3000000000U);

	idx = spray_path_pick(&p, 1000 + 3000000000ULL, -1, &probe);
	EXPECT(probe);
	EXPECT_EQ(idx, 2);
	/* doubled to 6 s, capped at probe_max_ns */
	EXPECT_EQ(evs[2].probe_gap_ns, 4000000000U);
	EXPECT_EQ(evs[2].probe_at_ns, 1000 + 6000000000ULL);

	/* the next probe is not due before then */
	idx = spray_path_pick(&p, 1000 + 6000000000ULL - 1, -1, &probe);
	EXPECT(!probe);
	idx = spray_path_pick(&p, 1000 + 6000000000ULL, -1, &probe);
	EXPECT(probe);
	EXPECT_EQ(idx, 2);
	EXPECT_EQ(evs[2].probe_gap_ns, 4000000000U);
}

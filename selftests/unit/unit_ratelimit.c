// SPDX-License-Identifier: GPL-2.0
#include "ratelimit.h"
#include "test.h"

static struct spray_ratelimit rl;

#define SEC	1000000000ULL

TEST(spray_rl_allow__burst_then_rate)
{
	u32 src[4] = { 1, 2, 3, 4 };
	u32 i, n = 0;

	spray_rl_init(&rl, 10, 5, 0x1234);
	for (i = 0; i < 100; i++)
		n += spray_rl_allow(&rl, src, 4, SEC);
	EXPECT_EQ(n, 5);		/* the burst */
	EXPECT_EQ(rl.denied, 95);
	/* a second later: rate answers more, never more than the burst */
	for (i = 0, n = 0; i < 100; i++)
		n += spray_rl_allow(&rl, src, 4, 2 * SEC);
	EXPECT_EQ(n, 5);
	/* a tenth of a second: one */
	for (i = 0, n = 0; i < 100; i++)
		n += spray_rl_allow(&rl, src, 4, 2 * SEC + SEC / 10);
	EXPECT_EQ(n, 1);
}

TEST(spray_rl_allow__sources_apart)
{
	u32 a[4] = { 10, 0, 0, 1 }, b[4] = { 10, 0, 0, 2 };
	u32 i, na = 0, nb = 0, buckets = 0;

	spray_rl_init(&rl, 1, 3, 99);
	for (i = 0; i < 10; i++)
		na += spray_rl_allow(&rl, a, 4, 5 * SEC);
	EXPECT_EQ(na, 3);
	/* another source has its own budget (unless it hashes alike) */
	for (i = 0; i < 10; i++)
		nb += spray_rl_allow(&rl, b, 4, 5 * SEC);
	EXPECT(nb == 3 || nb == 0);
	/* many sources spread over the buckets */
	spray_rl_init(&rl, 1, 1, 7);
	for (i = 0; i < 1000; i++) {
		u32 k[4] = { 0, 0, 0, i };

		buckets += spray_rl_allow(&rl, k, 4, SEC);
	}
	EXPECT(buckets > SPRAY_RL_BUCKETS / 2);
	EXPECT(buckets <= SPRAY_RL_BUCKETS);
}

TEST(spray_rl_allow__clock_going_back_or_far)
{
	u32 src[1] = { 5 };

	spray_rl_init(&rl, 1000, 2, 1);
	EXPECT(spray_rl_allow(&rl, src, 1, 100 * SEC));
	EXPECT(spray_rl_allow(&rl, src, 1, 100 * SEC));
	EXPECT(!spray_rl_allow(&rl, src, 1, 100 * SEC));
	/* time going backwards earns nothing */
	EXPECT(!spray_rl_allow(&rl, src, 1, 50 * SEC));
	/* years later: full, not overflowed */
	EXPECT(spray_rl_allow(&rl, src, 1, ~0ULL / 2));
	EXPECT(spray_rl_allow(&rl, src, 1, ~0ULL / 2));
	EXPECT(!spray_rl_allow(&rl, src, 1, ~0ULL / 2));
}

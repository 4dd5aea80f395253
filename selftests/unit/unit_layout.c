// SPDX-License-Identifier: GPL-2.0
#include "layout.h"
#include "wire.h"
#include "test.h"

#define HDR SPRAY_DATA_HDR_LEN

/*
 * The model: lay a message of @len bytes out slot by slot, one byte at a
 * time, and check every helper against where each byte went.
 */
static int check_layout(u32 len, u32 frag)
{
	static int where[200000];
	u32 pos = 0, off, f, run;

	for (off = 0; off < len; off++) {
		if (frag && off % frag == 0) {
			/* a slot begins: its header first */
			if (spray_layout_slot(off, frag, HDR) != pos)
				return -1;
			pos += HDR;
		}
		where[off] = (int)pos++;
	}
	if (spray_layout_space(len, frag, HDR) != pos)
		return -2;
	for (off = 0; off < len; off++) {
		if (spray_layout_pos(off, frag, HDR) != (u32)where[off])
			return -3;
		run = spray_layout_run(off, len, frag);
		if (!run || off + run > len)
			return -4;
		/* a run is back to back, and ends where the next slot begins */
		for (f = 1; f < run; f++)
			if (where[off + f] != where[off] + (int)f)
				return -5;
		if (off + run < len && where[off + run] == where[off] + (int)run)
			return -6;
	}
	return 0;
}

TEST(spray_layout__packed_is_the_identity)
{
	EXPECT_EQ(check_layout(70000, 0), 0);
	EXPECT_EQ(spray_layout_space(70000, 0, HDR), 70000);
	EXPECT_EQ(spray_layout_run(5, 70000, 0), 69995);
}

TEST(spray_layout__slots_at_mtu_1500_and_9000)
{
	/* whole fragments, a short last one, one byte past a fragment */
	EXPECT_EQ(check_layout(1424 * 46, 1424), 0);
	EXPECT_EQ(check_layout(65536, 1424), 0);
	EXPECT_EQ(check_layout(1424 + 1, 1424), 0);
	EXPECT_EQ(check_layout(65536, 8924), 0);
	EXPECT_EQ(check_layout(1, 8924), 0);
	/* 46 fragments of 1424 bytes: 46 headers more */
	EXPECT_EQ(spray_layout_space(1424 * 46, 1424, HDR), 1424 * 46 + 46 * HDR);
	EXPECT_EQ(spray_layout_space(1424 * 46 + 1, 1424, HDR),
		  1424 * 46 + 1 + 47 * HDR);
}

TEST(spray_layout__a_train_is_one_run)
{
	const u32 frag = 1424, len = 65536;
	u32 first = spray_layout_slot(3 * frag, frag, HDR);
	u32 last = spray_layout_slot(10 * frag, frag, HDR);

	/* packets 3..9 (header and payload each): 7 segments back to back */
	EXPECT_EQ(last - first, 7 * (HDR + frag));
	EXPECT_EQ(spray_layout_pos(3 * frag, frag, HDR), first + HDR);
	EXPECT_EQ(spray_layout_run(3 * frag, len, frag), frag);
	EXPECT_EQ(spray_layout_run(3 * frag + 100, len, frag), frag - 100);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY protocol core: a shim so that the kernel-API-free protocol logic
 * (pkt.c, rxwin.c, txwin.c, path.c, cc.c) compiles both into the module and
 * into userspace unit tests (selftests/unit).
 *
 * Rules for core files: include only this header, wire.h and their own
 * headers; no allocation (the caller provides storage), no locking, no clock
 * (the caller passes now_ns), no randomness (the caller passes seeds), no
 * floating point, no 64-bit division except through spray_div_u64() and
 * spray_div64_u64().
 */
#ifndef _SPRAY_CORE_H
#define _SPRAY_CORE_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/build_bug.h>
#include <asm/byteorder.h>

#define spray_div_u64(n, d)	div_u64(n, d)
#define spray_div64_u64(n, d)	div64_u64(n, d)
#define spray_ffs64(x)		__ffs64(x)
#define spray_hweight64(x)	hweight64(x)

#else /* userspace unit tests */

#include "core_user.h"

#endif /* __KERNEL__ */

/*
 * 32-bit sequence space (PSNs, message ids, grants) with wraparound, as TCP's
 * before()/after(): a is before b if b - a, as a signed 32-bit value, is
 * positive. Valid while the two values are less than 2^31 apart.
 */
static inline bool spray_psn_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool spray_psn_after(u32 a, u32 b)
{
	return (s32)(b - a) < 0;
}

static inline bool spray_psn_before_eq(u32 a, u32 b)
{
	return (s32)(a - b) <= 0;
}

static inline bool spray_psn_after_eq(u32 a, u32 b)
{
	return (s32)(b - a) <= 0;
}

/* a <= psn < b in sequence space (b - a must be below 2^31) */
static inline bool spray_psn_in(u32 psn, u32 a, u32 b)
{
	return psn - a < b - a;
}

/*
 * A 64-psn range's bitmap (bit i: psn @base + i, as in an ACK's SACK):
 * the bits of its psns before @psn.
 */
static inline u64 spray_psn_bits_before(u32 base, u32 psn)
{
	s32 n = (s32)(psn - base);

	if (n <= 0)
		return 0;
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

static inline u32 spray_min3_u32(u32 a, u32 b, u32 c)
{
	return min(min(a, b), c);
}

/* xorshift32: the core's only PRNG, state must be non-zero */
static inline u32 spray_prng_next(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* uniform value in [0, n) without division (Lemire's multiply-shift) */
static inline u32 spray_prng_below(u32 *state, u32 n)
{
	return (u32)(((u64)spray_prng_next(state) * n) >> 32);
}

#endif /* _SPRAY_CORE_H */

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

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>
#include <endian.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;

#define cpu_to_be16(x)	htobe16(x)
#define cpu_to_be32(x)	htobe32(x)
#define cpu_to_be64(x)	htobe64(x)
#define be16_to_cpu(x)	be16toh(x)
#define be32_to_cpu(x)	be32toh(x)
#define be64_to_cpu(x)	be64toh(x)

#define min(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); \
			   _a < _b ? _a : _b; })
#define max(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); \
			   _a > _b ? _a : _b; })
#define min_t(t, a, b)	({ t _a = (a); t _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b)	({ t _a = (a); t _b = (b); _a > _b ? _a : _b; })
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), "BUILD_BUG_ON: " #cond)
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define __packed	__attribute__((packed))
#ifndef fallthrough
#define fallthrough	__attribute__((__fallthrough__))
#endif

#define spray_div_u64(n, d)	((u64)(n) / (u32)(d))
#define spray_div64_u64(n, d)	((u64)(n) / (u64)(d))
#define spray_ffs64(x)		((unsigned int)__builtin_ctzll(x))
#define spray_hweight64(x)	((unsigned int)__builtin_popcountll(x))

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

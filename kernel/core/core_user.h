/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY protocol core, built outside the kernel (the unit tests and
 * fuzzers in selftests/unit): the few kernel types and helpers the core
 * uses, from the C library. Included by core.h only.
 *
 * make style checks this file apart and allows what a userspace stand-in
 * for kernel headers needs: C99 types behind the kernel's names
 * (PREFER_KERNEL_TYPES), min()/max() written as the kernel's own
 * (MACRO_ARG_REUSE), _Static_assert (CAMELCASE) and the definition of
 * __packed (PREFER_DEFINED_ATTRIBUTE_MACRO).
 */
#ifndef _SPRAY_CORE_USER_H
#define _SPRAY_CORE_USER_H

#ifdef __KERNEL__
#error "core_user.h is the core's userspace shim: include core.h"
#endif

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

#endif /* _SPRAY_CORE_USER_H */

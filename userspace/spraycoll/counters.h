/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spraycoll: hook for transport counters read around each size, e.g.
 * AF_SPRAY statistics over generic netlink (libnl-genl-3, later). Only the
 * no-op source exists now; a reader fills struct counters_sample with named
 * monotonic counters and spraycoll reports the per-size deltas.
 */
#ifndef _SPRAYCOLL_COUNTERS_H
#define _SPRAYCOLL_COUNTERS_H

#include <stdint.h>

#define COUNTERS_MAX 32

struct counters_sample {
	int n;
	const char *name[COUNTERS_MAX];
	uint64_t val[COUNTERS_MAX];
};

struct counters_src {
	const char *name;
	/* returns a context (may be NULL for "nothing to read") */
	void *(*open)(const char *arg);
	/* 0 and a sample (n may be 0), or -errno */
	int (*sample)(void *ctx, struct counters_sample *s);
	void (*close)(void *ctx);
};

extern const struct counters_src counters_none;

#endif /* _SPRAYCOLL_COUNTERS_H */

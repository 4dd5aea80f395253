/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spraycoll: transport counters read before and after each size. A source
 * fills struct counters_sample with named monotonic counters (always the
 * same names in the same order) and, optionally, per-path packet counters;
 * counters_delta() turns two samples into a fixed-size record that ranks
 * send to rank 0, which sums them (one record per network namespace).
 *
 * Sources: counters_none, and counters_spray (AF_SPRAY's generic netlink
 * family 'spray' through libspraynl: stats-get and the paths dump).
 */
#ifndef _SPRAYCOLL_COUNTERS_H
#define _SPRAYCOLL_COUNTERS_H

#include <stdint.h>

#define COUNTERS_MAX 64
#define COUNTERS_PATHS_MAX 256	/* SPRAY_CFG_MAX_EVS */

/* one path (entropy value) of one peer */
struct counters_path {
	uint32_t peer;
	uint16_t ev;
	uint64_t tx, retx, lost, ecn;
};

struct counters_sample {
	int n;
	const char *name[COUNTERS_MAX];
	uint64_t val[COUNTERS_MAX];
	int npaths;
	struct counters_path *path;	/* npaths entries, malloc'ed: the
					 * caller frees them */
};

struct counters_src {
	const char *name;
	/* returns a context (may be NULL for "nothing to read") */
	void *(*open)(const char *arg);
	/* 0 and a sample (n may be 0), or -errno */
	int (*sample)(void *ctx, struct counters_sample *s);
	void (*close)(void *ctx);
};

/*
 * What one namespace did during one size. Paths are numbered per peer in
 * the order of their entropy values (AF_SPRAY draws the i-th value of a
 * peer from the i-th slice of the port range), and summed over peers by
 * that number: path_tx[i] is what the i-th path of every peer carried.
 */
struct counters_delta {
	uint32_t valid;			/* 0: nothing (not read, or a duplicate) */
	uint32_t npath;			/* most paths of one peer */
	uint64_t val[COUNTERS_MAX];
	uint64_t path_tx[COUNTERS_PATHS_MAX];
};

extern const struct counters_src counters_none;
extern const struct counters_src counters_spray;

void counters_delta(const struct counters_sample *before,
		    const struct counters_sample *after,
		    struct counters_delta *d);
void counters_add(struct counters_delta *sum, const struct counters_delta *d);
int counters_index(const struct counters_sample *s, const char *name);

#endif /* _SPRAYCOLL_COUNTERS_H */

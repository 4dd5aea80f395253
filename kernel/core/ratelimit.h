/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY: token buckets per source, for answers to packets that no
 * connection expects (NACKs to unknown ports and connections). Plain C:
 * the caller provides storage, time and locking.
 */
#ifndef _SPRAY_RATELIMIT_H
#define _SPRAY_RATELIMIT_H

#include "core.h"

/* buckets of a limiter: sources are hashed onto them */
#define SPRAY_RL_BUCKETS	256

/**
 * struct spray_rl_bucket - tokens of the sources hashed onto one bucket
 * @tokens: answers that may go now, in 1/1024 of an answer
 * @last_ns: when @tokens was last brought up to date
 */
struct spray_rl_bucket {
	u32	tokens;
	u64	last_ns;
};

/**
 * struct spray_ratelimit - per source token buckets
 * @rate: answers a second per bucket, at most
 * @burst: answers a bucket may send at once after a quiet time
 * @seed: hash seed (random), so that a source cannot pick its bucket
 * @denied: answers refused
 * @b: the buckets
 */
struct spray_ratelimit {
	u32			rate;
	u32			burst;
	u32			seed;
	u64			denied;
	struct spray_rl_bucket	b[SPRAY_RL_BUCKETS];
};

void spray_rl_init(struct spray_ratelimit *rl, u32 rate, u32 burst, u32 seed);
bool spray_rl_allow(struct spray_ratelimit *rl, const u32 *key, u32 nwords,
		    u64 now_ns);

#endif /* _SPRAY_RATELIMIT_H */

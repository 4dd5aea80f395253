// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY: token buckets per source.
 *
 * A packet that no connection expects (DATA for a port nobody binds, or
 * DATA without SYN for a connection that does not exist) is answered with
 * a NACK, so that a real sender fails fast or starts again. Its source
 * address may be forged: unlimited answers would make the host reflect a
 * flood at a victim. As the kernel's ICMP rate limit and WireGuard's
 * ratelimiter do, answers are bounded per source: @rate a second, @burst
 * at once. Sources share buckets by hash; the seed is random so that
 * nobody can aim at another source's bucket.
 */
#include "ratelimit.h"

#define SPRAY_RL_ONE	1024U	/* one answer, in tokens */

/**
 * spray_rl_init() - set up a limiter
 * @rl: the limiter
 * @rate: answers a second per bucket (1 to 8192)
 * @burst: answers at once after a quiet time (at least 1)
 * @seed: random hash seed
 *
 * Every bucket starts full.
 */
void spray_rl_init(struct spray_ratelimit *rl, u32 rate, u32 burst, u32 seed)
{
	u32 i;

	memset(rl, 0, sizeof(*rl));
	rl->rate = clamp_t(u32, rate, 1, 8192);
	rl->burst = clamp_t(u32, burst, 1, U32_MAX / SPRAY_RL_ONE);
	rl->seed = seed;
	for (i = 0; i < SPRAY_RL_BUCKETS; i++)
		rl->b[i].tokens = rl->burst * SPRAY_RL_ONE;
}

/* Jenkins' one-at-a-time over 32-bit words, seeded. */
static u32 rl_hash(u32 seed, const u32 *key, u32 nwords)
{
	u32 h = seed, i;

	for (i = 0; i < nwords; i++) {
		h += key[i];
		h += h << 10;
		h ^= h >> 6;
	}
	h += h << 3;
	h ^= h >> 11;
	h += h << 15;
	return h;
}

/**
 * spray_rl_allow() - may a source be answered now?
 * @rl: the limiter
 * @key: the source (an address), @nwords 32-bit words
 * @nwords: length of @key
 * @now_ns: current time; earlier than a bucket's last update counts as no
 *	time passed
 *
 * Return: true (and one token is spent) or false (counted in @rl->denied).
 */
bool spray_rl_allow(struct spray_ratelimit *rl, const u32 *key, u32 nwords,
		    u64 now_ns)
{
	u64 add, dt, cap = (u64)rl->burst * SPRAY_RL_ONE;
	struct spray_rl_bucket *b;

	b = &rl->b[rl_hash(rl->seed, key, nwords) % SPRAY_RL_BUCKETS];
	if (now_ns > b->last_ns) {
		/* long enough to fill any bucket, short enough not to overflow */
		dt = min_t(u64, now_ns - b->last_ns, 1ULL << 40);
		/* tokens earned: rate per second, in 1/1024 of an answer */
		add = spray_div64_u64(dt * rl->rate * SPRAY_RL_ONE, 1000000000);
		if (add) {
			b->tokens = (u32)min_t(u64, b->tokens + add, cap);
			b->last_ns = now_ns;
		}
	}
	if (b->tokens < SPRAY_RL_ONE) {
		rl->denied++;
		return false;
	}
	b->tokens -= SPRAY_RL_ONE;
	return true;
}

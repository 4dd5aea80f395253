// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: the no-op counters source (see counters.h).
 */
#include <stddef.h>

#include "counters.h"

static void *none_open(const char *arg)
{
	(void)arg;
	return NULL;
}

static int none_sample(void *ctx, struct counters_sample *s)
{
	(void)ctx;
	s->n = 0;
	return 0;
}

static void none_close(void *ctx)
{
	(void)ctx;
}

const struct counters_src counters_none = {
	.name = "none",
	.open = none_open,
	.sample = none_sample,
	.close = none_close,
};

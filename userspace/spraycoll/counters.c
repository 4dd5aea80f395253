// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: the no-op counters source and the delta arithmetic (see
 * counters.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
	s->npaths = 0;
	s->path = NULL;
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

int counters_index(const struct counters_sample *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return i;
	return -1;
}

static int cmp_path(const void *a, const void *b)
{
	const struct counters_path *x = a, *y = b;

	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	return (int)x->ev - (int)y->ev;
}

static const struct counters_path *find(const struct counters_sample *s,
					const struct counters_path *p)
{
	if (!s->npaths)
		return NULL;
	return bsearch(p, s->path, s->npaths, sizeof(*p), cmp_path);
}

/* sorts both samples' paths in place */
void counters_delta(const struct counters_sample *before,
		    const struct counters_sample *after,
		    struct counters_delta *d)
{
	uint32_t idx = 0, peer = 0;
	int i;

	memset(d, 0, sizeof(*d));
	d->valid = 1;
	for (i = 0; i < after->n && i < COUNTERS_MAX; i++)
		d->val[i] = after->val[i] -
			    (i < before->n ? before->val[i] : 0);
	if (before->npaths)
		qsort(before->path, before->npaths, sizeof(*before->path),
		      cmp_path);
	if (after->npaths)
		qsort(after->path, after->npaths, sizeof(*after->path),
		      cmp_path);
	for (i = 0; i < after->npaths; i++) {
		const struct counters_path *p = &after->path[i], *b;

		if (!i || p->peer != peer) {
			peer = p->peer;
			idx = 0;
		}
		b = find(before, p);
		if (idx < COUNTERS_PATHS_MAX)
			d->path_tx[idx] += p->tx - (b ? b->tx : 0);
		idx++;
		if (idx > d->npath)
			d->npath = idx > COUNTERS_PATHS_MAX ?
				   COUNTERS_PATHS_MAX : idx;
	}
}

void counters_add(struct counters_delta *sum, const struct counters_delta *d)
{
	int i;

	if (!d->valid)
		return;
	sum->valid = 1;
	if (d->npath > sum->npath)
		sum->npath = d->npath;
	for (i = 0; i < COUNTERS_MAX; i++)
		sum->val[i] += d->val[i];
	for (i = 0; i < COUNTERS_PATHS_MAX; i++)
		sum->path_tx[i] += d->path_tx[i];
}

// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: AF_SPRAY counters over generic netlink, through libspraynl
 * (userspace/lib, generated from the YNL spec), the library sprayctl uses
 * too. One sample is the 'spray' family's stats-get (namespace counters)
 * and its paths dump (packets per entropy value of every peer), both of
 * the network namespace the caller is in. See
 * Documentation/netlink/specs/spray.yaml.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spraycoll.h"
#include "counters.h"
#include "spraynl.h"

_Static_assert(SPRAYNL_NR_COUNTERS <= COUNTERS_MAX,
	       "a sample holds every counter of stats-get");

const char *counters_spray_name(int i);

/* the counters' names, in the order of every sample */
const char *counters_spray_name(int i)
{
	return spraynl_counter_name(i);
}

struct spray_cnt {
	struct ynl_sock *ys;
};

static void *spray_cnt_open(const char *arg)
{
	struct spray_cnt *c = xzalloc(sizeof(*c));
	char msg[512];

	(void)arg;
	c->ys = spraynl_open(msg, sizeof(msg));
	if (!c->ys) {
		if (errno == ENOENT)
			sc_err("counters: no generic netlink family '%s' (is the "
			       "spray module loaded?)", SPRAY_FAMILY_NAME);
		else
			sc_err("counters: generic netlink: %s", msg);
		free(c);
		return NULL;
	}
	return c;
}

static int spray_cnt_sample(void *ctx, struct counters_sample *s)
{
	struct spraynl_counter cnt[SPRAYNL_NR_COUNTERS];
	struct spray_cnt *c = ctx;
	struct spray_stats_get_rsp *st;
	struct spray_paths_rsp_list *paths;
	int i, n = 0;

	memset(s, 0, sizeof(*s));
	if (!c)
		return 0;
	st = spray_stats_get(c->ys);
	if (!st)
		return c->ys->err.code && c->ys->err.code < __YNL_ERRNO_END ?
		       -(int)c->ys->err.code : -EIO;
	s->n = spraynl_stats_counters(st, cnt);
	for (i = 0; i < s->n; i++) {
		s->name[i] = cnt[i].name;
		s->val[i] = cnt[i].val;
	}
	spray_stats_get_rsp_free(st);

	paths = spray_paths_dump(c->ys);
	if (!paths)
		return c->ys->err.code && c->ys->err.code < __YNL_ERRNO_END ?
		       -(int)c->ys->err.code : -EIO;
	ynl_dump_foreach(paths, p)
		n++;
	/* the caller keeps two samples and frees each one's paths */
	if (n) {
		s->path = calloc(n, sizeof(*s->path));
		if (!s->path) {
			spray_paths_rsp_list_free(paths);
			return -ENOMEM;
		}
	}
	ynl_dump_foreach(paths, p) {
		struct counters_path *cp;

		if (!p->_present.peer_id || !p->_present.ev)
			continue;
		cp = &s->path[s->npaths++];
		cp->peer = p->peer_id;
		cp->ev = p->ev;
		cp->tx = p->tx_pkts;
		cp->retx = p->retx_pkts;
		cp->lost = p->lost_pkts;
		cp->ecn = p->ecn_pkts;
	}
	spray_paths_rsp_list_free(paths);
	return 0;
}

static void spray_cnt_close(void *ctx)
{
	struct spray_cnt *c = ctx;

	if (!c)
		return;
	ynl_sock_destroy(c->ys);
	free(c);
}

const struct counters_src counters_spray = {
	.name = "spray",
	.open = spray_cnt_open,
	.sample = spray_cnt_sample,
	.close = spray_cnt_close,
};

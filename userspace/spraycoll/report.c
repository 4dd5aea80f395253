// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: statistics and output, as nccl-tests columns or as one JSON
 * document (-J) on stdout. Only rank 0 reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spraycoll.h"
#include "counters.h"

static const char *const tp_names[] = {
	[TP_TCP] = "tcp", [TP_MPTCP] = "mptcp", [TP_SPRAY] = "spray",
	[TP_UNIX] = "unix",
};

static int nresults;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted @v */
static double pct(const double *v, int n, double p)
{
	int k = (int)(p / 100.0 * n + 0.999999) - 1;

	if (k < 0)
		k = 0;
	if (k >= n)
		k = n - 1;
	return v[k];
}

/* @it_s: per-iteration time in seconds (max over ranks), sorted here */
void stats_compute(struct size_result *r, double *it_s, int n, int nranks,
		   enum sc_op op)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += it_s[i];
	qsort(it_s, n, sizeof(double), cmp_double);
	r->avg_us = sum / n * 1e6;
	r->p50_us = pct(it_s, n, 50) * 1e6;
	r->p99_us = pct(it_s, n, 99) * 1e6;
	r->min_us = it_s[0] * 1e6;
	r->max_us = it_s[n - 1] * 1e6;
	r->algbw = r->bytes / (r->avg_us * 1e-6) / 1e9;
	r->busbw = r->algbw * busbw_factor(op, nranks);
}

/* AF_SPRAY counters (counters_spray's names, in its order) */
const char *counters_spray_name(int i);

static uint64_t cnt_val(const struct counters_delta *d, const char *name)
{
	const char *nm;
	int i;

	for (i = 0; i < COUNTERS_MAX && (nm = counters_spray_name(i)); i++)
		if (!strcmp(nm, name))
			return d->val[i];
	return 0;
}

static uint64_t path_total(const struct counters_delta *d)
{
	uint64_t tot = 0;
	uint32_t i;

	for (i = 0; i < d->npath; i++)
		tot += d->path_tx[i];
	return tot;
}

struct path_share {
	uint64_t total;
	double min, max;	/* percent of the packets, over the paths */
};

static void path_share(const struct counters_delta *d, struct path_share *ps)
{
	uint32_t i;

	ps->total = path_total(d);
	ps->min = ps->max = 0;
	for (i = 0; ps->total && i < d->npath; i++) {
		double v = 100.0 * d->path_tx[i] / ps->total;

		if (!i || v < ps->min)
			ps->min = v;
		if (!i || v > ps->max)
			ps->max = v;
	}
}

static void json_counters(const struct counters_delta *d)
{
	const char *nm;
	uint64_t tot;
	uint32_t i;
	int k, c;

	if (!d) {
		printf(", \"spray\": null");
		return;
	}
	printf(", \"spray\": {");
	for (k = 0; k < COUNTERS_MAX && (nm = counters_spray_name(k)); k++) {
		printf("%s\"", k ? ", " : "");
		for (c = 0; nm[c]; c++)
			putchar(nm[c] == '-' ? '_' : nm[c]);
		printf("\": %llu", (unsigned long long)d->val[k]);
	}
	tot = path_total(d);
	printf(", \"paths\": %u, \"path_tx_pkts\": [", d->npath);
	for (i = 0; i < d->npath; i++)
		printf("%s%llu", i ? ", " : "",
		       (unsigned long long)d->path_tx[i]);
	printf("], \"path_share_pct\": [");
	for (i = 0; i < d->npath; i++)
		printf("%s%.3f", i ? ", " : "",
		       tot ? 100.0 * d->path_tx[i] / tot : 0.0);
	printf("]}");
}

void report_header(const struct sc_opts *o, int nranks, const char *alg)
{
	nresults = 0;
	if (o->json) {
		printf("{\"tool\": \"spraycoll\", \"version\": 1, "
		       "\"op\": \"%s\", \"transport\": \"%s\", "
		       "\"ranks\": %d, \"algorithm\": \"%s\", \"type\": "
		       "\"float\", \"iters\": %d, \"warmup\": %d, "
		       "\"check\": %s, \"timeout_s\": %g, "
		       "\"busbw_factor\": %g,\n \"results\": [",
		       op_names[o->op], tp_names[o->tp], nranks, alg,
		       o->iters, o->warmup, o->check ? "true" : "false",
		       o->timeout, busbw_factor(o->op, nranks));
		fflush(stdout);
		return;
	}
	printf("# spraycoll: %s over %s, %d ranks, algorithm %s, %d iters, "
	       "%d warm-up, data check %s\n#\n", op_names[o->op],
	       tp_names[o->tp], nranks, alg, o->iters, o->warmup,
	       o->check ? "on" : "off");
	printf("# %12s %12s %6s %10s %12s %12s %10s %10s %8s", "size",
	       "count", "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)",
	       "p50(us)", "p99(us)", "#wrong");
	if (o->counters)
		printf(" %8s %8s %6s %13s", "retx", "ecn", "paths",
		       "share%min-max");
	printf("\n");
	fflush(stdout);
}

void report_size(const struct sc_opts *o, int nranks, struct size_result *r)
{
	int i, j;

	if (o->json) {
		printf("%s\n  {\"size\": %zu, \"count\": %zu, \"type\": "
		       "\"float\", \"time_us\": %.3f, \"algbw_gbps\": %.4f, "
		       "\"busbw_gbps\": %.4f, \"p50_us\": %.3f, "
		       "\"p99_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f, "
		       "\"wrong\": %ld", nresults ? "," : "", r->bytes,
		       r->count, r->avg_us, r->algbw, r->busbw, r->p50_us,
		       r->p99_us, r->min_us, r->max_us,
		       r->check ? r->wrong : -1L);
		if (r->alg)
			printf(", \"algorithm\": \"%s\"", r->alg);
		if (r->counters)
			json_counters(r->cnt);
		if (r->peer_tx) {
			printf(", \"peer_tx_gbps\": [");
			for (i = 0; i < nranks; i++) {
				printf("%s[", i ? ", " : "");
				for (j = 0; j < nranks; j++)
					printf("%s%.4f", j ? ", " : "",
					       r->peer_tx[i * nranks + j]);
				printf("]");
			}
			printf("]");
		}
		printf("}");
		nresults++;
		fflush(stdout);
		return;
	}
	printf("  %12zu %12zu %6s %10.2f %12.3f %12.3f %10.2f %10.2f ",
	       r->bytes, r->count, "float", r->avg_us, r->algbw, r->busbw,
	       r->p50_us, r->p99_us);
	if (r->check)
		printf("%8ld", r->wrong);
	else
		printf("%8s", "N/A");
	if (r->counters && r->cnt) {
		struct path_share ps;
		char mm[32];

		path_share(r->cnt, &ps);
		snprintf(mm, sizeof(mm), "%.1f-%.1f", ps.min, ps.max);
		printf(" %8llu %8llu %6u %13s",
		       (unsigned long long)cnt_val(r->cnt, "retx-pkts"),
		       (unsigned long long)cnt_val(r->cnt, "ecn-ce"),
		       r->cnt->npath, ps.total ? mm : "-");
	} else if (r->counters) {
		printf(" %8s %8s %6s %13s", "-", "-", "-", "-");
	}
	printf("%s%s\n", r->alg && o->alg == ALG_AUTO ? "  " : "",
	       r->alg && o->alg == ALG_AUTO ? r->alg : "");
	if (r->counters && r->cnt && r->cnt->npath <= 16 &&
	    path_total(r->cnt)) {
		uint64_t tot = path_total(r->cnt);

		printf("#   packets per path %%:");
		for (i = 0; i < (int)r->cnt->npath; i++)
			printf(" %.1f", 100.0 * r->cnt->path_tx[i] / tot);
		printf("\n");
	}
	if (r->peer_tx) {
		printf("#   per-peer tx GB/s (row: from rank, column: to rank)\n");
		for (i = 0; i < nranks; i++) {
			printf("#   %4d:", i);
			for (j = 0; j < nranks; j++)
				printf(" %8.3f", r->peer_tx[i * nranks + j]);
			printf("\n");
		}
	}
	fflush(stdout);
}

void report_footer(const struct sc_opts *o, int nranks, long wrong_total,
		   double avg_busbw, int nsizes)
{
	(void)nranks;
	if (o->json) {
		printf("\n ], \"wrong_total\": %ld, \"avg_busbw_gbps\": %.4f, "
		       "\"status\": \"%s\"}\n", o->check ? wrong_total : -1L,
		       nsizes ? avg_busbw : 0.0,
		       nsizes < 0 ? "error" : wrong_total ? "wrong" : "ok");
		fflush(stdout);
		return;
	}
	if (nsizes < 0)
		return;
	if (o->check)
		printf("# Out of bounds values : %ld %s\n", wrong_total,
		       wrong_total ? "ERROR" : "OK");
	else
		printf("# Out of bounds values : N/A (no -c)\n");
	printf("# Avg bus bandwidth    : %.4f GB/s\n#\n", avg_busbw);
	fflush(stdout);
}

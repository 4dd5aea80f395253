// SPDX-License-Identifier: GPL-2.0
/*
 * sprayctl top [-n COUNT] [-d SECONDS]: a live view of the namespace's
 * peers and paths, as rates over the last interval (default 1 s), one
 * frame per interval until interrupted or COUNT frames:
 *
 *   peers: state, smoothed and minimum RTT, window, packets in flight,
 *          packets per second sent, resent, received, lost and echoed
 *          CE-marked (losses and ECN summed over the peer's paths), the
 *          CE-marked fraction of recent acks, and how many of its paths
 *          are up, avoided and down;
 *   paths: those that carried traffic, lost packets or are not up in the
 *          interval, the most lossy first, with their rates.
 *
 * On a terminal each frame replaces the last and the paths table is cut
 * to the window's height; otherwise frames follow one another, whole. -j
 * prints one JSON object per frame.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "sprayctl.h"

struct path_rate {
	uint32_t peer_id;
	uint16_t ev;
	uint32_t state;
	uint64_t tx, acked, lost, ecn, retx;	/* counters now */
	double d_tx, d_acked, d_lost, d_ecn, d_retx;	/* per second */
};

struct peer_rate {
	uint32_t id;
	const struct spray_peers_rsp_dump *p;
	double d_tx, d_retx, d_rx, d_lost, d_ecn;
	unsigned int n_state[3];
	uint64_t tx, retx, rx;	/* counters now */
};

struct sample {
	struct timespec t;
	struct spray_peers_rsp_list *peers;
	struct path_rate *paths;
	size_t npaths;
	struct peer_rate *prs;
	size_t npeers;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int cmp_path(const void *a, const void *b)
{
	const struct path_rate *x = a, *y = b;

	if (x->peer_id != y->peer_id)
		return x->peer_id < y->peer_id ? -1 : 1;
	return (int)x->ev - (int)y->ev;
}

static int cmp_peer(const void *a, const void *b)
{
	const struct peer_rate *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* most lossy first, then most ECN, retransmissions, traffic */
static int cmp_trouble(const void *a, const void *b)
{
	const struct path_rate *x = a, *y = b;

	if (x->d_lost != y->d_lost)
		return x->d_lost > y->d_lost ? -1 : 1;
	if (x->state != y->state)
		return x->state > y->state ? -1 : 1;
	if (x->d_ecn != y->d_ecn)
		return x->d_ecn > y->d_ecn ? -1 : 1;
	if (x->d_retx != y->d_retx)
		return x->d_retx > y->d_retx ? -1 : 1;
	if (x->d_tx != y->d_tx)
		return x->d_tx > y->d_tx ? -1 : 1;
	return cmp_path(a, b);
}

static void sample_free(struct sample *s)
{
	if (s->peers)
		spray_peers_rsp_list_free(s->peers);
	free(s->paths);
	free(s->prs);
	memset(s, 0, sizeof(*s));
}

static int sample_take(struct sample *s)
{
	struct spray_paths_rsp_list *l;
	size_t n = 0, cap = 0;

	clock_gettime(CLOCK_MONOTONIC, &s->t);
	s->peers = spray_peers_dump(ys);
	if (!s->peers)
		return nl_failed("peers dump");
	l = spray_paths_dump(ys);
	if (!l)
		return nl_failed("paths dump");
	ynl_dump_foreach(l, p) {
		struct path_rate *r;

		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			r = realloc(s->paths, cap * sizeof(*r));
			if (!r) {
				spray_paths_rsp_list_free(l);
				perror("sprayctl");
				return EXIT_REFUSED;
			}
			s->paths = r;
		}
		r = &s->paths[n++];
		memset(r, 0, sizeof(*r));
		r->peer_id = p->peer_id;
		r->ev = p->ev;
		r->state = p->state;
		r->tx = p->tx_pkts;
		r->acked = p->acked_pkts;
		r->lost = p->lost_pkts;
		r->ecn = p->ecn_pkts;
		r->retx = p->retx_pkts;
	}
	spray_paths_rsp_list_free(l);
	s->npaths = n;
	if (n)
		qsort(s->paths, n, sizeof(*s->paths), cmp_path);

	n = 0;
	ynl_dump_foreach(s->peers, p)
		n++;
	s->prs = calloc(n ? n : 1, sizeof(*s->prs));
	if (!s->prs) {
		perror("sprayctl");
		return EXIT_REFUSED;
	}
	n = 0;
	ynl_dump_foreach(s->peers, p) {
		s->prs[n].id = p->id;
		s->prs[n].p = p;
		s->prs[n].tx = p->tx_pkts;
		s->prs[n].retx = p->retx_pkts;
		s->prs[n].rx = p->rx_pkts;
		n++;
	}
	s->npeers = n;
	if (n)
		qsort(s->prs, n, sizeof(*s->prs), cmp_peer);
	return 0;
}

/* a counter's rate; 0 when it went backwards (the entry was replaced) */
static double rate(uint64_t now, uint64_t before, double dt)
{
	return now >= before ? (now - before) / dt : 0;
}

/* the rates of @cur since @prev, per path and summed per peer */
static void compute(struct sample *cur, const struct sample *prev)
{
	double dt = (cur->t.tv_sec - prev->t.tv_sec) +
		    (cur->t.tv_nsec - prev->t.tv_nsec) / 1e9;
	size_t i;

	if (dt <= 0)
		dt = 1e-9;
	for (i = 0; i < cur->npaths; i++) {
		struct path_rate *r = &cur->paths[i], zero = { 0 };
		const struct path_rate *b;
		struct peer_rate key = { .id = r->peer_id }, *pr;

		b = bsearch(r, prev->paths, prev->npaths, sizeof(*r), cmp_path);
		if (!b)
			b = &zero;
		r->d_tx = rate(r->tx, b->tx, dt);
		r->d_acked = rate(r->acked, b->acked, dt);
		r->d_lost = rate(r->lost, b->lost, dt);
		r->d_ecn = rate(r->ecn, b->ecn, dt);
		r->d_retx = rate(r->retx, b->retx, dt);
		pr = bsearch(&key, cur->prs, cur->npeers, sizeof(key), cmp_peer);
		if (!pr)
			continue;
		pr->d_lost += r->d_lost;
		pr->d_ecn += r->d_ecn;
		if (r->state < 3)
			pr->n_state[r->state]++;
	}
	for (i = 0; i < cur->npeers; i++) {
		struct peer_rate *pr = &cur->prs[i], zero = { 0 };
		const struct peer_rate *b;

		b = bsearch(pr, prev->prs, prev->npeers, sizeof(*pr), cmp_peer);
		if (!b)
			b = &zero;
		pr->d_tx = rate(pr->tx, b->tx, dt);
		pr->d_retx = rate(pr->retx, b->retx, dt);
		pr->d_rx = rate(pr->rx, b->rx, dt);
	}
}

static const struct col peer_cols[] = {
	{ "id", true }, { "remote", false }, { "state", false },
	{ "srtt-us", true }, { "min-rtt-us", true }, { "cwnd", true },
	{ "in-flight", true }, { "tx-pps", true }, { "retx-pps", true },
	{ "rx-pps", true }, { "lost-pps", true }, { "ecn-pps", true },
	{ "ecn-marked-ppm", true }, { "paths-up", true },
	{ "paths-avoided", true }, { "paths-down", true },
};

static const struct col path_cols[] = {
	{ "peer-id", true }, { "ev", true }, { "state", false },
	{ "tx-pps", true }, { "acked-pps", true }, { "lost-pps", true },
	{ "ecn-pps", true }, { "retx-pps", true },
};

#define NCOLS(c) (int)(sizeof(c) / sizeof(c[0]))

static void state_field(struct rec *o, const char *s, uint32_t v)
{
	if (s)
		rec_str(o, "state", "%s", s);
	else
		rec_str(o, "state", "%u", v);
}

static void print_frame(struct sample *cur, double interval, bool tty)
{
	struct rows peers = { 0 }, paths = { 0 };
	struct path_rate *act;
	size_t i, nact = 0, shown;
	char ts[48], a[SPRAYNL_ADDRSTRLEN];

	for (i = 0; i < cur->npeers; i++) {
		const struct peer_rate *pr = &cur->prs[i];
		const struct spray_peers_rsp_dump *p = pr->p;
		struct rec *o = rows_add(&peers);

		rec_u64(o, "id", p->id);
		rec_str(o, "remote", "%s",
			spraynl_addr_str(&p->remote, a, sizeof(a)));
		state_field(o, spray_nl_peer_state_str(p->state), p->state);
		rec_u64(o, "srtt-us", p->srtt_us);
		rec_u64(o, "min-rtt-us", p->min_rtt_us);
		rec_u64(o, "cwnd", p->cwnd);
		rec_u64(o, "in-flight", p->in_flight);
		rec_f64(o, "tx-pps", pr->d_tx);
		rec_f64(o, "retx-pps", pr->d_retx);
		rec_f64(o, "rx-pps", pr->d_rx);
		rec_f64(o, "lost-pps", pr->d_lost);
		rec_f64(o, "ecn-pps", pr->d_ecn);
		rec_u64(o, "ecn-marked-ppm", p->ecn_marked);
		rec_u64(o, "paths-up", pr->n_state[SPRAY_NL_PATH_STATE_UP]);
		rec_u64(o, "paths-avoided", pr->n_state[SPRAY_NL_PATH_STATE_AVOIDED]);
		rec_u64(o, "paths-down", pr->n_state[SPRAY_NL_PATH_STATE_DOWN]);
	}

	/* the active paths, most troubled first */
	act = malloc((cur->npaths ? cur->npaths : 1) * sizeof(*act));
	if (!act) {
		perror("sprayctl");
		exit(EXIT_REFUSED);
	}
	for (i = 0; i < cur->npaths; i++) {
		const struct path_rate *r = &cur->paths[i];

		if (r->d_tx > 0 || r->d_lost > 0 || r->d_ecn > 0 ||
		    r->state != SPRAY_NL_PATH_STATE_UP)
			act[nact++] = *r;
	}
	qsort(act, nact, sizeof(*act), cmp_trouble);
	shown = nact;
	if (tty && fmt == FMT_TEXT) {
		struct winsize ws;
		size_t room;

		/* frame line, blank, 2 headers, the peers, blank, "... more" */
		if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row) {
			room = ws.ws_row > cur->npeers + 6 ?
			       ws.ws_row - cur->npeers - 6 : 0;
			if (shown > room)
				shown = room;
		}
	}
	for (i = 0; i < shown; i++) {
		const struct path_rate *r = &act[i];
		struct rec *o = rows_add(&paths);

		rec_u64(o, "peer-id", r->peer_id);
		rec_u64(o, "ev", r->ev);
		state_field(o, spray_nl_path_state_str(r->state), r->state);
		rec_f64(o, "tx-pps", r->d_tx);
		rec_f64(o, "acked-pps", r->d_acked);
		rec_f64(o, "lost-pps", r->d_lost);
		rec_f64(o, "ecn-pps", r->d_ecn);
		rec_f64(o, "retx-pps", r->d_retx);
	}
	free(act);

	timestamp(ts, sizeof(ts));
	if (fmt == FMT_JSON) {
		struct field f = { .type = F_STR };

		jw_begin_obj(NULL);
		snprintf(f.key, sizeof(f.key), "timestamp");
		snprintf(f.s, sizeof(f.s), "%s", ts);
		jw_field(&f);
		f.type = F_F64;
		snprintf(f.key, sizeof(f.key), "interval-s");
		snprintf(f.s, sizeof(f.s), "%.3f", interval);
		jw_field(&f);
		jw_begin_arr("peers");
		for (i = 0; i < (size_t)peers.n; i++)
			jw_rec(NULL, &peers.r[i]);
		jw_end_arr();
		jw_begin_arr("paths");
		for (i = 0; i < (size_t)paths.n; i++)
			jw_rec(NULL, &paths.r[i]);
		jw_end_arr();
		jw_end_obj();
		jw_done();
	} else if (fmt == FMT_TSV) {
		int j;

		printf("frame\t%s\t%.3f\n", ts, interval);
		for (i = 0; i < (size_t)peers.n; i++) {
			for (j = 0; j < peers.r[i].n; j++)
				printf("%s%s", j ? "\t" : "peer\t",
				       peers.r[i].f[j].s);
			putchar('\n');
		}
		for (i = 0; i < (size_t)paths.n; i++) {
			for (j = 0; j < paths.r[i].n; j++)
				printf("%s%s", j ? "\t" : "path\t",
				       paths.r[i].f[j].s);
			putchar('\n');
		}
	} else {
		if (tty)
			fputs("\033[H\033[2J", stdout);
		printf("%s  every %.1f s  peers %zu  paths %zu, %zu active\n\n",
		       ts, interval, cur->npeers, cur->npaths, nact);
		print_table(peer_cols, NCOLS(peer_cols), &peers);
		putchar('\n');
		print_table(path_cols, NCOLS(path_cols), &paths);
		if (shown < nact)
			printf("... %zu more\n", nact - shown);
		if (!tty)
			putchar('\n');
	}
	fflush(stdout);
	rows_free(&peers);
	rows_free(&paths);
}

int cmd_top(int argc, char **argv)
{
	struct sample prev = { 0 }, cur = { 0 };
	bool tty = isatty(STDOUT_FILENO);
	double interval = 1.0;
	struct timespec next;
	struct sigaction sa;
	long count = -1;
	char *end;
	int ret;

	for (; argc; argc -= 2, argv += 2) {
		if (argc < 2)
			return usage_err("top", "%s needs a value", argv[0]);
		if (!strcmp(argv[0], "-n")) {
			count = strtol(argv[1], &end, 10);
			if (*end || end == argv[1] || count <= 0)
				return usage_err("top", "bad COUNT \"%s\"",
						 argv[1]);
		} else if (!strcmp(argv[0], "-d")) {
			interval = strtod(argv[1], &end);
			if (*end || end == argv[1] || !(interval >= 0.1) ||
			    interval > 3600)
				return usage_err("top", "bad SECONDS \"%s\" (0.1 .. 3600)",
						 argv[1]);
		} else {
			return usage_err("top", "unknown argument \"%s\"",
					 argv[0]);
		}
	}
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	ret = nl_open();
	if (ret)
		return ret;
	ret = sample_take(&prev);
	next = prev.t;
	while (!ret && !stop && count) {
		long long ns = next.tv_nsec + (long long)(interval * 1e9);

		next.tv_sec += ns / 1000000000;
		next.tv_nsec = ns % 1000000000;
		while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&next, NULL) == EINTR)
			;
		if (stop)
			break;
		ret = sample_take(&cur);
		if (ret)
			break;
		compute(&cur, &prev);
		print_frame(&cur, interval, tty);
		sample_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
		if (count > 0)
			count--;
	}
	sample_free(&prev);
	sample_free(&cur);
	return ret;
}

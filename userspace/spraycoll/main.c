// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: collective-traffic generator for AF_SPRAY, TCP and MPTCP, in
 * the manner of nccl-tests. Options, launch modes (--local, torchrun-style
 * environment, Open MPI environment) and the per-rank benchmark loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "spraycoll.h"
#include "counters.h"

static const char usage[] =
"usage: spraycoll [options] --local N            fork N ranks on this host\n"
"       RANK=r WORLD_SIZE=n MASTER_ADDR=a MASTER_PORT=p spraycoll [options]\n"
"       mpirun -np N -x MASTER_ADDR=a -x MASTER_PORT=p spraycoll [options]\n"
"\n"
"  -o, --op OP          allreduce|reducescatter|allgather|alltoall|\n"
"                       broadcast|incast|sendrecv (default allreduce)\n"
"  -t, --transport T    spray|tcp|mptcp (default tcp); unix: the datagram\n"
"                       engine over AF_UNIX (testing aid)\n"
"  -b, --minbytes SIZE  smallest size (default 32M); K, M, G suffixes\n"
"  -e, --maxbytes SIZE  largest size (default 32M)\n"
"  -f, --stepfactor F   multiply the size by F each step (default 2)\n"
"  -n, --iters N        timed iterations per size (default 20)\n"
"  -w, --warmup_iters N warm-up iterations per size (default 5)\n"
"  -c, --check          verify results exactly (one extra iteration)\n"
"  -a, --algo A         all-reduce algorithm: auto|ring|hd (default auto:\n"
"                       halving-doubling up to --hd-max on 2^k ranks)\n"
"      --hd-max SIZE    auto's halving-doubling limit (default 64K)\n"
"  -T, --timeout S      per-iteration timeout, seconds (default 10)\n"
"      --boot-timeout S rendezvous and connection timeout (default 30)\n"
"  -J, --json           one JSON document on stdout instead of the table\n"
"  -P, --per-peer       per-peer transmit bandwidth matrix\n"
"  -C, --chunk SIZE     datagram transports: largest message (default 1M,\n"
"                       unix 32K; at most 8M for spray)\n"
"  -v, --verbose        progress on stderr after every size\n"
"\n"
"  --local N            fork N ranks; rank 0 hosts the bootstrap\n"
"  --netns A,B,...      --local: rank i enters /run/netns/<i-th name>\n"
"  --addrs A,B,...      --local: data address of each rank\n"
"                       (default 127.0.0.1)\n"
"  --addr A             this rank's data address (environment launch;\n"
"                       default: the address that reaches MASTER_ADDR)\n"
"  --master ADDR:PORT   bootstrap address (default $MASTER_ADDR:$MASTER_PORT)\n"
"  --port P             data port of rank r is P + r (default: ephemeral)\n"
"  --shuffle            datagram transports: send chunks in random order\n"
"  --no-counters        spray: do not read the transport's counters\n"
"  --inject stall:R     testing: rank R stops in its first timed iteration\n"
"  --inject noconnect:R testing: rank R closes its data socket at setup\n"
"  -h, --help\n";

enum {
	OPT_LOCAL = 256, OPT_NETNS, OPT_ADDRS, OPT_ADDR, OPT_MASTER, OPT_PORT,
	OPT_BOOT_TIMEOUT, OPT_HD_MAX, OPT_SHUFFLE, OPT_INJECT, OPT_NO_COUNTERS,
};

static const struct option long_opts[] = {
	{ "op", required_argument, NULL, 'o' },
	{ "transport", required_argument, NULL, 't' },
	{ "minbytes", required_argument, NULL, 'b' },
	{ "maxbytes", required_argument, NULL, 'e' },
	{ "stepfactor", required_argument, NULL, 'f' },
	{ "iters", required_argument, NULL, 'n' },
	{ "warmup_iters", required_argument, NULL, 'w' },
	{ "check", no_argument, NULL, 'c' },
	{ "algo", required_argument, NULL, 'a' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "json", no_argument, NULL, 'J' },
	{ "per-peer", no_argument, NULL, 'P' },
	{ "chunk", required_argument, NULL, 'C' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "local", required_argument, NULL, OPT_LOCAL },
	{ "netns", required_argument, NULL, OPT_NETNS },
	{ "addrs", required_argument, NULL, OPT_ADDRS },
	{ "addr", required_argument, NULL, OPT_ADDR },
	{ "master", required_argument, NULL, OPT_MASTER },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "boot-timeout", required_argument, NULL, OPT_BOOT_TIMEOUT },
	{ "hd-max", required_argument, NULL, OPT_HD_MAX },
	{ "shuffle", no_argument, NULL, OPT_SHUFFLE },
	{ "inject", required_argument, NULL, OPT_INJECT },
	{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
	{ }
};

static char **split(const char *s, int *n)
{
	char *dup = strdup(s), *tok, *save = NULL;
	char **v = NULL;

	*n = 0;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		v = realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = tok;
	}
	return v;
}

static int parse_int(const char *s, const char *what, long min, long max,
		     long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		sc_err("bad %s '%s' (expected %ld..%ld)", what, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_double(const char *s, const char *what, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v > 0)) {
		sc_err("bad %s '%s' (expected a positive number)", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_hostport(const char *s, const char **host, int *port)
{
	char *dup = strdup(s), *colon = strrchr(dup, ':');
	long p;

	if (!colon || colon == dup) {
		sc_err("bad --master '%s' (expected ADDR:PORT)", s);
		return -1;
	}
	*colon = 0;
	if (parse_int(colon + 1, "port", 1, 65535, &p))
		return -1;
	*host = dup;
	*port = p;
	return 0;
}

static int parse_opts(int argc, char **argv, struct sc_opts *o)
{
	int no_counters = 0;
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->minbytes = o->maxbytes = 32 << 20;
	o->factor = 2;
	o->iters = 20;
	o->warmup = 5;
	o->tp = TP_TCP;
	o->op = OP_ALLREDUCE;
	o->timeout = 10;
	o->boot_timeout = 30;
	o->chunk = 1 << 20;
	o->hd_max = 64 << 10;
	o->inject_stall_rank = o->inject_noconnect_rank = -1;

	while ((c = getopt_long(argc, argv, "o:t:b:e:f:n:w:ca:T:JPC:vh",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			v = op_parse(optarg);
			if (v < 0) {
				sc_err("unknown operation '%s'", optarg);
				return -1;
			}
			o->op = v;
			break;
		case 't':
			if (!strcmp(optarg, "tcp"))
				o->tp = TP_TCP;
			else if (!strcmp(optarg, "mptcp"))
				o->tp = TP_MPTCP;
			else if (!strcmp(optarg, "spray"))
				o->tp = TP_SPRAY;
			else if (!strcmp(optarg, "unix"))
				o->tp = TP_UNIX;
			else {
				sc_err("unknown transport '%s' (spray, tcp, "
				       "mptcp)", optarg);
				return -1;
			}
			break;
		case 'b':
		case 'e':
		case 'C':
		case OPT_HD_MAX: {
			size_t sz;

			if (parse_size(optarg, &sz)) {
				sc_err("bad size '%s'", optarg);
				return -1;
			}
			if (c == 'b')
				o->minbytes = sz;
			else if (c == 'e')
				o->maxbytes = sz;
			else if (c == 'C')
				o->chunk = sz, o->chunk_set = 1;
			else
				o->hd_max = sz;
			break;
		}
		case 'f':
			if (parse_int(optarg, "step factor", 2, 1 << 20, &v))
				return -1;
			o->factor = v;
			break;
		case 'n':
			if (parse_int(optarg, "iteration count", 1, 1 << 24, &v))
				return -1;
			o->iters = v;
			break;
		case 'w':
			if (parse_int(optarg, "warm-up count", 0, 1 << 24, &v))
				return -1;
			o->warmup = v;
			break;
		case 'c':
			o->check = 1;
			break;
		case 'a':
			if (!strcmp(optarg, "auto"))
				o->alg = ALG_AUTO;
			else if (!strcmp(optarg, "ring"))
				o->alg = ALG_RING;
			else if (!strcmp(optarg, "hd"))
				o->alg = ALG_HD;
			else {
				sc_err("unknown algorithm '%s' (auto, ring, hd)",
				       optarg);
				return -1;
			}
			break;
		case 'T':
			if (parse_double(optarg, "timeout", &o->timeout))
				return -1;
			break;
		case OPT_BOOT_TIMEOUT:
			if (parse_double(optarg, "timeout", &o->boot_timeout))
				return -1;
			break;
		case 'J':
			o->json = 1;
			break;
		case 'P':
			o->per_peer = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case OPT_LOCAL:
			if (parse_int(optarg, "rank count", 0, 4096, &v))
				return -1;
			o->launch = LAUNCH_LOCAL;
			o->local_n = v;
			break;
		case OPT_NETNS:
			o->netns = split(optarg, &o->n_netns);
			break;
		case OPT_ADDRS:
			o->addrs = split(optarg, &o->n_addrs);
			break;
		case OPT_ADDR:
			o->addr = optarg;
			break;
		case OPT_MASTER:
			if (parse_hostport(optarg, &o->master_addr,
					   &o->master_port))
				return -1;
			break;
		case OPT_PORT:
			if (parse_int(optarg, "port", 1, 65535, &v))
				return -1;
			o->data_port = v;
			break;
		case OPT_SHUFFLE:
			o->shuffle = 1;
			break;
		case OPT_NO_COUNTERS:
			no_counters = 1;
			break;
		case OPT_INJECT:
			if (!strncmp(optarg, "stall:", 6) &&
			    !parse_int(optarg + 6, "rank", 0, 4095, &v))
				o->inject_stall_rank = v;
			else if (!strncmp(optarg, "noconnect:", 10) &&
				 !parse_int(optarg + 10, "rank", 0, 4095, &v))
				o->inject_noconnect_rank = v;
			else {
				sc_err("bad --inject '%s' (stall:R or "
				       "noconnect:R)", optarg);
				return -1;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return -1;
		}
	}
	if (optind < argc) {
		sc_err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	o->counters = o->tp == TP_SPRAY && !no_counters;
	if (o->tp == TP_UNIX && !o->chunk_set)
		o->chunk = 32 << 10;
	if (o->chunk < 1024 ||
	    (o->tp == TP_SPRAY &&
	     o->chunk + sizeof(struct wire_hdr) > SC_SPRAY_MSG_MAX)) {
		sc_err("bad chunk size %zu: at least 1K, and for spray at most "
		       "8M minus the %zu-byte header", o->chunk,
		       sizeof(struct wire_hdr));
		return -1;
	}
	return 0;
}

/* checks needing the rank count; identical on every rank */
static int check_sizes(const struct sc_opts *o, int nranks)
{
	char why[160];
	size_t s;

	if (nranks < 2) {
		sc_err("%d rank%s: a collective needs at least 2 ranks", nranks,
		       nranks == 1 ? "" : "s");
		return -1;
	}
	if (o->minbytes > o->maxbytes) {
		sc_err("min size %zu (-b) is larger than max size %zu (-e)",
		       o->minbytes, o->maxbytes);
		return -1;
	}
	for (s = o->minbytes;; s *= o->factor) {
		if (coll_check_size(o->op, s, nranks, why, sizeof(why))) {
			sc_err("%s", why);
			return -1;
		}
		if (s > o->maxbytes / o->factor)
			break;
	}
	if (o->n_addrs && o->launch == LAUNCH_LOCAL && o->n_addrs != nranks) {
		sc_err("--addrs has %d addresses for %d ranks", o->n_addrs,
		       nranks);
		return -1;
	}
	if (o->n_netns && o->n_netns != nranks) {
		sc_err("--netns has %d namespaces for %d ranks", o->n_netns,
		       nranks);
		return -1;
	}
	if (o->n_netns && !o->n_addrs) {
		sc_err("--netns needs --addrs: each namespace has its own "
		       "loopback");
		return -1;
	}
	return 0;
}

static const char *sock_ip(const struct sockaddr_storage *ss, char *buf,
			   size_t len)
{
	if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ss)->sin6_addr,
			  buf, len);
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)ss)->sin_addr,
			  buf, len);
	return buf;
}

static int barrier(struct boot *b, double timeout)
{
	b->timeout = timeout;
	return boot_barrier(b);
}

static const char *alg_name(const struct sc_opts *o, int nranks)
{
	if (o->op != OP_ALLREDUCE)
		return o->op == OP_BROADCAST ? "chain" :
		       o->op == OP_REDUCESCATTER || o->op == OP_ALLGATHER ?
		       "ring" : "direct";
	if (o->alg == ALG_RING || !is_pow2(nranks))
		return "ring";
	return o->alg == ALG_HD ? "hd" : "auto";
}

static double last_progress;

/* rank 0 tells on stderr how a long run goes, at most every 5 s */
static void progress(const struct transport *t, const char *what)
{
	if (t->rank || now_s() - last_progress < 5)
		return;
	sc_info("progress: %s", what);
	last_progress = now_s();
}

/* transport counters of this rank's namespace, read around each size */
struct cnt {
	const struct counters_src *src;
	void *ctx;		/* NULL: not read here */
	int owner;		/* first rank of its namespace: reports it */
	struct counters_sample before;
};

/* one size: warm-up, timed loop, check, gather and report */
static int run_size(struct transport *t, struct boot *b, size_t bytes,
		    double *busbw_sum, long *wrong_total, struct cnt *cn)
{
	struct counters_delta mine, *dall = NULL, sum;
	struct counters_sample after;
	const struct sc_opts *o = t->o;
	int n = t->nranks, i, err = 0;
	double *it = xzalloc(o->iters * sizeof(double));
	double *all = NULL, t0, tb = o->timeout + 1;
	uint64_t *txall = NULL;
	long wrong = 0, *wall = NULL;
	struct size_result res = { .bytes = bytes, .count = bytes / 4 };
	struct coll c;
	char ctx[160];

	memset(&mine, 0, sizeof(mine));
	memset(&sum, 0, sizeof(sum));
	if (o->counters && cn->ctx && cn->owner &&
	    cn->src->sample(cn->ctx, &cn->before)) {
		sc_err("counters: reading them failed; not reported");
		cn->src->close(cn->ctx);
		cn->ctx = NULL;
	}
	coll_setup(&c, t, o->op, o->alg, o->hd_max, bytes);
	if (o->op == OP_ALLREDUCE)
		res.alg = c.alg == ALG_HD ? "hd" : "ring";
	coll_fill(&c);
	t->ctx = ctx;

	for (i = 0; i < o->warmup && !err; i++) {
		snprintf(ctx, sizeof(ctx), "%s size %zu warm-up %d",
			 op_names[o->op], bytes, i);
		err = barrier(b, tb) ?: coll_run(&c, now_s() + o->timeout);
		progress(t, ctx);
	}
	memset(t->tx_bytes, 0, n * sizeof(uint64_t));
	for (i = 0; i < o->iters && !err; i++) {
		snprintf(ctx, sizeof(ctx), "%s size %zu iteration %d",
			 op_names[o->op], bytes, i);
		err = barrier(b, tb);
		if (err)
			break;
		if (o->inject_stall_rank == t->rank) {
			sc_info("fault injection: stalling in %s", ctx);
			sleep((unsigned int)(2 * o->timeout) + 1);
			sc_err("fault injection: stalled on purpose");
			err = -1;
			break;
		}
		progress(t, ctx);
		t0 = now_s();
		err = coll_run(&c, t0 + o->timeout);
		it[i] = now_s() - t0;
	}
	if (!err && o->check) {
		snprintf(ctx, sizeof(ctx), "%s size %zu check",
			 op_names[o->op], bytes);
		coll_poison(&c);
		err = barrier(b, tb) ?: coll_run(&c, now_s() + o->timeout);
		if (!err)
			wrong = coll_check(&c);
	}
	coll_free(&c);
	if (!err && t->ops->flush)
		err = t->ops->flush(t, now_s() + o->timeout);
	if (err) {
		free(it);
		return -1;
	}
	if (o->counters && cn->ctx && cn->owner) {
		if (cn->src->sample(cn->ctx, &after)) {
			sc_err("counters: reading them failed; not reported");
			cn->src->close(cn->ctx);
			cn->ctx = NULL;
		} else {
			counters_delta(&cn->before, &after, &mine);
		}
		free(after.path);
		free(cn->before.path);
		cn->before.path = NULL;
	}

	b->timeout = tb;
	if (!t->rank) {
		all = xzalloc(n * o->iters * sizeof(double));
		wall = xzalloc(n * sizeof(long));
		txall = xzalloc(n * n * sizeof(uint64_t));
	}
	if (!t->rank && o->counters)
		dall = xzalloc(n * sizeof(*dall));
	if (boot_gather(b, it, all, o->iters * sizeof(double)) ||
	    boot_gather(b, &wrong, wall, sizeof(long)) ||
	    (o->counters && boot_gather(b, &mine, dall, sizeof(mine))) ||
	    (o->per_peer &&
	     boot_gather(b, t->tx_bytes, txall, n * sizeof(uint64_t)))) {
		err = -1;
		goto out;
	}
	if (!t->rank) {
		double *pt = o->per_peer ? xzalloc(n * n * sizeof(double)) : NULL;
		double *peer_el = NULL;
		int r;

		/* an iteration lasts until its slowest rank is done */
		for (i = 0; i < o->iters; i++)
			for (r = 0; r < n; r++)
				if (all[r * o->iters + i] > it[i])
					it[i] = all[r * o->iters + i];
		for (r = 0; r < n; r++)
			wrong += r ? wall[r] : 0;
		if (pt) {
			peer_el = xzalloc(n * sizeof(double));
			for (r = 0; r < n; r++)
				for (i = 0; i < o->iters; i++)
					peer_el[r] += all[r * o->iters + i];
			for (i = 0; i < n * n; i++)
				pt[i] = peer_el[i / n] > 0 ?
					txall[i] / peer_el[i / n] / 1e9 : 0;
		}
		if (dall)
			for (r = 0; r < n; r++)
				counters_add(&sum, &dall[r]);
		res.counters = o->counters;
		res.cnt = sum.valid ? &sum : NULL;
		res.wrong = wrong;
		res.check = o->check;
		res.peer_tx = pt;
		stats_compute(&res, it, o->iters, n, o->op);
		report_size(o, n, &res);
		*busbw_sum += res.busbw;
		*wrong_total += wrong;
		free(pt);
		free(peer_el);
	}
out:
	free(it);
	free(all);
	free(wall);
	free(txall);
	free(dall);
	return err;
}

/*
 * Open the counters of this rank's network namespace. Counters are per
 * namespace: of ranks sharing one, only the first reports them, so that
 * rank 0's sums count each namespace once.
 */
static int cnt_open(struct cnt *cn, struct boot *b, int rank, int nranks)
{
	char key[64], *keys;
	struct stat st;
	int i;

	cn->src = &counters_spray;
	cn->ctx = cn->src->open(NULL);
	memset(key, 0, sizeof(key));
	gethostname(key, 40);
	if (!stat("/proc/self/ns/net", &st))
		snprintf(key + strlen(key), sizeof(key) - strlen(key),
			 ":%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
	keys = xzalloc(nranks * sizeof(key));
	if (boot_allgather(b, key, keys, sizeof(key))) {
		free(keys);
		return -1;
	}
	cn->owner = 1;
	for (i = 0; i < rank; i++)
		if (!memcmp(keys + i * sizeof(key), key, sizeof(key)))
			cn->owner = 0;
	free(keys);
	return 0;
}

static int run_rank(const struct sc_opts *o, int rank, int nranks,
		    const char *master, int mport, int listen_fd)
{
	struct cnt cn = { .src = &counters_none };
	struct transport t;
	struct boot b;
	char ip[INET6_ADDRSTRLEN], *blobs = NULL, blob[SC_BLOB_MAX];
	const char *addr;
	size_t bloblen = 0, s;
	double busbw_sum = 0, last = now_s(), t_start = last;
	long wrong_total = 0;
	int nsizes = 0, err = -1, header = 0;

	sc_rank = rank;
	last_progress = last;
	if (check_sizes(o, nranks))
		return 1;
	if (boot_init(&b, rank, nranks, master, mport, listen_fd,
		      o->boot_timeout))
		return 1;
	b.timeout = o->boot_timeout;

	if (o->addrs)
		addr = o->addrs[rank];
	else if (o->addr)
		addr = o->addr;
	else if (o->launch == LAUNCH_LOCAL)
		addr = "127.0.0.1";
	else
		addr = sock_ip(&b.local, ip, sizeof(ip));

	transport_init(&t, o, rank, nranks);
	memset(blob, 0, sizeof(blob));
	if (t.ops->open(&t, addr, blob, &bloblen))
		goto out;
	blobs = xzalloc(nranks * SC_BLOB_MAX);
	/*
	 * The barrier after the data connections waits 2 s longer than they
	 * may take: a rank that cannot connect says so (and to whom) before
	 * rank 0 gives up on it with a vaguer message.
	 */
	if (boot_allgather(&b, blob, blobs, SC_BLOB_MAX) ||
	    t.ops->connect(&t, blobs, now_s() + o->boot_timeout) ||
	    barrier(&b, o->boot_timeout + 2))
		goto out;

	if (o->counters && cnt_open(&cn, &b, rank, nranks))
		goto out;
	if (!rank) {
		report_header(o, nranks, alg_name(o, nranks));
		header = 1;
	}
	for (s = o->minbytes;; s *= o->factor) {
		if (run_size(&t, &b, s, &busbw_sum, &wrong_total, &cn))
			goto out_cs;
		nsizes++;
		if (!rank && (o->verbose || now_s() - last > 2)) {
			sc_info("progress: size %zu done, %.1f s elapsed", s,
				now_s() - t_start);
			last = now_s();
			last_progress = last;
		}
		if (s > o->maxbytes / o->factor)
			break;
	}
	/*
	 * Every rank's sends are acknowledged (run_size flushed them); wait
	 * until all ranks are there before closing the data socket: a rank
	 * that closed while a peer still retransmits a message whose ACK was
	 * lost would make that message fail at the peer (ECONNREFUSED).
	 */
	if ((t.ops->flush && t.ops->flush(&t, now_s() + o->timeout)) ||
	    barrier(&b, o->timeout + 1))
		goto out_cs;
	err = 0;
out_cs:
	cn.src->close(cn.ctx);
out:
	if (!rank && header)
		report_footer(o, nranks, wrong_total,
			      nsizes ? busbw_sum / nsizes : 0,
			      err ? -1 : nsizes);
	t.failed = err;
	t.ops->close(&t);
	boot_close(&b);
	free(blobs);
	if (err)
		return 1;
	return wrong_total ? 2 : 0;
}

/* listening socket created inside network namespace @ns (or here) */
static int listen_in_ns(const char *ns, const char *addr, int port,
			int *port_out)
{
	char path[300];
	int self, target, fd;

	if (!ns)
		return boot_listen(addr, port, port_out);
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || target < 0 || setns(target, CLONE_NEWNET)) {
		sc_err("cannot enter network namespace %s: %s", path,
		       strerror(errno));
		return -1;
	}
	fd = boot_listen(addr, port, port_out);
	if (setns(self, CLONE_NEWNET)) {
		sc_err("cannot return to the initial namespace: %s",
		       strerror(errno));
		return -1;
	}
	close(self);
	close(target);
	return fd;
}

static int enter_ns(const char *ns)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		sc_err("cannot enter network namespace %s: %s", path,
		       strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int launch_local(struct sc_opts *o)
{
	int n = o->local_n, i, lfd, port, failed = 0, left, st;
	const char *baddr;
	pid_t *pids;
	double kill_at = 0;

	if (check_sizes(o, n))
		return 1;
	baddr = o->master_addr ? o->master_addr :
		o->addrs ? o->addrs[0] : "127.0.0.1";
	lfd = listen_in_ns(o->netns ? o->netns[0] : NULL, baddr,
			   o->master_addr ? o->master_port : 0, &port);
	if (lfd < 0)
		return 1;
	fflush(stdout);
	pids = xzalloc(n * sizeof(pid_t));
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			sc_err("fork: %s", strerror(errno));
			for (left = 0; left < i; left++)
				kill(pids[left], SIGKILL);
			return 1;
		}
		if (!pids[i]) {
			sc_rank = i;
			srandom(time(NULL) ^ getpid());
			if (o->netns && enter_ns(o->netns[i]))
				_exit(1);
			if (i)
				close(lfd);
			st = run_rank(o, i, n, baddr, port, i ? -1 : lfd);
			fflush(stdout);
			_exit(st);
		}
	}
	close(lfd);
	/* reap; once a rank failed, give the others time to notice */
	for (left = n; left > 0;) {
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p > 0) {
			for (i = 0; i < n && pids[i] != p; i++)
				;
			left--;
			if (i < n)
				pids[i] = 0;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				continue;
			if (!failed || WEXITSTATUS(st) > failed)
				failed = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
			if (!WIFEXITED(st))
				sc_err("rank %d killed by signal %d", i,
				       WTERMSIG(st));
			if (!kill_at)
				kill_at = now_s() + 2 * o->timeout + 5;
			continue;
		}
		if (kill_at && now_s() > kill_at) {
			for (i = 0; i < n; i++) {
				if (!pids[i])
					continue;
				sc_err("rank %d still running after a peer "
				       "failed: killing it", i);
				kill(pids[i], SIGKILL);
			}
			kill_at = 0;
		}
		usleep(10000);
	}
	free(pids);
	return failed;
}

static int env_int(const char *name, long *v)
{
	const char *s = getenv(name);

	if (!s)
		return 0;
	if (parse_int(s, name, 0, 1 << 20, v))
		return -1;
	return 1;
}

static int launch_env(struct sc_opts *o)
{
	long rank, size, port;
	const char *rn = "RANK", *sn = "WORLD_SIZE";
	int r1, r2;

	if (getenv("OMPI_COMM_WORLD_RANK")) {
		rn = "OMPI_COMM_WORLD_RANK";
		sn = "OMPI_COMM_WORLD_SIZE";
		o->launch = LAUNCH_OMPI;
	} else if (getenv("RANK")) {
		o->launch = LAUNCH_TORCHRUN;
	} else {
		sc_err("no launcher: use --local N, or set RANK, WORLD_SIZE, "
		       "MASTER_ADDR, MASTER_PORT (torchrun style), or run "
		       "under mpirun");
		fputs(usage, stderr);
		return 1;
	}
	r1 = env_int(rn, &rank);
	r2 = env_int(sn, &size);
	if (r1 < 0 || r2 < 0)
		return 1;
	if (!r2) {
		sc_err("%s is set but %s is not", rn, sn);
		return 1;
	}
	if (rank >= size) {
		sc_err("%s=%ld is not below %s=%ld", rn, rank, sn, size);
		return 1;
	}
	if (!o->master_addr) {
		o->master_addr = getenv("MASTER_ADDR");
		if (!o->master_addr || env_int("MASTER_PORT", &port) <= 0) {
			sc_err("the bootstrap needs MASTER_ADDR and MASTER_PORT "
			       "(or --master ADDR:PORT)%s",
			       o->launch == LAUNCH_OMPI ?
			       "; with mpirun pass them with -x" : "");
			return 1;
		}
		o->master_port = port;
	}
	if (o->addrs) {
		if (o->n_addrs != size) {
			sc_err("--addrs has %d addresses for %ld ranks",
			       o->n_addrs, size);
			return 1;
		}
	}
	sc_rank = rank;
	srandom(time(NULL) ^ getpid());
	if (!rank) {
		int fd = boot_listen(o->master_addr, o->master_port, NULL);

		if (fd < 0) {
			sc_info("listening on all addresses instead");
			fd = boot_listen(strchr(o->master_addr, ':') ? "::" :
					 "0.0.0.0", o->master_port, NULL);
			if (fd < 0)
				return 1;
		}
		return run_rank(o, 0, size, o->master_addr, o->master_port,
				fd);
	}
	return run_rank(o, rank, size, o->master_addr, o->master_port, -1);
}

int main(int argc, char **argv)
{
	struct sc_opts o;

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (parse_opts(argc, argv, &o))
		return 1;
	if (o.launch == LAUNCH_LOCAL)
		return launch_local(&o);
	if (o.netns) {
		sc_err("--netns needs --local");
		return 1;
	}
	return launch_env(&o);
}

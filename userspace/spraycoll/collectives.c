// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: the collective patterns, written against the transport vtable
 * as groups of matched sends and receives, plus data fill and check.
 *
 * Buffers are float32, out of place (sbuf -> rbuf) as nccl-tests. Rank r's
 * input element i is val(r, i): a small integer, so every sum of up to a
 * few thousand ranks is exact in float32 in any order, and the check can
 * demand bit-exact results. val() depends on the rank, so data from the
 * wrong peer or the wrong offset is caught too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spraycoll.h"

const char *const op_names[OP_NR] = {
	[OP_ALLREDUCE] = "allreduce",
	[OP_REDUCESCATTER] = "reducescatter",
	[OP_ALLGATHER] = "allgather",
	[OP_ALLTOALL] = "alltoall",
	[OP_BROADCAST] = "broadcast",
	[OP_INCAST] = "incast",
	[OP_SENDRECV] = "sendrecv",
};

int op_parse(const char *s)
{
	int i;

	for (i = 0; i < OP_NR; i++)
		if (!strcmp(s, op_names[i]))
			return i;
	return -1;
}

static inline float val(int r, size_t i)
{
	return (float)((int)((i * 7 + (size_t)r * 131) % 251) - 125);
}

double busbw_factor(enum sc_op op, int n)
{
	switch (op) {
	case OP_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case OP_REDUCESCATTER:
	case OP_ALLGATHER:
	case OP_ALLTOALL:
		return (double)(n - 1) / n;
	default:
		return 1.0;
	}
}

/* bytes must be a positive multiple of 4, times n where split in n */
int coll_check_size(enum sc_op op, size_t bytes, int n, char *why, size_t len)
{
	size_t unit = sizeof(float);

	if (op == OP_REDUCESCATTER || op == OP_ALLGATHER || op == OP_ALLTOALL)
		unit *= n;
	if (!bytes) {
		snprintf(why, len, "size 0: sizes must be positive");
		return -1;
	}
	if (bytes % unit) {
		snprintf(why, len, "size %zu is not a multiple of %zu (%s%s)",
			 bytes, unit, unit == sizeof(float) ? "float32" :
			 "float32 x ranks for ", unit == sizeof(float) ? "" :
			 op_names[op]);
		return -1;
	}
	if (bytes > ((size_t)1 << 32) - 1) {
		snprintf(why, len, "size %zu is above 4 GiB - 1", bytes);
		return -1;
	}
	return 0;
}

int coll_setup(struct coll *c, struct transport *t, enum sc_op op,
	       enum sc_alg alg, size_t hd_max, size_t bytes)
{
	int n = t->nranks;

	memset(c, 0, sizeof(*c));
	c->t = t;
	c->op = op;
	c->bytes = bytes;
	c->count = bytes / sizeof(float);
	if (op == OP_ALLREDUCE && alg == ALG_AUTO)
		alg = bytes <= hd_max && is_pow2(n) ? ALG_HD : ALG_RING;
	if (alg == ALG_HD && !is_pow2(n))
		alg = ALG_RING;
	c->alg = op == OP_ALLREDUCE ? alg : ALG_RING;

	c->sbytes = c->rbytes = bytes;
	switch (op) {
	case OP_ALLREDUCE:
		c->tbytes = bytes;
		break;
	case OP_REDUCESCATTER:
		c->rbytes = bytes / n;
		c->tbytes = bytes + bytes / n;	/* work + one segment */
		break;
	case OP_ALLGATHER:
		c->sbytes = bytes / n;
		break;
	case OP_INCAST:
		if (t->rank == 0)
			c->rbytes = bytes * n;
		break;
	default:
		break;
	}
	c->sbuf = xzalloc(c->sbytes);
	c->rbuf = xzalloc(c->rbytes);
	c->tmp = c->tbytes ? xzalloc(c->tbytes) : NULL;
	return 0;
}

void coll_free(struct coll *c)
{
	free(c->sbuf);
	free(c->rbuf);
	free(c->tmp);
}

/* offset (elements) of segment @i of @count split in @n */
static inline size_t seg(size_t count, int n, int i)
{
	return count * (size_t)i / n;
}

static inline int mod(int a, int n)
{
	return ((a % n) + n) % n;
}

static void add(float *d, const float *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] += s[i];
}

static int xchg(struct transport *t, int to, void *sb, size_t sl, int from,
		void *rb, size_t rl, uint32_t step, double deadline)
{
	struct xfer x[2];

	xfer_set(&x[0], to, 1, step, sb, sl);
	xfer_set(&x[1], from, 0, step, rb, rl);
	return t->ops->run(t, x, 2, deadline);
}

/*
 * Ring reduce-scatter over @w (count elements): afterwards rank r holds the
 * full sum of segment r. @tmp holds one segment.
 */
static int ring_rs(struct transport *t, float *w, size_t count, float *tmp,
		   uint32_t step0, double deadline)
{
	int n = t->nranks, r = t->rank, s, err;
	int right = mod(r + 1, n), left = mod(r - 1, n);

	for (s = 0; s < n - 1; s++) {
		int ss = mod(r - s - 1, n), rs = mod(r - s - 2, n);
		size_t so = seg(count, n, ss), sl = seg(count, n, ss + 1) - so;
		size_t ro = seg(count, n, rs), rl = seg(count, n, rs + 1) - ro;

		err = xchg(t, right, w + so, sl * 4, left, tmp, rl * 4,
			   step0 + s, deadline);
		if (err)
			return err;
		add(w + ro, tmp, rl);
	}
	return 0;
}

/* Ring all-gather over @w: rank r starts with segment r, ends with all. */
static int ring_ag(struct transport *t, float *w, size_t count,
		   uint32_t step0, double deadline)
{
	int n = t->nranks, r = t->rank, s, err;
	int right = mod(r + 1, n), left = mod(r - 1, n);

	for (s = 0; s < n - 1; s++) {
		int ss = mod(r - s, n), rs = mod(r - s - 1, n);
		size_t so = seg(count, n, ss), sl = seg(count, n, ss + 1) - so;
		size_t ro = seg(count, n, rs), rl = seg(count, n, rs + 1) - ro;

		err = xchg(t, right, w + so, sl * 4, left, w + ro, rl * 4,
			   step0 + s, deadline);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Halving-doubling all-reduce (Rabenseifner), n a power of two: recursive
 * halving reduce-scatter, then recursive doubling all-gather; log2(n)
 * steps each, so few messages for small sizes.
 */
static int hd_allreduce(struct transport *t, float *w, size_t count,
			float *tmp, double deadline)
{
	int n = t->nranks, r = t->rank, k, L = 0, err;
	size_t lo = 0, hi = count, los[32], mids[32], his[32];

	while ((1 << L) < n)
		L++;
	for (k = 0; k < L; k++) {
		int mask = n >> (k + 1), peer = r ^ mask;
		size_t mid = lo + (hi - lo) / 2;

		los[k] = lo;
		mids[k] = mid;
		his[k] = hi;
		if (r & mask) {		/* keep the upper half */
			err = xchg(t, peer, w + lo, (mid - lo) * 4, peer, tmp,
				   (hi - mid) * 4, k, deadline);
			if (err)
				return err;
			add(w + mid, tmp, hi - mid);
			lo = mid;
		} else {
			err = xchg(t, peer, w + mid, (hi - mid) * 4, peer, tmp,
				   (mid - lo) * 4, k, deadline);
			if (err)
				return err;
			add(w + lo, tmp, mid - lo);
			hi = mid;
		}
	}
	for (k = L - 1; k >= 0; k--) {
		int mask = n >> (k + 1), peer = r ^ mask;
		size_t l = los[k], m = mids[k], h = his[k];

		if (r & mask)
			err = xchg(t, peer, w + m, (h - m) * 4, peer, w + l,
				   (m - l) * 4, L + k, deadline);
		else
			err = xchg(t, peer, w + l, (m - l) * 4, peer, w + m,
				   (h - m) * 4, L + k, deadline);
		if (err)
			return err;
	}
	return 0;
}

static int alltoall(struct coll *c, double deadline)
{
	struct transport *t = c->t;
	int n = t->nranks, r = t->rank, i, k = 0, err;
	size_t blk = c->count / n;
	struct xfer *x = xzalloc(2 * n * sizeof(*x));

	memcpy(c->rbuf + r * blk, c->sbuf + r * blk, blk * 4);
	/* post in a rotated order so not every rank hits rank 0 first */
	for (i = 1; i < n; i++) {
		int to = mod(r + i, n), from = mod(r - i, n);

		xfer_set(&x[k++], to, 1, 0, c->sbuf + to * blk, blk * 4);
		xfer_set(&x[k++], from, 0, 0, c->rbuf + from * blk, blk * 4);
	}
	err = t->ops->run(t, x, k, deadline);
	free(x);
	return err;
}

/* chain broadcast from rank 0, pipelined in chunks of -C bytes */
static int broadcast(struct coll *c, double deadline)
{
	struct transport *t = c->t;
	int n = t->nranks, r = t->rank, err;
	size_t pipe = t->o->chunk, K = (c->bytes + pipe - 1) / pipe, k;
	char *b = (char *)c->rbuf;

	if (r == 0)
		memcpy(c->rbuf, c->sbuf, c->bytes);
	for (k = 0; k <= K; k++) {
		struct xfer x[2];
		int nx = 0;

		if (r > 0 && k < K)
			xfer_set(&x[nx++], r - 1, 0, k, b + k * pipe,
				 k == K - 1 ? c->bytes - k * pipe : pipe);
		if (r < n - 1 && (r == 0 ? k < K : k >= 1)) {
			size_t kk = r == 0 ? k : k - 1;

			xfer_set(&x[nx++], r + 1, 1, kk, b + kk * pipe,
				 kk == K - 1 ? c->bytes - kk * pipe : pipe);
		}
		if (nx) {
			err = t->ops->run(t, x, nx, deadline);
			if (err)
				return err;
		}
	}
	return 0;
}

static int incast(struct coll *c, double deadline)
{
	struct transport *t = c->t;
	int n = t->nranks, i, err;
	struct xfer *x;

	if (t->rank)
		return tp_send(t, 0, 0, c->sbuf, c->bytes, deadline);
	x = xzalloc(n * sizeof(*x));
	memcpy(c->rbuf, c->sbuf, c->bytes);
	for (i = 1; i < n; i++)
		xfer_set(&x[i - 1], i, 0, 0, (char *)c->rbuf + i * c->bytes,
			 c->bytes);
	err = t->ops->run(t, x, n - 1, deadline);
	free(x);
	return err;
}

int coll_run(struct coll *c, double deadline)
{
	struct transport *t = c->t;
	int n = t->nranks, r = t->rank, err = -EINVAL;
	size_t cnt = c->count;

	t->coll++;
	switch (c->op) {
	case OP_ALLREDUCE:
		memcpy(c->rbuf, c->sbuf, c->bytes);
		if (c->alg == ALG_HD)
			return hd_allreduce(t, c->rbuf, cnt, c->tmp, deadline);
		err = ring_rs(t, c->rbuf, cnt, c->tmp, 0, deadline);
		if (!err)
			err = ring_ag(t, c->rbuf, cnt, n, deadline);
		break;
	case OP_REDUCESCATTER: {
		float *w = c->tmp + cnt / n;

		memcpy(w, c->sbuf, c->bytes);
		err = ring_rs(t, w, cnt, c->tmp, 0, deadline);
		if (!err)
			memcpy(c->rbuf, w + seg(cnt, n, r), c->rbytes);
		break;
	}
	case OP_ALLGATHER:
		memcpy(c->rbuf + seg(cnt, n, r), c->sbuf, c->sbytes);
		err = ring_ag(t, c->rbuf, cnt, 0, deadline);
		break;
	case OP_ALLTOALL:
		err = alltoall(c, deadline);
		break;
	case OP_BROADCAST:
		err = broadcast(c, deadline);
		break;
	case OP_INCAST:
		err = incast(c, deadline);
		break;
	case OP_SENDRECV:
		err = xchg(t, mod(r + 1, n), c->sbuf, c->bytes, mod(r - 1, n),
			   c->rbuf, c->bytes, 0, deadline);
		break;
	default:
		break;
	}
	return err;
}

void coll_fill(struct coll *c)
{
	int n = c->t->nranks, r = c->t->rank;
	size_t i, cnt = c->count, off = 0, sc = c->sbytes / 4;

	if (c->op == OP_ALLGATHER)
		off = seg(cnt, n, r);
	for (i = 0; i < sc; i++)
		c->sbuf[i] = val(r, off + i);
}

/* NaN everywhere the collective must write */
void coll_poison(struct coll *c)
{
	memset(c->rbuf, 0xff, c->rbytes);
}

static float sum_all(int n, size_t i)
{
	float s = 0;
	int r;

	for (r = 0; r < n; r++)
		s += val(r, i);
	return s;
}

/* number of wrong elements on this rank */
long coll_check(struct coll *c)
{
	int n = c->t->nranks, r = c->t->rank, p;
	size_t i, cnt = c->count, blk = cnt / n, off;
	long wrong = 0;
	float *o = c->rbuf;

	switch (c->op) {
	case OP_ALLREDUCE:
		for (i = 0; i < cnt; i++)
			wrong += o[i] != sum_all(n, i);
		break;
	case OP_REDUCESCATTER:
		off = seg(cnt, n, r);
		for (i = 0; i < c->rbytes / 4; i++)
			wrong += o[i] != sum_all(n, off + i);
		break;
	case OP_ALLGATHER:
		for (p = 0; p < n; p++)
			for (i = seg(cnt, n, p); i < seg(cnt, n, p + 1); i++)
				wrong += o[i] != val(p, i);
		break;
	case OP_ALLTOALL:
		for (p = 0; p < n; p++)
			for (i = 0; i < blk; i++)
				wrong += o[p * blk + i] != val(p, r * blk + i);
		break;
	case OP_BROADCAST:
		for (i = 0; i < cnt; i++)
			wrong += o[i] != val(0, i);
		break;
	case OP_INCAST:
		if (r)
			break;
		for (p = 0; p < n; p++)
			for (i = 0; i < cnt; i++)
				wrong += o[p * cnt + i] != val(p, i);
		break;
	case OP_SENDRECV:
		p = mod(r - 1, n);
		for (i = 0; i < cnt; i++)
			wrong += o[i] != val(p, i);
		break;
	default:
		break;
	}
	return wrong;
}

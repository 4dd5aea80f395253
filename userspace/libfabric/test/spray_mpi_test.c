// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MPI over the spray provider (selftests/libfabric.sh, scripts/bench):
 *
 *   spray_mpi_test coll MIN MAX [ITERS [STEP [OPS]]]   allreduce,
 *        reduce_scatter, allgather, alltoall, bcast (OPS: a subset, e.g.
 *        "allreduce,bcast") from MIN to MAX bytes per rank (x STEP, 4 by
 *        default), every result checked element by element
 *   spray_mpi_test p2p N                  every rank sends N tagged
 *        messages to rank 0 before it posts a receive (unexpected
 *        queue), received in reverse tag order, some through
 *        MPI_Improbe + MPI_Mrecv (FI_PEEK | FI_CLAIM), plus a 20 MiB
 *        message that arrives unexpected (split and reassembled)
 *   spray_mpi_test loop BYTES SECONDS      allreduce again and again,
 *        results checked; errors return (MPI_ERRORS_RETURN) and are
 *        printed with the rank, then MPI_Abort
 *   spray_mpi_test bench SIZE... ITERS     allreduce busbw per size
 *        (nccl-tests' definition: 2 (n - 1) / n x bytes / time)
 *
 * Prints "OK" last on rank 0 when every check passed.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void die(const char *what, int err)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(err, s, &len);
	fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, s);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 3);
}

#define MPI_TRY(call) do { int _e = (call); if (_e != MPI_SUCCESS) die(#call, _e); } while (0)

static int32_t val(int r, size_t i, int it)
{
	return (int32_t)((r + 1) * 7 + (i & 0xffff) * 3 + it * 11);
}

/* the sum of val() over every rank, in closed form: checks stay O(n) */
static int32_t sum(size_t i, int it)
{
	return (int32_t)(7 * size * (size + 1) / 2 +
			 size * ((int64_t)(i & 0xffff) * 3 + it * 11));
}

static int coll(size_t min, size_t max, int iters, size_t step, const char *ops)
{
	int bad = 0, it;
	size_t bytes;

	if (!rank)
		printf("# %-14s %12s %10s %12s\n", "op", "bytes", "us", "busbw_MBps");
	for (bytes = min; bytes <= max; bytes *= step) {
		size_t n = bytes / 4 < (size_t)size ? (size_t)size : bytes / 4, i;
		size_t per = n / size;
		int32_t *a, *b;
		double t0, t;

		n = per * size;
		a = malloc(n * 4);
		b = malloc(n * 4);
		for (it = 0; it < iters; it++) {
			/* allreduce */
			if (strstr(ops, "allreduce")) {
				for (i = 0; i < n; i++)
					a[i] = val(rank, i, it);
				MPI_Barrier(MPI_COMM_WORLD);
				t0 = MPI_Wtime();
				MPI_TRY(MPI_Allreduce(a, b, (int)n, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD));
				t = MPI_Wtime() - t0;
				for (i = 0; i < n; i++)
					if (b[i] != sum(i, it)) {
						bad++;
						break;
					}
				if (!rank && !it)
					printf("  %-14s %12zu %10.0f %12.2f\n", "allreduce", n * 4,
					       t * 1e6, 2.0 * (size - 1) / size * n * 4 / t / 1e6);
			}
			/* reduce_scatter */
			if (strstr(ops, "reduce_scatter")) {
				for (i = 0; i < n; i++)
					a[i] = val(rank, i, it);
				MPI_TRY(MPI_Reduce_scatter_block(a, b, (int)per, MPI_INT32_T,
								 MPI_SUM, MPI_COMM_WORLD));
				for (i = 0; i < per; i++)
					if (b[i] != sum(rank * per + i, it)) {
						bad++;
						break;
					}
			}
			/* allgather */
			if (strstr(ops, "allgather")) {
				for (i = 0; i < per; i++)
					a[i] = val(rank, i, it);
				MPI_TRY(MPI_Allgather(a, (int)per, MPI_INT32_T, b, (int)per,
						      MPI_INT32_T, MPI_COMM_WORLD));
				for (i = 0; i < n; i++)
					if (b[i] != val((int)(i / per), i % per, it)) {
						bad++;
						break;
					}
			}
			/* alltoall: block j of rank r goes to rank j */
			if (strstr(ops, "alltoall")) {
				for (i = 0; i < n; i++)
					a[i] = val(rank, i, it) ^ (int32_t)(i / per);
				MPI_TRY(MPI_Alltoall(a, (int)per, MPI_INT32_T, b, (int)per,
						     MPI_INT32_T, MPI_COMM_WORLD));
				for (i = 0; i < n; i++) {
					int src = (int)(i / per);

					if (b[i] != (val(src, rank * per + i % per, it) ^ rank)) {
						bad++;
						break;
					}
			}
			}
			/* bcast from a rank that changes */
			if (strstr(ops, "bcast")) {
				for (i = 0; i < n; i++)
					a[i] = rank == it % size ? val(it % size, i, it) : -1;
				MPI_TRY(MPI_Bcast(a, (int)n, MPI_INT32_T, it % size, MPI_COMM_WORLD));
				for (i = 0; i < n; i++)
					if (a[i] != val(it % size, i, it)) {
						bad++;
						break;
					}
			}
		}
		MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
		if (!rank)
			printf("%s %zu bytes: %s x%d\n", bad ? "WRONG" : "checked", n * 4,
			       ops, iters);
		fflush(stdout);
		free(a);
		free(b);
		if (bad)
			return 1;
	}
	return 0;
}

static int p2p(int nmsg)
{
	int bad = 0, i, r;

	if (rank) {
		MPI_Request *rq = malloc(nmsg * sizeof(*rq));
		int *m = malloc(nmsg * sizeof(*m));

		for (i = 0; i < nmsg; i++) {
			m[i] = rank * 1000000 + i;
			MPI_TRY(MPI_Isend(&m[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &rq[i]));
		}
		MPI_TRY(MPI_Waitall(nmsg, rq, MPI_STATUSES_IGNORE));
		MPI_Barrier(MPI_COMM_WORLD);
		free(rq);
		free(m);
	} else {
		/* every message is in before the first receive is posted */
		MPI_Barrier(MPI_COMM_WORLD);
		for (r = 1; r < size; r++) {
			for (i = nmsg - 1; i >= 0; i--) {
				int v = -1;

				if (i % 10 == 3) {	/* MPI_Improbe + MPI_Mrecv */
					MPI_Message msg;
					MPI_Status st;
					int flag = 0;

					while (!flag)
						MPI_TRY(MPI_Improbe(r, i, MPI_COMM_WORLD, &flag,
								    &msg, &st));
					MPI_TRY(MPI_Mrecv(&v, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
				} else {
					MPI_TRY(MPI_Recv(&v, 1, MPI_INT, r, i, MPI_COMM_WORLD,
							 MPI_STATUS_IGNORE));
				}
				if (v != r * 1000000 + i)
					bad++;
			}
		}
		printf("rank 0 received %d unexpected messages from %d ranks in reverse order: %d wrong\n",
		       nmsg * (size - 1), size - 1, bad);
	}
	/* a 20 MiB message, unexpected at its receiver */
	if (size > 2 && rank < 3 && rank) {
		size_t n = 20u << 20, k;
		unsigned char *b = malloc(n);

		if (rank == 1) {
			for (k = 0; k < n; k++)
				b[k] = (unsigned char)(k * 13 + (k >> 16));
			MPI_TRY(MPI_Send(b, (int)n, MPI_BYTE, 2, 77, MPI_COMM_WORLD));
		} else {
			MPI_Status st;
			int flag = 0;

			while (!flag)	/* MPI_Iprobe: FI_PEEK until it is all in */
				MPI_TRY(MPI_Iprobe(1, 77, MPI_COMM_WORLD, &flag, &st));
			memset(b, 0, n);
			MPI_TRY(MPI_Recv(b, (int)n, MPI_BYTE, 1, 77, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE));
			for (k = 0; k < n; k++)
				if (b[k] != (unsigned char)(k * 13 + (k >> 16))) {
					bad++;
					break;
				}
			printf("rank 2 received 20 MiB unexpected from rank 1: %s\n",
			       bad ? "WRONG" : "checked");
		}
		free(b);
	}
	MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	return bad != 0;
}

static int loop(size_t bytes, double secs)
{
	size_t n = bytes / 4, i;
	int32_t *a = malloc(n * 4), *b = malloc(n * 4);
	double end = MPI_Wtime() + secs;
	int it = 0, e;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	while (MPI_Wtime() < end) {
		for (i = 0; i < n; i++)
			a[i] = val(rank, i, it);
		e = MPI_Allreduce(a, b, (int)n, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
		if (e != MPI_SUCCESS) {
			char s[MPI_MAX_ERROR_STRING];
			int len = 0;

			MPI_Error_string(e, s, &len);
			fprintf(stderr, "rank %d: MPI_Allreduce failed after %d iterations: %s\n",
				rank, it, s);
			fflush(stderr);
			MPI_Abort(MPI_COMM_WORLD, 4);
		}
		it++;
		if (!rank && it % 10 == 0) {
			printf("iteration %d\n", it);
			fflush(stdout);
		}
	}
	free(a);
	free(b);
	return 0;
}

static int bench(int argc, char **argv)
{
	int iters = atoi(argv[argc - 1]), k, it;

	for (k = 2; k < argc - 1; k++) {
		size_t bytes = strtoul(argv[k], NULL, 0), n = bytes / 4;
		int32_t *a = calloc(n, 4), *b = calloc(n, 4);
		double t0, t, best = 1e30;

		MPI_TRY(MPI_Allreduce(a, b, (int)n, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD));
		for (it = 0; it < iters; it++) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
			MPI_TRY(MPI_Allreduce(a, b, (int)n, MPI_INT32_T, MPI_SUM,
					      MPI_COMM_WORLD));
			t = MPI_Wtime() - t0;
			MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX,
					      MPI_COMM_WORLD));
			if (t < best)
				best = t;
		}
		if (!rank)
			printf("allreduce bytes %zu time_us %.0f busbw_mbit %.3f\n", bytes,
			       best * 1e6, 2.0 * (size - 1) / size * bytes * 8 / best / 1e6);
		fflush(stdout);
		free(a);
		free(b);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc >= 4 && !strcmp(argv[1], "coll"))
		ret = coll(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
			   argc > 4 ? atoi(argv[4]) : 1,
			   argc > 5 ? strtoul(argv[5], NULL, 0) : 4,
			   argc > 6 ? argv[6] :
			   "allreduce,reduce_scatter,allgather,alltoall,bcast");
	else if (argc == 3 && !strcmp(argv[1], "p2p"))
		ret = p2p(atoi(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "loop"))
		ret = loop(strtoul(argv[2], NULL, 0), atof(argv[3]));
	else if (argc >= 4 && !strcmp(argv[1], "bench"))
		ret = bench(argc, argv);
	else if (!rank)
		fprintf(stderr, "usage: spray_mpi_test coll MIN MAX [ITERS [STEP [OPS]]] | p2p N |\n"
			"       loop BYTES SECONDS | bench SIZE... ITERS\n");
	if (!rank && !ret)
		printf("OK\n");
	MPI_Finalize();
	return ret;
}

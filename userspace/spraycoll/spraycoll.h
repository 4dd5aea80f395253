/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spraycoll: collective-traffic generator for AF_SPRAY (and TCP/MPTCP).
 *
 * Shared definitions: options, the transport vtable, collectives, report.
 */
#ifndef _SPRAYCOLL_H
#define _SPRAYCOLL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define SC_NAME		"spraycoll"
#define SC_MAGIC	0x53504331u	/* "SPC1" */
#define SC_BLOB_MAX	128		/* transport address blob */
#define SC_SPRAY_MSG_MAX (8u << 20)	/* AF_SPRAY datagram limit */

enum sc_op {
	OP_ALLREDUCE,
	OP_REDUCESCATTER,
	OP_ALLGATHER,
	OP_ALLTOALL,
	OP_BROADCAST,
	OP_INCAST,
	OP_SENDRECV,
	OP_NR,
};

enum sc_tp {
	TP_TCP,
	TP_MPTCP,
	TP_SPRAY,
	TP_UNIX,	/* testing aid: the datagram engine over AF_UNIX */
};

enum sc_alg {
	ALG_AUTO,
	ALG_RING,
	ALG_HD,
};

enum sc_launch {
	LAUNCH_NONE,
	LAUNCH_LOCAL,
	LAUNCH_TORCHRUN,
	LAUNCH_OMPI,
};

struct sc_opts {
	size_t minbytes, maxbytes;
	unsigned long factor;
	int iters, warmup;
	int check;
	enum sc_tp tp;
	enum sc_op op;
	enum sc_alg alg;
	double timeout;		/* per iteration, seconds */
	double boot_timeout;	/* rendezvous and mesh setup, seconds */
	int json;
	int per_peer;
	int verbose;
	size_t chunk;		/* datagram transports: max payload per message */
	int chunk_set;
	size_t hd_max;		/* auto: halving-doubling up to this size */
	int shuffle;		/* datagram transports: send chunks out of order */
	int data_port;		/* 0: ephemeral */
	int counters;		/* read transport counters around each size */

	enum sc_launch launch;
	int local_n;
	char **netns;		/* per rank, or NULL */
	int n_netns;
	char **addrs;		/* per rank data address, or NULL */
	int n_addrs;
	const char *addr;	/* this rank's data address (env launch) */
	const char *master_addr;
	int master_port;

	/* fault injection for the selftest */
	int inject_stall_rank;	/* -1: none */
	int inject_noconnect_rank;
};

/* util.c */
extern int sc_rank;
void sc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sc_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double now_s(void);
int parse_size(const char *s, size_t *out);
int parse_sockaddr(const char *host, int port, struct sockaddr_storage *ss,
		   socklen_t *len);
const char *fmt_sockaddr(const void *sa, char *buf, size_t len);
int io_full(int fd, void *buf, size_t len, int wr, double deadline);
void *xzalloc(size_t n);
int is_pow2(int n);

/* Wire header prefixed to every message (network byte order). */
struct wire_hdr {
	uint32_t magic;
	uint32_t coll;		/* collective id: counts collectives run */
	uint32_t step;		/* step within the collective */
	uint32_t chunk;		/* chunk index within the message */
	uint32_t nchunks;
	uint32_t total;		/* whole message length */
	uint32_t offset;	/* of this chunk's payload in the message */
	uint32_t len;		/* this chunk's payload length */
};

/*
 * One transfer of a group. The transport progresses a group of sends and
 * receives together until all complete or the deadline passes, so matched
 * exchanges (ring steps, all-to-all) cannot deadlock on full buffers.
 */
struct xfer {
	int peer;
	int send;
	uint32_t step;
	char *buf;
	size_t len;
	/* transport state */
	size_t done;		/* bytes moved */
	uint32_t nchunks, chunks_done, next_chunk;
	uint32_t *order;	/* shuffled chunk order, or NULL */
	int complete;
};

struct transport;

struct transport_ops {
	const char *name;
	/* create the rank's data socket(s); fill an address blob for peers */
	int (*open)(struct transport *t, const char *addr, void *blob,
		    size_t *bloblen);
	/* mesh setup, given every rank's blob (SC_BLOB_MAX apart) */
	int (*connect)(struct transport *t, const char *blobs,
		       double deadline);
	/* progress a group of transfers to completion */
	int (*run)(struct transport *t, struct xfer *x, int n,
		   double deadline);
	/* optional: wait until everything sent is acknowledged */
	int (*flush)(struct transport *t, double deadline);
	void (*close)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
	const struct sc_opts *o;
	int rank, nranks;
	uint32_t coll;		/* current collective id */
	const char *ctx;	/* what is running, for error messages */
	int failed;		/* close without waiting for acknowledgements */
	uint64_t *tx_bytes;	/* per peer, payload bytes */
	uint64_t *rx_bytes;
	void *priv;
};

extern const struct transport_ops tcp_ops;
extern const struct transport_ops spray_ops;
int transport_init(struct transport *t, const struct sc_opts *o, int rank,
		   int nranks);
int tp_send(struct transport *t, int peer, uint32_t step, void *buf,
	    size_t len, double deadline);
int tp_recv(struct transport *t, int peer, uint32_t step, void *buf,
	    size_t len, double deadline);
void xfer_set(struct xfer *x, int peer, int send, uint32_t step, void *buf,
	      size_t len);
void report_stall(struct transport *t, struct xfer *x, int n, double timeout);

/* bootstrap.c */
struct boot {
	int rank, nranks;
	int fd;			/* non-root: to root */
	int *fds;		/* root: per rank */
	double timeout;
	struct sockaddr_storage local;	/* address used towards root */
	socklen_t local_len;
};

int boot_listen(const char *addr, int port, int *port_out);
int boot_init(struct boot *b, int rank, int nranks, const char *master,
	      int port, int listen_fd, double timeout);
int boot_gather(struct boot *b, const void *mine, void *all, size_t len);
int boot_bcast(struct boot *b, void *buf, size_t len);
int boot_allgather(struct boot *b, const void *mine, void *all, size_t len);
int boot_barrier(struct boot *b);
void boot_close(struct boot *b);

/* collectives.c */
struct coll {
	struct transport *t;
	enum sc_op op;
	enum sc_alg alg;	/* resolved: ring or hd */
	size_t bytes, count;
	float *sbuf, *rbuf, *tmp;
	size_t sbytes, rbytes, tbytes;
};

extern const char *const op_names[OP_NR];
int op_parse(const char *s);
double busbw_factor(enum sc_op op, int n);
int coll_check_size(enum sc_op op, size_t bytes, int n, char *why, size_t len);
int coll_setup(struct coll *c, struct transport *t, enum sc_op op,
	       enum sc_alg alg, size_t hd_max, size_t bytes);
void coll_free(struct coll *c);
void coll_fill(struct coll *c);
void coll_poison(struct coll *c);
int coll_run(struct coll *c, double deadline);
long coll_check(struct coll *c);

/* report.c */
struct counters_delta;
struct size_result {
	size_t bytes, count;
	double avg_us, p50_us, p99_us, min_us, max_us;
	double algbw, busbw;	/* GB/s */
	long wrong;
	int check;
	const char *alg;	/* resolved all-reduce algorithm, or NULL */
	double *peer_tx;	/* nranks * nranks GB/s, or NULL */
	int counters;		/* report transport counters */
	const struct counters_delta *cnt;	/* summed, or NULL if unread */
};

void report_header(const struct sc_opts *o, int nranks, const char *alg);
void report_size(const struct sc_opts *o, int nranks, struct size_result *r);
void report_footer(const struct sc_opts *o, int nranks, long wrong_total,
		   double avg_busbw, int nsizes);
void stats_compute(struct size_result *r, double *it_s, int n, int nranks,
		   enum sc_op op);

#endif /* _SPRAYCOLL_H */

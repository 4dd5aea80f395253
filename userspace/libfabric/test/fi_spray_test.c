// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Functional test of the spray provider through libfabric's public API,
 * two endpoints in one process (needs spray.ko: run it in the VM with
 * FI_PROVIDER_PATH pointing at libspray-fi.so). TAP output.
 *
 *   fi_spray_test [-a|-e]     -a: the domain with a progress thread;
 *                             -e: only EMSGSIZE (namespace max-msg < 64 KiB)
 *
 * Covers: fi_getinfo honesty, tagged and untagged sends in every variant,
 * remote CQ data, FI_SOURCE, directed receives, the unexpected queue,
 * FI_PEEK / FI_CLAIM / FI_DISCARD, messages split above max-msg (the test
 * sets FI_SPRAY_MAX_MSG to 64 KiB), iovs, truncation, cancel, counters,
 * FI_WAIT_FD (sread, trywait + poll), every CQ format, and a failed send
 * completing with ECONNREFUSED and the peer's address.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

static int tn, tfail;

#define CHECK(cond, ...)						\
	do {								\
		tn++;							\
		if (cond) {						\
			printf("ok %d ", tn);				\
		} else {						\
			printf("not ok %d ", tn);			\
			tfail++;					\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		fflush(stdout);						\
	} while (0)

#define TRY(call)							\
	do {								\
		int _r = (int)(call);					\
		if (_r) {						\
			printf("not ok %d %s: %s\n", ++tn, #call,	\
			       fi_strerror(-_r));			\
			printf("1..%d\n", tn);				\
			exit(1);					\
		}							\
	} while (0)

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;

struct node {
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_cntr *cntr;
	fi_addr_t addr;		/* this node's address in the AV */
	char name[64];
	size_t namelen;
};

static struct node A, B;

static void node_open(struct node *n, enum fi_cq_format fmt)
{
	struct fi_cq_attr ca = { .format = fmt, .wait_obj = FI_WAIT_FD };
	struct fi_cntr_attr ta = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_UNSPEC };

	TRY(fi_endpoint(domain, info, &n->ep, NULL));
	TRY(fi_cq_open(domain, &ca, &n->cq, NULL));
	TRY(fi_cntr_open(domain, &ta, &n->cntr, NULL));
	TRY(fi_ep_bind(n->ep, &av->fid, 0));
	TRY(fi_ep_bind(n->ep, &n->cq->fid, FI_TRANSMIT | FI_RECV));
	TRY(fi_ep_bind(n->ep, &n->cntr->fid, FI_RECV));
	TRY(fi_enable(n->ep));
	n->namelen = sizeof(n->name);
	TRY(fi_getname(&n->ep->fid, n->name, &n->namelen));
	if (fi_av_insert(av, n->name, 1, &n->addr, 0, NULL) != 1) {
		tn++;
		printf("not ok %d fi_av_insert\n1..%d\n", tn, tn);
		exit(1);
	}
}

static void node_close(struct node *n)
{
	fi_close(&n->ep->fid);
	fi_close(&n->cq->fid);
	fi_close(&n->cntr->fid);
}

/* One completion (or error) from cq within 10 s; progress both nodes. */
static int wait_comp(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		     fi_addr_t *src, struct fi_cq_err_entry *err)
{
	struct fid_cq *other = cq == A.cq ? B.cq : A.cq;
	int i;

	for (i = 0; i < 1000000; i++) {
		struct fi_cq_tagged_entry x;
		ssize_t r = src ? fi_cq_readfrom(cq, e, 1, src) : fi_cq_read(cq, e, 1);

		if (r == 1)
			return 0;
		if (r == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			fi_cq_readerr(cq, err, 0);
			return -err->err;
		}
		if (r != -FI_EAGAIN)
			return (int)r;
		/* progress the other side without losing its completions */
		r = fi_cq_read(other, &x, 0);
		(void)r;
		if (i > 1000)
			usleep(10);
	}
	return -FI_ETIMEDOUT;
}

static void fill(char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)(seed * 31 + i * 7 + (i >> 12));
}

static int check(const char *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (char)(seed * 31 + i * 7 + (i >> 12)))
			return 0;
	return 1;
}

static void t_getinfo(void)
{
	struct fi_info *h = fi_allocinfo(), *r = NULL;
	int ret;

	h->fabric_attr->prov_name = strdup("spray");
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_TAGGED | FI_RMA;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &r);
	CHECK(ret == -FI_ENODATA, "getinfo: no FI_RMA offered (%d)", ret);
	fi_freeinfo(r);
	r = NULL;
	h->caps = FI_TAGGED | FI_HMEM;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &r);
	CHECK(ret == -FI_ENODATA, "getinfo: no FI_HMEM offered (%d)", ret);
	fi_freeinfo(r);
	r = NULL;
	h->caps = FI_TAGGED;
	h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &r);
	CHECK(ret == -FI_ENODATA, "getinfo: no FI_DELIVERY_COMPLETE offered (%d)", ret);
	fi_freeinfo(r);
	r = NULL;
	h->tx_attr->op_flags = 0;
	h->caps = FI_TAGGED | FI_MSG | FI_DIRECTED_RECV | FI_SOURCE;
	h->domain_attr->cq_data_size = 4;
	h->mode = FI_CONTEXT;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &r);
	CHECK(!ret && r && !strcmp(r->fabric_attr->prov_name, "spray") &&
	      r->ep_attr->type == FI_EP_RDM &&
	      (r->caps & (FI_TAGGED | FI_MSG | FI_DIRECTED_RECV | FI_SOURCE)) ==
		      (FI_TAGGED | FI_MSG | FI_DIRECTED_RECV | FI_SOURCE) &&
	      !(r->caps & (FI_RMA | FI_ATOMIC | FI_HMEM | FI_MULTI_RECV)) &&
	      r->domain_attr->cq_data_size == 8 &&
	      r->tx_attr->msg_order & FI_ORDER_SAS &&
	      r->ep_attr->max_msg_size > (64u << 20),
	      "getinfo: RDM, tagged + msg + directed recv + source, 8 B CQ data, SAS, large messages");
	info = r;
	fi_freeinfo(h);
}

static void t_tagged_basic(void)
{
	char tx[100], rx[100];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	fi_addr_t src = 0;
	int ret;

	fill(tx, sizeof(tx), 1);
	TRY(fi_trecv(B.ep, rx, sizeof(rx), NULL, FI_ADDR_UNSPEC, 0x1234, 0, (void *)0xb1));
	TRY(fi_tsenddata(A.ep, tx, sizeof(tx), NULL, 0xdeadbeefcafeULL, B.addr, 0x1234, (void *)0xa1));
	ret = wait_comp(B.cq, &e, &src, &err);
	CHECK(!ret && e.op_context == (void *)0xb1 && e.len == 100 && e.tag == 0x1234 &&
	      e.data == 0xdeadbeefcafeULL &&
	      e.flags == (FI_RECV | FI_TAGGED | FI_REMOTE_CQ_DATA) &&
	      check(rx, 100, 1) && src == A.addr,
	      "tsenddata/trecv: data, tag, CQ data, flags, FI_SOURCE address");
	ret = wait_comp(A.cq, &e, NULL, &err);
	CHECK(!ret && e.op_context == (void *)0xa1 && e.flags == (FI_SEND | FI_TAGGED),
	      "tsenddata: send completion with its context");
}

static void t_msg_variants(void)
{
	char a[10], b[20], c[30], r1[25], r2[35];
	struct iovec tv[3] = { { a, 10 }, { b, 20 }, { c, 30 } };
	struct iovec rv[2] = { { r1, 25 }, { r2, 35 } };
	struct fi_msg m = { .msg_iov = rv, .iov_count = 2, .addr = FI_ADDR_UNSPEC,
			    .context = (void *)0xb2 };
	struct fi_msg sm = { .msg_iov = tv, .iov_count = 3, .addr = 0,
			     .context = (void *)0xa2, .data = 77 };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char all[60], got[60];
	int ret;

	fill(all, 60, 2);
	memcpy(a, all, 10);
	memcpy(b, all + 10, 20);
	memcpy(c, all + 30, 30);
	sm.addr = B.addr;
	TRY(fi_recvmsg(B.ep, &m, FI_COMPLETION));
	TRY(fi_sendmsg(A.ep, &sm, FI_COMPLETION | FI_REMOTE_CQ_DATA));
	ret = wait_comp(B.cq, &e, NULL, &err);
	memcpy(got, r1, 25);
	memcpy(got + 25, r2, 35);
	CHECK(!ret && e.len == 60 && e.data == 77 && e.flags == (FI_RECV | FI_MSG | FI_REMOTE_CQ_DATA) &&
	      !memcmp(got, all, 60), "sendmsg (3 iovs) / recvmsg (2 iovs), untagged, CQ data");
	wait_comp(A.cq, &e, NULL, &err);
	/* fi_sendv / fi_recvv / fi_inject / fi_recv / fi_send */
	TRY(fi_recvv(B.ep, rv, NULL, 2, FI_ADDR_UNSPEC, (void *)0xb3));
	TRY(fi_sendv(A.ep, tv, NULL, 3, B.addr, (void *)0xa3));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.len == 60 && e.op_context == (void *)0xb3, "sendv / recvv");
	wait_comp(A.cq, &e, NULL, &err);
	TRY(fi_recv(B.ep, r1, 25, NULL, FI_ADDR_UNSPEC, (void *)0xb4));
	TRY(fi_inject(A.ep, "hello", 6, B.addr));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.len == 6 && !strcmp(r1, "hello"), "inject / recv");
	TRY(fi_recv(B.ep, r1, 25, NULL, FI_ADDR_UNSPEC, (void *)0xb5));
	TRY(fi_injectdata(A.ep, "world", 6, 99, B.addr));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.data == 99 && !strcmp(r1, "world"), "injectdata");
	TRY(fi_trecvv(B.ep, rv, NULL, 2, FI_ADDR_UNSPEC, 9, 0, (void *)0xb6));
	TRY(fi_tsendv(A.ep, tv, NULL, 3, B.addr, 9, (void *)0xa6));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.len == 60 && e.tag == 9, "tsendv / trecvv");
	wait_comp(A.cq, &e, NULL, &err);
	TRY(fi_trecv(B.ep, r1, 25, NULL, FI_ADDR_UNSPEC, 10, 0, (void *)0xb7));
	TRY(fi_tinjectdata(A.ep, "tagged", 7, 5, B.addr, 10));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.tag == 10 && e.data == 5 && !strcmp(r1, "tagged"), "tinjectdata");
}

static void t_unexpected(void)
{
	enum { N = 2000 };
	static char bufs[N][16];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int i, ok = 1, ret;

	for (i = 0; i < N; i++) {
		char m[16];

		snprintf(m, sizeof(m), "m%d", i);
		while ((ret = (int)fi_tinject(A.ep, m, 16, B.addr, 100000 + i)) == -FI_EAGAIN)
			fi_cq_read(A.cq, &e, 0);
		if (ret)
			ok = 0;
	}
	/* let them all arrive unexpected */
	for (i = 0; i < 200; i++) {
		fi_cq_read(B.cq, &e, 0);
		usleep(1000);
	}
	for (i = N - 1; i >= 0; i--)
		TRY(fi_trecv(B.ep, bufs[i], 16, NULL, A.addr, 100000 + i, 0,
			     (void *)(long)(i + 1)));
	for (i = 0; i < N; i++) {
		char m[32];
		long k;

		if (wait_comp(B.cq, &e, NULL, &err)) {
			fprintf(stderr, "# wait_comp failed at %d\n", i);
			ok = 0;
			break;
		}
		k = (long)e.op_context - 1;
		snprintf(m, sizeof(m), "m%ld", k);
		if (k < 0 || k >= N || strncmp(bufs[k], m, 16) || e.tag != (uint64_t)(100000 + k))
			ok = 0;
	}
	CHECK(ok, "%d unexpected tagged messages, received in reverse tag order", N);
}

static void t_peek_claim(void)
{
	struct fi_context ctx;
	struct fi_msg_tagged m = { 0 };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char r[32] = { 0 };
	struct iovec v = { r, sizeof(r) };
	int ret, i;

	TRY(fi_tinject(A.ep, "peekme", 7, B.addr, 5000));
	TRY(fi_tinject(A.ep, "discard", 8, B.addr, 5002));
	for (i = 0; i < 100; i++) {
		fi_cq_read(B.cq, &e, 0);
		usleep(1000);
	}
	m.addr = FI_ADDR_UNSPEC;
	m.tag = 5001;
	m.context = &ctx;
	TRY(fi_trecvmsg(B.ep, &m, FI_PEEK | FI_COMPLETION));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(ret == -FI_ENOMSG && err.op_context == &ctx,
	      "peek without a match: FI_ENOMSG error completion");
	m.tag = 5000;
	TRY(fi_trecvmsg(B.ep, &m, FI_PEEK | FI_COMPLETION));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.len == 7 && e.tag == 5000 && e.op_context == &ctx,
	      "peek: length and tag of the waiting message");
	TRY(fi_trecvmsg(B.ep, &m, FI_PEEK | FI_CLAIM | FI_COMPLETION));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.len == 7, "peek + claim");
	/* a claimed message no longer matches an ordinary receive */
	TRY(fi_trecvmsg(B.ep, &m, FI_PEEK | FI_COMPLETION));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(ret == -FI_ENOMSG, "a claimed message is hidden from other peeks");
	m.msg_iov = &v;
	m.iov_count = 1;
	TRY(fi_trecvmsg(B.ep, &m, FI_CLAIM | FI_COMPLETION));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && !strcmp(r, "peekme") && e.op_context == &ctx,
	      "claim receive: the claimed message's data");
	m.tag = 5002;
	m.msg_iov = NULL;
	m.iov_count = 0;
	TRY(fi_trecvmsg(B.ep, &m, FI_PEEK | FI_DISCARD | FI_COMPLETION));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.len == 8, "peek + discard");
	TRY(fi_trecvmsg(B.ep, &m, FI_PEEK | FI_COMPLETION));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(ret == -FI_ENOMSG, "a discarded message is gone");
}

static void t_large(void)
{
	size_t len = 5u << 20;	/* 80 fragments of 64 KiB */
	char *tx = malloc(len), *rx = malloc(len);
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int ret, ret2;

	fill(tx, len, 3);
	memset(rx, 0, len);
	TRY(fi_trecv(B.ep, rx, len, NULL, FI_ADDR_UNSPEC, 7, 0, (void *)0xb8));
	TRY(fi_tsend(A.ep, tx, len, NULL, B.addr, 7, (void *)0xa8));
	ret = wait_comp(B.cq, &e, NULL, &err);
	ret2 = wait_comp(A.cq, &e, NULL, &err);
	CHECK(!ret && !ret2 && check(rx, len, 3),
	      "5 MiB tagged message split into 64 KiB fragments, receive posted first");
	fill(tx, len, 4);
	memset(rx, 0, len);
	TRY(fi_tsend(A.ep, tx, len, NULL, B.addr, 8, (void *)0xa9));
	ret2 = wait_comp(A.cq, &e, NULL, &err);
	TRY(fi_trecv(B.ep, rx, len, NULL, FI_ADDR_UNSPEC, 8, 0, (void *)0xb9));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && !ret2 && e.len == len && check(rx, len, 4),
	      "5 MiB message arrived unexpected, then received");
	free(tx);
	free(rx);
}

static void t_trunc_cancel(void)
{
	char tx[100], rx[50];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int ret;

	fill(tx, 100, 5);
	TRY(fi_trecv(B.ep, rx, 50, NULL, FI_ADDR_UNSPEC, 11, 0, (void *)0xba));
	TRY(fi_tsend(A.ep, tx, 100, NULL, B.addr, 11, (void *)0xaa));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(ret == -FI_ETRUNC && err.olen == 50 && err.len == 50 && check(rx, 50, 5) &&
	      err.op_context == (void *)0xba,
	      "truncation: FI_ETRUNC, olen 50, the first 50 bytes");
	wait_comp(A.cq, &e, NULL, &err);
	TRY(fi_trecv(B.ep, rx, 50, NULL, FI_ADDR_UNSPEC, 12, 0, (void *)0xbb));
	ret = (int)fi_cancel(&B.ep->fid, (void *)0xbb);
	CHECK(!ret, "fi_cancel of a posted receive");
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(ret == -FI_ECANCELED && err.op_context == (void *)0xbb,
	      "cancelled receive: FI_ECANCELED completion");
	CHECK(fi_cancel(&B.ep->fid, (void *)0xbb) == -FI_ENOENT,
	      "fi_cancel of nothing: -FI_ENOENT");
}

static void t_directed(void)
{
	struct node C;
	char r[16] = { 0 };
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int ret, i;

	node_open(&C, FI_CQ_FORMAT_TAGGED);
	/* B waits for tag 20 from A only; C's message with that tag waits */
	TRY(fi_trecv(B.ep, r, 16, NULL, A.addr, 20, 0, (void *)0xbc));
	TRY(fi_tinject(C.ep, "fromC", 6, B.addr, 20));
	for (i = 0; i < 100; i++) {
		ret = (int)fi_cq_read(B.cq, &e, 1);
		if (ret == 1)
			break;
		usleep(1000);
	}
	CHECK(ret != 1, "directed receive: a message from another source does not match");
	TRY(fi_tinject(A.ep, "fromA", 6, B.addr, 20));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && !strcmp(r, "fromA"), "directed receive: its source's message matches");
	TRY(fi_trecv(B.ep, r, 16, NULL, C.addr, 20, 0, (void *)0xbd));
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && !strcmp(r, "fromC"), "directed receive: the other source's message was kept");
	node_close(&C);
}

static void t_counters_wait(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char r[8];
	uint64_t before = fi_cntr_read(B.cntr);
	struct pollfd p;
	int fd = -1, ret;
	struct fid *fids[1] = { &B.cq->fid };

	TRY(fi_trecv(B.ep, r, 8, NULL, FI_ADDR_UNSPEC, 30, 0, NULL));
	TRY(fi_tinject(A.ep, "cntr", 5, B.addr, 30));
	ret = fi_cntr_wait(B.cntr, before + 1, 5000);
	CHECK(!ret && fi_cntr_read(B.cntr) == before + 1,
	      "receive counter: fi_cntr_wait reaches the threshold");
	wait_comp(B.cq, &e, NULL, &err);
	/* blocking read on the FD wait object */
	TRY(fi_trecv(B.ep, r, 8, NULL, FI_ADDR_UNSPEC, 31, 0, (void *)0xbe));
	TRY(fi_tinject(A.ep, "sread", 6, B.addr, 31));
	ret = (int)fi_cq_sread(B.cq, &e, 1, NULL, 5000);
	CHECK(ret == 1 && e.op_context == (void *)0xbe, "fi_cq_sread wakes on arrival");
	TRY(fi_control(&B.cq->fid, FI_GETWAIT, &fd));
	TRY(fi_trecv(B.ep, r, 8, NULL, FI_ADDR_UNSPEC, 32, 0, (void *)0xbf));
	ret = fi_trywait(fabric, fids, 1);
	CHECK(ret == 0, "fi_trywait on an empty CQ: safe to block");
	TRY(fi_tinject(A.ep, "poll", 5, B.addr, 32));
	p.fd = fd;
	p.events = POLLIN;
	ret = poll(&p, 1, 5000);
	CHECK(ret == 1, "the CQ's wait fd becomes readable on arrival");
	ret = wait_comp(B.cq, &e, NULL, &err);
	CHECK(!ret && e.op_context == (void *)0xbf, "and the completion is there");
	ret = (int)fi_cq_sread(B.cq, &e, 1, NULL, 200);
	CHECK(ret == -FI_EAGAIN, "fi_cq_sread times out when nothing comes");
}

static void t_formats(void)
{
	enum fi_cq_format f[] = { FI_CQ_FORMAT_CONTEXT, FI_CQ_FORMAT_MSG,
				  FI_CQ_FORMAT_DATA, FI_CQ_FORMAT_TAGGED };
	int i, ok = 1;

	for (i = 0; i < 4; i++) {
		struct node C;
		union {
			struct fi_cq_entry c;
			struct fi_cq_msg_entry m;
			struct fi_cq_data_entry d;
			struct fi_cq_tagged_entry t;
		} u;
		char r[8];
		int k, ret = 0;

		node_open(&C, f[i]);
		TRY(fi_trecv(C.ep, r, 8, NULL, FI_ADDR_UNSPEC, 40, 0, (void *)0xc0));
		TRY(fi_tinjectdata(A.ep, "fmt", 4, 3, C.addr, 40));
		for (k = 0; k < 100000; k++) {
			ret = (int)fi_cq_read(C.cq, &u, 1);
			if (ret != -FI_EAGAIN)
				break;
			fi_cq_read(A.cq, NULL, 0);
		}
		if (ret != 1 || u.c.op_context != (void *)0xc0)
			ok = 0;
		if (f[i] != FI_CQ_FORMAT_CONTEXT && u.m.len != 4)
			ok = 0;
		if ((f[i] == FI_CQ_FORMAT_DATA || f[i] == FI_CQ_FORMAT_TAGGED) &&
		    u.d.data != 3)
			ok = 0;
		if (f[i] == FI_CQ_FORMAT_TAGGED && u.t.tag != 40)
			ok = 0;
		node_close(&C);
	}
	CHECK(ok, "CQ formats context, msg, data, tagged");
}

static void t_error(void)
{
	struct node C;
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char ebuf[256] = "";
	const char *s;
	int ret;

	node_open(&C, FI_CQ_FORMAT_TAGGED);
	node_close(&C);		/* its address now answers nobody */
	TRY(fi_tsend(A.ep, "lost", 5, NULL, C.addr, 50, (void *)0xad));
	ret = wait_comp(A.cq, &e, NULL, &err);
	if (err.err_data)
		snprintf(ebuf, sizeof(ebuf), "%s", (char *)err.err_data);
	printf("# error completion: %s\n", ebuf);
	CHECK(ret == -FI_ECONNREFUSED && err.op_context == (void *)0xad &&
	      err.prov_errno == ECONNREFUSED && strstr(ebuf, "fi_addr"),
	      "send to a closed endpoint: ECONNREFUSED, naming the peer");
	s = fi_cq_strerror(A.cq, err.prov_errno, err.err_data, NULL, 0);
	CHECK(s && strstr(s, "Connection refused"), "fi_cq_strerror gives the message");
	TRY(fi_tsend(A.ep, "again", 6, NULL, C.addr, 50, (void *)0xae));
	ret = wait_comp(A.cq, &e, NULL, &err);
	CHECK(ret == -FI_ECONNREFUSED && err.op_context == (void *)0xae,
	      "a later send to the failed peer fails at once");
}

/* -e: run where the namespace's max-msg is below the provider's 64 KiB
 * fragments: a message that needs them fails with EMSGSIZE, naming the
 * peer, whether sendmsg() or the error queue reports it */
static void t_emsgsize(void)
{
	static char big[100000];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char ebuf[256] = "";
	int ret;

	TRY(fi_tsend(A.ep, big, sizeof(big), NULL, B.addr, 60, (void *)0xaf));
	ret = wait_comp(A.cq, &e, NULL, &err);
	if (err.err_data)
		snprintf(ebuf, sizeof(ebuf), "%s", (char *)err.err_data);
	printf("# error completion: %s\n", ebuf);
	CHECK(ret == -FI_EMSGSIZE && err.op_context == (void *)0xaf &&
	      strstr(ebuf, "fi_addr"),
	      "fragment above max-msg: EMSGSIZE error completion naming the peer");
}

int main(int argc, char **argv)
{
	struct fi_av_attr aa = { .type = FI_AV_TABLE };
	bool thread = argc > 1 && !strcmp(argv[1], "-a");
	bool emsgsize = argc > 1 && !strcmp(argv[1], "-e");

	setenv("FI_SPRAY_MAX_MSG", "65536", 0);
	t_getinfo();
	if (!info) {
		printf("1..%d\n", tn);
		return 1;
	}
	if (thread)
		info->domain_attr->data_progress = FI_PROGRESS_AUTO;
	TRY(fi_fabric(info->fabric_attr, &fabric, NULL));
	TRY(fi_domain(fabric, info, &domain, NULL));
	TRY(fi_av_open(domain, &aa, &av, NULL));
	node_open(&A, FI_CQ_FORMAT_TAGGED);
	node_open(&B, FI_CQ_FORMAT_TAGGED);
	printf("# provider %s, domain %s, endpoint %s progress\n",
	       info->fabric_attr->prov_name, info->domain_attr->name,
	       thread ? "thread" : "manual");
	if (emsgsize) {
		t_emsgsize();
		printf("1..%d\n", tn);
		return tfail ? 1 : 0;
	}
	t_tagged_basic();
	t_msg_variants();
	t_unexpected();
	t_peek_claim();
	t_large();
	t_trunc_cancel();
	t_directed();
	t_counters_wait();
	t_formats();
	t_error();
	node_close(&A);
	node_close(&B);
	CHECK(!fi_close(&av->fid) && !fi_close(&domain->fid) &&
	      !fi_close(&fabric->fid), "everything closes");
	fi_freeinfo(info);
	printf("1..%d\n", tn);
	return tfail ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libfabric provider "spray": FI_EP_RDM endpoints over
 * one AF_SPRAY socket each (Documentation/networking/spray-libfabric.rst).
 *
 * Files: sfi_prov.c (fi_prov_ini, fi_getinfo, fabric, domain, memory
 * registration, progress thread, trywait), sfi_av.c (address vectors),
 * sfi_cq.c (completion queues, counters, event queues), sfi_ep.c
 * (endpoints: the data path over the socket), sfi_match.c (receive and
 * unexpected-message queues, tag matching, reassembly: no socket, unit
 * tested on the host by test/unit_match.c).
 *
 * Locking: one mutex per domain guards every object opened from it (AV,
 * CQ, counter, endpoint); each API entry point takes it, and so does the
 * progress thread. Fabric-level EQs have their own lock.
 */
#ifndef SPRAY_FI_H
#define SPRAY_FI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <linux/spray.h>

#define SFI_NAME		"spray"
#define SFI_VERSION		FI_VERSION(1, 0)
#define SFI_API_VERSION		FI_VERSION(1, 17)
#define SFI_IOV_LIMIT		8
#define SFI_TX_SIZE		1024
#define SFI_RX_SIZE		65536
#define SFI_INJECT_SIZE		256	/* default; FI_SPRAY_INJECT_SIZE */
#define SFI_AF_MAX_MSG		(8u << 20) /* AF_SPRAY's default max-msg */
#define SFI_MAX_MSG_SIZE	(1ULL << 40)
#define SFI_CQ_DATA_SIZE	8
#define SFI_ERR_DATA_LEN	192
#define SFI_TAG_FORMAT		0xAAAAAAAAAAAAAAAAULL	/* FI_TAG_GENERIC */
/* provider-internal op flag: fi_inject and friends, never a CQ entry */
#define SFI_TXF_NOCOMP		(1ULL << 61)

/* ---- list ---------------------------------------------------------- */
struct sfi_list {
	struct sfi_list *next, *prev;
};

static inline void sfi_list_init(struct sfi_list *h)
{
	h->next = h->prev = h;
}

static inline bool sfi_list_empty(const struct sfi_list *h)
{
	return h->next == h;
}

static inline void sfi_list_add_tail(struct sfi_list *h, struct sfi_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void sfi_list_del(struct sfi_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

#define sfi_container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))
#define sfi_list_for_each_safe(pos, tmp, head)				\
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head);	\
	     (pos) = (tmp), (tmp) = (pos)->next)

/* ---- wire header: every AF_SPRAY message of the provider starts with it */
#define SFI_HDR_VERSION	1
enum sfi_op {
	SFI_OP_MSG = 1,
	SFI_OP_TAGGED = 2,
};
#define SFI_HF_DATA	0x1	/* remote CQ data present */

struct sfi_hdr {
	uint8_t		version;
	uint8_t		op;
	uint16_t	flags;
	uint32_t	reserved;
	uint64_t	tag;
	uint64_t	data;
	uint64_t	total;		/* length of the whole message */
	uint64_t	offset;		/* of this fragment's payload */
};	/* 40 bytes, little endian */

/* ---- matching (sfi_match.c) ---------------------------------------- */

/* A completion as the provider builds it, before the CQ's format. */
struct sfi_comp {
	void		*context;
	uint64_t	flags;
	size_t		len;
	void		*buf;
	uint64_t	data;
	uint64_t	tag;
	fi_addr_t	src;
	/* errors */
	int		err;		/* positive FI_E* / errno, 0 = success */
	int		prov_errno;
	size_t		olen;
	char		err_data[SFI_ERR_DATA_LEN];
};

struct sfi_unexp;

/* A posted receive. */
struct sfi_rx {
	struct sfi_list	link;
	void		*context;
	uint64_t	flags;		/* FI_COMPLETION, FI_MSG / FI_TAGGED, ... */
	fi_addr_t	src;		/* FI_ADDR_UNSPEC: any */
	uint64_t	tag, ignore;
	struct iovec	iov[SFI_IOV_LIMIT];
	size_t		iov_count;
	size_t		cap;		/* sum of iov lengths */
	/* set once matched */
	bool		matched;
	fi_addr_t	msg_src;
	uint64_t	msg_tag, msg_data;
	bool		msg_has_data;
	size_t		msg_len;	/* whole message */
	size_t		got;		/* bytes of it seen so far */
};

/* A message that arrived before a receive matched it. */
struct sfi_unexp {
	struct sfi_list	link;
	fi_addr_t	src;		/* FI_ADDR_NOTAVAIL if not in the AV */
	void		*peer;		/* the endpoint's peer (re-resolves src) */
	uint64_t	tag, data;
	bool		has_data;
	bool		claimed;	/* FI_PEEK | FI_CLAIM took it */
	bool		discard;	/* drop its remaining fragments */
	size_t		len, got;
	char		*buf;
	struct sfi_rx	*rx;		/* a receive attached while incomplete */
};

struct sfi_queues {
	struct sfi_list	posted[2];	/* [0] FI_MSG, [1] FI_TAGGED */
	struct sfi_list	unexp[2];
	size_t		nposted, nunexp;
	size_t		unexp_bytes;
	bool		directed;	/* FI_DIRECTED_RECV: honour rx->src */
};

void sfi_queues_init(struct sfi_queues *q, bool directed);
bool sfi_rx_matches(const struct sfi_queues *q, const struct sfi_rx *rx,
		    bool tagged, fi_addr_t src, uint64_t tag);
/* resolve: the current fi_addr of an unexpected message's sender */
typedef fi_addr_t (*sfi_resolve_fn)(void *arg, void *peer);
struct sfi_rx *sfi_match_posted(struct sfi_queues *q, bool tagged,
				fi_addr_t src, uint64_t tag);
struct sfi_unexp *sfi_match_unexp(struct sfi_queues *q, bool tagged,
				  fi_addr_t src, uint64_t tag, uint64_t ignore,
				  sfi_resolve_fn resolve, void *arg);
void sfi_post_rx(struct sfi_queues *q, struct sfi_rx *rx, bool tagged);
void sfi_unexp_add(struct sfi_queues *q, struct sfi_unexp *ue, bool tagged);
void sfi_unexp_remove(struct sfi_queues *q, struct sfi_unexp *ue);
void sfi_unexp_free(struct sfi_unexp *ue);
struct sfi_rx *sfi_cancel_posted(struct sfi_queues *q, void *context);
size_t sfi_copy_to_iov(const struct iovec *iov, size_t count, size_t off,
		       const void *src, size_t len);
/* Start a matched receive on a message of len bytes: fills rx->msg_*. */
void sfi_rx_start(struct sfi_rx *rx, fi_addr_t src, uint64_t tag,
		  uint64_t data, bool has_data, size_t len);
/* Copy a fragment at off into rx (truncating at its capacity). */
void sfi_rx_fill(struct sfi_rx *rx, size_t off, const void *p, size_t n);
/* The completion of a finished receive (FI_ETRUNC when it overflowed). */
void sfi_rx_comp(const struct sfi_rx *rx, bool tagged, struct sfi_comp *c);
/* Move what an unexpected message holds into a receive it matched. */
void sfi_unexp_to_rx(struct sfi_unexp *ue, struct sfi_rx *rx);

/* ---- objects -------------------------------------------------------- */
struct sfi_fabric {
	struct fid_fabric	fabric_fid;
	uint32_t		api_version;
};

struct sfi_domain {
	struct fid_domain	domain_fid;
	struct sfi_fabric	*fabric;
	pthread_mutex_t		lock;
	struct fi_info		*info;
	struct sockaddr_spray	addr;	/* default local address */
	struct sfi_list		eps, cqs, cntrs;
	int			refs;
	bool			auto_progress;
	/* progress thread */
	pthread_t		thread;
	bool			thread_on, thread_stop;
	int			epfd, wakefd;
};

struct sfi_av_entry {
	struct sockaddr_spray	addr;
	bool			used;
	uint32_t		hnext;	/* hash chain, index + 1 */
};

#define SFI_AV_HASH	1024
struct sfi_av {
	struct fid_av		av_fid;
	struct sfi_domain	*dom;
	enum fi_av_type		type;
	struct sfi_av_entry	*tab;
	size_t			count, cap;
	uint32_t		hash[SFI_AV_HASH];
	struct sfi_eq		*eq;
	void			*context;
	int			refs;
};

struct sfi_cq_err {
	struct sfi_list		link;
	struct sfi_comp		c;
};

struct sfi_cq {
	struct fid_cq		cq_fid;
	struct sfi_domain	*dom;
	struct sfi_list		dom_link;
	enum fi_cq_format	format;
	enum fi_wait_obj	wait_obj;
	struct sfi_comp		*ring;	/* successes */
	size_t			head, count, cap;
	struct sfi_list		errs;
	struct sfi_comp		last_err;	/* holds err_data for the app */
	int			epfd, sigfd;	/* FI_WAIT_FD */
	bool			signaled;
	unsigned int		empty_reads;
	int			refs;
	void			*context;
};

struct sfi_cntr {
	struct fid_cntr		cntr_fid;
	struct sfi_domain	*dom;
	struct sfi_list		dom_link;
	uint64_t		val, err;
	enum fi_wait_obj	wait_obj;
	int			epfd, sigfd;
	int			refs;
};

struct sfi_eq_event {
	struct sfi_list		link;
	uint32_t		event;
	bool			is_err;
	size_t			len;
	union {
		struct fi_eq_entry	entry;
		struct fi_eq_err_entry	err;
		char			raw[256];
	} u;
	char			err_data[SFI_ERR_DATA_LEN];
};

struct sfi_eq {
	struct fid_eq		eq_fid;
	struct sfi_fabric	*fabric;
	pthread_mutex_t		lock;
	struct sfi_list		events;
	enum fi_wait_obj	wait_obj;
	int			sigfd;
	char			last_err_data[SFI_ERR_DATA_LEN];
	int			refs;
};

/* A peer as the endpoint knows it: by address, with reassembly state. */
struct sfi_peer {
	struct sfi_peer		*hnext;
	struct sockaddr_spray	addr;
	int			failed;		/* errno that failed it, sticky */
	size_t			nfailed_msgs;
	/* the message being reassembled from this peer (one at a time) */
	bool			cur_tagged;
	struct sfi_rx		*cur_rx;
	struct sfi_unexp	*cur_ue;
	bool			cur_drop;	/* remaining fragments dropped */
	size_t			cur_total, cur_got;
};

enum sfi_tx_state {
	SFI_TX_FREE,
	SFI_TX_QUEUED,		/* fragments left to hand to the kernel */
	SFI_TX_INFLIGHT,	/* in the kernel, not yet acknowledged */
};

struct sfi_tx {
	struct sfi_list		link;
	enum sfi_tx_state	state;
	uint32_t		idx, gen;
	void			*context;
	uint64_t		flags;	/* op flags */
	bool			tagged, inject;
	fi_addr_t		dest;
	struct sfi_peer		*peer;
	struct sfi_hdr		hdr;	/* host order, converted per fragment */
	struct iovec		iov[SFI_IOV_LIMIT];
	size_t			iov_count;
	size_t			len, sent;	/* payload bytes handed so far */
	char			*inject_buf;	/* inject_size bytes */
};

struct sfi_ep {
	struct fid_ep		ep_fid;
	struct sfi_domain	*dom;
	struct sfi_list		dom_link;
	struct fi_info		*info;
	enum fi_ep_type		type;
	uint64_t		caps;
	uint64_t		tx_op_flags, rx_op_flags;
	int			fd;		/* the AF_SPRAY socket */
	int			timerfd;	/* re-polls SIOCOUTQ while waiting */
	struct sockaddr_spray	addr;
	bool			enabled;
	struct sfi_av		*av;
	struct sfi_cq		*tx_cq, *rx_cq;
	bool			tx_selective, rx_selective;
	struct sfi_cntr		*cntr_send, *cntr_recv;
	struct sfi_eq		*eq;
	struct sfi_queues	q;
	/* transmit */
	struct sfi_tx		*txs;
	size_t			ntx;
	struct sfi_list		tx_free, tx_queued, tx_inflight;
	size_t			inject_size;
	size_t			frag_payload;	/* per AF_SPRAY message */
	unsigned int		poll_backoff_us;
	bool			timer_armed;
	/* receive */
	char			*bounce;
	size_t			bounce_len;
	struct sfi_peer		*peers[256];
	size_t			npeers;
	void			*context;
};

/* ---- helpers across files ------------------------------------------ */
extern struct fi_provider sfi_prov;
extern struct fi_ops_fabric sfi_fabric_ops;
extern int sfi_param_inject_size, sfi_param_max_msg, sfi_param_progress;
extern int sfi_param_idle_wait_us, sfi_param_peer_errors;

int sfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **dom, void *context);
int sfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av, void *context);
int sfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **cq, void *context);
int sfi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntr, void *context);
int sfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		struct fid_eq **eq, void *context);
int sfi_endpoint(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **ep, void *context);
int sfi_trywait(struct fid_fabric *fabric, struct fid **fids, int count);

/* AV */
const struct sockaddr_spray *sfi_av_get(struct sfi_av *av, fi_addr_t a);
fi_addr_t sfi_av_reverse(struct sfi_av *av, const struct sockaddr_spray *sa);
void sfi_av_ep_removed(struct sfi_av *av, const struct sockaddr_spray *sa);
bool sfi_addr_eq(const struct sockaddr_spray *a, const struct sockaddr_spray *b);
uint32_t sfi_addr_hash(const struct sockaddr_spray *a);
const char *sfi_addr_str(const struct sockaddr_spray *a, char *buf, size_t len);
int sfi_addr_parse(const char *node, const char *service,
		   struct sockaddr_spray *sa);

/* CQ, counters, EQ */
void sfi_cq_push(struct sfi_cq *cq, const struct sfi_comp *c);
void sfi_cq_signal_waiters(struct sfi_cq *cq);
void sfi_cntr_inc(struct sfi_cntr *cntr, bool err);
void sfi_eq_write_err(struct sfi_eq *eq, fid_t fid, void *context, int err,
		      int prov_errno, const char *msg);
int sfi_wait_fd_add(int epfd, int fd);
void sfi_wait_fd_del(int epfd, int fd);

/* endpoints */
void sfi_ep_progress(struct sfi_ep *ep);
bool sfi_ep_waiting_tx(const struct sfi_ep *ep);
void sfi_ep_prepare_wait(struct sfi_ep *ep);
void sfi_dom_prepare_wait(struct sfi_domain *dom, void *cq_or_cntr);
void sfi_dom_progress_cq(struct sfi_domain *dom, struct sfi_cq *cq);
void sfi_dom_progress_cntr(struct sfi_domain *dom, struct sfi_cntr *cntr);
int sfi_dom_thread_add(struct sfi_domain *dom, struct sfi_ep *ep);
void sfi_dom_thread_del(struct sfi_domain *dom, struct sfi_ep *ep);

/* generic "not supported" entry points */
int sfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context);
int sfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int sfi_no_control(struct fid *fid, int command, void *arg);

static inline uint64_t sfi_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif /* SPRAY_FI_H */

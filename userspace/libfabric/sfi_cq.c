// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues, counters and event queues of the spray provider.
 *
 * A CQ keeps successes in a ring that grows (it never overruns) and errors
 * in a list; fi_cq_read returns -FI_EAVAIL while an error waits. Reading a
 * CQ or counter drives the progress of the endpoints bound to it
 * (FI_PROGRESS_MANUAL). FI_WAIT_FD / FI_WAIT_UNSPEC: the wait object is an
 * epoll descriptor holding the endpoints' sockets, their SIOCOUTQ re-poll
 * timers and an eventfd that fi_cq_signal and the progress thread write.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rdma/providers/fi_log.h>

#include "spray_fi.h"

int sfi_wait_fd_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	if (epfd < 0)
		return 0;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) && errno != EEXIST)
		return -errno;
	return 0;
}

void sfi_wait_fd_del(int epfd, int fd)
{
	if (epfd >= 0)
		epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

static int sfi_wait_init(enum fi_wait_obj *obj, int *epfd, int *sigfd)
{
	*epfd = *sigfd = -1;
	switch (*obj) {
	case FI_WAIT_NONE:
		return 0;
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
		*obj = FI_WAIT_FD;
		break;
	default:
		return -FI_ENOSYS;	/* no wait sets, mutexes or yield */
	}
	*epfd = epoll_create1(EPOLL_CLOEXEC);
	*sigfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (*epfd < 0 || *sigfd < 0 || sfi_wait_fd_add(*epfd, *sigfd)) {
		if (*epfd >= 0)
			close(*epfd);
		if (*sigfd >= 0)
			close(*sigfd);
		return -FI_ENOMEM;
	}
	return 0;
}

static void sfi_sig_drain(int sigfd)
{
	uint64_t v;

	if (sigfd >= 0 && read(sigfd, &v, sizeof(v)) < 0)
		return;
}

static void sfi_sig_raise(int sigfd)
{
	uint64_t one = 1;

	if (sigfd >= 0 && write(sigfd, &one, sizeof(one)) < 0)
		return;
}

/* Wait on an epoll set; timeout in ms (-1: forever). */
static void sfi_wait_epoll(int epfd, int timeout)
{
	struct epoll_event ev[8];

	if (epoll_wait(epfd, ev, 8, timeout) < 0 && errno != EINTR)
		FI_WARN(&sfi_prov, FI_LOG_CQ, "epoll_wait: %s\n", strerror(errno));
}

/* ---- completion queues ----------------------------------------------- */

static size_t sfi_cq_entry_size(enum fi_cq_format f)
{
	switch (f) {
	case FI_CQ_FORMAT_CONTEXT:
		return sizeof(struct fi_cq_entry);
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	case FI_CQ_FORMAT_TAGGED:
		return sizeof(struct fi_cq_tagged_entry);
	default:
		return 0;
	}
}

static void sfi_cq_format(enum fi_cq_format f, const struct sfi_comp *c,
			  void *out)
{
	struct fi_cq_tagged_entry *t = out;

	t->op_context = c->context;
	if (f == FI_CQ_FORMAT_CONTEXT)
		return;
	t->flags = c->flags;
	t->len = c->len;
	if (f == FI_CQ_FORMAT_MSG)
		return;
	t->buf = c->buf;
	t->data = c->data;
	if (f == FI_CQ_FORMAT_DATA)
		return;
	t->tag = c->tag;
}

void sfi_cq_signal_waiters(struct sfi_cq *cq)
{
	if (cq->sigfd >= 0 && !cq->signaled) {
		cq->signaled = true;
		sfi_sig_raise(cq->sigfd);
	}
}

void sfi_cq_push(struct sfi_cq *cq, const struct sfi_comp *c)
{
	if (c->err) {
		struct sfi_cq_err *e = malloc(sizeof(*e));

		if (!e) {
			FI_WARN(&sfi_prov, FI_LOG_CQ,
				"no memory for an error completion (error %d)\n",
				c->err);
			return;
		}
		e->c = *c;
		sfi_list_add_tail(&cq->errs, &e->link);
	} else {
		if (cq->count == cq->cap) {
			size_t cap = cq->cap * 2, i;
			struct sfi_comp *r = malloc(cap * sizeof(*r));

			if (!r) {
				FI_WARN(&sfi_prov, FI_LOG_CQ,
					"no memory to grow the CQ to %zu entries\n",
					cap);
				return;
			}
			for (i = 0; i < cq->count; i++)
				r[i] = cq->ring[(cq->head + i) % cq->cap];
			free(cq->ring);
			cq->ring = r;
			cq->cap = cap;
			cq->head = 0;
		}
		cq->ring[(cq->head + cq->count) % cq->cap] = *c;
		cq->count++;
	}
	if (cq->dom->thread_on)
		sfi_cq_signal_waiters(cq);
}

static ssize_t sfi_cq_take(struct sfi_cq *cq, void *buf, size_t count,
			   fi_addr_t *src)
{
	size_t i, esz = sfi_cq_entry_size(cq->format);

	if (!sfi_list_empty(&cq->errs))
		return -FI_EAVAIL;
	for (i = 0; i < count && cq->count; i++) {
		struct sfi_comp *c = &cq->ring[cq->head];

		sfi_cq_format(cq->format, c, (char *)buf + i * esz);
		if (src)
			src[i] = c->src;
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
	}
	if (!cq->count && cq->signaled) {
		cq->signaled = false;
		sfi_sig_drain(cq->sigfd);
	}
	return i ? (ssize_t)i : -FI_EAGAIN;
}

/*
 * FI_SPRAY_IDLE_WAIT_US (default 0, off): after SFI_IDLE_READS empty reads
 * in a row, a read first waits up to that long for one of the CQ's
 * sockets to have something. For applications that poll without end
 * (Open MPI's progress loop) on hosts with more processes than cores: the
 * kernel gets the CPU that moves their packets. Never when the CQ holds
 * entries; the read still returns -FI_EAGAIN when nothing came.
 */
#define SFI_IDLE_READS	64

static void sfi_cq_idle_wait(struct sfi_cq *cq)
{
	struct timespec ts = { 0, (long)sfi_param_idle_wait_us * 1000 };
	struct sfi_list *pos, *tmp;
	struct pollfd p[16];
	nfds_t n = 0;

	sfi_list_for_each_safe(pos, tmp, &cq->dom->eps) {
		struct sfi_ep *ep = sfi_container_of(pos, struct sfi_ep, dom_link);

		if ((ep->tx_cq == cq || ep->rx_cq == cq) && ep->enabled && n < 16) {
			p[n].fd = ep->fd;
			p[n].events = POLLIN;
			n++;
		}
	}
	pthread_mutex_unlock(&cq->dom->lock);
	if (n)
		ppoll(p, n, &ts, NULL);
	pthread_mutex_lock(&cq->dom->lock);
}

static ssize_t sfi_cq_readfrom(struct fid_cq *fcq, void *buf, size_t count,
			       fi_addr_t *src)
{
	struct sfi_cq *cq = sfi_container_of(fcq, struct sfi_cq, cq_fid);
	ssize_t ret;

	pthread_mutex_lock(&cq->dom->lock);
	ret = sfi_cq_take(cq, buf, count, src);
	if (ret == -FI_EAGAIN) {
		if (sfi_param_idle_wait_us > 0 && ++cq->empty_reads >= SFI_IDLE_READS)
			sfi_cq_idle_wait(cq);
		sfi_dom_progress_cq(cq->dom, cq);
		ret = sfi_cq_take(cq, buf, count, src);
	}
	if (ret != -FI_EAGAIN)
		cq->empty_reads = 0;
	pthread_mutex_unlock(&cq->dom->lock);
	return ret;
}

static ssize_t sfi_cq_read(struct fid_cq *fcq, void *buf, size_t count)
{
	return sfi_cq_readfrom(fcq, buf, count, NULL);
}

static ssize_t sfi_cq_readerr(struct fid_cq *fcq, struct fi_cq_err_entry *buf,
			      uint64_t flags)
{
	struct sfi_cq *cq = sfi_container_of(fcq, struct sfi_cq, cq_fid);
	struct sfi_cq_err *e;
	struct sfi_comp *c;
	size_t n;

	(void)flags;
	pthread_mutex_lock(&cq->dom->lock);
	if (sfi_list_empty(&cq->errs)) {
		pthread_mutex_unlock(&cq->dom->lock);
		return -FI_EAGAIN;
	}
	e = sfi_container_of(cq->errs.next, struct sfi_cq_err, link);
	sfi_list_del(&e->link);
	cq->last_err = e->c;
	free(e);
	c = &cq->last_err;
	buf->op_context = c->context;
	buf->flags = c->flags;
	buf->len = c->len;
	buf->buf = c->buf;
	buf->data = c->data;
	buf->tag = c->tag;
	buf->olen = c->olen;
	buf->err = c->err;
	buf->prov_errno = c->prov_errno;
	n = c->err_data[0] ? strlen(c->err_data) + 1 : 0;
	/*
	 * API 1.5 and later: a caller's err_data_size > 0 means "copy into my
	 * buffer"; 0 means "point me at yours" (valid until the next read).
	 */
	if (FI_VERSION_GE(cq->dom->fabric->api_version, FI_VERSION(1, 5)) &&
	    buf->err_data_size) {
		if (n > buf->err_data_size)
			n = buf->err_data_size;
		if (n && buf->err_data)
			memcpy(buf->err_data, c->err_data, n);
		buf->err_data_size = n;
	} else {
		buf->err_data = n ? c->err_data : NULL;
		if (FI_VERSION_GE(cq->dom->fabric->api_version, FI_VERSION(1, 5)))
			buf->err_data_size = n;
	}
	pthread_mutex_unlock(&cq->dom->lock);
	return 1;
}

static ssize_t sfi_cq_sreadfrom(struct fid_cq *fcq, void *buf, size_t count,
				fi_addr_t *src, const void *cond, int timeout)
{
	struct sfi_cq *cq = sfi_container_of(fcq, struct sfi_cq, cq_fid);
	uint64_t deadline = timeout >= 0 ? sfi_now_us() + 1000ULL * timeout : 0;
	ssize_t ret;

	(void)cond;
	if (cq->wait_obj == FI_WAIT_NONE)
		return -FI_ENOSYS;
	for (;;) {
		int t = -1;

		ret = sfi_cq_readfrom(fcq, buf, count, src);
		if (ret != -FI_EAGAIN)
			return ret;
		pthread_mutex_lock(&cq->dom->lock);
		if (cq->signaled) {	/* fi_cq_signal, or entries raced in */
			cq->signaled = false;
			sfi_sig_drain(cq->sigfd);
			ret = cq->count || !sfi_list_empty(&cq->errs);
			pthread_mutex_unlock(&cq->dom->lock);
			if (ret)
				continue;
			return -FI_EAGAIN;
		}
		sfi_dom_prepare_wait(cq->dom, cq);
		pthread_mutex_unlock(&cq->dom->lock);
		if (timeout >= 0) {
			uint64_t now = sfi_now_us();

			if (now >= deadline)
				return -FI_EAGAIN;
			t = (int)((deadline - now + 999) / 1000);
		}
		sfi_wait_epoll(cq->epfd, t);
	}
}

static ssize_t sfi_cq_sread(struct fid_cq *fcq, void *buf, size_t count,
			    const void *cond, int timeout)
{
	return sfi_cq_sreadfrom(fcq, buf, count, NULL, cond, timeout);
}

static int sfi_cq_signal(struct fid_cq *fcq)
{
	struct sfi_cq *cq = sfi_container_of(fcq, struct sfi_cq, cq_fid);

	pthread_mutex_lock(&cq->dom->lock);
	if (cq->sigfd >= 0) {
		cq->signaled = true;
		sfi_sig_raise(cq->sigfd);
	}
	pthread_mutex_unlock(&cq->dom->lock);
	return 0;
}

static const char *sfi_cq_strerror(struct fid_cq *fcq, int prov_errno,
				   const void *err_data, char *buf, size_t len)
{
	static __thread char sbuf[SFI_ERR_DATA_LEN + 64];
	const char *s;

	(void)fcq;
	if (!buf || !len) {
		buf = sbuf;
		len = sizeof(sbuf);
	}
	s = err_data && *(const char *)err_data ? err_data : fi_strerror(prov_errno);
	snprintf(buf, len, "%s", s);
	return buf;
}

static int sfi_cq_control(struct fid *fid, int command, void *arg)
{
	struct sfi_cq *cq = sfi_container_of(fid, struct sfi_cq, cq_fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (cq->epfd < 0)
			return -FI_ENODATA;
		*(int *)arg = cq->epfd;
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = cq->wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int sfi_cq_close(struct fid *fid)
{
	struct sfi_cq *cq = sfi_container_of(fid, struct sfi_cq, cq_fid.fid);
	struct sfi_domain *dom = cq->dom;

	pthread_mutex_lock(&dom->lock);
	if (cq->refs) {
		pthread_mutex_unlock(&dom->lock);
		return -FI_EBUSY;
	}
	sfi_list_del(&cq->dom_link);
	dom->refs--;
	while (!sfi_list_empty(&cq->errs)) {
		struct sfi_cq_err *e = sfi_container_of(cq->errs.next,
							struct sfi_cq_err, link);

		sfi_list_del(&e->link);
		free(e);
	}
	pthread_mutex_unlock(&dom->lock);
	if (cq->epfd >= 0)
		close(cq->epfd);
	if (cq->sigfd >= 0)
		close(cq->sigfd);
	free(cq->ring);
	free(cq);
	return 0;
}

static struct fi_ops sfi_cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_cq_close,
	.bind = sfi_no_bind,
	.control = sfi_cq_control,
	.ops_open = sfi_no_ops_open,
};

static struct fi_ops_cq sfi_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = sfi_cq_read,
	.readfrom = sfi_cq_readfrom,
	.readerr = sfi_cq_readerr,
	.sread = sfi_cq_sread,
	.sreadfrom = sfi_cq_sreadfrom,
	.signal = sfi_cq_signal,
	.strerror = sfi_cq_strerror,
};

int sfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **fcq, void *context)
{
	struct sfi_domain *dom = sfi_container_of(domain, struct sfi_domain,
						  domain_fid);
	struct sfi_cq *cq;
	int ret;

	if (!attr)
		return -FI_EINVAL;
	if (attr->format == FI_CQ_FORMAT_UNSPEC)
		attr->format = FI_CQ_FORMAT_CONTEXT;
	if (!sfi_cq_entry_size(attr->format))
		return -FI_ENOSYS;
	if (attr->flags & ~FI_AFFINITY)
		return -FI_EBADFLAGS;
	if (attr->wait_cond != FI_CQ_COND_NONE)
		return -FI_ENOSYS;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->wait_obj = attr->wait_obj;
	ret = sfi_wait_init(&cq->wait_obj, &cq->epfd, &cq->sigfd);
	if (ret) {
		free(cq);
		return ret;
	}
	attr->wait_obj = cq->wait_obj;
	cq->cap = attr->size ? attr->size : 1024;
	cq->ring = malloc(cq->cap * sizeof(*cq->ring));
	if (!cq->ring) {
		if (cq->epfd >= 0)
			close(cq->epfd);
		if (cq->sigfd >= 0)
			close(cq->sigfd);
		free(cq);
		return -FI_ENOMEM;
	}
	cq->cq_fid.fid.fclass = FI_CLASS_CQ;
	cq->cq_fid.fid.context = context;
	cq->cq_fid.fid.ops = &sfi_cq_fi_ops;
	cq->cq_fid.ops = &sfi_cq_ops;
	cq->dom = dom;
	cq->format = attr->format;
	sfi_list_init(&cq->errs);
	pthread_mutex_lock(&dom->lock);
	sfi_list_add_tail(&dom->cqs, &cq->dom_link);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*fcq = &cq->cq_fid;
	return 0;
}

/* ---- counters ------------------------------------------------------------ */

void sfi_cntr_inc(struct sfi_cntr *cntr, bool err)
{
	if (!cntr)
		return;
	if (err)
		cntr->err++;
	else
		cntr->val++;
	if (cntr->sigfd >= 0 && cntr->dom->thread_on)
		sfi_sig_raise(cntr->sigfd);
}

static uint64_t sfi_cntr_read(struct fid_cntr *fc)
{
	struct sfi_cntr *c = sfi_container_of(fc, struct sfi_cntr, cntr_fid);
	uint64_t v;

	pthread_mutex_lock(&c->dom->lock);
	sfi_dom_progress_cntr(c->dom, c);
	v = c->val;
	pthread_mutex_unlock(&c->dom->lock);
	return v;
}

static uint64_t sfi_cntr_readerr(struct fid_cntr *fc)
{
	struct sfi_cntr *c = sfi_container_of(fc, struct sfi_cntr, cntr_fid);
	uint64_t v;

	pthread_mutex_lock(&c->dom->lock);
	sfi_dom_progress_cntr(c->dom, c);
	v = c->err;
	pthread_mutex_unlock(&c->dom->lock);
	return v;
}

static int sfi_cntr_update(struct fid_cntr *fc, uint64_t v, bool err, bool add)
{
	struct sfi_cntr *c = sfi_container_of(fc, struct sfi_cntr, cntr_fid);
	uint64_t *p = err ? &c->err : &c->val;

	pthread_mutex_lock(&c->dom->lock);
	*p = add ? *p + v : v;
	sfi_sig_raise(c->sigfd);
	pthread_mutex_unlock(&c->dom->lock);
	return 0;
}

static int sfi_cntr_add(struct fid_cntr *fc, uint64_t v)
{
	return sfi_cntr_update(fc, v, false, true);
}

static int sfi_cntr_set(struct fid_cntr *fc, uint64_t v)
{
	return sfi_cntr_update(fc, v, false, false);
}

static int sfi_cntr_adderr(struct fid_cntr *fc, uint64_t v)
{
	return sfi_cntr_update(fc, v, true, true);
}

static int sfi_cntr_seterr(struct fid_cntr *fc, uint64_t v)
{
	return sfi_cntr_update(fc, v, true, false);
}

static int sfi_cntr_wait(struct fid_cntr *fc, uint64_t threshold, int timeout)
{
	struct sfi_cntr *c = sfi_container_of(fc, struct sfi_cntr, cntr_fid);
	uint64_t deadline = timeout >= 0 ? sfi_now_us() + 1000ULL * timeout : 0;
	uint64_t err0;
	int ret;

	if (c->wait_obj == FI_WAIT_NONE)
		return -FI_ENOSYS;
	pthread_mutex_lock(&c->dom->lock);
	err0 = c->err;
	pthread_mutex_unlock(&c->dom->lock);
	for (;;) {
		int t = -1;

		pthread_mutex_lock(&c->dom->lock);
		sfi_sig_drain(c->sigfd);
		sfi_dom_progress_cntr(c->dom, c);
		ret = c->val >= threshold ? 0 : c->err != err0 ? -FI_EAVAIL : 1;
		if (ret > 0)
			sfi_dom_prepare_wait(c->dom, c);
		pthread_mutex_unlock(&c->dom->lock);
		if (ret <= 0)
			return ret;
		if (timeout >= 0) {
			uint64_t now = sfi_now_us();

			if (now >= deadline)
				return -FI_ETIMEDOUT;
			t = (int)((deadline - now + 999) / 1000);
		}
		sfi_wait_epoll(c->epfd, t);
	}
}

static int sfi_cntr_control(struct fid *fid, int command, void *arg)
{
	struct sfi_cntr *c = sfi_container_of(fid, struct sfi_cntr, cntr_fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (c->epfd < 0)
			return -FI_ENODATA;
		*(int *)arg = c->epfd;
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = c->wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int sfi_cntr_close(struct fid *fid)
{
	struct sfi_cntr *c = sfi_container_of(fid, struct sfi_cntr, cntr_fid.fid);

	pthread_mutex_lock(&c->dom->lock);
	if (c->refs) {
		pthread_mutex_unlock(&c->dom->lock);
		return -FI_EBUSY;
	}
	sfi_list_del(&c->dom_link);
	c->dom->refs--;
	pthread_mutex_unlock(&c->dom->lock);
	if (c->epfd >= 0)
		close(c->epfd);
	if (c->sigfd >= 0)
		close(c->sigfd);
	free(c);
	return 0;
}

static struct fi_ops sfi_cntr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_cntr_close,
	.bind = sfi_no_bind,
	.control = sfi_cntr_control,
	.ops_open = sfi_no_ops_open,
};

static struct fi_ops_cntr sfi_cntr_ops = {
	.size = sizeof(struct fi_ops_cntr),
	.read = sfi_cntr_read,
	.readerr = sfi_cntr_readerr,
	.add = sfi_cntr_add,
	.set = sfi_cntr_set,
	.wait = sfi_cntr_wait,
	.adderr = sfi_cntr_adderr,
	.seterr = sfi_cntr_seterr,
};

int sfi_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **fc, void *context)
{
	struct sfi_domain *dom = sfi_container_of(domain, struct sfi_domain,
						  domain_fid);
	struct fi_cntr_attr def = { .events = FI_CNTR_EVENTS_COMP,
				    .wait_obj = FI_WAIT_UNSPEC };
	struct sfi_cntr *c;
	int ret;

	if (!attr)
		attr = &def;
	if (attr->events != FI_CNTR_EVENTS_COMP || attr->flags)
		return -FI_ENOSYS;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FI_ENOMEM;
	c->wait_obj = attr->wait_obj;
	ret = sfi_wait_init(&c->wait_obj, &c->epfd, &c->sigfd);
	if (ret) {
		free(c);
		return ret;
	}
	c->cntr_fid.fid.fclass = FI_CLASS_CNTR;
	c->cntr_fid.fid.context = context;
	c->cntr_fid.fid.ops = &sfi_cntr_fi_ops;
	c->cntr_fid.ops = &sfi_cntr_ops;
	c->dom = dom;
	pthread_mutex_lock(&dom->lock);
	sfi_list_add_tail(&dom->cntrs, &c->dom_link);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*fc = &c->cntr_fid;
	return 0;
}

/* ---- event queues ------------------------------------------------------- */

static ssize_t sfi_eq_read(struct fid_eq *feq, uint32_t *event, void *buf,
			   size_t len, uint64_t flags)
{
	struct sfi_eq *eq = sfi_container_of(feq, struct sfi_eq, eq_fid);
	struct sfi_eq_event *ev;
	ssize_t ret;

	pthread_mutex_lock(&eq->lock);
	if (sfi_list_empty(&eq->events)) {
		ret = -FI_EAGAIN;
		goto out;
	}
	ev = sfi_container_of(eq->events.next, struct sfi_eq_event, link);
	if (ev->is_err) {
		ret = -FI_EAVAIL;
		goto out;
	}
	if (len < ev->len) {
		ret = -FI_ETOOSMALL;
		goto out;
	}
	if (event)
		*event = ev->event;
	memcpy(buf, ev->u.raw, ev->len);
	ret = (ssize_t)ev->len;
	if (!(flags & FI_PEEK)) {
		sfi_list_del(&ev->link);
		free(ev);
		if (sfi_list_empty(&eq->events))
			sfi_sig_drain(eq->sigfd);
	}
out:
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static ssize_t sfi_eq_readerr(struct fid_eq *feq, struct fi_eq_err_entry *buf,
			      uint64_t flags)
{
	struct sfi_eq *eq = sfi_container_of(feq, struct sfi_eq, eq_fid);
	struct sfi_eq_event *ev;
	size_t n;

	pthread_mutex_lock(&eq->lock);
	if (sfi_list_empty(&eq->events) ||
	    !(ev = sfi_container_of(eq->events.next, struct sfi_eq_event,
				    link))->is_err) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_EAGAIN;
	}
	memcpy(eq->last_err_data, ev->err_data, sizeof(eq->last_err_data));
	*buf = (struct fi_eq_err_entry){
		.fid = ev->u.err.fid, .context = ev->u.err.context,
		.data = ev->u.err.data, .err = ev->u.err.err,
		.prov_errno = ev->u.err.prov_errno,
		.err_data = buf->err_data, .err_data_size = buf->err_data_size,
	};
	n = strlen(eq->last_err_data) + 1;
	if (buf->err_data_size) {
		if (n > buf->err_data_size)
			n = buf->err_data_size;
		if (buf->err_data)
			memcpy(buf->err_data, eq->last_err_data, n);
		buf->err_data_size = n;
	} else {
		buf->err_data = eq->last_err_data;
		buf->err_data_size = n;
	}
	if (!(flags & FI_PEEK)) {
		sfi_list_del(&ev->link);
		free(ev);
	}
	pthread_mutex_unlock(&eq->lock);
	return sizeof(*buf);
}

static ssize_t sfi_eq_push(struct sfi_eq *eq, struct sfi_eq_event *ev)
{
	pthread_mutex_lock(&eq->lock);
	sfi_list_add_tail(&eq->events, &ev->link);
	sfi_sig_raise(eq->sigfd);
	pthread_mutex_unlock(&eq->lock);
	return (ssize_t)ev->len;
}

static ssize_t sfi_eq_write(struct fid_eq *feq, uint32_t event, const void *buf,
			    size_t len, uint64_t flags)
{
	struct sfi_eq *eq = sfi_container_of(feq, struct sfi_eq, eq_fid);
	struct sfi_eq_event *ev;

	if (len > sizeof(ev->u.raw))
		return -FI_EINVAL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -FI_ENOMEM;
	ev->event = event;
	ev->len = len;
	ev->is_err = false;	/* applications write events, not errors */
	(void)flags;
	memcpy(ev->u.raw, buf, len);
	return sfi_eq_push(eq, ev);
}

void sfi_eq_write_err(struct sfi_eq *eq, fid_t fid, void *context, int err,
		      int prov_errno, const char *msg)
{
	struct sfi_eq_event *ev;

	if (!eq)
		return;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return;
	ev->is_err = true;
	ev->len = sizeof(ev->u.err);
	ev->u.err.fid = fid;
	ev->u.err.context = context;
	ev->u.err.err = err;
	ev->u.err.prov_errno = prov_errno;
	snprintf(ev->err_data, sizeof(ev->err_data), "%s", msg);
	sfi_eq_push(eq, ev);
}

static ssize_t sfi_eq_sread(struct fid_eq *feq, uint32_t *event, void *buf,
			    size_t len, int timeout, uint64_t flags)
{
	struct sfi_eq *eq = sfi_container_of(feq, struct sfi_eq, eq_fid);
	struct pollfd p = { .fd = eq->sigfd, .events = POLLIN };
	ssize_t ret;

	if (eq->sigfd < 0)
		return -FI_ENOSYS;
	ret = sfi_eq_read(feq, event, buf, len, flags);
	if (ret != -FI_EAGAIN)
		return ret;
	if (poll(&p, 1, timeout) <= 0)
		return -FI_EAGAIN;
	return sfi_eq_read(feq, event, buf, len, flags);
}

static const char *sfi_eq_strerror(struct fid_eq *feq, int prov_errno,
				   const void *err_data, char *buf, size_t len)
{
	return sfi_cq_strerror(NULL, prov_errno, err_data, buf, len);
	(void)feq;
}

static int sfi_eq_control(struct fid *fid, int command, void *arg)
{
	struct sfi_eq *eq = sfi_container_of(fid, struct sfi_eq, eq_fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (eq->sigfd < 0)
			return -FI_ENODATA;
		*(int *)arg = eq->sigfd;
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = eq->wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int sfi_eq_close(struct fid *fid)
{
	struct sfi_eq *eq = sfi_container_of(fid, struct sfi_eq, eq_fid.fid);

	if (eq->refs)
		return -FI_EBUSY;
	while (!sfi_list_empty(&eq->events)) {
		struct sfi_eq_event *ev = sfi_container_of(eq->events.next,
							   struct sfi_eq_event, link);

		sfi_list_del(&ev->link);
		free(ev);
	}
	if (eq->sigfd >= 0)
		close(eq->sigfd);
	pthread_mutex_destroy(&eq->lock);
	free(eq);
	return 0;
}

static struct fi_ops sfi_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_eq_close,
	.bind = sfi_no_bind,
	.control = sfi_eq_control,
	.ops_open = sfi_no_ops_open,
};

static struct fi_ops_eq sfi_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = sfi_eq_read,
	.readerr = sfi_eq_readerr,
	.write = sfi_eq_write,
	.sread = sfi_eq_sread,
	.strerror = sfi_eq_strerror,
};

int sfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		struct fid_eq **feq, void *context)
{
	struct sfi_eq *eq;

	if (!attr || attr->flags & ~FI_WRITE)
		return -FI_EINVAL;
	if (attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC &&
	    attr->wait_obj != FI_WAIT_FD)
		return -FI_ENOSYS;
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return -FI_ENOMEM;
	eq->wait_obj = attr->wait_obj == FI_WAIT_NONE ? FI_WAIT_NONE : FI_WAIT_FD;
	eq->sigfd = -1;
	if (eq->wait_obj == FI_WAIT_FD) {
		eq->sigfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (eq->sigfd < 0) {
			free(eq);
			return -FI_ENOMEM;
		}
	}
	pthread_mutex_init(&eq->lock, NULL);
	sfi_list_init(&eq->events);
	eq->eq_fid.fid.fclass = FI_CLASS_EQ;
	eq->eq_fid.fid.context = context;
	eq->eq_fid.fid.ops = &sfi_eq_fi_ops;
	eq->eq_fid.ops = &sfi_eq_ops;
	eq->fabric = sfi_container_of(fabric, struct sfi_fabric, fabric_fid);
	*feq = &eq->eq_fid;
	return 0;
}

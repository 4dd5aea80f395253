// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The spray provider's entry: fi_prov_ini, fi_getinfo, fabric, domain,
 * memory registration, the progress thread and fi_trywait.
 *
 * fi_getinfo answers for what the provider has, nothing more: FI_EP_RDM
 * with FI_MSG and FI_TAGGED (no FI_EP_DGRAM: libfabric would layer its
 * ofi_rxd reliability provider over it and offer "spray;ofi_rxd" first), FI_SOURCE,
 * FI_DIRECTED_RECV, 8 bytes of remote CQ data, FI_ORDER_SAS, transmit or
 * inject completion; no RMA, atomics, FI_HMEM, FI_MULTI_RECV or delivery
 * completion, so that a library asking for them falls back. One fi_info
 * per network interface that is up (FI_SPRAY_IFACE picks one), its
 * address as the source; none at all when socket(AF_SPRAY) fails.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include "spray_fi.h"

#define SFI_CAPS_PRIMARY	(FI_MSG | FI_TAGGED | FI_SEND | FI_RECV)
#define SFI_CAPS_SECONDARY	(FI_SOURCE | FI_DIRECTED_RECV | FI_LOCAL_COMM | \
				 FI_REMOTE_COMM)
#define SFI_CAPS		(SFI_CAPS_PRIMARY | SFI_CAPS_SECONDARY)
#define SFI_TX_OP_FLAGS		(FI_COMPLETION | FI_INJECT | FI_INJECT_COMPLETE | \
				 FI_TRANSMIT_COMPLETE | FI_MORE | \
				 FI_REMOTE_CQ_DATA)
#define SFI_RX_OP_FLAGS		(FI_COMPLETION | FI_MORE)

int sfi_param_inject_size = SFI_INJECT_SIZE;
int sfi_param_max_msg = SFI_AF_MAX_MSG;
int sfi_param_progress;		/* 1: a progress thread whatever asked */
int sfi_param_idle_wait_us;	/* 0: CQ reads never wait */
int sfi_param_peer_errors = 1;	/* a peer's failure said on stderr */
static char *sfi_param_iface;

int sfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}

int sfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid; (void)bfid; (void)flags;
	return -FI_ENOSYS;
}

int sfi_no_control(struct fid *fid, int command, void *arg)
{
	(void)fid; (void)command; (void)arg;
	return -FI_ENOSYS;
}

/* ---- fi_getinfo ------------------------------------------------------------ */

struct sfi_iface {
	char			name[IF_NAMESIZE];
	struct sockaddr_spray	addr;
};

/* Interfaces that are up, with an IPv4 (first) or IPv6 address. */
static int sfi_ifaces(struct sfi_iface *out, int max, bool loopback)
{
	struct ifaddrs *ifa, *i;
	int n = 0, pass;

	if (getifaddrs(&ifa))
		return 0;
	for (pass = 0; pass < 2; pass++) {
		for (i = ifa; i && n < max; i = i->ifa_next) {
			int fam = pass ? AF_INET6 : AF_INET;
			struct sfi_iface *o = &out[n];
			int k;

			if (!i->ifa_addr || i->ifa_addr->sa_family != fam ||
			    !(i->ifa_flags & IFF_UP) ||
			    !!(i->ifa_flags & IFF_LOOPBACK) != loopback)
				continue;
			if (sfi_param_iface && strcmp(sfi_param_iface, i->ifa_name))
				continue;
			for (k = 0; k < n; k++)	/* one address per interface */
				if (!strcmp(out[k].name, i->ifa_name))
					break;
			if (k < n)
				continue;
			memset(o, 0, sizeof(*o));
			snprintf(o->name, sizeof(o->name), "%s", i->ifa_name);
			o->addr.sspray_family = AF_SPRAY;
			if (fam == AF_INET) {
				o->addr.sspray_af = AF_INET;
				o->addr.sspray_addr4 =
					((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
			} else {
				struct sockaddr_in6 *s6 = (void *)i->ifa_addr;

				if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr))
					continue;
				o->addr.sspray_af = AF_INET6;
				memcpy(o->addr.sspray_addr6, &s6->sin6_addr, 16);
			}
			n++;
		}
	}
	freeifaddrs(ifa);
	return n;
}

static bool sfi_hints_ok(const struct fi_info *h, enum fi_ep_type type)
{
	if (!h)
		return true;
	if (h->caps & ~SFI_CAPS)
		return false;
	if (h->addr_format != FI_FORMAT_UNSPEC && h->addr_format != FI_SOCKADDR)
		return false;
	if (h->ep_attr) {
		const struct fi_ep_attr *e = h->ep_attr;

		if (e->type != FI_EP_UNSPEC && e->type != type)
			return false;
		if (e->protocol != FI_PROTO_UNSPEC ||
		    e->max_msg_size > SFI_MAX_MSG_SIZE ||
		    e->tx_ctx_cnt > 1 || e->rx_ctx_cnt > 1 ||
		    e->max_order_raw_size || e->max_order_war_size ||
		    e->max_order_waw_size || e->msg_prefix_size)
			return false;
	}
	if (h->domain_attr) {
		const struct fi_domain_attr *d = h->domain_attr;

		if (d->cq_data_size > SFI_CQ_DATA_SIZE ||
		    d->max_ep_tx_ctx > 1 || d->max_ep_rx_ctx > 1 ||
		    d->av_type > FI_AV_TABLE ||
		    d->control_progress > FI_PROGRESS_MANUAL ||
		    d->data_progress > FI_PROGRESS_MANUAL)
			return false;
	}
	if (h->tx_attr) {
		const struct fi_tx_attr *t = h->tx_attr;

		if (t->op_flags & ~SFI_TX_OP_FLAGS ||
		    t->inject_size > (size_t)sfi_param_inject_size ||
		    t->iov_limit > SFI_IOV_LIMIT || t->rma_iov_limit ||
		    t->size > 65536 || (t->comp_order & FI_ORDER_STRICT) ||
		    (t->msg_order & ~FI_ORDER_SAS &
		     (FI_ORDER_SAW | FI_ORDER_SAR | FI_ORDER_WAS | FI_ORDER_RAS)))
			return false;
	}
	if (h->rx_attr) {
		const struct fi_rx_attr *r = h->rx_attr;

		if (r->op_flags & ~SFI_RX_OP_FLAGS ||
		    r->iov_limit > SFI_IOV_LIMIT ||
		    (r->comp_order & FI_ORDER_STRICT) ||
		    (r->msg_order & ~FI_ORDER_SAS &
		     (FI_ORDER_SAW | FI_ORDER_SAR | FI_ORDER_WAS | FI_ORDER_RAS)))
			return false;
	}
	return true;
}

static struct fi_info *sfi_info_new(uint32_t version, const struct fi_info *h,
				    enum fi_ep_type type, const char *domain,
				    const struct sockaddr_spray *src,
				    const struct sockaddr_spray *dest)
{
	struct fi_info *fi = fi_allocinfo();
	const struct fi_domain_attr *hd = h ? h->domain_attr : NULL;
	uint64_t caps = h && h->caps ? h->caps : SFI_CAPS;

	if (!fi)
		return NULL;
	if (!(caps & (FI_MSG | FI_TAGGED)))
		caps |= FI_MSG | FI_TAGGED;
	if (!(caps & (FI_SEND | FI_RECV)))
		caps |= FI_SEND | FI_RECV;
	if (!(caps & (FI_LOCAL_COMM | FI_REMOTE_COMM)))
		caps |= FI_LOCAL_COMM | FI_REMOTE_COMM;
	fi->caps = caps;
	fi->mode = 0;		/* no FI_CONTEXT needed (but FI_CLAIM uses it) */
	fi->addr_format = FI_SOCKADDR;
	if (src) {
		fi->src_addr = malloc(sizeof(*src));
		if (!fi->src_addr)
			goto err;
		memcpy(fi->src_addr, src, sizeof(*src));
		fi->src_addrlen = sizeof(*src);
	}
	if (dest) {
		fi->dest_addr = malloc(sizeof(*dest));
		if (!fi->dest_addr)
			goto err;
		memcpy(fi->dest_addr, dest, sizeof(*dest));
		fi->dest_addrlen = sizeof(*dest);
	}
	*fi->tx_attr = (struct fi_tx_attr){
		.caps = caps & (FI_MSG | FI_TAGGED | FI_SEND),
		.op_flags = FI_TRANSMIT_COMPLETE,
		.msg_order = FI_ORDER_SAS,
		.comp_order = FI_ORDER_NONE,
		.inject_size = (size_t)sfi_param_inject_size,
		.size = SFI_TX_SIZE,
		.iov_limit = SFI_IOV_LIMIT,
	};
	/* the operation flags asked for (FI_COMPLETION above all: with
	 * FI_SELECTIVE_COMPLETION it is what makes the default operations
	 * complete), and transmit completion unless inject was asked */
	if (h && h->tx_attr) {
		fi->tx_attr->op_flags = h->tx_attr->op_flags & SFI_TX_OP_FLAGS;
		if (!(fi->tx_attr->op_flags & FI_INJECT_COMPLETE))
			fi->tx_attr->op_flags |= FI_TRANSMIT_COMPLETE;
	}
	if (h && h->tx_attr && h->tx_attr->size)
		fi->tx_attr->size = h->tx_attr->size;
	*fi->rx_attr = (struct fi_rx_attr){
		.caps = caps & (FI_MSG | FI_TAGGED | FI_RECV | FI_SOURCE |
				FI_DIRECTED_RECV),
		.op_flags = h && h->rx_attr ? h->rx_attr->op_flags & SFI_RX_OP_FLAGS : 0,
		.msg_order = FI_ORDER_SAS,
		.comp_order = FI_ORDER_NONE,
		.size = SFI_RX_SIZE,
		.iov_limit = SFI_IOV_LIMIT,
	};
	*fi->ep_attr = (struct fi_ep_attr){
		.type = type,
		.protocol = FI_PROTO_UNSPEC,
		.protocol_version = 1,
		.max_msg_size = SFI_MAX_MSG_SIZE,
		.mem_tag_format = h && h->ep_attr && h->ep_attr->mem_tag_format ?
				  h->ep_attr->mem_tag_format : SFI_TAG_FORMAT,
		.tx_ctx_cnt = 1,
		.rx_ctx_cnt = 1,
	};
	fi->domain_attr->name = strdup(domain);
	fi->domain_attr->threading = hd && hd->threading ? hd->threading :
							   FI_THREAD_SAFE;
	fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->data_progress =
		(hd && hd->data_progress == FI_PROGRESS_AUTO) || sfi_param_progress ?
		FI_PROGRESS_AUTO : FI_PROGRESS_MANUAL;
	fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
	fi->domain_attr->av_type = hd && hd->av_type ? hd->av_type : FI_AV_TABLE;
	fi->domain_attr->mr_mode = FI_VERSION_LT(version, FI_VERSION(1, 5)) ?
				   FI_MR_SCALABLE : 0;
	if (hd && (hd->mr_mode == FI_MR_BASIC || hd->mr_mode == FI_MR_SCALABLE))
		fi->domain_attr->mr_mode = hd->mr_mode;
	fi->domain_attr->mr_key_size = 8;
	fi->domain_attr->cq_data_size = SFI_CQ_DATA_SIZE;
	fi->domain_attr->cq_cnt = 256;
	fi->domain_attr->ep_cnt = 256;
	fi->domain_attr->tx_ctx_cnt = 256;
	fi->domain_attr->rx_ctx_cnt = 256;
	fi->domain_attr->max_ep_tx_ctx = 1;
	fi->domain_attr->max_ep_rx_ctx = 1;
	fi->domain_attr->cntr_cnt = 256;
	fi->domain_attr->mr_iov_limit = 1;
	fi->domain_attr->mr_cnt = 65536;
	fi->domain_attr->caps = FI_LOCAL_COMM | FI_REMOTE_COMM;
	fi->domain_attr->max_err_data = SFI_ERR_DATA_LEN;
	fi->fabric_attr->name = strdup(SFI_NAME);
	/* prov_name is the core's to set: "spray", or "spray;util" if layered */
	fi->fabric_attr->prov_version = SFI_VERSION;
	fi->fabric_attr->api_version = version;
	if (!fi->domain_attr->name || !fi->fabric_attr->name)
		goto err;
	return fi;
err:
	fi_freeinfo(fi);
	return NULL;
}

static int sfi_getinfo(uint32_t version, const char *node, const char *service,
		       uint64_t flags, const struct fi_info *hints,
		       struct fi_info **info)
{
	struct sockaddr_spray src, dest, *srcp = NULL, *destp = NULL;
	static const enum fi_ep_type types[] = { FI_EP_RDM };
	struct sfi_iface ifs[16];
	struct fi_info *head = NULL, **tail = &head;
	int nif, i, t, fd;

	*info = NULL;
	fd = socket(AF_SPRAY, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		FI_INFO(&sfi_prov, FI_LOG_CORE,
			"socket(AF_SPRAY): %s: no spray endpoints here\n",
			strerror(errno));
		return -FI_ENODATA;
	}
	close(fd);
	if (node || service) {
		struct sockaddr_spray *sa = flags & FI_SOURCE ? &src : &dest;

		if (sfi_addr_parse(node, service, sa))
			return -FI_ENODATA;
		if (flags & FI_SOURCE)
			srcp = &src;
		else
			destp = &dest;
	}
	if (hints && hints->src_addr && !srcp) {
		if (hints->src_addrlen < sizeof(src) ||
		    ((struct sockaddr_spray *)hints->src_addr)->sspray_family != AF_SPRAY)
			return -FI_ENODATA;
		memcpy(&src, hints->src_addr, sizeof(src));
		srcp = &src;
	}
	if (hints && hints->dest_addr && !destp) {
		if (hints->dest_addrlen < sizeof(dest) ||
		    ((struct sockaddr_spray *)hints->dest_addr)->sspray_family != AF_SPRAY)
			return -FI_ENODATA;
		memcpy(&dest, hints->dest_addr, sizeof(dest));
		destp = &dest;
	}
	nif = sfi_ifaces(ifs, 16, false);
	if (!nif)
		nif = sfi_ifaces(ifs, 16, true);
	if (srcp) {
		/* the interface that holds the address, if any */
		for (i = 0; i < nif; i++) {
			struct sockaddr_spray a = ifs[i].addr;

			a.sspray_port = srcp->sspray_port;
			if (sfi_addr_eq(&a, srcp))
				break;
		}
		if (i == nif)
			snprintf(ifs[0].name, sizeof(ifs[0].name), "%s", SFI_NAME);
		else
			ifs[0] = ifs[i];
		ifs[0].addr = *srcp;
		nif = 1;
	}
	for (i = 0; i < nif; i++) {
		if (hints && hints->domain_attr && hints->domain_attr->name &&
		    strcmp(hints->domain_attr->name, ifs[i].name))
			continue;
		if (hints && hints->fabric_attr && hints->fabric_attr->name &&
		    strcmp(hints->fabric_attr->name, SFI_NAME))
			continue;
		for (t = 0; t < 1; t++) {
			struct fi_info *fi;

			if (!sfi_hints_ok(hints, types[t]))
				continue;
			fi = sfi_info_new(version, hints, types[t], ifs[i].name,
					  &ifs[i].addr, destp);
			if (!fi) {
				fi_freeinfo(head);
				return -FI_ENOMEM;
			}
			*tail = fi;
			tail = &fi->next;
		}
	}
	if (!head)
		return -FI_ENODATA;
	*info = head;
	return 0;
}

/* ---- progress thread --------------------------------------------------------- */

static void *sfi_progress_thread(void *arg)
{
	struct sfi_domain *dom = arg;

	for (;;) {
		struct epoll_event ev[16];
		struct sfi_list *pos, *tmp;
		int n;

		n = epoll_wait(dom->epfd, ev, 16, -1);
		if (n < 0 && errno != EINTR)
			break;
		pthread_mutex_lock(&dom->lock);
		if (dom->thread_stop) {
			pthread_mutex_unlock(&dom->lock);
			break;
		}
		for (int i = 0; i < n; i++) {
			uint64_t x;

			if (ev[i].data.fd == dom->wakefd &&
			    read(dom->wakefd, &x, sizeof(x)) < 0)
				continue;
		}
		sfi_list_for_each_safe(pos, tmp, &dom->eps) {
			struct sfi_ep *ep = sfi_container_of(pos, struct sfi_ep,
							     dom_link);

			sfi_ep_progress(ep);
			sfi_ep_prepare_wait(ep);
		}
		pthread_mutex_unlock(&dom->lock);
	}
	return NULL;
}

/* Called with the domain lock held (fi_enable). */
int sfi_dom_thread_add(struct sfi_domain *dom, struct sfi_ep *ep)
{
	if (!dom->auto_progress)
		return 0;
	if (!dom->thread_on) {
		dom->epfd = epoll_create1(EPOLL_CLOEXEC);
		dom->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (dom->epfd < 0 || dom->wakefd < 0 ||
		    sfi_wait_fd_add(dom->epfd, dom->wakefd))
			return -FI_ENOMEM;
		if (pthread_create(&dom->thread, NULL, sfi_progress_thread, dom))
			return -FI_ENOMEM;
		dom->thread_on = true;
	}
	sfi_wait_fd_add(dom->epfd, ep->fd);
	sfi_wait_fd_add(dom->epfd, ep->timerfd);
	return 0;
}

void sfi_dom_thread_del(struct sfi_domain *dom, struct sfi_ep *ep)
{
	pthread_mutex_lock(&dom->lock);
	if (dom->thread_on) {
		sfi_wait_fd_del(dom->epfd, ep->fd);
		sfi_wait_fd_del(dom->epfd, ep->timerfd);
	}
	pthread_mutex_unlock(&dom->lock);
}

static void sfi_dom_thread_stop(struct sfi_domain *dom)
{
	uint64_t one = 1;

	if (!dom->thread_on)
		return;
	pthread_mutex_lock(&dom->lock);
	dom->thread_stop = true;
	pthread_mutex_unlock(&dom->lock);
	if (write(dom->wakefd, &one, sizeof(one)) < 0)
		FI_WARN(&sfi_prov, FI_LOG_DOMAIN, "cannot wake the progress thread\n");
	pthread_join(dom->thread, NULL);
	close(dom->epfd);
	close(dom->wakefd);
	dom->thread_on = false;
}

/* ---- progress driven by CQ and counter reads --------------------------------- */

void sfi_dom_progress_cq(struct sfi_domain *dom, struct sfi_cq *cq)
{
	struct sfi_list *pos, *tmp;

	sfi_list_for_each_safe(pos, tmp, &dom->eps) {
		struct sfi_ep *ep = sfi_container_of(pos, struct sfi_ep, dom_link);

		if (ep->tx_cq == cq || ep->rx_cq == cq)
			sfi_ep_progress(ep);
	}
}

void sfi_dom_progress_cntr(struct sfi_domain *dom, struct sfi_cntr *cntr)
{
	struct sfi_list *pos, *tmp;

	sfi_list_for_each_safe(pos, tmp, &dom->eps) {
		struct sfi_ep *ep = sfi_container_of(pos, struct sfi_ep, dom_link);

		if (ep->cntr_send == cntr || ep->cntr_recv == cntr)
			sfi_ep_progress(ep);
	}
}

/* Arm the SIOCOUTQ re-poll timers of the endpoints behind a wait object. */
void sfi_dom_prepare_wait(struct sfi_domain *dom, void *obj)
{
	struct sfi_list *pos, *tmp;

	sfi_list_for_each_safe(pos, tmp, &dom->eps) {
		struct sfi_ep *ep = sfi_container_of(pos, struct sfi_ep, dom_link);

		if ((void *)ep->tx_cq == obj || (void *)ep->rx_cq == obj ||
		    (void *)ep->cntr_send == obj || (void *)ep->cntr_recv == obj)
			sfi_ep_prepare_wait(ep);
	}
}

int sfi_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	int i, ret = 0;

	(void)fabric;
	for (i = 0; i < count && !ret; i++) {
		switch (fids[i]->fclass) {
		case FI_CLASS_CQ: {
			struct sfi_cq *cq = sfi_container_of(fids[i], struct sfi_cq,
							      cq_fid.fid);

			pthread_mutex_lock(&cq->dom->lock);
			sfi_dom_progress_cq(cq->dom, cq);
			if (cq->count || !sfi_list_empty(&cq->errs))
				ret = -FI_EAGAIN;
			else
				sfi_dom_prepare_wait(cq->dom, cq);
			pthread_mutex_unlock(&cq->dom->lock);
			break;
		}
		case FI_CLASS_CNTR: {
			struct sfi_cntr *c = sfi_container_of(fids[i], struct sfi_cntr,
							      cntr_fid.fid);

			pthread_mutex_lock(&c->dom->lock);
			sfi_dom_progress_cntr(c->dom, c);
			sfi_dom_prepare_wait(c->dom, c);
			pthread_mutex_unlock(&c->dom->lock);
			break;
		}
		case FI_CLASS_EQ: {
			struct sfi_eq *eq = sfi_container_of(fids[i], struct sfi_eq,
							     eq_fid.fid);

			pthread_mutex_lock(&eq->lock);
			if (!sfi_list_empty(&eq->events))
				ret = -FI_EAGAIN;
			pthread_mutex_unlock(&eq->lock);
			break;
		}
		default:
			ret = -FI_EINVAL;
		}
	}
	return ret;
}

/* ---- memory registration: nothing to register, keys for the asking --------- */

static int sfi_mr_close(struct fid *fid)
{
	free(sfi_container_of(fid, struct fid_mr, fid));
	return 0;
}

static struct fi_ops sfi_mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_mr_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			  uint64_t flags, struct fid_mr **mr)
{
	struct fid_mr *m;

	(void)fid;
	if (flags || (attr->iface != FI_HMEM_SYSTEM))
		return -FI_ENOSYS;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -FI_ENOMEM;
	m->fid.fclass = FI_CLASS_MR;
	m->fid.context = attr->context;
	m->fid.ops = &sfi_mr_fi_ops;
	m->key = attr->requested_key;
	*mr = m;
	return 0;
}

static int sfi_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		       uint64_t access, uint64_t offset, uint64_t key,
		       uint64_t flags, struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov, .iov_count = count, .access = access,
		.offset = offset, .requested_key = key, .context = context,
	};

	return sfi_mr_regattr(fid, &attr, flags, mr);
}

static int sfi_mr_reg(struct fid *fid, const void *buf, size_t len,
		      uint64_t access, uint64_t offset, uint64_t key,
		      uint64_t flags, struct fid_mr **mr, void *context)
{
	struct iovec v = { (void *)buf, len };

	return sfi_mr_regv(fid, &v, 1, access, offset, key, flags, mr, context);
}

static struct fi_ops_mr sfi_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = sfi_mr_reg,
	.regv = sfi_mr_regv,
	.regattr = sfi_mr_regattr,
};

/* ---- domain ------------------------------------------------------------------- */

static int sfi_domain_close(struct fid *fid)
{
	struct sfi_domain *dom = sfi_container_of(fid, struct sfi_domain,
						  domain_fid.fid);

	if (dom->refs)
		return -FI_EBUSY;
	sfi_dom_thread_stop(dom);
	pthread_mutex_destroy(&dom->lock);
	fi_freeinfo(dom->info);
	free(dom);
	return 0;
}

static struct fi_ops sfi_domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_domain_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_no_scalable_ep(struct fid_domain *d, struct fi_info *i,
			      struct fid_ep **ep, void *c)
{
	(void)d; (void)i; (void)ep; (void)c;
	return -FI_ENOSYS;
}

static int sfi_no_poll_open(struct fid_domain *d, struct fi_poll_attr *a,
			    struct fid_poll **p)
{
	(void)d; (void)a; (void)p;
	return -FI_ENOSYS;
}

static int sfi_no_stx(struct fid_domain *d, struct fi_tx_attr *a,
		      struct fid_stx **s, void *c)
{
	(void)d; (void)a; (void)s; (void)c;
	return -FI_ENOSYS;
}

static int sfi_no_srx(struct fid_domain *d, struct fi_rx_attr *a,
		      struct fid_ep **s, void *c)
{
	(void)d; (void)a; (void)s; (void)c;
	return -FI_ENOSYS;
}

static int sfi_no_query_atomic(struct fid_domain *d, enum fi_datatype dt,
			       enum fi_op op, struct fi_atomic_attr *a,
			       uint64_t f)
{
	(void)d; (void)dt; (void)op; (void)a; (void)f;
	return -FI_ENOSYS;
}

static int sfi_no_query_coll(struct fid_domain *d, enum fi_collective_op c,
			     struct fi_collective_attr *a, uint64_t f)
{
	(void)d; (void)c; (void)a; (void)f;
	return -FI_ENOSYS;
}

static struct fi_ops_domain sfi_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = sfi_av_open,
	.cq_open = sfi_cq_open,
	.endpoint = sfi_endpoint,
	.scalable_ep = sfi_no_scalable_ep,
	.cntr_open = sfi_cntr_open,
	.poll_open = sfi_no_poll_open,
	.stx_ctx = sfi_no_stx,
	.srx_ctx = sfi_no_srx,
	.query_atomic = sfi_no_query_atomic,
	.query_collective = sfi_no_query_coll,
};

int sfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **fdom, void *context)
{
	struct sfi_domain *dom;

	if (!info || !info->domain_attr)
		return -FI_EINVAL;
	dom = calloc(1, sizeof(*dom));
	if (!dom)
		return -FI_ENOMEM;
	dom->info = fi_dupinfo(info);
	if (!dom->info) {
		free(dom);
		return -FI_ENOMEM;
	}
	pthread_mutex_init(&dom->lock, NULL);
	sfi_list_init(&dom->eps);
	sfi_list_init(&dom->cqs);
	sfi_list_init(&dom->cntrs);
	dom->epfd = dom->wakefd = -1;
	dom->fabric = sfi_container_of(fabric, struct sfi_fabric, fabric_fid);
	dom->auto_progress = info->domain_attr->data_progress == FI_PROGRESS_AUTO ||
			     sfi_param_progress;
	if (info->src_addr && info->src_addrlen >= sizeof(dom->addr)) {
		memcpy(&dom->addr, info->src_addr, sizeof(dom->addr));
	} else {
		struct sfi_iface ifs[16];
		int n = sfi_ifaces(ifs, 16, false), i;

		if (!n)
			n = sfi_ifaces(ifs, 16, true);
		for (i = 0; i < n; i++)
			if (info->domain_attr->name &&
			    !strcmp(ifs[i].name, info->domain_attr->name))
				break;
		if (n)
			dom->addr = ifs[i < n ? i : 0].addr;
		dom->addr.sspray_family = AF_SPRAY;
		if (!dom->addr.sspray_af)
			dom->addr.sspray_af = AF_INET;
	}
	dom->addr.sspray_port = 0;
	dom->domain_fid.fid.fclass = FI_CLASS_DOMAIN;
	dom->domain_fid.fid.context = context;
	dom->domain_fid.fid.ops = &sfi_domain_fi_ops;
	dom->domain_fid.ops = &sfi_domain_ops;
	dom->domain_fid.mr = &sfi_mr_ops;
	*fdom = &dom->domain_fid;
	return 0;
}

/* ---- fabric ----------------------------------------------------------------- */

static int sfi_fabric_close(struct fid *fid)
{
	free(sfi_container_of(fid, struct sfi_fabric, fabric_fid.fid));
	return 0;
}

static struct fi_ops sfi_fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_fabric_close,
	.bind = sfi_no_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static int sfi_no_pep(struct fid_fabric *f, struct fi_info *i,
		      struct fid_pep **p, void *c)
{
	(void)f; (void)i; (void)p; (void)c;
	return -FI_ENOSYS;
}

static int sfi_no_wait_open(struct fid_fabric *f, struct fi_wait_attr *a,
			    struct fid_wait **w)
{
	(void)f; (void)a; (void)w;
	return -FI_ENOSYS;
}

struct fi_ops_fabric sfi_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = sfi_domain_open,
	.passive_ep = sfi_no_pep,
	.eq_open = sfi_eq_open,
	.wait_open = sfi_no_wait_open,
	.trywait = sfi_trywait,
};

static int sfi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **ffab,
		      void *context)
{
	struct sfi_fabric *fab;

	if (attr->name && strcmp(attr->name, SFI_NAME))
		return -FI_EINVAL;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	fab->api_version = attr->api_version ? attr->api_version : SFI_API_VERSION;
	fab->fabric_fid.fid.fclass = FI_CLASS_FABRIC;
	fab->fabric_fid.fid.context = context;
	fab->fabric_fid.fid.ops = &sfi_fabric_fi_ops;
	fab->fabric_fid.ops = &sfi_fabric_ops;
	fab->fabric_fid.api_version = fab->api_version;
	*ffab = &fab->fabric_fid;
	return 0;
}

static void sfi_cleanup(void)
{
}

struct fi_provider sfi_prov = {
	.name = SFI_NAME,
	.version = SFI_VERSION,
	.fi_version = SFI_API_VERSION,
	.getinfo = sfi_getinfo,
	.fabric = sfi_fabric,
	.cleanup = sfi_cleanup,
};

FI_EXT_INI
{
	char *s = NULL;

	fi_param_define(&sfi_prov, "inject_size", FI_PARAM_INT,
			"largest fi_inject message, bytes (default %d)",
			SFI_INJECT_SIZE);
	fi_param_define(&sfi_prov, "max_msg", FI_PARAM_INT,
			"largest AF_SPRAY message the provider sends, header "
			"included; larger messages are split (default %u, "
			"AF_SPRAY's max-msg)", SFI_AF_MAX_MSG);
	fi_param_define(&sfi_prov, "progress", FI_PARAM_STRING,
			"\"thread\": a progress thread per domain whatever the "
			"application asked (it sleeps while idle); default: "
			"manual unless FI_PROGRESS_AUTO is asked for");
	fi_param_define(&sfi_prov, "iface", FI_PARAM_STRING,
			"the one network interface to offer (default: every "
			"interface that is up, loopback only if none)");
	fi_param_define(&sfi_prov, "idle_wait_us", FI_PARAM_INT,
			"after 64 empty CQ reads in a row, a read waits up to "
			"this long for the CQ's sockets (default 0: never); "
			"for busy-polling applications on oversubscribed hosts");
	fi_param_get_int(&sfi_prov, "idle_wait_us", &sfi_param_idle_wait_us);
	fi_param_define(&sfi_prov, "peer_errors", FI_PARAM_BOOL,
			"say on stderr, once per peer, that messages to it "
			"cannot be delivered, when libfabric's log does not "
			"show warnings (default: yes)");
	fi_param_get_bool(&sfi_prov, "peer_errors", &sfi_param_peer_errors);
	if (sfi_param_idle_wait_us > 1000000)
		sfi_param_idle_wait_us = 1000000;
	fi_param_get_int(&sfi_prov, "inject_size", &sfi_param_inject_size);
	fi_param_get_int(&sfi_prov, "max_msg", &sfi_param_max_msg);
	if (sfi_param_inject_size < 0)
		sfi_param_inject_size = 0;
	if (sfi_param_max_msg < 4096 || sfi_param_max_msg > (int)SFI_AF_MAX_MSG)
		sfi_param_max_msg = SFI_AF_MAX_MSG;
	if (!fi_param_get_str(&sfi_prov, "progress", &s) && s &&
	    (!strcmp(s, "thread") || !strcmp(s, "auto")))
		sfi_param_progress = 1;
	fi_param_get_str(&sfi_prov, "iface", &sfi_param_iface);
	return &sfi_prov;
}

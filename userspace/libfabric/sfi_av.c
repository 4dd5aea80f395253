// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address vectors of the spray provider: FI_AV_TABLE and FI_AV_MAP, both
 * as a table whose index is the fi_addr_t (consecutive from 0, as
 * FI_AV_TABLE requires; FI_AV_MAP values are the provider's to choose).
 * Entries are struct sockaddr_spray, as fi_getname returns them; a hash
 * maps an address back to its index (FI_SOURCE, FI_DIRECTED_RECV).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/providers/fi_log.h>

#include "spray_fi.h"

bool sfi_addr_eq(const struct sockaddr_spray *a, const struct sockaddr_spray *b)
{
	if (a->sspray_port != b->sspray_port || a->sspray_af != b->sspray_af)
		return false;
	if (a->sspray_af == AF_INET)
		return a->sspray_addr4 == b->sspray_addr4;
	return !memcmp(a->sspray_addr6, b->sspray_addr6, 16) &&
	       a->sspray_scope_id == b->sspray_scope_id;
}

uint32_t sfi_addr_hash(const struct sockaddr_spray *a)
{
	uint32_t h = 2166136261u ^ a->sspray_port;
	const uint8_t *p = a->sspray_addr6;
	int i, n = a->sspray_af == AF_INET ? 4 : 16;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

const char *sfi_addr_str(const struct sockaddr_spray *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	inet_ntop(a->sspray_af == AF_INET6 ? AF_INET6 : AF_INET,
		  a->sspray_addr6, ip, sizeof(ip));
	if (a->sspray_af == AF_INET6)
		snprintf(buf, len, "[%s]:%u", ip, ntohs(a->sspray_port));
	else
		snprintf(buf, len, "%s:%u", ip, ntohs(a->sspray_port));
	return buf;
}

/* node: an IPv4 or IPv6 address or a host name; service: the spray port */
int sfi_addr_parse(const char *node, const char *service,
		   struct sockaddr_spray *sa)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res;
	unsigned long port = 0;
	char *end;

	memset(sa, 0, sizeof(*sa));
	sa->sspray_family = AF_SPRAY;
	if (service && *service) {
		port = strtoul(service, &end, 10);
		if (*end || port > 65535)
			return -FI_EINVAL;
	}
	sa->sspray_port = htons((uint16_t)port);
	if (!node || !*node) {
		sa->sspray_af = AF_INET;
		return 0;
	}
	if (getaddrinfo(node, NULL, &hints, &res))
		return -FI_EINVAL;
	if (res->ai_family == AF_INET) {
		sa->sspray_af = AF_INET;
		sa->sspray_addr4 =
			((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)res->ai_addr;

		sa->sspray_af = AF_INET6;
		memcpy(sa->sspray_addr6, &s6->sin6_addr, 16);
		sa->sspray_scope_id = s6->sin6_scope_id;
	}
	freeaddrinfo(res);
	return 0;
}

const struct sockaddr_spray *sfi_av_get(struct sfi_av *av, fi_addr_t a)
{
	if (!av || a >= av->count || !av->tab[a].used)
		return NULL;
	return &av->tab[a].addr;
}

fi_addr_t sfi_av_reverse(struct sfi_av *av, const struct sockaddr_spray *sa)
{
	uint32_t i;

	if (!av)
		return FI_ADDR_NOTAVAIL;
	for (i = av->hash[sfi_addr_hash(sa) % SFI_AV_HASH]; i;
	     i = av->tab[i - 1].hnext)
		if (av->tab[i - 1].used && sfi_addr_eq(&av->tab[i - 1].addr, sa))
			return i - 1;
	return FI_ADDR_NOTAVAIL;
}

static int sfi_addr_valid(const struct sockaddr_spray *sa)
{
	if (sa->sspray_family != AF_SPRAY || sa->sspray_reserved ||
	    (sa->sspray_af != AF_INET && sa->sspray_af != AF_INET6))
		return 0;
	return 1;
}

static int sfi_av_add(struct sfi_av *av, const struct sockaddr_spray *sa,
		      fi_addr_t *out)
{
	struct sfi_av_entry *e;
	uint32_t h;

	if (!sfi_addr_valid(sa))
		return -FI_EINVAL;
	if (av->count == av->cap) {
		size_t cap = av->cap ? 2 * av->cap : 64;
		struct sfi_av_entry *t = realloc(av->tab, cap * sizeof(*t));

		if (!t)
			return -FI_ENOMEM;
		av->tab = t;
		av->cap = cap;
	}
	e = &av->tab[av->count];
	memset(e, 0, sizeof(*e));
	memcpy(&e->addr, sa, sizeof(*sa));
	e->used = true;
	h = sfi_addr_hash(sa) % SFI_AV_HASH;
	e->hnext = av->hash[h];
	av->hash[h] = (uint32_t)av->count + 1;
	*out = av->count++;
	return 0;
}

static void sfi_av_event(struct sfi_av *av, int count, void *context)
{
	struct fi_eq_entry ev = { .fid = &av->av_fid.fid, .context = context,
				  .data = (uint64_t)count };

	fi_eq_write(&av->eq->eq_fid, FI_AV_COMPLETE, &ev, sizeof(ev), 0);
}

static int sfi_av_insert(struct fid_av *fav, const void *addr, size_t count,
			 fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct sfi_av *av = sfi_container_of(fav, struct sfi_av, av_fid);
	const struct sockaddr_spray *sa = addr;
	int n = 0, ret;
	size_t i;

	if (flags & ~(FI_MORE | FI_SYNC_ERR))
		return -FI_EBADFLAGS;
	pthread_mutex_lock(&av->dom->lock);
	for (i = 0; i < count; i++) {
		fi_addr_t a = FI_ADDR_NOTAVAIL;

		ret = sfi_av_add(av, &sa[i], &a);
		if (fi_addr)
			fi_addr[i] = a;
		if (flags & FI_SYNC_ERR)
			((int *)context)[i] = -ret;
		if (!ret)
			n++;
	}
	pthread_mutex_unlock(&av->dom->lock);
	if (av->eq) {
		sfi_av_event(av, n, context);
		return 0;
	}
	return n;
}

static int sfi_av_insertsvc(struct fid_av *fav, const char *node,
			    const char *service, fi_addr_t *fi_addr,
			    uint64_t flags, void *context)
{
	struct sockaddr_spray sa;

	if (sfi_addr_parse(node, service, &sa))
		return -FI_EINVAL;
	return sfi_av_insert(fav, &sa, 1, fi_addr, flags, context);
}

static int sfi_av_insertsym(struct fid_av *fav, const char *node,
			    size_t nodecnt, const char *service, size_t svccnt,
			    fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct sockaddr_spray sa, *all;
	unsigned long port;
	size_t i, j, k = 0;
	int ret;

	if (sfi_addr_parse(node, service, &sa) || sa.sspray_af != AF_INET)
		return -FI_EINVAL;
	all = calloc(nodecnt * svccnt, sizeof(*all));
	if (!all)
		return -FI_ENOMEM;
	port = ntohs(sa.sspray_port);
	for (i = 0; i < nodecnt; i++)
		for (j = 0; j < svccnt; j++, k++) {
			all[k] = sa;
			all[k].sspray_addr4 = htonl(ntohl(sa.sspray_addr4) + i);
			all[k].sspray_port = htons((uint16_t)(port + j));
		}
	ret = sfi_av_insert(fav, all, k, fi_addr, flags, context);
	free(all);
	return ret;
}

static int sfi_av_remove(struct fid_av *fav, fi_addr_t *fi_addr, size_t count,
			 uint64_t flags)
{
	struct sfi_av *av = sfi_container_of(fav, struct sfi_av, av_fid);
	int ret = 0;
	size_t i;

	if (flags)
		return -FI_EBADFLAGS;
	pthread_mutex_lock(&av->dom->lock);
	for (i = 0; i < count; i++) {
		if (fi_addr[i] >= av->count || !av->tab[fi_addr[i]].used) {
			ret = -FI_EINVAL;
			continue;
		}
		av->tab[fi_addr[i]].used = false;
		/* a re-inserted peer starts afresh (its failure forgotten) */
		sfi_av_ep_removed(av, &av->tab[fi_addr[i]].addr);
	}
	pthread_mutex_unlock(&av->dom->lock);
	return ret;
}

static int sfi_av_lookup(struct fid_av *fav, fi_addr_t fi_addr, void *addr,
			 size_t *addrlen)
{
	struct sfi_av *av = sfi_container_of(fav, struct sfi_av, av_fid);
	const struct sockaddr_spray *sa;
	int ret = 0;

	pthread_mutex_lock(&av->dom->lock);
	sa = sfi_av_get(av, fi_addr);
	if (!sa) {
		ret = -FI_EINVAL;
	} else {
		memcpy(addr, sa, *addrlen < sizeof(*sa) ? *addrlen : sizeof(*sa));
		*addrlen = sizeof(*sa);
	}
	pthread_mutex_unlock(&av->dom->lock);
	return ret;
}

static const char *sfi_av_straddr(struct fid_av *fav, const void *addr,
				  char *buf, size_t *len)
{
	char s[80], a[64];

	(void)fav;
	snprintf(s, sizeof(s), "fi_sockaddr_spray://%s",
		 sfi_addr_str(addr, a, sizeof(a)));
	if (buf && *len)
		snprintf(buf, *len, "%s", s);
	*len = strlen(s) + 1;
	return buf;
}

static int sfi_av_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct sfi_av *av = sfi_container_of(fid, struct sfi_av, av_fid.fid);

	if (bfid->fclass != FI_CLASS_EQ || flags)
		return -FI_EINVAL;
	av->eq = sfi_container_of(bfid, struct sfi_eq, eq_fid.fid);
	av->eq->refs++;
	return 0;
}

static int sfi_av_close(struct fid *fid)
{
	struct sfi_av *av = sfi_container_of(fid, struct sfi_av, av_fid.fid);

	if (av->refs)
		return -FI_EBUSY;
	if (av->eq)
		av->eq->refs--;
	av->dom->refs--;
	free(av->tab);
	free(av);
	return 0;
}

static struct fi_ops sfi_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = sfi_av_close,
	.bind = sfi_av_bind,
	.control = sfi_no_control,
	.ops_open = sfi_no_ops_open,
};

static struct fi_ops_av sfi_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = sfi_av_insert,
	.insertsvc = sfi_av_insertsvc,
	.insertsym = sfi_av_insertsym,
	.remove = sfi_av_remove,
	.lookup = sfi_av_lookup,
	.straddr = sfi_av_straddr,
};

int sfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **fav, void *context)
{
	struct sfi_domain *dom = sfi_container_of(domain, struct sfi_domain,
						  domain_fid);
	struct sfi_av *av;

	if (!attr)
		return -FI_EINVAL;
	if (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_MAP &&
	    attr->type != FI_AV_TABLE)
		return -FI_EINVAL;
	if (attr->name || (attr->flags & ~(FI_EVENT | FI_SYMMETRIC)) ||
	    attr->rx_ctx_bits)
		return -FI_ENOSYS;	/* no named or shared AVs, no contexts */
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = context;
	av->av_fid.fid.ops = &sfi_av_fi_ops;
	av->av_fid.ops = &sfi_av_ops;
	av->dom = dom;
	av->type = attr->type == FI_AV_UNSPEC ? FI_AV_TABLE : attr->type;
	attr->type = av->type;
	dom->refs++;
	*fav = &av->av_fid;
	return 0;
}

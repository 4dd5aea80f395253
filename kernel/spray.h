/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY internal definitions shared by the kernel files of the module.
 */
#ifndef _SPRAY_H
#define _SPRAY_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/in6.h>
#include <net/sock.h>
#include <net/net_namespace.h>
#include <net/ipv6.h>
#include <linux/spray.h>

#define SPRAY_PORT_HASH_BITS	8
#define SPRAY_PORT_HASH_SIZE	(1U << SPRAY_PORT_HASH_BITS)

/**
 * struct spray_addr - a bound or peer address in kernel form
 * @af: AF_INET or AF_INET6
 * @port: spray port, host byte order
 * @scope_id: IPv6 scope id, else 0
 * @v6: the address; an IPv4 address is stored v4-mapped (::ffff:a.b.c.d)
 */
struct spray_addr {
	u16		af;
	u16		port;
	u32		scope_id;
	struct in6_addr	v6;
};

/**
 * struct spray_net - per network namespace state
 * @port_lock: protects @ports (writers); readers use RCU
 * @ports: bound sockets hashed by spray port
 * @nr_bound: number of bound sockets, for statistics
 */
struct spray_net {
	spinlock_t		port_lock;
	struct hlist_head	ports[SPRAY_PORT_HASH_SIZE];
	unsigned int		nr_bound;
};

/**
 * struct spray_sock - an AF_SPRAY socket
 * @sk: the generic socket, first member
 * @bind_node: link in &spray_net.ports while bound
 * @bound: @local is valid and the socket is hashed
 * @local: bound address
 */
struct spray_sock {
	struct sock		sk;
	struct hlist_node	bind_node;
	bool			bound;
	struct spray_addr	local;
};

static inline struct spray_sock *spray_sk(const struct sock *sk)
{
	return container_of(sk, struct spray_sock, sk);
}

/* netns.c */
struct spray_net *spray_net(const struct net *net);
int spray_netns_init(void);
void spray_netns_exit(void);
int spray_port_bind(struct spray_net *sn, struct spray_sock *ss,
		    const struct spray_addr *addr);
void spray_port_unbind(struct spray_net *sn, struct spray_sock *ss);

/* af_spray.c */
int spray_af_init(void);
void spray_af_exit(void);
int spray_addr_from_user(const struct sockaddr *uaddr, int len,
			 struct spray_addr *out);
int spray_addr_to_user(const struct spray_addr *a, struct sockaddr_spray *sa);

/* addr helpers */
static inline bool spray_addr_is_any(const struct spray_addr *a)
{
	if (a->af == AF_INET)
		return a->v6.s6_addr32[3] == 0;
	return ipv6_addr_any(&a->v6);
}

#endif /* _SPRAY_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY socket glue: the address family, its proto_ops and the socket
 * calls that do not move data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/inetdevice.h>
#include <net/sock.h>
#include <net/ipv6.h>
#include <net/addrconf.h>
#include <net/route.h>

#include "spray.h"

static struct proto spray_proto = {
	.name		= "SPRAY",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct spray_sock),
};

/**
 * spray_addr_from_user() - check and convert a sockaddr_spray
 * @uaddr: the address given by the user, already in kernel memory
 * @len: its length
 * @out: the converted address
 *
 * Return: 0, -EINVAL for a short length or non-zero reserved bytes,
 * -EAFNOSUPPORT for a family other than AF_SPRAY or an inner family other
 * than AF_INET/AF_INET6.
 */
int spray_addr_from_user(const struct sockaddr *uaddr, int len,
			 struct spray_addr *out)
{
	const struct sockaddr_spray *sa = (const struct sockaddr_spray *)uaddr;

	if (len < (int)sizeof(*sa))
		return -EINVAL;
	if (sa->sspray_family != AF_SPRAY)
		return -EAFNOSUPPORT;
	if (sa->sspray_reserved)
		return -EINVAL;
	if (len > (int)sizeof(*sa) &&
	    memchr_inv((const u8 *)sa + sizeof(*sa), 0, len - sizeof(*sa)))
		return -EINVAL;

	memset(out, 0, sizeof(*out));
	out->port = ntohs(sa->sspray_port);
	out->af = sa->sspray_af;
	switch (sa->sspray_af) {
	case AF_INET:
		if (sa->sspray_scope_id)
			return -EINVAL;
		ipv6_addr_set_v4mapped(sa->sspray_addr4, &out->v6);
		break;
	case AF_INET6:
		if (!IS_ENABLED(CONFIG_IPV6))
			return -EAFNOSUPPORT;
		memcpy(&out->v6, sa->sspray_addr6, sizeof(out->v6));
		if (ipv6_addr_v4mapped(&out->v6))
			return -EINVAL;
		out->scope_id = sa->sspray_scope_id;
		break;
	default:
		return -EAFNOSUPPORT;
	}
	return 0;
}

/**
 * spray_addr_to_user() - fill a sockaddr_spray
 * @a: the kernel address, or NULL for an unbound socket
 * @sa: the user-visible form
 *
 * Return: the length of @sa.
 */
int spray_addr_to_user(const struct spray_addr *a, struct sockaddr_spray *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sspray_family = AF_SPRAY;
	if (!a)
		return sizeof(*sa);
	sa->sspray_port = htons(a->port);
	sa->sspray_af = a->af;
	if (a->af == AF_INET) {
		sa->sspray_addr4 = a->v6.s6_addr32[3];
	} else {
		memcpy(sa->sspray_addr6, &a->v6, sizeof(sa->sspray_addr6));
		sa->sspray_scope_id = a->scope_id;
	}
	return sizeof(*sa);
}

/* A specific bind address must be configured on this namespace. */
static int spray_addr_check_local(struct net *net, const struct spray_addr *a)
{
	if (spray_addr_is_any(a))
		return 0;
	if (a->af == AF_INET) {
		if (inet_addr_type(net, a->v6.s6_addr32[3]) != RTN_LOCAL)
			return -EADDRNOTAVAIL;
		return 0;
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		struct net_device *dev = NULL;
		int err = 0;

		rcu_read_lock();
		if (a->scope_id) {
			dev = dev_get_by_index_rcu(net, a->scope_id);
			if (!dev)
				err = -ENODEV;
		} else if (ipv6_addr_type(&a->v6) & IPV6_ADDR_LINKLOCAL) {
			err = -EINVAL;
		}
		if (!err && !ipv6_chk_addr(net, &a->v6, dev, 0))
			err = -EADDRNOTAVAIL;
		rcu_read_unlock();
		return err;
	}
#else
	return -EAFNOSUPPORT;
#endif
}

static int spray_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct spray_sock *ss = spray_sk(sock->sk);
	struct sock *sk = sock->sk;
	struct spray_addr addr;
	int err;

	err = spray_addr_from_user(uaddr, len, &addr);
	if (err)
		return err;
	err = spray_addr_check_local(sock_net(sk), &addr);
	if (err)
		return err;

	lock_sock(sk);
	if (ss->bound)
		err = -EINVAL;
	else
		err = spray_port_bind(spray_net(sock_net(sk)), ss, &addr);
	release_sock(sk);
	return err;
}

static int spray_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct spray_sock *ss = spray_sk(sock->sk);
	struct sockaddr_spray *sa = (struct sockaddr_spray *)uaddr;
	int len;

	if (peer)
		return -ENOTCONN;
	lock_sock(sock->sk);
	len = spray_addr_to_user(ss->bound ? &ss->local : NULL, sa);
	release_sock(sock->sk);
	return len;
}

static int spray_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;

	spray_port_unbind(spray_net(sock_net(sk)), spray_sk(sk));

	lock_sock(sk);
	sock_orphan(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	skb_queue_purge(&sk->sk_receive_queue);
	skb_queue_purge(&sk->sk_error_queue);
	release_sock(sk);

	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static int spray_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	return -EOPNOTSUPP;
}

static int spray_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			 int flags)
{
	return -EOPNOTSUPP;
}

static const struct proto_ops spray_dgram_ops = {
	.family		= PF_SPRAY,
	.owner		= THIS_MODULE,
	.release	= spray_release,
	.bind		= spray_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= spray_getname,
	.poll		= datagram_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.sendmsg	= spray_sendmsg,
	.recvmsg	= spray_recvmsg,
	.mmap		= sock_no_mmap,
};

static int spray_create(struct net *net, struct socket *sock, int protocol,
			int kern)
{
	struct sock *sk;

	if (sock->type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	if (protocol)
		return -EPROTONOSUPPORT;

	sk = sk_alloc(net, PF_SPRAY, GFP_KERNEL, &spray_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock->ops = &spray_dgram_ops;
	sock->state = SS_UNCONNECTED;
	sock_init_data(sock, sk);
	sock_set_flag(sk, SOCK_RCU_FREE);
	sk->sk_protocol = protocol;
	INIT_HLIST_NODE(&spray_sk(sk)->bind_node);
	return 0;
}

static const struct net_proto_family spray_family_ops = {
	.family	= PF_SPRAY,
	.create	= spray_create,
	.owner	= THIS_MODULE,
};

/**
 * spray_af_init() - register the protocol and the address family
 *
 * Return: 0, or the error of proto_register() or sock_register(); a taken
 * family slot is reported by name.
 */
int spray_af_init(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct sockaddr_spray) != 28);
	BUILD_BUG_ON(sizeof(struct sockaddr_spray) >
		     sizeof(struct sockaddr_storage));
	BUILD_BUG_ON(AF_SPRAY >= AF_MAX);

	err = proto_register(&spray_proto, 1);
	if (err)
		return err;

	err = sock_register(&spray_family_ops);
	if (err) {
		pr_err("cannot register address family %d (AF_SPRAY): %s\n",
		       AF_SPRAY, err == -EEXIST ?
		       "another protocol already uses this number" :
		       "sock_register failed");
		goto err_unregister_proto;
	}
	return 0;

err_unregister_proto:
	proto_unregister(&spray_proto);
	return err;
}

void spray_af_exit(void)
{
	sock_unregister(PF_SPRAY);
	proto_unregister(&spray_proto);
}

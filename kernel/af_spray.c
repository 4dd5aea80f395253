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
#include <linux/errqueue.h>
#include <linux/sockios.h>
#include <asm/ioctls.h>

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

/*
 * AF_SPRAY is reliable unicast: a multicast or broadcast destination would
 * have every listener answer. Directed broadcasts are refused by the route
 * type when the path is looked up (spray_udp_path()).
 */
static bool spray_addr_unicast(const struct spray_addr *a)
{
	if (a->af == AF_INET)
		return !ipv4_is_multicast(a->v6.s6_addr32[3]) &&
		       !ipv4_is_lbcast(a->v6.s6_addr32[3]);
	return !ipv6_addr_is_multicast(&a->v6);
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

static int spray_do_bind(struct spray_sock *ss, const struct spray_addr *addr)
{
	struct spray_net *sn = spray_net(sock_net(&ss->sk));
	int err;

	/* The namespace's UDP socket comes up with its first bound socket. */
	err = spray_udp_get(sn);
	if (err)
		return err;
	lock_sock(&ss->sk);
	if (ss->bound)
		err = -EINVAL;
	else
		err = spray_port_bind(sn, ss, addr);
	release_sock(&ss->sk);
	return err;
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

	return spray_do_bind(ss, &addr);
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
	spray_sock_destroy_conns(spray_sk(sk));

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

/* The SOL_SPRAY control messages of a sendmsg(). */
static int spray_parse_cmsgs(struct msghdr *msg, u64 *cookie)
{
	struct cmsghdr *cmsg;

	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg))
			return -EINVAL;
		if (cmsg->cmsg_level != SOL_SPRAY ||
		    cmsg->cmsg_type != SPRAY_CMSG_COOKIE ||
		    cmsg->cmsg_len != CMSG_LEN(sizeof(u64)))
			return -EINVAL;
		memcpy(cookie, CMSG_DATA(cmsg), sizeof(u64));
	}
	return 0;
}

static int spray_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct spray_sock *ss = spray_sk(sock->sk);
	struct spray_net *sn = spray_net(sock_net(sock->sk));
	struct spray_addr to, any = {};
	u64 cookie = 0;
	int err;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_CMSG_COMPAT))
		return -EOPNOTSUPP;
	if (!msg->msg_name)
		return -EDESTADDRREQ;
	err = spray_addr_from_user(msg->msg_name, msg->msg_namelen, &to);
	if (err)
		return err;
	if (!to.port || spray_addr_is_any(&to) || !spray_addr_unicast(&to))
		return -EINVAL;
	if (!len)
		return -EINVAL;
	if (READ_ONCE(sock->sk->sk_shutdown) & SEND_SHUTDOWN) {
		if (!(msg->msg_flags & MSG_NOSIGNAL))
			send_sig(SIGPIPE, current, 0);
		return -EPIPE;
	}
	if (len > READ_ONCE(sn->cfg.max_msg))
		return -EMSGSIZE;
	err = spray_parse_cmsgs(msg, &cookie);
	if (err)
		return err;
	if (!READ_ONCE(ss->bound)) {
		/* the wildcard of the destination's family; :: covers both */
		any.af = to.af;
		err = spray_do_bind(ss, &any);
		if (err && err != -EINVAL)
			return err;
	}
	/*
	 * Replies must reach this socket: an IPv4 address (or the IPv4
	 * wildcard) cannot talk to an IPv6 peer, nor a specific IPv6
	 * address to an IPv4 one.
	 */
	if (ss->local.af != to.af &&
	    (ss->local.af == AF_INET || !spray_addr_is_any(&ss->local)))
		return -EAFNOSUPPORT;
	return spray_conn_sendmsg(ss, &to, msg, len, cookie);
}

static int spray_recv_error(struct sock *sk, struct msghdr *msg, size_t len)
{
	struct sock_exterr_skb *serr;
	struct spray_errinfo info;
	struct sk_buff *skb;
	int err;

	skb = skb_dequeue(&sk->sk_error_queue);
	if (!skb)
		return -EAGAIN;
	serr = SKB_EXT_ERR(skb);
	skb_copy_bits(skb, 0, &info, sizeof(info));
	if (msg->msg_name) {
		memcpy(msg->msg_name, &info.addr, sizeof(info.addr));
		msg->msg_namelen = sizeof(info.addr);
	}
	err = put_cmsg(msg, SOL_SPRAY, SPRAY_CMSG_ERR, sizeof(serr->ee),
		       &serr->ee);
	if (!err)
		err = put_cmsg(msg, SOL_SPRAY, SPRAY_CMSG_COOKIE,
			       sizeof(info.cookie), &info.cookie);
	msg->msg_flags |= MSG_ERRQUEUE;
	kfree_skb(skb);
	return err;
}

static bool spray_rx_ready(struct spray_sock *ss)
{
	return !list_empty_careful(&ss->rxq);
}

static int spray_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			 int flags)
{
	struct spray_sock *ss = spray_sk(sock->sk);
	struct sock *sk = sock->sk;
	struct spray_rmsg *rm;
	u32 copied, off, n;
	long timeo;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_PEEK | MSG_ERRQUEUE |
		      MSG_CMSG_COMPAT | MSG_WAITALL | MSG_NOSIGNAL))
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return spray_recv_error(sk, msg, len);

	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	spin_lock_bh(&ss->lock);
	while (list_empty(&ss->rxq)) {
		DEFINE_WAIT_FUNC(wait, woken_wake_function);

		spin_unlock_bh(&ss->lock);
		err = sock_error(sk);
		if (err)
			return err;
		if (sk->sk_shutdown & RCV_SHUTDOWN)
			return 0;
		if (!timeo)
			return -EAGAIN;
		if (signal_pending(current))
			return sock_intr_errno(timeo);
		add_wait_queue(sk_sleep(sk), &wait);
		if (!spray_rx_ready(ss) &&
		    !(READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN))
			timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, timeo);
		remove_wait_queue(sk_sleep(sk), &wait);
		spin_lock_bh(&ss->lock);
	}
	rm = list_first_entry(&ss->rxq, struct spray_rmsg, node);
	if (!(flags & MSG_PEEK))
		list_del_init(&rm->node);
	spin_unlock_bh(&ss->lock);

	/* Only this reader holds @rm now (or, peeking, the socket lock). */
	copied = min_t(size_t, len, rm->len);
	err = 0;
	for (off = 0; off < copied; off += n) {
		n = min_t(u32, copied - off, PAGE_SIZE - (off & ~PAGE_MASK));
		if (copy_page_to_iter(rm->pages[off >> PAGE_SHIFT],
				      off & ~PAGE_MASK, n,
				      &msg->msg_iter) != n) {
			err = -EFAULT;
			break;
		}
	}
	if (msg->msg_name) {
		spray_addr_to_user(&rm->from, msg->msg_name);
		msg->msg_namelen = sizeof(struct sockaddr_spray);
	}
	if (copied < rm->len)
		msg->msg_flags |= MSG_TRUNC;
	n = rm->len;
	if (!(flags & MSG_PEEK)) {
		INIT_LIST_HEAD(&rm->node);
		spray_rmsg_free(ss, rm);
		spray_sock_rmem_freed(ss);
	}
	if (err)
		return err;
	return (flags & MSG_TRUNC) ? n : copied;
}

/* SIOCOUTQ: bytes queued and not yet acknowledged; SIOCINQ: next message. */
static int spray_ioctl(struct socket *sock, unsigned int cmd,
		       unsigned long arg)
{
	struct spray_sock *ss = spray_sk(sock->sk);
	struct spray_rmsg *rm;
	int val;

	switch (cmd) {
	case SIOCOUTQ:
		val = READ_ONCE(sock->sk->sk_wmem_queued);
		break;
	case SIOCINQ:
		spin_lock_bh(&ss->lock);
		rm = list_first_entry_or_null(&ss->rxq, struct spray_rmsg, node);
		val = rm ? rm->len : 0;
		spin_unlock_bh(&ss->lock);
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return put_user(val, (int __user *)arg);
}

static __poll_t spray_poll(struct file *file, struct socket *sock,
			   poll_table *wait)
{
	struct sock *sk = sock->sk;
	__poll_t mask = 0;
	u8 shutdown;

	sock_poll_wait(file, sock, wait);
	if (!skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR | EPOLLPRI;
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	shutdown = READ_ONCE(sk->sk_shutdown);
	if (shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (spray_rx_ready(spray_sk(sk)))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (spray_sock_wspace(sk))
		mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
	else
		sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
	return mask;
}

/*
 * shutdown(): SHUT_RD ends reading once the queue is empty (recvmsg returns
 * 0), SHUT_WR makes sendmsg fail with EPIPE. Threads sleeping in either
 * call wake up and return: the way to stop a thread blocked on a socket
 * that another thread is about to close.
 */
static int spray_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;

	/* SHUT_RD (0), SHUT_WR (1), SHUT_RDWR (2) -> RCV_, SEND_, both */
	how++;
	if (how <= 0 || how > SHUTDOWN_MASK)
		return -EINVAL;
	lock_sock(sk);
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
	release_sock(sk);
	/* wakes every sleeper of the socket, readers and writers */
	sk->sk_state_change(sk);
	return 0;
}

static int spray_setsockopt(struct socket *sock, int level, int optname,
			    sockptr_t optval, unsigned int optlen)
{
	struct spray_sock *ss = spray_sk(sock->sk);
	int val;

	if (level != SOL_SPRAY)
		return -ENOPROTOOPT;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	switch (optname) {
	case SPRAY_ORDERED:
		if (val != 0 && val != 1)
			return -EINVAL;
		WRITE_ONCE(ss->ordered, val);
		return 0;
	case SPRAY_CC_MODE:
		if (val < SPRAY_CC_OFF || val > SPRAY_CC_BOTH)
			return -EINVAL;
		spray_sock_set_cc_mode(ss, val);
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static int spray_getsockopt(struct socket *sock, int level, int optname,
			    char __user *optval, int __user *optlen)
{
	struct spray_sock *ss = spray_sk(sock->sk);
	int len, val;

	if (level != SOL_SPRAY)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < (int)sizeof(int))
		return -EINVAL;
	switch (optname) {
	case SPRAY_ORDERED:
		val = READ_ONCE(ss->ordered);
		break;
	case SPRAY_CC_MODE:
		val = READ_ONCE(ss->cc_mode);
		break;
	default:
		return -ENOPROTOOPT;
	}
	len = sizeof(int);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
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
	.poll		= spray_poll,
	.ioctl		= spray_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= spray_shutdown,
	.setsockopt	= spray_setsockopt,
	.getsockopt	= spray_getsockopt,
	.sendmsg	= spray_sendmsg,
	.recvmsg	= spray_recvmsg,
	.mmap		= sock_no_mmap,
};

static int spray_create(struct net *net, struct socket *sock, int protocol,
			int kern)
{
	struct spray_sock *ss;
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
	/* Room for one largest message each way by default. */
	sk->sk_sndbuf = SPRAY_DEFAULT_BUF;
	sk->sk_rcvbuf = SPRAY_DEFAULT_BUF;
	ss = spray_sk(sk);
	INIT_HLIST_NODE(&ss->bind_node);
	spin_lock_init(&ss->lock);
	INIT_LIST_HEAD(&ss->rxq);
	ss->cc_mode = READ_ONCE(spray_net(net)->cfg.cc_mode);
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

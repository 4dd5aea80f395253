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
#include "conn.h"

/*
 * Memory of every AF_SPRAY socket, in pages, for the protocol's accounting
 * (sk_wmem_schedule(), sk_rmem_schedule()): it charges the socket's memory
 * cgroup, and bounds the protocol's total as UDP's udp_mem does (a quarter
 * of the limit more than 3/4 of it under pressure, failing beyond 1.5x),
 * from the memory of the machine: not tunable.
 */
static atomic_long_t spray_memory_allocated;
static DEFINE_PER_CPU(int, spray_memory_per_cpu_fw_alloc);
static long spray_mem[3];
/* a socket under the limits' pressure still gets a page each way */
static int spray_rmem_min = PAGE_SIZE;
static int spray_wmem_min = PAGE_SIZE;

/*
 * No .owner: an open socket keeps the module through its file
 * (spray_dgram_ops.owner); an orphan (closed, still delivering) does not,
 * so that rmmod ends it (spray_net_kill_orphans() from the namespaces'
 * exit) instead of waiting for it.
 */
static struct proto spray_proto = {
	.name			= "SPRAY",
	.obj_size		= sizeof(struct spray_sock),
	.memory_allocated	= &spray_memory_allocated,
	.per_cpu_fw_alloc	= &spray_memory_per_cpu_fw_alloc,
	.sysctl_mem		= spray_mem,
	.sysctl_wmem		= &spray_wmem_min,
	.sysctl_rmem		= &spray_rmem_min,
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
	struct spray_net *sn = ss->sn;
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

/*
 * An orphan (closed, still delivering) holds no reference on its
 * namespace, as the kernel's own sockets do not: the namespace's exit ends
 * it (spray_net_kill_orphans()) rather than wait for it.
 */
static void spray_sock_drop_netns(struct sock *sk)
{
	struct net *net = sock_net(sk);

	if (!sk->sk_net_refcnt)
		return;
	sock_inuse_add(net, -1);
	sk->sk_net_refcnt = 0;
#ifdef SPRAY_HAVE_NET_PASSIVE
	/* what __sk_destruct() drops for a socket without a reference */
	net_passive_inc(net);
#endif
	put_net_track(net, &sk->ns_tracker);
}

/*
 * close(): SO_LINGER semantics. By default the messages not yet
 * acknowledged are still delivered after close(), in the background,
 * bounded by the retry limit; SO_LINGER with a zero timeout drops them at
 * once; with a timeout, close() waits that long for them first (what is
 * left then goes on in the background). Nothing more is received.
 */
static int spray_release(struct socket *sock)
{
	struct spray_sock *ss;
	struct sock *sk = sock->sk;
	bool drop;

	if (!sk)
		return 0;
	ss = spray_sk(sk);
	drop = sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime;

	lock_sock(sk);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	release_sock(sk);
	if (spray_sock_close_rx(ss, drop) && sock_flag(sk, SOCK_LINGER))
		spray_sock_linger_wait(ss, sk->sk_lingertime);

	lock_sock(sk);
	sock_orphan(sk);
	release_sock(sk);
	sock->sk = NULL;
	if (spray_sock_orphan(ss)) {
		/* the file's reference stays with the orphan */
		spray_sock_drop_netns(sk);
		return 0;
	}
	spray_sock_teardown(ss);
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

/* The history of a failed message, as SPRAY_CMSG_HISTORY gives it. */
static void spray_tmsg_history(const struct spray_tmsg *m,
			       struct spray_msg_history *h)
{
	u8 i;

	BUILD_BUG_ON(SPRAY_TMSG_HIST_EVS != SPRAY_HIST_EVS);
	spray_addr_to_user(&m->dst, &h->sh_peer);
	h->sh_conn_id = m->conn_id;
	h->sh_msg_id = m->msg_id;
	h->sh_ack_age_us = m->ack_age_us;
	h->sh_retx_rack = m->hist.retx[SPRAY_LOSS_RACK - 1];
	h->sh_retx_nack = m->hist.retx[SPRAY_LOSS_NACK - 1];
	h->sh_retx_rto = m->hist.retx[SPRAY_LOSS_RTO - 1];
	h->sh_retx_refused = m->hist.retx[SPRAY_LOSS_REFUSED - 1];
	h->sh_nacks = m->hist.nacks;
	h->sh_rtos = m->hist.rtos;
	h->sh_nr_evs = m->hist.nevs;
	for (i = 0; i < m->hist.nevs && i < SPRAY_HIST_EVS; i++)
		h->sh_evs[i] = m->hist.evs[i];
}

/*
 * recvmsg(MSG_ERRQUEUE): the oldest message that will not be delivered.
 * Returns as much of its data as @len takes (MSG_TRUNC if it is longer,
 * as for a message; with MSG_TRUNC in @flags its whole length), nothing if
 * the receive buffer had no room to keep it; the destination in msg_name,
 * SPRAY_CMSG_ERR (sock_extended_err, ee_info its length),
 * SPRAY_CMSG_COOKIE and SPRAY_CMSG_HISTORY.
 */
static int spray_recv_error(struct sock *sk, struct msghdr *msg, size_t len,
			    int flags)
{
	struct spray_sock *ss = spray_sk(sk);
	struct sock_extended_err ee = {};
	struct spray_msg_history h = {};
	struct spray_tmsg *m;
	u32 have, copied;
	int err = 0;

	if (flags & MSG_PEEK)
		return -EOPNOTSUPP;
	m = spray_sock_pop_error(ss);
	if (!m)
		return -EAGAIN;
	have = m->buf || m->chunks ? m->len : 0;
	copied = min_t(size_t, len, have);
	if (copied && spray_tmsg_copy_to(m, copied, &msg->msg_iter) != copied)
		err = -EFAULT;
	if (copied < have)
		msg->msg_flags |= MSG_TRUNC;
	if (msg->msg_name) {
		spray_addr_to_user(&m->dst, msg->msg_name);
		msg->msg_namelen = sizeof(struct sockaddr_spray);
	}
	ee.ee_errno = m->err;
	ee.ee_origin = SO_EE_ORIGIN_LOCAL;
	ee.ee_info = m->len;
	if (!err)
		err = put_cmsg(msg, SOL_SPRAY, SPRAY_CMSG_ERR, sizeof(ee), &ee);
	if (!err)
		err = put_cmsg(msg, SOL_SPRAY, SPRAY_CMSG_COOKIE,
			       sizeof(m->cookie), &m->cookie);
	if (!err) {
		spray_tmsg_history(m, &h);
		err = put_cmsg(msg, SOL_SPRAY, SPRAY_CMSG_HISTORY, sizeof(h),
			       &h);
	}
	msg->msg_flags |= MSG_ERRQUEUE;
	spray_tmsg_free_error(ss, m);
	if (err)
		return err;
	return (flags & MSG_TRUNC) ? have : copied;
}

static bool spray_rx_ready(struct spray_sock *ss)
{
	return !list_empty_careful(&ss->rxq);
}

static bool spray_rx_wake(struct sock *sk)
{
	return spray_rx_ready(spray_sk(sk)) || READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN);
}

/*
 * recvmsg(): one whole message. Readers (peeking or not) hold the socket
 * lock from choosing a message until it is copied: a reader frees the
 * message it takes, and must not free one another is copying.
 */
static int spray_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			 int flags)
{
	struct spray_sock *ss = spray_sk(sock->sk);
	struct sock *sk = sock->sk;
	struct spray_rmsg *rm;
	u32 copied, n;
	long timeo;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_PEEK | MSG_ERRQUEUE |
		      MSG_CMSG_COMPAT | MSG_WAITALL | MSG_NOSIGNAL))
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return spray_recv_error(sk, msg, len, flags);

	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	lock_sock(sk);
	for (;;) {
		DEFINE_WAIT_FUNC(wait, spray_reader_wake);

		spin_lock_bh(&ss->rxq_lock);
		rm = list_first_entry_or_null(&ss->rxq, struct spray_rmsg,
					      node);
		if (rm && !(flags & MSG_PEEK))
			list_del_init(&rm->node);
		spin_unlock_bh(&ss->rxq_lock);
		if (rm)
			break;
		err = sock_error(sk);
		if (err)
			goto out;
		if (sk->sk_shutdown & RCV_SHUTDOWN) {
			err = 0;
			goto out;
		}
		err = -EAGAIN;
		if (!timeo)
			goto out;
		err = sock_intr_errno(timeo);
		if (signal_pending(current))
			goto out;
		add_wait_queue(sk_sleep(sk), &wait);
		sk_wait_event(sk, &timeo, spray_rx_wake(sk), &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
	}

	copied = min_t(size_t, len, rm->len);
	err = spray_rmsg_copy(rm, &msg->msg_iter, copied);
	if (msg->msg_name) {
		spray_addr_to_user(&rm->from, msg->msg_name);
		msg->msg_namelen = sizeof(struct sockaddr_spray);
	}
	if (copied < rm->len)
		msg->msg_flags |= MSG_TRUNC;
	n = rm->len;
	if (!(flags & MSG_PEEK)) {
		release_sock(sk);
		spray_sock_rmsg_read(ss, rm);
	} else {
		release_sock(sk);
	}
	if (err)
		return err;
	return (flags & MSG_TRUNC) ? n : copied;
out:
	release_sock(sk);
	return err;
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
		val = READ_ONCE(ss->tx_bytes);
		break;
	case SIOCINQ:
		spin_lock_bh(&ss->rxq_lock);
		rm = list_first_entry_or_null(&ss->rxq, struct spray_rmsg, node);
		val = rm ? rm->len : 0;
		spin_unlock_bh(&ss->rxq_lock);
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
	if (READ_ONCE(spray_sk(sk)->errq_len))
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
		return spray_sock_set_ordered(ss, val);
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
	spin_lock_init(&ss->rxq_lock);
	INIT_LIST_HEAD(&ss->errq);
	INIT_LIST_HEAD(&ss->failing);
	INIT_LIST_HEAD(&ss->rconns);
	INIT_LIST_HEAD(&ss->rx_waiting);
	INIT_LIST_HEAD(&ss->rx_turned);
	atomic_set(&ss->rx_uncharge, 0);
	atomic_set(&ss->rx_read_since, 0);
	INIT_LIST_HEAD(&ss->tsq_conns);
	INIT_WORK(&ss->tsq_work, spray_tsq_work);
	spray_sock_init_linger(ss);
	ss->no_pinet6 = NULL;	/* zero already (sk_alloc()): for the reader */
	ss->sn = spray_net(net);
	ss->cc_mode = READ_ONCE(ss->sn->cfg.cc_mode);
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
	unsigned long limit;
	int err;

	BUILD_BUG_ON(sizeof(struct sockaddr_spray) != 28);
	BUILD_BUG_ON(sizeof(struct sockaddr_spray) >
		     sizeof(struct sockaddr_storage));
	BUILD_BUG_ON(AF_SPRAY >= AF_MAX);
	BUILD_BUG_ON(IS_ENABLED(CONFIG_IPV6) &&
		     offsetof(struct spray_sock, no_pinet6) !=
		     offsetof(struct inet_sock, pinet6));

	/* as udp_mem: an eighth of the memory, pressure at 3/4 of it */
	limit = max(nr_free_buffer_pages() / 8, 128UL);
	spray_mem[0] = limit / 4 * 3;
	spray_mem[1] = limit;
	spray_mem[2] = spray_mem[0] * 2;

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

/* No new socket from now on (module exit, first). */
void spray_af_exit(void)
{
	sock_unregister(PF_SPRAY);
}

/*
 * Module exit, last: every socket is gone (orphans ended with their
 * namespaces), their RCU-deferred frees have run.
 */
void spray_af_exit_proto(void)
{
	rcu_barrier();
	proto_unregister(&spray_proto);
}

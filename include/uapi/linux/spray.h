/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * AF_SPRAY: reliable datagrams sprayed per packet over UDP/IP.
 *
 * Socket ABI. The generic-netlink API (configuration, statistics, events)
 * lives in its own header, generated from Documentation/netlink/specs/.
 *
 * A socket is created with socket(AF_SPRAY, SOCK_DGRAM, 0). It is bound to
 * a *spray port*: a 16-bit number in AF_SPRAY's own port space, one per
 * network namespace, carried inside the AF_SPRAY header. On the wire every
 * AF_SPRAY packet of a namespace travels to one UDP port (see the netlink
 * API); the UDP source port of each packet is its entropy value, chosen per
 * packet to spread one message over every ECMP path.
 */
#ifndef _UAPI_LINUX_SPRAY_H
#define _UAPI_LINUX_SPRAY_H

#include <linux/types.h>
#include <linux/socket.h>

/**
 * define AF_SPRAY - the address family of AF_SPRAY sockets
 *
 * Linux allows families below AF_MAX (46) only, and every number below it is
 * claimed. 13 is AF_NETBEUI's: reserved in <linux/socket.h> and never
 * implemented by any kernel, so no in-tree family registers it. The module
 * refuses to load, with a message naming the number, if the slot is taken.
 */
#define AF_SPRAY	13
#define PF_SPRAY	AF_SPRAY

/**
 * define SOL_SPRAY - the level of AF_SPRAY socket options
 *
 * Not an IP protocol number and not registered upstream; any level reaches a
 * family's own setsockopt, this one names AF_SPRAY's.
 */
#define SOL_SPRAY	299

/**
 * struct sockaddr_spray - an AF_SPRAY socket address
 * @sspray_family: AF_SPRAY.
 * @sspray_port: spray port in network byte order; 0 in bind() picks a free
 *	one from the namespace's ephemeral range.
 * @sspray_af: AF_INET or AF_INET6: which member of the address union is
 *	valid. In bind(), the IPv6 wildcard (::) accepts IPv4 and IPv6 peers,
 *	the IPv4 wildcard (0.0.0.0) IPv4 peers only.
 * @sspray_reserved: must be zero.
 * @sspray_scope_id: IPv6 scope (interface index) of a link-local address,
 *	else 0.
 * @sspray_addr4: IPv4 address, network byte order (@sspray_af == AF_INET).
 * @sspray_addr6: IPv6 address (@sspray_af == AF_INET6).
 *
 * 28 bytes; the kernel accepts exactly sizeof(struct sockaddr_spray) or more
 * (trailing bytes must be zero) and returns this size.
 */
struct sockaddr_spray {
	__kernel_sa_family_t	sspray_family;
	__be16			sspray_port;
	__u16			sspray_af;
	__u16			sspray_reserved;
	__u32			sspray_scope_id;
	union {
		__be32		sspray_addr4;
		__u8		sspray_addr6[16];
	};
};

/**
 * DOC: socket options (level SOL_SPRAY)
 *
 * SPRAY_ORDERED (int, 0 or 1, default 0): deliver the messages of each
 * peer in the order they were sent. By default each message is delivered
 * as soon as it is complete.
 */
#define SPRAY_ORDERED		1

/**
 * DOC: SPRAY_CC_MODE
 *
 * SPRAY_CC_MODE (int, default: the namespace's cc-mode when the socket was
 * created): which congestion signals limit this socket's traffic, for its
 * connections present and future.
 *
 * - %SPRAY_CC_MODE_OFF (0): neither; only the windows of the transport.
 * - %SPRAY_CC_MODE_SENDER (1): as a sender, a window that reacts to ECN
 *   marks and queueing delay (NSCC-like).
 * - %SPRAY_CC_MODE_RECEIVER (2): as a receiver, grant credit to the
 *   sockets sending to it, sharing its link among them (incast).
 * - %SPRAY_CC_MODE_BOTH (3): both.
 *
 * A sender window applies when the sending socket enables it, credit when
 * the receiving socket does. Any other value: EINVAL.
 */
#define SPRAY_CC_MODE		2
#define SPRAY_CC_MODE_OFF	0
#define SPRAY_CC_MODE_SENDER	1
#define SPRAY_CC_MODE_RECEIVER	2
#define SPRAY_CC_MODE_BOTH	3

/**
 * DOC: control messages (level SOL_SPRAY)
 *
 * SPRAY_CMSG_COOKIE (__u64): on sendmsg(), a value of the caller's that
 * names the message; returned with it if it cannot be delivered.
 *
 * SPRAY_CMSG_ERR (struct sock_extended_err): on recvmsg(MSG_ERRQUEUE), a
 * message that will not be delivered. ee_errno is ECONNREFUSED (no socket
 * at the destination port), ETIMEDOUT (retry limit reached: the peer or the
 * paths to it are gone; the peer may have taken the message if only its
 * acknowledgements were lost) or ECONNRESET; ee_origin is SO_EE_ORIGIN_LOCAL;
 * ee_info is the message length. msg_name receives the destination and a
 * SPRAY_CMSG_COOKIE cmsg the cookie (0 if none was given). poll() reports
 * EPOLLERR while such entries wait.
 *
 * SPRAY_CMSG_HISTORY (struct spray_msg_history): on recvmsg(MSG_ERRQUEUE),
 * after the two above, what the transport saw for the failed message. A
 * control buffer without room for it gets the others and MSG_CTRUNC.
 */
#define SPRAY_CMSG_COOKIE	1
#define SPRAY_CMSG_ERR		2
#define SPRAY_CMSG_HISTORY	3

/* entropy values a struct spray_msg_history names at most */
#define SPRAY_HIST_EVS		4

/**
 * struct spray_msg_history - what the transport saw for a failed message
 * @sh_peer: the peer it was for: address and spray port (as msg_name)
 * @sh_conn_id: the connection's id, as the peers dump and the spray:*
 *	tracepoints name it (0 if unknown)
 * @sh_msg_id: the message's number in its last incarnation
 * @sh_ack_age_us: how long before the failure the peer's last ACK came,
 *	microseconds; ~0U if it never acknowledged anything
 * @sh_retx_rack: retransmissions of its packets declared lost by RACK (a
 *	packet sent later arrived)
 * @sh_retx_nack: retransmissions after the peer's NACK said they were lost
 * @sh_retx_rto: retransmissions after a retransmission timeout
 * @sh_retx_refused: retransmissions of packets the peer had refused for
 *	lack of buffer (flow control, not loss)
 * @sh_nacks: NACKs (loss, window, no buffer) that named its packets
 * @sh_rtos: retransmission timeouts that declared its packets lost
 * @sh_nr_evs: entries of @sh_evs in use
 * @sh_evs: the last entropy values (UDP source ports) its packets were sent
 *	on, newest first
 * @sh_reserved: zero
 *
 * Counters saturate at 65535. A message failed with ETIMEDOUT by a peer
 * that vanished shows @sh_rtos of about the retry limit, retransmissions
 * by RTO, and an @sh_ack_age_us of about the time it took.
 */
struct spray_msg_history {
	struct sockaddr_spray	sh_peer;
	__u32			sh_conn_id;
	__u32			sh_msg_id;
	__u32			sh_ack_age_us;
	__u32			sh_retx_rack;
	__u32			sh_retx_nack;
	__u32			sh_retx_rto;
	__u32			sh_retx_refused;
	__u32			sh_nacks;
	__u32			sh_rtos;
	__u16			sh_nr_evs;
	__u16			sh_evs[SPRAY_HIST_EVS];
	__u16			sh_reserved;
};

#endif /* _UAPI_LINUX_SPRAY_H */

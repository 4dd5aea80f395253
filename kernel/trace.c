// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY tracepoints: the one file that instantiates them
 * (include/trace/events/spray.h), and what their events share.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>

#include "conn.h"

#define CREATE_TRACE_POINTS
#include <trace/events/spray.h>

/**
 * spray_trace_peer() - the peer's fields of an event
 * @sa: a struct sockaddr_in6 worth of bytes: the address as sockaddr_in or
 *	sockaddr_in6, with the spray port as its port (for "%pISpc")
 * @raddr: the address as 16 bytes, IPv4 v4-mapped (for bpftrace's ntop())
 * @rport: the spray port
 * @a: the peer
 */
void spray_trace_peer(u8 *sa, u8 *raddr, u16 *rport,
		      const struct spray_addr *a)
{
	memset(sa, 0, sizeof(struct sockaddr_in6));
	if (a->af == AF_INET) {
		struct sockaddr_in *v4 = (struct sockaddr_in *)sa;

		v4->sin_family = AF_INET;
		v4->sin_port = htons(a->port);
		v4->sin_addr.s_addr = a->v6.s6_addr32[3];
	} else {
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;

		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(a->port);
		v6->sin6_addr = a->v6;
		v6->sin6_scope_id = a->scope_id;
	}
	memcpy(raddr, &a->v6, 16);
	*rport = a->port;
}

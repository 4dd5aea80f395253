// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY: peer and path walks for the netlink dumps, until the transport
 * provides them. No peer, no path: both dumps are empty. The transport
 * replaces this file (see kernel/netlink.h for the contract).
 */
#include "netlink.h"

int spray_peer_walk(struct net *net, unsigned long *pos,
		    struct spray_peer_info *pi)
{
	return -ENOENT;
}

int spray_path_walk(struct net *net, unsigned long *pos,
		    struct spray_path_info *pi)
{
	return -ENOENT;
}

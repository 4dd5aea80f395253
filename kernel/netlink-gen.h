/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/spray.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_SPRAY_GEN_H
#define _LINUX_SPRAY_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/spray_netlink.h>

int spray_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info);
int spray_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info);
int spray_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int spray_nl_sockets_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int spray_nl_peers_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int spray_nl_paths_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	SPRAY_NLGRP_EVENTS,
};

extern struct genl_family spray_nl_family;

#endif /* _LINUX_SPRAY_GEN_H */

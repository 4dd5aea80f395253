// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/spray.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

#include <uapi/linux/spray_netlink.h>

/* Integer value ranges */
static const struct netlink_range_validation spray_a_config_udp_port_range = {
	.min	= 1ULL,
	.max	= U16_MAX,
};

static const struct netlink_range_validation spray_a_config_rto_min_us_range = {
	.min	= 1ULL,
	.max	= SPRAY_CFG_MAX_RTO_US,
};

static const struct netlink_range_validation spray_a_config_rto_max_us_range = {
	.min	= 1ULL,
	.max	= SPRAY_CFG_MAX_RTO_US,
};

static const struct netlink_range_validation spray_a_config_ack_delay_us_range = {
	.max	= 1000000ULL,
};

static const struct netlink_range_validation spray_a_config_max_msg_range = {
	.min	= 1ULL,
	.max	= SPRAY_CFG_MAX_MSG,
};

static const struct netlink_range_validation spray_a_config_idle_timeout_ms_range = {
	.min	= 1ULL,
	.max	= 86400000ULL,
};

static const struct netlink_range_validation spray_a_config_bdp_bytes_range = {
	.min	= 4096ULL,
	.max	= 1073741824ULL,
};

/* SPRAY_CMD_CONFIG_SET - do */
static const struct nla_policy spray_config_set_nl_policy[SPRAY_A_CONFIG_BDP_BYTES + 1] = {
	[SPRAY_A_CONFIG_UDP_PORT] = NLA_POLICY_FULL_RANGE(NLA_U16, &spray_a_config_udp_port_range),
	[SPRAY_A_CONFIG_NR_EVS] = NLA_POLICY_RANGE(NLA_U32, 1, SPRAY_CFG_MAX_EVS),
	[SPRAY_A_CONFIG_CC_MODE] = NLA_POLICY_MAX(NLA_U32, 3),
	[SPRAY_A_CONFIG_RTO_MIN_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &spray_a_config_rto_min_us_range),
	[SPRAY_A_CONFIG_RTO_MAX_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &spray_a_config_rto_max_us_range),
	[SPRAY_A_CONFIG_RETRY_LIMIT] = NLA_POLICY_RANGE(NLA_U32, 1, 255),
	[SPRAY_A_CONFIG_ACK_EVERY] = NLA_POLICY_RANGE(NLA_U32, 1, 64),
	[SPRAY_A_CONFIG_ACK_DELAY_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &spray_a_config_ack_delay_us_range),
	[SPRAY_A_CONFIG_MAX_MSG] = NLA_POLICY_FULL_RANGE(NLA_U32, &spray_a_config_max_msg_range),
	[SPRAY_A_CONFIG_IDLE_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &spray_a_config_idle_timeout_ms_range),
	[SPRAY_A_CONFIG_BDP_BYTES] = NLA_POLICY_FULL_RANGE(NLA_U32, &spray_a_config_bdp_bytes_range),
};

/* Ops table for spray */
static const struct genl_split_ops spray_nl_ops[] = {
	{
		.cmd	= SPRAY_CMD_CONFIG_GET,
		.doit	= spray_nl_config_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= SPRAY_CMD_CONFIG_SET,
		.doit		= spray_nl_config_set_doit,
		.policy		= spray_config_set_nl_policy,
		.maxattr	= SPRAY_A_CONFIG_BDP_BYTES,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= SPRAY_CMD_STATS_GET,
		.doit	= spray_nl_stats_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd	= SPRAY_CMD_SOCKETS,
		.dumpit	= spray_nl_sockets_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SPRAY_CMD_PEERS,
		.dumpit	= spray_nl_peers_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SPRAY_CMD_PATHS,
		.dumpit	= spray_nl_paths_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
};

static const struct genl_multicast_group spray_nl_mcgrps[] = {
	[SPRAY_NLGRP_EVENTS] = { "events", },
};

struct genl_family spray_nl_family __ro_after_init = {
	.name		= SPRAY_FAMILY_NAME,
	.version	= SPRAY_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= spray_nl_ops,
	.n_split_ops	= ARRAY_SIZE(spray_nl_ops),
	.mcgrps		= spray_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(spray_nl_mcgrps),
};

// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/spray.yaml */
/* YNL-GEN user source */

#include <stdlib.h>
#include <string.h>
#include "spray-user.h"
#include "ynl.h"
#include <linux/spray_netlink.h>

#include <linux/genetlink.h>

/* Enums */
static const char * const spray_op_strmap[] = {
	[SPRAY_CMD_CONFIG_GET] = "config-get",
	[SPRAY_CMD_CONFIG_SET] = "config-set",
	[SPRAY_CMD_STATS_GET] = "stats-get",
	[SPRAY_CMD_SOCKETS] = "sockets",
	[SPRAY_CMD_PEERS] = "peers",
	[SPRAY_CMD_PATHS] = "paths",
	[SPRAY_CMD_PATH_DOWN] = "path-down",
	[SPRAY_CMD_PATH_UP] = "path-up",
	[SPRAY_CMD_PEER_UNREACHABLE] = "peer-unreachable",
};

const char *spray_op_str(int op)
{
	if (op < 0 || op >= (int)YNL_ARRAY_SIZE(spray_op_strmap))
		return NULL;
	return spray_op_strmap[op];
}

static const char * const spray_nl_cc_mode_strmap[] = {
	[0] = "off",
	[1] = "sender",
	[2] = "receiver",
	[3] = "both",
};

const char *spray_nl_cc_mode_str(enum spray_nl_cc_mode value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(spray_nl_cc_mode_strmap))
		return NULL;
	return spray_nl_cc_mode_strmap[value];
}

static const char * const spray_nl_peer_state_strmap[] = {
	[0] = "idle",
	[1] = "active",
	[2] = "unreachable",
	[3] = "closing",
};

const char *spray_nl_peer_state_str(enum spray_nl_peer_state value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(spray_nl_peer_state_strmap))
		return NULL;
	return spray_nl_peer_state_strmap[value];
}

static const char * const spray_nl_path_state_strmap[] = {
	[0] = "up",
	[1] = "avoided",
	[2] = "down",
};

const char *spray_nl_path_state_str(enum spray_nl_path_state value)
{
	if (value < 0 || value >= (int)YNL_ARRAY_SIZE(spray_nl_path_state_strmap))
		return NULL;
	return spray_nl_path_state_strmap[value];
}

/* Policies */
const struct ynl_policy_attr spray_drop_policy[SPRAY_A_DROP_MAX + 1] = {
	[SPRAY_A_DROP_REASON] = { .name = "reason", .type = YNL_PT_NUL_STR, },
	[SPRAY_A_DROP_COUNT] = { .name = "count", .type = YNL_PT_U64, },
	[SPRAY_A_DROP_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
};

const struct ynl_policy_nest spray_drop_nest = {
	.max_attr = SPRAY_A_DROP_MAX,
	.table = spray_drop_policy,
};

const struct ynl_policy_attr spray_address_policy[SPRAY_A_ADDRESS_MAX + 1] = {
	[SPRAY_A_ADDRESS_AF] = { .name = "af", .type = YNL_PT_U16, },
	[SPRAY_A_ADDRESS_ADDR4] = { .name = "addr4", .type = YNL_PT_BINARY,},
	[SPRAY_A_ADDRESS_ADDR6] = { .name = "addr6", .type = YNL_PT_BINARY,},
	[SPRAY_A_ADDRESS_SCOPE_ID] = { .name = "scope-id", .type = YNL_PT_U32, },
	[SPRAY_A_ADDRESS_PORT] = { .name = "port", .type = YNL_PT_U16, },
};

const struct ynl_policy_nest spray_address_nest = {
	.max_attr = SPRAY_A_ADDRESS_MAX,
	.table = spray_address_policy,
};

const struct ynl_policy_attr spray_config_policy[SPRAY_A_CONFIG_MAX + 1] = {
	[SPRAY_A_CONFIG_UDP_PORT] = { .name = "udp-port", .type = YNL_PT_U16, },
	[SPRAY_A_CONFIG_NR_EVS] = { .name = "nr-evs", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_CC_MODE] = { .name = "cc-mode", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_RTO_MIN_US] = { .name = "rto-min-us", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_RTO_MAX_US] = { .name = "rto-max-us", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_RETRY_LIMIT] = { .name = "retry-limit", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_ACK_EVERY] = { .name = "ack-every", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_ACK_DELAY_US] = { .name = "ack-delay-us", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_MAX_MSG] = { .name = "max-msg", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_IDLE_TIMEOUT_MS] = { .name = "idle-timeout-ms", .type = YNL_PT_U32, },
	[SPRAY_A_CONFIG_BDP_BYTES] = { .name = "bdp-bytes", .type = YNL_PT_U32, },
};

const struct ynl_policy_nest spray_config_nest = {
	.max_attr = SPRAY_A_CONFIG_MAX,
	.table = spray_config_policy,
};

const struct ynl_policy_attr spray_stats_policy[SPRAY_A_STATS_MAX + 1] = {
	[SPRAY_A_STATS_TX_PKTS] = { .name = "tx-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_TX_BYTES] = { .name = "tx-bytes", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RETX_PKTS] = { .name = "retx-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RX_PKTS] = { .name = "rx-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RX_BYTES] = { .name = "rx-bytes", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_TX_MSGS] = { .name = "tx-msgs", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RX_MSGS] = { .name = "rx-msgs", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_MSG_FAILED] = { .name = "msg-failed", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_ACK_TX] = { .name = "ack-tx", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_ACK_RX] = { .name = "ack-rx", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_NACK_TX] = { .name = "nack-tx", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_NACK_RX] = { .name = "nack-rx", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_LOST_PKTS] = { .name = "lost-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RTO] = { .name = "rto", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_ECN_CE] = { .name = "ecn-ce", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_ECN_ECHO] = { .name = "ecn-echo", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_CONN_OPEN] = { .name = "conn-open", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_CONN_CLOSE] = { .name = "conn-close", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_CONN_RESET] = { .name = "conn-reset", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_PATH_DOWN] = { .name = "path-down", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_PATH_UP] = { .name = "path-up", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RCVBUF_FULL] = { .name = "rcvbuf-full", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_NO_SOCKET] = { .name = "no-socket", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_DROP] = { .name = "drop", .type = YNL_PT_NEST, .nest = &spray_drop_nest, },
	[SPRAY_A_STATS_BOUND_SOCKETS] = { .name = "bound-sockets", .type = YNL_PT_U32, },
	[SPRAY_A_STATS_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[SPRAY_A_STATS_LOST_RACK] = { .name = "lost-rack", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_LOST_NACK] = { .name = "lost-nack", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_LOST_RTO] = { .name = "lost-rto", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_SPURIOUS_LOSS] = { .name = "spurious-loss", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_WINDOW_PROBES] = { .name = "window-probes", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RX_COPIED] = { .name = "rx-copied", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_TX_THROTTLED] = { .name = "tx-throttled", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_ACK_CARRIED] = { .name = "ack-carried", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_REFUSED_RESENT] = { .name = "refused-resent", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RESUME_TX] = { .name = "resume-tx", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RX_TURNS] = { .name = "rx-turns", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RX_TURNS_EXPIRED] = { .name = "rx-turns-expired", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_CLOSED_ACKS] = { .name = "closed-acks", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_TIMER_FIRES] = { .name = "timer-fires", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_ANSWER_PROBES] = { .name = "answer-probes", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_TX_TRAINS] = { .name = "tx-trains", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_RX_TRAINS] = { .name = "rx-trains", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_ICMP_ERRORS] = { .name = "icmp-errors", .type = YNL_PT_U64, },
	[SPRAY_A_STATS_PMTU_BLACKHOLES] = { .name = "pmtu-blackholes", .type = YNL_PT_U64, },
};

const struct ynl_policy_nest spray_stats_nest = {
	.max_attr = SPRAY_A_STATS_MAX,
	.table = spray_stats_policy,
};

const struct ynl_policy_attr spray_socket_policy[SPRAY_A_SOCKET_MAX + 1] = {
	[SPRAY_A_SOCKET_LOCAL] = { .name = "local", .type = YNL_PT_NEST, .nest = &spray_address_nest, },
	[SPRAY_A_SOCKET_RX_QUEUE] = { .name = "rx-queue", .type = YNL_PT_U32, },
	[SPRAY_A_SOCKET_TX_QUEUE] = { .name = "tx-queue", .type = YNL_PT_U32, },
	[SPRAY_A_SOCKET_INODE] = { .name = "inode", .type = YNL_PT_U64, },
	[SPRAY_A_SOCKET_UID] = { .name = "uid", .type = YNL_PT_U32, },
	[SPRAY_A_SOCKET_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
};

const struct ynl_policy_nest spray_socket_nest = {
	.max_attr = SPRAY_A_SOCKET_MAX,
	.table = spray_socket_policy,
};

const struct ynl_policy_attr spray_peer_policy[SPRAY_A_PEER_MAX + 1] = {
	[SPRAY_A_PEER_ID] = { .name = "id", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_LOCAL] = { .name = "local", .type = YNL_PT_NEST, .nest = &spray_address_nest, },
	[SPRAY_A_PEER_REMOTE] = { .name = "remote", .type = YNL_PT_NEST, .nest = &spray_address_nest, },
	[SPRAY_A_PEER_LOCAL_CID] = { .name = "local-cid", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_REMOTE_CID] = { .name = "remote-cid", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_STATE] = { .name = "state", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_SRTT_US] = { .name = "srtt-us", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_MIN_RTT_US] = { .name = "min-rtt-us", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_RTO_US] = { .name = "rto-us", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_CWND] = { .name = "cwnd", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_GRANT_OUTSTANDING] = { .name = "grant-outstanding", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_IN_FLIGHT] = { .name = "in-flight", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_TX_PKTS] = { .name = "tx-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_PEER_RETX_PKTS] = { .name = "retx-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_PEER_RX_PKTS] = { .name = "rx-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_PEER_ECN_MARKED] = { .name = "ecn-marked", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
	[SPRAY_A_PEER_BDP] = { .name = "bdp", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_RCV_BDP] = { .name = "rcv-bdp", .type = YNL_PT_U32, },
	[SPRAY_A_PEER_PKT_PAYLOAD] = { .name = "pkt-payload", .type = YNL_PT_U32, },
};

const struct ynl_policy_nest spray_peer_nest = {
	.max_attr = SPRAY_A_PEER_MAX,
	.table = spray_peer_policy,
};

const struct ynl_policy_attr spray_path_policy[SPRAY_A_PATH_MAX + 1] = {
	[SPRAY_A_PATH_PEER_ID] = { .name = "peer-id", .type = YNL_PT_U32, },
	[SPRAY_A_PATH_EV] = { .name = "ev", .type = YNL_PT_U16, },
	[SPRAY_A_PATH_STATE] = { .name = "state", .type = YNL_PT_U32, },
	[SPRAY_A_PATH_TX_PKTS] = { .name = "tx-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_PATH_ACKED_PKTS] = { .name = "acked-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_PATH_LOST_PKTS] = { .name = "lost-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_PATH_ECN_PKTS] = { .name = "ecn-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_PATH_RETX_PKTS] = { .name = "retx-pkts", .type = YNL_PT_U64, },
	[SPRAY_A_PATH_PAD] = { .name = "pad", .type = YNL_PT_IGNORE, },
};

const struct ynl_policy_nest spray_path_nest = {
	.max_attr = SPRAY_A_PATH_MAX,
	.table = spray_path_policy,
};

const struct ynl_policy_attr spray_event_policy[SPRAY_A_EVENT_MAX + 1] = {
	[SPRAY_A_EVENT_LOCAL] = { .name = "local", .type = YNL_PT_NEST, .nest = &spray_address_nest, },
	[SPRAY_A_EVENT_REMOTE] = { .name = "remote", .type = YNL_PT_NEST, .nest = &spray_address_nest, },
	[SPRAY_A_EVENT_EV] = { .name = "ev", .type = YNL_PT_U16, },
	[SPRAY_A_EVENT_ERROR] = { .name = "error", .type = YNL_PT_U32, },
};

const struct ynl_policy_nest spray_event_nest = {
	.max_attr = SPRAY_A_EVENT_MAX,
	.table = spray_event_policy,
};

/* Common nested types */
void spray_drop_free(struct spray_drop *obj)
{
	free(obj->reason);
}

int spray_drop_parse(struct ynl_parse_arg *yarg, const struct nlattr *nested)
{
	struct spray_drop *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_DROP_REASON) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = strnlen(ynl_attr_get_str(attr), ynl_attr_data_len(attr));
			dst->_present.reason_len = len;
			dst->reason = malloc(len + 1);
			memcpy(dst->reason, ynl_attr_get_str(attr), len);
			dst->reason[len] = 0;
		} else if (type == SPRAY_A_DROP_COUNT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.count = 1;
			dst->count = ynl_attr_get_u64(attr);
		}
	}

	return 0;
}

void spray_address_free(struct spray_address *obj)
{
	free(obj->addr4);
	free(obj->addr6);
}

int spray_address_parse(struct ynl_parse_arg *yarg,
			const struct nlattr *nested)
{
	struct spray_address *dst = yarg->data;
	const struct nlattr *attr;

	ynl_attr_for_each_nested(attr, nested) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_ADDRESS_AF) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.af = 1;
			dst->af = ynl_attr_get_u16(attr);
		} else if (type == SPRAY_A_ADDRESS_ADDR4) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = ynl_attr_data_len(attr);
			dst->_present.addr4_len = len;
			dst->addr4 = malloc(len);
			memcpy(dst->addr4, ynl_attr_data(attr), len);
		} else if (type == SPRAY_A_ADDRESS_ADDR6) {
			unsigned int len;

			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;

			len = ynl_attr_data_len(attr);
			dst->_present.addr6_len = len;
			dst->addr6 = malloc(len);
			memcpy(dst->addr6, ynl_attr_data(attr), len);
		} else if (type == SPRAY_A_ADDRESS_SCOPE_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.scope_id = 1;
			dst->scope_id = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_ADDRESS_PORT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.port = 1;
			dst->port = ynl_attr_get_u16(attr);
		}
	}

	return 0;
}

/* ============== SPRAY_CMD_CONFIG_GET ============== */
/* SPRAY_CMD_CONFIG_GET - do */
void spray_config_get_rsp_free(struct spray_config_get_rsp *rsp)
{
	free(rsp);
}

int spray_config_get_rsp_parse(const struct nlmsghdr *nlh,
			       struct ynl_parse_arg *yarg)
{
	struct spray_config_get_rsp *dst;
	const struct nlattr *attr;

	dst = yarg->data;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_CONFIG_UDP_PORT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.udp_port = 1;
			dst->udp_port = ynl_attr_get_u16(attr);
		} else if (type == SPRAY_A_CONFIG_NR_EVS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.nr_evs = 1;
			dst->nr_evs = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_CC_MODE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cc_mode = 1;
			dst->cc_mode = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_RTO_MIN_US) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rto_min_us = 1;
			dst->rto_min_us = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_RTO_MAX_US) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rto_max_us = 1;
			dst->rto_max_us = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_RETRY_LIMIT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.retry_limit = 1;
			dst->retry_limit = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_ACK_EVERY) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ack_every = 1;
			dst->ack_every = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_ACK_DELAY_US) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ack_delay_us = 1;
			dst->ack_delay_us = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_MAX_MSG) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.max_msg = 1;
			dst->max_msg = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_IDLE_TIMEOUT_MS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.idle_timeout_ms = 1;
			dst->idle_timeout_ms = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_CONFIG_BDP_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.bdp_bytes = 1;
			dst->bdp_bytes = ynl_attr_get_u32(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

struct spray_config_get_rsp *spray_config_get(struct ynl_sock *ys)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct spray_config_get_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, SPRAY_CMD_CONFIG_GET, 1);
	ys->req_policy = &spray_config_nest;
	yrs.yarg.rsp_policy = &spray_config_nest;

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = spray_config_get_rsp_parse;
	yrs.rsp_cmd = SPRAY_CMD_CONFIG_GET;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	spray_config_get_rsp_free(rsp);
	return NULL;
}

/* ============== SPRAY_CMD_CONFIG_SET ============== */
/* SPRAY_CMD_CONFIG_SET - do */
void spray_config_set_req_free(struct spray_config_set_req *req)
{
	free(req);
}

int spray_config_set(struct ynl_sock *ys, struct spray_config_set_req *req)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, SPRAY_CMD_CONFIG_SET, 1);
	ys->req_policy = &spray_config_nest;

	if (req->_present.udp_port)
		ynl_attr_put_u16(nlh, SPRAY_A_CONFIG_UDP_PORT, req->udp_port);
	if (req->_present.nr_evs)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_NR_EVS, req->nr_evs);
	if (req->_present.cc_mode)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_CC_MODE, req->cc_mode);
	if (req->_present.rto_min_us)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_RTO_MIN_US, req->rto_min_us);
	if (req->_present.rto_max_us)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_RTO_MAX_US, req->rto_max_us);
	if (req->_present.retry_limit)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_RETRY_LIMIT, req->retry_limit);
	if (req->_present.ack_every)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_ACK_EVERY, req->ack_every);
	if (req->_present.ack_delay_us)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_ACK_DELAY_US, req->ack_delay_us);
	if (req->_present.max_msg)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_MAX_MSG, req->max_msg);
	if (req->_present.idle_timeout_ms)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_IDLE_TIMEOUT_MS, req->idle_timeout_ms);
	if (req->_present.bdp_bytes)
		ynl_attr_put_u32(nlh, SPRAY_A_CONFIG_BDP_BYTES, req->bdp_bytes);

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		return -1;

	return 0;
}

/* ============== SPRAY_CMD_STATS_GET ============== */
/* SPRAY_CMD_STATS_GET - do */
void spray_stats_get_rsp_free(struct spray_stats_get_rsp *rsp)
{
	unsigned int i;

	for (i = 0; i < rsp->n_drop; i++)
		spray_drop_free(&rsp->drop[i]);
	free(rsp->drop);
	free(rsp);
}

int spray_stats_get_rsp_parse(const struct nlmsghdr *nlh,
			      struct ynl_parse_arg *yarg)
{
	struct spray_stats_get_rsp *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;
	unsigned int n_drop = 0;
	int i;

	dst = yarg->data;
	parg.ys = yarg->ys;

	if (dst->drop)
		return ynl_error_parse(yarg, "attribute already present (stats.drop)");

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_STATS_TX_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tx_pkts = 1;
			dst->tx_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_TX_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tx_bytes = 1;
			dst->tx_bytes = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RETX_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.retx_pkts = 1;
			dst->retx_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RX_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_pkts = 1;
			dst->rx_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RX_BYTES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_bytes = 1;
			dst->rx_bytes = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_TX_MSGS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tx_msgs = 1;
			dst->tx_msgs = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RX_MSGS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_msgs = 1;
			dst->rx_msgs = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_MSG_FAILED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.msg_failed = 1;
			dst->msg_failed = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_ACK_TX) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ack_tx = 1;
			dst->ack_tx = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_ACK_RX) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ack_rx = 1;
			dst->ack_rx = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_NACK_TX) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.nack_tx = 1;
			dst->nack_tx = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_NACK_RX) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.nack_rx = 1;
			dst->nack_rx = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_LOST_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.lost_pkts = 1;
			dst->lost_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RTO) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rto = 1;
			dst->rto = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_ECN_CE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ecn_ce = 1;
			dst->ecn_ce = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_ECN_ECHO) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ecn_echo = 1;
			dst->ecn_echo = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_CONN_OPEN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.conn_open = 1;
			dst->conn_open = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_CONN_CLOSE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.conn_close = 1;
			dst->conn_close = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_CONN_RESET) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.conn_reset = 1;
			dst->conn_reset = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_PATH_DOWN) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.path_down = 1;
			dst->path_down = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_PATH_UP) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.path_up = 1;
			dst->path_up = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RCVBUF_FULL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rcvbuf_full = 1;
			dst->rcvbuf_full = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_NO_SOCKET) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.no_socket = 1;
			dst->no_socket = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_DROP) {
			n_drop++;
		} else if (type == SPRAY_A_STATS_BOUND_SOCKETS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.bound_sockets = 1;
			dst->bound_sockets = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_STATS_LOST_RACK) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.lost_rack = 1;
			dst->lost_rack = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_LOST_NACK) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.lost_nack = 1;
			dst->lost_nack = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_LOST_RTO) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.lost_rto = 1;
			dst->lost_rto = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_SPURIOUS_LOSS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.spurious_loss = 1;
			dst->spurious_loss = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_WINDOW_PROBES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.window_probes = 1;
			dst->window_probes = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RX_COPIED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_copied = 1;
			dst->rx_copied = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_TX_THROTTLED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tx_throttled = 1;
			dst->tx_throttled = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_ACK_CARRIED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ack_carried = 1;
			dst->ack_carried = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_REFUSED_RESENT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.refused_resent = 1;
			dst->refused_resent = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RESUME_TX) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.resume_tx = 1;
			dst->resume_tx = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RX_TURNS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_turns = 1;
			dst->rx_turns = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RX_TURNS_EXPIRED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_turns_expired = 1;
			dst->rx_turns_expired = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_CLOSED_ACKS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.closed_acks = 1;
			dst->closed_acks = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_TIMER_FIRES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.timer_fires = 1;
			dst->timer_fires = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_ANSWER_PROBES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.answer_probes = 1;
			dst->answer_probes = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_TX_TRAINS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tx_trains = 1;
			dst->tx_trains = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_RX_TRAINS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_trains = 1;
			dst->rx_trains = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_ICMP_ERRORS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.icmp_errors = 1;
			dst->icmp_errors = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_STATS_PMTU_BLACKHOLES) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pmtu_blackholes = 1;
			dst->pmtu_blackholes = ynl_attr_get_u64(attr);
		}
	}

	if (n_drop) {
		dst->drop = calloc(n_drop, sizeof(*dst->drop));
		dst->n_drop = n_drop;
		i = 0;
		parg.rsp_policy = &spray_drop_nest;
		ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
			if (ynl_attr_type(attr) == SPRAY_A_STATS_DROP) {
				parg.data = &dst->drop[i];
				if (spray_drop_parse(&parg, attr))
					return YNL_PARSE_CB_ERROR;
				i++;
			}
		}
	}

	return YNL_PARSE_CB_OK;
}

struct spray_stats_get_rsp *spray_stats_get(struct ynl_sock *ys)
{
	struct ynl_req_state yrs = { .yarg = { .ys = ys, }, };
	struct spray_stats_get_rsp *rsp;
	struct nlmsghdr *nlh;
	int err;

	nlh = ynl_gemsg_start_req(ys, ys->family_id, SPRAY_CMD_STATS_GET, 1);
	ys->req_policy = &spray_stats_nest;
	yrs.yarg.rsp_policy = &spray_stats_nest;

	rsp = calloc(1, sizeof(*rsp));
	yrs.yarg.data = rsp;
	yrs.cb = spray_stats_get_rsp_parse;
	yrs.rsp_cmd = SPRAY_CMD_STATS_GET;

	err = ynl_exec(ys, nlh, &yrs);
	if (err < 0)
		goto err_free;

	return rsp;

err_free:
	spray_stats_get_rsp_free(rsp);
	return NULL;
}

/* ============== SPRAY_CMD_SOCKETS ============== */
/* SPRAY_CMD_SOCKETS - dump */
int spray_sockets_rsp_dump_parse(const struct nlmsghdr *nlh,
				 struct ynl_parse_arg *yarg)
{
	struct spray_sockets_rsp_dump *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;

	dst = yarg->data;
	parg.ys = yarg->ys;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_SOCKET_LOCAL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.local = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->local;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_SOCKET_RX_QUEUE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_queue = 1;
			dst->rx_queue = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_SOCKET_TX_QUEUE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tx_queue = 1;
			dst->tx_queue = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_SOCKET_INODE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.inode = 1;
			dst->inode = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_SOCKET_UID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.uid = 1;
			dst->uid = ynl_attr_get_u32(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

void spray_sockets_rsp_list_free(struct spray_sockets_rsp_list *rsp)
{
	struct spray_sockets_rsp_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		rsp = next;
		next = rsp->next;

		spray_address_free(&rsp->obj.local);
		free(rsp);
	}
}

struct spray_sockets_rsp_list *spray_sockets_dump(struct ynl_sock *ys)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &spray_socket_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct spray_sockets_rsp_list);
	yds.cb = spray_sockets_rsp_dump_parse;
	yds.rsp_cmd = SPRAY_CMD_SOCKETS;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, SPRAY_CMD_SOCKETS, 1);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	spray_sockets_rsp_list_free(yds.first);
	return NULL;
}

/* ============== SPRAY_CMD_PEERS ============== */
/* SPRAY_CMD_PEERS - dump */
int spray_peers_rsp_dump_parse(const struct nlmsghdr *nlh,
			       struct ynl_parse_arg *yarg)
{
	struct spray_peers_rsp_dump *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;

	dst = yarg->data;
	parg.ys = yarg->ys;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_PEER_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.id = 1;
			dst->id = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_LOCAL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.local = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->local;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_PEER_REMOTE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.remote = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->remote;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_PEER_LOCAL_CID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.local_cid = 1;
			dst->local_cid = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_REMOTE_CID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.remote_cid = 1;
			dst->remote_cid = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_STATE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.state = 1;
			dst->state = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_SRTT_US) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.srtt_us = 1;
			dst->srtt_us = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_MIN_RTT_US) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.min_rtt_us = 1;
			dst->min_rtt_us = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_RTO_US) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rto_us = 1;
			dst->rto_us = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_CWND) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.cwnd = 1;
			dst->cwnd = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_GRANT_OUTSTANDING) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.grant_outstanding = 1;
			dst->grant_outstanding = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_IN_FLIGHT) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.in_flight = 1;
			dst->in_flight = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_TX_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tx_pkts = 1;
			dst->tx_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_PEER_RETX_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.retx_pkts = 1;
			dst->retx_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_PEER_RX_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rx_pkts = 1;
			dst->rx_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_PEER_ECN_MARKED) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ecn_marked = 1;
			dst->ecn_marked = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_BDP) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.bdp = 1;
			dst->bdp = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_RCV_BDP) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.rcv_bdp = 1;
			dst->rcv_bdp = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PEER_PKT_PAYLOAD) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.pkt_payload = 1;
			dst->pkt_payload = ynl_attr_get_u32(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

void spray_peers_rsp_list_free(struct spray_peers_rsp_list *rsp)
{
	struct spray_peers_rsp_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		rsp = next;
		next = rsp->next;

		spray_address_free(&rsp->obj.local);
		spray_address_free(&rsp->obj.remote);
		free(rsp);
	}
}

struct spray_peers_rsp_list *spray_peers_dump(struct ynl_sock *ys)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &spray_peer_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct spray_peers_rsp_list);
	yds.cb = spray_peers_rsp_dump_parse;
	yds.rsp_cmd = SPRAY_CMD_PEERS;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, SPRAY_CMD_PEERS, 1);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	spray_peers_rsp_list_free(yds.first);
	return NULL;
}

/* ============== SPRAY_CMD_PATHS ============== */
/* SPRAY_CMD_PATHS - dump */
int spray_paths_rsp_dump_parse(const struct nlmsghdr *nlh,
			       struct ynl_parse_arg *yarg)
{
	struct spray_paths_rsp_dump *dst;
	const struct nlattr *attr;

	dst = yarg->data;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_PATH_PEER_ID) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.peer_id = 1;
			dst->peer_id = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PATH_EV) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ev = 1;
			dst->ev = ynl_attr_get_u16(attr);
		} else if (type == SPRAY_A_PATH_STATE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.state = 1;
			dst->state = ynl_attr_get_u32(attr);
		} else if (type == SPRAY_A_PATH_TX_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.tx_pkts = 1;
			dst->tx_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_PATH_ACKED_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.acked_pkts = 1;
			dst->acked_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_PATH_LOST_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.lost_pkts = 1;
			dst->lost_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_PATH_ECN_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ecn_pkts = 1;
			dst->ecn_pkts = ynl_attr_get_u64(attr);
		} else if (type == SPRAY_A_PATH_RETX_PKTS) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.retx_pkts = 1;
			dst->retx_pkts = ynl_attr_get_u64(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

void spray_paths_rsp_list_free(struct spray_paths_rsp_list *rsp)
{
	struct spray_paths_rsp_list *next = rsp;

	while ((void *)next != YNL_LIST_END) {
		rsp = next;
		next = rsp->next;

		free(rsp);
	}
}

struct spray_paths_rsp_list *spray_paths_dump(struct ynl_sock *ys)
{
	struct ynl_dump_state yds = {};
	struct nlmsghdr *nlh;
	int err;

	yds.yarg.ys = ys;
	yds.yarg.rsp_policy = &spray_path_nest;
	yds.yarg.data = NULL;
	yds.alloc_sz = sizeof(struct spray_paths_rsp_list);
	yds.cb = spray_paths_rsp_dump_parse;
	yds.rsp_cmd = SPRAY_CMD_PATHS;

	nlh = ynl_gemsg_start_dump(ys, ys->family_id, SPRAY_CMD_PATHS, 1);

	err = ynl_exec_dump(ys, nlh, &yds);
	if (err < 0)
		goto free_list;

	return yds.first;

free_list:
	spray_paths_rsp_list_free(yds.first);
	return NULL;
}

/* SPRAY_CMD_PATH_DOWN - event */
int spray_path_down_rsp_parse(const struct nlmsghdr *nlh,
			      struct ynl_parse_arg *yarg)
{
	struct spray_path_down_rsp *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;

	dst = yarg->data;
	parg.ys = yarg->ys;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_EVENT_LOCAL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.local = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->local;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_EVENT_REMOTE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.remote = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->remote;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_EVENT_EV) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ev = 1;
			dst->ev = ynl_attr_get_u16(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

void spray_path_down_free(struct spray_path_down *rsp)
{
	spray_address_free(&rsp->obj.local);
	spray_address_free(&rsp->obj.remote);
	free(rsp);
}

/* SPRAY_CMD_PATH_UP - event */
int spray_path_up_rsp_parse(const struct nlmsghdr *nlh,
			    struct ynl_parse_arg *yarg)
{
	struct spray_path_up_rsp *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;

	dst = yarg->data;
	parg.ys = yarg->ys;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_EVENT_LOCAL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.local = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->local;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_EVENT_REMOTE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.remote = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->remote;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_EVENT_EV) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.ev = 1;
			dst->ev = ynl_attr_get_u16(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

void spray_path_up_free(struct spray_path_up *rsp)
{
	spray_address_free(&rsp->obj.local);
	spray_address_free(&rsp->obj.remote);
	free(rsp);
}

/* SPRAY_CMD_PEER_UNREACHABLE - event */
int spray_peer_unreachable_rsp_parse(const struct nlmsghdr *nlh,
				     struct ynl_parse_arg *yarg)
{
	struct spray_peer_unreachable_rsp *dst;
	const struct nlattr *attr;
	struct ynl_parse_arg parg;

	dst = yarg->data;
	parg.ys = yarg->ys;

	ynl_attr_for_each(attr, nlh, yarg->ys->family->hdr_len) {
		unsigned int type = ynl_attr_type(attr);

		if (type == SPRAY_A_EVENT_LOCAL) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.local = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->local;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_EVENT_REMOTE) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.remote = 1;

			parg.rsp_policy = &spray_address_nest;
			parg.data = &dst->remote;
			if (spray_address_parse(&parg, attr))
				return YNL_PARSE_CB_ERROR;
		} else if (type == SPRAY_A_EVENT_ERROR) {
			if (ynl_attr_validate(yarg, attr))
				return YNL_PARSE_CB_ERROR;
			dst->_present.error = 1;
			dst->error = ynl_attr_get_u32(attr);
		}
	}

	return YNL_PARSE_CB_OK;
}

void spray_peer_unreachable_free(struct spray_peer_unreachable *rsp)
{
	spray_address_free(&rsp->obj.local);
	spray_address_free(&rsp->obj.remote);
	free(rsp);
}

static const struct ynl_ntf_info spray_ntf_info[] =  {
	[SPRAY_CMD_PATH_DOWN] =  {
		.alloc_sz	= sizeof(struct spray_path_down),
		.cb		= spray_path_down_rsp_parse,
		.policy		= &spray_event_nest,
		.free		= (void *)spray_path_down_free,
	},
	[SPRAY_CMD_PATH_UP] =  {
		.alloc_sz	= sizeof(struct spray_path_up),
		.cb		= spray_path_up_rsp_parse,
		.policy		= &spray_event_nest,
		.free		= (void *)spray_path_up_free,
	},
	[SPRAY_CMD_PEER_UNREACHABLE] =  {
		.alloc_sz	= sizeof(struct spray_peer_unreachable),
		.cb		= spray_peer_unreachable_rsp_parse,
		.policy		= &spray_event_nest,
		.free		= (void *)spray_peer_unreachable_free,
	},
};

const struct ynl_family ynl_spray_family =  {
	.name		= "spray",
	.hdr_len	= sizeof(struct genlmsghdr),
	.ntf_info	= spray_ntf_info,
	.ntf_info_size	= YNL_ARRAY_SIZE(spray_ntf_info),
};

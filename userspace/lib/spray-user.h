/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/spray.yaml */
/* YNL-GEN user header */

#ifndef _LINUX_SPRAY_GEN_H
#define _LINUX_SPRAY_GEN_H

#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include <linux/spray_netlink.h>

struct ynl_sock;

extern const struct ynl_family ynl_spray_family;

/* Enums */
const char *spray_op_str(int op);
const char *spray_nl_cc_mode_str(enum spray_nl_cc_mode value);
const char *spray_nl_peer_state_str(enum spray_nl_peer_state value);
const char *spray_nl_path_state_str(enum spray_nl_path_state value);

/* Common nested types */
struct spray_drop {
	struct {
		__u32 reason_len;
		__u32 count:1;
	} _present;

	char *reason;
	__u64 count;
};

struct spray_address {
	struct {
		__u32 af:1;
		__u32 addr4_len;
		__u32 addr6_len;
		__u32 scope_id:1;
		__u32 port:1;
	} _present;

	__u16 af;
	void *addr4;
	void *addr6;
	__u32 scope_id;
	__u16 port;
};

/* ============== SPRAY_CMD_CONFIG_GET ============== */
/* SPRAY_CMD_CONFIG_GET - do */

struct spray_config_get_rsp {
	struct {
		__u32 udp_port:1;
		__u32 nr_evs:1;
		__u32 cc_mode:1;
		__u32 rto_min_us:1;
		__u32 rto_max_us:1;
		__u32 retry_limit:1;
		__u32 ack_every:1;
		__u32 ack_delay_us:1;
		__u32 max_msg:1;
		__u32 idle_timeout_ms:1;
		__u32 bdp_bytes:1;
	} _present;

	__u16 udp_port;
	__u32 nr_evs;
	enum spray_nl_cc_mode cc_mode;
	__u32 rto_min_us;
	__u32 rto_max_us;
	__u32 retry_limit;
	__u32 ack_every;
	__u32 ack_delay_us;
	__u32 max_msg;
	__u32 idle_timeout_ms;
	__u32 bdp_bytes;
};

void spray_config_get_rsp_free(struct spray_config_get_rsp *rsp);

/*
 * Get the namespace's settings. Open to every user.
 */
struct spray_config_get_rsp *spray_config_get(struct ynl_sock *ys);

/* ============== SPRAY_CMD_CONFIG_SET ============== */
/* SPRAY_CMD_CONFIG_SET - do */
struct spray_config_set_req {
	struct {
		__u32 udp_port:1;
		__u32 nr_evs:1;
		__u32 cc_mode:1;
		__u32 rto_min_us:1;
		__u32 rto_max_us:1;
		__u32 retry_limit:1;
		__u32 ack_every:1;
		__u32 ack_delay_us:1;
		__u32 max_msg:1;
		__u32 idle_timeout_ms:1;
		__u32 bdp_bytes:1;
	} _present;

	__u16 udp_port;
	__u32 nr_evs;
	enum spray_nl_cc_mode cc_mode;
	__u32 rto_min_us;
	__u32 rto_max_us;
	__u32 retry_limit;
	__u32 ack_every;
	__u32 ack_delay_us;
	__u32 max_msg;
	__u32 idle_timeout_ms;
	__u32 bdp_bytes;
};

static inline struct spray_config_set_req *spray_config_set_req_alloc(void)
{
	return calloc(1, sizeof(struct spray_config_set_req));
}
void spray_config_set_req_free(struct spray_config_set_req *req);

static inline void
spray_config_set_req_set_udp_port(struct spray_config_set_req *req,
				  __u16 udp_port)
{
	req->_present.udp_port = 1;
	req->udp_port = udp_port;
}
static inline void
spray_config_set_req_set_nr_evs(struct spray_config_set_req *req, __u32 nr_evs)
{
	req->_present.nr_evs = 1;
	req->nr_evs = nr_evs;
}
static inline void
spray_config_set_req_set_cc_mode(struct spray_config_set_req *req,
				 enum spray_nl_cc_mode cc_mode)
{
	req->_present.cc_mode = 1;
	req->cc_mode = cc_mode;
}
static inline void
spray_config_set_req_set_rto_min_us(struct spray_config_set_req *req,
				    __u32 rto_min_us)
{
	req->_present.rto_min_us = 1;
	req->rto_min_us = rto_min_us;
}
static inline void
spray_config_set_req_set_rto_max_us(struct spray_config_set_req *req,
				    __u32 rto_max_us)
{
	req->_present.rto_max_us = 1;
	req->rto_max_us = rto_max_us;
}
static inline void
spray_config_set_req_set_retry_limit(struct spray_config_set_req *req,
				     __u32 retry_limit)
{
	req->_present.retry_limit = 1;
	req->retry_limit = retry_limit;
}
static inline void
spray_config_set_req_set_ack_every(struct spray_config_set_req *req,
				   __u32 ack_every)
{
	req->_present.ack_every = 1;
	req->ack_every = ack_every;
}
static inline void
spray_config_set_req_set_ack_delay_us(struct spray_config_set_req *req,
				      __u32 ack_delay_us)
{
	req->_present.ack_delay_us = 1;
	req->ack_delay_us = ack_delay_us;
}
static inline void
spray_config_set_req_set_max_msg(struct spray_config_set_req *req,
				 __u32 max_msg)
{
	req->_present.max_msg = 1;
	req->max_msg = max_msg;
}
static inline void
spray_config_set_req_set_idle_timeout_ms(struct spray_config_set_req *req,
					 __u32 idle_timeout_ms)
{
	req->_present.idle_timeout_ms = 1;
	req->idle_timeout_ms = idle_timeout_ms;
}
static inline void
spray_config_set_req_set_bdp_bytes(struct spray_config_set_req *req,
				   __u32 bdp_bytes)
{
	req->_present.bdp_bytes = 1;
	req->bdp_bytes = bdp_bytes;
}

/*
 * Change some of the namespace's settings; attributes not given keep
their value. Needs CAP_NET_ADMIN in the user namespace owning the
network namespace (checked by the handler: the spec's admin-perm
would demand it in the initial user namespace), so a container
configures its own namespace. All or nothing: a rejected request
changes nothing.

 */
int spray_config_set(struct ynl_sock *ys, struct spray_config_set_req *req);

/* ============== SPRAY_CMD_STATS_GET ============== */
/* SPRAY_CMD_STATS_GET - do */

struct spray_stats_get_rsp {
	struct {
		__u32 tx_pkts:1;
		__u32 tx_bytes:1;
		__u32 retx_pkts:1;
		__u32 rx_pkts:1;
		__u32 rx_bytes:1;
		__u32 tx_msgs:1;
		__u32 rx_msgs:1;
		__u32 msg_failed:1;
		__u32 ack_tx:1;
		__u32 ack_rx:1;
		__u32 nack_tx:1;
		__u32 nack_rx:1;
		__u32 lost_pkts:1;
		__u32 rto:1;
		__u32 ecn_ce:1;
		__u32 ecn_echo:1;
		__u32 conn_open:1;
		__u32 conn_close:1;
		__u32 conn_reset:1;
		__u32 path_down:1;
		__u32 path_up:1;
		__u32 rcvbuf_full:1;
		__u32 no_socket:1;
		__u32 bound_sockets:1;
		__u32 lost_rack:1;
		__u32 lost_nack:1;
		__u32 lost_rto:1;
		__u32 spurious_loss:1;
		__u32 window_probes:1;
		__u32 rx_copied:1;
		__u32 tx_throttled:1;
		__u32 ack_carried:1;
		__u32 refused_resent:1;
		__u32 resume_tx:1;
		__u32 rx_turns:1;
		__u32 rx_turns_expired:1;
		__u32 closed_acks:1;
		__u32 timer_fires:1;
		__u32 answer_probes:1;
		__u32 tx_trains:1;
		__u32 rx_trains:1;
		__u32 icmp_errors:1;
		__u32 pmtu_blackholes:1;
	} _present;

	__u64 tx_pkts;
	__u64 tx_bytes;
	__u64 retx_pkts;
	__u64 rx_pkts;
	__u64 rx_bytes;
	__u64 tx_msgs;
	__u64 rx_msgs;
	__u64 msg_failed;
	__u64 ack_tx;
	__u64 ack_rx;
	__u64 nack_tx;
	__u64 nack_rx;
	__u64 lost_pkts;
	__u64 rto;
	__u64 ecn_ce;
	__u64 ecn_echo;
	__u64 conn_open;
	__u64 conn_close;
	__u64 conn_reset;
	__u64 path_down;
	__u64 path_up;
	__u64 rcvbuf_full;
	__u64 no_socket;
	unsigned int n_drop;
	struct spray_drop *drop;
	__u32 bound_sockets;
	__u64 lost_rack;
	__u64 lost_nack;
	__u64 lost_rto;
	__u64 spurious_loss;
	__u64 window_probes;
	__u64 rx_copied;
	__u64 tx_throttled;
	__u64 ack_carried;
	__u64 refused_resent;
	__u64 resume_tx;
	__u64 rx_turns;
	__u64 rx_turns_expired;
	__u64 closed_acks;
	__u64 timer_fires;
	__u64 answer_probes;
	__u64 tx_trains;
	__u64 rx_trains;
	__u64 icmp_errors;
	__u64 pmtu_blackholes;
};

void spray_stats_get_rsp_free(struct spray_stats_get_rsp *rsp);

/*
 * Get the namespace's counters. Open to every user.
 */
struct spray_stats_get_rsp *spray_stats_get(struct ynl_sock *ys);

/* ============== SPRAY_CMD_SOCKETS ============== */
/* SPRAY_CMD_SOCKETS - dump */
struct spray_sockets_rsp_dump {
	struct {
		__u32 local:1;
		__u32 rx_queue:1;
		__u32 tx_queue:1;
		__u32 inode:1;
		__u32 uid:1;
	} _present;

	struct spray_address local;
	__u32 rx_queue;
	__u32 tx_queue;
	__u64 inode;
	__u32 uid;
};

struct spray_sockets_rsp_list {
	struct spray_sockets_rsp_list *next;
	struct spray_sockets_rsp_dump obj __attribute__((aligned(8)));
};

void spray_sockets_rsp_list_free(struct spray_sockets_rsp_list *rsp);

struct spray_sockets_rsp_list *spray_sockets_dump(struct ynl_sock *ys);

/* ============== SPRAY_CMD_PEERS ============== */
/* SPRAY_CMD_PEERS - dump */
struct spray_peers_rsp_dump {
	struct {
		__u32 id:1;
		__u32 local:1;
		__u32 remote:1;
		__u32 local_cid:1;
		__u32 remote_cid:1;
		__u32 state:1;
		__u32 srtt_us:1;
		__u32 min_rtt_us:1;
		__u32 rto_us:1;
		__u32 cwnd:1;
		__u32 grant_outstanding:1;
		__u32 in_flight:1;
		__u32 tx_pkts:1;
		__u32 retx_pkts:1;
		__u32 rx_pkts:1;
		__u32 ecn_marked:1;
		__u32 bdp:1;
		__u32 rcv_bdp:1;
		__u32 pkt_payload:1;
	} _present;

	__u32 id;
	struct spray_address local;
	struct spray_address remote;
	__u32 local_cid;
	__u32 remote_cid;
	enum spray_nl_peer_state state;
	__u32 srtt_us;
	__u32 min_rtt_us;
	__u32 rto_us;
	__u32 cwnd;
	__u32 grant_outstanding;
	__u32 in_flight;
	__u64 tx_pkts;
	__u64 retx_pkts;
	__u64 rx_pkts;
	__u32 ecn_marked;
	__u32 bdp;
	__u32 rcv_bdp;
	__u32 pkt_payload;
};

struct spray_peers_rsp_list {
	struct spray_peers_rsp_list *next;
	struct spray_peers_rsp_dump obj __attribute__((aligned(8)));
};

void spray_peers_rsp_list_free(struct spray_peers_rsp_list *rsp);

struct spray_peers_rsp_list *spray_peers_dump(struct ynl_sock *ys);

/* ============== SPRAY_CMD_PATHS ============== */
/* SPRAY_CMD_PATHS - dump */
struct spray_paths_rsp_dump {
	struct {
		__u32 peer_id:1;
		__u32 ev:1;
		__u32 state:1;
		__u32 tx_pkts:1;
		__u32 acked_pkts:1;
		__u32 lost_pkts:1;
		__u32 ecn_pkts:1;
		__u32 retx_pkts:1;
	} _present;

	__u32 peer_id;
	__u16 ev;
	enum spray_nl_path_state state;
	__u64 tx_pkts;
	__u64 acked_pkts;
	__u64 lost_pkts;
	__u64 ecn_pkts;
	__u64 retx_pkts;
};

struct spray_paths_rsp_list {
	struct spray_paths_rsp_list *next;
	struct spray_paths_rsp_dump obj __attribute__((aligned(8)));
};

void spray_paths_rsp_list_free(struct spray_paths_rsp_list *rsp);

struct spray_paths_rsp_list *spray_paths_dump(struct ynl_sock *ys);

/* SPRAY_CMD_PATH_DOWN - event */
struct spray_path_down_rsp {
	struct {
		__u32 local:1;
		__u32 remote:1;
		__u32 ev:1;
	} _present;

	struct spray_address local;
	struct spray_address remote;
	__u16 ev;
};

struct spray_path_down {
	__u16 family;
	__u8 cmd;
	struct ynl_ntf_base_type *next;
	void (*free)(struct spray_path_down *ntf);
	struct spray_path_down_rsp obj __attribute__((aligned(8)));
};

void spray_path_down_free(struct spray_path_down *rsp);

/* SPRAY_CMD_PATH_UP - event */
struct spray_path_up_rsp {
	struct {
		__u32 local:1;
		__u32 remote:1;
		__u32 ev:1;
	} _present;

	struct spray_address local;
	struct spray_address remote;
	__u16 ev;
};

struct spray_path_up {
	__u16 family;
	__u8 cmd;
	struct ynl_ntf_base_type *next;
	void (*free)(struct spray_path_up *ntf);
	struct spray_path_up_rsp obj __attribute__((aligned(8)));
};

void spray_path_up_free(struct spray_path_up *rsp);

/* SPRAY_CMD_PEER_UNREACHABLE - event */
struct spray_peer_unreachable_rsp {
	struct {
		__u32 local:1;
		__u32 remote:1;
		__u32 error:1;
	} _present;

	struct spray_address local;
	struct spray_address remote;
	__u32 error;
};

struct spray_peer_unreachable {
	__u16 family;
	__u8 cmd;
	struct ynl_ntf_base_type *next;
	void (*free)(struct spray_peer_unreachable *ntf);
	struct spray_peer_unreachable_rsp obj __attribute__((aligned(8)));
};

void spray_peer_unreachable_free(struct spray_peer_unreachable *rsp);

#endif /* _LINUX_SPRAY_GEN_H */

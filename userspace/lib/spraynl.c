// SPDX-License-Identifier: GPL-2.0
/*
 * libspraynl: the hand-written part of the "spray" netlink client library
 * (spraynl.h). The rest is generated: spray-user.[ch].
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "spraynl.h"

int spraynl_netns_enter(const char *name)
{
	char path[4096];
	int fd, err = 0;

	if (strchr(name, '/')) {
		snprintf(path, sizeof(path), "%s", name);
	} else {
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET))
		err = -errno;
	close(fd);
	return err;
}

struct ynl_sock *spraynl_open(char *err, size_t errlen)
{
	struct ynl_error yerr = { 0 };
	struct ynl_sock *ys;

	ys = ynl_sock_create(&ynl_spray_family, &yerr);
	if (!ys) {
		if (err)
			snprintf(err, errlen, "%s", yerr.msg);
		/* no family: the controller answers ENOENT */
		errno = yerr.code && yerr.code < __YNL_ERRNO_END ?
			(int)yerr.code : EIO;
	}
	return ys;
}

/*
 * The generator's runtime keeps the request it sent (ys->nlh, its policy
 * ys->req_policy) and the datagram it received last (ys->rx_buf), which
 * holds the error. Both are the runtime's private fields: this library
 * ships the runtime it was written against (ynl/, copied by
 * scripts/ynl-gen.sh --check).
 */
static const struct nlmsghdr *last_error(struct ynl_sock *ys)
{
	size_t off = 0;

	while (off + sizeof(struct nlmsghdr) <= YNL_SOCKET_BUFFER_SIZE) {
		const struct nlmsghdr *nlh = (const void *)(ys->rx_buf + off);

		if (nlh->nlmsg_len < sizeof(*nlh) ||
		    off + nlh->nlmsg_len > YNL_SOCKET_BUFFER_SIZE ||
		    nlh->nlmsg_seq != ys->seq)
			return NULL;
		if (nlh->nlmsg_type == NLMSG_ERROR &&
		    nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr)))
			return nlh;
		off += NLMSG_ALIGN(nlh->nlmsg_len);
	}
	return NULL;
}

/* the name of the request's attribute at offset @off, or NULL */
static const char *attr_at(struct ynl_sock *ys, unsigned int off)
{
	const struct ynl_policy_nest *pol = ys->req_policy;
	const struct nlattr *a;

	if (!ys->nlh || !pol)
		return NULL;
	ynl_attr_for_each(a, ys->nlh, ys->family->hdr_len) {
		if ((const char *)a - (const char *)ys->nlh != (long)off)
			continue;
		if (ynl_attr_type(a) > pol->max_attr)
			return NULL;
		return pol->table[ynl_attr_type(a)].name;
	}
	return NULL;
}

int spraynl_strerror(struct ynl_sock *ys, char *buf, size_t len)
{
	const char *msg = NULL, *attr = NULL;
	const struct nlmsgerr *e;
	const struct nlmsghdr *nlh;
	uint64_t min = 0, max = 0;
	const struct nlattr *a, *p;
	int have = 0, n;
	unsigned int hlen;

	if (ys->err.code >= __YNL_ERRNO_END) {
		/* the library's own complaint (a malformed reply ...) */
		snprintf(buf, len, "%s", ys->err.msg);
		return 0;
	}
	nlh = last_error(ys);
	if (!nlh) {
		snprintf(buf, len, "%s", ys->err.msg[0] ? ys->err.msg :
			 strerror(ys->err.code));
		return ys->err.code;
	}
	e = NLMSG_DATA(nlh);
	hlen = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		hlen += e->msg.nlmsg_len - sizeof(e->msg);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		ynl_attr_for_each(a, nlh, hlen) {
			switch (ynl_attr_type(a)) {
			case NLMSGERR_ATTR_MSG:
				if (ynl_attr_data_len(a) &&
				    !((char *)ynl_attr_data(a))[ynl_attr_data_len(a) - 1])
					msg = ynl_attr_get_str(a);
				break;
			case NLMSGERR_ATTR_OFFS:
				if (ynl_attr_data_len(a) == sizeof(uint32_t))
					attr = attr_at(ys, ynl_attr_get_u32(a));
				break;
			case NLMSGERR_ATTR_POLICY:
				ynl_attr_for_each_nested(p, a) {
					if (ynl_attr_data_len(p) != sizeof(uint64_t))
						continue;
					if (ynl_attr_type(p) == NL_POLICY_TYPE_ATTR_MIN_VALUE_U) {
						min = ynl_attr_get_u64(p);
						have |= 1;
					} else if (ynl_attr_type(p) == NL_POLICY_TYPE_ATTR_MAX_VALUE_U) {
						max = ynl_attr_get_u64(p);
						have |= 2;
					}
				}
				break;
			}
		}
	}
	n = snprintf(buf, len, "%s", strerror(-e->error));
	if (msg && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, ": %s", msg);
	if (attr && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, " (attribute %s", attr);
	if (attr && have == 3 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - n, ", valid %llu..%llu",
			      (unsigned long long)min, (unsigned long long)max);
	if (attr && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ")");
	return -e->error;
}

/* One line per counter: attribute, field; names come from the spec. */
#define SPRAYNL_COUNTERS(X)						\
	X(TX_PKTS, tx_pkts) X(TX_BYTES, tx_bytes) X(RETX_PKTS, retx_pkts)	\
	X(RX_PKTS, rx_pkts) X(RX_BYTES, rx_bytes) X(TX_MSGS, tx_msgs)	\
	X(RX_MSGS, rx_msgs) X(MSG_FAILED, msg_failed) X(ACK_TX, ack_tx)	\
	X(ACK_RX, ack_rx) X(NACK_TX, nack_tx) X(NACK_RX, nack_rx)	\
	X(LOST_PKTS, lost_pkts) X(RTO, rto) X(ECN_CE, ecn_ce)		\
	X(ECN_ECHO, ecn_echo) X(CONN_OPEN, conn_open)			\
	X(CONN_CLOSE, conn_close) X(CONN_RESET, conn_reset)		\
	X(PATH_DOWN, path_down) X(PATH_UP, path_up)			\
	X(RCVBUF_FULL, rcvbuf_full) X(NO_SOCKET, no_socket)		\
	X(LOST_RACK, lost_rack) X(LOST_NACK, lost_nack)			\
	X(LOST_RTO, lost_rto) X(SPURIOUS_LOSS, spurious_loss)		\
	X(WINDOW_PROBES, window_probes) X(RX_COPIED, rx_copied)	\
	X(TX_THROTTLED, tx_throttled) X(ACK_CARRIED, ack_carried)	\
	X(REFUSED_RESENT, refused_resent) X(RESUME_TX, resume_tx)	\
	X(RX_TURNS, rx_turns) X(RX_TURNS_EXPIRED, rx_turns_expired)	\
	X(CLOSED_ACKS, closed_acks) X(TIMER_FIRES, timer_fires)	\
	X(ANSWER_PROBES, answer_probes) X(TX_TRAINS, tx_trains)	\
	X(RX_TRAINS, rx_trains) X(ICMP_ERRORS, icmp_errors)	\
	X(PMTU_BLACKHOLES, pmtu_blackholes)

#define ONE(A, f) + 1
_Static_assert(0 SPRAYNL_COUNTERS(ONE) == SPRAYNL_NR_COUNTERS,
	       "SPRAYNL_NR_COUNTERS is the length of SPRAYNL_COUNTERS");
#undef ONE

/* the generated policy table: attribute names as the spec spells them */
extern const struct ynl_policy_attr spray_stats_policy[SPRAY_A_STATS_MAX + 1];

int spraynl_stats_counters(const struct spray_stats_get_rsp *r,
			   struct spraynl_counter *out)
{
	int n = 0;

#define X(A, f)								\
	out[n].name = spray_stats_policy[SPRAY_A_STATS_##A].name;	\
	out[n].val = r->f;						\
	out[n].present = r->_present.f;					\
	n++;
	SPRAYNL_COUNTERS(X)
#undef X
	return n;
}

const char *spraynl_counter_name(int i)
{
	static const uint16_t attr[] = {
#define X(A, f) SPRAY_A_STATS_##A,
		SPRAYNL_COUNTERS(X)
#undef X
	};

	if (i < 0 || i >= SPRAYNL_NR_COUNTERS)
		return NULL;
	return spray_stats_policy[attr[i]].name;
}

const char *spraynl_addr_str(const struct spray_address *a, char *buf,
			     size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (a->_present.addr4_len == 4)
		inet_ntop(AF_INET, a->addr4, ip, sizeof(ip));
	else if (a->_present.addr6_len == 16)
		inet_ntop(AF_INET6, a->addr6, ip, sizeof(ip));
	else if (!a->_present.af) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (a->af == AF_INET6 && a->_present.scope_id && a->scope_id)
		snprintf(buf, len, "[%s%%%u]:%u", ip, a->scope_id, a->port);
	else if (a->af == AF_INET6)
		snprintf(buf, len, "[%s]:%u", ip, a->port);
	else
		snprintf(buf, len, "%s:%u", ip, a->port);
	return buf;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * sprayctl: configure and inspect AF_SPRAY through its generic netlink
 * family "spray" (Documentation/networking/spray-netlink.rst).
 *
 * Exit status: 0 success, 1 the kernel refused the request (its extack
 * message is printed) or a system call failed, 2 usage error, 3 the "spray"
 * family is not registered (module not loaded).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/socket.h>
#include <linux/spray_netlink.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NOFAMILY = 3 };
enum { FMT_TSV, FMT_PRETTY, FMT_JSON };

#define MAX_FIELDS 48

struct field {
	char key[32];
	char val[80];
	bool num;
};

struct obj {
	int n;
	struct field f[MAX_FIELDS];
};

static int fmt;
static bool wrong_width;	/* -T: send set values as u64 (testing) */
static struct mnl_socket *nl;
static uint16_t family_id;
static uint32_t events_grp;
static unsigned int seq;
static char req_buf[8192];

/* Rows of a dump, printed at its end (pretty output aligns columns). */
static struct obj *rows;
static int nrows;

static const char *const cc_names[] = { "off", "sender", "receiver", "both" };
static const char *const peer_states[] = { "idle", "active", "unreachable",
					   "closing" };
static const char *const path_states[] = { "up", "avoided", "down" };

static void add(struct obj *o, const char *key, bool num, const char *f, ...)
	__attribute__((format(printf, 4, 5)));

static void add(struct obj *o, const char *key, bool num, const char *f, ...)
{
	va_list ap;

	if (o->n >= MAX_FIELDS)
		return;
	snprintf(o->f[o->n].key, sizeof(o->f[o->n].key), "%s", key);
	va_start(ap, f);
	vsnprintf(o->f[o->n].val, sizeof(o->f[o->n].val), f, ap);
	va_end(ap);
	o->f[o->n].num = num;
	o->n++;
}

static void add_u64(struct obj *o, const char *key, uint64_t v)
{
	add(o, key, true, "%" PRIu64, v);
}

static void add_enum(struct obj *o, const char *key, uint32_t v,
		     const char *const *names, unsigned int n)
{
	if (v < n)
		add(o, key, false, "%s", names[v]);
	else
		add(o, key, true, "%u", v);
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_json_obj(const struct obj *o)
{
	int i;

	putchar('{');
	for (i = 0; i < o->n; i++) {
		printf("%s", i ? ", " : "");
		json_str(o->f[i].key);
		printf(": ");
		if (o->f[i].num)
			printf("%s", o->f[i].val);
		else
			json_str(o->f[i].val);
	}
	putchar('}');
}

/* One object: key/value lines (pretty: aligned), or a JSON object. */
static void print_obj(const struct obj *o)
{
	int i;

	if (fmt == FMT_JSON) {
		print_json_obj(o);
		putchar('\n');
		return;
	}
	for (i = 0; i < o->n; i++)
		if (fmt == FMT_PRETTY)
			printf("%-20s %s\n", o->f[i].key, o->f[i].val);
		else
			printf("%s\t%s\n", o->f[i].key, o->f[i].val);
}

/* A dump: a table (pretty: header and aligned columns), or a JSON array. */
static void print_rows(void)
{
	int w[MAX_FIELDS] = { 0 };
	int i, j;

	if (fmt == FMT_JSON) {
		putchar('[');
		for (i = 0; i < nrows; i++) {
			printf("%s", i ? ",\n " : "");
			print_json_obj(&rows[i]);
		}
		printf("]\n");
		return;
	}
	if (fmt == FMT_TSV) {
		for (i = 0; i < nrows; i++)
			for (j = 0; j < rows[i].n; j++)
				printf("%s%c", rows[i].f[j].val,
				       j == rows[i].n - 1 ? '\n' : '\t');
		return;
	}
	if (!nrows)
		return;
	for (i = 0; i < nrows; i++)
		for (j = 0; j < rows[i].n; j++) {
			int l = strlen(rows[i].f[j].val);

			if (l > w[j])
				w[j] = l;
			l = strlen(rows[0].f[j].key);
			if (l > w[j])
				w[j] = l;
		}
	for (j = 0; j < rows[0].n; j++)
		printf("%-*s%s", w[j], rows[0].f[j].key,
		       j == rows[0].n - 1 ? "\n" : "  ");
	for (i = 0; i < nrows; i++)
		for (j = 0; j < rows[i].n; j++)
			printf("%-*s%s", w[j], rows[i].f[j].val,
			       j == rows[i].n - 1 ? "\n" : "  ");
}

static struct obj *new_row(void)
{
	struct obj *r;

	r = realloc(rows, (nrows + 1) * sizeof(*rows));
	if (!r) {
		perror("sprayctl");
		exit(EXIT_REFUSED);
	}
	rows = r;
	memset(&rows[nrows], 0, sizeof(*rows));
	return &rows[nrows++];
}

/* ---- netlink plumbing ---- */

static struct nlmsghdr *msg_start(uint16_t type, uint16_t flags, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(req_buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = SPRAY_FAMILY_VERSION;
	return nlh;
}

/* The request being answered, and how to name its attributes. */
static const struct nlmsghdr *cur_req;
static const char *(*attr_namer)(uint16_t type);

static const char *attr_at(const struct nlmsghdr *req, uint32_t off)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr))
		if ((const char *)a - (const char *)req == (long)off)
			return attr_namer ? attr_namer(mnl_attr_get_type(a)) :
					    NULL;
	return NULL;
}

static int policy_cb(const struct nlattr *a, void *data)
{
	uint64_t *mm = data;

	switch (mnl_attr_get_type(a)) {
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
		mm[0] = mnl_attr_get_u64(a);
		mm[2] |= 1;
		break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
		mm[1] = mnl_attr_get_u64(a);
		mm[2] |= 2;
		break;
	}
	return MNL_CB_OK;
}

/* Print a kernel error with its extack message, offending attribute and
 * valid range when the kernel gave them.
 */
static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlmsghdr *req = cur_req;
	const char *msg = NULL, *attr = NULL;
	uint64_t mm[3] = { 0, 0, 0 };
	const struct nlattr *a;
	unsigned int off;

	if (!e->error)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(e->msg);
		mnl_attr_for_each(a, nlh, off) {
			switch (mnl_attr_get_type(a)) {
			case NLMSGERR_ATTR_MSG:
				msg = mnl_attr_get_str(a);
				break;
			case NLMSGERR_ATTR_OFFS:
				attr = attr_at(req, mnl_attr_get_u32(a));
				break;
			case NLMSGERR_ATTR_POLICY:
				mnl_attr_parse_nested(a, policy_cb, mm);
				break;
			}
		}
	}
	fprintf(stderr, "sprayctl: kernel refused: %s", strerror(-e->error));
	if (msg)
		fprintf(stderr, ": %s", msg);
	if (attr)
		fprintf(stderr, " (attribute %s", attr);
	if (attr && mm[2] == 3)
		fprintf(stderr, ", valid %" PRIu64 "..%" PRIu64, mm[0], mm[1]);
	if (attr)
		fprintf(stderr, ")");
	fprintf(stderr, "\n");
	errno = -e->error;
	return MNL_CB_ERROR;
}

static int done_cb(const struct nlmsghdr *nlh, void *data);

/* Send the request in req_buf and run @cb on every reply.
 * Return: 0, or an exit status after printing why.
 */
static int transact(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	static char buf[1 << 16];
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb,
		[NLMSG_DONE] = done_cb,
	};
	unsigned int portid = mnl_socket_get_portid(nl);
	int ret;

	cur_req = nlh;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		perror("sprayctl: send");
		return EXIT_REFUSED;
	}
	for (;;) {
		ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret < 0) {
			perror("sprayctl: receive");
			return EXIT_REFUSED;
		}
		ret = mnl_cb_run2(buf, ret, nlh->nlmsg_seq, portid, cb, data,
				  ctl, NLMSG_MIN_TYPE);
		if (ret == MNL_CB_ERROR)
			return EXIT_REFUSED;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

static int family_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr *grp, *ga;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_ID:
		family_id = mnl_attr_get_u16(a);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		mnl_attr_for_each_nested(grp, a) {
			const char *name = NULL;
			uint32_t id = 0;

			mnl_attr_for_each_nested(ga, grp) {
				if (mnl_attr_get_type(ga) == CTRL_ATTR_MCAST_GRP_NAME)
					name = mnl_attr_get_str(ga);
				else if (mnl_attr_get_type(ga) == CTRL_ATTR_MCAST_GRP_ID)
					id = mnl_attr_get_u32(ga);
			}
			if (name && !strcmp(name, SPRAY_MCGRP_EVENTS))
				events_grp = id;
		}
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb,
			      NULL);
}

static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_STOP;
}

static int quiet_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	errno = -e->error;
	return e->error ? MNL_CB_ERROR : MNL_CB_STOP;
}

/* Open the socket and resolve the family. Return: 0 or an exit status. */
static int nl_open(void)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = quiet_error_cb };
	static char buf[1 << 14];
	struct nlmsghdr *nlh;
	int one = 1, ret;

	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("sprayctl: netlink socket");
		return EXIT_REFUSED;
	}
	setsockopt(mnl_socket_get_fd(nl), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	setsockopt(mnl_socket_get_fd(nl), SOL_NETLINK, NETLINK_CAP_ACK, &one,
		   sizeof(one));

	nlh = msg_start(GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, SPRAY_FAMILY_NAME);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		perror("sprayctl: send");
		return EXIT_REFUSED;
	}
	do {
		ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret < 0)
			break;
		ret = mnl_cb_run2(buf, ret, nlh->nlmsg_seq,
				  mnl_socket_get_portid(nl), family_cb, NULL,
				  ctl, NLMSG_MIN_TYPE);
	} while (ret > 0);
	if (!family_id) {
		fprintf(stderr,
			"sprayctl: generic netlink family \"%s\" not found (is spray.ko loaded?)\n",
			SPRAY_FAMILY_NAME);
		return EXIT_NOFAMILY;
	}
	return 0;
}

/* ---- attribute names, for error messages ---- */

struct setting {
	const char *name;
	uint16_t attr;
	int bits;		/* 16 or 32 */
	const char *const *names;	/* enum value names, or NULL */
	unsigned int nnames;
};

static const struct setting settings[] = {
	{ "udp-port", SPRAY_A_CONFIG_UDP_PORT, 16 },
	{ "nr-evs", SPRAY_A_CONFIG_NR_EVS, 32 },
	{ "cc-mode", SPRAY_A_CONFIG_CC_MODE, 32, cc_names, 4 },
	{ "rto-min-us", SPRAY_A_CONFIG_RTO_MIN_US, 32 },
	{ "rto-max-us", SPRAY_A_CONFIG_RTO_MAX_US, 32 },
	{ "retry-limit", SPRAY_A_CONFIG_RETRY_LIMIT, 32 },
	{ "ack-every", SPRAY_A_CONFIG_ACK_EVERY, 32 },
	{ "ack-delay-us", SPRAY_A_CONFIG_ACK_DELAY_US, 32 },
	{ "max-msg", SPRAY_A_CONFIG_MAX_MSG, 32 },
	{ "idle-timeout-ms", SPRAY_A_CONFIG_IDLE_TIMEOUT_MS, 32 },
	{ "bdp-bytes", SPRAY_A_CONFIG_BDP_BYTES, 32 },
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

static const char *config_attr_name(uint16_t type)
{
	unsigned int i;

	for (i = 0; i < NSETTINGS; i++)
		if (settings[i].attr == type)
			return settings[i].name;
	return NULL;
}

/* ---- replies ---- */

static void fmt_addr(const struct nlattr *nest, char *out, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	const struct nlattr *a;
	uint32_t scope = 0;
	uint16_t port = 0;
	int af = 0;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case SPRAY_A_ADDRESS_AF:
			af = mnl_attr_get_u16(a);
			break;
		case SPRAY_A_ADDRESS_ADDR4:
			inet_ntop(AF_INET, mnl_attr_get_payload(a), ip,
				  sizeof(ip));
			break;
		case SPRAY_A_ADDRESS_ADDR6:
			inet_ntop(AF_INET6, mnl_attr_get_payload(a), ip,
				  sizeof(ip));
			break;
		case SPRAY_A_ADDRESS_SCOPE_ID:
			scope = mnl_attr_get_u32(a);
			break;
		case SPRAY_A_ADDRESS_PORT:
			port = mnl_attr_get_u16(a);
			break;
		}
	}
	if (af == AF_INET6 && scope)
		snprintf(out, len, "[%s%%%u]:%u", ip, scope, port);
	else if (af == AF_INET6)
		snprintf(out, len, "[%s]:%u", ip, port);
	else
		snprintf(out, len, "%s:%u", ip, port);
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	struct obj *o = data;
	const struct nlattr *a;
	const char *name;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		uint16_t t = mnl_attr_get_type(a);

		name = config_attr_name(t);
		if (!name)
			continue;
		if (t == SPRAY_A_CONFIG_UDP_PORT)
			add_u64(o, name, mnl_attr_get_u16(a));
		else if (t == SPRAY_A_CONFIG_CC_MODE)
			add_enum(o, name, mnl_attr_get_u32(a), cc_names, 4);
		else
			add_u64(o, name, mnl_attr_get_u32(a));
	}
	return MNL_CB_OK;
}

static const char *const stats_names[] = {
	[SPRAY_A_STATS_TX_PKTS] = "tx-pkts",
	[SPRAY_A_STATS_TX_BYTES] = "tx-bytes",
	[SPRAY_A_STATS_RETX_PKTS] = "retx-pkts",
	[SPRAY_A_STATS_RX_PKTS] = "rx-pkts",
	[SPRAY_A_STATS_RX_BYTES] = "rx-bytes",
	[SPRAY_A_STATS_TX_MSGS] = "tx-msgs",
	[SPRAY_A_STATS_RX_MSGS] = "rx-msgs",
	[SPRAY_A_STATS_MSG_FAILED] = "msg-failed",
	[SPRAY_A_STATS_ACK_TX] = "ack-tx",
	[SPRAY_A_STATS_ACK_RX] = "ack-rx",
	[SPRAY_A_STATS_NACK_TX] = "nack-tx",
	[SPRAY_A_STATS_NACK_RX] = "nack-rx",
	[SPRAY_A_STATS_LOST_PKTS] = "lost-pkts",
	[SPRAY_A_STATS_RTO] = "rto",
	[SPRAY_A_STATS_ECN_CE] = "ecn-ce",
	[SPRAY_A_STATS_ECN_ECHO] = "ecn-echo",
	[SPRAY_A_STATS_CONN_OPEN] = "conn-open",
	[SPRAY_A_STATS_CONN_CLOSE] = "conn-close",
	[SPRAY_A_STATS_CONN_RESET] = "conn-reset",
	[SPRAY_A_STATS_PATH_DOWN] = "path-down",
	[SPRAY_A_STATS_PATH_UP] = "path-up",
	[SPRAY_A_STATS_RCVBUF_FULL] = "rcvbuf-full",
	[SPRAY_A_STATS_NO_SOCKET] = "no-socket",
	[SPRAY_A_STATS_BOUND_SOCKETS] = "bound-sockets",
	[SPRAY_A_STATS_LOST_RACK] = "lost-rack",
	[SPRAY_A_STATS_LOST_NACK] = "lost-nack",
	[SPRAY_A_STATS_LOST_RTO] = "lost-rto",
	[SPRAY_A_STATS_SPURIOUS_LOSS] = "spurious-loss",
	[SPRAY_A_STATS_WINDOW_PROBES] = "window-probes",
};

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct obj *o = data;
	const struct nlattr *a, *d;
	uint16_t t;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		t = mnl_attr_get_type(a);
		if (t == SPRAY_A_STATS_DROP) {
			const char *reason = "?";
			uint64_t count = 0;
			char key[32];

			mnl_attr_for_each_nested(d, a) {
				if (mnl_attr_get_type(d) == SPRAY_A_DROP_REASON)
					reason = mnl_attr_get_str(d);
				else if (mnl_attr_get_type(d) == SPRAY_A_DROP_COUNT)
					count = mnl_attr_get_u64(d);
			}
			snprintf(key, sizeof(key), "drop-%s", reason);
			add_u64(o, key, count);
		} else if (t == SPRAY_A_STATS_BOUND_SOCKETS) {
			add_u64(o, stats_names[t], mnl_attr_get_u32(a));
		} else if (t < sizeof(stats_names) / sizeof(stats_names[0]) &&
			   stats_names[t]) {
			add_u64(o, stats_names[t], mnl_attr_get_u64(a));
		}
	}
	return MNL_CB_OK;
}

static int sockets_cb(const struct nlmsghdr *nlh, void *data)
{
	struct obj *o = new_row();
	const struct nlattr *a;
	char addr[96] = "-";
	uint64_t v[5] = { 0 };

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case SPRAY_A_SOCKET_LOCAL:
			fmt_addr(a, addr, sizeof(addr));
			break;
		case SPRAY_A_SOCKET_RX_QUEUE:
			v[0] = mnl_attr_get_u32(a);
			break;
		case SPRAY_A_SOCKET_TX_QUEUE:
			v[1] = mnl_attr_get_u32(a);
			break;
		case SPRAY_A_SOCKET_INODE:
			v[2] = mnl_attr_get_u64(a);
			break;
		case SPRAY_A_SOCKET_UID:
			v[3] = mnl_attr_get_u32(a);
			break;
		}
	}
	add(o, "local", false, "%s", addr);
	add_u64(o, "rx-queue", v[0]);
	add_u64(o, "tx-queue", v[1]);
	add_u64(o, "uid", v[3]);
	add_u64(o, "inode", v[2]);
	return MNL_CB_OK;
}

static int peers_cb(const struct nlmsghdr *nlh, void *data)
{
	static const char *const names[] = {
		[SPRAY_A_PEER_ID] = "id",
		[SPRAY_A_PEER_LOCAL_CID] = "local-cid",
		[SPRAY_A_PEER_REMOTE_CID] = "remote-cid",
		[SPRAY_A_PEER_SRTT_US] = "srtt-us",
		[SPRAY_A_PEER_MIN_RTT_US] = "min-rtt-us",
		[SPRAY_A_PEER_RTO_US] = "rto-us",
		[SPRAY_A_PEER_CWND] = "cwnd",
		[SPRAY_A_PEER_GRANT_OUTSTANDING] = "grant-outstanding",
		[SPRAY_A_PEER_IN_FLIGHT] = "in-flight",
		[SPRAY_A_PEER_ECN_MARKED] = "ecn-marked-ppm",
		[SPRAY_A_PEER_TX_PKTS] = "tx-pkts",
		[SPRAY_A_PEER_RETX_PKTS] = "retx-pkts",
		[SPRAY_A_PEER_RX_PKTS] = "rx-pkts",
	};
	struct obj *o = new_row();
	const struct nlattr *a;
	char addr[96];
	uint16_t t;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		t = mnl_attr_get_type(a);
		if (t == SPRAY_A_PEER_LOCAL || t == SPRAY_A_PEER_REMOTE) {
			fmt_addr(a, addr, sizeof(addr));
			add(o, t == SPRAY_A_PEER_LOCAL ? "local" : "remote",
			    false, "%s", addr);
		} else if (t == SPRAY_A_PEER_STATE) {
			add_enum(o, "state", mnl_attr_get_u32(a), peer_states,
				 4);
		} else if (t < sizeof(names) / sizeof(names[0]) && names[t]) {
			add_u64(o, names[t], mnl_attr_get_payload_len(a) == 8 ?
				mnl_attr_get_u64(a) : mnl_attr_get_u32(a));
		}
	}
	return MNL_CB_OK;
}

static int paths_cb(const struct nlmsghdr *nlh, void *data)
{
	static const char *const names[] = {
		[SPRAY_A_PATH_PEER_ID] = "peer-id",
		[SPRAY_A_PATH_TX_PKTS] = "tx-pkts",
		[SPRAY_A_PATH_ACKED_PKTS] = "acked-pkts",
		[SPRAY_A_PATH_LOST_PKTS] = "lost-pkts",
		[SPRAY_A_PATH_ECN_PKTS] = "ecn-pkts",
		[SPRAY_A_PATH_RETX_PKTS] = "retx-pkts",
	};
	struct obj *o = new_row();
	const struct nlattr *a;
	uint16_t t;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		t = mnl_attr_get_type(a);
		if (t == SPRAY_A_PATH_EV)
			add_u64(o, "ev", mnl_attr_get_u16(a));
		else if (t == SPRAY_A_PATH_STATE)
			add_enum(o, "state", mnl_attr_get_u32(a), path_states,
				 3);
		else if (t < sizeof(names) / sizeof(names[0]) && names[t])
			add_u64(o, names[t], mnl_attr_get_payload_len(a) == 8 ?
				mnl_attr_get_u64(a) : mnl_attr_get_u32(a));
	}
	return MNL_CB_OK;
}

/* ---- subcommands ---- */

static int do_get(uint8_t cmd, mnl_cb_t cb)
{
	struct nlmsghdr *nlh = msg_start(family_id, NLM_F_ACK, cmd);
	struct obj o = { 0 };
	int ret;

	ret = transact(nlh, cb, &o);
	if (!ret)
		print_obj(&o);
	return ret;
}

static int do_dump(uint8_t cmd, mnl_cb_t cb)
{
	struct nlmsghdr *nlh = msg_start(family_id, NLM_F_DUMP, cmd);
	int ret;

	ret = transact(nlh, cb, NULL);
	if (!ret)
		print_rows();
	return ret;
}

static int cmd_show(int argc, char **argv)
{
	return argc ? EXIT_USAGE : do_get(SPRAY_CMD_CONFIG_GET, config_cb);
}

static int cmd_stats(int argc, char **argv)
{
	return argc ? EXIT_USAGE : do_get(SPRAY_CMD_STATS_GET, stats_cb);
}

static int cmd_sockets(int argc, char **argv)
{
	return argc ? EXIT_USAGE : do_dump(SPRAY_CMD_SOCKETS, sockets_cb);
}

static int cmd_peers(int argc, char **argv)
{
	return argc ? EXIT_USAGE : do_dump(SPRAY_CMD_PEERS, peers_cb);
}

static int cmd_paths(int argc, char **argv)
{
	return argc ? EXIT_USAGE : do_dump(SPRAY_CMD_PATHS, paths_cb);
}

static int parse_value(const struct setting *s, const char *str, uint32_t *v)
{
	unsigned long long n;
	unsigned int i;
	char *end;

	for (i = 0; i < s->nnames; i++)
		if (!strcmp(str, s->names[i])) {
			*v = i;
			return 0;
		}
	errno = 0;
	n = strtoull(str, &end, 0);
	if (errno || end == str || *end || str[0] == '-' ||
	    n > (s->bits == 16 ? 0xffffULL : 0xffffffffULL)) {
		fprintf(stderr, "sprayctl: %s: bad value \"%s\"\n", s->name,
			str);
		return -1;
	}
	*v = n;
	return 0;
}

static int cmd_set(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	unsigned int i;
	uint32_t v;
	int ret;

	if (argc % 2) {
		fprintf(stderr, "sprayctl: set: KEY without VALUE\n");
		return EXIT_USAGE;
	}
	nlh = msg_start(family_id, NLM_F_ACK, SPRAY_CMD_CONFIG_SET);
	for (; argc; argc -= 2, argv += 2) {
		for (i = 0; i < NSETTINGS; i++)
			if (!strcmp(argv[0], settings[i].name))
				break;
		if (i == NSETTINGS) {
			fprintf(stderr, "sprayctl: set: unknown setting \"%s\"\n",
				argv[0]);
			return EXIT_USAGE;
		}
		if (parse_value(&settings[i], argv[1], &v))
			return EXIT_USAGE;
		if (wrong_width)
			mnl_attr_put_u64(nlh, settings[i].attr, v);
		else if (settings[i].bits == 16)
			mnl_attr_put_u16(nlh, settings[i].attr, v);
		else
			mnl_attr_put_u32(nlh, settings[i].attr, v);
	}
	attr_namer = config_attr_name;
	ret = transact(nlh, NULL, NULL);
	attr_namer = NULL;
	return ret;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct obj o = { 0 };
	const struct nlattr *a;
	char addr[96];
	uint16_t t;

	switch (g->cmd) {
	case SPRAY_CMD_PATH_DOWN:
		add(&o, "event", false, "path-down");
		break;
	case SPRAY_CMD_PATH_UP:
		add(&o, "event", false, "path-up");
		break;
	case SPRAY_CMD_PEER_UNREACHABLE:
		add(&o, "event", false, "peer-unreachable");
		break;
	default:
		add(&o, "event", true, "%u", g->cmd);
	}
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		t = mnl_attr_get_type(a);
		if (t == SPRAY_A_EVENT_LOCAL || t == SPRAY_A_EVENT_REMOTE) {
			fmt_addr(a, addr, sizeof(addr));
			add(&o, t == SPRAY_A_EVENT_LOCAL ? "local" : "remote",
			    false, "%s", addr);
		} else if (t == SPRAY_A_EVENT_EV) {
			add_u64(&o, "ev", mnl_attr_get_u16(a));
		} else if (t == SPRAY_A_EVENT_ERROR) {
			add(&o, "error", false, "%s",
			    strerror(mnl_attr_get_u32(a)));
		}
	}
	if (fmt == FMT_JSON) {
		print_json_obj(&o);
		putchar('\n');
	} else {
		int i;

		for (i = 0; i < o.n; i++)
			printf("%s%s%s%s", i ? (fmt == FMT_TSV ? "\t" : " ") : "",
			       i ? o.f[i].key : "", i ? "=" : "", o.f[i].val);
		putchar('\n');
	}
	fflush(stdout);
	return MNL_CB_OK;
}

static int cmd_monitor(int argc, char **argv)
{
	static char buf[1 << 16];
	struct sigaction sa;
	long count = -1;
	int ret;

	if (argc > 1)
		return EXIT_USAGE;
	if (argc)
		count = strtol(argv[0], NULL, 10);
	if (!events_grp ||
	    mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &events_grp,
				  sizeof(events_grp)) < 0) {
		perror("sprayctl: join the events group");
		return EXIT_REFUSED;
	}
	/* No SA_RESTART: a signal ends the blocking receive. */
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (fmt == FMT_PRETTY) {
		printf("listening for AF_SPRAY events (^C to stop)\n");
		fflush(stdout);
	}
	while (!stop && count) {
		ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			perror("sprayctl: receive");
			return EXIT_REFUSED;
		}
		mnl_cb_run(buf, ret, 0, 0, event_cb, NULL);
		if (count > 0)
			count--;
	}
	return 0;
}

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *help;
};

static const struct subcommand subcommands[] = {
	{ "show", cmd_show, "", "show the namespace's settings" },
	{ "set", cmd_set, "KEY VALUE...", "change settings (CAP_NET_ADMIN)" },
	{ "stats", cmd_stats, "", "show the namespace's counters" },
	{ "sockets", cmd_sockets, "", "list bound AF_SPRAY sockets" },
	{ "peers", cmd_peers, "", "list peers (connections)" },
	{ "paths", cmd_paths, "", "list paths (entropy values) of every peer" },
	{ "monitor", cmd_monitor, "[COUNT]", "print path and peer events" },
};

#define NSUB (sizeof(subcommands) / sizeof(subcommands[0]))

static int usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: sprayctl [-j] [-p] [-t] SUBCOMMAND [ARGS]\n"
		"  -j  JSON output   -p  pretty output   -t  tab-separated output\n"
		"      (default: pretty on a terminal, else tab-separated)\n"
		"subcommands:\n");
	for (i = 0; i < NSUB; i++)
		fprintf(f, "  %-8s %-14s %s\n", subcommands[i].name,
			subcommands[i].args, subcommands[i].help);
	fprintf(f, "settings:");
	for (i = 0; i < NSETTINGS; i++)
		fprintf(f, " %s", settings[i].name);
	fprintf(f, "\ncc-mode values: off sender receiver both\n");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct subcommand *sc = NULL;
	unsigned int i;
	int opt, ret;

	fmt = isatty(STDOUT_FILENO) ? FMT_PRETTY : FMT_TSV;
	while ((opt = getopt(argc, argv, "+jptTh")) != -1) {
		switch (opt) {
		case 'j':
			fmt = FMT_JSON;
			break;
		case 'p':
			fmt = FMT_PRETTY;
			break;
		case 't':
			fmt = FMT_TSV;
			break;
		case 'T':
			wrong_width = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return usage(stderr);
		}
	}
	if (optind >= argc)
		return usage(stderr);
	for (i = 0; i < NSUB; i++)
		if (!strcmp(argv[optind], subcommands[i].name))
			sc = &subcommands[i];
	if (!sc) {
		fprintf(stderr, "sprayctl: unknown subcommand \"%s\"\n",
			argv[optind]);
		return usage(stderr);
	}
	ret = nl_open();
	if (ret)
		return ret;
	ret = sc->fn(argc - optind - 1, argv + optind + 1);
	if (ret == EXIT_USAGE)
		fprintf(stderr, "usage: sprayctl %s %s\n", sc->name, sc->args);
	mnl_socket_close(nl);
	free(rows);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: AF_SPRAY counters over generic netlink (libnl-genl-3). One
 * sample is the 'spray' family's stats-get (namespace counters) and its
 * paths dump (packets per entropy value of every peer), both of the network
 * namespace the caller is in. See Documentation/netlink/specs/spray.yaml.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include "spraycoll.h"
#include "counters.h"
#include "uapi/linux/spray_netlink.h"

static const struct {
	int attr;
	const char *name;
} stat_names[] = {
	{ SPRAY_A_STATS_TX_PKTS, "tx-pkts" },
	{ SPRAY_A_STATS_TX_BYTES, "tx-bytes" },
	{ SPRAY_A_STATS_RETX_PKTS, "retx-pkts" },
	{ SPRAY_A_STATS_RX_PKTS, "rx-pkts" },
	{ SPRAY_A_STATS_RX_BYTES, "rx-bytes" },
	{ SPRAY_A_STATS_TX_MSGS, "tx-msgs" },
	{ SPRAY_A_STATS_RX_MSGS, "rx-msgs" },
	{ SPRAY_A_STATS_MSG_FAILED, "msg-failed" },
	{ SPRAY_A_STATS_ACK_TX, "ack-tx" },
	{ SPRAY_A_STATS_ACK_RX, "ack-rx" },
	{ SPRAY_A_STATS_NACK_TX, "nack-tx" },
	{ SPRAY_A_STATS_NACK_RX, "nack-rx" },
	{ SPRAY_A_STATS_LOST_PKTS, "lost-pkts" },
	{ SPRAY_A_STATS_RTO, "rto" },
	{ SPRAY_A_STATS_ECN_CE, "ecn-ce" },
	{ SPRAY_A_STATS_ECN_ECHO, "ecn-echo" },
	{ SPRAY_A_STATS_CONN_OPEN, "conn-open" },
	{ SPRAY_A_STATS_CONN_CLOSE, "conn-close" },
	{ SPRAY_A_STATS_CONN_RESET, "conn-reset" },
	{ SPRAY_A_STATS_PATH_DOWN, "path-down" },
	{ SPRAY_A_STATS_PATH_UP, "path-up" },
	{ SPRAY_A_STATS_RCVBUF_FULL, "rcvbuf-full" },
	{ SPRAY_A_STATS_NO_SOCKET, "no-socket" },
};
#define NSTATS (int)(sizeof(stat_names) / sizeof(stat_names[0]))

const char *counters_spray_name(int i);

const char *counters_spray_name(int i)
{
	return i >= 0 && i < NSTATS ? stat_names[i].name : NULL;
}

struct spray_cnt {
	struct nl_sock *sk;
	int family;
	struct counters_path *path;
	int npaths, cap;
	struct counters_sample *cur;
	int done, err;
};

static int on_stats(struct nl_msg *msg, void *arg)
{
	struct spray_cnt *c = arg;
	struct nlattr *tb[SPRAY_A_STATS_MAX + 1];
	int i;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, SPRAY_A_STATS_MAX, NULL))
		return NL_SKIP;
	for (i = 0; i < NSTATS; i++)
		c->cur->val[i] = tb[stat_names[i].attr] ?
				 nla_get_u64(tb[stat_names[i].attr]) : 0;
	c->done = 1;
	return NL_STOP;
}

static uint64_t u64_or_0(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static int on_path(struct nl_msg *msg, void *arg)
{
	struct spray_cnt *c = arg;
	struct nlattr *tb[SPRAY_A_PATH_MAX + 1];
	struct counters_path *p;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, SPRAY_A_PATH_MAX, NULL) ||
	    !tb[SPRAY_A_PATH_PEER_ID] || !tb[SPRAY_A_PATH_EV])
		return NL_SKIP;
	if (c->npaths == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->path = realloc(c->path, c->cap * sizeof(*c->path));
		if (!c->path)
			abort();
	}
	p = &c->path[c->npaths++];
	p->peer = nla_get_u32(tb[SPRAY_A_PATH_PEER_ID]);
	p->ev = nla_get_u16(tb[SPRAY_A_PATH_EV]);
	p->tx = u64_or_0(tb[SPRAY_A_PATH_TX_PKTS]);
	p->retx = u64_or_0(tb[SPRAY_A_PATH_RETX_PKTS]);
	p->lost = u64_or_0(tb[SPRAY_A_PATH_LOST_PKTS]);
	p->ecn = u64_or_0(tb[SPRAY_A_PATH_ECN_PKTS]);
	return NL_OK;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct spray_cnt *c = arg;

	(void)msg;
	c->done = 1;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct spray_cnt *c = arg;

	(void)nla;
	c->err = e->error ? e->error : -EIO;
	c->done = 1;
	return NL_STOP;
}

/* send one request, run @valid on every reply until done */
static int request(struct spray_cnt *c, int cmd, int flags,
		   nl_recvmsg_msg_cb_t valid)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb;
	int r;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, flags,
			 cmd, SPRAY_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, c);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, c);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, c);
	c->done = 0;
	c->err = 0;
	r = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	while (r >= 0 && !c->done)
		r = nl_recvmsgs(c->sk, cb);
	nl_cb_put(cb);
	if (r < 0)
		return -EIO;
	return c->err;
}

static void *spray_cnt_open(const char *arg)
{
	struct spray_cnt *c = xzalloc(sizeof(*c));

	(void)arg;
	c->sk = nl_socket_alloc();
	if (!c->sk || genl_connect(c->sk)) {
		sc_err("counters: cannot open a generic netlink socket");
		goto fail;
	}
	/* replies are awaited one request at a time, without acks */
	nl_socket_disable_auto_ack(c->sk);
	c->family = genl_ctrl_resolve(c->sk, SPRAY_FAMILY_NAME);
	if (c->family < 0) {
		sc_err("counters: no generic netlink family '%s' (is the "
		       "spray module loaded?): %s", SPRAY_FAMILY_NAME,
		       nl_geterror(c->family));
		goto fail;
	}
	return c;
fail:
	if (c->sk)
		nl_socket_free(c->sk);
	free(c);
	return NULL;
}

static int spray_cnt_sample(void *ctx, struct counters_sample *s)
{
	struct spray_cnt *c = ctx;
	int i, r;

	memset(s, 0, sizeof(*s));
	if (!c)
		return 0;
	for (i = 0; i < NSTATS; i++)
		s->name[i] = stat_names[i].name;
	c->cur = s;
	r = request(c, SPRAY_CMD_STATS_GET, 0, on_stats);
	if (r)
		return r;
	s->n = NSTATS;
	c->npaths = 0;
	r = request(c, SPRAY_CMD_PATHS, NLM_F_DUMP, on_path);
	if (r)
		return r;
	/* a copy: the caller keeps two samples */
	s->npaths = c->npaths;
	if (c->npaths) {
		s->path = malloc(c->npaths * sizeof(*s->path));
		if (!s->path)
			return -ENOMEM;
		memcpy(s->path, c->path, c->npaths * sizeof(*s->path));
	}
	return 0;
}

static void spray_cnt_close(void *ctx)
{
	struct spray_cnt *c = ctx;

	if (!c)
		return;
	nl_socket_free(c->sk);
	free(c->path);
	free(c);
}

const struct counters_src counters_spray = {
	.name = "spray",
	.open = spray_cnt_open,
	.sample = spray_cnt_sample,
	.close = spray_cnt_close,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * sprayctl stats, sockets, peers, paths: the namespace's counters and its
 * listings (stats-get and the three dumps), with filters on the listings:
 *
 *   sockets [local ADDR]
 *   peers   [id ID] [local ADDR] [remote ADDR] [state STATE]
 *   paths   [peer ID] [ev EV] [state STATE]
 *
 * ADDR is IP, IP:PORT, [IPv6]:PORT or :PORT. The kernel dumps everything;
 * the filters pick entries here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sprayctl.h"

/* ---- filter arguments */

struct addr_filter {
	bool set;
	int af;			/* 0: any address */
	unsigned char ip[16];
	int port;		/* -1: any port */
};

static int parse_addr(const char *obj, const char *s, struct addr_filter *f)
{
	char buf[INET6_ADDRSTRLEN + 16], *ip = buf, *port = NULL, *end;

	snprintf(buf, sizeof(buf), "%s", s);
	f->set = true;
	f->af = 0;
	f->port = -1;
	if (buf[0] == '[') {
		ip = buf + 1;
		end = strchr(ip, ']');
		if (!end || (end[1] && end[1] != ':'))
			goto bad;
		*end = 0;
		if (end[1] == ':')
			port = end + 2;
	} else if (strchr(buf, ':') == strrchr(buf, ':') && strchr(buf, ':')) {
		/* one colon: IPv4:PORT or :PORT */
		port = strchr(buf, ':');
		*port++ = 0;
	}
	if (port) {
		unsigned long p;

		errno = 0;
		p = strtoul(port, &end, 10);
		if (errno || end == port || *end || p > 65535)
			goto bad;
		f->port = p;
	}
	if (!*ip || !strcmp(ip, "*"))
		return 0;
	if (inet_pton(AF_INET, ip, f->ip) == 1)
		f->af = AF_INET;
	else if (inet_pton(AF_INET6, ip, f->ip) == 1)
		f->af = AF_INET6;
	else
		goto bad;
	return 0;
bad:
	return usage_err(obj, "bad address \"%s\" (IP, IP:PORT, [IPv6]:PORT or :PORT)",
			 s);
}

static bool addr_match(const struct addr_filter *f,
		       const struct spray_address *a)
{
	if (!f->set)
		return true;
	if (f->port >= 0 && (!a->_present.port || a->port != f->port))
		return false;
	if (f->af == AF_INET)
		return a->_present.addr4_len == 4 && !memcmp(a->addr4, f->ip, 4);
	if (f->af == AF_INET6)
		return a->_present.addr6_len == 16 &&
		       !memcmp(a->addr6, f->ip, 16);
	return true;
}

static int parse_u32(const char *obj, const char *what, const char *s,
		     uint32_t max, int64_t *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || n > max)
		return usage_err(obj, "%s: bad value \"%s\"", what, s);
	*v = n;
	return 0;
}

/* STATE: one of the names str() gives for 0, 1, ... (a prefix will do) */
static int parse_state(const char *obj, const char *s,
		       const char *(*str)(int), int64_t *v)
{
	const char *n;
	int i;

	for (i = 0; (n = str(i)); i++)
		if (matches(s, n)) {
			*v = i;
			return 0;
		}
	return usage_err(obj, "unknown state \"%s\"", s);
}

static const char *peer_state_str(int v)
{
	return spray_nl_peer_state_str(v);
}

static const char *path_state_str(int v)
{
	return spray_nl_path_state_str(v);
}

/* a list's first word may be the verb "show" (or "list") */
static void skip_verb(int *argc, char ***argv)
{
	if (*argc && (matches((*argv)[0], "show") ||
		      matches((*argv)[0], "list"))) {
		(*argc)--;
		(*argv)++;
	}
}

static void rec_enum(struct rec *o, const char *key, const char *name,
		     uint32_t v)
{
	if (name)
		rec_str(o, key, "%s", name);
	else
		rec_str(o, key, "%u", v);
}

/* ---- stats */

int cmd_stats(int argc, char **argv)
{
	struct spraynl_counter c[SPRAYNL_NR_COUNTERS];
	struct spray_stats_get_rsp *r;
	struct rec o = { 0 };
	char key[48];
	unsigned int i;
	int n, ret;

	skip_verb(&argc, &argv);
	if (argc)
		return usage_err("stats", "unknown argument \"%s\"", argv[0]);
	ret = nl_open();
	if (ret)
		return ret;
	r = spray_stats_get(ys);
	if (!r)
		return nl_failed("stats-get");
	n = spraynl_stats_counters(r, c);
	for (i = 0; i < (unsigned int)n; i++)
		if (c[i].present)
			rec_u64(&o, c[i].name, c[i].val);
	for (i = 0; i < r->n_drop; i++) {
		snprintf(key, sizeof(key), "drop-%s",
			 r->drop[i].reason ? r->drop[i].reason : "?");
		rec_u64(&o, key, r->drop[i].count);
	}
	if (r->_present.bound_sockets)
		rec_u64(&o, "bound-sockets", r->bound_sockets);
	spray_stats_get_rsp_free(r);
	print_kv(&o);
	rec_free(&o);
	return 0;
}

/* ---- sockets */

static const struct col socket_cols[] = {
	{ "local", false }, { "rx-queue", true }, { "tx-queue", true },
	{ "uid", true }, { "inode", true },
};

int cmd_sockets(int argc, char **argv)
{
	struct spray_sockets_rsp_list *l;
	struct addr_filter local = { 0 };
	char a[SPRAYNL_ADDRSTRLEN];
	struct rows rs = { 0 };
	int ret;

	skip_verb(&argc, &argv);
	for (; argc; argc -= 2, argv += 2) {
		if (argc < 2)
			return usage_err("sockets", "%s needs a value", argv[0]);
		if (matches(argv[0], "local"))
			ret = parse_addr("sockets", argv[1], &local);
		else
			ret = usage_err("sockets", "unknown filter \"%s\"",
					argv[0]);
		if (ret)
			return ret;
	}
	ret = nl_open();
	if (ret)
		return ret;
	l = spray_sockets_dump(ys);
	if (!l)
		return nl_failed("sockets dump");
	ynl_dump_foreach(l, s) {
		struct rec *o;

		if (!addr_match(&local, &s->local))
			continue;
		o = rows_add(&rs);
		rec_str(o, "local", "%s",
			s->_present.local ? spraynl_addr_str(&s->local, a, sizeof(a)) : "-");
		rec_u64(o, "rx-queue", s->rx_queue);
		rec_u64(o, "tx-queue", s->tx_queue);
		rec_u64(o, "uid", s->uid);
		rec_u64(o, "inode", s->inode);
	}
	spray_sockets_rsp_list_free(l);
	print_table(socket_cols, sizeof(socket_cols) / sizeof(socket_cols[0]),
		    &rs);
	rows_free(&rs);
	return 0;
}

/* ---- peers */

static const struct col peer_cols[] = {
	{ "id", true }, { "local", false }, { "remote", false },
	{ "local-cid", true }, { "remote-cid", true }, { "state", false },
	{ "srtt-us", true }, { "min-rtt-us", true }, { "rto-us", true },
	{ "cwnd", true }, { "grant-outstanding", true }, { "in-flight", true },
	{ "tx-pkts", true }, { "retx-pkts", true }, { "rx-pkts", true },
	{ "ecn-marked-ppm", true }, { "bdp", true }, { "rcv-bdp", true },
	{ "pkt-payload", true },
};

int cmd_peers(int argc, char **argv)
{
	struct addr_filter local = { 0 }, remote = { 0 };
	int64_t id = -1, state = -1;
	struct spray_peers_rsp_list *l;
	char a[SPRAYNL_ADDRSTRLEN];
	struct rows rs = { 0 };
	int ret;

	skip_verb(&argc, &argv);
	for (; argc; argc -= 2, argv += 2) {
		if (argc < 2)
			return usage_err("peers", "%s needs a value", argv[0]);
		if (matches(argv[0], "id"))
			ret = parse_u32("peers", "id", argv[1], UINT32_MAX, &id);
		else if (matches(argv[0], "local"))
			ret = parse_addr("peers", argv[1], &local);
		else if (matches(argv[0], "remote"))
			ret = parse_addr("peers", argv[1], &remote);
		else if (matches(argv[0], "state"))
			ret = parse_state("peers", argv[1], peer_state_str,
					  &state);
		else
			ret = usage_err("peers", "unknown filter \"%s\"",
					argv[0]);
		if (ret)
			return ret;
	}
	ret = nl_open();
	if (ret)
		return ret;
	l = spray_peers_dump(ys);
	if (!l)
		return nl_failed("peers dump");
	ynl_dump_foreach(l, p) {
		struct rec *o;

		if ((id >= 0 && p->id != id) ||
		    (state >= 0 && p->state != state) ||
		    !addr_match(&local, &p->local) ||
		    !addr_match(&remote, &p->remote))
			continue;
		o = rows_add(&rs);
		rec_u64(o, "id", p->id);
		rec_str(o, "local", "%s", spraynl_addr_str(&p->local, a, sizeof(a)));
		rec_str(o, "remote", "%s", spraynl_addr_str(&p->remote, a, sizeof(a)));
		/* the kernel gives connection ids to CAP_NET_ADMIN only */
		if (p->_present.local_cid)
			rec_u64(o, "local-cid", p->local_cid);
		else
			rec_none(o, "local-cid");
		if (p->_present.remote_cid)
			rec_u64(o, "remote-cid", p->remote_cid);
		else
			rec_none(o, "remote-cid");
		rec_enum(o, "state", spray_nl_peer_state_str(p->state), p->state);
		rec_u64(o, "srtt-us", p->srtt_us);
		rec_u64(o, "min-rtt-us", p->min_rtt_us);
		rec_u64(o, "rto-us", p->rto_us);
		rec_u64(o, "cwnd", p->cwnd);
		rec_u64(o, "grant-outstanding", p->grant_outstanding);
		rec_u64(o, "in-flight", p->in_flight);
		rec_u64(o, "tx-pkts", p->tx_pkts);
		rec_u64(o, "retx-pkts", p->retx_pkts);
		rec_u64(o, "rx-pkts", p->rx_pkts);
		rec_u64(o, "ecn-marked-ppm", p->ecn_marked);
		rec_u64(o, "bdp", p->bdp);
		rec_u64(o, "rcv-bdp", p->rcv_bdp);
		rec_u64(o, "pkt-payload", p->pkt_payload);
	}
	spray_peers_rsp_list_free(l);
	print_table(peer_cols, sizeof(peer_cols) / sizeof(peer_cols[0]), &rs);
	rows_free(&rs);
	return 0;
}

/* ---- paths */

static const struct col path_cols[] = {
	{ "peer-id", true }, { "ev", true }, { "state", false },
	{ "tx-pkts", true }, { "acked-pkts", true }, { "lost-pkts", true },
	{ "ecn-pkts", true }, { "retx-pkts", true },
};

int cmd_paths(int argc, char **argv)
{
	int64_t peer = -1, ev = -1, state = -1;
	struct spray_paths_rsp_list *l;
	struct rows rs = { 0 };
	int ret;

	skip_verb(&argc, &argv);
	for (; argc; argc -= 2, argv += 2) {
		if (argc < 2)
			return usage_err("paths", "%s needs a value", argv[0]);
		if (matches(argv[0], "peer"))
			ret = parse_u32("paths", "peer", argv[1], UINT32_MAX,
					&peer);
		else if (matches(argv[0], "ev"))
			ret = parse_u32("paths", "ev", argv[1], 65535, &ev);
		else if (matches(argv[0], "state"))
			ret = parse_state("paths", argv[1], path_state_str,
					  &state);
		else
			ret = usage_err("paths", "unknown filter \"%s\"",
					argv[0]);
		if (ret)
			return ret;
	}
	ret = nl_open();
	if (ret)
		return ret;
	l = spray_paths_dump(ys);
	if (!l)
		return nl_failed("paths dump");
	ynl_dump_foreach(l, p) {
		struct rec *o;

		if ((peer >= 0 && p->peer_id != peer) ||
		    (ev >= 0 && p->ev != ev) ||
		    (state >= 0 && p->state != state))
			continue;
		o = rows_add(&rs);
		rec_u64(o, "peer-id", p->peer_id);
		rec_u64(o, "ev", p->ev);
		rec_enum(o, "state", spray_nl_path_state_str(p->state), p->state);
		rec_u64(o, "tx-pkts", p->tx_pkts);
		rec_u64(o, "acked-pkts", p->acked_pkts);
		rec_u64(o, "lost-pkts", p->lost_pkts);
		rec_u64(o, "ecn-pkts", p->ecn_pkts);
		rec_u64(o, "retx-pkts", p->retx_pkts);
	}
	spray_paths_rsp_list_free(l);
	print_table(path_cols, sizeof(path_cols) / sizeof(path_cols[0]), &rs);
	rows_free(&rs);
	return 0;
}

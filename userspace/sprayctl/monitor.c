// SPDX-License-Identifier: GPL-2.0
/*
 * sprayctl monitor [COUNT]: the events of the namespace (multicast group
 * "events": path-down, path-up, peer-unreachable), each with the time it
 * was received, until interrupted or COUNT events:
 *
 *   [2026-12-01T14:45:12.123456+01:00] path-down local 10.0.1.1:7000 remote 10.0.9.2:7000 ev 50001
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sprayctl.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void catch_signals(void)
{
	struct sigaction sa;

	/* no SA_RESTART: a signal ends the wait */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void rec_addrs(struct rec *o, const struct spray_address *local,
		      const struct spray_address *remote)
{
	char a[SPRAYNL_ADDRSTRLEN];

	rec_str(o, "local", "%s", spraynl_addr_str(local, a, sizeof(a)));
	rec_str(o, "remote", "%s", spraynl_addr_str(remote, a, sizeof(a)));
}

static void print_event(const struct ynl_ntf_base_type *ntf)
{
	struct rec o = { 0 };
	char ts[48];
	int i;

	timestamp(ts, sizeof(ts));
	rec_str(&o, "timestamp", "%s", ts);
	switch (ntf->cmd) {
	case SPRAY_CMD_PATH_DOWN:
	case SPRAY_CMD_PATH_UP: {
		/* the two events have the same attributes */
		const struct spray_path_down_rsp *e =
			&((const struct spray_path_down *)ntf)->obj;

		rec_str(&o, "event", "%s", spray_op_str(ntf->cmd));
		rec_addrs(&o, &e->local, &e->remote);
		rec_u64(&o, "ev", e->ev);
		break;
	}
	case SPRAY_CMD_PEER_UNREACHABLE: {
		const struct spray_peer_unreachable_rsp *e =
			&((const struct spray_peer_unreachable *)ntf)->obj;
		const char *name = strerrorname_np(e->error);

		rec_str(&o, "event", "%s", spray_op_str(ntf->cmd));
		rec_addrs(&o, &e->local, &e->remote);
		if (name)
			rec_str(&o, "error", "%s", name);
		else
			rec_str(&o, "error", "%u", e->error);
		break;
	}
	default:
		rec_str(&o, "event", "%u", ntf->cmd);
	}

	if (fmt == FMT_JSON) {
		jw_rec(NULL, &o);
		jw_done();
	} else if (fmt == FMT_TSV) {
		printf("%s\t%s", o.f[0].s, o.f[1].s);
		for (i = 2; i < o.n; i++)
			printf("\t%s=%s", o.f[i].key, o.f[i].s);
		putchar('\n');
	} else {
		printf("[%s] %s", o.f[0].s, o.f[1].s);
		for (i = 2; i < o.n; i++)
			printf(" %s %s", o.f[i].key, o.f[i].s);
		putchar('\n');
	}
	fflush(stdout);
	rec_free(&o);
}

int cmd_monitor(int argc, char **argv)
{
	struct ynl_ntf_base_type *ntf;
	long count = -1;
	char *end;
	int ret;

	if (argc && (matches(argv[0], "show") || matches(argv[0], "list"))) {
		argc--;
		argv++;
	}
	if (argc > 1)
		return usage_err("monitor", "unknown argument \"%s\"", argv[1]);
	if (argc) {
		count = strtol(argv[0], &end, 10);
		if (*end || end == argv[0] || count <= 0)
			return usage_err("monitor", "bad COUNT \"%s\"", argv[0]);
	}
	ret = nl_open();
	if (ret)
		return ret;
	if (ynl_subscribe(ys, SPRAY_MCGRP_EVENTS))
		return nl_failed("join the events group");
	catch_signals();
	while (!stop && count) {
		struct pollfd pfd = {
			.fd = ynl_socket_get_fd(ys), .events = POLLIN,
		};

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("sprayctl: poll");
			return EXIT_REFUSED;
		}
		if (ynl_ntf_check(ys) < 0) {
			if (errno == ENOBUFS) {
				/* the socket overran: say so, go on */
				fprintf(stderr, "sprayctl: events lost (receive buffer full)\n");
				continue;
			}
			/* an event this sprayctl does not know is no error */
			if (!ys->err.code || ys->err.code == YNL_ERROR_UNKNOWN_NTF)
				continue;
			return nl_failed("receive events");
		}
		while (count && (ntf = ynl_ntf_dequeue(ys))) {
			print_event(ntf);
			ynl_ntf_free(ntf);
			if (count > 0)
				count--;
		}
	}
	return 0;
}

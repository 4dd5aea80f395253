// SPDX-License-Identifier: GPL-2.0
/*
 * spraycoll: transport-independent part of the data plane: the vtable
 * choice, blocking send/recv wrappers around a group, stall reports.
 */
#include <stdio.h>
#include <string.h>

#include "spraycoll.h"

int transport_init(struct transport *t, const struct sc_opts *o, int rank,
		   int nranks)
{
	memset(t, 0, sizeof(*t));
	t->o = o;
	t->rank = rank;
	t->nranks = nranks;
	t->ctx = "setup";
	t->tx_bytes = xzalloc(nranks * sizeof(uint64_t));
	t->rx_bytes = xzalloc(nranks * sizeof(uint64_t));
	switch (o->tp) {
	case TP_TCP:
	case TP_MPTCP:
		t->ops = &tcp_ops;
		break;
	case TP_SPRAY:
	case TP_UNIX:
		t->ops = &spray_ops;
		break;
	}
	return 0;
}

void xfer_set(struct xfer *x, int peer, int send, uint32_t step, void *buf,
	      size_t len)
{
	memset(x, 0, sizeof(*x));
	x->peer = peer;
	x->send = send;
	x->step = step;
	x->buf = buf;
	x->len = len;
}

int tp_send(struct transport *t, int peer, uint32_t step, void *buf,
	    size_t len, double deadline)
{
	struct xfer x;

	xfer_set(&x, peer, 1, step, buf, len);
	return t->ops->run(t, &x, 1, deadline);
}

int tp_recv(struct transport *t, int peer, uint32_t step, void *buf,
	    size_t len, double deadline)
{
	struct xfer x;

	xfer_set(&x, peer, 0, step, buf, len);
	return t->ops->run(t, &x, 1, deadline);
}

/* Name every peer this rank is still waiting for. */
void report_stall(struct transport *t, struct xfer *x, int n, double timeout)
{
	char buf[768];
	int i, len = 0;

	for (i = 0; i < n && len < (int)sizeof(buf) - 80; i++) {
		if (x[i].complete)
			continue;
		len += snprintf(buf + len, sizeof(buf) - len,
				"%s%s rank %d (step %u, %zu of %zu bytes)",
				len ? "; " : "",
				x[i].send ? "sending to" : "receiving from",
				x[i].peer, x[i].step, x[i].done, x[i].len);
	}
	sc_err("timeout after %.3g s in %s: stalled peer(s): %s", timeout,
	       t->ctx, buf);
}

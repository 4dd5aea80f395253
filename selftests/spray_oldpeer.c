// SPDX-License-Identifier: GPL-2.0
/*
 * spray_oldpeer: a peer that speaks the AF_SPRAY wire from a UDP socket,
 * announcing the caps it is given: with -C 0, the stack of an earlier
 * release, which knows no ACK carried by DATA (SPRAY_F_ACK). The other
 * half of reliability_test's old_peer_gets_acks_alone.
 *
 *   spray_oldpeer [-6] -l LOCAL -d PEER [-u UDPPORT] -S SPORT -P DPORT
 *                 [-C CAPS] [-g GRANT] [-n COUNT] [-t TIMEOUT_S]
 *
 * Binds UDP port UDPPORT (default 4797, the receiver's AF_SPRAY port: the
 * local AF_SPRAY sockets must have moved off it) at LOCAL, then sends
 * COUNT one-packet requests of 64 bytes from spray port SPORT to PEER's
 * DPORT, one at a time, each once the answer to the one before came (an
 * AF_SPRAY socket there echoes them). Every DATA packet it receives is
 * acknowledged at once by an ACK packet; a request not acknowledged
 * within a second goes again. ACKs carried by DATA are taken only when
 * CAPS has SPRAY_CAP_DATA_ACK, as an older stack ignores them. With
 * -g, its ACKs grant the answers' first GRANT psns and never more, as a
 * receiver that stops giving credit: the peer's persist timer must then
 * bring every answer beyond (an earlier release has no SPRAY_CAP_WINDOW_
 * PROBE: one packet beyond the grant at a time). Prints
 *
 *   answers A carried C acks K acked R nacks N probes P
 *
 * (answers received, of which C carried an ACK; ACK packets received;
 * requests acknowledged; NACKs received; PROBE packets received, which
 * it answers as an earlier release did, with the probe's ACK alone) and
 * exits 0 when all COUNT answers came and every request was
 * acknowledged.
 *
 * Packets are built and parsed with the module's own code
 * (kernel/core/pkt.c), as spray_flood's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "pkt.h"

#define REQ_LEN		64

static struct {
	int	v6;
	const char *local, *peer;
	u16	udp_port, sport, dport, caps;
	u32	count, grant;
	double	timeout;
} opt = { .udp_port = 4797, .count = 100, .timeout = 60 };

static int fd;
static struct sockaddr_storage peer_sa;
static socklen_t peer_len;

/* our sending half (requests) and receiving half (answers) */
static struct {
	u32	cid, ack_cid;		/* ours: DATA src_cid, ACK src_cid */
	u32	peer_ack_cid;		/* the peer's ACK src_cid, once known */
	u32	peer_cid;		/* the peer's DATA src_cid */
	u32	acked;			/* requests acknowledged: cum - cid */
	u32	rx_cum;			/* next answer psn expected */
	u32	rx_first;		/* the first answer's psn */
	int	rx_started;
	u32	answers, carried, acks, nacks, probes;
} st;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static double now_s(void)
{
	return (double)now_ns() / 1e9;
}

static void send_pkt(const struct spray_pkt *p, u32 payload)
{
	u8 buf[SPRAY_MAX_HDR_LEN + REQ_LEN];
	int n;

	n = spray_pkt_build(buf, sizeof(buf), p);
	if (n < 0 || (u32)n + payload > sizeof(buf)) {
		fprintf(stderr, "spray_oldpeer: build failed (%d)\n", n);
		exit(2);
	}
	memset(buf + n, 0x5a, payload);
	if (sendto(fd, buf, (size_t)n + payload, 0,
		   (struct sockaddr *)&peer_sa, peer_len) < 0)
		perror("sendto");
}

static void send_request(u32 i, int retx)
{
	struct spray_pkt p = {
		.type = SPRAY_T_DATA, .sport = opt.sport, .dport = opt.dport,
		.src_cid = st.cid, .dst_cid = st.peer_ack_cid,
		.psn = st.cid + i, .ev = (u16)(49152 + i % 16384),
		.caps = opt.caps,
	};

	p.flags = (st.peer_ack_cid ? 0 : SPRAY_F_SYN) |
		  (retx ? SPRAY_F_RETX : 0);
	p.data.msg_id = i;
	p.data.msg_len = REQ_LEN;
	p.data.frag_len = REQ_LEN;
	p.data.ts_ns = now_ns();
	send_pkt(&p, REQ_LEN);
}

/* An acknowledgment of our requests, in an ACK packet or carried. */
static void take_ack(u32 src_cid, u32 dst_cid, const struct spray_ack *a)
{
	if (dst_cid != st.cid)
		return;
	st.peer_ack_cid = src_cid;
	if ((s32)(a->cum_psn - st.cid - st.acked) > 0 &&
	    a->cum_psn - st.cid <= opt.count)
		st.acked = a->cum_psn - st.cid;
}

static void send_ack(const struct spray_pkt *d)
{
	struct spray_pkt p = {
		.type = SPRAY_T_ACK, .sport = opt.sport, .dport = opt.dport,
		.src_cid = st.ack_cid, .dst_cid = st.peer_cid,
		.ev = d->ev, .caps = opt.caps,
	};

	p.ack.cum_psn = st.rx_cum;
	p.ack.sack_base = st.rx_cum;
	p.ack.grant_psn = opt.grant ? st.rx_first + opt.grant :
				     st.rx_cum + 256;
	p.ack.ts_echo = d->data.ts_ns;
	p.ack.ev_echo = d->ev;
	p.ack.echo_psn = d->psn;
	send_pkt(&p, 0);
}

/* A PROBE, answered as an earlier release did: its ACK, no grant. */
static void answer_probe(const struct spray_pkt *in)
{
	struct spray_pkt p = {
		.type = SPRAY_T_ACK, .flags = SPRAY_F_PROBE,
		.sport = opt.sport, .dport = opt.dport,
		.src_cid = st.ack_cid, .dst_cid = in->src_cid,
		.ev = in->ev, .caps = opt.caps,
	};

	p.ack.ts_echo = in->probe.ts_ns;
	p.ack.ev_echo = in->ev;
	p.ack.echo_psn = in->probe.probe_id;
	send_pkt(&p, 0);
}

/* Receive for up to @ms; return 1 if a new answer came. */
static int receive(int ms)
{
	u8 buf[65536];
	struct spray_pkt p;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int got = 0;
	ssize_t r;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	while ((r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (spray_pkt_parse(buf, (u32)r, &p))
			continue;
		switch (p.type) {
		case SPRAY_T_ACK:
			st.acks++;
			take_ack(p.src_cid, p.dst_cid, &p.ack);
			break;
		case SPRAY_T_NACK:
			st.nacks++;
			break;
		case SPRAY_T_PROBE:
			st.probes++;
			if (st.rx_started && p.src_cid == st.peer_cid)
				answer_probe(&p);
			break;
		case SPRAY_T_DATA:
			if ((p.flags & SPRAY_F_ACK) &&
			    (opt.caps & SPRAY_CAP_DATA_ACK))
				take_ack(p.dack.src_cid, p.dack.dst_cid,
					 &p.dack.ack);
			if (!st.rx_started || p.src_cid != st.peer_cid) {
				st.peer_cid = p.src_cid;
				st.rx_cum = p.psn;
				st.rx_first = p.psn;
				st.rx_started = 1;
			}
			if (p.psn == st.rx_cum) {
				st.rx_cum++;
				st.answers++;
				st.carried += !!(p.flags & SPRAY_F_ACK);
				got = 1;
			}
			send_ack(&p);
			break;
		}
	}
	return got;
}

static int parse_addr(const char *s, u16 port, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (opt.v6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return inet_pton(AF_INET6, s, &s6->sin6_addr) == 1 ? 0 : -1;
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	*len = sizeof(*s4);
	return inet_pton(AF_INET, s, &s4->sin_addr) == 1 ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: spray_oldpeer [-6] -l LOCAL -d PEER [-u UDPPORT]\n"
		"                     -S SPORT -P DPORT [-C CAPS] [-g GRANT] [-n COUNT]\n"
		"                     [-t TIMEOUT_S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_storage local;
	double end, resend;
	socklen_t llen;
	u32 i;
	int c;

	while ((c = getopt(argc, argv, "6l:d:u:S:P:C:g:n:t:")) != -1) {
		switch (c) {
		case '6':
			opt.v6 = 1;
			break;
		case 'l':
			opt.local = optarg;
			break;
		case 'd':
			opt.peer = optarg;
			break;
		case 'u':
			opt.udp_port = (u16)atoi(optarg);
			break;
		case 'S':
			opt.sport = (u16)atoi(optarg);
			break;
		case 'P':
			opt.dport = (u16)atoi(optarg);
			break;
		case 'C':
			opt.caps = (u16)strtoul(optarg, NULL, 0);
			break;
		case 'g':
			opt.grant = (u32)atoi(optarg);
			break;
		case 'n':
			opt.count = (u32)atoi(optarg);
			break;
		case 't':
			opt.timeout = atof(optarg);
			break;
		default:
			usage();
		}
	}
	if (!opt.local || !opt.peer || !opt.sport || !opt.dport ||
	    !opt.count || parse_addr(opt.local, opt.udp_port, &local, &llen) ||
	    parse_addr(opt.peer, opt.udp_port, &peer_sa, &peer_len))
		usage();
	fd = socket(opt.v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&local, llen)) {
		perror("spray_oldpeer: UDP socket");
		return 2;
	}
	srand((unsigned int)(now_ns() ^ (u64)getpid()));
	st.cid = (u32)rand() | 1;
	st.ack_cid = (u32)rand() | 1;
	end = now_s() + opt.timeout;
	for (i = 0; i < opt.count && now_s() < end; i++) {
		send_request(i, 0);
		resend = now_s() + 1;
		while (st.answers <= i && now_s() < end) {
			if (receive(100))
				continue;
			if (now_s() >= resend &&
			    st.acked <= i) {
				send_request(i, 1);
				resend += 1;
			}
		}
	}
	/* the last request's ACK may come alone, after its delay */
	while (st.acked < opt.count && now_s() < end)
		receive(100);
	printf("answers %u carried %u acks %u acked %u nacks %u probes %u\n",
	       st.answers, st.carried, st.acks, st.acked, st.nacks, st.probes);
	return st.answers == opt.count && st.acked == opt.count ? 0 : 1;
}

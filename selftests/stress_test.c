// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY under concurrency: threads doing send, recv, recv(MSG_PEEK),
 * poll, setsockopt, close and reopen of other sockets, new IPv6 peers and
 * config-set (udp-port among others), at random, on one receiving socket,
 * for SPRAY_STRESS_SECS seconds (default 20; `make test-debug` runs it for
 * minutes on the debug kernel, where KASAN and lockdep watch). Traffic is
 * checked end to end: each message of the long-lived senders arrives once
 * and intact, or is reported failed on their error queue (never both, but
 * for ETIMEDOUT: a connection that gives up cannot know whether its last
 * messages arrived, spray.rst "Failed messages"); a peeked message
 * is intact (a peek used to read pages another reader freed); the kernel
 * log stays clean (selftests/run.sh).
 *
 * One namespace: the receiver on [::]:8000 (IPv4 and IPv6), two senders
 * (127.0.0.1, ::1), short-lived sockets on 127.0.0.1 and fd55::1..16.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <linux/errqueue.h>
#include <linux/sockios.h>

#include "kselftest_harness.h"
#include "spray_test.h"

#define RPORT		8000
#define MAXLEN		(192 << 10)
#define MAXSEQ		(1 << 20)
#define NSENDERS	2
#define CHURN_ID	7	/* short-lived senders: integrity only */
#define MAGIC		0x53545253u

struct hdr {
	uint32_t magic, sender, seq, len;
};

static struct {
	atomic_bool stop, stop_send, stop_load;
	int b;
	struct sockaddr_spray rb4, rb6;
	int s[NSENDERS];
	atomic_uint sent[NSENDERS];
	atomic_uchar seen[NSENDERS][MAXSEQ];	/* times delivered */
	unsigned char failed_err[NSENDERS][MAXSEQ];	/* errno reported */
	/* of the first messages both delivered and reported failed */
	struct spray_msg_history hist[NSENDERS][8];
	unsigned int nhist[NSENDERS];
	atomic_uint bad, peeked, peek_bad, received, churn_rx;
	atomic_uint polls, opts, churns, configs, v6peers;
	atomic_uint send_err;
} st;

static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Sizes as a collective sees them: mostly small, some large. */
static uint32_t rnd_len(uint32_t *x)
{
	uint32_t r = rnd(x) % 100;

	if (r < 60)
		return 1 + rnd(x) % 512;
	if (r < 90)
		return 512 + rnd(x) % (16 << 10);
	return (16 << 10) + rnd(x) % (MAXLEN - (16 << 10));
}

static void fill(unsigned char *buf, uint32_t len, uint32_t sender,
		 uint32_t seq)
{
	struct hdr h = { MAGIC, sender, seq, len };
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seq * 29 + sender * 7 + i * 13);
	memcpy(buf, &h, len < sizeof(h) ? len : sizeof(h));
}

/* 0 if intact (messages too short for a header are checked by content). */
static int check(const unsigned char *buf, uint32_t len, struct hdr *h)
{
	uint32_t i;

	memset(h, 0, sizeof(*h));
	if (len < sizeof(*h))
		return 0;
	memcpy(h, buf, sizeof(*h));
	if (h->magic != MAGIC || h->len != len)
		return -1;
	for (i = sizeof(*h); i < len; i++)
		if (buf[i] != (unsigned char)(h->seq * 29 + h->sender * 7 +
					      i * 13))
			return -1;
	return 0;
}

static void *sender(void *arg)
{
	int id = (int)(long)arg, fd = st.s[id];
	const struct sockaddr_spray *to = id ? &st.rb6 : &st.rb4;
	unsigned char *buf = malloc(MAXLEN);
	uint32_t x = 0x1234567 + id, len, seq;
	struct timeval tv = { 0, 100000 };

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (!st.stop_send && st.sent[id] < MAXSEQ) {
		len = rnd_len(&x);
		if (len < sizeof(struct hdr))
			len = sizeof(struct hdr);	/* checkable */
		seq = st.sent[id];
		fill(buf, len, id, seq);
		if (sendto(fd, buf, len, 0, (const struct sockaddr *)to,
			   sizeof(*to)) == (ssize_t)len)
			st.sent[id]++;
		else if (errno != EAGAIN && errno != EINTR)
			st.send_err++;
	}
	free(buf);
	return NULL;
}

static void take(const unsigned char *buf, ssize_t n)
{
	struct hdr h;

	if (check(buf, (uint32_t)n, &h)) {
		st.bad++;
		return;
	}
	st.received++;
	if (h.sender == CHURN_ID) {
		st.churn_rx++;
		return;
	}
	if (h.sender >= NSENDERS || h.seq >= MAXSEQ) {
		st.bad++;
		return;
	}
	atomic_fetch_add(&st.seen[h.sender][h.seq], 1);
}

static void *receiver(void *arg)
{
	unsigned char *buf = malloc(MAXLEN);
	ssize_t n;

	while (!st.stop) {
		if (!spray_wait_readable(st.b, 50))
			continue;
		n = recv(st.b, buf, MAXLEN, MSG_DONTWAIT);
		if (n > 0)
			take(buf, n);
	}
	free(buf);
	return NULL;
}

static void *peeker(void *arg)
{
	unsigned char *buf = malloc(MAXLEN);
	struct hdr h;
	ssize_t n;

	while (!st.stop) {
		if (!spray_wait_readable(st.b, 50))
			continue;
		n = recv(st.b, buf, MAXLEN, MSG_PEEK | MSG_DONTWAIT);
		if (n <= 0)
			continue;
		st.peeked++;
		if (check(buf, (uint32_t)n, &h))
			st.peek_bad++;
	}
	free(buf);
	return NULL;
}

static void *poller(void *arg)
{
	struct pollfd p[3] = {
		{ .fd = st.b, .events = POLLIN | POLLOUT },
		{ .fd = st.s[0], .events = POLLIN | POLLOUT },
		{ .fd = st.s[1], .events = POLLIN | POLLOUT },
	};
	int q;

	while (!st.stop_load) {
		poll(p, 3, 10);
		ioctl(st.b, SIOCINQ, &q);
		ioctl(st.s[0], SIOCOUTQ, &q);
		st.polls++;
	}
	return NULL;
}

static void *opter(void *arg)
{
	uint32_t x = 99;
	int v;

	while (!st.stop_load) {
		switch (rnd(&x) % 5) {
		case 0:
			v = rnd(&x) % 4;
			setsockopt(st.s[rnd(&x) % NSENDERS], SOL_SPRAY,
				   SPRAY_CC_MODE, &v, sizeof(v));
			break;
		case 1:
			v = (256 << 10) << (rnd(&x) % 5);
			setsockopt(st.b, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
			break;
		case 2:
			v = (256 << 10) << (rnd(&x) % 5);
			setsockopt(st.s[rnd(&x) % NSENDERS], SOL_SOCKET,
				   SO_SNDBUF, &v, sizeof(v));
			break;
		case 3:
			/* EBUSY while receiving; turning it off always works */
			v = rnd(&x) % 2;
			setsockopt(st.b, SOL_SPRAY, SPRAY_ORDERED, &v, sizeof(v));
			break;
		default:
			v = 0;
			setsockopt(st.b, SOL_SPRAY, SPRAY_CC_MODE, &v, sizeof(v));
			v = 3;
			setsockopt(st.b, SOL_SPRAY, SPRAY_CC_MODE, &v, sizeof(v));
		}
		st.opts++;
		usleep(2000);
	}
	return NULL;
}

/* Short-lived senders: open, send a few, close at once (they linger). */
static void churn_one(const struct sockaddr_spray *me,
		      const struct sockaddr_spray *to, uint32_t *x,
		      unsigned char *buf)
{
	int fd = socket(AF_SPRAY, SOCK_DGRAM, 0), i, n;
	uint32_t len;

	if (fd < 0)
		return;
	if (!spray_bind(fd, me)) {
		n = 1 + rnd(x) % 4;
		for (i = 0; i < n; i++) {
			len = sizeof(struct hdr) + rnd(x) % 4096;
			fill(buf, len, CHURN_ID, rnd(x));
			sendto(fd, buf, len, MSG_DONTWAIT,
			       (const struct sockaddr *)to, sizeof(*to));
		}
	}
	close(fd);
}

static void *churner(void *arg)
{
	struct sockaddr_spray me = spray_sa4("127.0.0.1", 0);
	unsigned char *buf = malloc(8192);
	uint32_t x = 4242;

	while (!st.stop_load) {
		churn_one(&me, &st.rb4, &x, buf);
		st.churns++;
		usleep(20000);
	}
	free(buf);
	return NULL;
}

/* New IPv6 peers: each first message looks up a route (spray_udp_path()). */
static void *v6peers(void *arg)
{
	unsigned char *buf = malloc(8192);
	struct sockaddr_spray me;
	uint32_t x = 777;
	char ip[32];

	while (!st.stop_load) {
		snprintf(ip, sizeof(ip), "fd55::%u", 1 + rnd(&x) % 16);
		me = spray_sa6(ip, 0);
		churn_one(&me, &st.rb6, &x, buf);
		st.v6peers++;
		usleep(20000);
	}
	free(buf);
	return NULL;
}

/* Settings change under the traffic: the UDP port among them. */
static void *configer(void *arg)
{
	static const char *const sets[] = {
		"udp-port 4798", "udp-port 4797", "nr-evs 16", "nr-evs 256",
		"ack-every 1", "ack-every 8", "cc-mode sender", "cc-mode both",
	};
	unsigned int i = 0;

	while (!st.stop_load) {
		if (spray_sh(SPRAYCTL " set %s", sets[i++ % 8]))
			st.bad += 1000000;	/* a setting refused: fail */
		st.configs++;
		usleep(100000);
	}
	spray_sh(SPRAYCTL " set udp-port 4797");
	return NULL;
}

/*
 * Messages of sender @id reported failed: each one's errno is kept (a
 * message both delivered and reported failed is reported below with its
 * history).
 */
static unsigned int drain_errors(int id)
{
	unsigned char *buf = malloc(MAXLEN);
	int fd = st.s[id];
	unsigned int n = 0;
	char ctl[512];

	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = MAXLEN };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl, .msg_controllen = sizeof(ctl),
		};
		struct spray_msg_history sh = {};
		struct sock_extended_err ee = {};
		struct cmsghdr *cm;
		struct hdr h;
		ssize_t r;

		r = recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);
		if (r < 0)
			break;
		n++;
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			if (cm->cmsg_level != SOL_SPRAY)
				continue;
			if (cm->cmsg_type == SPRAY_CMSG_ERR)
				memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (cm->cmsg_type == SPRAY_CMSG_HISTORY)
				memcpy(&sh, CMSG_DATA(cm), sizeof(sh));
		}
		/* the data given back is the message: mark it as accounted */
		if (r < (ssize_t)sizeof(h) || check(buf, (uint32_t)r, &h) ||
		    h.sender != (uint32_t)id || h.seq >= MAXSEQ)
			continue;
		st.failed_err[id][h.seq] = ee.ee_errno ? ee.ee_errno : 255;
		if (st.seen[id][h.seq] && st.nhist[id] < 8)
			st.hist[id][st.nhist[id]++] = sh;
	}
	free(buf);
	return n;
}

/* The namespace's non-zero counters, as TAP comments. */
static void dump_counters(void)
{
	spray_sh(SPRAYCTL " -t stats | awk '$2 != 0 { print \"#   \" $0 }'");
}

static int secs(void)
{
	const char *s = getenv("SPRAY_STRESS_SECS");

	return s && atoi(s) > 0 ? atoi(s) : 20;
}

FIXTURE(stress) {
	int unused;
};

FIXTURE_SETUP(stress)
{
}

FIXTURE_TEARDOWN(stress)
{
}

TEST_F_TIMEOUT(stress, everything_at_once, 1800)
{
	struct sockaddr_spray any = spray_sa6("::", RPORT);
	struct sockaddr_spray m4 = spray_sa4("127.0.0.1", RPORT + 1);
	struct sockaddr_spray m6 = spray_sa6("::1", RPORT + 2);
	void *(*fns[])(void *) = {
		receiver, receiver, peeker, peeker, poller, opter, churner,
		v6peers, configer,
	};
	pthread_t snd[NSENDERS], th[9];
	unsigned int i, j, missing = 0, failed = 0, sent, twice = 0;
	unsigned int both = 0, etimedout = 0, maybe = 0;
	double end;

	ASSERT_EQ(0, spray_enter_netns(0));
	ASSERT_EQ(0, spray_sh("for i in $(seq 16); do ip addr add fd55::$i/128 "
			      "dev lo nodad || exit 1; done"));
	/*
	 * The short-lived sockets' connections go soon after them. Not
	 * sooner than a sender's RTO can grow: a receiver that forgets a
	 * sender whose last ACK was lost gets its message again (spray.rst,
	 * known limitations), and on a slow machine (the debug kernel) the
	 * RTO follows RTTs of a second and more.
	 */
	ASSERT_EQ(0, spray_sh(SPRAYCTL " set idle-timeout-ms %d",
			      getenv("KSFT_MACHINE_SLOW") ? 30000 : 2000));
	st.b = socket(AF_SPRAY, SOCK_DGRAM, 0);
	ASSERT_LE(0, st.b);
	ASSERT_EQ(0, spray_bind(st.b, &any));
	st.rb4 = spray_sa4("127.0.0.1", RPORT);
	st.rb6 = spray_sa6("::1", RPORT);
	for (i = 0; i < NSENDERS; i++) {
		st.s[i] = socket(AF_SPRAY, SOCK_DGRAM, 0);
		ASSERT_LE(0, st.s[i]);
		ASSERT_EQ(0, spray_bind(st.s[i], i ? &m6 : &m4));
	}
	for (i = 0; i < NSENDERS; i++)
		ASSERT_EQ(0, pthread_create(&snd[i], NULL, sender,
					    (void *)(long)i));
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, fns[i], NULL));

	end = spray_now() + secs();
	while (spray_now() < end)
		usleep(200000);
	/* the load stops; receivers and peekers go on until all is read */
	st.stop_send = true;
	st.stop_load = true;
	for (i = 0; i < NSENDERS; i++)
		pthread_join(snd[i], NULL);
	/* the senders' queues drain (the receivers keep reading) */
	end = spray_now() + 120;
	for (i = 0; i < NSENDERS; i++) {
		int q = 1;

		while (spray_now() < end && !ioctl(st.s[i], SIOCOUTQ, &q) && q)
			usleep(20000);
		EXPECT_EQ(0, q) TH_LOG("sender %u: %d bytes never acknowledged", i, q);
		if (q) {
			dump_counters();
			spray_sh(SPRAYCTL " -t peers | sed 's/^/#   /'; "
				 SPRAYCTL " -t sockets | sed 's/^/#   /'");
		}
	}
	/* what was acknowledged is in the receive queue or read: read it */
	end = spray_now() + 10;
	while (spray_now() < end && spray_wait_readable(st.b, 200))
		;
	st.stop = true;
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		pthread_join(th[i], NULL);
	for (;;) {
		static unsigned char buf[MAXLEN];
		ssize_t n = recv(st.b, buf, sizeof(buf), MSG_DONTWAIT);

		if (n <= 0)
			break;
		take(buf, n);
	}
	for (i = 0; i < NSENDERS; i++)
		failed += drain_errors(i);
	for (i = 0; i < NSENDERS; i++) {
		sent = st.sent[i];
		for (j = 0; j < sent; j++) {
			missing += !st.seen[i][j] && !st.failed_err[i][j];
			twice += st.seen[i][j] > 1;
			etimedout += st.failed_err[i][j] == ETIMEDOUT;
			if (st.seen[i][j] > 1 && twice <= 8)
				TH_LOG("sender %u message %u: delivered %u times",
				       i, j, st.seen[i][j]);
			if (!st.seen[i][j] || !st.failed_err[i][j])
				continue;
			if (st.failed_err[i][j] == ETIMEDOUT) {
				maybe++;
				continue;
			}
			if (both++ < 8)
				TH_LOG("sender %u message %u: delivered and failed "
				       "with errno %u", i, j, st.failed_err[i][j]);
		}
		for (j = 0; j < st.nhist[i]; j++) {
			struct spray_msg_history *sh = &st.hist[i][j];

			TH_LOG("  history: conn %u msg %u ack age %u us, retx "
			       "rack %u nack %u rto %u refused %u, nacks %u "
			       "rtos %u", sh->sh_conn_id, sh->sh_msg_id,
			       sh->sh_ack_age_us, sh->sh_retx_rack,
			       sh->sh_retx_nack, sh->sh_retx_rto,
			       sh->sh_retx_refused, sh->sh_nacks, sh->sh_rtos);
		}
	}
	TH_LOG("%d s: sent %u + %u, received %u (%u from short-lived sockets), "
	       "failed %u (%u ETIMEDOUT, %u of them delivered), peeked %u",
	       secs(), st.sent[0], st.sent[1], st.received, st.churn_rx,
	       failed, etimedout, maybe, st.peeked);
	TH_LOG("polls %u, setsockopts %u, short-lived sockets %u, IPv6 peers %u, "
	       "config changes %u", st.polls, st.opts, st.churns, st.v6peers,
	       st.configs);
	if (twice || both || maybe)
		dump_counters();
	EXPECT_LT(0U, st.sent[0]);
	EXPECT_LT(0U, st.sent[1]);
	EXPECT_LT(0U, st.peeked);
	EXPECT_EQ(0U, st.bad) TH_LOG("corrupt messages (or a setting refused)");
	EXPECT_EQ(0U, st.peek_bad) TH_LOG("a peek read a corrupt message");
	EXPECT_EQ(0U, twice) TH_LOG("messages delivered twice");
	EXPECT_EQ(0U, both) TH_LOG("messages delivered and reported failed");
	EXPECT_EQ(0U, missing) TH_LOG("messages neither delivered nor reported");
	EXPECT_EQ(0U, st.send_err);
	for (i = 0; i < NSENDERS; i++)
		close(st.s[i]);
	close(st.b);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * dpbench: the same work over AF_SPRAY, TCP and UDP, for the datapath
 * scenario of the benchmark suite (scripts/bench/suite.sh datapath,
 * Documentation/performance.rst). One process: the receiving socket is made
 * in one network namespace, the sending sockets in another (setns), so one
 * program times both ends with one clock.
 *
 *   dpbench -t spray|tcp|udp -m bulk|pp -R RECV_NETNS -S SEND_NETNS
 *           -a RECV_ADDR [-p PORT] [-c CONNS] [-n BYTES] [-s SIZE]
 *           [-g GSO] [-i ITERS] [-d SECONDS] [-T TIMEOUT] [-P SCPU,RCPU|none]
 *
 * bulk: CONNS sending sockets (one thread each) send BYTES in all, in
 *   messages (AF_SPRAY), writes (TCP, fixed-size records) or GSO sends (UDP,
 *   at most 64 KiB cut into GSO-byte datagrams) of SIZE bytes, to ONE
 *   receiving socket read by ONE thread into ONE buffer of SIZE bytes (TCP:
 *   one listening socket, its CONNS accepted connections read by one thread
 *   through epoll; UDP: UDP_GRO on, SO_RCVBUF 16 MiB as AF_SPRAY's default).
 *   No byte is checked and nothing is copied again in user space. The
 *   transfer is timed from the moment every thread is ready (sockets made,
 *   TCP connected: start-up is not in it) to the receiver's last byte:
 *   goodput of the bytes received, and the guest's busy CPU time over that
 *   interval (every CPU: the interval less its idle time in /proc/stat,
 *   which is measured, where the busy ticks are sampled; those too, as
 *   cpu_ns_per_byte_sampled) per byte received. UDP does not
 *   retransmit: its receiver stops 0.5 s after the senders finished and
 *   nothing more came; its interval ends with the last datagram read after
 *   the senders finished (or with the senders), and it reports what it
 *   lost.
 * pp: one connection, a request of SIZE bytes answered by SIZE bytes, ITERS
 *   times (at most SECONDS) after 10 unmeasured; round-trip p50, p99, min,
 *   mean, max. TCP with TCP_NODELAY on both ends, as request/response
 *   programs run it. UDP: a request above one datagram is one GSO send per
 *   64 KiB; a request or answer not complete within 1 s counts as lost.
 *   Also the guest's busy CPU time per exchange over the measured ones
 *   (CPU or waiting?).
 *
 * Sending threads run on CPU SCPU, the receiver (or server) on RCPU (default
 * 0,1 on two or more CPUs); they are named dp-send and dp-recv for perf.
 * Prints one JSON object; "status": "ok", else "failed" with "error" and a
 * non-zero exit. Failures are never replaced by a figure.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../include/uapi/linux/spray.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define MAXCONNS	64
#define MAXCPUS		64
#define UDP_MAXPAY	65507		/* IPv4 datagram payload limit */
#define UDP_MAXSEGS	64		/* UDP_MAX_SEGMENTS on 6.1 */
#define UDP_RCVBUF	(16 << 20)

enum tp { TP_SPRAY, TP_TCP, TP_UDP };
static const char *tpname[] = { "spray", "tcp", "udp" };

static struct {
	enum tp tp;
	int bulk;
	const char *rns, *sns, *addr;
	int port, conns, gso, iters, scpu, rcpu;
	long long bytes;
	long size;
	double maxsecs, timeout;
} o = { .port = 7000, .conns = 1, .size = 65536, .iters = 1000,
	.bytes = 64 << 20, .maxsecs = 10, .timeout = 300, .scpu = 0, .rcpu = 1 };

static struct sockaddr_storage dst;
static socklen_t dstlen;
static int sfd[MAXCONNS];		/* sending sockets */
static int rfd = -1;			/* receiving socket (TCP: listener) */
static int afd[MAXCONNS];		/* TCP: accepted connections */
static char *sbuf;			/* what every sender sends (read only) */
/* the start: every thread ready, then one CPU snapshot, then go */
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go_ready, go_now;

static void wait_go(void)
{
	pthread_mutex_lock(&go_lock);
	go_ready++;
	pthread_cond_broadcast(&go_cond);
	while (!go_now)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
}
static atomic_int senders_done;
static atomic_llong sent_bytes;
static atomic_llong send_calls;
static atomic_llong send_refused;	/* UDP: ENOBUFS/EAGAIN, not sent */
static char err[256];
static pthread_mutex_t errlock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&errlock);
	if (!err[0]) {
		va_start(ap, fmt);
		vsnprintf(err, sizeof(err), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&errlock);
}

static void json_str(const char *k, const char *v)
{
	const char *p;

	printf("\"%s\": \"", k);
	for (p = v; *p; p++)
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if ((unsigned char)*p >= 0x20)
			putchar(*p);
	printf("\", ");
}

/* ends the run as failed: one JSON object, exit 1 */
static void die(void)
{
	printf("{\"transport\": \"%s\", \"mode\": \"%s\", \"conns\": %d, \"size\": %ld, ",
	       tpname[o.tp], o.bulk ? "bulk" : "pp", o.conns, o.size);
	json_str("error", err[0] ? err : "unknown");
	printf("\"status\": \"failed\"}\n");
	fflush(stdout);
	_exit(1);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail("timed out after %.0f s", o.timeout);
	die();
}

/* busy and idle USER_HZ ticks of each CPU (busy: user nice system irq
 * softirq steal; idle: idle iowait), and when they were read */
struct cpusnap {
	int n;
	double t;
	long long busy[MAXCPUS], idle[MAXCPUS];
};

static void cpu_snap(struct cpusnap *s)
{
	char line[512];
	long long v[8];
	FILE *f = fopen("/proc/stat", "r");
	int c;

	s->n = 0;
	s->t = now();
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		memset(v, 0, sizeof(v));
		if (sscanf(line, "cpu%d %lld %lld %lld %lld %lld %lld %lld %lld", &c,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 9 ||
		    c >= MAXCPUS)
			continue;
		s->busy[c] = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		s->idle[c] = v[3] + v[4];
		if (c + 1 > s->n)
			s->n = c + 1;
	}
	fclose(f);
}

/*
 * CPU @c's busy USER_HZ ticks from @a to @b: the interval less its idle
 * time. /proc/stat's idle time is measured (NO_HZ keeps each CPU's idle
 * time exactly), its busy fields are sampled by the tick, which misses
 * much of a CPU's short bursts between idle periods (a reader woken per
 * message: under icount a fifth of AF_SPRAY's reading CPU was neither
 * busy nor idle). *@sampled: the tick's count.
 */
static double cpu_busy(const struct cpusnap *a, const struct cpusnap *b,
		       int c, double hz, double *sampled)
{
	double span = (b->t - a->t) * hz, idle = b->idle[c] - a->idle[c];

	*sampled = b->busy[c] - a->busy[c];
	return span > idle ? span - idle : 0;
}

/*
 * Print "cpu_busy_pct": [...] (each CPU's busy share of the interval from
 * @a to @b) and return all CPUs' busy USER_HZ ticks; *@sampled: the
 * tick's count of them.
 */
static double print_cpu_busy(const struct cpusnap *a, const struct cpusnap *b,
			     double hz, double *sampled)
{
	double busy = 0, span = (b->t - a->t) * hz, s;
	int c;

	*sampled = 0;
	printf("\"cpu_busy_pct\": [");
	for (c = 0; c < a->n && c < b->n; c++) {
		double x = cpu_busy(a, b, c, hz, &s);

		busy += x;
		*sampled += s;
		printf("%s%.1f", c ? ", " : "", 100 * x / (span > 0 ? span : 1));
	}
	printf("], ");
	return busy;
}

static void pin(int cpu, const char *name)
{
	cpu_set_t set;

	prctl(PR_SET_NAME, name);
	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fail("cannot pin %s to CPU %d", name, cpu);
}

static void enter_ns(const char *ns)
{
	char path[512];
	int fd;

	if (strchr(ns, '/'))
		snprintf(path, sizeof(path), "%s", ns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		fail("setns %s: %s", path, strerror(errno));
		die();
	}
	close(fd);
}

static void set_addr(const char *a, int port)
{
	if (o.tp == TP_SPRAY) {
		struct sockaddr_spray *s = (struct sockaddr_spray *)&dst;

		memset(s, 0, sizeof(*s));
		s->sspray_family = AF_SPRAY;
		s->sspray_af = AF_INET;
		s->sspray_port = htons(port);
		if (inet_pton(AF_INET, a, &s->sspray_addr4) != 1)
			goto bad;
		dstlen = sizeof(*s);
	} else {
		struct sockaddr_in *s = (struct sockaddr_in *)&dst;

		memset(s, 0, sizeof(*s));
		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		if (inet_pton(AF_INET, a, &s->sin_addr) != 1)
			goto bad;
		dstlen = sizeof(*s);
	}
	return;
bad:
	fail("bad address %s", a);
	die();
}

static int xsock(int family, int type)
{
	int fd = socket(family, type, 0);

	if (fd < 0) {
		fail("socket(%s): %s", tpname[o.tp], strerror(errno));
		die();
	}
	return fd;
}

static void xsetsockopt(int fd, int lvl, int opt, int val, const char *what)
{
	if (setsockopt(fd, lvl, opt, &val, sizeof(val))) {
		fail("setsockopt %s: %s", what, strerror(errno));
		die();
	}
}

/* the receiving side, in the receiver's namespace */
static void setup_receiver(void)
{
	int one = 1;

	switch (o.tp) {
	case TP_SPRAY:
		rfd = xsock(AF_SPRAY, SOCK_DGRAM);
		break;
	case TP_TCP:
		rfd = xsock(AF_INET, SOCK_STREAM);
		setsockopt(rfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		break;
	case TP_UDP:
		rfd = xsock(AF_INET, SOCK_DGRAM);
		xsetsockopt(rfd, IPPROTO_UDP, UDP_GRO, 1, "UDP_GRO");
		/* AF_SPRAY's default SO_RCVBUF; UDP's 208 KiB would drop
		 * most of a burst, as no bulk UDP user leaves it */
		xsetsockopt(rfd, SOL_SOCKET, SO_RCVBUFFORCE, UDP_RCVBUF, "SO_RCVBUFFORCE");
		/* the ping-pong server answers with GSO sends too */
		xsetsockopt(rfd, IPPROTO_UDP, UDP_SEGMENT, o.gso, "UDP_SEGMENT");
		break;
	}
	if (bind(rfd, (struct sockaddr *)&dst, dstlen)) {
		fail("bind %s port %d: %s", o.addr, o.port, strerror(errno));
		die();
	}
	if (o.tp == TP_TCP && listen(rfd, MAXCONNS)) {
		fail("listen: %s", strerror(errno));
		die();
	}
}

/* the sending sockets, in the sender's namespace */
static void setup_senders(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		switch (o.tp) {
		case TP_SPRAY:
			sfd[i] = xsock(AF_SPRAY, SOCK_DGRAM);
			break;
		case TP_TCP:
			sfd[i] = xsock(AF_INET, SOCK_STREAM);
			if (!o.bulk)
				xsetsockopt(sfd[i], IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
			if (connect(sfd[i], (struct sockaddr *)&dst, dstlen)) {
				fail("connect: %s", strerror(errno));
				die();
			}
			break;
		case TP_UDP:
			sfd[i] = xsock(AF_INET, SOCK_DGRAM);
			xsetsockopt(sfd[i], IPPROTO_UDP, UDP_SEGMENT, o.gso, "UDP_SEGMENT");
			if (connect(sfd[i], (struct sockaddr *)&dst, dstlen)) {
				fail("connect: %s", strerror(errno));
				die();
			}
			break;
		}
	}
	if (o.tp == TP_TCP) {
		for (i = 0; i < n; i++) {
			afd[i] = accept(rfd, NULL, NULL);
			if (afd[i] < 0) {
				fail("accept: %s", strerror(errno));
				die();
			}
			if (!o.bulk)
				xsetsockopt(afd[i], IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
		}
	}
}

/* UDP: the most one GSO send carries, in whole datagrams */
static long udp_batch(void)
{
	long segs = UDP_MAXPAY / o.gso;

	if (segs > UDP_MAXSEGS)
		segs = UDP_MAXSEGS;
	return segs * o.gso;
}

/* one send of len bytes (TCP: all of them); 0 or -1 (err set) */
static int send_some(int fd, const char *buf, long len)
{
	ssize_t r;

	while (len > 0) {
		if (o.tp == TP_SPRAY)
			r = sendto(fd, buf, len, 0, (struct sockaddr *)&dst, dstlen);
		else
			r = send(fd, buf, len, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (o.tp == TP_UDP && (errno == ENOBUFS || errno == EAGAIN ||
					       errno == ECONNREFUSED)) {
				atomic_fetch_add(&send_refused, 1);
				return 0;	/* UDP: not sent, never received */
			}
			fail("send (%s): %s", tpname[o.tp], strerror(errno));
			return -1;
		}
		atomic_fetch_add_explicit(&send_calls, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&sent_bytes, r, memory_order_relaxed);
		if (o.tp != TP_TCP)
			return 0;
		buf += r;
		len -= r;
	}
	return 0;
}

/* --- bulk ----------------------------------------------------------------- */

static long long share[MAXCONNS];
static atomic_int finishing;
static struct {
	double t;
	struct cpusnap snap;
} sdone;		/* when the last sender finished */

static void *bulk_sender(void *arg)
{
	long i = (long)arg;
	long long left = share[i];
	long chunk = o.size;

	pin(o.scpu, "dp-send");
	if (o.tp == TP_UDP && chunk > udp_batch())
		chunk = udp_batch();
	wait_go();
	while (left > 0) {
		long len = left < chunk ? left : chunk;

		if (send_some(sfd[i], sbuf, len))
			break;
		left -= len;
	}
	if (atomic_fetch_add(&finishing, 1) == o.conns - 1) {
		pthread_mutex_lock(&errlock);
		cpu_snap(&sdone.snap);
		sdone.t = now();
		pthread_mutex_unlock(&errlock);
	}
	atomic_fetch_add(&senders_done, 1);
	return NULL;
}

static struct {
	double t_start, t_first, t_last;
	long long bytes, bytes_first, recv_calls;	/* bytes_first: informative */
	struct cpusnap c0, c1;
	int truncated, drain_snaps;
} rx;

/* the receiver: one thread, one buffer */
static void *bulk_receiver(void *arg)
{
	long rlen = o.size;
	char *buf;
	int ep = -1, i, open_conns = o.conns;
	double deadline = now() + o.timeout, idle_since = 0;
	struct epoll_event ev[MAXCONNS];

	(void)arg;
	pin(o.rcpu, "dp-recv");
	if (o.tp == TP_UDP)
		rlen = 2 * 65536;	/* one GRO packet, whatever SIZE */
	buf = malloc(rlen);
	if (!buf) {
		fail("out of memory");
		return NULL;
	}
	if (o.tp == TP_TCP) {
		ep = epoll_create1(0);
		for (i = 0; i < o.conns; i++) {
			struct epoll_event e = { .events = EPOLLIN, .data.fd = afd[i] };

			fcntl(afd[i], F_SETFL, fcntl(afd[i], F_GETFL) | O_NONBLOCK);
			epoll_ctl(ep, EPOLL_CTL_ADD, afd[i], &e);
		}
	} else {
		struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };

		setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	memset(buf, 0, rlen);
	wait_go();
	while (rx.bytes < o.bytes) {
		ssize_t r = 0;
		long long got = 0;

		if (o.tp == TP_TCP) {
			int n = epoll_wait(ep, ev, MAXCONNS, 200), k, j;

			if (n < 0 && errno != EINTR) {
				fail("epoll_wait: %s", strerror(errno));
				break;
			}
			for (k = 0; k < n; k++) {
				/* drain, a bounded number of reads per round */
				for (j = 0; j < 16; j++) {
					r = read(ev[k].data.fd, buf, rlen);
					if (r > 0) {
						got += r;
						rx.recv_calls++;
						continue;
					}
					if (r == 0) {
						epoll_ctl(ep, EPOLL_CTL_DEL, ev[k].data.fd, NULL);
						open_conns--;
					} else if (errno != EAGAIN && errno != EINTR) {
						fail("read: %s", strerror(errno));
						goto out;
					}
					break;
				}
			}
			if (!open_conns && !got)
				break;
		} else {
			r = recv(rfd, buf, rlen, o.tp == TP_UDP ? MSG_TRUNC : 0);
			if (r < 0 && errno != EAGAIN && errno != EINTR) {
				fail("recv: %s", strerror(errno));
				break;
			}
			if (r > rlen)
				rx.truncated++;
			if (r > 0) {
				got = r;
				rx.recv_calls++;
			}
		}
		if (got > 0) {
			double t = now();

			if (!rx.bytes) {
				rx.t_first = t;
				rx.bytes_first = got;
			}
			rx.bytes += got;
			rx.t_last = t;
			idle_since = 0;
			/* UDP: the senders are done and what is queued drains;
			 * the transfer may end with any of these reads */
			if (o.tp == TP_UDP && atomic_load(&senders_done) == o.conns) {
				cpu_snap(&rx.c1);
				rx.t_last = now();
				rx.drain_snaps++;
			}
			continue;
		}
		/* nothing this round */
		if (o.tp == TP_UDP && atomic_load(&senders_done) == o.conns) {
			if (!idle_since)
				idle_since = now();
			else if (now() - idle_since > 0.5)
				break;		/* the rest is lost */
		}
		if (now() > deadline) {
			fail("timed out with %lld of %lld bytes received", rx.bytes, o.bytes);
			break;
		}
	}
out:
	if (o.tp == TP_UDP && rx.bytes < o.bytes) {
		/* lost datagrams: the transfer ended with the last read after
		 * the senders finished, or with the senders if none came */
		if (!rx.drain_snaps) {
			rx.c1 = sdone.snap;
			rx.t_last = sdone.t;
		}
	} else {
		cpu_snap(&rx.c1);
		rx.t_last = now();
	}
	if (rx.bytes < o.bytes && o.tp != TP_UDP && !err[0])
		fail("the senders closed with %lld of %lld bytes received", rx.bytes, o.bytes);
	if (ep >= 0)
		close(ep);
	free(buf);
	return NULL;
}

static int bulk(void)
{
	pthread_t st[MAXCONNS], rt;
	long i;
	long long per, unit = o.size;
	double secs, busy, tick_busy, span;
	double hz = sysconf(_SC_CLK_TCK);

	/* every connection sends the same whole number of SIZE units */
	per = o.bytes / o.conns / unit * unit;
	if (per <= 0) {
		fail("BYTES %lld below CONNS x SIZE", o.bytes);
		die();
	}
	o.bytes = per * o.conns;
	for (i = 0; i < o.conns; i++)
		share[i] = per;
	if (pthread_create(&rt, NULL, bulk_receiver, NULL)) {
		fail("pthread_create");
		die();
	}
	for (i = 0; i < o.conns; i++)
		if (pthread_create(&st[i], NULL, bulk_sender, (void *)i)) {
			fail("pthread_create");
			die();
		}
	/* the transfer starts when every thread is ready */
	pthread_mutex_lock(&go_lock);
	while (go_ready < o.conns + 1)
		pthread_cond_wait(&go_cond, &go_lock);
	cpu_snap(&rx.c0);
	rx.t_start = now();
	go_now = 1;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
	pthread_join(rt, NULL);
	if (err[0])	/* senders may be blocked for good */
		die();
	for (i = 0; i < o.conns; i++)
		pthread_join(st[i], NULL);
	secs = rx.t_last - rx.t_start;
	if (!err[0] && secs <= 0)
		fail("no interval to time");
	if (!err[0] && o.tp == TP_UDP && rx.bytes == 0)
		fail("UDP: nothing received");
	if (err[0])
		die();
	printf("{\"transport\": \"%s\", \"mode\": \"bulk\", \"conns\": %d, \"size\": %ld, ",
	       tpname[o.tp], o.conns, o.size);
	if (o.tp == TP_UDP)
		printf("\"gso\": %d, \"send_batch\": %ld, ", o.gso,
		       o.size < udp_batch() ? o.size : udp_batch());
	printf("\"bytes\": %lld, \"bytes_sent\": %lld, \"send_calls\": %lld, "
	       "\"bytes_received\": %lld, \"recv_calls\": %lld, \"seconds\": %.6f, "
	       "\"first_byte_s\": %.6f, \"goodput_mbps\": %.3f, ",
	       o.bytes, (long long)sent_bytes, (long long)send_calls, rx.bytes, rx.recv_calls,
	       secs, rx.t_first - rx.t_start, rx.bytes * 8 / secs / 1e6);
	if (o.tp == TP_UDP)
		printf("\"lost_bytes\": %lld, \"loss_pct\": %.3f, \"sends_refused\": %lld, "
		       "\"truncated\": %d, ",
		       (long long)sent_bytes - rx.bytes,
		       100.0 * ((long long)sent_bytes - rx.bytes) / (sent_bytes ? sent_bytes : 1),
		       (long long)send_refused, rx.truncated);
	span = (rx.c1.t - rx.c0.t) * hz;
	busy = print_cpu_busy(&rx.c0, &rx.c1, hz, &tick_busy);
	printf("\"cpu_busy_s\": %.3f, \"cpu_ticks\": %.0f, \"cpu_ns_per_byte\": %.3f, "
	       "\"cpu_ns_per_byte_sampled\": %.3f, ",
	       busy / hz, span * (rx.c0.n < rx.c1.n ? rx.c0.n : rx.c1.n),
	       busy / hz * 1e9 / rx.bytes, tick_busy / hz * 1e9 / rx.bytes);
	printf("\"status\": \"ok\"}\n");
	return 0;
}

/* --- ping-pong ------------------------------------------------------------ */

/* UDP requests and answers carry their iteration in their first 8 bytes */
static atomic_int pp_stop;

/* receive one whole request/answer of o.size bytes: 0, 1 (UDP: lost, or
 * stopped), -1 (error) */
static struct sockaddr_storage pp_from;	/* UDP: who asked */
static socklen_t pp_fromlen;

static int pp_recv(int fd, char *buf, uint64_t *seq, int server)
{
	long got = 0;
	ssize_t r;

	if (o.tp == TP_SPRAY) {
		for (;;) {
			r = recv(fd, buf, o.size, 0);
			if (r >= 0)
				break;
			if (errno == EINTR || ((errno == EAGAIN) && server && !pp_stop))
				continue;
			if (server && pp_stop)
				return 1;
			fail("recv: %s", strerror(errno));
			return -1;
		}
		if (r != o.size) {
			fail("recv: %zd bytes for a %ld-byte message", r, o.size);
			return -1;
		}
		return 0;
	}
	if (o.tp == TP_TCP) {
		while (got < o.size) {
			r = recv(fd, buf + got, o.size - got, 0);
			if (r > 0) {
				got += r;
				continue;
			}
			if (r < 0 && (errno == EINTR || (errno == EAGAIN && server && !pp_stop)))
				continue;
			if (server && (pp_stop || r == 0))
				return 1;
			fail("recv: %s", r ? strerror(errno) : "connection closed");
			return -1;
		}
		return 0;
	}
	/* UDP: the datagrams of one iteration, GRO'd or not */
	{
		double until = now() + 1.0;
		uint64_t want = *seq;

		while (!pp_stop) {
			pp_fromlen = sizeof(pp_from);
			r = recvfrom(fd, buf, 2 * 65536, MSG_TRUNC,
				     (struct sockaddr *)&pp_from, &pp_fromlen);
			if (r < 0) {
				if (errno != EAGAIN && errno != EINTR) {
					fail("recv: %s", strerror(errno));
					return -1;
				}
				if (!server && now() > until)
					return 1;
				continue;
			}
			if (r < 8)
				continue;
			if (server) {
				uint64_t s;

				memcpy(&s, buf, 8);
				if (s != want) {	/* a new request */
					want = s;
					got = 0;
				}
			} else {
				uint64_t s;

				memcpy(&s, buf, 8);
				if (s != want)
					continue;	/* a late answer */
			}
			got += r;
			if (got >= o.size) {
				*seq = want;
				return 0;
			}
		}
		return 1;
	}
}

static int pp_send(int fd, char *buf, uint64_t seq, const struct sockaddr *to, socklen_t tolen)
{
	long off = 0, len;
	ssize_t r;

	if (o.tp == TP_SPRAY) {
		for (;;) {
			r = sendto(fd, buf, o.size, 0, to, tolen);
			if (r >= 0)
				return 0;
			if (errno != EINTR)
				break;
		}
		fail("sendto: %s", strerror(errno));
		return -1;
	}
	if (o.tp == TP_TCP) {
		while (off < o.size) {
			r = send(fd, buf + off, o.size - off, MSG_NOSIGNAL);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				fail("send: %s", strerror(errno));
				return -1;
			}
			off += r;
		}
		return 0;
	}
	/* UDP: GSO sends of whole datagrams, each datagram stamped */
	while (off < o.size) {
		long k;

		len = o.size - off;
		if (len > udp_batch())
			len = udp_batch();
		for (k = 0; k < len; k += o.gso)
			memcpy(buf + off + k, &seq, 8);
		r = sendto(fd, buf + off, len, 0, to, tolen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != ENOBUFS && errno != EAGAIN) {
			fail("send: %s", strerror(errno));
			return -1;
		}
		off += len;
	}
	return 0;
}

static void *pp_server(void *arg)
{
	char *buf = malloc(o.size + 2 * 65536);
	int fd = o.tp == TP_TCP ? afd[0] : rfd;
	struct sockaddr_storage from;
	socklen_t fl;
	uint64_t seq = (uint64_t)-1;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };

	(void)arg;
	pin(o.rcpu, "dp-recv");
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (!pp_stop) {
		int r;

		if (o.tp == TP_TCP) {
			r = pp_recv(fd, buf, &seq, 1);
		} else if (o.tp == TP_SPRAY) {
			/* the answer goes back to whoever asked */
			ssize_t n;

			fl = sizeof(from);
			n = recvfrom(fd, buf, o.size, 0, (struct sockaddr *)&from, &fl);
			if (n < 0) {
				if (errno == EAGAIN || errno == EINTR)
					continue;
				fail("recvfrom: %s", strerror(errno));
				break;
			}
			if (pp_send(fd, buf, 0, (struct sockaddr *)&from, fl))
				break;
			continue;
		} else {
			r = pp_recv(fd, buf, &seq, 1);
		}
		if (r)
			break;
		if (o.tp == TP_UDP ? pp_send(fd, buf, seq, (struct sockaddr *)&pp_from, pp_fromlen) :
		    pp_send(fd, buf, seq, NULL, 0))
			break;
	}
	free(buf);
	return NULL;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int pingpong(void)
{
	pthread_t srv;
	char *buf = calloc(1, o.size + 2 * 65536);
	double *rtt = calloc(o.iters, sizeof(double)), t0, t_end, sum = 0;
	int n = 0, lost = 0, i, warm = 10;
	uint64_t seq = 0;
	struct timeval tv = { .tv_sec = 5, .tv_usec = 0 };

	if (!buf || !rtt) {
		fail("out of memory");
		die();
	}
	if (o.tp != TP_UDP)
		setsockopt(sfd[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	else {
		tv.tv_sec = 0;
		tv.tv_usec = 100000;
		setsockopt(sfd[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		xsetsockopt(sfd[0], IPPROTO_UDP, UDP_GRO, 1, "UDP_GRO");
	}
	if (pthread_create(&srv, NULL, pp_server, NULL)) {
		fail("pthread_create");
		die();
	}
	pin(o.scpu, "dp-send");
	t_end = 0;
	for (i = 0; n < o.iters && !err[0]; i++) {
		int r;

		if (i == warm) {
			cpu_snap(&rx.c0);
			rx.t_start = now();
			t_end = rx.t_start + o.maxsecs;
		}
		if (t_end && now() > t_end)
			break;
		seq++;
		t0 = now();
		if (pp_send(sfd[0], buf, seq, (struct sockaddr *)&dst, dstlen))
			break;
		r = pp_recv(sfd[0], buf, &seq, 0);
		if (r < 0)
			break;
		if (r > 0) {		/* UDP only */
			lost++;
			if (lost > 100 + o.iters / 10) {
				fail("UDP: %d requests of %d lost", lost, i + 1);
				break;
			}
			continue;
		}
		if (i >= warm)
			rtt[n++] = (now() - t0) * 1e6;
	}
	cpu_snap(&rx.c1);
	rx.t_last = now();
	pp_stop = 1;
	if (o.tp == TP_TCP)
		shutdown(sfd[0], SHUT_WR);
	pthread_join(srv, NULL);
	if (!err[0] && n < 10)
		fail("only %d round trips measured", n);
	if (err[0])
		die();
	qsort(rtt, n, sizeof(double), cmpd);
	for (i = 0; i < n; i++)
		sum += rtt[i];
	printf("{\"transport\": \"%s\", \"mode\": \"pp\", \"conns\": 1, \"size\": %ld, ",
	       tpname[o.tp], o.size);
	if (o.tp == TP_UDP)
		printf("\"gso\": %d, \"lost\": %d, ", o.gso, lost);
	printf("\"iters\": %d, \"p50_us\": %.1f, \"p99_us\": %.1f, \"min_us\": %.1f, "
	       "\"mean_us\": %.1f, \"max_us\": %.1f, ",
	       n, rtt[n / 2], rtt[(int)(n * 0.99) < n ? (int)(n * 0.99) : n - 1], rtt[0],
	       sum / n, rtt[n - 1]);
	/* CPU or waiting: the guest's busy time per exchange (lost UDP
	 * exchanges, and their 1 s waits, are in the interval) */
	{
		double tick_busy, hz = sysconf(_SC_CLK_TCK);
		double busy = print_cpu_busy(&rx.c0, &rx.c1, hz, &tick_busy);

		printf("\"seconds\": %.3f, \"cpu_us_per_exchange\": %.1f, "
		       "\"cpu_us_per_exchange_sampled\": %.1f, ",
		       rx.t_last - rx.t_start, busy / hz * 1e6 / (n + lost),
		       tick_busy / hz * 1e6 / (n + lost));
	}
	printf("\"status\": \"ok\"}\n");
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: dpbench -t spray|tcp|udp -m bulk|pp -R RECV_NETNS -S SEND_NETNS\n"
		"       -a RECV_ADDR [-p PORT] [-c CONNS] [-n BYTES] [-s SIZE] [-g GSO]\n"
		"       [-i ITERS] [-d SECONDS] [-T TIMEOUT] [-P SCPU,RCPU|none]\n");
	exit(2);
}

static long long num(const char *s)
{
	char *e;
	long long v = strtoll(s, &e, 0);

	switch (*e) {
	case 'k': case 'K': v <<= 10; break;
	case 'm': case 'M': v <<= 20; break;
	case 'g': case 'G': v <<= 30; break;
	}
	return v;
}

int main(int argc, char **argv)
{
	int c, mtu_gso = 0;

	while ((c = getopt(argc, argv, "t:m:R:S:a:p:c:n:s:g:i:d:T:P:")) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "spray"))
				o.tp = TP_SPRAY;
			else if (!strcmp(optarg, "tcp"))
				o.tp = TP_TCP;
			else if (!strcmp(optarg, "udp"))
				o.tp = TP_UDP;
			else
				usage();
			break;
		case 'm':
			o.bulk = !strcmp(optarg, "bulk");
			if (!o.bulk && strcmp(optarg, "pp"))
				usage();
			break;
		case 'R': o.rns = optarg; break;
		case 'S': o.sns = optarg; break;
		case 'a': o.addr = optarg; break;
		case 'p': o.port = atoi(optarg); break;
		case 'c': o.conns = atoi(optarg); break;
		case 'n': o.bytes = num(optarg); break;
		case 's': o.size = num(optarg); break;
		case 'g': mtu_gso = atoi(optarg); break;
		case 'i': o.iters = atoi(optarg); break;
		case 'd': o.maxsecs = atof(optarg); break;
		case 'T': o.timeout = atof(optarg); break;
		case 'P':
			if (!strcmp(optarg, "none"))
				o.scpu = o.rcpu = -1;
			else if (sscanf(optarg, "%d,%d", &o.scpu, &o.rcpu) != 2)
				usage();
			break;
		default:
			usage();
		}
	}
	if (!o.rns || !o.sns || !o.addr || o.conns < 1 || o.conns > MAXCONNS ||
	    o.size < 8 || o.size > (64 << 20) || o.iters < 1)
		usage();
	if (!o.bulk)
		o.conns = 1;
	/* UDP datagrams of the path MTU: the caller passes MTU - 28 */
	o.gso = mtu_gso > 0 ? mtu_gso : 1472;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 && o.scpu >= 0)
		o.scpu = o.rcpu = -1;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)o.timeout + 30);
	sbuf = malloc(o.size);
	if (!sbuf) {
		fail("out of memory");
		die();
	}
	memset(sbuf, 0xa5, o.size);
	set_addr(o.addr, o.port);
	enter_ns(o.rns);
	setup_receiver();
	enter_ns(o.sns);
	setup_senders(o.conns);
	if (o.bulk ? bulk() : pingpong())
		die();
	fflush(stdout);
	return 0;
}

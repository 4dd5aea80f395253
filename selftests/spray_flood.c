// SPDX-License-Identifier: GPL-2.0
/*
 * spray_flood: send crafted AF_SPRAY packets (UDP/IPv4) at a live receiver,
 * from spoofed source addresses if asked. The hostile half of
 * selftests/hardening.sh.
 *
 *   spray_flood [options] KIND
 *
 *   -d ADDR    receiver's IPv4 address (required; may be a broadcast or
 *              multicast address)
 *   -u PORT    AF_SPRAY's UDP port at the receiver (default 4797)
 *   -P PORT    destination spray port (default 7000)
 *   -q NUM     cycle packet by packet through NUM destination spray ports
 *              from PORT (default 1)
 *   -n COUNT   packets to send (default 1000)
 *   -r RATE    packets a second (default 0: as fast as the socket takes them)
 *   -s CIDR    source addresses: cycle through the addresses of CIDR
 *              (e.g. 10.66.0.0/16) instead of the host's own address
 *   -a NUM     distinct source addresses to use from CIDR (default: all)
 *   -p NUM     distinct source spray ports per address (default 1);
 *              a source (connection) is an (address, spray port) pair
 *   -S PORT    first source spray port (default 20000)
 *   -c CID     connection id for the kinds that use one (default random)
 *   -t NS      sender timestamp (ts_ns) of DATA (default: CLOCK_MONOTONIC)
 *   -l LEN     payload bytes of DATA (default 512; the receiver refuses
 *              fragments below 256 bytes that are not a message's last)
 *   -x SEED    random seed (default 1)
 *
 * Packets are built with the module's own encoder (kernel/core/pkt.c, compiled
 * in), so a "valid header" is exactly what the kernel would send, and then
 * one field is made absurd. KIND and the drop counter each lands in
 * (sprayctl stats) on a receiver bound to the destination spray port:
 *
 *   random    random bytes, 0..1472 long: one of the parse reasons
 *   short     valid packets cut short              drop-short
 *   version   version != 1                         drop-version
 *   type      unknown type                         drop-type
 *   flags     a flag not valid for the type        drop-flags
 *   port      source or destination spray port 0   drop-port
 *   cid       source connection id 0               drop-cid
 *   len       absurd msg_len, frag_off, frag_len; control packets with
 *             trailing bytes                       drop-len
 *   field     NACK count or reason out of range    drop-field
 *   nosyn     DATA without SYN from a new source   drop-stale (+ a NACK back)
 *   ctl       ACK, NACK, PROBE-ACK from a new source drop-stale
 *   synprobe  PROBE with SYN from a new source      drop-stale (+ an echo
 *             back, at the rate of NACKs to unknown senders)
 *   syn       DATA with SYN, a fresh connection id per source, half a
 *             message (never completes): opens connection state
 *   synfull   the same with a whole one-packet message: delivered
 *   bigmsg    SYN DATA claiming an 8 MiB message, one fragment at its end
 *   tinymsg   from one source, COUNT messages of two fragments of which
 *             only the first comes, each a new message id and psn: many
 *             partial messages, each holding a page for LEN bytes
 *   open      one SYN DATA (half a message) with connection id -c: the
 *             state the next kinds aim at (use the same -s/-S/-c)
 *   far       that connection, psn 2^24 and more away  drop-stale
 *   beyond    that connection, psn beyond the window   drop-window
 *   dup       that connection, its first psn again     drop-dup
 *   ackcid    ACK/NACK to that source with a wrong dst_cid, absurd
 *             cum/sack/grant                       drop-stale
 *   junk      to that connection: ACK/NACK with a wrong dst_cid and
 *             PROBEs of another incarnation (src_cid not -c): none is
 *             valid for it, none keeps it alive     drop-stale
 *   replay    one whole one-packet message (cid -c, psn = cid, ts -t),
 *             COUNT times: delivered once, then drop-dup
 *   stale     first a newer incarnation of that (cid -c + 1, ts -t + 1),
 *             delivered, then the replay COUNT - 1 times: drop-stale
 *   csum      synfull with a wrong UDP checksum (needs -s: the checksum
 *             of a datagram whose source the kernel fills in is left 0,
 *             none): UDP's InCsumErrors, never an AF_SPRAY counter
 *
 * Prints "flooding KIND" when it starts, "sent N sources S" when done. Needs CAP_NET_RAW (raw socket with
 * IP_HDRINCL, so that any source address and UDP source port can be set).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pkt.h"
#include "rxwin.h"

#define MAX_PAYLOAD	1472

static struct {
	struct in_addr dst;
	u16 udp_port, dport, sport0;
	u32 count, naddr, nport, cid, len, ndport;
	double rate;
	u32 net, mask_bits;
	bool spoof, cid_set, ts_set;
	u64 ts;
	u64 seed;
} opt = {
	.udp_port = 4797, .dport = 7000, .sport0 = 20000, .count = 1000,
	.nport = 1, .len = 512, .seed = 1, .ndport = 1,
};

static u64 rng;

static u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (u32)(rng >> 11);
}

static u32 rnd_nz(void)
{
	u32 v;

	do {
		v = rnd();
	} while (!v);
	return v;
}

static u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (u64)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static u16 csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

static u32 csum_add(u32 sum, const void *buf, size_t len)
{
	const u8 *p = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (u32)p[len - 1] << 8;
	return sum;
}

/* One source: its address and spray port, and a cid of its own. */
struct source {
	struct in_addr addr;
	u16 sport;
};

static struct source source_of(u32 i)
{
	u32 a = i % opt.naddr, p = (i / opt.naddr) % opt.nport;
	struct source s = { .sport = (u16)(opt.sport0 + p) };

	if (opt.spoof)
		/* skip the network and broadcast addresses of the range */
		s.addr.s_addr = htonl(opt.net + 1 + a);
	else
		s.addr.s_addr = 0;	/* the kernel fills in ours */
	return s;
}

static int raw_fd;
static bool single;
static bool bad_csum;	/* kind csum: every checksum made wrong */
static u16 cur_dport;	/* the destination spray port of this packet */
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = sig;
}

/* Send one UDP datagram from src:ev to the receiver's AF_SPRAY port. */
static int send_udp(struct in_addr src, u16 ev, const void *payload,
		    u32 len)
{
	static u8 pkt[sizeof(struct iphdr) + sizeof(struct udphdr) +
		      MAX_PAYLOAD + 64];
	struct iphdr *ip = (struct iphdr *)pkt;
	struct udphdr *udp = (struct udphdr *)(ip + 1);
	struct sockaddr_in to = { .sin_family = AF_INET };
	u32 sum;

	if (len > MAX_PAYLOAD + 64)
		len = MAX_PAYLOAD + 64;
	memset(pkt, 0, sizeof(*ip) + sizeof(*udp));
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = 0x02;		/* ECT(0), as AF_SPRAY sends */
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = src.s_addr;
	ip->daddr = opt.dst.s_addr;
	ip->tot_len = htons(sizeof(*ip) + sizeof(*udp) + len);
	udp->source = htons(ev);
	udp->dest = htons(opt.udp_port);
	udp->len = htons(sizeof(*udp) + len);
	memcpy(udp + 1, payload, len);
	if (src.s_addr) {
		/* pseudo header, UDP header, payload */
		sum = csum_add(0, &ip->saddr, 8);
		sum += IPPROTO_UDP + sizeof(*udp) + len;
		sum = csum_add(sum, udp, sizeof(*udp) + len);
		udp->check = htons(csum_fold(sum)) ?: 0xffff;
		/* another value than the right one, and not 0 (none) */
		if (bad_csum)
			udp->check = htons(ntohs(udp->check) == 0x1111 ?
					   0x2222 : 0x1111);
	}	/* else no checksum (0): the kernel picks our address later */
	to.sin_addr = opt.dst;
	while (sendto(raw_fd, pkt, sizeof(*ip) + sizeof(*udp) + len, 0,
		      (struct sockaddr *)&to, sizeof(to)) < 0) {
		if (errno != ENOBUFS && errno != EAGAIN) {
			perror("sendto");
			return -1;
		}
		usleep(100);	/* the qdisc is full: wait, do not drop */
	}
	return 0;
}

static u16 ev_rand(void)
{
	return (u16)(49152 + rnd() % 16384);
}

/* A DATA packet from @s with the given fields, payload of frag_len bytes. */
static u32 build_data(u8 *buf, const struct source *s, u16 flags, u32 cid,
		      u32 psn, u32 msg_id, u32 msg_len, u32 frag_off,
		      u32 frag_len)
{
	struct spray_pkt p = {
		.type = SPRAY_T_DATA, .flags = flags, .sport = s->sport,
		.dport = cur_dport, .src_cid = cid, .psn = psn,
		.ev = ev_rand(),
	};
	u32 i;
	int n;

	p.data.msg_id = msg_id;
	p.data.msg_len = msg_len;
	p.data.frag_off = frag_off;
	p.data.frag_len = frag_len;
	p.data.ts_ns = opt.ts_set ? opt.ts : now_ns();
	n = spray_pkt_build(buf, MAX_PAYLOAD, &p);
	if (n < 0)
		abort();
	for (i = 0; i < frag_len && n + i < MAX_PAYLOAD; i++)
		buf[n + i] = (u8)rnd();
	return n + i;
}

static u32 build_ctl(u8 *buf, const struct source *s, u8 type, u16 flags,
		     u32 cid, u32 dst_cid)
{
	struct spray_pkt p = {
		.type = type, .flags = flags, .sport = s->sport,
		.dport = cur_dport, .src_cid = cid, .dst_cid = dst_cid,
		.ev = ev_rand(),
	};

	switch (type) {
	case SPRAY_T_ACK:
		p.ack.cum_psn = rnd();
		p.ack.sack_base = rnd();
		p.ack.sack = (u64)rnd() << 32 | rnd();
		p.ack.ecn = (u64)rnd() << 32 | rnd();
		p.ack.ts_echo = (u64)rnd() << 32 | rnd();
		p.ack.hold_ns = rnd();
		p.ack.grant_psn = rnd();
		p.ack.ev_echo = (u16)rnd();
		p.ack.echo_psn = rnd();
		break;
	case SPRAY_T_NACK:
		p.nack.psn = rnd();
		p.nack.count = (u16)(1 + rnd() % SPRAY_NACK_MAX_COUNT);
		p.nack.reason = (u8)(1 + rnd() % (__SPRAY_NACK_MAX - 1));
		p.nack.cum_psn = rnd();
		p.nack.grant_psn = rnd();
		break;
	case SPRAY_T_PROBE:
		p.probe.ts_ns = now_ns();
		p.probe.probe_id = rnd();
		break;
	}
	return (u32)spray_pkt_build(buf, MAX_PAYLOAD, &p);
}

/* A well-formed packet of a random type, for the kinds that break one field. */
static u32 build_any(u8 *buf, const struct source *s, u8 *type)
{
	static const u8 types[] = { SPRAY_T_DATA, SPRAY_T_ACK, SPRAY_T_NACK,
				    SPRAY_T_PROBE, SPRAY_T_CLOSE };

	*type = types[rnd() % sizeof(types)];
	if (*type == SPRAY_T_DATA)
		return build_data(buf, s, SPRAY_F_SYN, rnd_nz(), rnd(), rnd(),
				  opt.len * 2, 0, opt.len);
	return build_ctl(buf, s, *type, 0, rnd_nz(), rnd());
}

static void put16(u8 *buf, u32 off, u16 v)
{
	buf[off] = (u8)(v >> 8);
	buf[off + 1] = (u8)v;
}

static void put32(u8 *buf, u32 off, u32 v)
{
	put16(buf, off, (u16)(v >> 16));
	put16(buf, off + 2, (u16)v);
}

/* byte offsets in the headers (wire.h) */
#define OFF_TYPE	1
#define OFF_FLAGS	2
#define OFF_SPORT	4
#define OFF_DPORT	6
#define OFF_SRC_CID	8
#define OFF_PSN		16
#define OFF_MSG_LEN	(SPRAY_HDR_LEN + 4)
#define OFF_FRAG_OFF	(SPRAY_HDR_LEN + 8)
#define OFF_FRAG_LEN	(SPRAY_HDR_LEN + 12)
#define OFF_NACK_COUNT	(SPRAY_HDR_LEN + 4)
#define OFF_NACK_REASON	(SPRAY_HDR_LEN + 6)

static u32 valid_flags(u8 type)
{
	switch (type) {
	case SPRAY_T_DATA:
		return SPRAY_F_DATA_MASK;
	case SPRAY_T_ACK:
		return SPRAY_F_ACK_MASK;
	case SPRAY_T_PROBE:
		return SPRAY_F_PROBE_MASK;
	}
	return 0;
}

/*
 * Packet @i of @kind into @buf; its source in @s, its UDP source port in
 * @ev. Returns the length, or -1 for an unknown kind.
 */
static int build(const char *kind, u32 i, u8 *buf, struct source *s, u16 *ev)
{
	u32 len, v;
	u8 type;

	*s = source_of(i);
	*ev = ev_rand();
	cur_dport = (u16)(opt.dport + i % opt.ndport);
	if (!strcmp(kind, "random")) {
		len = rnd() % (MAX_PAYLOAD + 1);
		for (v = 0; v < len; v++)
			buf[v] = (u8)rnd();
		return (int)len;
	}
	if (!strcmp(kind, "short")) {
		len = build_any(buf, s, &type);
		return (int)(rnd() % spray_pkt_hdr_len(type));
	}
	if (!strcmp(kind, "version")) {
		len = build_any(buf, s, &type);
		buf[0] = (u8)(2 + rnd() % 254);
		if (rnd() & 1)
			buf[0] = 0;
		return (int)len;
	}
	if (!strcmp(kind, "type")) {
		len = build_any(buf, s, &type);
		buf[OFF_TYPE] = (u8)(__SPRAY_T_MAX + rnd() % (256 - __SPRAY_T_MAX));
		if (rnd() & 1)
			buf[OFF_TYPE] = 0;
		return (int)len;
	}
	if (!strcmp(kind, "flags")) {
		len = build_any(buf, s, &type);
		do {
			v = (u16)rnd();
		} while (!(v & ~valid_flags(type)));
		put16(buf, OFF_FLAGS, (u16)v);
		return (int)len;
	}
	if (!strcmp(kind, "port")) {
		len = build_any(buf, s, &type);
		v = rnd() % 3;
		if (v != 1)
			put16(buf, OFF_SPORT, 0);
		if (v != 0)
			put16(buf, OFF_DPORT, 0);
		return (int)len;
	}
	if (!strcmp(kind, "cid")) {
		len = build_any(buf, s, &type);
		put32(buf, OFF_SRC_CID, 0);
		return (int)len;
	}
	if (!strcmp(kind, "len")) {
		switch (i % 8) {
		case 0:		/* msg_len 0 */
			len = build_data(buf, s, SPRAY_F_SYN, rnd_nz(), 0, i,
					 opt.len, 0, opt.len);
			put32(buf, OFF_MSG_LEN, 0);
			return (int)len;
		case 1:		/* msg_len above 8 MiB, up to 4 GiB */
			len = build_data(buf, s, SPRAY_F_SYN, rnd_nz(), 0, i,
					 opt.len, 0, opt.len);
			put32(buf, OFF_MSG_LEN, SPRAY_WIRE_MAX_MSG + 1 +
			      rnd() % (0xffffffffU - SPRAY_WIRE_MAX_MSG));
			return (int)len;
		case 2:		/* fragment beyond the message */
			return (int)build_data(buf, s, SPRAY_F_SYN, rnd_nz(),
					       0, i, opt.len,
					       1 + rnd() % 0xfffffff0U, opt.len);
		case 3:		/* frag_off + frag_len wraps around 2^32 */
			return (int)build_data(buf, s, SPRAY_F_SYN, rnd_nz(),
					       0, i, SPRAY_WIRE_MAX_MSG,
					       0xffffffffU - opt.len / 2,
					       opt.len);
		case 4:		/* frag_len 0 */
			len = build_data(buf, s, SPRAY_F_SYN, rnd_nz(), 0, i,
					 opt.len, 0, 0);
			return (int)len;
		case 5:		/* frag_len larger than the payload */
			len = build_data(buf, s, SPRAY_F_SYN, rnd_nz(), 0, i,
					 SPRAY_WIRE_MAX_MSG, 0, opt.len);
			put16(buf, OFF_FRAG_LEN, (u16)(opt.len + 1 +
						       rnd() % 60000));
			return (int)len;
		case 6:		/* frag_len smaller than the payload */
			len = build_data(buf, s, SPRAY_F_SYN, rnd_nz(), 0, i,
					 SPRAY_WIRE_MAX_MSG, 0, opt.len);
			put16(buf, OFF_FRAG_LEN, (u16)(rnd() % opt.len));
			return (int)len;
		default:	/* a control packet with bytes after it */
			len = build_ctl(buf, s, SPRAY_T_ACK + rnd() % 4, 0,
					rnd_nz(), rnd());
			v = 1 + rnd() % 64;
			memset(buf + len, 0, v);
			return (int)(len + v);
		}
	}
	if (!strcmp(kind, "field")) {
		len = build_ctl(buf, s, SPRAY_T_NACK, 0, rnd_nz(), rnd());
		switch (i % 4) {
		case 0:
			put16(buf, OFF_NACK_COUNT, 0);
			break;
		case 1:
			put16(buf, OFF_NACK_COUNT, (u16)(SPRAY_NACK_MAX_COUNT +
				1 + rnd() % (0xffff - SPRAY_NACK_MAX_COUNT)));
			break;
		case 2:
			buf[OFF_NACK_REASON] = 0;
			break;
		default:
			buf[OFF_NACK_REASON] = (u8)(__SPRAY_NACK_MAX +
				rnd() % (256 - __SPRAY_NACK_MAX));
		}
		return (int)len;
	}
	if (!strcmp(kind, "nosyn"))
		return (int)build_data(buf, s, 0, rnd_nz(), rnd(), rnd(),
				       opt.len * 2, 0, opt.len);
	if (!strcmp(kind, "ctl")) {
		type = SPRAY_T_ACK + i % 3;
		return (int)build_ctl(buf, s, type,
				      type == SPRAY_T_ACK && (i & 4) ?
				      SPRAY_F_PROBE : 0, rnd_nz(), rnd());
	}
	if (!strcmp(kind, "synprobe"))
		return (int)build_ctl(buf, s, SPRAY_T_PROBE, SPRAY_F_SYN,
				      rnd_nz(), 0);
	if (!strcmp(kind, "csum"))
		kind = "synfull";
	if (!strcmp(kind, "syn") || !strcmp(kind, "synfull")) {
		v = rnd_nz();
		return (int)build_data(buf, s, SPRAY_F_SYN, v, v, 0,
				       kind[3] ? opt.len : opt.len * 2, 0,
				       opt.len);
	}
	if (!strcmp(kind, "bigmsg")) {
		v = rnd_nz();
		return (int)build_data(buf, s, SPRAY_F_SYN, v, v, 0,
				       SPRAY_WIRE_MAX_MSG,
				       SPRAY_WIRE_MAX_MSG - opt.len, opt.len);
	}
	/* the kinds below talk to one connection: -c, one source */
	*s = source_of(0);
	single = true;
	if (!strcmp(kind, "tinymsg"))
		return (int)build_data(buf, s, i ? 0 : SPRAY_F_SYN, opt.cid,
				       opt.cid + i, i, opt.len * 2, 0, opt.len);
	if (!strcmp(kind, "open"))
		return (int)build_data(buf, s, SPRAY_F_SYN, opt.cid, opt.cid,
				       0, opt.len * 2, 0, opt.len);
	if (!strcmp(kind, "far")) {
		v = SPRAY_RXWIN_FAR + rnd() % (0x7fffffffU -
						   SPRAY_RXWIN_FAR);
		return (int)build_data(buf, s, 0, opt.cid,
				       opt.cid + ((i & 1) ? v : -v), 1,
				       opt.len * 2, 0, opt.len);
	}
	if (!strcmp(kind, "beyond")) {
		/* the window is SPRAY_RXWIN_BITS psns from the cumulative ack */
		v = SPRAY_RXWIN_BITS + 1 +
		    rnd() % (SPRAY_RXWIN_FAR - 2 * SPRAY_RXWIN_BITS);
		return (int)build_data(buf, s, 0, opt.cid, opt.cid + v, 1,
				       opt.len * 2, 0, opt.len);
	}
	if (!strcmp(kind, "dup"))
		return (int)build_data(buf, s, 0, opt.cid, opt.cid, 0,
				       opt.len * 2, 0, opt.len);
	if (!strcmp(kind, "ackcid")) {
		do {
			v = rnd();
		} while (v == opt.cid);
		return (int)build_ctl(buf, s, SPRAY_T_ACK + i % 2, 0, opt.cid,
				      v);
	}
	if (!strcmp(kind, "junk")) {
		do {
			v = rnd();
		} while (v == opt.cid || !v);
		if (i % 3 == 2)
			return (int)build_ctl(buf, s, SPRAY_T_PROBE, 0, v, 0);
		return (int)build_ctl(buf, s, SPRAY_T_ACK + i % 2, 0, opt.cid,
				      v);
	}
	if (!strcmp(kind, "replay") || (!strcmp(kind, "stale") && i))
		return (int)build_data(buf, s, SPRAY_F_SYN, opt.cid, opt.cid,
				       0, opt.len, 0, opt.len);
	if (!strcmp(kind, "stale")) {
		opt.ts++;
		len = build_data(buf, s, SPRAY_F_SYN, opt.cid + 1, opt.cid + 1,
				 0, opt.len, 0, opt.len);
		opt.ts--;
		return (int)len;
	}
	return -1;
}

/*
 * What the module's own parser must say about a packet of each kind: 0
 * (well-formed, the receive path judges it) or the drop reason. Checked
 * for every packet before it leaves, so that the counters the test expects
 * to move are right by construction. "random" is not checked.
 */
static const struct {
	const char *kind;
	int parse;
} expect[] = {
	{ "short", -SPRAY_DROP_SHORT }, { "version", -SPRAY_DROP_VERSION },
	{ "type", -SPRAY_DROP_TYPE }, { "flags", -SPRAY_DROP_FLAGS },
	{ "port", -SPRAY_DROP_PORT }, { "cid", -SPRAY_DROP_CID },
	{ "len", -SPRAY_DROP_LEN }, { "field", -SPRAY_DROP_FIELD },
	{ "nosyn", 0 }, { "ctl", 0 }, { "syn", 0 }, { "synfull", 0 },
	{ "bigmsg", 0 }, { "tinymsg", 0 }, { "open", 0 }, { "far", 0 },
	{ "beyond", 0 }, { "dup", 0 }, { "ackcid", 0 }, { "junk", 0 },
	{ "replay", 0 },
	{ "stale", 0 }, { "csum", 0 },
};

static const int *expected_parse(const char *kind)
{
	unsigned int i;

	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		if (!strcmp(kind, expect[i].kind))
			return &expect[i].parse;
	return NULL;
}

static int parse_cidr(const char *arg)
{
	char buf[64], *slash;
	struct in_addr a;
	int bits = 32;

	snprintf(buf, sizeof(buf), "%s", arg);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = 0;
		bits = atoi(slash + 1);
	}
	if (inet_pton(AF_INET, buf, &a) != 1 || bits < 8 || bits > 30)
		return -1;
	opt.mask_bits = bits;
	opt.net = ntohl(a.s_addr) & ~((1U << (32 - bits)) - 1);
	opt.spoof = true;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: spray_flood -d ADDR [-u UDPPORT] [-P PORT] "
		"[-q NDPORTS] [-n COUNT] [-r RATE] [-s CIDR [-a NADDR]] [-p NPORTS] "
		"[-S SPORT] [-c CID] [-t TS] [-l LEN] [-x SEED] KIND\n"
		"(see the top of spray_flood.c)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static u8 buf[MAX_PAYLOAD + 64];
	u32 i, naddr_max, sent = 0;
	const int *want;
	const char *kind;
	struct source s;
	struct spray_pkt p;
	int c, n;
	u64 t0;
	u16 ev;

	while ((c = getopt(argc, argv, "d:u:P:q:n:r:s:a:p:S:c:t:l:x:")) != -1) {
		switch (c) {
		case 'd':
			if (inet_pton(AF_INET, optarg, &opt.dst) != 1)
				usage();
			break;
		case 'u':
			opt.udp_port = (u16)atoi(optarg);
			break;
		case 'q':
			opt.ndport = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'P':
			opt.dport = (u16)atoi(optarg);
			break;
		case 'n':
			opt.count = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			opt.rate = atof(optarg);
			break;
		case 's':
			if (parse_cidr(optarg))
				usage();
			break;
		case 'a':
			opt.naddr = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			opt.nport = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'S':
			opt.sport0 = (u16)atoi(optarg);
			break;
		case 'c':
			opt.cid = (u32)strtoul(optarg, NULL, 0);
			opt.cid_set = true;
			break;
		case 't':
			opt.ts = strtoull(optarg, NULL, 0);
			opt.ts_set = true;
			break;
		case 'l':
			opt.len = (u32)strtoul(optarg, NULL, 0);
			break;
		case 'x':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || !opt.dst.s_addr || !opt.dport ||
	    !opt.ndport || opt.dport + opt.ndport - 1 > 0xffff ||
	    !opt.nport || !opt.len || opt.len > MAX_PAYLOAD - SPRAY_DATA_HDR_LEN)
		usage();
	kind = argv[optind];
	bad_csum = !strcmp(kind, "csum");
	if (bad_csum && !opt.spoof)
		usage();
	want = expected_parse(kind);
	rng = opt.seed * 0x9e3779b97f4a7c15ULL + 1;
	if (!opt.cid_set)
		opt.cid = rnd_nz();
	naddr_max = opt.spoof ? (1U << (32 - opt.mask_bits)) - 2 : 1;
	if (!opt.naddr || opt.naddr > naddr_max)
		opt.naddr = naddr_max;
	if (build(kind, 0, buf, &s, &ev) < 0) {
		fprintf(stderr, "spray_flood: unknown kind '%s'\n", kind);
		usage();
	}

	raw_fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (raw_fd < 0) {
		perror("socket(AF_INET, SOCK_RAW)");
		return 1;
	}
	/* -d may be a broadcast address: the receiver must refuse it */
	c = 1;
	setsockopt(raw_fd, SOL_SOCKET, SO_BROADCAST, &c, sizeof(c));
	rng = opt.seed * 0x9e3779b97f4a7c15ULL + 1;
	if (!opt.cid_set)
		opt.cid = rnd_nz();
	/* SIGTERM (or SIGINT) ends the flood early, with the summary line */
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	printf("flooding %s\n", kind);
	fflush(stdout);
	t0 = now_ns();
	for (i = 0; i < opt.count && !stop; i++) {
		if (opt.rate > 0) {
			/* sleep until this packet is due, not in a busy loop */
			u64 due = (u64)(t0 + i * 1e9 / opt.rate);
			struct timespec ts = {
				.tv_sec = (time_t)(due / 1000000000ULL),
				.tv_nsec = (long)(due % 1000000000ULL),
			};

			if (now_ns() < due)
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						&ts, NULL);
		}
		n = build(kind, i, buf, &s, &ev);
		if (want && spray_pkt_parse(buf, (u32)n, &p) != *want) {
			fprintf(stderr, "spray_flood: %s packet %u: parser says %s, want %s\n",
				kind, i,
				spray_drop_reason_name(-spray_pkt_parse(buf, (u32)n, &p)),
				spray_drop_reason_name(-*want));
			return 1;
		}
		if (send_udp(s.addr, ev, buf, (u32)n))
			return 1;
		sent++;
	}
	printf("sent %u sources %u\n", sent, single ? 1 :
	       sent < opt.naddr * opt.nport ? sent : opt.naddr * opt.nport);
	return 0;
}

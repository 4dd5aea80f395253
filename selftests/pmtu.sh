#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A path whose MTU is below the sender's link: AF_SPRAY's packets are cut to
# the sender's route MTU, and a router further on cannot forward them whole.
#
#   h1 (10.0.1.1, fd01::1) --- r --- h2 (10.0.2.2, fd02::2)
#            MTU 1500        1500 | 1280        MTU 1280
#
# IPv4 packets leave with DF where they fit the route, as a UDP socket's
# do: r cannot forward them whole and answers Fragmentation Needed (ICMPv6
# Packet Too Big for IPv6, whose routers never fragment), which h1's UDP
# hands to AF_SPRAY's socket (its encap_err_lookup) and applies to the
# route; h1 fragments what it sends larger than the path MTU from then
# on, the connection the error names cuts its next messages to it, and a
# connection opened later its packets from the start. (Before, IPv4
# packets left without DF and r fragmented every one; IPv6's full packets
# were lost and the messages failed with ETIMEDOUT; later, a connection
# stayed fragmented for its life.) Where a filter eats the Fragmentation
# Needed (a black hole), a connection whose large packets are lost three
# times sends them without DF, and r fragments them; over IPv6 the route
# takes IPv6's least MTU, 1280, and h1 fragments to it. Only while the
# peer answers a small packet: a peer gone is no black hole.
source "$(dirname "$0")/lib.sh"
SC=$(dirname "$here")/userspace/sprayctl/sprayctl
tmp=$(mktemp -d)
trap 'spray_lib_cleanup_ns; rm -rf "$tmp"' EXIT

spray_lib_setup_ns h1 r h2 || { spray_lib_fail "setup namespaces"; spray_lib_tap_end; }
ip link add eth0 netns "$h1" type veth peer name left netns "$r"
ip link add eth0 netns "$h2" type veth peer name right netns "$r"
ip -n "$h1" addr add 10.0.1.1/24 dev eth0
ip -n "$h1" addr add fd01::1/64 dev eth0 nodad
ip -n "$r" addr add 10.0.1.2/24 dev left
ip -n "$r" addr add fd01::2/64 dev left nodad
ip -n "$r" addr add 10.0.2.1/24 dev right
ip -n "$r" addr add fd02::1/64 dev right nodad
ip -n "$h2" addr add 10.0.2.2/24 dev eth0
ip -n "$h2" addr add fd02::2/64 dev eth0 nodad
ip -n "$r" link set right mtu 1280
ip -n "$h2" link set eth0 mtu 1280
for l in "$h1 eth0" "$h2 eth0" "$r left" "$r right"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
ip -n "$h1" route add default via 10.0.1.2
ip -n "$h1" -6 route add default via fd01::2
ip -n "$h2" route add default via 10.0.2.1
ip -n "$h2" -6 route add default via fd02::1
spray_lib_busywait 10000 ip netns exec "$h1" ping -c1 -W1 10.0.2.2 >/dev/null
spray_lib_busywait 10000 ip netns exec "$h1" ping -6 -c1 -W1 fd02::2 >/dev/null

# spray_stat NAME: an AF_SPRAY counter of h1
spray_stat() { ip netns exec "$h1" "$SC" -t stats | awk -F'\t' -v k="$1" '$1 == k { print $2 }'; }
# counter NS NAME: a kernel counter of the namespace (nstat's name)
counter() {
	ip netns exec "$1" nstat -asz "$2" | awk -v k="$2" '$1 == k { print $2 }'
}
# xfer SRC DST PORT N [LEN]: N messages of LEN bytes (20,000) h1 -> h2,
# each once, intact
xfer() {
	spray_lib_hold_start RX ip netns exec "$h2" "$here/spray_msg" recv "$2" "$3" "$4" \
		"fixed:${5:-20000}" "$3" $((60 * ${SPRAY_TIMEOUT_MULT:-1}))
	ip netns exec "$h1" "$here/spray_msg" send "$1" 0 "$2" "$3" "$4" "fixed:${5:-20000}" "$3" \
		>"$tmp/send" 2>&1
	local rc=$?
	sed 's/^/# sender: /' "$tmp/send" | tail -n 8
	spray_lib_hold_stop RX && [ $rc -eq 0 ]
}

# since NAME NS COUNTER: NAME set to what COUNTER of NS (nstat's name)
# counted since the last "since NAME"; NS "-": h1's AF_SPRAY counter
declare -A base
since() {
	local v
	if [ "$2" = - ]; then v=$(spray_stat "$3"); else v=$(counter "$2" "$3"); fi
	printf -v "$1" %d $(( v - ${base[$1]:-0} ))
	base[$1]=$v
}
since rf "$r" IpFragCreates; since fn "$r" IcmpOutDestUnreachs
since hf "$h1" IpFragCreates; since ie - icmp-errors
spray_lib_check "IPv4: 20 messages of 20,000 bytes through the 1280-byte link" \
	xfer 10.0.1.1 10.0.2.2 7000 20
since rf "$r" IpFragCreates; since fn "$r" IcmpOutDestUnreachs
spray_lib_check "  with DF: r fragmented none ($rf), said Fragmentation Needed ($fn)" \
	[ "$rf" -eq 0 -a "$fn" -gt 0 ]
since ie - icmp-errors
spray_lib_check "  AF_SPRAY took them (icmp-errors +$ie)" [ "$ie" -gt 0 ]
ip -n "$h1" route get 10.0.2.2 | sed 's/^/# /'
spray_lib_check "  h1's route to h2 learnt the path MTU" \
	bash -c "ip -n '$h1' route get 10.0.2.2 | grep -qw 'mtu 1280'"
since hf "$h1" IpFragCreates
spray_lib_check "  and h1 fragmented the packets already cut larger ($hf fragments)" \
	[ "$hf" -gt 0 ]

# opened_after WHAT PORT: IPv4, a connection opened after h1's route to h2
# learnt the path MTU: 20 messages, none of its packets fragmented
opened_after() {
	since hf "$h1" IpFragCreates; since rf "$r" IpFragCreates
	since fn "$r" IcmpOutDestUnreachs
	spray_lib_check "IPv4$1, a connection opened after: 20 messages" \
		xfer 10.0.1.1 10.0.2.2 "$2" 20
	since hf "$h1" IpFragCreates; since rf "$r" IpFragCreates
	since fn "$r" IcmpOutDestUnreachs
	spray_lib_check "  its packets fit: fragmented by h1 $hf, r $rf; Fragmentation Needed $fn" \
		[ "$hf" -eq 0 -a "$rf" -eq 0 -a "$fn" -eq 0 ]
}
opened_after "" 7001

# A black hole: r's ICMP towards h1 dropped (as by a filter on the way),
# h2 at an address h1 has learnt no path MTU for. The large packets die
# at r with DF, nothing says why; the third loss of one turns DF off for
# its connection (pmtu-blackholes), and r fragments them from then on.
ip -n "$h2" addr add 10.0.2.3/24 dev eth0
tc -n "$r" qdisc add dev left root handle 1: prio
tc -n "$r" filter add dev left parent 1: protocol ip prio 1 u32 match ip protocol 1 0xff \
	action drop
since bh - pmtu-blackholes; since hin "$h1" IcmpInDestUnreachs
spray_lib_check "IPv4 through a black hole: 20 messages of 20,000 bytes" \
	xfer 10.0.1.1 10.0.2.3 7002 20
since hin "$h1" IcmpInDestUnreachs
spray_lib_check "  no Fragmentation Needed reached h1 ($hin)" [ "$hin" -eq 0 ]
since bh - pmtu-blackholes
spray_lib_check "  the connection suspected it: pmtu-blackholes +$bh (1)" [ "$bh" -eq 1 ]
since rf "$r" IpFragCreates
spray_lib_check "  its packets left without DF: r fragmented them ($rf)" [ "$rf" -gt 0 ]

# The same over IPv6, r's Packet Too Bigs dropped (not the neighbour
# discovery): the routes to h2 take IPv6's least MTU, 1280, as if the
# Packet Too Big had come, and h1 fragments to it.
ip -n "$h2" addr add fd02::3/64 dev eth0 nodad
tc -n "$r" filter add dev left parent 1: protocol ipv6 prio 2 u32 match ip6 protocol 58 0xff \
	match u8 2 0xff at 40 action drop
since bh - pmtu-blackholes; since ptb "$h1" Icmp6InPktTooBigs
since h6f "$h1" Ip6FragCreates
spray_lib_check "IPv6 through a black hole: 20 messages of 20,000 bytes" \
	xfer fd01::1 fd02::3 7008 20
since ptb "$h1" Icmp6InPktTooBigs
spray_lib_check "  no Packet Too Big reached h1 ($ptb)" [ "$ptb" -eq 0 ]
since bh - pmtu-blackholes
spray_lib_check "  the connection suspected it: pmtu-blackholes +$bh (1)" [ "$bh" -eq 1 ]
ip -n "$h1" -6 route get fd02::3 | sed 's/^/# /'
spray_lib_check "  h1's route to h2 took 1280" \
	bash -c "ip -n '$h1' -6 route get fd02::3 | grep -qw 'mtu 1280'"
since h6f "$h1" Ip6FragCreates
spray_lib_check "  and h1 fragmented to it ($h6f fragments)" [ "$h6f" -gt 0 ]

# Every packet too large for the hole (messages of 10 x 1404 bytes): none
# reaches h2, which never acknowledges the connection; the PROBE that
# tests the suspicion is small, and h2 echoes it though it holds no state
# for its sender: a host that answers, so the hole is taken for one.
ip -n "$h2" addr add fd02::5/64 dev eth0 nodad
since bh - pmtu-blackholes
spray_lib_check "IPv6, every packet too large: 20 messages of 14,040 bytes" \
	xfer fd01::1 fd02::5 7009 20 14040
since bh - pmtu-blackholes
spray_lib_check "  the connection, never acknowledged, suspected it: pmtu-blackholes +$bh (1)" \
	[ "$bh" -eq 1 ]

# A peer gone is no black hole: no host has fd02::4, so its large packets
# are lost as the small PROBE is, and the message fails. The route keeps
# its MTU (before, it took 1280 for ten minutes, for every flow to that
# address, which would be 1280 for a 9000-byte fabric).
since bh - pmtu-blackholes
spray_lib_check "IPv6, a peer gone: a message of 20,000 bytes fails" \
	bash -c "ip netns exec '$h1' env SPRAY_LEN=20000 '$here/spray_msg' fail fd01::1 0 \
		fd02::4 7010 $((60 * ${SPRAY_TIMEOUT_MULT:-1})) >'$tmp/fail' 2>&1"
sed 's/^/# /' "$tmp/fail" | head -n 2
since bh - pmtu-blackholes
spray_lib_check "  not taken for a black hole: pmtu-blackholes +$bh (0)" [ "$bh" -eq 0 ]
ip -n "$h1" -6 route get fd02::4 | sed 's/^/# /'
spray_lib_check "  h1's route to it kept its MTU" \
	bash -c "! ip -n '$h1' -6 route get fd02::4 | grep -qw 'mtu 1280'"
tc -n "$r" qdisc del dev left root

toobig=$(counter "$h1" Icmp6InPktTooBigs); frags=$(counter "$h1" Ip6FragCreates)
icmp=$(spray_stat icmp-errors)
spray_lib_check "IPv6: 20 messages of 20,000 bytes through the 1280-byte link" \
	xfer fd01::1 fd02::2 7003 20
spray_lib_check "  the router said Packet Too Big ($(( $(counter "$h1" Icmp6InPktTooBigs) - toobig )))" \
	[ $(( $(counter "$h1" Icmp6InPktTooBigs) - toobig )) -gt 0 ]
spray_lib_check "  AF_SPRAY took them (icmp-errors +$(( $(spray_stat icmp-errors) - icmp )))" \
	[ $(( $(spray_stat icmp-errors) - icmp )) -gt 0 ]
ip -n "$h1" -6 route get fd02::2 | sed 's/^/# /'
spray_lib_check "  h1's route to h2 learnt the path MTU" \
	bash -c "ip -n '$h1' -6 route get fd02::2 | grep -qw 'mtu 1280'"
spray_lib_check "  and h1 fragmented to it ($(( $(counter "$h1" Ip6FragCreates) - frags )) fragments)" \
	[ $(( $(counter "$h1" Ip6FragCreates) - frags )) -gt 0 ]

frags=$(counter "$h1" Ip6FragCreates); toobig=$(counter "$h1" Icmp6InPktTooBigs)
spray_lib_check "IPv6, a connection opened after: 20 messages" \
	xfer fd01::1 fd02::2 7004 20
spray_lib_check "  its packets fit the path: nothing fragmented, no Packet Too Big" \
	[ "$(counter "$h1" Ip6FragCreates)" = "$frags" -a "$(counter "$h1" Icmp6InPktTooBigs)" = "$toobig" ]

# One connection learns the path MTU: with the route's exception flushed,
# 20 requests of 20,000 bytes, each answered before the next goes. The
# first one's packets meet the router's Packet Too Big and are resent
# fragmented; the requests after it are cut to the path (the connection's
# payload lowered, spray:spray_path_mtu), so h1 fragments about one
# request's packets (15 x 2, and their retransmissions: at most 120 here),
# not every request's (572 before).

# payload_of PORT: sprayctl peers' pkt-payload of h1's connection to [fd02::2]:PORT
payload_of() {
	ip netns exec "$h1" "$SC" -j peers | python3 -c '
import json, sys
print(*[p["pkt-payload"] for p in json.load(sys.stdin) if p["remote"] == "[fd02::2]:'"$1"'"])'
}
ip -n "$h1" -6 route flush cache
spray_lib_hold_start ECHO ip netns exec "$h2" "$here/spray_msg" echo fd02::2 7005 21 \
	$((60 * ${SPRAY_TIMEOUT_MULT:-1}))
frags=$(counter "$h1" Ip6FragCreates)
# (the asker pauses after 20 exchanges, its connection open: a 21st below)
spray_lib_hold_start ASK ip netns exec "$h1" env SPRAY_PAUSE=20 SPRAY_HOLD=1 \
	"$here/spray_msg" ask fd01::1 0 fd02::2 7005 21 20000
n=$(( $(counter "$h1" Ip6FragCreates) - frags ))
payload=$(payload_of 7005)
spray_lib_check "IPv6, one connection, 20 requests of 20,000 bytes answered" \
	grep -q "^paused 20" "$ASK_DIR/out"
spray_lib_check "  the requests after the first cut to the path: h1 fragmented $n (<= 120)" \
	[ "$n" -le 120 ]
spray_lib_check "  sprayctl peers: its packets carry 1280 - 40 - 8 - 48 = 1184 bytes ($payload)" \
	[ "$payload" = 1184 ]

# An open connection follows its route's MTU. B exchanges 1,000-byte
# messages (they fit any path here) with h2 and pauses between them; A,
# another connection to h2, meets the Packet Too Big in between: B's next
# message is cut to the path MTU the route learnt (before, B kept its
# size until an error named it). Then the path widens again (r's link
# back to 1500, h1's learnt MTU flushed, as when it expires after 10
# minutes): the next messages of B and of the asker above are cut to 1500
# again (before, never).
ip -n "$h1" -6 route flush cache
spray_lib_hold_start ECHO2 ip netns exec "$h2" "$here/spray_msg" echo fd02::2 7006 3 \
	$((60 * ${SPRAY_TIMEOUT_MULT:-1}))
spray_lib_hold_start B ip netns exec "$h1" env SPRAY_PAUSE=1 SPRAY_HOLD=1 \
	"$here/spray_msg" ask fd01::1 0 fd02::2 7006 3 1000
p1=$(payload_of 7006)
spray_lib_check "IPv6, B open: its packets carry 1500 - 40 - 8 - 48 = 1404 bytes ($p1)" \
	[ "$p1" = 1404 ]
spray_lib_check "  A meets the Packet Too Big: 1 message of 20,000 bytes" \
	xfer fd01::1 fd02::2 7007 1
echo >&"$B_FD"
spray_lib_busywait 20000 grep -q "paused 2" "$B_DIR/out"
p2=$(payload_of 7006)
spray_lib_check "  B's next message is cut to the path: 1184 bytes ($p2)" [ "$p2" = 1184 ]
ip -n "$r" link set right mtu 1500
ip -n "$h2" link set eth0 mtu 1500
ip -n "$h1" -6 route flush cache
echo >&"$B_FD"
echo >&"$ASK_FD"
spray_lib_busywait 20000 grep -q "^asked" "$B_DIR/out"
spray_lib_busywait 20000 grep -q "^asked" "$ASK_DIR/out"
p3=$(payload_of 7006)
p4=$(payload_of 7005)
spray_lib_check "  the path widened, the route's MTU flushed: B's next one 1404 ($p3)" \
	[ "$p3" = 1404 ]
spray_lib_check "  and the asker's 21st, cut before by its own Packet Too Big: 1404 ($p4)" \
	[ "$p4" = 1404 ]
spray_lib_check "  B's 3 exchanges answered" spray_lib_hold_stop B
spray_lib_check "  the asker's 21 answered" spray_lib_hold_stop ASK
spray_lib_hold_stop ECHO2
spray_lib_hold_stop ECHO

# An IPv4 path of 560 bytes: below IPv4's 576, above the least MTU the
# kernel's routes take (net.ipv4.route.min_pmtu, 552). h1's route learns
# 560 from r's Fragmentation Needed, and a connection opened after cuts
# its packets to it (before, to 576 at least: h1 fragmented every one).
ip -n "$r" link set right mtu 560
ip -n "$h1" route flush cache
since hf "$h1" IpFragCreates; since rf "$r" IpFragCreates
since fn "$r" IcmpOutDestUnreachs
spray_lib_check "IPv4 through a 560-byte link: 5 messages of 20,000 bytes" \
	xfer 10.0.1.1 10.0.2.2 7011 5
since fn "$r" IcmpOutDestUnreachs
ip -n "$h1" route get 10.0.2.2 | sed 's/^/# /'
spray_lib_check "  r said Fragmentation Needed ($fn), h1's route learnt 560" \
	bash -c "[ $fn -gt 0 ] && ip -n '$h1' route get 10.0.2.2 | grep -qw 'mtu 560'"
opened_after ", 560 bytes" 7012

ip netns exec "$h1" "$SC" -t stats | grep -v "	0$" | tr '\n' ' ' | sed 's/^/# h1: /'
echo
spray_lib_tap_end

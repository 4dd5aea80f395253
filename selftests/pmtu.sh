#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A path whose MTU is below the sender's link: AF_SPRAY's packets are cut to
# the sender's route MTU, and a router further on cannot forward them whole.
#
#   h1 (10.0.1.1, fd01::1) --- r --- h2 (10.0.2.2, fd02::2)
#            MTU 1500        1500 | 1280        MTU 1280
#
# IPv4 packets leave without DF: r fragments them. IPv6 routers do not
# fragment: r answers ICMPv6 Packet Too Big, which h1's UDP hands to
# AF_SPRAY's socket (its encap_err_lookup) and applies to the route, and
# h1 fragments what it sends to the path MTU from then on; the connection
# the error names cuts its next messages to it, and a connection opened
# later its packets from the start. (Before, every full packet was lost
# and the messages failed with ETIMEDOUT; later, a connection stayed
# fragmented for its life.)
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
# xfer SRC DST PORT N: N messages of 20,000 bytes h1 -> h2, each once, intact
xfer() {
	spray_lib_hold_start RX ip netns exec "$h2" "$here/spray_msg" recv "$2" "$3" "$4" \
		fixed:20000 "$3" $((60 * ${SPRAY_TIMEOUT_MULT:-1}))
	ip netns exec "$h1" "$here/spray_msg" send "$1" 0 "$2" "$3" "$4" fixed:20000 "$3" \
		>"$tmp/send" 2>&1
	local rc=$?
	sed 's/^/# sender: /' "$tmp/send" | tail -n 8
	spray_lib_hold_stop RX && [ $rc -eq 0 ]
}

frags=$(counter "$r" IpFragCreates)
spray_lib_check "IPv4: 20 messages of 20,000 bytes through the 1280-byte link" \
	xfer 10.0.1.1 10.0.2.2 7000 20
spray_lib_check "  fragmented by the router: no DF ($(( $(counter "$r" IpFragCreates) - frags )) fragments)" \
	[ $(( $(counter "$r" IpFragCreates) - frags )) -gt 0 ]

toobig=$(counter "$h1" Icmp6InPktTooBigs); frags=$(counter "$h1" Ip6FragCreates)
icmp=$(spray_stat icmp-errors)
spray_lib_check "IPv6: 20 messages of 20,000 bytes through the 1280-byte link" \
	xfer fd01::1 fd02::2 7001 20
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
	xfer fd01::1 fd02::2 7002 20
spray_lib_check "  its packets fit the path: nothing fragmented, no Packet Too Big" \
	[ "$(counter "$h1" Ip6FragCreates)" = "$frags" -a "$(counter "$h1" Icmp6InPktTooBigs)" = "$toobig" ]

# One connection learns the path MTU: with the route's exception flushed,
# 20 requests of 20,000 bytes, each answered before the next goes. The
# first one's packets meet the router's Packet Too Big and are resent
# fragmented; the requests after it are cut to the path (the connection's
# payload lowered, spray:spray_path_mtu), so h1 fragments about one
# request's packets (15 x 2, and their retransmissions: at most 120 here),
# not every request's (572 before).
ip -n "$h1" -6 route flush cache
spray_lib_hold_start ECHO ip netns exec "$h2" "$here/spray_msg" echo fd02::2 7003 20 \
	$((60 * ${SPRAY_TIMEOUT_MULT:-1}))
frags=$(counter "$h1" Ip6FragCreates)
# (the asker's socket held open after its 20 exchanges, its connection too)
spray_lib_hold_start ASK ip netns exec "$h1" env SPRAY_HOLD=1 "$here/spray_msg" ask \
	fd01::1 0 fd02::2 7003 20 20000
n=$(( $(counter "$h1" Ip6FragCreates) - frags ))
payload=$(ip netns exec "$h1" "$SC" -j peers | python3 -c '
import json, sys
print(*[p["pkt-payload"] for p in json.load(sys.stdin) if p["remote"] == "[fd02::2]:7003"])')
sed 's/^/# /' "$ASK_DIR/out"
spray_lib_check "IPv6, one connection, 20 requests of 20,000 bytes answered" spray_lib_hold_stop ASK
spray_lib_hold_stop ECHO
spray_lib_check "  the requests after the first cut to the path: h1 fragmented $n (<= 120)" \
	[ "$n" -le 120 ]
spray_lib_check "  sprayctl peers: its packets carry 1280 - 40 - 8 - 48 = 1184 bytes ($payload)" \
	[ "$payload" = 1184 ]
ip netns exec "$h1" "$SC" -t stats | grep -v "	0$" | tr '\n' ' ' | sed 's/^/# h1: /'
echo
spray_lib_tap_end

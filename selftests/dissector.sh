#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Wireshark dissector (userspace/wireshark/spray.lua) under Debian's
# tshark: first on packets built by dissector_check.py from spray-wire.rst
# (every field, SACK and NACK analysis, expert info, the port preference,
# "decode as", the heuristic), then on the wire:
#
#   h1 eth0 ---- sw  p0 ==(netem loss 2%, towards h2)== q0  h2
#   tcpdump          p1 ==(netem loss 2%, towards h2)== q1
#
# A transfer from h1 to h2 loses DATA packets on the way; tcpdump on h1's
# eth0 sees every packet h1 sends (before the loss) and every ACK and NACK
# it gets. What tshark decodes must agree with what the sender's counters
# say (sprayctl -j stats, peers, paths): psns, message ids, fragment
# offsets, retransmissions, packets per entropy value, SACK ranges.
source "$(dirname "$0")/lib.sh"
top=$(dirname "$here")
SC=$top/userspace/sprayctl/sprayctl
LUA=$top/userspace/wireshark/spray.lua
COUNT=40		# messages
SIZE=65536		# bytes each: about 1900 DATA packets in all
RATE=40			# messages a second: tcpdump keeps up under emulation
tmp=$(mktemp -d)
cleanup() {
	[ -n "${TD_PID:-}" ] && kill "$TD_PID" 2>/dev/null
	[ -n "${HFD:-}" ] && exec {HFD}>&-
	[ -n "${RFD:-}" ] && exec {RFD}>&-
	[ -n "${SPID:-}" ] && kill "$SPID" 2>/dev/null
	[ -n "${RPID:-}" ] && kill "$RPID" 2>/dev/null
	spray_lib_cleanup_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

# check_py NAME ARGS...: run dissector_check.py, its "PASS what" / "FAIL
# what: why" lines as TAP; a crash (no FAIL line, yet a failure) fails too
check_py() {
	local name=$1 verdict what rc; shift
	python3 "$here/dissector_check.py" "$@" >"$tmp/$name.out" 2>&1
	rc=$?
	while read -r verdict what; do
		case $verdict in
		PASS) spray_lib_ok "$what" ;;
		FAIL) spray_lib_fail "$what" ;;
		\#*) echo "$verdict $what" ;;
		*) echo "# $verdict $what" ;;
		esac
	done <"$tmp/$name.out"
	if [ $rc -ne 0 ] && ! grep -q "^FAIL" "$tmp/$name.out"; then
		spray_lib_fail "dissector_check.py $1 exited with status $rc"
	fi
}

for t in tshark tcpdump python3; do
	if ! command -v $t >/dev/null; then
		spray_lib_skip_all "the dissector test needs $t (scripts/deps.sh installs it)"
	fi
done
echo "# $(tshark --version 2>/dev/null | head -n 1)"

# ---- 1. built packets
check_py crafted crafted "$LUA" "$tmp"
echo "# built packets checked at ${SECONDS}s"

# ---- 2. a lossy transfer, captured on the sender
spray_lib_setup_fabric 2 || { spray_lib_fail "fabric setup"; spray_lib_tap_end; }
echo "# fabric up at ${SECONDS}s"
for n in "$h1" "$h2"; do
	# a handful of entropy values; connections outlive the checks
	ip netns exec "$n" "$SC" set nr-evs 8 idle-timeout-ms 600000
done
for i in 0 1; do
	ip netns exec "$sw" tc qdisc change dev p$i root netem limit 10000 loss 2%
done

ip netns exec "$h1" tcpdump -i eth0 -n -U -Z root -s 0 -B 16384 \
	-w "$tmp/cap.pcap" "udp port 4797 or icmp" 2>"$tmp/tcpdump.err" &
TD_PID=$!
spray_lib_check "tcpdump listens on h1's eth0" spray_lib_busywait 30000 grep -q "listening on" "$tmp/tcpdump.err"

# Both ends keep their sockets (and so the connection and its counters)
# until their standard input closes: had the receiver gone, a path probe
# of the sender's after the transfer would find no connection there and
# the sender would start a new incarnation (new connection id) before its
# counters are read.
mkfifo "$tmp/rhold"
SPRAY_HOLD=1 ip netns exec "$h2" "$here/spray_msg" recv $H2_ADDR 7000 $COUNT \
	fixed:$SIZE 9 120 <"$tmp/rhold" >"$tmp/recv" 2>&1 &
RPID=$!
exec {RFD}>"$tmp/rhold"
spray_lib_busywait 10000 grep -q ready "$tmp/recv"
mkfifo "$tmp/hold"
SPRAY_HOLD=1 ip netns exec "$h1" "$here/spray_msg" send $H1_ADDR 7001 $H2_ADDR 7000 \
	$COUNT fixed:$SIZE 9 $RATE <"$tmp/hold" >"$tmp/send" 2>&1 &
SPID=$!
exec {HFD}>"$tmp/hold"
spray_lib_check "sender: $COUNT x $SIZE bytes, every one acknowledged" \
	spray_lib_busywait 120000 grep -q "unacked 0 failed 0" "$tmp/send"
spray_lib_check "receiver: every message exactly once and intact" \
	spray_lib_busywait 120000 grep -q "^received $COUNT bytes .* dup 0 bad 0" "$tmp/recv"
sed 's/^/# /' "$tmp/send" "$tmp/recv"

# The sender's counters once everything is acknowledged: DATA no longer
# changes; an ACK or NACK still on its way may (counted again below).
ip netns exec "$h1" "$SC" -j stats >"$tmp/stats.json"
ip netns exec "$h1" "$SC" -j peers >"$tmp/peers.json"
ip netns exec "$h1" "$SC" -j paths >"$tmp/paths.json"
ip netns exec "$h1" "$SC" paths | sed 's/^/# /'
# a ping after them: once tcpdump has written its reply, it has written all
# before; a ping the lossy paths drop (2%) is sent again
written() {
	tcpdump -n -r "$tmp/cap.pcap" icmp 2>/dev/null | grep -q "echo reply" && return 0
	ip netns exec "$h1" ping -c 1 -W 1 $H2_ADDR >/dev/null
	return 1
}
spray_lib_check "the capture holds the whole transfer (the ping after it)" spray_lib_busywait 30000 written
kill -INT $TD_PID
wait $TD_PID
TD_PID=
sed 's/^/# tcpdump: /' "$tmp/tcpdump.err"
spray_lib_check "tcpdump: no packet dropped by the kernel" grep -q "^0 packets dropped by kernel" "$tmp/tcpdump.err"
ip netns exec "$h1" "$SC" -j stats >"$tmp/stats-after.json"
exec {HFD}>&-
HFD=
wait $SPID
SPID=
exec {RFD}>&-
RFD=
wait $RPID
spray_lib_check "receiver: exit status 0" [ $? -eq 0 ]
RPID=

echo "$COUNT $SIZE" >"$tmp/transfer"
echo "# transfer captured at ${SECONDS}s"
check_py live live "$LUA" "$tmp/cap.pcap" "$tmp"
# a failure leaves the capture for a look (scripts/vm.sh -o DIR: DIR/dissector.pcap)
grep -q "^FAIL\|Traceback" "$tmp/live.out" && [ -n "${SPRAY_OUT:-}" ] &&
	cp "$tmp/cap.pcap" "$SPRAY_OUT/dissector.pcap" &&
	cp "$tmp"/*.json "$SPRAY_OUT/"
ip netns exec "$h1" grep "^Udp:" /proc/net/snmp | sed 's/^/# h1 /'
echo "# capture checked at ${SECONDS}s"
spray_lib_tap_end

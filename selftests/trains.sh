#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Trains at MTU 1500 (spray.rst, "Trains"): a message above 4 KiB lies in
# its chunks in slots of one packet each (header room, then payload), so a
# train is one run of memory and takes one skb frag per chunk; with a
# header block and a frag of payload per packet, MAX_SKB_FRAGS (17) held
# a train to 8 packets.
#
#   a 10.96.0.1 eth0 ---- veth, MTU 1500 (9000 in 4.) ---- eth0 10.96.0.2 b
#
# 1. 16 MiB in messages of 64 KiB from a to b: every message arrives
#    intact, exactly once.
# 2. b's veth received fewer skbs than a sent packets by more than 8 to 1:
#    the trains were longer than 8 packets on average (a veth carries a
#    train whole; nothing else crosses it: no IPv6, no ARP); a run that
#    falls short (a stall's RTO shortens the trains) runs once more.
#    The counters say so too: tx-pkts / tx-trains and rx-pkts / rx-trains
#    above 8, neither trains count above the veth's skbs.
# 3. A message whose packets were all sent once in slots is sent again by
#    reference after a loss: 2 MiB through 5% loss, intact.
# 4. At MTU 9000 a slot (8964 bytes) lies across two of its message's
#    32 KiB chunks more often than not, and its payload across two frags
#    of the train: recvmsg() copies it as its two parts. 8 MiB of 64 KiB
#    messages arrive intact, exactly once, nearly all of their packets kept
#    in the skbs they came in (rx-copied under 1 in 20 of rx-pkts; the
#    bench counts 0.0%), not copied on receipt.
source "$(dirname "$0")/lib.sh"
SC=$(dirname "$here")/userspace/sprayctl/sprayctl

spray_lib_setup_ns a b
T=$(mktemp -d)
trap 'spray_lib_cleanup_ns; rm -rf "$T"' EXIT
spray_lib_quiet_veth "$a" 10.96.0.1 "$b" 10.96.0.2
spray_lib_check "the veth carries" spray_lib_busywait 10000 \
	ip netns exec "$a" ping -c1 -W1 10.96.0.2

counter() { ip netns exec "$1" "$SC" -j stats | python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])"; }
rx_skbs() { ip -n "$b" -s -j link show eth0 | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['stats64']['rx']['packets'])"; }

# transfer PORT COUNT SEED: COUNT messages of 64 KiB from a to b, checked
transfer() {
	ip netns exec "$b" "$here/spray_msg" recv 10.96.0.2 "$1" "$2" fixed:65536 "$3" \
		$((120 * ${SPRAY_TIMEOUT_MULT:-1})) >"$T/recv" 2>&1 &
	local recv=$! rc
	ready() { grep -q ready "$T/recv"; }
	spray_lib_busywait 10000 ready
	ip netns exec "$a" "$here/spray_msg" send 10.96.0.1 0 10.96.0.2 "$1" "$2" \
		fixed:65536 "$3" >"$T/send" 2>&1
	rc=$?
	wait $recv || rc=1
	return $rc
}

# 1. and 2. A train goes back to one packet at any loss and grows again
# by one per 64 packets acknowledged: an RTO of the emulator's stalls
# shortens a run's trains, so a run whose average falls short runs once
# more (both are printed, the last one is asserted). Emulated runs gave
# 10.9-12.7 packets a train, once 7.6.
trains_run() {	# trains_run PORT SEED: rc, pkts, skbs, trains, rpkts, rtrains
	local skbs0 pkts0 rto0 trains0 rpkts0 rtrains0
	skbs0=$(rx_skbs)
	pkts0=$(counter "$a" tx-pkts)
	rto0=$(counter "$a" rto)
	trains0=$(counter "$a" tx-trains)
	rpkts0=$(counter "$b" rx-pkts)
	rtrains0=$(counter "$b" rx-trains)
	transfer "$1" 256 "$2"; rc=$?
	skbs=$(($(rx_skbs) - skbs0))
	pkts=$(($(counter "$a" tx-pkts) - pkts0))
	trains=$(($(counter "$a" tx-trains) - trains0))
	rpkts=$(($(counter "$b" rx-pkts) - rpkts0))
	rtrains=$(($(counter "$b" rx-trains) - rtrains0))
	echo "# $pkts packets in $skbs skbs: $(awk "BEGIN { printf \"%.1f\", $pkts / ($skbs ? $skbs : 1) }") a train, $(($(counter "$a" rto) - rto0)) RTOs"
	echo "# counted: tx-pkts $pkts tx-trains $trains, rx-pkts $rpkts rx-trains $rtrains"
}
trains_run 7700 11
[ $rc = 0 ] && [ "$pkts" -le $((8 * skbs)) ] &&
	{ echo "# trains: again"; trains_run 7702 13; }
spray_lib_check "16 MiB arrived intact ($(tail -n 1 "$T/recv"))" [ $rc = 0 ]
spray_lib_check "trains longer than 8 packets on average" [ "$pkts" -gt $((8 * skbs)) ]
# the counters tell it too: the sender's skbs of new data, the receiver's
# skbs that brought data (neither more than the veth carried)
long_trains() {	# long_trains TRAINS PKTS: 0 < TRAINS <= skbs, PKTS > 8 x TRAINS
	[ "$1" -gt 0 ] && [ "$1" -le "$skbs" ] && [ "$2" -gt $((8 * $1)) ]
}
spray_lib_check "tx-pkts / tx-trains above 8 ($pkts / $trains)" \
	long_trains "$trains" "$pkts"
spray_lib_check "rx-pkts / rx-trains above 8 ($rpkts / $rtrains)" \
	long_trains "$rtrains" "$rpkts"
# 3.
tc -n "$a" qdisc add dev eth0 root netem loss 5%
retx0=$(counter "$a" retx-pkts)
transfer 7701 32 12; rc=$?
spray_lib_check "2 MiB through 5% loss arrived intact ($(tail -n 1 "$T/recv"))" [ $rc = 0 ]
retx=$(($(counter "$a" retx-pkts) - retx0))
spray_lib_check "with packets sent again ($retx)" [ "$retx" -gt 0 ]
# 4.
tc -n "$a" qdisc del dev eth0 root
ip -n "$a" link set eth0 mtu 9000
ip -n "$b" link set eth0 mtu 9000
rpkts0=$(counter "$b" rx-pkts)
copied0=$(counter "$b" rx-copied)
transfer 7703 128 14; rc=$?
rpkts=$(($(counter "$b" rx-pkts) - rpkts0))
copied=$(($(counter "$b" rx-copied) - copied0))
spray_lib_check "8 MiB at MTU 9000 arrived intact ($(tail -n 1 "$T/recv"))" [ $rc = 0 ]
kept() { [ "$rpkts" -gt 0 ] && [ $((20 * copied)) -lt "$rpkts" ]; }
spray_lib_check "at MTU 9000 the packets were kept in their skbs ($copied of $rpkts copied)" kept
spray_lib_tap_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a socket has below it is bounded, as TCP's small queues bound a TCP
# socket (spray.rst, "The datapath"):
#
#   a 10.95.0.1 eth0 --[tbf 2 Mbit/s, limit 64 MiB]--> eth0 10.95.0.2 b
#
# Congestion control is off at both ends, so that only the send ring
# (2048 packets) and the bound keep the sender's packets out of a queue
# that would take them all. The link is slower than any sender here, the
# debug kernel's included (which does not fill 10 Mbit/s), so that the
# qdisc fills whatever the machine.
#
# 1. 1.5 MiB from a to b: every message arrives intact; a's qdisc never
#    held more than SPRAY_TSQ_SKBS (64) skbs of the socket, DATA and PROBE
#    (sampled while they go), and held some; the connection waited for
#    them to drain (tx-throttled).
# 2. rmmod while the packets of a closed socket (an orphan) sit in that
#    qdisc, which now holds them (1 kbit/s): their destructor is the
#    module's, so the unload waits for them (it is still going while they
#    are there); once the qdisc is deleted, and they with it, it succeeds;
#    the module is loaded again. The kernel log is checked by run.sh (no
#    warning, no taint).
source "$(dirname "$0")/lib.sh"
SC=$(dirname "$here")/userspace/sprayctl/sprayctl
SKBS=64
COUNT=24
SIZE=65536

spray_lib_setup_ns a b
T=$(mktemp -d)
trap 'spray_lib_cleanup_ns; rm -rf "$T"' EXIT
# nothing but the socket's packets in a's qdisc
spray_lib_quiet_veth "$a" 10.95.0.1 "$b" 10.95.0.2
# burst above a 64 KiB train: tbf would cut a larger skb into packets
# (which no longer belong to the socket) instead of queueing it whole
tc -n "$a" qdisc add dev eth0 root tbf rate 2mbit burst 100kb limit 64mb
# the queue delays the packets by seconds, RTOs (200 ms at most) expire
# meanwhile: what is tested is the bound, not the retry budget
for n in "$a" "$b"; do
	ip netns exec "$n" "$SC" set cc-mode off >/dev/null
	ip netns exec "$n" "$SC" set retry-limit 255 >/dev/null
done
spray_lib_check "the veth carries" spray_lib_busywait 10000 \
	ip netns exec "$a" ping -c1 -W1 10.95.0.2

# the skbs in a's qdisc now ("backlog 123b 4p")
qlen() { tc -n "$a" -s qdisc show dev eth0 | sed -n 's/.*backlog [0-9.]*[KMG]*b \([0-9]*\)p.*/\1/p' | head -n 1; }
counter() { ip netns exec "$1" "$SC" -j stats | python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])"; }

# 1. the bound
ip netns exec "$b" "$here/spray_msg" recv 10.95.0.2 7600 $COUNT fixed:$SIZE 7 60 >"$T/recv" 2>&1 &
recv=$!
ready() { ip netns exec "$b" "$SC" -t sockets | grep -q ":7600"; }
spray_lib_check "receiver bound" spray_lib_busywait 10000 ready
ip netns exec "$a" "$here/spray_msg" send 10.95.0.1 0 10.95.0.2 7600 $COUNT fixed:$SIZE 7 \
	>"$T/send" 2>&1 &
send=$!
max=0 seen=0
while kill -0 $send 2>/dev/null; do
	q=$(qlen)
	[ -n "$q" ] || continue
	[ "$q" -gt "$max" ] && max=$q
	[ "$q" -gt 0 ] && seen=$((seen + 1))
done
wait $send; src=$?
wait $recv; rrc=$?
spray_lib_check "the sender's messages were all acknowledged" [ $src = 0 ]
spray_lib_check "every message arrived intact ($(tail -n 1 "$T/recv"))" [ $rrc = 0 ]
echo "# a's qdisc held at most $max skbs ($seen samples with some)"
spray_lib_check "a's qdisc held the socket's packets while they went" [ $seen -gt 0 ]
spray_lib_check "never more than $SKBS skbs of the socket below it (the qdisc held at most $max)" \
	[ "$max" -le $SKBS ]
thr=$(counter "$a" tx-throttled)
spray_lib_check "the connection waited for them to drain (tx-throttled $thr)" [ "$thr" -gt 0 ]

# 2. rmmod with an orphan's packets in the qdisc, which keeps them (what
# passes is its burst: a few trains)
tc -n "$a" qdisc change dev eth0 root tbf rate 1kbit burst 100kb limit 64mb
ip netns exec "$b" "$here/spray_msg" recv 10.95.0.2 7601 $COUNT fixed:$SIZE 8 60 \
	</dev/null >/dev/null 2>&1 &
recv=$!
ready() { ip netns exec "$b" "$SC" -t sockets | grep -q ":7601"; }
spray_lib_check "receiver bound" spray_lib_busywait 10000 ready
ip netns exec "$a" "$here/spray_msg" send 10.95.0.1 0 10.95.0.2 7601 $COUNT fixed:$SIZE 8 \
	</dev/null >/dev/null 2>&1 &
orphan=$!
queued() { [ "$(qlen)" -gt 0 ]; }
spray_lib_check "a sender's packets in the qdisc" spray_lib_busywait 10000 queued
kill -9 $orphan $recv; wait $orphan $recv 2>/dev/null
refcnt_zero() { [ "$(spray_lib_module_refcnt)" = 0 ]; }
spray_lib_check "its socket closed, the module is free" spray_lib_busywait 5000 refcnt_zero
n=$(qlen)
spray_lib_check "the qdisc still holds its packets ($n skbs)" [ "$n" -gt 0 ]
rmmod spray &
rm=$!
going() { [ "$(cat /sys/module/spray/initstate 2>/dev/null)" = going ]; }
spray_lib_check "rmmod started unloading" spray_lib_busywait 10000 going
waits() { [ "$(qlen)" -gt 0 ] && kill -0 $rm 2>/dev/null && going; }
spray_lib_check "and waits for them ($(qlen) skbs in the qdisc)" waits
tc -n "$a" qdisc del dev eth0 root
wait $rm; rc=$?
spray_lib_check "once they are freed with the qdisc, rmmod succeeds (exit $rc)" \
	[ $rc = 0 -a ! -e /sys/module/spray ]
spray_lib_check "reload" spray_lib_load_spray "${SPRAY_KO:?SPRAY_KO: path of spray.ko}"
spray_lib_tap_end

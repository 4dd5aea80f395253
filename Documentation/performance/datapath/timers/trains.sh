#!/bin/bash
# In the VM: skbs per DATA packet and clock reads, bulk 1 conn, AF_SPRAY and TCP
here=${SPRAY_TREE:-/work/main}
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
CTL=$here/userspace/sprayctl/sprayctl
bench_load_spray "${TR_KO:-$here/build/$(uname -r)/spray.ko}" || exit 1
perf probe -q -a ktime_get 2>$OUT/probe.err || echo "probe failed" >> $OUT/probe.err
port=7600
bench_setup_ns A B
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.201.0.1/24 dev eth0
ip -n "$B" addr add 10.201.0.2/24 dev eth0
ip -n "$A" link set eth0 up
ip -n "$B" link set eth0 up
bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
for mtu in ${TR_MTUS:-1500}; do
ip -n "$A" link set eth0 mtu $mtu; ip -n "$B" link set eth0 mtu $mtu
for cfg in ${TR_CFGS:-default}; do
if [ "$cfg" != default ]; then for ns in $A $B; do ip netns exec $ns $CTL set ${cfg//:/ } || echo "set $cfg failed"; done; fi
for rep in $(seq ${TR_REPS:-1}); do
for tp in ${TR_TPS:-spray tcp}; do
for c in ${TR_CONNS:-1}; do
	port=$((port + 1))
	tag=$tp-$mtu-$c-${cfg//:/_}-$port
	ip netns exec $A $CTL -j stats > $OUT/st0-A-$tag.json 2>/dev/null
	ip netns exec $B $CTL -j stats > $OUT/st0-B-$tag.json 2>/dev/null
	perf stat -a -x, -o $OUT/pstat-$tag.txt -e net:net_dev_xmit,net:netif_receive_skb,probe:ktime_get,timer:hrtimer_expire_entry -- \
		"$DPB" -t $tp -m bulk -c $c -n ${TR_N:-256M} -s 64K -R "$B" -S "$A" -a 10.201.0.2 -p $port -g $((mtu - 28)) -T 600 > $OUT/run-$tag.json
	ip netns exec $A $CTL -j stats > $OUT/st1-A-$tag.json 2>/dev/null
	ip netns exec $B $CTL -j stats > $OUT/st1-B-$tag.json 2>/dev/null
	echo "== $tag"; cat $OUT/run-$tag.json; cat $OUT/pstat-$tag.txt
done; done; done; done; done
ip -all netns delete

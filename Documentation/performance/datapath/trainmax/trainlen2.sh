#!/bin/bash
# trainlen2.sh ROUNDS MTU CONNS KO...: alternating modules, bulk runs, train/ACK counters + CPU per byte
top=/work/main
source $top/scripts/bench/lib.sh
CTL=$top/userspace/sprayctl/sprayctl
R=$1 mtu=$2 c=$3; shift 3
port=7600
for r in $(seq $R); do
 for ko in "$@"; do
  v=$(basename $ko .ko)
  bench_load_spray "$ko" || exit 1
  port=$((port+1))
  bench_setup_ns A B
  ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
  ip -n "$A" addr add 10.201.0.1/24 dev eth0; ip -n "$B" addr add 10.201.0.2/24 dev eth0
  ip -n "$A" link set eth0 mtu $mtu up; ip -n "$B" link set eth0 mtu $mtu up
  bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
  s0=$(ip netns exec $A $CTL -j stats); r0=$(ip netns exec $B $CTL -j stats)
  out=$($top/build/bench-tools/dpbench -t spray -R "$B" -S "$A" -a 10.201.0.2 -p $port -g $((mtu-28)) -T 600 -m bulk -c $c -n 300M -s 64K)
  s1=$(ip netns exec $A $CTL -j stats); r1=$(ip netns exec $B $CTL -j stats)
  echo "$out" > $SPRAY_OUT/$v-$r.json
  python3 - "$v" "$mtu" "$c" "$s0" "$s1" "$r0" "$r1" "$out" <<'PY'
import json,sys
v,mtu,c=sys.argv[1:4]; s0,s1,r0,r1,o=[json.loads(x) for x in sys.argv[4:9]]
d=lambda a,b,k: b[k]-a[k]
print("%s MTU %s conns %s: %.0f Mbit/s %.2f ns/B busy %s; %.1f pkts/train sent, %.1f received; ACKs per 100 pkts %.1f; retx %d"%(v,mtu,c,o["goodput_mbps"],o["cpu_ns_per_byte"],o["cpu_busy_pct"],
 d(s0,s1,"tx-pkts")/max(1,d(s0,s1,"tx-trains")),
 d(r0,r1,"rx-pkts")/max(1,d(r0,r1,"rx-trains")),
 100.0*d(r0,r1,"ack-tx")/max(1,d(r0,r1,"rx-pkts")),d(s0,s1,"retx-pkts")))
PY
  bench_cleanup_ns; ip -all netns delete
  bench_busywait 20000 rmmod spray
 done
done

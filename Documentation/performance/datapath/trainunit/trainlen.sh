#!/bin/bash
# In the VM (SPRAY_VM_CPU=max,-erms): bulk runs of 1 and 16 connections at MTU 1500 and 9000, the train counters of both ends
top=/work/main
source $top/scripts/bench/lib.sh
CTL=$top/userspace/sprayctl/sprayctl
bench_load_spray $top/build/$(uname -r)/spray.ko || exit 1
port=7600
for mtu in 1500 9000; do
  port=$((port+1))
  bench_setup_ns A B
  ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
  ip -n "$A" addr add 10.201.0.1/24 dev eth0; ip -n "$B" addr add 10.201.0.2/24 dev eth0
  ip -n "$A" link set eth0 mtu $mtu up; ip -n "$B" link set eth0 mtu $mtu up
  bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
  for c in 1 16; do
  s0=$(ip netns exec $A $CTL -j stats); r0=$(ip netns exec $B $CTL -j stats)
  out=$($top/build/bench-tools/dpbench -t spray -R "$B" -S "$A" -a 10.201.0.2 -p $port -g $((mtu-28)) -T 600 -m bulk -c $c -n 300M -s 64K)
  port=$((port+1))
  s1=$(ip netns exec $A $CTL -j stats); r1=$(ip netns exec $B $CTL -j stats)
  python3 - "$mtu" "$c" "$s0" "$s1" "$r0" "$r1" "$out" <<'PY'
import json,sys
mtu,c=sys.argv[1:3]; s0,s1,r0,r1,o=[json.loads(x) for x in sys.argv[3:8]]
d=lambda a,b,k: b[k]-a[k]
print("MTU %s conns %s: %.0f Mbit/s; tx-pkts %d tx-trains %d (%.1f a train); rx-pkts %d rx-trains %d (%.1f); ACKs %d (%.1f per train received); retx %d"%(mtu,c,o["goodput_mbps"],
 d(s0,s1,"tx-pkts"),d(s0,s1,"tx-trains"),d(s0,s1,"tx-pkts")/max(1,d(s0,s1,"tx-trains")),
 d(r0,r1,"rx-pkts"),d(r0,r1,"rx-trains"),d(r0,r1,"rx-pkts")/max(1,d(r0,r1,"rx-trains")),
 d(r0,r1,"ack-tx"),d(r0,r1,"ack-tx")/max(1,d(r0,r1,"rx-trains")),d(s0,s1,"retx-pkts")))
PY
  done
  bench_cleanup_ns
done

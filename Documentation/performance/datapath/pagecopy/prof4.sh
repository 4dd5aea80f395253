#!/bin/bash
# prof4.sh ROUNDS KO...: alternating bulk runs under perf; per run symbol sample counts
top=/work/main
source $top/scripts/bench/lib.sh
R=$1; shift
port=7500
for r in $(seq $R); do
 for ko in "$@"; do
  port=$((port+1)); v=$(basename $ko .ko)
  bench_load_spray "$ko" || exit 1
  bench_setup_ns A B
  ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
  ip -n "$A" addr add 10.201.0.1/24 dev eth0; ip -n "$B" addr add 10.201.0.2/24 dev eth0
  ip -n "$A" link set eth0 up; ip -n "$B" link set eth0 up
  bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
  perf record -q -a -F 1999 -e cpu-clock -o /tmp/perf.data -- \
   $top/build/bench-tools/dpbench -t spray -R "$B" -S "$A" -a 10.201.0.2 -p $port -g 1472 -T 600 -m bulk -c 1 -n 300M -s 64K > $SPRAY_OUT/$v-$r.json
  perf report -i /tmp/perf.data --stdio --no-children --sort sym -F overhead,sample,sym 2>/dev/null | grep -v '^#' | grep -v '^$' > $SPRAY_OUT/$v-$r.sym
  bench_cleanup_ns; ip -all netns delete
  bench_busywait 20000 rmmod spray
 done
done

#!/bin/bash
# prof5.sh ROUNDS MTU KO: spray and tcp bulk runs alternating under perf; per-run symbol sample counts
top=/work/main
source $top/scripts/bench/lib.sh
R=$1 MTU=$2 KO=$3
port=7600
bench_load_spray "$KO" || exit 1
bench_setup_ns A B
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.201.0.1/24 dev eth0; ip -n "$B" addr add 10.201.0.2/24 dev eth0
ip -n "$A" link set eth0 mtu $MTU; ip -n "$B" link set eth0 mtu $MTU
ip -n "$A" link set eth0 up; ip -n "$B" link set eth0 up
bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
for r in $(seq $R); do
 for tp in ${TPS:-spray tcp}; do
  port=$((port+1))
  n=300M; [ $tp = tcp ] && n=900M
  perf record -q -a ${PERF_G:-} -F 1999 -e cpu-clock -o /tmp/perf.data -- \
   $top/build/bench-tools/dpbench -t $tp -R "$B" -S "$A" -a 10.201.0.2 -p $port -g $((MTU-28)) -T 600 -m bulk -c 1 -n $n -s 64K > $SPRAY_OUT/$tp-$r.json
  perf report -i /tmp/perf.data --stdio --no-children --sort sym -F sample,sym 2>/dev/null | grep -v '^#' | grep -v '^$' > $SPRAY_OUT/$tp-$r.sym
 done
done
ip netns exec $A $top/userspace/sprayctl/sprayctl stats > $SPRAY_OUT/stats-A.txt
ip netns exec $B $top/userspace/sprayctl/sprayctl stats > $SPRAY_OUT/stats-B.txt
if [ -n "${PERF_G:-}" ]; then
 for s in read_hpet __check_object_size _copy_from_iter spray_rcv_data clear_page_rep get_random_u8 make_kuid ip_route_input_slow; do
  perf report -i /tmp/perf.data --stdio --no-children -G -S $s --percent-limit 0.05 2>/dev/null | grep -v '^$' | head -120 > $SPRAY_OUT/callers-$s.txt
 done
fi

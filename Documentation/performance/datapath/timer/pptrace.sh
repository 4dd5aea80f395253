#!/bin/bash
here=/work/main
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
bench_load_spray "$PP_KO" || exit 1
bench_setup_ns A B
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.201.0.1/24 dev eth0
ip -n "$B" addr add 10.201.0.2/24 dev eth0
ip -n "$A" link set eth0 up
ip -n "$B" link set eth0 up
bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
perf record -a -e timer:hrtimer_start,timer:hrtimer_cancel,timer:hrtimer_expire_entry,irq_vectors:local_timer_entry,net:netif_rx,sched:sched_switch,irq:softirq_entry -o /tmp/p.data -- \
	"$DPB" -t spray -m pp -s 64 -i 300 -d 60 -R "$B" -S "$A" -a 10.201.0.2 -p 7399
perf script -i /tmp/p.data -F cpu,time,event,trace 2>/dev/null > $OUT/trace.txt
wc -l $OUT/trace.txt

#!/bin/bash
# In the VM: ftrace of timer events during a 64 B ping-pong (tracepoints only)
here=${SPRAY_TREE:-/work/main}
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
bench_load_spray "${TR_KO:-$here/build/$(uname -r)/spray.ko}" || exit 1
bench_setup_ns A B
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.201.0.1/24 dev eth0
ip -n "$B" addr add 10.201.0.2/24 dev eth0
ip -n "$A" link set eth0 up
ip -n "$B" link set eth0 up
bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
echo 0 > $T/tracing_on
echo 20000 > $T/buffer_size_kb
echo > $T/trace
for e in timer/hrtimer_start timer/hrtimer_cancel timer/hrtimer_expire_entry irq_vectors/local_timer_entry sched/sched_wakeup net/net_dev_xmit spray/spray_msg_sent spray/spray_msg_received; do
	echo 1 > $T/events/$e/enable || echo "no $e"
done
echo 1 > $T/tracing_on
"$DPB" -t ${TR_TP:-spray} -m pp -s 64 -i 400 -d 60 -R "$B" -S "$A" -a 10.201.0.2 -p 7801 > $OUT/pp.json
echo 0 > $T/tracing_on
cat $OUT/pp.json
cat $T/trace > $OUT/trace.txt
ls $T/events/spray | head -40 > $OUT/spray-events.txt

#!/bin/bash
# In the VM: events per exchange of a 64 B ping-pong, AF_SPRAY vs UDP vs TCP.
here=/work/main
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
CTL=$here/userspace/sprayctl/sprayctl
DPB=$here/build/bench-tools/dpbench
KO=${PP_KO:-$here/build/$(uname -r)/spray.ko}
SIZE=${PP_SIZE:-64}
ITERS=${PP_ITERS:-2000}
ev=sched:sched_wakeup,sched:sched_switch,timer:hrtimer_start,timer:hrtimer_cancel,timer:hrtimer_expire_entry,timer:timer_start,irq:softirq_raise,irq:softirq_entry,irq_vectors:call_function_single_entry,irq_vectors:reschedule_entry,irq_vectors:local_timer_entry,net:net_dev_xmit,net:netif_rx,skb:kfree_skb,skb:consume_skb,syscalls:sys_enter_recvmsg,syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendto,syscalls:sys_enter_poll,syscalls:sys_enter_ppoll,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_write,syscalls:sys_enter_read
bench_load_spray "$KO" || { echo "load failed"; exit 1; }
port=7400
for rep in 1 2; do
for tp in spray udp tcp; do
	bench_setup_ns A B
	ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
	ip -n "$A" addr add 10.201.0.1/24 dev eth0
	ip -n "$B" addr add 10.201.0.2/24 dev eth0
	ip -n "$A" link set eth0 up
	ip -n "$B" link set eth0 up
	bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
	port=$((port + 1))
	[ $tp = spray ] && { ip netns exec "$A" $CTL -j stats > $OUT/st-a0.json; ip netns exec "$B" $CTL -j stats > $OUT/st-b0.json; }
	perf stat -a -x, -e "$ev" -o $OUT/stat-$tp-$rep.txt -- \
		"$DPB" -t $tp -m pp -s $SIZE -i $ITERS -d 60 -R "$B" -S "$A" -a 10.201.0.2 -p $port > $OUT/pp-$tp-$rep.json
	[ $tp = spray ] && { ip netns exec "$A" $CTL -j stats > $OUT/st-a1.json; ip netns exec "$B" $CTL -j stats > $OUT/st-b1.json; }
	python3 - "$OUT/pp-$tp-$rep.json" "$OUT/stat-$tp-$rep.txt" $tp $OUT <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
n = j.get("iters") or j.get("exchanges") or 2010
print(sys.argv[3], "status", j.get("status"), "p50", j.get("p50_us"), "cpu/exch", j.get("cpu_us_per_exchange"), "keys", ",".join(k for k in j if k not in ("status",)))
for line in open(sys.argv[2]):
    f = line.strip().split(",")
    if len(f) > 3 and f[0].replace(".","").isdigit():
        print("  %-45s %8.2f" % (f[2], float(f[0]) / n))
if sys.argv[3] == "spray":
    o = sys.argv[4]
    for side in "ab":
        a = json.load(open(f"{o}/st-{side}0.json")); b = json.load(open(f"{o}/st-{side}1.json"))
        d = {k: b[k] - a.get(k, 0) for k in b if isinstance(b[k], int) and b[k] != a.get(k, 0)}
        print("  stats", side, " ".join("%s=%.2f" % (k, v / n) for k, v in sorted(d.items())))
PY
	ip -all netns delete
done
done

#!/bin/bash
# In the VM: timer events per exchange of a 64 B ping-pong, TCP and UDP
here=${SPRAY_TREE:-/work/main}
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
port=7900
for tp in tcp udp tcp udp; do
	bench_setup_ns A B
	ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
	ip -n "$A" addr add 10.201.0.1/24 dev eth0
	ip -n "$B" addr add 10.201.0.2/24 dev eth0
	ip -n "$A" link set eth0 up
	ip -n "$B" link set eth0 up
	bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
	port=$((port + 1))
	perf stat -a -x, -e timer:hrtimer_start,irq_vectors:local_timer_entry,timer:timer_start,timer:hrtimer_expire_entry -o $OUT/stat.txt -- \
		"$DPB" -t $tp -m pp -s 64 -i 3000 -d 60 -R "$B" -S "$A" -a 10.201.0.2 -p $port > $OUT/pp.json
	python3 - $OUT/pp.json $OUT/stat.txt $tp <<'PY' | tee -a $OUT/tcppp.txt
import json, sys
j = json.load(open(sys.argv[1])); n = j["iters"]
ev = {l.split(",")[2].split(":")[-1]: float(l.split(",")[0]) / n for l in open(sys.argv[2]) if l.count(",") > 3 and l.split(",")[0].isdigit()}
print("pp %s p50 %.1f" % (sys.argv[3], j["p50_us"]), " ".join("%s %.2f" % kv for kv in sorted(ev.items())))
PY
	ip -all netns delete
done

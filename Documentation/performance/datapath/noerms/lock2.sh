#!/bin/bash
# In the VM: bulk runs with the receiving CPU sampled (call graphs), to
# catch what the reader spins on in the runs where it does
here=${SPRAY_TREE:-/work/main}
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
bench_load_spray "$here/build/$(uname -r)/spray.ko" || exit 1
bench_setup_ns A B
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.201.0.1/24 dev eth0
ip -n "$B" addr add 10.201.0.2/24 dev eth0
ip -n "$A" link set eth0 up
ip -n "$B" link set eth0 up
bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
for r in $(seq 1 8); do
	perf record -q -C 1 -g -F 499 -e cpu-clock -o /tmp/perf.data -- \
		"$DPB" -t spray -m bulk -c 1 -n 300M -s 64K -R "$B" -S "$A" -a 10.201.0.2 -p $((7900 + r)) -g 1472 -T 300 > $OUT/run-$r.json
	python3 -c "import json; d=json.load(open('$OUT/run-$r.json')); print('run $r', d['goodput_mbps'], d['cpu_ns_per_byte'], d['cpu_busy_pct'])"
	perf report -i /tmp/perf.data --stdio --no-children -S native_queued_spin_lock_slowpath -G 2>/dev/null | grep -v '^$' | grep -v '^#' | head -60 > $OUT/lock-$r.txt
	perf report -i /tmp/perf.data --stdio --no-children --sort sym -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12 > $OUT/flat-$r.txt
done

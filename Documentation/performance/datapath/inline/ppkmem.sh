#!/bin/bash
# In the VM: 64 B (PP_SIZE) ping-pong, modules A and B alternated, UDP once a
# round; per run: p50, CPU per exchange, allocations and frees per exchange
# (PP_EV: the perf events). PP_A, PP_B: the modules. PP_ROUNDS rounds.
here=${SPRAY_TREE:-/work/main}
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
CTL=$here/userspace/sprayctl/sprayctl
SIZE=${PP_SIZE:-64}
ITERS=${PP_ITERS:-3000}
ev=${PP_EV:-kmem:kmalloc,kmem:kfree,kmem:kmem_cache_alloc,kmem:kmem_cache_free,kmem:mm_page_alloc,kmem:mm_page_free,skb:consume_skb}
port=7400
run() {
	local v=$1 tp=$2
	if [ $tp = spray ]; then
		[ -d /sys/module/spray ] && { ip -all netns delete; bench_busywait 20000 rmmod spray; }
		bench_load_spray "$3" || { echo "load failed"; return 1; }
	fi
	bench_setup_ns A B
	ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
	ip -n "$A" addr add 10.201.0.1/24 dev eth0
	ip -n "$B" addr add 10.201.0.2/24 dev eth0
	ip -n "$A" link set eth0 up
	ip -n "$B" link set eth0 up
	bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
	port=$((port + 1))
	if [ "${PP_MODE:-pp}" = bulk ]; then
		args=(-m bulk -n 100M -s 64K -c ${PP_CONNS:-1} -g 1472 -T 600)
	else
		args=(-m pp -s $SIZE -i $ITERS -d 60)
	fi
	fires() {
		[ "$tp" = spray ] || { echo 0; return; }
		echo $(( $(ip netns exec "$A" $CTL -j stats | python3 -c 'import json,sys; print(json.load(sys.stdin).get("timer-fires", -1))') +
			 $(ip netns exec "$B" $CTL -j stats | python3 -c 'import json,sys; print(json.load(sys.stdin).get("timer-fires", -1))') ))
	}
	f0=$(fires)
	perf stat -a -x, -e "$ev" -o $OUT/stat.txt -- \
		"$DPB" -t $tp "${args[@]}" -R "$B" -S "$A" -a 10.201.0.2 -p $port > $OUT/pp.json
	f1=$(fires)
	python3 - $OUT/pp.json $OUT/stat.txt $v $((f1 - f0)) <<'PY' | tee -a $OUT/ppkmem.txt
import json, sys
j = json.load(open(sys.argv[1]))
n = j.get("iters") or (j.get("bytes", 100 << 20) / 1e6)
ev = {}
for line in open(sys.argv[2]):
    f = line.strip().split(",")
    if len(f) > 3 and f[0].replace(".", "").isdigit():
        ev[f[2].split(":")[-1]] = float(f[0]) / n
print("pp %s %s p50 %.1f p99 %.1f cpu_us %.1f gp %.0f cpuB %.2f" % (
    sys.argv[3], j.get("status"), j.get("p50_us", 0), j.get("p99_us", 0), j.get("cpu_us_per_exchange", 0), j.get("goodput_mbps", 0), j.get("cpu_ns_per_byte", 0)),
    " ".join("%s %.2f" % (k, v) for k, v in sorted(ev.items())))
PY
	ip -all netns delete
}
for r in $(seq ${PP_ROUNDS:-4}); do
	order="A B"; [ $((r % 2)) = 0 ] && order="B A"
	for v in $order ${PP_C:+C}; do
		case $v in A) run A spray $PP_A ;; B) run B spray $PP_B ;; C) run C spray $PP_C ;; esac
	done
	run UDP udp
done

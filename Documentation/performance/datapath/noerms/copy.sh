#!/bin/bash
# In the VM: bulk tcp/spray alternated, copy routine and per-run figures
here=${SPRAY_TREE:-/work/main}
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
grep -o -w -E 'erms|fsrm|rep_good' /proc/cpuinfo | sort | uniq -c
grep -m1 'model name\|vendor' /proc/cpuinfo
bench_load_spray "$here/build/$(uname -r)/spray.ko" || exit 1
bench_setup_ns A B
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.201.0.1/24 dev eth0
ip -n "$B" addr add 10.201.0.2/24 dev eth0
ip -n "$A" link set eth0 up
ip -n "$B" link set eth0 up
bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
port=7800
for r in 1 2 3; do
for tp in tcp spray; do
	port=$((port + 1))
	"$DPB" -t $tp -m bulk -c 1 -n 200M -s 64K -R "$B" -S "$A" -a 10.201.0.2 -p $port -g 1472 -T 300 > $OUT/b-$r-$tp.json
	python3 -c "import json; d=json.load(open('$OUT/b-$r-$tp.json')); print('$r $tp', d['goodput_mbps'], d['cpu_ns_per_byte'], d['status'])"
done
done

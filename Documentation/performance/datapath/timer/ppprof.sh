#!/bin/bash
# In the VM: perf profiles (inclusive) of a 64 B ping-pong, AF_SPRAY and UDP
here=/work/main
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
bench_load_spray "$PP_KO" || exit 1
port=7500
for tp in spray udp spray udp; do
	bench_setup_ns A B
	ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
	ip -n "$A" addr add 10.201.0.1/24 dev eth0
	ip -n "$B" addr add 10.201.0.2/24 dev eth0
	ip -n "$A" link set eth0 up
	ip -n "$B" link set eth0 up
	bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
	port=$((port + 1))
	perf record -q -a -g -F 1999 -e cpu-clock -o /tmp/perf.data -- \
		"$DPB" -t $tp -m pp -s 64 -i 4000 -d 60 -R "$B" -S "$A" -a 10.201.0.2 -p $port > $OUT/pp-$tp-$port.json
	cat $OUT/pp-$tp-$port.json
	perf report -i /tmp/perf.data --stdio --children -g none --sort sym 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 200 > $OUT/children-$tp-$port.txt
	perf report -i /tmp/perf.data --stdio --no-children -g none --sort sym 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 80 > $OUT/self-$tp-$port.txt
	ip -all netns delete
done

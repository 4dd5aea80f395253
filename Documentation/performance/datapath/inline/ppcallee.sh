#!/bin/bash
# In the VM: callee trees of a 64 B ping-pong's entry points, AF_SPRAY and UDP
here=${SPRAY_TREE:-/work/main}
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
bench_load_spray "${PP_KO:-$here/build/$(uname -r)/spray.ko}" || exit 1
port=7600
for tp in ${PP_TPS:-spray udp}; do
	bench_setup_ns A B
	ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
	ip -n "$A" addr add 10.201.0.1/24 dev eth0
	ip -n "$B" addr add 10.201.0.2/24 dev eth0
	ip -n "$A" link set eth0 up
	ip -n "$B" link set eth0 up
	bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
	port=$((port + 1))
	perf record -q -a -g -F 1999 -e cpu-clock -o /tmp/perf.data -- \
		"$DPB" -t $tp -m pp -s 64 -i ${PP_N:-4000} -d 60 -R "$B" -S "$A" -a 10.201.0.2 -p $port > $OUT/cal-$tp-$port.json
	cat $OUT/cal-$tp-$port.json
	perf report -i /tmp/perf.data --stdio --children -g caller,0.2 --sort sym --percent-limit 0.5 \
		2>/dev/null | grep -v '^$' | awk '
		/^ +[0-9.]+% +[0-9.]+% +\[/ {
			keep = $NF ~ /^(spray_(udp_data_ready|conn_rcv|rcv_one|conn_sendmsg|sendmsg|recvmsg|conn_timer|conn_pump|queue_train|xmit_queue)|udp_sendmsg|udp_recvmsg|__udp4_lib_rcv|__x64_sys_recvfrom|__x64_sys_sendto)$/
			n = 0 }
		keep && n++ < 250' > $OUT/callee-$tp-$port.txt
	perf report -i /tmp/perf.data --stdio --children -g none --sort sym 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 200 > $OUT/children-$tp-$port.txt
	ip -all netns delete
done

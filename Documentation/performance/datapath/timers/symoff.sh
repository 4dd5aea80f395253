#!/bin/bash
# In the VM: sample offsets inside the module's functions, bulk 1 conn
here=${SPRAY_TREE:-/work/main}
source "$here/scripts/bench/lib.sh"
OUT=$SPRAY_OUT
DPB=$here/build/bench-tools/dpbench
bench_load_spray "${TR_KO:-$here/build/$(uname -r)/spray.ko}" || exit 1
bench_setup_ns A B
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.201.0.1/24 dev eth0
ip -n "$B" addr add 10.201.0.2/24 dev eth0
ip -n "$A" link set eth0 up mtu ${TR_MTU:-1500}
ip -n "$B" link set eth0 up mtu ${TR_MTU:-1500}
bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
perf record -q -a -F 4999 -e cpu-clock -o /tmp/perf.data -- \
	"$DPB" -t ${TR_TP:-spray} -m ${TR_MODE:-bulk} -c ${TR_C:-1} ${TR_ARGS:--n 512M -s 64K} -R "$B" -S "$A" -a 10.201.0.2 -p 7700 -g $((${TR_MTU:-1500} - 28)) -T 600 > $OUT/run.json
cat $OUT/run.json
perf script -i /tmp/perf.data -F cpu,ip,sym,symoff 2>/dev/null | sed 's/^ *//' | sort | uniq -c | sort -rn > $OUT/symoff.txt
perf report -i /tmp/perf.data --stdio --no-children --sort sym 2>/dev/null | grep -v '^#' | grep -v '^$' | head -200 > $OUT/flat.txt

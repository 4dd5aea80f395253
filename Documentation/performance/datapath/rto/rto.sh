#!/bin/bash
# experiment: does the RTO floor (rto-min-us, sender) cost goodput at 1500?
MTU=${MTU:-1500}; REPS=${REPS:-3}; N=${N:-300M}; RTOS=${RTOS:-"1000 4000 10000"}
cd /work/main/selftests
source ./lib.sh
SC=/work/main/userspace/sprayctl/sprayctl
D=/work/main/build/exp/dpbench
spray_lib_load_spray ${KO:-/work/main/build/$(uname -r)/spray.ko} || echo "load failed"
spray_lib_setup_ns A B
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
ip -n "$A" addr add 10.201.0.1/24 dev eth0
ip -n "$B" addr add 10.201.0.2/24 dev eth0
ip -n "$A" link set eth0 mtu $MTU; ip -n "$B" link set eth0 mtu $MTU
ip -n "$A" link set eth0 up; ip -n "$B" link set eth0 up
spray_lib_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
port=9300
st() { ip netns exec "$1" $SC -j stats; }
one() {	# one LABEL TRANSPORT
	local out
	port=$((port + 1))
	st "$A" > /tmp/a0; st "$B" > /tmp/b0
	out=$($D -t $2 -R "$B" -S "$A" -a 10.201.0.2 -p $port -g $((MTU - 28)) -T 600 -m bulk -c 1 -n $N -s 64K)
	st "$A" > /tmp/a1; st "$B" > /tmp/b1
	python3 - "$1" "$2" "$out" <<'PY'
import json,sys
l,t,out=sys.argv[1:]
d=json.loads(out)
a0,a1,b0,b1=[json.load(open(f)) for f in ('/tmp/a0','/tmp/a1','/tmp/b0','/tmp/b1')]
da=lambda k:a1[k]-a0[k]; db=lambda k:b1[k]-b0[k]
ex=''
if t=='spray':
    ex=' '.join(f"{k}={da(k)}" for k in ('retx-pkts','lost-rack','lost-rto','rto','spurious-loss','path-down'))+f" rx-dups={db('drop-dup') if 'drop-dup' in b1 else '?'}"
print(f"RES {l:8} {t:5} goodput {d['goodput_mbps']:8.1f} Mbit/s cpu {d['cpu_ns_per_byte']:6.2f} ns/B {d['status']} {ex}")
PY
}
for r in $(seq $REPS); do
	for rto in $RTOS; do
		ip netns exec "$A" $SC set rto-min-us $rto
		one rto$rto spray
	done
	one tcp tcp
done

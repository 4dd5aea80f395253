#!/bin/bash
# experiment: why do later transfers in one module load take many RTOs?
# MODES: list of steps; each step: "spray" (transfer), "tcp", "newns" (fresh
# namespaces + veth), "reload" (rmmod/insmod, fresh ns)
MTU=${MTU:-1500}; N=${N:-300M}; STEPS=${STEPS:-"spray tcp spray spray newns spray reload spray"}
cd /work/main/selftests
source ./lib.sh
SC=/work/main/userspace/sprayctl/sprayctl
D=${DPB:-/work/main/build/exp/dpbench}
KO=${KO:-/work/main/build/$(uname -r)/spray.ko}
T=/sys/kernel/tracing; [ -d $T/events ] || mount -t tracefs nodev $T
mkns() {
	spray_lib_setup_ns A B
	ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
	ip -n "$A" addr add 10.201.0.1/24 dev eth0
	ip -n "$B" addr add 10.201.0.2/24 dev eth0
	ip -n "$A" link set eth0 mtu $MTU; ip -n "$B" link set eth0 mtu $MTU
	ip -n "$A" link set eth0 up; ip -n "$B" link set eth0 up
	spray_lib_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
}
trace_on() {
	[ -d $T/events/spray ] || return
	echo 65536 > $T/buffer_size_kb
	echo 1 > $T/events/spray/spray_rto/enable
	echo 1 > $T/events/spray/spray_ev_state/enable; for e in spray_nack_sent spray_pkt_lost spray_retransmit spray_credit; do echo 1 > $T/events/spray/$e/enable; done
	echo 1 > $T/tracing_on
}
load() {
	spray_lib_load_spray $KO || echo "load failed"
	[ -n "$TRACE" ] && trace_on
}
load; mkns
port=9300; i=0
st() { ip netns exec "$1" $SC -j stats; }
one() {	# one TRANSPORT
	local out
	port=$((port + 1)); i=$((i + 1))
	st "$A" > /tmp/a0; st "$B" > /tmp/b0
	[ -d $T ] && echo > $T/trace
	pre=(); [ -n "$PERF" ] && [ $1 = spray ] && pre=(perf record -q -a -g -F 999 -e cpu-clock -o /tmp/perf.data --)
	out=$("${pre[@]}" $D -t $1 -R "$B" -S "$A" -a 10.201.0.2 -p $port -g $((MTU - 28)) -T 600 -m bulk -c 1 -n $N -s 64K)
	st "$A" > /tmp/a1; st "$B" > /tmp/b1
	grep -iE "^protocol|spray|^UDP " /proc/net/protocols | awk '{print "PROTO", $1, $2, $3, $4, $5, $6}' 
	if [ ${#pre[@]} -gt 0 ]; then for cpu in 0 1; do perf report -i /tmp/perf.data --stdio --no-children -g none --sort sym --cpu $cpu 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 40 > $SPRAY_OUT/perf.$i.cpu$cpu.txt; done
	perf report -i /tmp/perf.data --stdio --no-children -g caller,0.5,8 --sort sym --percent-limit 2 2>/dev/null | grep -v '^$' | head -n 800 > $SPRAY_OUT/perf.$i.cg.txt
	for sym in read_hpet copy_user_enhanced_fast_string memset_erms kmem_cache_alloc memcpy_erms clear_page_erms; do perf report -i /tmp/perf.data --stdio --no-children -S $sym -g caller,0.05,callee --percent-limit 0 2>/dev/null | grep -v '^$' | head -n 300 > $SPRAY_OUT/perf.$i.$sym.txt; done; perf annotate -i /tmp/perf.data --stdio -s spray_rcv_one 2>/dev/null | grep -E "^ +[0-9]+\.[0-9]+" | sort -rn | head -40 > $SPRAY_OUT/perf.$i.annot-rcv_one.txt; fi
	[ -d $T ] && [ $1 = spray ] && cp $T/trace $SPRAY_OUT/trace.$i.txt
	python3 - "$i" "$1" "$out" <<'PY'
import json,sys
l,t,out=sys.argv[1:]
d=json.loads(out)
a0,a1,b0,b1=[json.load(open(f)) for f in ('/tmp/a0','/tmp/a1','/tmp/b0','/tmp/b1')]
da=lambda k:a1[k]-a0[k]; db=lambda k:b1[k]-b0[k]
ex=''
if t=='spray':
    ex=' '.join(f"{k}={da(k)}" for k in ('retx-pkts','lost-rack','lost-rto','rto','spurious-loss','path-down'))+f" rx-dups={db('drop-dup') if 'drop-dup' in b1 else '?'}"
if t=='spray':
    import sys as _s
    for nm,x0,x1 in (('A',a0,a1),('B',b0,b1)):
        dd={k:x1[k]-x0[k] for k in x1 if isinstance(x1[k],(int,float)) and x1[k]!=x0.get(k)}
        print(f"DELTA {l} {nm} {dd}")
print(f"RES {l:3} {t:5} busy {d['cpu_busy_pct']} goodput {d['goodput_mbps']:8.1f} Mbit/s cpu {d['cpu_ns_per_byte']:6.2f} ns/B {d['status']} {ex}")
PY
}
for s in $STEPS; do
	case $s in
	spray|tcp) one $s ;;
	newns) ip -all netns delete; mkns; echo "RES --- newns" ;;
	reload) ip -all netns delete
		for k in $(seq 100); do rmmod spray 2>/dev/null && break; sleep 0.2; done
		load; mkns; echo "RES --- reload" ;;
	esac
done

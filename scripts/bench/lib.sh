# SPDX-License-Identifier: GPL-2.0
# Helpers of the benchmark scripts (sourced inside the VM by suite.sh and
# incast.sh; fabric.sh builds on them). The benchmarks' own, apart from the
# selftests' library (selftests/lib.sh) so that either may change alone.
# Every helper is bench_*; $top is the repository.

BENCH_NS=()

# bench_setup_ns VAR...: namespaces with random suffixes, names in VARs;
# bench_cleanup_ns deletes every one made here (and those fabric.sh adds
# to BENCH_NS).
bench_setup_ns() {
	local v name
	for v in "$@"; do
		name="$v-$(mktemp -u XXXXXX)"
		ip netns add "$name" || return 1
		ip -n "$name" link set lo up
		BENCH_NS+=("$name")
		eval "$v=$name"
	done
}

bench_cleanup_ns() {
	local n
	for n in "${BENCH_NS[@]}"; do ip netns del "$n" 2>/dev/null; done
	BENCH_NS=()
}

# bench_busywait TIMEOUT_MS command...: poll until the command succeeds.
bench_busywait() {
	local timeout=$1 start now; shift
	start=$(date +%s%3N)
	while :; do
		"$@" && return 0
		now=$(date +%s%3N)
		[ $((now - start)) -ge "$timeout" ] && return 1
		sleep 0.05
	done
}

bench_not() { ! "$@"; }

# bench_load_spray KO: insmod with the modules it depends on loaded first.
bench_load_spray() {
	local dep
	for dep in $(modinfo -F depends "$1" | tr , ' '); do
		modprobe "$dep" || return 1
	done
	insmod "$1"
}

# bench_setup_dumbbell N RATE_MBIT TARGET_MS BDP: N senders, one receiver,
# one shaped bottleneck (incast.sh)
#
#   s1 e0 --- a1 \
#   s2 e0 --- a2  \              bottleneck: tbf RATE, then an ECN-marking
#   ...            sw  b0 ------ e0 r     AQM (fq_codel, one queue, target
#   sN e0 --- aN  /              TARGET_MS, interval 10 x target)
#   10.3.i.1      10.3.i.254   10.4.0.254 - 10.4.0.1
#
# The senders' links and every reverse path are fast (veth); only sw's
# egress towards r is shaped. Offloads are off: the shaper and the AQM see
# wire-size packets. Every namespace gets bdp-bytes BDP and TCP ECN. Sets
# $sw $r, S[1..N] (namespace names) and R_ADDR.
R_ADDR=10.4.0.1
bench_setup_dumbbell() {
	local n=$1 rate=$2 target=$3 bdp=$4 i s
	S=()
	bench_setup_ns sw r || return 1
	ip link add b0 netns "$sw" type veth peer name e0 netns "$r"
	ip -n "$sw" addr add 10.4.0.254/24 dev b0
	ip -n "$r" addr add $R_ADDR/24 dev e0
	ip -n "$sw" link set b0 up
	ip -n "$r" link set e0 up
	ip -n "$r" route add default via 10.4.0.254
	for i in $(seq 1 "$n"); do
		bench_setup_ns s || return 1
		S[$i]=$s
		ip link add e0 netns "$s" type veth peer name a$i netns "$sw"
		ip -n "$s" addr add 10.3.$i.1/24 dev e0
		ip -n "$sw" addr add 10.3.$i.254/24 dev a$i
		ip -n "$s" link set e0 up
		ip -n "$sw" link set a$i up
		ip -n "$s" route add default via 10.3.$i.254
		ip netns exec "$s" ethtool -K e0 gso off tso off gro off >/dev/null 2>&1
		ip netns exec "$sw" ethtool -K a$i gso off tso off gro off >/dev/null 2>&1
	done
	ip netns exec "$sw" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$sw" ethtool -K b0 gso off tso off gro off >/dev/null 2>&1
	ip netns exec "$r" ethtool -K e0 gso off tso off gro off >/dev/null 2>&1
	# a burst of 16 KB: the emulator's timers are coarse, a smaller bucket
	# would leave the link idle between them
	ip netns exec "$sw" tc qdisc add dev b0 root handle 1: tbf \
		rate "${rate}mbit" burst 16k limit 3000000 || return 1
	ip netns exec "$sw" tc qdisc add dev b0 parent 1:1 handle 10: fq_codel \
		flows 1 ecn target "${target}ms" interval "$((target * 10))ms" \
		limit 1000 || return 1
	for s in "$r" "${S[@]}"; do
		ip netns exec "$s" "$top/userspace/sprayctl/sprayctl" set \
			bdp-bytes "$bdp" || return 1
		ip netns exec "$s" sysctl -qw net.ipv4.tcp_ecn=1
	done
	bench_busywait 10000 ip netns exec "${S[1]}" ping -c1 -W1 $R_ADDR >/dev/null
}

# bench_bottleneck_stats: "sent_pkts dropped_pkts" of the dumbbell's AQM
bench_bottleneck_stats() {
	ip netns exec "$sw" tc -s qdisc show dev b0 | awk '
		$1 == "qdisc" { q = $2 }
		q == "fq_codel" && /Sent/ { s = $4; d = $7; gsub(",", "", d);
					    print s, d; exit }'
}

# SPDX-License-Identifier: GPL-2.0
# Helpers for the AF_SPRAY shell selftests (sourced). Results are TAP lines
# that selftests/run.sh counts. Every helper is spray_lib_*, the library's
# own state SPRAY_LIB_* or spray_lib_*; what a helper sets for its caller
# (namespace names, addresses) is named where the helper is. Exit status
# as kselftest's: 0 passed, 1 failed, 4 (KSFT_SKIP) skipped as a whole.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SPRAY_LIB_NS=()
SPRAY_LIB_HOLD_FDS=()
SPRAY_LIB_FAILED=0
spray_lib_tap_n=0
# kselftest's exit status of a test that could not run
SPRAY_LIB_KSFT_SKIP=4

spray_lib_ok()   { spray_lib_tap_n=$((spray_lib_tap_n + 1)); echo "ok $spray_lib_tap_n $*"; }
spray_lib_fail() { spray_lib_tap_n=$((spray_lib_tap_n + 1)); echo "not ok $spray_lib_tap_n $*"; SPRAY_LIB_FAILED=1; }
spray_lib_skip() { spray_lib_tap_n=$((spray_lib_tap_n + 1)); echo "ok $spray_lib_tap_n $* # SKIP"; }
spray_lib_check() {	# spray_lib_check "description" command...
	local what=$1; shift
	if "$@"; then spray_lib_ok "$what"; else spray_lib_fail "$what"; fi
}
spray_lib_not() { ! "$@"; }
# spray_lib_check_speed "description" command...: a check of speed or delay. With
# KSFT_MACHINE_SLOW=yes (the kselftest convention, set on the debug
# kernel whose KASAN and lockdep slow every packet tenfold) a failure is
# reported, not counted: "ok N ... # SKIP slow machine: not asserted".
spray_lib_check_speed() {
	local what=$1; shift
	if "$@"; then
		spray_lib_ok "$what"
	elif [ "${KSFT_MACHINE_SLOW:-}" = yes ]; then
		spray_lib_skip "$what: slow machine (KSFT_MACHINE_SLOW), not asserted"
	else
		spray_lib_fail "$what"
	fi
}
spray_lib_tap_end() { echo "1..$spray_lib_tap_n"; exit "$SPRAY_LIB_FAILED"; }

# spray_lib_skip_all "why": a prerequisite is missing (a tool, a kernel
# feature): the test ends as skipped, exit status 4 (KSFT_SKIP), unless
# something failed already (then 1).
spray_lib_skip_all() {
	if [ "$spray_lib_tap_n" -eq 0 ]; then
		echo "1..0 # SKIP $*"
	else
		spray_lib_skip "$*"
		echo "1..$spray_lib_tap_n"
	fi
	[ "$SPRAY_LIB_FAILED" = 0 ] || exit 1
	exit $SPRAY_LIB_KSFT_SKIP
}

# spray_lib_setup_ns VAR...: create namespaces with random suffixes, names in VARs.
# spray_lib_quiet_veth NS1 ADDR1 NS2 ADDR2: a veth eth0 between two
# namespaces, addresses ADDR1/24 and ADDR2/24, up, and quiet: nothing but
# what the tests send crosses it (no IPv6: router solicitations, MLD, DAD;
# no ARP: permanent neighbours).
spray_lib_quiet_veth() {
	local n1=$1 a1=$2 n2=$3 a2=$4 n
	ip link add eth0 netns "$n1" type veth peer name eth0 netns "$n2"
	ip -n "$n1" addr add "$a1/24" dev eth0
	ip -n "$n2" addr add "$a2/24" dev eth0
	for n in "$n1" "$n2"; do
		ip netns exec "$n" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	done
	ip -n "$n1" neigh replace "$a2" dev eth0 nud permanent \
		lladdr "$(ip -n "$n2" -br link show eth0 | awk '{print $3}')"
	ip -n "$n2" neigh replace "$a1" dev eth0 nud permanent \
		lladdr "$(ip -n "$n1" -br link show eth0 | awk '{print $3}')"
	ip -n "$n1" link set eth0 up
	ip -n "$n2" link set eth0 up
}

spray_lib_setup_ns() {
	local v name
	for v in "$@"; do
		name="$v-$(mktemp -u XXXXXX)"
		ip netns add "$name" || return 1
		ip -n "$name" link set lo up
		SPRAY_LIB_NS+=("$name")
		eval "$v=$name"
	done
}

spray_lib_cleanup_ns() {
	local n
	for n in "${SPRAY_LIB_NS[@]}"; do ip netns del "$n" 2>/dev/null; done
	SPRAY_LIB_NS=()
}

# spray_lib_busywait TIMEOUT_MS command...: poll until the command succeeds,
# for at most TIMEOUT_MS times SPRAY_TIMEOUT_MULT (a slow kernel's factor,
# 6 on the debug kernel: starting python3 alone took over 5 s there).
spray_lib_busywait() {
	local timeout=$(($1 * ${SPRAY_TIMEOUT_MULT:-1})) start now; shift
	start=$(date +%s%3N)
	while :; do
		"$@" && return 0
		now=$(date +%s%3N)
		[ $((now - start)) -ge "$timeout" ] && return 1
		sleep 0.05
	done
}

# spray_lib_hold_start NAME CMD...: run CMD (spray_hold or alike) in the background
# with its standard input held open, wait for its first line ("ready PORT"
# as a rule), and set NAME_PID, NAME_PORT (the line's words after the
# first) and NAME_FD (close NAME_FD to end it: spray_lib_hold_stop NAME).
# What CMD prints goes to a file; spray_lib_hold_stop shows the lines after
# the first: a failure says what the program saw.
spray_lib_hold_start() {
	local name=$1 d fd word port; shift
	d=$(mktemp -d)
	mkfifo "$d/in"
	: >"$d/out"
	# The child must not inherit the write ends held for earlier children,
	# or those would never see end of file.
	(
		for fd in "${SPRAY_LIB_HOLD_FDS[@]}"; do [ -n "$fd" ] && exec {fd}>&-; done
		exec "$@" <"$d/in" >"$d/out"
	) &
	eval "${name}_PID=$! ${name}_DIR=$d"
	exec {fd}>"$d/in"
	SPRAY_LIB_HOLD_FDS+=("$fd")
	eval "${name}_FD=$fd"
	# until its first line is whole (most say "ready"), or it is gone
	spray_lib_busywait 20000 eval \
		"[ \$(wc -l <'$d/out') -ge 1 ] || ! kill -0 \$${name}_PID 2>/dev/null"
	read -r word port <"$d/out"
	eval "${name}_PORT=\${port:-}"
	[ "$word" = ready ]
}

# spray_lib_hold_stop NAME: close its stdin, wait, show what it printed after
# its first line, return its status
spray_lib_hold_stop() {
	local fd pid d rc
	eval "fd=\$${1}_FD pid=\$${1}_PID d=\$${1}_DIR"
	exec {fd}>&-
	SPRAY_LIB_HOLD_FDS=("${SPRAY_LIB_HOLD_FDS[@]/$fd}")
	wait "$pid"
	rc=$?
	if [ -n "$d" ]; then
		sed -n "2,\$s/^/# $1: /p" "$d/out" | tail -n 20
		rm -rf "$d"
	fi
	return $rc
}

# spray_lib_load_spray KO: insmod with the modules it depends on (udp_tunnel, ...)
# loaded first, as modprobe would.
spray_lib_load_spray() {
	local dep
	for dep in $(modinfo -F depends "$1" | tr , ' '); do
		modprobe "$dep" || return 1
	done
	insmod "$1"
}

spray_lib_module_refcnt() { cat /sys/module/spray/refcnt 2>/dev/null || echo gone; }
spray_lib_module_loaded() { [ -d /sys/module/spray ]; }

# spray_lib_setup_fabric NPATHS: two hosts and a switch, sprayed paths between them
#
#            10.0.1.0/24              p0..pN-1 (10.0.10i.0/24)
#   h1 eth0 ------------- s0  sw  p0 ===================== q0  h2
#   10.0.1.1            .254       p1 ===================== q1  lo 10.0.9.2
#                                  ...                          (ECMP both ways)
#
# sw routes 10.0.9.2 over one ECMP route with N nexthops, h2 routes back the
# same way; the L4 hash policy (fib_multipath_hash_policy=1) makes the UDP
# source port pick the path. Offloads are off so that every counter counts
# wire-size packets. Sets $h1 $sw $h2 (namespace names) and NPATHS.
H1_ADDR=10.0.1.1
H2_ADDR=10.0.9.2
spray_lib_setup_fabric() {
	local i nh1="" nh2=""
	NPATHS=${1:-4}
	spray_lib_setup_ns h1 sw h2 || return 1
	ip link add eth0 netns "$h1" type veth peer name s0 netns "$sw"
	ip -n "$h1" addr add $H1_ADDR/24 dev eth0
	ip -n "$sw" addr add 10.0.1.254/24 dev s0
	ip -n "$h1" link set eth0 up
	ip -n "$sw" link set s0 up
	ip -n "$h1" route add default via 10.0.1.254
	ip -n "$h2" addr add $H2_ADDR/32 dev lo
	for i in $(seq 0 $((NPATHS - 1))); do
		ip link add p$i netns "$sw" type veth peer name q$i netns "$h2"
		ip -n "$sw" addr add 10.0.10$i.1/24 dev p$i
		ip -n "$h2" addr add 10.0.10$i.2/24 dev q$i
		ip -n "$sw" link set p$i up
		ip -n "$h2" link set q$i up
		nh1="$nh1 nexthop via 10.0.10$i.2 dev p$i"
		nh2="$nh2 nexthop via 10.0.10$i.1 dev q$i"
	done
	ip -n "$sw" route add $H2_ADDR/32 $nh1
	ip -n "$h2" route add default $nh2
	for n in "$h1" "$sw" "$h2"; do
		ip netns exec "$n" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0
	done
	for i in $(seq 0 $((NPATHS - 1))); do
		ip netns exec "$h2" sysctl -qw net.ipv4.conf.q$i.rp_filter=0
		ip netns exec "$sw" sysctl -qw net.ipv4.conf.p$i.rp_filter=0
		ip netns exec "$sw" ethtool -K p$i gso off tso off gro off >/dev/null 2>&1
		# a pass-through netem: impairments are changed in place later,
		# and its counters count what each path was given
		ip netns exec "$sw" tc qdisc replace dev p$i root netem limit 10000
		ip netns exec "$h2" tc qdisc replace dev q$i root netem limit 10000
		ip netns exec "$h2" ethtool -K q$i gso off tso off gro off >/dev/null 2>&1
	done
	ip netns exec "$h1" ethtool -K eth0 gso off tso off gro off >/dev/null 2>&1
	# wait until h1 reaches h2 over every path
	spray_lib_busywait 10000 ip netns exec "$h1" ping -c1 -W1 $H2_ADDR >/dev/null
}

# spray_lib_qdisc_stats NS FIELD: "v0 v1 ..." per path p0..pN-1 (sw) or
# q0..qN-1 (h2) of namespace NS:
# FIELD pkt = packets given to the root qdisc (sent + dropped), bytes =
# bytes sent. One tc call per sample: polling stays cheap under emulation.
spray_lib_qdisc_stats() {
	ip netns exec "$1" tc -s qdisc show | awk -v f="$2" -v n="$NPATHS" '
		$1 == "qdisc" && $2 == "netem" {
			dev = ""
			for (i = 1; i <= NF; i++) if ($i == "dev") dev = $(i + 1)
			sub(/^[pq]/, "", dev); cur = dev }
		/Sent/ && cur != "" {
			for (i = 1; i <= NF; i++) {
				if ($i == "pkt") p[cur] += $(i - 1)
				if ($i == "bytes") b[cur] += $(i - 1)
				if ($i == "(dropped") { d = $(i + 1); gsub(",", "", d); p[cur] += d }
			}
			cur = "" }
		END { for (i = 0; i < n; i++) printf "%d ", (f == "bytes" ? b[i] : p[i]); print "" }'
}
spray_lib_paths_tx() { spray_lib_qdisc_stats "$sw" pkt; }
spray_lib_paths_bytes() { spray_lib_qdisc_stats "$sw" bytes; }

# spray_lib_netem_paths "ARGS": the same impairment on every path, both directions
spray_lib_netem_paths() {
	local i
	for i in $(seq 0 $((NPATHS - 1))); do
		ip netns exec "$sw" tc qdisc change dev p$i root netem limit 10000 $1
		ip netns exec "$h2" tc qdisc change dev q$i root netem limit 10000 $1
	done
}

# spray_lib_ev_split FILE: the EVs (UDP source ports) in FILE, a
# "sprayctl -t paths" table of h1's, counted per path of the fabric
# (spray_lib_setup_fabric): "n0 n1 ...", the number of EVs whose packets sw's
# ECMP hash forwards on p0, p1, ... (asked of sw's routing table, with the
# packets' real ports). The sender cannot see the hash: 256 random ports
# give a path 25% +- 2.7 of them, and that, not the sender, is what a path's
# share of a sprayed transfer follows.
spray_lib_ev_split() {
	local ctl=$here/../userspace/sprayctl/sprayctl udp
	udp=$(ip netns exec "$h2" "$ctl" -t show | awk '$1 == "udp-port" { print $2 }')
	awk -v d="$udp" -v s=$H1_ADDR -v t=$H2_ADDR \
		'{ print "route get " t " from " s " iif s0 ipproto udp sport " $2 " dport " d }' "$1" |
		ip -n "$sw" -batch - | awk -v n="$NPATHS" '
		{ for (i = 1; i < NF; i++) if ($i == "dev") { sub("p", "", $(i + 1)); c[$(i + 1)]++ } }
		END { for (i = 0; i < n; i++) printf "%d ", c[i]; print "" }'
}

# spray_lib_share_ok "BEFORE" "AFTER" LO HI: every path carried LO..HI % of the packets
spray_lib_share_ok() {
	python3 - "$1" "$2" "$3" "$4" <<'PY'
import sys
b = [int(x) for x in sys.argv[1].split()]
a = [int(x) for x in sys.argv[2].split()]
d = [y - x for x, y in zip(b, a)]
t = sum(d) or 1
shares = [100.0 * x / t for x in d]
print("# per-path packets", d, "shares %", ["%.1f" % s for s in shares])
sys.exit(0 if all(float(sys.argv[3]) <= s <= float(sys.argv[4]) for s in shares) else 1)
PY
}

# spray_lib_share_follows "BEFORE" "AFTER" "WEIGHTS" TOL: every path's share
# of the packets is within TOL points of its share of WEIGHTS
spray_lib_share_follows() {
	python3 - "$@" <<'PY'
import sys
b, a, w = ([int(x) for x in v.split()] for v in sys.argv[1:4])
d = [y - x for x, y in zip(b, a)]
t, tw = sum(d) or 1, sum(w) or 1
got = [100.0 * x / t for x in d]
want = [100.0 * x / tw for x in w]
print("# per-path share %", ["%.1f" % g for g in got], "EV share %", ["%.1f" % x for x in want])
sys.exit(0 if all(abs(g - x) <= float(sys.argv[4]) for g, x in zip(got, want)) else 1)
PY
}

# spray_lib_setup_dumbbell N RATE_MBIT TARGET_MS BDP: N senders, one receiver, one
# shaped bottleneck (congestion control tests and benchmarks)
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
spray_lib_setup_dumbbell() {
	local n=$1 rate=$2 target=$3 bdp=$4 i s
	S=()
	spray_lib_setup_ns sw r || return 1
	ip link add b0 netns "$sw" type veth peer name e0 netns "$r"
	ip -n "$sw" addr add 10.4.0.254/24 dev b0
	ip -n "$r" addr add $R_ADDR/24 dev e0
	ip -n "$sw" link set b0 up
	ip -n "$r" link set e0 up
	ip -n "$r" route add default via 10.4.0.254
	for i in $(seq 1 "$n"); do
		spray_lib_setup_ns s || return 1
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
		ip netns exec "$s" "$here/../userspace/sprayctl/sprayctl" set \
			bdp-bytes "$bdp" || return 1
		ip netns exec "$s" sysctl -qw net.ipv4.tcp_ecn=1
	done
	spray_lib_busywait 10000 ip netns exec "${S[1]}" ping -c1 -W1 $R_ADDR >/dev/null
}

# spray_lib_bottleneck_stats: "sent_pkts dropped_pkts" of the dumbbell's AQM
spray_lib_bottleneck_stats() {
	ip netns exec "$sw" tc -s qdisc show dev b0 | awk '
		$1 == "qdisc" { q = $2 }
		q == "fq_codel" && /Sent/ { s = $4; d = $7; gsub(",", "", d);
					    print s, d; exit }'
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Hostile network input while real traffic runs. An attacker floods a
# receiver with crafted packets (spray_flood: garbage, valid headers with
# absurd fields, new connection ids from thousands of spoofed sources,
# replays, broadcasts) while a verified transfer (spray_msg) runs h1 -> h2.
# For each kind of flood: the transfer completes intact, every crafted
# packet is dropped under its own reason counter (exactly, when nothing
# else can count there: packets lost on the way are subtracted),
# connection state stays under the documented limits (Documentation/
# networking/spray-security.rst), kernel memory stays bounded, and once
# the flood stops and the idle timeout passes, state and memory are back
# to the baseline. Last, the module refuses to unload while traffic runs.
#
#   h1 10.0.1.1 ---- 10.0.1.2 h2 10.0.2.2 ---- 10.0.2.1 ev
#   sender, port 7001          receiver, port 7000  attacker: spoofs
#                              held sockets that    10.66.0.0/16, routed
#                              never read: 7099,    via ev on h2 (so the
#                              7100-7102, 7200-     spoofed packets pass
#                              7205, 0.0.0.0:7300   strict rp_filter)
#
# The script calibrates itself first (how long this kernel takes to make a
# connection): idle timeouts and flood rates follow, so that it asserts the
# same on Debian's kernel and on the much slower debug kernel
# (scripts/debug-kernel.sh). HARDENING_ONLY="4 6" runs only those sections.
source "$(dirname "$0")/lib.sh"
top=$(dirname "$here")
SC=$top/userspace/sprayctl/sprayctl
FLOOD=$here/spray_flood
ko=${SPRAY_KO:-}
tmp=$(mktemp -d)
HOLDS=()
cleanup() {
	local h
	[ -n "${RIN:-}" ] && exec {RIN}>&-
	[ -n "${SIN:-}" ] && exec {SIN}>&-
	for h in "${HOLDS[@]}"; do unhold "$h" 2>/dev/null; done
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	spray_lib_cleanup_ns
	rm -rf "$tmp"
	spray_lib_module_loaded || { [ -n "$ko" ] && spray_lib_load_spray "$ko"; }
}
trap cleanup EXIT

# limits of kernel/conn.h, documented in spray-security.rst
MAX_CONNS=4096
MAX_NET_CONNS=$((4 * MAX_CONNS))
SPOOF=10.66.0.0/16
COUNT=${HARDENING_COUNT:-100}	# messages per real transfer (mix: ~11 KiB each)
# RATE (packets a second of the floods that run beside a transfer), IDLE_MS
# (the idle timeout: longer than a flood that fills a table, short to wait
# for) and LONG_IDLE_MS (section 6) follow from the calibration below
# HARDENING_ONLY="3 9": run only those sections (for development)
want() { [ -z "${HARDENING_ONLY:-}" ] || [[ " $HARDENING_ONLY " == *" $1 "* ]]; }
echo "# t=0"

[ -x "$FLOOD" ] || { spray_lib_fail "spray_flood built ($FLOOD)"; spray_lib_tap_end; }
spray_lib_setup_ns h1 h2 ev || { spray_lib_fail "setup namespaces"; spray_lib_tap_end; }
ip link add eth0 netns "$h1" type veth peer name eth0 netns "$h2"
ip link add eth1 netns "$h2" type veth peer name eth0 netns "$ev"
ip -n "$h1" addr add 10.0.1.1/24 dev eth0
ip -n "$h2" addr add 10.0.1.2/24 dev eth0
ip -n "$h2" addr add 10.0.2.2/24 dev eth1
ip -n "$ev" addr add 10.0.2.1/24 dev eth0
for n in "$h1" "$h2" "$ev"; do ip -n "$n" link set eth0 up; done
ip -n "$h2" link set eth1 up
ip -n "$ev" route add default via 10.0.2.2
ip -n "$ev" route add 224.0.0.0/4 dev eth0
ip -n "$h2" route add $SPOOF via 10.0.2.1
ip netns exec "$h2" sysctl -qw net.ipv4.conf.all.rp_filter=1 \
	net.ipv4.conf.eth1.rp_filter=1
spray_lib_busywait 5000 ip netns exec "$ev" ping -c1 -W1 10.0.1.2 >/dev/null &&
	spray_lib_busywait 5000 ip netns exec "$h1" ping -c1 -W1 10.0.1.2 >/dev/null
spray_lib_check "topology: h1 and ev reach h2" [ $? -eq 0 ]

sc() { local ns=$1; shift; ip netns exec "$ns" "$SC" "$@"; }
# stat NS KEY: one counter of "sprayctl stats"
stat() { sc "$1" -t stats | awk -F'\t' -v k="$2" '$1 == k { print $2 }'; }
# conns NS: connections that exist in NS (opened - closed)
conns() { sc "$1" -t stats | awk -F'\t' '$1 == "conn-open" { o = $2 } $1 == "conn-close" { c = $2 } END { print o - c }'; }
# conns_on NS PORT: connections of the socket bound to spray port PORT
conns_on() { sc "$1" -t peers | awk -F'\t' -v p=":$2" 'index($2, p) && index($2, p) == length($2) - length(p) + 1 { n++ } END { print n + 0 }'; }
# rxq ADDR:PORT: bytes the socket's receive queue holds (charged)
rxq() { sc "$h2" -t sockets | awk -F'\t' -v a="$1" '$1 == a { print $2 }'; }
# lost_on_path IFACE_NS IFACE PEER_NS PEER: packets dropped on a veth
# (backlog full) before AF_SPRAY saw them, and by UDP
lost_on_path() {
	local a b c
	a=$(ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_dropped")
	b=$(ip netns exec "$3" cat "/sys/class/net/$4/statistics/tx_dropped")
	c=$(ip netns exec "$1" cat /proc/net/snmp | awk '/^Udp:/ { if (h) print $4 + $6; h = 1 }')
	echo $((a + b + c))
}
ev_lost() { lost_on_path "$h2" eth1 "$ev" eth0; }
# kmem: kernel memory in use outside the page cache and processes, KiB:
# MemTotal - MemFree - the LRU lists (page cache, anonymous and tmpfs
# pages) - page tables, stacks and per-cpu areas - free pages cached per
# cpu (/proc/zoneinfo "count"). Slab and the pages AF_SPRAY allocates for
# messages (alloc_page) are in it.
kmem() {
	local pcp
	slab_shrink
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo)
	awk -v pcp="$pcp" '{ v[$1] = $2 } END { print v["MemTotal:"] - v["MemFree:"] - v["Active:"] - v["Inactive:"] - v["Unevictable:"] - v["PageTables:"] - v["KernelStack:"] - v["Percpu:"] - pcp }' /proc/meminfo
}
# kmem_settled: kmem once two samples in a row agree within 1 MiB (at most
# 20 samples). One sample can be tens of MiB off while the previous
# test's memory is still being freed (pages counted as free and again in
# the per-cpu lists, read a moment apart): a baseline taken then made
# "back to the baseline" fail by what it was off (CI, 6.1: 4424 KiB at the
# start against 28-29 MiB on every other run).
kmem_settled() {
	local a b i
	a=$(kmem)
	for i in $(seq 20); do
		b=$(kmem)
		[ $((a - b)) -le 1024 ] && [ $((b - a)) -le 1024 ] && break
		a=$b
	done
	echo "$b"
}
# meminfo_snap: the /proc/meminfo fields kmem is made of and those that
# could hide in it (a diagnostic printed when memory does not come back)
meminfo_snap() {
	awk '$1 ~ /^(MemFree|Active|Inactive|Unevictable|Slab|SUnreclaim|KernelStack|PageTables|Percpu|VmallocUsed|AnonPages|Shmem|Mapped|Buffers|Cached):$/ { printf "%s%s ", $1, $2 }' /proc/meminfo
}
# slab_top: the five biggest slab caches, KiB (a diagnostic)
slab_top() {
	awk 'NR > 2 { printf "%s %d\n", $1, $3 * $4 / 1024 }' /proc/slabinfo | sort -k2 -rn | head -5 | tr '\n' ' '
}
slab() { slab_shrink; awk '/^Slab:/ { print $2 }' /proc/meminfo; }
# slab_shrink: every cache gives back its empty slabs (kmem_cache_shrink),
# which on a KASAN kernel also frees what its quarantine holds back of the
# cache's freed objects (megabytes after a flood): what is measured is
# what is allocated
slab_shrink() {
	local f
	for f in /sys/kernel/slab/*/shrink; do echo 1 >"$f"; done 2>/dev/null
}
# On a debug kernel every object is bigger (KASAN's redzones, kmemleak's
# record of it): the memory bounds are twice as loose there.
MEMX=1
if [ -e /sys/kernel/debug/kmemleak ] || grep -qm1 ' __asan_load8$' /proc/kallsyms; then
	MEMX=2
fi

# ---- the real traffic: spray_msg, every message verified by the receiver
RLOG=$tmp/recv.log
mkfifo "$tmp/rin"
recv_start() {	# recv_start SEED: receiver on h2:7000, kept bound after
	: >"$RLOG"
	ip netns exec "$h2" env SPRAY_HOLD=1 "$here/spray_msg" recv 10.0.1.2 \
		7000 "$COUNT" mix "$1" 300 <"$tmp/rin" >"$RLOG" 2>&1 &
	RPID=$!
	exec {RIN}>"$tmp/rin"
	spray_lib_busywait 10000 grep -q ready "$RLOG"
}
recv_stop() {	# the receiver's verdict: all messages, once, intact
	exec {RIN}>&-
	RIN=
	wait "$RPID"
}
send_msgs() {	# send_msgs SEED [RATE]: the sender, h1:7001 -> h2:7000
	ip netns exec "$h1" "$here/spray_msg" send 10.0.1.1 7001 10.0.1.2 \
		7000 "$COUNT" mix "$@" >"$tmp/send.log" 2>&1
}
# send_start SEED RATE: the same in the background, its socket kept open
# after it is done until send_stop, which returns its verdict
mkfifo "$tmp/sin"
send_start() {
	: >"$tmp/send.log"
	ip netns exec "$h1" env SPRAY_HOLD=1 "$here/spray_msg" send 10.0.1.1 \
		7001 10.0.1.2 7000 "$COUNT" mix "$@" <"$tmp/sin" \
		>"$tmp/send.log" 2>&1 &
	SPID=$!
	exec {SIN}>"$tmp/sin"
	# its connection exists on the receiver
	spray_lib_busywait 20000 eval '[ "$(conns_on "$h2" 7000)" -ge 1 ]'
}
send_done() { grep -q "^sent" "$tmp/send.log"; }
send_stop() {
	exec {SIN}>&-
	SIN=
	wait "$SPID"
}

# flood_start NAME NS ARGS...: spray_flood ARGS from NS in the background
# until flood_stop NAME; returns once it runs
FLOODS=()
flood_start() {
	local name=$1 ns=$2; shift 2
	ip netns exec "$ns" "$FLOOD" -r "$RATE" -n 100000000 "$@" \
		>"$tmp/flood.$name" 2>&1 &
	eval "FPID_$name=$!"
	FLOODS+=("$name")
	spray_lib_busywait 20000 grep -q "^flooding" "$tmp/flood.$name"
}
flood_sent() {	# flood_sent LOG: SENT = packets the flood that wrote LOG sent
	SENT=$(awk '/^sent/ { print $2 }' "$1")
	[ -n "$SENT" ] || sed 's/^/# flood: /' "$1"
	SENT=${SENT:-0}
}
flood_stop() {	# flood_stop NAME: end it; SENT_NAME: the packets it sent
	local pid
	eval "pid=\$FPID_$1"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	flood_sent "$tmp/flood.$1"
	eval "SENT_$1=$SENT"
}
# flood_n NS RATE ARGS...: a flood of a given size (-n), in the foreground
flood_n() {
	local ns=$1 rate=$2 t0; shift 2
	t0=$(date +%s%3N)
	ip netns exec "$ns" "$FLOOD" -r "$rate" "$@" >"$tmp/flood.log" 2>&1
	flood_sent "$tmp/flood.log"
	FLOOD_MS=$(( $(date +%s%3N) - t0 ))
	echo "# flood $*: $SENT packets in $FLOOD_MS ms"
}

# under_floods NAME NS "ARGS" [NS "ARGS"]...: a real transfer while each
# (UF_PRE, if set, is run once the receiver is bound)
# spray_flood ARGS runs from its NS (named by its last word, the kind).
# The floods start first and stop when the transfer is done, so they run
# throughout. Sets SENT_kind per flood, LOST (packets lost on the
# attacker's link, all floods together).
SEED=1
LOSTF=ev_lost
under_floods() {
	local name=$1 rc alive=0 lost0 f kinds=(); shift
	SEED=$((SEED + 1))
	recv_start $SEED
	[ -n "${UF_PRE:-}" ] && eval "$UF_PRE"
	lost0=$($LOSTF)
	while [ $# -ge 2 ]; do
		f=${2##* }
		kinds+=("$f")
		# shellcheck disable=SC2086
		flood_start "$f" "$1" $2
		shift 2
	done
	send_msgs $SEED
	rc=$?
	for f in "${kinds[@]}"; do
		eval "kill -0 \$FPID_$f" 2>/dev/null || alive=1
		flood_stop "$f"
	done
	CONNS_7000=$(conns_on "$h2" 7000)
	spray_lib_check "$name: real transfer of $COUNT messages acknowledged under the flood" [ $rc -eq 0 ]
	spray_lib_check "$name: receiver got every message once and intact ($(grep -o 'received.*' "$RLOG"))" recv_stop
	spray_lib_check "$name: the floods ran throughout the transfer" [ $alive -eq 0 ]
	LOST=$(( $($LOSTF) - lost0 ))
}

# counted NS REASON BEFORE N: drop-REASON rose by exactly N (after waiting
# for it: softirq may still be working through the backlog)
reached() { [ $(( $(stat "$1" "drop-$2") - $3 )) -ge "$4" ]; }
counted() {
	spray_lib_busywait 10000 reached "$@"
	[ $(( $(stat "$1" "drop-$2") - $3 )) -eq "$4" ]
}
# counted_at_least NS REASON BEFORE N: real traffic may add to the reason
counted_at_least() { spray_lib_busywait 10000 reached "$@"; }

# hold NAME ADDR PORT: a socket on h2 that never reads; unhold NAME
hold() {
	spray_lib_hold_start "$1" ip netns exec "$h2" "$here/spray_hold" "$2" "$3"
	HOLDS+=("$1")
	eval "[ \"\${${1}_PORT:-}\" = $3 ]"
}
unhold() {
	eval "[ -n \"\${${1}_FD:-}\" ]" || return 0
	spray_lib_hold_stop "$1"
	eval "${1}_FD="
}

# ---- calibration: how long this machine takes to create a connection for
# a spoofed SYN (Debian's kernel under TCG: ~0.1 ms; the debug kernel with
# KASAN, lockdep and kmemleak: ten to a hundred times that). The floods
# that fill a connection table must end before the first connection they
# made expires, whatever the machine; the floods beside a transfer must
# leave it CPU to run.
sc "$h2" set idle-timeout-ms 600000 || spray_lib_fail "sprayctl set idle-timeout-ms"
c0=$(conns "$h2")
spray_lib_check "calibration socket bound on h2:7099" hold C 10.0.1.2 7099
o0=$(stat "$h2" conn-open)
lost0=$(ev_lost)
t0=$(date +%s%3N)
flood_n "$ev" 0 -d 10.0.1.2 -P 7099 -s $SPOOF -a 1000 -n 1000 syn
cal_done() { [ $(( $(stat "$h2" conn-open) - o0 + $(ev_lost) - lost0 )) -ge 1000 ]; }
spray_lib_busywait 600000 cal_done
CAL_MS=$(( $(date +%s%3N) - t0 ))
made=$(( $(stat "$h2" conn-open) - o0 ))
unhold C
# (its connections go with it)
cal_gone() { [ "$(conns "$h2")" -le "$c0" ]; }
spray_lib_check "calibration: $made connections made, gone with their socket" spray_lib_busywait 60000 cal_gone
# microseconds a connection (of the 1000 sent, the veth may drop some):
# for the timeouts, until the counters showed them all (an overestimate by
# the time sprayctl takes to look, safe for a timeout); for the rates, the
# time the flood took to send them (veth hands each packet to the
# receiving namespace in the sender's own system call)
made1=$(( made > 0 ? made : 1 ))
US=$(( CAL_MS * 1000 / made1 ))
US_SEND=$(( FLOOD_MS * 1000 / made1 ))
US_SEND=$(( US_SEND > 0 ? US_SEND : 1 ))
fill_ms() { echo $(( $1 * US / 1000 )); }
max() { echo $(( $1 > $2 ? $1 : $2 )); }
# three times the time to fill a socket (section 4's flood), a namespace
IDLE_MS=$(max 20000 $(( 3 * $(fill_ms $((MAX_CONNS + 1500))) )))
LONG_IDLE_MS=$(max 120000 $(( 3 * $(fill_ms $((MAX_NET_CONNS + 2000))) )))
# floods beside a transfer: at most half of one CPU's time if every packet
# cost what a SYN costs (most cost far less), 300 to 3000 a second
RATE=${HARDENING_RATE:-$(( 500000 / US_SEND ))}
[ "$RATE" -le 3000 ] || RATE=3000
[ "$RATE" -ge 300 ] || RATE=300
echo "# calibration: $made connections in $CAL_MS ms ($US us each; sent in $FLOOD_MS ms, $US_SEND us each): idle timeout $IDLE_MS ms ($LONG_IDLE_MS in section 6), floods at $RATE packets a second"
sc "$h2" set idle-timeout-ms $IDLE_MS
sc "$h1" set idle-timeout-ms $IDLE_MS
spray_lib_check "victim socket bound on h2:7100 (never reads)" hold V 10.0.1.2 7100
KMEM0=$(kmem_settled)
SLAB0=$(slab)
BASE=$(conns "$h2")
echo "# baseline: kernel memory $KMEM0 KiB, slab $SLAB0 KiB, connections $BASE"
echo "# baseline meminfo: $(meminfo_snap)"
idle_back() { [ "$(conns "$h2")" -le "$BASE" ]; }
# back to the baseline, give or take unrelated kernel activity
slab_back() { [ "$(slab)" -le $((SLAB0 + 4096)) ]; }
kmem_back() { [ "$(kmem)" -le $((KMEM0 + 8192)) ]; }
# all_back WHAT: state and memory back to the baseline after the idle timeout
all_back() {
	spray_lib_check "$1: every connection torn down after the idle timeout" \
		spray_lib_busywait $((IDLE_MS * 4)) idle_back
	spray_lib_check "$1: slab back to the baseline ($(slab) KiB, $SLAB0 at the start)" \
		spray_lib_busywait 10000 slab_back
}

# ---- 1. garbage and malformed headers, each kind from its own flood, all
# at once: the parser drops each under its own reason, before any lookup;
# real traffic never has these reasons
if want 1; then
	echo "# section 1 at $SECONDS s"
	PARSE_KINDS="short version type flags port cid len field"
	parse_drops() {
		local k t=0
		for k in $PARSE_KINDS; do
			t=$((t + $(stat "$h2" "drop-$k")))
		done
		echo $((t + $(stat "$h2" no-socket)))
	}
	args=()
	b_all=$(parse_drops)
	# nine floods together at RATE packets a second in all
	r=$((RATE / 9))
	for kind in $PARSE_KINDS; do
		eval "b_$kind=$(stat "$h2" "drop-$kind")"
		args+=("$ev" "-r $r -d 10.0.1.2 -s $SPOOF -a 1000 -p 4 -x $RANDOM $kind")
	done
	# random bytes beside them: they land in any parse reason
	args+=("$ev" "-r $r -d 10.0.1.2 -s $SPOOF -a 1000 -p 4 -x $RANDOM random")
	under_floods malformed "${args[@]}"
	# Packets lost on the way (LOST, usually 0) cannot be told apart by
	# kind: each reason counts at least its kind's packets less LOST, and
	# the total is exact.
	total=$SENT_random
	for kind in $PARSE_KINDS; do
		eval "SENT=\$SENT_$kind"
		total=$((total + SENT))
	done
	spray_lib_busywait 10000 eval '[ $(( $(parse_drops) - b_all )) -ge $((total - LOST)) ]'
	d=$(( $(parse_drops) - b_all ))
	spray_lib_check "malformed: $d counted, all that arrived (sent $total with $SENT_random random, lost on the way $LOST)" \
		[ "$d" -eq $((total - LOST)) ]
	for kind in $PARSE_KINDS; do
		eval "b=\$b_$kind SENT=\$SENT_$kind"
		d=$(( $(stat "$h2" "drop-$kind") - b ))
		spray_lib_check "$kind: $d counted as drop-$kind, $SENT sent" \
			[ "$d" -ge $((SENT - LOST)) -a "$d" -le $((SENT + SENT_random)) ]
	done
fi

# ---- 2. well-formed packets that may not open anything: without SYN, no
# connection state
if want 2; then
	echo "# section 2 at $SECONDS s"
	o0=$(stat "$h2" conn-open)
	b=$(stat "$h2" drop-stale)
	under_floods "nosyn+ctl" "$ev" "-d 10.0.1.2 -s $SPOOF -a 1000 -p 4 nosyn" \
		"$ev" "-d 10.0.1.2 -s $SPOOF -a 1000 -p 4 -S 21000 ctl"
	spray_lib_check "nosyn, ctl: counted as drop-stale" \
		counted_at_least "$h2" stale "$b" $((SENT_nosyn + SENT_ctl - LOST))
	spray_lib_check "nosyn, ctl: no connection opened by them" [ $(( $(stat "$h2" conn-open) - o0 )) -le 2 ]
fi

# ---- 3. absurd sequence numbers on a connection the attacker opened
# (spoofed, half a message): far away, beyond the window, duplicates
if want 3; then
	echo "# section 3 at $SECONDS s"
	CONN="-d 10.0.1.2 -s $SPOOF -a 1 -S 30000 -c 0x77770000"
	for r in stale window dup; do eval "b_$r=$(stat "$h2" "drop-$r")"; done
	# the connection is opened once the receiver is bound
	UF_PRE='flood_n "$ev" 0 $CONN -n 1 open'
	under_floods "psn" "$ev" "$CONN far" "$ev" "$CONN beyond" "$ev" "$CONN dup"
	UF_PRE=
	for kr in far:stale beyond:window dup:dup; do
		kind=${kr%:*} reason=${kr#*:}
		eval "b=\$b_$reason SENT=\$SENT_$kind"
		spray_lib_busywait 10000 reached "$h2" "$reason" "$b" $((SENT - LOST))
		d=$(( $(stat "$h2" "drop-$reason") - b ))
		spray_lib_check "$kind: $d counted as drop-$reason ($SENT sent, $LOST lost on the way)" \
			[ "$d" -ge $((SENT - LOST)) ]
	done
fi

# ---- 4. new connection ids from thousands of spoofed sources at the
# receiver's own socket while it receives: its established connection
# keeps working, state stops at the per-socket limit, the sources beyond
# it count as drop-limit
if want 4; then
	echo "# section 4 at $SECONDS s"
	SEED=$((SEED + 1))
	recv_start $SEED
	# the transfer outlasts the flood: twice the calibrated time to fill
	# the socket, and 20 s at least (5 messages a second)
	send_start $SEED "$(awk -v n="$COUNT" -v ms="$(fill_ms $((MAX_CONNS + 1500)))" \
		'BEGIN { s = 2 * ms / 1000 + 10; if (s < 20) s = 20; printf "%.3f", n / s }')"
	b=$(stat "$h2" drop-limit)
	c0=$(conns "$h2")
	SLAB1=$(slab)
	lost0=$(ev_lost)
	flood_n "$ev" 0 -d 10.0.1.2 -s $SPOOF -a 1500 -p 4 -n $((MAX_CONNS + 1500)) syn
	send_done && running=0 || running=1
	n=$(( $(conns "$h2") - c0 + 1 ))
	grow=$(( $(slab) - SLAB1 ))
	echo "# syn: $n connections on the receiver's socket, slab +$grow KiB ($((grow * 1024 / n)) bytes each); biggest caches: $(slab_top)"
	spray_lib_check "syn: the connections of one socket stop at $MAX_CONNS ($n)" [ "$n" -eq $MAX_CONNS ]
	spray_lib_check "syn: the sources beyond it counted as drop-limit" \
		counted "$h2" limit "$b" $((SENT - $(ev_lost) + lost0 - MAX_CONNS + 1))
	spray_lib_check "syn: their memory is bounded: slab +$grow KiB <= $((MAX_CONNS * 12 * MEMX)) KiB" \
		[ "$grow" -le $((MAX_CONNS * 12 * MEMX)) ]
	spray_lib_check "syn: the real transfer ran while the socket filled up" [ $running = 1 ]
	spray_lib_busywait 120000 send_done
	spray_lib_check "syn: real transfer acknowledged beside $MAX_CONNS spoofed connections ($(cat "$tmp/send.log"))" send_stop
	# (its connections go with the receiver's socket)
	spray_lib_check "syn: receiver got every message once and intact ($(grep -o 'received.*' "$RLOG"))" recv_stop
fi

# ---- 5. state that the idle timeout must take back, at sockets that stay
# open and never read (checked together after one idle timeout):
#  - SYNs from spoofed sources, with half a message each, fill 7100: the
#    half messages must not pin the connections;
#  - absurd message sizes at 7101: 8 MiB messages of which one fragment
#    comes (each charges the receive buffer in full);
#  - many partial messages from one source at 7102 (512 of their 1024
#    bytes come): each takes a page, and the receive buffer must bound the
#    pages, not the bytes
if want 5; then
	echo "# section 5 at $SECONDS s"
	spray_lib_check "sockets bound on h2:7101, 7102 (never read)" \
		eval 'hold V1 10.0.1.2 7101 && hold V2 10.0.1.2 7102'
	c0=$(conns "$h2")
	flood_n "$ev" 0 -d 10.0.1.2 -P 7100 -s $SPOOF -a 1500 -p 4 -n $((MAX_CONNS + 200)) syn
	n=$(( $(conns "$h2") - c0 ))
	spray_lib_check "syn at a held socket: $MAX_CONNS connections ($n)" [ "$n" -eq $MAX_CONNS ]

	f0=$(stat "$h2" rcvbuf-full)
	flood_n "$ev" 0 -d 10.0.1.2 -P 7101 -s $SPOOF -a 200 -n 200 bigmsg
	q=$(rxq 10.0.1.2:7101)
	spray_lib_check "bigmsg: receive queue within SO_RCVBUF + one message ($q)" \
		[ "${q:-0}" -le $((16 * 1024 * 1024 + 8 * 1024 * 1024 + 65536)) ]
	spray_lib_check "bigmsg: the receive buffer was filled" [ "${q:-0}" -ge $((16 * 1024 * 1024)) ]
	spray_lib_check "bigmsg: the messages it refused counted as rcvbuf-full" \
		[ $(( $(stat "$h2" rcvbuf-full) - f0 )) -ge $((SENT - 3)) ]

	k0=$(kmem_settled)
	flood_n "$ev" 0 -d 10.0.1.2 -P 7102 -s $SPOOF -c 0x1234 -n 20000 tinymsg
	grow=$(( $(kmem) - k0 ))
	q=$(rxq 10.0.1.2:7102)
	echo "# tinymsg: receive queue $q bytes, kernel memory +$grow KiB"
	spray_lib_check "tinymsg: kernel memory bounded by the receive buffer (+$grow KiB <= $((24 * MEMX)) MiB)" \
		[ "$grow" -le $((24 * 1024 * MEMX)) ]

	all_back "syn, bigmsg, tinymsg"
	spray_lib_check "bigmsg, tinymsg: the receive queues are empty again" \
		[ "$(rxq 10.0.1.2:7101)" = 0 -a "$(rxq 10.0.1.2:7102)" = 0 ]
	spray_lib_check "kernel memory back to the baseline ($(kmem) KiB, $KMEM0 at the start)" \
		spray_lib_busywait 10000 kmem_back
	kmem_back || echo "# meminfo now: $(meminfo_snap); slab top: $(slab_top)"
	unhold V1
	unhold V2
fi

# ---- 6. the namespace limit: five sockets flooded in turn, packet by
# packet, until the namespace holds 16384 connections; every one beyond
# counts as drop-limit (a longer idle timeout so that none expires; the
# sockets are closed after, and their connections go with them)
if want 6; then
	echo "# section 6 at $SECONDS s"
	sc "$h2" set idle-timeout-ms $LONG_IDLE_MS
	for p in 7201 7202 7203 7204 7205; do
		hold "H$p" 10.0.1.2 $p || spray_lib_fail "hold 10.0.1.2:$p"
	done
	SLAB1=$(slab)
	b=$(stat "$h2" drop-limit)
	c0=$(conns "$h2")
	lost0=$(ev_lost)
	flood_n "$ev" 0 -d 10.0.1.2 -P 7201 -q 5 -s $SPOOF -a 2000 -p 10 -n $((MAX_NET_CONNS + 2000)) syn
	[ $(((MAX_NET_CONNS + 2000) / 5)) -lt $MAX_CONNS ] || spray_lib_fail "namespace: test bug: a socket could fill up"
	n=$(conns "$h2")
	grow=$(( $(slab) - SLAB1 ))
	echo "# namespace: $n connections, slab +$grow KiB"
	spray_lib_check "namespace: connections stop at $MAX_NET_CONNS ($n)" [ "$n" -eq $MAX_NET_CONNS ]
	# (each socket was sent 18384 / 5 < 4096 SYNs: none reached its own
	# limit, the namespace's stopped them)
	spray_lib_check "namespace: the rest counted as drop-limit" \
		counted "$h2" limit "$b" $((SENT - $(ev_lost) + lost0 - (MAX_NET_CONNS - c0)))
	spray_lib_check "namespace: memory bounded: slab +$grow KiB <= $((MAX_NET_CONNS * 12 * MEMX)) KiB" \
		[ "$grow" -le $((MAX_NET_CONNS * 12 * MEMX)) ]
	# local senders are not limited by the namespace: a message still goes out
	# (to a port without a socket: the message fails fast, ECONNREFUSED)
	spray_lib_check "namespace: a local sender still opens a connection" \
		ip netns exec "$h2" "$here/spray_msg" fail 10.0.1.2 7005 10.0.1.1 7009 20
	for p in 7201 7202 7203 7204 7205; do unhold "H$p"; done
	sc "$h2" set idle-timeout-ms $IDLE_MS
	spray_lib_check "namespace: the state goes with the sockets" spray_lib_busywait 20000 idle_back
	spray_lib_check "namespace: slab back to the baseline ($(slab) KiB)" spray_lib_busywait 10000 slab_back
fi

# ---- 7. replays and stale incarnations: a whole one-packet message sent
# 50 times is delivered once; a newer incarnation replaces it; the old one
# replayed afterwards is stale
if want 7; then
	echo "# section 7 at $SECONDS s"
	spray_lib_check "replay socket bound on h2:7200" hold R 10.0.1.2 7200
	m0=$(stat "$h2" rx-msgs)
	d0=$(stat "$h2" drop-dup)
	s0=$(stat "$h2" drop-stale)
	lost0=$(ev_lost)
	flood_n "$ev" 0 -d 10.0.1.2 -P 7200 -s $SPOOF -a 1 -c 0x50000000 -t 1000000 -n 50 replay
	spray_lib_busywait 5000 eval '[ $(( $(stat "$h2" drop-dup) - d0 + $(ev_lost) - lost0 )) -ge 49 ]'
	spray_lib_check "replay: 50 copies, one delivered" [ $(( $(stat "$h2" rx-msgs) - m0 )) -eq 1 ]
	spray_lib_check "replay: the other 49 counted as drop-dup" \
		[ $(( $(stat "$h2" drop-dup) - d0 + $(ev_lost) - lost0 )) -eq 49 ]
	# "stale": a newer incarnation (cid + 1, later timestamp), then the old
	# one's packet 20 times, back to back
	lost0=$(ev_lost)
	flood_n "$ev" 0 -d 10.0.1.2 -P 7200 -s $SPOOF -a 1 -c 0x50000000 -t 1000000 -n 21 stale
	spray_lib_busywait 5000 eval '[ $(( $(stat "$h2" drop-stale) - s0 + $(ev_lost) - lost0 )) -ge 20 ]'
	spray_lib_check "replay: a newer incarnation (later timestamp) is delivered" [ $(( $(stat "$h2" rx-msgs) - m0 )) -eq 2 ]
	spray_lib_check "replay: the old incarnation replayed after it is stale (drop-stale)" \
		[ $(( $(stat "$h2" drop-stale) - s0 + $(ev_lost) - lost0 )) -eq 20 ]
	spray_lib_check "replay: and not delivered" [ $(( $(stat "$h2" rx-msgs) - m0 )) -eq 2 ]
fi

# ---- 8. broadcast and multicast destinations: never state, never answered
if want 8; then
	echo "# section 8 at $SECONDS s"
	spray_lib_check "wildcard socket bound on h2:7300" hold W 0.0.0.0 7300
	for dst in 10.0.2.255 224.0.0.1; do
		b=$(stat "$h2" drop-addr)
		lost0=$(ev_lost)
		m0=$(stat "$h2" rx-msgs)
		flood_n "$ev" 0 -d $dst -P 7300 -s $SPOOF -a 100 -n 500 synfull
		spray_lib_check "to $dst: counted as drop-addr" \
			counted "$h2" addr "$b" $((SENT - $(ev_lost) + lost0))
		spray_lib_check "to $dst: no connection, nothing delivered" \
			[ "$(conns_on "$h2" 7300)" -eq 0 -a "$(stat "$h2" rx-msgs)" = "$m0" ]
	done
fi

# ---- 9. forged acknowledgments at the real sender (from the receiver's
# address and port, a wrong connection id, absurd cum/sack/grant): dropped
# as stale, the transfer does not believe them. The flood runs while the
# sender's socket is open (the sender holds it after it is done).
if want 9; then
	echo "# section 9 at $SECONDS s"
	h1_lost() { lost_on_path "$h1" eth0 "$h2" eth0; }
	SEED=$((SEED + 1))
	recv_start $SEED
	send_start $SEED 20
	b=$(stat "$h1" drop-stale)
	lost0=$(h1_lost)
	flood_start ackcid "$h2" -d 10.0.1.1 -P 7001 -S 7000 ackcid
	spray_lib_busywait 120000 send_done
	spray_lib_check "ackcid: the flood ran throughout the transfer" eval 'kill -0 $FPID_ackcid'
	flood_stop ackcid
	spray_lib_check "ackcid: real transfer acknowledged under the flood ($(cat "$tmp/send.log"))" send_stop
	spray_lib_check "ackcid: receiver got every message once and intact ($(grep -o 'received.*' "$RLOG"))" recv_stop
	spray_lib_check "ackcid: all $SENT_ackcid counted as drop-stale on the sender" \
		counted_at_least "$h1" stale "$b" $((SENT_ackcid - $(h1_lost) + lost0))
fi

# ---- 10. local: unloading the module while traffic runs is refused, the
# traffic is unharmed, and unloading works once every socket is closed
if want 10; then
	echo "# section 10 at $SECONDS s"
	if [ -n "$ko" ]; then
		SEED=$((SEED + 1))
		recv_start $SEED
		send_start $SEED 20
		spray_lib_check "unload during traffic: refused" spray_lib_not rmmod spray 2>/dev/null
		spray_lib_check "unload during traffic: module still loaded" spray_lib_module_loaded
		spray_lib_check "unload during traffic: the transfer was running" spray_lib_not send_done
		spray_lib_busywait 120000 send_done
		spray_lib_check "unload during traffic: transfer acknowledged" send_stop
		spray_lib_check "unload during traffic: every message once and intact" recv_stop
		for h in "${HOLDS[@]}"; do unhold "$h"; done
		refcnt_zero() { [ "$(spray_lib_module_refcnt)" = 0 ]; }
		spray_lib_check "unload: the last socket closed releases the module" spray_lib_busywait 10000 refcnt_zero
		spray_lib_check "unload: rmmod succeeds" rmmod spray
		spray_lib_check "unload: reloads" spray_lib_load_spray "$ko"
	else
		spray_lib_skip "unload during traffic: SPRAY_KO not set"
	fi
fi
spray_lib_tap_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF_SPRAY benchmarks, run INSIDE the test VM (scripts/bench/run.sh boots it).
#
#   scripts/bench/pair.sh [pair] [loss] [down] [rto]     (default: all)
#
# Fabric: selftests/lib.sh setup_fabric 4 (h1 - sw - 4 ECMP paths - h2, L4
# hash, offloads off). Every path, both directions, is shaped the same:
#   root netem (handle 1:, pass-through; impairments are changed in place)
#     -> tbf rate $BENCH_RATE mbit (handle 10:)
#        -> fq_codel ecn (handle 20:)
#
# Scenarios (issue 3 and issue 7):
#   pair   single-pair goodput: raw UDP (ceiling), AF_SPRAY (one socket pair,
#          bulk messages) and TCP 1 flow, each $BENCH_REPS times, TCP 8 flows,
#          MPTCP with one subflow pinned to each path
#   loss   1% loss on path 1 (both directions): AF_SPRAY vs TCP 8 flows
#   down   path 2 black-holed (loss 100%, both directions) $BENCH_FAIL_AT s
#          into the run: AF_SPRAY vs TCP 8 flows; goodput after the failure
#   rto    diagnosis: AF_SPRAY on the healthy fabric with rto-min-us 20000
#
# Each run appends one JSON line to $RES/runs.jsonl; report.py turns them
# into results.md and results.json. $RES is $SPRAY_OUT (the VM's shared
# results directory) or $BENCH_OUT.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/scripts/bench
source "$top/selftests/lib.sh"

RATE=${BENCH_RATE:-10}		# Mbit/s per path
NP=${BENCH_PATHS:-4}
DUR=${BENCH_SECONDS:-12}	# seconds of traffic per run at full capacity
REPS=${BENCH_REPS:-3}
MSG=${BENCH_MSG:-65536}		# AF_SPRAY message size
FAIL_AT=${BENCH_FAIL_AT:-3}
RES=${BENCH_OUT:-${SPRAY_OUT:-/tmp/bench}}
KVER=${SPRAY_KVER:-$(uname -r)}
SCEN=${*:-pair loss down rto}
SPRAY_MSG=$top/selftests/spray_msg
SPRAYCTL=$top/userspace/sprayctl/sprayctl
mkdir -p "$RES"
: >"$RES/runs.jsonl"
T=$(mktemp -d)
SRV_PIDS=()
cleanup() {
	local p
	for p in "${SRV_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	cleanup_ns
	rm -rf "$T"
}
trap cleanup EXIT
log() { echo "bench: $*" >&2; }

load_spray "$top/build/$KVER/spray.ko" || { log "cannot load spray.ko"; exit 1; }
t_setup=$(date +%s)
setup_fabric "$NP" || { log "fabric setup failed"; exit 1; }

# shape: every path, both directions: netem -> tbf -> fq_codel ecn
BURST=${BENCH_BURST:-8k}
shape() {
	local i ns dev
	for i in $(seq 0 $((NP - 1))); do
		for nd in "$sw p$i" "$h2 q$i"; do
			set -- $nd
			ns=$1 dev=$2
			ip netns exec "$ns" tc qdisc del dev "$dev" root 2>/dev/null
			ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: netem limit 10000 || return 1
			ip netns exec "$ns" tc qdisc add dev "$dev" parent 1:1 handle 10: \
				tbf rate "${RATE}mbit" burst "$BURST" latency 200ms || return 1
			ip netns exec "$ns" tc qdisc add dev "$dev" parent 10:1 handle 20: \
				fq_codel ecn || return 1
		done
	done
	# no GRO anywhere on the way: the shaper and the AQM see wire packets
	ip netns exec "$sw" ethtool -K s0 gro off gso off tso off >/dev/null 2>&1
	for n in "$h1" "$h2"; do
		# TCP negotiates ECN, as AF_SPRAY uses it: both see marks, not drops
		ip netns exec "$n" sysctl -qw net.ipv4.tcp_ecn=1
		ip netns exec "$n" ip mptcp limits set subflow 8 add_addr_accepted 8
	done
}
# impair PATH "NETEM ARGS": change path PATH's netem in place, both directions
impair() {
	ip netns exec "$sw" tc qdisc change dev "p$1" root handle 1: netem limit 10000 $2
	ip netns exec "$h2" tc qdisc change dev "q$1" root handle 1: netem limit 10000 $2
}
shape || { log "shaping failed"; exit 1; }
log "fabric ready in $(( $(date +%s) - t_setup )) s: $NP paths x $RATE Mbit/s, tbf + fq_codel ecn"
ip netns exec "$sw" tc qdisc show dev p0 | sed 's/^/bench: sw p0: /' >&2

cpu_snap() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
spray_stats() { ip netns exec "$1" "$SPRAYCTL" -j stats 2>/dev/null || echo '{}'; }
rx_msgs() {
	ip netns exec "$h2" "$SPRAYCTL" -t stats | awk -F'\t' '$1 == "rx-msgs" { print $2 }'
}
now() { date +%s.%N; }

# record SCEN TRANSPORT REP key=value... (values: numbers or JSON)
# plus the files of the run in $T: pb0/pb1 (path bytes), cpu0/cpu1
record() {
	python3 "$bench/record.py" "$RES/runs.jsonl" "$T" "$@"
}

# spray_run SCEN REP [FAIL]: one socket pair, bulk messages of $MSG bytes
# worth $DUR s at full capacity; FAIL black-holes path 2 at $FAIL_AT s.
runno=0
spray_run() {
	local scen=$1 rep=$2 fail=${3:-} count port t0 t1 rpid spid smp
	runno=$((runno + 1))
	port=$((7000 + runno))
	count=$(( (RATE * NP * 125000 * DUR + MSG - 1) / MSG ))
	ip netns exec "$h2" "$SPRAY_MSG" recv $H2_ADDR $port $count fixed:$MSG $runno 900 >"$T/recv" &
	rpid=$!
	busywait 20000 grep -q ready "$T/recv" || { log "spray receiver not ready"; return 1; }
	spray_stats "$h1" >"$T/s1a"; spray_stats "$h2" >"$T/s2a"
	paths_bytes >"$T/pb0"; cpu_snap >"$T/cpu0"
	cut -d' ' -f1-3 /proc/net/softnet_stat >"$T/softnet0"
	t0=$(now)
	ip netns exec "$h1" timeout 900 "$SPRAY_MSG" send $H1_ADDR 0 $H2_ADDR $port $count fixed:$MSG $runno >"$T/send" 2>&1 &
	spid=$!
	( while kill -0 $spid 2>/dev/null; do echo "$(now) $(rx_msgs)"; sleep 1; done ) >"$T/samples" &
	smp=$!
	if [ -n "$fail" ]; then
		sleep "$FAIL_AT"
		echo "$(now) FAIL" >>"$T/samples"
		impair 2 "loss 100%"
		echo "$(now)" >"$T/failt"
	fi
	wait $spid
	t1=$(now)
	cpu_snap >"$T/cpu1"; paths_bytes >"$T/pb1"
	wait $smp
	wait $rpid
	spray_stats "$h1" >"$T/s1b"; spray_stats "$h2" >"$T/s2b"
	{
		echo "== softnet_stat (before/after: processed dropped squeezed, hex, per cpu)"
		cat "$T/softnet0"; echo --; cat /proc/net/softnet_stat | cut -d' ' -f1-3
		echo "== sw tc -s qdisc"; ip netns exec "$sw" tc -s qdisc show
		echo "== h2 tc -s qdisc"; ip netns exec "$h2" tc -s qdisc show
		echo "== h1 tc -s qdisc"; ip netns exec "$h1" tc -s qdisc show
		echo "== sw ip -s link"; ip -n "$sw" -s link show
		for n in "$h1" "$h2"; do
			echo "== $n sprayctl stats"; ip netns exec "$n" "$SPRAYCTL" -t stats
			echo "== $n sprayctl paths"; ip netns exec "$n" "$SPRAYCTL" -t paths
		done
		echo "== samples"; cat "$T/samples"
	} >"$RES/spray-$scen-$rep.txt" 2>&1
	log "spray $scen #$rep: $(cat "$T/send") | $(cat "$T/recv" | tail -n 1)"
	if ! grep -q "unacked 0 failed 0" "$T/send" || ! grep -q "dup 0 bad 0" "$T/recv"; then
		log "AF_SPRAY misbehaved: capturing counters in $RES/spray-$scen-$rep.diag"
		{
			echo "== send: $(cat "$T/send")"; echo "== recv: $(cat "$T/recv")"
			for n in "$h1" "$h2"; do
				echo "== $n stats"; ip netns exec "$n" "$SPRAYCTL" -t stats
				echo "== $n peers"; ip netns exec "$n" "$SPRAYCTL" -t peers
				echo "== $n paths"; ip netns exec "$n" "$SPRAYCTL" -t paths
			done
		} >"$RES/spray-$scen-$rep.diag" 2>&1
	fi
	record "$scen" spray "$rep" t0="$t0" t1="$t1" msg=$MSG \
		send="\"$(cat "$T/send")\"" recv="\"$(tail -n 1 "$T/recv")\"" \
		fail_at="${fail:+$(cat "$T/failt")}"
	rm -f "$T/failt"
}

# stream_run SCEN TRANSPORT NCONN REP [FAIL]: tcp or mptcp byte streams for
# $DUR s (stream.py); FAIL as above. MPTCP: the client connects to h2's
# address on path 0 and h2 announces its addresses on paths 1..N-1: one
# subflow pinned to each path.
stream_run() {
	local scen=$1 proto=$2 n=$3 rep=$4 fail=${5:-} port dst cpid
	runno=$((runno + 1))
	port=$((5300 + runno))
	dst=$H2_ADDR
	if [ "$proto" = mptcp ]; then
		dst=10.0.100.2
		ip -n "$h2" mptcp endpoint flush
		for i in $(seq 1 $((NP - 1))); do
			ip -n "$h2" mptcp endpoint add 10.0.10$i.2 signal
		done
	fi
	ip netns exec "$h2" python3 "$bench/stream.py" server 0.0.0.0 $port $proto $n >"$T/srv" &
	SRV_PIDS+=($!)
	busywait 20000 grep -q ready "$T/srv" || { log "stream server not ready"; return 1; }
	paths_bytes >"$T/pb0"; cpu_snap >"$T/cpu0"
	ip netns exec "$h1" python3 "$bench/stream.py" client $dst $port $proto $n $DUR &
	cpid=$!
	[ "$proto" = mptcp ] && { sleep 3; log "mptcp: $(ip netns exec "$h1" ss -tn state established | tail -n +2 | wc -l) TCP subflows established on h1"; }
	if [ -n "$fail" ]; then
		# every connection is up before the path fails
		busywait 60000 grep -q accepted "$T/srv"
		sleep "$FAIL_AT"
		impair 2 "loss 100%"
		echo "$(now)" >"$T/failt"
	fi
	wait $cpid
	cpu_snap >"$T/cpu1"; paths_bytes >"$T/pb1"
	# flows stuck on a dead path end once it is back
	[ -n "$fail" ] && impair 2 ""
	busywait 120000 grep -q bytes "$T/srv" || log "stream server did not finish"
	log "$proto x$n $scen #$rep: $(grep -o '"bytes": [0-9]*, "seconds": [0-9.]*' "$T/srv")"
	record "$scen" "$proto-$n" "$rep" server="$(grep bytes "$T/srv")" \
		fail_at="${fail:+$(cat "$T/failt" 2>/dev/null)}" dur=$DUR
	rm -f "$T/failt"
}

# udp_run: raw UDP ceiling, one flow of 1400-byte datagrams per path,
# pinned to it by its destination (h2's address on that path), each paced
# at 1.5x the path's rate (stream.py udpsend/udprecv).
udp_run() {
	local i pids=()
	runno=$((runno + 1))
	ip netns exec "$h2" python3 "$bench/stream.py" udprecv 5201 $NP $((DUR + 60)) >"$T/udp" &
	SRV_PIDS+=($!)
	busywait 20000 grep -q ready "$T/udp" || { log "udp receiver not ready"; return 1; }
	paths_bytes >"$T/pb0"; cpu_snap >"$T/cpu0"
	for i in $(seq 0 $((NP - 1))); do
		ip netns exec "$h1" python3 "$bench/stream.py" udpsend 10.0.10$i.2 5201 \
			$((RATE * 3 / 2)) "$DUR" &
		pids+=($!)
	done
	wait "${pids[@]}"
	cpu_snap >"$T/cpu1"; paths_bytes >"$T/pb1"
	busywait 30000 grep -q bytes "$T/udp"
	record pair udp 1 server="$(grep bytes "$T/udp")"
	log "udp: $(grep bytes "$T/udp")"
}

python3 - "$RES/meta.json" <<PY
import json, sys, time
json.dump({"kernel": "$(uname -r)", "rate_mbit": $RATE, "paths": $NP,
	   "seconds": $DUR, "reps": $REPS, "msg_bytes": $MSG,
	   "fail_at": $FAIL_AT, "burst": "$BURST", "scenarios": "$SCEN".split(),
	   "date": time.strftime("%Y-%m-%d %H:%M:%S"),
	   "cpus": $(nproc),
	   "spray_config": $(ip netns exec "$h1" "$SPRAYCTL" -j show 2>/dev/null || echo null)},
	  open(sys.argv[1], "w"), indent=1)
PY

for s in $SCEN; do
	case $s in
	pair)
		udp_run
		for r in $(seq 1 "$REPS"); do
			spray_run pair "$r"
			stream_run pair tcp 1 "$r"
		done
		stream_run pair tcp 8 1
		stream_run pair mptcp 1 1
		;;
	loss)
		impair 1 "loss 1%"
		spray_run loss 1
		stream_run loss tcp 8 1
		impair 1 ""
		;;
	down)
		spray_run down 1 fail
		impair 2 ""
		sleep 2
		stream_run down tcp 8 1 fail
		;;
	rto)	# diagnosis: AF_SPRAY with a 20 ms RTO floor (default 1 ms)
		for n in "$h1" "$h2"; do ip netns exec "$n" "$SPRAYCTL" set rto-min-us 20000; done
		spray_run rto 1
		for n in "$h1" "$h2"; do ip netns exec "$n" "$SPRAYCTL" set rto-min-us 1000; done
		;;
	*) log "unknown scenario $s" ;;
	esac
done
python3 "$bench/report.py" "$RES"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF_SPRAY benchmark suite, run INSIDE the test VM (scripts/bench/run.sh
# boots it): AF_SPRAY against TCP (spraycoll's TCP backend and iperf3),
# MPTCP, RoCEv2 (soft-RoCE) and raw UDP on the leaf-spine fabric of
# scripts/bench/fabric.sh.
#
#   scripts/bench/suite.sh [SCENARIO...]
#
# Scenarios (default: all but seed, in this order; roce last: it moves the
# hosts' interfaces to the initial namespace on kernels where soft-RoCE
# works only there):
#   calib     raw UDP on the ring's 8 flows, one pinned to each spine per
#             direction: what the emulated fabric carries (the ceiling)
#   cpu       CPU time per byte on one unshaped link, no fabric: AF_SPRAY,
#             raw UDP at the same goodput, TCP
#   datapath  one unshaped veth, no fabric, CPU-bound by design: AF_SPRAY,
#             TCP and UDP (GSO/GRO) as users run them, one program
#             (dpbench) for all; bulk from 1, 4, 16 connections into one
#             socket and 64 B / 64 KiB ping-pong, MTU 1500 and 9000,
#             BENCH_DP_REPS repetitions; perf profiles of AF_SPRAY and TCP
#   pair      one pair (h0 -> h1, across the spines), bulk
#   ring      every host sends to the next one (h0 -> h1 -> ... -> h7 ->
#             h0), bulk: 4 flows each way over 4 spines, ECMP collisions
#   nocc      diagnosis: the ring over AF_SPRAY with cc-mode off
#   allreduce ring all-reduce, 8 ranks, sizes BENCH_AR_SIZES
#   alltoall  all-to-all, 8 ranks
#   incast    7 -> 1 (h1..h7 -> h0)
#   loss      the ring with 1% loss on the link leaf 0 - spine 1 (both ways)
#   down      the ring; the link leaf 0 - spine 2 fails BENCH_FAIL_AT s in
#   scaleacross the two leaves joined through their 4 spine links made
#             long-haul: 10 ms one way each (BENCH_SA_DELAY_MS), BENCH_SA_RATE
#             Mbit/s each, RED ECN buffers of 2 BDP; one connection h0 ->
#             h1 (limit: the 4 links), AF_SPRAY in each cc-mode but off
#             (BENCH_SA_MODES) beside TCP cubic and bbr (BENCH_SA_TCP) and
#             raw UDP pinned one flow per link (the emulator's ceiling)
#   roce      RoCEv2 soft-RoCE: pair, ring, loss, down
#   seed      all-reduce at BENCH_SEED_SIZES only (the extra boots: the
#             ECMP hash seed is random per boot)
#   mpi       Open MPI allreduce (8 ranks, one per host) over the libfabric
#             provider spray (mtl ofi) and over TCP (btl tcp); fi_pingpong
#             -p spray beside AF_SPRAY's socket ping-pong on one unshaped
#             link: 64 B latency, 1 MiB bandwidth
#
# Every run leaves a directory $RES/runs/NNN-SCENARIO-TRANSPORT/ with
# meta.env (key=value), the tool's output and counters before/after;
# report.py (on the host) turns them into tables and plots. $RES is
# $BENCH_OUT or $SPRAY_OUT (the VM's shared results directory).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/scripts/bench
source "$top/scripts/bench/lib.sh"
source "$bench/fabric.sh"

QUICK=${BENCH_QUICK:-0}
RES=${BENCH_OUT:-${SPRAY_OUT:-/tmp/bench}}
KVER=${SPRAY_KVER:-$(uname -r)}
SC=$top/userspace/spraycoll/spraycoll
CTL=$top/userspace/sprayctl/sprayctl
UB=${BENCH_UDPBLAST:-$top/build/bench-tools/udpblast}
DPB=${BENCH_DPBENCH:-$top/build/bench-tools/dpbench}
if [ "$QUICK" = 1 ]; then
	DUR=${BENCH_SECONDS:-6}		# seconds of bulk per run
	RING_SIZE=${BENCH_RING_SIZE:-1M}	# per rank and iteration
	RING_N=${BENCH_RING_N:-2}
	# MIN:MAX:FACTOR:ITERS:WARMUP, one spraycoll run each
	AR_SIZES=${BENCH_AR_SIZES:-"64K:1M:4:2:1 8M:8M:2:1:0"}
	SEED_SIZES=${BENCH_SEED_SIZES:-"8M:8M:2:1:0"}
	A2A_SIZE=${BENCH_A2A_SIZE:-2M}
	INC_SIZE=${BENCH_INC_SIZE:-512K}
	DOWN_SIZE=${BENCH_DOWN_SIZE:-1M}
	DOWN_N=${BENCH_DOWN_N:-8}
	FAIL_AT=${BENCH_FAIL_AT:-2}
else
	DUR=${BENCH_SECONDS:-12}
	RING_SIZE=${BENCH_RING_SIZE:-4M}
	RING_N=${BENCH_RING_N:-3}
	AR_SIZES=${BENCH_AR_SIZES:-"64K:1M:4:5:1 4M:64M:4:1:0"}
	SEED_SIZES=${BENCH_SEED_SIZES:-"16M:16M:2:1:0"}
	A2A_SIZE=${BENCH_A2A_SIZE:-8M}
	INC_SIZE=${BENCH_INC_SIZE:-1M}
	DOWN_SIZE=${BENCH_DOWN_SIZE:-4M}
	DOWN_N=${BENCH_DOWN_N:-8}
	FAIL_AT=${BENCH_FAIL_AT:-6}
fi
if [ "$QUICK" = 1 ]; then
	MPI_SIZES=${BENCH_MPI_SIZES:-"65536 1048576 8388608"}
else
	MPI_SIZES=${BENCH_MPI_SIZES:-"65536 1048576 8388608 16777216"}
fi
MPI_ITERS=${BENCH_MPI_ITERS:-2}
TRANSPORTS=${BENCH_TRANSPORTS:-"spray tcp mptcp"}
# datapath: seconds of bulk per run (sized by a probe), repetitions
DP_SECONDS=${BENCH_DP_SECONDS:-$([ "$QUICK" = 1 ] && echo 1.5 || echo 3)}
DP_REPS=${BENCH_DP_REPS:-3}
DP_MTUS=${BENCH_DP_MTUS:-"1500 9000"}
DP_TRANSPORTS=${BENCH_DP_TRANSPORTS:-"spray tcp udp"}
DP_CONNS=${BENCH_DP_CONNS:-"1 4 16"}
DP_SIZE=${BENCH_DP_SIZE:-64K}		# bulk message (record, GSO send) size
DP_PP_SIZES=${BENCH_DP_PP_SIZES:-"64 65536"}
DP_PERF_TRANSPORTS=${BENCH_DP_PERF_TRANSPORTS:-"spray tcp"}
DP_PERF_MTUS=${BENCH_DP_PERF_MTUS:-"1500 9000"}
DP_PERF_PP=${BENCH_DP_PERF_PP:-"spray:64 spray:65536"}	# TRANSPORT:SIZE ping-pongs profiled
# sprayctl set KEY VALUE... for both namespaces, e.g. "ack-delay-us 200"
# (an experiment's; the default is the module's defaults)
DP_SPRAY_CONFIG=${BENCH_DP_SPRAY_CONFIG:-}
# scaleacross: rate of each long link (Mbit/s), its one-way delay, what
# runs, and how much: one connection's bulk, SIZE x N after W warm-ups
SA_RATE=${BENCH_SA_RATE:-15}
SA_DELAY_MS=${BENCH_SA_DELAY_MS:-10}
SA_MODES=${BENCH_SA_MODES:-"sender receiver both"}
SA_TCP=${BENCH_SA_TCP:-"cubic bbr"}
if [ "$QUICK" = 1 ]; then
	SA_SIZE=${BENCH_SA_SIZE:-16M} SA_N=${BENCH_SA_N:-2}
else
	SA_SIZE=${BENCH_SA_SIZE:-32M} SA_N=${BENCH_SA_N:-3}
fi
SCEN=${*:-calib cpu datapath pair ring nocc allreduce alltoall incast loss down scaleacross mpi roce}
RING=(0 1 2 3 4 5 6 7)	# rank r on host r: leaves alternate around the ring

ROCE_MODE=
mkdir -p "$RES/runs"
T=$(mktemp -d)
BG_PIDS=()
cleanup() {
	local p
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	bench_cleanup_ns
	rm -rf "$T"
}
trap cleanup EXIT
log() { echo "bench: $*" >&2; }
now() { echo "$EPOCHREALTIME"; }

# --- per-run records -------------------------------------------------------

# busy and idle USER_HZ ticks of the whole guest (user nice system irq
# softirq steal / idle iowait), when they were read, and the number of
# CPUs: report.py counts the busy time as the interval less the idle time,
# which NO_HZ measures, where the busy ticks are samples that miss most
# of a CPU's short bursts between idle periods (as dpbench's cpu_busy());
# no process needed
cpu_snap() {
	local c u n s i w q sq st t=$EPOCHREALTIME
	read -r c u n s i w q sq st _ </proc/stat
	echo "$((u + n + s + q + sq + st)) $((i + w)) $t $(grep -c '^cpu[0-9]' /proc/stat)"
}

RUNNO=0
RUN=
# run_begin NAME: a new run directory, counters before
run_begin() {
	RUNNO=$((RUNNO + 1))
	RUN=$RES/runs/$(printf %03d "$RUNNO")-$1
	mkdir -p "$RUN"
	: >"$RUN/meta.env"
	[ "${NOFAB:-0}" = 1 ] || fab_snapshot >"$RUN/snap0"
	cpu_snap >"$RUN/cpu0"
	kv t_begin "$(now)"
}
# run_end: counters after
run_end() {
	kv t_end "$(now)"
	cpu_snap >"$RUN/cpu1"
	[ "${NOFAB:-0}" = 1 ] || fab_snapshot >"$RUN/snap1"
}
# kv KEY VALUE...: one line of the run's meta.env
kv() { local k=$1; shift; printf '%s=%s\n' "$k" "$*" >>"$RUN/meta.env"; }

# UDP payload rate that fills a link of $FAB_RATE with datagrams of
# MTU - 28 bytes (Ethernet, IP and UDP headers on the wire), 1% under
udp_payload_mbit() {
	local sz=$((FAB_MTU - 28))
	echo "$FAB_RATE $sz" | awk '{ printf "%.3f", $1 * $2 / ($2 + 42) * 0.99 }'
}

# --- spraycoll ---------------------------------------------------------------

# coll SCEN TRANSPORT OP LIMIT_MBIT "HOSTS" ARGS...: one spraycoll run over
# the hosts (rank i on the i-th); LIMIT_MBIT: the busbw the fabric allows.
# MPTCP ranks use their plane-0 addresses and announce the other planes:
# one subflow per spine.
coll() {
	local scen=$1 tp=$2 op=$3 limit=$4 hosts=$5 addrs rc
	shift 5
	# shellcheck disable=SC2086
	if [ "$tp" = mptcp ]; then addrs=$(fab_plane_list 0 $hosts); else addrs=$(fab_addr_list $hosts); fi
	run_begin "$scen-${COLL_LABEL:-$tp}"
	kv scenario "$scen"; kv transport "${COLL_LABEL:-$tp}"; kv tool spraycoll; kv op "$op"
	kv hosts "$hosts"; kv limit_mbit "$limit"; kv args "$*"
	# shellcheck disable=SC2086
	timeout "${COLL_TIMEOUT:-1500}" "$SC" --local "$(echo $hosts | wc -w)" \
		--netns "$(fab_netns_list $hosts)" --addrs "$addrs" -t "$tp" -o "$op" \
		-T "${COLL_T:-600}" --boot-timeout 60 -J "$@" >"$RUN/out.json" 2>"$RUN/err"
	rc=$?
	run_end
	kv rc "$rc"
	log "$scen ${COLL_LABEL:-$tp} $op: exit $rc, $(busbw_line "$RUN/out.json")"
	[ $rc -eq 0 ] || sed 's/^/bench:   /' "$RUN/err" | tail -n 5 >&2
	return $rc
}

# busbw_line FILE: "busbw X Mbit/s at SIZE ..." from spraycoll's JSON
busbw_line() {
	awk 'BEGIN { RS = "{" } /"size":/ {
		match($0, /"size": [0-9]+/); s = substr($0, RSTART + 8, RLENGTH - 8)
		match($0, /"time_us": [0-9.]+/); t = substr($0, RSTART + 11, RLENGTH - 11)
		match($0, /"algbw_gbps": [0-9.]+/); a = substr($0, RSTART + 14, RLENGTH - 14)
		match($0, /"busbw_gbps": [0-9.]+/); b = substr($0, RSTART + 14, RLENGTH - 14)
		if (t > 0) printf "%s:%.2f ", s, (a > 0 ? b / a : 1) * s * 8 / t }
		END { print "(size:busbw Mbit/s)" }' "$1" 2>/dev/null
}

# MPTCP: every host gets a "subflow" endpoint on its plane addresses
# 1..N-1. A client (spraycoll: the higher rank) connects from its main
# address to the server's plane-0 address (spine 0), then opens one subflow
# from each plane-p address to that same address and port, which the
# leaves pin to spine p both ways: one subflow per spine. (Announcing the
# planes as "signal" endpoints would not do: spraycoll's listener is bound
# to one address, so joins to the others find no listener.)
mptcp_endpoints() {
	local i p
	for i in "${RING[@]}"; do
		{
			echo "mptcp endpoint flush"
			for p in $(seq 1 $((FAB_NS - 1))); do
				echo "mptcp endpoint add $(fab_plane "$i" "$p") subflow"
			done
		} | ip -n "${FAB_H[$i]}" -batch -
	done
}

# --- iperf3 and raw UDP --------------------------------------------------------

# iperf_run SCEN LIMIT_MBIT SRC:DST...: concurrent iperf3 TCP flows for
# $DUR s; each server in its destination's namespace
iperf_run() {
	local scen=$1 limit=$2 f s d pids=() srv=() k=0
	shift 2
	run_begin "$scen-iperf3"
	kv scenario "$scen"; kv transport iperf3; kv tool iperf3; kv limit_mbit "$limit"
	kv flows "$*"
	for f in "$@"; do
		d=${f#*:}
		ip netns exec "${FAB_H[$d]}" iperf3 -s -p $((5201 + k)) >"$RUN/iperf-srv-$k.txt" 2>&1 &
		srv+=($!)
		k=$((k + 1))
	done
	k=0
	for f in "$@"; do
		s=${f%%:*} d=${f#*:}
		# iperf3 retries the control connection until the server is up
		ip netns exec "${FAB_H[$s]}" sh -c "for t in 1 2 3 4 5 6 7 8 9 10; do
			iperf3 -c $(fab_addr "$d") -p $((5201 + k)) -t $DUR -J >$RUN/iperf-$k.json 2>&1 &&
			exit 0; sleep 1; done; exit 1" &
		pids+=($!)
		k=$((k + 1))
	done
	wait "${pids[@]}"
	run_end
	kill "${srv[@]}" 2>/dev/null
	wait "${srv[@]}" 2>/dev/null
	log "$scen iperf3: $(grep -h -A8 '"sum_received"' "$RUN"/iperf-*.json | awk '/bits_per_second/ { gsub(",", ""); printf "%.1f ", $2 / 1e6 }') Mbit/s"
}

# udp_run SCEN LIMIT_MBIT SRC:DST[:PLANE]...: paced raw UDP flows, one per
# argument, for $DUR s, just under the link rate; PLANE pins the flow
udp_run() {
	local scen=$1 limit=$2 f s d p k=0 pids=() dst rate
	shift 2
	rate=$(udp_payload_mbit)
	run_begin "$scen-udp"
	kv scenario "$scen"; kv transport udp; kv tool udpblast; kv limit_mbit "$limit"
	kv flows "$*"; kv offered_mbit "$rate"
	for f in "$@"; do
		IFS=: read -r s d p <<<"$f"
		ip netns exec "${FAB_H[$d]}" "$UB" recv $((5201 + k)) 1 $((DUR + 30)) >"$RUN/udp-$k.json" &
		pids+=($!)
		k=$((k + 1))
	done
	bench_busywait 20000 sh -c "[ \$(cat $RUN/udp-*.json | grep -c ready) -ge $k ]"
	k=0
	for f in "$@"; do
		IFS=: read -r s d p <<<"$f"
		if [ -n "$p" ]; then dst=$(fab_plane "$d" "$p"); else dst=$(fab_addr "$d"); fi
		ip netns exec "${FAB_H[$s]}" "$UB" send "$dst" $((5201 + k)) "$rate" "$DUR" \
			$((FAB_MTU - 28)) >"$RUN/udpsend-$k.json" &
		k=$((k + 1))
	done
	wait "${pids[@]}"
	run_end
	log "$scen udp: $(cat "$RUN"/udp-*.json | awk '/bytes/ { match($0, /"bytes": [0-9]+/); b = substr($0, RSTART + 9, RLENGTH - 9); match($0, /"seconds": [0-9.]+/); s = substr($0, RSTART + 11, RLENGTH - 11); if (s > 0) printf "%.1f ", b * 8 / s / 1e6 }') Mbit/s"
}

# --- scenarios ---------------------------------------------------------------------

R=$FAB_RATE
ring_pairs() { local i; for i in "${RING[@]}"; do echo "$i:$(( (i + 1) % 8 ))"; done; }
# the ring's UDP flows pinned so each spine carries one flow each way
ring_pairs_pinned() { local i; for i in "${RING[@]}"; do echo "$i:$(( (i + 1) % 8 )):$(( (i / 2) % FAB_NS ))"; done; }

scen_calib() {
	# shellcheck disable=SC2046
	udp_run calib "$R" $(ring_pairs_pinned)
}

# CPU time per byte on one unshaped veth between two namespaces (no fabric,
# no shaper: the transports' own per-packet cost, bounded by the CPU)
scen_cpu() {
	local ca cb rate t0 t1 size pid r tp
	bench_setup_ns ca cb || return 1
	ip link add eth0 mtu "$FAB_MTU" netns "$ca" type veth peer name eth0 mtu "$FAB_MTU" netns "$cb"
	ip -n "$ca" addr add 10.200.0.1/24 dev eth0
	ip -n "$cb" addr add 10.200.0.2/24 dev eth0
	ip -n "$ca" link set eth0 up
	ip -n "$cb" link set eth0 up
	for n in "$ca" "$cb"; do
		fab_exec "$n" 'ethtool -K eth0 gso off tso off gro off >/dev/null 2>&1
			ethtool -K eth0 tx-udp-segmentation off >/dev/null 2>&1; true'
	done
	bench_busywait 10000 ip netns exec "$ca" ping -c1 -W1 10.200.0.2 >/dev/null
	# AF_SPRAY and TCP: rank 1 (ca) sends SIZE to rank 0 (cb); a probe
	# sizes the run to about $DUR s
	for tp in spray tcp; do
		t0=$(now)
		timeout 300 "$SC" --local 2 --netns "$cb,$ca" --addrs 10.200.0.2,10.200.0.1 \
			-t $tp -o incast -b 4M -e 4M -n 1 -w 0 -T 120 >/dev/null 2>&1
		t1=$(now)
		size=$(echo "$t0 $t1 $DUR" | awk '{ s = 4 * $3 / ($2 - $1); m = 1; while (m * 2 <= s && m < 512) m *= 2; print m "M" }')
		NOFAB=1 run_begin "cpu-$tp"
		kv scenario cpu; kv transport "$tp"; kv tool spraycoll; kv op incast; kv hosts "ca cb"
		timeout 600 "$SC" --local 2 --netns "$cb,$ca" --addrs 10.200.0.2,10.200.0.1 \
			-t $tp -o incast -b "$size" -e "$size" -n 1 -w 0 -T 300 -J >"$RUN/out.json" 2>"$RUN/err"
		kv rc $?
		NOFAB=1 run_end
		log "cpu $tp: $(busbw_line "$RUN/out.json")"
		# goodput in Mbit/s from size and time (spraycoll rounds its
		# bandwidths to 0.1 MB/s)
		[ $tp = spray ] && rate=$(awk 'BEGIN { RS = "{" } /"size":/ {
			match($0, /"size": [0-9]+/); s = substr($0, RSTART + 8, RLENGTH - 8)
			match($0, /"time_us": [0-9.]+/); t = substr($0, RSTART + 11, RLENGTH - 11)
			if (t > 0) printf "%.3f\n", s * 8 / t }' "$RUN/out.json")
	done
	# raw UDP, paced at AF_SPRAY's goodput (the same work per second),
	# then as fast as it goes
	for r in "${rate:-100}" 0; do
		NOFAB=1 run_begin "cpu-udp"
		kv scenario cpu; kv transport "udp"; kv tool udpblast; kv offered_mbit "$r"
		ip netns exec "$cb" "$UB" recv 5300 1 $((DUR + 30)) >"$RUN/udp-0.json" &
		pid=$!
		bench_busywait 10000 grep -q ready "$RUN/udp-0.json"
		ip netns exec "$ca" "$UB" send 10.200.0.2 5300 "$r" "$DUR" $((FAB_MTU - 28)) >"$RUN/udpsend-0.json"
		wait "$pid"
		NOFAB=1 run_end
		log "cpu udp at ${r} Mbit/s (0: unpaced): $(grep bytes "$RUN/udp-0.json")"
	done
	ip netns del "$ca"; ip netns del "$cb"
}

# --- datapath ------------------------------------------------------------------

# One unshaped veth between two namespaces, default offloads (TSO/GSO on,
# whatever the veth has by default), no qdisc shaping: the transports' own
# per-byte and per-packet work bounds every figure. dpbench (one program,
# the same work for every transport) sends to one receiving socket; sender
# threads on CPU 0, the receiver on CPU 1. Per MTU: a probe per transport
# sizes the bulk runs to about $DP_SECONDS s, then every connection count
# and repetition runs every transport back to back (so that host noise
# falls on all of them alike), then the ping-pongs, then perf.
DP_PORT=7100
# dp_run TRANSPORT MODE MTU ARGS...: one dpbench run and its record; MODE
# bulk, pp, or probe (a bulk run that sizes the others)
dp_run() {
	local tp=$1 mode=$2 mtu=$3 rc m
	shift 3
	m=$mode; [ "$m" = probe ] && m=bulk
	DP_PORT=$((DP_PORT + 1))
	NOFAB=1 run_begin "datapath-$tp"
	kv scenario datapath; kv transport "$tp"; kv tool dpbench; kv mode "$mode"
	kv mtu "$mtu"; kv args "$*"
	# AF_SPRAY's counters on both sides, before and after (report.py:
	# the share of packets the receiver copied, ACKs per packet, retx)
	[ "$tp" = spray ] && dp_stats >"$RUN/spray-stats0.json"
	# the CPUs' receive backlogs (a veth hands its packets to them):
	# skbs dropped there during the run, any transport (report.py)
	cp /proc/net/softnet_stat "$RUN/softnet0.txt"
	timeout 900 "$DPB" -t "$tp" -m "$m" -R "$DP_B" -S "$DP_A" -a 10.201.0.2 \
		-p "$DP_PORT" -g $((mtu - 28)) -T 600 "$@" >"$RUN/out.json" 2>"$RUN/err"
	rc=$?
	cp /proc/net/softnet_stat "$RUN/softnet1.txt"
	NOFAB=1 run_end
	[ "$tp" = spray ] && dp_stats >"$RUN/spray-stats1.json"
	kv rc "$rc"
	return $rc
}

# dp_stats: {"sender": sprayctl stats of DP_A, "receiver": of DP_B}
dp_stats() {
	printf '{"sender": %s, "receiver": %s}\n' \
		"$(ip netns exec "$DP_A" "$CTL" -j stats 2>/dev/null || echo null)" \
		"$(ip netns exec "$DP_B" "$CTL" -j stats 2>/dev/null || echo null)"
}

# dp_field FILE KEY: a number from dpbench's JSON
dp_field() { sed -n "s/.*\"$2\": \([-0-9.]*\).*/\1/p" "$1" | head -n 1; }

# dp_perf TRANSPORT MTU BYTES: a bulk run (1 connection) of BYTES under
# perf record -a (cpu-clock: TCG has no PMU; samples of code that runs with
# interrupts off land where it turns them on, e.g. in
# _raw_spin_unlock_irqrestore, whose callers the call-graph file names);
# reports of all CPUs, of CPU 0 (the sender thread's) and of CPU 1 (the
# receiver thread's), flat and with children, and call graphs. A CPU is
# not a side: veth delivers a packet on the CPU that sends it, so the
# receive path of DATA (up to the receiving socket) runs in softirq on
# CPU 0, that of the receiver's ACKs on CPU 1, with whatever the sender's
# ACK processing sends from there; the symbols tell the sides apart
# (sendmsg/recvmsg, DATA/ACK handling).
#
# dp_perf TRANSPORT MTU BYTES: the bulk profile, files perf-TP-mtuM-*;
# dp_perf TRANSPORT MTU pp:SIZE: a ping-pong's (2000 exchanges, at most
# $DP_SECONDS x 3 s), files perf-TP-ppSIZE-mtuM-*
dp_perf() {
	local tp=$1 mtu=$2 n=$3 d=$RES/datapath pd cpu rc f cpuopt tag args
	pd=$T/perf.data
	DP_PORT=$((DP_PORT + 1))
	case $n in
	pp:*) tag=$tp-pp${n#pp:}-mtu$mtu
	      args=(-m pp -s "${n#pp:}" -i 2000 -d "$(echo "$DP_SECONDS" | awk '{ print 3 * $1 }')") ;;
	*) tag=$tp-mtu$mtu; args=(-m bulk -c 1 -n "$n" -s "$DP_SIZE") ;;
	esac
	perf record -q -a -g -F 999 -e cpu-clock -o "$pd" -- \
		"$DPB" -t "$tp" -R "$DP_B" -S "$DP_A" -a 10.201.0.2 -p "$DP_PORT" \
		-g $((mtu - 28)) -T 600 "${args[@]}" \
		>"$d/perf-$tag-run.json" 2>"$d/perf-$tag-record.err"
	rc=$?
	if [ $rc != 0 ] || [ ! -s "$pd" ]; then
		log "datapath perf $tag: FAILED (exit $rc): $(tail -n 2 "$d/perf-$tag-record.err" | tr '\n' ' ')"
		echo "perf record failed (exit $rc)" >"$d/perf-$tag-FAILED.txt"
		return 1
	fi
	for cpu in all 0 1; do
		f=$d/perf-$tag-cpu$cpu
		cpuopt=(--cpu "$cpu"); [ $cpu = all ] && cpuopt=()
		{
			echo "# perf record -a -g -F 999 -e cpu-clock, dpbench -t $tp ${args[*]}, MTU $mtu"
			echo "# $(cat "$d/perf-$tag-run.json")"
			echo "# CPU $cpu (0: the sender thread's, 1: the receiver thread's; see dp_perf in scripts/bench/suite.sh); self time, top 30 symbols"
			perf report -i "$pd" --stdio --no-children -g none --sort sym "${cpuopt[@]}" \
				--percent-limit 0.01 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 30
			echo
			echo "# CPU $cpu: with children (inclusive), top 30"
			perf report -i "$pd" --stdio --children -g none --sort sym "${cpuopt[@]}" \
				--percent-limit 0.01 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 30
			echo
			echo "# CPU $cpu: by command and object"
			perf report -i "$pd" --stdio --no-children -g none --sort comm,dso "${cpuopt[@]}" \
				2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 12
		} >"$f.txt"
		# who calls the symbols above 2% (callee order: each symbol,
		# then the chains that lead to it, the 8 heaviest of 0.5% or more)
		perf report -i "$pd" --stdio --no-children -g callee,0.5,8 --sort sym "${cpuopt[@]}" \
			--percent-limit 2 2>/dev/null | grep -v '^$' | head -n 600 >"$f-callgraph.txt"
	done
	# what the protocol's entry points spend their time in (inclusive,
	# all CPUs): each one's tree of callees down to 1% of the samples
	perf report -i "$pd" --stdio --children -g caller,1 --sort sym --percent-limit 3 \
		2>/dev/null | grep -v '^$' | awk '
		/^ +[0-9.]+% +[0-9.]+% +\[/ {
			keep = $NF ~ /^(spray_(conn_rcv|conn_sendmsg|recvmsg|conn_timer|conn_pump|queue_data|xmit_queue)|tcp_sendmsg|tcp_recvmsg|tcp_v4_rcv|tcp_rcv_established|tcp_write_xmit|__udp4_lib_rcv)$/
			n = 0 }
		keep && n++ < 150' >"$d/perf-$tag-tree.txt"
	log "datapath perf $tag: top of all CPUs: $(sed -n 4p "$d/perf-$tag-cpuall.txt" | tr -s ' ')"
	rm -f "$pd"
}

scen_datapath() {
	local mtu tp c rep sz rate r1 n out x fails=0 d=$RES/datapath
	declare -A DPN
	mkdir -p "$d"
	bench_setup_ns DP_A DP_B || return 1
	ip link add eth0 netns "$DP_A" type veth peer name eth0 netns "$DP_B"
	ip -n "$DP_A" addr add 10.201.0.1/24 dev eth0
	ip -n "$DP_B" addr add 10.201.0.2/24 dev eth0
	ip -n "$DP_A" link set eth0 up
	ip -n "$DP_B" link set eth0 up
	bench_busywait 10000 ip netns exec "$DP_A" ping -c1 -W1 10.201.0.2 >/dev/null ||
		{ log "datapath: the veth does not carry"; return 1; }
	if [ -n "$DP_SPRAY_CONFIG" ]; then
		# shellcheck disable=SC2086 # KEY VALUE pairs
		for x in "$DP_A" "$DP_B"; do
			ip netns exec "$x" "$CTL" set $DP_SPRAY_CONFIG ||
				{ log "datapath: sprayctl set $DP_SPRAY_CONFIG failed"; return 1; }
		done
	fi
	{
		echo "kernel $(uname -r); dpbench: $DPB; $(perf --version 2>&1)"
		echo "veth offloads (both ends alike, defaults):"
		ip netns exec "$DP_A" ethtool -k eth0 2>&1 | grep -E "segmentation|generic-receive|scatter|checksumming|gro" 
		echo "qdisc: $(tc -n "$DP_A" qdisc show dev eth0)"
		echo "sysctls: $(ip netns exec "$DP_B" sysctl net.core.rmem_max net.core.wmem_max net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.ipv4.tcp_congestion_control 2>&1 | tr '\n' ';')"
		echo "spray (receiver's namespace):"
		ip netns exec "$DP_B" "$CTL" show 2>&1
	} >"$d/setup.txt"
	for mtu in $DP_MTUS; do
		ip -n "$DP_A" link set eth0 mtu "$mtu"
		ip -n "$DP_B" link set eth0 mtu "$mtu"
		# the probe: 32 MiB from one connection, twice (the first one
		# runs cold), the faster one counts
		for tp in $DP_TRANSPORTS; do
			rate=
			if dp_run "$tp" probe "$mtu" -c 1 -n 32M -s "$DP_SIZE" &&
				r1=$(dp_field "$RUN/out.json" goodput_mbps) &&
				dp_run "$tp" probe "$mtu" -c 1 -n 32M -s "$DP_SIZE"; then
				rate=$(dp_field "$RUN/out.json" goodput_mbps)
				rate=$(echo "$rate $r1" | awk '{ print ($1 > $2 ? $1 : $2) }')
				n=$(echo "$rate $DP_SECONDS" | awk '{ m = int($1 * 1e6 / 8 * $2 / 1048576);
					if (m < 16) m = 16; if (m > 4096) m = 4096; print m "M" }')
			else
				n=64M
				log "datapath probe $tp MTU $mtu: FAILED: $(tail -c 300 "$RUN/out.json")"
			fi
			DPN[$tp]=$n
			log "datapath probe $tp MTU $mtu: ${rate:-?} Mbit/s, bulk runs of $n"
		done
		for c in $DP_CONNS; do
			for rep in $(seq 1 "$DP_REPS"); do
				for tp in $DP_TRANSPORTS; do
					dp_run "$tp" bulk "$mtu" -c "$c" -n "${DPN[$tp]}" -s "$DP_SIZE" ||
						fails=$((fails + 1))
					kv conns "$c"; kv rep "$rep"
					out=$(tr -d '{}"' <"$RUN/out.json" | tr ',' '\n' |
						grep -E "goodput_mbps|cpu_ns_per_byte|loss_pct|error" | tr -d '\n')
					log "datapath MTU $mtu $tp bulk x$c #$rep: $out"
				done
			done
		done
		for sz in $DP_PP_SIZES; do
			for rep in $(seq 1 "$DP_REPS"); do
				for tp in $DP_TRANSPORTS; do
					dp_run "$tp" pp "$mtu" -s "$sz" -i 2000 -d "$DP_SECONDS" ||
						fails=$((fails + 1))
					kv rep "$rep"
					out=$(tr -d '{}"' <"$RUN/out.json" | tr ',' '\n' |
						grep -E "p50_us|p99_us|lost|cpu_us|error" | tr -d '\n')
					log "datapath MTU $mtu $tp pingpong $sz #$rep: $out"
				done
			done
		done
		case " $DP_PERF_MTUS " in *" $mtu "*)
			if command -v perf >/dev/null; then
				# three times a bulk run: start-up is a small part
				for tp in $DP_PERF_TRANSPORTS; do
					dp_perf "$tp" "$mtu" "$(( 3 * ${DPN[$tp]%M} > 4096 ? 4096 : 3 * ${DPN[$tp]%M} ))M"
				done
				for x in $DP_PERF_PP; do dp_perf "${x%%:*}" "$mtu" "pp:${x#*:}"; done
			else
				log "datapath: perf is not installed (linux-perf): no profiles"
			fi ;;
		esac
	done
	ip netns del "$DP_A"; ip netns del "$DP_B"
	log "datapath: $fails failed run(s)"
}

scen_pair() {
	local tp
	for tp in $TRANSPORTS; do
		# rank 0 on h1 receives, rank 1 on h0 sends
		coll pair "$tp" incast "$R" "1 0" -b "$RING_SIZE" -e "$RING_SIZE" -n "$RING_N" -w 1
	done
	iperf_run pair "$R" 0:1
	udp_run pair "$R" 0:1
}

scen_ring() {
	local tp
	for tp in $TRANSPORTS; do
		coll ring "$tp" sendrecv "$R" "${RING[*]}" -b "$RING_SIZE" -e "$RING_SIZE" -n "$RING_N" -w 1
	done
	# shellcheck disable=SC2046
	iperf_run ring "$R" $(ring_pairs)
	# shellcheck disable=SC2046
	udp_run ring "$R" $(ring_pairs_pinned)
}

# allreduce_sweep SCEN SPECS: spraycoll runs per transport (ring algorithm)
allreduce_sweep() {
	local scen=$1 specs=$2 tp spec lo hi f n w
	for tp in $TRANSPORTS; do
		for spec in $specs; do
			IFS=: read -r lo hi f n w <<<"$spec"
			coll "$scen" "$tp" allreduce "$R" "${RING[*]}" -a ring \
				-b "$lo" -e "$hi" -f "$f" -n "$n" -w "$w"
		done
	done
}
scen_allreduce() { allreduce_sweep allreduce "$AR_SIZES"; }
scen_seed() { allreduce_sweep seed "$SEED_SIZES"; }

scen_alltoall() {
	local tp
	for tp in $TRANSPORTS; do
		coll alltoall "$tp" alltoall "$R" "${RING[*]}" -b "$A2A_SIZE" -e "$A2A_SIZE" -n 2 -w 1
	done
}

scen_incast() {
	local tp lim
	lim=$(echo "$R" | awk '{ printf "%.4f", $1 / 7 }')
	for tp in $TRANSPORTS; do
		# rank 0 (h0) receives from ranks 1..7
		coll incast "$tp" incast "$lim" "${RING[*]}" -b "$INC_SIZE" -e "$INC_SIZE" -n 2 -w 1
	done
}

# diagnosis: the ring over AF_SPRAY with its congestion control off (what
# the control costs or saves on this fabric)
scen_nocc() {
	local i
	for i in "${RING[@]}"; do ip netns exec "${FAB_H[$i]}" "$CTL" set cc-mode off >/dev/null; done
	coll nocc spray sendrecv "$R" "${RING[*]}" -b "$RING_SIZE" -e "$RING_SIZE" -n "$RING_N" -w 1
	for i in "${RING[@]}"; do ip netns exec "${FAB_H[$i]}" "$CTL" set cc-mode "$CC_MODE" >/dev/null; done
}

scen_loss() {
	local tp
	fab_impair 0 1 loss 1% || { log "loss: cannot impair the link"; return 1; }
	for tp in $TRANSPORTS; do
		coll loss "$tp" sendrecv "$R" "${RING[*]}" -b "$RING_SIZE" -e "$RING_SIZE" -n "$RING_N" -w 1
	done
	fab_impair 0 1
}

# the link leaf 0 - spine 2 fails $FAIL_AT s into each run; after it the
# ring's 4 flows each way share 3 spines: 3/4 of the rate per rank
scen_down() {
	local tp pid lim
	lim=$(echo "$R $FAB_NS" | awk '{ printf "%.4f", $1 * ($2 - 1) / $2 }')
	for tp in $TRANSPORTS; do
		( sleep "$FAIL_AT"; echo "$(now)" >"$T/failt"; fab_fail 0 2 ) &
		pid=$!
		coll down "$tp" sendrecv "$lim" "${RING[*]}" -b "$DOWN_SIZE" -e "$DOWN_SIZE" -n "$DOWN_N" -w 0
		wait "$pid"
		kv fail_at "$(cat "$T/failt")"
		kv limit_before_mbit "$R"
		fab_restore 0 2 || log "down: the link did not come back"
	done
}

# --- MPI over the libfabric provider (Documentation/networking/spray-libfabric.rst)

LF=$top/userspace/libfabric

# mpi_job HOSTS_NETNS TRANSPORT: in MPIJOB, one mpirun of 8 ranks, rank i
# in the i-th namespace (userspace/libfabric/test/mpi_netns.sh), started in
# rank 0's namespace with a host name of its own; PMIx over TCP from the
# other namespaces
mpi_job() {
	local netns=$1 tp=$2 args
	if [ "$tp" = spray-ofi ]; then
		args=(--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include spray
		      --mca btl self -x FI_PROVIDER_PATH -x FI_SPRAY_IDLE_WAIT_US)
	else
		args=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include eth0
		      --mca mtl ^ofi)
	fi
	MPIJOB=(ip netns exec "${netns%%,*}" unshare --uts sh -c 'hostname spray-mpi && exec "$@"'
		mpirun mpirun --oversubscribe --bind-to none -np 8 --mca mpi_yield_when_idle 1
		"${args[@]}" -x "SPRAY_MPI_NETNS=$netns" "$LF/test/mpi_netns.sh")
}

scen_mpi() {
	local tp netns ca cb sz it pid
	[ -x "$LF/spray_mpi_test" ] && command -v fi_pingpong >/dev/null ||
		{ log "mpi: skipped: userspace/libfabric not built or libfabric-bin missing"; return 0; }
	export FI_PROVIDER_PATH=$LF PMIX_MCA_ptl_tcp_remote_connections=1 \
		PMIX_MCA_ptl_tcp_if_include=eth0 OMPI_ALLOW_RUN_AS_ROOT=1 \
		OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FI_SPRAY_IDLE_WAIT_US=1000
	netns=$(fab_netns_list "${RING[@]}")
	for tp in spray-ofi tcp; do
		run_begin "mpi-$tp"
		kv scenario mpi; kv transport "mpi-$tp"; kv tool mpi; kv op allreduce
		kv hosts "${RING[*]}"; kv limit_mbit "$R"; kv args "bench $MPI_SIZES $MPI_ITERS"
		mpi_job "$netns" "$tp"
		# shellcheck disable=SC2086
		timeout "${COLL_TIMEOUT:-1500}" "${MPIJOB[@]}" "$LF/spray_mpi_test" \
			bench $MPI_SIZES "$MPI_ITERS" >"$RUN/out.txt" 2>"$RUN/err"
		kv rc $?
		run_end
		log "mpi $tp allreduce: $(awk '/^allreduce/ { printf "%s:%s ", $3, $7 }' "$RUN/out.txt")(bytes:busbw Mbit/s)"
	done
	# ping-pong on one unshaped link (no fabric): the provider's cost
	# over the socket's, both bounded by the CPU
	bench_setup_ns ca cb || return 1
	ip link add eth0 mtu "$FAB_MTU" netns "$ca" type veth peer name eth0 mtu "$FAB_MTU" netns "$cb"
	ip -n "$ca" addr add 10.201.0.1/24 dev eth0
	ip -n "$cb" addr add 10.201.0.2/24 dev eth0
	ip -n "$ca" link set eth0 up
	ip -n "$cb" link set eth0 up
	bench_busywait 10000 ip netns exec "$ca" ping -c1 -W1 10.201.0.2 >/dev/null
	for sz in 64 1048576; do
		if [ "$sz" = 64 ]; then it=${BENCH_PP_ITERS_SMALL:-2000}; else it=${BENCH_PP_ITERS_LARGE:-50}; fi
		NOFAB=1 run_begin "mpi-pingpong-spray"
		kv scenario mpi; kv transport spray; kv tool pingpong; kv size "$sz"; kv iters "$it"
		ip netns exec "$cb" "$LF/spray_pingpong" -p 7471 >"$RUN/srv.txt" 2>&1 &
		pid=$!
		bench_busywait 10000 grep -q ready "$RUN/srv.txt"
		ip netns exec "$ca" timeout 300 "$LF/spray_pingpong" -p 7471 -S "$sz" -I "$it" \
			10.201.0.2 >"$RUN/out.txt" 2>&1
		kv rc $?
		wait "$pid"
		NOFAB=1 run_end
		log "mpi pingpong socket $sz B: $(tail -n 1 "$RUN/out.txt")"
		NOFAB=1 run_begin "mpi-pingpong-spray-ofi"
		kv scenario mpi; kv transport spray-ofi; kv tool pingpong; kv size "$sz"; kv iters "$it"
		ip netns exec "$cb" timeout 300 fi_pingpong -p spray -e rdm -S "$sz" -I "$it" \
			>"$RUN/srv.txt" 2>&1 &
		pid=$!
		bench_busywait 10000 sh -c "ip netns exec $cb ss -ltn | grep -q :47592"
		ip netns exec "$ca" timeout 300 fi_pingpong -p spray -e rdm -S "$sz" -I "$it" \
			10.201.0.2 >"$RUN/out.txt" 2>&1
		kv rc $?
		wait "$pid"
		NOFAB=1 run_end
		log "mpi pingpong fi_pingpong $sz B: $(tail -n 1 "$RUN/out.txt")"
	done
	ip netns del "$ca"; ip netns del "$cb"
}

# --- RoCEv2 (soft-RoCE) ------------------------------------------------------------

# roce_setup: an rxe device on every host's interface. On 6.1 rxe works only
# in the initial namespace: the hosts' interfaces move there (renamed rhI,
# same address, shaper and offloads), with policy routing that sends each
# host address's traffic out of its own interface and delivers what comes
# in on it locally. Later kernels get a try inside the namespaces first.
roce_setup() {
	local i j a b
	modprobe rdma_rxe 2>/dev/null || { ROCE_WHY="rdma_rxe does not load"; return 1; }
	command -v ib_send_bw >/dev/null || { ROCE_WHY="perftest is not installed"; return 1; }
	if [ "${BENCH_ROCE_NETNS:-auto}" != 0 ] && roce_try_netns; then
		ROCE_MODE=netns
		return 0
	fi
	b=$(mktemp)
	for i in "${RING[@]}"; do
		printf 'link set eth0 down\nlink set eth0 name rh%d\nlink set rh%d netns 1\n' "$i" "$i" |
			ip -n "${FAB_H[$i]}" -batch - || { ROCE_WHY="cannot move h$i's interface"; return 1; }
	done
	echo 1 >/proc/sys/net/ipv4/conf/all/accept_local
	{
		echo "rule add pref 1000 lookup local"
		echo "rule del pref 0"
		for i in "${RING[@]}"; do
			j=$(fab_leaf "$i") a=$(fab_addr "$i")
			echo "addr add $a/24 dev rh$i"
			echo "link set rh$i up"
			echo "rule add pref 10 iif rh$i lookup local"
			echo "rule add pref 20 from $a lookup $((200 + i))"
			echo "route add default via 10.$((j + 1)).$i.254 dev rh$i src $a table $((200 + i))"
		done
	} >"$b"
	ip -batch "$b" || { rm -f "$b"; ROCE_WHY="policy routing in the initial namespace failed"; return 1; }
	for i in "${RING[@]}"; do
		echo 1 >"/proc/sys/net/ipv4/conf/rh$i/accept_local"
		echo 0 >"/proc/sys/net/ipv4/conf/rh$i/rp_filter"
		fab_qdisc_cmds "rh$i"
	done >"$b"
	tc -force -batch "$b" 2>/dev/null
	for i in "${RING[@]}"; do echo "link add rxe$i type rxe netdev rh$i"; done >"$b"
	rdma -b "$b" || { rm -f "$b"; ROCE_WHY="rdma link add failed"; return 1; }
	rm -f "$b"
	ROCE_MODE=root
	# every host reaches the next one through the fabric
	for i in "${RING[@]}"; do
		bench_busywait 15000 ping -c1 -W1 -I "$(fab_addr "$i")" "$(fab_addr $(( (i + 1) % 8 )))" >/dev/null ||
			{ ROCE_WHY="h$i does not reach h$(( (i + 1) % 8 )) from the initial namespace"; return 1; }
	done
}

# roce_try_netns: rxe inside h0 and h1's namespaces, one short ib_send_bw;
# keeps the devices of every host if it works
roce_try_netns() {
	local i ok=1 pid
	for i in 0 1; do
		ip netns exec "${FAB_H[$i]}" rdma link add "rxe$i" type rxe netdev eth0 2>/dev/null || ok=0
	done
	if [ $ok = 1 ]; then
		: >"$T/rt-srv"
		roce_exec 1 timeout 30 ib_send_bw -d rxe1 -x "$(roce_gid 1)" -F -n 20 >"$T/rt-srv" 2>&1 &
		pid=$!
		bench_busywait 15000 grep -q "Waiting for client" "$T/rt-srv"
		roce_exec 0 timeout 20 ib_send_bw -d rxe0 -x "$(roce_gid 0)" -F -n 20 "$(fab_addr 1)" >"$T/rt-cli" 2>&1 || ok=0
		wait "$pid"
	fi
	for i in 0 1; do ip netns exec "${FAB_H[$i]}" rdma link del "rxe$i" 2>/dev/null; done
	if [ $ok = 0 ]; then
		ROCE_NETNS_WHY="inside network namespaces soft-RoCE failed: $(grep -m1 -i -E "fail|error|couldn" "$T/rt-cli" 2>/dev/null | tr -s ' ')"
		log "roce: $ROCE_NETNS_WHY; using the initial namespace"
		return 1
	fi
	for i in "${RING[@]}"; do
		ip netns exec "${FAB_H[$i]}" rdma link add "rxe$i" type rxe netdev eth0 || return 1
	done
	log "roce: soft-RoCE works inside the hosts' namespaces"
}

# roce_exec HOST CMD...: run CMD where host HOST's rxe device lives
roce_exec() {
	local i=$1
	shift
	if [ "$ROCE_MODE" = netns ] || [ -z "$ROCE_MODE" ]; then
		ip netns exec "${FAB_H[$i]}" "$@"
	else
		"$@"
	fi
}

# roce_gid HOST: the GID index of the host's IPv4 address (RoCEv2)
roce_gid() {
	local i=$1 g want
	want=$(fab_addr "$i" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
	for g in 0 1 2 3 4 5 6 7; do
		if [ "$(roce_exec "$i" cat "/sys/class/infiniband/rxe$i/ports/1/gids/$g" 2>/dev/null)" = "$want" ]; then
			echo "$g"
			return
		fi
	done
	echo 1
}

# roce_run SCEN TOOL LIMIT_MBIT SRC:DST...: one perftest pair per argument,
# all at once, 64 KiB messages for about $DUR s at the link rate.
# ib_write_bw runs for $DUR s (-D) and reports even a collapsed flow;
# ib_send_bw sleeps on completion events (-e), which perftest allows only
# with an iteration count (a flow that does not finish in time reports
# nothing). ib_write_bw's server does not poll, so eight pairs poll half
# as much as eight ib_send_bw pairs would. ECT(0) in the traffic class,
# as RoCEv2 fabrics run (for DCQCN): the AQM marks instead of dropping;
# rxe has no DCQCN, so it does not slow down on marks. The QP timeout is
# 4.096 us x 2^18 = 1.07 s (-u 18) instead of 2^14 = 67 ms: this fabric's
# 10 Mbit/s links stretch queueing delays a thousandfold (64 jumbo frames
# take 460 ms), and a real fabric's default would time out on queueing
# alone.
roce_run() {
	local scen=$1 tool=$2 limit=$3 f s d k=0 pids=() mode iters
	shift 3
	iters=$(( (FAB_RATE * 1000000 / 8 * DUR) / 65536 ))
	if [ "$tool" = ib_send_bw ]; then mode="-e -n $iters"; else mode="-D $DUR"; fi
	run_begin "$scen-roce"
	kv scenario "$scen"; kv transport roce; kv tool "$tool"; kv limit_mbit "$limit"
	kv flows "$*"; kv roce_mode "$ROCE_MODE"; kv perftest_mode "$mode"
	for f in "$@"; do
		d=${f#*:}
		# shellcheck disable=SC2086
		# line-buffered: "Waiting for client" must reach the file at once
		roce_exec "$d" timeout $((4 * DUR + 90)) stdbuf -oL "$tool" -d "rxe$d" -x "$(roce_gid "$d")" -F \
			$mode -p $((18515 + k)) -u 18 --tclass=2 --report_gbits >"$RUN/srv-$k.txt" 2>&1 &
		pids+=($!)
		k=$((k + 1))
	done
	bench_busywait 30000 sh -c "[ \$(cat $RUN/srv-*.txt | grep -c 'Waiting for client') -ge $k ]" ||
		log "roce: servers not ready: $(head -n 3 "$RUN/srv-0.txt" | tr '\n' ' ')"
	k=0
	for f in "$@"; do
		s=${f%%:*} d=${f#*:}
		# the client's own start and end times beside perftest's figure
		# shellcheck disable=SC2086
		( t0=$EPOCHREALTIME
		  roce_exec "$s" timeout $((4 * DUR + 60)) "$tool" -d "rxe$s" -x "$(roce_gid "$s")" -F \
			$mode -p $((18515 + k)) -u 18 --tclass=2 --report_gbits "$(fab_addr "$d")"
		  echo "rc $? wall $t0 $EPOCHREALTIME" ) >"$RUN/cli-$k.txt" 2>&1 &
		pids+=($!)
		k=$((k + 1))
	done
	wait "${pids[@]}"
	run_end
	log "$scen roce $tool: $(awk '$1 == 65536 && NF >= 5 { printf "%.2f ", $4 * 1000 }' "$RUN"/cli-*.txt) Mbit/s"
}

scen_roce() {
	local lim pid
	ROCE_WHY=
	ROCE_NETNS_WHY=
	if ! roce_setup; then
		log "roce: skipped: $ROCE_WHY"
		RUN=$RES; kv roce_skipped "$ROCE_WHY"
		return 0
	fi
	RUN=$RES; kv roce_mode "$ROCE_MODE"; kv roce_netns_note "$ROCE_NETNS_WHY"
	roce_run pair ib_write_bw "$R" 0:1
	roce_run pair ib_send_bw "$R" 0:1
	# shellcheck disable=SC2046
	roce_run ring ib_write_bw "$R" $(ring_pairs)
	fab_impair 0 1 loss 1%
	# shellcheck disable=SC2046
	roce_run loss ib_write_bw "$R" $(ring_pairs)
	fab_impair 0 1
	lim=$(echo "$R $FAB_NS" | awk '{ printf "%.4f", $1 * ($2 - 1) / $2 }')
	( sleep "$FAIL_AT"; echo "$(now)" >"$T/failt"; fab_fail 0 2 ) &
	pid=$!
	# shellcheck disable=SC2046
	roce_run down ib_write_bw "$lim" $(ring_pairs)
	wait "$pid"
	kv fail_at "$(cat "$T/failt")"
	kv limit_before_mbit "$R"
}

# --- scale-across --------------------------------------------------------------

# sa_shape: the fabric as two sites. Each leaf's four links to the spines
# become long-haul links: SA_RATE Mbit/s, a netem delay of SA_DELAY_MS on
# the leaf's side (so that each way between the leaves takes that long),
# RED ECN buffers of about 2 BDP of one link (marks from half a BDP to 1.5
# BDP queued, drops beyond 2). The host links run at twice the four
# links together: one connection's limit is the long links, not its host.
sa_shape() {
	local FAB_RATE=$FAB_RATE FAB_RED_MIN=$FAB_RED_MIN FAB_RED_MAX=$FAB_RED_MAX
	local FAB_RED_LIMIT=$FAB_RED_LIMIT i j k b bdpf
	b=$(mktemp)
	bdpf=$(awk -v r="$SA_RATE" -v d="$SA_DELAY_MS" -v f=$((FAB_MTU + 14)) \
		'BEGIN { x = r * 1e6 / 8 * 2 * d / 1000 / f; printf "%d", x < 1 ? 1 : x + 0.5 }')
	FAB_RATE=$((8 * SA_RATE))
	for i in $(seq 0 $((FAB_NH - 1))); do
		fab_qdisc_cmds eth0 >"$b"
		tc -n "${FAB_H[$i]}" -force -batch "$b" 2>/dev/null
	done
	for j in 0 1; do
		for i in $(seq "$j" 2 $((FAB_NH - 1))); do fab_qdisc_cmds "d$i"; done >"$b"
		tc -n "${FAB_L[$j]}" -force -batch "$b" 2>/dev/null
	done
	FAB_RATE=$SA_RATE
	FAB_RED_MIN=$(( bdpf / 2 > 2 ? bdpf / 2 : 2 ))
	FAB_RED_MAX=$(( 3 * bdpf / 2 > FAB_RED_MIN + 2 ? 3 * bdpf / 2 : FAB_RED_MIN + 2 ))
	FAB_RED_LIMIT=$(( 2 * bdpf > FAB_RED_MAX + 2 ? 2 * bdpf : FAB_RED_MAX + 2 ))
	SA_RED="min $FAB_RED_MIN max $FAB_RED_MAX limit $FAB_RED_LIMIT frames (one link's BDP: $bdpf frames)"
	for j in 0 1; do
		for k in $(seq 0 $((FAB_NS - 1))); do
			fab_qdisc_cmds "u$k" delay "${SA_DELAY_MS}ms"
		done >"$b"
		tc -n "${FAB_L[$j]}" -force -batch "$b" 2>/dev/null
	done
	for k in $(seq 0 $((FAB_NS - 1))); do
		{ fab_qdisc_cmds l0; fab_qdisc_cmds l1; } >"$b"
		tc -n "${FAB_S[$k]}" -force -batch "$b" 2>/dev/null
	done
	rm -f "$b"
	tc -n "${FAB_L[0]}" qdisc show dev u0 | grep -q netem &&
		tc -n "${FAB_S[0]}" qdisc show dev l1 | grep -q "red 20:"
}

# sa_tcp_cc ALGO: the hosts' TCP congestion control (per namespace)
sa_tcp_cc() {
	local n
	for n in "${FAB_H[@]}"; do
		ip netns exec "$n" sysctl -qw net.ipv4.tcp_congestion_control="$1" || return 1
	done
}

# sa_trace_start / sa_trace_stop: while a run goes, the sender's (h0) and
# the receiver's (h1) view of their connections twice a second (sprayctl
# -j peers: window, RTTs, packets in flight, credit outstanding), kept in
# the run's directory as peers-h0.jsonl and peers-h1.jsonl
SA_TRACE_PID=
sa_trace_start() {
	( while :; do
		for h in 0 1; do
			echo "{\"t\": $EPOCHREALTIME, \"h\": $h, \"peers\": $(ip netns exec "${FAB_H[$h]}" \
				"$CTL" -j peers 2>/dev/null | tr -d '\n' || echo null)}" >>"$T/peers-h$h.jsonl"
		done
		sleep 0.5
	  done ) &
	SA_TRACE_PID=$!
}
sa_trace_stop() {
	[ -n "$SA_TRACE_PID" ] && kill "$SA_TRACE_PID" 2>/dev/null && wait "$SA_TRACE_PID" 2>/dev/null
	SA_TRACE_PID=
	mv "$T"/peers-h*.jsonl "$RUN/" 2>/dev/null
}

scen_scaleacross() {
	local lim mode cc i rtt fr=$FAB_RATE
	lim=$((4 * SA_RATE))
	sa_shape || { log "scaleacross: cannot shape the long links"; fab_shape "$fr"; return 1; }
	rtt=$(ip netns exec "${FAB_H[0]}" ping -c 10 -i 0.2 -q "$(fab_addr 1)" 2>/dev/null |
		awk '/^rtt|^round-trip/ { split($4, a, "/"); print a[1] }')
	RUN=$RES
	kv sa_rate_mbit "$SA_RATE"; kv sa_delay_ms "$SA_DELAY_MS"; kv sa_limit_mbit "$lim"
	kv sa_host_rate_mbit $((8 * SA_RATE)); kv sa_red "$SA_RED"; kv sa_ping_min_ms "$rtt"
	kv sa_bdp_bytes "$(ip netns exec "${FAB_H[0]}" "$CTL" -t show | awk -F'\t' '$1 == "bdp-bytes" { print $2 }')"
	kv sa_size "$SA_SIZE x $SA_N"
	log "scaleacross: 4 links of $SA_RATE Mbit/s, $SA_DELAY_MS ms one way, RED $SA_RED; ping min $rtt ms"
	# what the emulator carries: raw UDP, one flow per long link
	FAB_RATE=$SA_RATE udp_run scaleacross "$lim" 0:1:0 0:1:1 0:1:2 0:1:3
	FAB_RATE=$fr
	for mode in $SA_MODES; do
		for i in "${RING[@]}"; do ip netns exec "${FAB_H[$i]}" "$CTL" set cc-mode "$mode" >/dev/null; done
		sa_trace_start
		COLL_LABEL=spray-$mode coll scaleacross spray incast "$lim" "1 0" \
			-b "$SA_SIZE" -e "$SA_SIZE" -n "$SA_N" -w 1
		sa_trace_stop
		kv cc_mode "$mode"
	done
	for i in "${RING[@]}"; do ip netns exec "${FAB_H[$i]}" "$CTL" set cc-mode "$CC_MODE" >/dev/null; done
	modprobe tcp_bbr 2>/dev/null
	for cc in $SA_TCP; do
		if ! sa_tcp_cc "$cc"; then
			log "scaleacross: TCP $cc is not available"
			run_begin "scaleacross-tcp-$cc"
			kv scenario scaleacross; kv transport "tcp-$cc"; kv tool spraycoll
			kv limit_mbit "$lim"; kv rc 127
			run_end
			continue
		fi
		COLL_LABEL=tcp-$cc coll scaleacross tcp incast "$lim" "1 0" \
			-b "$SA_SIZE" -e "$SA_SIZE" -n "$SA_N" -w 1
		kv tcp_cc "$cc"
	done
	sa_tcp_cc cubic
	fab_shape "$fr" || log "scaleacross: the fabric was not restored"
}

# --- main ------------------------------------------------------------------------------

bench_load_spray "$top/build/$KVER/spray.ko" || { log "cannot load spray.ko"; exit 1; }
t0=$(now)
# the fabric only for the scenarios that use it (cpu and datapath make
# their own veth)
NEEDFAB=0
for s in $SCEN; do
	case $s in cpu|datapath) ;; *) NEEDFAB=1 ;; esac
done
if [ $NEEDFAB = 1 ]; then
	fab_setup || { log "fabric setup failed"; exit 1; }
	log "fabric ready in $(echo "$t0 $(now)" | awk '{ printf "%.0f", $2 - $1 }') s: $FAB_NH hosts, 2 leaves, $FAB_NS spines, every link $FAB_RATE Mbit/s, MTU $FAB_MTU, tbf + red ecn"
	mptcp_endpoints
else
	log "no fabric: $SCEN"
fi
R=$FAB_RATE

RUN=$RES
: >"$RES/meta.env"
kv kernel "$(uname -r)"
kv date "$(date '+%Y-%m-%d %H:%M:%S %Z')"
kv quick "$QUICK"
kv rate_mbit "$FAB_RATE"; kv mtu "$FAB_MTU"; kv hosts "$FAB_NH"; kv spines "$FAB_NS"
kv tbf_burst_ms "$FAB_BURST_MS"
kv red "min $FAB_RED_MIN max $FAB_RED_MAX frames, probability $FAB_RED_P, limit $FAB_RED_LIMIT frames"
kv fail_at_s "$FAIL_AT"; kv converge_s "$FAB_CONVERGE"
kv scenarios "$SCEN"
kv guest_cpus "$(nproc)"
kv guest_load_start "$(cut -d' ' -f1-3 /proc/loadavg)"
kv host_load "${BENCH_HOST_LOAD:-}"
kv fabric "$NEEDFAB"
if [ $NEEDFAB = 1 ]; then
	kv fabric_setup_s "$(echo "$t0 $(now)" | awk '{ printf "%.0f", $2 - $1 }')"
	ip netns exec "${FAB_H[0]}" "$CTL" -j show >"$RES/spray-config.json" 2>/dev/null
	CC_MODE=$(ip netns exec "${FAB_H[0]}" "$CTL" -t show | awk -F'\t' '$1 == "cc-mode" { print $2 }')
	tc -n "${FAB_L[0]}" qdisc show dev u0 >"$RES/qdisc-example.txt"
else
	"$CTL" -j show >"$RES/spray-config.json" 2>/dev/null
fi
iperf3 --version 2>/dev/null | head -n 1 >"$RES/versions.txt"
dpkg-query -W perftest rdma-core iperf3 iproute2 linux-perf 2>/dev/null >>"$RES/versions.txt"
perf --version >>"$RES/versions.txt" 2>&1

for s in $SCEN; do
	t1=$(now)
	log "== $s"
	case $s in
	calib|cpu|datapath|pair|ring|nocc|allreduce|alltoall|incast|loss|down|scaleacross|roce|seed|mpi) "scen_$s" ;;
	*) log "unknown scenario $s" ;;
	esac
	log "== $s took $(echo "$t1 $(now)" | awk '{ printf "%.0f", $2 - $1 }') s"
done
RUN=$RES
kv guest_load_end "$(cut -d' ' -f1-3 /proc/loadavg)"
dmesg | grep -i -E "spray|rxe|warn|bug" | tail -n 50 >"$RES/dmesg-notes.txt"
log "done"

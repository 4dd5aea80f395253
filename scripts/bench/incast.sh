#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Incast benchmark (issue "congestion control signalled by both ends"):
# N senders -> 1 receiver through one shaped bottleneck with an ECN-marking
# AQM (scripts/bench/lib.sh bench_setup_dumbbell), ROUNDS rounds of every sender
# sending SIZE bytes at once; completion time of a round = from the start
# until every sender has every byte acknowledged (AF_SPRAY) or written and
# the receiver has read it all (TCP). Printed side by side: AF_SPRAY in each
# cc-mode (off, sender, receiver, both) and TCP (ECN on), p50 and p99 of the
# completion time, as a ratio to the ideal (N x SIZE at the bottleneck's
# payload rate), with the drops at the bottleneck.
#
#   scripts/bench/incast.sh [-k KVER] [-o OUTDIR]        boots the VM
#   env: INCAST_N (8) INCAST_SIZE (262144) INCAST_ROUNDS (10)
#        INCAST_RATE (5 Mbit/s) INCAST_TARGET (5 ms) INCAST_BDP (4096)
#
# Output: OUTDIR/incast.md (the table) and incast.json; default OUTDIR
# build/bench/incast-<timestamp>.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
N=${INCAST_N:-8}
SIZE=${INCAST_SIZE:-262144}
ROUNDS=${INCAST_ROUNDS:-10}
RATE=${INCAST_RATE:-5}
TARGET=${INCAST_TARGET:-5}
BDP=${INCAST_BDP:-4096}

if [ -z "${SPRAY_IN_VM:-}" ]; then
	KVER=$("$top/scripts/kver.sh" --default)
	OUT=
	while getopts "k:o:" o; do
		case $o in
		k) KVER=$OPTARG ;;
		o) OUT=$OPTARG ;;
		*) exit 2 ;;
		esac
	done
	[ -n "$OUT" ] || OUT=$top/build/bench/incast-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$OUT"
	make -s -C "$top" KVER="$KVER" module tools selftests >"$OUT/build.log" 2>&1 ||
		{ echo "incast: build failed, see $OUT/build.log" >&2; exit 1; }
	uptime >"$OUT/host-load.txt"
	"$top/scripts/vm.sh" -k "$KVER" -o "$OUT" -- env SPRAY_IN_VM=1 \
		INCAST_N="$N" INCAST_SIZE="$SIZE" INCAST_ROUNDS="$ROUNDS" \
		INCAST_RATE="$RATE" INCAST_TARGET="$TARGET" INCAST_BDP="$BDP" \
		scripts/bench/incast.sh >"$OUT/vm.log" 2>&1
	rc=$?
	uptime >>"$OUT/host-load.txt"
	[ -f "$OUT/incast.md" ] && cat "$OUT/incast.md"
	echo "results: $OUT"
	exit $rc
fi

# ---- inside the VM
source "$top/scripts/bench/lib.sh"
OUT=${SPRAY_OUT:-/tmp}
SC=$top/userspace/sprayctl/sprayctl
T=$(mktemp -d)
trap 'bench_cleanup_ns; rm -rf "$T"' EXIT
bench_load_spray "$top/build/$(uname -r)/spray.ko" || exit 1
bench_setup_dumbbell "$N" "$RATE" "$TARGET" "$BDP" || exit 1
HDR=$(awk '/define SPRAY_DATA_HDR_LEN/ { print $3 }' "$top/kernel/core/wire.h")
# seconds a round takes at the bottleneck's payload rate
IDEAL=$(python3 -c "print($N * $SIZE * 8 / ($RATE * 1e6 * (1500 - 28 - $HDR) / 1514))")
now_ms() { date +%s%3N; }

spray_round() {	# spray_round ROUND: one incast; prints its duration, ms
	local i pids=() t0 rc=0
	ip netns exec "$r" "$top/selftests/spray_sink" $R_ADDR 7000 \
		$((N * SIZE)) 120 >"$T/sink" &
	local sink=$!
	bench_busywait 10000 grep -q ready "$T/sink"
	t0=$(now_ms)
	for i in $(seq 1 "$N"); do
		ip netns exec "${S[$i]}" "$top/selftests/spray_msg" send \
			10.3.$i.1 0 $R_ADDR 7000 1 fixed:"$SIZE" "$1" >/dev/null 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	# a failed message never arrives: wait for the rest, not for it
	bench_busywait 20000 bench_not kill -0 $sink 2>/dev/null || kill $sink
	wait $sink || rc=1
	echo $(($(now_ms) - t0))
	return $rc
}

tcp_round() {	# tcp_round: one incast over TCP; prints its duration, ms
	local i pids=() t0 rc=0
	ip netns exec "$r" python3 -c '
import socket, sys, selectors
n, size = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.4.0.1", 5201)); s.listen(n); print("ready", flush=True)
sel = selectors.DefaultSelector(); left = n * size; done = 0
while done < n:
    c, _ = s.accept(); c.setblocking(False); sel.register(c, selectors.EVENT_READ)
    done += 1
while left > 0:
    for k, _ in sel.select():
        b = k.fileobj.recv(1 << 20)
        left -= len(b)
        if not b: sel.unregister(k.fileobj)
' "$N" "$SIZE" >"$T/tsrv" &
	local srv=$!
	bench_busywait 10000 grep -q ready "$T/tsrv"
	t0=$(now_ms)
	for i in $(seq 1 "$N"); do
		ip netns exec "${S[$i]}" python3 -c '
import socket, sys
s = socket.create_connection(("10.4.0.1", 5201)); s.sendall(bytes(int(sys.argv[1]))); s.close()' \
			"$SIZE" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	wait $srv || rc=1
	echo $(($(now_ms) - t0))
	return $rc
}

: >"$T/rows"
for mode in off sender receiver both tcp; do
	set -- $(bench_bottleneck_stats)
	s0=$1 d0=$2
	: >"$T/times"
	fails=0
	for k in $(seq 1 "$ROUNDS"); do
		if [ $mode = tcp ]; then
			tcp_round >>"$T/times" || fails=$((fails + 1))
		else
			for ns in "$r" "${S[@]}"; do
				ip netns exec "$ns" "$SC" set cc-mode $mode
			done
			spray_round "$k" >>"$T/times" || fails=$((fails + 1))
		fi
	done
	set -- $(bench_bottleneck_stats)
	echo "$mode $((($1 - s0) + ($2 - d0))) $(($2 - d0)) $fails $(tr '\n' ' ' <"$T/times")" >>"$T/rows"
	echo "incast: $mode done" >&2
done

python3 - "$T/rows" "$OUT" "$IDEAL" "$N" "$SIZE" "$RATE" "$TARGET" "$BDP" "$ROUNDS" <<'PY'
import json, sys
rows, out, ideal = sys.argv[1], sys.argv[2], float(sys.argv[3])
n, size, rate, target, bdp, rounds = sys.argv[4:10]
def q(v, f):
    v = sorted(v)
    return v[min(len(v) - 1, int(f * len(v)))] if v else 0
res = []
for line in open(rows):
    f = line.split()
    mode, pkts, drops, fails = f[0], int(f[1]), int(f[2]), int(f[3])
    t = [int(x) / 1000 for x in f[4:]]
    res.append(dict(transport="TCP" if mode == "tcp" else "AF_SPRAY",
                    cc_mode="-" if mode == "tcp" else mode,
                    rounds=len(t), failed_rounds=fails,
                    p50_s=q(t, 0.5), p99_s=q(t, 0.99),
                    p50_vs_ideal=q(t, 0.5) / ideal, p99_vs_ideal=q(t, 0.99) / ideal,
                    bottleneck_pkts=pkts, bottleneck_drops=drops,
                    drop_pct=100.0 * drops / pkts if pkts else 0))
tcp = next((r for r in res if r["transport"] == "TCP"), None)
md = ["# Incast %s -> 1, %s B each, %s rounds" % (n, size, rounds), "",
      "Bottleneck %s Mbit/s, fq_codel ecn (one queue, target %s ms), bdp-bytes %s; "
      "ideal round %.2f s (payload at the bottleneck's rate)." % (rate, target, bdp, ideal), "",
      "| transport | cc-mode | p50 s | p99 s | p50 / ideal | p99 / ideal | p99 / TCP p99 | drops at bottleneck | failed rounds |",
      "|---|---|---|---|---|---|---|---|---|"]
for r in res:
    vs = "%.2f" % (r["p99_s"] / tcp["p99_s"]) if tcp and tcp["p99_s"] else "-"
    md.append("| %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %d (%.1f%%) | %d |" % (
        r["transport"], r["cc_mode"], r["p50_s"], r["p99_s"], r["p50_vs_ideal"],
        r["p99_vs_ideal"], vs, r["bottleneck_drops"], r["drop_pct"], r["failed_rounds"]))
open(out + "/incast.md", "w").write("\n".join(md) + "\n")
json.dump(dict(n=int(n), size=int(size), rounds=int(rounds), rate_mbit=float(rate),
               aqm_target_ms=float(target), bdp_bytes=int(bdp), ideal_s=ideal,
               results=res), open(out + "/incast.json", "w"), indent=1)
print("\n".join(md))
PY

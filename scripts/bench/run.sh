#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF_SPRAY benchmarks: build, boot one VM (scripts/vm.sh), run
# scripts/bench/pair.sh inside it, keep the results.
#
#   scripts/bench/run.sh [-k KVER] [-o OUTDIR] [-r MBIT] [-s SECONDS] [-n REPS]
#                        [pair] [loss] [down] [rto]     (default: all)
#
# Results: OUTDIR (default build/bench/<timestamp>/): results.md,
# results.json, runs.jsonl (one line per run, samples included),
# meta.json, console.log, dmesg.log, *.diag if AF_SPRAY misbehaved.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
KVER=$(scripts/kver.sh --default)
OUT=
ENVS=()
while getopts "k:o:r:s:n:" o; do
	case $o in
	k) KVER=$OPTARG ;;
	o) OUT=$OPTARG ;;
	r) ENVS+=("BENCH_RATE=$OPTARG") ;;
	s) ENVS+=("BENCH_SECONDS=$OPTARG") ;;
	n) ENVS+=("BENCH_REPS=$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$OUT" ] || OUT=build/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
make -s KVER="$KVER" module tools selftests >"$OUT/build.log" 2>&1 ||
	{ echo "bench: build failed, see $OUT/build.log" >&2; exit 1; }
{ date; uptime; echo "QEMU processes on the host: $(pgrep -c qemu-system || true)"; } >"$OUT/host-load.txt"
set +e
# progress lines only; the whole console is in OUTDIR/console.log
scripts/vm.sh -k "$KVER" -o "$OUT" -t 1500 -- env "${ENVS[@]}" \
	scripts/bench/pair.sh "$@" | grep --line-buffered "bench:" >&2
rc=${PIPESTATUS[0]}
set -e
{ date; uptime; } >>"$OUT/host-load.txt"
[ -f "$OUT/results.md" ] && cat "$OUT/results.md"
echo "results: $(cd "$OUT" && pwd) (exit $rc)"
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF_SPRAY benchmark suite (Documentation/performance.rst): build, boot the
# VM (scripts/vm.sh) once per boot, run scripts/bench/suite.sh inside it on
# the leaf-spine fabric, then tables and plots (scripts/bench/report.py).
#
#   scripts/bench/run.sh [-k KVER] [-o OUTDIR] [-b BOOTS] [-r MBIT] [quick] [SCENARIO...]
#   make bench [KVER=...] [BENCH=quick] [BOOTS=N]
#   scripts/bench/run.sh datapath     # one boot, no fabric: AF_SPRAY vs TCP/UDP per core
#
# BENCH_* variables of the environment (suite.sh's knobs) reach the VM.
#
# Boot 1 runs the scenarios (default: all of suite.sh's); boots 2..BOOTS
# run the all-reduce again at the large sizes only ("seed"): the ECMP hash
# seed is drawn at boot, so each boot hashes the same flows differently.
# BOOTS defaults to 3, or 1 in quick mode (a short version of everything).
#
# Results: OUTDIR (default build/bench/<timestamp>/): results.md,
# results.json, *.png, host-load.txt and bootN/ (each VM's console.log,
# dmesg.log, meta.env and runs/: every run's raw output).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
KVER=$(scripts/kver.sh --default)
OUT=
BOOTS=${BOOTS:-}
ENVS=()
while getopts "k:o:b:r:" o; do
	case $o in
	k) KVER=$OPTARG ;;
	o) OUT=$OPTARG ;;
	b) BOOTS=$OPTARG ;;
	r) ENVS+=("FAB_RATE=$OPTARG") ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
QUICK=0
if [ "${1:-}" = quick ]; then
	QUICK=1
	shift
fi
SCEN=("$@")
[ -n "$BOOTS" ] || { [ $QUICK = 1 ] && BOOTS=1 || BOOTS=3; }
[ -n "$OUT" ] || OUT=build/bench/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
t_start=$(date +%s)
# CPU-bound figures without TCG's byte-at-a-time copies (scripts/vm.sh)
export SPRAY_VM_CPU=${SPRAY_VM_CPU:-max,-erms}
# what was measured: the tree (others change the transport while the suite
# runs) and the kernel
{
	echo "commit=$(git rev-parse --short HEAD 2>/dev/null)"
	echo "changed_files=$(git status --short kernel include 2>/dev/null | wc -l)"
	echo "kver=$KVER"
	echo "vm_cpu=$SPRAY_VM_CPU"
} >"$OUT/tree.env"

scripts/bench/deps.sh
make -s KVER="$KVER" module tools selftests >"$OUT/build.log" 2>&1 ||
	{ echo "bench: build failed, see $OUT/build.log" >&2; exit 1; }
echo "module_md5=$(md5sum <"build/$KVER/spray.ko" | cut -c1-12)" >>"$OUT/tree.env"
mkdir -p build/bench-tools
gcc -O2 -Wall -Wextra -o build/bench-tools/udpblast scripts/bench/udpblast.c 2>>"$OUT/build.log" ||
	{ echo "bench: udpblast does not build, see $OUT/build.log" >&2; exit 1; }
gcc -O2 -Wall -Wextra -pthread -o build/bench-tools/dpbench scripts/bench/dpbench.c 2>>"$OUT/build.log" ||
	{ echo "bench: dpbench does not build, see $OUT/build.log" >&2; exit 1; }
# the suite's knobs (BENCH_SECONDS, BENCH_DP_REPS, ...: see suite.sh) go
# into the VM as they are set here
for v in $(compgen -e | grep '^BENCH_'); do
	case $v in BENCH_QUICK|BENCH_HOST_LOAD|BENCH_UDPBLAST|BENCH_DPBENCH) ;; *) ENVS+=("$v=${!v}") ;; esac
done

# host_load WHEN: the host's load, for the noise it brings (the VM shares
# two cores with whatever else runs)
host_load() {
	{
		echo "== $1: $(date '+%Y-%m-%d %H:%M:%S')"
		uptime
		echo "QEMU processes: $(pgrep -c qemu-system || true)"
		ps -eo pcpu,etime,comm --sort=-pcpu | head -n 6
	} >>"$OUT/host-load.txt"
}

rc=0
for b in $(seq 1 "$BOOTS"); do
	if [ "$b" = 1 ]; then
		scen=("${SCEN[@]}")
	else
		# the extra boots only make sense for the all-reduce
		if [ ${#SCEN[@]} -gt 0 ] && ! printf '%s\n' "${SCEN[@]}" | grep -qx -e allreduce -e seed; then
			break
		fi
		scen=(seed)
	fi
	host_load "boot $b start"
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	echo "bench: boot $b of $BOOTS (${scen[*]:-all scenarios}), host load $load" >&2
	set +e
	# progress lines only; the whole console is in bootN/console.log
	scripts/vm.sh -k "$KVER" -o "$OUT/boot$b" -t 3000 -- env BENCH_QUICK=$QUICK \
		"BENCH_HOST_LOAD=$load (QEMU processes: $(pgrep -c qemu-system || true))" \
		BENCH_UDPBLAST="$here/build/bench-tools/udpblast" \
		BENCH_DPBENCH="$here/build/bench-tools/dpbench" "${ENVS[@]}" \
		scripts/bench/suite.sh "${scen[@]}" | grep --line-buffered "bench:" >&2
	r=${PIPESTATUS[0]}
	set -e
	host_load "boot $b end"
	[ "$r" = 0 ] || { echo "bench: boot $b ended with status $r" >&2; rc=$r; }
done
echo "wall_s=$(( $(date +%s) - t_start ))" >"$OUT/wall.env"
python3 scripts/bench/report.py "$OUT" || rc=1
echo "results: $OUT (exit $rc)"
exit $rc

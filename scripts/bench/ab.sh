#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two builds of spray.ko against each other in one boot: the transfer of
# the datapath scenario (scripts/bench/suite.sh: dpbench over one unshaped
# veth, the sending threads on CPU 0, the receiver on CPU 1), each module
# loaded afresh for each of its runs, in alternation (A B, then B A, ...:
# neither always runs first), TCP once a round for the ratios. The VM runs
# one vCPU at a time unless SPRAY_TCG_THREAD=multi, as the bench does.
# Prints, per variant, the median (min-max) of goodput and of guest CPU ns
# per byte, and the packets resent; Documentation/performance.rst ("How to
# compare two modules") says how to read them, with each round's own
# ratio B/A. With -i (QEMU's -icount, scripts/vm.sh's SPRAY_VM_ICOUNT)
# guest time counts instructions: the figures repeat within 0.5% whatever
# the host's load, but measure instructions, not the emulator's time
# (compare modules with it, not transports across modes); CPU ns/B is
# then limited by the 10 ms ticks of /proc/stat (about 1% at -n 300M).
#
#   scripts/bench/ab.sh [-k KVER] [-o OUTDIR] [-c CONNS] [-m MTU] [-n BYTES]
#                       [-r ROUNDS] [-p] [-i] A.ko B.ko
#   -c 1, -m 1500, -n 300M, -r 4; -p: a perf profile of each variant's
#   last run (top symbols per CPU, callers of those above 2%, the
#   sending CPU's inclusive costs); -i: icount (shift=0,sleep=off, the
#   vCPU without cmpxchg16b, and 6.1 booted with maxcpus=1, its second
#   CPU brought up after boot)
#
# OUTDIR (default build/bench/ab-<timestamp>/): runs.txt (a line per run),
# summary.txt (the table), the modules compared, their md5sums, and with
# -p perf-{A,B}-cpuN.txt, perf-{A,B}-callers.txt and perf-{A,B}-children0.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" = --in-vm ]; then
	# inside the VM: AB_* from the host, OUT is $SPRAY_OUT
	# shellcheck source=scripts/bench/lib.sh
	source "$here/scripts/bench/lib.sh"
	OUT=$SPRAY_OUT
	CTL=$here/userspace/sprayctl/sprayctl
	DPB=$here/build/bench-tools/dpbench
	port=7300
	mkns() {
		bench_setup_ns A B
		ip link add eth0 netns "$A" type veth peer name eth0 netns "$B"
		ip -n "$A" addr add 10.201.0.1/24 dev eth0
		ip -n "$B" addr add 10.201.0.2/24 dev eth0
		ip -n "$A" link set eth0 mtu "$AB_MTU"
		ip -n "$B" link set eth0 mtu "$AB_MTU"
		ip -n "$A" link set eth0 up
		ip -n "$B" link set eth0 up
		bench_busywait 10000 ip netns exec "$A" ping -c1 -W1 10.201.0.2 >/dev/null
	}
	unload() {
		ip -all netns delete
		[ -d /sys/module/spray ] || return 0
		bench_busywait 20000 rmmod spray 2>/dev/null ||
			echo "ab: spray.ko does not unload" >&2
	}
	# run VARIANT TRANSPORT [perf]: one transfer, one line of runs.txt
	run() {
		local v=$1 tp=$2 out retx=0 pre=()
		port=$((port + 1))
		if [ "$tp" = spray ]; then
			bench_load_spray "$OUT/$v.ko" || { echo "run $v load-failed" >>"$OUT/runs.txt"; return 1; }
		fi
		mkns
		[ "${3:-}" = perf ] && pre=(perf record -q -a -g -F 999 -e cpu-clock -o /tmp/perf.data --)
		[ "$tp" = spray ] && retx=$(ip netns exec "$A" "$CTL" -j stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["retx-pkts"])')
		out=$("${pre[@]}" "$DPB" -t "$tp" -R "$B" -S "$A" -a 10.201.0.2 -p "$port" \
			-g $((AB_MTU - 28)) -T 600 -m bulk -c "$AB_CONNS" -n "$AB_BYTES" -s 64K) || out='{"status": "failed"}'
		[ "$tp" = spray ] && retx=$(( $(ip netns exec "$A" "$CTL" -j stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["retx-pkts"])') - retx ))
		python3 - "$v" "$tp" "$retx" "$out" <<-'PY' | tee -a "$OUT/runs.txt"
		import json, sys
		v, tp, retx, out = sys.argv[1:]
		try:
		    d = json.loads(out)
		except ValueError:
		    d = {}
		if d.get("status") != "ok":
		    print("run", v, tp, "failed")
		else:
		    busy = ",".join("%.0f" % b for b in d["cpu_busy_pct"])
		    print("run %s %s goodput_mbps %.1f cpu_ns_per_byte %.2f busy %s retx %s sampled %.2f"
		          % (v, tp, d["goodput_mbps"], d["cpu_ns_per_byte"], busy, retx,
		             d.get("cpu_ns_per_byte_sampled", 0)))
		PY
		if [ ${#pre[@]} -gt 0 ]; then
			for cpu in 0 1; do
				perf report -i /tmp/perf.data --stdio --no-children -g none --sort sym --cpu "$cpu" 2>/dev/null |
					grep -v '^#' | grep -v '^$' | head -n 30 >"$OUT/perf-$v-cpu$cpu.txt"
			done
			# inclusive: what each function costs the sending CPU with its callees
			perf report -i /tmp/perf.data --stdio --children -g none --sort sym --cpu 0 2>/dev/null |
				grep -v '^#' | grep -v '^$' | head -n 150 >"$OUT/perf-$v-children0.txt"
			perf report -i /tmp/perf.data --stdio --no-children -g caller,0.5,callee --sort sym \
				--percent-limit 2 2>/dev/null | grep -v '^$' | head -n 600 >"$OUT/perf-$v-callers.txt"
		fi
		unload
	}
	# a kernel booted with maxcpus=1 (6.1 under SPRAY_VM_ICOUNT, see
	# scripts/vm.sh) brings its other CPUs up here
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ ! -f "$c" ] || [ "$(cat "$c")" = 1 ] || echo 1 >"$c"
	done
	: >"$OUT/runs.txt"
	for r in $(seq "$AB_ROUNDS"); do
		order="A B"
		[ $((r % 2)) = 0 ] && order="B A"
		for v in $order; do
			p=
			[ "$r" = "$AB_ROUNDS" ] && [ "$AB_PERF" = 1 ] && p=perf
			run "$v" spray $p || true
		done
		run TCP tcp || true
	done
	exit 0
fi

cd "$here"
KVER=$(scripts/kver.sh --default)
OUT=
CONNS=1 MTU=1500 BYTES=300M ROUNDS=4 PERF=0 ICOUNT=0
while getopts "k:o:c:m:n:r:pi" o; do
	case $o in
	k) KVER=$OPTARG ;;
	o) OUT=$OPTARG ;;
	c) CONNS=$OPTARG ;;
	m) MTU=$OPTARG ;;
	n) BYTES=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	p) PERF=1 ;;
	i) ICOUNT=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || { sed -n '18,24p' "$0" >&2; exit 2; }
for k in "$1" "$2"; do
	modinfo -F vermagic "$k" >/dev/null 2>&1 || { echo "ab: $k is not a module" >&2; exit 2; }
done
[ -n "$OUT" ] || OUT=build/bench/ab-$(date +%Y%m%d-%H%M%S)
# as the bench: without TCG's byte-at-a-time copies (scripts/vm.sh)
export SPRAY_VM_CPU=${SPRAY_VM_CPU:-max,-erms}
if [ $ICOUNT = 1 ]; then
	# (scripts/vm.sh then takes cmpxchg16b from the vCPU)
	export SPRAY_VM_ICOUNT=${SPRAY_VM_ICOUNT:-shift=0,sleep=off}
	# 6.1 never brings its second CPU up at boot under a fixed shift
	case $KVER in
	6.1.*) export SPRAY_VM_APPEND="${SPRAY_VM_APPEND:+$SPRAY_VM_APPEND }maxcpus=1" ;;
	esac
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cp "$1" "$OUT/A.ko"
cp "$2" "$OUT/B.ko"
{
	echo "A: $1 md5 $(md5sum <"$1" | cut -c1-12)"
	echo "B: $2 md5 $(md5sum <"$2" | cut -c1-12)"
	echo "kernel $KVER; $CONNS connection(s), MTU $MTU, $BYTES a run, $ROUNDS rounds; TCG thread=${SPRAY_TCG_THREAD:-single}, vCPU $SPRAY_VM_CPU, icount ${SPRAY_VM_ICOUNT:-off}"
} >"$OUT/modules.txt"
cat "$OUT/modules.txt"
scripts/bench/deps.sh >"$OUT/deps.log" 2>&1 ||
	{ echo "ab: scripts/bench/deps.sh failed, see $OUT/deps.log" >&2; exit 1; }
make -s KVER="$KVER" tools >"$OUT/build.log" 2>&1 ||
	{ echo "ab: build failed, see $OUT/build.log" >&2; exit 1; }
mkdir -p build/bench-tools
gcc -O2 -Wall -Wextra -pthread -o build/bench-tools/dpbench scripts/bench/dpbench.c 2>>"$OUT/build.log" ||
	{ echo "ab: dpbench does not build, see $OUT/build.log" >&2; exit 1; }
scripts/vm.sh -k "$KVER" -o "$OUT" -t 3000 -- env AB_CONNS="$CONNS" AB_MTU="$MTU" \
	AB_BYTES="$BYTES" AB_ROUNDS="$ROUNDS" AB_PERF="$PERF" \
	scripts/bench/ab.sh --in-vm | grep --line-buffered -o "run .*" || true
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import statistics, sys
out = sys.argv[1]
runs = {}
for line in open(f"{out}/runs.txt"):
    f = line.split()
    if len(f) < 4 or f[3] == "failed" or f[2] == "load-failed":
        runs.setdefault(f[1], {}).setdefault("failed", []).append(1)
        continue
    d = runs.setdefault(f[1], {})
    d.setdefault("gp", []).append(float(f[4]))
    d.setdefault("cpu", []).append(float(f[6]))
    d.setdefault("retx", []).append(int(f[10]))
def mm(x, p=1):
    return f"{statistics.median(x):.{p}f} ({min(x):.{p}f}-{max(x):.{p}f})" if x else "-"
tcp = runs.get("TCP", {})
print(f"{'variant':8} {'runs':>4} {'failed':>6}  {'goodput Mbit/s':24} {'CPU ns/B':22} {'x TCP':>6} {'CPU/B x TCP':>11} {'retx':>10}")
for v in ("A", "B", "TCP"):
    d = runs.get(v, {})
    gp, cpu = d.get("gp", []), d.get("cpu", [])
    xg = xc = "-"
    if gp and tcp.get("gp"):
        xg = f"{statistics.median(gp) / statistics.median(tcp['gp']):.2f}x"
        xc = f"{statistics.median(cpu) / statistics.median(tcp['cpu']):.2f}x"
    retx = mm([float(r) for r in d.get("retx", [])]) if v != "TCP" else "-"
    print(f"{v:8} {len(gp):>4} {len(d.get('failed', [])):>6}  {mm(gp):24} {mm(cpu, 2):22} {xg:>6} {xc:>11} {retx:>10}")
# each round's B/A (runs.txt lists a round's A and B before its TCP)
a, b = runs.get("A", {}), runs.get("B", {})
n = min(len(a.get("gp", [])), len(b.get("gp", [])))
if n and not a.get("failed") and not b.get("failed"):
    rg = [b["gp"][i] / a["gp"][i] for i in range(n)]
    rc = [b["cpu"][i] / a["cpu"][i] for i in range(n)]
    print(f"B/A by round: goodput {mm(rg, 3)}, CPU ns/B {mm(rc, 3)}")
failed = sum(len(d.get("failed", [])) for d in runs.values())
sys.exit(1 if failed or not runs else 0)
PY

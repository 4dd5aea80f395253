#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the AF_SPRAY fuzz harnesses (built by `make`) and print TAP.
#
#   run.sh [-t SECONDS] [HARNESS...]      default: 15 s each, every harness
#
# For each harness: first every input in regress/HARNESS/ is replayed (past
# crashes, one "ok" line for all of them), then the harness fuzzes for
# SECONDS starting from corpus/HARNESS/ (committed seeds) and
# build/work/HARNESS/ (what earlier runs found, kept between runs).
# A crash, a sanitizer report or an invariant failure makes the line
# "not ok", shows the report and leaves the input in build/crashes/HARNESS/;
# the exit status is then 1. Logs: build/logs/HARNESS.log.
set -u
cd "$(dirname "$0")"

secs=15
while getopts "t:" o; do
	case $o in
	t) secs=$OPTARG ;;
	*) echo "usage: $0 [-t SECONDS] [HARNESS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_pkt fuzz_txwin fuzz_rxwin fuzz_path fuzz_cc)

for h in "${harnesses[@]}"; do
	if [ ! -x "build/$h" ]; then
		echo "run.sh: build/$h missing (make first)" >&2
		exit 2
	fi
done

# options common to every run; symbolized reports, no leak check noise
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
opts=(-max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

n=0
failed=0
plan=${#harnesses[@]}
for h in "${harnesses[@]}"; do
	ls regress/"$h"/* >/dev/null 2>&1 && plan=$((plan + 1))
done
echo "1..$plan"

report() {	# report LOG: the useful lines of a crash, as TAP comments
	{
		grep -E "invariant failed|ERROR:|runtime error|SUMMARY" "$1" | head -n 4
		grep -E "^ +#[0-9]+ .*(kernel/|fuzz_[a-z]+\.c)" "$1" | head -n 8
	} | sed 's/^/# /'
}

mkdir -p build/logs
for h in "${harnesses[@]}"; do
	if ls regress/"$h"/* >/dev/null 2>&1; then
		n=$((n + 1))
		log=build/logs/$h-regress.log
		inputs=(regress/"$h"/*)
		if "build/$h" "${opts[@]}" "${inputs[@]}" >"$log" 2>&1; then
			echo "ok $n - $h regress, ${#inputs[@]} inputs replayed"
		else
			echo "not ok $n - $h regress: a past crash is back (log: selftests/fuzz/$log)"
			report "$log"
			failed=$((failed + 1))
		fi
	fi

	n=$((n + 1))
	log=build/logs/$h.log
	mkdir -p "build/work/$h" "build/crashes/$h"
	"build/$h" "${opts[@]}" -max_total_time="$secs" \
		-artifact_prefix="build/crashes/$h/" \
		"build/work/$h" "corpus/$h" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	seed=$(sed -n 's/^INFO: Seed: *//p' "$log" | head -n 1)
	if [ $rc -eq 0 ] && [ -n "$execs" ]; then
		echo "ok $n - $h ${secs}s, $execs execs"
	else
		unit=$(sed -n 's/.*Test unit written to *//p' "$log" | tail -n 1)
		echo "not ok $n - $h exit $rc after ${execs:-?} execs (seed $seed)" \
			"input: selftests/fuzz/${unit:-?}, log: selftests/fuzz/$log"
		report "$log"
		failed=$((failed + 1))
	fi
done
echo "# fuzz: $((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]

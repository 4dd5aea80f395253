#!/bin/bash
# The whole AF_SPRAY test suite, set-up included:
#   1. install what is missing (scripts/deps.sh),
#   2. build the module for every kernel of the matrix (W=1), the tools and
#      the selftests,
#   3. run the userspace unit tests (ASan + UBSan; the module's core and
#      the libfabric provider's matching) and the fuzz harnesses
#      (libFuzzer, a short bounded run each) on the host,
#   4. boot each kernel of the matrix in QEMU and run the selftests there,
#   5. build (or reuse) the debug kernel (KASAN, lockdep, kmemleak; scripts/
#      debug-kernel.sh) and run its CI subset there in two VMs, each with a
#      kmemleak check, when the hour allows (Documentation/networking/
#      spray-debug.rst); the VMs of 4 and 5 run as many at once as there
#      are host CPUs.
# Ends with "N passed, N failed"; exits non-zero on any failure.
#
#   scripts/test.sh [-k KVER]... [-D] [TEST...]
#   -D: without step 5 (also skipped when TESTs are named)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

kvers=()
debug=1
while getopts "k:D" o; do
	case $o in
	k) kvers+=("$OPTARG") ;;
	D) debug=0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

scripts/deps.sh || { echo "deps failed"; echo "0 passed, 1 failed"; exit 1; }
[ ${#kvers[@]} -gt 0 ] || mapfile -t kvers < <(scripts/kver.sh)

results=$top/build/results
rm -rf "$results"
mkdir -p "$results"
passed=0
failed=0
skipped=0
fail_logs=()

count_tap() {	# count_tap FILE...: add TAP results to the totals
	local p f s
	read -r p f s < <(cat "$@" | awk '
		/^ok .*# [Ss][Kk][Ii][Pp]/ { s++; next }
		/^ok / { p++ }
		/^not ok / { f++ }
		END { printf "%d %d %d\n", p, f, s }')
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}

step() {	# step NAME CMD...: a build step is one test
	local name=$1 log=$results/$1.log; shift
	if "$@" >"$log" 2>&1; then
		echo "ok - $name" | tee -a "$results/host.tap"
	else
		echo "not ok - $name (log: $log)" | tee -a "$results/host.tap"
		tail -n 30 "$log"
		fail_logs+=("$log")
	fi
}

for k in "${kvers[@]}"; do
	step "build-$k" make --no-print-directory KVER="$k" W=1 module
done
step build-tools make --no-print-directory tools selftests
step netlink-generated-match-spec scripts/ynl-gen.sh --check
step kernel-doc make --no-print-directory kdoc
step checkpatch make --no-print-directory style
if [ -d selftests/unit ]; then
	make --no-print-directory -C selftests/unit >"$results/unit.log" 2>&1
	rc=$?
	cat "$results/unit.log"
	grep -E "^(ok|not ok) " "$results/unit.log" >"$results/unit.tap"
	[ $rc -eq 0 ] || echo "not ok - unit tests exited $rc" >>"$results/unit.tap"
fi
if [ -d userspace/libfabric ]; then
	make --no-print-directory -C userspace/libfabric unit >"$results/libfabric-unit.log" 2>&1
	rc=$?
	tail -n 1 "$results/libfabric-unit.log"
	grep -E "^(ok|not ok) " "$results/libfabric-unit.log" >"$results/libfabric-unit.tap"
	[ $rc -eq 0 ] || echo "not ok - libfabric unit tests exited $rc (log: $results/libfabric-unit.log)" >>"$results/libfabric-unit.tap"
fi
if [ -d selftests/fuzz ]; then
	make --no-print-directory -C selftests/fuzz check >"$results/fuzz.log" 2>&1
	rc=$?
	grep -E "^(ok|not ok|#) " "$results/fuzz.log"
	grep -E "^(ok|not ok) " "$results/fuzz.log" >"$results/fuzz.tap"
	[ $rc -eq 0 ] || echo "not ok - fuzz harnesses exited $rc (log: $results/fuzz.log)" >>"$results/fuzz.tap"
fi
if [ -x selftests/spraycoll/run.sh ]; then
	selftests/spraycoll/run.sh >"$results/spraycoll-host.log" 2>&1
	rc=$?
	tail -n 3 "$results/spraycoll-host.log"
	grep -E "^(ok|not ok) " "$results/spraycoll-host.log" >"$results/spraycoll-host.tap"
	[ $rc -eq 0 ] || echo "not ok - spraycoll host tests exited $rc" >>"$results/spraycoll-host.tap"
fi
# The README's first command is a test too: its exit status is asserted.
[ $# -eq 0 ] && step demo scripts/demo.sh -k "${kvers[0]}"
count_tap "$results"/*.tap

# vm_suite KVER OUT TEST...: the selftests in a VM; counts them. A guest
# that dies mid-suite (emulation: a text-patching int3 under TCG, seen on
# 6.12) is booted again for the tests it had not finished, and the report
# says so; a death with spray.ko in the oops is a failure.
vm_suite() {
	local k=$1 out=$2 rc t died trace
	local -a planned=() finished=() left=()
	shift 2
	scripts/vm.sh -k "$k" -o "$out" -- selftests/run.sh "$@" >"$out.console" 2>&1
	rc=$?
	grep -E "^(ok|not ok|#) " "$out.console" | grep -v "^#  "
	if [ -f "$out/summary" ]; then
		count_tap "$out"/*.tap
		[ $rc -eq 0 ] || fail_logs+=("$out.console")
		return
	fi
	[ -f "$out/tests" ] && read -r -a planned <"$out/tests"
	[ -f "$out/times" ] && mapfile -t finished < <(awk '{ print $1 }' "$out/times")
	for t in "${planned[@]}"; do
		printf '%s\n' "${finished[@]}" | grep -qx -- "$t" || left+=("$t")
	done
	died=${left[0]:-}
	trace=$(grep -m1 -E "Oops|BUG:|Kernel panic|general protection" "$out.console")
	fail_logs+=("$out.console")
	if [ -z "$died" ] || [ ${#planned[@]} -eq 0 ]; then
		echo "not ok - VM $k produced no results ($trace)"
		failed=$((failed + 1))
		return
	fi
	if grep -q "\[spray\]" "$out.console"; then
		echo "not ok - VM $k died during $died with spray.ko in the trace: $trace"
		failed=$((failed + 1))
		return
	fi
	echo "# VM $k died during $died, outside spray.ko ($trace); booting again for the ${#left[@]} tests it had not finished"
	for t in "${finished[@]}"; do
		count_tap "$out/$t.tap"
	done
	echo "ok - VM $k: the guest died during $died outside spray.ko and was booted again for the tests left # SKIP emulation"
	skipped=$((skipped + 1))
	scripts/vm.sh -k "$k" -o "$out-again" -- selftests/run.sh "${left[@]}" >"$out-again.console" 2>&1
	rc=$?
	grep -E "^(ok|not ok|#) " "$out-again.console" | grep -v "^#  "
	if [ -f "$out-again/summary" ]; then
		count_tap "$out-again"/*.tap
		[ $rc -eq 0 ] || fail_logs+=("$out-again.console")
	else
		echo "not ok - VM $k died again ($(grep -m1 -E "Oops|BUG:|Kernel panic" "$out-again.console"))"
		failed=$((failed + 1))
		fail_logs+=("$out-again.console")
	fi
}

# 5. The debug kernel (KASAN, lockdep, kmemleak; scripts/debug-kernel.sh)
# runs its CI subset, the selftests of function, not of speed
# (hardening.sh, cc.sh, multipath.sh and collectives.sh take 20 to 60
# minutes there: make test-debug runs them all), in two VMs of about 16
# minutes each, queued behind the matrix's. The whole of CI must stay under
# an hour: its build (6 to 10 minutes on two idle cores, instant when
# cached) gets what is left of 55 minutes less the 38 the VMs need; a part
# that would start with less than 17 minutes left is skipped. What does not
# fit says so; make test-debug runs it.
# shellcheck disable=SC2034 # read through ${!tests} in debug_suite
DEBUG_CI_1="socket_test transfer_test reliability_test stress_test security.sh tsq.sh trains.sh"
# shellcheck disable=SC2034
DEBUG_CI_2="hostile_local netns.sh pmtu.sh hostile.sh trace.sh module.sh netlink.sh"
vms=("${kvers[@]}")
left=$((55 * 60 - SECONDS - 38 * 60))
if [ $debug = 0 ] || [ $# -gt 0 ]; then
	:
elif [ $left -lt 60 ]; then
	echo "ok - debug kernel # SKIP $(((left + 38 * 60) / 60)) minutes left of the hour: make test-debug runs it"
	skipped=$((skipped + 1))
elif DEBUG_REL=$(timeout $left scripts/debug-kernel.sh --build 2>"$results/debug-kernel.log"); rc=$?; [ $rc -ne 0 ]; then
	tail -n 5 "$results/debug-kernel.log"
	if [ $rc -eq 124 ]; then
		echo "ok - debug kernel # SKIP its build did not finish in $((left / 60)) minutes: make test-debug runs it"
		skipped=$((skipped + 1))
	else
		echo "not ok - debug kernel build (log: $results/debug-kernel.log)"
		failed=$((failed + 1))
		fail_logs+=("$results/debug-kernel.log")
	fi
else
	DEBUG_REL=${DEBUG_REL##*$'\n'}	# the last line: the release
	vms+=(debug-1 debug-2)
fi

# debug_suite N: part N of the debug kernel's CI subset; counts it
debug_suite() {
	local out=$results/vm-debug-$1 tests rc left
	tests=DEBUG_CI_$1
	left=$((55 * 60 - SECONDS))
	echo "# ==== VM debug kernel $DEBUG_REL, part $1: ${!tests}"
	if [ $left -lt $((17 * 60)) ]; then
		echo "ok - debug kernel, part $1 # SKIP $((left / 60)) minutes left of the hour: make test-debug runs it"
		skipped=$((skipped + 1))
		return
	fi
	# shellcheck disable=SC2086
	SPRAY_STRESS_SECS=60 SPRAY_DEBUG_VM_TIMEOUT=$left \
		scripts/debug-kernel.sh --test -n -o "$out" ${!tests} >"$out.log" 2>&1
	rc=$?
	grep -E "^(ok|not ok|#) " "$out.log" | grep -v "^#  "
	if [ -f "$out/summary" ]; then
		count_tap "$out"/*.tap
	else
		tail -n 5 "$out.log"
		echo "not ok - debug kernel VM, part $1, produced no results"
		failed=$((failed + 1))
	fi
	[ $rc -eq 0 ] || fail_logs+=("$out.log")
}

# The VMs run at once, one per host CPU (single-threaded TCG keeps a guest
# on one host thread), each with its totals in its own files.
vm_job() {	# vm_job KVER|debug-N TEST...
	local k=$1; shift
	passed=0 failed=0 skipped=0 fail_logs=()
	case $k in
	debug-*) debug_suite "${k#debug-}" ;;
	*)	echo "# ==== VM $k"
		vm_suite "$k" "$results/vm-$k" "$@" ;;
	esac
	echo "$passed $failed $skipped" >"$results/vm-$k.counts"
	printf '%s\n' "${fail_logs[@]}" >"$results/vm-$k.fail-logs"
}
slots=$(nproc)
n=0
echo "# VMs of ${vms[*]}, $slots at a time (build/results/vm-*.report)"
for k in "${vms[@]}"; do
	if [ $n -ge "$slots" ]; then
		wait -n
		n=$((n - 1))
	fi
	vm_job "$k" "$@" >"$results/vm-$k.report" 2>&1 &
	n=$((n + 1))
done
wait
for k in "${vms[@]}"; do
	cat "$results/vm-$k.report"
	read -r p f s <"$results/vm-$k.counts" || { p=0; f=1; s=0; echo "not ok - VM $k: no totals"; }
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	mapfile -t -O ${#fail_logs[@]} fail_logs < <(grep . "$results/vm-$k.fail-logs")
done

for l in "${fail_logs[@]}"; do
	echo "# log of a failure: $l"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the AF_SPRAY selftests inside the test VM (scripts/vm.sh): load
# spray.ko, run every test with TAP output, unload, and check the kernel log
# and taint. Results go to $SPRAY_OUT (one .tap file per test) and a summary
# line "passed failed skipped" to $SPRAY_OUT/summary.
#
#   selftests/run.sh [TEST...]    default: every test in the Makefile
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
KVER=${SPRAY_KVER:-$(uname -r)}
OUT=${SPRAY_OUT:-/tmp/spray-results}
export SPRAY_KO=${SPRAY_KO:-$top/build/$KVER/spray.ko}
mkdir -p "$OUT"
rm -f "$OUT"/*.tap "$OUT/summary"

# Tests in the order of the Makefile's lists; module.sh last (it reloads).
if [ $# -eq 0 ]; then
	set -- $(make -s -C "$here" --no-print-directory -f - print <<'MK'
include Makefile
print:
	@echo $(TEST_GEN_PROGS) $(TEST_PROGS)
MK
)
fi

# The plan, so that a runner whose guest died knows what was left.
echo "$@" >"$OUT/tests"

# Slow kernels (the debug kernel: scripts/debug-kernel.sh) scale the
# per-test timeout by SPRAY_TIMEOUT_MULT.
tmo=$((600 * ${SPRAY_TIMEOUT_MULT:-1}))

# Tests that the runner itself asserts, reported as one more TAP file.
rtap=$OUT/runner.tap
n=0
rok()   { n=$((n + 1)); echo "ok $n $*" | tee -a "$rtap"; }
rfail() { n=$((n + 1)); echo "not ok $n $*" | tee -a "$rtap"; }

source "$here/lib.sh"
dmesg -C
if spray_lib_load_spray "$SPRAY_KO"; then
	rok "load $SPRAY_KO"
else
	rfail "load $SPRAY_KO"
fi

# The sockets of the tests before (closed, lingering, or in a namespace on
# its way out) are gone before a test starts: their packets are not in its
# counters, drops or captures. Each holds a reference to the module.
quiet() {
	local i
	for i in $(seq 300); do
		[ "$(cat /sys/module/spray/refcnt 2>/dev/null || echo 0)" = 0 ] && break
		sleep 0.1
	done
	[ "$i" -gt 1 ] && echo "# waited $(((i - 1) / 10)).$(((i - 1) % 10)) s for the sockets of the tests before (refcnt $(cat /sys/module/spray/refcnt 2>/dev/null))"
}

# The kernel's problems, for the final check below and after each test.
problems="WARNING:|BUG:|Oops|general protection|possible recursive locking|circular locking|lockdep|KASAN|UBSAN|kmemleak|Call Trace"

# A warning that a later test's crash would hide (the final check never
# runs then, and the log is lost with the guest): after each test the
# kernel log's problem lines are counted and the taint is read; when
# either grew, the kernel log of that moment goes beside the test's TAP
# file ($OUT/TEST.kernel.log) and the new problems to the console, naming
# the test. The count catches what comes after a first taint (which the
# taint alone would not show again) and reports that set no taint (lockdep
# turning itself off). The final check still decides.
taint_seen=$(cat /proc/sys/kernel/tainted)
problems_seen=0
taint_check() {
	local now log n
	now=$(cat /proc/sys/kernel/tainted)
	log=$(dmesg)
	n=$(grep -cE "$problems" <<<"$log")
	if [ "$n" -le "$problems_seen" ] &&
	   { [ "$now" = "$taint_seen" ] || [ $((now & ~(4096 | 8192))) -eq 0 ]; }; then
		problems_seen=$n taint_seen=$now
		return 0
	fi
	printf '%s\n' "$log" >"$OUT/$1.kernel.log"
	echo "# kernel problems during $1 (taint $now, problem lines $problems_seen -> $n): its log in $1.kernel.log"
	# from the first problem line not reported yet
	awk -v skip="$problems_seen" -v re="$problems" \
		'$0 ~ re && ++seen > skip && !from { from = NR } from && NR < from + 60' \
		"$OUT/$1.kernel.log" | sed 's/^/#   /'
	problems_seen=$n taint_seen=$now
}

# Each test's duration (seconds) also goes to $OUT/times, a line per test.
: >"$OUT/times"
for t in "$@"; do
	quiet
	echo "# ---- $t"
	start=$SECONDS
	case $t in
	*.sh) (cd "$here" && timeout $tmo bash "./$t") ;;
	*) (cd "$here" && timeout $tmo "./$t") ;;
	esac >"$OUT/$t.tap" 2>&1
	rc=$?
	cat "$OUT/$t.tap"
	echo "# ---- $t took $((SECONDS - start)) s"
	echo "$t $((SECONDS - start))" >>"$OUT/times"
	taint_check "$t"
	if [ $rc -eq 4 ] && ! grep -q "^not ok" "$OUT/$t.tap"; then
		# kselftest's KSFT_SKIP: a prerequisite is missing
		rok "$t # SKIP $(sed -n 's/^1\.\.0 # SKIP //p' "$OUT/$t.tap" | head -n 1)"
	elif [ $rc -ne 0 ] && ! grep -q "^not ok" "$OUT/$t.tap"; then
		rfail "$t exited with status $rc"
	fi
done

if [ -d /sys/module/spray ]; then
	# Sockets closed by the tests may still be on their way out.
	for i in $(seq 100); do
		[ "$(cat /sys/module/spray/refcnt)" = 0 ] && break
		sleep 0.1
	done
	if rmmod spray; then
		rok "unload"
	else
		rfail "unload (refcnt $(cat /sys/module/spray/refcnt))"
	fi
else
	rfail "module was not loaded at the end"
fi

# Kernel log: no warning, bug, oops, lockdep or sanitizer report, and no
# taint but out-of-tree (O, 4096) and unsigned (E, 8192).
dmesg >"$OUT/kernel.log"
if grep -E "$problems" "$OUT/kernel.log" >"$OUT/kernel-problems.log"; then
	rfail "kernel log clean (see kernel-problems.log)"
	cat "$OUT/kernel-problems.log"
else
	rok "kernel log clean"
fi
taint=$(cat /proc/sys/kernel/tainted)
if [ $((taint & ~(4096 | 8192))) -eq 0 ]; then
	rok "kernel not tainted beyond out-of-tree/unsigned ($taint)"
else
	rfail "kernel tainted: $taint"
fi

cat "$OUT"/*.tap | awk '
	/^ok .*# [Ss][Kk][Ii][Pp]/ { s++; next }
	/^ok / { p++ }
	/^not ok / { f++ }
	END { printf "%d %d %d\n", p, f, s }' >"$OUT/summary"
read -r p f s <"$OUT/summary"
echo "# $KVER: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A debug kernel for AF_SPRAY: Debian's 6.1 (package linux-source-6.1) with
# KASAN, lockdep (PROVE_LOCKING), kmemleak, DEBUG_ATOMIC_SLEEP and debug
# objects, plus what scripts/vm.sh and the selftests need, built in; nothing
# else (allnoconfig + the fragment below), so the build stays short.
# Documentation/networking/spray-debug.rst has the options, timings and
# results.
#
#   scripts/debug-kernel.sh             build, or reuse the cached build; print
#                                       the release and the paths
#   scripts/debug-kernel.sh --release   print only the release (builds if needed)
#   scripts/debug-kernel.sh --build     build (or reuse) the kernel and spray.ko
#                                       for it (W=1); print the release
#   scripts/debug-kernel.sh --test [-n] [-o OUTDIR] [-x TEST]... [TEST...]
#                                       make test-debug: build the kernel, spray.ko
#                                       (W=1) and the selftests, run the selftests
#                                       (all, or TEST..., minus -x TEST) on it in
#                                       the VM, then the kmemleak check; -n: no
#                                       build, --build and the selftests' were
#                                       done (two such runs may share them)
#   scripts/debug-kernel.sh --in-vm [TEST...]
#                                       (inside the VM, what --test runs there)
#
# The build is cached in $SPRAY_DEBUG_KERNEL_CACHE (/var/cache/spray/debug-kernel)
# under a release named after a hash of the configuration fragment, the
# selftests' config, the source package version and the compiler, e.g.
# 6.1.192-spraydbg-0123abcd: a second run with the same inputs is instant.
# scripts/vm.sh -k RELEASE boots it; spray.ko builds against it with
#   make KVER=RELEASE KDIR=CACHE/RELEASE module
#
# Environment: SPRAY_DEBUG_JOBS (make -j, default 2), SPRAY_TIMEOUT_MULT
# (passed into the VM for the selftests' timeouts, default 6 under --test),
# SPRAY_STRESS_SECS (how long stress_test runs there, default 180), SPRAY_SLOW_ALL=1
# (reliability_test over IPv6 too, which a slow machine skips).
# The VM's tests run with KSFT_MACHINE_SLOW=yes: speed and delay checks
# (spray_lib_check_speed in selftests/lib.sh) report, not assert.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SPRAY_DEBUG_KERNEL_CACHE:-/var/cache/spray/debug-kernel}
JOBS=${SPRAY_DEBUG_JOBS:-2}
PKG=linux-source-6.1

# The options on top of allnoconfig. Anything the selftests' config fragment
# (selftests/config) asks as a module is built in instead: the VM has no
# /lib/modules for this kernel, and only spray.ko is ever loaded.
fragment_own() {
	cat <<'EOF'
# --- the VM: scripts/vm.sh (q35, serial console, 9p root, initramfs, sysrq poweroff)
CONFIG_64BIT=y
CONFIG_SMP=y
CONFIG_NR_CPUS=8
CONFIG_PREEMPT=y
CONFIG_HZ_250=y
CONFIG_NO_HZ_IDLE=y
CONFIG_HIGH_RES_TIMERS=y
CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y
CONFIG_SLUB=y
CONFIG_UNWINDER_ORC=y
CONFIG_KERNEL_GZIP=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_TTY=y
CONFIG_UNIX98_PTYS=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_ACPI=y
CONFIG_PCI=y
CONFIG_PCI_MSI=y
CONFIG_VIRTIO_MENU=y
CONFIG_VIRTIO_PCI=y
CONFIG_HW_RANDOM=y
CONFIG_HW_RANDOM_VIRTIO=y
CONFIG_NETWORK_FILESYSTEMS=y
CONFIG_NET_9P=y
CONFIG_NET_9P_VIRTIO=y
CONFIG_9P_FS=y
CONFIG_PROC_FS=y
CONFIG_PROC_SYSCTL=y
CONFIG_SYSFS=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_INOTIFY_USER=y
CONFIG_MAGIC_SYSRQ=y
CONFIG_PRINTK=y
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
# --- the selftests: namespaces, veth, dummy, bridge, qdiscs, ECMP, ss, MPTCP
CONFIG_NAMESPACES=y
CONFIG_SYSVIPC=y
CONFIG_UTS_NS=y
CONFIG_IPC_NS=y
CONFIG_PID_NS=y
CONFIG_NET_NS=y
CONFIG_USER_NS=y
CONFIG_NET=y
CONFIG_INET=y
CONFIG_IPV6=y
CONFIG_UNIX=y
CONFIG_PACKET=y
CONFIG_IP_ADVANCED_ROUTER=y
CONFIG_IP_ROUTE_MULTIPATH=y
CONFIG_INET_DIAG=y
CONFIG_INET_TCP_DIAG=y
CONFIG_INET_UDP_DIAG=y
CONFIG_MPTCP=y
CONFIG_MPTCP_IPV6=y
CONFIG_NETDEVICES=y
CONFIG_NET_CORE=y
CONFIG_VETH=y
CONFIG_DUMMY=y
CONFIG_BRIDGE=y
CONFIG_NET_SCHED=y
CONFIG_NET_SCH_NETEM=y
CONFIG_NET_SCH_TBF=y
CONFIG_NET_SCH_RED=y
CONFIG_NET_SCH_FQ_CODEL=y
# NET_UDP_TUNNEL (udp_tunnel, ip6_udp_tunnel: spray.ko's dependencies) has
# no prompt; the smallest driver that selects it built in
CONFIG_BAREUDP=y
# --- the checks
CONFIG_DEBUG_KERNEL=y
CONFIG_DEBUG_FS=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_KMEMLEAK=y
# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set
CONFIG_DEBUG_OBJECTS=y
CONFIG_DEBUG_OBJECTS_FREE=y
CONFIG_DEBUG_OBJECTS_TIMERS=y
CONFIG_DEBUG_OBJECTS_WORK=y
CONFIG_DEBUG_OBJECTS_RCU_HEAD=y
CONFIG_DEBUG_NET=y
# list corruption reported where it happens, not as a loop (an RCU stall)
CONFIG_DEBUG_LIST=y
EOF
}

fragment() {
	{ fragment_own; sed -n 's/=m$/=y/; /^CONFIG_/p' "$top/selftests/config"; } |
		awk -F= '!seen[$1]++'
}

die() { echo "debug-kernel: $*" >&2; exit 1; }

deps() {
	local p missing=()
	for p in $PKG flex bison libelf-dev bc gcc make xz-utils; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	echo "debug-kernel: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Sets SRC (the extracted source), REL (the release) and OBJ (the build
# directory, also the KDIR for out-of-tree modules).
identify() {
	local pkgver kver key
	deps
	pkgver=$(dpkg-query -W -f='${Version}' $PKG)
	SRC=$CACHE/src/$PKG-$pkgver
	key=$( { fragment; echo "$pkgver"; gcc --version | head -n 1; } |
		sha256sum | cut -c1-8)
	kver=${pkgver%%-*}	# 6.1.192-3 -> 6.1.192
	REL=$kver-spraydbg-$key
	OBJ=$CACHE/$REL
}

build() {
	local t0 frag missing
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock"
	flock 9	# one build at a time; a waiting second run finds it done
	if [ -f "$OBJ/.spray-done" ]; then
		return
	fi
	if [ ! -f "$SRC/.extracted" ]; then
		echo "debug-kernel: extracting /usr/src/$PKG.tar.xz" >&2
		rm -rf "$SRC" "$CACHE/src/$PKG"
		mkdir -p "$CACHE/src"
		tar -C "$CACHE/src" -xf /usr/src/$PKG.tar.xz
		mv "$CACHE/src/$PKG" "$SRC"
		touch "$SRC/.extracted"
	fi
	rm -rf "$OBJ"
	mkdir -p "$OBJ"
	frag=$OBJ/spray-debug.config
	{ fragment; echo "CONFIG_LOCALVERSION=\"-${REL#*-}\""; } >"$frag"
	echo "debug-kernel: configuring $REL in $OBJ" >&2
	KCONFIG_ALLCONFIG=$frag make -s -C "$SRC" O="$OBJ" allnoconfig >"$OBJ/build.log" 2>&1 ||
		{ tail -n 30 "$OBJ/build.log" >&2; die "configuration failed"; }
	# Every option asked for must have made it (no unmet dependency).
	missing=$(grep -E '^CONFIG_|^# CONFIG_' "$frag" | while read -r l; do
		case $l in
		"# "*) o=${l#\# }; o=${o%% *}
			! grep -q "^$o=" "$OBJ/.config" || echo "$l" ;;
		*) grep -qxF "$l" "$OBJ/.config" || echo "$l" ;;
		esac
	done)
	[ -z "$missing" ] || die "options not in the resulting .config: $missing"
	echo "debug-kernel: building (nice -n 19 make -j$JOBS), log $OBJ/build.log" >&2
	t0=$SECONDS
	if ! nice -n 19 make -C "$SRC" O="$OBJ" -j"$JOBS" >>"$OBJ/build.log" 2>&1; then
		tail -n 30 "$OBJ/build.log" >&2
		die "build failed (log $OBJ/build.log)"
	fi
	[ "$(cat "$OBJ/include/config/kernel.release")" = "$REL" ] ||
		die "release is $(cat "$OBJ/include/config/kernel.release"), expected $REL"
	echo "$((SECONDS - t0))" >"$OBJ/.build-seconds"
	echo "debug-kernel: built in $((SECONDS - t0)) s" >&2
	touch "$OBJ/.spray-done"
	ln -sfn "$REL" "$CACHE/latest"
}

# ---- inside the VM: kmemleak baseline, the selftests, kmemleak check
kmemleak_scan() { echo scan >/sys/kernel/debug/kmemleak; }

# kmemleak_summary LOG KO: one line per leaked object, innermost frame
# first. Everything but spray.ko is built in, so a frame in the module area
# is spray.ko's; once unloaded it prints as a bare address, named here from
# KO's symbols (this kernel has no KASLR: its module area starts at
# 0xffffffffa0000000, where the first module's .text goes). Prints the
# number of objects with a spray.ko frame last.
kmemleak_summary() {
	python3 - "$1" "$2" <<'PY'
import re, subprocess, sys
log, ko = sys.argv[1], sys.argv[2]
base = 0xffffffffa0000000
syms = []
try:
    out = subprocess.run(["objdump", "-t", ko], capture_output=True, text=True).stdout
    for l in out.splitlines():
        f = l.split()
        if len(f) >= 6 and f[-3] == ".text":
            syms.append((int(f[0], 16), f[-1]))
except OSError:
    pass
syms.sort()
def name(addr):
    off = addr - base
    best = [s for s in syms if s[0] <= off]
    return "spray.ko:%s+0x%x" % (best[-1][1], off - best[-1][0]) if best else "spray.ko:?"
ours = 0
for o in re.split(r"^(?=unreferenced object)", open(log).read(), flags=re.M):
    if not o.startswith("unreferenced object"):
        continue
    frames, mine = [], False
    for t in re.findall(r"\] (\S+)$", o, re.M):
        if re.fullmatch(r"0xffffffff[a-f][0-9a-f]{7}", t) or t.endswith("[spray]"):
            mine = True
            if t.startswith("0x"):
                t = name(int(t, 16))
        frames.append(t)
    ours += mine
    size = re.search(r"size (\d+)", o).group(1)
    print("leak: %s bytes%s: %s" % (size, " (spray.ko)" if mine else "", " < ".join(frames)))
print(ours)
PY
}

in_vm() {
	local kml=/sys/kernel/debug/kmemleak out=${SPRAY_OUT:-/tmp/spray-results}
	local ko=${SPRAY_KO:-$top/build/$(uname -r)/spray.ko} rc n ours tap t0
	mkdir -p "$out"
	tap=$out/kmemleak.tap
	if [ ! -w "$kml" ]; then
		echo "not ok 1 kmemleak available ($kml)" | tee "$tap"
		return 1
	fi
	# Baseline: what is unreferenced before spray.ko is loaded (boot-time
	# allocations) is marked as seen ("clear") and not reported later.
	t0=$SECONDS
	kmemleak_scan
	echo clear >"$kml"
	echo "# kmemleak baseline scan: $((SECONDS - t0)) s"
	"$top/selftests/run.sh" "$@"
	rc=$?
	# run.sh checked the kernel log up to here (kernel.log).
	dmesg -C

	# After the suite and the final rmmod. kmemleak reports an object
	# that no scan found a reference to, that is older than 5 s and whose
	# contents did not change since the previous scan: a fresh leak takes
	# two scans. An object on its way out (RCU callbacks, namespace
	# cleanup) can be reported by them and freed a moment later, and
	# kmemleak lists only objects still allocated: when something is
	# listed, a third scan 5 s later decides.
	: >"$tap"
	t0=$SECONDS
	kmemleak_scan
	sleep 5
	kmemleak_scan
	cat "$kml" >"$out/kmemleak.log"
	if [ -s "$out/kmemleak.log" ]; then
		sleep 5
		kmemleak_scan
		cat "$kml" >"$out/kmemleak.log"
	fi
	echo "# kmemleak scans after the suite: $((SECONDS - t0)) s"
	n=$(grep -c "^unreferenced object" "$out/kmemleak.log")
	if [ "$n" -eq 0 ]; then
		echo "ok 1 kmemleak: nothing unreferenced after the suite and rmmod" >>"$tap"
	else
		kmemleak_summary "$out/kmemleak.log" "$ko" >"$out/kmemleak-summary.log"
		ours=$(tail -n 1 "$out/kmemleak-summary.log")
		echo "not ok 1 kmemleak: $n objects unreferenced after the suite and rmmod, $ours allocated by spray.ko (kmemleak.log)" >>"$tap"
		head -n 10 "$out/kmemleak-summary.log" | grep "^leak" | sed 's/^/# /'
	fi
	# Nothing new in the kernel log meanwhile (the scans' own "kmemleak:
	# N new suspected memory leaks" is the check above).
	dmesg >"$out/kernel-after.log"
	if grep -E "WARNING:|BUG:|Oops|general protection|lockdep|KASAN|UBSAN|ODEBUG|Call Trace" \
		"$out/kernel-after.log" >"$out/kernel-after-problems.log"; then
		echo "not ok 2 kernel log clean during the kmemleak scans (kernel-after-problems.log)" >>"$tap"
		cat "$out/kernel-after-problems.log"
	else
		echo "ok 2 kernel log clean during the kmemleak scans" >>"$tap"
	fi
	cat "$tap"
	cat "$out"/*.tap | awk '
		/^ok .*# [Ss][Kk][Ii][Pp]/ { s++; next }
		/^ok / { p++ }
		/^not ok / { f++ }
		END { printf "%d %d %d\n", p, f, s }' >"$out/summary"
	read -r p f s <"$out/summary"
	echo "# $(uname -r), with the kmemleak check: $p passed, $f failed, $s skipped"
	[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
}

build_module() {	# spray.ko for the debug kernel, W=1
	make -C "$top" --no-print-directory KVER="$REL" KDIR="$OBJ" W=1 module
}

# ---- on the host: make test-debug
test_debug() {
	local out=$top/build/results-debug skip=() tests=() keep=() rc t0 o
	local OPTIND=1 nobuild=0
	while getopts "no:x:" o; do
		case $o in
		n) nobuild=1 ;;
		o) out=$OPTARG ;;
		x) skip+=("$OPTARG") ;;
		*) return 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	tests=("$@")
	if [ ${#skip[@]} -gt 0 ]; then
		# every test of the Makefile's lists (as run.sh), minus -x
		[ ${#tests[@]} -gt 0 ] || read -ra tests < <(make -s -C "$top/selftests" \
			--no-print-directory -f - print <<'MK'
include Makefile
print:
	@echo $(TEST_GEN_PROGS) $(TEST_PROGS)
MK
)
		for o in "${tests[@]}"; do
			[[ " ${skip[*]} " == *" $o "* ]] || keep+=("$o")
		done
		tests=("${keep[@]}")
	fi
	identify
	if [ $nobuild = 0 ]; then
		build
		cd "$top"
		if ! build_module || ! make --no-print-directory tools selftests; then
			echo "0 passed, 1 failed (build of spray.ko for $REL or of the selftests)"
			return 1
		fi
	elif [ ! -f "$OBJ/.spray-done" ]; then
		echo "0 passed, 1 failed (-n: no debug kernel $REL built)"
		return 1
	fi
	cd "$top"
	rm -rf "$out"
	mkdir -p "$out"
	t0=$SECONDS
	# The timeouts inside the VM (SPRAY_TIMEOUT_MULT) and the VM's own.
	# The console as it comes, and the time each test started (.times).
	: >"$out.times"
	scripts/vm.sh -k "$REL" -t "${SPRAY_DEBUG_VM_TIMEOUT:-10800}" -o "$out" -- \
		env SPRAY_TIMEOUT_MULT="${SPRAY_TIMEOUT_MULT:-6}" KSFT_MACHINE_SLOW=yes \
		${SPRAY_SLOW_ALL:+SPRAY_SLOW_ALL=$SPRAY_SLOW_ALL} \
		SPRAY_STRESS_SECS="${SPRAY_STRESS_SECS:-180}" \
		scripts/debug-kernel.sh --in-vm "${tests[@]}" 2>&1 | while IFS= read -r l; do
		printf '%s\n' "$l"
		l=${l%$'\r'}
		case $l in
		"# ---- "*|"# kmemleak"*|"# $REL"*) printf '%(%T)T %s\n' -1 "$l" >>"$out.times" ;;
		esac
	done >"$out.console"
	rc=${PIPESTATUS[0]}
	grep -E "^(ok|not ok|#) " "$out.console" | grep -v "^#  "
	echo "# debug kernel $REL: the VM took $((SECONDS - t0)) s; console $out.console"
	if [ -f "$out/summary" ]; then
		read -r p f s <"$out/summary"
		echo "$p passed, $f failed, $s skipped"
	else
		echo "0 passed, 1 failed (no results; console $out.console)"
		rc=1
	fi
	return "$rc"
}

case "${1:-}" in
--in-vm)
	shift
	set +e
	in_vm "$@"
	;;
--test)
	shift
	set +e
	test_debug "$@"
	;;
--release)
	identify
	build
	echo "$REL"
	;;
--build)
	identify
	build
	build_module >&2 || die "build of spray.ko for $REL failed"
	echo "$REL"
	;;
"")
	identify
	build
	echo "release $REL"
	echo "bzImage $OBJ/arch/x86/boot/bzImage"
	echo "vmlinux $OBJ/vmlinux"
	echo "build   $OBJ   (make KVER=$REL KDIR=$OBJ module)"
	echo "config  $OBJ/.config"
	[ -f "$OBJ/.build-seconds" ] && echo "built in $(cat "$OBJ/.build-seconds") s"
	;;
*)
	sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac

# SPDX-License-Identifier: GPL-2.0
# Helpers for the AF_SPRAY shell selftests (sourced). Results are TAP lines
# that selftests/run.sh counts.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NSLIST=()
HOLD_FDS=()
tap_n=0

ok()   { tap_n=$((tap_n + 1)); echo "ok $tap_n $*"; }
fail() { tap_n=$((tap_n + 1)); echo "not ok $tap_n $*"; FAILED=1; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n $* # SKIP"; }
check() {	# check "description" command...
	local what=$1; shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}
not() { ! "$@"; }
tap_end() { echo "1..$tap_n"; exit "${FAILED:-0}"; }

# setup_ns VAR...: create namespaces with random suffixes, names in VARs.
setup_ns() {
	local v name
	for v in "$@"; do
		name="$v-$(mktemp -u XXXXXX)"
		ip netns add "$name" || return 1
		ip -n "$name" link set lo up
		NSLIST+=("$name")
		eval "$v=$name"
	done
}

cleanup_ns() {
	local n
	for n in "${NSLIST[@]}"; do ip netns del "$n" 2>/dev/null; done
	NSLIST=()
}

# busywait TIMEOUT_MS command...: poll until the command succeeds.
busywait() {
	local timeout=$1 start now; shift
	start=$(date +%s%3N)
	while :; do
		"$@" && return 0
		now=$(date +%s%3N)
		[ $((now - start)) -ge "$timeout" ] && return 1
		sleep 0.05
	done
}

# hold_start NAME CMD...: run CMD (spray_hold or alike) in the background
# with its standard input held open, wait for its "ready PORT" line, and set
# NAME_PID, NAME_PORT and NAME_FD (close NAME_FD to end it: hold_stop NAME).
hold_start() {
	local name=$1 d fd word port; shift
	d=$(mktemp -d)
	mkfifo "$d/in" "$d/out"
	# The child must not inherit the write ends held for earlier children,
	# or those would never see end of file.
	(
		for fd in "${HOLD_FDS[@]}"; do [ -n "$fd" ] && exec {fd}>&-; done
		exec "$@" <"$d/in" >"$d/out"
	) &
	eval "${name}_PID=$!"
	exec {fd}>"$d/in"
	HOLD_FDS+=("$fd")
	eval "${name}_FD=$fd"
	read -r -t 20 word port <"$d/out"
	rm -rf "$d"
	eval "${name}_PORT=\${port:-}"
	[ "$word" = ready ]
}

hold_stop() {	# hold_stop NAME: close its stdin, wait, return its status
	local fd pid
	eval "fd=\$${1}_FD pid=\$${1}_PID"
	exec {fd}>&-
	HOLD_FDS=("${HOLD_FDS[@]/$fd}")
	wait "$pid"
}

module_refcnt() { cat /sys/module/spray/refcnt 2>/dev/null || echo gone; }
module_loaded() { [ -d /sys/module/spray ]; }

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# spraycoll selftest: every pattern with data check on 4 and 8 local ranks
# over loopback, JSON output, and the error paths (one rank, bad sizes,
# stalled and unreachable peers). Needs no root and no namespace changes.
#
# Transports: tcp and unix (the datagram engine of the spray transport over
# AF_UNIX) always; add spray (and mptcp) with
#   SPRAYCOLL_TRANSPORTS="tcp unix spray" ./run.sh    or    ./run.sh --spray
# spray is skipped with a SKIP line when socket(AF_SPRAY) fails with
# EAFNOSUPPORT (module not loaded). SPRAYCOLL=path picks the binary.
#
# Ends with "spraycoll: N passed, M failed"; exits 1 if any failed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
transports=${SPRAYCOLL_TRANSPORTS:-"tcp unix"}
for arg in "$@"; do
	case $arg in
	--spray) transports="$transports spray" ;;
	--mptcp) transports="$transports mptcp" ;;
	-h|--help) sed -n '3,15p' "$0"; exit 0 ;;
	*) echo "usage: $0 [--spray] [--mptcp]" >&2; exit 2 ;;
	esac
done

bin=${SPRAYCOLL:-$root/userspace/spraycoll/spraycoll}
if [ -z "${SPRAYCOLL:-}" ]; then
	make -s -C "$root/userspace/spraycoll" >/dev/null || {
		echo "spraycoll: build failed"; echo "spraycoll: 0 passed, 1 failed"
		exit 1
	}
fi

pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok()  { pass=$((pass + 1)); echo "PASS $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; sed 's/^/    /' "$tmp/err" | tail -n 8; }

# run NAME ARGS...: must exit 0, JSON must parse and report no wrong values
run() {
	local name=$1; shift
	if ! timeout 60 "$bin" "$@" -J >"$tmp/out" 2>"$tmp/err"; then
		bad "$name (exit $?)"
		return
	fi
	if ! python3 -m json.tool "$tmp/out" >/dev/null 2>>"$tmp/err"; then
		cat "$tmp/out" >>"$tmp/err"
		bad "$name (JSON does not parse)"
		return
	fi
	if ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok" and d["wrong_total"] == 0, "status/wrong"
assert d["results"], "no results"
for r in d["results"]:
    assert r["wrong"] == 0 and r["time_us"] > 0 and r["busbw_gbps"] >= 0
' "$tmp/out" 2>>"$tmp/err"; then
		bad "$name (bad results)"
		return
	fi
	ok "$name"
}

# fails NAME PATTERN ARGS...: must exit nonzero, stderr must match PATTERN
fails() {
	local name=$1 pat=$2 rc; shift 2
	timeout 60 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
		bad "$name (exit $rc, expected an error)"
	elif ! grep -qE -- "$pat" "$tmp/err"; then
		bad "$name (no message matching '$pat')"
	else
		ok "$name"
	fi
}

# env_fails NAME PATTERN VAR=VAL... -- ARGS...
env_fails() {
	local name=$1 pat=$2 rc; shift 2
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" timeout 60 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
		bad "$name (exit $rc, expected an error)"
	elif ! grep -qE -- "$pat" "$tmp/err"; then
		bad "$name (no message matching '$pat')"
	else
		ok "$name"
	fi
}

have_spray() {
	python3 - <<'PY'
import errno, socket, sys
try:
    socket.socket(13, socket.SOCK_DGRAM, 0).close()
except OSError as e:
    sys.exit(3 if e.errno == errno.EAFNOSUPPORT else 1)
PY
}

ops="allreduce reducescatter allgather alltoall broadcast incast sendrecv"
common="-b 1K -e 64K -f 8 -n 2 -w 1 -c -T 10"

for tp in $transports; do
	case $tp in
	spray)
		have_spray
		case $? in
		0) ;;
		3) echo "SKIP spray: socket(AF_SPRAY) fails with EAFNOSUPPORT (module not loaded)"
		   continue ;;
		*) echo "SKIP spray: socket(AF_SPRAY) fails"; continue ;;
		esac ;;
	mptcp)
		if ! timeout 20 "$bin" --local 2 -t mptcp -b 1K -e 1K -n 1 -w 0 \
			>/dev/null 2>"$tmp/err"; then
			echo "SKIP mptcp: $(tail -n 1 "$tmp/err")"
			continue
		fi ;;
	esac
	for n in 4 8; do
		for op in $ops; do
			run "$tp $op n=$n" --local $n -t $tp -o $op $common
		done
	done
	run "$tp allreduce hd n=8" --local 8 -t $tp -a hd -b 4 -e 64K -f 16 -n 2 -w 1 -c
	run "$tp allreduce ring n=8" --local 8 -t $tp -a ring -b 4 -e 64K -f 16 -n 2 -w 1 -c
	run "$tp allreduce n=5 (hd falls back to ring)" --local 5 -t $tp -a hd -b 4 -e 1M -f 32 -n 2 -w 1 -c
	run "$tp allreduce 4M multi-chunk -P" --local 4 -t $tp -b 4M -e 4M -n 2 -w 1 -c -P
	run "$tp broadcast 3M pipelined n=5" --local 5 -t $tp -o broadcast -b 3M -e 3M -n 2 -w 1 -c
	case $tp in
	unix|spray)
		for op in allreduce alltoall broadcast; do
			run "$tp $op shuffled 1K chunks n=8" --local 8 -t $tp \
				-o $op -C 1K --shuffle -b 64K -e 64K -n 2 -w 1 -c
		done ;;
	esac
done

# launch through the environment, as torchrun and mpirun would
port=$((20000 + RANDOM % 20000))
for r in 3 2 1; do
	RANK=$r WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
		timeout 60 "$bin" -o alltoall -b 1K -e 4K -n 2 -w 1 -c -T 10 \
		>/dev/null 2>"$tmp/env.$r" &
done
RANK=0 WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
	timeout 60 "$bin" -o alltoall -b 1K -e 4K -n 2 -w 1 -c -T 10 -J \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
wait
if [ $rc -eq 0 ] && python3 -m json.tool "$tmp/out" >/dev/null &&
   grep -q '"status": "ok"' "$tmp/out"; then
	ok "torchrun-style environment n=4"
else
	bad "torchrun-style environment n=4 (exit $rc)"
fi
port=$((port + 1))
for r in 1 3 2; do
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=4 \
		timeout 60 "$bin" --master 127.0.0.1:$port -o allgather \
		-b 1K -e 4K -n 2 -w 1 -c -T 10 >/dev/null 2>&1 &
done
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4 timeout 60 "$bin" \
	--master 127.0.0.1:$port -o allgather -b 1K -e 4K -n 2 -w 1 -c -T 10 \
	-J >"$tmp/out" 2>"$tmp/err"
rc=$?
wait
if [ $rc -eq 0 ] && grep -q '"status": "ok"' "$tmp/out"; then
	ok "Open MPI environment n=4"
else
	bad "Open MPI environment n=4 (exit $rc)"
fi

# errors: clear message, nonzero exit, no hang
fails "one rank" "at least 2 ranks" --local 1 -b 1K -e 1K
fails "size 0" "size 0" --local 4 -b 0 -e 1K
fails "size not a multiple of float" "not a multiple of 4" --local 4 -b 6 -e 6
fails "allgather size not a multiple of 4*ranks" "not a multiple of 16" \
	--local 4 -o allgather -b 1000 -e 1000
fails "min size above max size" "larger than max" --local 4 -b 2K -e 1K
fails "bad transport" "unknown transport" --local 4 -t carrier-pigeon
fails "no launcher" "no launcher" -b 1K -e 1K
fails "stalled peer names the peer" \
	"timeout after 1 s .*stalled peer\(s\): receiving from rank 2" \
	--local 4 -b 1K -e 1K -n 3 -w 0 -T 1 --inject stall:2
fails "unreachable peer names the peer" "cannot connect to rank 1 at" \
	--local 4 -b 1K -e 1K -n 2 -T 1 --boot-timeout 2 --inject noconnect:1
env_fails "unreachable bootstrap" "cannot reach the bootstrap \(rank 0\)" \
	RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 -- \
	--boot-timeout 1 -b 1K -e 1K
env_fails "rank outside world" "not below" RANK=4 WORLD_SIZE=4 \
	MASTER_ADDR=127.0.0.1 MASTER_PORT=1 -- -b 1K -e 1K
if ! have_spray; then
	fails "spray without the module" "AF_SPRAY .* not supported" \
		--local 2 -t spray -b 1K -e 1K --boot-timeout 5
fi

echo "spraycoll: $pass passed, $fail failed"
[ $fail -eq 0 ]

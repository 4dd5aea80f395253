#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# spraycoll (userspace/spraycoll) over the real module: every pattern with
# data check (-c) on 4 and 8 ranks over AF_SPRAY and TCP, every pattern
# over AF_SPRAY with netem loss on every link, the transport counters read
# over netlink (columns and JSON, retransmits under loss, packets per
# path), and the error paths (one rank, bad sizes, a stalled and an
# unreachable peer named, nonzero exit).
#
# Topology (selftests/spraycoll/topo.sh): one namespace per rank, each
# joined by a veth pair to a bridge in a switch namespace, 10.0.0.1-8/24.
source "$(dirname "$0")/lib.sh"
source "$here/spraycoll/topo.sh"
top=$(dirname "$here")
SC=$top/userspace/spraycoll/spraycoll
CTL=$top/userspace/sprayctl/sprayctl
tmp=$(mktemp -d)
trap 'spray_lib_cleanup_ns; rm -rf "$tmp"' EXIT

[ -x "$SC" ] || { spray_lib_fail "spraycoll built ($SC)"; spray_lib_tap_end; }
topo_setup 8 || { spray_lib_fail "topology: 8 rank namespaces on a bridge"; spray_lib_tap_end; }
spray_lib_ok "topology: 8 rank namespaces on a bridge"

NS8=$TOPO_NETNS
AD8=$TOPO_ADDRS
NS4=$(echo "$NS8" | cut -d, -f1-4)
AD4=$(echo "$AD8" | cut -d, -f1-4)
OPS="allreduce reducescatter allgather alltoall broadcast incast sendrecv"
# 4K: halving-doubling all-reduce on 2^k ranks, 256K: ring, several
# datagrams per transfer (-C 64K)
SIZES="-b 4K -e 256K -f 64 -n 1 -w 1 -C 64K"

# spraycoll N ARGS...: run on the first N ranks' namespaces
spraycoll() {
	local n=$1; shift
	if [ "$n" = 8 ]; then
		set -- --local 8 --netns "$NS8" --addrs "$AD8" "$@"
	else
		set -- --local "$n" --netns "$(echo "$NS8" | cut -d, -f1-"$n")" \
			--addrs "$(echo "$AD8" | cut -d, -f1-"$n")" "$@"
	fi
	# a slow kernel (SPRAY_TIMEOUT_MULT, the debug kernel) gets longer stall
	# timeouts; a -T of the caller's comes later and wins
	local m=${SPRAY_TIMEOUT_MULT:-1}
	[ "$m" = 1 ] || set -- -T $((10 * m)) "$@"
	timeout $((120 * m)) "$SC" "$@"
}

# json_ok FILE [PYTHON-CONDITION]: JSON parses, status ok, no wrong value
json_ok() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok" and d["wrong_total"] == 0, (d["status"], d["wrong_total"])
assert d["results"] and all(r["wrong"] == 0 and r["time_us"] > 0 for r in d["results"])
if len(sys.argv) > 2:
    assert eval(sys.argv[2]), sys.argv[2]
PY
}

# run NAME N ARGS...: spraycoll -J must succeed with exact results
run() {
	local name=$1 n=$2 rc t0=$SECONDS; shift 2
	spraycoll "$n" "$@" -c -J >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && json_ok "$tmp/out" "${COND:-True}" 2>>"$tmp/err"; then
		spray_lib_ok "$name ($((SECONDS - t0)) s)"
	else
		spray_lib_fail "$name (exit $rc)"
		sed 's/^/# /' "$tmp/err" | tail -n 12
	fi
}

# 1. every pattern, 4 and 8 ranks, AF_SPRAY and TCP
for tp in spray tcp; do
	for n in 4 8; do
		for op in $OPS; do
			if [ $tp = spray ]; then
				COND='all(r["spray"] and r["spray"]["tx_pkts"] > 0 for r in d["results"])'
			else
				COND='all("spray" not in r for r in d["results"])'
			fi
			COND=$COND run "$tp $op n=$n -c" $n -t $tp -o $op $SIZES
		done
	done
done

# 2. counters in the table: the columns are there and plausible
spraycoll 4 -t spray -o allreduce -b 1M -e 1M -n 2 -w 1 -c >"$tmp/out" 2>"$tmp/err"
spray_lib_check "table has retx, ecn, paths and share columns" \
	grep -qE '^#.*#wrong +retx +ecn +paths +share%min-max' "$tmp/out"
spray_lib_check "table row: 0 wrong, counters filled in" \
	awk '$1 == 1048576 { ok = ($9 == 0 && $10 ~ /^[0-9]+$/ && $11 ~ /^[0-9]+$/ && $12 == 256 && $13 ~ /^[0-9.]+-[0-9.]+$/) } END { exit !ok }' "$tmp/out"
spraycoll 4 -t tcp -o allreduce -b 64K -e 64K -n 1 -w 0 >"$tmp/out" 2>&1
spray_lib_check "no counter columns over tcp" spray_lib_not grep -q retx "$tmp/out"
spraycoll 4 -t spray --no-counters -o allreduce -b 64K -e 64K -n 1 -w 0 >"$tmp/out" 2>&1
spray_lib_check "no counter columns with --no-counters" spray_lib_not grep -q retx "$tmp/out"

# packets per path: 4 entropy values per peer, each carries about a quarter
for ns in "${TOPO_NS[@]}"; do ip netns exec "$ns" "$CTL" set nr-evs 4 >/dev/null; done
spraycoll 4 -t spray -o alltoall -b 4M -e 4M -n 2 -w 0 -c -J >"$tmp/out" 2>"$tmp/err"
spray_lib_check "nr-evs 4: 4 paths, each 15-35% of the packets (JSON)" json_ok "$tmp/out" \
	'all(r["spray"]["paths"] == 4 and all(15 <= s <= 35 for s in r["spray"]["path_share_pct"]) and abs(sum(r["spray"]["path_share_pct"]) - 100) < 0.1 for r in d["results"])'
python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["results"][0]["spray"]; print("# path shares %", r["path_share_pct"], "retx", r["retx_pkts"], "tx", r["tx_pkts"])' "$tmp/out" 2>/dev/null
spraycoll 4 -t spray -o alltoall -b 4M -e 4M -n 1 -w 0 >"$tmp/out" 2>"$tmp/err"
spray_lib_check "nr-evs 4: table prints the packets per path" grep -qE '^#   packets per path %:( [0-9.]+){4}$' "$tmp/out"
for ns in "${TOPO_NS[@]}"; do ip netns exec "$ns" "$CTL" set nr-evs 256 >/dev/null; done

# 3. every pattern over AF_SPRAY with 1% loss on every link, both ways
topo_netem "loss 1%"
LOSS='sum(r["spray"]["retx_pkts"] for r in d["results"]) > 0'
for op in $OPS; do
	COND=$LOSS run "spray $op n=4 -c, 1% loss, retransmits > 0" 4 -t spray -o $op $SIZES
done
for op in allreduce alltoall; do
	COND=$LOSS run "spray $op n=8 -c, 1% loss, retransmits > 0" 8 -t spray -o $op $SIZES
done
COND=True run "tcp allreduce n=4 -c, 1% loss" 4 -t tcp -o allreduce $SIZES
topo_netem ""

# 4. errors: a message, nonzero exit, no hang
# fails NAME PATTERN N ARGS...
fails() {
	local name=$1 pat=$2 n=$3 rc; shift 3
	spraycoll "$n" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qE -- "$pat" "$tmp/err"; then
		spray_lib_ok "$name"
	else
		spray_lib_fail "$name (exit $rc)"
		sed 's/^/# /' "$tmp/err" | tail -n 8
	fi
}
fails "one rank" "at least 2 ranks" 1 -t spray -b 1K -e 1K
fails "size 0" "size 0" 4 -t spray -b 0 -e 1K
fails "size not a multiple of 4" "not a multiple of 4" 4 -t spray -b 6 -e 6
fails "alltoall size not a multiple of 4 x ranks" "not a multiple of 32" 8 \
	-t spray -o alltoall -b 1000 -e 1000
fails "min above max" "larger than max" 4 -t spray -b 2K -e 1K
fails "chunk above the AF_SPRAY limit" "bad chunk size" 4 -t spray -C 8M -b 1K -e 1K
fails "unreachable peer over spray names it" \
	"cannot reach rank 1 at spray:10.0.0.2 .*Connection refused" \
	4 -t spray -b 64K -e 64K -n 2 -T 5 --boot-timeout 5 --inject noconnect:1
fails "stalled peer over spray names it" \
	"timeout after 2 s .*stalled peer\(s\): receiving from rank 2" \
	4 -t spray -b 4K -e 4K -n 3 -w 0 -T 2 --inject stall:2
fails "stalled peer over tcp names it" \
	"timeout after 2 s .*stalled peer\(s\): receiving from rank 2" \
	4 -t tcp -b 4K -e 4K -n 3 -w 0 -T 2 --inject stall:2
# a rank whose link dies after the bootstrap: its peers give up on it
ip netns exec "${TOPO_NS[3]}" bash -c 'sleep 2; tc qdisc change dev eth0 root netem limit 10000 loss 100%' &
fails "peer behind a dead link over spray names it" \
	"(cannot reach rank 3|from rank 3|to rank 3|for rank 3)" 4 -t spray -o allreduce -b 256K -e 256K -n 1000 -w 0 -T 4
wait
topo_netem ""

spray_lib_tap_end

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The libfabric provider "spray" (userspace/libfabric, Documentation/
# networking/spray-libfabric.rst) under real clients:
#
#   1. libfabric's fi_info lists it; fi_spray_test (the provider through
#      libfabric's API, manual progress and progress thread) passes, and
#      a fragment above the namespace's max-msg completes with EMSGSIZE;
#   2. fi_pingpong -p spray -e rdm between two namespaces, every size it
#      runs (0 B to 6 MiB);
#   3. Open MPI (pml cm, mtl ofi, mtl_ofi_provider_include spray), 8 ranks
#      in 8 namespaces: allreduce, reduce_scatter, allgather, alltoall,
#      bcast from 8 B to 64 MiB with results checked; point-to-point with
#      thousands of unexpected messages, MPI_Improbe/MPI_Mrecv and a
#      20 MiB message split and reassembled; mpi4py + numpy allreduce;
#   4. a rank whose link goes down mid-run: the job ends with an MPI error
#      and the provider's message naming the peer, not a hang.
#
# Topology (selftests/spraycoll/topo.sh): one namespace per rank, each
# joined by a veth pair to a bridge in a switch namespace, 10.0.0.1-8/24.
#
# Ranks in namespaces: one mpirun, every rank local to it, each started
# through userspace/libfabric/test/mpi_netns.sh, which enters the rank's
# namespace; Open MPI's wire-up (PMIx) uses Unix sockets, which network
# namespaces do not separate.
source "$(dirname "$0")/lib.sh"
source "$here/spraycoll/topo.sh"
top=$(dirname "$here")
LF=$top/userspace/libfabric
export FI_PROVIDER_PATH=$LF
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; spray_lib_cleanup_ns; rm -rf "$tmp"' EXIT
M=${SPRAY_TIMEOUT_MULT:-1}
PARTS=${LF_PARTS:-api pingpong mpi loss}	# a subset, when debugging
part() { [[ " $PARTS " == *" $1 "* ]]; }

for f in libspray-fi.so fi_spray_test spray_mpi_test; do
	[ -e "$LF/$f" ] || { spray_lib_fail "userspace/libfabric/$f built (make -C userspace/libfabric)"; spray_lib_tap_end; }
done
for t in fi_info fi_pingpong mpirun; do
	command -v $t >/dev/null || spray_lib_skip_all "$t not installed (scripts/deps.sh)"
done

# forward NAME CMD...: run a TAP program, its results as ours
forward() {
	local name=$1 line rc t0=$SECONDS; shift
	"$@" >"$tmp/fwd" 2>"$tmp/fwd.err"
	rc=$?
	while read -r line; do
		case $line in
		"ok "*) ok "$name: ${line#ok * }" ;;
		"not ok "*) fail "$name: ${line#not ok * }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$tmp/fwd"
	[ $rc -eq 0 ] || { spray_lib_fail "$name exited $rc"; sed 's/^/# /' "$tmp/fwd.err" | tail -n 5; }
	echo "# $name took $((SECONDS - t0)) s"
}

# 1. fi_info and the API test (in the VM's initial namespace: loopback)
if part api; then
fi_info -p spray >"$tmp/info" 2>&1
spray_lib_check "fi_info -p spray lists the provider, FI_EP_RDM" \
	grep -q "provider: spray$" "$tmp/info"
spray_lib_check "fi_info -p spray: no utility provider layered over it" \
	spray_lib_not grep -q "provider: spray;" "$tmp/info"
fi_info -p spray -c FI_RMA >/dev/null 2>&1
spray_lib_check "fi_info -p spray -c FI_RMA: nothing (no RMA)" test $? -ne 0
forward fi_spray_test timeout $((120 * M)) "$LF/fi_spray_test"
forward "fi_spray_test -a" timeout $((120 * M)) "$LF/fi_spray_test" -a
# a namespace whose max-msg (32 KiB) is below the provider's fragments
CTL=$top/userspace/sprayctl/sprayctl
max0=$("$CTL" -t show | awk -F'\t' '$1 == "max-msg" { print $2 }')
if "$CTL" set max-msg 32768 >/dev/null; then
	forward "fi_spray_test -e (max-msg 32 KiB)" timeout $((60 * M)) "$LF/fi_spray_test" -e
	"$CTL" set max-msg "${max0:-8388608}" >/dev/null
else
	spray_lib_fail "sprayctl set max-msg 32768"
fi
fi

topo_setup 8 || { spray_lib_fail "topology: 8 rank namespaces on a bridge"; spray_lib_tap_end; }
# jumbo frames, as AI fabrics run: under emulation the work is per packet
for i in "${!TOPO_NS[@]}"; do
	ip -n "$TOPO_SW" link set "v$i" mtu 9000
	ip -n "${TOPO_NS[$i]}" link set eth0 mtu 9000
done
ip -n "$TOPO_SW" link set br0 mtu 9000
spray_lib_ok "topology: 8 rank namespaces on a bridge, MTU 9000"
NS=("${TOPO_NS[@]}")
CTL=$top/userspace/sprayctl/sprayctl
# retry_limit N: the transport's retry limit in every rank namespace. Eight
# ranks polling on two emulated cores can starve the kernel for seconds:
# the bulk collectives run with a patient limit, the link failure with the
# default (about 3 s to give up on a peer).
RETRY0=$(ip netns exec "${NS[0]}" "$CTL" -t show | awk -F'\t' '$1 == "retry-limit" { print $2 }')
retry_limit() {
	local n
	for n in "${NS[@]}"; do ip netns exec "$n" "$CTL" set retry-limit "$1" >/dev/null; done
}
sysctl -qw net.core.netdev_max_backlog=10000

# 2. fi_pingpong between two namespaces, every size (-S all), 5 each
if part pingpong; then
t0=$SECONDS
ip netns exec "${NS[0]}" timeout $((240 * M)) fi_pingpong -p spray -e rdm -S all -I 5 \
	>"$tmp/pp-srv" 2>&1 &
srv=$!
PIDS+=($srv)
if spray_lib_busywait 10000 sh -c "ip netns exec ${NS[0]} ss -ltn | grep -q :47592"; then
	ip netns exec "${NS[1]}" timeout $((240 * M)) fi_pingpong -p spray -e rdm -S all -I 5 \
		10.0.0.1 >"$tmp/pp-cli" 2>&1
	rc=$?
	wait $srv
	src=$?
else
	rc=1 src=1
fi
nsizes=$(awk '$1 ~ /^[0-9]/' "$tmp/pp-cli" | wc -l)
echo "# fi_pingpong: $nsizes sizes, largest: $(awk '$1 ~ /^[0-9]/ { l = $0 } END { print l }' "$tmp/pp-cli")"
echo "# fi_pingpong -S all took $((SECONDS - t0)) s"
if [ $rc -eq 0 ] && [ $src -eq 0 ] && [ "$nsizes" -ge 40 ] &&
	! awk '$1 ~ /^[0-9]/ && $3 !~ /^=/' "$tmp/pp-cli" | grep -q .; then
	spray_lib_ok "fi_pingpong -p spray -e rdm -S all: $nsizes sizes, every message answered"
else
	spray_lib_fail "fi_pingpong -p spray -e rdm -S all (client $rc, server $src, $nsizes sizes)"
	tail -n 5 "$tmp/pp-cli" "$tmp/pp-srv" | sed 's/^/# /'
fi
ip netns exec "${NS[0]}" timeout $((60 * M)) fi_pingpong -p spray -e rdm -S 1048576 -I 20 -c \
	>"$tmp/pp-srv" 2>&1 &
srv=$!
spray_lib_busywait 10000 sh -c "ip netns exec ${NS[0]} ss -ltn | grep -q :47592"
ip netns exec "${NS[1]}" timeout $((60 * M)) fi_pingpong -p spray -e rdm -S 1048576 -I 20 -c \
	10.0.0.1 >"$tmp/pp-cli" 2>&1
rc=$?
wait $srv
spray_lib_check "fi_pingpong 1 MiB with data checks (-c)" test $rc -eq 0 -a $? -eq 0
fi

# 3. Open MPI over the provider, 8 ranks in 8 namespaces. mpirun runs in
# rank 0's namespace, in a UTS namespace of its own with a valid host name
# (the test VM has none); its PMIx server (TCP) listens on eth0 and takes
# connections from the other namespaces' ranks.
export PMIX_MCA_ptl_tcp_remote_connections=1 PMIX_MCA_ptl_tcp_if_include=eth0
# 8 ranks that poll without end on 2 emulated cores: let an idle rank wait
# for its socket (1 ms at most) so that the kernel gets the CPU that moves
# the packets (Documentation/networking/spray-libfabric.rst)
export FI_SPRAY_IDLE_WAIT_US=${FI_SPRAY_IDLE_WAIT_US:-1000}
NP=8
mpicmd() {	# mpicmd NP: the mpirun command line in MPICMD
	MPICMD=(ip netns exec "${TOPO_NS[0]}" unshare --uts sh -c 'hostname spray-mpi && exec "$@"'
		mpirun mpirun --oversubscribe --bind-to none -np "$1" "${MPIARGS[@]}")
}
MPIARGS=(--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include spray
	--mca btl self --mca mpi_yield_when_idle 1
	-x FI_PROVIDER_PATH -x FI_SPRAY_IDLE_WAIT_US -x "SPRAY_MPI_NETNS=$TOPO_NETNS" "$LF/test/mpi_netns.sh")

# mpi NAME TIMEOUT PROGRAM ARGS...: the job must print OK and exit 0
mpi() {
	local name=$1 t=$2 rc t0=$SECONDS; shift 2
	mpicmd $NP
	timeout $((t * M)) "${MPICMD[@]}" "$@" >"$tmp/mpi" 2>&1
	rc=$?
	grep -E "^(checked|WRONG|rank)" "$tmp/mpi" | sed 's/^/# /'
	if [ $rc -eq 0 ] && grep -qx OK "$tmp/mpi" && ! grep -q WRONG "$tmp/mpi"; then
		spray_lib_ok "$name ($((SECONDS - t0)) s)"
	else
		spray_lib_fail "$name (exit $rc)"
		tail -n 15 "$tmp/mpi" | sed 's/^/# /'
	fi
}
if part mpi; then
retry_limit 60
mpi "MPI collectives, 8 ranks, 8 B to 2 MiB (x8), checked" 150 \
	"$LF/spray_mpi_test" coll 8 2097152 1 8
mpi "MPI allreduce, 8 ranks, 64 MiB, checked" 200 \
	"$LF/spray_mpi_test" coll 67108864 67108864 1 4 allreduce
mpi "MPI point-to-point: 2100 unexpected messages, Improbe/Mrecv, 20 MiB" 120 \
	"$LF/spray_mpi_test" p2p 300
if python3 -c "import mpi4py, numpy" 2>/dev/null; then
	NP=2	# eight Python interpreters take minutes to start under emulation
	mpi "mpi4py: numpy allreduce of 1M float64, 2 ranks" 120 python3 -c '
from mpi4py import MPI
import numpy as np
c = MPI.COMM_WORLD
a = np.arange(1 << 20, dtype=np.float64) * (c.rank + 1)
b = np.empty_like(a)
c.Allreduce(a, b, op=MPI.SUM)
n = c.size
ok = np.array_equal(b, np.arange(1 << 20, dtype=np.float64) * (n * (n + 1) // 2))
ok = c.allreduce(int(ok), op=MPI.MIN)
if c.rank == 0:
    print("checked numpy allreduce" if ok else "WRONG")
    print("OK" if ok else "FAIL")
'
	NP=8
else
	spray_lib_skip "mpi4py: python3-mpi4py or python3-numpy missing"
fi
fi

# 4. rank 3 loses its link in the middle of an allreduce loop
part loss || spray_lib_tap_end
retry_limit "${RETRY0:-15}"
mpicmd 8
timeout $((300 * M)) "${MPICMD[@]}" "$LF/spray_mpi_test" loop 1048576 600 \
	>"$tmp/loss" 2>&1 &
job=$!
PIDS+=($job)
if spray_lib_busywait 60000 grep -q "^iteration 10$" "$tmp/loss"; then
	ip -n "$TOPO_SW" link set v3 down
	t0=$SECONDS
	wait $job
	rc=$?
	el=$((SECONDS - t0))
	grep -E "not delivered|failed|MPI_ERR" "$tmp/loss" | head -n 4 | sed 's/^/# /'
	spray_lib_check "link of rank 3 down: the job ends, no hang (exit $rc after $el s)" \
		test $rc -ne 0 -a $rc -ne 124
	spray_lib_check "the provider names the unreachable peer 10.0.0.4" \
		grep -qE "(to|from) 10\.0\.0\.4:[0-9]+ .*not delivered: Connection timed out" "$tmp/loss"
	spray_lib_check "and MPI reports the error" grep -qE "MPI_Allreduce failed|MPI_ERR" "$tmp/loss"
else
	spray_lib_fail "allreduce loop did not start"
	tail -n 10 "$tmp/loss" | sed 's/^/# /'
	kill $job 2>/dev/null
fi
spray_lib_tap_end

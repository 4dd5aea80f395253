#!/bin/bash
# The part of scripts/demo.sh that runs inside the VM: load spray.ko, build
# two hosts joined by four ECMP paths, send 50 MB of messages from one to
# the other and show how they spread over the paths and what sprayctl sees.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${SPRAY_KVER:-$(uname -r)}
SC=$top/userspace/sprayctl/sprayctl
source "$top/selftests/lib.sh"
say() { printf '\n== %s\n' "$*"; }
trap spray_lib_cleanup_ns EXIT

say "kernel $(uname -r): load build/$KVER/spray.ko"
spray_lib_load_spray "$top/build/$KVER/spray.ko"
dmesg | grep -i "AF_SPRAY" | tail -n 1

say "h1 - sw = 4 equal-cost paths = h2 (network namespaces, L4 ECMP hash)"
spray_lib_setup_fabric 4
echo "h1 $H1_ADDR  ->  h2 $H2_ADDR"

say "800 messages of 64 KiB, h1 -> h2, every byte checked"
before=$(spray_lib_paths_tx)
# both ends keep their sockets open afterwards (SPRAY_HOLD) for sprayctl
spray_lib_hold_start R ip netns exec "$h2" env SPRAY_HOLD=1 "$top/selftests/spray_msg" \
	recv $H2_ADDR 7000 800 fixed:65536 1 120
start=$(date +%s.%N)
spray_lib_hold_start S ip netns exec "$h1" env SPRAY_HOLD=1 "$top/selftests/spray_msg" \
	send $H1_ADDR 0 $H2_ADDR 7000 800 fixed:65536 1 || true
msgs() { ip netns exec "$h2" "$SC" -t stats | awk -F'\t' '$1 == "rx-msgs" { print $2 }'; }
all_in() { [ "$(msgs)" -ge 800 ]; }
spray_lib_busywait 60000 all_in
echo "h2 received $(msgs) messages, 52 MB, in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (TCG emulation)"
after=$(spray_lib_paths_tx)
spray_lib_share_ok "$before" "$after" 0 100 | sed 's/^# //'

say "sprayctl stats (h1, sender)"
ip netns exec "$h1" "$SC" stats | grep -E "^(tx-|retx|lost|ack-rx|nack-rx|tx-msgs|conn)"
say "sprayctl peers (h2, receiver)"
ip netns exec "$h2" "$SC" peers
say "sprayctl paths (h1): the first entropy values of the peer"
# all of the listing is read (head would end it with SIGPIPE: pipefail)
ip netns exec "$h1" "$SC" paths | awk 'NR <= 6'

say "unload"
spray_lib_hold_stop S || true
spray_lib_hold_stop R || true
spray_lib_cleanup_ns
rmmod spray && echo "spray.ko unloaded cleanly"

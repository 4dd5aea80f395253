#!/bin/bash
# The part of scripts/demo.sh that runs inside the VM.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${SPRAY_KVER:-$(uname -r)}
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "kernel $(uname -r): insmod build/$KVER/spray.ko"
for dep in $(modinfo -F depends "$top/build/$KVER/spray.ko" | tr , " "); do modprobe "$dep"; done
insmod "$top/build/$KVER/spray.ko"
dmesg | grep -i spray | tail -n 2
grep -E "^(protocol|SPRAY)" /proc/net/protocols | cut -c1-40

say "two namespaces joined by a veth pair"
ip netns add h1
ip netns add h2
ip link add v1 netns h1 type veth peer name v2 netns h2
ip -n h1 addr add 10.0.0.1/24 dev v1
ip -n h2 addr add 10.0.0.2/24 dev v2
ip -n h1 link set v1 up
ip -n h2 link set v2 up

say "an AF_SPRAY socket bound in each namespace"
ip netns exec h1 "$top/selftests/spray_hold" 10.0.0.1 7000 </dev/null
ip netns exec h2 "$top/selftests/spray_hold" 10.0.0.2 0 </dev/null

say "rmmod"
ip netns del h1
ip netns del h2
rmmod spray && echo "unloaded cleanly"

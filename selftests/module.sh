#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Module lifetime: an open socket pins the module (rmmod refused), unload
# succeeds once the last socket is closed, and the family comes back on
# reload; a closed socket still delivering its messages (an orphan) does
# not pin it: rmmod ends it. Expects spray.ko loaded; leaves it loaded.
source "$(dirname "$0")/lib.sh"
ko=${SPRAY_KO:?SPRAY_KO: path of spray.ko}

spray_lib_check "protocol SPRAY registered" grep -q "^SPRAY " /proc/net/protocols

spray_lib_check "socket open and bound" spray_lib_hold_start H "$here/spray_hold" 127.0.0.1 0
spray_lib_check "socket pins the module" [ "$(spray_lib_module_refcnt)" -ge 1 ]
if rmmod spray 2>/dev/null; then
	spray_lib_fail "rmmod refused while a socket is open"
	spray_lib_load_spray "$ko"
else
	spray_lib_ok "rmmod refused while a socket is open"
fi
spray_lib_check "module still loaded" spray_lib_module_loaded

spray_lib_hold_stop H
refcnt_zero() { [ "$(spray_lib_module_refcnt)" = 0 ]; }
spray_lib_check "refcount drops when the socket closes" spray_lib_busywait 5000 refcnt_zero
spray_lib_check "rmmod after close" rmmod spray
quiet_hold() { "$here/spray_hold" </dev/null >/dev/null 2>&1; }
spray_lib_check "family gone after unload" spray_lib_not quiet_hold
spray_lib_check "reload" spray_lib_load_spray "$ko"
spray_lib_check "family back after reload" quiet_hold

# An orphan: a message to a peer that never answers, its socket closed. It
# would linger for minutes (retry-limit 255, RTO up to 4 s); rmmod ends it.
SC=$(dirname "$here")/userspace/sprayctl/sprayctl
spray_lib_setup_ns nsO
trap spray_lib_cleanup_ns EXIT
ip -n "$nsO" addr add 10.91.0.1/24 dev lo
ip -n "$nsO" route add 10.92.0.0/24 dev lo
ip netns exec "$nsO" "$SC" set retry-limit 255 rto-max-us 4000000
ip netns exec "$nsO" "$here/spray_msg" send 10.91.0.1 7500 10.92.0.9 7500 1 fixed:1000 1 \
	</dev/null >/dev/null 2>&1 &
orphan=$!
bound() { [ "$(ip netns exec "$nsO" "$SC" -j stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["bound-sockets"])')" = "$1" ]; }
spray_lib_check "a sender with a message nobody acknowledges" spray_lib_busywait 10000 bound 1
kill $orphan; wait $orphan 2>/dev/null
spray_lib_check "its socket closed, it lingers" bound 1
spray_lib_check "the orphan does not pin the module" spray_lib_busywait 5000 refcnt_zero
spray_lib_check "rmmod ends it" rmmod spray
spray_lib_check "reload after that" spray_lib_load_spray "$ko"
spray_lib_check "the namespace goes" ip netns del "$nsO"
spray_lib_tap_end

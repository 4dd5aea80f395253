#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Module lifetime: an open socket pins the module (rmmod refused), unload
# succeeds once the last socket is closed, and the family comes back on
# reload. Expects spray.ko loaded; leaves it loaded.
source "$(dirname "$0")/lib.sh"
ko=${SPRAY_KO:?SPRAY_KO: path of spray.ko}

check "protocol SPRAY registered" grep -q "^SPRAY " /proc/net/protocols

check "socket open and bound" hold_start H "$here/spray_hold" 127.0.0.1 0
check "socket pins the module" [ "$(module_refcnt)" -ge 1 ]
if rmmod spray 2>/dev/null; then
	fail "rmmod refused while a socket is open"
	load_spray "$ko"
else
	ok "rmmod refused while a socket is open"
fi
check "module still loaded" module_loaded

hold_stop H
refcnt_zero() { [ "$(module_refcnt)" = 0 ]; }
check "refcount drops when the socket closes" busywait 5000 refcnt_zero
check "rmmod after close" rmmod spray
quiet_hold() { "$here/spray_hold" </dev/null >/dev/null 2>&1; }
check "family gone after unload" not quiet_hold
check "reload" load_spray "$ko"
check "family back after reload" quiet_hold
tap_end

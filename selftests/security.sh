#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Who may configure AF_SPRAY and who sees what (netlink.sh covers the
# basic cases: an unprivileged uid, the root of a new user+net namespace).
# Here the gaps:
#  - configuration needs CAP_NET_ADMIN in the user namespace that owns the
#    network namespace: root without that capability is refused, and so is
#    the root of a child user namespace that shares a namespace owned by
#    another (a container root cannot reconfigure its host's namespace);
#    a refused request changes nothing;
#  - every dump and event stays in its namespace: sockets, peers, paths,
#    counters and events of one namespace are invisible from another, also
#    from a user namespace's own network namespace, while the namespace
#    itself sees them (positive controls).
#
#   nsA: a sender and a receiver with traffic between them, sockets held
#   nsB: nothing of its own
source "$(dirname "$0")/lib.sh"
top=$(dirname "$here")
SC=$top/userspace/sprayctl/sprayctl
tmp=$(mktemp -d)
cleanup() {
	[ -n "${H_FD:-}" ] && spray_lib_hold_stop H 2>/dev/null
	[ -n "${HR_FD:-}" ] && spray_lib_hold_stop HR 2>/dev/null
	[ -n "${HS_FD:-}" ] && spray_lib_hold_stop HS 2>/dev/null
	jobs -p | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	spray_lib_cleanup_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

[ -x "$SC" ] || { spray_lib_fail "sprayctl built ($SC)"; spray_lib_tap_end; }
spray_lib_setup_ns nsA nsB || { spray_lib_fail "setup namespaces"; spray_lib_tap_end; }
scn() { local ns=$1; shift; ip netns exec "$ns" "$SC" "$@"; }
KEY=
val() { "$@" | awk -F'\t' -v k="$KEY" '$1 == k { print $2 }'; }
# refused CMD...: sprayctl exits 1 with EPERM
refused() {
	"$@" >/dev/null 2>"$tmp/err"
	[ $? -eq 1 ] && grep -q "Operation not permitted" "$tmp/err"
}

# ---- configuration needs CAP_NET_ADMIN over the namespace
KEY=nr-evs
evs=$(val scn "$nsA" -t show)
spray_lib_check "root without CAP_NET_ADMIN cannot set" refused ip netns exec "$nsA" \
	setpriv --inh-caps=-net_admin --bounding-set=-net_admin "$SC" set nr-evs 5
spray_lib_check "  and the setting is unchanged" [ "$(val scn "$nsA" -t show)" = "$evs" ]
quiet() { "$@" >/dev/null; }
spray_lib_check "root without CAP_NET_ADMIN can still read the configuration" \
	quiet ip netns exec "$nsA" setpriv --inh-caps=-net_admin \
	--bounding-set=-net_admin "$SC" show
if unshare -U -r true 2>/dev/null; then
	# nsA belongs to the initial user namespace; a child user namespace's
	# root entered it (unshare -U after ip netns exec): no capability there
	spray_lib_check "a child user namespace's root cannot set a namespace it does not own" \
		refused ip netns exec "$nsA" unshare -U -r "$SC" set nr-evs 6
	spray_lib_check "  and the setting is unchanged" [ "$(val scn "$nsA" -t show)" = "$evs" ]
	spray_lib_check "  it can read it" quiet ip netns exec "$nsA" unshare -U -r "$SC" show
	# ... while the owner of a namespace configures it, from inside
	own() {
		unshare -U -r -n sh -c "'$SC' set nr-evs 7 idle-timeout-ms 1234 && '$SC' -t show" >"$tmp/own"
		grep -q "^nr-evs	7$" "$tmp/own" && grep -q "^idle-timeout-ms	1234$" "$tmp/own"
	}
	spray_lib_check "the root of a user namespace configures the namespace it owns" own
	spray_lib_check "  which changed no other namespace" [ "$(val scn "$nsA" -t show)" = "$evs" ]
else
	spray_lib_skip "user namespaces unavailable: $(unshare -U -r true 2>&1 | head -1)"
fi

# ---- isolation of dumps, counters and events
ip -n "$nsA" addr add 10.0.7.1/32 dev lo
ip -n "$nsB" addr add 10.0.7.1/32 dev lo
spray_lib_hold_start H ip netns exec "$nsA" "$here/spray_hold" 10.0.7.1 7000
spray_lib_check "a socket held in nsA" [ "${H_PORT:-}" = 7000 ]
# a receiver that keeps its connection after the transfer
spray_lib_hold_start HR ip netns exec "$nsA" env SPRAY_HOLD=1 "$here/spray_msg" recv \
	10.0.7.1 7001 20 fixed:3000 1 60
before_b=$(scn "$nsB" -t stats)
before_a=$(scn "$nsA" -t stats)
# a sender that keeps its connection (and paths) after it is done
spray_lib_hold_start HS ip netns exec "$nsA" env SPRAY_HOLD=1 "$here/spray_msg" send \
	10.0.7.1 7002 10.0.7.1 7001 20 fixed:3000 1
# (spray_lib_hold_start keeps the line's second word on: "sent 20 bytes ...")
spray_lib_check "traffic in nsA: 20 messages sent and acknowledged ($HS_PORT)" \
	[ "${HS_PORT:-}" = "20 bytes 60000 unacked 0 failed 0" ]
spray_lib_check "nsA lists its sockets" [ "$(scn "$nsA" -t sockets | wc -l)" -ge 2 ]
spray_lib_check "nsB lists none of nsA's sockets" [ -z "$(scn "$nsB" -t sockets)" ]
spray_lib_check "nsA lists its peers" [ "$(scn "$nsA" -t peers | wc -l)" -ge 2 ]
spray_lib_check "nsB lists none of nsA's peers" [ -z "$(scn "$nsB" -t peers)" ]
spray_lib_check "nsA lists its paths" [ "$(scn "$nsA" -t paths | wc -l)" -ge 1 ]
spray_lib_check "nsB lists none of nsA's paths" [ -z "$(scn "$nsB" -t paths)" ]
KEY=rx-msgs
spray_lib_check "nsA's counters moved" [ "$(echo "$before_a" | val cat)" != "$(scn "$nsA" -t stats | val cat)" ]
spray_lib_check "nsB's counters did not move" [ "$before_b" = "$(scn "$nsB" -t stats)" ]
# Events: a message to a port nobody holds is a peer-unreachable event.
# Multicast delivery is synchronous, so an event of nsB seen by nsB's
# monitor after nsA's events is a fence: had those leaked, they would be
# in its output before it.
timeout 60 ip netns exec "$nsA" "$SC" -t monitor >"$tmp/monA" 2>&1 &
mA=$!
timeout 60 ip netns exec "$nsB" "$SC" -t monitor >"$tmp/monB" 2>&1 &
mB=$!
unreachable() {	# unreachable NS SRCPORT: one event in NS
	ip netns exec "$1" "$here/spray_msg" fail 10.0.7.1 "$2" 10.0.7.1 9 10 >/dev/null
}
seen() { [ "$(grep -c ":$2" "$1")" -ge "$3" ]; }
# each monitor listens (retried until its own namespace's event shows)
spray_lib_check "nsB's monitor sees nsB's events" \
	spray_lib_busywait 20000 eval 'unreachable "$nsB" 7004; seen "$tmp/monB" 7004 1'
spray_lib_check "nsA's monitor sees nsA's events" \
	spray_lib_busywait 20000 eval 'unreachable "$nsA" 7003; seen "$tmp/monA" 7003 1'
unreachable "$nsA" 7003
n=$(grep -c ":7004" "$tmp/monB")
unreachable "$nsB" 7004
spray_lib_check "  (fence: nsB's next event arrived)" spray_lib_busywait 10000 seen "$tmp/monB" 7004 $((n + 1))
kill $mA $mB 2>/dev/null
wait $mA $mB 2>/dev/null
spray_lib_check "nsB's monitor got none of nsA's events" spray_lib_not grep -q ":7003" "$tmp/monB"

if unshare -U -r -n true 2>/dev/null; then
	spray_lib_check "a user namespace's own namespace sees no socket of another" \
		[ -z "$(unshare -U -r -n "$SC" -t sockets)" ]
	spray_lib_check "  no peer" [ -z "$(unshare -U -r -n "$SC" -t peers)" ]
	KEY=tx-pkts
	spray_lib_check "  and counters of its own (zero)" [ "$(unshare -U -r -n "$SC" -t stats | val cat)" = 0 ]
else
	spray_lib_skip "user namespaces unavailable"
fi
spray_lib_check "  and received" spray_lib_hold_stop HR; HR_FD=
spray_lib_hold_stop HS; HS_FD=
spray_lib_hold_stop H; H_FD=
spray_lib_tap_end

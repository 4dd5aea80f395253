#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The "spray" generic netlink family, driven by sprayctl and by the kernel's
# own YNL client:
#
#   init_net        nsA               nsB           unshare -Urn (userns)
#   defaults        set nr-evs 3      untouched     set refused (EPERM)
#                   2 sockets         1000 sockets
#
# every op with valid and invalid attributes (the kernel's extack text is
# checked), golden outputs, JSON, a sockets dump bigger than one message.
source "$(dirname "$0")/lib.sh"
top=$(dirname "$here")
SC=$top/userspace/sprayctl/sprayctl
KSRC=${KSRC:-/var/cache/spray/linux-source-6.12}
YNL=$KSRC/tools/net/ynl/cli.py
SPEC=$top/Documentation/netlink/specs/spray.yaml
SCHEMA=$KSRC/Documentation/netlink/genetlink.yaml
tmp=$(mktemp -d)
cleanup() {
	local n
	for n in H1 H2 HM HP HR; do
		eval "[ -n \"\${${n}_FD:-}\" ]" && hold_stop "$n" 2>/dev/null
	done
	cleanup_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

[ -x "$SC" ] || { fail "sprayctl built ($SC)"; tap_end; }
setup_ns nsA nsB || { fail "setup namespaces"; tap_end; }

sc() { "$SC" "$@"; }
scn() { local ns=$1; shift; ip netns exec "$ns" "$SC" "$@"; }
# refused CMD... : sprayctl exits 1 (kernel refused); stderr in $tmp/err
refused() { "$@" >/dev/null 2>"$tmp/err"; [ $? -eq 1 ]; }
err_has() { grep -q -- "$1" "$tmp/err" || { cat "$tmp/err" >&2; false; }; }
usage_err() { "$@" >/dev/null 2>&1; [ $? -eq 2 ]; }
val() { "$@" | awk -F'\t' -v k="$KEY" '$1 == k { print $2 }'; }
# golden NAME CMD...: output, volatile numbers normalized, equals golden/NAME
golden() {
	local name=$1; shift
	"$@" | sed -E "$NORM" >"$tmp/$name"
	diff -u "$here/golden/$name" "$tmp/$name" >&2
}

# ---- config-get / config-set
check "config-get works" sc show
KEY=udp-port; check "default udp-port 4797" [ "$(val sc show)" = 4797 ]
KEY=nr-evs; def_evs=$(val scn "$nsB" show)
NORM='s/x^//'
check "show matches golden/show.tsv" golden show.tsv scn "$nsB" -t show
check "show -p matches golden/show.pretty" golden show.pretty scn "$nsB" -p show
check "show -j is valid JSON" bash -c "'$SC' -j show | python3 -m json.tool >/dev/null"

check "set nr-evs 3 cc-mode sender in nsA" scn "$nsA" set nr-evs 3 cc-mode sender
KEY=nr-evs; check "nsA reads nr-evs 3" [ "$(val scn "$nsA" show)" = 3 ]
KEY=cc-mode; check "nsA reads cc-mode sender" [ "$(val scn "$nsA" show)" = sender ]
KEY=nr-evs; check "nsB does not see nsA's config" [ "$(val scn "$nsB" show)" = "$def_evs" ]
check "init_net does not see nsA's config" [ "$(val sc show)" = "$def_evs" ]
check "set every setting at once" scn "$nsA" set udp-port 5000 nr-evs 256 \
	cc-mode both rto-min-us 2000 rto-max-us 400000 retry-limit 255 \
	ack-every 64 ack-delay-us 0 max-msg 8388608 idle-timeout-ms 1000 \
	bdp-bytes 65536
KEY=max-msg; check "max-msg 8 MiB stored" [ "$(val scn "$nsA" show)" = 8388608 ]
KEY=bdp-bytes; check "bdp-bytes 64 KiB stored" [ "$(val scn "$nsA" show)" = 65536 ]
check "bdp-bytes 4095 refused" refused scn "$nsA" set bdp-bytes 4095
check "  extack names bdp-bytes" err_has "attribute bdp-bytes"

check "nr-evs 0 refused" refused scn "$nsA" set nr-evs 0
check "  extack: out of range" err_has "out of range"
check "  extack names the attribute and range" err_has "(attribute nr-evs, valid 1..256)"
check "nr-evs 257 refused" refused scn "$nsA" set nr-evs 257
check "max-msg 8 MiB + 1 refused" refused scn "$nsA" set max-msg 8388609
check "  extack names max-msg" err_has "attribute max-msg"
check "udp-port 0 refused" refused scn "$nsA" set udp-port 0
check "ack-every 65 refused" refused scn "$nsA" set ack-every 65
check "retry-limit 0 refused" refused scn "$nsA" set retry-limit 0
check "cc-mode 4 refused" refused scn "$nsA" set cc-mode 4
check "  extack names cc-mode" err_has "attribute cc-mode"
check "rto-min-us > rto-max-us refused" refused scn "$nsA" set rto-min-us 5000 rto-max-us 1000
check "  extack: rto-min-us exceeds rto-max-us" err_has "rto-min-us exceeds rto-max-us"
check "  extack names rto-min-us" err_has "attribute rto-min-us"
check "rto-max-us below the current rto-min-us refused" refused scn "$nsA" set rto-max-us 10
check "  extack names rto-max-us" err_has "attribute rto-max-us"
# the send window keeps timeouts in 32-bit nanoseconds: at most 4 s
check "rto-max-us above 4 s refused" refused scn "$nsA" set rto-min-us 10000 rto-max-us 4300000
check "  extack names rto-max-us and its range" err_has "(attribute rto-max-us, valid 1..4000000)"
check "rto-min-us above 4 s refused" refused scn "$nsA" set rto-min-us 4000001
check "  extack names rto-min-us" err_has "attribute rto-min-us"
check "rto-min-us 10 ms and rto-max-us 4 s accepted" scn "$nsA" set rto-min-us 10000 rto-max-us 4000000
hold_start HR ip netns exec "$nsA" "$here/spray_msg" recv 127.0.0.1 7301 5 fixed:1000 1 20
ip netns exec "$nsA" "$here/spray_msg" send 127.0.0.1 7302 127.0.0.1 7301 5 fixed:1000 1 >/dev/null
check "  and 5 messages of 1000 bytes arrive with them" hold_stop HR
HR_FD=
scn "$nsA" set rto-min-us 2000 rto-max-us 400000
check "set with no attribute refused" refused scn "$nsA" set
check "  extack: no setting given" err_has "no setting given"
check "wrong attribute width (u64 for u32) refused" refused scn "$nsA" -T set nr-evs 8
check "  extack: attribute length" err_has "length"
KEY=nr-evs; check "refused requests changed nothing" [ "$(val scn "$nsA" show)" = 256 ]
check "unknown setting: usage error" usage_err sc set bogus 1
check "bad number: usage error" usage_err sc set nr-evs abc
check "udp-port 70000: usage error" usage_err sc set udp-port 70000
check "unknown subcommand: usage error" usage_err sc frobnicate

# ---- permissions
check "unprivileged user can read the config" setpriv --reuid=65534 --regid=65534 --clear-groups "$SC" show
check "unprivileged user cannot set" refused setpriv --reuid=65534 --regid=65534 --clear-groups "$SC" set nr-evs 4
check "  EPERM" err_has "Operation not permitted"
check "  extack names the capability" err_has "CAP_NET_ADMIN over the network namespace"
if unshare -U -r -n true 2>/dev/null; then
	# CAP_NET_ADMIN is needed over the namespace, from its owning user
	# namespace: a container's root configures its own namespace only.
	own() { unshare -U -r -n sh -c "'$SC' set nr-evs 4 && '$SC' -t show" | grep -q "^nr-evs	4$"; }
	check "root of a new user+net namespace sets its own namespace" own
	check "root of a new user namespace cannot set init_net's" refused unshare -U -r "$SC" set nr-evs 4
	check "  EPERM" err_has "Operation not permitted"
	KEY=nr-evs; check "  init_net unchanged" [ "$(val sc show)" != 4 ]
else
	# CLONE_NEWUSER refuses a chrooted caller (scripts/vm.sh uses
	# switch_root for that reason) and kernels built without it.
	skip "user namespaces unavailable: $(unshare -U -r -n true 2>&1 | head -1)"
fi

# ---- stats-get
check "stats-get works" scn "$nsB" stats
NORM='s/\t[0-9]+$/\tN/'
check "stats matches golden/stats.tsv" golden stats.tsv scn "$nsB" -t stats
check "stats -j is valid JSON" bash -c "ip netns exec $nsB '$SC' -j stats | python3 -m json.tool >/dev/null"
KEY=drop-short; check "stats lists drops per reason" [ -n "$(val scn "$nsB" stats)" ]

# ---- sockets dump
ip -n "$nsA" addr add ::1/128 dev lo 2>/dev/null
hold_start H1 ip netns exec "$nsA" "$here/spray_hold" 127.0.0.1 7001 &&
	hold_start H2 ip netns exec "$nsA" "$here/spray_hold" :: 7002
check "two sockets held in nsA" [ $? -eq 0 ]
NORM='s/\t[0-9]+$/\tINODE/'
check "sockets matches golden/sockets.tsv" golden sockets.tsv bash -c \
	"ip netns exec $nsA '$SC' -t sockets | sort"
check "sockets -j is valid JSON" bash -c "ip netns exec $nsA '$SC' -j sockets | python3 -m json.tool >/dev/null"
check "sockets of nsA invisible from nsB" [ -z "$(scn "$nsB" sockets)" ]
ino=$(ip netns exec "$nsA" "$SC" -t sockets | awk -F'\t' '$1 == "127.0.0.1:7001" { print $5 }')
check "socket inode matches spray_hold's fd in /proc" \
	bash -c "ls -l /proc/$H1_PID/fd/ | grep -q 'socket:\\[$ino\\]'"

N=1000
hold_start HM ip netns exec "$nsB" "$here/many_sockets" $N
check "$N sockets held in nsB" [ "${HM_PORT:-}" = $N ]
scn "$nsB" -t sockets >"$tmp/many"
check "sockets dump of $N sockets (several messages) is complete" \
	[ "$(wc -l <"$tmp/many")" -eq $N ]
check "  no socket listed twice" [ "$(cut -f1 "$tmp/many" | sort -u | wc -l)" -eq $N ]
KEY=bound-sockets; check "stats bound-sockets = $N" [ "$(val scn "$nsB" stats)" = $N ]

# ---- peers and paths dumps: P socket pairs make 2P connections
P=300
scn "$nsA" set nr-evs 4 idle-timeout-ms 600000
hold_start HP ip netns exec "$nsA" "$here/many_peers" $P
check "$P peers reached in nsA" [ "${HP_PORT:-}" = $P ]
scn "$nsA" -t peers >"$tmp/peers"
check "peers dump of $((2 * P)) connections (several messages) is complete" \
	[ "$(wc -l <"$tmp/peers")" -eq $((2 * P)) ]
check "  no connection listed twice" [ "$(cut -f1 "$tmp/peers" | sort -u | wc -l)" -eq $((2 * P)) ]
scn "$nsA" -t paths >"$tmp/paths"
check "paths dump: 4 entropy values for each of the $P senders" \
	[ "$(wc -l <"$tmp/paths")" -eq $((4 * P)) ]
check "peers -j is valid JSON" bash -c "ip netns exec '$nsA' '$SC' -j peers | python3 -m json.tool >/dev/null"
# connection ids let whoever can send from the peer's address speak in the
# connection: only CAP_NET_ADMIN over the namespace sees them
cids() {	# cids [CMD PREFIX...]: rows of the peers dump that show a cid
	ip netns exec "$nsA" "$@" "$SC" -j peers | python3 -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin) if "local-cid" in r or "remote-cid" in r))'
}
check "root sees the connection ids" [ "$(cids)" -eq $((2 * P)) ]
check "an unprivileged user does not" [ "$(cids setpriv --reuid=65534 --regid=65534 --clear-groups)" -eq 0 ]
check "  nor root without CAP_NET_ADMIN" [ "$(cids setpriv --inh-caps=-net_admin --bounding-set=-net_admin)" -eq 0 ]
check "paths -j is valid JSON" bash -c "ip netns exec '$nsA' '$SC' -j paths | python3 -m json.tool >/dev/null"
check "nsB sees none of nsA's peers" [ "$(scn "$nsB" -t peers | wc -l)" -eq 0 ]
hold_stop HP; HP_FD=

# ---- events (path-down is checked in multipath.sh, where a path dies)
timeout --preserve-status -k 2 2 "$SC" monitor >/dev/null 2>"$tmp/err"
rc=$?
check "monitor joins the events group and stops on SIGTERM" [ $rc -eq 0 -a ! -s "$tmp/err" ]

# ---- the kernel's own YNL client
if python3 -c 'import yaml, jsonschema' 2>/dev/null && [ -f "$YNL" ]; then
	ip netns exec "$nsA" python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" \
		--do config-get --json '{}' >"$tmp/ynl" 2>&1
	check "ynl cli: config-get" grep -q "'nr-evs': 4" "$tmp/ynl"
	ip netns exec "$nsA" python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" \
		--dump sockets >"$tmp/ynl" 2>&1
	check "ynl cli: dump sockets" grep -q "'port': 7001" "$tmp/ynl"
	ip netns exec "$nsA" python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" \
		--do config-set --json '{"ack-every": 7}' >"$tmp/ynl" 2>&1
	KEY=ack-every; check "ynl cli: config-set" [ "$(val scn "$nsA" show)" = 7 ]
	ip netns exec "$nsA" python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" \
		--do config-set --json '{"ack-every": 99}' >"$tmp/ynl" 2>&1
	check "ynl cli: out of range refused with extack" grep -q "out of range" "$tmp/ynl"
	python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" --do stats-get --json '{}' >"$tmp/ynl" 2>&1
	check "ynl cli: stats-get" grep -q "'tx-pkts'" "$tmp/ynl"
else
	skip "ynl cli: python3-yaml/jsonschema or $YNL missing"
fi

hold_stop HM; HM_FD=
hold_stop H1; H1_FD=
hold_stop H2; H2_FD=
tap_end

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
# checked), golden outputs, JSON validated against sprayctl.schema.json,
# iproute2's habits (abbreviations, help, -n, filters, the same output on a
# terminal and in a pipe), monitor and top, a sockets dump bigger than one
# message. Raw attributes the tools would never send go through the ynl CLI.
source "$(dirname "$0")/lib.sh"
top=$(dirname "$here")
SC=$top/userspace/sprayctl/sprayctl
KSRC=${KSRC:-/var/cache/spray/linux-source-6.12}
YNL=$KSRC/tools/net/ynl/cli.py
SPEC=$top/Documentation/netlink/specs/spray.yaml
SCHEMA=$KSRC/Documentation/netlink/genetlink.yaml
JSCHEMA=$top/userspace/sprayctl/sprayctl.schema.json
tmp=$(mktemp -d)
cleanup() {
	local n
	for n in H1 H2 HM HP HR; do
		eval "[ -n \"\${${n}_FD:-}\" ]" && spray_lib_hold_stop "$n" 2>/dev/null
	done
	spray_lib_cleanup_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

[ -x "$SC" ] || { spray_lib_fail "sprayctl built ($SC)"; spray_lib_tap_end; }
spray_lib_setup_ns nsA nsB || { spray_lib_fail "setup namespaces"; spray_lib_tap_end; }

sc() { "$SC" "$@"; }
scn() { local ns=$1; shift; ip netns exec "$ns" "$SC" "$@"; }
# refused CMD... : sprayctl exits 1 (kernel refused); stderr in $tmp/err
refused() { "$@" >/dev/null 2>"$tmp/err"; [ $? -eq 1 ]; }
err_has() { grep -q -- "$1" "$tmp/err" || { cat "$tmp/err" >&2; false; }; }
usage_err() { "$@" >/dev/null 2>&1; [ $? -eq 2 ]; }
# val CMD...: the value of key $KEY in CMD's "key value" lines
val() { "$@" | awk -v k="$KEY" '$1 == k { print $2 }'; }
# golden NAME CMD...: output, volatile numbers normalized, equals golden/NAME
golden() {
	local name=$1; shift
	"$@" | sed -E "$NORM" >"$tmp/$name"
	diff -u "$here/golden/$name" "$tmp/$name" >&2
}
# valid DEF CMD...: CMD succeeds and each JSON value it prints is valid
# against $defs/DEF of sprayctl.schema.json
valid() {
	local def=$1; shift
	"$@" >"$tmp/json" && python3 "$here/json_check.py" "$JSCHEMA" "$def" "$tmp/json"
}
# same_json CMD...: -j and -p print the same value
same_json() {
	"$SC" -j "$@" >"$tmp/j" && "$SC" -p "$@" >"$tmp/p" &&
		[ "$(wc -l <"$tmp/p")" -gt "$(wc -l <"$tmp/j")" ] &&
		python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$tmp/j" "$tmp/p"
}
# tty CMD...: CMD's output on a terminal (script(1)'s pty), without the CRs
tty() { script -qec "$(printf '%q ' "$@")" /dev/null </dev/null | tr -d '\r'; }

# ---- config-get / config-set
spray_lib_check "config-get works" sc show
KEY=udp-port; spray_lib_check "default udp-port 4797" [ "$(val sc show)" = 4797 ]
KEY=nr-evs; def_evs=$(val scn "$nsB" show)
NORM='s/x^//'
spray_lib_check "show matches golden/show.tsv" golden show.tsv scn "$nsB" -t show
spray_lib_check "show matches golden/show.txt" golden show.txt scn "$nsB" show
spray_lib_check "show -j is valid (schema: config)" valid config sc -j show
spray_lib_check "show -p: the same JSON, indented" same_json show
spray_lib_check "config show = show" [ "$(sc config show)" = "$(sc show)" ]
spray_lib_check "abbreviations: c sh = s = show" [ "$(sc c sh)" = "$(sc show)" -a "$(sc s)" = "$(sc show)" ]
spray_lib_check "-n NETNS = ip netns exec NETNS" [ "$(sc -n "$nsB" -j show)" = "$(scn "$nsB" -j show)" ]
spray_lib_check "-netns and --netns too" [ "$(sc -netns "$nsB" -t show)" = "$(sc --netns "$nsB" -t show)" ]
spray_lib_check "-n of a namespace that does not exist: refused" refused sc -n nosuchns-$$ show
spray_lib_check "  says which" err_has "nosuchns-$$"

spray_lib_check "set nr-evs 3 cc-mode sender in nsA" scn "$nsA" set nr-evs 3 cc-mode sender
KEY=nr-evs; spray_lib_check "nsA reads nr-evs 3" [ "$(val scn "$nsA" show)" = 3 ]
KEY=cc-mode; spray_lib_check "nsA reads cc-mode sender" [ "$(val scn "$nsA" show)" = sender ]
KEY=nr-evs; spray_lib_check "nsB does not see nsA's config" [ "$(val scn "$nsB" show)" = "$def_evs" ]
spray_lib_check "init_net does not see nsA's config" [ "$(val sc show)" = "$def_evs" ]
spray_lib_check "set every setting at once" scn "$nsA" set udp-port 5000 nr-evs 256 \
	cc-mode both rto-min-us 2000 rto-max-us 400000 retry-limit 255 \
	ack-every 64 ack-delay-us 0 max-msg 8388608 idle-timeout-ms 1000 \
	bdp-bytes 65536
KEY=max-msg; spray_lib_check "max-msg 8 MiB stored" [ "$(val scn "$nsA" show)" = 8388608 ]
KEY=bdp-bytes; spray_lib_check "bdp-bytes 64 KiB stored" [ "$(val scn "$nsA" show)" = 65536 ]
spray_lib_check "bdp-bytes 4095 refused" refused scn "$nsA" set bdp-bytes 4095
spray_lib_check "  extack names bdp-bytes" err_has "attribute bdp-bytes"

spray_lib_check "nr-evs 0 refused" refused scn "$nsA" set nr-evs 0
spray_lib_check "  extack: out of range" err_has "out of range"
spray_lib_check "  extack names the attribute and range" err_has "(attribute nr-evs, valid 1..256)"
spray_lib_check "nr-evs 257 refused" refused scn "$nsA" set nr-evs 257
spray_lib_check "max-msg 8 MiB + 1 refused" refused scn "$nsA" set max-msg 8388609
spray_lib_check "  extack names max-msg" err_has "attribute max-msg"
spray_lib_check "udp-port 0 refused" refused scn "$nsA" set udp-port 0
spray_lib_check "ack-every 65 refused" refused scn "$nsA" set ack-every 65
spray_lib_check "retry-limit 0 refused" refused scn "$nsA" set retry-limit 0
spray_lib_check "cc-mode 4 refused" refused scn "$nsA" set cc-mode 4
spray_lib_check "  extack names cc-mode" err_has "attribute cc-mode"
spray_lib_check "rto-min-us > rto-max-us refused" refused scn "$nsA" set rto-min-us 5000 rto-max-us 1000
spray_lib_check "  extack: rto-min-us exceeds rto-max-us" err_has "rto-min-us exceeds rto-max-us"
spray_lib_check "  extack names rto-min-us" err_has "attribute rto-min-us"
spray_lib_check "rto-max-us below the current rto-min-us refused" refused scn "$nsA" set rto-max-us 10
spray_lib_check "  extack names rto-max-us" err_has "attribute rto-max-us"
# the send window keeps timeouts in 32-bit nanoseconds: at most 4 s
spray_lib_check "rto-max-us above 4 s refused" refused scn "$nsA" set rto-min-us 10000 rto-max-us 4300000
spray_lib_check "  extack names rto-max-us and its range" err_has "(attribute rto-max-us, valid 1..4000000)"
spray_lib_check "rto-min-us above 4 s refused" refused scn "$nsA" set rto-min-us 4000001
spray_lib_check "  extack names rto-min-us" err_has "attribute rto-min-us"
spray_lib_check "rto-min-us 10 ms and rto-max-us 4 s accepted" scn "$nsA" set rto-min-us 10000 rto-max-us 4000000
spray_lib_hold_start HR ip netns exec "$nsA" "$here/spray_msg" recv 127.0.0.1 7301 5 fixed:1000 1 20
ip netns exec "$nsA" "$here/spray_msg" send 127.0.0.1 7302 127.0.0.1 7301 5 fixed:1000 1 >/dev/null
spray_lib_check "  and 5 messages of 1000 bytes arrive with them" spray_lib_hold_stop HR
HR_FD=
scn "$nsA" set rto-min-us 2000 rto-max-us 400000
spray_lib_check "set with no attribute refused" refused scn "$nsA" set
spray_lib_check "  extack: no setting given" err_has "no setting given"
spray_lib_check "config set = set" scn "$nsA" config set ack-every 9
KEY=ack-every; spray_lib_check "  stored" [ "$(val scn "$nsA" -t show)" = 9 ]
spray_lib_check "conf se (abbreviated) = config set" scn "$nsA" conf se ack-every 64
KEY=ack-every; spray_lib_check "  stored" [ "$(val scn "$nsA" -t show)" = 64 ]
KEY=nr-evs; spray_lib_check "refused requests changed nothing" [ "$(val scn "$nsA" show)" = 256 ]
spray_lib_check "unknown setting: usage error" usage_err sc set bogus 1
spray_lib_check "bad number: usage error" usage_err sc set nr-evs abc
spray_lib_check "udp-port 70000: usage error" usage_err sc set udp-port 70000
spray_lib_check "unknown object: usage error" usage_err sc frobnicate
spray_lib_check "unknown verb: usage error" usage_err sc config frobnicate
spray_lib_check "unknown filter: usage error" usage_err sc peers colour blue
spray_lib_check "bad filter value: usage error" usage_err sc paths state sideways
spray_lib_check "bad address: usage error" usage_err sc peers remote 10.0.0.1:70000
spray_lib_check "no hidden option: -T is a usage error" usage_err sc -T show
# help for every object, either way round, on stdout, status 0
for o in show set config stats sockets peers paths monitor top; do
	spray_lib_check "$o help" bash -c "'$SC' $o help | grep -q '^usage: sprayctl $o'"
	spray_lib_check "help $o" bash -c "'$SC' help $o | grep -q '^usage: sprayctl $o'"
done
spray_lib_check "help lists every object" bash -c "'$SC' help | grep -q 'OBJECT := { show | set | config | stats | sockets | peers | paths | monitor | top | help }'"

# ---- permissions
spray_lib_check "unprivileged user can read the config" setpriv --reuid=65534 --regid=65534 --clear-groups "$SC" show
spray_lib_check "unprivileged user cannot set" refused setpriv --reuid=65534 --regid=65534 --clear-groups "$SC" set nr-evs 4
spray_lib_check "  EPERM" err_has "Operation not permitted"
spray_lib_check "  extack names the capability" err_has "CAP_NET_ADMIN over the network namespace"
if unshare -U -r -n true 2>/dev/null; then
	# CAP_NET_ADMIN is needed over the namespace, from its owning user
	# namespace: a container's root configures its own namespace only.
	own() { unshare -U -r -n sh -c "'$SC' set nr-evs 4 && '$SC' -t show" | grep -q "^nr-evs	4$"; }
	spray_lib_check "root of a new user+net namespace sets its own namespace" own
	spray_lib_check "root of a new user namespace cannot set init_net's" refused unshare -U -r "$SC" set nr-evs 4
	spray_lib_check "  EPERM" err_has "Operation not permitted"
	KEY=nr-evs; spray_lib_check "  init_net unchanged" [ "$(val sc show)" != 4 ]
else
	# CLONE_NEWUSER refuses a chrooted caller (scripts/vm.sh uses
	# switch_root for that reason) and kernels built without it.
	spray_lib_skip "user namespaces unavailable: $(unshare -U -r -n true 2>&1 | head -1)"
fi

# ---- stats-get
spray_lib_check "stats-get works" scn "$nsB" stats
NORM='s/\t[0-9]+$/\tN/'
spray_lib_check "stats matches golden/stats.tsv" golden stats.tsv scn "$nsB" -t stats
spray_lib_check "stats -j is valid (schema: stats)" valid stats scn "$nsB" -j stats
spray_lib_check "stats -p: the same JSON, indented" same_json -n "$nsB" stats
KEY=drop-short; spray_lib_check "stats lists drops per reason" [ -n "$(val scn "$nsB" -t stats)" ]
spray_lib_check "st = stats" [ "$(scn "$nsB" -t st | cut -f1)" = "$(scn "$nsB" -t stats | cut -f1)" ]

# ---- sockets dump
ip -n "$nsA" addr add ::1/128 dev lo 2>/dev/null
spray_lib_hold_start H1 ip netns exec "$nsA" "$here/spray_hold" 127.0.0.1 7001 &&
	spray_lib_hold_start H2 ip netns exec "$nsA" "$here/spray_hold" :: 7002
spray_lib_check "two sockets held in nsA" [ $? -eq 0 ]
NORM='s/\t[0-9]+$/\tINODE/'
spray_lib_check "sockets matches golden/sockets.tsv" golden sockets.tsv bash -c \
	"ip netns exec $nsA '$SC' -t sockets | sort"
# text: a header, numbers right-aligned (the inode's width varies)
NORM='s/  +([0-9]+|inode)$/  INODE/'
spray_lib_check "sockets local ADDR matches golden/sockets.txt" golden sockets.txt \
	scn "$nsA" sockets local 127.0.0.1:7001
spray_lib_check "so sh lo [::]:7002 (abbreviated, IPv6) finds the other" \
	[ "$(scn "$nsA" -t so sh lo '[::]:7002' | cut -f1)" = "[::]:7002" ]
spray_lib_check "sockets local :7002 (any address)" \
	[ "$(scn "$nsA" -t sockets local :7002 | cut -f1)" = "[::]:7002" ]
spray_lib_check "sockets -j is valid (schema: sockets)" valid sockets scn "$nsA" -j sockets
spray_lib_check "sockets of nsA invisible from nsB" [ -z "$(scn "$nsB" -t sockets)" ]
NORM='s/x^//'
spray_lib_check "an empty listing still has its header" golden sockets.empty scn "$nsB" sockets
spray_lib_check "-j: an empty listing is []" [ "$(scn "$nsB" -j sockets)" = "[]" ]
if [ -n "$(tty true)" ] || script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	spray_lib_check "the same output on a terminal as in a pipe (show)" \
		[ "$(tty "$SC" -n "$nsA" show)" = "$(scn "$nsA" show)" ]
	spray_lib_check "the same output on a terminal as in a pipe (sockets)" \
		[ "$(tty "$SC" -n "$nsA" sockets)" = "$(scn "$nsA" sockets)" ]
	spray_lib_check "  a header in both" [ "$(tty "$SC" -n "$nsB" sockets)" = "$(cat "$here/golden/sockets.empty")" ]
else
	spray_lib_skip "no pseudo-terminal for script(1)"
fi
ino=$(ip netns exec "$nsA" "$SC" -t sockets | awk -F'\t' '$1 == "127.0.0.1:7001" { print $5 }')
spray_lib_check "socket inode matches spray_hold's fd in /proc" \
	bash -c "ls -l /proc/$H1_PID/fd/ | grep -q 'socket:\\[$ino\\]'"

N=1000
spray_lib_hold_start HM ip netns exec "$nsB" "$here/many_sockets" $N
spray_lib_check "$N sockets held in nsB" [ "${HM_PORT:-}" = $N ]
scn "$nsB" -t sockets >"$tmp/many"
spray_lib_check "sockets dump of $N sockets (several messages) is complete" \
	[ "$(wc -l <"$tmp/many")" -eq $N ]
spray_lib_check "  no socket listed twice" [ "$(cut -f1 "$tmp/many" | sort -u | wc -l)" -eq $N ]
KEY=bound-sockets; spray_lib_check "stats bound-sockets = $N" [ "$(val scn "$nsB" stats)" = $N ]

# ---- peers and paths dumps: P socket pairs make 2P connections
P=300
scn "$nsA" set nr-evs 4 idle-timeout-ms 600000
spray_lib_hold_start HP ip netns exec "$nsA" "$here/many_peers" $P
spray_lib_check "$P peers reached in nsA" [ "${HP_PORT:-}" = $P ]
scn "$nsA" -t peers >"$tmp/peers"
spray_lib_check "peers dump of $((2 * P)) connections (several messages) is complete" \
	[ "$(wc -l <"$tmp/peers")" -eq $((2 * P)) ]
spray_lib_check "  no connection listed twice" [ "$(cut -f1 "$tmp/peers" | sort -u | wc -l)" -eq $((2 * P)) ]
scn "$nsA" -t paths >"$tmp/paths"
spray_lib_check "paths dump: 4 entropy values for each of the $P senders" \
	[ "$(wc -l <"$tmp/paths")" -eq $((4 * P)) ]
spray_lib_check "peers -j is valid (schema: peers)" valid peers scn "$nsA" -j peers
spray_lib_check "paths -j is valid (schema: paths)" valid paths scn "$nsA" -j paths
# connection ids let whoever can send from the peer's address speak in the
# connection: only CAP_NET_ADMIN over the namespace sees them
cids() {	# cids [CMD PREFIX...]: rows of the peers dump that show a cid
	ip netns exec "$nsA" "$@" "$SC" -j peers | python3 -c '
import json, sys
print(sum(1 for r in json.load(sys.stdin) if "local-cid" in r or "remote-cid" in r))'
}
spray_lib_check "root sees the connection ids" [ "$(cids)" -eq $((2 * P)) ]
spray_lib_check "an unprivileged user does not" [ "$(cids setpriv --reuid=65534 --regid=65534 --clear-groups)" -eq 0 ]
spray_lib_check "  nor root without CAP_NET_ADMIN" [ "$(cids setpriv --inh-caps=-net_admin --bounding-set=-net_admin)" -eq 0 ]
spray_lib_check "nsB sees none of nsA's peers" [ "$(scn "$nsB" -t peers | wc -l)" -eq 0 ]
spray_lib_check "  but the header of peers" bash -c "ip netns exec '$nsB' '$SC' peers | grep -q '^id  local  remote  local-cid'"
spray_lib_check "  and of paths" bash -c "ip netns exec '$nsB' '$SC' paths | grep -q '^peer-id  ev  state  tx-pkts'"
# filters: a peer by its remote address, its paths by peer id and state
set -- $(awk -F'\t' '$4 != 0 { print $1, $3; exit }' "$tmp/peers")	# a sender
pid=$1 remote=$2
spray_lib_check "peers remote $remote: that peer only" \
	[ "$(scn "$nsA" -t peers remote "$remote" | cut -f1)" = "$pid" ]
spray_lib_check "peers id $pid: the same" \
	[ "$(scn "$nsA" -t peers id "$pid" | cut -f3)" = "$remote" ]
spray_lib_check "peers remote ${remote%:*} (every port): $P + 1 or more" \
	[ "$(scn "$nsA" -t peers remote "${remote%:*}" | wc -l)" -gt 1 ]
spray_lib_check "pe re ADDR st idle (abbreviated)" \
	[ "$(scn "$nsA" -t pe re "$remote" st idle | cut -f1)" = "$pid" ]
spray_lib_check "peers remote ADDR state active: none" \
	[ -z "$(scn "$nsA" -t peers remote "$remote" state active)" ]
spray_lib_check "paths peer $pid: its 4 entropy values" \
	[ "$(scn "$nsA" -t paths peer "$pid" | wc -l)" -eq 4 ]
# A state filter gives exactly the rows of that state. Not all 4 need be
# up: on a slow kernel a packet whose ACK comes after the RTO counts as
# lost and its EV is avoided (one of them was, once, in a debug-kernel CI
# run).
scn "$nsA" -t paths peer "$pid" >"$tmp/ppaths"
up=$(awk -F'\t' '$3 == "up"' "$tmp/ppaths" | wc -l)
spray_lib_check "paths peer $pid state up: those of its 4 that are ($up)" \
	[ "$up" -ge 1 -a "$(scn "$nsA" -t paths peer "$pid" state up | wc -l)" -eq "$up" ]
pdown=$(awk -F'\t' '$3 == "down"' "$tmp/ppaths" | wc -l)
spray_lib_check "paths peer $pid state down: a header, and those that are ($pdown)" \
	[ "$(scn "$nsA" paths peer "$pid" state down | wc -l)" -eq $((1 + pdown)) ]
ev=$(scn "$nsA" -t paths peer "$pid" | awk -F'\t' 'NR == 2 { print $2 }')
spray_lib_check "paths peer $pid ev $ev: one" [ "$(scn "$nsA" -t paths peer "$pid" ev "$ev" | cut -f2)" = "$ev" ]
scn "$nsA" -t paths >"$tmp/paths"
down=$(awk -F'\t' '$3 == "down"' "$tmp/paths" | wc -l)
spray_lib_check "paths state down: those of the $((4 * P)) that are ($down)" \
	[ "$(scn "$nsA" -t paths state down | wc -l)" -eq "$down" ]
spray_lib_check "paths -j with a filter is valid" valid paths scn "$nsA" -j paths peer "$pid"
spray_lib_hold_stop HP; HP_FD=

# ---- events (path-down is checked in multipath.sh, where a path dies)
timeout --preserve-status -k 2 2 "$SC" monitor >/dev/null 2>"$tmp/err"
rc=$?
spray_lib_check "monitor joins the events group and stops on SIGTERM" [ $rc -eq 0 -a ! -s "$tmp/err" ]
# A message to a port nobody holds makes a peer-unreachable event. The
# monitors may join the group after the first try: try until they print.
ip netns exec "$nsB" timeout 60 "$SC" -j monitor 1 >"$tmp/monj" 2>&1 &
mj=$!
ip netns exec "$nsB" timeout 60 "$SC" monitor 1 >"$tmp/mont" 2>&1 &
mt=$!
unreach() {
	ip netns exec "$nsB" "$here/spray_msg" fail 127.0.0.1 7009 127.0.0.1 9 10 >/dev/null
	[ -s "$tmp/monj" ] && [ -s "$tmp/mont" ]
}
spray_lib_check "monitor: a peer-unreachable event" spray_lib_busywait 30000 unreach
wait $mj $mt
spray_lib_check "monitor -j: valid (schema: event)" python3 "$here/json_check.py" "$JSCHEMA" event "$tmp/monj"
spray_lib_check "  names the peer and the error" grep -q '"remote":"127.0.0.1:9".*"error":"ECONNREFUSED"' "$tmp/monj"
spray_lib_check "  its timestamp is now (within 5 minutes)" python3 -c '
import datetime, json, sys
t = datetime.datetime.fromisoformat(json.load(open(sys.argv[1]))["timestamp"])
sys.exit(abs(t.timestamp() - datetime.datetime.now().timestamp()) > 300)' "$tmp/monj"
spray_lib_check "monitor (text): [TIMESTAMP] event key value..." grep -Eq \
	'^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{6}[+-][0-9]{2}:[0-9]{2}\] peer-unreachable local 127.0.0.1:7009 remote 127.0.0.1:9 error ECONNREFUSED$' \
	"$tmp/mont"
cat "$tmp/mont" | sed 's/^/# /'

# ---- top: live rates while a paced sender runs in nsB (messages of 4 KiB
# at 100 a second for up to 3 minutes, stopped after the checks: it must
# outlast the frames however slow the kernel, the debug one included)
ip netns exec "$nsB" "$here/spray_msg" recv 127.0.0.1 7100 18000 fixed:4096 5 240 >"$tmp/recv" 2>&1 &
rpid=$!
spray_lib_busywait 10000 grep -q ready "$tmp/recv"
ip netns exec "$nsB" "$here/spray_msg" send 127.0.0.1 0 127.0.0.1 7100 18000 fixed:4096 5 100 >"$tmp/send" 2>&1 &
spid=$!
KEY=tx-msgs; sending() { [ "$(val scn "$nsB" -t stats)" -gt 0 ]; }
spray_lib_check "top: the sender has started" spray_lib_busywait 20000 sending
spray_lib_check "top -n 2 -d 0.5 -j: two frames, valid (schema: top)" valid top scn "$nsB" -j top -n 2 -d 0.5
spray_lib_check "  two frames" [ "$(wc -l <"$tmp/json")" -eq 2 ]
cp "$tmp/json" "$tmp/top"
scn "$nsB" top -n 1 -d 0.5 >"$tmp/topt"
spray_lib_check "top (text): a frame line and both headers" bash -c "
	head -1 '$tmp/topt' | grep -Eq '^[0-9T:.+-]+  every 0.5 s  peers [0-9]+  paths [0-9]+, [0-9]+ active$' &&
	grep -Eq '^ *id +remote +state +srtt-us .* tx-pps +retx-pps +rx-pps +lost-pps +ecn-pps' '$tmp/topt' &&
	grep -Eq '^peer-id +ev +state +tx-pps +acked-pps +lost-pps +ecn-pps +retx-pps' '$tmp/topt'"
sed 's/^/# /' "$tmp/topt" | head -n 12
spray_lib_check "  the sending peer: packets per second sent, its paths up" python3 -c '
import json, sys
for line in open(sys.argv[1]):
    f = json.loads(line)
    p = [p for p in f["peers"] if p["remote"] == "127.0.0.1:7100"]
    assert len(p) == 1 and p[0]["tx-pps"] > 0 and p[0]["paths-up"] > 0, p
    assert any(q["peer-id"] == p[0]["id"] and q["tx-pps"] > 0 for q in f["paths"])
    assert any(q["rx-pps"] > 0 for q in f["peers"])	# the receiving end
' "$tmp/top"
spray_lib_check "top: bad -d refused as usage" usage_err sc top -d 0
kill $spid $rpid 2>/dev/null
wait $spid $rpid 2>/dev/null

# ---- the kernel's own YNL client
if python3 -c 'import yaml, jsonschema' 2>/dev/null && [ -f "$YNL" ]; then
	ip netns exec "$nsA" python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" \
		--do config-get --json '{}' >"$tmp/ynl" 2>&1
	spray_lib_check "ynl cli: config-get" grep -q "'nr-evs': 4" "$tmp/ynl"
	ip netns exec "$nsA" python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" \
		--dump sockets >"$tmp/ynl" 2>&1
	spray_lib_check "ynl cli: dump sockets" grep -q "'port': 7001" "$tmp/ynl"
	ip netns exec "$nsA" python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" \
		--do config-set --json '{"ack-every": 7}' >"$tmp/ynl" 2>&1
	KEY=ack-every; spray_lib_check "ynl cli: config-set" [ "$(val scn "$nsA" show)" = 7 ]
	ip netns exec "$nsA" python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" \
		--do config-set --json '{"ack-every": 99}' >"$tmp/ynl" 2>&1
	spray_lib_check "ynl cli: out of range refused with extack" grep -q "out of range" "$tmp/ynl"
	# a raw attribute of the wrong width: the spec with nr-evs as u64
	sed '/name: nr-evs$/{n;s/type: u32$/type: u64/}' "$SPEC" >"$tmp/u64.yaml"
	ip netns exec "$nsA" python3 "$YNL" --spec "$tmp/u64.yaml" --schema "$SCHEMA" \
		--do config-set --json '{"nr-evs": 8}' >"$tmp/ynl" 2>&1
	spray_lib_check "ynl cli: wrong attribute width (u64 for u32) refused" grep -q "invalid attribute length" "$tmp/ynl" ||
		sed 's/^/# /' "$tmp/ynl"
	KEY=nr-evs; spray_lib_check "  nothing changed" [ "$(val scn "$nsA" -t show)" = 4 ]
	python3 "$YNL" --spec "$SPEC" --schema "$SCHEMA" --do stats-get --json '{}' >"$tmp/ynl" 2>&1
	spray_lib_check "ynl cli: stats-get" grep -q "'tx-pkts'" "$tmp/ynl"
else
	spray_lib_skip "ynl cli: python3-yaml/jsonschema or $YNL missing"
fi

spray_lib_hold_stop HM; HM_FD=
spray_lib_hold_stop H1; H1_FD=
spray_lib_hold_stop H2; H2_FD=
spray_lib_tap_end

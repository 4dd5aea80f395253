#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Observability: the spray:* tracepoints during a transfer with loss agree
# with the counters of sprayctl stats and name the right peer, psns and
# causes; across requests and answers lost both ways, each RTO expiry
# that asked for the ACK first is a spray_rto_probe and the RTOs that ACK
# then declared say cause=probe; a hostile packet appears in
# skb:kfree_skb with the kernel's drop reason for it; a message whose
# peer vanished comes back from the error queue with its history
# (SPRAY_CMSG_HISTORY) naming that peer and counting the RTOs.
#
#   h1 (10.0.1.1) ---veth (netem loss both ways)--- h2 (10.0.1.2)
#
# Tracepoints patch kernel text when enabled: the VM runs TCG
# single-threaded (scripts/vm.sh), where that is safe.
source "$(dirname "$0")/lib.sh"
top=$(dirname "$here")
SC=$top/userspace/sprayctl/sprayctl
tmp=$(mktemp -d)
T=/sys/kernel/tracing

tracing_off() {
	[ -d "$T/events/spray" ] || return 0
	echo 0 >"$T/tracing_on"
	echo 0 >"$T/events/spray/enable"
	echo 0 >"$T/events/skb/kfree_skb/enable" 2>/dev/null
	echo >"$T/trace"
}
# the traces and counters stay with the results, for a failure's reader
keep() { [ -n "${SPRAY_OUT:-}" ] && cp "$tmp"/trace? "$tmp"/*.before "$tmp"/*.after "$SPRAY_OUT/" 2>/dev/null; }
trap 'keep; tracing_off; spray_lib_cleanup_ns; rm -rf "$tmp"' EXIT

# ---- prerequisites: tracefs with the module's events
[ -d "$T/events" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -d "$T/events" ] || spray_lib_skip_all "no tracefs at $T"
[ -d "$T/events/spray" ] || spray_lib_skip_all "no spray:* events in $T (module without tracepoints, or tracing off)"
[ -d "$T/events/skb/kfree_skb" ] || spray_lib_skip_all "no skb:kfree_skb event"
command -v python3 >/dev/null || spray_lib_skip_all "python3 missing"
[ -x "$SC" ] || { spray_lib_fail "sprayctl built ($SC)"; spray_lib_tap_end; }

spray_lib_setup_ns h1 h2 || { spray_lib_fail "setup namespaces"; spray_lib_tap_end; }
ip link add eth0 netns "$h1" type veth peer name eth0 netns "$h2"
ip -n "$h1" addr add 10.0.1.1/24 dev eth0
ip -n "$h2" addr add 10.0.1.2/24 dev eth0
ip -n "$h1" link set eth0 up
ip -n "$h2" link set eth0 up
spray_lib_busywait 5000 ip netns exec "$h1" ping -c1 -W1 10.0.1.2 >/dev/null
for n in "$h1" "$h2"; do
	ip netns exec "$n" ethtool -K eth0 gso off tso off gro off >/dev/null 2>&1
done

stats() { ip netns exec "$1" "$SC" -t stats >"$2"; }
# quiet: no connection of either namespace has a packet in flight (the
# 12th column of sprayctl -t peers)
in_flight() { ip netns exec "$1" "$SC" -t peers | awk -F'\t' '$12 > 0 { n++ } END { print n + 0 }'; }
quiet() { [ "$(in_flight "$h1")" = 0 ] && [ "$(in_flight "$h2")" = 0 ]; }

# results <FILE: the checks a python script printed ("ok WHAT", "not ok WHAT",
# "# comment") as ours
results() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) spray_lib_ok "${line#ok }" ;;
		"not ok "*) spray_lib_fail "${line#not ok }" ;;
		*) echo "$line" ;;
		esac
	done
}

# what the checks of the traces share: the counters that moved in each
# namespace, the spray:* events of a trace (after checking the buffer
# lost none), the events of one peer
cat >"$tmp/tracecheck.py" <<'PY'
import re
def tap(ok, what):
    print(("ok " if ok else "not ok ") + what)
def stats(path):
    return {k: int(v) for k, v in (line.rstrip("\n").split("\t")[:2] for line in open(path))}
def moved(d, n):
    b = stats(f"{d}/{n}.before")
    return {k: v - b.get(k, 0) for k, v in stats(f"{d}/{n}.after").items()}
def load(d, trace):
    """(h1's counters moved, h2's, the events as (name, {field: value}))"""
    ev, hdr = [], ""
    for line in open(f"{d}/{trace}"):
        if line.startswith("#"):
            hdr += line
            continue
        m = re.search(r" (spray_\w+): (.*)$", line)
        if m:
            ev.append((m.group(1), dict(kv.split("=", 1) for kv in m.group(2).split() if "=" in kv)))
    m = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", hdr)
    tap(m and m.group(1) == m.group(2), "trace buffer lost no event (%s)" % (m and m.group(0)))
    return moved(d, "h1"), moved(d, "h2"), ev
def count(ev, name, peer, **kw):
    return sum(1 for e, f in ev if e == name and f.get("peer") == peer and
               all(f.get(k) == v for k, v in kw.items()))
PY

# trace_start: an empty buffer, large enough for the transfer, then EVENTS
trace_start() {
	local e
	echo 0 >"$T/tracing_on"
	echo 16384 >"$T/buffer_size_kb"
	echo >"$T/trace"
	for e in "$@"; do echo 1 >"$T/events/$e/enable" || return 1; done
	echo 1 >"$T/tracing_on"
}
trace_stop() {	# trace_stop FILE: stop, disable every event, keep the trace
	echo 0 >"$T/tracing_on"
	echo 0 >"$T/events/spray/enable"
	echo 0 >"$T/events/skb/kfree_skb/enable"
	cat "$T/trace" >"$1"
}

# ---- 1. a transfer with loss, every spray:* event on
COUNT=300
stats "$h1" "$tmp/h1.before"
stats "$h2" "$tmp/h2.before"
trace_start spray || { spray_lib_fail "enable spray:* through $T"; spray_lib_tap_end; }
ip netns exec "$h1" tc qdisc add dev eth0 root netem loss 4%
ip netns exec "$h2" tc qdisc add dev eth0 root netem loss 2%
spray_lib_hold_start R ip netns exec "$h2" "$here/spray_msg" recv 10.0.1.2 7000 $COUNT fixed:6000 1 120
ip netns exec "$h1" "$here/spray_msg" send 10.0.1.1 7100 10.0.1.2 7000 $COUNT fixed:6000 1 >"$tmp/send" 2>&1
rc=$?
spray_lib_check "transfer across 4%/2% loss: $(cat "$tmp/send")" [ $rc -eq 0 ]
spray_lib_check "  received, each message once" spray_lib_hold_stop R
ip netns exec "$h1" tc qdisc del dev eth0 root
ip netns exec "$h2" tc qdisc del dev eth0 root
# the last ACKs and timers settle before the events stop and the counters
# are read
sleep 1
trace_stop "$tmp/trace1"
stats "$h1" "$tmp/h1.after"
stats "$h2" "$tmp/h2.after"
echo "# $(grep -c ' spray_' "$tmp/trace1") spray:* events; $(grep -m1 'entries-in-buffer' "$tmp/trace1")"

python3 - "$tmp" >"$tmp/check1" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from tracecheck import *
h1, h2, ev = load(sys.argv[1], "trace1")
S, R = "10.0.1.2:7000", "10.0.1.1:7100"   # the sender's peer, the receiver's
def agree(name, peer, want, what, **kw):
    got = count(ev, name, peer, **kw)
    tap(got == want, f"{name}{' ' + str(kw) if kw else ''} x{got} = {what} {want}")
agree("spray_msg_sent", S, 300, "messages sent")
agree("spray_msg_delivered", S, h1["tx-msgs"], "h1 tx-msgs")
agree("spray_msg_received", R, h2["rx-msgs"], "h2 rx-msgs")
agree("spray_retransmit", S, h1["retx-pkts"], "h1 retx-pkts")
tap(h1["retx-pkts"] > 0, f"  the loss caused retransmissions ({h1['retx-pkts']})")
for cause, ctr in (("rack", "lost-rack"), ("nack", "lost-nack"), ("rto", "lost-rto")):
    agree("spray_pkt_lost", S, h1[ctr], "h1 " + ctr, cause=cause)
agree("spray_rto", S, h1["rto"], "h1 rto")
agree("spray_rto_probe", S, h1["answer-probes"], "h1 answer-probes")
agree("spray_ev_state", S, h1["path-down"], "h1 path-down", state="down")
agree("spray_ev_state", S, h1["path-up"], "h1 path-up", state="up")
agree("spray_ack_sent", R, h2["ack-tx"] + h2["ack-carried"], "h2 ack-tx + ack-carried")
nacks = sum(1 for e, f in ev if e == "spray_nack_sent" and f.get("peer") == R
            and f.get("conn") != "0")
tap(nacks == h2["nack-tx"], f"spray_nack_sent (of a connection) x{nacks} = h2 nack-tx {h2['nack-tx']}")
agree("spray_msg_failed", S, h1["msg-failed"], "h1 msg-failed")
tap(h1["msg-failed"] == 0, "  no message failed")
# fields: every retransmission of a psn follows its loss, with that cause;
# every event names its connection and the right peer
lost = {}
bad = []
for e, f in ev:
    if e == "spray_pkt_lost" and f.get("peer") == S:
        lost[f["psn"]] = f["cause"]
    elif e == "spray_retransmit" and f.get("peer") == S:
        if lost.get(f["psn"]) != f["cause"] or f["cause"] not in ("rack", "nack", "rto", "refused"):
            bad.append(f)
tap(not bad, f"each retransmission follows the loss of its psn, same cause ({len(bad)} not: {bad[:2]})")
c = {}
for e, f in ev:
    if e == "spray_retransmit":
        c[f["cause"]] = c.get(f["cause"], 0) + 1
print("# retransmissions by cause:", c)
peers = {f.get("peer") for e, f in ev}
tap(peers <= {S, R}, f"every event names 10.0.1.2:7000 or 10.0.1.1:7100 ({sorted(peers)})")
tap(all(f.get("conn", "0") != "0" for e, f in ev if e != "spray_nack_sent"),
    "every event but a connectionless NACK names its connection")
cw = [f for e, f in ev if e == "spray_cwnd" and f.get("peer") == S]
tap(cw and all(f["cwnd"] != f["old"] for f in cw), f"spray_cwnd: {len(cw)} changes, each a change")
cr = [f for e, f in ev if e == "spray_credit"]
tap(any(f["dir"] == "rx" for f in cr) and any(f["dir"] == "tx" for f in cr) and
    all(f["grant"] != f["old"] for f in cr), f"spray_credit: {len(cr)} changes, both directions, each a change")
sent = [int(f["msg_id"]) for e, f in ev if e == "spray_msg_sent" and f.get("peer") == S]
tap(sent == list(range(len(sent))), "spray_msg_sent: message ids 0, 1, 2... in order")
acks = [f for e, f in ev if e == "spray_ack_sent" and f.get("peer") == R]
tap(acks and all(f["why"] for f in acks), "spray_ack_sent: each says why")
PY
results <"$tmp/check1"

# ---- 1b. requests and answers across loss: an RTO expiry of an end whose
# peer answers asks for the ACK first (spray_rto_probe), and the losses
# that ACK then declares are spray_rto with cause=probe
ASKS=300
stats "$h1" "$tmp/h1.before"
stats "$h2" "$tmp/h2.before"
trace_start spray/spray_rto spray/spray_rto_probe ||
	{ spray_lib_fail "enable spray:spray_rto{,_probe}"; spray_lib_tap_end; }
ip netns exec "$h1" tc qdisc add dev eth0 root netem loss 5%
ip netns exec "$h2" tc qdisc add dev eth0 root netem loss 5%
spray_lib_hold_start E ip netns exec "$h2" "$here/spray_msg" echo 10.0.1.2 7010 $ASKS 120
ip netns exec "$h1" "$here/spray_msg" ask 10.0.1.1 7110 10.0.1.2 7010 $ASKS 64 >"$tmp/ask" 2>&1
rc=$?
spray_lib_check "$ASKS requests answered across 5% loss each way: $(cat "$tmp/ask")" [ $rc -eq 0 ]
spray_lib_check "  each answered once" spray_lib_hold_stop E
ip netns exec "$h1" tc qdisc del dev eth0 root
ip netns exec "$h2" tc qdisc del dev eth0 root
# the probes of the last exchange answered, their RTOs declared
spray_lib_check "  then nothing in flight at either end" spray_lib_busywait 10000 quiet
trace_stop "$tmp/trace4"
stats "$h1" "$tmp/h1.after"
stats "$h2" "$tmp/h2.after"
python3 - "$tmp" >"$tmp/check4" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from tracecheck import *
h1, h2, ev = load(sys.argv[1], "trace4")
h = {"h1": h1, "h2": h2}
allprobe = 0
for n, peer in (("h1", "10.0.1.2:7010"), ("h2", "10.0.1.1:7110")):
    c = h[n]
    probes, rtos = count(ev, "spray_rto_probe", peer), count(ev, "spray_rto", peer)
    byprobe = count(ev, "spray_rto", peer, cause="probe")
    bytimer = count(ev, "spray_rto", peer, cause="timer")
    tap(probes == c["answer-probes"], f"{n}: spray_rto_probe x{probes} = answer-probes {c['answer-probes']}")
    tap(rtos == c["rto"], f"{n}: spray_rto x{rtos} = rto {c['rto']}")
    tap(byprobe + bytimer == rtos, f"{n}:   cause=probe x{byprobe} + cause=timer x{bytimer}, no other cause")
    tap(byprobe <= probes, f"{n}:   no more RTOs by a probe's ACK than probes")
    allprobe += byprobe
    lost = sum(int(f["lost"]) for e, f in ev if e == "spray_rto" and f.get("peer") == peer)
    tap(lost == c["lost-rto"], f"{n}:   the psns they declared lost, {lost} = lost-rto {c['lost-rto']}")
    tap(all(int(f["rto_us"]) > 0 and int(f["inflight"]) > 0 for e, f in ev
            if e == "spray_rto_probe" and f.get("peer") == peer),
        f"{n}:   each probe waited an RTO with packets in flight")
tap(h["h1"]["answer-probes"] > 0, f"the lost requests were asked for ({h['h1']['answer-probes']} probes)")
tap(allprobe > 0, f"losses found by a probe's ACK: {allprobe} RTOs with cause=probe")
PY
results <"$tmp/check4"

# ---- 2. a hostile packet, in skb:kfree_skb with its reason, as perf sees
# it (tracefs would do, but prints the location hashed, and with hash-ptr
# off 6.1's prints every %s of every event empty)
if ! command -v perf >/dev/null; then
	spray_lib_skip "perf not installed (linux-perf): drop reasons not checked"
else
spray_lib_hold_start H ip netns exec "$h2" "$here/spray_hold" 10.0.1.2 7000
stats "$h2" "$tmp/h2.before"
stats "$h1" "$tmp/h1.before2"
csum_errors() { ip netns exec "$h2" nstat -asz UdpInCsumErrors | awk '$1 == "UdpInCsumErrors" { n = $2 } END { print n + 0 }'; }
csum0=$(csum_errors)
perf record -q -e skb:kfree_skb -a -o "$tmp/perf.data" -- sh -c "
	ip netns exec $h1 $here/spray_flood -d 10.0.1.2 -P 7000 -n 5 version
	ip netns exec $h1 $here/spray_flood -d 10.0.1.2 -P 7000 -n 3 short
	ip netns exec $h1 $here/spray_flood -d 10.0.1.2 -P 7000 -n 4 flags
	ip netns exec $h1 $here/spray_flood -d 10.0.1.2 -P 7000 -s 10.0.1.0/30 -a 1 -n 2 csum
	sleep 1" >/dev/null 2>"$tmp/perf.err"
rc=$?
spray_lib_check "perf record -e skb:kfree_skb around 14 hostile packets" [ $rc -eq 0 ]
perf script -i "$tmp/perf.data" -F trace >"$tmp/trace2" 2>>"$tmp/perf.err"
stats "$h2" "$tmp/h2.after"
stats "$h1" "$tmp/h1.after2"
echo "UdpInCsumErrors	$(($(csum_errors) - csum0))" >"$tmp/h2.csum"
spray_lib_hold_stop H
# the module's text: skb:kfree_skb's location must be inside it
set -- $(awk '$1 == "spray" { print $2, $6 }' /proc/modules)
python3 - "$tmp" "${2:-0}" "${1:-0}" >"$tmp/check2" <<'PY'
import re, sys
d, base, size = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3])
if not base:
    print("# /proc/modules hides the module's address: any location counts")
def stats(name):
    return {l.split("\t")[0]: int(l.split("\t")[1]) for l in open(f"{d}/{name}")}
b, a = stats("h2.before"), stats("h2.after")
delta = {k: a[k] - b.get(k, 0) for k in a}
ours, where = {}, {}
for line in open(f"{d}/trace2"):
    m = re.search(r"location=(\S+) reason: (\w+)", line)
    if not m:
        continue
    loc = m.group(1)
    mine = "spray_" in loc or not base
    if not mine:
        try:
            x = int(loc, 16)
            mine = base <= x < base + size
        except ValueError:
            pass
    if mine:
        ours[m.group(2)] = ours.get(m.group(2), 0) + 1
        where.setdefault(m.group(2), {}).setdefault(loc, 0)
        where[m.group(2)][loc] += 1
print("# skb:kfree_skb from spray.ko by reason:", ours)
delta.update(stats("h2.csum"))
for ctr, reason, want in (("drop-version", "UNHANDLED_PROTO", 5),
                          ("drop-short", "PKT_TOO_SMALL", 3),
                          ("drop-flags", "INVALID_PROTO", 4),
                          ("UdpInCsumErrors", "UDP_CSUM", 2)):
    ok = delta.get(ctr) == want and ours.get(reason, 0) == want
    print(f"{'ok' if ok else 'not ok'} hostile x{want} ({ctr[5:] if ctr.startswith('drop-') else 'bad UDP checksum'}): "
          f"{ctr} +{delta.get(ctr)}, skb:kfree_skb reason {reason} x{ours.get(reason, 0)} in spray.ko")
# What else spray.ko dropped meanwhile: the capture is system-wide, and
# packets of other namespaces (the tests before: a debug-kernel run saw
# 54-76 NO_SOCKET drops there that neither namespace here counted, and
# none when trace.sh ran alone) cannot be told apart in it. So the two
# namespaces' own counters decide: h2's moved by the hostile packets only,
# h1's not at all; the rest of the capture is reported.
other = set(ours) - {'UNHANDLED_PROTO', 'PKT_TOO_SMALL', 'INVALID_PROTO', 'UDP_CSUM'}
for r in sorted(other):
    print(f"# elsewhere: {r} x{ours[r]} dropped at {where[r]}")
b1, a1 = stats("h1.before2"), stats("h1.after2")
moved1 = {k: a1[k] - b1.get(k, 0) for k in a1 if a1[k] != b1.get(k, 0)}
moved2 = {k: a[k] - b.get(k, 0) for k in a if a[k] != b.get(k, 0)}
print(f"{'ok' if moved1 == {} and moved2 == {'drop-version': 5, 'drop-short': 3, 'drop-flags': 4} else 'not ok'}"
      f" no other drop in either namespace meanwhile (h1 {moved1}, h2 {moved2})")
PY
results <"$tmp/check2"
fi

# ---- 3. the peer vanishes: the failed message's history names it
spray_lib_hold_start P ip netns exec "$h2" "$here/spray_hold" 10.0.1.2 7002
mkfifo "$tmp/go"
ip netns exec "$h1" "$here/spray_msg" vanish 10.0.1.1 7200 10.0.1.2 7002 30 \
	<"$tmp/go" >"$tmp/vanish" 2>&1 &
vpid=$!
exec {go}>"$tmp/go"
spray_lib_busywait 20000 grep -q acked "$tmp/vanish"
spray_lib_check "a message to 10.0.1.2:7002 acknowledged first" grep -q acked "$tmp/vanish"
stats "$h1" "$tmp/h1.before"
trace_start spray/spray_rto spray/spray_msg_failed
# the peer's link goes: nothing it sends or is sent arrives any more
ip -n "$h2" link set eth0 down
echo go >&$go
exec {go}>&-
wait $vpid
# (EHOSTUNREACH if h1's neighbour entry, flushed with the carrier, failed to
# resolve again before the retries ran out: the kernel's host unreachable)
spray_lib_check "  then, its link down, a second message fails ($(grep error "$tmp/vanish"))" \
	grep -qE "error (ETIMEDOUT|EHOSTUNREACH)" "$tmp/vanish"
trace_stop "$tmp/trace3"
stats "$h1" "$tmp/h1.after"
spray_lib_hold_stop P
hist=$(grep ^history "$tmp/vanish")
echo "# $hist"
field() { echo "$hist" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
limit=$(ip netns exec "$h1" "$SC" -t show | awk -F'\t' '$1 == "retry-limit" { print $2 }')
spray_lib_check "  SPRAY_CMSG_HISTORY came with it" [ -n "$hist" ]
spray_lib_check "  it names the peer: 10.0.1.2:7002" [ "$(field peer)" = 10.0.1.2:7002 ]
spray_lib_check "  and the cookie: 4242" [ "$(field cookie)" = 4242 ]
spray_lib_check "  RTOs counted: $(field rtos) (retry-limit $limit)" \
	[ "$(field rtos)" -ge $((limit * 2 / 3)) -a "$(field rtos)" -le "$limit" ]
spray_lib_check "  retransmissions by RTO: $(field retx_rto), none by rack or nack" \
	[ "$(field retx_rto)" -ge $((limit * 2 / 3)) -a "$(field retx_rack)" = 0 -a "$(field retx_nack)" = 0 ]
spray_lib_check "  the peer's last ACK: $(field ack_age_us) us before, no more than the failure took" \
	[ "$(field ack_age_us)" -gt 0 -a "$(field ack_age_us)" -lt 30000000 ]
spray_lib_check "  entropy values it went on: $(field evs)" [ -n "$(field evs)" ]
conn=$(field conn)
rtos=$(grep -c "spray_rto: conn=$conn peer=10.0.1.2:7002 " "$tmp/trace3")
spray_lib_check "  spray:spray_rto x$rtos for that connection (rto +$(( $(awk -F'\t' '$1 == "rto" { print $2 }' "$tmp/h1.after") - $(awk -F'\t' '$1 == "rto" { print $2 }' "$tmp/h1.before") )))" \
	[ "$rtos" -ge "$(field rtos)" ]
# the errno the application got, as a number
case $(awk '$1 == "error" { print $2 }' "$tmp/vanish") in
EHOSTUNREACH) errno=113 ;;
*) errno=110 ;;
esac
spray_lib_check "  spray:spray_msg_failed names it too: $(grep -o 'spray_msg_failed: .*' "$tmp/trace3" | head -n 1)" \
	grep -q "spray_msg_failed: conn=$conn peer=10.0.1.2:7002 msg_id=$(field msg) len=1000 cookie=4242 err=$errno .*rtos=$(field rtos)" "$tmp/trace3"
spray_lib_tap_end

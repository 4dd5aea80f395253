#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# AF_SPRAY sockets in network namespaces:
#
#   ns1 (10.0.1.1, fd00::1) ---veth--- ns2 (10.0.1.2, fd00::2)
#
# each namespace binds its own address and the same spray port; a peer
# without AF_SPRAY on the UDP port answers ICMP port unreachable, which
# fails a connection being opened at once (ECONNREFUSED); a namespace
# deleted while one of its sockets is open goes away cleanly afterwards.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'spray_lib_cleanup_ns; rm -rf "$tmp"' EXIT

spray_lib_setup_ns ns1 ns2 || { spray_lib_fail "setup namespaces"; spray_lib_tap_end; }
ip link add veth1 netns "$ns1" type veth peer name veth2 netns "$ns2"
ip -n "$ns1" addr add 10.0.1.1/24 dev veth1
ip -n "$ns2" addr add 10.0.1.2/24 dev veth2
ip -n "$ns1" addr add fd00::1/64 dev veth1 nodad
ip -n "$ns2" addr add fd00::2/64 dev veth2 nodad
ip -n "$ns1" link set veth1 up
ip -n "$ns2" link set veth2 up

hold() {	# hold NS ADDR PORT -> prints the bound port
	ip netns exec "$1" "$here/spray_hold" "$2" "$3" </dev/null >/dev/null 2>&1
}

spray_lib_check "bind 10.0.1.1:5000 in ns1" hold "$ns1" 10.0.1.1 5000
spray_lib_check "bind 10.0.1.2:5000 in ns2" hold "$ns2" 10.0.1.2 5000
spray_lib_check "bind fd00::2 in ns2" hold "$ns2" fd00::2 5000
spray_lib_check "ns1 cannot bind ns2's address" spray_lib_not hold "$ns1" 10.0.1.2 5000

# Same port in both namespaces at the same time.
spray_lib_hold_start H1 ip netns exec "$ns1" "$here/spray_hold" 0.0.0.0 5001 &&
	spray_lib_hold_start H2 ip netns exec "$ns2" "$here/spray_hold" :: 5001
spray_lib_check "port 5001 bound in both namespaces at once" [ $? -eq 0 ]
spray_lib_check "port 5001 in use inside ns1" spray_lib_not hold "$ns1" 10.0.1.1 5001

SC=$(dirname "$here")/userspace/sprayctl/sprayctl
# Messages between the namespaces, over IPv4 and over IPv6.
xfer() {	# xfer SRC_NS SRC DST_NS DST PORT
	local log
	log=$(mktemp)
	ip netns exec "$3" "$here/spray_msg" recv "$4" "$5" 300 mix 5 60 >"$log" &
	local rpid=$!
	spray_lib_busywait 10000 grep -q ready "$log"
	ip netns exec "$1" "$here/spray_msg" send "$2" 0 "$4" "$5" 300 mix 5 >/dev/null
	wait $rpid
	local rc=$?
	rm -f "$log"
	return $rc
}
spray_lib_check "300 messages ns1 -> ns2 over IPv4" xfer "$ns1" 10.0.1.1 "$ns2" 10.0.1.2 6000
spray_lib_check "300 messages ns2 -> ns1 over IPv6" xfer "$ns2" fd00::2 "$ns1" fd00::1 6001

# The UDP port moves at once with the setting; a port in use is refused.
ip netns exec "$ns1" "$SC" set udp-port 5555
ip netns exec "$ns2" "$SC" set udp-port 5555
udp_bound() { ip netns exec "$1" ss -Huln "sport = :$2" | grep -q .; }
spray_lib_check "udp-port 5555: the namespace's UDP socket moved" udp_bound "$ns2" 5555
spray_lib_check "  and left 4797" spray_lib_not udp_bound "$ns2" 4797
spray_lib_check "300 messages over UDP port 5555" xfer "$ns1" 10.0.1.1 "$ns2" 10.0.1.2 6003
ip netns exec "$ns2" python3 -c 'import signal, socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", 6666)); signal.pause()' &
squatter=$!
spray_lib_check "another program holds UDP port 6666" spray_lib_busywait 10000 udp_bound "$ns2" 6666
spray_lib_check "udp-port taken by another program: refused" spray_lib_not ip netns exec "$ns2" "$SC" set udp-port 6666
KEY=udp-port
spray_lib_check "  and the setting is unchanged" [ "$(ip netns exec "$ns2" "$SC" -t show | awk -F'\t' '$1 == "udp-port" { print $2 }')" = 5555 ]
kill $squatter
# back: the port left is free when the setting returns (the old sockets
# are closed after the config lock is dropped, before the reply)
spray_lib_check "udp-port back to 4797" ip netns exec "$ns1" "$SC" set udp-port 4797
spray_lib_check "  and left 5555" spray_lib_not udp_bound "$ns1" 5555
ip netns exec "$ns2" "$SC" set udp-port 4797

# A peer that takes no AF_SPRAY on the UDP port (another udp-port here; as
# a host without the module) answers ICMP port unreachable: the message of
# a connection it never acknowledged fails at once with ECONNREFUSED (not
# ETIMEDOUT after the retries), over IPv4 and IPv6, and the errors are
# counted.
stat_of() { ip netns exec "$1" "$SC" -t stats | awk -F'\t' -v k="$2" '$1 == k { print $2 }'; }
ip netns exec "$ns2" "$SC" set udp-port 5555
icmp0=$(stat_of "$ns1" icmp-errors)
# fail_err SRC DST: the error a message from ns1's SRC to DST:5001 fails
# with (its report as comments on stderr)
fail_err() {
	ip netns exec "$ns1" "$here/spray_msg" fail "$1" 0 "$2" 5001 \
		$((10 * ${SPRAY_TIMEOUT_MULT:-1})) >"$tmp/fail"
	sed 's/^/# /' "$tmp/fail" >&2
	awk '$1 == "error" { print $2 }' "$tmp/fail"
}
for pair in "10.0.1.1 10.0.1.2" "fd00::1 fd00::2"; do
	set -- $pair
	spray_lib_check "no AF_SPRAY at $2's UDP port: ECONNREFUSED (ICMP port unreachable)" \
		[ "$(fail_err "$1" "$2")" = ECONNREFUSED ]
done
icmp1=$(stat_of "$ns1" icmp-errors)
spray_lib_check "  counted as icmp-errors ($icmp0 -> $icmp1)" [ "$icmp1" -ge $((icmp0 + 2)) ]
ip netns exec "$ns2" "$SC" set udp-port 4797
spray_lib_check "  the same peer's port back: 300 messages" xfer "$ns1" 10.0.1.1 "$ns2" 10.0.1.2 6004

# A forged port unreachable that does not name the connection's incarnation
# (its random id) is counted and ignored: with every packet of ns1's lost,
# its message still fails with ETIMEDOUT, not ECONNREFUSED.
cat >"$tmp/icmpforge.py" <<'EOF2'
import os, socket, struct, sys, time
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
n = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
for i in range(n):
    cid = struct.unpack("!I", os.urandom(4))[0] | 1
    # version 1, DATA, SYN, spray ports 7009 -> 5001, src_cid, dst_cid 0, psn
    spray = struct.pack("!BBHHHIIIHH", 1, 1, 1, 7009, 5001, cid, 0, cid, 40000, 0) + bytes(24)
    udp = struct.pack("!HHHH", 40000, 4797, 8 + len(spray) + 1000, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + 8 + len(spray) + 1000, 0, 0x4000, 64, 17, 0,
                     socket.inet_aton("10.0.1.1"), socket.inet_aton("10.0.1.2"))
    icmp = struct.pack("!BBHI", 3, 3, 0, 0) + ip + udp + spray
    icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    s.sendto(icmp, ("10.0.1.1", 0))
    time.sleep(0.05)
EOF2
# (neighbour entries fixed first: netem would drop ns1's ARP answers too,
# and ns2's forged errors could find no way back)
mac_of() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }
ip -n "$ns1" neigh replace 10.0.1.2 lladdr "$(mac_of "$ns2" veth2)" dev veth1 nud permanent
ip -n "$ns2" neigh replace 10.0.1.1 lladdr "$(mac_of "$ns1" veth1)" dev veth2 nud permanent
ip netns exec "$ns1" tc qdisc add dev veth1 root netem loss 100%
icmp0=$(stat_of "$ns1" icmp-errors)
ip netns exec "$ns1" "$here/spray_msg" fail 10.0.1.1 7009 10.0.1.2 5001 $((10 * ${SPRAY_TIMEOUT_MULT:-1})) >"$tmp/forged" &
fpid=$!
has_peer() { ip netns exec "$ns1" "$SC" -t peers remote 10.0.1.2 | grep -q .; }
spray_lib_check "forged port unreachable: ns1 opens a connection that nothing answers" spray_lib_busywait 10000 has_peer
unreach() { ip netns exec "$ns1" nstat -asz IcmpInDestUnreachs | awk '$1 == "IcmpInDestUnreachs" { print $2 }'; }
u0=$(unreach)
ip netns exec "$ns2" python3 "$tmp/icmpforge.py" 20
wait $fpid
sed 's/^/# /' "$tmp/forged"
spray_lib_check "  20 forged errors with another connection id: counted ($icmp0 -> $(stat_of "$ns1" icmp-errors); ICMP unreachables received +$(( $(unreach) - u0 )))" \
	[ "$(stat_of "$ns1" icmp-errors)" -ge $((icmp0 + 20)) ]
spray_lib_check "  and ignored: the message failed with ETIMEDOUT" \
	[ "$(awk '$1 == "error" { print $2 }' "$tmp/forged")" = ETIMEDOUT ]
ip netns exec "$ns1" tc qdisc del dev veth1 root
ip -n "$ns1" neigh del 10.0.1.2 dev veth1
ip -n "$ns2" neigh del 10.0.1.1 dev veth2

# A host that does not answer on the link: the neighbour's resolution
# fails, and the kernel reports it as a host unreachable (ARP, and for
# IPv6 neighbour discovery, cut to one probe of 100 ms here). The message
# times out as before, but says why: EHOSTUNREACH, as TCP's connect() does.
for v in ipv4 ipv6; do
	ip netns exec "$ns1" sysctl -qw net.$v.neigh.veth1.mcast_solicit=1 \
		net.$v.neigh.veth1.retrans_time_ms=100
done
for pair in "10.0.1.1 10.0.1.3" "fd00::1 fd00::3"; do
	set -- $pair
	spray_lib_check "no host at $2: the message fails with EHOSTUNREACH" \
		[ "$(fail_err "$1" "$2")" = EHOSTUNREACH ]
done

# Idle connections go away (idle-timeout-ms) while their sockets stay open.
ip netns exec "$ns1" "$SC" set idle-timeout-ms 300
ip netns exec "$ns2" "$SC" set idle-timeout-ms 300
spray_lib_hold_start IR ip netns exec "$ns2" env SPRAY_HOLD=1 "$here/spray_msg" recv \
	10.0.1.2 6002 4 fixed:1000 1 30
spray_lib_hold_start IS ip netns exec "$ns1" env SPRAY_HOLD=1 "$here/spray_msg" send \
	10.0.1.1 0 10.0.1.2 6002 4 fixed:1000 1
peers_of() { ip netns exec "$1" "$SC" -t peers | grep -c .; }
no_peers() { [ "$(peers_of "$1")" = 0 ]; }
closes() { ip netns exec "$1" "$SC" -t stats | awk -F'\t' '$1 == "conn-close" { print $2 }'; }
spray_lib_check "idle connection torn down on the sender" spray_lib_busywait 10000 no_peers "$ns1"
spray_lib_check "idle connection torn down on the receiver" spray_lib_busywait 10000 no_peers "$ns2"
both_closed() { [ "$(closes "$ns1")" -ge 1 ] && [ "$(closes "$ns2")" -ge 1 ]; }
spray_lib_check "counted as conn-close on both ends" both_closed
spray_lib_check "sockets still open meanwhile" kill -0 "$IS_PID" "$IR_PID"
spray_lib_hold_stop IS
spray_lib_check "receiver got its 4 messages" spray_lib_hold_stop IR

# Delete ns1 while its socket is open: the socket keeps the namespace alive
# until it closes; then the namespace is torn down without complaint.
ip netns del "$ns1"
SPRAY_LIB_NS=("${SPRAY_LIB_NS[@]/$ns1}")
spray_lib_check "socket in a deleted namespace closes cleanly" spray_lib_hold_stop H1
spray_lib_hold_stop H2
spray_lib_tap_end

# SPDX-License-Identifier: GPL-2.0
# Leaf-spine fabric of network namespaces for the AF_SPRAY benchmarks
# (sourced after scripts/bench/lib.sh, inside the VM).
#
#        s0        s1        s2        s3            spines
#        |  \    /  |  \    /  |  \    /  |
#        |    \/    |    \/    |    \/    |          every leaf to every
#        |   /  \   |   /  \   |   /  \   |          spine: 8 links
#        l0 ------------------------------ l1        leaves (ECMP, L4 hash)
#     /  |  |  \                        /  |  |  \
#    h0  h2 h4  h6                     h1  h3 h5  h7  hosts
#
# Host i hangs off leaf i % 2, so a ring 0-1-2-...-7-0 crosses the spines on
# every hop. Addresses (j = i % 2, the host's leaf):
#   host i         10.(j+1).i.1/24 on eth0, gateway 10.(j+1).i.254 (leaf)
#   host i, plane p 10.(16(p+1)+j+1).i.1/32 on lo: traffic to or from it
#                   crosses spine p only (leaf policy rules), which pins a
#                   flow to one path (raw UDP per path, MPTCP subflows)
#   leaf j - spine k 10.100.(4j+k).1 (leaf, dev u<k>) / .2 (spine, dev l<j>)
# The leaves route the other leaf's prefixes over one ECMP route with a
# nexthop per spine; fib_multipath_hash_policy=1 hashes the 5-tuple, so a
# UDP source port (an AF_SPRAY entropy value) or a TCP connection picks a
# spine. ignore_routes_with_linkdown=1: a link that goes down leaves ECMP.
#
# Every link, both directions, is shaped alike (fab_shape):
#   [netem handle 1:, spine links only: loss is injected there in place]
#     -> tbf rate RATE (handle 10:) -> red ecn (handle 20:)
# Segmentation offloads and GRO are off on every interface, so shapers,
# AQMs, ECMP and netem act on wire-size packets.
#
# Sets FAB_H (host namespaces), FAB_L (leaves), FAB_S (spines): arrays.

FAB_NH=8
FAB_NS=4
FAB_RATE=${FAB_RATE:-10}	# Mbit/s on every link (what the emulated CPU carries)
FAB_MTU=${FAB_MTU:-9000}	# jumbo frames, as AI fabrics use

fab_leaf() { echo $(($1 % 2)); }
fab_addr() { echo "10.$(($1 % 2 + 1)).$1.1"; }		# fab_addr HOST
fab_plane() { echo "10.$((16 * ($2 + 1) + $1 % 2 + 1)).$1.1"; }	# HOST PLANE
fab_spine_ip() { echo "10.100.$((4 * $1 + $2)).2"; }	# LEAF SPINE: spine side
fab_leaf_ip() { echo "10.100.$((4 * $1 + $2)).1"; }	# LEAF SPINE: leaf side

# fab_exec NS SCRIPT: one shell inside NS for many commands (under TCG a
# process costs about as much as a thousand packets: setup batches)
fab_exec() { ip netns exec "$1" sh -c "$2"; }

# fab_setup: build, shape and check the fabric (about 40 processes)
fab_setup() {
	local i j k p q other b n nh pr
	# new namespaces copy the initial one's conf.all/conf.default
	sysctl -qw net.core.devconf_inherit_init_net=1 \
		net.ipv4.conf.all.forwarding=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.all.ignore_routes_with_linkdown=1 \
		net.ipv4.conf.default.ignore_routes_with_linkdown=1 || return 1
	FAB_H=() FAB_L=() FAB_S=()
	b=$(mktemp)
	n=$(mktemp -u XXXXXX)
	for i in $(seq 0 $((FAB_NH - 1))); do FAB_H+=("fh$i-$n"); done
	for j in 0 1; do FAB_L+=("fl$j-$n"); done
	for k in $(seq 0 $((FAB_NS - 1))); do FAB_S+=("fs$k-$n"); done
	for n in "${FAB_H[@]}" "${FAB_L[@]}" "${FAB_S[@]}"; do
		echo "netns add $n"
		BENCH_NS+=("$n")
	done >"$b"
	for i in $(seq 0 $((FAB_NH - 1))); do
		j=$(fab_leaf "$i")
		echo "link add eth0 mtu $FAB_MTU netns ${FAB_H[$i]} type veth peer name d$i mtu $FAB_MTU netns ${FAB_L[$j]}"
	done >>"$b"
	for j in 0 1; do
		for k in $(seq 0 $((FAB_NS - 1))); do
			echo "link add u$k mtu $FAB_MTU netns ${FAB_L[$j]} type veth peer name l$j mtu $FAB_MTU netns ${FAB_S[$k]}"
		done
	done >>"$b"
	ip -batch "$b" || { rm -f "$b"; return 1; }
	# hosts
	for i in $(seq 0 $((FAB_NH - 1))); do
		j=$(fab_leaf "$i")
		{
			echo "link set lo up"
			echo "addr add $(fab_addr "$i")/24 dev eth0"
			for p in $(seq 0 $((FAB_NS - 1))); do
				echo "addr add $(fab_plane "$i" "$p")/32 dev lo"
			done
			echo "link set eth0 up"
			echo "route add default via 10.$((j + 1)).$i.254 src $(fab_addr "$i")"
		} >"$b"
		ip -n "${FAB_H[$i]}" -batch "$b" || { rm -f "$b"; return 1; }
	done
	# leaves
	for j in 0 1; do
		other=$((2 - j))
		{
			echo "link set lo up"
			for i in $(seq "$j" 2 $((FAB_NH - 1))); do
				echo "addr add 10.$((j + 1)).$i.254/24 dev d$i"
				echo "link set d$i up"
				for q in $(seq 0 $((FAB_NS - 1))); do
					echo "route add 10.$((16 * (q + 1) + j + 1)).$i.0/24 via $(fab_addr "$i")"
				done
			done
			nh=
			for k in $(seq 0 $((FAB_NS - 1))); do
				echo "addr add $(fab_leaf_ip "$j" "$k")/24 dev u$k"
				echo "link set u$k up"
				nh="$nh nexthop via $(fab_spine_ip "$j" "$k") dev u$k"
			done
			echo "route add default $nh"
			# plane p: the other leaf's prefixes over spine p only; a
			# destination on this leaf falls through to main. Planes
			# 1.. take precedence over plane 0: a subflow between
			# plane p and plane 0 (MPTCP) takes spine p both ways.
			for p in $(seq 0 $((FAB_NS - 1))); do
				pr=$((100 + 2 * ((p + FAB_NS - 1) % FAB_NS)))
				fab_plane_table "$j" "$p"
				echo "rule add pref $pr to 10.$((16 * (p + 1))).0.0/12 lookup $((100 + p))"
				echo "rule add pref $((pr + 1)) from 10.$((16 * (p + 1))).0.0/12 lookup $((100 + p))"
			done
		} >"$b"
		ip -n "${FAB_L[$j]}" -batch "$b" || { rm -f "$b"; return 1; }
	done
	# spines
	for k in $(seq 0 $((FAB_NS - 1))); do
		{
			echo "link set lo up"
			for j in 0 1; do
				echo "addr add $(fab_spine_ip "$j" "$k")/24 dev l$j"
				echo "link set l$j up"
				echo "route add 10.$((j + 1)).0.0/16 via $(fab_leaf_ip "$j" "$k")"
				for q in $(seq 0 $((FAB_NS - 1))); do
					echo "route add 10.$((16 * (q + 1) + j + 1)).0.0/16 via $(fab_leaf_ip "$j" "$k")"
				done
			done
		} >"$b"
		ip -n "${FAB_S[$k]}" -batch "$b" || { rm -f "$b"; return 1; }
	done
	rm -f "$b"
	# ECMP on the 5-tuple at the leaves. Hosts: ECN for TCP (AF_SPRAY
	# always sends ECT(0)), MPTCP limits, no segmentation offload (the
	# forwarded packets are then wire-size everywhere: veth has no GRO)
	for n in "${FAB_L[@]}"; do
		fab_exec "$n" 'echo 1 >/proc/sys/net/ipv4/fib_multipath_hash_policy' || return 1
	done
	for n in "${FAB_H[@]}"; do
		fab_exec "$n" 'echo 1 >/proc/sys/net/ipv4/tcp_ecn
			ip mptcp limits set subflow 8 add_addr_accepted 8
			ethtool -K eth0 gso off tso off gro off >/dev/null 2>&1
			ethtool -K eth0 tx-udp-segmentation off >/dev/null 2>&1
			ethtool -k eth0 | grep -q "generic-segmentation-offload: off"' || {
			echo "fabric: offloads still on in $n" >&2; return 1; }
	done
	fab_shape "$FAB_RATE" || return 1
	fab_wait_reach
}

# fab_plane_table LEAF PLANE: ip batch lines of the plane's table
fab_plane_table() {
	local j=$1 p=$2 q other=$((2 - $1))
	echo "route add 10.$other.0.0/16 via $(fab_spine_ip "$j" "$p") table $((100 + p))"
	for q in $(seq 0 $((FAB_NS - 1))); do
		echo "route add 10.$((16 * (q + 1) + other)).0.0/16 via $(fab_spine_ip "$j" "$p") table $((100 + p))"
	done
}

# fab_wait_reach: h0 reaches every host and host 1 every plane address of
# h0 (one shell: under TCG processes are dear)
fab_wait_reach() {
	local i p dsts=
	for i in $(seq 1 $((FAB_NH - 1))); do dsts="$dsts $(fab_addr "$i")"; done
	bench_busywait 30000 fab_exec "${FAB_H[0]}" "for a in $dsts; do ping -c1 -W1 \$a >/dev/null || exit 1; done" ||
		{ echo "fabric: h0 cannot reach every host" >&2; return 1; }
	dsts=
	for p in $(seq 0 $((FAB_NS - 1))); do dsts="$dsts $(fab_plane 0 "$p")"; done
	bench_busywait 30000 fab_exec "${FAB_H[1]}" "for a in $dsts; do ping -c1 -W1 \$a >/dev/null || exit 1; done" ||
		{ echo "fabric: h1 cannot reach every plane address of h0" >&2; return 1; }
}

# fab_qdisc_cmds DEV [NETEM ARGS...]: tc batch lines that shape DEV at
# FAB_RATE; with NETEM ARGS a netem (handle 1:) at the root first
fab_qdisc_cmds() {
	local dev=$1 parent="root" burst frame=$((FAB_MTU + 14))
	shift
	# tbf's bucket: FAB_BURST_MS of the rate, at least two frames. Under
	# TCG on a busy host the guest's timers fire late; tokens beyond the
	# bucket would be lost and the link would run below its rate.
	burst=$((FAB_RATE * 1000 * FAB_BURST_MS / 8))
	[ "$burst" -ge $((2 * frame)) ] || burst=$((2 * frame))
	echo "qdisc del dev $dev root"
	if [ $# -gt 0 ]; then
		echo "qdisc add dev $dev root handle 1: netem limit 10000 $*"
		parent="parent 1:1"
	fi
	echo "qdisc add dev $dev $parent handle 10: tbf rate ${FAB_RATE}mbit burst $burst latency 200ms"
	# RED with ECN, as data-centre switches mark (WRED/ECN): one FIFO per
	# link whose mark probability grows with its average queue, from
	# FAB_RED_MIN frames (0) to FAB_RED_MAX (FAB_RED_P, then every packet),
	# whatever the packet's flow or entropy value. fq_codel would keep a
	# queue per entropy value and mark late; packets that are not
	# ECN-capable are dropped where others are marked.
	echo "qdisc add dev $dev parent 10:1 handle 20: red limit $((FAB_RED_LIMIT * frame)) \
		min $((FAB_RED_MIN * frame)) max $((FAB_RED_MAX * frame)) avpkt $frame \
		burst $(((2 * FAB_RED_MIN + FAB_RED_MAX + 2) / 3)) probability $FAB_RED_P \
		bandwidth ${FAB_RATE}mbit ecn"
}
FAB_RED_MIN=${FAB_RED_MIN:-4}
FAB_BURST_MS=${FAB_BURST_MS:-100}
FAB_RED_MAX=${FAB_RED_MAX:-12}
FAB_RED_P=${FAB_RED_P:-0.5}
FAB_RED_LIMIT=${FAB_RED_LIMIT:-64}

# fab_shape [RATE]: (re)shape every link end, no impairment
fab_shape() {
	local i j k b
	[ -n "${1:-}" ] && FAB_RATE=$1
	b=$(mktemp)
	for i in $(seq 0 $((FAB_NH - 1))); do
		fab_qdisc_cmds eth0 >"$b"
		tc -n "${FAB_H[$i]}" -force -batch "$b" 2>/dev/null
	done
	for j in 0 1; do
		{
			for i in $(seq "$j" 2 $((FAB_NH - 1))); do fab_qdisc_cmds "d$i"; done
			for k in $(seq 0 $((FAB_NS - 1))); do fab_qdisc_cmds "u$k"; done
		} >"$b"
		tc -n "${FAB_L[$j]}" -force -batch "$b" 2>/dev/null
	done
	for k in $(seq 0 $((FAB_NS - 1))); do
		{ fab_qdisc_cmds l0; fab_qdisc_cmds l1; } >"$b"
		tc -n "${FAB_S[$k]}" -force -batch "$b" 2>/dev/null
	done
	rm -f "$b"
	# spot check: the last link end shaped has its red qdisc
	tc -n "${FAB_S[$((FAB_NS - 1))]}" qdisc show dev l1 | grep -q "red 20:"
}

# fab_impair LEAF SPINE [NETEM ARGS...]: the link between LEAF and SPINE,
# both directions, gets a netem with those arguments (loss 1%, ...) in
# front of its shaper; without arguments it is shaped as the others
fab_impair() {
	local j=$1 k=$2 b
	shift 2
	b=$(mktemp)
	fab_qdisc_cmds "u$k" "$@" >"$b"
	tc -n "${FAB_L[$j]}" -force -batch "$b" 2>/dev/null
	fab_qdisc_cmds "l$j" "$@" >"$b"
	tc -n "${FAB_S[$k]}" -force -batch "$b" 2>/dev/null
	rm -f "$b"
	[ $# -eq 0 ] || tc -n "${FAB_S[$k]}" qdisc show dev "l$j" | grep -q netem
}

# fab_fail LEAF SPINE: the link goes down (carrier lost at both ends: the
# leaf's ECMP drops that nexthop at once); the other leaf's routes stop
# using that spine to reach LEAF FAB_CONVERGE seconds later, as a routing
# protocol would withdraw them (until then that spine black-holes them).
FAB_CONVERGE=${FAB_CONVERGE:-0.5}
fab_fail() {
	local j=$1 k=$2 o=$((1 - $1)) nh= m
	ip -n "${FAB_L[$j]}" link set "u$k" down || return 1
	sleep "$FAB_CONVERGE"
	for m in $(seq 0 $((FAB_NS - 1))); do
		[ "$m" = "$k" ] || nh="$nh nexthop via $(fab_spine_ip "$o" "$m") dev u$m"
	done
	{
		echo "route add 10.$((j + 1)).0.0/16 $nh"
		for m in $(seq 0 $((FAB_NS - 1))); do
			echo "route add 10.$((16 * (m + 1) + j + 1)).0.0/16 $nh"
		done
		# the plane-k table sends everything to spine k: let it fall
		# through to the routes above
		echo "route flush table $((100 + k))"
	} | ip -n "${FAB_L[$o]}" -batch - &&
		ip -n "${FAB_L[$j]}" route flush table $((100 + k))
}

fab_restore() {
	local j=$1 k=$2 o=$((1 - $1)) m
	ip -n "${FAB_L[$j]}" link set "u$k" up
	ip -n "${FAB_L[$o]}" route del 10.$((j + 1)).0.0/16 2>/dev/null
	for m in $(seq 0 $((FAB_NS - 1))); do
		ip -n "${FAB_L[$o]}" route del 10.$((16 * (m + 1) + j + 1)).0.0/16 2>/dev/null
	done
	for m in 0 1; do
		fab_plane_table "$m" "$k" | ip -n "${FAB_L[$m]}" -batch -
	done
	fab_wait_reach
}

# fab_snapshot: one line of counters from the leaves (two processes each:
# under TCG every process costs): bytes each leaf sent to (tx) and got
# from (rx) each spine, "L0tx0..L0txN L0rx0.. L1tx0.. L1rx0..", then the
# red qdiscs' "dropped marked" towards the hosts and towards the spines
fab_snapshot() {
	local j
	for j in 0 1; do
		ip -n "${FAB_L[$j]}" -s -o link show | awk '
			{ split($2, n, "@"); d = n[1]; sub(":", "", d)
			  for (i = 1; i <= NF; i++) {
				if ($i == "RX:") rx[d] = $(i + 8)
				if ($i == "TX:") tx[d] = $(i + 8) } }
			END { for (k = 0; k < '"$FAB_NS"'; k++) printf "%s ", tx["u" k]
			      for (k = 0; k < '"$FAB_NS"'; k++) printf "%s ", rx["u" k] }'
	done
	for j in 0 1; do tc -n "${FAB_L[$j]}" -s qdisc show; done | awk '
		/^qdisc red/ { for (i = 1; i <= NF; i++) if ($i == "dev") dev = $(i + 1)
			c = dev ~ /^u/ ? 2 : 1; red = 1; next }
		/^qdisc/ { red = 0 }
		red && /Sent/ { for (i = 1; i <= NF; i++) if ($i == "(dropped") { d = $(i + 1); gsub(",", "", d); drop[c] += d } }
		red && /marked/ { for (i = 1; i <= NF; i++) if ($i == "marked") mark[c] += $(i + 1) }
		END { printf "%d %d %d %d\n", drop[1], mark[1], drop[2], mark[2] }'
}

# fab_netns_list HOSTS...: comma-separated namespaces and main addresses
# for spraycoll --netns/--addrs
fab_netns_list() { local i s=; for i in "$@"; do s="$s,${FAB_H[$i]}"; done; echo "${s#,}"; }
fab_addr_list() { local i s=; for i in "$@"; do s="$s,$(fab_addr "$i")"; done; echo "${s#,}"; }
fab_plane_list() { local i s=; for i in "${@:2}"; do s="$s,$(fab_plane "$i" "$1")"; done; echo "${s#,}"; }

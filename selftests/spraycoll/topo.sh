# SPDX-License-Identifier: GPL-2.0
# spraycoll in network namespaces (sourced after selftests/lib.sh).
#
# topo_setup N: one namespace per rank, each joined by a veth pair to a
# bridge in a switch namespace:
#
#   r0 eth0 10.0.0.1/24 --- v0 \
#   r1 eth0 10.0.0.2/24 --- v1  +- br0 (namespace sw)
#   ...                         |
#   rN-1 eth0 10.0.0.N/24 - vN-1/
#
# Each veth end has a pass-through netem qdisc, so topo_netem can impair
# every link in both directions in place. Sets TOPO_NETNS and TOPO_ADDRS
# (comma-separated, for spraycoll --netns and --addrs), TOPO_NS (array)
# and TOPO_SW.
topo_setup() {
	local n=$1 i v ns names=() addrs=()
	spray_lib_setup_ns sw || return 1
	TOPO_SW=$sw
	ip -n "$sw" link add br0 type bridge || return 1
	ip -n "$sw" link set br0 up
	TOPO_NS=()
	for i in $(seq 0 $((n - 1))); do
		spray_lib_setup_ns r$i || return 1
		eval "ns=\$r$i"
		ip link add eth0 netns "$ns" type veth peer name v$i netns "$sw" ||
			return 1
		ip -n "$sw" link set v$i master br0
		ip -n "$sw" link set v$i up
		ip -n "$ns" addr add 10.0.0.$((i + 1))/24 dev eth0
		ip -n "$ns" link set eth0 up
		for v in "$ns eth0" "$sw v$i"; do
			set -- $v
			ip netns exec "$1" tc qdisc replace dev "$2" root netem limit 10000
		done
		TOPO_NS+=("$ns")
		names+=("$ns")
		addrs+=("10.0.0.$((i + 1))")
	done
	TOPO_NETNS=$(IFS=,; echo "${names[*]}")
	TOPO_ADDRS=$(IFS=,; echo "${addrs[*]}")
	# every rank reaches every other one
	for i in $(seq 1 $((n - 1))); do
		spray_lib_busywait 10000 ip netns exec "${TOPO_NS[0]}" \
			ping -c1 -W1 10.0.0.$((i + 1)) >/dev/null || return 1
	done
}

# topo_netem "ARGS": the same netem impairment on every link, both ways
topo_netem() {
	local i
	for i in "${!TOPO_NS[@]}"; do
		ip netns exec "${TOPO_NS[$i]}" tc qdisc change dev eth0 root netem limit 10000 $1
		ip netns exec "$TOPO_SW" tc qdisc change dev v$i root netem limit 10000 $1
	done
}

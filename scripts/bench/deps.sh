#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the benchmarks need beyond scripts/deps.sh: the peers (iperf3,
# soft-RoCE's rdma-core and perftest), gnuplot for the plots and perf
# (linux-perf: the datapath scenario's profiles, run inside the VM from the
# host's root filesystem; Debian's perf reads any recent kernel's events).
# Debian packages; quick when they are there.
set -euo pipefail
PKGS=(iperf3 rdma-core ibverbs-providers ibverbs-utils perftest gnuplot-nox linux-perf)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "bench deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

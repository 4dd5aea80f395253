#!/bin/bash
# Install what building and testing AF_SPRAY needs on Debian 12, and extract
# the kernel's test and style tools from linux-source-6.12. Idempotent and
# quick when everything is there already.
set -euo pipefail

PKGS=(
	build-essential make gcc clang libclang-rt-14-dev llvm sparse kmod cpio
	xz-utils zstd
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
	qemu-system-x86 busybox-static
	iproute2 ethtool iputils-ping python3 python3-yaml python3-jsonschema
	tshark tcpdump
	libfabric-dev libfabric-bin openmpi-bin libopenmpi-dev python3-mpi4py
	python3-numpy pkg-config
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# Versioned names only, never -t backports: that would upgrade the
	# userspace uapi headers (linux-libc-dev) too.
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# Kernel tools from linux-source-6.12: kselftest headers, checkpatch and
# kernel-doc, the YNL generator and client. Cached outside the work tree.
KSRC=${SPRAY_KSRC:-/var/cache/spray/linux-source-6.12}
if [ ! -f "$KSRC/.extracted" ]; then
	echo "deps: extracting kernel tools to $KSRC" >&2
	mkdir -p "$(dirname "$KSRC")"
	tarball=$(ls /usr/src/linux-source-6.12.tar.* | head -n 1)
	tar -C "$(dirname "$KSRC")" -xf "$tarball" --wildcards \
		'linux-source-6.12/tools/testing/selftests/kselftest*' \
		'linux-source-6.12/scripts/checkpatch.pl' \
		'linux-source-6.12/scripts/spelling.txt' \
		'linux-source-6.12/scripts/const_structs.checkpatch' \
		'linux-source-6.12/scripts/kernel-doc' \
		'linux-source-6.12/tools/net/ynl/*' \
		'linux-source-6.12/Documentation/netlink/*'
	# ynl-gen-c.py loops forever without a MAINTAINERS file at the root.
	touch "$KSRC/MAINTAINERS" "$KSRC/.extracted"
fi

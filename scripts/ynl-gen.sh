#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate the netlink code of AF_SPRAY from its YNL spec with the kernel's
# own generator (tools/net/ynl/ynl-gen-c.py of linux-source-6.12):
#
#   Documentation/netlink/specs/spray.yaml
#     -> include/uapi/linux/spray_netlink.h   (uAPI: attributes, commands)
#     -> kernel/netlink-gen.h, kernel/netlink-gen.c (policies, split ops)
#     -> userspace/lib/spray-user.h, userspace/lib/spray-user.c (the client
#        library of sprayctl and spraycoll: requests, replies, events)
#   and copies the generator's runtime, tools/net/ynl/lib/ynl{.c,.h,-priv.h},
#   into userspace/lib/ynl/, so that the tools build from this tree alone.
#
#   scripts/ynl-gen.sh           regenerate the files in place
#   scripts/ynl-gen.sh --check   exit 1 (and show a diff) if a committed
#                                file differs from what the spec generates
#
# The generator finds the tree root by looking for a MAINTAINERS file next to
# Documentation/ and reads the schemas from Documentation/netlink/: it runs in
# a scratch tree holding the kernel's schemas and our spec, so that the files
# carry the spec's path relative to this repository.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KSRC=${KSRC:-/var/cache/spray/linux-source-6.12}
gen=$KSRC/tools/net/ynl/ynl-gen-c.py
spec=Documentation/netlink/specs/spray.yaml
check=0

case ${1:-} in
--check) check=1 ;;
"") ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
[ -f "$gen" ] || { echo "ynl-gen: no $gen (run scripts/deps.sh)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/Documentation/netlink/specs" "$tmp/out"
cp "$KSRC"/Documentation/netlink/*.yaml "$tmp/Documentation/netlink/"
cp "$top/$spec" "$tmp/$spec"
touch "$tmp/MAINTAINERS"

# file  mode  --header|--source
targets=(
	"include/uapi/linux/spray_netlink.h uapi --header"
	"kernel/netlink-gen.h kernel --header"
	"kernel/netlink-gen.c kernel --source"
	"userspace/lib/spray-user.h user --header"
	"userspace/lib/spray-user.c user --source"
)
rc=0
for t in "${targets[@]}"; do
	read -r file mode kind <<<"$t"
	out=$tmp/out/$(basename "$file")
	# -o names the file: the .c includes "<basename>.h".
	(cd "$tmp" && timeout 120 python3 "$gen" --mode "$mode" --spec "$spec" \
		"$kind" -o "$out" >/dev/null)
	if [ $check -eq 1 ]; then
		if ! diff -u "$top/$file" "$out" >&2; then
			echo "ynl-gen: $file is stale: run scripts/ynl-gen.sh" >&2
			rc=1
		fi
	elif ! cmp -s "$out" "$top/$file"; then
		cp "$out" "$top/$file"
		echo "	GEN	$file"
	fi
done

# The runtime the generated client code is written against, as it is.
for f in ynl.c ynl.h ynl-priv.h; do
	src=$KSRC/tools/net/ynl/lib/$f
	dst=$top/userspace/lib/ynl/$f
	if [ $check -eq 1 ]; then
		if ! diff -u "$dst" "$src" >&2; then
			echo "ynl-gen: userspace/lib/ynl/$f differs from $src: run scripts/ynl-gen.sh" >&2
			rc=1
		fi
	elif ! cmp -s "$src" "$dst"; then
		mkdir -p "$(dirname "$dst")"
		cp "$src" "$dst"
		echo "	COPY	userspace/lib/ynl/$f"
	fi
done
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate the netlink code of AF_SPRAY from its YNL spec with the kernel's
# own generator (tools/net/ynl/ynl-gen-c.py of linux-source-6.12):
#
#   Documentation/netlink/specs/spray.yaml
#     -> include/uapi/linux/spray_netlink.h   (uAPI: attributes, commands)
#     -> kernel/netlink-gen.h, kernel/netlink-gen.c (policies, split ops)
#
#   scripts/ynl-gen.sh           regenerate the three files in place
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
exit $rc

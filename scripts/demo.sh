#!/bin/bash
# The main job: set up (scripts/deps.sh), build spray.ko and the tools, boot
# Debian's kernel in QEMU, load the module and show AF_SPRAY at work between
# two network namespaces.
#
#   scripts/demo.sh [-k KVER]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
KVER=
while getopts "k:" o; do
	case $o in
	k) KVER=$OPTARG ;;
	*) exit 2 ;;
	esac
done
scripts/deps.sh
[ -n "$KVER" ] || KVER=$(scripts/kver.sh --default)
make --no-print-directory -s KVER="$KVER" all
echo "demo: booting $KVER under QEMU (TCG, about 10 s)..."
scripts/vm.sh -k "$KVER" -o build/demo-"$KVER" -- scripts/demo-vm.sh |
	grep -vE "^\[ *[0-9.]+\]|SeaBIOS|Booting from ROM|\[\?7l" || true
[ "$(cat build/demo-"$KVER"/rc)" = 0 ]

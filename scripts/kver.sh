#!/bin/sh
# Print the Debian kernel versions that have a build tree installed, newest
# last; with --default, the one `make` builds for (the newest 6.1 if present,
# the first kernel of the test matrix).
set -e
list=$(ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||; s|/build$||' | sort -V)
if [ -z "$list" ]; then
	echo "no kernel build tree in /lib/modules/*/build: run scripts/deps.sh" >&2
	exit 1
fi
case "${1:-}" in
--default) echo "$list" | head -n 1 ;;
*) echo "$list" ;;
esac

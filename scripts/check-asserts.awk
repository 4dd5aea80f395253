# SPDX-License-Identifier: GPL-2.0
# A selftest's check asserts one command: in
#   spray_lib_check "what" [ "$a" -eq 0 ] && [ "$b" -eq 0 ]
# the check asserts [ "$a" -eq 0 ] alone, and the second test runs after
# it, its result unasserted (a test that cannot fail). Put such a pair in
# a function and check that. Prints every spray_lib_check* call (with its
# continuation lines) with an && outside quotes; exit status 1 if any.
#
#   awk -f scripts/check-asserts.awk selftests/*.sh     (make style)
/^[ \t]*spray_lib_check/ { c = 1 }
c {
	l = $0
	gsub(/'[^']*'/, "", l)
	gsub(/"[^"]*"/, "", l)
	if (l ~ /&&/) {
		print FILENAME ":" FNR ": a check asserts one command: " $0
		bad = 1
	}
}
{ if (!/\\$/) c = 0 }
END { exit bad }

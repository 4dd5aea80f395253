#!/bin/bash
# the new test, with the module without the fix and with it
for r in 1 2; do
for ko in /work/abko/nofix.ko /work/abko/carried2.ko; do
	echo "=== $ko round $r"
	/work/exp/pp/relonly.sh $ko -t answers_leave_the_timer_alone -t answers_carry_acks 2>&1 | grep -E "^ok|^not ok|expirations|#  "
	ip -all netns delete; sleep 1; rmmod spray
done
done

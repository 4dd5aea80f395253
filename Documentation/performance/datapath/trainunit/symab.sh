#!/bin/bash
# In the VM: symab.sh ROUNDS A.ko B.ko (timers/symoff.sh on each module in turn, one boot)
# symab.sh ROUNDS KO...: symoff.sh (timers/) alternating modules in one boot
R=$1; shift
base=$SPRAY_OUT
for r in $(seq $R); do
 for ko in "$@"; do
  v=$(basename $ko .ko)
  mkdir -p $base/$v-$r
  SPRAY_OUT=$base/$v-$r TR_KO=$ko bash /work/main/Documentation/performance/datapath/timers/symoff.sh > $base/$v-$r/log 2>&1
  ip -all netns delete
  for i in $(seq 100); do rmmod spray 2>/dev/null && break; sleep 0.2; done
 done
done

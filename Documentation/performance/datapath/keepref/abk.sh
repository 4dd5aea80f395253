#!/bin/bash
# A/B in one boot: base (9dae85c: trains' packets kept in clones) vs keepref
# (kept by reference), one connection, 300 MB, MTU 1500 and 9000, a fresh
# module load per transfer, TCP once per round as the reference
OUT0=$SPRAY_OUT
for r in $(seq ${REPS:-5}); do
for mtu in ${MTUS:-1500 9000}; do
for ko in /work/main/build/exp/base.ko /work/main/build/exp/keepref.ko; do
	n=$(basename $ko .ko); steps=spray
	[ $ko = /work/main/build/exp/base.ko ] && steps="spray tcp"
	mkdir -p $OUT0/$n.$mtu.$r
	MTU=$mtu SPRAY_OUT=$OUT0/$n.$mtu.$r KO=$ko STEPS="$steps" /work/main/build/exp/same.sh 2>&1 | grep "^RES" | sed "s/^RES /RES $n mtu$mtu /"
	ip -all netns delete 2>/dev/null
	for i in $(seq 100); do rmmod spray 2>/dev/null && break; sleep 0.2; done
done; done; done

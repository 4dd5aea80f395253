#!/bin/bash
# A/B in one boot: base (da23849) vs new (5be7d8b), MTU 1500 and 9000
export N=${N:-300M}
for mtu in 1500; do
for r in 1 2 3 4 5; do
	for vk in base:/work/main/build/exp/base-6.1.ko new:/work/main/build/exp/rtofloor8-6.1.ko; do
		MTU=$mtu KO=${vk#*:} RTOS=1000 REPS=1 /work/main/build/exp/rto.sh 2>&1 | sed "s/^RES /RES ${vk%%:*} mtu$mtu /"
		ip -all netns delete 2>/dev/null
		for i in $(seq 100); do rmmod spray 2>/dev/null && break; sleep 0.2; done
	done
done
done

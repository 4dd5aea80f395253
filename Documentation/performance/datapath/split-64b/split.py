#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The 64 B exchange split by entry point, in guest CPU us per exchange
(inclusive of callees): each symbol's share of the samples of perf record
-a (both CPUs) times the run's wall time, over its exchanges. Reads the
cal-*.json and children-*.txt that ppcallee.sh wrote (run from this
folder, or give it as the first argument)."""
import json
import re
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "."
runs = [("spray", "7601"), ("udp", "7602"), ("spray", "7603"), ("udp", "7604")]
rows = [
    ("guest CPU per exchange (/proc/stat)", None),
    ("sendto(), with the receive softirq", ["__x64_sys_sendto"]),
    ("  the receive softirq", ["net_rx_action"]),
    ("    the module's receive (UDP: enqueue)", ["spray_udp_data_ready", "__udp_enqueue_schedule_skb"]),
    ("      spray_rcv_one()", ["spray_rcv_one"]),
    ("        spray_rcv_ack() (the carried ACK)", ["spray_rcv_ack"]),
    ("      the reader's wake-up", ["sock_def_readable"]),
    ("    the IP input route lookup", ["ip_route_input_noref"]),
    ("  the send down to the device (with the softirq)", ["spray_xmit_queue", "udp_send_skb"]),
    ("  the pump and the packet builder", ["spray_conn_pump"]),
    ("recvfrom()", ["__x64_sys_recvfrom"]),
    ("finish_task_switch() (interrupts back on)", ["finish_task_switch.isra.0"]),
    ("clock reads (read_hpet)", ["read_hpet"]),
]
tab = {}
for tp, port in runs:
    j = json.load(open(f"{d}/cal-{tp}-{port}.json"))
    us = 2 * j["seconds"] / j["iters"] * 1e6 / 100
    incl = {}
    for line in open(f"{d}/children-{tp}-{port}.txt"):
        m = re.match(r"\s*([0-9.]+)%\s+[0-9.]+%\s+\[.\]\s+(\S+)", line)
        if m:
            incl[m.group(2)] = float(m.group(1)) * us
    tab[(tp, port)] = (j, incl)
print("%-50s %s" % ("us per 64 B exchange", "  ".join("%s %s" % r for r in runs)))
print("%-50s %s" % ("p50 round trip, us", "  ".join("%10.0f" % tab[r][0]["p50_us"] for r in runs)))
for name, syms in rows:
    vals = []
    for r in runs:
        j, incl = tab[r]
        if syms is None:
            vals.append(j["cpu_us_per_exchange"])
        else:
            vals.append(next((incl[s] for s in syms if s in incl), 0.0))
    print("%-50s %s" % (name, "  ".join("%10.1f" % v for v in vals)))

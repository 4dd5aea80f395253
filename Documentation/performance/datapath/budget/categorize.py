#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sum a flat perf profile (symoff.sh's flat.txt: "PCT% [k] symbol") into
categories, as instruction-us per exchange: US is the run's busy CPU per
exchange (cpu_busy_s / (bytes / size) * 1e6), idle (pv_native_safe_halt)
left out.

    categorize.py FLAT.txt US [FLAT2.txt US2 ...]
"""
import re
import sys

CATS = [
    ("module", r"^spray_|^__spray_"),
    ("copies", r"rep_movs|_copy_(to|from)_iter|copy_user|__check_object_size|"
               r"__virt_addr_valid|check_stack_object|memcpy"),
    ("pages (alloc, clear, free)", r"clear_page|page|rmqueue|__folio|"
                                   r"free_unref|get_page_from_freelist"),
    ("skb and slab (alloc, free)", r"skb_release|kfree|kmalloc|kmem_cache|"
                                   r"slab|__build_skb|alloc_skb|consume_skb|"
                                   r"skb_free|__alloc_skb|napi_|page_frag"),
    ("memset", r"memset"),
    ("TCP", r"^tcp|^__tcp"),
    ("UDP", r"udp|^__skb_recv_udp|__skb_try_recv_from_queue"),
    ("IP and route", r"^ip_|^__ip_|fib_|rt_|dst_|inet_|ipv4_|raw_local|"
                     r"^nf_|neigh_|iptunnel"),
    ("device, veth, softirq", r"veth|dev_|netif|__netif|process_backlog|"
                              r"net_rx_action|handle_softirqs|eth_|"
                              r"skb_network|validate_xmit|enqueue_to_backlog|"
                              r"skb_scrub|gro|do_softirq|__local_bh"),
    ("locks", r"spin|_raw_|queued"),
    ("sched, syscalls, time", r"sched|switch|syscall|entry_|wake|"
                              r"schedule|ktime|hpet|hrtimer|tick|rcu|"
                              r"update_|enqueue_task|dequeue_task|try_to|"
                              r"select_task|__sys_|sock_|^__x64|libc|vdso|"
                              r"cgroup|timer"),
]


def load(path):
    tot = {}
    idle = 0.0
    for line in open(path):
        m = re.match(r"\s*([\d.]+)%\s+\[[k.]\]\s+(\S+)", line)
        if not m:
            continue
        pct, sym = float(m.group(1)), m.group(2)
        if sym == "pv_native_safe_halt":
            idle += pct
            continue
        for name, rx in CATS:
            if re.search(rx, sym):
                tot[name] = tot.get(name, 0.0) + pct
                break
        else:
            tot["other"] = tot.get("other", 0.0) + pct
    return tot, idle


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    runs = []
    for i in range(0, len(args), 2):
        tot, idle = load(args[i])
        busy = sum(tot.values())
        us = float(args[i + 1])
        runs.append((args[i], {k: v / busy * us for k, v in tot.items()},
                     us, busy))
    names = [n for n, _ in CATS] + ["other"]
    print("instruction-us per exchange (flat profiles: only the top symbols "
          "listed are counted, scaled to the run's busy CPU)")
    print("%-30s" % "category" + "".join("%14s" % r[0].split("/")[-1][:13]
                                         for r in runs))
    for n in names:
        print("%-30s" % n + "".join("%14.1f" % r[1].get(n, 0.0) for r in runs))
    print("%-30s" % "total" + "".join("%14.1f" % r[2] for r in runs))
    print("%-30s" % "busy samples, % of all" +
          "".join("%14.1f" % r[3] for r in runs))


main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The module's own time in a sampled run (symoff.sh's symoff.txt: sample
counts per CPU, address and symbol+offset), in guest CPU us per exchange:
per function and per source line (addr2line on the module it ran).

    symsum.py SYMOFF_TXT SPRAY_KO CPU_US_PER_EXCHANGE"""
import collections
import re
import subprocess
import sys

path, ko, cpu_us = sys.argv[1], sys.argv[2], float(sys.argv[3])
nm = {}
for line in subprocess.run(["nm", ko], capture_output=True, text=True).stdout.splitlines():
    p = line.split()
    if len(p) == 3 and p[1] in "tT":
        nm[p[2]] = int(p[0], 16)
at, per = collections.Counter(), collections.Counter()
tot = idle = 0
for line in open(path):
    m = re.match(r"\s*(\d+)\s+\[\d+\]\s+\S+\s+(\S+)\+0x([0-9a-f]+)", line)
    if not m:
        continue
    n, sym, off = int(m.group(1)), m.group(2), int(m.group(3), 16)
    tot += n
    if sym in ("native_safe_halt", "pv_native_safe_halt", "default_idle_call"):
        idle += n
    if sym in nm:
        at[(sym, nm[sym] + off)] += n
        per[sym] += n
us = cpu_us / (tot - idle)
print("samples %d, idle %d; the module's own code: %.1f us of %.1f per exchange (%.1f%% of the busy samples)"
      % (tot, idle, sum(per.values()) * us, cpu_us, 100.0 * sum(per.values()) / (tot - idle)))
print("\nper function, us per exchange")
for sym, n in per.most_common(25):
    print("%6.2f  %s" % (n * us, sym))
lines = collections.Counter()
for (sym, addr), n in at.items():
    out = subprocess.run(["addr2line", "-e", ko, hex(addr)], capture_output=True, text=True).stdout
    lines[(sym, re.sub(r"^.*/(kernel|include)/", r"\1/", out.split("\n")[0]))] += n
print("\nper source line, us per exchange")
for (sym, where), n in lines.most_common(25):
    print("%6.2f  %-24s %s" % (n * us, sym, where))

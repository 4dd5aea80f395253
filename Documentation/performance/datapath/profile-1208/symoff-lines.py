#!/usr/bin/env python3
"""Samples of the module's functions by source line: symoff.txt (perf
script -F cpu,ip,sym,symoff, counted) against objdump -dl of the same
spray.ko.  usage: symoff-lines.py symoff.txt spray.ko [FUNCTION...]"""
import re
import subprocess
import sys
from collections import Counter

so, ko, only = sys.argv[1], sys.argv[2], set(sys.argv[3:])
syms = {}
for line in subprocess.run(["nm", ko], capture_output=True, text=True).stdout.split("\n"):
    f = line.split()
    if len(f) == 3 and f[1] in "tT":
        syms[f[2]] = int(f[0], 16)
src, amap = None, {}
dis = subprocess.run(["objdump", "-dl", "--no-show-raw-insn", ko],
                     capture_output=True, text=True).stdout
for line in dis.split("\n"):
    m = re.match(r"^(/\S+:\d+)", line)
    if m:
        src = m.group(1).split("/")[-1]
        continue
    m = re.match(r"^\s+([0-9a-f]+):\s", line)
    if m:
        amap[int(m.group(1), 16)] = src
by_fn, by_line = Counter(), Counter()
for line in open(so):
    m = re.search(r"^\s*(\d+) \[(\d+)\]\s+\S+ (spray_\w+)\+0x([0-9a-f]+)", line)
    if not m or m.group(3) not in syms or (only and m.group(3) not in only):
        continue
    n, cpu, fn = int(m.group(1)), m.group(2), m.group(3)
    by_fn[(cpu, fn)] += n
    by_line[(cpu, fn, amap.get(syms[fn] + int(m.group(4), 16)))] += n
for (cpu, fn), n in by_fn.most_common(25):
    print("%5d  cpu %s  %s" % (n, cpu, fn))
print()
for (cpu, fn, s), n in by_line.most_common(40):
    print("%5d  cpu %s  %-24s %s" % (n, cpu, fn, s))

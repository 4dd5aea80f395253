#!/usr/bin/env python3
# symab2.py DIR A B [SYM...]: runs DIR/A-N.{json,sym}, DIR/B-N...: per-symbol guest CPU us per 64 KiB message, median over runs
import glob, json, re, sys, collections, statistics as st
d, va, vb = sys.argv[1:4]
want = sys.argv[4:]
IDLE = {"native_safe_halt", "default_idle_call", "amd_e400_idle"}
def load(path):
    j = json.load(open(path + ".json"))
    cnt = collections.Counter()
    for line in open(path + ".sym"):
        m = re.match(r"\s*(?:[\d.]+%\s+)?(\d+)\s+\[(.)\]\s+(.*\S)", line)
        if m:
            cnt[m.group(3)] += int(m.group(1))
    busy = sum(n for s, n in cnt.items() if s not in IDLE)
    us = j["cpu_busy_s"] * 1e6 / busy / (j["bytes"] / 65536)
    return j, {s: n * us for s, n in cnt.items() if s not in IDLE}
def runs(v):
    return [load(p[:-5]) for p in sorted(glob.glob("%s/%s-*.json" % (d, v)))]
A, B = runs(va), runs(vb)
for v, R in ((va, A), (vb, B)):
    print("%s: " % v + ", ".join("%.0f us/msg %.2f ns/B %s" % (sum(s.values()), j["cpu_ns_per_byte"], j["cpu_busy_pct"]) for j, s in R))
def med(R, s):
    return st.median([x.get(s, 0) for _, x in R])
syms = want or sorted(set().union(*[x for _, x in A + B]), key=lambda s: -abs(med(A, s) - med(B, s)))[:40]
print("%8s %8s %8s  symbol (median us per message)" % (va, vb, "B-A"))
for s in syms:
    print("%8.2f %8.2f %8.2f  %s" % (med(A, s), med(B, s), med(B, s) - med(A, s), s))

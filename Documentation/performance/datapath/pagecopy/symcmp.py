#!/usr/bin/env python3
# symcmp.py DIR RUN_A RUN_B [N]: per-symbol guest CPU us per 64 KiB message of two runs
import json, re, sys, collections
d, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
N = int(sys.argv[4]) if len(sys.argv) > 4 else 40
IDLE = {"native_safe_halt", "default_idle_call", "amd_e400_idle"}
def load(r):
    j = json.load(open("%s/%s.json" % (d, r)))
    cnt = collections.Counter()
    for line in open("%s/%s.sym" % (d, r)):
        m = re.match(r"\s*(?:[\d.]+%\s+)?(\d+)\s+\[(.)\]\s+(.*\S)", line)
        if m:
            cnt[m.group(3)] += int(m.group(1))
    busy = sum(n for s, n in cnt.items() if s not in IDLE)
    msgs = j["bytes"] / 65536
    us = j["cpu_busy_s"] * 1e6 / busy / msgs
    return j, {s: n * us for s, n in cnt.items() if s not in IDLE}
ja, A = load(a); jb, B = load(b)
print("%s: %.1f us/msg (%.2f ns/B, busy %s); %s: %.1f us/msg (%.2f ns/B, busy %s)" % (
    a, sum(A.values()), ja["cpu_ns_per_byte"], ja["cpu_busy_pct"], b, sum(B.values()), jb["cpu_ns_per_byte"], jb["cpu_busy_pct"]))
keys = sorted(set(A) | set(B), key=lambda s: -(A.get(s, 0) - B.get(s, 0)))
print("%8s %8s %8s  %s" % (a, b, "diff", "symbol"))
for s in keys[:N]:
    print("%8.1f %8.1f %8.1f  %s" % (A.get(s, 0), B.get(s, 0), A.get(s, 0) - B.get(s, 0), s))
print("...")
for s in keys[-8:]:
    print("%8.1f %8.1f %8.1f  %s" % (A.get(s, 0), B.get(s, 0), A.get(s, 0) - B.get(s, 0), s))

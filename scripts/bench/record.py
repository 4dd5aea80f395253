#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one benchmark run's raw files into one JSON line (pair.sh).

  record.py RUNS.jsonl TMPDIR SCENARIO TRANSPORT REP key=value...

TMPDIR holds pb0/pb1 (bytes per path, before/after), cpu0/cpu1 (busy and
idle jiffies), for AF_SPRAY s1a/s1b/s2a/s2b (sprayctl -j stats of h1 and
h2) and samples ("time rx-msgs" lines). A value starting with @ is a file
of JSON; values that parse as JSON are kept as such, others as strings.
"""
import json
import os
import re
import statistics
import sys

WARMUP = 2.0	# seconds left out at the start of a steady-state window


def load(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def nums(path):
    return [float(x) for x in (load(path, "") or "").split()]


def window(samples, start, end=None):
    """Goodput in Mbit/s between the first sample at or after start and
    the last one at or before end (samples: [(t, bytes)])."""
    s = [p for p in samples if p[0] >= start and (end is None or p[0] <= end)]
    if len(s) < 2 or s[-1][0] - s[0][0] < 1.0:
        return None
    return (s[-1][1] - s[0][1]) * 8 / (s[-1][0] - s[0][0]) / 1e6


def main():
    out, tmp, scen, transport, rep = sys.argv[1:6]
    r = {"scenario": scen, "transport": transport, "rep": int(rep)}
    for kv in sys.argv[6:]:
        k, v = kv.split("=", 1)
        if v.startswith("@"):
            try:
                v = json.loads(load(v[1:], "null") or "null")
            except ValueError:
                v = None
        else:
            try:
                v = json.loads(v)
            except ValueError:
                pass
        r[k] = v
    if r.get("fail_at") == "":
        r["fail_at"] = None

    pb0, pb1 = nums(os.path.join(tmp, "pb0")), nums(os.path.join(tmp, "pb1"))
    if pb0 and len(pb0) == len(pb1):
        d = [b - a for a, b in zip(pb0, pb1)]
        r["path_bytes"] = d
        t = sum(d) or 1
        r["path_share_pct"] = [round(100.0 * x / t, 1) for x in d]
    c0, c1 = nums(os.path.join(tmp, "cpu0")), nums(os.path.join(tmp, "cpu1"))
    if len(c0) == 2 and len(c1) == 2:
        busy, idle = c1[0] - c0[0], c1[1] - c0[1]
        r["cpu_busy_pct"] = round(100.0 * busy / ((busy + idle) or 1), 1)

    fail = r.get("fail_at")
    if transport == "spray":
        m = re.search(r"sent (\d+) bytes (\d+) unacked (-?\d+) failed (\d+)",
                      r.get("send") or "")
        secs = float(r["t1"]) - float(r["t0"])
        r["seconds"] = round(secs, 2)
        if m:
            r["bytes"] = int(m.group(2))
            r["ok"] = m.group(3) == "0" and m.group(4) == "0" and \
                "dup 0 bad 0" in (r.get("recv") or "")
            r["goodput_mbps"] = round(r["bytes"] * 8 / secs / 1e6, 2)
        else:
            r["ok"] = False
        samples = []
        for line in (load(os.path.join(tmp, "samples"), "") or "").splitlines():
            f = line.split()
            if len(f) == 2 and f[1].isdigit():
                samples.append((float(f[0]), int(f[1]) * int(r["msg"])))
        r["samples"] = samples
        start = float(fail) + WARMUP if fail else float(r["t0"]) + WARMUP
        w = window(samples, start)
        if w is not None:
            r["window_mbps"] = round(w, 2)
        ctr = {}
        for who, a, b in (("h1", "s1a", "s1b"), ("h2", "s2a", "s2b")):
            try:
                sa = json.loads(load(os.path.join(tmp, a), "{}") or "{}")
                sb = json.loads(load(os.path.join(tmp, b), "{}") or "{}")
            except ValueError:
                continue
            ctr[who] = {k: sb[k] - sa.get(k, 0) for k in sb
                        if isinstance(sb[k], (int, float))}
        r["counters"] = ctr
    elif transport.startswith(("tcp", "mptcp")):
        srv = r.get("server") or {}
        r["ok"] = bool(srv.get("bytes"))
        if srv.get("seconds"):
            r["bytes"] = srv["bytes"]
            r["seconds"] = round(srv["seconds"], 2)
            r["goodput_mbps"] = round(srv["bytes"] * 8 / srv["seconds"] / 1e6, 2)
            samples = srv.get("samples") or []
            first = srv["first"]
            end = first + float(r.get("dur", 0))
            start = float(fail) + WARMUP if fail else first + WARMUP
            w = window(samples, start, end)
            if w is not None:
                r["window_mbps"] = round(w, 2)
            r["samples"] = samples
        r.pop("server", None)
    elif transport == "udp":
        srv = r.pop("server", None) or {}
        r["ok"] = bool(srv.get("bytes"))
        if srv.get("seconds"):
            r["bytes"] = srv["bytes"]
            r["seconds"] = round(srv["seconds"], 2)
            r["goodput_mbps"] = round(srv["bytes"] * 8 / srv["seconds"] / 1e6, 2)
            r["per_source_mbps"] = {k: round(v * 8 / srv["seconds"] / 1e6, 2)
                                    for k, v in srv.get("per_source", {}).items()}
    with open(out, "a") as f:
        f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()

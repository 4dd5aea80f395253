#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables from a benchmark results directory (runs.jsonl + meta.json):
writes results.md and results.json there and prints the markdown.

  report.py RESULTS_DIR
"""
import json
import os
import statistics
import sys

NAMES = {
    "udp": "raw UDP, 1 flow pinned per path (ceiling)",
    "spray": "AF_SPRAY, 1 socket pair",
    "tcp-1": "TCP, 1 flow",
    "tcp-8": "TCP, 8 flows",
    "mptcp-1": "MPTCP, 1 subflow pinned per path",
}


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def f(x, fmt="%.1f"):
    return "-" if x is None else fmt % x


def main():
    d = sys.argv[1]
    meta = json.load(open(os.path.join(d, "meta.json")))
    runs = [json.loads(l) for l in open(os.path.join(d, "runs.jsonl")) if l.strip()]
    rate, n = meta["rate_mbit"], meta["paths"]
    agg = rate * n
    md = []
    md.append("AF_SPRAY benchmarks, kernel %s, %s, %d vCPUs (QEMU TCG)" %
              (meta["kernel"], meta["date"], meta["cpus"]))
    md.append("")
    md.append("Fabric: %d ECMP paths x %g Mbit/s (tbf burst %s, fq_codel ecn, both "
              "directions) = %g Mbit/s aggregate; %d s per run; AF_SPRAY messages "
              "of %d bytes." % (n, rate, meta["burst"], agg, meta["seconds"],
                                meta["msg_bytes"]))
    out = {"meta": meta, "aggregate_mbps": agg, "tables": {}}

    def by(scen, tp):
        return [r for r in runs if r["scenario"] == scen and r["transport"] == tp]

    # --- pair ---
    if any(r["scenario"] == "pair" for r in runs):
        tcp1 = med([r.get("goodput_mbps") for r in by("pair", "tcp-1")])
        md += ["", "### Single pair, healthy fabric", "",
               "| transport | runs | goodput Mbit/s (median) | each run | "
               "% of aggregate | x TCP 1 flow | steady Mbit/s | CPU busy % | "
               "per-path share % (median run) |",
               "|---|---|---|---|---|---|---|---|---|"]
        rows = []
        for tp in ("udp", "spray", "tcp-1", "tcp-8", "mptcp-1"):
            rs = by("pair", tp)
            if not rs:
                continue
            g = med([r.get("goodput_mbps") for r in rs])
            mid = sorted(rs, key=lambda r: r.get("goodput_mbps") or 0)[len(rs) // 2]
            row = {
                "transport": tp, "runs": len(rs), "goodput_mbps": g,
                "each": [r.get("goodput_mbps") for r in rs],
                "ratio_aggregate": g / agg if g else None,
                "ratio_tcp1": g / tcp1 if g and tcp1 else None,
                "steady_mbps": med([r.get("window_mbps") for r in rs]),
                "cpu_busy_pct": med([r.get("cpu_busy_pct") for r in rs]),
                "path_share_pct": mid.get("path_share_pct"),
                "all_ok": all(r.get("ok") for r in rs),
            }
            rows.append(row)
            md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                NAMES.get(tp, tp) + ("" if row["all_ok"] else " (FAILED run)"),
                len(rs), f(g), " / ".join(f(x) for x in row["each"]),
                f(row["ratio_aggregate"] and 100 * row["ratio_aggregate"], "%.0f%%"),
                f(row["ratio_tcp1"], "%.2fx"), f(row["steady_mbps"]),
                f(row["cpu_busy_pct"], "%.0f"),
                " / ".join("%.0f" % s for s in row["path_share_pct"] or [])))
        out["tables"]["pair"] = rows
        sp = by("pair", "spray") + by("loss", "spray") + by("down", "spray") + \
            by("rto", "spray")
        if sp:
            md += ["", "### AF_SPRAY counters (sender h1; deltas over each run)", "",
                   "| scenario | run | tx-pkts | retx-pkts | retx % | lost-pkts | rto | "
                   "ecn-echo | ecn-ce (h2) | path-down | per-path share % |",
                   "|---|---|---|---|---|---|---|---|---|---|---|"]
            for r in sp:
                c1 = r.get("counters", {}).get("h1", {})
                c2 = r.get("counters", {}).get("h2", {})
                tx = c1.get("tx-pkts")
                retx = c1.get("retx-pkts")
                md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    r["scenario"], r["rep"], tx, retx,
                    f(100.0 * retx / tx if tx and retx is not None else None, "%.2f"),
                    c1.get("lost-pkts"), c1.get("rto"), c1.get("ecn-echo"),
                    c2.get("ecn-ce"), c1.get("path-down"),
                    " / ".join("%.0f" % s for s in r.get("path_share_pct") or [])))

    # --- loss ---
    if any(r["scenario"] == "loss" for r in runs):
        md += ["", "### 1%% loss on path 1 (both directions); limit %g Mbit/s, "
               "target >= 85%%" % agg, "",
               "| transport | goodput Mbit/s | % of limit | steady Mbit/s | "
               "per-path share % |", "|---|---|---|---|---|"]
        rows = []
        for tp in ("spray", "tcp-8"):
            for r in by("loss", tp):
                g = r.get("goodput_mbps")
                rows.append({"transport": tp, "goodput_mbps": g,
                             "ratio_limit": g / agg if g else None,
                             "steady_mbps": r.get("window_mbps"),
                             "path_share_pct": r.get("path_share_pct"),
                             "ok": r.get("ok")})
                md.append("| %s | %s | %s | %s | %s |" % (
                    NAMES.get(tp, tp) + ("" if r.get("ok") else " (FAILED)"),
                    f(g), f(g and 100 * g / agg, "%.0f%%"),
                    f(r.get("window_mbps")),
                    " / ".join("%.0f" % s for s in r.get("path_share_pct") or [])))
        out["tables"]["loss"] = rows

    # --- down ---
    if any(r["scenario"] == "down" for r in runs):
        rem = rate * (n - 1)
        md += ["", "### Path 2 black-holed %g s into the run (loss 100%%, both "
               "directions); what remains %g Mbit/s, target >= 90%%" %
               (meta["fail_at"], rem), "",
               "| transport | goodput whole run Mbit/s | after the failure (from +2 s) "
               "Mbit/s | % of what remains | per-path share % |",
               "|---|---|---|---|---|"]
        rows = []
        for tp in ("spray", "tcp-8"):
            for r in by("down", tp):
                w = r.get("window_mbps")
                rows.append({"transport": tp, "goodput_mbps": r.get("goodput_mbps"),
                             "after_failure_mbps": w,
                             "ratio_remaining": w / rem if w else None,
                             "path_share_pct": r.get("path_share_pct"),
                             "ok": r.get("ok")})
                md.append("| %s | %s | %s | %s | %s |" % (
                    NAMES.get(tp, tp) + ("" if r.get("ok") else " (FAILED)"),
                    f(r.get("goodput_mbps")), f(w), f(w and 100 * w / rem, "%.0f%%"),
                    " / ".join("%.0f" % s for s in r.get("path_share_pct") or [])))
        out["tables"]["down"] = rows

    if by("rto", "spray"):
        md += ["", "### Diagnosis: AF_SPRAY, healthy fabric, rto-min-us 20000 "
               "(default 1000)", "", "| goodput Mbit/s | % of aggregate | steady Mbit/s |",
               "|---|---|---|"]
        for r in by("rto", "spray"):
            g = r.get("goodput_mbps")
            md.append("| %s | %s | %s |" % (f(g), f(g and 100 * g / agg, "%.0f%%"),
                                           f(r.get("window_mbps"))))
    out["runs"] = runs
    text = "\n".join(md) + "\n"
    open(os.path.join(d, "results.md"), "w").write(text)
    json.dump(out, open(os.path.join(d, "results.json"), "w"), indent=1)
    print(text)


if __name__ == "__main__":
    main()

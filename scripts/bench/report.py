#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tables and plots from an AF_SPRAY benchmark results directory
(scripts/bench/run.sh): reads bootN/meta.env and bootN/runs/*/, writes
results.md, results.json and *.png (gnuplot) there and prints the markdown.

  report.py RESULTS_DIR

Every figure is a per-rank (per-flow) rate in Mbit/s: spraycoll's busbw
(computed from its times, which it prints with more digits than its
bandwidths), iperf3's, udpblast's and perftest's received rate. The limit
of a scenario is what the fabric allows per rank: the link rate for one
pair and for the ring (every host sends one link's worth), the link rate
over 7 for the incast (the receiver's link is shared), 3/4 of it per rank
after a spine link failed (the ring's 4 flows each way share 3 spines).
"""
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys

TRANSPORTS = ["spray", "tcp", "iperf3", "mptcp", "roce", "udp"]
NAMES = {
    "spray": "AF_SPRAY",
    "tcp": "TCP (spraycoll)",
    "iperf3": "TCP (iperf3)",
    "mptcp": "MPTCP (1 subflow/spine)",
    "roce": "RoCEv2 (soft-RoCE)",
    "udp": "raw UDP",
}
# busbw factors of spraycoll's patterns for n ranks
FACTORS = {
    "allreduce": lambda n: 2.0 * (n - 1) / n,
    "reducescatter": lambda n: (n - 1) / n,
    "allgather": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
}
MIB = 1 << 20


def read_env(path):
    d = {}
    try:
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                d[k] = v
    except OSError:
        pass
    return d


def nums(path):
    try:
        return [float(x) for x in open(path).read().split()]
    except (OSError, ValueError):
        return []


def load_json(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def fnum(x, fmt="%.1f"):
    return "-" if x is None else fmt % x


def pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def size_name(b):
    if b >= MIB and b % MIB == 0:
        return "%dM" % (b // MIB)
    if b >= 1024 and b % 1024 == 0:
        return "%dK" % (b // 1024)
    return str(b)


def parse_run(d, boot):
    m = read_env(os.path.join(d, "meta.env"))
    r = {"boot": boot, "dir": os.path.relpath(d), "scenario": m.get("scenario"),
         "transport": m.get("transport"), "tool": m.get("tool"),
         "limit_mbps": float(m["limit_mbit"]) if m.get("limit_mbit") else None}
    for k in ("op", "hosts", "args", "flows", "rc", "fail_at", "roce_mode",
              "offered_mbit", "limit_before_mbit"):
        if k in m:
            r[k] = m[k]
    t0, t1 = float(m.get("t_begin", 0)), float(m.get("t_end", 0))
    r["wall_s"] = round(t1 - t0, 2)
    c0, c1 = nums(os.path.join(d, "cpu0")), nums(os.path.join(d, "cpu1"))
    if len(c0) >= 2 and len(c0) == len(c1):
        # USER_HZ ticks of the whole guest: the busy ones are samples (a
        # CPU idling between short bursts is mostly not counted), the
        # idle time is measured (NO_HZ): busy is the interval less it,
        # where the snapshots say when they were read and the CPUs
        # (suite.sh's cpu_snap; results before December 2026 do not)
        busy, idle = c1[0] - c0[0], c1[1] - c0[1]
        r["cpu_busy_pct_sampled"] = round(100.0 * busy / ((busy + idle) or 1), 1)
        r["cpu_busy_s_sampled"] = busy / 100.0
        if len(c0) == 4 and c1[2] > c0[2] and c0[3] > 0:
            span = (c1[2] - c0[2]) * 100.0 * c0[3]
            busy = max(span - idle, 0.0)
            r["cpu_busy_pct"] = round(100.0 * busy / span, 1)
        else:
            r["cpu_busy_pct"] = r["cpu_busy_pct_sampled"]
        r["cpu_busy_s"] = busy / 100.0	# USER_HZ
    s0, s1 = nums(os.path.join(d, "snap0")), nums(os.path.join(d, "snap1"))
    if len(s0) > 4 and len(s0) == len(s1):
        dl = [b - a for a, b in zip(s0, s1)]
        ns = (len(dl) - 4) // 4
        # leaf0 tx, leaf0 rx, leaf1 tx, leaf1 rx (per spine), then the
        # leaves' red qdiscs: towards hosts dropped marked, towards spines
        up = [dl[k] + dl[2 * ns + k] for k in range(ns)]
        tot = sum(up) or 1
        r["spine_bytes"] = up
        r["spine_share_pct"] = [round(100.0 * x / tot, 1) for x in up]
        q = [int(x) for x in dl[4 * ns:]]
        r["aqm"] = {"leaf_to_host": {"dropped": q[0], "marked": q[1]},
                    "leaf_to_spine": {"dropped": q[2], "marked": q[3]}}
    tool = r["tool"]
    if tool == "dpbench":
        parse_dpbench(d, m, r)
        return r
    if tool == "spraycoll":
        parse_spraycoll(d, r)
    elif tool == "iperf3":
        flows = []
        for f in sorted(glob.glob(os.path.join(d, "iperf-*.json"))):
            j = load_json(f)
            try:
                flows.append(j["end"]["sum_received"]["bits_per_second"] / 1e6)
            except (TypeError, KeyError):
                flows.append(None)
        flow_figures(r, flows)
    elif tool == "udpblast":
        flows = []
        for f in sorted(glob.glob(os.path.join(d, "udp-*.json"))):
            j = None
            for line in open(f):
                if line.startswith("{"):
                    j = json.loads(line)
            flows.append(j["bytes"] * 8 / j["seconds"] / 1e6
                         if j and j.get("seconds") else None)
        flow_figures(r, flows)
        if r["scenario"] == "cpu" and r.get("cpu_busy_s"):
            tot = 0
            for f in glob.glob(os.path.join(d, "udp-*.json")):
                for line in open(f):
                    if line.startswith("{"):
                        tot += json.loads(line)["bytes"]
            r["bytes"] = tot
    elif tool in ("ib_send_bw", "ib_write_bw"):
        flows, walls = [], []
        for f in sorted(glob.glob(os.path.join(d, "cli-*.txt"))):
            v = w = None
            iters = None
            for line in open(f):
                p = line.split()
                if len(p) >= 5 and p[0].isdigit() and p[1].isdigit():
                    try:
                        v = float(p[3]) * 1000	# --report_gbits
                        iters = int(p[1])
                    except ValueError:
                        pass
                if len(p) == 5 and p[0] == "rc" and p[2] == "wall":
                    if p[1] == "0" and iters:
                        # the client's whole life, connection set-up included
                        w = iters * 65536 * 8 / (float(p[4]) - float(p[3])) / 1e6
            flows.append(v)
            walls.append(w)
        flow_figures(r, flows)
        r["wall_flows_mbps"] = walls
        r["transport"] = "roce"
    if r.get("bytes") and r.get("cpu_busy_s"):
        r["cpu_ns_per_byte"] = r["cpu_busy_s"] * 1e9 / r["bytes"]
    return r


def flow_figures(r, flows):
    """Per-flow rates: the run's figure is the slowest flow (a collective
    waits for its slowest rank), the mean is kept too."""
    r["flows_mbps"] = [None if x is None else round(x, 3) for x in flows]
    ok = [x for x in flows if x is not None]
    # a tool that reported nothing counts as a flow that moved nothing
    r["ok"] = bool(ok)
    r["silent_flows"] = len(flows) - len(ok)
    if ok:
        r["mean_mbps"] = sum(ok) / len(flows)
        r["mbps"] = min(ok) if len(ok) == len(flows) else 0.0
    else:
        r["mbps"] = None


def parse_spraycoll(d, r):
    j = load_json(os.path.join(d, "out.json"))
    r["ok"] = bool(j) and j.get("status") == "ok" and r.get("rc") == "0"
    if not j:
        try:
            r["error"] = open(os.path.join(d, "err")).read()[-400:]
        except OSError:
            pass
        r["mbps"] = None
        return
    n = j.get("ranks", 2)
    fac = FACTORS.get(j.get("op"), lambda n: 1.0)(n)
    r["ranks"] = n
    r["status"] = j.get("status")
    sizes = []
    for x in j.get("results", []):
        s = {"size": x["size"]}
        for k, v in (("mbps", "time_us"), ("p50_mbps", "p50_us"),
                     ("best_mbps", "min_us"), ("worst_mbps", "max_us")):
            t = x.get(v)
            s[k] = x["size"] * fac * 8 / t if t else None	# bits/us = Mbit/s
        if x.get("spray"):
            sp = x["spray"]
            s["spray"] = {k: sp.get(k) for k in (
                "tx_pkts", "retx_pkts", "lost_pkts", "rto", "ecn_ce", "ecn_echo",
                "msg_failed", "path_down", "rcvbuf_full", "paths", "path_share_pct")}
            if sp.get("tx_pkts"):
                s["spray"]["retx_pct"] = 100.0 * sp.get("retx_pkts", 0) / sp["tx_pkts"]
                s["spray"]["ce_pct"] = 100.0 * sp.get("ecn_ce", 0) / sp["tx_pkts"]
        sizes.append(s)
    r["sizes"] = sizes
    if sizes:
        last = sizes[-1]
        r["mbps"] = last["mbps"]
        r["p50_mbps"] = last["p50_mbps"]
        if r["scenario"] == "cpu":
            it = j.get("iters", 1) + j.get("warmup", 0)
            r["bytes"] = last["size"] * it
    if r["scenario"] == "down":
        # most iterations run after the failure: the median one is the
        # steady state on what remains; the mean covers the whole run
        r["whole_run_mbps"] = r.get("mbps")
        r["mbps"] = r.get("p50_mbps")


def spray_stats_delta(d):
    """AF_SPRAY's counters over a datapath run (spray-stats0/1.json, both
    sides' sprayctl stats): the share of DATA packets the receiver copied in
    the kernel, its ACKs per 100 packets, the sender's retransmissions per
    100, and per 100 packets taken the packets the receiver refused for
    lack of buffer, its RESUMEs, the turns it gave and those it took back
    unused (counters a module before them lacks count 0), the mean train
    sent (tx-pkts / tx-trains) and received whole (rx-pkts / rx-trains;
    None for a module without them); None without them (other
    transports)."""
    try:
        a = json.load(open(os.path.join(d, "spray-stats0.json")))
        b = json.load(open(os.path.join(d, "spray-stats1.json")))
        rx = {k: b["receiver"][k] - a["receiver"][k]
              for k in ("rx-pkts", "rx-copied", "ack-tx")}
        tx = {k: b["sender"][k] - a["sender"][k] for k in ("tx-pkts", "retx-pkts")}
        # a module before them lacks the train counters
        trains = {"tx": b["sender"].get("tx-trains", 0) - a["sender"].get("tx-trains", 0),
                  "rx": b["receiver"].get("rx-trains", 0) - a["receiver"].get("rx-trains", 0)}
        ref = {k: b["receiver"].get(k, 0) - a["receiver"].get(k, 0)
               for k in ("rcvbuf-full", "resume-tx", "rx-turns",
                         "rx-turns-expired")}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if rx["rx-pkts"] <= 0 or tx["tx-pkts"] <= 0:
        return None
    per100 = {k: 100.0 * v / rx["rx-pkts"] for k, v in ref.items()}
    return {"copied_pct": 100.0 * rx["rx-copied"] / rx["rx-pkts"],
            "acks_per_100": 100.0 * rx["ack-tx"] / rx["rx-pkts"],
            "retx_pct": 100.0 * tx["retx-pkts"] / tx["tx-pkts"],
            "refused_per_100": per100["rcvbuf-full"],
            "resumes_per_100": per100["resume-tx"],
            "turns_per_100": per100["rx-turns"],
            "expired_per_100": per100["rx-turns-expired"],
            "tx_train": tx["tx-pkts"] / trains["tx"] if trains["tx"] > 0 else None,
            "rx_train": rx["rx-pkts"] / trains["rx"] if trains["rx"] > 0 else None}


def backlog_drops(d):
    """skbs the CPUs' receive backlogs dropped during a datapath run
    (netdev_max_backlog: a veth queues there): the second column of
    /proc/net/softnet_stat, before and after (softnet0/1.txt), summed over
    the CPUs; None without both."""
    try:
        n = []
        for f in ("softnet0.txt", "softnet1.txt"):
            n.append(sum(int(line.split()[1], 16)
                         for line in open(os.path.join(d, f)) if line.strip()))
    except (OSError, ValueError, IndexError):
        return None
    return n[1] - n[0]


def parse_dpbench(d, m, r):
    """dpbench's one JSON object; a run without one, or with status
    failed, is a failed run (its error kept), never a figure."""
    j = None
    try:
        for line in open(os.path.join(d, "out.json")):
            if line.startswith("{"):
                j = json.loads(line)
    except (OSError, ValueError):
        j = None
    r["mode"] = m.get("mode")
    r["mtu"] = int(m["mtu"]) if m.get("mtu") else None
    r["rep"] = m.get("rep")
    r["dp"] = j or {}
    r["ok"] = bool(j) and j.get("status") == "ok" and r.get("rc") == "0"
    r["spray_stats"] = spray_stats_delta(d)
    r["backlog_drops"] = backlog_drops(d)
    if not r["ok"]:
        err = (j or {}).get("error")
        if not err:
            try:
                err = open(os.path.join(d, "err")).read().strip()[-300:]
            except OSError:
                err = ""
        r["error"] = "exit %s%s" % (r.get("rc"), ": " + err if err else "")
    r["conns"] = (j or {}).get("conns")
    if r["conns"] is None:
        a = (m.get("args") or "").split()
        r["conns"] = int(a[a.index("-c") + 1]) if "-c" in a else 1
    r["size"] = (j or {}).get("size")
    if r["size"] is None:
        a = (m.get("args") or "").split()
        r["size"] = a[a.index("-s") + 1] if "-s" in a else None


def mmm(xs, fmt):
    """median (min-max) of the figures of the runs that worked"""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    if len(xs) == 1:
        return fmt % xs[0]
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(xs), min(xs), max(xs))


def stats(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def paired(runs, tp, peer, key, match):
    """the ratio of @tp's figure @key to @peer's, repetition by repetition
    of the same boot (the runs of one repetition follow each other: a host
    that slows down between repetitions moves both), for the runs @match
    selects; stats of
    the ratios of the repetitions where both worked, or None"""
    def fig(t):
        return {(r.get("boot"), r.get("rep")): r["dp"].get(key) for r in runs
                if match(r) and r["transport"] == t and r["ok"] and r.get("rep")}
    a, b = fig(tp), fig(peer)
    return stats([a[k] / b[k] for k in a if k in b and a[k] is not None and b[k]])


def mmmx(st):
    """a paired ratio's median (min-max), or -"""
    if not st:
        return "-"
    if st["n"] == 1:
        return "%.2fx" % st["median"]
    return "%.2fx (%.2f-%.2f)" % (st["median"], st["min"], st["max"])


DP_TPS = ["spray", "tcp", "udp"]
DP_NAMES = {"spray": "AF_SPRAY", "tcp": "TCP", "udp": "UDP (GSO/GRO)"}


IDLE_SYMS = ("native_safe_halt", "default_idle", "default_idle_call", "amd_e400_idle", "acpi_idle_do_entry",
             "mwait_idle", "intel_idle", "cpu_idle_poll", "poll_idle")


def perf_top(path, n, idle=None):
    """the first n symbol lines of a perf report written by suite.sh, the
    idle loop left out (its share goes to idle[0] if given)"""
    out = []
    try:
        for line in open(path):
            if line.startswith("#"):
                if out:
                    break
                continue
            if not line.strip():
                if out:
                    break
                continue
            p = line.split()
            if len(p) >= 3 and p[0].endswith("%"):
                if p[-1] in IDLE_SYMS:
                    if idle is not None:
                        idle[0] += float(p[0][:-1])
                    continue
                out.append((p[0], " ".join(p[2:])))
            if len(out) >= n:
                break
    except OSError:
        pass
    return out


def datapath_tables(runs, md, out, d):
    dp = [r for r in runs if r["scenario"] == "datapath" and r.get("mode") in ("bulk", "pp")]
    if not dp and not glob.glob(os.path.join(d, "boot*", "datapath")):
        return
    res = {"bulk": [], "pingpong": [], "aims": [], "profiles": {}}
    mtus = sorted({r["mtu"] for r in dp if r["mtu"]})
    md += ["", "### Datapath: one unshaped veth, CPU-bound (dpbench)", "",
           "Two namespaces joined by one veth, default offloads, no shaping; one "
           "program (dpbench) for every transport; senders on guest CPU 0, the one "
           "receiving socket's thread on CPU 1. Goodput and guest CPU time (all CPUs: "
           "the interval less each CPU's idle time in /proc/stat, which NO_HZ measures; "
           "the busy ticks are sampled) from the start of the transfer to the last byte "
           "received; "
           "median (min-max) of the repetitions that worked; ratios are of medians, "
           "and \"paired\" ones the median (min-max) of each repetition's ratio (the "
           "transports of a repetition run one after the other, so a host that "
           "slows down between repetitions moves both). "
           "UDP does not retransmit: its goodput is what arrived, its loss beside it "
           "(a ceiling, not a peer in reliability). Failed runs are counted and "
           "named, never given a figure."]
    for mtu in mtus:
        bulk = [r for r in dp if r["mtu"] == mtu and r["mode"] == "bulk"]
        conns = sorted({r["conns"] for r in bulk})
        size = bulk[0]["size"] if bulk else None
        md += ["", "#### MTU %d, bulk (messages of %s B into one socket)" % (mtu, size), "",
               "| transport | conns | goodput Mbit/s | CPU ns/byte | goodput x TCP | "
               "CPU/B x TCP | paired goodput / CPU/B x TCP | goodput x UDP | CPU/B x UDP | "
               "busy % CPU 0 / 1 | runs ok | notes |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        med_ = {}
        for c in conns:
            for tp in DP_TPS:
                rs = [r for r in bulk if r["conns"] == c and r["transport"] == tp]
                if not rs:
                    continue
                ok = [r for r in rs if r["ok"]]
                g = stats([r["dp"].get("goodput_mbps") for r in ok])
                cpu = stats([r["dp"].get("cpu_ns_per_byte") for r in ok])
                med_[(c, tp)] = (g and g["median"], cpu and cpu["median"])
        for c in conns:
            for tp in DP_TPS:
                rs = [r for r in bulk if r["conns"] == c and r["transport"] == tp]
                if not rs:
                    continue
                ok = [r for r in rs if r["ok"]]
                g, cpu = med_[(c, tp)]
                notes = []
                if tp == "udp" and ok:
                    notes.append("loss %s%%" % mmm([r["dp"].get("loss_pct") for r in ok], "%.1f"))
                sst = [r["spray_stats"] for r in ok if r.get("spray_stats")]
                if sst:
                    notes.append("copied on receipt %s%%, ACKs per 100 packets %s, retx %s%%" % (
                        mmm([x["copied_pct"] for x in sst], "%.1f"),
                        mmm([x["acks_per_100"] for x in sst], "%.1f"),
                        mmm([x["retx_pct"] for x in sst], "%.2f")))
                if any(x.get("tx_train") for x in sst):
                    notes.append("packets per train sent %s, received %s" % (
                        mmm([x["tx_train"] for x in sst if x.get("tx_train")], "%.1f"),
                        mmm([x["rx_train"] for x in sst if x.get("rx_train")], "%.1f")))
                if any(x["refused_per_100"] for x in sst):
                    notes.append("per 100 packets taken: refused %s, RESUMEs %s, turns %s, turns taken back %s" % (
                        mmm([x["refused_per_100"] for x in sst], "%.1f"),
                        mmm([x["resumes_per_100"] for x in sst], "%.1f"),
                        mmm([x["turns_per_100"] for x in sst], "%.1f"),
                        mmm([x["expired_per_100"] for x in sst], "%.2f")))
                bd = [r["backlog_drops"] for r in ok if r.get("backlog_drops") is not None]
                if any(bd):
                    notes.append("skbs dropped by the CPU backlog %s" % mmm(bd, "%.0f"))
                for r in rs:
                    if not r["ok"]:
                        notes.append("**FAILED** rep %s: %s" % (r.get("rep"), r.get("error")))
                rat = {}
                for p in ("tcp", "udp"):
                    pg, pc = med_.get((c, p), (None, None))
                    rat[p] = (g / pg if g and pg else None, cpu / pc if cpu and pc else None)
                def sel(r, c=c):
                    return r["conns"] == c
                pair = {"goodput": paired(bulk, tp, "tcp", "goodput_mbps", sel),
                        "cpu": paired(bulk, tp, "tcp", "cpu_ns_per_byte", sel)} \
                    if tp != "tcp" else {"goodput": None, "cpu": None}
                row = {"mtu": mtu, "transport": tp, "conns": c,
                       "paired_x_tcp": pair,
                       "goodput_mbps": stats([r["dp"].get("goodput_mbps") for r in ok]),
                       "cpu_ns_per_byte": stats([r["dp"].get("cpu_ns_per_byte") for r in ok]),
                       "x_tcp": rat["tcp"], "x_udp": rat["udp"], "runs": len(rs),
                       "ok": len(ok), "notes": notes, "dirs": [r["dir"] for r in rs]}
                if tp == "udp":
                    row["loss_pct"] = stats([r["dp"].get("loss_pct") for r in ok])
                if sst:
                    row["spray_counters"] = {k: stats([x[k] for x in sst]) for k in sst[0]}
                res["bulk"].append(row)
                busy = [r["dp"].get("cpu_busy_pct") or [] for r in ok]
                busy = " / ".join("%.0f" % statistics.median(b[k] for b in busy)
                                  for k in range(min(len(b) for b in busy))) if busy else ""
                busy = busy or "-"
                row["cpu_busy_pct_median"] = busy
                md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d | %s |" % (
                    DP_NAMES[tp], c,
                    mmm([r["dp"].get("goodput_mbps") for r in ok], "%.0f"),
                    mmm([r["dp"].get("cpu_ns_per_byte") for r in ok], "%.2f"),
                    fnum(rat["tcp"][0], "%.2fx"), fnum(rat["tcp"][1], "%.2fx"),
                    "%s / %s" % (mmmx(pair["goodput"]), mmmx(pair["cpu"]))
                    if tp != "tcp" else "-",
                    fnum(rat["udp"][0], "%.2fx"), fnum(rat["udp"][1], "%.2fx"), busy,
                    len(ok), len(rs), "; ".join(notes)))
        pp = [r for r in dp if r["mtu"] == mtu and r["mode"] == "pp"]
        sizes = sorted({int(r["size"]) for r in pp if r["size"] is not None})
        if pp:
            md += ["", "#### MTU %d, ping-pong (one connection, request and answer of the "
                   "same size)" % mtu, "",
                   "| transport | size B | p50 us | p99 us | p50 x TCP | p50 x UDP | "
                   "paired p50 x TCP / x UDP | p99 x TCP | CPU us per exchange | busy % CPU 0 / 1 | "
                   "runs ok | notes |",
                   "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        pm = {}
        for sz in sizes:
            for tp in DP_TPS:
                ok = [r for r in pp if int(r["size"] or 0) == sz and r["transport"] == tp and r["ok"]]
                a, b = stats([r["dp"].get("p50_us") for r in ok]), stats([r["dp"].get("p99_us") for r in ok])
                pm[(sz, tp)] = (a and a["median"], b and b["median"])
        for sz in sizes:
            for tp in DP_TPS:
                rs = [r for r in pp if int(r["size"] or 0) == sz and r["transport"] == tp]
                if not rs:
                    continue
                ok = [r for r in rs if r["ok"]]
                p50, p99 = pm[(sz, tp)]
                notes = []
                if tp == "udp" and ok:
                    lost = sum(r["dp"].get("lost", 0) for r in ok)
                    if lost:
                        notes.append("%d exchange(s) lost (not timed)" % lost)
                for r in rs:
                    if not r["ok"]:
                        notes.append("**FAILED** rep %s: %s" % (r.get("rep"), r.get("error")))
                t50, t99 = pm.get((sz, "tcp"), (None, None))
                u50 = pm.get((sz, "udp"), (None, None))[0]
                def psel(r, sz=sz):
                    return int(r["size"] or 0) == sz
                pair = {p: paired(pp, tp, p, "p50_us", psel) if tp != p else None
                        for p in ("tcp", "udp")}
                row = {"mtu": mtu, "transport": tp, "size": sz,
                       "paired_p50_x": pair,
                       "p50_us": stats([r["dp"].get("p50_us") for r in ok]),
                       "p99_us": stats([r["dp"].get("p99_us") for r in ok]),
                       "p50_x_tcp": p50 / t50 if p50 and t50 else None,
                       "p50_x_udp": p50 / u50 if p50 and u50 else None,
                       "p99_x_tcp": p99 / t99 if p99 and t99 else None,
                       "runs": len(rs), "ok": len(ok), "notes": notes,
                       "iters": [r["dp"].get("iters") for r in ok],
                       "cpu_us_per_exchange": stats([r["dp"].get("cpu_us_per_exchange")
                                                     for r in ok])}
                busy = [r["dp"].get("cpu_busy_pct") or [] for r in ok]
                busy = " / ".join("%.0f" % statistics.median(b[k] for b in busy)
                                  for k in range(min(len(b) for b in busy))) if busy else ""
                busy = busy or "-"
                row["cpu_busy_pct_median"] = busy
                res["pingpong"].append(row)
                md.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d | %s |" % (
                    DP_NAMES[tp], sz, mmm([r["dp"].get("p50_us") for r in ok], "%.0f"),
                    mmm([r["dp"].get("p99_us") for r in ok], "%.0f"),
                    fnum(row["p50_x_tcp"], "%.2fx"), fnum(row["p50_x_udp"], "%.2fx"),
                    "%s / %s" % (mmmx(pair["tcp"]), mmmx(pair["udp"])),
                    fnum(row["p99_x_tcp"], "%.2fx"),
                    mmm([r["dp"].get("cpu_us_per_exchange") for r in ok], "%.0f"), busy,
                    len(ok), len(rs), "; ".join(notes)))
    # the aims of issue 13, from these figures
    aims = res["aims"]

    def bulk_row(mtu, tp, c):
        for x in res["bulk"]:
            if x["mtu"] == mtu and x["transport"] == tp and x["conns"] == c:
                return x
        return None

    def pp_row(mtu, tp, sz):
        for x in res["pingpong"]:
            if x["mtu"] == mtu and x["transport"] == tp and x["size"] == sz:
                return x
        return None
    def failed(name, row):
        """an aim whose figures failed is not met, and says why"""
        if row and row["ok"] == 0:
            aims.append({"aim": name, "figure": "FAILED (%d of %d runs)" % (
                row["runs"] - row["ok"], row["runs"]), "met": False})
            return True
        return False
    for mtu in mtus:
        b = bulk_row(mtu, "spray", 1)
        if failed("MTU %d, 1 connection: goodput >= 1.0x TCP, CPU/B <= 1.0x TCP" % mtu, b):
            pass
        elif b and b["x_tcp"][0] is not None:
            aims.append({"aim": "MTU %d, 1 connection: goodput >= 1.0x TCP, CPU/B <= 1.0x TCP" % mtu,
                         "figure": "%.2fx goodput, %.2fx CPU/B (paired: %s, %s)" % (
                             b["x_tcp"][0], b["x_tcp"][1], mmmx(b["paired_x_tcp"]["goodput"]),
                             mmmx(b["paired_x_tcp"]["cpu"])),
                         "met": b["x_tcp"][0] >= 1.0 and b["x_tcp"][1] <= 1.0})
        p = pp_row(mtu, "spray", 64)
        if failed("MTU %d, 64 B ping-pong p50 <= 1.1x UDP" % mtu, p):
            pass
        elif p and p["p50_x_udp"] is not None:
            aims.append({"aim": "MTU %d, 64 B ping-pong p50 <= 1.1x UDP" % mtu,
                         "figure": "%.2fx (%.0f us; paired %s)" % (
                             p["p50_x_udp"], p["p50_us"]["median"], mmmx(p["paired_p50_x"]["udp"])),
                         "met": p["p50_x_udp"] <= 1.1})
        p = pp_row(mtu, "spray", 65536)
        if failed("MTU %d, 64 KiB ping-pong p50 <= TCP's" % mtu, p):
            pass
        elif p and p["p50_x_tcp"] is not None:
            aims.append({"aim": "MTU %d, 64 KiB ping-pong p50 <= TCP's" % mtu,
                         "figure": "%.2fx (%.0f us; paired %s)" % (
                             p["p50_x_tcp"], p["p50_us"]["median"], mmmx(p["paired_p50_x"]["tcp"])),
                         "met": p["p50_x_tcp"] <= 1.0})
        b1, b16 = bulk_row(mtu, "spray", 1), bulk_row(mtu, "spray", 16)
        if failed("MTU %d, 16 connections into one socket >= 0.9x one's" % mtu, b16) or \
                failed("MTU %d, 16 connections into one socket >= 0.9x one's "
                       "(one connection's runs)" % mtu, b1):
            pass
        elif b1 and b16 and b1["goodput_mbps"] and b16["goodput_mbps"]:
            x = b16["goodput_mbps"]["median"] / b1["goodput_mbps"]["median"]
            aims.append({"aim": "MTU %d, 16 connections into one socket >= 0.9x one's" % mtu,
                         "figure": "%.2fx" % x, "met": x >= 0.9})
    if aims:
        md += ["", "#### Aims of issue 13 (datapath)", "", "| aim | figure | met |", "|---|---|---|"]
        for a in aims:
            md.append("| %s | %s | %s |" % (a["aim"], a["figure"], "yes" if a["met"] else "**no**"))
    # the profiles kept beside the runs
    profs = []
    for bd in sorted(glob.glob(os.path.join(d, "boot*", "datapath"))):
        for f in sorted(glob.glob(os.path.join(bd, "perf-*-cpu[0-9a]*.txt")) +
                        glob.glob(os.path.join(bd, "perf-*-FAILED.txt"))):
            if f.endswith("-callgraph.txt"):
                continue
            profs.append(f)
    if profs:
        md += ["", "#### perf profiles (self time in %% of the CPU's samples, idle loop "
               "apart, top 8 symbols; whole reports in %s)" %
               ", ".join(sorted({os.path.relpath(os.path.dirname(f), d) for f in profs})), ""]
        for f in profs:
            name = os.path.basename(f)[len("perf-"):-len(".txt")]
            idle = [0.0]
            top = perf_top(f, 8, idle)
            res["profiles"][name] = {"idle_pct": idle[0], "top": perf_top(f, 30)}
            if name.endswith("FAILED"):
                md.append("- %s: **perf failed**: %s" % (name, open(f).read().strip()))
                continue
            md.append("- %s (idle %.0f%%): %s" % (name, idle[0], ", ".join(
                "%s %s" % (p, s) for p, s in top) or "**no samples**"))
    out["datapath"] = res


def load_runs(out):
    runs, boots = [], []
    for bd in sorted(glob.glob(os.path.join(out, "boot*")),
                     key=lambda p: int(p.rsplit("boot", 1)[1] or 0)):
        b = int(bd.rsplit("boot", 1)[1])
        meta = read_env(os.path.join(bd, "meta.env"))
        meta["boot"] = b
        try:
            meta["rc"] = open(os.path.join(bd, "rc")).read().strip()
        except OSError:
            meta["rc"] = None
        boots.append(meta)
        for d in sorted(glob.glob(os.path.join(bd, "runs", "*"))):
            runs.append(parse_run(d, b))
    return runs, boots


def by(runs, scen, tp=None, boot=None):
    return [r for r in runs if r["scenario"] == scen and
            (tp is None or r["transport"] == tp) and (boot is None or r["boot"] == boot)]


def scenario_table(runs, scen, title, limit_note, md, out, boot=1):
    rs = by(runs, scen, boot=boot)
    if not rs:
        return
    fig = {}
    for r in rs:
        if r["transport"] in fig:	# ib_write_bw and ib_send_bw: keep both
            fig[r["transport"] + ":" + r["tool"]] = r
        else:
            fig[r["transport"]] = r
    peers = [t for t in ("spray", "tcp", "iperf3", "mptcp", "roce", "udp") if t in fig]
    md += ["", "### " + title, "", limit_note, ""]
    head = ["transport", "Mbit/s per rank", "% of limit"] + \
        ["x " + NAMES[p].split(" (")[0] + ("" if p not in ("tcp", "iperf3") else
                                           " " + NAMES[p].split(" ")[1]) for p in peers] + \
        ["spine shares %", "guest CPU %", "notes"]
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "---|" * len(head))
    rows = []
    for key, r in fig.items():
        tp = r["transport"]
        v = r.get("mbps")
        lim = r.get("limit_mbps")
        ratios = {}
        for p in peers:
            pv = fig[p].get("mbps")
            ratios[p] = v / pv if v is not None and pv else None
        notes = []
        if r.get("tool") not in ("spraycoll",) and r.get("mean_mbps") is not None and \
                len(r.get("flows_mbps") or []) > 1:
            notes.append("slowest of %d flows; mean %.1f" % (len(r["flows_mbps"]),
                                                              r["mean_mbps"]))
        if r.get("tool", "").startswith("ib_"):
            notes.append(r["tool"])
        if scen == "down" and r.get("whole_run_mbps") is not None:
            notes.append("median iteration; whole run %.1f" % r["whole_run_mbps"])
        for s in r.get("sizes", [])[-1:]:
            sp = s.get("spray")
            if sp and sp.get("tx_pkts"):
                notes.append("retx %.1f%%, CE %.0f%%, RTOs %s" % (
                    sp["retx_pct"], sp["ce_pct"], sp.get("rto")))
        if r.get("aqm"):
            a = r["aqm"]
            dr = sum(x["dropped"] for x in a.values())
            if dr:
                notes.append("AQM drops %d" % dr)
        if r.get("silent_flows"):
            notes.append("%d flow(s) reported nothing (counted as 0)" % r["silent_flows"])
        if not r.get("ok"):
            notes.append("**FAILED** (exit %s%s)" % (
                r.get("rc"), ", " + r["error"].strip().splitlines()[-1]
                if r.get("error") else ""))
        row = {"transport": tp, "tool": r.get("tool"), "mbps": v, "limit_mbps": lim,
               "ratio_limit": v / lim if v is not None and lim else None,
               "ratio_peers": ratios, "spine_share_pct": r.get("spine_share_pct"),
               "cpu_busy_pct": r.get("cpu_busy_pct"), "ok": r.get("ok"),
               "notes": notes, "run": r["dir"]}
        rows.append(row)
        md.append("| " + " | ".join(
            [NAMES[tp] + ("" if key == tp else " " + r["tool"]), fnum(v, "%.2f"),
             pct(row["ratio_limit"])] +
            [fnum(ratios[p], "%.2fx") for p in peers] +
            [" / ".join("%.0f" % x for x in r.get("spine_share_pct") or []),
             fnum(r.get("cpu_busy_pct"), "%.0f"), "; ".join(notes)]) + " |")
    out["scenarios"][scen] = rows
    return rows


def allreduce_tables(runs, md, out, rate):
    ar = [r for r in runs if r["scenario"] in ("allreduce", "seed")]
    if not ar:
        return
    # (boot, transport, size) -> record
    pts = {}
    for r in ar:
        for s in r.get("sizes", []):
            pts[(r["boot"], r["transport"], s["size"])] = dict(s, ok=r.get("ok"),
                                                               limit=r["limit_mbps"])
        if not r.get("sizes"):
            pts.setdefault((r["boot"], r["transport"], None), {"ok": False})
    boots = sorted({k[0] for k in pts})
    tps = [t for t in ("spray", "tcp", "mptcp") if any(k[1] == t for k in pts)]
    sizes1 = sorted({k[2] for k in pts if k[0] == boots[0] and k[2]})
    md += ["", "### Ring all-reduce, 8 ranks (busbw per rank; limit %g Mbit/s)" % rate, "",
           "Boot %d, every size (Mbit/s, %% of the limit):" % boots[0], "",
           "| size | " + " | ".join(NAMES[t] for t in tps) + " | " +
           " | ".join("%s / %s" % (NAMES["spray"], NAMES[t].split(" (")[0])
                      for t in tps if t != "spray") + " |",
           "|---|" + "---|" * (2 * len(tps) - 1)]
    table = []
    for s in sizes1:
        row = {"size": s}
        cells = []
        for t in tps:
            p = pts.get((boots[0], t, s))
            v = p.get("mbps") if p else None
            row[t] = v
            cells.append("%s (%s)" % (fnum(v, "%.2f"), pct(v / rate if v else None))
                         + ("" if not p or p.get("ok") else " FAILED"))
        rat = []
        for t in tps:
            if t == "spray":
                continue
            a, b = row.get("spray"), row.get(t)
            rat.append(fnum(a / b if a and b else None, "%.2fx"))
        table.append(row)
        md.append("| %s | %s | %s |" % (size_name(s), " | ".join(cells), " | ".join(rat)))
    out["allreduce"] = {"boot1": table}
    # >= 8 MiB on every boot
    big = sorted({k[2] for k in pts if k[2] and k[2] >= 8 * MIB})
    if big:
        md += ["", "At 8 MiB and above, every boot (each boot draws a new ECMP hash "
               "seed), Mbit/s (% of the limit):", "",
               "| size | transport | " + " | ".join("boot %d" % b for b in boots) +
               " | min | median |", "|---|---|" + "---|" * (len(boots) + 2)]
        seeds = []
        for s in big:
            for t in tps:
                vals = [pts.get((b, t, s), {}).get("mbps") for b in boots]
                if all(v is None for v in vals):
                    continue
                good = [v for v in vals if v is not None]
                seeds.append({"size": s, "transport": t, "per_boot": vals,
                              "min": min(good) if good else None,
                              "median": med(good)})
                md.append("| %s | %s | %s | %s | %s |" % (
                    size_name(s), NAMES[t],
                    " | ".join("%s (%s)" % (fnum(v, "%.2f"), pct(v / rate if v else None))
                               for v in vals),
                    pct(min(good) / rate if good else None),
                    pct(med(good) / rate if good else None)))
        out["allreduce"]["big_sizes_per_boot"] = seeds
    return pts, boots, tps


def plots(out_dir, pts, boots, tps, rate, scen_rows):
    if not shutil.which("gnuplot"):
        return ["gnuplot is not installed: no plots"]
    made = []
    dat = os.path.join(out_dir, "allreduce.dat")
    with open(dat, "w") as f:
        for t in tps:
            # one gnuplot data block per transport and boot
            for b in boots:
                f.write("# %s boot %d\n" % (t, b))
                for (bb, tt, s), p in sorted(pts.items(), key=lambda kv: (kv[0][2] or 0)):
                    if bb == b and tt == t and s and p.get("mbps"):
                        f.write("%d %.4f\n" % (s, p["mbps"]))
                f.write("\n\n")
    idx = 0
    cmds = []
    colors = {"spray": "#1f77b4", "tcp": "#d62728", "mptcp": "#2ca02c"}
    for t in tps:
        for b in boots:
            style = "linespoints lw 2 pt 7" if b == boots[0] else "points pt %d ps 1.5" % (4 + b)
            cmds.append("'%s' index %d using 1:2 with %s lc rgb '%s' title '%s%s'" % (
                dat, idx, style, colors.get(t, "black"), NAMES[t],
                "" if b == boots[0] else " (boot %d)" % b))
            idx += 1
    cmds.append("%g with lines dt 2 lc rgb 'black' title 'fabric limit'" % rate)
    gp = """set terminal pngcairo size 900,560 noenhanced
set output '%s'
set title 'Ring all-reduce, 8 ranks, leaf-spine (4 spines x %g Mbit/s links)'
set logscale x 2
set xlabel 'size per rank (bytes)'
set ylabel 'busbw per rank (Mbit/s)'
set yrange [0:%g]
set format x '%%.0b%%B'
set key bottom right
set grid
plot %s
""" % (os.path.join(out_dir, "allreduce-busbw.png"), rate, rate * 1.15, ", ".join(cmds))
    notes = []
    if subprocess.run(["gnuplot"], input=gp.encode(), capture_output=True).returncode == 0:
        made.append("allreduce-busbw.png")
    else:
        notes.append("gnuplot failed on allreduce-busbw.png")
    # % of the limit per scenario and transport
    scen = [s for s in ("pair", "ring", "alltoall", "incast", "loss", "down") if s in scen_rows]
    if scen:
        dat2 = os.path.join(out_dir, "scenarios.dat")
        tp2 = [t for t in TRANSPORTS if any(r["transport"] == t for s in scen
                                             for r in scen_rows[s])]
        with open(dat2, "w") as f:
            f.write("scenario " + " ".join(NAMES[t].split(" (")[0].replace(" ", "_") +
                                           ("" if t not in ("tcp", "iperf3") else "_" + t)
                                           for t in tp2) + "\n")
            for s in scen:
                vals = []
                for t in tp2:
                    rr = [r for r in scen_rows[s] if r["transport"] == t]
                    v = rr[0]["ratio_limit"] if rr and rr[0]["ratio_limit"] is not None else 0
                    vals.append("%.1f" % (100 * v))
                f.write(s + " " + " ".join(vals) + "\n")
        gp = """set terminal pngcairo size 900,520 noenhanced
set output '%s'
set title 'Per-rank rate as %% of the fabric limit'
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set yrange [0:110]
set ylabel '%% of limit'
set key outside right
set grid ytics
plot for [i=2:%d] '%s' using i:xtic(1) title columnheader(i)
""" % (os.path.join(out_dir, "scenarios.png"), len(tp2) + 1, dat2)
        if subprocess.run(["gnuplot"], input=gp.encode(), capture_output=True).returncode == 0:
            made.append("scenarios.png")
        else:
            notes.append("gnuplot failed on scenarios.png")
    return made + notes


def aims(runs, out, rate, md):
    res = []

    def add(name, target, figure, met, why):
        res.append({"aim": name, "target": target, "figure": figure, "met": met, "why": why})

    def spray_notes(rs):
        n = []
        for r in rs:
            for s in r.get("sizes", [])[-1:]:
                sp = s.get("spray")
                if sp and sp.get("tx_pkts"):
                    n.append("retx %.1f%% of packets, CE on %.0f%%, %s RTOs" % (
                        sp["retx_pct"], sp["ce_pct"], sp.get("rto")))
        return "; ".join(n)

    # 1. all-reduce >= 8 MiB, every boot
    ar = [(r, s) for r in runs if r["scenario"] in ("allreduce", "seed") and
          r["transport"] == "spray" for s in r.get("sizes", []) if s["size"] >= 8 * MIB]
    if ar:
        worst = min(s["mbps"] or 0 for r, s in ar)
        boots = sorted({r["boot"] for r, s in ar})
        tcp = [s["mbps"] for r in runs if r["scenario"] in ("allreduce", "seed") and
               r["transport"] == "tcp" for s in r.get("sizes", []) if s["size"] >= 8 * MIB
               and s["mbps"]]
        add("all-reduce busbw at 8 MiB and above, whatever the ECMP seed",
            ">= 90% of the limit on every boot",
            "AF_SPRAY worst %s over %d boot(s) (%d size x boot points); TCP %s-%s" % (
                pct(worst / rate), len(boots), len(ar),
                pct(min(tcp) / rate) if tcp else "-", pct(max(tcp) / rate) if tcp else "-"),
            worst >= 0.9 * rate and len(boots) >= 3,
            ("" if len(boots) >= 3 else "fewer than 3 boots; ") +
            ("" if worst >= 0.9 * rate else spray_notes(
                [r for r, s in ar if s["mbps"] == worst])))
    # 2. collisions: ring bulk and all-reduce >= 8 MiB
    ring = {r["transport"]: r for r in by(runs, "ring", boot=1)}
    if "spray" in ring and ring["spray"].get("mbps"):
        sv = ring["spray"]["mbps"]
        parts, met = [], True
        for t, need in (("tcp", 2.0), ("iperf3", 2.0), ("mptcp", 1.0), ("roce", 1.0)):
            if t in ring and ring[t].get("mbps"):
                x = sv / ring[t]["mbps"]
                parts.append("%.2fx %s" % (x, NAMES[t]))
                ok = x >= need if need > 1 else x > 1
                met = met and ok
            elif t in ring:
                parts.append("%s failed" % NAMES[t])
            else:
                parts.append("%s not run" % NAMES[t])
                if t in ("tcp", "mptcp", "roce"):
                    met = False
        add("under ECMP collisions (ring, 4 flows each way over 4 spines)",
            ">= 2x TCP, above MPTCP and RoCEv2",
            "AF_SPRAY %.2f Mbit/s per rank: %s" % (sv, ", ".join(parts)), met,
            "" if met else spray_notes([ring["spray"]]))
    # 3. loss
    lo = {r["transport"]: r for r in by(runs, "loss", boot=1)}
    if "spray" in lo:
        v = lo["spray"].get("mbps")
        ok = bool(v and lo["spray"].get("ok") and v >= 0.85 * lo["spray"]["limit_mbps"])
        add("1% loss on one spine link", ">= 85% of the limit",
            "AF_SPRAY %s" % pct(v / lo["spray"]["limit_mbps"] if v else None), ok,
            "" if ok else spray_notes([lo["spray"]]))
    # 4. down
    dn = {r["transport"]: r for r in by(runs, "down", boot=1)}
    if "spray" in dn:
        r = dn["spray"]
        v = r.get("mbps")
        ok_app = bool(r.get("ok"))
        ok = bool(v and ok_app and v >= 0.9 * r["limit_mbps"])
        add("a spine link fails mid-run", ">= 90% of what remains, no error to the application",
            "AF_SPRAY %s of what remains (median iteration), application %s" % (
                pct(v / r["limit_mbps"] if v else None),
                "saw no error" if ok_app else "got an ERROR (exit %s)" % r.get("rc")),
            ok, "" if ok else spray_notes([r]))
    # 5. CPU per byte
    cpu = {r["transport"]: r for r in by(runs, "cpu") if r.get("cpu_ns_per_byte")}
    udp = [r for r in by(runs, "cpu", "udp") if r.get("cpu_ns_per_byte")]
    if "spray" in cpu and udp:
        u = udp[0]["cpu_ns_per_byte"]	# UDP paced at AF_SPRAY's goodput
        x = cpu["spray"]["cpu_ns_per_byte"] / u
        add("CPU time per byte", "<= 1.5x raw UDP's",
            "AF_SPRAY %.1f ns/B, raw UDP %.1f ns/B at the same goodput: %.2fx" % (
                cpu["spray"]["cpu_ns_per_byte"], u, x), x <= 1.5, "")
    out["aims"] = res
    if not res:
        return
    md += ["", "### Aims of issue 7", "", "| aim | target | figure | met | why short |",
           "|---|---|---|---|---|"]
    for a in res:
        md.append("| %s | %s | %s | %s | %s |" % (a["aim"], a["target"], a["figure"],
                                                 "yes" if a["met"] else "**no**", a["why"]))


SA_ORDER = ["spray-sender", "spray-receiver", "spray-both", "spray-off", "tcp-cubic",
            "tcp-bbr", "udp"]


def sa_name(tp):
    if tp.startswith("spray-"):
        return "AF_SPRAY, cc-mode %s" % tp[6:]
    if tp.startswith("tcp-"):
        return "TCP %s (spraycoll)" % tp[4:]
    return NAMES.get(tp, tp)


def scaleacross_table(runs, boots, md, out):
    """The scaleacross scenario: one connection h0 -> h1 over the four
    long-haul links; every figure as a ratio to the limit (the four links)
    and to TCP cubic's and bbr's in the same boot."""
    rs = [r for r in runs if r["scenario"] == "scaleacross"]
    if not rs:
        return
    b = next((x for x in boots if x.get("sa_rate_mbit")), {})
    fig = {}
    for r in rs:
        fig[r["transport"]] = r
    keys = [k for k in SA_ORDER if k in fig] + sorted(k for k in fig if k not in SA_ORDER)
    tcps = [k for k in ("tcp-cubic", "tcp-bbr") if k in fig]
    md += ["", "### Scale-across: the two leaves joined through 4 long-haul links", "",
           ("Each leaf's 4 links to the spines: %s Mbit/s, %s ms one way (netem on the "
            "leaf side), RED ECN %s; host links %s Mbit/s. One connection h0 -> h1; "
            "limit: the 4 links, %s Mbit/s. Ping's smallest RTT h0 -> h1: %s ms. "
            "bdp-bytes %s; %s bytes per run (after a warm-up)." % (
                b.get("sa_rate_mbit", "?"), b.get("sa_delay_ms", "?"), b.get("sa_red", "?"),
                b.get("sa_host_rate_mbit", "?"), b.get("sa_limit_mbit", "?"),
                b.get("sa_ping_min_ms", "?"), b.get("sa_bdp_bytes", "?"),
                b.get("sa_size", "?"))), "",
           "| transport | Mbit/s | % of limit | " + " | ".join(
               "x " + sa_name(t).split(" (")[0] for t in tcps) +
           (" | " if tcps else "") + "spine shares % | guest CPU % | notes |",
           "|---|---|---|" + "---|" * len(tcps) + "---|---|---|"]
    rows = []
    for k in keys:
        r = fig[k]
        v = r.get("mbps") if r.get("ok") else None
        lim = r.get("limit_mbps")
        notes = []
        for sz in r.get("sizes", [])[-1:]:
            sp = sz.get("spray")
            if sp and sp.get("tx_pkts"):
                notes.append("retx %.1f%%, CE %.0f%%, RTOs %s" % (
                    sp["retx_pct"], sp["ce_pct"], sp.get("rto")))
        if r.get("tool") == "udpblast" and r.get("mean_mbps") is not None:
            notes.append("slowest of %d flows (one per link); mean %.1f" % (
                len(r.get("flows_mbps") or []), r["mean_mbps"]))
        if r.get("aqm"):
            dr = sum(x["dropped"] for x in r["aqm"].values())
            if dr:
                notes.append("AQM drops %d" % dr)
        if not r.get("ok"):
            notes.append("**FAILED** (exit %s%s)" % (
                r.get("rc"), ", " + r["error"].strip().splitlines()[-1]
                if r.get("error") else ""))
        # the UDP figure is per flow (one link): the four together
        if r.get("tool") == "udpblast" and v is not None:
            v = r["mbps"] * len(r.get("flows_mbps") or [1])
        ratios = {t: (v / fig[t]["mbps"] if v is not None and fig[t].get("ok") and
                      fig[t].get("mbps") else None) for t in tcps}
        row = {"transport": k, "mbps": v, "limit_mbps": lim,
               "ratio_limit": v / lim if v is not None and lim else None,
               "ratio_tcp": ratios, "ok": bool(r.get("ok")),
               "spine_share_pct": r.get("spine_share_pct"),
               "cpu_busy_pct": r.get("cpu_busy_pct"), "notes": notes, "run": r["dir"]}
        rows.append(row)
        md.append("| %s | %s | %s | %s%s%s | %s | %s |" % (
            sa_name(k), fnum(v, "%.2f"), pct(row["ratio_limit"]),
            " | ".join(fnum(ratios[t], "%.2fx") for t in tcps), " | " if tcps else "",
            " / ".join("%.0f" % x for x in r.get("spine_share_pct") or []),
            fnum(r.get("cpu_busy_pct"), "%.0f"), "; ".join(notes)))
    modes = [x for x in rows if x["transport"].startswith("spray-") and
             x["transport"] != "spray-off"]
    met = bool(modes) and all(x["ok"] and x["ratio_limit"] is not None and
                              x["ratio_limit"] >= 0.9 for x in modes)
    fig_s = ", ".join("%s %s" % (x["transport"][6:], pct(x["ratio_limit"]) if x["ok"]
                                 else "FAILED") for x in modes)
    aim = {"aim": "scale-across: AF_SPRAY >= 90% of the limit in every cc-mode but off",
           "figure": fig_s, "met": met}
    md += ["", "Aim of issue 13 (scale-across): AF_SPRAY >= 90%% of the limit in every "
           "cc-mode but off: %s (%s)." % ("**met**" if met else "**not met**", fig_s)]
    out["scaleacross"] = {"meta": {k: v for k, v in b.items() if k.startswith("sa_")},
                          "rows": rows, "aim": aim}


def mpi_tables(runs, md, out):
    """The mpi scenario: Open MPI allreduce busbw over the libfabric
    provider and over TCP, and fi_pingpong beside the socket ping-pong."""
    ar = {}
    for r in by(runs, "mpi"):
        if r["tool"] != "mpi":
            continue
        pts = {}
        try:
            for line in open(os.path.join(r["dir"], "out.txt")):
                f = line.split()
                if len(f) >= 7 and f[0] == "allreduce":
                    pts[int(f[2])] = float(f[6])
        except OSError:
            pass
        ar.setdefault(r["transport"], {}).update(pts)
    pp = {}
    for r in by(runs, "mpi"):
        if r["tool"] != "pingpong":
            continue
        m = read_env(os.path.join(r["dir"], "meta.env"))
        row = None
        try:
            for line in open(os.path.join(r["dir"], "out.txt")):
                f = line.split()
                if f and f[0][0].isdigit() and len(f) >= 8:
                    row = f
        except OSError:
            pass
        if row:
            # bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
            pp[(r["transport"], int(m.get("size", 0)))] = {
                "usec": float(row[-2]), "MBps": float(row[-3])}
    if not ar and not pp:
        return
    res = {"allreduce_busbw_mbit": ar, "pingpong": {"%s %d" % k: v for k, v in pp.items()},
           "aims": {}}
    md += ["", "### MPI over the libfabric provider (Open MPI mtl ofi) and over TCP", "",
           "Open MPI 4.1 allreduce, 8 ranks one per host on the leaf-spine fabric, busbw "
           "per rank in Mbit/s (best of the iterations): `pml cm` + `mtl ofi` over the "
           "provider spray (FI_SPRAY_IDLE_WAIT_US=1000) against `pml ob1` + `btl tcp`.",
           "", "| bytes | spray (libfabric) | TCP (btl tcp) | spray / TCP |",
           "|---|---|---|---|"]
    a, t = ar.get("mpi-spray-ofi", {}), ar.get("mpi-tcp", {})
    for b in sorted(set(a) | set(t)):
        ratio = a[b] / t[b] if b in a and b in t and t[b] else None
        md.append("| %s | %s | %s | %s |" % (size_name(b), fnum(a.get(b), "%.2f"),
                                             fnum(t.get(b), "%.2f"), fnum(ratio, "%.2fx")))
        if b >= 8 * MIB and ratio:
            res["aims"]["allreduce_%s" % size_name(b)] = {
                "ratio": round(ratio, 2), "aim": ">= 1.8x", "met": ratio >= 1.8}
    if pp:
        md += ["", "Ping-pong on one unshaped link (no fabric: both bounded by the CPU), "
               "fi_pingpong -p spray -e rdm against spray_pingpong (the same pattern "
               "over an AF_SPRAY socket):", "",
               "| size | socket | fi_pingpong (provider) | ratio | aim |", "|---|---|---|---|---|"]
        for sz, key, unit, aim in ((64, "usec", "us", 1.2), (1048576, "MBps", "MB/s", 0.9)):
            s_, f_ = pp.get(("spray", sz)), pp.get(("spray-ofi", sz))
            if not s_ or not f_:
                continue
            ratio = f_[key] / s_[key] if s_[key] else None
            met = ratio is not None and (ratio <= aim if key == "usec" else ratio >= aim)
            md.append("| %s %s | %.2f %s | %.2f %s | %s | %s %.1fx: %s |" % (
                size_name(sz), "latency" if key == "usec" else "bandwidth",
                s_[key], unit, f_[key], unit, fnum(ratio, "%.2fx"),
                "within" if key == "usec" else "at least", aim, "met" if met else "not met"))
            res["aims"]["pingpong_%s" % size_name(sz)] = {
                "ratio": round(ratio, 3) if ratio else None, "aim": aim, "met": met}
    out["mpi"] = res


def main():
    d = sys.argv[1]
    runs, boots = load_runs(d)
    if not boots:
        sys.exit("report: no bootN/ directory in %s" % d)
    b1 = boots[0]
    rate = float(b1.get("rate_mbit", 10))
    wall = read_env(os.path.join(d, "wall.env")).get("wall_s")
    tree = read_env(os.path.join(d, "tree.env"))
    md = ["## AF_SPRAY benchmarks: kernel %s, %s%s" % (
        b1.get("kernel"), b1.get("date"), " (quick mode)" if b1.get("quick") == "1" else "")]
    md += ["", ("Fabric: %s hosts, 2 leaves, %s spines (every leaf to every spine), every "
           "link %g Mbit/s both ways (tbf, burst %s ms) with RED ECN marking (%s), "
           "MTU %s, ECMP with the L4 hash at the leaves, offloads off. Limits are per "
           "rank; ratios are this row's figure over the column's." % (
               b1.get("hosts"), b1.get("spines"), rate, b1.get("tbf_burst_ms"),
               b1.get("red"), b1.get("mtu"))) if b1.get("fabric", "1") != "0" else
           "No fabric in this boot (its scenarios make their own links).",
           "", "Tree: commit %s%s, spray.ko md5 %s; vCPU %s (QEMU -cpu)." % (
               tree.get("commit", "?"),
               " with uncommitted changes in %s kernel/include files" % tree["changed_files"]
               if tree.get("changed_files", "0") != "0" else "", tree.get("module_md5", "?"),
               tree.get("vm_cpu") or "max"),
           "", "Boots: " + "; ".join(
               "boot %d (%s): host load %s, guest load %s -> %s%s%s" % (
                   b["boot"], b.get("scenarios", "?"), b.get("host_load", "?"),
                   b.get("guest_load_start", "?"), b.get("guest_load_end", "?"),
                   ", fabric built in %s s" % b["fabric_setup_s"] if b.get("fabric_setup_s")
                   else "",
                   "" if b.get("rc") == "0" else ", suite exit %s" % b.get("rc"))
               for b in boots) + (". Wall time %s s." % wall if wall else "")]
    out = {"meta": {"boots": boots, "rate_mbit": rate, "wall_s": wall, "tree": tree},
           "scenarios": {}, "runs": runs}

    cal = by(runs, "calib", boot=1)
    if cal:
        r = cal[0]
        md += ["", "Emulation check (calib): raw UDP on the ring's 8 flows, pinned one "
               "per spine and direction, offered %s Mbit/s each: slowest flow %s Mbit/s "
               "(%s of the link), mean %s; guest CPU %s%% busy. %s" % (
                   r.get("offered_mbit"), fnum(r.get("mbps"), "%.2f"),
                   pct(r["mbps"] / rate if r.get("mbps") else None),
                   fnum(r.get("mean_mbps"), "%.2f"), fnum(r.get("cpu_busy_pct"), "%.0f"),
                   "The fabric, not the emulated CPU, sets the limit." if r.get("mbps") and
                   r["mbps"] >= 0.93 * rate else
                   "**The emulated fabric fell short of its rate: read the other figures "
                   "with that in mind.**")]
        out["calib"] = r
    cpu = [r for r in by(runs, "cpu") if r.get("cpu_ns_per_byte")]
    if cpu:
        md += ["", "### CPU time per byte (one unshaped link, no fabric)", "",
               "| transport | goodput Mbit/s | guest CPU busy % | CPU ns per byte | "
               "x raw UDP (same goodput) |", "|---|---|---|---|---|"]
        u = [r for r in cpu if r["transport"] == "udp"]
        ref = u[0]["cpu_ns_per_byte"] if u else None
        for r in cpu:
            g = r.get("mbps") if r["tool"] == "spraycoll" else r.get("mean_mbps")
            label = NAMES[r["transport"]]
            if r["transport"] == "udp":
                label += " (paced at AF_SPRAY's goodput)" if r.get("offered_mbit") not in \
                    ("0", None) else " (unpaced)"
            md.append("| %s | %s | %s | %.1f | %s |" % (
                label, fnum(g, "%.1f"), fnum(r.get("cpu_busy_pct"), "%.0f"),
                r["cpu_ns_per_byte"], fnum(r["cpu_ns_per_byte"] / ref if ref else None,
                                           "%.2fx")))
        out["cpu"] = cpu

    aims(runs, out, rate, md)
    datapath_tables(runs, md, out, d)
    R = "%g" % rate
    scenario_table(runs, "pair", "One pair, bulk (h0 -> h1 across the spines)",
                   "Limit: one host link, %s Mbit/s." % R, md, out)
    scenario_table(runs, "ring", "Ring bulk, ECMP collisions (h_i -> h_i+1, 8 flows, "
                   "4 each way over 4 spines)",
                   "Limit: %s Mbit/s per rank (every host link full, every spine link "
                   "full if the flows spread evenly)." % R, md, out)
    scenario_table(runs, "nocc", "Diagnosis: the ring over AF_SPRAY with cc-mode off",
                   "Limit: %s Mbit/s per rank." % R, md, out)
    res = allreduce_tables(runs, md, out, rate)
    mpi_tables(runs, md, out)
    scenario_table(runs, "alltoall", "All-to-all, 8 ranks (busbw)",
                   "Limit: %s Mbit/s per rank (each host link carries 7/8 of its data)." % R,
                   md, out)
    scenario_table(runs, "incast", "Incast 7 -> 1 (busbw per sender)",
                   "Limit: %s/7 = %.2f Mbit/s per sender (the receiver's link)." % (
                       R, rate / 7), md, out)
    scenario_table(runs, "loss", "Ring bulk with 1% loss on the link leaf 0 - spine 1 "
                   "(both ways)", "Limit: %s Mbit/s per rank." % R, md, out)
    scenario_table(runs, "down", "Ring bulk, the link leaf 0 - spine 2 fails mid-run",
                   "Limit after the failure: 3 spines for 4 flows each way, %.2f Mbit/s per "
                   "rank; AF_SPRAY, TCP and MPTCP: the median iteration (most run after "
                   "the failure); RoCE: perftest's average over the whole run." % (
                       rate * 0.75), md, out)
    scaleacross_table(runs, boots, md, out)
    roce = [b for b in boots if b.get("roce_skipped") or b.get("roce_mode")]
    for b in roce:
        md += ["", "RoCEv2: %s" % (
            "skipped: " + b["roce_skipped"] if b.get("roce_skipped") else
            "soft-RoCE (rdma_rxe) %s%s; perftest with ECT(0) in the traffic class, "
            "so the AQM marks RoCE as it marks the others; rxe has no congestion "
            "control (no DCQCN) and recovers losses by go-back-N." % (
                "inside the hosts' namespaces" if b["roce_mode"] == "netns" else
                "in the initial namespace: the hosts' interfaces were moved there, "
                "with policy routing",
                " (" + b["roce_netns_note"] + ")" if b.get("roce_netns_note") else ""))]
    sc = out["scenarios"]
    if res:
        made = plots(d, res[0], res[1], res[2], rate, sc)
        md += ["", "Plots: " + ", ".join(made)]
    text = "\n".join(md) + "\n"
    open(os.path.join(d, "results.md"), "w").write(text)
    json.dump(out, open(os.path.join(d, "results.json"), "w"), indent=1, default=str)
    print(text)


if __name__ == "__main__":
    main()

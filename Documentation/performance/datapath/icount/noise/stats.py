import sys, statistics as st
for path in sys.argv[1:]:
    runs = [l.split() for l in open(path + "/runs.txt") if l.startswith("run") and "failed" not in l]
    d = {}
    for f in runs: d.setdefault(f[1], []).append((float(f[4]), float(f[6])))
    def mmm(x): return "%.2f-%.2f-%.2f (spread %.1f%%)" % (min(x), st.median(x), max(x), 100*(max(x)-min(x))/st.median(x))
    print("==", path)
    for v in ("A", "B", "TCP"):
        if v in d:
            print(" %-3s gp %s | ns/B %s" % (v, mmm([g for g, c in d[v]]), mmm([c for g, c in d[v]])))
    n = min(len(d.get("A", [])), len(d.get("B", [])))
    if n:
        rg = [d["B"][i][0] / d["A"][i][0] for i in range(n)]
        rc = [d["B"][i][1] / d["A"][i][1] for i in range(n)]
        print(" B/A gp ratios %s | ns/B ratios %s" % (" ".join("%.3f" % r for r in rg), " ".join("%.3f" % r for r in rc)))
        t = d.get("TCP", [])
        if t:
            print(" spray/TCP gp (median) %.3f, ns/B %.3f" % (st.median([g for g, c in d["A"] + d["B"]]) / st.median([g for g, c in t]), st.median([c for g, c in d["A"] + d["B"]]) / st.median([c for g, c in t])))

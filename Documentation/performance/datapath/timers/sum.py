import json,sys,glob,re,collections
d=sys.argv[1]
rows=collections.defaultdict(list)
for f in sorted(glob.glob(d+"/run-spray-*.json")):
    t=f[len(d)+5:-5]
    def dd(side):
        a=json.load(open(f"{d}/st0-{side}-{t}.json")); b=json.load(open(f"{d}/st1-{side}-{t}.json"))
        return {k:b[k]-a.get(k,0) for k in b if isinstance(b[k],int)}
    A=dd("A"); B=dd("B"); r=json.load(open(f))
    ev={}
    try:
        for l in open(f"{d}/pstat-{t}.txt"):
            if l.count(",")>4: ev[l.split(",")[2]]=int(l.split(",")[0])
    except Exception: pass
    tx=A["tx-pkts"]; acks=B["ack-tx"]; nk=B["nack-tx"]
    skbs=ev.get("net:net_dev_xmit",0)
    key=t.rsplit("-",1)[0]
    rows[key].append((r["goodput_mbps"], r["cpu_ns_per_byte"], r["cpu_busy_pct"], tx/max(1,skbs-acks-nk), 100*acks/tx, 100*A["retx-pkts"]/tx, B["timer-fires"], A["timer-fires"]))
for k,v in rows.items():
    for x in v:
        print("%-28s %7.0f Mbit/s %6.2f ns/B busy %s trainlen %.1f ack/100 %.1f retx%% %.2f tfires B %d A %d"%((k,)+x[:2]+(x[2],)+x[3:]))

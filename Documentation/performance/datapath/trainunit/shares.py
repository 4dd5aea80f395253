#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shares.py RUN_DIR...: of each symab.sh run's samples (symoff.txt), the
share of the busy ones in the receive path's header work (rx: rcv_one,
rcv_data, pkt_parse, pkt_parse_next), the send path's (tx: pkt_build,
pkt_build_frag, skb_add_slot, queue_train) and the kernel's copy."""
import re,sys,collections
G={'rx':['spray_rcv_one','spray_rcv_data','spray_pkt_parse','spray_pkt_parse_next'],
   'tx':['spray_pkt_build','spray_pkt_build_frag','spray_skb_add_slot','spray_queue_train']}
for d in sys.argv[1:]:
    per=collections.Counter(); tot=idle=0
    for line in open(d+'/symoff.txt'):
        m=re.match(r"\s*(\d+)\s+\[\d+\]\s+\S+\s+(\S+)\+0x([0-9a-f]+)", line)
        if not m: continue
        n,sym=int(m.group(1)),m.group(2); tot+=n
        if sym in ("native_safe_halt","default_idle_call"): idle+=n
        per[sym]+=n
    busy=tot-idle
    mod=sum(v for k,v in per.items() if k.startswith('spray_') or k.startswith('txw_') or k.startswith('rxw_'))
    print(d, 'busy %d'%busy, ' '.join('%s %.1f%%'%(g,100.0*sum(per[s] for s in G[g])/busy) for g in G), 'copy %.1f%%'%(100.0*per['copy_user_generic_string']/busy))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bulk byte streams over TCP or MPTCP for the AF_SPRAY benchmarks (used
for MPTCP, which Debian 12's iperf3 3.12 cannot open).

  stream.py server ADDR PORT tcp|mptcp NCONN
      accept NCONN connections, read until they all close; print JSON
      {"bytes": B, "seconds": S, "first": T0, "samples": [[t, bytes], ...]}:
      S runs from the first byte to the last, T0 and the sample times are
      wall-clock (time.time()), samples about every second.
  stream.py client ADDR PORT tcp|mptcp NCONN SECONDS
      open NCONN connections and write 64 KiB blocks for SECONDS.
  stream.py udprecv PORT NFLOWS SECONDS / udpsend ADDR PORT MBIT SECONDS
      raw UDP: paced 1400-byte datagrams; the receiver counts what arrives
      (iperf3 3.12 fails to open UDP streams under TCG: "unable to read
      from stream socket").
"""
import json
import select
import socket
import sys
import time

IPPROTO_MPTCP = 262


def sock(proto):
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM,
                         IPPROTO_MPTCP if proto == "mptcp" else 0)


def server(addr, port, proto, nconn):
    ls = sock(proto)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, int(port)))
    ls.listen(64)
    print("ready", flush=True)
    conns = []
    for _ in range(int(nconn)):
        c, _ = ls.accept()
        conns.append(c)
    print("accepted", flush=True)
    total, first, last, samples, nexts = 0, None, None, [], None
    while conns:
        r, _, _ = select.select(conns, [], [], 1.0)
        for c in r:
            b = c.recv(1 << 20)
            if not b:
                conns.remove(c)
                c.close()
                continue
            now = time.time()
            if first is None:
                first, nexts = now, now + 1
            last = now
            total += len(b)
        now = time.time()
        if nexts is not None and now >= nexts:
            samples.append([round(now, 3), total])
            nexts += 1
    secs = (last - first) if first is not None else 0
    print(json.dumps({"bytes": total, "seconds": secs, "first": first,
                      "samples": samples}),
          flush=True)


def client(addr, port, proto, nconn, seconds):
    ss = []
    for _ in range(int(nconn)):
        s = sock(proto)
        s.settimeout(30)
        s.connect((addr, int(port)))
        s.setblocking(False)	# one stalled flow must not stop the others
        ss.append(s)
    buf = bytes(65536)
    end = time.monotonic() + float(seconds)
    while time.monotonic() < end:
        _, w, _ = select.select([], ss, [], 0.5)
        for s in w:
            try:
                s.send(buf)
            except BlockingIOError:
                pass
    for s in ss:
        s.close()


def udprecv(port, nflows, seconds):
    """Count the datagrams of NFLOWS udpsend flows for at most SECONDS;
    print JSON {"bytes", "seconds", "per_source": {addr: bytes}}."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", int(port)))
    s.settimeout(1.0)
    print("ready", flush=True)
    total, first, last, per, ended = 0, None, None, {}, set()
    stop = time.time() + float(seconds)
    while time.time() < stop and len(ended) < int(nflows):
        try:
            b, src = s.recvfrom(65536)
        except socket.timeout:
            # END datagrams may be dropped on a saturated path: 3 s of
            # silence after data also ends the count
            if last is not None and time.time() - last > 3:
                break
            continue
        if b == b"END":
            ended.add(src)
            continue
        now = time.time()
        if first is None:
            first = now
        last = now
        total += len(b)
        per[src[0]] = per.get(src[0], 0) + len(b)
    print(json.dumps({"bytes": total, "seconds": (last - first) if first else 0,
                      "per_source": per}), flush=True)


def udpsend(addr, port, mbit, seconds, size=1400):
    """Paced datagrams of SIZE bytes at MBIT for SECONDS, then END."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    buf = bytes(size)
    pps = float(mbit) * 1e6 / 8 / size
    t0 = time.time()
    end = t0 + float(seconds)
    n = 0
    while True:
        now = time.time()
        if now >= end:
            break
        due = int((now - t0) * pps) + 1
        while n < due:
            try:
                s.sendto(buf, (addr, int(port)))
            except OSError:
                pass	# a full qdisc says ENOBUFS: that datagram is lost
            n += 1
        time.sleep(0.002)
    for _ in range(20):
        s.sendto(b"END", (addr, int(port)))
        time.sleep(0.05)


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(*sys.argv[2:6])
    elif sys.argv[1] == "udprecv":
        udprecv(*sys.argv[2:5])
    elif sys.argv[1] == "udpsend":
        udpsend(*sys.argv[2:6])
    else:
        client(*sys.argv[2:7])

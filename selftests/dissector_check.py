#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The Wireshark dissector (userspace/wireshark/spray.lua) under tshark,
for selftests/dissector.sh. Prints one "PASS what" or "FAIL what: why"
line per check; the shell turns them into TAP.

  dissector_check.py crafted LUA DIR
      write DIR/crafted.pcap, packets built here from spray-wire.rst (an
      encoder of its own, not the kernel's), decode it twice and check
      every field, the SACK and NACK analysis and the expert info, the
      ACK a DATA packet carries (flag ACK, caps), the port preference,
      "decode as" and the heuristic.
  dissector_check.py live LUA PCAP DIR
      decode a capture taken on the sender during a lossy transfer and
      check it against the sender's counters, read with sprayctl -j before
      the capture stopped (DIR/stats.json, peers.json, paths.json) and
      after (DIR/stats-after.json); DIR/transfer holds "COUNT SIZE".
"""
import json
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

TWO32 = 1 << 32
FIELDS = [
    "frame.number", "udp.srcport", "udp.dstport", "afspray.type", "afspray.flags",
    "afspray.flags.retx", "afspray.flags.ack", "afspray.flags.undefined",
    "afspray.caps", "afspray.caps.data_ack", "afspray.caps.window_probe",
    "afspray.caps.answer_probe",
    "afspray.src_cid", "afspray.dst_cid", "afspray.psn",
    "afspray.psn_rel", "afspray.ev", "afspray.data.msg_id", "afspray.data.msg_len",
    "afspray.data.frag_off", "afspray.data.frag_len", "afspray.data.last_frag",
    "afspray.data.min_rtt", "afspray.data.min_rtt_ns",
    "afspray.dack.src_cid", "afspray.dack.dst_cid",
    "afspray.cum_psn", "afspray.cum_psn_rel", "afspray.grant_psn",
    "afspray.sack.first", "afspray.sack.last", "afspray.sack.count",
    "afspray.sack.hole.first", "afspray.sack.hole.last",
    "afspray.ecn.first", "afspray.ecn.last",
    "afspray.nack.psn", "afspray.nack.count", "afspray.nack.reason", "afspray.nack.last",
    "afspray.probe.id", "afspray.ack.probe_id",
    "afspray.analysis.retransmission", "afspray.analysis.tx_count",
    "afspray.analysis.first_frame", "afspray.analysis.echo_frame",
    "_ws.expert.message", "_ws.col.Info",
]

failed = 0


def result(ok, what, why=""):
    global failed
    if ok:
        print("PASS %s" % what)
    else:
        failed += 1
        print("FAIL %s%s" % (what, ": " + why if why else ""))
    sys.stdout.flush()


def tshark(lua, pcap, *opts):
    """Decode PCAP; a dict per frame, field -> list of values (strings)."""
    cmd = ["tshark", "-n", "-r", pcap, "-X", "lua_script:" + lua]
    cmd += list(opts)
    cmd += ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a",
            "-E", "aggregator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    err = "\n".join(l for l in out.stderr.splitlines() if "Running as user" not in l)
    if out.returncode or err.strip():
        raise RuntimeError("tshark: %s" % err.strip()[:500])
    frames = []
    for line in out.stdout.splitlines():
        vals = line.split("\t")
        vals += [""] * (len(FIELDS) - len(vals))
        frames.append({k: (v.split("|") if v else []) for k, v in zip(FIELDS, vals)})
    return frames


FRAME_FIELDS = ("frame.number", "udp.srcport", "udp.dstport", "_ws.col.Info")


def flatten(o, d):
    """Collect the values of the fields of d (a dict field -> list) from
    one AF_SPRAY packet's subtree of tshark's JSON."""
    if isinstance(o, dict):
        for k, v in o.items():
            if k in d and isinstance(v, str):
                d[k].append(v)
            elif k in d and isinstance(v, list) and all(isinstance(x, str) for x in v):
                d[k].extend(v)
            else:
                flatten(v, d)
    elif isinstance(o, list):
        for x in o:
            flatten(x, d)


def tshark_packets(lua, pcap, *opts):
    """Decode PCAP; a dict per AF_SPRAY packet, field -> list of values,
    like tshark()'s frames but with the packets of a GSO train (several
    in one frame, as captured on the sender) apart. The frame's own fields
    (FRAME_FIELDS) are copied into each of its packets."""
    byf = {int(f["frame.number"][0]): f for f in tshark(lua, pcap, *opts)}
    cmd = ["tshark", "-n", "-r", pcap, "-X", "lua_script:" + lua] + list(opts)
    cmd += ["-T", "json", "--no-duplicate-keys"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    if out.returncode:
        raise RuntimeError("tshark -T json: %s" % out.stderr.strip()[:500])
    pkts = []
    for fr in json.loads(out.stdout or "[]"):
        layers = fr["_source"]["layers"]
        roots = layers.get("afspray")
        if roots is None:
            continue
        num = int(layers["frame"]["frame.number"])
        for r in roots if isinstance(roots, list) else [roots]:
            d = {k: [] for k in FIELDS}
            flatten(r, d)
            if not d["afspray.type"]:
                continue        # a note, not a packet (bytes beyond the snaplen)
            for k in FRAME_FIELDS:
                d[k] = byf[num][k]
            pkts.append(d)
    return pkts


def payload_pos(lua, pcap, num):
    """(offset in the frame, length, hex) of frame NUM's payload, from PDML
    (which has where a field is; not in FIELDS, as a live capture's
    payloads would swell tshark's output for nothing)"""
    cmd = ["tshark", "-n", "-r", pcap, "-X", "lua_script:" + lua, "-T", "pdml",
           "-Y", "frame.number == %d" % num]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    if out.returncode:
        return "tshark -T pdml: %s" % out.stderr.strip()[:500]
    for el in ET.fromstring(out.stdout).iter("field"):
        if el.get("name") == "afspray.data.payload":
            return int(el.get("pos")), int(el.get("size")), el.get("value")
    return None


def one(fr, k, conv=int):
    v = fr[k]
    return conv(v[0]) if v else None


def ints(fr, k):
    return [int(x, 0) for x in fr[k]]


# ---- packets, as spray-wire.rst describes them

def hdr(t, flags, sport, dport, scid, dcid, psn, ev, version=1, caps=0):
    return struct.pack("!BBHHHIIIHH", version, t, flags, sport, dport, scid, dcid,
                       psn % TWO32, ev, caps)


def rtt_field(ns):
    """min_rtt: 12-bit mantissa, 4-bit exponent, mantissa << exponent
    units of 64 ns (rounded), 0 for none"""
    m, e = ns >> 6, 0
    while m >= 4096:
        m, e = (m + 1) >> 1, e + 1
    return (e << 12) | max(m, 1) if ns else 0


def data(scid, dcid, psn, ev, msg, mlen, off, flen, ts, flags=0, payload=None,
         min_rtt=0):
    body = payload if payload is not None else b"\xab" * flen
    return (hdr(1, flags, 7000, 7001, scid, dcid, psn, ev) +
            struct.pack("!IIIHHQ", msg, mlen, off, flen, rtt_field(min_rtt), ts) + body)


def ack_body(cum, base, sack, ecn, ts, hold, grant, ev, echo):
    """the 48 bytes after an ACK's common header"""
    return struct.pack("!IIQQQIIHHI", cum % TWO32, base % TWO32, sack, ecn, ts,
                       hold, grant % TWO32, ev, 0, echo % TWO32)


def ack(scid, dcid, cum, base, sack, ecn, ts, hold, grant, ev, echo, flags=0):
    return (hdr(2, flags, 7001, 7000, scid, dcid, 0, 0) +
            ack_body(cum, base, sack, ecn, ts, hold, grant, ev, echo))


def data_ack(scid, dcid, psn, ev, msg, mlen, off, ts, payload, ack_cids, ack_args,
             flags=0x10, caps=1):
    """DATA with flag ACK: after the DATA fields, the cids an ACK of the
    other direction would carry (ack_cids: src, dst) and its 48 bytes
    (ack_args as ack_body's), then the payload"""
    return (hdr(1, flags, 7001, 7000, scid, dcid, psn, ev, caps=caps) +
            struct.pack("!IIIHHQ", msg, mlen, off, len(payload), 0, ts) +
            struct.pack("!II", *ack_cids) + ack_body(*ack_args) + payload)


def nack(scid, dcid, psn, count, reason, cum, grant):
    return (hdr(3, 0, 7001, 7000, scid, dcid, 0, 0) +
            struct.pack("!IHBBII", psn % TWO32, count, reason, 0, cum % TWO32,
                        grant % TWO32))


def probe(scid, dcid, ev, ts, pid, flags=1, caps=0):
    return (hdr(4, flags, 7000, 7001, scid, dcid, 0, ev, caps=caps) +
            struct.pack("!QII", ts, pid, 0))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def frame(src, dst, sport, dport, payload):
    ulen = 8 + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, 1, 0, 64, 17, 0,
                     bytes(src), bytes(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return (b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip +
            struct.pack("!HHHH", sport, dport, ulen, 0) + payload)


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(frames):
            f.write(struct.pack("<IIII", 1000 + i, 0, len(p), len(p)) + p)


def crafted(lua, outdir):
    A, B = [10, 0, 0, 1], [10, 0, 0, 2]
    C = TWO32 - 6                   # the psns wrap inside the message
    P = 4797
    fr = []                         # frame i + 1
    for i in range(8):              # 1-8: one message of 8 fragments
        fr.append(frame(A, B, 50000 + i, P,
                        data(C, 0, C + i, 50000 + i, 5, 800, 100 * i, 100, 1000 + i,
                             flags=1)))
    # 9: received C..C+2, C+4..C+5, C+7; missing C+3, C+6; C+4 CE-marked
    sack = sum(1 << b for b in (0, 1, 2, 4, 5, 7))
    fr.append(frame(B, A, P, P, ack(77, C, C, C, sack, 1 << 4, 1007, 5000, C + 100,
                                    50007, C + 7)))
    fr.append(frame(B, A, P, P, nack(77, C, C + 3, 1, 1, C + 3, C + 100)))     # 10
    fr.append(frame(A, B, 50009, P, data(C, 77, C + 3, 50009, 5, 800, 300, 100, 2000,
                                          flags=2, min_rtt=20000)))            # 11 RETX
    fr.append(frame(A, B, 50005, P, data(C, 77, C + 5, 50005, 5, 800, 500, 100, 1005,
                                          min_rtt=20000000)))                  # 12 dup
    fr.append(frame(B, A, P, P, nack(77, C, C + 6, 0, 1, C + 3, C + 100)))     # 13 count 0
    fr.append(frame(A, B, 50010, P, data(C, 77, C + 8, 50010, 6, 100, 0, 50, 3000,
                                          payload=b"\xab" * 100)))             # 14 len
    fr.append(frame(B, A, P, P, ack(77, C, C + 8, C, 0xff, 0, 2000, 0, C + 100, 50009,
                                    C + 3, flags=1)))                          # 15 SYN on ACK
    fr.append(frame(A, B, 50011, P, probe(C, 77, 50011, 4000, 3)))             # 16 probe
    fr.append(frame(B, A, P, P, ack(77, C, C + 8, C, 0xff, 0, 4000, 1000, C + 100, 50011,
                                    3, flags=8)))                              # 17 probe answer
    fr.append(frame(A, B, 50012, P, hdr(1, 0, 7000, 7001, C, 77, C + 9, 50012,
                                        version=2) + b"\0" * 24))              # 18 version 2
    fr.append(frame(A, B, 50013, 5000, data(C, 77, C + 9, 50013, 7, 10, 0, 10, 5000)))  # 19
    fr.append(frame(A, B, 50014, 6000, data(C, 77, C + 10, 50014, 8, 10, 0, 10, 6000)))  # 20
    fr.append(frame(A, B, 50015, 6000, hdr(1, 0, 7000, 7001, C, 77, C + 11, 50015,
                                           version=2) + b"\0" * 24))           # 21
    fr.append(frame(A, B, 50016, P, hdr(5, 0, 7000, 7001, C, 77, 0, 50016)))   # 22 CLOSE
    fr.append(frame(B, A, P, P, nack(77, C, C + 60, 10, 4, C + 3, C + 100)))   # 23 run of 10
    # 24: the same bitmap with cum_psn C+3: its bits below are not SACK ranges
    fr.append(frame(B, A, P, P, ack(77, C, C + 3, C, sack, 0, 1007, 0, C + 100,
                                    50007, C + 7)))
    # 25: a GSO train as a capture on the sender holds it: three DATA packets
    # of one connection back to back in one datagram, the last one shorter
    fr.append(frame(A, B, 50017, P, b"".join(
        data(C, 77, C + 12 + i, 50017, 9, 250, 100 * i, 100 if i < 2 else 50, 7000 + i)
        for i in range(3))))
    # 26: the answer: DATA of the other direction (cid 77, caps DATA_ACK)
    # carrying the ACK of C's: cum C+9 (missing), C+10 received, C+11
    # missing, C+12..C+14 received (frame 25), C+13 CE-marked; its ts_echo
    # is frame 25's last packet's
    dack_sack = sum(1 << b for b in (1, 3, 4, 5))
    answer = bytes(range(64))
    fr.append(frame(B, A, P, P, data_ack(77, C, 77, 50020, 1, 64, 0, 9000, answer,
                                         (77, C), (C + 9, C + 9, dack_sack, 1 << 4, 7002,
                                                   3000, C + 200, 50017, C + 14))))
    fr.append(frame(B, A, P, P, ack(77, C, C + 9, C, 0, 0, 2000, 0, C + 100, 50009,
                                    C + 3, flags=0x10)))                       # 27 ACK on an ACK
    fr.append(frame(A, B, 50021, P, data(C, 77, C + 15, 50021, 10, 10, 0, 10, 8000,
                                          flags=0x20)))                        # 28 0x20 on DATA
    # 29: flag ACK on a DATA of the old layout: what follows its DATA
    # fields is taken for the ACK, and the payload is 56 bytes short
    fr.append(frame(A, B, 50022, P, data(C, 77, C + 16, 50022, 11, 64, 0, 64, 8100,
                                          flags=0x10)))
    # 30: and one too short for the 104 bytes of headers
    fr.append(frame(A, B, 50023, P, data(C, 77, C + 17, 50023, 12, 10, 0, 10, 8200,
                                          flags=0x10)))
    # 31: a window probe (flag ACK_REQ) from a stack with caps DATA_ACK,
    # WINDOW_PROBE and ANSWER_PROBE
    fr.append(frame(A, B, 50024, P, probe(C, 77, 50024, 9000, 5, flags=0x4, caps=7)))
    pcap = os.path.join(outdir, "crafted.pcap")
    write_pcap(pcap, fr)

    # A: the default port, "decode as" on 5000, no heuristic
    try:
        a = tshark(lua, pcap, "--disable-heuristic", "afspray_udp",
                   "-d", "udp.port==5000,afspray")
    except RuntimeError as e:
        result(False, "crafted: tshark decodes with the dissector", str(e))
        return
    result(len(a) == len(fr), "crafted: tshark decodes every frame")
    by = {int(f["frame.number"][0]): f for f in a}
    dec = sorted(n for n, f in by.items() if f["afspray.type"] or
                 any("AF_SPRAY" in m or "version" in m for m in f["_ws.expert.message"]))
    want = [n for n in range(1, len(fr) + 1) if n not in (20, 21)]
    result(dec == want, "crafted: port 4797 and 'decode as' 5000 decoded, 6000 not "
           "(heuristic off)", "decoded %s" % dec)
    d = [by[i] for i in range(1, 9)]
    result([one(x, "afspray.psn") for x in d] == [(C + i) % TWO32 for i in range(8)],
           "DATA: psn, wrapping past 2^32")
    result([one(x, "afspray.psn_rel") for x in d] == list(range(8)),
           "DATA: psn relative to the connection id")
    result([one(x, "afspray.data.frag_off") for x in d] == [100 * i for i in range(8)] and
           all(one(x, "afspray.data.frag_len") == 100 and one(x, "afspray.data.msg_len") == 800
               and one(x, "afspray.data.msg_id") == 5 for x in d),
           "DATA: message id, length, fragment offsets and lengths")
    result(one(by[11], "afspray.data.min_rtt", lambda v: int(v, 0)) == 0x138 and
           one(by[11], "afspray.data.min_rtt_ns") == 19968 and
           one(by[12], "afspray.data.min_rtt_ns") == 2442 << 13 and
           not by[1]["afspray.data.min_rtt_ns"],
           "DATA: the sender's min RTT, 64 ns units below 262 us, 12 bits of "
           "mantissa above; none when 0",
           "%s %s %s" % (by[11]["afspray.data.min_rtt_ns"], by[12]["afspray.data.min_rtt_ns"],
                         by[1]["afspray.data.min_rtt_ns"]))
    result([one(x, "afspray.data.last_frag") for x in d] == [0] * 7 + [1],
           "DATA: the last fragment is marked")
    result(all(one(x, "afspray.ev") == one(x, "udp.srcport") for x in d),
           "DATA: entropy value = UDP source port")
    ak = by[9]
    result(ints(ak, "afspray.sack.first") == [C, C + 4, 1] and
           ints(ak, "afspray.sack.last") == [C + 2, C + 5, 1],
           "ACK: SACK bitmap as psn ranges (across the wrap)",
           "%s %s" % (ak["afspray.sack.first"], ak["afspray.sack.last"]))
    result(one(ak, "afspray.sack.count") == 6, "ACK: psns selectively acknowledged")
    result(ints(ak, "afspray.sack.hole.first") == [C + 3, 0] and
           ints(ak, "afspray.sack.hole.last") == [C + 3, 0],
           "ACK: holes as psn ranges", "%s" % ak["afspray.sack.hole.first"])
    result(ints(ak, "afspray.ecn.first") == [C + 4] and
           ints(ak, "afspray.ecn.last") == [C + 4], "ACK: CE-marked psns")
    result(one(ak, "afspray.analysis.echo_frame") == 8,
           "ACK: the echoed timestamp is frame 8's")
    ak = by[24]
    result(ints(ak, "afspray.sack.first") == [C + 4, 1] and
           ints(ak, "afspray.sack.last") == [C + 5, 1] and
           ints(ak, "afspray.sack.hole.first") == [C + 3, 0] and
           one(ak, "afspray.sack.count") == 3,
           "ACK: SACK ranges start at cum_psn", "%s %s %s" % (
               ak["afspray.sack.first"], ak["afspray.sack.last"], ak["afspray.sack.hole.first"]))
    nk = by[10]
    result(one(nk, "afspray.nack.psn") == C + 3 and one(nk, "afspray.nack.last") == C + 3 and
           one(nk, "afspray.nack.reason") == 1 and
           any("NACK LOSS: psn %u (1)" % (C + 3) == m for m in nk["_ws.expert.message"]),
           "NACK: the psn run, reason LOSS, expert info", "%s" % nk["_ws.expert.message"])
    nk = by[23]
    result(one(nk, "afspray.nack.last") == (C + 69) % TWO32 and
           any(m.startswith("NACK NO_BUF: psn") for m in nk["_ws.expert.message"]),
           "NACK: a run of 10, NO_BUF")
    rx = by[11]
    result(one(rx, "afspray.analysis.retransmission") == 1 and
           one(rx, "afspray.analysis.tx_count") == 2 and
           one(rx, "afspray.analysis.first_frame") == 4 and
           "Retransmission of psn %u (transmission 2, first in frame 4)" % (C + 3)
           in rx["_ws.expert.message"],
           "RETX: retransmission, 2nd transmission, first in frame 4, expert info",
           "%s" % rx)
    dup = by[12]
    result(one(dup, "afspray.analysis.tx_count") == 2 and
           any("without the RETX flag" in m for m in dup["_ws.expert.message"]),
           "a psn repeated without RETX: warned")
    result(all(one(by[i], "afspray.analysis.retransmission") == 0 for i in range(1, 9)),
           "first transmissions are not retransmissions")
    result(any("count 0 outside 1..64" in m for m in by[13]["_ws.expert.message"]),
           "malformed: NACK count 0")
    result(any("fragment length 50, payload 100 bytes" in m
               for m in by[14]["_ws.expert.message"]),
           "malformed: fragment length not the payload's")
    result(any("not valid for ACK" in m for m in by[15]["_ws.expert.message"]),
           "invalid: SYN on an ACK")
    result(one(by[16], "afspray.probe.id") == 3 and one(by[17], "afspray.ack.probe_id") == 3
           and one(by[17], "afspray.analysis.echo_frame") == 16,
           "PROBE and its answer (ACK with PROBE)")
    result(any("version 2" in m for m in by[18]["_ws.expert.message"]),
           "malformed: version 2")
    result(one(by[22], "afspray.type") == 5, "CLOSE: the common header")
    tr = by[25]
    result(ints(tr, "afspray.psn") == [(C + 12 + i) % TWO32 for i in range(3)] and
           ints(tr, "afspray.data.frag_off") == [0, 100, 200] and
           ints(tr, "afspray.data.frag_len") == [100, 100, 50] and
           ints(tr, "afspray.data.last_frag") == [0, 0, 1] and
           not tr["_ws.expert.message"] and
           tr["_ws.col.Info"][0].startswith("train of 3: DATA"),
           "a GSO train (3 DATA packets in one datagram): each packet decoded, "
           "none malformed", "%s %s" % (tr["afspray.psn"], tr["_ws.expert.message"]))
    try:
        pk = [x for x in tshark_packets(lua, pcap, "-Y", "frame.number == 25")]
    except RuntimeError as e:
        pk = []
        print("# %s" % e)
    result(len(pk) == 3 and [one(x, "afspray.analysis.tx_count") for x in pk] == [1, 1, 1]
           and all(one(x, "frame.number") == 25 for x in pk),
           "  three packets of frame 25 in the JSON output, each first transmitted")

    # caps (reserved before): 0 from the builder's ordinary packets
    result(all(ints(by[i], "afspray.caps") == [0] and
               one(by[i], "afspray.caps.data_ack") == 0 for i in (1, 9, 10, 16)) and
           all(one(by[i], "afspray.flags.ack") == 0 for i in range(1, 9)),
           "caps 0 (no DATA_ACK) and no flag ACK in ordinary packets",
           "%s %s" % (by[1]["afspray.caps"], by[1]["afspray.caps.data_ack"]))
    da = by[26]
    result(ints(da, "afspray.flags") == [0x10] and one(da, "afspray.flags.ack") == 1 and
           ints(da, "afspray.caps") == [1] and one(da, "afspray.caps.data_ack") == 1,
           "DATA with flag ACK: the flag, caps DATA_ACK",
           "%s %s %s" % (da["afspray.flags"], da["afspray.caps"], da["afspray.caps.data_ack"]))
    result(ints(da, "afspray.src_cid") == [77] and ints(da, "afspray.dst_cid") == [C] and
           ints(da, "afspray.dack.src_cid") == [77] and
           ints(da, "afspray.dack.dst_cid") == [C] and one(da, "afspray.psn_rel") == 0,
           "  the carried ACK's cids, apart from the DATA's",
           "%s %s" % (da["afspray.dack.src_cid"], da["afspray.dack.dst_cid"]))
    result(ints(da, "afspray.cum_psn") == [(C + 9) % TWO32] and
           ints(da, "afspray.cum_psn_rel") == [9] and
           ints(da, "afspray.grant_psn") == [(C + 200) % TWO32],
           "  its cum_psn (relative to dack.dst_cid) and grant",
           "%s %s %s" % (da["afspray.cum_psn"], da["afspray.cum_psn_rel"],
                         da["afspray.grant_psn"]))
    result(ints(da, "afspray.sack.first") == [(C + 10) % TWO32, (C + 12) % TWO32] and
           ints(da, "afspray.sack.last") == [(C + 10) % TWO32, (C + 14) % TWO32] and
           one(da, "afspray.sack.count") == 4 and
           ints(da, "afspray.sack.hole.first") == [(C + 9) % TWO32, (C + 11) % TWO32] and
           ints(da, "afspray.sack.hole.last") == [(C + 9) % TWO32, (C + 11) % TWO32] and
           ints(da, "afspray.ecn.first") == [(C + 13) % TWO32],
           "  its SACK ranges, holes and CE marks",
           "%s %s %s" % (da["afspray.sack.first"], da["afspray.sack.last"],
                         da["afspray.sack.hole.first"]))
    result(one(da, "afspray.analysis.echo_frame") == 25,
           "  its echoed timestamp is frame 25's", "%s" % da["afspray.analysis.echo_frame"])
    # Ethernet, IPv4 and UDP headers: 42 bytes before the packet
    pos = payload_pos(lua, pcap, 26)
    result(one(da, "afspray.data.frag_len") == 64 and not da["_ws.expert.message"] and
           pos == (42 + 104, 64, answer.hex()),
           "  the payload: its 64 bytes at offset 104, after the carried ACK; none malformed",
           "%s %s" % (pos, da["_ws.expert.message"]))
    result("+ACK cum=%u" % ((C + 9) % TWO32) in " ".join(da["_ws.col.Info"]),
           "  Info: +ACK cum=...", "%s" % da["_ws.col.Info"])
    result(any("flags 0x10 not valid for ACK" in m for m in by[27]["_ws.expert.message"])
           and one(by[27], "afspray.flags.ack") == 1,
           "invalid: flag ACK on an ACK", "%s" % by[27]["_ws.expert.message"])
    result(any("flags 0x20 not valid for DATA" in m for m in by[28]["_ws.expert.message"])
           # (tshark gives a field with a mask shifted: 0x20 of 0xffe0 is 1)
           and ints(by[28], "afspray.flags.undefined") == [0x20 >> 5],
           "invalid: undefined flag 0x20 on DATA", "%s" % by[28]["_ws.expert.message"])
    result(any("fragment length 64, payload 8 bytes" in m
               for m in by[29]["_ws.expert.message"]),
           "malformed: flag ACK, but no room for the carried ACK before the payload",
           "%s" % by[29]["_ws.expert.message"])
    result(any("DATA with flag ACK of 58 bytes, needs 104" in m
               for m in by[30]["_ws.expert.message"]),
           "malformed: DATA with flag ACK shorter than its 104 bytes of headers",
           "%s" % by[30]["_ws.expert.message"])
    wp = by[31]
    result(ints(wp, "afspray.type") == [4] and ints(wp, "afspray.caps") == [7] and
           one(wp, "afspray.caps.data_ack") == 1 and
           one(wp, "afspray.caps.window_probe") == 1 and
           one(wp, "afspray.caps.answer_probe") == 1 and
           one(by[16], "afspray.caps.answer_probe") == 0 and
           not any("not valid" in m for m in wp["_ws.expert.message"]) and
           any("window probe" in x for x in wp["_ws.col.Info"]) and
           one(by[16], "afspray.caps.window_probe") == 0,
           "PROBE with flag ACK_REQ: a window probe, caps DATA_ACK, WINDOW_PROBE and ANSWER_PROBE",
           "%s %s %s" % (wp["afspray.caps"], wp["afspray.caps.window_probe"],
                         wp["_ws.col.Info"]))

    # B: the port moved to 6000 by preference, heuristic on
    try:
        b = tshark(lua, pcap, "-o", "afspray.udp_port:6000")
    except RuntimeError as e:
        result(False, "crafted: tshark with -o afspray.udp_port:6000", str(e))
        return
    byb = {int(f["frame.number"][0]): f for f in b}
    result(any("version 2" in m for m in byb[21]["_ws.expert.message"]),
           "preference udp_port 6000: a packet the heuristic refuses decoded on 6000")
    result(not byb[18]["afspray.type"] and not byb[18]["_ws.expert.message"],
           "  and no longer on 4797")
    # (another heuristic may claim a packet first: TAPA takes frame 19)
    result([one(byb[i], "afspray.psn") for i in range(1, 9)] ==
           [(C + i) % TWO32 for i in range(8)],
           "heuristic: valid packets on a port not registered decoded")
    result(ints(byb[26], "afspray.dack.dst_cid") == [C] and
           one(byb[26], "afspray.data.frag_len") == 64 and
           not byb[26]["_ws.expert.message"],
           "heuristic: a DATA carrying an ACK (104 bytes of headers) decoded")


def load(path):
    with open(path) as f:
        return json.load(f)


def live(lua, pcap, d):
    stats, after = load(os.path.join(d, "stats.json")), load(os.path.join(d, "stats-after.json"))
    peers, paths = load(os.path.join(d, "peers.json")), load(os.path.join(d, "paths.json"))
    count, size = (int(x) for x in open(os.path.join(d, "transfer")).read().split())
    try:
        frames = tshark_packets(lua, pcap, "-Y", "afspray")
    except RuntimeError as e:
        result(False, "live: tshark decodes the capture", str(e))
        return
    trains = {}
    for f in frames:
        trains[one(f, "frame.number")] = trains.get(one(f, "frame.number"), 0) + 1
    result(len(frames) > 0, "live: AF_SPRAY packets in the capture (%d in %d frames; "
           "%d frames are GSO trains of up to %d packets)" % (
               len(frames), len(trains), sum(1 for n in trains.values() if n > 1),
               max(trains.values() or [0])))
    snd = [p for p in peers if p["remote"].endswith(":7000") and p["local-cid"]]
    result(len(snd) == 1, "live: the sender's connection in sprayctl peers")
    if len(snd) != 1:
        return
    cid, pid = snd[0]["local-cid"], snd[0]["id"]
    dat = [f for f in frames if one(f, "afspray.type") == 1 and
           one(f, "afspray.src_cid") == cid]
    orig = [f for f in dat if not one(f, "afspray.flags.retx")]
    retx = [f for f in dat if one(f, "afspray.flags.retx")]
    ntx = stats["tx-pkts"]
    print("# capture: %d DATA (%d first, %d RETX); sprayctl stats: tx-pkts %d retx-pkts %d "
          "lost-pkts %d ack-rx %d nack-rx %d" % (len(dat), len(orig), len(retx), ntx,
                                                 stats["retx-pkts"], stats["lost-pkts"],
                                                 stats["ack-rx"], stats["nack-rx"]))
    result(stats["retx-pkts"] > 0, "live: the transfer saw loss (retx-pkts %d)" %
           stats["retx-pkts"])
    result(len(orig) == ntx, "live: first transmissions = tx-pkts",
           "%d != %d" % (len(orig), ntx))
    result(len(retx) == stats["retx-pkts"], "live: RETX frames = retx-pkts",
           "%d != %d" % (len(retx), stats["retx-pkts"]))
    result(len(retx) == snd[0]["retx-pkts"], "live: RETX frames = the peer's retx-pkts")
    result(sum(one(f, "afspray.data.frag_len") for f in orig) == stats["tx-bytes"],
           "live: payload bytes of first transmissions = tx-bytes")
    # psns: the incarnation's first psn is its connection id, then one each
    result(sorted(one(f, "afspray.psn_rel") for f in orig) == list(range(ntx)),
           "live: first transmissions carry psns local-cid (%d) .. + tx-pkts - 1, once each" % cid)
    # On the wire a retransmission may come before its original: the RTO
    # of the first packets can fire before they leave the host. The
    # dissector numbers the transmissions of a psn in capture order.
    seen = {}
    for f in dat:
        seen.setdefault(one(f, "afspray.psn"), []).append(f)
    orig_psns = set(one(f, "afspray.psn") for f in orig)
    ok = all(one(f, "afspray.psn") in orig_psns for f in retx)
    for p, fs in seen.items():
        for k, f in enumerate(fs):
            ok = ok and one(f, "afspray.analysis.tx_count") == k + 1
            ok = ok and one(f, "afspray.analysis.first_frame") == (
                None if k == 0 else one(fs[0], "frame.number"))
            ok = ok and one(f, "afspray.analysis.retransmission") == (
                1 if k or one(f, "afspray.flags.retx") else 0)
    result(ok, "live: every RETX repeats a psn sent first; the dissector counts the "
           "transmissions of each psn and names the first frame")
    early = sum(1 for p, fs in seen.items() if one(fs[0], "afspray.flags.retx"))
    if early:
        print("# %d psns: a retransmission reached the wire before the original" % early)
    # what a user sees: the first retransmission, and a NACK
    show = [f for f in dat if one(f, "afspray.flags.retx")][:2]
    show += [f for f in frames if one(f, "afspray.type") == 3][:1]
    for f in show:
        print("# frame %s: %s" % (f["frame.number"][0], "|".join(f["_ws.col.Info"])))
    result(sum(1 for f in dat for m in f["_ws.expert.message"]
               if m.startswith("Retransmission of psn")) == stats["retx-pkts"],
           "live: one retransmission expert info per retx-pkts")
    # messages and fragments
    msgs = {}
    for f in orig:
        msgs.setdefault(one(f, "afspray.data.msg_id"), []).append(f)
    ids = sorted(msgs)
    result(len(ids) == count == stats["tx-msgs"] and ids == list(range(ids[0], ids[0] + count)),
           "live: %d consecutive message ids = tx-msgs" % count,
           "%d ids, tx-msgs %d" % (len(ids), stats["tx-msgs"]))
    ok = True
    for m, fs in msgs.items():
        spans = sorted((one(f, "afspray.data.frag_off"), one(f, "afspray.data.frag_len"))
                       for f in fs)
        pos = 0
        for off, ln in spans:
            ok = ok and off == pos
            pos = off + ln
        ok = ok and pos == size and all(one(f, "afspray.data.msg_len") == size for f in fs)
        ok = ok and sum(one(f, "afspray.data.last_frag") for f in fs) == 1
    result(ok, "live: each message's fragments tile 0..%d exactly once" % size)
    by_psn = {one(f, "afspray.psn"): f for f in orig}
    result(all(one(f, "afspray.psn") in by_psn and
               one(f, "afspray.data.frag_off") == one(by_psn[one(f, "afspray.psn")],
                                                      "afspray.data.frag_off") and
               one(f, "afspray.data.msg_id") == one(by_psn[one(f, "afspray.psn")],
                                                    "afspray.data.msg_id") for f in retx),
           "live: a retransmission carries its psn's message and offset")
    # paths: packets per entropy value, as the sender's paths dump counts them
    mine = {p["ev"]: p for p in paths if p["peer-id"] == pid}
    per_ev, retx_ev = {}, {}
    for f in frames:
        if one(f, "afspray.src_cid") != cid or one(f, "afspray.type") not in (1, 4):
            continue
        ev = one(f, "afspray.ev")
        per_ev[ev] = per_ev.get(ev, 0) + 1
        if one(f, "afspray.flags.retx"):
            retx_ev[ev] = retx_ev.get(ev, 0) + 1
    result(all(one(f, "afspray.ev") == one(f, "udp.srcport") for f in dat),
           "live: entropy value = UDP source port")
    result(set(per_ev) <= set(mine) and
           all(per_ev.get(ev, 0) == p["tx-pkts"] for ev, p in mine.items()),
           "live: DATA and PROBE frames per entropy value = paths tx-pkts (%d paths)" % len(mine),
           "%s vs %s" % (per_ev, {ev: p["tx-pkts"] for ev, p in mine.items()}))
    result(all(retx_ev.get(ev, 0) == p["retx-pkts"] for ev, p in mine.items()),
           "live: RETX frames per entropy value = paths retx-pkts")
    # acknowledgements: every psn a SACK range or a NACK names was sent
    # before; the last cumulative ack covers everything
    sent_by = {}
    for f in dat:
        sent_by.setdefault(one(f, "afspray.psn"), one(f, "frame.number"))
    acks = [f for f in frames if one(f, "afspray.type") == 2 and
            one(f, "afspray.dst_cid") == cid and one(f, "afspray.ack.probe_id") is None]
    nacks = [f for f in frames if one(f, "afspray.type") == 3 and
             one(f, "afspray.dst_cid") == cid]
    bad = []
    nranges = 0
    for f in acks:
        n = one(f, "frame.number")
        for a, b in zip(ints(f, "afspray.sack.first"), ints(f, "afspray.sack.last")):
            nranges += 1
            for k in range((b - a) % TWO32 + 1):
                p = (a + k) % TWO32
                if p not in sent_by or sent_by[p] > n:
                    bad.append((n, p))
    result(nranges > 0 and not bad,
           "live: every psn of every SACK range (%d ranges) was sent before its ACK" % nranges,
           "%s" % bad[:5])
    result(acks and one(acks[-1], "afspray.cum_psn") == (cid + ntx) % TWO32,
           "live: the last ACK's cum_psn = local-cid + tx-pkts")
    # (a NACK may name a psn before its original reaches the wire, as above)
    result(all((one(f, "afspray.nack.psn") + k) % TWO32 in sent_by
               for f in nacks for k in range(one(f, "afspray.nack.count"))),
           "live: every psn a NACK names is one the sender sent (%d NACKs)" % len(nacks))
    # ACKs and NACKs that reached the sender: counted by it, captured here
    drops = {k: v for k, v in after.items() if k.startswith("drop-") and v}
    print("# sender's drops after the transfer: %s" % (drops or "none"))
    probes = sum(1 for f in frames if one(f, "afspray.ack.probe_id") is not None)
    # (answers to probes are not counted as ack-rx)
    result(stats["ack-rx"] <= len(acks) <= after["ack-rx"] + sum(drops.values()),
           "live: ACK frames = ack-rx, or dropped (%d captured, %d probe answers besides; "
           "counted %d..%d)" % (len(acks), probes, stats["ack-rx"], after["ack-rx"]))
    result(stats["nack-rx"] <= len(nacks) <= after["nack-rx"] + sum(drops.values()),
           "live: NACK frames = nack-rx, or dropped (%d captured, counted %d..%d)" %
           (len(nacks), stats["nack-rx"], after["nack-rx"]))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "crafted":
        crafted(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "live":
        live(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if failed else 0


sys.exit(main())

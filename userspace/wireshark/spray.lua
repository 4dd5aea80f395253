-- SPDX-License-Identifier: GPL-2.0
--
-- Wireshark dissector for AF_SPRAY, reliable multipath datagrams over UDP
-- (Documentation/networking/spray-wire.rst, kernel/wire.h: version 1).
--
--   tshark -X lua_script:userspace/wireshark/spray.lua -r capture.pcap -Y afspray
--   wireshark -X lua_script:userspace/wireshark/spray.lua capture.pcap
--   or copy it to ~/.local/lib/wireshark/plugins/ (Wireshark 4.0 and later)
--
-- Every AF_SPRAY packet of a network namespace goes to one UDP port
-- (sprayctl show: udp-port, 4797 by default). The dissector registers on
-- the port of its preference (Edit > Preferences > Protocols > AF_SPRAY,
-- or tshark -o afspray.udp_port:5000), answers "Decode As... > UDP port >
-- AF_SPRAY" for any other port, and recognises AF_SPRAY on any UDP port by
-- its header (a heuristic that can be turned off: "afspray_udp").
--
-- Besides every field of every header it shows:
--   DATA   the psn relative to the incarnation's first (src_cid), the
--          fragment's end, whether it is the message's last; the first
--          transmission of a repeated psn and how many times it was seen
--          (expert info: retransmission, or a repeat without RETX); with
--          flag ACK, the ACK it carries (between the DATA header and the
--          payload) shown as an ACK packet's is, below;
--   ACK    the SACK bitmap from cum_psn on as psn ranges received and
--          holes (missing; the bits before cum_psn are set by definition),
--          the CE-marked psns as ranges, the frame of the packet whose
--          timestamp it echoes and the RTT seen from the capture point;
--   NACK   the run of psns it names (expert info: loss, window, no
--          connection, no buffer);
-- and expert info for every value the receiver would drop the packet for.
--
-- A capture taken on the sending host (before segmentation) holds a
-- sender's GSO trains whole: several DATA packets of one connection back to
-- back in one UDP datagram, each with its own header (spray.rst, "The
-- datapath"). Each is shown as a packet of its own in the frame; capture
-- with a snaplen that keeps the whole frame (tcpdump -s 0) to see them all.

local spray = Proto("afspray", "AF_SPRAY")

local DEFAULT_PORT = 4797
local HDR_LEN, DATA_LEN, ACK_LEN, NACK_LEN, PROBE_LEN, CLOSE_LEN = 24, 48, 72, 40, 40, 24
-- DATA with flag ACK: its cids (8 bytes) and the ACK's 48 follow the DATA
-- header, the payload comes after them
local DACK_LEN = 56
local DATA_ACK_LEN = DATA_LEN + DACK_LEN
local MAX_MSG = 8 * 1024 * 1024
local NACK_MAX = 64
local TWO32 = 4294967296

local bit = bit32 or bit

local T_DATA, T_ACK, T_NACK, T_PROBE, T_CLOSE = 1, 2, 3, 4, 5
local type_names = { [1] = "DATA", [2] = "ACK", [3] = "NACK", [4] = "PROBE", [5] = "CLOSE" }
local type_len = { [1] = DATA_LEN, [2] = ACK_LEN, [3] = NACK_LEN, [4] = PROBE_LEN, [5] = CLOSE_LEN }
local F_SYN, F_RETX, F_ACK_REQ, F_PROBE, F_ACK = 0x1, 0x2, 0x4, 0x8, 0x10
-- flags each type may carry; any other bit drops the packet
local flag_mask = { [1] = 0x17, [2] = 0x8, [3] = 0x0, [4] = 0x5, [5] = 0x0 }
local CAP_DATA_ACK, CAP_WINDOW_PROBE, CAP_ANSWER_PROBE = 0x1, 0x2, 0x4
local reason_names = { [1] = "LOSS", [2] = "WINDOW", [3] = "NO_CONN", [4] = "NO_BUF",
	[5] = "MSG_SIZE", [6] = "RESUME" }

-- ---- fields
local f = {
	version = ProtoField.uint8("afspray.version", "Version", base.DEC),
	type = ProtoField.uint8("afspray.type", "Type", base.DEC, type_names),
	flags = ProtoField.uint16("afspray.flags", "Flags", base.HEX),
	flag_syn = ProtoField.bool("afspray.flags.syn", "SYN", 16, nil, F_SYN),
	flag_retx = ProtoField.bool("afspray.flags.retx", "RETX", 16, nil, F_RETX),
	flag_ack_req = ProtoField.bool("afspray.flags.ack_req", "ACK_REQ", 16, nil, F_ACK_REQ),
	flag_probe = ProtoField.bool("afspray.flags.probe", "PROBE", 16, nil, F_PROBE),
	flag_ack = ProtoField.bool("afspray.flags.ack", "ACK (carries an acknowledgment)", 16, nil,
		F_ACK),
	flag_other = ProtoField.uint16("afspray.flags.undefined", "Undefined", base.HEX, nil, 0xffe0),
	sport = ProtoField.uint16("afspray.sport", "Source spray port", base.DEC),
	dport = ProtoField.uint16("afspray.dport", "Destination spray port", base.DEC),
	src_cid = ProtoField.uint32("afspray.src_cid", "Source connection id", base.DEC_HEX),
	dst_cid = ProtoField.uint32("afspray.dst_cid", "Destination connection id", base.DEC_HEX),
	psn = ProtoField.uint32("afspray.psn", "PSN", base.DEC),
	ev = ProtoField.uint16("afspray.ev", "Entropy value", base.DEC),
	caps = ProtoField.uint16("afspray.caps", "Capabilities", base.HEX,
		nil, nil, "what the sender's stack accepts; 0 from stacks older than the field"),
	caps_data_ack = ProtoField.bool("afspray.caps.data_ack",
		"DATA_ACK (DATA with flag ACK understood)", 16, nil, CAP_DATA_ACK),
	caps_window_probe = ProtoField.bool("afspray.caps.window_probe",
		"WINDOW_PROBE (a PROBE with ACK_REQ is answered with the grant)", 16, nil,
		CAP_WINDOW_PROBE),
	caps_answer_probe = ProtoField.bool("afspray.caps.answer_probe",
		"ANSWER_PROBE (asks at its RTO for the ACK an answer would carry)", 16, nil,
		CAP_ANSWER_PROBE),
	caps_other = ProtoField.uint16("afspray.caps.undefined", "Undefined", base.HEX, nil, 0xfff8,
		"bits a receiver does not know: ignored"),

	psn_rel = ProtoField.uint32("afspray.psn_rel", "Relative PSN", base.DEC,
		nil, nil, "psn - src_cid: the incarnation's first psn is its connection id"),
	msg_id = ProtoField.uint32("afspray.data.msg_id", "Message id", base.DEC),
	msg_len = ProtoField.uint32("afspray.data.msg_len", "Message length", base.DEC),
	frag_off = ProtoField.uint32("afspray.data.frag_off", "Fragment offset", base.DEC),
	frag_len = ProtoField.uint16("afspray.data.frag_len", "Fragment length", base.DEC),
	min_rtt = ProtoField.uint16("afspray.data.min_rtt", "Sender's min RTT (encoded)", base.HEX,
		nil, nil, "12-bit mantissa m, 4-bit exponent e: m << e units of 64 ns; 0: none yet"),
	min_rtt_ns = ProtoField.uint32("afspray.data.min_rtt_ns", "Sender's min RTT (ns)", base.DEC,
		nil, nil, "the per-peer BDP: the receiver's credit is sized by it"),
	ts_ns = ProtoField.uint64("afspray.data.ts_ns", "Sender timestamp (ns)", base.DEC),
	frag_end = ProtoField.uint32("afspray.data.frag_end", "Fragment end", base.DEC,
		nil, nil, "frag_off + frag_len"),
	last_frag = ProtoField.bool("afspray.data.last_frag", "Last fragment of the message"),
	payload = ProtoField.bytes("afspray.data.payload", "Payload"),
	dack_src_cid = ProtoField.uint32("afspray.dack.src_cid", "ACK's source connection id",
		base.DEC_HEX, nil, nil, "as an ACK packet of the other direction would carry it"),
	dack_dst_cid = ProtoField.uint32("afspray.dack.dst_cid", "ACK's destination connection id",
		base.DEC_HEX, nil, nil, "the incarnation acknowledged (its first psn)"),

	cum_psn = ProtoField.uint32("afspray.cum_psn", "Cumulative PSN", base.DEC,
		nil, nil, "every psn before it was received"),
	grant_psn = ProtoField.uint32("afspray.grant_psn", "Grant PSN", base.DEC,
		nil, nil, "the sender may send psns before it"),
	cum_rel = ProtoField.uint32("afspray.cum_psn_rel", "Relative cumulative PSN", base.DEC,
		nil, nil, "cum_psn - dst_cid (of the ACK: dack.dst_cid in a DATA that carries it)"),
	sack_base = ProtoField.uint32("afspray.ack.sack_base", "SACK base", base.DEC),
	sack = ProtoField.uint64("afspray.ack.sack", "SACK bitmap", base.HEX),
	ecn = ProtoField.uint64("afspray.ack.ecn", "ECN CE bitmap", base.HEX),
	ts_echo = ProtoField.uint64("afspray.ack.ts_echo", "Timestamp echo (ns)", base.DEC),
	hold_ns = ProtoField.uint32("afspray.ack.hold_ns", "Hold time (ns)", base.DEC),
	ev_echo = ProtoField.uint16("afspray.ack.ev_echo", "Entropy value echo", base.DEC),
	ack_reserved = ProtoField.uint16("afspray.ack.reserved", "Reserved", base.HEX),
	echo_psn = ProtoField.uint32("afspray.ack.echo_psn", "Echoed PSN", base.DEC),
	echo_probe = ProtoField.uint32("afspray.ack.probe_id", "Echoed probe id", base.DEC),

	sack_range = ProtoField.string("afspray.sack.range", "Received"),
	sack_first = ProtoField.uint32("afspray.sack.first", "First PSN", base.DEC),
	sack_last = ProtoField.uint32("afspray.sack.last", "Last PSN", base.DEC),
	sack_count = ProtoField.uint32("afspray.sack.count", "PSNs selectively acknowledged", base.DEC,
		nil, nil, "received psns from cum_psn on, in the bitmap"),
	sack_hole = ProtoField.string("afspray.sack.hole", "Missing"),
	hole_first = ProtoField.uint32("afspray.sack.hole.first", "First PSN", base.DEC),
	hole_last = ProtoField.uint32("afspray.sack.hole.last", "Last PSN", base.DEC),
	ecn_range = ProtoField.string("afspray.ecn.range", "CE-marked"),
	ecn_first = ProtoField.uint32("afspray.ecn.first", "First PSN", base.DEC),
	ecn_last = ProtoField.uint32("afspray.ecn.last", "Last PSN", base.DEC),
	ecn_count = ProtoField.uint32("afspray.ecn.count", "PSNs CE-marked (bitmap)", base.DEC),

	nack_psn = ProtoField.uint32("afspray.nack.psn", "NACK PSN", base.DEC),
	nack_count = ProtoField.uint16("afspray.nack.count", "Count", base.DEC),
	nack_reason = ProtoField.uint8("afspray.nack.reason", "Reason", base.DEC, reason_names),
	nack_reserved = ProtoField.uint8("afspray.nack.reserved", "Reserved", base.HEX),
	nack_last = ProtoField.uint32("afspray.nack.last", "Last PSN named", base.DEC),
	nack_range = ProtoField.string("afspray.nack.range", "PSNs named"),

	probe_ts = ProtoField.uint64("afspray.probe.ts_ns", "Sender timestamp (ns)", base.DEC),
	probe_id = ProtoField.uint32("afspray.probe.id", "Probe id", base.DEC),
	probe_reserved = ProtoField.uint32("afspray.probe.reserved", "Reserved", base.HEX),

	retx = ProtoField.bool("afspray.analysis.retransmission", "Retransmission",
		base.NONE, nil, nil, "this psn was sent before (or the RETX flag says so)"),
	first_frame = ProtoField.framenum("afspray.analysis.first_frame",
		"First transmission in frame", base.NONE),
	tx_count = ProtoField.uint32("afspray.analysis.tx_count", "Transmission of this PSN", base.DEC,
		nil, nil, "1 for the first time the capture saw it"),
	echo_frame = ProtoField.framenum("afspray.analysis.echo_frame",
		"Echoes the packet of frame", base.NONE),
	rtt = ProtoField.double("afspray.analysis.rtt_ms", "RTT seen here (ms)",
		"from the echoed packet to this ACK, less the receiver's hold time"),
}
spray.fields = f

-- ---- expert info
local e = {
	retx = ProtoExpert.new("afspray.retx", "Retransmission",
		expert.group.SEQUENCE, expert.severity.NOTE),
	repeat_no_retx = ProtoExpert.new("afspray.repeat", "PSN repeated without RETX",
		expert.group.SEQUENCE, expert.severity.WARN),
	nack = ProtoExpert.new("afspray.nack", "NACK",
		expert.group.SEQUENCE, expert.severity.WARN),
	nack_note = ProtoExpert.new("afspray.nack.flow", "NACK (flow control)",
		expert.group.SEQUENCE, expert.severity.NOTE),
	malformed = ProtoExpert.new("afspray.malformed", "Malformed AF_SPRAY packet",
		expert.group.MALFORMED, expert.severity.ERROR),
	bad_flags = ProtoExpert.new("afspray.flags.invalid", "Flag not valid for the type",
		expert.group.PROTOCOL, expert.severity.WARN),
	bad_field = ProtoExpert.new("afspray.field.invalid", "Invalid field",
		expert.group.PROTOCOL, expert.severity.WARN),
	reserved = ProtoExpert.new("afspray.reserved.nonzero", "Reserved field not zero",
		expert.group.PROTOCOL, expert.severity.NOTE),
}
spray.experts = e

-- ---- preferences
spray.prefs.udp_port = Pref.uint("UDP port", DEFAULT_PORT,
	"The namespace's AF_SPRAY UDP port (sprayctl show: udp-port)")

local udp_table = DissectorTable.get("udp.port")
local registered_port

local function register_port()
	if registered_port then
		udp_table:remove(registered_port, spray)
	end
	registered_port = spray.prefs.udp_port
	if registered_port ~= 0 then
		udp_table:add(registered_port, spray)
	end
end

function spray.prefs_changed()
	if registered_port ~= spray.prefs.udp_port then
		register_port()
	end
end

-- ---- per-capture state, rebuilt when a capture is (re)loaded
local seen_psn, seen_ts, frame_info

function spray.init()
	seen_psn = {}	-- "sport:dport:src_cid:psn" -> { first = frame, n = count }
	seen_ts = {}	-- "cid:ts_ns" -> { frame, time } of DATA and PROBE
	frame_info = {}	-- "frame:index in the frame" -> what the first pass found
end

-- ---- helpers
local function u32(x)
	return x % TWO32
end

local function range_str(a, b)
	if a == b then
		return string.format("%u", a)
	end
	return string.format("%u-%u", a, b)
end

-- bit i (0..63) of a 64-bit field read as two 32-bit halves
local function bit64(hi, lo, i)
	if i < 32 then
		return bit.band(bit.rshift(lo, i), 1) == 1
	end
	return bit.band(bit.rshift(hi, i - 32), 1) == 1
end

-- runs of set (want = true) or clear bits of the bitmap from bit `from` to
-- bit `upto`, as { {first_index, last_index}, ... }
local function runs(hi, lo, want, from, upto)
	local out, start = {}, nil
	for i = from, upto do
		if bit64(hi, lo, i) == want then
			start = start or i
		elseif start then
			out[#out + 1] = { start, i - 1 }
			start = nil
		end
	end
	if start then
		out[#out + 1] = { start, upto }
	end
	return out
end

local function highest_set(hi, lo)
	for i = 63, 0, -1 do
		if bit64(hi, lo, i) then
			return i
		end
	end
	return nil
end

local function add_ranges(tree, tvbr, base_psn, list, fstr, ffirst, flast, label)
	for _, r in ipairs(list) do
		local a, b = u32(base_psn + r[1]), u32(base_psn + r[2])
		local n = r[2] - r[1] + 1
		local it = tree:add(fstr, tvbr, range_str(a, b))
		it:set_text(string.format("%s: %s (%d psn%s)", label, range_str(a, b), n,
			n == 1 and "" or "s"))
		it:set_generated()
		it:add(ffirst, tvbr, a):set_generated()
		it:add(flast, tvbr, b):set_generated()
	end
end

local function ranges_text(base_psn, list, max)
	local parts = {}
	for i, r in ipairs(list) do
		if i > max then
			parts[#parts + 1] = "..."
			break
		end
		parts[#parts + 1] = range_str(u32(base_psn + r[1]), u32(base_psn + r[2]))
	end
	return table.concat(parts, ",")
end

-- header bytes of a packet of type @t with @flags (nil for an unknown
-- type): DATA with flag ACK has the carried ACK before its payload
local function hdr_len(t, flags)
	if t == T_DATA and bit.band(flags, F_ACK) ~= 0 then
		return DATA_ACK_LEN
	end
	return type_len[t]
end

-- ---- the packet types

-- The 48 bytes of an ACK at @off of @tvb into @sub: an ACK packet's (at
-- 24) and the one a DATA packet carries (flag ACK, at 56) are the same
-- fields, read the same way. @dst_cid: the ACK's destination cid, the
-- incarnation acknowledged (its psns count from it); @probe: the ACK
-- answers a PROBE (only an ACK packet can: the flag is the packet's);
-- @key: where the first pass keeps what it found. Appends to @info and
-- returns the analysis: { echo = frame, rtt = ms } when the packet whose
-- timestamp it echoes is in the capture, else {}.
local function dissect_ack_fields(tvb, off, pinfo, sub, dst_cid, probe, info, key)
	local cum = tvb(off, 4):uint()
	local base_psn = tvb(off + 4, 4):uint()
	local s_hi, s_lo = tvb(off + 8, 4):uint(), tvb(off + 12, 4):uint()
	local c_hi, c_lo = tvb(off + 16, 4):uint(), tvb(off + 20, 4):uint()

	sub:add(f.cum_psn, tvb(off, 4))
	if dst_cid ~= 0 then
		sub:add(f.cum_rel, tvb(off, 4), u32(cum - dst_cid)):set_generated()
	end
	sub:add(f.sack_base, tvb(off + 4, 4))
	local st = sub:add(f.sack, tvb(off + 8, 8))
	local ct = sub:add(f.ecn, tvb(off + 16, 8))
	sub:add(f.ts_echo, tvb(off + 24, 8))
	sub:add(f.hold_ns, tvb(off + 32, 4))
	sub:add(f.grant_psn, tvb(off + 36, 4))
	sub:add(f.ev_echo, tvb(off + 40, 2))
	local it = sub:add(f.ack_reserved, tvb(off + 42, 2))
	if tvb(off + 42, 2):uint() ~= 0 then
		it:add_proto_expert_info(e.reserved)
	end
	if probe then
		sub:add(f.echo_probe, tvb(off + 44, 4))
	else
		sub:add(f.echo_psn, tvb(off + 44, 4))
	end

	-- SACK: the bits from cum_psn on, as ranges received and holes up to
	-- the highest received; the bits before cum_psn are set by definition
	local from = u32(cum - base_psn)
	if from >= TWO32 / 2 then
		from = 0		-- cum_psn before the bitmap
	end
	local top = highest_set(s_hi, s_lo)
	local got, holes = {}, {}
	if top and from <= top then
		got = runs(s_hi, s_lo, true, from, top)
		holes = runs(s_hi, s_lo, false, from, top)
	end
	local n = 0
	for _, r in ipairs(got) do
		n = n + r[2] - r[1] + 1
	end
	local sr, cr = tvb(off + 8, 8), tvb(off + 16, 8)
	st:add(f.sack_count, sr, n):set_generated()
	add_ranges(st, sr, base_psn, got, f.sack_range, f.sack_first, f.sack_last, "Received")
	add_ranges(st, sr, base_psn, holes, f.sack_hole, f.hole_first, f.hole_last, "Missing")
	local ctop = highest_set(c_hi, c_lo)
	local ce = ctop and runs(c_hi, c_lo, true, 0, ctop) or {}
	local nce = 0
	for _, r in ipairs(ce) do
		nce = nce + r[2] - r[1] + 1
	end
	ct:add(f.ecn_count, cr, nce):set_generated()
	add_ranges(ct, cr, base_psn, ce, f.ecn_range, f.ecn_first, f.ecn_last, "CE-marked")

	-- the echoed packet and the RTT seen from here: DATA and PROBE are
	-- recorded under their src_cid, which is the ACK's dst_cid
	local fi = frame_info[key]
	if not pinfo.visited or not fi then
		local s = seen_ts[string.format("%u:%s", dst_cid, tostring(tvb(off + 24, 8):uint64()))]
		fi = {}
		if s then
			fi.echo = s.frame
			fi.rtt = (pinfo.abs_ts - s.time) * 1000 - tvb(off + 32, 4):uint() / 1e6
		end
		frame_info[key] = fi
	end

	if probe then
		info[#info + 1] = string.format("probe=%u ev=%u", tvb(off + 44, 4):uint(),
			tvb(off + 40, 2):uint())
	else
		info[#info + 1] = string.format("cum=%u", cum)
		if #got > 0 then
			info[#info + 1] = "sack=" .. ranges_text(base_psn, got, 4)
		end
		if #holes > 0 then
			info[#info + 1] = "missing=" .. ranges_text(base_psn, holes, 4)
		end
		if nce > 0 then
			info[#info + 1] = "ce=" .. ranges_text(base_psn, ce, 4)
		end
		info[#info + 1] = string.format("grant=%u", tvb(off + 36, 4):uint())
	end
	return fi
end

-- the echo analysis of an ACK (@fi from dissect_ack_fields) into the
-- Analysis subtree @a; @tvbr: its ts_echo
local function add_echo(a, tvbr, fi)
	a:add(f.echo_frame, tvbr, fi.echo):set_generated()
	a:add(f.rtt, tvbr, fi.rtt):set_generated()
end

local function dissect_data(tvb, pinfo, tree, h, info, len, key)
	local msg_id = tvb(24, 4):uint()
	local msg_len = tvb(28, 4):uint()
	local frag_off = tvb(32, 4):uint()
	local frag_len = tvb(36, 2):uint()
	local carries = bit.band(h.flags, F_ACK) ~= 0
	local hl = hdr_len(T_DATA, h.flags)
	local sub = tree:add(spray, tvb(24, 24), "DATA header")

	sub:add(f.msg_id, tvb(24, 4))
	local it = sub:add(f.msg_len, tvb(28, 4))
	if msg_len == 0 or msg_len > MAX_MSG then
		it:add_proto_expert_info(e.malformed,
			string.format("message length %u outside 1..%u", msg_len, MAX_MSG))
	end
	it = sub:add(f.frag_off, tvb(32, 4))
	local fl = sub:add(f.frag_len, tvb(36, 2))
	local rtt = tvb(38, 2):uint()
	sub:add(f.min_rtt, tvb(38, 2))
	if rtt ~= 0 then
		local ns = (rtt % 4096) * 2 ^ (6 + math.floor(rtt / 4096))
		sub:add(f.min_rtt_ns, tvb(38, 2), math.min(ns, 4294967295)):set_generated()
	end
	sub:add(f.ts_ns, tvb(40, 8))
	sub:add(f.frag_end, tvb(32, 6), frag_off + frag_len):set_generated()
	sub:add(f.last_frag, tvb(32, 6), frag_off + frag_len == msg_len):set_generated()

	-- the ACK it carries: the acknowledgment of the other direction, with
	-- cids of its own (the DATA's name the DATA's incarnation)
	local ainfo, afi = {}, nil
	if carries then
		local dsrc, ddst = tvb(DATA_LEN, 4):uint(), tvb(DATA_LEN + 4, 4):uint()
		local ds = tree:add(spray, tvb(DATA_LEN, DACK_LEN), "Carried ACK")
		local ci = ds:add(f.dack_src_cid, tvb(DATA_LEN, 4))
		if dsrc == 0 then
			-- as an ACK packet's src_cid: the receiver drops the packet
			ci:add_proto_expert_info(e.bad_field, "connection id 0")
		end
		ds:add(f.dack_dst_cid, tvb(DATA_LEN + 4, 4))
		afi = dissect_ack_fields(tvb, DATA_LEN + 8, pinfo, ds, ddst, false, ainfo,
			key .. ":ack")
		ds:append_text(string.format(", cum psn %u", tvb(DATA_LEN + 8, 4):uint()))
	end

	-- lengths as sent: a capture may keep only the headers (snaplen)
	local payload = len - hl
	if frag_len == 0 then
		fl:add_proto_expert_info(e.malformed, "fragment length 0")
	elseif frag_len ~= payload then
		fl:add_proto_expert_info(e.malformed,
			string.format("fragment length %u, payload %u bytes", frag_len, payload))
	end
	if frag_off + frag_len > msg_len then
		fl:add_proto_expert_info(e.malformed,
			string.format("fragment %u..%u beyond the message's %u bytes",
				frag_off, frag_off + frag_len, msg_len))
	end
	if tvb:len() > hl and len > hl then
		tree:add(f.payload, tvb(hl, math.min(tvb:len(), len) - hl))
	end

	-- repeated psns: the first pass records, every pass shows
	local fi = frame_info[key]
	if not pinfo.visited or not fi then
		local pkey = string.format("%u:%u:%u:%u", h.sport, h.dport, h.src_cid, h.psn)
		local s = seen_psn[pkey]
		if s then
			s.n = s.n + 1
			fi = { first = s.first, n = s.n }
		else
			seen_psn[pkey] = { first = pinfo.number, n = 1 }
			fi = { n = 1 }
		end
		seen_ts[string.format("%u:%s", h.src_cid, tostring(tvb(40, 8):uint64()))] =
			{ frame = pinfo.number, time = pinfo.abs_ts }
		frame_info[key] = fi
	end
	local retx = bit.band(h.flags, F_RETX) ~= 0
	local a = tree:add(spray, tvb(0, 0), "Analysis"):set_generated()
	a:add(f.retx, tvb(0, 0), retx or fi.first ~= nil):set_generated()
	a:add(f.tx_count, tvb(0, 0), fi.n):set_generated()
	if fi.first then
		a:add(f.first_frame, tvb(0, 0), fi.first):set_generated()
		if retx then
			a:add_proto_expert_info(e.retx, string.format(
				"Retransmission of psn %u (transmission %d, first in frame %u)",
				h.psn, fi.n, fi.first))
		else
			a:add_proto_expert_info(e.repeat_no_retx, string.format(
				"PSN %u seen before in frame %u without the RETX flag: a duplicate, or the original overtaken by its retransmission",
				h.psn, fi.first))
		end
	elseif retx then
		a:add_proto_expert_info(e.retx, string.format(
			"Retransmission of psn %u (its first transmission is not in the capture)",
			h.psn))
	end
	if afi and afi.echo then
		add_echo(a, tvb(DATA_LEN + 32, 8), afi)
	end

	info[#info + 1] = string.format("psn=%u msg=%u off=%u len=%u", h.psn, msg_id,
		frag_off, frag_len)
	if frag_off + frag_len == msg_len then
		info[#info + 1] = "last"
	end
	if retx then
		info[#info + 1] = "[RETX]"
	elseif fi.first then
		info[#info + 1] = "[repeat]"
	end
	if carries then
		info[#info + 1] = "+ACK " .. table.concat(ainfo, " ")
	end
end

local function dissect_ack(tvb, pinfo, tree, h, info, key)
	local probe = bit.band(h.flags, F_PROBE) ~= 0
	local sub = tree:add(spray, tvb(24, 48), probe and "ACK header (probe answer)" or "ACK header")
	local fi = dissect_ack_fields(tvb, HDR_LEN, pinfo, sub, h.dst_cid, probe, info, key)

	if fi.echo then
		add_echo(tree:add(spray, tvb(0, 0), "Analysis"):set_generated(), tvb(48, 8), fi)
	end
end

local function dissect_nack(tvb, pinfo, tree, h, info)
	local psn = tvb(24, 4):uint()
	local count = tvb(28, 2):uint()
	local reason = tvb(30, 1):uint()
	local sub = tree:add(spray, tvb(24, 16), "NACK header")

	sub:add(f.nack_psn, tvb(24, 4))
	local ci = sub:add(f.nack_count, tvb(28, 2))
	if count < 1 or count > NACK_MAX then
		ci:add_proto_expert_info(e.malformed,
			string.format("count %u outside 1..%u", count, NACK_MAX))
	end
	local ri = sub:add(f.nack_reason, tvb(30, 1))
	if not reason_names[reason] then
		ri:add_proto_expert_info(e.malformed, string.format("unknown reason %u", reason))
	end
	local it = sub:add(f.nack_reserved, tvb(31, 1))
	if tvb(31, 1):uint() ~= 0 then
		it:add_proto_expert_info(e.reserved)
	end
	sub:add(f.cum_psn, tvb(32, 4))
	if h.dst_cid ~= 0 then
		sub:add(f.cum_rel, tvb(32, 4), u32(tvb(32, 4):uint() - h.dst_cid)):set_generated()
	end
	sub:add(f.grant_psn, tvb(36, 4))

	local rname = reason_names[reason] or tostring(reason)
	local last = u32(psn + math.max(count, 1) - 1)
	sub:add(f.nack_last, tvb(24, 6), last):set_generated()
	local rng = range_str(psn, last)
	sub:add(f.nack_range, tvb(24, 6), rng):set_generated()
	local text = string.format("NACK %s: psn %s (%u)", rname, rng, count)
	if reason == 1 or reason == 3 or reason == 5 then
		sub:add_proto_expert_info(e.nack, text)
	else
		sub:add_proto_expert_info(e.nack_note, text)
	end
	info[#info + 1] = string.format("%s psn=%s cum=%u", rname, rng, tvb(32, 4):uint())
end

local function dissect_probe(tvb, pinfo, tree, h, info)
	local sub = tree:add(spray, tvb(24, 16), "PROBE header")

	sub:add(f.probe_ts, tvb(24, 8))
	sub:add(f.probe_id, tvb(32, 4))
	local it = sub:add(f.probe_reserved, tvb(36, 4))
	if tvb(36, 4):uint() ~= 0 then
		it:add_proto_expert_info(e.reserved)
	end
	if not pinfo.visited then
		seen_ts[string.format("%u:%s", h.src_cid, tostring(tvb(24, 8):uint64()))] =
			{ frame = pinfo.number, time = pinfo.abs_ts }
	end
	info[#info + 1] = string.format("id=%u ev=%u", tvb(32, 4):uint(), h.ev)
	-- ACK_REQ: the persist timer's window probe, asking for the grant, or
	-- an RTO's answer probe, asking for the ACK an answer would carry
	if bit.band(h.flags, F_ACK_REQ) ~= 0 then
		info[#info + 1] = "window probe or answer probe"
	end
end

-- ---- the common header and the dispatch

-- One packet: @tvb from its first byte (as much as was captured), @len
-- its length on the wire; the text for the Info column.
local function dissect_one(tvb, pinfo, tree, len, key)
	local root = tree:add(spray, tvb(0, math.min(tvb:len(), len)))

	if tvb:len() < HDR_LEN then
		root:add_proto_expert_info(e.malformed,
			string.format("%u bytes, shorter than the %u-byte header", tvb:len(), HDR_LEN))
		return "AF_SPRAY (short)"
	end
	local h = {
		version = tvb(0, 1):uint(), type = tvb(1, 1):uint(), flags = tvb(2, 2):uint(),
		sport = tvb(4, 2):uint(), dport = tvb(6, 2):uint(),
		src_cid = tvb(8, 4):uint(), dst_cid = tvb(12, 4):uint(),
		psn = tvb(16, 4):uint(), ev = tvb(20, 2):uint(),
	}
	local hdr = root:add(spray, tvb(0, HDR_LEN), "Common header")
	local vi = hdr:add(f.version, tvb(0, 1))
	local ti = hdr:add(f.type, tvb(1, 1))
	local fi = hdr:add(f.flags, tvb(2, 2))
	fi:add(f.flag_syn, tvb(2, 2))
	fi:add(f.flag_retx, tvb(2, 2))
	fi:add(f.flag_ack_req, tvb(2, 2))
	fi:add(f.flag_probe, tvb(2, 2))
	fi:add(f.flag_ack, tvb(2, 2))
	fi:add(f.flag_other, tvb(2, 2))
	local spi = hdr:add(f.sport, tvb(4, 2))
	local dpi = hdr:add(f.dport, tvb(6, 2))
	local ci = hdr:add(f.src_cid, tvb(8, 4))
	hdr:add(f.dst_cid, tvb(12, 4))
	local pi = hdr:add(f.psn, tvb(16, 4))
	if h.type == T_DATA then
		pi:add(f.psn_rel, tvb(16, 4), u32(h.psn - h.src_cid)):set_generated()
	end
	hdr:add(f.ev, tvb(20, 2))
	-- caps (reserved before): bits a receiver does not know are ignored, so
	-- undefined ones are shown but not flagged
	local capi = hdr:add(f.caps, tvb(22, 2))
	capi:add(f.caps_data_ack, tvb(22, 2))
	capi:add(f.caps_window_probe, tvb(22, 2))
	capi:add(f.caps_answer_probe, tvb(22, 2))
	capi:add(f.caps_other, tvb(22, 2))

	local tname = type_names[h.type]
	local info = { tname or string.format("type %u", h.type) }
	local fl = {}
	if bit.band(h.flags, F_SYN) ~= 0 then fl[#fl + 1] = "SYN" end
	if bit.band(h.flags, F_ACK_REQ) ~= 0 then fl[#fl + 1] = "ACK_REQ" end
	if bit.band(h.flags, F_PROBE) ~= 0 then fl[#fl + 1] = "PROBE" end
	-- (on DATA the carried ACK shows it: "+ACK cum=...")
	if bit.band(h.flags, F_ACK) ~= 0 and h.type ~= T_DATA then fl[#fl + 1] = "ACK" end
	if #fl > 0 then
		info[#info + 1] = "[" .. table.concat(fl, ",") .. "]"
	end
	info[#info + 1] = string.format("%u->%u", h.sport, h.dport)
	root:append_text(string.format(", %s, spray port %u -> %u", tname or "?", h.sport,
		h.dport))
	if h.type == T_DATA then
		root:append_text(string.format(", psn %u", h.psn))
		if bit.band(h.flags, F_ACK) ~= 0 then
			root:append_text(", carries an ACK")
		end
	end

	if h.version ~= 1 then
		vi:add_proto_expert_info(e.malformed,
			string.format("version %u: only 1 is defined (the receiver drops it)", h.version))
		return table.concat(info, " ")
	end
	if not tname then
		ti:add_proto_expert_info(e.malformed, "unknown type (the receiver drops it)")
		return table.concat(info, " ")
	end
	local bad = bit.band(h.flags, bit.bnot(flag_mask[h.type]))
	if bad ~= 0 then
		fi:add_proto_expert_info(e.bad_flags,
			string.format("flags 0x%x not valid for %s (the receiver drops it)", bad, tname))
	end
	if h.sport == 0 then spi:add_proto_expert_info(e.bad_field, "spray port 0") end
	if h.dport == 0 then dpi:add_proto_expert_info(e.bad_field, "spray port 0") end
	if h.src_cid == 0 then ci:add_proto_expert_info(e.bad_field, "connection id 0") end
	if h.type ~= T_DATA and h.psn ~= 0 then
		pi:add_proto_expert_info(e.bad_field, "psn of a " .. tname .. " packet is 0")
	end

	local need = hdr_len(h.type, h.flags)
	if len < need then
		local carries = h.type == T_DATA and bit.band(h.flags, F_ACK) ~= 0
		root:add_proto_expert_info(e.malformed,
			string.format("%s%s of %u bytes, needs %u", tname,
				carries and " with flag ACK" or "", len, need))
		return table.concat(info, " ") .. " (short)"
	end
	if tvb:len() < need then
		root:append_text(string.format(" [%u of its %u header bytes captured]",
			tvb:len(), need))
		return table.concat(info, " ") .. " (header cut by the snaplen)"
	end
	if h.type ~= T_DATA and len > need then
		root:add_proto_expert_info(e.malformed,
			string.format("%u trailing bytes after the %s header", len - need, tname))
	end

	if h.type == T_DATA then
		dissect_data(tvb, pinfo, root, h, info, len, key)
	elseif h.type == T_ACK then
		dissect_ack(tvb, pinfo, root, h, info, key)
	elseif h.type == T_NACK then
		dissect_nack(tvb, pinfo, root, h, info)
	elseif h.type == T_PROBE then
		dissect_probe(tvb, pinfo, root, h, info)
	end
	return table.concat(info, " ")
end

-- The length of the packet at @off of a datagram of @len bytes: a DATA
-- packet whose fragment ends before the datagram does is the first of a
-- GSO train when the next header (if captured) is a DATA packet of the
-- same connection; anything else is one packet (and shown as malformed if
-- its lengths disagree). A DATA carrying an ACK goes alone (spray-wire.rst),
-- but its length counts the carried ACK all the same: a train that holds
-- one is then cut where its packets are.
local function packet_len(tvb, off, len)
	local cap = tvb:len()
	if cap - off < DATA_LEN or tvb(off, 1):uint() ~= 1 or tvb(off + 1, 1):uint() ~= T_DATA then
		return len - off
	end
	local hl = hdr_len(T_DATA, tvb(off + 2, 2):uint())
	local plen = hl + tvb(off + 36, 2):uint()
	if plen == hl or off + plen >= len then
		return len - off
	end
	local nxt = off + plen
	if cap - nxt >= HDR_LEN and (tvb(nxt, 1):uint() ~= 1 or tvb(nxt + 1, 1):uint() ~= T_DATA or
	   tvb(nxt + 4, 4):uint() ~= tvb(off + 4, 4):uint() or
	   tvb(nxt + 8, 4):uint() ~= tvb(off + 8, 4):uint()) then
		return len - off
	end
	return plen
end

function spray.dissector(tvb, pinfo, tree)
	local len = tvb:reported_len()
	if len == 0 then
		return 0
	end
	pinfo.cols.protocol = "AF_SPRAY"
	local off, infos = 0, {}
	while off < len do
		if off >= tvb:len() then
			tree:add(spray, tvb(0, 0), string.format(
				"AF_SPRAY: %u more bytes of a GSO train, not captured (snaplen)",
				len - off)):set_generated()
			infos[#infos + 1] = "..."
			break
		end
		local plen = packet_len(tvb, off, len)
		infos[#infos + 1] = dissect_one(tvb(off):tvb(), pinfo, tree, plen,
			string.format("%u:%u", pinfo.number, #infos))
		off = off + plen
	end
	if #infos > 1 then
		pinfo.cols.info = string.format("train of %d: %s", #infos, table.concat(infos, "; "))
	else
		pinfo.cols.info = infos[1]
	end
	return len
end

-- AF_SPRAY on another UDP port: the header must be exactly right
local function heuristic(tvb, pinfo, tree)
	local len = tvb:reported_len()
	if tvb:len() < HDR_LEN or tvb(0, 1):uint() ~= 1 then
		return false
	end
	local t, flags = tvb(1, 1):uint(), tvb(2, 2):uint()
	local need = hdr_len(t, flags)
	if not need or tvb:len() < need or bit.band(flags, bit.bnot(flag_mask[t])) ~= 0 or
	   tvb(4, 2):uint() == 0 or tvb(6, 2):uint() == 0 or tvb(8, 4):uint() == 0 then
		return false
	end
	if t == T_DATA then
		-- one packet, or the first of a GSO train; a carried ACK's
		-- src_cid is not 0 either
		if tvb(36, 2):uint() == 0 or (tvb(36, 2):uint() ~= len - need and
		   packet_len(tvb, 0, len) == len) or
		   (need == DATA_ACK_LEN and tvb(DATA_LEN, 4):uint() == 0) then
			return false
		end
	elseif len ~= need or tvb(16, 4):uint() ~= 0 then
		return false
	end
	spray.dissector(tvb, pinfo, tree)
	return true
end

register_port()
spray:register_heuristic("udp", heuristic)
pcall(function() udp_table:add_for_decode_as(spray) end)

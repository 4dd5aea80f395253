/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY: where a message's bytes lie in its sender's memory (no kernel
 * API).
 *
 * A message is packed (its bytes back to back), or laid out in slots for
 * the packets it will be sent in: fragment i (@frag bytes of payload, the
 * last one shorter) at slot i, after room for its DATA header (@hdr bytes):
 *
 *	| hdr 0 | fragment 0 | hdr 1 | fragment 1 | ... | hdr n | last |
 *
 * so that a train of packets (a GSO skb: one segment per packet, each its
 * header then its payload) is one run of memory, referenced by one skb
 * frag per page chunk it crosses, instead of two or three frags per
 * packet (its header's block and its payload); MAX_SKB_FRAGS no longer
 * caps a train at eight packets at MTU 1500. The header is written into
 * the slot when the packet is first sent; a retransmission takes a header
 * of its own and the payload by reference, as a packed message's packets
 * do (the first one may still be in flight).
 */
#ifndef _SPRAY_LAYOUT_H
#define _SPRAY_LAYOUT_H

#include "core.h"

/**
 * spray_layout_space() - bytes a message of @len bytes takes
 * @len: its length
 * @frag: payload bytes per slot, 0 if packed
 * @hdr: header bytes before each fragment
 *
 * Return: @len packed, else @len and one header per fragment.
 */
static inline u32 spray_layout_space(u32 len, u32 frag, u32 hdr)
{
	return frag ? len + (len + frag - 1) / frag * hdr : len;
}

/**
 * spray_layout_pos() - where the message's byte @off lies
 * @off: offset in the message
 * @frag: payload bytes per slot, 0 if packed
 * @hdr: header bytes before each fragment
 *
 * Return: its offset in the message's memory.
 */
static inline u32 spray_layout_pos(u32 off, u32 frag, u32 hdr)
{
	return frag ? off / frag * (frag + hdr) + hdr + off % frag : off;
}

/**
 * spray_layout_run() - bytes from @off that lie back to back
 * @off: offset in the message, below @len
 * @len: the message's length
 * @frag: payload bytes per slot, 0 if packed
 *
 * Return: up to the end of @off's fragment (slotted) or of the message.
 */
static inline u32 spray_layout_run(u32 off, u32 len, u32 frag)
{
	return frag ? min(frag - off % frag, len - off) : len - off;
}

/**
 * spray_layout_slot() - where the packet of the fragment at @off begins
 * @off: the fragment's first byte, a multiple of @frag
 * @frag: payload bytes per slot, not 0
 * @hdr: header bytes before each fragment
 *
 * Return: the offset of its header in the message's memory.
 */
static inline u32 spray_layout_slot(u32 off, u32 frag, u32 hdr)
{
	return off / frag * (frag + hdr);
}

#endif

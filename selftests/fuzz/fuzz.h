/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the AF_SPRAY libFuzzer harnesses (selftests/fuzz).
 *
 * A harness reads its input as a little script: a few configuration bytes,
 * then operations, each an opcode byte and its arguments. struct fz hands
 * out the bytes; past the end every read returns 0, so any input is a valid
 * script. FZ_CHECK() is an invariant: when it fails the harness prints what
 * and where, then aborts, which libFuzzer reports as a crash and saves the
 * input (crash-<sha1>) for replay.
 */
#ifndef _SPRAY_FUZZ_H
#define _SPRAY_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include "core.h"

struct fz {
	const u8	*p;
	size_t		n;
};

static inline bool fz_more(const struct fz *f)
{
	return f->n > 0;
}

static inline u8 fz_u8(struct fz *f)
{
	if (!f->n)
		return 0;
	f->n--;
	return *f->p++;
}

static inline u16 fz_u16(struct fz *f)
{
	u16 lo = fz_u8(f);

	return (u16)(lo | (u16)fz_u8(f) << 8);
}

static inline u32 fz_u32(struct fz *f)
{
	u32 lo = fz_u16(f);

	return lo | (u32)fz_u16(f) << 16;
}

static inline u64 fz_u64(struct fz *f)
{
	u64 lo = fz_u32(f);

	return lo | (u64)fz_u32(f) << 32;
}

/* up to @want bytes of the input, as they are; *got says how many */
static inline const u8 *fz_bytes(struct fz *f, size_t want, size_t *got)
{
	const u8 *p = f->p;

	*got = want < f->n ? want : f->n;
	f->p += *got;
	f->n -= *got;
	return p;
}

/*
 * Opcodes of the harness scripts, shared with the seed generator
 * (gen_corpus.c). An opcode byte is taken modulo __*_MAX; the bits above
 * are free for the operation's own use.
 */
enum fz_tx_op {		/* fuzz_txwin */
	TX_SEND,	/* n, cwnd, ev u16, len u16 */
	TX_RETX,	/* ev u16 */
	TX_DELIVER,	/* fabric slot, what (bits: 0-1 lost if 0, 2 dup, 3 CE) */
	TX_ACK,		/* credit u16, how (bit 0 even if not due, 1 delay) */
	TX_DELAYED_ACK,	/* queue slot, what (bit 0 keep, 1 lose) */
	TX_NACK,	/* rtt u32, credit u16 */
	TX_REFUSE,	/* fabric slot, reason bit */
	TX_TIME,	/* ns u16, shift */
	TX_DETECT,	/* - */
	TX_RTO,		/* bit 0: jump to the deadline */
	TX_FORGED,	/* type bit, fields near una */
	TX_RAW,		/* len u8, bytes */
	__TX_MAX,
};

enum fz_rx_op {		/* fuzz_rxwin */
	RX_ARRIVE,	/* how, b, cut, flags [psn] [at, xor] */
	RX_RAW,		/* len u8, bytes */
	RX_TIME,	/* ns u16, shift */
	RX_ACK,		/* bit 0: even if not due */
	RX_NACK,	/* rtt u32, max runs */
	RX_FLUSH,	/* - */
	RX_TRAIN,	/* n, gap, flags, ce: a train's followers as one run */
	__RX_MAX,
};

enum fz_path_op {	/* fuzz_path */
	PATH_PICK,	/* a (bit 7: first transmission) [avoid u16] */
	PATH_ACK,	/* idx u16, ns u32 (bit 0: CE) */
	PATH_LOSS,	/* idx u16, ns u32 */
	PATH_PENALIZE,	/* idx u16, ns u32 */
	PATH_TIME,	/* opcode bit 7: huge jump (u64, shift), else u16, shift */
	__PATH_MAX,
};

enum fz_cc_op {		/* fuzz_cc */
	CC_ACK,		/* pkts u16, bytes u32, ce u16, [ce bytes], rtt, min rtt,
			 * [echo age u16] */
	CC_LOSS,	/* why */
	CC_CREDIT,	/* op (conn, activate/deactivate/grant) [adv, free] */
	CC_TIME,	/* opcode bit 7: u32, else u16 << (opcode % 32) */
	CC_RDATA,	/* conn, bytes u16, min_rtt u16 (encoded), active */
	__CC_MAX,
};

#define FZ_CHECK(cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s: "	\
				fmt "\n", __FILE__, __LINE__, #cond,	\
				##__VA_ARGS__);				\
			abort();					\
		}							\
	} while (0)

#endif /* _SPRAY_FUZZ_H */

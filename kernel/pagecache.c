// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY: pages recycled per CPU.
 *
 * Debian's kernels zero every allocation (CONFIG_INIT_ON_ALLOC_DEFAULT_ON):
 * each page a message's data is copied into was cleared first, a cost as
 * large as the copy itself. The pages of messages sent and acknowledged,
 * and of messages received and read, come back here (when nobody else
 * holds them: a packet still on its way keeps its page) and go to the next
 * message without being cleared: every byte of them is written before it
 * is read (a message is sent, or delivered, only once all its bytes are
 * in). A few per CPU, as page_pool's cache: 256 KiB of pages and 256 KiB
 * of 32 KiB chunks at most per CPU.
 *
 * A chunk whose message is acknowledged while a packet still holds it (a
 * receiver on this host keeps the skbs it received until they are read)
 * is held, with our reference, up to 512 KiB per CPU, and reused once
 * ours is the only reference left, as TCP reuses its page fragment
 * (sk_page_frag_refill()): a sender and receiver on one host, over a veth,
 * would otherwise zero a new chunk for every one the receiver frees.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/bottom_half.h>

#include "spray.h"
#include "conn.h"

#define SPRAY_PCACHE_PAGES	64
#define SPRAY_PCACHE_CHUNKS	8
#define SPRAY_PCACHE_HELD	16

struct spray_pcache {
	struct page	*pages[SPRAY_PCACHE_PAGES];
	struct page	*chunks[SPRAY_PCACHE_CHUNKS];
	struct page	*held[SPRAY_PCACHE_HELD];
	unsigned int	npages;
	unsigned int	nchunks;
	unsigned int	nheld;
};

/* A held chunk nobody else references any more, or NULL. */
static struct page *spray_pcache_unheld(struct spray_pcache *pc)
{
	struct page *pg;
	unsigned int i;

	for (i = 0; i < pc->nheld; i++) {
		pg = pc->held[i];
		if (page_ref_count(pg) == 1) {
			pc->held[i] = pc->held[--pc->nheld];
			return pg;
		}
	}
	return NULL;
}

static DEFINE_PER_CPU(struct spray_pcache, spray_pcache);

/**
 * spray_page_alloc() - a page (order 0) or a chunk (SPRAY_TMSG_ORDER)
 * @order: 0 or SPRAY_TMSG_ORDER; other orders come from the allocator
 * @gfp: for the allocator, when the CPU's cache is empty
 *
 * Any context but hard interrupts. A recycled page holds old bytes of
 * another message of this module: the caller writes before it reads.
 *
 * Return: the page (a compound head for a chunk), or NULL.
 */
struct page *spray_page_alloc(unsigned int order, gfp_t gfp)
{
	struct spray_pcache *pc;
	struct page *pg = NULL;

	local_bh_disable();
	pc = this_cpu_ptr(&spray_pcache);
	if (!order && pc->npages)
		pg = pc->pages[--pc->npages];
	else if (order == SPRAY_TMSG_ORDER && pc->nchunks)
		pg = pc->chunks[--pc->nchunks];
	else if (order == SPRAY_TMSG_ORDER)
		pg = spray_pcache_unheld(pc);
	local_bh_enable();
	if (pg)
		return pg;
	if (order)
		gfp |= __GFP_COMP | __GFP_NORETRY | __GFP_NOWARN;
	return alloc_pages(gfp, order);
}

/**
 * spray_page_free() - give back what spray_page_alloc() gave
 * @pg: the page or chunk
 * @order: its order
 */
void spray_page_free(struct page *pg, unsigned int order)
{
	struct spray_pcache *pc;

	if ((order && order != SPRAY_TMSG_ORDER) ||
	    (!order && page_ref_count(pg) != 1) ||
	    page_is_pfmemalloc(pg) || page_to_nid(pg) != numa_mem_id())
		goto put;
	local_bh_disable();
	pc = this_cpu_ptr(&spray_pcache);
	if (order && page_ref_count(pg) != 1) {
		/* still in a packet: held until it comes back */
		if (pc->nheld < SPRAY_PCACHE_HELD) {
			pc->held[pc->nheld++] = pg;
			pg = NULL;
		}
	} else if (!order && pc->npages < SPRAY_PCACHE_PAGES) {
		pc->pages[pc->npages++] = pg;
		pg = NULL;
	} else if (order && pc->nchunks < SPRAY_PCACHE_CHUNKS) {
		pc->chunks[pc->nchunks++] = pg;
		pg = NULL;
	}
	local_bh_enable();
	if (!pg)
		return;
put:
	put_page(pg);
}

/* Module exit: no socket is left, the caches go back to the allocator. */
void spray_page_cache_drain(void)
{
	struct spray_pcache *pc;
	int cpu;

	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(&spray_pcache, cpu);
		while (pc->npages)
			put_page(pc->pages[--pc->npages]);
		while (pc->nchunks)
			put_page(pc->chunks[--pc->nchunks]);
		while (pc->nheld)
			put_page(pc->held[--pc->nheld]);
	}
}

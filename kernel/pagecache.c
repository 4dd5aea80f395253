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
 *
 * What one CPU frees is often what another allocates: a sender's chunks
 * come back on the CPU that takes its ACKs (for a veth, the receiver's),
 * and the pages of received messages on the reader's. What a CPU's cache
 * has no room for goes to a cache all CPUs share, under a lock (taken once
 * per 32 KiB chunk or page that misses the CPU's own cache, beside the
 * copy of as many bytes), bounded as well: 2 MiB of pages, 4 MiB of
 * chunks and 4 MiB held, per NUMA node. Without it, 16 senders on one
 * CPU whose ACKs came in on the other cleared most chunks they filled.
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/bottom_half.h>
#include <linux/slab.h>

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

#define SPRAY_PSHARED_PAGES	512
#define SPRAY_PSHARED_CHUNKS	128
#define SPRAY_PSHARED_HELD	128
/* held chunks looked at per allocation, the oldest first */
#define SPRAY_PSHARED_LOOK	8

/*
 * What the CPUs' caches of one NUMA node had no room for. The held chunks
 * are a ring, oldest first: the first to come back.
 */
struct spray_pshared {
	spinlock_t	lock;	/* guards the rest; BHs off */
	struct page	*pages[SPRAY_PSHARED_PAGES];
	struct page	*chunks[SPRAY_PSHARED_CHUNKS];
	struct page	*held[SPRAY_PSHARED_HELD];
	unsigned int	npages;
	unsigned int	nchunks;
	unsigned int	held_head;
	unsigned int	nheld;
};

/* nr_node_ids of them: a page stays on its node, as in the CPUs' caches */
static struct spray_pshared *spray_pshared;

/* A page or chunk from this node's shared cache, or NULL. BHs off. */
static struct page *spray_pshared_get(unsigned int order)
{
	struct spray_pshared *ps = &spray_pshared[numa_mem_id()];
	struct page *pg = NULL;
	unsigned int i;

	if (!READ_ONCE(ps->npages) && !READ_ONCE(ps->nchunks) &&
	    !READ_ONCE(ps->nheld))
		return NULL;
	spin_lock(&ps->lock);
	if (!order && ps->npages) {
		pg = ps->pages[--ps->npages];
	} else if (order && ps->nchunks) {
		pg = ps->chunks[--ps->nchunks];
	} else if (order) {
		/* the oldest few; one still in a packet goes to the back */
		for (i = 0; i < SPRAY_PSHARED_LOOK && ps->nheld; i++) {
			pg = ps->held[ps->held_head];
			ps->held_head = (ps->held_head + 1) % SPRAY_PSHARED_HELD;
			if (page_ref_count(pg) == 1) {
				ps->nheld--;
				break;
			}
			ps->held[(ps->held_head + ps->nheld - 1) %
				 SPRAY_PSHARED_HELD] = pg;
			pg = NULL;
		}
	}
	spin_unlock(&ps->lock);
	return pg;
}

/*
 * Keep @pg (order 0 or SPRAY_TMSG_ORDER, of this node; @held: a packet
 * still holds it) in this node's shared cache. BHs off. Return: false if
 * that is full.
 */
static bool spray_pshared_put(struct page *pg, unsigned int order, bool held)
{
	struct spray_pshared *ps = &spray_pshared[numa_mem_id()];
	bool kept = true;

	spin_lock(&ps->lock);
	if (held && ps->nheld < SPRAY_PSHARED_HELD)
		ps->held[(ps->held_head + ps->nheld++) % SPRAY_PSHARED_HELD] = pg;
	else if (!held && !order && ps->npages < SPRAY_PSHARED_PAGES)
		ps->pages[ps->npages++] = pg;
	else if (!held && order && ps->nchunks < SPRAY_PSHARED_CHUNKS)
		ps->chunks[ps->nchunks++] = pg;
	else
		kept = false;
	spin_unlock(&ps->lock);
	return kept;
}

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
	if (!pg && (!order || order == SPRAY_TMSG_ORDER))
		pg = spray_pshared_get(order);
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
	bool held;

	if ((order && order != SPRAY_TMSG_ORDER) ||
	    (!order && page_ref_count(pg) != 1) ||
	    page_is_pfmemalloc(pg) || page_to_nid(pg) != numa_mem_id())
		goto put;
	local_bh_disable();
	pc = this_cpu_ptr(&spray_pcache);
	held = order && page_ref_count(pg) != 1;
	if (held) {
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
	if (pg && spray_pshared_put(pg, order, held))
		pg = NULL;
	local_bh_enable();
	if (!pg)
		return;
put:
	put_page(pg);
}

/* Module load: a shared cache per NUMA node, empty. */
int spray_page_cache_init(void)
{
	int nid;

	spray_pshared = kvcalloc(nr_node_ids, sizeof(*spray_pshared),
				 GFP_KERNEL);
	if (!spray_pshared)
		return -ENOMEM;
	for (nid = 0; nid < nr_node_ids; nid++)
		spin_lock_init(&spray_pshared[nid].lock);
	return 0;
}

/* Module exit: no socket is left, the caches go back to the allocator. */
void spray_page_cache_drain(void)
{
	struct spray_pshared *ps;
	struct spray_pcache *pc;
	int cpu, nid;

	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(&spray_pcache, cpu);
		while (pc->npages)
			put_page(pc->pages[--pc->npages]);
		while (pc->nchunks)
			put_page(pc->chunks[--pc->nchunks]);
		while (pc->nheld)
			put_page(pc->held[--pc->nheld]);
	}
	for (nid = 0; nid < nr_node_ids; nid++) {
		ps = &spray_pshared[nid];
		while (ps->npages)
			put_page(ps->pages[--ps->npages]);
		while (ps->nchunks)
			put_page(ps->chunks[--ps->nchunks]);
		for (; ps->nheld; ps->nheld--) {
			put_page(ps->held[ps->held_head]);
			ps->held_head = (ps->held_head + 1) % SPRAY_PSHARED_HELD;
		}
	}
	kvfree(spray_pshared);
	spray_pshared = NULL;
}

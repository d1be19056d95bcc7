/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page allocator side of allocation tags: which tag a page was charged to
 * is kept in spare bits of page->flags, as a reference number, so a free
 * finds its tag without a search and without memory per page.
 *
 * Included only by the page allocator, the page movers (mm/migrate.c,
 * mm/khugepaged.c, swap), lib/codetag and its KUnit tests.
 */
#ifndef _LINUX_CODETAG_PGALLOC_TAG_H
#define _LINUX_CODETAG_PGALLOC_TAG_H

#include <linux/codetag/alloc_tag.h>
#include <linux/codetag/alloc_tag_ctx.h>
#include <linux/mm.h>
#include <linux/sched.h>

#ifdef CONFIG_MEM_ALLOC_PROFILING

/*
 * Reference numbers: 0 is "no tag"; 1..N are vmlinux's tags in section
 * order; module tags get a range above that when their module is loaded.
 */
#define ALLOC_TAG_REF_WIDTH	16
#define ALLOC_TAG_REF_PGOFF	NR_PAGEFLAGS
#define ALLOC_TAG_REF_MASK	(((1UL << ALLOC_TAG_REF_WIDTH) - 1) << ALLOC_TAG_REF_PGOFF)

/*
 * The top ALLOC_TAG_CTX_IDS numbers are those of contexts (alloc_tags.ctx),
 * ALLOC_TAG_CTX_FIRST_REF for context 1: a block of pages that took a
 * context keeps its number, through which a free finds both the context
 * and the site's tag.
 */
#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
#define ALLOC_TAG_CTX_FIRST_REF	(BIT(ALLOC_TAG_REF_WIDTH) - ALLOC_TAG_CTX_IDS)
#else
#define ALLOC_TAG_CTX_FIRST_REF	BIT(ALLOC_TAG_REF_WIDTH)
#endif

/* Tags are numbered below it. */
#define ALLOC_TAG_REF_LIMIT	ALLOC_TAG_CTX_FIRST_REF

static inline bool alloc_tag_ref_is_ctx(unsigned int ref)
{
	return IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_CONTEXT) &&
	       ref >= ALLOC_TAG_CTX_FIRST_REF;
}

/* Free bits between the page flags and the fields at the top of flags. */
#define ALLOC_TAG_REF_ROOM	(LRU_REFS_PGOFF - NR_PAGEFLAGS)

/*
 * Where a block's reference number is kept, a compile-time choice: spare
 * page->flags bits if the config leaves enough, otherwise the page's
 * page_ext (8 bytes more per page, allocated at boot). Kconfig selects
 * PAGE_EXTENSION wherever the flags may be short; a config short of both
 * does not charge pages. alloc_tag.c says which in the boot log.
 */
#define ALLOC_TAG_REF_FITS	(ALLOC_TAG_REF_ROOM >= ALLOC_TAG_REF_WIDTH)
#define pgalloc_tag_in_flags						\
	(ALLOC_TAG_REF_FITS && !IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_PAGE_EXT))
#define pgalloc_tag_in_page_ext						\
	(!pgalloc_tag_in_flags && IS_ENABLED(CONFIG_PAGE_EXTENSION))

extern struct page_ext_operations alloc_tag_page_ext_ops;
unsigned int alloc_tag_page_ext_ref(struct page *page);
bool alloc_tag_set_page_ext_ref(struct page *page, unsigned int ref);

/*
 * A tag keeps its reference number in the top 16 bits of its flags (type
 * flags 8-23): set at boot for built-in tags, numbered by their place in
 * the section from 1, and when the module is loaded for a module's; 0 if
 * it has none. The page allocator reads it with the flags it reads anyway.
 */
#define ALLOC_TAG_REF_SHIFT	16

/**
 * struct alloc_tag_module_refs - module tags by reference number
 * @first: the number of entry 0, the first after vmlinux's
 * @size: number of entries
 * @rcu: for freeing the table it replaces
 * @tags: entry i is the tag numbered @first + i, or NULL
 *
 * Replaced, never resized in place, when a module needs higher numbers;
 * readers (the page free path) use RCU.
 */
struct alloc_tag_module_refs {
	unsigned int first;
	unsigned int size;
	struct rcu_head rcu;
	struct alloc_tag *tags[];
};

extern struct alloc_tag_module_refs __rcu *alloc_tag_module_refs;

CODETAG_DECLARE_BOUNDS(alloc_tags);

static inline struct alloc_tag *alloc_tags_vmlinux(void)
{
	return (struct alloc_tag *)__codetag_start_alloc_tags;
}

static inline struct alloc_tag *alloc_tags_vmlinux_end(void)
{
	return (struct alloc_tag *)__codetag_stop_alloc_tags;
}

/* Not for fast paths: the section's ends are known only at link time. */
static inline unsigned int nr_alloc_tags_vmlinux(void)
{
	return alloc_tags_vmlinux_end() - alloc_tags_vmlinux();
}

/* Against the section's ends: against its count would be a division. */
static inline bool alloc_tag_in_vmlinux(const struct alloc_tag *tag)
{
	return tag >= alloc_tags_vmlinux() && tag < alloc_tags_vmlinux_end();
}

/* The reference number of the tag with @flags (read once by the caller). */
static inline unsigned int alloc_tag_ref(unsigned int flags)
{
	return flags >> ALLOC_TAG_REF_SHIFT;
}

/* The built-in tag numbered @ref, if it is one's: else past the section. */
static inline struct alloc_tag *alloc_tag_vmlinux_of_ref(unsigned int ref)
{
	return (struct alloc_tag *)((unsigned long)alloc_tags_vmlinux() +
				    (ref - 1UL) * sizeof(struct alloc_tag));
}

/* The module tag numbered @ref, if one is: numbers past vmlinux's only. */
static inline struct alloc_tag *alloc_tag_module_of_ref(unsigned int ref)
{
	struct alloc_tag_module_refs *t;
	struct alloc_tag *tag = NULL;

	/* The module stays while a page charged to it is live. */
	rcu_read_lock();
	t = rcu_dereference(alloc_tag_module_refs);
	if (t && ref - t->first < t->size)
		tag = READ_ONCE(t->tags[ref - t->first]);
	rcu_read_unlock();
	return tag;
}

/* The tag of a reference number that is not a context's. */
static inline struct alloc_tag *alloc_tag_of_ref(unsigned int ref)
{
	struct alloc_tag *tag = alloc_tag_vmlinux_of_ref(ref);

	if (!ref)
		return NULL;
	if (tag < alloc_tags_vmlinux_end())
		return tag;
	return alloc_tag_module_of_ref(ref);
}

static inline unsigned int page_alloc_tag_ref(struct page *page)
{
	if (pgalloc_tag_in_page_ext)
		return alloc_tag_page_ext_ref(page);
	if (!pgalloc_tag_in_flags)
		return 0;
	return (page->flags & ALLOC_TAG_REF_MASK) >> ALLOC_TAG_REF_PGOFF;
}

/*
 * The page is the allocator's alone here: plain stores suffice. False if
 * the page has nowhere to keep it (no page_ext yet, early in boot).
 */
static inline bool set_page_alloc_tag_ref(struct page *page, unsigned int ref)
{
	if (pgalloc_tag_in_page_ext)
		return alloc_tag_set_page_ext_ref(page, ref);
	if (!pgalloc_tag_in_flags)
		return false;
	page->flags = (page->flags & ~ALLOC_TAG_REF_MASK) |
		      ((unsigned long)ref << ALLOC_TAG_REF_PGOFF);
	return true;
}

/*
 * The same for a block just allocated: its reference is 0, as only blocks
 * that were charged have one, and pgalloc_tag_sub() clears it when it
 * finds it, so the bits need only be set, not cleared first.
 */
static inline bool set_new_page_alloc_tag_ref(struct page *page,
					      unsigned int ref)
{
	if (!pgalloc_tag_in_flags)
		return set_page_alloc_tag_ref(page, ref);
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG))
		WARN_ON_ONCE(page_alloc_tag_ref(page));
	page->flags |= (unsigned long)ref << ALLOC_TAG_REF_PGOFF;
	return true;
}

/*
 * A block of 2^order pages now keeps @tag's number: count it. @flags are
 * the tag's, as read before.
 */
static inline void pgalloc_tag_charged(struct alloc_tag *tag, unsigned int order,
				       unsigned int flags)
{
	alloc_tag_add(tag, PAGE_SIZE << order);
	/* Once per site: sites only ever gain the flag. */
	if (unlikely(!(flags & ALLOC_TAG_FLAG_PAGES)))
		WRITE_ONCE(tag->ct.flags,
			   READ_ONCE(tag->ct.flags) | ALLOC_TAG_FLAG_PAGES);
}

/*
 * Charge a new block of 2^order pages to the current task's tag, profiling
 * being on.
 */
static inline void __pgalloc_tag_add(struct page *page, unsigned int order)
{
	struct alloc_tag *tag = current->alloc_tag;
	unsigned int ref, flags, ctx;

	if (unlikely(!alloc_tag_is_real(tag)))
		return;
	/* Once: the per-CPU additions clobber memory. */
	flags = READ_ONCE(tag->ct.flags);
	ref = alloc_tag_ref(flags);
	if (!ref)
		return;
	/* The first block of a captured call keeps its context's number. */
	ctx = alloc_tag_ctx_take(tag, PAGE_SIZE << order);
	if (unlikely(ctx))
		ref = ALLOC_TAG_CTX_FIRST_REF + ctx - 1;
	if (!set_new_page_alloc_tag_ref(page, ref)) {
		if (ctx)
			alloc_tag_ctx_untake(ctx);
		return;
	}
	pgalloc_tag_charged(tag, order, flags);
}

/* Charge a new block of 2^order pages, if profiling is on. */
static inline void pgalloc_tag_add(struct page *page, unsigned int order)
{
	if (mem_alloc_profiling_enabled())
		__pgalloc_tag_add(page, order);
}

/*
 * Discharge a freed block. Tagged pages are discharged even after
 * profiling was switched off, so counters never drift.
 */
static inline void pgalloc_tag_sub(struct page *page, unsigned int order)
{
	struct alloc_tag *tag;
	unsigned int ref;

	if (!mem_alloc_tags_live())
		return;
	ref = page_alloc_tag_ref(page);
	if (!ref)
		return;
	set_page_alloc_tag_ref(page, 0);
	tag = alloc_tag_vmlinux_of_ref(ref);
	if (likely(tag < alloc_tags_vmlinux_end())) {
		alloc_tag_sub(tag, PAGE_SIZE << order);
		return;
	}
	if (alloc_tag_ref_is_ctx(ref)) {
		alloc_tag_ctx_page_discharge(ref, PAGE_SIZE << order);
		return;
	}
	tag = alloc_tag_module_of_ref(ref);
	if (tag)
		alloc_tag_sub(tag, PAGE_SIZE << order);
}

/*
 * Change the reference of a page others may be using: page->flags takes
 * atomic updates of its other bits at any time (lock_page() sets
 * PG_waiters), so the number is replaced with a compare-and-exchange.
 */
static inline void update_page_alloc_tag_ref(struct page *page,
					     unsigned int ref)
{
	unsigned long old, new;

	if (!pgalloc_tag_in_flags) {
		set_page_alloc_tag_ref(page, ref);
		return;
	}
	old = READ_ONCE(page->flags);
	do {
		new = (old & ~ALLOC_TAG_REF_MASK) |
		      ((unsigned long)ref << ALLOC_TAG_REF_PGOFF);
	} while (!try_cmpxchg(&page->flags, &old, new));
}

/*
 * A tagged block of 2^order pages becomes 2^order single pages, each of
 * which will be freed on its own: tag them all, one call each. A huge
 * page's tails may be locked and waited on already (see
 * __split_huge_page_tail()): their references are updated atomically.
 */
static inline void pgalloc_tag_split(struct page *page, unsigned int order)
{
	unsigned int ref = mem_alloc_tags_live() ? page_alloc_tag_ref(page) : 0;
	struct alloc_tag *tag;
	unsigned int i;

	if (!ref || !order)
		return;
	/* One call, so that the callers' fast paths need no frame for it. */
	if (alloc_tag_ref_is_ctx(ref)) {
		alloc_tag_ctx_page_split(page, order, ref);
		return;
	}
	tag = alloc_tag_of_ref(ref);
	if (!tag)
		return;
	for (i = 1; i < (1U << order); i++)
		update_page_alloc_tag_ref(page + i, ref);
	this_cpu_add(tag->counters->calls, (1U << order) - 1);
}

/**
 * pgalloc_tag_migrate() - keep a charge with data that moves
 * @new: the folio the data moved to
 * @old: the folio it moved from, of the same size, to be freed
 *
 * Migration, compaction and NUMA balancing copy a folio into one the mover
 * allocated, then free the original. The charge stays with the data: @new
 * takes @old's reference number, and @old takes @new's, so that freeing
 * @old discharges the site that allocated @new for the mover, if any.
 * Counters do not move: the two folios are of one size.
 *
 * Context: both folios locked, @old still mapped or cached where others
 * can see it.
 */
static inline void pgalloc_tag_migrate(struct folio *new, struct folio *old)
{
	unsigned int new_ref, old_ref;

	if (!mem_alloc_tags_live())
		return;
	new_ref = page_alloc_tag_ref(&new->page);
	old_ref = page_alloc_tag_ref(&old->page);
	if (new_ref == old_ref)
		return;
	update_page_alloc_tag_ref(&new->page, old_ref);
	update_page_alloc_tag_ref(&old->page, new_ref);
}

void pgalloc_tag_adopt(struct page *page, unsigned int order,
		       struct page *from);

void alloc_tag_swapon(unsigned int type, unsigned long nr_slots);
void alloc_tag_swapoff(unsigned int type);
void __alloc_tag_swap_out(struct folio *folio, swp_entry_t entry);
void __alloc_tag_swap_in(struct folio *folio, swp_entry_t entry);

/*
 * A folio goes to swap, or comes back from it: its data keeps its site's
 * charge across. One static branch until tags are first live.
 */
static inline void alloc_tag_swap_out(struct folio *folio, swp_entry_t entry)
{
	if (mem_alloc_tags_live())
		__alloc_tag_swap_out(folio, entry);
}

static inline void alloc_tag_swap_in(struct folio *folio, swp_entry_t entry)
{
	if (mem_alloc_tags_live())
		__alloc_tag_swap_in(folio, entry);
}

/*
 * The head of a non-compound block keeps a reference while its tail is
 * freed piecemeal: the head will later be freed alone, as one page.
 */
static inline void pgalloc_tag_sub_tail(struct page *page, unsigned int order)
{
	unsigned int ref = mem_alloc_tags_live() ? page_alloc_tag_ref(page) : 0;
	struct alloc_tag *tag;

	if (!ref || !order)
		return;
	/* No call: __free_pages() would need a stack frame for it. */
	if (alloc_tag_ref_is_ctx(ref))
		tag = READ_ONCE(alloc_tag_ctx_tags[ref - ALLOC_TAG_CTX_FIRST_REF]);
	else
		tag = alloc_tag_of_ref(ref);
	if (tag)
		this_cpu_sub(tag->counters->bytes,
			     (PAGE_SIZE << order) - PAGE_SIZE);
}

#else /* !CONFIG_MEM_ALLOC_PROFILING */

static inline void __pgalloc_tag_add(struct page *page, unsigned int order) {}
static inline void pgalloc_tag_add(struct page *page, unsigned int order) {}
static inline void pgalloc_tag_sub(struct page *page, unsigned int order) {}
static inline void pgalloc_tag_split(struct page *page, unsigned int order) {}
static inline void pgalloc_tag_sub_tail(struct page *page, unsigned int order) {}
static inline void pgalloc_tag_migrate(struct folio *new, struct folio *old) {}
static inline void pgalloc_tag_adopt(struct page *page, unsigned int order,
				     struct page *from) {}
static inline void alloc_tag_swapon(unsigned int type, unsigned long nr_slots) {}
static inline void alloc_tag_swapoff(unsigned int type) {}
static inline void alloc_tag_swap_out(struct folio *folio, swp_entry_t entry) {}
static inline void alloc_tag_swap_in(struct folio *folio, swp_entry_t entry) {}

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_CODETAG_PGALLOC_TAG_H */

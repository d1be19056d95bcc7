/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocator side of allocation tags for slab objects and per-CPU
 * allocations: each allocation keeps a pointer to the tag it was charged
 * to, so that freeing it finds the tag without a search.
 *
 * - A slab object keeps it in its slab's vector of struct slabobj_ext,
 *   outside the object (mm/slab.h).
 * - A per-CPU allocation keeps it in an xarray indexed by its address
 *   (mm/percpu.c).
 *
 * Pages keep theirs in page->flags: see <linux/codetag/pgalloc_tag.h>. A
 * vmalloc area's pages are charged to the caller of vmalloc().
 * Included only by mm/slab.h and mm/percpu.c.
 */
#ifndef _LINUX_CODETAG_ALLOC_TAG_HOOKS_H
#define _LINUX_CODETAG_ALLOC_TAG_HOOKS_H

#include <linux/codetag/alloc_tag.h>
#include <linux/codetag/alloc_tag_ctx.h>
#include <linux/sched.h>

#ifdef CONFIG_MEM_ALLOC_PROFILING

void alloc_tag_report_untagged(unsigned long ip);

/* The tag to record for an allocation being made by the current task. */
static __always_inline struct alloc_tag *alloc_tag_for_new(unsigned long ip)
{
	struct alloc_tag *tag = current->alloc_tag;

	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) && !tag) {
		if (mem_alloc_profiling_enabled())
			alloc_tag_report_untagged(ip);
		tag = ALLOC_TAG_NONE;
	}
	return tag;
}

/*
 * Charge a new allocation of @bytes to the current task's tag; return the
 * tag for the allocation to keep (NULL or ALLOC_TAG_NONE if it has none).
 */
static __always_inline struct alloc_tag *
alloc_tag_charge(size_t bytes, unsigned long ip)
{
	struct alloc_tag *tag = alloc_tag_for_new(ip);

	if (likely(alloc_tag_is_real(tag)))
		alloc_tag_add(tag, bytes);
	return tag;
}

/* Discharge a freed allocation of @bytes, given the tag it kept. */
static __always_inline void alloc_tag_discharge(struct alloc_tag *tag,
						size_t bytes)
{
	if (likely(alloc_tag_is_real(tag)))
		alloc_tag_sub(tag, bytes);
}

/* Per-CPU allocations whose tag could not be recorded (mm/percpu.c). */
unsigned long pcpu_alloc_tags_failures(void);

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_CODETAG_ALLOC_TAG_HOOKS_H */

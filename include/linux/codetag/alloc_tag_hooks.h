/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocator side of allocation tags for slab objects, vmalloc areas and
 * per-CPU allocations: each allocation keeps a pointer to the tag it was
 * charged to, so that freeing it finds the tag without a search.
 *
 * - A slab object keeps it in a slot after the object (and after SLUB's
 *   debug metadata), at kmem_cache::alloc_tag_offset.
 * - A vmalloc area keeps it in its struct vm_struct.
 * - A per-CPU allocation keeps it in a slot after the allocation, in the
 *   first possible CPU's copy only.
 *
 * Pages keep theirs in page->flags: see <linux/codetag/pgalloc_tag.h>.
 * Included only by mm/slab.h, mm/vmalloc.c and mm/percpu.c.
 */
#ifndef _LINUX_CODETAG_ALLOC_TAG_HOOKS_H
#define _LINUX_CODETAG_ALLOC_TAG_HOOKS_H

#include <linux/codetag/alloc_tag.h>
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include <asm/unaligned.h>

#ifdef CONFIG_MEM_ALLOC_PROFILING

/*
 * Stored for an allocation made with no tag while
 * MEM_ALLOC_PROFILING_DEBUG is on, so that a free finding no tag at all
 * can tell a lost reference from an untagged allocation.
 */
#define ALLOC_TAG_NONE		((struct alloc_tag *)1UL)

/* Bytes each slab object and each per-CPU allocation carry for the tag. */
#define ALLOC_TAG_SLAB_SLOT	sizeof(struct alloc_tag *)
#define ALLOC_TAG_PERCPU_SLOT	sizeof(struct alloc_tag *)

void alloc_tag_report_untagged(unsigned long ip);
void alloc_tag_report_missing(unsigned long ip);

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

/* NULL and ALLOC_TAG_NONE in one compare. */
static __always_inline bool alloc_tag_is_real(const struct alloc_tag *tag)
{
	return (unsigned long)tag > (unsigned long)ALLOC_TAG_NONE;
}

/*
 * The slab hooks are macros: struct kmem_cache is complete only inside
 * mm/. They take the slot's offset, kmem_cache::alloc_tag_offset, and the
 * size an object is charged, kmem_cache::object_size.
 *
 * The slot lies outside the object, where KASAN keeps the memory poisoned:
 * only the allocator itself may touch it, as SLUB does its own metadata.
 */
static __always_inline struct alloc_tag *
slab_tag_read(void *obj, unsigned int offset)
{
	struct alloc_tag *tag;

	kasan_disable_current();
	tag = __get_unaligned_t(struct alloc_tag *,
				(char *)kasan_reset_tag(obj) + offset);
	kasan_enable_current();
	return tag;
}

static __always_inline void slab_tag_write(void *obj, unsigned int offset,
					   struct alloc_tag *tag)
{
	kasan_disable_current();
	__put_unaligned_t(struct alloc_tag *, tag,
			  (char *)kasan_reset_tag(obj) + offset);
	kasan_enable_current();
}

/*
 * A new slab: slab memory comes from the page allocator uncleared, and a
 * free looks at the slot of every object, including objects allocated
 * before profiling was first switched on.
 */
#define alloc_tag_slab_init(s, obj)	slab_tag_write(obj, (s)->alloc_tag_offset, NULL)

/* Charge a new object to the current task's tag. */
static __always_inline void __alloc_tag_slab_alloc(void *obj,
						   unsigned int offset,
						   unsigned int size,
						   unsigned long ip)
{
	struct alloc_tag *tag;

	if (!mem_alloc_tags_live() || unlikely(!obj) || is_kfence_address(obj))
		return;
	tag = alloc_tag_for_new(ip);
	slab_tag_write(obj, offset, tag);
	if (alloc_tag_is_real(tag))
		alloc_tag_add(tag, size);
}

#define alloc_tag_slab_alloc(s, obj, ip) do {				\
	struct kmem_cache *__s = (s);					\
									\
	__alloc_tag_slab_alloc(obj, __s->alloc_tag_offset, __s->object_size, ip); \
} while (0)

/*
 * Discharge @cnt objects about to be freed. The slot is left as it is: the
 * next allocation of the object overwrites it.
 */
static __always_inline void __alloc_tag_slab_free(void **p, int cnt,
						  unsigned int offset,
						  unsigned int size,
						  unsigned long ip)
{
	int i;

	if (!mem_alloc_tags_live())
		return;
	for (i = 0; i < cnt; i++) {
		struct alloc_tag *tag;

		if (is_kfence_address(p[i]))
			continue;
		tag = slab_tag_read(p[i], offset);
		if (alloc_tag_is_real(tag))
			alloc_tag_sub(tag, size);
		else if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) && !tag)
			alloc_tag_report_missing(ip);
	}
}

#define alloc_tag_slab_free(s, p, cnt, ip) do {				\
	struct kmem_cache *__s = (s);					\
									\
	__alloc_tag_slab_free(p, cnt, __s->alloc_tag_offset, __s->object_size, ip); \
} while (0)

/* A vmalloc area is charged its mapped size; its vm_struct starts zeroed. */
static inline void alloc_tag_vm_add(struct vm_struct *area, unsigned long ip)
{
	struct alloc_tag *tag;

	if (!mem_alloc_tags_live())
		return;
	tag = alloc_tag_for_new(ip);
	area->alloc_tag = tag;
	if (alloc_tag_is_real(tag))
		alloc_tag_add(tag, (size_t)area->nr_pages << PAGE_SHIFT);
}

static inline void alloc_tag_vm_sub(struct vm_struct *area)
{
	if (alloc_tag_is_real(area->alloc_tag))
		alloc_tag_sub(area->alloc_tag,
			      (size_t)area->nr_pages << PAGE_SHIFT);
}

/*
 * A per-CPU allocation of @size bytes per CPU (slot excluded) is charged
 * @size times the number of possible CPUs. @slot is the slot in the first
 * possible CPU's copy, zeroed by the per-CPU allocator.
 */
static inline void alloc_tag_percpu_add(void *slot, size_t size,
					unsigned long ip)
{
	struct alloc_tag *tag;

	if (!mem_alloc_tags_live())
		return;
	tag = alloc_tag_for_new(ip);
	__put_unaligned_t(struct alloc_tag *, tag, slot);
	if (alloc_tag_is_real(tag))
		alloc_tag_add(tag, size * num_possible_cpus());
}

static inline void alloc_tag_percpu_sub(void *slot, size_t size)
{
	struct alloc_tag *tag = __get_unaligned_t(struct alloc_tag *, slot);

	if (alloc_tag_is_real(tag))
		alloc_tag_sub(tag, size * num_possible_cpus());
}

#else /* !CONFIG_MEM_ALLOC_PROFILING */

#define ALLOC_TAG_SLAB_SLOT	0
#define ALLOC_TAG_PERCPU_SLOT	0

#define alloc_tag_slab_init(s, obj)		do { } while (0)
#define alloc_tag_slab_alloc(s, obj, ip)	do { } while (0)
#define alloc_tag_slab_free(s, p, cnt, ip)	do { } while (0)
static inline void alloc_tag_vm_add(struct vm_struct *area, unsigned long ip) {}
static inline void alloc_tag_vm_sub(struct vm_struct *area) {}
static inline void alloc_tag_percpu_add(void *slot, size_t size,
					unsigned long ip) {}
static inline void alloc_tag_percpu_sub(void *slot, size_t size) {}

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_CODETAG_ALLOC_TAG_HOOKS_H */

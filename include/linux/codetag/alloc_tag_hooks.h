/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocator side of allocation tags for slab objects, vmalloc areas and
 * per-CPU allocations: each allocation keeps a pointer to the tag it was
 * charged to, so that freeing it finds the tag without a search.
 *
 * - A slab object keeps it in a slot after the object (and after SLUB's
 *   debug metadata), or in a vector at the end of its slab.
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
#include <linux/codetag/alloc_tag_ctx.h>
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include <asm/unaligned.h>

#ifdef CONFIG_MEM_ALLOC_PROFILING

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

/*
 * Charge an allocation made with context number @ref in current->alloc_tag
 * (alloc_tags.ctx): the first of the call keeps the number, and its
 * context once the call returns; any other keeps the site's tag. No call,
 * no lock: the allocators' fast paths around it stay as they are.
 */
static __always_inline struct alloc_tag *
alloc_tag_ctx_charge(struct alloc_tag *ref, size_t bytes)
{
	unsigned long id = (unsigned long)ref - ALLOC_TAG_CTX_FIRST_ID;
	struct alloc_tag *tag = READ_ONCE(alloc_tag_ctx_tags[id]);

	alloc_tag_add(tag, bytes);
	return cmpxchg(&alloc_tag_ctx_bytes[id], 0, bytes) ? tag : ref;
}

/*
 * Charge a new allocation of @bytes to the current task's tag; return the
 * tag, or the context number, for the allocation to keep.
 */
static __always_inline struct alloc_tag *
alloc_tag_charge(size_t bytes, unsigned long ip)
{
	struct alloc_tag *tag = alloc_tag_for_new(ip);

	if (likely(alloc_tag_is_real(tag)))
		alloc_tag_add(tag, bytes);
	else if (alloc_tag_is_ctx(tag))
		tag = alloc_tag_ctx_charge(tag, bytes);
	return tag;
}

/* Discharge a freed allocation of @bytes, given what it kept. */
static __always_inline void alloc_tag_discharge(struct alloc_tag *tag,
						size_t bytes)
{
	if (likely(alloc_tag_is_real(tag)))
		alloc_tag_sub(tag, bytes);
	else if (alloc_tag_is_ctx(tag))
		alloc_tag_ctx_discharge(tag, bytes);
}

/*
 * The slab hooks are macros: struct kmem_cache and struct slab are
 * complete only inside mm/.
 *
 * An object's tag is kept in a slot after the object, at
 * kmem_cache::alloc_tag_offset, unless the cache's alignment would make
 * that slot cost a lot more than itself (see slab_tag_in_object()): then
 * the offset is 0 and the slots form a vector at the end of each slab, one
 * per object, the first object's last.
 *
 * Where the cache's slabs are single pages and its stride a power of two
 * (kmalloc-128 and kmalloc-256 are), kmem_cache::alloc_tag_shift is set and
 * the object's address alone locates its entry: the page's end less one
 * slot per object up to it. Other vectors need the slab, and the object's
 * index in it.
 *
 * @sl, the object's slab, may be NULL: it is then found from the object,
 * and only for a vector in a slab of more than one page.
 */
#define alloc_tag_slab_slot(s, sl, obj) ({				\
	struct kmem_cache *__ts = (s);					\
	void *__to = kasan_reset_tag(obj);				\
	const struct slab *__tsl;					\
									\
	likely(__ts->alloc_tag_offset) ? __to + __ts->alloc_tag_offset : \
	likely(__ts->alloc_tag_shift) ? alloc_tag_page_slot(__to,	\
					__ts->alloc_tag_shift) :	\
		(__tsl = (sl) ?: virt_to_slab(__to),			\
		 slab_address(__tsl) + slab_size(__tsl) - ALLOC_TAG_SLAB_SLOT * \
		 (1 + __obj_to_index(__ts, slab_address(__tsl), __to)));	\
})

/*
 * The entry of the object at @obj in the vector at the end of its page:
 * with a stride of 2^(@shift + 3) bytes, the object's offset in the page
 * shifted right by @shift is its index times the slot's size.
 */
static __always_inline void *alloc_tag_page_slot(void *obj, unsigned int shift)
{
	unsigned long addr = (unsigned long)obj;

	return (void *)((addr | ~PAGE_MASK) + 1 - ALLOC_TAG_SLAB_SLOT -
			((addr & ~PAGE_MASK) >> shift));
}

/* What a cache's slabs set aside at their end for the tag vector. */
#define alloc_tag_slab_vector(s)					\
	((s)->alloc_tag_offset ? 0 : ALLOC_TAG_SLAB_SLOT)

/* Bytes of a cache's objects that are theirs: cache merging looks here. */
#define slab_tag_room(s) ({						\
	struct kmem_cache *__rs = (s);					\
									\
	__rs->alloc_tag_offset ?: __rs->size;				\
})

/*
 * Whether a cache of @size bytes aligned to @align keeps tags in a slot
 * after each object, or in a vector at the end of each slab, which costs
 * the slot's 8 bytes per object and no alignment. A slot, unless it would
 * make each object's stride
 *
 * - more than ALLOC_TAG_PAGE_VECTOR_GROWTH bytes larger where the
 *   vector's entries can be found from the object's address alone
 *   (single-page slabs, a power of two stride up to
 *   ALLOC_TAG_PAGE_VECTOR_MAX): kmalloc-128 and kmalloc-256, whose slots
 *   would double their objects, and which hold most of the memory slots
 *   would waste. Finding the entry costs an allocate+free pair 19
 *   instructions more than a slot while profiling is on (make bench;
 *   sending kmalloc-16 to kmalloc-64 to page vectors too would save
 *   another 4 kB in its guest, for that price on their rows);
 * - or more than ALLOC_TAG_SLAB_MAX_GROWTH bytes larger (naturally aligned
 *   caches of 512 bytes and more): finding the slab and the object's index
 *   in it costs a pair about 76 instructions more.
 */
#define ALLOC_TAG_PAGE_VECTOR_GROWTH	64
#define ALLOC_TAG_PAGE_VECTOR_MAX	(PAGE_SIZE / 16)
#define ALLOC_TAG_SLAB_MAX_GROWTH	256

/* Whether a vector at the end of single-page slabs suits a stride. */
static inline bool slab_tag_page_vector_fits(unsigned int stride)
{
	return is_power_of_2(stride) && stride <= ALLOC_TAG_PAGE_VECTOR_MAX;
}

static inline bool slab_tag_in_object(unsigned int size, unsigned int align)
{
	unsigned int stride = ALIGN(size, align);
	unsigned int growth = ALIGN(size + ALLOC_TAG_SLAB_SLOT, align) - stride;

	if (growth > ALLOC_TAG_PAGE_VECTOR_GROWTH &&
	    slab_tag_page_vector_fits(stride))
		return false;
	return growth <= ALLOC_TAG_SLAB_MAX_GROWTH;
}

/*
 * For a cache without slots, of stride @size: the shift for
 * alloc_tag_page_slot() if its slabs can be single pages (SLUB's minimum
 * order allows it; it then holds at least 15 objects), else 0. Objects
 * must start at the page's start (@red_left_pad 0).
 */
static inline unsigned int slab_tag_page_shift(unsigned int size,
					       unsigned int red_left_pad,
					       unsigned int min_order)
{
	if (!slab_tag_page_vector_fits(size) || red_left_pad || min_order)
		return 0;
	return ilog2(size) - ilog2(ALLOC_TAG_SLAB_SLOT);
}

/* The stride a cache of @size bytes aligned to @align gets, slot included. */
static inline int slab_tag_stride(unsigned int size, unsigned int align)
{
	return slab_tag_in_object(size, align) ?
	       ALIGN(size + ALLOC_TAG_SLAB_SLOT, align) : ALIGN(size, align);
}

/*
 * Slots lie outside the objects, where KASAN keeps the memory poisoned:
 * only the allocator itself may touch them, as SLUB does its own metadata.
 */
static __always_inline struct alloc_tag *slab_tag_read(void *slot)
{
	struct alloc_tag *tag;

	kasan_disable_current();
	tag = __get_unaligned_t(struct alloc_tag *, slot);
	kasan_enable_current();
	return tag;
}

static __always_inline void slab_tag_write(void *slot, struct alloc_tag *tag)
{
	kasan_disable_current();
	__put_unaligned_t(struct alloc_tag *, tag, slot);
	kasan_enable_current();
}

/*
 * A new slab: slab memory comes from the page allocator uncleared, and a
 * free looks at the slot of every object, including objects allocated
 * before profiling was first switched on.
 */
#define alloc_tag_slab_init(s, obj)					\
	slab_tag_write(alloc_tag_slab_slot(s, NULL, obj), NULL)

/*
 * Where the object at @obj keeps its tag: its slab's slot for it, or for an
 * object KFENCE served from its own pages, KFENCE's metadata of it.
 */
#define alloc_tag_object_slot(s, sl, obj) ({				\
	void *__oo = (obj);						\
									\
	unlikely(is_kfence_address(__oo)) ? kfence_alloc_tag_slot(__oo) : \
		alloc_tag_slab_slot(s, sl, __oo);			\
})

/* Charge a new object to the current task's tag. */
#define alloc_tag_slab_alloc(s, obj, ip) do {				\
	struct kmem_cache *__as = (s);					\
	void *__ao = (obj);						\
									\
	if (mem_alloc_tags_live() && likely(__ao))			\
		slab_tag_write(alloc_tag_object_slot(__as, NULL, __ao),	\
			       alloc_tag_charge(__as->object_size, ip)); \
} while (0)

/*
 * Discharge an object about to be freed. The slot is left as it is: the
 * next allocation of the object overwrites it.
 */
static __always_inline void __alloc_tag_slab_free(void *slot,
						  unsigned int size,
						  unsigned long ip)
{
	struct alloc_tag *tag = slab_tag_read(slot);

	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_DEBUG) && !tag)
		alloc_tag_report_missing(ip);
	alloc_tag_discharge(tag, size);
}

/* @cnt objects of slab @sl, in the array @p, about to be freed. */
#define alloc_tag_slab_free(s, sl, p, cnt, ip) do {			\
	struct kmem_cache *__fs = (s);					\
	void **__fp = (p);						\
	int __fi, __fn = (cnt);						\
									\
	if (mem_alloc_tags_live())					\
		for (__fi = 0; __fi < __fn; __fi++)			\
			__alloc_tag_slab_free(alloc_tag_object_slot(__fs, sl, \
								     __fp[__fi]), \
					      __fs->object_size, ip);	\
} while (0)

/*
 * A vmalloc area is charged its mapped size; its vm_struct starts zeroed.
 * The tag shares its place with the physical address of ioremap() areas,
 * so that struct vm_struct stays 64 bytes: 72 would make every vmalloc()
 * allocate and clear a kmalloc-96 object for it.
 */
static inline void alloc_tag_vm_add(struct vm_struct *area, unsigned long ip)
{
	if (mem_alloc_tags_live())
		area->alloc_tag = alloc_tag_charge((size_t)area->nr_pages <<
						   PAGE_SHIFT, ip);
}

static inline void alloc_tag_vm_sub(struct vm_struct *area)
{
	if (mem_alloc_tags_live() && (area->flags & VM_ALLOC))
		alloc_tag_discharge(area->alloc_tag,
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
	if (mem_alloc_tags_live())
		__put_unaligned_t(struct alloc_tag *,
				  alloc_tag_charge(size * num_possible_cpus(), ip),
				  slot);
}

static inline void alloc_tag_percpu_sub(void *slot, size_t size)
{
	alloc_tag_discharge(__get_unaligned_t(struct alloc_tag *, slot),
			    size * num_possible_cpus());
}

#else /* !CONFIG_MEM_ALLOC_PROFILING */

#define ALLOC_TAG_SLAB_SLOT	0
#define ALLOC_TAG_PERCPU_SLOT	0

#define alloc_tag_slab_vector(s)		0
#define slab_tag_room(s)			((s)->size)

static inline int slab_tag_stride(unsigned int size, unsigned int align)
{
	return ALIGN(size, align);
}

#define alloc_tag_slab_init(s, obj)		do { } while (0)
#define alloc_tag_slab_alloc(s, obj, ip)	do { } while (0)
#define alloc_tag_slab_free(s, sl, p, cnt, ip)	do { } while (0)
static inline void alloc_tag_vm_add(struct vm_struct *area, unsigned long ip) {}
static inline void alloc_tag_vm_sub(struct vm_struct *area) {}
static inline void alloc_tag_percpu_add(void *slot, size_t size,
					unsigned long ip) {}
static inline void alloc_tag_percpu_sub(void *slot, size_t size) {}

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#endif /* _LINUX_CODETAG_ALLOC_TAG_HOOKS_H */

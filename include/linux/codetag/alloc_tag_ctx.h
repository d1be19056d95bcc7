/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation contexts: for the allocation sites enabled in
 * /sys/kernel/debug/alloc_tags.ctx, who made each live allocation, when,
 * and from which stack. See Documentation/codetag/alloc_tag.rst.
 *
 * A captured call's first allocation keeps a context number (1 to
 * ALLOC_TAG_CTX_IDS): a slab object in a table keyed by its address, so
 * that no object's struct slabobj_ext needs room for one; a per-CPU
 * allocation in the xarray of tags; a block of pages as a page reference
 * number of its own (<linux/codetag/pgalloc_tag.h>).
 */
#ifndef _LINUX_CODETAG_ALLOC_TAG_CTX_H
#define _LINUX_CODETAG_ALLOC_TAG_CTX_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/kconfig.h>
#include <linux/sched.h>
#include <linux/types.h>

struct alloc_tag;
struct codetag;
struct page;

/* Number of contexts that can exist at once, live or being captured. */
#define ALLOC_TAG_CTX_IDS		4096

/*
 * Buckets of the table of slab objects that keep a number: four per
 * number, so that most frees find their bucket empty.
 */
#define ALLOC_TAG_CTX_SLAB_HASH_BITS	14

/* Frames kept of each context's stack. */
#define ALLOC_TAG_CTX_STACK_DEPTH	16

/**
 * struct alloc_tag_ctx_info - one captured allocation, as reported
 * @site: the allocation call site
 * @size: bytes charged for the allocation
 * @ts: local_clock() at the allocation call: printk's timestamp, in ns
 * @pid: the allocating task
 * @tgid: its thread group
 * @comm: its command name
 * @nr_entries: number of frames in @entries
 * @entries: return addresses, innermost first, from the function that
 *	made the allocation call
 */
struct alloc_tag_ctx_info {
	const struct codetag *site;
	size_t size;
	u64 ts;
	pid_t pid;
	pid_t tgid;
	char comm[16];
	unsigned int nr_entries;
	unsigned long entries[ALLOC_TAG_CTX_STACK_DEPTH];
};

/*
 * The allocators' slow paths for allocations that keep a context number:
 * never called without CONFIG_MEM_ALLOC_PROFILING_CONTEXT.
 */
void alloc_tag_ctx_discharge(unsigned int nr, size_t bytes);
bool __alloc_tag_ctx_slab_free(const void *obj, size_t bytes);
void alloc_tag_ctx_page_discharge(unsigned int ref, size_t bytes);
void alloc_tag_ctx_page_split(struct page *page, unsigned int order,
			      unsigned int ref);

/*
 * Indexed by context number - 1: the site's tag of each number in use,
 * set before the number is handed out and cleared after the last
 * allocation that kept it is freed; and what the allocation that took the
 * number during its call was charged, 0 while none has. The allocators
 * read and set them without a call (alloc_tag_ctx_take()).
 */
extern struct alloc_tag **alloc_tag_ctx_tags;
extern unsigned long *alloc_tag_ctx_bytes;

/*
 * The table of slab objects that keep a number, by hash of the object's
 * address: the first number of each bucket's chain, 0 if it has none.
 * Frees read it without a call or a lock (alloc_tag_ctx_slab_free()).
 */
extern u16 *alloc_tag_ctx_slab_buckets;
DECLARE_STATIC_KEY_FALSE(alloc_tag_ctx_slab_key);

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT

/**
 * alloc_tag_ctx_take() - the context number a new allocation keeps
 * @tag: the tag the allocation was charged to
 * @bytes: what it was charged
 *
 * While an allocation call at a site enabled in alloc_tags.ctx is being
 * captured (alloc_tag_ctx_begin()), the first allocation charged to that
 * site during the call takes its context: the allocator keeps the number
 * (a slab object with alloc_tag_ctx_slab_keep()), and hands it back on
 * free (alloc_tag_ctx_discharge(), alloc_tag_ctx_slab_free()).
 * Allocations of other sites made meanwhile (nested calls, interrupts)
 * take nothing. No call, no lock.
 *
 * Context: any.
 * Return: the context number, or 0.
 */
static __always_inline unsigned int alloc_tag_ctx_take(struct alloc_tag *tag,
						       size_t bytes)
{
	unsigned int nr = current->alloc_ctx;

	if (likely(!nr) || READ_ONCE(alloc_tag_ctx_tags[nr - 1]) != tag)
		return 0;
	return cmpxchg(&alloc_tag_ctx_bytes[nr - 1], 0, bytes) ? 0 : nr;
}

/* Give back a number taken by an allocation that could not keep it. */
static inline void alloc_tag_ctx_untake(unsigned int nr)
{
	WRITE_ONCE(alloc_tag_ctx_bytes[nr - 1], 0);
}

void alloc_tag_ctx_slab_keep(unsigned int nr, const void *obj);

/* The bucket of slab object @obj in the table of numbers. */
static __always_inline u16 *alloc_tag_ctx_slab_bucket(const void *obj)
{
	return &alloc_tag_ctx_slab_buckets[hash_ptr(obj,
					   ALLOC_TAG_CTX_SLAB_HASH_BITS)];
}

/**
 * alloc_tag_ctx_slab_free() - discharge a freed slab object that kept a number
 * @obj: the object
 * @bytes: what it was charged
 *
 * Frees of slab objects pay one static branch until a site is first
 * enabled in alloc_tags.ctx, and from then on a look at the object's
 * bucket; only an object whose bucket is not empty goes further.
 *
 * Context: any but NMI.
 * Return: true if @obj kept a number and is now discharged: its tag must
 * not be discharged again.
 */
static __always_inline bool alloc_tag_ctx_slab_free(const void *obj,
						    size_t bytes)
{
	if (!static_branch_unlikely(&alloc_tag_ctx_slab_key))
		return false;
	if (!READ_ONCE(*alloc_tag_ctx_slab_bucket(obj)))
		return false;
	return __alloc_tag_ctx_slab_free(obj, bytes);
}

int alloc_tag_ctx_control(const char *cmds);
int alloc_tag_ctx_set_max(unsigned int max);
unsigned int alloc_tag_ctx_get_max(void);
unsigned long alloc_tag_ctx_not_captured(const struct codetag *site);
int alloc_tag_ctx_for_each(void (*fn)(const struct alloc_tag_ctx_info *info,
				      void *arg), void *arg);

#else /* !CONFIG_MEM_ALLOC_PROFILING_CONTEXT */

static inline unsigned int alloc_tag_ctx_take(struct alloc_tag *tag,
					      size_t bytes)
{
	return 0;
}

static inline void alloc_tag_ctx_untake(unsigned int nr) {}

static inline void alloc_tag_ctx_slab_keep(unsigned int nr, const void *obj)
{
}

static inline bool alloc_tag_ctx_slab_free(const void *obj, size_t bytes)
{
	return false;
}

static inline int alloc_tag_ctx_control(const char *cmds)
{
	return -ENODEV;
}

#endif /* CONFIG_MEM_ALLOC_PROFILING_CONTEXT */

#endif /* _LINUX_CODETAG_ALLOC_TAG_CTX_H */

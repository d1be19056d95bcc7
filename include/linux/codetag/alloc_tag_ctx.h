/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation contexts: for the allocation sites enabled in
 * /sys/kernel/debug/alloc_tags.ctx, who made each live allocation, when,
 * and from which stack. See Documentation/codetag/alloc_tag.rst.
 *
 * A captured call's first allocation keeps a context number (1 to
 * ALLOC_TAG_CTX_IDS) next to its tag: a slab object in its struct
 * slabobj_ext, a per-CPU allocation in the xarray of tags, a block of
 * pages as a page reference number of its own (<linux/codetag/pgalloc_tag.h>).
 */
#ifndef _LINUX_CODETAG_ALLOC_TAG_CTX_H
#define _LINUX_CODETAG_ALLOC_TAG_CTX_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kconfig.h>
#include <linux/sched.h>
#include <linux/types.h>

struct alloc_tag;
struct codetag;
struct page;

/* Number of contexts that can exist at once, live or being captured. */
#define ALLOC_TAG_CTX_IDS		4096

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

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT

/**
 * alloc_tag_ctx_take() - the context number a new allocation keeps
 * @tag: the tag the allocation was charged to
 * @bytes: what it was charged
 *
 * While an allocation call at a site enabled in alloc_tags.ctx is being
 * captured (alloc_tag_ctx_begin()), the first allocation charged to that
 * site during the call takes its context: the allocator keeps the number
 * next to the tag, and hands it back on free (alloc_tag_ctx_discharge()).
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

static inline int alloc_tag_ctx_control(const char *cmds)
{
	return -ENODEV;
}

#endif /* CONFIG_MEM_ALLOC_PROFILING_CONTEXT */

#endif /* _LINUX_CODETAG_ALLOC_TAG_CTX_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation contexts: for the allocation sites enabled in
 * /sys/kernel/debug/alloc_tags.ctx, who made each live allocation, when,
 * and from which stack. See Documentation/codetag/alloc_tag.rst.
 *
 * An allocation of an enabled site keeps, where it would keep its tag, a
 * context number instead: a small integer that no tag address can be, so
 * the allocators' fast paths tell the two apart with the compare they
 * already make between a tag and "no tag".
 */
#ifndef _LINUX_CODETAG_ALLOC_TAG_CTX_H
#define _LINUX_CODETAG_ALLOC_TAG_CTX_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kconfig.h>
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
 * Stored for an allocation made with no tag while
 * MEM_ALLOC_PROFILING_DEBUG is on, so that a free finding no tag at all
 * can tell a lost reference from an untagged allocation.
 */
#define ALLOC_TAG_NONE			((struct alloc_tag *)1UL)

/* Slot values, and current->alloc_tag values, that are context numbers. */
#define ALLOC_TAG_CTX_FIRST_ID		2UL
#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
#define ALLOC_TAG_CTX_LAST_ID		(ALLOC_TAG_CTX_FIRST_ID + ALLOC_TAG_CTX_IDS - 1)
#else
#define ALLOC_TAG_CTX_LAST_ID		1UL
#endif

/*
 * What an allocation keeps is a tag, unless it is NULL, ALLOC_TAG_NONE or
 * a context number: all three in one compare, the one the fast paths make
 * anyway.
 */
static __always_inline bool alloc_tag_is_real(const struct alloc_tag *tag)
{
	return (unsigned long)tag > ALLOC_TAG_CTX_LAST_ID;
}

/* Not a tag but a context number: the allocation site captures. */
static __always_inline bool alloc_tag_is_ctx(const struct alloc_tag *tag)
{
	return IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_CONTEXT) &&
	       (unsigned long)tag > (unsigned long)ALLOC_TAG_NONE &&
	       !alloc_tag_is_real(tag);
}

/*
 * The allocators' slow paths, for context numbers only: never called
 * without CONFIG_MEM_ALLOC_PROFILING_CONTEXT.
 */
void alloc_tag_ctx_discharge(struct alloc_tag *ref, size_t bytes);
void alloc_tag_ctx_charge_page(struct page *page, unsigned int order,
			       struct alloc_tag *ref);
void alloc_tag_ctx_page_discharge(unsigned int ref, size_t bytes);
void alloc_tag_ctx_page_split(struct page *page, unsigned int order,
			      unsigned int ref);

/*
 * The site's tag of each context number in use, for the page allocator's
 * paths that must not make a call: set before the number is handed out,
 * cleared after the last allocation that kept it is freed.
 */
extern struct alloc_tag **alloc_tag_ctx_tags;

/*
 * What the allocation that took each context number during its call was
 * charged, 0 while none has: the allocators' paths set it without a call
 * (alloc_tag_ctx_charge()), alloc_tag_ctx_end() links the context.
 */
extern unsigned long *alloc_tag_ctx_bytes;

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT

bool alloc_tag_ctx_begin(unsigned long ip);
void alloc_tag_ctx_end(void);

int alloc_tag_ctx_control(const char *cmds);
int alloc_tag_ctx_set_max(unsigned int max);
unsigned int alloc_tag_ctx_get_max(void);
unsigned long alloc_tag_ctx_not_captured(const struct codetag *site);
int alloc_tag_ctx_for_each(void (*fn)(const struct alloc_tag_ctx_info *info,
				      void *arg), void *arg);

void memory_fault_set_capture(bool (*wants)(const struct codetag *ct));

#else /* !CONFIG_MEM_ALLOC_PROFILING_CONTEXT */

static inline bool alloc_tag_ctx_begin(unsigned long ip)
{
	return false;
}

static inline void alloc_tag_ctx_end(void) {}

static inline int alloc_tag_ctx_control(const char *cmds)
{
	return -ENODEV;
}

#endif /* CONFIG_MEM_ALLOC_PROFILING_CONTEXT */

#endif /* _LINUX_CODETAG_ALLOC_TAG_CTX_H */

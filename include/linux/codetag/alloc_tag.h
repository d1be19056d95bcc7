/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation tags: every allocation call site has a tag that counts the
 * bytes and calls it has live. See Documentation/codetag/alloc_tag.rst.
 *
 * This header is included by <linux/gfp.h>: it holds only what call sites
 * and the allocators' fast paths need.
 */
#ifndef _LINUX_CODETAG_ALLOC_TAG_H
#define _LINUX_CODETAG_ALLOC_TAG_H

#include <linux/codetag/codetag.h>
#include <linux/codetag/dynamic_fault.h>
#include <linux/irqflags.h>	/* generic this_cpu ops disable irqs */
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/types.h>

/**
 * struct alloc_tag_counters - what one CPU has charged to a tag
 * @bytes: bytes allocated minus bytes freed
 * @calls: allocations minus frees
 *
 * One CPU's figures may go negative (allocated here, freed there); only
 * their sum over all CPUs means anything.
 */
struct alloc_tag_counters {
	u64 bytes;
	u64 calls;
};

/**
 * struct alloc_tag - one allocation call site
 * @ct: its identity
 * @counters: per-CPU counters: static for built-in code, allocated when
 *	the module is loaded for modules
 * @ctx_key: on while the site is enabled in alloc_tags.ctx: the one
 *	static branch through which the site's calls capture contexts
 */
struct alloc_tag {
	struct codetag ct;
	struct alloc_tag_counters __percpu *counters;
#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
	struct static_key_false ctx_key;
#endif
};

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
#define ALLOC_TAG_CTX_KEY_INIT	.ctx_key = STATIC_KEY_FALSE_INIT,
#else
#define ALLOC_TAG_CTX_KEY_INIT
#endif

/*
 * Kept for an allocation made with no tag while MEM_ALLOC_PROFILING_DEBUG
 * is on, so that a free finding no tag at all can tell a lost reference
 * from an untagged allocation.
 */
#define ALLOC_TAG_NONE		((struct alloc_tag *)1UL)

/* What an allocation keeps is a tag: neither NULL nor ALLOC_TAG_NONE. */
static __always_inline bool alloc_tag_is_real(const struct alloc_tag *tag)
{
	return (unsigned long)tag > (unsigned long)ALLOC_TAG_NONE;
}

/* The site has charged pages from the page allocator. */
#define ALLOC_TAG_FLAG_PAGES	CODETAG_TYPE_FLAG(0)

#ifdef CONFIG_MEM_ALLOC_PROFILING

DECLARE_STATIC_KEY_MAYBE(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
			 mem_alloc_profiling_key);

/**
 * mem_alloc_profiling_enabled() - is allocation profiling switched on
 *
 * Context: any. It is a static branch, one patched jump or no-op at each
 * hook and nothing else, so that a kernel with profiling compiled in but
 * switched off pays one instruction per hook.
 * Return: true if allocations are being charged to their call sites.
 */
static __always_inline bool mem_alloc_profiling_enabled(void)
{
	return static_branch_maybe(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
				   &mem_alloc_profiling_key);
}

DECLARE_STATIC_KEY_MAYBE(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
			 mem_alloc_tags_live_key);

/**
 * mem_alloc_tags_live() - may allocations carry tags
 *
 * Context: any. Switched on with profiling and never off again: an object
 * or page charged while profiling was on must be discharged when it is
 * freed, whenever that is. Until profiling is first switched on, frees
 * pay one static branch and look at nothing.
 * Return: true if frees must look for the tag of what they free.
 */
static __always_inline bool mem_alloc_tags_live(void)
{
	return static_branch_maybe(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
				   &mem_alloc_tags_live_key);
}

DECLARE_STATIC_KEY_MAYBE(CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT,
			 alloc_sites_key);

/**
 * alloc_sites_hooked() - may an allocation call site have work to do
 *
 * Context: any. The one static branch each alloc_hooks() site tests
 * before anything else: on while profiling is on and while any memory
 * fault point is armed, so that a site pays one patched no-op while
 * neither is, not one per application.
 * Return: true if sites must look at their own switches.
 */
static __always_inline bool alloc_sites_hooked(void)
{
	return static_branch_unlikely(&alloc_sites_key);
}

/* A memory fault point of a site goes on or off (lib/codetag/dynamic_fault.c). */
static inline void alloc_sites_get(void)
{
	static_branch_inc(&alloc_sites_key);
}

static inline void alloc_sites_put(void)
{
	static_branch_dec(&alloc_sites_key);
}

#ifdef MODULE
/*
 * Module per-CPU space is small and fixed: module tags get their counters
 * when the module is loaded, before any of its code runs.
 */
#define DEFINE_ALLOC_TAG(_name)						\
	CODETAG_DEFINE(struct alloc_tag, _name, alloc_tags,		\
		       ALLOC_TAG_CTX_KEY_INIT)
#else
#define DEFINE_ALLOC_TAG(_name)						\
	static DEFINE_PER_CPU(struct alloc_tag_counters, _name##_counters); \
	CODETAG_DEFINE(struct alloc_tag, _name, alloc_tags,		\
		       .counters = &_name##_counters,			\
		       ALLOC_TAG_CTX_KEY_INIT)
#endif

struct alloc_tag_counters alloc_tag_read(const struct alloc_tag *tag);
struct alloc_tag_counters alloc_tag_read_raw(const struct alloc_tag *tag);

/**
 * alloc_tag_add() - charge an allocation to a tag
 * @tag: the call site
 * @bytes: what the allocator handed out
 *
 * Two per-CPU additions; safe in any context.
 */
static __always_inline void alloc_tag_add(struct alloc_tag *tag, size_t bytes)
{
	/* Once: each per-CPU operation clobbers memory, tag included. */
	struct alloc_tag_counters __percpu *c = tag->counters;

	this_cpu_add(c->bytes, bytes);
	this_cpu_inc(c->calls);
}

/**
 * alloc_tag_sub() - discharge a freed allocation
 * @tag: the call site it was charged to
 * @bytes: what alloc_tag_add() was given for it
 */
static __always_inline void alloc_tag_sub(struct alloc_tag *tag, size_t bytes)
{
	struct alloc_tag_counters __percpu *c = tag->counters;

	this_cpu_sub(c->bytes, bytes);
	this_cpu_dec(c->calls);
}

#define DEFINE_ALLOC_HOOKS_TAG(_name)	DEFINE_ALLOC_TAG(_name)

void __init alloc_tag_boot_init(void);
void alloc_tag_show_mem(void);

#else /* !CONFIG_MEM_ALLOC_PROFILING */

static inline bool mem_alloc_profiling_enabled(void)
{
	return false;
}

static inline bool mem_alloc_tags_live(void)
{
	return false;
}

static inline void alloc_tag_boot_init(void) {}
static inline void alloc_tag_show_mem(void) {}
static inline void alloc_sites_get(void) {}
static inline void alloc_sites_put(void) {}

#define DEFINE_ALLOC_HOOKS_TAG(_name)

#endif /* CONFIG_MEM_ALLOC_PROFILING */

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
void alloc_tag_ctx_begin(struct alloc_tag *tag);
void alloc_tag_ctx_end(unsigned int old);
#endif

/*
 * What alloc_hooks() changes for the call and puts back after it: the
 * task's allocation tag, its pending memory fault, and - at a site
 * enabled in alloc_tags.ctx - the context it captures. Only the branch
 * that fills it in reads it, so alloc_hooks() declares it
 * __uninitialized: with CONFIG_INIT_STACK_ALL_ZERO, every allocation
 * call would otherwise clear it, hooks on or off.
 */
struct alloc_hooks_saved {
	struct alloc_tag *tag;
	struct alloc_tag *old_tag;
	unsigned long fault;
#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
	bool ctx_began;
	unsigned int old_ctx;
#endif
};

/*
 * At a site enabled in alloc_tags.ctx, capture the context of the call
 * (alloc_tag_ctx_begin()); a site that is not pays its key's static
 * branch. Macros, as below.
 */
#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
#define alloc_hooks_ctx_enter(_saved, _tag) do {			\
	struct alloc_hooks_saved *__ahc = (_saved);			\
	struct alloc_tag *__aht = (_tag);				\
									\
	__ahc->ctx_began = static_branch_unlikely(&__aht->ctx_key);	\
	if (__ahc->ctx_began) {						\
		__ahc->old_ctx = current->alloc_ctx;			\
		alloc_tag_ctx_begin(__aht);				\
	}								\
} while (0)

#define alloc_hooks_ctx_exit(_saved) do {				\
	struct alloc_hooks_saved *__ahc = (_saved);			\
									\
	if (__ahc->ctx_began)						\
		alloc_tag_ctx_end(__ahc->old_ctx);			\
} while (0)
#else
#define alloc_hooks_ctx_enter(_saved, _tag)	do { } while (0)
#define alloc_hooks_ctx_exit(_saved)		do { } while (0)
#endif

/*
 * The site's tag becomes the task's while profiling is on (and the task's
 * stays what it was while it is off); a site enabled in alloc_tags.ctx
 * captures the call's context; its memory fault point, if on, becomes
 * pending (memory_fault_enter()). Macros: current is not known here
 * (alloc_tag_save() comes from <linux/sched.h>).
 */
#ifdef CONFIG_MEM_ALLOC_PROFILING
#define alloc_hooks_enter(_saved, _tag, _mf) do {			\
	struct alloc_hooks_saved *__ahs = (_saved);			\
	struct alloc_tag *__ah_site = (_tag);				\
									\
	__ahs->tag = mem_alloc_profiling_enabled() ? __ah_site :	\
		     current->alloc_tag;				\
	__ahs->old_tag = alloc_tag_save(__ahs->tag);			\
	alloc_hooks_ctx_enter(__ahs, __ah_site);			\
	__ahs->fault = memory_fault_enter(_mf);				\
} while (0)

#define alloc_hooks_exit(_saved) do {					\
	struct alloc_hooks_saved *__ahs = (_saved);			\
									\
	memory_fault_exit(__ahs->fault);				\
	alloc_hooks_ctx_exit(__ahs);					\
	alloc_tag_restore(__ahs->tag, __ahs->old_tag);			\
} while (0)
#else
#define alloc_hooks_enter(_saved, _tag, _mf)				\
	((_saved)->fault = memory_fault_enter(_mf))
#define alloc_hooks_exit(_saved)	memory_fault_exit((_saved)->fault)
#endif

/*
 * Whether a site defined by alloc_hooks() has anything to do: with
 * profiling compiled in, one static branch for every site, on while
 * profiling is on or any memory fault point is (alloc_sites_hooked());
 * with fault points alone, the site's own point's.
 */
#if defined(CONFIG_MEM_ALLOC_PROFILING)
#define alloc_hooks_on(_mf)		alloc_sites_hooked()
#define alloc_hooks_tag(_tag)		(_tag)
#else
#define alloc_hooks_on(_mf)		memory_fault_point_on(_mf)
#define alloc_hooks_tag(_tag)		NULL
#endif

/**
 * alloc_hooks() - charge the allocations a call makes to this line
 * @...: the call of a ``_noprof`` allocator
 *
 * Makes this line's tag the current task's allocation tag for the call
 * and restores the previous one after it, so that a helper written as
 * ``foo_noprof()`` and wrapped as ``#define foo(...)
 * alloc_hooks(foo_noprof(__VA_ARGS__))`` charges its caller's line.
 * The line also gets a ``memory`` fault point (see dynamic_fault.rst).
 *
 * The call is written once. Before and after it, the result of one
 * static branch (alloc_hooks_on()) tells whether there is anything to
 * do: while profiling is off and no memory fault point is on, that is
 * all a line pays. Otherwise the task's tag is this line's while
 * profiling is on, a line enabled in alloc_tags.ctx captures the context
 * of the call (one more static branch, its tag's, for a line that is
 * not), and the fault point, if on, is made pending for the call.
 */
#if defined(CONFIG_MEM_ALLOC_PROFILING) || defined(CONFIG_CODETAG_DYNAMIC_FAULT)
#define alloc_hooks(...) ({						\
	DEFINE_ALLOC_HOOKS_TAG(_alloc_tag);				\
	DEFINE_MEMORY_FAULT_POINT(_mf);					\
	struct alloc_hooks_saved _ah_saved __uninitialized;		\
	bool _ah_on = alloc_hooks_on(&_mf);				\
	typeof(__VA_ARGS__) _ah_res;					\
									\
	if (_ah_on)							\
		alloc_hooks_enter(&_ah_saved,				\
				  alloc_hooks_tag(&_alloc_tag),		\
				  memory_fault_point(&_mf));		\
	_ah_res = __VA_ARGS__;						\
	if (_ah_on)							\
		alloc_hooks_exit(&_ah_saved);				\
	_ah_res;							\
})
#else
#define alloc_hooks(...)	(__VA_ARGS__)
#endif

#endif /* _LINUX_CODETAG_ALLOC_TAG_H */

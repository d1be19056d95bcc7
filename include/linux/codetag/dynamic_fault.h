/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dynamic fault injection: fault points at call sites, armed and disarmed
 * at run time through /sys/kernel/debug/dynamic_faults. Every allocation
 * wrapper carries one "memory" fault point at its caller's line.
 * See Documentation/codetag/dynamic_fault.rst.
 *
 * This header is included by <linux/gfp.h> through alloc_tag.h: it holds
 * only what call sites and the allocators' entry points need.
 */
#ifndef _LINUX_CODETAG_DYNAMIC_FAULT_H
#define _LINUX_CODETAG_DYNAMIC_FAULT_H

#include <linux/atomic.h>
#include <linux/codetag/codetag.h>
#include <linux/errno.h>
#include <linux/jump_label.h>
#include <linux/types.h>

/* TASK_COMM_LEN, which <linux/gfp.h> cannot reach for <linux/sched.h>. */
#define DYNAMIC_FAULT_COMM_LEN	16

/**
 * struct dynamic_fault_policy - when an armed fault point fires
 * @frequency: fire on every @frequency-th hit; 0 or 1 for every hit
 * @probability: then fire with this probability, in percent
 * @flags: DYNAMIC_FAULT_* bits
 * @times: stop after this many faults, if DYNAMIC_FAULT_TIMES is set
 * @pid: only in the task with this pid, if not 0
 * @comm: only in tasks with this command name, if not empty
 */
struct dynamic_fault_policy {
	unsigned int frequency;
	u8 probability;
	u8 flags;
	unsigned int times;
	pid_t pid;
	char comm[DYNAMIC_FAULT_COMM_LEN];
};

#define DYNAMIC_FAULT_ENABLED	BIT(0)	/* armed */
#define DYNAMIC_FAULT_TIMES	BIT(1)	/* @times caps the faults */
#define DYNAMIC_FAULT_VERBOSE	BIT(2)	/* log each fault with a stack */

/**
 * struct dynamic_fault_state - what an armed fault point looks at
 * @policy: what the last arming command asked for
 * @remaining: faults left before a DYNAMIC_FAULT_TIMES cap is reached
 * @hits: arrivals of a matching task since the point was last armed
 * @faults: faults injected since the point was last armed
 *
 * Allocated when the point is first armed and kept from then on, so that
 * the counters of its last arming stay readable: most points are never
 * armed, and every allocation call site has one.
 */
struct dynamic_fault_state {
	struct dynamic_fault_policy policy;
	atomic_t remaining;
	atomic_long_t hits;
	atomic_long_t faults;
};

/**
 * struct dynamic_fault - one fault point
 * @ct: its identity
 * @class: hierarchical class, ``memory`` or e.g. ``myfs:meta:read``
 * @armed: on while the point is armed: the only thing a call site tests
 * @state: its policy and counters, NULL until it is first armed
 *
 * Only @armed is looked at while the point is disarmed.
 */
struct dynamic_fault {
	struct codetag ct;
	const char *class;
	struct static_key_false armed;
	struct dynamic_fault_state *state;
};

#ifdef CONFIG_CODETAG_DYNAMIC_FAULT

/* Defines a fault point of class @_class named @_name at this line. */
#define DEFINE_DYNAMIC_FAULT(_name, _class)				\
	CODETAG_DEFINE(struct dynamic_fault, _name, dynamic_faults,	\
		       .class = _class, .armed = STATIC_KEY_FALSE_INIT)

bool __dynamic_fault(struct dynamic_fault *df);
bool __memory_fault_pending(gfp_t gfp);

/* The point's static branch, then its slow path out of line. */
static __always_inline bool dynamic_fault_branch(struct dynamic_fault *df)
{
	return static_branch_unlikely(&df->armed) && __dynamic_fault(df);
}

/**
 * dynamic_fault() - should a fault be injected here
 * @_class: the fault point's class, a string literal
 *
 * Defines a fault point at this line. The caller takes its error path
 * when this returns true, as if what it was about to do had failed.
 *
 * Context: any. While the point is disarmed it costs one static branch,
 * a patched no-op with JUMP_LABEL; armed, it counts the hit and applies
 * the policy it was armed with, out of line and without taking a lock.
 * Return: true if a fault is to be injected.
 */
#define dynamic_fault(_class) ({					\
	DEFINE_DYNAMIC_FAULT(_df, _class);				\
									\
	dynamic_fault_branch(&_df);					\
})

unsigned long memory_fault_push(struct dynamic_fault *df);
void memory_fault_pop(unsigned long old);

/* Defines the memory fault point of an allocation call site. */
#define DEFINE_MEMORY_FAULT_POINT(_name)	DEFINE_DYNAMIC_FAULT(_name, "memory")
#define memory_fault_point(_mf)			(_mf)
#define memory_fault_point_on(_mf)		static_branch_unlikely(&(_mf)->armed)

/* What memory_fault_enter() returns when the point is off. */
#define MEMORY_FAULT_NOT_ENTERED		(~0UL)

/**
 * memory_fault_enter() - the memory fault point of an allocation call
 * @mf: the call site's point
 *
 * Part of alloc_hooks(), before the call. While the point is on, it is
 * made pending for the call, and the allocator's entry point
 * (memory_fault_pending()) decides, knowing the gfp flags, and fails the
 * allocation exactly as a real shortage would. Called after alloc_hooks()
 * set the site's tag, so that the point's slow path sees it as the
 * current task's: the same static branch is the site's switch for
 * capturing allocation contexts (alloc_tags.ctx).
 *
 * Return: what memory_fault_exit() must be given after the call.
 */
static __always_inline unsigned long memory_fault_enter(struct dynamic_fault *mf)
{
	if (memory_fault_point_on(mf))
		return memory_fault_push(mf);
	return MEMORY_FAULT_NOT_ENTERED;
}

static __always_inline void memory_fault_exit(unsigned long old)
{
	if (old != MEMORY_FAULT_NOT_ENTERED)
		memory_fault_pop(old);
}

DECLARE_STATIC_KEY_FALSE(memory_faults_armed_key);

/**
 * memory_fault_pending() - should this allocation fail
 * @gfp: its flags
 *
 * Called by each allocator at its entry, before it allocates anything
 * for the call. Takes the fault pending from memory_fault_enter(), if any
 * and if it was set in this context (an interrupt's allocation does not
 * take the interrupted task's), so that the allocations the allocator
 * makes for itself are not failed for it.
 *
 * Context: any. One static branch while no memory fault point is armed.
 * Return: true if the allocation must fail. Never for __GFP_NOFAIL.
 */
static __always_inline bool memory_fault_pending(gfp_t gfp)
{
	return static_branch_unlikely(&memory_faults_armed_key) &&
	       __memory_fault_pending(gfp);
}

int dynamic_fault_control(const char *cmds);

#else /* !CONFIG_CODETAG_DYNAMIC_FAULT */

#define dynamic_fault(_class)		false
#define DEFINE_MEMORY_FAULT_POINT(_name)
#define memory_fault_point(_mf)		NULL

static inline unsigned long memory_fault_enter(struct dynamic_fault *mf)
{
	return 0;
}

static inline void memory_fault_exit(unsigned long old) {}

static inline bool memory_fault_pending(gfp_t gfp)
{
	return false;
}

static inline int dynamic_fault_control(const char *cmds)
{
	return -ENODEV;
}

#endif /* CONFIG_CODETAG_DYNAMIC_FAULT */

/**
 * memory_fault() - should this memory allocation fail
 *
 * Context: any; the same as dynamic_fault("memory"), for allocators that
 * have no alloc_hooks() wrapper and for code that reserves memory some
 * other way.
 * Return: true if a fault is to be injected.
 */
#define memory_fault()	dynamic_fault("memory")

#endif /* _LINUX_CODETAG_DYNAMIC_FAULT_H */

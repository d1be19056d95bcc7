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
#include <linux/stringify.h>
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
	static struct dynamic_fault _name __used __aligned(8)		\
		__section("dynamic_faults") = {	/* as CODETAG_DEFINE() */ \
		.ct = CODE_TAG_INIT,					\
		.class = _class,					\
		.armed = STATIC_KEY_FALSE_INIT,				\
	}

bool __dynamic_fault(struct dynamic_fault *df);
bool __memory_fault_pending(gfp_t gfp);

/*
 * On x86-64 the slow paths of the fault points are called through thunks
 * that save every register a C function may change, but the result's
 * (lib/codetag/dynamic_fault.c). To the compiler the call then clobbers
 * nothing it keeps, so that a disarmed point costs its static branch and
 * nothing else: no register saved for the call in the prologue, no frame
 * in a leaf function, and the allocators around memory_fault_pending()
 * keep the registers they had. The argument goes in %rax, where the result
 * comes back: an argument register would have to be loaded again where
 * the paths join, as it usually holds the function's own first argument.
 * The C functions return a bool: only %al is theirs.
 */
#if defined(CONFIG_X86_64) && !defined(CONFIG_UML)
#include <asm/asm.h>
#include <asm/nops.h>

/**
 * __dynamic_fault_thunk() - __dynamic_fault() for a fault point's slow path
 *
 * Context: any. Takes the fault point in %rax, returns __dynamic_fault()'s
 * answer in %al and changes no other register. It cannot be called from
 * C: only from the stub of dynamic_fault_branch() or through
 * dynamic_fault_slow(), as dynamic_fault() does, in modules too.
 */
void __dynamic_fault_thunk(void);
/* The same for __memory_fault_pending(), with the gfp flags in %rax. */
void __memory_fault_pending_thunk(void);

#define dynamic_fault_thunk_call(_thunk, _arg) ({			\
	unsigned long _rax = (__force unsigned long)(_arg);		\
									\
	asm volatile("call " #_thunk					\
		     : "+a" (_rax), ASM_CALL_CONSTRAINT			\
		     : : "memory");					\
	(bool)(u8)_rax;							\
})
#define dynamic_fault_slow(df)						\
	dynamic_fault_thunk_call(__dynamic_fault_thunk, df)
#define memory_fault_pending_slow(gfp)					\
	dynamic_fault_thunk_call(__memory_fault_pending_thunk, gfp)

#if defined(CONFIG_JUMP_LABEL) && !defined(CONFIG_FRAME_POINTER)
/*
 * A fault point's static branch and its slow path in one asm goto. The
 * branch is a jump label whose target is a stub out of line: the stub
 * calls __dynamic_fault_thunk(), restores %rax and goes on after the
 * branch, or to the label of the fault. To the compiler the whole is one
 * statement that uses no register and has two exits, so no slow path
 * joins the fast path: GCC would make the code around a join keep a copy
 * of a register for the slow path, an instruction the fast path would
 * pay too. The stub has a section of its own, so that a point in cold
 * code is not written into the middle of it. objtool follows the jump
 * label into the stub as part of the function, so stack traces taken in
 * __dynamic_fault() unwind through it to the function's caller; the
 * stub's symbol (dynamic_fault_stub_N, no type, so that objtool does not
 * take it for a function) names its frame. Without frame pointers only:
 * a call from inline asm must come after the frame is set up.
 */
static __always_inline bool dynamic_fault_branch(struct dynamic_fault *df)
{
	asm goto("1:\t.byte " __stringify(BYTES_NOP5) "\n"
		 "3:\n\t"
		 ".pushsection .text.unlikely.dynamic_fault, \"ax\"\n"
		 "2:\n"
		 "dynamic_fault_stub_%=:\n\t"
		 "push %%rax\n\t"
		 "mov %1, %%rax\n\t"
		 "call __dynamic_fault_thunk\n\t"
		 "test %%al, %%al\n\t"
		 "pop %%rax\n\t"
		 "jnz %l[fault]\n\t"
		 "jmp 3b\n\t"
		 "int3\n\t"
		 ".popsection\n\t"
		 ".pushsection __jump_table, \"aw\"\n\t"
		 _ASM_ALIGN "\n\t"
		 ".long 1b - ., 2b - .\n\t"
		 _ASM_PTR "%c0 - .\n\t"
		 ".popsection\n\t"
		 : : "i" (&df->armed.key), "i" (df) : : fault);
	return false;
fault:
	return true;
}

#define HAVE_DYNAMIC_FAULT_BRANCH
#endif /* CONFIG_JUMP_LABEL && !CONFIG_FRAME_POINTER */
#else
#define dynamic_fault_slow(df)		__dynamic_fault(df)
#define memory_fault_pending_slow(gfp)	__memory_fault_pending(gfp)
#endif

#ifndef HAVE_DYNAMIC_FAULT_BRANCH
/* The point's static branch, then its slow path. */
static __always_inline bool dynamic_fault_branch(struct dynamic_fault *df)
{
	return static_branch_unlikely(&df->armed) && dynamic_fault_slow(df);
}
#endif

/**
 * dynamic_fault() - should a fault be injected here
 * @_class: the fault point's class, a string literal
 *
 * Defines a fault point at this line. The caller takes its error path
 * when this returns true, as if what it was about to do had failed.
 *
 * Context: any. While the point is disarmed it costs one static branch,
 * a patched no-op with JUMP_LABEL, and on x86-64 nothing else, not even
 * a register (see dynamic_fault_branch()); armed, it counts the hit and
 * applies the policy it was armed with, without taking a lock.
 * Return: true if a fault is to be injected.
 */
#define dynamic_fault(_class) ({					\
	DEFINE_DYNAMIC_FAULT(_df, _class);				\
									\
	dynamic_fault_branch(&_df);					\
})

unsigned long memory_fault_push(struct dynamic_fault *df);
unsigned long memory_fault_pop(unsigned long old, unsigned long res);

/* Defines the memory fault point of an allocation call site. */
#define DEFINE_MEMORY_FAULT_POINT(_name)	DEFINE_DYNAMIC_FAULT(_name, "memory")

/**
 * memory_fault_hooks() - a memory fault point for an allocation call
 * @_fast: the call as made while the point is disarmed
 * @_slow: the call as made while it is armed: memory_fault_call() of it,
 *	inside the same wrappers as @_fast
 *
 * Part of alloc_hooks(). The point is ``_mf``, which the caller defines
 * once per site with DEFINE_MEMORY_FAULT_POINT(_mf): alloc_hooks()
 * expands the call more than once per site, and a point defined with it
 * would be defined more than once. Disarmed, the call costs one static
 * branch more and nothing else, and the code of @_fast is what it would be
 * without the point.
 */
#define memory_fault_hooks(_fast, _slow) ({				\
	typeof(_fast) _mf_res;						\
									\
	if (static_branch_unlikely(&_mf.armed))				\
		_mf_res = (_slow);					\
	else								\
		_mf_res = (_fast);					\
	_mf_res;							\
})

/**
 * memory_fault_call() - an allocation call at an armed memory fault point
 * @...: the call of a ``_noprof`` allocator
 *
 * The point ``_mf`` is made pending for the call, and the allocator's
 * entry point (memory_fault_pending()) decides, knowing the gfp flags,
 * and fails the allocation exactly as a real shortage would. Made after
 * alloc_hooks() set the site's tag, so that the point's slow path sees it
 * as the current task's: the same static branch is the site's switch
 * for capturing allocation contexts (alloc_tags.ctx). The call's result
 * goes through memory_fault_pop(), so that it comes back in the register
 * the disarmed paths leave it in, and the code they join is the same.
 */
#define memory_fault_call(...) ({					\
	unsigned long _mf_old = memory_fault_push(&_mf);		\
									\
	(typeof(__VA_ARGS__))memory_fault_pop(_mf_old,			\
		(__force unsigned long)(__VA_ARGS__));			\
})

DECLARE_STATIC_KEY_FALSE(memory_faults_armed_key);

/**
 * memory_fault_pending() - should this allocation fail
 * @gfp: its flags
 *
 * Called by each allocator at its entry, before it allocates anything
 * for the call. Takes the fault pending from memory_fault_hooks(), if any
 * and if it was set in this context (an interrupt's allocation does not
 * take the interrupted task's), so that the allocations the allocator
 * makes for itself are not failed for it.
 *
 * Context: any. One static branch while no memory fault point is armed.
 * Return: true if the allocation must fail. Never for __GFP_NOFAIL.
 */
static __always_inline bool memory_fault_pending(gfp_t gfp)
{
	if (!static_branch_unlikely(&memory_faults_armed_key))
		return false;
	return memory_fault_pending_slow(gfp);
}

int dynamic_fault_control(const char *cmds);

#else /* !CONFIG_CODETAG_DYNAMIC_FAULT */

#define dynamic_fault(_class)		false
#define DEFINE_MEMORY_FAULT_POINT(_name)
#define memory_fault_hooks(_fast, _slow)	(_fast)
#define memory_fault_call(...)			(__VA_ARGS__)

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

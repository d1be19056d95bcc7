// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation microbenchmark for "make bench".
 *
 * Each row times a tight loop of allocate+free pairs and prints the cost of
 * one pair in guest nanoseconds. The harness runs the guest under
 * "qemu -icount shift=0,sleep=off" with one vCPU, where one guest
 * nanosecond is one instruction: the figures are instruction counts and
 * repeat exactly from run to run, whatever the host is doing.
 *
 * Results go to the kernel log as "codetag_bench: <row> <ns per pair>".
 * The last two rows time a function call with and without a disarmed
 * dynamic_fault() point in it.
 *
 * The module also leaves /sys/kernel/debug/codetag_bench_errno, whose
 * write(2) fails at once and silently: with -ERR(EINVAL) when the text
 * written starts with 'u' (unique), with a plain -EINVAL otherwise. The
 * guest times it from userspace, for what a unique code costs at system
 * call exit, with and without the errcode_syscall_exit event enabled.
 */

/*
 * The module also builds against upstream Linux (make bench's 6.12
 * columns), which has the allocation rows only, and against the 6.12
 * series, which has the allocation, context and time_stats rows.
 */
#ifdef CONFIG_CODETAG
#include <linux/codetag/dynamic_fault.h>
#include <linux/codetag/err.h>
#endif
#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
#include <linux/codetag/alloc_tag_ctx.h>
#endif
#ifdef CONFIG_CODETAG_TIME_STATS
#include <linux/codetag/time_stats.h>
#endif
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static unsigned int loops = 20000;
module_param(loops, uint, 0400);
MODULE_PARM_DESC(loops, "allocate+free pairs per measurement");

static struct kmem_cache *bench_cache;
/* /sys/kernel/debug/codetag_bench_errno, where CONFIG_CODETAG has ERR() */
static struct dentry *errno_file;

/*
 * Every function that times something, or is timed, is __bench_fn (noipa):
 * called only from the __init function, which is __cold, GCC would infer
 * that it is cold too and compile it for size, laying out the allocation
 * calls in its loops as no hot kernel code has them.
 */
#define __bench_fn	__attribute__((__noipa__))

/* Time @loops pairs of @alloc and @free; @free sees the object as p. */
#define TIME_PAIRS(alloc, free) ({					\
	u64 __t0 = ktime_get_ns();					\
	unsigned int __i;						\
									\
	for (__i = 0; __i < loops; __i++) {				\
		void *p = (alloc);					\
									\
		OPTIMIZER_HIDE_VAR(p);					\
		free;							\
	}								\
	ktime_get_ns() - __t0;						\
})

static void report(const char *name, u64 best)
{
	pr_info("codetag_bench: row %s %llu.%02llu\n", name, div_u64(best, loops),
		div_u64((best % loops) * 100, loops));
}

/* The cheapest of three runs: the first may still be filling slabs. */
#define BENCH_ROW(name, alloc, free) do {				\
	u64 best = U64_MAX;						\
	int run;							\
									\
	for (run = 0; run < 3; run++) {					\
		preempt_disable();					\
		best = min(best, TIME_PAIRS(alloc, free));		\
		preempt_enable();					\
	}								\
	report(name, best);						\
} while (0)

/* Constant sizes, as most callers write them: kmalloc() picks the cache inline. */
#define KMALLOC_ROW(size)						\
	BENCH_ROW("kmalloc-" #size, kmalloc(size, GFP_KERNEL), kfree(p))

static noinline __bench_fn void bench_kmalloc(void)
{
	KMALLOC_ROW(8);   KMALLOC_ROW(16);  KMALLOC_ROW(24);  KMALLOC_ROW(32);
	KMALLOC_ROW(40);  KMALLOC_ROW(48);  KMALLOC_ROW(56);  KMALLOC_ROW(64);
	KMALLOC_ROW(72);  KMALLOC_ROW(80);  KMALLOC_ROW(88);  KMALLOC_ROW(96);
	KMALLOC_ROW(104); KMALLOC_ROW(112); KMALLOC_ROW(120); KMALLOC_ROW(128);
	KMALLOC_ROW(136); KMALLOC_ROW(144); KMALLOC_ROW(152); KMALLOC_ROW(160);
	KMALLOC_ROW(168); KMALLOC_ROW(176); KMALLOC_ROW(184); KMALLOC_ROW(192);
	KMALLOC_ROW(200); KMALLOC_ROW(208); KMALLOC_ROW(216); KMALLOC_ROW(224);
	KMALLOC_ROW(232); KMALLOC_ROW(240);
}

/*
 * The allocator alone, without the call site's hook: the difference to
 * kmalloc-64 is what alloc_hooks() costs the caller.
 */
static noinline __bench_fn void bench_kmalloc_noprof(void)
{
	BENCH_ROW("kmalloc_noprof-64", kmalloc_noprof(64, GFP_KERNEL), kfree(p));
}

static noinline __bench_fn void bench_kmem_cache(void)
{
	BENCH_ROW("kmem_cache_alloc-64",
		  kmem_cache_alloc(bench_cache, GFP_KERNEL),
		  kmem_cache_free(bench_cache, p));
}

static noinline __bench_fn void bench_page(void)
{
	BENCH_ROW("__get_free_page", (void *)__get_free_page(GFP_KERNEL),
		  free_page((unsigned long)p));
}

/* vmalloc() may sleep: no preempt_disable() around it. */
static noinline __bench_fn void bench_vmalloc(void)
{
	u64 best = U64_MAX;
	int run;

	for (run = 0; run < 3; run++)
		best = min(best, TIME_PAIRS(vmalloc(16384), vfree(p)));
	report("vmalloc-16k", best);
}

/* Where the calls' results go, so that the calls cannot be dropped. */
static int bench_sink __maybe_unused;

/*
 * A row of calls: @loops evaluations of @call, an int expression of the
 * loop counter i, in a function of its own. Rows written one after the
 * other in one function would not be laid out alike: GCC moves all but
 * the first to the function's cold part, where each loop iteration takes
 * an instruction more.
 */
#define DEFINE_BENCH_CALLS(fn, call)					\
static noinline __bench_fn void fn(u64 *ns)				\
{									\
	u64 t0 = ktime_get_ns();					\
	unsigned int i;							\
									\
	for (i = 0; i < loops; i++)					\
		WRITE_ONCE(bench_sink, (call));				\
	*ns = ktime_get_ns() - t0;					\
}

/* Report the best of three runs of the row function @fn. */
#define BENCH_CALLS(name, fn) do {					\
	u64 best = U64_MAX, ns;						\
	int run;							\
									\
	for (run = 0; run < 3; run++) {					\
		preempt_disable();					\
		fn(&ns);						\
		best = min(best, ns);					\
		preempt_enable();					\
	}								\
	report(name, best);						\
} while (0)

#ifdef CONFIG_CODETAG
/*
 * The cost of a disarmed fault point: the same function with and without
 * one, in the place the documentation shows, before the work the point
 * stands for. The difference of each pair of rows is what dynamic_fault()
 * adds: in a function that keeps a value across a call anyway, and in
 * one that calls nothing else, where the compiler saves a register for
 * the call on the armed path. The argument is hidden from the compiler so
 * that no call can be folded away or hoisted out of the loop.
 */
/* noipa also makes calls to it clobber what the ABI says, as elsewhere. */
static noinline __bench_fn unsigned int bench_work(unsigned int i)
{
	OPTIMIZER_HIDE_VAR(i);
	return i + 1;
}

static noinline __bench_fn int bench_call(unsigned int i)
{
	return bench_work(bench_work(i) + i);
}

static noinline __bench_fn int bench_call_point(unsigned int i)
{
	if (dynamic_fault("codetag_bench"))
		return -EIO;
	return bench_work(bench_work(i) + i);
}

static noinline __bench_fn int bench_leaf(unsigned int i)
{
	OPTIMIZER_HIDE_VAR(i);
	return i;
}

static noinline __bench_fn int bench_leaf_point(unsigned int i)
{
	OPTIMIZER_HIDE_VAR(i);
	if (dynamic_fault("codetag_bench"))
		return -EIO;
	return i;
}

DEFINE_BENCH_CALLS(row_call, bench_call(i))
DEFINE_BENCH_CALLS(row_call_point, bench_call_point(i))
DEFINE_BENCH_CALLS(row_leaf, bench_leaf(i))
DEFINE_BENCH_CALLS(row_leaf_point, bench_leaf_point(i))

static noinline __bench_fn void bench_fault_points(void)
{
	BENCH_CALLS("call", row_call);
	BENCH_CALLS("call+fault_point", row_call_point);
	BENCH_CALLS("call_leaf", row_leaf);
	BENCH_CALLS("call_leaf+fault_point", row_leaf_point);
}

/*
 * ERR() on the error path and on the success path, against a plain
 * errno: the argument decides which path runs.
 */
static noinline __bench_fn int bench_plain_errno(unsigned int fail)
{
	OPTIMIZER_HIDE_VAR(fail);
	return fail ? -EINVAL : 0;
}

static noinline __bench_fn int bench_unique_errno(unsigned int fail)
{
	OPTIMIZER_HIDE_VAR(fail);
	return fail ? -ERR(EINVAL) : 0;
}

DEFINE_BENCH_CALLS(row_fail_plain, bench_plain_errno(1))
DEFINE_BENCH_CALLS(row_fail_err, bench_unique_errno(1))
DEFINE_BENCH_CALLS(row_ok_plain, bench_plain_errno(0))
DEFINE_BENCH_CALLS(row_ok_err, bench_unique_errno(0))

static noinline __bench_fn void bench_errcode(void)
{
	BENCH_CALLS("errno_fail_plain", row_fail_plain);
	BENCH_CALLS("errno_fail_ERR", row_fail_err);
	BENCH_CALLS("errno_ok_plain", row_ok_plain);
	BENCH_CALLS("errno_ok_ERR", row_ok_err);
}

static ssize_t errno_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	char c;

	if (!len || get_user(c, ubuf))
		return -EFAULT;
	return c == 'u' ? -ERR(EINVAL) : -EINVAL;
}

static const struct file_operations errno_fops = {
	.owner	= THIS_MODULE,
	.write	= errno_write,
};

static void errno_file_create(void)
{
	errno_file = debugfs_create_file("codetag_bench_errno", 0200, NULL,
					 NULL, &errno_fops);
}

#else /* !CONFIG_CODETAG */
static void bench_fault_points(void)
{
}

static void bench_errcode(void)
{
}

static void errno_file_create(void)
{
}
#endif /* CONFIG_CODETAG */

#ifdef CONFIG_CODETAG_TIME_STATS
/*
 * One recording at a site: what time_stats_record() costs on its own, the
 * clock read, and the start/end pair with its two clock reads.
 */
DEFINE_BENCH_CALLS(row_record, ({
	DEFINE_TIME_STATS_TAG(site);

	time_stats_record(&site, 0, i);
	0;
}))
DEFINE_BENCH_CALLS(row_clock, (int)ktime_get_ns())
DEFINE_BENCH_CALLS(row_start_end, ({
	u64 t;

	time_stats_start(t);
	time_stats_end(t);
	0;
}))

static noinline __bench_fn void bench_time_stats(void)
{
	BENCH_CALLS("time_stats_record", row_record);
	BENCH_CALLS("ktime_get_ns", row_clock);
	BENCH_CALLS("time_stats_start+end", row_start_end);
}
#else
static void bench_time_stats(void)
{
}
#endif

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
/*
 * A site enabled in alloc_tags.ctx: each pair captures a context (task,
 * time, a stack found in the stack depot) and drops it.
 */
static noinline __bench_fn void bench_ctx_row(void)
{
	BENCH_ROW("kmalloc-64+ctx", kmalloc(64, GFP_KERNEL), kfree(p));
}

/*
 * With profiling off the row captures nothing, and "make bench" reads it
 * only from the boot with profiling on. (Upstream 6.12 does not export
 * the profiling key to modules.)
 */
static void bench_ctx(void)
{
	int ret;

	ret = alloc_tag_ctx_control("func bench_ctx_row enable");
	if (ret <= 0) {
		pr_err("codetag_bench: cannot enable the context row's site: %d\n",
		       ret);
		return;
	}
	bench_ctx_row();
	alloc_tag_ctx_control("func bench_ctx_row disable");
}
#else
static void bench_ctx(void)
{
}
#endif

static int __init codetag_bench_init(void)
{
	bench_cache = kmem_cache_create("codetag_bench", 64, 0, 0, NULL);
	if (!bench_cache)
		return -ENOMEM;

	bench_kmalloc();
	bench_kmalloc_noprof();
	bench_kmem_cache();
	bench_page();
	bench_vmalloc();
	bench_ctx();
	bench_fault_points();
	bench_time_stats();
	bench_errcode();
	errno_file_create();

	kmem_cache_destroy(bench_cache);
	pr_info("codetag_bench: done\n");
	return 0;
}
module_init(codetag_bench_init);

static void __exit codetag_bench_exit(void)
{
	debugfs_remove(errno_file);
}
module_exit(codetag_bench_exit);

MODULE_DESCRIPTION("Allocation microbenchmark for make bench");
MODULE_LICENSE("GPL");

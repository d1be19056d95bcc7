// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for dynamic fault injection: the exact semantics of every
 * action, the selectors, task scoping, refusal of malformed commands, and
 * memory fault points that fail each allocator family at the caller's
 * line without upsetting the allocation counters.
 *
 * The fault points under test are the dft_*() functions below; each test
 * arms them by function name and disarms them all when it ends.
 */

#include <kunit/test.h>
#include <linux/codetag/alloc_tag.h>
#include <linux/codetag/dynamic_fault.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/interrupt.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

CODETAG_DECLARE_BOUNDS(alloc_tags);
CODETAG_DECLARE_BOUNDS(dynamic_faults);

static const struct codetag_section vmlinux_alloc_tags =
	CODETAG_VMLINUX_TAGS(alloc_tags);
static const struct codetag_section vmlinux_faults =
	CODETAG_VMLINUX_TAGS(dynamic_faults);

/* ---- Fault points under test ------------------------------------------- */

static noinline bool dft_point_a(void)
{
	return dynamic_fault("test:a");
}

static unsigned int dft_point_b_line;

static noinline bool dft_point_b(void)
{
	dft_point_b_line = __LINE__ + 1;
	return dynamic_fault("test:b");
}

static noinline bool dft_meta_read(void)
{
	return dynamic_fault("test:meta:read");
}

static noinline bool dft_meta(void)
{
	return dynamic_fault("test:meta");
}

static noinline bool dft_metadata(void)
{
	return dynamic_fault("test:metadata");
}

/* Armed by dynamic_fault_test_state() only. */
static noinline bool dft_state(void)
{
	return dynamic_fault("kunit:state");
}

static noinline bool dft_memory(void)
{
	return memory_fault();
}

static struct kmem_cache *dft_cache;

static noinline void *dft_kmalloc(gfp_t gfp)
{
	return kmalloc(64, gfp);
}

static noinline void *dft_kmem_cache_alloc(gfp_t gfp)
{
	return kmem_cache_alloc(dft_cache, gfp);
}

static noinline void *dft_alloc_pages(gfp_t gfp)
{
	return alloc_pages(gfp, 1);
}

static noinline void *dft_vmalloc(void)
{
	return vmalloc(3 * PAGE_SIZE);
}

static noinline void __percpu *dft_alloc_percpu(void)
{
	return alloc_percpu(u64);
}

/* ---- Helpers ----------------------------------------------------------- */

/* The tag of @section defined in function @func of this file. */
static struct codetag *find_ct(const struct codetag_section *sect,
			       size_t size, const char *func)
{
	struct codetag *ct;

	for (ct = sect->start; ct < sect->stop; ct = (void *)ct + size)
		if (!strcmp(ct->function, func) &&
		    !strcmp(ct->filename, __FILE__))
			return ct;
	return NULL;
}

static struct dynamic_fault *find_point(struct kunit *test, const char *func)
{
	struct codetag *ct = find_ct(&vmlinux_faults,
				     sizeof(struct dynamic_fault), func);

	KUNIT_ASSERT_NOT_NULL_MSG(test, ct, "no fault point in %s()", func);
	return container_of(ct, struct dynamic_fault, ct);
}

static int control(const char *fmt, ...) __printf(1, 2);

static int control(const char *fmt, ...)
{
	char cmd[128];
	va_list args;

	va_start(args, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, args);
	va_end(args);
	return dynamic_fault_control(cmd);
}

#define EXPECT_CONTROL_OK(test, ...)					\
	KUNIT_EXPECT_GT_MSG(test, control(__VA_ARGS__), 0, __VA_ARGS__)

/* Call @point @n times; return a bitmap of the calls that faulted. */
static u64 fire(bool (*point)(void), unsigned int n)
{
	u64 faulted = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (point())
			faulted |= BIT_ULL(i);
	return faulted;
}

static unsigned int count_faults(bool (*point)(void), unsigned int n)
{
	unsigned int i, faults = 0;

	for (i = 0; i < n; i++)
		faults += point();
	return faults;
}

/*
 * A spent point is disarmed by a work item queued from an irq_work, which
 * UML runs on the next timer tick: give it a second.
 */
static bool disarms_itself(struct dynamic_fault *df)
{
	unsigned int i;

	for (i = 0; i < 50 && static_key_enabled(&df->armed); i++)
		msleep(20);
	return !static_key_enabled(&df->armed);
}

static void dynamic_fault_test_exit(struct kunit *test)
{
	dynamic_fault_control("func dft_* disable");
}

/* ---- Actions ----------------------------------------------------------- */

static void dynamic_fault_test_disabled(struct kunit *test)
{
	struct dynamic_fault *df = find_point(test, "dft_point_a");

	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 64), 0ULL);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&df->armed));
	KUNIT_EXPECT_STREQ(test, df->class, "test:a");
}

static void dynamic_fault_test_enable(struct kunit *test)
{
	struct dynamic_fault *df = find_point(test, "dft_point_a");

	KUNIT_EXPECT_EQ(test, control("func dft_point_a enable"), 1);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&df->armed));
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 64), ~0ULL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->hits), 64L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->faults), 64L);

	KUNIT_EXPECT_EQ(test, control("func dft_point_a disable"), 1);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&df->armed));
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 64), 0ULL);
	/* The counters of the last arming stay readable. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->faults), 64L);
}

static void dynamic_fault_test_oneshot(struct kunit *test)
{
	struct dynamic_fault *df = find_point(test, "dft_point_a");

	EXPECT_CONTROL_OK(test, "func dft_point_a oneshot");
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 64), BIT_ULL(0));
	KUNIT_EXPECT_TRUE(test, disarms_itself(df));

	/* Armed again, it fires once again. */
	EXPECT_CONTROL_OK(test, "func dft_point_a oneshot");
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 64), BIT_ULL(0));
}

static void dynamic_fault_test_frequency(struct kunit *test)
{
	u64 every_third = 0;
	unsigned int i;

	for (i = 2; i < 60; i += 3)
		every_third |= BIT_ULL(i);
	EXPECT_CONTROL_OK(test, "func dft_point_a frequency 3");
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 60), every_third);
	/* Counting restarts when the point is armed again. */
	EXPECT_CONTROL_OK(test, "func dft_point_a frequency 3");
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 60), every_third);

	EXPECT_CONTROL_OK(test, "func dft_point_a frequency 1");
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 64), ~0ULL);
}

static void dynamic_fault_test_times(struct kunit *test)
{
	struct dynamic_fault *df = find_point(test, "dft_point_a");

	EXPECT_CONTROL_OK(test, "func dft_point_a times 4");
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 64), 0xfULL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->hits), 4L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->faults), 4L);

	/* With a frequency: the 2nd, 4th and 6th hit, and no more. */
	EXPECT_CONTROL_OK(test, "func dft_point_a frequency 2 times 3");
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 64), 0x2aULL);
	KUNIT_EXPECT_TRUE(test, disarms_itself(df));
}

static void dynamic_fault_test_probability(struct kunit *test)
{
	unsigned int faults;

	EXPECT_CONTROL_OK(test, "func dft_point_a probability 0");
	KUNIT_EXPECT_EQ(test, count_faults(dft_point_a, 10000), 0U);
	EXPECT_CONTROL_OK(test, "func dft_point_a probability 100");
	KUNIT_EXPECT_EQ(test, count_faults(dft_point_a, 10000), 10000U);

	/*
	 * Binomial(10000, 0.5): mean 5000, standard deviation 50. Outside
	 * 6 standard deviations once in 10^9 runs.
	 */
	EXPECT_CONTROL_OK(test, "func dft_point_a probability 50");
	faults = count_faults(dft_point_a, 10000);
	KUNIT_EXPECT_GE(test, faults, 4700U);
	KUNIT_EXPECT_LE(test, faults, 5300U);

	/* Capped: at most 10 of the hits that pass the draw. */
	EXPECT_CONTROL_OK(test, "func dft_point_a probability 50 times 10");
	KUNIT_EXPECT_EQ(test, count_faults(dft_point_a, 10000), 10U);
}

/* ---- Selectors --------------------------------------------------------- */

static void dynamic_fault_test_selectors(struct kunit *test)
{
	/* dft_point_b_line is set on the first call. */
	dft_point_b();

	KUNIT_EXPECT_EQ(test, control("file dynamic_fault_kunit.c line %u enable",
				      dft_point_b_line), 1);
	KUNIT_EXPECT_EQ(test, fire(dft_point_b, 4), 0xfULL);
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 4), 0ULL);
	KUNIT_EXPECT_GT(test, control("func dft_* disable"), 1);

	/* A full path glob, and a line range holding b's line only. */
	KUNIT_EXPECT_EQ(test, control("file */dynamic_fault_kunit.c line %u-%u enable",
				      dft_point_b_line - 1,
				      dft_point_b_line + 1), 1);
	KUNIT_EXPECT_EQ(test, fire(dft_point_b, 4), 0xfULL);
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 4), 0ULL);
	control("func dft_* disable");

	/* Globs on the function name. */
	KUNIT_EXPECT_EQ(test, control("func dft_point_? enable"), 2);
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 4), 0xfULL);
	KUNIT_EXPECT_EQ(test, fire(dft_point_b, 4), 0xfULL);
	KUNIT_EXPECT_EQ(test, fire(dft_meta, 4), 0ULL);
	control("func dft_* disable");

	/* Module: built-in code is named after its object file. */
	KUNIT_EXPECT_EQ(test, control("module dynamic_fault_kunit func dft_point_a enable"), 1);
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 4), 0xfULL);
	KUNIT_EXPECT_EQ(test, control("module no_such_module enable"), -ENOENT);
}

static void dynamic_fault_test_class(struct kunit *test)
{
	/* A class matches itself and what is below it at a ':'. */
	KUNIT_EXPECT_EQ(test, control("class test:meta enable"), 2);
	KUNIT_EXPECT_TRUE(test, dft_meta());
	KUNIT_EXPECT_TRUE(test, dft_meta_read());
	KUNIT_EXPECT_FALSE(test, dft_metadata());
	KUNIT_EXPECT_FALSE(test, dft_point_a());
	control("func dft_* disable");

	KUNIT_EXPECT_EQ(test, control("class test:*:read enable"), 1);
	KUNIT_EXPECT_TRUE(test, dft_meta_read());
	KUNIT_EXPECT_FALSE(test, dft_meta());
	control("func dft_* disable");

	/* The five of this file's dynamic_fault() points below "test". */
	KUNIT_EXPECT_EQ(test, control("file dynamic_fault_kunit.c class test enable"), 5);
	KUNIT_EXPECT_TRUE(test, dft_metadata());
	KUNIT_EXPECT_FALSE(test, dft_memory());
	control("func dft_* disable");

	/* memory_fault() is dynamic_fault("memory"). */
	KUNIT_EXPECT_EQ(test, control("func dft_memory class memory enable"), 1);
	KUNIT_EXPECT_TRUE(test, dft_memory());
}

/* ---- Task scoping ------------------------------------------------------ */

struct other_task {
	struct work_struct work;
	bool (*point)(void);
	bool faulted;
};

static void other_task_fn(struct work_struct *work)
{
	struct other_task *o = container_of(work, struct other_task, work);

	o->faulted = o->point();
}

/* Call @point from a kworker: another task, with another pid and comm. */
static bool fire_elsewhere(bool (*point)(void))
{
	struct other_task o = { .point = point };

	INIT_WORK_ONSTACK(&o.work, other_task_fn);
	schedule_work(&o.work);
	flush_work(&o.work);
	destroy_work_on_stack(&o.work);
	return o.faulted;
}

static void dynamic_fault_test_task_scope(struct kunit *test)
{
	EXPECT_CONTROL_OK(test, "func dft_point_a enable pid %d",
			  task_pid_nr(current));
	KUNIT_EXPECT_TRUE(test, dft_point_a());
	KUNIT_EXPECT_FALSE(test, fire_elsewhere(dft_point_a));

	EXPECT_CONTROL_OK(test, "func dft_point_a enable comm %s", current->comm);
	KUNIT_EXPECT_TRUE(test, dft_point_a());
	KUNIT_EXPECT_FALSE(test, fire_elsewhere(dft_point_a));

	/* Hits of other tasks do not count towards the frequency. */
	EXPECT_CONTROL_OK(test, "func dft_point_a frequency 2 pid %d",
			  task_pid_nr(current));
	KUNIT_EXPECT_FALSE(test, fire_elsewhere(dft_point_a));
	KUNIT_EXPECT_FALSE(test, dft_point_a());
	KUNIT_EXPECT_FALSE(test, fire_elsewhere(dft_point_a));
	KUNIT_EXPECT_TRUE(test, dft_point_a());

	/* A comm glob: the first three characters of ours, then anything. */
	EXPECT_CONTROL_OK(test, "func dft_point_a enable comm %.3s*", current->comm);
	KUNIT_EXPECT_TRUE(test, dft_point_a());
	KUNIT_EXPECT_FALSE(test, fire_elsewhere(dft_point_a));

	EXPECT_CONTROL_OK(test, "func dft_point_a enable comm no-such-task");
	KUNIT_EXPECT_FALSE(test, dft_point_a());
	KUNIT_EXPECT_FALSE(test, fire_elsewhere(dft_point_a));

	/* Unscoped, every task. */
	EXPECT_CONTROL_OK(test, "func dft_point_a enable");
	KUNIT_EXPECT_TRUE(test, fire_elsewhere(dft_point_a));
}

/* ---- Malformed commands ------------------------------------------------ */

static const char *const bad_commands[] = {
	"func dft_point_b",
	"func dft_point_b bogus",
	"func dft_point_b enable bogus",
	"func dft_point_b frequency",
	"func dft_point_b frequency 0",
	"func dft_point_b frequency many",
	"func dft_point_b probability 101",
	"func dft_point_b probability -1",
	"func dft_point_b times",
	"func dft_point_b times 0",
	"func dft_point_b times 2 times 3",
	"func dft_point_b oneshot times 3",
	"func dft_point_b times 3 oneshot",
	"func dft_point_b enable oneshot",
	"func dft_point_b frequency 2 probability 50",
	"func dft_point_b enable disable",
	"func dft_point_b disable verbose",
	"func dft_point_b disable disable",
	"func dft_point_b pid 0",
	"func dft_point_b pid me",
	"func dft_point_b pid 1 pid 2",
	"func dft_point_b comm",
	"func dft_point_b comm a-command-name-too-long",
	"func dft_point_b verbose verbose",
	"func",
	"line 9-2 enable",
	"func dft_point_b enable; func dft_point_a frequency x",
	"func dft_point_b enable\nfunc dft_point_a disable bogus",
};

static void dynamic_fault_test_malformed(struct kunit *test)
{
	struct dynamic_fault *a = find_point(test, "dft_point_a");
	struct dynamic_fault *b = find_point(test, "dft_point_b");
	unsigned int i;

	EXPECT_CONTROL_OK(test, "func dft_point_a frequency 3 times 5");
	for (i = 0; i < ARRAY_SIZE(bad_commands); i++) {
		KUNIT_EXPECT_EQ_MSG(test, dynamic_fault_control(bad_commands[i]),
				    -EINVAL, "'%s'", bad_commands[i]);
		KUNIT_EXPECT_FALSE_MSG(test, static_key_enabled(&b->armed),
				       "'%s' armed b", bad_commands[i]);
		KUNIT_EXPECT_EQ_MSG(test, a->state->policy.frequency, 3U,
				    "'%s' changed a", bad_commands[i]);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&a->state->remaining), 5,
				    "'%s' changed a", bad_commands[i]);
	}
	/* A command that matches nothing makes the whole write fail. */
	KUNIT_EXPECT_EQ(test, control("func dft_point_b enable; func no_such_func disable"),
			-ENOENT);
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&b->armed));
	/* And a is still armed as it was. */
	KUNIT_EXPECT_EQ(test, fire(dft_point_a, 30),
			BIT_ULL(2) | BIT_ULL(5) | BIT_ULL(8) | BIT_ULL(11) |
			BIT_ULL(14));
}

/* ---- Memory fault points ----------------------------------------------- */

static struct alloc_tag *find_alloc_tag(struct kunit *test, const char *func)
{
	struct codetag *ct = find_ct(&vmlinux_alloc_tags,
				     sizeof(struct alloc_tag), func);

	KUNIT_ASSERT_NOT_NULL_MSG(test, ct, "no allocation tag in %s()", func);
	return container_of(ct, struct alloc_tag, ct);
}

/* Live calls at the allocation site in @func. */
static u64 live_calls(struct kunit *test, const char *func)
{
	return alloc_tag_read(find_alloc_tag(test, func)).calls;
}

/* An allocation site under test, as a pointer, and how to free it. */
struct memory_site {
	const char *func;
	void *(*alloc)(void);
	void (*free)(const void *p);
	unsigned int calls;	/* charged by one allocation */
};

static void *alloc_kmalloc(void)
{
	return dft_kmalloc(GFP_KERNEL);
}

static void *alloc_kmem_cache(void)
{
	return dft_kmem_cache_alloc(GFP_KERNEL);
}

static void free_kmem_cache(const void *p)
{
	kmem_cache_free(dft_cache, (void *)p);
}

static void *alloc_pages_order1(void)
{
	return dft_alloc_pages(GFP_KERNEL);
}

static void free_pages_order1(const void *p)
{
	__free_pages((struct page *)p, 1);
}

static void *alloc_percpu_u64(void)
{
	return (void __force *)dft_alloc_percpu();
}

static void free_percpu_u64(const void *p)
{
	free_percpu((void __percpu __force *)p);
}

static const struct memory_site memory_sites[] = {
	{ "dft_kmalloc", alloc_kmalloc, kfree, 1 },
	{ "dft_kmem_cache_alloc", alloc_kmem_cache, free_kmem_cache, 1 },
	{ "dft_alloc_pages", alloc_pages_order1, free_pages_order1, 1 },
	/* A vmalloc area's pages are charged one call each. */
	{ "dft_vmalloc", dft_vmalloc, vfree, 3 },
	{ "dft_alloc_percpu", alloc_percpu_u64, free_percpu_u64, 1 },
};

/*
 * Arm the site's memory point oneshot: the first allocation fails, the
 * second succeeds, and the site's counters see only the second.
 */
static void expect_fails_once(struct kunit *test, const struct memory_site *m)
{
	u64 calls = live_calls(test, m->func);
	void *p;

	KUNIT_EXPECT_EQ(test, control("func %s class memory oneshot", m->func), 1);
	p = m->alloc();
	KUNIT_EXPECT_NULL_MSG(test, p, "%s() did not fail", m->func);
	KUNIT_EXPECT_EQ(test, live_calls(test, m->func), calls);
	p = m->alloc();
	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "%s() failed again", m->func);
	KUNIT_EXPECT_EQ(test, live_calls(test, m->func), calls + m->calls);
	m->free(p);
	KUNIT_EXPECT_EQ(test, live_calls(test, m->func), calls);
}

static int dynamic_fault_memory_init(struct kunit *test)
{
	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "allocation profiling is switched off");
	dft_cache = kmem_cache_create("dft_cache", 96, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, dft_cache);
	return 0;
}

static void dynamic_fault_memory_exit(struct kunit *test)
{
	dynamic_fault_test_exit(test);
	kmem_cache_destroy(dft_cache);
}

static unsigned int count_ct(const struct codetag_section *sect,
			     size_t size, const char *func)
{
	unsigned int n = 0;
	struct codetag *ct;

	for (ct = sect->start; ct < sect->stop; ct = (void *)ct + size)
		n += !strcmp(ct->function, func) && !strcmp(ct->filename, __FILE__);
	return n;
}

/* alloc_hooks() defines one tag and one fault point per site. */
static void dynamic_fault_test_one_tag_per_site(struct kunit *test)
{
	static const char *const funcs[] = {
		"dft_kmalloc", "dft_kmem_cache_alloc", "dft_alloc_pages",
		"dft_vmalloc", "dft_alloc_percpu",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(funcs); i++) {
		KUNIT_EXPECT_EQ_MSG(test, count_ct(&vmlinux_alloc_tags,
						   sizeof(struct alloc_tag),
						   funcs[i]), 1U,
				    "allocation tags in %s()", funcs[i]);
		KUNIT_EXPECT_EQ_MSG(test, count_ct(&vmlinux_faults,
						   sizeof(struct dynamic_fault),
						   funcs[i]), 1U,
				    "fault points in %s()", funcs[i]);
	}
}

static void dynamic_fault_test_memory(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(memory_sites); i++)
		expect_fails_once(test, &memory_sites[i]);
}

static void dynamic_fault_test_nofail(struct kunit *test)
{
	struct dynamic_fault *df = find_point(test, "dft_kmalloc");
	void *p;

	EXPECT_CONTROL_OK(test, "func dft_kmalloc enable");
	p = dft_kmalloc(GFP_KERNEL | __GFP_NOFAIL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	kfree(p);
	/* Not even a hit: a frequency counts failable allocations only. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->hits), 0L);
	KUNIT_EXPECT_NULL(test, dft_kmalloc(GFP_KERNEL));

	EXPECT_CONTROL_OK(test, "func dft_alloc_pages enable");
	p = dft_alloc_pages(GFP_KERNEL | __GFP_NOFAIL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p)
		__free_pages(p, 1);
	KUNIT_EXPECT_NULL(test, dft_alloc_pages(GFP_KERNEL));
}

/* An armed point elsewhere leaves this task's other allocations alone. */
static void dynamic_fault_test_memory_scope(struct kunit *test)
{
	void *p;

	EXPECT_CONTROL_OK(test, "func dft_kmalloc enable");
	p = kmalloc(64, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	kfree(p);
	KUNIT_EXPECT_NULL(test, dft_kmalloc(GFP_KERNEL));
	/* The pending fault was taken: nothing is left for the next one. */
	p = kmalloc(64, GFP_KERNEL);
	KUNIT_EXPECT_NOT_NULL(test, p);
	kfree(p);
}

#ifdef CONFIG_MEM_ALLOC_PROFILING
/*
 * A memory point that is on holds the allocation sites' switch on, once
 * however often it is armed, and lets go of it when disarmed: profiling
 * alone must not keep every site on its slow path after faults are done.
 */
static void dynamic_fault_test_sites_key(struct kunit *test)
{
	int before = static_key_count(&alloc_sites_key.key);

	EXPECT_CONTROL_OK(test, "func dft_kmalloc enable");
	KUNIT_EXPECT_EQ(test, static_key_count(&alloc_sites_key.key), before + 1);
	KUNIT_EXPECT_TRUE(test, alloc_sites_hooked());
	EXPECT_CONTROL_OK(test, "func dft_kmalloc frequency 2");
	KUNIT_EXPECT_EQ(test, static_key_count(&alloc_sites_key.key), before + 1);
	EXPECT_CONTROL_OK(test, "func dft_kmalloc disable");
	KUNIT_EXPECT_EQ(test, static_key_count(&alloc_sites_key.key), before);
	/* Not a memory point: nothing to do with allocation sites. */
	EXPECT_CONTROL_OK(test, "func dft_point_a enable");
	KUNIT_EXPECT_EQ(test, static_key_count(&alloc_sites_key.key), before);
}
#endif

/*
 * A point has no policy and counters until it is first armed (most points
 * never are); then they are kept, so that the last arming's counters stay
 * readable.
 */
static void dynamic_fault_test_state(struct kunit *test)
{
	struct dynamic_fault *df = find_point(test, "dft_state");

	KUNIT_EXPECT_EQ(test, control("func dft_state disable"), 1);
	KUNIT_EXPECT_NULL(test, df->state);
	KUNIT_EXPECT_FALSE(test, dft_state());

	EXPECT_CONTROL_OK(test, "func dft_state times 2");
	KUNIT_ASSERT_NOT_NULL(test, df->state);
	KUNIT_EXPECT_EQ(test, fire(dft_state, 4), 0x3ULL);
	KUNIT_EXPECT_TRUE(test, disarms_itself(df));
	KUNIT_ASSERT_NOT_NULL(test, df->state);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->hits), 2L);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->faults), 2L);

	/* Armed again, the same state starts over. */
	EXPECT_CONTROL_OK(test, "func dft_state oneshot");
	KUNIT_EXPECT_EQ(test, fire(dft_state, 4), 0x1ULL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->faults), 1L);
	control("func dft_state disable");
}

/* The index selector: a tag's position in iteration order, vmlinux first. */
static void dynamic_fault_test_index(struct kunit *test)
{
	struct dynamic_fault *df = find_point(test, "dft_point_a");
	struct dynamic_fault *first = (void *)vmlinux_faults.start;
	unsigned int index = df - first;

	KUNIT_EXPECT_EQ(test, control("index %u enable", index), 1);
	KUNIT_EXPECT_TRUE(test, dft_point_a());
	KUNIT_EXPECT_FALSE(test, dft_point_b());
	KUNIT_EXPECT_EQ(test, control("index %u-%u disable", index, index + 1), 2);
	KUNIT_EXPECT_FALSE(test, dft_point_a());
}

static struct kunit_case dynamic_fault_test_cases[] = {
	KUNIT_CASE(dynamic_fault_test_disabled),
	KUNIT_CASE(dynamic_fault_test_enable),
	KUNIT_CASE(dynamic_fault_test_oneshot),
	KUNIT_CASE(dynamic_fault_test_frequency),
	KUNIT_CASE(dynamic_fault_test_times),
	KUNIT_CASE(dynamic_fault_test_probability),
	KUNIT_CASE(dynamic_fault_test_selectors),
	KUNIT_CASE(dynamic_fault_test_index),
	KUNIT_CASE(dynamic_fault_test_state),
	KUNIT_CASE(dynamic_fault_test_class),
	KUNIT_CASE(dynamic_fault_test_task_scope),
	KUNIT_CASE(dynamic_fault_test_malformed),
	{}
};

static struct kunit_suite dynamic_fault_test_suite = {
	.name = "dynamic_fault",
	.exit = dynamic_fault_test_exit,
	.test_cases = dynamic_fault_test_cases,
};

struct softirq_alloc {
	struct tasklet_struct tasklet;
	void *p;
};

static void softirq_alloc_fn(struct tasklet_struct *t)
{
	struct softirq_alloc *sa = from_tasklet(sa, t, tasklet);

	sa->p = kmalloc(64, GFP_ATOMIC);
}

/*
 * A fault pending in a task is not taken by a softirq that runs on top of
 * it (as it would by a hardirq or an NMI): only by the task's own next
 * allocation.
 */
static void dynamic_fault_test_memory_context(struct kunit *test)
{
	struct dynamic_fault *df = find_point(test, "dft_kmalloc");
	struct softirq_alloc sa = { };
	unsigned long old;
	void *p;

	EXPECT_CONTROL_OK(test, "func dft_kmalloc enable");
	tasklet_setup(&sa.tasklet, softirq_alloc_fn);

	/* As alloc_hooks() does around an armed site's allocation. */
	old = memory_fault_push(df);
	local_bh_disable();
	tasklet_schedule(&sa.tasklet);
	local_bh_enable();	/* the tasklet runs here, on this task */
	p = kmalloc(64, GFP_KERNEL);
	memory_fault_pop(old);

	KUNIT_EXPECT_NOT_NULL_MSG(test, sa.p, "the softirq took the task's fault");
	KUNIT_EXPECT_NULL_MSG(test, p, "the task's allocation did not fail");
	KUNIT_EXPECT_EQ(test, atomic_long_read(&df->state->faults), 1L);
	tasklet_kill(&sa.tasklet);
	kfree(sa.p);
	kfree(p);
}

static struct kunit_case dynamic_fault_memory_test_cases[] = {
	KUNIT_CASE(dynamic_fault_test_one_tag_per_site),
	KUNIT_CASE(dynamic_fault_test_memory),
	KUNIT_CASE(dynamic_fault_test_nofail),
	KUNIT_CASE(dynamic_fault_test_memory_scope),
	KUNIT_CASE(dynamic_fault_test_memory_context),
#ifdef CONFIG_MEM_ALLOC_PROFILING
	KUNIT_CASE(dynamic_fault_test_sites_key),
#endif
	{}
};

static struct kunit_suite dynamic_fault_memory_test_suite = {
	.name = "dynamic_fault_memory",
	.init = dynamic_fault_memory_init,
	.exit = dynamic_fault_memory_exit,
	.test_cases = dynamic_fault_memory_test_cases,
};

kunit_test_suites(&dynamic_fault_test_suite, &dynamic_fault_memory_test_suite);

MODULE_LICENSE("GPL");

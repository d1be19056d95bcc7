// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for allocation contexts (alloc_tags.ctx): an enabled site
 * gets one context per live allocation, with the right size, task and
 * stack; a free drops exactly its context, also among thousands;
 * disabling drops them all; the cap holds and what it refuses is counted;
 * bad commands change nothing.
 */

#include <kunit/test.h>
#include <linux/codetag/alloc_tag.h>
#include <linux/codetag/alloc_tag_ctx.h>
#include <linux/codetag/dynamic_fault.h>
#include <linux/jump_label.h>
#include <linux/gfp.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#define NR_OBJS		5

/* Sizes that are slab cache sizes: each object is charged exactly this. */
static const size_t obj_sizes[NR_OBJS] = { 8, 64, 128, 256, 512 };

/* The allocation sites under test, one function each, never inlined. */
static noinline void *ctx_test_kmalloc(size_t size)
{
	return kmalloc(size, GFP_KERNEL);
}

static noinline struct page *ctx_test_alloc_pages(unsigned int order)
{
	return alloc_pages(GFP_KERNEL, order);
}

static noinline void *ctx_test_vmalloc(unsigned long size)
{
	return vmalloc(size);
}

static noinline void __percpu *ctx_test_alloc_percpu(void)
{
	return alloc_percpu(u64);
}

static noinline void *ctx_test_cache_alloc(struct kmem_cache *s)
{
	return kmem_cache_alloc(s, GFP_KERNEL);
}

/* What the contexts of one function's sites look like now. */
struct ctx_census {
	const char *function;
	const struct codetag *site;
	unsigned int nr;
	size_t sizes[NR_OBJS + 1];
	bool task_ok;
	bool stack_ok;
	const char *caller;
};

static bool stack_has(const struct alloc_tag_ctx_info *info,
		      const char *function)
{
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i;

	for (i = 0; i < info->nr_entries; i++) {
		snprintf(sym, sizeof(sym), "%ps", (void *)info->entries[i]);
		if (!strcmp(sym, function))
			return true;
	}
	return false;
}

static void count_ctx(const struct alloc_tag_ctx_info *info, void *arg)
{
	struct ctx_census *c = arg;

	if (strcmp(info->site->function, c->function))
		return;
	c->site = info->site;
	if (c->nr < ARRAY_SIZE(c->sizes))
		c->sizes[c->nr] = info->size;
	c->nr++;
	c->task_ok &= info->pid == task_pid_nr(current) &&
		      info->tgid == task_tgid_nr(current) &&
		      !strcmp(info->comm, current->comm) &&
		      info->ts > 0 && info->ts <= local_clock();
	if (stack_has(info, c->function) &&
	    (!c->caller || stack_has(info, c->caller)))
		return;
	/* Say what the stack was instead. */
	if (c->stack_ok) {
		unsigned int i;

		pr_info("alloc_tag_ctx_test: stack of a %zu-byte allocation:\n",
			info->size);
		for (i = 0; i < info->nr_entries; i++)
			pr_info("alloc_tag_ctx_test:   %pS\n",
				(void *)info->entries[i]);
	}
	c->stack_ok = false;
}

static void census(struct kunit *test, struct ctx_census *c,
		   const char *function, const char *caller)
{
	memset(c, 0, sizeof(*c));
	c->function = function;
	c->caller = caller;
	c->task_ok = true;
	c->stack_ok = true;
	KUNIT_ASSERT_GE(test, alloc_tag_ctx_for_each(count_ctx, c), 0);
}

/*
 * One object of each size at ctx_test_kmalloc()'s site. Inlined, so that
 * the test case itself is the caller on the contexts' stacks.
 */
static __always_inline void alloc_objs(struct kunit *test, void **objs)
{
	int i;

	for (i = 0; i < NR_OBJS; i++) {
		objs[i] = ctx_test_kmalloc(obj_sizes[i]);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
}

static void control(struct kunit *test, const char *cmd)
{
	KUNIT_ASSERT_GT_MSG(test, alloc_tag_ctx_control(cmd), 0, "%s", cmd);
}

static int alloc_tag_ctx_test_init(struct kunit *test)
{
	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "profiling is switched off");
	return 0;
}

static void alloc_tag_ctx_test_exit(struct kunit *test)
{
	/* Whatever a failed case left enabled. */
	alloc_tag_ctx_control("func ctx_test_* disable");
	alloc_tag_ctx_set_max(CONFIG_MEM_ALLOC_PROFILING_CONTEXT_MAX);
}

/* One context per live allocation: size, task, stack; a free drops its own. */
static void alloc_tag_ctx_test_kmalloc(struct kunit *test)
{
	void *objs[NR_OBJS];
	struct ctx_census c;
	int i;

	control(test, "func ctx_test_kmalloc enable");
	alloc_objs(test, objs);
	census(test, &c, "ctx_test_kmalloc", "alloc_tag_ctx_test_kmalloc");
	KUNIT_EXPECT_EQ(test, c.nr, NR_OBJS);
	for (i = 0; i < NR_OBJS; i++)
		KUNIT_EXPECT_EQ(test, c.sizes[i], obj_sizes[i]);
	KUNIT_EXPECT_TRUE(test, c.task_ok);
	KUNIT_EXPECT_TRUE_MSG(test, c.stack_ok,
			      "stack without the allocating function and its caller");

	/* Free the 64-byte one: the others stay, in order. */
	kfree(objs[1]);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, NR_OBJS - 1);
	KUNIT_EXPECT_EQ(test, c.sizes[0], obj_sizes[0]);
	KUNIT_EXPECT_EQ(test, c.sizes[1], obj_sizes[2]);
	KUNIT_EXPECT_EQ(test, c.sizes[2], obj_sizes[3]);
	KUNIT_EXPECT_EQ(test, c.sizes[3], obj_sizes[4]);

	for (i = 0; i < NR_OBJS; i++)
		if (i != 1)
			kfree(objs[i]);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);
	control(test, "func ctx_test_kmalloc disable");
}

/* The site's counters stay exact through capture, disable and free. */
static void alloc_tag_ctx_test_disable(struct kunit *test)
{
	struct alloc_tag_counters before, during, after;
	const struct alloc_tag *tag;
	void *objs[NR_OBJS];
	struct ctx_census c;
	int i;

	control(test, "func ctx_test_kmalloc enable");
	alloc_objs(test, objs);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_ASSERT_EQ(test, c.nr, NR_OBJS);
	tag = container_of(c.site, struct alloc_tag, ct);
	during = alloc_tag_read(tag);

	control(test, "func ctx_test_kmalloc disable");
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);
	/* Dropping the contexts does not discharge the live allocations. */
	after = alloc_tag_read(tag);
	KUNIT_EXPECT_EQ(test, after.bytes, during.bytes);
	KUNIT_EXPECT_EQ(test, after.calls, during.calls);

	before = during;
	for (i = 0; i < NR_OBJS; i++) {
		before.bytes -= obj_sizes[i];
		before.calls--;
		kfree(objs[i]);
	}
	after = alloc_tag_read(tag);
	KUNIT_EXPECT_EQ(test, after.bytes, before.bytes);
	KUNIT_EXPECT_EQ(test, after.calls, before.calls);
}

/* Pages, vmalloc, per-CPU and kmem_cache allocations are captured too. */
static void alloc_tag_ctx_test_families(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("ctx_test_cache", 96, 0, 0, NULL);
	struct ctx_census c;
	struct page *page;
	void __percpu *pcpu;
	void *v, *obj;

	KUNIT_ASSERT_NOT_NULL(test, s);
	control(test, "func ctx_test_* enable");

	page = ctx_test_alloc_pages(2);
	KUNIT_ASSERT_NOT_NULL(test, page);
	census(test, &c, "ctx_test_alloc_pages", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 1);
	KUNIT_EXPECT_EQ(test, c.sizes[0], (size_t)PAGE_SIZE << 2);
	__free_pages(page, 2);
	census(test, &c, "ctx_test_alloc_pages", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);

	/* A vmalloc area's context is its first page's. */
	v = ctx_test_vmalloc(4 * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, v);
	census(test, &c, "ctx_test_vmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 1);
	KUNIT_EXPECT_EQ(test, c.sizes[0], (size_t)PAGE_SIZE);
	vfree(v);
	census(test, &c, "ctx_test_vmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);

	pcpu = ctx_test_alloc_percpu();
	KUNIT_ASSERT_NOT_NULL(test, pcpu);
	census(test, &c, "ctx_test_alloc_percpu", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 1);
	KUNIT_EXPECT_EQ(test, c.sizes[0], sizeof(u64) * num_possible_cpus());
	free_percpu(pcpu);
	census(test, &c, "ctx_test_alloc_percpu", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);

	obj = ctx_test_cache_alloc(s);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	census(test, &c, "ctx_test_cache_alloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 1);
	KUNIT_EXPECT_EQ(test, c.sizes[0], (size_t)96);
	kmem_cache_free(s, obj);
	census(test, &c, "ctx_test_cache_alloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);

	control(test, "func ctx_test_* disable");
	kmem_cache_destroy(s);
}

static void count_all(const struct alloc_tag_ctx_info *info, void *arg)
{
	(*(unsigned int *)arg)++;
}

/* No more contexts than the cap; the rest are counted, and not failed. */
static void alloc_tag_ctx_test_cap(struct kunit *test)
{
	unsigned int existing = 0;
	void *objs[NR_OBJS];
	struct ctx_census c;
	int i;

	KUNIT_ASSERT_GE(test, alloc_tag_ctx_for_each(count_all, &existing), 0);
	KUNIT_ASSERT_EQ(test, alloc_tag_ctx_set_max(existing + 3), 0);
	KUNIT_EXPECT_EQ(test, alloc_tag_ctx_get_max(), existing + 3);
	KUNIT_EXPECT_EQ(test, alloc_tag_ctx_set_max(ALLOC_TAG_CTX_IDS + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, alloc_tag_ctx_get_max(), existing + 3);

	control(test, "func ctx_test_kmalloc enable");
	alloc_objs(test, objs);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 3);
	KUNIT_ASSERT_NOT_NULL(test, c.site);
	KUNIT_EXPECT_EQ(test, alloc_tag_ctx_not_captured(c.site), NR_OBJS - 3);
	/* The first three were captured. */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, c.sizes[i], obj_sizes[i]);

	/* Room again once one is freed. */
	kfree(objs[0]);
	objs[0] = ctx_test_kmalloc(obj_sizes[0]);
	KUNIT_ASSERT_NOT_NULL(test, objs[0]);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 3);
	KUNIT_EXPECT_EQ(test, alloc_tag_ctx_not_captured(c.site), NR_OBJS - 3);

	for (i = 0; i < NR_OBJS; i++)
		kfree(objs[i]);
	control(test, "func ctx_test_kmalloc disable");
}

/*
 * Enough slab objects that keep numbers for their table's buckets to
 * chain several, freed first one in three and then the rest backwards,
 * so that numbers leave chains at their head, middle and end: each free
 * drops exactly its own context and discharges its bytes once.
 */
#define NR_MANY		2048

static void alloc_tag_ctx_test_many(struct kunit *test)
{
	struct alloc_tag_counters start, now;
	unsigned int existing = 0, live = 0;
	const struct alloc_tag *tag;
	struct ctx_census c;
	void **objs;
	int i;

	objs = kunit_kcalloc(test, NR_MANY, sizeof(*objs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, objs);
	KUNIT_ASSERT_GE(test, alloc_tag_ctx_for_each(count_all, &existing), 0);
	KUNIT_ASSERT_EQ(test, alloc_tag_ctx_set_max(existing + NR_MANY), 0);

	control(test, "func ctx_test_kmalloc enable");
	objs[0] = ctx_test_kmalloc(64);
	KUNIT_ASSERT_NOT_NULL(test, objs[0]);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_ASSERT_NOT_NULL(test, c.site);
	tag = container_of(c.site, struct alloc_tag, ct);
	start = alloc_tag_read_raw(tag);
	live = 1;
	for (i = 1; i < NR_MANY; i++) {
		objs[i] = ctx_test_kmalloc(64);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		live++;
	}
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, NR_MANY);
	KUNIT_EXPECT_EQ(test, alloc_tag_ctx_not_captured(c.site), 0);

	for (i = 0; i < NR_MANY; i += 3) {
		kfree(objs[i]);
		objs[i] = NULL;
		live--;
	}
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, live);
	now = alloc_tag_read_raw(tag);
	KUNIT_EXPECT_EQ(test, now.calls, start.calls + live - 1);
	KUNIT_EXPECT_EQ(test, now.bytes, start.bytes + 64 * (live - 1));

	for (i = NR_MANY - 1; i >= 0; i--)
		kfree(objs[i]);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);
	now = alloc_tag_read_raw(tag);
	KUNIT_EXPECT_EQ(test, now.calls, start.calls - 1);
	KUNIT_EXPECT_EQ(test, now.bytes, start.bytes - 64);
	control(test, "func ctx_test_kmalloc disable");
}

/*
 * The capture's own allocations, at sites that are enabled too, are
 * neither captured nor recursed into.
 */
static void alloc_tag_ctx_test_no_recursion(struct kunit *test)
{
	struct ctx_census c;
	void *obj;

	control(test, "file alloc_tag_ctx.c enable; func ctx_test_kmalloc enable");
	obj = ctx_test_kmalloc(64);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 1);
	census(test, &c, "alloc_tag_ctx_begin", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);
	kfree(obj);
	control(test, "file alloc_tag_ctx.c disable; func ctx_test_kmalloc disable");
}

/*
 * A site's switch is its tag's key: on while the site is enabled, off
 * once it is disabled, and the site captures exactly while it is on.
 */
static void alloc_tag_ctx_test_key(struct kunit *test)
{
	struct alloc_tag *tag;
	struct ctx_census c;
	void *obj;

	control(test, "func ctx_test_kmalloc enable");
	obj = ctx_test_kmalloc(64);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_ASSERT_EQ(test, c.nr, 1);
	tag = container_of(c.site, struct alloc_tag, ct);
	KUNIT_EXPECT_TRUE(test, static_key_enabled(&tag->ctx_key));
	kfree(obj);

	control(test, "func ctx_test_kmalloc disable");
	KUNIT_EXPECT_FALSE(test, static_key_enabled(&tag->ctx_key));
	obj = ctx_test_kmalloc(64);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);
	kfree(obj);
}

#ifdef CONFIG_CODETAG_DYNAMIC_FAULT
/*
 * A site's memory fault point and its capture are separate switches:
 * arming and disarming faults there leaves the capture alone, and a
 * failed allocation leaves no context.
 */
static void alloc_tag_ctx_test_with_faults(struct kunit *test)
{
	struct ctx_census c;
	void *obj;

	control(test, "func ctx_test_kmalloc enable");
	KUNIT_ASSERT_EQ(test, dynamic_fault_control("func ctx_test_kmalloc oneshot"), 1);
	obj = ctx_test_kmalloc(64);
	KUNIT_EXPECT_NULL(test, obj);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);

	obj = ctx_test_kmalloc(64);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 1);
	kfree(obj);

	/* Disarmed, the site still captures. */
	KUNIT_ASSERT_EQ(test, dynamic_fault_control("func ctx_test_kmalloc disable"), 1);
	obj = ctx_test_kmalloc(64);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 1);
	kfree(obj);

	/* And with the capture off, neither. */
	control(test, "func ctx_test_kmalloc disable");
	obj = ctx_test_kmalloc(64);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);
	kfree(obj);
}
#endif

/* Malformed commands are refused and enable nothing. */
static void alloc_tag_ctx_test_malformed(struct kunit *test)
{
	static const char *const bad[] = {
		"func ctx_test_kmalloc",
		"func ctx_test_kmalloc enabled",
		"func ctx_test_kmalloc enable disable",
		"func ctx_test_kmalloc enable 1",
		"func ctx_test_kmalloc frobnicate",
		"bogus ctx_test_kmalloc enable",
		"line abc enable",
		"line 5-3 enable",
		"func ctx_test_kmalloc enable; func ctx_test_vmalloc",
		"enable enable",
	};
	struct ctx_census c;
	unsigned int i;
	void *obj;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, alloc_tag_ctx_control(bad[i]), -EINVAL,
				    "%s", bad[i]);
	KUNIT_EXPECT_EQ(test, alloc_tag_ctx_control("func no_such_function_here enable"),
			-ENOENT);
	/* Nothing was enabled: no context. */
	obj = ctx_test_kmalloc(64);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	census(test, &c, "ctx_test_kmalloc", NULL);
	KUNIT_EXPECT_EQ(test, c.nr, 0);
	kfree(obj);
}

static struct kunit_case alloc_tag_ctx_test_cases[] = {
	KUNIT_CASE(alloc_tag_ctx_test_kmalloc),
	KUNIT_CASE(alloc_tag_ctx_test_disable),
	KUNIT_CASE(alloc_tag_ctx_test_families),
	KUNIT_CASE(alloc_tag_ctx_test_cap),
	KUNIT_CASE(alloc_tag_ctx_test_many),
	KUNIT_CASE(alloc_tag_ctx_test_no_recursion),
	KUNIT_CASE(alloc_tag_ctx_test_key),
#ifdef CONFIG_CODETAG_DYNAMIC_FAULT
	KUNIT_CASE(alloc_tag_ctx_test_with_faults),
#endif
	KUNIT_CASE(alloc_tag_ctx_test_malformed),
	{}
};

static struct kunit_suite alloc_tag_ctx_test_suite = {
	.name = "alloc_tag_ctx",
	.init = alloc_tag_ctx_test_init,
	.exit = alloc_tag_ctx_test_exit,
	.test_cases = alloc_tag_ctx_test_cases,
};

kunit_test_suite(alloc_tag_ctx_test_suite);

MODULE_LICENSE("GPL");

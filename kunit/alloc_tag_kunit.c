// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for allocation tags: each allocator family charges exactly
 * what it hands out to the line that called it, and a free discharges it.
 */

#include <kunit/test.h>
#include <linux/codetag/alloc_tag.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/string.h>

#define NR_ALLOCS	8

static struct alloc_tag *find_tag(unsigned int line)
{
	struct alloc_tag *tag;

	for (tag = (struct alloc_tag *)__start_alloc_tags;
	     tag < (struct alloc_tag *)__stop_alloc_tags; tag++)
		if (tag->ct.lineno == line && !strcmp(tag->ct.filename, __FILE__))
			return tag;
	return NULL;
}

struct snapshot {
	struct alloc_tag *tag;
	struct alloc_tag_counters before;
};

static void snap(struct kunit *test, struct snapshot *s, unsigned int line)
{
	s->tag = find_tag(line);
	KUNIT_ASSERT_NOT_NULL_MSG(test, s->tag, "no tag at line %u", line);
	s->before = alloc_tag_read(s->tag);
}

/*
 * Take a snapshot of the tag of this line, then evaluate @expr, which
 * allocates on this same line. Tags are static: the snapshot can come
 * first.
 */
#define SNAP(s, expr) ({ snap(test, (s), __LINE__); (expr); })

static void expect_delta(struct kunit *test, struct snapshot *s,
			 s64 bytes, s64 calls)
{
	struct alloc_tag_counters now = alloc_tag_read(s->tag);

	KUNIT_EXPECT_EQ_MSG(test, (s64)(now.bytes - s->before.bytes), bytes,
			    "bytes at line %u", s->tag->ct.lineno);
	KUNIT_EXPECT_EQ_MSG(test, (s64)(now.calls - s->before.calls), calls,
			    "calls at line %u", s->tag->ct.lineno);
}

static int alloc_tag_test_init(struct kunit *test)
{
	if (!mem_alloc_profiling_enabled())
		kunit_skip(test, "profiling is switched off");
	return 0;
}

static void alloc_tag_test_alloc_pages(struct kunit *test)
{
	struct page *pages[NR_ALLOCS];
	struct snapshot s;
	int i;

	snap(test, &s, __LINE__ + 2);
	for (i = 0; i < NR_ALLOCS; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
	}
	expect_delta(test, &s, NR_ALLOCS * PAGE_SIZE, NR_ALLOCS);
	for (i = 0; i < NR_ALLOCS; i++)
		__free_pages(pages[i], 0);
	expect_delta(test, &s, 0, 0);
}

static void alloc_tag_test_high_order(struct kunit *test)
{
	struct snapshot s;
	struct page *page;

	page = SNAP(&s, alloc_pages(GFP_KERNEL, 2));
	KUNIT_ASSERT_NOT_NULL(test, page);
	expect_delta(test, &s, 4 * PAGE_SIZE, 1);
	__free_pages(page, 2);
	expect_delta(test, &s, 0, 0);

	page = SNAP(&s, alloc_pages(GFP_KERNEL | __GFP_COMP, 3));
	KUNIT_ASSERT_NOT_NULL(test, page);
	expect_delta(test, &s, 8 * PAGE_SIZE, 1);
	__free_pages(page, 3);
	expect_delta(test, &s, 0, 0);
}

static void alloc_tag_test_families(struct kunit *test)
{
	struct folio *folio;
	struct snapshot s;
	unsigned long addr;
	void *p;

	addr = SNAP(&s, __get_free_pages(GFP_KERNEL, 1));
	KUNIT_ASSERT_NE(test, addr, 0UL);
	expect_delta(test, &s, 2 * PAGE_SIZE, 1);
	free_pages(addr, 1);
	expect_delta(test, &s, 0, 0);

	addr = SNAP(&s, get_zeroed_page(GFP_KERNEL));
	KUNIT_ASSERT_NE(test, addr, 0UL);
	expect_delta(test, &s, PAGE_SIZE, 1);
	free_page(addr);
	expect_delta(test, &s, 0, 0);

	folio = SNAP(&s, folio_alloc(GFP_KERNEL, 1));
	KUNIT_ASSERT_NOT_NULL(test, folio);
	expect_delta(test, &s, 2 * PAGE_SIZE, 1);
	folio_put(folio);
	expect_delta(test, &s, 0, 0);

	/* Three pages out of an order-2 block, the fourth given back. */
	p = SNAP(&s, alloc_pages_exact(3 * PAGE_SIZE, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_delta(test, &s, 3 * PAGE_SIZE, 3);
	free_pages_exact(p, 3 * PAGE_SIZE);
	expect_delta(test, &s, 0, 0);
}

/* A non-compound block whose head outlives its tail (__free_pages()). */
static void alloc_tag_test_free_tail_first(struct kunit *test)
{
	struct snapshot s;
	struct page *page;

	page = SNAP(&s, alloc_pages(GFP_KERNEL, 2));
	KUNIT_ASSERT_NOT_NULL(test, page);
	get_page(page);
	__free_pages(page, 2);		/* frees the three tail pages */
	expect_delta(test, &s, PAGE_SIZE, 1);
	put_page(page);			/* and now the head, as one page */
	expect_delta(test, &s, 0, 0);
}

/* A helper allocating for its caller: the caller's line is charged. */
static noinline struct page *test_helper_noprof(unsigned int order)
{
	return alloc_pages_noprof(GFP_KERNEL, order);
}

#define test_helper(...)	alloc_hooks(test_helper_noprof(__VA_ARGS__))

static void alloc_tag_test_nesting(struct kunit *test)
{
	struct snapshot s;
	struct page *page;

	page = SNAP(&s, test_helper(1));
	KUNIT_ASSERT_NOT_NULL(test, page);
	expect_delta(test, &s, 2 * PAGE_SIZE, 1);
	__free_pages(page, 1);
	expect_delta(test, &s, 0, 0);
	/* No tag is left behind as the task's. */
	KUNIT_EXPECT_NULL(test, current->alloc_tag);
}

/* Allocated while off, freed while on: no counter moves. */
static void alloc_tag_test_disabled(struct kunit *test)
{
	struct snapshot s;
	struct page *page;

	static_branch_disable(&mem_alloc_profiling_key);
	page = SNAP(&s, alloc_pages(GFP_KERNEL, 0));
	static_branch_enable(&mem_alloc_profiling_key);
	KUNIT_ASSERT_NOT_NULL(test, page);
	expect_delta(test, &s, 0, 0);
	__free_pages(page, 0);
	expect_delta(test, &s, 0, 0);

	/* Allocated while on, freed while off: discharged all the same. */
	page = SNAP(&s, alloc_pages(GFP_KERNEL, 0));
	KUNIT_ASSERT_NOT_NULL(test, page);
	static_branch_disable(&mem_alloc_profiling_key);
	__free_pages(page, 0);
	static_branch_enable(&mem_alloc_profiling_key);
	expect_delta(test, &s, 0, 0);
}

static struct kunit_case alloc_tag_test_cases[] = {
	KUNIT_CASE(alloc_tag_test_alloc_pages),
	KUNIT_CASE(alloc_tag_test_high_order),
	KUNIT_CASE(alloc_tag_test_families),
	KUNIT_CASE(alloc_tag_test_free_tail_first),
	KUNIT_CASE(alloc_tag_test_nesting),
	KUNIT_CASE(alloc_tag_test_disabled),
	{}
};

static struct kunit_suite alloc_tag_test_suite = {
	.name		= "alloc_tag",
	.init		= alloc_tag_test_init,
	.test_cases	= alloc_tag_test_cases,
};

kunit_test_suite(alloc_tag_test_suite);

MODULE_DESCRIPTION("KUnit tests for allocation tags");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for allocation tags: each allocator family charges exactly
 * what it hands out to the line that called it, and a free discharges it.
 */

#include <kunit/test.h>
#include <linux/codetag/alloc_tag.h>
#include <linux/codetag/dynamic_fault.h>
#include <linux/codetag/pgalloc_tag.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../../../mm/slab.h"	/* slab_obj_exts(): objects' tags */

#define NR_ALLOCS	8

static struct alloc_tag *find_tag(unsigned int line)
{
	struct alloc_tag *tag;

	for (tag = (struct alloc_tag *)__codetag_start_alloc_tags;
	     tag < (struct alloc_tag *)__codetag_stop_alloc_tags; tag++)
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
	s->before = alloc_tag_read_raw(s->tag);
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
	/* Raw: alloc_tag_read() would hide an underflow below zero. */
	struct alloc_tag_counters now = alloc_tag_read_raw(s->tag);

	KUNIT_EXPECT_EQ_MSG(test, (s64)(now.bytes - s->before.bytes), bytes,
			    "bytes at line %u", s->tag->ct.lineno);
	KUNIT_EXPECT_EQ_MSG(test, (s64)(now.calls - s->before.calls), calls,
			    "calls at line %u", s->tag->ct.lineno);
}

/*
 * Evaluate @alloc, an allocation written on this line, check that this
 * line's site was charged @bytes in one call, free the result with
 * @free_fn and check that the site is back where it was.
 */
#define EXPECT_CHARGED(alloc, bytes, free_fn) do {			\
	struct snapshot _s;						\
	void *_p = SNAP(&_s, alloc);					\
									\
	KUNIT_ASSERT_NOT_NULL(test, _p);				\
	expect_delta(test, &_s, bytes, 1);				\
	free_fn(_p);							\
	expect_delta(test, &_s, 0, 0);					\
} while (0)

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

/*
 * A charge only sets a page's reference bits (set_new_page_alloc_tag_ref()):
 * every page the allocator hands out must have them clear, including the
 * page a tagged block just freed gives back, and one allocated while
 * profiling is off, which is not charged at all.
 */
static void alloc_tag_test_page_ref_cleared(struct kunit *test)
{
	struct page *page, *again;
	struct snapshot s;

	KUNIT_ASSERT_TRUE_MSG(test, pgalloc_tag_in_flags || pgalloc_tag_in_page_ext,
			      "this config keeps no page references");
	page = SNAP(&s, alloc_pages(GFP_KERNEL, 0));
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_NE(test, page_alloc_tag_ref(page), 0U);
	__free_pages(page, 0);

	static_branch_disable(&mem_alloc_profiling_key);
	again = alloc_pages(GFP_KERNEL, 0);
	static_branch_enable(&mem_alloc_profiling_key);
	KUNIT_ASSERT_NOT_NULL(test, again);
	KUNIT_EXPECT_EQ(test, page_alloc_tag_ref(again), 0U);
	__free_pages(again, 0);
	expect_delta(test, &s, 0, 0);
}

/*
 * Data that a page mover copies into a page it allocated stays charged to
 * the site that allocated the data; freeing the original discharges the
 * mover's site, whose allocation the data now uses. Also for an order-2
 * folio, whose tails hold no reference.
 */
static void alloc_tag_test_migrate(struct kunit *test)
{
	struct snapshot data, mover;
	struct page *old, *new;
	unsigned int order;

	for (order = 0; order <= 2; order += 2) {
		old = SNAP(&data, alloc_pages(GFP_KERNEL | __GFP_COMP, order));
		KUNIT_ASSERT_NOT_NULL(test, old);
		new = SNAP(&mover, alloc_pages(GFP_KERNEL | __GFP_COMP, order));
		if (!new)
			__free_pages(old, order);
		KUNIT_ASSERT_NOT_NULL(test, new);

		pgalloc_tag_migrate(page_folio(new), page_folio(old));
		__free_pages(old, order);
		expect_delta(test, &data, PAGE_SIZE << order, 1);
		expect_delta(test, &mover, 0, 0);

		__free_pages(new, order);
		expect_delta(test, &data, 0, 0);
		expect_delta(test, &mover, 0, 0);
	}
}

/* The same for slab objects. */
static void alloc_tag_test_disabled_slab(struct kunit *test)
{
	struct snapshot s;
	void *p;

	static_branch_disable(&mem_alloc_profiling_key);
	p = SNAP(&s, kmalloc(64, GFP_KERNEL));
	static_branch_enable(&mem_alloc_profiling_key);
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_delta(test, &s, 0, 0);
	kfree(p);
	expect_delta(test, &s, 0, 0);

	p = SNAP(&s, kmalloc(64, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, p);
	static_branch_disable(&mem_alloc_profiling_key);
	kfree(p);
	static_branch_enable(&mem_alloc_profiling_key);
	expect_delta(test, &s, 0, 0);
}

/* A helper wrapped with alloc_hooks() charges its caller's line. */
static noinline void *test_kmalloc_helper_noprof(size_t size)
{
	return kmalloc_noprof(size, GFP_KERNEL);
}

#define test_kmalloc_helper(...) alloc_hooks(test_kmalloc_helper_noprof(__VA_ARGS__))

static void alloc_tag_test_nesting_slab(struct kunit *test)
{
	EXPECT_CHARGED(test_kmalloc_helper(500), kmalloc_size_roundup(500), kfree);
	KUNIT_EXPECT_NULL(test, current->alloc_tag);
}

/* ---- Slab ---------------------------------------------------------------- */

/* Slab objects are charged the object size of their cache. */
static void alloc_tag_test_kmalloc(struct kunit *test)
{
	const size_t sizes[] = { 8, 24, 100, 192, 1000, 4096 };
	void *p[NR_ALLOCS];
	struct snapshot s;
	unsigned int i, j;

	for (j = 0; j < ARRAY_SIZE(sizes); j++) {
		size_t bucket = kmalloc_size_roundup(sizes[j]);

		snap(test, &s, __LINE__ + 2);
		for (i = 0; i < NR_ALLOCS; i++) {
			p[i] = kmalloc(sizes[j], GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, p[i]);
		}
		expect_delta(test, &s, NR_ALLOCS * bucket, NR_ALLOCS);
		for (i = 0; i < NR_ALLOCS; i++)
			kfree(p[i]);
		expect_delta(test, &s, 0, 0);
	}
}

/* Each wrapper charges its own line, whatever it calls inside. */
static void alloc_tag_test_kmalloc_family(struct kunit *test)
{
	size_t n = 50, bucket = kmalloc_size_roundup(n * sizeof(u32));

	EXPECT_CHARGED(kzalloc(n * sizeof(u32), GFP_KERNEL), bucket, kfree);
	EXPECT_CHARGED(kcalloc(n, sizeof(u32), GFP_KERNEL), bucket, kfree);
	EXPECT_CHARGED(kmalloc_array(n, sizeof(u32), GFP_KERNEL), bucket, kfree);
	EXPECT_CHARGED(kmalloc_node(n * sizeof(u32), GFP_KERNEL, NUMA_NO_NODE), bucket, kfree);
	EXPECT_CHARGED(kzalloc_node(n * sizeof(u32), GFP_KERNEL, NUMA_NO_NODE), bucket, kfree);

	/* Beyond the largest kmalloc cache: pages, charged whole. */
	EXPECT_CHARGED(kmalloc(5 * PAGE_SIZE, GFP_KERNEL), 8 * PAGE_SIZE, kfree);
}

/* A reallocation in place keeps its site; a move charges the new one. */
static void alloc_tag_test_krealloc(struct kunit *test)
{
	struct snapshot first, second;
	void *p, *q;

	p = SNAP(&first, krealloc(NULL, 40, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_delta(test, &first, kmalloc_size_roundup(40), 1);

	q = SNAP(&second, krealloc(p, 2000, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_PTR_NE(test, p, q);
	expect_delta(test, &first, 0, 0);
	expect_delta(test, &second, kmalloc_size_roundup(2000), 1);

	p = krealloc(q, 1000, GFP_KERNEL);	/* fits: stays where it is */
	KUNIT_EXPECT_PTR_EQ(test, p, q);
	expect_delta(test, &second, kmalloc_size_roundup(2000), 1);
	kfree(p);
	expect_delta(test, &second, 0, 0);
}

static void alloc_tag_test_kmem_cache(struct kunit *test)
{
	struct kmem_cache *cache;
	struct snapshot s;
	size_t size;
	void *p;

	cache = kmem_cache_create("alloc_tag_test", 72, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, cache);
	/* A merged cache hands out objects of the larger size. */
	size = kmem_cache_size(cache);

	p = SNAP(&s, kmem_cache_alloc(cache, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_delta(test, &s, size, 1);
	kmem_cache_free(cache, p);
	expect_delta(test, &s, 0, 0);

	p = SNAP(&s, kmem_cache_zalloc(cache, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_delta(test, &s, size, 1);
	kmem_cache_free(cache, p);
	expect_delta(test, &s, 0, 0);

	p = SNAP(&s, kmem_cache_alloc_node(cache, GFP_KERNEL, NUMA_NO_NODE));
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_delta(test, &s, size, 1);
	kmem_cache_free(cache, p);
	expect_delta(test, &s, 0, 0);

	p = SNAP(&s, kmem_cache_alloc_lru(cache, NULL, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, p);
	expect_delta(test, &s, size, 1);
	kmem_cache_free(cache, p);
	expect_delta(test, &s, 0, 0);

	kmem_cache_destroy(cache);
}

/* A tag no allocation uses: the test below moves its counters by hand. */
DEFINE_ALLOC_TAG(unused_tag);

/*
 * alloc_tag_read() shows nothing below zero; alloc_tag_read_raw() is how
 * tests and alloc_tags.summary see an underflow.
 */
static void alloc_tag_test_read_raw(struct kunit *test)
{
	struct alloc_tag_counters raw, shown;

	alloc_tag_sub(&unused_tag, 64);
	raw = alloc_tag_read_raw(&unused_tag);
	shown = alloc_tag_read(&unused_tag);
	alloc_tag_add(&unused_tag, 64);

	KUNIT_EXPECT_EQ(test, (s64)raw.bytes, -64);
	KUNIT_EXPECT_EQ(test, (s64)raw.calls, -1);
	KUNIT_EXPECT_EQ(test, shown.bytes, 0);
	KUNIT_EXPECT_EQ(test, shown.calls, 0);
	raw = alloc_tag_read_raw(&unused_tag);
	KUNIT_EXPECT_EQ(test, raw.bytes, 0);
	KUNIT_EXPECT_EQ(test, raw.calls, 0);
}

/*
 * The caches below have a constructor, which SLUB never merges with
 * another cache: each test sees its own cache and slabs.
 */
static void test_ctor(void *object)
{
}

/*
 * Objects carry nothing for their tags: with a constructor, a cache's
 * stride is the object's size rounded up to a pointer, the free pointer
 * after it, rounded up to the alignment, as without profiling. And each
 * object is charged and discharged exactly, through several slabs, with
 * every byte of every object written over.
 */
static void alloc_tag_test_slab_layouts(struct kunit *test)
{
	static const struct {
		unsigned int size, align;
	} cases[] = {
		{ 72, 8 }, { 120, 0 }, { 128, 128 }, { 200, 64 }, { 1024, 1024 },
	};
	void *p[64];
	unsigned int c, i;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		unsigned int size = cases[c].size, align = cases[c].align;
		struct kmem_cache *cache;
		struct snapshot s;

		cache = kmem_cache_create("alloc_tag_test_layout", size, align,
					  0, test_ctor);
		KUNIT_ASSERT_NOT_NULL(test, cache);
		KUNIT_EXPECT_EQ_MSG(test, cache->size,
				    ALIGN(ALIGN(size, sizeof(void *)) +
					  sizeof(void *),
					  max_t(unsigned int, align,
						sizeof(void *))),
				    "%u bytes aligned to %u", size, align);

		/* The tag of the kmem_cache_alloc() line below. */
		snap(test, &s, __LINE__ + 2);
		for (i = 0; i < ARRAY_SIZE(p); i++) {
			p[i] = kmem_cache_alloc(cache, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, p[i]);
			memset(p[i], 0xff, size);
		}
		expect_delta(test, &s, ARRAY_SIZE(p) * size, ARRAY_SIZE(p));
		for (i = 0; i < ARRAY_SIZE(p); i += 2)
			kmem_cache_free(cache, p[i]);
		expect_delta(test, &s, ARRAY_SIZE(p) / 2 * size,
			     ARRAY_SIZE(p) / 2);
		for (i = 1; i < ARRAY_SIZE(p); i += 2)
			kmem_cache_free(cache, p[i]);
		expect_delta(test, &s, 0, 0);
		kmem_cache_destroy(cache);
	}
}

/*
 * A slab gets its vector of tags when one of its objects is first
 * allocated while profiling is on, not before: objects allocated before
 * it are charged to nobody, and their frees discharge nothing.
 */
static void alloc_tag_test_slab_vector(struct kunit *test)
{
	struct kmem_cache *cache;
	void *before, *after;
	struct snapshot s;
	struct slab *slab;

	cache = kmem_cache_create("alloc_tag_test_vector", 96, 0, 0, test_ctor);
	KUNIT_ASSERT_NOT_NULL(test, cache);

	static_branch_disable(&mem_alloc_profiling_key);
	before = SNAP(&s, kmem_cache_alloc(cache, GFP_KERNEL));
	static_branch_enable(&mem_alloc_profiling_key);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_EXPECT_NULL(test, slab_obj_exts(virt_to_slab(before)));
	expect_delta(test, &s, 0, 0);

	/* From the slab the CPU allocates from: the same one. */
	after = SNAP(&s, kmem_cache_alloc(cache, GFP_KERNEL));
	KUNIT_ASSERT_NOT_NULL(test, after);
	expect_delta(test, &s, 96, 1);
	slab = virt_to_slab(after);
	KUNIT_ASSERT_PTR_EQ(test, slab, virt_to_slab(before));
	KUNIT_ASSERT_NOT_NULL(test, slab_obj_exts(slab));
	KUNIT_EXPECT_PTR_EQ(test,
			    slab_obj_exts(slab)[obj_to_index(cache, slab, after)].tag,
			    s.tag);
	KUNIT_EXPECT_NULL(test,
			  slab_obj_exts(slab)[obj_to_index(cache, slab, before)].tag);

	kmem_cache_free(cache, before);
	expect_delta(test, &s, 96, 1);
	kmem_cache_free(cache, after);
	expect_delta(test, &s, 0, 0);
	kmem_cache_destroy(cache);
}

#ifdef CONFIG_CODETAG_DYNAMIC_FAULT
/*
 * A vector that cannot be allocated leaves its slab's objects uncharged,
 * and counted as such; nothing fails and no counter moves.
 */
static void alloc_tag_test_slab_vector_fails(struct kunit *test)
{
	unsigned long failed_before, failed_after;
	struct kmem_cache *cache;
	struct snapshot s;
	void *p;

	cache = kmem_cache_create("alloc_tag_test_novector", 96, 0, 0,
				  test_ctor);
	KUNIT_ASSERT_NOT_NULL(test, cache);

	slab_obj_exts_usage(&failed_before);
	KUNIT_ASSERT_EQ(test,
			dynamic_fault_control("func alloc_slab_obj_exts oneshot"),
			1);
	p = SNAP(&s, kmem_cache_alloc(cache, GFP_KERNEL));
	dynamic_fault_control("func alloc_slab_obj_exts disable");
	slab_obj_exts_usage(&failed_after);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, failed_after, failed_before + 1);
	KUNIT_EXPECT_NULL(test, slab_obj_exts(virt_to_slab(p)));
	expect_delta(test, &s, 0, 0);
	kmem_cache_free(cache, p);
	expect_delta(test, &s, 0, 0);
	kmem_cache_destroy(cache);
}
#endif

static void alloc_tag_test_bulk(struct kunit *test)
{
	struct kmem_cache *cache;
	void *p[NR_ALLOCS];
	struct snapshot s;
	int n;

	cache = kmem_cache_create("alloc_tag_test_bulk", 200, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, cache);
	n = SNAP(&s, kmem_cache_alloc_bulk(cache, GFP_KERNEL, NR_ALLOCS, p));
	KUNIT_ASSERT_EQ(test, n, NR_ALLOCS);
	expect_delta(test, &s, NR_ALLOCS * kmem_cache_size(cache), NR_ALLOCS);
	kmem_cache_free_bulk(cache, NR_ALLOCS, p);
	expect_delta(test, &s, 0, 0);
	kmem_cache_destroy(cache);
}

static void alloc_tag_test_dup(struct kunit *test)
{
	static const char text[] = "a string of forty-three bytes, NUL included";

	EXPECT_CHARGED(kstrdup(text, GFP_KERNEL), kmalloc_size_roundup(sizeof(text)), kfree);
	EXPECT_CHARGED(kstrndup(text, 10, GFP_KERNEL), kmalloc_size_roundup(11), kfree);
	EXPECT_CHARGED(kmemdup(text, 20, GFP_KERNEL), kmalloc_size_roundup(20), kfree);
	EXPECT_CHARGED(kmemdup_nul(text, 20, GFP_KERNEL), kmalloc_size_roundup(21), kfree);
}

/* ---- vmalloc and kvmalloc --------------------------------------------- */

/*
 * An area's pages are charged to the caller, one call per page; its
 * struct vm_struct and page tables to mm/ sites.
 */
#define EXPECT_CHARGED_PAGES(alloc, nr_pages, free_fn) do {		\
	const s64 _n = (nr_pages);					\
	struct snapshot _s;						\
	void *_p = SNAP(&_s, alloc);					\
									\
	KUNIT_ASSERT_NOT_NULL(test, _p);				\
	expect_delta(test, &_s, _n * PAGE_SIZE, _n);			\
	free_fn(_p);							\
	expect_delta(test, &_s, 0, 0);					\
} while (0)

static void alloc_tag_test_vmalloc(struct kunit *test)
{
	const size_t size = 4 * PAGE_SIZE + 1;

	EXPECT_CHARGED_PAGES(vmalloc(size), 5, vfree);
	EXPECT_CHARGED_PAGES(vzalloc(size), 5, vfree);
	EXPECT_CHARGED_PAGES(vmalloc_node(size, NUMA_NO_NODE), 5, vfree);
	EXPECT_CHARGED_PAGES(__vmalloc(size, GFP_KERNEL), 5, vfree);
	EXPECT_CHARGED_PAGES(vmalloc_user(size), 5, vfree);
}

static void alloc_tag_test_kvmalloc(struct kunit *test)
{
	EXPECT_CHARGED(kvmalloc(300, GFP_KERNEL), kmalloc_size_roundup(300), kvfree);

	/* Slab pages or a vmalloc area: 64 KiB either way. */
	EXPECT_CHARGED(kvzalloc(SZ_64K, GFP_KERNEL), SZ_64K, kvfree);

	/* Small: from slab, as kmalloc() would. */
	EXPECT_CHARGED(kvcalloc(10, 30, GFP_KERNEL), kmalloc_size_roundup(300), kvfree);
}

/* ---- Per-CPU ------------------------------------------------------------ */

struct test_percpu_object {
	u64 a, b, c;
};

/* Charged the requested size, rounded to 4 bytes, times possible CPUs. */
static void alloc_tag_test_percpu(struct kunit *test)
{
	struct test_percpu_object __percpu *o;
	size_t size = sizeof(*o) * num_possible_cpus();

	EXPECT_CHARGED(alloc_percpu(struct test_percpu_object), size, free_percpu);
	EXPECT_CHARGED(alloc_percpu_gfp(struct test_percpu_object, GFP_KERNEL), size, free_percpu);
	EXPECT_CHARGED(__alloc_percpu(10, 8), 12 * num_possible_cpus(), free_percpu);
}

static struct kunit_case alloc_tag_test_cases[] = {
	KUNIT_CASE(alloc_tag_test_alloc_pages),
	KUNIT_CASE(alloc_tag_test_high_order),
	KUNIT_CASE(alloc_tag_test_families),
	KUNIT_CASE(alloc_tag_test_free_tail_first),
	KUNIT_CASE(alloc_tag_test_nesting),
	KUNIT_CASE(alloc_tag_test_disabled),
	KUNIT_CASE(alloc_tag_test_disabled_slab),
	KUNIT_CASE(alloc_tag_test_page_ref_cleared),
	KUNIT_CASE(alloc_tag_test_migrate),
	KUNIT_CASE(alloc_tag_test_nesting_slab),
	KUNIT_CASE(alloc_tag_test_kmalloc),
	KUNIT_CASE(alloc_tag_test_kmalloc_family),
	KUNIT_CASE(alloc_tag_test_krealloc),
	KUNIT_CASE(alloc_tag_test_kmem_cache),
	KUNIT_CASE(alloc_tag_test_bulk),
	KUNIT_CASE(alloc_tag_test_slab_layouts),
	KUNIT_CASE(alloc_tag_test_slab_vector),
#ifdef CONFIG_CODETAG_DYNAMIC_FAULT
	KUNIT_CASE(alloc_tag_test_slab_vector_fails),
#endif
	KUNIT_CASE(alloc_tag_test_read_raw),
	KUNIT_CASE(alloc_tag_test_dup),
	KUNIT_CASE(alloc_tag_test_vmalloc),
	KUNIT_CASE(alloc_tag_test_kvmalloc),
	KUNIT_CASE(alloc_tag_test_percpu),
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

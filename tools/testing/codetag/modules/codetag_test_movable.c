// SPDX-License-Identifier: GPL-2.0
/*
 * Pages that compaction may move, allocated at one line of this module,
 * for the page mover tests: a driver's own movable pages, as the balloon
 * drivers and zsmalloc have. On load it allocates "pages" pages, each
 * filled with its own number, and registers them as movable; compaction
 * then moves them through move_page(), and their bytes must stay charged
 * to this module's line.
 *
 * Compaction moves pages from the bottom of a zone into free pages of
 * partly used blocks higher up, and only until its two scanners meet:
 * where a module's pages land among the rest of a large zone decides
 * whether any of them moves. So they come from ZONE_DMA, 16 MiB that
 * other movable allocations leave alone, and every other page allocated
 * is given back, leaving free pages among them to move into.
 *
 * Read-only parameters: "moved" counts the pages compaction moved, and
 * reading "corrupt" checks every page's contents and counts those that
 * are wrong.
 */

#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/migrate.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static unsigned int nr_pages = 1024;
module_param_named(pages, nr_pages, uint, 0400);
MODULE_PARM_DESC(pages, "pages to allocate at load");

static atomic_t moved = ATOMIC_INIT(0);

/* Which page holds number i: changed by move_page() under pages_lock. */
static struct page **pages;
static DEFINE_SPINLOCK(pages_lock);

static void fill(struct page *page, unsigned long i)
{
	unsigned long *p = kmap_local_page(page);
	unsigned int j;

	for (j = 0; j < PAGE_SIZE / sizeof(*p); j++)
		p[j] = i;
	kunmap_local(p);
}

static bool holds(struct page *page, unsigned long i)
{
	unsigned long *p = kmap_local_page(page);
	unsigned int j;
	bool ok = true;

	for (j = 0; j < PAGE_SIZE / sizeof(*p) && ok; j++)
		ok = p[j] == i;
	kunmap_local(p);
	return ok;
}

static const struct movable_operations test_movable_ops;

/* Page number i, locked: move_page() may have replaced it meanwhile. */
static struct page *lock_nth(unsigned int i)
{
	struct page *page;

	for (;;) {
		spin_lock(&pages_lock);
		page = pages[i];
		get_page(page);
		spin_unlock(&pages_lock);
		lock_page(page);
		if (page == READ_ONCE(pages[i]))
			return page;
		unlock_page(page);
		put_page(page);
	}
}

static bool isolate_page(struct page *page, isolate_mode_t mode)
{
	return true;
}

/* Both pages are locked; a page's number is its page->private. */
static int move_page(struct page *dst, struct page *src,
		     enum migrate_mode mode)
{
	unsigned long i = page_private(src);

	copy_highpage(dst, src);
	get_page(dst);
	set_page_private(dst, i);
	__SetPageMovable(dst, &test_movable_ops);
	spin_lock(&pages_lock);
	pages[i] = dst;
	spin_unlock(&pages_lock);
	__ClearPageMovable(src);
	set_page_private(src, 0);
	put_page(src);
	atomic_inc(&moved);
	return MIGRATEPAGE_SUCCESS;
}

static void putback_page(struct page *page)
{
}

static const struct movable_operations test_movable_ops = {
	.isolate_page	= isolate_page,
	.migrate_page	= move_page,
	.putback_page	= putback_page,
};

static int moved_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&moved));
}

static const struct kernel_param_ops moved_ops = { .get = moved_get };
module_param_cb(moved, &moved_ops, NULL, 0400);
MODULE_PARM_DESC(moved, "pages compaction moved");

static int corrupt_get(char *buf, const struct kernel_param *kp)
{
	unsigned int i, bad = 0;
	struct page *page;

	for (i = 0; i < nr_pages; i++) {
		page = lock_nth(i);
		bad += !holds(page, i);
		unlock_page(page);
		put_page(page);
	}
	return sysfs_emit(buf, "%u\n", bad);
}

static const struct kernel_param_ops corrupt_ops = { .get = corrupt_get };
module_param_cb(corrupt, &corrupt_ops, NULL, 0400);
MODULE_PARM_DESC(corrupt, "pages whose contents are wrong (checked on read)");

static void release(unsigned int n)
{
	struct page *page;
	unsigned int i;

	for (i = 0; i < n; i++) {
		/*
		 * No longer movable: a mover that isolated the page finds
		 * that and frees it when it drops its own reference.
		 */
		page = lock_nth(i);
		__ClearPageMovable(page);
		unlock_page(page);
		put_page(page);
		put_page(page);
	}
	kvfree(pages);
}

static noinline struct page *alloc_movable_page(void)
{
	return alloc_page(GFP_USER | __GFP_MOVABLE | __GFP_DMA);
}

static int __init codetag_test_movable_init(void)
{
	struct page *page, *next;
	LIST_HEAD(spares);
	unsigned int i;

	pages = kvcalloc(nr_pages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < nr_pages; i++) {
		/* Most often the page beside the one kept: freed, a hole. */
		page = alloc_movable_page();
		if (page)
			list_add(&page->lru, &spares);
		page = alloc_movable_page();
		if (!page)
			break;
		fill(page, i);
		set_page_private(page, i);
		pages[i] = page;
		lock_page(page);
		__SetPageMovable(page, &test_movable_ops);
		unlock_page(page);
	}
	list_for_each_entry_safe(page, next, &spares, lru)
		__free_page(page);
	if (i < nr_pages) {
		release(i);
		return -ENOMEM;
	}
	return 0;
}
module_init(codetag_test_movable_init);

static void __exit codetag_test_movable_exit(void)
{
	release(nr_pages);
}
module_exit(codetag_test_movable_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("codetag tests: movable pages compaction moves");

// SPDX-License-Identifier: GPL-2.0
/*
 * A range of contiguous pages taken with alloc_contig_range(), as
 * virtio-mem and CMA take theirs, for the allocation profiling tests: the
 * range is charged to the line that took it, until it is given back, and
 * that line's memory fault point fails the call.
 *
 * Writing N to the "pages" parameter gives back the range held, then
 * takes N contiguous pages (a power of two, at most MAX_ORDER_NR_PAGES);
 * the write fails with the error alloc_contig_range() returned. Writing 0
 * only gives the range back, as unloading does.
 */

#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

static DEFINE_MUTEX(range_lock);
static unsigned long range_pfn;
static unsigned int range_pages;

static void range_give_back(void)
{
	if (range_pages)
		free_contig_range(range_pfn, range_pages);
	range_pages = 0;
}

/*
 * Where to take the range from: a free block of the right size, found by
 * allocating one and giving it back. Others may take part of it before
 * alloc_contig_range() isolates it; it then migrates what it can, or fails
 * with -EBUSY, and another block is tried.
 */
static int range_take(unsigned int nr)
{
	unsigned int order = ilog2(nr);
	int tries, ret = -EBUSY;

	for (tries = 0; tries < 8 && ret == -EBUSY; tries++) {
		struct page *probe;
		unsigned long pfn;

		probe = alloc_pages(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN, order);
		if (!probe)
			return -ENOMEM;
		pfn = page_to_pfn(probe);
		__free_pages(probe, order);

		ret = alloc_contig_range(pfn, pfn + nr, MIGRATE_MOVABLE,
					 GFP_KERNEL);
		if (!ret) {
			range_pfn = pfn;
			range_pages = nr;
		}
	}
	return ret;
}

static int pages_set(const char *val, const struct kernel_param *kp)
{
	unsigned int nr;
	int ret;

	ret = kstrtouint(val, 0, &nr);
	if (ret)
		return ret;
	if (nr && (!is_power_of_2(nr) || nr > MAX_ORDER_NR_PAGES))
		return -EINVAL;

	mutex_lock(&range_lock);
	range_give_back();
	if (nr)
		ret = range_take(nr);
	mutex_unlock(&range_lock);
	return ret;
}

static int pages_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(range_pages));
}

static const struct kernel_param_ops pages_ops = {
	.set = pages_set,
	.get = pages_get,
};
module_param_cb(pages, &pages_ops, NULL, 0644);
MODULE_PARM_DESC(pages, "contiguous pages held (write N to take N)");

static void __exit codetag_test_contig_exit(void)
{
	range_give_back();
}
module_exit(codetag_test_contig_exit);

MODULE_DESCRIPTION("codetag test: alloc_contig_range() at a module's line");
MODULE_LICENSE("GPL");

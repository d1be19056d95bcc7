// SPDX-License-Identifier: GPL-2.0
/*
 * Must build: a module that is not GPL (an out-of-tree driver on a
 * distribution's kernel) allocates with every allocator 6.1 exports to
 * such modules (not the per-CPU one, which is GPL-only). alloc_hooks()
 * expands in the module itself, so whatever it calls must be exported to
 * every module, not to GPL modules only. make check builds this against
 * the guest kernel; modpost refuses it otherwise. It is never loaded.
 */

#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

static int __init non_gpl_alloc_init(void)
{
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	void *obj = kmalloc(64, GFP_KERNEL);
	void *area = vmalloc(PAGE_SIZE);

	vfree(area);
	kfree(obj);
	if (page)
		__free_pages(page, 0);
	return 0;
}
module_init(non_gpl_alloc_init);

MODULE_DESCRIPTION("A non-GPL module's allocations, for make check");
MODULE_LICENSE("Proprietary");

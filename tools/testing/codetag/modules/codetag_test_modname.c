// SPDX-License-Identifier: GPL-2.0
/*
 * A module built as shmem.ko, the name KBUILD_MODNAME gives mm/shmem.c in
 * vmlinux, with one allocation site, a memory fault point, that its
 * initialisation allocates at:
 *
 *   insmod shmem.ko dynamic_fault="class memory probability 0"
 *
 * must arm that point only: a module's dynamic_fault= parameter is for
 * the module's own points, not for those of vmlinux's objects of its name.
 */

#include <linux/module.h>
#include <linux/slab.h>

static int __init codetag_test_modname_init(void)
{
	void *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kfree(p);
	return 0;
}
module_init(codetag_test_modname_init);

static void __exit codetag_test_modname_exit(void)
{
}
module_exit(codetag_test_modname_exit);

MODULE_DESCRIPTION("A module named as a built-in object, with one fault point");
MODULE_LICENSE("GPL");

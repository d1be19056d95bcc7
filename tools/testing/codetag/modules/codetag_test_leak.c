// SPDX-License-Identifier: GPL-2.0
/*
 * A leak on demand, for the allocation profiling tests:
 *
 *   echo N > /sys/kernel/debug/codetag_test_leak
 *
 * allocates N pages at one line of this file and N 128-byte objects at
 * another, and hands them to codetag_test_holder.ko, which keeps them
 * after this module is gone and frees them when asked: the test can then
 * unload this module with live allocations charged to it, and free them
 * afterwards.
 */

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "codetag_test_holder.h"

#define LEAK_OBJECT_SIZE	128

static noinline int leak_pages(unsigned int n)
{
	struct page *page;

	while (n--) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		codetag_test_hold(page);
	}
	return 0;
}

static noinline int leak_objects(unsigned int n)
{
	struct list_head *object;

	while (n--) {
		object = kmalloc(LEAK_OBJECT_SIZE, GFP_KERNEL);
		if (!object)
			return -ENOMEM;
		codetag_test_hold_object(object);
	}
	return 0;
}

static ssize_t leak_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	unsigned int n;
	int err;

	err = kstrtouint_from_user(ubuf, len, 10, &n);
	if (err)
		return err;
	err = leak_pages(n);
	if (!err)
		err = leak_objects(n);
	return err ? err : len;
}

static const struct file_operations leak_fops = {
	.owner	= THIS_MODULE,
	.write	= leak_write,
};

static struct dentry *leak_file;

static int __init codetag_test_leak_init(void)
{
	leak_file = debugfs_create_file("codetag_test_leak", 0200, NULL, NULL,
					&leak_fops);
	return 0;
}
module_init(codetag_test_leak_init);

static void __exit codetag_test_leak_exit(void)
{
	debugfs_remove(leak_file);
}
module_exit(codetag_test_leak_exit);

MODULE_DESCRIPTION("Leaks pages and objects on demand for the allocation profiling tests");
MODULE_LICENSE("GPL");

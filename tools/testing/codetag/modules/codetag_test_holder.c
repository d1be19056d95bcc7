// SPDX-License-Identifier: GPL-2.0
/*
 * Holds pages that codetag_test_leak.ko allocated, past that module's
 * unload; any write to /sys/kernel/debug/codetag_test_holder frees them.
 */

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "codetag_test_holder.h"

static LIST_HEAD(held);
static LIST_HEAD(held_objects);
static DEFINE_SPINLOCK(held_lock);

void codetag_test_hold(struct page *page)
{
	spin_lock(&held_lock);
	list_add(&page->lru, &held);
	spin_unlock(&held_lock);
}
EXPORT_SYMBOL_GPL(codetag_test_hold);

void codetag_test_hold_object(struct list_head *object)
{
	spin_lock(&held_lock);
	list_add(object, &held_objects);
	spin_unlock(&held_lock);
}
EXPORT_SYMBOL_GPL(codetag_test_hold_object);

static void free_held(void)
{
	struct list_head *object, *next;
	struct page *page, *tmp;
	LIST_HEAD(objects);
	LIST_HEAD(list);

	spin_lock(&held_lock);
	list_splice_init(&held, &list);
	list_splice_init(&held_objects, &objects);
	spin_unlock(&held_lock);
	list_for_each_entry_safe(page, tmp, &list, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	list_for_each_safe(object, next, &objects)
		kfree(object);
}

static ssize_t holder_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	free_held();
	return len;
}

static const struct file_operations holder_fops = {
	.owner	= THIS_MODULE,
	.write	= holder_write,
};

static struct dentry *holder_file;

static int __init codetag_test_holder_init(void)
{
	holder_file = debugfs_create_file("codetag_test_holder", 0200, NULL,
					  NULL, &holder_fops);
	return 0;
}
module_init(codetag_test_holder_init);

static void __exit codetag_test_holder_exit(void)
{
	debugfs_remove(holder_file);
	free_held();
}
module_exit(codetag_test_holder_exit);

MODULE_DESCRIPTION("Holds pages and objects for the allocation profiling tests");
MODULE_LICENSE("GPL");

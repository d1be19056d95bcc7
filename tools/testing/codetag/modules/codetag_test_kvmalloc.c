// SPDX-License-Identifier: GPL-2.0
/*
 * kvmalloc() calls at memory fault points:
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_kvmalloc
 *
 * allocates four pages with kvmalloc() and fails with -ENOMEM if the
 * call did: a point that fails the call fails it whole, not only its
 * kmalloc attempt, after which the vmalloc fallback would succeed.
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_kvmalloc_nofail
 *
 * does the same with __GFP_NOFAIL, which no point may fail.
 */

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

static noinline int kv_alloc(void)
{
	void *p = kvmalloc(4 * PAGE_SIZE, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	kvfree(p);
	return 0;
}

static noinline int kv_nofail(void)
{
	void *p = kvmalloc(4 * PAGE_SIZE, GFP_KERNEL | __GFP_NOFAIL);

	if (!p)
		return -ENOMEM;
	kvfree(p);
	return 0;
}

static ssize_t alloc_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	int err = kv_alloc();

	return err ?: len;
}

static ssize_t nofail_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	int err = kv_nofail();

	return err ?: len;
}

static const struct file_operations alloc_fops = {
	.owner	= THIS_MODULE,
	.write	= alloc_write,
};

static const struct file_operations nofail_fops = {
	.owner	= THIS_MODULE,
	.write	= nofail_write,
};

static struct dentry *alloc_file, *nofail_file;

static int __init codetag_test_kvmalloc_init(void)
{
	alloc_file = debugfs_create_file("codetag_test_kvmalloc", 0200, NULL,
					 NULL, &alloc_fops);
	nofail_file = debugfs_create_file("codetag_test_kvmalloc_nofail", 0200,
					  NULL, NULL, &nofail_fops);
	return 0;
}
module_init(codetag_test_kvmalloc_init);

static void __exit codetag_test_kvmalloc_exit(void)
{
	debugfs_remove(nofail_file);
	debugfs_remove(alloc_file);
}
module_exit(codetag_test_kvmalloc_exit);

MODULE_DESCRIPTION("kvmalloc() calls at memory fault points");
MODULE_LICENSE("GPL");

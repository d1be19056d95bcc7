// SPDX-License-Identifier: GPL-2.0
/*
 * An allocation that asks for no warning, at a memory fault point:
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_nowarn
 *
 * allocates with __GFP_NOWARN and fails with -ENOMEM if the allocation
 * did. A verbose point there fails it without a report, as the caller
 * asked.
 */

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/slab.h>

static noinline int nowarn_alloc(void)
{
	void *p = kmalloc(64, GFP_KERNEL | __GFP_NOWARN);

	if (!p)
		return -ENOMEM;
	kfree(p);
	return 0;
}

static ssize_t nowarn_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	int err = nowarn_alloc();

	return err ?: len;
}

static const struct file_operations nowarn_fops = {
	.owner	= THIS_MODULE,
	.write	= nowarn_write,
};

static struct dentry *nowarn_file;

static int __init codetag_test_nowarn_init(void)
{
	nowarn_file = debugfs_create_file("codetag_test_nowarn", 0200, NULL,
					  NULL, &nowarn_fops);
	return 0;
}
module_init(codetag_test_nowarn_init);

static void __exit codetag_test_nowarn_exit(void)
{
	debugfs_remove(nowarn_file);
}
module_exit(codetag_test_nowarn_exit);

MODULE_DESCRIPTION("An allocation with __GFP_NOWARN at a memory fault point");
MODULE_LICENSE("GPL");

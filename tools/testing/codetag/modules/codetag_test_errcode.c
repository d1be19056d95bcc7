// SPDX-License-Identifier: GPL-2.0
/*
 * Unique error codes from a module, for the errcode tests:
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_errcode
 *
 * fails with -ERR(EINVAL) and logs the error with %pe.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/codetag/errcode.h>
#include <linux/debugfs.h>
#include <linux/module.h>

static noinline int errcode_op(void)
{
	return -ERR(EINVAL);
}

static ssize_t errcode_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	int err = errcode_op();

	pr_err("operation failed: error %pe\n", ERR_PTR(err));
	return err;
}

static const struct file_operations errcode_fops = {
	.owner	= THIS_MODULE,
	.write	= errcode_write,
};

static struct dentry *errcode_file;

static int __init codetag_test_errcode_init(void)
{
	errcode_file = debugfs_create_file("codetag_test_errcode", 0200, NULL,
					   NULL, &errcode_fops);
	return 0;
}
module_init(codetag_test_errcode_init);

static void __exit codetag_test_errcode_exit(void)
{
	debugfs_remove(errcode_file);
}
module_exit(codetag_test_errcode_exit);

MODULE_DESCRIPTION("Unique error codes from a module");
MODULE_LICENSE("GPL");

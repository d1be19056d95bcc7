// SPDX-License-Identifier: GPL-2.0
/*
 * errname(), through %pe (errname() is not exported), from a shell, for
 * codes whose module is gone:
 *
 *   echo -1027 > /sys/kernel/debug/codetag_test_errname
 *
 * logs "errname(-1027): -EINVAL".
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/module.h>

static ssize_t errname_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	int err, ret;

	ret = kstrtoint_from_user(ubuf, len, 10, &err);
	if (ret)
		return ret;
	pr_info("errname(%d): %pe\n", err, ERR_PTR(err));
	return len;
}

static const struct file_operations errname_fops = {
	.owner	= THIS_MODULE,
	.write	= errname_write,
};

static struct dentry *errname_file;

static int __init codetag_test_errname_init(void)
{
	errname_file = debugfs_create_file("codetag_test_errname", 0200, NULL,
					   NULL, &errname_fops);
	return 0;
}
module_init(codetag_test_errname_init);

static void __exit codetag_test_errname_exit(void)
{
	debugfs_remove(errname_file);
}
module_exit(codetag_test_errname_exit);

MODULE_DESCRIPTION("errname() from a shell");
MODULE_LICENSE("GPL");

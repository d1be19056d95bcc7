// SPDX-License-Identifier: GPL-2.0
/*
 * Unique error codes from a module, for the errcode tests:
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_errcode
 *
 * fails with -ERR(EINVAL) and logs the error with %pe. So does a write to
 * /dev/codetag_test_errcode, a character device whose write_iter
 * completes at once (FMODE_NOWAIT): the file io_uring and Linux AIO
 * write to, inline or from io_uring's workers, whose results reach
 * userspace without a system call return.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/codetag/err.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uio.h>

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

/* io_uring completes a write inline only to a file that cannot block. */
static int errcode_dev_open(struct inode *inode, struct file *file)
{
	file->f_mode |= FMODE_NOWAIT;
	return 0;
}

static ssize_t errcode_dev_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return errcode_op();
}

static const struct file_operations errcode_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= errcode_dev_open,
	.write_iter	= errcode_dev_write_iter,
	.llseek		= noop_llseek,
};

static struct miscdevice errcode_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "codetag_test_errcode",
	.fops	= &errcode_dev_fops,
	.mode	= 0200,
};

static struct dentry *errcode_file;

static int __init codetag_test_errcode_init(void)
{
	int err;

	errcode_file = debugfs_create_file("codetag_test_errcode", 0200, NULL,
					   NULL, &errcode_fops);
	err = misc_register(&errcode_dev);
	if (err)
		debugfs_remove(errcode_file);
	return err;
}
module_init(codetag_test_errcode_init);

static void __exit codetag_test_errcode_exit(void)
{
	misc_deregister(&errcode_dev);
	debugfs_remove(errcode_file);
}
module_exit(codetag_test_errcode_exit);

MODULE_DESCRIPTION("Unique error codes from a module");
MODULE_LICENSE("GPL");

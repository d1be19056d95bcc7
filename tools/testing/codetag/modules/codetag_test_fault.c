// SPDX-License-Identifier: GPL-2.0
/*
 * An operation with an error path at every allocation, for the fault
 * injection tests:
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_fault/run
 *
 * sets up a request the way a driver would (an object, a name, a slab
 * object from its own cache, pages, a vmalloc buffer, per-CPU counters),
 * tears it down again, and returns -ENOMEM if any allocation failed,
 * having freed what it had. An error-path sweep arms each of these
 * allocation sites in turn and checks that nothing leaks.
 *
 *   cat /sys/kernel/debug/codetag_test_fault/repeat
 *
 * allocates and frees 1000 times at one line and prints how many of the
 * allocations failed.
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_fault/arm_all
 *
 * arms every memory fault point in the kernel with the command
 * "class memory enable", runs the operation, disarms them all with
 * "class memory disable" and returns the operation's result.
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_fault/io
 *
 * runs an I/O that a dynamic_fault("codetag_test:io") point fails with
 * -EIO, in a function that keeps a value across a call.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/codetag/dynamic_fault.h>
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define FAULT_REPEAT	1000

struct fault_request {
	char *name;
	void *object;
	struct page *pages;
	void *buffer;
	u64 __percpu *stats;
};

static struct kmem_cache *fault_cache;

static noinline int fault_op(void)
{
	struct fault_request *req;
	int err = -ENOMEM;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	req->name = kstrdup("codetag_test_fault", GFP_KERNEL);
	if (!req->name)
		goto free_req;
	req->object = kmem_cache_alloc(fault_cache, GFP_KERNEL);
	if (!req->object)
		goto free_name;
	req->pages = alloc_pages(GFP_KERNEL, 1);
	if (!req->pages)
		goto free_object;
	req->buffer = vmalloc(4 * PAGE_SIZE);
	if (!req->buffer)
		goto free_pages;
	req->stats = alloc_percpu(u64);
	if (!req->stats)
		goto free_buffer;

	err = 0;
	free_percpu(req->stats);
free_buffer:
	vfree(req->buffer);
free_pages:
	__free_pages(req->pages, 1);
free_object:
	kmem_cache_free(fault_cache, req->object);
free_name:
	kfree(req->name);
free_req:
	kfree(req);
	return err;
}

static noinline int fault_io_step(int n)
{
	OPTIMIZER_HIDE_VAR(n);
	return n;
}

static noinline int fault_io(int n)
{
	if (dynamic_fault("codetag_test:io"))
		return -EIO;
	return fault_io_step(fault_io_step(n) + n) ? 0 : -EINVAL;
}

static ssize_t io_write(struct file *file, const char __user *ubuf,
			size_t len, loff_t *ppos)
{
	int err = fault_io(1);

	return err ? err : len;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	int err = fault_op();

	return err ? err : len;
}

static noinline unsigned int fault_repeat(void)
{
	unsigned int i, failed = 0;
	void *p;

	for (i = 0; i < FAULT_REPEAT; i++) {
		p = kmalloc(32, GFP_KERNEL);
		if (!p)
			failed++;
		kfree(p);
	}
	return failed;
}

static ssize_t repeat_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	char buf[16];
	int n;

	n = scnprintf(buf, sizeof(buf), "%u\n", *ppos ? 0 : fault_repeat());
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static ssize_t arm_all_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	int armed, err;

	armed = dynamic_fault_control("class memory enable");
	if (armed < 0)
		return armed;
	err = fault_op();
	pr_info("'class memory enable' armed %d fault points\n", armed);
	armed = dynamic_fault_control("class memory disable");
	if (armed < 0)
		return armed;
	return err ? err : len;
}

static const struct file_operations run_fops = {
	.owner	= THIS_MODULE,
	.write	= run_write,
};

static const struct file_operations repeat_fops = {
	.owner	= THIS_MODULE,
	.read	= repeat_read,
};

static const struct file_operations arm_all_fops = {
	.owner	= THIS_MODULE,
	.write	= arm_all_write,
};

static const struct file_operations io_fops = {
	.owner	= THIS_MODULE,
	.write	= io_write,
};

static struct dentry *fault_dir;

static int __init codetag_test_fault_init(void)
{
	fault_cache = kmem_cache_create("codetag_test_fault", 192, 0, 0, NULL);
	if (!fault_cache)
		return -ENOMEM;
	fault_dir = debugfs_create_dir("codetag_test_fault", NULL);
	debugfs_create_file("run", 0200, fault_dir, NULL, &run_fops);
	debugfs_create_file("repeat", 0400, fault_dir, NULL, &repeat_fops);
	debugfs_create_file("arm_all", 0200, fault_dir, NULL, &arm_all_fops);
	debugfs_create_file("io", 0200, fault_dir, NULL, &io_fops);
	return 0;
}
module_init(codetag_test_fault_init);

static void __exit codetag_test_fault_exit(void)
{
	debugfs_remove(fault_dir);
	kmem_cache_destroy(fault_cache);
}
module_exit(codetag_test_fault_exit);

MODULE_DESCRIPTION("An operation with an error path at every allocation");
MODULE_LICENSE("GPL");

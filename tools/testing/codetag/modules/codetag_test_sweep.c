// SPDX-License-Identifier: GPL-2.0
/*
 * Planted bugs for "codetag sweep": an operation with five allocations,
 *
 *   echo 1 > /sys/kernel/debug/codetag_test_sweep
 *
 * each with its own error path. Two are correct: the first allocation's
 * (nothing to undo) and the last one's. The other three are wrong, each in
 * one way a sweep must tell apart:
 *
 *   - the second allocation's forgets the first object: a leak;
 *   - the third's frees the second object twice: a double free, which
 *     KASAN reports (planted only where KASAN is there to catch it: on
 *     other kernels that path frees once and is correct);
 *   - the fourth's returns with a semaphore still held for reading:
 *     lockdep reports a lock held on return to user space. Readers share
 *     it, so later operations go on.
 *
 * The last allocation's error path is correct, and is the only one that
 * times itself, at one of two time_stats sites in turn, the way an error
 * path that waits reaches wait sites nothing waited at before: time_stats
 * keeps a site's statistics from its first recording on, which a sweep
 * must not take for a leak, however many runs it takes to see them all
 * (where time_stats is built: the 6.12 series has no time_stats yet).
 *
 * A sweep lists the allocation sites from the last line up, so that the
 * lock bug is met before the double free: a KASAN report switches lockdep
 * off for the rest of the boot.
 */

#ifdef CONFIG_CODETAG_TIME_STATS
#include <linux/codetag/time_stats.h>
#endif
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/slab.h>

static DECLARE_RWSEM(sweep_sem);

static noinline int sweep_op(void)
{
	void *head, *leaky, *twice, *locked, *last;
	int err = -ENOMEM;

	head = kmalloc(64, GFP_KERNEL);
	if (!head)
		return -ENOMEM;
	leaky = kmalloc(128, GFP_KERNEL);
	if (!leaky)
		return -ENOMEM;			/* planted: head is lost */
	twice = kmalloc(256, GFP_KERNEL);
	if (!twice) {
		kfree(leaky);
		if (IS_ENABLED(CONFIG_KASAN)) {
			OPTIMIZER_HIDE_VAR(leaky);
			kfree(leaky);		/* planted: a double free */
		}
		kfree(head);
		return -ENOMEM;
	}
	down_read(&sweep_sem);
	locked = kmalloc(512, GFP_KERNEL);
	if (!locked) {
		kfree(twice);
		kfree(leaky);
		kfree(head);
		return -ENOMEM;			/* planted: sweep_sem held */
	}
	last = kmalloc(1024, GFP_KERNEL);
	if (!last) {
#ifdef CONFIG_CODETAG_TIME_STATS
		static unsigned int failures;
		u64 t;

		if (failures++ % 2) {
			time_stats_start(t);
			time_stats_end(t);
		} else {
			time_stats_start(t);
			time_stats_end(t);
		}
#endif
		goto out;
	}
	err = 0;
	kfree(last);
out:
	kfree(locked);
	up_read(&sweep_sem);
	kfree(twice);
	kfree(leaky);
	kfree(head);
	return err;
}

static ssize_t sweep_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	int err = sweep_op();

	return err ? err : len;
}

static const struct file_operations sweep_fops = {
	.owner	= THIS_MODULE,
	.write	= sweep_write,
};

static struct dentry *sweep_file;
static void *sweep_state, *sweep_table;

/*
 * And two planted in the module's initialisation, for "codetag sweep
 * --load": the state's allocation fails cleanly (the load fails, nothing
 * is kept), the table's forgets the state: a leak that only a sweep which
 * loads the module can reach.
 */
static int __init codetag_test_sweep_init(void)
{
	sweep_state = kzalloc(96, GFP_KERNEL);
	if (!sweep_state)
		return -ENOMEM;
	sweep_table = kzalloc(192, GFP_KERNEL);
	if (!sweep_table)
		return -ENOMEM;			/* planted: sweep_state is lost */
	sweep_file = debugfs_create_file("codetag_test_sweep", 0200, NULL,
					 NULL, &sweep_fops);
	return 0;
}
module_init(codetag_test_sweep_init);

static void __exit codetag_test_sweep_exit(void)
{
	debugfs_remove(sweep_file);
	kfree(sweep_table);
	kfree(sweep_state);
}
module_exit(codetag_test_sweep_exit);

MODULE_DESCRIPTION("Planted error path bugs for codetag sweep");
MODULE_LICENSE("GPL");

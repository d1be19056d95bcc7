// SPDX-License-Identifier: GPL-2.0
/*
 * Busy waits of known lengths at one time_stats site, for the accuracy
 * tests:
 *
 *   echo "COUNT NS [COUNT NS ...]" > /sys/kernel/debug/codetag_test_busy
 *
 * waits COUNT times NS nanoseconds for each pair, taking the pairs in
 * turn until every count is spent, with interrupts off, each wait timed
 * at the time_stats_end() line of busy_wait(). Run in a guest
 * whose time counts instructions (qemu -icount), a wait lasts what it was
 * asked to plus the few hundred nanoseconds of the clock reads around it,
 * however busy the host is: the test knows the true durations.
 */

#include <linux/codetag/time_stats.h>
#include <linux/debugfs.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#define BUSY_MAX_PAIRS	8
#define BUSY_MAX_NS	(100 * NSEC_PER_MSEC)

static noinline void busy_wait(u64 ns)
{
	unsigned long flags;
	u64 t, end, i;

	/* Nothing but the wait between the two clock reads: no interrupt. */
	local_irq_save(flags);
	time_stats_start(t);
	end = ktime_get_ns() + ns;
	/* A clock read takes a nanosecond at least: bounded by @ns reads. */
	for (i = 0; i < ns && ktime_get_ns() < end; i++)
		cpu_relax();
	time_stats_end(t);
	local_irq_restore(flags);
}

static ssize_t busy_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	unsigned int count[BUSY_MAX_PAIRS], n = 0, i, left;
	u64 ns[BUSY_MAX_PAIRS];
	char *buf, *p, *word;
	int err = 0;

	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	p = strim(buf);
	while (!err && (word = strsep(&p, " \t\n")) && *word) {
		if (n == BUSY_MAX_PAIRS || !p) {
			err = -EINVAL;
			break;
		}
		err = kstrtouint(word, 10, &count[n]);
		if (!err)
			err = kstrtou64(strsep(&p, " \t\n"), 10, &ns[n]);
		if (!err && ns[n] > BUSY_MAX_NS)
			err = -ERANGE;
		n++;
	}
	kfree(buf);
	if (err || !n)
		return err ?: -EINVAL;

	do {
		left = 0;
		for (i = 0; i < n; i++) {
			if (!count[i])
				continue;
			busy_wait(ns[i]);
			left += --count[i];
		}
		cond_resched();
	} while (left);
	return len;
}

static const struct file_operations busy_fops = {
	.owner	= THIS_MODULE,
	.write	= busy_write,
};

static struct dentry *busy_file;

static int __init codetag_test_busy_init(void)
{
	busy_file = debugfs_create_file("codetag_test_busy", 0200, NULL, NULL,
					&busy_fops);
	return 0;
}
module_init(codetag_test_busy_init);

static void __exit codetag_test_busy_exit(void)
{
	debugfs_remove(busy_file);
}
module_exit(codetag_test_busy_exit);

MODULE_DESCRIPTION("Busy waits of known lengths, for the time_stats accuracy tests");
MODULE_LICENSE("GPL");

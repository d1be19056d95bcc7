// SPDX-License-Identifier: GPL-2.0
/*
 * A wait of known length, for the latency statistics tests:
 *
 *   echo N > /sys/kernel/debug/codetag_test_wait
 *
 * waits N times on a wait queue for an hrtimer that wakes it 10 ms later,
 * at one wait_event() line of this file, and times the N waits once more
 * with time_stats_start()/end() around them. The timer is started
 * once the wait has begun, so that each wait as the wait queue times it
 * lasts at least 10 ms however late the task gets to it.
 */

#include <linux/codetag/time_stats.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/wait.h>

#define WAIT_NS	(10 * NSEC_PER_MSEC)

static DECLARE_WAIT_QUEUE_HEAD(test_wq);
static struct hrtimer test_timer;
static bool test_woken;
static bool test_armed;

static enum hrtimer_restart test_wake(struct hrtimer *timer)
{
	WRITE_ONCE(test_woken, true);
	wake_up(&test_wq);
	return HRTIMER_NORESTART;
}

/* In the wait, after prepare_to_wait_event() began timing it. */
static void arm_once(void)
{
	if (test_armed)
		return;
	test_armed = true;
	hrtimer_start(&test_timer, ns_to_ktime(WAIT_NS), HRTIMER_MODE_REL);
}

static noinline void wait_10ms(void)
{
	WRITE_ONCE(test_woken, false);
	test_armed = false;
	wait_event_cmd(test_wq, READ_ONCE(test_woken), arm_once(), (void)0);
}

static ssize_t wait_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	unsigned int i, n;
	int err;
	u64 t;

	err = kstrtouint_from_user(ubuf, len, 10, &n);
	if (err)
		return err;
	time_stats_start(t);
	for (i = 0; i < n; i++)
		wait_10ms();
	time_stats_end(t);
	return len;
}

static const struct file_operations wait_fops = {
	.owner	= THIS_MODULE,
	.write	= wait_write,
};

static struct dentry *wait_file;

static int __init codetag_test_wait_init(void)
{
	hrtimer_init(&test_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	test_timer.function = test_wake;
	wait_file = debugfs_create_file("codetag_test_wait", 0200, NULL, NULL,
					&wait_fops);
	return 0;
}
module_init(codetag_test_wait_init);

static void __exit codetag_test_wait_exit(void)
{
	debugfs_remove(wait_file);
	hrtimer_cancel(&test_timer);
}
module_exit(codetag_test_wait_exit);

MODULE_DESCRIPTION("A wait of known length, for the latency statistics tests");
MODULE_LICENSE("GPL");

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
 *
 *   echo signal > /sys/kernel/debug/codetag_test_wait_abandoned
 *   echo remove > /sys/kernel/debug/codetag_test_wait_abandoned
 *
 * begins a wait that ends without finish_wait(): a wait_event_interruptible()
 * that a SIGUSR1 it sends itself first interrupts (the writer must handle
 * the signal: its default action would end the writer), or an open-coded
 * prepare_to_wait() ended with remove_wait_queue(). It then
 * sleeps 1 s without a wait queue and waits 10 ms once, as above: that
 * wait must be recorded as 10 ms, not as the second since the one that
 * was abandoned.
 */

#include <linux/codetag/time_stats.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
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

/* Never woken: only the signal ends it. */
static noinline int abandon_on_signal(void)
{
	int err;

	send_sig(SIGUSR1, current, 0);
	err = wait_event_interruptible(test_wq, false);
	return err == -ERESTARTSYS ? 0 : -EIO;
}

static noinline void abandon_by_removing(void)
{
	DEFINE_WAIT(wait);

	prepare_to_wait(&test_wq, &wait, TASK_UNINTERRUPTIBLE);
	__set_current_state(TASK_RUNNING);
	remove_wait_queue(&test_wq, &wait);
}

static ssize_t abandoned_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char buf[8] = {};
	int err = 0;

	if (len >= sizeof(buf) || copy_from_user(buf, ubuf, len))
		return -EINVAL;
	if (sysfs_streq(buf, "signal"))
		err = abandon_on_signal();
	else if (sysfs_streq(buf, "remove"))
		abandon_by_removing();
	else
		return -EINVAL;
	if (err)
		return err;
	msleep(1000);
	wait_10ms();
	return len;
}

static const struct file_operations abandoned_fops = {
	.owner	= THIS_MODULE,
	.write	= abandoned_write,
};

static struct dentry *wait_file, *abandoned_file;

static int __init codetag_test_wait_init(void)
{
	hrtimer_init(&test_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	test_timer.function = test_wake;
	wait_file = debugfs_create_file("codetag_test_wait", 0200, NULL, NULL,
					&wait_fops);
	abandoned_file = debugfs_create_file("codetag_test_wait_abandoned",
					     0200, NULL, NULL, &abandoned_fops);
	return 0;
}
module_init(codetag_test_wait_init);

static void __exit codetag_test_wait_exit(void)
{
	debugfs_remove(abandoned_file);
	debugfs_remove(wait_file);
	hrtimer_cancel(&test_timer);
}
module_exit(codetag_test_wait_exit);

MODULE_DESCRIPTION("A wait of known length, for the latency statistics tests");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Huge pages split while other tasks lock and unlock their pages.
 *
 * Splitting a huge page unfreezes each tail page's refcount while the
 * tail is still locked (PG_locked is copied from the head), so that a
 * pfn walker can take a reference and wait in lock_page(), setting
 * PG_waiters; whatever the split writes to a tail's flags after that must
 * be atomic, or the waiter is never woken. Allocation profiling gives the
 * tails their tag references then.
 *
 * Writing N to /sys/kernel/debug/codetag_test_split runs N rounds: a
 * shmem file gets one huge page (transparent_hugepage/shmem_enabled must
 * be "force"), two kernel threads lock and unlock the pages of its pfn
 * range, taking only pages of the file, while the page is split by
 * punching a hole in it; then the threads stop and the file goes. A round
 * fails if a thread does not stop within ten seconds (a waiter left
 * asleep), or if the page was not huge. Reading the file gives "rounds R
 * split S waits W failed F": S counts the huge pages that were split (a
 * split the page's references keep from happening is not retried), W the
 * times a thread found a page locked and slept for it.
 */

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>

#define LOCKERS	2

static struct dentry *file;
static DEFINE_MUTEX(run_lock);
static unsigned long rounds, splits, failed;
static atomic_long_t waits;

struct locker {
	struct address_space *mapping;
	unsigned long pfn;		/* the huge page's first */
	struct completion done;
	bool stop;
};

/*
 * Lock and unlock each tail page of the range that belongs to the file.
 * Tails have no reference of their own until the split gives them one, so
 * these threads never keep the split from happening: they take the tails
 * as soon as it does.
 */
static int locker_fn(void *data)
{
	struct locker *l = data;
	unsigned long i;

	while (!READ_ONCE(l->stop)) {
		for (i = 1; i < HPAGE_PMD_NR; i++) {
			struct page *page = pfn_to_page(l->pfn + i);

			if (!get_page_unless_zero(page))
				continue;
			if (READ_ONCE(page->mapping) == l->mapping) {
				if (!trylock_page(page)) {
					atomic_long_inc(&waits);
					lock_page(page);
				}
				unlock_page(page);
			}
			put_page(page);
		}
		cond_resched();
	}
	complete(&l->done);
	return 0;
}

static int one_round(void)
{
	struct address_space *mapping;
	struct locker *l;
	struct file *shm;
	struct page *page;
	bool huge, split;
	int i, ret = 0;

	l = kcalloc(LOCKERS, sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	shm = shmem_file_setup("codetag_test_split", HPAGE_PMD_SIZE, 0);
	if (IS_ERR(shm)) {
		kfree(l);
		return PTR_ERR(shm);
	}
	mapping = shm->f_mapping;
	page = shmem_read_mapping_page(mapping, 0);
	if (IS_ERR(page)) {
		ret = PTR_ERR(page);
		goto out;
	}
	huge = PageTransHuge(page);
	for (i = 0; i < LOCKERS; i++) {
		l[i].mapping = mapping;
		l[i].pfn = page_to_pfn(compound_head(page));
		init_completion(&l[i].done);
	}
	put_page(page);
	if (!huge) {
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < LOCKERS; i++)
		if (IS_ERR(kthread_run(locker_fn, &l[i], "ct_split_%d", i)))
			complete(&l[i].done);

	/* A hole in the middle of the huge page splits it. */
	shmem_truncate_range(file_inode(shm), PAGE_SIZE, 2 * PAGE_SIZE - 1);

	page = find_get_page(mapping, 0);
	split = page && !PageTransHuge(page);
	if (page)
		put_page(page);
	for (i = 0; i < LOCKERS; i++) {
		WRITE_ONCE(l[i].stop, true);
		if (!wait_for_completion_timeout(&l[i].done, 10 * HZ)) {
			pr_err("a locker did not stop: a waiter was not woken\n");
			ret = -ETIMEDOUT;
		}
	}
	if (ret)
		return ret;	/* a thread may still use l and the file: leak them */
	if (split)
		splits++;
out:
	fput(shm);
	kfree(l);
	return ret;
}

static ssize_t split_write(struct file *f, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &n);
	if (ret)
		return ret;
	mutex_lock(&run_lock);
	for (i = 0; i < n; i++) {
		ret = one_round();
		rounds++;
		if (ret) {
			failed++;
			pr_err("round %lu: %d\n", rounds, ret);
			if (ret == -ETIMEDOUT)
				break;
		}
	}
	mutex_unlock(&run_lock);
	return ret == -ETIMEDOUT ? ret : count;
}

static int split_show(struct seq_file *m, void *v)
{
	mutex_lock(&run_lock);
	seq_printf(m, "rounds %lu split %lu waits %ld failed %lu\n", rounds,
		   splits, atomic_long_read(&waits), failed);
	mutex_unlock(&run_lock);
	return 0;
}

static int split_open(struct inode *inode, struct file *f)
{
	return single_open(f, split_show, NULL);
}

static const struct file_operations split_fops = {
	.owner		= THIS_MODULE,
	.open		= split_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= split_write,
};

static int __init split_init(void)
{
	file = debugfs_create_file("codetag_test_split", 0600, NULL, NULL,
				   &split_fops);
	return 0;
}

static void __exit split_exit(void)
{
	debugfs_remove(file);
}

module_init(split_init);
module_exit(split_exit);
MODULE_DESCRIPTION("codetag test: huge pages split under lock_page()");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Registers the test-only tag type so that the integration tests can drive
 * the registry from a shell:
 *
 *   /sys/kernel/debug/codetag_test/tags     every test tag and its hits
 *   /sys/kernel/debug/codetag_test/control  the core's query language
 *                                           followed by "hit" or "reset"
 *   /sys/kernel/debug/codetag_test/release  any write lets go of the tags
 *                                           kept from unloaded modules
 *
 * With keep=1 the type keeps the tags of a module that is unloaded; with
 * refuse_load=1 it refuses new modules' tags, which fails their loading.
 */

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "codetag_test.h"

static bool keep;
module_param(keep, bool, 0600);
MODULE_PARM_DESC(keep, "keep the tags of unloaded modules until released");

static bool refuse_load;
module_param(refuse_load, bool, 0600);
MODULE_PARM_DESC(refuse_load, "refuse the tags of modules being loaded");

static struct codetag_type *test_type;
static struct dentry *test_dir;

struct kept_section {
	struct list_head link;
	struct codetag_section *sect;
};

/* Sections kept after their module went away, to be released. */
static LIST_HEAD(kept_sections);
static DEFINE_MUTEX(kept_lock);

static size_t nr_tags(const struct codetag_section *sect)
{
	return ((char *)sect->stop - (char *)sect->start) /
	       sizeof(struct codetag_test_tag);
}

static int test_module_load(struct codetag_type *cttype,
			    struct codetag_section *sect)
{
	if (refuse_load)
		return -EBUSY;
	pr_info("codetag_test: %s: %zu tags\n", sect->modname, nr_tags(sect));
	return 0;
}

/* Called under the registry's mutex: take only kept_lock inside it. */
static bool test_module_unload(struct codetag_type *cttype,
			       struct codetag_section *sect)
{
	struct kept_section *kept;

	if (!keep)
		return false;
	kept = kmalloc(sizeof(*kept), GFP_KERNEL);
	if (!kept)
		return false;	/* test tags hold nothing: safe to drop */
	kept->sect = sect;
	mutex_lock(&kept_lock);
	list_add_tail(&kept->link, &kept_sections);
	mutex_unlock(&kept_lock);
	return true;
}

/* Built as a module, the type has no tags in vmlinux. */
CODETAG_DEFINE_BOUNDS(codetag_test);

static const struct codetag_type_desc test_desc = {
	CODETAG_TYPE_INIT(codetag_test),
	.tag_size	= sizeof(struct codetag_test_tag),
	.module_load	= test_module_load,
	.module_unload	= test_module_unload,
};

static int tags_show(struct seq_file *m, struct codetag *ct)
{
	struct codetag_test_tag *tag = container_of(ct, struct codetag_test_tag, ct);

	codetag_seq_print(m, ct);
	seq_printf(m, " hits:%lu\n", READ_ONCE(tag->hits));
	return 0;
}

static int tags_open(struct inode *inode, struct file *file)
{
	return codetag_seq_open(file, test_type, NULL, tags_show);
}

static const struct file_operations tags_fops = {
	.owner		= THIS_MODULE,
	.open		= tags_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= codetag_seq_release,
};

struct test_action {
	bool reset;
};

static int test_parse(void *action, char **words, int nr_words)
{
	struct test_action *a = action;

	if (nr_words != 1) {
		pr_err("codetag_test: want one action, got %d words\n",
		       nr_words);
		return -EINVAL;
	}
	if (!strcmp(words[0], "hit")) {
		a->reset = false;
	} else if (!strcmp(words[0], "reset")) {
		a->reset = true;
	} else {
		pr_err("codetag_test: unknown action '%s'\n", words[0]);
		return -EINVAL;
	}
	return 0;
}

static void test_apply(struct codetag *ct, const void *action)
{
	const struct test_action *a = action;
	struct codetag_test_tag *tag = container_of(ct, struct codetag_test_tag, ct);

	WRITE_ONCE(tag->hits, a->reset ? 0 : tag->hits + 1);
}

static const struct codetag_control_ops test_ops = {
	.action_size	= sizeof(struct test_action),
	.parse		= test_parse,
	.apply		= test_apply,
};

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	return codetag_control_write(test_type, &test_ops, ubuf, len);
}

static const struct file_operations control_fops = {
	.owner		= THIS_MODULE,
	.write		= control_write,
};

/* Release outside kept_lock: the registry's mutex nests outside it. */
static void release_kept(void)
{
	struct kept_section *kept, *tmp;
	LIST_HEAD(list);

	mutex_lock(&kept_lock);
	list_splice_init(&kept_sections, &list);
	mutex_unlock(&kept_lock);
	list_for_each_entry_safe(kept, tmp, &list, link) {
		codetag_release_section(test_type, kept->sect);
		kfree(kept);
	}
}

static ssize_t release_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	release_kept();
	return len;
}

static const struct file_operations release_fops = {
	.owner		= THIS_MODULE,
	.write		= release_write,
};

static int __init codetag_test_type_init(void)
{
	test_type = codetag_register_type(&test_desc);
	if (IS_ERR(test_type))
		return PTR_ERR(test_type);
	test_dir = debugfs_create_dir("codetag_test", NULL);
	debugfs_create_file("tags", 0400, test_dir, NULL, &tags_fops);
	debugfs_create_file("control", 0200, test_dir, NULL, &control_fops);
	debugfs_create_file("release", 0200, test_dir, NULL, &release_fops);
	return 0;
}
module_init(codetag_test_type_init);

static void __exit codetag_test_type_exit(void)
{
	struct kept_section *kept, *tmp;

	debugfs_remove_recursive(test_dir);
	/* Unregistering releases what is still kept. */
	codetag_unregister_type(test_type);
	list_for_each_entry_safe(kept, tmp, &kept_sections, link)
		kfree(kept);
}
module_exit(codetag_test_type_exit);

MODULE_DESCRIPTION("Test-only code tag type for the integration tests");
MODULE_LICENSE("GPL");

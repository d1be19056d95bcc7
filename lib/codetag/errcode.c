// SPDX-License-Identifier: GPL-2.0
/*
 * Unique error codes per ERR() site.
 *
 * Every ERR() site is a struct errcode_tag in the error_codes section.
 * When vmlinux's tags are registered, and when a module with tags is
 * loaded, each site gets the next free code from ERRCODE_FIRST to
 * MAX_ERRNO; errcode_classes[] maps codes back to their standard errno,
 * and keeps doing so after a module is unloaded (its codes are not given
 * out again), so that a code that outlives its module still prints its
 * class. The text "-EINVAL at file:line" of each site is made once, when
 * the code is given.
 *
 * errname() (and so %pe) prints unique codes by their site; the generic
 * system call exit path hands userspace their class (errcode_to_user(),
 * called from kernel/entry/common.c).
 * /sys/kernel/debug/error_codes lists every site with its class, code and
 * how many times it was made.
 */

#define pr_fmt(fmt) "errcode: " fmt

#include <linux/codetag/errcode.h>
#include <linux/debugfs.h>
#include <linux/errname.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

u16 errcode_classes[ERRCODE_NR];
EXPORT_SYMBOL(errcode_classes);

/* The site of each code, NULL once its module is gone. */
static struct errcode_tag *errcode_sites[ERRCODE_NR];
/* "-EINVAL at file:line" of each code. */
static const char *errcode_names[ERRCODE_NR];

static DEFINE_MUTEX(errcode_mutex);
static unsigned int errcode_next;

static struct codetag_type *errcode_cttype;

/* Give @tag the next code; the class stays its code if none is left. */
static void errcode_assign(struct errcode_tag *tag)
{
	const char *class = errname(-tag->class);
	unsigned int i;

	if (errcode_next >= ERRCODE_NR) {
		pr_warn_once("all %d unique codes are given out: ERR() sites from %s:%u on return plain codes\n",
			     ERRCODE_NR, tag->ct.filename, tag->ct.lineno);
		return;
	}
	i = errcode_next++;
	errcode_names[i] = kasprintf(GFP_KERNEL, "%s at %s:%u",
				     class ?: "-E?", tag->ct.filename,
				     tag->ct.lineno);
	errcode_sites[i] = tag;
	errcode_classes[i] = tag->class;
	WRITE_ONCE(tag->code, ERRCODE_FIRST + i);
}

#if IS_ENABLED(CONFIG_CODETAG_KUNIT_TEST)
/**
 * errcode_test_assign() - give codes to tags outside any section, for tests
 * @tags: the tags
 * @nr: how many
 * @pretend_left: act as if only this many codes were left
 *
 * Return: how many codes were given.
 */
unsigned int errcode_test_assign(struct errcode_tag *tags, unsigned int nr,
				 unsigned int pretend_left)
{
	unsigned int saved, given, i;

	mutex_lock(&errcode_mutex);
	saved = errcode_next;
	errcode_next = max(errcode_next, ERRCODE_NR - pretend_left);
	given = errcode_next;
	for (i = 0; i < nr; i++)
		errcode_assign(&tags[i]);
	given = errcode_next - given;
	/* Forget them again: the tags are the test's, on its stack. */
	for (i = saved; i < errcode_next; i++) {
		if (errcode_sites[i] >= tags && errcode_sites[i] < tags + nr) {
			errcode_sites[i] = NULL;
			errcode_classes[i] = 0;
			kfree(errcode_names[i]);
			errcode_names[i] = NULL;
		}
	}
	errcode_next = saved;
	mutex_unlock(&errcode_mutex);
	return given;
}
EXPORT_SYMBOL_GPL(errcode_test_assign);
#endif

static int errcode_module_load(struct codetag_type *cttype,
			       struct codetag_section *sect)
{
	struct errcode_tag *tag;

	mutex_lock(&errcode_mutex);
	for (tag = (void *)sect->start; tag < (struct errcode_tag *)sect->stop; tag++)
		errcode_assign(tag);
	mutex_unlock(&errcode_mutex);
	return 0;
}

/* The codes stay given out and keep their class; the sites go. */
static bool errcode_module_unload(struct codetag_type *cttype,
				  struct codetag_section *sect)
{
	unsigned int i;

	mutex_lock(&errcode_mutex);
	for (i = 0; i < errcode_next; i++) {
		struct codetag *ct = errcode_sites[i] ? &errcode_sites[i]->ct : NULL;

		if (ct && ct >= sect->start && ct < sect->stop)
			errcode_sites[i] = NULL;
	}
	mutex_unlock(&errcode_mutex);
	return false;
}

/**
 * errcode_name() - "-EINVAL at file:line" for a unique code
 * @err: an error code of either sign
 *
 * Return: the site's text for a unique code whose module is loaded, the
 * class's name for one whose module is gone, NULL for anything else.
 */
const char *errcode_name(int err)
{
	unsigned int e = err < 0 ? -err : err;

	if (e < ERRCODE_FIRST || e > MAX_ERRNO || !errcode_classes[e - ERRCODE_FIRST])
		return NULL;
	e -= ERRCODE_FIRST;
	if (READ_ONCE(errcode_sites[e]) && errcode_names[e])
		return errcode_names[e];
	return errname(-errcode_classes[e]);
}
EXPORT_SYMBOL_GPL(errcode_name);

/**
 * errcode_to_user() - what userspace sees of a system call's return
 * @ret: the return value
 *
 * Context: the system call return path.
 * Return: @ret, with a unique error code replaced by its class.
 */
long errcode_to_user(long ret)
{
	if (ret < -MAX_ERRNO || ret > -ERRCODE_FIRST)
		return ret;
	return error_class(ret);
}

/* ---- debugfs ----------------------------------------------------------- */

/* "file:line module:M func:F class:-EINVAL code:-1027 returned:3" */
static int error_codes_show(struct seq_file *m, struct codetag *ct)
{
	struct errcode_tag *tag = container_of(ct, struct errcode_tag, ct);
	const char *class = errname(-tag->class);

	codetag_seq_print(m, ct);
	if (class)
		seq_printf(m, " class:%s", class);
	else
		seq_printf(m, " class:-%u", tag->class);
	seq_printf(m, " code:-%u returned:%ld\n", READ_ONCE(tag->code),
		   atomic_long_read(&tag->returned));
	return 0;
}

static int error_codes_open(struct inode *inode, struct file *file)
{
	return codetag_seq_open(file, errcode_cttype, NULL, error_codes_show);
}

static const struct file_operations error_codes_fops = {
	.open		= error_codes_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= codetag_seq_release,
};

static int __init errcode_debugfs_init(void)
{
	if (!IS_ERR_OR_NULL(errcode_cttype))
		debugfs_create_file("error_codes", 0400, NULL, NULL,
				    &error_codes_fops);
	return 0;
}
late_initcall(errcode_debugfs_init);

/* ---- Tag type ---------------------------------------------------------- */

CODETAG_DEFINE_BOUNDS(error_codes);

static const struct codetag_type_desc errcode_desc = {
	CODETAG_TYPE_INIT(error_codes),
	.tag_size	= sizeof(struct errcode_tag),
	.module_load	= errcode_module_load,
	.module_unload	= errcode_module_unload,
};

/* Before any module: vmlinux's sites get the first codes. */
static int __init errcode_init(void)
{
	struct codetag_iterator iter;
	struct codetag *ct;

	errcode_cttype = codetag_register_type(&errcode_desc);
	if (IS_ERR(errcode_cttype)) {
		pr_err("cannot register the tag type: %ld\n",
		       PTR_ERR(errcode_cttype));
		return PTR_ERR(errcode_cttype);
	}
	codetag_lock_type(errcode_cttype);
	mutex_lock(&errcode_mutex);
	codetag_iter_init(&iter, errcode_cttype);
	while ((ct = codetag_next(&iter)))
		errcode_assign(container_of(ct, struct errcode_tag, ct));
	mutex_unlock(&errcode_mutex);
	codetag_unlock_type(errcode_cttype);
	pr_info("%u unique codes given to ERR() sites, %u left\n",
		errcode_next, ERRCODE_NR - errcode_next);
	return 0;
}
core_initcall(errcode_init);

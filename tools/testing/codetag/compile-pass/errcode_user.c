// SPDX-License-Identifier: GPL-2.0
/*
 * Must build: a module that is not GPL uses unique error codes the way
 * Documentation/codetag/errcode.rst tells module authors to: ERR() at
 * its error sites, error_matches() and error_class() to compare, and
 * errname() and %pe to print. Whatever those call must be exported to
 * every module. make check builds this against the guest kernel; modpost
 * refuses it otherwise. It is never loaded.
 */

#include <linux/codetag/err.h>
#include <linux/err.h>
#include <linux/errname.h>
#include <linux/module.h>
#include <linux/printk.h>

static int errcode_user_op(int arg)
{
	return arg ? -ERR(EINVAL) : 0;
}

static int __init errcode_user_init(void)
{
	int err = errcode_user_op(1);

	if (error_matches(err, EINVAL) && error_class(err) == -EINVAL)
		pr_info("error %s, also %pe\n", errname(err), ERR_PTR(err));
	return 0;
}
module_init(errcode_user_init);

MODULE_DESCRIPTION("A non-GPL module's unique error codes, for make check");
MODULE_LICENSE("Proprietary");

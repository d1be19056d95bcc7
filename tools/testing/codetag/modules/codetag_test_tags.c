// SPDX-License-Identifier: GPL-2.0
/*
 * Five test tags in a module: the registry must list them while the module
 * is loaded and forget them when it is unloaded, or when its init fails.
 */

#include <linux/module.h>
#include "codetag_test.h"

static bool fail_init;
module_param(fail_init, bool, 0400);
MODULE_PARM_DESC(fail_init, "fail module init, after the tags were used");

static noinline void site_one(void)
{
	CODETAG_TEST_HIT();
}

static noinline void site_two(void)
{
	CODETAG_TEST_HIT();
}

static noinline void sites_three_to_five(int n)
{
	if (n > 0)
		CODETAG_TEST_HIT();
	if (n > 1)
		CODETAG_TEST_HIT();
	CODETAG_TEST_HIT();
}

static int __init codetag_test_tags_init(void)
{
	site_one();
	site_two();
	sites_three_to_five(2);
	return fail_init ? -ENODEV : 0;
}
module_init(codetag_test_tags_init);

static void __exit codetag_test_tags_exit(void)
{
}
module_exit(codetag_test_tags_exit);

MODULE_DESCRIPTION("Test tags for the code tag registry");
MODULE_LICENSE("GPL");

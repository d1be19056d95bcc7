// SPDX-License-Identifier: GPL-2.0
/*
 * Two more test tags in a second module, to check that modules are listed
 * in load order and come and go independently.
 */

#include <linux/module.h>
#include "codetag_test.h"

static int __init codetag_test_more_init(void)
{
	CODETAG_TEST_HIT();
	CODETAG_TEST_HIT();
	return 0;
}
module_init(codetag_test_more_init);

static void __exit codetag_test_more_exit(void)
{
}
module_exit(codetag_test_more_exit);

MODULE_DESCRIPTION("More test tags for the code tag registry");
MODULE_LICENSE("GPL");

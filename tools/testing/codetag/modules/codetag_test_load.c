// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose initialisation has a fault point, for the tests of the
 * dynamic_fault= module parameter, which arms a module's points after its
 * tags are loaded and before its init function runs:
 *
 *   insmod codetag_test_load.ko 'dynamic_fault="class codetag_test:load oneshot"'
 *
 * fails the load with -EIO.
 */

#include <linux/codetag/dynamic_fault.h>
#include <linux/module.h>

static int __init codetag_test_load_init(void)
{
	if (dynamic_fault("codetag_test:load"))
		return -EIO;
	return 0;
}
module_init(codetag_test_load_init);

static void __exit codetag_test_load_exit(void)
{
}
module_exit(codetag_test_load_exit);

MODULE_DESCRIPTION("A module whose initialisation can be failed");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Code written for the 2022 code tagging RFC and its design notes, built
 * unchanged: its header, <linux/codetag_time_stats.h>, and its names for
 * timing a stretch of code. On load it times a 1 ms sleep with each pair
 * of names, so that time_stats lists three lines of this file, one
 * duration each.
 */

#include <linux/codetag_time_stats.h>
#include <linux/delay.h>
#include <linux/module.h>

static int __init codetag_test_seed_api_init(void)
{
	u64 start_time;

	code_tag_time_stats_start(start_time);
	usleep_range(1000, 1100);
	code_tag_time_stats_end(start_time);

	code_tag_time_stats_start(start_time);
	usleep_range(1000, 1100);
	code_tag_time_stats_finish(start_time);

	codetag_time_stats_start(start_time);
	usleep_range(1000, 1100);
	codetag_time_stats_finish(start_time);
	return 0;
}
module_init(codetag_test_seed_api_init);

static void __exit codetag_test_seed_api_exit(void)
{
}
module_exit(codetag_test_seed_api_exit);

MODULE_DESCRIPTION("codetag test: the RFC's names for latency statistics");
MODULE_LICENSE("GPL");

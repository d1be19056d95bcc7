// SPDX-License-Identifier: GPL-2.0
/*
 * Must build without a warning: a driver with an ERR() of its own, a log
 * macro as in musb and some USB gadget and host drivers, defined after
 * the headers through which error codes are made (<linux/fs_context.h>
 * for invalf(), <linux/codetag/errcode.h> itself). Only
 * <linux/codetag/err.h> gives ERRCODE() the short name, and this file
 * does not include it.
 */
#include <linux/codetag/errcode.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/module.h>
#include <linux/printk.h>

#define ERR(fmt, args...)	pr_err("own_err: " fmt, ## args)

static int __maybe_unused own_err_parse(struct fs_context *fc, int bad)
{
	if (!bad)
		return 0;
	ERR("option %d refused\n", bad);
	return invalf(fc, "own_err: option %d refused", bad);
}

MODULE_DESCRIPTION("A module with an ERR() of its own, built only");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * Must not build: ERR() refuses kernel-internal codes, which userspace
 * and the signal code must see as they are. make check builds this and
 * expects the build to fail with ERR()'s message.
 */

#include <linux/codetag/err.h>
#include <linux/errno.h>
#include <linux/module.h>

int errcode_internal(void);

int errcode_internal(void)
{
	return -ERR(ERESTARTSYS);
}

MODULE_LICENSE("GPL");

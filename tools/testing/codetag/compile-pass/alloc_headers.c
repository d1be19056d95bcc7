// SPDX-License-Identifier: GPL-2.0
/*
 * Must build: the allocation API's headers pull in neither fault injection
 * nor allocation contexts. Only the allocators and the applications
 * include those; every other file sees the allocation tag and nothing else.
 */

#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#ifdef _LINUX_CODETAG_DYNAMIC_FAULT_H
#error "the allocation headers include <linux/codetag/dynamic_fault.h>"
#endif

#ifdef _LINUX_CODETAG_ALLOC_TAG_CTX_H
#error "the allocation headers include <linux/codetag/alloc_tag_ctx.h>"
#endif

MODULE_LICENSE("GPL");

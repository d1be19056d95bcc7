/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codetag_test_holder.ko keeps what codetag_test_leak.ko leaks, so that
 * the leaking module can be unloaded with live allocations charged to it.
 */
#ifndef _CODETAG_TEST_HOLDER_H
#define _CODETAG_TEST_HOLDER_H

struct list_head;
struct page;

/* Keep a page; freed when the holder is written to or unloaded. */
void codetag_test_hold(struct page *page);

/* Keep a kmalloc()ed object that starts with a list_head; kfree()d then. */
void codetag_test_hold_object(struct list_head *object);

#endif /* _CODETAG_TEST_HOLDER_H */

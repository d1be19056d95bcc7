/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test-only tag type shared by the codetag test modules: tags are
 * declared in codetag_test_tags.ko and codetag_test_more.ko and registered
 * by codetag_test_type.ko.
 */
#ifndef _CODETAG_TEST_H
#define _CODETAG_TEST_H

#include <linux/codetag/codetag.h>

struct codetag_test_tag {
	struct codetag ct;
	unsigned long hits;
};

/* Declare a test tag at this line and count one hit on it. */
#define CODETAG_TEST_HIT() do {						\
	CODETAG_DEFINE(struct codetag_test_tag, _tag, codetag_test);	\
	_tag.hits++;							\
} while (0)

#endif /* _CODETAG_TEST_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error codes that remember where they were born: return -ERR(EINVAL)
 * instead of -EINVAL, and the code is unique to that line, so that
 * errname() can say "-EINVAL at fs/ext4/super.c:4387".
 * See Documentation/codetag/errcode.rst.
 */
#ifndef _LINUX_CODETAG_ERRCODE_H
#define _LINUX_CODETAG_ERRCODE_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/codetag/codetag.h>
#include <linux/err.h>
#include <linux/types.h>

/*
 * Unique codes live above the kernel-internal codes (512 to 530,
 * -ERESTARTSYS and friends) and up to MAX_ERRNO, so that ERR_PTR(),
 * IS_ERR() and PTR_ERR() work unchanged.
 */
#define ERRCODE_FIRST		1024
#define ERRCODE_NR		(MAX_ERRNO - ERRCODE_FIRST + 1)
/* ERR() takes the standard codes only, the ones below the internal ones. */
#define ERRCODE_MAX_CLASS	511

/**
 * struct errcode_tag - one ERR() site
 * @ct: its identity
 * @class: the standard errno it stands for
 * @code: its unique code, or @class until one is given (or if none is
 *	left)
 * @returned: how many times the site has made its code
 */
struct errcode_tag {
	struct codetag ct;
	u16 class;
	u16 code;
	atomic_long_t returned;
};

#ifdef CONFIG_CODETAG_ERRCODE

extern u16 errcode_classes[ERRCODE_NR];

/**
 * ERR() - an error code unique to this line
 * @_err: a standard errno, positive, such as EINVAL
 *
 * Written ``return -ERR(EINVAL);``. The code is positive like @_err, and
 * counts as @_err for error_class() and error_matches(); comparing it
 * with ``==`` against a plain errno is a bug. Kernel-internal codes
 * (-ERESTARTSYS and friends) are refused at build time: userspace and the
 * signal code must see them as they are.
 *
 * Cost: a load and an atomic increment, on the error path only.
 */
#define ERR(_err) ({							\
	enum { _errcode_class = (_err) };				\
	CODETAG_DEFINE(struct errcode_tag, _errcode, error_codes,	\
		       .class = _errcode_class, .code = _errcode_class);	\
									\
	BUILD_BUG_ON_MSG(_errcode_class <= 0 ||				\
			 _errcode_class > ERRCODE_MAX_CLASS,		\
			 "ERR() takes a standard errno");		\
	atomic_long_inc(&_errcode.returned);				\
	(int)READ_ONCE(_errcode.code);					\
})

/**
 * error_class() - the standard errno of an error code
 * @err: a plain or unique code, negative or positive
 *
 * Return: the standard code @err stands for, with @err's sign.
 */
static inline int error_class(int err)
{
	unsigned int e = err < 0 ? -err : err;

	if (e < ERRCODE_FIRST || e > MAX_ERRNO || !errcode_classes[e - ERRCODE_FIRST])
		return err;
	e = errcode_classes[e - ERRCODE_FIRST];
	return err < 0 ? -(int)e : (int)e;
}

const char *errcode_name(int err);
long errcode_to_user(long ret);
unsigned int errcode_test_assign(struct errcode_tag *tags, unsigned int nr,
				 unsigned int pretend_left);

#else /* !CONFIG_CODETAG_ERRCODE */

#define ERR(_err)	(_err)

static inline int error_class(int err)
{
	return err;
}

static inline const char *errcode_name(int err)
{
	return NULL;
}

static inline long errcode_to_user(long ret)
{
	return ret;
}

#endif /* CONFIG_CODETAG_ERRCODE */

/**
 * error_matches() - is an error code of a class
 * @err: a plain or unique code, of either sign
 * @class: a standard errno, positive, such as EINVAL
 *
 * Return: true if @err is @class, -@class, or a unique code of @class.
 */
static inline bool error_matches(int err, int class)
{
	int e = error_class(err);

	return e == class || e == -class;
}

#endif /* _LINUX_CODETAG_ERRCODE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for unique error codes: codes are unique per site and
 * stable per call, map back to their class, and survive
 * ERR_PTR()/PTR_ERR().
 */

#include <kunit/test.h>
#include <linux/codetag/errcode.h>
#include <linux/err.h>
#include <linux/errname.h>
#include <linux/errno.h>
#include <linux/string.h>

static noinline int err_site_a(void)
{
	return -ERR(EINVAL);
}

static noinline int err_site_b(void)
{
	return -ERR(EINVAL);
}

static noinline int err_site_c(void)
{
	return -ERR(ENOMEM);
}

static const int classes[] = {
	EPERM, ENOENT, EIO, E2BIG, ENOMEM, EACCES, EFAULT, EBUSY, EEXIST,
	EINVAL, ENOSPC, ERANGE, EOPNOTSUPP, ETIMEDOUT, EHWPOISON,
};

/* One ERR() site per class: a switch of returns, as real code has. */
static noinline int err_of_class(int class)
{
	switch (class) {
	case EPERM:		return -ERR(EPERM);
	case ENOENT:		return -ERR(ENOENT);
	case EIO:		return -ERR(EIO);
	case E2BIG:		return -ERR(E2BIG);
	case ENOMEM:		return -ERR(ENOMEM);
	case EACCES:		return -ERR(EACCES);
	case EFAULT:		return -ERR(EFAULT);
	case EBUSY:		return -ERR(EBUSY);
	case EEXIST:		return -ERR(EEXIST);
	case EINVAL:		return -ERR(EINVAL);
	case ENOSPC:		return -ERR(ENOSPC);
	case ERANGE:		return -ERR(ERANGE);
	case EOPNOTSUPP:	return -ERR(EOPNOTSUPP);
	case ETIMEDOUT:		return -ERR(ETIMEDOUT);
	case EHWPOISON:		return -ERR(EHWPOISON);
	}
	return 0;
}

/* Every class round-trips, and no two sites share a code. */
static void errcode_test_classes(struct kunit *test)
{
	int codes[ARRAY_SIZE(classes)];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(classes); i++) {
		int err = err_of_class(classes[i]);

		codes[i] = err;
		KUNIT_EXPECT_LE(test, err, -ERRCODE_FIRST);
		KUNIT_EXPECT_EQ(test, error_class(err), -classes[i]);
		KUNIT_EXPECT_EQ(test, error_class(-err), classes[i]);
		KUNIT_EXPECT_TRUE(test, error_matches(err, classes[i]));
		KUNIT_EXPECT_EQ(test, errcode_to_user(err), (long)-classes[i]);
		KUNIT_EXPECT_TRUE(test, !strncmp(errcode_name(err),
						 errname(-classes[i]),
						 strlen(errname(-classes[i]))));
		for (j = 0; j < ARRAY_SIZE(classes); j++)
			if (j != i)
				KUNIT_EXPECT_FALSE(test, error_matches(err, classes[j]));
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, codes[j], err);
	}
}

static void errcode_test_unique(struct kunit *test)
{
	int a = err_site_a(), b = err_site_b(), c = err_site_c();

	KUNIT_EXPECT_NE(test, a, b);
	KUNIT_EXPECT_NE(test, a, -EINVAL);
	KUNIT_EXPECT_EQ(test, a, err_site_a());
	KUNIT_EXPECT_LE(test, a, -ERRCODE_FIRST);
	KUNIT_EXPECT_GE(test, a, -MAX_ERRNO);
	KUNIT_EXPECT_EQ(test, error_class(a), -EINVAL);
	KUNIT_EXPECT_EQ(test, error_class(-a), EINVAL);
	KUNIT_EXPECT_EQ(test, error_class(c), -ENOMEM);
	KUNIT_EXPECT_TRUE(test, error_matches(a, EINVAL));
	KUNIT_EXPECT_TRUE(test, error_matches(b, EINVAL));
	KUNIT_EXPECT_TRUE(test, error_matches(-EINVAL, EINVAL));
	KUNIT_EXPECT_FALSE(test, error_matches(c, EINVAL));
	KUNIT_EXPECT_EQ(test, error_class(-ERESTARTSYS), -ERESTARTSYS);
}

static void errcode_test_err_ptr(struct kunit *test)
{
	void *p = ERR_PTR(err_site_a());

	KUNIT_EXPECT_TRUE(test, IS_ERR(p));
	KUNIT_EXPECT_EQ(test, PTR_ERR(p), (long)err_site_a());
	KUNIT_EXPECT_TRUE(test, error_matches(PTR_ERR(p), EINVAL));
}

static void errcode_test_name(struct kunit *test)
{
	const char *name = errcode_name(err_site_a());

	KUNIT_ASSERT_NOT_NULL(test, name);
	KUNIT_EXPECT_TRUE(test, !strncmp(name, "-EINVAL at ", 11));
	KUNIT_EXPECT_NOT_NULL(test, strstr(name, "errcode_kunit.c:"));
	KUNIT_EXPECT_NULL(test, errcode_name(-EINVAL));
}

static void errcode_test_errname(struct kunit *test)
{
	char buf[128];
	int a = err_site_a();

	KUNIT_EXPECT_STREQ(test, errname(a), errcode_name(a));
	KUNIT_EXPECT_STREQ(test, errname(-EINVAL), "-EINVAL");
	snprintf(buf, sizeof(buf), "%pe", ERR_PTR(a));
	KUNIT_EXPECT_STREQ(test, buf, errcode_name(a));
	snprintf(buf, sizeof(buf), "%pe", ERR_PTR(-EINVAL));
	KUNIT_EXPECT_STREQ(test, buf, "-EINVAL");
}

static void errcode_test_to_user(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, errcode_to_user(err_site_a()), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, errcode_to_user(-EINVAL), (long)-EINVAL);
	KUNIT_EXPECT_EQ(test, errcode_to_user(4096), 4096L);
	KUNIT_EXPECT_EQ(test, errcode_to_user(-ERESTARTSYS), (long)-ERESTARTSYS);
}

/* When the code space runs out, ERR() quietly returns the plain errno. */
static void errcode_test_exhaustion(struct kunit *test)
{
	struct errcode_tag tags[3] = {
		{ .ct = CODETAG_INIT, .class = EINVAL, .code = EINVAL },
		{ .ct = CODETAG_INIT, .class = ENOMEM, .code = ENOMEM },
		{ .ct = CODETAG_INIT, .class = EIO, .code = EIO },
	};

	KUNIT_EXPECT_EQ(test, errcode_test_assign(tags, 3, 1), 1U);
	KUNIT_EXPECT_GE(test, (int)tags[0].code, ERRCODE_FIRST);
	KUNIT_EXPECT_EQ(test, tags[1].code, (u16)ENOMEM);
	KUNIT_EXPECT_EQ(test, tags[2].code, (u16)EIO);
	KUNIT_EXPECT_EQ(test, error_class(-(int)tags[1].code), -ENOMEM);
}

static struct kunit_case errcode_test_cases[] = {
	KUNIT_CASE(errcode_test_unique),
	KUNIT_CASE(errcode_test_classes),
	KUNIT_CASE(errcode_test_err_ptr),
	KUNIT_CASE(errcode_test_name),
	KUNIT_CASE(errcode_test_errname),
	KUNIT_CASE(errcode_test_to_user),
	KUNIT_CASE(errcode_test_exhaustion),
	{}
};

static struct kunit_suite errcode_test_suite = {
	.name = "errcode",
	.test_cases = errcode_test_cases,
};

kunit_test_suites(&errcode_test_suite);

MODULE_LICENSE("GPL");

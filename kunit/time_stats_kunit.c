// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for time_stats: known durations are fed to a site with
 * chosen start and end times, and what it reports is checked against the
 * exact figures computed here from the same samples: count, minimum,
 * maximum, mean and standard deviation exactly, every quantile to within
 * 1/32 of the exact quantile, for several distributions and sample counts.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/codetag/time_stats.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

CODETAG_DECLARE_BOUNDS(time_stats);

/* 6.1 has no abs_diff(). */
static u64 diff_u64(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

static struct time_stats_tag *test_site(void)
{
	DEFINE_TIME_STATS_TAG(site);

	return &site;
}

/* ---- Distributions ----------------------------------------------------- */

/* log2(x) in 16.16 fixed point, for x >= 1. */
static u64 log2_fp16(u32 x)
{
	unsigned int ip = fls(x) - 1, i;
	u64 y = (u64)x << (31 - ip);	/* Q1.31, in [1, 2) */
	u64 frac = 0;

	for (i = 0; i < 16; i++) {
		y = (y * y) >> 31;
		frac <<= 1;
		if (y >= (2ULL << 31)) {
			frac |= 1;
			y >>= 1;
		}
	}
	return ((u64)ip << 16) | frac;
}

typedef u64 (*dist_fn)(struct rnd_state *rnd);

static u64 dist_constant(struct rnd_state *rnd)
{
	return 12345;
}

static u64 dist_uniform(struct rnd_state *rnd)
{
	return 1000 + prandom_u32_state(rnd) % 1000000;
}

/* Mean 100 us: -ln(u) = (32 - log2(r + 1)) * ln 2, u = (r + 1) / 2^32. */
static u64 dist_exponential(struct rnd_state *rnd)
{
	u64 r = prandom_u32_state(rnd);
	u64 neg_ln = ((32ULL << 16) - log2_fp16(r ? r : 1)) * 45426 >> 16;

	return 100000 * neg_ln >> 16;
}

static u64 dist_bimodal(struct rnd_state *rnd)
{
	u32 r = prandom_u32_state(rnd);

	return (r & 1 ? 1000000 : 1000) + (r >> 1) % (r & 1 ? 100000 : 100);
}

/* Pareto with shape 1 and scale 100 ns: up to 430 s. */
static u64 dist_heavy_tail(struct rnd_state *rnd)
{
	return div64_u64(100ULL << 32, (u64)prandom_u32_state(rnd) + 1);
}

static const struct {
	const char *name;
	dist_fn fn;
} dists[] = {
	{ "constant", dist_constant },
	{ "uniform", dist_uniform },
	{ "exponential", dist_exponential },
	{ "bimodal", dist_bimodal },
	{ "heavy-tailed", dist_heavy_tail },
};

static const unsigned int counts[] = { 1, 2, 15, 16, 17, 1000, 100000, 1000000 };

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The largest s with s^2 <= num / den^2: the exact stddev, rounded down. */
static u64 exact_sqrt_ratio(__uint128_t num, u64 den, u64 hi)
{
	u64 lo = 0;

	while (lo + 1 < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if ((__uint128_t)mid * mid * den * den <= num)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Feed @n samples of distribution @d, ending one every 1000 ns (as
 * recordings happen when what they time ends), and check every figure.
 */
static void check_distribution(struct kunit *test, unsigned int d,
			       unsigned int n, u64 *samples)
{
	struct time_stats_tag *ts = test_site();
	u64 total = 0, t = 1ULL << 41, stddev;
	struct time_stats_summary s;
	struct rnd_state rnd;
	unsigned int i, q;
	__uint128_t squares = 0;

	prandom_seed_state(&rnd, 42 + d);
	time_stats_reset(ts);
	for (i = 0; i < n; i++, t += 1000) {
		samples[i] = dists[d].fn(&rnd);
		time_stats_record(ts, t - samples[i], t);
		total += samples[i];
		squares += (__uint128_t)samples[i] * samples[i];
	}
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
	sort(samples, n, sizeof(*samples), cmp_u64, NULL);

	KUNIT_EXPECT_EQ_MSG(test, s.count, (u64)n, "%s, %u", dists[d].name, n);
	KUNIT_EXPECT_EQ_MSG(test, s.min, samples[0], "%s, %u", dists[d].name, n);
	KUNIT_EXPECT_EQ_MSG(test, s.max, samples[n - 1], "%s, %u",
			    dists[d].name, n);
	KUNIT_EXPECT_EQ_MSG(test, s.mean, div64_u64(total, n), "%s, %u",
			    dists[d].name, n);
	/* Population variance: (n * sum(x^2) - sum(x)^2) / n^2. */
	stddev = exact_sqrt_ratio(squares * n - (__uint128_t)total * total, n,
				  samples[n - 1] + 1);
	KUNIT_EXPECT_LE_MSG(test, diff_u64(s.stddev, stddev), 1ULL,
			    "stddev, %s, %u: %llu, exact %llu",
			    dists[d].name, n, s.stddev, stddev);
	for (q = 1; q <= TIME_STATS_NR_QUANTILES; q++) {
		u64 exact = samples[DIV_ROUND_UP(n * q, 16) - 1];
		u64 got = s.quantiles[q - 1];

		KUNIT_EXPECT_LE_MSG(test, diff_u64(got, exact) * 32, exact,
				    "%s, %u samples: quantile %u/16 is %llu, exact %llu",
				    dists[d].name, n, q, got, exact);
	}
	if (n > 1) {
		KUNIT_EXPECT_EQ(test, s.frequency, 1000ULL);
		KUNIT_EXPECT_EQ(test, s.rate, 1000000ULL);
	} else {
		KUNIT_EXPECT_EQ(test, s.frequency, 0ULL);
		KUNIT_EXPECT_EQ(test, s.rate, 0ULL);
	}
}

static void time_stats_test_distributions(struct kunit *test)
{
	unsigned int d, c;
	u64 *samples;

	samples = vmalloc(array_size(counts[ARRAY_SIZE(counts) - 1],
				     sizeof(*samples)));
	KUNIT_ASSERT_NOT_NULL(test, samples);
	for (d = 0; d < ARRAY_SIZE(dists); d++)
		for (c = 0; c < ARRAY_SIZE(counts); c++)
			check_distribution(test, d, counts[c], samples);
	vfree(samples);
}

/* The 1/32 bound is the worst case: a bucket's full width is 1/16. */
static void time_stats_test_bucket_edges(struct kunit *test)
{
	struct time_stats_tag *ts = test_site();
	static const u64 values[] = {
		0, 1, 31, 32, 33, 63, 64, 65, 1023, 1024, 1087, 1088,
		999999, 1000000, (1ULL << 39) - 1, 1ULL << 39,
	};
	struct time_stats_summary s;
	unsigned int i, q;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		time_stats_reset(ts);
		/* Two neighbours, so that min and max do not clamp alone. */
		time_stats_record(ts, 10, 10);
		time_stats_record(ts, 0, values[i]);
		time_stats_record(ts, 0, 1ULL << 40);
		KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
		/* Ranks 1..5 of 3 samples: 1/16..5/16 -> rank 1; 6..10 -> 2. */
		for (q = 6; q <= 10; q++)
			KUNIT_EXPECT_LE_MSG(test,
					    diff_u64(s.quantiles[q - 1], values[i]) * 32,
					    values[i], "%llu reported as %llu",
					    values[i], s.quantiles[q - 1]);
	}
}

static void time_stats_test_reset(struct kunit *test)
{
	struct time_stats_tag *ts = test_site();
	struct time_stats_summary s;

	time_stats_record(ts, 100, 200);
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
	KUNIT_EXPECT_GT(test, s.count, 0ULL);
	time_stats_reset(ts);
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
	KUNIT_EXPECT_EQ(test, s.count, 0ULL);
	KUNIT_EXPECT_EQ(test, s.max, 0ULL);
	time_stats_record(ts, 100, 400);
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
	KUNIT_EXPECT_EQ(test, s.count, 1ULL);
	KUNIT_EXPECT_EQ(test, s.min, 300ULL);
	KUNIT_EXPECT_EQ(test, s.quantiles[0], 300ULL);
}

/* ---- Concurrency ------------------------------------------------------- */

#define NR_THREADS	4
#define PER_THREAD	100000

struct recorder {
	struct time_stats_tag *ts;
	struct completion done;
	struct task_struct *task;
};

static int record_thread(void *data)
{
	struct recorder *r = data;
	unsigned int i;

	for (i = 0; i < PER_THREAD; i++) {
		time_stats_record(r->ts, 0, 1000 + i % 64);
		if (!(i % 1000))
			cond_resched();
	}
	complete(&r->done);
	/* kthread_stop() before the thread ran would skip this function. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void time_stats_test_concurrent(struct kunit *test)
{
	struct recorder r[NR_THREADS];
	struct time_stats_summary s;
	unsigned int i;

	time_stats_reset(test_site());
	for (i = 0; i < NR_THREADS; i++) {
		r[i].ts = test_site();
		init_completion(&r[i].done);
		r[i].task = kthread_run(record_thread, &r[i], "time_stats_%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(r[i].task));
	}
	for (i = 0; i < NR_THREADS; i++) {
		wait_for_completion(&r[i].done);
		kthread_stop(r[i].task);
	}
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(test_site(), &s));
	KUNIT_EXPECT_EQ(test, s.count, (u64)NR_THREADS * PER_THREAD);
	KUNIT_EXPECT_EQ(test, s.min, 1000ULL);
	KUNIT_EXPECT_EQ(test, s.max, 1063ULL);
	/* Durations 1000..1063 evenly: the median is 1031 or 1032. */
	KUNIT_EXPECT_LE(test, diff_u64(s.quantiles[7], 1031ULL) * 32, 1031ULL);
}

/* ---- The macros and the control commands ------------------------------- */

static noinline void timed_sleep(void)
{
	u64 t;

	time_stats_start(t);
	msleep(20);
	time_stats_end(t);
}

static struct time_stats_tag *find_site(const char *func)
{
	struct time_stats_tag *ts;

	for (ts = (void *)__codetag_start_time_stats;
	     ts < (struct time_stats_tag *)__codetag_stop_time_stats; ts++)
		if (!strcmp(ts->ct.function, func))
			return ts;
	return NULL;
}

static void time_stats_test_macros(struct kunit *test)
{
	struct time_stats_tag *ts = find_site("timed_sleep");
	struct time_stats_summary s;

	KUNIT_ASSERT_NOT_NULL(test, ts);
	KUNIT_ASSERT_GT(test, time_stats_control("func timed_sleep reset"), 0);
	timed_sleep();
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
	KUNIT_EXPECT_EQ(test, s.count, 1ULL);
	KUNIT_EXPECT_GE(test, s.min, 20ULL * NSEC_PER_MSEC);

	KUNIT_EXPECT_EQ(test, time_stats_control("func timed_sleep disable"), 1);
	timed_sleep();
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
	KUNIT_EXPECT_EQ(test, s.count, 1ULL);
	KUNIT_EXPECT_EQ(test, time_stats_control("func timed_sleep enable"), 1);
	timed_sleep();
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
	KUNIT_EXPECT_EQ(test, s.count, 2ULL);

	KUNIT_EXPECT_EQ(test, time_stats_control("func timed_sleep bogus"), -EINVAL);
	KUNIT_EXPECT_EQ(test, time_stats_control("func timed_sleep reset enable"), -EINVAL);
	KUNIT_EXPECT_EQ(test, time_stats_control("func timed_sleep"), -EINVAL);
	KUNIT_EXPECT_EQ(test, time_stats_control("func no_such_function reset"), -ENOENT);
	KUNIT_ASSERT_TRUE(test, time_stats_summarize(ts, &s));
	KUNIT_EXPECT_EQ(test, s.count, 2ULL);
}

static struct kunit_case time_stats_test_cases[] = {
	KUNIT_CASE(time_stats_test_distributions),
	KUNIT_CASE(time_stats_test_bucket_edges),
	KUNIT_CASE(time_stats_test_reset),
	KUNIT_CASE(time_stats_test_concurrent),
	KUNIT_CASE(time_stats_test_macros),
	{}
};

static struct kunit_suite time_stats_test_suite = {
	.name = "time_stats",
	.test_cases = time_stats_test_cases,
};

kunit_test_suites(&time_stats_test_suite);

MODULE_LICENSE("GPL");

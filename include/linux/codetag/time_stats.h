/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency statistics per call site: count, rate, mean, standard deviation,
 * minimum, maximum and quantiles of the durations measured at a site,
 * in /sys/kernel/debug/time_stats. See Documentation/codetag/time_stats.rst.
 */
#ifndef _LINUX_CODETAG_TIME_STATS_H
#define _LINUX_CODETAG_TIME_STATS_H

#include <linux/codetag/codetag.h>
#include <linux/jump_label.h>
#include <linux/types.h>

struct time_stats_data;

/**
 * struct time_stats_tag - the statistics of one call site
 * @ct: its identity
 * @data: its statistics, allocated when the site first records a
 *	duration; NULL for a site that never did
 */
struct time_stats_tag {
	struct codetag ct;
	struct time_stats_data *data;
};

/* Collection is switched off at this site ("disable"). */
#define TIME_STATS_FLAG_DISABLED	CODETAG_TYPE_FLAG(0)

#ifdef CONFIG_CODETAG_TIME_STATS

DECLARE_STATIC_KEY_TRUE(time_stats_key);

/**
 * time_stats_enabled() - is any site collecting
 *
 * Context: any. One static branch: off when every site is disabled.
 * Return: true if durations are being recorded.
 */
static __always_inline bool time_stats_enabled(void)
{
	return static_branch_likely(&time_stats_key);
}

#define DEFINE_TIME_STATS_TAG(_name)					\
	CODETAG_DEFINE(struct time_stats_tag, _name, time_stats)

u64 time_stats_clock(void);
void time_stats_record(struct time_stats_tag *ts, u64 start, u64 end);

/**
 * time_stats_start() - start timing
 * @_t: a u64 variable, handed to time_stats_end()
 *
 * Context: any but NMI.
 */
#define time_stats_start(_t)					\
	((_t) = time_stats_enabled() ? time_stats_clock() : 0)

/**
 * time_stats_end() - stop timing and record at this line
 * @_t: the variable time_stats_start() was given
 *
 * The duration since the start is recorded at the site of this line: the
 * end site names what was timed. Nothing is recorded if collection was
 * off at the start.
 *
 * Context: any but NMI; takes no lock. Disabled, one static branch.
 */
#define time_stats_end(_t) do {				\
	DEFINE_TIME_STATS_TAG(_ts_tag);					\
	u64 _ts_start = (_t);						\
									\
	if (time_stats_enabled() && _ts_start)				\
		time_stats_record(&_ts_tag, _ts_start, time_stats_clock()); \
} while (0)

#define TIME_STATS_NR_QUANTILES	15

/**
 * struct time_stats_summary - what one site has recorded
 * @count: durations recorded
 * @min: shortest, in ns
 * @max: longest, in ns
 * @mean: mean, in ns, rounded down
 * @stddev: population standard deviation, in ns, rounded down
 * @frequency: mean time between two recordings, in ns (0 below two)
 * @rate: recordings per second over the same span (0 below two)
 * @quantiles: the 1/16 to 15/16 quantiles, in ns
 */
struct time_stats_summary {
	u64 count;
	u64 min;
	u64 max;
	u64 mean;
	u64 stddev;
	u64 frequency;
	u64 rate;
	u64 quantiles[TIME_STATS_NR_QUANTILES];
};

bool time_stats_summarize(struct time_stats_tag *ts,
			  struct time_stats_summary *sum);
void time_stats_reset(struct time_stats_tag *ts);
int time_stats_control(const char *cmds);

#else /* !CONFIG_CODETAG_TIME_STATS */

#define time_stats_start(_t)	((_t) = 0)
#define time_stats_end(_t)	((void)(_t))

#endif /* CONFIG_CODETAG_TIME_STATS */

#endif /* _LINUX_CODETAG_TIME_STATS_H */

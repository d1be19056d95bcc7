// SPDX-License-Identifier: GPL-2.0
/*
 * Latency statistics per call site.
 *
 * Each site that records a duration gets, at its first recording, a
 * histogram with 16 buckets per power of two and per-CPU moments (count,
 * sum, sum of squares, minimum, maximum). A quantile is read from the
 * histogram: the bucket holding the sample of that rank, reported by its
 * midpoint, is never wider than 1/16 of its lower bound, so the reported
 * value is within 1/32 (3.2%) of the exact quantile of the recorded
 * samples, whatever their distribution and however many there are. The
 * moments are exact. Recording takes no lock: the histogram takes atomic
 * increments, the moments are per CPU with interrupts off.
 *
 * /sys/kernel/debug/time_stats lists the sites that have recorded, and
 * takes the code tag query language followed by reset, enable or disable.
 */

#define pr_fmt(fmt) "time_stats: " fmt

#include <linux/atomic.h>
#include <linux/codetag/time_stats.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

/* ---- Histogram --------------------------------------------------------- */

/*
 * Durations below 2 * TS_SUB ns have a bucket each. Above, each power of
 * two [2^k, 2^(k+1)) is split into TS_SUB buckets of 2^(k - TS_SUB_BITS)
 * ns. Durations of 2^TS_MAX_SHIFT ns (18 minutes) and more share the last
 * bucket, whose quantiles are reported as the maximum.
 */
#define TS_SUB_BITS	4
#define TS_SUB		BIT(TS_SUB_BITS)
#define TS_MAX_SHIFT	40
#define TS_NR_BUCKETS	(2 * TS_SUB + (TS_MAX_SHIFT - TS_SUB_BITS - 1) * TS_SUB + 1)

static unsigned int bucket_of(u64 ns)
{
	unsigned int k;

	if (ns < 2 * TS_SUB)
		return ns;
	k = fls64(ns) - 1;
	if (k >= TS_MAX_SHIFT)
		return TS_NR_BUCKETS - 1;
	return 2 * TS_SUB + (k - TS_SUB_BITS - 1) * TS_SUB +
	       ((ns >> (k - TS_SUB_BITS)) & (TS_SUB - 1));
}

/* The midpoint of bucket @b; U64_MAX for the last, open-ended one. */
static u64 bucket_value(unsigned int b)
{
	unsigned int k, sub;
	u64 width;

	if (b < 2 * TS_SUB)
		return b;
	if (b == TS_NR_BUCKETS - 1)
		return U64_MAX;
	b -= 2 * TS_SUB;
	k = b / TS_SUB + TS_SUB_BITS + 1;
	sub = b % TS_SUB;
	width = 1ULL << (k - TS_SUB_BITS);
	return (TS_SUB + sub) * width + (width - 1) / 2;
}

/* ---- Storage ----------------------------------------------------------- */

/*
 * One CPU's moments; summed over CPUs when read. 6.1 has no u128 type:
 * CODETAG_TIME_STATS depends on CC_HAS_INT128 for the sums of squares.
 */
struct time_stats_pcpu {
	u64 count;
	u64 sum;
	__uint128_t sum_squares;
	u64 min;
	u64 max;
};

/**
 * struct time_stats_data - what a site that has recorded keeps
 * @first: end time of the first recording, for the rate
 * @last: end time of the latest recording
 * @pcpu: per-CPU moments
 * @buckets: the histogram
 */
struct time_stats_data {
	atomic64_t first;
	atomic64_t last;
	struct time_stats_pcpu __percpu *pcpu;
	atomic64_t buckets[TS_NR_BUCKETS];
};

DEFINE_STATIC_KEY_TRUE(time_stats_key);
EXPORT_SYMBOL_GPL(time_stats_key);

static struct codetag_type *time_stats_cttype;

/* Sites whose storage could not be allocated, for the report. */
static atomic_long_t time_stats_dropped;

/* Serializes freeing storage (reset of a module going away) with readers. */
static DEFINE_MUTEX(time_stats_mutex);

static void pcpu_reset(struct time_stats_pcpu __percpu *pcpu)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct time_stats_pcpu *p = per_cpu_ptr(pcpu, cpu);

		memset(p, 0, sizeof(*p));
		p->min = U64_MAX;
	}
}

/*
 * First recording at @ts: allocate without sleeping, since sites are
 * wherever code waits; a site that loses the race frees its copy.
 */
static struct time_stats_data *time_stats_alloc(struct time_stats_tag *ts)
{
	const gfp_t gfp = GFP_NOWAIT | __GFP_NOWARN;
	struct time_stats_data *d = NULL, *old;

	if (slab_is_available())
		d = kzalloc(sizeof(*d), gfp);
	if (d)
		d->pcpu = alloc_percpu_gfp(struct time_stats_pcpu, gfp);
	if (!d || !d->pcpu) {
		kfree(d);
		if (atomic_long_inc_return(&time_stats_dropped) == 1)
			pr_warn("no memory for the statistics of %s:%u: its durations are dropped until there is\n",
				ts->ct.filename, ts->ct.lineno);
		return NULL;
	}
	pcpu_reset(d->pcpu);
	old = cmpxchg(&ts->data, NULL, d);
	if (old) {
		free_percpu(d->pcpu);
		kfree(d);
		return old;
	}
	return d;
}

/**
 * time_stats_clock() - the clock durations are measured with
 *
 * Context: any. ktime_get_ns(): monotonic and the same on every CPU, so
 * that a wait that starts on one CPU and ends on another is measured
 * right.
 * Return: nanoseconds.
 */
u64 time_stats_clock(void)
{
	return ktime_get_ns();
}
EXPORT_SYMBOL_GPL(time_stats_clock);

/**
 * time_stats_record() - record one duration at a site
 * @ts: the site
 * @start: when it started, in time_stats_clock() nanoseconds
 * @end: when it ended, in the same
 *
 * For the macros, and for tests, which feed known times.
 *
 * Context: any but NMI; takes no lock, allocates (without sleeping) at a
 * site's first recording.
 */
void time_stats_record(struct time_stats_tag *ts, u64 start, u64 end)
{
	struct time_stats_data *d = READ_ONCE(ts->data);
	u64 ns = end > start ? end - start : 0;
	struct time_stats_pcpu *p;
	unsigned long flags;

	if (unlikely(READ_ONCE(ts->ct.flags) & TIME_STATS_FLAG_DISABLED))
		return;
	if (unlikely(!d)) {
		d = time_stats_alloc(ts);
		if (!d)
			return;
	}

	atomic64_inc(&d->buckets[bucket_of(ns)]);
	local_irq_save(flags);
	p = this_cpu_ptr(d->pcpu);
	p->count++;
	p->sum += ns;
	p->sum_squares += (__uint128_t)ns * ns;
	if (ns < p->min)
		p->min = ns;
	if (ns > p->max)
		p->max = ns;
	local_irq_restore(flags);

	if (!atomic64_read(&d->first))
		atomic64_cmpxchg(&d->first, 0, end);
	atomic64_set(&d->last, end);
}
EXPORT_SYMBOL_GPL(time_stats_record);

/* ---- Reading ----------------------------------------------------------- */

static u64 sqrt_u128(__uint128_t x)
{
	u64 r = 0;
	int bit;

	/* Bit by bit from the top: the result has at most 64 bits. */
	for (bit = 63; bit >= 0; bit--) {
		u64 t = r | (1ULL << bit);

		if ((__uint128_t)t * t <= x)
			r = t;
	}
	return r;
}

/* @n / @d, rounded down: long division, the kernel has no __udivti3. */
static __uint128_t div_u128_u64(__uint128_t n, u64 d)
{
	__uint128_t q = 0, r = 0;
	int bit;

	for (bit = 127; bit >= 0; bit--) {
		r = (r << 1) | ((n >> bit) & 1);
		if (r >= d) {
			r -= d;
			q |= (__uint128_t)1 << bit;
		}
	}
	return q;
}

/**
 * time_stats_summarize() - what a site has recorded
 * @ts: the site
 * @sum: filled in
 *
 * Recordings made while this runs may be partly seen.
 *
 * Return: false if the site has never recorded (@sum is then zeroed).
 */
bool time_stats_summarize(struct time_stats_tag *ts,
			  struct time_stats_summary *sum)
{
	struct time_stats_data *d = READ_ONCE(ts->data);
	u64 seen = 0, count = 0, total = 0, span, rank;
	__uint128_t squares = 0, deviations;
	unsigned int b = 0, q;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	if (!d)
		return false;
	sum->min = U64_MAX;
	for_each_possible_cpu(cpu) {
		struct time_stats_pcpu *p = per_cpu_ptr(d->pcpu, cpu);

		count += p->count;
		total += p->sum;
		squares += p->sum_squares;
		sum->min = min(sum->min, p->min);
		sum->max = max(sum->max, p->max);
	}
	sum->count = count;
	if (!count) {
		sum->min = 0;
		return true;
	}
	sum->mean = div64_u64(total, count);
	/* sum((x - mean)^2) = sum(x^2) - sum(x)^2 / n, then divided by n. */
	deviations = squares - div_u128_u64((__uint128_t)total * total, count);
	sum->stddev = sqrt_u128(div_u128_u64(deviations, count));

	span = atomic64_read(&d->last) - atomic64_read(&d->first);
	if (count > 1 && span) {
		sum->frequency = div64_u64(span, count - 1);
		sum->rate = div64_u64((count - 1) * NSEC_PER_SEC, span);
	}

	/* The histogram may count a few more than the moments, or fewer. */
	for (b = 0, q = 1; q <= TIME_STATS_NR_QUANTILES; q++) {
		rank = DIV_ROUND_UP_ULL(count * q, TIME_STATS_NR_QUANTILES + 1);
		while (b < TS_NR_BUCKETS - 1 &&
		       seen + atomic64_read(&d->buckets[b]) < rank)
			seen += atomic64_read(&d->buckets[b++]);
		sum->quantiles[q - 1] = clamp(bucket_value(b), sum->min, sum->max);
	}
	return true;
}
EXPORT_SYMBOL_GPL(time_stats_summarize);

/**
 * time_stats_reset() - forget what a site has recorded
 * @ts: the site
 *
 * Its storage is kept. Recordings made meanwhile may be partly kept.
 */
void time_stats_reset(struct time_stats_tag *ts)
{
	struct time_stats_data *d = READ_ONCE(ts->data);
	unsigned int b;

	if (!d)
		return;
	pcpu_reset(d->pcpu);
	for (b = 0; b < TS_NR_BUCKETS; b++)
		atomic64_set(&d->buckets[b], 0);
	atomic64_set(&d->first, 0);
	atomic64_set(&d->last, 0);
}
EXPORT_SYMBOL_GPL(time_stats_reset);

/* ---- Control commands -------------------------------------------------- */

enum time_stats_action { TS_RESET, TS_ENABLE, TS_DISABLE };

static int time_stats_parse(void *data, char **words, int nr_words)
{
	enum time_stats_action *a = data;

	if (nr_words != 1) {
		if (!nr_words)
			pr_err("no action: reset, enable or disable\n");
		else
			pr_err("one action only, found '%s' after '%s'\n",
			       words[1], words[0]);
		return -EINVAL;
	}
	if (!strcmp(words[0], "reset")) {
		*a = TS_RESET;
	} else if (!strcmp(words[0], "enable")) {
		*a = TS_ENABLE;
	} else if (!strcmp(words[0], "disable")) {
		*a = TS_DISABLE;
	} else {
		pr_err("unknown action '%s'\n", words[0]);
		return -EINVAL;
	}
	return 0;
}

static void time_stats_apply(struct codetag *ct, const void *data)
{
	struct time_stats_tag *ts = container_of(ct, struct time_stats_tag, ct);
	const enum time_stats_action *a = data;

	switch (*a) {
	case TS_RESET:
		time_stats_reset(ts);
		break;
	case TS_ENABLE:
		WRITE_ONCE(ct->flags, ct->flags & ~TIME_STATS_FLAG_DISABLED);
		break;
	case TS_DISABLE:
		WRITE_ONCE(ct->flags, ct->flags | TIME_STATS_FLAG_DISABLED);
		break;
	}
}

static const struct codetag_control_ops time_stats_ops = {
	.action_size	= sizeof(enum time_stats_action),
	.parse		= time_stats_parse,
	.apply		= time_stats_apply,
};

/* The static branch is off exactly when every site is disabled. */
static void time_stats_update_key(void)
{
	struct codetag_iterator iter;
	bool any = false;
	struct codetag *ct;

	codetag_lock_type(time_stats_cttype);
	codetag_iter_init(&iter, time_stats_cttype);
	while (!any && (ct = codetag_next(&iter)))
		any = !(READ_ONCE(ct->flags) & TIME_STATS_FLAG_DISABLED);
	codetag_unlock_type(time_stats_cttype);
	if (any)
		static_branch_enable(&time_stats_key);
	else
		static_branch_disable(&time_stats_key);
}

/**
 * time_stats_control() - apply control commands from kernel code
 * @cmds: commands as written to /sys/kernel/debug/time_stats
 *
 * Context: process context; may sleep.
 * Return: the number of sites matched, -EINVAL for a malformed command,
 * -ENOENT if a command matches no site, -ENOMEM.
 */
int time_stats_control(const char *cmds)
{
	int ret;

	if (!time_stats_cttype)
		return -ENODEV;
	ret = codetag_control_string(time_stats_cttype, &time_stats_ops, cmds);
	if (ret > 0)
		time_stats_update_key();
	return ret;
}
EXPORT_SYMBOL_GPL(time_stats_control);

/* ---- debugfs ----------------------------------------------------------- */

static const struct {
	const char *name;
	u64 ns;
} units[] = {
	{ "s", NSEC_PER_SEC }, { "ms", NSEC_PER_MSEC },
	{ "us", NSEC_PER_USEC }, { "ns", 1 },
};

/*
 * The largest unit @ns has at least a hundred of: printed as a whole
 * number of it, a duration loses less than 1% (1.9 ms reads 1900 us, not
 * 1 ms), well inside the quantiles' own 3.2%.
 */
#define UNIT_MIN_COUNT	100

static unsigned int unit_of(u64 ns)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(units) - 1; i++)
		if (ns >= UNIT_MIN_COUNT * units[i].ns)
			break;
	return i;
}

static void seq_duration(struct seq_file *m, const char *what, u64 ns)
{
	unsigned int u = unit_of(ns);

	seq_printf(m, "%-16s%llu %s\n", what, div64_u64(ns, units[u].ns),
		   units[u].name);
}

static int time_stats_show(struct seq_file *m, struct codetag *ct)
{
	struct time_stats_tag *ts = container_of(ct, struct time_stats_tag, ct);
	struct time_stats_summary s;
	unsigned int i, u;

	mutex_lock(&time_stats_mutex);
	if (!time_stats_summarize(ts, &s) || !s.count) {
		mutex_unlock(&time_stats_mutex);
		return 0;
	}
	mutex_unlock(&time_stats_mutex);

	codetag_seq_print(m, ct);
	if (ct->flags & TIME_STATS_FLAG_DISABLED)
		seq_puts(m, " [disabled]");
	seq_printf(m, "\n%-16s%llu\n", "count:", s.count);
	seq_printf(m, "%-16s%llu/sec\n", "rate:", s.rate);
	seq_duration(m, "frequency:", s.frequency);
	seq_duration(m, "avg duration:", s.mean);
	seq_duration(m, "min duration:", s.min);
	seq_duration(m, "max duration:", s.max);
	seq_duration(m, "stddev:", s.stddev);
	/* One unit for the line: the smallest quantile's, so none loses 1%. */
	u = unit_of(s.quantiles[0]);
	seq_printf(m, "quantiles (%s):", units[u].name);
	for (i = 0; i < TIME_STATS_NR_QUANTILES; i++)
		seq_printf(m, " %llu", div64_u64(s.quantiles[i], units[u].ns));
	seq_puts(m, "\n\n");
	return 0;
}

static int time_stats_open(struct inode *inode, struct file *file)
{
	return codetag_seq_open(file, time_stats_cttype, NULL, time_stats_show);
}

static ssize_t time_stats_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	ssize_t ret = codetag_control_write(time_stats_cttype, &time_stats_ops,
					    ubuf, len);

	if (ret > 0)
		time_stats_update_key();
	return ret;
}

static const struct file_operations time_stats_fops = {
	.open		= time_stats_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.write		= time_stats_write,
	.release	= codetag_seq_release,
};

/* ---- Tag type ---------------------------------------------------------- */

/* The module's code is gone: free the storage its sites allocated. */
static bool time_stats_module_unload(struct codetag_type *cttype,
				     struct codetag_section *sect)
{
	struct time_stats_tag *ts;

	mutex_lock(&time_stats_mutex);
	for (ts = (void *)sect->start; ts < (struct time_stats_tag *)sect->stop; ts++) {
		struct time_stats_data *d = ts->data;

		if (!d)
			continue;
		ts->data = NULL;
		free_percpu(d->pcpu);
		kfree(d);
	}
	mutex_unlock(&time_stats_mutex);
	return false;
}

CODETAG_DEFINE_BOUNDS(time_stats);

static const struct codetag_type_desc time_stats_desc = {
	CODETAG_TYPE_INIT(time_stats),
	.tag_size	= sizeof(struct time_stats_tag),
	.module_unload	= time_stats_module_unload,
};

static int __init time_stats_init(void)
{
	static_assert(sizeof(struct time_stats_tag) % 8 == 0);

	time_stats_cttype = codetag_register_type(&time_stats_desc);
	if (IS_ERR(time_stats_cttype)) {
		pr_err("cannot register the tag type: %ld\n",
		       PTR_ERR(time_stats_cttype));
		time_stats_cttype = NULL;
		return -ENOMEM;
	}
	debugfs_create_file("time_stats", 0600, NULL, NULL, &time_stats_fops);
	return 0;
}
late_initcall(time_stats_init);

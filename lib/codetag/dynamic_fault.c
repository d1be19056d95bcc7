// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic fault injection at code tags.
 *
 * Each fault point is a struct dynamic_fault in the dynamic_faults section:
 * dynamic_fault("class") sites, and the "memory" point of every allocation
 * wrapper (alloc_hooks()). A point is armed by enabling its static
 * key; only then does a call site look at its policy, in a struct
 * dynamic_fault_state allocated when the point is first armed. The allocation
 * wrappers do not decide themselves: they make their point pending for the
 * current task, and the allocator's entry point decides knowing the gfp
 * flags (memory_fault_pending()).
 *
 * /sys/kernel/debug/dynamic_faults lists every point and takes the code
 * tag query language followed by actions; the boot parameter
 * dynamic_fault= takes the same commands.
 */

#define pr_fmt(fmt) "dynamic_fault: " fmt

#include <linux/codetag/dynamic_fault.h>
#include <linux/debugfs.h>
#include <linux/glob.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/workqueue.h>

static_assert(DYNAMIC_FAULT_COMM_LEN == TASK_COMM_LEN);
static_assert(sizeof(struct dynamic_fault) % 8 == 0);

/* Allocators test it: on while at least one "memory" point is armed. */
DEFINE_STATIC_KEY_FALSE(memory_faults_armed_key);

/*
 * current->memory_fault while a control command runs: the commands that
 * disarm a point must not fail for want of memory that point withholds.
 */
#define MEMORY_FAULT_SUPPRESSED	1UL

/* The context bits kept in current->memory_fault next to the point. */
#define MEMORY_FAULT_CTX_MASK	3UL

/* The point's module is being unloaded: no command may arm it. */
#define DYNAMIC_FAULT_FLAG_GONE	CODETAG_TYPE_FLAG(0)

static struct codetag_type *dynamic_fault_cttype;

/* Serializes arming, disarming and module unload. */
static DEFINE_MUTEX(dynamic_fault_mutex);

/* ---- Deciding ---------------------------------------------------------- */

static bool is_memory_point(const struct dynamic_fault *df)
{
	return !strcmp(df->class, "memory");
}

static bool task_matches(const struct dynamic_fault_policy *p)
{
	if (!p->pid && !p->comm[0])
		return true;
	/* In interrupts, current is whichever task was interrupted. */
	if (!in_task())
		return false;
	if (p->pid && p->pid != task_pid_nr(current) &&
	    p->pid != task_tgid_nr(current))
		return false;
	/* Only current changes its own comm: no lock needed to read it. */
	return !p->comm[0] || glob_match(p->comm, current->comm);
}

static void report_fault(struct dynamic_fault *df, long hit, long fault)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	unsigned long entries[16];
	unsigned int nr;

	if (!__ratelimit(&rs))
		return;
	pr_info("fault %ld at %s:%u func:%s class:%s, hit %ld, in %s (%d)\n",
		fault, df->ct.filename, df->ct.lineno, df->ct.function,
		df->class, hit, current->comm, task_pid_nr(current));
	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 1);
	stack_trace_print(entries, nr, 2);
}

static void dynamic_fault_reap(struct work_struct *work);
static DECLARE_WORK(dynamic_fault_reap_work, dynamic_fault_reap);

static void dynamic_fault_reap_queue(struct irq_work *work)
{
	schedule_work(&dynamic_fault_reap_work);
}

/* From any context: an irq_work first, since a workqueue takes locks. */
static DEFINE_IRQ_WORK(dynamic_fault_reap_irq_work, dynamic_fault_reap_queue);

/**
 * __dynamic_fault() - count a hit at an armed fault point and decide
 * @df: the fault point
 *
 * The out-of-line half of dynamic_fault(): a hit is the arrival at the
 * point of a task that matches its pid and comm scope.
 *
 * Context: any; takes no lock.
 * Return: true if a fault is to be injected.
 */
bool __dynamic_fault(struct dynamic_fault *df)
{
	/* Set before the point was first armed, and kept. */
	struct dynamic_fault_state *st = READ_ONCE(df->state);
	const struct dynamic_fault_policy *p;
	unsigned int flags, frequency, probability;
	long hit, fault;
	int left = 0;

	if (!st)
		return false;
	p = &st->policy;
	flags = READ_ONCE(p->flags);
	frequency = READ_ONCE(p->frequency);
	probability = READ_ONCE(p->probability);
	if (!(flags & DYNAMIC_FAULT_ENABLED) || !task_matches(p))
		return false;
	/* Spent, and not yet disarmed: not a hit any more. */
	if ((flags & DYNAMIC_FAULT_TIMES) && !atomic_read(&st->remaining))
		return false;
	hit = atomic_long_inc_return(&st->hits);
	if (frequency > 1 && hit % frequency)
		return false;
	if (probability < 100 && get_random_u32_below(100) >= probability)
		return false;
	if (flags & DYNAMIC_FAULT_TIMES) {
		left = atomic_dec_if_positive(&st->remaining);
		if (left < 0)
			return false;
	}
	fault = atomic_long_inc_return(&st->faults);
	if (flags & DYNAMIC_FAULT_VERBOSE)
		report_fault(df, hit, fault);
	/* The last fault allowed: disarm the point, out of this context. */
	if ((flags & DYNAMIC_FAULT_TIMES) && !left)
		irq_work_queue(&dynamic_fault_reap_irq_work);
	return true;
}
EXPORT_SYMBOL_GPL(__dynamic_fault);

/* 0 in a task, 1 in a softirq, 2 in a hardirq, 3 in an NMI. */
static unsigned long context_level(void)
{
	if (in_nmi())
		return 3;
	if (in_hardirq())
		return 2;
	if (in_serving_softirq())
		return 1;
	return 0;
}

/**
 * memory_fault_push() - run the slow path of an allocation call site
 * @df: the memory point of the allocation call about to be made
 *
 * For memory_fault_enter() only, which calls it while the point's key is
 * on. An armed point is made pending, tagged with the context it was made
 * pending in. Exported to every module, whatever its license, as
 * memory_fault_pop() is: alloc_hooks() calls them in the module itself.
 *
 * Context: any.
 * Return: what to hand back to memory_fault_pop().
 */
unsigned long memory_fault_push(struct dynamic_fault *df)
{
	unsigned long old = current->memory_fault;

	if (old == MEMORY_FAULT_SUPPRESSED)
		return old;
	current->memory_fault = (unsigned long)df | context_level();
	return old;
}
EXPORT_SYMBOL(memory_fault_push);

/**
 * memory_fault_pop() - end the allocation call of memory_fault_push()
 * @old: its return value
 *
 * Context: any.
 */
void memory_fault_pop(unsigned long old)
{
	current->memory_fault = old;
}
EXPORT_SYMBOL(memory_fault_pop);

/**
 * __memory_fault_pending() - the out-of-line half of memory_fault_pending()
 * @gfp: the allocation's flags
 *
 * Context: any.
 * Return: true if the allocation must fail.
 */
bool __memory_fault_pending(gfp_t gfp)
{
	unsigned long pending = current->memory_fault;
	struct dynamic_fault *df;

	df = (struct dynamic_fault *)(pending & ~MEMORY_FAULT_CTX_MASK);
	if (!df || (pending & MEMORY_FAULT_CTX_MASK) != context_level())
		return false;
	if (gfp & __GFP_NOFAIL)
		return false;
	/* Taken: what the allocator allocates for itself is not failed. */
	current->memory_fault = 0;
	return __dynamic_fault(df);
}

/* ---- Arming ------------------------------------------------------------ */

static bool is_armed(const struct dynamic_fault *df)
{
	return df->state &&
	       (READ_ONCE(df->state->policy.flags) & DYNAMIC_FAULT_ENABLED);
}

/*
 * A point's static key is on while it is armed; the allocation sites' key
 * and the allocators' key count the armed memory points. Called with
 * dynamic_fault_mutex held, after the point's state changed from
 * @was_armed.
 */
static void update_keys(struct dynamic_fault *df, bool was_armed)
{
	bool armed = is_armed(df);

	if (armed == was_armed)
		return;
	if (armed) {
		if (is_memory_point(df)) {
			static_branch_inc(&memory_faults_armed_key);
			alloc_sites_get();
		}
		static_branch_enable(&df->armed);
	} else {
		static_branch_disable(&df->armed);
		if (is_memory_point(df)) {
			alloc_sites_put();
			static_branch_dec(&memory_faults_armed_key);
		}
	}
}

/* Called with dynamic_fault_mutex held. */
static void disarm(struct dynamic_fault *df)
{
	bool was_armed = is_armed(df);

	if (df->state)
		WRITE_ONCE(df->state->policy.flags,
			   df->state->policy.flags & ~DYNAMIC_FAULT_ENABLED);
	update_keys(df, was_armed);
}

/*
 * Called with dynamic_fault_mutex held, on a point that has its state
 * (dynamic_fault_prepare()).
 */
static void arm(struct dynamic_fault *df, const struct dynamic_fault_policy *p)
{
	struct dynamic_fault_state *st = df->state;
	bool was_armed = is_armed(df);

	/* A re-armed point may be hit meanwhile: keep the old policy off. */
	WRITE_ONCE(st->policy.flags, 0);
	atomic_long_set(&st->hits, 0);
	atomic_long_set(&st->faults, 0);
	atomic_set(&st->remaining, p->times);
	st->policy.frequency = p->frequency;
	st->policy.probability = p->probability;
	st->policy.times = p->times;
	st->policy.pid = p->pid;
	memcpy(st->policy.comm, p->comm, sizeof(p->comm));
	smp_wmb();	/* the policy before the flags that enable it */
	WRITE_ONCE(st->policy.flags, p->flags | DYNAMIC_FAULT_ENABLED);
	update_keys(df, was_armed);
}

static bool exhausted(const struct dynamic_fault_state *st)
{
	return (READ_ONCE(st->policy.flags) & DYNAMIC_FAULT_TIMES) &&
	       !atomic_read(&st->remaining);
}

/* Disarm the points whose last fault was injected. */
static void dynamic_fault_reap(struct work_struct *work)
{
	struct codetag_iterator iter;
	struct codetag *ct;

	codetag_lock_type(dynamic_fault_cttype);
	mutex_lock(&dynamic_fault_mutex);
	codetag_iter_init(&iter, dynamic_fault_cttype);
	while ((ct = codetag_next(&iter))) {
		struct dynamic_fault *df = container_of(ct, struct dynamic_fault, ct);

		if (is_armed(df) && exhausted(df->state))
			disarm(df);
	}
	mutex_unlock(&dynamic_fault_mutex);
	codetag_unlock_type(dynamic_fault_cttype);
}

/* ---- Control commands -------------------------------------------------- */

/**
 * struct dynamic_fault_action - the parsed actions of one command
 * @disable: disarm the matching points
 * @policy: otherwise, arm them with this policy
 */
struct dynamic_fault_action {
	bool disable;
	struct dynamic_fault_policy policy;
};

/* Parse the number after @words[*i]; say which word was wrong. */
static int parse_number(char **words, int nr_words, int *i,
			unsigned int min, unsigned int max, unsigned int *val)
{
	const char *keyword = words[*i];

	if (++*i >= nr_words) {
		pr_err("'%s' needs a number\n", keyword);
		return -EINVAL;
	}
	if (kstrtouint(words[*i], 10, val) || *val < min || *val > max) {
		pr_err("bad number '%s' after '%s' (%u to %u)\n",
		       words[*i], keyword, min, max);
		return -EINVAL;
	}
	return 0;
}

static int dynamic_fault_parse(void *data, char **words, int nr_words)
{
	struct dynamic_fault_action *a = data;
	struct dynamic_fault_policy *p = &a->policy;
	const char *mode = NULL, *other = NULL;
	bool times = false;
	unsigned int n;
	int i, ret;

	memset(a, 0, sizeof(*a));
	p->probability = 100;
	if (!nr_words) {
		pr_err("no action: enable, disable, oneshot, frequency, probability or times\n");
		return -EINVAL;
	}
	for (i = 0; i < nr_words; i++) {
		const char *w = words[i];

		if (!strcmp(w, "enable") || !strcmp(w, "oneshot") ||
		    !strcmp(w, "frequency") || !strcmp(w, "probability")) {
			if (mode) {
				pr_err("'%s' conflicts with '%s'\n", w, mode);
				return -EINVAL;
			}
			mode = w;
		} else if (!strcmp(w, "disable")) {
			if (a->disable) {
				pr_err("'%s' given twice\n", w);
				return -EINVAL;
			}
			a->disable = true;
		} else if (!strcmp(w, "times") || !strcmp(w, "pid") ||
			   !strcmp(w, "comm") || !strcmp(w, "verbose")) {
			other = w;
		} else {
			pr_err("unknown action '%s'\n", w);
			return -EINVAL;
		}

		if (!strcmp(w, "oneshot")) {
			p->flags |= DYNAMIC_FAULT_TIMES;
			p->times = 1;
		} else if (!strcmp(w, "frequency")) {
			ret = parse_number(words, nr_words, &i, 1, UINT_MAX,
					   &p->frequency);
			if (ret)
				return ret;
		} else if (!strcmp(w, "probability")) {
			ret = parse_number(words, nr_words, &i, 0, 100, &n);
			if (ret)
				return ret;
			p->probability = n;
		} else if (!strcmp(w, "times")) {
			if (times) {
				pr_err("'%s' given twice\n", w);
				return -EINVAL;
			}
			times = true;
			ret = parse_number(words, nr_words, &i, 1, INT_MAX,
					   &p->times);
			if (ret)
				return ret;
			p->flags |= DYNAMIC_FAULT_TIMES;
		} else if (!strcmp(w, "pid")) {
			if (p->pid) {
				pr_err("'%s' given twice\n", w);
				return -EINVAL;
			}
			ret = parse_number(words, nr_words, &i, 1, PID_MAX_LIMIT,
					   &n);
			if (ret)
				return ret;
			p->pid = n;
		} else if (!strcmp(w, "comm")) {
			if (p->comm[0]) {
				pr_err("'%s' given twice\n", w);
				return -EINVAL;
			}
			if (++i >= nr_words) {
				pr_err("'comm' needs a command name\n");
				return -EINVAL;
			}
			if (strscpy(p->comm, words[i], sizeof(p->comm)) < 0) {
				pr_err("command name '%s' is longer than %d characters\n",
				       words[i], TASK_COMM_LEN - 1);
				return -EINVAL;
			}
		} else if (!strcmp(w, "verbose")) {
			if (p->flags & DYNAMIC_FAULT_VERBOSE) {
				pr_err("'%s' given twice\n", w);
				return -EINVAL;
			}
			p->flags |= DYNAMIC_FAULT_VERBOSE;
		}
	}
	if (times && mode && !strcmp(mode, "oneshot")) {
		pr_err("'times' conflicts with 'oneshot' (which is 'times 1')\n");
		return -EINVAL;
	}
	if (a->disable && (mode || other)) {
		pr_err("'disable' takes no other action, found '%s'\n",
		       mode ?: other);
		return -EINVAL;
	}
	return 0;
}

/*
 * A point gets its state the first time a command would arm it, before any
 * command of the write is applied: a point that cannot have one makes the
 * write fail whole. Once allocated, it is kept until its module goes.
 */
static int dynamic_fault_prepare(struct codetag *ct, const void *data)
{
	struct dynamic_fault *df = container_of(ct, struct dynamic_fault, ct);
	const struct dynamic_fault_action *a = data;
	struct dynamic_fault_state *st;

	if (a->disable || READ_ONCE(df->state))
		return 0;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	mutex_lock(&dynamic_fault_mutex);
	if (df->state || (ct->flags & DYNAMIC_FAULT_FLAG_GONE))
		kfree(st);
	else
		WRITE_ONCE(df->state, st);
	mutex_unlock(&dynamic_fault_mutex);
	return 0;
}

static void dynamic_fault_apply(struct codetag *ct, const void *data)
{
	struct dynamic_fault *df = container_of(ct, struct dynamic_fault, ct);
	const struct dynamic_fault_action *a = data;

	mutex_lock(&dynamic_fault_mutex);
	/* A module going away: its keys go with it, leave them alone. */
	if (ct->flags & DYNAMIC_FAULT_FLAG_GONE)
		;
	else if (a->disable)
		disarm(df);
	else
		arm(df, &a->policy);
	mutex_unlock(&dynamic_fault_mutex);
}

static const struct codetag_control_ops dynamic_fault_ops = {
	.action_size	= sizeof(struct dynamic_fault_action),
	.parse		= dynamic_fault_parse,
	.prepare	= dynamic_fault_prepare,
	.apply		= dynamic_fault_apply,
};

/* Run @fn with this task's memory faults suppressed. */
#define WITHOUT_MEMORY_FAULTS(expr) ({					\
	unsigned long _saved = current->memory_fault;			\
	typeof(expr) _ret;						\
									\
	current->memory_fault = MEMORY_FAULT_SUPPRESSED;		\
	_ret = (expr);							\
	current->memory_fault = _saved;					\
	_ret;								\
})

/**
 * dynamic_fault_control() - apply control commands from kernel code
 * @cmds: commands as written to /sys/kernel/debug/dynamic_faults
 *
 * For tests and boot code that arm and disarm fault points themselves.
 * All commands are checked before any is applied; none is applied if one
 * is malformed or matches no point. The calling task's own allocations
 * are never failed while the commands are applied.
 *
 * Context: process context; may sleep.
 * Return: the number of points matched, -EINVAL for a malformed command
 * (logged with the wrong word), -ENOENT if a command matches no point,
 * -ENOMEM.
 */
int dynamic_fault_control(const char *cmds)
{
	if (!dynamic_fault_cttype)
		return -ENODEV;
	return WITHOUT_MEMORY_FAULTS(codetag_control_string(dynamic_fault_cttype,
							    &dynamic_fault_ops,
							    cmds));
}
EXPORT_SYMBOL_GPL(dynamic_fault_control);

/* ---- debugfs ----------------------------------------------------------- */

/* What a point that was never armed shows: disabled, nothing counted. */
static const struct dynamic_fault_state never_armed;

static void show_state(struct seq_file *m, const struct dynamic_fault_state *st)
{
	const struct dynamic_fault_policy *p = &st->policy;
	unsigned int flags = READ_ONCE(p->flags);
	bool enabled = (flags & DYNAMIC_FAULT_ENABLED) && !exhausted(st);

	seq_puts(m, enabled ? "enabled" : "disabled");
	if (enabled) {
		if (p->frequency > 1)
			seq_printf(m, " frequency:%u", p->frequency);
		if (p->probability < 100)
			seq_printf(m, " probability:%u", p->probability);
		if (flags & DYNAMIC_FAULT_TIMES)
			seq_printf(m, " times:%d/%u",
				   atomic_read(&st->remaining), p->times);
		if (p->pid)
			seq_printf(m, " pid:%d", p->pid);
		if (p->comm[0])
			seq_printf(m, " comm:%s", p->comm);
		if (flags & DYNAMIC_FAULT_VERBOSE)
			seq_puts(m, " verbose");
	}
	seq_printf(m, " hits:%ld faults:%ld\n", atomic_long_read(&st->hits),
		   atomic_long_read(&st->faults));
}

static int dynamic_faults_show(struct seq_file *m, struct codetag *ct)
{
	struct dynamic_fault *df = container_of(ct, struct dynamic_fault, ct);

	codetag_seq_print(m, ct);
	seq_printf(m, " class:%s ", df->class);
	/* The state of a module's point goes with the module. */
	mutex_lock(&dynamic_fault_mutex);
	show_state(m, df->state ?: &never_armed);
	mutex_unlock(&dynamic_fault_mutex);
	return 0;
}

static int dynamic_faults_open(struct inode *inode, struct file *file)
{
	return codetag_seq_open(file, dynamic_fault_cttype, NULL,
				dynamic_faults_show);
}

static ssize_t dynamic_faults_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	return WITHOUT_MEMORY_FAULTS(codetag_control_write(dynamic_fault_cttype,
							   &dynamic_fault_ops,
							   ubuf, len));
}

static const struct file_operations dynamic_faults_fops = {
	.open		= dynamic_faults_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.write		= dynamic_faults_write,
	.release	= codetag_seq_release,
};

/* ---- Tag type ---------------------------------------------------------- */

static const char *dynamic_fault_class(const struct codetag *ct)
{
	return container_of(ct, struct dynamic_fault, ct)->class;
}

/*
 * The module's code is about to go: forget its memory points in the
 * sites' and the allocators' keys, make sure no command arms its points
 * meanwhile, and free their states (no code of the module runs to look at
 * them; the listing looks under the mutex). Its own keys go with its jump
 * table.
 */
static bool dynamic_fault_module_unload(struct codetag_type *cttype,
					struct codetag_section *sect)
{
	struct codetag *ct;

	mutex_lock(&dynamic_fault_mutex);
	for (ct = sect->start; ct < sect->stop;
	     ct = (void *)ct + sizeof(struct dynamic_fault)) {
		struct dynamic_fault *df = container_of(ct, struct dynamic_fault, ct);

		WRITE_ONCE(ct->flags, ct->flags | DYNAMIC_FAULT_FLAG_GONE);
		if (is_armed(df) && is_memory_point(df))
			static_branch_dec(&memory_faults_armed_key);
		if (static_key_enabled(&df->armed) && is_memory_point(df))
			alloc_sites_put();
		kfree(df->state);
		df->state = NULL;
	}
	mutex_unlock(&dynamic_fault_mutex);
	return false;
}

CODETAG_DEFINE_BOUNDS(dynamic_faults);

static const struct codetag_type_desc dynamic_fault_desc = {
	CODETAG_TYPE_INIT(dynamic_faults),
	.tag_size	= sizeof(struct dynamic_fault),
	.tag_class	= dynamic_fault_class,
	.module_unload	= dynamic_fault_module_unload,
};

static char *dynamic_fault_boot_cmds __initdata;

/* Only noted here: the commands are applied once the tag type exists. */
static int __init setup_dynamic_fault(char *str)
{
	dynamic_fault_boot_cmds = str;
	return 0;
}
early_param("dynamic_fault", setup_dynamic_fault);

/*
 * Early enough for faults to be armed before any driver probes; the
 * control file comes later, with debugfs.
 */
static int __init dynamic_fault_init(void)
{
	int ret;

	dynamic_fault_cttype = codetag_register_type(&dynamic_fault_desc);
	if (IS_ERR(dynamic_fault_cttype)) {
		ret = PTR_ERR(dynamic_fault_cttype);
		dynamic_fault_cttype = NULL;
		pr_err("cannot register the tag type: %d\n", ret);
		return ret;
	}
	if (dynamic_fault_boot_cmds) {
		ret = dynamic_fault_control(dynamic_fault_boot_cmds);
		if (ret < 0)
			pr_err("dynamic_fault=\"%s\": error %d, nothing armed\n",
			       dynamic_fault_boot_cmds, ret);
		else
			pr_info("dynamic_fault=\"%s\": %d fault points armed\n",
				dynamic_fault_boot_cmds, ret);
	}
	return 0;
}
core_initcall(dynamic_fault_init);

static int __init dynamic_fault_debugfs_init(void)
{
	if (dynamic_fault_cttype)
		debugfs_create_file("dynamic_faults", 0600, NULL, NULL,
				    &dynamic_faults_fops);
	return 0;
}
late_initcall(dynamic_fault_debugfs_init);

// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation tags: per-call-site accounting of kernel allocations.
 *
 * Each allocation call site has a struct alloc_tag (see alloc_hooks()),
 * whose per-CPU counters the allocators charge and discharge. This file
 * registers the tag type with the code tag registry, gives module tags
 * their counters and page-reference numbers, keeps the tags of a module
 * unloaded with live allocations until those are freed, and reports:
 * /proc/allocinfo in upstream Linux's format, and
 * /sys/kernel/debug/alloc_tags with human-readable sizes.
 */

#define pr_fmt(fmt) "alloc_tag: " fmt

#include <linux/codetag/alloc_tag.h>
#include <linux/codetag/alloc_tag_hooks.h>
#include <linux/codetag/pgalloc_tag.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/page_ext.h>
#include <linux/proc_fs.h>
#include <linux/rculist.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>

#include "alloc_tag_internal.h"

/*
 * Every allocation wrapper tests the first, in modules too, GPL or not;
 * only the allocators test the second.
 */
#ifdef CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT
DEFINE_STATIC_KEY_TRUE(mem_alloc_profiling_key);
DEFINE_STATIC_KEY_TRUE(mem_alloc_tags_live_key);
#else
DEFINE_STATIC_KEY_FALSE(mem_alloc_profiling_key);
DEFINE_STATIC_KEY_FALSE(mem_alloc_tags_live_key);
#endif
EXPORT_SYMBOL(mem_alloc_profiling_key);

/*
 * Counts profiling (one reference while it is on) and each memory fault
 * point that is on: see alloc_sites_hooked(). Profiling's reference is
 * the one it starts with.
 */
#ifdef CONFIG_MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT
DEFINE_STATIC_KEY_TRUE(alloc_sites_key);
#else
DEFINE_STATIC_KEY_FALSE(alloc_sites_key);
#endif
EXPORT_SYMBOL(alloc_sites_key);

/* Serialises switching profiling, so that it takes one reference at most. */
static DEFINE_MUTEX(mem_profiling_mutex);

/* sysctl.vm.mem_profiling= from the command line. */
static enum { BOOT_UNSET, BOOT_OFF, BOOT_ON, BOOT_NEVER } mem_profiling_boot;

struct codetag_type *alloc_tag_cttype;

/* ---- Counters ---------------------------------------------------------- */

/**
 * alloc_tag_read_raw() - a call site's counters, summed as they are
 * @tag: the tag
 *
 * Sums the per-CPU counters and clamps nothing: read as s64, a negative
 * figure is either an underflow (a site discharged for something it was
 * never charged) or a sum that saw a free on one CPU and missed the
 * allocation it frees on another. A figure that stays negative is a bug;
 * tests and alloc_tags.summary look for it here, since alloc_tag_read()
 * hides it.
 *
 * Context: any.
 * Return: bytes and calls allocated minus freed, modulo 2^64.
 */
struct alloc_tag_counters alloc_tag_read_raw(const struct alloc_tag *tag)
{
	struct alloc_tag_counters sum = { 0, 0 };
	int cpu;

	if (!tag->counters)
		return sum;
	for_each_possible_cpu(cpu) {
		const struct alloc_tag_counters *c = per_cpu_ptr(tag->counters, cpu);

		sum.bytes += READ_ONCE(c->bytes);
		sum.calls += READ_ONCE(c->calls);
	}
	return sum;
}
EXPORT_SYMBOL_GPL(alloc_tag_read_raw);

/**
 * alloc_tag_read() - what is live at a call site
 * @tag: the tag
 *
 * Sums the per-CPU counters; concurrent updates may or may not be seen,
 * so a sum can dip below zero for a moment (see alloc_tag_read_raw()):
 * what users read is never below zero.
 *
 * Context: any.
 * Return: live bytes and calls, never below zero.
 */
struct alloc_tag_counters alloc_tag_read(const struct alloc_tag *tag)
{
	struct alloc_tag_counters sum = alloc_tag_read_raw(tag);

	if ((s64)sum.bytes < 0)
		sum.bytes = 0;
	if ((s64)sum.calls < 0)
		sum.calls = 0;
	return sum;
}
EXPORT_SYMBOL_GPL(alloc_tag_read);

/* ---- Module tags ------------------------------------------------------- */

/**
 * struct alloc_tag_module - the tags of one module
 * @link: entry in alloc_tag_modules, sorted by @first_ref; RCU
 * @sect: the tags
 * @first_ref: page-reference number of the first tag, 0 if none
 * @nr: number of tags
 * @kept: the module is gone, allocations charged to it are not
 * @idle_link: entry in a list of kept modules being released
 * @rcu: for freeing after readers are done
 */
struct alloc_tag_module {
	struct list_head link;
	struct list_head idle_link;
	struct codetag_section *sect;
	unsigned int first_ref;
	unsigned int nr;
	bool kept;
	struct rcu_head rcu;
};

/*
 * Readers (the free path, in any context) walk the list under RCU; writers
 * hold alloc_tag_modules_lock, which nests inside the registry's mutex.
 */
static LIST_HEAD(alloc_tag_modules);
static DEFINE_MUTEX(alloc_tag_modules_lock);

static void release_kept_modules(struct work_struct *work);
static DECLARE_DELAYED_WORK(release_work, release_kept_modules);

/* How often kept modules are checked for their last allocation's free. */
#define RELEASE_INTERVAL	(5 * HZ)

static struct alloc_tag *module_tag(const struct alloc_tag_module *am,
				    unsigned int i)
{
	return (struct alloc_tag *)am->sect->start + i;
}

/* Module tags by number, for alloc_tag_of_ref(). */
struct alloc_tag_module_refs __rcu *alloc_tag_module_refs;

/* Make room for numbers up to @last; alloc_tag_modules_lock held. */
static int grow_module_refs(unsigned int last)
{
	struct alloc_tag_module_refs *old, *t;
	unsigned int size = last - nr_alloc_tags_vmlinux();

	old = rcu_dereference_protected(alloc_tag_module_refs,
					lockdep_is_held(&alloc_tag_modules_lock));
	if (old && old->size >= size)
		return 0;
	size = max(roundup_pow_of_two(size), 64U);
	t = kzalloc(struct_size(t, tags, size), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->first = nr_alloc_tags_vmlinux() + 1;
	t->size = size;
	if (old)
		memcpy(t->tags, old->tags, old->size * sizeof(t->tags[0]));
	rcu_assign_pointer(alloc_tag_module_refs, t);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* Number a module's tags, or forget their numbers; lock held. */
static void set_module_refs(struct alloc_tag_module *am, bool on)
{
	struct alloc_tag_module_refs *t;
	unsigned int i, base;

	if (!am->first_ref)
		return;
	t = rcu_dereference_protected(alloc_tag_module_refs,
				      lockdep_is_held(&alloc_tag_modules_lock));
	base = am->first_ref - t->first;
	for (i = 0; i < am->nr; i++) {
		struct alloc_tag *tag = module_tag(am, i);

		if (on)
			WRITE_ONCE(tag->ct.flags, tag->ct.flags |
				   (am->first_ref + i) << ALLOC_TAG_REF_SHIFT);
		WRITE_ONCE(t->tags[base + i], on ? tag : NULL);
	}
}

/*
 * First fit above vmlinux's numbers. Returns where in the sorted list to
 * insert, and the first number, 0 if there is no room.
 */
static struct list_head *find_ref_range(unsigned int nr, unsigned int *first)
{
	unsigned int next = nr_alloc_tags_vmlinux() + 1;
	unsigned int limit = ALLOC_TAG_REF_LIMIT;
	struct alloc_tag_module *am;

	list_for_each_entry(am, &alloc_tag_modules, link) {
		if (!am->first_ref)
			continue;
		if (am->first_ref - next >= nr)
			break;
		next = am->first_ref + am->nr;
	}
	*first = next + nr <= limit ? next : 0;
	return &am->link;
}

static void free_module_counters(struct alloc_tag_module *am)
{
	unsigned int i;

	for (i = 0; i < am->nr; i++) {
		free_percpu(module_tag(am, i)->counters);
		module_tag(am, i)->counters = NULL;
	}
}

static int alloc_tag_module_load(struct codetag_type *cttype,
				 struct codetag_section *sect)
{
	struct alloc_tag_module *am;
	struct list_head *pos;
	unsigned int i;

	am = kzalloc(sizeof(*am), GFP_KERNEL);
	if (!am)
		return -ENOMEM;
	am->sect = sect;
	am->nr = ((char *)sect->stop - (char *)sect->start) /
		 sizeof(struct alloc_tag);
	for (i = 0; i < am->nr; i++) {
		module_tag(am, i)->counters = alloc_percpu(struct alloc_tag_counters);
		if (!module_tag(am, i)->counters) {
			free_module_counters(am);
			kfree(am);
			return -ENOMEM;
		}
	}

	mutex_lock(&alloc_tag_modules_lock);
	pos = find_ref_range(am->nr, &am->first_ref);
	if (am->first_ref && grow_module_refs(am->first_ref + am->nr - 1))
		am->first_ref = 0;
	if (!am->first_ref)
		pr_warn("%s: no page reference numbers left for its %u tags: its page allocations are not charged\n",
			sect->modname, am->nr);
	set_module_refs(am, true);
	list_add_tail_rcu(&am->link, pos);
	mutex_unlock(&alloc_tag_modules_lock);
	return 0;
}

static struct alloc_tag_module *find_tag_module(struct codetag_section *sect)
{
	struct alloc_tag_module *am;

	list_for_each_entry(am, &alloc_tag_modules, link)
		if (am->sect == sect)
			return am;
	return NULL;
}

static bool module_live(struct alloc_tag_module *am, u64 *bytes, u64 *calls)
{
	unsigned int i;

	*bytes = 0;
	*calls = 0;
	for (i = 0; i < am->nr; i++) {
		struct alloc_tag_counters c = alloc_tag_read(module_tag(am, i));

		*bytes += c.bytes;
		*calls += c.calls;
	}
	return *calls || *bytes;
}

/* Keep the tags of a module unloaded with live allocations. */
static bool alloc_tag_module_unload(struct codetag_type *cttype,
				    struct codetag_section *sect)
{
	struct alloc_tag_module *am;
	u64 bytes, calls;
	bool keep = false;

	/* Its sites stop capturing; live allocations keep their tags. */
	alloc_tag_ctx_module_unload(sect);
	mutex_lock(&alloc_tag_modules_lock);
	am = find_tag_module(sect);
	if (!am)
		goto out;
	if (module_live(am, &bytes, &calls)) {
		pr_info("%s: unloaded with %llu bytes in %llu allocations still live: keeping its tags until they are freed\n",
			sect->modname, bytes, calls);
		am->kept = true;
		keep = true;
		schedule_delayed_work(&release_work, RELEASE_INTERVAL);
	} else {
		/* Nothing charged: no page refers to these numbers. */
		set_module_refs(am, false);
		list_del_rcu(&am->link);
		free_module_counters(am);
		kfree_rcu(am, rcu);
	}
out:
	mutex_unlock(&alloc_tag_modules_lock);
	return keep;
}

static void release_kept_modules(struct work_struct *work)
{
	struct alloc_tag_module *am, *tmp;
	bool still_kept = false;
	u64 bytes, calls;
	LIST_HEAD(idle);

	mutex_lock(&alloc_tag_modules_lock);
	list_for_each_entry_safe(am, tmp, &alloc_tag_modules, link) {
		if (!am->kept)
			continue;
		if (module_live(am, &bytes, &calls)) {
			still_kept = true;
			continue;
		}
		/* RCU readers may still follow link: use another node. */
		set_module_refs(am, false);
		list_del_rcu(&am->link);
		list_add(&am->idle_link, &idle);
	}
	mutex_unlock(&alloc_tag_modules_lock);

	if (!list_empty(&idle))
		synchronize_rcu();	/* no free path still looks at them */
	list_for_each_entry_safe(am, tmp, &idle, idle_link) {
		pr_info("%s: last allocation freed: releasing its tags\n",
			am->sect->modname);
		free_module_counters(am);
		codetag_release_section(alloc_tag_cttype, am->sect);
		kfree(am);
	}
	if (still_kept)
		schedule_delayed_work(&release_work, RELEASE_INTERVAL);
}

/* ---- Pages whose flags have no room ------------------------------------ */

#ifdef CONFIG_PAGE_EXTENSION
static bool need_page_ext(void)
{
	return !pgalloc_tag_in_flags && mem_profiling_boot != BOOT_NEVER;
}

/*
 * A whole word, not 16 bits: the next page's page_ext starts right after,
 * and its flags are operated on atomically.
 */
/*
 * Pages handed out before page_ext exists have nowhere to keep a tag and
 * are never charged: count them once, when page_ext comes up, so that
 * alloc_tags.summary can tell them from pages that escaped the hooks.
 */
static unsigned long pages_before_tags;

static void init_page_ext(void)
{
	unsigned long free = global_zone_page_state(NR_FREE_PAGES);
	struct zone *zone;
	int cpu;

	/* Pages on the per-CPU free lists are free too. */
	for_each_populated_zone(zone)
		for_each_online_cpu(cpu)
			free += READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset, cpu)->count);
	if (totalram_pages() > free)
		pages_before_tags = totalram_pages() - free;
}

struct page_ext_operations alloc_tag_page_ext_ops = {
	.size	= sizeof(unsigned long),
	.need	= need_page_ext,
	.init	= init_page_ext,
};

static unsigned long *page_ext_ref(struct page_ext *ext)
{
	return (void *)ext + alloc_tag_page_ext_ops.offset;
}

/**
 * alloc_tag_page_ext_ref() - a page's reference number, from its page_ext
 * @page: the page
 *
 * Context: any.
 * Return: the number, 0 if none or the page has no page_ext.
 */
unsigned int alloc_tag_page_ext_ref(struct page *page)
{
	struct page_ext *ext = page_ext_get(page);
	unsigned int ref = 0;

	if (ext) {
		ref = READ_ONCE(*page_ext_ref(ext));
		page_ext_put(ext);
	}
	return ref;
}

/**
 * alloc_tag_set_page_ext_ref() - keep a page's reference number in its page_ext
 * @page: the page
 * @ref: the number, 0 for none
 *
 * Context: any.
 * Return: false if the page has no page_ext (yet: early in boot).
 */
bool alloc_tag_set_page_ext_ref(struct page *page, unsigned int ref)
{
	struct page_ext *ext = page_ext_get(page);

	if (!ext)
		return false;
	WRITE_ONCE(*page_ext_ref(ext), ref);
	page_ext_put(ext);
	return true;
}
#endif /* CONFIG_PAGE_EXTENSION */

/* ---- Page movers ------------------------------------------------------- */

/*
 * Charge a block of 2^order pages to the tag numbered @ref instead of its
 * own, which allocated it for a page mover. Not for contexts: theirs
 * describe one allocation. Others may see the block: its flags are
 * changed atomically.
 */
static void recharge_block(struct page *page, unsigned int order,
			   unsigned int ref)
{
	unsigned int old = page_alloc_tag_ref(page);
	struct alloc_tag *tag;

	if (!ref || ref == old || alloc_tag_ref_is_ctx(ref) ||
	    alloc_tag_ref_is_ctx(old))
		return;
	tag = alloc_tag_of_ref(ref);
	if (!tag)
		return;
	update_page_alloc_tag_ref(page, ref);
	if (old) {
		struct alloc_tag *mover = alloc_tag_of_ref(old);

		if (mover)
			alloc_tag_sub(mover, PAGE_SIZE << order);
	}
	pgalloc_tag_charged(tag, order, READ_ONCE(tag->ct.flags));
}

/**
 * pgalloc_tag_adopt() - charge a mover's new block to the data's site
 * @page: the first page of a block of 2^@order pages a mover allocated
 * @order: its order
 * @from: a page whose data the block now holds, about to be freed; of a
 *	compound page, its head holds the reference
 *
 * khugepaged copies small pages into a huge page it allocated, then frees
 * the small pages, whose frees discharge the site that allocated them:
 * the huge page is charged to that site instead of the mover's, taken
 * from the first page copied, so that the bytes stay where they were
 * (the calls now count one block where there were many). A page of an
 * allocation context (alloc_tags.ctx) keeps the mover's charge: its
 * context describes that page alone.
 *
 * Context: @page not yet visible to others; @from locked or isolated.
 */
void pgalloc_tag_adopt(struct page *page, unsigned int order,
		       struct page *from)
{
	if (mem_alloc_tags_live())
		recharge_block(page, order, page_alloc_tag_ref(compound_head(from)));
}

/*
 * Swap: a page's charge is discharged when it is freed after swap-out,
 * and the page that swap-in allocates is charged to the swap-in path's
 * site. To keep the data's site, each slot of a swap device records the
 * reference number of the page written to it, and swap-in charges the new
 * page to that number. Only built-in sites are recorded: a module's
 * numbers are given to another module once it is gone, and memory that
 * can be swapped is allocated by the kernel proper. Two bytes per slot,
 * allocated at swapon while tags are live.
 */
static u16 *swap_refs[MAX_SWAPFILES];

/**
 * alloc_tag_swapon() - make room for a new swap device's references
 * @type: the device's index
 * @nr_slots: its number of slots
 *
 * Without room (tags not live, or no memory), swap-ins from the device
 * are charged to the swap-in path, which the log says.
 *
 * Context: process; swapon, before the device is used.
 */
void alloc_tag_swapon(unsigned int type, unsigned long nr_slots)
{
	BUILD_BUG_ON(ALLOC_TAG_REF_WIDTH > 16);
	if (!mem_alloc_tags_live())
		return;
	swap_refs[type] = kvcalloc(nr_slots, sizeof(u16), GFP_KERNEL);
	if (!swap_refs[type])
		pr_warn("no memory for swap device %u's tag references: its swap-ins are charged to the swap-in path\n",
			type);
}

/**
 * alloc_tag_swapoff() - drop a swap device's references
 * @type: the device's index
 *
 * Context: process; swapoff, once nothing can swap in from the device.
 */
void alloc_tag_swapoff(unsigned int type)
{
	kvfree(swap_refs[type]);
	swap_refs[type] = NULL;
}

/**
 * __alloc_tag_swap_out() - record a folio's site in its swap slots
 * @folio: the folio, just added to the swap cache
 * @entry: its first swap entry
 *
 * Context: @folio locked; its slots are its own.
 */
void __alloc_tag_swap_out(struct folio *folio, swp_entry_t entry)
{
	u16 *refs = READ_ONCE(swap_refs[swp_type(entry)]);
	unsigned int ref = page_alloc_tag_ref(&folio->page);
	long i;

	if (!refs)
		return;
	/* Swap-in comes one page at a time: each slot has the number. */
	if (alloc_tag_vmlinux_of_ref(ref) >= alloc_tags_vmlinux_end())
		ref = 0;
	for (i = 0; i < folio_nr_pages(folio); i++)
		WRITE_ONCE(refs[swp_offset(entry) + i], ref);
}

/**
 * __alloc_tag_swap_in() - charge a swapped-in folio to its data's site
 * @folio: the folio swap-in allocated for @entry, order 0
 * @entry: the swap entry it is read from
 *
 * Context: @folio locked, maybe in the swap cache already.
 */
void __alloc_tag_swap_in(struct folio *folio, swp_entry_t entry)
{
	u16 *refs = READ_ONCE(swap_refs[swp_type(entry)]);

	if (refs)
		recharge_block(&folio->page, folio_order(folio),
			       READ_ONCE(refs[swp_offset(entry)]));
}

/* ---- Reports ----------------------------------------------------------- */

/* Sizes that sort -h orders: 512B, 920KiB, 153MiB. */
static void print_human(struct seq_file *m, u64 bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int i = 0;

	while (bytes >= 1024 && i < ARRAY_SIZE(units) - 1) {
		bytes >>= 10;
		i++;
	}
	seq_printf(m, "%llu%s", bytes, units[i]);
}

/* One line of alloc_tags: live bytes, live calls, the site. */
void alloc_tag_seq_print_site(struct seq_file *m, const struct alloc_tag *tag)
{
	struct alloc_tag_counters c = alloc_tag_read(tag);

	print_human(m, c.bytes);
	seq_printf(m, " %llu ", c.calls);
	codetag_seq_print(m, &tag->ct);
	seq_putc(m, '\n');
}

static int alloc_tags_show(struct seq_file *m, struct codetag *ct)
{
	alloc_tag_seq_print_site(m, container_of(ct, struct alloc_tag, ct));
	return 0;
}

static int alloc_tags_open(struct inode *inode, struct file *file)
{
	return codetag_seq_open(file, alloc_tag_cttype, NULL, alloc_tags_show);
}

static const struct file_operations alloc_tags_fops = {
	.open		= alloc_tags_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= codetag_seq_release,
};

/*
 * alloc_tags.summary: what the page allocator's sites hold (slab pages
 * included) against what everything else holds (slab objects, vmalloc
 * areas, per-CPU allocations, which themselves live in pages charged to
 * mm/ sites). The first is what to compare with the page allocator's own
 * count of pages in use, less the pages in use before tags could be kept
 * (early_page_bytes). What the slabs' vectors of tags take, which is
 * charged to no site, and how many could not be allocated (their slabs'
 * objects went uncharged); how many per-CPU allocations went uncharged
 * because their tag could not be recorded. Then the sites whose raw sums are below zero,
 * which alloc_tags and allocinfo show as 0: an underflow if a site stays
 * there.
 */
static int alloc_tags_summary_show(struct seq_file *m, void *v)
{
	u64 bytes[2] = { 0, 0 }, sites[2] = { 0, 0 }, negative = 0;
	unsigned long vector_bytes, vectors_failed;
	struct codetag_iterator iter;
	struct codetag *ct;

	codetag_lock_type(alloc_tag_cttype);
	codetag_iter_init(&iter, alloc_tag_cttype);
	while ((ct = codetag_next(&iter))) {
		struct alloc_tag *tag = container_of(ct, struct alloc_tag, ct);
		struct alloc_tag_counters c = alloc_tag_read_raw(tag);
		int pages = !!(READ_ONCE(ct->flags) & ALLOC_TAG_FLAG_PAGES);

		if ((s64)c.bytes < 0 || (s64)c.calls < 0) {
			negative++;
			continue;
		}
		if (!c.calls)
			continue;
		bytes[pages] += c.bytes;
		sites[pages]++;
	}

	seq_printf(m, "page_bytes %llu\npage_sites %llu\n", bytes[1], sites[1]);
	seq_printf(m, "object_bytes %llu\nobject_sites %llu\n", bytes[0], sites[0]);
	seq_printf(m, "negative_sites %llu\n", negative);
#ifdef CONFIG_PAGE_EXTENSION
	seq_printf(m, "early_page_bytes %llu\n",
		   (u64)pages_before_tags << PAGE_SHIFT);
#else
	seq_puts(m, "early_page_bytes 0\n");
#endif
	vector_bytes = slab_obj_exts_usage(&vectors_failed);
	seq_printf(m, "slab_vector_bytes %lu\nslab_vectors_failed %lu\n",
		   vector_bytes, vectors_failed);
	seq_printf(m, "percpu_tags_failed %lu\n", pcpu_alloc_tags_failures());

	codetag_iter_init(&iter, alloc_tag_cttype);
	while (negative && (ct = codetag_next(&iter))) {
		struct alloc_tag *tag = container_of(ct, struct alloc_tag, ct);
		struct alloc_tag_counters c = alloc_tag_read_raw(tag);

		if ((s64)c.bytes >= 0 && (s64)c.calls >= 0)
			continue;
		seq_printf(m, "negative %lld %lld ", (s64)c.bytes, (s64)c.calls);
		codetag_seq_print(m, ct);
		seq_putc(m, '\n');
	}
	codetag_unlock_type(alloc_tag_cttype);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(alloc_tags_summary);

/*
 * /proc/allocinfo is upstream Linux's format, tag text included (module
 * name in brackets, for modules only), so tools written for it work here.
 */
static int allocinfo_header(struct seq_file *m)
{
	seq_puts(m, "allocinfo - version: 1.0\n");
	seq_puts(m, "#     <size>  <calls> <tag info>\n");
	return 0;
}

static int allocinfo_show(struct seq_file *m, struct codetag *ct)
{
	struct alloc_tag *tag = container_of(ct, struct alloc_tag, ct);
	struct alloc_tag_counters c = alloc_tag_read(tag);

	seq_printf(m, "%12llu %8llu ", c.bytes, c.calls);
	if (alloc_tag_in_vmlinux(tag))
		seq_printf(m, "%s:%u func:%s\n", ct->filename, ct->lineno,
			   ct->function);
	else
		seq_printf(m, "%s:%u [%s] func:%s\n", ct->filename, ct->lineno,
			   ct->modname, ct->function);
	return 0;
}

static int allocinfo_open(struct inode *inode, struct file *file)
{
	return codetag_seq_open(file, alloc_tag_cttype, allocinfo_header,
				allocinfo_show);
}

static const struct proc_ops allocinfo_proc_ops = {
	.proc_open	= allocinfo_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= codetag_seq_release,
};

/* Number of sites show_mem() prints. */
#define SHOW_MEM_SITES	10

struct site_figures {
	struct alloc_tag *tag;
	struct alloc_tag_counters c;
};

/* Keep @top, of @n entries, sorted by bytes, largest first. */
static void keep_largest(struct site_figures *top, unsigned int n,
			 struct alloc_tag *tag, struct alloc_tag_counters c)
{
	unsigned int i;

	if (!c.bytes || c.bytes <= top[n - 1].c.bytes)
		return;
	for (i = n - 1; i > 0 && top[i - 1].c.bytes < c.bytes; i--)
		top[i] = top[i - 1];
	top[i].tag = tag;
	top[i].c = c;
}

/**
 * alloc_tag_show_mem() - print the call sites with the most live bytes
 *
 * Context: any. Called by show_mem(), so that an OOM report or sysrq-m
 * says where memory went; skipped, with a line saying so, while a module
 * load or unload holds the tags.
 */
void alloc_tag_show_mem(void)
{
	struct site_figures top[SHOW_MEM_SITES] = {};
	struct codetag_iterator iter;
	struct codetag *ct;
	unsigned int i;
	char text[160];
	struct seq_buf sb;

	if (!alloc_tag_cttype)
		return;
	if (!codetag_trylock_type(alloc_tag_cttype)) {
		pr_notice("largest allocation sites: not shown, a module is being loaded or unloaded\n");
		return;
	}
	codetag_iter_init(&iter, alloc_tag_cttype);
	while ((ct = codetag_next(&iter))) {
		struct alloc_tag *tag = container_of(ct, struct alloc_tag, ct);

		keep_largest(top, SHOW_MEM_SITES, tag, alloc_tag_read(tag));
	}
	pr_notice("largest allocation sites (bytes, calls):\n");
	for (i = 0; i < SHOW_MEM_SITES && top[i].tag; i++) {
		seq_buf_init(&sb, text, sizeof(text));
		codetag_to_text(&sb, &top[i].tag->ct);
		pr_notice("%12llu %8llu %.*s\n", top[i].c.bytes, top[i].c.calls,
			  (int)seq_buf_used(&sb), text);
	}
	codetag_unlock_type(alloc_tag_cttype);
}

/* ---- Debugging (MEM_ALLOC_PROFILING_DEBUG) ----------------------------- */

#ifdef CONFIG_MEM_ALLOC_PROFILING_DEBUG
/* Call sites already reported; beyond that many, reports stop. */
#define REPORTED_SITES	64
static unsigned long reported_sites[REPORTED_SITES];

/* True the first time @ip is seen: each site is reported once. */
static bool first_report(unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < REPORTED_SITES; i++) {
		unsigned long seen = READ_ONCE(reported_sites[i]);

		if (!seen) {
			seen = cmpxchg(&reported_sites[i], 0, ip);
			if (!seen)
				return true;
		}
		if (seen == ip)
			return false;
	}
	pr_warn_once("%d sites reported: no more reports\n", REPORTED_SITES);
	return false;
}

/**
 * alloc_tag_report_untagged() - warn of an allocation charged to no tag
 * @ip: where the allocator was called from
 *
 * Such an allocation comes from a ``_noprof()`` call made outside
 * alloc_hooks(): it is not counted anywhere. Reported once per site.
 *
 * Context: any.
 */
void alloc_tag_report_untagged(unsigned long ip)
{
	if (first_report(ip))
		pr_warn("allocation with no tag from %pS: a _noprof() call outside alloc_hooks()?\n",
			(void *)ip);
}
#endif /* CONFIG_MEM_ALLOC_PROFILING_DEBUG */

/* ---- Controls ---------------------------------------------------------- */

static int __init setup_mem_profiling(char *str)
{
	bool enable;

	if (!str)
		return -EINVAL;
	if (!strcmp(str, "never")) {
		mem_profiling_boot = BOOT_NEVER;
		return 0;
	}
	if (kstrtobool(str, &enable)) {
		pr_err("sysctl.vm.mem_profiling: bad value '%s': want 0, 1 or never\n",
		       str);
		return -EINVAL;
	}
	mem_profiling_boot = enable ? BOOT_ON : BOOT_OFF;
	return 0;
}
early_param("sysctl.vm.mem_profiling", setup_mem_profiling);

/*
 * Switch profiling on: tags live first, so that no charge is ever unseen
 * by a free, then the sites' switch.
 * Switched off, tags stay live (see mem_alloc_tags_live()).
 */
static void mem_profiling_on(void)
{
	static_branch_enable(&mem_alloc_tags_live_key);
	static_branch_enable(&mem_alloc_profiling_key);
	static_branch_inc(&alloc_sites_key);
}

static void mem_profiling_off(void)
{
	static_branch_disable(&mem_alloc_profiling_key);
	static_branch_dec(&alloc_sites_key);
}

/*
 * Number the built-in tags for the pages they charge, before the first
 * page is allocated. Numbers above them go to modules, and the top ones to
 * contexts (alloc_tags.ctx): a kernel with more tags than numbers charges
 * the pages of the ones left without, and says so.
 */
static void __init number_vmlinux_tags(void)
{
	struct alloc_tag *tag = alloc_tags_vmlinux();
	unsigned int ref;

	for (ref = 1; tag < alloc_tags_vmlinux_end(); ref++, tag++) {
		if (ref >= ALLOC_TAG_REF_LIMIT) {
			pr_warn("no page reference numbers left for %td tags: their page allocations are not charged\n",
				alloc_tags_vmlinux_end() - tag);
			return;
		}
		tag->ct.flags |= ref << ALLOC_TAG_REF_SHIFT;
	}
}

/**
 * alloc_tag_boot_init() - number the tags, apply sysctl.vm.mem_profiling=
 *
 * Context: mm_init(), before the page allocator hands out its first page:
 * static keys cannot be switched from early_param() on every arch, and
 * switching later would leave pages and objects charged early with no
 * free path looking for their tags.
 */
void __init alloc_tag_boot_init(void)
{
	bool on = mem_alloc_profiling_enabled();

	number_vmlinux_tags();
	if (mem_profiling_boot == BOOT_ON && !on) {
		mem_profiling_on();
	} else if ((mem_profiling_boot == BOOT_OFF ||
		    mem_profiling_boot == BOOT_NEVER) && on) {
		/* Nothing is charged yet: tags need not be live. */
		mem_profiling_off();
		static_branch_disable(&mem_alloc_tags_live_key);
	}
	/*
	 * The sysctl code later fails to apply the same parameter to the
	 * read-only sysctl, and says so: this says what that means.
	 */
	if (mem_profiling_boot == BOOT_NEVER)
		pr_notice("disabled for good (sysctl.vm.mem_profiling=never): nothing is charged, no tag storage is allocated, vm.mem_profiling is read-only\n");
}

static int mem_profiling_sysctl(struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	int on = mem_alloc_profiling_enabled();
	struct ctl_table tmp = {
		.data	= &on,
		.maxlen	= sizeof(on),
		.mode	= table->mode,
		.extra1	= SYSCTL_ZERO,
		.extra2	= SYSCTL_ONE,
	};
	int ret;

	ret = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	mutex_lock(&mem_profiling_mutex);
	if (on && !mem_alloc_profiling_enabled())
		mem_profiling_on();
	else if (!on && mem_alloc_profiling_enabled())
		mem_profiling_off();
	mutex_unlock(&mem_profiling_mutex);
	return 0;
}

static struct ctl_table alloc_tag_sysctls[] = {
	{
		.procname	= "mem_profiling",
		.mode		= 0644,
		.proc_handler	= mem_profiling_sysctl,
	},
	{ }
};

/* ---- Init -------------------------------------------------------------- */

CODETAG_DEFINE_BOUNDS(alloc_tags);

static const struct codetag_type_desc alloc_tag_desc = {
	CODETAG_TYPE_INIT(alloc_tags),
	.tag_size	= sizeof(struct alloc_tag),
	.module_load	= alloc_tag_module_load,
	.module_unload	= alloc_tag_module_unload,
};

static int __init alloc_tag_init(void)
{
	static_assert(sizeof(struct alloc_tag) % 8 == 0);

	alloc_tag_cttype = codetag_register_type(&alloc_tag_desc);
	if (IS_ERR(alloc_tag_cttype)) {
		pr_err("cannot register the tag type: %ld\n",
		       PTR_ERR(alloc_tag_cttype));
		return PTR_ERR(alloc_tag_cttype);
	}
	if (IS_ENABLED(CONFIG_MEM_ALLOC_PROFILING_PAGE_EXT))
		pr_info("page tags are kept in page_ext (MEM_ALLOC_PROFILING_PAGE_EXT), 8 bytes per page\n");
	else if (pgalloc_tag_in_page_ext)
		pr_info("page->flags has %d spare bits, %d needed: page tags are kept in page_ext, %zu bytes per page\n",
			(int)ALLOC_TAG_REF_ROOM, ALLOC_TAG_REF_WIDTH, sizeof(unsigned long));
	else if (!pgalloc_tag_in_flags)
		pr_warn("page->flags has %d spare bits, %d needed, and there is no page_ext (PAGE_EXTENSION): page allocations are not charged\n",
			(int)ALLOC_TAG_REF_ROOM, ALLOC_TAG_REF_WIDTH);

	proc_create("allocinfo", 0400, NULL, &allocinfo_proc_ops);
	debugfs_create_file("alloc_tags", 0400, NULL, NULL, &alloc_tags_fops);
	debugfs_create_file("alloc_tags.summary", 0400, NULL, NULL,
			    &alloc_tags_summary_fops);
	/* Booted with "never": the switch stays off. */
	if (mem_profiling_boot == BOOT_NEVER)
		alloc_tag_sysctls[0].mode = 0444;
	register_sysctl("vm", alloc_tag_sysctls);
	return 0;
}
subsys_initcall(alloc_tag_init);

// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation contexts (alloc_tags.ctx): for the allocation sites chosen
 * by the user, who made each live allocation, when, and from which stack.
 *
 * Enabling a site turns on its tag's static key (struct alloc_tag's
 * ctx_key), the one branch a site's alloc_hooks() adds for contexts. At
 * an enabled site, alloc_tag_ctx_begin() captures a context (task, time,
 * stack in the stack depot) before the allocation call and puts its
 * number in current->alloc_ctx. The first allocation the call charges to
 * the site takes the number (alloc_tag_ctx_take()) and keeps it;
 * alloc_tag_ctx_end() then links the context to the site, and freeing the
 * allocation brings the number back here. Sites that are not enabled run
 * none of this.
 *
 * A slab object keeps its number in a table keyed by its address, not in
 * its struct slabobj_ext: every object of a slab with a vector has an
 * entry, and a number there would make every entry larger for the few
 * objects that ever keep one. The table's buckets are indexed by a hash of
 * the address and chain the numbers through ctx_slab_next; a number's
 * object is in ctx_slab_obj. Until the first site is enabled, slab frees
 * pay one static branch for it (alloc_tag_ctx_slab_key); after that, a
 * look at the object's bucket.
 *
 * A number indexes ctx_table. An entry is free (0), a context, or - once
 * the site was disabled while the allocation lives - the site's tag with
 * bit 0 set, so that the free still discharges the site.
 *
 * Locking: ctx_lock (irqs off; taken in any context but NMI, where nothing
 * is captured) protects the table, the free numbers, the sites and their
 * lists of contexts. ctx_mutex serializes control commands. A capture
 * allocates with GFP_NOWAIT outside ctx_lock, its number already in
 * current->alloc_ctx, so that it does not capture itself.
 */

#define pr_fmt(fmt) "alloc_tag: " fmt

#include <linux/codetag/alloc_tag.h>
#include <linux/codetag/alloc_tag_ctx.h>
#include <linux/codetag/pgalloc_tag.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "alloc_tag_internal.h"

static_assert(sizeof_field(struct alloc_tag_ctx_info, comm) == TASK_COMM_LEN);
static_assert(ALLOC_TAG_CTX_IDS - 1 <= U16_MAX);

/* ---- State ------------------------------------------------------------- */

/**
 * struct ctx_site - an allocation site enabled in alloc_tags.ctx
 * @link: entry in ctx_sites
 * @tag: the site
 * @contexts: the contexts of its live allocations, oldest first
 * @not_captured: allocations made while the cap was reached, or when
 *	there was no memory for their context
 */
struct ctx_site {
	struct list_head link;
	struct alloc_tag *tag;
	struct list_head contexts;
	unsigned long not_captured;
};

/**
 * struct ctx_record - what alloc_tags.ctx reports of one allocation
 * @tag: its site
 * @size: bytes charged for it
 * @ts: local_clock() when the allocation call was made
 * @pid: the allocating task
 * @tgid: its thread group
 * @comm: its command name
 * @stack: the stack, in the stack depot; 0 if it could not be saved
 */
struct ctx_record {
	struct alloc_tag *tag;
	size_t size;
	u64 ts;
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	depot_stack_handle_t stack;
};

/**
 * struct alloc_tag_ctx - the context of one allocation
 * @link: entry in its site's @contexts once its call returned
 * @rec: what is reported of the allocation
 * @id: the index of its entry in ctx_table, its number - 1
 * @in_call: the allocation call has not returned yet: the number is in
 *	current->alloc_ctx, and only alloc_tag_ctx_end() may free it
 */
struct alloc_tag_ctx {
	struct list_head link;
	struct ctx_record rec;
	u16 id;
	bool in_call;
};

/* A table entry that holds a tag, not a context: the context is gone. */
#define CTX_TAG_ONLY	1UL

static DEFINE_SPINLOCK(ctx_lock);
static DEFINE_MUTEX(ctx_mutex);
static LIST_HEAD(ctx_sites);

/* Allocated when the first site is enabled, never freed. */
static unsigned long *ctx_table;
struct alloc_tag **alloc_tag_ctx_tags;
unsigned long *alloc_tag_ctx_bytes;
static u16 *ctx_free_ids;
static unsigned int ctx_nr_free;
static struct kmem_cache *ctx_cache;

/*
 * Slab objects that keep a number: buckets of number chains, next number
 * in the chain by index, the object by index. Numbers are stored + 1 in
 * the chains: 0 ends one.
 */
u16 *alloc_tag_ctx_slab_buckets;
static u16 *ctx_slab_next;
static const void **ctx_slab_obj;
DEFINE_STATIC_KEY_FALSE(alloc_tag_ctx_slab_key);

/* Contexts that exist, live or being captured, and how many may. */
static unsigned int ctx_count;
static unsigned int ctx_max = CONFIG_MEM_ALLOC_PROFILING_CONTEXT_MAX;

static unsigned int id_of_page_ref(unsigned int ref)
{
	return ref - ALLOC_TAG_CTX_FIRST_REF;
}

/* A context number is its table index + 1: 0 is "no context". */
static unsigned int id_of_nr(unsigned int nr)
{
	return nr - 1;
}

static struct alloc_tag_ctx *entry_ctx(unsigned long e)
{
	return e & CTX_TAG_ONLY ? NULL : (struct alloc_tag_ctx *)e;
}

static struct alloc_tag *entry_tag(unsigned long e)
{
	if (e & CTX_TAG_ONLY)
		return (struct alloc_tag *)(e & ~CTX_TAG_ONLY);
	return ((struct alloc_tag_ctx *)e)->rec.tag;
}

/* ctx_lock held. */
static struct ctx_site *find_site(const struct alloc_tag *tag)
{
	struct ctx_site *site;

	list_for_each_entry(site, &ctx_sites, link)
		if (site->tag == tag)
			return site;
	return NULL;
}

/* ctx_lock held. */
static void release_id(unsigned int id)
{
	ctx_table[id] = 0;
	WRITE_ONCE(alloc_tag_ctx_tags[id], NULL);
	ctx_free_ids[ctx_nr_free++] = id;
}

/* ctx_lock held: the cap and the numbers allow one more context. */
static bool room_for_one(void)
{
	return ctx_count < READ_ONCE(ctx_max) && ctx_nr_free;
}

/* ctx_lock held: an allocation keeps @ctx from now on. */
static void link_ctx(struct alloc_tag_ctx *ctx, struct ctx_site *site,
		     size_t size)
{
	ctx->rec.size = size;
	list_add_tail(&ctx->link, &site->contexts);
}

/*
 * ctx_lock held: the allocation that kept number @id is freed. Returns
 * the context to free once the lock is dropped, if any.
 */
static struct alloc_tag_ctx *unlink_ctx(unsigned int id)
{
	struct alloc_tag_ctx *ctx = entry_ctx(ctx_table[id]);

	if (!ctx) {
		release_id(id);
		return NULL;
	}
	if (ctx->in_call) {
		/* Freed before its call returned: the context is for no one. */
		WRITE_ONCE(alloc_tag_ctx_bytes[id], 0);
		return NULL;
	}
	list_del(&ctx->link);
	release_id(id);
	ctx_count--;
	return ctx;
}

/* ---- Capture: the allocation call ------------------------------------- */

/* The stack from the function that made the allocation call at @ip. */
static depot_stack_handle_t save_stack(unsigned long ip)
{
	unsigned long entries[ALLOC_TAG_CTX_STACK_DEPTH + 4];
	unsigned int nr, first;

	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	/* Our own frames: how many depends on inlining, so look for @ip. */
	for (first = 0; first < nr && entries[first] != ip; first++)
		;
	if (first == nr)
		first = 0;
	return stack_depot_save(entries + first,
				min_t(unsigned int, nr - first,
				      ALLOC_TAG_CTX_STACK_DEPTH),
				GFP_NOWAIT | __GFP_NOWARN);
}

/* ctx_lock held: count an allocation of @tag's site that is not captured. */
static void count_not_captured(struct alloc_tag *tag)
{
	struct ctx_site *site = find_site(tag);

	if (site)
		site->not_captured++;
}

/*
 * Reserve a number for a capture at @tag's site: its table entry stays
 * empty until the context is installed. Returns the index, or -1.
 */
static int reserve_id(struct alloc_tag *tag)
{
	unsigned long flags;
	int id = -1;

	spin_lock_irqsave(&ctx_lock, flags);
	if (find_site(tag) && room_for_one()) {
		id = ctx_free_ids[--ctx_nr_free];
		WRITE_ONCE(alloc_tag_ctx_tags[id], tag);
		WRITE_ONCE(alloc_tag_ctx_bytes[id], 0);
		ctx_count++;
	} else {
		count_not_captured(tag);
	}
	spin_unlock_irqrestore(&ctx_lock, flags);
	return id;
}

/**
 * alloc_tag_ctx_begin() - capture the context of an allocation call
 * @tag: the call's site, enabled in alloc_tags.ctx
 *
 * For alloc_hooks() only, which saved current->alloc_ctx before: it is
 * the new context's number on success, 0 otherwise. A capture does not
 * capture the allocations it makes itself: while it is being set up, its
 * number is in current->alloc_ctx and its table entry is empty.
 *
 * Exported to every module, whatever its license, as alloc_tag_ctx_end()
 * is: alloc_hooks() calls them in the module itself.
 *
 * Context: any but NMI, where it captures nothing; profiling on.
 */
void alloc_tag_ctx_begin(struct alloc_tag *tag)
{
	unsigned long ip = _RET_IP_;
	unsigned int nr = current->alloc_ctx;
	struct alloc_tag_ctx *ctx;
	unsigned long flags;
	int id;

	current->alloc_ctx = 0;
	if (in_nmi() || !mem_alloc_profiling_enabled())
		return;
	/* Pairs with prepare(): a table seen is a table set up. */
	if (!smp_load_acquire(&ctx_table))
		return;
	/* Called by the allocations of a capture being set up. */
	if (nr && !READ_ONCE(ctx_table[id_of_nr(nr)]))
		return;
	id = reserve_id(tag);
	if (id < 0)
		return;
	current->alloc_ctx = id + 1;

	ctx = kmem_cache_alloc(ctx_cache, GFP_NOWAIT | __GFP_NOWARN);
	if (ctx) {
		ctx->rec.tag = tag;
		ctx->rec.size = 0;
		ctx->rec.ts = local_clock();
		ctx->rec.pid = task_pid_nr(current);
		ctx->rec.tgid = task_tgid_nr(current);
		/* As printk's %s of it: a racing rename may show torn. */
		memcpy(ctx->rec.comm, current->comm, TASK_COMM_LEN);
		ctx->rec.comm[TASK_COMM_LEN - 1] = '\0';
		ctx->rec.stack = save_stack(ip);
		ctx->in_call = true;
		ctx->id = id;
	}

	spin_lock_irqsave(&ctx_lock, flags);
	if (ctx && find_site(tag)) {
		WRITE_ONCE(ctx_table[id], (unsigned long)ctx);
		spin_unlock_irqrestore(&ctx_lock, flags);
		return;
	}
	count_not_captured(tag);
	release_id(id);
	ctx_count--;
	spin_unlock_irqrestore(&ctx_lock, flags);
	current->alloc_ctx = 0;
	if (ctx)
		kmem_cache_free(ctx_cache, ctx);
}
EXPORT_SYMBOL(alloc_tag_ctx_begin);

/**
 * alloc_tag_ctx_end() - the allocation call of alloc_tag_ctx_begin() returned
 * @old: current->alloc_ctx before alloc_tag_ctx_begin(), given back
 *
 * The context goes to the allocation that took its number during the
 * call, if one did and is still live (alloc_tag_ctx_take()); otherwise it
 * is freed.
 *
 * Context: any.
 */
void alloc_tag_ctx_end(unsigned int old)
{
	unsigned int nr = current->alloc_ctx;
	struct alloc_tag_ctx *ctx, *unused = NULL;
	struct ctx_site *site;
	unsigned long flags;
	unsigned int id;
	size_t bytes;

	current->alloc_ctx = old;
	if (!nr)
		return;
	id = id_of_nr(nr);
	spin_lock_irqsave(&ctx_lock, flags);
	ctx = entry_ctx(ctx_table[id]);
	if (WARN_ON_ONCE(!ctx)) {
		spin_unlock_irqrestore(&ctx_lock, flags);
		return;
	}
	ctx->in_call = false;
	bytes = xchg(&alloc_tag_ctx_bytes[id], 0);
	site = find_site(ctx->rec.tag);
	if (bytes && site) {
		link_ctx(ctx, site, bytes);
	} else if (bytes) {
		/* Disabled meanwhile: the allocation keeps the number alone. */
		ctx_table[id] = (unsigned long)ctx->rec.tag | CTX_TAG_ONLY;
		ctx_count--;
		unused = ctx;
	} else {
		release_id(id);
		ctx_count--;
		unused = ctx;
	}
	spin_unlock_irqrestore(&ctx_lock, flags);
	if (unused)
		kmem_cache_free(ctx_cache, unused);
}
EXPORT_SYMBOL(alloc_tag_ctx_end);

/* ---- The allocators' slow paths ---------------------------------------- */

/**
 * alloc_tag_ctx_discharge() - discharge a freed allocation that kept a number
 * @nr: the number (alloc_tag_ctx_take())
 * @bytes: what the allocation was charged
 *
 * Discharges the site and drops the context, unless the call that made
 * the allocation has not returned yet: alloc_tag_ctx_end() then frees it.
 *
 * Context: any but NMI.
 */
void alloc_tag_ctx_discharge(unsigned int nr, size_t bytes)
{
	unsigned int id = id_of_nr(nr);
	struct alloc_tag_ctx *gone;
	struct alloc_tag *tag;
	unsigned long flags;

	spin_lock_irqsave(&ctx_lock, flags);
	if (WARN_ON_ONCE(!ctx_table[id])) {
		spin_unlock_irqrestore(&ctx_lock, flags);
		return;
	}
	tag = entry_tag(ctx_table[id]);
	gone = unlink_ctx(id);
	spin_unlock_irqrestore(&ctx_lock, flags);
	alloc_tag_sub(tag, bytes);
	if (gone)
		kmem_cache_free(ctx_cache, gone);
}

/**
 * alloc_tag_ctx_slab_keep() - a new slab object keeps a number
 * @nr: the number (alloc_tag_ctx_take())
 * @obj: the object
 *
 * Context: any but NMI, in the slab allocator's allocation hook.
 */
void alloc_tag_ctx_slab_keep(unsigned int nr, const void *obj)
{
	unsigned int id = id_of_nr(nr);
	u16 *bucket = alloc_tag_ctx_slab_bucket(obj);
	unsigned long flags;

	spin_lock_irqsave(&ctx_lock, flags);
	ctx_slab_obj[id] = obj;
	ctx_slab_next[id] = *bucket;
	/* Read without the lock by alloc_tag_ctx_slab_free(). */
	WRITE_ONCE(*bucket, nr);
	spin_unlock_irqrestore(&ctx_lock, flags);
}

/**
 * __alloc_tag_ctx_slab_free() - alloc_tag_ctx_slab_free()'s look in the table
 * @obj: the object freed, whose bucket is not empty
 * @bytes: what it was charged
 *
 * An object's entry is made before the object is handed out and removed
 * only here, so a free always finds the entry of the object it frees.
 *
 * Context: any but NMI.
 * Return: true if @obj kept a number and is now discharged.
 */
bool __alloc_tag_ctx_slab_free(const void *obj, size_t bytes)
{
	u16 *link = alloc_tag_ctx_slab_bucket(obj);
	unsigned long flags;
	unsigned int nr = 0;

	spin_lock_irqsave(&ctx_lock, flags);
	for (; *link; link = &ctx_slab_next[id_of_nr(*link)]) {
		if (ctx_slab_obj[id_of_nr(*link)] == obj) {
			nr = *link;
			WRITE_ONCE(*link, ctx_slab_next[id_of_nr(nr)]);
			ctx_slab_obj[id_of_nr(nr)] = NULL;
			break;
		}
	}
	spin_unlock_irqrestore(&ctx_lock, flags);
	if (nr)
		alloc_tag_ctx_discharge(nr, bytes);
	return nr;
}

/**
 * alloc_tag_ctx_page_discharge() - discharge a freed block that kept a number
 * @ref: the page reference number
 * @bytes: the block's size
 *
 * Context: any but NMI.
 */
void alloc_tag_ctx_page_discharge(unsigned int ref, size_t bytes)
{
	alloc_tag_ctx_discharge(id_of_page_ref(ref) + 1, bytes);
}

/*
 * The block that kept page reference number @ref is now its first page
 * alone: its context, if it still has one, says so. Returns the site's
 * tag and stores the site's own number in @plain.
 */
static struct alloc_tag *shrink_to_one_page(unsigned int ref,
					    unsigned int *plain)
{
	struct alloc_tag_ctx *ctx;
	struct alloc_tag *tag;
	unsigned long flags, e;

	spin_lock_irqsave(&ctx_lock, flags);
	e = ctx_table[id_of_page_ref(ref)];
	tag = e ? entry_tag(e) : NULL;
	ctx = e ? entry_ctx(e) : NULL;
	if (ctx && ctx->in_call && READ_ONCE(alloc_tag_ctx_bytes[id_of_page_ref(ref)]))
		WRITE_ONCE(alloc_tag_ctx_bytes[id_of_page_ref(ref)], PAGE_SIZE);
	else if (ctx)
		ctx->rec.size = PAGE_SIZE;
	*plain = tag ? alloc_tag_ref(READ_ONCE(tag->ct.flags)) : 0;
	spin_unlock_irqrestore(&ctx_lock, flags);
	return tag;
}

/**
 * alloc_tag_ctx_page_split() - pgalloc_tag_split() for a block that kept a number
 * @page: the block's first page
 * @order: its order
 * @ref: the page reference number it kept
 *
 * The first page keeps the context, now of one page; the others are
 * charged to the site, as for pgalloc_tag_split().
 *
 * Context: any but NMI.
 */
void alloc_tag_ctx_page_split(struct page *page, unsigned int order,
			      unsigned int ref)
{
	struct alloc_tag *tag;
	unsigned int plain, i;

	tag = shrink_to_one_page(ref, &plain);
	if (!tag || !plain)
		return;
	for (i = 1; i < (1U << order); i++)
		update_page_alloc_tag_ref(page + i, plain);
	this_cpu_add(tag->counters->calls, (1U << order) - 1);
}

/* ---- Sites ------------------------------------------------------------- */

/*
 * Stop capturing at @site, removed from ctx_sites: its contexts go, the
 * allocations that kept them keep the site's tag in their table entry.
 */
static void drop_site(struct ctx_site *site)
{
	struct alloc_tag_ctx *ctx, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&ctx_lock, flags);
	list_for_each_entry_safe(ctx, tmp, &site->contexts, link) {
		ctx_table[ctx->id] = (unsigned long)site->tag | CTX_TAG_ONLY;
		list_move(&ctx->link, &gone);
		ctx_count--;
	}
	spin_unlock_irqrestore(&ctx_lock, flags);
	list_for_each_entry_safe(ctx, tmp, &gone, link)
		kmem_cache_free(ctx_cache, ctx);
	kfree(site);
}

static void enable_site(struct alloc_tag *tag)
{
	struct ctx_site *site = kzalloc(sizeof(*site), GFP_KERNEL);
	unsigned long flags;
	bool known;

	spin_lock_irqsave(&ctx_lock, flags);
	known = find_site(tag);
	if (!known && site) {
		site->tag = tag;
		INIT_LIST_HEAD(&site->contexts);
		list_add_tail(&site->link, &ctx_sites);
	}
	spin_unlock_irqrestore(&ctx_lock, flags);
	if (known)
		kfree(site);
	else if (site)
		static_branch_enable(&tag->ctx_key);
	else
		pr_err("alloc_tags.ctx: no memory to enable %s:%u\n",
		       tag->ct.filename, tag->ct.lineno);
}

static void disable_site(struct alloc_tag *tag)
{
	struct ctx_site *site;
	unsigned long flags;

	spin_lock_irqsave(&ctx_lock, flags);
	site = find_site(tag);
	if (site)
		list_del(&site->link);
	spin_unlock_irqrestore(&ctx_lock, flags);
	if (site) {
		static_branch_disable(&tag->ctx_key);
		drop_site(site);
	}
}

/**
 * alloc_tag_ctx_module_unload() - a module with allocation tags is going
 * @sect: its tags
 *
 * Its sites stop capturing, with no command needed: their keys go with the
 * module. Allocations still live keep their site's tag, which alloc_tag
 * keeps until they are freed.
 */
void alloc_tag_ctx_module_unload(struct codetag_section *sect)
{
	struct ctx_site *site, *tmp;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&ctx_lock, flags);
	list_for_each_entry_safe(site, tmp, &ctx_sites, link)
		if ((void *)site->tag >= (void *)sect->start &&
		    (void *)site->tag < (void *)sect->stop)
			list_move(&site->link, &gone);
	spin_unlock_irqrestore(&ctx_lock, flags);
	list_for_each_entry_safe(site, tmp, &gone, link)
		drop_site(site);
}

/* ---- Control ----------------------------------------------------------- */

/* ctx_mutex held: what the first enabled site needs. */
static int prepare(void)
{
	unsigned long *table;
	unsigned int i;

	if (ctx_table)
		return 0;
	if (stack_depot_init())
		return -ENOMEM;
	if (!ctx_cache)
		ctx_cache = KMEM_CACHE(alloc_tag_ctx, 0);
	if (!ctx_free_ids)
		ctx_free_ids = kvmalloc_array(ALLOC_TAG_CTX_IDS,
					      sizeof(*ctx_free_ids), GFP_KERNEL);
	if (!alloc_tag_ctx_tags)
		alloc_tag_ctx_tags = kvcalloc(ALLOC_TAG_CTX_IDS,
					      sizeof(*alloc_tag_ctx_tags),
					      GFP_KERNEL);
	if (!alloc_tag_ctx_bytes)
		alloc_tag_ctx_bytes = kvcalloc(ALLOC_TAG_CTX_IDS,
					       sizeof(*alloc_tag_ctx_bytes),
					       GFP_KERNEL);
	if (!alloc_tag_ctx_slab_buckets)
		alloc_tag_ctx_slab_buckets =
			kvcalloc(1U << ALLOC_TAG_CTX_SLAB_HASH_BITS,
				 sizeof(*alloc_tag_ctx_slab_buckets), GFP_KERNEL);
	if (!ctx_slab_next)
		ctx_slab_next = kvcalloc(ALLOC_TAG_CTX_IDS,
					 sizeof(*ctx_slab_next), GFP_KERNEL);
	if (!ctx_slab_obj)
		ctx_slab_obj = kvcalloc(ALLOC_TAG_CTX_IDS,
					sizeof(*ctx_slab_obj), GFP_KERNEL);
	table = kvcalloc(ALLOC_TAG_CTX_IDS, sizeof(*table), GFP_KERNEL);
	if (!ctx_cache || !ctx_free_ids || !alloc_tag_ctx_tags ||
	    !alloc_tag_ctx_bytes || !alloc_tag_ctx_slab_buckets ||
	    !ctx_slab_next || !ctx_slab_obj || !table) {
		kvfree(table);
		return -ENOMEM;
	}
	/* Lowest numbers first: easier to read in a dump. */
	for (i = 0; i < ALLOC_TAG_CTX_IDS; i++)
		ctx_free_ids[i] = ALLOC_TAG_CTX_IDS - 1 - i;
	ctx_nr_free = ALLOC_TAG_CTX_IDS;
	/* The numbers and the cache before the table that says they exist. */
	smp_store_release(&ctx_table, table);
	/* Slab frees look in the buckets from now on, for good. */
	static_branch_enable(&alloc_tag_ctx_slab_key);
	return 0;
}

static int ctx_parse(void *data, char **words, int nr_words)
{
	bool *enable = data;

	if (!nr_words) {
		pr_err("alloc_tags.ctx: no action: enable or disable\n");
		return -EINVAL;
	}
	if (!strcmp(words[0], "enable")) {
		*enable = true;
	} else if (!strcmp(words[0], "disable")) {
		*enable = false;
	} else {
		pr_err("alloc_tags.ctx: unknown action '%s': enable or disable\n",
		       words[0]);
		return -EINVAL;
	}
	if (nr_words > 1) {
		pr_err("alloc_tags.ctx: '%s' after '%s': one action per command\n",
		       words[1], words[0]);
		return -EINVAL;
	}
	return 0;
}

static void ctx_apply(struct codetag *ct, const void *data)
{
	struct alloc_tag *tag = container_of(ct, struct alloc_tag, ct);

	if (*(const bool *)data)
		enable_site(tag);
	else
		disable_site(tag);
}

static const struct codetag_control_ops ctx_ops = {
	.action_size	= sizeof(bool),
	.parse		= ctx_parse,
	.apply		= ctx_apply,
};

/* Apply commands from @kbuf or @ubuf; ctx_mutex taken here. */
static ssize_t ctx_control(const char *kbuf, const char __user *ubuf,
			   size_t len)
{
	ssize_t ret;

	mutex_lock(&ctx_mutex);
	ret = prepare();
	if (!ret && ubuf)
		ret = codetag_control_write(alloc_tag_cttype, &ctx_ops, ubuf, len);
	else if (!ret)
		ret = codetag_control_string(alloc_tag_cttype, &ctx_ops, kbuf);
	mutex_unlock(&ctx_mutex);
	return ret;
}

/**
 * alloc_tag_ctx_control() - enable or disable sites from kernel code
 * @cmds: commands as written to /sys/kernel/debug/alloc_tags.ctx
 *
 * All commands are checked before any is applied; none is applied if one
 * is malformed or matches no site.
 *
 * Context: process context; may sleep.
 * Return: the number of sites matched; -EINVAL for a malformed command
 * (logged with the wrong word), -ENOENT if a command matches no site,
 * -ENOMEM, -ENODEV without allocation profiling.
 */
int alloc_tag_ctx_control(const char *cmds)
{
	if (IS_ERR_OR_NULL(alloc_tag_cttype))
		return -ENODEV;
	return ctx_control(cmds, NULL, 0);
}
EXPORT_SYMBOL_GPL(alloc_tag_ctx_control);

/**
 * alloc_tag_ctx_set_max() - change the cap on contexts
 * @max: contexts that may exist at once, 0 to ALLOC_TAG_CTX_IDS
 *
 * Lowering it below what exists frees nothing: new allocations are not
 * captured until enough of the captured ones are freed.
 *
 * Context: any.
 * Return: 0, or -EINVAL if @max is out of range.
 */
int alloc_tag_ctx_set_max(unsigned int max)
{
	if (max > ALLOC_TAG_CTX_IDS) {
		pr_err("alloc_tags.ctx_max: %u is above %u\n", max,
		       ALLOC_TAG_CTX_IDS);
		return -EINVAL;
	}
	WRITE_ONCE(ctx_max, max);
	return 0;
}
EXPORT_SYMBOL_GPL(alloc_tag_ctx_set_max);

/**
 * alloc_tag_ctx_get_max() - the cap on contexts
 *
 * Context: any.
 * Return: how many contexts may exist at once.
 */
unsigned int alloc_tag_ctx_get_max(void)
{
	return READ_ONCE(ctx_max);
}
EXPORT_SYMBOL_GPL(alloc_tag_ctx_get_max);

/**
 * alloc_tag_ctx_not_captured() - allocations an enabled site did not capture
 * @site: the site's identity
 *
 * Context: any but NMI.
 * Return: the allocations made at @site while the cap was reached or
 * without memory for their context, since it was enabled; 0 if the site
 * is not enabled.
 */
unsigned long alloc_tag_ctx_not_captured(const struct codetag *site)
{
	unsigned long flags, n = 0;
	struct ctx_site *s;

	spin_lock_irqsave(&ctx_lock, flags);
	list_for_each_entry(s, &ctx_sites, link)
		if (&s->tag->ct == site)
			n = s->not_captured;
	spin_unlock_irqrestore(&ctx_lock, flags);
	return n;
}
EXPORT_SYMBOL_GPL(alloc_tag_ctx_not_captured);

/* ---- Reports ----------------------------------------------------------- */

/*
 * The contexts of @only's site, or of every site if @only is NULL, with
 * the lock held as briefly as the copy takes. kvfree() the result.
 */
static struct ctx_record *copy_contexts(const struct alloc_tag *only,
					unsigned int *nr)
{
	struct ctx_record *copies = NULL;
	unsigned int n = 0, room;
	struct alloc_tag_ctx *ctx;
	struct ctx_site *site;
	unsigned long flags;

	room = READ_ONCE(ctx_count) + 16;
	for (;;) {
		copies = kvmalloc_array(room, sizeof(*copies), GFP_KERNEL);
		if (!copies)
			break;
		n = 0;
		spin_lock_irqsave(&ctx_lock, flags);
		list_for_each_entry(site, &ctx_sites, link) {
			if (only && site->tag != only)
				continue;
			list_for_each_entry(ctx, &site->contexts, link) {
				/* Only counted: more were captured meanwhile. */
				if (n < room)
					copies[n] = ctx->rec;
				n++;
			}
		}
		spin_unlock_irqrestore(&ctx_lock, flags);
		if (n <= room)
			break;
		kvfree(copies);
		room = n + 16;
	}
	*nr = copies ? n : 0;
	return copies;
}

/**
 * alloc_tag_ctx_for_each() - call @fn for every context of every enabled site
 * @fn: called once per context, without locks held
 * @arg: passed to @fn
 *
 * The contexts are copied first: @fn sees them as they were then.
 *
 * Context: process context; may sleep.
 * Return: the number of contexts, or -ENOMEM.
 */
int alloc_tag_ctx_for_each(void (*fn)(const struct alloc_tag_ctx_info *info,
				      void *arg), void *arg)
{
	struct alloc_tag_ctx_info *info;
	struct ctx_record *copies;
	unsigned int nr, i;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	copies = copy_contexts(NULL, &nr);
	if (!info || !copies) {
		kfree(info);
		kvfree(copies);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		unsigned long *entries = NULL;

		info->site = &copies[i].tag->ct;
		info->size = copies[i].size;
		info->ts = copies[i].ts;
		info->pid = copies[i].pid;
		info->tgid = copies[i].tgid;
		memcpy(info->comm, copies[i].comm, TASK_COMM_LEN);
		info->nr_entries = copies[i].stack ?
				   stack_depot_fetch(copies[i].stack, &entries) : 0;
		memcpy(info->entries, entries,
		       info->nr_entries * sizeof(*entries));
		fn(info, arg);
	}
	kfree(info);
	kvfree(copies);
	return nr;
}
EXPORT_SYMBOL_GPL(alloc_tag_ctx_for_each);

static void print_context(struct seq_file *m, const struct ctx_record *c)
{
	unsigned long *entries;
	unsigned int nr, i;

	seq_printf(m, "size: %zu\npid: %d\ntgid: %d\ncomm: %s\nts: %llu\ncall stack:\n",
		   c->size, c->pid, c->tgid, c->comm, c->ts);
	nr = c->stack ? stack_depot_fetch(c->stack, &entries) : 0;
	if (!nr)
		seq_puts(m, "  (not saved: no memory)\n");
	for (i = 0; i < nr; i++)
		seq_printf(m, "  %pS\n", (void *)entries[i]);
}

static int ctx_show(struct seq_file *m, struct codetag *ct)
{
	struct alloc_tag *tag = container_of(ct, struct alloc_tag, ct);
	unsigned long flags, not_captured;
	struct ctx_record *copies;
	struct ctx_site *site;
	unsigned int nr, i;

	spin_lock_irqsave(&ctx_lock, flags);
	site = find_site(tag);
	not_captured = site ? site->not_captured : 0;
	spin_unlock_irqrestore(&ctx_lock, flags);
	if (!site)
		return 0;

	copies = copy_contexts(tag, &nr);
	if (!copies)
		return -ENOMEM;
	alloc_tag_seq_print_site(m, tag);
	for (i = 0; i < nr; i++)
		print_context(m, &copies[i]);
	if (not_captured)
		seq_printf(m, "not captured: %lu\n", not_captured);
	seq_putc(m, '\n');
	kvfree(copies);
	return 0;
}

static int ctx_open(struct inode *inode, struct file *file)
{
	return codetag_seq_open(file, alloc_tag_cttype, NULL, ctx_show);
}

static ssize_t ctx_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	return ctx_control(NULL, ubuf, len);
}

static const struct file_operations ctx_fops = {
	.open		= ctx_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.write		= ctx_write,
	.release	= codetag_seq_release,
};

static int ctx_max_get(void *data, u64 *val)
{
	*val = alloc_tag_ctx_get_max();
	return 0;
}

static int ctx_max_set(void *data, u64 val)
{
	return alloc_tag_ctx_set_max(min_t(u64, val, UINT_MAX));
}

DEFINE_DEBUGFS_ATTRIBUTE(ctx_max_fops, ctx_max_get, ctx_max_set, "%llu\n");

static int __init alloc_tag_ctx_init(void)
{
	if (IS_ERR_OR_NULL(alloc_tag_cttype))
		return 0;
	debugfs_create_file("alloc_tags.ctx", 0600, NULL, NULL, &ctx_fops);
	debugfs_create_file_unsafe("alloc_tags.ctx_max", 0600, NULL, NULL,
				   &ctx_max_fops);
	return 0;
}
late_initcall(alloc_tag_ctx_init);

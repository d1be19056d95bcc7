// SPDX-License-Identifier: GPL-2.0
/*
 * Code tag registry.
 *
 * Tags are static structs that the compiler places in one ELF section per
 * tag type. This file finds them: in vmlinux between the markers each type
 * defines (CODETAG_DEFINE_BOUNDS()), in modules through the section headers
 * the module loader hands over before a module's code first runs. Applications
 * register a type, iterate its tags, and let users select tags with one
 * shared query language.
 *
 * Locking: codetag_mutex serialises registration and module load/unload and
 * protects both global lists. Each type's rw_semaphore protects its list of
 * ranges; iterators hold it for reading, writers take it under the mutex.
 */

#define pr_fmt(fmt) "codetag: " fmt

#include <linux/codetag/codetag.h>
#include <linux/codetag/module.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleloader.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rwsem.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

/* Largest control write accepted, as for dynamic_debug's control file. */
#define CODETAG_CONTROL_MAX	PAGE_SIZE

/* The most words one command may have, selectors included. */
#define CODETAG_MAX_WORDS	(CODETAG_MAX_ACTION_WORDS + 12)

/* ---- Sections ---------------------------------------------------------- */

/* Longest tag type name: the rest of a module section's name must fit. */
#define CODETAG_TYPE_NAME_MAX	32

/*
 * The type name of a module section "<type>.1.codetag", copied to @type;
 * false for any other section.
 */
static bool codetag_section_type(const char *secname, char *type)
{
	size_t len = strlen(secname);
	size_t suffix = strlen(".1.codetag");

	if (len <= suffix || len - suffix >= CODETAG_TYPE_NAME_MAX ||
	    strcmp(secname + len - suffix, ".1.codetag"))
		return false;
	memcpy(type, secname, len - suffix);
	type[len - suffix] = '\0';
	return true;
}

/* ---- State ------------------------------------------------------------- */

/**
 * struct codetag_module - a module with tags in at least one tag section
 * @link: entry in codetag_modules
 * @mod: the module; NULL once it has been unloaded
 * @name: copy of the module name, valid for as long as tags are kept
 * @nr_kept: number of types that kept their tags after unload
 * @core_mem: module memory the kept tags live in, freed with the last one
 * @data_mem: separate data allocation on architectures that have one
 * @nr_sections: number of its tag sections
 * @sections: its tag sections, each with the name of its type, including
 *	those of types not registered yet
 */
struct codetag_module {
	struct list_head link;
	struct module *mod;
	char name[MODULE_NAME_LEN];
	unsigned int nr_kept;
	void *core_mem;
	void *data_mem;
	unsigned int nr_sections;
	struct {
		char type[CODETAG_TYPE_NAME_MAX];
		struct codetag_section sect;
	} sections[];
};

/**
 * struct codetag_range - one section's tags as seen by one type
 * @link: entry in the type's ranges, in load order (vmlinux first)
 * @sect: the tags
 * @cmod: the module they belong to, NULL for vmlinux
 * @seq: grows along the list and is never reused, so an iterator that
 *	dropped the lock can find where it was even if ranges went away
 * @kept: the module is gone, the type asked to keep its tags
 */
struct codetag_range {
	struct list_head link;
	struct codetag_section *sect;
	struct codetag_module *cmod;
	u64 seq;
	bool kept;
};

/**
 * struct codetag_type - a registered tag type
 * @link: entry in codetag_types
 * @desc: what the application registered
 * @sem: protects @ranges for iterators
 * @ranges: its ranges, in load order
 * @next_seq: seq of the next range added
 * @gen: bumped whenever a range is removed; iterators holding a range
 *	pointer from an older generation must look it up again
 */
struct codetag_type {
	struct list_head link;
	struct codetag_type_desc desc;
	struct rw_semaphore sem;
	struct list_head ranges;
	u64 next_seq;
	unsigned long gen;
};

static DEFINE_MUTEX(codetag_mutex);
static LIST_HEAD(codetag_types);
static LIST_HEAD(codetag_modules);

/* ---- Helpers ----------------------------------------------------------- */

static size_t section_size(const struct codetag_section *sect)
{
	return (char *)sect->stop - (char *)sect->start;
}

static size_t range_count(const struct codetag_type *cttype,
			  const struct codetag_range *range)
{
	return section_size(range->sect) / cttype->desc.tag_size;
}

static struct codetag *range_tag(const struct codetag_type *cttype,
				 const struct codetag_range *range, size_t idx)
{
	return (void *)range->sect->start + idx * cttype->desc.tag_size;
}

static bool section_fits_type(const struct codetag_type_desc *desc,
			      const struct codetag_section *sect)
{
	if (section_size(sect) % desc->tag_size ||
	    !IS_ALIGNED((unsigned long)sect->start, 8)) {
		pr_err("%s: section %s (%zu bytes) is not an aligned array of %zu-byte tags\n",
		       sect->modname, desc->name, section_size(sect),
		       desc->tag_size);
		return false;
	}
	return true;
}

/* The module's tags of type @type, or NULL if it has none. */
static struct codetag_section *module_section(struct codetag_module *cmod,
					      const char *type)
{
	unsigned int i;

	for (i = 0; i < cmod->nr_sections; i++)
		if (!strcmp(cmod->sections[i].type, type))
			return &cmod->sections[i].sect;
	return NULL;
}

/* Caller holds codetag_mutex. */
static int type_add_range(struct codetag_type *cttype,
			  struct codetag_section *sect,
			  struct codetag_module *cmod)
{
	struct codetag_range *range;
	int err;

	range = kzalloc(sizeof(*range), GFP_KERNEL);
	if (!range)
		return -ENOMEM;
	range->sect = sect;
	range->cmod = cmod;

	if (cmod && cttype->desc.module_load) {
		err = cttype->desc.module_load(cttype, sect);
		if (err) {
			pr_err("%s: %s refused the module's tags: %d\n",
			       cmod->name, cttype->desc.name, err);
			kfree(range);
			return err;
		}
	}

	down_write(&cttype->sem);
	range->seq = cttype->next_seq++;
	list_add_tail(&range->link, &cttype->ranges);
	up_write(&cttype->sem);
	return 0;
}

/* Caller holds codetag_mutex. */
static void type_remove_range(struct codetag_type *cttype,
			      struct codetag_range *range)
{
	down_write(&cttype->sem);
	list_del(&range->link);
	cttype->gen++;
	up_write(&cttype->sem);
	kfree(range);
}

#ifdef CONFIG_MODULES
static void free_kept_module_memory(struct codetag_module *cmod)
{
	module_memfree(cmod->core_mem);
#ifdef CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC
	vfree(cmod->data_mem);
#endif
}
#else
static void free_kept_module_memory(struct codetag_module *cmod)
{
}
#endif

/* A type let go of an unloaded module's tags. Caller holds codetag_mutex. */
static void put_kept_module(struct codetag_module *cmod)
{
	if (--cmod->nr_kept)
		return;
	pr_info("%s: tags no longer in use, freeing the module's memory\n",
		cmod->name);
	list_del(&cmod->link);
	free_kept_module_memory(cmod);
	kfree(cmod);
}

/* ---- Registration ------------------------------------------------------ */

/**
 * codetag_register_type() - register a tag type
 * @desc: the type; copied
 *
 * Finds the type's tags in vmlinux and in every module loaded so far, and
 * from now on in every module that is loaded, calling @desc->module_load
 * for each module. Initialize @desc with CODETAG_TYPE_INIT().
 *
 * Context: process context; takes codetag_mutex.
 * Return: the type, or an ERR_PTR(): -EINVAL for a bad descriptor, -EBUSY
 * if a type of that name is registered, -ENOMEM, or a module_load error.
 */
struct codetag_type *codetag_register_type(const struct codetag_type_desc *desc)
{
	struct codetag_type *cttype, *other;
	struct codetag_range *range, *tmp;
	struct codetag_module *cmod;
	int err;

	if (!desc->name || !*desc->name ||
	    strlen(desc->name) >= CODETAG_TYPE_NAME_MAX) {
		pr_err("a tag type needs a name of 1 to %d characters\n",
		       CODETAG_TYPE_NAME_MAX - 1);
		return ERR_PTR(-EINVAL);
	}
	if (desc->tag_size < sizeof(struct codetag) || desc->tag_size % 8) {
		pr_err("%s: tag size %zu is not a multiple of 8 holding a struct codetag\n",
		       desc->name, desc->tag_size);
		return ERR_PTR(-EINVAL);
	}
	if (!section_fits_type(desc, &desc->vmlinux))
		return ERR_PTR(-EINVAL);

	cttype = kzalloc(sizeof(*cttype), GFP_KERNEL);
	if (!cttype)
		return ERR_PTR(-ENOMEM);
	cttype->desc = *desc;
	cttype->next_seq = 1;
	init_rwsem(&cttype->sem);
	INIT_LIST_HEAD(&cttype->ranges);

	mutex_lock(&codetag_mutex);
	list_for_each_entry(other, &codetag_types, link) {
		if (!strcmp(other->desc.name, desc->name)) {
			pr_err("%s: type already registered\n", desc->name);
			err = -EBUSY;
			goto out_unlock;
		}
	}

	err = type_add_range(cttype, &cttype->desc.vmlinux, NULL);
	if (err)
		goto out_unlock;

	list_for_each_entry(cmod, &codetag_modules, link) {
		struct codetag_section *sect = module_section(cmod, desc->name);

		/* Modules kept for another type stay out of this one. */
		if (!cmod->mod || !sect)
			continue;
		if (!section_fits_type(desc, sect))
			continue;
		err = type_add_range(cttype, sect, cmod);
		if (err)
			goto out_unwind;
	}

	list_add_tail(&cttype->link, &codetag_types);
	mutex_unlock(&codetag_mutex);
	return cttype;

out_unwind:
	list_for_each_entry_safe(range, tmp, &cttype->ranges, link) {
		if (range->cmod && desc->module_unload)
			desc->module_unload(cttype, range->sect);
		type_remove_range(cttype, range);
	}
out_unlock:
	mutex_unlock(&codetag_mutex);
	kfree(cttype);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(codetag_register_type);

/**
 * codetag_unregister_type() - unregister a tag type
 * @cttype: the type
 *
 * Drops every range, releasing the tags of unloaded modules the type kept.
 * The module_unload callback is not called. Remove the files that iterate
 * the type first: no iterator may be in use.
 *
 * Context: process context; takes codetag_mutex.
 */
void codetag_unregister_type(struct codetag_type *cttype)
{
	struct codetag_range *range, *tmp;

	mutex_lock(&codetag_mutex);
	list_del(&cttype->link);
	list_for_each_entry_safe(range, tmp, &cttype->ranges, link) {
		struct codetag_module *cmod = range->cmod;
		bool kept = range->kept;

		type_remove_range(cttype, range);
		if (kept)
			put_kept_module(cmod);
	}
	mutex_unlock(&codetag_mutex);
	kfree(cttype);
}
EXPORT_SYMBOL_GPL(codetag_unregister_type);

/**
 * codetag_type_name() - name of a tag type
 * @cttype: the type
 *
 * Return: the name it was registered with, which names its section and
 * the type in every listing.
 */
const char *codetag_type_name(const struct codetag_type *cttype)
{
	return cttype->desc.name;
}
EXPORT_SYMBOL_GPL(codetag_type_name);

/**
 * codetag_release_section() - let go of an unloaded module's tags
 * @cttype: the type that kept them
 * @sect: the section its module_unload callback was given
 *
 * The tags disappear from iteration. When no type keeps any of the
 * module's tags any more, its memory is freed: the caller must hold no
 * reference into it.
 *
 * Context: process context; takes codetag_mutex.
 */
void codetag_release_section(struct codetag_type *cttype,
			     struct codetag_section *sect)
{
	struct codetag_range *range;

	mutex_lock(&codetag_mutex);
	list_for_each_entry(range, &cttype->ranges, link) {
		if (range->sect == sect) {
			struct codetag_module *cmod = range->cmod;

			if (WARN_ON(!range->kept))
				break;
			type_remove_range(cttype, range);
			put_kept_module(cmod);
			break;
		}
	}
	mutex_unlock(&codetag_mutex);
}
EXPORT_SYMBOL_GPL(codetag_release_section);

/* ---- Module loader hooks ----------------------------------------------- */

#ifdef CONFIG_MODULES

static struct codetag_range *type_find_range(struct codetag_type *cttype,
					     struct codetag_module *cmod)
{
	struct codetag_range *range;

	list_for_each_entry(range, &cttype->ranges, link)
		if (range->cmod == cmod)
			return range;
	return NULL;
}

static void unregister_module_ranges(struct codetag_module *cmod)
{
	struct codetag_type *cttype;
	struct codetag_range *range;

	list_for_each_entry(cttype, &codetag_types, link) {
		range = type_find_range(cttype, cmod);
		if (!range)
			continue;
		if (cttype->desc.module_unload)
			cttype->desc.module_unload(cttype, range->sect);
		type_remove_range(cttype, range);
	}
}

/**
 * codetag_load_module() - register a module's tags
 * @mod: the module, not yet running any code
 * @sechdrs: its section headers, with final addresses
 * @shnum: number of section headers
 * @secstrings: section name string table
 *
 * Called by the module loader. Records every tag section of the module,
 * so that a type registered later finds them too, and hands them to the
 * types registered now.
 *
 * Return: 0, or an error that fails the module load: tags the registry
 * could not track could not be kept safe on unload.
 */
int codetag_load_module(struct module *mod, const struct elf_shdr *sechdrs,
			unsigned int shnum, const char *secstrings)
{
	char type[CODETAG_TYPE_NAME_MAX];
	struct codetag_module *cmod;
	struct codetag_type *cttype;
	unsigned int i, n = 0;
	int err = 0;

	for (i = 1; i < shnum; i++)
		if ((sechdrs[i].sh_flags & SHF_ALLOC) && sechdrs[i].sh_size &&
		    codetag_section_type(secstrings + sechdrs[i].sh_name, type))
			n++;
	if (!n)
		return 0;

	cmod = kzalloc(struct_size(cmod, sections, n), GFP_KERNEL);
	if (!cmod)
		return -ENOMEM;
	cmod->mod = mod;
	strscpy(cmod->name, mod->name, sizeof(cmod->name));
	for (i = 1; i < shnum; i++) {
		const struct elf_shdr *shdr = &sechdrs[i];
		struct codetag_section *sect;

		if (!(shdr->sh_flags & SHF_ALLOC) || !shdr->sh_size ||
		    !codetag_section_type(secstrings + shdr->sh_name, type))
			continue;
		strscpy(cmod->sections[cmod->nr_sections].type, type,
			CODETAG_TYPE_NAME_MAX);
		sect = &cmod->sections[cmod->nr_sections++].sect;
		sect->start = (struct codetag *)shdr->sh_addr;
		sect->stop = (void *)sect->start + shdr->sh_size;
		sect->modname = cmod->name;
	}

	mutex_lock(&codetag_mutex);
	list_for_each_entry(cttype, &codetag_types, link) {
		struct codetag_section *sect = module_section(cmod, cttype->desc.name);

		if (!sect)
			continue;
		if (!section_fits_type(&cttype->desc, sect))
			err = -ENOEXEC;
		else
			err = type_add_range(cttype, sect, cmod);
		if (err) {
			unregister_module_ranges(cmod);
			break;
		}
	}
	if (!err)
		list_add_tail(&cmod->link, &codetag_modules);
	mutex_unlock(&codetag_mutex);
	if (err)
		kfree(cmod);
	return err;
}

/**
 * codetag_unload_module() - unregister a module's tags
 * @mod: the module; its code no longer runs
 *
 * Called by the module loader before it frees the module's memory. Each
 * type may keep the module's tags; the registry then takes over the
 * module's memory and frees it when the last type releases them.
 *
 * Return: true if the loader may free the module's memory, false if the
 * registry has taken it over.
 */
bool codetag_unload_module(struct module *mod)
{
	struct codetag_module *cmod, *found = NULL;
	struct codetag_type *cttype;
	bool free_memory = true;

	mutex_lock(&codetag_mutex);
	list_for_each_entry(cmod, &codetag_modules, link) {
		if (cmod->mod == mod) {
			found = cmod;
			break;
		}
	}
	if (!found)
		goto out;
	cmod = found;

	list_for_each_entry(cttype, &codetag_types, link) {
		struct codetag_range *range = type_find_range(cttype, cmod);
		struct codetag *ct;
		size_t i;

		if (!range)
			continue;
		if (!cttype->desc.module_unload ||
		    !cttype->desc.module_unload(cttype, range->sect)) {
			type_remove_range(cttype, range);
			continue;
		}
		for (i = 0; i < range_count(cttype, range); i++) {
			ct = range_tag(cttype, range, i);
			WRITE_ONCE(ct->flags, ct->flags | CODETAG_FLAG_UNLOADED);
		}
		range->kept = true;
		cmod->nr_kept++;
	}

	cmod->mod = NULL;
	if (cmod->nr_kept) {
		cmod->core_mem = mod->core_layout.base;
#ifdef CONFIG_ARCH_WANTS_MODULES_DATA_IN_VMALLOC
		cmod->data_mem = mod->data_layout.base;
#endif
		pr_info("%s: unloaded, but %u tag type(s) still use its tags: keeping its memory\n",
			cmod->name, cmod->nr_kept);
		free_memory = false;
	} else {
		list_del(&cmod->link);
		kfree(cmod);
	}
out:
	mutex_unlock(&codetag_mutex);
	return free_memory;
}

#endif /* CONFIG_MODULES */

/* ---- Iteration --------------------------------------------------------- */

/**
 * codetag_lock_type() - hold off module load and unload for iteration
 * @cttype: the type
 *
 * Context: process context; may sleep. Readers do not exclude each other.
 */
void codetag_lock_type(struct codetag_type *cttype)
{
	down_read(&cttype->sem);
}
EXPORT_SYMBOL_GPL(codetag_lock_type);

/**
 * codetag_trylock_type() - codetag_lock_type() for callers that cannot sleep
 * @cttype: the type
 *
 * For reports from any context, such as show_mem() on OOM or from sysrq.
 *
 * Return: true if locked; false if a module load or unload holds the type.
 */
bool codetag_trylock_type(struct codetag_type *cttype)
{
	return down_read_trylock(&cttype->sem);
}
EXPORT_SYMBOL_GPL(codetag_trylock_type);

/**
 * codetag_unlock_type() - end a codetag_lock_type() section
 * @cttype: the type
 */
void codetag_unlock_type(struct codetag_type *cttype)
{
	up_read(&cttype->sem);
}
EXPORT_SYMBOL_GPL(codetag_unlock_type);

/**
 * codetag_iter_init() - position an iterator before the first tag
 * @iter: the iterator
 * @cttype: the type to iterate
 *
 * The lock need not be held.
 */
void codetag_iter_init(struct codetag_iterator *iter,
		       struct codetag_type *cttype)
{
	memset(iter, 0, sizeof(*iter));
	iter->cttype = cttype;
}
EXPORT_SYMBOL_GPL(codetag_iter_init);

/* Iterator positions: range_seq 0 is before the first tag, U64_MAX past the last. */
#define CODETAG_ITER_END	U64_MAX

/*
 * Find the iterator's range, or if it went away the first range after it.
 * *exact tells which.
 */
static struct codetag_range *iter_find_range(struct codetag_iterator *iter,
					     bool *exact)
{
	struct codetag_type *cttype = iter->cttype;
	struct codetag_range *range;

	if (iter->range && iter->gen == cttype->gen) {
		*exact = true;
		return iter->range;
	}
	list_for_each_entry(range, &cttype->ranges, link) {
		if (range->seq >= iter->range_seq) {
			*exact = range->seq == iter->range_seq;
			return range;
		}
	}
	*exact = false;
	return NULL;
}

/* Move to tag @idx of @range, skipping past empty ranges. */
static struct codetag *iter_settle(struct codetag_iterator *iter,
				   struct codetag_range *range, size_t idx)
{
	struct codetag_type *cttype = iter->cttype;

	while (range && idx >= range_count(cttype, range)) {
		range = list_is_last(&range->link, &cttype->ranges) ? NULL :
			list_next_entry(range, link);
		idx = 0;
	}
	if (!range) {
		iter->range = NULL;
		iter->range_seq = CODETAG_ITER_END;
		iter->ct = NULL;
		return NULL;
	}
	iter->range = range;
	iter->range_seq = range->seq;
	iter->gen = cttype->gen;
	iter->idx = idx;
	iter->ct = range_tag(cttype, range, idx);
	return iter->ct;
}

/**
 * codetag_next() - advance to the next tag
 * @iter: the iterator
 *
 * Order: vmlinux, then modules in load order; within a section, address
 * order. A module loaded during an iteration that has dropped the lock is
 * seen at the end; an unloaded one disappears without disturbing the
 * position in the others.
 *
 * Context: codetag_lock_type() held.
 * Return: the next tag, or NULL past the last one.
 */
struct codetag *codetag_next(struct codetag_iterator *iter)
{
	struct codetag_range *range;
	bool exact;

	lockdep_assert_held(&iter->cttype->sem);
	if (iter->range_seq == CODETAG_ITER_END)
		return NULL;
	range = iter_find_range(iter, &exact);
	if (iter->range_seq && exact)
		return iter_settle(iter, range, iter->idx + 1);
	return iter_settle(iter, range, 0);
}
EXPORT_SYMBOL_GPL(codetag_next);

/**
 * codetag_iter_current() - the tag an iterator is at, after relocking
 * @iter: the iterator
 *
 * Context: codetag_lock_type() held.
 * Return: the tag last returned by codetag_next(), or the one after it if
 * its module has gone meanwhile; NULL past the end. Before the first tag,
 * the first tag.
 */
struct codetag *codetag_iter_current(struct codetag_iterator *iter)
{
	struct codetag_range *range;
	bool exact;

	lockdep_assert_held(&iter->cttype->sem);
	if (iter->range_seq == CODETAG_ITER_END)
		return NULL;
	if (!iter->range_seq)
		return codetag_next(iter);
	range = iter_find_range(iter, &exact);
	return iter_settle(iter, range, exact ? iter->idx : 0);
}
EXPORT_SYMBOL_GPL(codetag_iter_current);

/* ---- seq_file helpers -------------------------------------------------- */

struct codetag_seq_priv {
	struct codetag_iterator iter;
	loff_t pos;		/* seq_file position of iter's tag */
	int (*header)(struct seq_file *m);
	int (*show)(struct seq_file *m, struct codetag *ct);
};

/*
 * seq_file restarts at the record it could not fit, at the next record
 * after a read() returns, and at 0 after lseek(); the iterator is kept in
 * the file so that all three resume in place rather than rescanning.
 */
static void *codetag_seq_start(struct seq_file *m, loff_t *pos)
{
	struct codetag_seq_priv *priv = m->private;
	loff_t first = priv->header ? 1 : 0;	/* position of the first tag */
	struct codetag *ct;

	codetag_lock_type(priv->iter.cttype);
	if (*pos < first)
		return SEQ_START_TOKEN;
	if (*pos == first || *pos < priv->pos || priv->pos < first) {
		codetag_iter_init(&priv->iter, priv->iter.cttype);
		priv->pos = first;
		ct = codetag_next(&priv->iter);
	} else {
		ct = codetag_iter_current(&priv->iter);
	}
	while (ct && priv->pos < *pos) {
		ct = codetag_next(&priv->iter);
		priv->pos++;
	}
	return ct;
}

static void *codetag_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct codetag_seq_priv *priv = m->private;

	priv->pos = ++*pos;
	if (v == SEQ_START_TOKEN) {
		/* The header is position 0; tags follow from 1. */
		codetag_iter_init(&priv->iter, priv->iter.cttype);
	}
	return codetag_next(&priv->iter);
}

static void codetag_seq_stop(struct seq_file *m, void *v)
{
	struct codetag_seq_priv *priv = m->private;

	codetag_unlock_type(priv->iter.cttype);
}

static int codetag_seq_show(struct seq_file *m, void *v)
{
	struct codetag_seq_priv *priv = m->private;

	if (v == SEQ_START_TOKEN)
		return priv->header(m);
	return priv->show(m, v);
}

static const struct seq_operations codetag_seq_ops = {
	.start	= codetag_seq_start,
	.next	= codetag_seq_next,
	.stop	= codetag_seq_stop,
	.show	= codetag_seq_show,
};

/**
 * codetag_seq_open() - open a seq_file listing every tag of a type
 * @file: the file being opened
 * @cttype: the type
 * @header: optional; prints lines that come before the tags
 * @show: prints one tag
 *
 * Readers may stop and resume anywhere; module load and unload in between
 * neither skip nor repeat the tags of other modules. A file opened for
 * writing only (a control file taking commands) gets no listing.
 *
 * Return: 0 or -ENOMEM.
 */
int codetag_seq_open(struct file *file, struct codetag_type *cttype,
		     int (*header)(struct seq_file *m),
		     int (*show)(struct seq_file *m, struct codetag *ct))
{
	struct codetag_seq_priv *priv;

	/* A control file opened only to write commands lists nothing. */
	if (!(file->f_mode & FMODE_READ))
		return 0;
	priv = __seq_open_private(file, &codetag_seq_ops, sizeof(*priv));
	if (!priv)
		return -ENOMEM;
	codetag_iter_init(&priv->iter, cttype);
	priv->header = header;
	priv->show = show;
	return 0;
}
EXPORT_SYMBOL_GPL(codetag_seq_open);

/**
 * codetag_seq_release() - release a file opened with codetag_seq_open()
 * @inode: its inode
 * @file: the file
 *
 * Return: 0.
 */
int codetag_seq_release(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_READ))
		return 0;
	return seq_release_private(inode, file);
}
EXPORT_SYMBOL_GPL(codetag_seq_release);

/* ---- Formatting -------------------------------------------------------- */

/* The shared text form; see Documentation/codetag/codetag.rst. */
#define CODETAG_FMT	"%s:%u module:%s func:%s%s"

static const char *unloaded_suffix(const struct codetag *ct)
{
	return READ_ONCE(ct->flags) & CODETAG_FLAG_UNLOADED ? " [unloaded]" : "";
}

/**
 * codetag_to_text() - print a tag in the shared text form
 * @out: where to print
 * @ct: the tag
 *
 * Prints ``file:line module:M func:F``, with `` [unloaded]`` for the kept
 * tags of an unloaded module: the same form in every application's files,
 * so one sort or grep works on all of them.
 */
void codetag_to_text(struct seq_buf *out, const struct codetag *ct)
{
	seq_buf_printf(out, CODETAG_FMT, ct->filename, ct->lineno,
		       ct->modname, ct->function, unloaded_suffix(ct));
}
EXPORT_SYMBOL_GPL(codetag_to_text);

/**
 * codetag_seq_print() - print a tag in the shared text form to a seq_file
 * @m: the seq_file
 * @ct: the tag
 *
 * The same text as codetag_to_text(), without a newline.
 */
void codetag_seq_print(struct seq_file *m, const struct codetag *ct)
{
	seq_printf(m, CODETAG_FMT, ct->filename, ct->lineno, ct->modname,
		   ct->function, unloaded_suffix(ct));
}
EXPORT_SYMBOL_GPL(codetag_seq_print);

/* ---- Query language ---------------------------------------------------- */

/* An upper bound on the commands in @buf: one more than its separators. */
static int max_commands(const char *buf)
{
	int n = 1;

	for (; *buf; buf++)
		n += *buf == ';' || *buf == '\n';
	return n;
}

/*
 * Split @buf in place into commands: ';' and newlines separate them, '#'
 * starts a comment to the end of the line, and quotes protect all three.
 * @cmds has room for max_commands(@buf) entries.
 * Return: the number of commands, NULL-terminated strings stored in @cmds.
 */
static int split_commands(char *buf, char **cmds)
{
	char quote = 0, *p;
	int n = 0;

	cmds[n++] = buf;
	for (p = buf; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			continue;
		}
		switch (*p) {
		case '"':
		case '\'':
			quote = *p;
			break;
		case '#':
			while (p[1] && p[1] != '\n')
				*p++ = ' ';
			*p = ' ';
			break;
		case ';':
		case '\n':
			*p = '\0';
			cmds[n++] = p + 1;
			break;
		}
	}
	if (quote) {
		pr_err("unterminated quote %c\n", quote);
		return -EINVAL;
	}
	return n;
}

/* Split one command into words; quotes group, and are removed. */
static int split_words(char *cmd, char **words, int max_words)
{
	int n = 0;

	for (;;) {
		char *w;

		cmd = skip_spaces(cmd);
		if (!*cmd)
			return n;
		if (n == max_words) {
			pr_err("too many words at '%s'\n", cmd);
			return -EINVAL;
		}
		if (*cmd == '"' || *cmd == '\'') {
			char quote = *cmd++;

			w = cmd;
			cmd = strchr(cmd, quote);	/* split_commands checked */
			*cmd++ = '\0';
			if (*cmd && !isspace(*cmd)) {
				pr_err("no space after quoted word '%s'\n", w);
				return -EINVAL;
			}
		} else {
			w = cmd;
			while (*cmd && !isspace(*cmd))
				cmd++;
			if (*cmd)
				*cmd++ = '\0';
		}
		words[n++] = w;
	}
}

/* Parse "N" or "A-B" into [*first, *last]. */
static int parse_range(const char *keyword, const char *arg,
		       unsigned int min, unsigned int *first,
		       unsigned int *last)
{
	char tmp[24], *dash;

	if (strscpy(tmp, arg, sizeof(tmp)) < 0)
		goto bad;
	dash = strchr(tmp, '-');
	if (dash)
		*dash = '\0';
	if (kstrtouint(tmp, 10, first))
		goto bad;
	if (!dash)
		*last = *first;
	else if (kstrtouint(dash + 1, 10, last))
		goto bad;
	if (*first < min || *first > *last)
		goto bad;
	return 0;
bad:
	pr_err("%s: bad value '%s': want N or A-B with %u <= A <= B\n",
	       keyword, arg, min);
	return -EINVAL;
}

static int parse_command(char *cmd, struct codetag_command *out)
{
	struct codetag_query *q = &out->query;
	char *words[CODETAG_MAX_WORDS];
	bool have_line = false, have_index = false;
	int nr, i = 0;

	nr = split_words(cmd, words, ARRAY_SIZE(words));
	if (nr <= 0)
		return nr;

	memset(out, 0, sizeof(*out));
	q->last_line = UINT_MAX;
	q->last_index = UINT_MAX;

	for (; i < nr; i += 2) {
		const char *kw = words[i], *arg;
		const char **glob = NULL;
		int err;

		if (!strcmp(kw, "file"))
			glob = &q->filename;
		else if (!strcmp(kw, "func"))
			glob = &q->function;
		else if (!strcmp(kw, "module"))
			glob = &q->module;
		else if (!strcmp(kw, "class"))
			glob = &q->class;
		else if (strcmp(kw, "line") && strcmp(kw, "index"))
			break;		/* the actions start here */

		if (i + 1 >= nr) {
			pr_err("'%s' needs an argument\n", kw);
			return -EINVAL;
		}
		arg = words[i + 1];
		if (glob) {
			if (*glob) {
				pr_err("'%s' given twice\n", kw);
				return -EINVAL;
			}
			*glob = arg;
			continue;
		}
		if (!strcmp(kw, "line")) {
			if (have_line) {
				pr_err("'line' given twice\n");
				return -EINVAL;
			}
			have_line = true;
			err = parse_range(kw, arg, 1, &q->first_line,
					  &q->last_line);
		} else {
			if (have_index) {
				pr_err("'index' given twice\n");
				return -EINVAL;
			}
			have_index = true;
			err = parse_range(kw, arg, 0, &q->first_index,
					  &q->last_index);
		}
		if (err)
			return err;
	}

	if (nr - i > CODETAG_MAX_ACTION_WORDS) {
		pr_err("too many action words at '%s'\n", words[i]);
		return -EINVAL;
	}
	out->nr_words = nr - i;
	memcpy(out->words, words + i, out->nr_words * sizeof(*words));
	return 1;
}

/**
 * codetag_parse_commands() - parse a control file write
 * @buf: the text, modified in place; the commands point into it
 * @cmds: where to store the commands
 * @max_cmds: size of @cmds
 *
 * Grammar: commands separated by ';' or newlines, each made of selectors
 * (``file F``, ``func F``, ``module M``, ``class C``, ``line N``,
 * ``line A-B``, ``index N``, ``index A-B``; globs ``*`` and ``?``) followed
 * by action words, which are left for the application to check; a
 * command without selectors selects every tag. ``#``
 * starts a comment; quotes group words. Blank commands are skipped.
 *
 * Return: the number of commands, or -EINVAL after a pr_err() naming the
 * offending word; -E2BIG if there are more than @max_cmds; -ENOMEM.
 */
int codetag_parse_commands(char *buf, struct codetag_command *cmds,
			   int max_cmds)
{
	int max_strs = max_commands(buf), nr_strs, i, n = 0, ret;
	struct codetag_command cmd;
	char **strs;

	strs = kmalloc_array(max_strs, sizeof(*strs), GFP_KERNEL);
	if (!strs)
		return -ENOMEM;
	nr_strs = split_commands(buf, strs);
	for (i = 0; i < nr_strs; i++) {
		ret = parse_command(strs[i], &cmd);
		if (ret > 0 && n == max_cmds) {
			pr_err("more than %d commands\n", max_cmds);
			ret = -E2BIG;
		}
		if (ret < 0) {
			n = ret;
			break;
		}
		if (ret)
			cmds[n++] = cmd;
	}
	if (nr_strs < 0) {
		n = nr_strs;
	} else if (!n) {
		pr_err("no command given\n");
		n = -EINVAL;
	}
	kfree(strs);
	return n;
}
EXPORT_SYMBOL_GPL(codetag_parse_commands);

/* "class X" matches X, and X:anything below it. */
static bool class_match(const char *pattern, const char *class)
{
	size_t len = strlen(pattern);

	return glob_match(pattern, class) ||
	       (!strncmp(pattern, class, len) && class[len] == ':');
}

/**
 * codetag_query_match() - does a tag match a query
 * @query: the selectors
 * @ct: the tag
 * @class: the tag's class, or NULL if its type has none
 * @index: the tag's position in iteration order
 *
 * Return: true if every selector given in @query matches.
 */
bool codetag_query_match(const struct codetag_query *query,
			 const struct codetag *ct, const char *class,
			 unsigned int index)
{
	if (query->filename && !glob_match(query->filename, ct->filename) &&
	    !glob_match(query->filename, kbasename(ct->filename)))
		return false;
	if (query->module && !glob_match(query->module, ct->modname))
		return false;
	if (query->function && !glob_match(query->function, ct->function))
		return false;
	if (ct->lineno < query->first_line || ct->lineno > query->last_line)
		return false;
	if (index < query->first_index || index > query->last_index)
		return false;
	if (query->class && !(class && class_match(query->class, class)))
		return false;
	return true;
}
EXPORT_SYMBOL_GPL(codetag_query_match);

/* What apply_query() does with each tag that matches. */
enum codetag_pass {
	CODETAG_PASS_COUNT,
	CODETAG_PASS_PREPARE,
	CODETAG_PASS_APPLY,
};

/*
 * Count the tags matching @query, or prepare or apply @action to each;
 * return how many matched, or the first error of ops->prepare().
 */
static ssize_t apply_query(struct codetag_type *cttype,
			   const struct codetag_query *query,
			   const struct codetag_control_ops *ops,
			   enum codetag_pass pass, const void *action)
{
	struct codetag_iterator iter;
	unsigned int index = 0;
	ssize_t matched = 0;
	struct codetag *ct;
	int err;

	codetag_iter_init(&iter, cttype);
	while ((ct = codetag_next(&iter))) {
		const char *class = cttype->desc.tag_class ?
				    cttype->desc.tag_class(ct) : NULL;

		if (!codetag_query_match(query, ct, class, index++))
			continue;
		if (pass == CODETAG_PASS_PREPARE) {
			err = ops->prepare(ct, action);
			if (err)
				return err;
		} else if (pass == CODETAG_PASS_APPLY) {
			ops->apply(ct, action);
		}
		matched++;
	}
	return matched;
}

/**
 * codetag_control_apply() - parse and apply control commands
 * @cttype: the type the commands select from
 * @ops: the application's action parser and applier
 * @buf: the commands, modified in place
 *
 * All commands are parsed and every action checked, and prepared where
 * the application asks for it, before anything is applied, and every
 * command must match a tag: either all commands take effect or none does.
 * Usable for boot parameters as well as files.
 *
 * Context: process context; takes the type's lock.
 * Return: the number of tag matches applied; -EINVAL for malformed input
 * (logged with the offending word), -ENOENT if a command matches no tag,
 * -E2BIG, -ENOMEM, or the error of @ops->prepare().
 */
ssize_t codetag_control_apply(struct codetag_type *cttype,
			      const struct codetag_control_ops *ops,
			      char *buf)
{
	int max_cmds = max_commands(buf), nr, i;
	struct codetag_command *cmds;
	ssize_t matched = 0;
	ssize_t ret = 0;
	char *actions;

	cmds = kcalloc(max_cmds, sizeof(*cmds), GFP_KERNEL);
	actions = kcalloc(max_cmds, ops->action_size, GFP_KERNEL);
	if (!cmds || !actions) {
		ret = -ENOMEM;
		goto out;
	}

	nr = codetag_parse_commands(buf, cmds, max_cmds);
	if (nr < 0) {
		ret = nr;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		if (cmds[i].query.class && !cttype->desc.tag_class) {
			pr_err("%s: tags have no class, 'class %s' cannot match\n",
			       cttype->desc.name, cmds[i].query.class);
			ret = -EINVAL;
			goto out;
		}
		ret = ops->parse(actions + i * ops->action_size,
				 cmds[i].words, cmds[i].nr_words);
		if (ret)
			goto out;
	}

	codetag_lock_type(cttype);
	for (i = 0; i < nr; i++) {
		if (!apply_query(cttype, &cmds[i].query, ops,
				 CODETAG_PASS_COUNT, NULL)) {
			pr_err("%s: command %d matches no tag\n",
			       cttype->desc.name, i + 1);
			ret = -ENOENT;
			break;
		}
	}
	for (i = 0; !ret && ops->prepare && i < nr; i++) {
		ssize_t err = apply_query(cttype, &cmds[i].query, ops,
					  CODETAG_PASS_PREPARE,
					  actions + i * ops->action_size);

		if (err < 0)
			ret = err;
	}
	for (i = 0; !ret && i < nr; i++)
		matched += apply_query(cttype, &cmds[i].query, ops,
				       CODETAG_PASS_APPLY,
				       actions + i * ops->action_size);
	codetag_unlock_type(cttype);
	if (!ret)
		ret = matched;
out:
	kfree(actions);
	kfree(cmds);
	return ret;
}
EXPORT_SYMBOL_GPL(codetag_control_apply);

/**
 * codetag_control_string() - apply control commands from kernel code
 * @cttype: the type
 * @ops: the application's action parser and applier
 * @cmds: the commands, as written to the control file
 *
 * For the applications' own *_control() functions: as
 * codetag_control_apply() on a copy of @cmds.
 *
 * Context: process context; may sleep.
 * Return: what codetag_control_apply() returns; -ENOMEM.
 */
ssize_t codetag_control_string(struct codetag_type *cttype,
			       const struct codetag_control_ops *ops,
			       const char *cmds)
{
	ssize_t ret;
	char *buf;

	buf = kstrdup(cmds, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = codetag_control_apply(cttype, ops, buf);
	kfree(buf);
	return ret;
}
EXPORT_SYMBOL_GPL(codetag_control_string);

/**
 * codetag_control_write() - the write() of an application's control file
 * @cttype: the type
 * @ops: the application's action parser and applier
 * @ubuf: user buffer
 * @len: its length, at most PAGE_SIZE
 *
 * See codetag_control_apply().
 *
 * Return: @len, or the error from codetag_control_apply(); -E2BIG for an
 * over-long write, -EFAULT.
 */
ssize_t codetag_control_write(struct codetag_type *cttype,
			      const struct codetag_control_ops *ops,
			      const char __user *ubuf, size_t len)
{
	ssize_t ret;
	char *buf;

	if (len > CODETAG_CONTROL_MAX) {
		pr_err("%s: command too long (%zu bytes, at most %lu)\n",
		       cttype->desc.name, len, CODETAG_CONTROL_MAX);
		return -E2BIG;
	}
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = codetag_control_apply(cttype, ops, buf);
	kfree(buf);
	return ret < 0 ? ret : len;
}
EXPORT_SYMBOL_GPL(codetag_control_write);

/* ---- debugfs ----------------------------------------------------------- */

/* One line per type: "name vmlinux:N mod:N mod[unloaded]:N". */
static int types_show(struct seq_file *m, void *v)
{
	struct codetag_type *cttype;
	struct codetag_range *range;

	mutex_lock(&codetag_mutex);
	list_for_each_entry(cttype, &codetag_types, link) {
		seq_puts(m, cttype->desc.name);
		down_read(&cttype->sem);
		list_for_each_entry(range, &cttype->ranges, link)
			seq_printf(m, " %s%s:%zu", range->sect->modname,
				   range->kept ? "[unloaded]" : "",
				   range_count(cttype, range));
		up_read(&cttype->sem);
		seq_putc(m, '\n');
	}
	mutex_unlock(&codetag_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(types);

static int __init codetag_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("codetag", NULL);

	debugfs_create_file("types", 0400, dir, NULL, &types_fops);
	return 0;
}
late_initcall(codetag_debugfs_init);

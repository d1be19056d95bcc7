/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code tagging: a static struct at each call site, collected by the linker
 * into one ELF section per tag type, found by a registry in vmlinux and in
 * every module. See Documentation/codetag/codetag.rst.
 */
#ifndef _LINUX_CODETAG_CODETAG_H
#define _LINUX_CODETAG_CODETAG_H

#include <linux/bits.h>
#include <linux/types.h>

struct module;
struct seq_buf;
struct seq_file;
struct file;
struct inode;

/**
 * struct codetag - the identity of one call site
 * @flags: bits 0-7 are the core's (CODETAG_FLAG_*), bits 8-31 the tag
 *	type's (CODETAG_TYPE_FLAG()); other state of an application lives in
 *	the struct that embeds this one
 * @lineno: source line of the site
 * @modname: KBUILD_MODNAME of the site: the module name, or for built-in
 *	code the base name of the object file (``slub`` for mm/slub.c)
 * @function: function containing the site
 * @filename: source file, relative to the top of the kernel tree
 *
 * Applications embed a &struct codetag in their own tag struct, place that
 * struct in their section with CODETAG_DEFINE() and get back to it from the
 * registry with container_of().
 */
struct codetag {
	unsigned int flags;
	unsigned int lineno;
	const char *modname;
	const char *function;
	const char *filename;
} __aligned(8);

/* The tag's module was unloaded; an application asked to keep its tags. */
#define CODETAG_FLAG_UNLOADED	BIT(0)

/* Bit @n (0-23) of @flags for the tag type's own use. */
#define CODETAG_TYPE_FLAG(n)	BIT(8 + (n))

/**
 * CODE_TAG_INIT - initializer naming the call site it is expanded at
 *
 * Must be expanded inside a function (it uses __func__).
 */
#define CODE_TAG_INIT {					\
	.flags		= 0,				\
	.lineno		= __LINE__,			\
	.modname	= KBUILD_MODNAME,		\
	.function	= __func__,			\
	.filename	= __FILE__,			\
}

/**
 * CODETAG_DEFINE - define a tag of type @tag_t in @section
 * @tag_t: the application's tag struct (embeds &struct codetag, is 8-byte
 *	aligned and a multiple of 8 bytes long)
 * @name: variable name
 * @section: section name, one listed in CODETAG_SECTIONS()
 *
 * Expand inside a function and follow with an initializer. The explicit
 * alignment stops the compiler from padding large objects to 32 bytes,
 * which would leave holes in the section array.
 */
#define CODETAG_DEFINE(tag_t, name, section)				\
	static tag_t name __used __aligned(8) __section(#section)

/*
 * CODETAG_DECLARE_SECTION - declare the vmlinux bounds of a tag section
 *
 * CODETAG_SECTIONS() in include/asm-generic/vmlinux.lds.h defines them.
 */
#define CODETAG_DECLARE_SECTION(name)					\
	extern struct codetag __start_##name[], __stop_##name[]

CODETAG_DECLARE_SECTION(codetag_test);
CODETAG_DECLARE_SECTION(alloc_tags);
CODETAG_DECLARE_SECTION(dynamic_faults);
CODETAG_DECLARE_SECTION(time_stats);
CODETAG_DECLARE_SECTION(error_codes);

/**
 * struct codetag_section - the tags of one type in vmlinux or in one module
 * @start: first tag
 * @stop: one past the last tag
 * @modname: "vmlinux" or the module's name
 */
struct codetag_section {
	struct codetag *start;
	struct codetag *stop;
	const char *modname;
};

struct codetag_type;

/**
 * struct codetag_type_desc - what an application registers
 * @section: section name, one listed in CODETAG_SECTIONS()
 * @tag_size: size of the application's tag struct
 * @tag_class: optional; the class of a tag, for the ``class`` selector
 * @module_load: optional; a module with tags of this type is being loaded,
 *	before any of its code runs. An error fails the module load.
 * @module_unload: optional; the module is being unloaded. Return true to
 *	keep its tags (and the module memory they live in) until the
 *	application calls codetag_release_section().
 *
 * The module callbacks run in process context under the registry's mutex:
 * they must not register types or load modules.
 */
struct codetag_type_desc {
	const char *section;
	size_t tag_size;
	const char *(*tag_class)(const struct codetag *ct);
	int (*module_load)(struct codetag_type *cttype,
			   struct codetag_section *sect);
	bool (*module_unload)(struct codetag_type *cttype,
			      struct codetag_section *sect);
};

/**
 * struct codetag_iterator - position in the tags of one type
 * @cttype: the type iterated
 * @range: the range of the current tag (private)
 * @range_seq: its sequence number: 0 before the first tag, U64_MAX past
 *	the last (private)
 * @gen: the type's generation when @range was looked up (private)
 * @idx: the current tag's index in @range (private)
 * @ct: the current tag
 *
 * Initialise with codetag_iter_init(). The iterator may be kept across
 * codetag_unlock_type() / codetag_lock_type(); codetag_iter_current() then
 * revalidates it against module loads and unloads that happened meanwhile.
 */
struct codetag_iterator {
	struct codetag_type *cttype;
	void *range;
	u64 range_seq;
	unsigned long gen;
	size_t idx;
	struct codetag *ct;
};

/**
 * struct codetag_query - the selector part of a control command
 * @filename: glob on the full path or the base name, or NULL
 * @module: glob on the module name, or NULL
 * @function: glob on the function name, or NULL
 * @class: class prefix or glob, or NULL
 * @first_line: first line matched
 * @last_line: last line matched
 * @first_index: first tag index (position in iteration order) matched
 * @last_index: last tag index matched
 */
struct codetag_query {
	const char *filename;
	const char *module;
	const char *function;
	const char *class;
	unsigned int first_line, last_line;
	unsigned int first_index, last_index;
};

#define CODETAG_MAX_ACTION_WORDS	16

/**
 * struct codetag_command - one parsed control command
 * @query: its selectors
 * @nr_words: number of action words
 * @words: the action words, in order, for the application to interpret
 */
struct codetag_command {
	struct codetag_query query;
	int nr_words;
	char *words[CODETAG_MAX_ACTION_WORDS];
};

/**
 * struct codetag_control_ops - an application's half of a control file
 * @action_size: size of the application's parsed action
 * @parse: turn @words into @action. On bad input return -EINVAL after a
 *	pr_err() naming the offending word. Must not change any state.
 * @prepare: optional: make ready what applying @action to one matching tag
 *	will need, memory for instance, without changing what the tag does.
 *	Called for every match of every command before anything is applied,
 *	with the type locked; may sleep. An error is the write's, and no
 *	command is applied.
 * @apply: apply @action to one matching tag. Cannot fail.
 */
struct codetag_control_ops {
	size_t action_size;
	int (*parse)(void *action, char **words, int nr_words);
	int (*prepare)(struct codetag *ct, const void *action);
	void (*apply)(struct codetag *ct, const void *action);
};

#ifdef CONFIG_CODETAG

struct codetag_type *codetag_register_type(const struct codetag_type_desc *desc);
void codetag_unregister_type(struct codetag_type *cttype);
const char *codetag_type_name(const struct codetag_type *cttype);
void codetag_release_section(struct codetag_type *cttype,
			     struct codetag_section *sect);

void codetag_lock_type(struct codetag_type *cttype);
bool codetag_trylock_type(struct codetag_type *cttype);
void codetag_unlock_type(struct codetag_type *cttype);
void codetag_iter_init(struct codetag_iterator *iter,
		       struct codetag_type *cttype);
struct codetag *codetag_next(struct codetag_iterator *iter);
struct codetag *codetag_iter_current(struct codetag_iterator *iter);

void codetag_to_text(struct seq_buf *out, const struct codetag *ct);
void codetag_seq_print(struct seq_file *m, const struct codetag *ct);

int codetag_parse_commands(char *buf, struct codetag_command *cmds,
			   int max_cmds);
bool codetag_query_match(const struct codetag_query *query,
			 const struct codetag *ct, const char *class,
			 unsigned int index);
ssize_t codetag_control_write(struct codetag_type *cttype,
			      const struct codetag_control_ops *ops,
			      const char __user *ubuf, size_t len);
ssize_t codetag_control_string(struct codetag_type *cttype,
			       const struct codetag_control_ops *ops,
			       const char *cmds);
ssize_t codetag_control_apply(struct codetag_type *cttype,
			      const struct codetag_control_ops *ops,
			      char *buf);

int codetag_seq_open(struct file *file, struct codetag_type *cttype,
		     int (*header)(struct seq_file *m),
		     int (*show)(struct seq_file *m, struct codetag *ct));
int codetag_seq_release(struct inode *inode, struct file *file);

#endif /* CONFIG_CODETAG */

#endif /* _LINUX_CODETAG_CODETAG_H */

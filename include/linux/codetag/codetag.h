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
 * CODETAG_INIT - initializer naming the call site it is expanded at
 *
 * Must be expanded inside a function (it uses __func__).
 */
#define CODETAG_INIT {					\
	.flags		= 0,				\
	.lineno		= __LINE__,			\
	.modname	= KBUILD_MODNAME,		\
	.function	= __func__,			\
	.filename	= __FILE__,			\
}

/*
 * The input section of the tags of type @type ("<type>.1.codetag"). In
 * vmlinux, CODETAG_SECTIONS() in <asm-generic/vmlinux.lds.h> sorts every
 * "*.codetag" section by name, so the type's two zero-sized markers in
 * "<type>.0.codetag" and "<type>.2.codetag" (CODETAG_DEFINE_BOUNDS())
 * bracket its tags. In a module, the loader hands this section over.
 */
#define CODETAG_SECTION_NAME(type)	#type ".1.codetag"

/**
 * CODETAG_DEFINE - define a tag of type @tag_t at this line
 * @tag_t: the application's tag struct (embeds &struct codetag as ``ct``,
 *	is 8-byte aligned and a multiple of 8 bytes long)
 * @name: variable name
 * @type: the tag type's name, a C identifier (``alloc_tags``)
 * @...: initializers of the application's own fields, if any
 *
 * Expand inside a function: the tag's &struct codetag names the line and
 * the function it is expanded in. The explicit alignment stops the
 * compiler from padding large objects to 32 bytes, which would leave holes
 * in the section array.
 */
#define CODETAG_DEFINE(tag_t, name, type, ...)				\
	static tag_t name __used __aligned(8)				\
		__section(CODETAG_SECTION_NAME(type)) = {		\
		.ct = CODETAG_INIT, __VA_ARGS__				\
	}

/**
 * CODETAG_DECLARE_BOUNDS - declare where the tags of @type are in vmlinux
 * @type: the tag type's name
 *
 * For code that indexes the tags of a type in vmlinux. The tags are the
 * &struct codetag array between ``__codetag_start_<type>`` and
 * ``__codetag_stop_<type>``, of the type's tag size.
 */
#define CODETAG_DECLARE_BOUNDS(type)					\
	extern struct codetag __codetag_start_##type[];			\
	extern struct codetag __codetag_stop_##type[]

/**
 * CODETAG_DEFINE_BOUNDS - mark where the tags of @type are in vmlinux
 * @type: the tag type's name
 *
 * Expand once, at file scope, in the code that registers the type, and
 * initialize its &struct codetag_type_desc with CODETAG_TYPE_INIT(@type).
 * Code built as a module has no tags in vmlinux: there the markers are not
 * defined and the type's range in vmlinux is empty.
 */
#ifdef MODULE
#define CODETAG_DEFINE_BOUNDS(type)	CODETAG_DECLARE_BOUNDS(type)
#define CODETAG_VMLINUX_TAGS(type)	{ .modname = "vmlinux" }
#else
#define CODETAG_DEFINE_BOUNDS(type)					\
	CODETAG_DECLARE_BOUNDS(type);					\
	struct codetag __codetag_start_##type[0] __used __aligned(8)	\
		__section(#type ".0.codetag");				\
	struct codetag __codetag_stop_##type[0] __used __aligned(8)	\
		__section(#type ".2.codetag")
#define CODETAG_VMLINUX_TAGS(type)					\
	{ __codetag_start_##type, __codetag_stop_##type, "vmlinux" }
#endif

/**
 * CODETAG_TYPE_INIT - the name and vmlinux tags of a type's description
 * @type: the tag type's name, as given to CODETAG_DEFINE()
 *
 * For the initializer of a &struct codetag_type_desc, in the file that
 * expands CODETAG_DEFINE_BOUNDS(@type).
 */
#define CODETAG_TYPE_INIT(type)						\
	.name = #type, .vmlinux = CODETAG_VMLINUX_TAGS(type)

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
 * @name: the type's name, as given to CODETAG_DEFINE(): it names the
 *	type's section and the type in every listing
 * @tag_size: size of the application's tag struct
 * @vmlinux: the type's tags in vmlinux
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
	const char *name;
	size_t tag_size;
	struct codetag_section vmlinux;
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

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What alloc_tag.c shares with alloc_tag_ctx.c, and nothing else.
 */
#ifndef _LIB_CODETAG_ALLOC_TAG_INTERNAL_H
#define _LIB_CODETAG_ALLOC_TAG_INTERNAL_H

struct alloc_tag;
struct codetag_section;
struct codetag_type;
struct seq_file;

extern struct codetag_type *alloc_tag_cttype;

void alloc_tag_seq_print_site(struct seq_file *m, const struct alloc_tag *tag);

#ifdef CONFIG_MEM_ALLOC_PROFILING_CONTEXT
void alloc_tag_ctx_module_unload(struct codetag_section *sect);
#else
static inline void alloc_tag_ctx_module_unload(struct codetag_section *sect) {}
#endif

#endif /* _LIB_CODETAG_ALLOC_TAG_INTERNAL_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module loader's side of the code tag registry: kept apart from
 * codetag.h so that tag users do not pull in the ELF headers.
 */
#ifndef _LINUX_CODETAG_MODULE_H
#define _LINUX_CODETAG_MODULE_H

#include <linux/elf.h>
#include <linux/types.h>

struct module;

#if defined(CONFIG_CODETAG) && defined(CONFIG_MODULES)

int codetag_load_module(struct module *mod, const struct elf_shdr *sechdrs,
			unsigned int shnum, const char *secstrings);
bool codetag_unload_module(struct module *mod);

#else

static inline int codetag_load_module(struct module *mod,
				      const struct elf_shdr *sechdrs,
				      unsigned int shnum,
				      const char *secstrings)
{
	return 0;
}

static inline bool codetag_unload_module(struct module *mod)
{
	return true;
}

#endif

#endif /* _LINUX_CODETAG_MODULE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF sections that hold code tags, one per tag type.
 *
 * The vmlinux linker script includes this header, so it holds nothing but
 * macros. A new tag type adds its section here and declares the section's
 * bounds next to its tag struct with CODETAG_DECLARE_SECTION(); the linker
 * script then places the section in .data between __start_<name> and
 * __stop_<name>, and the module loader hands the section of that name in
 * every module to the registry.
 */
#ifndef _LINUX_CODETAG_SECTIONS_H
#define _LINUX_CODETAG_SECTIONS_H

/* X(name): one entry per tag section; name is also the symbol stem. */
#define CODETAG_SECTION_LIST(X)		\
	X(codetag_test)

#endif /* _LINUX_CODETAG_SECTIONS_H */

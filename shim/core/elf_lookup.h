/* SPDX-License-Identifier: Apache-2.0 */
/* elf_lookup.h - a symbol of one loaded object, found in its own dynamic
 * symbol table without calling the loader (elf_lookup.c): for a fork
 * child, where the loader's locks may be held by a thread that no longer
 * exists (resolve.c). */
#ifndef FC_ELF_LOOKUP_H
#define FC_ELF_LOOKUP_H

#include <link.h>

/* The address of the defined, default-version function or object name in
 * the object of map (an IFUNC's resolver is called), or NULL. Reads only
 * the object's own tables; takes no lock, allocates nothing. */
void *fc_elf_lookup(const struct link_map *map, const char *name);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* dlsym_real.c - find the real dlsym and dlvsym by reading ELF dynamic
 * symbol tables (dlsym_real.h says why and when).
 *
 * The loader's list of objects starts at _r_debug.r_map; ours is the one
 * mapped where our own ELF header is (not the one whose l_ld is our
 * _DYNAMIC: patchelf, growing a RUNPATH as tests/gpu/prepare.sh does, moves
 * .dynamic, and then the two differ). Objects after ours are searched first
 * (the next definition, as RTLD_NEXT would find it), then the ones before;
 * a definition inside our own mapping is never taken. Each object's own
 * table is read by elf_lookup.c. Nothing here calls libc. */
#include "dlsym_real.h"

#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_lookup.h"

fc_dlsym_fn fc_dlsym_real_p;
fc_dlvsym_fn fc_dlvsym_real_p;

/* Our ELF header: the start of our mapping, our link_map's l_addr (a
 * shared object's first segment is at address 0). */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

/* The end of our mapping: the highest end of our PT_LOAD segments. */
FC_NO_SANITIZE static uintptr_t our_end(uintptr_t base)
{
    const ElfW(Ehdr) *eh = &__ehdr_start;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
    uintptr_t end = base;
    for (unsigned i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && base + ph[i].p_vaddr + ph[i].p_memsz > end)
            end = base + ph[i].p_vaddr + ph[i].p_memsz;
    return end;
}

/* The definition of name in the first object after ours that has one, else
 * in the first before ours. */
FC_NO_SANITIZE static void *next_definition(const char *name)
{
    uintptr_t base = (uintptr_t)&__ehdr_start, end = our_end(base);
    void *before = NULL;
    int after_ours = 0;
    for (const struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next) {
        if (l->l_addr == base) {
            after_ours = 1;
            continue;
        }
        if (!after_ours && before != NULL)
            continue;
        void *p = fc_elf_lookup(l, name);
        if (p != NULL && (uintptr_t)p >= base && (uintptr_t)p < end)
            p = NULL;
        if (p != NULL && after_ours)
            return p;
        if (p != NULL)
            before = p;
    }
    return before;
}

FC_NO_SANITIZE void fc_dlsym_real_find(void)
{
    void *s = next_definition("dlsym"), *v = next_definition("dlvsym");
    if (s != NULL)
        __atomic_store_n(&fc_dlsym_real_p, (fc_dlsym_fn)s, __ATOMIC_RELEASE);
    if (v != NULL)
        __atomic_store_n(&fc_dlvsym_real_p, (fc_dlvsym_fn)v, __ATOMIC_RELEASE);
}

FC_NO_SANITIZE void *fc_dlsym(void *handle, const char *name)
{
    fc_dlsym_fn fn = fc_dlsym_real();
    return fn != NULL ? fn(handle, name) : NULL;
}

FC_NO_SANITIZE void *fc_dlvsym(void *handle, const char *name, const char *version)
{
    fc_dlvsym_fn fn = fc_dlvsym_real();
    return fn != NULL ? fn(handle, name, version) : NULL;
}

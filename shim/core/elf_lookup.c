/* SPDX-License-Identifier: Apache-2.0 */
/* elf_lookup.c - look a name up in one loaded object's dynamic symbol
 * table (DT_GNU_HASH, else DT_HASH), the way the loader does, with no call
 * into the loader. Hidden (non-default) symbol versions are skipped, as
 * dlsym skips them. Nothing here calls libc or is instrumented by a
 * sanitizer: dlsym_real.c runs it inside a sanitizer runtime's start-up,
 * when the runtime's own string functions may not work yet. */
#include "elf_lookup.h"

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"

typedef struct tables {
    ElfW(Addr) base;
    const ElfW(Sym) *sym;
    const char *str;
    const uint32_t *gnu_hash, *sysv_hash;
    const ElfW(Half) *versym;
} tables;

/* glibc relocates these entries of the dynamic section in place on most
 * targets; where it does not, they are offsets from the load address. */
FC_NO_SANITIZE static const void *dyn_ptr(ElfW(Addr) base, ElfW(Addr) p)
{
    return (const void *)(p < base ? p + base : p);
}

FC_NO_SANITIZE static int read_tables(const struct link_map *map, tables *t)
{
    /* field by field: no memset call (see the top) */
    t->base = map->l_addr;
    t->sym = NULL;
    t->str = NULL;
    t->gnu_hash = t->sysv_hash = NULL;
    t->versym = NULL;
    if (map->l_ld == NULL)
        return -1;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: t->sym = dyn_ptr(t->base, d->d_un.d_ptr); break;
        case DT_STRTAB: t->str = dyn_ptr(t->base, d->d_un.d_ptr); break;
        case DT_GNU_HASH: t->gnu_hash = dyn_ptr(t->base, d->d_un.d_ptr); break;
        case DT_HASH: t->sysv_hash = dyn_ptr(t->base, d->d_un.d_ptr); break;
        case DT_VERSYM: t->versym = dyn_ptr(t->base, d->d_un.d_ptr); break;
        default: break;
        }
    }
    return t->sym && t->str && (t->gnu_hash || t->sysv_hash) ? 0 : -1;
}

FC_NO_SANITIZE static int same_name(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

FC_NO_SANITIZE static void *accept(const tables *t, uint32_t i, const char *name)
{
    const ElfW(Sym) *s = &t->sym[i];
    int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    if (s->st_shndx == SHN_UNDEF || s->st_value == 0 ||
        (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
        (type != STT_FUNC && type != STT_OBJECT && type != STT_GNU_IFUNC) ||
        (t->versym != NULL && (t->versym[i] & 0x8000)) || !same_name(t->str + s->st_name, name))
        return NULL;
    void *p = (void *)(t->base + s->st_value);
    if (type == STT_GNU_IFUNC)
        p = ((void *(*)(void))p)();
    return p;
}

FC_NO_SANITIZE static void *gnu_lookup(const tables *t, const char *name)
{
    const uint32_t *h = t->gnu_hash;
    uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2], shift = h[3];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(h + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    if (nbuckets == 0 || bloom_size == 0)
        return NULL;
    uint32_t hash = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        hash = hash * 33 + *c;
    const unsigned bits = sizeof(ElfW(Addr)) * 8;
    ElfW(Addr) word = bloom[(hash / bits) % bloom_size];
    ElfW(Addr) mask = ((ElfW(Addr))1 << (hash % bits)) | ((ElfW(Addr))1 << ((hash >> shift) % bits));
    if ((word & mask) != mask)
        return NULL;
    uint32_t i = buckets[hash % nbuckets];
    if (i < symoffset)
        return NULL;
    for (;; i++) {
        uint32_t h2 = chain[i - symoffset];
        if ((hash | 1) == (h2 | 1)) {
            void *p = accept(t, i, name);
            if (p != NULL)
                return p;
        }
        if (h2 & 1)
            return NULL;
    }
}

FC_NO_SANITIZE static void *sysv_lookup(const tables *t, const char *name)
{
    const uint32_t *h = t->sysv_hash;
    uint32_t nbucket = h[0], nchain = h[1], hash = 0;
    const uint32_t *bucket = h + 2, *chain = bucket + nbucket;
    if (nbucket == 0)
        return NULL;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        hash = (hash << 4) + *c;
        uint32_t g = hash & 0xf0000000u;
        hash ^= g >> 24;
        hash &= ~g;
    }
    for (uint32_t i = bucket[hash % nbucket]; i != STN_UNDEF && i < nchain; i = chain[i]) {
        void *p = accept(t, i, name);
        if (p != NULL)
            return p;
    }
    return NULL;
}

FC_NO_SANITIZE void *fc_elf_lookup(const struct link_map *map, const char *name)
{
    tables t;
    if (map == NULL || read_tables(map, &t) != 0)
        return NULL;
    return t.gnu_hash ? gnu_lookup(&t, name) : sysv_lookup(&t, name);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* real_symbol.c - look a name up in one loaded object's ELF dynamic symbol
 * table (see real_symbol.h): the GNU hash table when there is one, else every
 * entry of the SysV table; symbol versions from DT_VERSYM and DT_VERDEF. */
#include "real_symbol.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

typedef struct dynobj {
    uintptr_t base;
    const ElfW(Sym) *sym;
    const char *str;
    const uint32_t *gnu_hash, *sysv_hash;
    const ElfW(Half) *versym;
    const ElfW(Verdef) *verdef;
} dynobj;

/* glibc rewrites the address entries of .dynamic to absolute addresses
 * where that section is writable; elsewhere (the vDSO, some ABIs) they are
 * still offsets from the load address. */
static const void *at(const dynobj *o, ElfW(Addr) p)
{
    return (const void *)(p < o->base ? o->base + p : p);
}

static int load(void *handle, dynobj *o)
{
    struct link_map *lm = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL || lm->l_ld == NULL)
        return -1;
    memset(o, 0, sizeof *o);
    o->base = lm->l_addr;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: o->sym = at(o, d->d_un.d_ptr); break;
        case DT_STRTAB: o->str = at(o, d->d_un.d_ptr); break;
        case DT_GNU_HASH: o->gnu_hash = at(o, d->d_un.d_ptr); break;
        case DT_HASH: o->sysv_hash = at(o, d->d_un.d_ptr); break;
        case DT_VERSYM: o->versym = at(o, d->d_un.d_ptr); break;
        case DT_VERDEF: o->verdef = at(o, d->d_un.d_ptr); break;
        default: break;
        }
    }
    return o->sym && o->str && (o->gnu_hash || o->sysv_hash) ? 0 : -1;
}

/* The name of version index ndx (0x7fff mask applied), or NULL. */
static const char *version_name(const dynobj *o, unsigned ndx)
{
    for (const ElfW(Verdef) *v = o->verdef; v != NULL;
         v = v->vd_next ? (const ElfW(Verdef) *)((const char *)v + v->vd_next) : NULL) {
        if (v->vd_ndx == ndx) {
            const ElfW(Verdaux) *a = (const ElfW(Verdaux) *)((const char *)v + v->vd_aux);
            return o->str + a->vda_name;
        }
    }
    return NULL;
}

/* 1 when symbol i is a definition of name in the version asked for. */
static int matches(const dynobj *o, uint32_t i, const char *name, const char *version)
{
    const ElfW(Sym) *s = &o->sym[i];
    if (s->st_shndx == SHN_UNDEF || s->st_value == 0 || strcmp(o->str + s->st_name, name) != 0)
        return 0;
    unsigned vs = o->versym ? o->versym[i] : 1;
    if (version == NULL) /* the default: not a hidden (name@V) version */
        return (vs & 0x8000) == 0;
    const char *vn = version_name(o, vs & 0x7fff);
    return vn != NULL && strcmp(vn, version) == 0;
}

static void *address(const dynobj *o, uint32_t i)
{
    const ElfW(Sym) *s = &o->sym[i];
    void *p = (void *)(o->base + s->st_value);
    if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC) {
        /* x86_64 resolvers take no argument; aarch64 ones take HWCAP. */
        void *(*resolver)(unsigned long, const void *) =
            (void *(*)(unsigned long, const void *))p;
        p = resolver(getauxval(AT_HWCAP), NULL);
    }
    return p;
}

static uint32_t gnu_hash(const char *name)
{
    uint32_t h = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = h * 33 + *c;
    return h;
}

static void *find_gnu(const dynobj *o, const char *name, const char *version)
{
    const uint32_t *t = o->gnu_hash;
    uint32_t nbuckets = t[0], symoffset = t[1], bloom_words = t[2];
    const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)&t[4] + bloom_words);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t h = gnu_hash(name);
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset)
        return NULL;
    for (;; i++) {
        uint32_t ch = chain[i - symoffset];
        if ((ch | 1) == (h | 1) && matches(o, i, name, version))
            return address(o, i);
        if (ch & 1)
            return NULL;
    }
}

void *real_symbol(void *handle, const char *name, const char *version)
{
    dynobj o;
    if (handle == NULL || load(handle, &o) != 0)
        return NULL;
    if (o.gnu_hash != NULL)
        return find_gnu(&o, name, version);
    uint32_t nsyms = o.sysv_hash[1]; /* nchain: one entry per symbol */
    for (uint32_t i = 1; i < nsyms; i++)
        if (matches(&o, i, name, version))
            return address(&o, i);
    return NULL;
}

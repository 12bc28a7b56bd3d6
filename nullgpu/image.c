/* SPDX-License-Identifier: Apache-2.0 */
/* image.c - reading what the null GPU needs from a module image: the size of
 * a global (the cubin's symbol table) and a kernel's parameter layout (the
 * EIATTR_KPARAM_INFO records of its .nv.info.<kernel> section), for
 * cuModuleGetGlobal and cuFuncGetParamInfo.
 *
 * An image is a fatbin (magic 0xBA55ED50, entries of PTX or ELF, possibly
 * LZ4-compressed: flag 0x2000), the runtime's fatbin wrapper (magic
 * 0x466243b1, pointing at one), a cubin (ELF) or PTX text. Layouts as the
 * ZLUDA project describes them; the field meanings were checked against
 * cubins nvcc 13 writes (readelf). zstd-compressed entries (flag 0x8000:
 * nvcc's -compress-mode since CUDA 12.8; every kernel of PyTorch 2.15's
 * cu132 wheels) are decompressed by the system's libzstd.so.1, loaded at
 * the first one; without it they are skipped (a kernel's parameters then
 * cannot be told: cuFuncGetParamInfo says NOT_SUPPORTED). */
#include "nullgpu.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define WRAPPER_MAGIC 0x466243b1u
#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u
#define MAX_ELF (1u << 30)

static uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* LZ4 block format: into out (cap bytes); returns the length or -1. */
static long lz4_block(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < n) {
        unsigned token = in[i++];
        size_t lit = token >> 4;
        if (lit == 15) {
            unsigned b;
            do {
                if (i >= n)
                    return -1;
                b = in[i++];
                lit += b;
            } while (b == 255);
        }
        if (i + lit > n || o + lit > cap)
            return -1;
        memcpy(out + o, in + i, lit);
        i += lit;
        o += lit;
        if (i >= n)
            break; /* the last sequence has literals only */
        if (i + 2 > n)
            return -1;
        size_t off = rd16(in + i);
        i += 2;
        size_t len = (token & 15) + 4;
        if ((token & 15) == 15) {
            unsigned b;
            do {
                if (i >= n)
                    return -1;
                b = in[i++];
                len += b;
            } while (b == 255);
        }
        if (off == 0 || off > o || o + len > cap)
            return -1;
        for (size_t k = 0; k < len; k++, o++) /* may overlap: byte by byte */
            out[o] = out[o - off];
    }
    return (long)o;
}

/* ---- ELF (cubin) ---- */
typedef struct elf_view {
    const unsigned char *d;
    uint64_t shoff;
    unsigned shnum, shstrndx;
} elf_view;

static int elf_open(const unsigned char *d, elf_view *e)
{
    if (memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 /* 64-bit */)
        return 0;
    e->d = d;
    e->shoff = rd64(d + 0x28);
    e->shnum = rd16(d + 0x3c);
    e->shstrndx = rd16(d + 0x3e);
    return e->shoff != 0 && e->shnum != 0 && e->shstrndx < e->shnum;
}

static const unsigned char *section(const elf_view *e, unsigned i) { return e->d + e->shoff + (uint64_t)i * 64; }

static const char *section_name(const elf_view *e, unsigned i)
{
    const unsigned char *strs = e->d + rd64(section(e, e->shstrndx) + 24);
    return (const char *)strs + rd32(section(e, i));
}

static size_t elf_global_size(const elf_view *e, const char *name)
{
    for (unsigned i = 0; i < e->shnum; i++) {
        const unsigned char *sh = section(e, i);
        if (rd32(sh + 4) != 2 /* SHT_SYMTAB */)
            continue;
        const unsigned char *syms = e->d + rd64(sh + 24);
        uint64_t n = rd64(sh + 32) / 24;
        unsigned link = rd32(sh + 40);
        if (link >= e->shnum)
            continue;
        const char *strs = (const char *)e->d + rd64(section(e, link) + 24);
        for (uint64_t k = 0; k < n; k++) {
            const unsigned char *s = syms + k * 24;
            if ((s[4] & 0xf) == 1 /* STT_OBJECT */ && strcmp(strs + rd32(s), name) == 0)
                return (size_t)rd64(s + 16);
        }
    }
    return 0;
}

/* KPARAM_INFO (attribute 0x17): index u32, ordinal u16, offset u16, then a
 * word whose bits 18..31 are the size in bytes. */
static int elf_params(const elf_view *e, const char *name, uint32_t **offsets, uint32_t **sizes)
{
    for (unsigned i = 0; i < e->shnum; i++) {
        const char *sn = section_name(e, i);
        if (strncmp(sn, ".nv.info.", 9) != 0 || strcmp(sn + 9, name) != 0)
            continue;
        const unsigned char *sh = section(e, i);
        const unsigned char *p = e->d + rd64(sh + 24), *end = p + rd64(sh + 32);
        int n = 0, cap = 0;
        uint32_t *off = NULL, *sz = NULL;
        while (p + 2 <= end) {
            unsigned fmt = p[0], attr = p[1];
            p += 2;
            size_t len = fmt == 2 ? 1 : fmt == 3 ? 2 : 0;
            if (fmt == 4) {
                if (p + 2 > end)
                    break;
                len = rd16(p);
                p += 2;
            }
            if (p + len > end)
                break;
            if (attr == 0x17 && fmt == 4 && len >= 12) {
                unsigned ord = rd16(p + 4);
                if ((int)ord >= cap) {
                    int nc = (int)ord + 16;
                    uint32_t *no = realloc(off, (size_t)nc * sizeof *no);
                    uint32_t *ns = no != NULL ? realloc(sz, (size_t)nc * sizeof *ns) : NULL;
                    if (no != NULL)
                        off = no;
                    if (ns == NULL) {
                        free(off);
                        free(sz);
                        return -1;
                    }
                    sz = ns;
                    memset(off + cap, 0, (size_t)(nc - cap) * sizeof *off);
                    memset(sz + cap, 0, (size_t)(nc - cap) * sizeof *sz);
                    cap = nc;
                }
                off[ord] = rd16(p + 6);
                sz[ord] = (rd32(p + 8) >> 18) & 0x3fff;
                if ((int)ord + 1 > n)
                    n = (int)ord + 1;
            }
            p += len;
        }
        *offsets = off;
        *sizes = sz;
        return n;
    }
    return -1;
}

/* ---- zstd, through libzstd.so.1 (ZSTD_decompress, ZSTD_isError) ---- */
typedef size_t (*zstd_dec_fn)(void *, size_t, const void *, size_t);
typedef unsigned (*zstd_err_fn)(size_t);
static zstd_dec_fn zstd_dec;
static zstd_err_fn zstd_err;
static int zstd_state; /* 0 not looked up, 1 there, 2 not there */

static int zstd_ready(void)
{
    int st = __atomic_load_n(&zstd_state, __ATOMIC_ACQUIRE);
    if (st == 0) { /* two threads may both look: dlopen counts references */
        void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
        zstd_dec_fn d = NULL;
        zstd_err_fn e = NULL;
        if (h != NULL) {
            *(void **)&d = dlsym(h, "ZSTD_decompress");
            *(void **)&e = dlsym(h, "ZSTD_isError");
        }
        __atomic_store_n(&zstd_dec, d, __ATOMIC_RELAXED);
        __atomic_store_n(&zstd_err, e, __ATOMIC_RELAXED);
        st = d != NULL && e != NULL ? 1 : 2;
        __atomic_store_n(&zstd_state, st, __ATOMIC_RELEASE);
    }
    return st == 1;
}

/* One zstd frame of n bytes into out (exactly cap bytes); the length or -1. */
static long zstd_block(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    if (!zstd_ready())
        return -1;
    size_t r = __atomic_load_n(&zstd_dec, __ATOMIC_RELAXED)(out, cap, in, n);
    return __atomic_load_n(&zstd_err, __ATOMIC_RELAXED)(r) || r != cap ? -1 : (long)r;
}

/* ---- fatbin: each ELF entry in turn, decompressed when needed ---- */
typedef int (*elf_fn)(const elf_view *e, void *arg);

static int each_elf(const void *image, elf_fn fn, void *arg)
{
    const unsigned char *d = image;
    if (d == NULL)
        return 0;
    if (rd32(d) == WRAPPER_MAGIC)
        d = *(const unsigned char *const *)(d + 8);
    elf_view e;
    if (elf_open(d, &e))
        return fn(&e, arg);
    if (rd32(d) != FATBIN_MAGIC)
        return 0; /* PTX text or unknown */
    const unsigned char *p = d + rd16(d + 6), *end = p + rd64(d + 8);
    while (p + 64 <= end) {
        unsigned kind = rd16(p);
        uint32_t hsize = rd32(p + 4);
        uint64_t size = rd64(p + 8), csize = rd32(p + 16), flags = rd64(p + 40);
        uint64_t full = rd64(p + 56);
        const unsigned char *payload = p + hsize;
        if (kind == 2) {
            if (flags & (FLAG_LZ4 | FLAG_ZSTD)) {
                if (full > 0 && full < MAX_ELF) {
                    unsigned char *buf = malloc(full);
                    size_t n = csize ? csize : size;
                    long got = buf == NULL          ? -1
                               : (flags & FLAG_LZ4) ? lz4_block(payload, n, buf, full)
                                                    : zstd_block(payload, n, buf, full);
                    int r = got > 0 && elf_open(buf, &e) ? fn(&e, arg) : 0;
                    free(buf);
                    if (r)
                        return r;
                }
            } else if (elf_open(payload, &e)) {
                int r = fn(&e, arg);
                if (r)
                    return r;
            }
        }
        p = payload + (size > csize ? size : csize);
    }
    return 0;
}

typedef struct global_q {
    const char *name;
    size_t size;
} global_q;

static int global_cb(const elf_view *e, void *arg)
{
    global_q *q = arg;
    q->size = elf_global_size(e, q->name);
    return q->size != 0;
}

size_t ng_image_global_size(const void *image, const char *name)
{
    global_q q = {name, 0};
    each_elf(image, global_cb, &q);
    return q.size;
}

typedef struct params_q {
    const char *name;
    int n;
    uint32_t *offsets, *sizes;
} params_q;

static int params_cb(const elf_view *e, void *arg)
{
    params_q *q = arg;
    q->n = elf_params(e, q->name, &q->offsets, &q->sizes);
    return q->n >= 0;
}

int ng_image_params(const void *image, const char *name, uint32_t **offsets, uint32_t **sizes)
{
    params_q q = {name, -1, NULL, NULL};
    each_elf(image, params_cb, &q);
    *offsets = q.offsets;
    *sizes = q.sizes;
    return q.n;
}

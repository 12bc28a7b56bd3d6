/* SPDX-License-Identifier: Apache-2.0 */
/* runtimes.c - the CUDA runtimes behind the process's device code
 * (runtimes.h).
 *
 * nvcc puts each translation unit's fat binary wrapper (__fatDeviceText)
 * in the object's .nvFatBinSegment section and registers it at load with
 * __cudaRegisterFatBinary(&wrapper) - through the shared libcudart, where
 * the hooks see it, or through a runtime linked into the object, where
 * they do not. So an object with a .nvFatBinSegment none of whose
 * wrappers came through the hooks registers its kernels out of sight.
 * The section headers are read from each loaded object's file (the main
 * program's through /proc/self/exe) into fixed buffers: a few kilobytes
 * per object, once per set of loaded objects, at report time only. */
#include "runtimes.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_WRAPPERS 8192u
#define MAX_SECTIONS 256
#define SHSTR_MAX 8192

static const void *wrappers[MAX_WRAPPERS];
static uint32_t n_wrappers; /* calls seen (atomic); the first MAX_WRAPPERS kept */

void fc_launch_note_fatbin(const void *wrapper)
{
    uint32_t i = __atomic_fetch_add(&n_wrappers, 1, __ATOMIC_RELAXED);
    if (i < MAX_WRAPPERS)
        __atomic_store_n(&wrappers[i], wrapper, __ATOMIC_RELEASE);
}

static int registered_in(uintptr_t lo, uintptr_t hi)
{
    uint32_t n = __atomic_load_n(&n_wrappers, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < MAX_WRAPPERS; i++) {
        uintptr_t w = (uintptr_t)__atomic_load_n(&wrappers[i], __ATOMIC_ACQUIRE);
        if (w >= lo && w < hi)
            return 1;
    }
    return 0;
}

/* The CUDA libraries bring their own kernels and runtime: not the
 * program's. */
static int cuda_library(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libcu", 5) == 0 || strncmp(base, "libnv", 5) == 0 ||
           strncmp(base, "libnccl", 7) == 0 || strstr(base, "flopcount") != NULL;
}

/* The address range of path's .nvFatBinSegment (loaded at bias); 0 when it
 * has none or cannot be read. */
static int fatbin_segment(const char *path, uintptr_t bias, uintptr_t *lo, uintptr_t *hi)
{
    static Elf64_Shdr sh[MAX_SECTIONS];
    static char names[SHSTR_MAX];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf64_Ehdr eh;
    int found = 0;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr) &&
        eh.e_shnum > 0 && eh.e_shnum <= MAX_SECTIONS && eh.e_shstrndx < eh.e_shnum) {
        size_t bytes = (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
        if (pread(fd, sh, bytes, (off_t)eh.e_shoff) == (ssize_t)bytes) {
            const Elf64_Shdr *s = &sh[eh.e_shstrndx];
            size_t len = s->sh_size < SHSTR_MAX - 1 ? s->sh_size : SHSTR_MAX - 1;
            ssize_t got = pread(fd, names, len, (off_t)s->sh_offset);
            if (got > 0) {
                names[got] = '\0';
                for (int i = 0; i < eh.e_shnum && !found; i++)
                    if (sh[i].sh_name < (size_t)got &&
                        strcmp(names + sh[i].sh_name, ".nvFatBinSegment") == 0 && sh[i].sh_addr) {
                        *lo = bias + sh[i].sh_addr;
                        *hi = *lo + sh[i].sh_size;
                        found = 1;
                    }
            }
        }
    }
    close(fd);
    return found;
}

static struct {
    int objects;          /* loaded objects when last scanned */
    uint32_t wrappers;    /* wrappers when last scanned */
    fc_runtimes_view v;
} cache;

static int visit(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    fc_runtimes_view *v = ctx;
    const char *name = info->dlpi_name;
    int main_program = name == NULL || name[0] == '\0';
    const char *path = main_program ? "/proc/self/exe" : name;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!main_program && strncmp(base, "libcudart.so", 12) == 0 && v->shared[0] == '\0')
        snprintf(v->shared, sizeof v->shared, "%s", name);
    if (!main_program && strncmp(base, "libcuda.so", 10) == 0)
        v->driver_loaded = 1;
    if (!main_program && (name[0] != '/' || cuda_library(name)))
        return 0; /* the vDSO, the CUDA libraries */
    uintptr_t lo = 0, hi = 0;
    if (fatbin_segment(path, (uintptr_t)info->dlpi_addr, &lo, &hi) && !registered_in(lo, hi)) {
        if (v->n_static < FC_RT_OBJECTS) {
            char exe[256] = "";
            if (main_program) {
                ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
                exe[n > 0 ? n : 0] = '\0';
            }
            snprintf(v->static_objects[v->n_static++], sizeof v->static_objects[0], "%s",
                     main_program ? exe : name);
        } else {
            v->more_static++;
        }
    }
    return 0;
}

static int count(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)info, (void)size;
    (*(int *)ctx)++;
    return 0;
}

void fc_runtimes_get(fc_runtimes_view *v)
{
    int objects = 0;
    dl_iterate_phdr(count, &objects);
    uint32_t w = __atomic_load_n(&n_wrappers, __ATOMIC_ACQUIRE);
    if (objects != cache.objects || w != cache.wrappers) {
        memset(&cache.v, 0, sizeof cache.v);
        dl_iterate_phdr(visit, &cache.v);
        cache.objects = objects;
        cache.wrappers = w;
    }
    *v = cache.v;
    v->fatbins = w;
    v->wrappers_complete = w <= MAX_WRAPPERS;
    if (!v->wrappers_complete) { /* an object may have registered in the wrappers not kept */
        v->n_static = 0;
        v->more_static = 0;
    }
}

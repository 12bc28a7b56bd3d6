/* SPDX-License-Identifier: Apache-2.0 */
/* resolve.c - find the real definition of an interposed function, and
 * every other dlopen/dlsym the shim makes (the signal functions for
 * signals.c, the CUDA driver for probe/gputime.c).
 *
 * Lookups of real GEMM functions run lazily from whichever hook needs them
 * first (as in libfaketime), so calls that arrive before our constructor
 * still work.
 * Order: dlsym(RTLD_NEXT); then every loaded object whose file name belongs
 * to the library family, reopened with RTLD_NOLOAD (this finds libraries a
 * Python extension loaded RTLD_LOCAL, where RTLD_NEXT sees nothing); then
 * dlopen of the usual sonames. A candidate that is our own function is
 * skipped, so a lookup can never return the hook itself. Every lookup goes
 * to the real dlsym (dlsym_real.h): the shim's own would answer with hooks.
 *
 * In a fork child the search takes no lock that fork can leave held. glibc
 * (2.36) resets the loader's main lock in the child but not the one
 * dl_iterate_phdr takes (nor does it add objects without it): if another
 * thread of the parent was inside dl_iterate_phdr at fork - this very
 * search on a thread making its first GEMMs, or libunwind - the child would
 * wait for it forever. dlopen of an object loaded as a dependency may take
 * it too. So a fork child walks the loader's list of objects (_r_debug)
 * itself, reads each family member's own symbol table (elf_lookup.c), and
 * never loads or pins a library. The walk takes no lock: an object another
 * thread of the child unloads at that very moment could be read after it
 * is freed, a race a child's first GEMM would have to lose to a dlclose. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "diag.h"
#include "dlsym_real.h"
#include "elf_lookup.h"
#include "process.h"
#include "resolve.h"

static const char *const family_marks[FC_LIB_COUNT][4] = {
    [FC_LIB_CUBLAS] = {"libcublas.so", NULL},
    [FC_LIB_CUBLASLT] = {"libcublasLt.so", NULL},
    [FC_LIB_BLAS] = {"blas", "mkl", "blis", NULL},
    [FC_LIB_CUDART] = {"libcudart.so", NULL},
    [FC_LIB_CUDNN] = {"libcudnn", NULL},
};

static const char *const sonames[FC_LIB_COUNT][6] = {
    [FC_LIB_CUBLAS] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so", NULL},
    [FC_LIB_CUBLASLT] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11",
                         "libcublasLt.so", NULL},
    [FC_LIB_BLAS] = {"libblas.so.3", "libopenblas.so.0", "libcblas.so.3", "libmkl_rt.so", NULL},
    [FC_LIB_CUDART] = {NULL},
    [FC_LIB_CUDNN] = {"libcudnn.so.9", "libcudnn_graph.so.9", NULL},
};

/* Our own load address, to recognise (and skip) our own hooks. */
static int is_ours(void *fn)
{
    Dl_info self, other;
    if (fn == NULL)
        return 0;
    if (!dladdr((void *)fc_resolve, &self) || !dladdr(fn, &other))
        return 0;
    return self.dli_fbase == other.dli_fbase;
}

/* Objects of one family seen by dl_iterate_phdr: where each is mapped. */
#define FC_MAX_FAMILY_OBJECTS 16
struct search {
    int lib;
    int n;
    const void *start[FC_MAX_FAMILY_OBJECTS];
};

int fc_resolve_in_family(int lib, const char *path)
{
    if (lib < 0 || lib >= FC_LIB_COUNT || path == NULL || path[0] == '\0')
        return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strstr(base, "flopcount") != NULL)
        return 0;
    int match = 0;
    for (int i = 0; family_marks[lib][i] != NULL; i++)
        if (strstr(base, family_marks[lib][i]) != NULL)
            match = 1;
    /* libcublasLt.so contains "libcublas" as a prefix only with "Lt": keep the families apart. */
    if (lib == FC_LIB_CUBLAS && strstr(base, "libcublasLt") != NULL)
        match = 0;
    return match;
}

/* Only notes where each object of the family is mapped: dl_iterate_phdr
 * holds the loader's write lock while it calls us, and dlopen or dlsym here
 * would take the loader lock after it, the reverse of dlopen's own order
 * (a deadlock with a thread loading a library). They run afterwards. */
static int visit(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct search *s = ctx;
    if (s->n >= FC_MAX_FAMILY_OBJECTS || !fc_resolve_in_family(s->lib, info->dlpi_name))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) { /* the first one: the object's start */
            s->start[s->n++] = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            break;
        }
    return 0;
}

/* The fork child's search: the loader's list and each object's own
 * symbol table, no call into the loader but dladdr. */
static void *search_maps(int lib, const char *name)
{
    for (struct link_map *l = _r_debug.r_map; l != NULL; l = l->l_next) {
        if (!fc_resolve_in_family(lib, l->l_name))
            continue;
        void *fn = fc_elf_lookup(l, name);
        if (fn != NULL && !is_ours(fn))
            return fn;
    }
    return NULL;
}

void fc_resolve_pin(const char *path)
{
    if (path != NULL && !fc_process_is_fork_child())
        (void)dlopen(path, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}

/* Keeps the library that defines fn loaded for good: a program may dlclose
 * it (and load it again elsewhere) while our cached pointer lives on. */
static void pin(void *fn)
{
    Dl_info info;
    if (fn != NULL && dladdr(fn, &info))
        fc_resolve_pin(info.dli_fname);
}

/* 1 the first time name misses: a hook keeps retrying (the library may be
 * loaded later) but says so once. Names are the hooks' string literals. */
static int first_miss(const char *name)
{
    static const char *missed[128];
    for (unsigned i = 0; i < 128; i++) {
        const char *cur = __atomic_load_n(&missed[i], __ATOMIC_ACQUIRE);
        if (cur == name || (cur != NULL && strcmp(cur, name) == 0))
            return 0;
        if (cur == NULL) {
            const char *expect = NULL;
            if (__atomic_compare_exchange_n(&missed[i], &expect, name, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return 1;
            if (expect == name || strcmp(expect, name) == 0)
                return 0;
        }
    }
    return 0;
}

void *fc_resolve(int lib, const char *name)
{
    int saved = errno;
    void *fn = fc_dlsym(RTLD_NEXT, name);
    if (fn != NULL && is_ours(fn))
        fn = NULL;
    int child = fc_process_is_fork_child();
    if (fn == NULL && lib >= 0 && lib < FC_LIB_COUNT && child)
        fn = search_maps(lib, name);
    if (fn == NULL && lib >= 0 && lib < FC_LIB_COUNT && !child) {
        struct search s = {.lib = lib};
        dl_iterate_phdr(visit, &s);
        for (int i = 0; fn == NULL && i < s.n; i++)
            fn = fc_resolve_in_object(s.start[i], name);
    }
    for (int i = 0; fn == NULL && !child && lib >= 0 && lib < FC_LIB_COUNT && sonames[lib][i]; i++) {
        /* Loads the library if the program did not: it asked for its function. */
        void *h = dlopen(sonames[lib][i], RTLD_LAZY | RTLD_LOCAL);
        if (h == NULL)
            continue;
        void *cand = fc_dlsym(h, name);
        if (cand != NULL && !is_ours(cand))
            fn = cand;
        /* The handle stays open: fn lives in that library. */
    }
    if (!child)
        pin(fn);
    if (fn == NULL && first_miss(name))
        fc_warn("cannot find the real %s; the call is not forwarded (returns a failure status)",
                name);
    errno = saved;
    return fn;
}

FC_NO_TSAN void *fc_resolve_next(const char *name)
{
    return fc_dlsym(RTLD_NEXT, name);
}

void *fc_resolve_in_object(const void *base, const char *name)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(base, &info, (void **)&map, RTLD_DL_LINKMAP) || map == NULL)
        return NULL;
    void *fn = NULL;
    if (fc_process_is_fork_child()) {
        /* No loader call but dladdr (see the top): the object's own table,
         * its dependencies unseen. */
        fn = fc_elf_lookup(map, name);
    } else {
        void *h = info.dli_fname != NULL ? dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (h == NULL)
            return NULL;
        fn = fc_dlsym(h, name);
        dlclose(h);
    }
    return fn != NULL && !is_ours(fn) ? fn : NULL;
}

void *fc_resolve_loaded_lib(const char *path)
{
    return dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
}

void *fc_resolve_lib_sym(void *lib, const char *a, const char *b)
{
    void *p = fc_dlsym(lib, a);
    return p != NULL || b == NULL ? p : fc_dlsym(lib, b);
}

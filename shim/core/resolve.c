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
 * skipped, so a lookup can never return the hook itself. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "diag.h"
#include "resolve.h"

static const char *const family_marks[FC_LIB_COUNT][4] = {
    [FC_LIB_CUBLAS] = {"libcublas.so", NULL},
    [FC_LIB_CUBLASLT] = {"libcublasLt.so", NULL},
    [FC_LIB_BLAS] = {"blas", "mkl", "blis", NULL},
    [FC_LIB_CUDART] = {"libcudart.so", NULL},
};

static const char *const sonames[FC_LIB_COUNT][6] = {
    [FC_LIB_CUBLAS] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so", NULL},
    [FC_LIB_CUBLASLT] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11",
                         "libcublasLt.so", NULL},
    [FC_LIB_BLAS] = {"libblas.so.3", "libopenblas.so.0", "libcblas.so.3", "libmkl_rt.so", NULL},
    [FC_LIB_CUDART] = {NULL},
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

struct search {
    int lib;
    const char *name;
    void *found;
};

static int visit(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct search *s = ctx;
    const char *path = info->dlpi_name;
    if (s->found != NULL || path == NULL || path[0] == '\0')
        return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strstr(base, "flopcount") != NULL)
        return 0;
    int match = 0;
    for (int i = 0; family_marks[s->lib][i] != NULL; i++)
        if (strstr(base, family_marks[s->lib][i]) != NULL)
            match = 1;
    /* libcublasLt.so contains "libcublas" as a prefix only with "Lt": keep the families apart. */
    if (s->lib == FC_LIB_CUBLAS && strstr(base, "libcublasLt") != NULL)
        match = 0;
    if (!match)
        return 0;
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL)
        return 0;
    void *fn = dlsym(h, s->name);
    dlclose(h);
    if (fn != NULL && !is_ours(fn))
        s->found = fn;
    return 0;
}

/* Keeps the library that defines fn loaded for good: a program may dlclose
 * it (and load it again elsewhere) while our cached pointer lives on. */
static void pin(void *fn)
{
    Dl_info info;
    if (fn != NULL && dladdr(fn, &info) && info.dli_fname != NULL)
        (void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
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
    void *fn = dlsym(RTLD_NEXT, name);
    if (fn != NULL && is_ours(fn))
        fn = NULL;
    if (fn == NULL && lib >= 0 && lib < FC_LIB_COUNT) {
        struct search s = {lib, name, NULL};
        dl_iterate_phdr(visit, &s);
        fn = s.found;
    }
    for (int i = 0; fn == NULL && lib >= 0 && lib < FC_LIB_COUNT && sonames[lib][i]; i++) {
        /* Loads the library if the program did not: it asked for its function. */
        void *h = dlopen(sonames[lib][i], RTLD_LAZY | RTLD_LOCAL);
        if (h == NULL)
            continue;
        void *cand = dlsym(h, name);
        if (cand != NULL && !is_ours(cand))
            fn = cand;
        /* The handle stays open: fn lives in that library. */
    }
    pin(fn);
    if (fn == NULL && first_miss(name))
        fc_warn("cannot find the real %s; the call is not forwarded (returns a failure status)",
                name);
    errno = saved;
    return fn;
}

FC_NO_TSAN void *fc_resolve_next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

void *fc_resolve_loaded_lib(const char *path)
{
    return dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
}

void *fc_resolve_lib_sym(void *lib, const char *a, const char *b)
{
    void *p = dlsym(lib, a);
    return p != NULL || b == NULL ? p : dlsym(lib, b);
}

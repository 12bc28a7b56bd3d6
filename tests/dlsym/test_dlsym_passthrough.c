/* SPDX-License-Identifier: Apache-2.0 */
/* test_dlsym_passthrough.c - lookups of names the shim does not hook give
 * exactly what they give without the shim.
 *
 * The program makes a fixed list of dlsym/dlvsym lookups and prints each
 * answer in a form that does not depend on where libraries were mapped
 * (defining file's base name + offset, or NULL and the dlerror() text).
 * ctest runs it without the shim and under it and compares the two outputs
 * line by line (tests/dlsym/dlsym.cmake): any difference is a failure.
 * The cases are the ones a dlsym interposer gets wrong most easily:
 *   - an indirect function (libm's cos, an IFUNC) by dlsym and dlvsym;
 *   - a Python extension's PyInit_* (the interpreter's import path);
 *   - a missing name: NULL and the same dlerror() text; then a found name
 *     leaves dlerror() empty;
 *   - RTLD_NEXT from a library (relative to the CALLER's position);
 *   - RTLD_DEFAULT from a library loaded RTLD_LOCAL, which sees its own
 *     dependencies (again relative to the caller), and from the program;
 *   - a library whose symbol was looked up still unloads on dlclose.
 * Each answer is also checked against the ELF symbol table
 * (tests/emu/real_symbol.c) where it names a definition.
 *
 * usage: test_dlsym_passthrough SCOPE_TOP UNLOAD LIBPYTHON|- PYEXT|- PYINIT|- [--under-shim]
 * --under-shim: fail unless this process's dlsym is libflopcount's (else
 * the comparison would prove nothing). */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/real_symbol.h"

static int failures;

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "?";
}

/* Prints what one lookup returned: where it points, or NULL and dlerror(). */
static void show(const char *what, void *p)
{
    if (p == NULL) {
        const char *err = dlerror();
        printf("%s: NULL (%s)\n", what, err ? err : "no error");
        return;
    }
    Dl_info info;
    if (!dladdr(p, &info) || info.dli_fname == NULL) {
        printf("%s: %p in no object\n", what, p);
        return;
    }
    /* the file itself: a sanitizer runtime is libasan.so.8 when linked and
     * libasan.so (a symlink to it) when preloaded */
    char real[PATH_MAX];
    const char *file = realpath(info.dli_fname, real) ? real : info.dli_fname;
    printf("%s: %s+%#lx\n", what, base_name(file),
           (unsigned long)((uintptr_t)p - (uintptr_t)info.dli_fbase));
}

/* The answer must also be the definition in lib's own symbol table. */
static void same_as_table(const char *what, void *p, void *lib, const char *name,
                          const char *version)
{
    void *want = real_symbol(lib, name, version);
    if (p != want) {
        fprintf(stderr, "%s: dlsym gave %p, the symbol table %p\n", what, p, want);
        failures++;
    }
}

static void *open_or_die(const char *path, int flags)
{
    void *h = dlopen(path, flags);
    if (h == NULL) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(1);
    }
    return h;
}

static void lookups_in_libraries(void)
{
    void *libm = open_or_die("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    void *cos_p = dlsym(libm, "cos");
    show("dlsym(libm, cos)", cos_p);
    same_as_table("cos", cos_p, libm, "cos", NULL);
    void *cos_v = dlvsym(libm, "cos", "GLIBC_2.2.5");
    show("dlvsym(libm, cos, GLIBC_2.2.5)", cos_v);
    same_as_table("cos@GLIBC_2.2.5", cos_v, libm, "cos", "GLIBC_2.2.5");
    show("dlvsym(libm, cos, GLIBC_0.0)", dlvsym(libm, "cos", "GLIBC_0.0"));
    show("dlsym(libm, fc_no_such_name)", dlsym(libm, "fc_no_such_name"));
    dlsym(libm, "sin");
    printf("dlerror() after a found name: %s\n", dlerror() ? "set" : "empty");
    /* names that start like hooked ones but are not */
    show("dlsym(libm, cosh)", dlsym(libm, "cosh"));
    show("dlsym(libm, sgemm_)", dlsym(libm, "sgemm_"));
    show("dlsym(RTLD_DEFAULT, strlen)", dlsym(RTLD_DEFAULT, "strlen"));
    show("dlsym(RTLD_NEXT, strlen)", dlsym(RTLD_NEXT, "strlen"));
}

static void python_extension(const char *libpython, const char *ext, const char *init)
{
    if (strcmp(libpython, "-") == 0) {
        printf("python extension: not available\n");
        return;
    }
    open_or_die(libpython, RTLD_NOW | RTLD_GLOBAL); /* what the interpreter provides */
    void *mod = open_or_die(ext, RTLD_NOW | RTLD_LOCAL);
    void *p = dlsym(mod, init);
    show("dlsym(extension, PyInit_*)", p);
    same_as_table("PyInit", p, mod, init, NULL);
}

static void caller_relative(const char *scope_top)
{
    void *(*next_lookup)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "fc_next_lookup");
    if (next_lookup == NULL) {
        fprintf(stderr, "fc_next_lookup: %s\n", dlerror());
        exit(1);
    }
    int (*next)(void) = (int (*)(void))next_lookup();
    printf("RTLD_NEXT from a library: %d\n", next ? next() : -1);

    void *top = open_or_die(scope_top, RTLD_NOW | RTLD_LOCAL);
    void *(*scope_lookup)(void) = (void *(*)(void))dlsym(top, "fc_scope_lookup");
    int (*probe)(void) = scope_lookup ? (int (*)(void))scope_lookup() : NULL;
    printf("RTLD_DEFAULT from a local library: %d\n", probe ? probe() : -1);
    show("RTLD_DEFAULT from the program", dlsym(RTLD_DEFAULT, "fc_scope_probe"));
}

static void unload(const char *path)
{
    void *h = open_or_die(path, RTLD_NOW | RTLD_LOCAL);
    int (*probe)(void) = (int (*)(void))dlsym(h, "fc_unload_probe");
    printf("unload probe: %d\n", probe ? probe() : -1);
    dlclose(h);
    void *again = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    printf("unloaded after dlclose: %s\n", again ? "no" : "yes");
}

int fc_next_use_second(void); /* fixture_next_first, linked */

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s SCOPE_TOP UNLOAD LIBPYTHON|- PYEXT|- PYINIT|- [--under-shim]\n",
                argv[0]);
        return 2;
    }
    if (argc > 6 && strcmp(argv[6], "--under-shim") == 0) {
        Dl_info info = {0};
        if (!dladdr((void *)dlsym, &info) ||
            strstr(base_name(info.dli_fname), "flopcount") == NULL) {
            fprintf(stderr, "dlsym is %s's, not libflopcount's\n",
                    info.dli_fname ? info.dli_fname : "?");
            return 1;
        }
    }
    if (fc_next_use_second() != 0)
        return 1;
    lookups_in_libraries();
    python_extension(argv[3], argv[4], argv[5]);
    caller_relative(argv[1]);
    unload(argv[2]);
    return failures ? 1 : 0;
}

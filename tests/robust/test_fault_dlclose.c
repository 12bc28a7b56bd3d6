/* SPDX-License-Identifier: Apache-2.0 */
/* test_fault_dlclose.c - the BLAS goes away under the shim: a plugin that
 * needs it is loaded, used, unloaded (taking the BLAS with it, unless
 * something keeps it), its old address range is made unusable, and the
 * plugin is loaded again (so the BLAS lands somewhere else). A hook that
 * kept calling the first BLAS's address would crash here. Counts must stay
 * exact: 3 + 2 calls of 2x2x2 = 5 calls, 5 * 16 = 80 FLOPs.
 *
 * usage: test_fault_dlclose DIR (where libfc_fault_module.so is) */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "../../include/flopcount.h"

static const char *dir;

static void *load(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/libfc_fault_module.so", dir);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    return h;
}

static void calls(void *h, int n)
{
    void (*fn)(int) = (void (*)(int))dlsym(h, "fault_module_gemm");
    assert_non_null(fn);
    fn(n);
}

static void reload_after_dlclose(void **state)
{
    (void)state;
    int (*get)(flopcount_snapshot *) =
        (int (*)(flopcount_snapshot *))dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    assert_non_null(get);

    void *h = load();
    calls(h, 3);
    void *blas_sgemm = dlsym(h, "sgemm_"); /* the module's view: the shim's hook */
    assert_non_null(blas_sgemm);
    void *blas = dlopen("libfc_fault_blas.so", RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(blas);
    Dl_info info;
    void *real = dlsym(blas, "fault_blas_calls");
    assert_non_null(real);
    assert_true(dladdr(real, &info) != 0);
    dlclose(blas);
    assert_int_equal(dlclose(h), 0);

    /* If the BLAS really went, fence its old place so nothing new lands
     * there; a stale pointer into it now faults instead of working by luck. */
    void *still = dlopen("libfc_fault_blas.so", RTLD_NOW | RTLD_NOLOAD);
    if (still == NULL) {
        void *fence = mmap(info.dli_fbase, 4096, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (fence == MAP_FAILED) /* something else took the place: as good a fence */
            fprintf(stderr, "test_fault_dlclose: old BLAS range already reused\n");
    } else {
        dlclose(still);
    }

    h = load();
    calls(h, 2);
    dlclose(h);

    flopcount_snapshot s = {.size = sizeof s};
    assert_int_equal(get(&s), 0);
    assert_int_equal(s.gemm_calls, 5);
    assert_int_equal(s.gemm_flops_lo, 80);
    assert_int_equal(s.gemm_flops_hi, 0);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    dir = argv[1];
    const struct CMUnitTest tests[] = {cmocka_unit_test(reload_after_dlclose)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

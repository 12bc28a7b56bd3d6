/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublas_local.c - cuBLAS called from a library that was dlopen()ed
 * RTLD_LOCAL (how Python loads extension modules, and so how PyTorch's
 * libcublas arrives under `python train.py`). The call reaches our hook by
 * symbol lookup; the hook must still find and call the real function,
 * although dlsym(RTLD_NEXT) there returns NULL.
 *
 * Usage: test_cublas_local HELPER.so real|emu */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <json-c/json.h>
#include <string.h>

#include "emu/cublas_emu_check.h"

enum { NOT_INITIALIZED = 1 }; /* CUBLAS_STATUS_NOT_INITIALIZED */

static const char *helper_path;
static int emulated;

static void test_local(void **state)
{
    (void)state;
    ck_shim_symbol("cublasSgemm_v2");
    void *lib = dlopen(helper_path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        fail_msg("dlopen %s: %s", helper_path, dlerror());
    /* The premise: libcublas is loaded but not in the global scope (the
     * shim defines no cublasCreate_v2, so only libcublas could answer). */
    assert_null(dlsym(RTLD_DEFAULT, "cublasCreate_v2"));
    int (*run)(int *, float *) = (int (*)(int *, float *))dlsym(lib, "cublas_local_run");
    assert_non_null(run);

    float c[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    int create = -1;
    ck_totals t0 = ck_totals_now();
    int st = run(&create, c);
    struct json_object *r = ck_report();
    assert_int_equal(ck_total(r, "unresolved_calls"), 0);
    if (emulated) {
        /* Forwarded to the emulation: its arithmetic, 2*2*4*3 = 48 FLOPs. */
        assert_int_equal(create, 0);
        assert_int_equal(st, 0);
        for (int i = 0; i < 8; i++)
            assert_true(c[i] == (float)ck_c_expect[i]);
        ck_expect_delta(&t0, 1, 48, 0, 0);
        ck_expect_shape(r, &(ck_want){"cublasSgemm_v2", 2, 4, 3, 1, 'N', 'N', "fp32", "fp32",
                                      NULL, 1, 0, 48});
    } else {
        /* Forwarded to the real library: its status, a failed call with shape. */
        assert_int_equal(create, NOT_INITIALIZED);
        assert_int_equal(st, NOT_INITIALIZED);
        ck_expect_delta(&t0, 0, 0, 1, 0);
        ck_expect_shape(r, &(ck_want){"cublasSgemm_v2", 11, 12, 13, 1, 'T', 'N', "fp32", "fp32",
                                      NULL, 0, 1, 0});
    }
    json_object_put(r);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "real") != 0 && strcmp(argv[2], "emu") != 0)) {
        print_error("usage: %s HELPER.so real|emu\n", argv[0]);
        return 2;
    }
    helper_path = argv[1];
    emulated = strcmp(argv[2], "emu") == 0;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_local)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublaslt_missing.c - the shim's cublasLtMatmul when no real one can
 * be found: it must return CUBLAS_STATUS_NOT_INITIALIZED and count the call
 * as unresolved, without crashing.
 *
 * The program links a libcublasLt.so.13 that lacks cublasLtMatmul (the
 * emulation built with FC_EMU_LT_NO_MATMUL); its directory, first on
 * LD_LIBRARY_PATH, also answers for libcublasLt.so, so the shim's fallback
 * dlopen of the usual sonames finds nothing either. Run mode reaches the
 * shim's function by name; check mode (--check REPORT) reads the report,
 * and skips (77) where a CUDA 12 or 11 cuBLASLt is installed, which the
 * shim would rightly find. */
#include <cublasLt.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lt_check.h"

typedef cublasStatus_t (*matmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                                    const void *, cublasLtMatrixLayout_t, const void *,
                                    cublasLtMatrixLayout_t, const void *, const void *,
                                    cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                    const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);

static const char *report_path;

static void test_unresolved(void **state)
{
    (void)state;
    /* Keeps the stub library loaded, so its soname is taken. */
    cublasLtMatrixLayout_t l = NULL;
    assert_int_equal(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 2, 2, 2), 0);
    void *stub = dlopen("libcublasLt.so.13", RTLD_LAZY | RTLD_NOLOAD);
    assert_non_null(stub);
    assert_null(dlsym(stub, "cublasLtMatmul"));
    matmul_fn hook = (matmul_fn)dlsym(RTLD_DEFAULT, "cublasLtMatmul");
    assert_non_null(hook); /* only the preloaded shim defines it */
    float one = 1, zero = 0, D[4];
    for (int i = 0; i < 2; i++)
        assert_int_equal(hook(NULL, NULL, &one, D, l, D, l, &zero, D, l, D, l, NULL, NULL, 0, 0),
                         CUBLAS_STATUS_NOT_INITIALIZED);
    cublasLtMatrixLayoutDestroy(l);
}

/* EXPECT: 2 unresolved calls, nothing else. */
static void check_report(void **state)
{
    (void)state;
    json_object *r = lt_load(report_path);
    assert_int_equal(lt_total(r, "unresolved_calls"), 2);
    assert_int_equal(lt_total(r, "gemm_calls"), 0);
    assert_int_equal(lt_total(r, "failed_calls"), 0);
    assert_int_equal(lt_total(r, "invalid_calls"), 0);
    assert_int_equal(lt_shape_count(r), 0);
    json_object_put(r);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        const char *others[] = {"libcublasLt.so.12", "libcublasLt.so.11"};
        for (int i = 0; i < 2; i++)
            if (dlopen(others[i], RTLD_LAZY) != NULL)
                return 77;
        report_path = argv[2];
        const struct CMUnitTest checks[] = {cmocka_unit_test(check_report)};
        return cmocka_run_group_tests_name("cublaslt_missing_report", checks, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_unresolved)};
    return cmocka_run_group_tests_name("cublaslt_missing", tests, NULL, NULL);
}

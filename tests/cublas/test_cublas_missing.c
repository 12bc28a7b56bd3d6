/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublas_missing.c - a hook whose real function cannot be found. Run
 * with LD_LIBRARY_PATH on a directory where every libcublas soname the shim
 * tries is fixture_stub_cublas.c, a libcublas.so.13 without GEMMs; the program
 * links no cuBLAS and reaches the hooks with dlsym. Each call must return
 * CUBLAS_STATUS_NOT_INITIALIZED (1) without crashing, count as unresolved,
 * and add no calls, failures or shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <cublas_api.h>
#include <json-c/json.h>

#include "emu/cublas_emu_check.h"

typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                   int, int, const float *, const float *, int, const float *,
                                   int, const float *, float *, int);
typedef cublasStatus_t (*grouped_fn)(cublasHandle_t, const cublasOperation_t[],
                                     const cublasOperation_t[], const int[], const int[],
                                     const int[], const double[], const double *const[],
                                     const int[], const double *const[], const int[],
                                     const double[], double *const[], const int[], int,
                                     const int[]);

static void test_missing(void **state)
{
    (void)state;
    float a[4] = {1, 1, 1, 1}, c[4] = {5, 5, 5, 5}, one = 1;
    sgemm_fn sgemm = (sgemm_fn)ck_shim_symbol("cublasSgemm_v2");
    grouped_fn grouped = (grouped_fn)ck_shim_symbol("cublasDgemmGroupedBatched");
    cublasOperation_t op[1] = {CUBLAS_OP_N};
    int two[1] = {2}, size[1] = {1};
    double d1[1] = {1};
    const double *arr[1] = {d1};
    double *carr[1] = {d1};

    ck_totals t0 = ck_totals_now();
    assert_int_equal(sgemm(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a, 2, a, 2, &one, c, 2),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    assert_int_equal(grouped(NULL, op, op, two, two, two, d1, arr, two, arr, two, d1, carr, two,
                             1, size), CUBLAS_STATUS_NOT_INITIALIZED);
    assert_true(c[0] == 5 && c[3] == 5); /* nothing ran */
    ck_expect_delta(&t0, 0, 0, 0, 0);
    struct json_object *r = ck_report();
    assert_int_equal(ck_total(r, "unresolved_calls"), 2);
    assert_int_equal(ck_count_shapes(r, "cublasSgemm_v2", 2, 2, 2), 0);
    assert_int_equal(ck_count_shapes(r, "cublasDgemmGroupedBatched", 2, 2, 2), 0);
    json_object_put(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_missing)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublas_real.c - the hooks in front of the REAL libcublas.so.13, on a
 * machine with or without a GPU. cublasCreate fails without one, so every
 * GEMM goes to a NULL handle: the real library answers NOT_INITIALIZED (1).
 * The hooks must forward (never crash, never invent a status), hand the
 * real status back unchanged, and record each call as failed with its
 * shape (transposes, batch, group sizes, _64 api) and no FLOPs.
 *
 * "Unchanged" is checked against the real function itself, read from the
 * library's ELF symbol table (emu/real_symbol.c): dlsym on the library's
 * handle now answers with the shim's hook too (issue 15). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <cublas_api.h>
#include <dlfcn.h>
#include <json-c/json.h>

#include "emu/cublas_emu_check.h"
#include "emu/real_symbol.h"

#define N_ CUBLAS_OP_N
#define T_ CUBLAS_OP_T
#define C_ CUBLAS_OP_C

static float a[64], b[64], c[64];
static const float alpha = 1, beta = 0;
static const cuDoubleComplex z_alpha = {1, 0}, z_beta = {0, 0};

/* The real library's own definition of name, not the shim's. */
static void *real_fn(const char *name)
{
    void *lib = dlopen("libcublas.so.13", RTLD_LAZY | RTLD_NOLOAD);
    assert_non_null(lib);
    void *fn = real_symbol(lib, name, NULL);
    dlclose(lib);
    assert_non_null(fn);
    assert_ptr_not_equal(fn, ck_shim_symbol(name));
    return fn;
}

static void test_create_fails_without_gpu(void **state)
{
    (void)state;
    cublasHandle_t h = NULL;
    cublasStatus_t st = cublasCreate_v2(&h);
    if (st == CUBLAS_STATUS_SUCCESS) { /* a GPU after all: the NULL-handle tests still hold */
        cublasDestroy_v2(h);
        return;
    }
    assert_int_equal(st, CUBLAS_STATUS_NOT_INITIALIZED);
}

typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                   int, int, const float *, const float *, int, const float *,
                                   int, const float *, float *, int);

static void test_plain_and_ex(void **state)
{
    (void)state;
    sgemm_fn real = (sgemm_fn)real_fn("cublasSgemm_v2");
    cublasStatus_t want = real(NULL, N_, T_, 5, 6, 7, &alpha, a, 5, b, 6, &beta, c, 5);
    assert_int_not_equal(want, CUBLAS_STATUS_SUCCESS);

    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemm_v2(NULL, N_, T_, 5, 6, 7, &alpha, a, 5, b, 6, &beta, c, 5), want);
    assert_int_equal(cublasGemmEx_64(NULL, T_, N_, 8, 9, 10, &alpha, a, CUDA_R_16BF, 10, b,
                                     CUDA_R_16BF, 10, &beta, c, CUDA_R_32F, 8,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), want);
    assert_int_equal(cublasZgemm3m(NULL, C_, N_, 3, 2, 4, &z_alpha, (const cuDoubleComplex *)a, 4,
                                   (const cuDoubleComplex *)b, 4, &z_beta, (cuDoubleComplex *)c,
                                   3), want);
    ck_expect_delta(&t0, 0, 0, 3, 0);

    struct json_object *r = ck_report();
    ck_expect_shape(r, &(ck_want){"cublasSgemm_v2", 5, 6, 7, 1, 'N', 'T', "fp32", "fp32", NULL,
                                  0, 1, 0});
    ck_expect_shape(r, &(ck_want){"cublasGemmEx_64", 8, 9, 10, 1, 'T', 'N', "bf16", "fp32",
                                  "32F", 0, 1, 0});
    ck_expect_shape(r, &(ck_want){"cublasZgemm3m", 3, 2, 4, 1, 'C', 'N', "complex128",
                                  "complex128", NULL, 0, 1, 0});
    assert_int_equal(ck_total(r, "unresolved_calls"), 0);
    json_object_put(r);
}

static void test_batched(void **state)
{
    (void)state;
    const void *arr[2] = {a, b};
    void *carr[2] = {c, c};
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemmStridedBatched(NULL, T_, T_, 3, 4, 5, &alpha, a, 5, 15, b, 4, 20,
                                               &beta, c, 3, 12, 6),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    assert_int_equal(cublasGemmBatchedEx_64(NULL, N_, C_, 2, 3, 4, &alpha, arr, CUDA_C_32F, 2,
                                            arr, CUDA_C_32F, 3, &beta, carr, CUDA_C_32F, 2, 2,
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    ck_expect_delta(&t0, 0, 0, 2, 0);
    struct json_object *r = ck_report();
    ck_expect_shape(r, &(ck_want){"cublasSgemmStridedBatched", 3, 4, 5, 6, 'T', 'T', "fp32",
                                  "fp32", NULL, 0, 1, 0});
    ck_expect_shape(r, &(ck_want){"cublasGemmBatchedEx_64", 2, 3, 4, 2, 'N', 'C', "complex64",
                                  "complex64", "32F", 0, 1, 0});
    json_object_put(r);
}

static void test_grouped(void **state)
{
    (void)state;
    const float *arr[3] = {a, a, a};
    float *carr[3] = {c, c, c};
    cublasOperation_t ta[2] = {N_, T_}, tb[2] = {T_, N_};
    int64_t m[2] = {2, 3}, n[2] = {4, 5}, k[2] = {6, 7}, ld[2] = {8, 8}, size[2] = {1, 2};
    float al[2] = {1, 1}, be[2] = {0, 0};
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemmGroupedBatched_64(NULL, ta, tb, m, n, k, al, arr, ld, arr, ld, be,
                                                  carr, ld, 2, size),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    ck_expect_delta(&t0, 0, 0, 2, 0);
    struct json_object *r = ck_report();
    ck_expect_shape(r, &(ck_want){"cublasSgemmGroupedBatched_64", 2, 4, 6, 1, 'N', 'T', "fp32",
                                  "fp32", NULL, 0, 1, 0});
    ck_expect_shape(r, &(ck_want){"cublasSgemmGroupedBatched_64", 3, 5, 7, 2, 'T', 'N', "fp32",
                                  "fp32", NULL, 0, 1, 0});
    json_object_put(r);
}

/* Negative sizes go to the real library too; the record is "invalid". */
static void test_negative(void **state)
{
    (void)state;
    sgemm_fn real = (sgemm_fn)real_fn("cublasSgemm_v2");
    cublasStatus_t want = real(NULL, N_, N_, -2, 3, 4, &alpha, a, 1, b, 4, &beta, c, 1);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemm_v2(NULL, N_, N_, -2, 3, 4, &alpha, a, 1, b, 4, &beta, c, 1),
                     want);
    ck_expect_delta(&t0, 0, 0, 0, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_fails_without_gpu), cmocka_unit_test(test_plain_and_ex),
        cmocka_unit_test(test_batched), cmocka_unit_test(test_grouped),
        cmocka_unit_test(test_negative),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* test_fault_cuda_input.c - bad input to the cuBLAS and cuBLASLt hooks on
 * a machine with or without a GPU: a NULL handle, negative dimensions,
 * unknown operation and data-type values, NULL and garbage descriptors.
 * Each call's status must be exactly what the real library returns for the
 * same arguments (called directly, at its address in the library's ELF
 * symbol table: emu/real_symbol.c; dlsym on the library's handle answers
 * with the shim's hook), the process must survive, and the
 * counters must move as the rules say: unreadable or negative shapes are
 * invalid, a valid shape whose call failed is a failed call, nothing is a
 * counted success. Needs the shim preloaded. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../include/flopcount.h"
#include "emu/real_symbol.h"

static int (*snap_get)(flopcount_snapshot *);
static flopcount_snapshot before;

static int setup(void **state)
{
    (void)state;
    snap_get = (int (*)(flopcount_snapshot *))dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    return snap_get == NULL ? -1 : 0;
}

/* The library's own definition of name: RTLD_NEXT from an executable would
 * find the preloaded shim (the executable comes first, then LD_PRELOAD),
 * and dlsym on the library's handle the shim's hook. */
static void *real_fn(void *inside_lib, const char *name)
{
    Dl_info info;
    if (!dladdr(inside_lib, &info))
        return NULL;
    void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (h == NULL)
        return NULL;
    void *fn = real_symbol(h, name, NULL);
    dlclose(h); /* still loaded: the executable links it */
    return fn;
}

static void mark(void)
{
    before.size = sizeof before;
    assert_int_equal(snap_get(&before), 0);
}

static void expect_delta(uint64_t calls, uint64_t failed, uint64_t invalid)
{
    flopcount_snapshot now = {.size = sizeof now};
    assert_int_equal(snap_get(&now), 0);
    assert_int_equal(now.gemm_calls - before.gemm_calls, calls);
    assert_int_equal(now.failed_calls - before.failed_calls, failed);
    assert_int_equal(now.invalid_calls - before.invalid_calls, invalid);
}

typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                   int, const float *, const float *, int, const float *, int,
                                   const float *, float *, int);

static void sgemm_null_handle_and_bad_values(void **state)
{
    (void)state;
    sgemm_fn real = (sgemm_fn)real_fn((void *)cublasCreate, "cublasSgemm_v2");
    assert_non_null(real);
    float alpha = 1, beta = 0, a[4], b[4], c[4];
    mark();
    /* negative m: invalid; unknown op 99 with a valid shape: the NULL
     * handle makes the call fail, so a failed call. */
    cublasStatus_t s1 =
        cublasSgemm(NULL, CUBLAS_OP_N, CUBLAS_OP_N, -5, 3, 3, &alpha, a, 1, b, 1, &beta, c, 1);
    cublasStatus_t s2 = cublasSgemm(NULL, (cublasOperation_t)99, CUBLAS_OP_N, 2, 2, 2, &alpha, a, 2,
                                    b, 2, &beta, c, 2);
    expect_delta(0, 1, 1);
    assert_int_equal(
        s1, real(NULL, CUBLAS_OP_N, CUBLAS_OP_N, -5, 3, 3, &alpha, a, 1, b, 1, &beta, c, 1));
    assert_int_equal(s2, real(NULL, (cublasOperation_t)99, CUBLAS_OP_N, 2, 2, 2, &alpha, a, 2, b, 2,
                              &beta, c, 2));
    assert_int_not_equal(s1, CUBLAS_STATUS_SUCCESS);
}

typedef cublasStatus_t (*gemmex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void *, const void *, cudaDataType, int,
                                    const void *, cudaDataType, int, const void *, void *,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

static void gemmex_unknown_types(void **state)
{
    (void)state;
    gemmex_fn real = (gemmex_fn)real_fn((void *)cublasCreate, "cublasGemmEx");
    assert_non_null(real);
    float alpha = 1, beta = 0, a[4], b[4], c[4];
    mark();
    cublasStatus_t s =
        cublasGemmEx(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, a, (cudaDataType)200, 2, b,
                     (cudaDataType)201, 2, &beta, c, (cudaDataType)202, 2, (cublasComputeType_t)999,
                     (cublasGemmAlgo_t)12345);
    expect_delta(0, 1, 0);
    assert_int_equal(s, real(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &alpha, a, (cudaDataType)200,
                             2, b, (cudaDataType)201, 2, &beta, c, (cudaDataType)202, 2,
                             (cublasComputeType_t)999, (cublasGemmAlgo_t)12345));
}

typedef cublasStatus_t (*lt_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                                cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t,
                                const void *, const void *, cublasLtMatrixLayout_t, void *,
                                cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *,
                                size_t, cudaStream_t);

/* Calls cublasLtMatmul through the shim and directly; same status, and the
 * call never counts as a success. */
static void lt_both(cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                    cublasLtMatrixLayout_t lc)
{
    lt_fn real = (lt_fn)real_fn((void *)cublasLtCreate, "cublasLtMatmul");
    assert_non_null(real);
    assert_ptr_not_equal((void *)real, (void *)cublasLtMatmul);
    float alpha = 1, beta = 0, buf[16];
    cublasStatus_t s = cublasLtMatmul(NULL, d, &alpha, buf, la, buf, lb, &beta, buf, lc, buf, lc,
                                      NULL, NULL, 0, NULL);
    assert_int_equal(
        s, real(NULL, d, &alpha, buf, la, buf, lb, &beta, buf, lc, buf, lc, NULL, NULL, 0, NULL));
}

static void lt_null_descriptors_are_invalid(void **state)
{
    (void)state;
    mark();
    lt_both(NULL, NULL, NULL, NULL);
    expect_delta(0, 0, 1);
}

static void lt_unknown_transpose_is_invalid(void **state)
{
    (void)state;
    cublasLtMatmulDesc_t d;
    cublasLtMatrixLayout_t l;
    assert_int_equal(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    assert_int_equal(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 2, 2, 2), 0);
    int32_t op = 77; /* no cublasOperation_t; the setter may refuse or keep it */
    cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op);
    int32_t back = -1;
    size_t n = 0;
    cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &back, sizeof back, &n);
    mark();
    lt_both(d, l, l, l);
    /* Kept: the shape cannot be trusted, so invalid. Refused: a plain
     * 2x2x2 call that fails for want of a handle. */
    if (back == 77)
        expect_delta(0, 0, 1);
    else
        expect_delta(0, 1, 0);
    cublasLtMatrixLayoutDestroy(l);
    cublasLtMatmulDescDestroy(d);
}

static void lt_garbage_descriptors_do_not_crash(void **state)
{
    (void)state;
    /* Not descriptors at all: readable memory full of a pattern. The real
     * getters must reject it (or read nonsense that the shim refuses as
     * disagreeing layouts); either way no success, no crash. */
    static unsigned char junk[4][4096];
    memset(junk, 0xa5, sizeof junk);
    mark();
    lt_both((cublasLtMatmulDesc_t)junk[0], (cublasLtMatrixLayout_t)junk[1],
            (cublasLtMatrixLayout_t)junk[2], (cublasLtMatrixLayout_t)junk[3]);
    flopcount_snapshot now = {.size = sizeof now};
    assert_int_equal(snap_get(&now), 0);
    assert_int_equal(now.gemm_calls, before.gemm_calls);
    assert_int_equal(
        (now.failed_calls - before.failed_calls) + (now.invalid_calls - before.invalid_calls), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sgemm_null_handle_and_bad_values),
        cmocka_unit_test(gemmex_unknown_types),
        cmocka_unit_test(lt_null_descriptors_are_invalid),
        cmocka_unit_test(lt_unknown_transpose_is_invalid),
        cmocka_unit_test(lt_garbage_descriptors_do_not_crash),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_nop_cublas.c - a libcublas.so.13 whose GEMMs succeed without touching
 * memory, for test_cublas_big.c: shapes no emulation could compute (three
 * billion rows, four billion batches) still reach the shim as successful
 * calls, which is all its counting sees. */
#include <cublas_api.h>

cublasStatus_t cublasSgemm_v2_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                 int64_t m, int64_t n, int64_t k, const float *alpha,
                                 const float *A, int64_t lda, const float *B, int64_t ldb,
                                 const float *beta, float *C, int64_t ldc)
{
    (void)h, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda;
    (void)B, (void)ldb, (void)beta, (void)C, (void)ldc;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t h, cublasOperation_t ta,
                                            cublasOperation_t tb, int64_t m, int64_t n,
                                            int64_t k, const float *alpha, const float *A,
                                            int64_t lda, long long sa, const float *B,
                                            int64_t ldb, long long sb, const float *beta,
                                            float *C, int64_t ldc, long long sc, int64_t count)
{
    (void)h, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda;
    (void)sa, (void)B, (void)ldb, (void)sb, (void)beta, (void)C, (void)ldc, (void)sc;
    (void)count;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *mode)
{
    (void)h;
    *mode = CUBLAS_DEFAULT_MATH;
    return CUBLAS_STATUS_SUCCESS;
}

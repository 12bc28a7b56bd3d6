/* SPDX-License-Identifier: Apache-2.0 */
/* noop_cublas.c - a libcublas.so.13 whose cublasSgemm_v2 returns at once
 * (after --work-ns of spinning), for shim_overhead --api cublas: the cost
 * of the shim's cuBLAS hook path, where the cupti layer's one load and test
 * sits (with CUPTI absent, or loaded and idle). cublasGetMathMode is there
 * because the hook asks it whether an fp32 call ran as TF32. */
#include <cublas_api.h>

__attribute__((visibility("default"))) unsigned long noop_cublas_calls;
/* --work-ns as a count of iterations of the loop of noop_blas.c's
 * noop_blas_spin (shim_overhead calibrates it), the same CPU time per call
 * however often the thread is preempted */
__attribute__((visibility("default"))) unsigned long noop_cublas_work_iters;

static unsigned long spin(unsigned long iters)
{
    unsigned long x = iters;
    for (unsigned long i = 0; i < iters; i++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        __asm__ __volatile__("" : "+r"(x)); /* keep every iteration */
    }
    return x;
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                              int n, int k, const float *alpha, const float *A, int lda,
                              const float *B, int ldb, const float *beta, float *C, int ldc)
{
    (void)h, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)lda;
    (void)B, (void)ldb, (void)beta, (void)C, (void)ldc;
    noop_cublas_calls++;
    if (noop_cublas_work_iters)
        spin(noop_cublas_work_iters);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *mode)
{
    (void)h;
    *mode = CUBLAS_DEFAULT_MATH;
    return CUBLAS_STATUS_SUCCESS;
}

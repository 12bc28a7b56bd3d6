/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_cublas_over_lt.c - a libcublas.so.13 whose cublasSgemm_v2 runs on
 * cuBLASLt: it describes the GEMM with cuBLASLt descriptors and calls
 * cublasLtMatmul through the PLT, as the real libcublas does on some paths.
 * Linked against the cuBLASLt emulation (tests/emu/cublaslt_emu.c), so the
 * arithmetic is real. A program that reaches this cublasSgemm_v2 through
 * dlsym must see one counted GEMM, not two.
 *
 * Only what that needs: cublasCreate_v2, cublasDestroy_v2,
 * cublasGetMathMode (always the default mode) and cublasSgemm_v2. */
#include <cublasLt.h>
#include <cublas_api.h>
#include <stdlib.h>

struct cublasContext {
    cublasLtHandle_t lt;
};

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (handle == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasHandle_t h = calloc(1, sizeof *h);
    if (h == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasStatus_t st = cublasLtCreate(&h->lt);
    if (st != CUBLAS_STATUS_SUCCESS) {
        free(h);
        return st;
    }
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (handle == NULL)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasLtDestroy(handle->lt);
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (handle == NULL || mode == NULL)
        return handle == NULL ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_INVALID_VALUE;
    *mode = CUBLAS_DEFAULT_MATH;
    return CUBLAS_STATUS_SUCCESS;
}

/* op(X) is rows x cols; stored X is its transpose when op is not N. */
static cublasStatus_t layout(cublasLtMatrixLayout_t *l, cublasOperation_t op, int rows, int cols,
                             int ld)
{
    int n = op == CUBLAS_OP_N;
    return cublasLtMatrixLayoutCreate(l, CUDA_R_32F, (uint64_t)(n ? rows : cols),
                                      (uint64_t)(n ? cols : rows), ld);
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                              int m, int n, int k, const float *alpha, const float *A, int lda,
                              const float *B, int ldb, const float *beta, float *C, int ldc)
{
    if (handle == NULL)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasLtMatmulDesc_t desc = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    int32_t opa = ta, opb = tb;
    cublasStatus_t st = cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = layout(&la, ta, m, k, lda);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = layout(&lb, tb, k, n, ldb);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = layout(&lc, CUBLAS_OP_N, m, n, ldc);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmul(handle->lt, desc, alpha, A, la, B, lb, beta, C, lc, C, lc, NULL, NULL,
                            0, 0);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatmulDescDestroy(desc);
    return st;
}

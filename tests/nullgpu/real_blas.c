/* SPDX-License-Identifier: Apache-2.0 */
/* real_blas.c - the toolkit's real libcublas.so.13 and libcublasLt.so.13
 * (linked, with the real libcudart.so.13) on the null GPU: every call
 * returns success, cuBLASLt's heuristics find algorithms for an sm_90
 * device, and the preloaded shim counts each GEMM; nullgpu.cmake checks
 * the report against the FLOPs worked out here:
 *   cublasSgemm_v2 64x64x64, twice (default math, then TF32): 2*64^3 = 524,288 each
 *   cublasGemmEx 64x64x64 fp16 and bf16: 524,288 each
 *   cublasSgemmStridedBatched 32x32x32 x 4: 2*32^3*4 = 262,144
 *   cublasLtMatmul bf16 128x256x64 with a bias epilogue: 2*128*256*64 = 4,194,304
 *   total 6 GEMMs, 6,553,600 FLOPs (cublasSnrm2 / cublasSaxpy are not GEMMs).
 * Exit status: the number of calls that did not succeed. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

#define CALL(x) bad += (x) != 0 ? (fprintf(stderr, "failed: %s\n", #x), 1) : 0

int main(void)
{
    int bad = 0;
    cublasHandle_t h;
    float *A, *B, *C, a = 1, b = 0, r;
    CALL(cublasCreate(&h));
    CALL(cudaMalloc((void **)&A, 1 << 20));
    CALL(cudaMalloc((void **)&B, 1 << 20));
    CALL(cudaMalloc((void **)&C, 1 << 20));
    CALL(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &a, A, 64, B, 64, &b, C, 64));
    CALL(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    CALL(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, 64, 64, 64, &a, A, 64, B, 64, &b, C, 64));
    CALL(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &a, A, CUDA_R_16F, 64, B, CUDA_R_16F, 64, &b,
                      C, CUDA_R_16F, 64, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CALL(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 64, 64, 64, &a, A, CUDA_R_16BF, 64, B, CUDA_R_16BF, 64,
                      &b, C, CUDA_R_32F, 64, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CALL(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 32, 32, 32, &a, A, 32, 1024, B, 32, 1024, &b,
                                   C, 32, 1024, 4));
    CALL(cublasSnrm2(h, 64, A, 1, &r));
    CALL(cublasSaxpy(h, 64, &a, A, 1, C, 1));

    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulPreference_t pref;
    cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_BIAS;
    void *bias = C, *ws = NULL;
    size_t wsize = 1 << 22;
    CALL(cublasLtCreate(&lt));
    CALL(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CALL(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep));
    CALL(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    CALL(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, 128, 64, 128));
    CALL(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, 64, 256, 64));
    CALL(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, 128, 256, 128));
    CALL(cublasLtMatmulPreferenceCreate(&pref));
    CALL(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsize,
                                              sizeof wsize));
    cublasLtMatmulHeuristicResult_t res[8];
    int n = 0;
    CALL(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 8, res, &n));
    CALL(cudaMalloc(&ws, wsize));
    if (n == 0) {
        fprintf(stderr, "cuBLASLt heuristics found no algorithm\n");
        bad++;
    } else {
        CALL(cublasLtMatmul(lt, op, &a, A, la, B, lb, &b, C, lc, C, lc, &res[0].algo, ws, wsize, 0));
    }
    CALL(cudaDeviceSynchronize());
    printf("%d heuristic algorithms; %d calls failed\n", n, bad);
    return bad;
}

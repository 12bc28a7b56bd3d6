/* SPDX-License-Identifier: Apache-2.0 */
/* api.c - the exported name of each interposed entry point. */
#include "shim.h"

static const char *const names[FC_API_COUNT][2] = {
    [FC_API_UNKNOWN] = {"unknown", "unknown"},
    [FC_API_CUBLAS_SGEMM] = {"cublasSgemm_v2", "cublasSgemm_v2_64"},
    [FC_API_CUBLAS_DGEMM] = {"cublasDgemm_v2", "cublasDgemm_v2_64"},
    [FC_API_CUBLAS_CGEMM] = {"cublasCgemm_v2", "cublasCgemm_v2_64"},
    [FC_API_CUBLAS_ZGEMM] = {"cublasZgemm_v2", "cublasZgemm_v2_64"},
    [FC_API_CUBLAS_HGEMM] = {"cublasHgemm", "cublasHgemm_64"},
    [FC_API_CUBLAS_SGEMMEX] = {"cublasSgemmEx", "cublasSgemmEx_64"},
    [FC_API_CUBLAS_CGEMMEX] = {"cublasCgemmEx", "cublasCgemmEx_64"},
    [FC_API_CUBLAS_GEMMEX] = {"cublasGemmEx", "cublasGemmEx_64"},
    [FC_API_CUBLAS_CGEMM3M] = {"cublasCgemm3m", "cublasCgemm3m_64"},
    [FC_API_CUBLAS_CGEMM3MEX] = {"cublasCgemm3mEx", "cublasCgemm3mEx_64"},
    [FC_API_CUBLAS_ZGEMM3M] = {"cublasZgemm3m", "cublasZgemm3m_64"},
    [FC_API_CUBLAS_HGEMM_BATCHED] = {"cublasHgemmBatched", "cublasHgemmBatched_64"},
    [FC_API_CUBLAS_SGEMM_BATCHED] = {"cublasSgemmBatched", "cublasSgemmBatched_64"},
    [FC_API_CUBLAS_DGEMM_BATCHED] = {"cublasDgemmBatched", "cublasDgemmBatched_64"},
    [FC_API_CUBLAS_CGEMM_BATCHED] = {"cublasCgemmBatched", "cublasCgemmBatched_64"},
    [FC_API_CUBLAS_ZGEMM_BATCHED] = {"cublasZgemmBatched", "cublasZgemmBatched_64"},
    [FC_API_CUBLAS_CGEMM3M_BATCHED] = {"cublasCgemm3mBatched", "cublasCgemm3mBatched_64"},
    [FC_API_CUBLAS_GEMM_BATCHED_EX] = {"cublasGemmBatchedEx", "cublasGemmBatchedEx_64"},
    [FC_API_CUBLAS_HGEMM_STRIDED] = {"cublasHgemmStridedBatched", "cublasHgemmStridedBatched_64"},
    [FC_API_CUBLAS_SGEMM_STRIDED] = {"cublasSgemmStridedBatched", "cublasSgemmStridedBatched_64"},
    [FC_API_CUBLAS_DGEMM_STRIDED] = {"cublasDgemmStridedBatched", "cublasDgemmStridedBatched_64"},
    [FC_API_CUBLAS_CGEMM_STRIDED] = {"cublasCgemmStridedBatched", "cublasCgemmStridedBatched_64"},
    [FC_API_CUBLAS_ZGEMM_STRIDED] = {"cublasZgemmStridedBatched", "cublasZgemmStridedBatched_64"},
    [FC_API_CUBLAS_CGEMM3M_STRIDED] = {"cublasCgemm3mStridedBatched",
                                       "cublasCgemm3mStridedBatched_64"},
    [FC_API_CUBLAS_GEMM_STRIDED_EX] = {"cublasGemmStridedBatchedEx", "cublasGemmStridedBatchedEx_64"},
    [FC_API_CUBLAS_SGEMM_GROUPED] = {"cublasSgemmGroupedBatched", "cublasSgemmGroupedBatched_64"},
    [FC_API_CUBLAS_DGEMM_GROUPED] = {"cublasDgemmGroupedBatched", "cublasDgemmGroupedBatched_64"},
    [FC_API_CUBLAS_GEMM_GROUPED_EX] = {"cublasGemmGroupedBatchedEx", "cublasGemmGroupedBatchedEx_64"},
    [FC_API_CUBLASLT_MATMUL] = {"cublasLtMatmul", "cublasLtMatmul"},
    [FC_API_BLAS_SGEMM] = {"sgemm_", "sgemm_"},
    [FC_API_BLAS_DGEMM] = {"dgemm_", "dgemm_"},
    [FC_API_BLAS_CGEMM] = {"cgemm_", "cgemm_"},
    [FC_API_BLAS_ZGEMM] = {"zgemm_", "zgemm_"},
    [FC_API_CBLAS_SGEMM] = {"cblas_sgemm", "cblas_sgemm"},
    [FC_API_CBLAS_DGEMM] = {"cblas_dgemm", "cblas_dgemm"},
    [FC_API_CBLAS_CGEMM] = {"cblas_cgemm", "cblas_cgemm"},
    [FC_API_CBLAS_ZGEMM] = {"cblas_zgemm", "cblas_zgemm"},
};

const char *fc_api_name(int api, int is64)
{
    if (api <= 0 || api >= FC_API_COUNT || names[api][0] == NULL)
        return "unknown";
    return names[api][is64 ? 1 : 0];
}

/* SPDX-License-Identifier: Apache-2.0 */
/* api_list.h - the one table of interposed GEMM entry point families: id,
 * exported name, name of the _64 twin (the same name where there is none).
 * api.h turns it into enum fc_api and api.c into fc_api_name(); the report's
 * "by_api" keys are these names. Order matters: every GPU id (cuBLAS,
 * cuBLASLt, cuDNN's plain matmul graphs) comes before FC_API_BLAS_SGEMM
 * (fc_api_is_gpu). CUDNN_MATMUL is not an exported name: it labels the
 * matmul nodes of an executed cuDNN plan (shim/hooks/cudnn.c); nor is
 * CUBLASLT_GROUPED_READ: the groups of a cuBLASLt grouped call whose sizes
 * were read from device memory (--read-device-sizes; ring/devread.c), nor
 * CUTLASS_GROUPED_READ, those of a CUTLASS 3 grouped kernel's launch
 * (launch/cutlass_grouped.c). */
#define FC_API_LIST(X)                                                                              \
    X(CUBLAS_SGEMM, "cublasSgemm_v2", "cublasSgemm_v2_64")                                          \
    X(CUBLAS_DGEMM, "cublasDgemm_v2", "cublasDgemm_v2_64")                                          \
    X(CUBLAS_CGEMM, "cublasCgemm_v2", "cublasCgemm_v2_64")                                          \
    X(CUBLAS_ZGEMM, "cublasZgemm_v2", "cublasZgemm_v2_64")                                          \
    X(CUBLAS_HGEMM, "cublasHgemm", "cublasHgemm_64")                                                \
    X(CUBLAS_SGEMMEX, "cublasSgemmEx", "cublasSgemmEx_64")                                          \
    X(CUBLAS_CGEMMEX, "cublasCgemmEx", "cublasCgemmEx_64")                                          \
    X(CUBLAS_GEMMEX, "cublasGemmEx", "cublasGemmEx_64")                                             \
    X(CUBLAS_CGEMM3M, "cublasCgemm3m", "cublasCgemm3m_64")                                          \
    X(CUBLAS_CGEMM3MEX, "cublasCgemm3mEx", "cublasCgemm3mEx_64")                                    \
    X(CUBLAS_ZGEMM3M, "cublasZgemm3m", "cublasZgemm3m_64")                                          \
    X(CUBLAS_HGEMM_BATCHED, "cublasHgemmBatched", "cublasHgemmBatched_64")                          \
    X(CUBLAS_SGEMM_BATCHED, "cublasSgemmBatched", "cublasSgemmBatched_64")                          \
    X(CUBLAS_DGEMM_BATCHED, "cublasDgemmBatched", "cublasDgemmBatched_64")                          \
    X(CUBLAS_CGEMM_BATCHED, "cublasCgemmBatched", "cublasCgemmBatched_64")                          \
    X(CUBLAS_ZGEMM_BATCHED, "cublasZgemmBatched", "cublasZgemmBatched_64")                          \
    X(CUBLAS_CGEMM3M_BATCHED, "cublasCgemm3mBatched", "cublasCgemm3mBatched_64")                    \
    X(CUBLAS_GEMM_BATCHED_EX, "cublasGemmBatchedEx", "cublasGemmBatchedEx_64")                      \
    X(CUBLAS_HGEMM_STRIDED, "cublasHgemmStridedBatched", "cublasHgemmStridedBatched_64")            \
    X(CUBLAS_SGEMM_STRIDED, "cublasSgemmStridedBatched", "cublasSgemmStridedBatched_64")            \
    X(CUBLAS_DGEMM_STRIDED, "cublasDgemmStridedBatched", "cublasDgemmStridedBatched_64")            \
    X(CUBLAS_CGEMM_STRIDED, "cublasCgemmStridedBatched", "cublasCgemmStridedBatched_64")            \
    X(CUBLAS_ZGEMM_STRIDED, "cublasZgemmStridedBatched", "cublasZgemmStridedBatched_64")            \
    X(CUBLAS_CGEMM3M_STRIDED, "cublasCgemm3mStridedBatched", "cublasCgemm3mStridedBatched_64")      \
    X(CUBLAS_GEMM_STRIDED_EX, "cublasGemmStridedBatchedEx", "cublasGemmStridedBatchedEx_64")        \
    X(CUBLAS_SGEMM_GROUPED, "cublasSgemmGroupedBatched", "cublasSgemmGroupedBatched_64")            \
    X(CUBLAS_DGEMM_GROUPED, "cublasDgemmGroupedBatched", "cublasDgemmGroupedBatched_64")            \
    X(CUBLAS_GEMM_GROUPED_EX, "cublasGemmGroupedBatchedEx", "cublasGemmGroupedBatchedEx_64")        \
    X(CUBLASLT_MATMUL, "cublasLtMatmul", "cublasLtMatmul")                                          \
    X(CUDNN_MATMUL, "cudnnBackendExecute:matmul", "cudnnBackendExecute:matmul")                     \
    X(CUBLASLT_GROUPED_READ, "cublasLtMatmul:grouped_read_from_device",                             \
      "cublasLtMatmul:grouped_read_from_device")                                                    \
    X(CUTLASS_GROUPED_READ, "cutlass:grouped_read_from_device", "cutlass:grouped_read_from_device") \
    X(BLAS_SGEMM, "sgemm_", "sgemm_")                                                               \
    X(BLAS_DGEMM, "dgemm_", "dgemm_")                                                               \
    X(BLAS_CGEMM, "cgemm_", "cgemm_")                                                               \
    X(BLAS_ZGEMM, "zgemm_", "zgemm_")                                                               \
    X(CBLAS_SGEMM, "cblas_sgemm", "cblas_sgemm")                                                    \
    X(CBLAS_DGEMM, "cblas_dgemm", "cblas_dgemm")                                                    \
    X(CBLAS_CGEMM, "cblas_cgemm", "cblas_cgemm")                                                    \
    X(CBLAS_ZGEMM, "cblas_zgemm", "cblas_zgemm")

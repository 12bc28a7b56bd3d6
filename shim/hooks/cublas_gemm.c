/* SPDX-License-Identifier: Apache-2.0 */
/* cublas_gemm.c - hooks for the single-GEMM cuBLAS entry points: the typed
 * cublas{S,D,C,Z}gemm_v2 and cublasHgemm, the Ex forms (cublasSgemmEx,
 * cublasCgemmEx, cublasGemmEx), the 3m forms, and every _64 twin; plus the
 * helpers the batched hooks (cublas_batched.c) share.
 *
 * Each hook forwards first and describes the call afterwards, so the real
 * function always runs with exactly the caller's arguments and its status
 * is returned unchanged. The legacy handle-less cublasSgemm & co. (another
 * signature, same library) are deliberately not defined here. */
#include <cublas_api.h>
#include <stddef.h>

#include "cublas.h"

/* cuda_fp16.h gives C no __half; only pointers to it cross the ABI, and a
 * pointer to a 16-bit object is a pointer on every ABI we run on. */
typedef uint16_t fc_half;

char fc_cublas_op(int op)
{
    switch (op) {
    case CUBLAS_OP_N: return 'N';
    case CUBLAS_OP_T: return 'T';
    case CUBLAS_OP_C: return 'C';
    default: return '?';
    }
}

int fc_cublas_dtype(int cuda_type)
{
    int dt = fc_dtype_from_cuda(cuda_type);
    if (dt != FC_DT_UNKNOWN)
        return dt;
    switch (cuda_type) { /* complex types without an fc_dtype of their own */
    case CUDA_C_16F: case CUDA_C_16BF: case CUDA_C_8I: case CUDA_C_8U:
    case CUDA_C_32I: case CUDA_C_32U:
        return FC_DT_COMPLEX64;
    default:
        return FC_DT_UNKNOWN;
    }
}

typedef cublasStatus_t (*get_math_mode_fn)(cublasHandle_t, cublasMath_t *);

/* The handle's math mode (low nibble), or -1 when it cannot be asked. */
static int math_mode(fc_copy *cp, const void *handle)
{
    if (handle == NULL)
        return -1;
    FC_COPY_REAL(cp, get_math_mode_fn, cublasGetMathMode, FC_SYM_CUBLAS_GET_MATH_MODE);
    if (fn_cublasGetMathMode == NULL)
        return -1;
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if (fn_cublasGetMathMode((cublasHandle_t)handle, &mode) != CUBLAS_STATUS_SUCCESS)
        return -1;
    /* 16 (DISALLOW_REDUCED_PRECISION_REDUCTION) is a flag above the mode. */
    return (int)mode & 0xf;
}

int fc_cublas_fp32_runs_as(fc_copy *cp, const void *handle, int compute)
{
    /* FAST_16F/16BF let cuBLAS down-convert to fp16/bf16 or TF32 at its
     * choice; the 16-bit rate is the faster, so its peak is the one no
     * run can beat (the fp32 figure is the rate of neither choice). */
    if (compute == CUBLAS_COMPUTE_32F_FAST_TF32)
        return FC_DT_TF32;
    if (compute == CUBLAS_COMPUTE_32F_FAST_16F)
        return FC_DT_FP16;
    if (compute == CUBLAS_COMPUTE_32F_FAST_16BF)
        return FC_DT_BF16;
    /* PEDANTIC and EMULATED_16BFX9 override the math mode; only the
     * default fp32 compute type (or none, -1) follows it. */
    if (compute != -1 && compute != CUBLAS_COMPUTE_32F)
        return FC_DT_FP32;
    switch (math_mode(cp, handle)) {
    case CUBLAS_TF32_TENSOR_OP_MATH: return FC_DT_TF32;
    case CUBLAS_TENSOR_OP_MATH: return FC_DT_FP16; /* cublas_api.h: as 32F_FAST_16F */
    default: return FC_DT_FP32;
    }
}

void fc_cublas_finish(fc_copy *cp, int outer, fc_gemm *g, int status, const void *handle)
{
    int ok = status == CUBLAS_STATUS_SUCCESS;
    if (outer && ok && g->dtype == FC_DT_FP32) {
        int saved = errno;
        g->dtype = (uint8_t)fc_cublas_fp32_runs_as(cp, handle, g->compute);
        errno = saved;
    }
    g->stream_handle = handle; /* its stream is read only if an event is recorded */
    g->stream_kind = FC_STREAM_CUBLAS_HANDLE;
    g->copy = (uint8_t)fc_copy_index(cp);
    fc_hook_end_gpu(outer, g, ok);
}

/* The shape part of an fc_gemm every hook fills the same way. */
#define FC_CUBLAS_SHAPE(API, FLAGS, ta, tb, m, n, k)                                      \
    .api = (API), .flags = (FLAGS), .transa = fc_cublas_op(ta),                           \
    .transb = fc_cublas_op(tb), .m = (m), .n = (n), .k = (k), .batch = 1

/* Typed GEMM: T is the element type of alpha, A, B, beta and C; I is int
 * (32-bit entry point) or int64_t (the _64 twin). */
#define FC_TYPED_PARAMS(T, I)                                                             \
    (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,         \
     const T *alpha, const T *A, I lda, const T *B, I ldb, const T *beta, T *C, I ldc)
#define FC_TYPED_ARGS (h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)

#define FC_CUBLAS_TYPED(sym, T, I, API, FLAGS, DT)                                        \
    typedef cublasStatus_t(*sym##_fn) FC_TYPED_PARAMS(T, I);                              \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_TYPED_PARAMS(T, I))                              \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(API, FLAGS), API);                             \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,  \
                                     ldc);                                                \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {FC_CUBLAS_SHAPE(API, FLAGS, ta, tb, m, n, k), .dtype = (DT),         \
                     .out_dtype = (DT), .compute = -1, .a = A, .b = B, .c = C};           \
        fc_cublas_finish(cp, outer, &g, st, h);                                           \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS, FC_SYM_OF(API, FLAGS),     \
                   FC_TYPED_PARAMS(T, I), FC_TYPED_ARGS)

#define FC_CUBLAS_TYPED_PAIR(sym, T, API, DT)                                             \
    FC_CUBLAS_TYPED(sym, T, int, API, 0, DT)                                              \
    FC_CUBLAS_TYPED(sym##_64, T, int64_t, API, FC_API_64, DT)

FC_CUBLAS_TYPED_PAIR(cublasSgemm_v2, float, FC_API_CUBLAS_SGEMM, FC_DT_FP32)
FC_CUBLAS_TYPED_PAIR(cublasDgemm_v2, double, FC_API_CUBLAS_DGEMM, FC_DT_FP64)
FC_CUBLAS_TYPED_PAIR(cublasCgemm_v2, cuComplex, FC_API_CUBLAS_CGEMM, FC_DT_COMPLEX64)
FC_CUBLAS_TYPED_PAIR(cublasZgemm_v2, cuDoubleComplex, FC_API_CUBLAS_ZGEMM, FC_DT_COMPLEX128)
FC_CUBLAS_TYPED_PAIR(cublasHgemm, fc_half, FC_API_CUBLAS_HGEMM, FC_DT_FP16)
/* 3m: fewer real multiplies inside, but we count the FLOPs a complex GEMM
 * means (8*m*n*k), so the same work reads the same whichever kernel ran. */
FC_CUBLAS_TYPED_PAIR(cublasCgemm3m, cuComplex, FC_API_CUBLAS_CGEMM3M, FC_DT_COMPLEX64)
FC_CUBLAS_TYPED_PAIR(cublasZgemm3m, cuDoubleComplex, FC_API_CUBLAS_ZGEMM3M, FC_DT_COMPLEX128)

/* Ex with an implicit compute type: cublasSgemmEx (fp32), cublasCgemmEx and
 * cublasCgemm3mEx (complex fp32). S is the type of alpha and beta; COMPLEX
 * says the GEMM is complex whatever Atype (C_8I inputs are legal). */
#define FC_EX_IMPLICIT_PARAMS(S, I)                                                       \
    (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,         \
     const S *alpha, const void *A, cudaDataType Atype, I lda, const void *B,             \
     cudaDataType Btype, I ldb, const S *beta, void *C, cudaDataType Ctype, I ldc)
#define FC_EX_IMPLICIT_ARGS                                                               \
    (h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc)

#define FC_CUBLAS_EX_IMPLICIT(sym, S, I, API, FLAGS, COMPLEX)                             \
    typedef cublasStatus_t(*sym##_fn) FC_EX_IMPLICIT_PARAMS(S, I);                        \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_EX_IMPLICIT_PARAMS(S, I))                        \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(API, FLAGS), API);                             \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype,  \
                                     ldb, beta, C, Ctype, ldc);                           \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {FC_CUBLAS_SHAPE(API, FLAGS, ta, tb, m, n, k),                        \
                     .dtype = (uint8_t)fc_cublas_dtype(Atype),                            \
                     .out_dtype = (uint8_t)fc_cublas_dtype(Ctype),                        \
                     .compute = CUBLAS_COMPUTE_32F, .a = A, .b = B, .c = C};              \
        if ((COMPLEX) && !fc_dtype_is_complex(g.dtype))                                   \
            g.dtype = FC_DT_COMPLEX64;                                                    \
        fc_cublas_finish(cp, outer, &g, st, h);                                           \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS, FC_SYM_OF(API, FLAGS),     \
                   FC_EX_IMPLICIT_PARAMS(S, I), FC_EX_IMPLICIT_ARGS)

#define FC_CUBLAS_EX_IMPLICIT_PAIR(sym, S, API, COMPLEX)                                  \
    FC_CUBLAS_EX_IMPLICIT(sym, S, int, API, 0, COMPLEX)                                   \
    FC_CUBLAS_EX_IMPLICIT(sym##_64, S, int64_t, API, FC_API_64, COMPLEX)

FC_CUBLAS_EX_IMPLICIT_PAIR(cublasSgemmEx, float, FC_API_CUBLAS_SGEMMEX, 0)
FC_CUBLAS_EX_IMPLICIT_PAIR(cublasCgemmEx, cuComplex, FC_API_CUBLAS_CGEMMEX, 1)
FC_CUBLAS_EX_IMPLICIT_PAIR(cublasCgemm3mEx, cuComplex, FC_API_CUBLAS_CGEMM3MEX, 1)

/* cublasGemmEx: operand types and the compute type are arguments. */
#define FC_GEMMEX_PARAMS(I)                                                               \
    (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,         \
     const void *alpha, const void *A, cudaDataType Atype, I lda, const void *B,          \
     cudaDataType Btype, I ldb, const void *beta, void *C, cudaDataType Ctype, I ldc,     \
     cublasComputeType_t compute, cublasGemmAlgo_t algo)
#define FC_GEMMEX_ARGS                                                                    \
    (h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,        \
     compute, algo)

#define FC_CUBLAS_GEMMEX(sym, I, FLAGS)                                                   \
    typedef cublasStatus_t(*sym##_fn) FC_GEMMEX_PARAMS(I);                                \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_GEMMEX_PARAMS(I))                                \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(FC_API_CUBLAS_GEMMEX, FLAGS),                  \
                        FC_API_CUBLAS_GEMMEX);                                            \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype,  \
                                     ldb, beta, C, Ctype, ldc, compute, algo);            \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {FC_CUBLAS_SHAPE(FC_API_CUBLAS_GEMMEX, FLAGS, ta, tb, m, n, k),       \
                     .dtype = (uint8_t)fc_cublas_dtype(Atype),                            \
                     .out_dtype = (uint8_t)fc_cublas_dtype(Ctype),                        \
                     .compute = (int16_t)compute, .a = A, .b = B, .c = C};                \
        fc_cublas_finish(cp, outer, &g, st, h);                                           \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS,                            \
                   FC_SYM_OF(FC_API_CUBLAS_GEMMEX, FLAGS), FC_GEMMEX_PARAMS(I),           \
                   FC_GEMMEX_ARGS)

FC_CUBLAS_GEMMEX(cublasGemmEx, int, 0)
FC_CUBLAS_GEMMEX(cublasGemmEx_64, int64_t, FC_API_64)

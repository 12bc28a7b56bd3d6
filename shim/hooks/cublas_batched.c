/* SPDX-License-Identifier: Apache-2.0 */
/* cublas_batched.c - hooks for the cuBLAS entry points that run many GEMMs
 * in one call: cublas?gemmBatched (arrays of pointers), cublas?gemmStrided-
 * Batched (one pointer and a stride), cublas?gemmGroupedBatched (groups of
 * problems, each group its own shape), their Ex and 3m forms and every _64
 * twin.
 *
 * Batched and strided calls are one record with batch = batchCount. A
 * grouped call is one record per group with batch = group_size[i], so its
 * FLOPs are the sum over groups of group_size * 2*m*n*k. Arrays of device
 * pointers are never read: their own address stands for the operands. The
 * per-group shape arrays of a grouped call are host memory and are read
 * after the real call, as cuBLAS itself reads them. */
#include <cublas_api.h>
#include <stddef.h>

#include "cublas.h"
#include "probe/grouped_log.h"

typedef uint16_t fc_half; /* see cublas_gemm.c: only pointers to it cross the ABI */

#define FC_CUBLAS_SHAPE(API, FLAGS, ta, tb, m, n, k, count)                               \
    .api = (API), .flags = (FLAGS), .transa = fc_cublas_op(ta),                           \
    .transb = fc_cublas_op(tb), .m = (m), .n = (n), .k = (k), .batch = (count)

/* ---- arrays of pointers ---- */

#define FC_BATCHED_PARAMS(T, I)                                                           \
    (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,         \
     const T *alpha, const T *const A[], I lda, const T *const B[], I ldb, const T *beta, \
     T *const C[], I ldc, I count)
#define FC_BATCHED_ARGS (h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count)

#define FC_CUBLAS_BATCHED(sym, T, I, API, FLAGS, DT)                                      \
    typedef cublasStatus_t(*sym##_fn) FC_BATCHED_PARAMS(T, I);                            \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_BATCHED_PARAMS(T, I))                            \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(API, FLAGS), API);                             \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,  \
                                     ldc, count);                                         \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {FC_CUBLAS_SHAPE(API, FLAGS, ta, tb, m, n, k, count), .dtype = (DT),  \
                     .out_dtype = (DT), .compute = -1, .a = A, .b = B, .c = C};           \
        fc_cublas_finish(cp, outer, &g, st, h);                                           \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS, FC_SYM_OF(API, FLAGS),     \
                   FC_BATCHED_PARAMS(T, I), FC_BATCHED_ARGS)

#define FC_CUBLAS_BATCHED_PAIR(sym, T, API, DT)                                           \
    FC_CUBLAS_BATCHED(sym, T, int, API, 0, DT)                                            \
    FC_CUBLAS_BATCHED(sym##_64, T, int64_t, API, FC_API_64, DT)

FC_CUBLAS_BATCHED_PAIR(cublasHgemmBatched, fc_half, FC_API_CUBLAS_HGEMM_BATCHED, FC_DT_FP16)
FC_CUBLAS_BATCHED_PAIR(cublasSgemmBatched, float, FC_API_CUBLAS_SGEMM_BATCHED, FC_DT_FP32)
FC_CUBLAS_BATCHED_PAIR(cublasDgemmBatched, double, FC_API_CUBLAS_DGEMM_BATCHED, FC_DT_FP64)
FC_CUBLAS_BATCHED_PAIR(cublasCgemmBatched, cuComplex, FC_API_CUBLAS_CGEMM_BATCHED,
                       FC_DT_COMPLEX64)
FC_CUBLAS_BATCHED_PAIR(cublasZgemmBatched, cuDoubleComplex, FC_API_CUBLAS_ZGEMM_BATCHED,
                       FC_DT_COMPLEX128)
FC_CUBLAS_BATCHED_PAIR(cublasCgemm3mBatched, cuComplex, FC_API_CUBLAS_CGEMM3M_BATCHED,
                       FC_DT_COMPLEX64)

#define FC_BATCHED_EX_PARAMS(I)                                                           \
    (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,         \
     const void *alpha, const void *const A[], cudaDataType Atype, I lda,                 \
     const void *const B[], cudaDataType Btype, I ldb, const void *beta, void *const C[], \
     cudaDataType Ctype, I ldc, I count, cublasComputeType_t compute,                     \
     cublasGemmAlgo_t algo)
#define FC_BATCHED_EX_ARGS                                                                \
    (h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, count, \
     compute, algo)

#define FC_CUBLAS_BATCHED_EX(sym, I, FLAGS)                                               \
    typedef cublasStatus_t(*sym##_fn) FC_BATCHED_EX_PARAMS(I);                            \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_BATCHED_EX_PARAMS(I))                            \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(FC_API_CUBLAS_GEMM_BATCHED_EX, FLAGS),         \
                        FC_API_CUBLAS_GEMM_BATCHED_EX);                                   \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype,  \
                                     ldb, beta, C, Ctype, ldc, count, compute, algo);     \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {FC_CUBLAS_SHAPE(FC_API_CUBLAS_GEMM_BATCHED_EX, FLAGS, ta, tb, m, n,  \
                                     k, count),                                           \
                     .dtype = (uint8_t)fc_cublas_dtype(Atype),                            \
                     .out_dtype = (uint8_t)fc_cublas_dtype(Ctype),                        \
                     .compute = (int16_t)compute, .a = A, .b = B, .c = C};                \
        fc_cublas_finish(cp, outer, &g, st, h);                                           \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS,                            \
                   FC_SYM_OF(FC_API_CUBLAS_GEMM_BATCHED_EX, FLAGS), FC_BATCHED_EX_PARAMS(I), \
                   FC_BATCHED_EX_ARGS)

FC_CUBLAS_BATCHED_EX(cublasGemmBatchedEx, int, 0)
FC_CUBLAS_BATCHED_EX(cublasGemmBatchedEx_64, int64_t, FC_API_64)

/* ---- one pointer and a stride per operand ---- */

#define FC_STRIDED_PARAMS(T, I)                                                           \
    (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,         \
     const T *alpha, const T *A, I lda, long long sa, const T *B, I ldb, long long sb,    \
     const T *beta, T *C, I ldc, long long sc, I count)
#define FC_STRIDED_ARGS                                                                   \
    (h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count)

#define FC_CUBLAS_STRIDED(sym, T, I, API, FLAGS, DT)                                      \
    typedef cublasStatus_t(*sym##_fn) FC_STRIDED_PARAMS(T, I);                            \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_STRIDED_PARAMS(T, I))                            \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(API, FLAGS), API);                             \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb,   \
                                     beta, C, ldc, sc, count);                            \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {FC_CUBLAS_SHAPE(API, FLAGS, ta, tb, m, n, k, count), .dtype = (DT),  \
                     .out_dtype = (DT), .compute = -1, .a = A, .b = B, .c = C};           \
        fc_cublas_finish(cp, outer, &g, st, h);                                           \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS, FC_SYM_OF(API, FLAGS),     \
                   FC_STRIDED_PARAMS(T, I), FC_STRIDED_ARGS)

#define FC_CUBLAS_STRIDED_PAIR(sym, T, API, DT)                                           \
    FC_CUBLAS_STRIDED(sym, T, int, API, 0, DT)                                            \
    FC_CUBLAS_STRIDED(sym##_64, T, int64_t, API, FC_API_64, DT)

FC_CUBLAS_STRIDED_PAIR(cublasHgemmStridedBatched, fc_half, FC_API_CUBLAS_HGEMM_STRIDED,
                       FC_DT_FP16)
FC_CUBLAS_STRIDED_PAIR(cublasSgemmStridedBatched, float, FC_API_CUBLAS_SGEMM_STRIDED,
                       FC_DT_FP32)
FC_CUBLAS_STRIDED_PAIR(cublasDgemmStridedBatched, double, FC_API_CUBLAS_DGEMM_STRIDED,
                       FC_DT_FP64)
FC_CUBLAS_STRIDED_PAIR(cublasCgemmStridedBatched, cuComplex, FC_API_CUBLAS_CGEMM_STRIDED,
                       FC_DT_COMPLEX64)
FC_CUBLAS_STRIDED_PAIR(cublasZgemmStridedBatched, cuDoubleComplex,
                       FC_API_CUBLAS_ZGEMM_STRIDED, FC_DT_COMPLEX128)
FC_CUBLAS_STRIDED_PAIR(cublasCgemm3mStridedBatched, cuComplex, FC_API_CUBLAS_CGEMM3M_STRIDED,
                       FC_DT_COMPLEX64)

#define FC_STRIDED_EX_PARAMS(I)                                                           \
    (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, I n, I k,         \
     const void *alpha, const void *A, cudaDataType Atype, I lda, long long sa,           \
     const void *B, cudaDataType Btype, I ldb, long long sb, const void *beta, void *C,   \
     cudaDataType Ctype, I ldc, long long sc, I count, cublasComputeType_t compute,       \
     cublasGemmAlgo_t algo)
#define FC_STRIDED_EX_ARGS                                                                \
    (h, ta, tb, m, n, k, alpha, A, Atype, lda, sa, B, Btype, ldb, sb, beta, C, Ctype,     \
     ldc, sc, count, compute, algo)

#define FC_CUBLAS_STRIDED_EX(sym, I, FLAGS)                                               \
    typedef cublasStatus_t(*sym##_fn) FC_STRIDED_EX_PARAMS(I);                            \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_STRIDED_EX_PARAMS(I))                            \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(FC_API_CUBLAS_GEMM_STRIDED_EX, FLAGS),         \
                        FC_API_CUBLAS_GEMM_STRIDED_EX);                                   \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, Atype, lda, sa, B,     \
                                     Btype, ldb, sb, beta, C, Ctype, ldc, sc, count,      \
                                     compute, algo);                                      \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {FC_CUBLAS_SHAPE(FC_API_CUBLAS_GEMM_STRIDED_EX, FLAGS, ta, tb, m, n,  \
                                     k, count),                                           \
                     .dtype = (uint8_t)fc_cublas_dtype(Atype),                            \
                     .out_dtype = (uint8_t)fc_cublas_dtype(Ctype),                        \
                     .compute = (int16_t)compute, .a = A, .b = B, .c = C};                \
        fc_cublas_finish(cp, outer, &g, st, h);                                           \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS,                            \
                   FC_SYM_OF(FC_API_CUBLAS_GEMM_STRIDED_EX, FLAGS), FC_STRIDED_EX_PARAMS(I), \
                   FC_STRIDED_EX_ARGS)

FC_CUBLAS_STRIDED_EX(cublasGemmStridedBatchedEx, int, 0)
FC_CUBLAS_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t, FC_API_64)

/* ---- groups ---- */

/* What a grouped call looked like; the arrays are the caller's host arrays.
 * I is the index type of the entry point, so two copies of the walker. */
typedef struct grouped {
    const cublasOperation_t *ta, *tb;
    const void *m, *n, *k, *size; /* int[] or int64_t[] */
    int64_t count;
    int is64;
} grouped;

static int64_t grouped_at(const void *arr, int is64, int64_t i)
{
    return is64 ? ((const int64_t *)arr)[i] : ((const int *)arr)[i];
}

/* One record per group. A call whose arrays are missing or whose group
 * count is negative is one invalid record (shape unknown, no FLOPs). */
static void grouped_record(fc_copy *cp, int outer, fc_gemm *g, const grouped *gr, int status,
                           const void *handle)
{
    if (!outer || !fc_is_enabled()) {
        fc_leave();
        return;
    }
    int saved = errno, ok = status == CUBLAS_STATUS_SUCCESS;
    if (ok && g->dtype == FC_DT_FP32)
        g->dtype = (uint8_t)fc_cublas_fp32_runs_as(cp, handle, g->compute);
    int arrays = gr->ta && gr->tb && gr->m && gr->n && gr->k && gr->size;
    g->stream_handle = handle;
    g->stream_kind = FC_STREAM_CUBLAS_HANDLE;
    g->copy = (uint8_t)fc_copy_index(cp);
    if (gr->count == 0)
        (void)fc_hook_diverted_gpu(outer, g, 0); /* no group: only the kernel-timing pop */
    if (gr->count < 0 || (gr->count > 0 && !arrays)) {
        g->m = g->n = g->k = g->batch = -1;
        g->transa = g->transb = '?';
        if (!fc_hook_diverted_gpu(outer, g, ok))
            fc_ring_count(g, ok);
    } else {
        fc_grouped_acc load = {0, 0, 0};
        int captured = 0;
        for (int64_t i = 0; i < gr->count; i++) {
            g->transa = fc_cublas_op(gr->ta[i]);
            g->transb = fc_cublas_op(gr->tb[i]);
            g->m = grouped_at(gr->m, gr->is64, i);
            g->n = grouped_at(gr->n, gr->is64, i);
            g->k = grouped_at(gr->k, gr->is64, i);
            g->batch = grouped_at(gr->size, gr->is64, i);
            fc_grouped_acc_add(&load, g->m, g->n, g->k, g->batch);
            /* on a capturing stream each group is recorded against the capture */
            if (!fc_hook_diverted_gpu(outer, g, ok))
                fc_ring_count(g, ok);
            else
                captured = 1;
        }
        if (ok && !captured) /* the experts' load, per iteration (probe/grouped_log.h) */
            fc_grouped_log_add(fc_ticks(), &load);
    }
    errno = saved;
    fc_leave();
}

#define FC_GROUPED_PARAMS(T, I)                                                           \
    (cublasHandle_t h, const cublasOperation_t ta[], const cublasOperation_t tb[],        \
     const I m[], const I n[], const I k[], const T alpha[], const T *const A[],          \
     const I lda[], const T *const B[], const I ldb[], const T beta[], T *const C[],      \
     const I ldc[], I groups, const I size[])
#define FC_GROUPED_ARGS                                                                   \
    (h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, groups, size)

#define FC_CUBLAS_GROUPED(sym, T, I, API, FLAGS, DT)                                      \
    typedef cublasStatus_t(*sym##_fn) FC_GROUPED_PARAMS(T, I);                            \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_GROUPED_PARAMS(T, I))                            \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(API, FLAGS), API);                             \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,  \
                                     ldc, groups, size);                                  \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {.api = (API), .flags = (FLAGS), .dtype = (DT), .out_dtype = (DT),    \
                     .compute = -1, .a = A, .b = B, .c = C};                              \
        grouped gr = {ta, tb, m, n, k, size, groups, (FLAGS) != 0};                       \
        grouped_record(cp, outer, &g, &gr, st, h);                                        \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS, FC_SYM_OF(API, FLAGS),     \
                   FC_GROUPED_PARAMS(T, I), FC_GROUPED_ARGS)

FC_CUBLAS_GROUPED(cublasSgemmGroupedBatched, float, int, FC_API_CUBLAS_SGEMM_GROUPED, 0,
                  FC_DT_FP32)
FC_CUBLAS_GROUPED(cublasSgemmGroupedBatched_64, float, int64_t, FC_API_CUBLAS_SGEMM_GROUPED,
                  FC_API_64, FC_DT_FP32)
FC_CUBLAS_GROUPED(cublasDgemmGroupedBatched, double, int, FC_API_CUBLAS_DGEMM_GROUPED, 0,
                  FC_DT_FP64)
FC_CUBLAS_GROUPED(cublasDgemmGroupedBatched_64, double, int64_t, FC_API_CUBLAS_DGEMM_GROUPED,
                  FC_API_64, FC_DT_FP64)

#define FC_GROUPED_EX_PARAMS(I)                                                           \
    (cublasHandle_t h, const cublasOperation_t ta[], const cublasOperation_t tb[],        \
     const I m[], const I n[], const I k[], const void *alpha, const void *const A[],     \
     cudaDataType_t Atype, const I lda[], const void *const B[], cudaDataType_t Btype,    \
     const I ldb[], const void *beta, void *const C[], cudaDataType_t Ctype,              \
     const I ldc[], I groups, const I size[], cublasComputeType_t compute)
#define FC_GROUPED_EX_ARGS                                                                \
    (h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, groups, \
     size, compute)

#define FC_CUBLAS_GROUPED_EX(sym, I, FLAGS)                                               \
    typedef cublasStatus_t(*sym##_fn) FC_GROUPED_EX_PARAMS(I);                            \
    FC_HOOK_BODY(cublasStatus_t, sym, FC_GROUPED_EX_PARAMS(I))                            \
    {                                                                                     \
        FC_CUBLAS_BEGIN(cp, sym, FC_SYM_OF(FC_API_CUBLAS_GEMM_GROUPED_EX, FLAGS),         \
                        FC_API_CUBLAS_GEMM_GROUPED_EX);                                   \
        cublasStatus_t st = fn_##sym(h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype,  \
                                     ldb, beta, C, Ctype, ldc, groups, size, compute);    \
        FC_CUBLAS_CALLED(cp);                                                             \
        fc_gemm g = {.api = FC_API_CUBLAS_GEMM_GROUPED_EX, .flags = (FLAGS),              \
                     .dtype = (uint8_t)fc_cublas_dtype(Atype),                            \
                     .out_dtype = (uint8_t)fc_cublas_dtype(Ctype),                        \
                     .compute = (int16_t)compute, .a = A, .b = B, .c = C};                \
        grouped gr = {ta, tb, m, n, k, size, groups, (FLAGS) != 0};                       \
        grouped_record(cp, outer, &g, &gr, st, h);                                        \
        return st;                                                                        \
    }                                                                                     \
    FC_HOOK_DEFINE(cublasStatus_t, return, sym, FC_LIB_CUBLAS,                            \
                   FC_SYM_OF(FC_API_CUBLAS_GEMM_GROUPED_EX, FLAGS), FC_GROUPED_EX_PARAMS(I), \
                   FC_GROUPED_EX_ARGS)

FC_CUBLAS_GROUPED_EX(cublasGemmGroupedBatchedEx, int, 0)
FC_CUBLAS_GROUPED_EX(cublasGemmGroupedBatchedEx_64, int64_t, FC_API_64)

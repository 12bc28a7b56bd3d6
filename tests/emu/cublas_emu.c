/* SPDX-License-Identifier: Apache-2.0 */
/* cublas_emu.c - a CPU stand-in for libcublas.so.13, for tests on machines
 * without a GPU. Same names and ABI as cublas_api.h, real arithmetic on
 * host memory (column-major, op N/T/C, alpha/beta), so a test can check
 * that a program's results are unchanged under the shim.
 *
 * Covered: cublasCreate_v2/Destroy_v2/SetMathMode/GetMathMode and every
 * GEMM entry point libflopcount interposes (plain, Ex, 3m, Batched,
 * StridedBatched, GroupedBatched, and the _64 twins). Element types:
 * R_16F, R_16BF, R_32F, R_64F, C_32F, C_64F, R_8I as inputs; the same plus
 * R_32I as outputs; anything else is CUBLAS_STATUS_NOT_SUPPORTED. All sums
 * are taken in double, so small-integer data gives exact results.
 *
 * Statuses, as real cuBLAS gives them (checked against libcublas 13.0 on
 * the null GPU): NULL or destroyed handle -> NOT_INITIALIZED; negative
 * m/n/k/batch/group count, a bad op, a short leading dimension or fp8
 * inputs -> INVALID_VALUE; int8 inputs with a leading dimension not a
 * multiple of 4 -> NOT_SUPPORTED.
 *
 * One deliberate nesting: cublasGemmEx with fp32 A, B, C and a fp32
 * compute type calls cublasSgemm_v2 through the PLT, as the real library
 * calls cublasLtMatmul on one path, so a preloaded counter sees a GEMM
 * inside a GEMM and must count it once.
 *
 * Per-copy call counts (cublas_emu.h) let a test that loads this library
 * twice, from two paths, see which copy a call reached. */
#include <cublas_api.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cublas_emu.h"
#include "emu_formats.h"
#include "emu_launch.h"

#define EMU_MAGIC 0x656d7563u

static atomic_ulong emu_gemm_calls, emu_mode_queries;

unsigned long fc_emu_cublas_gemm_calls(void)
{
    return atomic_load(&emu_gemm_calls);
}

unsigned long fc_emu_cublas_mode_queries(void)
{
    return atomic_load(&emu_mode_queries);
}

struct cublasContext {
    unsigned magic;
    cublasMath_t mode;
};

typedef uint16_t emu_half; /* C has no __half; the bits are what matter */
typedef struct { double re, im; } emu_val;

/* ---- element conversions ---- */

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float f;
    if (exp == 0) /* zero or subnormal: man * 2^-24 */
        f = ldexpf((float)man, -24);
    else if (exp == 31)
        f = man ? NAN : INFINITY;
    else
        f = ldexpf((float)(man | 0x400), (int)exp - 25);
    return sign ? -f : f;
}

static uint16_t float_to_half(float f)
{
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    if (isnan(f))
        return 0x7e00;
    if (a >= 65520.0f) /* rounds past the largest half, 65504 */
        return sign | 0x7c00;
    if (a < ldexpf(1.0f, -14)) /* subnormal: multiples of 2^-24, ties to even */
        return sign | (uint16_t)nearbyintf(ldexpf(a, 24));
    int e;
    float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    uint32_t man = (uint32_t)nearbyintf(ldexpf(m, 11)); /* 11 significant bits */
    if (man == 0x800) { /* rounding carried into the next power of two */
        man = 0x400;
        e++;
    }
    return sign | (uint16_t)((uint32_t)(e + 14) << 10) | (uint16_t)(man & 0x3ff);
}

static size_t type_size(cudaDataType t)
{
    switch (t) {
    case CUDA_R_8I: return 1;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
    }
}

static emu_val load(const void *p, cudaDataType t, int64_t i)
{
    emu_val v = {0, 0};
    switch (t) {
    case CUDA_R_8I: v.re = ((const int8_t *)p)[i]; break;
    case CUDA_R_16F: v.re = half_to_float(((const uint16_t *)p)[i]); break;
    case CUDA_R_16BF: v.re = bf16_to_float(((const uint16_t *)p)[i]); break;
    case CUDA_R_32F: v.re = ((const float *)p)[i]; break;
    case CUDA_R_32I: v.re = ((const int32_t *)p)[i]; break;
    case CUDA_R_64F: v.re = ((const double *)p)[i]; break;
    case CUDA_C_32F:
        v.re = ((const float *)p)[2 * i];
        v.im = ((const float *)p)[2 * i + 1];
        break;
    case CUDA_C_64F:
        v.re = ((const double *)p)[2 * i];
        v.im = ((const double *)p)[2 * i + 1];
        break;
    default: break;
    }
    return v;
}

static void store(void *p, cudaDataType t, int64_t i, emu_val v)
{
    switch (t) {
    case CUDA_R_8I: ((int8_t *)p)[i] = (int8_t)lrint(v.re); break;
    case CUDA_R_16F: ((uint16_t *)p)[i] = float_to_half((float)v.re); break;
    case CUDA_R_16BF: ((uint16_t *)p)[i] = float_to_bf16((float)v.re); break;
    case CUDA_R_32F: ((float *)p)[i] = (float)v.re; break;
    case CUDA_R_32I: ((int32_t *)p)[i] = (int32_t)lrint(v.re); break;
    case CUDA_R_64F: ((double *)p)[i] = v.re; break;
    case CUDA_C_32F:
        ((float *)p)[2 * i] = (float)v.re;
        ((float *)p)[2 * i + 1] = (float)v.im;
        break;
    case CUDA_C_64F:
        ((double *)p)[2 * i] = v.re;
        ((double *)p)[2 * i + 1] = v.im;
        break;
    default: break;
    }
}

static emu_val mul(emu_val a, emu_val b)
{
    return (emu_val){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/* ---- one GEMM problem ---- */

typedef struct problem {
    cublasOperation_t ta, tb;
    int64_t m, n, k;
    const void *alpha, *beta;
    cudaDataType st; /* type of alpha and beta */
    const void *A, *B;
    void *C;
    cudaDataType at, bt, ct;
    int64_t lda, ldb, ldc;
} problem;

static int handle_ok(cublasHandle_t h)
{
    return h != NULL && h->magic == EMU_MAGIC;
}

static int op_ok(cublasOperation_t op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

static int64_t max1(int64_t v)
{
    return v > 1 ? v : 1;
}

static cublasStatus_t check(cublasHandle_t h, const problem *p)
{
    if (!handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (p->m < 0 || p->n < 0 || p->k < 0 || !op_ok(p->ta) || !op_ok(p->tb))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (p->lda < max1(p->ta == CUBLAS_OP_N ? p->m : p->k) ||
        p->ldb < max1(p->tb == CUBLAS_OP_N ? p->k : p->n) || p->ldc < max1(p->m))
        return CUBLAS_STATUS_INVALID_VALUE;
    /* fp8 is cuBLASLt's alone: cublasGemmEx refuses it as a value */
    if (p->at == CUDA_R_8F_E4M3 || p->at == CUDA_R_8F_E5M2 || p->bt == CUDA_R_8F_E4M3 ||
        p->bt == CUDA_R_8F_E5M2)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!type_size(p->at) || !type_size(p->bt) || !type_size(p->ct) || !type_size(p->st))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    /* int8 inputs need leading dimensions that are multiples of 4 */
    if (p->at == CUDA_R_8I && (p->lda % 4 != 0 || p->ldb % 4 != 0))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    return CUBLAS_STATUS_SUCCESS;
}

/* Element (row, col) of op(X), X stored column-major with leading dimension ld. */
static emu_val op_at(const void *x, cudaDataType t, int64_t ld, cublasOperation_t op,
                     int64_t row, int64_t col)
{
    if (op == CUBLAS_OP_N)
        return load(x, t, row + col * ld);
    emu_val v = load(x, t, col + row * ld);
    if (op == CUBLAS_OP_C)
        v.im = -v.im;
    return v;
}

/* C = alpha * op(A) op(B) + beta * C; C is not read when beta is zero. */
static void run(const problem *p)
{
    emu_val alpha = load(p->alpha, p->st, 0), beta = load(p->beta, p->st, 0);
    int beta_zero = beta.re == 0 && beta.im == 0;
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t i = 0; i < p->m; i++) {
            emu_val sum = {0, 0};
            for (int64_t l = 0; l < p->k; l++) {
                emu_val t = mul(op_at(p->A, p->at, p->lda, p->ta, i, l),
                                op_at(p->B, p->bt, p->ldb, p->tb, l, j));
                sum.re += t.re;
                sum.im += t.im;
            }
            emu_val c = mul(alpha, sum);
            if (!beta_zero) {
                emu_val old = mul(beta, load(p->C, p->ct, i + j * p->ldc));
                c.re += old.re;
                c.im += old.im;
            }
            store(p->C, p->ct, i + j * p->ldc, c);
        }
}

static cudaStream_t emu_stream_of(cublasHandle_t h);

/* One kernel per successful call on the handle's stream (emu_launch.h). */
static void launch(cublasHandle_t h, const problem *p, int64_t count)
{
    emu_launch(emu_stream_of(h), "emu_cublas_gemm_kernel", 2.0 * (double)p->m * (double)p->n *
                                                              (double)p->k * (double)count);
}

static cublasStatus_t gemm_one(cublasHandle_t h, const problem *p)
{
    atomic_fetch_add(&emu_gemm_calls, 1);
    cublasStatus_t st = check(h, p);
    if (st == CUBLAS_STATUS_SUCCESS) {
        run(p);
        launch(h, p, 1);
    }
    return st;
}

/* The scalar type cuBLAS expects for alpha/beta under a compute type. */
static cudaDataType scalar_type(cublasComputeType_t c, cudaDataType ctype)
{
    int complex = ctype == CUDA_C_32F || ctype == CUDA_C_64F;
    switch (c) {
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC:
        return CUDA_R_16F;
    case CUBLAS_COMPUTE_32F: case CUBLAS_COMPUTE_32F_PEDANTIC: case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF: case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
        return complex ? CUDA_C_32F : CUDA_R_32F;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
        return complex ? CUDA_C_64F : CUDA_R_64F;
    case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC:
        return CUDA_R_32I;
    default:
        return CUDA_R_8U; /* not a scalar type we know: NOT_SUPPORTED */
    }
}

/* Runs count problems that share a shape; A/B/C of problem i come from at(). */
typedef struct batch {
    const void *const *Aarr, *const *Barr; /* pointer arrays, or NULL */
    void *const *Carr;
    long long sa, sb, sc; /* element strides when the arrays are NULL */
} batch;

static cublasStatus_t gemm_batch(cublasHandle_t h, problem p, const batch *b, int64_t count)
{
    atomic_fetch_add(&emu_gemm_calls, 1);
    cublasStatus_t st = check(h, &p);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (count < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    const char *A0 = p.A, *B0 = p.B;
    char *C0 = p.C;
    for (int64_t i = 0; i < count; i++) {
        problem q = p;
        if (b->Aarr != NULL) {
            q.A = b->Aarr[i];
            q.B = b->Barr[i];
            q.C = b->Carr[i];
        } else {
            q.A = A0 + (size_t)(i * b->sa) * type_size(p.at);
            q.B = B0 + (size_t)(i * b->sb) * type_size(p.bt);
            q.C = C0 + (size_t)(i * b->sc) * type_size(p.ct);
        }
        run(&q);
    }
    launch(h, &p, count);
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- handles ---- */

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (handle == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasHandle_t h = calloc(1, sizeof *h);
    if (h == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = EMU_MAGIC;
    h->mode = CUBLAS_DEFAULT_MATH;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->magic = 0;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    atomic_fetch_add(&emu_mode_queries, 1);
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->mode;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- entry points: the same families as shim/hooks/cublas_gemm.c and
 * shim/hooks/cublas_batched.c, each as a 32-bit and a _64 definition ---- */

#define EMU_PAIR(MACRO, sym, ...) MACRO(sym, int, __VA_ARGS__) MACRO(sym##_64, int64_t, __VA_ARGS__)

#define EMU_TYPED(sym, I, T, DT)                                                          \
    cublasStatus_t sym(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                       I n, I k, const T *alpha, const T *A, I lda, const T *B, I ldb,    \
                       const T *beta, T *C, I ldc)                                        \
    {                                                                                     \
        problem p = {ta, tb, m, n, k, alpha, beta, DT, A, B, C, DT, DT, DT, lda, ldb, ldc}; \
        return gemm_one(h, &p);                                                           \
    }

EMU_PAIR(EMU_TYPED, cublasSgemm_v2, float, CUDA_R_32F)
EMU_PAIR(EMU_TYPED, cublasDgemm_v2, double, CUDA_R_64F)
EMU_PAIR(EMU_TYPED, cublasCgemm_v2, cuComplex, CUDA_C_32F)
EMU_PAIR(EMU_TYPED, cublasZgemm_v2, cuDoubleComplex, CUDA_C_64F)
EMU_PAIR(EMU_TYPED, cublasHgemm, emu_half, CUDA_R_16F)
EMU_PAIR(EMU_TYPED, cublasCgemm3m, cuComplex, CUDA_C_32F)
EMU_PAIR(EMU_TYPED, cublasZgemm3m, cuDoubleComplex, CUDA_C_64F)

#define EMU_EX_IMPLICIT(sym, I, S, ST)                                                    \
    cublasStatus_t sym(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                       I n, I k, const S *alpha, const void *A, cudaDataType at, I lda,   \
                       const void *B, cudaDataType bt, I ldb, const S *beta, void *C,     \
                       cudaDataType ct, I ldc)                                            \
    {                                                                                     \
        problem p = {ta, tb, m, n, k, alpha, beta, ST, A, B, C, at, bt, ct, lda, ldb, ldc}; \
        return gemm_one(h, &p);                                                           \
    }

EMU_PAIR(EMU_EX_IMPLICIT, cublasSgemmEx, float, CUDA_R_32F)
EMU_PAIR(EMU_EX_IMPLICIT, cublasCgemmEx, cuComplex, CUDA_C_32F)
EMU_PAIR(EMU_EX_IMPLICIT, cublasCgemm3mEx, cuComplex, CUDA_C_32F)

/* fp32 in and out with an fp32 compute type: hand over to the typed
 * entry point, through the PLT (see the header comment). */
static int nests(cudaDataType at, cudaDataType bt, cudaDataType ct, cublasComputeType_t c)
{
    return at == CUDA_R_32F && bt == CUDA_R_32F && ct == CUDA_R_32F &&
           (c == CUBLAS_COMPUTE_32F || c == CUBLAS_COMPUTE_32F_FAST_TF32);
}

#define EMU_GEMMEX(sym, I, SGEMM)                                                         \
    cublasStatus_t sym(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                       I n, I k, const void *alpha, const void *A, cudaDataType at,       \
                       I lda, const void *B, cudaDataType bt, I ldb, const void *beta,    \
                       void *C, cudaDataType ct, I ldc, cublasComputeType_t compute,      \
                       cublasGemmAlgo_t algo)                                             \
    {                                                                                     \
        (void)algo;                                                                       \
        if (nests(at, bt, ct, compute))                                                   \
            return SGEMM(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);        \
        problem p = {ta, tb, m, n, k, alpha, beta, scalar_type(compute, ct), A, B, C, at, \
                     bt, ct, lda, ldb, ldc};                                              \
        return gemm_one(h, &p);                                                           \
    }

EMU_GEMMEX(cublasGemmEx, int, cublasSgemm_v2)
EMU_GEMMEX(cublasGemmEx_64, int64_t, cublasSgemm_v2_64)

#define EMU_BATCHED(sym, I, T, DT)                                                        \
    cublasStatus_t sym(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                       I n, I k, const T *alpha, const T *const A[], I lda,               \
                       const T *const B[], I ldb, const T *beta, T *const C[], I ldc,     \
                       I count)                                                           \
    {                                                                                     \
        problem p = {ta, tb, m, n, k, alpha, beta, DT, NULL, NULL, NULL, DT, DT, DT, lda, \
                     ldb, ldc};                                                           \
        batch b = {(const void *const *)A, (const void *const *)B, (void *const *)C, 0,   \
                   0, 0};                                                                 \
        return gemm_batch(h, p, &b, count);                                               \
    }

EMU_PAIR(EMU_BATCHED, cublasHgemmBatched, emu_half, CUDA_R_16F)
EMU_PAIR(EMU_BATCHED, cublasSgemmBatched, float, CUDA_R_32F)
EMU_PAIR(EMU_BATCHED, cublasDgemmBatched, double, CUDA_R_64F)
EMU_PAIR(EMU_BATCHED, cublasCgemmBatched, cuComplex, CUDA_C_32F)
EMU_PAIR(EMU_BATCHED, cublasZgemmBatched, cuDoubleComplex, CUDA_C_64F)
EMU_PAIR(EMU_BATCHED, cublasCgemm3mBatched, cuComplex, CUDA_C_32F)

#define EMU_BATCHED_EX(sym, I, unused)                                                    \
    cublasStatus_t sym(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                       I n, I k, const void *alpha, const void *const A[],                \
                       cudaDataType at, I lda, const void *const B[], cudaDataType bt,    \
                       I ldb, const void *beta, void *const C[], cudaDataType ct, I ldc,  \
                       I count, cublasComputeType_t compute, cublasGemmAlgo_t algo)       \
    {                                                                                     \
        (void)algo;                                                                       \
        problem p = {ta, tb, m, n, k, alpha, beta, scalar_type(compute, ct), NULL, NULL,  \
                     NULL, at, bt, ct, lda, ldb, ldc};                                    \
        batch b = {A, B, C, 0, 0, 0};                                                     \
        return gemm_batch(h, p, &b, count);                                               \
    }

EMU_PAIR(EMU_BATCHED_EX, cublasGemmBatchedEx, 0)

#define EMU_STRIDED(sym, I, T, DT)                                                        \
    cublasStatus_t sym(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                       I n, I k, const T *alpha, const T *A, I lda, long long sa,         \
                       const T *B, I ldb, long long sb, const T *beta, T *C, I ldc,       \
                       long long sc, I count)                                             \
    {                                                                                     \
        problem p = {ta, tb, m, n, k, alpha, beta, DT, A, B, C, DT, DT, DT, lda, ldb, ldc}; \
        batch b = {NULL, NULL, NULL, sa, sb, sc};                                         \
        return gemm_batch(h, p, &b, count);                                               \
    }

EMU_PAIR(EMU_STRIDED, cublasHgemmStridedBatched, emu_half, CUDA_R_16F)
EMU_PAIR(EMU_STRIDED, cublasSgemmStridedBatched, float, CUDA_R_32F)
EMU_PAIR(EMU_STRIDED, cublasDgemmStridedBatched, double, CUDA_R_64F)
EMU_PAIR(EMU_STRIDED, cublasCgemmStridedBatched, cuComplex, CUDA_C_32F)
EMU_PAIR(EMU_STRIDED, cublasZgemmStridedBatched, cuDoubleComplex, CUDA_C_64F)
EMU_PAIR(EMU_STRIDED, cublasCgemm3mStridedBatched, cuComplex, CUDA_C_32F)

#define EMU_STRIDED_EX(sym, I, unused)                                                    \
    cublasStatus_t sym(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, I m, \
                       I n, I k, const void *alpha, const void *A, cudaDataType at,       \
                       I lda, long long sa, const void *B, cudaDataType bt, I ldb,        \
                       long long sb, const void *beta, void *C, cudaDataType ct, I ldc,   \
                       long long sc, I count, cublasComputeType_t compute,                \
                       cublasGemmAlgo_t algo)                                             \
    {                                                                                     \
        (void)algo;                                                                       \
        problem p = {ta, tb, m, n, k, alpha, beta, scalar_type(compute, ct), A, B, C, at, \
                     bt, ct, lda, ldb, ldc};                                              \
        batch b = {NULL, NULL, NULL, sa, sb, sc};                                         \
        return gemm_batch(h, p, &b, count);                                               \
    }

EMU_PAIR(EMU_STRIDED_EX, cublasGemmStridedBatchedEx, 0)

/* Grouped: group g has its own shape and scalars and size[g] problems,
 * whose pointers follow one another in the arrays. Every group is checked
 * before any runs, so a bad group leaves C untouched. */
typedef struct groups {
    const cublasOperation_t *ta, *tb;
    const void *m, *n, *k, *lda, *ldb, *ldc, *size; /* int[] or int64_t[] */
    int is64;
    int64_t count;
    const char *alpha, *beta; /* per-group scalars */
    cudaDataType st, at, bt, ct;
    const void *const *A, *const *B;
    void *const *C;
} groups;

static int64_t at_index(const void *arr, int is64, int64_t i)
{
    return is64 ? ((const int64_t *)arr)[i] : ((const int *)arr)[i];
}

static problem group_problem(const groups *g, int64_t i)
{
    size_t ss = type_size(g->st);
    problem p = {g->ta[i], g->tb[i], at_index(g->m, g->is64, i), at_index(g->n, g->is64, i),
                 at_index(g->k, g->is64, i), g->alpha + i * ss, g->beta + i * ss, g->st,
                 NULL, NULL, NULL, g->at, g->bt, g->ct, at_index(g->lda, g->is64, i),
                 at_index(g->ldb, g->is64, i), at_index(g->ldc, g->is64, i)};
    return p;
}

static cublasStatus_t gemm_groups(cublasHandle_t h, const groups *g)
{
    atomic_fetch_add(&emu_gemm_calls, 1);
    if (!handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (g->count < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!type_size(g->st))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    for (int64_t i = 0; i < g->count; i++) {
        problem p = group_problem(g, i);
        cublasStatus_t st = check(h, &p);
        if (st != CUBLAS_STATUS_SUCCESS)
            return st;
        if (at_index(g->size, g->is64, i) < 0)
            return CUBLAS_STATUS_INVALID_VALUE;
    }
    int64_t next = 0;
    for (int64_t i = 0; i < g->count; i++) {
        problem p = group_problem(g, i);
        for (int64_t j = 0; j < at_index(g->size, g->is64, i); j++, next++) {
            p.A = g->A[next];
            p.B = g->B[next];
            p.C = g->C[next];
            run(&p);
        }
        launch(h, &p, at_index(g->size, g->is64, i));
    }
    return CUBLAS_STATUS_SUCCESS;
}

#define EMU_GROUPED(sym, I, T, DT)                                                        \
    cublasStatus_t sym(cublasHandle_t h, const cublasOperation_t ta[],                    \
                       const cublasOperation_t tb[], const I m[], const I n[],            \
                       const I k[], const T alpha[], const T *const A[], const I lda[],   \
                       const T *const B[], const I ldb[], const T beta[],                 \
                       T *const C[], const I ldc[], I count, const I size[])              \
    {                                                                                     \
        groups g = {ta, tb, m, n, k, lda, ldb, ldc, size, sizeof(I) == 8, count,          \
                    (const char *)alpha, (const char *)beta, DT, DT, DT, DT,              \
                    (const void *const *)A, (const void *const *)B, (void *const *)C};    \
        return gemm_groups(h, &g);                                                        \
    }

EMU_PAIR(EMU_GROUPED, cublasSgemmGroupedBatched, float, CUDA_R_32F)
EMU_PAIR(EMU_GROUPED, cublasDgemmGroupedBatched, double, CUDA_R_64F)

#define EMU_GROUPED_EX(sym, I, unused)                                                    \
    cublasStatus_t sym(cublasHandle_t h, const cublasOperation_t ta[],                    \
                       const cublasOperation_t tb[], const I m[], const I n[],            \
                       const I k[], const void *alpha, const void *const A[],             \
                       cudaDataType_t at, const I lda[], const void *const B[],           \
                       cudaDataType_t bt, const I ldb[], const void *beta,                \
                       void *const C[], cudaDataType_t ct, const I ldc[], I count,        \
                       const I size[], cublasComputeType_t compute)                       \
    {                                                                                     \
        groups g = {ta, tb, m, n, k, lda, ldb, ldc, size, sizeof(I) == 8, count,          \
                    alpha, beta, scalar_type(compute, ct), at, bt, ct, A, B, C};          \
        return gemm_groups(h, &g);                                                        \
    }

EMU_PAIR(EMU_GROUPED_EX, cublasGemmGroupedBatchedEx, 0)

/* ---- streams (for GPU-timing tests: tests/gputime/gputime.cmake) ----
 * There is no GPU, so a stream is only remembered: cublasGetStream_v2
 * gives back what cublasSetStream_v2 set (NULL, the default stream, until
 * then). Kept beside the handles, not in them; a few handles suffice. */
#define EMU_STREAM_SLOTS 64
static struct {
    cublasHandle_t h;
    cudaStream_t s;
} emu_streams[EMU_STREAM_SLOTS];

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int free_slot = -1;
    for (int i = 0; i < EMU_STREAM_SLOTS; i++) {
        if (emu_streams[i].h == handle) {
            emu_streams[i].s = streamId;
            return CUBLAS_STATUS_SUCCESS;
        }
        if (emu_streams[i].h == NULL && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0)
        return CUBLAS_STATUS_ALLOC_FAILED;
    emu_streams[free_slot].h = handle;
    emu_streams[free_slot].s = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

static cudaStream_t emu_stream_of(cublasHandle_t h)
{
    for (int i = 0; i < EMU_STREAM_SLOTS; i++)
        if (emu_streams[i].h == h)
            return emu_streams[i].s;
    return NULL;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (streamId == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = NULL;
    for (int i = 0; i < EMU_STREAM_SLOTS; i++)
        if (emu_streams[i].h == handle)
            *streamId = emu_streams[i].s;
    return CUBLAS_STATUS_SUCCESS;
}

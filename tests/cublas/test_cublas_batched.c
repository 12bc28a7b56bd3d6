/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublas_batched.c - the many-GEMM cuBLAS hooks (Batched,
 * StridedBatched, GroupedBatched, their Ex and 3m forms, the _64 twins)
 * through the CPU emulation, under LD_PRELOAD of libflopcount.so.
 *
 * Batched and strided calls run the hand-worked GEMM of
 * emu/cublas_emu_check.h three times, problem i with A scaled by i+1, so C_i
 * = 1 + 2(i+1)*product: one record with batch = 3, 3*48 = 144 FLOPs (3*192
 * = 576 complex). Grouped calls are one record per group with batch =
 * group_size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <cublas_api.h>
#include <json-c/json.h>

#include "emu/cublas_emu_check.h"

typedef uint16_t half_t; /* C has no __half */
cublasStatus_t cublasHgemmBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                  int, int, const half_t *, const half_t *const[], int,
                                  const half_t *const[], int, const half_t *, half_t *const[],
                                  int, int);
cublasStatus_t cublasHgemmBatched_64(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                     int64_t, int64_t, int64_t, const half_t *,
                                     const half_t *const[], int64_t, const half_t *const[],
                                     int64_t, const half_t *, half_t *const[], int64_t, int64_t);
cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                         int, int, int, const half_t *, const half_t *, int,
                                         long long, const half_t *, int, long long,
                                         const half_t *, half_t *, int, long long, int);
cublasStatus_t cublasHgemmStridedBatched_64(cublasHandle_t, cublasOperation_t,
                                            cublasOperation_t, int64_t, int64_t, int64_t,
                                            const half_t *, const half_t *, int64_t, long long,
                                            const half_t *, int64_t, long long, const half_t *,
                                            half_t *, int64_t, long long, int64_t);

#define N_ CUBLAS_OP_N
#define T_ CUBLAS_OP_T
#define C_ CUBLAS_OP_C

static cublasHandle_t h, h_tf32;
static const float f_alpha = 2, f_beta = 1;
static const double d_alpha = 2, d_beta = 1;
static const cuComplex c_alpha = {2, 0}, c_beta = {1, 0};
static const cuDoubleComplex z_alpha = {2, 0}, z_beta = {1, 0};

/* Three problems, their operand pointers, and strides (in elements) that
 * step from one problem's operand to the next's. */
typedef struct three {
    ck_ops ops[3];
    const void *A[3], *B[3];
    void *C[3];
    long long stride; /* sizeof(ck_ops) / element size */
} three;

static size_t elem_size(int t)
{
    switch (t) {
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: fail_msg("elem_size %d", t); return 1;
    }
}

static void fill3(three *x, int at, int ct, char ta, char tb, int imag_b)
{
    for (int i = 0; i < 3; i++) {
        ck_fill(&x->ops[i], at, at, ct, ta, tb, imag_b);
        for (size_t j = 0; j < 6; j++) { /* A of problem i is (i+1) * A */
            double re, im;
            ck_get(x->ops[i].A, at, j, &re, &im);
            ck_put(x->ops[i].A, at, j, (i + 1) * re, (i + 1) * im);
        }
        x->A[i] = x->ops[i].A;
        x->B[i] = x->ops[i].B;
        x->C[i] = x->ops[i].C;
    }
    assert_int_equal(sizeof(ck_ops) % elem_size(at), 0);
    x->stride = (long long)(sizeof(ck_ops) / elem_size(at)); /* strided calls: at == ct */
}

/* The first `count` problems hold 1 + 2(i+1)*product (times +-i when complex);
 * on the null GPU, where kernels do not run, the ones ck_fill put there. */
static void check3(const three *x, int count, int ct, int im_sign)
{
    for (int i = 0; i < count; i++)
        for (size_t j = 0; j < 8; j++) {
            double re, im, p = ck_null_gpu() ? 0 : 2.0 * (i + 1) * ck_product[j];
            ck_get(x->ops[i].C, ct, j, &re, &im);
            if (ck_null_gpu() ? re != 1 || im != 0 : re != (im_sign ? 1 : 1 + p) || im != (im_sign ? im_sign * p : 0))
                fail_msg("problem %d C[%zu] = (%g, %g)", i, j, re, im);
        }
}

static void expect_batch(const ck_totals *t0, const char *api, char ta, char tb,
                         const char *dt, const char *out, const char *compute, uint64_t flops)
{
    ck_expect_delta(t0, 1, flops, 0, 0);
    ck_want w = {api, CK_M, CK_N, CK_K, 3, ta, tb, dt, out, compute, 1, 0, flops};
    ck_expect(&w);
}

static int setup(void **state)
{
    (void)state;
    ck_shim_symbol("cublasSgemmBatched");
    if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS || cublasCreate_v2(&h_tf32) != 0)
        return -1;
    return cublasSetMathMode(h_tf32, CUBLAS_TF32_TENSOR_OP_MATH);
}

static int teardown(void **state)
{
    (void)state;
    return cublasDestroy_v2(h) | cublasDestroy_v2(h_tf32);
}

/* Typed batched call on arrays of pointers; SYM(h, ...) with the usual tail. */
#define RUN_BATCHED(SYM, T, alpha, beta, ta, tb, lda, ldb)                                \
    SYM(h, ta, tb, 2, 4, 3, alpha, (const T *const *)x.A, lda, (const T *const *)x.B, ldb, \
        beta, (T *const *)x.C, 2, 3)

static void test_batched_typed(void **state)
{
    (void)state;
    three x;
    ck_totals t0;
    half_t h_alpha = ck_half(2), h_beta = ck_half(1);
#define CASE(SYM, T, alpha, beta, at, TA, TB, lda, ldb, imsign, dt, flops)                \
    fill3(&x, at, at, #TA[0], #TB[0], imsign != 0);                                       \
    t0 = ck_totals_now();                                                                 \
    assert_int_equal(RUN_BATCHED(SYM, T, alpha, beta, TA##_, TB##_, lda, ldb), 0);        \
    check3(&x, 3, at, imsign);                                                            \
    expect_batch(&t0, #SYM, #TA[0], #TB[0], dt, dt, NULL, flops);
    CASE(cublasHgemmBatched, half_t, &h_alpha, &h_beta, CUDA_R_16F, N, N, 2, 3, 0, "fp16", 144)
    CASE(cublasHgemmBatched_64, half_t, &h_alpha, &h_beta, CUDA_R_16F, T, N, 3, 3, 0, "fp16", 144)
    CASE(cublasSgemmBatched, float, &f_alpha, &f_beta, CUDA_R_32F, N, T, 2, 4, 0, "fp32", 144)
    CASE(cublasSgemmBatched_64, float, &f_alpha, &f_beta, CUDA_R_32F, T, T, 3, 4, 0, "fp32", 144)
    CASE(cublasDgemmBatched, double, &d_alpha, &d_beta, CUDA_R_64F, N, N, 2, 3, 0, "fp64", 144)
    CASE(cublasDgemmBatched_64, double, &d_alpha, &d_beta, CUDA_R_64F, T, N, 3, 3, 0, "fp64", 144)
    CASE(cublasCgemmBatched, cuComplex, &c_alpha, &c_beta, CUDA_C_32F, N, C, 2, 4, -1,
         "complex64", 576)
    CASE(cublasCgemmBatched_64, cuComplex, &c_alpha, &c_beta, CUDA_C_32F, N, N, 2, 3, 1,
         "complex64", 576)
    CASE(cublasZgemmBatched, cuDoubleComplex, &z_alpha, &z_beta, CUDA_C_64F, T, N, 3, 3, 1,
         "complex128", 576)
    CASE(cublasZgemmBatched_64, cuDoubleComplex, &z_alpha, &z_beta, CUDA_C_64F, N, C, 2, 4, -1,
         "complex128", 576)
    CASE(cublasCgemm3mBatched, cuComplex, &c_alpha, &c_beta, CUDA_C_32F, N, N, 2, 3, 1,
         "complex64", 576)
    CASE(cublasCgemm3mBatched_64, cuComplex, &c_alpha, &c_beta, CUDA_C_32F, C, T, 3, 4, 1,
         "complex64", 576)
#undef CASE
}

#define RUN_STRIDED(SYM, T, alpha, beta, ta, tb, lda, ldb)                                \
    SYM(h, ta, tb, 2, 4, 3, alpha, (const T *)x.A[0], lda, x.stride, (const T *)x.B[0],   \
        ldb, x.stride, beta, (T *)x.C[0], 2, x.stride, 3)

static void test_strided_typed(void **state)
{
    (void)state;
    three x;
    ck_totals t0;
    half_t h_alpha = ck_half(2), h_beta = ck_half(1);
#define CASE(SYM, T, alpha, beta, at, TA, TB, lda, ldb, imsign, dt, flops)                \
    fill3(&x, at, at, #TA[0], #TB[0], imsign != 0);                                       \
    t0 = ck_totals_now();                                                                 \
    assert_int_equal(RUN_STRIDED(SYM, T, alpha, beta, TA##_, TB##_, lda, ldb), 0);        \
    check3(&x, 3, at, imsign);                                                            \
    expect_batch(&t0, #SYM, #TA[0], #TB[0], dt, dt, NULL, flops);
    CASE(cublasHgemmStridedBatched, half_t, &h_alpha, &h_beta, CUDA_R_16F, N, T, 2, 4, 0,
         "fp16", 144)
    CASE(cublasHgemmStridedBatched_64, half_t, &h_alpha, &h_beta, CUDA_R_16F, T, T, 3, 4, 0,
         "fp16", 144)
    CASE(cublasSgemmStridedBatched, float, &f_alpha, &f_beta, CUDA_R_32F, N, N, 2, 3, 0, "fp32",
         144)
    CASE(cublasSgemmStridedBatched_64, float, &f_alpha, &f_beta, CUDA_R_32F, T, N, 3, 3, 0,
         "fp32", 144)
    CASE(cublasDgemmStridedBatched, double, &d_alpha, &d_beta, CUDA_R_64F, N, T, 2, 4, 0, "fp64",
         144)
    CASE(cublasDgemmStridedBatched_64, double, &d_alpha, &d_beta, CUDA_R_64F, T, T, 3, 4, 0,
         "fp64", 144)
    CASE(cublasCgemmStridedBatched, cuComplex, &c_alpha, &c_beta, CUDA_C_32F, N, N, 2, 3, 1,
         "complex64", 576)
    CASE(cublasCgemmStridedBatched_64, cuComplex, &c_alpha, &c_beta, CUDA_C_32F, T, C, 3, 4, -1,
         "complex64", 576)
    CASE(cublasZgemmStridedBatched, cuDoubleComplex, &z_alpha, &z_beta, CUDA_C_64F, N, C, 2, 4,
         -1, "complex128", 576)
    CASE(cublasZgemmStridedBatched_64, cuDoubleComplex, &z_alpha, &z_beta, CUDA_C_64F, N, N, 2,
         3, 1, "complex128", 576)
    CASE(cublasCgemm3mStridedBatched, cuComplex, &c_alpha, &c_beta, CUDA_C_32F, T, N, 3, 3, 1,
         "complex64", 576)
    CASE(cublasCgemm3mStridedBatched_64, cuComplex, &c_alpha, &c_beta, CUDA_C_32F, N, T, 2, 4,
         1, "complex64", 576)
#undef CASE
}

static void test_batched_strided_ex(void **state)
{
    (void)state;
    three x;
    fill3(&x, CUDA_R_16BF, CUDA_R_32F, 'N', 'N', 0);
    /* bf16 in, fp32 out: the C stride is in fp32 elements. */
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasGemmBatchedEx(h, N_, N_, 2, 4, 3, &f_alpha, x.A, CUDA_R_16BF, 2, x.B,
                                         CUDA_R_16BF, 3, &f_beta, x.C, CUDA_R_32F, 2, 3,
                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
    check3(&x, 3, CUDA_R_32F, 0);
    expect_batch(&t0, "cublasGemmBatchedEx", 'N', 'N', "bf16", "fp32", "32F", 144);

    fill3(&x, CUDA_R_32F, CUDA_R_32F, 'T', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmBatchedEx_64(h, T_, N_, 2, 4, 3, &f_alpha, x.A, CUDA_R_32F, 3,
                                            x.B, CUDA_R_32F, 3, &f_beta, x.C, CUDA_R_32F, 2, 3,
                                            CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT), 0);
    check3(&x, 3, CUDA_R_32F, 0);
    expect_batch(&t0, "cublasGemmBatchedEx_64", 'T', 'N', "tf32", "fp32", "32F_FAST_TF32", 144);

    fill3(&x, CUDA_C_32F, CUDA_C_32F, 'N', 'C', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmStridedBatchedEx(h, N_, C_, 2, 4, 3, &c_alpha, x.A[0], CUDA_C_32F,
                                                2, x.stride, x.B[0], CUDA_C_32F, 4, x.stride,
                                                &c_beta, x.C[0], CUDA_C_32F, 2, x.stride, 3,
                                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
    check3(&x, 3, CUDA_C_32F, -1);
    expect_batch(&t0, "cublasGemmStridedBatchedEx", 'N', 'C', "complex64", "complex64", "32F",
                 576);

    /* fp32 on the TF32 handle with compute 32F: tf32. */
    fill3(&x, CUDA_R_32F, CUDA_R_32F, 'N', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmStridedBatchedEx_64(h_tf32, N_, T_, 2, 4, 3, &f_alpha, x.A[0],
                                                   CUDA_R_32F, 2, x.stride, x.B[0], CUDA_R_32F,
                                                   4, x.stride, &f_beta, x.C[0], CUDA_R_32F, 2,
                                                   x.stride, 3, CUBLAS_COMPUTE_32F,
                                                   CUBLAS_GEMM_DEFAULT), 0);
    check3(&x, 3, CUDA_R_32F, 0);
    expect_batch(&t0, "cublasGemmStridedBatchedEx_64", 'N', 'T', "tf32", "fp32", "32F", 144);

    /* cublasSgemmStridedBatched follows the math mode too. */
    fill3(&x, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemmStridedBatched(h_tf32, N_, N_, 2, 4, 3, &f_alpha, x.A[0], 2,
                                               x.stride, x.B[0], 3, x.stride, &f_beta, x.C[0],
                                               2, x.stride, 3), 0);
    check3(&x, 3, CUDA_R_32F, 0);
    expect_batch(&t0, "cublasSgemmStridedBatched", 'N', 'N', "tf32", "fp32", NULL, 144);
}

/* Grouped: group 0 is the hand-worked GEMM (N, N) twice (problems 0 and 1,
 * alpha 2, beta 1): batch 2, 2*48 = 96 FLOPs. Group 1 is one 1x1x2 problem,
 * op(A) = [3 4] stored T, op(B) = [5; 6] stored T, alpha 1, beta 0:
 * C = 3*5 + 4*6 = 39, 2*1*1*2 = 4 FLOPs. The call: 2 records, 100 FLOPs. */
typedef struct two_groups {
    three x;
    double a1[2], b1[2], c1[1];
    const void *A[3], *B[3];
    void *C[3];
    cublasOperation_t ta[2], tb[2];
} two_groups;

static void fill_groups(two_groups *g, int t)
{
    fill3(&g->x, t, t, 'N', 'N', 0);
    ck_put(g->a1, t, 0, 3, 0);
    ck_put(g->a1, t, 1, 4, 0);
    ck_put(g->b1, t, 0, 5, 0);
    ck_put(g->b1, t, 1, 6, 0);
    ck_put(g->c1, t, 0, -7, 0); /* beta = 0: must be overwritten, never read */
    for (int i = 0; i < 2; i++) {
        g->A[i] = g->x.A[i];
        g->B[i] = g->x.B[i];
        g->C[i] = g->x.C[i];
    }
    g->A[2] = g->a1;
    g->B[2] = g->b1;
    g->C[2] = g->c1;
    g->ta[0] = g->tb[0] = CUBLAS_OP_N;
    g->ta[1] = g->tb[1] = CUBLAS_OP_T;
}

static void check_groups(const two_groups *g, int t, const char *api, const char *dt,
                         const char *out, const char *compute, const ck_totals *t0)
{
    double re, im;
    check3(&g->x, 2, t, 0);
    ck_get(g->c1, t, 0, &re, &im);
    assert_true(ck_null_gpu() ? re == -7 && im == 0 : re == 39 && im == 0);
    ck_expect_delta(t0, 2, 100, 0, 0);
    struct json_object *r = ck_report();
    ck_expect_shape(r, &(ck_want){api, 2, 4, 3, 2, 'N', 'N', dt, out, compute, 1, 0, 96});
    ck_expect_shape(r, &(ck_want){api, 1, 1, 2, 1, 'T', 'T', dt, out, compute, 1, 0, 4});
    json_object_put(r);
}

static void test_grouped(void **state)
{
    (void)state;
    two_groups g;
    int m[2] = {2, 1}, n[2] = {4, 1}, k[2] = {3, 2}, lda[2] = {2, 2}, ldb[2] = {3, 1},
        ldc[2] = {2, 1}, size[2] = {2, 1};
    int64_t m64[2] = {2, 1}, n64[2] = {4, 1}, k64[2] = {3, 2}, lda64[2] = {2, 2},
            ldb64[2] = {3, 1}, ldc64[2] = {2, 1}, size64[2] = {2, 1};
    float fa[2] = {2, 1}, fb[2] = {1, 0};
    double da[2] = {2, 1}, db[2] = {1, 0};

    fill_groups(&g, CUDA_R_32F);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemmGroupedBatched(h, g.ta, g.tb, m, n, k, fa,
                                               (const float *const *)g.A, lda,
                                               (const float *const *)g.B, ldb, fb,
                                               (float *const *)g.C, ldc, 2, size), 0);
    check_groups(&g, CUDA_R_32F, "cublasSgemmGroupedBatched", "fp32", "fp32", NULL, &t0);

    fill_groups(&g, CUDA_R_64F);
    t0 = ck_totals_now();
    assert_int_equal(cublasDgemmGroupedBatched_64(h, g.ta, g.tb, m64, n64, k64, da,
                                                  (const double *const *)g.A, lda64,
                                                  (const double *const *)g.B, ldb64, db,
                                                  (double *const *)g.C, ldc64, 2, size64), 0);
    check_groups(&g, CUDA_R_64F, "cublasDgemmGroupedBatched_64", "fp64", "fp64", NULL, &t0);

    fill_groups(&g, CUDA_R_32F);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmGroupedBatchedEx(h, g.ta, g.tb, m, n, k, fa, g.A, CUDA_R_32F, lda,
                                                g.B, CUDA_R_32F, ldb, fb, g.C, CUDA_R_32F, ldc,
                                                2, size, CUBLAS_COMPUTE_32F_FAST_TF32), 0);
    check_groups(&g, CUDA_R_32F, "cublasGemmGroupedBatchedEx", "tf32", "fp32", "32F_FAST_TF32",
                 &t0);

    fill_groups(&g, CUDA_R_16BF);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmGroupedBatchedEx_64(h, g.ta, g.tb, m64, n64, k64, fa, g.A,
                                                   CUDA_R_16BF, lda64, g.B, CUDA_R_16BF, ldb64,
                                                   fb, g.C, CUDA_R_16BF, ldc64, 2, size64,
                                                   CUBLAS_COMPUTE_32F), 0);
    check_groups(&g, CUDA_R_16BF, "cublasGemmGroupedBatchedEx_64", "bf16", "bf16", "32F", &t0);

    /* The _64 float form and the math mode: tf32 on h_tf32. */
    fill_groups(&g, CUDA_R_32F);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemmGroupedBatched_64(h_tf32, g.ta, g.tb, m64, n64, k64, fa,
                                                  (const float *const *)g.A, lda64,
                                                  (const float *const *)g.B, ldb64, fb,
                                                  (float *const *)g.C, ldc64, 2, size64), 0);
    check_groups(&g, CUDA_R_32F, "cublasSgemmGroupedBatched_64", "tf32", "fp32", NULL, &t0);

    fill_groups(&g, CUDA_R_64F);
    t0 = ck_totals_now();
    assert_int_equal(cublasDgemmGroupedBatched(h, g.ta, g.tb, m, n, k, da,
                                               (const double *const *)g.A, lda,
                                               (const double *const *)g.B, ldb, db,
                                               (double *const *)g.C, ldc, 2, size), 0);
    check_groups(&g, CUDA_R_64F, "cublasDgemmGroupedBatched", "fp64", "fp64", NULL, &t0);
}

/* Failures: the status comes back unchanged and no FLOPs are added. */
static void test_failures(void **state)
{
    (void)state;
    three x;
    fill3(&x, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    /* batchCount < 0: INVALID_VALUE, an invalid record. */
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemmBatched(h, N_, N_, 2, 4, 3, &f_alpha, (const float *const *)x.A,
                                        2, (const float *const *)x.B, 3, &f_beta,
                                        (float *const *)x.C, 2, -1),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_expect_delta(&t0, 0, 0, 0, 1);
    /* NULL handle: NOT_INITIALIZED, failed with its shape (m=6 n=7 k=8, batch 5). */
    t0 = ck_totals_now();
    assert_int_equal(cublasDgemmStridedBatched_64(NULL, T_, N_, 6, 7, 8, &d_alpha, x.A[0], 8, 0,
                                                  x.B[0], 8, 0, &d_beta, x.C[0], 6, 0, 5),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    ck_expect_delta(&t0, 0, 0, 1, 0);
    ck_expect(&(ck_want){"cublasDgemmStridedBatched_64", 6, 7, 8, 5, 'T', 'N', "fp64", "fp64",
                         NULL, 0, 1, 0});
    /* batchCount 0: success, one call, no FLOPs. */
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemmStridedBatched_64(h, C_, T_, 2, 4, 3, &f_alpha, x.A[0], 3, 0,
                                                  x.B[0], 4, 0, &f_beta, x.C[0], 2, 0, 0), 0);
    check3(&x, 0, CUDA_R_32F, 0);
    ck_check_untouched(&x.ops[0], CUDA_R_32F);
    ck_expect_delta(&t0, 1, 0, 0, 0);
    ck_expect(&(ck_want){"cublasSgemmStridedBatched_64", 2, 4, 3, 0, 'C', 'T', "fp32", "fp32",
                         NULL, 1, 0, 0});
}

static void test_grouped_failures(void **state)
{
    (void)state;
    two_groups g;
    fill_groups(&g, CUDA_R_32F);
    int m[2] = {5, 3}, n[2] = {6, 1}, k[2] = {7, 2}, lda[2] = {5, 2}, ldb[2] = {7, 1},
        ldc[2] = {5, 3}, size[2] = {-1, 1};
    float fa[2] = {2, 1}, fb[2] = {1, 0};
    /* A negative group size: INVALID_VALUE; that group is invalid, the other failed. */
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemmGroupedBatched(h, g.ta, g.tb, m, n, k, fa,
                                               (const float *const *)g.A, lda,
                                               (const float *const *)g.B, ldb, fb,
                                               (float *const *)g.C, ldc, 2, size),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_expect_delta(&t0, 0, 0, 1, 1);
    ck_expect(&(ck_want){"cublasSgemmGroupedBatched", 3, 1, 2, 1, 'T', 'T', "fp32", "fp32", NULL,
                         0, 1, 0});
    /* A negative group count: one invalid record. */
    size[0] = 2;
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemmGroupedBatched(h, g.ta, g.tb, m, n, k, fa,
                                               (const float *const *)g.A, lda,
                                               (const float *const *)g.B, ldb, fb,
                                               (float *const *)g.C, ldc, -3, size),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_expect_delta(&t0, 0, 0, 0, 1);
    /* No groups: success, nothing to record. */
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmGroupedBatchedEx(h, g.ta, g.tb, m, n, k, fa, g.A, CUDA_R_32F, lda,
                                                g.B, CUDA_R_32F, ldb, fb, g.C, CUDA_R_32F, ldc,
                                                0, size, CUBLAS_COMPUTE_32F), 0);
    ck_expect_delta(&t0, 0, 0, 0, 0);
    /* NULL handle: every group failed with its shape. */
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmGroupedBatchedEx(NULL, g.ta, g.tb, m, n, k, fa, g.A, CUDA_R_32F,
                                                lda, g.B, CUDA_R_32F, ldb, fb, g.C, CUDA_R_32F,
                                                ldc, 2, size, CUBLAS_COMPUTE_32F),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    ck_expect_delta(&t0, 0, 0, 2, 0);
    struct json_object *r = ck_report();
    ck_expect_shape(r, &(ck_want){"cublasGemmGroupedBatchedEx", 5, 6, 7, 2, 'N', 'N', "fp32",
                                  "fp32", "32F", 0, 1, 0});
    ck_expect_shape(r, &(ck_want){"cublasGemmGroupedBatchedEx", 3, 1, 2, 1, 'T', 'T', "fp32",
                                  "fp32", "32F", 0, 1, 0});
    json_object_put(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batched_typed),      cmocka_unit_test(test_strided_typed),
        cmocka_unit_test(test_batched_strided_ex), cmocka_unit_test(test_grouped),
        cmocka_unit_test(test_failures),           cmocka_unit_test(test_grouped_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

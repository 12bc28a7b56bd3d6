/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublas_gemm.c - the single-GEMM cuBLAS hooks (plain, Ex, 3m, _64)
 * through the CPU emulation of libcublas.so.13, under LD_PRELOAD of
 * libflopcount.so: the program's results are unchanged, the real status
 * comes back, and each call is counted once with its exact shape, dtype
 * and FLOPs.
 *
 * Every call is the hand-worked GEMM of emu/cublas_emu_check.h (m=2, n=4,
 * k=3): 2*2*4*3 = 48 FLOPs real, 8*2*4*3 = 192 complex. Each test uses a
 * report key (api, transposes, dtypes) no other test uses, so the tests
 * do not depend on their order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <cublas_api.h>
#include <json-c/json.h>

#include "emu/cublas_emu_check.h"

/* cuda_fp16.h declares no __half for C; the emulation takes its bits. */
cublasStatus_t cublasHgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                           const uint16_t *, const uint16_t *, int, const uint16_t *, int,
                           const uint16_t *, uint16_t *, int);
cublasStatus_t cublasHgemm_64(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t,
                              int64_t, int64_t, const uint16_t *, const uint16_t *, int64_t,
                              const uint16_t *, int64_t, const uint16_t *, uint16_t *, int64_t);

#define N_ CUBLAS_OP_N
#define T_ CUBLAS_OP_T
#define C_ CUBLAS_OP_C

static cublasHandle_t h;     /* default math mode */
static cublasHandle_t h_tf32; /* CUBLAS_TF32_TENSOR_OP_MATH */

static const float f_alpha = 2, f_beta = 1;
static const double d_alpha = 2, d_beta = 1;
static const cuComplex c_alpha = {2, 0}, c_beta = {1, 0};
static const cuDoubleComplex z_alpha = {2, 0}, z_beta = {1, 0};

static int setup(void **state)
{
    (void)state;
    ck_shim_symbol("cublasSgemm_v2"); /* the hooks are there, not only the emulation */
    if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS || cublasCreate_v2(&h_tf32) != 0)
        return -1;
    return cublasSetMathMode(h_tf32, CUBLAS_TF32_TENSOR_OP_MATH) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return cublasDestroy_v2(h) | cublasDestroy_v2(h_tf32);
}

/* One successful call: 48 (or 192 complex) FLOPs in the totals and in its entry. */
static void expect_one(const ck_totals *t0, const char *api, char ta, char tb, const char *dt,
                       const char *out, const char *compute, uint64_t flops)
{
    ck_expect_delta(t0, 1, flops, 0, 0);
    ck_want w = {api, CK_M, CK_N, CK_K, 1, ta, tb, dt, out, compute, 1, 0, flops};
    ck_expect(&w);
}

/* ---- typed entry points ---- */

static void test_sgemm(void **state)
{
    (void)state;
    ck_ops o;
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemm_v2(h, N_, N_, 2, 4, 3, &f_alpha, (float *)o.A, 2, (float *)o.B,
                                    3, &f_beta, (float *)o.C, 2), CUBLAS_STATUS_SUCCESS);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasSgemm_v2", 'N', 'N', "fp32", "fp32", NULL, 48);

    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'T', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemm_v2_64(h, T_, T_, 2, 4, 3, &f_alpha, (float *)o.A, 3,
                                       (float *)o.B, 4, &f_beta, (float *)o.C, 2), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasSgemm_v2_64", 'T', 'T', "fp32", "fp32", NULL, 48);
}

static void test_dgemm(void **state)
{
    (void)state;
    ck_ops o;
    ck_fill(&o, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 'N', 'T', 0);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasDgemm_v2(h, N_, T_, 2, 4, 3, &d_alpha, o.A, 2, o.B, 4, &d_beta, o.C,
                                    2), 0);
    ck_check_c(&o, CUDA_R_64F, 0);
    expect_one(&t0, "cublasDgemm_v2", 'N', 'T', "fp64", "fp64", NULL, 48);

    ck_fill(&o, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 'T', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasDgemm_v2_64(h, T_, N_, 2, 4, 3, &d_alpha, o.A, 3, o.B, 3, &d_beta,
                                       o.C, 2), 0);
    ck_check_c(&o, CUDA_R_64F, 0);
    expect_one(&t0, "cublasDgemm_v2_64", 'T', 'N', "fp64", "fp64", NULL, 48);
}

/* Complex: B imaginary, so C = 1 + 2i*product, or 1 - 2i*product when B is
 * conjugated (op C). 8*m*n*k = 192. */
static void test_cgemm_zgemm(void **state)
{
    (void)state;
    ck_ops o;
    ck_fill(&o, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, 'N', 'C', 1);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasCgemm_v2(h, N_, C_, 2, 4, 3, &c_alpha, (cuComplex *)o.A, 2,
                                    (cuComplex *)o.B, 4, &c_beta, (cuComplex *)o.C, 2), 0);
    ck_check_c(&o, CUDA_C_32F, -1);
    expect_one(&t0, "cublasCgemm_v2", 'N', 'C', "complex64", "complex64", NULL, 192);

    ck_fill(&o, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, 'C', 'N', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasCgemm_v2_64(h, C_, N_, 2, 4, 3, &c_alpha, (cuComplex *)o.A, 3,
                                       (cuComplex *)o.B, 3, &c_beta, (cuComplex *)o.C, 2), 0);
    ck_check_c(&o, CUDA_C_32F, 1);
    expect_one(&t0, "cublasCgemm_v2_64", 'C', 'N', "complex64", "complex64", NULL, 192);

    ck_fill(&o, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, 'N', 'N', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasZgemm_v2(h, N_, N_, 2, 4, 3, &z_alpha, (cuDoubleComplex *)o.A, 2,
                                    (cuDoubleComplex *)o.B, 3, &z_beta,
                                    (cuDoubleComplex *)o.C, 2), 0);
    ck_check_c(&o, CUDA_C_64F, 1);
    expect_one(&t0, "cublasZgemm_v2", 'N', 'N', "complex128", "complex128", NULL, 192);

    ck_fill(&o, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, 'T', 'C', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasZgemm_v2_64(h, T_, C_, 2, 4, 3, &z_alpha, (cuDoubleComplex *)o.A, 3,
                                       (cuDoubleComplex *)o.B, 4, &z_beta,
                                       (cuDoubleComplex *)o.C, 2), 0);
    ck_check_c(&o, CUDA_C_64F, -1);
    expect_one(&t0, "cublasZgemm_v2_64", 'T', 'C', "complex128", "complex128", NULL, 192);
}

/* 3m kernels do fewer real multiplies; we still count 8*m*n*k = 192. */
static void test_gemm3m(void **state)
{
    (void)state;
    ck_ops o;
    ck_fill(&o, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, 'N', 'N', 1);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasCgemm3m(h, N_, N_, 2, 4, 3, &c_alpha, (cuComplex *)o.A, 2,
                                   (cuComplex *)o.B, 3, &c_beta, (cuComplex *)o.C, 2), 0);
    ck_check_c(&o, CUDA_C_32F, 1);
    expect_one(&t0, "cublasCgemm3m", 'N', 'N', "complex64", "complex64", NULL, 192);

    ck_fill(&o, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, 'T', 'N', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasCgemm3m_64(h, T_, N_, 2, 4, 3, &c_alpha, (cuComplex *)o.A, 3,
                                      (cuComplex *)o.B, 3, &c_beta, (cuComplex *)o.C, 2), 0);
    ck_check_c(&o, CUDA_C_32F, 1);
    expect_one(&t0, "cublasCgemm3m_64", 'T', 'N', "complex64", "complex64", NULL, 192);

    ck_fill(&o, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, 'N', 'C', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasZgemm3m(h, N_, C_, 2, 4, 3, &z_alpha, (cuDoubleComplex *)o.A, 2,
                                   (cuDoubleComplex *)o.B, 4, &z_beta, (cuDoubleComplex *)o.C,
                                   2), 0);
    ck_check_c(&o, CUDA_C_64F, -1);
    expect_one(&t0, "cublasZgemm3m", 'N', 'C', "complex128", "complex128", NULL, 192);

    ck_fill(&o, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, 'N', 'N', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasZgemm3m_64(h, N_, N_, 2, 4, 3, &z_alpha, (cuDoubleComplex *)o.A, 2,
                                      (cuDoubleComplex *)o.B, 3, &z_beta,
                                      (cuDoubleComplex *)o.C, 2), 0);
    ck_check_c(&o, CUDA_C_64F, 1);
    expect_one(&t0, "cublasZgemm3m_64", 'N', 'N', "complex128", "complex128", NULL, 192);
}

static void test_hgemm(void **state)
{
    (void)state;
    uint16_t alpha = ck_half(2), beta = ck_half(1);
    ck_ops o;
    ck_fill(&o, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, 'N', 'N', 0);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasHgemm(h, N_, N_, 2, 4, 3, &alpha, (uint16_t *)o.A, 2,
                                 (uint16_t *)o.B, 3, &beta, (uint16_t *)o.C, 2), 0);
    ck_check_c(&o, CUDA_R_16F, 0);
    expect_one(&t0, "cublasHgemm", 'N', 'N', "fp16", "fp16", NULL, 48);

    ck_fill(&o, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, 'T', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasHgemm_64(h, T_, T_, 2, 4, 3, &alpha, (uint16_t *)o.A, 3,
                                    (uint16_t *)o.B, 4, &beta, (uint16_t *)o.C, 2), 0);
    ck_check_c(&o, CUDA_R_16F, 0);
    expect_one(&t0, "cublasHgemm_64", 'T', 'T', "fp16", "fp16", NULL, 48);
}

/* ---- Ex entry points: dtype from Atype, out_dtype from Ctype ---- */

static void test_sgemmex_cgemmex(void **state)
{
    (void)state;
    ck_ops o;
    ck_fill(&o, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, 'N', 'N', 0);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemmEx(h, N_, N_, 2, 4, 3, &f_alpha, o.A, CUDA_R_16F, 2, o.B,
                                   CUDA_R_16F, 3, &f_beta, o.C, CUDA_R_32F, 2), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasSgemmEx", 'N', 'N', "fp16", "fp32", "32F", 48);

    ck_fill(&o, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, 'T', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemmEx_64(h, T_, N_, 2, 4, 3, &f_alpha, o.A, CUDA_R_16BF, 3, o.B,
                                      CUDA_R_16BF, 3, &f_beta, o.C, CUDA_R_16BF, 2), 0);
    ck_check_c(&o, CUDA_R_16BF, 0);
    expect_one(&t0, "cublasSgemmEx_64", 'T', 'N', "bf16", "bf16", "32F", 48);

    ck_fill(&o, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, 'N', 'T', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasCgemmEx(h, N_, T_, 2, 4, 3, &c_alpha, o.A, CUDA_C_32F, 2, o.B,
                                   CUDA_C_32F, 4, &c_beta, o.C, CUDA_C_32F, 2), 0);
    ck_check_c(&o, CUDA_C_32F, 1);
    expect_one(&t0, "cublasCgemmEx", 'N', 'T', "complex64", "complex64", "32F", 192);

    ck_fill(&o, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, 'N', 'N', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasCgemmEx_64(h, N_, N_, 2, 4, 3, &c_alpha, o.A, CUDA_C_32F, 2, o.B,
                                      CUDA_C_32F, 3, &c_beta, o.C, CUDA_C_32F, 2), 0);
    ck_check_c(&o, CUDA_C_32F, 1);
    expect_one(&t0, "cublasCgemmEx_64", 'N', 'N', "complex64", "complex64", "32F", 192);

    ck_fill(&o, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, 'N', 'N', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasCgemm3mEx(h, N_, N_, 2, 4, 3, &c_alpha, o.A, CUDA_C_32F, 2, o.B,
                                     CUDA_C_32F, 3, &c_beta, o.C, CUDA_C_32F, 2), 0);
    ck_check_c(&o, CUDA_C_32F, 1);
    expect_one(&t0, "cublasCgemm3mEx", 'N', 'N', "complex64", "complex64", "32F", 192);

    ck_fill(&o, CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, 'T', 'C', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasCgemm3mEx_64(h, T_, C_, 2, 4, 3, &c_alpha, o.A, CUDA_C_32F, 3, o.B,
                                        CUDA_C_32F, 4, &c_beta, o.C, CUDA_C_32F, 2), 0);
    ck_check_c(&o, CUDA_C_32F, -1);
    expect_one(&t0, "cublasCgemm3mEx_64", 'T', 'C', "complex64", "complex64", "32F", 192);
}

/* Moves a rows x cols column-major matrix from leading dimension rows to 4. */
static void pad_ld(void *x, int t, int rows, int cols)
{
    for (int c = cols - 1; c >= 0; c--)
        for (int r = rows - 1; r >= 0; r--) {
            double re, im;
            ck_get(x, t, (size_t)(c * rows + r), &re, &im);
            ck_put(x, t, (size_t)(c * 4 + r), re, im);
        }
}

static void test_gemmex_types(void **state)
{
    (void)state;
    ck_ops o;
    ck_fill(&o, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, 'N', 'N', 0);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx(h, N_, N_, 2, 4, 3, &f_alpha, o.A, CUDA_R_16BF, 2, o.B,
                                  CUDA_R_16BF, 3, &f_beta, o.C, CUDA_R_32F, 2,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasGemmEx", 'N', 'N', "bf16", "fp32", "32F", 48);

    uint16_t h_alpha = ck_half(2), h_beta = ck_half(1);
    ck_fill(&o, CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, 'N', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx(h, N_, T_, 2, 4, 3, &h_alpha, o.A, CUDA_R_16F, 2, o.B,
                                  CUDA_R_16F, 4, &h_beta, o.C, CUDA_R_16F, 2,
                                  CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_16F, 0);
    expect_one(&t0, "cublasGemmEx", 'N', 'T', "fp16", "fp16", "16F", 48);

    /* int8 wants leading dimensions that are multiples of 4 (real cuBLAS
     * answers NOT_SUPPORTED to lda = ldb = 3): the operands padded to 4. */
    int32_t i_alpha = 2, i_beta = 1;
    ck_fill(&o, CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, 'T', 'N', 0);
    pad_ld(o.A, CUDA_R_8I, 3, 2);
    pad_ld(o.B, CUDA_R_8I, 3, 4);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx(h, T_, N_, 2, 4, 3, &i_alpha, o.A, CUDA_R_8I, 4, o.B,
                                  CUDA_R_8I, 4, &i_beta, o.C, CUDA_R_32I, 2,
                                  CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32I, 0);
    expect_one(&t0, "cublasGemmEx", 'T', 'N', "int8", "int32", "32I", 48);

    ck_fill(&o, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 'T', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx_64(h, T_, T_, 2, 4, 3, &d_alpha, o.A, CUDA_R_64F, 3, o.B,
                                     CUDA_R_64F, 4, &d_beta, o.C, CUDA_R_64F, 2,
                                     CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_64F, 0);
    expect_one(&t0, "cublasGemmEx_64", 'T', 'T', "fp64", "fp64", "64F", 48);

    ck_fill(&o, CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, 'N', 'C', 1);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx_64(h, N_, C_, 2, 4, 3, &z_alpha, o.A, CUDA_C_64F, 2, o.B,
                                     CUDA_C_64F, 4, &z_beta, o.C, CUDA_C_64F, 2,
                                     CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_C_64F, -1);
    expect_one(&t0, "cublasGemmEx_64", 'N', 'C', "complex128", "complex128", "64F", 192);
}

/* The emulated cublasGemmEx runs fp32 work by calling cublasSgemm_v2
 * through the PLT, which lands in our hook again: one call, 48 FLOPs, and
 * no cublasSgemm_v2 calls added. Counting both would read 2 calls, 96. */
static void test_nested_counted_once(void **state)
{
    (void)state;
    struct json_object *r = ck_report();
    uint64_t sgemm0 = ck_api_calls(r, "cublasSgemm_v2"), sgemm64 = ck_api_calls(r, "cublasSgemm_v2_64");
    json_object_put(r);

    ck_ops o;
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'T', 'N', 0);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx(h, T_, N_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 3, o.B,
                                  CUDA_R_32F, 3, &f_beta, o.C, CUDA_R_32F, 2,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasGemmEx", 'T', 'N', "fp32", "fp32", "32F", 48);

    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx_64(h, N_, N_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 2, o.B,
                                     CUDA_R_32F, 3, &f_beta, o.C, CUDA_R_32F, 2,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasGemmEx_64", 'N', 'N', "fp32", "fp32", "32F", 48);

    r = ck_report();
    assert_int_equal(ck_api_calls(r, "cublasSgemm_v2"), sgemm0);
    assert_int_equal(ck_api_calls(r, "cublasSgemm_v2_64"), sgemm64);
    json_object_put(r);
}

/* ---- TF32: compute type 32F_FAST_TF32, or fp32 on a TF32-mode handle ---- */

static void test_tf32(void **state)
{
    (void)state;
    ck_ops o;
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'T', 0);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx(h, N_, T_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 2, o.B,
                                  CUDA_R_32F, 4, &f_beta, o.C, CUDA_R_32F, 2,
                                  CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasGemmEx", 'N', 'T', "tf32", "fp32", "32F_FAST_TF32", 48);

    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemm_v2(h_tf32, N_, N_, 2, 4, 3, &f_alpha, (float *)o.A, 2,
                                    (float *)o.B, 3, &f_beta, (float *)o.C, 2), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasSgemm_v2", 'N', 'N', "tf32", "fp32", NULL, 48);

    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'T', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx_64(h_tf32, T_, T_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 3, o.B,
                                     CUDA_R_32F, 4, &f_beta, o.C, CUDA_R_32F, 2,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasGemmEx_64", 'T', 'T', "tf32", "fp32", "32F", 48);

    /* PEDANTIC overrides the handle's mode. */
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx_64(h_tf32, N_, T_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 2, o.B,
                                     CUDA_R_32F, 4, &f_beta, o.C, CUDA_R_32F, 2,
                                     CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasGemmEx_64", 'N', 'T', "fp32", "fp32", "32F_PEDANTIC", 48);

    /* FAST_16F / FAST_16BF let cuBLAS down-convert fp32 inputs to fp16 /
     * bf16 (or TF32): they run at a 16-bit tensor-core rate, never at the
     * fp32 one, so they are recorded as fp16 / bf16 (on an H100 SXM the
     * fp32 peak, 67 TFLOP/s, would put HFU 989.4 / 67 = 14.8x too high). */
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx(h, N_, T_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 2, o.B,
                                  CUDA_R_32F, 4, &f_beta, o.C, CUDA_R_32F, 2,
                                  CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasGemmEx", 'N', 'T', "bf16", "fp32", "32F_FAST_16BF", 48);
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx_64(h_tf32, N_, T_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 2,
                                     o.B, CUDA_R_32F, 4, &f_beta, o.C, CUDA_R_32F, 2,
                                     CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_GEMM_DEFAULT), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasGemmEx_64", 'N', 'T', "fp16", "fp32", "32F_FAST_16F", 48);
    /* The deprecated CUBLAS_TENSOR_OP_MATH is 32F_FAST_16F for fp32
     * routines (cublas_api.h): an Sgemm on such a handle runs as fp16. */
    cublasHandle_t h16;
    assert_int_equal(cublasCreate_v2(&h16), 0);
    assert_int_equal(cublasSetMathMode(h16, CUBLAS_TENSOR_OP_MATH), 0);
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemm_v2(h16, N_, N_, 2, 4, 3, &f_alpha, (float *)o.A, 2,
                                    (float *)o.B, 3, &f_beta, (float *)o.C, 2), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasSgemm_v2", 'N', 'N', "fp16", "fp32", NULL, 48);
    assert_int_equal(cublasDestroy_v2(h16), 0);

    /* fp16 inputs and fp64 stay what they are on a TF32 handle. */
    ck_fill(&o, CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, 'T', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemmEx(h_tf32, T_, T_, 2, 4, 3, &f_alpha, o.A, CUDA_R_16F, 3, o.B,
                                   CUDA_R_16F, 4, &f_beta, o.C, CUDA_R_32F, 2), 0);
    ck_check_c(&o, CUDA_R_32F, 0);
    expect_one(&t0, "cublasSgemmEx", 'T', 'T', "fp16", "fp32", "32F", 48);

    ck_fill(&o, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, 'T', 'T', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasDgemm_v2(h_tf32, T_, T_, 2, 4, 3, &d_alpha, o.A, 3, o.B, 4, &d_beta,
                                    o.C, 2), 0);
    ck_check_c(&o, CUDA_R_64F, 0);
    expect_one(&t0, "cublasDgemm_v2", 'T', 'T', "fp64", "fp64", NULL, 48);

    /* The mode is a nibble; DISALLOW_REDUCED_PRECISION_REDUCTION is a flag. */
    cublasHandle_t h2;
    assert_int_equal(cublasCreate_v2(&h2), 0);
    assert_int_equal(cublasSetMathMode(h2, (cublasMath_t)(CUBLAS_TF32_TENSOR_OP_MATH |
                                                          CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
                     0);
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'T', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemmEx_64(h2, T_, N_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 3, o.B,
                                      CUDA_R_32F, 3, &f_beta, o.C, CUDA_R_32F, 2), 0);
    expect_one(&t0, "cublasSgemmEx_64", 'T', 'N', "tf32", "fp32", "32F", 48);
    /* Back to the default mode: fp32 again. */
    assert_int_equal(cublasSetMathMode(h2, CUBLAS_DEFAULT_MATH), 0);
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'T', 'N', 0);
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemmEx_64(h2, T_, N_, 2, 4, 3, &f_alpha, o.A, CUDA_R_32F, 3, o.B,
                                      CUDA_R_32F, 3, &f_beta, o.C, CUDA_R_32F, 2), 0);
    expect_one(&t0, "cublasSgemmEx_64", 'T', 'N', "fp32", "fp32", "32F", 48);
    assert_int_equal(cublasDestroy_v2(h2), 0);
}

/* ---- failures: the status comes back unchanged, no FLOPs ---- */

static void test_failures(void **state)
{
    (void)state;
    ck_ops o;
    /* NULL handle: NOT_INITIALIZED, a failed call with its shape (m=5 n=6 k=7). */
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(cublasSgemm_v2(NULL, N_, T_, 5, 6, 7, &f_alpha, (float *)o.A, 5,
                                    (float *)o.B, 6, &f_beta, (float *)o.C, 5),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    ck_check_untouched(&o, CUDA_R_32F);
    ck_expect_delta(&t0, 0, 0, 1, 0);
    ck_expect(&(ck_want){"cublasSgemm_v2", 5, 6, 7, 1, 'N', 'T', "fp32", "fp32", NULL, 0, 1, 0});

    /* m < 0: INVALID_VALUE; an invalid call, with no shape entry. */
    t0 = ck_totals_now();
    assert_int_equal(cublasDgemm_v2(h, N_, N_, -1, 4, 3, &d_alpha, o.A, 2, o.B, 3, &d_beta, o.C,
                                    2), CUBLAS_STATUS_INVALID_VALUE);
    ck_expect_delta(&t0, 0, 0, 0, 1);
    struct json_object *r = ck_report();
    assert_int_equal(ck_count_shapes(r, "cublasDgemm_v2", -1, 4, 3), 0);
    json_object_put(r);

    /* lda too short for m = 2: INVALID_VALUE, failed with its shape. */
    t0 = ck_totals_now();
    assert_int_equal(cublasDgemm_v2_64(h, N_, N_, 2, 4, 3, &d_alpha, o.A, 1, o.B, 3, &d_beta,
                                       o.C, 2), CUBLAS_STATUS_INVALID_VALUE);
    ck_check_untouched(&o, CUDA_R_32F);
    ck_expect_delta(&t0, 0, 0, 1, 0);
    ck_expect(&(ck_want){"cublasDgemm_v2_64", 2, 4, 3, 1, 'N', 'N', "fp64", "fp64", NULL, 0, 1,
                         0});

    /* fp8 through cublasGemmEx: INVALID_VALUE (fp8 is cuBLASLt's), dtype still named. */
    t0 = ck_totals_now();
    assert_int_equal(cublasGemmEx(h, T_, T_, 2, 4, 3, &f_alpha, o.A, CUDA_R_8F_E4M3, 3, o.B,
                                  CUDA_R_8F_E4M3, 4, &f_beta, o.C, CUDA_R_32F, 2,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_expect_delta(&t0, 0, 0, 1, 0);
    ck_expect(&(ck_want){"cublasGemmEx", 2, 4, 3, 1, 'T', 'T', "fp8_e4m3", "fp32", "32F", 0, 1,
                         0});

    /* A failed call on a TF32 handle is recorded as fp32: only success
     * proves the handle valid enough to ask its math mode. */
    t0 = ck_totals_now();
    assert_int_equal(cublasSgemm_v2_64(h_tf32, C_, C_, 2, 4, 3, &f_alpha, (float *)o.A, 2,
                                       (float *)o.B, 4, &f_beta, (float *)o.C, 2),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_expect_delta(&t0, 0, 0, 1, 0);
    ck_expect(&(ck_want){"cublasSgemm_v2_64", 2, 4, 3, 1, 'C', 'C', "fp32", "fp32", NULL, 0, 1,
                         0});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sgemm),          cmocka_unit_test(test_dgemm),
        cmocka_unit_test(test_cgemm_zgemm),    cmocka_unit_test(test_gemm3m),
        cmocka_unit_test(test_hgemm),          cmocka_unit_test(test_sgemmex_cgemmex),
        cmocka_unit_test(test_gemmex_types),   cmocka_unit_test(test_nested_counted_once),
        cmocka_unit_test(test_tf32),           cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

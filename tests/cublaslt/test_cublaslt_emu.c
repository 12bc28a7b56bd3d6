/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublaslt_emu.c - the cublasLtMatmul hook over the CPU emulation of
 * libcublasLt.so.13 (tests/emu/cublaslt_emu.c).
 *
 * Run mode (no arguments): makes the calls below and checks their statuses,
 * their results, and that each reached the emulation exactly once. ctest
 * runs it without the shim and under it: the results must not change.
 * Check mode (--check REPORT): compares the report the shim wrote for the
 * run with counts worked out by hand. The EXPECT_* comments next to each
 * call are the source of the numbers in check_report(). */
#include <cublasLt.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "emu/cublaslt_emu.h"
#include "lt_check.h"

static cublasLtHandle_t handle;

/* On the null GPU (FLOPCOUNT_TEST_NULLGPU, the twin's environment) the
 * real libcublasLt.so.13 runs and no kernel computes: results are not
 * checked there; statuses and counts are, with the real library's answers
 * where they differ from the emulation's (each said where it happens). The
 * emulation's call counter is absent there (weak). */
#pragma weak fc_emu_lt_matmul_calls
static int null_gpu(void)
{
    const char *v = getenv("FLOPCOUNT_TEST_NULLGPU");
    return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}
#define RESULT_EQUAL(a, b, n)                                                                      \
    do {                                                                                           \
        if (!null_gpu())                                                                           \
            assert_memory_equal(a, b, n);                                                          \
    } while (0)
#define RESULT_TRUE(c)                                                                             \
    do {                                                                                           \
        if (!null_gpu())                                                                           \
            assert_true(c);                                                                        \
    } while (0)

/* Calls through whatever cublasLtMatmul the process resolves (the shim's
 * when preloaded) and checks the call reached the library exactly once. */
static cublasStatus_t matmul_h(cublasLtHandle_t h, cublasLtMatmulDesc_t op, const void *alpha,
                               const void *A, cublasLtMatrixLayout_t al, const void *B,
                               cublasLtMatrixLayout_t bl, const void *beta, const void *C,
                               cublasLtMatrixLayout_t cl, void *D, cublasLtMatrixLayout_t dl)
{
    int emu = fc_emu_lt_matmul_calls != NULL;
    unsigned long before = emu ? fc_emu_lt_matmul_calls() : 0;
    cublasStatus_t st =
        cublasLtMatmul(h, op, alpha, A, al, B, bl, beta, C, cl, D, dl, NULL, NULL, 0, 0);
    if (emu)
        assert_int_equal(fc_emu_lt_matmul_calls(), before + 1);
    return st;
}

#define matmul(...) matmul_h(handle, __VA_ARGS__)

static cublasLtMatrixLayout_t layout(cudaDataType t, uint64_t rows, uint64_t cols, int64_t ld)
{
    cublasLtMatrixLayout_t l = NULL;
    assert_int_equal(cublasLtMatrixLayoutCreate(&l, t, rows, cols, ld), CUBLAS_STATUS_SUCCESS);
    return l;
}

static cublasLtMatmulDesc_t desc(cublasComputeType_t c, cudaDataType_t scale, int32_t ta,
                                 int32_t tb)
{
    cublasLtMatmulDesc_t d = NULL;
    assert_int_equal(cublasLtMatmulDescCreate(&d, c, scale), CUBLAS_STATUS_SUCCESS);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, 4), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, 4), 0);
    return d;
}

static void set_u64(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a, uint64_t v)
{
    assert_int_equal(cublasLtMatrixLayoutSetAttribute(l, a, &v, sizeof v), CUBLAS_STATUS_SUCCESS);
}

static void set_i64(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t a, int64_t v)
{
    assert_int_equal(cublasLtMatrixLayoutSetAttribute(l, a, &v, sizeof v), CUBLAS_STATUS_SUCCESS);
}

static void set_batch(cublasLtMatrixLayout_t l, int32_t count, int64_t stride)
{
    assert_int_equal(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                                      sizeof count),
                     CUBLAS_STATUS_SUCCESS);
    set_i64(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, stride);
}

static void free4(cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                  cublasLtMatrixLayout_t c)
{
    cublasLtMatmulDescDestroy(d);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(c);
}

/* fp32 NN, m=3 n=2 k=4, twice, then once on a NULL handle.
 * A = [1 2 3 4; 5 6 7 8; 9 10 11 12], B = [1 0; 0 1; 1 0; 0 1]
 * D = [1+3 2+4; 5+7 6+8; 9+11 10+12] = [4 6; 12 14; 20 22].
 * EXPECT S1: NN 3x2x4 batch 1, fp32->fp32, 32F: 2 calls, 2*3*2*4 = 48 each
 * -> 96 FLOPs; 1 failed (NOT_INITIALIZED from the NULL handle). */
static void test_basic_fp32(void **state)
{
    (void)state;
    float A[] = {1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12}, B[] = {1, 0, 1, 0, 0, 1, 0, 1};
    float want[] = {4, 12, 20, 6, 14, 22}, one = 1, zero = 0;
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N);
    cublasLtMatrixLayout_t a = layout(CUDA_R_32F, 3, 4, 3), b = layout(CUDA_R_32F, 4, 2, 4),
                           d = layout(CUDA_R_32F, 3, 2, 3);
    for (int rep = 0; rep < 2; rep++) {
        float D[6] = {-1, -1, -1, -1, -1, -1};
        /* The emulation leaves errno alone, so the caller must see its own
         * value even on the first call, when the shim resolves symbols. */
        errno = 4242;
        assert_int_equal(matmul(op, &one, A, a, B, b, &zero, D, d, D, d), CUBLAS_STATUS_SUCCESS);
        if (!null_gpu()) /* the real library may set errno itself */
            assert_int_equal(errno, 4242);
        RESULT_EQUAL(D, want, sizeof want);
    }
    float D[6] = {0};
    assert_int_equal(matmul_h(NULL, op, &one, A, a, B, b, &zero, D, d, D, d),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    free4(op, a, b, d);
}

/* fp64 TT, m=2 n=3 k=5. op(A) = [1 1 1 1 1; 1 2 3 4 5], stored 5x2.
 * op(B) columns: all ones, e5 (only row 5), all twos; stored 3x5.
 * D = [5 1 10; 15 5 30].
 * EXPECT S2: TT 2x3x5, fp64->fp64, 64F: 1 call, 2*2*3*5 = 60 FLOPs. */
static void test_fp64_transposed(void **state)
{
    (void)state;
    double A[] = {1, 1, 1, 1, 1, 1, 2, 3, 4, 5};
    double B[] = {1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 1, 2};
    double D[6], want[] = {5, 15, 1, 5, 10, 30}, one = 1, zero = 0;
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_64F, CUDA_R_64F, CUBLAS_OP_T, CUBLAS_OP_T);
    cublasLtMatrixLayout_t a = layout(CUDA_R_64F, 5, 2, 5), b = layout(CUDA_R_64F, 3, 5, 3),
                           d = layout(CUDA_R_64F, 2, 3, 2);
    assert_int_equal(matmul(op, &one, A, a, B, b, &zero, D, d, D, d), CUBLAS_STATUS_SUCCESS);
    RESULT_EQUAL(D, want, sizeof want);
    free4(op, a, b, d);
}

/* fp32 NN strided batch of 4, m=2 n=2 k=3, alpha 2, beta 1, C apart from D.
 * A_z = (z+1)[1 0 0; 0 1 0], B = [1 2; 3 4; 5 6], C_z = z everywhere, so
 * D_z = 2(z+1)[1 2; 3 4] + z (z=3: [11 19; 27 35]).
 * EXPECT S3: NN 2x2x3 batch 4, fp32, 32F: 1 call, 2*2*2*3*4 = 96 FLOPs. */
static void test_batched_alpha_beta(void **state)
{
    (void)state;
    float A[4 * 6] = {0}, B[4 * 6], C[4 * 4], D[4 * 4], alpha = 2, beta = 1;
    for (int z = 0; z < 4; z++) {
        A[z * 6 + 0] = A[z * 6 + 3] = (float)(z + 1); /* column-major (0,0) and (1,1) */
        const float b[] = {1, 3, 5, 2, 4, 6};         /* [1 2; 3 4; 5 6] by columns */
        memcpy(&B[z * 6], b, sizeof b);
        for (int i = 0; i < 4; i++)
            C[z * 4 + i] = (float)z;
    }
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N);
    cublasLtMatrixLayout_t a = layout(CUDA_R_32F, 2, 3, 2), b = layout(CUDA_R_32F, 3, 2, 3),
                           c = layout(CUDA_R_32F, 2, 2, 2), d = layout(CUDA_R_32F, 2, 2, 2);
    set_batch(a, 4, 6);
    set_batch(b, 4, 6);
    set_batch(c, 4, 4);
    set_batch(d, 4, 4);
    assert_int_equal(matmul(op, &alpha, A, a, B, b, &beta, C, c, D, d), CUBLAS_STATUS_SUCCESS);
    for (int z = 0; z < 4; z++) {
        float s = 2.0f * (float)(z + 1), want[] = {s + z, 3 * s + z, 2 * s + z, 4 * s + z};
        RESULT_EQUAL(&D[z * 4], want, sizeof want);
    }
    free4(op, a, b, c);
    cublasLtMatrixLayoutDestroy(d);
}

/* One descriptor set reused with changed attributes.
 * First NN m=5 n=6 k=7: A[i,p] = i+p, op(B) = first 6 columns of I7, so
 * D[i,j] = i+j. EXPECT S4: NN 5x6x7, fp32, 32F: 1 call, 2*5*6*7 = 420.
 * Then TRANSA=T, A re-shaped to 7x5 (ld 7) holding At[p,i] = 10p + i,
 * B to 7x1 ones, D to 5x1: D[i] = sum_p (10p + i) = 210 + 7i.
 * EXPECT S5: TN 5x1x7, fp32, 32F: 1 call, 2*5*1*7 = 70. */
static void test_reused_descriptors(void **state)
{
    (void)state;
    float A[35], B[42] = {0}, D[30], one = 1, zero = 0;
    for (int p = 0; p < 7; p++)
        for (int i = 0; i < 5; i++)
            A[i + p * 5] = (float)(i + p);
    for (int j = 0; j < 6; j++)
        B[j + j * 7] = 1;
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N);
    cublasLtMatrixLayout_t a = layout(CUDA_R_32F, 5, 7, 5), b = layout(CUDA_R_32F, 7, 6, 7),
                           d = layout(CUDA_R_32F, 5, 6, 5);
    assert_int_equal(matmul(op, &one, A, a, B, b, &zero, D, d, D, d), CUBLAS_STATUS_SUCCESS);
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 5; i++)
            RESULT_TRUE(D[i + j * 5] == (float)(i + j));

    int32_t t = CUBLAS_OP_T;
    assert_int_equal(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, 4), 0);
    set_u64(a, CUBLASLT_MATRIX_LAYOUT_ROWS, 7);
    set_u64(a, CUBLASLT_MATRIX_LAYOUT_COLS, 5);
    set_i64(a, CUBLASLT_MATRIX_LAYOUT_LD, 7);
    set_u64(b, CUBLASLT_MATRIX_LAYOUT_COLS, 1);
    set_u64(d, CUBLASLT_MATRIX_LAYOUT_COLS, 1);
    for (int i = 0; i < 5; i++)
        for (int p = 0; p < 7; p++)
            A[p + i * 7] = (float)(10 * p + i);
    for (int p = 0; p < 7; p++)
        B[p] = 1;
    assert_int_equal(matmul(op, &one, A, a, B, b, &zero, D, d, D, d), CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < 5; i++)
        RESULT_TRUE(D[i] == (float)(210 + 7 * i));
    free4(op, a, b, d);
}

/* Descriptors built by the inline Init helpers in caller memory (the hook
 * never sees a Create), the matmul descriptor re-initialised in place.
 * m=4 n=1 k=2: A columns [1 2 3 4] and [10 20 30 40], B = [1; 1],
 * D = [11 22 33 44].
 * EXPECT S6: NN 4x1x2, tf32->fp32, 32F_FAST_TF32: 1 call, 2*4*1*2 = 16.
 * EXPECT S7: NN 4x1x2, bf16->fp32, 32F_FAST_16BF: 1 call, 16 (FAST_16BF
 * lets cuBLASLt down-convert the fp32 inputs to bf16: it runs at the bf16
 * rate, never at fp32's; see docs/cublaslt.md). */
static void test_init_helpers(void **state)
{
    (void)state;
    float A[] = {1, 2, 3, 4, 10, 20, 30, 40}, B[] = {1, 1}, want[] = {11, 22, 33, 44};
    float one = 1, zero = 0;
    cublasLtMatmulDescOpaque_t op;
    cublasLtMatrixLayoutOpaque_t a, b, d;
    assert_int_equal(cublasLtMatrixLayoutInit(&a, CUDA_R_32F, 4, 2, 4), 0);
    assert_int_equal(cublasLtMatrixLayoutInit(&b, CUDA_R_32F, 2, 1, 2), 0);
    assert_int_equal(cublasLtMatrixLayoutInit(&d, CUDA_R_32F, 4, 1, 4), 0);
    cublasComputeType_t modes[] = {CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F_FAST_16BF};
    for (int i = 0; i < 2; i++) {
        float D[4] = {0};
        assert_int_equal(cublasLtMatmulDescInit(&op, modes[i], CUDA_R_32F), 0);
        assert_int_equal(matmul(&op, &one, A, &a, B, &b, &zero, D, &d, D, &d),
                         CUBLAS_STATUS_SUCCESS);
        RESULT_EQUAL(D, want, sizeof want);
    }
}

/* Failures keep their status and are counted with their shape, no FLOPs.
 * EXPECT S8: NN 3x3x3 fp32, 32F: 0 calls, 1 failed (alpha NULL).
 * EXPECT S9: NN 8x8x8 fp16->fp16, 32F: 0 calls, 1 failed (the emulation
 * runs no fp16: NOT_SUPPORTED; the real library runs it). */
static void test_failures(void **state)
{
    (void)state;
    float A[9] = {1}, B[9] = {1}, D[9], zero = 0, one = 1;
    for (int i = 0; i < 9; i++)
        D[i] = 42;
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N);
    cublasLtMatrixLayout_t a = layout(CUDA_R_32F, 3, 3, 3), b = layout(CUDA_R_32F, 3, 3, 3),
                           d = layout(CUDA_R_32F, 3, 3, 3);
    if (!null_gpu()) { /* the real library dereferences a NULL alpha (SIGSEGV) */
        assert_int_equal(matmul(op, NULL, A, a, B, b, &zero, D, d, D, d), CUBLAS_STATUS_INVALID_VALUE);
        for (int i = 0; i < 9; i++)
            assert_true(D[i] == 42);
    }
    free4(op, a, b, d);

    uint16_t H[64] = {0};
    op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N);
    a = layout(CUDA_R_16F, 8, 8, 8);
    b = layout(CUDA_R_16F, 8, 8, 8);
    d = layout(CUDA_R_16F, 8, 8, 8);
    assert_int_equal(matmul(op, &one, H, a, H, b, &zero, H, d, H, d),
                     null_gpu() ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED);
    free4(op, a, b, d);
}

/* NULL descriptors are forwarded untouched and counted as invalid; a NULL
 * D layout, even in place on C, is INVALID_VALUE (as the real library
 * answers; the emulation once took C's layout for it and computed).
 * EXPECT invalid +2 (all NULL; NULL matmul descriptor).
 * D NULL, in place on C: m=2 n=3 k=2, C untouched.
 * EXPECT S10: NN 2x3x2 fp32, 32F (read off C's layout): 1 failed, 0 FLOPs. */
static void test_null_descriptors(void **state)
{
    (void)state;
    float A[] = {1, 3, 2, 4}, B[] = {1, 0, 0, 1, 1, 1}, CD[6], one = 1;
    for (int i = 0; i < 6; i++)
        CD[i] = 1;
    assert_int_equal(matmul(NULL, &one, A, NULL, B, NULL, &one, CD, NULL, CD, NULL),
                     CUBLAS_STATUS_INVALID_VALUE);
    cublasLtMatrixLayout_t a = layout(CUDA_R_32F, 2, 2, 2), b = layout(CUDA_R_32F, 2, 3, 2),
                           c = layout(CUDA_R_32F, 2, 3, 2);
    if (!null_gpu()) /* the real library dereferences a NULL matmul descriptor (SIGSEGV) */
        assert_int_equal(matmul(NULL, &one, A, a, B, b, &one, CD, c, CD, c),
                         CUBLAS_STATUS_INVALID_VALUE);
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N);
    assert_int_equal(matmul(op, &one, A, a, B, b, &one, CD, c, CD, NULL), CUBLAS_STATUS_INVALID_VALUE);
    for (int i = 0; i < 6; i++)
        assert_true(CD[i] == 1);
    free4(op, a, b, c);
}

/* Descriptors the library does not recognise (never initialised: zeroed
 * memory) and layouts that disagree: forwarded, counted as invalid.
 * EXPECT invalid +2. */
static void test_garbage_and_mismatch(void **state)
{
    (void)state;
    float X[16] = {0}, one = 1;
    cublasLtMatmulDescOpaque_t zop;
    cublasLtMatrixLayoutOpaque_t za;
    memset(&zop, 0, sizeof zop);
    memset(&za, 0, sizeof za);
    assert_int_equal(matmul(&zop, &one, X, &za, X, &za, &one, X, &za, X, &za),
                     CUBLAS_STATUS_INVALID_VALUE);
    /* op(A) 3x4 but op(B) 5x2: k disagrees. */
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N);
    cublasLtMatrixLayout_t a = layout(CUDA_R_32F, 3, 4, 3), b = layout(CUDA_R_32F, 5, 2, 5),
                           d = layout(CUDA_R_32F, 3, 2, 3);
    assert_int_equal(matmul(op, &one, X, a, X, b, &one, X, d, X, d), CUBLAS_STATUS_INVALID_VALUE);
    free4(op, a, b, d);
}

static const lt_want expected[] = {
    /* m  n  k  batch ta tb dtype out compute calls failed flops */
    {3, 2, 4, 1, 'N', 'N', "fp32", "fp32", "32F", 2, 1, 96},           /* S1 */
    {2, 3, 5, 1, 'T', 'T', "fp64", "fp64", "64F", 1, 0, 60},           /* S2 */
    {2, 2, 3, 4, 'N', 'N', "fp32", "fp32", "32F", 1, 0, 96},           /* S3 */
    {5, 6, 7, 1, 'N', 'N', "fp32", "fp32", "32F", 1, 0, 420},          /* S4 */
    {5, 1, 7, 1, 'T', 'N', "fp32", "fp32", "32F", 1, 0, 70},           /* S5 */
    {4, 1, 2, 1, 'N', 'N', "tf32", "fp32", "32F_FAST_TF32", 1, 0, 16}, /* S6 */
    {4, 1, 2, 1, 'N', 'N', "bf16", "fp32", "32F_FAST_16BF", 1, 0, 16}, /* S7 */
    {2, 3, 2, 1, 'N', 'N', "fp32", "fp32", "32F", 0, 1, 0},            /* S10 */
    {3, 3, 3, 1, 'N', 'N', "fp32", "fp32", "32F", 0, 1, 0},            /* S8 (not on the null GPU) */
};
/* S9, fp16 8x8x8: the emulation runs no fp16; the real library does:
 * 2*8*8*8 = 1,024 FLOPs on the null GPU. */
static const lt_want s9_emu = {8, 8, 8, 1, 'N', 'N', "fp16", "fp16", "32F", 0, 1, 0};
static const lt_want s9_real = {8, 8, 8, 1, 'N', 'N', "fp16", "fp16", "32F", 1, 0, 1024};
/* The zeroed (never initialised) descriptors: the emulation's getters refuse
 * them (invalid); the real library's read them as zeros, so the call is a
 * failed call there: 0x0x0, batch 0, compute type unknown (zero). */
static const lt_want garbage_real = {0, 0, 0, 0, 'N', 'N', "fp32", "fp32", "unknown", 0, 1, 0};

static const char *report_path;

/* Totals from the EXPECT lines: successful calls S1 2 + S2..S7 6 = 8;
 * FLOPs 96+60+96+420+70+16+16 = 774; failed S1+S8+S9+S10 = 4; invalid 2
 * (NULL) + 2 (garbage, mismatch) = 4. By dtype: fp64 60, tf32 16 (S6),
 * bf16 16 (S7), fp32 96+96+420+70 = 682 in 5 calls.
 * On the null GPU: no S8 and one NULL-descriptor call fewer (the real
 * library crashes on them), S9 succeeds, the zeroed descriptors are a
 * failed 0x0x0 call: 9 calls, 774 + 1,024 = 1,798 FLOPs, 3 failed (S1,
 * S10, zeroed), 2 invalid (all NULL, k mismatch), fp16 1,024. */
static void check_report(void **state)
{
    (void)state;
    int real = null_gpu();
    json_object *r = lt_load(report_path);
    size_t n = sizeof expected / sizeof expected[0] - (real ? 1 : 0);
    for (size_t i = 0; i < n; i++)
        lt_expect_shape(r, &expected[i]);
    lt_expect_shape(r, real ? &s9_real : &s9_emu);
    if (real)
        lt_expect_shape(r, &garbage_real);
    assert_int_equal(lt_shape_count(r), n + 1 + (real ? 1 : 0));
    assert_int_equal(lt_total(r, "gemm_calls"), real ? 9 : 8);
    assert_int_equal(lt_total(r, "gemm_flops"), real ? 1798 : 774);
    assert_int_equal(lt_total(r, "failed_calls"), real ? 3 : 4);
    assert_int_equal(lt_total(r, "invalid_calls"), real ? 2 : 4);
    assert_int_equal(lt_total(r, "unresolved_calls"), 0);
    assert_int_equal(lt_group(r, "by_api", "cublasLtMatmul", "calls"), real ? 9 : 8);
    assert_int_equal(lt_group(r, "by_api", "cublasLtMatmul", "flops"), real ? 1798 : 774);
    assert_int_equal(lt_group(r, "by_dtype", "fp64", "flops"), 60);
    assert_int_equal(lt_group(r, "by_dtype", "tf32", "flops"), 16);
    assert_int_equal(lt_group(r, "by_dtype", "bf16", "flops"), 16);
    assert_int_equal(lt_group(r, "by_dtype", "fp16", "flops"), real ? 1024 : 0);
    assert_int_equal(lt_group(r, "by_dtype", "fp32", "flops"), 682);
    assert_int_equal(lt_group(r, "by_dtype", "fp32", "calls"), 5);
    json_object_put(r);
}

static int open_handle(void **state)
{
    (void)state;
    return cublasLtCreate(&handle) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

static int close_handle(void **state)
{
    (void)state;
    return cublasLtDestroy(handle) == CUBLAS_STATUS_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        report_path = argv[2];
        const struct CMUnitTest checks[] = {cmocka_unit_test(check_report)};
        return cmocka_run_group_tests_name("cublaslt_emu_report", checks, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_fp32),         cmocka_unit_test(test_fp64_transposed),
        cmocka_unit_test(test_batched_alpha_beta), cmocka_unit_test(test_reused_descriptors),
        cmocka_unit_test(test_init_helpers),       cmocka_unit_test(test_failures),
        cmocka_unit_test(test_null_descriptors),   cmocka_unit_test(test_garbage_and_mismatch),
    };
    return cmocka_run_group_tests_name("cublaslt_emu", tests, open_handle, close_handle);
}

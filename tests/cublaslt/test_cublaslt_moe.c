/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublaslt_moe.c - the cuBLASLt paths of MoE training through the
 * hook, over the CPU emulation (tests/emu/cublaslt_emu.c): block-scaled
 * FP8/FP4 GEMMs (A/B_SCALE_MODE: MXFP8, FP8 1x128 / 128x128 blocks, NVFP4)
 * counted as fp8 / fp4, and grouped layouts (cuBLAS 13.2+) never counted
 * as GEMMs (their group sizes are in device memory) but listed as
 * uncounted with their group count.
 *
 * Run mode (no arguments) makes the calls and checks their results; check
 * mode (--check REPORT) compares the report with the EXPECT lines, worked
 * out by hand next to each call. */
#include <cublasLt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "emu/cublaslt_emu.h"
#include "lt_check.h"

#if CUBLAS_VERSION < 130200
/* cuBLAS 13.2+ (cublasLt.h of 13.4.1); the 13.0 header this builds
 * against lacks it. */
cublasStatus_t cublasLtGroupedMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout,
                                                 cudaDataType type, int groupCount,
                                                 const void *rows_array, const void *cols_array,
                                                 const void *ld_array);
#endif

#define BF16_ONE 0x3f80u
#define E4M3_ONE 0x38u  /* 0 0111 000: 2^(7-7) */
#define E2M1_HALF 0x1u  /* 0 00 1: subnormal, 0.5 */
#define E2M1_TWO 0x4u   /* 0 10 0: 2^(2-1) */

static cublasLtHandle_t handle;

static cublasStatus_t matmul_h(cublasLtHandle_t h, cublasLtMatmulDesc_t op, const void *A,
                               cublasLtMatrixLayout_t al, const void *B, cublasLtMatrixLayout_t bl,
                               void *D, cublasLtMatrixLayout_t dl)
{
    float one = 1, zero = 0;
    unsigned long before = fc_emu_lt_matmul_calls();
    cublasStatus_t st =
        cublasLtMatmul(h, op, &one, A, al, B, bl, &zero, D, dl, D, dl, NULL, NULL, 0, 0);
    assert_int_equal(fc_emu_lt_matmul_calls(), before + 1);
    return st;
}

static cublasLtMatrixLayout_t layout(cudaDataType t, uint64_t rows, uint64_t cols, int64_t ld)
{
    cublasLtMatrixLayout_t l = NULL;
    assert_int_equal(cublasLtMatrixLayoutCreate(&l, t, rows, cols, ld), CUBLAS_STATUS_SUCCESS);
    return l;
}

/* compute 32F, scale 32F; transposes and A/B scale modes as given. */
static cublasLtMatmulDesc_t desc(int32_t ta, int32_t tb, int32_t sa, int32_t sb)
{
    cublasLtMatmulDesc_t d = NULL;
    assert_int_equal(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, 4), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, 4), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &sa, 4),
                     0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &sb, 4),
                     0);
    return d;
}

static void free4(cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                  cublasLtMatrixLayout_t c)
{
    cublasLtMatmulDescDestroy(d);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(c);
}

/* MXFP8, TN as FP8 GEMMs run: op(A) 4x32 (stored 32x4), B 32x2, all ones
 * in E4M3, one UE8M0 scale per 32 K-elements (not applied: the emulation
 * takes them as 1), D bf16 = 32 everywhere.
 * EXPECT M1: TN 4x2x32, fp8_e4m3 -> bf16, 32F: 1 call, 2*4*2*32 = 512. */
static void test_mxfp8(void **state)
{
    (void)state;
    uint8_t A[32 * 4], B[32 * 2];
    memset(A, E4M3_ONE, sizeof A);
    memset(B, E4M3_ONE, sizeof B);
    uint16_t D[8] = {0};
    int32_t mx = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_T, CUBLAS_OP_N, mx, mx);
    cublasLtMatrixLayout_t a = layout(CUDA_R_8F_E4M3, 32, 4, 32),
                           b = layout(CUDA_R_8F_E4M3, 32, 2, 32), d = layout(CUDA_R_16BF, 4, 2, 4);
    assert_int_equal(matmul_h(handle, op, A, a, B, b, D, d), CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < 8; i++)
        assert_int_equal(D[i], 0x4200); /* bf16 32.0 */
    free4(op, a, b, d);
}

/* FP8 block scaling (DeepSeek-V3): A 1x128 blocks, B 128x128 blocks.
 * op(A) 2x128 (stored 128x2), B 128x3, ones; D fp32 = 128.
 * EXPECT M2: TN 2x3x128, fp8_e4m3 -> fp32, 32F: 1 call, 2*2*3*128 = 1536. */
static void test_fp8_blocks(void **state)
{
    (void)state;
    uint8_t A[128 * 2], B[128 * 3];
    memset(A, E4M3_ONE, sizeof A);
    memset(B, E4M3_ONE, sizeof B);
    float D[6] = {0};
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_T, CUBLAS_OP_N, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
                                   CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F);
    cublasLtMatrixLayout_t a = layout(CUDA_R_8F_E4M3, 128, 2, 128),
                           b = layout(CUDA_R_8F_E4M3, 128, 3, 128),
                           d = layout(CUDA_R_32F, 2, 3, 2);
    assert_int_equal(matmul_h(handle, op, A, a, B, b, D, d), CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < 6; i++)
        assert_true(D[i] == 128.0f);
    free4(op, a, b, d);
}

/* NVFP4: E2M1 inputs (two per byte), one UE4M3 scale per 16 elements.
 * op(A) 2x16 (stored 16x2) all 0.5, B 16x2 all 2: D fp32 = 16 * 1 = 16.
 * EXPECT M3: TN 2x2x16, fp4_e2m1 -> fp32, 32F: 1 call, 2*2*2*16 = 128.
 * Then with MXFP8's scale mode on FP4 data, which the library refuses
 * (NOT_SUPPORTED): EXPECT M3 also 1 failed call. */
static void test_nvfp4(void **state)
{
    (void)state;
    uint8_t A[16 * 2 / 2], B[16 * 2 / 2];
    memset(A, E2M1_HALF | E2M1_HALF << 4, sizeof A);
    memset(B, E2M1_TWO | E2M1_TWO << 4, sizeof B);
    float D[4] = {0};
    int32_t nv = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
    int32_t mx = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_T, CUBLAS_OP_N, nv, nv);
    cublasLtMatrixLayout_t a = layout(CUDA_R_4F_E2M1, 16, 2, 16),
                           b = layout(CUDA_R_4F_E2M1, 16, 2, 16), d = layout(CUDA_R_32F, 2, 2, 2);
    assert_int_equal(matmul_h(handle, op, A, a, B, b, D, d), CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < 4; i++)
        assert_true(D[i] == 16.0f);
    cublasLtMatmulDesc_t bad = desc(CUBLAS_OP_T, CUBLAS_OP_N, mx, mx);
    assert_int_equal(matmul_h(handle, bad, A, a, B, b, D, d), CUBLAS_STATUS_NOT_SUPPORTED);
    cublasLtMatmulDescDestroy(bad);
    free4(op, a, b, d);
}

/* Grouped, bf16 NN, three experts: group g's D is m_g x 2 with m = {2, 1,
 * 3} tokens, k = 4; A_g m_g x 4 and B_g 4 x 2 all ones, so D_g = 4. The
 * sizes live in the arrays (device memory on a GPU): the host layouts say
 * 0 x 0. Called twice, then once on a NULL handle.
 * EXPECT G1: no GEMM counted; uncounted "cublasLtMatmul grouped bf16",
 * sizes_in_device_memory, detail "3 groups", 2 calls, 1 failed. */
static void test_grouped(void **state)
{
    (void)state;
    int32_t m[3] = {2, 1, 3}, n[3] = {2, 2, 2}, k[3] = {4, 4, 4};
    uint16_t a0[8], a1[4], a2[12], b[3][8];
    for (size_t i = 0; i < 12; i++) {
        if (i < 8)
            a0[i] = b[0][i] = b[1][i] = b[2][i] = BF16_ONE;
        if (i < 4)
            a1[i] = BF16_ONE;
        a2[i] = BF16_ONE;
    }
    uint16_t d0[4], d1[2], d2[6];
    const void *A[3] = {a0, a1, a2}, *B[3] = {b[0], b[1], b[2]};
    void *D[3] = {d0, d1, d2};
    cublasLtMatrixLayout_t al, bl, dl;
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&al, CUDA_R_16BF, 3, m, k, m), 0);
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&bl, CUDA_R_16BF, 3, k, n, k), 0);
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&dl, CUDA_R_16BF, 3, m, n, m), 0);
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_N, CUBLAS_OP_N, 0, 0);
    for (int rep = 0; rep < 2; rep++) {
        memset(d0, 0, sizeof d0), memset(d1, 0, sizeof d1), memset(d2, 0, sizeof d2);
        assert_int_equal(matmul_h(handle, op, A, al, B, bl, D, dl), CUBLAS_STATUS_SUCCESS);
        for (int i = 0; i < 6; i++) {
            if (i < 4)
                assert_int_equal(d0[i], 0x4080); /* bf16 4.0 */
            if (i < 2)
                assert_int_equal(d1[i], 0x4080);
            assert_int_equal(d2[i], 0x4080);
        }
    }
    assert_int_equal(matmul_h(NULL, op, A, al, B, bl, D, dl), CUBLAS_STATUS_NOT_INITIALIZED);
    free4(op, al, bl, dl);
}

static const char *report_path;

/* Totals: successful GEMMs M1 + M2 + M3 = 3, FLOPs 512 + 1536 + 128 =
 * 2176; failed M3's 1; nothing invalid (G1 is neither counted nor
 * invalid). By dtype: fp8_e4m3 512 + 1536 = 2048 in 2 calls; fp4_e2m1
 * 128 in 1. */
static void check_report(void **state)
{
    (void)state;
    static const lt_want expected[] = {
        {4, 2, 32, 1, 'T', 'N', "fp8_e4m3", "bf16", "32F", 1, 0, 512},  /* M1 */
        {2, 3, 128, 1, 'T', 'N', "fp8_e4m3", "fp32", "32F", 1, 0, 1536}, /* M2 */
        {2, 2, 16, 1, 'T', 'N', "fp4_e2m1", "fp32", "32F", 1, 1, 128},   /* M3 */
    };
    json_object *r = lt_load(report_path);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        lt_expect_shape(r, &expected[i]);
    assert_int_equal(lt_shape_count(r), 3);
    assert_int_equal(lt_total(r, "gemm_calls"), 3);
    assert_int_equal(lt_total(r, "gemm_flops"), 2176);
    assert_int_equal(lt_total(r, "failed_calls"), 1);
    assert_int_equal(lt_total(r, "invalid_calls"), 0);
    assert_int_equal(lt_group(r, "by_dtype", "fp8_e4m3", "flops"), 2048);
    assert_int_equal(lt_group(r, "by_dtype", "fp8_e4m3", "calls"), 2);
    assert_int_equal(lt_group(r, "by_dtype", "fp4_e2m1", "flops"), 128);
    lt_expect_uncounted(r, "cublasLtMatmul grouped bf16", "sizes_in_device_memory", "3 groups",
                        2, 1);
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
        return cmocka_run_group_tests_name("cublaslt_moe_report", checks, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mxfp8),
        cmocka_unit_test(test_fp8_blocks),
        cmocka_unit_test(test_nvfp4),
        cmocka_unit_test(test_grouped),
    };
    return cmocka_run_group_tests_name("cublaslt_moe", tests, open_handle, close_handle);
}

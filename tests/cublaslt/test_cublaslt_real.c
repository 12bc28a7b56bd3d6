/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublaslt_real.c - the cublasLtMatmul hook over the REAL
 * libcublasLt.so.13, on a machine without a GPU.
 *
 * Without a GPU the descriptor functions work for real, and cublasLtMatmul
 * on a NULL handle fails. So each call checks that it went through the shim
 * to the real library: the status is the one the real function gives for
 * the same arguments (called directly at its address in the library's ELF
 * symbol table, emu/real_symbol.c: dlsym on the library's handle would
 * answer with the shim's hook), and the report (--check) shows every call
 * failed, with exactly the shape, types and transposes decoded from the
 * real descriptors by the real getters.
 *
 * Run mode (no arguments; FC_LT_UNDER_SHIM=1 when preloaded) and check mode
 * (--check REPORT), as in test_cublaslt_emu.c. */
#include <cublasLt.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "emu/real_symbol.h"
#include "lt_check.h"

typedef cublasStatus_t (*matmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                                    const void *, cublasLtMatrixLayout_t, const void *,
                                    cublasLtMatrixLayout_t, const void *, const void *,
                                    cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                    const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);

static matmul_fn real_matmul;

/* Fake device addresses: the NULL handle fails before any is touched, and
 * the shim records them without reading them. */
#define DEV_A ((const void *)0x10000)
#define DEV_B ((const void *)0x20000)
#define DEV_D ((void *)0x30000)

/* Calls cublasLtMatmul (the shim's, when preloaded) on a NULL handle and
 * checks the status is the real library's for the same call. */
static void call_both(cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                      cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d)
{
    float one = 1, zero = 0;
    cublasStatus_t got = cublasLtMatmul(NULL, op, &one, DEV_A, a, DEV_B, b, &zero, DEV_D, c, DEV_D,
                                        d, NULL, NULL, 0, 0);
    cublasStatus_t want = real_matmul(NULL, op, &one, DEV_A, a, DEV_B, b, &zero, DEV_D, c, DEV_D, d,
                                      NULL, NULL, 0, 0);
    assert_int_equal(got, want);
    assert_int_not_equal(got, CUBLAS_STATUS_SUCCESS);
}

static cublasLtMatrixLayout_t layout(cudaDataType t, uint64_t rows, uint64_t cols, int32_t batch)
{
    cublasLtMatrixLayout_t l = NULL;
    assert_int_equal(cublasLtMatrixLayoutCreate(&l, t, rows, cols, (int64_t)rows), 0);
    assert_int_equal(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                                      sizeof batch),
                     0);
    return l;
}

static cublasLtMatmulDesc_t desc(cublasComputeType_t c, cudaDataType_t scale, int32_t ta,
                                 int32_t tb)
{
    cublasLtMatmulDesc_t d = NULL;
    assert_int_equal(cublasLtMatmulDescCreate(&d, c, scale), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, 4), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, 4), 0);
    return d;
}

static void destroy(cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                    cublasLtMatrixLayout_t d)
{
    cublasLtMatmulDescDestroy(op);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(d);
}

static void test_shim_in_front(void **state)
{
    (void)state;
    void *lib = dlopen("libcublasLt.so.13", RTLD_LAZY | RTLD_NOLOAD);
    assert_non_null(lib);
    real_matmul = (matmul_fn)real_symbol(lib, "cublasLtMatmul", NULL);
    assert_non_null(real_matmul);
    const char *under = getenv("FC_LT_UNDER_SHIM");
    if (under != NULL && strcmp(under, "1") == 0) /* the name we call is not the library's */
        assert_ptr_not_equal((void *)real_matmul, (void *)cublasLtMatmul);
}

/* FP8 the way it must be laid out (A transposed): A e4m3 stored k x m =
 * 128 x 64, B e5m2 stored 128 x 32, D bf16 64 x 32.
 * EXPECT R1: TN m=64 n=32 k=128, fp8_e4m3 -> bf16, 32F: 1 failed.
 * Then the same descriptors, changed: TRANSA=N and A re-shaped 64 x 128.
 * EXPECT R6: NN m=64 n=32 k=128, fp8_e4m3 -> bf16, 32F: 1 failed. */
static void test_fp8_and_reuse(void **state)
{
    (void)state;
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N);
    cublasLtMatrixLayout_t a = layout(CUDA_R_8F_E4M3, 128, 64, 1),
                           b = layout(CUDA_R_8F_E5M2, 128, 32, 1),
                           d = layout(CUDA_R_16BF, 64, 32, 1);
    call_both(op, a, b, d, d);
    int32_t n = CUBLAS_OP_N;
    uint64_t rows = 64, cols = 128;
    assert_int_equal(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &n, 4), 0);
    assert_int_equal(cublasLtMatrixLayoutSetAttribute(a, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, 8), 0);
    assert_int_equal(cublasLtMatrixLayoutSetAttribute(a, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, 8), 0);
    call_both(op, a, b, d, d);
    destroy(op, a, b, d);
}

/* bf16 in, fp32 out, B transposed, batch of 3: A 16 x 8, B stored 4 x 8.
 * EXPECT R2: NT m=16 n=4 k=8 batch 3, bf16 -> fp32, 32F: 1 failed. */
static void test_bf16_batched(void **state)
{
    (void)state;
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_T);
    cublasLtMatrixLayout_t a = layout(CUDA_R_16BF, 16, 8, 3), b = layout(CUDA_R_16BF, 4, 8, 3),
                           d = layout(CUDA_R_32F, 16, 4, 3);
    call_both(op, a, b, d, d);
    destroy(op, a, b, d);
}

/* int8 (TN, as IMMA wants): A stored 64 x 32, B 64 x 16, D int32 32 x 16.
 * EXPECT R4: TN m=32 n=16 k=64, int8 -> int32, 32I: 1 failed.
 * fp4: the same shape with e2m1 inputs and bf16 out.
 * EXPECT R5: TN m=32 n=16 k=64, fp4_e2m1 -> bf16, 32F: 1 failed. */
static void test_int8_and_fp4(void **state)
{
    (void)state;
    cublasLtMatmulDesc_t op = desc(CUBLAS_COMPUTE_32I, CUDA_R_32I, CUBLAS_OP_T, CUBLAS_OP_N);
    cublasLtMatrixLayout_t a = layout(CUDA_R_8I, 64, 32, 1), b = layout(CUDA_R_8I, 64, 16, 1),
                           d = layout(CUDA_R_32I, 32, 16, 1);
    call_both(op, a, b, d, d);
    destroy(op, a, b, d);
    op = desc(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N);
    a = layout(CUDA_R_4F_E2M1, 64, 32, 1);
    b = layout(CUDA_R_4F_E2M1, 64, 16, 1);
    d = layout(CUDA_R_16BF, 32, 16, 1);
    call_both(op, a, b, d, d);
    destroy(op, a, b, d);
}

/* Inline Init helpers on caller memory, fp32 under FAST_TF32: A 10 x 30,
 * B 30 x 20, D 10 x 20; once as is and once with D's layout NULL (C's
 * stands for it).
 * EXPECT R3: NN m=10 n=20 k=30, tf32 -> fp32, 32F_FAST_TF32: 2 failed.
 * Then TRANSA set to 9, a value cuBLASLt stores but that means nothing:
 * EXPECT invalid +1. NULL descriptors everywhere: EXPECT invalid +1. */
static void test_tf32_init_and_invalid(void **state)
{
    (void)state;
    cublasLtMatmulDescOpaque_t op;
    cublasLtMatrixLayoutOpaque_t a, b, d;
    assert_int_equal(cublasLtMatmulDescInit(&op, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F), 0);
    assert_int_equal(cublasLtMatrixLayoutInit(&a, CUDA_R_32F, 10, 30, 10), 0);
    assert_int_equal(cublasLtMatrixLayoutInit(&b, CUDA_R_32F, 30, 20, 30), 0);
    assert_int_equal(cublasLtMatrixLayoutInit(&d, CUDA_R_32F, 10, 20, 10), 0);
    call_both(&op, &a, &b, &d, &d);
    call_both(&op, &a, &b, &d, NULL);
    int32_t bad = 9;
    assert_int_equal(cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_TRANSA, &bad, 4), 0);
    call_both(&op, &a, &b, &d, &d);
    call_both(NULL, NULL, NULL, NULL, NULL);
}

static const lt_want expected[] = {
    /* m   n   k  batch ta tb dtype out compute calls failed flops */
    {64, 32, 128, 1, 'T', 'N', "fp8_e4m3", "bf16", "32F", 0, 1, 0},      /* R1 */
    {16, 4, 8, 3, 'N', 'T', "bf16", "fp32", "32F", 0, 1, 0},             /* R2 */
    {10, 20, 30, 1, 'N', 'N', "tf32", "fp32", "32F_FAST_TF32", 0, 2, 0}, /* R3 */
    {32, 16, 64, 1, 'T', 'N', "int8", "int32", "32I", 0, 1, 0},          /* R4 */
    {32, 16, 64, 1, 'T', 'N', "fp4_e2m1", "bf16", "32F", 0, 1, 0},       /* R5 */
    {64, 32, 128, 1, 'N', 'N', "fp8_e4m3", "bf16", "32F", 0, 1, 0},      /* R6 */
};

static const char *report_path;

/* Failed: R1 1 + R2 1 + R3 2 + R4 1 + R5 1 + R6 1 = 7; invalid 2; no
 * successful call, so no FLOPs and no by_api entry. */
static void check_report(void **state)
{
    (void)state;
    json_object *r = lt_load(report_path);
    size_t n = sizeof expected / sizeof expected[0];
    for (size_t i = 0; i < n; i++)
        lt_expect_shape(r, &expected[i]);
    assert_int_equal(lt_shape_count(r), n);
    assert_int_equal(lt_total(r, "gemm_calls"), 0);
    assert_int_equal(lt_total(r, "gemm_flops"), 0);
    assert_int_equal(lt_total(r, "failed_calls"), 7);
    assert_int_equal(lt_total(r, "invalid_calls"), 2);
    assert_int_equal(lt_total(r, "unresolved_calls"), 0);
    assert_int_equal(lt_group(r, "by_api", "cublasLtMatmul", "calls"), 0);
    json_object_put(r);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        report_path = argv[2];
        const struct CMUnitTest checks[] = {cmocka_unit_test(check_report)};
        return cmocka_run_group_tests_name("cublaslt_real_report", checks, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shim_in_front),         cmocka_unit_test(test_fp8_and_reuse),
        cmocka_unit_test(test_bf16_batched),          cmocka_unit_test(test_int8_and_fp4),
        cmocka_unit_test(test_tf32_init_and_invalid),
    };
    return cmocka_run_group_tests_name("cublaslt_real", tests, NULL, NULL);
}

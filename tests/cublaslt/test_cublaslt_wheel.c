/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublaslt_wheel.c - the MoE paths of the cublasLtMatmul hook over
 * the REAL libcublasLt.so.13 of the pip nvidia-cublas wheel (13.2+: the
 * first with grouped layouts), on a machine without a GPU: the real twin
 * of test_cublaslt_moe.c.
 *
 * Without a GPU the descriptor functions work for real and cublasLtMatmul
 * on a NULL handle fails, so each call is checked to have gone through to
 * the real library (same status as the library's own function, called at
 * its ELF address), and the report to hold what the real getters say:
 * a grouped call listed uncounted with its group count (the real library
 * answers 0 rows and columns: it must not become a 0-FLOP GEMM), an NVFP4
 * and an MXFP8 call decoded with their shapes and fp4 / fp8 dtypes.
 *
 * Run mode (no arguments) and check mode (--check REPORT). */
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

#if CUBLAS_VERSION < 130200
/* cuBLAS 13.2+ (the wheel's cublasLt.h, 13.4.1); this builds against the
 * toolkit's 13.0 header. */
cublasStatus_t cublasLtGroupedMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout,
                                                 cudaDataType type, int groupCount,
                                                 const void *rows_array, const void *cols_array,
                                                 const void *ld_array);
#endif

typedef cublasStatus_t (*matmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                                    const void *, cublasLtMatrixLayout_t, const void *,
                                    cublasLtMatrixLayout_t, const void *, const void *,
                                    cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                    const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);

static matmul_fn real_matmul;

#define DEV_A ((const void *)0x10000)
#define DEV_B ((const void *)0x20000)
#define DEV_D ((void *)0x30000)

static void call_both(cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                      cublasLtMatrixLayout_t d)
{
    float one = 1, zero = 0;
    cublasStatus_t got = cublasLtMatmul(NULL, op, &one, DEV_A, a, DEV_B, b, &zero, DEV_D, d, DEV_D,
                                        d, NULL, NULL, 0, 0);
    cublasStatus_t want =
        real_matmul(NULL, op, &one, DEV_A, a, DEV_B, b, &zero, DEV_D, d, DEV_D, d, NULL, NULL, 0, 0);
    assert_int_equal(got, want);
    assert_int_not_equal(got, CUBLAS_STATUS_SUCCESS);
}

static cublasLtMatmulDesc_t desc(int32_t ta, int32_t sa, int32_t sb)
{
    cublasLtMatmulDesc_t d = NULL;
    int32_t n = CUBLAS_OP_N;
    assert_int_equal(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, 4), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &n, 4), 0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &sa, 4),
                     0);
    assert_int_equal(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &sb, 4),
                     0);
    return d;
}

static cublasLtMatrixLayout_t layout(cudaDataType t, uint64_t rows, uint64_t cols)
{
    cublasLtMatrixLayout_t l = NULL;
    assert_int_equal(cublasLtMatrixLayoutCreate(&l, t, rows, cols, (int64_t)rows), 0);
    return l;
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
    if (under != NULL && strcmp(under, "1") == 0)
        assert_ptr_not_equal((void *)real_matmul, (void *)cublasLtMatmul);
}

/* Five experts, bf16: the size arrays are host memory here (no device),
 * which the hook never reads. EXPECT W1: uncounted "cublasLtMatmul grouped
 * bf16", sizes_in_device_memory, "5 groups", 0 calls, 1 failed. */
static void test_grouped(void **state)
{
    (void)state;
    int32_t m[5] = {8, 0, 16, 4, 4}, n[5] = {32, 32, 32, 32, 32}, k[5] = {64, 64, 64, 64, 64};
    cublasLtMatrixLayout_t a, b, d;
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&a, CUDA_R_16BF, 5, m, k, m), 0);
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&b, CUDA_R_16BF, 5, k, n, k), 0);
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&d, CUDA_R_16BF, 5, m, n, m), 0);
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_N, 0, 0);
    call_both(op, a, b, d);
    destroy(op, a, b, d);
}

/* NVFP4, TN: A stored 64 x 32, B 64 x 16, D bf16 32 x 16.
 * EXPECT W2: TN 32x16x64, fp4_e2m1 -> bf16, 32F: 1 failed.
 * MXFP8, TN: A e4m3 stored 128 x 64, B 128 x 32, D bf16 64 x 32.
 * EXPECT W3: TN 64x32x128, fp8_e4m3 -> bf16, 32F: 1 failed. */
static void test_block_scaled(void **state)
{
    (void)state;
    int32_t nv = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
    int32_t mx = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_T, nv, nv);
    cublasLtMatrixLayout_t a = layout(CUDA_R_4F_E2M1, 64, 32), b = layout(CUDA_R_4F_E2M1, 64, 16),
                           d = layout(CUDA_R_16BF, 32, 16);
    call_both(op, a, b, d);
    destroy(op, a, b, d);
    op = desc(CUBLAS_OP_T, mx, mx);
    a = layout(CUDA_R_8F_E4M3, 128, 64), b = layout(CUDA_R_8F_E4M3, 128, 32);
    d = layout(CUDA_R_16BF, 64, 32);
    call_both(op, a, b, d);
    destroy(op, a, b, d);
}

static const char *report_path;

static void check_report(void **state)
{
    (void)state;
    static const lt_want expected[] = {
        {32, 16, 64, 1, 'T', 'N', "fp4_e2m1", "bf16", "32F", 0, 1, 0},  /* W2 */
        {64, 32, 128, 1, 'T', 'N', "fp8_e4m3", "bf16", "32F", 0, 1, 0}, /* W3 */
    };
    json_object *r = lt_load(report_path);
    for (size_t i = 0; i < 2; i++)
        lt_expect_shape(r, &expected[i]);
    assert_int_equal(lt_shape_count(r), 2); /* the grouped call is no shape */
    assert_int_equal(lt_total(r, "failed_calls"), 2);
    assert_int_equal(lt_total(r, "invalid_calls"), 0);
    lt_expect_uncounted(r, "cublasLtMatmul grouped bf16", "sizes_in_device_memory", "5 groups", 0,
                        1);
    json_object_put(r);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--check") == 0) {
        report_path = argv[2];
        const struct CMUnitTest checks[] = {cmocka_unit_test(check_report)};
        return cmocka_run_group_tests_name("cublaslt_wheel_report", checks, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shim_in_front),
        cmocka_unit_test(test_grouped),
        cmocka_unit_test(test_block_scaled),
    };
    return cmocka_run_group_tests_name("cublaslt_wheel", tests, NULL, NULL);
}

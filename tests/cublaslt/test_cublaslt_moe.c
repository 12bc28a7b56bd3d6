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
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
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
/* Weak: the null-GPU twin runs the toolkit's real libcublasLt 13.0, which
 * has no grouped layouts; the grouped case is then skipped, and so are its
 * expectations. */
#pragma weak cublasLtGroupedMatrixLayoutCreate
static int have_grouped(void)
{
    return cublasLtGroupedMatrixLayoutCreate != NULL;
}

#define BF16_ONE 0x3f80u
#define E4M3_ONE 0x38u  /* 0 0111 000: 2^(7-7) */
#define E2M1_HALF 0x1u  /* 0 00 1: subnormal, 0.5 */
#define E2M1_TWO 0x4u   /* 0 10 0: 2^(2-1) */

static cublasLtHandle_t handle;

/* On the null GPU (FLOPCOUNT_TEST_NULLGPU: the twin over the nvidia-cublas
 * wheel's real library) no kernel computes: results are not checked there,
 * statuses and counts are. The emulation's call counter is absent there. */
#pragma weak fc_emu_lt_matmul_calls
static int null_gpu(void)
{
    const char *v = getenv("FLOPCOUNT_TEST_NULLGPU");
    return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

/* Memory the library may use: on the null GPU the driver's (its device
 * addresses are host addresses, and the real library refuses others), in
 * the emulation the heap. Zeroed; never freed (a test process), but kept
 * reachable so that LeakSanitizer does not take them for leaks. */
static void *dmem(size_t n)
{
    static void *kept[256];
    static size_t nkept;
    if (!null_gpu()) {
        void *p = calloc(1, n);
        if (p != NULL && nkept < sizeof kept / sizeof kept[0])
            kept[nkept++] = p;
        return p;
    }
    static int (*alloc)(unsigned long long *, size_t);
    if (alloc == NULL) {
        void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        int (*init)(unsigned) = drv ? (int (*)(unsigned))dlsym(drv, "cuInit") : NULL;
        int (*get)(int *, int) = drv ? (int (*)(int *, int))dlsym(drv, "cuDeviceGet") : NULL;
        int (*retain)(void **, int) =
            drv ? (int (*)(void **, int))dlsym(drv, "cuDevicePrimaryCtxRetain") : NULL;
        int (*set)(void *) = drv ? (int (*)(void *))dlsym(drv, "cuCtxSetCurrent") : NULL;
        alloc = drv ? (int (*)(unsigned long long *, size_t))dlsym(drv, "cuMemAlloc_v2") : NULL;
        int dev = 0;
        void *ctx = NULL;
        assert_non_null(alloc);
        assert_true(init(0) == 0 && get(&dev, 0) == 0 && retain(&ctx, dev) == 0 && set(ctx) == 0);
    }
    unsigned long long p = 0;
    assert_int_equal(alloc(&p, n), 0);
    memset((void *)(uintptr_t)p, 0, n);
    return (void *)(uintptr_t)p;
}

/* The status a block-scaled case gets: SUCCESS in the emulation; on the
 * null GPU what the real library 13.0 answers for the device kind
 * (FLOPCOUNT_NULLGPU_DEVICE): MXFP8 and NVFP4 need Blackwell, FP8 1x128 /
 * 128x128 blocks run on Hopper only. */
enum { K_MXFP8, K_FP8_BLOCKS, K_NVFP4 };
static int blackwell(void)
{
    const char *k = getenv("FLOPCOUNT_NULLGPU_DEVICE");
    return k != NULL && strcmp(k, "b200") == 0;
}
static int runs(int kind)
{
    if (!null_gpu())
        return 1;
    return kind == K_FP8_BLOCKS ? !blackwell() : blackwell();
}
static cublasStatus_t want_status(int kind)
{
    return runs(kind) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}

/* A workspace: the real library (13.4) runs grouped layouts only with
 * one (NOT_SUPPORTED without, on the null GPU). */
#define WORKSPACE (32u << 20)
static void *workspace;

static cublasStatus_t matmul_h(cublasLtHandle_t h, cublasLtMatmulDesc_t op, const void *A,
                               cublasLtMatrixLayout_t al, const void *B, cublasLtMatrixLayout_t bl,
                               void *D, cublasLtMatrixLayout_t dl)
{
    float one = 1, zero = 0;
    int emu = fc_emu_lt_matmul_calls != NULL;
    unsigned long before = emu ? fc_emu_lt_matmul_calls() : 0;
    if (workspace == NULL)
        workspace = dmem(WORKSPACE);
    cublasStatus_t st = cublasLtMatmul(h, op, &one, A, al, B, bl, &zero, D, dl, D, dl, NULL,
                                       workspace, WORKSPACE, 0);
    if (emu)
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
    if (sa != 0 || sb != 0) { /* the scale tensors (their values are not read here) */
        void *as = dmem(1 << 16), *bs = dmem(1 << 16);
        assert_int_equal(
            cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &as, sizeof as), 0);
        assert_int_equal(
            cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &bs, sizeof bs), 0);
    }
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

/* Every block-scaled case is TN (as FP8 GEMMs must be laid out) and
 * m = n = k = 128 (the real library refuses small block-scaled shapes):
 * 2*128^3 = 4,194,304 FLOPs. Inputs are ones (0.5 and 2 for NVFP4), so D
 * is 128 everywhere in the emulation, which takes every scale as 1. */
#define S 128
#define FLOPS_128 4194304ull

/* MXFP8: E4M3, one UE8M0 scale per 32 K-elements, D bf16.
 * EXPECT M1: TN 128^3, fp8_e4m3 -> bf16, 32F: 1 call (a failed one on the
 * null GPU's H100). */
static void test_mxfp8(void **state)
{
    (void)state;
    uint8_t *A = dmem(S * S), *B = dmem(S * S);
    uint16_t *D = dmem(S * S * 2);
    memset(A, E4M3_ONE, S * S);
    memset(B, E4M3_ONE, S * S);
    int32_t mx = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_T, CUBLAS_OP_N, mx, mx);
    cublasLtMatrixLayout_t a = layout(CUDA_R_8F_E4M3, S, S, S),
                           b = layout(CUDA_R_8F_E4M3, S, S, S), d = layout(CUDA_R_16BF, S, S, S);
    assert_int_equal(matmul_h(handle, op, A, a, B, b, D, d), want_status(K_MXFP8));
    for (int i = 0; i < S * S && !null_gpu(); i++)
        assert_int_equal(D[i], 0x4300); /* bf16 128.0 */
    free4(op, a, b, d);
}

/* FP8 block scaling (DeepSeek-V3): A 1x128 blocks, B 128x128 blocks, D
 * fp32. EXPECT M2: TN 128^3, fp8_e4m3 -> fp32, 32F: 1 call (a failed one
 * on the null GPU's B200). */
static void test_fp8_blocks(void **state)
{
    (void)state;
    uint8_t *A = dmem(S * S), *B = dmem(S * S);
    float *D = dmem(S * S * 4);
    memset(A, E4M3_ONE, S * S);
    memset(B, E4M3_ONE, S * S);
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_T, CUBLAS_OP_N, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
                                   CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F);
    cublasLtMatrixLayout_t a = layout(CUDA_R_8F_E4M3, S, S, S),
                           b = layout(CUDA_R_8F_E4M3, S, S, S), d = layout(CUDA_R_32F, S, S, S);
    assert_int_equal(matmul_h(handle, op, A, a, B, b, D, d), want_status(K_FP8_BLOCKS));
    for (int i = 0; i < S * S && !null_gpu(); i++)
        assert_true(D[i] == 128.0f);
    free4(op, a, b, d);
}

/* NVFP4: E2M1 (two per byte), one UE4M3 scale per 16 elements; A 0.5, B
 * 2, D fp32 = 128 * 1. EXPECT M3: TN 128^3, fp4_e2m1 -> fp32, 32F: 1 call
 * (a failed one on the null GPU's H100). Then MXFP8's scale mode on FP4
 * data (MXFP4), which the library refuses (INVALID_VALUE): 1 more failed
 * call of M3's shape. */
static void test_nvfp4(void **state)
{
    (void)state;
    uint8_t *A = dmem(S * S / 2), *B = dmem(S * S / 2);
    float *D = dmem(S * S * 4);
    memset(A, E2M1_HALF | E2M1_HALF << 4, S * S / 2);
    memset(B, E2M1_TWO | E2M1_TWO << 4, S * S / 2);
    int32_t nv = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
    int32_t mx = CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_T, CUBLAS_OP_N, nv, nv);
    cublasLtMatrixLayout_t a = layout(CUDA_R_4F_E2M1, S, S, S),
                           b = layout(CUDA_R_4F_E2M1, S, S, S), d = layout(CUDA_R_32F, S, S, S);
    assert_int_equal(matmul_h(handle, op, A, a, B, b, D, d), want_status(K_NVFP4));
    for (int i = 0; i < S * S && !null_gpu(); i++)
        assert_true(D[i] == 128.0f);
    cublasLtMatmulDesc_t bad = desc(CUBLAS_OP_T, CUBLAS_OP_N, mx, mx);
    assert_int_equal(matmul_h(handle, bad, A, a, B, b, D, d), CUBLAS_STATUS_INVALID_VALUE);
    cublasLtMatmulDescDestroy(bad);
    free4(op, a, b, d);
}

/* Grouped, bf16 NN, three experts: group g's D is m_g x 64 with m = {32,
 * 16, 48} routed rows, k = 64; A_g (m_g x 64) and B_g (64 x 64) all ones,
 * so D_g = 64. The sizes, operands and pointer arrays are device memory
 * (the driver's on the null GPU): the host layouts say 0 x 0. Called
 * twice, then once on a NULL handle. Its FLOPs would be 2*(32+16+48)*64*64
 * = 786,432 a call; nothing of it is counted unless its sizes are read.
 * EXPECT G1: no GEMM; uncounted "cublasLtMatmul grouped bf16",
 * sizes_in_device_memory, detail "3 groups", 2 calls, 1 failed.
 * With FLOPCOUNT_READ_DEVICE_SIZES=1 (FC_MOE_READ=1 tells the check): its
 * read_from_device has 2 calls (both counted), 1,572,864 FLOPs, 6 groups,
 * rows 16..48, imbalance 48/32 = 1.5, and the totals have its 6 groups. */
#define GK 64
static void test_grouped(void **state)
{
    (void)state;
    if (!have_grouped())
        skip();
    static const int32_t rows[3] = {32, 16, 48};
    int32_t *m = dmem(sizeof rows), *n = dmem(sizeof rows), *k = dmem(sizeof rows);
    const void **A = dmem(3 * sizeof(void *)), **B = dmem(3 * sizeof(void *));
    void **D = dmem(3 * sizeof(void *));
    for (int g = 0; g < 3; g++) {
        m[g] = rows[g], n[g] = GK, k[g] = GK;
        uint16_t *a = dmem((size_t)rows[g] * GK * 2), *b = dmem(GK * GK * 2);
        for (int i = 0; i < rows[g] * GK; i++)
            a[i] = BF16_ONE;
        for (int i = 0; i < GK * GK; i++)
            b[i] = BF16_ONE;
        A[g] = a, B[g] = b, D[g] = dmem((size_t)rows[g] * GK * 2);
    }
    cublasLtMatrixLayout_t al, bl, dl;
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&al, CUDA_R_16BF, 3, m, k, m), 0);
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&bl, CUDA_R_16BF, 3, k, n, k), 0);
    assert_int_equal(cublasLtGroupedMatrixLayoutCreate(&dl, CUDA_R_16BF, 3, m, n, m), 0);
    cublasLtMatmulDesc_t op = desc(CUBLAS_OP_N, CUBLAS_OP_N, 0, 0);
    for (int rep = 0; rep < 2; rep++) {
        assert_int_equal(matmul_h(handle, op, A, al, B, bl, D, dl), CUBLAS_STATUS_SUCCESS);
        for (int g = 0; g < 3 && !null_gpu(); g++)
            for (int i = 0; i < rows[g] * GK; i++)
                assert_int_equal(((uint16_t *)D[g])[i], 0x4280); /* bf16 64.0 */
    }
    assert_int_equal(matmul_h(NULL, op, A, al, B, bl, D, dl), CUBLAS_STATUS_NOT_INITIALIZED);
    free4(op, al, bl, dl);
}

static const char *report_path;

static json_object *member(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (o == NULL || !json_object_object_get_ex(o, key, &v))
        fail_msg("report: no \"%s\"", key);
    return v;
}

/* G1's read_from_device (FC_MOE_READ=1: the run had
 * FLOPCOUNT_READ_DEVICE_SIZES=1): its two successful calls read, each
 * 2*(32+16+48)*64*64 = 786,432 FLOPs; rows 16..48 over 6 groups; per call
 * the largest group's work (48*64*64) over the mean (32*64*64) = 1.5. */
static void check_read(json_object *r)
{
    json_object *u = member(r, "uncounted"), *entry = NULL;
    for (size_t i = 0; i < json_object_array_length(u); i++) {
        json_object *x = json_object_array_get_idx(u, i);
        if (strcmp(json_object_get_string(member(x, "name")), "cublasLtMatmul grouped bf16") == 0)
            entry = x;
    }
    json_object *rd = member(entry, "read_from_device"), *nr = member(rd, "not_read");
    assert_int_equal(json_object_get_int64(member(rd, "calls")), 2);
    assert_int_equal(json_object_get_int64(member(rd, "flops")), 1572864);
    assert_int_equal(json_object_get_int64(member(rd, "counted_calls")), 2);
    assert_int_equal(json_object_get_int64(member(rd, "late_calls")), 0);
    assert_int_equal(json_object_get_int64(member(rd, "groups")), 6);
    assert_int_equal(json_object_get_int64(member(rd, "group_rows_min")), 16);
    assert_int_equal(json_object_get_int64(member(rd, "group_rows_max")), 48);
    assert_true(json_object_get_double(member(rd, "imbalance_max")) == 1.5);
    assert_true(json_object_get_double(member(rd, "imbalance_mean")) == 1.5);
    assert_int_equal(json_object_get_int64(member(rd, "pending_calls")), 0);
    json_object_object_foreach(nr, why, n)
    {
        if (json_object_get_int64(n) != 0)
            fail_msg("read_from_device: %s %lld", why, (long long)json_object_get_int64(n));
    }
}

/* Totals, by hand from the EXPECT lines: each block-scaled case that runs
 * is one call of 4,194,304 FLOPs; the others are failed calls of their
 * shape (the MXFP4 call always). Emulation: 3 calls, 12,582,912 FLOPs,
 * 1 failed; fp8_e4m3 2 calls, fp4_e2m1 1. Null GPU H100: M2 only; B200:
 * M1 and M3. The grouped call (G1, where the library has grouped layouts)
 * is never invalid, and counted only when its sizes were read. */
static void check_report(void **state)
{
    (void)state;
    int r1 = runs(K_MXFP8), r2 = runs(K_FP8_BLOCKS), r3 = runs(K_NVFP4);
    const lt_want expected[] = {
        {S, S, S, 1, 'T', 'N', "fp8_e4m3", "bf16", "32F", r1, !r1, r1 * FLOPS_128}, /* M1 */
        {S, S, S, 1, 'T', 'N', "fp8_e4m3", "fp32", "32F", r2, !r2, r2 * FLOPS_128}, /* M2 */
        {S, S, S, 1, 'T', 'N', "fp4_e2m1", "fp32", "32F", r3, 1 + !r3, r3 * FLOPS_128}, /* M3 */
    };
    json_object *r = lt_load(report_path);
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        lt_expect_shape(r, &expected[i]);
    uint64_t ran = (uint64_t)(r1 + r2 + r3);
    /* G1 read from the device (FC_MOE_READ=1) is counted too, group by
     * group: 3 shapes (32, 16, 48 rows x 64 x 64) of 2 calls each, 6 calls,
     * 2 x 786,432 = 1,572,864 FLOPs, bf16 */
    const char *read = getenv("FC_MOE_READ");
    int g1 = have_grouped() && read != NULL && strcmp(read, "1") == 0;
    assert_int_equal(lt_shape_count(r), 3 + 3 * g1);
    assert_int_equal(lt_total(r, "gemm_calls"), ran + 6u * (unsigned)g1);
    assert_int_equal(lt_total(r, "gemm_flops"), ran * FLOPS_128 + 1572864u * (unsigned)g1);
    if (g1) {
        assert_int_equal(lt_group(r, "by_dtype", "bf16", "calls"), 6);
        assert_int_equal(lt_group(r, "by_dtype", "bf16", "flops"), 1572864);
    }
    assert_int_equal(lt_total(r, "failed_calls"), 4 - ran);
    assert_int_equal(lt_total(r, "invalid_calls"), 0);
    assert_int_equal(lt_group(r, "by_dtype", "fp8_e4m3", "flops"), (r1 + r2) * FLOPS_128);
    assert_int_equal(lt_group(r, "by_dtype", "fp8_e4m3", "calls"), r1 + r2);
    assert_int_equal(lt_group(r, "by_dtype", "fp4_e2m1", "flops"), r3 * FLOPS_128);
    if (have_grouped())
        lt_expect_uncounted(r, "cublasLtMatmul grouped bf16", "sizes_in_device_memory",
                            "3 groups", 2, 1);
    if (g1)
        check_read(r);
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

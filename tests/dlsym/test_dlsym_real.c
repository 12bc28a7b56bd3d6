/* SPDX-License-Identifier: Apache-2.0 */
/* test_dlsym_real.c - the REAL CUDA 13 libcublas.so.13 and libcublasLt.so.13
 * loaded with dlopen(RTLD_LOCAL) and called only through dlsym/dlvsym
 * pointers, as XLA's stubs (xla/tsl/cuda/cublas_stub.cc) and cuDNN do.
 *
 * Without a GPU every GEMM fails (a NULL handle: NOT_INITIALIZED; cuBLASLt's
 * descriptor functions work for real). Each call must come back with the
 * status the library's own function gives for the same arguments (found in
 * the ELF symbol table by tests/emu/real_symbol.c, never through dlsym) and
 * be recorded as one failed call with exactly the shape passed: the report
 * is read back and compared with the shapes written next to each call.
 *
 * usage: test_dlsym_real LIBCUBLAS LIBCUBLASLT (full paths; run under
 * LD_PRELOAD=libflopcount.so with FLOPCOUNT_OUTPUT set). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <cublasLt.h>
#include <cublas_api.h>
#include <dlfcn.h>
#include <json-c/json.h>
#include <string.h>

#include "emu/cublas_emu_check.h"
#include "emu/real_symbol.h"

static const char *cublas_path, *lt_path;
static void *cublas, *lt;
static float a[256], b[256], c[256];
static const float alpha = 1, beta = 0;

/* The hook (from dlsym) and the library's own function for one name. */
typedef struct pair {
    void *hook, *real;
} pair;

static pair lookup(void *lib, const char *name, const char *version)
{
    pair p = {version ? dlvsym(lib, name, version) : dlsym(lib, name),
              real_symbol(lib, name, version)};
    if (p.hook == NULL || p.real == NULL)
        fail_msg("%s: dlsym %p, symbol table %p", name, p.hook, p.real);
    assert_ptr_not_equal(p.hook, p.real); /* the shim answered */
    return p;
}

static int setup(void **state)
{
    (void)state;
    cublas = dlopen(cublas_path, RTLD_NOW | RTLD_LOCAL);
    lt = dlopen(lt_path, RTLD_NOW | RTLD_LOCAL);
    if (cublas == NULL || lt == NULL)
        fail_msg("dlopen: %s", dlerror());
    /* The premise: neither library is in the global scope. */
    assert_null(dlsym(RTLD_DEFAULT, "cublasCreate_v2"));
    assert_null(dlsym(RTLD_DEFAULT, "cublasLtCreate"));
    return 0;
}

typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                   int, int, const float *, const float *, int, const float *,
                                   int, const float *, float *, int);
typedef cublasStatus_t (*gemmex64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                      int64_t, int64_t, int64_t, const void *, const void *,
                                      cudaDataType, int64_t, const void *, cudaDataType, int64_t,
                                      const void *, void *, cudaDataType, int64_t,
                                      cublasComputeType_t, cublasGemmAlgo_t);
typedef cublasStatus_t (*strided_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                     int, int, const float *, const float *, int, long long,
                                     const float *, int, long long, const float *, float *, int,
                                     long long, int);

/* EXPECT cublasSgemm_v2 NT 5x6x7, cublasGemmEx_64 TN 8x9x10 bf16 -> fp32
 * (32F), cublasSgemmStridedBatched TT 3x4x5 batch 6: one failed call each,
 * the first twice (dlsym, then dlvsym with the version node). */
static void test_cublas_gemms(void **state)
{
    (void)state;
    pair s = lookup(cublas, "cublasSgemm_v2", NULL);
    pair sv = lookup(cublas, "cublasSgemm_v2", "libcublas.so.13");
    pair ex = lookup(cublas, "cublasGemmEx_64", NULL);
    pair st = lookup(cublas, "cublasSgemmStridedBatched", NULL);
    assert_ptr_equal(sv.hook, s.hook);
    assert_ptr_equal(sv.real, s.real);

    ck_totals t0 = ck_totals_now();
    cublasStatus_t want = ((sgemm_fn)s.real)(NULL, CUBLAS_OP_N, CUBLAS_OP_T, 5, 6, 7, &alpha, a,
                                             5, b, 6, &beta, c, 5);
    assert_int_not_equal(want, CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < 2; i++) {
        sgemm_fn f = (sgemm_fn)(i ? sv.hook : s.hook);
        assert_int_equal(f(NULL, CUBLAS_OP_N, CUBLAS_OP_T, 5, 6, 7, &alpha, a, 5, b, 6, &beta,
                           c, 5),
                         want);
    }
    want = ((gemmex64_fn)ex.real)(NULL, CUBLAS_OP_T, CUBLAS_OP_N, 8, 9, 10, &alpha, a,
                                  CUDA_R_16BF, 10, b, CUDA_R_16BF, 10, &beta, c, CUDA_R_32F, 8,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    assert_int_equal(((gemmex64_fn)ex.hook)(NULL, CUBLAS_OP_T, CUBLAS_OP_N, 8, 9, 10, &alpha, a,
                                            CUDA_R_16BF, 10, b, CUDA_R_16BF, 10, &beta, c,
                                            CUDA_R_32F, 8, CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT),
                     want);
    want = ((strided_fn)st.real)(NULL, CUBLAS_OP_T, CUBLAS_OP_T, 3, 4, 5, &alpha, a, 5, 15, b, 4,
                                 20, &beta, c, 3, 12, 6);
    assert_int_equal(((strided_fn)st.hook)(NULL, CUBLAS_OP_T, CUBLAS_OP_T, 3, 4, 5, &alpha, a, 5,
                                           15, b, 4, 20, &beta, c, 3, 12, 6),
                     want);
    ck_expect_delta(&t0, 0, 0, 4, 0);

    struct json_object *r = ck_report();
    ck_expect_shape(r, &(ck_want){"cublasSgemm_v2", 5, 6, 7, 1, 'N', 'T', "fp32", "fp32", NULL,
                                  0, 2, 0});
    ck_expect_shape(r, &(ck_want){"cublasGemmEx_64", 8, 9, 10, 1, 'T', 'N', "bf16", "fp32",
                                  "32F", 0, 1, 0});
    ck_expect_shape(r, &(ck_want){"cublasSgemmStridedBatched", 3, 4, 5, 6, 'T', 'T', "fp32",
                                  "fp32", NULL, 0, 1, 0});
    assert_int_equal(ck_total(r, "unresolved_calls"), 0);
    json_object_put(r);
}

typedef cublasStatus_t (*matmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
                                    const void *, cublasLtMatrixLayout_t, const void *,
                                    cublasLtMatrixLayout_t, const void *, const void *,
                                    cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                    const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);
typedef cublasStatus_t (*layout_create_fn)(cublasLtMatrixLayout_t *, cudaDataType, uint64_t,
                                           uint64_t, int64_t);
typedef cublasStatus_t (*layout_set_fn)(cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t,
                                        const void *, size_t);
typedef cublasStatus_t (*desc_create_fn)(cublasLtMatmulDesc_t *, cublasComputeType_t,
                                         cudaDataType_t);
typedef cublasStatus_t (*desc_set_fn)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t,
                                      const void *, size_t);
typedef cublasStatus_t (*layout_destroy_fn)(cublasLtMatrixLayout_t);
typedef cublasStatus_t (*desc_destroy_fn)(cublasLtMatmulDesc_t);

/* Descriptor functions are not hooked: dlsym gives the library's own. */
static void *plain(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    assert_non_null(p);
    assert_ptr_equal(p, real_symbol(lib, name, NULL));
    return p;
}

/* EXPECT cublasLtMatmul NT m=16 n=4 k=8 batch 3, bf16 -> fp32, 32F: one
 * failed call through dlsym, one through dlvsym. */
static void test_lt_matmul(void **state)
{
    (void)state;
    layout_create_fn lcreate = (layout_create_fn)plain(lt, "cublasLtMatrixLayoutCreate");
    layout_set_fn lset = (layout_set_fn)plain(lt, "cublasLtMatrixLayoutSetAttribute");
    desc_create_fn dcreate = (desc_create_fn)plain(lt, "cublasLtMatmulDescCreate");
    desc_set_fn dset = (desc_set_fn)plain(lt, "cublasLtMatmulDescSetAttribute");
    pair mm = lookup(lt, "cublasLtMatmul", NULL);
    pair mv = lookup(lt, "cublasLtMatmul", "libcublasLt.so.13");
    assert_ptr_equal(mm.hook, mv.hook);

    cublasLtMatmulDesc_t op = NULL;
    int32_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_T, batch = 3;
    assert_int_equal(dcreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    assert_int_equal(dset(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), 0);
    assert_int_equal(dset(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), 0);
    cublasLtMatrixLayout_t la = NULL, lb = NULL, ld = NULL;
    assert_int_equal(lcreate(&la, CUDA_R_16BF, 16, 8, 16), 0);
    assert_int_equal(lcreate(&lb, CUDA_R_16BF, 4, 8, 4), 0);
    assert_int_equal(lcreate(&ld, CUDA_R_32F, 16, 4, 16), 0);
    cublasLtMatrixLayout_t all[3] = {la, lb, ld};
    for (int i = 0; i < 3; i++)
        assert_int_equal(lset(all[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch),
                         0);

    const void *dev_a = (const void *)0x10000, *dev_b = (const void *)0x20000;
    void *dev_d = (void *)0x30000;
    ck_totals t0 = ck_totals_now();
    cublasStatus_t want = ((matmul_fn)mm.real)(NULL, op, &alpha, dev_a, la, dev_b, lb, &beta,
                                               dev_d, ld, dev_d, ld, NULL, NULL, 0, 0);
    assert_int_not_equal(want, CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < 2; i++) {
        matmul_fn f = (matmul_fn)(i ? mv.hook : mm.hook);
        assert_int_equal(f(NULL, op, &alpha, dev_a, la, dev_b, lb, &beta, dev_d, ld, dev_d, ld,
                           NULL, NULL, 0, 0),
                         want);
    }
    ck_expect_delta(&t0, 0, 0, 2, 0);
    struct json_object *r = ck_report();
    ck_expect_shape(r, &(ck_want){"cublasLtMatmul", 16, 4, 8, 3, 'N', 'T', "bf16", "fp32", "32F",
                                  0, 2, 0});
    json_object_put(r);
    layout_destroy_fn ldestroy = (layout_destroy_fn)plain(lt, "cublasLtMatrixLayoutDestroy");
    for (int i = 0; i < 3; i++)
        ldestroy(all[i]);
    ((desc_destroy_fn)plain(lt, "cublasLtMatmulDescDestroy"))(op);
}

/* Names the shim does not hook come back unchanged from the real library. */
static void test_unhooked_unchanged(void **state)
{
    (void)state;
    plain(cublas, "cublasCreate_v2");
    plain(cublas, "cublasGetMathMode");
    plain(cublas, "cublasSgemm"); /* the legacy handle-less form: never hooked */
    plain(lt, "cublasLtCreate");
    plain(lt, "cublasLtMatmulAlgoGetHeuristic");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBCUBLAS LIBCUBLASLT\n", argv[0]);
        return 2;
    }
    cublas_path = argv[1];
    lt_path = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cublas_gemms),
        cmocka_unit_test(test_lt_matmul),
        cmocka_unit_test(test_unhooked_unchanged),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* test_dlsym_emu.c - GEMMs reached through dlopen(RTLD_LOCAL) + dlsym, as
 * XLA and cuDNN reach cuBLAS, over the CPU emulations (tests/emu), where
 * results and FLOPs can be checked exactly.
 *
 * The program links no cuBLAS. It loads two copies of the cuBLAS emulation
 * and two of the cuBLASLt emulation, each pair from two paths (two files,
 * so two objects, as pip's and the toolkit's libcublas can be), plus a
 * libcublas whose cublasSgemm_v2 runs on cublasLtMatmul, and the system's
 * libblas.so.3. Every GEMM goes through a pointer from dlsym or dlvsym on
 * one of those handles, and must:
 *   - compute what the library computes (results checked against the
 *     hand-worked GEMM of emu/cublas_emu_check.h),
 *   - be counted once with its exact shape and FLOPs (2*m*n*k, by hand),
 *   - reach the copy whose handle it was looked up on, and only that one,
 *     including what the shim asks the library itself (cublasGetMathMode,
 *     the cuBLASLt descriptor getters) and a GEMM that copy calls inside
 *     (each emulation counts the calls that reached it).
 * Names the shim does not hook must come back exactly as the library
 * defines them (checked against tests/emu/real_symbol.c, which reads the
 * ELF symbol table and never calls dlsym).
 *
 * usage: test_dlsym_emu CUBLAS_A CUBLAS_B CUBLASLT_A CUBLASLT_B OVER_LT CTOR_LIB LIBBLAS
 * (run under LD_PRELOAD=libflopcount.so, FLOPCOUNT_OUTPUT set). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <cublasLt.h>
#include <cublas_api.h>
#include <dlfcn.h>
#include <json-c/json.h>
#include <pthread.h>
#include <string.h>

#include "emu/cublas_emu_check.h"
#include "emu/real_symbol.h"

enum { A_CUBLAS = 1, B_CUBLAS, A_LT, B_LT, OVER_LT, CTOR_LIB, LIBBLAS, NARGS };
static char **args;

typedef cublasStatus_t (*create_fn)(cublasHandle_t *);
typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                   int, int, const float *, const float *, int, const float *,
                                   int, const float *, float *, int);
typedef cublasStatus_t (*gemmex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                    int, int, const void *, const void *, cudaDataType, int,
                                    const void *, cudaDataType, int, const void *, void *,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
typedef unsigned long (*counter_fn)(void);

static const float f_alpha = 2, f_beta = 1;

static void *open_local(int which)
{
    void *h = dlopen(args[which], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        fail_msg("dlopen %s: %s", args[which], dlerror());
    return h;
}

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (p == NULL)
        fail_msg("dlsym %s: %s", name, dlerror());
    return p;
}

static unsigned long counter(void *h, const char *name)
{
    return ((counter_fn)sym(h, name))();
}

/* One copy of the cuBLAS emulation: its handle and a cuBLAS handle it made. */
typedef struct copy {
    void *lib;
    cublasHandle_t h;
} copy;

static copy open_copy(int which)
{
    copy c = {open_local(which), NULL};
    assert_int_equal(((create_fn)sym(c.lib, "cublasCreate_v2"))(&c.h), CUBLAS_STATUS_SUCCESS);
    return c;
}

static void close_copy(copy *c)
{
    typedef cublasStatus_t (*destroy_fn)(cublasHandle_t);
    assert_int_equal(((destroy_fn)sym(c->lib, "cublasDestroy_v2"))(c->h), CUBLAS_STATUS_SUCCESS);
    c->h = NULL;
}

static unsigned long gemms(const copy *c)
{
    return counter(c->lib, "fc_emu_cublas_gemm_calls");
}

static unsigned long modes(const copy *c)
{
    return counter(c->lib, "fc_emu_cublas_mode_queries");
}

/* The hand-worked Sgemm (2x4x3, alpha 2, beta 1) through fn, ops ta/tb. */
static void hand_sgemm(sgemm_fn fn, cublasHandle_t h, char ta, char tb)
{
    ck_ops o;
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, ta, tb, 0);
    cublasOperation_t oa = ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    cublasOperation_t ob = tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    assert_int_equal(fn(h, oa, ob, CK_M, CK_N, CK_K, &f_alpha, (const float *)o.A,
                        ta == 'N' ? CK_M : CK_K, (const float *)o.B, tb == 'N' ? CK_K : CK_N,
                        &f_beta, (float *)o.C, CK_M),
                     CUBLAS_STATUS_SUCCESS);
    ck_check_c(&o, CUDA_R_32F, 0);
}

static void expect_shape(const char *api, char ta, char tb, const char *compute)
{
    ck_expect(&(ck_want){api, CK_M, CK_N, CK_K, 1, ta, tb, "fp32", "fp32", compute, 1, 0, 48});
}

/* Two copies: each lookup answers with a counting hook that forwards to the
 * copy it was looked up on, and asks that copy (not the other) for the
 * handle's math mode (the shim's TF32 check of an fp32 GEMM). */
static void test_two_copies(void **state)
{
    (void)state;
    copy a = open_copy(A_CUBLAS), b = open_copy(B_CUBLAS);
    assert_ptr_not_equal(a.lib, b.lib);
    sgemm_fn sa = (sgemm_fn)sym(a.lib, "cublasSgemm_v2");
    sgemm_fn sb = (sgemm_fn)sym(b.lib, "cublasSgemm_v2");
    void *ra = real_symbol(a.lib, "cublasSgemm_v2", NULL);
    void *rb = real_symbol(b.lib, "cublasSgemm_v2", NULL);
    assert_non_null(ra);
    assert_non_null(rb);
    assert_ptr_not_equal(ra, rb); /* the premise: two objects, two functions */
    assert_ptr_not_equal((void *)sa, ra);
    assert_ptr_not_equal((void *)sb, rb);
    assert_ptr_not_equal((void *)sa, (void *)sb);

    unsigned long ga = gemms(&a), gb = gemms(&b), ma = modes(&a), mb = modes(&b);
    ck_totals t0 = ck_totals_now();
    hand_sgemm(sa, a.h, 'N', 'N');
    ck_expect_delta(&t0, 1, 48, 0, 0);
    assert_int_equal(gemms(&a), ga + 1);
    assert_int_equal(gemms(&b), gb);
    assert_int_equal(modes(&a), ma + 1);
    assert_int_equal(modes(&b), mb);
    expect_shape("cublasSgemm_v2", 'N', 'N', NULL);

    t0 = ck_totals_now();
    hand_sgemm(sb, b.h, 'T', 'N');
    ck_expect_delta(&t0, 1, 48, 0, 0);
    assert_int_equal(gemms(&a), ga + 1);
    assert_int_equal(gemms(&b), gb + 1);
    assert_int_equal(modes(&a), ma + 1);
    assert_int_equal(modes(&b), mb + 1);
    expect_shape("cublasSgemm_v2", 'T', 'N', NULL);

    /* The same lookup again gives the same function. */
    assert_ptr_equal(sym(b.lib, "cublasSgemm_v2"), (void *)sb);
    close_copy(&a);
    close_copy(&b);
}

/* The second copy's cublasGemmEx (fp32) calls its own cublasSgemm_v2
 * through the PLT, which lands in the shim: the GEMM is counted once, and
 * the inner call still reaches the second copy, not the first. */
static void test_nested_in_second_copy(void **state)
{
    (void)state;
    copy a = open_copy(A_CUBLAS), b = open_copy(B_CUBLAS);
    gemmex_fn ex = (gemmex_fn)sym(b.lib, "cublasGemmEx");
    ck_ops o;
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'T', 0);
    unsigned long ga = gemms(&a), gb = gemms(&b);
    ck_totals t0 = ck_totals_now();
    assert_int_equal(ex(b.h, CUBLAS_OP_N, CUBLAS_OP_T, CK_M, CK_N, CK_K, &f_alpha, o.A,
                        CUDA_R_32F, CK_M, o.B, CUDA_R_32F, CK_N, &f_beta, o.C, CUDA_R_32F, CK_M,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    ck_check_c(&o, CUDA_R_32F, 0);
    ck_expect_delta(&t0, 1, 48, 0, 0);
    /* the GEMM ran in the second copy's cublasSgemm_v2, the first saw nothing */
    assert_int_equal(gemms(&b), gb + 1);
    assert_int_equal(gemms(&a), ga);
    expect_shape("cublasGemmEx", 'N', 'T', "32F");
    close_copy(&a);
    close_copy(&b);
}

/* dlvsym with the library's version node finds the same hook. */
static void test_dlvsym(void **state)
{
    (void)state;
    copy a = open_copy(A_CUBLAS), b = open_copy(B_CUBLAS);
    sgemm_fn sv = (sgemm_fn)dlvsym(b.lib, "cublasSgemm_v2", "libcublas.so.13");
    assert_non_null(sv);
    assert_ptr_equal((void *)sv, sym(b.lib, "cublasSgemm_v2"));
    assert_null(dlvsym(b.lib, "cublasSgemm_v2", "libcublas.so.99"));
    unsigned long ga = gemms(&a), gb = gemms(&b);
    ck_totals t0 = ck_totals_now();
    hand_sgemm(sv, b.h, 'T', 'T');
    ck_expect_delta(&t0, 1, 48, 0, 0);
    assert_int_equal(gemms(&b), gb + 1);
    assert_int_equal(gemms(&a), ga);
    expect_shape("cublasSgemm_v2", 'T', 'T', NULL);
    close_copy(&a);
    close_copy(&b);
}

/* Names the shim does not hook come back as the library defines them, and
 * a name the library lacks still fails with dlerror() set. */
static void test_other_names_unchanged(void **state)
{
    (void)state;
    copy b = open_copy(B_CUBLAS);
    const char *names[] = {"cublasCreate_v2", "cublasGetMathMode", "fc_emu_cublas_gemm_calls"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        assert_ptr_equal(sym(b.lib, names[i]), real_symbol(b.lib, names[i], NULL));
    dlerror();
    assert_null(dlsym(b.lib, "cublasNoSuchFunction"));
    assert_non_null(dlerror());
    /* A hooked name found: no error left behind. */
    sym(b.lib, "cublasDgemm_v2");
    assert_null(dlerror());
    /* RTLD_DEFAULT finds what it found before: the shim's own definition. */
    assert_ptr_equal(dlsym(RTLD_DEFAULT, "cublasSgemm_v2"), ck_shim_symbol("cublasSgemm_v2"));
    close_copy(&b);
}

/* ---- cuBLASLt ---- */

typedef struct lt_api {
    cublasStatus_t (*create)(cublasLtHandle_t *);
    cublasStatus_t (*destroy)(cublasLtHandle_t);
    cublasStatus_t (*layout_destroy)(cublasLtMatrixLayout_t);
    cublasStatus_t (*desc_destroy)(cublasLtMatmulDesc_t);
    cublasStatus_t (*layout)(cublasLtMatrixLayout_t *, cudaDataType, uint64_t, uint64_t, int64_t);
    cublasStatus_t (*desc)(cublasLtMatmulDesc_t *, cublasComputeType_t, cudaDataType_t);
    cublasStatus_t (*matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                             cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t,
                             const void *, const void *, cublasLtMatrixLayout_t, void *,
                             cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *,
                             size_t, cudaStream_t);
} lt_api;

static lt_api lt_open(void *lib)
{
    lt_api a;
    *(void **)&a.create = sym(lib, "cublasLtCreate");
    *(void **)&a.destroy = sym(lib, "cublasLtDestroy");
    *(void **)&a.layout_destroy = sym(lib, "cublasLtMatrixLayoutDestroy");
    *(void **)&a.desc_destroy = sym(lib, "cublasLtMatmulDescDestroy");
    *(void **)&a.layout = sym(lib, "cublasLtMatrixLayoutCreate");
    *(void **)&a.desc = sym(lib, "cublasLtMatmulDescCreate");
    *(void **)&a.matmul = sym(lib, "cublasLtMatmul");
    return a;
}

/* The hand-worked GEMM as D = alpha A B + beta C on the second cuBLASLt
 * copy, descriptors made by that copy: decoded by that copy's getters. */
static void test_lt_second_copy(void **state)
{
    (void)state;
    void *la = open_local(A_LT), *lb = open_local(B_LT);
    assert_ptr_not_equal(la, lb);
    lt_api b = lt_open(lb);
    assert_ptr_not_equal(*(void **)&b.matmul, real_symbol(lb, "cublasLtMatmul", NULL));
    cublasLtHandle_t h = NULL;
    cublasLtMatrixLayout_t al = NULL, bl = NULL, cl = NULL;
    cublasLtMatmulDesc_t d = NULL;
    assert_int_equal(b.create(&h), 0);
    assert_int_equal(b.layout(&al, CUDA_R_32F, CK_M, CK_K, CK_M), 0);
    assert_int_equal(b.layout(&bl, CUDA_R_32F, CK_K, CK_N, CK_K), 0);
    assert_int_equal(b.layout(&cl, CUDA_R_32F, CK_M, CK_N, CK_M), 0);
    assert_int_equal(b.desc(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    ck_ops o;
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    unsigned long ma = counter(la, "fc_emu_lt_matmul_calls");
    unsigned long mb = counter(lb, "fc_emu_lt_matmul_calls");
    unsigned long qa = counter(la, "fc_emu_lt_getter_calls");
    unsigned long qb = counter(lb, "fc_emu_lt_getter_calls");
    ck_totals t0 = ck_totals_now();
    assert_int_equal(b.matmul(h, d, &f_alpha, o.A, al, o.B, bl, &f_beta, o.C, cl, o.C, cl, NULL,
                              NULL, 0, 0),
                     CUBLAS_STATUS_SUCCESS);
    ck_check_c(&o, CUDA_R_32F, 0);
    ck_expect_delta(&t0, 1, 48, 0, 0);
    assert_int_equal(counter(lb, "fc_emu_lt_matmul_calls"), mb + 1);
    assert_int_equal(counter(la, "fc_emu_lt_matmul_calls"), ma);
    assert_true(counter(lb, "fc_emu_lt_getter_calls") > qb);
    assert_int_equal(counter(la, "fc_emu_lt_getter_calls"), qa);
    expect_shape("cublasLtMatmul", 'N', 'N', "32F");
    b.desc_destroy(d);
    b.layout_destroy(cl);
    b.layout_destroy(bl);
    b.layout_destroy(al);
    b.destroy(h);
}

/* A libcublas whose cublasSgemm_v2 calls cublasLtMatmul inside: one GEMM,
 * counted once, under cublasSgemm_v2; the inner call reaches the cuBLASLt
 * that library depends on. */
static void test_cublas_over_lt(void **state)
{
    (void)state;
    void *lib = open_local(OVER_LT);
    cublasHandle_t h = NULL;
    assert_int_equal(((create_fn)sym(lib, "cublasCreate_v2"))(&h), 0);
    sgemm_fn s = (sgemm_fn)sym(lib, "cublasSgemm_v2");
    /* its cuBLASLt, as its own lookups find it */
    counter_fn lt_calls = (counter_fn)sym(lib, "fc_emu_lt_matmul_calls");
    unsigned long m0 = lt_calls();
    struct json_object *r = ck_report();
    uint64_t lt_api0 = ck_api_calls(r, "cublasLtMatmul");
    json_object_put(r);
    ck_totals t0 = ck_totals_now();
    hand_sgemm(s, h, 'N', 'T');
    ck_expect_delta(&t0, 1, 48, 0, 0);
    assert_int_equal(lt_calls(), m0 + 1);
    r = ck_report();
    assert_int_equal(ck_api_calls(r, "cublasLtMatmul"), lt_api0);
    json_object_put(r);
    expect_shape("cublasSgemm_v2", 'N', 'T', NULL);
    copy over = {lib, h};
    close_copy(&over);
}

/* ---- CPU BLAS ---- */

typedef void (*fortran_sgemm_fn)(const char *, const char *, const int *, const int *,
                                 const int *, const float *, const float *, const int *,
                                 const float *, const int *, const float *, float *, const int *,
                                 size_t, size_t);

/* The system's reference BLAS loaded RTLD_LOCAL, sgemm_ through dlsym (as
 * libblastrampoline and FlexiBLAS reach their backends). */
static void test_blas(void **state)
{
    (void)state;
    void *lib = open_local(LIBBLAS);
    fortran_sgemm_fn f = (fortran_sgemm_fn)sym(lib, "sgemm_");
    assert_ptr_not_equal((void *)f, real_symbol(lib, "sgemm_", NULL));
    ck_ops o;
    ck_fill(&o, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, 'N', 'N', 0);
    int m = CK_M, n = CK_N, k = CK_K;
    ck_totals t0 = ck_totals_now();
    f("N", "N", &m, &n, &k, &f_alpha, (const float *)o.A, &m, (const float *)o.B, &k, &f_beta,
      (float *)o.C, &m, 1, 1);
    ck_check_c(&o, CUDA_R_32F, 0);
    ck_expect_delta(&t0, 1, 48, 0, 0);
    expect_shape("sgemm_", 'N', 'N', NULL);
}

/* ---- constructors and threads ---- */

/* A library whose constructor looks cuBLAS up with dlsym and runs a GEMM,
 * dlopen()ed while other threads look up and call hooks: the constructor
 * runs under the loader's lock; nothing may wait. Every call is counted. */
enum { THREADS = 4, ITERS = 2000 };
static sgemm_fn thread_fn;
static cublasHandle_t thread_h;

static void *lookup_and_call(void *arg)
{
    void *lib = arg;
    for (int i = 0; i < ITERS; i++) {
        sgemm_fn f = (sgemm_fn)dlsym(lib, "cublasSgemm_v2");
        if (f != thread_fn)
            return (void *)1;
        float a = 1, b = 1, c = 0, one = 1, zero = 0;
        if (f(thread_h, CUBLAS_OP_T, CUBLAS_OP_T, 1, 1, 1, &one, &a, 1, &b, 1, &zero, &c, 1) != 0 ||
            c != 1)
            return (void *)2;
    }
    return NULL;
}

static void test_constructor_and_threads(void **state)
{
    (void)state;
    copy b = open_copy(B_CUBLAS);
    thread_fn = (sgemm_fn)sym(b.lib, "cublasSgemm_v2");
    thread_h = b.h;
    ck_totals t0 = ck_totals_now();
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, lookup_and_call, b.lib), 0);
    void *ctor = open_local(CTOR_LIB); /* its constructor runs the 1x1x1 GEMM */
    for (int i = 0; i < THREADS; i++) {
        void *ret = (void *)-1;
        assert_int_equal(pthread_join(th[i], &ret), 0);
        assert_null(ret);
    }
    assert_int_equal(*(int *)sym(ctor, "fc_ctor_dlsym_result"), 1);
    ck_expect_delta(&t0, THREADS * ITERS + 1, 2 * (THREADS * ITERS + 1), 0, 0);
    struct json_object *r = ck_report();
    ck_expect_shape(r, &(ck_want){"cublasSgemm_v2", 1, 1, 1, 1, 'T', 'T', "fp32", "fp32", NULL,
                                  THREADS * ITERS, 0, 2 * THREADS * ITERS});
    ck_expect_shape(r, &(ck_want){"cublasSgemm_v2", 1, 1, 1, 1, 'N', 'N', "fp32", "fp32", NULL,
                                  1, 0, 2});
    json_object_put(r);
    close_copy(&b);
}

int main(int argc, char **argv)
{
    if (argc != NARGS) {
        fprintf(stderr,
                "usage: %s CUBLAS_A CUBLAS_B CUBLASLT_A CUBLASLT_B OVER_LT CTOR_LIB LIBBLAS\n",
                argv[0]);
        return 2;
    }
    args = argv;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_copies),
        cmocka_unit_test(test_nested_in_second_copy),
        cmocka_unit_test(test_dlvsym),
        cmocka_unit_test(test_other_names_unchanged),
        cmocka_unit_test(test_lt_second_copy),
        cmocka_unit_test(test_cublas_over_lt),
        cmocka_unit_test(test_blas),
        cmocka_unit_test(test_constructor_and_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

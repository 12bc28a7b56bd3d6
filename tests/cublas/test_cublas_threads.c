/* SPDX-License-Identifier: Apache-2.0 */
/* test_cublas_threads.c - 16 threads x 10,000 cuBLAS calls through the
 * emulation under the shim: the lock-free counters must add up exactly.
 *
 * Even threads: cublasSgemm_v2 m=3 n=5 k=2, 2*3*5*2 = 60 FLOPs a call.
 * Odd threads: cublasDgemmStridedBatched_64 m=n=k=2, batch 3,
 * 2*2*2*2*3 = 48 FLOPs a call.
 * Totals: 8*10,000 = 80,000 calls of each; 80,000*60 = 4,800,000 and
 * 80,000*48 = 3,840,000; 160,000 calls, 8,640,000 FLOPs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <cublas_api.h>
#include <json-c/json.h>
#include <pthread.h>

#include "emu/cublas_emu_check.h"

enum { THREADS = 16, CALLS = 10000 };

typedef struct worker {
    int id;
    int bad_status; /* calls that did not return SUCCESS */
    int bad_value;  /* results that were wrong */
} worker;

/* All-ones operands with alpha 1, beta 0: every element of C is k. */
static void run_sgemm(worker *w, cublasHandle_t h)
{
    float a[6], b[10], c[15], one = 1, zero = 0;
    for (int i = 0; i < 6; i++)
        a[i] = 1;
    for (int i = 0; i < 10; i++)
        b[i] = 1;
    for (int i = 0; i < CALLS; i++) {
        w->bad_status += cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 3, 5, 2, &one, a, 3, b, 2,
                                        &zero, c, 3) != CUBLAS_STATUS_SUCCESS;
        w->bad_value += !ck_null_gpu() && c[14] != 2; /* no arithmetic on the null GPU */
    }
}

static void run_dstrided(worker *w, cublasHandle_t h)
{
    double a[12], b[12], c[12], one = 1, zero = 0;
    for (int i = 0; i < 12; i++)
        a[i] = b[i] = 1;
    for (int i = 0; i < CALLS; i++) {
        w->bad_status += cublasDgemmStridedBatched_64(h, CUBLAS_OP_T, CUBLAS_OP_N, 2, 2, 2, &one,
                                                      a, 2, 4, b, 2, 4, &zero, c, 2, 4, 3) !=
                         CUBLAS_STATUS_SUCCESS;
        w->bad_value += !ck_null_gpu() && c[11] != 2;
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    cublasHandle_t h;
    if (cublasCreate_v2(&h) != CUBLAS_STATUS_SUCCESS) {
        w->bad_status = CALLS;
        return NULL;
    }
    if (w->id % 2 == 0)
        run_sgemm(w, h);
    else
        run_dstrided(w, h);
    cublasDestroy_v2(h);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    ck_shim_symbol("cublasSgemm_v2");
    ck_totals t0 = ck_totals_now();
    pthread_t tid[THREADS];
    worker w[THREADS] = {{0}};
    for (int i = 0; i < THREADS; i++) {
        w[i].id = i;
        assert_int_equal(pthread_create(&tid[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(tid[i], NULL), 0);
        assert_int_equal(w[i].bad_status, 0);
        assert_int_equal(w[i].bad_value, 0);
    }
    ck_expect_delta(&t0, 160000, 8640000, 0, 0);
    struct json_object *r = ck_report();
    assert_int_equal(ck_total(r, "gemm_calls"), 160000);
    assert_int_equal(ck_total(r, "gemm_flops"), 8640000);
    ck_expect_shape(r, &(ck_want){"cublasSgemm_v2", 3, 5, 2, 1, 'N', 'N', "fp32", "fp32", NULL,
                                  80000, 0, 4800000});
    ck_expect_shape(r, &(ck_want){"cublasDgemmStridedBatched_64", 2, 2, 2, 3, 'T', 'N', "fp64",
                                  "fp64", NULL, 80000, 0, 3840000});
    json_object_put(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_threads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* test_fault_stress.c - 16 threads x 100,000 sgemm_ calls through the
 * preloaded shim, with exact totals afterwards. Run under TSan too.
 *
 * Each thread alternates a shape all threads share (7x7x7: they race to
 * claim the same table slot) with a shape of its own ((t+1)x3x5), 50,000
 * calls of each. By hand:
 *   calls  = 16 * 100,000                                   = 1,600,000
 *   shared = 16 * 50,000 * 2*7*7*7 = 800,000 * 686          =   548,800,000
 *   own    = sum_{t=0..15} 50,000 * 2*(t+1)*3*5
 *          = 50,000 * 30 * (1+2+...+16) = 1,500,000 * 136   =   204,000,000
 *   FLOPs  = 548,800,000 + 204,000,000                      =   752,800,000
 *   distinct shapes = 1 + 16 = 17 (checked from the report by the script)
 * The threads end before the process: the report written at exit must hold
 * the same totals (tests/robust/fault_exits.sh checks the file). */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../include/flopcount.h"

#define THREADS 16
#define CALLS 100000

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
extern atomic_ulong fault_blas_calls;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    const int shared = 7, own_m = t + 1, n = 3, k = 5, ld = 16;
    float alpha = 1, beta = 0, a[1], b[1], c[1];
    for (int i = 0; i < CALLS; i++) {
        if (i % 2 == 0)
            sgemm_("N", "N", &shared, &shared, &shared, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1,
                   1);
        else
            sgemm_("N", "T", &own_m, &n, &k, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);
    }
    return NULL;
}

static void exact_totals_after_16_threads(void **state)
{
    (void)state;
    int (*get)(flopcount_snapshot *) =
        (int (*)(flopcount_snapshot *))dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    assert_non_null(get); /* the shim must be preloaded */
    pthread_t tid[THREADS];
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(tid[t], NULL), 0);

    assert_int_equal(atomic_load(&fault_blas_calls), 1600000); /* every call forwarded */
    flopcount_snapshot s = {.size = sizeof s};
    assert_int_equal(get(&s), 0);
    assert_int_equal(s.gemm_calls, 1600000);
    assert_int_equal(s.gemm_flops_hi, 0);
    assert_int_equal(s.gemm_flops_lo, 752800000);
    assert_int_equal(s.failed_calls, 0);
    assert_int_equal(s.invalid_calls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(exact_totals_after_16_threads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* noop_blas.c - libfc_noop_blas.so: a BLAS whose sgemm_ returns at once,
 * so bench/shim_overhead measures the cost of a call and of the shim, not
 * of a matrix product. It only counts its calls (one add, the same on
 * every path), so the benchmark can check the shim forwarded each one. */
#include <stddef.h>
#include <time.h>

__attribute__((visibility("default"))) unsigned long noop_blas_calls;
/* --work-ns: host time a real GEMM call takes before it returns (cuBLAS:
 * 3-5 us to enqueue a kernel), spent spinning; 0 returns at once. */
__attribute__((visibility("default"))) unsigned long noop_blas_work_ns;

static void spin(unsigned long ns)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((unsigned long)((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec)) < ns);
}

__attribute__((visibility("default"))) void sgemm_(const char *ta, const char *tb, const int *m,
                                                   const int *n, const int *k, const float *alpha,
                                                   const float *a, const int *lda, const float *b,
                                                   const int *ldb, const float *beta, float *c,
                                                   const int *ldc, size_t lta, size_t ltb)
{
    (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda;
    (void)b, (void)ldb, (void)beta, (void)c, (void)ldc, (void)lta, (void)ltb;
    noop_blas_calls++;
    if (noop_blas_work_ns)
        spin(noop_blas_work_ns);
}

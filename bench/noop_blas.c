/* SPDX-License-Identifier: Apache-2.0 */
/* noop_blas.c - libfc_noop_blas.so: a BLAS whose sgemm_ returns at once,
 * so bench/shim_overhead measures the cost of a call and of the shim, not
 * of a matrix product. It only counts its calls (one add, the same on
 * every path), so the benchmark can check the shim forwarded each one. */
#include <stddef.h>

__attribute__((visibility("default"))) unsigned long noop_blas_calls;
/* --work-ns: the host time a real GEMM call takes before it returns
 * (cuBLAS: 3-5 us to enqueue a kernel), as a fixed number of iterations of
 * a dependent multiply-add chain (the benchmark calibrates how many make
 * that time), so every call costs the same CPU time however often the
 * thread is preempted; 0 returns at once. */
__attribute__((visibility("default"))) unsigned long noop_blas_work_iters;

__attribute__((visibility("default"))) unsigned long noop_blas_spin(unsigned long iters)
{
    unsigned long x = iters;
    for (unsigned long i = 0; i < iters; i++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        __asm__ __volatile__("" : "+r"(x)); /* keep every iteration */
    }
    return x;
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
    if (noop_blas_work_iters)
        noop_blas_spin(noop_blas_work_iters);
}

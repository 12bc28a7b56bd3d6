/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_fake_blas.c - libfc_fault_blas.so: a BLAS that does nothing but
 * remember what it was called with, for the fault tests. With it the tests
 * can pass arguments a real BLAS would reject (reference BLAS ends the
 * process through xerbla) and check that the shim forwarded every argument
 * untouched. Its file name holds "blas", so the shim's resolver takes it as
 * a BLAS library. */
#include <stdatomic.h>
#include <stddef.h>

#define FB_EXPORT __attribute__((visibility("default")))

/* Last call's arguments, per thread (the calling thread reads them), and a count of
 * every call (the thread stress test checks that each was forwarded). */
FB_EXPORT __thread const void *fault_blas_last[15];
FB_EXPORT atomic_ulong fault_blas_calls;

FB_EXPORT void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                      const float *alpha, const float *a, const int *lda, const float *b,
                      const int *ldb, const float *beta, float *c, const int *ldc, size_t lta,
                      size_t ltb)
{
    const void *args[15] = {
        ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, (const void *)lta, (const void *)ltb};
    for (int i = 0; i < 15; i++)
        fault_blas_last[i] = args[i];
    atomic_fetch_add_explicit(&fault_blas_calls, 1, memory_order_relaxed);
}

FB_EXPORT void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha,
                           const float *a, int lda, const float *b, int ldb, float beta, float *c,
                           int ldc)
{
    const void *args[14] = {(const void *)(long)order,
                            (const void *)(long)ta,
                            (const void *)(long)tb,
                            (const void *)(long)m,
                            (const void *)(long)n,
                            (const void *)(long)k,
                            (const void *)(long)(alpha * 1000),
                            a,
                            (const void *)(long)lda,
                            b,
                            (const void *)(long)ldb,
                            (const void *)(long)(beta * 1000),
                            c,
                            (const void *)(long)ldc};
    for (int i = 0; i < 14; i++)
        fault_blas_last[i] = args[i];
    fault_blas_last[14] = NULL;
    atomic_fetch_add_explicit(&fault_blas_calls, 1, memory_order_relaxed);
}

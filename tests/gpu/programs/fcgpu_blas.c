/* SPDX-License-Identifier: Apache-2.0 */
/* fcgpu_blas.c - libfcgpu_blas.so: a plain column-major sgemm_ (Fortran
 * BLAS interface) for the bring-up check (checks/00_bringup.py). It travels
 * in the prepared prefix, so the check needs no BLAS on the GPU machine; its
 * file name holds "blas", so the shim's resolver takes it for a BLAS. */
#include <stddef.h>

#define FB_EXPORT __attribute__((visibility("default")))

static float at(const float *x, int ld, int trans, int i, int j)
{
    return trans ? x[(size_t)j + (size_t)i * ld] : x[(size_t)i + (size_t)j * ld];
}

/* C(m x n) = alpha * op(A)(m x k) * op(B)(k x n) + beta * C */
FB_EXPORT void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                      const float *alpha, const float *a, const int *lda, const float *b,
                      const int *ldb, const float *beta, float *c, const int *ldc, size_t lta,
                      size_t ltb)
{
    (void)lta;
    (void)ltb;
    int tra = *ta == 'T' || *ta == 't' || *ta == 'C' || *ta == 'c';
    int trb = *tb == 'T' || *tb == 't' || *tb == 'C' || *tb == 'c';
    for (int j = 0; j < *n; j++) {
        for (int i = 0; i < *m; i++) {
            float acc = 0.0f;
            for (int p = 0; p < *k; p++)
                acc += at(a, *lda, tra, i, p) * at(b, *ldb, trb, p, j);
            float *cij = &c[(size_t)i + (size_t)j * *ldc];
            *cij = *alpha * acc + (*beta == 0.0f ? 0.0f : *beta * *cij);
        }
    }
}

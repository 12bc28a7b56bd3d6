/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_sgemm16.h - the one GEMM of the loop fixtures (fixture_gemm_loop.c,
 * tests/tensorboard/fixture_tb_loop.c): C = op(A) op(B) of 16x16 floats
 * through the Fortran BLAS's sgemm_, 2*16^3 = 8,192 FLOPs a call. */
#ifndef FIXTURE_SGEMM16_H
#define FIXTURE_SGEMM16_H

#include <stddef.h>

#define N 16

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

static inline void mm(const char *ta, const char *tb, const float *a, const float *b, float *c)
{
    int n = N;
    float one = 1, zero = 0;
    sgemm_(ta, tb, &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
}

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_gemm_plugin.c - a plugin linked against libblas, loaded
 * RTLD_LOCAL (as Python loads torch), so the shim cannot find the BLAS
 * through RTLD_NEXT and has to search the loaded objects. plugin_gemm runs
 * one GEMM of the Fortran interface given by which (0 sgemm_, 1 dgemm_,
 * 2 cgemm_, 3 zgemm_) with all-ones operands and returns C[0] (= k). */
#include <stddef.h>

#define MAX_DIM 32

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void cgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);

/* Per calling thread, so a worker thread and the main thread never share. */
static __thread double a[2 * MAX_DIM * MAX_DIM], b[2 * MAX_DIM * MAX_DIM], c[2 * MAX_DIM * MAX_DIM];
static __thread float af[2 * MAX_DIM * MAX_DIM], bf[2 * MAX_DIM * MAX_DIM], cf[2 * MAX_DIM * MAX_DIM];

/* Touches this thread's TLS block of the plugin: glibc allocates a
 * dlopen'ed module's block with malloc at a thread's first access, so a
 * fork child whose first access comes after fork calls malloc there (see
 * fork_race.c's main). */
void plugin_tls_touch(void)
{
    a[0] = af[0] = 0;
}

double plugin_gemm(int which, int m, int n, int k)
{
    if (m < 1 || n < 1 || k < 1 || m > MAX_DIM || n > MAX_DIM || k > MAX_DIM)
        return -1;
    int cplx = which >= 2;
    for (int i = 0; i < 2 * MAX_DIM * MAX_DIM; i++) { /* ones; complex ones are (1, 0) */
        a[i] = b[i] = !cplx || i % 2 == 0;
        af[i] = bf[i] = (float)(!cplx || i % 2 == 0);
    }
    float f1[2] = {1, 0}, f0[2] = {0, 0};
    double d1[2] = {1, 0}, d0[2] = {0, 0};
    switch (which) {
    case 0: sgemm_("N", "N", &m, &n, &k, f1, af, &m, bf, &k, f0, cf, &m, 1, 1); return cf[0];
    case 1: dgemm_("N", "N", &m, &n, &k, d1, a, &m, b, &k, d0, c, &m, 1, 1); return c[0];
    case 2: cgemm_("N", "N", &m, &n, &k, f1, af, &m, bf, &k, f0, cf, &m, 1, 1); return cf[0];
    default: zgemm_("N", "N", &m, &n, &k, d1, a, &m, b, &k, d0, c, &m, 1, 1); return c[0];
    }
}

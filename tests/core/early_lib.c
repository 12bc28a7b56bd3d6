/* SPDX-License-Identifier: Apache-2.0 */
/* early_lib.c - a library whose constructor runs a GEMM. Linked into
 * early_main, it is initialised before the preloaded shim's constructor
 * (dependencies of the program first): the call must be forwarded and counted. */
#include <stddef.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

float early_result;

__attribute__((constructor)) static void early(void)
{
    static float a[64], b[64], c[64];
    float one = 1, zero = 0;
    int m = 2, n = 2, k = 3;
    for (int i = 0; i < 64; i++)
        a[i] = b[i] = 1;
    sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    early_result = c[0];
}

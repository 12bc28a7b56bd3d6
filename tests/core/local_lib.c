/* SPDX-License-Identifier: Apache-2.0 */
/* local_lib.c - a plugin linked against libblas, loaded RTLD_LOCAL by
 * local_main.c the way Python loads extension modules: from the shim,
 * dlsym(RTLD_NEXT, "sgemm_") then finds nothing, and the call must still
 * reach the real sgemm_. */
#include <stddef.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

float plugin_gemm(int m, int n, int k)
{
    static float a[4096], b[4096], c[4096];
    float one = 1, zero = 0;
    for (int i = 0; i < 4096; i++)
        a[i] = b[i] = 1;
    sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    return c[0];
}

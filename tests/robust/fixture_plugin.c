/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_plugin.c - libfc_fault_module.so: a plugin that needs a BLAS
 * (libfc_fault_blas.so) and calls sgemm_, as a Python extension module
 * does. test_fault_dlclose loads and unloads it. */
#include <stddef.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

/* n calls of 2x2x2 (16 FLOPs each). */
__attribute__((visibility("default"))) void fault_module_gemm(int n)
{
    const int two = 2;
    float alpha = 1, beta = 0, a[4], b[4], c[4];
    for (int i = 0; i < n; i++)
        sgemm_("N", "N", &two, &two, &two, &alpha, a, &two, b, &two, &beta, c, &two, 1, 1);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* bringup.c - fcgpu_bringup: the trivial program of the bring-up check
 * (checks/00_bringup.py). Three sgemm_ calls through libfcgpu_blas.so,
 * shapes (m, n, k) = (2, 3, 4) NN, (5, 6, 7) TN, (16, 16, 16) NT, then one
 * line with a checksum of the results, which must be the same with and
 * without the shim preloaded. */
#include <stdio.h>
#include <stddef.h>

void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc, size_t lta, size_t ltb);

static float a[256], b[256], c[256];

static double call(char ta, char tb, int m, int n, int k)
{
    const float one = 1.0f, zero = 0.0f;
    int lda = ta == 'N' ? m : k, ldb = tb == 'N' ? k : n, ldc = m;
    sgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &ldc, 1, 1);
    double s = 0;
    for (int i = 0; i < m * n; i++)
        s += c[i] * (double)(i + 1);
    return s;
}

int main(void)
{
    for (int i = 0; i < 256; i++) {
        a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    }
    double s = call('N', 'N', 2, 3, 4) + call('T', 'N', 5, 6, 7) + call('N', 'T', 16, 16, 16);
    printf("bringup checksum %.9g\n", s);
    return 0;
}

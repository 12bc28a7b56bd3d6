/* SPDX-License-Identifier: Apache-2.0 */
/* stats.c - medians, the steady-iteration rule and comparators (stats.h). */
#include "stats.h"

#include <math.h>

/* Shell sort of v[0..n) of element type T, ascending. */
#define FC_SHELL_SORT(name, T)                                                             \
    void name(T *v, size_t n)                                                              \
    {                                                                                      \
        for (size_t gap = n / 2; gap > 0; gap /= 2)                                        \
            for (size_t i = gap; i < n; i++) {                                             \
                T t = v[i];                                                                \
                size_t j = i;                                                              \
                for (; j >= gap && v[j - gap] > t; j -= gap)                               \
                    v[j] = v[j - gap];                                                     \
                v[j] = t;                                                                  \
            }                                                                              \
    }

FC_SHELL_SORT(fc_sort_double, double)
FC_SHELL_SORT(fc_sort_u128, fc_u128)

double fc_median_double(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    fc_sort_double(v, n);
    return v[(n - 1) / 2];
}

fc_u128 fc_median_u128(fc_u128 *v, size_t n)
{
    if (n == 0)
        return 0;
    fc_sort_u128(v, n);
    return v[(n - 1) / 2];
}

void fc_steady_range(size_t n, int last_open_end, size_t *from, size_t *to)
{
    *from = n >= 2 ? 1 : 0;
    *to = n;
    if (*to - *from >= 2 && last_open_end)
        (*to)--;
}

int fc_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int fc_cmp_u128(const void *a, const void *b)
{
    fc_u128 x = *(const fc_u128 *)a, y = *(const fc_u128 *)b;
    return (x > y) - (x < y);
}

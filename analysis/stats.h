/* SPDX-License-Identifier: Apache-2.0 */
/* stats.h - the one definition of the statistics every figure of a run is
 * reduced with, shared by the shim's own report, `flopcount report` and
 * `flopcount merge`, so one rank's figures are identical in all three:
 *
 * - median: the LOWER middle value of the sorted values (for an even count
 *   n, the (n/2)-th smallest, 1-based). It stays exact for integers (FLOPs
 *   are never averaged into a fraction) and is a value some iteration
 *   really had. Medians of FLOPs and of recompute FLOPs are taken apart.
 * - steady iterations: all iterations but the first (warm-up), all of them
 *   when there is only one; and a last iteration whose end is not known
 *   (open_end: the stream ended, not the next iteration) is left out when
 *   at least two others remain.
 *
 * The sorts are in place and allocate nothing (the shim runs them from a
 * signal handler). */
#ifndef FC_STATS_H
#define FC_STATS_H

#include <stddef.h>

#include "u128.h"

/* Median of v[0..n) as defined above; sorts v. NaN / 0 when n is 0. */
double fc_median_double(double *v, size_t n);
fc_u128 fc_median_u128(fc_u128 *v, size_t n);

/* In-place ascending sorts (shell sort: no allocation, no recursion). */
void fc_sort_double(double *v, size_t n);
void fc_sort_u128(fc_u128 *v, size_t n);

/* The steady iterations of a list of n whose last one has open_end
 * last_open_end: indices [*from, *to). */
void fc_steady_range(size_t n, int last_open_end, size_t *from, size_t *to);

/* qsort comparators, ascending. */
int fc_cmp_double(const void *a, const void *b);
int fc_cmp_u128(const void *a, const void *b);

#endif

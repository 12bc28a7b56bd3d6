/* SPDX-License-Identifier: Apache-2.0 */
/* run_figures.c - a run's headline figures, defined once (run_figures.h):
 * the medians of the steady iterations, the recompute of the iterations
 * whose split is sure, HFU and MFU. */
#include "run_figures.h"

#include <math.h>

#include "stats.h"
#include "utilization.h"

enum { F_FLOPS, F_FORWARD, F_XS, F_MICRO };

/* The lower median of v[0..n) (stats.h's definition: the ((n-1)/2)-th
 * smallest, 0-based) by selection, not a sort: a merge takes four a rank.
 * Integers: equal values are the same value, so which of them lands at k
 * does not matter, and the result is fc_median_u128's. Reorders v; no
 * allocation, no recursion. */
static fc_u128 median_select(fc_u128 *v, size_t n)
{
    if (n == 0)
        return 0;
    size_t lo = 0, hi = n - 1, k = (n - 1) / 2;
    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2; /* median of three as the pivot */
        fc_u128 a = v[lo], b = v[mid], c = v[hi];
        fc_u128 pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        for (;;) { /* Hoare: [lo, j] <= pivot <= [j + 1, hi] */
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i >= j)
                break;
            fc_u128 t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        if (k <= j)
            hi = j;
        else
            lo = j + 1;
    }
    return v[k];
}

/* The median of one u128 field over [from, to). */
static fc_u128 median_of(fc_fig_iter_fn get, const void *ctx, size_t from, size_t to, int field,
                         fc_u128 *scratch)
{
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        fc_fig_iter it;
        get(ctx, i, &it);
        scratch[n++] = field == F_FLOPS ? it.flops
                       : field == F_FORWARD ? it.forward
                       : field == F_XS ? it.xs
                                       : (fc_u128)it.micro;
    }
    return median_select(scratch, n);
}

void fc_fig_medians_of(fc_fig_iter_fn get, const void *ctx, size_t from, size_t to,
                       fc_u128 *scratch, double *secs, fc_fig_medians *out)
{
    *out = (fc_fig_medians){0};
    out->seconds = NAN;
    if (to <= from)
        return;
    size_t n = to - from, n_sure = 0;
    /* the recompute of the sure iterations; the counts; the times */
    for (size_t i = from; i < to; i++) {
        fc_fig_iter it;
        get(ctx, i, &it);
        out->n_unsure += it.unsure != 0;
        out->n_unsure_recompute += it.unsure_recompute != 0;
        if (!it.unsure_recompute)
            scratch[n_sure++] = it.recompute;
        if (!isnan(it.seconds))
            secs[out->n_timed++] = it.seconds;
    }
    out->n = n;
    if (out->n_timed > 0)
        out->seconds = fc_median_double(secs, out->n_timed);
    if (n_sure == 0) { /* none sure: every steady one's, a guess */
        for (size_t i = from; i < to; i++) {
            fc_fig_iter it;
            get(ctx, i, &it);
            scratch[i - from] = it.recompute;
        }
        out->recompute_guessed = out->n_unsure_recompute > 0;
    }
    out->recompute = median_select(scratch, n_sure ? n_sure : n);
    out->flops = median_of(get, ctx, from, to, F_FLOPS, scratch);
    out->forward = median_of(get, ctx, from, to, F_FORWARD, scratch);
    out->xs = median_of(get, ctx, from, to, F_XS, scratch);
    out->micro = (uint64_t)median_of(get, ctx, from, to, F_MICRO, scratch);
}

void fc_fig_median_time_flops(fc_fig_iter_fn get, const void *ctx, size_t from, size_t to,
                              fc_u128 *scratch, double *secs, double *seconds, fc_u128 *flops)
{
    size_t n = 0, n_timed = 0;
    for (size_t i = from; i < to; i++) {
        fc_fig_iter it;
        get(ctx, i, &it);
        scratch[n++] = it.flops;
        if (!isnan(it.seconds))
            secs[n_timed++] = it.seconds;
    }
    *seconds = n_timed > 0 ? fc_median_double(secs, n_timed) : NAN;
    *flops = median_select(scratch, n); /* fc_fig_medians_of's flops: median_of, F_FLOPS */
}

fc_u128 fc_fig_model_flops(fc_u128 flops, fc_u128 recompute, fc_u128 xs)
{
    fc_u128 less = fc_u128_sat_add(recompute, xs);
    return flops > less ? flops - less : 0;
}

void fc_fig_utilization(fc_u128 flops, fc_u128 recompute, fc_u128 xs, double seconds,
                        int64_t gpus, double peak, double *hfu, double *mfu)
{
    *hfu = fc_utilization(flops, seconds, gpus, peak);
    *mfu = fc_utilization(fc_fig_model_flops(flops, recompute, xs), seconds, gpus, peak);
}

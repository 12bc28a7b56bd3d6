/* SPDX-License-Identifier: Apache-2.0 */
/* run_figures.c - a run's headline figures, defined once (run_figures.h):
 * the medians of the steady iterations, the recompute of the iterations
 * whose split is sure, HFU and MFU. */
#include "run_figures.h"

#include <math.h>

#include "stats.h"
#include "utilization.h"

enum { F_FLOPS, F_FORWARD, F_XS, F_MICRO };

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
    return fc_median_u128(scratch, n);
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
    out->recompute = fc_median_u128(scratch, n_sure ? n_sure : n);
    out->flops = median_of(get, ctx, from, to, F_FLOPS, scratch);
    out->forward = median_of(get, ctx, from, to, F_FORWARD, scratch);
    out->xs = median_of(get, ctx, from, to, F_XS, scratch);
    out->micro = (uint64_t)median_of(get, ctx, from, to, F_MICRO, scratch);
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

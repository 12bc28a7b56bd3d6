/* SPDX-License-Identifier: Apache-2.0 */
/* run_figures.h - a run's headline figures, defined once: the medians of
 * the steady iterations, recompute, HFU and MFU. Every reader computes
 * them here - the shim (live line, exit summary, JSON report, Prometheus,
 * TensorBoard, snapshot), `flopcount report` (text, JSON, HTML) and
 * `flopcount merge` - so one run gives one MFU wherever it is shown.
 *
 * The rules (the statistics are analysis/stats.h's):
 * - the medians are over the steady iterations (fc_steady_range), each
 *   figure's median taken apart;
 * - recompute (and so MFU) is the median over the steady iterations whose
 *   split is sure about recompute, when there is any: a guessed iteration
 *   never moves it then; when none is sure it is the median of every
 *   steady one, and a guess (recompute_guessed);
 * - model FLOPs are counted FLOPs less recompute and less attention's
 *   backward beyond the model convention (2x its forward, not the 2.5x
 *   the kernels execute), never below 0;
 * - HFU = FLOPs / (seconds x GPUs x peak), MFU the same over model FLOPs
 *   (fc_utilization: NaN without a positive time, GPU count or peak).
 *
 * Pure; allocates nothing (the shim calls it from a signal handler): the
 * caller gives the scratch. */
#ifndef FC_RUN_FIGURES_H
#define FC_RUN_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "u128.h"

/* One iteration as the figures see it. */
typedef struct fc_fig_iter {
    fc_u128 flops;            /* forward + backward + recompute */
    fc_u128 forward, recompute;
    fc_u128 xs;               /* attention beyond the model convention */
    double seconds;           /* NaN: not timed */
    uint64_t micro;           /* micro-batches (training forwards) */
    int unsure;               /* its forward/backward/recompute split is a guess */
    int unsure_recompute;     /* ... and the guess can move recompute */
} fc_fig_iter;

/* Fills *out with iteration i of ctx's list. */
typedef void (*fc_fig_iter_fn)(const void *ctx, size_t i, fc_fig_iter *out);

typedef struct fc_fig_medians {
    size_t n;                 /* iterations the medians are over (0: none) */
    size_t n_unsure;          /* ... whose split is a guess */
    size_t n_unsure_recompute;/* ... of which the guess can move recompute */
    size_t n_timed;           /* ... with a time */
    fc_u128 flops, forward, recompute, xs;
    double seconds;           /* NaN when none is timed */
    uint64_t micro;
    int recompute_guessed;    /* recompute is the median of guessed iterations (none sure) */
} fc_fig_medians;

/* The medians of iterations [from, to) of ctx (get fills each one), as
 * above. scratch: to - from fc_u128, secs: to - from doubles. */
void fc_fig_medians_of(fc_fig_iter_fn get, const void *ctx, size_t from, size_t to,
                       fc_u128 *scratch, double *secs, fc_fig_medians *out);
/* Of those, the two a merge keeps for each of its ranks (the median time,
 * NaN when none is timed, and the median FLOPs), computed the same way
 * without the other three: one pass over the list instead of six. */
void fc_fig_median_time_flops(fc_fig_iter_fn get, const void *ctx, size_t from, size_t to,
                              fc_u128 *scratch, double *secs, double *seconds, fc_u128 *flops);

/* FLOPs less recompute and attention's excess, saturating at 0. */
fc_u128 fc_fig_model_flops(fc_u128 flops, fc_u128 recompute, fc_u128 xs);

/* HFU and MFU of flops FLOPs of which recompute and xs are left out of the
 * model's, in seconds on gpus devices of peak FLOP/s each (NaN where
 * fc_utilization gives NaN). */
void fc_fig_utilization(fc_u128 flops, fc_u128 recompute, fc_u128 xs, double seconds,
                        int64_t gpus, double peak, double *hfu, double *mfu);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* figures.h - the run's headline figures, computed in one place for every
 * reader: the JSON report and summary (sections.c), the Prometheus file
 * (prometheus.c) and flopcount_snapshot_get (public.c). Steady iterations,
 * medians, recompute, HFU and MFU are analysis/run/run_figures.h's (as
 * 'flopcount report' and 'merge' compute them); the peak is the dominant dtype of all
 * counted FLOPs, on the GPU when most of them ran there (probe/peak_choice). */
#ifndef FC_FIGURES_H
#define FC_FIGURES_H

#include <stdint.h>

#include "count/attn_table.h"
#include "count/counters.h"
#include "detect/steps.h"
#include "probe/peak_choice.h"
#include "run_figures.h"
#include "utilization.h"

typedef struct fc_figures {
    fc_totals totals;          /* GEMM counters (rings drained) */
    fc_attn_totals attn;       /* attention counters */
    fc_steps_view v;           /* iterations of the current mode */
    fc_eval_view ev;           /* evaluation passes */
    fc_u128 hw;                /* fwd + bwd + rec over all finished iterations */
    double recompute_fraction; /* v.rec / hw; 0 without iterations */
    int have_last;             /* last_seconds is set */
    double last_seconds;       /* the last finished iteration */
    uint64_t steady;           /* steady iterations the medians are over (0: none) */
    uint64_t unsure_steady;    /* ... whose forward/backward/recompute split is a guess */
    uint64_t unsure_mfu_steady; /* ... of which a doubt can move recompute (and so MFU) */
    int recompute_guessed;     /* rec (and so MFU) is of guessed iterations: none is sure */
    uint64_t micro;            /* median micro-batches (training forwards) per steady iteration */
    double median_seconds;
    fc_u128 flops, rec;        /* medians per steady iteration, taken apart (rec: of the
                                * iterations sure about recompute when any is) */
    fc_u128 xs;                /* ... and of the attention beyond the model convention */
    fc_u128 fwd;               /* and of their forward FLOPs */
    int util_ok;               /* peak, hfu and mfu are set */
    fc_peak_choice pc;         /* the peak (pc.reason when !util_ok and steady) */
    const char *util_reason;   /* why there is no HFU/MFU, when !util_ok */
    double hfu, mfu;           /* flops / (peak x median s); (flops - rec - xs) / (...) */
    /* HFU at the dtype mix: the time the counted FLOPs of each dtype would
     * take at that dtype's dense peak, summed, over the measured time.
     * mix_ok 0: not known (a dtype without a published peak, no device). */
    int mix_ok;
    double hfu_mix;
    /* How: the median iteration's FLOPs shared out as the training FLOPs
     * by dtype (detect/steps.c: every training call so far) are; the
     * terms, their peaks and mix.reason when !mix_ok (and steady). */
    fc_u128 by_dtype[FC_DT_COUNT];
    fc_mix mix;
} fc_figures;

/* Fills f from the counters and the detector. The caller holds the drain
 * lock (fc_ring_collect, or the drainer's tick) or knows nobody drains.
 * may_look: 0 from a signal handler (fc_peak_choose). Uses static buffers
 * (serialized by the drain lock); allocates nothing. */
void fc_figures_compute(fc_figures *f, int may_look);

/* HFU at the dtype mix of flops FLOPs that took seconds on one device,
 * with the training calls' shares so far and the peak per dtype chosen as
 * the HFU's is (fc_peak_choose: gpu_work, may_look). The live line's
 * figure; fc_figures_compute fills f->mix the same way. Caller holds the
 * drain lock. 0 with out->ok, else -1 and out->reason. */
int fc_figures_mix(fc_u128 flops, double seconds, int gpu_work, int may_look, fc_mix *out);

/* Iteration i of a list of fc_iteration (ctx) as run_figures.h sees it. */
void fc_figures_iter(const void *ctx, size_t i, fc_fig_iter *out);

/* The steady iterations' bounds in a list of `stored` iterations of v. */
void fc_figures_steady_range(const fc_steps_view *v, uint64_t stored, uint64_t *from, uint64_t *to);

/* A utilization in percent as the summaries and live lines print it:
 * "41.2%", and below 0.1% three significant digits ("0.0348%", as HFU at
 * the dtype mix), so a small run never reads "HFU 0.0%" beside a mix of
 * 0.0348%. Into out (at least 16 bytes). */
void fc_figures_pct(double pct, char *out, size_t size);

/* Iterations the detector keeps in its list (steps.c LIST_CAP). */
#define FC_FIGURES_MAX_LIST 16384

#endif

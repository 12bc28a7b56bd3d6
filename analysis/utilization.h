/* SPDX-License-Identifier: Apache-2.0 */
/* utilization.h - MFU, HFU and throughput from FLOPs per iteration, the
 * iteration time, the GPU count and the per-GPU peak. Pure functions. */
#ifndef FC_UTILIZATION_H
#define FC_UTILIZATION_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "jsonw.h"
#include "u128.h"

/* flops_per_iter / (seconds * gpus * peak_flops_per_gpu); NaN when seconds,
 * gpus or the peak is not positive (never a silent 0 or infinity). */
double fc_utilization(fc_u128 flops_per_iter, double seconds, int64_t gpus,
                      double peak_flops_per_gpu);

typedef struct fc_util {
    double seconds;               /* per iteration */
    int64_t gpus;
    double peak_flops;            /* per GPU, FLOP/s */
    double mfu, hfu;              /* ratios, not percent */
    double tflops_per_gpu;        /* model FLOPs / s / GPU / 1e12 */
    double hardware_tflops_per_gpu;
    double tokens_per_second;     /* all GPUs together */
} fc_util;

/* Fills u; returns -1 (u zeroed) when seconds, gpus or peak is not positive. */
int fc_util_compute(fc_u128 model_flops, fc_u128 hardware_flops, fc_u128 tokens,
                    double seconds, int64_t gpus, double peak_flops_per_gpu, fc_util *u);

/* Writes iter_time_s, gpus, peak_flops, mfu, hfu, tflops_per_gpu,
 * hardware_tflops_per_gpu and tokens_per_second into the open object. */
void fc_util_json(fc_jw *w, const fc_util *u);

/* Two readable lines ("MFU 41.65%  HFU ..."); returns snprintf's count. */
int fc_util_text(const fc_util *u, char *buf, size_t n);

/* ---- HFU at the dtype mix ----------------------------------------------
 * The counted FLOPs of an iteration, F, ran in several dtypes (FP8 Linear
 * layers, BF16 attention and logits, ...), each with its own dense peak.
 * The least time the device needs for them is sum_d F_d / peak_d; HFU at
 * the mix is that time over the measured one:
 *     hfu_mix = sum_d F_d / (seconds x gpus x peak_d),
 * with F_d = F x share_d, share_d the dtype's part of the training FLOPs.
 * With one dtype share is 1 exactly and the term is fc_utilization's
 * expression, so hfu_mix equals HFU to the last bit when the peak is the
 * same. A dtype without a published peak makes the mix unknown (ok 0 and
 * the reason): no other dtype's figure stands in for it. */

/* One dtype of the mix. */
typedef struct fc_mix_term {
    int dtype;       /* enum fc_dtype */
    fc_u128 flops;   /* its training FLOPs (the weight the share comes from) */
    double share;    /* flops / all training FLOPs */
    double peak;     /* dense FLOP/s per device; 0: none published */
    double seconds;  /* F x share / (gpus x peak): its time at the peak; NaN without one */
} fc_mix_term;

typedef struct fc_mix {
    int n;                          /* terms, most FLOPs first */
    fc_mix_term t[FC_DT_COUNT];
    int ok;                         /* hfu and ideal_seconds are set */
    double hfu;                     /* NaN when !ok */
    double ideal_seconds;           /* sum of the terms' seconds; NaN when !ok */
    char reason[200];               /* why not, when !ok */
} fc_mix;

/* Where the per-dtype peaks come from. of(ctx, dtype, why, n) gives the
 * dense FLOP/s per device, or 0 with the reason in why. single, when not
 * NULL, says that of() gives one figure whatever the dtype (a peak given
 * by hand, named by single: "--peak-tflops"): it then serves a mix of one
 * dtype only. */
typedef struct fc_mix_peaks {
    double (*of)(void *ctx, int dtype, char *why, size_t n);
    void *ctx;
    const char *single;
} fc_mix_peaks;

/* The mix of by_dtype (FC_DT_COUNT entries, FLOPs per dtype) applied to F
 * FLOPs per iteration that took seconds on gpus devices. 0 with out->ok
 * set; -1 with out->reason (the terms are filled either way, peaks where
 * known). Pure but for what peaks->of does. */
int fc_mix_compute(const fc_u128 *by_dtype, fc_u128 flops, double seconds, int64_t gpus,
                   const fc_mix_peaks *peaks, fc_mix *out);

/* The mix as members of the open JSON object (docs/report-schema.md):
 * "hfu_mix" and "ideal_seconds" when known, else "hfu_mix": null and
 * "mix_reason"; then "mix": [{dtype, share, training_flops, peak_flops,
 * seconds_at_peak}], null where a dtype has no peak. */
void fc_mix_json(fc_jw *w, const fc_mix *m);

/* "fp8_e4m3 75.0%, bf16 25.0%" into buf (the shares, most first). */
char *fc_mix_shares_text(const fc_mix *m, char *buf, size_t size);

#endif

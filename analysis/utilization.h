/* SPDX-License-Identifier: Apache-2.0 */
/* utilization.h - MFU, HFU and throughput from FLOPs per iteration, the
 * iteration time, the GPU count and the per-GPU peak. Pure functions. */
#ifndef FC_UTILIZATION_H
#define FC_UTILIZATION_H

#include <stddef.h>
#include <stdint.h>

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

#endif

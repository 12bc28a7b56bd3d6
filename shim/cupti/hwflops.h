/* SPDX-License-Identifier: Apache-2.0 */
/* hwflops.h - hardware-measured FLOPs as the report reads them
 * (hwflops.c): what was measured and how, run totals by type, and per
 * training iteration. Read with the drain lock held, after
 * fc_cupti_before_report and fc_hwflops_attribute(1). */
#ifndef FC_CUPTI_HWFLOPS_H
#define FC_CUPTI_HWFLOPS_H

#include <stddef.h>
#include <stdint.h>

#include "hwmetrics.h"

enum fc_hw_state { FC_HWS_NOT_REQUESTED = 0, FC_HWS_PENDING, FC_HWS_OFF, FC_HWS_ON };

typedef struct fc_hw_iter {
    int has;                      /* its GPU span is known (kernel timing) */
    double by_type[FC_HW_COUNT];  /* FLOPs (int8: ops) */
    double flops;                 /* floating-point types summed */
    uint64_t span_ns, sampled_ns; /* its GPU span; the part covered by samples */
    int apportioned;              /* a sample straddling its edge was shared by time */
} fc_hw_iter;

typedef struct fc_hw_view {
    int state;        /* enum fc_hw_state */
    char reason[320]; /* why not on */
    const char *mode; /* "pm_sampling" */
    char chip[32];
    const char *trigger; /* "gpu_time" or "gpu_sysclk" */
    uint64_t interval;   /* ns, or clocks for gpu_sysclk */
    const fc_hw_choice *choice;
    double total[FC_HW_COUNT]; /* all samples, in iterations or not */
    uint64_t samples, overflows, decode_errors;
    double outside_flops;    /* sampled outside every iteration */
    const fc_hw_iter *iters; /* index i is iteration i + 1 */
    size_t n_iters;
} fc_hw_view;

void fc_hwflops_get(fc_hw_view *out);
/* Shares decoded samples among iterations whose GPU span is known (drain
 * lock held); final: every sample left. */
void fc_hwflops_attribute(int final);
/* The latest attributed iteration (1-based, 0 none) and its FLOPs, for the
 * live line. */
uint64_t fc_hwflops_latest(double *flops, double *seconds);

#endif

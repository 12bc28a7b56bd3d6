/* SPDX-License-Identifier: Apache-2.0 */
/* hwmetrics.h - which hardware counters measure FLOPs on a chip, chosen
 * with the CUPTI profiler host API (no GPU needed to choose): the
 * tensor-pipe op counters of each input type and the CUDA-core FP
 * instruction counters, keeping the subset that fits one pass - never
 * kernel replay. docs/hw-flops.md. */
#ifndef FC_HWMETRICS_H
#define FC_HWMETRICS_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_api.h"

/* What the hardware counts, by input type. Tensor types count math ops
 * (one multiply-add = 2); CUDA-core types count FMA instructions twice. */
enum fc_hwtype {
    FC_HW_BF16 = 0,
    FC_HW_FP16,
    FC_HW_TF32,
    FC_HW_FP8, /* on GB100 the counter takes fp8, fp6 and fp4 inputs together */
    FC_HW_FP4,
    FC_HW_INT8, /* integer ops, not FLOPs: reported apart */
    FC_HW_FP64_TENSOR,
    FC_HW_FP32_CORE,
    FC_HW_FP64_CORE,
    FC_HW_FP16_CORE,
    FC_HW_COUNT
};

#define FC_HW_MAX_METRICS 24 /* metrics in one configuration */

typedef struct fc_hw_choice {
    int n_metrics;
    const char *metric[FC_HW_MAX_METRICS];  /* "sm__...sum", static strings */
    int metric_type[FC_HW_MAX_METRICS];     /* enum fc_hwtype */
    double metric_scale[FC_HW_MAX_METRICS]; /* FLOPs per counted unit */
    int covered[FC_HW_COUNT];               /* 1 fully, 2 partly (note says what is missing) */
    const char *note[FC_HW_COUNT];          /* partial coverage, or why left out */
    int left_out[FC_HW_COUNT]; /* 1 not on this chip, 2 would need another pass, 3 error */
    size_t passes;             /* of the chosen set: 1, or 0 when nothing fits */
    char error[200];           /* a host API failure, "" none */
} fc_hw_choice;

/* "bf16", "fp16", ... "fp32_cuda_core" ... */
const char *fc_hwtype_name(int t);
/* 1 for the types that are floating point (the FLOPs total); int8 is not. */
int fc_hwtype_is_flop(int t);

/* Chooses for chip ("GH100") with the host API of cu: profiler_type is
 * CUPTI_PROFILER_TYPE_PM_SAMPLING at run time (avail: the device's counter
 * availability image) or CUPTI_PROFILER_TYPE_RANGE_PROFILER offline (avail
 * NULL). first_dtype (enum fc_dtype, -1 none): the type the run's GEMMs
 * use, tried first; then bf16, fp8, tf32, fp16, fp32, fp64, int8, fp4.
 * 0 with out filled (out->n_metrics may be 0: nothing fits); -1 with
 * out->error when the host API fails. */
int fc_hw_choose(const fc_cupti_fns *cu, int profiler_type, const char *chip, const uint8_t *avail,
                 int first_dtype, fc_hw_choice *out);

/* Builds the configuration image of metrics[0..n) for chip; returns its
 * pass count (0 on failure). img/img_size: where to put the image (may be
 * NULL to only count passes); *img_len gets its length. */
size_t fc_hw_config(const fc_cupti_fns *cu, int profiler_type, const char *chip,
                    const uint8_t *avail, const char *const *metrics, int n, uint8_t *img,
                    size_t img_size, size_t *img_len);

#endif

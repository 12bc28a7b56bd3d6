/* SPDX-License-Identifier: Apache-2.0 */
/* report_peak.h - the peak options shared by 'report' and 'merge':
 * --gpu NAME --dtype D (from the peak table) or --peak-tflops X. */
#ifndef FC_REPORT_PEAK_H
#define FC_REPORT_PEAK_H

#include <stddef.h>

#include "report_read.h"

typedef struct fc_peak_opt {
    const char *gpu, *dtype, *tflops; /* as given; NULL when not */
} fc_peak_opt;

/* If argv[*i] is a peak option, takes it and its value (advancing *i) and
 * returns 1; returns 0 when it is not one; -1 after printing
 * "flopcount <verb>: ..." when its value is missing. */
int fc_peak_opt_take(fc_peak_opt *o, const char *verb, int argc, char **argv, int *i);

/* The per-GPU peak in FLOP/s, and a phrase saying where it came from
 * ("NVIDIA H100 SXM, bf16 dense: 989.4 TFLOP/s"). *flops = 0 when no option
 * was given. default_dtype (may be NULL) is used when --gpu comes without
 * --dtype. Returns -1 after printing one error line. */
int fc_peak_opt_resolve(const fc_peak_opt *o, const char *verb, const char *default_dtype,
                        double *flops, char *desc, size_t size);

/* The dtype with the most FLOPs (for --gpu without --dtype); NULL when n = 0. */
const char *fc_peak_main_dtype(const fc_report_group *by_dtype, size_t n);

#endif

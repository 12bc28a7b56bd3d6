/* SPDX-License-Identifier: Apache-2.0 */
/* peak.h - dense peak FLOP/s per device and dtype, with sources; device
 * names matched as the driver reports them. Pure table, no global state. */
#ifndef FC_PEAK_H
#define FC_PEAK_H

#include <stddef.h>

#include "dtype.h"

typedef struct fc_peak_device {
    const char *key;              /* canonical short name: "H100-SXM", "A100-SXM", ... */
    const char *display;          /* "NVIDIA H100 SXM" */
    double tflops[FC_DT_COUNT];   /* dense TFLOP/s per fc_dtype; 0 = not supported */
    int flop_per_clk_per_sm_fp16; /* dense FP16 tensor FLOP/clock/SM, 0 if unknown */
    const char *source;           /* where the figures come from */
} fc_peak_device;

/* Number of devices and the i-th one (NULL when out of range). */
int fc_peak_count(void);
const fc_peak_device *fc_peak_get(int i);
/* Matches a driver name ("NVIDIA H100 80GB HBM3"), a key ("h100-sxm") or a
 * common short name ("h100"), case-insensitively. NULL when unknown. */
const fc_peak_device *fc_peak_find(const char *name);
/* Dense peak in FLOP/s; 0 when the device does not support dtype.
 * complex64 and complex128 take the fp32 and fp64 figures (a complex GEMM
 * runs on the real units; its FLOPs are already counted as 8 real per
 * multiply-add). The result is an exact integer: table figures have at most
 * three decimals in TFLOP/s, so it is round(TFLOP/s x 1000) x 1e9. */
double fc_peak_flops(const fc_peak_device *d, int dtype);
/* Why fc_peak_flops(d, dtype) is 0, as one phrase into buf ("no published
 * fp4_e2m1 peak for H100-SXM"); returns buf. Never a figure of another
 * dtype: a dtype the sheet does not give has no peak. */
const char *fc_peak_none_reason(const fc_peak_device *d, int dtype, char *buf, size_t size);

/* The words every "unknown device" message ends with, so the CLI and the
 * shim give the same advice. */
#define FC_PEAK_UNKNOWN_HINT                                                                       \
    "pass --peak-tflops <dense TFLOP/s> (or set FLOPCOUNT_PEAK_TFLOPS); 'flopcount peak' lists "   \
    "known devices"

#endif

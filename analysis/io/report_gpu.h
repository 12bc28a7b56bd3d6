/* SPDX-License-Identifier: Apache-2.0 */
/* report_gpu.h - the report sections that come from CUPTI ("cupti",
 * "graphs", "kernels", "hw_flops"; docs/report-schema.md) and the counts
 * of the kernel-launch layer ("launch") read back, for
 * 'flopcount report' and 'flopcount merge'. All optional: a report from
 * before they existed, or from a run without a GPU, has has_* at 0. A
 * known field of the wrong type is an error with a one-line reason. */
#ifndef FC_REPORT_GPU_H
#define FC_REPORT_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "report_read.h"
#include "schema_graphs.h"
#include "schema_hwflops.h"
#include "schema_launch.h"
#include "schema_kernels.h"
#include "u128.h"

#define FC_RGPU_CLASSES                                                                            \
    5 /* kernel_class.h: gemm, gemm_like_uncounted, attention, communication, other */
#define FC_RGPU_NAMES 8  /* top kernel names kept per class */
#define FC_RGPU_TYPES 16 /* hardware FLOP types kept */

typedef struct fc_rgpu_shape {
    char api[48], dtype[24];
    int64_t m, n, k, batch;
    char transa, transb;
    fc_kshape_rec t; /* its timing (schema_kernels.h); achieved_flops_per_second,
                        peak_fraction, lost_seconds NaN when absent */
} fc_rgpu_shape;

typedef struct fc_rgpu_name {
    char name[112];
    double seconds;
    uint64_t kernels;
} fc_rgpu_name;

typedef struct fc_rgpu_value {
    char name[32];
    double value;
} fc_rgpu_value;

typedef struct fc_rgpu_launch { /* the "launch" section's counts (schema_launch.h) */
    fc_lcounts_rec counts;
    fc_lpath_rec hooks, cupti; /* the two launch paths */
    fc_lpsize_rec parameter_size;
    fc_lrt_rec runtime;
} fc_rgpu_launch;

typedef struct fc_report_gpu {
    int has_cupti;
    char cupti_status[16], cupti_reason[360];

    int has_graphs;
    int replays_visible;
    char graphs_reason[360];
    char graphs_seen_by[32]; /* "CUPTI", "CUDA runtime"; "" when not said */
    fc_graphs_rec graph; /* the counts (analysis/run/schema_graphs.h) */

    int has_kernels; /* the section is an object */
    char kernels_reason[360];
    /* kernels, dropped_records, not_in_busy_time, devices, kernel_seconds,
     * gpu_busy_seconds, gpu_span_seconds, busy_fraction,
     * outside_iterations_seconds; as one record: kt (schema_kernels.h) */
    FC_SCHEMA_INLINE(FC_KTOTALS_FIELDS, fc_ktotals_rec, kt);
    double class_seconds[FC_RGPU_CLASSES];
    uint64_t class_kernels[FC_RGPU_CLASSES];
    fc_rgpu_name names[FC_RGPU_CLASSES][FC_RGPU_NAMES];
    size_t n_names[FC_RGPU_CLASSES];
    fc_rgpu_shape *shapes; /* malloc'd */
    size_t n_shapes;
    fc_kiter_rec kiter; /* "kernels.iterations" (schema_kernels.h); medians NaN when absent */

    int has_hw; /* the section is an object */
    char hw_status[16], hw_reason[360], hw_mode[32], hw_chip[32];
    fc_rgpu_value hw_totals[FC_RGPU_TYPES]; /* by type, and "flops" */
    size_t n_hw_totals;
    fc_rgpu_value hw_coverage_left[FC_RGPU_TYPES]; /* types left out (value unused) */
    size_t n_hw_left;
    fc_hw_rec hw;          /* interval, samples, ... (schema_hwflops.h) */
    fc_hwiter_rec hw_iter; /* "hw_flops.iterations"; medians NaN when absent */

    int has_launch; /* the "launch" section is an object (its note: report_attention.h) */
    fc_rgpu_launch launch;
} fc_report_gpu;

/* Reads the sections from a report file (or `flopcount merge --json`
 * output); 0, or -1 with a one-line reason. fc_report_gpu_free after. */
int fc_report_gpu_load(const char *path, fc_report_gpu *out, char *err, size_t errlen);
int fc_report_gpu_parse(const char *text, size_t len, fc_report_gpu *out, char *err, size_t errlen);
void fc_report_gpu_free(fc_report_gpu *g);
/* A report and its CUPTI sections from one read and one parse of the file
 * ('flopcount merge'): the report as fc_report_load (its return value);
 * the sections, only when the report was read, as fc_report_gpu_load:
 * *gpu_rc 0, or -1 with the reason in gpu_err. *gpu is safe to
 * fc_report_gpu_free either way. */
int fc_report_load_both(const char *path, fc_report *out, char *err, size_t errlen,
                        fc_report_gpu *gpu, int *gpu_rc, char *gpu_err, size_t gpu_errlen);
/* Index of a kernel class name in the arrays above, -1 when unknown. */
int fc_rgpu_class_index(const char *name);

#endif

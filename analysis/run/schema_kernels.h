/* SPDX-License-Identifier: Apache-2.0 */
/* schema_kernels.h - the timing of one entry of the report's
 * "kernels.shapes" list (a GEMM shape's kernels under CUPTI), described
 * once (schema.h): the shim's writer (shim/report/kernels_json.c), the
 * reader (analysis/io/report_gpu.c) and the merged writer
 * (tools/render/json/json_gpu.c) are driven from this table. The shape's
 * own keys (api, m, n, k, batch, transa, transb, dtype) are written
 * apart, before these. The "kernels" object's own totals the same way
 * (FC_KTOTALS_FIELDS), summed by tools/merge/merge_gpu.c too, and those of
 * "kernels.iterations" (FC_KITER_FIELDS). */
#ifndef FC_SCHEMA_KERNELS_H
#define FC_SCHEMA_KERNELS_H

#include "schema.h"

/* X(P, name, type, required, unit, meaning): schema.h */
#define FC_KSHAPE_FIELDS(X, P)                                                                       \
    X(P, calls, U64, 0, "calls", "GEMM calls of the shape counted")                                 \
    X(P, calls_timed, U64, 0, "calls", "... of them whose kernels were timed")                      \
    X(P, kernels, U64, 0, "kernels", "the kernels those calls launched")                            \
    X(P, kernel_seconds, DBL, 0, "s", "their time on the GPU")                                      \
    X(P, flops_timed, U128, 0, "FLOP", "the FLOPs of the timed calls")                              \
    X(P, achieved_flops_per_second, DBL, 0, "FLOP/s", "flops_timed / kernel_seconds")               \
    X(P, peak_fraction, DBL, 0, "1", "achieved / the dtype's dense peak (null: no peak)")           \
    X(P, lost_seconds, DBL, 0, "s", "kernel time beyond what the peak would take (null: no peak)")

/* The record, the row indices, the table (schema.h). */
FC_SCHEMA_SECTION(FC_KSHAPE_FIELDS, fc_kshape_rec, FC_KSHAPE_I_, FC_KSHAPE_N, fc_kshape_fields);

/* Members of the open shape object: every row of t. */
void fc_kshape_json(fc_jw *w, const fc_kshape_rec *t);

/* The "kernels" object's own totals, first in it (by_class, gemm_unknown_shape,
 * top_names, shapes, more_shapes and iterations are written apart, after). */
#define FC_KTOTALS_FIELDS(X, P)                                                                      \
    X(P, kernels, U64, 0, "kernels", "kernel records CUPTI delivered")                              \
    X(P, dropped_records, U64, 0, "records", "kernel records CUPTI dropped")                        \
    X(P, not_in_busy_time, U64, 0, "kernels", "kernels past the pending table, left out of busy")   \
    X(P, devices, I64, 0, "devices", "devices seen (busy time treats them as one timeline)")        \
    X(P, kernel_seconds, DBL, 0, "s", "kernel time, summed over kernels")                           \
    X(P, gpu_busy_seconds, DBL, 0, "s", "the union of kernel intervals")                            \
    X(P, gpu_span_seconds, DBL, 0, "s", "first kernel start to last kernel end")                    \
    X(P, busy_fraction, DBL, 0, "1", "gpu_busy_seconds / gpu_span_seconds (null: no span)")         \
    X(P, outside_iterations_seconds, DBL, 0, "s", "kernel time outside any iteration")

FC_SCHEMA_SECTION(FC_KTOTALS_FIELDS, fc_ktotals_rec, FC_KTOTALS_I_, FC_KTOTALS_N,
                  fc_ktotals_fields);
#define FC_KTOTALS_BIT(name) (1u << FC_KTOTALS_I_##name)
/* What one process's shim alone knows: a report read back leaves it out. */
#define FC_KTOTALS_PROCESS_ONLY FC_KTOTALS_BIT(not_in_busy_time)

/* Members of the open "kernels" object: every row of t but those whose
 * FC_KTOTALS_BIT is in omit. */
void fc_ktotals_json(fc_jw *w, const fc_ktotals_rec *t, unsigned omit);

/* "kernels.iterations", before its "list" (written apart). A sum of runs
 * takes the largest count and the median of the runs' medians. */
#define FC_KITER_FIELDS(X, P)                                                                        \
    X(P, count, U64, 0, "iterations", "iterations seen")                                            \
    X(P, median_busy_fraction, DBL, 0, "1", "median over steady iterations of busy / span")         \
    X(P, median_gemm_seconds, DBL, 0, "s", "median over steady iterations of GEMM kernel time")

FC_SCHEMA_SECTION(FC_KITER_FIELDS, fc_kiter_rec, FC_KITER_I_, FC_KITER_N, fc_kiter_fields);

/* Members of the open "kernels.iterations" object: every row of t. */
void fc_kiter_json(fc_jw *w, const fc_kiter_rec *t);

#endif

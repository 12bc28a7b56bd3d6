/* SPDX-License-Identifier: Apache-2.0 */
/* schema_kernels.h - the timing of one entry of the report's
 * "kernels.shapes" list (a GEMM shape's kernels under CUPTI), described
 * once (schema.h): the shim's writer (shim/report/kernels_json.c), the
 * reader (analysis/io/report_gpu.c) and the merged writer
 * (tools/render/json/json_gpu.c) are driven from this table. The shape's
 * own keys (api, m, n, k, batch, transa, transb, dtype) are written
 * apart, before these. */
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

#endif

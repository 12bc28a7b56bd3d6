/* SPDX-License-Identifier: Apache-2.0 */
/* schema_hwflops.h - the counts and figures of the report's "hw_flops"
 * section (hardware FLOPs from CUPTI's counters), described once
 * (schema.h): the shim's writer (shim/report/hwflops_json.c), the reader
 * (analysis/io/report_gpu.c), the sum of runs (tools/merge/merge_gpu.c)
 * and the read-back writer (tools/render/json/json_gpu.c) are driven from
 * these tables. "status", "reason", "validated_on_hardware", "mode",
 * "chip", "trigger", the "metrics" list, the "coverage" and "totals"
 * objects (keyed by FLOP type) and the iterations' "list" are written
 * apart. */
#ifndef FC_SCHEMA_HWFLOPS_H
#define FC_SCHEMA_HWFLOPS_H

#include "schema.h"

/* X(P, name, type, required, unit, meaning): schema.h. The shim writes
 * "interval" after "trigger", the other rows after "totals". */
#define FC_HW_FIELDS(X, P)                                                                           \
    X(P, interval, U64, 0, "1", "the sampling interval (the trigger's unit)")                       \
    X(P, samples, U64, 0, "samples", "counter samples decoded")                                     \
    X(P, overflows, U64, 0, "samples", "samples lost to a full buffer")                             \
    X(P, decode_errors, U64, 0, "samples", "samples that could not be decoded")                     \
    X(P, outside_iterations_flops, DBL, 0, "FLOP", "hardware FLOPs outside any iteration")

FC_SCHEMA_SECTION(FC_HW_FIELDS, fc_hw_rec, FC_HW_I_, FC_HW_N, fc_hw_fields);
#define FC_HW_BIT(name) (1u << FC_HW_I_##name)
/* What one process's shim alone writes: a report read back leaves them
 * out (and a sum of runs does not add the interval). */
#define FC_HW_PROCESS_ONLY                                                                         \
    (FC_HW_BIT(interval) | FC_HW_BIT(overflows) | FC_HW_BIT(decode_errors) |                      \
     FC_HW_BIT(outside_iterations_flops))

/* Members of the open "hw_flops" object: rows [from, to) of t but those
 * whose FC_HW_BIT is in omit. */
void fc_hw_json(fc_jw *w, const fc_hw_rec *t, int from, int to, unsigned omit);

/* "hw_flops.iterations", before its "list". A sum of runs takes the
 * largest count, sums the medians of FLOPs and of hardware - counted,
 * and takes the median of the runs' median HFU. */
#define FC_HWITER_FIELDS(X, P)                                                                       \
    X(P, count, U64, 0, "iterations", "iterations seen")                                            \
    X(P, median_flops, DBL, 0, "FLOP", "median over steady iterations of hardware FLOPs")           \
    X(P, median_hardware_minus_counted, DBL, 0, "FLOP", "... of hardware less counted FLOPs")       \
    X(P, median_hfu, DBL, 0, "1", "... of hardware FLOPs / (peak x time) (null: no peak)")

FC_SCHEMA_SECTION(FC_HWITER_FIELDS, fc_hwiter_rec, FC_HWITER_I_, FC_HWITER_N, fc_hwiter_fields);

/* Members of the open "hw_flops.iterations" object: rows [from, to) of t. */
void fc_hwiter_json(fc_jw *w, const fc_hwiter_rec *t, int from, int to);

#endif

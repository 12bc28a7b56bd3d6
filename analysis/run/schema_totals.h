/* SPDX-License-Identifier: Apache-2.0 */
/* schema_totals.h - the report's "totals" section, described once: one
 * row a key (name, type, required by readers, unit, meaning). The shim's
 * writer, the reader (analysis/io/report_read.c), and the merge and job
 * writers (tools/merge, tools/job) are all driven from this table, so each
 * key string is written here and nowhere else (docs/report-schema.md).
 *
 * Types: U64 (an exact integer), U128 (an exact integer past 2^64). A
 * writer may leave keys out (fc_totals_json's omit mask: what it never
 * wrote before, so its output is unchanged; FC_TOTALS_SUMS, a sum's own
 * counts, from one process's report); a reader takes every key, and an
 * absent optional one reads 0. */
#ifndef FC_SCHEMA_TOTALS_H
#define FC_SCHEMA_TOTALS_H

#include <stdint.h>

#include "schema.h"

/* X(P, name, type, required, unit, meaning): schema.h */
#define FC_TOTALS_FIELDS(X, P)                                                                      \
    X(P, gemm_calls, U64, 1, "calls", "successful GEMM calls counted")                              \
    X(P, gemm_flops, U128, 1, "FLOP", "their FLOPs (2mnk a real product, 8mnk a complex one)")      \
    X(P, failed_calls, U64, 0, "calls", "GEMM calls the library failed (not counted)")              \
    X(P, invalid_calls, U64, 0, "calls", "GEMM calls with invalid arguments (not counted)")         \
    X(P, unresolved_calls, U64, 0, "calls", "calls whose real function could not be found")         \
    X(P, distinct_shapes, U64, 0, "shapes", "distinct shapes in the shape table")                   \
    X(P, overflow_calls, U64, 0, "calls", "calls of shapes beyond the table (counted, not listed)") \
    X(P, attention_calls, U64, 0, "calls", "counted fused attention calls")                         \
    X(P, attention_flops, U128, 0, "FLOP", "their executed FLOPs")                                  \
    X(P, counted_flops, U128, 0, "FLOP", "GEMMs + attention (gemm_flops + attention_flops)")     \
    X(P, ranks, U64, 0, "ranks", "a merge or a job: the ranks summed")                            \
    X(P, processes, U64, 0, "processes", "a job: its processes that ran GEMMs")

/* The record, the row indices, the table (schema.h). */
FC_SCHEMA_SECTION(FC_TOTALS_FIELDS, fc_totals_rec, FC_TOTALS_I_, FC_TOTALS_N, fc_totals_fields);
#define FC_TOTALS_BIT(name) (1u << FC_TOTALS_I_##name)
#define FC_TOTALS_SUMS (FC_TOTALS_BIT(ranks) | FC_TOTALS_BIT(processes))

/* Members of the open "totals" object: every row of t in table order but
 * those whose FC_TOTALS_BIT is in omit. */
void fc_totals_json(fc_jw *w, const fc_totals_rec *t, unsigned omit);

#endif

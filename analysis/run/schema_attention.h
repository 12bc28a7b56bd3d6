/* SPDX-License-Identifier: Apache-2.0 */
/* schema_attention.h - the counts of the report's "attention" section
 * (counted fused attention), described once (schema.h): the shim's writer,
 * the reader (analysis/io/report_attention.c) and the merge and job
 * writers (tools/report/attention_view.c) are driven from this table.
 * "by_source", "shapes" and "uncounted" are lists, written apart. */
#ifndef FC_SCHEMA_ATTENTION_H
#define FC_SCHEMA_ATTENTION_H

#include "schema.h"

/* X(P, name, type, required, unit, meaning): schema.h */
#define FC_ATTN_TOTALS_FIELDS(X, P)                                                                  \
    X(P, calls, U64, 1, "calls", "counted fused attention calls")                                    \
    X(P, failed_calls, U64, 0, "calls", "calls the library failed (not counted)")                    \
    X(P, flops, U128, 1, "FLOP", "executed FLOPs (the backward at 2.5x its forward)")                \
    X(P, model_flops, U128, 0, "FLOP", "at the model convention (the backward at 2x its forward)")   \
    X(P, tile_flops, U128, 0, "FLOP", "what the kernels' tiles compute, masked blocks included")    \
    X(P, tile_unknown_calls, U64, 0, "calls", "calls whose tiling is not known")                    \
    X(P, distinct_shapes, U64, 0, "shapes", "distinct shapes in the attention table")               \
    X(P, overflow_calls, U64, 0, "calls", "calls of shapes beyond the table (counted, not listed)")

/* The record, the row indices, the table (schema.h). */
FC_SCHEMA_SECTION(FC_ATTN_TOTALS_FIELDS, fc_attn_totals_rec, FC_ATTN_TOTALS_I_, FC_ATTN_TOTALS_N, fc_attn_totals_fields);

/* Members of the open "attention" object: every row of t. */
void fc_attn_totals_json(fc_jw *w, const fc_attn_totals_rec *t);

#endif

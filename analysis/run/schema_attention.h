/* SPDX-License-Identifier: Apache-2.0 */
/* schema_attention.h - the counts of the report's "attention" section
 * (counted fused attention), described once (schema.h): the shim's writer,
 * the reader (analysis/io/report_attention.c) and the merge and job
 * writers (tools/report/attention_view.c) are driven from this table.
 * "by_source", "shapes" and "uncounted" are lists, written apart. */
#ifndef FC_SCHEMA_ATTENTION_H
#define FC_SCHEMA_ATTENTION_H

#include "schema.h"

/* X(name, type, required, unit, meaning) */
#define FC_ATTN_TOTALS_FIELDS(X)                                                                   \
    X(calls, U64, 1, "calls", "counted fused attention calls")                                    \
    X(failed_calls, U64, 0, "calls", "calls the library failed (not counted)")                    \
    X(flops, U128, 1, "FLOP", "executed FLOPs (the backward at 2.5x its forward)")                \
    X(model_flops, U128, 0, "FLOP", "at the model convention (the backward at 2x its forward)")   \
    X(tile_flops, U128, 0, "FLOP", "what the kernels' tiles compute, masked blocks included")    \
    X(tile_unknown_calls, U64, 0, "calls", "calls whose tiling is not known")                    \
    X(distinct_shapes, U64, 0, "shapes", "distinct shapes in the attention table")               \
    X(overflow_calls, U64, 0, "calls", "calls of shapes beyond the table (counted, not listed)")

typedef struct fc_attn_totals_rec {
#define FC_X(name, type, req, unit, meaning) FC_SCHEMA_C_##type name;
    FC_ATTN_TOTALS_FIELDS(FC_X)
#undef FC_X
} fc_attn_totals_rec;

enum fc_attn_totals_index {
#define FC_X(name, type, req, unit, meaning) FC_ATTN_TOTALS_I_##name,
    FC_ATTN_TOTALS_FIELDS(FC_X)
#undef FC_X
    FC_ATTN_TOTALS_N
};

extern const fc_schema_field fc_attn_totals_fields[FC_ATTN_TOTALS_N];

/* Members of the open "attention" object: every row of t. */
void fc_attn_totals_json(fc_jw *w, const fc_attn_totals_rec *t);

#endif

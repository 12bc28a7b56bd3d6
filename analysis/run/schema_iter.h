/* SPDX-License-Identifier: Apache-2.0 */
/* schema_iter.h - one entry of the report's "iterations.list", described
 * once (schema.h): the shim's writer (shim/report/sections.c), the merged
 * writer (tools/render/json/json_merge.c), the reader
 * (analysis/io/report_read.c) and the tree-free reader
 * (analysis/io/report_fast.c) are driven from these tables. The rows are
 * in the order the writers write them (the tree-free reader expects each
 * key after the one before); a writer leaves out what it does not know
 * (the omit mask: FC_ITER_BIT). Meanings: docs/iterations.md. */
#ifndef FC_SCHEMA_ITER_H
#define FC_SCHEMA_ITER_H

#include "schema.h"

/* X(P, name, type, required, unit, meaning): schema.h */
#define FC_ITER_FIELDS(X, P)                                                                       \
    X(P, index, U64, 0, "", "the iteration's number, from 1 (absent: its place in the list)")     \
    X(P, start_seconds, DBL, 0, "s", "its start, since the library started")                      \
    X(P, seconds, DBL, 0, "s", "its length on the host")                                          \
    X(P, gpu_seconds, DBL, 0, "s", "its length on the GPU (with GPU timing; null: not known)")    \
    X(P, slowest_rank, I64, 0, "", "a merge: the rank whose step took longest")                   \
    X(P, flops, U128, 1, "FLOP", "forward + backward + recompute")                                \
    X(P, forward_flops, U128, 0, "FLOP", "of its forward products")                               \
    X(P, backward_flops, U128, 0, "FLOP", "of its backward products")                             \
    X(P, recompute_flops, U128, 0, "FLOP", "of forward products run again (checkpointing)")       \
    X(P, attention_excess_flops, U128, 0, "FLOP", "of backward_flops: attention beyond the model convention") \
    X(P, calls, U64, 0, "calls", "its GEMM calls")                                                \
    X(P, micro_batches, U64, 0, "", "its micro-batches (a forward-only one: its forward passes)") \
    X(P, kind, STR16, 0, "", "\"training\" or \"forward-only\"")                                  \
    X(P, eval_passes, U64, 0, "", "evaluation passes begun before it ended, since the start")    \
    X(P, ambiguous, BOOL, 0, "", "its forward/backward/recompute split is a guess")               \
    X(P, ambiguous_reason, TEXT, 0, "", "why, when ambiguous")                                    \
    X(P, ambiguous_recompute, BOOL, 0, "", "when ambiguous: the guess can move recompute")        \
    X(P, open_end, BOOL, 0, "", "true: the last iteration, its end not seen (its time is short)")

/* Its object "grouped_imbalance" (FC_ITER_GROUPED_KEY; docs/moe.md): the
 * grouped GEMM calls with known group sizes, absent when none. The rows
 * are members grouped_<name> of the entry itself. */
#define FC_ITER_GROUPED_KEY "grouped_imbalance"
#define FC_ITER_GROUPED_FIELDS(X, P)                                                               \
    X(P, calls, U64, 1, "calls", "its grouped GEMM calls with known group sizes")                 \
    X(P, max, DBL, 0, "1", "the largest max-group work / mean work of a call")                    \
    X(P, mean, DBL, 0, "1", "their mean")

#define FC_ITER_GROUPED_MEMBER(P, name, type, req, unit, meaning) FC_SCHEMA_C_##type grouped_##name;
#define FC_ITER_GROUPED_ROW(P, name, type, req, unit, meaning)                                     \
    {#name, FC_SCHEMA_##type, req, unit, meaning, offsetof(P, grouped_##name),                     \
     sizeof(((P *)0)->grouped_##name)},

/* The entry as read (NaN, -1, "", NULL where absent; analysis/io/report_read.h)
 * and as written. */
typedef struct fc_report_iter {
    FC_ITER_FIELDS(FC_SCHEMA_MEMBER, _)
    FC_ITER_GROUPED_FIELDS(FC_ITER_GROUPED_MEMBER, _)
} fc_report_iter;
enum { FC_ITER_FIELDS(FC_SCHEMA_INDEX, FC_ITER_I_) FC_ITER_N };
enum { FC_ITER_GROUPED_FIELDS(FC_SCHEMA_INDEX, FC_ITER_GROUPED_I_) FC_ITER_GROUPED_N };
#define FC_ITER_BIT(name) (1u << FC_ITER_I_##name)
extern const fc_schema_field fc_iter_fields[FC_ITER_N];
extern const fc_schema_field fc_iter_grouped_fields[FC_ITER_GROUPED_N];

/* One entry's members, in the open entry object: every row of it in table
 * order but those whose FC_ITER_BIT is in omit, then its
 * "grouped_imbalance" when grouped_calls is not 0. */
void fc_iter_json(fc_jw *w, const fc_report_iter *it, unsigned omit);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* schema_graphs.h - the counts of the report's "graphs" section (CUDA
 * graphs: captured, instantiated, launched), described once (schema.h):
 * the shim's writer (shim/report/graphs_json.c), the reader
 * (analysis/io/report_gpu.c), the sum of runs (tools/merge/merge_gpu.c)
 * and the merged writer (tools/render/json/json_gpu.c) are driven from
 * this table. "replays_visible", "reason", "seen_by" and the "execs" list
 * are written apart. */
#ifndef FC_SCHEMA_GRAPHS_H
#define FC_SCHEMA_GRAPHS_H

#include "schema.h"

/* X(P, name, type, required, unit, meaning): schema.h */
#define FC_GRAPHS_FIELDS(X, P)                                                                        \
    X(P, captures, U64, 0, "captures", "stream captures ended (docs/cupti.md)")                      \
    X(P, captured_calls, U64, 0, "calls", "GEMM calls recorded into graphs (not executed then)")    \
    X(P, captured_flops, U128, 0, "FLOP", "their FLOPs")                                            \
    X(P, invalidated_calls, U64, 0, "calls", "captured calls whose capture was invalidated")              \
    X(P, dropped_calls, U64, 0, "calls", "captured GEMMs beyond the per-process pool")                   \
    X(P, instantiations, U64, 0, "graphs", "graph execs instantiated")             \
    X(P, clones, U64, 0, "graphs", "graphs cloned")                             \
    X(P, exec_updates, U64, 0, "updates", "graph execs updated in place")                     \
    X(P, launches, U64, 0, "launches", "graph launches seen")                  \
    X(P, launched_calls, U64, 0, "calls", "GEMM calls those launches ran (counted)")                \
    X(P, launched_flops, U128, 0, "FLOP", "their FLOPs")                                            \
    X(P, unknown_launches, U64, 0, "launches", "launches of graphs made before flopcount saw them")  \
    X(P, never_launched_calls, U64, 0, "calls", "captured GEMM calls never launched")               \
    X(P, never_launched_flops, U128, 0, "FLOP", "their FLOPs (not counted)")

/* The record, the row indices, the table (schema.h). */
FC_SCHEMA_SECTION(FC_GRAPHS_FIELDS, fc_graphs_rec, FC_GRAPHS_I_, FC_GRAPHS_N, fc_graphs_fields);
#define FC_GRAPHS_BIT(name) (1u << FC_GRAPHS_I_##name)
/* What one process's shim alone knows: a sum of runs leaves them out. */
#define FC_GRAPHS_PROCESS_ONLY                                                                    \
    (FC_GRAPHS_BIT(invalidated_calls) | FC_GRAPHS_BIT(dropped_calls) | FC_GRAPHS_BIT(clones) |   \
     FC_GRAPHS_BIT(exec_updates))

/* Members of the open "graphs" object: every row of t but those whose
 * FC_GRAPHS_BIT is in omit. */
void fc_graphs_json(fc_jw *w, const fc_graphs_rec *t, unsigned omit);

#endif

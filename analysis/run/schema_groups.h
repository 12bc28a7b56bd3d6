/* SPDX-License-Identifier: Apache-2.0 */
/* schema_groups.h - one member of the report's "by_api" and "by_dtype"
 * objects (the GEMM calls and FLOPs of one API or one dtype; the member's
 * key is the API's or the dtype's name), described once (schema.h): the
 * shim's writer (shim/report/report.c), the reader
 * (analysis/io/report_read.c), the sum of runs (analysis/run/run_sum.c)
 * and the merged writer (tools/render/json/json_merge.c) are driven from
 * this table. Its record is fc_report_group (run_rec.h: the name, then one
 * member a row). */
#ifndef FC_SCHEMA_GROUPS_H
#define FC_SCHEMA_GROUPS_H

#include "schema.h"

/* X(P, name, type, required, unit, meaning): schema.h */
#define FC_GROUP_FIELDS(X, P)                                                                       \
    X(P, calls, U64, 0, "calls", "successful GEMM calls of the API or dtype")                       \
    X(P, flops, U128, 1, "FLOP", "their FLOPs")

/* The row indices and the table (the record is fc_report_group). */
enum { FC_GROUP_FIELDS(FC_SCHEMA_INDEX, FC_GROUP_I_) FC_GROUP_N };
extern const fc_schema_field fc_group_fields[FC_GROUP_N];

struct fc_report_group;
/* The object named key (a member of the open "by_api" or "by_dtype"
 * object: the API's or dtype's name), g's rows by the table. */
void fc_group_json(fc_jw *w, const char *key, const struct fc_report_group *g);

#endif

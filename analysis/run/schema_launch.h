/* SPDX-License-Identifier: Apache-2.0 */
/* schema_launch.h - the counts of the report's "launch" section (what the
 * kernel-launch layer saw), described once (schema.h): the shim's writer
 * (shim/report/launch_json.c) and the reader (analysis/io/report_gpu.c)
 * are driven from these tables. "runtime"'s "scanned", "shared",
 * "driver_loaded" and "static_runtime_objects", and "note", are written
 * apart (the note is read by analysis/io/report_attention.c). A sum of
 * runs does not write the section. */
#ifndef FC_SCHEMA_LAUNCH_H
#define FC_SCHEMA_LAUNCH_H

#include "schema.h"

/* X(P, name, type, required, unit, meaning): schema.h. The top-level
 * counts: cupti_duplicates is written after the "hooks" and "cupti"
 * objects, the others before them. */
#define FC_LCOUNTS_FIELDS(X, P)                                                                    \
    X(P, registrations, U64, 0, "kernels", "__cudaRegisterFunction calls seen")                    \
    X(P, kernels_of_interest, U64, 0, "kernels", "kernels of interest recorded")                   \
    X(P, learned_from_callbacks, U64, 0, "kernels", "records learned from launch callbacks")       \
    X(P, not_kept, U64, 0, "kernels", "of interest, but the table was full")                       \
    X(P, unregistered, U64, 0, "kernels", "records dropped with their module")                     \
    X(P, cupti_duplicates, U64, 0, "launches", "CUPTI callbacks of launches the hooks saw")

FC_SCHEMA_SECTION(FC_LCOUNTS_FIELDS, fc_lcounts_rec, FC_LCOUNTS_I_, FC_LCOUNTS_N,
                  fc_lcounts_fields);

/* One launch path, "hooks" (the interposed runtime) or "cupti" (CUPTI's
 * launch callbacks). */
#define FC_LPATH_FIELDS(X, P)                                                                      \
    X(P, launches, U64, 0, "launches", "launches of kernels of interest seen")                     \
    X(P, decoded, U64, 0, "launches", "attention calls decoded")                                   \
    X(P, uncounted, U64, 0, "launches", "named uncounted (opaque or layout)")                      \
    X(P, layout_mismatch, U64, 0, "launches", "of which: parameters that did not check out")       \
    X(P, optimizer, U64, 0, "launches", "optimizer kernels marked")                                \
    X(P, failed, U64, 0, "launches", "launches that returned an error")                            \
    X(P, captured, U64, 0, "launches", "recorded against a stream capture")

FC_SCHEMA_SECTION(FC_LPATH_FIELDS, fc_lpath_rec, FC_LPATH_I_, FC_LPATH_N, fc_lpath_fields);

/* "parameter_size": how a launch's parameter block size was known. */
#define FC_LPSIZE_FIELDS(X, P)                                                                     \
    X(P, checked, U64, 0, "launches", "decoded with the runtime's parameter size")                 \
    X(P, from_name, U64, 0, "launches", "decoded without it")

FC_SCHEMA_SECTION(FC_LPSIZE_FIELDS, fc_lpsize_rec, FC_LPSIZE_I_, FC_LPSIZE_N, fc_lpsize_fields);

/* "runtime"'s counts: fatbins_registered after "driver_loaded",
 * more_static_runtime_objects after the list. */
#define FC_LRT_FIELDS(X, P)                                                                        \
    X(P, fatbins_registered, U64, 0, "fatbins", "__cudaRegisterFatBinary calls seen")              \
    X(P, more_static_runtime_objects, U64, 0, "objects", "static-runtime objects beyond the list")

FC_SCHEMA_SECTION(FC_LRT_FIELDS, fc_lrt_rec, FC_LRT_I_, FC_LRT_N, fc_lrt_fields);

/* Members of the open object: rows [from, to) of table f, from rec. */
void fc_launch_rows_json(fc_jw *w, const fc_schema_field *f, int from, int to, const void *rec);

#endif

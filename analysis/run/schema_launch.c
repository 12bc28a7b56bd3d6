/* SPDX-License-Identifier: Apache-2.0 */
/* schema_launch.c - the "launch" section's counts as data, and their
 * writer (schema_launch.h). */
#include "schema_launch.h"

#include <stddef.h>

FC_SCHEMA_TABLE(FC_LCOUNTS_FIELDS, fc_lcounts_rec, FC_LCOUNTS_N, fc_lcounts_fields);
FC_SCHEMA_TABLE(FC_LPATH_FIELDS, fc_lpath_rec, FC_LPATH_N, fc_lpath_fields);
FC_SCHEMA_TABLE(FC_LPSIZE_FIELDS, fc_lpsize_rec, FC_LPSIZE_N, fc_lpsize_fields);
FC_SCHEMA_TABLE(FC_LRT_FIELDS, fc_lrt_rec, FC_LRT_N, fc_lrt_fields);

void fc_launch_rows_json(fc_jw *w, const fc_schema_field *f, int from, int to, const void *rec)
{
    fci_schema_json(w, f + from, to - from, rec, 0); /* offsets are into rec */
}

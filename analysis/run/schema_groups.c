/* SPDX-License-Identifier: Apache-2.0 */
/* schema_groups.c - a "by_api" / "by_dtype" member's rows as data, and its
 * writer (schema_groups.h). */
#include "schema_groups.h"

#include <stddef.h>

#include "run_rec.h"

FC_SCHEMA_TABLE(FC_GROUP_FIELDS, fc_report_group, FC_GROUP_N, fc_group_fields);

void fc_group_json(fc_jw *w, const char *key, const fc_report_group *g)
{
    fc_jw_obj_begin(w, key);
    fci_schema_json(w, fc_group_fields, FC_GROUP_N, g, 0);
    fc_jw_obj_end(w);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* schema_iter.c - the rows of an "iterations.list" entry as data, and
 * their writer (schema_iter.h). */
#include "schema_iter.h"

#include <stddef.h>

FC_SCHEMA_TABLE(FC_ITER_FIELDS, fc_report_iter, FC_ITER_N, fc_iter_fields);
const fc_schema_field fc_iter_grouped_fields[FC_ITER_GROUPED_N] = {
    FC_ITER_GROUPED_FIELDS(FC_ITER_GROUPED_ROW, fc_report_iter)};

void fc_iter_json(fc_jw *w, const fc_report_iter *it, unsigned omit)
{
    fci_schema_json(w, fc_iter_fields, FC_ITER_N, it, omit);
    if (it->grouped_calls == 0)
        return;
    fc_jw_obj_begin(w, FC_ITER_GROUPED_KEY);
    fci_schema_json(w, fc_iter_grouped_fields, FC_ITER_GROUPED_N, it, 0);
    fc_jw_obj_end(w);
}

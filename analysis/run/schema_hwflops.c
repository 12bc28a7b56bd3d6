/* SPDX-License-Identifier: Apache-2.0 */
/* schema_hwflops.c - the "hw_flops" section's counts and its iterations'
 * figures as data, and their writers (schema_hwflops.h). */
#include "schema_hwflops.h"

#include <stddef.h>

FC_SCHEMA_TABLE(FC_HW_FIELDS, fc_hw_rec, FC_HW_N, fc_hw_fields);
FC_SCHEMA_TABLE(FC_HWITER_FIELDS, fc_hwiter_rec, FC_HWITER_N, fc_hwiter_fields);

/* The offsets are into the record, so rows [from, to) are the table from
 * row from on, and omit's bits shift with it. */
void fc_hw_json(fc_jw *w, const fc_hw_rec *t, int from, int to, unsigned omit)
{
    fci_schema_json(w, fc_hw_fields + from, to - from, t, omit >> from);
}

void fc_hwiter_json(fc_jw *w, const fc_hwiter_rec *t, int from, int to)
{
    fci_schema_json(w, fc_hwiter_fields + from, to - from, t, 0);
}

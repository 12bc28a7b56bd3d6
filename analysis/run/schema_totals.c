/* SPDX-License-Identifier: Apache-2.0 */
/* schema_totals.c - the "totals" section's table as data, and its writer
 * (schema_totals.h). */
#include "schema_totals.h"

#include <stddef.h>

FC_SCHEMA_TABLE(FC_TOTALS_FIELDS, fc_totals_rec, FC_TOTALS_N, fc_totals_fields);

void fc_totals_json(fc_jw *w, const fc_totals_rec *t, unsigned omit)
{
    fci_schema_json(w, fc_totals_fields, FC_TOTALS_N, t, omit);
}

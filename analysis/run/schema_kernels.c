/* SPDX-License-Identifier: Apache-2.0 */
/* schema_kernels.c - the timing rows of a "kernels.shapes" entry and the
 * "kernels" object's own totals as data, and their writers
 * (schema_kernels.h). */
#include "schema_kernels.h"

#include <stddef.h>

FC_SCHEMA_TABLE(FC_KSHAPE_FIELDS, fc_kshape_rec, FC_KSHAPE_N, fc_kshape_fields);

void fc_kshape_json(fc_jw *w, const fc_kshape_rec *t)
{
    fci_schema_json(w, fc_kshape_fields, FC_KSHAPE_N, t, 0);
}

FC_SCHEMA_TABLE(FC_KTOTALS_FIELDS, fc_ktotals_rec, FC_KTOTALS_N, fc_ktotals_fields);

void fc_ktotals_json(fc_jw *w, const fc_ktotals_rec *t, unsigned omit)
{
    fci_schema_json(w, fc_ktotals_fields, FC_KTOTALS_N, t, omit);
}

FC_SCHEMA_TABLE(FC_KITER_FIELDS, fc_kiter_rec, FC_KITER_N, fc_kiter_fields);

void fc_kiter_json(fc_jw *w, const fc_kiter_rec *t)
{
    fci_schema_json(w, fc_kiter_fields, FC_KITER_N, t, 0);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* schema_attention.c - the "attention" section's counts as data, and
 * their writer (schema_attention.h). */
#include "schema_attention.h"

#include <stddef.h>

FC_SCHEMA_TABLE(FC_ATTN_TOTALS_FIELDS, fc_attn_totals_rec, FC_ATTN_TOTALS_N, fc_attn_totals_fields);

void fc_attn_totals_json(fc_jw *w, const fc_attn_totals_rec *t)
{
    fci_schema_json(w, fc_attn_totals_fields, FC_ATTN_TOTALS_N, t, 0);
}

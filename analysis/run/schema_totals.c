/* SPDX-License-Identifier: Apache-2.0 */
/* schema_totals.c - the "totals" section's table as data, and its writer
 * (schema_totals.h). */
#include "schema_totals.h"

#include <stddef.h>

const fc_schema_field fc_totals_fields[FC_TOTALS_N] = {
#define FC_X(name, type, req, unit, meaning) \
    {#name, FC_SCHEMA_##type, req, unit, meaning, offsetof(fc_totals_rec, name)},
    FC_TOTALS_FIELDS(FC_X)
#undef FC_X
};

void fc_totals_json(fc_jw *w, const fc_totals_rec *t, unsigned omit)
{
    for (int i = 0; i < FC_TOTALS_N; i++) {
        const fc_schema_field *f = &fc_totals_fields[i];
        if (omit >> i & 1u)
            continue;
        const char *at = (const char *)t + f->offset;
        if (f->type == FC_SCHEMA_U128)
            fc_jw_u128(w, f->name, *(const fc_u128 *)(const void *)at);
        else
            fc_jw_u64(w, f->name, *(const uint64_t *)(const void *)at);
    }
}

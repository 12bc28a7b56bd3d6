/* SPDX-License-Identifier: Apache-2.0 */
/* schema_read.c - a section's reader, driven by its table (schema_read.h). */
#include "schema_read.h"

void fc_schema_read(fc_jctx *c, struct json_object *o, const char *sec, const fc_schema_field *f,
                    int from, int to, void *rec)
{
    for (int i = from; i < to; i++) {
        char *at = (char *)rec + f[i].offset;
        if (f[i].type == FC_SCHEMA_U128)
            fc_jget_u128(c, o, sec, f[i].name, (fc_u128 *)(void *)at, f[i].required);
        else if (f[i].type == FC_SCHEMA_DBL) /* null or absent: left as it is */
            fc_jget_double(c, o, sec, f[i].name, (double *)(void *)at);
        else if (f[i].type == FC_SCHEMA_I64) /* null: -1; absent: left as it is */
            fc_jget_i64(c, o, sec, f[i].name, (int64_t *)(void *)at);
        else
            fc_jget_u64(c, o, sec, f[i].name, (uint64_t *)(void *)at, f[i].required);
    }
}

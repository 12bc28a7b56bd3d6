/* SPDX-License-Identifier: Apache-2.0 */
/* schema.c - a section's writer and its sum, driven by its table
 * (schema.h). */
#include "schema.h"

void fc_schema_add(const fc_schema_field *f, int n, void *dst, const void *src)
{
    for (int i = 0; i < n; i++) {
        char *to = (char *)dst + f[i].offset;
        const char *from = (const char *)src + f[i].offset;
        if (f[i].type == FC_SCHEMA_U128)
            *(fc_u128 *)(void *)to = fc_u128_sat_add(*(const fc_u128 *)(void *)to,
                                                     *(const fc_u128 *)(const void *)from);
        else if (f[i].type == FC_SCHEMA_DBL)
            *(double *)(void *)to += *(const double *)(const void *)from;
        else if (f[i].type == FC_SCHEMA_U64)
            *(uint64_t *)(void *)to += *(const uint64_t *)(const void *)from;
        else if (f[i].type == FC_SCHEMA_I64)
            *(int64_t *)(void *)to += *(const int64_t *)(const void *)from;
        else if (f[i].type == FC_SCHEMA_BOOL)
            *(int *)(void *)to |= *(const int *)(const void *)from;
    }
}

/* One row of another type than the first three (schema.h). */
static void json_other(fc_jw *w, const fc_schema_field *f, const char *at)
{
    switch (f->type) {
    case FC_SCHEMA_I64:
        fc_jw_i64(w, f->name, *(const int64_t *)(const void *)at);
        break;
    case FC_SCHEMA_BOOL:
        fc_jw_bool(w, f->name, *(const int *)(const void *)at);
        break;
    case FC_SCHEMA_TRANS: {
        char t[2] = {*at, '\0'};
        fc_jw_str(w, f->name, t[0] == '?' || t[0] == '\0' ? NULL : t);
        break;
    }
    case FC_SCHEMA_STR:
        fc_jw_str(w, f->name, at[0] != '\0' ? at : NULL);
        break;
    default: /* FC_SCHEMA_TEXT */
        fc_jw_str(w, f->name, *(const char *const *)(const void *)at);
        break;
    }
}

void fci_schema_json(fc_jw *w, const fc_schema_field *f, int n, const void *rec, unsigned omit)
{
    for (int i = 0; i < n; i++) {
        if (i < 32 && (omit >> i & 1u))
            continue;
        const char *at = (const char *)rec + f[i].offset;
        if (f[i].type == FC_SCHEMA_U128)
            fc_jw_u128(w, f[i].name, *(const fc_u128 *)(const void *)at);
        else if (f[i].type == FC_SCHEMA_DBL)
            fc_jw_double(w, f[i].name, *(const double *)(const void *)at);
        else if (f[i].type == FC_SCHEMA_U64)
            fc_jw_u64(w, f[i].name, *(const uint64_t *)(const void *)at);
        else
            json_other(w, &f[i], at);
    }
}

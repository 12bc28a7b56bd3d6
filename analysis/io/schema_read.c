/* SPDX-License-Identifier: Apache-2.0 */
/* schema_read.c - a section's reader, driven by its table (schema_read.h). */
#include "schema_read.h"

#include <string.h>

/* A TRANS row: "N", "T", "C"; "", null or absent: '?'. */
static void read_trans(fc_jctx *c, json_object *o, const char *sec, const char *key, char *out)
{
    char s[4] = "";
    fc_jget_str(c, o, sec, key, s, sizeof s);
    if (s[0] == '\0')
        *out = '?';
    else if (s[1] != '\0' || strchr("NTC", s[0]) == NULL)
        fc_jfail(c, "%s.%s: expected \"N\", \"T\" or \"C\"", sec, key);
    else
        *out = s[0];
}

/* One row of another type than the first three (schema.h). */
static void read_other(fc_jctx *c, json_object *o, const char *sec, const fc_schema_field *f,
                       char *at)
{
    switch (f->type) {
    case FC_SCHEMA_I64:
        fc_jget_i64(c, o, sec, f->name, (int64_t *)(void *)at);
        break;
    case FC_SCHEMA_BOOL:
        fc_jget_bool(c, o, sec, f->name, (int *)(void *)at);
        break;
    case FC_SCHEMA_TRANS:
        read_trans(c, o, sec, f->name, at);
        break;
    case FC_SCHEMA_STR:
        fc_jget_str(c, o, sec, f->name, at, f->size);
        break;
    default: { /* FC_SCHEMA_TEXT: a string or null, not kept */
        char none[1];
        fc_jget_str(c, o, sec, f->name, none, sizeof none);
        break;
    }
    }
}

void fc_schema_read(fc_jctx *c, struct json_object *o, const char *sec, const fc_schema_field *f,
                    int from, int to, void *rec)
{
    for (int i = from; i < to; i++) {
        char *at = (char *)rec + f[i].offset;
        if (f[i].type == FC_SCHEMA_U128)
            fc_jget_u128(c, o, sec, f[i].name, (fc_u128 *)(void *)at, f[i].required);
        else if (f[i].type == FC_SCHEMA_DBL) /* null or absent: left as it is */
            fc_jget_double(c, o, sec, f[i].name, (double *)(void *)at);
        else if (f[i].type == FC_SCHEMA_U64)
            fc_jget_u64(c, o, sec, f[i].name, (uint64_t *)(void *)at, f[i].required);
        else
            read_other(c, o, sec, &f[i], at);
    }
}

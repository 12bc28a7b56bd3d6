/* SPDX-License-Identifier: Apache-2.0 */
/* schema_read.h - a section's reader, driven by its table (analysis/run/
 * schema.h): every row read from a JSON object into the section's record
 * (required rows must be there; an absent optional one is left as it is). */
#ifndef FC_SCHEMA_READ_H
#define FC_SCHEMA_READ_H

#include "json_get.h"
#include "schema.h"

/* Rows [from, to) of f from object o of section sec into rec. */
void fc_schema_read(fc_jctx *c, struct json_object *o, const char *sec, const fc_schema_field *f,
                    int from, int to, void *rec);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* schema_kernels.c - the timing rows of a "kernels.shapes" entry as data,
 * and their writer (schema_kernels.h). */
#include "schema_kernels.h"

#include <stddef.h>

FC_SCHEMA_TABLE(FC_KSHAPE_FIELDS, fc_kshape_rec, FC_KSHAPE_N, fc_kshape_fields);

void fc_kshape_json(fc_jw *w, const fc_kshape_rec *t)
{
    fci_schema_json(w, fc_kshape_fields, FC_KSHAPE_N, t, 0);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* schema_kernels.c - the timing rows of a "kernels.shapes" entry as data,
 * and their writer (schema_kernels.h). */
#include "schema_kernels.h"

#include <stddef.h>

const fc_schema_field fc_kshape_fields[FC_KSHAPE_N] = {
    FC_KSHAPE_FIELDS(FC_SCHEMA_ROW, fc_kshape_rec)
};

void fc_kshape_json(fc_jw *w, const fc_kshape_rec *t)
{
    fci_schema_json(w, fc_kshape_fields, FC_KSHAPE_N, t, 0);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* schema_graphs.c - the "graphs" section's counts as data, and their
 * writer (schema_graphs.h). */
#include "schema_graphs.h"

#include <stddef.h>

FC_SCHEMA_TABLE(FC_GRAPHS_FIELDS, fc_graphs_rec, FC_GRAPHS_N, fc_graphs_fields);

void fc_graphs_json(fc_jw *w, const fc_graphs_rec *t, unsigned omit)
{
    fci_schema_json(w, fc_graphs_fields, FC_GRAPHS_N, t, omit);
}

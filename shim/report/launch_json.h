/* SPDX-License-Identifier: Apache-2.0 */
/* launch_json.h - the report's "launch" section (launch_json.c). */
#ifndef FC_REPORT_LAUNCH_JSON_H
#define FC_REPORT_LAUNCH_JSON_H

#include "jsonw.h"

/* What the launch layer saw: registrations, kernels of interest, launches
 * decoded / uncounted / marked by where they were seen, which runtime the
 * device code registers through, and a note when some of it is out of the
 * hooks' sight. docs/launch.md, docs/report-schema.md. */
void fc_report_launch_json(fc_jw *w);

#endif

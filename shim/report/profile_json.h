/* SPDX-License-Identifier: Apache-2.0 */
/* profile_json.h - the "forward_profile" report member (profile_json.c). */
#ifndef FC_REPORT_PROFILE_JSON_H
#define FC_REPORT_PROFILE_JSON_H

#include "jsonw.h"

/* "forward_profile" as a member of the open top-level object. The caller
 * has drained the rings and holds the drain lock. */
void fc_profile_report_json(fc_jw *w);

#endif

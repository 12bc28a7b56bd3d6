/* SPDX-License-Identifier: Apache-2.0 */
/* callsites.h - call sites in the report (callsites.c). Read the counters
 * after the rings were drained. */
#ifndef FC_REPORT_CALLSITES_H
#define FC_REPORT_CALLSITES_H

#include "jsonw.h"

/* "callsites" member of the report: the top places by FLOPs. */
void fc_callsite_report_json(fc_jw *w);
/* The top three as flopcount: lines on fd. */
void fc_callsite_report_text(int fd);

#endif

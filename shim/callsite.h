/* callsite.h - where in the program the FLOPs are issued: the stack above
 * the GEMM entry point, unwound (libunwind) once per distinct shape and
 * resolved to library!symbol+offset at report time. */
#ifndef FC_CALLSITE_H
#define FC_CALLSITE_H

#include <stdint.h>

#include "../analysis/jsonw.h"

/* Hot path: one table probe; the first call of a new shape unwinds. */
void fc_callsite_note(uint32_t sig);
void fc_callsite_reset(void);
/* "callsites" member of the report: the top places by FLOPs. */
void fc_callsite_report_json(fc_jw *w);
/* The top few as flopcount: lines on fd. */
void fc_callsite_report_text(int fd);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* callsite.h - where in the program the FLOPs are issued: the stack above
 * the GEMM entry point, unwound (libunwind) once per distinct shape and
 * resolved to library!symbol+offset at report time. */
#ifndef FC_CALLSITE_H
#define FC_CALLSITE_H

#include <stdatomic.h>
#include <stdint.h>

#include "../analysis/jsonw.h"

/* Shapes seen so far, by fc_site_key (open addressing from the key's own
 * slot). The hot path probes the first slot inline (ring.h) and calls
 * fc_callsite_note only when it does not hold the key: a later slot of the
 * probe sequence, or a new shape, which is unwound. */
#define FC_CALLSITE_SIG_SLOTS 8192u
extern _Atomic uint32_t fc_callsite_sigs[FC_CALLSITE_SIG_SLOTS];
void fc_callsite_note(uint32_t sig);
void fc_callsite_reset(void);
/* "callsites" member of the report: the top places by FLOPs. */
void fc_callsite_report_json(fc_jw *w);
/* The top few as flopcount: lines on fd. */
void fc_callsite_report_text(int fd);

#endif

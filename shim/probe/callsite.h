/* SPDX-License-Identifier: Apache-2.0 */
/* callsite.h - where in the program GEMM shapes are called from: the stack
 * above the GEMM entry point, unwound (libunwind) once per distinct shape
 * (callsite.c). The report names the frames (report/callsites.c). */
#ifndef FC_CALLSITE_H
#define FC_CALLSITE_H

#include <stdatomic.h>
#include <stdint.h>

#define FC_CALLSITE_SITES 1024u /* distinct call sites kept */
#define FC_CALLSITE_FRAMES 6    /* frames kept per call site */

/* Shape keys seen so far (fc_site_key), by open addressing from the key's
 * own slot. The hot path probes the first slot inline (ring/hotpath.h) and
 * calls fc_callsite_note only when it does not hold the key: a later slot
 * of the probe sequence, or a new shape, which is then unwound (unless
 * fc_callsite_enabled() says no). Mapped by fc_callsite_init, which the
 * ring layer calls at the process's first GEMM, before any thread has a
 * ring (so the hot path never sees it NULL). */
#define FC_CALLSITE_SIG_SLOTS 8192u
extern _Atomic uint32_t *fc_callsite_sigs;
/* 0, or -1 when the tables could not be mapped. */
int fc_callsite_init(void);
void fc_callsite_note(uint32_t key);
/* Forgets every shape and site (a fork child), pages given back. */
void fc_callsite_reset(void);

/* The call site (1..FC_CALLSITE_SITES) of a shape key, 0 when not known. */
uint32_t fc_callsite_of(uint32_t key);
/* Copies the frames of call site `site` into ip[FC_CALLSITE_FRAMES];
 * returns how many there are (0 for an unknown site). */
int fc_callsite_frames(uint32_t site, void **ip);
/* 0 when FLOPCOUNT_CALLSITES=0 switched unwinding off, and in a fork
 * child (callsite.c says why). */
int fc_callsite_enabled(void);

#endif

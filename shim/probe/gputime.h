/* SPDX-License-Identifier: Apache-2.0 */
/* gputime.h - iteration times measured on the GPU: CUDA events recorded on
 * the GEMM stream at the host stamps that can be iteration boundaries, read
 * back by stamp when the report is written. Only when the process itself
 * loaded the CUDA driver. docs/iterations.md, "GPU time". */
#ifndef FC_GPUTIME_H
#define FC_GPUTIME_H

#include <stddef.h>
#include <stdint.h>

#include "core/base.h"
#include "core/gemm.h"

/* FC_GPUTIME_OFF: no driver (or not yet looked for: FC_GPUTIME_UNKNOWN). */
enum { FC_GPUTIME_UNKNOWN = 0, FC_GPUTIME_ON = 1, FC_GPUTIME_OFF = 2, FC_GPUTIME_PROBING = 3 };
extern int fc_gputime_state; /* read with __atomic_load_n, relaxed */

/* 1 once a counted cuBLAS / cuBLASLt call was seen (the live line picks a
 * GPU peak then); set by the ring layer, read with __atomic_load_n. */
extern int fc_gpu_work_seen;

/* A counted cuBLAS / cuBLASLt call returned at tick t (the detector's
 * stamp): the first call looks for the driver, later ones record an event
 * when they can be an iteration boundary. Call only while
 * fc_gputime_state is not FC_GPUTIME_OFF. */
void fc_gputime_on_call(const fc_gemm *g, uint64_t t);
/* A marker (enum fc_irec_kind) stamped t on this thread. */
void fc_gputime_on_mark(int kind, uint64_t t);
/* Forgets every event (fork child: the parent's CUDA state is not ours). */
void fc_gputime_reset(void);

/* Report time. Sorts the events by stamp and, for a final report, waits
 * for the last one. 0 when GPU figures can be given; otherwise -1 with
 * reason ("no CUDA driver ...", ...). */
int fc_gputime_prepare(int final, int interrupted, char *reason, size_t len);
/* GPU seconds between the events stamped t0 and t1; -1 when either is
 * missing or not complete. After fc_gputime_prepare returned 0. */
int fc_gputime_span(uint64_t t0, uint64_t t1, double *seconds);

#endif

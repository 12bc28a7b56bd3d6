/* SPDX-License-Identifier: Apache-2.0 */
/* iter.h - training iterations, phases and recompute, found from the stream
 * of GEMM calls (and markers, when the program gives them). */
#ifndef FC_ITER_H
#define FC_ITER_H

#include "../analysis/jsonw.h"
#include "shim.h"

void fc_iter_init(void);
/* pthread_atfork prepare and child handlers. */
void fc_iter_before_fork(void);
void fc_iter_reset_after_fork(void);
/* The slow path's successful call, counted already by its caller (sig is
 * fc_gemm_sig(g)): queued for the detector on the caller's ring. */
void fc_iter_on_call(const fc_gemm *g, uint32_t sig);
/* Drains the rings (into the counters and the detector) before counters
 * are read; waits briefly for a drain in progress. 0, or -1 when the lock
 * could not be had. Nothing to do on a thread already draining. */
int fc_iter_sync(void);
/* Training iterations completed so far. */
uint64_t fc_iter_count(void);
/* Report sections: "iterations", "eval_passes", "recompute", "utilization",
 * "callsites" as members of the open top-level object. */
void fc_iter_report_json(fc_jw *w);
/* Lines of the human summary (fd 2). */
void fc_iter_report_text(int fd);

/* The report about to be written has this status ("complete", "running",
 * "interrupted"): anything but "running" ends the detector's stream, so the
 * last iteration is labelled. Call before fc_iter_report_json. */
void fc_iter_report_status(const char *status);
int fc_iter_report_is_final(void);
/* The report is written from a fatal signal's handler: look nothing up. */
int fc_iter_report_interrupted(void);
/* A marker (enum fc_irec_kind) at this point of the calling thread's
 * stream: flopcount_step(), the evaluation brackets, NVTX step ranges. */
void fc_iter_mark(int kind);
/* Drains all rings into the detector and takes the detector lock (waiting
 * briefly); final also labels the last segments, once. 0, or -1 when the
 * lock could not be had (then do not call fc_iter_release). */
int fc_iter_collect(int final);
void fc_iter_release(void);
/* Records lost because a thread's ring was full (or >32 threads). */
uint64_t fc_iter_dropped(void);

#endif

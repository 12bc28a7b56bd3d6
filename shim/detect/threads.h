/* SPDX-License-Identifier: Apache-2.0 */
/* threads.h - the launching thread as evidence of the phase, for phase.c
 * and segment.c. PyTorch's autograd engine runs the backward of CUDA
 * tensors (recomputation included) on a device thread of its own, while
 * the forward runs on the thread that called the model: where the GPU
 * GEMMs of labelled training segments come from one set of threads in the
 * forward and another in the backward, a call's thread tells which side of
 * the backward's start it is on. Learned from segments the detector
 * labelled without doubt (two must agree, none may disagree); applied only
 * to segments whose every call is a GPU call from a thread of one side.
 * CPU calls never count: CPU PyTorch runs the backward on the calling
 * thread. Method: docs/iterations.md ("The launching thread"). Internal;
 * single consumer (the drain lock). */
#ifndef FC_DETECT_THREADS_H
#define FC_DETECT_THREADS_H

#include <stdint.h>

#include "phase.h"

enum fc_thr_side { FC_THR_UNKNOWN = 0, FC_THR_FWD, FC_THR_BWD };
enum fc_thr_state {
    FC_THR_OFF = 0,     /* not (yet) two threads that part the phases */
    FC_THR_ON,          /* learned: used where a segment's boundary or a call is in doubt */
    FC_THR_CONTRADICTED /* a thread ran both phases, or a sure segment disagreed: off for good */
};

/* Nothing learned. */
void fc_threads_reset(void);
/* Segment s is about to be labelled in full; t_bwd and *unsure are what
 * the automatic method found (declared: the program declares phases, then
 * the threads are not used). Returns where the backward starts: the first
 * call from a backward thread when the evidence applies to s and the
 * automatic start was in doubt (EARLY_BWD, HELD_BACK: cleared from *unsure,
 * *used set) or agrees; the automatic one otherwise. A sure automatic
 * start that the threads contradict turns the evidence off for good. */
int64_t fc_threads_boundary(const fc_pend *s, int64_t t_bwd, int declared, unsigned *unsure,
                            int *used);
/* The side of a call of the segment passed to fc_threads_boundary last:
 * FC_THR_FWD or FC_THR_BWD when the evidence applies to that segment,
 * else FC_THR_UNKNOWN. */
int fc_threads_side(const fc_irec *r);
/* After segment s (of kind `kind`, its backward starting at t_bwd) was
 * labelled (fc_phase_class): learns from it when it is a training segment
 * the threads did not decide, its start not in doubt: the threads of its
 * forward, of its first backward call, and of the rest of its backward
 * when nothing in it is in doubt (unsure == 0). */
void fc_threads_learn(const fc_pend *s, int kind, int64_t t_bwd, unsigned unsure, int used);
/* For the report: the state, and the segments whose labels the threads
 * decided. */
int fc_threads_state(void);
uint64_t fc_threads_used(void);

#endif

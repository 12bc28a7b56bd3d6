/* SPDX-License-Identifier: Apache-2.0 */
/* segment.h - the automatic detector: cuts the GEMM stream into segments
 * (one forward, with or without a backward) and labels every call forward,
 * backward, recompute or evaluation. Method and limits: docs/iterations.md.
 *
 * Single consumer: fed in stream order by whoever holds the drain lock.
 * Results go to steps.h as whole, labelled segments. */
#ifndef FC_SEGMENT_H
#define FC_SEGMENT_H

#include <stdint.h>

#include "irec.h"

/* What a finished segment is. */
enum fc_seg_kind {
    FC_SEG_NEW = 0, /* a training iteration starts here (auto mode) */
    FC_SEG_CONT,    /* the rest of the previous iteration's backward */
    FC_SEG_EVAL     /* a forward with no backward: an evaluation pass */
};

/* Why the split of a segment (and of the iterations it is part of) is
 * unsure: the detector had to guess where the GEMM stream alone cannot
 * decide. Bits of fc_seg_result.unsure and fc_iteration.unsure. */
#define FC_UNSURE_LONE_REPEAT 0x1u   /* a weight-less forward product repeated alone in the backward */
#define FC_UNSURE_FWD_AFTER_BWD 0x2u /* a weight used the forward way after its backward */
#define FC_UNSURE_EARLY_BWD 0x4u     /* a weight used the backward way before the backward found */
#define FC_UNSURE_TRUNCATED 0x8u     /* a segment cut at the buffer's size */
#define FC_UNSURE_LOST 0x10u         /* records lost to the detector (threads, full rings) */
#define FC_UNSURE_HELD_BACK 0x20u    /* the backward found at an unconfirmed weight's first use */
#define FC_UNSURE_COUNT 6
/* Not a reason: some doubt of the segment (iteration) can move FLOPs into or
 * out of recompute, so MFU (which leaves recompute out) is unsure too. Set
 * with every reason but a doubt about where the forward ends that is
 * shown to move FLOPs between forward and backward only (segment.c,
 * mfu_doubt). */
#define FC_UNSURE_MFU 0x40u

/* Label of one call. */
enum fc_cls { FC_CLS_FWD = 0, FC_CLS_BWD, FC_CLS_REC, FC_CLS_EVAL, FC_CLS_XEVAL, FC_CLS_MARK };

typedef struct fc_seg_stats {
    uint64_t segments;   /* segments labelled so far */
    uint64_t truncated;  /* cut short because the buffer filled */
    uint64_t weights;    /* addresses taken as weights */
    uint64_t repeated;   /* labelled as an earlier segment they repeat (fc_seg_set_repeat) */
    uint64_t repeat_checks;     /* FC_REPEAT_CHECK: segments that could have been repeats ... */
    uint64_t repeat_mismatches; /* ... whose labelling in full differed from the repeat */
    int anchor;          /* 1 once the first forward call's weight was found again */
} fc_seg_stats;

/* Maps the detector's memory (its buffer, phase.c's and steps.c's
 * tables), once: at the process's first GEMM. 0, or -1 when it could not
 * be mapped. */
int fc_seg_init(void);
/* Back to an empty detector (a fork child), pages given back. */
void fc_seg_reset(void);
/* FLOPCOUNT_DETECT_REPEAT: 1 (default) a segment that repeats an earlier
 * one call for call is labelled as that one was; 0: every segment is
 * labelled in full; FC_REPEAT_CHECK: in full, and each that could have been
 * a repeat is compared with what the repeat would have given
 * (fc_seg_stats.repeat_checks, repeat_mismatches). */
#define FC_REPEAT_CHECK 2
void fc_seg_set_repeat(int mode);
/* One event, in stream order. */
void fc_seg_push(const fc_irec *r);
/* End of the stream (report time): labels everything still held. */
void fc_seg_flush(void);
void fc_seg_stats_get(fc_seg_stats *out);

#endif

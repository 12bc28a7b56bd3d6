/* SPDX-License-Identifier: Apache-2.0 */
/* repeat.h - the labels of the last FC_WSLOTS segments labelled in full,
 * each in a slot (its labels, where its backward started, what labelling
 * found), and which of them a new segment repeats; weights.c keeps, per
 * slot, what the labelling read and changed in the weight table. For
 * phase.c, which labels, and segment.c, which decides. Internal; single
 * consumer (the drain lock). */
#ifndef FC_DETECT_REPEAT_H
#define FC_DETECT_REPEAT_H

#include <stdint.h>

#include "phase.h"

/* Maps the slots' label arrays (once); 0, or -1 when they could not be. */
int fc_repeat_init(void);
/* No slot holds anything. */
void fc_repeat_reset(void);

/* The slot a segment about to be labelled in full takes: the one used
 * longest ago (one that cannot be repeated counts as never used). */
int fc_repeat_take_slot(void);
/* The labels (FC_SEG_CAP entries) of slot: its calls' classes, and which
 * operands of its forward calls are weights. */
uint8_t *fc_repeat_classes(int slot);
uint8_t *fc_repeat_weighted(int slot);
/* Segment s was labelled in full into slot (t_bwd, res): kept for
 * repeats when weights.c's recording of it is whole. */
void fc_repeat_labelled(int slot, const fc_pend *s, int64_t t_bwd, const fc_seg_result *res);

/* The slot of a segment labelled in full that s repeats (the same hash of
 * its records, length and truncation) and that can be repeated
 * (fc_weights_slot_valid), or -1. */
int fc_repeat_find(const fc_pend *s);
/* s repeats the segment in slot: its weight-table changes are made again,
 * res is that segment's with the forward's reuse counted under ctx; the
 * slot counts as used. Returns where the backward starts. */
int64_t fc_repeat_take(int slot, const fc_pend *s, const fc_phase_ctx *ctx, fc_seg_result *res);

/* Checking a repeat (FLOPCOUNT_DETECT_REPEAT=check): s, which repeats the
 * segment in slot s->check_of, will be labelled in full; keeps what the
 * repeat would give. Before fc_phase_learn. */
void fc_repeat_check_begin(const fc_pend *s);
/* What the repeat would have counted as the forward's reuse under ctx
 * (before the labelling). */
uint64_t fc_repeat_check_redone(const fc_phase_ctx *ctx);
/* After s was labelled in full (t_bwd, res) into the slot it took: how
 * many things differ from what the repeat would have given - labels, where
 * the backward starts, res (redone: fc_repeat_check_redone), the weight
 * table. 0: the repeat was right. */
uint64_t fc_repeat_check_end(const fc_pend *s, int64_t t_bwd, const fc_seg_result *res,
                             uint64_t redone);

#endif

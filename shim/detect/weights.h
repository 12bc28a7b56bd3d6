/* SPDX-License-Identifier: Apache-2.0 */
/* weights.h - the detector's weight table, for phase.c: addresses that
 * recur as the same operand across segments, each with how many segments
 * first used it in one role and a trust score from labelled segments that
 * agreed or not. It also keeps what labelling one segment changed in it,
 * so that a segment the same as the one before can be labelled as it was
 * (repeat.c, fc_repeat_take) with the same effect on the table. Internal;
 * single consumer (the drain lock). */
#ifndef FC_DETECT_WEIGHTS_H
#define FC_DETECT_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fc_went {
    const void *addr;
    uint32_t key;      /* forward role key */
    uint16_t count;    /* segments whose first use had this key */
    uint8_t notweight; /* written by a GEMM at some point */
    int8_t trust;      /* labelled segments that agreed (+1) or not (-1) */
    uint32_t last_seg, judged_seg;
    uint32_t bwd_seg; /* the last segment that used it the backward way */
    uint32_t op_seg;  /* the last segment recorded that changed it ... */
    uint32_t op_at;   /* ... and where in that recording */
    uint32_t read_seg; /* the last segment recorded that read it */
} fc_went;

/* Recordings kept at once: a repeat may repeat any of the last four
 * segments labelled in full (an iteration of two unlike segments, as when
 * the first layer is recomputed, and an evaluation pass between two). */
#define FC_WSLOTS 4

/* The first segments are being labelled: nothing is confirmed yet, so any
 * candidate counts as a weight (phase.c sets it through
 * fc_phase_set_bootstrap). */
extern int fc_weights_bootstrap;

/* Maps the table (once); 0, or -1 when it could not be mapped. */
int fc_weights_init(void);
/* Back to an empty table, pages given back. */
void fc_weights_reset(void);
/* The entry of p; with create, a new one when absent (taking a free slot or
 * one of a one-off address seen long ago). NULL when absent or full. */
fc_went *fc_weights_get(const void *p, int create);
/* p as a weight in role key `key`: never written by a GEMM, first used
 * with that matrix in two segments, not distrusted. NULL otherwise. */
const fc_went *fc_weights_of(const void *p, uint32_t key);
/* Addresses currently taken as weights. */
uint64_t fc_weights_count(void);

/* Agreed with by labelled segments: a weight, not just an address. */
static inline int fc_weights_confirmed(const fc_went *w)
{
    return w != NULL && w->trust >= 2;
}

/* Confirmed, or any candidate while the first segments are labelled. */
static inline int fc_weights_proven(const fc_went *w)
{
    return w != NULL && (w->trust >= 2 || fc_weights_bootstrap);
}

/* ---- changes, recorded for the segment being labelled ---- */

/* Learning segment seg begins (phase.c's fc_phase_learn): changes from now
 * on are its own, recorded in slot (0 .. FC_WSLOTS - 1). */
void fc_weights_segment_begin(uint32_t seg, int slot);
/* Labelling the recorded segment changed something else that labelling
 * reads (a forward shape new to phase.c's fwd_sigs): no slot can be
 * repeated, this segment's included. */
void fc_weights_changed(void);
/* A GEMM wrote w's address: never a weight. */
void fc_weights_written(fc_went *w);
/* Segment seg's first use of w was in role key `key`. */
void fc_weights_first_use(fc_went *w, uint32_t key, uint32_t seg);
/* What a labelled training segment says about the candidate at p at its
 * first use (fresh: first in the segment) at call i, the backward starting
 * at t_bwd: a weight is first used in the forward. */
void fc_weights_judge(const void *p, uint32_t key, int fresh, uint32_t i, uint32_t t_bwd,
                      uint32_t seg);
/* Segment seg used w the backward way. */
void fc_weights_bwd_use(fc_went *w, uint32_t seg);
/* A forward call of the segment used weight w (see fc_weights_repeat). */
void fc_weights_fwd_use(const fc_went *w);
/* Labelling segment seg ended: 1 when its recording is whole - no other
 * segment learned in between, nothing past the recording's capacity, no
 * entry created or taken over and no forward shape new to the labeller
 * (either of which makes every slot unrepeatable: their labels were found
 * without it) - so that the same calls again would be labelled the same
 * way while what it read stands (fc_weights_slot_valid). */
int fc_weights_segment_end(uint32_t seg);
/* 1 while the segment recorded in slot can be repeated: every entry it
 * read stands as it did, and the first segments' bootstrap is on or off as
 * it was then. */
int fc_weights_slot_valid(int slot);
/* Makes the changes of the segment recorded in slot again, as segment
 * seg's (which repeats it), and returns how many weight uses of its
 * forward the iteration open since group_first had differentiated already
 * (0 when none is open). */
uint64_t fc_weights_repeat(int slot, uint32_t seg, int group_open, uint32_t group_first);

/* ---- checking a repeat against labelling in full (FLOPCOUNT_DETECT_REPEAT=check) ---- */

/* Segment seg, which repeats the one in slot, is about to be labelled in
 * full: keeps what a repeat would leave in every entry that one changed,
 * and the weights its forward used. Before fc_phase_learn. */
void fc_weights_check_begin(int slot, uint32_t seg);
/* What a repeat would have counted as the forward's reuse under the
 * iteration open since group_first (before the labelling). */
uint64_t fc_weights_check_redone(int group_open, uint32_t group_first);
/* After the labelling, recorded in slot: the number of entries that differ
 * from what the repeat would have left, plus 1 when the labelling changed
 * another number of entries than the repeated segment did. */
uint64_t fc_weights_check_end(int slot);

#endif

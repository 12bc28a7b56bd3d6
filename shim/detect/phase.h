/* SPDX-License-Identifier: Apache-2.0 */
/* phase.h - between the two halves of the detector: segment.c cuts the
 * stream into segments and decides what each is; phase.c learns weights,
 * finds where a segment's backward starts and labels its calls. Internal. */
#ifndef FC_PHASE_H
#define FC_PHASE_H

#include <stdint.h>

#include "irec.h"
#include "seg_buf.h"
#include "segment.h"

#define FC_SEG_CAP (1u << 17) /* records held while segments wait to be labelled */

/* A closed segment: buffer indices [start, end), times, id. */
typedef struct fc_pend {
    uint64_t start, end, t0, t1;
    uint32_t id;
    uint8_t truncated, at_end; /* at_end: closed by the end of the stream */
    uint8_t after_step;        /* opened by a flopcount_step() marker */
    int8_t repeat_of;          /* -1, or the slot of a segment labelled with the same records */
    int8_t check_of;           /* -1, or that slot when the repeat is checked (labelled in full) */
    uint64_t hash;             /* of its records (segment.c, content_hash) */
} fc_pend;

/* What segment.c knows that labelling needs. */
typedef struct fc_phase_ctx {
    const void *anchor_p; /* the anchor weight and its role key */
    uint32_t anchor_k;
    int group_open;       /* an iteration is in progress ... */
    uint32_t group_first; /* ... since this segment */
} fc_phase_ctx;

typedef struct fc_seg_result {
    int has_bwd;          /* a backward, or a forward the program declared (training) */
    int declared;         /* some call's phase was declared (markers, NVTX) */
    unsigned unsure;      /* FC_UNSURE_* */
    uint64_t fwd_redone;  /* weight uses in the forward that the open iteration differentiated already */
    int anchor_bwd;       /* the anchor weight was used the backward way */
    int thread_used;      /* the launching thread decided the backward's start or a label */
} fc_seg_result;

/* fc_seg_rec: the record at buffer index idx (seg_buf.h). */

static inline int fc_irec_is_call(const fc_irec *r)
{
    return r->kind == FC_IREC_GEMM && !(r->flags & FC_IREC_XEVAL);
}

/* Maps the tables (once); 0, or -1 when they could not be mapped. */
int fc_phase_init(void);
/* Back to nothing learned, the tables' pages given back. */
void fc_phase_reset(void);
/* A segment just closed: learn its first uses (weights recur in a role). */
void fc_phase_learn(const fc_pend *s);
/* 0 once the first segments are labelled: weights must then be confirmed. */
void fc_phase_set_bootstrap(int on);
/* 1 while the first segments are labelled (weights not confirmed yet). */
int fc_phase_bootstrapping(void);
/* Index (relative) of the first backward call, -1: no backward: the first
 * call declared backward or recompute when the program declares phases,
 * else found from the calls (adding FC_UNSURE_* bits to res->unsure).
 * Sets res->declared. */
int64_t fc_phase_find_backward(const fc_pend *s, fc_seg_result *res);
/* Labels every record of s (read back with fc_phase_class). */
void fc_phase_label(const fc_pend *s, const fc_phase_ctx *ctx, int64_t t_bwd, fc_seg_result *res);
uint8_t fc_phase_class(uint64_t rel);
/* Labels s as the segment in slot s->repeat_of was (s has its records,
 * which fc_phase_learn has not seen): the weights change as they did for
 * it, the labels are its labels (fc_phase_class), res is its res with the
 * forward's reuse counted under ctx. Returns where the backward starts. */
int64_t fc_phase_repeat(const fc_pend *s, const fc_phase_ctx *ctx, fc_seg_result *res);
/* Which operands of a forward call (relative index) are weights: bit 0 A,
 * bit 1 B; 0 for other calls. */
uint8_t fc_phase_weighted(uint64_t rel);
/* Addresses currently taken as weights. */
uint64_t fc_phase_weights(void);

#endif

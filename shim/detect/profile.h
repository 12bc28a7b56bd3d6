/* SPDX-License-Identifier: Apache-2.0 */
/* profile.h - the forward profile: the forward GEMMs of one steady training
 * iteration, in stream order, each with its shape signature, how many
 * calls in a row it stands for, and which operand the detector took as a
 * weight. analysis/infer.c reads the model's shape off it (report/ resolves
 * the signatures to shapes through the shape table).
 *
 * Filled from segment.c's labelling of each training segment, read by the
 * report layer with the drain lock held. Static and bounded; nothing
 * allocates. It only reads the detector's labels, never changes them. */
#ifndef FC_PROFILE_H
#define FC_PROFILE_H

#include <stdint.h>

#include "phase.h"
#include "u128.h"

#define FC_PROFILE_CAP 4096 /* runs of calls kept; a longer forward is truncated */

typedef struct fc_profile_ent {
    uint32_t sig;   /* fc_gemm_sig of the shape; FC_ATTN_SIG(id) for an attention call */
    uint32_t count; /* calls in a row with this shape (and this weight, if any) */
    uint64_t flops; /* of one call */
    uint8_t weight; /* bit 0: operand A is a weight, bit 1: operand B */
    uint8_t kind;   /* FC_IREC_GEMM, or FC_IREC_ATTN (its shape in count/attn_table.h) */
} fc_profile_ent;

enum fc_profile_state {
    FC_PROFILE_NONE = 0, /* no training forward labelled yet */
    FC_PROFILE_STEADY,   /* labelled with confirmed weights, and the forward before
                          * it ran the same GEMMs or the same FLOPs (experts routed
                          * differently): this one */
    FC_PROFILE_UNSTEADY, /* forwards kept changing; the latest one looked at */
    FC_PROFILE_WARMUP    /* only forwards labelled before weights were confirmed
                          * (the first three segments): the latest of them */
};

typedef struct fc_profile_view {
    int state;        /* enum fc_profile_state */
    uint64_t segment; /* which training forward (1 = the first) */
    uint64_t calls;   /* forward calls, all of them */
    fc_u128 flops;    /* their FLOPs */
    uint32_t n;       /* entries kept */
    int truncated;    /* calls beyond FC_PROFILE_CAP runs are not in ent */
    const fc_profile_ent *ent;
    uint64_t generation; /* changes whenever the profile does */
} fc_profile_view;

void fc_profile_reset(void);
/* A segment labelled by phase.c (its labels still readable), of kind
 * enum fc_seg_kind: the forward of a new training iteration is taken. (A
 * forward mislabelled by an unsure split does not fit the formula of the
 * model read off it, and the inference says so: analysis/infer.) */
void fc_profile_segment(const fc_pend *s, int kind);
void fc_profile_get(fc_profile_view *out);

#endif

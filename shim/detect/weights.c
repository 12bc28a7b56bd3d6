/* SPDX-License-Identifier: Apache-2.0 */
/* weights.c - the detector's weight table (weights.h): a bounded open
 * addressing table with a trust score per address, and the changes the
 * segment being labelled makes to it, kept so that a segment repeating it
 * can make them again without being labelled (phase.c, fc_phase_repeat).
 * Everything is bounded; nothing allocates. The table is mapped at the
 * process's first GEMM and its pages become resident as they are used. */
#include "weights.h"

#include <string.h>

#include "core/lazymem.h"
#include "irec.h"
#include "phase.h"

#define W_CAP (1u << 16)   /* weight candidates */
#define FWD_CAP FC_SEG_CAP /* weight uses of one forward kept for a repeat */

/* What a segment did to an entry (fc_went.ops). */
#define WOP_COUNT 1u  /* its first use agreed with the key: count + 1 */
#define WOP_LAST 2u   /* last_seg = the segment */
#define WOP_JUDGED 4u /* judged_seg = the segment (trust at its bound already) */
#define WOP_BWD 8u    /* bwd_seg = the segment */

int fc_weights_bootstrap = 1;

typedef struct wmem {
    fc_went wtab[W_CAP];
    uint32_t wlist[W_CAP];           /* slots ever used, in the order taken */
    fc_went *touched[W_CAP];         /* entries the recorded segment changed */
    const fc_went *fwd_uses[FWD_CAP]; /* weights its forward calls used */
} wmem;
static wmem *mem;
static uint32_t n_wlist, n_touched, n_fwd;
static uint32_t newest_seg; /* the last segment learned */
static uint32_t rec_seg;    /* the segment whose changes are recorded, 0: none */
static int rec_open;        /* ... learned and not labelled yet */
static int rec_changed;     /* ... and it changed how an entry is judged */

int fc_weights_init(void)
{
    if (mem == NULL && (mem = fc_mem_map(sizeof *mem)) == NULL)
        return -1;
    return 0;
}

void fc_weights_reset(void)
{
    fc_weights_bootstrap = 1;
    newest_seg = rec_seg = 0;
    n_wlist = n_touched = n_fwd = 0;
    rec_open = rec_changed = 0;
    if (mem != NULL)
        fc_mem_clear(mem, sizeof *mem);
}

fc_went *fc_weights_get(const void *p, int create)
{
    uint32_t i = fc_mix32((uint64_t)(uintptr_t)p);
    fc_went *victim = NULL;
    for (uint32_t probe = 0; probe < 16; probe++, i++) {
        fc_went *w = &mem->wtab[i & (W_CAP - 1)];
        if (w->addr == p)
            return w;
        if (w->addr == NULL) {
            victim = victim ? victim : w;
            break;
        }
        if (victim == NULL && w->count < 2 && w->last_seg + 4 <= newest_seg)
            victim = w; /* a one-off address seen long ago */
    }
    if (!create || victim == NULL)
        return NULL;
    if (victim->addr == NULL)
        mem->wlist[n_wlist++] = (uint32_t)(victim - mem->wtab);
    memset(victim, 0, sizeof *victim);
    victim->addr = p;
    rec_changed = 1; /* an entry created or taken over */
    return victim;
}

const fc_went *fc_weights_of(const void *p, uint32_t key)
{
    const fc_went *w = p ? fc_weights_get(p, 0) : NULL;
    if (w == NULL || w->notweight || w->count < 2 || FC_MAT(w->key) != FC_MAT(key))
        return NULL;
    if (w->trust < 0 || (w->trust == 0 && !fc_weights_bootstrap))
        return NULL;
    return w;
}

uint64_t fc_weights_count(void)
{
    uint64_t n = 0;
    for (uint32_t j = 0; j < n_wlist; j++) {
        const fc_went *w = &mem->wtab[mem->wlist[j]];
        if (w->addr && !w->notweight && w->count >= 2 && w->trust > 0)
            n++;
    }
    return n;
}

/* ---- changes of the segment being labelled ---- */

void fc_weights_segment_begin(uint32_t seg)
{
    newest_seg = seg;
    /* a segment learned before the one recorded was labelled: the changes
     * of the two interleave, neither can be repeated */
    rec_changed = rec_open;
    rec_open = 1;
    rec_seg = seg;
    n_touched = n_fwd = 0;
}

/* Notes that the recorded segment did op to w. */
static void did(fc_went *w, unsigned op)
{
    if (w->op_seg != rec_seg) {
        w->op_seg = rec_seg;
        w->ops = 0;
        if (n_touched == W_CAP)
            rec_changed = 1;
        else
            mem->touched[n_touched++] = w;
    }
    w->ops |= (uint8_t)op;
}

void fc_weights_written(fc_went *w)
{
    rec_changed |= !w->notweight;
    w->notweight = 1;
}

void fc_weights_first_use(fc_went *w, uint32_t key, uint32_t seg)
{
    if (w->notweight || w->last_seg == seg)
        return;
    if (w->count == 0 || w->key == key) {
        rec_changed |= w->count < 2; /* becomes a candidate, or one step nearer */
        w->key = key;
        if (w->count < 0xffff)
            w->count++;
        did(w, WOP_COUNT);
    } else if (w->count >= 2) {
        w->count--; /* a weight keeps its role through one odd segment */
        rec_changed = 1;
    } else {
        w->key = key;
        w->count = 1;
        rec_changed = 1;
    }
    w->last_seg = seg;
    did(w, WOP_LAST);
}

void fc_weights_judge(const void *p, uint32_t key, int fresh, uint32_t i, uint32_t t_bwd,
                      uint32_t seg)
{
    fc_went *w = fresh ? fc_weights_get(p, 0) : NULL;
    if (w == NULL || w->notweight || w->count < 2 || FC_MAT(w->key) != FC_MAT(key))
        return;
    if (i >= t_bwd) {
        rec_changed |= w->trust > -3;
        w->trust = (int8_t)(w->trust > -3 ? w->trust - 1 : -3);
    } else if (w->judged_seg != seg) {
        w->judged_seg = seg; /* agreement counts once a segment */
        rec_changed |= w->trust < 3;
        w->trust = (int8_t)(w->trust < 3 ? w->trust + 1 : 3);
        did(w, WOP_JUDGED);
    }
}

void fc_weights_bwd_use(fc_went *w, uint32_t seg)
{
    w->bwd_seg = seg;
    did(w, WOP_BWD);
}

void fc_weights_fwd_use(const fc_went *w)
{
    if (n_fwd == FWD_CAP)
        rec_changed = 1;
    else
        mem->fwd_uses[n_fwd++] = w;
}

int fc_weights_segment_end(uint32_t seg)
{
    int stable = rec_open && rec_seg == seg && !rec_changed && !fc_weights_bootstrap;
    rec_open = 0;
    if (!stable)
        rec_seg = 0, n_touched = n_fwd = 0;
    return stable;
}

uint64_t fc_weights_repeat(uint32_t seg, int group_open, uint32_t group_first)
{
    uint64_t redone = 0;
    /* the forward's uses come before any backward use of the segment */
    for (uint32_t j = 0; group_open && j < n_fwd; j++)
        redone += mem->fwd_uses[j]->bwd_seg >= group_first;
    newest_seg = seg;
    for (uint32_t j = 0; j < n_touched; j++) {
        fc_went *w = mem->touched[j];
        if ((w->ops & WOP_COUNT) && w->count < 0xffff)
            w->count++;
        if (w->ops & WOP_LAST)
            w->last_seg = seg;
        if (w->ops & WOP_JUDGED)
            w->judged_seg = seg;
        if (w->ops & WOP_BWD)
            w->bwd_seg = seg;
    }
    return redone;
}

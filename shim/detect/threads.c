/* SPDX-License-Identifier: Apache-2.0 */
/* threads.c - the launching thread as evidence of the phase (threads.h):
 * which threads issued the forward and which the backward of the training
 * segments labelled without doubt, and, once that parts them, where a
 * segment's backward starts and which side a call is on. A thread is the
 * ring its records came from (fc_irec.thread): a ring is one thread's
 * while that thread lives. Static and bounded; nothing allocates. */
#include "threads.h"

#include <string.h>

#include "segment.h"
#include "weights.h"

#define AGREE_NEEDED 2 /* sure training segments that part the phases before the threads count */

typedef struct tset {
    uint64_t w[4]; /* bit t: thread (ring) t, 0..254 */
} tset;

static tset fwd_threads, bwd_threads; /* threads seen in sure forwards, in sure backwards */
static int state, agreed;
static int applies; /* the evidence applies to the segment being labelled */
static uint64_t used_segments;

static int has(const tset *s, uint8_t t)
{
    return (s->w[t >> 6] >> (t & 63)) & 1u;
}

static void add(tset *s, uint8_t t)
{
    s->w[t >> 6] |= 1ull << (t & 63);
}

static int meet(const tset *a, const tset *b)
{
    for (int i = 0; i < 4; i++)
        if (a->w[i] & b->w[i])
            return 1;
    return 0;
}

void fc_threads_reset(void)
{
    memset(&fwd_threads, 0, sizeof fwd_threads);
    memset(&bwd_threads, 0, sizeof bwd_threads);
    state = FC_THR_OFF;
    agreed = applies = 0;
    used_segments = 0;
}

/* A GEMM (or counted attention call) of the detector's; *gpu: issued on a
 * GPU from a known thread. */
static int work(const fc_irec *r, int *gpu)
{
    if (r->flags & FC_IREC_XEVAL)
        return 0;
    if (r->kind == FC_IREC_GEMM)
        *gpu = (r->flags & FC_IREC_GPU) && r->thread != FC_THREAD_NONE;
    else if (r->kind == FC_IREC_ATTN)
        *gpu = r->thread != FC_THREAD_NONE;
    else
        return 0;
    return 1;
}

static void turn_off(void)
{
    if (state == FC_THR_ON)
        fc_weights_changed(); /* segments labelled with the threads repeat no more */
    state = FC_THR_CONTRADICTED;
}

int64_t fc_threads_boundary(const fc_pend *s, int64_t t_bwd, int declared, unsigned *unsure,
                            int *used)
{
    applies = 0;
    if (state != FC_THR_ON || declared)
        return t_bwd;
    int64_t t_thr = -1;
    for (uint64_t i = 0; i < s->end - s->start; i++) {
        const fc_irec *r = fc_seg_rec(s->start + i);
        int gpu = 0;
        if (!work(r, &gpu))
            continue;
        if (!gpu || !(has(&fwd_threads, r->thread) || has(&bwd_threads, r->thread)))
            return t_bwd; /* a CPU call, or a thread of neither side: not for this segment */
        if (t_thr < 0 && has(&bwd_threads, r->thread))
            t_thr = (int64_t)i;
    }
    const unsigned boundary = FC_UNSURE_EARLY_BWD | FC_UNSURE_HELD_BACK | FC_UNSURE_MFU;
    if (t_thr == 0 && t_bwd > 0)
        /* Its first call is the backward's thread's: no forward in it. A
         * segment cut at a checkpointed layer's recompute, its calls before
         * the backward recomputing it, runs all on autograd's thread; the
         * threads cannot tell where that recompute ends, so they decide
         * nothing here (a segment taken for a new forward anyway is
         * checked by fc_threads_learn) */
        return t_bwd;
    if (t_thr != t_bwd && !(*unsure & boundary)) {
        /* The calls alone placed the start without doubt, elsewhere: the
         * threads do not part the phases in this program (or not always) */
        turn_off();
        return t_bwd;
    }
    applies = 1;
    if (*unsure & boundary) {
        *unsure &= ~boundary;
        *used = 1;
    }
    return t_thr;
}

int fc_threads_side(const fc_irec *r)
{
    if (!applies)
        return FC_THR_UNKNOWN;
    return has(&bwd_threads, r->thread) ? FC_THR_BWD : FC_THR_FWD;
}

void fc_threads_learn(const fc_pend *s, int kind, int64_t t_bwd, unsigned unsure, int used)
{
    used_segments += used != 0;
    /* used: the threads changed its labels (otherwise they are the
     * automatic method's, which the threads may be checked against); a
     * doubt about where the backward starts teaches nothing */
    const unsigned boundary = FC_UNSURE_EARLY_BWD | FC_UNSURE_HELD_BACK | FC_UNSURE_TRUNCATED |
                              FC_UNSURE_LOST;
    if (state == FC_THR_CONTRADICTED || kind != FC_SEG_NEW || t_bwd < 0 || (unsure & boundary) ||
        used)
        return;
    tset f, b;
    memset(&f, 0, sizeof f);
    memset(&b, 0, sizeof b);
    for (uint64_t x = s->start; x < s->end; x++) {
        const fc_irec *r = fc_seg_rec(x);
        int gpu = 0;
        if (!work(r, &gpu))
            continue;
        if (!gpu || r->phase != FC_PH_NONE)
            return; /* CPU calls, a thread not known, declared phases: nothing to learn */
        int64_t i = (int64_t)(x - s->start);
        uint8_t c = fc_phase_class((uint64_t)i);
        /* sure: the forward before the start, the start itself; the rest
         * of the backward when nothing in the segment is in doubt (a
         * second forward or a recompute may be, otherwise) */
        if (i < t_bwd)
            add(&f, r->thread);
        else if (i == t_bwd || (unsure == 0 && (c == FC_CLS_BWD || c == FC_CLS_REC)))
            add(&b, r->thread);
    }
    for (int i = 0; i < 4; i++) {
        fwd_threads.w[i] |= f.w[i];
        bwd_threads.w[i] |= b.w[i];
    }
    if (meet(&f, &b) || meet(&fwd_threads, &bwd_threads)) {
        turn_off(); /* one thread ran forward and backward (CPU PyTorch does, always) */
        return;
    }
    if (state == FC_THR_OFF && ++agreed >= AGREE_NEEDED) {
        state = FC_THR_ON;
        fc_weights_changed(); /* segments labelled without the threads repeat no more */
    }
}

int fc_threads_state(void)
{
    return state;
}

uint64_t fc_threads_used(void)
{
    return used_segments;
}

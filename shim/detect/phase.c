/* SPDX-License-Identifier: Apache-2.0 */
/* phase.c - the labelling half of the detector (segment.c cuts the
 * stream): which addresses are weights, where a segment's backward starts,
 * and whether each call after it is backward or recompute. Method and
 * limits: docs/iterations.md.
 *
 * Addresses are tracked per segment in a generation-tagged table (no
 * clearing); weights across segments in weights.c's table, with a trust
 * score; a segment's labels go into a repeat slot (repeat.c), where a later
 * segment with the same records may take them. Everything is bounded;
 * nothing allocates. The tables are mapped at the process's first GEMM
 * (fc_phase_init) and their pages become resident as they are used. */
#include "phase.h"

#include <string.h>

#include "attn_label.h"
#include "core/lazymem.h"
#include "repeat.h"
#include "sigset.h"
#include "threads.h"
#include "weights.h"

#define ADDR_MAX (1u << 19) /* per-segment address table, at most */
#define NOROLE 0xffu

typedef struct aent {
    const void *addr;
    uint32_t gen, mat, first;
    uint8_t first_role, roles, fwd_roles, bwd_roles;
    uint8_t first_roles; /* roles of its first call (two for x times itself) */
    uint8_t written : 1;
    uint8_t rec_used : 1;  /* used the forward way in a recompute of this segment */
    uint8_t two_mats : 1;  /* held matrices of two shapes in this segment */
    uint8_t sliced : 1;    /* a slice of a batched product (an operand advancing by a stride) */
    uint8_t bwd_first : 1; /* first used by a backward call: a gradient */
} aent;

static aent *atab; /* ADDR_MAX entries, the first acap used this pass */
static uint32_t acap, agen;

static sigset *fwd_sigs, *seen_sigs; /* forward shapes without weights; shapes of this segment */
static uint8_t *conflict;      /* FC_SEG_CAP entries: NEWROLE, REUSED */
#define NEWROLE 1u /* the call uses a tensor in a role new to it (find_backward_auto) */
#define REUSED 2u  /* ... a tensor used before, the same way */
static uint8_t *cls, *weighted; /* labels of the segment being labelled or emitted: one slot's */

static inline uint32_t hash_ptr(const void *p)
{
    return fc_mix32((uint64_t)(uintptr_t)p);
}

/* ---- per-segment address table (generation-tagged: no clearing) ---- */

static uint32_t *alist, n_alist; /* entries created this pass (ADDR_MAX at most) */

static int rec_slot; /* the repeat slot being learned and labelled into */

/* All of the above in one mapping (fc_phase_init). */
typedef struct phase_mem {
    aent atab[ADDR_MAX];
    uint32_t alist[ADDR_MAX];
    sigset fwd_sigs, seen_sigs;
    uint8_t conflict[FC_SEG_CAP];
} phase_mem;
static phase_mem *mem;

int fc_phase_init(void)
{
    if (mem != NULL)
        return 0;
    if (fc_weights_init() != 0 || fc_repeat_init() != 0 || (mem = fc_mem_map(sizeof *mem)) == NULL)
        return -1;
    atab = mem->atab;
    alist = mem->alist;
    fwd_sigs = &mem->fwd_sigs;
    seen_sigs = &mem->seen_sigs;
    conflict = mem->conflict;
    cls = fc_repeat_classes(0);
    weighted = fc_repeat_weighted(0);
    fwd_sigs->gen = seen_sigs->gen = 1;
    return 0;
}

static void atab_begin(uint64_t nrec)
{
    uint64_t want = nrec * 6; /* up to three addresses a call, half full */
    n_alist = 0;
    acap = 256;
    while (acap < want && acap < ADDR_MAX)
        acap <<= 1;
    if (++agen == 0) { /* wrapped: old tags could alias */
        fc_mem_clear(atab, ADDR_MAX * sizeof *atab);
        agen = 1;
    }
}

/* The entry of p, created when absent (*fresh = 1); NULL when full. */
static aent *atab_get(const void *p, int *fresh)
{
    uint32_t i = hash_ptr(p);
    for (uint32_t probe = 0; probe < 64; probe++, i++) {
        aent *e = &atab[i & (acap - 1)];
        if (e->gen != agen) {
            *e = (aent){.addr = p, .gen = agen, .first_role = NOROLE};
            *fresh = 1;
            alist[n_alist++] = i & (acap - 1);
            return e;
        }
        if (e->addr == p) {
            *fresh = 0;
            return e;
        }
    }
    return NULL;
}

/* What note_use saw. */
#define USE_NEWROLE 1u /* p was seen before, never in this role */
#define USE_ODD 2u     /* p was seen before, and this is not a role of its first call */

/* Notes a use of p in role key k by call i (first use, roles seen). A
 * tensor used twice in one call (z z^T, X X) has both roles from its first
 * call: a forward that multiplies a tensor by itself is no backward. */
static unsigned note_use(aent *e, int fresh, uint32_t k, uint32_t i)
{
    if (fresh || e->mat != FC_MAT(k) || e->first_role == NOROLE) {
        int written = e->written && !fresh;
        int two_mats = !fresh && (e->two_mats || (e->mat != 0 && e->mat != FC_MAT(k)));
        int sliced = !fresh && e->sliced;
        uint32_t gen = e->gen;
        const void *p = e->addr;
        memset(e, 0, sizeof *e);
        e->gen = gen;
        e->addr = p;
        e->written = written;
        e->two_mats = two_mats;
        e->sliced = sliced;
        e->mat = FC_MAT(k);
        e->first = i;
        e->first_role = (uint8_t)FC_ROLE(k);
        e->roles = e->first_roles = (uint8_t)(1u << FC_ROLE(k));
        return 0;
    }
    uint8_t bit = (uint8_t)(1u << FC_ROLE(k));
    if (e->first == i) { /* the other operand of the same call */
        e->roles |= bit;
        e->first_roles |= bit;
        return 0;
    }
    unsigned seen = (e->roles & bit ? 0 : USE_NEWROLE) | (e->first_roles & bit ? 0 : USE_ODD);
    e->roles |= bit;
    return seen;
}

/* A GEMM wrote c: whatever tensor the address held is gone, so its next
 * use as an operand is a new tensor's (an allocator handing a freed block
 * on), not a saved one coming back in a new role. */
static void overwritten(const void *c)
{
    int fresh;
    aent *e = c ? atab_get(c, &fresh) : NULL;
    if (e == NULL)
        return;
    e->mat = 0;
    e->first_role = NOROLE;
    e->roles = e->fwd_roles = e->bwd_roles = 0;
}

/* ---- learning: first uses of a closed segment ---- */

/* Marks the operands of three consecutive calls of one shape whose A and
 * B both advance by constant strides: one batched product run as a call
 * per batch entry (CPU torch's bmm), its operands slices of activations
 * however stable their addresses, never weights (three same-shaped
 * Linears in a row share their input, so their B does not advance).
 * ea, eb: the entries of r's operands; run: the three calls before r were
 * such a triple (so p1's and p2's operands are marked already). 1 when r,
 * p1 and p2 are one. */
static int mark_slices(const fc_irec *r, const fc_irec *p1, const fc_irec *p2, aent *ea, aent *eb,
                       int run)
{
    if (p1 == NULL || p2 == NULL || r->sig != p1->sig || r->sig != p2->sig)
        return 0;
    intptr_t da = (intptr_t)r->a - (intptr_t)p1->a, db = (intptr_t)r->b - (intptr_t)p1->b;
    if (da == 0 || db == 0 || da != (intptr_t)p1->a - (intptr_t)p2->a ||
        db != (intptr_t)p1->b - (intptr_t)p2->b)
        return 0;
    if (run) { /* the triple before was one: only r's operands are new */
        if (ea != NULL)
            ea->sliced = 1;
        if (eb != NULL)
            eb->sliced = 1;
        return 1;
    }
    const void *ops[6] = {r->a, r->b, p1->a, p1->b, p2->a, p2->b};
    for (int i = 0; i < 6; i++) {
        int fresh;
        aent *e = ops[i] ? atab_get(ops[i], &fresh) : NULL;
        if (e != NULL && !fresh)
            e->sliced = 1;
    }
    return 1;
}

void fc_phase_learn(const fc_pend *s)
{
    rec_slot = fc_repeat_take_slot();
    fc_weights_segment_begin(s->id, rec_slot);
    atab_begin(s->end - s->start);
    const fc_irec *p1 = NULL, *p2 = NULL; /* the two calls before */
    int run = 0;                          /* they and the one before them were slices */
    for (uint64_t x = s->start; x < s->end; x++) {
        const fc_irec *r = fc_seg_rec(x);
        if (!fc_irec_is_call(r))
            continue;
        int fresh;
        aent *e, *ea = NULL, *eb = NULL;
        if (r->a && (ea = atab_get(r->a, &fresh)) != NULL)
            note_use(ea, fresh, r->ka, (uint32_t)(x - s->start));
        if (r->b && (eb = atab_get(r->b, &fresh)) != NULL)
            note_use(eb, fresh, r->kb, (uint32_t)(x - s->start));
        if (r->c && (e = atab_get(r->c, &fresh)) != NULL)
            e->written = 1;
        run = mark_slices(r, p1, p2, ea, eb, run);
        p2 = p1;
        p1 = r;
    }
    for (uint32_t x = 0; x < n_alist; x++) {
        aent *e = &atab[alist[x]];
        fc_went *w = fc_weights_get(e->addr, e->first_role != NOROLE && !e->written &&
                                                 !e->two_mats && !e->sliced);
        if (w == NULL)
            continue;
        if (e->written || e->sliced || e->two_mats) {
            /* A GEMM wrote it, or it held two shapes in one segment: it is
             * where activations come and go, however stable the address. */
            fc_weights_written(w);
            continue;
        }
        fc_weights_first_use(w, e->mat << 3 | e->first_role, s->id);
    }
}

/* ---- phase: where the backward starts ---- */

/* Index (relative) of the first backward call of s, or -1 when s has no
 * backward (an evaluation pass). Fills conflict[].
 *
 * The backward starts with the first call after the forward's last call
 * that reuses an address in a new role (a saved tensor feeding a gradient).
 * The forward's last call is the last one that could only be forward: a
 * shape new to the segment, on a tensor never seen, with no tensor reused in
 * a new role (a backward call always reuses a saved tensor; a recompute
 * repeats a shape). Looking only past it keeps an allocator that reuses a
 * freed activation's address inside a forward (no_grad, checkpoints) from
 * passing for a backward. */
static int64_t find_backward_auto(const fc_pend *s, unsigned *unsure);

/* The first call declared backward or recompute, -1: none; *declared: a
 * call's phase was declared at all. */
static int64_t declared_backward(const fc_pend *s, int *declared)
{
    int64_t first = -1;
    *declared = 0;
    for (uint64_t i = 0; i < s->end - s->start; i++) {
        const fc_irec *r = fc_seg_rec(s->start + i);
        if (!fc_irec_is_call(r) || r->phase == FC_PH_NONE)
            continue;
        *declared = 1;
        if (r->phase != FC_PH_FWD)
            return (int64_t)i;
    }
    return first;
}

/* Calls from here to the backward found are in doubt (a weight was used
 * the backward way before it): labelling judges no weight first used
 * there as agreeing, or a guess would confirm its own candidates (a loss
 * gradient at one address taken for a weight, and every later segment
 * running its forward on over the last layer's weight gradient). */
static int64_t doubt_from = INT64_MAX;

int64_t fc_phase_find_backward(const fc_pend *s, fc_seg_result *res)
{
    unsigned unsure = 0;
    int64_t t_bwd = find_backward_auto(s, &unsure); /* sets doubt_from */
    int64_t t_decl = declared_backward(s, &res->declared);
    /* the launching thread, where it tells the phases apart (threads.c) */
    t_bwd = fc_threads_boundary(s, t_bwd, res->declared, &unsure, &res->thread_used);
    if (res->declared) {
        doubt_from = INT64_MAX;
        return t_decl;
    }
    if (res->thread_used)
        doubt_from = INT64_MAX; /* the start is the threads', not in doubt */
    res->unsure |= unsure;
    return t_bwd;
}

static int64_t find_backward_auto(const fc_pend *s, unsigned *unsure)
{
    uint64_t n = s->end - s->start, last_fwd = 0, first_wbwd = 0;
    doubt_from = INT64_MAX;
    int64_t held_back = -1; /* last call an unconfirmed weight did not extend the forward over */
    int any_fwd = 0, bwd_started = 0;
    atab_begin(n);
    memset(conflict, 0, n);
    sig_clear(seen_sigs);
    for (uint64_t i = 0; i < n; i++) {
        const fc_irec *r = fc_seg_rec(s->start + i);
        if (!fc_irec_is_call(r))
            continue;
        const void *p[2] = {r->a, r->b};
        uint32_t k[2] = {r->ka, r->kb};
        int fresh_any = 0, weight_first = 0, unconfirmed_first = 0;
        int sure_bwd = 0; /* a confirmed weight in another role than its forward one */
        unsigned use = 0;
        for (int o = 0; o < 2; o++) {
            int fresh;
            aent *e = p[o] ? atab_get(p[o], &fresh) : NULL;
            if (e == NULL)
                continue;
            unsigned u = note_use(e, fresh, k[o], (uint32_t)i);
            use |= u;
            const fc_went *w = fc_weights_of(p[o], k[o]);
            /* any use of a proven weight the forward way, before one was
             * used the backward way: the forward is still going (a second
             * forward of the same layers, whose shapes are not new) */
            int wf = !bwd_started && fc_weights_proven(w) && w->key == k[o];
            if (!(u & USE_NEWROLE) && e->first != i)
                conflict[i] |= REUSED; /* a tensor used again the way it was */
            if (u & USE_NEWROLE) {
                conflict[i] |= NEWROLE;
                if (!bwd_started && w != NULL && w->key != k[o]) {
                    /* a weight's backward use: proven, or agreed with by
                     * the one labelled segment that used it so far (just
                     * after the first segments, a weight of a layer that
                     * only every other segment runs) */
                    bwd_started = 1;
                    first_wbwd = i;
                }
            } else if (e->first == i) {
                fresh_any = 1;
                /* after the backward started only a confirmed weight */
                wf |= fc_weights_proven(w) && w->key == k[o] &&
                      (!bwd_started || fc_weights_confirmed(w));
            }
            if (wf && fc_weights_confirmed(w))
                weight_first = 1;
            else if (wf)
                unconfirmed_first = 1;
            sure_bwd |= w != NULL && w->key != k[o] && fc_weights_confirmed(w);
        }
        /* A confirmed weight used another way than its forward one: the
         * call is a backward call (a weight is never freed, so its address
         * holds it), and whatever first use its other operand makes (a
         * gradient in the block of an activation whose address recurs,
         * passing for a weight: nanoGPT's train.py on the CPU, the MLP's
         * input gradient) extends no forward. */
        if (sure_bwd)
            weight_first = unconfirmed_first = 0;
        /* A weight not confirmed yet extends the forward only over a call
         * that reuses no tensor in a new role: a gradient that the
         * allocator puts at one address every step passes for a weight in
         * the first segments, and the call that first uses it (the last
         * layer's weight gradient, on its saved input) would keep the
         * forward going; the segments labelled so would then confirm it. */
        if (unconfirmed_first && !(use & (USE_NEWROLE | USE_ODD)))
            weight_first = 1;
        else if (unconfirmed_first && !weight_first)
            held_back = (int64_t)i;
        overwritten(r->c);
        /* Only forward: a shape new to the segment on a new tensor with no
         * tensor used in another role than at its first use (in a forward a
         * tensor keeps its role: an input shared by two layers is used the
         * same way twice; their two weight gradients use it another way,
         * the first as a new role, the second as one seen), or a proven
         * weight's first use (its shape may repeat an earlier layer's, and
         * the other operand may sit where a freed tensor was used another
         * way). Once a confirmed weight has been used the backward way
         * only the latter counts: a second forward after a first backward
         * (a GAN's discriminator run again) reuses layers, it runs no new
         * one. */
        int novel = !sig_has(seen_sigs, r->sig);
        if (novel)
            sig_add(seen_sigs, r->sig, (uint32_t)i);
        int frozen = bwd_started && !fc_weights_bootstrap;
        if ((!frozen && novel && fresh_any && !(use & USE_ODD)) || weight_first) {
            last_fwd = i;
            any_fwd = 1;
        }
    }
    int64_t t_bwd = -1;
    for (uint64_t i = any_fwd ? last_fwd + 1 : 0; i < n && t_bwd < 0; i++)
        if (conflict[i] & NEWROLE)
            t_bwd = (int64_t)i;
    /* A weight was used the backward way before the backward found: a
     * first backward went by as forward (only while weights are not
     * confirmed yet), or a forward used an activation that passed for a
     * weight in two ways. */
    if (bwd_started && (t_bwd < 0 || first_wbwd < (uint64_t)t_bwd)) {
        *unsure |= FC_UNSURE_EARLY_BWD;
        /* in doubt from the first call that reused a tensor in a new role
         * (the backward may have started there), or the weight's use */
        doubt_from = (int64_t)first_wbwd;
        for (uint64_t i = 0; i < first_wbwd; i++)
            if (conflict[i] & NEWROLE) {
                doubt_from = (int64_t)i;
                break;
            }
        /* Whether the doubt can move FLOPs into or out of recompute: if the
         * backward began at doubt_from, the calls from there to t_bwd
         * (labelled forward) are backward or recompute, and a recompute
         * uses again a tensor this segment used before in the same role (a
         * checkpointed layer's weight, kept Q, K, V). None does: they are
         * forward or backward, and MFU does not depend on which. */
        for (int64_t i = doubt_from; i < (t_bwd < 0 ? (int64_t)n : t_bwd); i++)
            if (conflict[i] & REUSED) {
                *unsure |= FC_UNSURE_MFU;
                break;
            }
    }
    /* The backward found starts where an unconfirmed weight was held back:
     * a gradient at a recurring address, or a weight whose layer's input
     * sits where a freed tensor was used another way. */
    if (held_back >= 0 && held_back == t_bwd)
        *unsure |= FC_UNSURE_HELD_BACK;
    return t_bwd;
}

/* ---- labels of the calls of one segment ---- */

/* The forward call a recompute replays next after position `at`: the next
 * call of the segment's forward, or -1. */
static int64_t next_forward_call(const fc_pend *s, int64_t at, uint32_t t_bwd)
{
    for (int64_t j = at + 1; j < (int64_t)t_bwd; j++)
        if (fc_irec_is_call(fc_seg_rec(s->start + (uint64_t)j)))
            return j;
    return -1;
}

/* Labelling state carried from call to call through a segment. */
typedef struct lstate {
    int64_t cursor;    /* the forward position a recompute is replaying, -1: none */
    int64_t run_start; /* where the recompute being replayed started, -1: none */
    int again;         /* a second forward (after a backward) is going on */
} lstate;

#define REPLAY_LOOK 4096          /* calls looked ahead for a replay */
static uint64_t no_replay_before; /* relative index: calls before it replay nothing */

/* 1 when the calls from `at` on repeat the forward from position `from`
 * (the same shapes in the same order, on the same weights) up to a forward
 * call of another shape than the first: a recompute running on into the
 * next product. */
static int replays_on(const fc_pend *s, uint64_t at, int64_t from, uint32_t t_bwd)
{
    if (at < no_replay_before)
        return 0;
    uint64_t n = s->end - s->start, j = at;
    int64_t f = from;
    uint32_t first = fc_seg_rec(s->start + at)->sig;
    for (int steps = 0; steps < REPLAY_LOOK && j < n && f >= 0; steps++) {
        const fc_irec *r = fc_seg_rec(s->start + j);
        if (!fc_irec_is_call(r)) {
            j++;
            continue;
        }
        const fc_irec *fr = fc_seg_rec(s->start + (uint64_t)f);
        uint32_t want = fr->sig;
        /* the same shape, and the same weight where the forward call had
         * one: a replay runs the same layers, not others of that shape */
        if (r->sig != want || (weighted[f] && r->a != fr->a && r->b != fr->b))
            break;
        if (want != first)
            return 1;
        j++;
        f = next_forward_call(s, f, t_bwd);
    }
    no_replay_before = j; /* the calls up to the break replay nothing either */
    return 0;
}

/* A call after the first backward call. e[o] is the running entry of
 * operand o, NULL when this is its first use in the segment. A weight only
 * counts as one when the segment used it before the backward started: an
 * address first seen in the backward is a gradient or a recomputed
 * activation, whatever it held in other segments. *cursor is the forward
 * position a recompute is replaying (-1: none). */
static uint8_t label_backward_call(const fc_pend *s, const fc_phase_ctx *ctx, uint64_t at,
                                   aent *const e[2], uint32_t t_bwd, fc_seg_result *res, lstate *st)
{
    /* declared backward: forward-looking calls are recompute, for sure */
    int in_bwd = fc_seg_rec(s->start + at)->phase == FC_PH_BWD;
    int64_t *cursor = &st->cursor;
    const fc_irec *r = fc_seg_rec(s->start + at);
    const void *p[2] = {r->a, r->b};
    uint32_t k[2] = {r->ka, r->kb};
    int fwd_weight = 0, bwd_weight = 0, reused_new_role = 0, reused[2] = {0, 0};
    int fab = 0;      /* an address passing for a weight, the forward way after its backward */
    int sure_fwd = 0; /* a confirmed weight in its forward role, not differentiated yet */
    int sure_bwd = 0; /* a confirmed weight in another role than its forward one */
    int again = 0;    /* a weight in its forward role after its backward use */
    int64_t replayed = -1;
    for (int o = 0; o < 2; o++) {
        if (p[o] == NULL)
            continue;
        int seen = e[o] != NULL && e[o]->mat == FC_MAT(k[o]) && e[o]->first_role != NOROLE;
        if (p[o] == ctx->anchor_p && FC_MAT(k[o]) == FC_MAT(ctx->anchor_k) && k[o] != ctx->anchor_k)
            res->anchor_bwd = 1;
        fc_went *w = seen && e[o]->first < t_bwd ? (fc_went *)fc_weights_of(p[o], k[o]) : NULL;
        if (w != NULL &&
            (e[o]->first_role != FC_ROLE(w->key) || (e[o]->fwd_roles & ~(1u << FC_ROLE(w->key)))))
            w = NULL; /* not used in this forward the one way it was elsewhere */
        if (w != NULL && w->key == k[o] && e[o]->bwd_roles &&
            (fc_weights_bootstrap || !fc_weights_confirmed(w)) && !in_bwd) {
            /* Its forward role again after its backward use, and not a
             * confirmed weight: an activation at an address that passes
             * for one (freed after its backward, the block reused), or the
             * first segments, where nothing is confirmed. Judged as no
             * weight, and the segment is unsure (below). */
            fab = 1;
            w = NULL;
        }
        if (w != NULL) {
            if (w->key != k[o])
                bwd_weight = 1, sure_bwd |= fc_weights_confirmed(w), fc_weights_bwd_use(w, s->id);
            else if (e[o]->bwd_roles)
                again = e[o]->rec_used ? 2 : 1;
            else
                fwd_weight = 1, replayed = e[o]->first, sure_fwd |= fc_weights_confirmed(w);
            continue;
        }
        if (seen && e[o]->bwd_roles && (e[o]->fwd_roles & (1u << FC_ROLE(k[o]))) &&
            e[o]->first < t_bwd) {
            /* A saved activation is freed once its backward used it: the
             * tensor now at its address in its forward role is a new one
             * (a gradient of the same shape, say), not the activation
             * being recomputed. */
            e[o]->first_role = NOROLE;
            continue;
        }
        if (seen && e[o]->fwd_roles && !(e[o]->fwd_roles & (1u << FC_ROLE(k[o])))) {
            if (e[o]->bwd_roles && !(e[o]->bwd_roles & (1u << FC_ROLE(k[o])))) {
                /* A saved tensor is gone once its backward used it; a third
                 * role means a new tensor in the freed block. */
                e[o]->first_role = NOROLE;
                continue;
            }
            reused_new_role = reused[o] = 1;
        }
    }
    int thr = fc_threads_side(r);
    if (thr == FC_THR_FWD) {
        /* the forward's thread, after the backward started: a second
         * forward (a GAN's discriminator run again), never a recompute */
        res->thread_used = 1;
        st->again = 1;
        st->run_start = *cursor = -1;
        return FC_CLS_FWD;
    }
    /* Unsure unless the other operand is a confirmed weight whose backward
     * has not come yet: then the call runs its layer's forward again (a
     * recompute) whatever the address passing for a weight holds (a
     * checkpointed block's input, recomputed into the block it had). Nor
     * when the other operand is a confirmed weight used the backward way:
     * the call is that layer's input gradient whatever the address holds
     * (a gradient the allocator put in the freed block of an activation
     * whose address recurs across steps: in nanoGPT's train.py, the
     * GELU's input gradient where its output was, or the gradient of the
     * last LayerNorm's output in that output's block). */
    if (fab && !(sure_fwd && !bwd_weight) && !sure_bwd)
        res->unsure |= FC_UNSURE_FWD_AFTER_BWD;
    int64_t expect = *cursor >= 0 ? next_forward_call(s, *cursor, t_bwd) : -1;
    *cursor = -1;
    if (bwd_weight) {
        st->again = 0;
        st->run_start = -1;
        return FC_CLS_BWD;
    }
    if (again && in_bwd) {
        *cursor = -1;
        return FC_CLS_REC;
    }
    if (again) {
        /* A weight used the forward way after its backward in the same
         * segment: a second forward before a second backward (a GAN's
         * discriminator run again for the generator's loss), or a
         * checkpointed module applied twice being recomputed for its
         * second use. The GEMMs cannot tell which: recompute when this
         * weight was recomputed before in the segment, forward otherwise,
         * and the segment is marked unsure either way. */
        res->unsure |= FC_UNSURE_FWD_AFTER_BWD;
        if (again == 2 || thr == FC_THR_BWD) { /* no second forward on the backward's thread */
            *cursor = -1;
            return FC_CLS_REC;
        }
        st->again = 1;
        /* The "recompute" this call continues began with weights not yet
         * differentiated: it was the start of the same second forward. */
        for (int64_t j = st->run_start; j >= 0 && j < (int64_t)at; j++)
            if (cls[j] == FC_CLS_REC)
                cls[j] = FC_CLS_FWD;
        st->run_start = -1;
        return FC_CLS_FWD;
    }
    if (thr == FC_THR_BWD && st->again) {
        st->again = 0; /* the backward's thread: the second forward is over */
        res->thread_used = 1;
    }
    if (st->again) { /* the second forward goes on until a backward use */
        if (!reused_new_role)
            return FC_CLS_FWD;
        st->again = 0;
        return FC_CLS_BWD;
    }
    if (fwd_weight) {
        if (expect < 0)
            st->run_start = (int64_t)at;
        *cursor = replayed;
        return FC_CLS_REC;
    }
    /* A recompute replays the forward in order: a call without weights
     * that repeats the next forward call's shape continues it, even when
     * the allocator handed it an address another tensor used. */
    if (expect >= 0 && fc_seg_rec(s->start + (uint64_t)expect)->sig == r->sig) {
        *cursor = expect;
        for (int o = 0; o < 2; o++)
            if (reused[o]) /* so a new tensor there: forget the old one's roles */
                e[o]->first_role = NOROLE;
        return FC_CLS_REC;
    }
    if (reused_new_role)
        return FC_CLS_BWD; /* a saved activation feeding a gradient */
    if (!sig_has(fwd_sigs, r->sig))
        return FC_CLS_BWD;
    /* A call without weights that repeats a forward product, nothing
     * reused in a new role: the start of a recompute (selective: QK^T
     * again, then attention times V) when the calls after it go on
     * replaying the forward into another product; a lone repeat is a
     * backward product that happens to have a forward one's shape and
     * roles (the gradient of x x^T times x looks like softmax(x x^T)
     * times x), and the segment is marked unsure. */
    for (int o = 0; o < 2; o++)
        if (p[o] != NULL && e[o] != NULL && e[o]->bwd_first && e[o]->mat == FC_MAT(k[o]) &&
            e[o]->first_role != NOROLE && !(e[o]->roles & (1u << FC_ROLE(k[o])))) {
            /* a gradient (first used by the backward) in a second role: a
             * backward product, however much it looks like a forward one */
            res->unsure |= FC_UNSURE_LONE_REPEAT;
            return FC_CLS_BWD;
        }
    int64_t slot = sig_find(seen_sigs, r->sig);
    int64_t from = slot >= 0 && seen_sigs->pos[slot] < t_bwd ? (int64_t)seen_sigs->pos[slot] : -1;
    if (from < 0 || !replays_on(s, at, from, t_bwd)) {
        res->unsure |= FC_UNSURE_LONE_REPEAT;
        return FC_CLS_BWD;
    }
    *cursor = from;
    return FC_CLS_REC;
}

/* Records the use in the running table (after labelling). */
static void track(aent *e, int fresh, uint32_t k, uint32_t i, uint8_t c)
{
    if (e == NULL)
        return;
    uint8_t bit = (uint8_t)(1u << FC_ROLE(k));
    /* In a forward a tensor has one role; a new one is a new tensor the
     * allocator put where a freed one was. */
    if (c == FC_CLS_FWD && !(e->roles & bit) && e->first != i)
        e->first_role = NOROLE;
    if (fresh || e->mat != FC_MAT(k) || e->first_role == NOROLE) {
        note_use(e, fresh, k, i);
        e->fwd_roles = e->bwd_roles = 0;
        e->bwd_first = c == FC_CLS_BWD;
    } else {
        e->roles |= bit;
    }
    if (c == FC_CLS_FWD || c == FC_CLS_REC)
        e->fwd_roles |= bit;
    if (c == FC_CLS_REC)
        e->rec_used = 1;
    else if (c == FC_CLS_BWD && e->fwd_roles && !(e->fwd_roles & bit))
        e->bwd_roles |= bit;
}

void fc_phase_label(const fc_pend *s, const fc_phase_ctx *ctx, int64_t t_bwd, fc_seg_result *res)
{
    uint64_t n = s->end - s->start;
    lstate st = {-1, -1, 0};
    no_replay_before = 0;
    cls = fc_repeat_classes(rec_slot);
    weighted = fc_repeat_weighted(rec_slot);
    atab_begin(n);
    for (uint64_t i = 0; i < n; i++) {
        const fc_irec *r = fc_seg_rec(s->start + i);
        weighted[i] = 0;
        if (r->kind != FC_IREC_GEMM) {
            cls[i] = r->kind == FC_IREC_ATTN ? fc_attn_class(r, (int64_t)i, t_bwd, res->declared)
                                              : FC_CLS_MARK;
            continue;
        }
        if (r->flags & FC_IREC_XEVAL) {
            cls[i] = FC_CLS_XEVAL;
            continue;
        }
        int fa = 0, fb = 0;
        aent *ea = r->a ? atab_get(r->a, &fa) : NULL;
        aent *eb = r->b ? atab_get(r->b, &fb) : NULL;
        uint8_t c;
        if (r->phase == FC_PH_FWD) {
            c = FC_CLS_FWD;
        } else if (r->phase == FC_PH_REC) {
            c = FC_CLS_REC;
        } else if (r->phase == FC_PH_BWD && (r->flags & FC_IREC_RECDECL)) {
            c = FC_CLS_BWD; /* its recomputation is declared apart */
        } else if (t_bwd < 0) {
            c = res->declared ? FC_CLS_FWD : FC_CLS_EVAL;
        } else if ((int64_t)i < t_bwd) {
            c = FC_CLS_FWD;
            const fc_went *w[2] = {fc_weights_of(r->a, r->ka), fc_weights_of(r->b, r->kb)};
            weighted[i] = (uint8_t)((w[0] ? 1 : 0) | (w[1] ? 2 : 0));
            for (int o = 0; o < 2; o++) {
                if (w[o] == NULL)
                    continue;
                fc_weights_fwd_use(w[o]);
                if (ctx->group_open && w[o]->bwd_seg >= ctx->group_first)
                    res->fwd_redone++;
            }
            if (!weighted[i] && sig_add(fwd_sigs, r->sig, 0))
                fc_weights_changed(); /* a backward call of this shape may read otherwise now */
        } else {
            aent *const e[2] = {fa ? NULL : ea, fb ? NULL : eb};
            c = label_backward_call(s, ctx, i, e, (uint32_t)t_bwd, res, &st);
        }
        cls[i] = c;
        if (t_bwd >= 0 && ((int64_t)i < doubt_from || (int64_t)i >= t_bwd)) {
            if (r->a)
                fc_weights_judge(r->a, r->ka, fa, (uint32_t)i, (uint32_t)t_bwd, s->id);
            if (r->b)
                fc_weights_judge(r->b, r->kb, fb, (uint32_t)i, (uint32_t)t_bwd, s->id);
        }
        track(ea, fa, r->ka, (uint32_t)i, c);
        track(eb, fb, r->kb, (uint32_t)i, c);
        overwritten(r->c);
    }
    res->has_bwd = t_bwd >= 0 || res->declared;
    fc_repeat_labelled(rec_slot, s, t_bwd, res);
}

int64_t fc_phase_repeat(const fc_pend *s, const fc_phase_ctx *ctx, fc_seg_result *res)
{
    int64_t t_bwd = fc_repeat_take(s->repeat_of, s, ctx, res);
    cls = fc_repeat_classes(s->repeat_of);
    weighted = fc_repeat_weighted(s->repeat_of);
    return t_bwd;
}

uint8_t fc_phase_class(uint64_t rel)
{
    return cls[rel];
}

uint8_t fc_phase_weighted(uint64_t rel)
{
    return weighted[rel];
}

void fc_phase_set_bootstrap(int on)
{
    fc_weights_bootstrap = on;
}

int fc_phase_bootstrapping(void)
{
    return fc_weights_bootstrap;
}

uint64_t fc_phase_weights(void)
{
    return fc_weights_count();
}

void fc_phase_reset(void)
{
    agen = 0;
    n_alist = 0;
    rec_slot = 0;
    fc_threads_reset();
    fc_repeat_reset();
    fc_weights_reset();
    if (mem == NULL)
        return; /* nothing mapped, nothing used */
    fc_mem_clear(mem, sizeof *mem);
    fwd_sigs->gen = seen_sigs->gen = 1;
}

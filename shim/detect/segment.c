/* SPDX-License-Identifier: Apache-2.0 */
/* segment.c - the automatic iteration detector, first half: cutting the
 * GEMM stream into segments and deciding what each is (method and limits:
 * docs/iterations.md; phase.c labels the calls inside a segment).
 *
 * Anchor: the weight of the first forward GEMM (the A operand of the first
 * call, once it comes back in the same role). Each time it comes back a new
 * segment starts: one forward, with a backward when there is one. Segments
 * wait in a bounded buffer until the first three are in (weights are
 * learned from how addresses recur across them), then are labelled, in
 * order, as soon as they close. A segment with no backward is an evaluation
 * pass; one whose backward reaches weights the previous segment had not
 * reached yet (the first layer was recomputed, which repeats the anchor)
 * continues that iteration; any other starts a new one.
 *
 * Everything is bounded; nothing allocates. The records wait in
 * seg_buf.c's ring, mapped at the process's first GEMM (fc_seg_init). */
#include "segment.h"

#include <string.h>

#include "core/base.h"
#include "phase.h"
#include "profile.h"
#include "repeat.h"
#include "seg_buf.h"
#include "steps.h"
#include "threads.h"

#define MAX_PEND 16
#define NCAND 16
#define LEARN_SEGMENTS 3

static uint64_t head, tail, open_start;
static uint64_t last_call_end; /* index + 1 of the latest call; 0 before any */
static int open_after_step;    /* the open segment was opened by a step marker */
static fc_pend pending[MAX_PEND];
static int n_pend;
static uint32_t next_id = 1;
static int learned;
static int new_segments; /* segments that started an iteration (FC_SEG_NEW) */

static struct cand {
    const void *p;
    uint32_t k;
    uint64_t at; /* buffer index of the candidate call */
} cand_a[NCAND], cand_b[NCAND];
static uint64_t anchor_first; /* where the anchor was first seen */
static uint8_t a_hit[NCAND];
static int n_cand, b_hit = -1;
static int anchored;
static const void *anchor_p;
static uint32_t anchor_k;
static int anchor_slot; /* 0: A operand, 1: B operand */

/* Repeats: a segment whose records (shapes, addresses, roles, declared
 * phases) are those of one of the last four segments labelled in full is
 * labelled as that one was (fc_phase_repeat), when what labelling that one
 * read stands as it did: a training loop whose allocator hands out the
 * same blocks every step costs one pass over its calls per step (four: an
 * iteration may be two unlike segments, when the first layer is
 * recomputed, with an evaluation pass between two). */
static int repeat_on = 1;

/* The labelling state of the iteration in progress (auto mode). */
static int group_open, group_anchor_bwd;
static uint32_t group_first;
static fc_seg_stats stats;

static inline const fc_irec *rec_at(uint64_t idx)
{
    return fc_segbuf_at(idx);
}

int fc_seg_init(void)
{
    if (fc_segbuf_map() != 0)
        return -1;
    return fc_phase_init() == 0 && fc_steps_init() == 0 ? 0 : -1;
}

static inline int is_call(const fc_irec *r)
{
    return fc_irec_is_call(r);
}

/* ---- deciding what a labelled segment is, and handing it on ---- */

/* Shapes of the forward of the segment that opened the iteration in
 * progress, in order: a segment whose forward repeats only a beginning of
 * them is the first layers recomputed in the middle of its backward. */
#define GROUP_SIGS 16384
static uint32_t group_sigs[GROUP_SIGS];
static uint32_t n_group_sigs;

/* 1 when the calls of s before t_bwd repeat, shape for shape, a proper
 * beginning of the iteration's first forward. */
static int forward_is_prefix(const fc_pend *s, int64_t t_bwd)
{
    uint32_t n = 0;
    for (int64_t i = 0; i < t_bwd; i++) {
        const fc_irec *r = rec_at(s->start + (uint64_t)i);
        if (!is_call(r))
            continue;
        if (n >= n_group_sigs || n >= GROUP_SIGS || group_sigs[n] != r->sig)
            return 0;
        n++;
    }
    return n > 0 && n < n_group_sigs;
}

static void keep_group_sigs(const fc_pend *s, int64_t t_bwd)
{
    n_group_sigs = 0;
    group_first = 0;
    for (int64_t i = 0; i < t_bwd && n_group_sigs < GROUP_SIGS; i++) {
        const fc_irec *r = rec_at(s->start + (uint64_t)i);
        if (is_call(r))
            group_sigs[n_group_sigs++] = r->sig;
    }
}

static int decide_kind(const fc_pend *s, int64_t t_bwd, const fc_seg_result *res)
{
    if (!res->has_bwd)
        return FC_SEG_EVAL;
    if (!group_open || group_anchor_bwd)
        return FC_SEG_NEW;
    if (res->anchor_bwd)
        return FC_SEG_CONT; /* the anchor's own backward was still to come */
    /* The anchor weight has no backward use to go by (a first layer whose
     * input needs no gradient): the segment continues the iteration when
     * its forward is only the first layers of the iteration's forward
     * again (recomputed), not all of it, on weights the iteration has not
     * differentiated yet (a GAN's generator run again for its own loss
     * repeats a beginning too, but its discriminator was differentiated). */
    return forward_is_prefix(s, t_bwd) && res->fwd_redone == 0 ? FC_SEG_CONT : FC_SEG_NEW;
}

/* FC_UNSURE_MFU when a doubt of s (labelled, of kind `kind`) can move
 * FLOPs into or out of recompute. A lone repeat (backward or recompute), a
 * forward after a backward (forward or recompute), a cut segment can;
 * where the forward ends can, when the segment is a continuation (its
 * forward calls are the first layer's recompute) or labelled recompute
 * somewhere (the forward held back: what came after it, recompute
 * included, may be forward), or when the backward may have begun earlier
 * over calls that could replay the forward (phase.c sets the bit then).
 * Otherwise such a doubt moves FLOPs between forward and backward only. */
static unsigned mfu_doubt(const fc_pend *s, int kind, unsigned unsure)
{
    if (unsure & (FC_UNSURE_LONE_REPEAT | FC_UNSURE_FWD_AFTER_BWD | FC_UNSURE_TRUNCATED |
                  FC_UNSURE_LOST | FC_UNSURE_MFU))
        return FC_UNSURE_MFU;
    if (!(unsure & (FC_UNSURE_EARLY_BWD | FC_UNSURE_HELD_BACK)))
        return 0;
    if (kind == FC_SEG_CONT)
        return FC_UNSURE_MFU;
    for (uint64_t x = s->start; x < s->end; x++)
        if (fc_phase_class(x - s->start) == FC_CLS_REC)
            return FC_UNSURE_MFU;
    return 0;
}

static void emit(const fc_pend *s)
{
    fc_seg_result res = {0};
    if (s->after_step)
        group_open = 0; /* the optimizer step ended the iteration: nothing to continue */
    fc_phase_ctx ctx = {anchor_p, anchor_k, group_open, group_first};
    int64_t t_bwd;
    if (s->repeat_of >= 0) {
        t_bwd = fc_phase_repeat(s, &ctx, &res);
        stats.repeated++;
    } else {
        uint64_t redone = s->check_of >= 0 ? fc_repeat_check_redone(&ctx) : 0;
        t_bwd = fc_phase_find_backward(s, &res);
        if (s->truncated)
            res.unsure |= FC_UNSURE_TRUNCATED;
        fc_phase_label(s, &ctx, t_bwd, &res);
        if (s->check_of >= 0) {
            stats.repeat_checks++;
            stats.repeat_mismatches += fc_repeat_check_end(s, t_bwd, &res, redone) != 0;
        }
    }
    int kind = decide_kind(s, t_bwd, &res);
    if (kind == FC_SEG_EVAL) {
        group_open = 0;
    } else if (kind == FC_SEG_NEW) {
        keep_group_sigs(s, t_bwd);
        group_open = 1;
        group_first = s->id;
        group_anchor_bwd = res.anchor_bwd;
    } else {
        group_anchor_bwd |= res.anchor_bwd;
    }
    res.unsure |= mfu_doubt(s, kind, res.unsure);
    fc_threads_learn(s, kind, t_bwd, res.unsure, res.thread_used);
    fc_steps_segment_begin(kind, s->t0, res.unsure);
    for (uint64_t x = s->start; x < s->end; x++) {
        uint8_t c = fc_phase_class(x - s->start);
        if (kind == FC_SEG_CONT && c == FC_CLS_FWD && rec_at(x)->phase != FC_PH_FWD)
            c = FC_CLS_REC; /* the first layer recomputed before its backward */
        fc_steps_record(rec_at(x), c);
    }
    fc_profile_segment(s, kind);
    /* With the anchor's backward done the iteration cannot continue, so it
     * can be closed now rather than at the next segment. */
    fc_steps_segment_end(s->t1, kind != FC_SEG_EVAL && group_anchor_bwd, s->at_end);
    stats.segments++;
    /* The first segments label with every candidate taken for a weight,
     * until LEARN_SEGMENTS iterations have started: each has judged the
     * weights of its whole forward by then (counting segments instead, an
     * iteration of two segments and an evaluation pass left most weights
     * judged once: neither confirmed nor taken, and the next forward ran
     * on into the backward) */
    if (kind == FC_SEG_NEW && ++new_segments >= LEARN_SEGMENTS)
        fc_phase_set_bootstrap(0);
    stats.truncated += s->truncated;
    tail = s->end;
}

static void emit_pending(int force)
{
    if (!force && learned < LEARN_SEGMENTS)
        return;
    for (int i = 0; i < n_pend; i++)
        emit(&pending[i]);
    n_pend = 0;
}

/* A hash of what labelling reads from the records of s. */
static uint64_t content_hash(const fc_pend *s)
{
    const uint64_t m = 0x9e3779b97f4a7c15ull;
    uint64_t h = s->end - s->start;
    for (uint64_t x = s->start; x < s->end; x++) {
        const fc_irec *r = rec_at(x);
        h = (h ^ (uint64_t)(uintptr_t)r->a) * m;
        h = (h ^ (uint64_t)(uintptr_t)r->b) * m;
        h = (h ^ (uint64_t)(uintptr_t)r->c) * m;
        h = (h ^ ((uint64_t)r->sig | (uint64_t)r->ka << 32)) * m;
        h = (h ^ ((uint64_t)r->kb | (uint64_t)r->kind << 32 | (uint64_t)r->flags << 40 |
                  (uint64_t)r->phase << 48 | (uint64_t)r->thread << 56)) * m;
        h ^= h >> 29;
    }
    return h;
}

void fc_seg_set_repeat(int mode)
{
    repeat_on = mode;
}

/* Closes the open segment at index `at` (exclusive); t1 is when the next
 * one starts. */
static void close_open(uint64_t at, uint64_t t1, int truncated, int at_end)
{
    uint64_t x = open_start;
    while (x < at && !is_call(rec_at(x)))
        x++;
    if (x == at)
        return; /* markers only: they open the next segment */
    if (n_pend == MAX_PEND)
        emit_pending(1);
    fc_pend *s = &pending[n_pend++];
    s->start = open_start;
    s->end = at;
    s->id = next_id++;
    s->t0 = rec_at(open_start)->t;
    s->t1 = t1;
    s->truncated = (uint8_t)truncated;
    s->at_end = (uint8_t)at_end;
    s->after_step = (uint8_t)open_after_step;
    open_after_step = 0;
    open_start = at;
    s->hash = repeat_on ? content_hash(s) : 0;
    /* labelled at once, after the segments it may repeat */
    s->repeat_of = s->check_of = -1;
    if (repeat_on && n_pend == 1 && learned >= LEARN_SEGMENTS)
        s->repeat_of = (int8_t)fc_repeat_find(s);
    if (repeat_on == FC_REPEAT_CHECK && s->repeat_of >= 0) {
        s->check_of = s->repeat_of; /* labelled in full, and compared */
        s->repeat_of = -1;
        fc_repeat_check_begin(s);
    }
    if (s->repeat_of < 0)
        fc_phase_learn(s);
    learned++;
    emit_pending(0);
}

static int matches(const fc_irec *r, const void *p, uint32_t k, int slot)
{
    return slot == 0 ? (r->a == p && r->ka == k) : (r->b == p && r->kb == k);
}

/* Splits the open segment at every occurrence of the anchor but its
 * first: calls before the first one (a stray GEMM, a warm-up) stay in the
 * first segment rather than passing for an evaluation pass. */
static void split_open(void)
{
    uint64_t end = head;
    for (uint64_t x = open_start + 1; x < end; x++) {
        const fc_irec *r = rec_at(x);
        if (x != anchor_first && is_call(r) && matches(r, anchor_p, anchor_k, anchor_slot))
            close_open(x, r->t, 0, 0);
    }
}

static void set_anchor(const struct cand *c, int slot)
{
    const void *p = c->p;
    uint32_t k = c->k;
    anchor_first = c->at;
    anchored = 1;
    stats.anchor = 1;
    anchor_p = p;
    anchor_k = k;
    anchor_slot = slot;
}

/* Before the anchor is known: the first NCAND calls are candidates. The
 * first call's A operand wins as soon as it recurs in the same role (torch
 * and cuBLAS callers pass a Linear's weight as A); a later candidate only
 * when the first never recurs (a stray GEMM before training), since an
 * activation's address can recur within one iteration. */
static void search_anchor(const fc_irec *r)
{
    for (int j = 0; j < n_cand; j++) {
        if (r->a == cand_a[j].p && r->ka == cand_a[j].k) {
            if (j == 0) {
                set_anchor(&cand_a[0], 0);
                return;
            }
            a_hit[j] = 1;
        }
        if (b_hit < 0 && r->b == cand_b[j].p && r->kb == cand_b[j].k)
            b_hit = j;
    }
    if (n_cand < NCAND && r->a != NULL) {
        cand_a[n_cand].p = r->a;
        cand_a[n_cand].k = r->ka;
        cand_a[n_cand].at = head;
        cand_b[n_cand].p = r->b;
        cand_b[n_cand].k = r->kb;
        cand_b[n_cand].at = head;
        a_hit[n_cand] = 0;
        n_cand++;
    }
}

/* The first candidate never came back: take the earliest that did. */
static int settle_anchor(void)
{
    for (int j = 1; j < n_cand; j++)
        if (a_hit[j]) {
            set_anchor(&cand_a[j], 0);
            return 1;
        }
    if (b_hit >= 0) {
        set_anchor(&cand_b[b_hit], 1);
        return 1;
    }
    return 0;
}

static uint64_t last_t(void)
{
    return head > tail ? rec_at(head - 1)->t : 0;
}

/* The class of a record handed on without labelling (no GEMM of the
 * detector's around it): markers as markers, GEMMs bracketed by
 * flopcount_eval_begin/end as evaluation, and an attention call by its
 * kernel - forward or backward - unless it was bracketed too. */
static uint8_t uncut_class(const fc_irec *r)
{
    if (!fc_irec_counted(r))
        return FC_CLS_MARK;
    if (r->flags & FC_IREC_XEVAL)
        return FC_CLS_XEVAL;
    if (r->kind == FC_IREC_ATTN)
        return (r->flags & FC_IREC_ATTN_BWD) ? FC_CLS_BWD : FC_CLS_FWD;
    return FC_CLS_MARK;
}

/* Hands the open records [open_start, head) to steps.c as they are. */
static void hand_over_open(void)
{
    for (uint64_t x = open_start; x < head; x++)
        fc_steps_record(rec_at(x), uncut_class(rec_at(x)));
    tail = open_start = head;
}

static void make_room(void)
{
    if (n_pend > 0) {
        emit_pending(1);
        if (head - tail < FC_SEG_CAP)
            return;
    }
    close_open(head, last_t(), 1, 0); /* one segment fills the buffer: cut it */
    emit_pending(1);
    /* Nothing closed: the buffer holds no GEMM of the detector's, only
     * markers, bracketed evaluation and attention calls (a program of
     * fused attention alone): hand them on, so the buffer never stays
     * full (each push would scan it again, and the next would overwrite
     * its oldest record). */
    if (head - tail >= FC_SEG_CAP && n_pend == 0)
        hand_over_open();
    if (!anchored) { /* look for an anchor afresh */
        n_cand = 0;
        b_hit = -1;
    }
}

static int xeval_depth; /* inside flopcount_eval_begin/end */

/* When the open segment holds no call of the detector's (only markers and
 * GEMMs bracketed by flopcount_eval_begin/end) and no segment waits before
 * it, it needs no labelling: hand it to steps.c as it is. */
static void hand_over_uncut(void)
{
    if (n_pend > 0 || last_call_end > open_start)
        return;
    hand_over_open();
}

/* The phase the program declares: its last forward/backward marker (until
 * flopcount_step), recompute brackets, and the NVTX phase ranges open. */
static uint8_t mark_phase, nvtx_phase;
static int rec_depth, rec_declared; /* rec_declared: a recompute marker or range was seen */

static void note_phase(const fc_irec *r)
{
    if (r->kind == FC_IREC_STEP) {
        mark_phase = FC_PH_NONE;
        rec_depth = 0;
    } else if (r->kind == FC_IREC_NVTX_PHASE) {
        nvtx_phase = r->phase;
        rec_declared |= r->phase == FC_PH_REC;
    } else if (r->phase == FC_PH_REC) {
        rec_depth++;
        rec_declared = 1;
    } else if (r->phase == FC_PH_REC_END) {
        rec_depth -= rec_depth > 0;
    } else {
        mark_phase = r->phase;
    }
}

/* The phase of a call now: a recompute bracket; else the NVTX ranges (a
 * forward range inside a marked backward is a recompute); else the
 * markers. */
static uint8_t declared_phase(void)
{
    if (rec_depth > 0)
        return FC_PH_REC;
    if (nvtx_phase == FC_PH_FWD && mark_phase == FC_PH_BWD)
        return FC_PH_REC;
    return nvtx_phase != FC_PH_NONE ? nvtx_phase : mark_phase;
}

void fc_seg_push(const fc_irec *in)
{
    if (FC_UNLIKELY(fc_segbuf_rec == NULL) && fc_seg_init() != 0)
        return; /* nothing could be mapped (the ring layer said so) */
    fc_irec rec = *in;
    const fc_irec *r = &rec;
    if (rec.kind == FC_IREC_EVAL_BEGIN)
        xeval_depth++;
    else if (rec.kind == FC_IREC_EVAL_END && xeval_depth > 0)
        xeval_depth--;
    else if (fc_irec_counted(&rec) && xeval_depth > 0)
        rec.flags |= FC_IREC_XEVAL;
    if (rec.kind == FC_IREC_STEP || rec.kind == FC_IREC_PHASE || rec.kind == FC_IREC_NVTX_PHASE)
        note_phase(&rec);
    else if (fc_irec_counted(&rec)) {
        rec.phase = declared_phase();
        if (rec_declared)
            rec.flags |= FC_IREC_RECDECL;
    }
    if (head - tail >= fc_segbuf_cap && !fc_segbuf_grow(tail, head))
        make_room();
    if (is_call(r)) {
        if (!anchored) {
            search_anchor(r);
            if (!anchored && head - open_start >= FC_SEG_CAP / 2)
                settle_anchor();
            if (anchored)
                split_open();
        }
        if (anchored && head > open_start && matches(r, anchor_p, anchor_k, anchor_slot))
            close_open(head, r->t, 0, 0);
    }
    *fc_segbuf_at(head) = rec;
    head++;
    if (is_call(r))
        last_call_end = head;
    /* flopcount_step() ends an iteration: the segment ends with it rather
     * than at the next forward, and a bracketed evaluation pass after it is
     * handed on at its end, so a reader (the live line, a snapshot) sees
     * them as soon as the marker is drained. */
    if (rec.kind == FC_IREC_STEP && anchored && last_call_end > open_start) {
        close_open(head, rec.t, 0, 0);
        open_after_step = 1;
    }
    else if (rec.kind == FC_IREC_EVAL_END && xeval_depth == 0)
        hand_over_uncut();
}

void fc_seg_flush(void)
{
    if (!anchored && settle_anchor())
        split_open();
    close_open(head, last_t(), 0, 1);
    emit_pending(1);
    hand_over_uncut(); /* markers and bracketed evaluation after the last segment */
    fc_steps_finish();
}

void fc_seg_reset(void)
{
    fc_segbuf_reset();
    head = tail = open_start = last_call_end = 0;
    open_after_step = 0;
    n_pend = 0;
    next_id = 1;
    learned = new_segments = 0;
    fc_phase_reset();
    fc_profile_reset();
    n_cand = 0;
    b_hit = -1;
    anchored = 0;
    anchor_p = NULL;
    anchor_k = 0;
    group_open = group_anchor_bwd = 0;
    n_group_sigs = 0;
    group_first = 0;
    xeval_depth = 0;
    mark_phase = nvtx_phase = FC_PH_NONE;
    rec_depth = rec_declared = 0;
    memset(&stats, 0, sizeof stats);
}

void fc_seg_stats_get(fc_seg_stats *out)
{
    *out = stats;
    out->weights = fc_phase_weights();
}

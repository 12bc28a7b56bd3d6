/* SPDX-License-Identifier: Apache-2.0 */
/* steps.c - iterations from labelled segments and markers, four ways at
 * once: automatic (a segment of kind NEW starts one), flopcount_step()
 * markers (one ends at each marker), NVTX step ranges (push to pop) and
 * optimizer steps (one ends with each run of optimizer kernels the launch
 * layer saw, FC_IREC_OPTIM). The report shows the best the program gave:
 * markers, else NVTX, else optimizer steps, else automatic. Each iteration
 * counts the micro-batches in it (training forwards: segments of kind
 * NEW). Evaluation passes are counted apart and their time is taken out of
 * the iteration they fall in; but a marked step (flopcount_step, an NVTX
 * step range) whose GEMMs were all forward is a forward-only iteration:
 * its passes are moved out of evaluation into it when it ends. The lists of iterations are mapped at
 * the process's first GEMM (fc_steps_init) and grow in pages with the
 * iterations stored. */
#include "steps.h"

#include <string.h>

#include "core/clock.h"
#include "core/lazymem.h"
#include "dtype.h"
#include "segment.h"

#define LIST_CAP 16384
#define RECENT 64 /* the last iterations, for the live line past LIST_CAP */

typedef struct mode_state {
    int open;
    fc_iteration cur;
    uint64_t count, stored;
    fc_u128 fwd, bwd, rec, xs, other;
    uint64_t unsure, unsure_mfu;
    unsigned unsure_bits;
    uint64_t fwd_only;           /* forward-only iterations finished */
    /* the open iteration's evaluation-labelled work (marker and NVTX
     * modes): its own if it ends without a training call */
    struct {
        uint64_t calls, passes, ticks;
        fc_u128 flops, by_dtype[FC_DT_COUNT];
    } fo;
    fc_eval_view moved;          /* evaluation made forward-only iterations */
    fc_iteration *list;          /* LIST_CAP entries, in lists (NULL: not mapped) */
    fc_iteration recent[RECENT]; /* iteration i (1-based) at [(i - 1) % RECENT] */
} mode_state;

#define NMODES (FC_MODE_LAST + 1)
static mode_state modes[NMODES]; /* indexed by enum fc_steps_mode */
static fc_iteration *lists; /* modes[m].list = lists + m * LIST_CAP */
static int seg_kind = -1;   /* kind of the segment being received */
static uint64_t seg_t0, last_t;
static int seg_has_eval;
static unsigned seg_unsure; /* FC_UNSURE_* of the segment being received */
static int lost_seen;
static unsigned phase_sources;
static uint64_t train_calls, declared_calls;
static int marker_seen, nvtx_seen, nvtx_depth, xeval_depth;
static uint64_t eval_since, xeval_since; /* start of the evaluation being timed, 0 if none */
/* Optimizer steps: optim_t is the last FC_IREC_OPTIM record's time while
 * no counted call has come after it and the step it belongs to has not
 * ended the iteration yet (0: none). */
static uint64_t optim_t, optim_steps;
static int micro_pending; /* a segment of kind NEW began, its first training call not yet seen */
static fc_eval_view eval;
static fc_u128 by_dtype[FC_DT_COUNT];
static fc_u128 by_dtype_closed[FC_DT_COUNT]; /* by_dtype when an iteration last finished */

double fc_iteration_seconds(const fc_iteration *it)
{
    uint64_t span = it->t1 > it->t0 ? it->t1 - it->t0 : 0;
    return fc_ticks_seconds(span > it->excluded ? span - it->excluded : 0);
}

int fc_steps_init(void)
{
    if (lists == NULL && (lists = fc_mem_map(NMODES * LIST_CAP * sizeof *lists)) == NULL)
        return -1;
    for (int m = 0; m < NMODES; m++)
        modes[m].list = lists + m * LIST_CAP;
    return 0;
}

void fc_steps_reset(void)
{
    memset(modes, 0, sizeof modes);
    fc_mem_clear(lists, NMODES * LIST_CAP * sizeof *lists);
    if (lists != NULL)
        fc_steps_init();
    seg_kind = -1;
    seg_t0 = last_t = 0;
    seg_has_eval = 0;
    seg_unsure = 0;
    lost_seen = 0;
    phase_sources = 0;
    train_calls = declared_calls = 0;
    marker_seen = nvtx_seen = nvtx_depth = xeval_depth = 0;
    eval_since = xeval_since = 0;
    optim_t = optim_steps = 0;
    micro_pending = 0;
    memset(&eval, 0, sizeof eval);
    memset(by_dtype, 0, sizeof by_dtype);
    memset(by_dtype_closed, 0, sizeof by_dtype_closed);
}

int fc_steps_mode(void)
{
    if (marker_seen)
        return FC_MODE_MARKER;
    if (nvtx_seen)
        return FC_MODE_NVTX;
    if (optim_steps > 0 || optim_t > 0)
        return FC_MODE_OPTIM;
    return FC_MODE_AUTO;
}

static void open_iter(int mode, uint64_t t0)
{
    mode_state *m = &modes[mode];
    memset(&m->cur, 0, sizeof m->cur);
    memset(&m->fo, 0, sizeof m->fo);
    m->cur.t0 = t0;
    m->open = 1;
}

/* A marked step without a training call whose GEMMs were found to be
 * evaluation (no backward): a forward-only iteration of them. Its time is
 * its own again, its passes no longer evaluation. Once the mode has a
 * training iteration, an evaluation-only step after it (evaluate() marked
 * off by a flopcount_step() of its own) stays evaluation passes, as before:
 * a training run's medians are over training steps. */
static void take_forward_only(int mode)
{
    mode_state *m = &modes[mode];
    if (m->cur.calls != 0 || m->fo.calls == 0 || (mode != FC_MODE_MARKER && mode != FC_MODE_NVTX) ||
        m->count > m->fwd_only)
        return;
    m->cur.fwd = m->fo.flops;
    m->cur.calls = m->fo.calls;
    m->cur.micro = (uint32_t)m->fo.passes;
    m->cur.excluded = m->cur.excluded > m->fo.ticks ? m->cur.excluded - m->fo.ticks : 0;
    m->cur.fwd_only = 1;
    m->fwd_only++;
    m->moved.count += m->fo.passes;
    m->moved.flops = fc_u128_sat_add(m->moved.flops, m->fo.flops);
    m->moved.ticks += m->fo.ticks;
    if (mode == fc_steps_mode())
        for (int d = 0; d < FC_DT_COUNT; d++)
            by_dtype[d] = fc_u128_sat_add(by_dtype[d], m->fo.by_dtype[d]);
}

/* Ends the open iteration of mode at t1. Marker intervals without a single
 * GEMM are not iterations (flopcount_step called twice, or before any
 * work). */
static void close_iter(int mode, uint64_t t1, int open_end)
{
    mode_state *m = &modes[mode];
    if (!m->open)
        return;
    m->open = 0;
    take_forward_only(mode);
    if (m->cur.calls == 0)
        return;
    m->cur.t1 = t1;
    m->cur.open_end = open_end;
    /* the passes in the stream before its end, not those counted by the time
     * a reader looks (TensorBoard's eval_passes of this step) */
    m->cur.evals = eval.count;
    m->fwd = fc_u128_sat_add(m->fwd, m->cur.fwd);
    m->bwd = fc_u128_sat_add(m->bwd, m->cur.bwd);
    m->rec = fc_u128_sat_add(m->rec, m->cur.rec);
    m->xs = fc_u128_sat_add(m->xs, m->cur.xs);
    if (m->cur.unsure) {
        m->unsure++;
        m->unsure_mfu += (m->cur.unsure & FC_UNSURE_MFU) != 0;
        m->unsure_bits |= m->cur.unsure;
    }
    if (m->list != NULL && m->stored < LIST_CAP)
        m->list[m->stored++] = m->cur;
    m->recent[m->count % RECENT] = m->cur;
    m->count++;
    if (mode == fc_steps_mode()) /* in stream order: no call of the next iteration yet */
        memcpy(by_dtype_closed, by_dtype, sizeof by_dtype);
}

/* Evaluation time inside the open iterations is not theirs (found:
 * evaluation the detector found, which a forward-only step takes back). */
static void exclude(uint64_t from, uint64_t to, int found)
{
    if (to <= from)
        return;
    for (int mode = FC_MODE_AUTO; mode <= FC_MODE_LAST; mode++)
        if (modes[mode].open) {
            modes[mode].cur.excluded += to - from;
            modes[mode].fo.ticks += found ? to - from : 0;
        }
}

/* An optimizer step was seen (optim_t) and what comes now starts a new
 * forward or an evaluation pass: the optimizer-step iteration ends with the
 * step's last kernel. Optimizer kernels followed by a counted call (more of
 * the backward, an optimizer run per parameter inside it; a second forward
 * in the same segment, a GAN's discriminator step before the generator's;
 * _foreach_* kernels in a forward) were cleared by that call
 * (fc_steps_record): the iteration ends at the run after the last call
 * before the next training forward. */
static void end_optim_step(void)
{
    if (optim_t == 0)
        return;
    close_iter(FC_MODE_OPTIM, optim_t, 0);
    open_iter(FC_MODE_OPTIM, optim_t);
    optim_t = 0;
    optim_steps++;
}

void fc_steps_segment_begin(int kind, uint64_t t0, unsigned unsure)
{
    seg_kind = kind;
    seg_t0 = t0;
    seg_has_eval = 0;
    seg_unsure = unsure;
    if (kind != FC_SEG_CONT)
        end_optim_step();
    if (kind != FC_SEG_CONT)
        close_iter(FC_MODE_AUTO, t0, 0);
    if (kind == FC_SEG_EVAL) {
        eval_since = t0;
        return;
    }
    if (!modes[FC_MODE_AUTO].open)
        open_iter(FC_MODE_AUTO, t0);
    if (!modes[FC_MODE_MARKER].open)
        open_iter(FC_MODE_MARKER, t0);
    if (!modes[FC_MODE_OPTIM].open)
        open_iter(FC_MODE_OPTIM, t0);
    micro_pending = kind == FC_SEG_NEW;
}

/* The first training call of a segment that starts a training forward:
 * one more micro-batch in the iterations open in every mode (an NVTX step
 * range pushed before it, in the same segment, included). */
static void note_micro_batch(void)
{
    if (!micro_pending)
        return;
    micro_pending = 0;
    for (int mode = FC_MODE_AUTO; mode <= FC_MODE_LAST; mode++)
        modes[mode].cur.micro += modes[mode].open;
}

/* A call the detector found to be evaluation: the open marked steps keep
 * it aside, theirs if they end without a training call. The first such
 * call opens the marker mode's first step, as a training call does. */
static void note_found_eval(const fc_irec *r)
{
    if (!modes[FC_MODE_MARKER].open)
        open_iter(FC_MODE_MARKER, r->t);
    for (int mode = FC_MODE_MARKER; mode <= FC_MODE_NVTX; mode++) {
        mode_state *m = &modes[mode];
        if (!m->open)
            continue;
        m->fo.calls++;
        m->fo.passes += !seg_has_eval; /* the segment's first: one pass */
        m->fo.flops = fc_u128_sat_add(m->fo.flops, r->flops);
        unsigned d = r->dtype % FC_DT_COUNT;
        m->fo.by_dtype[d] = fc_u128_sat_add(m->fo.by_dtype[d], r->flops);
    }
}

static void add_flops(fc_iteration *it, int cls, const fc_irec *r)
{
    fc_u128 *slot = cls == FC_CLS_FWD ? &it->fwd : cls == FC_CLS_BWD ? &it->bwd : &it->rec;
    *slot = fc_u128_sat_add(*slot, r->flops);
    if (cls == FC_CLS_BWD)
        it->xs = fc_u128_sat_add(it->xs, r->xs);
    it->calls++;
}

static void on_marker(const fc_irec *r)
{
    switch (r->kind) {
    case FC_IREC_STEP:
        marker_seen = 1;
        if (eval_since) { /* an evaluation pass runs across the marker */
            exclude(eval_since, r->t, 1);
            eval_since = r->t;
        }
        close_iter(FC_MODE_MARKER, r->t, 0);
        open_iter(FC_MODE_MARKER, r->t);
        break;
    case FC_IREC_EVAL_BEGIN:
        if (xeval_depth++ == 0) {
            xeval_since = r->t;
            eval.count++;
        }
        break;
    case FC_IREC_EVAL_END:
        if (xeval_depth > 0 && --xeval_depth == 0) {
            exclude(xeval_since, r->t, 0);
            eval.ticks += r->t - xeval_since;
            xeval_since = 0;
        }
        break;
    case FC_IREC_NVTX_PUSH:
        nvtx_seen = 1;
        if (nvtx_depth++ == 0)
            open_iter(FC_MODE_NVTX, r->t);
        break;
    case FC_IREC_PHASE:
        phase_sources |= FC_PHASES_MARKERS;
        break;
    case FC_IREC_NVTX_PHASE:
        phase_sources |= FC_PHASES_NVTX;
        break;
    case FC_IREC_LOST: /* the open iterations (or evaluation) miss calls */
        lost_seen = 1;
        if (xeval_depth > 0 || seg_kind == FC_SEG_EVAL)
            eval.unsure++;
        for (int mode = FC_MODE_AUTO; mode <= FC_MODE_LAST; mode++)
            if (modes[mode].open)
                modes[mode].cur.unsure |= FC_UNSURE_LOST | FC_UNSURE_MFU;
        break;
    case FC_IREC_NVTX_POP:
        if (nvtx_depth > 0 && --nvtx_depth == 0)
            close_iter(FC_MODE_NVTX, r->t, 0);
        break;
    case FC_IREC_OPTIM: /* a run of them is one step; it ends at the last */
        optim_t = r->t ? r->t : 1;
        break;
    default:
        break;
    }
}

void fc_steps_record(const fc_irec *r, int cls)
{
    last_t = r->t > last_t ? r->t : last_t;
    if (!fc_irec_counted(r)) {
        on_marker(r);
        return;
    }
    /* Optimizer-like kernels followed by a GEMM or attention call were no
     * optimizer step: _foreach_* kernels in a forward or a loss (an EMA, a
     * sum of losses), the runs an optimizer-in-backward hook launches
     * between backward calls. A step is a run after the last call. */
    optim_t = 0;
    if (cls == FC_CLS_EVAL || cls == FC_CLS_XEVAL) {
        eval.flops = fc_u128_sat_add(eval.flops, r->flops);
        if (cls == FC_CLS_EVAL)
            note_found_eval(r);
        seg_has_eval |= cls == FC_CLS_EVAL;
        return;
    }
    by_dtype[r->dtype % FC_DT_COUNT] = fc_u128_sat_add(by_dtype[r->dtype % FC_DT_COUNT], r->flops);
    train_calls++;
    declared_calls += r->phase != FC_PH_NONE;
    note_micro_batch();
    for (int mode = FC_MODE_AUTO; mode <= FC_MODE_LAST; mode++) {
        mode_state *m = &modes[mode];
        if (m->open) {
            add_flops(&m->cur, cls, r);
            m->cur.unsure |= seg_unsure;
        }
        else
            m->other = fc_u128_sat_add(m->other, r->flops);
    }
}

void fc_steps_segment_end(uint64_t t1, int group_final, int at_end)
{
    if (seg_kind == FC_SEG_EVAL) {
        if (seg_has_eval)
            eval.count++;
        if (seg_has_eval && seg_unsure)
            eval.unsure++;
        if (eval_since) {
            exclude(eval_since, t1, 1);
            eval.ticks += t1 - seg_t0;
        }
        eval_since = 0;
    } else if (group_final || at_end) {
        close_iter(FC_MODE_AUTO, t1, at_end);
    }
    seg_kind = -1;
}

void fc_steps_finish(void)
{
    close_iter(FC_MODE_AUTO, last_t, 1);
    end_optim_step(); /* the stream ended after an optimizer step */
    for (int mode = FC_MODE_MARKER; mode <= FC_MODE_LAST; mode++) {
        mode_state *m = &modes[mode];
        if (m->open) { /* work after the last marker: no iteration of its own */
            m->other = fc_u128_sat_add(m->other,
                                       fc_u128_sat_add(m->cur.fwd, fc_u128_sat_add(m->cur.bwd, m->cur.rec)));
            m->open = 0;
        }
    }
}

void fc_steps_get(int mode, fc_steps_view *out)
{
    memset(out, 0, sizeof *out);
    out->mode = mode;
    if (mode < FC_MODE_AUTO || mode > FC_MODE_LAST)
        return;
    const mode_state *m = &modes[mode];
    out->count = m->count;
    out->stored = m->stored;
    out->list = m->list;
    out->fwd = m->fwd;
    out->bwd = m->bwd;
    out->rec = m->rec;
    out->xs = m->xs;
    out->unsure = m->unsure;
    out->unsure_mfu = m->unsure_mfu;
    out->unsure_bits = m->unsure_bits;
    out->lost = lost_seen;
    out->train_calls = train_calls;
    out->declared_calls = declared_calls;
    out->phase_sources = phase_sources;
    out->optim_steps = optim_steps;
    out->fwd_only = m->fwd_only;
}

void fc_steps_eval(fc_eval_view *out)
{
    *out = eval;
    const fc_eval_view *mv = &modes[fc_steps_mode()].moved;
    out->count = out->count > mv->count ? out->count - mv->count : 0;
    out->flops = out->flops > mv->flops ? out->flops - mv->flops : 0;
    out->ticks = out->ticks > mv->ticks ? out->ticks - mv->ticks : 0;
}

fc_u128 fc_steps_other(int mode)
{
    return mode >= FC_MODE_AUTO && mode <= FC_MODE_LAST ? modes[mode].other : 0;
}

int fc_steps_dominant_dtype(void)
{
    int best = FC_DT_UNKNOWN;
    for (int d = 1; d < FC_DT_COUNT; d++)
        if (by_dtype[d] > by_dtype[best])
            best = d;
    return best;
}

void fc_steps_by_dtype(fc_u128 *out)
{
    memcpy(out, by_dtype_closed, sizeof by_dtype_closed);
}

int fc_steps_iteration(int mode, uint64_t index, fc_iteration *out)
{
    if (mode < FC_MODE_AUTO || mode > FC_MODE_LAST || index == 0)
        return -1;
    const mode_state *m = &modes[mode];
    if (index <= m->stored) {
        *out = m->list[index - 1];
        return 0;
    }
    if (index > m->count || m->count - index >= RECENT)
        return -1;
    *out = m->recent[(index - 1) % RECENT];
    return 0;
}

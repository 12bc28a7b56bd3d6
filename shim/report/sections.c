/* SPDX-License-Identifier: Apache-2.0 */
/* sections.c - the report sections about iterations: "iterations",
 * "eval_passes", "recompute", "utilization" (+ "utilization_reason") and
 * "callsites" in the JSON, and their lines in the stderr summary. Field
 * meanings: docs/iterations.md and docs/report-schema.md; the figures
 * (medians, steady iterations, peak, HFU/MFU) are figures.c's. Static
 * buffers only. */
#include "sections.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "callsites.h"
#include "gpu_sections.h"
#include "core/clock.h"
#include "core/options.h"
#include "detect/segment.h"
#include "detect/steps.h"
#include "detect/threads.h"
#include "dtype.h"
#include "figures.h"
#include "inferred.h"
#include "nullgpu_note.h"
#include "probe/gputime.h"
#include "probe/grouped_log.h"
#include "rate.h"
#include "schema_iter.h"
#include "profile_json.h"
#include "ring/ring.h"
#include "stats.h"

#define MAX_LIST FC_FIGURES_MAX_LIST

/* GPU time per stored iteration (gputime.c), -1 where there is none. */
typedef struct gpu_view {
    int ok;            /* GPU figures can be given */
    char reason[240];  /* why not */
    uint64_t n;        /* steady iterations with a GPU figure */
    double median_seconds;
} gpu_view;

static double gpu_secs[MAX_LIST], gpu_sorted[MAX_LIST];

/* GPU seconds of the stored iterations and their steady-state median, over
 * the same iterations as the figures' medians (those with a GPU figure). */
static void gpu_of(const fc_steps_view *v, int final, int interrupted, gpu_view *g)
{
    memset(g, 0, sizeof *g);
    g->ok = fc_gputime_prepare(final, interrupted, g->reason, sizeof g->reason) == 0;
    if (!g->ok)
        return;
    uint64_t stored = v->stored < MAX_LIST ? v->stored : MAX_LIST, from, to;
    for (uint64_t i = 0; i < stored; i++)
        if (fc_gputime_span(v->list[i].t0, v->list[i].t1, &gpu_secs[i]) != 0)
            gpu_secs[i] = -1;
    fc_figures_steady_range(v, stored, &from, &to);
    for (uint64_t i = from; i < to; i++)
        if (gpu_secs[i] >= 0)
            gpu_sorted[g->n++] = gpu_secs[i];
    if (g->n > 0)
        g->median_seconds = fc_median_double(gpu_sorted, g->n);
}

static const char *mode_name(int mode, uint64_t count)
{
    switch (mode) {
    case FC_MODE_MARKER: return "marker";
    case FC_MODE_NVTX: return "nvtx";
    case FC_MODE_OPTIM: return "optimizer";
    default: return count ? "auto" : "none";
    }
}

/* What the iterations are: "training" (a backward in each), "forward-only"
 * (marked steps whose GEMMs were all forward: inference, evaluation, a
 * benchmark loop), "mixed"; NULL without iterations. */
static const char *iter_kind(const fc_steps_view *v)
{
    if (v->count == 0)
        return NULL;
    return v->fwd_only == 0 ? "training" : v->fwd_only == v->count ? "forward-only" : "mixed";
}

static void method_text(int mode, char *out, size_t size)
{
    if (mode == FC_MODE_MARKER)
        snprintf(out, size, "flopcount_step() markers: one iteration ends at each call");
    else if (mode == FC_MODE_NVTX)
        snprintf(out, size, "NVTX ranges named '%.64s': one iteration from push to pop", fc_opt.nvtx_step);
    else if (mode == FC_MODE_OPTIM)
        snprintf(out, size, "optimizer steps: one iteration ends with each run of optimizer "
                            "kernels launched (its micro-batches counted in micro_batches)");
    else
        snprintf(out, size, "automatic: the first forward GEMM's weight recurring starts an "
                            "iteration (one forward and backward: a micro-batch if the program "
                            "accumulates gradients); forward, backward and recompute told apart by "
                            "how weights are used");
}

/* What an iteration is next to the optimizer step: "may be" a micro-batch
 * (automatic: no marker, no optimizer kernel seen, and the GEMMs do not
 * show gradient accumulation), "no" (an optimizer step, or what the
 * program marks as a step); NULL without iterations. */
static const char *micro_batch(const fc_steps_view *v)
{
    if (v->count == 0)
        return NULL;
    return v->mode == FC_MODE_AUTO ? "may be" : "no";
}

static const char *thread_state_name(int st)
{
    return st == FC_THR_ON ? "on" : st == FC_THR_CONTRADICTED ? "contradicted" : "off";
}

/* ---- how sure the forward / backward / recompute split is ---- */

/* One sentence per FC_UNSURE_* bit (segment.h), in bit order. */
static const char *const unsure_text[FC_UNSURE_COUNT] = {
    "a backward product had the shape and operand roles of a forward one, alone: backward or "
    "recompute cannot be told from the GEMMs",
    "weights were used the forward way again after their backward in one step (a second forward, "
    "as in a GAN, or a module used twice and recomputed): forward or recompute cannot be told",
    "weights were used the backward way before the backward the detector found (a backward then a "
    "second forward in one step, while the weights were not confirmed yet)",
    "a segment longer than the detector's buffer was cut",
    "GEMM records were lost to the detector (more threads than rings, or a ring that stayed full: "
    "the totals are exact), or a grouped call's sizes read from the device did not land in time "
    "(listed uncounted): the iterations miss those calls",
    "the backward was found to start at a call using an address not yet confirmed as a weight (a "
    "gradient the allocator keeps at one address, or a weight whose input reuses a freed block): "
    "where the forward ends cannot be told",
};

static void unsure_reason(unsigned bits, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int b = 0; b < FC_UNSURE_COUNT; b++)
        if (bits >> b & 1u) {
            int k = snprintf(out + n, size - n, "%s%s", n ? "; " : "", unsure_text[b]);
            if (k < 0 || (size_t)k >= size - n)
                return;
            n += (size_t)k;
        }
}

/* What would make the split exact, given what the program declares
 * already; NULL when nothing would (records lost, a cut segment). */
static const char *advice(unsigned bits, unsigned sources)
{
    if (!(bits & (FC_UNSURE_LONE_REPEAT | FC_UNSURE_FWD_AFTER_BWD | FC_UNSURE_EARLY_BWD |
                  FC_UNSURE_HELD_BACK)))
        return NULL;
    if (sources == 0)
        return "declare the phases: flopcount_forward_begin() before each forward and "
               "flopcount_backward_begin() before each backward (flopcount_recompute_begin/end "
               "around recomputation), or NVTX ranges named forward, backward, recompute "
               "(docs/iterations.md)";
    if (!(bits & FC_UNSURE_LONE_REPEAT))
        return "declare every forward and backward (calls outside declared phases were left to the "
               "detector)";
    return "declare recomputation too: flopcount_recompute_begin/end or an NVTX range named "
           "recompute around the function a checkpoint runs again";
}

static const char *split_name(const fc_steps_view *v)
{
    if (v->declared_calls == 0)
        return "automatic";
    return v->declared_calls == v->train_calls ? "declared" : "partly declared";
}

static const char *sources_name(unsigned sources)
{
    switch (sources) {
    case FC_PHASES_MARKERS: return "markers";
    case FC_PHASES_NVTX: return "nvtx";
    case FC_PHASES_MARKERS | FC_PHASES_NVTX: return "markers+nvtx";
    default: return "none";
    }
}

static unsigned unsure_bits(const fc_steps_view *v)
{
    return v->unsure_bits | (v->lost ? FC_UNSURE_LOST : 0u);
}

static void write_split(fc_jw *w, const fc_steps_view *v)
{
    unsigned bits = unsure_bits(v);
    fc_jw_str(w, "split", split_name(v));
    fc_jw_str(w, "phase_markers", sources_name(v->phase_sources));
    fc_jw_u64(w, "ambiguous_iterations", v->unsure);
    fc_jw_u64(w, "ambiguous_recompute_iterations", v->unsure_mfu);
    fc_jw_arr_begin(w, "ambiguous_reasons");
    for (int b = 0; b < FC_UNSURE_COUNT; b++)
        if (bits >> b & 1u)
            fc_jw_str(w, NULL, unsure_text[b]);
    fc_jw_arr_end(w);
    fc_jw_str(w, "advice", v->unsure ? advice(bits, v->phase_sources) : NULL);
}

/* One stored iteration as its list entry (analysis/run/schema_iter.h),
 * with the experts' load in it: its grouped GEMM calls whose group sizes
 * are known (probe/grouped_log.h; docs/moe.md; absent when none). Returns
 * the rows to leave out. */
static unsigned iter_entry(const fc_iteration *it, uint64_t i, const gpu_view *g, char *why,
                           size_t why_size, fc_report_iter *e)
{
    fc_grouped_span s;
    fc_grouped_log_span(it->t0, it->t1, &s);
    memset(e, 0, sizeof *e);
    e->index = i + 1;
    e->start_seconds = fc_ticks_since_start(it->t0);
    e->seconds = fc_iteration_seconds(it);
    e->gpu_seconds = g->ok && i < MAX_LIST && gpu_secs[i] >= 0 ? gpu_secs[i] : NAN; /* NaN: null */
    e->flops = fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec));
    e->forward_flops = it->fwd;
    e->backward_flops = it->bwd;
    e->recompute_flops = it->rec;
    e->attention_excess_flops = it->xs;
    e->calls = it->calls;
    e->micro_batches = it->micro;
    snprintf(e->kind, sizeof e->kind, "%s", it->fwd_only ? "forward-only" : "training");
    e->eval_passes = it->evals;
    e->ambiguous = it->unsure != 0;
    unsigned omit = FC_ITER_BIT(slowest_rank) | (g->ok ? 0u : FC_ITER_BIT(gpu_seconds));
    if (it->unsure) {
        unsure_reason(it->unsure, why, why_size);
        e->ambiguous_reason = why;
        /* false: the doubt moves FLOPs between forward and backward only */
        e->ambiguous_recompute = (it->unsure & FC_UNSURE_MFU) != 0;
    } else {
        omit |= FC_ITER_BIT(ambiguous_reason) | FC_ITER_BIT(ambiguous_recompute);
    }
    e->open_end = it->open_end != 0;
    if (!it->open_end)
        omit |= FC_ITER_BIT(open_end);
    e->grouped_calls = s.calls;
    e->grouped_max = s.max;
    e->grouped_mean = s.mean;
    return omit;
}

static void write_iterations(fc_jw *w, const fc_figures *f, const gpu_view *g)
{
    const fc_steps_view *v = &f->v;
    char method[256];
    fc_seg_stats st;
    fc_seg_stats_get(&st);
    method_text(v->mode, method, sizeof method);
    fc_jw_obj_begin(w, "iterations");
    fc_jw_u64(w, "count", v->count);
    fc_jw_str(w, "detected_by", mode_name(v->mode, v->count));
    fc_jw_str(w, "method", method);
    fc_jw_str(w, "kind", iter_kind(v));
    fc_jw_u64(w, "forward_only_iterations", v->fwd_only);
    if (f->steady > 0)
        fc_jw_double(w, "median_seconds", f->median_seconds);
    else
        fc_jw_null(w, "median_seconds");
    if (g->ok) {
        fc_jw_str(w, "gpu_timing", "events");
        if (g->n > 0)
            fc_jw_double(w, "gpu_median_seconds", g->median_seconds);
        else
            fc_jw_null(w, "gpu_median_seconds");
    } else {
        char why[260];
        snprintf(why, sizeof why, "unavailable: %s", g->reason);
        fc_jw_str(w, "gpu_timing", why);
    }
    fc_jw_u128(w, "flops", f->hw);
    fc_jw_u128(w, "forward_flops", v->fwd);
    fc_jw_u128(w, "backward_flops", v->bwd);
    fc_jw_u128(w, "recompute_flops", v->rec);
    fc_jw_u128(w, "attention_excess_flops", v->xs);
    fc_jw_u128(w, "other_flops", fc_steps_other(v->mode));
    fc_jw_obj_begin(w, "flops_by_dtype"); /* every training call: the dtype mix's shares */
    for (int d = 0; d < FC_DT_COUNT; d++)
        if (f->by_dtype[d])
            fc_jw_u128(w, fc_dtype_name(d), f->by_dtype[d]);
    fc_jw_obj_end(w);
    if (f->steady > 0)
        fc_jw_u64(w, "micro_batches", f->micro);
    else
        fc_jw_null(w, "micro_batches");
    fc_jw_str(w, "micro_batch", micro_batch(v));
    fc_jw_obj_begin(w, "detector");
    fc_jw_u64(w, "segments", st.segments);
    fc_jw_u64(w, "truncated_segments", st.truncated);
    fc_jw_u64(w, "repeated_segments", st.repeated);
    if (st.repeat_checks > 0) { /* FLOPCOUNT_DETECT_REPEAT=check */
        fc_jw_u64(w, "repeat_checks", st.repeat_checks);
        fc_jw_u64(w, "repeat_mismatches", st.repeat_mismatches);
    }
    fc_jw_u64(w, "weights", st.weights);
    fc_jw_bool(w, "anchor_found", st.anchor);
    fc_jw_u64(w, "dropped_records", fc_ring_dropped());
    fc_jw_u64(w, "optimizer_steps", v->optim_steps);
    fc_jw_str(w, "thread_evidence", thread_state_name(fc_threads_state()));
    fc_jw_u64(w, "thread_decided_segments", fc_threads_used());
    fc_jw_obj_end(w);
    write_split(w, v);
    fc_jw_bool(w, "list_truncated", v->stored < v->count);
    fc_jw_arr_begin(w, "list");
    static char why[1200];
    static fc_report_iter e;
    for (uint64_t i = 0; i < v->stored; i++) {
        unsigned omit = iter_entry(&v->list[i], i, g, why, sizeof why, &e);
        fc_jw_obj_begin(w, NULL);
        fc_iter_json(w, &e, omit);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
}

static void write_utilization(fc_jw *w, const fc_figures *f)
{
    if (!f->util_ok) {
        char reason[600];
        snprintf(reason, sizeof reason, "%s", f->util_reason);
        fc_jw_null(w, "utilization");
        fc_jw_str(w, "utilization_reason", reason);
        return;
    }
    const fc_peak_choice *pc = &f->pc;
    fc_jw_obj_begin(w, "utilization");
    fc_jw_double(w, "peak_flops", pc->flops);
    fc_jw_str(w, "peak_source", pc->source);
    fc_jw_str(w, "device", pc->device[0] ? pc->device : NULL);
    fc_jw_str(w, "dtype", fc_dtype_name(pc->dtype));
    fc_jw_double(w, "seconds", f->median_seconds);
    fc_jw_u128(w, "hardware_flops_per_iteration", f->flops);
    fc_jw_u128(w, "model_flops_per_iteration", f->flops - f->rec);
    fc_jw_double(w, "achieved_flops_per_second", fc_u128_to_double(f->flops) / f->median_seconds);
    fc_jw_double(w, "hfu", f->hfu);
    fc_jw_double(w, "mfu", f->mfu);
    /* model FLOPs (and so MFU) are hardware less recompute: a guess when
     * the split of a steady iteration is */
    fc_jw_bool(w, "split_ambiguous", f->unsure_steady > 0);
    fc_mix_json(w, &f->mix); /* HFU at the dtype mix, its terms, or why not */
    /* ... and that guess can move FLOPs into or out of recompute */
    fc_jw_bool(w, "mfu_ambiguous", f->unsure_mfu_steady > 0);
    fc_jw_obj_end(w);
}

/* The figures, with the rings drained and the detector locked (the lock is
 * held when the function returns 1: release it after reading). */
static int take(fc_figures *f, int final, int interrupted)
{
    int locked = fc_ring_collect(final) == 0;
    fc_figures_compute(f, !interrupted);
    return locked;
}

void fc_report_sections_json(fc_jw *w, int final, int interrupted)
{
    static fc_figures f;
    int locked = take(&f, final, interrupted);
    static gpu_view g;
    gpu_of(&f.v, final, interrupted, &g);
    write_iterations(w, &f, &g);
    fc_jw_obj_begin(w, "eval_passes");
    fc_jw_u64(w, "count", f.ev.count);
    fc_jw_u128(w, "flops", f.ev.flops);
    fc_jw_double(w, "seconds", fc_ticks_seconds(f.ev.ticks));
    fc_jw_u64(w, "ambiguous", f.ev.unsure);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "recompute");
    fc_jw_u128(w, "flops", f.v.rec);
    fc_jw_double(w, "fraction", f.recompute_fraction);
    fc_jw_bool(w, "ambiguous", f.v.unsure_mfu != 0); /* some iteration's recompute is a guess */
    fc_jw_obj_end(w);
    write_utilization(w, &f);
    fc_callsite_report_json(w);
    fc_gpu_ctx gc = {&f.v, f.util_ok ? f.pc.flops : 0, interrupted, final};
    fc_report_gpu_json(w, &gc);
    fc_profile_report_json(w);
    if (locked)
        fc_ring_release();
}

#define LINE_SIZE 1024 /* every caller's line buffer */

/* n as snprintf returned it: a line cut to fit is written as it was cut. */
static void say(int fd, const char *line, int n)
{
    if (n <= 0)
        return;
    if (n >= LINE_SIZE)
        n = LINE_SIZE - 1;
    ssize_t wr = write(fd, line, (size_t)n);
    (void)wr;
}

/* What an iteration is (a micro-batch, an optimizer step of several), and
 * whether the launching thread told phases apart: so the figures are read
 * right. */
static void text_units(int fd, const fc_steps_view *v, const fc_figures *x)
{
    char line[1024];
    if (v->mode == FC_MODE_AUTO)
        say(fd, line,
            snprintf(line, sizeof line,
                     "flopcount: an automatic iteration is one forward and backward: if the "
                     "program accumulates gradients it is one micro-batch (its time, FLOPs and "
                     "the inferred batch B are one micro-batch's; an optimizer step is several); "
                     "flopcount_step() after optimizer.step() counts optimizer steps\n"));
    else if (x->steady > 0 && x->micro > 1)
        say(fd, line,
            snprintf(line, sizeof line,
                     "flopcount: %llu micro-batches (forward and backward passes) per iteration%s; "
                     "the inferred batch B is the iteration's (%llu x one forward's)\n",
                     (unsigned long long)x->micro,
                     v->mode == FC_MODE_OPTIM ? ", iterations ending with each optimizer step" : "",
                     (unsigned long long)x->micro));
    if (fc_threads_used() > 0)
        say(fd, line,
            snprintf(line, sizeof line,
                     "flopcount: the launching thread told forward from backward in %llu segments "
                     "(PyTorch's autograd runs a GPU backward on a thread of its own)\n",
                     (unsigned long long)fc_threads_used()));
}

void fc_report_sections_text(int fd, int interrupted)
{
    char line[LINE_SIZE];
    static fc_figures x;
    int locked = take(&x, 1, interrupted);
    const fc_steps_view *v = &x.v;
    if (v->count > 0) {
        static gpu_view g;
        char gpu[64] = "";
        gpu_of(v, 1, interrupted, &g);
        if (g.ok && g.n > 0)
            snprintf(gpu, sizeof gpu, " (GPU %.4f s)", g.median_seconds);
        double hw = fc_u128_to_double(x.hw);
        double f = fc_u128_to_double(v->fwd), b = fc_u128_to_double(v->bwd), r = fc_u128_to_double(v->rec);
        say(fd, line, snprintf(line, sizeof line,
                               "flopcount: %llu%s iterations (%s), median %.4f s%s, %.4g FLOP each; "
                               "forward %.1f%% backward %.1f%% recompute %.1f%%\n",
                               (unsigned long long)v->count, v->fwd_only == v->count ? " forward-only" : "",
                               mode_name(v->mode, v->count), x.median_seconds, gpu,
                               fc_u128_to_double(x.flops), 100 * f / hw, 100 * b / hw, 100 * r / hw));
        if (v->fwd_only > 0 && v->fwd_only < v->count)
            say(fd, line, snprintf(line, sizeof line,
                                   "flopcount: %llu of them forward-only (marked steps with no "
                                   "backward)\n", (unsigned long long)v->fwd_only));
        text_units(fd, v, &x);
        if (v->unsure > 0) {
            const char *adv = advice(unsure_bits(v), v->phase_sources);
            say(fd, line, snprintf(line, sizeof line,
                                   "flopcount: the forward/backward/recompute split is a guess in %llu of "
                                   "%llu iterations%s%s%.400s\n",
                                   (unsigned long long)v->unsure, (unsigned long long)v->count,
                                   v->unsure_mfu ? ": recompute % and MFU are estimates"
                                                 : " (between forward and backward only: recompute "
                                                   "and MFU stand)",
                                   adv ? "; to make it exact, " : "", adv ? adv : ""));
        }
        const fc_peak_choice *pc = &x.pc;
        if (x.util_ok) {
            char mix[400], shares[160];
            fc_mix_shares_text(&x.mix, shares, sizeof shares);
            if (x.mix_ok) /* below 0.1%, three digits (as the live line) */
                snprintf(mix, sizeof mix,
                         100 * x.hfu_mix >= 0.1 ? "; HFU at the dtype mix %.1f%% (%s)"
                                                : "; HFU at the dtype mix %.3g%% (%s)",
                         100 * x.hfu_mix, shares);
            else
                snprintf(mix, sizeof mix, "; HFU at the dtype mix n/a (%s): %.200s", shares,
                         x.mix.reason);
            char hfu[24], mfu[24];
            fc_figures_pct(100 * x.hfu, hfu, sizeof hfu);
            fc_figures_pct(100 * x.mfu, mfu, sizeof mfu);
            say(fd, line,
                snprintf(line, sizeof line,
                         "flopcount: HFU %s MFU %s%s of %.4g TFLOP/s (%s peak, %s%s%s)%s\n",
                         hfu, mfu, x.unsure_mfu_steady ? " (split unsure)" : "",
                         pc->flops / 1e12, fc_dtype_name(pc->dtype), pc->source,
                         pc->device[0] ? ": " : "", pc->device, mix));
        }
        else if (x.steady > 0 && x.median_seconds > 0)
            say(fd, line, snprintf(line, sizeof line, "flopcount: HFU/MFU not shown: %s\n", x.util_reason));
        if (locked) /* its buffers are the drainer's too */
            fc_inferred_text(fd, &x);
    }
    if (fc_opt.null_gpu[0] != '\0' && (v->count > 0 || x.totals.calls > 0))
        say(fd, line, snprintf(line, sizeof line, "flopcount: on the null GPU (%s): %s\n",
                               fc_opt.null_gpu, FC_NULL_GPU_CAVEAT));
    if (x.ev.count > 0) { /* the words of 'flopcount report' (tools/report/report_text.c) */
        double ef = fc_u128_to_double(x.ev.flops), es = fc_ticks_seconds(x.ev.ticks);
        char rate[32];
        fc_rate_text(es > 0 ? ef / es : 0.0, rate, sizeof rate);
        say(fd, line, snprintf(line, sizeof line,
                               "flopcount: %llu evaluation passes (forward-only: no backward), %.4g "
                               "FLOP, %.4g each, in %.4f s: %s%s\n",
                               (unsigned long long)x.ev.count, ef, ef / (double)x.ev.count, es, rate,
                               v->count > 0 ? " (not in the iterations)" : ""));
    }
    if (v->count > 0 || x.ev.count > 0)
        fc_callsite_report_text(fd);
    fc_gpu_ctx gc = {v, x.util_ok ? x.pc.flops : 0, interrupted, 1};
    fc_report_gpu_text(fd, &gc);
    if (locked)
        fc_ring_release();
}

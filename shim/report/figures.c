/* SPDX-License-Identifier: Apache-2.0 */
/* figures.c - the run's headline figures (figures.h): totals, iterations,
 * the medians of the steady iterations, recompute, and HFU/MFU against the
 * chosen peak. The report, the Prometheus file and the public snapshot all
 * read them from here, so a figure is the same wherever it is shown. */
#include "figures.h"

#include <stdio.h>
#include <string.h>

#include "core/api.h"
#include "core/options.h"
#include "detect/segment.h"
#include "dtype.h"
#include "nullgpu_note.h"
#include "peak.h"
#include "run_figures.h"
#include "stats.h"
#include "utilization.h"

static double secs_buf[FC_FIGURES_MAX_LIST];
static fc_u128 u_buf[FC_FIGURES_MAX_LIST];

void fc_figures_steady_range(const fc_steps_view *v, uint64_t stored, uint64_t *from, uint64_t *to)
{
    size_t f, t;
    fc_steady_range(stored, stored > 0 && v->list[stored - 1].open_end, &f, &t);
    *from = f;
    *to = t;
}

/* Iteration i of the detector's list as the run's figures see it. */
void fc_figures_iter(const void *ctx, size_t i, fc_fig_iter *out)
{
    const fc_iteration *it = &((const fc_iteration *)ctx)[i];
    out->flops = fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec));
    out->forward = it->fwd;
    out->recompute = it->rec;
    out->xs = it->xs;
    out->seconds = fc_iteration_seconds(it);
    out->micro = it->micro;
    out->unsure = it->unsure != 0;
    out->unsure_recompute = (it->unsure & FC_UNSURE_MFU) != 0;
}

/* The medians of the steady iterations: the run's figures (run_figures.h),
 * as 'flopcount report' and 'merge' compute them from the report. */
static void steady_of(fc_figures *f)
{
    const fc_steps_view *v = &f->v;
    uint64_t stored = v->stored < FC_FIGURES_MAX_LIST ? v->stored : FC_FIGURES_MAX_LIST, from, to;
    fc_figures_steady_range(v, stored, &from, &to);
    fc_fig_medians m;
    fc_fig_medians_of(fc_figures_iter, v->list, from, to, u_buf, secs_buf, &m);
    f->steady = m.n;
    f->unsure_steady = m.n_unsure;
    f->unsure_mfu_steady = m.n_unsure_recompute;
    f->recompute_guessed = m.recompute_guessed;
    if (m.n == 0)
        return;
    f->median_seconds = m.seconds;
    f->flops = m.flops;
    f->rec = m.recompute;
    f->fwd = m.forward;
    f->xs = m.xs;
    f->micro = m.micro;
}

/* FLOPs by dtype and whether they ran on a GPU, over every counted call
 * (GEMMs and attention). */
struct mix {
    fc_u128 by_dtype[FC_DT_COUNT];
    fc_u128 gpu, cpu;
};

static void add_mix(const fc_shape_view *v, void *ctx)
{
    struct mix *m = ctx;
    m->by_dtype[v->key.dtype % FC_DT_COUNT] = fc_u128_sat_add(m->by_dtype[v->key.dtype % FC_DT_COUNT], v->flops);
    if (fc_api_is_gpu(v->key.api))
        m->gpu = fc_u128_sat_add(m->gpu, v->flops);
    else
        m->cpu = fc_u128_sat_add(m->cpu, v->flops);
}

/* Counted attention runs on the GPU, in its dtype. */
static void add_attn_mix(const fc_attn_view *v, void *ctx)
{
    struct mix *m = ctx;
    m->by_dtype[v->key.dtype % FC_DT_COUNT] = fc_u128_sat_add(m->by_dtype[v->key.dtype % FC_DT_COUNT], v->executed);
    m->gpu = fc_u128_sat_add(m->gpu, v->executed);
}

static int choose_peak(fc_peak_choice *pc, int may_look, int *gpu_work)
{
    static struct mix m;
    memset(&m, 0, sizeof m);
    fc_counters_foreach(add_mix, &m);
    fc_attn_table_foreach(add_attn_mix, &m);
    int best = FC_DT_UNKNOWN;
    for (int d = 1; d < FC_DT_COUNT; d++)
        if (m.by_dtype[d] > m.by_dtype[best])
            best = d;
    *gpu_work = m.gpu > m.cpu;
    return fc_peak_choose(best, *gpu_work, may_look, pc);
}

/* ---- the dtype mix ---- */

typedef struct mix_ctx {
    int gpu_work, may_look;
} mix_ctx;

/* "no peak: WHY; HINT" -> WHY: the hint (a single peak by hand) is no
 * help to a mix, which needs each dtype's own. */
static void bare_reason(const char *reason, char *why, size_t n)
{
    const char *p = strncmp(reason, "no peak: ", 9) == 0 ? reason + 9 : reason;
    const char *hint = strstr(p, "; " FC_PEAK_UNKNOWN_HINT);
    size_t len = hint ? (size_t)(hint - p) : strlen(p);
    snprintf(why, n, "%.*s", (int)(len < n ? len : n - 1), p);
}

/* The dense peak of dtype, chosen as the HFU's is; for a known device
 * without that dtype, "no published fp4_e2m1 peak for H100-SXM". */
static double peak_of(void *ctx, int dtype, char *why, size_t n)
{
    const mix_ctx *c = ctx;
    static fc_peak_choice pc; /* the drain lock serializes callers */
    if (fc_peak_choose(dtype, c->gpu_work, c->may_look, &pc) == 0)
        return pc.flops;
    const fc_peak_device *d = c->gpu_work && pc.device[0] ? fc_peak_find(pc.device) : NULL;
    if (d != NULL)
        fc_peak_none_reason(d, dtype, why, n);
    else
        bare_reason(pc.reason, why, n);
    return 0;
}

static int mix_of(const fc_u128 *by_dtype, fc_u128 flops, double seconds, int gpu_work,
                  int may_look, fc_mix *out)
{
    mix_ctx c = {gpu_work, may_look};
    fc_mix_peaks p = {peak_of, &c, fc_opt.peak_tflops > 0 ? "FLOPCOUNT_PEAK_TFLOPS" : NULL};
    return fc_mix_compute(by_dtype, flops, seconds, 1, &p, out);
}

int fc_figures_mix(fc_u128 flops, double seconds, int gpu_work, int may_look, fc_mix *out)
{
    static fc_u128 by_dtype[FC_DT_COUNT];
    fc_steps_by_dtype(by_dtype);
    return mix_of(by_dtype, flops, seconds, gpu_work, may_look, out);
}

void fc_figures_compute(fc_figures *f, int may_look)
{
    memset(f, 0, sizeof *f);
    fc_counters_totals(&f->totals);
    fc_attn_table_totals(&f->attn);
    fc_steps_get(fc_steps_mode(), &f->v);
    fc_steps_eval(&f->ev);
    fc_steps_by_dtype(f->by_dtype);
    const fc_steps_view *v = &f->v;
    f->hw = fc_u128_sat_add(v->fwd, fc_u128_sat_add(v->bwd, v->rec));
    f->recompute_fraction = f->hw ? fc_u128_to_double(v->rec) / fc_u128_to_double(f->hw) : 0.0;
    fc_iteration last;
    if (v->count > 0 && fc_steps_iteration(v->mode, v->count, &last) == 0) {
        f->have_last = 1;
        f->last_seconds = fc_iteration_seconds(&last);
    }
    steady_of(f);
    if (fc_opt.null_gpu[0] != '\0') { /* host times: no utilization at all */
        f->util_reason = FC_NULL_GPU_NO_UTILIZATION;
        return;
    }
    if (f->steady == 0 || f->median_seconds <= 0) {
        f->util_reason = "no training iterations with a measured time";
        return;
    }
    int gpu_work;
    if (choose_peak(&f->pc, may_look, &gpu_work) != 0) {
        f->util_reason = f->pc.reason;
        return;
    }
    f->util_ok = 1;
    /* one expression for HFU, MFU and each term of the mix (utilization.c);
     * model FLOPs: recompute left out, attention's backward at the model
     * convention (2x its forward, not the 2.5x it executes) */
    fc_fig_utilization(f->flops, f->rec, f->xs, f->median_seconds, 1, f->pc.flops, &f->hfu, &f->mfu);
    f->mix_ok = mix_of(f->by_dtype, f->flops, f->median_seconds, gpu_work, may_look, &f->mix) == 0;
    f->hfu_mix = f->mix_ok ? f->mix.hfu : 0;
}

void fc_figures_pct(double pct, char *out, size_t size)
{
    snprintf(out, size, pct >= 0.1 || pct <= 0 ? "%.1f%%" : "%.3g%%", pct);
}

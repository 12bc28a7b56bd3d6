/* SPDX-License-Identifier: Apache-2.0 */
/* figures.c - the run's headline figures (figures.h): totals, iterations,
 * the medians of the steady iterations, recompute, and HFU/MFU against the
 * chosen peak. The report, the Prometheus file and the public snapshot all
 * read them from here, so a figure is the same wherever it is shown. */
#include "figures.h"

#include <string.h>

#include "core/api.h"
#include "detect/segment.h"
#include "dtype.h"
#include "stats.h"

static double secs_buf[FC_FIGURES_MAX_LIST];
static fc_u128 flops_buf[FC_FIGURES_MAX_LIST], rec_buf[FC_FIGURES_MAX_LIST], fwd_buf[FC_FIGURES_MAX_LIST];
static fc_u128 micro_buf[FC_FIGURES_MAX_LIST];

void fc_figures_steady_range(const fc_steps_view *v, uint64_t stored, uint64_t *from, uint64_t *to)
{
    size_t f, t;
    fc_steady_range(stored, stored > 0 && v->list[stored - 1].open_end, &f, &t);
    *from = f;
    *to = t;
}

static void steady_of(fc_figures *f)
{
    const fc_steps_view *v = &f->v;
    uint64_t stored = v->stored < FC_FIGURES_MAX_LIST ? v->stored : FC_FIGURES_MAX_LIST, from, to;
    fc_figures_steady_range(v, stored, &from, &to);
    uint64_t n = 0;
    f->unsure_steady = f->unsure_mfu_steady = 0;
    for (uint64_t i = from; i < to; i++) {
        const fc_iteration *it = &v->list[i];
        f->unsure_steady += it->unsure != 0;
        f->unsure_mfu_steady += (it->unsure & FC_UNSURE_MFU) != 0;
        micro_buf[n] = it->micro;
        secs_buf[n] = fc_iteration_seconds(it);
        flops_buf[n] = fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec));
        rec_buf[n] = it->rec;
        fwd_buf[n] = it->fwd;
        n++;
    }
    f->steady = n;
    if (n == 0)
        return;
    f->median_seconds = fc_median_double(secs_buf, n);
    f->flops = fc_median_u128(flops_buf, n);
    f->rec = fc_median_u128(rec_buf, n);
    f->fwd = fc_median_u128(fwd_buf, n);
    f->micro = (uint64_t)fc_median_u128(micro_buf, n);
}

/* FLOPs by dtype and whether they ran on a GPU, over every counted call. */
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

static int choose_peak(fc_peak_choice *pc, int may_look)
{
    static struct mix m;
    memset(&m, 0, sizeof m);
    fc_counters_foreach(add_mix, &m);
    int best = FC_DT_UNKNOWN;
    for (int d = 1; d < FC_DT_COUNT; d++)
        if (m.by_dtype[d] > m.by_dtype[best])
            best = d;
    return fc_peak_choose(best, m.gpu > m.cpu, may_look, pc);
}

void fc_figures_compute(fc_figures *f, int may_look)
{
    memset(f, 0, sizeof *f);
    fc_counters_totals(&f->totals);
    fc_steps_get(fc_steps_mode(), &f->v);
    fc_steps_eval(&f->ev);
    const fc_steps_view *v = &f->v;
    f->hw = fc_u128_sat_add(v->fwd, fc_u128_sat_add(v->bwd, v->rec));
    f->recompute_fraction = f->hw ? fc_u128_to_double(v->rec) / fc_u128_to_double(f->hw) : 0.0;
    fc_iteration last;
    if (v->count > 0 && fc_steps_iteration(v->mode, v->count, &last) == 0) {
        f->have_last = 1;
        f->last_seconds = fc_iteration_seconds(&last);
    }
    steady_of(f);
    if (f->steady == 0 || f->median_seconds <= 0) {
        f->util_reason = "no training iterations with a measured time";
        return;
    }
    if (choose_peak(&f->pc, may_look) != 0) {
        f->util_reason = f->pc.reason;
        return;
    }
    double denom = f->pc.flops * f->median_seconds;
    f->util_ok = 1;
    f->hfu = fc_u128_to_double(f->flops) / denom;
    f->mfu = fc_u128_to_double(f->flops - f->rec) / denom;
}

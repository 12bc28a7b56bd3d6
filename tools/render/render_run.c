/* SPDX-License-Identifier: Apache-2.0 */
/* render_run.c - the sections' input (render_run.h) of one run, from
 * 'report''s view, and of a sum, from 'merge''s. Nothing is computed
 * here: each field points at, or copies, what the verb worked out. */
#include "render_run.h"

#include <math.h>

#include "merge.h"
#include "merge_gpu.h"
#include "report_view.h"

static const fci_run_keys report_keys = {
    .hfu_mix = "measured.hfu_mix",
    .peak_source = "measured.peak_source",
};

static const fci_run_keys merge_keys = {
    .hfu_mix = "utilization.hfu_mix",
    .peak_source = "utilization.peak_source",
};

void fci_run_of_report(const fc_report_view *v, fci_run *out)
{
    const fc_report *r = &v->rep;
    *out = (fci_run){
        .label_w = 14,
        .whose = "",
        .keys = &report_keys,
        .totals = &r->totals,
        .wall_seconds = r->wall_seconds,
        .attn = &r->attn,
        .shapes = r->shapes,
        .n_shapes = r->n_shapes,
        .has_iterations = v->has_iterations,
        .n_iterations = v->n_steady,
        .flops = v->job_flops,
        .recompute = v->job_recompute,
        .xs = v->job_xs,
        .seconds = v->seconds,
        .recompute_guessed = v->recompute_guessed,
        .n_unsure = v->n_ambiguous_split,
        .unsure_reasons = r->iterations.ambiguous_reasons[0] ? r->iterations.ambiguous_reasons
                                                             : "see the report",
        .advice = r->iterations.advice,
        .peak = v->peak,
        .peak_desc = v->peak_desc,
        .no_peak = "no peak known (--gpu NAME --dtype D, or --peak-tflops X)",
        .hfu = v->hfu,
        .mfu = v->mfu,
        .mix = &v->mix,
        .gpu = &v->gpu,
    };
}

void fci_run_of_merge(const fc_merge *m, fci_run *out)
{
    *out = (fci_run){
        .label_w = 16,
        .whose = " on all ranks",
        .keys = &merge_keys,
        .totals = &m->sum.totals,
        .wall_seconds = m->sum.wall_seconds > 0 ? m->sum.wall_seconds : NAN,
        .attn = &m->attn,
        .shapes = m->sum.shapes,
        .n_shapes = m->sum.n_shapes,
        .has_iterations = m->n_steps > 0,
        .n_iterations = m->n_steps,
        .flops = m->flops_per_iteration,
        .recompute = m->recompute_per_iteration,
        .xs = m->xs_per_iteration,
        .seconds = m->median_step_seconds,
        .recompute_guessed = m->recompute_guessed,
        .n_unsure = m->n_ambiguous_steps,
        .unsure_reasons = m->ambiguous_reasons && m->ambiguous_reasons[0]
                              ? m->ambiguous_reasons
                              : "see the ranks' reports",
        .advice = m->advice,
        .peak = m->peak_flops,
        .peak_desc = m->peak_desc,
        .no_peak = "no one peak: none given and the reports' differ or are absent (--gpu NAME "
                   "--dtype D, or --peak-tflops X)",
        .hfu = m->hfu,
        .mfu = m->mfu,
        .mix = &m->mix,
        .gpu = fc_merge_gpu_result(),
    };
}

/* SPDX-License-Identifier: Apache-2.0 */
/* json_merge.c - the merged job as JSON, in the layout of a rank's report
 * plus "kind": "merge" and a "merge" section, so 'flopcount report' reads
 * it like any report and tools can read the per-rank table. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "flopcount.h"
#include "jsonw.h"
#include "merge.h"
#include "merge_gpu.h"
#include "render_fmt.h"
#include "render_forms.h"
#include "render_gpu.h"

static void json_problems(fc_jw *w, const fc_merge *m)
{
    fc_jw_arr_begin(w, "missing_ranks");
    for (size_t i = 0; i < m->n_missing; i++)
        fc_jw_i64(w, NULL, m->missing[i]);
    fc_jw_arr_end(w);
    fc_jw_arr_begin(w, "duplicate_reports");
    for (size_t i = m->n_used; i < m->n_ranks; i++) {
        fc_jw_obj_begin(w, NULL);
        fc_jw_i64(w, "rank", m->ranks[i].rank);
        fc_jw_str(w, "file", m->ranks[i].path);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_bool(w, "world_size_disagrees", m->world_disagrees);
    fc_jw_bool(w, "ranks_numbered_by_order", m->n_rankless > 0);
    fc_jw_u64(w, "reports_not_complete", m->n_not_complete);
}

static void json_straggler(fc_jw *w, const fc_merge *m)
{
    if (m->straggler < 0) {
        fc_jw_null(w, "straggler");
        return;
    }
    fc_jw_obj_begin(w, "straggler");
    fc_jw_i64(w, "rank", m->straggler);
    fc_jw_str(w, "by", m->straggler_by_wall ? "wall_seconds" : "median_step_seconds");
    fc_jw_double(w, "seconds", m->straggler_seconds);
    fc_jw_double(w, "others_median_seconds", m->others_seconds);
    fc_jw_double(w, "behind_seconds", m->straggler_seconds - m->others_seconds);
    fc_jw_double(w, "behind_fraction",
                 m->others_seconds > 0
                     ? (m->straggler_seconds - m->others_seconds) / m->others_seconds
                     : NAN);
    fc_jw_u64(w, "slowest_in_steps", m->straggler_slowest_steps);
    fc_jw_obj_end(w);
}

static void json_consistency(fc_jw *w, const fc_merge *m)
{
    static const char *const names[] = {"same", "stages", "outliers", "mixed"};
    fc_jw_obj_begin(w, "flops_consistency");
    fc_jw_str(w, "basis", m->flops_basis_iteration ? "per_iteration" : "total");
    fc_jw_str(w, "verdict", names[m->verdict]);
    fc_jw_str(w, "explanation", fci_merge_verdict_words(m));
    fc_jw_arr_begin(w, "groups");
    for (size_t g = 0; g < m->n_fgroups; g++) {
        fc_jw_obj_begin(w, NULL);
        fc_jw_u128(w, "flops", m->fgroups[g].flops);
        fc_jw_arr_begin(w, "ranks");
        for (size_t i = 0; i < m->fgroups[g].n_ranks; i++)
            fc_jw_i64(w, NULL, m->fgroups[g].ranks[i]);
        fc_jw_arr_end(w);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
}

static void json_ranks(fc_jw *w, const fc_merge *m)
{
    fc_jw_arr_begin(w, "ranks");
    for (size_t i = 0; i < m->n_used; i++) {
        const fc_merge_rank *s = &m->ranks[i];
        double hfu = fc_merge_rank_hfu(m, s);
        fc_jw_obj_begin(w, NULL);
        fc_jw_i64(w, "rank", s->rank);
        fc_jw_str(w, "file", s->path);
        fc_jw_str(w, "host", s->host);
        fc_jw_str(w, "status", s->status);
        fc_jw_u128(w, "gemm_flops", s->gemm_flops);
        fc_jw_u64(w, "gemm_calls", s->gemm_calls);
        fc_jw_u64(w, "iterations", s->iter_count);
        fc_jw_double(w, "median_seconds", s->median_seconds);
        if (s->has_iterations)
            fc_jw_u128(w, "flops_per_iteration", s->flops_per_iteration);
        else
            fc_jw_null(w, "flops_per_iteration");
        fc_jw_double(w, "hfu", hfu);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
}

void fc_merge_json_groups(fc_jw *w, const char *key, const fc_merge_group *g, size_t n)
{
    fc_jw_obj_begin(w, key);
    for (size_t i = 0; i < n; i++)
        fc_group_json(w, g[i].name, &g[i]);
    fc_jw_obj_end(w);
}

void fc_merge_json_shapes(fc_jw *w, const fc_merge *m)
{
    fc_jw_arr_begin(w, "shapes");
    for (size_t i = 0; i < m->sum.n_shapes; i++)
        fci_json_shape(w, &m->sum.shapes[i]);
    fc_jw_arr_end(w);
}

/* What a step of the aligned list does not have of a rank's iteration. */
#define MERGE_STEP_OMIT                                                                            \
    (FC_ITER_BIT(start_seconds) | FC_ITER_BIT(gpu_seconds) | FC_ITER_BIT(calls) |                 \
     FC_ITER_BIT(micro_batches) | FC_ITER_BIT(kind) | FC_ITER_BIT(eval_passes) |                  \
     FC_ITER_BIT(ambiguous_reason) | FC_ITER_BIT(open_end))

/* The aligned steps as an "iterations" section a rank's report would have:
 * a step's time is its slowest rank's, its FLOPs the sum over ranks. */
static void json_iterations(fc_jw *w, const fc_merge *m)
{
    if (m->n_with_iterations < m->n_used || m->n_used == 0)
        return; /* absent, as in a report without iterations */
    fc_jw_obj_begin(w, "iterations");
    fc_jw_u64(w, "count", m->n_steps);
    fc_jw_u64(w, "fewest_counted_by_a_rank", m->iter_count);
    fc_jw_str(w, "detected_by", "merge: indices every rank listed");
    fc_jw_double(w, "median_seconds", m->median_step_seconds);
    fc_jw_u128(w, "flops_per_iteration", m->flops_per_iteration);
    if (m->n_without_mix == 0) { /* the ranks' training FLOPs by dtype, summed */
        fc_jw_obj_begin(w, "flops_by_dtype");
        for (int d = 0; d < FC_DT_COUNT; d++)
            if (m->mix_flops[d])
                fc_jw_u128(w, fc_dtype_name(d), m->mix_flops[d]);
        fc_jw_obj_end(w);
    }
    fc_jw_u128(w, "attention_excess_flops_per_iteration", m->xs_per_iteration);
    /* of the steps sure about recompute when any is (run_figures.h) */
    fc_jw_u128(w, "recompute_flops_per_iteration", m->recompute_per_iteration);
    fc_jw_bool(w, "recompute_guessed", m->recompute_guessed);
    fc_jw_u64(w, "ambiguous_iterations", m->n_ambiguous_steps);
    fc_jw_arr_begin(w, "ambiguous_reasons");
    if (m->ambiguous_reasons && m->ambiguous_reasons[0])
        fc_jw_str(w, NULL, m->ambiguous_reasons);
    fc_jw_arr_end(w);
    fc_jw_str(w, "advice", m->advice && m->advice[0] ? m->advice : NULL);
    fc_jw_arr_begin(w, "list");
    for (size_t i = 0; i < m->n_steps; i++) {
        const fc_merge_step *st = &m->steps[i];
        fc_report_iter e = {.index = st->index,
                            .seconds = st->seconds,
                            .slowest_rank = st->slowest_rank,
                            .flops = st->flops,
                            .forward_flops = st->forward,
                            .backward_flops = st->backward,
                            .recompute_flops = st->recompute,
                            .attention_excess_flops = st->xs,
                            .ambiguous = st->ambiguous,
                            .ambiguous_recompute = st->ambiguous_recompute};
        /* as a rank's list: ambiguous_recompute when ambiguous (false moves
         * forward/backward only) */
        unsigned omit = MERGE_STEP_OMIT | (st->ambiguous ? 0u : FC_ITER_BIT(ambiguous_recompute));
        fc_jw_obj_begin(w, NULL);
        fc_iter_json(w, &e, omit);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "recompute");
    fc_jw_u128(w, "flops", m->sum.recompute_flops);
    fc_jw_double(w, "fraction",
                 m->sum.totals.gemm_flops ? fc_u128_to_double(m->sum.recompute_flops) /
                                                fc_u128_to_double(m->sum.totals.gemm_flops)
                                          : NAN);
    fc_jw_bool(w, "ambiguous", m->n_ambiguous_steps > 0);
    fc_jw_obj_end(w);
}

/* Cluster HFU/MFU when one peak is known; HFU at the dtype mix, which needs
 * each dtype's own, also when the ranks' single peaks differ (their
 * dominant dtypes do): then peak_flops, hfu and mfu are null. A mix that is
 * unknown is written too (hfu_mix null, mix_reason) whenever its dtypes are. */
static void json_utilization(fc_jw *w, const fc_merge *m)
{
    if (m->peak_flops <= 0 && !m->mix.ok && m->mix.n == 0)
        return;
    fc_jw_obj_begin(w, "utilization");
    fc_jw_double(w, "peak_flops", m->peak_flops > 0 ? m->peak_flops : NAN);
    fc_jw_str(w, "peak_source", m->peak_flops > 0 ? m->peak_desc : NULL);
    fc_jw_u64(w, "gpus", m->n_used);
    fc_jw_double(w, "hfu", m->hfu);
    fc_jw_double(w, "mfu", m->mfu);
    fc_jw_bool(w, "split_ambiguous", m->n_ambiguous_steps > 0);
    fc_mix_json(w, &m->mix);
    fc_jw_obj_end(w);
}

static void json_inferred(fc_jw *w, const fc_merge *m)
{
    static const char *const states[] = {"none", "incomplete", "complete"};
    const fc_merge_model *mm = &m->model;
    const fc_inferred *in = &mm->inf;
    char buf[600];
    fc_jw_obj_begin(w, "inferred_model");
    fc_jw_str(w, "state", states[mm->state]);
    if (mm->state == FC_MERGE_MODEL_NONE) {
        fc_jw_str(w, "reason", mm->why[0] ? mm->why : "no rank has a forward profile");
        fc_jw_obj_end(w);
        return;
    }
    fc_jw_str(w, "layout", mm->stages > 1 ? "pipeline" : "data-parallel");
    fc_jw_i64(w, "data_parallel", mm->data_parallel);
    fc_jw_i64(w, "stages", mm->stages);
    fc_jw_str(w, "layout_words", fc_merge_layout_words(m, buf, sizeof buf));
    fc_jw_obj_begin(w, "model");
    for (int k = 0; k < FC_IK_COUNT; k++) {
        const fc_infer_val *x = &in->v[k];
        if (x->status == FC_IS_UNKNOWN)
            fc_jw_null(w, fc_ik_name(k));
        else if (k == FC_IK_SWIGLU || k == FC_IK_TIED)
            fc_jw_bool(w, fc_ik_name(k), (int)x->value);
        else if (k == FC_IK_RECOMPUTE || k == FC_IK_CAUSAL)
            fc_jw_str(w, fc_ik_name(k), fc_infer_value_text(in, k, buf, sizeof buf));
        else
            fc_jw_i64(w, fc_ik_name(k), x->value);
    }
    fc_jw_obj_end(w);
    /* the per-layer patterns are not keys of the model: a reader that
     * cannot take them must not take the model for a uniform one */
    fc_jw_bool(w, "layer_kinds", in->f.kinds != 0);
    if (in->f.kinds) {
        fc_jw_str(w, "layer_pattern", in->f.mixers[0] ? in->f.mixers : NULL); /* null: uniform */
        fc_jw_str(w, "mlp_pattern", in->f.mlps[0] ? in->f.mlps : NULL);
        fc_jw_str(w, "mtp_block", in->f.mtp_block[0] ? in->f.mtp_block : NULL);
    }
    fc_jw_bool(w, "complete", in->complete);
    fc_jw_str(w, "missing", in->complete ? NULL : in->f.ok ? in->missing : in->f.why);
    fc_jw_bool(w, "fits", in->fits);
    if (mm->state == FC_MERGE_MODEL_COMPLETE) {
        fc_jw_u128(w, "formula_model_flops_per_iteration", mm->f.model_flops_per_iteration);
        fc_jw_u128(w, "formula_hardware_flops_per_iteration", mm->f.hardware_flops_per_iteration);
        fc_jw_double(w, "formula_mfu", mm->formula_mfu);
    }
    fc_jw_obj_end(w);
}

void fc_merge_json_totals(fc_jw *w, const fc_merge *m, uint64_t distinct, int64_t overflow,
                          int64_t rank_count, int64_t processes)
{
    const unsigned attn = FC_TOTALS_BIT(attention_calls) | FC_TOTALS_BIT(attention_flops) |
                          FC_TOTALS_BIT(counted_flops);
    fc_totals_rec t = {.gemm_calls = m->sum.totals.gemm_calls,
                       .gemm_flops = m->sum.totals.gemm_flops,
                       .failed_calls = m->sum.totals.failed_calls,
                       .invalid_calls = m->sum.totals.invalid_calls,
                       .unresolved_calls = m->sum.totals.unresolved_calls,
                       .distinct_shapes = distinct,
                       .overflow_calls = overflow < 0 ? 0 : (uint64_t)overflow,
                       .attention_calls = m->sum.totals.attention_calls,
                       .attention_flops = m->sum.totals.attention_flops,
                       .counted_flops = m->sum.totals.counted_flops,
                       .ranks = rank_count < 0 ? 0 : (uint64_t)rank_count,
                       .processes = processes < 0 ? 0 : (uint64_t)processes};
    unsigned sums = (rank_count < 0 ? FC_TOTALS_BIT(ranks) : 0u) |
                    (processes < 0 ? FC_TOTALS_BIT(processes) : 0u);
    fc_totals_json(w, &t,
                   attn | FC_TOTALS_SUMS | (overflow < 0 ? FC_TOTALS_BIT(overflow_calls) : 0u));
    fc_totals_json(w, &t, ~(FC_TOTALS_SUMS & ~sums)); /* ranks, processes where given */
    fc_totals_json(w, &t, ~attn);
}

static void json_head(fc_jw *w, const fc_merge *m)
{
    fc_jw_i64(w, "schema", 1);
    fc_jw_str(w, "kind", "merge");
    fc_jw_obj_begin(w, "tool");
    fc_jw_str(w, "name", "flopcount");
    fc_jw_str(w, "version", FLOPCOUNT_VERSION_STRING);
    fc_jw_obj_end(w);
    fc_jw_i64(w, "world_size", m->world_size);
    fc_jw_obj_begin(w, "process");
    fc_jw_null(w, "pid");
    fc_jw_str(w, "hostname", m->n_used ? m->ranks[0].host : "");
    fc_jw_null(w, "rank");
    fc_jw_null(w, "local_rank");
    fc_jw_i64(w, "world_size", m->world_size);
    fc_jw_str(w, "launcher", m->launcher);
    fc_jw_u64(w, "hosts", m->n_hosts);
    fc_jw_obj_end(w);
    int whole = m->n_missing == 0 && m->n_used == m->n_ranks && !m->world_disagrees &&
                m->n_not_complete == 0;
    fc_jw_str(w, "status", whole ? "complete" : "incomplete");
    fc_jw_double(w, "wall_seconds", m->sum.wall_seconds);
    fc_jw_obj_begin(w, "totals");
    fc_merge_json_totals(w, m, m->sum.n_shapes, -1, (int64_t)m->n_used, -1);
    fc_jw_obj_end(w);
}

int fc_merge_write_json(const fc_merge *m, int fd)
{
    static fc_jw w;
    fc_jw_init(&w, fd, 1);
    fc_jw_obj_begin(&w, NULL);
    json_head(&w, m);
    fc_jw_obj_begin(&w, "merge");
    fc_jw_u64(&w, "reports", m->n_ranks);
    fc_jw_u64(&w, "ranks_merged", m->n_used);
    json_problems(&w, m);
    json_straggler(&w, m);
    json_consistency(&w, m);
    json_ranks(&w, m);
    fc_jw_obj_end(&w);
    fc_merge_json_groups(&w, "by_api", m->sum.by_api, m->sum.n_by_api);
    fc_merge_json_groups(&w, "by_dtype", m->sum.by_dtype, m->sum.n_by_dtype);
    fc_merge_json_shapes(&w, m);
    fc_merge_json_attention(&w, m);
    json_iterations(&w, m);
    json_utilization(&w, m);
    fci_gpu_print_json(&w, fc_merge_gpu_result());
    json_inferred(&w, m);
    fc_jw_obj_end(&w);
    return fc_jw_finish(&w);
}

int fci_json_merge(const fc_merge *m)
{
    fflush(stdout);
    char nl = '\n';
    int rc = fc_merge_write_json(m, STDOUT_FILENO);
    if (rc == 0 && write(STDOUT_FILENO, &nl, 1) != 1)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "flopcount merge: writing the JSON failed\n");
    return rc;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* json_report.c - 'flopcount report --json': the same figures as the text,
 * exact integers, null where a figure cannot be had (no iterations, no
 * peak, no model). */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "flopcount.h"
#include "jsonw.h"
#include "render_fmt.h"
#include "render_forms.h"
#include "render_gpu.h"
#include "report_view.h"

#define TOP_SHAPES 5

static void u128_or_null(fc_jw *w, const char *key, int have, fc_u128 v)
{
    if (have)
        fc_jw_u128(w, key, v);
    else
        fc_jw_null(w, key);
}

static void json_source(fc_jw *w, const fc_report_view *v)
{
    const fc_report *r = &v->rep;
    fc_jw_str(w, "file", v->path);
    fc_jw_obj_begin(w, "source");
    fc_jw_str(w, "kind", r->is_merge ? "merge" : r->rank >= 0 ? "rank" : "process");
    if (r->rank >= 0)
        fc_jw_i64(w, "rank", r->rank);
    else
        fc_jw_null(w, "rank");
    if (r->world_size > 0)
        fc_jw_i64(w, "world_size", r->world_size);
    else
        fc_jw_null(w, "world_size");
    fc_jw_str(w, "launcher", r->launcher);
    fc_jw_str(w, "hostname", r->hostname);
    fc_jw_str(w, "status", r->status);
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "totals");
    fc_jw_u64(w, "gemm_calls", r->totals.gemm_calls);
    fc_jw_u128(w, "gemm_flops", r->totals.gemm_flops);
    fc_jw_u64(w, "failed_calls", r->totals.failed_calls);
    fc_jw_u64(w, "invalid_calls", r->totals.invalid_calls);
    fc_jw_u64(w, "unresolved_calls", r->totals.unresolved_calls);
    fc_jw_u64(w, "attention_calls", r->totals.attention_calls);
    fc_jw_u128(w, "attention_flops", r->totals.attention_flops);
    fc_jw_u128(w, "counted_flops", r->totals.counted_flops);
    fc_jw_obj_end(w);
}

/* The job's processes (a report written by 'flopcount run', or assembled
 * from FILE and FILE.parts/); [] for a single process's report. */
static void json_processes(fc_jw *w, const fc_report *r)
{
    fc_jw_arr_begin(w, "processes");
    for (size_t i = 0; i < r->n_procs; i++) {
        const fc_report_proc *p = &r->procs[i];
        fc_jw_obj_begin(w, NULL);
        fc_jw_i64(w, "pid", p->pid);
        if (p->ppid >= 0)
            fc_jw_i64(w, "ppid", p->ppid);
        else
            fc_jw_null(w, "ppid");
        if (p->rank >= 0)
            fc_jw_i64(w, "rank", p->rank);
        else
            fc_jw_null(w, "rank");
        fc_jw_str(w, "command", p->command);
        fc_jw_str(w, "ended", p->ended);
        fc_jw_u64(w, "gemm_calls", p->gemm_calls);
        fc_jw_u128(w, "gemm_flops", p->gemm_flops);
        if (p->has_iterations)
            fc_jw_u64(w, "iterations", p->iterations);
        else
            fc_jw_null(w, "iterations");
        fc_jw_bool(w, "iterations_used", p->iterations_used);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_arr_begin(w, "iterations_from");
    for (size_t i = 0; i < r->job.n_iterations_from; i++)
        fc_jw_i64(w, NULL, r->job.iterations_from[i]);
    fc_jw_arr_end(w);
}

static void json_shapes(fc_jw *w, const fc_report *r)
{
    fc_jw_arr_begin(w, "top_shapes");
    for (size_t i = 0; i < r->n_shapes && i < TOP_SHAPES; i++)
        fci_json_shape(w, &r->shapes[i]);
    fc_jw_arr_end(w);
}

static void json_iterations(fc_jw *w, const fc_report_view *v)
{
    const fc_report *r = &v->rep;
    if (!v->has_iterations) {
        fc_jw_null(w, "iterations");
        fc_jw_str(w, "iterations_reason", "no iterations found");
        return;
    }
    fc_jw_obj_begin(w, "iterations");
    fc_jw_u64(w, "count", r->iterations.count);
    fc_jw_u64(w, "steady", v->n_steady);
    fc_jw_str(w, "detected_by", r->iterations.detected_by);
    fc_jw_double(w, "median_seconds", v->seconds);
    fc_jw_str(w, "split", r->iterations.split[0] ? r->iterations.split : NULL);
    fc_jw_u64(w, "ambiguous_iterations", r->iterations.ambiguous_iterations);
    fc_jw_u64(w, "ambiguous_steady", v->n_ambiguous_split);
    fc_jw_u64(w, "ambiguous_recompute_steady", v->n_ambiguous);
    fc_jw_str(w, "micro_batch", r->iterations.micro_batch[0] ? r->iterations.micro_batch : NULL);
    fc_jw_str(w, "ambiguous_reasons",
              r->iterations.ambiguous_reasons[0] ? r->iterations.ambiguous_reasons : NULL);
    fc_jw_str(w, "advice", r->iterations.advice[0] ? r->iterations.advice : NULL);
    fc_jw_obj_end(w);
}

static void json_measured(fc_jw *w, const fc_report_view *v)
{
    int it = v->has_iterations;
    static const char *const from[] = {"default", "world_size", "option"};
    fc_jw_obj_begin(w, "measured");
    u128_or_null(w, "flops_per_iteration", it, v->job_flops);
    u128_or_null(w, "recompute_flops_per_iteration", it, v->job_recompute);
    u128_or_null(w, "attention_excess_flops_per_iteration", it, v->job_xs);
    u128_or_null(w, "file_flops_per_iteration", it, v->file_flops);
    fc_jw_i64(w, "scaled_by_ranks", v->scale);
    fc_jw_double(w, "seconds_per_iteration", it ? v->seconds : NAN);
    fc_jw_i64(w, "gpus", v->gpus);
    fc_jw_str(w, "gpus_from", from[v->gpus_from]);
    fc_jw_double(w, "peak_flops", v->peak > 0 ? v->peak : NAN);
    if (v->peak > 0)
        fc_jw_str(w, "peak_source", v->peak_desc);
    else
        fc_jw_null(w, "peak_source");
    fc_jw_double(w, "hfu", v->hfu);
    fc_jw_double(w, "mfu", v->mfu);
    /* recompute and MFU rest on the split; true when a steady one is a guess */
    fc_jw_bool(w, "split_ambiguous", v->n_ambiguous > 0);
    /* the recompute figure is of guessed iterations: no steady one was sure */
    fc_jw_bool(w, "recompute_guessed", v->recompute_guessed);
    fc_mix_json(w, &v->mix);
    fc_jw_obj_end(w);
}

static void json_formula(fc_jw *w, const fc_report_view *v)
{
    const fc_gap *g = &v->gap;
    fc_jw_obj_begin(w, "formula");
    fc_jw_str(w, "model_from", v->model_from);
    fc_jw_u128(w, "model_flops_per_iteration", v->f.model_flops_per_iteration);
    fc_jw_u128(w, "hardware_flops_per_iteration", v->f.hardware_flops_per_iteration);
    fc_jw_u128(w, "tokens_per_iteration", v->f.tokens_per_iteration);
    fc_jw_str(w, "recompute", fc_recompute_name(v->model.recompute));
    fc_jw_str(w, "causal_attention", fc_causal_name(v->model.causal));
    fc_jw_double(w, "mfu", v->formula_mfu);
    fc_jw_double(w, "hfu", v->formula_hfu);
    fc_jw_u128(w, "attention_core_flops_per_iteration", g->term[FC_GAP_ATTENTION_CORE]);
    fc_jw_u128(w, "first_layer_dgrad_flops_per_iteration", g->term[FC_GAP_FIRST_DGRAD]);
    fc_jw_u128(w, "logits_flops_per_iteration", g->term[FC_GAP_LOGITS]);
    fc_jw_obj_end(w);
}

static void json_gap(fc_jw *w, const fc_report_view *v)
{
    static const char *const keys[FC_GAP_COUNT] = {"attention_core", "first_layer_dgrad", "logits",
                                                   "attention_band"};
    const fc_gap *g = &v->gap;
    if (!v->has_iterations) {
        fc_jw_null(w, "difference");
        return;
    }
    fc_jw_obj_begin(w, "difference");
    fc_jw_u128(w, "counted_model_flops_per_iteration", fc_report_counted_model(v));
    fc_jw_str(w, "counted_is", g->sign < 0 ? "below" : g->sign > 0 ? "above" : "equal");
    fc_jw_u128(w, "gap_flops", g->abs);
    fc_jw_double(w, "gap_fraction", g->fraction);
    fc_jw_arr_begin(w, "explained_by");
    for (int t = 0; t < FC_GAP_COUNT; t++)
        if (g->explained & (1u << t)) {
            fc_jw_obj_begin(w, NULL);
            fc_jw_str(w, "term", keys[t]);
            fc_jw_u128(w, "flops", g->term[t]);
            fc_jw_str(w, "why", fc_gap_term_why(t));
            fc_jw_obj_end(w);
        }
    fc_jw_arr_end(w);
    fc_jw_u128(w, "unexplained_flops", g->residual);
    fc_jw_bool(w, "exact", g->residual == 0);
    fc_jw_double(w, "recompute_overhead", g->recompute_of_model);
    fc_jw_double(w, "formula_recompute_overhead", g->formula_recompute_of_model);
    fc_jw_obj_end(w);
}

int fci_json_report(const fc_report_view *v)
{
    static fc_jw w;
    fflush(stdout);
    fc_jw_init(&w, STDOUT_FILENO, 1);
    fc_jw_obj_begin(&w, NULL);
    fc_jw_str(&w, "schema", "flopcount.report/1");
    fc_jw_str(&w, "version", FLOPCOUNT_VERSION_STRING);
    json_source(&w, v);
    json_processes(&w, &v->rep);
    json_shapes(&w, &v->rep);
    fci_report_attention_json(&w, v);
    json_iterations(&w, v);
    json_measured(&w, v);
    fci_report_infer_json(&w, v);
    if (v->has_model) {
        json_formula(&w, v);
        json_gap(&w, v);
    } else {
        fc_jw_null(&w, "formula");
        fc_jw_str(&w, "formula_reason", v->formula_reason);
        fc_jw_null(&w, "difference");
    }
    fci_gpu_print_json(&w, &v->gpu);
    fc_jw_obj_end(&w);
    char nl = '\n';
    int rc = fc_jw_finish(&w);
    if (rc == 0 && write(STDOUT_FILENO, &nl, 1) != 1)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "flopcount report: writing the JSON failed\n");
    return rc;
}

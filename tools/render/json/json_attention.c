/* SPDX-License-Identifier: Apache-2.0 */
/* json_attention.c - counted fused attention as JSON: the report's
 * "attention" (with the comparison to the formula) and "uncounted" of one
 * run, and the sections in the shim's layout (docs/report-schema.md) for
 * a sum of runs (merge, the job report), so 'flopcount report' reads a
 * merged report's attention as a rank's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "merge.h"
#include "render_fmt.h"
#include "render_forms.h"
#include "report_view.h"
#include "schema_attention.h"

#define TOP_ATTN_SHAPES 5

/* In the shim's layout (docs/report-schema.md), for 'report', 'merge' and
 * the job report alike. */
static void i64_or_null(fc_jw *w, const char *key, int64_t v)
{
    if (v >= 0)
        fc_jw_i64(w, key, v);
    else
        fc_jw_null(w, key);
}

void fci_json_attn_shape(fc_jw *w, const fc_report_attn_shape *s)
{
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "source", s->source);
    fc_jw_str(w, "direction", s->backward ? "backward" : "forward");
    if (s->overflow) {
        fc_jw_bool(w, "overflow", 1);
    } else {
        fc_jw_str(w, "dtype", s->dtype);
        fc_jw_i64(w, "batch", s->batch);
        fc_jw_i64(w, "heads", s->heads);
        fc_jw_i64(w, "kv_heads", s->kv_heads);
        fc_jw_i64(w, "seq_q", s->seq_q);
        fc_jw_i64(w, "seq_k", s->seq_k);
        fc_jw_i64(w, "head_dim", s->head_dim);
        fc_jw_i64(w, "head_dim_v", s->head_dim_v);
        fc_jw_str(w, "mask", s->mask);
        fc_jw_str(w, "align", s->align);
        fc_jw_i64(w, "window_left", s->window_left);
        fc_jw_i64(w, "window_right", s->window_right);
        fc_jw_bool(w, "bound", s->bound);
        fc_jw_bool(w, "dropout", s->dropout);
        fc_jw_bool(w, "softcap", s->softcap);
        fc_jw_bool(w, "bias", s->bias);
        i64_or_null(w, "block_m", s->block_m);
        i64_or_null(w, "block_n", s->block_n);
        i64_or_null(w, "head_dim_padded", s->head_dim_padded);
        i64_or_null(w, "head_dim_v_padded", s->head_dim_v_padded);
        fc_jw_obj_begin(w, "per_call");
        fc_jw_u128(w, "flops", s->per_call_flops);
        fc_jw_u128(w, "model_flops", s->per_call_model_flops);
        if (s->tiles_known)
            fc_jw_u128(w, "tile_flops", s->per_call_tile_flops);
        else
            fc_jw_null(w, "tile_flops");
        fc_jw_u128(w, "pairs", s->per_call_pairs);
        fc_jw_obj_end(w);
    }
    fc_jw_u64(w, "calls", s->calls);
    fc_jw_u64(w, "failed_calls", s->failed_calls);
    fc_jw_u128(w, "flops", s->flops);
    fc_jw_u128(w, "model_flops", s->model_flops);
    if (s->tiles_known)
        fc_jw_u128(w, "tile_flops", s->tile_flops);
    else
        fc_jw_null(w, "tile_flops");
    fc_jw_obj_end(w);
}

void fci_json_attn_totals(fc_jw *w, const fc_report_attention *a)
{
    fc_attn_totals_rec t; /* the counts, by the section's table (schema_attention.h) */
#define FC_X(P, name, type, req, unit, meaning) t.name = a->name;
    FC_ATTN_TOTALS_FIELDS(FC_X, _)
#undef FC_X
    fc_attn_totals_json(w, &t);
    fc_jw_obj_begin(w, "by_source");
    for (size_t i = 0; i < a->n_by_source; i++) {
        fc_jw_obj_begin(w, a->by_source[i].name);
        fc_jw_u64(w, "calls", a->by_source[i].calls);
        fc_jw_u128(w, "flops", a->by_source[i].flops);
        fc_jw_obj_end(w);
    }
    fc_jw_obj_end(w);
}

void fci_json_uncounted(fc_jw *w, const fc_report_uncounted *u, int words)
{
    char line[600];
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "name", u->name);
    fc_jw_str(w, "class", u->kclass);
    fc_jw_str(w, "reason", u->reason);
    if (words)
        fc_jw_str(w, "why", fc_report_uncounted_why(u->reason));
    fc_jw_str(w, "detail", u->detail);
    fc_jw_u64(w, "calls", u->calls);
    fc_jw_u64(w, "failed_calls", u->failed_calls);
    if (words)
        fc_jw_str(w, "words", fc_report_uncounted_words(u, line, sizeof line));
    fc_jw_obj_end(w);
}

static void json_compare(fc_jw *w, const fc_report_view *v)
{
    const fc_report_attn_cmp *c = &v->attn_cmp;
    if (!c->have_terms) {
        fc_jw_null(w, "formula_comparison");
        return;
    }
    fc_jw_obj_begin(w, "formula_comparison");
    fc_jw_str(w, "convention", fc_causal_name(v->model.causal));
    fc_jw_str(w, "mask", c->mask);
    fc_jw_bool(w, "bound", c->bound);
    fc_jw_u128(w, "formula_flops_per_iteration", c->formula_term);
    fc_jw_u128(w, "exact_flops_per_iteration", c->exact_term);
    fc_jw_str(w, "formula_is",
              c->formula_term > c->exact_term   ? "above"
              : c->formula_term < c->exact_term ? "below"
                                                : "equal");
    fc_jw_u128(w, "difference_flops",
               c->formula_term > c->exact_term ? c->formula_term - c->exact_term
                                               : c->exact_term - c->formula_term);
    fc_jw_obj_end(w);
}

void fci_report_attention_json(fc_jw *w, const fc_report_view *v)
{
    const fc_report *r = &v->rep;
    const fc_report_attention *a = &r->attn;
    if (!a->has) {
        fc_jw_null(w, "attention");
    } else {
        uint64_t bc;
        fc_u128 bf;
        fc_report_attn_bound(&r->attn, &bc, &bf);
        double all = fc_u128_to_double(r->totals.counted_flops);
        fc_jw_obj_begin(w, "attention");
        fci_json_attn_totals(w, a);
        fc_jw_double(w, "share_of_counted",
                     all > 0 ? fc_u128_to_double(r->totals.attention_flops) / all : NAN);
        fc_jw_u64(w, "bound_calls", bc);
        fc_jw_u128(w, "bound_flops", bf);
        uint64_t fcalls;
        fc_u128 fx, fm;
        fc_report_attn_failed(a, &fcalls, &fx, &fm);
        fc_jw_u128(w, "failed_would_execute_flops", fx);
        fc_jw_u128(w, "failed_would_model_flops", fm);
        size_t idx[TOP_ATTN_SHAPES];
        size_t n = fc_report_attn_top(&r->attn, idx, TOP_ATTN_SHAPES);
        fc_jw_arr_begin(w, "top_shapes");
        for (size_t i = 0; i < n; i++)
            fci_json_attn_shape(w, &a->shapes[idx[i]]);
        fc_jw_arr_end(w);
        if (v->has_iterations)
            fc_jw_u128(w, "excess_flops_per_iteration", v->job_xs);
        else
            fc_jw_null(w, "excess_flops_per_iteration");
        if (v->attn_cmp.measured)
            fc_jw_u128(w, "model_flops_per_iteration", v->attn_cmp.measured_model);
        else
            fc_jw_null(w, "model_flops_per_iteration");
        json_compare(w, v);
        fc_jw_obj_end(w);
    }
    fc_jw_arr_begin(w, "uncounted");
    for (size_t i = 0; i < a->n_uncounted; i++)
        fci_json_uncounted(w, &a->uncounted[i], 1);
    fc_jw_arr_end(w);
}

void fc_merge_json_attention(fc_jw *w, const fc_merge *m)
{
    const fc_report_attention *a = &m->attn;
    if (a->has) {
        fc_jw_obj_begin(w, "attention");
        fci_json_attn_totals(w, a);
        fc_jw_arr_begin(w, "shapes");
        for (size_t i = 0; i < a->n_shapes; i++)
            fci_json_attn_shape(w, &a->shapes[i]);
        fc_jw_arr_end(w);
        fc_jw_obj_end(w);
    }
    if (!a->has_uncounted)
        return;
    fc_jw_arr_begin(w, "uncounted");
    for (size_t i = 0; i < a->n_uncounted; i++)
        fci_json_uncounted(w, &a->uncounted[i], 0);
    fc_jw_arr_end(w);
}

/* SPDX-License-Identifier: Apache-2.0 */
/* attention_view.c - counted fused attention in 'flopcount report'
 * (attention_view.h), text and JSON from the report's "attention" and
 * "uncounted" sections and its iterations.
 *
 * Three figures per call (docs/attention.md): executed (what HFU counts:
 * the backward's five products, 2.5x the forward), model (the model-FLOPs
 * convention: backward 2x the forward; what MFU counts) and tiles (the
 * kernel's blocks, when known). An iteration's attention beyond the model
 * convention is what measured MFU leaves out besides the recompute. The
 * counted attention of an iteration at the model convention is 3x its
 * forward, which the excess gives exactly when every backward shape has
 * one head dim d and one d_v: a backward call's excess is 2 P d per head,
 * its forward 2 P (d + d_v). Shapes whose lengths are maxima (varlen,
 * padding) are upper bounds, and said so wherever they are shown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "report_view.h"
#include "render_fmt.h"
#include "schema_attention.h"

#define TOP_ATTN_SHAPES 5

/* ---- figures ---- */

size_t fc_report_attn_top(const fc_report_attention *a, size_t *idx, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < a->n_shapes; i++) {
        fc_u128 f = a->shapes[i].flops;
        size_t at = k;
        while (at > 0 && a->shapes[idx[at - 1]].flops < f)
            at--;
        if (at >= n)
            continue;
        size_t last = k < n ? k : n - 1;
        memmove(idx + at + 1, idx + at, (last - at) * sizeof *idx);
        idx[at] = i;
        k += k < n;
    }
    return k;
}

void fc_report_attn_bound(const fc_report_attention *a, uint64_t *calls, fc_u128 *flops)
{
    *calls = 0, *flops = 0;
    for (size_t i = 0; i < a->n_shapes; i++)
        if (a->shapes[i].bound) {
            *calls += a->shapes[i].calls;
            *flops = fc_u128_sat_add(*flops, a->shapes[i].flops);
        }
}

void fc_report_attn_failed(const fc_report_attention *a, uint64_t *calls, fc_u128 *executed,
                           fc_u128 *model)
{
    *calls = 0, *executed = *model = 0;
    for (size_t i = 0; i < a->n_shapes; i++) {
        const fc_report_attn_shape *s = &a->shapes[i];
        *calls += s->failed_calls;
        *executed = fc_u128_sat_add(*executed, fc_u128_sat_mul(s->failed_calls, s->per_call_flops));
        *model = fc_u128_sat_add(*model, fc_u128_sat_mul(s->failed_calls, s->per_call_model_flops));
    }
}

/* The band the forward calls ran (the backward's when no forward is
 * listed): one for all, or "mixed". */
static void band_of(const fc_report *r, fc_report_attn_cmp *c)
{
    int seen = 0;
    c->mask = "none";
    for (int pass = 0; pass < 2 && !seen; pass++)
        for (size_t i = 0; i < r->attn.n_shapes; i++) {
            const fc_report_attn_shape *s = &r->attn.shapes[i];
            if (s->overflow || s->backward != pass)
                continue;
            c->bound |= s->bound;
            if (!seen) {
                c->band.window_left = s->window_left;
                c->band.window_right = s->window_right;
                c->band.align =
                    strcmp(s->align, "top_left") == 0 ? FC_ATTN_TOP_LEFT : FC_ATTN_BOTTOM_RIGHT;
                c->band.d = s->head_dim, c->band.d_v = s->head_dim_v;
                c->mask = fc_attn_mask_name(&c->band);
                seen = 1;
            } else if (s->window_left != c->band.window_left ||
                       s->window_right != c->band.window_right) {
                c->mask = "mixed";
                return;
            }
        }
    c->band_known = seen;
}

/* 3 x the iterations' attention forward, from their excess (see above). */
static int measured_model(const fc_report_view *v, fc_u128 *out)
{
    int64_t d = -1, dv = -1;
    if (!v->has_iterations || v->job_xs == 0)
        return 0;
    for (size_t i = 0; i < v->rep.attn.n_shapes; i++) {
        const fc_report_attn_shape *s = &v->rep.attn.shapes[i];
        if (!s->backward)
            continue;
        if (s->overflow || (d >= 0 && (s->head_dim != d || s->head_dim_v != dv)))
            return 0; /* head dims not known, or more than one */
        d = s->head_dim, dv = s->head_dim_v;
    }
    if (d <= 0 || v->job_xs % (fc_u128)d != 0)
        return 0;
    *out = fc_u128_sat_mul(3, fc_u128_sat_mul(v->job_xs / (fc_u128)d, (fc_u128)(d + dv)));
    return 1;
}

void fc_report_attention_compare(fc_report_view *v)
{
    fc_report_attn_cmp *c = &v->attn_cmp;
    memset(c, 0, sizeof *c);
    c->counted = v->rep.attn.calls > 0;
    band_of(&v->rep, c);
    c->measured = measured_model(v, &c->measured_model);
    if (!c->counted || !c->band_known || !v->has_model)
        return;
    fc_u128 exact = fc_infer_attn_core_exact(&v->model, &c->band);
    if (exact == 0)
        return;
    c->have_terms = 1;
    c->formula_term = fc_u128_sat_mul(3, v->f.attention_core_forward);
    c->exact_term = fc_u128_sat_mul(3, exact);
}

/* ---- phrases ---- */

char *fc_report_attn_mask_words(const fc_report_attn_shape *s, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s", s->mask[0] ? s->mask : "?");
    if (strcmp(s->mask, "window") == 0 && n > 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " (left %lld, right %lld)",
                      (long long)s->window_left, (long long)s->window_right);
    /* the same band aligned the other way sees other pairs when s_q != s_k */
    if (strcmp(s->mask, "none") != 0 && s->seq_q != s->seq_k && n > 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " %s",
                      strcmp(s->align, "bottom_right") == 0 ? "bottom-right" : "top-left");
    const char *flag[3] = {s->dropout ? "dropout" : NULL, s->softcap ? "softcap" : NULL,
                           s->bias ? "bias" : NULL};
    for (int i = 0; i < 3; i++)
        if (flag[i] != NULL && n > 0 && (size_t)n < size)
            n += snprintf(buf + n, size - (size_t)n, ", %s", flag[i]);
    return buf;
}

char *fc_report_attn_shape_words(const fc_report_attn_shape *s, char *buf, size_t size)
{
    const char *dir = s->backward ? "backward" : "forward";
    if (s->overflow) {
        snprintf(buf, size, "%s %s (shapes beyond the table)%s", s->source, dir,
                 s->bound ? " (a bound)" : "");
        return buf;
    }
    char dv[32] = "", mask[128];
    const char *le = s->bound ? "<=" : "";
    if (s->head_dim_v != s->head_dim)
        snprintf(dv, sizeof dv, "/%lld", (long long)s->head_dim_v);
    int n = snprintf(buf, size, "%s %s %lld x %lld (kv %lld), %s%lld x %s%lld, d %lld%s, %s%s",
                     s->source, dir, (long long)s->batch, (long long)s->heads,
                     (long long)s->kv_heads, le, (long long)s->seq_q, le, (long long)s->seq_k,
                     (long long)s->head_dim, dv, fc_report_attn_mask_words(s, mask, sizeof mask),
                     s->bound ? " (a bound)" : "");
    /* the form that ran: cuDNN's path, FlashAttention's parameter layout */
    if ((s->path[0] || s->layout[0]) && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "; %s%s", s->path[0] ? "cuDNN " : "layout ",
                 s->path[0] ? s->path : s->layout);
    return buf;
}

const char *fc_report_uncounted_why(const char *reason)
{
    static const struct {
        const char *key, *words;
    } why[] = {
        {"opaque_parameters", "parameters not readable on the host"},
        {"layout_mismatch", "its parameters did not check out against the known layouts: not "
                            "decoded"},
        {"varlen_unbounded", "sequence lengths in device memory, and no bound known"},
        {"unresolved_graph", "a cuDNN plan whose operation graph could not be resolved"},
        {"not_counted_operation", "an operation flopcount does not count (convolution)"},
        {"sizes_in_device_memory", "grouped GEMMs whose group sizes are in device memory, "
                                   "and no bound known"},
    };
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++)
        if (strcmp(reason, why[i].key) == 0)
            return why[i].words;
    return reason;
}

char *fc_report_uncounted_words(const fc_report_uncounted *u, char *buf, size_t size)
{
    char failed[48] = "";
    if (u->failed_calls)
        snprintf(failed, sizeof failed, " (and %llu failed)", (unsigned long long)u->failed_calls);
    snprintf(buf, size,
             "%.70s%s (%s) %llu calls%s: %.120s%s%s: its time is in --kernels, its FLOPs in "
             "--hw-flops",
             u->name, strlen(u->name) > 70 ? "..." : "", u->kclass[0] ? u->kclass : "?",
             (unsigned long long)u->calls, failed, u->detail, u->detail[0] ? ": " : "",
             fc_report_uncounted_why(u->reason));
    return buf;
}

static const char *convention_words(int causal)
{
    return causal == FC_CAUSAL_HALF ? "s^2/2 per head" : "s^2 per head";
}

static const char *band_words(const char *mask)
{
    if (strcmp(mask, "causal") == 0)
        return "causal (s(s+1)/2 pairs per head)";
    if (strcmp(mask, "window") == 0)
        return "a windowed band";
    if (strcmp(mask, "none") == 0)
        return "unmasked (s^2 pairs per head)";
    return "bands that differ from call to call";
}

char *fc_report_attention_cmp_words(const fc_report_view *v, char *buf, size_t size)
{
    const fc_report_attn_cmp *c = &v->attn_cmp;
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], e3[FC_U128_DIGITS], m[96] = "";
    if (c->measured)
        snprintf(m, sizeof m, " (counted per iteration: %s)", fc_u128_to_str(c->measured_model, e3));
    if (!c->have_terms) {
        snprintf(buf, size,
                 "the kernels ran %s; not compared term by term (%s)%s", band_words(c->mask),
                 !v->has_model ? "no model" : !c->band_known ? "bands differ" : "shape not usable",
                 m);
        return buf;
    }
    fc_u128 d = c->formula_term > c->exact_term ? c->formula_term - c->exact_term
                                                : c->exact_term - c->formula_term;
    char diff[96];
    if (d == 0)
        snprintf(diff, sizeof diff, "the same");
    else
        snprintf(diff, sizeof diff, "the formula's is %s %s", fc_u128_to_str(d, e3),
                 c->formula_term > c->exact_term ? "more" : "less");
    int n = snprintf(buf, size,
                     "the formula's attention term in its '%s' convention (%s) is %s per "
                     "iteration; the kernels ran %s%s, counted exactly: %s for this model%s; %s",
                     fc_causal_name(v->model.causal), convention_words(v->model.causal),
                     fc_u128_to_str(c->formula_term, e1), band_words(c->mask),
                     c->bound ? " with lengths that are maxima (an upper bound)" : "",
                     fc_u128_to_str(c->exact_term, e2), m, diff);
    (void)n;
    return buf;
}

/* ---- text ---- */

static void text_sources(const fc_report *r)
{
    char e[FC_U128_DIGITS], line[512];
    size_t o = 0;
    line[0] = '\0';
    for (size_t i = 0; i < r->attn.n_by_source && o < sizeof line; i++) {
        const fc_report_attn_source *s = &r->attn.by_source[i];
        fc_u128 bound = 0;
        for (size_t k = 0; k < r->attn.n_shapes; k++)
            if (r->attn.shapes[k].bound && strcmp(r->attn.shapes[k].source, s->name) == 0)
                bound = fc_u128_sat_add(bound, r->attn.shapes[k].flops);
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%s %llu calls %s%s", i ? ", " : "",
                              s->name, (unsigned long long)s->calls, fc_u128_to_str(s->flops, e),
                              bound ? " (some an upper bound)" : "");
    }
    if (line[0])
        printf("  %-14s %s\n", "by source", line);
}

static void text_shapes(const fc_report *r)
{
    size_t idx[TOP_ATTN_SHAPES];
    size_t n = fc_report_attn_top(&r->attn, idx, TOP_ATTN_SHAPES);
    char w[200], e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], e3[FC_U128_DIGITS], tiles[64];
    char failed[96];
    for (size_t i = 0; i < n; i++) {
        const fc_report_attn_shape *s = &r->attn.shapes[idx[i]];
        failed[0] = '\0';
        if (s->failed_calls)
            snprintf(failed, sizeof failed, " (+ %llu failed, that would have executed %s)",
                     (unsigned long long)s->failed_calls,
                     fc_u128_to_str(fc_u128_sat_mul(s->failed_calls, s->per_call_flops), e3));
        if (s->tiles_known)
            snprintf(tiles, sizeof tiles, ", tiles %s", fc_u128_to_str(s->tile_flops, e3));
        else
            snprintf(tiles, sizeof tiles, ", tiles not known");
        const char *le = s->bound ? "<= " : "";
        printf("  %-14s %s: %llu calls%s, executed %s%s, model %s%s%s\n", i ? "" : "attn shapes",
               fc_report_attn_shape_words(s, w, sizeof w), (unsigned long long)s->calls,
               failed, le, fc_u128_to_str(s->flops, e1), le,
               fc_u128_to_str(s->model_flops, e2), tiles);
    }
    if (r->attn.n_shapes > n)
        printf("  %-14s (%zu more shapes in the report)\n", "", r->attn.n_shapes - n);
}

void fc_report_attention_text(const fc_report_view *v)
{
    const fc_report *r = &v->rep;
    const fc_report_attention *a = &r->attn;
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], e3[FC_U128_DIGITS], h[48], p[16], line[600];
    if (a->calls + a->failed_calls > 0) {
        printf("  attention      %s (%s) executed in %llu fused-attention calls; %llu failed; %s "
               "at the model convention\n",
               fc_u128_to_str(a->flops, e1), fc_fmt_flop(a->flops, h, sizeof h),
               (unsigned long long)a->calls, (unsigned long long)a->failed_calls,
               fc_u128_to_str(a->model_flops, e2));
        text_sources(r);
        double all = fc_u128_to_double(r->totals.counted_flops);
        printf("  counted total  %s = GEMMs %s + attention %s (%s attention)\n",
               fc_u128_to_str(r->totals.counted_flops, e1), fc_u128_to_str(r->totals.gemm_flops, e2),
               fc_u128_to_str(r->totals.attention_flops, e3),
               fc_fmt_pct(all > 0 ? fc_u128_to_double(r->totals.attention_flops) / all : NAN, p,
                          sizeof p));
        uint64_t bc;
        fc_u128 bf;
        fc_report_attn_bound(&r->attn, &bc, &bf);
        if (bc)
            printf("  upper bound    %llu calls of shapes whose lengths are maxima (varlen, "
                   "padding): their %s FLOPs are at most that\n",
                   (unsigned long long)bc, fc_u128_to_str(bf, e1));
        uint64_t fcalls;
        fc_u128 fx, fm;
        fc_report_attn_failed(a, &fcalls, &fx, &fm);
        if (fcalls)
            printf("  failed         %llu calls returned an error, counted as nothing: they would "
                   "have executed %s FLOPs (%s at the model convention)\n",
                   (unsigned long long)fcalls, fc_u128_to_str(fx, e1), fc_u128_to_str(fm, e2));
        text_shapes(r);
    }
    for (size_t i = 0; i < a->n_uncounted; i++)
        printf("  %-14s %s\n", i ? "" : "not counted",
               fc_report_uncounted_words(&a->uncounted[i], line, sizeof line));
    /* kernels the launch hooks could not see (a static runtime): counted
     * only where CUPTI saw them, which the note says */
    if (a->launch_note[0])
        printf("  launches       %s\n", a->launch_note);
}

void fc_report_attention_text_measured(const fc_report_view *v)
{
    char e[FC_U128_DIGITS];
    if (v->job_xs == 0)
        return;
    printf("  attention xs   %s of them beyond the model convention (the fused backward "
           "recomputes QK^T: 2.5x its forward, the convention counts 2x); left out of MFU\n",
           fc_u128_to_str(v->job_xs, e));
}

void fc_report_attention_text_gap(const fc_report_view *v)
{
    char line[700];
    if (!v->attn_cmp.counted)
        return;
    printf("  attention      %s\n", fc_report_attention_cmp_words(v, line, sizeof line));
}

/* ---- JSON ---- */

/* In the shim's layout (docs/report-schema.md), for 'report', 'merge' and
 * the job report alike. */
static void i64_or_null(fc_jw *w, const char *key, int64_t v)
{
    if (v >= 0)
        fc_jw_i64(w, key, v);
    else
        fc_jw_null(w, key);
}

void fc_json_attn_shape(fc_jw *w, const fc_report_attn_shape *s)
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

void fc_json_attn_totals(fc_jw *w, const fc_report_attention *a)
{
    fc_attn_totals_rec t; /* the counts, by the section's table (schema_attention.h) */
#define FC_X(name, type, req, unit, meaning) t.name = a->name;
    FC_ATTN_TOTALS_FIELDS(FC_X)
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

void fc_json_uncounted(fc_jw *w, const fc_report_uncounted *u, int words)
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
    fc_jw_str(w, "formula_is", c->formula_term > c->exact_term   ? "above"
                               : c->formula_term < c->exact_term ? "below"
                                                                 : "equal");
    fc_jw_u128(w, "difference_flops", c->formula_term > c->exact_term
                                          ? c->formula_term - c->exact_term
                                          : c->exact_term - c->formula_term);
    fc_jw_obj_end(w);
}

void fc_report_attention_json(fc_jw *w, const fc_report_view *v)
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
        fc_json_attn_totals(w, a);
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
            fc_json_attn_shape(w, &a->shapes[idx[i]]);
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
        fc_json_uncounted(w, &a->uncounted[i], 1);
    fc_jw_arr_end(w);
}

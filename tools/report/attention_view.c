/* SPDX-License-Identifier: Apache-2.0 */
/* attention_view.c - counted fused attention in 'flopcount report'
 * (attention_view.h): its figures from the report's "attention" and
 * "uncounted" sections and its iterations, and its phrases; the forms
 * write them (tools/render/text/text_run.c and text_report.c,
 * json/json_attention.c, html/attention_table.c).
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
#include "render_fmt.h"
#include "report_view.h"
#include "schema_attention.h"

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

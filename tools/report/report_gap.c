/* SPDX-License-Identifier: Apache-2.0 */
/* report_gap.c - why counted FLOPs and the analytic formula differ: the
 * gap (formula model FLOPs - counted FLOPs less recompute and the
 * attention beyond the model convention), and the combination of
 * well-known terms that comes nearest to it. The attention core is a term
 * only where nothing counted it (neither QK^T GEMMs nor fused-attention
 * calls); counted calls bring the formula's causal convention against the
 * exact band they ran instead. All integers, so "explained exactly" means
 * exactly. */
#include <math.h>
#include <string.h>

#include "report_view.h"

static const struct {
    const char *name, *why;
} terms[FC_GAP_COUNT] = {
    [FC_GAP_ATTENTION_CORE] = {"attention core (QK^T and attention x V), forward + backward",
                               "a fused kernel (flash attention, SDPA) computes it outside "
                               "cuBLAS, so the shim does not see it"},
    [FC_GAP_FIRST_DGRAD] = {"first layer's input-projection data gradient",
                            "the formula counts it; frameworks skip it when the first layer's "
                            "input needs no gradient"},
    [FC_GAP_LOGITS] = {"logits (vocabulary projection), forward + backward",
                       "missing when the output layer runs outside cuBLAS (a fused or chunked "
                       "cross-entropy kernel) or the vocabulary is padded differently"},
    [FC_GAP_ATTENTION_BAND] = {"attention core, the formula's causal convention against the "
                               "band the kernels ran, forward + backward",
                               "the fused-attention calls are counted at the (query, key) pairs "
                               "their mask leaves (causal: s(s+1)/2 per head); the formula's "
                               "'full' convention counts s^2 per head, 'half' s^2/2"},
};

const char *fc_gap_term_name(int t) { return t >= 0 && t < FC_GAP_COUNT ? terms[t].name : "?"; }
const char *fc_gap_term_why(int t) { return t >= 0 && t < FC_GAP_COUNT ? terms[t].why : "?"; }

/* The first GEMM of layer 0 is its QKV projection: h -> (a + 2g) * d per
 * token. Its data gradient costs what its forward does. */
static fc_u128 first_layer_dgrad(const fc_report_view *v)
{
    const fc_model *m = &v->model;
    fc_u128 out = (fc_u128)(fc_model_head_dim(m) * (m->heads + 2 * fc_model_kv_heads(m)));
    return fc_u128_sat_mul(fc_u128_sat_mul(2 * v->f.tokens_per_iteration, (fc_u128)m->hidden),
                           out);
}

static fc_u128 subset_sum(const fc_gap *g, unsigned mask)
{
    fc_u128 s = 0;
    for (int t = 0; t < FC_GAP_COUNT; t++)
        if (mask & (1u << t))
            s = fc_u128_sat_add(s, g->term[t]);
    return s;
}

/* The subset of terms whose sum is nearest the gap (fewest terms on a tie);
 * kept only when it leaves at most a tenth of the gap: a term of a very
 * different size explains nothing. */
static void nearest_subset(fc_gap *g)
{
    g->explained = 0;
    g->residual = g->abs;
    if (g->sign > 0 && g->band_above && (g->offered >> FC_GAP_ATTENTION_BAND & 1u)) {
        /* above the formula: only the exact band beyond its 'half' can say why */
        fc_u128 t = g->term[FC_GAP_ATTENTION_BAND];
        fc_u128 r = t > g->abs ? t - g->abs : g->abs - t;
        if (r <= g->abs / 10) {
            g->explained = 1u << FC_GAP_ATTENTION_BAND;
            g->residual = r;
        }
        return;
    }
    if (g->sign >= 0)
        return; /* counted at or above the formula: no missing term explains that */
    for (unsigned mask = 1; mask < (1u << FC_GAP_COUNT); mask++) {
        if ((mask & g->offered) != mask)
            continue;
        fc_u128 s = subset_sum(g, mask);
        fc_u128 r = s > g->abs ? s - g->abs : g->abs - s;
        if (r < g->residual ||
            (r == g->residual && g->explained &&
             __builtin_popcount(mask) < __builtin_popcount(g->explained))) {
            g->residual = r;
            g->explained = mask;
        }
    }
    if (g->residual > g->abs / 10) {
        g->explained = 0;
        g->residual = g->abs;
    }
}

fc_u128 fc_report_counted_model(const fc_report_view *v)
{
    return fc_fig_model_flops(v->job_flops, v->job_recompute, v->job_xs);
}

void fc_report_gap(fc_report_view *v)
{
    fc_gap *g = &v->gap;
    memset(g, 0, sizeof *g);
    fc_u128 model = v->f.model_flops_per_iteration;
    fc_u128 counted = fc_report_counted_model(v);
    g->sign = counted < model ? -1 : counted > model ? 1 : 0;
    g->abs = counted < model ? model - counted : counted - model;
    double fm = fc_u128_to_double(model);
    g->fraction = fm > 0 ? (double)g->sign * fc_u128_to_double(g->abs) / fm : NAN;
    g->term[FC_GAP_ATTENTION_CORE] = fc_u128_sat_mul(3, v->f.attention_core_forward);
    g->term[FC_GAP_FIRST_DGRAD] = first_layer_dgrad(v);
    g->term[FC_GAP_LOGITS] = fc_u128_sat_mul(3, v->f.logits_forward);
    g->offered = (1u << FC_GAP_COUNT) - 1;
    const fc_report_attn_cmp *a = &v->attn_cmp;
    int core_seen = a->counted || (v->has_inferred && v->inf.f.ok && v->inf.f.core);
    if (core_seen) /* QK^T GEMMs or fused-attention calls counted the core: not missing */
        g->offered &= ~(1u << FC_GAP_ATTENTION_CORE);
    if (a->have_terms && a->formula_term != a->exact_term) {
        g->band_above = a->exact_term > a->formula_term;
        g->term[FC_GAP_ATTENTION_BAND] = g->band_above ? a->exact_term - a->formula_term
                                                       : a->formula_term - a->exact_term;
    } else {
        g->offered &= ~(1u << FC_GAP_ATTENTION_BAND);
    }
    nearest_subset(g);
    g->recompute_of_model = fm > 0 ? fc_u128_to_double(v->job_recompute) / fm : NAN;
    fc_u128 hw = v->f.hardware_flops_per_iteration;
    g->formula_recompute_of_model = fm > 0 ? fc_u128_to_double(hw - model) / fm : NAN;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* formula.c - analytic FLOPs and parameters of a decoder-only transformer.
 *
 * Everything is built from the GEMMs a layer runs, per token T = B*s:
 *   QKV      2*T*h*(a*d + 2*g*d)     (GQA: K and V shrink to g heads)
 *   out proj 2*T*(a*d)*h
 *   MLP      2*T*h*f*(2, or 3 gated)   (MoE layers: top-k routed experts of
 *            moe_ffn, plus shared experts, plus the router 2*T*h*E)
 *   core     2*2*B*s^2*(a*d)         (QK^T and attention*V use the query
 *            heads; halved under the causal "half" convention; with a
 *            sliding window of w' = min(s, window) keys: 2*2*B*s*w'*(a*d),
 *            causal 2*B*w'*(2s - w')*(a*d), on the windowed layers)
 *   logits   2*T*h*V
 * backward = 2 x forward, so model FLOPs = 3 x forward. Hardware FLOPs add
 * the recomputed forward work: selective = the attention core again, full =
 * every layer again (the logits are not recomputed). With d = h/a, g = a,
 * f = 4h and no MoE this is exactly Korthikanti's
 * 72*B*s*l*h^2*(1 + s/6h + V/12hl).
 *
 * Integers all the way: saturating 128-bit products, with an overflow flag
 * so a caller can refuse a model whose numbers do not fit. */
#include "formula.h"

#include <stdio.h>
#include <string.h>

/* Saturating arithmetic that remembers whether it saturated. */
typedef struct acc {
    int ovf;
} acc;

static fc_u128 mul(acc *c, fc_u128 a, fc_u128 b)
{
    if (a != 0 && b > FC_U128_MAX / a) {
        c->ovf = 1;
        return FC_U128_MAX;
    }
    return a * b;
}

static fc_u128 mul3(acc *c, fc_u128 a, fc_u128 b, fc_u128 d) { return mul(c, mul(c, a, b), d); }

static fc_u128 add(acc *c, fc_u128 a, fc_u128 b)
{
    fc_u128 r = a + b;
    if (r < a) {
        c->ovf = 1;
        return FC_U128_MAX;
    }
    return r;
}

static fc_u128 u(int64_t v) { return v > 0 ? (fc_u128)v : 0; }

int64_t fc_model_kv_heads(const fc_model *m) { return m->kv_heads > 0 ? m->kv_heads : m->heads; }

int64_t fc_model_head_dim(const fc_model *m)
{
    if (m->head_dim > 0)
        return m->head_dim;
    return m->heads > 0 ? m->hidden / m->heads : 0;
}

int64_t fc_model_ffn(const fc_model *m) { return m->ffn > 0 ? m->ffn : 4 * m->hidden; }

int64_t fc_model_moe_ffn(const fc_model *m) { return m->moe_ffn > 0 ? m->moe_ffn : fc_model_ffn(m); }

int64_t fc_model_shared_ffn(const fc_model *m)
{
    return m->shared_ffn > 0 ? m->shared_ffn : fc_model_moe_ffn(m);
}

int64_t fc_model_window_layers(const fc_model *m)
{
    if (m->window <= 0)
        return 0;
    return m->window_layers > 0 ? m->window_layers : m->layers;
}

int64_t fc_model_window_keys(const fc_model *m)
{
    return m->window > 0 && m->window < m->seq ? m->window : m->seq;
}

/* Multiples of n in [0, x): ceil(x / n). */
static int64_t multiples_below(int64_t x, int64_t n) { return x <= 0 ? 0 : (x + n - 1) / n; }

int64_t fc_formula_moe_layers(const fc_model *m)
{
    if (m->experts <= 0 || m->layers <= 0)
        return 0;
    int64_t every = m->moe_every > 1 ? m->moe_every : 1;
    int64_t first = m->moe_first_dense > 0 ? m->moe_first_dense : 0;
    if (first >= m->layers)
        return 0;
    return multiples_below(m->layers, every) - multiples_below(first, every);
}

static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const causal_names[] = {"full", "half"};

const char *fc_recompute_name(int r) { return r >= 0 && r <= 2 ? recompute_names[r] : NULL; }
const char *fc_causal_name(int c) { return c >= 0 && c <= 1 ? causal_names[c] : NULL; }

int fc_recompute_from_name(const char *name)
{
    for (int i = 0; name != NULL && i <= 2; i++)
        if (strcmp(name, recompute_names[i]) == 0)
            return i;
    return -1;
}

int fc_causal_from_name(const char *name)
{
    for (int i = 0; name != NULL && i <= 1; i++)
        if (strcmp(name, causal_names[i]) == 0)
            return i;
    return -1;
}

/* Weights of one MLP of width f: up (and gate) plus down, h*f each. */
static fc_u128 mlp_weights(acc *c, const fc_model *m, int64_t f)
{
    return mul3(c, m->swiglu ? 3 : 2, u(m->hidden), u(f));
}

/* The weight counts one token meets, per kind; FLOPs are 2 per weight. */
typedef struct weights {
    fc_u128 attn;         /* all layers: Q, K, V, O */
    fc_u128 mlp_active;   /* all layers: dense MLPs, top-k + shared experts */
    fc_u128 mlp_total;    /* all layers: every expert */
    fc_u128 router;       /* all MoE layers */
    fc_u128 embedding;    /* V*h, plus V*h again when untied */
    fc_u128 norms;        /* (2l + 1) * h */
} weights;

static void count_weights(acc *c, const fc_model *m, int64_t moe_layers, weights *w)
{
    fc_u128 h = u(m->hidden), l = u(m->layers);
    fc_u128 ad = mul(c, u(m->heads), u(fc_model_head_dim(m)));
    fc_u128 gd = mul(c, u(fc_model_kv_heads(m)), u(fc_model_head_dim(m)));
    /* Q is h x (a*d), K and V h x (g*d) each, O (a*d) x h. */
    w->attn = mul3(c, l, h, add(c, mul(c, 2, ad), mul(c, 2, gd)));

    fc_u128 dense = mul(c, u(m->layers - moe_layers), mlp_weights(c, m, fc_model_ffn(m)));
    fc_u128 expert = mlp_weights(c, m, fc_model_moe_ffn(m));
    fc_u128 shared = mul(c, u(m->shared_experts), mlp_weights(c, m, fc_model_shared_ffn(m)));
    fc_u128 ml = u(moe_layers);
    w->mlp_active = add(c, dense, mul(c, ml, add(c, mul(c, u(m->topk), expert), shared)));
    w->mlp_total = add(c, dense, mul(c, ml, add(c, mul(c, u(m->experts), expert), shared)));
    w->router = mul3(c, ml, h, u(m->experts));

    fc_u128 vh = mul(c, u(m->vocab), h);
    w->embedding = m->untied_embeddings ? mul(c, 2, vh) : vh;
    w->norms = mul(c, add(c, mul(c, 2, l), 1), h);
}

static void fill_params(acc *c, const weights *w, fc_flops *f)
{
    fc_u128 active = add(c, add(c, w->attn, w->mlp_active), add(c, w->router, w->norms));
    fc_u128 total = add(c, add(c, w->attn, w->mlp_total), add(c, w->router, w->norms));
    f->params_no_embedding = total;
    f->params = add(c, total, w->embedding);
    f->params_active_no_embedding = active;
    f->params_active = add(c, active, w->embedding);
}

static void fill_forward(acc *c, const fc_model *m, const weights *w, fc_flops *f)
{
    fc_u128 t = f->tokens_per_iteration;
    fc_u128 ad = mul(c, u(m->heads), u(fc_model_head_dim(m)));
    f->attention_linear_forward = mul3(c, 2, t, w->attn);
    f->mlp_forward = mul3(c, 2, t, w->mlp_active);
    f->router_forward = mul3(c, 2, t, w->router);
    /* QK^T: B*a GEMMs of s x s x d; attention*V the same: 2*2*B*s^2*a*d per
     * layer. The causal convention counts only the lower triangle: half.
     * A sliding window of w' keys per query: the band of an s x s score
     * matrix w' wide, s*w' entries (full convention) or, causal, the area
     * under min(i, w') for i in [0, s], s*w' - w'^2/2 (which is s^2/2 at
     * w' = s, the halved square). */
    int64_t wl = fc_model_window_layers(m), wk = fc_model_window_keys(m);
    fc_u128 sq = mul(c, u(m->seq), u(m->seq)), band;
    if (m->causal == FC_CAUSAL_HALF) {
        sq = mul(c, sq, 2);
        band = mul3(c, 2, u(wk), u(2 * m->seq - wk));
    } else {
        sq = mul(c, sq, 4);
        band = mul3(c, 4, u(m->seq), u(wk));
    }
    fc_u128 per_head = add(c, mul(c, u(m->layers - wl), sq), mul(c, u(wl), band));
    fc_u128 core = mul3(c, per_head, u(m->batch), ad);
    f->attention_core_forward = core;
    f->logits_forward = mul3(c, mul(c, 2, t), u(m->hidden), u(m->vocab));
    fc_u128 layers = add(c, add(c, f->attention_linear_forward, f->mlp_forward),
                         add(c, f->router_forward, core));
    f->forward_flops_per_iteration = add(c, layers, f->logits_forward);

    f->model_flops_per_iteration = mul(c, 3, f->forward_flops_per_iteration);
    f->hardware_by_recompute[FC_RECOMPUTE_NONE] = f->model_flops_per_iteration;
    f->hardware_by_recompute[FC_RECOMPUTE_SELECTIVE] = add(c, f->model_flops_per_iteration, core);
    f->hardware_by_recompute[FC_RECOMPUTE_FULL] = add(c, f->model_flops_per_iteration, layers);
    int r = m->recompute >= 0 && m->recompute <= 2 ? m->recompute : FC_RECOMPUTE_NONE;
    f->hardware_flops_per_iteration = f->hardware_by_recompute[r];
    f->model_flops_per_token = t ? f->model_flops_per_iteration / t : 0;
}

static void fill_comparisons(acc *c, const fc_model *m, fc_flops *f)
{
    fc_u128 t = f->tokens_per_iteration;
    fc_u128 ad = mul(c, u(m->heads), u(fc_model_head_dim(m)));
    f->six_n_flops_per_iteration = mul3(c, 6, f->params_active, t);
    f->six_n_no_embedding_per_iteration = mul3(c, 6, f->params_active_no_embedding, t);
    /* PaLM appendix B / nanoGPT estimate_mfu: 6N + 12*l*H*Q*T per token,
     * H*Q = a*d the query width, T the sequence. */
    fc_u128 attn = mul3(c, mul(c, 12, u(m->layers)), ad, u(m->seq));
    f->palm_flops_per_iteration = mul(c, add(c, mul(c, 6, f->params_active), attn), t);
}

void fc_formula(const fc_model *m, fc_flops *f)
{
    acc c = {0};
    memset(f, 0, sizeof *f);
    f->moe_layers = fc_formula_moe_layers(m);
    f->tokens_per_iteration = mul(&c, u(m->batch), u(m->seq));
    weights w;
    count_weights(&c, m, f->moe_layers, &w);
    fill_params(&c, &w, f);
    fill_forward(&c, m, &w, f);
    fill_comparisons(&c, m, f);
    f->overflow = c.ovf;
}

/* ---- validation ---- */

static int fail(char *err, size_t n, const char *msg)
{
    if (err != NULL && n > 0)
        snprintf(err, n, "%s", msg);
    return -1;
}

static int check_required(const fc_model *m, char *err, size_t n)
{
    static const struct {
        size_t off;
        const char *msg;
    } req[] = {
        {offsetof(fc_model, layers), "the number of layers is missing (--layers)"},
        {offsetof(fc_model, hidden), "the hidden size is missing (--hidden)"},
        {offsetof(fc_model, heads), "the number of attention heads is missing (--heads)"},
        {offsetof(fc_model, vocab), "the vocabulary size is missing (--vocab)"},
        {offsetof(fc_model, seq), "the sequence length is missing (--seq)"},
        {offsetof(fc_model, batch), "the batch (sequences per iteration) is missing (--batch)"},
    };
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        int64_t v;
        memcpy(&v, (const char *)m + req[i].off, sizeof v);
        if (v <= 0)
            return fail(err, n, req[i].msg);
    }
    return 0;
}

static int check_attention(const fc_model *m, char *err, size_t n)
{
    char msg[160];
    if (m->kv_heads < 0 || m->head_dim < 0 || m->ffn < 0)
        return fail(err, n, "negative sizes are not allowed");
    if (m->kv_heads > m->heads || (m->kv_heads > 0 && m->heads % m->kv_heads != 0)) {
        snprintf(msg, sizeof msg, "--kv-heads %lld must divide --heads %lld",
                 (long long)m->kv_heads, (long long)m->heads);
        return fail(err, n, msg);
    }
    if (m->head_dim == 0 && m->hidden % m->heads != 0) {
        snprintf(msg, sizeof msg, "hidden %lld is not a multiple of heads %lld (give --head-dim)",
                 (long long)m->hidden, (long long)m->heads);
        return fail(err, n, msg);
    }
    if (m->recompute < 0 || m->recompute > 2 || m->causal < 0 || m->causal > 1)
        return fail(err, n, "unknown recompute or causal convention");
    return 0;
}

static int check_window(const fc_model *m, char *err, size_t n)
{
    if (m->window < 0 || m->window_layers < 0)
        return fail(err, n, "negative sliding-window sizes are not allowed");
    if (m->window_layers > 0 && m->window == 0)
        return fail(err, n, "--window-layers needs --sliding-window");
    if (m->window_layers > m->layers)
        return fail(err, n, "--window-layers is larger than --layers");
    return 0;
}

static int check_moe(const fc_model *m, char *err, size_t n)
{
    if (m->experts < 0 || m->topk < 0 || m->moe_ffn < 0 || m->shared_experts < 0 ||
        m->moe_every < 0 || m->shared_ffn < 0 || m->moe_first_dense < 0)
        return fail(err, n, "negative MoE sizes are not allowed");
    if (m->experts == 0) {
        if (m->topk || m->moe_ffn || m->shared_experts || m->shared_ffn || m->moe_every > 1 ||
            m->moe_first_dense)
            return fail(err, n, "MoE options need --experts");
        return 0;
    }
    if (m->topk == 0)
        return fail(err, n, "a MoE model needs --topk (experts per token)");
    if (m->topk > m->experts)
        return fail(err, n, "--topk is larger than --experts");
    if (m->moe_first_dense > m->layers)
        return fail(err, n, "--moe-first-dense is larger than --layers");
    return 0;
}

int fc_model_check(const fc_model *m, char *err, size_t errlen)
{
    if (check_required(m, err, errlen) || check_attention(m, err, errlen) ||
        check_window(m, err, errlen) || check_moe(m, err, errlen))
        return -1;
    fc_flops f;
    fc_formula(m, &f);
    if (f.overflow)
        return fail(err, errlen, "the model is too large: FLOPs pass 2^128");
    return 0;
}

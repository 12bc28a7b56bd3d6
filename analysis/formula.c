/* SPDX-License-Identifier: Apache-2.0 */
/* formula.c - analytic FLOPs and parameters of a decoder-only transformer:
 * the layers by kind, each kind's cost (formula_layers.c) summed into the
 * iteration's totals, the recompute modes and the comparison forms.
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
 * and, for the other layer kinds (multi-latent attention, chunked
 * attention, gated delta-net, Mamba, MLP-only and mixer-only layers,
 * multi-token prediction), the terms formula_layers.c lists.
 * backward = 2 x forward, so model FLOPs = 3 x forward. Hardware FLOPs add
 * the recomputed forward work: selective = the attention cores again, full =
 * every layer again (the logits and the MTP input projections are not
 * recomputed). With d = h/a, g = a, f = 4h and no MoE this is exactly
 * Korthikanti's 72*B*s*l*h^2*(1 + s/6h + V/12hl).
 *
 * Integers all the way: saturating 128-bit products, with an overflow flag
 * so a caller can refuse a model whose numbers do not fit. */
#include "formula.h"

#include <string.h>

#include "formula_internal.h"

#define mul fc_acc_mul
#define mul3 fc_acc_mul3
#define add fc_acc_add
#define u fc_acc_u
typedef fc_acc acc;

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

int fc_model_mla(const fc_model *m) { return m->kv_lora_rank > 0; }

int64_t fc_model_mamba_version(const fc_model *m) { return m->mamba_version == 1 ? 1 : 2; }

int64_t fc_model_mamba_inner(const fc_model *m)
{
    if (fc_model_mamba_version(m) == 1)
        return m->mamba_inner;
    return m->mamba_heads > 0 && m->mamba_head_dim > 0 ? m->mamba_heads * m->mamba_head_dim
                                                        : m->mamba_inner;
}

int64_t fc_model_mamba_groups(const fc_model *m) { return m->mamba_groups > 0 ? m->mamba_groups : 1; }

int64_t fc_model_gdn_chunk(const fc_model *m) { return m->gdn_chunk > 0 ? m->gdn_chunk : 64; }

/* Multiples of n in [0, x): ceil(x / n). */
static int64_t multiples_below(int64_t x, int64_t n) { return x <= 0 ? 0 : (x + n - 1) / n; }

/* ---- the layers by kind ---- */

static size_t pattern_len(const char *p) { return strnlen(p, FC_MAX_LAYER_PATTERN + 1); }

/* Layers of the pattern p (repeated to `layers`) whose character is k. */
static int64_t in_pattern(const char *p, int64_t layers, char k)
{
    size_t len = pattern_len(p);
    int64_t once = 0;
    for (size_t i = 0; i < len; i++)
        once += p[i] == k;
    if (len == 0 || layers <= 0)
        return 0;
    int64_t reps = layers / (int64_t)len, rest = layers % (int64_t)len, extra = 0;
    for (int64_t i = 0; i < rest; i++)
        extra += p[i] == k;
    return once * reps + extra;
}

/* Without a pattern: the legacy window (the last window_layers layers,
 * as Qwen's max_window_layers) and MoE rules. */
static int64_t legacy_window_layers(const fc_model *m)
{
    if (m->window <= 0)
        return 0;
    return m->window_layers > 0 ? m->window_layers : m->layers;
}

static int64_t legacy_moe_layers(const fc_model *m)
{
    if (m->experts <= 0 || m->layers <= 0)
        return 0;
    int64_t every = m->moe_every > 1 ? m->moe_every : 1;
    int64_t first = m->moe_first_dense > 0 ? m->moe_first_dense : 0;
    if (first >= m->layers)
        return 0;
    return multiples_below(m->layers, every) - multiples_below(first, every);
}

int64_t fc_formula_moe_layers(const fc_model *m)
{
    if (m->mlps[0])
        return in_pattern(m->mlps, m->layers, FC_MLP_MOE);
    return legacy_moe_layers(m);
}

int64_t fc_model_window_layers(const fc_model *m)
{
    if (m->mixers[0])
        return in_pattern(m->mixers, m->layers, FC_MIX_SLIDING);
    return legacy_window_layers(m);
}

int64_t fc_model_window_keys(const fc_model *m)
{
    return m->window > 0 && m->window < m->seq ? m->window : m->seq;
}

char fc_model_layer_mixer(const fc_model *m, int64_t i)
{
    if (m->mixers[0])
        return m->mixers[i % (int64_t)pattern_len(m->mixers)];
    return i >= m->layers - legacy_window_layers(m) ? FC_MIX_SLIDING : FC_MIX_ATTENTION;
}

char fc_model_layer_mlp(const fc_model *m, int64_t i)
{
    if (m->mlps[0])
        return m->mlps[i % (int64_t)pattern_len(m->mlps)];
    int64_t every = m->moe_every > 1 ? m->moe_every : 1;
    return m->experts > 0 && i >= m->moe_first_dense && i % every == 0 ? FC_MLP_MOE
                                                                       : FC_MLP_DENSE;
}

void fc_model_layer_counts(const fc_model *m, fc_layer_counts *c)
{
    memset(c, 0, sizeof *c);
    int64_t l = m->layers > 0 ? m->layers : 0;
    if (m->mixers[0]) {
        c->attention = in_pattern(m->mixers, l, FC_MIX_ATTENTION);
        c->sliding = in_pattern(m->mixers, l, FC_MIX_SLIDING);
        c->chunked = in_pattern(m->mixers, l, FC_MIX_CHUNKED);
        c->gdn = in_pattern(m->mixers, l, FC_MIX_GDN);
        c->mamba = in_pattern(m->mixers, l, FC_MIX_MAMBA);
        c->no_mixer = in_pattern(m->mixers, l, FC_MIX_NONE);
    } else {
        c->sliding = legacy_window_layers(m);
        c->attention = l - c->sliding;
    }
    if (m->mlps[0]) {
        c->moe = in_pattern(m->mlps, l, FC_MLP_MOE);
        c->dense = in_pattern(m->mlps, l, FC_MLP_DENSE);
        c->no_mlp = in_pattern(m->mlps, l, FC_MLP_NONE);
    } else {
        c->moe = legacy_moe_layers(m);
        c->dense = l - c->moe;
    }
}

char fc_model_mtp_mixer(const fc_model *m)
{
    return m->mtp_block[0] ? m->mtp_block[0] : FC_MIX_ATTENTION;
}

/* The MTP block's MLP: given, or that of the last layer that has one
 * (DeepSeek-V3's MTP block is a MoE layer like its last). */
char fc_model_mtp_mlp(const fc_model *m)
{
    if (m->mtp_block[0] && m->mtp_block[1])
        return m->mtp_block[1];
    int64_t back = m->mlps[0] ? (int64_t)pattern_len(m->mlps) : 1;
    for (int64_t i = m->layers - 1; i >= 0 && i >= m->layers - back; i--)
        if (fc_model_layer_mlp(m, i) != FC_MLP_NONE)
            return fc_model_layer_mlp(m, i);
    return FC_MLP_NONE;
}

/* ---- names ---- */

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

/* ---- the totals ---- */

/* The sums over all layers (and MTP blocks) of each part. */
typedef struct totals {
    fc_u128 attn_w, core;         /* attention layers: weights, core FLOPs */
    fc_u128 mixer_w, scan;        /* gated delta-net and Mamba layers */
    fc_u128 mlp_w, mlp_all, router;
    fc_u128 norms, mtp_w;         /* norm scales; MTP input projections */
    fc_u128 embedding;            /* V*h, plus V*h again when untied */
    int64_t attn_layers;          /* attention mixers, MTP blocks' too (PaLM) */
} totals;

static int is_attention(char k)
{
    return k == FC_MIX_ATTENTION || k == FC_MIX_SLIDING || k == FC_MIX_CHUNKED;
}

static void add_mixer(acc *c, const fc_model *m, char kind, int64_t n, totals *t)
{
    if (n <= 0)
        return;
    fc_kind_cost k;
    fc_mixer_cost(c, m, kind, &k);
    fc_u128 w = mul(c, u(n), k.weights), act = mul(c, u(n), k.activations);
    if (is_attention(kind)) {
        t->attn_w = add(c, t->attn_w, w), t->core = add(c, t->core, act);
        t->attn_layers += n;
    } else {
        t->mixer_w = add(c, t->mixer_w, w), t->scan = add(c, t->scan, act);
    }
    t->norms = add(c, t->norms, mul(c, u(n), k.norms));
}

static void add_mlp(acc *c, const fc_model *m, char kind, int64_t n, totals *t)
{
    if (n <= 0)
        return;
    fc_kind_cost k;
    fc_mlp_cost(c, m, kind, &k);
    t->mlp_w = add(c, t->mlp_w, mul(c, u(n), k.weights));
    t->mlp_all = add(c, t->mlp_all, mul(c, u(n), k.weights_all));
    t->router = add(c, t->router, mul(c, u(n), k.router));
    t->norms = add(c, t->norms, mul(c, u(n), k.norms));
}

static void sum_layers(acc *c, const fc_model *m, totals *t)
{
    fc_layer_counts n;
    fc_model_layer_counts(m, &n);
    memset(t, 0, sizeof *t);
    add_mixer(c, m, FC_MIX_ATTENTION, n.attention, t);
    add_mixer(c, m, FC_MIX_SLIDING, n.sliding, t);
    add_mixer(c, m, FC_MIX_CHUNKED, n.chunked, t);
    add_mixer(c, m, FC_MIX_GDN, n.gdn, t);
    add_mixer(c, m, FC_MIX_MAMBA, n.mamba, t);
    add_mlp(c, m, FC_MLP_DENSE, n.dense, t);
    add_mlp(c, m, FC_MLP_MOE, n.moe, t);
    /* Multi-token prediction, per depth: the embedding of the next token
     * and the hidden state, each normed, concatenated (2h) and projected
     * back to h, one block, the shared head (its norm, the logits). */
    fc_u128 h = u(m->hidden);
    if (m->mtp_layers > 0) {
        add_mixer(c, m, fc_model_mtp_mixer(m), m->mtp_layers, t);
        add_mlp(c, m, fc_model_mtp_mlp(m), m->mtp_layers, t);
        t->mtp_w = mul3(c, u(m->mtp_layers), mul(c, 2, h), h);
        t->norms = add(c, t->norms, mul3(c, u(m->mtp_layers), 3, h));
    }
    t->norms = add(c, t->norms, h); /* the final norm */
    fc_u128 vh = mul(c, u(m->vocab), h);
    t->embedding = m->untied_embeddings ? mul(c, 2, vh) : vh;
}

static void fill_params(acc *c, const totals *t, fc_flops *f)
{
    fc_u128 common = add(c, add(c, t->attn_w, t->mixer_w),
                         add(c, add(c, t->router, t->norms), t->mtp_w));
    f->params_no_embedding = add(c, common, t->mlp_all);
    f->params = add(c, f->params_no_embedding, t->embedding);
    f->params_active_no_embedding = add(c, common, t->mlp_w);
    f->params_active = add(c, f->params_active_no_embedding, t->embedding);
}

static void fill_forward(acc *c, const fc_model *m, const totals *t, fc_flops *f)
{
    fc_u128 t2 = mul(c, 2, f->tokens_per_iteration);
    f->attention_linear_forward = mul(c, t2, t->attn_w);
    f->attention_core_forward = t->core;
    f->mixer_linear_forward = mul(c, t2, t->mixer_w);
    f->scan_forward = t->scan;
    f->mlp_forward = mul(c, t2, t->mlp_w);
    f->router_forward = mul(c, t2, t->router);
    f->mtp_proj_forward = mul(c, t2, t->mtp_w);
    fc_u128 one = mul3(c, t2, u(m->hidden), u(m->vocab));
    f->mtp_logits_forward = mul(c, one, u(m->mtp_layers));
    f->logits_forward = add(c, one, f->mtp_logits_forward);
    fc_u128 layers = add(c, add(c, f->attention_linear_forward, f->attention_core_forward),
                         add(c, f->mixer_linear_forward, f->scan_forward));
    layers = add(c, layers, add(c, f->mlp_forward, f->router_forward));
    f->forward_flops_per_iteration =
        add(c, layers, add(c, f->mtp_proj_forward, f->logits_forward));

    f->model_flops_per_iteration = mul(c, 3, f->forward_flops_per_iteration);
    f->hardware_by_recompute[FC_RECOMPUTE_NONE] = f->model_flops_per_iteration;
    f->hardware_by_recompute[FC_RECOMPUTE_SELECTIVE] =
        add(c, f->model_flops_per_iteration, f->attention_core_forward);
    f->hardware_by_recompute[FC_RECOMPUTE_FULL] = add(c, f->model_flops_per_iteration, layers);
    int r = m->recompute >= 0 && m->recompute <= 2 ? m->recompute : FC_RECOMPUTE_NONE;
    f->hardware_flops_per_iteration = f->hardware_by_recompute[r];
    fc_u128 tok = f->tokens_per_iteration;
    f->model_flops_per_token = tok ? f->model_flops_per_iteration / tok : 0;
}

static void fill_comparisons(acc *c, const fc_model *m, const totals *t, fc_flops *f)
{
    fc_u128 tok = f->tokens_per_iteration;
    f->six_n_flops_per_iteration = mul3(c, 6, f->params_active, tok);
    f->six_n_no_embedding_per_iteration = mul3(c, 6, f->params_active_no_embedding, tok);
    /* PaLM appendix B / nanoGPT estimate_mfu: 6N + 12*l*H*Q*T per token,
     * H*Q = a*d the query width, T the sequence; l the attention layers,
     * and for MLA H*Q = a*(d_qk + d_v)/2 (QK^T and AV differ in width). */
    fc_u128 attn = mul3(c, mul(c, 6, u(t->attn_layers)), fc_attention_qkv_width(c, m), u(m->seq));
    f->palm_flops_per_iteration = mul(c, add(c, mul(c, 6, f->params_active), attn), tok);
}

void fc_formula(const fc_model *m, fc_flops *f)
{
    acc c = {0};
    memset(f, 0, sizeof *f);
    f->moe_layers = fc_formula_moe_layers(m);
    f->tokens_per_iteration = mul(&c, u(m->batch), u(m->seq));
    totals t;
    sum_layers(&c, m, &t);
    fill_params(&c, &t, f);
    fill_forward(&c, m, &t, f);
    fill_comparisons(&c, m, &t, f);
    f->overflow = c.ovf;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* infer_shapes.c - the model's facts from its layers (infer.h): every
 * layer's attention alike, the MLPs alike (dense layers among themselves,
 * MoE layers among themselves), where the MoE layers are, the logits, the
 * extra GEMMs, and the attention core agreeing with the projections
 * (B*a products of s x s by d, with B*s the tokens and a*d the output
 * projection's width). A stream that does not read as one uniform
 * transformer goes to the layer-kinds reader (infer_kinds.c). */
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

size_t fc_infer_work_size(void)
{
    return sizeof(fc_infer_work);
}

static void set_why(fc_infer_facts *f, const char *fmt, size_t j, const char *what)
{
    f->ok = 0;
    snprintf(f->why, sizeof f->why, fmt, j, what);
}

static int same_attention(const layer *a, const layer *b)
{
    return a->h == b->h && a->q == b->q && a->kv == b->kv && a->core == b->core && a->s == b->s &&
           a->d == b->d && a->heads_b == b->heads_b && a->nproj == b->nproj;
}

int fc_infer_same_mlp(const layer *a, const layer *b)
{
    if (a->mlp != b->mlp)
        return 0;
    if (a->mlp == MLP_DENSE)
        return a->f == b->f && a->gated == b->gated;
    return a->fe == b->fe && a->egated == b->egated && a->experts == b->experts &&
           a->shared_n == b->shared_n && a->shared_f == b->shared_f &&
           a->shared_gated == b->shared_gated;
}

/* Megatron's rule: layer i is MoE when i >= K and i % N == 0. */
static int moe_pattern(const fc_infer_work *w, int64_t *every, int64_t *first)
{
    size_t L = w->n_lay, m0 = SIZE_MAX;
    for (size_t i = 0; i < L && m0 == SIZE_MAX; i++)
        if (w->lay[i].mlp == MLP_MOE)
            m0 = i;
    for (size_t N = 1; N <= L; N++) {
        if (m0 % N != 0)
            continue;
        size_t i = 0;
        while (i < L && (w->lay[i].mlp == MLP_MOE) == (i >= m0 && i % N == 0))
            i++;
        if (i == L) {
            *every = (int64_t)N, *first = (int64_t)m0;
            return 0;
        }
    }
    return -1;
}

/* The logits after the last layer: h -> V on all tokens, in one GEMM or in
 * chunks (an expert-like run of h -> V on parts of the tokens). */
static int64_t logits_at(const fc_infer_work *w, const op *x, int64_t h)
{
    if (x->kind == OP_LIN)
        return x->tok == w->tokens && x->grp == 1 && x->in == h ? x->out : 0;
    if (x->kind != OP_EXPERTS)
        return 0;
    int64_t sum = 0, v = w->raw[x->first].out;
    for (size_t r = x->first; r < x->last; r++) {
        const op *c = &w->raw[r];
        if (c->in != h || c->out != v || c->grp != 1)
            return 0;
        sum += c->tok;
    }
    return sum == w->tokens ? v : 0;
}

static void extras(const fc_infer_work *w, fc_infer_facts *f, int64_t h)
{
    size_t before = 0, after = 0, inside = 0;
    fc_u128 fb = 0, fa = 0, fi = 0;
    for (size_t i = 0; i < w->prefix_end; i++, before++)
        fb = fc_u128_sat_add(fb, w->ops[i].flops);
    for (size_t i = w->suffix_start; i < w->n_ops; i++) {
        int64_t v = f->vocab == 0 && after == 0 ? logits_at(w, &w->ops[i], h) : 0;
        if (v > 0) {
            f->vocab = v;
            continue;
        }
        after++;
        fa = fc_u128_sat_add(fa, w->ops[i].flops);
    }
    for (size_t j = 0; j < w->n_lay; j++)
        if (w->lay[j].extra) {
            inside++;
            fi = fc_u128_sat_add(fi, w->lay[j].extra);
        }
    f->extra_flops = fc_u128_sat_add(fb, fc_u128_sat_add(fa, fi));
    char b1[FC_U128_DIGITS];
    size_t o = 0;
    f->extra[0] = '\0';
    if (before)
        o += (size_t)snprintf(f->extra + o, sizeof f->extra - o,
                              "%zu before the first layer (%s FLOPs)", before,
                              fc_u128_to_str(fb, b1));
    if (after && o < sizeof f->extra)
        o += (size_t)snprintf(f->extra + o, sizeof f->extra - o, "%s%zu after the %s (%s FLOPs)",
                              o ? ", " : "", after, f->vocab ? "logits" : "last layer",
                              fc_u128_to_str(fa, b1));
    if (inside && o < sizeof f->extra)
        snprintf(f->extra + o, sizeof f->extra - o, "%sother products inside %zu layers (%s FLOPs)",
                 o ? ", " : "", inside, fc_u128_to_str(fi, b1));
}

static void describe(const layer *l, const fc_infer_facts *f, char *out, size_t size)
{
    char attn[160], core[96] = "", mlp[200];
    if (l->nproj == 1)
        snprintf(attn, sizeof attn, "QKV %lld->%lld", (long long)l->h,
                 (long long)fc_infer_add(l->q, fc_infer_mul(2, l->kv)));
    else if (l->nproj == 2)
        snprintf(attn, sizeof attn, "Q %lld->%lld, KV ->%lld", (long long)l->h, (long long)l->q,
                 (long long)fc_infer_mul(2, l->kv));
    else
        snprintf(attn, sizeof attn, "Q %lld->%lld, K, V ->%lld", (long long)l->h, (long long)l->q,
                 (long long)l->kv);
    if (l->core && f->attn_layers) /* fused-attention calls (infer_attn.c) */
        snprintf(core, sizeof core, ", core one %s call of %lld heads %lldx%lld by %lld",
                 fc_attn_source_name(f->attn.source), (long long)l->heads_b, (long long)l->s,
                 (long long)f->attn.s_k, (long long)l->d);
    else if (l->core)
        snprintf(core, sizeof core, ", core %lld x QK^T %lldx%lld by %lld and AV",
                 (long long)l->heads_b, (long long)l->s, (long long)l->s, (long long)l->d);
    if (f->moe)
        snprintf(mlp, sizeof mlp,
                 "MoE: router %lld->%lld, experts %lld->%lld->%lld%s on %lld routed tokens%s",
                 (long long)l->h, (long long)f->experts, (long long)l->h, (long long)f->moe_ffn,
                 (long long)l->h, f->swiglu ? " gated" : "", (long long)f->routed,
                 f->shared_experts ? ", shared experts" : "");
    else
        snprintf(mlp, sizeof mlp, "MLP %lld->%lld->%lld%s", (long long)l->h, (long long)f->ffn,
                 (long long)l->h, f->swiglu ? " gated" : "");
    snprintf(out, size, "%s%s, out %lld->%lld, %s", attn, core, (long long)l->q, (long long)l->h,
             mlp);
}

static int moe_facts(const fc_infer_work *w, fc_infer_facts *f)
{
    const layer *m = NULL;
    int64_t moe_layers = 0;
    f->routed_even = 1;
    for (size_t j = 0; j < w->n_lay; j++) {
        const layer *l = &w->lay[j];
        if (l->mlp != MLP_MOE)
            continue;
        moe_layers++;
        if (m == NULL)
            m = l;
        else if (!fc_infer_same_mlp(m, l)) {
            snprintf(f->why, sizeof f->why, "MoE layer %zu differs from the first MoE layer",
                     j + 1);
            return -1;
        }
        if (l->routed != m->routed)
            f->routed_even = 0;
        if (l->seen > f->experts_seen)
            f->experts_seen = l->seen;
    }
    if (m == NULL)
        return 0;
    f->moe = 1;
    f->moe_layers = moe_layers;
    f->experts_from_router = m->experts > 0;
    f->experts = m->experts > 0 ? m->experts : f->experts_seen;
    f->moe_ffn = m->fe;
    f->routed = m->routed;
    f->shared_experts = m->shared_n;
    f->shared_ffn = m->shared_f;
    if (moe_pattern(w, &f->moe_every, &f->moe_first_dense) != 0)
        f->moe_every = f->moe_first_dense = -1;
    return 0;
}

/* Gated or not: dense MLPs, experts and shared experts all alike. */
static int one_gating(const fc_infer_work *w, fc_infer_facts *f)
{
    int seen = 0, gated = 0;
    for (size_t j = 0; j < w->n_lay; j++) {
        const layer *l = &w->lay[j];
        int64_t g[2] = {l->mlp == MLP_DENSE ? l->gated : l->egated, l->shared_gated};
        for (int i = 0; i < (l->mlp == MLP_MOE && l->shared_n ? 2 : 1); i++) {
            if (seen && g[i] != gated) {
                snprintf(f->why, sizeof f->why,
                         "gated and plain MLPs in one model: the formula has "
                         "one kind");
                return -1;
            }
            seen = 1, gated = (int)g[i];
        }
    }
    f->swiglu = gated;
    return 0;
}

/* The core against the projections: B*a products of s x s by d. */
static int core_agrees(const layer *l, fc_infer_facts *f)
{
    int64_t T = f->tokens;
    if (l->s <= 0 || l->d <= 0 || T % l->s != 0 || l->q % l->d != 0 || l->kv % l->d != 0) {
        snprintf(f->why, sizeof f->why,
                 "the attention core (%lld x %lld by %lld) does not fit %lld "
                 "tokens and the projections' widths %lld and %lld",
                 (long long)l->s, (long long)l->s, (long long)l->d, (long long)T, (long long)l->q,
                 (long long)l->kv);
        return -1;
    }
    int64_t B = T / l->s, a = l->q / l->d;
    if (fc_infer_mul(B, a) != l->heads_b) {
        snprintf(f->why, sizeof f->why,
                 "%lld attention products per layer, but %lld sequences x %lld "
                 "heads (%lld tokens of %lld, width %lld of %lld) make %lld",
                 (long long)l->heads_b, (long long)B, (long long)a, (long long)T, (long long)l->s,
                 (long long)l->q, (long long)l->d, (long long)fc_infer_mul(B, a));
        return -1;
    }
    return 0;
}

/* A uniform transformer: every layer the same attention, MLPs alike. */
static void uniform(const fc_fwd_profile *p, fc_infer_work *w, fc_infer_facts *f)
{
    char why[200];
    if (fc_infer_ops(p, w, f->why, sizeof f->why) != 0 ||
        fc_infer_layers(w, f->why, sizeof f->why) != 0)
        return;
    f->tokens = w->tokens;
    for (size_t j = 0; j < w->n_lay; j++)
        if (fc_infer_layer(w, &w->lay[j], why, sizeof why) != 0) {
            set_why(f, "layer %zu: %s", j + 1, why);
            return;
        }
    if (fc_infer_attn_facts(w, f) != 0) /* fused-attention calls against the GEMMs */
        return;
    const layer *l0 = &w->lay[0];
    for (size_t j = 1; j < w->n_lay; j++)
        if (!same_attention(l0, &w->lay[j])) {
            set_why(f, "layer %zu's attention GEMMs differ from layer 1's%s", j + 1, "");
            return;
        }
    const layer *dense = NULL;
    for (size_t j = 0; j < w->n_lay; j++) {
        const layer *l = &w->lay[j];
        if (l->mlp != MLP_DENSE)
            continue;
        if (dense && !fc_infer_same_mlp(dense, l)) {
            set_why(f, "layer %zu's MLP differs from layer %s's", j + 1, "an earlier");
            return;
        }
        dense = dense ? dense : l;
    }
    if (moe_facts(w, f) != 0 || one_gating(w, f) != 0 || (l0->core && core_agrees(l0, f) != 0))
        return;
    f->layers = (int64_t)w->n_lay;
    f->hidden = l0->h;
    f->q_width = l0->q;
    f->kv_width = l0->kv;
    f->core = l0->core;
    f->seq = l0->s;
    f->head_dim = l0->d;
    f->core_count = l0->heads_b;
    f->ffn = dense ? dense->f : 0;
    extras(w, f, l0->h);
    describe(l0, f, f->structure, sizeof f->structure);
    f->ok = 1;
}

/* 1 when the profile holds counted fused-attention calls. */
static int has_attention_calls(const fc_fwd_profile *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->g[i].attention)
            return 1;
    return 0;
}

void fc_infer_shapes(const fc_fwd_profile *p, fc_infer_work *w, fc_infer_facts *f)
{
    memset(f, 0, sizeof *f);
    f->forward_flops = p->flops;
    w->relaxed = 0;
    uniform(p, w, f);
    /* not a uniform transformer: the 2025-26 layer kinds (multi-latent
     * attention, multi-token prediction, hybrid stacks) may read it; if
     * not, the uniform reader's reading or reason stands */
    /* The layer-kinds reader reads GEMM streams: a profile with counted
     * fused-attention calls keeps the uniform reader's reading or its
     * reason (a contradiction it found between a call and the GEMMs is
     * never read away); docs/formula.md says what is not read then. */
    if ((!f->ok || f->extra_flops) && p->n > 0 && p->n <= FC_INFER_MAX_GEMMS && !p->truncated &&
        !has_attention_calls(p)) {
        /* a uniform reading that leaves GEMMs unexplained gives way to a
         * layer-kinds reading of all of them */
        fc_infer_facts u = *f;
        if (fc_infer_kinds(p, w, f) != 0 && u.ok)
            *f = u;
    }
}

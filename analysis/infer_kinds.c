/* SPDX-License-Identifier: Apache-2.0 */
/* infer_kinds.c - the layer-kinds reader: a forward that does not read as
 * one uniform transformer (infer_shapes.c) read as a stack of sublayers of
 * the 2025-26 kinds (infer.h, fc_infer_facts "kinds").
 *
 * Every sublayer ends where the hidden width h is written back: a weight
 * GEMM out to h (an output projection, an MLP's down projection), or a run
 * of expert GEMMs with no shared expert after it. So the forward is cut
 * there, and at the logits (h -> V) and the multi-token prediction
 * projections (2h -> h), and each piece read: an MLP (dense or a mixture
 * of experts, infer_layer.c), or a mixer (infer_mixers.c: attention,
 * multi-latent attention, gated delta-net, Mamba-2, Mamba-1). A mixer and
 * the MLP right after it are one layer, by convention (Nemotron-H counts
 * them as two: the FLOPs are the same); a lone mixer or MLP is a layer of
 * its own; an MLP right after a run of experts is their shared expert.
 * Attention cores of one shape s are the global layers; a core of s/k
 * with k times the products is a chunked layer (chunk s/k). After the
 * main layers: the logits, then per MTP depth its projection, one block
 * and its logits. Every layer of a kind must be alike. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

typedef struct kctx {
    fc_infer_work *w;
    int64_t T, h, V;
    int recognized; /* read a kind the uniform reader does not know */
    char why[240];
} kctx;

static int kfail(kctx *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int kfail(kctx *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->why, sizeof k->why, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_tlin(const op *x, int64_t T)
{
    return x->kind == OP_LIN && x->tok == T && x->grp == 1;
}

/* ---- cutting the forward into sublayers ---- */

static int push(kctx *k, size_t a, size_t b, int kind)
{
    fc_infer_work *w = k->w;
    if (w->n_seg == FC_INFER_MAX_SEGS)
        return kfail(k, "more than %d sublayers", FC_INFER_MAX_SEGS);
    kseg *s = &w->seg[w->n_seg++];
    memset(s, 0, sizeof *s);
    s->a = a, s->b = b, s->kind = kind;
    return 0;
}

static int cut(kctx *k)
{
    fc_infer_work *w = k->w;
    const op *o = w->ops;
    size_t start = 0, n = w->n_ops;
    w->n_seg = 0;
    for (size_t i = 0; i < n; i++) {
        const op *x = &o[i];
        int lin = is_tlin(x, k->T);
        int logits = lin && x->in == k->h && k->V && x->out == k->V;
        /* 2h -> h opening a sublayer (a Mamba-2 out_proj of d_inner 2h closes one) */
        int mtp = lin && x->in == 2 * k->h && x->out == k->h && start == i;
        if (logits || mtp) {
            if ((start < i && push(k, start, i, SEG_UNKNOWN) != 0) ||
                push(k, i, i + 1, logits ? SEG_LOGITS : SEG_MTP_PROJ) != 0)
                return -1;
            k->recognized |= mtp;
            start = i + 1;
            continue;
        }
        int end = lin && x->out == k->h;
        if (x->kind == OP_EXPERTS) { /* the end, unless a shared expert follows */
            const op *nx[3];
            size_t c = 0;
            int64_t f, g;
            for (size_t j = i + 1; j < n && c < 3; j++)
                nx[c++] = &o[j];
            end = c < 2 || nx[0]->tok != k->T || fc_infer_mlp_group(nx, c, k->h, &f, &g) == 0;
        }
        if (end) {
            if (push(k, start, i + 1, SEG_UNKNOWN) != 0)
                return -1;
            start = i + 1;
        }
    }
    if (start < n)
        return kfail(k,
                     "%zu GEMM runs after the last write-back of the hidden width read as no "
                     "layer",
                     n - start);
    return 0;
}

/* ---- reading each sublayer ---- */

static int only_weights(const fc_infer_work *w, const kseg *s)
{
    for (size_t i = s->a; i < s->b; i++)
        if (w->ops[i].kind != OP_LIN && w->ops[i].kind != OP_EXPERTS)
            return 0;
    return 1;
}

static int as_mlp(kctx *k, kseg *s)
{
    const op *x[64];
    size_t cnt = 0;
    if (!only_weights(k->w, s) || s->b - s->a > 64)
        return -1;
    for (size_t i = s->a; i < s->b; i++)
        x[cnt++] = &k->w->ops[i];
    layer l;
    memset(&l, 0, sizeof l);
    l.h = k->h;
    char why[120];
    if (fc_infer_mlp_part(k->w, &l, x, cnt, why, sizeof why) != 0)
        return -1;
    s->kind = SEG_MLP, s->l = l;
    return 0;
}

static void drop(fc_infer_work *w, size_t j)
{
    memmove(&w->seg[j], &w->seg[j + 1], (w->n_seg - j - 1) * sizeof w->seg[0]);
    w->n_seg--;
}

/* A sublayer that reads as neither alone may be multi-latent attention
 * cut in two: a projection of it writes h wide (q_b or q: a*d_qk = h;
 * kv_b: a*(d_nope + d_v) = h). Merged with its neighbour, it must read. */
static int merged(kctx *k, size_t j, char *why, size_t n)
{
    fc_infer_work *w = k->w;
    for (int side = 0; side <= 1; side++) {
        size_t lo = side ? j : j - 1;
        if ((side == 0 && j == 0) || lo + 1 >= w->n_seg)
            continue;
        kseg *a = &w->seg[lo], *b = &w->seg[lo + 1];
        if (a->b != b->a || b->kind > SEG_MLP || a->b - a->a > 4 || !only_weights(w, a))
            continue;
        kseg t = *b;
        t.a = a->a;
        if (fc_infer_mixer(w, &t, k->T, k->h, why, n) == 0 && t.kind == SEG_ATTN) {
            *a = t;
            drop(w, lo + 1);
            return (int)lo;
        }
    }
    return -1;
}

static int classify(kctx *k)
{
    fc_infer_work *w = k->w;
    for (size_t j = 0; j < w->n_seg; j++) {
        kseg *s = &w->seg[j];
        if (s->kind != SEG_UNKNOWN)
            continue;
        char why[160];
        if (as_mlp(k, s) == 0)
            continue;
        if (fc_infer_mixer(w, s, k->T, k->h, why, sizeof why) == 0) {
            k->recognized |= s->kind != SEG_ATTN || s->mla;
            continue;
        }
        char mixer_why[160];
        snprintf(mixer_why, sizeof mixer_why, "%s", why);
        int at = merged(k, j, why, sizeof why);
        if (at >= 0) {
            k->recognized = 1;
            j = (size_t)at;
            continue;
        }
        return kfail(k, "sublayer %zu (GEMM runs %zu-%zu): %s", j + 1, s->a + 1, s->b, mixer_why);
    }
    /* an MLP-looking pair [q_a, q_b] may still sit before MLA attention */
    return 0;
}

/* ---- attention: the global sequence, chunked layers ---- */

static int64_t heads_of(const kseg *s)
{
    return s->mla ? s->v[5] : s->l.d ? s->l.q / s->l.d : 0;
}

static int attention_shapes(kctx *k, int64_t *seq, int64_t *chunk)
{
    fc_infer_work *w = k->w;
    int with = 0, without = 0;
    *seq = *chunk = 0;
    for (size_t j = 0; j < w->n_seg; j++)
        if (w->seg[j].kind == SEG_ATTN) {
            with += w->seg[j].l.core, without += !w->seg[j].l.core;
            if (w->seg[j].l.s > *seq)
                *seq = w->seg[j].l.s;
        }
    if (with && without)
        return kfail(k, "some attention layers show their core GEMMs, others not");
    if (!with)
        return 0;
    if (k->T % *seq)
        return kfail(k, "%lld tokens are no whole number of sequences of %lld", (long long)k->T,
                     (long long)*seq);
    int64_t B = k->T / *seq;
    for (size_t j = 0; j < w->n_seg; j++) {
        kseg *s = &w->seg[j];
        if (s->kind != SEG_ATTN)
            continue;
        int64_t a = heads_of(s), c = s->l.s;
        if (a <= 0 || (!s->mla && s->l.q % s->l.d))
            return kfail(k, "attention width %lld is no whole number of heads of %lld",
                         (long long)s->l.q, (long long)s->l.d);
        if (c == *seq && s->l.heads_b == fc_infer_mul(B, a))
            continue;
        if (*seq % c == 0 && s->l.heads_b == fc_infer_mul(fc_infer_mul(B, a), *seq / c) &&
            (*chunk == 0 || *chunk == c)) {
            s->mix = FC_MIX_CHUNKED, *chunk = c;
            k->recognized = 1;
            continue;
        }
        return kfail(k,
                     "%lld attention products of %lld x %lld fit neither %lld sequences x "
                     "%lld heads nor chunks of one sequence length",
                     (long long)s->l.heads_b, (long long)c, (long long)c, (long long)B,
                     (long long)a);
    }
    return 0;
}

/* ---- layers ---- */

static int is_mixer(int kind)
{
    return kind == SEG_ATTN || kind == SEG_GDN || kind == SEG_MAMBA2 || kind == SEG_MAMBA1;
}

/* Main layers into L (n of them); the MTP depths after them: *mtp, their
 * blocks in M. Logits: one after the main layers, and one per depth or
 * none. */
static int layers(kctx *k, klayer *L, size_t *n, klayer *M, int64_t *mtp, int *logits)
{
    fc_infer_work *w = k->w;
    size_t j = 0, nl = 0;
    int main_logits = 0, mtp_logits = 0;
    *mtp = 0;
    while (j < w->n_seg && w->seg[j].kind != SEG_MTP_PROJ) {
        int kind = w->seg[j].kind;
        if (kind == SEG_LOGITS) {
            main_logits++, j++;
            continue;
        }
        if (main_logits)
            return kfail(k, "a layer after the logits%s", "");
        if (nl == FC_MAX_LAYER_PATTERN || nl == FC_INFER_MAX_LAYERS)
            return kfail(k, "more than %d layers", FC_MAX_LAYER_PATTERN);
        klayer *l = &L[nl++];
        l->mix = l->mlp = -1;
        if (is_mixer(kind)) {
            l->mix = (int)j++;
            if (j < w->n_seg && w->seg[j].kind == SEG_MLP)
                l->mlp = (int)j++;
        } else {
            l->mlp = (int)j++;
        }
    }
    while (j < w->n_seg) { /* projection, mixer, MLP?, logits? */
        if (w->seg[j].kind != SEG_MTP_PROJ || j + 1 >= w->n_seg || !is_mixer(w->seg[j + 1].kind))
            return kfail(k,
                         "after the main layers, GEMMs that read as no multi-token prediction "
                         "depth (a projection 2h -> h, a block, its logits)%s",
                         "");
        klayer *m = &M[(*mtp)++];
        m->mix = (int)j + 1, m->mlp = -1, j += 2;
        if (j < w->n_seg && w->seg[j].kind == SEG_MLP)
            m->mlp = (int)j++;
        if (j < w->n_seg && w->seg[j].kind == SEG_LOGITS)
            mtp_logits++, j++;
        if (*mtp == FC_INFER_MAX_LAYERS)
            return kfail(k, "too many MTP depths%s", "");
    }
    if (main_logits > 1 || (mtp_logits && mtp_logits != *mtp))
        return kfail(k,
                     "%d logits GEMMs for %lld MTP depths: not one per depth and one after "
                     "the layers",
                     main_logits + mtp_logits, (long long)*mtp);
    *n = nl;
    *logits = main_logits;
    return 0;
}

/* ---- every layer of a kind alike ---- */

typedef struct refs {
    const kseg *attn, *gdn, *mamba; /* the first of each mixer kind */
    const layer *dense, *moe;       /* the first dense MLP, MoE */
    int gated;                      /* -1: no MLP */
} refs;

static int same_mixer(const kseg *a, const kseg *b)
{
    if (a->kind != b->kind || a->mla != b->mla || memcmp(a->v, b->v, sizeof a->v) != 0)
        return 0;
    if (a->kind != SEG_ATTN)
        return strcmp(a->why, b->why) == 0;
    return a->l.h == b->l.h && a->l.q == b->l.q && a->l.kv == b->l.kv && a->gate == b->gate &&
           a->l.d == b->l.d && a->l.nproj == b->l.nproj && a->l.core == b->l.core;
}

static int alike(kctx *k, refs *r)
{
    fc_infer_work *w = k->w;
    memset(r, 0, sizeof *r);
    r->gated = -1;
    for (size_t j = 0; j < w->n_seg; j++) {
        const kseg *s = &w->seg[j];
        const kseg **ref = s->kind == SEG_ATTN                              ? &r->attn
                           : s->kind == SEG_GDN                             ? &r->gdn
                           : s->kind == SEG_MAMBA1 || s->kind == SEG_MAMBA2 ? &r->mamba
                                                                            : NULL;
        if (ref != NULL) {
            if (*ref && !same_mixer(*ref, s))
                return kfail(k, "sublayer %zu differs from the first of its kind (%s)", j + 1,
                             (*ref)->kind != s->kind ? "Mamba-1 beside Mamba-2" : "its sizes");
            *ref = *ref ? *ref : s;
            continue;
        }
        if (s->kind != SEG_MLP)
            continue;
        const layer **m = s->l.mlp == MLP_DENSE ? &r->dense : &r->moe;
        if (*m && !fc_infer_same_mlp(*m, &s->l))
            return kfail(k, "MLP %zu differs from the first of its kind", j + 1);
        *m = *m ? *m : &s->l;
        int g[2] = {(int)(s->l.mlp == MLP_DENSE ? s->l.gated : s->l.egated),
                    (int)s->l.shared_gated};
        for (int i = 0; i < (s->l.mlp == MLP_MOE && s->l.shared_n ? 2 : 1); i++) {
            if (r->gated >= 0 && g[i] != r->gated)
                return kfail(k, "gated and plain MLPs in one model: the formula has one kind%s",
                             "");
            r->gated = g[i];
        }
    }
    return 0;
}

/* ---- the facts ---- */

/* Megatron's MoE rule (layer i is MoE when i >= K and i % N == 0) for the
 * pattern p of n layers; 0 with N and K, -1 when it does not fit. */
static int moe_rule(const char *p, size_t n, int64_t *every, int64_t *first)
{
    size_t m0 = SIZE_MAX;
    for (size_t i = 0; i < n && m0 == SIZE_MAX; i++)
        if (p[i] == FC_MLP_MOE)
            m0 = i;
    for (size_t N = 1; m0 != SIZE_MAX && N <= n; N++) {
        if (m0 % N)
            continue;
        size_t i = 0;
        while (i < n && (p[i] == FC_MLP_MOE) == (i >= m0 && i % N == 0) && p[i] != FC_MLP_NONE)
            i++;
        if (i == n) {
            *every = (int64_t)N, *first = (int64_t)m0;
            return 0;
        }
    }
    return -1;
}

static void moe_facts(const fc_infer_work *w, const refs *r, const klayer *L, size_t nl,
                      fc_infer_facts *f)
{
    const layer *m = r->moe;
    f->moe = 1, f->routed_even = 1;
    for (size_t j = 0; j < w->n_seg; j++) {
        const layer *l = &w->seg[j].l;
        if (w->seg[j].kind != SEG_MLP || l->mlp != MLP_MOE)
            continue;
        f->routed_even &= l->routed == m->routed;
        f->experts_seen = l->seen > f->experts_seen ? l->seen : f->experts_seen;
    }
    for (size_t i = 0; i < nl; i++)
        f->moe_layers += L[i].mlp >= 0 && w->seg[L[i].mlp].l.mlp == MLP_MOE;
    f->experts_from_router = m->experts > 0;
    f->experts = m->experts > 0 ? m->experts : f->experts_seen;
    f->moe_ffn = m->fe, f->routed = m->routed;
    f->shared_experts = m->shared_n, f->shared_ffn = m->shared_f;
}

static void kind_sizes(const refs *r, fc_infer_facts *f)
{
    if (r->gdn) {
        const int64_t *v = r->gdn->v;
        f->gdn_k_heads = v[0], f->gdn_v_heads = v[1], f->gdn_k_dim = v[2], f->gdn_v_dim = v[3];
        f->gdn_chunk = v[4];
        snprintf(f->gdn_why, sizeof f->gdn_why, "%s", r->gdn->why);
    }
    if (r->mamba && r->mamba->kind == SEG_MAMBA2) {
        const int64_t *v = r->mamba->v;
        f->mamba_version = 2, f->mamba_heads = v[0], f->mamba_head_dim = v[1];
        f->mamba_state = v[2], f->mamba_groups = v[3], f->mamba_chunk = v[4], f->mamba_inner = v[5];
    } else if (r->mamba) {
        const int64_t *v = r->mamba->v;
        f->mamba_version = 1, f->mamba_inner = v[0], f->mamba_state = v[1], f->mamba_dt_rank = v[2];
    }
}

static void describe(const fc_infer_facts *f, const refs *r, char *out, size_t size)
{
    fc_layer_counts c;
    fc_model m;
    memset(&m, 0, sizeof m);
    m.layers = f->layers;
    memcpy(m.mixers, f->mixers, sizeof m.mixers);
    memcpy(m.mlps, f->mlps, sizeof m.mlps);
    m.experts = f->moe, m.moe_every = f->moe_every, m.moe_first_dense = f->moe_first_dense;
    fc_model_layer_counts(&m, &c);
    size_t o = (size_t)snprintf(out, size, "%lld layers:", (long long)f->layers);
    static const char *const names[] = {
        "attention", "chunked attention", "gated delta-net", "Mamba",
        "no mixer",  "dense MLP",         "MoE MLP",         "no MLP"};
    int64_t n[] = {c.attention, c.chunked, c.gdn, c.mamba, c.no_mixer, c.dense, c.moe, c.no_mlp};
    const char *sep = " ";
    for (int i = 0; i < 8 && o < size; i++)
        if (n[i]) {
            o += (size_t)snprintf(out + o, size - o, "%s%lld %s", sep, (long long)n[i], names[i]);
            sep = i < 5 && n[i] ? (i == 4 ? "; " : ", ") : ", ";
        }
    if (r->attn && r->attn->mla && o < size)
        o += (size_t)snprintf(
            out + o, size - o, "; MLA q_lora %lld kv_lora %lld d_qk %lld+%lld d_v %lld",
            (long long)f->q_lora_rank, (long long)f->kv_lora_rank, (long long)f->qk_nope_dim,
            (long long)f->qk_rope_dim, (long long)f->v_head_dim);
    if (f->mtp_layers && o < size)
        snprintf(out + o, size - o, "; %lld MTP depth%s (2h -> h, a %c%c block)",
                 (long long)f->mtp_layers, f->mtp_layers == 1 ? "" : "s", f->mtp_block[0],
                 f->mtp_block[1] ? f->mtp_block[1] : '-');
}

static void fill(kctx *k, const refs *r, const klayer *L, size_t nl, const klayer *M, int64_t mtp,
                 int logits, int64_t seq, int64_t chunk, fc_infer_facts *f)
{
    const fc_infer_work *w = k->w;
    f->ok = 1, f->kinds = 1;
    f->layers = (int64_t)nl, f->hidden = k->h, f->tokens = k->T;
    if (r->attn) {
        const kseg *a = r->attn;
        f->core = a->l.core, f->seq = seq, f->q_width = a->l.q, f->kv_width = a->l.kv;
        f->head_dim = a->mla ? a->v[2] + a->v[3] : a->l.d;
        f->core_count = seq ? fc_infer_mul(k->T / seq, heads_of(a)) : 0;
        f->attn_gate = a->gate, f->mla = a->mla;
        if (a->mla)
            f->q_lora_rank = a->v[0], f->kv_lora_rank = a->v[1], f->qk_nope_dim = a->v[2],
            f->qk_rope_dim = a->v[3], f->v_head_dim = a->v[4];
    }
    f->attn_chunk = chunk;
    f->ffn = r->dense ? r->dense->f : 0;
    f->swiglu = r->gated > 0;
    if (r->moe)
        moe_facts(w, r, L, nl, f);
    kind_sizes(r, f);
    int all_attention = 1, singles = 0, pairs = 0;
    for (size_t i = 0; i < nl; i++) {
        const kseg *x = L[i].mix >= 0 ? &w->seg[L[i].mix] : NULL;
        const layer *y = L[i].mlp >= 0 ? &w->seg[L[i].mlp].l : NULL;
        f->mixers[i] = x ? x->mix : FC_MIX_NONE;
        f->mlps[i] = y ? (y->mlp == MLP_MOE ? FC_MLP_MOE : FC_MLP_DENSE) : FC_MLP_NONE;
        all_attention &= f->mixers[i] == FC_MIX_ATTENTION;
        pairs += x && y, singles += !x || !y;
    }
    f->layers_paired = pairs && singles;
    if (all_attention)
        memset(f->mixers, 0, sizeof f->mixers); /* a uniform stack: no pattern */
    f->moe_every = 1, f->moe_first_dense = 0;
    if (!strchr(f->mlps, FC_MLP_NONE) &&
        (!r->moe || moe_rule(f->mlps, nl, &f->moe_every, &f->moe_first_dense) == 0))
        memset(f->mlps, 0, sizeof f->mlps); /* dense, or Megatron's every-N rule */
    f->vocab = logits ? k->V : 0;
    f->mtp_layers = mtp;
    if (mtp) {
        const kseg *x = &w->seg[M[0].mix];
        const layer *y = M[0].mlp >= 0 ? &w->seg[M[0].mlp].l : NULL;
        f->mtp_block[0] = x->mix;
        f->mtp_block[1] = y ? (y->mlp == MLP_MOE ? FC_MLP_MOE : FC_MLP_DENSE) : 0;
    }
    describe(f, r, f->structure, sizeof f->structure);
}

/* The hidden width: what the first weight GEMM on all tokens reads; the
 * vocabulary: what the last one reading h writes, when it is not h. */
static void widths(kctx *k)
{
    const fc_infer_work *w = k->w;
    k->h = k->V = 0;
    for (size_t i = 0; i < w->n_ops && !k->h; i++)
        if (is_tlin(&w->ops[i], k->T))
            k->h = w->ops[i].in;
    for (size_t i = w->n_ops; i-- > 0;)
        if (is_tlin(&w->ops[i], k->T) && w->ops[i].in == k->h) {
            k->V = w->ops[i].out != k->h ? w->ops[i].out : 0;
            break;
        }
}

int fc_infer_kinds(const fc_fwd_profile *p, fc_infer_work *w, fc_infer_facts *f)
{
    klayer *L = w->klay, *M = w->kmtp;
    fc_infer_facts out;
    kctx k;
    memset(&k, 0, sizeof k);
    k.w = w;
    w->relaxed = 1;
    if (fc_infer_ops(p, w, k.why, sizeof k.why) != 0)
        return -1;
    k.T = w->tokens;
    widths(&k);
    size_t nl = 0;
    int64_t mtp = 0, seq = 0, chunk = 0;
    int logits = 0;
    refs r;
    if (cut(&k) != 0 || classify(&k) != 0 || attention_shapes(&k, &seq, &chunk) != 0 ||
        layers(&k, L, &nl, M, &mtp, &logits) != 0 || alike(&k, &r) != 0) {
        if (k.recognized)
            snprintf(f->why, sizeof f->why, "%s", k.why);
        return -1;
    }
    if (!r.attn && !r.gdn && !r.mamba)
        return -1; /* MLPs alone: no model the formula counts (the uniform reader's reason) */
    memset(&out, 0, sizeof out);
    out.forward_flops = p->flops;
    fill(&k, &r, L, nl, M, mtp, logits, seq, chunk, &out);
    *f = out;
    return 0;
}

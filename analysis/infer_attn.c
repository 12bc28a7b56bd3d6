/* SPDX-License-Identifier: Apache-2.0 */
/* infer_attn.c - the attention core read off fused-attention calls
 * (FlashAttention, memory-efficient attention, cuDNN SDPA: the forward
 * profile's "kind": "attention" entries) where a model runs no QK^T GEMM.
 *
 * A call is one layer's core: it frames a layer as QK^T and attention x V
 * GEMMs do (infer_ops.c), and its shape gives heads, kv heads, head dim
 * and sequence exactly. It must agree with everything else the stream
 * says: every layer's call of one shape, layers whose core is GEMMs of
 * the same sizes, the tokens the Linears run on (b x s_q per call), the
 * output projection's width (heads x head dim of V) and K's (kv heads x
 * head dim); a contradiction stops the inference with both sides named,
 * never resolved by picking one. A call whose lengths are maxima (varlen,
 * padding: "bound") gives no exact sequence. The mask is what ran: the
 * formula's causal convention is compared with it, not taken from it
 * (docs/attention.md). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

static const char *who(int source)
{
    switch (source) {
    case FC_ATTN_SRC_FLASH:
        return "flash attention";
    case FC_ATTN_SRC_EFFICIENT:
        return "memory-efficient attention";
    case FC_ATTN_SRC_CUDNN:
        return "cuDNN attention";
    default:
        return "fused attention";
    }
}

char *fc_infer_attn_words(const fc_attn *a, char *buf, size_t size)
{
    char dv[32] = "", mask[64] = "";
    if (a->d_v != a->d)
        snprintf(dv, sizeof dv, " (V %lld)", (long long)a->d_v);
    if (a->window_left < 0 && a->window_right == 0)
        snprintf(mask, sizeof mask, ", causal");
    else if (a->window_left >= 0 && a->window_right == 0)
        snprintf(mask, sizeof mask, ", sliding window of %lld keys",
                 (long long)a->window_left + 1);
    else if (a->window_left >= 0 || a->window_right >= 0)
        snprintf(mask, sizeof mask, ", window %lld left, %lld right", (long long)a->window_left,
                 (long long)a->window_right);
    snprintf(buf, size, "%s %s: %lld sequences x %lld heads (kv %lld), %lld x %lld, head dim %lld%s%s%s",
             who(a->source), a->dir == FC_ATTN_BWD ? "backward" : "forward", (long long)a->b,
             (long long)a->h, (long long)a->h_k, (long long)a->s_q, (long long)a->s_k,
             (long long)a->d, dv, mask, a->flags & FC_ATTN_BOUND ? ", lengths at most (a bound)" : "");
    return buf;
}

op fc_infer_attn_op(const fc_fwd_gemm *g, size_t i)
{
    op o;
    memset(&o, 0, sizeof o);
    o.flops = g->flops;
    const fc_attn *a = &g->attn;
    int64_t count = g->count > 0 && g->count < INT32_MAX ? (int64_t)g->count : 1;
    if (a->b < 1 || a->h < 1 || a->h_k < 1 || a->s_q < 1 || a->s_k < 1 || a->d < 1 ||
        a->b > INT32_MAX || a->h > INT32_MAX || a->s_q > INT32_MAX || a->s_k > INT32_MAX ||
        a->d > INT32_MAX || a->d_v > INT32_MAX) {
        o.kind = OP_UNK; /* its shape is not known: no core to read */
        return o;
    }
    o.kind = OP_CORE;
    o.attn = 1;
    o.first = i;
    o.s = a->s_q, o.d = a->d, o.r = 1, o.dv = a->d_v > 0 ? a->d_v : a->d;
    o.g0 = i, o.g1 = i + 1; /* the profile entry it was made of */
    o.heads_b = fc_infer_mul(fc_infer_mul(a->b, a->h), count);
    return o;
}

static int same_call(const fc_attn *x, const fc_attn *y)
{
    return x->b == y->b && x->h == y->h && x->h_k == y->h_k && x->s_q == y->s_q &&
           x->s_k == y->s_k && x->d == y->d && x->d_v == y->d_v &&
           x->window_left == y->window_left && x->window_right == y->window_right &&
           (x->flags & FC_ATTN_BOUND) == (y->flags & FC_ATTN_BOUND);
}

static int contradiction(fc_infer_facts *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int contradiction(fc_infer_facts *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
    f->ok = 0;
    return -1;
}

/* Every layer's core against the first fused call's. */
static int layers_agree(const fc_infer_work *w, fc_infer_facts *f, size_t j0)
{
    const op *c0 = &w->ops[w->lay[j0].core_op];
    const fc_attn *a0 = &w->p->g[c0->first].attn;
    char words[160];
    for (size_t j = 0; j < w->n_lay; j++) {
        const layer *l = &w->lay[j];
        if (!l->core)
            continue;
        const op *c = &w->ops[l->core_op];
        if (c->attn) {
            const fc_attn *a = &w->p->g[c->first].attn;
            if (same_call(a, a0) && c->heads_b == c0->heads_b)
                continue;
            return contradiction(f, "layer %zu's %.100s differs from layer %zu's (%.60s)", j + 1,
                                 fc_infer_attn_words(a, words, sizeof words), j0 + 1,
                                 f->attn_words);
        }
        if (l->s != a0->s_q || l->d != a0->d || l->heads_b != c0->heads_b)
            return contradiction(f,
                                 "layer %zu's QK^T GEMMs (%lld products of %lld x %lld by %lld) "
                                 "contradict layer %zu's %.110s",
                                 j + 1, (long long)l->heads_b, (long long)l->s, (long long)l->s,
                                 (long long)l->d, j0 + 1, f->attn_words);
    }
    return 0;
}

/* The call against the tokens the Linears run on and the projections'
 * widths of its layer. */
static int projections_agree(const fc_infer_work *w, fc_infer_facts *f, const layer *l,
                             const fc_attn *a, int64_t calls)
{
    const char *x = f->attn_words;
    int64_t T = w->tokens, tok = fc_infer_mul(fc_infer_mul(a->b, a->s_q), calls);
    if (a->s_q != a->s_k)
        return contradiction(f,
                             "%.120s: queries and keys of different lengths (cross-attention, a "
                             "KV cache?): the formula has one sequence length",
                             x);
    if (a->h % a->h_k != 0)
        return contradiction(f, "%.150s: heads are not a multiple of kv heads", x);
    if (!(a->flags & FC_ATTN_BOUND) && tok != T)
        return contradiction(f, "%.120s: %lld tokens per layer, but the GEMMs run on %lld", x,
                             (long long)tok, (long long)T);
    if ((a->flags & FC_ATTN_BOUND) && tok < T)
        return contradiction(f, "%.120s: at most %lld tokens per layer, but the GEMMs run on %lld",
                             x, (long long)tok, (long long)T);
    if (fc_infer_mul(a->h, a->d_v) != l->q)
        return contradiction(f,
                             "%.120s: heads x head dim make %lld, but the output projection "
                             "reads %lld",
                             x, (long long)fc_infer_mul(a->h, a->d_v), (long long)l->q);
    if (fc_infer_mul(a->h_k, a->d) != l->kv)
        return contradiction(f, "%.120s: kv heads x head dim make %lld, but K and V are %lld wide",
                             x, (long long)fc_infer_mul(a->h_k, a->d), (long long)l->kv);
    return 0;
}

int fc_infer_attn_facts(const fc_infer_work *w, fc_infer_facts *f)
{
    size_t j0 = SIZE_MAX;
    int64_t n = 0;
    for (size_t j = 0; j < w->n_lay; j++)
        if (w->lay[j].core && w->ops[w->lay[j].core_op].attn) {
            j0 = j0 == SIZE_MAX ? j : j0;
            n++;
        }
    if (j0 == SIZE_MAX)
        return 0;
    const layer *l = &w->lay[j0];
    const op *c0 = &w->ops[l->core_op];
    const fc_attn *a0 = &w->p->g[c0->first].attn;
    f->attn = *a0;
    fc_infer_attn_words(a0, f->attn_words, sizeof f->attn_words);
    int64_t bh = fc_infer_mul(a0->b, a0->h);
    if (layers_agree(w, f, j0) != 0 ||
        projections_agree(w, f, l, a0, bh > 0 ? c0->heads_b / bh : 1) != 0)
        return -1;
    f->attn_layers = n;
    return 0;
}

/* ---- values ---- */

static void put(fc_inferred *in, int key, int status, int64_t value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void put(fc_inferred *in, int key, int status, int64_t value, const char *fmt, ...)
{
    fc_infer_val *v = &in->v[key];
    v->status = status;
    v->value = value;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->note, sizeof v->note, fmt, ap);
    va_end(ap);
}

/* What ran against the formula's convention (which stays the default:
 * 'full', as --causal-attention gives it). */
static void causal_note(fc_inferred *in, const fc_attn *a)
{
    fc_attn one = *a;
    one.b = one.h = one.h_k = 1; /* pairs of one head */
    char p[FC_U128_DIGITS];
    fc_u128_to_str(fc_attn_pairs(&one), p);
    const char *src = who(a->source);
    if (a->window_left < 0 && a->window_right < 0)
        put(in, FC_IK_CAUSAL, FC_IS_CONVENTION, FC_CAUSAL_FULL,
            "%s ran unmasked: every query sees all %lld keys, as the formula's 'full' counts", src,
            (long long)a->s_k);
    else if (a->window_left < 0 && a->window_right == 0)
        put(in, FC_IK_CAUSAL, FC_IS_CONVENTION, FC_CAUSAL_FULL,
            "%s ran causal, counted exactly: s(s+1)/2 = %s pairs per head; the formula's 'full' "
            "counts s^2, 'half' s^2/2: neither is exact",
            src, p);
    else
        put(in, FC_IK_CAUSAL, FC_IS_CONVENTION, FC_CAUSAL_FULL,
            "%s ran a windowed band, counted exactly: %s pairs per head; the formula's 'full' "
            "counts s^2 per head",
            src, p);
}

void fc_infer_attn_values(fc_inferred *in, const fc_infer_facts *f)
{
    const fc_attn *a = &f->attn;
    const char *x = f->attn_words;
    put(in, FC_IK_HEAD_DIM, FC_IS_EXACT, a->d, "%s", x);
    put(in, FC_IK_HEADS, FC_IS_EXACT, a->h, "%.140s; the output projection reads %lld = heads x %lld",
        x, (long long)f->q_width, (long long)a->d_v);
    put(in, FC_IK_KV_HEADS, FC_IS_EXACT, a->h_k, "%.140s; K and V are %lld wide = kv_heads x %lld",
        x, (long long)f->kv_width, (long long)a->d);
    if (a->flags & FC_ATTN_BOUND)
        put(in, FC_IK_SEQ, FC_IS_UNKNOWN, 0,
            "%.110s: lengths are maxima (varlen or padding): the sequence is at most %lld; give "
            "--seq",
            x, (long long)a->s_q);
    else
        put(in, FC_IK_SEQ, FC_IS_EXACT, a->s_q, "%s", x);
    causal_note(in, a);
}

int64_t fc_infer_attn_seq(const fc_infer_facts *f)
{
    if (!f->core || (f->attn_layers > 0 && (f->attn.flags & FC_ATTN_BOUND)))
        return 0;
    return f->seq;
}

/* ---- FLOPs ---- */

fc_u128 fc_infer_attn_core_exact(const fc_model *m, const fc_attn *band)
{
    fc_attn x = *band;
    int64_t d = fc_model_head_dim(m);
    x.dir = FC_ATTN_FWD;
    x.source = x.source < FC_ATTN_SRC_COUNT ? x.source : FC_ATTN_SRC_UNKNOWN;
    x.align = x.align <= FC_ATTN_BOTTOM_RIGHT ? x.align : FC_ATTN_BOTTOM_RIGHT;
    x.block_m = x.block_n = x.d_pad = x.d_v_pad = 0;
    x.b = m->batch, x.h = m->heads, x.h_k = fc_model_kv_heads(m);
    x.s_q = x.s_k = m->seq;
    x.d_v = band->d_v > 0 && band->d_v != band->d ? band->d_v : d;
    x.d = d;
    fc_attn_flops fl;
    if (m->layers <= 0 || fc_attn_flops_of(&x, &fl) != 0)
        return 0;
    return fc_u128_sat_mul(fl.executed, (fc_u128)m->layers);
}

fc_u128 fc_infer_core_counted(const fc_infer_facts *f, const fc_model *m, const fc_flops *fl)
{
    if (!f->core)
        return 0;
    if (f->attn_layers == 0 || m->layers <= 0)
        return fl->attention_core_forward;
    fc_u128 L = (fc_u128)m->layers;
    fc_u128 fused = (fc_u128)(f->attn_layers < m->layers ? f->attn_layers : m->layers);
    fc_u128 per_call = fc_infer_attn_core_exact(m, &f->attn) / L;
    fc_u128 per_gemm = fl->attention_core_forward / L; /* layers whose core is GEMMs: the square */
    return fc_u128_sat_add(fc_u128_sat_mul(fused, per_call), fc_u128_sat_mul(L - fused, per_gemm));
}

/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_gpt_stream.c - the GPT GEMM stream of fixture_gpt_stream.h.
 *
 * Shapes (column-major, T = batch * seq tokens, d = hidden / heads):
 *   Linear y = W x:  forward  TN  A=W (in x out)  B=x (in x T)   m=out n=T k=in
 *                    dgrad    NN  A=W             B=gy (out x T) m=in  n=T k=out
 *                    wgrad    NT  A=x             B=gy           m=in  n=out k=T
 *   scores S = K^T Q per head (strided, batch*heads): TN A=K B=Q   m=s n=s k=d
 *   out    O = V P            per head:             NN A=V B=P   m=d n=s k=s
 *   backward: dP = V^T dO (TN, the shape of the scores!), dV = dO P^T (NT),
 *             dQ = K dS (NN), dK = Q dS^T (NT)
 * so every saved tensor comes back in another role, and dP looks exactly
 * like a forward GEMM: only addresses tell them apart.
 *
 * Per layer forward: QKV 6Tsh.. in FLOPs: qkv 2*T*h*3h, proj 2*T*h*h,
 * MLP 2*(2*T*h*4h), scores and out 2*(batch*heads)*2*s*s*d each, i.e.
 * 24*T*h^2 + 4*batch*s^2*h; logits 2*T*h*V. Backward is twice each forward
 * GEMM (the first layer's input gradient included: the embedding learns).
 * Summed: 72*B*s*l*h^2 + 12*B*s^2*l*h + 6*B*s*h*V, Megatron's model FLOPs.
 *
 * Memory follows PyTorch: a caching allocator reuses freed blocks of the
 * same size, last freed first; under no_grad (evaluation, a checkpointed
 * forward) intermediates die at once, with grad they live until their
 * backward. So addresses recur across iterations and get reused within one,
 * as on a GPU. */
#include "fixture_gpt_stream.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS 4096

typedef struct block {
    float *p;
    size_t n;
    int free;
} block;

struct gpt {
    gpt_cfg c;
    float *arena; /* NULL: fake addresses */
    size_t cap, used;
    uintptr_t fake_base;
    block blocks[MAX_BLOCKS];
    int n_blocks;
    /* weights and their gradient buffers, per layer: qkv, proj, fc1, fc2 */
    float *w[64][4], *gw[64][4], *w_head, *gw_head;
    float *g_logits; /* torch_head: the loss gradient's block, the same every step */
    int phase;       /* enum gpt_phase of the GEMMs being issued */
};

static float *carve(gpt *g, size_t n)
{
    if (g->arena == NULL) {
        float *p = (float *)(g->fake_base + g->used * sizeof(float));
        g->used += n + 16;
        return p;
    }
    if (g->used + n > g->cap)
        abort(); /* gpt_arena_floats was too small: a bug in this file */
    float *p = g->arena + g->used;
    g->used += n;
    return p;
}

/* The caching allocator: most recently freed block of exactly n floats. */
static float *alloc(gpt *g, size_t n)
{
    int lowest = -1;
    for (int i = 0; g->c.lowest_block && i < g->n_blocks; i++)
        if (g->blocks[i].free && g->blocks[i].n == n &&
            (lowest < 0 || g->blocks[i].p < g->blocks[lowest].p))
            lowest = i;
    for (int i = lowest >= 0 ? lowest : g->n_blocks - 1; i >= 0; i--)
        if (g->blocks[i].free && g->blocks[i].n == n) {
            block b = g->blocks[i];
            memmove(&g->blocks[i], &g->blocks[i + 1], (size_t)(g->n_blocks - i - 1) * sizeof b);
            b.free = 0;
            g->blocks[g->n_blocks - 1] = b;
            return b.p;
        }
    if (g->n_blocks == MAX_BLOCKS)
        abort();
    block b = {carve(g, n), n, 0};
    g->blocks[g->n_blocks++] = b;
    return b.p;
}

static void release(gpt *g, float *p)
{
    for (int i = 0; i < g->n_blocks; i++)
        if (g->blocks[i].p == p && !g->blocks[i].free) {
            block b = g->blocks[i];
            memmove(&g->blocks[i], &g->blocks[i + 1], (size_t)(g->n_blocks - i - 1) * sizeof b);
            b.free = 1;
            g->blocks[g->n_blocks - 1] = b; /* last freed: first reused */
            return;
        }
    abort();
}

size_t gpt_arena_floats(const gpt_cfg *c)
{
    size_t h = (size_t)c->hidden, T = (size_t)c->batch * (size_t)c->seq;
    size_t weights = 2 * ((size_t)c->layers * 12 * h * h + h * (size_t)c->vocab);
    size_t act = (size_t)c->layers * 64 * T * h + 8 * T * (size_t)c->vocab +
                 (size_t)c->layers * 8 * (size_t)c->batch * (size_t)c->heads * (size_t)c->seq * (size_t)c->seq;
    return 4 * (weights + act) + (1u << 16); /* evaluation batches up to 4x */
}

gpt *gpt_new(const gpt_cfg *cfg, float *arena, size_t arena_floats)
{
    if (cfg->layers > 64)
        return NULL;
    gpt *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    g->c = *cfg;
    g->arena = arena;
    g->cap = arena_floats;
    g->fake_base = 0x7f0000000000u;
    size_t h = (size_t)cfg->hidden;
    static const size_t mult[4] = {3, 1, 4, 4}; /* qkv, proj, fc1, fc2: h x mult*h */
    for (int l = 0; l < cfg->layers; l++)
        for (int j = 0; j < 4; j++) {
            g->w[l][j] = carve(g, mult[j] * h * h);
            g->gw[l][j] = carve(g, mult[j] * h * h);
        }
    g->w_head = carve(g, h * (size_t)cfg->vocab);
    g->gw_head = carve(g, h * (size_t)cfg->vocab);
    if (cfg->torch_head)
        g->g_logits = carve(g, (size_t)cfg->batch * (size_t)cfg->seq * (size_t)cfg->vocab);
    return g;
}

void gpt_set_lowest_block(gpt *g, int on)
{
    g->c.lowest_block = on;
}

void gpt_free(gpt *g)
{
    free(g);
}

/* ---- one pass ---- */

typedef struct pass {
    gpt *g;
    gpt_gemm_fn fn;
    void *ctx;
    int64_t B, T; /* sequences, tokens */
} pass;

/* What a layer keeps for its backward. */
typedef struct saved {
    float *x_in;                 /* layer input (checkpoints keep only this) */
    float *ln1, *qkv, *q, *k, *v, *p, *y, *ln2, *h1, *act;
    int have;                    /* 0: only x_in (checkpointed) */
    int core_dropped;            /* selective: q, k, v, p not kept */
} saved;

static void linear(pass *s, int api, const float *w, int64_t in, int64_t out, const float *x, float *y)
{
    s->fn(s->ctx, api, 'T', 'N', out, s->T, in, 1, w, x, y);
}

static void linear_back(pass *s, const float *w, float *gw, int64_t in, int64_t out, const float *x,
                        const float *gy, float *gx)
{
    if (gx != NULL)
        s->fn(s->ctx, GPT_GEMM, 'N', 'N', in, s->T, out, 1, w, gy, gx);
    s->fn(s->ctx, GPT_GEMM, 'N', 'T', in, out, s->T, 1, x, gy, gw);
}

/* q', k', v' (copies per head), scores, softmax, output. keep: grad mode. */
static void attention_core(pass *s, saved *sv, int keep, float **out)
{
    gpt *g = s->g;
    int64_t d = g->c.hidden / g->c.heads, S = g->c.seq, nb = s->B * g->c.heads;
    size_t hd = (size_t)(nb * d * S), ss = (size_t)(nb * S * S);
    float *q = alloc(g, hd), *k = alloc(g, hd), *v = alloc(g, hd); /* contiguous copies */
    if (g->c.attn != NULL) { /* fused: one kernel, no scores kept */
        g->c.attn(s->ctx, 0, nb, S, d);
        float *o = alloc(g, hd);
        *out = o;
        if (keep) {
            sv->q = q, sv->k = k, sv->v = v, sv->p = NULL;
            return;
        }
        release(g, q), release(g, k), release(g, v);
        return;
    }
    float *sc = alloc(g, ss);
    s->fn(s->ctx, GPT_STRIDED, 'T', 'N', S, S, d, nb, k, q, sc);
    float *p = alloc(g, ss); /* softmax */
    release(g, sc);
    float *o = alloc(g, hd);
    s->fn(s->ctx, GPT_STRIDED, 'N', 'N', d, S, S, nb, v, p, o);
    *out = o;
    if (keep) {
        sv->q = q, sv->k = k, sv->v = v, sv->p = p;
        return;
    }
    release(g, q), release(g, k), release(g, v), release(g, p);
}

/* A layer's forward. keep: save for backward (grad mode). selective: the
 * attention core runs as a checkpoint (its tensors dropped). */
static float *layer_forward(pass *s, int l, float *x, saved *sv, int keep, int selective)
{
    gpt *g = s->g;
    int64_t h = g->c.hidden, T = s->T;
    size_t th = (size_t)(T * h);
    (void)x; /* read by the layer norm, which is no GEMM */
    float *ln1 = alloc(g, th), *qkv = alloc(g, 3 * th);
    linear(s, GPT_GEMM, g->w[l][0], h, 3 * h, ln1, qkv);
    float *o;
    attention_core(s, sv, keep && !selective, &o);
    float *y = alloc(g, th); /* heads back to tokens */
    release(g, o);
    float *po = alloc(g, th);
    linear(s, GPT_GEMM, g->w[l][1], h, h, y, po);
    float *mid = alloc(g, th), *ln2 = alloc(g, th), *h1 = alloc(g, 4 * th);
    release(g, po);
    linear(s, g->c.use_lt ? GPT_LT : GPT_GEMM, g->w[l][2], h, 4 * h, ln2, h1);
    float *act = alloc(g, 4 * th), *h2 = alloc(g, th);
    linear(s, GPT_GEMM, g->w[l][3], 4 * h, h, act, h2);
    float *x_out = alloc(g, th);
    release(g, h2);
    release(g, mid);
    if (keep) {
        sv->ln1 = ln1, sv->qkv = qkv, sv->y = y, sv->ln2 = ln2, sv->h1 = h1, sv->act = act;
        sv->have = 1;
        sv->core_dropped = selective;
    } else {
        release(g, ln1), release(g, qkv), release(g, y), release(g, ln2), release(g, h1), release(g, act);
    }
    return x_out;
}

/* Backward of a layer whose saved tensors are in sv; gy: gradient of its
 * output (consumed). Returns the gradient of its input. */
static float *layer_backward(pass *s, int l, saved *sv, float *gy)
{
    gpt *g = s->g;
    int64_t h = g->c.hidden, T = s->T, d = h / g->c.heads, S = g->c.seq, nb = s->B * g->c.heads;
    size_t th = (size_t)(T * h), hd = (size_t)(nb * d * S), ss = (size_t)(nb * S * S);
    float *g_act = alloc(g, 4 * th);
    linear_back(s, g->w[l][3], g->gw[l][3], 4 * h, h, sv->act, gy, g_act);
    release(g, sv->act);
    float *g_h1 = alloc(g, 4 * th); /* gelu backward */
    release(g, g_act), release(g, sv->h1);
    float *g_ln2 = alloc(g, th);
    linear_back(s, g->w[l][2], g->gw[l][2], h, 4 * h, sv->ln2, g_h1, g_ln2);
    release(g, g_h1), release(g, sv->ln2);
    float *g_mid = alloc(g, th); /* layer norm backward + residual */
    release(g, g_ln2);
    float *g_y = alloc(g, th);
    linear_back(s, g->w[l][1], g->gw[l][1], h, h, sv->y, g_mid, g_y);
    release(g, sv->y);
    if (sv->core_dropped) { /* selective: run the core again, now keeping it */
        float *o;
        g->phase = GPT_PH_REC;
        attention_core(s, sv, 1, &o);
        g->phase = GPT_PH_BWD;
        release(g, o);
    }
    float *g_o = alloc(g, hd); /* tokens to heads */
    release(g, g_y);
    if (g->c.attn != NULL) { /* fused backward: dQ, dK, dV in one kernel */
        g->c.attn(s->ctx, 1, nb, S, d);
        float *g_qkv = alloc(g, 3 * th);
        release(g, g_o), release(g, sv->q), release(g, sv->k), release(g, sv->v);
        float *g_ln1 = alloc(g, th);
        linear_back(s, g->w[l][0], g->gw[l][0], h, 3 * h, sv->ln1, g_qkv, g_ln1);
        release(g, g_qkv), release(g, sv->ln1), release(g, sv->qkv);
        float *g_x = alloc(g, th);
        release(g, g_ln1), release(g, g_mid), release(g, gy);
        return g_x;
    }
    float *g_p = alloc(g, ss), *g_v = alloc(g, hd);
    s->fn(s->ctx, GPT_STRIDED, 'T', 'N', S, S, d, nb, sv->v, g_o, g_p);
    s->fn(s->ctx, GPT_STRIDED, 'N', 'T', d, S, S, nb, g_o, sv->p, g_v);
    release(g, g_o), release(g, sv->v);
    float *g_s = alloc(g, ss); /* softmax backward */
    release(g, g_p), release(g, sv->p);
    float *g_q = alloc(g, hd), *g_k = alloc(g, hd);
    s->fn(s->ctx, GPT_STRIDED, 'N', 'N', d, S, S, nb, sv->k, g_s, g_q);
    s->fn(s->ctx, GPT_STRIDED, 'N', 'T', d, S, S, nb, sv->q, g_s, g_k);
    release(g, g_s), release(g, sv->q), release(g, sv->k);
    float *g_qkv = alloc(g, 3 * th);
    release(g, g_q), release(g, g_k), release(g, g_v);
    float *g_ln1 = alloc(g, th);
    linear_back(s, g->w[l][0], g->gw[l][0], h, 3 * h, sv->ln1, g_qkv, g_ln1);
    release(g, g_qkv), release(g, sv->ln1), release(g, sv->qkv);
    float *g_x = alloc(g, th); /* layer norm backward + residual */
    release(g, g_ln1), release(g, g_mid), release(g, gy);
    return g_x;
}

static int ckpt(const gpt *g, int l, int mode)
{
    return g->c.recompute == mode && (g->c.ckpt_mask >> l & 1u);
}

void gpt_train_step(gpt *g, gpt_gemm_fn fn, void *ctx)
{
    pass s = {g, fn, ctx, g->c.batch, (int64_t)g->c.batch * g->c.seq};
    int64_t h = g->c.hidden, V = g->c.vocab, T = s.T;
    size_t th = (size_t)(T * h);
    saved sv[64];
    memset(sv, 0, sizeof sv);
    float *x = alloc(g, th); /* embeddings */
    g->phase = GPT_PH_FWD;
    for (int l = 0; l < g->c.layers; l++) {
        sv[l].x_in = x;
        x = layer_forward(&s, l, x, &sv[l], !ckpt(g, l, GPT_FULL), ckpt(g, l, GPT_SELECTIVE));
    }
    float *lnf = alloc(g, th), *logits = alloc(g, (size_t)(T * V));
    linear(&s, GPT_GEMM, g->w_head, h, V, lnf, logits);
    g->phase = GPT_PH_BWD;
    /* cross-entropy backward */
    float *g_logits = g->c.torch_head ? g->g_logits : alloc(g, (size_t)(T * V));
    release(g, logits);
    float *gy = alloc(g, th);
    if (g->c.torch_head) { /* weight gradient first */
        s.fn(s.ctx, GPT_GEMM, 'N', 'T', h, V, s.T, 1, lnf, g_logits, g->gw_head);
        s.fn(s.ctx, GPT_GEMM, 'N', 'N', h, s.T, V, 1, g->w_head, g_logits, gy);
    } else {
        linear_back(&s, g->w_head, g->gw_head, h, V, lnf, g_logits, gy);
        release(g, g_logits);
    }
    release(g, lnf), release(g, x);
    for (int l = g->c.layers - 1; l >= 0; l--) {
        if (!sv[l].have) { /* full checkpoint: run the layer again, keeping all */
            g->phase = GPT_PH_REC;
            float *x_out = layer_forward(&s, l, sv[l].x_in, &sv[l], 1, 0);
            g->phase = GPT_PH_BWD;
            release(g, x_out);
        }
        float *gx = layer_backward(&s, l, &sv[l], gy);
        release(g, sv[l].x_in);
        gy = gx;
    }
    release(g, gy); /* embedding backward: no GEMM */
}

void gpt_eval(gpt *g, gpt_gemm_fn fn, void *ctx, int batch_override)
{
    int64_t B = batch_override > 0 ? batch_override : g->c.batch;
    pass s = {g, fn, ctx, B, B * g->c.seq};
    int64_t h = g->c.hidden, V = g->c.vocab;
    saved sv;
    g->phase = GPT_PH_EVAL;
    float *x = alloc(g, (size_t)(s.T * h));
    for (int l = 0; l < g->c.layers; l++) {
        float *next = layer_forward(&s, l, x, &sv, 0, 0);
        release(g, x);
        x = next;
    }
    float *lnf = alloc(g, (size_t)(s.T * h)), *logits = alloc(g, (size_t)(s.T * V));
    release(g, x);
    linear(&s, GPT_GEMM, g->w_head, h, V, lnf, logits);
    release(g, lnf), release(g, logits);
}

int gpt_phase(const gpt *g)
{
    return g->phase;
}

void gpt_expected(const gpt_cfg *c, gpt_flops *out)
{
    uint64_t B = (uint64_t)c->batch, S = (uint64_t)c->seq, h = (uint64_t)c->hidden,
             V = (uint64_t)c->vocab, T = B * S;
    uint64_t linears = 24 * T * h * h, core = 4 * B * S * S * h, logits = 2 * T * h * V;
    out->fwd = (uint64_t)c->layers * (linears + core) + logits;
    out->bwd = 2 * out->fwd;
    out->rec = 0;
    for (int l = 0; l < c->layers; l++)
        if (c->ckpt_mask >> l & 1u)
            out->rec += c->recompute == GPT_FULL ? linears + core : c->recompute == GPT_SELECTIVE ? core : 0;
    out->eval = out->fwd;
}

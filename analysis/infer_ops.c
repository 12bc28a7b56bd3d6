/* SPDX-License-Identifier: Apache-2.0 */
/* infer_ops.c - from a forward profile to operations, and where the layers
 * are (infer.h).
 *
 * A weight GEMM is a Linear: with A the weight, op(A) is out x in and n is
 * the tokens; with B the weight, m is the tokens (both flagged: the slot
 * most one-weight GEMMs use). The attention core is found by shape first,
 * whatever the weight flags: runs of QK^T (rows x s by d, rows = r*s when
 * query heads share a key head) and attention x V (contracting over s) with
 * the same number of products (B*a: one batched call, a run of calls, or
 * the two alternating per head). Runs of weight GEMMs on fewer tokens than
 * the forward's (or batched over several weights) are experts, taken as one
 * operation.
 *
 * Layers: with the attention core in the stream, one per core, from its
 * input projections (the weight GEMMs just before it that read the hidden
 * width) to the next layer's. Without it (fused attention), the longest
 * repeated block of operations, each repetition one layer. */
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

static int fail(char *why, size_t n, const char *msg)
{
    snprintf(why, n, "%s", msg);
    return -1;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static op from_gemm(const fc_fwd_gemm *g, unsigned side)
{
    op o;
    memset(&o, 0, sizeof o);
    o.flops = g->flops;
    o.g1 = 1; /* g0, g1 are relative until build_ops places them */
    int64_t count = g->count > 0 && g->count < INT64_MAX ? (int64_t)g->count : 1;
    unsigned w = (g->weight & 3) == 3 ? side : g->weight & 3;
    if (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 1) {
        o.kind = OP_UNK;
    } else if (w == 1) { /* A = W: op(A) out x in, n tokens */
        o.kind = OP_LIN;
        o.out = g->m, o.in = g->k, o.tok = fc_infer_mul(g->n, count), o.grp = g->batch;
    } else if (w == 2) { /* B = W: op(B) in x out, m tokens */
        o.kind = OP_LIN;
        o.out = g->n, o.in = g->k, o.tok = fc_infer_mul(g->m, count), o.grp = g->batch;
    } else { /* a product of activations */
        o.kind = OP_PROD;
        o.m = g->m, o.n = g->n, o.k = g->k, o.cnt = fc_infer_mul(count, g->batch);
    }
    return o;
}

static int64_t calls_of(const fc_fwd_gemm *g)
{
    int64_t count = g->count > 0 && g->count < INT64_MAX ? (int64_t)g->count : 1;
    return fc_infer_mul(count, g->batch > 0 ? g->batch : 1);
}

static int same_shape(const fc_fwd_gemm *x, const fc_fwd_gemm *y)
{
    return x->m == y->m && x->n == y->n && x->k == y->k && x->batch == y->batch &&
           x->transa == y->transa && x->transb == y->transb;
}

/* x as QK^T: rows x s (either way round) by d, rows = r*s; y as attention
 * x V after it: (r*s) x d by s. Relaxed (multi-latent attention): y's
 * other width dv may differ from d (d_v against d_qk = nope + rope). */
static int core_pair(const fc_fwd_gemm *x, const fc_fwd_gemm *y, int relaxed, int64_t *s,
                     int64_t *d, int64_t *r, int64_t *dv)
{
    int64_t lo = x->m < x->n ? x->m : x->n, hi = x->m < x->n ? x->n : x->m;
    if (x->m < 0 || y->m < 0 || lo <= 0 || hi % lo != 0 || y->k != lo)
        return 0;
    *s = lo, *d = x->k, *r = hi / lo, *dv = x->k;
    if ((y->m == hi && y->n == x->k) || (y->m == x->k && y->n == hi))
        return 1;
    if (!relaxed || (y->m != hi && y->n != hi))
        return 0;
    *dv = y->m == hi ? y->n : y->m;
    return *dv > 0;
}

static op core_op(int64_t s, int64_t d, int64_t r, int64_t heads_b, int64_t dv)
{
    op c;
    memset(&c, 0, sizeof c);
    c.kind = OP_CORE;
    c.s = s, c.d = d, c.r = r, c.heads_b = heads_b, c.dv = dv;
    return c;
}

/* Calls of g[from..to) that the detector flagged as having a weight. */
static int64_t flagged_calls(const fc_fwd_gemm *g, size_t from, size_t to)
{
    int64_t f = 0;
    for (size_t x = from; x < to; x++)
        if (g[x].weight)
            f = fc_infer_add(f, calls_of(&g[x]));
    return f;
}

/* The attention core at entry i, by shape (CPU torch copies Q, K and V per
 * step, often to the same addresses, so the detector can take a head's copy
 * for a weight): QK^T then attention x V alternating per head (two or more
 * pairs), or a run of each with as many products, or, when d == s and both
 * have one shape, one run of an even number. Not every call may carry a
 * weight flag: Linears all do, and two of them can have the shapes of a
 * pair (an MLP h -> f -> h whose f equals the tokens), while a head's copy
 * passes for a weight only where the allocator happened to reuse its
 * address (from none to most of the calls). Returns the entries used, 0
 * when there is no core at i. */
static size_t core_at(const fc_fwd_gemm *g, size_t n, size_t i, int relaxed, op *out)
{
    int64_t s, d, r, dv, cx = 0, cy = 0;
    fc_u128 fl = 0;
    size_t j = i;
    if (i + 1 < n && !same_shape(&g[i], &g[i + 1]) &&
        core_pair(&g[i], &g[i + 1], relaxed, &s, &d, &r, &dv)) {
        size_t pairs = 0;
        while (j + 1 < n && same_shape(&g[j], &g[i]) && same_shape(&g[j + 1], &g[i + 1])) {
            cx = fc_infer_add(cx, calls_of(&g[j])), cy = fc_infer_add(cy, calls_of(&g[j + 1]));
            fl = fc_u128_sat_add(fl, fc_u128_sat_add(g[j].flops, g[j + 1].flops));
            j += 2, pairs++;
        }
        if (pairs >= 2 && cx == cy && flagged_calls(g, i, j) < fc_infer_add(cx, cy)) {
            *out = core_op(s, d, r, fc_infer_mul(cx, r), dv);
            out->flops = fl;
            return j - i;
        }
    }
    size_t a = i, b;
    cx = cy = 0, fl = 0;
    for (; a < n && same_shape(&g[a], &g[i]); a++)
        cx = fc_infer_add(cx, calls_of(&g[a])), fl = fc_u128_sat_add(fl, g[a].flops);
    fc_u128 fl_a = fl;
    for (b = a; b < n && same_shape(&g[b], &g[a]); b++)
        cy = fc_infer_add(cy, calls_of(&g[b])), fl = fc_u128_sat_add(fl, g[b].flops);
    if (a < n && core_pair(&g[i], &g[a], relaxed, &s, &d, &r, &dv) && cx == cy &&
        flagged_calls(g, i, b) < fc_infer_add(cx, cy)) {
        *out = core_op(s, d, r, fc_infer_mul(cx, r), dv);
        out->flops = fl;
        return b - i;
    }
    if (g[i].m == g[i].n && g[i].n == g[i].k && cx >= 2 && cx % 2 == 0 &&
        flagged_calls(g, i, a) < cx) {
        *out = core_op(g[i].m, g[i].m, 1, cx / 2, g[i].m);
        out->flops = fl_a;
        return a - i;
    }
    return 0;
}

/* Operations from the profile's entries; neighbouring cores of one shape
 * (a per-head loop cut in pieces) merged. */
/* The operand slot that holds the weight when the detector flagged both (an
 * activation that sits at the same address every step looks like a
 * weight): the slot most one-weight GEMMs outside the attention core use
 * (a head's copy in the core can carry a flag too). */
static unsigned weight_side(const fc_fwd_profile *p, int relaxed)
{
    uint64_t a = 0, b = 0;
    for (size_t i = 0; i < p->n;) {
        op c;
        size_t used = p->g[i].m >= 0 ? core_at(p->g, p->n, i, relaxed, &c) : 0;
        if (used > 0) {
            i += used;
            continue;
        }
        a += (p->g[i].weight & 3) == 1;
        b += (p->g[i].weight & 3) == 2;
        i++;
    }
    return b > a ? 2 : 1;
}

static void build_ops(const fc_fwd_profile *p, fc_infer_work *w)
{
    unsigned side = weight_side(p, w->relaxed);
    for (size_t i = 0; i < p->n;) {
        op c;
        if (p->g[i].attention) { /* a fused-attention call: the core in one (infer_attn.c) */
            w->raw[w->n_raw++] = fc_infer_attn_op(&p->g[i], i);
            i++;
            continue;
        }
        size_t used = p->g[i].m >= 0 ? core_at(p->g, p->n, i, w->relaxed, &c) : 0;
        if (used == 0) {
            op x = from_gemm(&p->g[i], side);
            x.g0 = i, x.g1 = i + 1;
            w->raw[w->n_raw++] = x;
            i++;
            continue;
        }
        c.g0 = i, c.g1 = i + used;
        i += used;
        op *prev = w->n_raw > 0 ? &w->raw[w->n_raw - 1] : NULL;
        if (prev && prev->kind == OP_CORE && !prev->attn && prev->s == c.s && prev->d == c.d &&
            prev->r == c.r && prev->dv == c.dv) {
            prev->heads_b = fc_infer_add(prev->heads_b, c.heads_b);
            prev->flops = fc_u128_sat_add(prev->flops, c.flops);
            prev->g1 = c.g1;
        } else {
            w->raw[w->n_raw++] = c;
        }
    }
}

static int is_expert(const op *x, int64_t tokens)
{
    return x->kind == OP_LIN && (x->tok < tokens || x->grp > 1);
}

static uint64_t symbol(const op *x, size_t i, int64_t tokens)
{
    uint64_t h = mix(0, (uint64_t)x->kind);
    switch (x->kind) {
    case OP_LIN:
        h = mix(mix(mix(h, (uint64_t)x->in), (uint64_t)x->out), x->tok == tokens);
        return mix(h, (uint64_t)x->grp);
    case OP_PROD:
        return mix(mix(mix(mix(h, (uint64_t)x->m), (uint64_t)x->n), (uint64_t)x->k),
                   (uint64_t)x->cnt);
    case OP_CORE:
        return mix(mix(mix(mix(mix(h, (uint64_t)x->s), (uint64_t)x->d), (uint64_t)x->r),
                       (uint64_t)x->heads_b),
                   (uint64_t)x->dv);
    case OP_EXPERTS:
        return h; /* routing changes from layer to layer; the layer decides */
    default:
        return mix(h, (uint64_t)i + 1); /* unknown shapes never repeat */
    }
}

int fc_infer_ops(const fc_fwd_profile *p, fc_infer_work *w, char *why, size_t n)
{
    w->n_raw = w->n_ops = w->n_lay = 0;
    w->tokens = 0;
    w->p = p;
    if (p->n == 0)
        return fail(why, n, "the forward profile holds no GEMM");
    if (p->n > FC_INFER_MAX_GEMMS || p->truncated)
        return fail(why, n, "the forward has more runs of GEMMs than the profile holds");
    for (size_t i = 0; i < p->n; i++) {
        const fc_fwd_gemm *g = &p->g[i];
        if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX || g->batch > INT32_MAX ||
            g->count > INT32_MAX)
            return fail(why, n,
                        "a GEMM of the forward is larger than 2^31 in a dimension or count");
    }
    build_ops(p, w);
    for (size_t i = 0; i < w->n_raw; i++)
        if (w->raw[i].kind == OP_LIN && w->raw[i].grp == 1 && w->raw[i].tok > w->tokens)
            w->tokens = w->raw[i].tok;
    if (w->tokens == 0)
        return fail(why, n, "no GEMM of the forward has a weight operand: no Linear layer to read");
    for (size_t i = 0; i < w->n_raw; i++) {
        op x = w->raw[i];
        if (is_expert(&x, w->tokens)) {
            size_t j = i;
            while (j < w->n_raw && is_expert(&w->raw[j], w->tokens))
                j++;
            memset(&x, 0, sizeof x);
            x.kind = OP_EXPERTS;
            x.first = i, x.last = j;
            x.g0 = w->raw[i].g0, x.g1 = w->raw[j - 1].g1;
            for (size_t e = i; e < j; e++)
                x.flops = fc_u128_sat_add(x.flops, w->raw[e].flops);
            i = j - 1;
        }
        x.sym = symbol(&x, i, w->tokens);
        w->ops[w->n_ops++] = x;
    }
    return 0;
}

/* ---- layers ---- */

static int is_token_lin(const op *x, int64_t tokens)
{
    return x->kind == OP_LIN && x->tok == tokens && x->grp == 1;
}

/* With the core: layer j runs from its input projections (the weight
 * GEMMs before core j reading the hidden width, no more than the next
 * layer has) to the next layer's; the last one as far as it reads as a
 * layer followed by what can be the logits. */
static int layers_by_core(fc_infer_work *w, const size_t *core, size_t L, char *why, size_t n)
{
    const op *o = w->ops;
    int64_t T = w->tokens;
    size_t nproj_next = SIZE_MAX;
    for (size_t jj = L; jj-- > 0;) {
        size_t c = core[jj], lo = jj > 0 ? core[jj - 1] + 2 : 0, i = c;
        if (c + 1 >= w->n_ops || !is_token_lin(&o[c + 1], T)) {
            snprintf(why, n, "no output projection after attention core %zu", jj + 1);
            return -1;
        }
        int64_t h = o[c + 1].out;
        while (i > lo && is_token_lin(&o[i - 1], T) && o[i - 1].in == h &&
               c - (i - 1) <= nproj_next)
            i--;
        if (i == c) {
            snprintf(why, n, "no input projection before attention core %zu", jj + 1);
            return -1;
        }
        memset(&w->lay[jj], 0, sizeof w->lay[jj]);
        w->lay[jj].start = i;
        nproj_next = c - i;
    }
    for (size_t j = 0; j + 1 < L; j++)
        w->lay[j].end = w->lay[j + 1].start;
    /* The last layer: the longest stretch that reads as a layer and is
     * followed by what can be the logits (or by nothing). */
    size_t last = core[L - 1], end = 0;
    int64_t h = o[last + 1].out;
    for (size_t e = last + 3; e <= w->n_ops; e++) {
        layer t = w->lay[L - 1];
        char ignore[8];
        t.end = e;
        int logits_next = e == w->n_ops || (o[e].kind == OP_LIN && o[e].in == h && o[e].out != h) ||
                          o[e].kind == OP_EXPERTS;
        if (logits_next && fc_infer_layer(w, &t, ignore, sizeof ignore) == 0)
            end = e;
    }
    if (end == 0) {
        snprintf(why, n, "layer %zu (the last) does not read as a layer", L);
        return -1;
    }
    w->lay[L - 1].end = end;
    w->n_lay = L;
    return 0;
}

/* Without the core: the block of operations repeated over the most of the
 * forward (ties: a block that ends where it starts, in the hidden width;
 * then the earliest; then the shortest). */
static int layers_by_repeat(fc_infer_work *w, char *why, size_t n)
{
    const op *o = w->ops;
    size_t N = w->n_ops, best_cov = 0, best_s = 0, best_p = 0;
    int best_closed = 0;
    for (size_t s0 = 0; s0 < N && s0 < 64; s0++)
        for (size_t p = 1; s0 + 2 * p <= N; p++) {
            size_t reps = 1;
            while (s0 + (reps + 1) * p <= N) {
                size_t b = s0 + reps * p, x = 0;
                while (x < p && o[b + x].sym == o[s0 + x].sym)
                    x++;
                if (x < p)
                    break;
                reps++;
            }
            if (reps < 2 || reps > FC_INFER_MAX_LAYERS)
                continue;
            const op *first = &o[s0], *lastop = &o[s0 + p - 1];
            int closed =
                first->kind == OP_LIN && lastop->kind == OP_LIN && lastop->out == first->in;
            size_t cov = reps * p;
            if (cov > best_cov || (cov == best_cov && closed && !best_closed)) {
                best_cov = cov, best_s = s0, best_p = p, best_closed = closed;
            }
        }
    if (best_cov == 0)
        return fail(why, n,
                    "no attention core GEMMs (fused attention?) and no repeated block "
                    "of GEMMs: layers cannot be told apart (one layer, or not a "
                    "transformer)");
    w->n_lay = best_cov / best_p;
    for (size_t j = 0; j < w->n_lay; j++) {
        memset(&w->lay[j], 0, sizeof w->lay[j]);
        w->lay[j].start = best_s + j * best_p;
        w->lay[j].end = best_s + (j + 1) * best_p;
    }
    return 0;
}

/* A core between an input projection and an output projection that
 * reads back into the projection's input width: a layer's. Others (two
 * activations' products that happen to pair up, e.g. backward GEMMs the
 * detector took for forward after the logits) are left as extra work. */
static int framed(const fc_infer_work *w, size_t c)
{
    const op *o = w->ops;
    return c > 0 && c + 1 < w->n_ops && is_token_lin(&o[c - 1], w->tokens) &&
           is_token_lin(&o[c + 1], w->tokens) && o[c - 1].in == o[c + 1].out;
}

int fc_infer_layers(fc_infer_work *w, char *why, size_t n)
{
    size_t core[FC_INFER_MAX_LAYERS], L = 0;
    for (size_t i = 0; i < w->n_ops; i++)
        if (w->ops[i].kind == OP_CORE && framed(w, i)) {
            if (L == FC_INFER_MAX_LAYERS)
                return fail(why, n, "more attention cores than layers are read");
            core[L++] = i;
        }
    int rc = L > 0 ? layers_by_core(w, core, L, why, n) : layers_by_repeat(w, why, n);
    if (rc != 0)
        return rc;
    w->prefix_end = w->lay[0].start;
    w->suffix_start = w->lay[w->n_lay - 1].end;
    return 0;
}

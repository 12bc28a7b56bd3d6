/* SPDX-License-Identifier: Apache-2.0 */
/* infer_mixers.c - one sublayer of the layer-kinds reader read as a mixer
 * (infer_internal.h, fc_infer_mixer), from its GEMMs' shapes:
 *
 *   attention       Q, K, V from h (fused or not; Q twice o's input: an
 *                   output gate), the core, o back to h
 *   multi-latent    q_a h -> r_q, q_b r_q -> a*d_qk (or q h -> a*d_qk),
 *                   kv_a h -> r_kv + d_rope, kv_b r_kv -> a*(d_nope + d_v),
 *                   the core, o a*d_v -> h. With X = a*d_qk, Y = a*(d_nope +
 *                   d_v), Z = a*d_v and d_rope = kv_a's out - kv_b's in:
 *                   a = (X - Y + Z) / d_rope; the core, when the stream has
 *                   it, must agree (QK^T of d_qk, attention x V of d_v)
 *   gated delta-net in_proj_qkvz h -> 2*Hk*dk + 2*Hv*dv, in_proj_ba h -> 2*Hv,
 *                   out_proj Hv*dv -> h; the chunked delta rule's products
 *                   (q x q by dk, ...) give the chunk q and dk
 *   Mamba-2         in_proj h -> 2*di + 2*G*N + H, out_proj di -> h; the SSD
 *                   scan's products give the chunk q and N (C B^T: q x q by
 *                   N), P ((C B^T o L) X: q x P by q), so H = di / P and
 *                   G = (in - 2*di - H) / 2N
 *   Mamba-1         in_proj h -> 2*di, x_proj di -> R + 2N, dt_proj R -> di,
 *                   out_proj di -> h (the selective scan is elementwise)
 *
 * The scans' products are read off the profile entries between the
 * projections, and their FLOPs must be exactly the formula's (full chunks)
 * for the sizes to count as read; a scan that ran no GEMM (Triton kernels)
 * leaves what only it shows unknown, with the reason. */
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

static int fail(char *why, size_t n, const char *msg)
{
    snprintf(why, n, "%s", msg);
    return -1;
}

static int is_tlin(const op *x, int64_t T)
{
    return x->kind == OP_LIN && x->tok == T && x->grp == 1;
}

/* ---- attention ---- */

/* Standard attention's K and V width from the input projections' widths
 * and q = a*d (o's input); *gate when Q is 2q wide (a sigmoid output gate:
 * Q and K, V apart, or Q and KV). */
static int kv_of(const int64_t *outs, size_t np, int64_t q, int64_t *kv, int *gate)
{
    *gate = 0;
    if (fc_infer_kv_width(outs, np, q, kv) == 0)
        return 0;
    *gate = 1;
    return np >= 2 ? fc_infer_kv_width(outs, np, 2 * q, kv) : -1;
}

/* Multi-latent attention from the projections P[0..np) (in order). */
static int mla_of(kseg *s, const op *const *P, size_t np, int64_t h, int64_t Z, char *why, size_t n)
{
    const op *q = NULL, *q_a = NULL, *q_b = NULL, *kv_a = NULL, *kv_b = NULL;
    int used[8] = {0};
    if (np > 4)
        return fail(why, n, "more than four projections before the core");
    for (size_t i = 0; i < np; i++) {
        if (P[i]->in == h)
            continue;
        /* an up-projection: its source reads h before it, at least as wide */
        size_t src = SIZE_MAX;
        for (size_t j = i; j-- > 0;)
            if (P[j]->in == h && !used[j] && P[j]->out >= P[i]->in) {
                src = j;
                break;
            }
        if (src == SIZE_MAX)
            return fail(why, n, "a projection before the core reads neither h nor a latent");
        used[src] = 1;
        if (P[src]->out == P[i]->in) {
            if (q_b != NULL)
                return fail(why, n, "two latent query projections");
            q_a = P[src], q_b = P[i];
        } else {
            if (kv_b != NULL)
                return fail(why, n, "two latent key/value projections");
            kv_a = P[src], kv_b = P[i];
        }
    }
    for (size_t i = 0; i < np; i++)
        if (P[i]->in == h && !used[i]) {
            if (q != NULL || q_b != NULL)
                return fail(why, n, "projections from h that are neither Q nor a latent");
            q = P[i];
        }
    if (kv_b == NULL || (q == NULL && q_b == NULL))
        return fail(why, n,
                    "not the projections of multi-latent attention (Q, and K and V from "
                    "a latent)");
    int64_t X = q_b ? q_b->out : q->out, Y = kv_b->out, rope = kv_a->out - kv_b->in;
    int64_t num = X - Y + Z, a = rope > 0 && num > 0 && num % rope == 0 ? num / rope : 0;
    if (a <= 0 || (Y - Z) % a != 0 || Z % a != 0 || (Y - Z) <= 0)
        return fail(why, n,
                    "the latent projections' widths do not factor into heads x "
                    "(nope + rope, nope + v, v)");
    int64_t nope = (Y - Z) / a, v = Z / a;
    if (X != a * (nope + rope))
        return fail(why, n, "the query width is not heads x (nope + rope)");
    s->mla = 1;
    s->v[0] = q_a ? q_a->out : 0, s->v[1] = kv_b->in, s->v[2] = nope, s->v[3] = rope;
    s->v[4] = v, s->v[5] = a;
    s->l.q = Z;
    s->l.kv = 0;
    return 0;
}

/* [projections..., core, o]: o writes h; without the core (fused
 * attention) [projections..., o]. */
static int attention(const fc_infer_work *w, kseg *s, int64_t T, int64_t h, int fused, char *why,
                     size_t n)
{
    const op *o = w->ops;
    size_t c = fused ? s->b - 1 : s->b - 2;
    const op *P[8];
    size_t np = 0;
    int all_h = 1;
    for (size_t i = s->a; i < c; i++) {
        if (!is_tlin(&o[i], T) || np == 8)
            return fail(why, n, "a GEMM before the attention core is not a projection");
        all_h &= o[i].in == h;
        P[np++] = &o[i];
    }
    if (np == 0)
        return fail(why, n, "no projection before the attention core");
    s->l.h = h, s->l.q = o[s->b - 1].in, s->l.nproj = (int64_t)np;
    if (!fused)
        s->l.core = 1, s->l.s = o[c].s, s->l.d = o[c].d, s->l.heads_b = o[c].heads_b;
    if (all_h) {
        int64_t outs[3] = {0, 0, 0};
        for (size_t i = 0; i < np && i < 3; i++)
            outs[i] = P[i]->out;
        if (np > 3 || kv_of(outs, np, s->l.q, &s->l.kv, &s->gate) != 0)
            return fail(why, n, "the input projections' widths do not read as Q, K and V");
        if (!fused && o[c].dv != o[c].d)
            return fail(why, n, "attention x V is not as wide as QK^T's inner dimension");
    } else {
        if (mla_of(s, P, np, h, s->l.q, why, n) != 0)
            return -1;
        if (!fused && (o[c].d != s->v[2] + s->v[3] || o[c].dv != s->v[4]))
            return fail(why, n, "the attention core's widths differ from the latent projections'");
    }
    s->kind = SEG_ATTN;
    s->mix = FC_MIX_ATTENTION;
    return 0;
}

/* ---- the scans ---- */

/* Profile entries of the scan: between the projections. */
typedef struct prods {
    const fc_fwd_gemm *g;
    size_t n;
    fc_u128 flops;
} prods;

static prods scan_of(const fc_infer_work *w, size_t from_op, size_t to_op)
{
    prods p = {0};
    size_t a = w->ops[from_op].g1, b = w->ops[to_op].g0;
    if (a < b && b <= w->p->n) {
        p.g = w->p->g + a, p.n = b - a;
        for (size_t i = 0; i < p.n; i++)
            p.flops = fc_u128_sat_add(p.flops, p.g[i].flops);
    }
    return p;
}

/* The square products' q and inner dimension, all alike; 0 when none. */
static int square(const prods *p, int64_t *q, int64_t *k)
{
    *q = *k = 0;
    for (size_t i = 0; i < p->n; i++) {
        const fc_fwd_gemm *g = &p->g[i];
        if (g->m < 0 || g->m != g->n)
            continue;
        if (*q && (*q != g->m || *k != g->k))
            return -1;
        *q = g->m, *k = g->k;
    }
    return *q ? 1 : 0;
}

static void note(kseg *s, const char *msg)
{
    snprintf(s->why, sizeof s->why, "%s", msg);
}

/* Gated delta-net: qkvz, ba, the rule's products, out. */
static int gdn(const fc_infer_work *w, kseg *s, int64_t T, char *why, size_t n)
{
    const op *o = w->ops, *qkvz = &o[s->a], *ba = &o[s->a + 1], *out = &o[s->b - 1];
    int64_t hv = ba->out / 2, two_kd = qkvz->out - 2 * out->in;
    if (ba->out % 2 || hv <= 0 || out->in % hv || two_kd <= 0 || two_kd % 2)
        return fail(why, n,
                    "two projections from h, but not in_proj_qkvz and in_proj_ba of a "
                    "gated delta-net (2*Hk*dk + 2*Hv*dv, 2*Hv)");
    int64_t dv = out->in / hv, kd = two_kd / 2, q, dk;
    s->kind = SEG_GDN, s->mix = FC_MIX_GDN;
    memset(s->v, 0, sizeof s->v);
    s->v[1] = hv, s->v[3] = dv;
    prods p = scan_of(w, s->a + 1, s->b - 1);
    int sq = square(&p, &q, &dk);
    if (sq <= 0 || kd % dk) {
        note(s, p.n ? "the delta rule's products do not read as q x q by dk"
                    : "the delta rule ran no GEMM (fla's kernels): its key width and chunk are "
                      "not in the stream");
        return 0;
    }
    /* per value head and full chunk of q: 5 q x q products (2*q^2*d each
     * with d = dk, dv, dk, dk, dv) and 3 against the state (2*q*dk*dv) */
    fc_u128 want =
        (fc_u128)hv * (2 * (fc_u128)T * q * (3 * dk + 2 * dv) + 6 * (fc_u128)T * dk * dv);
    if (p.flops != want) {
        note(s, "the delta rule's FLOPs are not those of full chunks of its q x q products");
        return 0;
    }
    s->v[0] = kd / dk, s->v[2] = dk, s->v[4] = q;
    return 0;
}

/* Mamba-2: in_proj, the SSD scan's products, out_proj. */
static int mamba2(const fc_infer_work *w, kseg *s, int64_t T, char *why, size_t n)
{
    const op *o = w->ops, *in = &o[s->a], *out = &o[s->b - 1];
    int64_t di = out->in, rest = in->out - 2 * di, q, ns;
    if (rest <= 0)
        return fail(why, n,
                    "one projection from h and one back, no attention core: not a "
                    "Mamba-2 mixer (in_proj h -> 2*d_inner + 2*G*N + H)");
    prods p = scan_of(w, s->a, s->b - 1);
    if (p.n == 0)
        return fail(why, n,
                    "a projection from h and one back, no attention core and no scan "
                    "GEMM: Mamba-2, gated delta-net and fused attention cannot be told "
                    "apart from the shapes (give --layer-pattern and their sizes)");
    if (square(&p, &q, &ns) <= 0)
        return fail(why, n,
                    "GEMMs between two projections that read as no scan the formula "
                    "knows (Mamba-2's C B^T is q x q by N)");
    int64_t P = 0;
    for (size_t i = 0; i < p.n; i++) {
        const fc_fwd_gemm *g = &p.g[i];
        int64_t other = g->m == q ? g->n : g->n == q ? g->m : 0;
        if (g->k == q && other > 0 && other != q) { /* (C B^T o L) X: q x P by q */
            if (P && P != other)
                return fail(why, n, "the SSD scan's products give two head widths");
            P = other;
        }
    }
    if (P <= 0 || di % P)
        return fail(why, n, "the SSD scan's products give no head width dividing d_inner");
    int64_t H = di / P, gn2 = rest - H;
    if (gn2 <= 0 || gn2 % (2 * ns) || H % (gn2 / (2 * ns)))
        return fail(why, n, "in_proj's width is not 2*d_inner + 2*G*N + H for the scan's N and H");
    int64_t G = gn2 / (2 * ns);
    fc_u128 want = 2 * (fc_u128)T * q * (G * ns + H * P) + 4 * (fc_u128)T * H * ns * P;
    if (p.flops != want)
        return fail(why, n,
                    "the SSD scan's FLOPs are not those of full chunks (C B^T, "
                    "(C B^T o L) X, B^T X, C S)");
    s->kind = SEG_MAMBA2, s->mix = FC_MIX_MAMBA;
    s->v[0] = H, s->v[1] = P, s->v[2] = ns, s->v[3] = G, s->v[4] = q, s->v[5] = di;
    return 0;
}

/* Mamba-1: in_proj h -> 2*di, x_proj di -> R + 2N, dt_proj R -> di,
 * out_proj di -> h, nothing else. */
static int mamba1(const fc_infer_work *w, kseg *s, int64_t T)
{
    const op *o = w->ops + s->a;
    if (s->b - s->a != 4)
        return -1;
    for (int i = 0; i < 4; i++)
        if (!is_tlin(&o[i], T))
            return -1;
    int64_t di = o[3].in, r = o[2].in, n2 = o[1].out - r;
    if (o[0].out != 2 * di || o[1].in != di || o[2].out != di || n2 <= 0 || n2 % 2)
        return -1;
    s->kind = SEG_MAMBA1, s->mix = FC_MIX_MAMBA;
    s->v[0] = di, s->v[1] = n2 / 2, s->v[2] = r;
    return 0;
}

int fc_infer_mixer(const fc_infer_work *w, kseg *s, int64_t T, int64_t h, char *why, size_t n)
{
    const op *o = w->ops;
    memset(&s->l, 0, sizeof s->l);
    memset(s->v, 0, sizeof s->v);
    s->mla = s->gate = 0;
    s->why[0] = '\0';
    if (s->b - s->a < 2 || !is_tlin(&o[s->b - 1], T))
        return fail(why, n, "no projection back to the hidden width");
    if (s->b - s->a >= 3 && o[s->b - 2].kind == OP_CORE)
        return attention(w, s, T, h, 0, why, n);
    if (mamba1(w, s, T) == 0)
        return 0;
    size_t readers = 0, lins = 0;
    while (s->a + readers < s->b - 1 && is_tlin(&o[s->a + readers], T) && o[s->a + readers].in == h)
        readers++;
    while (s->a + lins < s->b && is_tlin(&o[s->a + lins], T))
        lins++;
    /* no core in the stream (fused attention): multi-latent attention by its
     * latents, or Q, K and V apart (or Q and KV, Q as wide as o reads) */
    int64_t q = o[s->b - 1].in;
    int qkv = readers == 3 || (readers == 2 && lins == 3 &&
                               (o[s->a].out == q || o[s->a].out == 2 * q || o[s->a + 1].out == q));
    if (lins == s->b - s->a && (readers < lins - 1 || qkv))
        return attention(w, s, T, h, 1, why, n);
    for (size_t i = s->a + readers; i < s->b - 1; i++)
        if (o[i].kind == OP_LIN || o[i].kind == OP_EXPERTS || o[i].kind == OP_UNK)
            return fail(why, n, "a weight GEMM inside the mixer after its input projections");
    if (readers == 1)
        return mamba2(w, s, T, why, n);
    if (readers == 2)
        return gdn(w, s, T, why, n);
    return fail(why, n, "projections from h and back that read as no mixer the formula knows");
}

/* SPDX-License-Identifier: Apache-2.0 */
/* infer_layer.c - each layer's GEMMs read as a transformer layer, and the
 * model's facts from all of them (infer.h).
 *
 * A layer is: input projections (weight GEMMs from the hidden width h: one
 * fused QKV of (a + 2g)*d, or Q and a fused KV, or Q, K and V), the
 * attention core when the stream has it, the output projection (a*d -> h),
 * then the MLP: up and down (h -> f -> h), gated (h -> f twice, or h -> 2f
 * fused, then f -> h), or a mixture of experts (a router h -> E, the
 * experts' GEMMs on their routed tokens, shared experts on all tokens).
 * Without the core, the output projection is the first GEMM back to h
 * after which the rest reads as an MLP. After the last layer, the logits
 * (h -> V on all tokens, or in chunks). GEMMs that fit none of these are
 * extra: counted, and no term of the formula has them. */
#include <stdio.h>
#include <string.h>

#include "infer_internal.h"

#define MAX_LIST 4096

static int fail(char *why, size_t n, const char *msg)
{
    snprintf(why, n, "%s", msg);
    return -1;
}

static int is_token_lin(const op *x, int64_t tokens)
{
    return x->kind == OP_LIN && x->tok == tokens && x->grp == 1;
}

/* ---- MLP groups ---- */

typedef struct group {
    int64_t f, gated, groups, routed, seen;
} group;

/* The group at x[0..avail): [gate, up, down] (gated), [up, down] (plain),
 * or [gate+up fused, down] (gated): every GEMM on the same tokens, from h
 * back to h. Returns its length, 0 when none fits. */
size_t fc_infer_mlp_group(const op *const *x, size_t avail, int64_t h, int64_t *f, int64_t *gated)
{
    if (avail >= 3) {
        const op *a = x[0], *b = x[1], *c = x[2];
        if (a->in == h && b->in == h && a->out == b->out && c->in == a->out && c->out == h &&
            a->tok == b->tok && b->tok == c->tok && a->grp == b->grp && b->grp == c->grp) {
            *f = a->out, *gated = 1;
            return 3;
        }
    }
    if (avail >= 2) {
        const op *a = x[0], *c = x[1];
        if (a->in != h || c->out != h || a->tok != c->tok || a->grp != c->grp)
            return 0;
        if (a->out == c->in) {
            *f = a->out, *gated = 0;
            return 2;
        }
        if (a->out == fc_infer_mul(2, c->in)) {
            *f = c->in, *gated = 1;
            return 2;
        }
    }
    return 0;
}

/* x[0..cnt) as MLP groups of one width and kind; g accumulates. */
static int groups(const op *const *x, size_t cnt, int64_t h, group *g)
{
    for (size_t i = 0; i < cnt;) {
        int64_t f, gated;
        size_t len = fc_infer_mlp_group(x + i, cnt - i, h, &f, &gated);
        if (len == 0)
            return -1;
        if (g->groups > 0 && (f != g->f || gated != g->gated))
            return -1;
        g->f = f, g->gated = gated;
        g->groups++;
        g->seen = fc_infer_add(g->seen, x[i]->grp);
        g->routed = fc_infer_add(g->routed, fc_infer_mul(x[i]->tok, x[i]->grp));
        i += len;
    }
    return 0;
}

/* ---- attention ---- */

/* K and V width g*d from the input projections' widths and q = a*d. */
int fc_infer_kv_width(const int64_t *outs, size_t np, int64_t q, int64_t *kv)
{
    int64_t two = -1;
    if (np == 1)
        two = outs[0] - q;
    else if (np == 2)
        two = outs[0] == q ? outs[1] : outs[1] == q ? outs[0] : -1;
    else if (np == 3)
        for (size_t i = 0; i < 3 && two < 0; i++)
            if (outs[i] == q && outs[(i + 1) % 3] == outs[(i + 2) % 3])
                two = fc_infer_mul(2, outs[(i + 1) % 3]);
    if (two <= 0 || two % 2 != 0)
        return -1;
    *kv = two / 2;
    return 0;
}

/* ---- one layer ---- */

static int moe_mlp(const fc_infer_work *w, layer *l, const op *const *x, size_t cnt, char *why,
                   size_t n)
{
    size_t e = SIZE_MAX;
    for (size_t i = 0; i < cnt; i++)
        if (x[i]->kind == OP_EXPERTS) {
            if (e != SIZE_MAX)
                return fail(why, n, "two runs of expert GEMMs in one layer");
            e = i;
        }
    int64_t h = l->h;
    size_t router = SIZE_MAX;
    if (e > 0 && x[e - 1]->kind == OP_LIN && x[e - 1]->in == h && x[e - 1]->out != h)
        router = e - 1;
    const op *ex[MAX_LIST];
    size_t ne = 0;
    for (size_t r = x[e]->first; r < x[e]->last && ne < MAX_LIST; r++)
        ex[ne++] = &w->raw[r];
    group g = {0};
    if (groups(ex, ne, h, &g) != 0)
        return fail(why, n,
                    "the expert GEMMs do not read as experts of one width (up and down, "
                    "or gate, up and down, on each expert's tokens)");
    l->mlp = MLP_MOE;
    l->fe = g.f, l->egated = g.gated, l->routed = g.routed, l->seen = g.seen;
    l->experts = router != SIZE_MAX ? x[router]->out : 0;
    if (l->experts && l->experts < l->seen)
        return fail(why, n, "more experts ran than the router has outputs");
    group s = {0};
    size_t before = router != SIZE_MAX ? router : e;
    if (groups(x, before, h, &s) != 0 || groups(x + e + 1, cnt - e - 1, h, &s) != 0)
        return fail(why, n, "the GEMMs beside the experts do not read as shared experts");
    l->shared_n = s.groups, l->shared_f = s.f, l->shared_gated = s.gated;
    return 0;
}

/* Projections [pa, pb), output projection at oi, MLP [ma, mb). */
static int decode(const fc_infer_work *w, layer *l, size_t pa, size_t pb, size_t oi, size_t ma,
                  size_t mb, char *why, size_t n)
{
    const op *o = w->ops;
    int64_t T = w->tokens;
    if (oi >= mb || !is_token_lin(&o[oi], T))
        return fail(why, n, "no output projection");
    l->h = o[oi].out, l->q = o[oi].in;
    int64_t outs[3];
    l->nproj = (int64_t)(pb - pa);
    for (size_t i = pa; i < pb; i++) {
        if (!is_token_lin(&o[i], T) || o[i].in != l->h)
            return fail(why, n, "a GEMM before the attention does not read the hidden width");
        if (i - pa < 3)
            outs[i - pa] = o[i].out;
    }
    if (fc_infer_kv_width(outs, pb - pa, l->q, &l->kv) != 0)
        return fail(why, n,
                    "the input projections' widths do not read as Q, K and V "
                    "(fused, or Q and KV, or Q, K and V)");
    const op *x[MAX_LIST];
    size_t cnt = 0;
    l->extra = 0;
    for (size_t i = ma; i < mb && cnt < MAX_LIST; i++) {
        if (o[i].kind == OP_LIN || o[i].kind == OP_EXPERTS) {
            x[cnt++] = &o[i];
        } else if (o[i].kind == OP_CORE) {
            return fail(why, n, "an attention core after the output projection");
        } else { /* a product of activations, or a shape not known */
            l->extra = fc_u128_sat_add(l->extra, o[i].flops);
        }
    }
    return fc_infer_mlp_part(w, l, x, cnt, why, n);
}

int fc_infer_mlp_part(const fc_infer_work *w, layer *l, const op *const *x, size_t cnt, char *why,
                      size_t n)
{
    int moe = 0;
    for (size_t i = 0; i < cnt; i++)
        moe |= x[i]->kind == OP_EXPERTS;
    if (cnt == 0)
        return fail(why, n, "no MLP GEMMs");
    if (moe)
        return moe_mlp(w, l, x, cnt, why, n);
    group g = {0};
    if (groups(x, cnt, l->h, &g) != 0 || g.groups != 1)
        return fail(why, n,
                    "the GEMMs after the attention do not read as one MLP (up and "
                    "down, or gate, up and down)");
    l->mlp = MLP_DENSE;
    l->f = g.f, l->gated = g.gated;
    return 0;
}

int fc_infer_layer(const fc_infer_work *w, layer *l, char *why, size_t n)
{
    const op *o = w->ops;
    size_t a = l->start, b = l->end, c = SIZE_MAX;
    for (size_t i = a; i < b; i++)
        if (o[i].kind == OP_CORE) {
            if (c != SIZE_MAX)
                return fail(why, n, "two attention cores in one layer");
            c = i;
        }
    if (c != SIZE_MAX) {
        l->core = 1;
        l->core_op = c;
        l->s = o[c].s, l->d = o[c].d, l->heads_b = o[c].heads_b;
        return decode(w, l, a, c, c + 1, c + 2, b, why, n);
    }
    /* Fused attention: the output projection is the first GEMM back to the
     * hidden width after which everything reads. */
    for (size_t oi = a + 1; oi < b; oi++) {
        layer t = *l;
        char ignore[8];
        if (is_token_lin(&o[oi], w->tokens) &&
            decode(w, &t, a, oi, oi, oi + 1, b, ignore, sizeof ignore) == 0) {
            *l = t;
            return 0;
        }
    }
    return fail(why, n,
                "its GEMMs do not read as input projections, an output projection and an "
                "MLP");
}

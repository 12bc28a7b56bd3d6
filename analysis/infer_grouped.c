/* SPDX-License-Identifier: Apache-2.0 */
/* infer_grouped.c - the experts of a mixture of experts read off the
 * grouped GEMM calls of one forward (infer_grouped.h).
 *
 * A grouped call is one profile entry per group shape, each with the
 * calls in a row of it (count) and the problems per group (batch). The
 * calls are runs of grouped entries with one k and one of m or n fixed:
 * the fixed one is the Linear's output width, the other the group's rows
 * (the tokens routed to that expert). A call whose output is the input
 * width of the first call (the hidden width) is a down projection: its
 * groups are the experts, its input the expert FFN width, its rows summed
 * the routed rows of the layer. Tokens are the rows of the dense GEMMs
 * that take the hidden width (router, projections); top-k is routed rows
 * over them. Shared experts are dense MLPs on those tokens right beside
 * the grouped calls (after the down projection, or between the router and
 * the up projection). */
#include "infer_grouped.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_CALLS FC_INFER_MAX_GEMMS /* a profile's entries: every call fits */

typedef struct gcall {
    int64_t out, in, groups, routed, rmin, rmax;
    size_t first, last; /* profile entries [first, last) */
} gcall;

const char *fc_moe_st_name(int status)
{
    return status == FC_MOE_EXACT ? "exact" : status == FC_MOE_BOUND ? "bound" : "unknown";
}

static void set(fc_moe_val *v, int status, int64_t value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set(fc_moe_val *v, int status, int64_t value, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    v->status = status;
    v->value = status == FC_MOE_UNKNOWN ? 0 : value;
    vsnprintf(v->note, sizeof v->note, fmt, ap);
    va_end(ap);
}

static int usable(const fc_fwd_gemm *g)
{
    return !g->attention && g->m >= 0 && g->n >= 0 && g->k >= 0 && g->batch >= 1 && g->count >= 1;
}

/* A dense entry as a Linear: out and tok (in is k); B the weight: m rows. */
static void dense_of(const fc_fwd_gemm *g, int64_t *out, int64_t *tok)
{
    int b_weight = (g->weight & 3u) == 2u;
    *out = b_weight ? g->n : g->m;
    *tok = b_weight ? g->m : g->n;
}

/* The grouped calls of p into c (at most MAX_CALLS); their number. */
static size_t read_calls(const fc_fwd_profile *p, gcall *c)
{
    size_t nc = 0;
    for (size_t i = 0; i < p->n && nc < MAX_CALLS;) {
        const fc_fwd_gemm *g = &p->g[i];
        if (!g->grouped || !usable(g)) {
            i++;
            continue;
        }
        size_t j = i + 1;
        int same_m = 1, same_n = 1;
        while (j < p->n && p->g[j].grouped && usable(&p->g[j]) && p->g[j].k == g->k &&
               p->g[j].transa == g->transa && p->g[j].transb == g->transb &&
               ((same_m && p->g[j].m == g->m) || (same_n && p->g[j].n == g->n))) {
            same_m &= p->g[j].m == g->m;
            same_n &= p->g[j].n == g->n;
            j++;
        }
        /* the rows: the dimension that varies; both fixed, the weight says */
        int rows_m = same_n && !same_m ? 1 : (same_m && same_n && (g->weight & 3u) == 2u);
        gcall *x = &c[nc++];
        memset(x, 0, sizeof *x);
        x->out = rows_m ? g->n : g->m;
        x->in = g->k;
        x->rmin = INT64_MAX;
        x->first = i, x->last = j;
        for (size_t e = i; e < j; e++) {
            int64_t rows = rows_m ? p->g[e].m : p->g[e].n;
            int64_t grp = fc_infer_mul((int64_t)p->g[e].count, p->g[e].batch);
            x->groups = fc_infer_add(x->groups, grp);
            x->routed = fc_infer_add(x->routed, fc_infer_mul(rows, grp));
            x->rmin = rows < x->rmin ? rows : x->rmin;
            x->rmax = rows > x->rmax ? rows : x->rmax;
        }
        i = j;
    }
    return nc;
}

/* A dense MLP on T tokens of width h at entry i (not grouped): its length
 * (0: none), its width and whether it is gated. */
static size_t dense_mlp(const fc_fwd_profile *p, size_t i, int64_t h, int64_t T, int64_t *fs,
                        int *gated)
{
    int64_t out[3], tok[3], in[3];
    size_t k = 0;
    for (; k < 3 && i + k < p->n; k++) {
        const fc_fwd_gemm *g = &p->g[i + k];
        if (g->grouped || !usable(g) || g->count != 1 || g->batch != 1)
            break;
        dense_of(g, &out[k], &tok[k]);
        in[k] = g->k;
        if (tok[k] != T)
            break;
    }
    if (k < 2 || in[0] != h || out[0] == h)
        return 0;
    if (in[1] == out[0] && out[1] == h) { /* up, down */
        *fs = out[0], *gated = 0;
        return 2;
    }
    if (out[0] % 2 == 0 && in[1] == out[0] / 2 && out[1] == h) { /* gate+up fused, down */
        *fs = out[0] / 2, *gated = 1;
        return 2;
    }
    if (k == 3 && in[1] == h && out[1] == out[0] && in[2] == out[0] && out[2] == h) {
        *fs = out[0], *gated = 1; /* gate, up, down */
        return 3;
    }
    return 0;
}

/* The shared experts beside the first MoE layer (down call d, up call u). */
static void read_shared(const fc_fwd_profile *p, const gcall *u, const gcall *d, int64_t h,
                        int64_t T, int64_t experts, fc_moe_grouped *out)
{
    int64_t n = 0, fs = 0;
    int gated = 0;
    for (size_t i = d->last; i < p->n;) { /* after the down projection */
        int64_t w;
        int gt;
        size_t len = dense_mlp(p, i, h, T, &w, &gt);
        if (len == 0 || (n > 0 && (w != fs || gt != gated)))
            break;
        n++, fs = w, gated = gt, i += len;
    }
    /* before the up projection, after the router (h -> experts) */
    size_t r = u->first;
    while (r > 0 && !p->g[r - 1].grouped && usable(&p->g[r - 1])) {
        int64_t o, t;
        dense_of(&p->g[r - 1], &o, &t);
        if (p->g[r - 1].k == h && o == experts && t == T)
            break;
        r--;
    }
    if (r > 0 && !p->g[r - 1].grouped) {
        for (size_t i = r; i < u->first;) {
            int64_t w;
            int gt;
            size_t len = dense_mlp(p, i, h, T, &w, &gt);
            if (len == 0 || (n > 0 && (w != fs || gt != gated)))
                break;
            n++, fs = w, gated = gt, i += len;
        }
    }
    if (n == 0) {
        set(&out->shared, FC_MOE_EXACT, 0,
            "no dense MLP on the %lld tokens beside the grouped calls", (long long)T);
        set(&out->shared_ffn, FC_MOE_UNKNOWN, 0, "no shared expert");
        return;
    }
    set(&out->shared, FC_MOE_EXACT, n, "%lld dense MLP%s (%lld -> %lld%s -> %lld) beside them",
        (long long)n, n > 1 ? "s" : "", (long long)h, (long long)fs, gated ? " gated" : "",
        (long long)h);
    set(&out->shared_ffn, FC_MOE_EXACT, fs, "the dense MLP's width");
}

/* Tokens: the rows of the dense GEMMs that take the hidden width h: those
 * with a weight operand, or, when the detector confirmed none (declared
 * phases), every dense single GEMM on h. */
static void read_tokens(const fc_fwd_profile *p, int64_t h, fc_moe_grouped *out)
{
    for (int pass = 0; pass < 2; pass++) {
        int64_t T = -1;
        size_t seen = 0;
        for (size_t i = 0; i < p->n; i++) {
            const fc_fwd_gemm *g = &p->g[i];
            int64_t o, t;
            if (g->grouped || !usable(g) || g->k != h ||
                (pass == 0 ? !(g->weight & 3u) : g->batch != 1))
                continue;
            dense_of(g, &o, &t);
            if (T >= 0 && t != T) {
                set(&out->tokens, FC_MOE_UNKNOWN, 0,
                    "the dense GEMMs on the hidden width %lld have %lld and %lld rows",
                    (long long)h, (long long)T, (long long)t);
                return;
            }
            T = t, seen++;
        }
        if (seen > 0) {
            set(&out->tokens, FC_MOE_EXACT, T, "the rows of %zu dense GEMM%s on the hidden width%s",
                seen, seen > 1 ? "s" : "", pass ? " (no weight operand confirmed)" : "");
            return;
        }
    }
    set(&out->tokens, FC_MOE_UNKNOWN, 0, "no dense GEMM takes the experts' hidden width %lld",
        (long long)h);
}

void fc_moe_grouped_read(const fc_fwd_profile *p, fc_moe_grouped *out)
{
    static gcall c[MAX_CALLS];
    memset(out, 0, sizeof *out);
    size_t nc = read_calls(p, c);
    if (nc == 0)
        return;
    out->found = 1;
    out->calls = (int64_t)nc;
    int64_t h = c[0].in;
    out->hidden = h;
    const gcall *first_up = &c[0], *first_down = NULL;
    int64_t E = -1, F = -1, routed = -1;
    int e_diff = 0, f_diff = 0, r_diff = 0, n_layers = 0;
    double imb_sum = 0;
    out->rows_min = INT64_MAX;
    for (size_t i = 0; i < nc; i++) {
        if (c[i].out != h || c[i].groups < 1)
            continue;
        if (first_down == NULL) {
            first_down = &c[i];
            for (size_t u = 0; u < i; u++) /* the up call right before it */
                if (c[u].in == h)
                    first_up = &c[u];
        }
        e_diff |= E >= 0 && c[i].groups != E;
        f_diff |= F >= 0 && c[i].in != F;
        r_diff |= routed >= 0 && c[i].routed != routed;
        if (E < 0)
            E = c[i].groups, F = c[i].in, routed = c[i].routed;
        n_layers++;
        double mean = (double)c[i].routed / (double)c[i].groups;
        double imb = mean > 0 ? (double)c[i].rmax / mean : 0;
        imb_sum += imb;
        out->imbalance_max = imb > out->imbalance_max ? imb : out->imbalance_max;
        out->rows_min = c[i].rmin < out->rows_min ? c[i].rmin : out->rows_min;
        out->rows_max = c[i].rmax > out->rows_max ? c[i].rmax : out->rows_max;
    }
    out->layers = n_layers;
    if (n_layers == 0) {
        out->rows_min = 0;
        const char *why = "no grouped call returns to the hidden width (no down projection)";
        set(&out->experts, FC_MOE_BOUND, c[0].groups, "at most the first call's groups: %s", why);
        set(&out->moe_ffn, FC_MOE_UNKNOWN, 0, "%s", why);
        set(&out->topk, FC_MOE_UNKNOWN, 0, "%s", why);
        set(&out->tokens, FC_MOE_UNKNOWN, 0, "%s", why);
        set(&out->shared, FC_MOE_UNKNOWN, 0, "%s", why);
        set(&out->shared_ffn, FC_MOE_UNKNOWN, 0, "%s", why);
        return;
    }
    out->imbalance_mean = imb_sum / n_layers;
    out->routed = routed;
    if (e_diff)
        set(&out->experts, FC_MOE_UNKNOWN, 0, "the MoE layers' down projections differ in groups");
    else
        set(&out->experts, FC_MOE_EXACT, E, "groups of each of %d down projection%s", n_layers,
            n_layers > 1 ? "s" : "");
    /* gated: the up call twice the width (fused) or twice the groups (two calls of a shape) */
    out->gated = first_up->out == 2 * F || first_up->groups == 2 * E;
    if (f_diff)
        set(&out->moe_ffn, FC_MOE_UNKNOWN, 0, "the MoE layers' down projections differ in width");
    else
        set(&out->moe_ffn, FC_MOE_EXACT, F, "the down projections' input (%s)",
            out->gated ? "gated: the up projection is gate and up" : "not gated");
    read_tokens(p, h, out);
    if (out->tokens.status != FC_MOE_EXACT) {
        set(&out->topk, FC_MOE_UNKNOWN, 0, "no tokens: %s", out->tokens.note);
        set(&out->shared, FC_MOE_UNKNOWN, 0, "no tokens to read dense MLPs on");
        set(&out->shared_ffn, FC_MOE_UNKNOWN, 0, "no tokens to read dense MLPs on");
        return;
    }
    int64_t T = out->tokens.value;
    if (T <= 0)
        set(&out->topk, FC_MOE_UNKNOWN, 0, "no tokens in the forward");
    else if (r_diff)
        set(&out->topk, FC_MOE_BOUND, (routed + T - 1) / T,
            "the MoE layers routed different rows; the first layer's %lld over %lld tokens",
            (long long)routed, (long long)T);
    else if (routed % T == 0)
        set(&out->topk, FC_MOE_EXACT, routed / T, "%lld routed rows / %lld tokens",
            (long long)routed, (long long)T);
    else
        set(&out->topk, FC_MOE_BOUND, (routed + T - 1) / T,
            "at least: %lld routed rows over %lld tokens is no whole number (tokens dropped?)",
            (long long)routed, (long long)T);
    if (out->experts.status == FC_MOE_EXACT) {
        for (size_t i = 0; i < first_up->first; i++) { /* the router, h -> E on T */
            int64_t o, t;
            if (p->g[i].grouped || !usable(&p->g[i]) || p->g[i].k != h)
                continue;
            dense_of(&p->g[i], &o, &t);
            if (o == E && t == T) {
                size_t l = strlen(out->experts.note);
                snprintf(out->experts.note + l, sizeof out->experts.note - l,
                         "; the router's width");
                break;
            }
        }
    }
    read_shared(p, first_up, first_down, h, T, E, out);
}

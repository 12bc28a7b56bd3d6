/* SPDX-License-Identifier: Apache-2.0 */
/* mask_band.c - which (query, key) pairs a composite cuDNN attention graph
 * keeps, read from its mask sub-graph.
 *
 * cudnn-frontend (9.19 and older backends) builds every mask of the score
 * matrix S from pointwise nodes: GEN_INDEX along the row (query i) or the
 * column (key j) axis, ADD / SUB of constants (host scalars passed by
 * value, or lengths per sequence in device memory), a comparison CMP_GE /
 * CMP_GT / CMP_LT / CMP_LE, LOGICAL_AND of comparisons, and a
 * BINARY_SELECT that keeps S where the condition holds (else -inf). So
 * each mask is a set of half-planes a i + b j + K >= 0 with K linear in
 * those constants, and the ones cuDNN builds are:
 *   causal (top-left):              i - j >= 0            j - i <= 0
 *   right bound r:                  i + r - j >= 0         j - i <= r
 *   bottom-right causal:            i + s_kv - s_q - j >= 0
 *   left bound w (sliding window):  j + w - i > 0          j - i >= 1 - w
 *   padding:                        i < seq_q[b], j < seq_kv[b]
 * cuDNN 9.20 adds one operation for such a band (a diagonal band mask:
 * cudnn-frontend builds it in place of those nodes on cuDNN >= 9.21, in a
 * composite graph and in the score modifier graph of an SDPA node), read
 * here as the nodes it stands for (band_cond).
 * This file evaluates the condition of each BINARY_SELECT on the score
 * chain into those half-planes, keeps at most one upper (j - i <= hi) and
 * one lower (j - i >= lo) bound and the row / column caps, and names the
 * constants they read as slots: host scalars (their value is read from the
 * variant pack at each execute: plan_exec.c), or lengths in device memory,
 * which are known only to be at most the dimensions - those make the count
 * a bound (FC_ATTN_BOUND), computed at the maximum lengths, which is an
 * upper bound for the frontend's bottom-right alignment (the pairs of a
 * band aligned to the actual lengths grow with each length). A condition
 * that is not such a band (a boolean mask tensor, a comparison of other
 * values) keeps every pair and marks the count a bound. */
#include <string.h>

#include "cudnn_internal.h"

enum { V_OTHER = 0, V_LIN, V_COND };
#define MAX_HP 4
#define MAX_DEPTH 48

typedef struct val {
    uint8_t kind;
    uint8_t n_hp;
    fc_clin lin;        /* V_LIN */
    fc_clin hp[MAX_HP]; /* V_COND: each hp[k] >= 0 */
} val;

static int slot_of(fc_cwork *w, int64_t uid, int kind, int dtype)
{
    for (int k = 0; k < w->n_slot; k++)
        if (w->slot[k].uid == uid)
            return k;
    if (w->n_slot >= FC_CUDNN_SLOTS)
        return -1;
    w->slot[w->n_slot].uid = uid;
    w->slot[w->n_slot].kind = (uint8_t)kind;
    w->slot[w->n_slot].dtype = (uint8_t)dtype;
    return w->n_slot++;
}

static int lin_add(fc_clin *out, const fc_clin *a, const fc_clin *b, int sign)
{
    int v;
    if (__builtin_add_overflow(a->c, sign * b->c, &out->c))
        return -1;
    v = a->ci + sign * b->ci;
    if (v < -100 || v > 100)
        return -1;
    out->ci = (int8_t)v;
    v = a->cj + sign * b->cj;
    if (v < -100 || v > 100)
        return -1;
    out->cj = (int8_t)v;
    for (unsigned k = 0; k < FC_CUDNN_SLOTS; k++) {
        v = a->coef[k] + sign * b->coef[k];
        if (v < -100 || v > 100)
            return -1;
        out->coef[k] = (int8_t)v;
    }
    return 0;
}

static void lin_neg(fc_clin *l)
{
    fc_clin z;
    memset(&z, 0, sizeof z);
    (void)lin_add(l, &z, l, -1);
}

/* A tensor no operation of the graph writes. */
static void leaf(const fc_cten *t, fc_cwork *w, val *out)
{
    out->kind = V_OTHER;
    if (t == NULL)
        return;
    int k = -1;
    if (t->flags & FC_TEN_BY_VALUE)
        k = slot_of(w, t->uid, FC_SLOT_SCALAR, t->dtype);
    else if (!(t->flags & FC_TEN_VIRTUAL) && t->d[1] == 1 && t->d[2] == 1 && t->d[3] == 1)
        k = slot_of(w, t->uid, FC_SLOT_DEVICE, t->dtype); /* a length per sequence */
    if (k < 0)
        return;
    memset(&out->lin, 0, sizeof out->lin);
    out->lin.coef[k] = 1;
    out->kind = V_LIN;
}

static void eval(fc_cwalk_ctx *c, fc_cwork *w, int64_t uid, int depth, val *out);

static void eval_in(fc_cwalk_ctx *c, fc_cwork *w, const fc_cten *t, int depth, val *out)
{
    out->kind = V_OTHER;
    if (t->flags & FC_TEN_SEEN)
        eval(c, w, t->uid, depth, out);
}

/* The half-plane of "x cmp y", integers: x >= y, x > y (x - y - 1 >= 0) ... */
static int compare(int mode, const fc_clin *x, const fc_clin *y, fc_clin *hp)
{
    int ge = mode == FC_PW_CMP_GE || mode == FC_PW_CMP_GT;
    if (lin_add(hp, ge ? x : y, ge ? y : x, -1) != 0)
        return -1;
    if (mode == FC_PW_CMP_GT || mode == FC_PW_CMP_LT)
        hp->c -= 1;
    return 0;
}

static void eval(fc_cwalk_ctx *c, fc_cwork *w, int64_t uid, int depth, val *out)
{
    out->kind = V_OTHER;
    int t = fc_cwalk_tensor(c, uid);
    if (t < 0 || depth > MAX_DEPTH)
        return;
    if (c->prod[t] < 0)
        return leaf(c->ten[t], w, out);
    const fc_cent *e = c->op[c->prod[t]];
    if (e->type != FC_CD_OP_POINTWISE)
        return;
    int mode = e->u.pw.mode;
    val x, y;
    if (mode == FC_PW_GEN_INDEX) {
        const fc_cten *s = &e->u.pw.x;
        if (!(s->flags & FC_TEN_SEEN) || s->nd != c->nd || s->d[2] != c->s_q || s->d[3] != c->s_k)
            return;
        memset(&out->lin, 0, sizeof out->lin);
        if (e->u.pw.axis == c->nd - 2)
            out->lin.ci = 1;
        else if (e->u.pw.axis == c->nd - 1)
            out->lin.cj = 1;
        else
            return;
        out->kind = V_LIN;
        return;
    }
    eval_in(c, w, &e->u.pw.x, depth + 1, &x);
    if (mode == FC_PW_IDENTITY || mode == FC_PW_NEG) {
        if (x.kind == V_LIN) {
            *out = x;
            if (mode == FC_PW_NEG)
                lin_neg(&out->lin);
        }
        return;
    }
    if (mode == FC_PW_LOGICAL_NOT) {
        if (x.kind == V_COND && x.n_hp == 1) { /* not (h >= 0) is -h - 1 >= 0 */
            *out = x;
            lin_neg(&out->hp[0]);
            out->hp[0].c -= 1;
        }
        return;
    }
    eval_in(c, w, &e->u.pw.b, depth + 1, &y);
    if ((mode == FC_PW_ADD || mode == FC_PW_SUB) && x.kind == V_LIN && y.kind == V_LIN) {
        if (lin_add(&out->lin, &x.lin, &y.lin, mode == FC_PW_ADD ? 1 : -1) == 0)
            out->kind = V_LIN;
    } else if ((mode == FC_PW_CMP_GE || mode == FC_PW_CMP_GT || mode == FC_PW_CMP_LE ||
                mode == FC_PW_CMP_LT) &&
               x.kind == V_LIN && y.kind == V_LIN) {
        if (compare(mode, &x.lin, &y.lin, &out->hp[0]) == 0)
            out->kind = V_COND, out->n_hp = 1;
    } else if (mode == FC_PW_LOGICAL_AND && x.kind == V_COND && y.kind == V_COND &&
               x.n_hp + y.n_hp <= MAX_HP) {
        *out = x;
        memcpy(&out->hp[x.n_hp], y.hp, sizeof(fc_clin) * y.n_hp);
        out->n_hp = (uint8_t)(x.n_hp + y.n_hp);
    }
}

static int lin_eq(const fc_clin *a, const fc_clin *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* Keeps half-plane h as one of the band's four constraints. */
static void keep(fc_cwork *w, const fc_clin *h)
{
    fc_clin k = *h;
    k.ci = k.cj = 0;
    uint8_t bit;
    fc_clin *dst;
    if (h->ci == 1 && h->cj == -1) { /* i - j + K >= 0: j - i <= K */
        bit = FC_BAND_HI, dst = &w->hi;
    } else if (h->ci == -1 && h->cj == 1) { /* j - i + K >= 0: j - i >= -K */
        lin_neg(&k);
        bit = FC_BAND_LO, dst = &w->lo;
    } else if (h->ci == -1 && h->cj == 0) { /* i <= K */
        bit = FC_BAND_CAP_I, dst = &w->cap_i;
    } else if (h->ci == 0 && h->cj == -1) { /* j <= K */
        bit = FC_BAND_CAP_J, dst = &w->cap_j;
    } else {
        w->attn.flags |= FC_ATTN_BOUND; /* not a band: every pair counted */
        return;
    }
    if (w->band & bit) {
        if (!lin_eq(dst, &k))
            w->attn.flags |= FC_ATTN_BOUND; /* a second bound on one side: the first kept */
        return;
    }
    *dst = k;
    w->band |= bit;
}

/* A cap i <= seq_q[b] - 1 (j <= seq_kv[b] - 1) names its length slot; it
 * is padding: the dimensions bound it. 1 when cap was such a padding. */
static int padding(fc_cwork *w, const fc_clin *cap, int kind)
{
    int dev = -1;
    for (int k = 0; k < w->n_slot; k++) {
        if (cap->coef[k] == 0)
            continue;
        if (dev >= 0 || cap->coef[k] != 1 || w->slot[k].kind == FC_SLOT_SCALAR)
            return 0;
        dev = k;
    }
    if (dev < 0 || cap->c != -1)
        return 0;
    if (w->slot[dev].kind == FC_SLOT_DEVICE)
        w->slot[dev].kind = (uint8_t)kind;
    w->attn.flags |= FC_ATTN_BOUND;
    return 1;
}

/* An ADD on the score chain that is not index arithmetic (a mask's
 * offsets) and adds more than a host scalar: a bias (a bias tensor,
 * ALiBi's slopes times j - i). */
static int is_bias(fc_cwalk_ctx *c, fc_cwork *w, const fc_cent *e)
{
    val v;
    eval(c, w, e->u.pw.y_uid, 0, &v);
    if (v.kind == V_LIN)
        return 0;
    const fc_cten *x = &e->u.pw.x, *b = &e->u.pw.b;
    return (x->flags & FC_TEN_SEEN) && (b->flags & FC_TEN_SEEN) &&
           !((x->flags | b->flags) & FC_TEN_BY_VALUE);
}

/* A length slot whose role the operation names (a band mask's SEQ_LEN_Q
 * or SEQ_LEN_KV): a length per sequence in device memory takes it. */
static void name_role(fc_cwork *w, int64_t uid, int kind)
{
    for (int k = 0; k < w->n_slot; k++)
        if (w->slot[k].uid == uid && w->slot[k].kind == FC_SLOT_DEVICE)
            w->slot[k].kind = (uint8_t)kind;
}

/* The condition of a diagonal band mask (cuDNN 9.20), which keeps X where
 * it holds and writes B elsewhere. cuDNN's header documents only its
 * attributes; their meaning is that of the pointwise nodes cudnn-frontend
 * builds for the same mask on a cuDNN before 9.21
 * (CompositeDiagonalBandMaskNode, node/diagonal_band_mask.h):
 *   no left bound:  i [+ seq_len_kv] [- seq_len_q] [+ shift_right_bound]  CMP  j
 *   a left bound:   j + left_bound [- seq_len_kv] [+ seq_len_q]          CMP  i
 * CMP its comparison (the frontend's: >= for the right bound, causal;
 * > for the left one). 0 with the half-plane in *hp, -1 when a term is
 * not index arithmetic or X is not the scores. */
static int band_cond(fc_cwalk_ctx *c, fc_cwork *w, const fc_cent *e, fc_clin *hp)
{
    const fc_cten *x = &e->u.band.x;
    if (x->nd != c->nd || x->d[2] != c->s_q || x->d[3] != c->s_k)
        return -1;
    int left = (e->u.band.set & FC_BANDOP_LEFT) != 0;
    fc_clin lhs, rhs;
    memset(&lhs, 0, sizeof lhs);
    memset(&rhs, 0, sizeof rhs);
    if (left)
        lhs.cj = 1, rhs.ci = 1;
    else
        lhs.ci = 1, rhs.cj = 1;
    const struct {
        uint8_t bit;
        const fc_cten *t;
        int sign, role;
    } term[] = {
        {FC_BANDOP_SKV, &e->u.band.skv, left ? -1 : 1, FC_SLOT_SEQ_KV},
        {FC_BANDOP_SQ, &e->u.band.sq, left ? 1 : -1, FC_SLOT_SEQ_Q},
        {FC_BANDOP_LEFT, &e->u.band.left, 1, 0},
        {FC_BANDOP_SHIFT, &e->u.band.shift, 1, 0},
    };
    for (size_t k = 0; k < sizeof term / sizeof term[0]; k++) {
        if (!(e->u.band.set & term[k].bit))
            continue;
        val v;
        eval_in(c, w, term[k].t, 0, &v);
        if (v.kind != V_LIN)
            return -1;
        if (term[k].role)
            name_role(w, term[k].t->uid, term[k].role);
        if (lin_add(&lhs, &lhs, &v.lin, term[k].sign) != 0)
            return -1;
    }
    return compare(e->u.band.mode, &lhs, &rhs, hp);
}

void fc_cmask_read(fc_cwalk_ctx *c, fc_cwork *w)
{
    for (int i = 0; i < c->n_op; i++) {
        const fc_cent *e = c->op[i];
        int band = e->type == FC_CD_OP_DIAGONAL_BAND_MASK;
        if (e->type != FC_CD_OP_POINTWISE && !band)
            continue;
        int t = fc_cwalk_tensor(c, band ? e->u.band.y_uid : e->u.pw.y_uid);
        if (t < 0 || (c->mark[t] & (FC_MARK_FROM_S | FC_MARK_TO_P)) != (FC_MARK_FROM_S | FC_MARK_TO_P))
            continue; /* not on the score chain */
        if (band) {
            fc_clin hp;
            if (band_cond(c, w, e, &hp) != 0)
                w->attn.flags |= FC_ATTN_BOUND; /* a mask that is not a band */
            else
                keep(w, &hp);
            continue;
        }
        if (e->u.pw.mode == FC_PW_ADD && is_bias(c, w, e))
            w->attn.flags |= FC_ATTN_BIAS;
        if (e->u.pw.mode != FC_PW_BINARY_SELECT)
            continue;
        val v;
        eval_in(c, w, &e->u.pw.t, 0, &v);
        if (v.kind != V_COND) {
            w->attn.flags |= FC_ATTN_BOUND; /* a mask that is not a band */
            continue;
        }
        for (int k = 0; k < v.n_hp; k++)
            keep(w, &v.hp[k]);
    }
    if ((w->band & FC_BAND_CAP_I) && padding(w, &w->cap_i, FC_SLOT_SEQ_Q))
        w->band &= (uint8_t)~FC_BAND_CAP_I;
    if ((w->band & FC_BAND_CAP_J) && padding(w, &w->cap_j, FC_SLOT_SEQ_KV))
        w->band &= (uint8_t)~FC_BAND_CAP_J;
}

/* The value of a constraint: 0, or -1 when it cannot be had (then the
 * constraint is dropped). *bound set when it holds lengths in device
 * memory (taken at their maximum). */
static int value_of(const fc_cwork *w, const fc_clin *l, const int64_t *val, const uint8_t *ok,
                    int64_t s_q, int64_t s_k, int band, int *bound, int64_t *out)
{
    int64_t v = l->c;
    int sq = 0, skv = 0;
    for (int k = 0; k < w->n_slot; k++) {
        if (l->coef[k] == 0)
            continue;
        int64_t x;
        switch (w->slot[k].kind) {
        case FC_SLOT_SCALAR:
            if (ok == NULL || !ok[k])
                return -1;
            x = val[k];
            break;
        case FC_SLOT_SEQ_Q: x = s_q, sq += l->coef[k]; break;
        case FC_SLOT_SEQ_KV: x = s_k, skv += l->coef[k]; break;
        default: return -1; /* a length in device memory whose role is not known */
        }
        int64_t term;
        if (__builtin_mul_overflow(x, (int64_t)l->coef[k], &term) || __builtin_add_overflow(v, term, &v))
            return -1;
    }
    /* lengths in device memory: only the frontend's bottom-right offset
     * s_kv - s_q of a band (an upper bound at the maximum lengths) */
    if (sq || skv) {
        if (!band || sq != -1 || skv != 1)
            return -1;
        *bound = 1;
    }
    *out = v;
    return 0;
}

void fc_cmask_resolve(const fc_cwork *w, const int64_t *val, const uint8_t *ok, fc_attn *a)
{
    int64_t s_q = a->s_q, s_k = a->s_k, hi = 0, lo = 0, cap;
    int bound = 0, has_hi = 0, has_lo = 0, found = 0;
    a->align = FC_ATTN_TOP_LEFT;
    a->window_left = a->window_right = -1;
    if (w->band & FC_BAND_HI) {
        has_hi = value_of(w, &w->hi, val, ok, s_q, s_k, 1, &bound, &hi) == 0;
        bound |= !has_hi;
    }
    if (w->band & FC_BAND_LO) {
        has_lo = value_of(w, &w->lo, val, ok, s_q, s_k, 1, &bound, &lo) == 0;
        bound |= !has_lo;
    }
    /* caps of constants: no restriction when they reach the dimension */
    if ((w->band & FC_BAND_CAP_I) &&
        (value_of(w, &w->cap_i, val, ok, s_q, s_k, 0, &bound, &cap) != 0 || cap < s_q - 1))
        bound = 1;
    if ((w->band & FC_BAND_CAP_J) &&
        (value_of(w, &w->cap_j, val, ok, s_q, s_k, 0, &bound, &cap) != 0 || cap < s_k - 1))
        bound = 1;
    /* the band as fc_attn holds it: j - i <= off + right, j - i >= off - left,
     * off 0 (top-left) or s_k - s_q (bottom-right), windows >= 0 */
    for (int drop = 0; drop < 3; drop++) {
        int h = has_hi && drop != 2, l = has_lo && drop != 1;
        int64_t best = -1, off_best = 0;
        for (int br = 0; br < 2; br++) {
            int64_t off = br ? s_k - s_q : 0, wr = h ? hi - off : 0, wl = l ? off - lo : 0;
            if (wr < 0 || wl < 0 || (best >= 0 && wr + wl >= best))
                continue;
            best = wr + wl;
            off_best = br;
        }
        if (best < 0)
            continue; /* not expressible: drop a side (the count becomes a bound) */
        int64_t off = off_best ? s_k - s_q : 0;
        a->align = off_best ? FC_ATTN_BOTTOM_RIGHT : FC_ATTN_TOP_LEFT;
        a->window_right = h ? hi - off : -1;
        a->window_left = l ? off - lo : -1;
        bound |= drop != 0;
        found = 1;
        break;
    }
    if (bound || !found)
        a->flags |= FC_ATTN_BOUND;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* graph_walk.c - from the operations of a cuDNN operation graph to what
 * one execute of it computes (its work), once, when the graph's
 * operations are set.
 *
 * The graph is, in this order of tests:
 *  - unresolved when an operation or tensor it names was not seen created,
 *    carries an attribute the cuDNN 9.19 header does not name, or is of a
 *    type the header does not know (reasons in the report);
 *  - not counted when it holds a convolution (convolution FLOPs are out of
 *    scope), a MoE grouped matmul (tokens per expert in device memory), or
 *    no matrix product at all;
 *  - one attention call when it is one SDPA node (cuDNN >= 9.13's unified
 *    path), or matmul nodes in the composite pattern cudnn-frontend builds:
 *    a matmul S = Q K^T whose output reaches the first operand of another
 *    matmul through pointwise / reduction / reshape nodes and an EXP (the
 *    softmax) - 2 matmuls in the forward (QK^T, PV), 5 in the backward
 *    (QK^T again, dV = P^T dO, dP = dO V^T, dK = dS^T Q, dQ = dS K, GQA's
 *    full-head dV and dK reduced afterwards) - and whose matmul FLOPs add
 *    up exactly to 2 b h s_q s_k (d + d_v) forward or 2 b h s_q s_k
 *    (3 d + 2 d_v) backward; the masks on the score chain are read by
 *    mask_band.c;
 *  - otherwise its matmul nodes, each 2 m n k batch, counted as GEMMs.
 * A graph with two attention parts, or attention beside other matmuls, is
 * not resolved: one execute is one attention call here (docs/cudnn.md).
 * The walk reads only the table (under its lock) and a static scratch
 * view of the graph (the lock guards it too). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "count/uncounted.h"
#include "cudnn_internal.h"
#include "dtype.h"
#include "kernel_class.h"
#include "u128.h"

static fc_cwalk_ctx scratch;

void fc_cwork_uncounted(fc_cwork *w, int reason, int kclass, const char *name, const char *fmt, ...)
{
    w->kind = FC_CW_UNCOUNTED;
    w->reason = (uint8_t)reason;
    w->kclass = (uint8_t)kclass;
    snprintf(w->name, sizeof w->name, "%s", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->detail, sizeof w->detail, fmt, ap);
    va_end(ap);
}

int fc_cdtype(int t)
{
    switch (t) {
    case FC_CDATA_FLOAT: return FC_DT_FP32;
    case FC_CDATA_DOUBLE: return FC_DT_FP64;
    case FC_CDATA_HALF: return FC_DT_FP16;
    case FC_CDATA_BFLOAT16: return FC_DT_BF16;
    case FC_CDATA_FP8_E4M3: return FC_DT_FP8_E4M3;
    case FC_CDATA_FP8_E5M2: return FC_DT_FP8_E5M2;
    case FC_CDATA_FP4_E2M1: return FC_DT_FP4_E2M1;
    case FC_CDATA_INT8: return FC_DT_INT8;
    case FC_CDATA_INT32: return FC_DT_INT32;
    case FC_CDATA_COMPLEX_FP32: return FC_DT_COMPLEX64;
    case FC_CDATA_COMPLEX_FP64: return FC_DT_COMPLEX128;
    default: return FC_DT_UNKNOWN;
    }
}

static int is_operation(int type)
{
    switch (type) {
    case FC_CD_OP_CONV_FWD: case FC_CD_OP_CONV_BWD_FILTER: case FC_CD_OP_CONV_BWD_DATA:
    case FC_CD_OP_POINTWISE: case FC_CD_OP_GEN_STATS: case FC_CD_OP_MATMUL:
    case FC_CD_OP_BN_FINALIZE: case FC_CD_OP_REDUCTION: case FC_CD_OP_BN_BWD_WEIGHTS:
    case FC_CD_OP_RESAMPLE_FWD: case FC_CD_OP_RESAMPLE_BWD: case FC_CD_OP_CONCAT:
    case FC_CD_OP_SIGNAL: case FC_CD_OP_NORM_FWD: case FC_CD_OP_NORM_BWD: case FC_CD_OP_RESHAPE:
    case FC_CD_OP_RNG: case FC_CD_OP_PAGED_CACHE_LOAD: case FC_CD_OP_BLOCK_SCALE_QUANTIZE:
    case FC_CD_OP_BLOCK_SCALE_DEQUANTIZE: case FC_CD_OP_EXPAND_BAND: case FC_CD_OP_CONTRACT_BAND:
    case FC_CD_OP_SDPA_FWD: case FC_CD_OP_MOE_GROUPED_MATMUL: case FC_CD_OP_SDPA_BWD:
    case FC_CD_OP_DIAGONAL_BAND_MASK:
        return 1;
    default:
        return 0;
    }
}

static const char *type_name(int type)
{
    switch (type) {
    case FC_CD_TENSOR: return "tensor";
    case FC_CD_OP_MATMUL: return "matmul";
    case FC_CD_OP_POINTWISE: return "pointwise";
    case FC_CD_OP_REDUCTION: return "reduction";
    case FC_CD_OP_RESHAPE: return "reshape";
    case FC_CD_OP_RNG: return "RNG";
    case FC_CD_OP_SDPA_FWD: return "SDPA forward";
    case FC_CD_OP_SDPA_BWD: return "SDPA backward";
    case FC_CD_OP_PAGED_CACHE_LOAD: return "paged cache load";
    case FC_CD_OP_DIAGONAL_BAND_MASK:
        return "diagonal band mask";
    default: return is_operation(type) ? "operation" : "descriptor";
    }
}

int fc_ctype_known(int t)
{
    return (t >= 0 && t < FC_CD_KNOWN) || t == FC_CD_OP_DIAGONAL_BAND_MASK;
}

int fc_cwalk_tensor(const fc_cwalk_ctx *c, int64_t uid)
{
    uint32_t h = (uint32_t)(((uint64_t)uid * 0x9E3779B97F4A7C15ull) >> 40) & (FC_CWALK_HASH - 1);
    for (; c->hash[h] != 0; h = (h + 1) & (FC_CWALK_HASH - 1))
        if (c->uid[c->hash[h] - 1] == uid)
            return c->hash[h] - 1;
    return -1;
}

/* The index of uid, added when new; snap (may be NULL) replaces a
 * snapshot without dimensions. -1 when the view is full. */
static int add_tensor(fc_cwalk_ctx *c, int64_t uid, const fc_cten *snap)
{
    int i = fc_cwalk_tensor(c, uid);
    if (i < 0) {
        if (c->n_t >= (int)FC_CWALK_TENSORS)
            return -1;
        i = c->n_t++;
        c->uid[i] = uid;
        c->ten[i] = NULL;
        c->prod[i] = -1;
        c->mark[i] = 0;
        uint32_t h = (uint32_t)(((uint64_t)uid * 0x9E3779B97F4A7C15ull) >> 40) & (FC_CWALK_HASH - 1);
        while (c->hash[h] != 0)
            h = (h + 1) & (FC_CWALK_HASH - 1);
        c->hash[h] = (uint16_t)(i + 1);
    }
    if (snap != NULL && (c->ten[i] == NULL || (c->ten[i]->nd == 0 && snap->nd > 0)))
        c->ten[i] = snap;
    return i;
}

int fc_cwalk_io(const fc_cwalk_ctx *c, int i, const fc_cten *in[FC_CWALK_IN], int64_t *out_uid,
                int *has_out)
{
    const fc_cent *e = c->op[i];
    int n = 0;
    *out_uid = 0;
    *has_out = e->out_set == 1;
    switch (e->type) {
    case FC_CD_OP_MATMUL:
        in[n++] = &e->u.mm.a;
        in[n++] = &e->u.mm.b;
        *out_uid = e->u.mm.c.uid;
        *has_out = (e->u.mm.c.flags & FC_TEN_SEEN) != 0;
        break;
    case FC_CD_OP_POINTWISE:
        in[n++] = &e->u.pw.x;
        in[n++] = &e->u.pw.b;
        in[n++] = &e->u.pw.t;
        *out_uid = e->u.pw.y_uid;
        break;
    case FC_CD_OP_REDUCTION: case FC_CD_OP_RESHAPE: case FC_CD_OP_PAGED_CACHE_LOAD:
    case FC_CD_OP_BLOCK_SCALE_QUANTIZE: case FC_CD_OP_BLOCK_SCALE_DEQUANTIZE:
        in[n++] = &e->u.io.x;
        *out_uid = e->u.io.y_uid;
        break;
    case FC_CD_OP_RNG:
        *out_uid = e->u.io.y_uid;
        break;
    case FC_CD_OP_DIAGONAL_BAND_MASK:
        in[n++] = &e->u.band.x;
        in[n++] = &e->u.band.b;
        in[n++] = &e->u.band.sq;
        in[n++] = &e->u.band.skv;
        in[n++] = &e->u.band.left;
        in[n++] = &e->u.band.shift;
        *out_uid = e->u.band.y_uid;
        break;
    case FC_CD_OP_SDPA_FWD: case FC_CD_OP_SDPA_BWD:
        in[n++] = &e->u.sdpa.q;
        in[n++] = &e->u.sdpa.k;
        in[n++] = &e->u.sdpa.v;
        *out_uid = e->u.sdpa.o_uid;
        break;
    default:
        *has_out = 0;
        break;
    }
    int kept = 0;
    for (int k = 0; k < n; k++)
        if (in[k]->flags & FC_TEN_SEEN)
            in[kept++] = in[k];
    return kept;
}

/* A tensor an operation names that the walk cannot use: 1 (w filled). */
static int bad_tensor(const fc_cten *t, const fc_cent *op, fc_cwork *w)
{
    if (t->flags & FC_TEN_TAINT) {
        fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER, "cudnn graph: attribute unknown to flopcount",
                           "attribute %u on a tensor of a %s operation is not in the cuDNN 9.19 "
                           "header flopcount knows (a newer cuDNN)",
                           t->taint_attr, type_name(op->type));
        return 1;
    }
    return 0;
}

/* A diagonal band mask (cuDNN 9.20) the walk can read: scores in and out,
 * a comparison, and a left bound or a right one (cudnn-frontend never
 * sets both; what cuDNN does then is not documented). 0 with w filled
 * when not. */
static int band_readable(const fc_cent *e, fc_cwork *w)
{
    uint8_t set = e->u.band.set;
    int m = e->u.band.mode;
    const char *why = NULL;
    if (!(set & FC_BANDOP_X) || e->out_set != 1)
        why = "its scores (X) or its output (Y) not set";
    else if (!(set & FC_BANDOP_MODE) ||
             (m != FC_PW_CMP_GE && m != FC_PW_CMP_GT && m != FC_PW_CMP_LE && m != FC_PW_CMP_LT))
        why = "a comparison other than >=, >, <=, < (or none)";
    else if ((set & FC_BANDOP_LEFT) && (set & FC_BANDOP_SHIFT))
        why = "both a left bound and a right bound shift";
    const fc_cten *t[] = {&e->u.band.x,   &e->u.band.b,    &e->u.band.sq,
                          &e->u.band.skv, &e->u.band.left, &e->u.band.shift};
    static const uint8_t bit[] = {FC_BANDOP_X,   FC_BANDOP_B,    FC_BANDOP_SQ,
                                  FC_BANDOP_SKV, FC_BANDOP_LEFT, FC_BANDOP_SHIFT};
    for (int k = 0; why == NULL && k < 6; k++)
        if ((set & bit[k]) && !(t[k]->flags & FC_TEN_SEEN))
            why = "a tensor it names was not seen created";
    if (why == NULL)
        return 1;
    fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_ATTENTION, "cudnn graph: diagonal band mask not read",
                       "%s (comparison mode %d)", why, m);
    return 0;
}

/* Reads the operations into the scratch view; 0, or -1 with w filled. */
static int view_of(fc_cwalk_ctx *c, const void *const *ops, int64_t n, fc_cwork *w)
{
    if (n > (int64_t)FC_CUDNN_WALK_OPS) {
        fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER, "cudnn graph: too many operations",
                           "%lld operations (flopcount reads graphs of up to %u)", (long long)n,
                           FC_CUDNN_WALK_OPS);
        return -1;
    }
    memset(c->hash, 0, sizeof c->hash);
    c->n_op = (int)n;
    c->n_t = 0;
    for (int i = 0; i < c->n_op; i++) {
        const fc_cent *e = fc_ct_find(ops[i]);
        c->op[i] = e;
        if (e == NULL) {
            uint64_t lost = fc_ct_untracked();
            if (lost)
                fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER,
                                   "cudnn graph: operation not seen created",
                                   "operation %d of %lld was not tracked: the table of %u live "
                                   "descriptors was full (%llu creations not tracked)",
                                   i + 1, (long long)n, FC_CUDNN_CAPACITY, (unsigned long long)lost);
            else
                fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER,
                                   "cudnn graph: operation not seen created",
                                   "operation %d of %lld was not seen created (made before "
                                   "flopcount was loaded, or through a cuDNN it does not hook)",
                                   i + 1, (long long)n);
            return -1;
        }
        if (!fc_ctype_known(e->type)) {
            fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER,
                               "cudnn graph: operation type unknown to flopcount",
                               "descriptor type %u is not in the cuDNN 9.19 header flopcount knows "
                               "(a newer cuDNN)",
                               e->type);
            return -1;
        }
        if (!is_operation(e->type)) {
            fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER, "cudnn graph: not an operation",
                               "a %s descriptor (type %u) among the graph's operations",
                               type_name(e->type), e->type);
            return -1;
        }
        if (e->state & FC_CE_NO_DESC) {
            fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER,
                               "cudnn graph: operation not seen created",
                               "the pointwise descriptor of a pointwise operation was not seen "
                               "created: its mode is not known");
            return -1;
        }
        if (e->state & FC_CE_TAINT) {
            fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER,
                               "cudnn graph: attribute unknown to flopcount",
                               "attribute %u on a %s operation is not in the cuDNN 9.19 header "
                               "flopcount knows (a newer cuDNN)",
                               e->taint_attr, type_name(e->type));
            return -1;
        }
        if (e->type == FC_CD_OP_DIAGONAL_BAND_MASK && !band_readable(e, w))
            return -1;
        const fc_cten *in[FC_CWALK_IN];
        int64_t out;
        int has_out;
        int k = fc_cwalk_io(c, i, in, &out, &has_out);
        for (int j = 0; j < k; j++) {
            if (bad_tensor(in[j], e, w))
                return -1;
            if (add_tensor(c, in[j]->uid, in[j]) < 0)
                goto full;
        }
        if (e->out_set == 2 || (e->type == FC_CD_OP_MATMUL && !(e->u.mm.c.flags & FC_TEN_SEEN) &&
                                e->u.mm.c.uid == 0)) {
            fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER, "cudnn graph: tensor not seen created",
                               "the output of a %s operation was not seen created",
                               type_name(e->type));
            return -1;
        }
        if (has_out) {
            int t = add_tensor(c, out, e->type == FC_CD_OP_MATMUL ? &e->u.mm.c : NULL);
            if (t < 0)
                goto full;
            c->prod[t] = (int16_t)i;
        }
    }
    return 0;
full:
    fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_OTHER, "cudnn graph: too many operations",
                       "more than %u tensors", FC_CWALK_TENSORS);
    return -1;
}

/* Operation i as a step of the score chain: its inputs' and output's
 * tensor indices; -1 for the products (matmul, SDPA: the chain stops
 * there) and for operations without an output. */
static int chain_step(const fc_cwalk_ctx *c, int i, int in_t[FC_CWALK_IN], int *out_t)
{
    const fc_cent *e = c->op[i];
    if (e->type == FC_CD_OP_MATMUL || e->type == FC_CD_OP_SDPA_FWD || e->type == FC_CD_OP_SDPA_BWD)
        return -1;
    const fc_cten *in[FC_CWALK_IN];
    int64_t out;
    int has_out, n = fc_cwalk_io(c, i, in, &out, &has_out);
    if (!has_out)
        return -1;
    for (int k = 0; k < n; k++)
        in_t[k] = fc_cwalk_tensor(c, in[k]->uid);
    *out_t = fc_cwalk_tensor(c, out);
    return n;
}

/* Marks what is computed from tensor t0 (not through a matmul or SDPA
 * node): FC_MARK_FROM_S, with FC_MARK_EXP past an EXP. */
static void mark_from(fc_cwalk_ctx *c, int t0)
{
    for (int i = 0; i < c->n_t; i++)
        c->mark[i] = 0;
    c->mark[t0] = FC_MARK_FROM_S;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < c->n_op; i++) {
            int in[FC_CWALK_IN], out, n = chain_step(c, i, in, &out);
            uint8_t m = 0;
            for (int k = 0; k < n; k++)
                m |= c->mark[in[k]];
            if (!(m & FC_MARK_FROM_S))
                continue;
            const fc_cent *e = c->op[i];
            if (e->type == FC_CD_OP_POINTWISE && e->u.pw.mode == FC_PW_EXP)
                m |= FC_MARK_EXP;
            uint8_t want = (uint8_t)(c->mark[out] | (m & (FC_MARK_FROM_S | FC_MARK_EXP)));
            changed |= want != c->mark[out];
            c->mark[out] = want;
        }
    }
}

/* Marks what tensor t0 is computed from (FC_MARK_TO_P), back to matmuls. */
static void mark_to(fc_cwalk_ctx *c, int t0)
{
    c->mark[t0] |= FC_MARK_TO_P;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = c->n_op - 1; i >= 0; i--) {
            int in[FC_CWALK_IN], out, n = chain_step(c, i, in, &out);
            if (n < 0 || !(c->mark[out] & FC_MARK_TO_P))
                continue;
            for (int k = 0; k < n; k++) {
                changed |= !(c->mark[in[k]] & FC_MARK_TO_P);
                c->mark[in[k]] |= FC_MARK_TO_P;
            }
        }
    }
}

static fc_u128 mm_flops(const fc_cent *e)
{
    const fc_cten *a = &e->u.mm.a, *c = &e->u.mm.c;
    return 2 * (fc_u128)fc_cten_batch(c) * (fc_u128)c->d[2] * (fc_u128)c->d[3] * (fc_u128)a->d[3];
}

static int on_chain(const fc_cwalk_ctx *c, int64_t uid)
{
    int t = fc_cwalk_tensor(c, uid);
    return t >= 0 && (c->mark[t] & (FC_MARK_FROM_S | FC_MARK_TO_P)) == (FC_MARK_FROM_S | FC_MARK_TO_P);
}

/* Dropout and soft-capping on the score chain (no effect on the products;
 * the report shows them; a bias is told apart by mask_band.c). */
static void chain_flags(const fc_cwalk_ctx *c, fc_attn *a)
{
    for (int i = 0; i < c->n_op; i++) {
        const fc_cent *e = c->op[i];
        if (e->type == FC_CD_OP_RNG)
            a->flags |= FC_ATTN_DROPOUT;
        if (e->type != FC_CD_OP_POINTWISE || !on_chain(c, e->u.pw.y_uid))
            continue;
        const fc_cten *x = &e->u.pw.x, *b = &e->u.pw.b;
        const fc_cten *other = on_chain(c, x->uid) ? b : x;
        if (!(other->flags & FC_TEN_SEEN))
            continue;
        if (e->u.pw.mode == FC_PW_TANH_FWD)
            a->flags |= FC_ATTN_SOFTCAP;
        if (e->u.pw.mode == FC_PW_MUL && !(other->flags & (FC_TEN_VIRTUAL | FC_TEN_BY_VALUE)) &&
            other->d[2] == c->s_q && other->d[3] == c->s_k)
            a->flags |= FC_ATTN_DROPOUT; /* a dropout mask given as a tensor */
    }
}

/* The matmul (of mm[]) whose first operand is tensor t, or -1. */
static int mm_reading(const fc_cwalk_ctx *c, const int *mm, int n_mm, int64_t uid)
{
    for (int j = 0; j < n_mm; j++)
        if (c->op[mm[j]]->u.mm.a.uid == uid)
            return mm[j];
    return -1;
}

/* The composite SDPA pattern; 1 with w filled as attention. */
static int composite(fc_cwalk_ctx *c, const int *mm, int n_mm, fc_cwork *w)
{
    int score = -1;
    int64_t targets[4];
    int n_targets = 0;
    for (int s = 0; s < n_mm; s++) {
        mark_from(c, fc_cwalk_tensor(c, c->op[mm[s]]->u.mm.c.uid));
        int cnt = 0;
        int64_t tg[4];
        for (int j = 0; j < n_mm; j++) {
            int64_t a = c->op[mm[j]]->u.mm.a.uid;
            if (j != s && (c->mark[fc_cwalk_tensor(c, a)] & FC_MARK_EXP) && cnt < 4)
                tg[cnt++] = a;
        }
        if (n_mm == 2 ? cnt != 1 : cnt < 2)
            continue;
        if (score >= 0)
            return 0; /* two candidates: not the pattern */
        score = mm[s];
        n_targets = cnt;
        memcpy(targets, tg, sizeof tg);
    }
    if (score < 0)
        return 0;
    const fc_cent *sm = c->op[score];
    const fc_cten *S = &sm->u.mm.c, *Q = &sm->u.mm.a, *KT = &sm->u.mm.b;
    int64_t b = S->lead * S->d[0], h = S->d[1], s_q = S->d[2], s_k = S->d[3], d = Q->d[3];
    int64_t h_k = KT->d[1], d_v = -1;
    if (Q->d[2] != s_q || KT->d[2] != d || KT->d[3] != s_k || h_k < 1 || h % h_k != 0)
        return 0;
    const fc_cten *V = NULL;
    if (n_mm == 2) {
        int pv = mm_reading(c, mm, n_mm, targets[0]);
        V = &c->op[pv]->u.mm.b;
        const fc_cten *O = &c->op[pv]->u.mm.c;
        d_v = V->d[3];
        if (V->d[2] != s_k || O->d[2] != s_q || O->d[3] != d_v)
            return 0;
    } else {
        for (int j = 0; j < n_mm; j++) { /* dP = dO V^T: the other s_q x s_k product */
            const fc_cent *e = c->op[mm[j]];
            if (mm[j] != score && e->u.mm.c.d[2] == s_q && e->u.mm.c.d[3] == s_k) {
                V = &e->u.mm.b;
                d_v = e->u.mm.a.d[3];
            }
        }
        if (V == NULL || V->d[2] != d_v || V->d[3] != s_k)
            return 0;
    }
    fc_u128 total = 0, want;
    for (int j = 0; j < n_mm; j++)
        total += mm_flops(c->op[mm[j]]);
    fc_u128 heads_pairs = 2 * (fc_u128)b * (fc_u128)h * (fc_u128)s_q * (fc_u128)s_k;
    want = heads_pairs * (n_mm == 2 ? (fc_u128)(d + d_v) : (fc_u128)(3 * d + 2 * d_v));
    if (total != want)
        return 0;
    fc_attn *a = &w->attn;
    memset(a, 0, sizeof *a);
    a->source = FC_ATTN_SRC_CUDNN;
    a->dir = n_mm == 2 ? FC_ATTN_FWD : FC_ATTN_BWD;
    a->dtype = (uint8_t)fc_cdtype(Q->dtype);
    int qt = fc_cwalk_tensor(c, Q->uid);
    if (qt >= 0 && c->prod[qt] >= 0 && c->op[c->prod[qt]]->type == FC_CD_OP_BLOCK_SCALE_DEQUANTIZE)
        a->dtype = (uint8_t)fc_cdtype(c->op[c->prod[qt]]->u.io.x.dtype); /* MXFP8: Q as stored */
    a->b = b, a->h = h, a->h_k = h_k, a->s_q = s_q, a->s_k = s_k, a->d = d, a->d_v = d_v;
    a->window_left = a->window_right = -1;
    for (int j = 0; j < n_mm; j++) {
        const fc_cent *e = c->op[mm[j]];
        if (e->u.mm.overrides || ((e->u.mm.a.flags | e->u.mm.b.flags | e->u.mm.c.flags) & FC_TEN_RAGGED))
            a->flags |= FC_ATTN_BOUND; /* padded or packed: the dims are maxima */
    }
    for (int i = 0; i < c->n_op; i++)
        if (c->op[i]->type == FC_CD_OP_PAGED_CACHE_LOAD)
            a->flags |= FC_ATTN_BOUND;
    mark_from(c, fc_cwalk_tensor(c, S->uid));
    for (int k = 0; k < n_targets; k++)
        mark_to(c, fc_cwalk_tensor(c, targets[k]));
    c->s_q = s_q, c->s_k = s_k, c->nd = S->nd;
    chain_flags(c, a);
    w->kind = FC_CW_ATTN;
    w->composite = 1;
    a->variant = FC_ATTN_CUDNN_COMPOSITE;
    w->k_trans = 1;
    w->v_trans = n_mm == 5;
    w->q = *Q, w->k = *KT, w->v = *V;
    fc_cmask_read(c, w);
    return 1;
}

/* The score modifier graph of an SDPA forward node (cuDNN 9.21's
 * SDPA_FWD_SUBGRAPH, cudnn-frontend's UnifiedSDPANode: the causal and
 * sliding-window masks as diagonal band mask operations, a bias, ALiBi),
 * from its input uid (the scores S, [b, h, s_q, s_k]) to its output (what
 * the softmax reads): its masks read as those of a composite graph's score
 * chain. 0, or -1 with w filled. */
static int score_modifier(fc_cwalk_ctx *c, const fc_cent *e, fc_cwork *w)
{
    const fc_cwork *sub = fc_ct_work(e->u.sdpa.sub_work);
    uint8_t opt = e->u.sdpa.opt;
    const char *why = NULL;
    if (!(opt & FC_SDPA_SUB_IN) || !(opt & FC_SDPA_SUB_OUT))
        why = "its input or output unique id not set";
    else if (sub == NULL || sub->n_sub_ops == 0)
        why = "its operation graph was not seen with its operations (or has more than 16)";
    if (why == NULL && e->u.sdpa.sub_in == e->u.sdpa.sub_out)
        return 0; /* the scores unchanged */
    if (why == NULL) {
        /* the scratch view is the subgraph's from here (the outer one is read) */
        if (view_of(c, sub->sub_ops, sub->n_sub_ops, w) != 0)
            return -1;
        for (int i = 0; i < c->n_op && why == NULL; i++) {
            int t = c->op[i]->type;
            if (t != FC_CD_OP_POINTWISE && t != FC_CD_OP_DIAGONAL_BAND_MASK &&
                t != FC_CD_OP_REDUCTION && t != FC_CD_OP_RESHAPE)
                why = "an operation other than pointwise, band mask, reduction or reshape";
        }
    }
    int ti = -1, to = -1;
    const fc_cten *S = NULL;
    if (why == NULL) {
        ti = fc_cwalk_tensor(c, e->u.sdpa.sub_in);
        to = fc_cwalk_tensor(c, e->u.sdpa.sub_out);
        S = ti >= 0 ? c->ten[ti] : NULL;
        if (S == NULL || to < 0 || c->prod[to] < 0)
            why = "its input is read by none of its operations, or its output written by none";
        else if (S->nd < 2 || S->d[2] != w->attn.s_q || S->d[3] != w->attn.s_k)
            why = "its input is not the scores [.., s_q, s_k]";
    }
    if (why == NULL) {
        mark_from(c, ti);
        if (!(c->mark[to] & FC_MARK_FROM_S))
            why = "its output is not computed from its input";
    }
    if (why != NULL) {
        fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_ATTENTION,
                           "cudnn graph: SDPA score modifier not readable", "%s", why);
        return -1;
    }
    mark_to(c, to);
    c->s_q = w->attn.s_q, c->s_k = w->attn.s_k, c->nd = S->nd;
    chain_flags(c, &w->attn);
    fc_cmask_read(c, w);
    return 0;
}

/* One SDPA node (cuDNN's unified path): every pair is visible unless a
 * score modifier graph (cuDNN 9.21) masks some; lengths in device memory
 * make it a bound. */
static void sdpa_node(fc_cwalk_ctx *c, const fc_cent *e, fc_cwork *w)
{
    const fc_cten *q = &e->u.sdpa.q, *k = &e->u.sdpa.k, *v = &e->u.sdpa.v;
    int paged = (e->u.sdpa.opt & FC_SDPA_PAGED) != 0;
    if (!(q->flags & k->flags & v->flags & FC_TEN_SEEN) || q->nd < 2 || k->nd < 2 || v->nd < 2 ||
        (paged && !(e->u.sdpa.opt & FC_SDPA_PT_DIMS))) {
        fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_ATTENTION, "cudnn graph: SDPA node not readable",
                           "Q, K or V of a %s node not set or not seen created%s", type_name(e->type),
                           paged ? " (or a paged cache without its page table's dimensions)" : "");
        return;
    }
    fc_attn *a = &w->attn;
    memset(a, 0, sizeof *a);
    a->source = FC_ATTN_SRC_CUDNN;
    a->variant = FC_ATTN_CUDNN_UNIFIED;
    a->dir = e->type == FC_CD_OP_SDPA_FWD ? FC_ATTN_FWD : FC_ATTN_BWD;
    a->dtype = (uint8_t)fc_cdtype(q->dtype);
    a->b = q->lead * q->d[0], a->h = q->d[1], a->s_q = q->d[2], a->d = q->d[3];
    a->h_k = k->d[1];
    /* a paged K is [blocks, h_k, block size, d]: s_k at most blocks per sequence x block size */
    a->s_k = paged ? e->u.sdpa.pt_blocks * k->d[2] : k->d[2];
    a->d_v = v->d[3];
    a->window_left = a->window_right = -1;
    if (e->u.sdpa.opt & (FC_SDPA_SEQ_LEN | FC_SDPA_BLOCK_MASK | FC_SDPA_PAGED) ||
        ((q->flags | k->flags | v->flags) & FC_TEN_RAGGED))
        a->flags |= FC_ATTN_BOUND;
    if (k->d[3] != a->d || (!paged && v->d[2] != a->s_k) || !fc_attn_valid(a)) {
        fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_ATTENTION, "cudnn graph: SDPA node not readable",
                           "Q [.., %lld, %lld], K [.., %lld, %lld], V [.., %lld, %lld] disagree "
                           "or are out of range (each dimension 1 .. 2^31 - 1, heads a multiple "
                           "of kv heads)",
                           (long long)q->d[2], (long long)q->d[3], (long long)k->d[2],
                           (long long)k->d[3], (long long)v->d[2], (long long)v->d[3]);
        return;
    }
    if ((e->u.sdpa.opt & FC_SDPA_SUB) && score_modifier(c, e, w) != 0)
        return;
    w->kind = FC_CW_ATTN;
    w->q = *q, w->k = *k, w->v = *v;
}

/* The matmul nodes as GEMMs. */
static void gemms(const fc_cwalk_ctx *c, const int *mm, int n_mm, fc_cwork *w)
{
    if (n_mm > FC_CUDNN_MAX_GEMMS) {
        fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_GEMM_LIKE, "cudnn graph: too many matmul nodes",
                           "%d matmul nodes (flopcount counts up to %d per plan)", n_mm,
                           FC_CUDNN_MAX_GEMMS);
        return;
    }
    fc_u128 bound = 0;
    int varlen = 0;
    for (int j = 0; j < n_mm; j++) {
        const fc_cent *e = c->op[mm[j]];
        const fc_cten *A = &e->u.mm.a, *B = &e->u.mm.b, *C = &e->u.mm.c;
        fc_cgemm *g = &w->gemm[j];
        g->m = C->d[2], g->n = C->d[3], g->k = A->d[3], g->batch = fc_cten_batch(C);
        if (A->nd < 2 || B->nd < 2 || C->nd < 2 || A->d[2] != g->m || B->d[2] != g->k ||
            B->d[3] != g->n) {
            fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_GEMM_LIKE, "cudnn graph: matmul operands disagree",
                               "A [.., %lld, %lld] B [.., %lld, %lld] C [.., %lld, %lld]",
                               (long long)A->d[2], (long long)A->d[3], (long long)B->d[2],
                               (long long)B->d[3], (long long)C->d[2], (long long)C->d[3]);
            return;
        }
        g->a_uid = A->uid, g->b_uid = B->uid, g->c_uid = C->uid;
        g->a = *A, g->b = *B;
        g->dtype = (uint8_t)fc_cdtype(A->dtype);
        g->out_dtype = (uint8_t)fc_cdtype(C->dtype);
        bound += mm_flops(e);
        if (e->u.mm.overrides || ((A->flags | B->flags | C->flags) & FC_TEN_RAGGED))
            varlen = 1;
    }
    if (varlen) {
        char num[FC_U128_DIGITS];
        fc_cwork_uncounted(w, FC_UNC_VARLEN, FC_K_GEMM_LIKE,
                           "cudnn graph: matmul with lengths in device memory",
                           "M/N/K overrides or ragged offsets: at most %s FLOPs an execute (2 m n k "
                           "batch at the dimensions given)",
                           fc_u128_to_str(bound, num));
        return;
    }
    w->kind = FC_CW_GEMM;
    w->n_gemm = (uint8_t)n_mm;
}

static void classify(const void *const *ops, int64_t n, fc_cwork *w)
{
    fc_cwalk_ctx *c = &scratch;
    if (view_of(c, ops, n, w) != 0)
        return;
    int mm[FC_CUDNN_WALK_OPS], n_mm = 0, n_conv = 0, n_moe = 0, n_sdpa = 0, sdpa = -1;
    for (int i = 0; i < c->n_op; i++) {
        int t = c->op[i]->type;
        if (t == FC_CD_OP_MATMUL)
            mm[n_mm++] = i;
        n_conv += t == FC_CD_OP_CONV_FWD || t == FC_CD_OP_CONV_BWD_DATA || t == FC_CD_OP_CONV_BWD_FILTER;
        n_moe += t == FC_CD_OP_MOE_GROUPED_MATMUL;
        if (t == FC_CD_OP_SDPA_FWD || t == FC_CD_OP_SDPA_BWD)
            n_sdpa++, sdpa = i;
    }
    if (n_conv) {
        fc_cwork_uncounted(w, FC_UNC_NOT_MATMUL, FC_K_GEMM_LIKE, "cudnn graph: convolution",
                           "%d convolution nodes (with %d matmul nodes): convolution FLOPs are not "
                           "counted",
                           n_conv, n_mm);
    } else if (n_moe) {
        fc_cwork_uncounted(w, FC_UNC_VARLEN, FC_K_GEMM_LIKE, "cudnn graph: MoE grouped matmul",
                           "%d MoE grouped matmul nodes: the tokens of each expert are in device "
                           "memory",
                           n_moe);
    } else if (n_sdpa > 1 || (n_sdpa == 1 && n_mm > 0)) {
        fc_cwork_uncounted(w, FC_UNC_GRAPH, FC_K_ATTENTION, "cudnn graph: several attention parts",
                           "%d SDPA nodes and %d matmul nodes in one graph: one execute is counted "
                           "as one attention call",
                           n_sdpa, n_mm);
    } else if (n_sdpa == 1) {
        sdpa_node(c, c->op[sdpa], w);
    } else if (n_mm == 0) {
        fc_cwork_uncounted(w, FC_UNC_NOT_MATMUL, FC_K_OTHER, "cudnn graph: no matrix product",
                           "%d nodes (normalization, pointwise, reduction ...): nothing flopcount "
                           "counts",
                           c->n_op);
    } else if ((n_mm == 2 || n_mm == 5) && composite(c, mm, n_mm, w)) {
        return;
    } else {
        gemms(c, mm, n_mm, w);
    }
}

/* The attention as it is when no value is read at execute time. */
static void resolve_static(fc_cwork *w)
{
    w->resolved = w->attn;
    fc_cmask_resolve(w, NULL, NULL, &w->resolved);
}

void fc_cwalk_graph(const void *const *ops, int64_t n, fc_cwork *w)
{
    classify(ops, n, w);
    if (w->kind == FC_CW_ATTN)
        resolve_static(w);
}

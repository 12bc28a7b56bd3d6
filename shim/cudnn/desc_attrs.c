/* SPDX-License-Identifier: Apache-2.0 */
/* desc_attrs.c - what a successful Create, SetAttribute, GetAttribute,
 * Finalize or Destroy leaves in the descriptor table.
 *
 * Only the attributes that decide what a plan computes are kept: a
 * tensor's dimensions, data type, unique id and virtual / by-value /
 * ragged flags; an operation's tensors (copied into the operation when it
 * names them: cuDNN finalizes a tensor before an operation may take it,
 * so the copy is what the operation holds); a pointwise operation's mode
 * and axis (from its pointwise descriptor); a diagonal band mask's
 * tensors and comparison, an SDPA node's score modifier graph (cuDNN 9.20
 * and 9.21, beyond the 9.19 header); the chain from an execution
 * plan to its operation graph (plan -> engine config -> engine -> graph,
 * or an engine config filled by heuristics through GetAttribute); a
 * variant pack's unique ids, data pointers and override shapes. An
 * attribute the cuDNN 9.19 header does not name for the descriptor's type
 * (a newer cuDNN: the real library accepted it) taints the descriptor:
 * a graph that uses it is not resolved, and the report names the
 * attribute. The operation graph's work is computed when its operations
 * are set (graph_walk.c); a plan's when it is finalized (plan_exec.c). */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cudnn_internal.h"

/* The attributes of each descriptor type in the 9.19 header (ranges). */
static const struct known {
    uint16_t type, lo, hi;
} known_attrs[] = {
    {FC_CD_POINTWISE, 0, 9},
    {FC_CD_CONVOLUTION, 100, 106},
    {FC_CD_ENGINEHEUR, 200, 204},
    {FC_CD_ENGINECFG, 300, 304},
    {FC_CD_EXECUTION_PLAN, 400, 407},
    {FC_CD_INTERMEDIATE_INFO, 500, 503},
    {FC_CD_KNOB_CHOICE, 600, 601},
    {FC_CD_OP_CONV_FWD, 700, 705},
    {FC_CD_OP_CONV_BWD_DATA, 706, 711},
    {FC_CD_OP_CONV_BWD_FILTER, 712, 717},
    {FC_CD_OP_POINTWISE, 750, 758},
    {FC_CD_OP_GEN_STATS, 770, 774},
    {FC_CD_OP_BN_FINALIZE, 780, 796},
    {FC_CD_OPERATIONGRAPH, 800, 804},
    {FC_CD_TENSOR, 900, 909},
    {FC_CD_TENSOR, 913, 913},
    {FC_CD_VARIANT_PACK, 1000, 1003},
    {FC_CD_VARIANT_PACK, 1010, 1012},
    {FC_CD_LAYOUT_INFO, 1100, 1101},
    {FC_CD_KNOB_INFO, 1200, 1203},
    {FC_CD_ENGINE, 1300, 1308},
    {FC_CD_MATMUL, 1500, 1500},
    {FC_CD_MATMUL, 1503, 1503},
    {FC_CD_OP_MATMUL, 1520, 1527},
    {FC_CD_REDUCTION, 1600, 1602},
    {FC_CD_OP_REDUCTION, 1610, 1612},
    {FC_CD_OP_BN_BWD_WEIGHTS, 1620, 1630},
    {FC_CD_RESAMPLE, 1700, 1708},
    {FC_CD_OP_RESAMPLE_FWD, 1710, 1714},
    {FC_CD_OP_RESAMPLE_FWD, 1716, 1716},
    {FC_CD_OP_RESAMPLE_BWD, 1720, 1727},
    {FC_CD_OP_CONCAT, 1800, 1803},
    {FC_CD_OP_SIGNAL, 1900, 1904},
    {FC_CD_OP_PAGED_CACHE_LOAD, 1950, 1953},
    {FC_CD_OP_NORM_FWD, 2000, 2014},
    {FC_CD_OP_NORM_BWD, 2100, 2110},
    {FC_CD_OP_RESHAPE, 2200, 2201},
    /* cuDNN 9.22 on (PyTorch 2.15's cuDNN SDPA graphs, seen on the null
     * GPU): the reshape's mode, view-only or logical; no FLOPs either way */
    {FC_CD_OP_RESHAPE, 2202, 2202},
    {FC_CD_OP_EXPAND_BAND, 2250, 2257},
    {FC_CD_OP_CONTRACT_BAND, 2270, 2276},
    {FC_CD_RNG, 2300, 2305},
    {FC_CD_OP_RNG, 2310, 2313},
    {FC_CD_KERNEL_CACHE, 2400, 2402},
    {FC_CD_OP_BLOCK_SCALE_QUANTIZE, 2500, 2504},
    {FC_CD_OP_BLOCK_SCALE_DEQUANTIZE, 2600, 2605},
    {FC_CD_DEVICEPROP, 2700, 2702},
    {FC_CD_OP_SDPA_FWD, 2800, 2810},
    /* cuDNN 9.21 on (PyTorch 2.15's causal cuDNN SDPA): the score modifier
     * graph (an operation graph: masks, bias, between the products) with
     * its input (the scores) and output uids (graph_walk.c reads it) */
    {FC_CD_OP_SDPA_FWD, 2811, 2813},
    /* cuDNN 9.21 on (PyTorch 2.15's cuDNN SDPA sets it, seen on the null
     * GPU): the softmax descriptor of the SDPA forward. The softmax runs
     * between the two products, whose FLOPs it does not change. */
    {FC_CD_OP_SDPA_FWD, 2814, 2814},
    {FC_CD_OP_SDPA_BWD, 2851, 2862},
    {FC_CD_OP_MOE_GROUPED_MATMUL, 2900, 2908},
    /* cuDNN 9.20 on (PyTorch 2.15's causal cuDNN SDPA): the diagonal band
     * mask operation, read by mask_band.c; 3008 and 3009 (cumulative
     * lengths, 9.24) are not known */
    {FC_CD_OP_DIAGONAL_BAND_MASK, 3000, 3007},
};

int fc_cattr_known(int type, int attr)
{
    for (size_t i = 0; i < sizeof known_attrs / sizeof known_attrs[0]; i++)
        if (known_attrs[i].type == type && attr >= known_attrs[i].lo && attr <= known_attrs[i].hi)
            return 1;
    return 0;
}

static void taint(fc_cent *e, int attr)
{
    if (!(e->state & FC_CE_TAINT)) {
        e->state |= FC_CE_TAINT;
        e->taint_attr = (uint16_t)(attr < 0 || attr > UINT16_MAX ? UINT16_MAX : attr);
    }
}

static const void *first_desc(int atype, int64_t count, const void *elems)
{
    if (atype != FC_CT_BACKEND_DESCRIPTOR || count < 1 || elems == NULL)
        return NULL;
    return ((const void *const *)elems)[0];
}

void fc_cattr_snapshot(const void *desc, fc_cten *out)
{
    memset(out, 0, sizeof *out);
    fc_cent *t = fc_ct_find(desc);
    if (t == NULL || t->type != FC_CD_TENSOR)
        return;
    *out = t->u.tensor;
    out->flags |= FC_TEN_SEEN;
    if (t->state & FC_CE_TAINT) {
        out->flags |= FC_TEN_TAINT;
        out->taint_attr = t->taint_attr;
    }
}

/* A tensor attribute; 0, or -1 when its value is not in the form read. */
static int set_tensor(fc_cten *t, int attr, int atype, int64_t n, const void *el)
{
    switch (attr) {
    case FC_CA_TENSOR_DATA_TYPE:
        if (atype != FC_CT_DATA_TYPE || n < 1)
            return -1;
        t->dtype = (uint8_t)*(const int *)el;
        return 0;
    case FC_CA_TENSOR_DIMENSIONS: {
        if (atype != FC_CT_INT64 || n < 1 || n > FC_CUDNN_DIM_MAX)
            return -1;
        const int64_t *d = el;
        int64_t lead = 1;
        for (int64_t i = 0; i < n; i++)
            if (d[i] <= 0)
                return -1;
        for (int64_t i = 0; i + 4 < n; i++)
            if (__builtin_mul_overflow(lead, d[i], &lead))
                return -1;
        t->lead = lead;
        for (int k = 0; k < 4; k++)
            t->d[3 - k] = k < n ? d[n - 1 - k] : 1;
        t->nd = (uint8_t)n;
        return 0;
    }
    case FC_CA_TENSOR_UNIQUE_ID:
        if (atype != FC_CT_INT64 || n < 1)
            return -1;
        t->uid = *(const int64_t *)el;
        return 0;
    case FC_CA_TENSOR_IS_VIRTUAL:
    case FC_CA_TENSOR_IS_BY_VALUE: {
        if (atype != FC_CT_BOOLEAN || n < 1)
            return -1;
        uint8_t bit = attr == FC_CA_TENSOR_IS_VIRTUAL ? FC_TEN_VIRTUAL : FC_TEN_BY_VALUE;
        t->flags = *(const unsigned char *)el ? (uint8_t)(t->flags | bit) : (uint8_t)(t->flags & ~bit);
        return 0;
    }
    case FC_CA_TENSOR_RAGGED_OFFSET_DESC:
        if (first_desc(atype, n, el) != NULL)
            t->flags |= FC_TEN_RAGGED;
        return 0;
    default:
        return 0; /* strides, alignment, vectorization, reordering: no FLOPs */
    }
}

/* Copies the work reference (and dynamic flag) of src, an entry of type
 * want_type, into e; without one, e says why. */
void fc_cattr_link(fc_cent *e, const void *src, int want_type)
{
    fc_cent *s = fc_ct_find(src);
    fc_ct_work_unref(e->u.link.work);
    e->u.link.work = 0;
    e->state &= (uint8_t)~FC_CE_DYNAMIC;
    if (s == NULL || s->type != want_type) {
        e->why = src == NULL ? FC_WHY_UNSET : FC_WHY_NOT_SEEN;
        return;
    }
    e->state |= (uint8_t)(s->state & FC_CE_DYNAMIC);
    if (s->u.link.work == 0) {
        e->why = s->why != FC_WHY_NONE ? s->why
                                       : (want_type == FC_CD_OPERATIONGRAPH ? FC_WHY_NO_OPS
                                                                             : FC_WHY_UNSET);
        return;
    }
    fc_ct_work_ref(s->u.link.work);
    e->u.link.work = s->u.link.work;
    e->why = FC_WHY_NONE;
}

/* Reads n bytes at addr without trusting it: a bad address is an error
 * here, never a fault. */
static int read_mem(const void *addr, void *out, size_t n)
{
    struct iovec local = {out, n}, remote = {(void *)(uintptr_t)addr, n};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

/* CUDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES: the header gives no C layout;
 * cudnn-frontend passes the address of a std::vector<std::vector<int64_t>>,
 * which libstdc++ and libc++ both lay out as three pointers (begin, end,
 * end of capacity). Read through read_mem and checked (one inner vector
 * per override unique id, 1 to 8 positive dimensions each); anything else
 * leaves the shapes unreadable. */
typedef struct vec3 {
    uintptr_t begin, end, cap;
} vec3;

static void read_override_shapes(fc_cvp *v, const void *el)
{
    v->over_shapes = 2;
    vec3 outer;
    if (el == NULL || read_mem(el, &outer, sizeof outer) != 0 || outer.end < outer.begin ||
        (outer.end - outer.begin) % sizeof(vec3) != 0)
        return;
    size_t n = (outer.end - outer.begin) / sizeof(vec3);
    if (n != v->n_over || n > FC_CUDNN_VP_OVERRIDES)
        return;
    for (size_t i = 0; i < n; i++) {
        vec3 in;
        if (read_mem((const void *)(outer.begin + i * sizeof(vec3)), &in, sizeof in) != 0 ||
            in.end < in.begin || (in.end - in.begin) % sizeof(int64_t) != 0)
            return;
        size_t nd = (in.end - in.begin) / sizeof(int64_t);
        if (nd < 1 || nd > FC_CUDNN_DIM_MAX ||
            read_mem((const void *)in.begin, v->over_dims[i], nd * sizeof(int64_t)) != 0)
            return;
        for (size_t k = 0; k < nd; k++)
            if (v->over_dims[i][k] <= 0)
                return;
        v->over_nd[i] = (uint8_t)nd;
    }
    v->over_shapes = 1;
}

static void set_vpack(fc_cent *e, int attr, int atype, int64_t n, const void *el)
{
    fc_cvp *v = fc_ct_vp(e->u.vpack.vp);
    if (v == NULL || el == NULL || n < 0)
        return;
    uint32_t cnt = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    switch (attr) {
    case FC_CA_VARIANT_PACK_UNIQUE_IDS:
        if (atype != FC_CT_INT64)
            return taint(e, attr);
        v->n_pairs = cnt;
        memcpy(v->uid, el, sizeof(int64_t) * (cnt < FC_CUDNN_VP_PAIRS ? cnt : FC_CUDNN_VP_PAIRS));
        return;
    case FC_CA_VARIANT_PACK_DATA_POINTERS:
        if (atype != FC_CT_VOID_PTR)
            return taint(e, attr);
        v->n_ptrs = cnt;
        memcpy(v->ptr, el, sizeof(void *) * (cnt < FC_CUDNN_VP_PAIRS ? cnt : FC_CUDNN_VP_PAIRS));
        return;
    case FC_CA_VARIANT_PACK_OVERRIDE_UNIQUE_IDS:
        if (atype != FC_CT_INT64)
            return taint(e, attr);
        v->n_over = cnt;
        memcpy(v->over_uid, el,
               sizeof(int64_t) * (cnt < FC_CUDNN_VP_OVERRIDES ? cnt : FC_CUDNN_VP_OVERRIDES));
        return;
    case FC_CA_VARIANT_PACK_OVERRIDE_SHAPES: {
        int saved = errno;
        read_override_shapes(v, el);
        errno = saved;
        return;
    }
    default:
        return;
    }
}

/* Copies the tensor desc names into an operation's field, or taints the
 * operation when the value is not one descriptor. */
static void op_tensor(fc_cent *e, int attr, int atype, int64_t n, const void *el, fc_cten *dst)
{
    if (atype != FC_CT_BACKEND_DESCRIPTOR || n != 1)
        return taint(e, attr);
    fc_cattr_snapshot(first_desc(atype, n, el), dst);
}

/* An operation's output: only its unique id is needed (the operations
 * that read it hold their own copies of it). */
static void op_uid(fc_cent *e, int attr, int atype, int64_t n, const void *el, int64_t *uid)
{
    fc_cten t;
    op_tensor(e, attr, atype, n, el, &t);
    *uid = t.uid;
    e->out_set = (t.flags & FC_TEN_SEEN) ? 1 : 2; /* 2: named, not seen created */
}

static void set_pointwise_op(fc_cent *e, int attr, int atype, int64_t n, const void *el)
{
    switch (attr) {
    case FC_CA_OP_POINTWISE_PW_DESCRIPTOR: {
        fc_cent *d = fc_ct_find(first_desc(atype, n, el));
        if (d == NULL || d->type != FC_CD_POINTWISE) {
            e->state |= FC_CE_NO_DESC;
            e->u.pw.mode = -1;
            return;
        }
        e->state &= (uint8_t)~FC_CE_NO_DESC;
        if (d->state & FC_CE_TAINT)
            taint(e, d->taint_attr);
        e->u.pw.mode = d->u.pwdesc.mode;
        e->u.pw.axis = d->u.pwdesc.axis;
        return;
    }
    case FC_CA_OP_POINTWISE_XDESC: return op_tensor(e, attr, atype, n, el, &e->u.pw.x);
    case FC_CA_OP_POINTWISE_BDESC: return op_tensor(e, attr, atype, n, el, &e->u.pw.b);
    case FC_CA_OP_POINTWISE_TDESC:
    case FC_CA_OP_POINTWISE_DYDESC: return op_tensor(e, attr, atype, n, el, &e->u.pw.t);
    case FC_CA_OP_POINTWISE_YDESC:
    case FC_CA_OP_POINTWISE_DXDESC: return op_uid(e, attr, atype, n, el, &e->u.pw.y_uid);
    default: return; /* alpha1, alpha2 */
    }
}

/* SDPA_FWD_SUBGRAPH: the score modifier's operation graph, whose
 * operations (and so its work) were set before; the node keeps a
 * reference to that work (the graph may be destroyed first). */
static void set_subgraph(fc_cent *e, int attr, int atype, int64_t n, const void *el)
{
    fc_ct_work_unref(e->u.sdpa.sub_work);
    e->u.sdpa.sub_work = 0;
    e->u.sdpa.opt |= FC_SDPA_SUB;
    if (atype != FC_CT_BACKEND_DESCRIPTOR || n != 1)
        return taint(e, attr);
    fc_cent *g = fc_ct_find(first_desc(atype, n, el));
    if (g == NULL || g->type != FC_CD_OPERATIONGRAPH || g->u.link.work == 0)
        return; /* sub_work 0: the walk says why */
    fc_ct_work_ref(g->u.link.work);
    e->u.sdpa.sub_work = g->u.link.work;
}

static void set_sdpa(fc_cent *e, int attr, int atype, int64_t n, const void *el)
{
    int fwd = e->type == FC_CD_OP_SDPA_FWD;
    int q = fwd ? FC_CA_OP_SDPA_FWD_QDESC : FC_CA_OP_SDPA_BWD_QDESC;
    if (attr == q)
        return op_tensor(e, attr, atype, n, el, &e->u.sdpa.q);
    if (attr == q + 1)
        return op_tensor(e, attr, atype, n, el, &e->u.sdpa.k);
    if (attr == q + 2)
        return op_tensor(e, attr, atype, n, el, &e->u.sdpa.v);
    if (fwd && attr == FC_CA_OP_SDPA_FWD_ODESC)
        return op_uid(e, attr, atype, n, el, &e->u.sdpa.o_uid);
    if (fwd && (attr == FC_CA_OP_SDPA_FWD_SUBGRAPH_INPUT_UID ||
                attr == FC_CA_OP_SDPA_FWD_SUBGRAPH_OUTPUT_UID)) {
        if (atype != FC_CT_INT64 || n != 1 || el == NULL)
            return taint(e, attr);
        int in = attr == FC_CA_OP_SDPA_FWD_SUBGRAPH_INPUT_UID;
        *(in ? &e->u.sdpa.sub_in : &e->u.sdpa.sub_out) = *(const int64_t *)el;
        e->u.sdpa.opt |= in ? FC_SDPA_SUB_IN : FC_SDPA_SUB_OUT;
        return;
    }
    if (fwd && attr == FC_CA_OP_SDPA_FWD_SUBGRAPH)
        return set_subgraph(e, attr, atype, n, el);
    const void *d = first_desc(atype, n, el);
    if (d == NULL)
        return;
    if ((fwd && (attr == FC_CA_OP_SDPA_FWD_SEQ_LEN_QDESC || attr == FC_CA_OP_SDPA_FWD_SEQ_LEN_KVDESC)) ||
        (!fwd && (attr == FC_CA_OP_SDPA_BWD_SEQ_LEN_QDESC || attr == FC_CA_OP_SDPA_BWD_SEQ_LEN_KVDESC)))
        e->u.sdpa.opt |= FC_SDPA_SEQ_LEN;
    if (fwd && attr == FC_CA_OP_SDPA_FWD_BLOCK_MASK_DESC)
        e->u.sdpa.opt |= FC_SDPA_BLOCK_MASK;
    if (fwd && (attr == FC_CA_OP_SDPA_FWD_PAGE_TABLE_KDESC || attr == FC_CA_OP_SDPA_FWD_PAGE_TABLE_VDESC))
        e->u.sdpa.opt |= FC_SDPA_PAGED;
    if (fwd && attr == FC_CA_OP_SDPA_FWD_PAGE_TABLE_KDESC) {
        fc_cten pt; /* [b, 1, blocks per sequence, 1] */
        fc_cattr_snapshot(d, &pt);
        if (pt.flags & FC_TEN_SEEN && pt.nd == 4) {
            e->u.sdpa.pt_blocks = pt.d[2];
            e->u.sdpa.opt |= FC_SDPA_PT_DIMS;
        }
    }
}

/* A diagonal band mask's attributes (cuDNN 9.20): tensors, and its
 * comparison (a pointwise mode). */
static void set_band(fc_cent *e, int attr, int atype, int64_t n, const void *el)
{
    static const struct {
        int attr;
        uint8_t bit;
        size_t off;
    } ten[] = {
        {FC_CA_OP_BAND_XDESC, FC_BANDOP_X, offsetof(fc_cent, u.band.x)},
        {FC_CA_OP_BAND_BDESC, FC_BANDOP_B, offsetof(fc_cent, u.band.b)},
        {FC_CA_OP_BAND_SEQ_LEN_QDESC, FC_BANDOP_SQ, offsetof(fc_cent, u.band.sq)},
        {FC_CA_OP_BAND_SEQ_LEN_KVDESC, FC_BANDOP_SKV, offsetof(fc_cent, u.band.skv)},
        {FC_CA_OP_BAND_LEFT_BOUND_DESC, FC_BANDOP_LEFT, offsetof(fc_cent, u.band.left)},
        {FC_CA_OP_BAND_SHIFT_RIGHT_BOUND_DESC, FC_BANDOP_SHIFT, offsetof(fc_cent, u.band.shift)},
    };
    if (attr == FC_CA_OP_BAND_YDESC)
        return op_uid(e, attr, atype, n, el, &e->u.band.y_uid);
    if (attr == FC_CA_OP_BAND_COMPARISON_MODE) {
        if (atype != FC_CT_POINTWISE_MODE || n != 1 || el == NULL)
            return taint(e, attr);
        e->u.band.mode = *(const int32_t *)el;
        e->u.band.set |= FC_BANDOP_MODE;
        return;
    }
    for (size_t i = 0; i < sizeof ten / sizeof ten[0]; i++)
        if (ten[i].attr == attr) {
            op_tensor(e, attr, atype, n, el, (fc_cten *)((char *)e + ten[i].off));
            e->u.band.set |= ten[i].bit;
            return;
        }
}

/* The attributes of operations the walk reads; others are ignored. */
static void set_op(fc_cent *e, int attr, int atype, int64_t n, const void *el)
{
    switch (e->type) {
    case FC_CD_OP_MATMUL:
        switch (attr) {
        case FC_CA_OP_MATMUL_ADESC: return op_tensor(e, attr, atype, n, el, &e->u.mm.a);
        case FC_CA_OP_MATMUL_BDESC: return op_tensor(e, attr, atype, n, el, &e->u.mm.b);
        case FC_CA_OP_MATMUL_CDESC: return op_tensor(e, attr, atype, n, el, &e->u.mm.c);
        case FC_CA_OP_MATMUL_GEMM_M_OVERRIDE_DESC:
        case FC_CA_OP_MATMUL_GEMM_N_OVERRIDE_DESC:
        case FC_CA_OP_MATMUL_GEMM_K_OVERRIDE_DESC:
            if (first_desc(atype, n, el) != NULL)
                e->u.mm.overrides |= (uint8_t)(1u << (attr - FC_CA_OP_MATMUL_GEMM_M_OVERRIDE_DESC));
            return;
        default: return; /* the matmul descriptor (compute type, padding value) */
        }
    case FC_CD_OP_POINTWISE: return set_pointwise_op(e, attr, atype, n, el);
    case FC_CD_OP_REDUCTION:
        if (attr == FC_CA_OP_REDUCTION_XDESC)
            return op_tensor(e, attr, atype, n, el, &e->u.io.x);
        if (attr == FC_CA_OP_REDUCTION_YDESC)
            return op_uid(e, attr, atype, n, el, &e->u.io.y_uid);
        return;
    case FC_CD_OP_RESHAPE:
        if (attr == FC_CA_OP_RESHAPE_XDESC)
            return op_tensor(e, attr, atype, n, el, &e->u.io.x);
        if (attr == FC_CA_OP_RESHAPE_YDESC)
            return op_uid(e, attr, atype, n, el, &e->u.io.y_uid);
        return;
    case FC_CD_OP_RNG:
        if (attr == FC_CA_OP_RNG_YDESC)
            return op_uid(e, attr, atype, n, el, &e->u.io.y_uid);
        return;
    case FC_CD_OP_PAGED_CACHE_LOAD:
        if (attr == FC_CA_OP_PAGED_CACHE_LOAD_CONTAINER_DESC)
            return op_tensor(e, attr, atype, n, el, &e->u.io.x);
        if (attr == FC_CA_OP_PAGED_CACHE_LOAD_YDESC)
            return op_uid(e, attr, atype, n, el, &e->u.io.y_uid);
        return;
    case FC_CD_OP_BLOCK_SCALE_QUANTIZE:
    case FC_CD_OP_BLOCK_SCALE_DEQUANTIZE: {
        int q = e->type == FC_CD_OP_BLOCK_SCALE_QUANTIZE;
        if (attr == (q ? FC_CA_OP_BLOCK_SCALE_QUANTIZE_XDESC : FC_CA_OP_BLOCK_SCALE_DEQUANTIZE_XDESC))
            return op_tensor(e, attr, atype, n, el, &e->u.io.x);
        if (attr == (q ? FC_CA_OP_BLOCK_SCALE_QUANTIZE_YDESC : FC_CA_OP_BLOCK_SCALE_DEQUANTIZE_YDESC))
            return op_uid(e, attr, atype, n, el, &e->u.io.y_uid);
        return;
    }
    case FC_CD_OP_SDPA_FWD:
    case FC_CD_OP_SDPA_BWD: return set_sdpa(e, attr, atype, n, el);
    case FC_CD_OP_DIAGONAL_BAND_MASK:
        return set_band(e, attr, atype, n, el);
    default: return;
    }
}

/* The operation graph's operations: its work, described now (the
 * operations exist at this moment; they may be destroyed later). */
static void set_ops(fc_cent *e, int atype, int64_t n, const void *el)
{
    fc_ct_work_unref(e->u.link.work);
    e->u.link.work = 0;
    if (atype != FC_CT_BACKEND_DESCRIPTOR || el == NULL || n < 1) {
        e->why = FC_WHY_NO_OPS;
        return;
    }
    uint32_t w = fc_ct_work_new();
    if (w == 0) {
        e->why = FC_WHY_WORKS_FULL;
        return;
    }
    fc_cwork *work = fc_ct_work(w);
    fc_cwalk_graph((const void *const *)el, n, work);
    if (n <= (int64_t)FC_CUDNN_SUB_OPS) { /* it may be an SDPA node's score modifier */
        memcpy(work->sub_ops, el, sizeof(void *) * (size_t)n);
        work->n_sub_ops = (uint8_t)n;
    }
    e->u.link.work = w;
    e->why = FC_WHY_NONE;
}

static void set_link(fc_cent *e, int attr, int atype, int64_t n, const void *el)
{
    const void *d = first_desc(atype, n, el);
    switch (e->type) {
    case FC_CD_OPERATIONGRAPH:
        if (attr == FC_CA_OPERATIONGRAPH_OPS)
            set_ops(e, atype, n, el);
        else if (attr == FC_CA_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED && atype == FC_CT_BOOLEAN &&
                 n >= 1 && el != NULL)
            e->state = *(const unsigned char *)el ? (uint8_t)(e->state | FC_CE_DYNAMIC)
                                                  : (uint8_t)(e->state & ~FC_CE_DYNAMIC);
        return;
    case FC_CD_ENGINEHEUR:
        if (attr == FC_CA_ENGINEHEUR_OPERATION_GRAPH)
            fc_cattr_link(e, d, FC_CD_OPERATIONGRAPH);
        return;
    case FC_CD_ENGINE:
        if (attr == FC_CA_ENGINE_OPERATION_GRAPH)
            fc_cattr_link(e, d, FC_CD_OPERATIONGRAPH);
        return;
    case FC_CD_ENGINECFG:
        if (attr == FC_CA_ENGINECFG_ENGINE)
            fc_cattr_link(e, d, FC_CD_ENGINE);
        return;
    case FC_CD_EXECUTION_PLAN:
        if (attr == FC_CA_EXECUTION_PLAN_ENGINE_CONFIG)
            fc_cattr_link(e, d, FC_CD_ENGINECFG);
        else if (attr == FC_CA_EXECUTION_PLAN_JSON_REPRESENTATION)
            e->state |= FC_CE_JSON;
        return;
    default: return;
    }
}

void fc_cudnn_created(const void *desc, int type)
{
    if (desc == NULL || fc_ct_ready() != 0)
        return;
    fc_ct_lock();
    fc_cent *e = fc_ct_insert(desc, type);
    if (e != NULL) {
        if (e->type == FC_CD_POINTWISE || e->type == FC_CD_OP_POINTWISE)
            e->u.pw.mode = e->u.pwdesc.mode = -1;
        if (e->type == FC_CD_POINTWISE)
            e->u.pwdesc.axis = -1;
        if (e->type == FC_CD_VARIANT_PACK)
            e->u.vpack.vp = fc_ct_vp_new();
    }
    fc_ct_unlock();
}

void fc_cudnn_destroying(const void *desc)
{
    if (desc == NULL || fc_ct_ready() != 0)
        return;
    fc_ct_lock();
    fc_ct_remove(desc);
    fc_ct_unlock();
}

void fc_cudnn_reinitialized(const void *desc)
{
    fc_cudnn_destroying(desc);
}

void fc_cudnn_set(const void *desc, int attr, int atype, int64_t count, const void *elems)
{
    if (desc == NULL || fc_ct_ready() != 0)
        return;
    fc_ct_lock();
    fc_cent *e = fc_ct_find(desc);
    if (e == NULL) {
        fc_ct_unlock();
        return;
    }
    if (!fc_cattr_known(e->type, attr)) {
        taint(e, attr);
    } else if (e->type == FC_CD_TENSOR) {
        if (elems == NULL || set_tensor(&e->u.tensor, attr, atype, count, elems) != 0)
            taint(e, attr);
    } else if (e->type == FC_CD_POINTWISE) {
        if (attr == FC_CA_POINTWISE_MODE && atype == FC_CT_POINTWISE_MODE && count >= 1 && elems)
            e->u.pwdesc.mode = *(const int *)elems;
        else if (attr == FC_CA_POINTWISE_AXIS && atype == FC_CT_INT64 && count >= 1 && elems)
            e->u.pwdesc.axis = *(const int64_t *)elems;
    } else if (e->type == FC_CD_VARIANT_PACK) {
        set_vpack(e, attr, atype, count, elems);
    } else if (e->type == FC_CD_OPERATIONGRAPH || e->type == FC_CD_ENGINEHEUR ||
               e->type == FC_CD_ENGINE || e->type == FC_CD_ENGINECFG ||
               e->type == FC_CD_EXECUTION_PLAN) {
        set_link(e, attr, atype, count, elems);
    } else {
        set_op(e, attr, atype, count, elems);
    }
    fc_ct_unlock();
}

/* The descriptors a GetAttribute filled in: heuristics' engine configs,
 * an engine config's engine, a plan's engine config. They take the work
 * of the descriptor asked. */
void fc_cudnn_got(const void *desc, int attr, int atype, int64_t requested, int64_t count,
                  const void *elems)
{
    if (desc == NULL || elems == NULL || atype != FC_CT_BACKEND_DESCRIPTOR || fc_ct_ready() != 0)
        return;
    int64_t n = count < requested ? count : requested;
    fc_ct_lock();
    fc_cent *e = fc_ct_find(desc);
    int want = -1;
    if (e != NULL && e->type == FC_CD_ENGINEHEUR && attr == FC_CA_ENGINEHEUR_RESULTS)
        want = FC_CD_ENGINECFG;
    else if (e != NULL && e->type == FC_CD_ENGINECFG && attr == FC_CA_ENGINECFG_ENGINE)
        want = FC_CD_ENGINE;
    else if (e != NULL && e->type == FC_CD_EXECUTION_PLAN && attr == FC_CA_EXECUTION_PLAN_ENGINE_CONFIG)
        want = FC_CD_ENGINECFG;
    for (int64_t i = 0; want >= 0 && i < n; i++) {
        fc_cent *out = fc_ct_find(((const void *const *)elems)[i]);
        if (out != NULL && out->type == want)
            fc_cattr_link(out, desc, e->type);
    }
    fc_ct_unlock();
}

void fc_cudnn_finalized(const void *desc)
{
    if (desc == NULL || fc_ct_ready() != 0)
        return;
    fc_ct_lock();
    fc_cent *e = fc_ct_find(desc);
    if (e != NULL) {
        e->state |= FC_CE_FINALIZED;
        if (e->type == FC_CD_EXECUTION_PLAN)
            fc_cplan_finalize(e);
    }
    fc_ct_unlock();
}

/* SPDX-License-Identifier: Apache-2.0 */
/* sdpa_build.c - the graphs of sdpa_build.h, through a table of backend
 * functions. Written from the backend API's attributes (cudnn_graph.h)
 * in the order cudnn-frontend makes its calls: each tensor created, its
 * attributes set, finalized; each operation likewise; the operation graph
 * of all of them; heuristics (mode A) and the engine configs they fill,
 * or an engine by global index when heuristics give none; the plan; per
 * execute a variant pack of (unique id, pointer) pairs - device memory of
 * each tensor's size for device tensors (api->dev_alloc; made-up
 * addresses without one), the host address of the value for the scalars
 * passed by value - and the workspace the plan asked for. */
#include "sdpa_build.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

int cb_api_dlsym(cb_api *api, void *h)
{
    *(void **)&api->create = dlsym(h, "cudnnBackendCreateDescriptor");
    *(void **)&api->destroy = dlsym(h, "cudnnBackendDestroyDescriptor");
    *(void **)&api->set = dlsym(h, "cudnnBackendSetAttribute");
    *(void **)&api->get = dlsym(h, "cudnnBackendGetAttribute");
    *(void **)&api->finalize = dlsym(h, "cudnnBackendFinalize");
    *(void **)&api->execute = dlsym(h, "cudnnBackendExecute");
    *(void **)&api->populate = dlsym(h, "cudnnBackendPopulateCudaGraph");
    api->dev_alloc = NULL; /* made-up addresses until a program gives an allocator */
    api->dev_free = NULL;
    return api->create && api->destroy && api->set && api->get && api->finalize && api->execute &&
                   api->populate
               ? 0
               : -1;
}

void cb_init(cb_graph *g, const cb_api *api, cudnnHandle_t handle)
{
    memset(g, 0, sizeof *g);
    g->api = api;
    g->handle = handle;
    g->next_uid = 1;
    g->keep_tensors = 1;
}

static void note(cudnnStatus_t *slot, cudnnStatus_t st)
{
    if (*slot == CUDNN_STATUS_SUCCESS)
        *slot = st;
}

static cudnnBackendDescriptor_t make(cb_graph *g, cudnnBackendDescriptorType_t type,
                                     cudnnStatus_t *slot)
{
    cudnnBackendDescriptor_t d = NULL;
    note(slot, g->api->create(type, &d));
    if (d != NULL && g->n_own < CB_MAX_DESCS)
        g->own[g->n_own++] = d;
    return d;
}

static void set(cb_graph *g, cudnnStatus_t *slot, cudnnBackendDescriptor_t d,
                cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, int64_t n,
                const void *v)
{
    note(slot, g->api->set(d, a, t, n, v));
}

static void set_desc(cb_graph *g, cudnnStatus_t *slot, cudnnBackendDescriptor_t d,
                     cudnnBackendAttributeName_t a, cudnnBackendDescriptor_t v)
{
    set(g, slot, d, a, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v);
}

static void vp_add(cb_graph *g, int64_t uid, void *ptr)
{
    if (g->n_vp < CB_MAX_VP) {
        g->vp_uid[g->n_vp] = uid;
        g->vp_ptr[g->n_vp++] = ptr;
    }
}

static size_t dtype_bytes(cudnnDataType_t dt)
{
    switch (dt) {
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
        return 2;
    case CUDNN_DATA_INT64:
    case CUDNN_DATA_DOUBLE:
        return 8;
    case CUDNN_DATA_BOOLEAN:
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
        return 1;
    default:
        return 4;
    }
}

/* Device memory for a graph (freed by cb_destroy_all); NULL when the api
 * has no allocator or it failed. */
static void *dev_mem(cb_graph *g, size_t bytes)
{
    if (g->api->dev_alloc == NULL || g->n_mem >= CB_MAX_VP)
        return NULL;
    void *p = g->api->dev_alloc(bytes);
    if (p != NULL)
        g->mem[g->n_mem++] = p;
    return p;
}

static cb_tensor tensor(cb_graph *g, int nd, const int64_t *dims, const int64_t *strides,
                        cudnnDataType_t dt, int is_virtual, int by_value)
{
    cb_tensor t = {NULL, g->next_uid++};
    int64_t st[CUDNN_DIM_MAX], align = 16;
    if (strides != NULL) {
        memcpy(st, strides, sizeof(int64_t) * (size_t)nd);
    } else {
        st[nd - 1] = 1;
        for (int i = nd - 2; i >= 0; i--)
            st[i] = st[i + 1] * dims[i + 1];
    }
    bool virt = is_virtual != 0, byval = by_value != 0;
    cudnnStatus_t *s = &g->st.tensors;
    t.desc = make(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR, s);
    set(g, s, t.desc, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
    set(g, s, t.desc, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, dims);
    set(g, s, t.desc, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, st);
    set(g, s, t.desc, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &t.uid);
    set(g, s, t.desc, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    set(g, s, t.desc, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt);
    if (by_value)
        set(g, s, t.desc, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &byval);
    if (g->extra_tensor_attr != 0) {
        int64_t one = 1;
        set(g, s, t.desc, (cudnnBackendAttributeName_t)g->extra_tensor_attr, CUDNN_TYPE_INT64, 1,
            &one);
        g->extra_tensor_attr = 0;
    }
    note(s, g->api->finalize(t.desc));
    if (!is_virtual && !by_value) {
        /* the bytes the strides reach, every element */
        int64_t last = 0;
        for (int i = 0; i < nd; i++)
            last += (dims[i] - 1) * st[i];
        void *p = (void *)(uintptr_t)(0x100000u * (uint64_t)t.uid); /* a made-up address */
        if (g->api->dev_alloc != NULL)
            p = dev_mem(g, (size_t)(last + 1) * dtype_bytes(dt));
        vp_add(g, t.uid, p);
    }
    return t;
}

cb_tensor cb_tensor_make(cb_graph *g, int nd, const int64_t *dims, const int64_t *strides,
                         cudnnDataType_t dt, int is_virtual)
{
    return tensor(g, nd, dims, strides, dt, is_virtual, 0);
}

static const int64_t one4[4] = {1, 1, 1, 1};

cb_tensor cb_scalar_f(cb_graph *g, float v)
{
    cb_tensor t = tensor(g, 4, one4, NULL, CUDNN_DATA_FLOAT, 0, 1);
    g->fval[g->n_f] = v;
    vp_add(g, t.uid, &g->fval[g->n_f++]);
    return t;
}

cb_tensor cb_scalar_i(cb_graph *g, int32_t v)
{
    cb_tensor t = tensor(g, 4, one4, NULL, CUDNN_DATA_INT32, 0, 1);
    g->ival[g->n_i] = v;
    vp_add(g, t.uid, &g->ival[g->n_i++]);
    return t;
}

static void add_op(cb_graph *g, cudnnBackendDescriptor_t op)
{
    note(&g->st.ops, g->api->finalize(op));
    if (g->n_ops < CB_MAX_DESCS)
        g->ops[g->n_ops++] = op;
}

void cb_matmul(cb_graph *g, cb_tensor a, cb_tensor b, cb_tensor c, const cb_tensor *m_ovr,
               const cb_tensor *n_ovr, const cb_tensor *k_ovr)
{
    cudnnStatus_t *s = &g->st.ops;
    cudnnDataType_t ct = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t md = make(g, CUDNN_BACKEND_MATMUL_DESCRIPTOR, s);
    set(g, s, md, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct);
    note(s, g->api->finalize(md));
    cudnnBackendDescriptor_t op = make(g, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, s);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, a.desc);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, b.desc);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, c.desc);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_MATMUL_DESC, md);
    if (m_ovr)
        set_desc(g, s, op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC, m_ovr->desc);
    if (n_ovr)
        set_desc(g, s, op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC, n_ovr->desc);
    if (k_ovr)
        set_desc(g, s, op, CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC, k_ovr->desc);
    add_op(g, op);
}

void cb_pointwise(cb_graph *g, cudnnPointwiseMode_t mode, int64_t axis, cb_tensor x,
                  const cb_tensor *b, const cb_tensor *t, cb_tensor y)
{
    cudnnStatus_t *s = &g->st.ops;
    cudnnDataType_t prec = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t pd = make(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, s);
    set(g, s, pd, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    set(g, s, pd, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
    if (axis >= 0)
        set(g, s, pd, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis);
    note(s, g->api->finalize(pd));
    cudnnBackendDescriptor_t op = make(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, s);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pd);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x.desc);
    if (b)
        set_desc(g, s, op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b->desc);
    if (t)
        set_desc(g, s, op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, t->desc);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y.desc);
    add_op(g, op);
}

void cb_reduction(cb_graph *g, cudnnReduceTensorOp_t rop, cb_tensor x, cb_tensor y)
{
    cudnnStatus_t *s = &g->st.ops;
    cudnnDataType_t ct = CUDNN_DATA_FLOAT;
    cudnnBackendDescriptor_t rd = make(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, s);
    set(g, s, rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &rop);
    set(g, s, rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct);
    note(s, g->api->finalize(rd));
    cudnnBackendDescriptor_t op = make(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, s);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x.desc);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y.desc);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, rd);
    add_op(g, op);
}

void cb_reshape(cb_graph *g, cb_tensor x, cb_tensor y)
{
    cudnnStatus_t *s = &g->st.ops;
    cudnnBackendDescriptor_t op = make(g, CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, s);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x.desc);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y.desc);
    add_op(g, op);
}

cudnnBackendDescriptor_t cb_bare_op(cb_graph *g, cudnnBackendDescriptorType_t type)
{
    cudnnBackendDescriptor_t op = make(g, type, &g->st.ops);
    add_op(g, op);
    return op;
}

/* An RNG (Bernoulli) node writing y: the dropout mask. */
static void rng(cb_graph *g, cb_tensor y)
{
    cudnnStatus_t *s = &g->st.ops;
    cudnnRngDistribution_t dist = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
    double keep = 0.9;
    int64_t seed = 1234;
    cudnnBackendDescriptor_t rd = make(g, CUDNN_BACKEND_RNG_DESCRIPTOR, s);
    set(g, s, rd, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1, &dist);
    set(g, s, rd, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE, 1, &keep);
    note(s, g->api->finalize(rd));
    cb_tensor off = tensor(g, 4, one4, NULL, CUDNN_DATA_INT64, 0, 0);
    cudnnBackendDescriptor_t op = make(g, CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR, s);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_RNG_YDESC, y.desc);
    set(g, s, op, CUDNN_ATTR_OPERATION_RNG_SEED, CUDNN_TYPE_INT64, 1, &seed);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_RNG_DESC, rd);
    set_desc(g, s, op, CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, off.desc);
    add_op(g, op);
}

/* ---- the SDPA graphs ---- */

/* cuDNN 9.20 and 9.21 numbers, not in the 9.19 header the tests build
 * with: typed here from cudnn_graph.h of cuDNN 9.26 (the nvidia-cudnn
 * wheel), where they are CUDNN_BACKEND_OPERATION_DIAGONAL_BAND_MASK_DESCRIPTOR,
 * CUDNN_ATTR_OPERATION_DIAGONAL_BAND_MASK_* and
 * CUDNN_ATTR_OPERATION_SDPA_FWD_SUBGRAPH{,_INPUT_UID,_OUTPUT_UID}. */
#define CB_BAND_OP ((cudnnBackendDescriptorType_t)44)
enum {
    CB_BAND_X = 3000,
    CB_BAND_SEQ_KV = 3001,
    CB_BAND_SEQ_Q = 3002,
    CB_BAND_LEFT = 3003,
    CB_BAND_SHIFT = 3004,
    CB_BAND_B = 3005,
    CB_BAND_Y = 3006,
    CB_BAND_CMP = 3007,
    CB_SDPA_SUBGRAPH = 2811,
    CB_SDPA_SUBGRAPH_IN = 2812,
    CB_SDPA_SUBGRAPH_OUT = 2813,
};

typedef struct dims4 {
    int64_t v[4];
} dims4;

static dims4 d4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    dims4 r = {{a, b, c, d}};
    return r;
}

static cb_tensor virt(cb_graph *g, dims4 d, cudnnDataType_t dt)
{
    return tensor(g, 4, d.v, NULL, dt, 1, 0);
}

static cb_tensor dev(cb_graph *g, dims4 d, cudnnDataType_t dt)
{
    return tensor(g, 4, d.v, NULL, dt, 0, 0);
}

/* [.., x, y] stored as [.., y, x]: the dims swapped, strides to match. */
static cb_tensor transposed(cb_graph *g, dims4 stored, cudnnDataType_t dt, int is_virtual)
{
    int64_t st[4] = {stored.v[1] * stored.v[2] * stored.v[3], stored.v[2] * stored.v[3], 1,
                     stored.v[3]};
    int64_t dims[4] = {stored.v[0], stored.v[1], stored.v[3], stored.v[2]};
    return tensor(g, 4, dims, st, dt, is_virtual, 0);
}

static cb_tensor pw1(cb_graph *g, cudnnPointwiseMode_t m, int64_t axis, cb_tensor x, dims4 d,
                     cudnnDataType_t dt)
{
    cb_tensor y = virt(g, d, dt);
    cb_pointwise(g, m, axis, x, NULL, NULL, y);
    return y;
}

static cb_tensor pw2(cb_graph *g, cudnnPointwiseMode_t m, cb_tensor x, cb_tensor b, dims4 d,
                     cudnnDataType_t dt)
{
    cb_tensor y = virt(g, d, dt);
    cb_pointwise(g, m, -1, x, &b, NULL, y);
    return y;
}

static cb_tensor select_where(cb_graph *g, cb_tensor x, cb_tensor cond, dims4 sd)
{
    cb_tensor ninf = cb_scalar_f(g, -__builtin_inff());
    cb_tensor y = virt(g, sd, CUDNN_DATA_FLOAT);
    cb_pointwise(g, CUDNN_POINTWISE_BINARY_SELECT, -1, x, &ninf, &cond, y);
    return y;
}

/* A diagonal band mask operation (cuDNN 9.20) on the scores x: keeps x
 * where (row [+ kv] [- q] [+ shift]) cmp col, or with a left bound
 * (col + left [- kv] [+ q]) cmp row, as cudnn-frontend's fallback nodes
 * for it compute; -inf elsewhere. */
static cb_tensor band_op(cb_graph *g, const cb_sdpa *s, cb_tensor x, dims4 sd, const cb_tensor *q,
                         const cb_tensor *kv, const cb_tensor *left, const cb_tensor *shift,
                         cudnnPointwiseMode_t cmp)
{
    cudnnStatus_t *st = &g->st.ops;
    cb_tensor ninf = cb_scalar_f(g, -__builtin_inff());
    cb_tensor y = virt(g, sd, CUDNN_DATA_FLOAT);
    if (s->band_bad == 1)
        cmp = CUDNN_POINTWISE_ADD;
    if (s->band_bad == 2 && shift == NULL)
        shift = left;
    cudnnBackendDescriptor_t op = make(g, CB_BAND_OP, st);
    set_desc(g, st, op, (cudnnBackendAttributeName_t)CB_BAND_X, x.desc);
    set_desc(g, st, op, (cudnnBackendAttributeName_t)CB_BAND_B, ninf.desc);
    if (q)
        set_desc(g, st, op, (cudnnBackendAttributeName_t)CB_BAND_SEQ_Q, q->desc);
    if (kv)
        set_desc(g, st, op, (cudnnBackendAttributeName_t)CB_BAND_SEQ_KV, kv->desc);
    if (left)
        set_desc(g, st, op, (cudnnBackendAttributeName_t)CB_BAND_LEFT, left->desc);
    if (shift)
        set_desc(g, st, op, (cudnnBackendAttributeName_t)CB_BAND_SHIFT, shift->desc);
    set_desc(g, st, op, (cudnnBackendAttributeName_t)CB_BAND_Y, y.desc);
    set(g, st, op, (cudnnBackendAttributeName_t)CB_BAND_CMP, CUDNN_TYPE_POINTWISE_MODE, 1, &cmp);
    add_op(g, op);
    return y;
}

/* The causal / right bound and the left bound as band mask operations,
 * with the scalars cudnn-frontend's sliding_window_mask gives them. */
static cb_tensor band_masks(cb_graph *g, const cb_sdpa *s, cb_tensor x, dims4 sd,
                            const cb_tensor *sq, const cb_tensor *skv)
{
    if (s->causal) {
        cb_tensor q, kv, sh;
        int br = s->causal == 2;
        if (br) {
            q = s->padding ? *sq : cb_scalar_i(g, (int32_t)s->s_q);
            kv = s->padding ? *skv : cb_scalar_i(g, (int32_t)s->s_k);
        }
        if (s->right > 0)
            sh = cb_scalar_i(g, (int32_t)s->right);
        x = band_op(g, s, x, sd, br ? &q : NULL, br ? &kv : NULL, NULL, s->right > 0 ? &sh : NULL,
                    CUDNN_POINTWISE_CMP_GE);
    }
    if (s->left > 0) {
        cb_tensor l;
        int lens = s->causal == 2 && s->padding;
        if (s->causal != 2)
            l = cb_scalar_f(g, (float)s->left);
        else if (!s->padding)
            l = cb_scalar_f(g, (float)(s->left - s->s_k + s->s_q));
        else
            l = cb_scalar_i(g, (int32_t)s->left);
        x = band_op(g, s, x, sd, lens ? sq : NULL, lens ? skv : NULL, &l, NULL,
                    CUDNN_POINTWISE_CMP_GT);
    }
    return x;
}

/* The masks on the scores x (dims sd), as cudnn-frontend's padding mask,
 * diagonal band (causal, right bound) and left bound are built. */
static cb_tensor masks(cb_graph *g, const cb_sdpa *s, cb_tensor x, dims4 sd, const cb_tensor *sq,
                       const cb_tensor *skv)
{
    cudnnDataType_t I = CUDNN_DATA_INT32, B = CUDNN_DATA_BOOLEAN;
    if (s->bias == 1) /* scores + bias [b, 1, s_q, s_k] */
        x = pw2(g, CUDNN_POINTWISE_ADD, x, dev(g, d4(s->b, 1, s->s_q, s->s_k), s->dt), sd,
                CUDNN_DATA_FLOAT);
    if (s->bias == 2) { /* ALiBi: scores + slope[h] (j - i) */
        cb_tensor row = pw1(g, CUDNN_POINTWISE_GEN_INDEX, 2, x, sd, I);
        cb_tensor col = pw1(g, CUDNN_POINTWISE_GEN_INDEX, 3, x, sd, I);
        cb_tensor rel = pw2(g, CUDNN_POINTWISE_SUB, col, row, sd, I);
        cb_tensor slopes = dev(g, d4(1, s->h, 1, 1), CUDNN_DATA_FLOAT);
        x = pw2(g, CUDNN_POINTWISE_ADD, x, pw2(g, CUDNN_POINTWISE_MUL, rel, slopes, sd, CUDNN_DATA_FLOAT),
                sd, CUDNN_DATA_FLOAT);
    }
    if (s->padding && !s->unified) { /* the unified node takes the lengths itself */
        cb_tensor row = pw1(g, CUDNN_POINTWISE_GEN_INDEX, 2, x, sd, I);
        cb_tensor col = pw1(g, CUDNN_POINTWISE_GEN_INDEX, 3, x, sd, I);
        cb_tensor rm = pw2(g, CUDNN_POINTWISE_CMP_LT, row, *sq, sd, B);
        cb_tensor cm = pw2(g, CUDNN_POINTWISE_CMP_LT, col, *skv, sd, B);
        x = select_where(g, x, pw2(g, CUDNN_POINTWISE_LOGICAL_AND, rm, cm, sd, B), sd);
    }
    if (s->band_op)
        return band_masks(g, s, x, sd, sq, skv);
    if (s->causal) {
        cb_tensor row = pw1(g, CUDNN_POINTWISE_GEN_INDEX, 2, x, sd, I);
        cb_tensor col = pw1(g, CUDNN_POINTWISE_GEN_INDEX, 3, x, sd, I);
        if (s->causal == 2) { /* row + s_kv - s_q >= col */
            cb_tensor kv = s->padding ? *skv : cb_scalar_i(g, (int32_t)s->s_k);
            cb_tensor q = s->padding ? *sq : cb_scalar_i(g, (int32_t)s->s_q);
            row = pw2(g, CUDNN_POINTWISE_ADD, row, kv, sd, I);
            row = pw2(g, CUDNN_POINTWISE_SUB, row, q, sd, I);
        }
        if (s->right > 0)
            row = pw2(g, CUDNN_POINTWISE_ADD, row, cb_scalar_i(g, (int32_t)s->right), sd, I);
        x = select_where(g, x, pw2(g, CUDNN_POINTWISE_CMP_GE, row, col, sd, B), sd);
    }
    if (s->left > 0) { /* col + left > row (bottom-right: col + left - s_kv + s_q > row) */
        cb_tensor row = pw1(g, CUDNN_POINTWISE_GEN_INDEX, 2, x, sd, I);
        cb_tensor col = pw1(g, CUDNN_POINTWISE_GEN_INDEX, 3, x, sd, I);
        float w = (float)(s->causal == 2 ? s->left - s->s_k + s->s_q : s->left);
        cb_tensor c2 = pw2(g, CUDNN_POINTWISE_ADD, col, cb_scalar_f(g, w), sd, CUDNN_DATA_FLOAT);
        x = select_where(g, x, pw2(g, CUDNN_POINTWISE_CMP_GT, c2, row, sd, B), sd);
    }
    return x;
}

static void sdpa_forward(cb_graph *g, const cb_sdpa *s)
{
    cudnnDataType_t F = CUDNN_DATA_FLOAT, T = s->dt;
    int64_t b = s->b, h = s->h, hk = s->h_k, sq = s->s_q, sk = s->s_k, d = s->d, dv = s->d_v;
    dims4 sd = d4(b, h, sq, sk), st = d4(b, h, sq, 1);
    cb_tensor Q = dev(g, d4(b, h, sq, d), T), KT = transposed(g, d4(b, hk, sk, d), T, 0);
    cb_tensor V = dev(g, d4(b, hk, sk, dv), T), O = dev(g, d4(b, h, sq, dv), T);
    cb_tensor Stats = dev(g, st, F);
    cb_tensor lq = {NULL, 0}, lkv = {NULL, 0};
    if (s->padding) {
        lq = dev(g, d4(b, 1, 1, 1), CUDNN_DATA_INT32);
        lkv = dev(g, d4(b, 1, 1, 1), CUDNN_DATA_INT32);
    }
    cb_tensor S = virt(g, sd, F);
    cb_matmul(g, Q, KT, S, s->padding ? &lq : NULL, s->padding ? &lkv : NULL, NULL);
    cb_tensor x = pw2(g, CUDNN_POINTWISE_MUL, S, cb_scalar_f(g, 0.125f), sd, F);
    x = masks(g, s, x, sd, &lq, &lkv);
    /* softmax: max, exp(x - max), sum; Stats = max + log(sum); P = e / sum */
    cb_tensor mx = virt(g, st, F);
    cb_reduction(g, CUDNN_REDUCE_TENSOR_MAX, x, mx);
    cb_tensor e = pw1(g, CUDNN_POINTWISE_EXP, -1, pw2(g, CUDNN_POINTWISE_SUB, x, mx, sd, F), sd, F);
    cb_tensor sum = virt(g, st, F);
    cb_reduction(g, CUDNN_REDUCE_TENSOR_ADD, e, sum);
    cb_tensor lg = pw1(g, CUDNN_POINTWISE_LOG, -1, sum, st, F);
    cb_pointwise(g, CUDNN_POINTWISE_ADD, -1, mx, &lg, NULL, Stats);
    cb_tensor P = pw2(g, CUDNN_POINTWISE_DIV, e, sum, sd, s->dropout ? F : T);
    if (s->dropout) {
        cb_tensor m = virt(g, sd, F);
        rng(g, m);
        P = pw2(g, CUDNN_POINTWISE_MUL, P, m, sd, F);
        P = pw2(g, CUDNN_POINTWISE_MUL, P, cb_scalar_f(g, 1.0f / 0.9f), sd, T);
    }
    cb_matmul(g, P, V, O, s->padding ? &lq : NULL, NULL, s->padding ? &lkv : NULL);
}

/* dX of a GQA group: the full-head product, then a sum over each group. */
static void grad(cb_graph *g, cb_tensor a, cb_tensor b, cb_tensor out, dims4 full, int gqa,
                 cudnnDataType_t T)
{
    if (!gqa) {
        cb_matmul(g, a, b, out, NULL, NULL, NULL);
        return;
    }
    cb_tensor f = virt(g, full, T);
    cb_matmul(g, a, b, f, NULL, NULL, NULL);
    cb_reduction(g, CUDNN_REDUCE_TENSOR_ADD, f, out);
}

static void sdpa_backward(cb_graph *g, const cb_sdpa *s)
{
    cudnnDataType_t F = CUDNN_DATA_FLOAT, T = s->dt;
    int64_t b = s->b, h = s->h, hk = s->h_k, sq = s->s_q, sk = s->s_k, d = s->d, dv = s->d_v;
    int gqa = h != hk;
    dims4 sd = d4(b, h, sq, sk), st = d4(b, h, sq, 1);
    cb_tensor Q = dev(g, d4(b, h, sq, d), T), KT = transposed(g, d4(b, hk, sk, d), T, 0);
    cb_tensor VT = transposed(g, d4(b, hk, sk, dv), T, 0);
    cb_tensor O = dev(g, d4(b, h, sq, dv), T), dO = dev(g, d4(b, h, sq, dv), T);
    cb_tensor Stats = dev(g, st, F);
    cb_tensor dQ = dev(g, d4(b, h, sq, d), T), dK = dev(g, d4(b, hk, sk, d), T);
    cb_tensor dV = dev(g, d4(b, hk, sk, dv), T);
    cb_tensor lq = {NULL, 0}, lkv = {NULL, 0};
    if (s->padding) {
        lq = dev(g, d4(b, 1, 1, 1), CUDNN_DATA_INT32);
        lkv = dev(g, d4(b, 1, 1, 1), CUDNN_DATA_INT32);
    }
    cb_tensor scale = cb_scalar_f(g, 0.125f);
    /* softmax_sum = sum over d_v of dO * O */
    cb_tensor ss = virt(g, st, F);
    cb_reduction(g, CUDNN_REDUCE_TENSOR_ADD, pw2(g, CUDNN_POINTWISE_MUL, dO, O, d4(b, h, sq, dv), F),
                 ss);
    cb_tensor S = virt(g, sd, F);
    cb_matmul(g, Q, KT, S, s->padding ? &lq : NULL, s->padding ? &lkv : NULL, NULL);
    cb_tensor x = masks(g, s, pw2(g, CUDNN_POINTWISE_MUL, S, scale, sd, F), sd, &lq, &lkv);
    cb_tensor E = pw1(g, CUDNN_POINTWISE_EXP, -1, pw2(g, CUDNN_POINTWISE_SUB, x, Stats, sd, F), sd, F);
    cb_tensor P = E;
    if (s->dropout) {
        cb_tensor m = virt(g, sd, F);
        rng(g, m);
        P = pw2(g, CUDNN_POINTWISE_MUL, P, m, sd, F);
        P = pw2(g, CUDNN_POINTWISE_MUL, P, cb_scalar_f(g, 1.0f / 0.9f), sd, F);
    }
    cb_tensor PT = transposed(g, sd, T, 1);
    cb_reshape(g, P, PT);
    grad(g, PT, dO, dV, d4(b, h, sk, dv), gqa, T); /* dV = P^T dO */
    cb_tensor dP = virt(g, sd, F);
    cb_matmul(g, dO, VT, dP, NULL, NULL, NULL); /* dP = dO V^T */
    cb_tensor dS = pw2(g, CUDNN_POINTWISE_MUL, pw2(g, CUDNN_POINTWISE_SUB, dP, ss, sd, F), E, sd, F);
    dS = pw2(g, CUDNN_POINTWISE_MUL, dS, scale, sd, T);
    cb_tensor dST = transposed(g, sd, T, 1);
    cb_reshape(g, dS, dST);
    grad(g, dST, Q, dK, d4(b, h, sk, d), gqa, T); /* dK = dS^T Q */
    cb_tensor K = virt(g, d4(b, hk, sk, d), T);
    cb_reshape(g, KT, K);
    cb_matmul(g, dS, K, dQ, NULL, NULL, NULL); /* dQ = dS K */
}

/* One SDPA node: the forward (the unified path) or the backward node the
 * 9.19 header defines (cudnn-frontend builds the composite backward
 * instead). Both take Q, K, V, O, Stats and the scale at the same offsets
 * from their first attribute. */
static void sdpa_unified(cb_graph *g, const cb_sdpa *s)
{
    cudnnStatus_t *st = &g->st.ops;
    cudnnDataType_t T = s->dt;
    int64_t b = s->b, h = s->h, hk = s->h_k, sq = s->s_q, sk = s->s_k, d = s->d, dv = s->d_v;
    int first = s->bwd ? CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC : CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC;
    cb_tensor in[6] = {dev(g, d4(b, h, sq, d), T),   dev(g, d4(b, hk, sk, d), T),
                       dev(g, d4(b, hk, sk, dv), T), dev(g, d4(b, h, sq, dv), T),
                       dev(g, d4(b, h, sq, 1), CUDNN_DATA_FLOAT), cb_scalar_f(g, 0.125f)};
    cb_tensor lq = {NULL, 0}, lkv = {NULL, 0};
    if (s->padding) {
        lq = dev(g, d4(b, 1, 1, 1), CUDNN_DATA_INT32);
        lkv = dev(g, d4(b, 1, 1, 1), CUDNN_DATA_INT32);
    }
    /* cuDNN 9.21: the masks in a score modifier graph of their own, from
     * the scores S to what the softmax reads */
    cudnnBackendDescriptor_t sub = NULL;
    cb_tensor sub_in = {NULL, 0}, sub_out = {NULL, 0};
    if (!s->bwd && s->band_op && (s->causal || s->left || s->bias)) {
        int first_op = g->n_ops;
        dims4 sd = d4(b, h, sq, sk);
        sub_in = virt(g, sd, CUDNN_DATA_FLOAT);
        sub_out = masks(g, s, sub_in, sd, &lq, &lkv);
        sub = make(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, st);
        set(g, st, sub, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
            g->n_ops - first_op, g->ops + first_op);
        note(st, g->api->finalize(sub));
        g->n_ops = first_op; /* not operations of the outer graph */
    }
    cudnnBackendDescriptor_t op = make(
        g, s->bwd ? CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR : CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR,
        st);
    for (int i = 0; i < 6; i++) /* Q K V O Stats scale */
        set_desc(g, st, op, (cudnnBackendAttributeName_t)(first + i), in[i].desc);
    if (sub != NULL) {
        set_desc(g, st, op, (cudnnBackendAttributeName_t)CB_SDPA_SUBGRAPH, sub);
        set(g, st, op, (cudnnBackendAttributeName_t)CB_SDPA_SUBGRAPH_IN, CUDNN_TYPE_INT64, 1,
            &sub_in.uid);
        set(g, st, op, (cudnnBackendAttributeName_t)CB_SDPA_SUBGRAPH_OUT, CUDNN_TYPE_INT64, 1,
            &sub_out.uid);
    }
    if (s->bwd) {
        set_desc(g, st, op, CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC, dev(g, d4(b, h, sq, dv), T).desc);
        set_desc(g, st, op, CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC, dev(g, d4(b, h, sq, d), T).desc);
        set_desc(g, st, op, CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC, dev(g, d4(b, hk, sk, d), T).desc);
        set_desc(g, st, op, CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC, dev(g, d4(b, hk, sk, dv), T).desc);
    }
    if (s->padding) {
        set_desc(g, st, op, s->bwd ? CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC
                                   : CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC, lq.desc);
        set_desc(g, st, op, s->bwd ? CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC
                                   : CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC, lkv.desc);
    }
    add_op(g, op);
}

void cb_build_sdpa(cb_graph *g, const cb_sdpa *s)
{
    if (s->unified)
        sdpa_unified(g, s);
    else if (s->bwd)
        sdpa_backward(g, s);
    else
        sdpa_forward(g, s);
}

/* ---- plan and execute ---- */

void cb_plan(cb_graph *g)
{
    const cb_api *a = g->api;
    g->opgraph = make(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g->st.graph);
    set(g, &g->st.graph, g->opgraph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
        g->n_ops, g->ops);
    if (g->handle != NULL) /* as cudnn-frontend: the engines are chosen for its device */
        set(g, &g->st.graph, g->opgraph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1,
            &g->handle);
    if (g->dynamic) {
        bool on = true;
        set(g, &g->st.graph, g->opgraph, CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED,
            CUDNN_TYPE_BOOLEAN, 1, &on);
    }
    note(&g->st.graph, a->finalize(g->opgraph));
    if (!g->keep_tensors) {
        /* what a frontend may do: the graph holds its own copies now */
        for (int i = 0; i < g->n_own; i++)
            if (g->own[i] != g->opgraph) {
                a->destroy(g->own[i]);
                g->own[i] = NULL;
            }
    }
    cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
    cudnnBackendDescriptor_t heur = make(g, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &g->st.heur);
    set_desc(g, &g->st.heur, heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, g->opgraph);
    set(g, &g->st.heur, heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    note(&g->st.heur, a->finalize(heur));
    int64_t count = 0;
    note(&g->st.heur, a->get(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                             &count, NULL));
    g->st.heur_results = count;
    cudnnBackendDescriptor_t cfg = NULL;
    int64_t got = 0;
    if (count > 0) {
        cudnnBackendDescriptor_t cfgs[4];
        int64_t n = count < 4 ? count : 4;
        for (int64_t i = 0; i < n; i++)
            cfgs[i] = make(g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &g->st.engcfg);
        note(&g->st.heur, a->get(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 n, &got, cfgs));
        cfg = cfgs[0];
    }
    g->st.heur_filled = got;
    if (got == 0) { /* none filled (no device): an engine by its global index */
        int64_t index = 0;
        cudnnBackendDescriptor_t eng = make(g, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &g->st.engine);
        set_desc(g, &g->st.engine, eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, g->opgraph);
        set(g, &g->st.engine, eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index);
        note(&g->st.engine, a->finalize(eng));
        cfg = make(g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &g->st.engcfg);
        set_desc(g, &g->st.engcfg, cfg, CUDNN_ATTR_ENGINECFG_ENGINE, eng);
        note(&g->st.engcfg, a->finalize(cfg));
    }
    g->plan = make(g, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &g->st.plan);
    if (g->handle != NULL)
        set(g, &g->st.plan, g->plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
            &g->handle);
    set_desc(g, &g->st.plan, g->plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfg);
    note(&g->st.plan, a->finalize(g->plan));
    int64_t n = 0;
    g->ws_size = 0;
    if (g->st.plan == CUDNN_STATUS_SUCCESS &&
        a->get(g->plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n,
               &g->ws_size) != CUDNN_STATUS_SUCCESS)
        g->ws_size = 0;
    g->ws = g->ws_size > 0 ? dev_mem(g, (size_t)g->ws_size) : NULL;
    if (g->ws == NULL && a->dev_alloc == NULL)
        g->ws = (void *)(uintptr_t)0x7000000; /* a made-up address */
}

/* The variant pack of one execute (NULL when it cannot be made). */
static cudnnBackendDescriptor_t variant_pack(cb_graph *g, cudnnStatus_t *st)
{
    const cb_api *a = g->api;
    cudnnBackendDescriptor_t vp = NULL;
    *st = a->create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    if (*st != CUDNN_STATUS_SUCCESS)
        return NULL;
    void *ws = g->ws;
    a->set(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, g->n_vp, g->vp_uid);
    a->set(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, g->n_vp, g->vp_ptr);
    a->set(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
    if (g->n_over > 0) {
        /* std::vector<std::vector<int64_t>>: three pointers each (begin,
         * end, end of capacity), the outer one over the inner ones; only
         * read during the set */
        struct vec {
            const void *begin, *end, *cap;
        } inner[4], outer;
        for (int i = 0; i < g->n_over; i++) {
            inner[i].begin = g->over_dims[i];
            inner[i].end = inner[i].cap = g->over_dims[i] + 4;
        }
        outer.begin = inner;
        outer.end = outer.cap = inner + g->n_over;
        a->set(vp, CUDNN_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS, CUDNN_TYPE_INT64, g->n_over,
               g->over_uid);
        a->set(vp, CUDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES, CUDNN_TYPE_VOID_PTR, 1, &outer);
    }
    a->finalize(vp);
    return vp;
}

cudnnStatus_t cb_execute(cb_graph *g)
{
    cudnnStatus_t st;
    cudnnBackendDescriptor_t vp = variant_pack(g, &st);
    if (vp != NULL) {
        st = g->api->execute(g->handle, g->plan, vp);
        if (g->after_execute != NULL)
            g->after_execute(g->handle, g->plan, vp, st);
        g->api->destroy(vp);
    }
    note(&g->st.execute, st);
    return st;
}

cudnnStatus_t cb_populate(cb_graph *g, cudaGraph_t graph)
{
    cudnnStatus_t st;
    cudnnBackendDescriptor_t vp = variant_pack(g, &st);
    if (vp != NULL) {
        st = g->api->populate(g->handle, g->plan, vp, graph);
        g->api->destroy(vp);
    }
    return st;
}

void cb_destroy_all(cb_graph *g)
{
    for (int i = g->n_own - 1; i >= 0; i--)
        if (g->own[i] != NULL)
            g->api->destroy(g->own[i]);
    g->n_own = 0;
    for (int i = 0; i < g->n_mem; i++)
        g->api->dev_free(g->mem[i]);
    g->n_mem = 0;
    g->ws = NULL;
}

void cb_expect(const cb_sdpa *s, cb_want *w)
{
    uint64_t pairs = 0;
    int64_t off = s->causal == 2 ? s->s_k - s->s_q : 0;
    for (int64_t i = 0; i < s->s_q; i++)
        for (int64_t j = 0; j < s->s_k; j++) {
            int keep = 1;
            if (s->causal && j > i + off + s->right)
                keep = 0;
            if (s->left > 0 && j <= i + off - s->left)
                keep = 0;
            pairs += (uint64_t)keep;
        }
    uint64_t heads = (uint64_t)(s->b * s->h);
    uint64_t d = (uint64_t)s->d, dv = (uint64_t)s->d_v;
    uint64_t fwd = 2 * pairs * (d + dv) * heads;
    w->pairs = pairs * heads;
    w->flops = s->bwd ? 2 * pairs * (3 * d + 2 * dv) * heads : fwd;
    w->model = s->bwd ? 2 * fwd : fwd;
}

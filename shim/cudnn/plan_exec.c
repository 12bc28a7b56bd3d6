/* SPDX-License-Identifier: Apache-2.0 */
/* plan_exec.c - what an execution plan counts: decided once at its
 * finalize (its work, or the named reason it has none, interned in the
 * uncounted table then), and at each execute made concrete from the
 * variant pack - the host scalars a mask reads (a sliding window's
 * width, a bottom-right offset) and, for dynamic-shape graphs, the shapes
 * the execute overrides. Nothing is allocated: the answer is written into
 * the caller's fc_cudnn_exec. */
#include <string.h>

#include "core/api.h"
#include "count/uncounted.h"
#include "cudnn_internal.h"
#include "kernel_class.h"

static const char *why_text(int why)
{
    switch (why) {
    case FC_WHY_NOT_SEEN:
        return "the engine config, engine or operation graph it names was not seen created";
    case FC_WHY_NO_OPS: return "its operation graph had no operations set";
    case FC_WHY_WORKS_FULL: return "too many graphs described at once (the pool is full)";
    default: return "no engine config, engine or operation graph was set on it";
    }
}

/* The fixed reasons' ids, of uncounted-table generation c_gen: a fork
 * child (or a reset) empties that table and bumps fc_ct_generation(), and
 * the ids are interned again on next use. */
static uint32_t c_gen, c_unseen, c_unfinal, c_vp, c_shapes, c_shape_bad;

/* The plan's uncounted id, interned (again after a fork). */
static void plan_intern(fc_cent *p)
{
    p->u.link.unc = FC_UNCOUNTED_NONE;
    p->u.link.unc_gen = fc_ct_generation();
    fc_cwork *w = fc_ct_work(p->u.link.work);
    if (p->state & FC_CE_JSON)
        p->u.link.unc = fc_uncounted_intern("cudnn plan: deserialized", FC_K_OTHER, FC_UNC_GRAPH,
                                            "built from a serialized plan (JSON): its operation "
                                            "graph is never shown");
    else if (w == NULL)
        p->u.link.unc = fc_uncounted_intern("cudnn plan: operation graph unknown", FC_K_OTHER,
                                            FC_UNC_GRAPH, why_text(p->why));
    else if (w->kind == FC_CW_UNCOUNTED)
        p->u.link.unc = fc_uncounted_intern(w->name, w->kclass, w->reason, w->detail);
}

void fc_cplan_finalize(fc_cent *p)
{
    p->u.link.counted = 1;
    if (p->state & FC_CE_JSON) { /* whatever config it named, the JSON decides */
        fc_ct_work_unref(p->u.link.work);
        p->u.link.work = 0;
    }
    plan_intern(p);
}

/* The id of a fixed reason, interned once a generation. */
static uint32_t fixed(uint32_t *cache, const char *name, const char *detail)
{
    uint32_t g = fc_ct_generation();
    if (__atomic_load_n(&c_gen, __ATOMIC_RELAXED) != g) { /* a fork child, or a reset */
        c_unseen = c_unfinal = c_vp = c_shapes = c_shape_bad = 0;
        __atomic_store_n(&c_gen, g, __ATOMIC_RELAXED);
    }
    uint32_t id = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (id == 0) {
        id = fc_uncounted_intern(name, FC_K_OTHER, FC_UNC_GRAPH, detail) + 1;
        __atomic_store_n(cache, id, __ATOMIC_RELAXED);
    }
    return id - 1;
}

static const void *vp_ptr(const fc_cvp *v, int64_t uid)
{
    if (v == NULL)
        return NULL;
    uint32_t n = v->n_pairs < v->n_ptrs ? v->n_pairs : v->n_ptrs;
    if (n > FC_CUDNN_VP_PAIRS)
        n = FC_CUDNN_VP_PAIRS;
    for (uint32_t i = 0; i < n; i++)
        if (v->uid[i] == uid)
            return v->ptr[i];
    return NULL;
}

/* A host scalar passed by value, as an integer; 0, or -1 when not one. */
static int read_scalar(const void *p, int dtype, int64_t *out)
{
    if (p == NULL)
        return -1;
    double f;
    switch (dtype) {
    case FC_CDATA_INT32: *out = *(const int32_t *)p; return 0;
    case FC_CDATA_INT64: *out = *(const int64_t *)p; return 0;
    case FC_CDATA_FLOAT: f = *(const float *)p; break;
    case FC_CDATA_DOUBLE: f = *(const double *)p; break;
    default: return -1;
    }
    if (!(f > -9.0e15 && f < 9.0e15) || f != (double)(int64_t)f)
        return -1; /* a window that is not a whole number of keys */
    *out = (int64_t)f;
    return 0;
}

/* The shape an execute overrides for uid: 1 with *t filled, 0 none. */
static int overridden(const fc_cvp *v, int64_t uid, fc_cten *t)
{
    uint32_t n = v->n_over < FC_CUDNN_VP_OVERRIDES ? v->n_over : FC_CUDNN_VP_OVERRIDES;
    for (uint32_t i = 0; i < n; i++) {
        if (v->over_uid[i] != uid)
            continue;
        int nd = v->over_nd[i];
        const int64_t *d = v->over_dims[i];
        int64_t lead = 1;
        for (int k = 0; k + 4 < nd; k++)
            if (__builtin_mul_overflow(lead, d[k], &lead))
                return 0;
        t->lead = lead;
        for (int k = 0; k < 4; k++)
            t->d[3 - k] = k < nd ? d[nd - 1 - k] : 1;
        t->nd = (uint8_t)nd;
        return 1;
    }
    return 0;
}

/* Dynamic shapes: the attention at the execute's shapes. */
static void attn_shapes(const fc_cwork *w, const fc_cvp *v, fc_attn *a)
{
    fc_cten q = w->q, k = w->k, val = w->v;
    (void)overridden(v, w->q.uid, &q);
    (void)overridden(v, w->k.uid, &k);
    (void)overridden(v, w->v.uid, &val);
    a->b = q.lead * q.d[0], a->h = q.d[1], a->s_q = q.d[2], a->d = q.d[3];
    a->h_k = k.d[1];
    a->s_k = w->k_trans ? k.d[3] : k.d[2];
    a->d_v = w->v_trans ? val.d[2] : val.d[3];
}

/* Dynamic shapes: a matmul at the execute's shapes (A [.., m, k], B
 * [.., k, n], the batch dimensions broadcast). */
static void gemm_shapes(const fc_cgemm *g, const fc_cvp *v, fc_gemm *out)
{
    fc_cten a = g->a, b = g->b;
    if (!overridden(v, g->a_uid, &a) && !overridden(v, g->b_uid, &b))
        return;
    out->m = a.d[2], out->k = a.d[3], out->n = b.d[3];
    int64_t b0 = a.d[0] > b.d[0] ? a.d[0] : b.d[0], b1 = a.d[1] > b.d[1] ? a.d[1] : b.d[1];
    out->batch = (a.lead > b.lead ? a.lead : b.lead) * b0 * b1;
    if (a.d[3] != b.d[2])
        out->m = out->n = out->k = out->batch = -1; /* counted as invalid */
}

/* Fills out for the plan entry p (lock held). */
static void exec_of(fc_cent *p, const fc_cvp *v, fc_cudnn_exec *out)
{
    fc_cwork *w = fc_ct_work(p->u.link.work);
    if (p->u.link.counted && (w == NULL || w->kind == FC_CW_UNCOUNTED)) {
        if (p->u.link.unc_gen != fc_ct_generation())
            plan_intern(p);
        out->unc_id = p->u.link.unc;
        return;
    }
    if (w == NULL || w->kind == FC_CW_UNCOUNTED) {
        out->unc_id = fixed(&c_unfinal, "cudnn plan: not finalized",
                            "executed before a successful finalize, its graph unknown");
        return;
    }
    int dynamic = (p->state & FC_CE_DYNAMIC) != 0;
    if (dynamic && v == NULL) {
        out->unc_id = fixed(&c_vp, "cudnn execute: variant pack not tracked",
                            "a dynamic-shape plan executed with a variant pack flopcount did not "
                            "see created (or its pool was full)");
        return;
    }
    if (dynamic && v->over_shapes == 2) {
        out->unc_id = fixed(&c_shapes, "cudnn execute: override shapes not readable",
                            "CUDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES was not the vector of shapes "
                            "cudnn-frontend passes");
        return;
    }
    if (w->kind == FC_CW_GEMM) {
        out->kind = FC_CUDNN_GEMMS;
        out->n_gemm = w->n_gemm;
        for (int j = 0; j < w->n_gemm; j++) {
            const fc_cgemm *g = &w->gemm[j];
            fc_gemm *o = &out->gemm[j];
            memset(o, 0, sizeof *o);
            o->api = FC_API_CUDNN_MATMUL;
            o->dtype = g->dtype, o->out_dtype = g->out_dtype;
            o->compute = -1;
            o->transa = o->transb = 'N';
            o->m = g->m, o->n = g->n, o->k = g->k, o->batch = g->batch;
            if (dynamic && v->over_shapes == 1)
                gemm_shapes(g, v, o);
            o->a = vp_ptr(v, g->a_uid), o->b = vp_ptr(v, g->b_uid), o->c = vp_ptr(v, g->c_uid);
        }
        return;
    }
    int scalars = 0;
    for (int k = 0; k < w->n_slot; k++)
        scalars |= w->slot[k].kind == FC_SLOT_SCALAR;
    if (!dynamic && !scalars) {
        out->attn = w->resolved;
    } else {
        int64_t val[FC_CUDNN_SLOTS] = {0};
        uint8_t ok[FC_CUDNN_SLOTS] = {0};
        for (int k = 0; k < w->n_slot; k++)
            if (w->slot[k].kind == FC_SLOT_SCALAR)
                ok[k] = read_scalar(vp_ptr(v, w->slot[k].uid), w->slot[k].dtype, &val[k]) == 0;
        out->attn = w->attn;
        if (dynamic && v->over_shapes == 1)
            attn_shapes(w, v, &out->attn);
        fc_cmask_resolve(w, val, ok, &out->attn);
    }
    if (!fc_attn_valid(&out->attn)) {
        out->unc_id = fixed(&c_shape_bad, "cudnn execute: attention shape not valid",
                            "the execute's shapes (overrides) do not make an attention problem");
        return;
    }
    out->kind = FC_CUDNN_ATTENTION;
}

void fc_cudnn_exec_of(const void *plan, const void *vp, fc_cudnn_exec *out)
{
    memset(out, 0, sizeof *out);
    out->kind = FC_CUDNN_UNCOUNTED;
    out->unc_id = FC_UNCOUNTED_NONE;
    fc_cent *p = NULL;
    if (fc_ct_ready() == 0) {
        fc_ct_lock();
        p = fc_ct_find(plan);
        if (p != NULL && p->type == FC_CD_EXECUTION_PLAN) {
            const fc_cent *ve = fc_ct_find(vp);
            const fc_cvp *v = ve != NULL && ve->type == FC_CD_VARIANT_PACK ? fc_ct_vp(ve->u.vpack.vp)
                                                                          : NULL;
            exec_of(p, v, out);
        } else {
            p = NULL;
        }
        fc_ct_unlock();
    }
    if (p == NULL)
        out->unc_id = fixed(&c_unseen, "cudnn plan: not seen created",
                            "an execution plan flopcount did not see created (made before it was "
                            "loaded, or the table was full)");
}

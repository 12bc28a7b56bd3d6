/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn.c - the cuDNN backend API hooks: cudnnBackendCreateDescriptor,
 * DestroyDescriptor, Initialize, SetAttribute, GetAttribute, Finalize,
 * Execute, PopulateCudaGraph and UpdateCudaGraph, as libcudnn.so.9 and
 * libcudnn_graph.so.9 both export them (linked calls, and lookups through
 * dlopen + dlsym: hooks/dlsym.c answers with these, as it does for
 * cuBLAS).
 *
 * Each hook forwards with the caller's arguments and returns the real
 * status with the real errno; after a successful call (before it, for a
 * destroy, whose address cuDNN may hand out again at once) it tells the
 * cuDNN layer (cudnn/cudnn_layer.h) what changed. libcudnn.so.9 reaches
 * libcudnn_graph.so.9 through dlsym, so one program call passes through
 * two of these hooks: only the outermost cuDNN call on the thread is
 * recorded (cudnn_depth). An execute counts what the plan's graph does -
 * one attention call (fc_attn_record), its matmul nodes as GEMMs (the
 * GEMM hooks' path), or a named uncounted reason - once, holding the GEMM
 * guard while cuDNN runs so that a cuBLASLt matmul (or a kernel launch the
 * launch layer decodes) inside is not counted again; an execute whose
 * plan is not counted leaves the guard down, so GEMMs cuDNN runs through
 * cuBLAS for it are counted as what they are. On a capturing stream the
 * work is recorded against the capture and counted at each launch of the
 * graph (cupti layer); a populated CUDA graph gets the plan's work the
 * same way. docs/cudnn.md. */
#include "core/diag.h"
#include "count/uncounted.h"
#include "cudnn/cudnn_abi.h"
#include "cudnn/cudnn_layer.h"
#include "hook.h"
#include "kernel_class.h"

typedef int (*create_fn)(int, void **);
typedef int (*desc_fn)(void *);
typedef int (*set_fn)(void *, int, int, int64_t, const void *);
typedef int (*get_fn)(void *, int, int, int64_t, int64_t *, void *);
typedef int (*exec_fn)(void *, void *, void *);
typedef int (*graph_fn)(void *, void *, void *, void *);
typedef int (*stream_fn)(void *, void **);

/* cuDNN backend calls in progress on this thread. */
static FC_TLS int cudnn_depth;

#define MISSING return FC_CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED

/* The head of every hook: the real function of copy cp (nested calls go
 * to the copy the outer call is in), and whether this is the outermost. */
#define CUDNN_BEGIN(type, sym, SYM)                                                          \
    FC_COPY_REAL_OR(cp, type, sym, SYM, MISSING);                                            \
    int outer = cudnn_depth++ == 0;                                                          \
    FC_COPY_NESTED(cp, outer, type, sym, SYM);                                               \
    fc_copy *prev_copy = fc_copy_enter(cp)

#define CUDNN_END()                                                                          \
    fc_copy_leave(cp, prev_copy);                                                            \
    cudnn_depth--

/* After the real call: the layer is told only of the outermost successful
 * call, and errno stays the real call's. */
#define RECORD(st, what)                                                                     \
    do {                                                                                     \
        if (outer && (st) == FC_CUDNN_STATUS_SUCCESS && FC_LIKELY(fc_is_enabled())) {        \
            int saved_ = errno;                                                              \
            what;                                                                            \
            errno = saved_;                                                                  \
        }                                                                                    \
    } while (0)

FC_HOOK_BODY(int, cudnnBackendCreateDescriptor, (int type, void **desc))
{
    CUDNN_BEGIN(create_fn, cudnnBackendCreateDescriptor, FC_SYM_CUDNN_CREATE);
    int st = fn_cudnnBackendCreateDescriptor(type, desc);
    CUDNN_END();
    RECORD(st, if (desc != NULL) fc_cudnn_created(*desc, type));
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendCreateDescriptor, FC_LIB_CUDNN, FC_SYM_CUDNN_CREATE,
               (int type, void **desc), (type, desc))

FC_HOOK_BODY(int, cudnnBackendDestroyDescriptor, (void *desc))
{
    CUDNN_BEGIN(desc_fn, cudnnBackendDestroyDescriptor, FC_SYM_CUDNN_DESTROY);
    RECORD(FC_CUDNN_STATUS_SUCCESS, fc_cudnn_destroying(desc));
    int st = fn_cudnnBackendDestroyDescriptor(desc);
    CUDNN_END();
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendDestroyDescriptor, FC_LIB_CUDNN, FC_SYM_CUDNN_DESTROY,
               (void *desc), (desc))

FC_HOOK_BODY(int, cudnnBackendInitialize, (void *desc))
{
    CUDNN_BEGIN(desc_fn, cudnnBackendInitialize, FC_SYM_CUDNN_INITIALIZE);
    int st = fn_cudnnBackendInitialize(desc);
    CUDNN_END();
    RECORD(st, fc_cudnn_reinitialized(desc));
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendInitialize, FC_LIB_CUDNN, FC_SYM_CUDNN_INITIALIZE,
               (void *desc), (desc))

#define SET_PARAMS (void *desc, int attr, int atype, int64_t count, const void *elems)
FC_HOOK_BODY(int, cudnnBackendSetAttribute, SET_PARAMS)
{
    CUDNN_BEGIN(set_fn, cudnnBackendSetAttribute, FC_SYM_CUDNN_SET);
    int st = fn_cudnnBackendSetAttribute(desc, attr, atype, count, elems);
    CUDNN_END();
    RECORD(st, fc_cudnn_set(desc, attr, atype, count, elems));
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendSetAttribute, FC_LIB_CUDNN, FC_SYM_CUDNN_SET, SET_PARAMS,
               (desc, attr, atype, count, elems))

#define GET_PARAMS                                                                           \
    (void *desc, int attr, int atype, int64_t requested, int64_t *count, void *elems)
FC_HOOK_BODY(int, cudnnBackendGetAttribute, GET_PARAMS)
{
    CUDNN_BEGIN(get_fn, cudnnBackendGetAttribute, FC_SYM_CUDNN_GET);
    int st = fn_cudnnBackendGetAttribute(desc, attr, atype, requested, count, elems);
    CUDNN_END();
    /* only what fills descriptors matters: heuristics' engine configs and
     * the chain from a plan to its graph */
    if (atype == FC_CT_BACKEND_DESCRIPTOR && count != NULL && elems != NULL)
        RECORD(st, fc_cudnn_got(desc, attr, atype, requested, *count, elems));
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendGetAttribute, FC_LIB_CUDNN, FC_SYM_CUDNN_GET, GET_PARAMS,
               (desc, attr, atype, requested, count, elems))

FC_HOOK_BODY(int, cudnnBackendFinalize, (void *desc))
{
    CUDNN_BEGIN(desc_fn, cudnnBackendFinalize, FC_SYM_CUDNN_FINALIZE);
    int st = fn_cudnnBackendFinalize(desc);
    CUDNN_END();
    RECORD(st, fc_cudnn_finalized(desc));
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendFinalize, FC_LIB_CUDNN, FC_SYM_CUDNN_FINALIZE,
               (void *desc), (desc))

/* The stream of a cuDNN handle (cudnnGetStream of the same copy), for GPU
 * timing and capture; NULL when it cannot be had. */
static void *stream_of(fc_copy *cp, void *handle)
{
    if (handle == NULL)
        return NULL;
    FC_COPY_REAL(cp, stream_fn, cudnnGetStream, FC_SYM_CUDNN_GET_STREAM);
    void *s = NULL;
    if (fn_cudnnGetStream == NULL || fn_cudnnGetStream(handle, &s) != FC_CUDNN_STATUS_SUCCESS)
        return NULL;
    return s;
}

/* Counts one execute (or populate) of a plan as x says; ok: the real
 * call succeeded. GEMMs go the GEMM hooks' way (a capture diverts them). */
static void count_gemms(int guard, fc_cudnn_exec *x, void *stream, int ok)
{
    for (int j = 0; j < x->n_gemm; j++) {
        fc_gemm *g = &x->gemm[j];
        g->stream_handle = stream;
        g->stream_kind = stream != NULL ? FC_STREAM_DIRECT : FC_STREAM_NONE;
        if (!fc_hook_diverted_gpu(guard, g, ok) && (guard & 1))
            fc_ring_count(g, ok);
    }
}

FC_HOOK_BODY(int, cudnnBackendExecute, (void *handle, void *plan, void *vp))
{
    CUDNN_BEGIN(exec_fn, cudnnBackendExecute, FC_SYM_CUDNN_EXECUTE);
    if (!outer || FC_UNLIKELY(!fc_is_enabled()) || fc_tls_depth != 0) {
        int st = fn_cudnnBackendExecute(handle, plan, vp);
        CUDNN_END();
        return st;
    }
    int saved = errno;
    fc_cudnn_exec x;
    fc_cudnn_exec_of(plan, vp, &x);
    void *stream = stream_of(cp, handle);
    errno = saved;
    int st, ok;
    if (x.kind == FC_CUDNN_GEMMS) {
        int guard = fc_hook_begin_gpu();
        st = fn_cudnnBackendExecute(handle, plan, vp);
        saved = errno;
        count_gemms(guard, &x, stream, st == FC_CUDNN_STATUS_SUCCESS);
        fc_leave();
    } else if (x.kind == FC_CUDNN_ATTENTION) {
        int guard = fc_enter();
        st = fn_cudnnBackendExecute(handle, plan, vp);
        saved = errno;
        fc_leave();
        ok = st == FC_CUDNN_STATUS_SUCCESS;
        /* on a capturing stream: counted at each launch of the graph */
        if (guard && !(ok && fc_cupti_launch_captured(FC_CUPTI_ITEM_ATTN, &x.attn, 0, stream)))
            (void)fc_attn_record(&x.attn, stream, ok);
    } else {
        st = fn_cudnnBackendExecute(handle, plan, vp);
        saved = errno;
        ok = st == FC_CUDNN_STATUS_SUCCESS;
        if (!(ok && fc_cupti_launch_captured(FC_CUPTI_ITEM_UNCOUNTED, NULL, x.unc_id, stream)))
            fc_uncounted_count(x.unc_id, ok);
    }
    CUDNN_END();
    errno = saved;
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendExecute, FC_LIB_CUDNN, FC_SYM_CUDNN_EXECUTE,
               (void *handle, void *plan, void *vp), (handle, plan, vp))

/* A plan's kernels put into a CUDA graph: its work goes to the graph
 * (cupti/cupti_layer.h), counted at each launch of an exec made from it.
 * Where the cupti layer does not follow graphs (CUPTI off, a graph it
 * never saw), the populate is named, not counted - one name for attention
 * plans, one for matmul plans. */
static uint32_t populate_id(int kind)
{
    static uint32_t id1[2];
    int attn = kind == FC_CUDNN_ATTENTION;
    uint32_t id = __atomic_load_n(&id1[attn], __ATOMIC_RELAXED);
    if (id == 0) {
        id = fc_uncounted_intern(attn ? "cudnnBackendPopulateCudaGraph: attention"
                                      : "cudnnBackendPopulateCudaGraph: matmul",
                                 attn ? FC_K_ATTENTION : FC_K_GEMM_LIKE, FC_UNC_GRAPH,
                                 "a plan's kernels put into a CUDA graph flopcount does not follow "
                                 "(CUPTI off, or a graph it did not see made): its launches are not "
                                 "counted") +
             1;
        __atomic_store_n(&id1[attn], id, __ATOMIC_RELAXED);
    }
    return id - 1;
}

/* The work of plan x into graph; 0, or -1 when (some of) it could not go. */
static int populate(fc_cudnn_exec *x, void *graph)
{
    if (x->kind == FC_CUDNN_ATTENTION)
        return fc_graphs_add_attn(graph, &x->attn);
    int rc = 0;
    for (int j = 0; j < x->n_gemm; j++)
        rc |= fc_graphs_add_gemm(graph, &x->gemm[j]);
    return rc;
}

#define GRAPH_PARAMS (void *handle, void *plan, void *vp, void *graph)
FC_HOOK_BODY(int, cudnnBackendPopulateCudaGraph, GRAPH_PARAMS)
{
    CUDNN_BEGIN(graph_fn, cudnnBackendPopulateCudaGraph, FC_SYM_CUDNN_POPULATE);
    int st = fn_cudnnBackendPopulateCudaGraph(handle, plan, vp, graph);
    CUDNN_END();
    if (outer && FC_LIKELY(fc_is_enabled()) && fc_tls_depth == 0) {
        int saved = errno, ok = st == FC_CUDNN_STATUS_SUCCESS;
        fc_cudnn_exec x;
        fc_cudnn_exec_of(plan, vp, &x);
        if (x.kind == FC_CUDNN_UNCOUNTED)
            fc_uncounted_count(x.unc_id, ok);
        else if (!ok || populate(&x, graph) != 0)
            fc_uncounted_count(populate_id(x.kind), ok);
        errno = saved;
    }
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendPopulateCudaGraph, FC_LIB_CUDNN, FC_SYM_CUDNN_POPULATE,
               GRAPH_PARAMS, (handle, plan, vp, graph))

/* Updating a populated graph's nodes (new data pointers for the same
 * plan) changes no FLOPs: forwarded only. */
FC_HOOK_BODY(int, cudnnBackendUpdateCudaGraph, GRAPH_PARAMS)
{
    CUDNN_BEGIN(graph_fn, cudnnBackendUpdateCudaGraph, FC_SYM_CUDNN_UPDATE);
    (void)outer;
    int st = fn_cudnnBackendUpdateCudaGraph(handle, plan, vp, graph);
    CUDNN_END();
    return st;
}
FC_HOOK_DEFINE(int, return, cudnnBackendUpdateCudaGraph, FC_LIB_CUDNN, FC_SYM_CUDNN_UPDATE,
               GRAPH_PARAMS, (handle, plan, vp, graph))

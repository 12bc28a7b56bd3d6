/* SPDX-License-Identifier: Apache-2.0 */
/* capture.c - stream capture: cuStreamBeginCapture* / EndCapture /
 * IsCapturing / GetCaptureInfo, and the recorders that copy.c, stream.c and
 * launch.c call instead of doing work while a stream is captured. Captured
 * work forms a chain: each node depends on the one captured before it. */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

static unsigned long long next_capture_id = 1;

/* ---- recording from a capturing stream ---- */
CUresult ng_capture_kernel(ng_capture *cap, const CUDA_KERNEL_NODE_PARAMS *p)
{
    struct CUgraphNode_st *n = ng_graph_add(cap->graph, NG_OP_KERNEL);
    if (n == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->kernel = *p;
    n->kernel.kernelParams = NULL;
    n->kernel.extra = NULL;
    return CUDA_SUCCESS;
}

CUresult ng_capture_memcpy(ng_capture *cap, void *dst, const void *src, size_t bytes)
{
    struct CUgraphNode_st *n = ng_graph_add(cap->graph, NG_OP_MEMCPY);
    if (n == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->dst = dst;
    n->src = src;
    n->bytes = bytes;
    return CUDA_SUCCESS;
}

CUresult ng_capture_memset(ng_capture *cap, void *dst, unsigned value, unsigned elem, size_t width,
                           size_t height, size_t pitch)
{
    struct CUgraphNode_st *n = ng_graph_add(cap->graph, NG_OP_MEMSET);
    if (n == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->dst = dst;
    n->value = value;
    n->elem = elem;
    n->width = width;
    n->height = height;
    n->pitch = pitch;
    return CUDA_SUCCESS;
}

CUresult ng_capture_host(ng_capture *cap, CUhostFn fn, void *data)
{
    struct CUgraphNode_st *n = ng_graph_add(cap->graph, NG_OP_HOST);
    if (n == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->fn = fn;
    n->data = data;
    return CUDA_SUCCESS;
}

CUresult ng_capture_simple(ng_capture *cap, ng_node_op op)
{
    return ng_graph_add(cap->graph, op) != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* ---- capture ---- */
static __thread CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

NG_EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    if (mode == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUstreamCaptureMode old = thread_mode;
    thread_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}

static CUresult begin_capture(CUstream s, ng_graph *into, CUstreamCaptureMode mode)
{
    NG_CHECK_INIT();
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD || s->magic != NG_STREAM_MAGIC)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (ng_stream_capture(s) != NULL)
        return CUDA_ERROR_ILLEGAL_STATE;
    ng_capture *cap = calloc(1, sizeof *cap);
    if (cap == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    cap->graph = into != NULL ? into : ng_graph_new();
    if (cap->graph == NULL) {
        free(cap);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    cap->id = __atomic_fetch_add(&next_capture_id, 1, __ATOMIC_RELAXED);
    cap->mode = (int)mode;
    s->capture = cap;
    s->capture_origin = 1;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
    return begin_capture(s, NULL, mode);
}

NG_EXPORT CUresult cuStreamBeginCapture(CUstream s)
{
    return begin_capture(s, NULL, CU_STREAM_CAPTURE_MODE_GLOBAL);
}

NG_EXPORT CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode *deps,
                                               const CUgraphEdgeData *data, size_t ndeps,
                                               CUstreamCaptureMode mode)
{
    (void)deps;
    (void)data;
    (void)ndeps;
    ng_graph *graph = ng_graph_of(g);
    if (graph == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    return begin_capture(s, graph, mode);
}

NG_EXPORT CUresult cuStreamEndCapture(CUstream s, CUgraph *pg)
{
    NG_CHECK_INIT();
    if (pg == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!ng_stream_valid(s) || s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return CUDA_ERROR_ILLEGAL_STATE;
    ng_capture *cap = ng_stream_capture(s);
    if (cap == NULL)
        return CUDA_ERROR_ILLEGAL_STATE;
    if (!s->capture_origin)
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    *pg = (CUgraph)cap->graph;
    /* Every stream that joined reads the end lazily; the capture record stays
     * allocated for them (a few bytes per capture). */
    __atomic_store_n(&cap->ended, 1, __ATOMIC_RELEASE);
    s->capture = NULL;
    s->capture_origin = 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status)
{
    NG_CHECK_INIT();
    if (status == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    *status = ng_stream_capture(s) != NULL ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

/* The last node captured: the dependency set of the next one. */
static __thread CUgraphNode last_node;

NG_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream s, CUstreamCaptureStatus *status,
                                             cuuint64_t *id, CUgraph *graph,
                                             const CUgraphNode **deps, const CUgraphEdgeData **edges,
                                             size_t *ndeps)
{
    NG_CHECK_INIT();
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    ng_capture *cap = ng_stream_capture(s);
    if (status != NULL)
        *status = cap != NULL ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    if (cap == NULL)
        return CUDA_SUCCESS;
    if (id != NULL)
        *id = cap->id;
    if (graph != NULL)
        *graph = (CUgraph)cap->graph;
    last_node = cap->graph->n > 0 ? cap->graph->nodes[cap->graph->n - 1] : NULL;
    if (deps != NULL)
        *deps = &last_node;
    if (edges != NULL)
        *edges = NULL;
    if (ndeps != NULL)
        *ndeps = last_node != NULL;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream s, CUstreamCaptureStatus *status, cuuint64_t *id,
                                             CUgraph *graph, const CUgraphNode **deps, size_t *ndeps)
{
    return cuStreamGetCaptureInfo_v3(s, status, id, graph, deps, NULL, ndeps);
}

NG_EXPORT CUresult cuStreamGetCaptureInfo(CUstream s, CUstreamCaptureStatus *status, cuuint64_t *id)
{
    return cuStreamGetCaptureInfo_v3(s, status, id, NULL, NULL, NULL, NULL);
}

NG_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2(CUstream s, CUgraphNode *deps,
                                                        const CUgraphEdgeData *data, size_t n,
                                                        unsigned flags)
{
    (void)deps;
    (void)data;
    (void)n;
    (void)flags;
    NG_CHECK_INIT();
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    return ng_stream_capture(s) != NULL ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_STATE;
}

NG_EXPORT CUresult cuStreamUpdateCaptureDependencies(CUstream s, CUgraphNode *deps, size_t n, unsigned flags)
{
    return cuStreamUpdateCaptureDependencies_v2(s, deps, NULL, n, flags);
}


/* SPDX-License-Identifier: Apache-2.0 */
/* calls.c - what the hooks above the layer ask of it around one call:
 * a cuBLAS/cuBLASLt GEMM (fc_cupti_call_begin/end), the CUDA runtime's
 * stream-capture calls (fc_cupti_runtime_capture_before/after).
 *
 * Around a GEMM, on the calling thread: CUPTI looked for at the first one
 * (loader.c); the stamp and external correlation id for kernel timing
 * (pushed before forwarding, popped after: activity.c); the graph nodes a
 * capture adds during the call collected (capture.c); and after the call,
 * a GEMM issued on a capturing stream recorded against its capture instead
 * of counted (graphs.c). The top sub-layer of the layer (tests/layers):
 * nothing in it calls this file. */
#include "core/base.h"
#include "core/clock.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti_internal.h"
#include "detect/irec.h"
#include "graph_items.h"

typedef struct call_state {
    uint64_t t; /* stamp taken before forwarding (kernel timing), 0 none */
    int pushed; /* an external correlation id is on CUPTI's stack */
    int check;  /* CUPTI came up inside this call: ask about its stream anyway */
} call_state;

static FC_TLS call_state cs;

void fc_cupti_call_begin(void)
{
    unsigned hot = fc_cupti_hot_get();
    cs.check = 0;
    if (hot & FC_CUPTI_PROBE) {
        /* a capture may have begun before CUPTI listened: this call asks
         * (the flag stays up until its end, so that the end runs) */
        cs.check = fc_cupti_probe();
        if (cs.check)
            fc_cupti_hot_set(FC_CUPTI_CAPTURE, 1);
        hot = fc_cupti_hot_get();
    }
    cs.pushed = 0;
    cs.t = 0;
    if (hot & FC_CUPTI_KERNELS) {
        cs.t = fc_ticks();
        fc_activity_push(cs.t);
        cs.pushed = 1;
    }
    fc_capture_collect((hot & FC_CUPTI_CAPTURE) || cs.check);
}

typedef int (*get_stream_fn)(const void *handle, void **stream);

/* The stream a described GEMM was queued on (cuBLAS handle -> stream). */
static CUstream stream_of(const fc_gemm *g)
{
    if (g->stream_kind == FC_STREAM_DIRECT)
        return (CUstream)(uintptr_t)g->stream_handle;
    if (g->stream_kind != FC_STREAM_CUBLAS_HANDLE || g->stream_handle == NULL)
        return NULL; /* the legacy default stream */
    static get_stream_fn get;
    get_stream_fn fn = __atomic_load_n(&get, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = (get_stream_fn)fc_resolve(FC_LIB_CUBLAS, "cublasGetStream_v2");
        __atomic_store_n(&get, fn, __ATOMIC_RELEASE);
    }
    void *s = NULL;
    if (fn == NULL || fn(g->stream_handle, &s) != 0)
        return NULL;
    return (CUstream)s;
}

int fc_cupti_call_end(fc_gemm *g, int ok)
{
    if (FC_UNLIKELY(fc_hwflops_wanted()) && ok && fc_cupti_on())
        fc_hwflops_start(g->dtype); /* once: the first GEMM's dtype is tried first */
    if (cs.pushed) {
        fc_activity_pop();
        cs.pushed = 0;
        g->t = cs.t;
        if (ok)
            fc_activity_note_call(cs.t, fc_site_key(g));
    }
    int diverted = 0;
    if (ok && ((fc_cupti_hot_get() & FC_CUPTI_CAPTURE) || cs.check)) {
        const uint64_t *nodes;
        int n = fc_capture_nodes(&nodes);
        diverted = fc_graphs_divert(g, stream_of(g), nodes, n);
        fc_capture_nodes_taken(); /* a grouped call's nodes go with its first group */
        if (cs.check)
            fc_capture_settle(diverted);
        cs.check = 0;
    }
    fc_capture_collect(0);
    return diverted;
}

/* 1 when the runtime hooks keep the count (CUPTI's callbacks do not). */
static int runtime_counts(void)
{
    if (!fc_is_enabled() || fc_cupti_forked())
        return 0;
    return fc_capture_runtime_counts();
}

void fc_cupti_runtime_capture_before(int begin, void *stream)
{
    if (begin && (fc_cupti_hot_get() & FC_CUPTI_PROBE))
        fc_cupti_probe();
    if (!begin && runtime_counts())
        fc_graphs_capture_end_enter((CUstream)stream);
}

void fc_cupti_runtime_capture_after(int begin, int ok, void *stream, void *graph)
{
    if (!runtime_counts())
        return; /* CUPTI's callbacks saw this call themselves */
    if (begin) {
        if (!ok)
            return;
        fc_capture_began(0);
        fc_graphs_capture_begin((CUstream)stream, (CUgraph)graph);
    } else {
        /* the list becomes the graph's, keyed by its handle; the runtime's
         * graph calls (fc_cupti_runtime_graph) replay it */
        fc_graphs_capture_end_exit(ok ? (CUgraph)graph : NULL, ok);
        fc_capture_ended(0);
    }
}

/* The runtime's graph calls are followed when CUPTI's callbacks are not on
 * (they see the driver calls underneath, every runtime's included). */
static int runtime_follows_graphs(void)
{
    if (!fc_is_enabled() || fc_cupti_forked())
        return 0;
    if (fc_cupti_hot_get() & FC_CUPTI_PROBE)
        fc_cupti_probe();
    return !fc_cupti_on();
}

void fc_cupti_runtime_graph(int op, void *a, void *b, void *stream)
{
    if (!runtime_follows_graphs())
        return;
    fc_graphs_runtime_seen();
    switch (op) {
    case FC_RTG_INSTANTIATE:
        fc_graphs_exec_created((CUgraphExec)a, (CUgraph)b);
        break;
    case FC_RTG_LAUNCH:
        fc_graphs_launch_exit((CUgraphExec)a, (CUstream)stream, 1);
        break;
    case FC_RTG_UPDATE:
        fc_graphs_exec_updated((CUgraphExec)a, (CUgraph)b);
        break;
    case FC_RTG_EXEC_DESTROY:
        fc_graphs_exec_destroyed((CUgraphExec)a);
        break;
    case FC_RTG_DESTROY:
        fc_graphs_destroyed((CUgraph)a);
        break;
    case FC_RTG_CLONE:
        fc_graphs_cloned((CUgraph)a, (CUgraph)b);
        break;
    default:
        break;
    }
}

static int item_kind(int kind)
{
    return kind == FC_CUPTI_ITEM_ATTN        ? FC_GI_ATTN
           : kind == FC_CUPTI_ITEM_UNCOUNTED ? FC_GI_UNCOUNTED
                                             : FC_GI_MARK;
}

int fc_cupti_launch_captured(int kind, const fc_attn *a, uint32_t id, void *stream)
{
    unsigned hot = fc_cupti_hot_get();
    int check = 0;
    if (FC_UNLIKELY(hot & FC_CUPTI_PROBE)) {
        /* after the launch was forwarded, so the runtime has loaded the
         * driver; a capture may have begun before CUPTI listened */
        check = fc_cupti_probe();
        hot = fc_cupti_hot_get();
    }
    if (FC_LIKELY(!(hot & FC_CUPTI_CAPTURE) && !check))
        return 0;
    int diverted = fc_graphs_divert_other(item_kind(kind), a, id, (CUstream)stream);
    if (check)
        fc_capture_settle(diverted);
    return diverted;
}

/* The shared CUDA runtime is in the process (asked without loading it). */
static int shared_runtime_loaded(void)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (fc_resolve_loaded_lib(names[i]) != NULL)
            return 1;
    return 0;
}

/* Graphs are followed when CUPTI is on (its callbacks see the
 * instantiations and launches) or, without it, when the process has the
 * shared CUDA runtime, whose graph calls are hooked (hooks/graphs_rt.c);
 * CUPTI looked for first if need be. */
static int graphs_followed(void)
{
    if (!fc_is_enabled() || fc_cupti_forked())
        return 0;
    if (fc_cupti_hot_get() & FC_CUPTI_PROBE)
        fc_cupti_probe();
    return fc_cupti_on() || shared_runtime_loaded();
}

int fc_graphs_add_attn(void *cugraph, const fc_attn *a)
{
    if (!graphs_followed())
        return -1;
    return fc_graphs_add(cugraph, FC_GI_ATTN, NULL, a);
}

int fc_graphs_add_gemm(void *cugraph, const fc_gemm *g)
{
    if (!graphs_followed())
        return -1;
    return fc_graphs_add(cugraph, FC_GI_GEMM, g, NULL);
}

void fc_cupti_injected(void)
{
    if (fc_cupti_hot_get() & FC_CUPTI_PROBE)
        fc_cupti_probe();
}

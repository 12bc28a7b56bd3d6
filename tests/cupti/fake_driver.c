/* SPDX-License-Identifier: Apache-2.0 */
/* fake_driver.c - a stand-in libcuda.so.1 for the cupti tests (fake_gpu.h).
 *
 * Streams are whatever pointers the program uses. A capture gives the
 * stream (and streams that join it) a capture id and a graph; a kernel
 * launched on a capturing stream becomes a node of that graph
 * (GRAPHNODE_CREATED), otherwise it runs on the GPU clock. Instantiation
 * and cloning copy nodes (GRAPHNODE_CLONED each, then GRAPHEXEC_CREATED /
 * GRAPH_CLONED); a launch runs the exec's kernels one after another on
 * the launch stream, every one with the launch's correlation id, its node
 * id and the exec's id, as CUPTI reports graph kernels. Every entry point
 * the shim's callbacks watch calls the attached CUPTI at entry and exit
 * with the parameter structs of generated_cuda_meta.h. Single-threaded
 * use per object; a lock makes concurrent launches safe. */
#include <cupti.h> /* with the parameter structs of generated_cuda_meta.h */

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"

/* cuda.h maps these names to versioned entry points; the fake defines
 * the plain exported names the real driver has too. */
#undef cuStreamGetCaptureInfo
#undef cuStreamBeginCapture
#undef cuStreamEndCapture
#undef cuStreamIsCapturing
#undef cuGraphLaunch
#undef cuGraphExecUpdate
#undef cuGraphInstantiate
#undef cuStreamBeginCaptureToGraph

#define MAX_NODES 512
#define MAX_STREAMS 64
#define GOOD 0x6a7b8c9du

struct fake_node {
    unsigned magic;
    uint64_t id;
    char name[96];
    uint64_t ns;
};

struct fake_graph {
    unsigned magic;
    uint32_t id;
    int n;
    struct fake_node *node[MAX_NODES];
};

struct fake_exec {
    unsigned magic;
    uint32_t id;
    struct fake_graph g; /* the exec's own nodes */
};

typedef struct stream_state {
    CUstream s;
    uint32_t num;     /* CUPTI stream id */
    uint64_t capture; /* 0 none */
    struct fake_graph *graph;
    uint64_t end; /* end of its last kernel */
} stream_state;

static const fake_cupti_ops *cupti;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static stream_state streams[MAX_STREAMS];
static uint64_t gpu_now = 1000000, last_start, next_capture = 100, next_node = 1;
static uint32_t next_graph = 1, next_exec = 1;
static FILE *klog;

void fake_cuda_attach_cupti(const fake_cupti_ops *ops)
{
    cupti = ops;
}

uint32_t fake_cuda_graph_id(CUgraph g)
{
    struct fake_graph *x = (struct fake_graph *)g;
    return x && x->magic == GOOD ? x->id : 0;
}

uint32_t fake_cuda_exec_id(CUgraphExec e)
{
    struct fake_exec *x = (struct fake_exec *)e;
    return x && x->magic == GOOD ? x->id : 0;
}

uint64_t fake_cuda_node_id(CUgraphNode n)
{
    struct fake_node *x = (struct fake_node *)n;
    return x && x->magic == GOOD ? x->id : 0;
}

static stream_state *st(CUstream s)
{
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].num != 0 && streams[i].s == s)
            return &streams[i];
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].num == 0) {
            streams[i].s = s;
            streams[i].num = (uint32_t)i + 1;
            return &streams[i];
        }
    abort();
}

static uint32_t corr(void)
{
    return cupti ? cupti->api_call() : 0;
}

static void api(CUpti_CallbackId cbid, int site, const char *name, const void *params,
                const CUresult *rc, uint32_t c)
{
    if (cupti)
        cupti->api(cbid, site, name, params, rc, c);
}

static void resource(CUpti_CallbackId cbid, CUgraph g, CUgraph og, CUgraphNode n, CUgraphNode on,
                     CUgraphExec x)
{
    if (cupti == NULL)
        return;
    CUpti_GraphData d;
    memset(&d, 0, sizeof d);
    d.graph = g;
    d.originalGraph = og;
    d.node = n;
    d.originalNode = on;
    d.nodeType = CU_GRAPH_NODE_TYPE_KERNEL;
    d.graphExec = x;
    cupti->resource(cbid, &d);
}

static FILE *log_file(void)
{
    if (klog == NULL && getenv("FAKE_CUDA_KERNEL_LOG") != NULL)
        klog = fopen(getenv("FAKE_CUDA_KERNEL_LOG"), "w");
    return klog;
}

void fake_cuda_log_mark(const char *what)
{
    pthread_mutex_lock(&mu);
    if (log_file() != NULL) {
        fprintf(klog, "# %s\n", what);
        fflush(klog);
    }
    pthread_mutex_unlock(&mu);
}

/* Runs one kernel on s (lock held). */
static void run(stream_state *s, const char *name, uint64_t ns, uint32_t c, uint64_t node,
                uint32_t graph)
{
    uint64_t start = gpu_now > s->end ? gpu_now : s->end;
    s->end = start + ns;
    last_start = start;
    if (log_file() != NULL) {
        fprintf(klog, "%s %u %llu %llu %llu\n", name, s->num, (unsigned long long)start,
                (unsigned long long)s->end, (unsigned long long)node);
        fflush(klog);
    }
    if (cupti)
        cupti->kernel(name, start, s->end, s->num, c, node, graph);
}

static struct fake_node *node_new(const char *name, uint64_t ns)
{
    struct fake_node *n = calloc(1, sizeof *n);
    n->magic = GOOD;
    n->id = next_node++;
    snprintf(n->name, sizeof n->name, "%s", name);
    n->ns = ns;
    return n;
}

void fake_cuda_launch(CUstream s, const char *name, uint64_t ns)
{
    uint32_t c = corr();
    pthread_mutex_lock(&mu);
    stream_state *x = st(s);
    if (x->capture != 0) {
        struct fake_graph *g = x->graph;
        struct fake_node *n = node_new(name, ns);
        if (g->n < MAX_NODES)
            g->node[g->n++] = n;
        pthread_mutex_unlock(&mu);
        resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, (CUgraph)g, NULL, (CUgraphNode)n, NULL,
                 NULL);
        return;
    }
    run(x, name, ns, c, 0, 0);
    pthread_mutex_unlock(&mu);
}

void fake_cuda_gemm_kernel(void *stream, const char *name, double flops)
{
    const char *r = getenv("FAKE_FLOPS_PER_NS");
    double rate = r ? atof(r) : 1024.0;
    fake_cuda_launch((CUstream)stream, name, (uint64_t)(flops / rate));
}

void fake_cuda_advance(uint64_t ns)
{
    pthread_mutex_lock(&mu);
    uint64_t latest = gpu_now;
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].end > latest)
            latest = streams[i].end;
    gpu_now = latest + ns; /* idle for ns after all work */
    pthread_mutex_unlock(&mu);
}

uint64_t fake_cuda_now(void)
{
    return gpu_now;
}

uint64_t fake_cuda_last_start(void)
{
    return last_start;
}

void fake_cuda_stream_join(CUstream origin, CUstream other)
{
    pthread_mutex_lock(&mu);
    stream_state *o = st(origin), *x = st(other);
    x->capture = o->capture;
    x->graph = o->graph;
    pthread_mutex_unlock(&mu);
}

/* ---- the driver API ---- */

/* As the real driver does: CUDA_INJECTION64_PATH's library loaded and its
 * InitializeInjection called, once, in the first cuInit. */
CUresult cuInit(unsigned flags)
{
    (void)flags;
    static int injected;
    const char *path = getenv("CUDA_INJECTION64_PATH");
    if (!injected && path != NULL && *path != '\0') {
        injected = 1;
        void *h = dlopen(path, RTLD_NOW);
        int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
        if (init != NULL)
            init();
    }
    return CUDA_SUCCESS;
}

/* ---- kernel launches ---- */

struct fake_function {
    unsigned magic;
    char name[512];
};

CUfunction fake_cuda_function(const char *name)
{
    struct fake_function *f = calloc(1, sizeof *f);
    f->magic = GOOD;
    snprintf(f->name, sizeof f->name, "%s", name);
    return (CUfunction)f;
}

static const char *function_name(CUfunction f)
{
    struct fake_function *x = (struct fake_function *)f;
    return x && x->magic == GOOD ? x->name : "?";
}

static void launch(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const char *api,
                   const char *symbol, const void *params, const void *rc, int site, uint32_t c)
{
    if (cupti != NULL && cupti->launch != NULL)
        cupti->launch(dom, cbid, site, api, symbol, params, rc, c);
}

#undef cuLaunchKernel
#undef cuLaunchKernelEx
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, CUstream s, void **kp,
                        void **extra)
{
    cuLaunchKernel_params p = {f, gx, gy, gz, bx, by, bz, smem, s, kp, extra};
    uint32_t c = corr();
    const char *name = function_name(f);
    launch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, __func__, name, &p,
           NULL, CUPTI_API_ENTER, c);
    fake_cuda_launch(s, name, 1000);
    CUresult rc = CUDA_SUCCESS;
    launch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, __func__, name, &p,
           &rc, CUPTI_API_EXIT, c);
    return rc;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kp, void **extra)
{
    cuLaunchKernelEx_params p = {config, f, kp, extra};
    uint32_t c = corr();
    const char *name = function_name(f);
    launch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, __func__, name, &p,
           NULL, CUPTI_API_ENTER, c);
    fake_cuda_launch(config->hStream, name, 1000);
    CUresult rc = CUDA_SUCCESS;
    launch(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, __func__, name, &p,
           &rc, CUPTI_API_EXIT, c);
    return rc;
}

int fake_cuda_runtime_launch(int cbid, const void *func, const char *symbol, unsigned gx,
                             unsigned gy, unsigned gz, unsigned bx, void **args, void *stream)
{
    dim3 g = {gx, gy, gz}, b = {bx, 1, 1};
    cudaLaunchKernel_v7000_params p7 = {func, g, b, args, 0, (cudaStream_t)stream};
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = g;
    cfg.blockDim = b;
    cfg.stream = (cudaStream_t)stream;
    cudaLaunchKernelExC_v11060_params px = {&cfg, func, args};
    /* __cudaLaunchKernel_v13000: cudaLaunchKernel_v7000's fields, the
     * cudaKernel_t first */
    const void *params = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060
                             ? (const void *)&px
                             : (const void *)&p7;
    uint32_t c = corr();
    launch(CUPTI_CB_DOMAIN_RUNTIME_API, (CUpti_CallbackId)cbid, "cudaLaunchKernel", symbol, params,
           NULL, CUPTI_API_ENTER, c);
    fake_cuda_launch((CUstream)stream, symbol, 1000);
    cudaError_t rc = cudaSuccess;
    launch(CUPTI_CB_DOMAIN_RUNTIME_API, (CUpti_CallbackId)cbid, "cudaLaunchKernel", symbol, params,
           &rc, CUPTI_API_EXIT, c);
    return (int)rc;
}

CUresult cuDriverGetVersion(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *c)
{
    *c = (CUcontext)(uintptr_t)0xc0ffee;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *d)
{
    *d = 0;
    return CUDA_SUCCESS;
}

/* The CUDA 10.1 ABI: status and capture id. */
CUresult cuStreamGetCaptureInfo(CUstream s, CUstreamCaptureStatus *status, cuuint64_t *id)
{
    pthread_mutex_lock(&mu);
    stream_state *x = st(s);
    *status = x->capture ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    if (id != NULL)
        *id = x->capture;
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status)
{
    return cuStreamGetCaptureInfo(s, status, NULL);
}

static struct fake_graph *graph_new(void)
{
    struct fake_graph *g = calloc(1, sizeof *g);
    g->magic = GOOD;
    g->id = next_graph++;
    return g;
}

static CUresult begin(CUstream s, CUgraph into)
{
    pthread_mutex_lock(&mu);
    stream_state *x = st(s);
    if (x->capture != 0) {
        pthread_mutex_unlock(&mu);
        return CUDA_ERROR_ILLEGAL_STATE;
    }
    x->capture = next_capture++;
    x->graph = into ? (struct fake_graph *)into : graph_new();
    pthread_mutex_unlock(&mu);
    return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
    cuStreamBeginCapture_v2_params p = {s, mode};
    uint32_t c = corr();
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUPTI_API_ENTER, __func__, &p, NULL, c);
    CUresult rc = begin(s, NULL);
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, CUPTI_API_EXIT, __func__, &p, &rc, c);
    return rc;
}

CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode *deps,
                                     const CUgraphEdgeData *edges, size_t n,
                                     CUstreamCaptureMode mode)
{
    cuStreamBeginCaptureToGraph_params p = {s, g, deps, edges, n, mode};
    uint32_t c = corr();
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_API_ENTER, __func__, &p, NULL,
        c);
    CUresult rc = begin(s, g);
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_API_EXIT, __func__, &p, &rc, c);
    return rc;
}

CUresult cuStreamEndCapture(CUstream s, CUgraph *out)
{
    cuStreamEndCapture_params p = {s, out};
    uint32_t c = corr();
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, CUPTI_API_ENTER, __func__, &p, NULL, c);
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&mu);
    stream_state *x = st(s);
    if (x->capture == 0) {
        rc = CUDA_ERROR_ILLEGAL_STATE;
    } else {
        *out = (CUgraph)x->graph;
        uint64_t id = x->capture;
        for (int i = 0; i < MAX_STREAMS; i++) /* joined streams end with it */
            if (streams[i].capture == id) {
                streams[i].capture = 0;
                streams[i].graph = NULL;
            }
    }
    pthread_mutex_unlock(&mu);
    api(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, CUPTI_API_EXIT, __func__, &p, &rc, c);
    return rc;
}

/* Copies g's nodes into dst, one GRAPHNODE_CLONED each. */
static void copy_nodes(struct fake_graph *dst, const struct fake_graph *g, CUgraph cb_graph)
{
    for (int i = 0; i < g->n; i++) {
        struct fake_node *n = node_new(g->node[i]->name, g->node[i]->ns);
        dst->node[dst->n++] = n;
        resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, cb_graph, NULL, (CUgraphNode)n,
                 (CUgraphNode)g->node[i], NULL);
    }
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph graph, unsigned long long flags)
{
    (void)flags;
    struct fake_graph *g = (struct fake_graph *)graph;
    if (g == NULL || g->magic != GOOD)
        return CUDA_ERROR_INVALID_VALUE;
    struct fake_exec *x = calloc(1, sizeof *x);
    x->magic = GOOD;
    x->id = next_exec++;
    x->g.magic = GOOD;
    copy_nodes(&x->g, g, graph);
    resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, graph, NULL, NULL, NULL, (CUgraphExec)x);
    *out = (CUgraphExec)x;
    return CUDA_SUCCESS;
}

CUresult cuGraphClone(CUgraph *out, CUgraph original)
{
    struct fake_graph *o = (struct fake_graph *)original;
    if (o == NULL || o->magic != GOOD)
        return CUDA_ERROR_INVALID_VALUE;
    struct fake_graph *g = graph_new();
    copy_nodes(g, o, (CUgraph)g);
    resource(CUPTI_CBID_RESOURCE_GRAPH_CLONED, (CUgraph)g, original, NULL, NULL, NULL);
    *out = (CUgraph)g;
    return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream s)
{
    cuGraphLaunch_params p = {exec, s};
    uint32_t c = corr();
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_API_ENTER, __func__, &p, NULL, c);
    struct fake_exec *x = (struct fake_exec *)exec;
    CUresult rc = x && x->magic == GOOD ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        pthread_mutex_lock(&mu);
        stream_state *ss = st(s);
        for (int i = 0; i < x->g.n; i++)
            run(ss, x->g.node[i]->name, x->g.node[i]->ns, c, x->g.node[i]->id, x->id);
        pthread_mutex_unlock(&mu);
    }
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_API_EXIT, __func__, &p, &rc, c);
    return rc;
}

CUresult cuGraphExecUpdate_v2(CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo *info)
{
    cuGraphExecUpdate_v2_params p = {exec, graph, info};
    uint32_t c = corr();
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2, CUPTI_API_ENTER, __func__, &p, NULL, c);
    struct fake_exec *x = (struct fake_exec *)exec;
    struct fake_graph *g = (struct fake_graph *)graph;
    CUresult rc = CUDA_SUCCESS;
    if (x == NULL || x->magic != GOOD || g == NULL || g->magic != GOOD || g->n != x->g.n) {
        rc = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE; /* topology must match */
    } else {
        for (int i = 0; i < g->n; i++) { /* the exec's nodes take the new parameters */
            snprintf(x->g.node[i]->name, sizeof x->g.node[i]->name, "%s", g->node[i]->name);
            x->g.node[i]->ns = g->node[i]->ns;
        }
    }
    api(CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2, CUPTI_API_EXIT, __func__, &p, &rc, c);
    return rc;
}

CUresult cuGraphExecDestroy(CUgraphExec exec)
{
    struct fake_exec *x = (struct fake_exec *)exec;
    if (x == NULL || x->magic != GOOD)
        return CUDA_ERROR_INVALID_VALUE;
    resource(CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING, NULL, NULL, NULL, NULL, exec);
    x->magic = 0;
    return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph)
{
    struct fake_graph *g = (struct fake_graph *)graph;
    if (g == NULL || g->magic != GOOD)
        return CUDA_ERROR_INVALID_VALUE;
    resource(CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING, graph, NULL, NULL, NULL, NULL);
    g->magic = 0;
    return CUDA_SUCCESS;
}

/* SPDX-License-Identifier: Apache-2.0 */
/* graph.c - CUDA graphs: graphs built node by node or by capture
 * (capture.c), instantiate / launch / update / destroy.
 *
 * A graph is a list of nodes in the order they were added (captured work is
 * a chain, each node depending on the one before). Launching an executable
 * graph does what its nodes say: copies and memsets for real, host functions
 * called, kernels logged (FLOPCOUNT_NULLGPU_LAUNCH_LOG) and otherwise no-ops.
 * An executable graph holds its own copy of the nodes, so changing or
 * destroying the graph afterwards does not change it, as on the driver. */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ng_graph *ng_graph_of(CUgraph g)
{
    ng_graph *p = (ng_graph *)g;
    return p != NULL && p->magic == NG_GRAPH_MAGIC ? p : NULL;
}

ng_graph *ng_graph_new(void)
{
    ng_graph *g = calloc(1, sizeof *g);
    if (g != NULL)
        g->magic = NG_GRAPH_MAGIC;
    return g;
}

/* Under the process lock: streams joined to one capture may record from
 * several threads at once. */
struct CUgraphNode_st *ng_graph_add(ng_graph *g, ng_node_op op)
{
    struct CUgraphNode_st *node = calloc(1, sizeof *node);
    if (node == NULL)
        return NULL;
    node->magic = NG_NODE_MAGIC;
    node->op = op;
    node->graph = g;
    node->enabled = 1;
    ng_lock();
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        struct CUgraphNode_st **n = realloc(g->nodes, cap * sizeof *n);
        if (n == NULL) {
            ng_unlock();
            free(node);
            return NULL;
        }
        g->nodes = n;
        g->cap = cap;
    }
    g->nodes[g->n++] = node;
    ng_unlock();
    return node;
}

/* ---- graphs ---- */
NG_EXPORT CUresult cuGraphCreate(CUgraph *pg, unsigned flags)
{
    (void)flags;
    NG_CHECK_INIT();
    if (pg == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_graph *g = ng_graph_new();
    if (g == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pg = (CUgraph)g;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphDestroy(CUgraph hg)
{
    NG_CHECK_INIT();
    ng_graph *g = ng_graph_of(hg);
    if (g == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < g->n; i++) {
        g->nodes[i]->magic = 0;
        free(g->nodes[i]);
    }
    free(g->nodes);
    g->magic = 0;
    free(g);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphClone(CUgraph *out, CUgraph hg)
{
    NG_CHECK_INIT();
    ng_graph *g = ng_graph_of(hg);
    if (g == NULL || out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_graph *c = ng_graph_new();
    if (c == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < g->n; i++) {
        struct CUgraphNode_st *n = ng_graph_add(c, g->nodes[i]->op);
        if (n == NULL) {
            cuGraphDestroy((CUgraph)c);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        *n = *g->nodes[i];
        n->graph = c;
    }
    *out = (CUgraph)c;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphGetNodes(CUgraph hg, CUgraphNode *nodes, size_t *n)
{
    NG_CHECK_INIT();
    ng_graph *g = ng_graph_of(hg);
    if (g == NULL || n == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (nodes != NULL)
        for (size_t i = 0; i < *n && i < g->n; i++)
            nodes[i] = g->nodes[i];
    *n = g->n;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphGetRootNodes(CUgraph hg, CUgraphNode *nodes, size_t *n)
{
    NG_CHECK_INIT();
    ng_graph *g = ng_graph_of(hg);
    if (g == NULL || n == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (nodes != NULL && *n > 0 && g->n > 0)
        nodes[0] = g->nodes[0];
    *n = g->n > 0;
    return CUDA_SUCCESS;
}

/* edges: the chain node[i] -> node[i+1] */
NG_EXPORT CUresult cuGraphGetEdges_v2(CUgraph hg, CUgraphNode *from, CUgraphNode *to,
                                      CUgraphEdgeData *data, size_t *n)
{
    NG_CHECK_INIT();
    ng_graph *g = ng_graph_of(hg);
    if (g == NULL || n == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    size_t edges = g->n > 0 ? g->n - 1 : 0;
    if (from != NULL && to != NULL)
        for (size_t i = 0; i < *n && i < edges; i++) {
            from[i] = g->nodes[i];
            to[i] = g->nodes[i + 1];
            if (data != NULL)
                memset(&data[i], 0, sizeof data[i]);
        }
    *n = edges;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphGetEdges(CUgraph hg, CUgraphNode *from, CUgraphNode *to, size_t *n)
{
    return cuGraphGetEdges_v2(hg, from, to, NULL, n);
}

static const CUgraphNodeType node_types[] = {
    [NG_OP_KERNEL] = CU_GRAPH_NODE_TYPE_KERNEL,       [NG_OP_MEMCPY] = CU_GRAPH_NODE_TYPE_MEMCPY,
    [NG_OP_MEMSET] = CU_GRAPH_NODE_TYPE_MEMSET,       [NG_OP_HOST] = CU_GRAPH_NODE_TYPE_HOST,
    [NG_OP_EMPTY] = CU_GRAPH_NODE_TYPE_EMPTY,         [NG_OP_EVENT_RECORD] = CU_GRAPH_NODE_TYPE_EVENT_RECORD,
    [NG_OP_EVENT_WAIT] = CU_GRAPH_NODE_TYPE_WAIT_EVENT, [NG_OP_MEM_ALLOC] = CU_GRAPH_NODE_TYPE_MEM_ALLOC,
    [NG_OP_MEM_FREE] = CU_GRAPH_NODE_TYPE_MEM_FREE,
};

static struct CUgraphNode_st *node_of(CUgraphNode n)
{
    return n != NULL && n->magic == NG_NODE_MAGIC ? n : NULL;
}

NG_EXPORT CUresult cuGraphNodeGetType(CUgraphNode hn, CUgraphNodeType *type)
{
    struct CUgraphNode_st *n = node_of(hn);
    if (n == NULL || type == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *type = node_types[n->op];
    return CUDA_SUCCESS;
}

static CUresult add_explicit(CUgraphNode *out, CUgraph hg, ng_node_op op, struct CUgraphNode_st **made)
{
    NG_CHECK_INIT();
    ng_graph *g = ng_graph_of(hg);
    if (g == NULL || out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUgraphNode_st *n = ng_graph_add(g, op);
    if (n == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *out = n;
    *made = n;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
                                           size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p)
{
    (void)deps;
    (void)ndeps;
    struct CUgraphNode_st *n;
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = add_explicit(out, g, NG_OP_KERNEL, &n);
    if (rc == CUDA_SUCCESS) {
        n->kernel = *p;
        n->kernel.kernelParams = NULL;
        n->kernel.extra = NULL;
    }
    return rc;
}

NG_EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                        const CUDA_MEMCPY3D *c, CUcontext ctx)
{
    (void)deps;
    (void)ndeps;
    (void)ctx;
    struct CUgraphNode_st *n;
    if (c == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = add_explicit(out, g, NG_OP_MEMCPY, &n);
    if (rc == CUDA_SUCCESS) { /* 1D copies only: a contiguous block of the 3D shape */
        n->dst = (char *)(c->dstMemoryType == CU_MEMORYTYPE_HOST ? c->dstHost : (void *)(uintptr_t)c->dstDevice) + c->dstXInBytes;
        n->src = (const char *)(c->srcMemoryType == CU_MEMORYTYPE_HOST ? c->srcHost : (const void *)(uintptr_t)c->srcDevice) + c->srcXInBytes;
        n->bytes = c->WidthInBytes * (c->Height ? c->Height : 1) * (c->Depth ? c->Depth : 1);
    }
    return rc;
}

NG_EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                        const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
    (void)deps;
    (void)ndeps;
    (void)ctx;
    struct CUgraphNode_st *n;
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = add_explicit(out, g, NG_OP_MEMSET, &n);
    if (rc == CUDA_SUCCESS) {
        n->dst = (void *)(uintptr_t)p->dst;
        n->value = p->value;
        n->elem = p->elementSize;
        n->width = p->width;
        n->height = p->height ? p->height : 1;
        n->pitch = p->pitch ? p->pitch : p->width * p->elementSize;
    }
    return rc;
}

NG_EXPORT CUresult cuGraphAddHostNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                                      const CUDA_HOST_NODE_PARAMS *p)
{
    (void)deps;
    (void)ndeps;
    struct CUgraphNode_st *n;
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = add_explicit(out, g, NG_OP_HOST, &n);
    if (rc == CUDA_SUCCESS) {
        n->fn = p->fn;
        n->data = p->userData;
    }
    return rc;
}

NG_EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps)
{
    (void)deps;
    (void)ndeps;
    struct CUgraphNode_st *n;
    return add_explicit(out, g, NG_OP_EMPTY, &n);
}

NG_EXPORT CUresult cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                             const CUgraphEdgeData *data, size_t n)
{
    (void)from;
    (void)to;
    (void)data;
    (void)n;
    return ng_graph_of(g) != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuGraphAddDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to, size_t n)
{
    return cuGraphAddDependencies_v2(g, from, to, NULL, n);
}

NG_EXPORT CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hn, CUDA_KERNEL_NODE_PARAMS *p)
{
    struct CUgraphNode_st *n = node_of(hn);
    if (n == NULL || p == NULL || n->op != NG_OP_KERNEL)
        return CUDA_ERROR_INVALID_VALUE;
    *p = n->kernel;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hn, const CUDA_KERNEL_NODE_PARAMS *p)
{
    struct CUgraphNode_st *n = node_of(hn);
    if (n == NULL || p == NULL || n->op != NG_OP_KERNEL)
        return CUDA_ERROR_INVALID_VALUE;
    n->kernel = *p;
    n->kernel.kernelParams = NULL;
    n->kernel.extra = NULL;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphKernelNodeSetAttribute(CUgraphNode hn, CUkernelNodeAttrID attr,
                                                 const CUkernelNodeAttrValue *v)
{
    (void)attr;
    (void)v;
    return node_of(hn) != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuGraphKernelNodeGetAttribute(CUgraphNode hn, CUkernelNodeAttrID attr,
                                                 CUkernelNodeAttrValue *v)
{
    (void)attr;
    if (node_of(hn) == NULL || v == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    memset(v, 0, sizeof *v);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src)
{
    return node_of(dst) != NULL && node_of(src) != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuGraphNodeSetEnabled(CUgraphExec e, CUgraphNode hn, unsigned enabled)
{
    (void)e;
    struct CUgraphNode_st *n = node_of(hn);
    if (n == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    n->enabled = enabled != 0;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphNodeGetEnabled(CUgraphExec e, CUgraphNode hn, unsigned *enabled)
{
    (void)e;
    struct CUgraphNode_st *n = node_of(hn);
    if (n == NULL || enabled == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *enabled = (unsigned)n->enabled;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphDebugDotPrint(CUgraph hg, const char *path, unsigned flags)
{
    (void)flags;
    ng_graph *g = ng_graph_of(hg);
    if (g == NULL || path == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return CUDA_ERROR_OPERATING_SYSTEM;
    fprintf(f, "digraph nullgpu {\n");
    for (size_t i = 0; i < g->n; i++) {
        const struct CUgraphNode_st *n = g->nodes[i];
        const char *label = n->op == NG_OP_KERNEL && n->kernel.func != NULL ? n->kernel.func->name : "op";
        fprintf(f, "  n%zu [label=\"%d %s\"];\n", i, (int)n->op, label ? label : "?");
        if (i > 0)
            fprintf(f, "  n%zu -> n%zu;\n", i - 1, i);
    }
    fprintf(f, "}\n");
    fclose(f);
    return CUDA_SUCCESS;
}

/* ---- executable graphs ---- */
static CUresult instantiate(CUgraphExec *out, CUgraph hg, unsigned long long flags)
{
    NG_CHECK_INIT();
    ng_graph *g = ng_graph_of(hg);
    if (g == NULL || out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUgraphExec_st *e = calloc(1, sizeof *e);
    if (e == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->magic = NG_EXEC_MAGIC;
    e->flags = flags;
    e->n = g->n;
    e->nodes = calloc(g->n ? g->n : 1, sizeof *e->nodes);
    if (e->nodes == NULL) {
        free(e);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < g->n; i++)
        e->nodes[i] = *g->nodes[i];
    *out = e;
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph g, unsigned long long flags)
{
    return instantiate(out, g, flags);
}

NG_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *out, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    CUresult rc = instantiate(out, g, p != NULL ? p->flags : 0);
    if (p != NULL) {
        p->result_out = rc == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
        p->hErrNode_out = NULL;
    }
    return rc;
}

NG_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *out, CUgraph g, CUgraphNode *err, char *log, size_t n)
{
    if (err != NULL)
        *err = NULL;
    if (log != NULL && n > 0)
        log[0] = '\0';
    return instantiate(out, g, 0);
}

NG_EXPORT CUresult cuGraphInstantiate(CUgraphExec *out, CUgraph g, CUgraphNode *err, char *log, size_t n)
{
    return cuGraphInstantiate_v2(out, g, err, log, n);
}

static struct CUgraphExec_st *exec_of(CUgraphExec e)
{
    return e != NULL && e->magic == NG_EXEC_MAGIC ? e : NULL;
}

void ng_memset_now(void *dst, unsigned value, unsigned elem, size_t width, size_t height, size_t pitch);

NG_EXPORT CUresult cuGraphLaunch(CUgraphExec he, CUstream s)
{
    NG_CHECK_INIT();
    struct CUgraphExec_st *e = exec_of(he);
    if (e == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!ng_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    for (size_t i = 0; i < e->n; i++) {
        const struct CUgraphNode_st *n = &e->nodes[i];
        if (!n->enabled)
            continue;
        switch (n->op) {
        case NG_OP_KERNEL:
            ng_launch_log(n->kernel.func, n->kernel.gridDimX, n->kernel.gridDimY, n->kernel.gridDimZ,
                          n->kernel.blockDimX, n->kernel.blockDimY, n->kernel.blockDimZ,
                          n->kernel.sharedMemBytes, NULL, NULL, "graph");
            break;
        case NG_OP_MEMCPY:
            if (n->bytes > 0 && n->dst != NULL && n->src != NULL)
                memmove(n->dst, n->src, n->bytes);
            break;
        case NG_OP_MEMSET:
            if (n->dst != NULL)
                ng_memset_now(n->dst, n->value, n->elem, n->width, n->height, n->pitch);
            break;
        case NG_OP_HOST:
            if (n->fn != NULL)
                n->fn(n->data);
            break;
        default:
            break;
        }
    }
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphUpload(CUgraphExec he, CUstream s)
{
    (void)s;
    return exec_of(he) != NULL ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuGraphExecDestroy(CUgraphExec he)
{
    struct CUgraphExec_st *e = exec_of(he);
    if (e == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    e->magic = 0;
    free(e->nodes);
    free(e);
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphExecGetFlags(CUgraphExec he, cuuint64_t *flags)
{
    struct CUgraphExec_st *e = exec_of(he);
    if (e == NULL || flags == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = e->flags;
    return CUDA_SUCCESS;
}

/* Whole-graph update: the executable takes the graph's nodes when the
 * topology (count and kinds) matches, as the driver requires. */
NG_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec he, CUgraph hg, CUgraphExecUpdateResultInfo *info)
{
    struct CUgraphExec_st *e = exec_of(he);
    ng_graph *g = ng_graph_of(hg);
    if (e == NULL || g == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    int same = e->n == g->n;
    for (size_t i = 0; same && i < g->n; i++)
        same = e->nodes[i].op == g->nodes[i]->op;
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->result = same ? CU_GRAPH_EXEC_UPDATE_SUCCESS : CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    }
    if (!same)
        return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    for (size_t i = 0; i < g->n; i++)
        e->nodes[i] = *g->nodes[i];
    return CUDA_SUCCESS;
}

NG_EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec he, CUgraphNode hn,
                                                     const CUDA_KERNEL_NODE_PARAMS *p)
{
    struct CUgraphExec_st *e = exec_of(he);
    struct CUgraphNode_st *n = node_of(hn);
    if (e == NULL || n == NULL || p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_graph *g = n->graph;
    for (size_t i = 0; i < g->n && i < e->n; i++)
        if (g->nodes[i] == n && e->nodes[i].op == NG_OP_KERNEL) {
            e->nodes[i].kernel = *p;
            e->nodes[i].kernel.kernelParams = NULL;
            e->nodes[i].kernel.extra = NULL;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

NG_EXPORT CUresult cuGraphDestroyNode(CUgraphNode hn)
{
    struct CUgraphNode_st *n = node_of(hn);
    if (n == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ng_graph *g = n->graph;
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i] == n) {
            memmove(&g->nodes[i], &g->nodes[i + 1], (g->n - i - 1) * sizeof g->nodes[0]);
            g->n--;
            break;
        }
    n->magic = 0;
    free(n);
    return CUDA_SUCCESS;
}

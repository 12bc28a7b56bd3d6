/* SPDX-License-Identifier: Apache-2.0 */
/* graph.h - the graph, node and executable-graph objects shared by graph.c
 * (graphs built node by node, executables) and capture.c (stream capture). */
#ifndef NULLGPU_GRAPH_H
#define NULLGPU_GRAPH_H

#include "nullgpu.h"

struct CUgraphNode_st {
    uint32_t magic;
    ng_node_op op;
    struct ng_graph *graph;
    int enabled;
    CUDA_KERNEL_NODE_PARAMS kernel; /* kernelParams / extra not kept */
    void *dst;
    const void *src;
    size_t bytes;
    unsigned value, elem;
    size_t width, height, pitch;
    CUhostFn fn;
    void *data;
};
#define NG_NODE_MAGIC 0x4e474e44u

struct ng_graph {
    uint32_t magic;
    struct CUgraphNode_st **nodes;
    size_t n, cap;
};
#define NG_GRAPH_MAGIC 0x4e474752u

struct CUgraphExec_st {
    uint32_t magic;
    struct CUgraphNode_st *nodes; /* copies */
    size_t n;
    unsigned long long flags;
};
#define NG_EXEC_MAGIC 0x4e474558u

ng_graph *ng_graph_of(CUgraph g);
struct CUgraphNode_st *ng_graph_add(ng_graph *g, ng_node_op op);

#endif

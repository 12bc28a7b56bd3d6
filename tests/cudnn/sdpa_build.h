/* SPDX-License-Identifier: Apache-2.0 */
/* sdpa_build.h - cuDNN backend graphs built the way cudnn-frontend lowers
 * them (written here from the backend API's documented attributes, not
 * taken from the frontend): the composite SDPA forward (Q K^T, scale,
 * masks from GEN_INDEX / CMP / BINARY_SELECT nodes, softmax, dropout, P V)
 * and backward (five matmuls; GQA's full-head dV and dK reduced over the
 * head groups), the unified SDPA node, a plain matmul and a convolution;
 * then heuristics, engine config, plan and one variant pack per execute.
 *
 * The calls go through a table of backend functions (cb_api), so the same
 * sequence runs on the real libcudnn (linked, or dlopen + dlsym), on the
 * fake one (tests/cudnn/fake_cudnn_*.c) and on the recorder of the unit
 * test. Every status is kept: the real library refuses some calls without
 * a GPU, and the tests say which. The expected FLOPs (cb_expect) are
 * counted pair by pair, with no code shared with the shim. */
#ifndef FC_TEST_SDPA_BUILD_H
#define FC_TEST_SDPA_BUILD_H

#include <cudnn_graph.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cb_api {
    cudnnStatus_t (*create)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *);
    cudnnStatus_t (*destroy)(cudnnBackendDescriptor_t);
    cudnnStatus_t (*set)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                         cudnnBackendAttributeType_t, int64_t, const void *);
    cudnnStatus_t (*get)(cudnnBackendDescriptor_t const, cudnnBackendAttributeName_t,
                         cudnnBackendAttributeType_t, int64_t, int64_t *, void *);
    cudnnStatus_t (*finalize)(cudnnBackendDescriptor_t);
    cudnnStatus_t (*execute)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t);
    cudnnStatus_t (*populate)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t,
                              cudaGraph_t);
    /* device memory for the tensors and the plan's workspace (cudaMalloc
     * on a GPU, real or null; host memory for the fake cuDNN); NULL:
     * made-up addresses, for a library that never touches them (the
     * recorder of test_cudnn_walk, the real cuDNN with no handle) */
    void *(*dev_alloc)(size_t bytes);
    void (*dev_free)(void *p);
} cb_api;

/* The functions the program links (cudnnBackend* of the library it was
 * linked with: under the shim, its hooks; sdpa_linked.c). */
void cb_api_linked(cb_api *api);
/* The same names looked up with dlsym on handle. 0, or -1 when one is missing. */
int cb_api_dlsym(cb_api *api, void *handle);

#define CB_MAX_DESCS 512
#define CB_MAX_VP 96

/* Where a stage of the build stopped (the first failing call's status). */
typedef struct cb_status {
    cudnnStatus_t tensors, ops, graph, heur, engine, engcfg, plan, execute;
    int64_t heur_results; /* engine configs heuristics say they have */
    int64_t heur_filled;  /* ... and filled when asked */
} cb_status;

typedef struct cb_graph {
    const cb_api *api;
    cudnnHandle_t handle;
    int64_t next_uid;
    cudnnBackendDescriptor_t ops[CB_MAX_DESCS];
    int n_ops;
    cudnnBackendDescriptor_t own[CB_MAX_DESCS]; /* every descriptor the build made */
    int n_own;
    int64_t vp_uid[CB_MAX_VP];
    void *vp_ptr[CB_MAX_VP];
    int n_vp;
    float fval[32];
    int32_t ival[32];
    int n_f, n_i;
    void *mem[CB_MAX_VP]; /* what dev_alloc gave this graph */
    int n_mem;
    int64_t ws_size; /* the plan's workspace, in bytes */
    void *ws;
    cudnnBackendDescriptor_t opgraph, plan;
    int keep_tensors; /* 0: destroy tensors and operations once the graph is built */
    /* called after each execute with its arguments and status (a test
     * compares it with the real function's) */
    void (*after_execute)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t,
                          cudnnStatus_t);
    /* an attribute set (INT64 value 1) on the next tensor made, before its
     * finalize: a newer cuDNN's attribute; 0 none */
    int extra_tensor_attr;
    /* dynamic shapes: the graph enables them, and each execute overrides
     * the shapes of n_over tensors (cudnn-frontend's form: the address of
     * a vector of vectors, laid out here as libstdc++ lays them out) */
    int dynamic;
    int n_over;
    int64_t over_uid[4];
    int64_t over_dims[4][4];
    cb_status st;
} cb_graph;

typedef struct cb_tensor {
    cudnnBackendDescriptor_t desc;
    int64_t uid;
} cb_tensor;

/* A graph context on api (zeroed first). */
void cb_init(cb_graph *g, const cb_api *api, cudnnHandle_t handle);
/* A tensor of nd dims (strides packed row-major unless strides given). */
cb_tensor cb_tensor_make(cb_graph *g, int nd, const int64_t *dims, const int64_t *strides,
                         cudnnDataType_t dt, int is_virtual);
/* Host scalars passed by value (the variant pack points at their value). */
cb_tensor cb_scalar_f(cb_graph *g, float v);
cb_tensor cb_scalar_i(cb_graph *g, int32_t v);
void cb_matmul(cb_graph *g, cb_tensor a, cb_tensor b, cb_tensor c, const cb_tensor *m_ovr,
               const cb_tensor *n_ovr, const cb_tensor *k_ovr);
void cb_pointwise(cb_graph *g, cudnnPointwiseMode_t mode, int64_t axis, cb_tensor x,
                  const cb_tensor *b, const cb_tensor *t, cb_tensor y);
void cb_reduction(cb_graph *g, cudnnReduceTensorOp_t op, cb_tensor x, cb_tensor y);
void cb_reshape(cb_graph *g, cb_tensor x, cb_tensor y);
/* Any operation descriptor, created and finalized with no attributes (a
 * convolution for the "not counted" case; the real library refuses it). */
cudnnBackendDescriptor_t cb_bare_op(cb_graph *g, cudnnBackendDescriptorType_t type);
/* The operation graph of the operations so far (on g->handle, when there
 * is one), its heuristics, engine config(s) and plan; g->plan is set (NULL
 * when nothing could be made), and the workspace the plan asks for is
 * allocated (api->dev_alloc). */
void cb_plan(cb_graph *g);
/* One execute of g->plan: a variant pack made, executed, destroyed. */
cudnnStatus_t cb_execute(cb_graph *g);
/* g->plan's kernels put into graph (cudnnBackendPopulateCudaGraph), with
 * the variant pack of an execute. */
cudnnStatus_t cb_populate(cb_graph *g, cudaGraph_t graph);
/* Destroys every descriptor the build made and frees its device memory. */
void cb_destroy_all(cb_graph *g);

/* An attention problem and how the graph expresses it. */
typedef struct cb_sdpa {
    int64_t b, h, h_k, s_q, s_k, d, d_v;
    int bwd;         /* composite backward (5 matmuls) */
    int unified;     /* one SDPA_FWD node (SDPA_BWD with bwd) */
    int causal;      /* 0 none, 1 top-left, 2 bottom-right (the lengths as scalars) */
    int64_t right;   /* with causal: keys this far right of the diagonal are kept too */
    int64_t left;    /* sliding window of this many keys (the diagonal's included), 0 none */
    int padding;     /* lengths per sequence in device memory: padding mask, M/N overrides */
    int dropout;
    int bias; /* 1: a bias tensor added to the scores, 2: ALiBi */
    /* 1: the causal and window masks as cuDNN 9.20's diagonal band mask
     * operations (what cudnn-frontend builds on cuDNN >= 9.21); with
     * unified, all masks in the node's score modifier graph (9.21) */
    int band_op;
    int band_bad; /* defence: 1 a band mask comparing with ADD, 2 one with both bounds */
    cudnnDataType_t dt;
} cb_sdpa;

/* Builds s's graph into g (operations only; then cb_plan). */
void cb_build_sdpa(cb_graph *g, const cb_sdpa *s);

/* The hand count: visible pairs (every head), executed FLOPs (forward
 * QK^T and PV; backward the five products) and model FLOPs (backward
 * twice the forward). */
typedef struct cb_want {
    uint64_t pairs, flops, model;
} cb_want;
void cb_expect(const cb_sdpa *s, cb_want *w);

#endif

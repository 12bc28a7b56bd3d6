/* SPDX-License-Identifier: Apache-2.0 */
/* graphs_rt.c - the shared CUDA runtime's graph calls, interposed so that
 * CUDA-graph replays are counted without CUPTI (not found, turned off, or
 * held by another subscriber such as torch.profiler or Nsight, where
 * cuptiSubscribe fails): instantiation gives the exec a snapshot of its
 * graph's captured work, each successful launch replays it, updates,
 * clones and destroys keep the tables right. Each forwards the caller's
 * arguments unchanged and returns the real result; the cupti layer acts
 * only while CUPTI's callbacks are not on (they see the driver calls
 * underneath) - cupti/calls.c. Programs that link the runtime statically
 * or call the driver's graph API do not come through here: CUPTI alone
 * sees their graphs. */
#include <cuda_runtime_api.h>
#include <errno.h>

#include "core/base.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti/cupti_layer.h"

typedef cudaError_t (*inst_fn)(cudaGraphExec_t *, cudaGraph_t, unsigned long long);
typedef cudaError_t (*inst_params_fn)(cudaGraphExec_t *, cudaGraph_t, cudaGraphInstantiateParams *);
typedef cudaError_t (*launch_fn)(cudaGraphExec_t, cudaStream_t);
typedef cudaError_t (*update_fn)(cudaGraphExec_t, cudaGraph_t, cudaGraphExecUpdateResultInfo *);
typedef cudaError_t (*exec_destroy_fn)(cudaGraphExec_t);
typedef cudaError_t (*destroy_fn)(cudaGraph_t);
typedef cudaError_t (*clone_fn)(cudaGraph_t *, cudaGraph_t);

/* Tells the layer (op, a, b, stream) when `when` holds, errno kept. */
static void tell(int when, int op, void *a, void *b, void *stream)
{
    if (!when || !fc_is_enabled())
        return;
    int saved = errno;
    fc_cupti_runtime_graph(op, a, b, stream);
    errno = saved;
}

#define FC_GRAPH_REAL(type, sym)                                                                   \
    FC_REAL(FC_LIB_CUDART, type, sym);                                                             \
    if (FC_UNLIKELY(fn_##sym == NULL))                                                             \
        return cudaErrorInitializationError;

FC_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g,
                                           unsigned long long flags)
{
    FC_GRAPH_REAL(inst_fn, cudaGraphInstantiate)
    cudaError_t rc = fn_cudaGraphInstantiate(x, g, flags);
    tell(rc == cudaSuccess && x != NULL, FC_RTG_INSTANTIATE, x ? *x : NULL, g, NULL);
    return rc;
}

FC_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *x, cudaGraph_t g,
                                                    unsigned long long flags)
{
    FC_GRAPH_REAL(inst_fn, cudaGraphInstantiateWithFlags)
    cudaError_t rc = fn_cudaGraphInstantiateWithFlags(x, g, flags);
    tell(rc == cudaSuccess && x != NULL, FC_RTG_INSTANTIATE, x ? *x : NULL, g, NULL);
    return rc;
}

FC_EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *x, cudaGraph_t g,
                                                     cudaGraphInstantiateParams *p)
{
    FC_GRAPH_REAL(inst_params_fn, cudaGraphInstantiateWithParams)
    cudaError_t rc = fn_cudaGraphInstantiateWithParams(x, g, p);
    tell(rc == cudaSuccess && x != NULL, FC_RTG_INSTANTIATE, x ? *x : NULL, g, NULL);
    return rc;
}

FC_EXPORT cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *x, cudaGraph_t g,
                                                          cudaGraphInstantiateParams *p)
{
    FC_GRAPH_REAL(inst_params_fn, cudaGraphInstantiateWithParams_ptsz)
    cudaError_t rc = fn_cudaGraphInstantiateWithParams_ptsz(x, g, p);
    tell(rc == cudaSuccess && x != NULL, FC_RTG_INSTANTIATE, x ? *x : NULL, g, NULL);
    return rc;
}

FC_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s)
{
    FC_GRAPH_REAL(launch_fn, cudaGraphLaunch)
    cudaError_t rc = fn_cudaGraphLaunch(x, s);
    tell(rc == cudaSuccess, FC_RTG_LAUNCH, x, NULL, s);
    return rc;
}

FC_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t x, cudaStream_t s)
{
    FC_GRAPH_REAL(launch_fn, cudaGraphLaunch_ptsz)
    cudaError_t rc = fn_cudaGraphLaunch_ptsz(x, s);
    /* the per-thread default stream, as the stream the launch went to */
    tell(rc == cudaSuccess, FC_RTG_LAUNCH, x, NULL, s ? s : cudaStreamPerThread);
    return rc;
}

FC_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t x, cudaGraph_t g,
                                          cudaGraphExecUpdateResultInfo *info)
{
    FC_GRAPH_REAL(update_fn, cudaGraphExecUpdate)
    cudaError_t rc = fn_cudaGraphExecUpdate(x, g, info);
    tell(rc == cudaSuccess, FC_RTG_UPDATE, x, g, NULL);
    return rc;
}

/* The destroys tell first: the handle may be reused once the call returns. */
FC_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x)
{
    FC_GRAPH_REAL(exec_destroy_fn, cudaGraphExecDestroy)
    tell(x != NULL, FC_RTG_EXEC_DESTROY, x, NULL, NULL);
    return fn_cudaGraphExecDestroy(x);
}

FC_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t g)
{
    FC_GRAPH_REAL(destroy_fn, cudaGraphDestroy)
    tell(g != NULL, FC_RTG_DESTROY, g, NULL, NULL);
    return fn_cudaGraphDestroy(g);
}

FC_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t original)
{
    FC_GRAPH_REAL(clone_fn, cudaGraphClone)
    cudaError_t rc = fn_cudaGraphClone(clone, original);
    tell(rc == cudaSuccess && clone != NULL, FC_RTG_CLONE, clone ? *clone : NULL, original, NULL);
    return rc;
}

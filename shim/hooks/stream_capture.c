/* SPDX-License-Identifier: Apache-2.0 */
/* stream_capture.c - the CUDA runtime's stream-capture entry points, interposed
 * so that a capture is known even when CUPTI is not usable (not found,
 * held by another profiler): cudaStreamBeginCapture, ...ToGraph and
 * cudaStreamEndCapture, with their per-thread-default-stream twins. Each
 * forwards the caller's arguments unchanged and returns the real result;
 * around it the cupti layer keeps the "capture in progress" flag, while
 * which GEMMs were captured is the driver's answer (cupti/capture.c), and
 * hands the ended capture's list to its graph, whose launches the
 * runtime's graph calls then count (hooks/graphs_rt.c).
 * With CUPTI's callbacks on, they only look for CUPTI before the first
 * begin. Programs that link the runtime statically (nvcc's default) do
 * not come through here; CUPTI sees their captures. */
#include <cuda_runtime_api.h>
#include <errno.h>

#include "core/base.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti/cupti_layer.h"

typedef cudaError_t (*begin_fn)(cudaStream_t, enum cudaStreamCaptureMode);
typedef cudaError_t (*to_graph_fn)(cudaStream_t, cudaGraph_t, const cudaGraphNode_t *,
                                   const cudaGraphEdgeData *, size_t, enum cudaStreamCaptureMode);
typedef cudaError_t (*end_fn)(cudaStream_t, cudaGraph_t *);

/* The real function's result, with the cupti layer told before and after. */
#define FC_CAPTURE_HOOK(sym, type, BEGIN, stream, GRAPH, call)                                     \
    {                                                                                              \
        FC_REAL(FC_LIB_CUDART, type, sym);                                                         \
        if (FC_UNLIKELY(fn_##sym == NULL))                                                         \
            return cudaErrorInitializationError;                                                   \
        int saved = errno;                                                                         \
        if (fc_is_enabled())                                                                       \
            fc_cupti_runtime_capture_before(BEGIN, (void *)(stream));                              \
        errno = saved;                                                                             \
        cudaError_t rc = call;                                                                     \
        saved = errno;                                                                             \
        if (fc_is_enabled())                                                                       \
            fc_cupti_runtime_capture_after(BEGIN, rc == cudaSuccess, (void *)(stream),             \
                                           rc == cudaSuccess ? (void *)(GRAPH) : NULL);            \
        errno = saved;                                                                             \
        return rc;                                                                                 \
    }

FC_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
    FC_CAPTURE_HOOK(cudaStreamBeginCapture, begin_fn, 1, s, NULL,
                    fn_cudaStreamBeginCapture(s, mode))

        FC_EXPORT cudaError_t
    cudaStreamBeginCapture_ptsz(cudaStream_t s, enum cudaStreamCaptureMode mode)
        FC_CAPTURE_HOOK(cudaStreamBeginCapture_ptsz, begin_fn, 1, s, NULL,
                        fn_cudaStreamBeginCapture_ptsz(s, mode))

            FC_EXPORT cudaError_t
    cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t *deps,
                                  const cudaGraphEdgeData *edges, size_t n,
                                  enum cudaStreamCaptureMode mode)
        FC_CAPTURE_HOOK(cudaStreamBeginCaptureToGraph, to_graph_fn, 1, s, g,
                        fn_cudaStreamBeginCaptureToGraph(s, g, deps, edges, n, mode))

            FC_EXPORT cudaError_t
    cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t *deps,
                                       const cudaGraphEdgeData *edges, size_t n,
                                       enum cudaStreamCaptureMode mode)
        FC_CAPTURE_HOOK(cudaStreamBeginCaptureToGraph_ptsz, to_graph_fn, 1, s, g,
                        fn_cudaStreamBeginCaptureToGraph_ptsz(s, g, deps, edges, n, mode))

            FC_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph)
                FC_CAPTURE_HOOK(cudaStreamEndCapture, end_fn, 0, s, graph ? *graph : NULL,
                                fn_cudaStreamEndCapture(s, graph))

                    FC_EXPORT cudaError_t
    cudaStreamEndCapture_ptsz(cudaStream_t s, cudaGraph_t *graph)
        FC_CAPTURE_HOOK(cudaStreamEndCapture_ptsz, end_fn, 0, s, graph ? *graph : NULL,
                        fn_cudaStreamEndCapture_ptsz(s, graph))

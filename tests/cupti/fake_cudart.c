/* SPDX-License-Identifier: Apache-2.0 */
/* fake_cudart.c - a stand-in libcudart.so.13 with only the stream-capture
 * and graph entry points, forwarding to the fake driver (fake_driver.c):
 * what a program that calls the CUDA runtime through its shared library
 * (PyTorch) looks like to the shim's interposed cudaStreamBeginCapture /
 * cudaStreamEndCapture (shim/hooks/stream_capture.c) and graph calls
 * (shim/hooks/graphs_rt.c). */
#include <cuda.h>
#include <cuda_runtime_api.h>

#undef cuStreamBeginCapture
#undef cuStreamEndCapture
CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);
#undef cuGraphLaunch
#undef cuGraphExecUpdate
CUresult cuGraphInstantiateWithFlags(CUgraphExec *x, CUgraph g, unsigned long long flags);
CUresult cuGraphClone(CUgraph *out, CUgraph g);
CUresult cuGraphLaunch(CUgraphExec x, CUstream s);
CUresult cuGraphExecUpdate_v2(CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info);
CUresult cuGraphExecDestroy(CUgraphExec x);
CUresult cuGraphDestroy(CUgraph g);

static cudaError_t rt(CUresult r)
{
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorIllegalState;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
    return rt(cuStreamBeginCapture_v2((CUstream)s, (CUstreamCaptureMode)mode));
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
    return rt(cuStreamEndCapture((CUstream)s, (CUgraph *)g));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags)
{
    return rt(cuGraphInstantiateWithFlags((CUgraphExec *)x, (CUgraph)g, flags));
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *x, cudaGraph_t g,
                                          unsigned long long flags)
{
    return rt(cuGraphInstantiateWithFlags((CUgraphExec *)x, (CUgraph)g, flags));
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s)
{
    return rt(cuGraphLaunch((CUgraphExec)x, (CUstream)s));
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t x, cudaGraph_t g,
                                cudaGraphExecUpdateResultInfo *info)
{
    return rt(
        cuGraphExecUpdate_v2((CUgraphExec)x, (CUgraph)g, (CUgraphExecUpdateResultInfo *)info));
}

cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t g)
{
    return rt(cuGraphClone((CUgraph *)out, (CUgraph)g));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x)
{
    return rt(cuGraphExecDestroy((CUgraphExec)x));
}

cudaError_t cudaGraphDestroy(cudaGraph_t g)
{
    return rt(cuGraphDestroy((CUgraph)g));
}

/* Kernel registration and launch, as the shared runtime does them: the
 * launch raises the runtime-domain callbacks CUPTI gives (through the fake
 * driver), inside the call the shim's launch hook forwards - so the hook
 * and the callback see the same launch. */
#define MAX_KERNELS 64
static struct {
    const void *stub;
    const char *name;
} kernels[MAX_KERNELS];
static int n_kernels;

int fake_cuda_runtime_launch(int cbid, const void *func, const char *symbol, unsigned gx,
                             unsigned gy, unsigned gz, unsigned bx, void **args, void *stream);

void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                            int *wSize);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                            int *wSize)
{
    (void)h, (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim,
        (void)wSize;
    if (n_kernels < MAX_KERNELS) {
        kernels[n_kernels].stub = hostFun;
        kernels[n_kernels].name = deviceName;
        n_kernels++;
    }
}

cudaError_t cudaLaunchKernel(const void *func, dim3 g, dim3 b, void **args, size_t smem,
                             cudaStream_t s)
{
    (void)smem;
    const char *name = "?";
    for (int i = 0; i < n_kernels; i++)
        if (kernels[i].stub == func)
            name = kernels[i].name;
    return (cudaError_t)fake_cuda_runtime_launch(211, func, name, g.x, g.y, g.z, b.x, args, s);
}

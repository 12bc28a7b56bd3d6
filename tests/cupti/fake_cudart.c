/* SPDX-License-Identifier: Apache-2.0 */
/* fake_cudart.c - a stand-in libcudart.so.13 with only the stream-capture
 * entry points, forwarding to the fake driver (fake_driver.c): what a
 * program that calls the CUDA runtime through its shared library (PyTorch)
 * looks like to the shim's interposed cudaStreamBeginCapture /
 * cudaStreamEndCapture (shim/hooks/capture.c). */
#include <cuda.h>
#include <cuda_runtime_api.h>

#undef cuStreamBeginCapture
#undef cuStreamEndCapture
CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);

cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
    return cuStreamBeginCapture_v2((CUstream)s, (CUstreamCaptureMode)mode) == CUDA_SUCCESS
               ? cudaSuccess
               : cudaErrorIllegalState;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
    return cuStreamEndCapture((CUstream)s, (CUgraph *)g) == CUDA_SUCCESS ? cudaSuccess
                                                                         : cudaErrorIllegalState;
}

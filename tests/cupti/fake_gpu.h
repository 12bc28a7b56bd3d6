/* SPDX-License-Identifier: Apache-2.0 */
/* fake_gpu.h - the fake GPU the cupti tests run on: a fake libcuda.so.1
 * (fake_driver.c: streams, captures, graphs, execs and kernels on a GPU
 * clock the test moves) and a fake libcupti.so.13 (fake_cupti.c: the
 * callback, activity and PM-sampling APIs), built against the real CUDA 13
 * headers, so the shim reads the structs, callback ids and records it
 * reads from the real libraries. As the real CUPTI attaches to the real
 * driver, the fake CUPTI attaches to the fake driver (fake_cuda_attach_cupti)
 * when the shim subscribes. Test programs link the fake driver and drive
 * it through the functions below. */
#ifndef FAKE_GPU_H
#define FAKE_GPU_H

#include <cuda.h>
#include <cupti.h>
#include <stdint.h>

/* What the fake CUPTI gives the fake driver. */
typedef struct fake_cupti_ops {
    /* a new API call on this thread: its correlation id; the call's external
     * correlation records (the ids on this thread's stacks) are written */
    uint32_t (*api_call)(void);
    /* driver API callback: site CUPTI_API_ENTER / _EXIT */
    void (*api)(CUpti_CallbackId cbid, int site, const char *name, const void *params,
                const CUresult *rc, uint32_t corr);
    void (*resource)(CUpti_CallbackId cbid, const CUpti_GraphData *g);
    /* a kernel ran: eager (graph_id 0) or in a graph launch */
    void (*kernel)(const char *name, uint64_t start, uint64_t end, uint32_t stream, uint32_t corr,
                   uint64_t graph_node_id, uint32_t graph_id);
    /* a launch's runtime or driver API callback, with the kernel's name
     * (CUpti_CallbackData.symbolName); rc: a cudaError_t or CUresult */
    void (*launch)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, int site, const char *name,
                   const char *symbol, const void *params, const void *rc, uint32_t corr);
} fake_cupti_ops;

/* fake driver: for the fake CUPTI */
void fake_cuda_attach_cupti(const fake_cupti_ops *ops);
uint32_t fake_cuda_graph_id(CUgraph g);
uint32_t fake_cuda_exec_id(CUgraphExec x);
uint64_t fake_cuda_node_id(CUgraphNode n);

/* fake driver: for test programs and the cuBLAS emulation */
/* `other` joins the capture `origin` is in (cudaStreamWaitEvent on an
 * event recorded in a capturing stream). */
void fake_cuda_stream_join(CUstream origin, CUstream other);
/* A kernel launch on s taking ns of GPU time: a graph node while s
 * captures, else it runs at max(now, the end of s's last kernel). */
void fake_cuda_launch(CUstream s, const char *name, uint64_t ns);
/* What the emulated cuBLAS launches inside a GEMM: one kernel of
 * flops / FAKE_FLOPS_PER_NS ns (default 1024 FLOP per ns). */
void fake_cuda_gemm_kernel(void *stream, const char *name, double flops);
void fake_cuda_advance(uint64_t ns);
uint64_t fake_cuda_now(void);
/* Start of the last kernel that ran (not captured). */
uint64_t fake_cuda_last_start(void);
/* A CUfunction of the given kernel name (cuModuleGetFunction's answer),
 * for cuLaunchKernel / cuLaunchKernelEx, which deliver the driver-domain
 * launch callbacks with the name and run the kernel (a graph node while
 * the stream captures). */
CUfunction fake_cuda_function(const char *name);
/* A launch by a statically linked CUDA runtime: the runtime-domain
 * callbacks CUPTI gives for one (cbid cudaLaunchKernel_v7000 /
 * __cudaLaunchKernel_v13000 with their parameter structs,
 * cudaLaunchKernelExC_v11060 with a cudaLaunchConfig_t), then the kernel
 * run on the stream (captured while it captures). func: the stub or
 * cudaKernel_t; symbol: the kernel's mangled name. Returns cudaSuccess. */
int fake_cuda_runtime_launch(int cbid, const void *func, const char *symbol, unsigned gx,
                             unsigned gy, unsigned gz, unsigned bx, void **args, void *stream);
/* FAKE_CUDA_KERNEL_LOG=FILE: one line per kernel run,
 *   name stream start end graph_node
 * for the checks to compute expected figures on their own; and a line
 * "# what" where the program marks its steps. */
void fake_cuda_log_mark(const char *what);

#endif

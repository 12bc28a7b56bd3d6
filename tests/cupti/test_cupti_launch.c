/* SPDX-License-Identifier: Apache-2.0 */
/* test_cupti_launch.c - kernel launches the hooks cannot see, seen through
 * CUPTI's launch callbacks, on the fake GPU (fake_gpu.h):
 *   test_cupti_launch MODE
 * static   a statically linked runtime's launches (the runtime-domain
 *          callbacks cudaLaunchKernel_v7000, __cudaLaunchKernel_v13000,
 *          cudaLaunchKernelExC_v11060 with args and symbolName): an FA2
 *          forward, a memory-efficient forward, FA3 (opaque), a fused
 *          AdamW (optimizer), a plain kernel (nothing)
 * driver   dlsym'd driver launches (Triton, Inductor's static launcher,
 *          cuDNN): cuLaunchKernel with kernelParams, cuLaunchKernelEx with
 *          the packed "extra" buffer
 * capture  an FA2 launch and an FA3 launch by the static runtime on a
 *          capturing stream, the graph instantiated and launched 3 times
 * dedup    a launch through the shared runtime (the shim's hook) that
 *          raises the runtime callback too: counted once
 * hookcapture  the same launch on a capturing stream, the graph launched
 *          twice
 * CUPTI is started by the driver's injection (CUDA_INJECTION64_PATH), as
 * in a program that never calls cuBLAS; "static" without it sees nothing.
 * Shapes go to FAKE_TRUTH in tests/launch's format; the check
 * (launch_cupti_check.py) works the FLOPs out from them. */
#include <cuda.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"
#include "names.h"
#include "params.h"

#undef cuStreamBeginCapture
#undef cuStreamEndCapture
#undef cuGraphLaunch
#undef cuLaunchKernel
#undef cuLaunchKernelEx
CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode);
CUresult cuStreamEndCapture(CUstream s, CUgraph *g);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *x, CUgraph g, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec x, CUstream s);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, CUstream s, void **kp,
                        void **extra);
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kp, void **extra);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, void *tid, void *bid, void *bDim, void *gDim,
                            int *wSize);

#define S(i) ((CUstream)(uintptr_t)(0x6100u + (i)))

static FILE *truth;

static void say(const char *line)
{
    if (truth != NULL) {
        fprintf(truth, "%s\n", line);
        fflush(truth);
    }
}

static int64_t rnd(int64_t x, int64_t m)
{
    return (x + m - 1) / m * m;
}

/* PyTorch 2.3-2.6's struct: b 2, h 8 over 2 kv heads, 512 x 512, d 128, causal */
static void pt25(t_fwd_pt25 *p)
{
    memset(p, 0, sizeof *p);
    p->b = 2, p->h = 8, p->h_k = 2, p->h_h_k_ratio = 4;
    p->seqlen_q = p->seqlen_k = 512;
    p->seqlen_q_rounded = p->seqlen_k_rounded = (int)rnd(512, 128);
    p->d = p->d_rounded = 128;
    p->p_dropout = p->rp_dropout = 1.0f;
    p->window_size_left = 512, p->window_size_right = 0;
    p->is_causal = p->is_bf16 = true;
}

#define PT25_TRUTH(name, calls)                                                                    \
    "{\"case\": \"" name "\", \"expect\": \"attention\", \"source\": \"flash\", \"dir\": "         \
    "\"forward\", \"b\": 2, \"h\": 8, \"h_k\": 2, \"s_q\": 512, \"s_k\": 512, \"d\": 128, "        \
    "\"dv\": "                                                                                     \
    "128, \"align\": \"bottom_right\", \"wl\": -1, \"wr\": 0, \"bm\": 128, \"bn\": 64, \"dpad\": " \
    "128, \"bound\": 0, \"flags\": \"\", \"calls\": " #calls "}"

static void mem(t_mem_fwd *p)
{
    memset(p, 0, sizeof *p);
    p->head_dim = p->head_dim_value = 64;
    p->num_queries = 200, p->num_keys = 300, p->custom_mask_type = 1;
    p->num_batches = 2, p->num_heads = 3;
}

static int stub_fwd, stub_mem, stub_fa3, stub_adam, stub_plain, handle_fwd;

static void run_static(void)
{
    t_fwd_pt25 p;
    pt25(&p);
    void *args[] = {&p};
    /* cudaLaunchKernel(stub) and, as CUDA 13's stubs launch,
     * __cudaLaunchKernel(handle): the same kernel twice */
    fake_cuda_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &stub_fwd, PT25_FWD,
                             4, 2, 8, 128, args, S(0));
    fake_cuda_runtime_launch(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &handle_fwd,
                             PT25_FWD, 4, 2, 8, 128, args, S(0));
    say(PT25_TRUTH("static_fwd", 2));
    t_mem_fwd m;
    mem(&m);
    void *margs[] = {&m};
    fake_cuda_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &stub_mem, MEM_FWD, 4,
                             3, 2, 128, margs, S(0));
    say("{\"case\": \"static_mem\", \"expect\": \"attention\", \"source\": \"efficient\", \"dir\": "
        "\"forward\", \"b\": 2, \"h\": 3, \"h_k\": 3, \"s_q\": 200, \"s_k\": 300, \"d\": 64, "
        "\"dv\": "
        "64, \"align\": \"top_left\", \"wl\": -1, \"wr\": 0, \"bm\": 64, \"bn\": 64, \"dpad\": 0, "
        "\"bound\": 0, \"flags\": \"\", \"calls\": 1}");
    char opaque[1024] = {0};
    void *oargs[] = {opaque};
    fake_cuda_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &stub_fa3, FA3,
                             132, 1, 1, 384, oargs, S(0));
    say("{\"case\": \"static_fa3\", \"expect\": \"uncounted\", \"reason\": \"opaque_parameters\", "
        "\"class\": \"attention\", \"name_has\": \"FlashAttnFwdSm90\", \"calls\": 1}");
    fake_cuda_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &stub_adam, ADAM, 40,
                             1, 1, 512, oargs, S(0));
    say("{\"case\": \"static_adam\", \"expect\": \"mark\", \"path\": \"cupti\"}");
    fake_cuda_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &stub_plain,
                             "_Z10vector_addPfPKfi", 1, 1, 1, 32, oargs, S(0));
}

static void run_driver(void)
{
    char buf[2048] = {0};
    void *kp[] = {buf};
    cuLaunchKernel(fake_cuda_function("triton_tem_fused_mm_0"), 64, 1, 1, 128, 1, 1, 0, S(1), kp,
                   NULL);
    say("{\"case\": \"driver_triton_mm\", \"expect\": \"uncounted\", \"reason\": "
        "\"opaque_parameters\", \"class\": \"gemm_like_uncounted\", \"name_has\": "
        "\"triton_tem_fused_mm_0\", \"calls\": 1}");
    cuLaunchKernel(fake_cuda_function("triton_poi_fused_add_0"), 64, 1, 1, 128, 1, 1, 0, S(1), kp,
                   NULL);
    cuLaunchKernel(fake_cuda_function(CUDNN), 132, 1, 1, 384, 1, 1, 0, S(1), kp, NULL);
    say("{\"case\": \"driver_cudnn\", \"expect\": \"uncounted\", \"reason\": "
        "\"opaque_parameters\", "
        "\"class\": \"attention\", \"name_has\": \"cudnn_generated_fort_native_sdpa\", \"calls\": "
        "1}");
    /* FA2's forward through cuLaunchKernelEx with the packed buffer */
    t_fwd_pt25 p;
    pt25(&p);
    size_t size = sizeof p;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &p, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 4, cfg.gridDimY = 2, cfg.gridDimZ = 8, cfg.blockDimX = 128;
    cfg.blockDimY = cfg.blockDimZ = 1, cfg.hStream = S(1);
    cuLaunchKernelEx(&cfg, fake_cuda_function(PT25_FWD), NULL, extra);
    say(PT25_TRUTH("driver_fwd", 1));
    /* the backward with kernelParams */
    t_bwd_pt25 g;
    memset(&g, 0, sizeof g);
    pt25(&g.f);
    void *gkp[] = {&g};
    cuLaunchKernel(fake_cuda_function(PT25_BWD), 4, 2, 8, 256, 1, 1, 0, S(1), gkp, NULL);
    say("{\"case\": \"driver_bwd\", \"expect\": \"attention\", \"source\": \"flash\", \"dir\": "
        "\"backward\", \"b\": 2, \"h\": 8, \"h_k\": 2, \"s_q\": 512, \"s_k\": 512, \"d\": 128, "
        "\"dv\": 128, \"align\": \"bottom_right\", \"wl\": -1, \"wr\": 0, \"bm\": 64, \"bn\": 128, "
        "\"dpad\": 128, \"bound\": 0, \"flags\": \"\", \"calls\": 1}");
}

static void run_capture(void)
{
    t_fwd_pt25 p;
    pt25(&p);
    void *args[] = {&p};
    char opaque[1024] = {0};
    void *oargs[] = {opaque};
    if (cuStreamBeginCapture_v2(S(2), CU_STREAM_CAPTURE_MODE_GLOBAL) != CUDA_SUCCESS)
        exit(2);
    fake_cuda_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &stub_fwd, PT25_FWD,
                             4, 2, 8, 128, args, S(2));
    fake_cuda_runtime_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &stub_fa3, FA3,
                             132, 1, 1, 384, oargs, S(2));
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    if (cuStreamEndCapture(S(2), &graph) != CUDA_SUCCESS ||
        cuGraphInstantiateWithFlags(&exec, graph, 0) != CUDA_SUCCESS)
        exit(2);
    for (int i = 0; i < 3; i++)
        cuGraphLaunch(exec, S(2));
    say(PT25_TRUTH("capture_fwd", 3));
    say("{\"case\": \"capture_fa3\", \"expect\": \"uncounted\", \"reason\": \"opaque_parameters\", "
        "\"class\": \"attention\", \"name_has\": \"FlashAttnFwdSm90\", \"calls\": 3}");
}

/* The FA2 forward registered and launched through the shared runtime (the
 * shim's hooks) on stream s. */
static void hooked_launch(CUstream s)
{
    static void *fatbin;
    static int registered;
    if (!registered++)
        __cudaRegisterFunction(&fatbin, (const char *)&stub_fwd, (char *)PT25_FWD, PT25_FWD, -1,
                               NULL, NULL, NULL, NULL, NULL);
    t_fwd_pt25 p;
    pt25(&p);
    void *args[] = {&p};
    dim3 g = {4, 2, 8}, b = {128, 1, 1};
    cudaLaunchKernel(&stub_fwd, g, b, args, 0, (cudaStream_t)s);
}

static void run_dedup(void)
{
    hooked_launch(S(3));
    say(PT25_TRUTH("dedup_fwd", 1));
}

/* the shim's launch hook on a capturing stream: recorded, counted at
 * each of 2 graph launches */
static void run_hookcapture(void)
{
    if (cuStreamBeginCapture_v2(S(4), CU_STREAM_CAPTURE_MODE_GLOBAL) != CUDA_SUCCESS)
        exit(2);
    hooked_launch(S(4));
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    if (cuStreamEndCapture(S(4), &graph) != CUDA_SUCCESS ||
        cuGraphInstantiateWithFlags(&exec, graph, 0) != CUDA_SUCCESS)
        exit(2);
    cuGraphLaunch(exec, S(4));
    cuGraphLaunch(exec, S(4));
    say(PT25_TRUTH("hookcapture_fwd", 2));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "static";
    const char *t = getenv("FAKE_TRUTH");
    truth = t ? fopen(t, "w") : NULL;
    cuInit(0); /* the driver loads CUDA_INJECTION64_PATH's library here */
    if (strcmp(mode, "static") == 0)
        run_static();
    else if (strcmp(mode, "driver") == 0)
        run_driver();
    else if (strcmp(mode, "capture") == 0)
        run_capture();
    else if (strcmp(mode, "dedup") == 0)
        run_dedup();
    else if (strcmp(mode, "hookcapture") == 0)
        run_hookcapture();
    else
        return 2;
    if (truth != NULL)
        fclose(truth);
    return 0;
}

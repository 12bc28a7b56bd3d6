/* SPDX-License-Identifier: Apache-2.0 */
/* launches.c - CUPTI's kernel-launch callbacks: the launches the hooks
 * cannot see. A program linked with the static runtime (nvcc's default)
 * calls its own copy of cudaLaunchKernel; Triton, Inductor's static
 * launcher, cuDNN and NVRTC users call cuLaunchKernel(Ex) through pointers
 * they took from the driver themselves. CUPTI reports both, in the
 * runtime domain (cudaLaunchKernel_v7000 211 / _ptsz 214,
 * cudaLaunchKernelExC_v11060 430 / 431, __cudaLaunchKernel_v13000 505 /
 * _ptsz 506) and the driver domain (cuLaunchKernel 307 / _ptsz 442,
 * cuLaunchKernelEx 652 / 653), with the kernel's mangled name
 * (symbolName) and the host copies of its arguments: args for the
 * runtime, kernelParams or the packed "extra" buffer for the driver.
 *
 * A launch the hooks saw already (the shared runtime's, a kernel of
 * interest: fc_launch_in_hook is up around its real call) is skipped, as
 * is every driver launch inside a runtime launch (the runtime's own
 * cuLaunchKernel, should CUPTI report it) and every launch inside a
 * counted library call (cuBLAS's kernels: the GEMM is counted already).
 * The rest: found in the registry by its function/stub/handle, or learned
 * by name once (launch/registry.c), then decoded at the exit callback,
 * where the status is known and the parameters are still valid, and
 * counted - or recorded against a stream capture (graphs.c). CUDA 13.0's
 * headers give no parameter struct for __cudaLaunchKernel_v13000: its
 * layout is taken as cudaLaunchKernel_v7000's with the cudaKernel_t first
 * (the runtime's __cudaLaunchKernel is a jump to cudaLaunchKernel), to be
 * checked on a GPU (docs/launch.md). Sub-layer 4 of the cupti layer. */
#include <stdio.h>

#include "core/guard.h"
#include "cupti_internal.h"
#include "graph_items.h"
#include "launch/launch.h"

/* __cudaLaunchKernel_v13000's parameters: not in CUDA 13.0's
 * generated_cuda_runtime_api_meta.h (see above) */
typedef struct cudaLaunchKernel_v13000_params_st {
    cudaKernel_t kernel;
    dim3 gridDim;
    dim3 blockDim;
    void **args;
    size_t sharedMem;
    cudaStream_t stream;
} fc_cudaLaunchKernel_v13000_params;

static const CUpti_CallbackId runtime_ids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};

static const CUpti_CallbackId driver_ids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
};

/* A runtime launch callback is under way on this thread (its driver
 * launch, if reported, is the same launch). */
static FC_TLS int in_runtime;

int fc_launches_enable(CUpti_SubscriberHandle s, char *why, size_t n)
{
    if (fc_cupti_enable_ids(s, CUPTI_CB_DOMAIN_RUNTIME_API, runtime_ids,
                            sizeof runtime_ids / sizeof runtime_ids[0], "runtime API", why, n) != 0)
        return -1;
    return fc_cupti_enable_ids(s, CUPTI_CB_DOMAIN_DRIVER_API, driver_ids,
                               sizeof driver_ids / sizeof driver_ids[0], "driver API", why, n);
}

int fc_launches_is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    const CUpti_CallbackId *ids = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_ids : driver_ids;
    size_t n = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? sizeof runtime_ids / sizeof runtime_ids[0]
                                                     : sizeof driver_ids / sizeof driver_ids[0];
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (ids[i] == cbid)
            return 1;
    return 0;
}

/* The kernel's record, learned by name at its first launch seen here. */
static uint32_t record_of(const void *key, const char *name)
{
    uint32_t rec = fc_launch_find(key);
    if (rec == 0)
        rec = fc_launch_learn(key, name);
    return rec - 1u < FC_LAUNCH_KERNELS ? rec : 0;
}

static void seen(uint32_t rec, fc_launch_call *c, void *stream)
{
    fc_launch_result r;
    fc_launch_decode(rec, c, &r);
    if (r.kind == FC_LR_NONE)
        return;
    int kind = r.kind == FC_LR_ATTN        ? FC_GI_ATTN
               : r.kind == FC_LR_UNCOUNTED ? FC_GI_UNCOUNTED
                                           : FC_GI_MARK;
    if (c->ok && (fc_cupti_hot_get() & FC_CUPTI_CAPTURE) &&
        fc_graphs_divert_other(kind, &r.a, r.id, (CUstream)stream))
        fc_launch_note_captured(FC_LP_CUPTI);
    else
        fc_launch_account(&r, stream, c->ok, FC_LP_CUPTI);
}

static void on_runtime(CUpti_CallbackId cbid, const CUpti_CallbackData *d)
{
    if (d->callbackSite == CUPTI_API_ENTER) {
        in_runtime++;
        return;
    }
    if (in_runtime > 0)
        in_runtime--;
    const void *key;
    dim3 grid;
    void **args;
    void *stream;
    const void *kernel = NULL;
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
        const cudaLaunchKernel_v7000_params *p = d->functionParams; /* _ptsz: same layout */
        key = p->func, grid = p->gridDim, args = p->args, stream = p->stream;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
        const cudaLaunchKernelExC_v11060_params *p = d->functionParams;
        if (p->config == NULL)
            return;
        key = p->func, grid = p->config->gridDim, args = p->args, stream = p->config->stream;
        break;
    }
    default: { /* __cudaLaunchKernel_v13000 and _ptsz */
        const fc_cudaLaunchKernel_v13000_params *p = d->functionParams;
        key = kernel = (const void *)p->kernel;
        grid = p->gridDim, args = p->args, stream = p->stream;
        break;
    }
    }
    uint32_t rec = record_of(key, d->symbolName);
    if (rec == 0)
        return;
    fc_launch_call c = {args != NULL ? args[0] : NULL,
                        0,
                        {grid.x, grid.y, grid.z},
                        NULL,
                        kernel,
                        NULL,
                        FC_LP_CUPTI,
                        d->functionReturnValue != NULL &&
                            *(const cudaError_t *)d->functionReturnValue == cudaSuccess,
                        args,
                        0};
    seen(rec, &c, stream);
}

/* The packed parameter buffer of a driver launch's extra array. */
static const void *packed(void **extra, int64_t *size)
{
    const void *buf = NULL;
    *size = 0;
    for (int i = 0; extra != NULL && i < 16 && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1] != NULL)
            *size = (int64_t) * (const size_t *)extra[i + 1];
        else
            return NULL; /* a key not known: do not read on */
    }
    return *size > 0 ? buf : NULL;
}

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *d)
{
    if (d->callbackSite == CUPTI_API_ENTER || in_runtime > 0)
        return;
    CUfunction f;
    unsigned grid[3];
    void **kp, **extra;
    void *stream;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
        cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
        const cuLaunchKernel_params *p = d->functionParams; /* _ptsz: same layout */
        f = p->f, kp = p->kernelParams, extra = p->extra, stream = p->hStream;
        grid[0] = p->gridDimX, grid[1] = p->gridDimY, grid[2] = p->gridDimZ;
    } else {
        const cuLaunchKernelEx_params *p = d->functionParams;
        if (p->config == NULL)
            return;
        f = p->f, kp = p->kernelParams, extra = p->extra, stream = p->config->hStream;
        grid[0] = p->config->gridDimX, grid[1] = p->config->gridDimY;
        grid[2] = p->config->gridDimZ;
    }
    uint32_t rec = record_of(f, d->symbolName);
    if (rec == 0)
        return;
    int64_t avail = 0;
    const void *p0 = kp != NULL ? kp[0] : packed(extra, &avail);
    fc_launch_call c = {p0,
                        avail,
                        {grid[0], grid[1], grid[2]},
                        f,
                        NULL,
                        NULL,
                        FC_LP_CUPTI,
                        d->functionReturnValue != NULL &&
                            *(const CUresult *)d->functionReturnValue == CUDA_SUCCESS,
                        kp,
                        0};
    seen(rec, &c, stream);
}

void fc_launches_dispatch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const CUpti_CallbackData *d)
{
    if (fc_launch_in_hook) { /* a launch the hooks saw: theirs */
        if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && d->callbackSite == CUPTI_API_EXIT)
            fc_launch_note_duplicate();
        return;
    }
    if (fc_tls_depth > 0) /* inside a counted library call */
        return;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        on_runtime(cbid, d);
    else
        on_driver(cbid, d);
}

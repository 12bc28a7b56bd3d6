/* SPDX-License-Identifier: Apache-2.0 */
/* launch.c - the CUDA runtime's kernel registration and launch entry
 * points, interposed: where a kernel's identity is learned
 * (__cudaRegisterFunction: host stub -> mangled name; __cudaGetKernel:
 * the cudaKernel_t handle CUDA 13's launch stubs use; the fat binary's
 * unregistration), and where it is launched: __cudaLaunchKernel(_ptsz)
 * (what nvcc 13's <<<>>> stubs call, crt/host_runtime.h), cudaLaunchKernel
 * (_ptsz) (older stubs, and PyTorch's own launches), cudaLaunchKernelExC
 * (_ptsz) (cluster launches: CUTLASS, FA3).
 *
 * Registration comes from other libraries' constructors, possibly before
 * ours: every real function is resolved lazily (FC_REAL), and what is
 * recorded needs nothing initialised (launch/registry.c). A launch of a
 * kernel not of interest costs one lookup in the registry's fixed table
 * and a branch, then a jump to the real function with the caller's
 * arguments. A kernel of interest is forwarded with a thread-local flag
 * up (CUPTI's callbacks inside the call then skip it), and after the
 * call decoded (launch/decode.c) and counted, or recorded against a
 * stream capture (cupti layer). Statuses, errno and arguments are what
 * the real functions made them; nothing is allocated; no lock is taken.
 * A program linked with the static runtime (nvcc's default) does not
 * come through here: CUPTI's launch callbacks see it (cupti/launches.c)
 * and the report says what was seen (report/launch_json.c). */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <string.h>

#include "core/base.h"
#include "core/guard.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti/cupti_layer.h"
#include "launch/launch.h"
#include "launch/runtimes.h"
#include "launch_hooks.h"

/* Not in the C headers (crt/host_runtime.h, crt/device_functions.h are
 * C++): the ABI nvcc's generated code calls. */
FC_EXPORT void **__cudaRegisterFatBinary(void *fatCubin);
FC_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                      const char *deviceName, int thread_limit, uint3 *tid,
                                      uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
FC_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle);
FC_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t smem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t smem, cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args,
                                  size_t smem, cudaStream_t stream);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                     void **args);

typedef void **(*register_fatbin_fn)(void *);
typedef void (*register_fn)(void **, const char *, char *, const char *, int, uint3 *, uint3 *,
                            dim3 *, dim3 *, int *);
typedef void (*unregister_fn)(void **);
typedef cudaError_t (*get_kernel_fn)(cudaKernel_t *, const void *);
typedef cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*launch_k_fn)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*launch_ex_fn)(const cudaLaunchConfig_t *, const void *, void **);

void **__cudaRegisterFatBinary(void *fatCubin)
{
    FC_REAL(FC_LIB_CUDART, register_fatbin_fn, __cudaRegisterFatBinary);
    void **h = fn___cudaRegisterFatBinary != NULL ? fn___cudaRegisterFatBinary(fatCubin) : NULL;
    int saved = errno;
    fc_launch_note_fatbin(fatCubin); /* the wrapper lies in the registering object */
    errno = saved;
    return h;
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize)
{
    FC_REAL(FC_LIB_CUDART, register_fn, __cudaRegisterFunction);
    if (fn___cudaRegisterFunction != NULL)
        fn___cudaRegisterFunction(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid,
                                  bid, bDim, gDim, wSize);
    int saved = errno;
    if (fc_is_enabled())
        fc_launch_register(fatCubinHandle, hostFun, deviceName != NULL ? deviceName : deviceFun);
    errno = saved;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    FC_REAL(FC_LIB_CUDART, unregister_fn, __cudaUnregisterFatBinary);
    if (fn___cudaUnregisterFatBinary != NULL)
        fn___cudaUnregisterFatBinary(fatCubinHandle);
    int saved = errno;
    fc_launch_unregister_module(fatCubinHandle);
    errno = saved;
}

static get_kernel_fn real___cudaGetKernel;

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
    get_kernel_fn fn = __atomic_load_n(&real___cudaGetKernel, __ATOMIC_ACQUIRE);
    if (FC_UNLIKELY(fn == NULL)) {
        fn = (get_kernel_fn)fc_resolve(FC_LIB_CUDART, "__cudaGetKernel");
        if (fn == NULL)
            return cudaErrorInitializationError;
        __atomic_store_n(&real___cudaGetKernel, fn, __ATOMIC_RELEASE);
    }
    cudaError_t rc = fn(kernel, fun);
    int saved = errno;
    /* the stub launches with whatever handle was written, whatever the
     * status (crt/host_runtime.h): learn it either way */
    if (kernel != NULL && *kernel != NULL && fc_is_enabled())
        fc_launch_alias(*kernel, fun);
    errno = saved;
    return rc;
}

/* After the real launch of a kernel of interest (rec): decoded, then
 * counted or recorded against a capture. */
__attribute__((noinline, cold)) static void seen(uint32_t rec, const void *id, dim3 grid,
                                                 unsigned block_x, void **args,
                                                 cudaStream_t stream, cudaError_t rc)
{
    int saved = errno;
    if (!fc_is_enabled() || fc_tls_depth > 0) { /* inside a counted library call */
        errno = saved;
        return;
    }
    const fc_kernel *k = &fc_launch_kernels[rec - 1];
    /* id is the stub, or the cudaKernel_t __cudaGetKernel gave for it */
    fc_launch_call c = {args != NULL ? args[0] : NULL,
                        0,
                        {grid.x, grid.y, grid.z},
                        NULL,
                        id != k->stub ? id : NULL,
                        k->stub,
                        FC_LP_HOOK,
                        rc == cudaSuccess,
                        args,
                        block_x};
    fc_launch_result r;
    fc_launch_decode(rec, &c, &r);
    if (r.kind != FC_LR_NONE) {
        int kind = r.kind == FC_LR_ATTN       ? FC_CUPTI_ITEM_ATTN
                   : r.kind == FC_LR_UNCOUNTED ? FC_CUPTI_ITEM_UNCOUNTED
                                               : FC_CUPTI_ITEM_MARK;
        if (rc == cudaSuccess && fc_cupti_launch_captured(kind, &r.a, r.id, stream))
            fc_launch_note_captured(FC_LP_HOOK);
        else
            fc_launch_account(&r, stream, rc == cudaSuccess, FC_LP_HOOK);
    }
    errno = saved;
}

/* 1 for a record index + 1 of a kernel of interest (0 and the "learned
 * not of interest" mark are not: one unsigned comparison). */
#define OF_INTEREST(rec) FC_UNLIKELY((uint32_t)(rec) - 1u < FC_LAUNCH_KERNELS)

/* One launch hook: sym PARAMS forwarding ARGS. A kernel not of interest
 * costs the lookup, a comparison and a jump to the real function (the
 * work for one of interest is out of line, so the common path saves no
 * registers). ID, GRID, BX, ARGV, STREAM: how the kernel, grid,
 * blockDim.x, argument array and stream are found in the parameters. */
#define LAUNCH_HOOK(sym, type, PARAMS, ARGS, ID, GRID, BX, ARGV, STREAM)                           \
    static type real_##sym;                                                                       \
    FC_EXPORT cudaError_t sym PARAMS;                                                             \
    __attribute__((noinline)) static cudaError_t sym##_of_interest(type fn, uint32_t rec,        \
                                                                   FC_UNPAREN PARAMS)            \
    {                                                                                             \
        fc_launch_in_hook = 1;                                                                    \
        cudaError_t rc = fn ARGS;                                                                 \
        fc_launch_in_hook = 0;                                                                    \
        seen(rec, ID, GRID, BX, ARGV, STREAM, rc);                                                \
        return rc;                                                                                \
    }                                                                                             \
    /* the first call: the real function resolved (maybe inside another                           \
     * library's constructor), then the call made as any other */                                \
    __attribute__((noinline, cold)) static cudaError_t sym##_first PARAMS                        \
    {                                                                                             \
        type fn = (type)fc_resolve(FC_LIB_CUDART, #sym);                                          \
        if (fn == NULL)                                                                           \
            return cudaErrorInitializationError;                                                  \
        __atomic_store_n(&real_##sym, fn, __ATOMIC_RELEASE);                                      \
        return sym ARGS;                                                                          \
    }                                                                                             \
    cudaError_t sym PARAMS                                                                        \
    {                                                                                             \
        type fn = __atomic_load_n(&real_##sym, __ATOMIC_ACQUIRE);                                 \
        if (FC_UNLIKELY(fn == NULL))                                                              \
            return sym##_first ARGS;                                                              \
        uint32_t rec = fc_launch_find(ID);                                                        \
        if (FC_LIKELY(!OF_INTEREST(rec)) || fc_launch_in_hook)                                    \
            return fn ARGS;                                                                       \
        return sym##_of_interest(fn, rec, FC_UNPAREN ARGS);                                       \
    }

#define FC_UNPAREN(...) __VA_ARGS__

LAUNCH_HOOK(__cudaLaunchKernel, launch_k_fn,
            (cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t smem,
             cudaStream_t stream),
            (kernel, grid, block, args, smem, stream), (const void *)kernel, grid, block.x, args,
            stream)
LAUNCH_HOOK(__cudaLaunchKernel_ptsz, launch_k_fn,
            (cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t smem,
             cudaStream_t stream),
            (kernel, grid, block, args, smem, stream), (const void *)kernel, grid, block.x, args,
            stream)
LAUNCH_HOOK(cudaLaunchKernel, launch_fn,
            (const void *func, dim3 grid, dim3 block, void **args, size_t smem,
             cudaStream_t stream),
            (func, grid, block, args, smem, stream), func, grid, block.x, args, stream)
LAUNCH_HOOK(cudaLaunchKernel_ptsz, launch_fn,
            (const void *func, dim3 grid, dim3 block, void **args, size_t smem,
             cudaStream_t stream),
            (func, grid, block, args, smem, stream), func, grid, block.x, args, stream)

/* The config's grid and stream, read only for a kernel of interest. */
#define EX_GRID(config) ((config) != NULL ? (config)->gridDim : (dim3){0, 0, 0})
#define EX_STREAM(config) ((config) != NULL ? (config)->stream : NULL)
#define EX_BLOCK_X(config) ((config) != NULL ? (config)->blockDim.x : 0u)

LAUNCH_HOOK(cudaLaunchKernelExC, launch_ex_fn,
            (const cudaLaunchConfig_t *config, const void *func, void **args),
            (config, func, args), func, EX_GRID(config), EX_BLOCK_X(config), args,
            EX_STREAM(config))
LAUNCH_HOOK(cudaLaunchKernelExC_ptsz, launch_ex_fn,
            (const cudaLaunchConfig_t *config, const void *func, void **args),
            (config, func, args), func, EX_GRID(config), EX_BLOCK_X(config), args,
            EX_STREAM(config))

/* ---- dlsym ---- */

/* The entry points a program may also take with dlsym on the runtime's
 * handle (hooks/dlsym.c asks), each with the slot its real function is
 * resolved into. */
static const struct {
    const char *name;
    void *hook;
    void **real;
} by_name[] = {
#define BY_NAME(sym) {#sym, (void *)sym, (void **)&real_##sym}
    BY_NAME(__cudaGetKernel),          BY_NAME(__cudaLaunchKernel),
    BY_NAME(__cudaLaunchKernel_ptsz),  BY_NAME(cudaLaunchKernel),
    BY_NAME(cudaLaunchKernel_ptsz),    BY_NAME(cudaLaunchKernelExC),
    BY_NAME(cudaLaunchKernelExC_ptsz),
#undef BY_NAME
};

void *fc_launch_dlsym_answer(const char *name, void *found)
{
    for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++) {
        if (strcmp(name, by_name[i].name) != 0)
            continue;
        if (found == by_name[i].hook)
            return found;
        void *real = __atomic_load_n(by_name[i].real, __ATOMIC_ACQUIRE);
        if (real == NULL) {
            real = fc_resolve(FC_LIB_CUDART, name);
            if (real != NULL)
                __atomic_store_n(by_name[i].real, real, __ATOMIC_RELEASE);
        }
        /* only when the hook forwards to exactly what the handle gave (a
         * second copy of the runtime keeps its own function) */
        return real == found ? by_name[i].hook : found;
    }
    return found;
}

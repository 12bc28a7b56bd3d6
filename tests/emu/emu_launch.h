/* SPDX-License-Identifier: Apache-2.0 */
/* emu_launch.h - the kernel an emulated GEMM "launches". When the process
 * loaded the fake driver of tests/cupti (fake_gpu.h), each successful GEMM
 * of the emulations launches one kernel there, on its stream and inside
 * the call, as real cuBLAS does: recorded into a graph while the stream
 * captures, run on the fake GPU clock otherwise. Without that driver,
 * nothing. */
#ifndef EMU_LAUNCH_H
#define EMU_LAUNCH_H

#include <dlfcn.h>

static inline void emu_launch(void *stream, const char *name, double flops)
{
    static void (*fn)(void *, const char *, double);
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(
            &fn,
            (void (*)(void *, const char *, double))dlsym(RTLD_DEFAULT, "fake_cuda_gemm_kernel"),
            __ATOMIC_RELEASE);
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    void (*f)(void *, const char *, double) = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (f != NULL)
        f(stream, name, flops);
}

#endif

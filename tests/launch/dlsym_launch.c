/* SPDX-License-Identifier: Apache-2.0 */
/* dlsym_launch.c - a launch taken with dlsym on the runtime's handle:
 *   dlsym_launch LIBCUDART
 * dlopens the tests' fake runtime RTLD_LOCAL (as ctypes and plugins load
 * libraries), takes cudaLaunchKernel with dlsym on its handle - which the
 * shim must answer with its launch hook - registers a FlashAttention-2
 * forward (PyTorch 2.3-2.6's, the struct of params.h) through
 * __cudaRegisterFunction and launches it through the dlsym'd pointer.
 * Prints "hook" or "real" for the answer; the check then finds the launch
 * counted in the report. */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "params.h"

typedef void (*register_fn)(void **, const char *, char *, const char *, int, void *, void *,
                            void *, void *, int *);
typedef cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);

static char stub;

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dlsym_launch: %s\n", dlerror());
        return 1;
    }
    launch_fn launch = (launch_fn)dlsym(h, "cudaLaunchKernel");
    Dl_info info;
    if (launch == NULL || !dladdr((void *)launch, &info))
        return 1;
    printf("%s\n", strstr(info.dli_fname, "flopcount") ? "hook" : "real");
    /* the registration nvcc's code makes, through the global scope */
    register_fn reg = (register_fn)dlsym(RTLD_DEFAULT, "__cudaRegisterFunction");
    static void *fatbin;
    if (reg == NULL)
        return 1;
    reg(&fatbin, &stub, (char *)PT25_FWD, PT25_FWD, -1, NULL, NULL, NULL, NULL, NULL);
    t_fwd_pt25 p;
    memset(&p, 0, sizeof p);
    p.b = 1, p.h = p.h_k = 4, p.h_h_k_ratio = 1;
    p.seqlen_q = p.seqlen_k = p.seqlen_q_rounded = p.seqlen_k_rounded = 256;
    p.d = p.d_rounded = 128;
    p.p_dropout = p.rp_dropout = 1.0f;
    p.window_size_left = 256, p.window_size_right = 0;
    p.is_causal = p.is_bf16 = true;
    void *args[] = {&p};
    dim3 g = {2, 1, 4}, b = {128, 1, 1};
    return launch(&stub, g, b, args, 0, NULL) == cudaSuccess ? 0 : 1;
}

// SPDX-License-Identifier: Apache-2.0
// kernels.cuh - what the launch tests' programs launch: kernels declared
// as PyTorch and flash-attn declare theirs (namespaces, template
// parameters with their defaults, traits, parameter types), so that nvcc
// gives them the real mangled names, with empty bodies; and the truth
// file the check reads (the shapes each case launched, written by the
// program, from which launch_check.py works out the FLOPs on its own).
#ifndef FC_TEST_LAUNCH_KERNELS_CUH
#define FC_TEST_LAUNCH_KERNELS_CUH

#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

namespace cutlass {
struct bfloat16_t {};
struct half_t {};
namespace arch {
struct Sm80 {};
struct Sm90 {};
} // namespace arch
template <int M, int N, int K> struct GemmShape {};
template <typename Op> __global__ void Kernel(typename Op::Params p) {}
template <typename Op> __global__ void device_kernel(__grid_constant__ const typename Op::Params p) {}
} // namespace cutlass

// flash-attn up to 2.7.3 and 2.7.4 on: traits at global scope
template <int kHeadDim_, int kBlockM_, int kBlockN_, int kNWarps_, typename elem_type = cutlass::half_t>
struct Flash_kernel_traits {};
template <int kHeadDim_, int kBlockM_, int kBlockN_, int kNWarps_, bool Is_Q_in_regs_ = false,
          bool Share_Q_K_smem_ = false, typename elem_type = cutlass::half_t,
          typename Base = Flash_kernel_traits<kHeadDim_, kBlockM_, kBlockN_, kNWarps_, elem_type>>
struct Flash_fwd_kernel_traits : public Base {};
template <int kHeadDim_, int kBlockM_, int kBlockN_, int kNWarps_, int AtomLayoutMSdP_ = 1,
          int AtomLayoutNdKV = 2, int AtomLayoutMdQ = 2, bool Is_V_in_regs_ = false,
          bool No_double_buffer_ = false, typename elem_type = cutlass::half_t,
          typename Base = Flash_kernel_traits<kHeadDim_, kBlockM_, kBlockN_, kNWarps_, elem_type>>
struct Flash_bwd_kernel_traits : public Base {};

// The truth file: one line per case.
static FILE *truth_file()
{
    static FILE *f;
    static int tried;
    if (!tried) {
        tried = 1;
        const char *p = getenv("FAKE_TRUTH");
        if (p != NULL)
            f = fopen(p, "a");
    }
    return f;
}

// "case NAME rc N errno E": what the launch returned and left in errno,
// compared by the check with a run without the shim.
static void said(const char *name, int rc, int err)
{
    printf("case %s rc %d errno %d\n", name, rc, err);
    fflush(stdout);
}

static void truth(const char *line)
{
    FILE *f = truth_file();
    if (f != NULL) {
        fprintf(f, "%s\n", line);
        fflush(f);
    }
}

#endif

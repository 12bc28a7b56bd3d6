// SPDX-License-Identifier: Apache-2.0
// prog_pt27.cu - PyTorch 2.7+'s FlashAttention-2 (the flash-attn 2.7.4
// submodule built with FLASH_NAMESPACE=pytorch_flash: the kernels and
// structs in pytorch_flash, the traits at global scope, the 2.7.4 struct),
// which cannot share a translation unit with PyTorch 2.3-2.6's
// pytorch_flash::Flash_fwd_params (prog.cu).
#include "kernels.cuh"

namespace pytorch_flash {
struct Flash_fwd_params : t_fwd_f26 {};
template <typename Kernel_traits, bool Is_dropout, bool Is_causal, bool Is_local, bool Has_alibi,
          bool Is_even_MN, bool Is_even_K, bool Is_softcap, bool Return_softmax>
__global__ void flash_fwd_kernel(__grid_constant__ const Flash_fwd_params params) {}
} // namespace pytorch_flash

void run_pt27(const char *only)
{
    if (only != NULL && strcmp(only, "pt27_fwd_nomask") != 0)
        return;
    pytorch_flash::Flash_fwd_params p;
    memset(&p, 0, sizeof p);
    p.b = 4;
    p.h = p.h_k = 16;
    p.h_h_k_ratio = 1;
    p.seqlen_q = p.seqlen_k = 1024;
    p.seqlen_q_rounded = p.seqlen_k_rounded = 1024;
    p.d = p.d_rounded = 128;
    p.p_dropout = p.rp_dropout = 1.0f;
    p.window_size_left = p.window_size_right = -1;
    p.is_bf16 = true;
    p.total_q = 4 * 1024;
    pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>,
                                    false, false, false, false, true, true, false, false><<<dim3(8, 4, 16), 128>>>(p);
    int e = errno;
    said("pt27_fwd_nomask", (int)cudaGetLastError(), e);
    truth("{\"case\": \"pt27_fwd_nomask\", \"expect\": \"attention\", \"source\": \"flash\", \"dir\": "
          "\"forward\", \"b\": 4, \"h\": 16, \"h_k\": 16, \"s_q\": 1024, \"s_k\": 1024, \"d\": 128, "
          "\"dv\": 128, \"align\": \"bottom_right\", \"wl\": -1, \"wr\": -1, \"bm\": 128, \"bn\": 64, "
          "\"dpad\": 128, \"bound\": 0, \"flags\": \"\"}");
}

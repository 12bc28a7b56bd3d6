/* SPDX-License-Identifier: Apache-2.0 */
/* kernel_class.c - kernel classes by name (kernel_class.h). The patterns
 * are substrings, matched case-insensitively on the name CUPTI reports
 * (usually mangled: "_Z...flash_fwd_kernel...", "ampere_bf16_s16816gemm...",
 * "triton_tem_fused_mm_0", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"). */
#include "kernel_class.h"

#include <stddef.h>

static const char *const class_names[FC_K_COUNT] = {
    [FC_K_GEMM] = "gemm",           [FC_K_GEMM_LIKE] = "gemm_like_uncounted",
    [FC_K_ATTENTION] = "attention", [FC_K_COMM] = "communication",
    [FC_K_OTHER] = "other",
};

/* Attention: FlashAttention (flash_fwd/bwd), xformers and cuDNN fused
 * multi-head attention (fmha, mha), PyTorch SDPA kernels (sdpa,
 * "attention" in the efficient-attention names). */
static const char *const attention[] = {"flash", "fmha", "attention", "attn",
                                        "sdpa",  "_mha", "mha_",      NULL};
static const char *const comm[] = {"nccl", NULL};
/* GEMM-like: cuBLAS/CUTLASS kernel families (gemm, xmma, gmma, cutlass,
 * cublas; DeepGEMM's deep_gemm::*gemm*, FBGEMM-GenAI's and CUTLASS 2's
 * grouped kernels by "gemm"), Triton/Inductor matmul templates and kernels
 * named after mm, and Triton grouped GEMMs whose names hold none of these:
 * vLLM / SGLang's fused_moe_kernel, torchtitan's _kernel_mg_*. */
static const char *const gemm_like[] = {
    "gemm",  "xmma",   "gmma",      "cutlass",     "cublas",           "matmul",      "_mm_",
    "_bmm_", "_addmm", "mm_kernel", "triton_tem_", "fused_moe_kernel", "_kernel_mg_", NULL};

const char *fc_kclass_name(int cls)
{
    return cls >= 0 && cls < FC_K_COUNT ? class_names[cls] : "unknown";
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* 1 when pat (lower case) occurs in s, ignoring case. */
static int has(const char *s, const char *pat)
{
    for (; *s; s++) {
        size_t i = 0;
        while (pat[i] && s[i] && lower(s[i]) == pat[i])
            i++;
        if (pat[i] == '\0')
            return 1;
    }
    return 0;
}

static int any(const char *s, const char *const *pats)
{
    for (int i = 0; pats[i] != NULL; i++)
        if (has(s, pats[i]))
            return 1;
    return 0;
}

int fc_kclass_of_name(const char *name)
{
    if (name == NULL || *name == '\0')
        return FC_K_OTHER;
    if (any(name, attention))
        return FC_K_ATTENTION;
    if (any(name, comm))
        return FC_K_COMM;
    if (any(name, gemm_like))
        return FC_K_GEMM_LIKE;
    return FC_K_OTHER;
}

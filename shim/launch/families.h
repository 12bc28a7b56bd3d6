/* SPDX-License-Identifier: Apache-2.0 */
/* families.h - the one table of kernel families the launch layer knows
 * (like core/api_list.h): id, how the family is matched in a kernel's
 * (mangled) name, what is done with a launch of it, and its name in the
 * report. families.c matches names against it; the decoders (fa2.c,
 * memeff.c) hold each decodable family's parameter layouts.
 *
 * What a launch of a family does (enum fc_kaction):
 *   DECODE   its parameters are read on the host: an attention call
 *            (FlashAttention-2, memory-efficient attention), or, when they
 *            do not check out, a named uncounted kernel (layout_mismatch)
 *   OPAQUE   named and classed, uncounted (opaque_parameters): the
 *            parameters do not say the problem (FA3's persistent grid and
 *            CUTLASS Params, Triton, DeepGEMM, cuDNN's generated kernels;
 *            Triton grouped GEMMs keep their group sizes in device memory:
 *            vLLM's fused_moe_kernel, FBGEMM-GenAI's _fbgemm_grouped_gemm*,
 *            torchtitan's _kernel_mg_*, each named by its Python function,
 *            the kernel's name, with or without Triton 2's signature suffix)
 *   MARK     an optimizer kernel: marks an optimizer step for the
 *            iteration detector (FC_IREC_OPTIM)
 *   NOFLOP   a helper kernel of a decoded family that runs no products
 *            (FA2's split-KV combine, dot(dO, O), dQ conversion): not a
 *            kernel of interest, neither counted nor listed
 *
 * Patterns are matched in order, first match wins: an FA2 kernel's name
 * holds "cutlass" (its element type) and must be taken as FA2 first. How:
 *   SUB     the pattern occurs anywhere in the name
 *   PREFIX  the name starts with it
 * Names are as nvcc mangles them ("16flash_fwd_kernelI" is the source
 * name flash_fwd_kernel followed by its template arguments). */
#ifndef FC_LAUNCH_FAMILIES_H
#define FC_LAUNCH_FAMILIES_H

#include <stdint.h>

enum fc_kaction { FC_KA_NONE = 0, FC_KA_DECODE, FC_KA_OPAQUE, FC_KA_MARK, FC_KA_NOFLOP };
enum fc_kmatch { FC_KM_SUB = 0, FC_KM_PREFIX };

/* X(ID, match, pattern, action, label) */
#define FC_LAUNCH_FAMILY_LIST(X)                                                                   \
    X(FA2_FWD, FC_KM_SUB, "16flash_fwd_kernelI", FC_KA_DECODE, "FlashAttention-2 forward")         \
    X(FA2_SPLITKV, FC_KM_SUB, "24flash_fwd_splitkv_kernelI", FC_KA_DECODE,                         \
      "FlashAttention-2 split-KV forward")                                                         \
    X(FA2_BWD, FC_KM_SUB, "44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelI", FC_KA_DECODE,         \
      "FlashAttention-2 backward")                                                                 \
    X(FA2_COMBINE, FC_KM_SUB, "32flash_fwd_splitkv_combine_kernelI", FC_KA_NOFLOP,                 \
      "FlashAttention-2 split-KV combine")                                                         \
    X(FA2_DOT_DO_O, FC_KM_SUB, "25flash_bwd_dot_do_o_kernelI", FC_KA_NOFLOP,                       \
      "FlashAttention-2 backward dot(dO, O)")                                                      \
    X(FA2_CONVERT_DQ, FC_KM_SUB, "27flash_bwd_convert_dq_kernelI", FC_KA_NOFLOP,                   \
      "FlashAttention-2 backward dQ conversion")                                                   \
    X(FA2_CONVERT_DKV, FC_KM_SUB, "28flash_bwd_convert_dkv_kernelI", FC_KA_NOFLOP,                 \
      "FlashAttention-2 backward dK/dV conversion")                                                \
    X(FA2_CLEAR, FC_KM_SUB, "31flash_bwd_clear_dkvaccum_kernelI", FC_KA_NOFLOP,                    \
      "FlashAttention-2 backward accumulator clear")                                               \
    X(FA2_OTHER, FC_KM_SUB, "flash_bwd_dq_dk_dv_loop", FC_KA_DECODE,                               \
      "FlashAttention-2 backward (not the seqk-parallel kernel)")                                  \
    X(MEMEFF_FWD, FC_KM_SUB, "fmha_cutlassF_", FC_KA_DECODE, "memory-efficient attention forward") \
    X(MEMEFF_BWD, FC_KM_SUB, "fmha_cutlassB_", FC_KA_DECODE,                                       \
      "memory-efficient attention backward")                                                       \
    X(FA3_FWD, FC_KM_SUB, "FlashAttnFwdSm", FC_KA_OPAQUE, "FlashAttention-3 forward")              \
    X(FA3_BWD, FC_KM_SUB, "FlashAttnBwdSm", FC_KA_OPAQUE, "FlashAttention-3 backward")             \
    X(CUDNN_SDPA, FC_KM_SUB, "cudnn_generated_fort_native_sdpa", FC_KA_OPAQUE,                     \
      "cuDNN generated attention")                                                                 \
    X(OPTIM_MTA, FC_KM_SUB, "25multi_tensor_apply_kernelI", FC_KA_MARK,                            \
      "multi-tensor apply (optimizer)")                                                            \
    X(OPTIM_NORM, FC_KM_SUB, "14lpnorm_cleanup", FC_KA_MARK, "foreach norm (gradient clipping)")   \
    X(OPTIM_SCALE, FC_KM_SUB, "28amp_update_scale_cuda_kernel", FC_KA_MARK,                        \
      "AMP grad-scaler update")                                                                    \
    X(CUTLASS_GROUPED, FC_KM_SUB, "17GroupProblemShapeI", FC_KA_OPAQUE,                            \
      "CUTLASS 3 grouped GEMM (torch._grouped_mm, FBGEMM, TransformerEngine)")                     \
    X(GROUPED_FILL, FC_KM_PREFIX, "_ZN2at4cuda6detail25prepare_grouped_gemm_data", FC_KA_OPAQUE,   \
      "PyTorch grouped GEMM setup (torch._grouped_mm's problem shapes)")                           \
    X(CUTLASS2_GROUPED, FC_KM_SUB, "11GemmGroupedI", FC_KA_OPAQUE,                                 \
      "CUTLASS 2 grouped GEMM (grouped_gemm package)")                                             \
    X(DEEPGEMM, FC_KM_SUB, "deep_gemm", FC_KA_OPAQUE, "DeepGEMM")                                  \
    X(TRITON_TEM, FC_KM_PREFIX, "triton_tem_", FC_KA_OPAQUE, "Triton template (Inductor)")         \
    X(TRITON_MOE, FC_KM_PREFIX, "fused_moe_kernel", FC_KA_OPAQUE,                                  \
      "Triton grouped GEMM (vLLM / SGLang fused MoE)")                                             \
    X(TRITON_FBGEMM_GROUPED, FC_KM_PREFIX, "_fbgemm_grouped_gemm", FC_KA_OPAQUE,                   \
      "Triton grouped GEMM (FBGEMM-GenAI)")                                                        \
    X(TRITON_MG_GROUPED, FC_KM_PREFIX, "_kernel_mg_", FC_KA_OPAQUE,                                \
      "Triton grouped GEMM (torchtitan)")                                                          \
    X(CUTLASS_NS, FC_KM_PREFIX, "_ZN7cutlass", FC_KA_OPAQUE, "CUTLASS")                            \
    X(CUTLASS_C, FC_KM_PREFIX, "cutlass", FC_KA_OPAQUE, "CUTLASS")

enum fc_kfamily {
    FC_KF_NONE = 0,
#define FC_KF_ENUM(id, m, p, a, l) FC_KF_##id,
    FC_LAUNCH_FAMILY_LIST(FC_KF_ENUM)
#undef FC_KF_ENUM
        FC_KF_COUNT
};

/* What a decoder reads off a kernel's name (at its first launch). */
typedef struct fc_ktraits {
    int16_t head_dim; /* FA2: kHeadDim (the padded head dim the MMAs run);
                       * memory-efficient: kMaxK (an upper bound of the head dims) */
    int16_t block_m;  /* FA2 kBlockM; memory-efficient queries (keys in the backward) per block */
    int16_t block_n;  /* FA2 kBlockN; memory-efficient keys per block */
    uint8_t dtype;    /* enum fc_dtype of Q/K/V */
    uint8_t ns;       /* FA2: enum fc_fa2_ns */
    uint8_t nbools;   /* FA2: boolean template arguments after the traits */
    uint16_t bools;   /* FA2: FC_FA2_* bits set from them */
    uint8_t mem_aligned; /* memory-efficient: an "aligned" kernel */
    uint8_t mem_dropout; /* memory-efficient backward: a "_dropout" kernel */
} fc_ktraits;

/* The family of a kernel name (FC_KF_NONE: none), and its action,
 * report label and class (enum fc_kclass) for the uncounted list. The
 * multi-tensor-apply family excludes the copy and zero functors
 * (_foreach_copy_, _foreach_zero_: FSDP and zero_grad use them outside an
 * optimizer step); the Triton family takes only template kernels (mm,
 * bmm, attention templates), not pointwise or reduction ones. */
int fc_kfamily_of_name(const char *name);
int fc_kfamily_action(int family);
const char *fc_kfamily_label(int family);
int fc_kfamily_class(int family, const char *name);

#endif

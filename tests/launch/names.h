/* SPDX-License-Identifier: Apache-2.0 */
/* names.h - kernel names as nvcc registers them for prog.cu's declarations
 * (which follow PyTorch's and flash-attn's): the launch tests' units, the
 * CUPTI launch test and the dlsym test launch them by these names. */
#ifndef FC_TEST_LAUNCH_NAMES_H
#define FC_TEST_LAUNCH_NAMES_H

#define PT25_FWD                                                                                   \
    "_ZN13pytorch_flash16flash_fwd_kernelINS_23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0E"  \
    "Lb0EN7cutlass10bfloat16_tENS_19Flash_kernel_traitsILi128ELi128ELi64ELi4ES3_EEEELb0ELb1ELb0E"  \
    "Lb0ELb1ELb1ELb0EEEvNS_16Flash_fwd_paramsE"
#define PT25_BWD                                                                                   \
    "_ZN13pytorch_flash44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelINS_23Flash_bwd_kernel_"      \
    "traits"                                                                                       \
    "ILi128ELi64ELi128ELi8ELi2ELi4ELi2ELb0ELb0EN7cutlass10bfloat16_tENS_19Flash_kernel_"           \
    "traitsILi12"                                                                                  \
    "8ELi64ELi128ELi8ES3_EEEELb0ELb1ELb0ELb0ELb1ELb1EEEvNS_16Flash_bwd_paramsE"
#define PT25_SPLIT                                                                                 \
    "_ZN13pytorch_flash24flash_fwd_splitkv_kernelINS_23Flash_fwd_kernel_"                          \
    "traitsILi64ELi64ELi128ELi4"                                                                   \
    "ELb0ELb0EN7cutlass6half_tENS_19Flash_kernel_traitsILi64ELi64ELi128ELi4ES3_"                   \
    "EEEELb0ELb0ELb0ELb0E"                                                                         \
    "Lb1ELb1ELb0EEEvNS_16Flash_fwd_paramsE"
#define PT25_COMBINE                                                                               \
    "_ZN13pytorch_flash32flash_fwd_splitkv_combine_kernelINS_23Flash_fwd_kernel_"                  \
    "traitsILi64ELi64EL"                                                                           \
    "i128ELi4ELb0ELb0EN7cutlass6half_tENS_19Flash_kernel_traitsILi64ELi64ELi128ELi4ES3_"           \
    "EEEELi8ELi2E"                                                                                 \
    "Lb1EEEvNS_16Flash_fwd_paramsE"
#define FA27_LOCAL                                                                                 \
    "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_"                                              \
    "traitsILi64ELi128ELi64ELi4ELb0ELb0EN7cutlass6ha"                                              \
    "lf_tE19Flash_kernel_traitsILi64ELi128ELi64ELi4ES3_EELb0ELb0ELb1ELb0ELb0ELb1ELb0ELb0EEEvNS_"   \
    "16Fl"                                                                                         \
    "ash_fwd_paramsE"
#define FA26_DROPOUT                                                                               \
    "_Z16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi32ELi128ELi128ELi4ELb0ELb0EN7cutlass6half_"  \
    "tE1"                                                                                          \
    "9Flash_kernel_traitsILi32ELi128ELi128ELi4ES2_EELb1ELb0ELb0ELb0ELb0ELb1ELb0ELb0EEv16Flash_"    \
    "fwd_p"                                                                                        \
    "arams"
#define MEM_FWD                                                                                    \
    "_Z40fmha_cutlassF_bf16_aligned_64x64_rf_"                                                     \
    "sm80N22PyTorchMemEffAttention15AttentionKernelIN7cutl"                                        \
    "ass10bfloat16_tENS1_4arch4Sm80ELb1ELi64ELi64ELi64ELb1ELb1EE6ParamsE"
#define MEM_BWD                                                                                    \
    "_Z41fmha_cutlassB_bf16_aligned_64x64_k64_"                                                    \
    "sm80N23AttentionBackwardKernelIN7cutlass4arch4Sm80EN"                                         \
    "S0_10bfloat16_tELb1ELb0ELb0ELi64ELi64ELi64ELb0EE6ParamsE"
#define FA3                                                                                        \
    "_ZN7cutlass13device_kernelIN5flash11enable_sm90INS1_16FlashAttnFwdSm90INS1_"                  \
    "25CollectiveMainlo"                                                                           \
    "opFwdSm90ILi2ENS_9GemmShapeILi128ELi128ELi128EEELb1EEEEEEEEEvNT_6ParamsE"
#define CUTLASS                                                                                    \
    "_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS_9GemmShapeILi128ELi128ELi32EEEEEEEvNT_6ParamsE"
#define ADAM                                                                                       \
    "_ZN2at6native39_GLOBAL__N__b7ec4c5b_7_prog_cu_8dd2116225multi_tensor_apply_kernelINS1_"       \
    "18Tensor"                                                                                     \
    "ListMetadataILi4ELb0EEENS1_20FusedAdamMathFunctorIfLi4ELNS1_9ADAM_MODEE1ELb0EEEJdEEEvT_T0_"   \
    "DpT1_"
#define COPY                                                                                       \
    "_ZN2at6native39_GLOBAL__N__b7ec4c5b_7_prog_cu_8dd2116225multi_tensor_apply_kernelINS1_"       \
    "18Tensor"                                                                                     \
    "ListMetadataILi4ELb0EEENS1_11CopyFunctorIffLi2ELi1ELi1EEEJEEEvT_T0_DpT1_"
#define ELEMENTWISE_ADDMM                                                                          \
    "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_22_addmm_activation_cudaERKNS_"       \
    "6TensorE"                                                                                     \
    "EENKUlvE_clEvENKUlvE0_clEvEUlfE_NS_6detail5ArrayIPcLi2EEEEEviT0_T1_"

#define CUDNN                                                                                      \
    "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_kernel0_" \
    "0"

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* params.h - the kernel parameter structs the launch tests pass, written
 * here field by field in the order of the real ones (FlashAttention-2's
 * flash.h at flash-attn v2.5.6, v2.6.0, v2.6.3/v2.7.4 and HEAD, PyTorch's
 * vendored copy; PyTorch's mem_eff_attention kernel_forward.h and
 * kernel_backward.h), so that the compiler places each field where the
 * real struct has it: the offsets the shim's decoders use are checked
 * against these, not copied from them. C and C++ (nvcc). */
#ifndef FC_TEST_LAUNCH_PARAMS_H
#define FC_TEST_LAUNCH_PARAMS_H

#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* at::PhiloxCudaState: two 8-byte payloads, a uint32, a bool (24 bytes) */
typedef struct t_philox {
    uint64_t seed, offset;
    uint32_t offset_intragraph;
    bool captured;
} t_philox;

#define T_QKV                                                                                      \
    void *q_ptr, *k_ptr, *v_ptr;                                                                   \
    int64_t q_batch_stride, k_batch_stride, v_batch_stride;                                        \
    int64_t q_row_stride, k_row_stride, v_row_stride;                                              \
    int64_t q_head_stride, k_head_stride, v_head_stride;                                           \
    int h, h_k, h_h_k_ratio;
#define T_FWD_HEAD                                                                                 \
    void *o_ptr, *oaccum_ptr;                                                                      \
    int64_t o_batch_stride, o_row_stride, o_head_stride;                                           \
    void *p_ptr, *softmax_lse_ptr, *softmax_lseaccum_ptr;
#define T_DIMS_25 int b, seqlen_q, seqlen_k, seqlen_knew, d, seqlen_q_rounded, seqlen_k_rounded, \
    d_rounded, rotary_dim;
#define T_DIMS_26 T_DIMS_25 int total_q;
#define T_SCALES float scale_softmax, scale_softmax_log2;
#define T_KV_MID                                                                                   \
    void *knew_ptr, *vnew_ptr;                                                                     \
    int64_t knew_batch_stride, vnew_batch_stride, knew_row_stride, vnew_row_stride;               \
    int64_t knew_head_stride, vnew_head_stride;                                                    \
    void *rotary_cos_ptr, *rotary_sin_ptr;                                                         \
    int *cache_batch_idx;                                                                          \
    int *block_table;                                                                              \
    int64_t block_table_batch_stride;                                                              \
    int page_block_size;                                                                           \
    float p_dropout;                                                                               \
    uint8_t p_dropout_in_uint8_t;                                                                  \
    float rp_dropout, scale_softmax_rp_dropout;                                                    \
    int window_size_left, window_size_right;
#define T_TAIL                                                                                     \
    bool is_bf16, is_causal, is_seqlens_k_cumulative, is_rotary_interleaved;                       \
    int num_splits;                                                                                \
    void *alibi_slopes_ptr;                                                                        \
    int64_t alibi_slopes_batch_stride;
#define T_BWD                                                                                      \
    void *do_ptr, *dq_ptr, *dk_ptr, *dv_ptr, *dq_accum_ptr, *dk_accum_ptr, *dv_accum_ptr;          \
    int64_t do_batch_stride, do_row_stride, do_head_stride, dq_batch_stride, dk_batch_stride,      \
        dv_batch_stride, dq_row_stride, dk_row_stride, dv_row_stride, dq_head_stride,              \
        dk_head_stride, dv_head_stride;                                                            \
    void *dsoftmax_sum;                                                                            \
    bool deterministic;                                                                            \
    int64_t dq_accum_split_stride;

/* flash-attn 2.5.x */
typedef struct t_fwd_fa25 {
    T_QKV T_FWD_HEAD T_DIMS_25 T_SCALES int *cu_seqlens_q, *cu_seqlens_k;
    int *seqused_k;
    int *blockmask;
    T_KV_MID t_philox philox_args;
    uint64_t *rng_state;
    T_TAIL
} t_fwd_fa25;

/* PyTorch's vendored FlashAttention 2.5 (PyTorch 2.3-2.6): extragraph_offset
 * and seed in place of rng_state */
typedef struct t_fwd_pt25 {
    T_QKV T_FWD_HEAD T_DIMS_25 T_SCALES int *cu_seqlens_q, *cu_seqlens_k;
    int *seqused_k;
    int *blockmask;
    T_KV_MID t_philox philox_args;
    int64_t *extragraph_offset, *seed;
    T_TAIL
} t_fwd_pt25;

/* flash-attn 2.6.1 .. 2.8.3, PyTorch 2.7+ (FlashAttention 2.7.4) */
typedef struct t_fwd_f26 {
    T_QKV T_FWD_HEAD T_DIMS_26 T_SCALES int *cu_seqlens_q, *cu_seqlens_k, *leftpad_k;
    int *seqused_k;
    int *blockmask;
    T_KV_MID float softcap;
    t_philox philox_args;
    uint64_t *rng_state;
    T_TAIL bool unpadded_lse, seqlenq_ngroups_swapped;
} t_fwd_f26;

/* FlashAttention after 2026-07: philox_args is uint64_t[4] */
typedef struct t_fwd_fh {
    T_QKV T_FWD_HEAD T_DIMS_26 T_SCALES int *cu_seqlens_q, *cu_seqlens_k, *leftpad_k;
    int *seqused_k;
    int *blockmask;
    T_KV_MID float softcap;
    uint64_t philox_args[4];
    uint64_t *rng_state;
    T_TAIL bool unpadded_lse, seqlenq_ngroups_swapped;
} t_fwd_fh;

typedef struct t_bwd_pt25 {
    t_fwd_pt25 f;
    T_BWD
} t_bwd_pt25;
typedef struct t_bwd_f26 {
    t_fwd_f26 f;
    T_BWD
} t_bwd_f26;

/* memory-efficient attention's forward Params */
typedef struct t_mem_fwd {
    void *query_ptr, *key_ptr, *value_ptr, *attn_bias_ptr;
    int32_t *seqstart_q_ptr, *seqstart_k_ptr, *causal_diagonal_ptr, *seqlen_k_ptr;
    uint32_t causal_diagonal_offset;
    void *output_ptr;
    float *output_accum_ptr, *logsumexp_ptr;
    float scale;
    int32_t head_dim, head_dim_value, num_queries, num_keys, num_keys_absolute;
    uint8_t custom_mask_type;
    int32_t q_strideM, k_strideM, v_strideM, bias_strideM, o_strideM;
    int32_t q_strideH, k_strideH, v_strideH;
    int64_t bias_strideH;
    int64_t q_strideB, k_strideB, v_strideB, bias_strideB;
    int32_t num_batches, num_heads;
    bool use_dropout;
    unsigned long long dropout_batch_head_rng_offset;
    float dropout_prob;
    t_philox rng_engine_inputs;
    int64_t *extragraph_offset, *seed;
} t_mem_fwd;

/* memory-efficient attention's backward Params, the version with grouped
 * query attention (q_heads_per_kv) */
typedef struct t_mem_bwd {
    const void *query_ptr, *key_ptr, *value_ptr, *bias_ptr, *logsumexp_ptr, *output_ptr,
        *grad_output_ptr;
    float *delta_ptr;
    const int32_t *cu_seqlens_q_ptr, *cu_seqlens_k_ptr;
    void *grad_query_ptr, *grad_key_ptr, *grad_value_ptr, *grad_bias_ptr;
    float *workspace, *workspace_gv;
    void *workspace_gq;
    int32_t window_size;
    float scale;
    int32_t head_dim, head_dim_value, num_queries, num_keys, num_heads, q_heads_per_kv;
    uint8_t custom_mask_type;
    int64_t q_strideM, k_strideM, v_strideM, bias_strideM, gO_strideM, gB_strideM;
    int8_t gQKV_strideM_multiplier;
    t_philox rng_engine_inputs;
    unsigned long long dropout_batch_head_rng_offset;
    float dropout_prob;
    int64_t o_strideH;
    int32_t q_strideH, k_strideH, v_strideH;
    int64_t bias_strideH, o_strideB, q_strideB, k_strideB, v_strideB, bias_strideB, lse_strideB,
        lse_strideH, delta_strideB, delta_strideH;
    int32_t num_batches;
    int16_t num_splits_key;
    int64_t gO_strideB, gQ_strideB, gK_strideB, gV_strideB, gB_strideB, gO_strideH, gQ_strideH,
        gK_strideH, gV_strideH, gB_strideH;
} t_mem_bwd;

#endif

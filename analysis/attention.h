/* SPDX-License-Identifier: Apache-2.0 */
/* attention.h - the FLOPs of one fused-attention call (FlashAttention,
 * memory-efficient attention, cuDNN SDPA) from its problem shape.
 *
 * A call is b sequences x h query heads, s_q queries attending over s_k
 * keys with head dimensions d (Q and K) and d_v (V and the output). Which
 * keys a query sees is a band around a diagonal: query i sees key j when
 *     i + off - window_left <= j <= i + off + window_right,
 * with off = 0 (top-left alignment) or s_k - s_q (bottom-right, as
 * FlashAttention >= 2.1 aligns causal masks), and a negative window
 * meaning unbounded on that side. No mask: both windows -1. Causal: left
 * -1, right 0. A sliding window of w keys (the query's own included):
 * left w - 1, right 0. The number of visible (query, key) pairs per head,
 * P, is an exact integer sum (fc_attn_pairs), never "half".
 *
 * Three figures per call (docs/attention.md derives them):
 *  - executed: the products the kernel computes at the problem's real
 *    size. Forward QK^T and PV: 2P(d + d_v) per head. Backward, as
 *    FlashAttention and cuDNN run it, five products (QK^T recomputed,
 *    dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q): 2P(3d + 2d_v),
 *    2.5x the forward when d = d_v. This is what HFU counts, as GEMMs are
 *    counted at 2mnk, not at their padded tiles.
 *  - model: the model-FLOPs convention (Megatron, PaLM): forward as
 *    executed, backward twice the forward (the recomputed QK^T is not model
 *    work). This is what MFU counts.
 *  - tiles: what the kernel's thread blocks cover - every block_m x block_n
 *    tile of the score matrix that holds a visible pair, at the padded head
 *    dimension - for comparison with tensor-core counters. 0 when the tile
 *    shape is not known (cuDNN's generated kernels). */
#ifndef FC_ATTENTION_H
#define FC_ATTENTION_H

#include <stdint.h>

#include "u128.h"

/* Who ran the call (the report's "source"). Values only grow. */
enum fc_attn_source {
    FC_ATTN_SRC_UNKNOWN = 0,
    FC_ATTN_SRC_FLASH,     /* FlashAttention-2: PyTorch SDPA's flash backend, flash-attn */
    FC_ATTN_SRC_EFFICIENT, /* memory-efficient attention (CUTLASS fmha, xformers-derived) */
    FC_ATTN_SRC_CUDNN,     /* cuDNN SDPA, from the executed plan's graph */
    FC_ATTN_SRC_COUNT
};

enum fc_attn_dir { FC_ATTN_FWD = 0, FC_ATTN_BWD = 1 };
enum fc_attn_align { FC_ATTN_TOP_LEFT = 0, FC_ATTN_BOTTOM_RIGHT = 1 };

/* fc_attn.flags */
#define FC_ATTN_CUDNN_UNIFIED 1   /* variant: one SDPA node (cuDNN >= 9.13's unified path) */
#define FC_ATTN_CUDNN_COMPOSITE 2 /* variant: matmul nodes, the composite graph */
#define FC_ATTN_BOUND 0x1u   /* lengths are maxima (varlen, padding, ragged): FLOPs are an upper bound */
#define FC_ATTN_DROPOUT 0x2u /* dropout on the probabilities (no effect on the products) */
#define FC_ATTN_SOFTCAP 0x4u /* tanh soft-capping of the scores (elementwise) */
#define FC_ATTN_BIAS 0x8u    /* an additive bias or ALiBi (elementwise; every tile computed) */

typedef struct fc_attn {
    uint8_t source; /* enum fc_attn_source */
    uint8_t dir;    /* enum fc_attn_dir */
    uint8_t align;  /* enum fc_attn_align */
    uint8_t dtype;  /* enum fc_dtype of Q/K/V */
    uint8_t flags;  /* FC_ATTN_* */
    /* Which form of the source ran (0: not known): cuDNN FC_ATTN_CUDNN_*,
     * FlashAttention-2 1 + the parameter layout it was decoded as
     * (shim/launch/fa2.c fc_fa2_layout_name). Part of the key. */
    uint8_t variant;
    int64_t b, h, h_k;     /* sequences, query heads, key/value heads */
    int64_t s_q, s_k;      /* queries and keys per sequence */
    int64_t d, d_v;        /* head dimension of Q/K and of V/O */
    int64_t window_left, window_right; /* < 0: unbounded on that side */
    /* The kernel's tiles (0: not known): rows and columns of the score
     * matrix one thread block covers, and the head dimensions its products
     * run at (FlashAttention pads d to its kHeadDim). */
    int32_t block_m, block_n;
    int32_t d_pad, d_v_pad;
} fc_attn;

typedef struct fc_attn_flops {
    fc_u128 pairs;    /* visible (query, key) pairs over all b x h heads */
    fc_u128 executed; /* what HFU counts */
    fc_u128 model;    /* what MFU counts */
    fc_u128 tiles;    /* what the tiles cover; 0 when unknown */
} fc_attn_flops;

/* 1 when the shape is usable: every dimension > 0, h a multiple of h_k,
 * enums in range. The FLOP functions return 0 for anything else. */
int fc_attn_valid(const fc_attn *a);
/* Visible (query, key) pairs of one head: an exact sum in closed form. */
fc_u128 fc_attn_pairs(const fc_attn *a);
/* Score-matrix tiles of one head holding at least one visible pair, for a
 * tile grid of block_m x block_n anchored at (0, 0). */
fc_u128 fc_attn_tiles(const fc_attn *a);
/* All three figures of one call; 0 (and all zero) when !fc_attn_valid. */
int fc_attn_flops_of(const fc_attn *a, fc_attn_flops *out);

/* "flash", "efficient", "cudnn"; "unknown" out of range. */
const char *fc_attn_source_name(int source);
/* "none", "causal", "window": what the band is, for the eye. */
const char *fc_attn_mask_name(const fc_attn *a);

#endif

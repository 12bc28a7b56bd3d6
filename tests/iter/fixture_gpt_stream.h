/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_gpt_stream.h - a GPT training loop as a stream of GEMMs, for the
 * iteration tests: what a framework on a GPU issues (one GEMM per Linear,
 * one strided-batched GEMM per attention product), with a caching
 * allocator that hands freed blocks on, as PyTorch's does. The GEMMs go to
 * a callback: straight into the detector (test_iter_detect.c) or through
 * the real cuBLAS / cuBLASLt entry points (test_iter_emu.c). */
#ifndef TEST_ITER_GPT_H
#define TEST_ITER_GPT_H

#include <stddef.h>
#include <stdint.h>

enum gpt_recompute { GPT_NONE = 0, GPT_SELECTIVE, GPT_FULL };
enum gpt_api { GPT_GEMM = 0, GPT_STRIDED, GPT_LT };

/* One fused-attention call (gpt_cfg.attn): bwd 0 the forward kernel, 1 the
 * backward kernel; nb = sequences x heads, s queries over s keys of head
 * dimension d, no mask. */
typedef void (*gpt_attn_fn)(void *ctx, int bwd, int64_t nb, int64_t s, int64_t d);

typedef struct gpt_cfg {
    int layers, hidden, heads, vocab, seq, batch;
    int recompute;   /* enum gpt_recompute, for the layers in ckpt_mask */
    unsigned ckpt_mask; /* bit l: layer l checkpointed (GPT_FULL/SELECTIVE) */
    int use_lt;      /* MLP up-projection through cublasLtMatmul */
    int lowest_block; /* the allocator hands on the free block of the size at the lowest
                       * address (as PyTorch's CUDA caching allocator picks among blocks of
                       * one size), not the one freed last: every step gets the same blocks */
    int torch_head;  /* the output layer's backward as PyTorch's CPU run issues it: the
                      * weight gradient before the input gradient, and the loss
                      * gradient in one block every step that no GEMM writes */
    gpt_attn_fn attn; /* non-NULL: the attention core runs as one fused call each way
                       * (FlashAttention-like: no GEMM; the backward kernel recomputes
                       * the scores, 2.5x the forward's FLOPs), through this callback
                       * with the GEMM callback's ctx */
} gpt_cfg;

/* One GEMM, column-major: C (m x n) = op(A) op(B), op(A) m x k, strided
 * batches of `batch` with the strides implied by the shapes. */
typedef void (*gpt_gemm_fn)(void *ctx, int api, char ta, char tb, int64_t m, int64_t n, int64_t k,
                            int64_t batch, const float *a, const float *b, float *c);
/* Optional: a marker between steps. */
typedef void (*gpt_mark_fn)(void *ctx);

typedef struct gpt gpt;

/* arena: floats to carve weights and activations from (NULL: fake
 * addresses, never dereferenced - enough for the detector alone). Returns
 * NULL when the arena is too small. */
gpt *gpt_new(const gpt_cfg *cfg, float *arena, size_t arena_floats);
void gpt_free(gpt *g);
/* Floats an arena needs for cfg. */
size_t gpt_arena_floats(const gpt_cfg *cfg);

/* Changes the allocator's choice (gpt_cfg.lowest_block) from the next step on. */
void gpt_set_lowest_block(gpt *g, int on);
/* One forward + backward (one micro-batch). */
void gpt_train_step(gpt *g, gpt_gemm_fn fn, void *ctx);
/* One forward under no_grad: an evaluation pass (batch_override > 0 runs it
 * on that many sequences). */
void gpt_eval(gpt *g, gpt_gemm_fn fn, void *ctx, int batch_override);

/* The phase of the GEMM being issued, for a callback that wants it (the
 * thread a framework would issue it from: PyTorch's autograd runs a CUDA
 * backward, recomputation included, on a thread of its own). */
enum gpt_phase { GPT_PH_FWD = 0, GPT_PH_BWD, GPT_PH_REC, GPT_PH_EVAL };
int gpt_phase(const gpt *g);

/* FLOPs per training step, worked out from the shapes (docs in the .c). */
typedef struct gpt_flops {
    uint64_t fwd, bwd, rec, eval;
} gpt_flops;
void gpt_expected(const gpt_cfg *cfg, gpt_flops *out);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* formula.h - analytic FLOPs of a decoder-only transformer, exact integers.
 *
 * Generalises Megatron/Korthikanti 72*B*s*l*h^2*(1 + s/6h + V/12hl) to any
 * FFN size, gated MLP, GQA, head dim, MoE and both causal conventions; gives
 * hardware FLOPs for each recompute mode, 6N and PaLM forms, parameters.
 * Pure functions, no global state. (Fields may be added at the end.) */
#ifndef FC_FORMULA_H
#define FC_FORMULA_H

#include <stddef.h>
#include <stdint.h>

#include "u128.h"

enum fc_recompute { FC_RECOMPUTE_NONE = 0, FC_RECOMPUTE_SELECTIVE, FC_RECOMPUTE_FULL };
enum fc_causal { FC_CAUSAL_FULL = 0, FC_CAUSAL_HALF };

typedef struct fc_model {
    int64_t layers, hidden, heads;
    int64_t kv_heads;  /* 0: = heads (no GQA) */
    int64_t ffn;       /* 0: 4 * hidden */
    int64_t head_dim;  /* 0: hidden / heads */
    int64_t vocab, seq;
    int64_t batch;     /* sequences per iteration, all GPUs together */
    int swiglu;        /* gated MLP: 3 matrices */
    int64_t experts;   /* 0: dense */
    int64_t topk, moe_ffn, shared_experts;
    int64_t moe_every; /* MoE layer frequency; 0 or 1: every layer */
    int recompute;     /* enum fc_recompute */
    int causal;        /* enum fc_causal */
    /* Added after the first draft. */
    int64_t shared_ffn;      /* size of each shared expert; 0: moe_ffn */
    int64_t moe_first_dense; /* the first K layers stay dense (DeepSeek first_k_dense_replace) */
    int untied_embeddings;   /* output projection has its own weights (params only) */
    /* Sliding-window attention (Mistral, Gemma 2/3, Qwen2 use_sliding_window):
     * a query attends to at most `window` keys on `window_layers` layers. */
    int64_t window;          /* 0: no window */
    int64_t window_layers;   /* layers with the window; 0 with a window: every layer */
} fc_model;

typedef struct fc_flops {
    fc_u128 model_flops_per_iteration;    /* forward + backward, no recompute */
    fc_u128 hardware_flops_per_iteration; /* model + recomputed forward work */
    fc_u128 forward_flops_per_iteration;  /* one forward pass */
    fc_u128 attention_core_forward;       /* QK^T and attention*V, forward, per iteration */
    fc_u128 logits_forward;               /* the vocabulary projection, forward */
    fc_u128 params;                       /* with embeddings */
    fc_u128 params_no_embedding;
    fc_u128 six_n_flops_per_iteration;    /* 6 * params_active * tokens */
    fc_u128 six_n_no_embedding_per_iteration;
    fc_u128 palm_flops_per_iteration;     /* (6N + 12*l*(a*d)*s) * tokens, N = params_active */
    fc_u128 tokens_per_iteration;
    /* Added after the first draft. */
    fc_u128 model_flops_per_token;        /* model / tokens, exact */
    fc_u128 hardware_by_recompute[3];     /* hardware FLOPs for each enum fc_recompute */
    fc_u128 attention_linear_forward;     /* QKV and output projections, forward */
    fc_u128 mlp_forward;                  /* dense MLPs, routed and shared experts, forward */
    fc_u128 router_forward;               /* MoE router GEMMs (h x experts), forward */
    fc_u128 params_active;                /* weights one token goes through (= params if dense) */
    fc_u128 params_active_no_embedding;
    int64_t moe_layers;                   /* layers whose MLP is a mixture of experts */
    int overflow;                         /* 1: a value passed 2^128 - 1 (saturated) */
} fc_flops;

/* 0 when the model is usable; else -1 and a one-line reason in err. */
int fc_model_check(const fc_model *m, char *err, size_t errlen);
/* Fills f; m must pass fc_model_check. */
void fc_formula(const fc_model *m, fc_flops *f);

/* Number of MoE layers: layers i in [moe_first_dense, layers) with
 * i % moe_every == 0 (Megatron's --moe-layer-freq); 0 for a dense model. */
int64_t fc_formula_moe_layers(const fc_model *m);
/* Effective values of the fields whose 0 means "default". */
int64_t fc_model_kv_heads(const fc_model *m);
int64_t fc_model_head_dim(const fc_model *m);
int64_t fc_model_ffn(const fc_model *m);
int64_t fc_model_moe_ffn(const fc_model *m);
int64_t fc_model_shared_ffn(const fc_model *m);
/* Layers whose attention is windowed (0 without a window), and the keys a
 * query attends to there: min(seq, window) (seq without a window). */
int64_t fc_model_window_layers(const fc_model *m);
int64_t fc_model_window_keys(const fc_model *m);
/* "none"/"selective"/"full", "full"/"half"; NULL when out of range. */
const char *fc_recompute_name(int recompute);
const char *fc_causal_name(int causal);
/* Inverses; -1 when the name is not known. */
int fc_recompute_from_name(const char *name);
int fc_causal_from_name(const char *name);

#endif

/* SPDX-License-Identifier: Apache-2.0 */
/* formula.h - analytic FLOPs of a decoder-only transformer, exact integers.
 *
 * Generalises Megatron/Korthikanti 72*B*s*l*h^2*(1 + s/6h + V/12hl) to any
 * FFN size, gated MLP, GQA, head dim, MoE and both causal conventions, and
 * to the layer kinds of 2025-26 models: multi-latent attention, sliding,
 * chunked, gated delta-net (linear attention) and Mamba layers in any
 * per-layer pattern, MLP-only and mixer-only layers, multi-token
 * prediction; gives hardware FLOPs for each recompute mode, 6N and PaLM
 * forms, parameters. Pure functions, no global state. (Fields may be added
 * at the end.) Every term: docs/formula.md. */
#ifndef FC_FORMULA_H
#define FC_FORMULA_H

#include <stddef.h>
#include <stdint.h>

#include "u128.h"

enum fc_recompute { FC_RECOMPUTE_NONE = 0, FC_RECOMPUTE_SELECTIVE, FC_RECOMPUTE_FULL };
enum fc_causal { FC_CAUSAL_FULL = 0, FC_CAUSAL_HALF };

/* A per-layer pattern's characters. The mixer of a layer: */
#define FC_MIX_ATTENTION 'A' /* full attention (multi-latent when kv_lora_rank > 0) */
#define FC_MIX_SLIDING 'S'   /* sliding-window attention: at most `window` keys */
#define FC_MIX_CHUNKED 'C'   /* chunked attention: keys within the chunk */
#define FC_MIX_GDN 'G'       /* gated delta-net (linear attention) */
#define FC_MIX_MAMBA 'M'     /* Mamba (mamba_version) */
#define FC_MIX_NONE '-'      /* no mixer: an MLP-only layer */
/* Its MLP: */
#define FC_MLP_DENSE 'D'
#define FC_MLP_MOE 'E'
#define FC_MLP_NONE '-' /* no MLP: a mixer-only layer (Nemotron-H) */
#define FC_MAX_LAYER_PATTERN 1024

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
    /* Added for the 2025-26 families (issue 27). 0 everywhere: none of it. */
    /* Multi-latent attention (DeepSeek-V2/V3, Kimi K2), on every attention
     * layer when kv_lora_rank > 0: heads, the latent ranks and the per-head
     * widths replace kv_heads and head_dim. */
    int64_t q_lora_rank;  /* 0: Q projected directly from h */
    int64_t kv_lora_rank; /* > 0: multi-latent attention */
    int64_t qk_nope_dim, qk_rope_dim, v_head_dim;
    int attn_gate;        /* Q projection twice as wide: a sigmoid output gate (Qwen3-Next) */
    int64_t mtp_layers;   /* multi-token prediction depths (num_nextn_predict_layers) */
    int64_t attn_chunk;   /* chunked attention: keys within the query's chunk ('C' layers) */
    /* Gated delta-net ('G' layers): key and value heads and widths, and the
     * chunk of its chunked scan (0: 64, fla's and transformers' fixed one). */
    int64_t gdn_k_heads, gdn_v_heads, gdn_k_dim, gdn_v_dim, gdn_chunk;
    /* Mamba ('M' layers). Mamba-2 (SSD): heads x head_dim = d_inner, state,
     * groups of B and C (0: 1), the chunk of the scan. Mamba-1 (selective
     * scan, Jamba): d_inner, state, the rank of the dt projection. */
    int64_t mamba_version; /* 1 or 2; 0: 2 */
    int64_t mamba_heads, mamba_head_dim, mamba_state, mamba_groups, mamba_chunk;
    int64_t mamba_inner, mamba_dt_rank;
    /* Per-layer kinds, one character per layer ("" = every layer attention,
     * windowed as window_layers says; MoE as moe_every/moe_first_dense say).
     * mixers: FC_MIX_*; mlps: FC_MLP_*. mtp_block: the MTP block's mixer
     * and MLP ("" = attention and the last layer's MLP kind). */
    char mixers[FC_MAX_LAYER_PATTERN + 1];
    char mlps[FC_MAX_LAYER_PATTERN + 1];
    char mtp_block[3];
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
    /* Added for the 2025-26 families. The breakdown above keeps its terms
     * (attention linear/core, MLP, router, logits: of the MTP blocks too);
     * these are the new ones, and forward = the sum of all of them. */
    fc_u128 mixer_linear_forward;         /* Mamba and gated delta-net projections, forward */
    fc_u128 scan_forward;                 /* their chunked scans' matrix products, forward */
    fc_u128 mtp_proj_forward;             /* MTP input projections 2h -> h, forward */
    fc_u128 mtp_logits_forward;           /* the MTP depths' logits (part of logits_forward) */
} fc_flops;

/* Layers of each kind (main layers; the MTP blocks are not in it). */
typedef struct fc_layer_counts {
    int64_t attention, sliding, chunked, gdn, mamba, no_mixer; /* mixers */
    int64_t dense, moe, no_mlp;                                 /* MLPs */
} fc_layer_counts;

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
/* The layers by kind, from the patterns or (without one) from the window
 * and MoE fields. */
void fc_model_layer_counts(const fc_model *m, fc_layer_counts *c);
/* The mixer and MLP kind of layer i (0-based), as the counts take them. */
char fc_model_layer_mixer(const fc_model *m, int64_t i);
char fc_model_layer_mlp(const fc_model *m, int64_t i);
/* The MTP block's mixer and MLP kinds (defaults resolved). */
char fc_model_mtp_mixer(const fc_model *m);
char fc_model_mtp_mlp(const fc_model *m);
/* Multi-latent attention: on, and the query/key width d_qk = nope + rope. */
int fc_model_mla(const fc_model *m);
/* Effective Mamba and gated delta-net values (0 meaning the default). */
int64_t fc_model_mamba_version(const fc_model *m);
int64_t fc_model_mamba_inner(const fc_model *m);
int64_t fc_model_mamba_groups(const fc_model *m);
int64_t fc_model_gdn_chunk(const fc_model *m);
/* Sum over the chunks of a sequence of s cut into pieces of c (the last
 * one shorter): sum of squared chunk lengths (c <= 0 or c >= s: s^2). */
fc_u128 fc_formula_chunk_squares(int64_t s, int64_t c);
/* "none"/"selective"/"full", "full"/"half"; NULL when out of range. */
const char *fc_recompute_name(int recompute);
const char *fc_causal_name(int causal);
/* Inverses; -1 when the name is not known. */
int fc_recompute_from_name(const char *name);
int fc_causal_from_name(const char *name);

#endif

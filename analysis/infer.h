/* SPDX-License-Identifier: Apache-2.0 */
/* infer.h - a transformer's shape read off the GEMMs of one forward pass
 * (the report's "forward_profile"), for the formula without model flags.
 *
 * fc_infer_shapes reads the structure: weight GEMMs as Linear layers
 * (in -> out features on some tokens), the attention core (QK^T and
 * attention x V, batched or one GEMM per head), layers as the repeated
 * blocks between attention cores (or, with fused attention, as a repeated
 * block of weight GEMMs), the MLP kind (plain, gated fused or not, mixture
 * of experts with routed token counts), the logits. fc_infer_resolve turns
 * those facts, values given on the command line and what the iterations say
 * (forwards per iteration, recompute) into formula values, each exact,
 * given, a convention, or unknown with the reason. Pure functions: the
 * caller owns every buffer (the shim passes static ones); nothing
 * allocates. Method and limits: docs/formula.md, "Inferred from the GEMMs". */
#ifndef FC_INFER_H
#define FC_INFER_H

#include <stddef.h>
#include <stdint.h>

#include "attention.h"
#include "formula.h"
#include "u128.h"

#define FC_INFER_MAX_GEMMS 4096 /* entries of a forward profile read */
#define FC_INFER_MAX_LAYERS 1024

/* One entry of a forward profile: `count` calls in a row of one shape. */
typedef struct fc_fwd_gemm {
    int64_t m, n, k, batch; /* op(A) m x k, op(B) k x n; m = -1: shape not known */
    char transa, transb;    /* 'N', 'T', 'C' ('?' when not known) */
    uint64_t count;
    unsigned weight; /* bit 0: A is a weight, bit 1: B */
    int grouped;     /* one group of a grouped call (cublas?gemmGroupedBatched[Ex]) */
    fc_u128 flops;   /* of all `count` calls */
    /* A fused-attention call instead of a GEMM (m = n = k = -1): its
     * shape (attn.b < 0: not known). Read by infer_attn.c. */
    int attention;
    fc_attn attn;
} fc_fwd_gemm;

typedef struct fc_fwd_profile {
    const fc_fwd_gemm *g;
    size_t n;
    int truncated; /* the forward had more runs than were kept */
    fc_u128 flops; /* the whole forward */
} fc_fwd_profile;

/* The values, keyed as 'flopcount formula --json' names them. */
enum fc_ik {
    FC_IK_LAYERS = 0,
    FC_IK_HIDDEN,
    FC_IK_HEADS,
    FC_IK_KV_HEADS,
    FC_IK_HEAD_DIM,
    FC_IK_FFN,
    FC_IK_SWIGLU,
    FC_IK_VOCAB,
    FC_IK_SEQ,
    FC_IK_BATCH,
    FC_IK_TIED,
    FC_IK_EXPERTS,
    FC_IK_TOPK,
    FC_IK_MOE_FFN,
    FC_IK_SHARED_EXPERTS,
    FC_IK_SHARED_FFN,
    FC_IK_MOE_EVERY,
    FC_IK_MOE_FIRST_DENSE,
    FC_IK_RECOMPUTE,
    FC_IK_CAUSAL,
    /* the 2025-26 layer kinds (issue 27) */
    FC_IK_KV_LORA_RANK,
    FC_IK_Q_LORA_RANK,
    FC_IK_QK_NOPE_DIM,
    FC_IK_QK_ROPE_DIM,
    FC_IK_V_HEAD_DIM,
    FC_IK_ATTN_GATE,
    FC_IK_MTP_LAYERS,
    FC_IK_ATTN_CHUNK,
    FC_IK_GDN_K_HEADS,
    FC_IK_GDN_V_HEADS,
    FC_IK_GDN_K_DIM,
    FC_IK_GDN_V_DIM,
    FC_IK_GDN_CHUNK,
    FC_IK_MAMBA_VERSION,
    FC_IK_MAMBA_HEADS,
    FC_IK_MAMBA_HEAD_DIM,
    FC_IK_MAMBA_STATE,
    FC_IK_MAMBA_GROUPS,
    FC_IK_MAMBA_CHUNK,
    FC_IK_MAMBA_INNER,
    FC_IK_MAMBA_DT_RANK,
    FC_IK_COUNT
};
_Static_assert(FC_IK_COUNT <= 64, "one bit per key in a uint64_t");
#define FC_IK_BIT(k) (1ull << (k))
/* The first of the keys added for issue 27: the text report prints them
 * only for a model that has the kind. */
#define FC_IK_FIRST_KIND FC_IK_KV_LORA_RANK

enum fc_is {
    FC_IS_UNKNOWN = 0, /* not in the stream: note says why */
    FC_IS_EXACT,       /* read off the shapes (or the iterations) */
    FC_IS_GIVEN,       /* from the command line (a flag or --config) */
    FC_IS_CONVENTION   /* not a property of the GEMMs: the formula's default */
};

typedef struct fc_infer_val {
    int64_t value;  /* booleans 0/1; recompute and causal as their enums */
    int status;     /* enum fc_is */
    char note[200]; /* how it was read, or why it could not be */
} fc_infer_val;

/* Facts of the stream (fc_infer_shapes). Widths are of this process: under
 * tensor parallelism they are shards, under pipeline parallelism the
 * layers are one stage's. */
typedef struct fc_infer_facts {
    int ok;                            /* a transformer's structure was found */
    char why[240];                     /* !ok: why not */
    char structure[400];               /* one layer in words */
    int64_t layers, hidden, tokens;    /* tokens per forward */
    int64_t q_width, kv_width;         /* a*d and g*d */
    int core;                          /* the attention core was in the stream */
    int64_t seq, head_dim, core_count; /* with the core: core_count = B*a per layer */
    int64_t ffn;                       /* dense MLP width (0: no dense layer) */
    int swiglu;                        /* gated MLP (dense and experts alike) */
    int64_t vocab;                     /* 0: no logits GEMM */
    int moe;                           /* experts in the stream */
    int64_t experts, experts_seen, moe_ffn, routed, shared_experts, shared_ffn;
    int routed_even;         /* every MoE layer routed the same tokens */
    int experts_from_router; /* experts = the router's width */
    int64_t moe_every, moe_first_dense, moe_layers;
    fc_u128 extra_flops;   /* GEMMs of the forward the formula has no term for */
    char extra[160];       /* what they are */
    fc_u128 forward_flops; /* the profile's */
    /* Added for the 2025-26 layer kinds (infer_kinds.c): read when the
     * uniform transformer above does not fit the stream. */
    int kinds;                     /* read by the layer-kinds reader */
    int mla;                       /* multi-latent attention projections */
    int64_t q_lora_rank, kv_lora_rank, qk_nope_dim, qk_rope_dim, v_head_dim;
    int attn_gate;                 /* Q projection twice the output projection's input */
    int64_t mtp_layers;            /* MTP depths: 2h -> h, a block, logits each */
    char mtp_block[3];
    int64_t attn_chunk;            /* chunked attention layers' chunk (0: none) */
    /* gated delta-net and Mamba sizes; 0: not in the stream (kind_why) */
    int64_t gdn_k_heads, gdn_v_heads, gdn_k_dim, gdn_v_dim, gdn_chunk;
    int64_t mamba_version, mamba_heads, mamba_head_dim, mamba_state, mamba_groups, mamba_chunk;
    int64_t mamba_inner, mamba_dt_rank;
    char gdn_why[160], mamba_why[160]; /* what the stream could not show of them */
    char mixers[FC_MAX_LAYER_PATTERN + 1], mlps[FC_MAX_LAYER_PATTERN + 1]; /* per layer */
    int layers_paired; /* some layer is a mixer + MLP pair made by convention */
    /* The attention core as fused-attention calls (infer_attn.c). */
    int64_t attn_layers;   /* layers whose core is one call (the others': QK^T GEMMs) */
    fc_attn attn;          /* the first such layer's call (every one's shape) */
    char attn_words[160];  /* that call in words (fc_infer_attn_words) */
} fc_infer_facts;

/* Per-iteration context (the report's steady iterations). */
typedef struct fc_infer_iter {
    int have;                /* the numbers below are known */
    fc_u128 flops;           /* median FLOPs of an iteration (this process) */
    fc_u128 forward_flops;   /* median forward FLOPs of an iteration */
    fc_u128 recompute_flops; /* median recompute FLOPs */
    fc_u128 attention_excess_flops; /* median attention beyond the model convention (of flops) */
    int64_t ranks;           /* data-parallel replicas assumed (1: none) */
} fc_infer_iter;

/* Values given on the command line: `given` has bit (1 << enum fc_ik) per
 * key set in `m` (fc_model fields, effective values). */
typedef struct fc_infer_given {
    uint64_t given; /* FC_IK_BIT(key); the layer patterns: m.mixers / m.mlps non-empty */
    fc_model m;
} fc_infer_given;

typedef struct fc_inferred {
    fc_infer_facts f;
    fc_infer_val v[FC_IK_COUNT];
    uint64_t disagree;                 /* FC_IK_BIT per key: given, and the stream says otherwise */
    int64_t stream_value[FC_IK_COUNT]; /* what the stream says, for those */
    int complete;                      /* every value the formula's FLOPs need is known */
    char missing[240];                 /* !complete: what is missing, as flags to give */
    fc_model model;                    /* complete: the formula's model for one iteration */
    int heads_known;       /* heads and head_dim known (else a factorization of a*d, g*d) */
    int64_t micro_batches; /* forwards per iteration (0: not known) */
    int64_t batch_per_forward;
    int fits;                /* fits_forward or fits_iteration */
    int fits_forward;        /* the formula's forward equals the counted forward */
    int fits_iteration;      /* the formula's model FLOPs equal an iteration's, less recompute */
    fc_u128 formula_forward; /* of one forward, its core as the stream counts it */
    fc_u128 forward_model_flops; /* the formula's model FLOPs of one forward (complete) */
} fc_inferred;

/* Saturating int64 arithmetic for the shapes' products (a report read from
 * anywhere may hold any numbers). */
static inline int64_t fc_infer_mul(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
static inline int64_t fc_infer_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Scratch space for fc_infer_shapes (large: give a static or heap one). */
typedef struct fc_infer_work fc_infer_work;
size_t fc_infer_work_size(void);

void fc_infer_shapes(const fc_fwd_profile *p, fc_infer_work *w, fc_infer_facts *out);
void fc_infer_resolve(const fc_infer_facts *f, const fc_infer_given *g, const fc_infer_iter *it,
                      fc_inferred *out);

/* The forward FLOPs of model m's attention core (all layers, m->batch
 * sequences of m->seq, heads and head_dim of m) as a fused kernel runs
 * them with the band of `band` (windows, alignment; d_v as band's when it
 * differs from its d), counted exactly (infer_attn.c); 0 when the shape is
 * not usable. */
fc_u128 fc_infer_attn_core_exact(const fc_model *m, const fc_attn *band);
/* A call in words: "flash attention forward: 8 sequences x 12 heads (kv 4),
 * 1024 x 1024, head dim 64, causal". Returns buf. */
char *fc_infer_attn_words(const fc_attn *a, char *buf, size_t size);

/* Key names ('layers', 'kv_heads', ...) and the flag that sets each. */
const char *fc_ik_name(int key);
const char *fc_ik_flag(int key);
/* The value as text ("4", "yes", "selective", "?"). */
char *fc_infer_value_text(const fc_inferred *in, int key, char *buf, size_t size);
const char *fc_is_name(int status);
/* Model FLOPs of an iteration whose forward FLOPs are iter_forward, for an
 * inference that fits: micro-batches x the formula's per forward. 0 with
 * *out set, -1 when the forward is not a whole number of profiled ones. */
int fc_infer_iteration_flops(const fc_inferred *in, fc_u128 iter_forward, fc_u128 *out);

#endif
